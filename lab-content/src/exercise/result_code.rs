//! Result codes: what a learner hands in, and a teacher's check of it by re-running.

use super::{exercises, Attempt, Exercise};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::Value as Json;
use sim_core::metric::MetricRef;
use sim_core::metrics::Summary;
use sim_core::scenario::Scenario;
use sim_core::settings::{self, Value};

/// A result a learner hands in: which exercise, the seed, the settings that differ from the
/// exercise's scenario and the numbers the run claims (each goal's metric, then the objective's).
/// A teacher's page turns it back into the scenario, re-runs it and compares the numbers
/// ([`ResultCode::check`]): equal numbers mean the lab produced them from these settings.
///
/// Text form (version 1): `R1.<base64url(JSON)>.<checksum>`, the JSON an array
/// `[exercise id, seed, [[setting id, value] or [setting id, value, class index], …], [claims]]`,
/// the checksum eight hex digits of FNV-1a over the JSON. Claimed numbers keep
/// [`CLAIM_DIGITS`] significant digits; `null` is a number the summary did not have.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultCode {
    pub exercise: String,
    pub seed: u64,
    pub changes: Vec<CodeChange>,
    /// One per goal, in the exercise's order, then the objective's metric (when it has one).
    pub claimed: Vec<Option<f64>>,
    /// The student's name, if they gave one (at most [`NAME_CHARS`] characters, no control
    /// characters): it travels with the code, so a class's codes sort by student.
    pub name: Option<String>,
}

/// The most characters a result code keeps of a student's name.
pub const NAME_CHARS: usize = 60;

/// A name as a result code carries it: trimmed, control characters and runs of white space made
/// one space, at most [`NAME_CHARS`] characters; `None` when nothing is left.
pub fn clean_name(name: &str) -> Option<String> {
    let words: Vec<&str> =
        name.split(|c: char| c.is_whitespace() || c.is_control()).filter(|w| !w.is_empty()).collect();
    let joined: String = words.join(" ").chars().take(NAME_CHARS).collect();
    let joined = joined.trim_end().to_string();
    (!joined.is_empty()).then_some(joined)
}

/// One setting of a result code: a `settings` row id, the class index of a per-class row, and
/// the value as the scenario JSON writes it.
#[derive(Clone, Debug, PartialEq)]
pub struct CodeChange {
    pub setting: String,
    pub class: Option<usize>,
    pub value: Json,
}

/// Significant digits a result code keeps of each claimed number.
pub const CLAIM_DIGITS: usize = 6;

/// The version a result code starts with.
pub const CODE_VERSION: &str = "R1";

/// Why a result code cannot be checked; each names the part that failed.
#[derive(Clone, Debug, PartialEq)]
pub enum CodeProblem {
    /// The text does not look like a result code at all.
    NotACode,
    /// A result code of a version this lab does not read.
    Version(String),
    /// The checksum does not match: the code was cut short, mistyped or edited by hand.
    Damaged,
    /// The checksum matches but the contents are not a result code's (a part is missing).
    Unreadable(&'static str),
    /// No built-in exercise has this id.
    UnknownExercise(String),
    /// A setting the code names cannot be applied: unknown, locked by the exercise, or its value
    /// refused (`message` says which).
    Setting { setting: String, message: String },
    /// The claims are not one per goal plus the objective.
    Claims { expected: usize, found: usize },
}

impl std::fmt::Display for CodeProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CodeProblem::NotACode => write!(f, "not a result code"),
            CodeProblem::Version(v) => write!(f, "result code version {v} is not known"),
            CodeProblem::Damaged => write!(f, "the result code is damaged (checksum)"),
            CodeProblem::Unreadable(part) => write!(f, "the result code's {part} cannot be read"),
            CodeProblem::UnknownExercise(id) => write!(f, "no exercise {id}"),
            CodeProblem::Setting { setting, message } => write!(f, "setting {setting}: {message}"),
            CodeProblem::Claims { expected, found } => {
                write!(f, "{found} claimed numbers, the exercise has {expected}")
            }
        }
    }
}

/// One claimed number against the re-run's.
#[derive(Clone, Debug, PartialEq)]
pub struct ClaimLine {
    pub metric: MetricRef,
    pub claimed: Option<f64>,
    /// The re-run's number at the code's precision.
    pub rerun: Option<f64>,
    pub equal: bool,
}

