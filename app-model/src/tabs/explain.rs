//! A lesson's explanation as text: the numbers of an outcome formatted as its sentences quote
//! them, the sentences joined, the page elements its highlight points at, the outcome as the
//! browser tests read it, and the safe-zone lesson's runs as sweep points.

use lab_content::lessons::{self as core, Outcome, SAFE_ZONE_RATES};
use lab_content::sweep::SweepPoint;
use sim_core::metric::{Count, Latency, Metric, Stat};
use sim_core::metrics::Summary;

use crate::format;
use crate::words::Words;

/// A number of an outcome as an explanation quotes it, formatted by the name's suffix: `_ms` a
/// plain number of milliseconds ("1,848"), `_gib` one decimal, attainment, waste and hit rates
/// as percentages, goodput and throughput whole tokens/s, `usd_*` three decimals, ratios and
/// growth factors one decimal, counts whole.
pub fn format_number(name: &str, v: f64) -> String {
    if !v.is_finite() {
        return format::NONE.to_string();
    }
    if name.ends_with("_ms") {
        if v >= 100.0 {
            format::int(v.round() as u64)
        } else if v >= 10.0 {
            format!("{v:.1}")
        } else {
            format!("{v:.2}")
        }
    } else if name.ends_with("_gib") {
        format!("{v:.1}")
    } else if name.contains("attainment") || name.contains("waste") || name.contains("hit_rate") {
        format::pct(v)
    } else if name.contains("goodput") || name.contains("throughput") {
        format::int(v.max(0.0).round() as u64)
    } else if name.starts_with("usd_") {
        format!("{v:.3}")
    } else if name == "ratio" || name.ends_with("_growth") {
        format!("{v:.1}")
    } else if v.fract() == 0.0 && v >= 0.0 {
        format::int(v as u64)
    } else {
        format::rate(v)
    }
}

/// The placeholders an outcome's sentences fill: each number by its name, formatted.
pub fn outcome_args(o: &Outcome) -> Vec<(&'static str, String)> {
    o.numbers.iter().map(|(k, v)| (*k, format_number(k, *v))).collect()
}

/// Translation key of sentence `say` of lesson `id`.
pub fn sentence_key(id: &str, say: &str) -> String {
    format!("lesson.{id}.say.{say}")
}

/// Sentences as one paragraph: a space between them, none after a full-width stop (Chinese runs
/// The explanation in the page's words: the sentences the outcome says, each filled with the
/// runs' numbers, joined.
pub fn explanation(w: &dyn Words, id: &str, o: &Outcome) -> String {
    let args = outcome_args(o);
    join_sentences(o.sentences.iter().map(|s| w.tf(&sentence_key(id, s), &args)))
}

/// on).
pub fn join_sentences(sentences: impl IntoIterator<Item = String>) -> String {
    let mut out = String::new();
    for s in sentences {
        if !out.is_empty() && !out.ends_with(['。', '！', '？', '：', '；', '）']) {
            out.push(' ');
        }
        out.push_str(&s);
    }
    out
}

/// Elements of the lab a highlight key points at: a selector and, optionally, the ancestor to
/// mark.
pub fn highlight_targets(key: &str) -> &'static [(&'static str, Option<&'static str>)] {
    match key {
        "ttft.p99" => &[("[data-testid=\"metric-ttft-p99\"]", None)],
        "ttft.mean" => &[("[data-testid=\"metric-ttft-mean\"]", None)],
        "prefix.hit" => &[("[data-testid=\"metric-prefix-cache\"]", None)],
        "itl.p99" => &[("[data-testid=\"metric-itl-p99\"]", None)],
        "tpot.mean" => &[("[data-testid=\"metric-tpot-mean\"]", None)],
        "goodput" => &[("[data-testid=\"metric-goodput\"]", Some(".kv"))],
        "hbm" => &[("[data-testid^=\"hbm-gauge\"] .gauge", None)],
        "oom" => &[("[data-testid=\"count-oom-restarts\"]", Some(".count"))],
        "cost" => &[("[data-testid=\"metric-cost-good\"]", Some(".kv"))],
        _ => &[],
    }
}

