//! A lesson's neighbours (`lab_content::lessons::NEIGHBOURS`): each changes one thing in each run,
//! the paths it names and nothing else, never what the lesson varies itself, the same way every
//! time; and `--set` changes (`Change`) reach only the runs named.

use lab_content::lessons::{self, apply_to, next_gpu, next_model, Change, Neighbour, Skip, LESSONS, NEIGHBOURS};
use serde_json::Value;
use sim_core::catalog;
use sim_core::Scenario;

/// Every leaf path where `a` and `b` differ (`scheduler.max_num_seqs`, `classes[0].arrival.rate_per_s`).
fn diff(a: &Value, b: &Value, path: String, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))) {
                let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                diff(x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null), p, out);
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                diff(u, v, format!("{path}[{i}]"), out);
            }
        }
        _ if a != b => out.push(path),
        _ => {}
    }
}

fn changed(a: &Scenario, b: &Scenario) -> Vec<String> {
    // the engine constants in full (a file leaves them out at their defaults)
    let json = |s: &Scenario| {
        let mut v = serde_json::to_value(s).unwrap();
        v["engine"] = serde_json::to_value(&s.engine).unwrap();
        v
    };
    let mut out = Vec::new();
    diff(&json(a), &json(b), String::new(), &mut out);
    out
}

/// `classes[3].arrival.rate_per_s` → `arrival.rate_per_s`.
fn class_free(path: &str) -> &str {
    path.strip_prefix("classes[").and_then(|r| r.split_once("].")).map_or(path, |(_, tail)| tail)
}

fn runs(l: &lessons::Lesson) -> Vec<Scenario> {
    l.scenarios(lessons::DEFAULT_SEED).into_iter().map(|r| r.scenario).collect()
}

#[test]
fn each_neighbour_changes_only_its_own_paths_in_each_run() {
    let mut applied = 0;
    for l in LESSONS {
        let before = runs(l);
        for n in NEIGHBOURS {
            let Ok(after) = n.apply(&before) else { continue };
            applied += 1;
            assert_eq!(after.len(), before.len(), "{} {}", l.id, n.id());
            let mut any = false;
            for (i, (a, b)) in before.iter().zip(&after).enumerate() {
                let paths = changed(a, b);
                any |= !paths.is_empty();
                for p in &paths {
                    assert!(
                        n.paths().contains(&class_free(p)),
                        "{} {}: run {i} changed {p}, not one of {:?}",
                        l.id,
                        n.id(),
                        n.paths()
                    );
                }
            }
            assert!(any, "{} {}: applied but changed nothing", l.id, n.id());
        }
    }
    assert!(applied >= LESSONS.len() * 5, "most neighbours apply to most lessons ({applied})");
}

#[test]
fn the_load_neighbours_scale_every_rate_by_their_factor() {
    let l = lessons::find("mean-hides-tail").unwrap();
    let before = runs(l);
    for f in [0.7, 1.3] {
        let after = Neighbour::Load(f).apply(&before).unwrap();
        for (a, b) in before.iter().zip(&after) {
            let (x, y) = (lab_content::sweep::offered_rate(a), lab_content::sweep::offered_rate(b));
            assert!((y - x * f).abs() < 1e-9 * x, "{x} × {f} = {y}");
        }
    }
}

#[test]
fn what_a_lesson_varies_itself_is_left_to_it() {
    // cost-per-good-token compares GPUs: there is no next GPU of "its" GPU
    let cost = lessons::find("cost-per-good-token").unwrap();
    assert_eq!(Neighbour::NextGpu.apply(&runs(cost)), Err(Skip::Varied { what: "GPU" }));
    // a lesson whose runs differ in max_num_seqs keeps each run's under the default caps
    let l = LESSONS.iter().find(|l| {
        let r = runs(l);
        r.windows(2).any(|w| w[0].scheduler.max_num_seqs != w[1].scheduler.max_num_seqs)
    });
    let l = l.expect("some lesson compares batch sizes");
    let before = runs(l);
    if let Ok(after) = Neighbour::DefaultCaps.apply(&before) {
        for (a, b) in before.iter().zip(&after) {
            assert_eq!(a.scheduler.max_num_seqs, b.scheduler.max_num_seqs, "{}", l.id);
        }
    }
    // the engine profile keeps the scheduler fields the runs differ in
    for l in LESSONS {
        let before = runs(l);
        let Ok(after) = Neighbour::Engine(sim_core::profile::Engine::Sglang).apply(&before) else { continue };
        let differs = |r: &[Scenario], f: fn(&Scenario) -> String| r.windows(2).any(|w| f(&w[0]) != f(&w[1]));
        let layout = |s: &Scenario| format!("{:?} {:?}", s.scheduler.batching, s.scheduler.kv_layout);
        assert_eq!(differs(&before, layout), differs(&after, layout), "{}", l.id);
        for (a, b) in before.iter().zip(&after) {
            assert_eq!(a.scheduler.max_num_seqs, b.scheduler.max_num_seqs, "{}: the caps are not the engine's", l.id);
        }
    }
}

