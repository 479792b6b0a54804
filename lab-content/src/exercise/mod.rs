//! Classroom exercises: a starting scenario, the controls a learner may change, goals checked
//! automatically against the run's summary, and an objective to minimise or maximise.
//!
//! Goals name summary numbers as [`MetricRef`]s (`classes.chat.ttft_ms.p99`,
//! `cost.usd_per_million_good_tokens`), so any number the summary reports can be a goal, and a
//! file naming an unknown one is refused when read.
//!
//! The built-in exercises are in `builtin`, the result codes a learner hands in in `result_code`.

mod builtin;
mod result_code;

pub use builtin::{exercises, MEET_CONTRACT_USD_PER_HOUR};
pub use result_code::{
    claim_round, clean_name, ClaimLine, CodeChange, CodeCheck, CodeProblem, ResultCode, CLAIM_DIGITS, CODE_VERSION,
    NAME_CHARS,
};

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use sim_core::metric::{Direction, MetricRef, Op};
use sim_core::metrics::Summary;
use sim_core::scenario::{FieldError, Scenario, ScenarioError};
use sim_core::settings::{self, Value};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Goal {
    pub metric: MetricRef,
    /// `"<="` or `">="` in JSON.
    pub op: Op,
    pub value: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Objective {
    pub metric: MetricRef,
    /// `"min"` or `"max"` in JSON.
    pub direction: Direction,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exercise {
    pub id: String,
    pub scenario: Scenario,
    /// Control ids (scenario field paths) the learner may change; the rest are locked.
    pub allowed: Vec<String>,
    pub goals: Vec<Goal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub objective: Option<Objective>,
    /// A known solution: the settings it changes from `scenario`, in order. Files without one
    /// read as before (an empty list).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reference: Vec<Change>,
}

/// One setting a solution changes: its scenario path (`classes[1].priority`) and the value, as
/// the scenario JSON writes it (`null` switches an optional setting off).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Change {
    pub path: String,
    pub value: Json,
}

impl Change {
    pub fn new(path: &str, value: impl Into<Json>) -> Change {
        Change { path: path.into(), value: value.into() }
    }

    /// The settings row this path belongs to, and the class index for a per-class row.
    fn row(&self, s: &Scenario) -> Option<(&'static settings::Setting, usize)> {
        settings::SETTINGS.iter().find_map(|r| {
            if r.per_class() {
                (0..s.classes.len()).find(|&i| r.path_of(i) == self.path).map(|i| (r, i))
            } else {
                (r.path == self.path).then_some((r, 0))
            }
        })
    }

    /// Writes the value into `s`; a path no setting has, or a value of the wrong kind, is an error.
    pub fn apply(&self, s: &mut Scenario) -> Result<(), FieldError> {
        let err = |problem: sim_core::Problem| FieldError::new(self.path.clone(), problem);
        let (row, i) = self.row(s).ok_or_else(|| err(sim_core::Problem::NotASetting))?;
        let value = match &self.value {
            Json::Null => Value::Off,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => Value::Number(n.as_f64().ok_or_else(|| err(sim_core::Problem::ExerciseValue))?),
            Json::String(t) => Value::Text(t.clone()),
            _ => return Err(err(sim_core::Problem::ExerciseValue)),
        };
        row.set(s, i, &value)
    }

    /// The lock id of the control this change turns (`classes.priority`).
    pub fn control(&self, s: &Scenario) -> Option<String> {
        self.row(s).map(|(r, _)| r.lock_id())
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GoalResult {
    pub metric: MetricRef,
    pub op: Op,
    pub target: f64,
    /// `None` when the summary has no such number (e.g. a class that does not exist).
    pub measured: Option<f64>,
    pub pass: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Attempt {
    pub goals: Vec<GoalResult>,
    pub pass: bool,
    /// The objective's value, when every goal passed.
    pub score: Option<f64>,
}

impl Exercise {
    /// Whether the learner may turn the control `id` (a lock id such as `classes.slo.ttft_ms`):
    /// it, or a group it belongs to (`classes.slo`), is allowed.
    pub fn allows(&self, id: &str) -> bool {
        self.allowed.iter().any(|a| id == a || id.strip_prefix(a.as_str()).is_some_and(|r| r.starts_with('.')))
    }

    /// The scenario with the reference solution's changes made; every change must turn a
    /// control the exercise allows, and the result must be valid.
    pub fn reference_scenario(&self) -> Result<Scenario, ScenarioError> {
        let mut s = self.scenario.clone();
        for c in &self.reference {
            match c.control(&s) {
                Some(id) if self.allows(&id) => {}
                Some(id) => {
                    return Err(ScenarioError::one(&c.path, sim_core::Problem::ExerciseLocked { id: id.to_string() }))
                }
                None => {}
            }
            c.apply(&mut s).map_err(|e| ScenarioError { errors: vec![e] })?;
        }
        s.validate()?;
        Ok(s)
    }

    pub fn check(&self, summary: &Summary) -> Attempt {
        let goals: Vec<GoalResult> = self
            .goals
            .iter()
            .map(|g| {
                let measured = g.metric.read(summary);
                let pass = measured.is_some_and(|m| g.op.holds(m, g.value));
                GoalResult { metric: g.metric.clone(), op: g.op, target: g.value, measured, pass }
            })
            .collect();
        let pass = goals.iter().all(|g| g.pass);
        let score = if pass { self.objective.as_ref().and_then(|o| o.metric.read(summary)) } else { None };
        Attempt { goals, pass, score }
    }
}

#[cfg(test)]
mod tests;
