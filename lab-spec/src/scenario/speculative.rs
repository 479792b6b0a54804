//! The `speculative` field of a scenario, its limits and checks, and the mean tokens a step
//! emits (the draws and the draft model's cost are `crate::speculative`).

use super::{Batching, FieldError, Scenario};
use crate::catalog;
use crate::message::Problem;
use serde::{Deserialize, Serialize};

/// Most draft tokens a step may propose per sequence.
pub const MAX_DRAFT_TOKENS: u32 = 16;
/// Highest acceptance rate (1 would accept every draft token: no draft is that good).
pub const MAX_ACCEPTANCE: f64 = 0.99;

/// The `speculative` field of a scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpeculativeConfig {
    /// Draft tokens proposed per sequence per step (`k`, 1..=16).
    pub draft_tokens: u32,
    /// Probability that a draft token is accepted, given those before it were (`a`, 0..=0.99).
    pub acceptance_rate: f64,
    /// A catalogue model drafting on the same GPUs; `null`: a draft head of negligible cost
    /// (EAGLE, Medusa and MTP heads are a layer or two beside the target's hundred).
    #[serde(default)]
    pub draft_model: Option<String>,
}

impl SpeculativeConfig {
    /// Tokens a step emits per sequence on average: `(1 − a^(k+1)) / (1 − a)`.
    pub fn expected_tokens_per_step(&self) -> f64 {
        expected_tokens(self.draft_tokens, self.acceptance_rate)
    }
}

/// `(1 − a^(k+1)) / (1 − a)`: the mean of `j + 1`, `j` the accepted tokens of `k` (`k + 1` when
/// every draft is accepted).
pub fn expected_tokens(k: u32, a: f64) -> f64 {
    if a >= 1.0 {
        return k as f64 + 1.0;
    }
    // a^(k+1) by multiplication: the same bits natively and in wasm
    let pow = (0..=k).fold(1.0, |p, _| p * a);
    (1.0 - pow) / (1.0 - a)
}

/// Checks `s.speculative`: the draft model is a catalogue id, batching is continuous, the
/// target has no sliding-window layers. (Ranges of `draft_tokens` and `acceptance_rate` are the
/// settings rows'.)
pub(crate) fn check(s: &Scenario, errors: &mut Vec<FieldError>) {
    let Some(sp) = &s.speculative else { return };
    if let Some(id) = &sp.draft_model {
        if catalog::find_model(id).is_none() {
            let options = catalog::models().into_iter().map(|m| m.id).collect();
            errors
                .push(FieldError::new("speculative.draft_model", Problem::NotListed { options, got: id.to_string() }));
        }
    }
    if s.scheduler.batching == Batching::Static {
        errors.push(FieldError::new("speculative", Problem::SpeculativeStatic));
    }
    if let Ok(m) = s.model_spec() {
        if m.sliding_window_layers > 0 {
            errors.push(FieldError::new("speculative", Problem::SpeculativeWindow { model: m.id.clone() }));
        }
    }
}
