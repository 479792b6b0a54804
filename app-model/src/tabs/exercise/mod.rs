//! The exercises tab's state: the attempts kept in the browser (as one JSON text), the best
//! score, which controls an exercise locks (with a teacher's), what a run changed, the teacher's
//! chosen locks, the attempts as CSV and JSON, and the job that checks a handed-in result code
//! by re-running it.
//!
//! The locks, the words and the reference solution are here; the attempts and their storage in
//! `attempts`, the exports in `export`, result codes in `code`.

mod attempts;
mod class;
mod code;
mod export;
pub mod said;
mod words;

pub use attempts::{attempt_of, best, result_event, Attempts, Record};
pub use class::{class_csv, codes_in, short_code, sort, verified, ClassJob, ClassRow, RowVerdict, SortBy, SortOrder};
pub use code::{code_changes, code_of, problem_text, CodeJob, CodeVerdict, CODE_KEYS};
pub use export::{columns, csv, export_json, iso_time, raw, settings_by_label};
pub use words::{
    best_line, card_controls, changed_under_locks, metric_keys, metric_name, metric_value, objective_key, MetricName,
    RunsSeen,
};

use crate::locks::{self, LOCKABLE};
use lab_content::exercise::Exercise;
use serde_json::Value;
use sim_core::Scenario;

/// Local-storage key of the name a student puts on their result codes.
pub const NAME_KEY: &str = "llm-serving-lab.student-name";

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
        "meet-contract" => Some(Texts {
            title: "features.ex.meet-contract.title",
            task: "features.ex.meet-contract.task",
            solution: "features.ex.meet-contract.solution",
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

#[cfg(test)]
mod tests;
