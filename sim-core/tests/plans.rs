//! Properties of the continuous-batching scheduler's plans, over random scenarios with small KV
//! pools (so that preemption happens): a plan stays within the token budget and max_num_seqs,
//! schedules a request at most once, never preempts the oldest running sequence, and applying
//! it keeps the KV it admits within the pool.

mod common;
use proptest::prelude::*;
use sim_core::scenario::{Arrival, ClassConfig, KvLayout, LengthDist, Slo};
use sim_core::sim::{AdmitStop, BatchWait, IterationPlan, PlanContext};
use sim_core::{Scenario, Simulation};
use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

/// Runs a scenario to the end, checking every plan as it is made and the replica after every
/// event. Returns the plans seen.
fn check_run(s: &Scenario) -> Result<Vec<(IterationPlan, PlanContext)>, TestCaseError> {
    // With isolation the victim is the newest sequence of the lowest-priority class running,
    // which may be the oldest of all (see `isolation_preempts_a_lower_priority_class_first`).
    let one_priority = s.classes.iter().all(|c| c.priority == s.classes[0].priority);
    let oldest_safe = !s.scheduler.isolation || one_priority;
    let Ok(mut sim) = Simulation::new(s) else { return Ok(Vec::new()) };
    let seen = Rc::new(RefCell::new(Vec::new()));
    let sink = seen.clone();
    sim.set_plan_observer(Box::new(move |p: &IterationPlan, c: &PlanContext| sink.borrow_mut().push((p.clone(), *c))));
    let sc = &s.scheduler;
    let (budget, max_seqs) = (sc.max_num_batched_tokens as u64, sc.max_num_seqs as u64);
    let mut checked = 0;
    let mut events = 0u64;
    // batch waiting holds prompts back for at most `batch_wait_iters` plans in a row
    let mut held_in_a_row = 0u32;
    while !sim.is_finished() {
        sim.advance_events(1);
        events += 1;
        prop_assert!(events < 2_000_000, "no termination");
        for (p, c) in &seen.borrow()[checked..] {
            check_plan(p, c, budget, max_seqs, sc.chunked_prefill, oldest_safe)?;
            match p.batch_wait {
                BatchWait::Held => {
                    prop_assert!(sc.batch_waits(), "held with batch waiting off");
                    held_in_a_row += 1;
                    prop_assert!(held_in_a_row <= sc.batch_wait_iters, "held {} plans in a row", held_in_a_row);
                }
                BatchWait::Released => held_in_a_row = 0,
                BatchWait::NotAsked => {}
            }
        }
        checked = seen.borrow().len();
        // applying the plan kept the KV it admitted within the pool (unless over-committing)
        // and the accounting exact
        sim.check_invariants().map_err(TestCaseError::fail)?;
    }
    let plans = seen.borrow().clone();
    Ok(plans)
}

