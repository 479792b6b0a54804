//! The bottleneck a snapshot names (`Limit`): hand-made scenarios whose limit is known, and a
//! property over random runs that the limit named agrees with the state at every event.

mod common;
use proptest::prelude::*;
use sim_core::scenario::{Arrival, Batching, LengthDist};
use sim_core::sim::Limit;
use sim_core::{Phase, Scenario, Simulation};

const ONE: &str = r#"{ "name": "c", "arrival": { "kind": "trace", "path": "t.csv" }, "slo": { "ttft_ms": 1000 } }"#;

/// `n` requests of `input` prompt and `output` answer tokens, all arriving at `at_s`.
fn burst(n: usize, at_s: f64, input: u32, output: u32) -> String {
    let mut csv = String::from("arrival_s,input_len,output_len\n");
    for _ in 0..n {
        csv.push_str(&format!("{at_s},{input},{output}\n"));
    }
    csv
}

/// Advances event by event until the limit is one `want` accepts (within `events` events).
fn until(sim: &mut Simulation, events: u64, want: impl Fn(&Limit) -> bool) -> Limit {
    let mut seen = Vec::new();
    for _ in 0..events {
        let l = sim.limit();
        if want(&l) {
            return l;
        }
        if seen.last() != Some(&l) {
            seen.push(l);
        }
        if sim.is_finished() {
            break;
        }
        sim.advance_events(1);
    }
    panic!("the limit wanted never came; seen: {seen:?}")
}

#[test]
fn ten_queued_behind_two_slots_are_limited_by_max_batch_not_memory() {
    let mut s = common::llama8b("", ONE);
    s.scheduler.max_num_seqs = 2;
    let mut sim = common::with_trace(&s, &burst(10, 0.0, 100, 200));
    let l = until(&mut sim, 50, |l| matches!(l, Limit::MaxBatch { .. }));
    let Limit::MaxBatch { max_num_seqs, kv_free_bytes } = l else { unreachable!() };
    assert_eq!(max_num_seqs, 2);
    assert!(kv_free_bytes > 10e9, "the KV pool is almost empty: {kv_free_bytes}");
    let snap = sim.snapshot();
    assert_eq!((snap.running, snap.queued.iter().sum::<u64>()), (2, 8));
    assert_eq!(snap.limit, l, "the snapshot names the same limit");
}

#[test]
fn a_tiny_kv_pool_is_limited_by_kv_memory() {
    let mut s = common::llama8b("", ONE);
    // about 10,800 tokens of KV after the weights: four 2,000-token prompts and their answers
    s.gpu_memory_utilization = 0.22;
    let mut sim = common::with_trace(&s, &burst(10, 0.0, 2000, 500));
    let l = until(&mut sim, 200, |l| matches!(l, Limit::KvMemory { .. }));
    let Limit::KvMemory { need_bytes, free_bytes, .. } = l else { unreachable!() };
    assert!(need_bytes > free_bytes, "{l:?}");
    assert!(sim.snapshot().running < 10);
    // decoding grows the sequences until some are sent back to recompute
    until(&mut sim, 100_000, |l| matches!(l, Limit::KvMemory { preempting: true, .. }));
}

#[test]
fn before_the_first_arrival_and_after_the_last_the_gpu_is_idle() {
    let s = common::llama8b("", ONE);
    let mut sim = common::with_trace(&s, &burst(1, 1.0, 100, 10));
    assert_eq!(sim.limit(), Limit::Idle);
    sim.run_to_end();
    assert_eq!(sim.limit(), Limit::Idle);
}

#[test]
fn long_prompts_spend_the_token_budget() {
    let s = common::llama8b("", ONE);
    let mut sim = common::with_trace(&s, &burst(10, 0.0, 2000, 50));
    let l = until(&mut sim, 20, |l| matches!(l, Limit::TokenBudget { .. }));
    assert_eq!(l, Limit::TokenBudget { budget: 2048 });
}

#[test]
fn with_nothing_waiting_the_step_sets_the_pace() {
    let mut s = common::llama8b("", ONE);
    s.scheduler.max_num_batched_tokens = 8192;
    let mut sim = common::with_trace(&s, &burst(1, 0.0, 8000, 100));
    let l = until(&mut sim, 10, |l| matches!(l, Limit::PrefillCompute { .. }));
    assert_eq!(l, Limit::PrefillCompute { prefill_tokens: 8000 });
    let l = until(&mut sim, 10, |l| matches!(l, Limit::DecodeSpeed { .. }));
    let Limit::DecodeSpeed { decode_seqs, step_ms } = l else { unreachable!() };
    assert_eq!(decode_seqs, 1);
    assert!(step_ms > 1.0, "a decode step reads 16 GB of weights: {step_ms} ms");
}

