//! Metrics with vLLM's benchmark definitions.
//!
//! * TTFT: arrival → first output token (queueing + prefill).
//! * TPOT: (E2E − TTFT) / (output tokens − 1), per request with more than one output token.
//! * ITL: every gap between two consecutive output tokens of a request.
//! * E2E: arrival → last token. Queue time: arrival → first scheduled. Prefill time: first
//!   scheduled → first token (TTFT = queue + prefill).
//! * Goodput: requests that met every SLO of their class, per second, and their output tokens.
//!
//! These latencies count completed requests only (`vllm bench` does the same): a request that
//! timed out, was rejected or was lost never enters them. Their censored views
//! (`ttft_ms_censored`, `e2e_ms_censored`) count every request that arrived: a completed one at
//! its latency, any other at what it is known to be at least, its age when it ended without an
//! answer (a timed-out request's timeout) or its age now if it is still waiting or running (a
//! request that has its first token counts its TTFT exactly). Each figure of a censored view is
//! therefore a lower bound of the figure over every request.
//!
//! Percentiles come from HDR histograms (3 significant digits, microsecond resolution); means
//! are exact sums.
//!
//! The summary's types are here; sim-core's `metrics` measures a run into them (the histograms
//! behind the latencies, each class's running figures, the bounded time series).

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};
use std::collections::BTreeMap;

/// One point of the time series, averaged over its interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Sample {
    /// End of the interval, seconds.
    pub t_s: f64,
    pub queue_len: f64,
    pub running: f64,
    /// KV allocated ÷ KV pool.
    pub kv_fill: f64,
    /// Output tokens of requests completed in the interval, per second.
    pub throughput_tok_s: f64,
    /// The same, counting only requests that met their SLOs.
    pub goodput_tok_s: f64,
}

/// A latency distribution in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Dist {
    pub count: u64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

/// A latency over every request that arrived, the ones without an answer counted at a lower
/// bound (see the module's introduction): every figure is at least `count` requests' figure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Censored {
    /// Requests counted: every request that arrived, answered or not.
    pub count: u64,
    /// Of them, the ones counted at a lower bound (timed out, rejected, lost, or not ended).
    pub censored: u64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

/// Serialised with `ended` (completed + rejected + timed out + failed) after the fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub arrived: u64,
    pub completed: u64,
    /// Refused at arrival: queue full, server restarting, or longer than max_model_len.
    pub rejected: u64,
    /// Dropped after waiting queue_timeout_ms without a first token.
    pub timed_out: u64,
    /// Lost in an OOM restart.
    pub failed: u64,
    /// Preemptions (a request preempted twice counts twice).
    pub preempted: u64,
    pub oom_restarts: u64,
    /// Arrived and not yet ended.
    pub in_flight: u64,
}

impl Serialize for Counts {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Counts", 9)?;
        st.serialize_field("arrived", &self.arrived)?;
        st.serialize_field("completed", &self.completed)?;
        st.serialize_field("rejected", &self.rejected)?;
        st.serialize_field("timed_out", &self.timed_out)?;
        st.serialize_field("failed", &self.failed)?;
        st.serialize_field("preempted", &self.preempted)?;
        st.serialize_field("oom_restarts", &self.oom_restarts)?;
        st.serialize_field("in_flight", &self.in_flight)?;
        st.serialize_field("ended", &self.ended())?;
        st.end()
    }
}