fn check_plan(
    p: &IterationPlan,
    c: &PlanContext,
    budget: u64,
    max_seqs: u64,
    chunked: bool,
    oldest_safe: bool,
) -> Result<(), TestCaseError> {
    let prefill: u64 = p.chunks.iter().map(|c| c.tokens as u64).sum();
    prop_assert_eq!(p.tokens(), p.decode_seqs + prefill);
    prop_assert!(
        prefill <= budget.saturating_sub(p.decode_seqs),
        "prefill {} over the budget left by {} decodes",
        prefill,
        p.decode_seqs
    );
    prop_assert!(p.decode_seqs <= max_seqs);
    let admitted = p.admitted().count() as u64;
    let preempted = p.preempted.len() as u64;
    prop_assert!(preempted <= c.running);
    prop_assert!(c.running - preempted + admitted <= max_seqs, "{:?}", p);
    // never the oldest running sequence
    if let Some(oldest) = c.oldest_running.filter(|_| oldest_safe) {
        prop_assert!(p.preempted.iter().all(|v| v.id != oldest), "preempted the oldest running {}", oldest);
    }
    // a request is scheduled at most once, preempted at most once
    let ids: HashSet<u64> = p.chunks.iter().map(|c| c.id).collect();
    prop_assert_eq!(ids.len(), p.chunks.len(), "a request scheduled twice");
    let victims: HashSet<u64> = p.preempted.iter().map(|v| v.id).collect();
    prop_assert_eq!(victims.len(), p.preempted.len());
    for ch in &p.chunks {
        prop_assert!(ch.tokens > 0 && ch.done + ch.tokens <= ch.target, "{:?}", ch);
        // a sequence preempted by this plan can only come back as a fresh admission
        if victims.contains(&ch.id) {
            prop_assert!(ch.admitted && ch.done == 0);
        }
        if ch.admitted {
            prop_assert_eq!(ch.done, 0);
        }
    }
    // continuing prompts come before admissions
    prop_assert!(p.chunks.windows(2).all(|w| !w[0].admitted || w[1].admitted));
    // without chunked prefill an iteration either decodes or prefills
    if !chunked && p.decode_seqs > 0 {
        prop_assert!(p.chunks.is_empty());
    }
    if p.retry {
        prop_assert!(p.is_idle() && preempted > 0);
    }
    // why admission stopped agrees with the plan
    match p.stop {
        AdmitStop::MaxSeqs { max_num_seqs } => {
            prop_assert!(max_num_seqs == max_seqs && c.running - preempted + admitted == max_seqs, "{:?}", p)
        }
        AdmitStop::KvMemory { need_units, free_units } => prop_assert!(need_units > free_units, "{:?}", p.stop),
        AdmitStop::TokenBudget { budget: b } => {
            prop_assert_eq!(b, budget);
            if chunked {
                prop_assert!(p.tokens() >= budget, "budget {} not spent: {:?}", budget, p);
            }
        }
        AdmitStop::QueueEmpty | AdmitStop::Reserved => {}
        // held back: the decodes run alone
        AdmitStop::BatchWait => {
            prop_assert!(p.batch_wait == BatchWait::Held && p.chunks.is_empty() && p.decode_seqs > 0, "{:?}", p)
        }
    }
    if p.batch_wait == BatchWait::Held {
        prop_assert_eq!(p.stop, AdmitStop::BatchWait);
    }
    Ok(())
}

fn length(max: u32) -> impl Strategy<Value = LengthDist> {
    prop_oneof![
        (1u32..max).prop_map(|value| LengthDist::Fixed { value }),
        (1u32..max / 2, 0u32..max / 2).prop_map(|(min, span)| LengthDist::Uniform { min, max: min + span }),
    ]
}

fn class(i: usize) -> impl Strategy<Value = ClassConfig> {
    (5.0f64..80.0, 8u64..40, length(3000), length(3000), 0u32..3, proptest::option::of(0.0f64..0.5)).prop_map(
        move |(rate_per_s, n, input, output, priority, reserved_share)| ClassConfig {
            name: format!("c{i}"),
            arrival: Arrival::Poisson { rate_per_s },
            num_requests: Some(n),
            input_tokens: Some(input),
            output_tokens: Some(output),
            slo: Slo::default(),
            priority,
            reserved_share,
            prefix: None,
            session: None,
            max_concurrency: None,
        },
    )
}

