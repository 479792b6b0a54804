//! A replica: one serving engine — its wait queues, scheduler, KV pool, decode group, step-time
//! model, the live requests and their recording.
//!
//! A replica owns no clock and no arrivals. Its driver calls it with the time of each event
//! (`admit_arrival`, `wake`, then `schedule` once every event of an instant is in) and, after
//! each call, drains the replica's [`Effect`]s: timers to set and ended requests (which a
//! closed-loop workload answers with the user's next request). So a driver can hold several
//! replicas on one clock. They record into one [`Recorder`] the driver gives them (the
//! cluster's numbers), and each keeps its own few figures ([`ReplicaStats`]).
//!
//! Its state is private, and changed only by its methods here and in this folder's files, the
//! one home of its `impl`: its iterations (`step`), continuous batching's plans applied
//! (`schedule`), static batching (`batching`), OOM restarts (`oom`) and its side of prefix
//! caching (`cached`). Others read it through [`State`], the read-only view it implements: the
//! planner decides on it (`plan.rs`), the page's readings are made of it (`state.rs`).

mod batching;
mod cached;
mod oom;
mod schedule;
mod step;

pub use oom::MAX_OOM_RETRIES;

use super::decode::DecodeGroup;
use super::events::{Effect, Wakeup};
use super::kv::{KvPool, PoolConfig};
use super::plan::{PlanObserver, PlanScratch};
use super::prefix::{CacheStats, Prefix, PrefixCache};
use super::record::SharedRecorder;
use super::requests::{Handle, Phase, Req, Requests, WaitQueues, Way};
use super::state::State;
use super::static_batch::StaticBatch;
use super::time::Micros;
use super::view::{AdmitStop, Pool, StepInfo};
use crate::frontend::StepJitter;
use crate::memory::HbmPlan;
use crate::metrics::{LatencyHist, Outcome};
use crate::perf::StepModel;
use crate::profile::sglang::NEW_TOKEN_RATIO_INIT;
use crate::scenario::{Scenario, SchedulerConfig};
use crate::speculative::Speculation;
use std::collections::BTreeMap;

/// The iteration running on the GPU.
pub(crate) struct InFlightStep {
    pub prefills: Vec<(Handle, u32)>,
    pub decode: bool,
    /// Blocks allocated at the start of this step for decode members' next token.
    pub growth_units: u64,
    /// When it ends.
    pub ends_at: Micros,
}

/// What one replica did, beside the cluster's numbers: the requests the router sent it, how
/// they ended, their TTFT, and the time its GPUs were busy.
pub(crate) struct ReplicaStats {
    pub arrived: u64,
    /// Disaggregation: prompts whose KV it sent on, and requests it received that way.
    pub sent: u64,
    pub received: u64,
    pub ended: u64,
    pub completed: u64,
    pub ttft: LatencyHist,
    /// Σ of the iterations' durations started so far (the one in flight whole).
    pub busy_us: u64,
}

/// A replica's load as its driver tracks it for the time series and the router: requests
/// queued, running, and KV units used of the pool's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Occupancy {
    pub queued: u64,
    pub running: u64,
    pub kv_used: u64,
    pub kv_capacity: u64,
}

