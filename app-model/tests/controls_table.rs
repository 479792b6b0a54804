//! The control table against the rest of the lab: the controls are exactly the settings the
//! editor shows, every id is a scenario path, every translation key (each the rule's for its
//! setting) exists in English and Chinese, the lock list is sim-core's lock ids in its order,
//! every accessor reads what it wrote.

use std::collections::BTreeMap;

use app_model::controls::{plain_path, Kind, Options, Range, CONTROLS, GROUPS};
use app_model::locks::{self, LOCKABLE};
use sim_core::settings::{Keys, Lock, SETTINGS};
use sim_core::Scenario;

/// Every translation table of the app for `locale`, merged.
fn table(locale: &str) -> BTreeMap<String, String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../app/i18n");
    let mut all = BTreeMap::new();
    for part in ["ui", "features", "lessons"] {
        let path = dir.join(format!("{part}.{locale}.json"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let map: BTreeMap<String, String> =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        all.extend(map);
    }
    all
}

/// Every translation key the table and the locks use.
fn keys() -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = Vec::new();
    for c in &CONTROLS {
        out.push((c.id.to_string(), c.label));
        out.push((c.id.to_string(), c.def));
        if c.unit.starts_with("unit.") {
            out.push((c.id.to_string(), c.unit));
        }
        if let Kind::Select(Options::Keys(list)) = c.kind {
            out.extend(list.iter().map(|(_, k)| (c.id.to_string(), *k)));
        }
    }
    out.extend(GROUPS.iter().map(|(k, _)| ("group".to_string(), *k)));
    out.extend(LOCKABLE.iter().map(|(id, k)| (format!("lock {id}"), *k)));
    // every lockable setting's words, and the seed's label (the toolbar's lock)
    for row in SETTINGS.iter().filter(|r| r.lock != Lock::No) {
        let key = if row.lock == Lock::Words { row.keys.lock } else { row.keys.label };
        out.push((format!("setting {}", row.id), key));
    }
    // what is typed and refused is worded by the msg.typed.* keys (tests/messages.rs)
    out
}

#[test]
fn every_key_exists_in_english_and_chinese() {
    for locale in ["en", "zh"] {
        let t = table(locale);
        let missing: Vec<String> =
            keys().into_iter().filter(|(_, k)| !t.contains_key(*k)).map(|(id, k)| format!("{id}: {k}")).collect();
        assert!(missing.is_empty(), "missing in {locale}: {missing:#?}");
    }
}

#[test]
fn every_control_is_a_sim_core_setting_and_every_setting_has_a_control() {
    for c in &CONTROLS {
        let row = sim_core::settings::find(c.setting).unwrap_or_else(|| panic!("{}: no setting {}", c.id, c.setting));
        // the page's id is the row's path without class indices (a length's kind: its object)
        let plain = plain_path(&row.path_of(0));
        assert_eq!(plain.strip_suffix(".kind").filter(|p| p.ends_with("_tokens")).unwrap_or(&plain), c.id);
        assert_eq!(matches!(c.kind, Kind::Number), row.number().is_some() && c.id != "num_gpus", "{}: kind", c.id);
        assert_eq!(c.per_class(), row.per_class(), "{}", c.id);
    }
    // the editor shows exactly the settings a learner may change, each once; the seed is the
    // toolbar's, the class names the class cards'
    let mut shown: Vec<&str> = CONTROLS.iter().map(|c| c.setting).collect();
    shown.sort_unstable();
    let mut editable: Vec<&str> =
        SETTINGS.iter().filter(|r| !r.file_only && !["seed", "class_name"].contains(&r.id)).map(|r| r.id).collect();
    editable.sort_unstable();
    assert_eq!(shown, editable, "the controls and the settings the editor shows");
}

#[test]
fn a_controls_words_are_its_settings_by_the_rule() {
    for c in &CONTROLS {
        let [label, def, _] = Keys::rule(c.setting);
        assert_eq!((c.label, c.def), (label.as_str(), def.as_str()), "{}", c.id);
    }
}