impl Counts {
    /// Requests that ended: completed, rejected, timed out or failed.
    pub fn ended(&self) -> u64 {
        self.completed + self.errors()
    }
    /// Requests that ended without an answer: rejected, timed out or failed.
    pub fn errors(&self) -> u64 {
        self.rejected + self.timed_out + self.failed
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Throughput {
    pub output_tokens_per_s: f64,
    pub total_tokens_per_s: f64,
    pub requests_per_s: f64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Goodput {
    pub requests_per_s: f64,
    pub output_tokens_per_s: f64,
    /// Good requests ÷ requests that ended (completed, rejected, timed out or failed).
    pub slo_attainment: f64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Memory {
    pub hbm_bytes: f64,
    /// The target's weights and a draft model's (speculative decoding), if there is one.
    pub weights_bytes: f64,
    /// The draft model's part of `weights_bytes`; absent without a draft model.
    #[serde(skip_serializing_if = "crate::is_zero_f64")]
    pub draft_weights_bytes: f64,
    pub activation_bytes: f64,
    /// Capacity × (1 − gpu_memory_utilization): outside the server's budget.
    pub headroom_bytes: f64,
    /// In the headroom: the serving process's CUDA context and CUDA graphs.
    pub runtime_bytes: f64,
    /// In the headroom: memory other processes hold on the GPUs.
    pub other_process_bytes: f64,
    pub kv_capacity_bytes: f64,
    pub kv_peak_bytes: f64,
    /// KV bytes a token takes in the pool: the target's and a draft model's.
    pub kv_bytes_per_token: f64,
    /// The draft model's part of `kv_bytes_per_token`; absent without a draft model.
    #[serde(skip_serializing_if = "crate::is_zero_f64")]
    pub draft_kv_bytes_per_token: f64,
    pub kv_capacity_tokens: u64,
    /// Most sequences holding KV at once.
    pub peak_running: u64,
    /// Share of allocated KV holding no token, averaged over iterations (fragmentation and
    /// over-reservation).
    pub kv_waste_mean: f64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Cost {
    pub usd_per_hour: f64,
    pub usd_per_million_output_tokens: f64,
    pub usd_per_million_good_tokens: f64,
}

/// Everything measured for one class, or for all classes together.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ClassSummary {
    pub requests: Counts,
    pub ttft_ms: Dist,
    pub tpot_ms: Dist,
    pub itl_ms: Dist,
    pub e2e_ms: Dist,
    pub queue_ms: Dist,
    pub prefill_ms: Dist,
    /// TTFT over every request that arrived, lower bounds for those without a first token.
    pub ttft_ms_censored: Censored,
    /// E2E over every request that arrived, lower bounds for those without an answer.
    pub e2e_ms_censored: Censored,
    pub throughput: Throughput,
    pub goodput: Goodput,
    /// Prefix caching (`scheduler.prefix_caching`; absent when off).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix_cache: Option<PrefixCache>,
}

/// What prefix caching saved: the share of prompt tokens found in the cache (each admission
/// counts, so a preempted prompt that is recomputed counts again), those tokens, and the cached
/// blocks taken back for other allocations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PrefixCache {
    /// Prompt tokens served from the cache ÷ prompt tokens admitted (0 before any admission).
    pub hit_rate: f64,
    pub cached_tokens: u64,
    pub evicted_blocks: u64,
}

impl PrefixCache {
    /// From the prompt tokens admitted, those found cached and the blocks evicted.
    pub fn of(prompt_tokens: u64, cached_tokens: u64, evicted_blocks: u64) -> PrefixCache {
        let hit_rate = if prompt_tokens > 0 { cached_tokens as f64 / prompt_tokens as f64 } else { 0.0 };
        PrefixCache { hit_rate, cached_tokens, evicted_blocks }
    }
}

/// The summary's `disaggregation` part.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct DisaggSummary {
    pub prefill_replicas: u32,
    pub decode_replicas: u32,
    /// KV transfers that reached their decode replica.
    pub transfers: u64,
    /// From a prompt's last prefill chunk ending to its KV arriving at the decode replica: the
    /// wait for the links, `bytes ÷ bandwidth` and the latency.
    pub kv_transfer_ms: Dist,
    /// The part of it spent waiting for a link held by another transfer.
    pub link_wait_ms: Dist,
    /// Bytes moved, all transfers.
    pub kv_bytes: f64,
}

/// The summary's `speculative` part (present only when speculation is on).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct SpeculativeSummary {
    /// Tokens emitted per decode step per sequence, averaged over the run's decode steps (the
    /// accepted draft tokens plus the verifying pass's own; vLLM's "mean acceptance length").
    /// A sequence that needs fewer to finish emits only those; this counts the step's draw.
    pub mean_accepted_tokens_per_step: f64,
    /// Draft tokens proposed per sequence per step (`k`).
    pub draft_tokens: u32,
}

/// A run's numbers: all traffic (`all`, serialised in place), memory, cost and each class.
/// [`crate::metric::Metric`] names each number.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    pub duration_s: f64,
    #[serde(flatten)]
    pub all: ClassSummary,
    /// One replica's HBM plan; with several replicas `kv_peak_bytes` and `peak_running` are the
    /// largest replica's.
    pub memory: Memory,
    /// Every GPU of every replica.
    pub cost: Cost,
    pub classes: BTreeMap<String, ClassSummary>,
    /// Speculative decoding's accepted tokens (only when `speculative` is on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speculative: Option<SpeculativeSummary>,
    /// With more than one replica: each replica (absent with one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub replicas: Vec<ReplicaSummary>,
    /// With more than one replica: how the router spread the requests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub router: Option<RouterSummary>,
    /// Prefill/decode disaggregation: the KV transfers (absent without it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disaggregation: Option<DisaggSummary>,
}

/// One replica of a cluster.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ReplicaSummary {
    /// Requests the router sent it (rejected ones included).
    pub requests: u64,
    pub completed: u64,
    pub ttft_ms: Dist,
    pub kv_peak_bytes: f64,
    /// Share of the run its GPUs spent running iterations.
    pub busy_share: f64,
    /// Prefix caching: prompt tokens it served from its cache ÷ prompt tokens it admitted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix_hit_rate: Option<f64>,
}

/// How the router spread a cluster's requests.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RouterSummary {
    pub policy: String,
    /// Requests of the busiest replica ÷ the mean over replicas (1 when even).
    pub imbalance: f64,
    /// `prefix_affinity`: requests sent to the replica holding most of their prefix, sent
    /// elsewhere because that replica was over the load cap, and with no replica holding any.
    pub by_affinity: u64,
    pub over_cap: u64,
    pub none_cached: u64,
}

/// Outcome of one request, as written by `llmsim run --requests`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Completed,
    Rejected,
    TimedOut,
    Failed,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RequestRecord {
    pub id: u64,
    pub class: String,
    pub arrival_s: f64,
    pub input_tokens: u32,
    pub output_tokens: u32,
    pub outcome: Outcome,
    pub queue_ms: Option<f64>,
    pub ttft_ms: Option<f64>,
    pub tpot_ms: Option<f64>,
    pub e2e_ms: Option<f64>,
    pub preemptions: u32,
    pub met_slo: bool,
}
