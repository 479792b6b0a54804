//! Speculative decoding: tokens per step against the formula, conservation and KV bounds at
//! every event, the known shape (large gain alone, shrinking with the batch, a loss once decode
//! is compute-bound), and a hand-worked single request.

mod common;
use proptest::prelude::*;
use sim_core::catalog::{find_gpu, find_model};
use sim_core::perf::{BatchWork, StepModel};
use sim_core::scenario::{Batching, GpuRef, ModelRef};
use sim_core::speculative::{expected_tokens, SpeculativeConfig};
use sim_core::{Scenario, Simulation, Summary};
use std::cell::RefCell;
use std::rc::Rc;

fn spec(k: u32, a: f64, draft: Option<&str>) -> Option<SpeculativeConfig> {
    Some(SpeculativeConfig { draft_tokens: k, acceptance_rate: a, draft_model: draft.map(str::to_string) })
}

/// `users` closed-loop users without think time on Llama-3-8B / H100, fixed 512-token prompts
/// and `output`-token answers, `requests` in all.
fn closed(users: u32, requests: u32, output: u32, sp: Option<SpeculativeConfig>, seed: u64) -> Scenario {
    let class = format!(
        r#"{{ "name": "u", "arrival": {{ "kind": "closed_loop", "users": {users}, "think_time_ms": 0 }},
          "num_requests": {requests}, "input_tokens": {{ "kind": "fixed", "value": 512 }},
          "output_tokens": {{ "kind": "fixed", "value": {output} }} }}"#
    );
    let mut s = common::llama8b("", &class);
    (s.scheduler.max_num_seqs, s.scheduler.max_num_batched_tokens) = (512, 8192);
    s.seed = seed;
    s.speculative = sp;
    s
}

/// The mean and variance of the tokens one step emits: `j + 1` with `P(j) = a^j (1 − a)` for
/// `j < k`, `a^k` for `j = k`.
fn moments(k: u32, a: f64) -> (f64, f64) {
    let p = |j: u32| if j < k { a.powi(j as i32) * (1.0 - a) } else { a.powi(k as i32) };
    let m1: f64 = (0..=k).map(|j| p(j) * (j + 1) as f64).sum();
    let m2: f64 = (0..=k).map(|j| p(j) * ((j + 1) as f64).powi(2)).sum();
    (m1, m2 - m1 * m1)
}

#[test]
fn tokens_per_step_match_the_formula() {
    for (k, a) in [(1, 0.5), (2, 0.9), (4, 0.8), (8, 0.6), (16, 0.95), (3, 0.0)] {
        let (mean, var) = moments(k, a);
        assert!((mean - expected_tokens(k, a)).abs() < 1e-12, "the formula is the distribution's mean");
        // one user: every decode step carries one sequence; 300 answers of 2,000 tokens
        let s = closed(1, 300, 2000, spec(k, a, None), 5);
        let sum = common::run(&s);
        let got = sum.speculative.expect("speculation reports").mean_accepted_tokens_per_step;
        // at least this many steps ran (each emits at most k + 1 tokens)
        let steps = 300.0 * 1999.0 / (k as f64 + 1.0);
        let tol = 5.0 * (var / steps).sqrt() + 1e-12;
        assert!((got - mean).abs() <= tol, "k {k}, a {a}: {got} vs {mean} ± {tol}");
        eprintln!("k {k} a {a}: measured {got:.4}, formula {mean:.4}, tolerance ±{tol:.4}");
    }
}

#[test]
fn off_is_absent_from_the_summary_and_the_file() {
    let s = closed(1, 4, 64, None, 1);
    let sum = common::run(&s);
    assert!(sum.speculative.is_none());
    let json = serde_json::to_string(&sum).unwrap();
    assert!(!json.contains("speculative"));
    assert!(!s.to_json_pretty().contains("speculative"));
    let on = closed(1, 4, 64, spec(4, 0.8, None), 1);
    let back = Scenario::from_json(&on.to_json_pretty()).unwrap();
    assert_eq!(back, on);
}

