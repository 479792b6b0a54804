//! The exercises tab's state: the attempts kept in the browser (as one JSON text), the best
//! score, which controls an exercise locks (with a teacher's), what a run changed, the teacher's
//! chosen locks, the attempts as CSV and JSON, and the job that checks a handed-in result code
//! by re-running it.

use crate::jobs::{Job, Runs, RunsProgress};
use crate::locks::{self, LOCKABLE};
use serde_json::{json, Value};
use sim_core::exercise::{Attempt, CodeCheck, CodeProblem, Exercise, ResultCode};
use sim_core::metric::Direction;
use sim_core::Scenario;

/// Local-storage key of every exercise's attempts.
pub const STORAGE_KEY: &str = "llm-serving-lab.attempts";

/// A control's label key (`None` for an id no lock names): the lock table's, so the lock list,
/// the allowed list and the messages use the labels the editor shows.
pub fn control_key(id: &str) -> Option<&'static str> {
    LOCKABLE.iter().find(|(c, _)| *c == id).map(|(_, k)| *k)
}

/// The control a scenario path belongs to: `classes[1].slo.ttft_ms` → `classes.slo` (the path
/// without class indices when no lock names it).
pub fn control_of(path: &str) -> String {
    locks::lockable_of(path).map_or_else(|| crate::controls::plain_path(path), str::to_string)
}

/// The controls an exercise locks: every control it does not allow.
pub fn locked_for(ex: &Exercise) -> Vec<String> {
    LOCKABLE.iter().map(|(id, _)| id.to_string()).filter(|id| !ex.allowed.iter().any(|a| a == id)).collect()
}

/// The locks while `ex` is open: the teacher's (from a link) and the exercise's, each once.
pub fn with_exercise(teacher: &[String], ex: &Exercise) -> Vec<String> {
    let mut out = teacher.to_vec();
    out.extend(locked_for(ex).into_iter().filter(|l| !teacher.contains(l)));
    out
}

/// The teacher's locks among `locked` (the page's locks while exercise `open` is open, or with
/// none open): what stays locked when the exercise closes.
pub fn teacher_locks(locked: &[String], open: Option<&Exercise>) -> Vec<String> {
    let ex = open.map(locked_for).unwrap_or_default();
    locked.iter().filter(|l| !ex.contains(l)).cloned().collect()
}

/// The controls of `ex` the learner may change under `locked` (an allowed control a teacher
/// locked is not offered).
pub fn allowed_under<'a>(ex: &'a Exercise, locked: &[String]) -> Vec<&'a str> {
    ex.allowed.iter().map(String::as_str).filter(|a| !locked.iter().any(|l| locks::covers(l, a))).collect()
}

/// Translation keys of a built-in exercise's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Texts {
    pub title: &'static str,
    pub task: &'static str,
    /// Why the reference solution works, and the shortcuts it is measured against.
    pub solution: &'static str,
}

/// The words of a built-in exercise (`None`: not a built-in one).
pub fn text_keys(id: &str) -> Option<Texts> {
    match id {
        "mixed-20" => Some(Texts {
            title: "features.ex.mixed-20.title",
            task: "features.ex.mixed-20.task",
            solution: "features.ex.mixed-20.solution",
        }),
        "chat-cheapest" => Some(Texts {
            title: "features.ex.chat-cheapest.title",
            task: "features.ex.chat-cheapest.task",
            solution: "features.ex.chat-cheapest.solution",
        }),
        "speculative-users" => Some(Texts {
            title: "features.ex.speculative-users.title",
            task: "features.ex.speculative-users.task",
            solution: "features.ex.speculative-users.solution",
        }),
        "cache-prompts" => Some(Texts {
            title: "features.ex.cache-prompts.title",
            task: "features.ex.cache-prompts.task",
            solution: "features.ex.cache-prompts.solution",
        }),
        "split-the-work" => Some(Texts {
            title: "features.ex.split-the-work.title",
            task: "features.ex.split-the-work.task",
            solution: "features.ex.split-the-work.solution",
        }),
        "route-documents" => Some(Texts {
            title: "features.ex.route-documents.title",
            task: "features.ex.route-documents.task",
            solution: "features.ex.route-documents.solution",
        }),
        _ => None,
    }
}

