//! Closed-loop users with fixed lengths, as `vllm bench serve --max-concurrency` runs them:
//! without a front end or timing variation they stay in lockstep for the whole run; with them
//! they drift apart and TTFT has a distribution.

mod common;
use sim_core::perf::BatchWork;
use sim_core::{Scenario, Simulation};

/// Qwen3-32B bf16 on two H100s, `users` closed-loop users without think time, 1,024-token
/// prompts and 512-token answers, eight prompts each.
fn bench(users: u32) -> Scenario {
    common::scenario(&format!(
        r#"{{ "version": 1, "seed": 5, "model": "qwen3-32b", "gpu": "h100-sxm", "num_gpus": 2,
              "dtype": "bf16", "gpu_memory_utilization": 0.9,
              "classes": [{{ "name": "bench", "arrival": {{ "kind": "closed_loop", "users": {users},
                "think_time_ms": 0 }}, "num_requests": {n},
                "input_tokens": {{ "kind": "fixed", "value": 1024 }},
                "output_tokens": {{ "kind": "fixed", "value": 512 }} }}] }}"#,
        n = users * 8
    ))
}

fn prefill_us(sim: &Simulation, prompts: u64) -> u64 {
    let mut w = BatchWork::default();
    for _ in 0..prompts {
        w.add_prefill_chunk(0, 1024, true);
    }
    sim.step_model().step_time(&w).micros()
}

#[test]
fn without_a_front_end_eight_users_stay_in_lockstep_every_turn() {
    let mut s = bench(8);
    s.engine = s.engine.gpu_only();
    let sim = Simulation::new(&s).unwrap();
    // every turn the eight prompts arrive together and prefill in one 8,192-token step
    let wave = prefill_us(&sim, 8) as f64 / 1000.0;
    let sum = common::run(&s);
    assert_eq!(sum.all.requests.completed, 64);
    assert_eq!(sum.all.ttft_ms.p50, wave);
    assert_eq!(sum.all.ttft_ms.max, wave);
    assert_eq!(sum.all.ttft_ms.mean, wave);
}

#[test]
fn through_the_front_end_the_first_wave_splits_by_hand() {
    // no variation, so the times can be worked out: each prompt takes the front-end process
    // 1 ms + 1,024 × 0.5 µs = 1.512 ms, one after another, then 2 ms to the engine. The first
    // reaches the idle engine at 3.512 ms and prefills alone; the other seven reach it during
    // that step (the last at 8 × 1.512 + 2 = 14.096 ms) and prefill together in the next one,
    // beside the first one's first decode. Its client sees a token 2 ms after it is emitted.
    let mut s = bench(8);
    s.classes[0].num_requests = Some(8);
    s.engine.frontend_jitter = 0.0;
    s.engine.step_jitter = 0.0;
    assert_eq!((s.engine.request_latency_ms, s.engine.frontend_cpu_ms), (2.0, 1.0));
    assert_eq!((s.engine.tokenize_us_per_token, s.engine.stream_latency_ms), (0.5, 2.0));
    let sim = Simulation::new(&s).unwrap();
    let alone = prefill_us(&sim, 1);
    let mut w = BatchWork::default();
    for _ in 0..7 {
        w.add_prefill_chunk(0, 1024, true);
    }
    w.decode_seqs = 1;
    w.decode_ctx_tokens = 1025;
    w.logit_tokens += 1;
    let seven = sim.step_model().step_time(&w).micros();
    let (_, records) = common::run_checked(&s, 1_000_000);
    let mut ttft: Vec<(u64, f64)> = records.iter().map(|r| (r.id, r.ttft_ms.unwrap())).collect();
    ttft.sort_by_key(|t| t.0);
    let first = (3512 + alone + 2000) as f64 / 1000.0;
    let others = (3512 + alone + seven + 2000) as f64 / 1000.0;
    assert_eq!(ttft[0].1, first);
    for &(id, t) in &ttft[1..] {
        assert_eq!(t, others, "request {id}");
    }
}

#[test]
fn with_the_front_end_ttft_has_a_distribution_below_the_whole_wave() {
    let s = bench(8);
    let sim = Simulation::new(&s).unwrap();
    let (alone, wave) = (prefill_us(&sim, 1) as f64 / 1000.0, prefill_us(&sim, 8) as f64 / 1000.0);
    let sum = common::run(&s);
    assert_eq!(sum.all.requests.completed, 64);
    let t = sum.all.ttft_ms;
    // a distribution, not one value: some prompts prefill alone, the rest together
    let (_, records) = common::run_checked(&s, 10_000_000);
    let fastest = records.iter().filter_map(|r| r.ttft_ms).fold(f64::INFINITY, f64::min);
    assert!(fastest < 1.5 * alone && t.max > 4.0 * alone, "fastest {fastest}, {t:?}");
    assert!(t.mean < wave, "mean {} against a wave of {wave} ms", t.mean);
}

#[test]
fn the_front_end_and_jitter_keep_a_run_a_function_of_its_seed() {
    let s = bench(8);
    assert_eq!(common::run(&s), common::run(&s));
    let mut other = s.clone();
    other.seed += 1;
    assert_ne!(common::run(&s).all.ttft_ms, common::run(&other).all.ttft_ms);
}
