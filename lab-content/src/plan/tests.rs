use super::*;
use crate::contract::EXAMPLE;
use sim_core::sim::BuiltinTraces;

fn example() -> Contract {
    Contract::from_json(EXAMPLE).unwrap()
}

fn small() -> PlanOptions {
    PlanOptions {
        gpus: Some(vec!["l4".into(), "a100-80gb".into(), "h100-sxm".into()]),
        max_gpus: 8,
        engines: vec![Engine::Vllm],
        splits: false,
        prune: true,
        shard: None,
    }
}

fn plan(c: &Contract, o: &PlanOptions) -> PlanAnswer {
    Planner::new(c, o, &BuiltinTraces).unwrap().run()
}

/// The best passes the acceptance test as `llmsim check` runs it, read back from its JSON; the
/// next cheaper fails it, on the lines the answer gives.
#[test]
fn the_best_passes_and_the_next_cheaper_fails_for_the_reason_given() {
    let a = plan(&example(), &small());
    let best = a.best.expect("the example contract can be met");
    let text = best.contract.to_json_pretty();
    let back = Contract::from_json(&text).expect("the best's contract reads back");
    let report = back.check(&BuiltinTraces).unwrap();
    assert!(report.pass, "{:?}", report.lines.iter().filter(|l| !l.pass).collect::<Vec<_>>());
    assert!((report.summary.cost.usd_per_hour - best.usd_per_hour).abs() < 1e-9);
    let next = a.next_cheaper.expect("a cheaper configuration was tried");
    assert!(next.usd_per_hour < best.usd_per_hour);
    let back = Contract::from_json(&next.contract.to_json_pretty()).unwrap();
    let report = back.check(&BuiltinTraces).unwrap();
    assert!(!report.pass);
    let failed: Vec<&str> = report.lines.iter().filter(|l| !l.pass).map(|l| l.field.as_str()).collect();
    let given: Vec<&str> = next.fails.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(failed, given);
    assert!(!given.is_empty());
}

/// The pruned answer has the exhaustive one's best, with fewer runs.
fn same_optimum(pruned: &PlanAnswer, all: &PlanAnswer) {
    let (p, e) = (pruned.best.as_ref().unwrap(), all.best.as_ref().unwrap());
    assert_eq!(p.usd_per_hour, e.usd_per_hour);
    assert_eq!(p.plan.candidate, e.plan.candidate);
    assert_eq!(p.plan.units, e.plan.units);
    assert!(pruned.simulated < all.simulated, "{} vs {}", pruned.simulated, all.simulated);
}

/// On a small search space the pruned search finds the optimum that evaluating every candidate
/// finds.
#[test]
fn pruning_keeps_the_optimum() {
    let c = example();
    let pruned = plan(&c, &small());
    let all = plan(&c, &PlanOptions { prune: false, ..small() });
    same_optimum(&pruned, &all);
}

/// The same contract gives the same answer.
#[test]
fn deterministic() {
    let c = example();
    let a = serde_json::to_string(&plan(&c, &small())).unwrap();
    let b = serde_json::to_string(&plan(&c, &small())).unwrap();
    assert_eq!(a, b);
}

/// Every candidate cheaper than the best was tried and failed at the most units that stay
/// cheaper; the best's own configuration with one unit fewer is among them when it has more
/// than one.
#[test]
fn every_cheaper_candidate_is_explained() {
    let mut c = example();
    // twice the load: more than one small GPU
    for k in &mut c.workload.classes {
        if let Arrival::Poisson { rate_per_s } = &mut k.arrival {
            *rate_per_s *= 2.0;
        }
    }
    c.request_limits.max_rate_per_s = Some(20.0);
    c.slo.goodput_min_req_s = Some(14.0);
    let a = plan(&c, &small());
    let best = a.best.unwrap();
    for r in &a.rejected {
        assert!(r.usd_per_hour < best.usd_per_hour);
        assert!(!r.fails.is_empty(), "{}", r.candidate.label(r.units));
    }
    if best.plan.units > 1 {
        assert!(a.rejected.iter().any(|r| r.candidate == best.plan.candidate && r.units == best.plan.units - 1));
    }
}

/// A TPOT target below any GPU's decode step: nothing passes, and the answer says decode
/// bandwidth bound it.
#[test]
fn an_impossible_contract_names_its_constraint() {
    let mut c = example();
    c.slo.tpot_p99_ms = Some(0.5);
    for k in &mut c.workload.classes {
        k.slo.tpot_ms = Some(0.5);
    }
    let a = plan(&c, &PlanOptions { gpus: Some(vec!["l4".into(), "h100-sxm".into()]), ..small() });
    assert!(a.best.is_none());
    let i = a.infeasible.unwrap();
    assert_eq!(i.bound, Bound::DecodeBandwidth, "{}", i.why);
    assert!(i.closest.is_some());
}

