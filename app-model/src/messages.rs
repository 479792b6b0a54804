//! sim-core's problems, and what the page's own forms refuse, as messages the page words in its
//! language: a [`Msg`] is a translation key (`msg.range`, …) with its placeholders' values. A
//! value is text (numbers formatted here), a key the page translates (a control's label, a
//! unit), a nested message, or a list. Settings are named by the labels the editor shows
//! (`control_table`), never by JSON paths, where the page has a label for them; numbers are
//! formatted for people (`1,000,000`, `0.000001`).
//!
//! serde's messages on a malformed file ([`Problem::Parse`]) stay English inside a translated
//! frame ("第 3 行第 5 列：…"), and so do messages from outside sim-core ([`Problem::Text`]).
//! `tests/messages.rs` checks that both tables hold every key with exactly its placeholders.

use sim_core::memory::{Bound, Fix};
use sim_core::message::{CannotStart, DoesNotFit, Shortfall};
use sim_core::scenario::FieldError;
use sim_core::settings::{self, Value};
use sim_core::Problem;

use crate::control_table::{control, CONTROLS};
use crate::controls::{plain_path, Kind, Options, TypedError};
use crate::format;

/// A message: a translation key and its placeholders' values.
#[derive(Clone, Debug, PartialEq)]
pub struct Msg {
    pub key: &'static str,
    pub args: Vec<(&'static str, Arg)>,
}

/// A placeholder's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// Shown as it is (a formatted number, a model id, a name).
    Text(String),
    /// A translation key (a label, a unit); a unit symbol such as `ms` is its own text.
    Key(&'static str),
    /// A translation key made at run time (a contract field's label).
    Label(String),
    /// A message inside a message.
    Msg(Box<Msg>),
    /// Messages joined with `msg.or` ("A, or B").
    Or(Vec<Msg>),
    /// Values joined as a list: "1, 2, 4 or 8" (`msg.list_sep`, `msg.list_last`).
    List(Vec<String>),
}

impl Msg {
    pub fn new(key: &'static str) -> Msg {
        Msg { key, args: Vec::new() }
    }

    fn with(mut self, name: &'static str, arg: Arg) -> Msg {
        self.args.push((name, arg));
        self
    }

    fn text(self, name: &'static str, t: impl Into<String>) -> Msg {
        self.with(name, Arg::Text(t.into()))
    }

    fn num(self, name: &'static str, x: f64) -> Msg {
        self.text(name, number(x))
    }

    fn msg(self, name: &'static str, m: Msg) -> Msg {
        self.with(name, Arg::Msg(Box::new(m)))
    }

    /// Every key this message and the ones inside it use, with the placeholders each fills.
    pub fn keys(&self) -> Vec<(&'static str, Vec<&'static str>)> {
        let mut out = vec![(self.key, self.args.iter().map(|(n, _)| *n).collect())];
        for (_, a) in &self.args {
            match a {
                Arg::Msg(m) => out.extend(m.keys()),
                Arg::Or(list) => list.iter().for_each(|m| out.extend(m.keys())),
                _ => {}
            }
        }
        out
    }
}

/// A number for people: whole numbers with thousands separators (`1,000,000`), others with up
/// to six decimals and no trailing zeros (`0.000001`, `0.9`).
/// Fills `{name}` placeholders of a translated template from `args`; a name not in `args` stays
/// as written (`{name}`), and so does an unclosed brace.
pub fn fill(template: &str, args: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let name = &after[..close];
        match args.iter().find(|(n, _)| *n == name) {
            Some((_, v)) => out.push_str(v),
            None => {
                out.push('{');
                out.push_str(name);
                out.push('}');
            }
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

/// A list in words: `a, b and c` with the language's separators (`sep` between, `last` before
/// the last); one item alone, nothing for none.
pub fn list_words(items: &[String], sep: &str, last: &str) -> String {
    match items.split_last() {
        Some((tail, head)) if !head.is_empty() => format!("{}{last}{tail}", head.join(sep)),
        _ => items.join(""),
    }
}

pub fn number(x: f64) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "NaN".into()
        } else if x > 0.0 {
            "∞".into()
        } else {
            "−∞".into()
        };
    }
    let sign = if x < 0.0 { "-" } else { "" };
    let a = x.abs();
    if a >= 1e15 {
        return format!("{x:e}");
    }
    let whole = a.trunc();
    let frac = format::plain(a - whole);
    let int = format::int(whole as u64);
    match frac.strip_prefix('0') {
        Some(rest) if rest.starts_with('.') => format!("{sign}{int}{rest}"),
        // the fraction rounded up to 1 (x.9999999): plain's rounding of the whole value
        Some(_) | None if frac == "1" => format!("{sign}{}", format::int(whole as u64 + 1)),
        _ => format!("{sign}{int}"),
    }
}

