//! The page's messages: every code sim-core (and the page's own forms) can raise has an English
//! and a Chinese text holding exactly the placeholders its values fill; what is typed and
//! refused gets its specific message; the CLI's English stays as it was.

use std::collections::{BTreeMap, BTreeSet};

use app_model::controls::{control, TypedError};
use app_model::messages::{self, field_message, typed_message, Arg, Msg};
use sim_core::memory::Bound;
use sim_core::message::{CannotStart, DoesNotFit, Shortfall};
use sim_core::scenario::FieldError;
use sim_core::settings::Value;
use sim_core::{presets, Problem, Simulation};

fn table(lang: &str) -> BTreeMap<String, String> {
    let path = format!("{}/../app/i18n/ui.{lang}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).expect("the table")).expect("JSON")
}

fn placeholders(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else { break };
        out.insert(after[..close].to_string());
        rest = &after[close + 1..];
    }
    out
}

/// One of every problem sim-core can raise (both forms of those with two).
fn every_problem() -> Vec<Problem> {
    let weights = Shortfall::Weights {
        model: "llama-3-8b".into(),
        dtype: "bf16".into(),
        weights_gib: 15.0,
        activation_gib: 1.2,
        num_gpus: 1,
        utilization: 0.2,
        budget_gib: 16.0,
    };
    let kv = Shortfall::KvPool { kv_gib: 0.5, kv_tokens: 4000, max_model_len: 8192 };
    let fixes = vec![
        sim_core::settings::fix("num_gpus", Value::Number(2.0), Bound::AtLeast),
        sim_core::settings::fix("dtype", Value::Text("fp8".into()), Bound::Exactly),
        sim_core::settings::fix("gpu_memory_utilization", Value::Number(0.22), Bound::AtLeast),
        sim_core::settings::fix("max_model_len", Value::Number(4000.0), Bound::AtMost),
    ];
    let start = CannotStart {
        utilization: 0.99,
        headroom_gib: 0.8,
        runtime_gib: 1.01,
        other_gib: 0.0,
        max_utilization: 0.98,
        max_other_gib: 0.0,
    };
    vec![
        Problem::Range { min: 1e-6, max: 1e6, got: -1.0 },
        Problem::OneOf { choices: vec![1.0, 2.0, 4.0, 8.0], got: 3.0 },
        Problem::NotFinite { got: f64::NAN },
        Problem::NotWhole { got: 2.5 },
        Problem::NotListed { options: vec!["a".into(), "b".into()], got: "c".into() },
        Problem::Version { expected: 1, got: 2 },
        Problem::Fp8Unsupported { gpu: "a100-80gb".into() },
        Problem::BatchBelowContext { max_model_len: 8192, got: 2048 },
        Problem::ClassCount { got: 0 },
        Problem::NameLength,
        Problem::NameTaken { name: "chat".into() },
        Problem::NoTracePath,
        Problem::GivenByTrace,
        Problem::Required { range: Some((1.0, 1e6)) },
        Problem::Required { range: None },
        Problem::SharesOverOne { sum: 1.2 },
        Problem::ParamsTooSmall,
        Problem::CannotStart(Box::new(start.clone())),
        Problem::CannotStart(Box::new(CannotStart { other_gib: 3.0, max_other_gib: 2.9, ..start })),
        Problem::DoesNotFit(Box::new(DoesNotFit {
            shortfall: weights.clone(),
            gpu: "h100-sxm".into(),
            fixes,
            beyond_node: None,
        })),
        Problem::DoesNotFit(Box::new(DoesNotFit {
            shortfall: kv,
            gpu: "h100-sxm".into(),
            fixes: Vec::new(),
            beyond_node: None,
        })),
        Problem::DoesNotFit(Box::new(DoesNotFit {
            shortfall: weights.clone(),
            gpu: "h100-sxm".into(),
            fixes: Vec::new(),
            beyond_node: None,
        })),
        Problem::DoesNotFit(Box::new(DoesNotFit {
            shortfall: weights,
            gpu: "h100-sxm".into(),
            fixes: Vec::new(),
            beyond_node: Some(sim_core::message::BeyondNode { gpus: 16, dtype: "fp8".into(), utilization: 0.9 }),
        })),
        Problem::TraceHeader { header: "a,b".into() },
        Problem::TraceColumns { line: 3 },
        Problem::TraceArrivalNumber { line: 3 },
        Problem::TraceArrival { line: 3, max: 86400.0, got: -1.0 },
        Problem::TraceLength { line: 3, column: Some("input_len") },
        Problem::TraceLength { line: 3, column: None },
        Problem::TracePrefixGroup { line: 4, max: 3, got: Some(7) },
        Problem::TracePrefixGroup { line: 4, max: 99_999, got: None },
        Problem::TracePrefixUnset { line: 2 },
        Problem::TraceSessionId { line: 2 },
        Problem::TraceEmpty,
        Problem::NoRateToScale,
        Problem::SweepEnds { from: 0.0, to: 1.0 },
        Problem::NoClass { class: 3, classes: 1 },
        Problem::DoesNotApply,
        Problem::SpeculativeStatic,
        Problem::SpeculativeWindow { model: "mistral-7b".into() },
        Problem::DisaggStatic,
        Problem::DisaggOvercommit,
        Problem::DisaggReplicas { pools: 3, got: 4 },
        Problem::CannotSwitchOff,
        Problem::WrongKind,
        Problem::UnknownSetting,
        Problem::NotASetting,
        Problem::ExerciseValue,
        Problem::ExerciseLocked { id: "scheduler.max_num_seqs".into() },
        Problem::Parse {
            message: "invalid type: string \"x\", expected u32 at line 3 column 5".into(),
            line: 3,
            column: 5,
        },
        Problem::Parse { message: "invalid type".into(), line: 0, column: 0 },
        Problem::Text("is not a built-in trace".into()),
    ]
}

