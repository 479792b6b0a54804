//! The `session` field of a class, its limits and checks (the conversations themselves are
//! `crate::session`).

use super::{Arrival, FieldError, LengthDist, Scenario};
use crate::message::Problem;
use serde::{Deserialize, Serialize};

/// Most turns a conversation may have.
pub const MAX_TURNS: u32 = 1000;
/// Longest think time between turns, ms (an hour).
pub const MAX_THINK_MS: f64 = 3_600_000.0;

/// The `session` field of a class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionConfig {
    /// Turns per conversation (1..=1000), drawn when it starts.
    pub turns: LengthDist,
    /// Time from a turn's answer to the next turn, ms (0..=3,600,000).
    pub think_time_ms: f64,
}

/// Checks each class's `session`: a trace class gives its conversations by its `session_id`
/// column, and the ranges. (With the class's `prefix` too, each conversation starts with one of
/// its groups' shared prefixes: `sim_core::session`.)
pub(crate) fn check(s: &Scenario, errors: &mut Vec<FieldError>) {
    for (i, c) in s.classes.iter().enumerate() {
        let Some(sc) = &c.session else { continue };
        let p = format!("classes[{i}].session");
        if matches!(c.arrival, Arrival::Trace { .. }) {
            errors.push(FieldError::new(&p, Problem::GivenByTrace));
            continue;
        }
        let max = MAX_TURNS as f64;
        let mut range = |field: &str, x: f64, lo: f64, hi: f64| {
            if !x.is_finite() || x < lo || x > hi {
                errors.push(FieldError::new(format!("{p}.{field}"), Problem::Range { min: lo, max: hi, got: x }));
            }
        };
        match sc.turns {
            LengthDist::Fixed { value } => range("turns.value", value as f64, 1.0, max),
            LengthDist::Uniform { min, max: hi } => {
                range("turns.min", min as f64, 1.0, max);
                range("turns.max", hi as f64, (min as f64).max(1.0), max);
            }
            LengthDist::Lognormal { mean, sigma } => {
                range("turns.mean", mean, 1.0, max);
                range("turns.sigma", sigma, 0.0, 3.0);
            }
        }
        range("think_time_ms", sc.think_time_ms, 0.0, MAX_THINK_MS);
    }
}