/// The label of the control at scenario path `field` (`classes[1].arrival.rate_per_s`), with
/// its class's name when the scenario has more than one (`class_names`), and its unit (a key or
/// a symbol; "" for none). `None` for a path no control shows.
pub fn control_at(field: &str, class_names: &[String]) -> Option<(Arg, &'static str)> {
    let path = field.strip_prefix("workload.").unwrap_or(field);
    let plain = plain_path(path);
    let ctl = control(&plain);
    let label = match (ctl, plain.as_str()) {
        (Some(c), _) => Arg::Key(c.label),
        (None, "classes.name") => Arg::Key("setting.class_name.label"),
        (None, "seed") => Arg::Key("toolbar.seed"),
        _ => return None,
    };
    let label = match (plain.strip_prefix("classes.input_tokens."), plain.strip_prefix("classes.output_tokens.")) {
        (Some(_), _) => Arg::Msg(Box::new(
            Msg::new("msg.part").with("part", Arg::Key("setting.input_tokens_kind.label")).with("label", label),
        )),
        (_, Some(_)) => Arg::Msg(Box::new(
            Msg::new("msg.part").with("part", Arg::Key("setting.output_tokens_kind.label")).with("label", label),
        )),
        _ => label,
    };
    let label = match class_of(path) {
        Some(i) if class_names.len() > 1 => {
            let name = class_names.get(i).cloned().unwrap_or_else(|| (i + 1).to_string());
            Arg::Msg(Box::new(Msg::new("msg.in_class").with("label", label).text("class", name)))
        }
        _ => label,
    };
    Some((label, ctl.map_or("", |c| c.unit)))
}

/// The class index of a path (`classes[2].…` → 2).
fn class_of(path: &str) -> Option<usize> {
    let rest = path.strip_prefix("classes[")?;
    rest[..rest.find(']')?].parse().ok()
}

/// The label of a setting of sim-core's table by its id (`gpu_memory_utilization`), as the
/// editor shows it.
fn setting_label(id: &str) -> Arg {
    CONTROLS
        .iter()
        .find(|c| c.setting == id)
        .map_or_else(|| Arg::Text(settings::find(id).map_or(id, |r| r.path).to_string()), |c| Arg::Key(c.label))
}

/// "between 1 and 4,096 tokens" (the unit left out when there is none).
pub fn between(min: f64, max: f64, unit: &'static str) -> Msg {
    let m = Msg::new(if unit.is_empty() { "msg.between_plain" } else { "msg.between" }).num("min", min).num("max", max);
    if unit.is_empty() {
        m
    } else {
        m.with("unit", Arg::Key(unit))
    }
}

/// A field's problem as the page says it: the setting named by its label (or its path when the
/// page has none), in its language.
pub fn field_message(e: &FieldError, class_names: &[String]) -> Msg {
    let (label, unit) = match control_at(&e.field, class_names) {
        Some(found) => found,
        None if e.field.is_empty() => (Arg::Text(String::new()), ""),
        None => (field_label(&e.field), ""),
    };
    problem_message(&e.problem, label, unit)
}