/// Every message the page can show: each problem at a control, at a class's control, at the
/// whole scenario, at a contract field and at a path without a label; every typed error; the seed.
fn every_message() -> Vec<Msg> {
    let classes = vec!["chat".to_string(), "batch".to_string()];
    let fields = [
        "classes[1].input_tokens.mean",
        "scheduler.max_num_seqs",
        "",
        "slo.ttft_p99_ms",
        "model.num_layers",
        "classes",
        "version",
    ];
    let mut out = Vec::new();
    for p in every_problem() {
        for f in fields {
            out.push(field_message(&FieldError::new(f, p.clone()), &classes));
        }
    }
    let typed = [
        TypedError::Empty,
        TypedError::NotANumber { text: "abc".into() },
        TypedError::DecimalComma { text: "0,9".into(), point: "0.9".into() },
        TypedError::NotFinite { text: "1e999".into() },
        TypedError::NotWhole { text: "2.5".into() },
        TypedError::OutOfRange { got: -1.0 },
    ];
    for e in &typed {
        for unit in ["req/s", ""] {
            out.push(typed_message(e, Arg::Key("setting.rate_per_s.label"), unit, 1e-6, 1e6));
        }
    }
    out.push(messages::seed_message("abc"));
    out
}

#[test]
fn every_message_key_has_both_texts_with_exactly_its_placeholders() {
    let (en, zh) = (table("en"), table("zh"));
    let mut used = BTreeSet::new();
    for m in every_message() {
        for (key, args) in m.keys() {
            used.insert(key.to_string());
            let want: BTreeSet<String> = args.iter().map(|a| a.to_string()).collect();
            for (lang, t) in [("en", &en), ("zh", &zh)] {
                let text = t.get(key).unwrap_or_else(|| panic!("{lang} has no {key}"));
                assert_eq!(placeholders(text), want, "{lang} {key}: {text}");
            }
        }
        // every key an argument names is in both tables too
        fn arg_keys(m: &Msg, out: &mut Vec<String>) {
            for (_, a) in &m.args {
                match a {
                    Arg::Key(k) if !k.contains('/') && k.contains('.') => out.push(k.to_string()),
                    Arg::Label(k) => out.push(k.clone()),
                    Arg::Msg(m) => arg_keys(m, out),
                    Arg::Or(list) => list.iter().for_each(|m| arg_keys(m, out)),
                    _ => {}
                }
            }
        }
        let mut keys = Vec::new();
        arg_keys(&m, &mut keys);
        for k in keys {
            used.insert(k.clone());
            let features = table_features();
            assert!(en.contains_key(&k) || features.0.contains_key(&k), "en has no {k}");
            assert!(zh.contains_key(&k) || features.1.contains_key(&k), "zh has no {k}");
        }
    }
    for k in ["msg.list_sep", "msg.list_last", "msg.or", "msg.kept", "msg.form.comma"] {
        used.insert(k.to_string());
        assert!(en.contains_key(k) && zh.contains_key(k), "{k}");
    }
    // and no msg key is left that nothing raises
    let unused: Vec<&String> = en.keys().filter(|k| k.starts_with("msg.") && !used.contains(*k)).collect();
    assert!(unused.is_empty(), "keys nothing raises: {unused:?}");
    let only_en: Vec<&String> = en.keys().filter(|k| k.starts_with("msg.") && !zh.contains_key(*k)).collect();
    assert!(only_en.is_empty(), "{only_en:?}");
}

