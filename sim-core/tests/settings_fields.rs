//! The settings table against the scenario's structs: every field that is a setting has exactly
//! one row and every row a field, what each row says a scenario gets when its file leaves the
//! field out is what reading one gives (under every engine profile, on GPUs of each size), the
//! engine profiles' defaults are the rows' ([`SchedulerDefaults`] field for field), and the rows'
//! translation keys follow the one rule. Adding a field to a scenario struct without a row (or a
//! row without a field) fails here.

use std::collections::BTreeSet;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use sim_core::catalog::{find_gpu, find_model};
use sim_core::profile::Engine;
use sim_core::scenario::ClassConfig;
use sim_core::scenario::{
    DisaggConfig, EngineConfig, RouterConfig, SchedulerDefaults, SchedulerFile, Slo, SpeculativeConfig,
};
use sim_core::settings::{self, Keys, Kind, Lock, Omitted, Value, SETTINGS};
use sim_core::Scenario;

/// A deserializer that only records the field names a derived `Deserialize` struct asks for.
struct Fields<'a>(&'a mut Vec<&'static str>);

impl<'de> Deserializer<'de> for Fields<'_> {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.extend_from_slice(fields);
        Err(de::Error::custom("fields recorded"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// The fields struct `T` reads from a file.
fn fields_of<T: for<'de> Deserialize<'de>>() -> BTreeSet<&'static str> {
    let mut out = Vec::new();
    let _ = T::deserialize(Fields(&mut out));
    assert!(!out.is_empty(), "{} is read as a struct", std::any::type_name::<T>());
    out.into_iter().collect()
}

/// The keys of the rows whose path is `prefix` + one key (`scheduler.` → `max_num_seqs`, …),
/// each key once.
fn row_keys(prefix: &str) -> BTreeSet<&'static str> {
    let mut keys: Vec<&'static str> =
        SETTINGS.iter().filter_map(|r| r.path.strip_prefix(prefix)).filter(|k| !k.contains(['.', '['])).collect();
    let n = keys.len();
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(keys.len(), n, "two rows for one field under {prefix}");
    keys.into_iter().collect()
}