/// A lesson's outcome on `seed` (the lessons' default seed when none), computed in one go, as
/// JSON (the browser tests compare the page with it).
pub fn outcome_json(id: &str, seed: Option<u32>) -> String {
    let Some(lesson) = core::find(id) else {
        return serde_json::json!({ "error": format!("no lesson {id:?}") }).to_string();
    };
    let seed = seed.map_or(core::DEFAULT_SEED, u64::from);
    let (sums, o) = lesson.run(seed);
    let numbers: serde_json::Map<String, serde_json::Value> =
        o.numbers.iter().map(|(k, v)| (k.to_string(), serde_json::json!(v))).collect();
    let runs: Vec<serde_json::Value> = lesson
        .scenarios(seed)
        .iter()
        .zip(&sums)
        .map(|(r, s)| {
            serde_json::json!({
                "variant": r.variant,
                "ttft_p99_ms": s.all.ttft_ms.p99,
                "kv_peak_bytes": s.memory.kv_peak_bytes,
            })
        })
        .collect();
    serde_json::json!({ "id": id, "seed": seed, "answer": o.answer, "numbers": numbers, "sentences": o.sentences, "runs": runs })
        .to_string()
}

/// The safe-zone lesson's runs as points of a rate sweep (one per rate it ran).
pub fn safe_zone_points(sums: &[Summary]) -> Vec<SweepPoint> {
    SAFE_ZONE_RATES
        .iter()
        .zip(sums)
        .map(|(v, s)| SweepPoint { value: *v, summary: Some(s.clone()), error: None, problem: None })
        .collect()
}

/// The TTFT objective the safe-zone lesson's chart draws, ms.
pub fn safe_zone_slo() -> Option<f64> {
    let lesson = core::find("safe-zone")?;
    lesson.scenarios(core::DEFAULT_SEED).first()?.scenario.classes.first()?.slo.ttft_ms
}

/// A row of the lesson's runs table: the metric it shows (its name from `panels::defs::NAMES`,
/// its value formatted by its unit) and the highlight key it belongs to ("" for none).
pub struct Row {
    pub metric: Metric,
    pub highlight: &'static str,
}

const fn row(metric: Metric, highlight: &'static str) -> Row {
    Row { metric, highlight }
}

/// Every run's numbers, in the table's order.
pub const ROWS: [Row; 12] = [
    row(Metric::Latency(Latency::Ttft, Stat::P99), "ttft.p99"),
    row(Metric::Latency(Latency::Ttft, Stat::Mean), "ttft.mean"),
    row(Metric::Latency(Latency::Tpot, Stat::P99), ""),
    row(Metric::Latency(Latency::Tpot, Stat::Mean), "tpot.mean"),
    row(Metric::Latency(Latency::Itl, Stat::P99), "itl.p99"),
    row(Metric::ThroughputTokens, ""),
    row(Metric::GoodputTokens, "goodput"),
    row(Metric::SloAttainment, ""),
    row(Metric::UsdPerMillionGoodTokens, "cost"),
    row(Metric::Requests(Count::OomRestarts), "oom"),
    row(Metric::PeakRunning, ""),
    row(Metric::KvPeakBytes, "hbm"),
];

/// A class's numbers, for a lesson about that class (its rows come first).
pub const CLASS_ROWS: [Row; 4] = [
    row(Metric::Latency(Latency::Ttft, Stat::P99), "ttft.p99"),
    row(Metric::Latency(Latency::Tpot, Stat::P99), ""),
    row(Metric::GoodputTokens, "goodput"),
    row(Metric::SloAttainment, ""),
];

impl Row {
    /// The key of the row's name.
    pub fn label(&self) -> &'static str {
        crate::panels::defs::name_of(self.metric).unwrap_or_default()
    }

    /// The row's number in a run.
    pub fn value(&self, s: &Summary) -> String {
        format::metric(self.metric, s)
    }

    /// Whether the row shows the metric the lesson points at.
    pub fn highlighted(&self, lesson: &core::Lesson) -> bool {
        !self.highlight.is_empty() && self.highlight == super::lesson::highlight_key(lesson.highlight)
    }
}