pub(crate) struct Replica {
    role: Pool,
    sched: SchedulerConfig,
    priority: Vec<u32>,
    plan: HbmPlan,
    step_model: StepModel,
    usd_per_hour: f64,
    /// Time of the call being handled (the driver's clock; the replica keeps no other).
    now: Micros,
    reqs: Requests,
    queues: WaitQueues,
    /// Running (admitted) requests per class: admission order → slot.
    running: Vec<BTreeMap<u64, u32>>,
    /// Admitted prompts not yet fully computed, oldest first.
    prefilling: Vec<Handle>,
    admit_counter: u64,
    group: DecodeGroup,
    pool: KvPool,
    /// Prefix caching (`scheduler.prefix_caching`): the shared prompt blocks.
    cache: Option<PrefixCache>,
    static_batch: Option<StaticBatch>,
    /// Static batching: time of the pending fill-window wakeup.
    window_at: Option<Micros>,
    step: Option<InFlightStep>,
    restarting_until: Option<Micros>,
    /// KV tokens held by sequences outside the decode group (queued hold none).
    loose_tokens: u64,
    last_step: StepInfo,
    /// When the last iteration began and ended.
    step_began: Micros,
    step_ended: Micros,
    rec: SharedRecorder,
    stats: ReplicaStats,
    /// Buffers the scheduler reuses every iteration, and who sees its plans.
    planning: Option<Box<PlanScratch>>,
    plan_observer: Option<PlanObserver>,
    /// Speculative decoding (`speculative`): each step's accepted tokens, the draft's cost.
    spec: Option<Speculation>,
    /// Each iteration's time varied (`engine.step_jitter`), from the replica's own stream.
    jitter: Option<StepJitter>,
    /// SGLang's admission (`Admission::NewTokenRatio`): the share of the running sequences'
    /// remaining output counted as taken.
    new_token_ratio: f64,
    /// Batch waiting: steps in a row whose new prompts it held back.
    batch_waited: u32,
    /// Prefix caching: each open conversation's chain here, by the driver's session slot.
    session_chains: Vec<Option<u32>>,
    out: Vec<Effect>,
    /// Buffers reused every iteration: the prefill chunks of the next one, fresh decode
    /// members per class.
    spare_prefills: Vec<(Handle, u32)>,
    fresh_class: Vec<u64>,
}

impl Replica {
    /// Replica `index` of `scenario`'s cluster, recording into `rec`; with a prefix cache when
    /// `caches` (`Scenario::caches_prefixes`, or a trace's conversations).
    pub fn new(
        scenario: &Scenario,
        index: usize,
        plan: HbmPlan,
        step_model: StepModel,
        rec: SharedRecorder,
        caches: bool,
    ) -> Replica {
        let nclass = scenario.classes.len();
        let pool = KvPool::new(PoolConfig::from_scenario(scenario, &plan));
        let spec = Speculation::of(scenario, index);
        let mut group = DecodeGroup::new(nclass, pool.unit_tokens(), pool.growth());
        if let Some(sp) = &spec {
            group.step_tokens = sp.next as u64;
        }
        let cache = caches.then(|| {
            let prefixes: Vec<_> =
                scenario.classes.iter().map(|c| c.prefix.map(|p| (p.shared_tokens, p.groups))).collect();
            PrefixCache::new(pool.unit_tokens(), &prefixes)
        });
        let role = match &scenario.disaggregation {
            None => Pool::Both,
            Some(d) if index < d.prefill_replicas as usize => Pool::Prefill,
            Some(_) => Pool::Decode,
        };
        Replica {
            role,
            cache,
            sched: scenario.scheduler.clone(),
            priority: scenario.classes.iter().map(|c| c.priority).collect(),
            plan,
            step_model,
            usd_per_hour: scenario.usd_per_hour_per_gpu() * scenario.num_gpus as f64,
            now: 0,
            reqs: Requests::default(),
            queues: WaitQueues::new(nclass, scenario.scheduler.isolation),
            running: vec![BTreeMap::new(); nclass],
            prefilling: Vec::new(),
            admit_counter: 0,
            group,
            pool,
            static_batch: None,
            window_at: None,
            step: None,
            restarting_until: None,
            loose_tokens: 0,
            last_step: StepInfo::default(),
            step_began: 0,
            step_ended: 0,
            rec,
            stats: ReplicaStats {
                arrived: 0,
                sent: 0,
                received: 0,
                ended: 0,
                completed: 0,
                ttft: LatencyHist::new(),
                busy_us: 0,
            },
            planning: None,
            plan_observer: None,
            spec,
            jitter: StepJitter::new(&scenario.engine, scenario.seed, index),
            new_token_ratio: NEW_TOKEN_RATIO_INIT,
            batch_waited: 0,
            session_chains: Vec::new(),
            out: Vec::new(),
            spare_prefills: Vec::new(),
            fresh_class: vec![0; nclass],
        }
    }

    // ---------------------------------------------------------------- the driver's interface

