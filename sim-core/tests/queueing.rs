//! Queueing theory: one sequence at a time with fixed lengths is an M/D/1 queue.

mod common;
use sim_core::perf::BatchWork;
use sim_core::Simulation;

/// Service time of one request (prefill + output − 1 decode steps), as the step model gives it.
fn service_us(sim: &Simulation, input: u64, output: u64) -> u64 {
    let sm = sim.step_model();
    let mut w = BatchWork::default();
    w.add_prefill_chunk(0, input, true);
    let mut t = sm.step_time(&w).micros();
    for j in 1..output {
        let d = BatchWork { decode_seqs: 1, decode_ctx_tokens: input + j, logit_tokens: 1, ..Default::default() };
        t += sm.step_time(&d).micros();
    }
    t
}

fn md1_case(rho: f64, n: u64) -> (f64, f64) {
    let probe = common::llama8b(
        "",
        r#"{ "name": "c", "arrival": { "kind": "poisson", "rate_per_s": 1.0 }, "num_requests": 1,
             "input_tokens": { "kind": "fixed", "value": 512 }, "output_tokens": { "kind": "fixed", "value": 8 } }"#,
    );
    let s_us = service_us(&Simulation::new(&probe).unwrap(), 512, 8) as f64;
    let rate = rho / (s_us / 1e6);
    let mut sc = probe.clone();
    sc.scheduler.max_num_seqs = 1;
    sc.classes[0].num_requests = Some(n);
    sc.classes[0].arrival = sim_core::scenario::Arrival::Poisson { rate_per_s: rate };
    let sum = common::run(&sc);
    // Pollaczek–Khinchine for deterministic service: Wq = ρ S / (2 (1 − ρ))
    let expect_ms = rho * s_us / (2.0 * (1.0 - rho)) / 1000.0;
    // every request is served exactly S after it starts
    assert!((sum.all.e2e_ms.mean - sum.all.queue_ms.mean - s_us / 1000.0).abs() < 1e-6);
    (sum.all.queue_ms.mean, expect_ms)
}

#[test]
fn md1_mean_queue_time_matches_pollaczek_khinchine_at_70_percent_load() {
    let (got, want) = md1_case(0.7, 200_000);
    let err = got / want - 1.0;
    assert!(err.abs() < 0.03, "mean wait {got:.2} ms vs P-K {want:.2} ms ({:+.1}%)", err * 100.0);
}

#[test]
fn md1_mean_queue_time_matches_at_50_percent_load() {
    let (got, want) = md1_case(0.5, 200_000);
    let err = got / want - 1.0;
    assert!(err.abs() < 0.03, "mean wait {got:.2} ms vs P-K {want:.2} ms ({:+.1}%)", err * 100.0);
}
