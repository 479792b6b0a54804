//! The attempts as CSV and JSON, by the labels the editor shows.

use super::{control_key, control_of, Record};
use lab_content::exercise::Exercise;
use serde_json::{json, Value};

/// A time (ms since the epoch) as UTC ISO 8601 to the second: `2026-12-01T13:05:09Z`.
pub fn iso_time(ms: f64) -> String {
    let secs = if ms.is_finite() { (ms / 1000.0).floor() as i64 } else { 0 };
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // days since 1970-01-01 to a civil date (H. Hinnant's algorithm)
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem / 60 % 60, rem % 60)
}

/// A number as the exports write it (and the attempts table's `data-value`): Rust's shortest
/// round-trip form; empty when there is none.
pub fn raw(v: Option<f64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// The changed settings by control label: `label (class) = value` for each `path = value`,
/// `label` giving a label key's words.
pub fn settings_by_label(ex: &Exercise, rec: &Record, label: &dyn Fn(&str) -> String) -> Vec<String> {
    rec.settings
        .iter()
        .map(|line| {
            let (path, value) = line.split_once(" = ").unwrap_or((line.as_str(), ""));
            let name = control_key(&control_of(path)).map_or_else(|| path.to_string(), label);
            let class = path
                .strip_prefix("classes[")
                .and_then(|r| r.split(']').next()?.parse::<usize>().ok())
                .and_then(|i| ex.scenario.classes.get(i));
            match class {
                Some(c) => format!("{name} ({}) = {value}", c.name),
                None => format!("{name} = {value}"),
            }
        })
        .collect()
}

/// The export's column names: fixed ones, then a value and a met column per goal, then the score.
pub fn columns(ex: &Exercise) -> Vec<String> {
    let mut cols: Vec<String> =
        ["exercise", "attempt", "when", "seed", "changed_settings", "changed_settings_by_label", "pass"]
            .map(str::to_string)
            .to_vec();
    for g in &ex.goals {
        let op = serde_json::to_value(g.op).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        cols.push(format!("{} {op} {}", g.metric, g.value));
        cols.push(format!("{} met", g.metric));
    }
    cols.push(match &ex.objective {
        Some(o) => format!("score ({})", o.metric),
        None => "score".into(),
    });
    cols.push("result_code".into());
    cols
}

fn row(ex: &Exercise, i: usize, r: &Record, label: &dyn Fn(&str) -> String) -> Vec<String> {
    let mut out = vec![
        ex.id.clone(),
        (i + 1).to_string(),
        iso_time(r.time_ms),
        r.seed.map(|s| s.to_string()).unwrap_or_default(),
        r.settings.join("; "),
        settings_by_label(ex, r, label).join("; "),
        if r.pass { "yes" } else { "no" }.into(),
    ];
    for g in &ex.goals {
        let found = r.goals.iter().find(|(m, _, _)| *m == g.metric.to_string());
        out.push(raw(found.and_then(|(_, v, _)| *v)));
        out.push(if found.is_some_and(|(_, _, p)| *p) { "yes" } else { "no" }.into());
    }
    out.push(raw(r.score));
    out.push(r.code.clone().unwrap_or_default());
    out
}

pub(super) fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The attempts at `ex` as CSV (a header, then one row per attempt, oldest first).
pub fn csv(ex: &Exercise, recs: &[Record], label: &dyn Fn(&str) -> String) -> String {
    let line = |cells: Vec<String>| cells.iter().map(|c| csv_cell(c)).collect::<Vec<_>>().join(",") + "\n";
    let mut out = line(columns(ex));
    for (i, r) in recs.iter().enumerate() {
        out.push_str(&line(row(ex, i, r, label)));
    }
    out
}

/// The attempts at `ex` as JSON: the exercise (id, goals, objective) and one object per attempt.
pub fn export_json(ex: &Exercise, recs: &[Record], best_score: Option<f64>, label: &dyn Fn(&str) -> String) -> Value {
    let attempts: Vec<Value> = recs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let goals: Vec<Value> = ex
                .goals
                .iter()
                .map(|g| {
                    let found = r.goals.iter().find(|(m, _, _)| *m == g.metric.to_string());
                    json!({
                        "metric": g.metric, "op": g.op, "target": g.value,
                        "measured": found.and_then(|(_, v, _)| *v), "met": found.is_some_and(|(_, _, p)| *p),
                    })
                })
                .collect();
            json!({
                "attempt": i + 1,
                "when": iso_time(r.time_ms),
                "seed": r.seed,
                "changed_settings": r.settings,
                "changed_settings_by_label": settings_by_label(ex, r, label),
                "pass": r.pass,
                "goals": goals,
                "score": r.score,
                "result_code": r.code,
            })
        })
        .collect();
    json!({
        "exercise": ex.id,
        "goals": ex.goals,
        "objective": ex.objective,
        "best_score": best_score,
        "attempts": attempts,
    })
}