/// A class's number in a run, or "—" when the run has no such class.
pub fn class_value(row: &Row, s: &Summary, class: &str) -> String {
    s.classes.get(class).map_or_else(|| format::NONE.to_string(), |c| format::metric_of_class(row.metric, c))
}

/// The tag before a run's name in the table's head: `A · ` and `B · ` for two runs, none else.
pub fn run_tag(i: usize, runs: usize) -> &'static str {
    if runs == 2 {
        ["A · ", "B · "][i.min(1)]
    } else {
        ""
    }
}

/// A row of the runs table in words.
#[derive(Clone, Debug, PartialEq)]
pub struct TableRow {
    pub label: String,
    /// One cell per run.
    pub cells: Vec<String>,
    pub highlighted: bool,
    /// The focus class of a class's row.
    pub class: Option<&'static str>,
}

/// The lesson's runs as a table: the head (an empty corner, then each run's name, tagged A and B
/// when there are two), the focus class's rows first (a lesson about one class of traffic),
/// then every run's rows (over all traffic when there is a focus class, which then holds the
/// highlight).
pub fn runs_table(
    w: &dyn Words,
    lesson: &core::Lesson,
    variants: &[&str],
    sums: &[Summary],
) -> (Vec<String>, Vec<TableRow>) {
    let n = variants.len();
    let variant =
        |(i, v): (usize, &&str)| format!("{}{}", run_tag(i, n), w.t(&format!("lesson.{}.variant.{v}", lesson.id)));
    let heads = std::iter::once(String::new()).chain(variants.iter().enumerate().map(variant)).collect();
    let mut rows: Vec<TableRow> = Vec::new();
    if let Some(class) = lesson.focus_class {
        rows.extend(CLASS_ROWS.iter().map(|row| TableRow {
            label: w.tf("features.lesson.class_row", &[("class", class.to_string()), ("what", w.t(row.label()))]),
            cells: sums.iter().map(|s| class_value(row, s, class)).collect(),
            highlighted: row.highlighted(lesson),
            class: Some(class),
        }));
    }
    let focus = lesson.focus_class.is_some();
    rows.extend(ROWS.iter().map(|row| TableRow {
        label: if focus { w.tf("features.lesson.all_row", &[("what", w.t(row.label()))]) } else { w.t(row.label()) },
        cells: sums.iter().map(|s| row.value(s)).collect(),
        highlighted: !focus && row.highlighted(lesson),
        class: None,
    }));
    (heads, rows)
}

