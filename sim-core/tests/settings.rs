//! The settings table agrees with the scenario: every path exists, get and set round-trip,
//! every range is the one validation enforces (with the row's message), ids are unique, and
//! every lock, exercise and sweep id names a row.

use lab_content::exercise::exercises;
use lab_content::sweep::SweepParam;
use sim_core::presets::{self, DEFAULT_PRESET};
use sim_core::settings::{self, Kind, Setting, Value, GROUPS, SETTINGS};
use sim_core::Scenario;

/// The default scenario, plus variants in which every row applies to some class: classes 1..4
/// use each arrival kind and each length kind (switched through the table itself).
fn scenarios() -> Vec<Scenario> {
    let base = presets::find(DEFAULT_PRESET).unwrap().scenario();
    let mut out = vec![base.clone()];
    for kind in ["bursty", "closed_loop", "trace"] {
        let mut s = base.clone();
        settings::set(&mut s, "arrival_kind", 0, &Value::Text(kind.into())).unwrap();
        out.push(s);
    }
    for kind in ["fixed", "uniform", "lognormal"] {
        let mut s = base.clone();
        settings::set(&mut s, "input_tokens_kind", 0, &Value::Text(kind.into())).unwrap();
        settings::set(&mut s, "output_tokens_kind", 0, &Value::Text(kind.into())).unwrap();
        out.push(s);
    }
    let mut s = base.clone();
    s.kv_dtype = Some(sim_core::Dtype::Fp8);
    s.gpu_usd_per_hour = Some(3.0);
    s.classes[0].reserved_share = Some(0.5);
    out.push(s);
    let mut s = base.clone();
    s.speculative = Some(sim_core::speculative::SpeculativeConfig {
        draft_tokens: 4,
        acceptance_rate: 0.7,
        draft_model: Some("llama-3.1-8b".into()),
    });
    out.push(s);
    let mut s = base.clone();
    s.disaggregation = Some(sim_core::scenario::DisaggConfig {
        prefill_replicas: 2,
        decode_replicas: 3,
        kv_link_gbps: 50.0,
        kv_link_latency_us: 20.0,
        prefill_num_gpus: Some(1),
        decode_num_gpus: Some(2),
    });
    out.push(s);
    out
}

#[test]
fn ids_are_unique_and_every_path_reads_and_writes_back() {
    let mut ids: Vec<&str> = SETTINGS.iter().map(|s| s.id).collect();
    ids.sort();
    let n = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), n, "ids are unique");
    let all = scenarios();
    for row in SETTINGS {
        let mut applies = false;
        for s in &all {
            let Some(v) = row.get(s, 0) else { continue };
            applies = true;
            let mut t = s.clone();
            row.set(&mut t, 0, &v).unwrap_or_else(|e| panic!("{}: {e}", row.id));
            assert_eq!(&t, s, "{}: set(get) changes nothing", row.id);
            assert_eq!(row.get(&t, 0), Some(v), "{}", row.id);
        }
        assert!(applies, "{} ({}) applies to no test scenario", row.id, row.path);
    }
}

/// A value just outside `x` in the direction `dir` (-1 below, +1 above), if one can be set.
fn outside(row: &Setting, x: f64, dir: f64) -> Option<f64> {
    let n = row.number().unwrap();
    let y = if n.integer { x + dir } else { x + dir * (x.abs() * 1e-6 + 1e-9) };
    (y >= 0.0 || !n.integer).then_some(y).filter(|y| *y < 1e18)
}

