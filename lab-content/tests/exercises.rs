//! The built-in exercises over seeds 1..=20: each is unsolved as given, its reference solution
//! solves it, and the shortcuts that would skip the lesson it practises fail (or pass only at a
//! cost the objective shows). `search_best_answers` (ignored; run with `--ignored --nocapture`)
//! searches the allowed controls for the best known answers recorded in docs/teaching.md.

use lab_content::exercise::{exercises, Change, Exercise};
use sim_core::{Scenario, Simulation};

const SEEDS: std::ops::RangeInclusive<u64> = 1..=20;

fn exercise(id: &str) -> Exercise {
    exercises().into_iter().find(|e| e.id == id).unwrap_or_else(|| panic!("no exercise {id}"))
}

/// A learner's attempt: these changes from the starting scenario, every one to an allowed control.
fn attempt(ex: &Exercise, changes: &[Change]) -> Scenario {
    let mut ex = ex.clone();
    ex.reference = changes.to_vec();
    ex.reference_scenario().unwrap_or_else(|e| panic!("{}: {e}", ex.id))
}

/// Over seeds 1..=20: how many runs pass, and the median score of the passing ones.
struct Seeds {
    passes: usize,
    median: Option<f64>,
    /// The lowest and highest passing score.
    range: Option<(f64, f64)>,
}

fn over_seeds(ex: &Exercise, s: &Scenario) -> Seeds {
    let mut scores = Vec::new();
    let mut passes = 0;
    for seed in SEEDS {
        let mut s = s.clone();
        s.seed = seed;
        let a = ex.check(&Simulation::new(&s).unwrap().run_to_end());
        if a.pass {
            passes += 1;
            scores.extend(a.score);
        }
    }
    scores.sort_by(f64::total_cmp);
    let range = scores.first().zip(scores.last()).map(|(a, b)| (*a, *b));
    Seeds { passes, median: scores.get(scores.len() / 2).copied(), range }
}

fn c(path: &str, value: impl Into<serde_json::Value>) -> Change {
    Change::new(path, value)
}

#[test]
fn every_exercise_fails_as_given_on_19_of_20_seeds() {
    for ex in exercises() {
        let r = over_seeds(&ex, &ex.scenario);
        assert!(r.passes <= 1, "{} passes as given on {} of 20 seeds", ex.id, r.passes);
    }
}

#[test]
fn every_reference_solution_passes_on_19_of_20_seeds() {
    for ex in exercises() {
        assert!(!ex.reference.is_empty(), "{} has a reference solution", ex.id);
        let s = ex.reference_scenario().unwrap();
        let r = over_seeds(&ex, &s);
        assert!(r.passes >= 19, "{}: the reference passes on {} of 20 seeds", ex.id, r.passes);
    }
}

/// The reference's median score over the seeds.
fn reference_median(ex: &Exercise) -> f64 {
    over_seeds(ex, &ex.reference_scenario().unwrap()).median.expect("the reference passes")
}