fn set(list: &[&'static str]) -> BTreeSet<&'static str> {
    list.iter().copied().collect()
}

#[test]
fn every_field_that_is_a_setting_has_one_row_and_every_row_a_field() {
    // the scheduler, as a file gives it and as a run uses it
    let file = fields_of::<SchedulerFile>();
    assert_eq!(row_keys("scheduler."), file, "scheduler fields (SchedulerFile) and rows");
    // every optional scheduler setting switched on, so that the run's form writes it
    let mut scenario = sim_core::presets::find(sim_core::presets::DEFAULT_PRESET).unwrap().scenario();
    for row in SETTINGS.iter().filter(|r| r.path.starts_with("scheduler.")) {
        if let Some(on) = row.number().and_then(|n| n.optional) {
            row.set(&mut scenario, 0, &Value::Number(on)).unwrap();
        }
    }
    let config = serde_json::to_value(&scenario.scheduler).unwrap();
    let config: BTreeSet<&str> = config.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(config, file, "SchedulerConfig and SchedulerFile hold the same fields");
    // the engine constants, the router, speculative decoding, disaggregation: every field a row
    assert_eq!(row_keys("engine."), fields_of::<EngineConfig>());
    assert_eq!(row_keys("router."), fields_of::<RouterConfig>());
    assert_eq!(row_keys("speculative."), fields_of::<SpeculativeConfig>());
    assert_eq!(row_keys("disaggregation."), fields_of::<DisaggConfig>());
    assert_eq!(row_keys("classes[{i}].slo."), fields_of::<Slo>());
    // the scenario's own fields: every one that is a value is a row; the rest are objects with
    // rows of their own (above), the format's version and the title
    let top = fields_of::<Scenario>();
    let objects =
        set(&["version", "name", "scheduler", "engine", "router", "classes", "speculative", "disaggregation"]);
    assert!(objects.is_subset(&top), "{top:?}");
    assert_eq!(row_keys(""), top.difference(&objects).copied().collect());
    // a class's: its arrival and lengths are rows by kind (tests/settings.rs); shared prefixes and
    // conversations are set in files only and have no rows yet
    let class = fields_of::<ClassConfig>();
    let objects = set(&["arrival", "input_tokens", "output_tokens", "slo", "prefix", "session"]);
    assert!(objects.is_subset(&class), "{class:?}");
    assert_eq!(row_keys("classes[{i}]."), class.difference(&objects).copied().collect());
}

/// A scenario on `gpu` serving `model` that leaves out everything it may, naming `engine` (the
/// engine profile too when it is vLLM's).
fn minimal(engine: Engine, gpu: &str, model: &str) -> Scenario {
    let profile =
        if engine == Engine::Vllm { String::new() } else { format!(r#""engine_profile": "{}","#, engine.name()) };
    let json = format!(
        r#"{{ "version": 1, "seed": 3, "model": "{model}", "gpu": "{gpu}", "dtype": "bf16",
            "gpu_memory_utilization": 0.9, {profile}
            "classes": [ {{ "name": "chat", "arrival": {{ "kind": "poisson", "rate_per_s": 4 }},
              "num_requests": 200, "input_tokens": {{ "kind": "fixed", "value": 100 }},
              "output_tokens": {{ "kind": "fixed", "value": 10 }} }} ] }}"#
    );
    Scenario::from_json(&json).unwrap_or_else(|e| panic!("{json}: {e}"))
}

/// GPUs on both sides of vLLM's size rule, and models of short and long context.
const GPUS: [&str; 4] = ["h100-sxm", "a100-80gb", "l40s", "l4"];
const MODELS: [&str; 2] = ["llama-2-7b", "llama-3.1-8b"];

fn defaults(e: Engine, gpu: &str, model: &str) -> SchedulerDefaults {
    e.defaults(find_gpu(gpu).as_ref(), find_model(model).unwrap().max_context)
}

#[test]
fn a_field_a_file_leaves_out_is_what_its_row_says_under_every_profile() {
    let mut checked = 0;
    for e in Engine::ALL {
        for gpu in GPUS {
            for model in MODELS {
                let s = minimal(e, gpu, model);
                let d = defaults(e, gpu, model);
                // a file that names the profile gives that field
                for row in SETTINGS.iter().filter(|r| e == Engine::Vllm || r.id != "engine_profile") {
                    let Some(want) = row.omitted.value(&d, &e.constants()) else { continue };
                    assert_eq!(row.get(&s, 0), Some(want), "{} under {} on {gpu} with {model}", row.id, e.name());
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 500, "{checked}");
    // every field of the scheduler, the engine constants and the router says what it is then
    for row in SETTINGS.iter().filter(|r| ["scheduler.", "engine.", "router."].iter().any(|p| r.path.starts_with(p))) {
        assert!(!matches!(row.omitted, Omitted::Unsaid), "{} says nothing of a file that leaves it out", row.id);
    }
}

#[test]
fn the_profiles_defaults_are_the_rows_field_for_field() {
    // the fields of SchedulerDefaults are exactly the rows whose default is the profile's
    let profile_rows: BTreeSet<&str> = SETTINGS
        .iter()
        .filter(|r| matches!(r.omitted, Omitted::Profile(_)))
        .map(|r| r.path.strip_prefix("scheduler.").unwrap_or_else(|| panic!("{}: a profile sets the scheduler", r.id)))
        .collect();
    for e in Engine::ALL {
        for gpu in GPUS {
            for model in MODELS {
                let d = defaults(e, gpu, model);
                let json = serde_json::to_value(d).unwrap();
                let fields = json.as_object().unwrap();
                let names: BTreeSet<&str> = fields.keys().map(String::as_str).collect();
                assert_eq!(names, profile_rows, "SchedulerDefaults' fields and the rows a profile sets");
                for row in SETTINGS {
                    let Omitted::Profile(f) = row.omitted else { continue };
                    let key = row.path.strip_prefix("scheduler.").unwrap();
                    let want = match f(&d) {
                        Value::Number(x) => serde_json::json!(x as u64),
                        Value::Bool(b) => serde_json::json!(b),
                        Value::Text(t) => serde_json::json!(t),
                        Value::Off => serde_json::Value::Null,
                    };
                    assert_eq!(fields[key], want, "{} of {} on {gpu}", row.id, e.name());
                }
            }
        }
    }
}

/// A value of `row` other than `now`: a toggle switched, another option, a switchable number
/// switched on or off, another number within the row's slider.
fn away(row: &settings::Setting, now: &Value) -> Value {
    match (&row.kind, now) {
        (_, Value::Bool(b)) => Value::Bool(!b),
        (Kind::Select { options, .. }, _) => {
            Value::Text(options().into_iter().find(|o| Value::Text(o.clone()) != *now).expect("two options"))
        }
        (Kind::Number(n), Value::Off) => Value::Number(n.optional.expect("a number off is switchable")),
        (Kind::Number(n), Value::Number(x)) => {
            let y = if n.integer { (n.slider.0 + 3.0).round() } else { n.slider.0 + n.step.max(0.01) * 3.0 };
            Value::Number(if y == *x { y + 1.0 } else { y })
        }
        _ => panic!("{}: {now:?}", row.id),
    }
}

#[test]
fn choosing_a_profile_sets_exactly_the_rows_it_governs_that_the_user_left() {
    for e in Engine::ALL {
        for gpu in GPUS {
            let from = Engine::ALL.into_iter().find(|x| *x != e).unwrap();
            // every scheduler setting where the file left it: each profile row takes e's default
            let mut s = minimal(from, gpu, "llama-3.1-8b");
            let before = s.clone();
            settings::set(&mut s, "engine_profile", 0, &Value::Text(e.name().into())).unwrap();
            let d = defaults(e, gpu, "llama-3.1-8b");
            for row in SETTINGS.iter().filter(|r| r.path.starts_with("scheduler.") || r.path.starts_with("engine.")) {
                match row.omitted {
                    Omitted::Profile(f) => assert_eq!(row.get(&s, 0), Some(f(&d)), "{} set by {}", row.id, e.name()),
                    Omitted::Constant(f) => {
                        assert_eq!(row.get(&s, 0), Some(f(&e.constants())), "{} set by {}", row.id, e.name())
                    }
                    _ => assert_eq!(row.get(&s, 0), row.get(&before, 0), "{} is no profile's", row.id),
                }
            }
            // every scheduler setting moved away from the value it has (set by the user): all stay
            let mut s = minimal(from, gpu, "llama-3.1-8b");
            for row in SETTINGS.iter().filter(|r| r.path.starts_with("scheduler.") || r.path.starts_with("engine.")) {
                let now = row.get(&s, 0).unwrap();
                row.set(&mut s, 0, &away(row, &now)).unwrap();
                assert_ne!(row.get(&s, 0), Some(now), "{} moved", row.id);
            }
            let before = s.clone();
            settings::set(&mut s, "engine_profile", 0, &Value::Text(e.name().into())).unwrap();
            assert_eq!(s.engine_profile, e);
            for row in SETTINGS.iter().filter(|r| r.path.starts_with("scheduler.") || r.path.starts_with("engine.")) {
                assert_eq!(row.get(&s, 0), row.get(&before, 0), "{}: the user's, kept by {}", row.id, e.name());
            }
        }
    }
}

#[test]
fn keys_follow_the_rule_and_locks_are_declared() {
    for row in SETTINGS {
        let [label, def, lock] = Keys::rule(row.id);
        assert_eq!((row.keys.label, row.keys.def, row.keys.lock), (label.as_str(), def.as_str(), lock.as_str()));
        if row.file_only {
            assert_eq!(row.lock, Lock::No, "{}: a setting the page does not show cannot be locked", row.id);
        }
    }
    // the lock list: each id once, the groups in place of the rows they cover
    let ids = settings::lock_ids();
    let mut sorted = ids.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), ids.len(), "{ids:?}");
    for g in settings::GROUPS {
        assert!(ids.iter().any(|x| x == g), "group {g}");
    }
    for id in &ids {
        let row = settings::by_lock_id(id);
        assert!(row.is_some() || settings::GROUPS.contains(&id.as_str()), "{id} is neither a row nor a group");
    }
    let at = |id: &str| ids.iter().position(|x| x == id).unwrap_or_else(|| panic!("{id}"));
    assert!(at("classes") < at("classes.name") && at("classes.slo") < at("classes.priority"));
    assert!(!ids
        .iter()
        .any(|x| x.starts_with("classes.slo.") || x.starts_with("engine.") || x == "classes.arrival.path"));
}