#[test]
fn bad_settings_are_named() {
    let cases: [(Option<SpeculativeConfig>, &str); 5] = [
        (spec(0, 0.5, None), "speculative.draft_tokens"),
        (spec(17, 0.5, None), "speculative.draft_tokens"),
        (spec(4, 1.0, None), "speculative.acceptance_rate"),
        (spec(4, -0.1, None), "speculative.acceptance_rate"),
        (spec(4, 0.5, Some("gpt-5")), "speculative.draft_model"),
    ];
    for (sp, field) in cases {
        let e = closed(1, 4, 64, sp, 1).validate().unwrap_err();
        let f = e.for_field(field).unwrap_or_else(|| panic!("{field}: {e}"));
        assert!(!f.message.is_empty());
    }
    let e = closed(1, 4, 64, spec(4, 0.5, Some("gpt-5")), 1).validate().unwrap_err();
    assert!(e.to_string().contains("llama-3-8b"), "lists the catalogue's ids: {e}");
    let mut s = closed(1, 4, 64, spec(4, 0.5, None), 1);
    s.scheduler.batching = Batching::Static;
    let e = s.validate().unwrap_err();
    assert!(e.for_field("speculative").is_some_and(|f| f.message.contains("continuous")), "{e}");
    let mut s = closed(1, 4, 64, spec(4, 0.5, None), 1);
    s.model = ModelRef::Id("mistral-7b".into());
    assert!(s.validate().unwrap_err().for_field("speculative").is_some());
    // the edges are accepted
    for sp in [spec(1, 0.0, None), spec(16, 0.99, Some("llama-3.1-8b"))] {
        closed(1, 4, 64, sp, 1).validate().unwrap();
    }
}