#[test]
fn mixed_20_needs_priority_not_a_bigger_batch_fp8_or_a_reserved_share() {
    let ex = exercise("mixed-20");
    // fp8 weights and a faster GPU passed without any isolation: both are locked now
    for locked in [c("dtype", "fp8"), c("gpu", "mi300x"), c("classes[0].reserved_share", 0.8)] {
        let mut e = ex.clone();
        e.reference = vec![locked.clone()];
        assert!(e.reference_scenario().is_err(), "{} is locked", locked.path);
    }
    // what a learner may try instead of priority: each fails on at least 19 of 20 seeds
    let shortcuts: Vec<(&str, Vec<Change>)> = vec![
        ("queues per class, nobody first", vec![c("scheduler.isolation", true)]),
        ("a smaller token budget alone", vec![c("scheduler.max_num_batched_tokens", 2048)]),
        (
            "fewer sequences and a smaller budget",
            vec![c("scheduler.max_num_seqs", 64), c("scheduler.max_num_batched_tokens", 2048)],
        ),
        ("a queue timeout", vec![c("scheduler.queue_timeout_ms", 2000)]),
        ("a short queue", vec![c("scheduler.max_queue_len", 32)]),
    ];
    for (what, changes) in shortcuts {
        let r = over_seeds(&ex, &attempt(&ex, &changes));
        assert!(r.passes <= 1, "{what}: passes on {} of 20 seeds", r.passes);
    }
    // priority alone meets the tail goal but misses attainment on some seeds; the smaller
    // budget of the reference lowers chat's p99 time per token on every seed
    let priority = attempt(&ex, &[c("scheduler.isolation", true), c("classes[1].priority", 1)]);
    let reference = ex.reference_scenario().unwrap();
    let (mut tail_met, mut missed, mut faster) = (0, 0, 0);
    for seed in SEEDS {
        let run = |s: &Scenario| {
            let mut s = s.clone();
            s.seed = seed;
            Simulation::new(&s).unwrap().run_to_end()
        };
        let (p, r) = (run(&priority), run(&reference));
        let goals = ex.check(&p).goals;
        tail_met += usize::from(goals[0].pass);
        missed += usize::from(!goals[1].pass);
        faster += usize::from(r.classes["chat"].tpot_ms.p99 < p.classes["chat"].tpot_ms.p99);
    }
    assert!(tail_met >= 19 && missed >= 3 && faster >= 19, "{tail_met} {missed} {faster}");
    // lesson 7's reserved split (0.4 chat, 0.6 documents), beside priority, makes chat fail
    let mut s = attempt(&ex, &[c("scheduler.isolation", true), c("classes[1].priority", 1)]);
    s.classes[0].reserved_share = Some(0.4);
    s.classes[1].reserved_share = Some(0.6);
    let r = over_seeds(&ex, &s);
    assert!(r.passes <= 1, "lesson 7's split passes on {} of 20 seeds", r.passes);
    // a second GPU carries the shared queue, at well over the reference's cost per good token
    let r = over_seeds(&ex, &attempt(&ex, &[c("num_gpus", 2)]));
    assert!(r.passes >= 19, "two GPUs pass on {} of 20 seeds", r.passes);
    let (two, reference) = (r.median.unwrap(), reference_median(&ex));
    assert!(two > 1.5 * reference, "two GPUs ${two:.3} vs the reference ${reference:.3}");
}

#[test]
fn chat_cheapest_is_won_by_capacity_per_dollar_not_price_per_hour() {
    let ex = exercise("chat-cheapest");
    let reference = reference_median(&ex);
    // the GPUs cheapest per hour cannot carry 24 req/s within the SLO, even in fp8
    for gpu in ["l4", "rtx-4090", "l40s", "a100-40gb", "a100-80gb"] {
        let r = over_seeds(
            &ex,
            &attempt(&ex, &[c("gpu", gpu), c("dtype", if gpu.starts_with("a100") { "bf16" } else { "fp8" })]),
        );
        assert!(r.passes <= 1, "{gpu}: passes on {} of 20 seeds", r.passes);
    }
    // the fastest GPU and fp8 on the H100 pass too, at a higher cost per good token
    for (what, changes) in
        [("the H200 in fp8", vec![c("gpu", "h200"), c("dtype", "fp8")]), ("fp8 on the H100", vec![c("dtype", "fp8")])]
    {
        let r = over_seeds(&ex, &attempt(&ex, &changes));
        assert!(r.passes >= 19, "{what}: passes on {} of 20 seeds", r.passes);
        let m = r.median.unwrap();
        assert!(m > 1.3 * reference, "{what}: ${m:.3} vs the reference ${reference:.3}");
    }
}

#[test]
fn speculative_users_is_won_by_a_batch_small_enough_for_speculation_to_pay() {
    let ex = exercise("speculative-users");
    let reference = ex.reference_scenario().unwrap();
    let r = over_seeds(&ex, &reference);
    eprintln!("speculative-users reference: {}/20, median {:?} tok/s, range {:?}", r.passes, r.median, r.range);
    // the same 24 users without speculation (not a control of the page) miss 10 ms per token
    let mut off = reference.clone();
    off.speculative = None;
    let r = over_seeds(&ex, &off);
    assert!(r.passes <= 1, "24 users without speculation pass on {} of 20 seeds", r.passes);
    // without it the most users within the goals is 16, at well under the reference's throughput
    off.classes[0].arrival = sim_core::scenario::Arrival::ClosedLoop { users: 16, think_time_ms: 0.0 };
    let r = over_seeds(&ex, &off);
    assert!(r.passes >= 19, "16 users without speculation pass on {} of 20 seeds", r.passes);
    let (without, with) = (r.median.unwrap(), reference_median(&ex));
    assert!(with > 1.8 * without, "{with:.0} tok/s with speculation vs {without:.0} without");
    // capping the batch keeps the crowd's steps short but queues it: TTFT misses
    for seqs in [24, 32] {
        let r = over_seeds(&ex, &attempt(&ex, &[c("scheduler.max_num_seqs", seqs)]));
        assert!(r.passes <= 1, "256 users in batches of {seqs} pass on {} of 20 seeds", r.passes);
    }
    // a bigger crowd of 64 users misses the time per token
    let r = over_seeds(&ex, &attempt(&ex, &[c("classes[0].arrival.users", 64)]));
    assert!(r.passes <= 1, "64 users pass on {} of 20 seeds", r.passes);
}

