//! Properties over random scenarios: conservation, KV bounds, monotone time, termination,
//! ordered percentiles, goodput ≤ throughput.

mod common;
use proptest::prelude::*;
use sim_core::scenario::{Arrival, Batching, ClassConfig, KvLayout, LengthDist, PrefixConfig, Slo};
use sim_core::{Scenario, Simulation};

fn length() -> impl Strategy<Value = LengthDist> {
    prop_oneof![
        (1u32..3000).prop_map(|value| LengthDist::Fixed { value }),
        (1u32..500, 0u32..3000).prop_map(|(min, span)| LengthDist::Uniform { min, max: min + span }),
        (10.0f64..2000.0, 0.0f64..1.5).prop_map(|(mean, sigma)| LengthDist::Lognormal { mean, sigma }),
    ]
}

fn arrival() -> impl Strategy<Value = Arrival> {
    prop_oneof![
        (0.1f64..60.0).prop_map(|rate_per_s| Arrival::Poisson { rate_per_s }),
        (0.1f64..60.0, 0.2f64..6.0).prop_map(|(rate_per_s, cv)| Arrival::Bursty { rate_per_s, cv }),
        (1u32..64, 0.0f64..3000.0).prop_map(|(users, think_time_ms)| Arrival::ClosedLoop { users, think_time_ms }),
    ]
}

fn class(i: usize) -> impl Strategy<Value = ClassConfig> {
    (
        arrival(),
        1u64..120,
        length(),
        length(),
        proptest::option::of(50.0f64..5000.0),
        proptest::option::of(5.0f64..200.0),
        0u32..3,
    )
        .prop_map(move |(arrival, n, input, output, ttft, tpot, priority)| ClassConfig {
            name: format!("c{i}"),
            arrival,
            num_requests: Some(n),
            input_tokens: Some(input),
            output_tokens: Some(output),
            slo: Slo { ttft_ms: ttft, tpot_ms: tpot, e2e_ms: None },
            priority,
            reserved_share: None,
            prefix: None,
            session: None,
            max_concurrency: None,
        })
}

prop_compose! {
    fn scenario()(
        seed in any::<u64>(),
        model in prop::sample::select(vec!["llama-3-8b", "qwen2.5-7b", "mixtral-8x7b", "llama-2-13b"]),
        gpu in prop::sample::select(vec!["h100-sxm", "a100-80gb", "l4", "a100-40gb", "rtx-4090", "l40s"]),
        num_gpus in prop::sample::select(vec![1u32, 2, 4]),
        util in 0.5f64..0.98,
        continuous in any::<bool>(),
        chunked in any::<bool>(),
        paged in any::<bool>(),
        max_num_seqs in 1u32..300,
        budget in 512u32..8192,
        block in prop::sample::select(vec![1u32, 8, 16, 32]),
        max_model_len in 3000u32..4096,
        timeout in proptest::option::of(100.0f64..20000.0),
        max_queue in proptest::option::of(0u32..200),
        isolation in any::<bool>(),
        overcommit in any::<bool>(),
        retry in any::<bool>(),
        classes in prop::collection::vec(any::<u8>(), 1..=3),
    )(
        c in classes.iter().enumerate().map(|(i, _)| class(i)).collect::<Vec<_>>(),
        seed in Just(seed), model in Just(model), gpu in Just(gpu), num_gpus in Just(num_gpus), util in Just(util),
        continuous in Just(continuous), chunked in Just(chunked), paged in Just(paged), max_num_seqs in Just(max_num_seqs),
        budget in Just(budget), block in Just(block), max_model_len in Just(max_model_len), timeout in Just(timeout),
        max_queue in Just(max_queue), isolation in Just(isolation), overcommit in Just(overcommit), retry in Just(retry),
    ) -> Scenario {
        let mut s = common::llama8b("", r#"{ "name": "x", "arrival": { "kind": "poisson", "rate_per_s": 1 }, "num_requests": 1,
            "input_tokens": { "kind": "fixed", "value": 1 }, "output_tokens": { "kind": "fixed", "value": 1 } }"#);
        s.seed = seed;
        s.model = sim_core::scenario::ModelRef::Id(model.to_string());
        s.gpu = sim_core::scenario::GpuRef::Id(gpu.to_string());
        s.num_gpus = num_gpus;
        s.gpu_memory_utilization = util;
        let sc = &mut s.scheduler;
        sc.batching = if continuous { Batching::Continuous } else { Batching::Static };
        sc.chunked_prefill = chunked;
        sc.kv_layout = if paged { KvLayout::Paged } else { KvLayout::Contiguous };
        sc.max_num_seqs = max_num_seqs;
        sc.max_model_len = max_model_len;
        sc.max_num_batched_tokens = budget.max(max_num_seqs).max(if chunked { 0 } else { max_model_len });
        sc.block_size = block;
        sc.queue_timeout_ms = timeout;
        sc.max_queue_len = max_queue;
        sc.isolation = isolation;
        sc.overcommit = overcommit;
        sc.retry_on_oom = retry;
        sc.restart_s = 2.0;
        sc.batch_timeout_ms = 20.0;
        s.classes = c;
        s
    }
}