/// A label for a path no control shows: the contract form's fields, a few whole-scenario ones,
/// else the path itself.
fn field_label(field: &str) -> Arg {
    if let Some(f) = crate::tabs::contract::fields::Field::find(field) {
        return Arg::Label(f.label_key());
    }
    match field {
        "classes" => Arg::Key("msg.label.classes"),
        "version" => Arg::Key("msg.label.version"),
        _ => Arg::Text(field.to_string()),
    }
}

/// A problem said of the setting `label` (with unit `unit`).
pub fn problem_message(p: &Problem, label: Arg, unit: &'static str) -> Msg {
    let of = |key| Msg::new(key).with("label", label.clone());
    match p {
        Problem::Range { min, max, got } => of("msg.range").msg("between", between(*min, *max, unit)).num("got", *got),
        Problem::OneOf { choices, got } => {
            of("msg.one_of").with("choices", Arg::List(choices.iter().map(|c| number(*c)).collect())).num("got", *got)
        }
        Problem::NotFinite { .. } => of("msg.not_finite"),
        Problem::NotWhole { got } => of("msg.not_whole").num("got", *got),
        Problem::NotListed { options, got } => {
            of("msg.not_listed").with("options", Arg::List(options.clone())).text("got", got.clone())
        }
        Problem::Version { expected, got } => {
            of("msg.version").text("expected", expected.to_string()).text("got", got.to_string())
        }
        Problem::Fp8Unsupported { gpu } => of("msg.fp8_unsupported").text("gpu", gpu_name(gpu)),
        Problem::BatchBelowContext { max_model_len, got } => of("msg.batch_below_context")
            .with("context", setting_label("max_model_len"))
            .num("length", f64::from(*max_model_len))
            .with("chunked", setting_label("chunked_prefill"))
            .num("got", f64::from(*got)),
        Problem::ClassCount { got } => Msg::new("msg.class_count").num("got", *got as f64),
        Problem::NameLength => of("msg.name_length"),
        Problem::NameTaken { name } => of("msg.name_taken").text("name", name.clone()),
        Problem::NoTracePath => of("msg.no_trace_path"),
        Problem::GivenByTrace => of("msg.given_by_trace"),
        Problem::Required { range: Some((lo, hi)) } => of("msg.required_range").msg("between", between(*lo, *hi, unit)),
        Problem::Required { range: None } => of("msg.required"),
        Problem::SharesOverOne { sum } => Msg::new("msg.shares_over_one")
            .with("label", setting_label("reserved_share"))
            .text("sum", format!("{sum:.3}")),
        Problem::ParamsTooSmall => of("msg.params_too_small"),
        Problem::CannotStart(c) => cannot_start(c),
        Problem::DoesNotFit(d) => does_not_fit(d),
        Problem::TraceHeader { header } => of("msg.trace_header").text("header", header.clone()),
        Problem::TraceColumns { line } => of("msg.trace_columns").num("line", *line as f64),
        Problem::TraceArrivalNumber { line } => of("msg.trace_arrival_number").num("line", *line as f64),
        Problem::TraceArrival { line, max, got } => {
            of("msg.trace_arrival").num("line", *line as f64).num("max", *max).num("got", *got)
        }
        Problem::TraceLength { line, .. } => of("msg.trace_length").num("line", *line as f64),
        Problem::TracePrefixGroup { line, max, got: Some(g) } => {
            of("msg.trace_prefix_group").num("line", *line as f64).num("max", *max as f64).num("got", *g as f64)
        }
        Problem::TracePrefixGroup { line, max, got: None } => {
            of("msg.trace_prefix_group_whole").num("line", *line as f64).num("max", *max as f64)
        }
        Problem::TracePrefixUnset { line } => of("msg.trace_prefix_unset").num("line", *line as f64),
        Problem::TraceSessionId { line } => of("msg.trace_session_id").num("line", *line as f64),
        Problem::TraceEmpty => of("msg.trace_empty"),
        Problem::NoRateToScale => Msg::new("msg.no_rate_to_scale"),
        Problem::SweepEnds { .. } => Msg::new("msg.sweep_ends"),
        Problem::NoClass { class, classes } => {
            of("msg.no_class").num("class", *class as f64 + 1.0).num("classes", *classes as f64)
        }
        Problem::DoesNotApply => of("msg.does_not_apply"),
        Problem::SpeculativeStatic => of("msg.speculative_static"),
        Problem::SpeculativeWindow { model } => of("msg.speculative_window").text("model", model),
        Problem::DisaggStatic => of("msg.disagg_static"),
        Problem::DisaggOvercommit => of("msg.disagg_overcommit"),
        Problem::DisaggReplicas { pools, got } => {
            of("msg.disagg_replicas").num("pools", *pools as f64).num("got", *got as f64)
        }
        Problem::CannotSwitchOff => of("msg.cannot_switch_off"),
        Problem::WrongKind | Problem::ExerciseValue => of("msg.wrong_kind"),
        Problem::UnknownSetting | Problem::NotASetting => of("msg.unknown_setting"),
        Problem::ExerciseLocked { id } => {
            let locked = control(id).map_or_else(|| Arg::Text(id.clone()), |c| Arg::Key(c.label));
            of("msg.exercise_locked").with("locked", locked)
        }
        Problem::Parse { message, line, column } if *line > 0 => {
            // serde's own words, without the position it appends (the frame says it)
            let suffix = format!(" at line {line} column {column}");
            let text = message.strip_suffix(&suffix).unwrap_or(message);
            let at = match &label {
                Arg::Text(l) if l.is_empty() => Msg::new("msg.parse_at"),
                _ => of("msg.parse_at_field"),
            };
            at.num("line", *line as f64).num("column", *column as f64).text("message", text)
        }
        Problem::Parse { message, .. } => match &label {
            Arg::Text(l) if l.is_empty() => Msg::new("msg.parse").text("message", message.clone()),
            _ => of("msg.text").text("message", message.clone()),
        },
        Problem::Text(t) => match &label {
            Arg::Text(l) if l.is_empty() => Msg::new("msg.parse").text("message", t.clone()),
            _ => of("msg.text").text("message", t.clone()),
        },
    }
}

