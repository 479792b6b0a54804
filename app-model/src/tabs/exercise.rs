//! The exercises tab's state: the attempts kept in the browser (as one JSON text), the best
//! score, which controls an exercise locks, what a run changed, and the teacher's chosen locks.

use serde_json::{json, Value};
use sim_core::exercise::{Attempt, Exercise};
use sim_core::metric::Direction;
use sim_core::Scenario;

/// Local-storage key of every exercise's attempts.
pub const STORAGE_KEY: &str = "llm-serving-lab.attempts";

/// Every control a lock can name: id (scenario path without class indices) and label key.
pub static CONTROLS: [(&str, &str); 36] = [
    ("model", "features.control.model"),
    ("gpu", "features.control.gpu"),
    ("num_gpus", "features.control.num_gpus"),
    ("dtype", "features.control.dtype"),
    ("kv_dtype", "features.control.kv_dtype"),
    ("gpu_usd_per_hour", "features.control.gpu_usd_per_hour"),
    ("gpu_memory_utilization", "features.control.gpu_memory_utilization"),
    ("seed", "features.control.seed"),
    ("scheduler.batching", "features.control.batching"),
    ("scheduler.max_num_seqs", "features.control.max_num_seqs"),
    ("scheduler.max_num_batched_tokens", "features.control.max_num_batched_tokens"),
    ("scheduler.chunked_prefill", "features.control.chunked_prefill"),
    ("scheduler.batch_timeout_ms", "features.control.batch_timeout_ms"),
    ("scheduler.isolation", "features.control.isolation"),
    ("scheduler.kv_layout", "features.control.kv_layout"),
    ("scheduler.block_size", "features.control.block_size"),
    ("scheduler.max_model_len", "features.control.max_model_len"),
    ("scheduler.overcommit", "features.control.overcommit"),
    ("scheduler.retry_on_oom", "features.control.retry_on_oom"),
    ("scheduler.restart_s", "features.control.restart_s"),
    ("scheduler.queue_timeout_ms", "features.control.queue_timeout_ms"),
    ("scheduler.max_queue_len", "features.control.max_queue_len"),
    ("classes", "features.control.classes"),
    ("classes.name", "features.control.class_name"),
    ("classes.arrival.kind", "features.control.arrival_kind"),
    ("classes.arrival.rate_per_s", "features.control.rate_per_s"),
    ("classes.arrival.cv", "features.control.cv"),
    ("classes.arrival.users", "features.control.users"),
    ("classes.arrival.think_time_ms", "features.control.think_time_ms"),
    ("classes.num_requests", "features.control.num_requests"),
    ("classes.input_tokens", "features.control.input_tokens"),
    ("classes.output_tokens", "features.control.output_tokens"),
    ("classes.slo", "features.control.slo"),
    ("classes.priority", "features.control.priority"),
    ("classes.reserved_share", "features.control.reserved_share"),
    ("classes.arrival.speedup", "features.control.speedup"),
];

/// A control's label key (`None` for an unknown id).
pub fn control_key(id: &str) -> Option<&'static str> {
    CONTROLS.iter().find(|(c, _)| *c == id).map(|(_, k)| *k)
}

/// The control a scenario path belongs to: `classes[1].slo.ttft_ms` → `classes.slo`.
pub fn control_of(path: &str) -> String {
    // without class indices: each part of the path up to its `[`
    let plain = path.split('.').map(|part| part.split('[').next().unwrap_or(part)).collect::<Vec<_>>().join(".");
    // the longest control id that is the path or a prefix of it
    CONTROLS
        .iter()
        .map(|(id, _)| *id)
        .filter(|id| plain == *id || plain.strip_prefix(id).is_some_and(|r| r.starts_with('.')))
        .max_by_key(|id| id.len())
        .map_or(plain.clone(), str::to_string)
}

/// The controls an exercise locks: every control it does not allow.
pub fn locked_for(ex: &Exercise) -> Vec<String> {
    CONTROLS.iter().map(|(id, _)| id.to_string()).filter(|id| !ex.allowed.iter().any(|a| a == id)).collect()
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
}

impl Record {
    /// The record of a checked run: `changed` are the paths that differ from the exercise's
    /// scenario, read from `scenario`, the one that ran.
    pub fn of(attempt: &Attempt, time_ms: f64, changed: &[String], scenario: &Scenario) -> Record {
        Record {
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
        self.set(CONTROLS.iter().map(|(id, _)| id.to_string()).collect());
    }

    pub fn is_chosen(&self, id: &str) -> bool {
        self.chosen.iter().any(|c| c == id)
    }
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
        for ex in exercises() {
            let locked = locked_for(&ex);
            assert!(ex.allowed.iter().all(|a| !locked.contains(a)));
            assert_eq!(locked.len() + ex.allowed.iter().filter(|a| control_key(a).is_some()).count(), CONTROLS.len());
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
        assert_eq!(priority.label, Some("features.control.priority"));
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
        assert_eq!((t.chosen.len(), t.version), (CONTROLS.len(), 1));
    }
}
