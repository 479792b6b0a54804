//! `lab_content::bench`: numpy's statistics, the benchmark's client, and results that hold by
//! arithmetic and by queueing theory.

use lab_content::bench::{percentile, Bench, Load, RampUp, Rate, Schedule, Spread, Stats, SCHEDULE_TRACE};
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
    Bench {
        server: server(),
        input_len: 1024,
        output_len: 128,
        spread: Spread::Fixed,
        num_prompts,
        load,
        percentiles: vec![50.0, 99.0],
    }
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
    // a finite rate: the client's schedule, handed to the engine as a trace of fixed lengths
    let b = bench(Load::rate(4.0, 0.25), 100).scenario();
    assert!(matches!(&b.classes[0].arrival, sim_core::scenario::Arrival::Trace { path, .. } if path == SCHEDULE_TRACE));
    assert_eq!((b.classes[0].num_requests, b.classes[0].max_concurrency), (None, None));
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
        "queue_times",
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
    // with --request-rate inf every prompt is ready at 0: its queue time is when it was sent
    let first_sent: Vec<f64> = v["queue_times"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    assert_eq!(first_sent[..4], [0.0; 4]);
    assert!(first_sent[4] > 0.0);
    let rate = serde_json::to_value(bench(Load::rate(2.0, 1.0), 20).run(&BuiltinTraces).unwrap()).unwrap();
    assert_eq!(rate["request_rate"], 2.0);
    assert!(rate["max_concurrency"].is_null());
    assert!(rate.get("ramp_up_strategy").is_none());
    assert!(rate["queue_times"].as_array().unwrap().iter().all(|q| q == 0.0));
    // a ramp: vLLM's three keys, and request_rate inf (a ramp refuses a rate)
    let ramp = Load::Schedule(Schedule {
        rate: Rate::Ramp { strategy: RampUp::Exponential, start_rps: 1, end_rps: 8 },
        burstiness: f64::INFINITY,
        max_concurrency: Some(2),
    });
    let ramp = serde_json::to_value(bench(ramp, 20).run(&BuiltinTraces).unwrap()).unwrap();
    assert_eq!(
        (&ramp["request_rate"], &ramp["burstiness"], &ramp["max_concurrency"]),
        (&serde_json::json!("inf"), &serde_json::json!("inf"), &serde_json::json!(2))
    );
    assert_eq!(
        (&ramp["ramp_up_strategy"], &ramp["ramp_up_start_rps"], &ramp["ramp_up_end_rps"]),
        (&serde_json::json!("exponential"), &serde_json::json!(1), &serde_json::json!(8))
    );
}

fn schedule(rate: Rate, burstiness: f64, cap: Option<u32>) -> Load {
    Load::Schedule(Schedule { rate, burstiness, max_concurrency: cap })
}

#[test]
fn a_ramp_up_sends_at_vllms_rates() {
    // 5 requests, linear 1 → 5 rps: progress i/4, rates 1, 2, 3, 4, 5
    let linear = Rate::Ramp { strategy: RampUp::Linear, start_rps: 1, end_rps: 5 };
    let rates: Vec<f64> = (0..5).map(|i| linear.at(i, 5)).collect();
    assert_eq!(rates, [1.0, 2.0, 3.0, 4.0, 5.0]);
    // exponential 1 → 16: 1 × 16^(i/4) = 1, 2, 4, 8, 16
    let exp = Rate::Ramp { strategy: RampUp::Exponential, start_rps: 1, end_rps: 16 };
    let rates: Vec<f64> = (0..5).map(|i| exp.at(i, 5)).collect();
    for (got, want) in rates.iter().zip([1.0, 2.0, 4.0, 8.0, 16.0]) {
        assert!((got - want).abs() < 1e-12, "{rates:?}");
    }
    // one request: progress 0 / max(0, 1) = 0, the start rate
    assert_eq!(linear.at(0, 1), 1.0);
    // an infinite burstiness gives even gaps of 1/rate, the first one included, and a ramp is
    // not rescaled: 1, 1 + 1/2, + 1/3, + 1/4, + 1/5
    let times = Schedule { rate: linear, burstiness: f64::INFINITY, max_concurrency: None }.send_times(5, 0);
    let mut t = 0.0;
    for (got, rate) in times.iter().zip([1.0, 2.0, 3.0, 4.0, 5.0]) {
        t += 1.0 / rate;
        assert!((got - t).abs() < 1e-12, "{times:?}");
    }
    // a fixed rate's times are rescaled so the last is N / rate
    let fixed = Schedule { rate: Rate::PerS(4.0), burstiness: 0.5, max_concurrency: None }.send_times(10, 3);
    assert!((fixed[9] - 2.5).abs() < 1e-12 && fixed[0] > 0.0, "{fixed:?}");
    assert!(fixed.windows(2).all(|w| w[0] <= w[1]));
}