#[test]
fn ranges_are_what_validation_enforces_with_the_rows_message() {
    let mut checked = 0;
    for s in scenarios() {
        for row in SETTINGS {
            let Kind::Number(n) = &row.kind else { continue };
            let Some(v) = row.get(&s, 0) else { continue };
            if v == Value::Off || !n.choices.is_empty() {
                continue;
            }
            let field = row.path_of(0);
            let (lo, hi) = n.range(&s, 0);
            for edge in [lo, hi.min(1e18)] {
                let mut t = s.clone();
                row.set(&mut t, 0, &Value::Number(edge)).unwrap();
                let e = t.validate().err();
                assert!(e.as_ref().and_then(|e| e.for_field(&field)).is_none(), "{field} = {edge}: {e:?}");
            }
            for (edge, dir) in [(lo, -1.0), (hi, 1.0)] {
                let Some(x) = outside(row, edge, dir) else { continue };
                let mut t = s.clone();
                row.set(&mut t, 0, &Value::Number(x)).unwrap();
                let e = t.validate().expect_err(&format!("{field} = {x} is rejected"));
                let got = e.for_field(&field).unwrap_or_else(|| panic!("{field} = {x}: {e}"));
                assert_eq!(Some(got.message.clone()), n.check(&t, 0, x).map(|p| p.to_string()), "{field}");
                checked += 1;
            }
        }
    }
    assert!(checked > 60, "{checked}");
    let mut s = presets::find(DEFAULT_PRESET).unwrap().scenario();
    settings::set(&mut s, "max_num_seqs", 0, &Value::Number(0.0)).unwrap();
    assert_eq!(s.validate().unwrap_err().to_string(), "scheduler.max_num_seqs must be 1..=4096, got 0");
    settings::set(&mut s, "max_num_seqs", 0, &Value::Number(8.0)).unwrap();
    settings::set(&mut s, "num_gpus", 0, &Value::Number(3.0)).unwrap();
    assert_eq!(s.validate().unwrap_err().to_string(), "num_gpus must be 1, 2, 4 or 8, got 3");
}

#[test]
fn set_refuses_values_of_the_wrong_kind() {
    let mut s = presets::find(DEFAULT_PRESET).unwrap().scenario();
    let before = s.clone();
    let bad = [
        ("max_num_seqs", Value::Number(1.5)),
        ("max_num_seqs", Value::Off),
        ("max_num_seqs", Value::Number(f64::NAN)),
        ("chunked_prefill", Value::Number(1.0)),
        ("cv", Value::Number(2.0)),
        ("arrival_kind", Value::Text("weibull".into())),
        ("batching", Value::Text("dynamic".into())),
    ];
    for (id, v) in bad {
        assert!(settings::set(&mut s, id, 0, &v).is_err(), "{id} = {v:?}");
        assert_eq!(s, before, "{id}: a refused value changes nothing");
    }
    let e = settings::set(&mut s, "rate_per_s", 3, &Value::Number(1.0)).unwrap_err();
    assert_eq!(e.field, "classes[3].arrival.rate_per_s");
    settings::set(&mut s, "queue_timeout_ms", 0, &Value::Off).unwrap();
    assert_eq!(s.scheduler.queue_timeout_ms, None);
    settings::set(&mut s, "model", 0, &Value::Text("llama-2-7b".into())).unwrap();
    assert_eq!(s.scheduler.max_model_len, 4096, "lowered to the new model's context");
}

#[test]
fn locks_exercises_and_sweeps_name_rows() {
    let locks = settings::lock_ids();
    for g in GROUPS {
        assert!(SETTINGS.iter().any(|r| r.lock_id().starts_with(g)), "group {g} covers a row");
    }
    assert!(locks.contains(&"classes.arrival.rate_per_s".to_string()) && locks.contains(&"seed".to_string()));
    assert!(!locks.iter().any(|l| l.starts_with("engine.") || l.starts_with("classes.slo.")), "{locks:?}");
    for ex in exercises() {
        for a in &ex.allowed {
            assert!(locks.contains(a), "exercise {} allows unknown control {a}", ex.id);
        }
    }
    let mut sweep: Vec<&str> = settings::sweepable().map(|r| r.id).collect();
    let mut params: Vec<&str> = SweepParam::ALL.iter().map(|p| p.id()).collect();
    sweep.sort();
    params.sort();
    assert_eq!(sweep, params);
    for p in SweepParam::ALL {
        assert_eq!(SweepParam::parse(p.id()), Some(p));
        assert_eq!(p.setting().id, p.id());
    }
    assert_eq!(SweepParam::parse("block_size"), None);
}

