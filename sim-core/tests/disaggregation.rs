//! Prefill/decode disaggregation: one request worked by hand (prefill + transfer + decode
//! steps), the links' queueing, conservation and the pools' roles at every event on random
//! disaggregated clusters, and the messages for settings that cannot work.

mod common;
use proptest::prelude::*;
use sim_core::perf::BatchWork;
use sim_core::scenario::DisaggConfig;
use sim_core::{RequestRecord, Scenario, Simulation, Summary};

fn run_checked(s: &Scenario) -> (Summary, Vec<RequestRecord>) {
    common::run_checked(s, 20_000_000)
}

fn split(mut s: Scenario, prefill: u32, decode: u32, gbps: f64, latency_us: f64) -> Scenario {
    s.disaggregation = Some(DisaggConfig {
        prefill_replicas: prefill,
        decode_replicas: decode,
        kv_link_gbps: gbps,
        kv_link_latency_us: latency_us,
        prefill_num_gpus: None,
        decode_num_gpus: None,
    });
    s
}

fn poisson(rate: f64, n: u64, input: u32, output: u32) -> String {
    format!(
        r#"{{ "name": "chat", "arrival": {{ "kind": "poisson", "rate_per_s": {rate} }}, "num_requests": {n},
            "input_tokens": {{ "kind": "fixed", "value": {input} }},
            "output_tokens": {{ "kind": "fixed", "value": {output} }} }}"#
    )
}

fn trace_class() -> &'static str {
    r#"{ "name": "chat", "arrival": { "kind": "trace", "path": "t.csv" } }"#
}

/// Microseconds of one iteration of `work` on the scenario's engine.
fn step_us(sim: &Simulation, work: &BatchWork) -> u64 {
    sim.step_model().step_time(work).micros()
}

#[test]
fn one_request_is_prefill_then_transfer_then_decode_steps() {
    // 2000-token prompt, 5 output tokens, arriving at t = 0 on 1P1D
    let (input, output) = (2000u64, 5u64);
    let csv = format!("arrival_s,input_len,output_len\n0,{input},{output}\n");
    let s = split(common::llama8b("", trace_class()), 1, 1, 25.0, 40.0);
    let mut sim = common::with_trace(&s, &csv);
    // by hand: the prompt in chunks of max_num_batched_tokens (2048: one chunk); the KV of 2000
    // tokens over 25 GB/s, plus 40 µs; the decode side computes the prompt's last position (its
    // first token), then one decode step per further token
    let mut prefill = BatchWork::default();
    prefill.add_prefill_chunk(0, input, true);
    let prefill_us = step_us(&sim, &prefill);
    let bytes = input as f64 * sim.hbm_plan().kv_bytes_per_token;
    let transfer_us = (bytes / 25e3).ceil() as u64 + 40;
    let mut last = BatchWork::default();
    last.add_prefill_chunk(input - 1, 1, true);
    let first_us = step_us(&sim, &last);
    let decode_us: Vec<u64> = (1..output)
        .map(|i| {
            // a sequence holding `input + i` tokens' KV (the prompt and the tokens before)
            let ctx = input + i;
            let work = BatchWork { decode_seqs: 1, decode_ctx_tokens: ctx, logit_tokens: 1, ..BatchWork::default() };
            step_us(&sim, &work)
        })
        .collect();
    let sum = sim.run_to_end();
    sim.check_invariants().unwrap();
    let ttft_us = prefill_us + transfer_us + first_us;
    let e2e_us = ttft_us + decode_us.iter().sum::<u64>();
    assert_eq!(sum.all.requests.completed, 1);
    assert_eq!((sum.all.ttft_ms.max * 1000.0).round() as u64, ttft_us, "TTFT = prefill + transfer + first step");
    assert_eq!((sum.all.e2e_ms.max * 1000.0).round() as u64, e2e_us, "E2E = TTFT + the decode steps");
    let d = sum.disaggregation.expect("a disaggregation summary");
    assert_eq!((d.prefill_replicas, d.decode_replicas, d.transfers), (1, 1, 1));
    assert_eq!((d.kv_transfer_ms.max * 1000.0).round() as u64, transfer_us);
    assert_eq!(d.link_wait_ms.max, 0.0);
    assert_eq!(d.kv_bytes, bytes);
    // the prefill replica received it, the decode replica completed it
    let r = &sum.replicas;
    assert_eq!((r[0].requests, r[0].completed, r[1].requests, r[1].completed), (1, 0, 1, 1));
}