fn table_features() -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let read = |lang: &str| {
        let path = format!("{}/../app/i18n/features.{lang}.json", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_str(&std::fs::read_to_string(&path).expect("the table")).expect("JSON")
    };
    (read("en"), read("zh"))
}

/// A message rendered as the page does, in English (keys looked up, lists joined).
fn english(m: &Msg) -> String {
    let en = table("en");
    render(m, &en)
}

fn render(m: &Msg, t: &BTreeMap<String, String>) -> String {
    let look = |k: &str| t.get(k).cloned().unwrap_or_else(|| k.to_string());
    let mut text = look(m.key);
    for (name, arg) in &m.args {
        let v = match arg {
            Arg::Text(s) => s.clone(),
            Arg::Key(k) => look(k),
            Arg::Label(k) => look(k),
            Arg::Msg(inner) => render(inner, t),
            Arg::Or(list) => list.iter().map(|m| render(m, t)).collect::<Vec<_>>().join(&look("msg.or")),
            Arg::List(items) => match items.split_last() {
                Some((last, head)) if !head.is_empty() => {
                    format!("{}{}{last}", head.join(&look("msg.list_sep")), look("msg.list_last"))
                }
                _ => items.join(""),
            },
        };
        text = text.replace(&format!("{{{name}}}"), &v);
    }
    text
}

#[test]
fn a_range_error_names_label_unit_and_a_readable_range() {
    let rate = control("classes.arrival.rate_per_s").unwrap();
    let (min, max) = rate.row().unwrap().number().map(|n| (n.min, n.max)).unwrap();
    let e = FieldError::new("classes[0].arrival.rate_per_s", Problem::Range { min, max, got: -1.0 });
    assert_eq!(english(&field_message(&e, &[])), "Arrival rate must be between 0.000001 and 1,000,000 req/s, got -1");
    // with two classes the class is named
    let names = ["chat".to_string(), "batch".to_string()];
    let e = FieldError::new("classes[1].arrival.rate_per_s", Problem::Range { min, max, got: 2e6 });
    assert_eq!(
        english(&field_message(&e, &names)),
        "Arrival rate (class batch) must be between 0.000001 and 1,000,000 req/s, got 2,000,000"
    );
}

