//! A replica as the others read it: [`State`], a read-only view of its parts that the planner
//! plans from (`plan.rs`) and the page's readings are made of — the HBM split, what limits the
//! run, the live requests and its line of a cluster's snapshot. Only the replica (`replica/`)
//! changes its state; it shows this view and applies what is decided on it.

use super::decode::DecodeGroup;
use super::kv::KvPool;
use super::prefix::PrefixCache;
use super::requests::{Handle, Phase, Req, Requests, WaitQueues};
use super::static_batch::StaticBatch;
use super::time::Micros;
use super::view::{AdmitStop, HbmUse, Limit, LiveRequest, Pool, ReplicaView, StepInfo};
use crate::memory::HbmPlan;
use crate::scenario::{Batching, SchedulerConfig};
use crate::speculative::Speculation;
use std::collections::BTreeMap;

/// One replica's state, read-only: the planner plans from it and the page's readings below are
/// made of it. The replica (`replica/`) is its one implementation; each method hands out a part
/// without copying it.
pub(crate) trait State {
    /// What it runs: both phases, or with disaggregation prompts or decodes only.
    fn role(&self) -> Pool;
    fn sched(&self) -> &SchedulerConfig;
    /// Each class's priority (isolation).
    fn priority(&self) -> &[u32];
    fn hbm(&self) -> &HbmPlan;
    fn reqs(&self) -> &Requests;
    fn queues(&self) -> &WaitQueues;
    /// Running (admitted) requests per class: admission order → slot.
    fn running(&self) -> &[BTreeMap<u64, u32>];
    /// Admitted prompts not yet fully computed, oldest first.
    fn prefilling(&self) -> &[Handle];
    fn group(&self) -> &DecodeGroup;
    fn pool(&self) -> &KvPool;
    fn cache(&self) -> Option<&PrefixCache>;
    fn static_batch(&self) -> Option<&StaticBatch>;
    fn spec(&self) -> Option<&Speculation>;
    /// Down for an OOM restart until then.
    fn restarting_until(&self) -> Option<Micros>;
    /// KV tokens held by sequences outside the decode group.
    fn loose_tokens(&self) -> u64;
    fn last_step(&self) -> &StepInfo;
    /// Waiting requests that reached the replica after this are not seen by this plan.
    fn visible_until(&self) -> Micros {
        Micros::MAX
    }
    /// Why the last plan admitted no more waiting prompts, and whether it preempted.
    fn last_stop(&self) -> (AdmitStop, bool);
    /// SGLang's admission: the share of the running sequences' remaining output it counts as
    /// taken (falls from 0.7 to 0.098 over 600 decode steps, back to 0.7 when idle).
    fn new_token_ratio(&self) -> f64;
    /// Batch waiting: steps in a row whose new prompts it held back so far.
    fn batch_waited(&self) -> u32;

    /// KV units a running request holds now (without the cached blocks it shares).
    #[inline]
    fn held_units(&self, r: &Req) -> u64 {
        held_units(self.pool(), self.group(), self.cache(), self.static_batch().is_some(), r)
    }