#[test]
fn transfers_into_one_decode_replica_wait_for_its_link() {
    // two prefill replicas finish identical prompts at the same instant; one decode replica
    // takes both: the second transfer waits for the first's time on the wire
    let csv = "arrival_s,input_len,output_len\n0,1000,3\n0,1000,3\n";
    let mut s = split(common::llama8b("", trace_class()), 2, 1, 10.0, 0.0);
    s.router.policy = sim_core::cluster::Policy::RoundRobin;
    let mut sim = common::with_trace(&s, csv);
    let wire_us = (1000.0 * sim.hbm_plan().kv_bytes_per_token / 10e3).ceil() as u64;
    let sum = sim.run_to_end();
    sim.check_invariants().unwrap();
    let d = sum.disaggregation.unwrap();
    assert_eq!(d.transfers, 2);
    assert_eq!((d.link_wait_ms.max * 1000.0).round() as u64, wire_us, "the second waited one transfer");
    assert_eq!((d.kv_transfer_ms.max * 1000.0).round() as u64, 2 * wire_us);
    assert_eq!(sum.all.requests.completed, 2);
}

#[test]
fn live_requests_show_each_transfer_on_the_links_with_its_times() {
    // as above, by hand: both prompts prefill in one step of 1,000 tokens on their own replica,
    // then leave for replica 2 together; the second starts when the first is off the wire
    let csv = "arrival_s,input_len,output_len\n0,1000,3\n0,1000,3\n";
    let mut s = split(common::llama8b("", trace_class()), 2, 1, 10.0, 30.0);
    s.router.policy = sim_core::cluster::Policy::RoundRobin;
    let mut sim = common::with_trace(&s, csv);
    let wire_us = (1000.0 * sim.hbm_plan().kv_bytes_per_token / 10e3).ceil() as u64;
    let mut prefill = BatchWork::default();
    prefill.add_prefill_chunk(0, 1000, true);
    let prefill_us = step_us(&sim, &prefill);
    let secs = |us: u64| us as f64 / 1e6;
    sim.advance_to(prefill_us - 1);
    assert!(sim.live_requests().iter().all(|r| r.transfer.is_none()), "still prefilling");
    sim.advance_to(prefill_us);
    let live = sim.live_requests();
    let on_link: Vec<_> = live.iter().map(|r| (r.id, r.replica, r.transfer)).collect();
    let t = |start: u64| sim_core::sim::KvTransfer {
        to: 2,
        sent_s: secs(prefill_us),
        start_s: secs(start),
        arrive_s: secs(start + wire_us + 30),
    };
    assert_eq!(on_link, vec![(0, 0, Some(t(prefill_us))), (1, 1, Some(t(prefill_us + wire_us)))]);
    // the first's last byte is off the wire; it arrives 30 µs later, on the decode replica
    sim.advance_to(prefill_us + wire_us + 30);
    let live = sim.live_requests();
    let first = live.iter().find(|r| r.id == 0).unwrap();
    assert_eq!((first.replica, first.transfer), (2, None));
    assert_eq!(live.iter().find(|r| r.id == 1).unwrap().transfer, Some(t(prefill_us + wire_us)));
    sim.run_to_end();
    sim.check_invariants().unwrap();
    assert!(sim.live_requests().is_empty());
}

#[test]
fn a_slower_link_only_adds_transfer_time() {
    // one request at a time (closed loop, one user): TTFT grows by exactly the extra wire time
    let class = r#"{ "name": "chat", "arrival": { "kind": "closed_loop", "users": 1, "think_time_ms": 100 },
        "num_requests": 20, "input_tokens": { "kind": "fixed", "value": 3000 },
        "output_tokens": { "kind": "fixed", "value": 20 } }"#;
    let base = common::llama8b("", class);
    let fast = common::run(&split(base.clone(), 1, 1, 100.0, 0.0));
    let slow = common::run(&split(base.clone(), 1, 1, 10.0, 0.0));
    let bytes = 3000.0 * Simulation::new(&base).unwrap().hbm_plan().kv_bytes_per_token;
    let extra_ms = ((bytes / 10e3).ceil() - (bytes / 100e3).ceil()) / 1000.0;
    let d = slow.all.ttft_ms.mean - fast.all.ttft_ms.mean;
    assert!((d - extra_ms).abs() < 1e-6, "TTFT +{d} ms, wire time +{extra_ms} ms");
    assert!((slow.all.tpot_ms.mean - fast.all.tpot_ms.mean).abs() < 1e-9, "decode steps are the same");
}

