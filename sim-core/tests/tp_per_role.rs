//! Tensor parallelism per pool with disaggregation (`disaggregation.prefill_num_gpus`,
//! `decode_num_gpus`): each replica's memory plan, step time and roofline are those of a
//! colocated replica on its pool's GPUs, cost counts each pool's GPUs, absent fields change
//! nothing, and a pool the model does not fit is named.

use sim_core::ceiling::Ceiling;
use sim_core::perf::{BatchWork, StepModel};
use sim_core::{HbmPlan, Scenario, Simulation};

/// The `disaggregated` preset (Llama-3.1-8B on H100s, 2 prefill + 2 decode replicas), shorter.
fn split() -> Scenario {
    let mut s = sim_core::presets::find("disaggregated").expect("preset").scenario();
    s.classes[0].num_requests = Some(300);
    s
}

/// The same model and settings colocated on `tp` GPUs: what a pool of that TP must match.
fn colocated(tp: u32) -> Scenario {
    let mut s = split();
    s.disaggregation = None;
    s.replicas = 1;
    s.num_gpus = tp;
    s
}

fn with_decode_tp(tp: Option<u32>) -> Scenario {
    let mut s = split();
    s.disaggregation.as_mut().unwrap().decode_num_gpus = tp;
    s
}

/// A full decode batch: 64 sequences of 3,125 tokens of context (the preset's mean prompt and
/// half its answer).
fn decode_batch() -> BatchWork {
    BatchWork { decode_seqs: 64, decode_ctx_tokens: 64 * 3125, logit_tokens: 64, ..BatchWork::default() }
}

#[test]
fn each_pool_plans_memory_and_times_steps_on_its_own_gpus() {
    let s = with_decode_tp(Some(2));
    let sim = Simulation::new(&s).unwrap();
    let (model, gpu) = (s.model_spec().unwrap(), s.gpu_spec().unwrap());
    let one = HbmPlan::new(&colocated(1), &model, &gpu).unwrap();
    let two = HbmPlan::new(&colocated(2), &model, &gpu).unwrap();
    // the prefill replicas (0, 1) are TP1's, the decode replicas (2, 3) TP2's, field for field
    assert_eq!(sim.replica_hbm_plan(0), &one);
    assert_eq!(sim.replica_hbm_plan(1), &one);
    assert_eq!(sim.replica_hbm_plan(2), &two);
    assert_eq!(sim.replica_hbm_plan(3), &two);
    // by hand: twice the HBM, the same weights once, so more than twice the KV pool
    assert_eq!(two.capacity_bytes, 2.0 * gpu.hbm_bytes);
    assert_eq!(two.weights_bytes, one.weights_bytes);
    assert!(
        two.kv_capacity_tokens > 2 * one.kv_capacity_tokens,
        "{} vs {}",
        two.kv_capacity_tokens,
        one.kv_capacity_tokens
    );
    // the decode step is TP2's: the colocated TP2 step model's time for the same batch
    let step = |tp: u32, plan: &HbmPlan| {
        let c = colocated(tp);
        StepModel::new(&model, &gpu, tp, c.dtype, plan.kv_traffic(), &c.engine).step_time(&decode_batch()).total
    };
    let w = decode_batch();
    assert_eq!(sim.replica_step_model(2).step_time(&w).total, step(2, &two));
    assert_eq!(sim.replica_step_model(0).step_time(&w).total, step(1, &one));
    assert!(step(2, &two) < step(1, &one), "weights and KV read over two GPUs' bandwidth");
    // the planner's roofline: each pool's is the colocated one of its TP
    assert_eq!(Ceiling::of_replica(&s, 2, 3000.0, 250.0).unwrap(), Ceiling::of(&colocated(2), 3000.0, 250.0).unwrap());
    assert_eq!(Ceiling::of_replica(&s, 0, 3000.0, 250.0).unwrap(), Ceiling::of(&colocated(1), 3000.0, 250.0).unwrap());
}

#[test]
fn decode_on_two_gpus_decodes_faster() {
    let one = Simulation::new(&with_decode_tp(None)).unwrap().run_to_end();
    let two = Simulation::new(&with_decode_tp(Some(2))).unwrap().run_to_end();
    assert!(two.all.tpot_ms.p50 < one.all.tpot_ms.p50, "{} vs {}", two.all.tpot_ms.p50, one.all.tpot_ms.p50);
}

#[test]
fn cost_counts_each_pools_gpus() {
    let mut s = with_decode_tp(Some(4));
    s.disaggregation.as_mut().unwrap().prefill_num_gpus = Some(2);
    s.gpu_usd_per_hour = Some(3.0);
    assert_eq!(s.total_gpus(), 2 * 2 + 2 * 4);
    let sum = Simulation::new(&s).unwrap().run_to_end();
    assert!((sum.cost.usd_per_hour - 3.0 * 12.0).abs() < 1e-9, "{}", sum.cost.usd_per_hour);
}

#[test]
fn absent_or_equal_to_num_gpus_is_the_same_run() {
    let base = split();
    let mut same = split();
    let d = same.disaggregation.as_mut().unwrap();
    (d.prefill_num_gpus, d.decode_num_gpus) = (Some(1), Some(1));
    let a = serde_json::to_string(&Simulation::new(&base).unwrap().run_to_end()).unwrap();
    let b = serde_json::to_string(&Simulation::new(&same).unwrap().run_to_end()).unwrap();
    assert_eq!(a, b);
    assert!(!base.to_json_pretty().contains("num_gpus\": null"));
}

#[test]
fn a_pool_the_model_does_not_fit_is_named_with_its_fix() {
    // Llama-2-70B in bf16 (≈129 GiB of weights) fits two H100s, not one
    let mut s = split();
    s.model = sim_core::scenario::ModelRef::Id("llama-2-70b".into());
    s.scheduler.max_model_len = 4096;
    s.num_gpus = 2;
    s.disaggregation.as_mut().unwrap().decode_num_gpus = Some(1);
    let e = Simulation::new(&s).err().expect("the decode pool does not fit");
    let f = &e.errors[0];
    assert_eq!(f.field, "disaggregation.decode_num_gpus", "{e}");
    assert!(f.to_string().contains("disaggregation.decode_num_gpus = 2"), "{e}");
    s.disaggregation.as_mut().unwrap().decode_num_gpus = None;
    s.disaggregation.as_mut().unwrap().prefill_num_gpus = Some(1);
    let e = Simulation::new(&s).err().expect("the prefill pool does not fit");
    assert_eq!(e.errors[0].field, "disaggregation.prefill_num_gpus", "{e}");
    s.disaggregation.as_mut().unwrap().prefill_num_gpus = Some(4);
    Simulation::new(&s).unwrap();
}