/// Every combination of one alternative per dimension (an empty alternative changes nothing).
fn grid(dims: &[Vec<Vec<Change>>]) -> Vec<Vec<Change>> {
    dims.iter().fold(vec![vec![]], |acc, dim| {
        acc.iter().flat_map(|pre| dim.iter().map(move |alt| [pre.clone(), alt.clone()].concat())).collect()
    })
}

fn one_of(path: &str, values: &[serde_json::Value]) -> Vec<Vec<Change>> {
    values.iter().map(|v| vec![c(path, v.clone())]).collect()
}

fn gpus() -> Vec<serde_json::Value> {
    sim_core::catalog::gpus().into_iter().map(|g| g.id.into()).collect()
}

/// The grid each exercise is searched over: its allowed controls at the values that matter.
fn search_grid(id: &str) -> Vec<Vec<Change>> {
    use serde_json::json;
    let tokens = one_of("scheduler.max_num_batched_tokens", &[json!(1024), json!(2048), json!(4096), json!(8192)]);
    let seqs = one_of("scheduler.max_num_seqs", &[json!(64), json!(128), json!(256)]);
    match id {
        "mixed-20" => grid(&[
            one_of("num_gpus", &[json!(1), json!(2)]),
            vec![vec![], vec![c("scheduler.isolation", true), c("classes[1].priority", 1)]],
            seqs,
            tokens,
        ]),
        "chat-cheapest" => grid(&[
            one_of("gpu", &gpus()),
            one_of("num_gpus", &[json!(1), json!(2)]),
            one_of("dtype", &[json!("bf16"), json!("fp8")]),
            seqs,
            tokens,
        ]),
        "speculative-users" => grid(&[
            one_of(
                "classes[0].arrival.users",
                &[json!(8), json!(16), json!(24), json!(28), json!(32), json!(40), json!(48)],
            ),
            one_of("scheduler.max_num_seqs", &[json!(256), json!(32), json!(24), json!(16)]),
        ]),
        _ => vec![],
    }
}

fn words(changes: &[Change]) -> String {
    changes.iter().map(|c| format!("{}={}", c.path, c.value)).collect::<Vec<_>>().join(" ")
}

#[test]
#[ignore = "a search over the allowed controls (minutes): cargo test -p lab-content --test exercises -- --ignored --nocapture"]
fn search_best_answers() {
    for ex in exercises() {
        let max = ex.objective.as_ref().is_some_and(|o| o.direction == sim_core::metric::Direction::Max);
        for (what, s) in [("as given", ex.scenario.clone()), ("reference", ex.reference_scenario().unwrap())] {
            let r = over_seeds(&ex, &s);
            let (lo, hi) = r.range.unwrap_or((f64::NAN, f64::NAN));
            println!(
                "{} {what}: passes on {}/20, median {:.4} (range {lo:.4}..{hi:.4})",
                ex.id,
                r.passes,
                r.median.unwrap_or(f64::NAN)
            );
        }
        let mut rows: Vec<(String, usize, f64, (f64, f64))> = Vec::new();
        for changes in search_grid(&ex.id) {
            let mut e = ex.clone();
            e.reference = changes.clone();
            let Ok(s) = e.reference_scenario() else { continue };
            let r = over_seeds(&ex, &s);
            rows.push((
                words(&changes),
                r.passes,
                r.median.unwrap_or(f64::NAN),
                r.range.unwrap_or((f64::NAN, f64::NAN)),
            ));
        }
        rows.retain(|r| r.1 >= 19);
        rows.sort_by(|a, b| if max { b.2.total_cmp(&a.2) } else { a.2.total_cmp(&b.2) });
        println!("{}: {} configurations pass on >= 19 of 20 seeds; the best:", ex.id, rows.len());
        for (w, passes, median, (lo, hi)) in rows.iter().take(12) {
            println!("  {passes}/20  median {median:.4} ({lo:.4}..{hi:.4})  {w}");
        }
    }
}

