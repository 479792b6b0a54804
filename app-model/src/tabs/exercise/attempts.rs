//! The attempts kept in the browser, one JSON text for every exercise, and the best score.

use super::value_at;
use lab_content::exercise::{Attempt, Exercise};
use serde_json::{json, Value};
use sim_core::metric::Direction;
use sim_core::Scenario;

/// A finished run of `ran` as an attempt at `ex`: not counted when it changed a control that
/// `locked` holds (`Err` with those controls, each once), else what the goals say and its record
/// with the result code the student hands in (`student` their name, blank for none).
pub fn attempt_of(
    ex: &Exercise,
    ran: &Scenario,
    summary: &sim_core::Summary,
    locked: &[String],
    student: &str,
    time_ms: f64,
) -> Result<(Attempt, Record), Vec<String>> {
    let changed = crate::page::differences(&ex.scenario, ran);
    let outside = super::changed_under_locks(&changed, locked);
    if !outside.is_empty() {
        return Err(outside);
    }
    let attempt = ex.check(summary);
    let mut rec = Record::of(&attempt, time_ms, &changed, ran);
    rec.code = Some(super::code_of(ex, ran, summary, student));
    Ok((attempt, rec))
}

/// One recorded attempt.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// When it ended, ms since the epoch.
    pub time_ms: f64,
    pub pass: bool,
    pub score: Option<f64>,
    /// metric, measured, pass
    pub goals: Vec<(String, Option<f64>, bool)>,
    /// "path = value" for each setting changed from the starting scenario
    pub settings: Vec<String>,
    /// The seed the run used (`None` in attempts recorded before seeds were kept).
    pub seed: Option<u64>,
    /// The result code to hand in (`None` in attempts recorded before codes).
    pub code: Option<String>,
}

impl Record {
    /// The record of a checked run: `changed` are the paths that differ from the exercise's
    /// scenario, read from `scenario`, the one that ran.
    pub fn of(attempt: &Attempt, time_ms: f64, changed: &[String], scenario: &Scenario) -> Record {
        Record {
            seed: Some(scenario.seed),
            code: None,
            time_ms,
            pass: attempt.pass,
            score: attempt.score,
            goals: attempt.goals.iter().map(|g| (g.metric.to_string(), g.measured, g.pass)).collect(),
            settings: changed.iter().map(|p| format!("{p} = {}", value_at(scenario, p))).collect(),
        }
    }

    fn to_json(&self) -> Value {
        json!({
            "time_ms": self.time_ms,
            "pass": self.pass,
            "score": self.score,
            "goals": self.goals.iter().map(|(m, v, p)| json!({ "metric": m, "measured": v, "pass": p })).collect::<Vec<_>>(),
            "settings": self.settings,
            "seed": self.seed,
            "code": self.code,
        })
    }

    fn from_json(v: &Value) -> Option<Record> {
        let goal = |g: &Value| {
            Some((
                g.get("metric")?.as_str()?.to_string(),
                g.get("measured").and_then(Value::as_f64),
                g.get("pass")?.as_bool()?,
            ))
        };
        Some(Record {
            time_ms: v.get("time_ms")?.as_f64()?,
            pass: v.get("pass")?.as_bool()?,
            score: v.get("score").and_then(Value::as_f64),
            goals: v.get("goals")?.as_array()?.iter().filter_map(goal).collect(),
            settings: v.get("settings")?.as_array()?.iter().filter_map(|s| s.as_str().map(str::to_string)).collect(),
            seed: v.get("seed").and_then(Value::as_u64),
            code: v.get("code").and_then(Value::as_str).map(str::to_string),
        })
    }
}

/// The `exercise-result` event a host page receives for a checked run.
pub fn result_event(id: &str, attempt: &Attempt, rec: &Record) -> Value {
    json!({
        "id": id,
        "pass": rec.pass,
        "score": rec.score,
        "goals": attempt.goals.iter().map(|g| json!({ "metric": g.metric, "op": g.op, "target": g.target, "measured": g.measured, "pass": g.pass })).collect::<Vec<_>>(),
        "settings": rec.settings,
    })
}

/// Every exercise's attempts, oldest first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Attempts(pub Vec<(String, Vec<Record>)>);

impl Attempts {
    /// Reads the stored text; anything unreadable is dropped.
    pub fn parse(text: Option<&str>) -> Attempts {
        let Some(Ok(Value::Object(map))) = text.map(serde_json::from_str::<Value>) else { return Attempts::default() };
        Attempts(
            map.iter()
                .map(|(id, list)| {
                    let recs = list.as_array().map(|a| a.iter().filter_map(Record::from_json).collect());
                    (id.clone(), recs.unwrap_or_default())
                })
                .collect(),
        )
    }

    /// The text to store.
    pub fn to_text(&self) -> String {
        let map: serde_json::Map<String, Value> = self
            .0
            .iter()
            .map(|(id, recs)| (id.clone(), Value::Array(recs.iter().map(Record::to_json).collect())))
            .collect();
        Value::Object(map).to_string()
    }

    pub fn of(&self, id: &str) -> &[Record] {
        self.0.iter().find(|(k, _)| k == id).map_or(&[][..], |(_, r)| r.as_slice())
    }

    pub fn push(&mut self, id: &str, rec: Record) {
        match self.0.iter_mut().find(|(k, _)| k == id) {
            Some((_, recs)) => recs.push(rec),
            None => self.0.push((id.to_string(), vec![rec])),
        }
    }

    pub fn clear(&mut self, id: &str) {
        self.0.retain(|(k, _)| k != id);
    }
}

/// The best score of the passing attempts, in the objective's direction.
pub fn best(ex: &Exercise, recs: &[Record]) -> Option<f64> {
    let max = ex.objective.as_ref().is_some_and(|o| o.direction == Direction::Max);
    recs.iter().filter(|r| r.pass).filter_map(|r| r.score).reduce(|b, s| if max { b.max(s) } else { b.min(s) })
}