#[test]
fn the_lock_list_is_sim_cores_lock_ids_in_its_order() {
    let ids: Vec<&str> = LOCKABLE.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, sim_core::settings::lock_ids(), "LOCKABLE follows the settings table");
    let groups: Vec<&str> = locks::GROUPS.iter().map(|(g, _)| *g).collect();
    assert_eq!(groups, sim_core::settings::GROUPS);
    for (g, key) in locks::GROUPS {
        assert_eq!(key, format!("lock.{g}"), "a group's words are lock.<id>");
    }
    // a lockable setting is a control, or structure the page locks elsewhere (the seed, names)
    for row in SETTINGS.iter().filter(|r| r.lock != Lock::No) {
        let id = row.lock_id();
        let covered = sim_core::settings::GROUPS[1..].iter().any(|g| id.starts_with(&format!("{g}.")));
        let known = CONTROLS.iter().any(|c| c.id == id) || locks::STRUCTURE.contains(&id.as_str());
        assert!(covered || known, "lockable setting {} is no control and no structure", row.id);
    }
}

#[test]
fn ids_are_unique_and_lock_ids_known() {
    let mut ids: Vec<&str> = CONTROLS.iter().map(|c| c.id).collect();
    ids.sort_unstable();
    let n = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), n, "control ids repeat");
    let sim_core_ids = sim_core::settings::lock_ids();
    for (id, _) in LOCKABLE.iter() {
        assert!(locks::known(id), "lock id {id} names no control");
        assert!(sim_core_ids.iter().any(|x| x == id), "lock id {id} is not one of sim-core's lock ids");
    }
    // every control can be locked by some lockable id
    for c in &CONTROLS {
        assert!(locks::lockable_of(&c.path(0)).is_some(), "{} cannot be locked", c.id);
    }
    // exercises allow only known controls
    for ex in lab_content::exercise::exercises() {
        for id in &ex.allowed {
            assert!(locks::known(id), "exercise {} allows unknown control {id}", ex.id);
        }
    }
}

/// Every preset and exercise scenario, and each of them with every choice of every drop-down
/// with fixed choices (arrival kinds, length kinds, batching, …): between them every control
/// applies somewhere.
fn scenarios() -> Vec<Scenario> {
    let mut base: Vec<Scenario> =
        sim_core::presets::PRESETS.iter().filter_map(|p| Scenario::from_json(p.json).ok()).collect();
    base.extend(lab_content::exercise::exercises().into_iter().map(|e| e.scenario));
    assert!(base.len() > 3);
    let mut out = base.clone();
    for s in &base {
        for c in &CONTROLS {
            if let Kind::Select(Options::Keys(list)) = c.kind {
                for (value, _) in list {
                    let mut t = s.clone();
                    c.set_choice(&mut t, 0, value);
                    out.push(t);
                }
            }
        }
    }
    out
}

/// Objects a scenario leaves out of its JSON while every field of theirs is the default (the
/// router), or while they are off (disaggregation, whose switch is its prefill replica count;
/// speculative decoding, whose switch is its draft token count).
const OMITTED_WHEN_DEFAULT: [&str; 3] = ["router", "disaggregation", "speculative"];