#[test]
fn decode_replicas_keep_prompts_out_of_decode_steps() {
    // long prompts at a load where colocated chunked prefill puts prompt chunks into decode
    // steps: with the same four GPUs split 2P2D, TPOT's tail is far lower
    let class = r#"{ "name": "chat", "arrival": { "kind": "poisson", "rate_per_s": 16 }, "num_requests": 600,
        "input_tokens": { "kind": "lognormal", "mean": 3000, "sigma": 0.5 },
        "output_tokens": { "kind": "lognormal", "mean": 200, "sigma": 0.5 } }"#;
    let base = common::llama8b("", class);
    let mut colocated = base.clone();
    colocated.replicas = 4;
    colocated.router.policy = sim_core::cluster::Policy::LeastOutstanding;
    for seed in 1..=5 {
        let mut a = colocated.clone();
        a.seed = seed;
        let mut b = split(base.clone(), 2, 2, 50.0, 20.0);
        b.seed = seed;
        let (a, b) = (common::run(&a), common::run(&b));
        assert!(
            b.all.tpot_ms.p99 < 0.8 * a.all.tpot_ms.p99,
            "seed {seed}: TPOT p99 {} disaggregated vs {} colocated",
            b.all.tpot_ms.p99,
            a.all.tpot_ms.p99
        );
        assert_eq!(a.cost.usd_per_hour, b.cost.usd_per_hour, "the same GPUs");
    }
}