#[test]
fn what_is_typed_and_refused_gets_its_own_message() {
    let rate = control("classes.arrival.rate_per_s").unwrap();
    let range = rate.range().unwrap();
    let s = presets::find("chat-latency-first").unwrap().scenario();
    let allowed = rate.allowed(&s, 0);
    assert_eq!(allowed, (1e-6, 1e6));
    let say = |text: &str| {
        let e = range.read(text, allowed).expect_err(text);
        english(&typed_message(&e, Arg::Key(rate.label), rate.unit, allowed.0, allowed.1))
    };
    let span = "between 0.000001 and 1,000,000 req/s";
    assert_eq!(
        say("0,9"),
        format!("“0,9” has a decimal comma: write a point (0.9). Arrival rate takes a value {span}")
    );
    assert_eq!(say("abc"), format!("“abc” is not a number. Arrival rate takes a value {span}"));
    assert_eq!(say(""), format!("Enter a number for Arrival rate: {span}"));
    assert_eq!(say("1e999"), format!("“1e999” is too large. Arrival rate takes a value {span}"));
    assert_eq!(say("-1"), format!("Arrival rate must be {span}, got -1"));
    assert_eq!(say("2000000"), format!("Arrival rate must be {span}, got 2,000,000"));
    assert_eq!(range.read("0.9", allowed), Ok(0.9));
    assert_eq!(range.read("1,000", allowed), Ok(1000.0));

    // a whole-number control with a range that follows the model (its context)
    let len = control("scheduler.max_model_len").unwrap();
    let allowed = len.allowed(&s, 0);
    let e = len.range().unwrap().read("2.5", allowed).unwrap_err();
    let text = english(&typed_message(&e, Arg::Key(len.label), len.unit, allowed.0, allowed.1));
    assert_eq!(
        text,
        format!("Max context takes whole numbers between 2 and {} tokens, not 2.5", messages::number(allowed.1))
    );
    let seed = english(&messages::seed_message(" abc "));
    assert_eq!(seed, "“abc” is not a seed: enter a whole number from 0 to 18,446,744,073,709,551,615");
}

#[test]
fn the_does_not_fit_message_names_the_page_labels_and_the_cli_keeps_its_english() {
    let mut s = presets::find("chat-latency-first").unwrap().scenario();
    s.gpu_memory_utilization = 0.2;
    let e = Simulation::new(&s).err().expect("does not fit");
    let f = &e.errors[0];
    // the CLI's words, as before the messages became structured
    assert_eq!(
        e.to_string(),
        "does not fit: the KV pool (0.73 GiB, 5942 tokens) cannot hold one sequence of max_model_len 8192 tokens. \
         It would fit with num_gpus = 2, or dtype = fp8, or gpu_memory_utilization ≥ 0.21, or \
         scheduler.max_model_len ≤ 5942"
    );
    let page = english(&field_message(f, &[]));
    assert_eq!(
        page,
        "Does not fit in memory: the KV pool (0.73 GiB, 5,942 tokens) cannot hold one sequence of Max context 8,192 \
         tokens. It would fit with GPUs (tensor parallel) = 2 GPUs, or Precision (weights) = fp8 (1 byte), or Memory \
         utilisation ≥ 0.21, or Max context ≤ 5,942."
    );
    // the weights themselves do not fit
    s.gpu_memory_utilization = 0.1;
    let e = Simulation::new(&s).err().expect("does not fit");
    assert_eq!(
        e.to_string(),
        "does not fit: llama-3-8b in bf16 needs 15.0 GiB for weights (+0.3 GiB activations), but 1 × h100-sxm at \
         gpu_memory_utilization 0.10 gives 8.0 GiB. It would fit with num_gpus = 4, or gpu_memory_utilization ≥ 0.21"
    );
    let page = english(&field_message(&e.errors[0], &[]));
    assert!(page.starts_with("Does not fit in memory: llama-3-8b in bf16 needs 15.0 GiB for its weights"), "{page}");
    assert!(page.contains("1 × NVIDIA H100 SXM5 80GB at Memory utilisation 0.10"), "{page}");
    let zh = render(&field_message(&e.errors[0], &[]), &table("zh"));
    assert!(zh.contains("显存利用率 ≥ 0.21") && zh.starts_with("显存放不下"), "{zh}");
    assert!(!zh.contains("gpu_memory_utilization") && !zh.contains("It would"), "{zh}");
}
