//! What the page and the CLI read at one moment: live requests, recent endings, the HBM split,
//! the last iteration, what limits the run (and the plan's record of why admission stopped).
//! Plain values: a replica's are read through its `State` (`state.rs`), the snapshot is put
//! together by the driver (`observe.rs`). Building a view never changes the simulation, and its
//! size depends on live requests only.

use super::requests::Phase;
use crate::metrics::Summary;
use serde::Serialize;

/// A request's end, for the stage's recent-events list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    Completed,
    Rejected,
    TimedOut,
    Failed,
    /// Not an end: sent back to the queue to be recomputed.
    Preempted,
}

/// Live request as the stage sees it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LiveRequest {
    pub id: u64,
    pub class: u16,
    pub phase: Phase,
    pub arrival_s: f64,
    pub input_tokens: u32,
    pub output_tokens: u32,
    /// Prompt tokens computed (of `prefill_target`).
    pub prefilled: u32,
    pub prefill_target: u32,
    /// Output tokens generated so far.
    pub generated: u32,
    pub preemptions: u32,
    /// KV tokens this request holds, and the tokens its allocation could hold.
    pub kv_tokens: u64,
    pub kv_reserved_tokens: u64,
    /// Prefix caching: the first `cached_tokens` of its prompt were found in the cache (not
    /// computed; their KV is shared with the other requests of its prefix). 0 otherwise.
    pub cached_tokens: u32,
    /// The replica the router sent it to (0 with one replica); with disaggregation, its prefill
    /// replica until its KV has arrived, then its decode replica.
    pub replica: u16,
    /// Disaggregation: its prompt is prefilled and its KV on the links to a decode replica
    /// (still held by `replica`); `None` otherwise.
    pub transfer: Option<KvTransfer>,
}

/// A prompt's KV on its way from its prefill replica to a decode replica (see
/// [`crate::disagg`]): it waits for both links to be free, then takes `bytes ÷ bandwidth` on the
/// wire and the link's latency.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct KvTransfer {
    /// The decode replica it goes to.
    pub to: u16,
    /// When its last prefill chunk ended and it was sent, s.
    pub sent_s: f64,
    /// When its first byte left (both links free), s.
    pub start_s: f64,
    /// When it arrives: the last byte, plus the link's latency, s.
    pub arrive_s: f64,
}

/// One replica of a cluster at one moment.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ReplicaView {
    /// What it runs: both phases, or with disaggregation prompts or decodes only.
    pub pool: Pool,
    pub queued: u64,
    pub running: u64,
    /// Disaggregation: prompts prefilled here whose KV is on its way (counted in `running`).
    pub sending: u64,
    /// KV allocated ÷ its KV pool.
    pub kv_fill: f64,
    /// Down for an OOM restart.
    pub restarting: bool,
}

/// What a replica runs: prompts and decodes, or with prefill/decode disaggregation one of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Pool {
    Both,
    /// Prompts only: a prefilled prompt's KV leaves for a decode replica.
    Prefill,
    /// Decode steps only (and the prompt's last position again, for the first token).
    Decode,
}

/// A request that recently ended or was preempted.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RecentEnding {
    pub id: u64,
    pub class: u16,
    pub ending: Ending,
    pub at_s: f64,
}

/// HBM split for the gauge, bytes summed over the replica's GPUs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct HbmUse {
    pub capacity: f64,
    pub weights: f64,
    pub activations: f64,
    /// KV holding tokens.
    pub kv_used: f64,
    /// KV allocated but empty: the tail of paged blocks, or contiguous over-reservation.
    pub kv_waste: f64,
    /// KV pool not allocated.
    pub kv_free: f64,
    /// Prefix caching: KV of cached prompt blocks no running sequence references, kept for
    /// requests to come and taken back (LRU) only when the pool has no free block left. Not in
    /// `kv_free`; 0 without prefix caching.
    pub kv_cached: f64,
    /// In the headroom: the CUDA context and graphs of the server and other processes' memory.
    pub outside_budget: f64,
    /// Beyond gpu_memory_utilization, less what lives there (`outside_budget`). Negative while
    /// an over-committed server eats into it.
    pub headroom: f64,
    pub utilization_limit: f64,
}

impl HbmUse {
    /// Share of the capacity allocated now: weights, activations and the KV cache in use or
    /// reserved (what a memory monitor would report as used). 0 without capacity.
    pub fn allocated_share(&self) -> f64 {
        if self.capacity > 0.0 {
            (self.weights + self.activations + self.kv_used + self.kv_waste) / self.capacity
        } else {
            0.0
        }
    }

