//! `lab_content::bench`: numpy's statistics, the benchmark's client, and results that hold by
//! arithmetic and by queueing theory.

use lab_content::bench::{percentile, Bench, Load, Stats};
use sim_core::presets;
use sim_core::sim::BuiltinTraces;
use sim_core::Scenario;

fn server() -> Scenario {
    let mut s = Scenario::from_json(presets::find("chat-latency-first").unwrap().json).unwrap();
    s.scheduler.max_num_seqs = 256;
    s.scheduler.max_num_batched_tokens = 8192;
    s.scheduler.queue_timeout_ms = None;
    s.scheduler.max_queue_len = None;
    s
}

fn bench(load: Load, num_prompts: u64) -> Bench {
    Bench { server: server(), input_len: 1024, output_len: 128, num_prompts, load, percentiles: vec![50.0, 99.0] }
}

#[test]
fn stats_are_numpys() {
    // numpy: mean 2.5, median 2.5, std (ddof 0) sqrt(1.25), percentile(…, 99) = 3.97, (…, 25) = 1.75
    let s = Stats::of(&[4.0, 1.0, 3.0, 2.0], &[25.0, 99.0]);
    assert_eq!(s.mean, 2.5);
    assert_eq!(s.median, 2.5);
    assert!((s.std - 1.25f64.sqrt()).abs() < 1e-12);
    assert!((s.percentiles[0].1 - 1.75).abs() < 1e-12);
    assert!((s.percentiles[1].1 - 3.97).abs() < 1e-12);
    assert_eq!(percentile(&[7.0], 99.0), 7.0);
    let empty = Stats::of(&[], &[99.0]);
    assert_eq!((empty.mean, empty.median, empty.std, empty.percentiles[0].1), (0.0, 0.0, 0.0, 0.0));
}

#[test]
fn the_client_is_the_one_vllm_bench_serve_runs() {
    let c = bench(Load::MaxConcurrency(16), 200).scenario();
    assert_eq!(c.classes.len(), 1);
    let class = &c.classes[0];
    assert_eq!(class.num_requests, Some(200));
    assert!(
        matches!(class.arrival, sim_core::scenario::Arrival::ClosedLoop { users: 16, think_time_ms } if think_time_ms == 0.0)
    );
    // more users than prompts: one per prompt
    let few = bench(Load::MaxConcurrency(64), 10).scenario();
    assert!(matches!(few.classes[0].arrival, sim_core::scenario::Arrival::ClosedLoop { users: 10, .. }));
    // burstiness B is a gamma of shape B: coefficient of variation 1/√B
    let b = bench(Load::Rate { per_s: 4.0, burstiness: 0.25 }, 100).scenario();
    assert!(
        matches!(b.classes[0].arrival, sim_core::scenario::Arrival::Bursty { rate_per_s, cv } if rate_per_s == 4.0 && cv == 2.0)
    );
    let p = bench(Load::Rate { per_s: 4.0, burstiness: 1.0 }, 100).scenario();
    assert!(matches!(p.classes[0].arrival, sim_core::scenario::Arrival::Poisson { rate_per_s } if rate_per_s == 4.0));
}

#[test]
fn a_closed_loop_benchmark_adds_up_and_keeps_littles_law() {
    for c in [1u32, 4, 16] {
        let r = bench(Load::MaxConcurrency(c), 160).run(&BuiltinTraces).unwrap();
        assert_eq!((r.completed, r.failed), (160, 0));
        assert_eq!(r.total_input_tokens, 160 * 1024);
        assert_eq!(r.total_output_tokens, 160 * 128);
        assert!((r.request_throughput * r.duration - 160.0).abs() < 1e-6);
        assert!((r.total_token_throughput - r.request_throughput * (1024.0 + 128.0)).abs() < 1e-6);
        // per request E2EL = TTFT + TPOT × (output − 1), so the means too
        assert!((r.e2el.mean - (r.ttft.mean + r.tpot.mean * 127.0)).abs() < 0.01 * r.e2el.mean, "c={c}");
        // Little's law: C requests are always in flight (the last C drain at the end)
        let in_flight = r.request_throughput * r.e2el.mean / 1000.0;
        assert!((in_flight - c as f64).abs() <= 0.05 * c as f64 + 0.05, "c={c}: L = λW = {in_flight}");
        // one user never queues behind another: its TTFT is one prefill and the front end's
        // way, varying only by the step's and the front end's jitter (±5% of the prefill, ±0.5 ×
        // 1.5 ms of the way in)
        if c == 1 {
            let e = sim_core::scenario::EngineConfig::default();
            let spread = 2.0 * e.step_jitter * r.ttft.median + e.frontend_jitter * 2.0 * 1.6;
            assert!(r.ttft.percentiles[1].1 - r.ttft.median < spread, "c=1: {:?}", r.ttft);
        }
    }
}

#[test]
fn more_concurrency_trades_latency_for_throughput() {
    let lo = bench(Load::MaxConcurrency(2), 120).run(&BuiltinTraces).unwrap();
    let hi = bench(Load::MaxConcurrency(32), 120).run(&BuiltinTraces).unwrap();
    assert!(hi.output_throughput > lo.output_throughput);
    assert!(hi.tpot.mean > lo.tpot.mean);
    assert!(hi.ttft.mean > lo.ttft.mean);
}

#[test]
fn the_json_has_the_keys_vllm_bench_serve_saves() {
    let r = bench(Load::MaxConcurrency(4), 40).run(&BuiltinTraces).unwrap();
    let v = serde_json::to_value(&r).unwrap();
    let mut want: Vec<String> = [
        "backend",
        "model_id",
        "num_prompts",
        "request_rate",
        "burstiness",
        "max_concurrency",
        "duration",
        "completed",
        "failed",
        "total_input_tokens",
        "total_output_tokens",
        "request_throughput",
        "output_throughput",
        "total_token_throughput",
        "input_lens",
        "output_lens",
        "ttfts",
        "latencies",
    ]
    .map(String::from)
    .to_vec();
    for m in ["ttft", "tpot", "itl", "e2el"] {
        for s in ["mean", "median", "std", "p50", "p99"] {
            want.push(format!("{s}_{m}_ms"));
        }
    }
    let mut have: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    have.sort();
    want.sort();
    assert_eq!(have, want);
    assert_eq!(v["request_rate"], "inf");
    assert_eq!(v["input_lens"].as_array().unwrap().len(), 40);
    assert_eq!(v["output_lens"][0], 128);
    let ttfts: Vec<f64> = v["ttfts"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    assert!(
        (ttfts.iter().sum::<f64>() / 40.0 * 1000.0 - r.ttft.mean).abs() < 1e-6,
        "ttfts are seconds, their mean is mean_ttft_ms"
    );
    assert_eq!(v["max_concurrency"], 4);
    let rate = serde_json::to_value(bench(Load::Rate { per_s: 2.0, burstiness: 1.0 }, 20).run(&BuiltinTraces).unwrap())
        .unwrap();
    assert_eq!(rate["request_rate"], 2.0);
    assert!(rate["max_concurrency"].is_null());
}