/// Whether `path` (`classes[0].slo.ttft_ms`) leads to a field of `v`, or to an absent optional
/// field of an object that exists (or of a top-level object left out at its defaults).
fn resolves(v: &serde_json::Value, path: &str) -> bool {
    if let Some((head, _)) = path.split_once('.') {
        if OMITTED_WHEN_DEFAULT.contains(&head) && v.get(head).is_none() {
            return true;
        }
    }
    let mut cur = v;
    let parts: Vec<&str> = path.split('.').collect();
    for (n, part) in parts.iter().enumerate() {
        let (name, index) = match part.split_once('[') {
            Some((name, rest)) => (name, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (*part, None),
        };
        let Some(next) = cur.get(name) else {
            return n == parts.len() - 1 && cur.is_object();
        };
        cur = match index {
            Some(i) => match next.get(i) {
                Some(x) => x,
                None => return false,
            },
            None => next,
        };
    }
    true
}

#[test]
fn every_control_is_a_scenario_path_and_applies_somewhere() {
    let all = scenarios();
    for c in &CONTROLS {
        let mut applied = false;
        for s in &all {
            if !c.applies_to(s, 0) {
                continue;
            }
            applied = true;
            let json = serde_json::to_value(s).expect("scenario serialises");
            // a length's kind is the object itself (`classes[0].input_tokens` with a `kind`)
            assert!(resolves(&json, &c.path(0)), "{} is not a path of scenario {:?}", c.id, s.name);
        }
        assert!(applied, "{} applies to no preset or exercise", c.id);
    }
}

/// A value inside `range` the control can hold exactly.
fn probe(range: &Range) -> f64 {
    let v = range.min + (range.max - range.min) / 3.0;
    if range.integer {
        v.round()
    } else {
        (v * 100.0).round() / 100.0
    }
}

#[test]
fn accessors_read_what_they_wrote() {
    for s in scenarios() {
        for c in &CONTROLS {
            if !c.applies_to(&s, 0) {
                continue;
            }
            let mut t = s.clone();
            match c.kind {
                Kind::Number => {
                    let range = c.range().expect("a number row");
                    let before = c.number(&t, 0);
                    c.set_number(&mut t, 0, before);
                    if c.id != "gpu_usd_per_hour" {
                        // the price reads the catalogue price when unset; writing it sets it
                        assert_eq!(t, s, "{}: writing what was read changed the scenario", c.id);
                    }
                    let v = probe(&range);
                    c.set_number(&mut t, 0, Some(v));
                    assert_eq!(c.number(&t, 0), Some(v), "{}", c.id);
                    if range.optional.is_some() {
                        c.set_number(&mut t, 0, None);
                        assert_eq!(c.number(&t, 0), None, "{} switches off", c.id);
                    }
                }
                Kind::Select(_) => {
                    let before = c.choice(&t, 0);
                    c.set_choice(&mut t, 0, &before);
                    assert_eq!(c.choice(&t, 0), before, "{}", c.id);
                }
                Kind::Toggle => {
                    let before = c.checked(&t);
                    c.set_checked(&mut t, !before);
                    assert_eq!(c.checked(&t), !before, "{}", c.id);
                }
            }
        }
    }
}

#[test]
fn out_of_range_values_get_sim_cores_message_for_that_field() {
    let s = scenarios().remove(0);
    for id in ["scheduler.max_num_seqs", "classes.arrival.rate_per_s", "gpu_memory_utilization"] {
        let Some(c) = app_model::controls::control(id) else { panic!("no control {id}") };
        if !c.applies_to(&s, 0) {
            continue;
        }
        let mut t = s.clone();
        c.set_number(&mut t, 0, Some(0.0));
        let err = t.validate().expect_err("0 is out of range");
        assert!(err.for_field(&c.path(0)).is_some(), "{id}: {err}");
    }
}

#[test]
fn the_precision_menus_offer_sim_cores_dtypes_in_its_order() {
    use sim_core::catalog::Dtype;
    let values = |id: &str| -> Vec<&'static str> {
        let Some(c) = app_model::controls::control(id) else { panic!("no control {id}") };
        let Kind::Select(Options::Keys(list)) = c.kind else { panic!("{id} is not a fixed menu") };
        list.iter().map(|(v, _)| *v).collect()
    };
    let names = |l: &[Dtype]| l.iter().map(|d| d.name()).collect::<Vec<_>>();
    assert_eq!(values("dtype"), names(&Dtype::ALL));
    // the KV cache: "same as weights" first, then the precisions a cache can be stored in
    let kv = values("kv_dtype");
    assert_eq!(kv[0], "");
    assert_eq!(kv[1..], names(&Dtype::KV)[..]);
    let policies: Vec<&str> = sim_core::cluster::Policy::ALL.iter().map(|p| p.name()).collect();
    assert_eq!(values("router.policy"), policies);
}

#[test]
fn every_router_policy_has_a_name_in_both_languages() {
    // the replica panel names the policy as replicas.policy.<name>
    for locale in ["en", "zh"] {
        let t = table(locale);
        for p in sim_core::cluster::Policy::ALL {
            let key = format!("replicas.policy.{}", p.name());
            assert!(t.get(&key).is_some_and(|s| !s.trim().is_empty()), "{locale}: {key}");
        }
    }
}

/// Issue 29: the page's engine picker keeps the limits the user set in the editor (they differ
/// from the old engine's defaults) and gives the new engine's defaults to those left alone.
#[test]
fn the_engine_picker_keeps_the_limits_the_user_set() {
    let c = |id: &str| app_model::controls::control(id).unwrap_or_else(|| panic!("{id}"));
    let mut s = sim_core::presets::find("chat-latency-first").unwrap().scenario();
    c("scheduler.max_num_seqs").set_number(&mut s, 0, Some(48.0));
    c("scheduler.max_num_batched_tokens").set_number(&mut s, 0, Some(4096.0));
    assert_eq!(s.scheduler.block_size, 16, "vLLM's, left alone");
    c("engine_profile").set_choice(&mut s, 0, "trtllm");
    assert_eq!(c("engine_profile").choice(&s, 0), "trtllm");
    assert_eq!(c("scheduler.max_num_seqs").number(&s, 0), Some(48.0));
    assert_eq!(c("scheduler.max_num_batched_tokens").number(&s, 0), Some(4096.0));
    assert_eq!(s.scheduler.block_size, 32, "TensorRT-LLM's");
}