    /// Request `id` of `class`, sent by its client at `way.sent`, arrives at `now` (its prompt
    /// starting with a shared prefix or a conversation's history, `prefix`): it is queued (with
    /// its timeout) or rejected.
    // the driver's one call per arrival: each argument is a fact of the request it hands over
    #[allow(clippy::too_many_arguments)]
    pub fn admit_arrival(
        &mut self,
        now: Micros,
        id: u64,
        class: usize,
        input: u32,
        output: u32,
        prefix: Prefix,
        way: Way,
    ) {
        self.now = now;
        let h = self.reqs.alloc(id, class, way.sent, input, output);
        self.reqs[h].reached = now;
        self.reqs[h].to_client = way.to_client;
        if let Prefix::Session { slot, .. } = prefix {
            self.reqs[h].session = Some(slot);
        }
        self.reqs[h].prefix_chain = self.chain_for(class, prefix);
        self.rec.borrow_mut().arrived(class);
        self.stats.arrived += 1;
        let s = &self.sched;
        let too_long = s.turns_away(input, output).is_some();
        let queue_full = s.max_queue_len.is_some_and(|m| self.queues.waiting_for(class) >= m as u64);
        let down = self.restarting_until.is_some() && !s.retry_on_oom;
        if too_long || queue_full || down {
            self.end_request(h, Outcome::Rejected);
            return;
        }
        self.queues.push_back(h, class);
        if let Some(ms) = s.queue_timeout_ms {
            self.wake_at(now + (ms * 1000.0).round() as u64, Wakeup::Timeout(h));
        }
    }

    /// Disaggregation, decode side: request `id`, prefilled elsewhere (its queueing and
    /// preemptions there carried in `from`), arrives with its prompt's KV at `now`. It waits for
    /// its blocks in the queue (no timeout: it has been scheduled), then computes the prompt's
    /// last position for its first token.
    pub fn admit_transferred(&mut self, now: Micros, id: u64, from: &Req) {
        self.now = now;
        let (class, input) = (from.class as usize, from.input);
        let h = self.reqs.alloc(id, class, from.arrival, input, from.output);
        self.reqs[h].reached = now;
        let r = &mut self.reqs[h];
        r.first_scheduled = from.first_scheduled;
        r.preemptions = from.preemptions;
        r.retries = from.retries;
        r.hit_tokens = from.hit_tokens;
        r.kv_ready = input.saturating_sub(1);
        r.session = from.session;
        r.to_client = from.to_client;
        self.stats.received += 1;
        self.queues.push_back(h, class);
    }

    /// Disaggregation, prefill side: the KV of prompt `h` has reached its decode replica; its
    /// blocks and batch slot are freed. Returns the request as it left.
    pub fn release_sent(&mut self, now: Micros, h: Handle) -> Req {
        self.now = now;
        let r = &self.reqs[h];
        debug_assert!(r.sending, "only a prompt being sent is released");
        self.loose_tokens -= r.prefilled as u64;
        let computed = r.prefilled as u64;
        self.keep_session_blocks(h, computed);
        self.release_running(h);
        self.reqs.free(h);
        self.stats.sent += 1;
        self.reqs[h].clone()
    }

    /// A timer this replica set has come due.
    pub fn wake(&mut self, now: Micros, w: Wakeup) {
        self.now = now;
        match w {
            Wakeup::StepEnd => self.on_step_end(),
            Wakeup::Timeout(h) => self.on_timeout(h),
            Wakeup::BatchWindow => {}
            Wakeup::RestartDone => self.restarting_until = None,
        }
    }

    /// Every event of the instant `now` is in: start the next iteration if the GPU is free.
    pub fn schedule(&mut self, now: Micros) {
        self.now = now;
        // SGLang resets its new-token ratio when it finds nothing running
        if self.step.is_none() && self.pool.seqs() == 0 {
            self.new_token_ratio = NEW_TOKEN_RATIO_INIT;
        }
        self.try_start_step();
    }

