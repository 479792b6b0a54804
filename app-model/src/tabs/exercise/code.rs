//! Result codes: a problem's words, and the job that checks a handed-in code by re-running it.

use crate::jobs::{Job, Runs, RunsProgress};
use lab_content::exercise::{CodeCheck, CodeProblem, Exercise, ResultCode};
use serde_json::Value;
use sim_core::Scenario;

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
    Ran { code: ResultCode, exercise: Box<Exercise>, check: CodeCheck },
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
                Some(r) => CodeVerdict::Ran {
                    check: code.check(ex, &r.summary),
                    code: code.clone(),
                    exercise: Box::new(ex.clone()),
                },
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

/// The result code of a finished attempt at `ex`: `ran` the scenario that ran, `summary` its end,
/// `name` the student's (optional: blank is none).
pub fn code_of(ex: &Exercise, ran: &Scenario, summary: &sim_core::Summary, name: &str) -> String {
    ResultCode::of(ex, ran, summary).named(name).encode()
}

/// The settings a result code changed, each as its control's id and the value in words
/// (`("rate", "12")`, `("replicas.engine", "sglang")`: a text value without its quotes), in
/// the code's order; the page names each control by its label.
pub fn code_changes(code: &ResultCode) -> Vec<(String, String)> {
    code.changes
        .iter()
        .map(|c| {
            let path = sim_core::settings::find(&c.setting)
                .map_or_else(|| c.setting.clone(), |r| r.path_of(c.class.unwrap_or(0)));
            let v = match &c.value {
                Value::String(s) => s.clone(),
                v => v.to_string(),
            };
            (super::control_of(&path), v)
        })
        .collect()
}