/// Every example contract reads, and the four have plans.
#[test]
fn examples_plan() {
    for (name, text) in crate::contract::EXAMPLES {
        let c = Contract::from_json(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let a = Planner::new(&c, &PlanOptions::default(), &BuiltinTraces).unwrap().run();
        assert!(a.best.is_some(), "{name}: {:?}", a.infeasible.map(|i| i.why));
    }
}

/// Two workers, each searching every other candidate and told the cheapest cost of both before
/// answering, give the same best and the same cheaper candidates as one search.
#[test]
fn two_workers_agree_with_one() {
    let c = example();
    let one = plan(&c, &small());
    let mut workers: Vec<Planner> = (0..2)
        .map(|k| Planner::new(&c, &PlanOptions { shard: Some((k, 2)), ..small() }, &BuiltinTraces).unwrap())
        .collect();
    // the search phase, round by round, each worker told the other's best as it improves
    loop {
        let mut busy = false;
        for w in &mut workers {
            busy |= w.step();
        }
        for k in 0..2 {
            let p = workers[k].progress();
            if let (Some(cost), Some(rank)) = (p.best_usd_per_hour, p.best_rank) {
                workers[1 - k].offer_best(cost, rank);
            }
        }
        if !busy {
            break;
        }
    }
    assert!(workers.iter().all(|w| w.progress().phase == Phase::Waiting));
    let best = workers
        .iter()
        .filter_map(|w| Some((w.progress().best_usd_per_hour?, w.progress().best_rank?)))
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let parts: Vec<PlanAnswer> = workers
        .into_iter()
        .map(|mut w| {
            w.begin_answer(best);
            while w.step() {}
            w.answer()
        })
        .collect();
    let merged = PlanAnswer::merge(parts);
    let (a, b) = (one.best.unwrap(), merged.best.unwrap());
    assert_eq!(a.usd_per_hour, b.usd_per_hour);
    assert_eq!(a.plan.candidate, b.plan.candidate);
    let key = |r: &Rejected| (r.candidate.label(r.units), r.bound);
    assert_eq!(one.rejected.iter().map(key).collect::<Vec<_>>(), merged.rejected.iter().map(key).collect::<Vec<_>>());
}

/// A space with splits whose pools have their own TP: one GPU type, one engine, up to 4 GPUs.
fn per_role() -> PlanOptions {
    PlanOptions { gpus: Some(vec!["h100-sxm".into()]), max_gpus: 4, splits: true, ..small() }
}

/// With a TP per pool in the space (prefill TP1 and decode TP2, and the other way), the pruned
/// search still finds the exhaustive search's optimum.
#[test]
fn pruning_keeps_the_optimum_with_a_tp_per_pool() {
    let c = example();
    let p = Planner::new(&c, &per_role(), &BuiltinTraces).unwrap();
    let own: Vec<String> = p.cands.iter().filter(|k| k.c.decode_tp.is_some()).map(|k| k.c.label(1)).collect();
    assert!(own.iter().any(|l| l.contains("tp1/2")) && own.iter().any(|l| l.contains("tp2/1")), "{own:?}");
    let pruned = p.run();
    let mut every = Planner::new(&c, &PlanOptions { prune: false, ..per_role() }, &BuiltinTraces).unwrap();
    while every.step() {}
    // the exhaustive search bisected the capacity of splits with a TP per pool
    assert!(
        every.capacities.keys().any(|k| k.contains("tp1/2")) && every.capacities.keys().any(|k| k.contains("tp2/1"))
    );
    let all = every.answer();
    same_optimum(&pruned, &all);
}

/// A split with its own TP per pool as a contract: the decode pool's GPUs are in the workload's
/// `disaggregation`, the contract reads back from its JSON, `llmsim check` runs it on each pool's
/// GPUs and counts them in the cost.
#[test]
fn a_tp_per_pool_is_in_the_contract_and_check_runs_it() {
    let c = example();
    let p = Planner::new(&c, &small(), &BuiltinTraces).unwrap();
    let cand = Candidate {
        gpu: "h100-sxm".into(),
        tp: 1,
        engine: Engine::Vllm,
        max_num_seqs: 64,
        max_num_batched_tokens: 8192,
        layout: Layout::Split { prefill: 1, decode: 1 },
        decode_tp: Some(2),
        router: Policy::LeastOutstanding,
        prefix_caching: true,
        usd_per_gpu_hour: 2.0,
    };
    assert_eq!(cand.unit_gpus(), 3);
    assert!(cand.label(2).contains("2P2D × h100-sxm tp1/2"), "{}", cand.label(2));
    let k = p.contract_for(&cand, 2, 1.0);
    let text = k.to_json_pretty();
    assert!(text.contains("\"decode_num_gpus\": 2"), "{text}");
    let back = Contract::from_json(&text).unwrap();
    assert_eq!(back, k);
    let s = back.scenario().unwrap();
    assert_eq!((s.replica_num_gpus(0), s.replica_num_gpus(3), s.total_gpus()), (1, 2, 6));
    let r = back.check(&BuiltinTraces).unwrap();
    let price = s.usd_per_hour_per_gpu();
    assert!((r.summary.cost.usd_per_hour - 6.0 * price).abs() < 1e-9, "{}", r.summary.cost.usd_per_hour);
    let launch = launch::commands(&s).join("\n");
    assert!(launch.contains("--tensor-parallel-size 1") && launch.contains("--tensor-parallel-size 2"), "{launch}");
}

/// The rejected candidates in groups: every candidate in exactly one, each group one shape and
/// one binding constraint, its variants the engines and budgets of its candidates.
#[test]
fn rejected_candidates_group_by_shape_and_constraint() {
    let c = example();
    let a = plan(&c, &PlanOptions { splits: false, ..PlanOptions::default() });
    let groups = group_rejected(&a.rejected);
    assert!(groups.len() < a.rejected.len(), "{} groups of {}", groups.len(), a.rejected.len());
    assert_eq!(groups.iter().map(|g| g.variants.len()).sum::<usize>(), a.rejected.len());
    let mut keys: Vec<(String, Bound)> = groups.iter().map(|g| (g.label.clone(), g.first.bound)).collect();
    keys.sort_by(|x, y| x.0.cmp(&y.0).then(x.1.id().cmp(y.1.id())));
    keys.dedup();
    assert_eq!(keys.len(), groups.len(), "no two groups share a shape and a constraint");
    for r in &a.rejected {
        let g =
            groups.iter().find(|g| g.label == r.candidate.shape_label(r.units) && g.first.bound == r.bound).unwrap();
        assert!(g.variants.contains(&r.candidate.variant()));
    }
}