/// The censored views count every arrival, the unanswered ones at a lower bound: E2E's
/// censored ones are exactly the requests not completed, TTFT's at most those; with none
/// censored they equal the completed-only figures; they are ordered; their max is at least the
/// completed-only max.
fn censored_views_hold(sum: &sim_core::Summary) -> Result<(), TestCaseError> {
    for c in std::iter::once(&sum.all).chain(sum.classes.values()) {
        let r = c.requests;
        for (d, v) in [(c.ttft_ms, c.ttft_ms_censored), (c.e2e_ms, c.e2e_ms_censored)] {
            prop_assert_eq!(v.count, r.arrived);
            prop_assert!(v.censored <= r.arrived - r.completed);
            prop_assert!(v.p50 <= v.p90 && v.p90 <= v.p95 && v.p95 <= v.p99 && v.p99 <= v.max, "{:?}", v);
            prop_assert!(v.max >= d.max);
            if v.censored == 0 && r.arrived == r.completed {
                prop_assert_eq!([v.p50, v.p90, v.p95, v.p99, v.max], [d.p50, d.p90, d.p95, d.p99, d.max]);
            }
        }
        prop_assert_eq!(c.e2e_ms_censored.censored, r.arrived - r.completed);
    }
    Ok(())
}

/// The censored TTFT curve is the censored view drawn: its points at shares 0.5 and 0.99 are
/// that view's p50 and p99, it rises to share 1 at no more than the view's max, and it has
/// points exactly when someone arrived.
fn censored_curve_matches(sim: &Simulation) -> Result<(), TestCaseError> {
    let sum = sim.summary();
    let classes: Vec<Option<usize>> = std::iter::once(None).chain((0..sim.class_names().len()).map(Some)).collect();
    for class in classes {
        let c = match class {
            None => &sum.all,
            Some(i) => &sum.classes[&sim.class_names()[i]],
        };
        let curve = sim.ttft_cdf_censored(class, 100);
        let v = c.ttft_ms_censored;
        if v.count == 0 {
            prop_assert!(curve.is_empty());
            continue;
        }
        prop_assert_eq!(curve.len(), 100);
        prop_assert_eq!(curve[49].0, v.p50, "{:?}", class);
        prop_assert_eq!(curve[98].0, v.p99, "{:?}", class);
        prop_assert!(curve.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 < w[1].1));
        prop_assert!((curve[99].1 - 1.0).abs() < 1e-12);
        prop_assert!(curve[99].0 <= v.max);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn invariants_hold_at_every_event(s in scenario()) {
        // Some random configurations legitimately do not fit (e.g. 13B on one GPU with a small
        // pool); those must be refused with a message, never panic.
        let mut sim = match Simulation::new(&s) {
            Ok(sim) => sim,
            Err(e) => { prop_assert!(!e.to_string().is_empty()); return Ok(()); }
        };
        let total: u64 = s.classes.iter().map(|c| c.num_requests.unwrap()).sum();
        // generous bound: every request could be preempted or retried a few times, each
        // costing at most max_model_len iterations
        let bound = 50 + total * (4 * s.scheduler.max_model_len as u64 + 20);
        let mut last = 0;
        let mut events = 0u64;
        while !sim.is_finished() {
            sim.advance_events(1);
            events += 1;
            prop_assert!(sim.now() >= last, "time went backwards");
            last = sim.now();
            if let Err(e) = sim.check_invariants() {
                prop_assert!(false, "after event {events}: {e}");
            }
            if events.is_multiple_of(199) {
                censored_views_hold(&sim.summary())?;
                censored_curve_matches(&sim)?;
            }
            prop_assert!(events <= bound, "no termination after {events} events");
        }
        let sum = sim.summary();
        censored_views_hold(&sum)?;
        censored_curve_matches(&sim)?;
        let r = sum.all.requests;
        prop_assert_eq!(r.arrived, total);
        prop_assert_eq!(r.arrived, r.completed + r.rejected + r.timed_out + r.failed + r.in_flight);
        prop_assert_eq!(r.in_flight, 0);
        for d in [sum.all.ttft_ms, sum.all.tpot_ms, sum.all.itl_ms, sum.all.e2e_ms, sum.all.queue_ms] {
            prop_assert!(d.p50 <= d.p90 && d.p90 <= d.p95 && d.p95 <= d.p99 && d.p99 <= d.max, "{:?}", d);
        }
        prop_assert!(sum.all.goodput.output_tokens_per_s <= sum.all.throughput.output_tokens_per_s + 1e-9);
        prop_assert!(sum.all.goodput.requests_per_s <= sum.all.throughput.requests_per_s + 1e-9);
        prop_assert!(sum.cost.usd_per_million_good_tokens >= sum.cost.usd_per_million_output_tokens);
        if !s.scheduler.overcommit {
            prop_assert!(sum.memory.kv_peak_bytes <= sum.memory.kv_capacity_bytes + 1.0);
            prop_assert_eq!(r.oom_restarts, 0);
        }
        // per-class counts add up to the totals
        let completed: u64 = sum.classes.values().map(|c| c.requests.completed).sum();
        prop_assert_eq!(completed, r.completed);
    }
}