/// Translation keys this module names (checked against the tables).
pub fn keys() -> Vec<&'static str> {
    ROWS.iter().map(Row::label).chain(CLASS_ROWS.iter().map(Row::label)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_formatted_by_their_names() {
        assert_eq!(format_number("ttft_p99_ms", 1847.6), "1,848");
        assert_eq!(format_number("ttft_p99_ms", 42.25), "42.2");
        assert_eq!(format_number("tpot_ms", 3.456), "3.46");
        assert_eq!(format_number("kv_gib", 12.34), "12.3");
        assert_eq!(format_number("usd_per_m", 0.12345), "0.123");
        assert_eq!(format_number("ratio", 2.25), "2.2");
        assert_eq!(format_number("requests", 2000.0), "2,000");
        assert_eq!(format_number("goodput_a", -3.0), "0");
        assert_eq!(format_number("x_ms", f64::NAN), format::NONE);
        assert_eq!(format_number("slo_attainment", 0.5), format::pct(0.5));
    }

    #[test]
    fn sentences_join_with_a_space_except_after_a_full_width_stop() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(join_sentences(s(&["One.", "Two."])), "One. Two.");
        assert_eq!(join_sentences(s(&["一。", "二。"])), "一。二。");
        assert_eq!(join_sentences(s(&[])), "");
        assert_eq!(sentence_key("kv-arithmetic", "big"), "lesson.kv-arithmetic.say.big");
    }

    #[test]
    fn every_highlight_a_lesson_names_points_somewhere() {
        for l in core::LESSONS {
            let key = super::super::lesson::highlight_key(l.highlight);
            assert!(!highlight_targets(key).is_empty(), "lesson {} highlights {key}, which points nowhere", l.id);
        }
        assert!(highlight_targets("nothing").is_empty());
    }

    #[test]
    fn an_unknown_lesson_is_an_error_object() {
        let v: serde_json::Value = serde_json::from_str(&outcome_json("no-such", None)).expect("json");
        assert_eq!(v["error"], "no lesson \"no-such\"");
    }

    #[test]
    fn the_safe_zone_chart_has_one_point_per_rate_and_an_objective() {
        let sums = vec![Summary::default(); SAFE_ZONE_RATES.len() + 2];
        let points = safe_zone_points(&sums);
        assert_eq!(points.len(), SAFE_ZONE_RATES.len());
        assert_eq!(points[0].value, SAFE_ZONE_RATES[0]);
        assert!(safe_zone_slo().is_some_and(|ms| ms > 0.0));
    }

    #[test]
    fn rows_highlight_only_the_lessons_metric_and_a_missing_class_is_a_dash() {
        for l in core::LESSONS {
            let key = super::super::lesson::highlight_key(l.highlight);
            let lit: Vec<&str> = ROWS.iter().filter(|r| r.highlighted(l)).map(|r| r.highlight).collect();
            assert!(lit.iter().all(|h| *h == key), "lesson {}: {lit:?}", l.id);
            assert!(lit.len() <= 1);
        }
        let s = Summary::default();
        assert_eq!(class_value(&CLASS_ROWS[0], &s, "chat"), format::NONE);
        assert_eq!(run_tag(0, 2), "A · ");
        assert_eq!(run_tag(1, 2), "B · ");
        assert_eq!(run_tag(0, 3), "");
    }

    #[test]
    fn the_runs_table_puts_the_focus_class_first_and_moves_the_highlight_to_it() {
        use crate::words::Keys;
        let sums = [Summary::default(), Summary::default()];
        for lesson in core::LESSONS.iter() {
            let (heads, rows) = runs_table(&Keys, lesson, &["x", "y"], &sums);
            assert_eq!(
                heads,
                [
                    "".to_string(),
                    format!("A · lesson.{}.variant.x", lesson.id),
                    format!("B · lesson.{}.variant.y", lesson.id)
                ]
            );
            assert!(rows.iter().all(|r| r.cells.len() == 2));
            let classes = rows.iter().filter(|r| r.class.is_some()).count();
            match lesson.focus_class {
                Some(c) => {
                    assert_eq!(classes, CLASS_ROWS.len());
                    assert_eq!(rows[0].class, Some(c));
                    assert_eq!(rows[0].cells[0], format::NONE, "no such class in an empty summary");
                    assert!(rows[CLASS_ROWS.len()..]
                        .iter()
                        .all(|r| !r.highlighted && r.label.starts_with("features.lesson.all_row{")));
                }
                None => {
                    assert_eq!((classes, rows.len()), (0, ROWS.len()));
                    assert_eq!(
                        rows.iter().filter(|r| r.highlighted).count(),
                        ROWS.iter().filter(|r| r.highlighted(lesson)).count()
                    );
                    assert_eq!(rows[0].label, ROWS[0].label());
                }
            }
        }
        let (heads, _) = runs_table(&Keys, &core::LESSONS[0], &["x"], &sums[..1]);
        assert_eq!(heads[1], format!("lesson.{}.variant.x", core::LESSONS[0].id));
    }

    #[test]
    fn the_explanation_fills_each_sentence_with_the_runs_numbers() {
        let o = Outcome {
            answer: 0,
            numbers: [("ttft_p99_ms", 1200.0)].into_iter().collect(),
            sentences: vec!["first", "second"],
        };
        let args = outcome_args(&o);
        let said = explanation(&crate::words::Keys, "demo", &o);
        let arg = format!("{}={}", args[0].0, args[0].1);
        assert_eq!(said, format!("lesson.demo.say.first{{{arg}}} lesson.demo.say.second{{{arg}}}"));
    }
}