#[test]
fn static_batching_waits_to_fill_the_batch_then_runs_it_out() {
    let mut s = common::llama8b(r#", "batch_timeout_ms": 500"#, ONE);
    s.scheduler.batching = Batching::Static;
    s.scheduler.chunked_prefill = false;
    s.scheduler.max_num_seqs = 8;
    let mut sim = common::with_trace(&s, &burst(3, 0.0, 100, 20));
    assert_eq!(
        until(&mut sim, 10, |l| matches!(l, Limit::FillingBatch { .. })),
        Limit::FillingBatch { waiting: 1, batch: 8 }
    );
    until(&mut sim, 10, |l| *l == Limit::FillingBatch { waiting: 3, batch: 8 });
    let l = until(&mut sim, 50, |l| matches!(l, Limit::StaticBatch { .. }));
    assert_eq!(l, Limit::StaticBatch { running: 3, waiting: 0 });
}

/// The limit named agrees with the state: a cap only while requests wait behind it, "max
/// batch" only with every slot taken, "KV memory" only when the next prompt needs more than
/// is free, "idle" only with nothing in the replica.
fn check_limit(sim: &Simulation, s: &Scenario) -> Result<(), TestCaseError> {
    let live = sim.live_requests();
    let waiting = live.iter().filter(|r| r.phase == Phase::Queued).count() as u64;
    let running = live.len() as u64 - waiting;
    let sc = &s.scheduler;
    let continuous = sc.batching == Batching::Continuous;
    let l = sim.limit();
    match l {
        Limit::Idle => prop_assert!(waiting == 0 && running == 0),
        Limit::Restarting { until_s } => prop_assert!(until_s * 1e6 >= sim.now() as f64),
        Limit::MaxBatch { max_num_seqs, kv_free_bytes } => {
            prop_assert!(continuous && waiting > 0 && running == sc.max_num_seqs as u64);
            prop_assert_eq!(max_num_seqs, sc.max_num_seqs as u64);
            prop_assert!(kv_free_bytes >= 0.0);
        }
        Limit::KvMemory { need_bytes, free_bytes, .. } => {
            prop_assert!(continuous && waiting > 0 && need_bytes > free_bytes, "{:?}", l)
        }
        Limit::Reserved { waiting: w } => prop_assert!(continuous && sc.isolation && w == waiting && w > 0),
        Limit::TokenBudget { budget } => {
            prop_assert!(continuous && waiting > 0 && budget == sc.max_num_batched_tokens as u64)
        }
        Limit::FillingBatch { waiting: w, batch } => {
            prop_assert!(!continuous && w == waiting && w > 0 && running == 0 && batch == sc.max_num_seqs as u64)
        }
        Limit::StaticBatch { running: r, waiting: w } => {
            prop_assert!(!continuous && r == running && r > 0 && w == waiting)
        }
        Limit::PrefillCompute { prefill_tokens } => prop_assert!(continuous && running > 0 && prefill_tokens > 0),
        Limit::DecodeSpeed { .. } => prop_assert!(continuous && running > 0),
    }
    Ok(())
}

prop_compose! {
    fn scenario()(
        seed in any::<u64>(),
        util in 0.22f64..0.3,
        continuous in prop::bool::weighted(0.8),
        chunked in any::<bool>(),
        max_num_seqs in 1u32..24,
        budget in 256u32..4096,
        timeout in proptest::option::of(100.0f64..3000.0),
        isolation in prop::bool::weighted(0.3),
        overcommit in prop::bool::weighted(0.15),
        rate in 2.0f64..60.0,
        input in 50u32..3000,
        output in 10u32..800,
    ) -> Scenario {
        let len = r#""input_tokens": { "kind": "fixed", "value": 1 }, "output_tokens": { "kind": "fixed", "value": 1 }"#;
        let mut s = common::llama8b("", &format!(
            r#"{{ "name": "a", "arrival": {{ "kind": "poisson", "rate_per_s": 1 }}, "num_requests": 16, {len} }},
            {{ "name": "b", "arrival": {{ "kind": "poisson", "rate_per_s": 1 }}, "num_requests": 8, "priority": 1, {len} }}"#));
        s.seed = seed;
        s.gpu_memory_utilization = util;
        let sc = &mut s.scheduler;
        sc.batching = if continuous { Batching::Continuous } else { Batching::Static };
        sc.chunked_prefill = chunked && continuous;
        sc.max_num_seqs = max_num_seqs;
        sc.max_model_len = 4000;
        sc.max_num_batched_tokens = if sc.chunked_prefill { budget.max(max_num_seqs) } else { 4000 };
        sc.queue_timeout_ms = timeout;
        sc.isolation = isolation;
        sc.overcommit = overcommit;
        sc.retry_on_oom = true;
        sc.restart_s = 0.5;
        sc.batch_timeout_ms = 200.0;
        for c in &mut s.classes {
            c.arrival = Arrival::Poisson { rate_per_s: rate };
            c.input_tokens = Some(LengthDist::Uniform { min: input / 2, max: input });
            c.output_tokens = Some(LengthDist::Uniform { min: output / 2, max: output });
        }
        s
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Checked between instants, as the page reads it (after `advance_to`): within an instant,
    /// after one of its events and before the scheduler has decided, the last plan is stale.
    #[test]
    fn the_limit_named_agrees_with_the_state_at_every_event(s in scenario()) {
        let Ok(mut sim) = Simulation::new(&s) else { return Ok(()) };
        let mut events = 0u64;
        while !sim.is_finished() {
            if sim.next_event_time() != Some(sim.now()) {
                check_limit(&sim, &s)?;
            }
            sim.advance_events(1);
            events += 1;
            prop_assert!(events < 1_000_000, "no termination");
        }
        check_limit(&sim, &s)?;
    }
}

/// The property is not vacuous: the random runs meet every limit but the rare OOM restart.
#[test]
fn the_random_runs_meet_every_kind_of_limit() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut kinds = std::collections::BTreeSet::new();
    for _ in 0..32 {
        let s = scenario().new_tree(&mut runner).unwrap().current();
        let Ok(mut sim) = Simulation::new(&s) else { continue };
        while !sim.is_finished() {
            kinds.insert(format!("{:?}", sim.limit()).split([' ', '{']).next().unwrap_or_default().to_string());
            sim.advance_events(1);
        }
    }
    let want = [
        "Idle",
        "Reserved",
        "FillingBatch",
        "StaticBatch",
        "MaxBatch",
        "KvMemory",
        "TokenBudget",
        "PrefillCompute",
        "DecodeSpeed",
    ];
    for k in want {
        assert!(kinds.contains(k), "{k} never seen; seen {kinds:?}");
    }
}
