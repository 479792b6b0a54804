//! The `disaggregation` field of a scenario and its checks (the prefill and decode pools, and
//! the KV transfers between them, are `crate::disagg`).

use super::{Batching, FieldError, Scenario};
use crate::message::Problem;
use serde::{Deserialize, Serialize};

/// The `disaggregation` field of a scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DisaggConfig {
    /// Replicas that run prompts only.
    pub prefill_replicas: u32,
    /// Replicas that run decode steps only.
    pub decode_replicas: u32,
    /// Bandwidth of each replica's KV link, GB/s (10⁹ bytes) per direction.
    pub kv_link_gbps: f64,
    /// Time from a transfer's last byte leaving to its arrival, µs.
    #[serde(default)]
    pub kv_link_latency_us: f64,
}

impl DisaggConfig {
    /// Every replica: the prefill pool's, then the decode pool's.
    pub fn replicas(&self) -> u32 {
        self.prefill_replicas + self.decode_replicas
    }
}

/// Checks `s.disaggregation`: continuous batching without over-commit (no OOM restarts), and
/// `replicas` left at 1 or equal to the two pools together. (The ranges of its numbers are the settings rows'.)
pub(crate) fn check(s: &Scenario, errors: &mut Vec<FieldError>) {
    let Some(d) = &s.disaggregation else { return };
    if s.scheduler.batching == Batching::Static {
        errors.push(FieldError::new("disaggregation", Problem::DisaggStatic));
    }
    if s.scheduler.overcommit {
        errors.push(FieldError::new("disaggregation", Problem::DisaggOvercommit));
    }
    if s.replicas != 1 && s.replicas != d.replicas() {
        errors
            .push(FieldError::new("disaggregation", Problem::DisaggReplicas { pools: d.replicas(), got: s.replicas }));
    }
}