/// What a re-run says about a result code.
#[derive(Clone, Debug, PartialEq)]
pub struct CodeCheck {
    /// Every claimed number equals the re-run's.
    pub verified: bool,
    pub lines: Vec<ClaimLine>,
    /// The re-run checked against the goals (pass, score).
    pub attempt: Attempt,
}

/// `x` to [`CLAIM_DIGITS`] significant digits (what a code carries and what is compared).
pub fn claim_round(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    sim_core::decimal::parse_f64(&format!("{:.*e}", CLAIM_DIGITS - 1, x)).unwrap_or(x)
}

pub(super) fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |h, b| (h ^ u32::from(*b)).wrapping_mul(0x0100_0193))
}

fn json_of_value(v: &Value) -> Json {
    match v {
        Value::Number(x) if x.fract() == 0.0 && x.abs() < 9.0e15 => Json::from(*x as i64),
        Value::Number(x) => Json::from(*x),
        Value::Text(t) => Json::from(t.as_str()),
        Value::Bool(b) => Json::from(*b),
        Value::Off => Json::Null,
    }
}

fn value_of_json(j: &Json) -> Option<Value> {
    match j {
        Json::Null => Some(Value::Off),
        Json::Bool(b) => Some(Value::Bool(*b)),
        Json::Number(n) => n.as_f64().map(Value::Number),
        Json::String(t) => Some(Value::Text(t.clone())),
        _ => None,
    }
}

impl Exercise {
    /// The metrics a result code claims, in order: each goal's, then the objective's.
    pub fn claimed_metrics(&self) -> Vec<MetricRef> {
        self.goals.iter().map(|g| g.metric.clone()).chain(self.objective.iter().map(|o| o.metric.clone())).collect()
    }
}

impl ResultCode {
    /// The code of a run of `ran` (a scenario the learner made from `ex.scenario`) that ended
    /// with `summary`: the seed, every setting whose value differs, and the claimed numbers.
    pub fn of(ex: &Exercise, ran: &Scenario, summary: &Summary) -> ResultCode {
        let mut changes = Vec::new();
        for row in settings::SETTINGS.iter().filter(|r| r.id != "seed") {
            let classes = if row.per_class() { ran.classes.len() } else { 1 };
            // a setting switched off where it did not apply is no change (a pool's own GPUs
            // when the learner switched disaggregation on)
            let read = |s: &Scenario, i: usize| {
                row.get(s, i).filter(|v| *v != Value::Off || row.get(&ex.scenario, i).is_some())
            };
            for i in 0..classes {
                let now = read(ran, i);
                if now.is_some() && now != row.get(&ex.scenario, i) {
                    let value = now.as_ref().map_or(Json::Null, json_of_value);
                    changes.push(CodeChange { setting: row.id.into(), class: row.per_class().then_some(i), value });
                }
            }
        }
        let claimed = ex.claimed_metrics().iter().map(|m| m.read(summary).map(claim_round)).collect();
        ResultCode { exercise: ex.id.clone(), seed: ran.seed, changes, claimed, name: None }
    }

    /// The same code with the student's name (cleaned by [`clean_name`]).
    pub fn named(mut self, name: &str) -> ResultCode {
        self.name = clean_name(name);
        self
    }

    /// The text to hand in.
    pub fn encode(&self) -> String {
        let changes: Vec<Json> = self
            .changes
            .iter()
            .map(|c| match c.class {
                Some(i) => serde_json::json!([c.setting, c.value, i]),
                None => serde_json::json!([c.setting, c.value]),
            })
            .collect();
        let mut payload = serde_json::json!([self.exercise, self.seed, changes, self.claimed]);
        if let (Some(name), Some(arr)) = (&self.name, payload.as_array_mut()) {
            arr.push(Json::from(name.as_str()));
        }
        let payload = payload.to_string();
        format!("{CODE_VERSION}.{}.{:08x}", URL_SAFE_NO_PAD.encode(payload.as_bytes()), fnv1a(payload.as_bytes()))
    }

