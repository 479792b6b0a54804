//! A change of one setting that would make a scenario fit in memory, as a problem names it
//! (`crate::memory` in sim-core finds the smallest one; `crate::settings::fix` makes one).

use crate::value::{fmt_num, Value};

/// One change of one setting that would make a scenario that does not fit in memory fit: the
/// smallest such change, found with the HBM plan's own fit check (`crate::memory`).
#[derive(Clone, Debug, PartialEq)]
pub struct Fix {
    /// The `settings` row (`gpu_memory_utilization`).
    pub setting: &'static str,
    /// The row's JSON path (`scheduler.max_model_len`), as messages name it.
    pub path: &'static str,
    /// The value that fits.
    pub value: Value,
    /// How the value relates to the ones that fit: the least (`AtLeast`: utilisation, GPUs),
    /// the most (`AtMost`: max_model_len), or just this one (`Exactly`: dtype fp8).
    pub bound: Bound,
}

/// Whether a [`Fix`]'s value is the least or the most that fits, or the one choice that does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    AtLeast,
    AtMost,
    Exactly,
}

impl Fix {
    /// `gpu_memory_utilization ≥ 0.22`, `num_gpus = 2`, `scheduler.max_model_len ≤ 4096`,
    /// `dtype = fp8`: the setting's JSON path and the value.
    pub fn describe(&self) -> String {
        let value = match &self.value {
            Value::Number(x) => fmt_num(*x),
            Value::Text(t) => t.clone(),
            v => format!("{v:?}"),
        };
        let op = match (self.bound, self.setting) {
            // num_gpus takes only 1, 2, 4 or 8: the fewest that fit is the one to name
            (_, "num_gpus" | "prefill_num_gpus" | "decode_num_gpus") | (Bound::Exactly, _) => "=",
            (Bound::AtLeast, _) => "≥",
            (Bound::AtMost, _) => "≤",
        };
        format!("{} {op} {value}", self.path)
    }
}