prop_compose! {
    fn scenario()(
        seed in any::<u64>(),
        // little KV left after the weights: preemption is common
        util in 0.24f64..0.32,
        chunked in any::<bool>(),
        // contiguous reserves max_model_len and over-commit restarts instead: both rarely preempt
        paged in prop::bool::weighted(0.8),
        max_num_seqs in 1u32..64,
        budget in 64u32..6000,
        block in prop::sample::select(vec![1u32, 16, 64]),
        timeout in proptest::option::of(200.0f64..5000.0),
        isolation in any::<bool>(),
        overcommit in prop::bool::weighted(0.2),
        retry in any::<bool>(),
        wait in proptest::option::of((1u32..30, 0.05f64..1.0)),
        classes in prop::collection::vec(class(0), 1..=3),
    ) -> Scenario {
        let mut s = common::llama8b("", r#"{ "name": "x", "arrival": { "kind": "poisson", "rate_per_s": 1 }, "num_requests": 1,
            "input_tokens": { "kind": "fixed", "value": 1 }, "output_tokens": { "kind": "fixed", "value": 1 } }"#);
        s.seed = seed;
        s.gpu_memory_utilization = util;
        let sc = &mut s.scheduler;
        sc.chunked_prefill = chunked;
        sc.kv_layout = if paged { KvLayout::Paged } else { KvLayout::Contiguous };
        sc.max_num_seqs = max_num_seqs;
        sc.max_model_len = 6000;
        sc.max_num_batched_tokens = budget.max(max_num_seqs).max(if chunked { 0 } else { 6000 });
        sc.block_size = block;
        sc.queue_timeout_ms = timeout;
        sc.isolation = isolation;
        sc.overcommit = overcommit;
        sc.retry_on_oom = retry;
        sc.restart_s = 1.0;
        if let Some((iters, ratio)) = wait {
            sc.batch_wait_iters = iters;
            sc.batch_wait_tokens_ratio = ratio;
        }
        s.classes = classes.into_iter().enumerate().map(|(i, mut c)| { c.name = format!("c{i}"); c }).collect();
        let share: f64 = s.classes.iter().filter_map(|c| c.reserved_share).sum();
        if share > 1.0 {
            s.classes.iter_mut().for_each(|c| c.reserved_share = None);
        }
        s
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_plan_keeps_the_scheduler_rules(s in scenario()) {
        check_run(&s)?;
    }
}

/// The generator is not vacuous: a tight pool under load preempts, and a preempted sequence
/// is planned again later.
#[test]
fn tight_pool_plans_preemptions() {
    let mut s = common::llama8b(
        "",
        r#"{ "name": "x", "arrival": { "kind": "poisson", "rate_per_s": 40 }, "num_requests": 200,
            "input_tokens": { "kind": "fixed", "value": 1500 }, "output_tokens": { "kind": "fixed", "value": 1500 } }"#,
    );
    s.gpu_memory_utilization = 0.3;
    s.scheduler.max_num_seqs = 32;
    let plans = check_run(&s).unwrap();
    assert!(!plans.is_empty());
    let victims: HashSet<u64> = plans.iter().flat_map(|(p, _)| p.preempted.iter().map(|v| v.id)).collect();
    assert!(!victims.is_empty(), "no preemption in {} plans", plans.len());
    for v in &victims {
        let admissions = plans.iter().flat_map(|(p, _)| p.admitted()).filter(|c| c.id == *v).count();
        assert!(admissions >= 2, "request {v} was preempted but not admitted again");
    }
}

/// With isolation, preemption takes the newest sequence of the lowest-priority class that is
/// running, even when that is the oldest sequence of all: here the one low-priority request
/// (admitted first) yields to the high-priority class's growth and is admitted again later.
#[test]
fn isolation_preempts_a_lower_priority_class_first() {
    let mut s = common::llama8b(
        "",
        r#"{ "name": "low", "arrival": { "kind": "poisson", "rate_per_s": 1000 }, "num_requests": 1, "priority": 2,
            "reserved_share": 0.01,
            "input_tokens": { "kind": "fixed", "value": 1000 }, "output_tokens": { "kind": "fixed", "value": 4000 } },
           { "name": "high", "arrival": { "kind": "poisson", "rate_per_s": 20 }, "num_requests": 100, "priority": 0,
            "reserved_share": 0.99,
            "input_tokens": { "kind": "fixed", "value": 1000 }, "output_tokens": { "kind": "fixed", "value": 3000 } }"#,
    );
    s.gpu_memory_utilization = 0.3;
    s.scheduler.isolation = true;
    s.scheduler.max_num_seqs = 32;
    let plans = check_run(&s).unwrap();
    // request 0 is the low-priority one, the first admitted
    let (_, context) = plans
        .iter()
        .find(|(p, _)| p.preempted.iter().any(|v| v.id == 0))
        .expect("the low-priority request is preempted");
    assert_eq!(context.oldest_running, Some(0));
    assert!(plans.iter().flat_map(|(p, _)| p.admitted()).filter(|c| c.id == 0).count() >= 2);
}