#[test]
fn settings_that_cannot_work_are_named() {
    let base = common::llama8b("", &poisson(5.0, 10, 100, 10));
    let mut s = split(base.clone(), 1, 2, 50.0, 0.0);
    s.replicas = 4;
    let e = s.validate().unwrap_err();
    assert!(e.for_field("disaggregation").is_some_and(|f| f.message.contains("3")), "{e}");
    s.replicas = 3;
    assert!(s.validate().is_ok(), "replicas equal to the pools is fine");
    let mut st = split(base.clone(), 1, 1, 50.0, 0.0);
    st.scheduler.batching = sim_core::scenario::Batching::Static;
    assert!(st.validate().unwrap_err().for_field("disaggregation").is_some());
    let mut oc = split(base.clone(), 1, 1, 50.0, 0.0);
    oc.scheduler.overcommit = true;
    let e = oc.validate().unwrap_err();
    assert!(e.for_field("disaggregation").is_some_and(|f| f.message.contains("overcommit")), "{e}");
    let mut z = split(base, 1, 0, 0.0, -1.0);
    z.replicas = 1;
    let e = z.validate().unwrap_err();
    for f in ["disaggregation.decode_replicas", "disaggregation.kv_link_gbps", "disaggregation.kv_link_latency_us"] {
        assert!(e.for_field(f).is_some(), "{f}: {e}");
    }
    let bad = r#"{ "prefill_replicas": 1, "decode_replicas": 1, "kv_link_gbps": 50, "bandwidth": 3 }"#;
    let json = serde_json::to_string(&common::llama8b("", &poisson(5.0, 10, 100, 10))).unwrap();
    let json = json.replacen('{', &format!(r#"{{"disaggregation": {bad},"#), 1);
    let e = Scenario::from_json(&json).unwrap_err();
    assert!(e.errors.iter().any(|f| f.field.starts_with("disaggregation")), "{e}");
}

fn arb_split() -> impl Strategy<Value = Scenario> {
    (
        (1u32..=3, 1u32..=3),
        (0.5f64..200.0, 0.0f64..500.0),
        (1.0f64..60.0, 20u64..160),
        (1u32..4000, 1u32..300),
        (any::<bool>(), any::<bool>(), 0u64..1000),
        prop::option::of((1u32..=4, 0.3f64..0.9)),
        prop::option::of((1u32..=1500, 1u32..=8)),
    )
        .prop_map(|((p, d), (gbps, lat), (rate, n), (input, output), (chunked, low_mem, seed), spec, prefix)| {
            let prefix_field = prefix.map_or(String::new(), |(shared, groups)| {
                format!(r#", "prefix": {{ "shared_tokens": {shared}, "groups": {groups} }}"#)
            });
            let class = format!(
                r#"{{ "name": "a", "arrival": {{ "kind": "poisson", "rate_per_s": {rate} }}, "num_requests": {n},
                "input_tokens": {{ "kind": "uniform", "min": 1, "max": {input} }},
                "output_tokens": {{ "kind": "uniform", "min": 1, "max": {output} }} {prefix_field} }}"#
            );
            let mut s = split(common::llama8b(r#", "prefix_caching": true"#, &class), p, d, gbps, lat);
            s.seed = seed;
            if !chunked {
                // whole prompts in prefill-only iterations (the prompt limit must hold one)
                s.scheduler.chunked_prefill = false;
                s.scheduler.max_num_batched_tokens = 8192;
            }
            s.speculative = spec.map(|(k, a)| sim_core::speculative::SpeculativeConfig {
                draft_tokens: k,
                acceptance_rate: a,
                draft_model: None,
            });
            if low_mem {
                // little KV: preemption on both sides, prompts waiting on their links
                s.gpu_memory_utilization = 0.24;
            }
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// At every event: requests conserved on every replica (arrived + received = ended + sent +
    /// live) and overall, KV within every pool, every prompt being sent one transfer under way,
    /// prefill replicas completing nothing and decode replicas receiving no arrivals. At the
    /// end: every request ended once, the tokens counted are those delivered, every completed
    /// request crossed a link once.
    #[test]
    fn disaggregated_clusters_conserve_requests_and_tokens(s in arb_split()) {
        let (sum, records) = run_checked(&s);
        let n = s.classes[0].num_requests.unwrap_or(0);
        prop_assert_eq!(records.len() as u64, n);
        let mut ids: Vec<u64> = records.iter().map(|r| r.id).collect();
        ids.sort_unstable();
        ids.dedup();
        prop_assert_eq!(ids.len() as u64, n, "every request ends once");
        let completed: Vec<_> = records.iter().filter(|r| r.outcome == sim_core::metrics::Outcome::Completed).collect();
        let delivered: u64 = completed.iter().map(|r| r.output_tokens as u64).sum();
        let counted = (sum.all.throughput.output_tokens_per_s * sum.duration_s).round() as u64;
        prop_assert_eq!(counted, delivered);
        let d = sum.disaggregation.unwrap();
        prop_assert!(d.transfers >= completed.len() as u64);
        let p = s.disaggregation.as_ref().unwrap().prefill_replicas as usize;
        let arrived: u64 = sum.replicas[..p].iter().map(|r| r.requests).sum();
        prop_assert_eq!(arrived, n);
        let received: u64 = sum.replicas[p..].iter().map(|r| r.requests).sum();
        prop_assert_eq!(received, d.transfers);
    }
}

#[test]
fn switching_disaggregation_on_splits_the_replicas_and_off_keeps_them() {
    use sim_core::settings::{self, Value};
    let mut s = common::llama8b("", &poisson(5.0, 10, 100, 10));
    s.replicas = 4;
    assert_eq!(settings::get(&s, "prefill_replicas", 0), Some(Value::Off));
    assert_eq!(settings::get(&s, "decode_replicas", 0), None, "no pools without disaggregation");
    settings::set(&mut s, "prefill_replicas", 0, &Value::Number(1.0)).unwrap();
    let d = s.disaggregation.clone().unwrap();
    assert_eq!((d.prefill_replicas, d.decode_replicas, s.replicas), (1, 3, 1), "the same four GPUs");
    assert!(s.validate().is_ok());
    assert_eq!(settings::get(&s, "decode_replicas", 0), Some(Value::Number(3.0)));
    settings::set(&mut s, "decode_replicas", 0, &Value::Number(5.0)).unwrap();
    settings::set(&mut s, "prefill_replicas", 0, &Value::Number(2.0)).unwrap();
    assert_eq!(s.replica_count(), 7);
    settings::set(&mut s, "prefill_replicas", 0, &Value::Off).unwrap();
    assert_eq!((s.disaggregation.is_none(), s.replicas), (true, 7), "as many colocated replicas");
    let e = settings::set(&mut s, "prefill_replicas", 0, &Value::Number(0.5)).unwrap_err();
    assert_eq!(e.field, "disaggregation.prefill_replicas");
}