/// A GPU's name from the catalogue (its id when it has none).
fn gpu_name(id: &str) -> String {
    sim_core::catalog::find_gpu(id).map(|g| g.name).filter(|n| !n.is_empty()).unwrap_or_else(|| id.to_string())
}

fn gib(x: f64, decimals: usize) -> String {
    format!("{x:.decimals$}")
}

fn cannot_start(c: &CannotStart) -> Msg {
    let util = setting_label("gpu_memory_utilization");
    let m = Msg::new(if c.other_gib > 0.0 { "msg.cannot_start_other" } else { "msg.cannot_start" })
        .with("util_label", util)
        .text("util", format!("{:.2}", c.utilization))
        .text("headroom", gib(c.headroom_gib, 2))
        .text("runtime", gib(c.runtime_gib, 2))
        .text("max_util", format!("{:.2}", c.max_utilization));
    if c.other_gib > 0.0 {
        m.with("other_label", setting_label("other_process_gib"))
            .text("other", gib(c.other_gib, 2))
            .text("max_other", gib(c.max_other_gib, 2))
    } else {
        m
    }
}

fn does_not_fit(d: &DoesNotFit) -> Msg {
    let why = match &d.shortfall {
        Shortfall::Weights { model, dtype, weights_gib, activation_gib, num_gpus, utilization, budget_gib } => {
            Msg::new("msg.short_weights")
                .text("model", model.clone())
                .text("dtype", dtype.clone())
                .text("weights", gib(*weights_gib, 1))
                .text("activations", gib(*activation_gib, 1))
                .num("gpus", f64::from(*num_gpus))
                .text("gpu", gpu_name(&d.gpu))
                .with("util_label", setting_label("gpu_memory_utilization"))
                .text("util", format!("{utilization:.2}"))
                .text("budget", gib(*budget_gib, 1))
        }
        Shortfall::KvPool { kv_gib, kv_tokens, max_model_len } => Msg::new("msg.short_kv")
            .text("kv", gib(*kv_gib, 2))
            .num("tokens", *kv_tokens as f64)
            .with("len_label", setting_label("max_model_len"))
            .num("length", f64::from(*max_model_len)),
    };
    if let (true, Some(b)) = (d.fixes.is_empty(), &d.beyond_node) {
        Msg::new("msg.does_not_fit_nodes")
            .msg("why", why)
            .text("gpu", gpu_name(&d.gpu))
            .num("gpus", f64::from(b.gpus))
            .text("dtype", b.dtype.clone())
            .with("util_label", setting_label("gpu_memory_utilization"))
            .text("util", format!("{:.2}", b.utilization))
    } else if d.fixes.is_empty() {
        Msg::new("msg.does_not_fit_none").msg("why", why).text("gpu", gpu_name(&d.gpu))
    } else {
        Msg::new("msg.does_not_fit").msg("why", why).with("fixes", Arg::Or(d.fixes.iter().map(fix_message).collect()))
    }
}