    /// Reads a code (surrounding white space is ignored); says which part failed.
    pub fn decode(text: &str) -> Result<ResultCode, CodeProblem> {
        let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let mut parts = text.split('.');
        let version = parts.next().unwrap_or_default();
        if !version.starts_with('R') || version.len() < 2 || !version[1..].bytes().all(|b| b.is_ascii_digit()) {
            return Err(CodeProblem::NotACode);
        }
        if version != CODE_VERSION {
            return Err(CodeProblem::Version(version.into()));
        }
        let (Some(body), Some(sum), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(CodeProblem::Damaged);
        };
        let bytes = URL_SAFE_NO_PAD.decode(body).map_err(|_| CodeProblem::Damaged)?;
        if sum.len() != 8 || u32::from_str_radix(sum, 16).ok() != Some(fnv1a(&bytes)) {
            return Err(CodeProblem::Damaged);
        }
        let json: Json = serde_json::from_slice(&bytes).map_err(|_| CodeProblem::Unreadable("contents"))?;
        let arr =
            json.as_array().filter(|a| a.len() == 4 || a.len() == 5).ok_or(CodeProblem::Unreadable("contents"))?;
        let exercise = arr[0].as_str().ok_or(CodeProblem::Unreadable("exercise id"))?.to_string();
        let seed = arr[1].as_u64().ok_or(CodeProblem::Unreadable("seed"))?;
        let change = |c: &Json| -> Option<CodeChange> {
            let c = c.as_array().filter(|c| c.len() == 2 || c.len() == 3)?;
            let class = match c.get(2) {
                Some(i) => Some(usize::try_from(i.as_u64()?).ok()?),
                None => None,
            };
            Some(CodeChange { setting: c[0].as_str()?.to_string(), class, value: c[1].clone() })
        };
        let changes = arr[2]
            .as_array()
            .and_then(|l| l.iter().map(change).collect::<Option<Vec<_>>>())
            .ok_or(CodeProblem::Unreadable("settings"))?;
        let claim = |c: &Json| if c.is_null() { Some(None) } else { c.as_f64().map(Some) };
        let claimed = arr[3]
            .as_array()
            .and_then(|l| l.iter().map(claim).collect::<Option<Vec<_>>>())
            .ok_or(CodeProblem::Unreadable("claimed numbers"))?;
        let name = match arr.get(4) {
            None => None,
            Some(n) => {
                let n = n.as_str().ok_or(CodeProblem::Unreadable("name"))?;
                Some(clean_name(n).filter(|c| c == n).ok_or(CodeProblem::Unreadable("name"))?)
            }
        };
        Ok(ResultCode { exercise, seed, changes, claimed, name })
    }

    /// The exercise the code is for and the scenario to re-run: the exercise's scenario with the
    /// code's seed and settings, every one a control the exercise allows, and valid.
    pub fn scenario(&self) -> Result<(Exercise, Scenario), CodeProblem> {
        let ex = exercises()
            .into_iter()
            .find(|e| e.id == self.exercise)
            .ok_or_else(|| CodeProblem::UnknownExercise(self.exercise.clone()))?;
        let expected = ex.claimed_metrics().len();
        if self.claimed.len() != expected {
            return Err(CodeProblem::Claims { expected, found: self.claimed.len() });
        }
        let mut s = ex.scenario.clone();
        s.seed = self.seed;
        for c in &self.changes {
            let bad = |message: String| CodeProblem::Setting { setting: c.setting.clone(), message };
            let row =
                settings::find(&c.setting).filter(|r| r.id != "seed").ok_or_else(|| bad("is not a setting".into()))?;
            if row.per_class() != c.class.is_some() {
                return Err(bad("has the wrong class part".into()));
            }
            if !ex.allows(&row.lock_id()) {
                return Err(bad(format!("is locked by exercise {}", ex.id)));
            }
            let value = value_of_json(&c.value).ok_or_else(|| bad("has a value of the wrong kind".into()))?;
            row.set(&mut s, c.class.unwrap_or(0), &value).map_err(|e| bad(e.message))?;
        }
        if let Err(e) = s.validate() {
            let first = e.errors.first();
            return Err(CodeProblem::Setting {
                setting: first.map_or_else(String::new, |f| f.field.clone()),
                message: first.map_or_else(|| e.to_string(), |f| f.message.clone()),
            });
        }
        Ok((ex, s))
    }

    /// Compares the claims with the summary of the re-run of [`ResultCode::scenario`].
    pub fn check(&self, ex: &Exercise, rerun: &Summary) -> CodeCheck {
        let lines: Vec<ClaimLine> = ex
            .claimed_metrics()
            .into_iter()
            .zip(&self.claimed)
            .map(|(metric, claimed)| {
                let rerun = metric.read(rerun).map(claim_round);
                ClaimLine { equal: rerun == *claimed, metric, claimed: *claimed, rerun }
            })
            .collect();
        let verified = lines.len() == self.claimed.len() && lines.iter().all(|l| l.equal);
        CodeCheck { verified, lines, attempt: ex.check(rerun) }
    }
}