/// One setting of an exercise's reference solution, as the card lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct SolutionLine {
    /// The control's label key (`None`: a control the lock table does not name).
    pub label: Option<&'static str>,
    /// The class the setting belongs to, for a per-class one.
    pub class: Option<String>,
    /// The scenario path and the value, as the scenario JSON writes them.
    pub path: String,
    pub value: String,
}

/// The reference solution's settings, in order.
pub fn solution(ex: &Exercise) -> Vec<SolutionLine> {
    ex.reference
        .iter()
        .map(|c| {
            let class = c.path.strip_prefix("classes[").and_then(|r| r.split(']').next()?.parse::<usize>().ok());
            SolutionLine {
                label: control_key(&control_of(&c.path)),
                class: class.and_then(|i| ex.scenario.classes.get(i)).map(|k| k.name.clone()),
                path: c.path.clone(),
                value: match &c.value {
                    Value::String(s) => s.clone(),
                    Value::Null => "—".into(),
                    v => v.to_string(),
                },
            }
        })
        .collect()
}

/// The solution is offered once the learner has made an attempt of their own.
pub fn solution_offered(ex: &Exercise, recs: &[Record]) -> bool {
    !ex.reference.is_empty() && !recs.is_empty()
}

/// The value at a path such as `classes[0].reserved_share` in a scenario's JSON, as text.
pub fn value_at(s: &Scenario, path: &str) -> String {
    let Ok(mut v) = serde_json::to_value(s) else { return String::new() };
    for part in path.split('.') {
        let (key, idx) = match part.split_once('[') {
            Some((k, rest)) => (k, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (part, None),
        };
        v = v.get(key).cloned().unwrap_or(Value::Null);
        if let Some(i) = idx {
            v = v.get(i).cloned().unwrap_or(Value::Null);
        }
    }
    match v {
        Value::String(s) => s,
        Value::Null => "—".into(),
        other => other.to_string(),
    }
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

/// The controls a teacher ticked for a link, and a counter bumped when the boxes must be redrawn
/// (none, all, the current locks).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Teacher {
    pub chosen: Vec<String>,
    pub version: u32,
}

impl Teacher {
    pub fn tick(&mut self, id: &str, on: bool) {
        self.chosen.retain(|x| x != id);
        if on {
            self.chosen.push(id.to_string());
        }
    }

    pub fn set(&mut self, chosen: Vec<String>) {
        self.chosen = chosen;
        self.version += 1;
    }

    pub fn all(&mut self) {
        self.set(LOCKABLE.iter().map(|(id, _)| id.to_string()).collect());
    }

    pub fn is_chosen(&self, id: &str) -> bool {
        self.chosen.iter().any(|c| c == id)
    }
}

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

fn csv_cell(s: &str) -> String {
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

/// A result code's problem as a translation key (`features.class.code.*`) and its values.
pub fn problem_text(p: &CodeProblem) -> (&'static str, Vec<(&'static str, String)>) {
    match p {
        CodeProblem::NotACode => ("features.class.code.not_code", vec![]),
        CodeProblem::Version(v) => ("features.class.code.version", vec![("version", v.clone())]),
        CodeProblem::Damaged => ("features.class.code.damaged", vec![]),
        CodeProblem::Unreadable(part) => ("features.class.code.unreadable", vec![("part", part.to_string())]),
        CodeProblem::UnknownExercise(id) => ("features.class.code.exercise", vec![("id", id.clone())]),
        CodeProblem::Setting { setting, message } => {
            ("features.class.code.setting", vec![("setting", setting.clone()), ("message", message.clone())])
        }
        CodeProblem::Claims { expected, found } => {
            ("features.class.code.claims", vec![("expected", expected.to_string()), ("found", found.to_string())])
        }
    }
}

/// Every key [`problem_text`] can give, and the verdict keys (for the translation test).
pub const CODE_KEYS: [&str; 10] = [
    "features.class.code.not_code",
    "features.class.code.version",
    "features.class.code.damaged",
    "features.class.code.unreadable",
    "features.class.code.exercise",
    "features.class.code.setting",
    "features.class.code.claims",
    "features.class.code.verified",
    "features.class.code.mismatch",
    "features.class.code.checking",
];

/// What checking a pasted result code came to.
#[derive(Clone, Debug, PartialEq)]
pub enum CodeVerdict {
    /// The code could not be read or turned into a runnable scenario.
    Refused(CodeProblem),
    /// The scenario ran; `check.verified` says whether every claim held.
    Ran { code: ResultCode, exercise: Exercise, check: CodeCheck },
    /// The scenario was accepted but the simulation refused it (its message).
    Failed(String),
}

/// Checks a handed-in result code by re-running its scenario in steps (a job, so the page keeps
/// drawing): decode, rebuild the scenario, run it to its end, compare the claims.
pub struct CodeJob {
    state: Result<(ResultCode, Exercise, Runs), Option<CodeProblem>>,
}

impl CodeJob {
    pub fn new(text: &str) -> CodeJob {
        let state = ResultCode::decode(text)
            .and_then(|code| code.scenario().map(|(ex, s)| (code, ex, Runs::new(vec![s]))))
            .map_err(Some);
        CodeJob { state }
    }
}

impl Job for CodeJob {
    type Progress = RunsProgress;
    type Output = CodeVerdict;

    fn step(&mut self) -> Option<CodeVerdict> {
        let (code, ex, runs) = match &mut self.state {
            Err(p) => return Some(CodeVerdict::Refused(p.take().unwrap_or(CodeProblem::NotACode))),
            Ok(s) => s,
        };
        let out = runs.step()?;
        Some(match out {
            Ok(results) => match results.first() {
                Some(r) => {
                    CodeVerdict::Ran { check: code.check(ex, &r.summary), code: code.clone(), exercise: ex.clone() }
                }
                None => CodeVerdict::Failed(String::new()),
            },
            Err(e) => CodeVerdict::Failed(e),
        })
    }

    fn progress(&mut self) -> RunsProgress {
        match &mut self.state {
            Ok((_, _, runs)) => runs.progress(),
            Err(_) => RunsProgress { done: 0, total: 1, share: 0.0 },
        }
    }
}

/// The result code of a finished attempt at `ex`: `ran` the scenario that ran, `summary` its end.
pub fn code_of(ex: &Exercise, ran: &Scenario, summary: &sim_core::Summary) -> String {
    ResultCode::of(ex, ran, summary).encode()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::exercise::exercises;

    fn rec(pass: bool, score: Option<f64>) -> Record {
        Record {
            time_ms: 1.0,
            pass,
            score,
            goals: vec![("goodput.slo_attainment".into(), Some(0.5), pass)],
            settings: vec![],
            seed: Some(7),
            code: None,
        }
    }

    #[test]
    fn attempts_survive_the_round_trip_through_storage() {
        let mut a = Attempts::default();
        a.push("chat-cheapest", rec(false, None));
        a.push("chat-cheapest", rec(true, Some(1.5)));
        a.push("mixed-20", rec(true, Some(3.0)));
        let back = Attempts::parse(Some(&a.to_text()));
        assert_eq!(back, a);
        assert_eq!(back.of("chat-cheapest").len(), 2);
        a.clear("chat-cheapest");
        assert!(a.of("chat-cheapest").is_empty() && a.of("mixed-20").len() == 1);
        assert_eq!(Attempts::parse(Some("not json")), Attempts::default());
        assert_eq!(Attempts::parse(None), Attempts::default());
    }

    #[test]
    fn best_follows_the_objective_and_counts_only_passes() {
        let ex = exercises().into_iter().find(|e| e.objective.is_some()).expect("an exercise with an objective");
        let max = ex.objective.as_ref().is_some_and(|o| o.direction == Direction::Max);
        let recs = [rec(true, Some(2.0)), rec(false, Some(100.0)), rec(true, Some(5.0))];
        assert_eq!(best(&ex, &recs), Some(if max { 5.0 } else { 2.0 }));
        assert_eq!(best(&ex, &recs[1..2]), None);
    }

    #[test]
    fn locks_and_the_controls_paths_belong_to() {
        assert_eq!(control_of("classes[1].slo.ttft_ms"), "classes.slo");
        assert_eq!(control_of("classes[0].arrival.rate_per_s"), "classes.arrival.rate_per_s");
        assert_eq!(control_of("scheduler.kv_layout"), "scheduler.kv_layout");
        assert_eq!(control_of("unknown.path"), "unknown.path");
        assert_eq!(control_of("classes[2].name"), "classes.name");
        for ex in exercises() {
            let locked = locked_for(&ex);
            assert!(ex.allowed.iter().all(|a| !locked.contains(a)));
            assert_eq!(locked.len() + ex.allowed.iter().filter(|a| control_key(a).is_some()).count(), LOCKABLE.len());
            assert!(text_keys(&ex.id).is_some(), "{} has words", ex.id);
        }
    }

    #[test]
    fn the_solution_names_known_controls_and_waits_for_an_attempt() {
        for ex in exercises() {
            let lines = solution(&ex);
            assert_eq!(lines.len(), ex.reference.len());
            assert!(lines.iter().all(|l| l.label.is_some() && l.value != "—"), "{}: {lines:?}", ex.id);
            assert!(!solution_offered(&ex, &[]));
            assert!(solution_offered(&ex, &[rec(false, None)]));
        }
        let mixed = exercises().into_iter().find(|e| e.id == "mixed-20").unwrap();
        let priority = solution(&mixed).into_iter().find(|l| l.path == "classes[1].priority").unwrap();
        assert_eq!(priority.label, Some("ctl.priority.label"));
        assert_eq!((priority.class.as_deref(), priority.value.as_str()), (Some("batch"), "1"));
        let chat = exercises().into_iter().find(|e| e.id == "chat-cheapest").unwrap();
        assert_eq!(solution(&chat)[0].value, "mi300x");
    }

    #[test]
    fn a_record_names_what_changed_and_the_teacher_ticks_boxes() {
        let ex = &exercises()[0];
        let mut s = ex.scenario.clone();
        s.seed += 1;
        let attempt = ex.check(&sim_core::Summary::default());
        let r = Record::of(&attempt, 5.0, &["seed".to_string()], &s);
        assert_eq!(r.settings, vec![format!("seed = {}", s.seed)]);
        assert_eq!(result_event(&ex.id, &attempt, &r)["id"], ex.id.as_str());
        let mut t = Teacher::default();
        t.tick("gpu", true);
        t.tick("gpu", true);
        assert_eq!(t.chosen, vec!["gpu"]);
        t.tick("gpu", false);
        assert!(!t.is_chosen("gpu"));
        t.all();
        assert_eq!((t.chosen.len(), t.version), (LOCKABLE.len(), 1));
    }

    #[test]
    fn a_teachers_locks_stay_while_an_exercise_is_open_and_after_it() {
        let ex = exercises().into_iter().find(|e| e.id == "mixed-20").unwrap();
        let teacher = vec!["scheduler.isolation".to_string(), "seed".to_string()];
        let open = with_exercise(&teacher, &ex);
        assert!(open.contains(&"scheduler.isolation".to_string()), "the teacher's lock of an allowed control holds");
        assert!(locked_for(&ex).iter().all(|l| open.contains(l)));
        assert_eq!(open.iter().filter(|l| *l == "seed").count(), 1);
        assert_eq!(teacher_locks(&open, Some(&ex)), vec!["scheduler.isolation".to_string()]);
        assert_eq!(teacher_locks(&teacher, None), teacher);
        let allowed = allowed_under(&ex, &open);
        assert!(!allowed.contains(&"scheduler.isolation") && allowed.contains(&"classes.priority"));
        assert_eq!(allowed_under(&ex, &locked_for(&ex)).len(), ex.allowed.len());
    }

    #[test]
    fn the_export_has_a_column_per_goal_and_the_attempts_values() {
        let ex = exercises().into_iter().find(|e| e.id == "mixed-20").unwrap();
        let mut r = rec(true, Some(1.25));
        r.time_ms = 1_764_594_309_000.0;
        r.settings = vec!["scheduler.isolation = true".into(), "classes[1].priority = 1".into()];
        r.goals = ex.goals.iter().map(|g| (g.metric.to_string(), Some(0.5), true)).collect();
        r.goals[0].2 = false;
        r.code = Some("R1.abc.0000".into());
        let label = |k: &str| format!("<{k}>");
        let text = csv(&ex, &[rec(false, None), r.clone()], &label);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        let head: Vec<&str> = lines[0].split(',').collect();
        assert_eq!(head[..4], ["exercise", "attempt", "when", "seed"]);
        assert_eq!(head.len(), 7 + 2 * ex.goals.len() + 2);
        assert_eq!(head[7], "classes.chat.ttft_ms.p99 <= 800");
        assert_eq!(
            lines[2],
            "mixed-20,2,2025-12-01T13:05:09Z,7,scheduler.isolation = true; classes[1].priority = 1,\
             <ctl.isolation.label> = true; <ctl.priority.label> (batch) = 1,yes,0.5,no,0.5,yes,0.5,yes,1.25,R1.abc.0000"
        );
        assert!(lines[1].starts_with("mixed-20,1,") && lines[1].ends_with(",no,,"), "{}", lines[1]);
        let j = export_json(&ex, &[r], Some(1.25), &label);
        assert_eq!(j["attempts"][0]["goals"][0]["met"], false);
        assert_eq!(j["attempts"][0]["goals"][1]["measured"], 0.5);
        assert_eq!(j["attempts"][0]["changed_settings_by_label"][1], "<ctl.priority.label> (batch) = 1");
        assert_eq!(j["goals"][0]["metric"], "classes.chat.ttft_ms.p99");
        assert_eq!(csv_cell("a,\"b\""), "\"a,\"\"b\"\"\"");
        assert_eq!(iso_time(0.0), "1970-01-01T00:00:00Z");
        assert_eq!(iso_time(951_782_400_000.0), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn old_attempts_without_seed_or_code_still_read() {
        let old = r#"{"mixed-20":[{"time_ms":1,"pass":false,"score":null,"goals":[],"settings":["seed = 3"]}]}"#;
        let a = Attempts::parse(Some(old));
        assert_eq!(a.of("mixed-20")[0].seed, None);
        assert_eq!(a.of("mixed-20")[0].code, None);
    }

    #[test]
    fn the_code_job_verifies_a_real_attempt_and_refuses_a_tampered_one() {
        use crate::jobs::run_to_end;
        let ex = exercises().into_iter().find(|e| e.id == "chat-cheapest").unwrap();
        let s = ex.reference_scenario().unwrap();
        let sum = sim_core::Simulation::new(&s).unwrap().run_to_end();
        let text = code_of(&ex, &s, &sum);
        let CodeVerdict::Ran { check, .. } = run_to_end(CodeJob::new(&text)) else { panic!("not run") };
        assert!(check.verified && check.attempt.pass);
        let mut code = ResultCode::decode(&text).unwrap();
        code.claimed[1] = code.claimed[1].map(|x| x + 1.0);
        let CodeVerdict::Ran { check, .. } = run_to_end(CodeJob::new(&code.encode())) else { panic!("not run") };
        assert!(!check.verified);
        assert_eq!(check.lines.iter().position(|l| !l.equal), Some(1));
        let cut = &text[..text.len() - 3];
        assert_eq!(run_to_end(CodeJob::new(cut)), CodeVerdict::Refused(CodeProblem::Damaged));
        let (key, _) = problem_text(&CodeProblem::Damaged);
        assert!(CODE_KEYS.contains(&key));
    }
}
