//! A/B mode without the DOM: what differs between run A's and run B's scenarios, named by the
//! editor's controls (their label keys, and the class when there are several), and how a
//! number of B compares with A's: which way it moved and whether that is better or worse by
//! the metric's direction (`sim_core::metric::Metric::better`).

use sim_core::metric::{Direction, Metric};
use sim_core::Scenario;

use crate::controls::CONTROLS;

/// One difference between two scenarios.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Difference {
    /// A control's value: its label key, and the class index for a per-class control of a
    /// scenario with several classes.
    Control { label: &'static str, class: Option<usize> },
    /// A value no control shows: its JSON path (`classes`, `engine.overhead_us`).
    Path(String),
}

/// Where `a` and `b` differ, in the editor's order; values no control shows by their path.
pub fn differences(a: &Scenario, b: &Scenario) -> Vec<Difference> {
    let mut out: Vec<Difference> = Vec::new();
    let push = |d: Difference, out: &mut Vec<Difference>| {
        if !out.contains(&d) {
            out.push(d);
        }
    };
    let classes = a.classes.len().min(b.classes.len());
    let several = a.classes.len().max(b.classes.len()) > 1;
    let mut covered: Vec<String> = Vec::new();
    for c in CONTROLS.iter() {
        let Some(row) = c.row() else { continue };
        let indices: Vec<usize> = if c.per_class() { (0..classes).collect() } else { vec![0] };
        for i in indices {
            let path = row.path_of(i);
            if row.get(a, i) != row.get(b, i) {
                let class = (c.per_class() && several).then_some(i);
                push(Difference::Control { label: c.label, class }, &mut out);
                covered.push(path);
            }
        }
    }
    for path in json_paths(a, b) {
        if path == "name" {
            continue;
        }
        let named = covered.iter().any(|p| under(&path, p));
        if !named {
            // a part of a control's value the control does not read (a length's sigma when
            // the control shows the mean): name the control that holds it
            let holder = CONTROLS.iter().find_map(|c| {
                let row = c.row()?;
                let n = if c.per_class() { classes } else { 1 };
                (0..n).find(|&i| under(&path, &row.path_of(i))).map(|i| (c, i))
            });
            match holder {
                Some((c, i)) => {
                    let class = (c.per_class() && several).then_some(i);
                    push(Difference::Control { label: c.label, class }, &mut out);
                }
                None => push(Difference::Path(path), &mut out),
            }
        }
    }
    out
}

/// `path` is `prefix` or inside it.
fn under(path: &str, prefix: &str) -> bool {
    path == prefix || path.strip_prefix(prefix).is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
}

/// JSON paths of the values where two scenarios differ (`scheduler.batching`,
/// `classes[0].arrival.rate_per_s`; arrays of different lengths by the array's path).
pub fn json_paths(a: &Scenario, b: &Scenario) -> Vec<String> {
    let (Ok(va), Ok(vb)) = (serde_json::to_value(a), serde_json::to_value(b)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    diff_values(&va, &vb, String::new(), &mut out);
    out
}

fn diff_values(a: &serde_json::Value, b: &serde_json::Value, path: String, out: &mut Vec<String>) {
    use serde_json::Value;
    if a == b {
        return;
    }
    match (a, b) {
        (Value::Object(ma), Value::Object(mb)) => {
            let mut keys: Vec<&String> = ma.keys().chain(mb.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                diff_values(ma.get(k).unwrap_or(&Value::Null), mb.get(k).unwrap_or(&Value::Null), p, out);
            }
        }
        (Value::Array(xa), Value::Array(xb)) if xa.len() == xb.len() => {
            for (i, (x, y)) in xa.iter().zip(xb).enumerate() {
                diff_values(x, y, format!("{path}[{i}]"), out);
            }
        }
        _ => out.push(path),
    }
}

/// Which way B's number moved from A's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrow {
    Up,
    Down,
    Same,
}

/// Whether the move is good for the learner by the metric's direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Better,
    Worse,
    /// No move, or a number where neither way is better.
    Neutral,
}

/// B against A for one number.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Change {
    pub arrow: Arrow,
    pub verdict: Verdict,
    /// B ÷ A − 1 (`None` when A is 0).
    pub relative: Option<f64>,
}