/// "Memory utilisation ≥ 0.22", "Precision (weights) = fp8 (1 byte)": a fix named by the
/// control's label and shown as the control shows the value.
pub fn fix_message(f: &Fix) -> Msg {
    let op = match (f.bound, f.setting) {
        (_, "num_gpus" | "prefill_num_gpus" | "decode_num_gpus") | (Bound::Exactly, _) => "=",
        (Bound::AtLeast, _) => "≥",
        (Bound::AtMost, _) => "≤",
    };
    Msg::new("msg.fix")
        .with("label", setting_label(f.setting))
        .text("op", op)
        .with("value", value_arg(f.setting, &f.value))
}

/// A setting's value as its control shows it: a drop-down's option text, a number formatted.
pub fn value_arg(setting: &str, v: &Value) -> Arg {
    let text = match v {
        Value::Number(x) => number(*x),
        Value::Text(t) => t.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Off => String::new(),
    };
    let option = CONTROLS.iter().find(|c| c.setting == setting).and_then(|c| match c.kind {
        Kind::Select(Options::Keys(list)) => list.iter().find(|(v, _)| *v == text).map(|(_, k)| *k),
        _ => None,
    });
    option.map_or(Arg::Text(text), Arg::Key)
}

/// What was typed into a number box and refused, said with the control's label, unit and
/// allowed range.
pub fn typed_message(e: &TypedError, label: Arg, unit: &'static str, min: f64, max: f64) -> Msg {
    let range = between(min, max, unit);
    let of = |key| Msg::new(key).with("label", label.clone()).msg("between", range.clone());
    match e {
        TypedError::Empty => of("msg.typed.empty"),
        TypedError::NotANumber { text } => of("msg.typed.number").text("text", text.clone()),
        TypedError::DecimalComma { text, point } => {
            of("msg.typed.comma").text("text", text.clone()).text("point", point.clone())
        }
        TypedError::NotFinite { text } => of("msg.typed.finite").text("text", text.clone()),
        TypedError::NotWhole { text } => of("msg.typed.whole").text("text", text.clone()),
        TypedError::OutOfRange { got } => problem_message(&Problem::Range { min, max, got: *got }, label, unit),
    }
}

/// The seed box's message: what was typed is not a seed (a whole number 0 ..= 2^64 − 1).
pub fn seed_message(text: &str) -> Msg {
    Msg::new("msg.seed").text("text", text.trim()).text("max", format::int(u64::MAX))
}

/// A run's configuration-error banner: the messages about the scenario as a whole (said big)
/// apart from those about one field (listed), and the banner's title.
pub struct Banner<'a> {
    pub whole: Vec<&'a FieldError>,
    pub fields: Vec<&'a FieldError>,
}