prop_compose! {
    fn speculative_scenario()(
        seed in any::<u64>(),
        k in 1u32..=16,
        a in 0.0f64..0.99,
        // gpt-oss-20b: a draft with sliding-window layers (window 128), so the pool's window is
        // the draft's and speculative steps cross it
        draft in prop::sample::select(vec![None, Some("llama-3.1-8b"), Some("gpt-oss-20b")]),
        model in prop::sample::select(vec!["llama-3-8b", "qwen2.5-7b", "mixtral-8x7b", "llama-2-13b"]),
        gpu in prop::sample::select(vec!["h100-sxm", "a100-40gb", "l40s", "rtx-4090"]),
        util in 0.6f64..0.98,
        chunked in any::<bool>(),
        paged in any::<bool>(),
        overcommit in any::<bool>(),
        max_num_seqs in 1u32..300,
        block in prop::sample::select(vec![1u32, 4, 16, 32]),
        users in 1u32..200,
        requests in 1u32..150,
        input in 1u32..2500,
        output in 1u32..1500,
        lognormal in any::<bool>(),
        tight in any::<bool>(),
    ) -> Scenario {
        let (inp, out) = if lognormal {
            (format!(r#"{{ "kind": "lognormal", "mean": {input}, "sigma": 0.8 }}"#),
             format!(r#"{{ "kind": "lognormal", "mean": {output}, "sigma": 0.8 }}"#))
        } else {
            (format!(r#"{{ "kind": "fixed", "value": {input} }}"#), format!(r#"{{ "kind": "uniform", "min": 1, "max": {output} }}"#))
        };
        let class = format!(
            r#"{{ "name": "c", "arrival": {{ "kind": "closed_loop", "users": {users}, "think_time_ms": 50 }},
              "num_requests": {requests}, "input_tokens": {inp}, "output_tokens": {out} }}"#
        );
        let mut s = common::llama8b("", &class);
        s.seed = seed;
        s.model = ModelRef::Id(model.into());
        s.gpu = GpuRef::Id(gpu.into());
        s.gpu_memory_utilization = util;
        let sc = &mut s.scheduler;
        sc.chunked_prefill = chunked;
        sc.kv_layout = if paged { sim_core::scenario::KvLayout::Paged } else { sim_core::scenario::KvLayout::Contiguous };
        sc.overcommit = overcommit;
        sc.retry_on_oom = true;
        sc.restart_s = 1.0;
        sc.max_num_seqs = max_num_seqs;
        sc.block_size = block;
        sc.max_model_len = 4096;
        sc.max_num_batched_tokens = if chunked { 2048 } else { 4096 };
        s.speculative = spec(k, a, draft);
        if tight {
            // a small KV pool (13B weights on a 40 GB GPU) and many users: preemptions, and
            // with over-commit OOM restarts
            (s.model, s.gpu) = (ModelRef::Id("llama-2-13b".into()), GpuRef::Id("a100-40gb".into()));
            s.gpu_memory_utilization = 0.93;
            s.classes[0].arrival = sim_core::scenario::Arrival::ClosedLoop { users: users.max(40), think_time_ms: 50.0 };
        }
        s
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// At every event the replica's invariants hold (requests conserved, KV accounted and
    /// within capacity) and no live request has generated more than its output; at the end the
    /// output tokens counted are the completed requests' outputs.
    #[test]
    fn conservation_and_kv_bounds_at_every_event(s in speculative_scenario()) {
        let mut sim = match Simulation::new(&s) {
            Ok(sim) => sim,
            Err(e) => { prop_assert!(!e.to_string().is_empty()); return Ok(()); }
        };
        let done = Rc::new(RefCell::new((0u64, 0u64)));
        let d = done.clone();
        sim.set_request_sink(Box::new(move |r| {
            if r.outcome == sim_core::metrics::Outcome::Completed {
                let mut d = d.borrow_mut();
                d.0 += 1;
                d.1 += r.output_tokens as u64;
            }
        }));
        let bound = 100 + sim.total_requests() * (4 * 4096 + 20);
        let mut events = 0u64;
        while !sim.is_finished() {
            sim.advance_events(1);
            events += 1;
            if let Err(e) = sim.check_invariants() {
                prop_assert!(false, "after event {events}: {e}");
            }
            for r in sim.live_requests() {
                prop_assert!(r.generated <= r.output_tokens, "request {} over-emits: {} > {}", r.id, r.generated, r.output_tokens);
            }
            prop_assert!(events <= bound, "no termination after {events} events");
        }
        let sum = sim.summary();
        let (completed, tokens) = *done.borrow();
        prop_assert_eq!(sum.all.requests.completed, completed);
        let counted = sum.all.throughput.output_tokens_per_s * sum.duration_s;
        prop_assert!((counted - tokens as f64).abs() <= 1e-6 * (tokens as f64).max(1.0), "{} counted vs {} delivered", counted, tokens);
        let sp = sum.speculative.expect("speculation reports");
        prop_assert_eq!(sp.draft_tokens, s.speculative.as_ref().unwrap().draft_tokens);
        prop_assert!(sp.mean_accepted_tokens_per_step == 0.0 || (1.0..=sp.draft_tokens as f64 + 1.0).contains(&sp.mean_accepted_tokens_per_step));
    }
}

fn tpot(s: &Summary) -> f64 {
    s.all.tpot_ms.mean
}

/// Mean TPOT with and without speculation at `users` concurrent sequences.
fn tpots(users: u32, sp: Option<SpeculativeConfig>, seed: u64) -> (f64, f64) {
    let requests = (users * 3).max(12);
    let off = common::run(&closed(users, requests, 256, None, seed));
    let on = common::run(&closed(users, requests, 256, sp, seed));
    (tpot(&off), tpot(&on))
}

#[test]
fn faster_alone_less_so_in_a_crowd_slower_when_compute_bound() {
    for seed in [1, 2, 3] {
        // an EAGLE-style head, k = 4, a = 0.8, on Llama-3-8B / H100
        let gain = |users| {
            let (off, on) = tpots(users, spec(4, 0.8, None), seed);
            off / on
        };
        let (g1, g64, g256) = (gain(1), gain(64), gain(256));
        eprintln!("seed {seed}: TPOT gain ×{g1:.2} at 1, ×{g64:.2} at 64, ×{g256:.2} at 256");
        assert!(g1 > 2.5, "a large gain alone: ×{g1}");
        assert!(g1 > g64 && g64 > g256, "the gain shrinks with the batch: {g1} {g64} {g256}");
        // eight drafts accepted at 0.6: a gain alone, a loss at 256 sequences (compute-bound)
        let (off1, on1) = tpots(1, spec(8, 0.6, None), seed);
        let (off256, on256) = tpots(256, spec(8, 0.6, None), seed);
        assert!(on1 < off1, "faster alone: {on1} vs {off1}");
        assert!(on256 > off256, "slower in a crowd: {on256} vs {off256}");
    }
}

/// One request alone with `a = 0`: every step emits one token and costs a verifying pass of
/// k + 1 positions (and, with a draft model, its k passes without the iteration overhead).
#[test]
fn a_request_alone_costs_its_verifying_passes_by_hand() {
    for draft in [None, Some("llama-3.1-8b")] {
        let k = 4u64;
        let mut s = common::llama8b("", common_trace_class());
        s.speculative = spec(k as u32, 0.0, draft);
        let mut sim = common::with_trace(&s, "arrival_s,input_len,output_len\n0,1000,50\n");
        let gpu = find_gpu("h100-sxm").unwrap();
        let draft_model = draft.map(|id| {
            let m = find_model(id).unwrap();
            let kv = sim_core::memory::kv_traffic(&m, 2.0);
            StepModel::new(&m, &gpu, 1, sim_core::Dtype::Bf16, kv, &s.engine)
        });
        // decode step j (from 1) verifies positions 1000 + j ..= 1000 + j + k of a context of
        // 1000 + j tokens
        let step = |j: u64| {
            let ctx = 1000 + j;
            let w = BatchWork {
                decode_seqs: 1,
                decode_ctx_tokens: ctx,
                decode_draft_tokens: k,
                decode_draft_pairs: (k * ctx + k * (k + 1) / 2) as f64,
                logit_tokens: 1 + k,
                ..Default::default()
            };
            let mut t = sim.step_model().step_time(&w).total;
            if let Some(d) = &draft_model {
                for i in 0..k {
                    let dw =
                        BatchWork { decode_seqs: 1, decode_ctx_tokens: ctx + i, logit_tokens: 1, ..Default::default() };
                    let dt = d.step_time(&dw);
                    t += dt.total - dt.overhead;
                }
            }
            ((t * 1e6).round() as u64).max(1)
        };
        let decode: u64 = (1..50).map(step).sum();
        let sum = sim.run_to_end();
        assert_eq!(sum.all.requests.completed, 1);
        let ttft_us = (sum.all.ttft_ms.max * 1000.0).round() as u64;
        assert_eq!(sum.all.e2e_ms.max, (ttft_us + decode) as f64 / 1000.0, "draft {draft:?}");
        assert_eq!(sum.all.tpot_ms.max, (decode / 49) as f64 / 1000.0);
        assert_eq!(sum.speculative.unwrap().mean_accepted_tokens_per_step, 1.0);
    }
}

fn common_trace_class() -> &'static str {
    r#"{ "name": "t", "arrival": { "kind": "trace", "path": "t.csv" } }"#
}

/// The last step as the stage shows it: each decode step's `k` drafts and the accepted ones,
/// which together with the step's own token are exactly what the summary averages; a prompt's
/// step drafts nothing; without speculation nothing is drafted.
#[test]
fn each_step_reports_its_drafts_and_the_accepted_ones() {
    let steps_of = |sp: Option<SpeculativeConfig>| {
        let mut s = common::llama8b("", common_trace_class());
        s.speculative = sp;
        let mut sim = common::with_trace(&s, "arrival_s,input_len,output_len\n0,1000,200\n");
        sim.advance_to(0);
        let mut steps = Vec::new();
        loop {
            let step = sim.snapshot().last_step;
            if steps.last().is_none_or(|l: &sim_core::sim::StepInfo| l.start_s != step.start_s) {
                steps.push(step);
            }
            if sim.is_finished() {
                break;
            }
            sim.advance_one_iteration();
        }
        (steps, sim.summary())
    };
    let (steps, sum) = steps_of(spec(4, 0.7, None));
    // the prompt's step, then decode steps
    assert_eq!((steps[0].prefill_tokens, steps[0].decode_seqs, steps[0].draft_tokens), (1000, 0, 0));
    let decode = &steps[1..];
    assert!(decode.iter().all(|s| s.decode_seqs == 1 && s.draft_tokens == 4 && s.accepted_draft_tokens <= 4));
    let emitted: u32 = decode.iter().map(|s| s.accepted_draft_tokens + 1).sum();
    let mean = sum.speculative.unwrap().mean_accepted_tokens_per_step;
    assert_eq!(mean, emitted as f64 / decode.len() as f64, "the summary averages these steps");
    // 199 tokens after the first: the steps before the last emitted fewer, the last finished it
    let last = decode.last().unwrap().accepted_draft_tokens + 1;
    assert!(emitted >= 199 && emitted - last < 199, "{emitted} tokens in {} steps", decode.len());
    assert!(decode.iter().any(|s| s.accepted_draft_tokens < 4) && decode.iter().any(|s| s.accepted_draft_tokens > 0));
    let (plain, _) = steps_of(None);
    assert!(plain.iter().all(|s| s.draft_tokens == 0 && s.accepted_draft_tokens == 0));
    assert_eq!(plain.len(), 200, "one prompt step and 199 decode steps");
}

/// A draft with sliding-window layers (gpt-oss-20b: half its layers attend over 128 tokens)
/// beside Llama-3-8B: the pool's window is the draft's, every request ends (the KV bounds and
/// conservation checked as the run goes) and the run is deterministic.
#[test]
fn a_windowed_draft_runs_to_the_end() {
    let mut s = closed(32, 200, 300, spec(3, 0.7, Some("gpt-oss-20b")), 5);
    s.classes[0].input_tokens = Some(sim_core::scenario::LengthDist::Fixed { value: 2000 });
    let mut sim = Simulation::new(&s).unwrap();
    let g = sim.hbm_plan().pool_growth;
    assert_eq!((g.window, g.window_groups > 0), (128, true));
    let sum = sim.run_to_end();
    let r = sum.all.requests;
    assert_eq!((r.arrived, r.completed), (200, 200));
    assert_eq!(Simulation::new(&s).unwrap().run_to_end(), sum);
}