impl Change {
    /// How the page marks it: its arrow and verdict as data attributes (`up`, `better`) and its
    /// words for a screen reader (a translation key).
    pub fn mark(&self) -> (&'static str, &'static str, &'static str) {
        let arrow = match self.arrow {
            Arrow::Up => "up",
            Arrow::Down => "down",
            Arrow::Same => "same",
        };
        let (verdict, words) = match self.verdict {
            Verdict::Better => ("better", "ui.ab.better"),
            Verdict::Worse => ("worse", "ui.ab.worse"),
            Verdict::Neutral if self.arrow == Arrow::Same => ("neutral", "ui.ab.same"),
            Verdict::Neutral => ("neutral", "ui.ab.moved"),
        };
        (arrow, verdict, words)
    }
}

/// Moves smaller than this share of the larger number count as the same.
pub const SAME_WITHIN: f64 = 0.005;

/// How `b` compares with `a` for a number whose better way is `better`.
pub fn change(better: Option<Direction>, a: f64, b: f64) -> Change {
    let scale = a.abs().max(b.abs());
    let arrow = if !(a.is_finite() && b.is_finite()) || (b - a).abs() <= SAME_WITHIN * scale {
        Arrow::Same
    } else if b > a {
        Arrow::Up
    } else {
        Arrow::Down
    };
    let verdict = match (arrow, better) {
        (Arrow::Same, _) | (_, None) => Verdict::Neutral,
        (Arrow::Up, Some(Direction::Max)) | (Arrow::Down, Some(Direction::Min)) => Verdict::Better,
        _ => Verdict::Worse,
    };
    let relative = (a != 0.0 && a.is_finite() && b.is_finite()).then(|| b / a - 1.0);
    Change { arrow, verdict, relative }
}

/// `change` for metric `m`.
pub fn compare(m: Metric, a: f64, b: f64) -> Change {
    change(m.better(), a, b)
}

/// The relative move as the page shows it beside the arrow: "+12 %", "−40 %", "×3.2" for
/// more than tripling; "" when there is no ratio or no move.
pub fn relative_text(c: &Change) -> String {
    match (c.arrow, c.relative) {
        (Arrow::Same, _) | (_, None) => String::new(),
        (_, Some(r)) if r >= 2.0 => format!("×{}", crate::format::plain(((r + 1.0) * 10.0).round() / 10.0)),
        (_, Some(r)) => {
            let pct = (r * 100.0).abs();
            let digits = if pct < 10.0 { 1 } else { 0 };
            let sign = if r > 0.0 { "+" } else { "−" };
            format!("{sign}{pct:.digits$} %")
        }
    }
}

/// Ready-made fair comparisons: the button's label key, then the presets of A and B.
pub const PAIRS: [(&str, &str, &str); 2] = [
    ("panels.pair_batching", "static-batching", "continuous-batching"),
    ("panels.pair_isolation", "mixed-shared", "mixed-isolated"),
];

