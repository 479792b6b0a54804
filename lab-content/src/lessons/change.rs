//! A setting changed in some or all of a lesson's runs (`llmsim lesson ID --set PATH=VALUE
//! --runs i,j`): a row of [`sim_core::settings`] named by its scenario JSON path, written with the
//! row's own setter and checked by the scenario's validation, so a bad value gets the message a
//! scenario file would (`scheduler.max_num_seqs must be 1..=4096, got 0`).

use super::LessonRun;
use sim_core::message::Problem;
use sim_core::scenario::{FieldError, Scenario, ScenarioError};
use sim_core::settings::{self, Kind, Setting, Value};

/// Which classes a per-class setting is written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Classes {
    /// Not a per-class setting.
    None,
    /// `classes[2].…`
    One(usize),
    /// `classes[*].…`: every class of each run.
    All,
}

/// One `PATH=VALUE`, read against the settings table.
#[derive(Clone, Debug)]
pub struct Change {
    pub path: String,
    pub row: &'static Setting,
    pub classes: Classes,
    pub value: Value,
}

/// Why a `PATH=VALUE` cannot be read.
#[derive(Clone, Debug, PartialEq)]
pub enum ChangeError {
    /// No `=`.
    NoValue(String),
    /// No settings row has this path.
    UnknownPath(String),
    /// The value cannot be this row's kind (a word for a number).
    BadValue { path: String, expected: String, got: String },
}

impl std::fmt::Display for ChangeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChangeError::NoValue(s) => write!(f, "\"{s}\" is not PATH=VALUE (e.g. scheduler.max_num_seqs=64)"),
            ChangeError::UnknownPath(p) => write!(
                f,
                "\"{p}\" is not a scenario setting's path (e.g. scheduler.max_num_seqs, \
                 classes[0].arrival.rate_per_s, classes[*].slo.ttft_ms, gpu)"
            ),
            ChangeError::BadValue { path, expected, got } => write!(f, "{path} must be {expected}, got \"{got}\""),
        }
    }
}

impl Change {
    /// Reads `PATH=VALUE`: PATH a row's JSON path (`classes[N]` or `classes[*]` for a class's
    /// setting), VALUE a number (`off` for a setting that can be switched off), `true`/`false`,
    /// or one of a choice's options.
    pub fn parse(text: &str) -> Result<Change, ChangeError> {
        let (path, raw) = text.split_once('=').ok_or_else(|| ChangeError::NoValue(text.to_string()))?;
        let (path, raw) = (path.trim(), raw.trim());
        let unknown = || ChangeError::UnknownPath(path.to_string());
        let (row, classes) = if let Some(rest) = path.strip_prefix("classes[") {
            let (index, tail) = rest.split_once(']').ok_or_else(unknown)?;
            let classes = match index {
                "*" => Classes::All,
                n => Classes::One(n.parse().map_err(|_| unknown())?),
            };
            let row = settings::SETTINGS.iter().find(|r| r.per_class() && r.path == format!("classes[{{i}}]{tail}"));
            (row.ok_or_else(unknown)?, classes)
        } else {
            let row = settings::SETTINGS.iter().find(|r| !r.per_class() && r.path == path);
            (row.ok_or_else(unknown)?, Classes::None)
        };
        let bad = |expected: String| ChangeError::BadValue { path: path.to_string(), expected, got: raw.to_string() };
        let value = match &row.kind {
            _ if raw == "off" && row.optional() => Value::Off,
            Kind::Number(n) => {
                let x: f64 = raw.parse().ok().filter(|x: &f64| x.is_finite()).ok_or_else(|| {
                    let off = if row.optional() { " or off" } else { "" };
                    bad(format!("a number {}..={}{off}", settings::fmt_num(n.min), settings::fmt_num(n.max)))
                })?;
                Value::Number(x)
            }
            Kind::Toggle => match raw {
                "true" | "on" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => return Err(bad("true or false".into())),
            },
            Kind::Select { options, .. } => {
                let options = options();
                if !options.is_empty() && !options.iter().any(|o| o == raw) {
                    return Err(bad(format!("one of {}", options.join(", "))));
                }
                Value::Text(raw.to_string())
            }
            Kind::Text => Value::Text(raw.to_string()),
        };
        Ok(Change { path: path.to_string(), row, classes, value })
    }

    /// Writes the value into `s` and validates it: the error names the field and its range.
    pub fn apply(&self, s: &mut Scenario) -> Result<(), ScenarioError> {
        let one = |e: FieldError| ScenarioError { errors: vec![e] };
        match self.classes {
            Classes::None => self.row.set(s, 0, &self.value).map_err(one)?,
            Classes::One(i) => self.row.set(s, i, &self.value).map_err(one)?,
            Classes::All => {
                if s.classes.is_empty() {
                    return Err(ScenarioError::one(self.path.clone(), Problem::DoesNotApply));
                }
                for i in 0..s.classes.len() {
                    self.row.set(s, i, &self.value).map_err(one)?;
                }
            }
        }
        s.validate()
    }
}

/// Applies `changes` to the runs at `only` (positions in `runs`; every run when `None`).
pub fn apply_to(runs: &mut [LessonRun], changes: &[Change], only: Option<&[usize]>) -> Result<(), ScenarioError> {
    for (i, r) in runs.iter_mut().enumerate() {
        if only.is_some_and(|o| !o.contains(&i)) {
            continue;
        }
        for c in changes {
            c.apply(&mut r.scenario)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s() -> Scenario {
        sim_core::presets::find("chat-latency-first").unwrap().scenario()
    }

    #[test]
    fn paths_name_rows_and_values_take_their_kind() {
        let mut x = s();
        Change::parse("scheduler.max_num_seqs=64").unwrap().apply(&mut x).unwrap();
        assert_eq!(x.scheduler.max_num_seqs, 64);
        Change::parse("classes[*].slo.ttft_ms=off").unwrap().apply(&mut x).unwrap();
        assert!(x.classes.iter().all(|c| c.slo.ttft_ms.is_none()));
        Change::parse("scheduler.prefix_caching=false").unwrap().apply(&mut x).unwrap();
        assert!(!x.scheduler.prefix_caching);
        Change::parse("gpu=h200").unwrap().apply(&mut x).unwrap();
        assert_eq!(x.gpu.id(), "h200");
    }

    #[test]
    fn bad_paths_and_values_say_what_is_allowed() {
        let e = Change::parse("scheduler.max_num_sequences=4").unwrap_err();
        assert!(e.to_string().contains("scheduler.max_num_sequences"), "{e}");
        let e = Change::parse("scheduler.max_num_seqs=many").unwrap_err();
        assert_eq!(e.to_string(), "scheduler.max_num_seqs must be a number 1..=4096, got \"many\"");
        let e = Change::parse("gpu=h999").unwrap_err();
        assert!(e.to_string().starts_with("gpu must be one of a100-40gb"), "{e}");
        let e = Change::parse("scheduler.max_num_seqs").unwrap_err();
        assert!(matches!(e, ChangeError::NoValue(_)));
        let mut x = s();
        let e = Change::parse("scheduler.max_num_seqs=0").unwrap().apply(&mut x).unwrap_err();
        assert!(e.to_string().contains("scheduler.max_num_seqs must be 1..=4096, got 0"), "{e}");
        let e = Change::parse("classes[9].arrival.rate_per_s=3").unwrap().apply(&mut s()).unwrap_err();
        assert!(e.to_string().contains("classes[9].arrival.rate_per_s"), "{e}");
    }
}
