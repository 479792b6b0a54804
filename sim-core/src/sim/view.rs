//! What the page and the CLI read at one moment: live requests, recent endings, the HBM split,
//! the last iteration. Building a view never changes the simulation, and its size depends on
//! live requests only.

use super::plan::AdmitStop;
use super::replica::Replica;
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

impl Replica {
    pub fn hbm_use(&self) -> HbmUse {
        let p = &self.plan;
        let bpt = p.kv_bytes_per_token;
        let alloc = (self.pool.used() * self.pool.unit_tokens()) as f64 * bpt;
        let g = &p.pool_growth;
        let used_tokens = if g.window_groups == 0 && g.state_tokens == 0 && g.full_groups == 1 {
            if self.static_batch.is_some() {
                self.loose_tokens
            } else {
                self.group.ctx_sum + self.loose_tokens
            }
        } else {
            // by attention form: full layers hold every token, sliding-window layers at most the
            // window (prompts being prefilled are counted as if inside it), linear layers a state
            let decoding = if self.static_batch.is_some() {
                0
            } else {
                g.full_groups * self.group.ctx_sum + g.window_groups * self.group.window_ctx_sum
            };
            decoding + (g.full_groups + g.window_groups) * self.loose_tokens + g.state_tokens * self.pool.seqs()
        };
        // shared prefix tokens are held once, not once per request that references them
        let used_tokens = match &self.cache {
            Some(c) => {
                let per_token =
                    if g.full_groups == 1 && g.window_groups == 0 { 1 } else { g.full_groups + g.window_groups };
                (used_tokens + c.held_tokens * per_token).saturating_sub(c.ref_tokens * per_token)
            }
            None => used_tokens,
        };
        let used = (used_tokens as f64 * bpt).min(alloc);
        let cached = (self.pool.cached() * self.pool.unit_tokens()) as f64 * bpt;
        let free = (p.kv_capacity_bytes - alloc - cached).max(0.0);
        HbmUse {
            capacity: p.capacity_bytes,
            weights: p.weights_bytes,
            activations: p.activation_bytes,
            kv_used: used,
            kv_waste: alloc - used,
            kv_free: free,
            kv_cached: cached,
            outside_budget: p.outside_budget_bytes(),
            headroom: p.capacity_bytes
                - p.outside_budget_bytes()
                - p.weights_bytes
                - p.activation_bytes
                - alloc
                - cached
                - free,
            utilization_limit: p.capacity_bytes - p.headroom_bytes,
        }
    }

    /// What limits the run now (see [`Limit`]).
    pub fn limit(&self) -> Limit {
        if let Some(t) = self.restarting_until {
            return Limit::Restarting { until_s: t as f64 / 1e6 };
        }
        let (waiting, running) = (self.queues.total(), self.pool.seqs());
        if waiting == 0 && running == 0 {
            return Limit::Idle;
        }
        if self.sched.batching == crate::scenario::Batching::Static {
            return match &self.static_batch {
                Some(_) => Limit::StaticBatch { running, waiting },
                None => Limit::FillingBatch { waiting, batch: self.sched.max_num_seqs as u64 },
            };
        }
        let plan = self.planning.as_ref().map(|s| &s.plan);
        let bytes = |units: u64| (units * self.pool.unit_tokens()) as f64 * self.plan.kv_bytes_per_token;
        if waiting > 0 {
            match plan.map_or(AdmitStop::QueueEmpty, |p| p.stop) {
                AdmitStop::MaxSeqs { max_num_seqs } if running >= max_num_seqs => {
                    return Limit::MaxBatch { max_num_seqs, kv_free_bytes: self.hbm_use().kv_free };
                }
                AdmitStop::KvMemory { need_units, free_units } => {
                    let preempting = plan.is_some_and(|p| !p.preempted.is_empty());
                    return Limit::KvMemory {
                        need_bytes: bytes(need_units),
                        free_bytes: bytes(free_units),
                        preempting,
                    };
                }
                AdmitStop::Reserved => return Limit::Reserved { waiting },
                AdmitStop::TokenBudget { budget } => return Limit::TokenBudget { budget },
                _ => {}
            }
        }
        let s = &self.last_step;
        if s.prefill_tokens > 0 && s.compute_bound_share >= 0.5 {
            Limit::PrefillCompute { prefill_tokens: s.prefill_tokens }
        } else {
            Limit::DecodeSpeed { decode_seqs: s.decode_seqs, step_ms: s.duration_ms }
        }
    }

    /// Live requests (queued, prefilling, decoding), in slot order.
    pub fn live_requests(&self) -> Vec<LiveRequest> {
        let mut out = Vec::with_capacity((self.queues.total() + self.pool.seqs()) as usize);
        for r in self.reqs.live() {
            let (kv, generated) = match (&self.static_batch, r.phase) {
                (_, Phase::Queued) => (0, r.generated),
                (Some(b), _) => (b.p_max as u64 + b.step as u64, r.generated),
                (None, Phase::Prefill) => (r.prefilled as u64, r.generated),
                (None, Phase::Decode) if r.static_done => (self.group.tokens(r), r.generated),
                (None, Phase::Decode) => (self.group.tokens(r), self.group.generated(r)),
            };
            out.push(LiveRequest {
                id: r.id,
                class: r.class,
                phase: r.phase,
                arrival_s: r.arrival as f64 / 1e6,
                input_tokens: r.input,
                output_tokens: r.output,
                prefilled: r.prefilled,
                prefill_target: r.prefill_target,
                generated,
                preemptions: r.preemptions,
                kv_tokens: kv,
                kv_reserved_tokens: r.units * self.pool.unit_tokens(),
                cached_tokens: r.hit_tokens,
                replica: 0,
                transfer: None,
            });
        }
        out
    }

    /// Its line of a cluster's snapshot.
    pub fn view(&self) -> ReplicaView {
        ReplicaView {
            pool: self.role,
            queued: self.queues.total(),
            running: self.pool.seqs(),
            sending: if self.role == Pool::Prefill { self.reqs.live().filter(|r| r.sending).count() as u64 } else { 0 },
            kv_fill: self.pool.used_share(),
            restarting: self.restarting_until.is_some(),
        }
    }
}
