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
    /// GPUs of each prefill replica (its tensor parallelism: 1, 2, 4 or 8); absent: the
    /// scenario's `num_gpus`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefill_num_gpus: Option<u32>,
    /// GPUs of each decode replica (its tensor parallelism: 1, 2, 4 or 8); absent: the
    /// scenario's `num_gpus`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decode_num_gpus: Option<u32>,
}

impl DisaggConfig {
    /// Every replica: the prefill pool's, then the decode pool's.
    pub fn replicas(&self) -> u32 {
        self.prefill_replicas + self.decode_replicas
    }

    /// The tensor parallelism of each prefill replica, in a scenario of `num_gpus`.
    pub fn prefill_gpus(&self, num_gpus: u32) -> u32 {
        self.prefill_num_gpus.unwrap_or(num_gpus)
    }

    /// The tensor parallelism of each decode replica, in a scenario of `num_gpus`.
    pub fn decode_gpus(&self, num_gpus: u32) -> u32 {
        self.decode_num_gpus.unwrap_or(num_gpus)
    }

    /// Every GPU of both pools, in a scenario of `num_gpus`.
    pub fn total_gpus(&self, num_gpus: u32) -> u32 {
        self.prefill_replicas * self.prefill_gpus(num_gpus) + self.decode_replicas * self.decode_gpus(num_gpus)
    }

    /// Whether replica `i` (of the prefill pool, then the decode pool) is a prefill replica.
    pub fn is_prefill(&self, i: usize) -> bool {
        i < self.prefill_replicas as usize
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

#[cfg(test)]
mod tests {
    use crate::scenario::Scenario;

    fn split() -> Scenario {
        crate::presets::find("disaggregated").expect("preset").scenario()
    }

    #[test]
    fn each_pool_has_its_own_gpus_or_num_gpus() {
        let mut s = split();
        s.num_gpus = 2;
        let d = s.disaggregation.clone().unwrap();
        let (p, n) = (d.prefill_replicas as usize, d.replicas() as usize);
        assert_eq!((s.replica_num_gpus(0), s.replica_num_gpus(n - 1)), (2, 2));
        assert_eq!(s.total_gpus(), 2 * n as u32);
        let d = s.disaggregation.as_mut().unwrap();
        d.decode_num_gpus = Some(4);
        assert_eq!((s.replica_num_gpus(p - 1), s.replica_num_gpus(p)), (2, 4));
        assert_eq!(s.total_gpus(), 2 * p as u32 + 4 * (n - p) as u32);
        assert_eq!(s.replica_scenario(p).num_gpus, 4);
        assert_eq!(s.replica_num_gpus_field(p), "disaggregation.decode_num_gpus");
        assert_eq!(s.replica_num_gpus_field(0), "num_gpus");
        // absent fields are not written: files and links stay as they were
        let json = split().to_json_pretty();
        assert!(!json.contains("num_gpus\": null") && !json.contains("prefill_num_gpus"));
        let back: Scenario = serde_json::from_str(&s.to_json_pretty()).unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn a_pools_gpus_take_num_gpus_values_and_errors_name_the_field() {
        let mut s = split();
        let d = s.disaggregation.as_mut().unwrap();
        d.prefill_num_gpus = Some(3);
        d.decode_num_gpus = Some(16);
        let e = s.validate().unwrap_err().to_string();
        assert!(e.contains("disaggregation.prefill_num_gpus") && e.contains("got 3"), "{e}");
        assert!(e.contains("disaggregation.decode_num_gpus") && e.contains("got 16"), "{e}");
        let d = s.disaggregation.as_mut().unwrap();
        d.prefill_num_gpus = Some(1);
        d.decode_num_gpus = Some(8);
        s.validate().unwrap();
    }
}