#[test]
fn a_ramps_gaps_are_gammas_of_mean_one_over_the_rate() {
    // request i's gap over its mean 1/rate_i is a gamma of shape B and scale 1/B: mean 1,
    // variance 1/B, whatever the rate; 20,000 gaps put the mean within ~4 standard errors
    let n = 20_000u64;
    for b in [0.5, 1.0, 4.0] {
        let rate = Rate::Ramp { strategy: RampUp::Linear, start_rps: 2, end_rps: 50 };
        let times = Schedule { rate, burstiness: b, max_concurrency: None }.send_times(n, 7);
        let mut prev = 0.0;
        let scaled: Vec<f64> = times
            .iter()
            .enumerate()
            .map(|(i, &t)| {
                let gap = t - prev;
                prev = t;
                gap * rate.at(i as u64, n)
            })
            .collect();
        let mean = scaled.iter().sum::<f64>() / n as f64;
        let var = scaled.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
        let se = (1.0 / b / n as f64).sqrt();
        assert!((mean - 1.0).abs() < 4.0 * se, "B={b}: mean {mean}");
        assert!((var * b - 1.0).abs() < 0.1, "B={b}: variance {var}, want {}", 1.0 / b);
    }
}

#[test]
fn a_rate_with_a_cap_holds_requests_at_the_client_and_times_them_from_the_send() {
    // 8 rps for 80 prompts of 1,024 + 128 tokens, at most 2 in flight: the server cannot keep up
    let cap = 2;
    let b = bench(schedule(Rate::PerS(8.0), 1.0, Some(cap)), 80);
    let r = b.run(&BuiltinTraces).unwrap();
    assert_eq!((r.completed, r.failed), (80, 0));
    // in flight at any time (sent, not ended): never more than the cap, and the cap is reached
    let mut edges: Vec<(f64, i32)> = Vec::new();
    let sent: Vec<f64> = r.queue_times.iter().zip(b.send_times()).map(|(q, t)| t + q).collect();
    for (s, e2e) in sent.iter().zip(&r.latencies) {
        edges.push((*s, 1));
        // an end a microsecond early (the engine's clock counts whole microseconds, the
        // schedule's times here are not rounded): the request it lets through is sent then
        edges.push((s + e2e - 1e-6, -1));
    }
    edges.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let (mut now, mut most) = (0, 0);
    for (_, d) in edges {
        now += d;
        most = most.max(now);
    }
    assert_eq!(most, cap as i32);
    // requests waited at the client, and their TTFT does not count it: it is a prefill behind
    // at most one other request, far below the waits
    let waited = r.queue_times.iter().filter(|q| **q > 0.0).count();
    assert!(waited > 40, "{waited} waited");
    let longest_wait = r.queue_times.iter().cloned().fold(0.0, f64::max);
    assert!(r.ttft.percentiles[1].1 < 0.1 * longest_wait * 1000.0, "p99 TTFT {} ms", r.ttft.percentiles[1].1);
    // the same benchmark without the cap: every prompt is sent on time, and the run is shorter
    let open = bench(schedule(Rate::PerS(8.0), 1.0, None), 80).run(&BuiltinTraces).unwrap();
    assert!(open.queue_times.iter().all(|q| *q == 0.0));
    assert!(open.duration < r.duration, "{} vs {}", open.duration, r.duration);
    // the client's send order is the schedule's; a request is never sent before its time
    assert!(sent.windows(2).all(|w| w[0] <= w[1] + 1e-9));
}