/// A random scenario with prefix caching: continuous batching on paged KV, each class with
/// shared prefixes (1–2,500 tokens, 1–12 groups) where `shared` switches them on.
fn with_prefix_caching(mut s: Scenario, shared: Vec<(u32, u32, bool)>) -> Scenario {
    let sc = &mut s.scheduler;
    sc.batching = Batching::Continuous;
    sc.kv_layout = KvLayout::Paged;
    sc.prefix_caching = true;
    let max_shared = sc.max_model_len - 2;
    for (c, (tokens, groups, on)) in s.classes.iter_mut().zip(shared) {
        c.prefix = on.then_some(PrefixConfig { shared_tokens: tokens.min(max_shared), groups });
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    #[test]
    fn prefix_caching_invariants_hold_at_every_event(
        s in scenario(),
        shared in prop::collection::vec((1u32..2500, 1u32..12, prop::bool::weighted(0.85)), 3),
    ) {
        let s = with_prefix_caching(s, shared);
        let mut sim = match Simulation::new(&s) {
            Ok(sim) => sim,
            Err(e) => { prop_assert!(!e.to_string().is_empty()); return Ok(()); }
        };
        // every plan: an admission's cached tokens are whole blocks of its prefix, short of
        // its prompt
        let block = s.scheduler.block_size;
        let bad = std::rc::Rc::new(std::cell::RefCell::new(None));
        let seen = bad.clone();
        sim.set_plan_observer(Box::new(move |plan, _| {
            for c in plan.admitted() {
                if !c.done.is_multiple_of(block) || c.done >= c.target {
                    *seen.borrow_mut() = Some(format!("{c:?}"));
                }
            }
        }));
        let delivered = std::rc::Rc::new(std::cell::Cell::new(0u64));
        let d = delivered.clone();
        sim.set_request_sink(Box::new(move |r: &sim_core::RequestRecord| {
            if r.outcome == sim_core::metrics::Outcome::Completed {
                d.set(d.get() + r.output_tokens as u64);
            }
        }));
        let total: u64 = s.classes.iter().map(|c| c.num_requests.unwrap()).sum();
        let bound = 50 + total * (4 * s.scheduler.max_model_len as u64 + 20);
        let mut events = 0u64;
        while !sim.is_finished() {
            sim.advance_events(1);
            events += 1;
            if let Err(e) = sim.check_invariants() {
                prop_assert!(false, "after event {events}: {e}");
            }
            prop_assert!(events <= bound, "no termination after {events} events");
        }
        prop_assert!(bad.borrow().is_none(), "{:?}", bad.borrow());
        let sum = sim.summary();
        let r = sum.all.requests;
        prop_assert_eq!(r.arrived, total);
        prop_assert_eq!(r.arrived, r.completed + r.rejected + r.timed_out + r.failed);
        if !s.scheduler.overcommit {
            prop_assert!(sum.memory.kv_peak_bytes <= sum.memory.kv_capacity_bytes + 1.0);
        }
        // output tokens counted are those delivered to completed requests (a recomputed
        // prefix adds none)
        let counted = sum.all.throughput.output_tokens_per_s * sum.duration_s;
        prop_assert!((counted - delivered.get() as f64).abs() <= 1e-6 * (delivered.get() as f64).max(1.0));
        // figures exactly where some class shares a prefix (without one there is nothing to cache)
        prop_assert_eq!(sum.all.prefix_cache.is_some(), s.classes.iter().any(|c| c.prefix.is_some()));
        if let Some(pc) = sum.all.prefix_cache {
            prop_assert!((0.0..1.0).contains(&pc.hit_rate), "{:?}", pc);
            let per_class: u64 = sum.classes.values().map(|c| c.prefix_cache.unwrap().cached_tokens).sum();
            prop_assert_eq!(per_class, pc.cached_tokens);
        }
    }
}
