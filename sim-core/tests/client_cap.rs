//! A class's client cap (`classes[i].max_concurrency`, `vllm bench serve --max-concurrency` with
//! a request rate): at most that many of the class's requests in flight, the others waiting at
//! the client and sent, oldest first, when one ends; a request's clock starts when it is sent.

mod common;

use common::{llama8b, run, run_checked};
use sim_core::RequestRecord;

/// Poisson arrivals at `rate` of `n` requests of 512 + 64 tokens, capped at `cap` when given.
fn class(rate: f64, n: u64, cap: Option<u32>) -> String {
    let cap = cap.map_or(String::new(), |c| format!(r#", "max_concurrency": {c}"#));
    format!(
        r#"{{ "name": "c", "arrival": {{ "kind": "poisson", "rate_per_s": {rate} }}, "num_requests": {n},
            "input_tokens": {{ "kind": "fixed", "value": 512 }},
            "output_tokens": {{ "kind": "fixed", "value": 64 }} {cap} }}"#
    )
}

/// The most requests in flight at once (sent, not ended), from their records (µs, ends first).
fn most_in_flight(records: &[RequestRecord]) -> i32 {
    let us = |s: f64| (s * 1e6).round() as i64;
    let mut edges: Vec<(i64, i32)> = Vec::new();
    for r in records {
        let sent = us(r.arrival_s);
        edges.push((sent, 1));
        edges.push((sent + (r.e2e_ms.expect("completed") * 1e3).round() as i64, -1));
    }
    edges.sort();
    let (mut now, mut most) = (0, 0);
    for (_, d) in edges {
        now += d;
        most = most.max(now);
    }
    most
}

#[test]
fn in_flight_never_exceeds_the_cap_and_the_clock_starts_at_the_send() {
    // 40 rps of 64-token answers, far more than 4 at a time can serve
    let s = llama8b("", &class(40.0, 200, Some(4)));
    let (summary, mut records) = run_checked(&s, 1_000_000);
    assert_eq!(records.len(), 200);
    assert!(records.iter().all(|r| r.e2e_ms.is_some()), "every request completes");
    assert_eq!(most_in_flight(&records), 4);
    // without the cap the same arrivals pile up in the engine
    let open = llama8b("", &class(40.0, 200, None));
    let (open_summary, open_records) = run_checked(&open, 1_000_000);
    assert!(most_in_flight(&open_records) > 4);
    // sent only when a slot frees: the k-th request (k > 4) is sent when an earlier one ends
    records.sort_by_key(|r| r.id);
    let ends: Vec<i64> =
        records.iter().map(|r| ((r.arrival_s * 1e6).round() + (r.e2e_ms.unwrap() * 1e3).round()) as i64).collect();
    let held = records
        .iter()
        .enumerate()
        .skip(4)
        .filter(|(k, r)| {
            let sent = (r.arrival_s * 1e6).round() as i64;
            sent > (open_records.iter().find(|o| o.id == *k as u64).unwrap().arrival_s * 1e6).round() as i64
        })
        .count();
    assert!(held > 100, "{held} of 196 waited at the client");
    for (k, r) in records.iter().enumerate().skip(4) {
        let sent = (r.arrival_s * 1e6).round() as i64;
        let scheduled = (open_records.iter().find(|o| o.id == k as u64).unwrap().arrival_s * 1e6).round() as i64;
        assert!(sent >= scheduled, "request {k} sent before its time");
        if sent > scheduled {
            assert!(ends[..k].contains(&sent), "request {k} waited and was sent at {sent} µs, when none ended");
        }
    }
    // a request's TTFT counts from its send: the capped run's is a prefill behind at most three
    // others, the uncapped run's includes the queue the engine builds
    let ttft = |s: &sim_core::Summary| s.all.ttft_ms.mean;
    assert!(ttft(&summary) < ttft(&open_summary), "{} vs {}", ttft(&summary), ttft(&open_summary));
    assert!(summary.all.ttft_ms.max < 200.0, "{}", summary.all.ttft_ms.max);
}

#[test]
fn a_trace_class_waits_at_its_cap_too() {
    // ten requests at once, two at a time
    let mut csv = String::from("arrival_s,input_len,output_len\n");
    for _ in 0..10 {
        csv.push_str("0,256,32\n");
    }
    let s = llama8b("", r#"{ "name": "t", "arrival": { "kind": "trace", "path": "t.csv" }, "max_concurrency": 2 }"#);
    let mut sim = common::with_trace(&s, &csv);
    let records = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let sink = records.clone();
    sim.set_request_sink(Box::new(move |r: &RequestRecord| sink.borrow_mut().push(r.clone())));
    sim.run_to_end();
    let records = records.borrow();
    assert_eq!(records.len(), 10);
    assert_eq!(most_in_flight(&records), 2);
    // five waves of two, each sent when the one before ends
    let mut sent: Vec<f64> = records.iter().map(|r| r.arrival_s).collect();
    sent.sort_by(f64::total_cmp);
    assert_eq!((sent[0], sent[1]), (0.0, 0.0));
    assert!(sent[2] > 0.0 && sent[9] > sent[7]);
}

#[test]
fn a_cap_never_reached_changes_nothing_and_the_same_seed_the_same_numbers() {
    let open = serde_json::to_string(&run(&llama8b("", &class(5.0, 100, None)))).unwrap();
    let roomy = serde_json::to_string(&run(&llama8b("", &class(5.0, 100, Some(1000))))).unwrap();
    assert_eq!(open, roomy);
    let capped = || serde_json::to_string(&run(&llama8b("", &class(40.0, 100, Some(3))))).unwrap();
    assert_eq!(capped(), capped());
    assert_ne!(capped(), serde_json::to_string(&run(&llama8b("", &class(40.0, 100, None)))).unwrap());
}

#[test]
fn a_cap_is_refused_where_it_does_not_apply_and_out_of_range() {
    let closed = r#"{ "name": "c", "arrival": { "kind": "closed_loop", "users": 4, "think_time_ms": 0 },
        "num_requests": 10, "input_tokens": { "kind": "fixed", "value": 8 },
        "output_tokens": { "kind": "fixed", "value": 8 }, "max_concurrency": 2 }"#;
    let json = |class: &str| {
        format!(
            r#"{{ "version": 1, "seed": 1, "model": "llama-3-8b", "gpu": "h100-sxm", "dtype": "bf16",
                "gpu_memory_utilization": 0.9, "classes": [ {class} ] }}"#
        )
    };
    let e = sim_core::Scenario::from_json(&json(closed)).unwrap_err().to_string();
    assert!(e.contains("classes[0].max_concurrency") && e.contains("does not apply"), "{e}");
    let e = sim_core::Scenario::from_json(&json(&class(1.0, 10, Some(0)))).unwrap_err().to_string();
    assert!(e.contains("classes[0].max_concurrency") && e.contains("1..=1000000"), "{e}");
}