#[test]
fn a_schedule_is_the_same_on_the_same_seed() {
    let load = schedule(Rate::Ramp { strategy: RampUp::Linear, start_rps: 1, end_rps: 20 }, 0.7, Some(3));
    let a = serde_json::to_string(&bench(load.clone(), 60).run(&BuiltinTraces).unwrap()).unwrap();
    let b = serde_json::to_string(&bench(load.clone(), 60).run(&BuiltinTraces).unwrap()).unwrap();
    assert_eq!(a, b);
    let mut other = bench(load, 60);
    other.server.seed += 1;
    let c = serde_json::to_string(&other.run(&BuiltinTraces).unwrap()).unwrap();
    assert_ne!(a, c, "another seed, other gaps");
}

#[test]
fn a_schedule_names_what_is_out_of_range() {
    let bad = |load: Load, n: u64| bench(load, n).run(&BuiltinTraces).unwrap_err().to_string();
    assert!(bad(Load::rate(0.0, 1.0), 10).contains("classes[0].arrival.rate_per_s"));
    assert!(bad(Load::rate(1.0, 1.0), 0).contains("classes[0].num_requests"));
    assert!(bad(Load::rate(1.0, 0.0), 10).contains("classes[0].arrival.cv"));
    let e = bad(schedule(Rate::PerS(1.0), 1.0, Some(0)), 10);
    assert!(e.contains("classes[0].max_concurrency"), "{e}");
}

#[test]
fn a_spread_draws_lengths_from_vllms_ranges() {
    // vLLM's --random-range-ratio r: floor(L(1 − r)) ..= ceil(L(1 + r)), outputs at least 1
    assert_eq!(Spread::Symmetric(0.25).bounds(1000), (750, 1250));
    assert_eq!(Spread::Symmetric(0.9).bounds(1), (1, 2));
    assert_eq!(Spread::Symmetric(0.0).bounds(1024), (1024, 1024));
    // the range before it became symmetric, as InferenceMAX ran it: floor(0.8 L) ..= L
    assert_eq!(Spread::Below(0.8).bounds(1024), (819, 1024));
    assert_eq!(Spread::Below(0.8).bounds(8192), (6553, 8192));
    assert_eq!(Spread::Fixed.bounds(0), (0, 0), "a fixed length is left to validation");
    assert_eq!(Spread::Symmetric(1.0).out_of_range(), Some(1.0));
    assert_eq!(Spread::Below(0.0).out_of_range(), Some(0.0));
    assert_eq!(Spread::Symmetric(0.999).out_of_range(), None);
    // every load sends lengths inside the range, not all alike, the same on the same seed
    for load in [Load::MaxConcurrency(8), Load::AllAtOnce, Load::rate(20.0, 1.0)] {
        let mut b = bench(load.clone(), 60);
        b.spread = Spread::Symmetric(0.5);
        let run = |b: &Bench| b.run(&BuiltinTraces).unwrap();
        let r = run(&b);
        assert_eq!(r.completed, 60, "{load:?}");
        assert!(r.input_lens.iter().all(|&l| (512..=1536).contains(&l)), "{load:?}: {:?}", r.input_lens);
        assert!(r.output_lens.iter().all(|&l| (64..=192).contains(&l)), "{load:?}: {:?}", r.output_lens);
        assert!(r.input_lens.iter().any(|&l| l != r.input_lens[0]), "{load:?}: one length");
        assert_eq!(run(&b).input_lens, r.input_lens, "{load:?}: another draw on the same seed");
    }
    // a ratio the client refuses is named
    let mut b = bench(Load::MaxConcurrency(8), 10);
    b.spread = Spread::Symmetric(1.5);
    let err = b.run(&BuiltinTraces).unwrap_err().to_string();
    assert!(err.contains("random_range_ratio"), "{err}");
}
