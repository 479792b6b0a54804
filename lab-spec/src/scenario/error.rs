//! What is wrong with a scenario: every invalid field with its path and [`Problem`].

use crate::message::Problem;
use serde::Serialize;
use std::fmt;

/// One invalid value: the field's path and what is wrong with it, as a typed [`Problem`] (for
/// the page to word in its language) and in plain English (`message`, the problem's `Display`:
/// what the CLI prints).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldError {
    pub field: String,
    pub message: String,
    #[serde(skip)]
    pub problem: Problem,
}

impl FieldError {
    pub fn new(field: impl Into<String>, problem: impl Into<Problem>) -> FieldError {
        let problem = problem.into();
        FieldError { field: field.into(), message: problem.to_string(), problem }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{} {}", self.field, self.message)
        }
    }
}

/// Why a scenario cannot run: every invalid field, or a configuration that does not fit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScenarioError {
    pub errors: Vec<FieldError>,
}

impl ScenarioError {
    pub fn one(field: impl Into<String>, problem: impl Into<Problem>) -> Self {
        ScenarioError { errors: vec![FieldError::new(field, problem)] }
    }
    /// The message for one field, if that field is invalid.
    pub fn for_field(&self, field: &str) -> Option<&FieldError> {
        self.errors.iter().find(|e| e.field == field)
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}