#[test]
fn next_gpus_and_models_are_in_the_catalogue_and_go_up() {
    for g in catalog::gpus() {
        if let Some(n) = next_gpu(&g.id) {
            let n = catalog::find_gpu(n).expect("the next GPU is in the catalogue");
            assert!(n.hbm_bytes >= g.hbm_bytes && n.id != g.id, "{} → {}", g.id, n.id);
        }
    }
    assert_eq!(next_gpu("h100-sxm"), Some("h200"));
    assert_eq!(next_gpu("b300"), None);
    for m in catalog::models() {
        if let Some(n) = next_model(&m.id) {
            let n = catalog::find_model(n).expect("the next model is in the catalogue");
            assert!(n.params_total > m.params_total, "{} → {}", m.id, n.id);
        }
    }
    assert_eq!(next_model("llama-3.1-8b"), Some("llama-3.1-70b"));
    assert_eq!(next_model("llama-3.1-405b"), None);
}

#[test]
fn the_next_model_gets_the_gpus_it_needs_and_neighbours_are_deterministic() {
    let l = lessons::find("mean-hides-tail").unwrap();
    let before = runs(l);
    let after = Neighbour::NextModel.apply(&before).unwrap();
    let (a, b) = (&before[0], &after[0]);
    assert!(b.model_spec().unwrap().params_total > a.model_spec().unwrap().params_total);
    assert!(b.num_gpus > a.num_gpus, "a 70B model does not keep the 8B's KV on one GPU");
    for n in NEIGHBOURS {
        assert_eq!(n.apply(&before), n.apply(&before), "{}", n.id());
    }
    // every run of a lesson gets the same GPU count (headroom's runs differ in utilisation)
    for l in LESSONS {
        let Ok(after) = Neighbour::NextModel.apply(&runs(l)) else { continue };
        assert!(after.windows(2).all(|w| w[0].num_gpus == w[1].num_gpus), "{}", l.id);
    }
}

#[test]
fn set_changes_reach_only_the_runs_named() {
    let l = lessons::find("ttft-vs-tpot").unwrap();
    let mut r = l.scenarios(1);
    let change = [Change::parse("scheduler.max_num_seqs=17").unwrap()];
    apply_to(&mut r, &change, Some(&[1])).unwrap();
    let seqs: Vec<u32> = r.iter().map(|r| r.scenario.scheduler.max_num_seqs).collect();
    assert_eq!(seqs[1], 17);
    assert!(seqs.iter().enumerate().all(|(i, &s)| (i == 1) == (s == 17)), "{seqs:?}");
    let mut all = l.scenarios(1);
    apply_to(&mut all, &[Change::parse("classes[*].arrival.rate_per_s=3").unwrap()], None).unwrap();
    for r in &all {
        assert!((lab_content::sweep::offered_rate(&r.scenario) - 3.0 * r.scenario.classes.len() as f64).abs() < 1e-9);
    }
}

/// Seeds the neighbour check below runs (a fifth of `llmsim lesson ID --neighbours`'s 20, so
/// `cargo test` stays fast); it asks the same share, [`lessons::HOLDS_AT`] (4 of 5). The full
/// 20-seed check is `llmsim lesson ID --neighbours --seeds 20 --check`, which `scripts/test.sh`
/// runs for every lesson.
const QUICK_SEEDS: [u64; 5] = [1, 2, 3, 4, 5];

/// Every lesson holds on each neighbour that applies to it, or its explanation names that
/// neighbour as a place it stops holding ([`lessons::LIMITS`], said by its `where` sentence).
#[test]
fn lessons_hold_on_their_neighbours_or_say_where_they_stop() {
    let check = |l: &lessons::Lesson| -> Vec<String> {
        let mut bad = Vec::new();
        for n in NEIGHBOURS {
            let a = l.neighbour_agreement(n, &QUICK_SEEDS, &|_| Ok(())).expect("the lesson's runs are valid");
            if a.skip.is_none() && !a.holds && !a.named {
                bad.push(format!("{} on {}: {} of {} seeds", l.id, a.neighbour, a.agree, a.seeds));
            }
        }
        bad
    };
    // two threads: the machine's cores
    let (first, second) = LESSONS.split_at(LESSONS.len() / 2);
    let bad: Vec<String> = std::thread::scope(|s| {
        let h = s.spawn(|| first.iter().flat_map(check).collect::<Vec<_>>());
        let mut b: Vec<String> = second.iter().flat_map(check).collect();
        b.extend(h.join().expect("the check ran"));
        b
    });
    assert!(bad.is_empty(), "lessons that neither hold nor say where they stop: {bad:?}");
}

/// Each named limit is a real lesson and neighbour, and the lesson's explanation says its
/// `where` sentence (on the page's seed), whose words live in both translation tables.
#[test]
fn named_limits_are_said_in_both_languages() {
    let tables = ["en", "zh"].map(|t| {
        let path = format!("{}/../app/i18n/lessons.{t}.json", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(path).unwrap()).unwrap()
    });
    let ids: Vec<String> = NEIGHBOURS.iter().map(|n| n.id()).collect();
    for (id, ns) in lessons::LIMITS {
        let l = lessons::find(id).unwrap_or_else(|| panic!("{id} is a lesson"));
        assert!(ns.iter().all(|n| ids.iter().any(|i| i == n)), "{id}: {ns:?}");
        assert!(l.sentences.contains(&lessons::LIMIT_SENTENCE), "{id} has a where sentence");
        let said = l.run(lessons::DEFAULT_SEED).1.sentences;
        assert!(said.contains(&lessons::LIMIT_SENTENCE), "{id} says where it stops: {said:?}");
        for t in &tables {
            let key = format!("lesson.{id}.say.{}", lessons::LIMIT_SENTENCE);
            assert!(t[&key].as_str().is_some_and(|s| s.len() > 40), "{key}");
        }
    }
}