    /// Share of the KV pool allocated now (holding tokens, or reserved and empty); 0 without a
    /// pool. At most 1: an over-committing server that holds more than its pool is at 1.
    pub fn kv_pool_share(&self) -> f64 {
        let pool = self.kv_used + self.kv_waste + self.kv_cached + self.kv_free;
        if pool > 0.0 {
            (self.kv_used + self.kv_waste) / pool
        } else {
            0.0
        }
    }
}

/// What the last iteration did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct StepInfo {
    pub start_s: f64,
    pub duration_ms: f64,
    pub prefill_tokens: u64,
    pub decode_seqs: u64,
    pub compute_bound_share: f64,
    /// Speculative decoding: draft tokens each decoding sequence proposed in this step (`k`),
    /// and how many of them the verifying pass accepted (the step emits one more of its own).
    /// 0 and 0 without speculation or without decoding sequences.
    pub draft_tokens: u32,
    pub accepted_draft_tokens: u32,
}

/// Why an iteration admitted no more waiting prompts (recorded by the plan for the stage's
/// bottleneck badge; it changes nothing the plan does).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AdmitStop {
    /// Nothing (more) was waiting, or nothing waiting could be tried.
    #[default]
    QueueEmpty,
    /// Every batch slot was taken: `max_num_seqs` sequences run.
    MaxSeqs { max_num_seqs: u64 },
    /// The next prompt's KV did not fit: the units it needed (paged: blocks with the 1%
    /// watermark; contiguous: `max_model_len` tokens) and the units free.
    KvMemory { need_units: u64, free_units: u64 },
    /// The next prompt would have eaten into another class's reserved share (isolation).
    Reserved,
    /// The iteration's token budget (`max_num_batched_tokens`) was spent.
    TokenBudget { budget: u64 },
    /// Batch waiting held the step's new prompts back (`scheduler.batch_wait_iters`).
    BatchWait,
}

/// What limits the run now, for the stage's bottleneck badge: why the scheduler's last plan
/// admitted no more waiting requests, or, when everything waiting was admitted, what the
/// iteration on the GPU spends its time on. Each variant carries the numbers that say so.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Limit {
    /// Nothing runs and nothing waits: the GPU waits for requests.
    Idle,
    /// The server is down for an OOM restart until this time.
    Restarting { until_s: f64 },
    /// Static batching: requests wait for the batch to fill (`batch` = max_num_seqs) or the
    /// oldest one's window to close.
    FillingBatch { waiting: u64, batch: u64 },
    /// Static batching: a batch of `running` runs until its longest output; `waiting` wait.
    StaticBatch { running: u64, waiting: u64 },
    /// Requests wait while every batch slot is taken, though KV is free.
    MaxBatch { max_num_seqs: u64, kv_free_bytes: f64 },
    /// Requests wait because the next one's KV does not fit (`preempting`: the last plan sent
    /// running sequences back to recompute).
    KvMemory { need_bytes: f64, free_bytes: f64, preempting: bool },
    /// Requests wait for other classes' reserved shares (isolation).
    Reserved { waiting: u64 },
    /// Requests wait because the iteration's token budget is spent.
    TokenBudget { budget: u64 },
    /// Nothing waits for a reason of its own: the iteration on the GPU is a compute-bound
    /// prefill of `prefill_tokens` tokens.
    PrefillCompute { prefill_tokens: u64 },
    /// Nothing waits for a reason of its own: decoding, whose every step reads the weights.
    DecodeSpeed { decode_seqs: u64, step_ms: f64 },
}

/// Everything the UI draws at one moment. Its size depends on live requests only. With several
/// replicas, requests and queues are the cluster's, the HBM split, the last step and the limit
/// are the most loaded replica's (the summary's memory is one replica's plan too), and
/// `replicas` has a line per replica (empty with one).
#[derive(Clone, Debug, Serialize)]
pub struct Snapshot {
    pub now_s: f64,
    pub finished: bool,
    /// Server down for an OOM restart until this time.
    pub restarting_until_s: Option<f64>,
    pub requests: Vec<LiveRequest>,
    pub recent: Vec<RecentEnding>,
    /// Requests waiting, per class.
    pub queued: Vec<u64>,
    pub running: u64,
    pub hbm: HbmUse,
    pub last_step: StepInfo,
    pub limit: Limit,
    pub summary: Summary,
    pub replicas: Vec<ReplicaView>,
}