    /// What the replica asked for since the last drain, in order.
    pub fn drain_effects(&mut self) -> std::vec::Drain<'_, Effect> {
        self.out.drain(..)
    }

    /// Requests queued and running, and the KV pool's use, now.
    pub fn occupancy(&self) -> Occupancy {
        Occupancy {
            queued: self.queues.total(),
            running: self.pool.seqs(),
            kv_used: self.pool.used(),
            kv_capacity: self.pool.capacity(),
        }
    }

    fn wake_at(&mut self, t: Micros, w: Wakeup) {
        self.out.push(Effect::Wake(t, w));
    }

    // ---------------------------------------------------------------- queues and endings

    fn on_timeout(&mut self, h: Handle) {
        let Some(r) = self.reqs.get(h) else { return };
        if r.phase == Phase::Queued && r.first_token.is_none() {
            // left in the queue as a tombstone; skipped when popped
            self.queues.forget(r.class as usize);
            self.end_request(h, Outcome::TimedOut);
        }
    }

    /// Ends a request that holds no KV and is in no structure except (as a tombstone) a queue.
    fn end_request(&mut self, h: Handle, outcome: Outcome) {
        self.reqs.free(h);
        let r = &self.reqs[h];
        self.rec.borrow_mut().ended(r, outcome, self.now);
        let st = &mut self.stats;
        st.ended += 1;
        if outcome == Outcome::Completed {
            st.completed += 1;
            if let Some(t) = r.first_token {
                st.ttft.record(t + r.to_client as u64 - r.arrival);
            }
        }
        self.out.push(Effect::Ended {
            class: r.class,
            session: r.session,
            completed: outcome == Outcome::Completed,
            to_client: r.to_client,
        });
    }

    /// Takes a queued request into the batch: a slot, and (contiguous) its KV reservation.
    fn admit(&mut self, h: Handle) {
        let class = self.reqs[h].class as usize;
        self.queues.pop(h, class, &self.reqs);
        self.admit_counter += 1;
        let (now, order) = (self.now, self.admit_counter);
        let r = &mut self.reqs[h];
        r.phase = Phase::Prefill;
        r.admit_order = order;
        r.first_scheduled.get_or_insert(now);
        r.units = self.pool.admit_seq(class, r.prefill_target as u64);
        self.running[class].insert(order, h.slot);
        let mut rec = self.rec.borrow_mut();
        rec.peak_running = rec.peak_running.max(self.pool.seqs());
    }

    /// Frees a running request's KV and batch slot (and its reference to cached blocks).
    fn release_running(&mut self, h: Handle) {
        let r = &mut self.reqs[h];
        let (class, units) = (r.class as usize, std::mem::take(&mut r.units));
        self.pool.release_seq(class, r.prefill_target as u64, units);
        self.running[class].remove(&r.admit_order);
        let blocks = std::mem::take(&mut r.cached_blocks);
        if let (Some(cache), Some(id), true) = (self.cache.as_mut(), r.prefix_chain, blocks > 0) {
            let (before, now) = cache.release(id, blocks);
            let b = cache.block();
            let freed = self.pool.units_for(before as u64 * b) - self.pool.units_for(now as u64 * b);
            if freed > 0 {
                self.pool.unpin(class, freed);
            }
        }
    }

    // ---------------------------------------------------------------- reading

    /// Prefix caching: per class, what the cache saved (`None` without prefix caching).
    pub fn cache_stats(&self) -> Option<&[CacheStats]> {
        self.cache.as_ref().map(|c| &c.stats[..])
    }

    /// Most KV tokens held at once.
    pub fn kv_peak_tokens(&self) -> u64 {
        self.pool.peak() * self.pool.unit_tokens()
    }

    /// Price of this replica's GPUs per hour.
    pub fn usd_per_hour(&self) -> f64 {
        self.usd_per_hour
    }

    /// Time its GPUs were busy up to `now` (the iteration in flight counts to `now`).
    pub fn busy_us(&self, now: Micros) -> u64 {
        let ahead = self.step.as_ref().map_or(0, |s| s.ends_at.saturating_sub(now));
        self.stats.busy_us - ahead
    }

    /// Requests waiting, per class.
    pub fn queued(&self) -> &[u64] {
        self.queues.queued()
    }

    pub fn stats(&self) -> &ReplicaStats {
        &self.stats
    }

    /// Speculative decoding's draws and counts (`None` with it off).
    pub fn speculation(&self) -> Option<&Speculation> {
        self.spec.as_ref()
    }

    /// Each request not ended yet: its class, arrival and first token (for the censored views).
    pub fn live_for_summary(&self) -> impl Iterator<Item = (u16, Micros, Option<Micros>)> + '_ {
        self.reqs.live().map(|r| (r.class, r.arrival, r.first_token))
    }

    pub fn plan(&self) -> &HbmPlan {
        &self.plan
    }
    pub fn step_model(&self) -> &StepModel {
        &self.step_model
    }
    pub fn set_plan_observer(&mut self, observer: PlanObserver) {
        self.plan_observer = Some(observer);
    }

    /// Internal consistency checks, for tests: counts add up and KV stays within bounds.
    pub fn check_invariants(&self) -> Result<(), String> {
        let st = &self.stats;
        let live = self.reqs.live().count() as u64;
        if st.arrived + st.received != st.ended + st.sent + live {
            return Err(format!(
                "arrived {} + received {} != ended {} + sent {} + live {live}",
                st.arrived, st.received, st.ended, st.sent
            ));
        }
        let (queued, running) = (self.queues.total(), self.pool.seqs());
        if live != queued + running {
            return Err(format!("live {live} != queued {queued} + running {running}"));
        }
        if !self.pool.within_capacity() {
            return Err(format!("KV units {} over capacity {}", self.pool.used(), self.pool.capacity()));
        }
        if self.static_batch.is_none() {
            let held: u64 = self.reqs.live().map(|r| self.held_units(r)).sum();
            let in_step = self.step.as_ref().map_or(0, |st| st.growth_units);
            let shared = self.check_cache()?;
            if held + in_step + shared != self.pool.used() {
                return Err(format!(
                    "KV units held {held} + growing {in_step} + shared {shared} != accounted {}",
                    self.pool.used()
                ));
            }
        }
        if running > self.sched.max_num_seqs as u64 {
            return Err(format!("running {running} over max_num_seqs"));
        }
        Ok(())
    }
}

