//! How goals compare a measured number with a target, and which way an objective goes.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How a measured number is compared with its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Op {
    /// The measured number must not exceed the target.
    #[serde(rename = "<=")]
    AtMost,
    /// The measured number must reach the target.
    #[serde(rename = ">=")]
    AtLeast,
}

impl Op {
    pub fn holds(self, measured: f64, target: f64) -> bool {
        match self {
            Op::AtMost => measured <= target,
            Op::AtLeast => measured >= target,
        }
    }
    /// `≤` or `≥`.
    pub fn symbol(self) -> &'static str {
        match self {
            Op::AtMost => "≤",
            Op::AtLeast => "≥",
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

/// Whether an objective is minimised or maximised.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Min,
    Max,
}
