//! Reading a simulation: its parts and progress, the CDFs, the summary, the live requests and
//! snapshot the page draws, and the consistency checks tests run at every event.

use super::prefix::CacheStats;
use super::replica::{self, Replica};
use super::state::State;
use super::view::{KvTransfer, Limit, LiveRequest, RecentEnding, Snapshot};
use super::{Micros, Simulation};
use crate::catalog::{GpuSpec, ModelSpec};
use crate::memory::HbmPlan;
use crate::metrics::{ReplicaSummary, RouterSummary, Sample, Summary};
use crate::perf::StepModel;
use crate::scenario::Scenario;
use std::cell::Ref;

impl Simulation {
    /// Standard deviation of every inter-token gap so far, in ms (from the ITL histogram).
    pub fn itl_std_ms(&self) -> f64 {
        self.rec.borrow().all().itl.std_ms()
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }
    pub fn model(&self) -> &ModelSpec {
        &self.model
    }
    pub fn gpu(&self) -> &GpuSpec {
        &self.gpu
    }
    /// The first replica's HBM plan (every replica has the same, but with disaggregation and a
    /// pool's own GPUs: then the prefill pool's; [`Simulation::replica_hbm_plan`]).
    pub fn hbm_plan(&self) -> &HbmPlan {
        self.replicas[0].plan()
    }
    pub fn step_model(&self) -> &StepModel {
        self.replicas[0].step_model()
    }
    /// Replica `i`'s HBM plan, on its own tensor parallelism (with disaggregation, its pool's).
    pub fn replica_hbm_plan(&self, i: usize) -> &HbmPlan {
        self.replicas[i].plan()
    }
    /// The HBM plan whose KV pool holds the fewest tokens, of every replica's: the one a limit
    /// on sequences held at once must fit (the only plan, but with a pool's own GPUs).
    pub fn tightest_hbm_plan(&self) -> &HbmPlan {
        let plans = self.replicas.iter().map(|r| r.plan());
        plans.min_by_key(|p| p.kv_capacity_tokens).expect("a simulation has replicas")
    }
    /// Replica `i`'s step model, on its own tensor parallelism.
    pub fn replica_step_model(&self, i: usize) -> &StepModel {
        self.replicas[i].step_model()
    }
    /// Replicas serving the traffic.
    pub fn replica_count(&self) -> usize {
        self.replicas.len()
    }
    pub fn now(&self) -> Micros {
        self.now
    }
    pub fn events_processed(&self) -> u64 {
        self.events_processed
    }
    /// Requests the scenario will send in all (with conversations: the turns planned, less those
    /// of conversations given up so far).
    pub fn total_requests(&self) -> u64 {
        self.total_requests
    }
    /// Share of all requests that have ended, 0..=1.
    pub fn progress(&self) -> f64 {
        if self.total_requests == 0 {
            1.0
        } else {
            self.rec.borrow().ended_count() as f64 / self.total_requests as f64
        }
    }
    pub fn class_names(&self) -> &[String] {
        &self.class_names
    }
    /// No event left: every request has ended.
    pub fn is_finished(&self) -> bool {
        self.events.is_empty()
    }
    /// The request counts of all traffic so far, without building a summary (`in_flight` is not
    /// filled in): what a caller watching for a first rejection or preemption reads each event.
    pub fn counts(&self) -> crate::metrics::Counts {
        self.rec.borrow().all_counts()
    }
    /// The time series so far (the whole cluster's).
    pub fn series(&self) -> Ref<'_, [Sample]> {
        Ref::map(self.rec.borrow(), |r| &r.series.samples[..])
    }
    /// Recent endings and preemptions, oldest first (`snapshot().recent` without a snapshot).
    pub fn recent_endings(&self) -> Vec<RecentEnding> {
        self.rec.borrow().recent().copied().collect()
    }
    /// Empirical CDF points (ms, fraction) of TTFT for a class, or all classes with `None`.
    pub fn ttft_cdf(&self, class: Option<usize>, points: usize) -> Vec<(f64, f64)> {
        let rec = self.rec.borrow();
        rec.of(class).unwrap_or(rec.all()).ttft_cdf(points)
    }
    /// The TTFT CDF over every request that arrived (`Summary`'s `ttft_ms_censored` as a curve):
    /// requests that timed out, were rejected or lost count at their wait, those still waiting at
    /// their age — a lower bound on the curve the answers would have made. Points `(ms, share)`.
    pub fn ttft_cdf_censored(&self, class: Option<usize>, points: usize) -> Vec<(f64, f64)> {
        let live = self.replicas.iter().flat_map(Replica::live_for_summary);
        self.rec.borrow().ttft_cdf_censored(self.now, live, class, points)
    }
    pub fn tpot_cdf(&self, class: Option<usize>, points: usize) -> Vec<(f64, f64)> {
        let rec = self.rec.borrow();
        rec.of(class).unwrap_or(rec.all()).tpot_cdf(points)
    }
    /// Time of the next event, if any.
    pub fn next_event_time(&self) -> Option<Micros> {
        self.events.peek().map(|(t, _)| t)
    }

    /// The summary so far (final once `is_finished`).
    pub fn summary(&self) -> Summary {
        let merged;
        let prefix = match &self.replicas[..] {
            [one] => one.cache_stats(),
            all => {
                merged = merge_cache_stats(all);
                merged.as_deref()
            }
        };
        let live = self.replicas.iter().flat_map(Replica::live_for_summary);
        let kv_peak = self.replicas.iter().map(Replica::kv_peak_tokens).max().unwrap_or(0);
        let usd_per_hour = self.replicas.iter().map(Replica::usd_per_hour).sum();
        let mut s = self.rec.borrow().summary(self.now, live, self.hbm_plan(), kv_peak, usd_per_hour, prefix);
        s.speculative = crate::speculative::Speculation::summary(self.replicas.iter().filter_map(Replica::speculation));
        if self.replicas.len() > 1 {
            let bpt = self.hbm_plan().kv_bytes_per_token;
            let duration = self.now as f64;
            s.replicas = self
                .replicas
                .iter()
                .map(|r| {
                    let st = r.stats();
                    ReplicaSummary {
                        requests: st.arrived + st.received,
                        completed: st.completed,
                        ttft_ms: st.ttft.dist(),
                        kv_peak_bytes: r.kv_peak_tokens() as f64 * bpt,
                        busy_share: if duration > 0.0 { r.busy_us(self.now) as f64 / duration } else { 0.0 },
                        prefix_hit_rate: r.cache_stats().map(|c| {
                            let (p, k) = c.iter().fold((0, 0), |(p, k), s| (p + s.prompt_tokens, k + s.cached_tokens));
                            if p > 0 {
                                k as f64 / p as f64
                            } else {
                                0.0
                            }
                        }),
                    }
                })
                .collect();
            // the router's choice: over the replicas it picks among
            let pool = &s.replicas[..self.arrival_pool];
            let total: u64 = pool.iter().map(|r| r.requests).sum();
            let most = pool.iter().map(|r| r.requests).max().unwrap_or(0);
            let mean = total as f64 / pool.len() as f64;
            s.router = Some(RouterSummary {
                policy: self.scenario.router.policy.name().to_string(),
                imbalance: if total > 0 { most as f64 / mean } else { 1.0 },
                by_affinity: self.routed.by_affinity,
                over_cap: self.routed.over_cap,
                none_cached: self.routed.none_cached,
            });
        }
        if let (Some(pd), Some(d)) = (&self.pd, &self.scenario.disaggregation) {
            s.disaggregation = Some(pd.links.summary(d));
        }
        s
    }

    /// Live requests (queued, prefilling, decoding), replica by replica, in slot order.
    pub fn live_requests(&self) -> Vec<LiveRequest> {
        let mut out = Vec::new();
        for (i, r) in self.replicas.iter().enumerate() {
            let start = out.len();
            out.extend(r.live_requests());
            out[start..].iter_mut().for_each(|l| l.replica = i as u16);
        }
        if let Some(pd) = self.pd.as_ref().filter(|pd| pd.free.len() < pd.transfers.len()) {
            // the prompts whose KV is on the links, by id
            let mut on_link: Vec<(u64, KvTransfer)> = pd
                .transfers
                .iter()
                .flatten()
                .map(|t| {
                    let s = |us: Micros| us as f64 / 1e6;
                    let view = KvTransfer {
                        to: t.to,
                        sent_s: s(t.sent),
                        start_s: s(t.sent_on.start),
                        arrive_s: s(t.sent_on.arrives),
                    };
                    (self.replicas[t.from as usize].reqs()[t.h].id, view)
                })
                .collect();
            on_link.sort_unstable_by_key(|(id, _)| *id);
            for l in out.iter_mut().filter(|l| (l.replica as usize) < self.arrival_pool) {
                if let Ok(i) = on_link.binary_search_by_key(&l.id, |(id, _)| *id) {
                    l.transfer = Some(on_link[i].1);
                }
            }
        }
        out
    }

    /// The replica with the most requests queued and running (the first of equals).
    fn busiest(&self) -> &Replica {
        let mut best = 0;
        for (i, o) in self.occupancy.iter().enumerate() {
            let b = &self.occupancy[best];
            if o.queued + o.running > b.queued + b.running {
                best = i;
            }
        }
        &self.replicas[best]
    }

    pub fn snapshot(&self) -> Snapshot {
        let busiest = self.busiest();
        let mut queued = vec![0; self.class_names.len()];
        for r in &self.replicas {
            queued.iter_mut().zip(r.queued()).for_each(|(q, n)| *q += n);
        }
        Snapshot {
            now_s: self.now as f64 / 1e6,
            finished: self.is_finished(),
            restarting_until_s: busiest.restarting_until().map(|t| t as f64 / 1e6),
            requests: self.live_requests(),
            recent: self.recent_endings(),
            queued,
            running: self.occupied.running,
            hbm: busiest.hbm_use(),
            last_step: *busiest.last_step(),
            limit: busiest.limit(),
            summary: self.summary(),
            replicas: if self.replicas.len() > 1 {
                self.replicas.iter().map(State::line).collect()
            } else {
                Vec::new()
            },
        }
    }

    /// What limits the run now (the snapshot's `limit`, without building a snapshot); with
    /// several replicas, the most loaded one's.
    pub fn limit(&self) -> Limit {
        self.busiest().limit()
    }

    /// Internal consistency checks, for tests: requests are conserved on every replica and
    /// overall, and KV stays within bounds on every replica.
    pub fn check_invariants(&self) -> Result<(), String> {
        for (i, r) in self.replicas.iter().enumerate() {
            r.check_invariants().map_err(|e| format!("replica {i}: {e}"))?;
            if self.occupancy[i] != r.occupancy() {
                return Err(format!("replica {i}: occupancy {:?} != tracked {:?}", r.occupancy(), self.occupancy[i]));
            }
        }
        let rec = self.rec.borrow();
        let c = rec.all_counts();
        let sum = |f: fn(&replica::ReplicaStats) -> u64| self.replicas.iter().map(|r| f(r.stats())).sum::<u64>();
        let (arrived, ended, completed) = (sum(|s| s.arrived), sum(|s| s.ended), sum(|s| s.completed));
        if (c.arrived, c.ended(), c.completed) != (arrived, ended, completed) {
            return Err(format!(
                "cluster arrived/ended/completed {}/{}/{} != replicas' {arrived}/{ended}/{completed}",
                c.arrived,
                c.ended(),
                c.completed
            ));
        }
        if arrived != self.next_id {
            return Err(format!("{} requests sent, replicas received {arrived}", self.next_id));
        }
        if let Some(pd) = &self.pd {
            // every prompt being sent is one transfer under way, counted at its destination
            let sending: u64 = self.replicas.iter().map(State::sending).sum();
            let under_way = pd.transfers.iter().flatten().count() as u64;
            let incoming: u64 = pd.incoming.iter().sum();
            if sending != under_way || incoming != under_way {
                return Err(format!("{sending} prompts being sent, {under_way} transfers, {incoming} incoming"));
            }
            let (sent, received) = (sum(|s| s.sent), sum(|s| s.received));
            if sent != received || received != pd.links.transfers - under_way {
                return Err(format!(
                    "{sent} prompts sent, {received} received, {} transfers made ({under_way} under way)",
                    pd.links.transfers
                ));
            }
            for (i, r) in self.replicas.iter().enumerate() {
                let prefill = i < self.arrival_pool;
                if prefill && r.stats().completed > 0 || !prefill && r.stats().arrived > 0 {
                    return Err(format!("replica {i} did the other pool's work"));
                }
            }
        }
        Ok(())
    }
}

/// Prefix caching over several replicas: each class's counts summed.
fn merge_cache_stats(replicas: &[Replica]) -> Option<Vec<CacheStats>> {
    let mut out: Option<Vec<CacheStats>> = None;
    for st in replicas.iter().filter_map(Replica::cache_stats) {
        let acc = out.get_or_insert_with(|| vec![CacheStats::default(); st.len()]);
        for (a, s) in acc.iter_mut().zip(st) {
            a.prompt_tokens += s.prompt_tokens;
            a.cached_tokens += s.cached_tokens;
            a.evicted_blocks += s.evicted_blocks;
        }
    }
    out
}