#[test]
fn route_documents_is_won_by_the_router_not_by_more_replicas() {
    let ex = exercise("route-documents");
    let reference = reference_median(&ex);
    // least outstanding balances load as round robin does: the caches still thrash
    let least = over_seeds(&ex, &attempt(&ex, &[c("router.policy", "least_outstanding")]));
    assert!(least.passes <= 1, "least outstanding passes on {} seeds", least.passes);
    // twice the replicas routed round robin carry it, at well over the reference's cost per good
    // token: each cache still sees every document
    let eight = over_seeds(&ex, &attempt(&ex, &[c("replicas", 8)]));
    assert!(eight.passes >= 19, "eight replicas pass on {} of 20 seeds", eight.passes);
    let m = eight.median.unwrap();
    assert!(m > 1.5 * reference, "eight replicas ${m:.3} vs the reference ${reference:.3}");
}

#[test]
fn cache_prompts_needs_the_cache_and_the_memory_to_keep_it() {
    let ex = exercise("cache-prompts");
    let reference = reference_median(&ex);
    // either half alone fails: the cache evicts on the small pool; the large pool without the
    // cache prefills every 3,000-token system prompt again
    for (what, changes) in [
        ("caching alone", vec![c("scheduler.prefix_caching", true)]),
        ("memory alone", vec![c("gpu_memory_utilization", 0.9)]),
    ] {
        let r = over_seeds(&ex, &attempt(&ex, &changes));
        assert!(r.passes <= 1, "{what}: passes on {} of 20 seeds", r.passes);
    }
    // a second GPU carries the prompts without the cache, at well over the reference's cost
    let two = over_seeds(&ex, &attempt(&ex, &[c("num_gpus", 2)]));
    assert!(two.passes >= 19, "two GPUs pass on {} of 20 seeds", two.passes);
    let m = two.median.unwrap();
    assert!(m > 1.5 * reference, "two GPUs ${m:.3} vs the reference ${reference:.3}");
}

#[test]
fn split_the_work_needs_the_right_ratio_not_more_colocated_replicas() {
    let ex = exercise("split-the-work");
    let reference = reference_median(&ex);
    let split =
        |replicas: u32, prefill: u32| vec![c("replicas", replicas), c("disaggregation.prefill_replicas", prefill)];
    // a wrong ratio on four GPUs fails, and so does either pool on three
    for (what, changes) in [("1P3D", split(4, 1)), ("3P1D", split(4, 3)), ("2P1D", split(3, 2)), ("1P2D", split(3, 1))]
    {
        let r = over_seeds(&ex, &attempt(&ex, &changes));
        assert!(r.passes <= 1, "{what}: passes on {} of 20 seeds", r.passes);
    }
    // six colocated replicas carry the prefill chunks and the tokens, at well over the reference's
    // cost per good token
    let six = over_seeds(&ex, &attempt(&ex, &[c("replicas", 6)]));
    assert!(six.passes >= 19, "six colocated replicas pass on {} of 20 seeds", six.passes);
    let m = six.median.unwrap();
    assert!(m > 1.3 * reference, "six colocated ${m:.3} vs the reference ${reference:.3}");
}

/// `meet-contract`'s reference is the planner's answer to the contract, and its contract
/// passes `llmsim check`; the planner's next cheaper configuration fails the exercise too.
#[test]
fn meet_contract_reference_is_the_planners() {
    use lab_content::contract::{example, Contract};
    use lab_content::plan::{PlanOptions, Planner};
    use sim_core::sim::BuiltinTraces;
    let ex = exercise("meet-contract");
    let c = Contract::from_json(example("rag").unwrap()).unwrap();
    let a = Planner::new(&c, &PlanOptions::default(), &BuiltinTraces).unwrap().run();
    let best = a.best.expect("the contract can be met");
    assert!(best.usd_per_hour <= lab_content::exercise::MEET_CONTRACT_USD_PER_HOUR);
    let planned = best.contract.scenario().unwrap();
    let reference = ex.reference_scenario().unwrap();
    assert_eq!(reference.gpu, planned.gpu);
    assert_eq!(reference.num_gpus, planned.num_gpus);
    assert_eq!(reference.replica_count(), planned.replica_count());
    assert_eq!(reference.engine_profile, planned.engine_profile);
    assert_eq!(reference.scheduler.max_num_seqs, planned.scheduler.max_num_seqs);
    assert_eq!(reference.scheduler.max_num_batched_tokens, planned.scheduler.max_num_batched_tokens);
    assert!(Contract::from_json(&best.contract.to_json_pretty()).unwrap().check(&BuiltinTraces).unwrap().pass);
    // the exercise's check reads the same lines: the next cheaper configuration fails it
    let next = a.next_cheaper.expect("a cheaper configuration was tried").contract.scenario().unwrap();
    assert!(
        !ex.check(&Simulation::new(&next).unwrap().run_to_end()).pass,
        "the planner's next cheaper passes the exercise"
    );
}