/// The replica as the planner and the page read it.
impl State for Replica {
    #[inline]
    fn role(&self) -> Pool {
        self.role
    }
    #[inline]
    fn sched(&self) -> &SchedulerConfig {
        &self.sched
    }
    #[inline]
    fn priority(&self) -> &[u32] {
        &self.priority
    }
    #[inline]
    fn hbm(&self) -> &HbmPlan {
        &self.plan
    }
    #[inline]
    fn reqs(&self) -> &Requests {
        &self.reqs
    }
    #[inline]
    fn queues(&self) -> &WaitQueues {
        &self.queues
    }
    #[inline]
    fn running(&self) -> &[BTreeMap<u64, u32>] {
        &self.running
    }
    #[inline]
    fn prefilling(&self) -> &[Handle] {
        &self.prefilling
    }
    #[inline]
    fn group(&self) -> &DecodeGroup {
        &self.group
    }
    #[inline]
    fn pool(&self) -> &KvPool {
        &self.pool
    }
    #[inline]
    fn cache(&self) -> Option<&PrefixCache> {
        self.cache.as_ref()
    }
    #[inline]
    fn static_batch(&self) -> Option<&StaticBatch> {
        self.static_batch.as_ref()
    }
    #[inline]
    fn spec(&self) -> Option<&Speculation> {
        self.spec.as_ref()
    }
    #[inline]
    fn restarting_until(&self) -> Option<Micros> {
        self.restarting_until
    }
    #[inline]
    fn loose_tokens(&self) -> u64 {
        self.loose_tokens
    }
    #[inline]
    fn last_step(&self) -> &StepInfo {
        &self.last_step
    }
    fn visible_until(&self) -> Micros {
        // the overlap scheduler planned the next step when the one that just ended began; an
        // idle engine (nothing running) plans at once
        let busy = self.group.n > 0 || !self.prefilling.is_empty();
        if self.sched.overlap && busy && self.step_ended == self.now {
            self.step_began
        } else {
            Micros::MAX
        }
    }
    #[inline]
    fn new_token_ratio(&self) -> f64 {
        self.new_token_ratio
    }
    fn batch_waited(&self) -> u32 {
        self.batch_waited
    }
    fn last_stop(&self) -> (AdmitStop, bool) {
        match &self.planning {
            Some(s) => (s.plan.stop, !s.plan.preempted.is_empty()),
            None => (AdmitStop::QueueEmpty, false),
        }
    }
}