#[test]
fn numbers_that_are_not_finite_are_named() {
    let mut s = presets::find(DEFAULT_PRESET).unwrap().scenario();
    s.gpu_memory_utilization = f64::NAN;
    s.scheduler.queue_timeout_ms = Some(f64::INFINITY);
    s.classes[0].slo.ttft_ms = Some(f64::NAN);
    let e = s.validate().unwrap_err();
    assert_eq!(e.for_field("gpu_memory_utilization").unwrap().message, "must be 0.05..=1, got NaN");
    assert!(e.for_field("scheduler.queue_timeout_ms").unwrap().message.contains("finite"), "{e}");
    assert!(e.for_field("classes[0].slo.ttft_ms").unwrap().message.contains("finite"), "{e}");
}

/// What `set` did before rows wrote their typed fields: the scenario as JSON (engine constants
/// written out), the value put at the row's path, the whole scenario read back. `None` where
/// `set` refuses before writing (wrong kind, a class that does not exist, a custom row).
fn set_by_round_trip(row: &Setting, s: &Scenario, i: usize, v: &Value) -> Option<Result<Scenario, String>> {
    use serde_json::Value as Json;
    if row.custom.is_some() || (row.per_class() && i >= s.classes.len()) {
        return None;
    }
    let json = match (&row.kind, v) {
        (_, Value::Off) if row.optional() => Json::Null,
        (Kind::Number(n), Value::Number(x)) if x.is_finite() => {
            if !n.integer {
                Json::from(*x)
            } else if x.fract() == 0.0 && *x >= 0.0 {
                Json::from(*x as u64)
            } else {
                return None;
            }
        }
        (Kind::Select { .. } | Kind::Text, Value::Text(t)) => Json::from(t.as_str()),
        (Kind::Toggle, Value::Bool(b)) => Json::from(*b),
        _ => return None,
    };
    let mut doc = serde_json::to_value(s).unwrap();
    doc.as_object_mut().unwrap().entry("engine").or_insert_with(|| serde_json::to_value(&s.engine).unwrap());
    let p = format!("/{}", row.path_of(i).replace(['.', '['], "/").replace(']', ""));
    let (parent, key) = p.rsplit_once('/').unwrap();
    let Some(obj) = doc.pointer_mut(parent).and_then(Json::as_object_mut) else {
        return Some(Err("does not apply to this scenario".into()));
    };
    if !obj.contains_key(key) && !row.optional() {
        return Some(Err("does not apply to this scenario".into()));
    }
    obj.insert(key.to_string(), json);
    Some(serde_json::from_value(doc).map_err(|e| e.to_string()))
}

#[test]
fn set_writes_each_field_as_the_whole_scenario_round_trip_did() {
    let mut compared = 0;
    for s in scenarios() {
        for row in SETTINGS {
            let mut values = vec![Value::Off, Value::Bool(true), Value::Bool(false), Value::Text("x".into())];
            values.extend(
                [0.0, 1.0, 1.5, 2.0, 7.0, 64.0, 0.25, 3.0e9, 5.0e9, 1.9e19, 1e300].into_iter().map(Value::Number),
            );
            match &row.kind {
                Kind::Number(n) => values
                    .extend([n.min, n.max, n.slider.0, n.slider.1, (n.slider.0 + n.slider.1) / 2.0].map(Value::Number)),
                Kind::Select { options, .. } => {
                    values.extend(options().into_iter().map(Value::Text));
                    values.extend(["", "FP8", "static ", "gpt-5"].map(|t| Value::Text(t.into())));
                }
                _ => {}
            }
            for i in 0..s.classes.len() + 1 {
                for v in &values {
                    let Some(want) = set_by_round_trip(row, &s, i, v) else { continue };
                    let mut got = s.clone();
                    let r = row.set(&mut got, i, v).map(|()| got).map_err(|e| e.message);
                    assert_eq!(r, want, "{} of class {i} set to {v:?}", row.id);
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 1000, "{compared} cases compared");
}
