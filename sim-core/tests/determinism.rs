//! Same scenario and seed → the same numbers; another seed → other numbers.

mod common;

fn summary_json(id: &str, seed: Option<u64>) -> String {
    let mut s = common::preset(id);
    if let Some(seed) = seed {
        s.seed = seed;
    }
    serde_json::to_string(&common::run(&s)).unwrap()
}

#[test]
fn same_seed_gives_identical_summary() {
    for id in ["chat-latency-first", "mixed-isolated", "risk-oom-full-memory", "static-batching"] {
        assert_eq!(summary_json(id, None), summary_json(id, None), "{id}");
    }
}

#[test]
fn another_seed_gives_another_summary() {
    for id in ["chat-latency-first", "mixed-shared"] {
        assert_ne!(summary_json(id, Some(1)), summary_json(id, Some(2)), "{id}");
    }
}

#[test]
fn incremental_advance_matches_a_straight_run() {
    // The browser advances in small slices and reads snapshots in between; that must not change
    // the outcome.
    let s = common::preset("mixed-shared");
    let straight = common::run(&s);
    let mut sim = sim_core::Simulation::new(&s).unwrap();
    let mut t = 0;
    while !sim.is_finished() {
        t += 16_667 * 7; // a 60 fps frame at 7x speed
        sim.advance_to(t);
        let snap = sim.snapshot();
        assert!(snap.requests.len() as u64 == snap.queued.iter().sum::<u64>() + snap.running);
    }
    let mut inc = sim.summary();
    // only the clock differs: the incremental run stopped at a frame boundary
    inc.duration_s = straight.duration_s;
    let (mut a, mut b) = (serde_json::to_value(&straight).unwrap(), serde_json::to_value(&inc).unwrap());
    for v in [&mut a, &mut b] {
        strip_rates(v);
    }
    assert_eq!(a, b);
}

/// Rates divide by the duration; compare the counts and latencies, which must match exactly.
fn strip_rates(v: &mut serde_json::Value) {
    if let Some(o) = v.as_object_mut() {
        o.remove("throughput");
        o.remove("goodput");
        o.remove("cost");
        for (_, x) in o.iter_mut() {
            strip_rates(x);
        }
    }
}

#[test]
fn adding_a_class_leaves_the_other_class_arrivals_unchanged() {
    // each class draws from its own stream: A/B comparisons see the same arrivals
    let one = common::preset("chat-latency-first");
    let mut two = one.clone();
    let mut extra = two.classes[0].clone();
    extra.name = "other".into();
    two.classes.push(extra);
    let arrivals = |s: &sim_core::Scenario| {
        let mut sim = sim_core::Simulation::new(s).unwrap();
        let recs = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let sink = recs.clone();
        sim.set_request_sink(Box::new(move |r| {
            if r.class == "chat" {
                sink.borrow_mut().push((r.arrival_s.to_bits(), r.input_tokens, r.output_tokens));
            }
        }));
        sim.run_to_end();
        let mut v = recs.borrow().clone();
        v.sort();
        v
    };
    assert_eq!(arrivals(&one), arrivals(&two));
}