    /// The HBM split for the gauge.
    fn hbm_use(&self) -> HbmUse {
        let p = self.hbm();
        let bpt = p.kv_bytes_per_token;
        let alloc = (self.pool().used() * self.pool().unit_tokens()) as f64 * bpt;
        let g = &p.pool_growth;
        let used_tokens = if g.window_groups == 0 && g.state_tokens == 0 && g.full_groups == 1 {
            if self.static_batch().is_some() {
                self.loose_tokens()
            } else {
                self.group().ctx_sum + self.loose_tokens()
            }
        } else {
            // by attention form: full layers hold every token, sliding-window layers at most the
            // window (prompts being prefilled are counted as if inside it), linear layers a state
            let decoding = if self.static_batch().is_some() {
                0
            } else {
                g.full_groups * self.group().ctx_sum + g.window_groups * self.group().window_ctx_sum
            };
            decoding + (g.full_groups + g.window_groups) * self.loose_tokens() + g.state_tokens * self.pool().seqs()
        };
        // shared prefix tokens are held once, not once per request that references them
        let used_tokens = match self.cache() {
            Some(c) => {
                let per_token =
                    if g.full_groups == 1 && g.window_groups == 0 { 1 } else { g.full_groups + g.window_groups };
                (used_tokens + c.held_tokens * per_token).saturating_sub(c.ref_tokens * per_token)
            }
            None => used_tokens,
        };
        let used = (used_tokens as f64 * bpt).min(alloc);
        let cached = (self.pool().cached() * self.pool().unit_tokens()) as f64 * bpt;
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
    fn limit(&self) -> Limit {
        if let Some(t) = self.restarting_until() {
            return Limit::Restarting { until_s: t as f64 / 1e6 };
        }
        let (waiting, running) = (self.queues().total(), self.pool().seqs());
        if waiting == 0 && running == 0 {
            return Limit::Idle;
        }
        if self.sched().batching == Batching::Static {
            return match self.static_batch() {
                Some(_) => Limit::StaticBatch { running, waiting },
                None => Limit::FillingBatch { waiting, batch: self.sched().max_num_seqs as u64 },
            };
        }
        let bytes = |units: u64| (units * self.pool().unit_tokens()) as f64 * self.hbm().kv_bytes_per_token;
        if waiting > 0 {
            match self.last_stop().0 {
                AdmitStop::MaxSeqs { max_num_seqs } if running >= max_num_seqs => {
                    return Limit::MaxBatch { max_num_seqs, kv_free_bytes: self.hbm_use().kv_free };
                }
                AdmitStop::KvMemory { need_units, free_units } => {
                    return Limit::KvMemory {
                        need_bytes: bytes(need_units),
                        free_bytes: bytes(free_units),
                        preempting: self.last_stop().1,
                    };
                }
                AdmitStop::Reserved => return Limit::Reserved { waiting },
                AdmitStop::TokenBudget { budget } => return Limit::TokenBudget { budget },
                _ => {}
            }
        }
        let s = self.last_step();
        if s.prefill_tokens > 0 && s.compute_bound_share >= 0.5 {
            Limit::PrefillCompute { prefill_tokens: s.prefill_tokens }
        } else {
            Limit::DecodeSpeed { decode_seqs: s.decode_seqs, step_ms: s.duration_ms }
        }
    }

    /// Live requests (queued, prefilling, decoding), in slot order.
    fn live_requests(&self) -> Vec<LiveRequest> {
        let mut out = Vec::with_capacity((self.queues().total() + self.pool().seqs()) as usize);
        for r in self.reqs().live() {
            let (kv, generated) = match (self.static_batch(), r.phase) {
                (_, Phase::Queued) => (0, r.generated),
                (Some(b), _) => (b.p_max as u64 + b.step as u64, r.generated),
                (None, Phase::Prefill) => (r.prefilled as u64, r.generated),
                (None, Phase::Decode) if r.static_done => (self.group().tokens(r), r.generated),
                (None, Phase::Decode) => (self.group().tokens(r), self.group().generated(r)),
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
                kv_reserved_tokens: r.units * self.pool().unit_tokens(),
                cached_tokens: r.hit_tokens,
                replica: 0,
                transfer: None,
            });
        }
        out
    }

    /// Disaggregation: prompts prefilled here whose KV is on its way to a decode replica.
    fn sending(&self) -> u64 {
        self.reqs().live().filter(|r| r.sending).count() as u64
    }

    /// Its line of a cluster's snapshot.
    fn line(&self) -> ReplicaView {
        ReplicaView {
            pool: self.role(),
            queued: self.queues().total(),
            running: self.pool().seqs(),
            sending: if self.role() == Pool::Prefill { self.sending() } else { 0 },
            kv_fill: self.pool().used_share(),
            restarting: self.restarting_until().is_some(),
        }
    }
}

/// KV units running request `r` holds now (without the cached blocks it shares). Paged decode
/// members grow in aggregate, so their holding is computed from their token count.
#[inline]
pub(crate) fn held_units(
    pool: &KvPool,
    group: &DecodeGroup,
    cache: Option<&PrefixCache>,
    static_batch: bool,
    r: &Req,
) -> u64 {
    if r.phase == Phase::Decode && !static_batch && pool.paged() {
        let shared = match cache {
            Some(c) if r.cached_blocks > 0 => pool.units_for(r.cached_blocks as u64 * c.block()),
            _ => 0,
        };
        pool.seq_units(group.tokens(r)) - shared
    } else {
        r.units
    }
}