/// What run B's heading says of B against A: the same, or where it differs (each control by its
/// label, which `label` words, with the class's name in brackets for a per-class control of
/// several classes; a value no control shows by its path): a key and its values.
pub fn diff_text(
    a: &Scenario,
    b: &Scenario,
    label: &dyn Fn(&'static str) -> String,
) -> (&'static str, Vec<(&'static str, String)>) {
    let words: Vec<String> = differences(a, b)
        .into_iter()
        .map(|d| match d {
            Difference::Control { label: key, class: Some(i) } => {
                format!("{} ({})", label(key), b.classes.get(i).map_or("", |c| c.name.as_str()))
            }
            Difference::Control { label: key, class: None } => label(key),
            Difference::Path(p) => p,
        })
        .collect();
    if words.is_empty() {
        ("panels.same_as_a", Vec::new())
    } else {
        ("panels.differs", vec![("fields", words.join(", "))])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::metric::{Latency, Stat};
    use sim_core::settings::{self, Value};

    fn preset(id: &str) -> Scenario {
        Scenario::from_json(sim_core::presets::find(id).expect("preset").json).expect("valid")
    }

    #[test]
    fn lower_latency_is_better_higher_goodput_is_better() {
        let p99 = Metric::Latency(Latency::Ttft, Stat::P99);
        let c = compare(p99, 200.0, 100.0);
        assert_eq!((c.arrow, c.verdict), (Arrow::Down, Verdict::Better));
        assert_eq!(relative_text(&c), "−50 %");
        let c = compare(Metric::GoodputTokens, 100.0, 400.0);
        assert_eq!((c.arrow, c.verdict), (Arrow::Up, Verdict::Better));
        assert_eq!(relative_text(&c), "×4");
        let c = compare(Metric::UsdPerMillionGoodTokens, 1.0, 1.2);
        assert_eq!((c.arrow, c.verdict), (Arrow::Up, Verdict::Worse));
        assert_eq!(relative_text(&c), "+20 %");
        // arrivals are neither better nor worse
        assert_eq!(compare(Metric::Requests(sim_core::metric::Count::Arrived), 10.0, 20.0).verdict, Verdict::Neutral);
        assert_eq!(
            compare(Metric::Requests(sim_core::metric::Count::Arrived), 10.0, 20.0).mark(),
            ("up", "neutral", "ui.ab.moved")
        );
        assert_eq!(compare(p99, 200.0, 100.0).mark(), ("down", "better", "ui.ab.better"));
        assert_eq!(compare(p99, 100.0, 100.0).mark(), ("same", "neutral", "ui.ab.same"));
        assert_eq!(compare(Metric::GoodputTokens, 100.0, 50.0).mark(), ("down", "worse", "ui.ab.worse"));
        // a tiny move is no move; nothing against zero has no ratio
        assert_eq!(compare(p99, 100.0, 100.2).arrow, Arrow::Same);
        let z = compare(Metric::SloAttainment, 0.0, 0.5);
        assert_eq!((z.arrow, z.verdict, z.relative), (Arrow::Up, Verdict::Better, None));
        assert_eq!(relative_text(&z), "");
        assert_eq!(compare(p99, f64::NAN, 3.0).arrow, Arrow::Same);
    }

    #[test]
    fn every_latency_and_cost_is_lower_better_every_rate_higher_better() {
        for m in Metric::all() {
            let name = m.name();
            let want = if name.ends_with(".count") || name.starts_with("memory.") {
                None
            } else if name.contains("_ms") || name.starts_with("cost.") || name == "error_rate" {
                Some(Direction::Min)
            } else if name.starts_with("throughput.") || name.starts_with("goodput.") {
                Some(Direction::Max)
            } else {
                continue;
            };
            let got = if name.starts_with("memory.") && m.better().is_some() {
                // the KV waste is a memory number where less is better
                assert_eq!(name, "memory.kv_waste_mean");
                continue;
            } else {
                m.better()
            };
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn differences_are_named_by_control_labels() {
        let a = preset("static-batching");
        let b = preset("continuous-batching");
        let d = differences(&a, &b);
        assert!(
            d.contains(&Difference::Control { label: "setting.batching.label", class: None }),
            "batching named by its label: {d:?}"
        );
        assert!(d.iter().all(|x| !matches!(x, Difference::Path(p) if p.starts_with("scheduler."))), "{d:?}");
        assert!(differences(&a, &a).is_empty());

        // one class's rate in a two-class scenario names the class
        let mut x = preset("mixed-shared");
        let mut y = x.clone();
        settings::set(&mut y, "rate_per_s", 1, &Value::Number(3.25)).expect("settable");
        let d = differences(&x, &y);
        assert_eq!(d, vec![Difference::Control { label: "setting.rate_per_s.label", class: Some(1) }]);
        // a value no control shows is named by its path
        y = x.clone();
        y.classes.push(y.classes[0].clone());
        y.classes[2].name = "third".into();
        assert_eq!(differences(&x, &y), vec![Difference::Path("classes".into())]);
        x.name = Some("renamed".into());
        assert!(differences(&x, &preset("mixed-shared")).is_empty(), "the name is not a difference");
    }

    #[test]
    fn bs_heading_names_what_differs_from_a() {
        let key = |k: &'static str| format!("<{k}>");
        let a = preset("mixed-shared");
        assert_eq!(diff_text(&a, &a, &key), ("panels.same_as_a", vec![]));
        let mut b = a.clone();
        b.seed += 1;
        let (k, args) = diff_text(&a, &b, &key);
        assert_eq!(k, "panels.differs");
        assert_eq!(args, [("fields", "seed".to_string())]);
        b.scheduler.max_num_seqs += 1;
        let (_, args) = diff_text(&a, &b, &key);
        assert_eq!(args, [("fields", "<setting.max_num_seqs.label>, seed".to_string())]);
        let mut b = a.clone();
        b.classes[1].priority += 1;
        let (_, args) = diff_text(&a, &b, &key);
        assert!(args[0].1.ends_with(&format!("> ({})", b.classes[1].name)), "{args:?}");
        for (label, x, y) in PAIRS {
            assert!(label.starts_with("panels.pair_"));
            assert!(sim_core::presets::find(x).is_some() && sim_core::presets::find(y).is_some(), "{x} {y}");
        }
    }
}