impl Banner<'_> {
    pub fn of(e: &sim_core::ScenarioError) -> Banner<'_> {
        let (whole, fields) = e.errors.iter().partition(|e| e.field.is_empty());
        Banner { whole, fields }
    }

    /// The title's key and values: the scenario cannot run, or how many fields need a change.
    pub fn title(&self) -> (&'static str, Vec<(&'static str, String)>) {
        match (self.whole.is_empty(), self.fields.len()) {
            (false, _) => ("panels.err_cannot_run", Vec::new()),
            (true, 1) => ("panels.err_fields_one", vec![("n", "1".into())]),
            (true, n) => ("panels.err_fields", vec![("n", n.to_string())]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_for_people() {
        assert_eq!(number(1e6), "1,000,000");
        assert_eq!(number(0.000001), "0.000001");
        assert_eq!(number(0.9), "0.9");
        assert_eq!(number(4096.0), "4,096");
        assert_eq!(number(1234.5), "1,234.5");
        assert_eq!(number(-1.0), "-1");
        assert_eq!(number(0.0), "0");
        assert_eq!(number(f64::INFINITY), "∞");
    }

    #[test]
    fn a_field_is_named_by_its_label_and_class() {
        let names = vec!["chat".to_string(), "batch".to_string()];
        let (label, unit) = control_at("classes[1].arrival.rate_per_s", &names).unwrap();
        assert_eq!(unit, "req/s");
        let Arg::Msg(m) = label else { panic!("{label:?}") };
        assert_eq!(m.key, "msg.in_class");
        assert_eq!(m.args[1], ("class", Arg::Text("batch".into())));
        let (label, _) = control_at("classes[0].arrival.rate_per_s", &names[..1]).unwrap();
        assert_eq!(label, Arg::Key("setting.rate_per_s.label"));
        let (label, _) = control_at("workload.scheduler.max_num_seqs", &[]).unwrap();
        assert_eq!(label, Arg::Key("setting.max_num_seqs.label"));
    }
    #[test]
    fn the_banner_says_the_scenario_or_how_many_fields() {
        let preset = sim_core::presets::find("chat-latency-first").unwrap();
        let mut s = sim_core::Scenario::from_json(preset.json).unwrap();
        s.scheduler.max_num_seqs = 0;
        s.classes[0].arrival = sim_core::scenario::Arrival::Poisson { rate_per_s: -1.0 };
        let e = s.validate().unwrap_err();
        let b = Banner::of(&e);
        assert_eq!((b.whole.len(), b.fields.len()), (0, e.errors.len()));
        assert!(e.errors.len() >= 2);
        assert_eq!(b.title(), ("panels.err_fields", vec![("n", e.errors.len().to_string())]));
        let one = Banner { whole: vec![], fields: b.fields[..1].to_vec() };
        assert_eq!(one.title().0, "panels.err_fields_one");
        let whole = FieldError { field: String::new(), ..e.errors[0].clone() };
        let mixed = Banner { whole: vec![&whole], fields: b.fields.clone() };
        assert_eq!(mixed.title(), ("panels.err_cannot_run", vec![]));
    }
}

#[cfg(test)]
mod fill_tests {
    use super::{fill, list_words};

    #[test]
    fn fill_puts_values_in_and_keeps_unknown_names_and_open_braces() {
        let args = [("n", "3".to_string()), ("total", "7".to_string())];
        assert_eq!(fill("step {n} of {total}", &args), "step 3 of 7");
        assert_eq!(fill("{n}{n}", &args), "33");
        assert_eq!(fill("keep {other} here", &args), "keep {other} here");
        assert_eq!(fill("open { brace", &args), "open { brace");
        assert_eq!(fill("no placeholders", &[]), "no placeholders");
    }

    #[test]
    fn lists_join_with_the_last_separator() {
        let words = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(list_words(&words(&["a", "b", "c"]), ", ", " and "), "a, b and c");
        assert_eq!(list_words(&words(&["a", "b"]), ", ", " and "), "a and b");
        assert_eq!(list_words(&words(&["a"]), ", ", " and "), "a");
        assert_eq!(list_words(&[], ", ", " and "), "");
    }
}
