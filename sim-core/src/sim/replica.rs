//! A replica: one serving engine — its wait queues, scheduler, KV pool, decode group, step-time
//! model, the live requests and their recording.
//!
//! A replica owns no clock and no arrivals. Its driver calls it with the time of each event
//! (`admit_arrival`, `wake`, then `schedule` once every event of an instant is in) and, after
//! each call, drains the replica's [`Effect`]s: timers to set and ended requests (which a
//! closed-loop workload answers with the user's next request). So a driver can hold several
//! replicas on one clock. They record into one [`Recorder`] the driver gives them (the
//! cluster's numbers), and each keeps its own few figures ([`ReplicaStats`]).

use super::decode::DecodeGroup;
use super::events::{Effect, Micros, Wakeup};
use super::kv::{KvPool, PoolConfig};
use super::plan::PlanScratch;
use super::prefix::{Prefix, PrefixCache};
use super::record::SharedRecorder;
use super::requests::{Handle, Phase, Req, Requests, WaitQueues};
use super::schedule::PlanObserver;
use super::static_batch::StaticBatch;
use super::view::{Pool, StepInfo};
use crate::memory::HbmPlan;
use crate::metrics::{LatencyHist, Outcome};
use crate::perf::{BatchWork, StepModel};
use crate::scenario::{Batching, Scenario, SchedulerConfig};
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
    pub(super) role: Pool,
    pub(super) sched: SchedulerConfig,
    pub(super) priority: Vec<u32>,
    pub(super) plan: HbmPlan,
    pub(super) step_model: StepModel,
    usd_per_hour: f64,
    /// Time of the call being handled (the driver's clock; the replica keeps no other).
    pub(super) now: Micros,
    pub(super) reqs: Requests,
    pub(super) queues: WaitQueues,
    /// Running (admitted) requests per class: admission order → slot.
    pub(super) running: Vec<BTreeMap<u64, u32>>,
    /// Admitted prompts not yet fully computed, oldest first.
    pub(super) prefilling: Vec<Handle>,
    admit_counter: u64,
    pub(super) group: DecodeGroup,
    pub(super) pool: KvPool,
    /// Prefix caching (`scheduler.prefix_caching`): the shared prompt blocks.
    pub(super) cache: Option<PrefixCache>,
    pub(super) static_batch: Option<StaticBatch>,
    /// Static batching: time of the pending fill-window wakeup.
    pub(super) window_at: Option<Micros>,
    pub(super) step: Option<InFlightStep>,
    pub(super) restarting_until: Option<Micros>,
    /// KV tokens held by sequences outside the decode group (queued hold none).
    pub(super) loose_tokens: u64,
    pub(super) last_step: StepInfo,
    pub(super) rec: SharedRecorder,
    pub(super) stats: ReplicaStats,
    /// Buffers the scheduler reuses every iteration, and who sees its plans.
    pub(super) planning: Option<Box<PlanScratch>>,
    pub(super) plan_observer: Option<PlanObserver>,
    /// Speculative decoding (`speculative`): each step's accepted tokens, the draft's cost.
    pub(super) spec: Option<Speculation>,
    /// Prefix caching: each open conversation's chain here, by the driver's session slot.
    session_chains: Vec<Option<u32>>,
    out: Vec<Effect>,
    /// Buffers reused every iteration: the prefill chunks of the next one, fresh decode
    /// members per class.
    pub(super) spare_prefills: Vec<(Handle, u32)>,
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
            session_chains: Vec::new(),
            out: Vec::new(),
            spare_prefills: Vec::new(),
            fresh_class: vec![0; nclass],
        }
    }

    // ---------------------------------------------------------------- the driver's interface

    /// Request `id` of `class` arrives at `now` (its prompt starting with a shared prefix or a
    /// conversation's history, `prefix`): it is queued (with its timeout) or rejected.
    pub fn admit_arrival(&mut self, now: Micros, id: u64, class: usize, input: u32, output: u32, prefix: Prefix) {
        self.now = now;
        let h = self.reqs.alloc(id, class, now, input, output);
        if let Prefix::Session(slot) = prefix {
            self.reqs[h].session = Some(slot);
        }
        self.reqs[h].prefix_chain = self.chain_for(class, prefix);
        self.rec.borrow_mut().arrived(class);
        self.stats.arrived += 1;
        let s = &self.sched;
        let too_long = input as u64 + output as u64 > s.max_model_len as u64;
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
        let r = &mut self.reqs[h];
        r.first_scheduled = from.first_scheduled;
        r.preemptions = from.preemptions;
        r.retries = from.retries;
        r.hit_tokens = from.hit_tokens;
        r.kv_ready = input.saturating_sub(1);
        r.session = from.session;
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

    /// Prefix caching: blocks of the shared prefix or the conversation `prefix` of a request
    /// of `class` this replica has cached (referenced or not); 0 without one.
    pub fn cached_prefix_blocks(&self, class: usize, prefix: Prefix) -> u32 {
        let Some(c) = &self.cache else { return 0 };
        let id = match prefix {
            Prefix::None => None,
            Prefix::Group(g) => c.chain_of(class, g),
            Prefix::Session(slot) => self.session_chains.get(slot as usize).copied().flatten(),
        };
        id.map_or(0, |id| c.state(id).0)
    }

    /// Prefix caching: the chain a request's prompt starts with (a conversation's is made here
    /// at its first turn on this replica).
    fn chain_for(&mut self, class: usize, prefix: Prefix) -> Option<u32> {
        let cache = self.cache.as_mut()?;
        match prefix {
            Prefix::None => None,
            Prefix::Group(g) => cache.chain_of(class, g),
            Prefix::Session(slot) => {
                let slot = slot as usize;
                if self.session_chains.len() <= slot {
                    self.session_chains.resize(slot + 1, None);
                }
                Some(*self.session_chains[slot].get_or_insert_with(|| cache.new_session_chain(class)))
            }
        }
    }

    /// A conversation (the driver's session slot) is over: its chain here, if any, keeps its
    /// blocks cached until they are evicted.
    pub fn end_session(&mut self, slot: u32) {
        let Some(id) = self.session_chains.get_mut(slot as usize).and_then(Option::take) else { return };
        if let Some(cache) = self.cache.as_mut() {
            cache.retire(id);
        }
    }

    /// Prefix caching: a conversation's turn leaves holding the KV of its first `tokens` tokens:
    /// their full blocks become its chain's (so the next turn finds them), cached once it has
    /// gone. Called before the turn's KV is released.
    fn keep_session_blocks(&mut self, h: Handle, tokens: u64) {
        let r = &self.reqs[h];
        let (Some(cache), Some(id)) = (self.cache.as_mut(), r.prefix_chain) else { return };
        if !cache.is_session(id) || !self.pool.paged() {
            return;
        }
        let b = cache.block();
        let from = r.cached_blocks;
        // the blocks it holds: those it references and its own
        let to = ((tokens / b) as u32).min(from + (r.units * self.pool.unit_tokens() / b) as u32);
        if cache.extend(id, from, to) {
            let moved = self.pool.units_for(to as u64 * b) - self.pool.units_for(from as u64 * b);
            let r = &mut self.reqs[h];
            r.units -= moved;
            r.cached_blocks = to;
        }
    }

    pub(super) fn wake_at(&mut self, t: Micros, w: Wakeup) {
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
    pub(super) fn end_request(&mut self, h: Handle, outcome: Outcome) {
        self.reqs.free(h);
        let r = &self.reqs[h];
        self.rec.borrow_mut().ended(r, outcome, self.now);
        let st = &mut self.stats;
        st.ended += 1;
        if outcome == Outcome::Completed {
            st.completed += 1;
            if let Some(t) = r.first_token {
                st.ttft.record(t - r.arrival);
            }
        }
        self.out.push(Effect::Ended { class: r.class, session: r.session, completed: outcome == Outcome::Completed });
    }

    /// The queued request that would be admitted next: with isolation, by class priority and
    /// then arrival across the lanes (skipping lanes marked in `blocked`); otherwise the head
    /// of the shared FCFS queue.
    pub(super) fn peek_waiting(&mut self, blocked: &[bool]) -> Option<Handle> {
        self.queues.drop_tombstones(&self.reqs);
        let mut best: Option<((u32, Micros, usize), Handle)> = None;
        for q in (0..self.queues.lanes()).filter(|&q| !blocked.get(q).copied().unwrap_or(false)) {
            if let Some(h) = self.queues.front(q) {
                let r = &self.reqs[h];
                let key = (self.priority[r.class as usize], r.arrival, q);
                if best.is_none_or(|(b, _)| key < b) {
                    best = Some((key, h));
                }
            }
        }
        best.map(|(_, h)| h)
    }

    /// Takes a queued request into the batch: a slot, and (contiguous) its KV reservation.
    pub(super) fn admit(&mut self, h: Handle) {
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
    pub(super) fn release_running(&mut self, h: Handle) {
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

    /// KV units a running request holds now (without the cached blocks it shares). Paged decode
    /// members grow in aggregate, so their holding is computed from their token count.
    pub(super) fn held_units(&self, r: &Req) -> u64 {
        if r.phase == Phase::Decode && self.static_batch.is_none() && self.pool.paged() {
            self.pool.seq_units(self.group.tokens(r)) - self.shared_units(r)
        } else {
            r.units
        }
    }

    /// KV units of the cached blocks a running request references.
    pub(super) fn shared_units(&self, r: &Req) -> u64 {
        match &self.cache {
            Some(c) if r.cached_blocks > 0 => self.pool.units_for(r.cached_blocks as u64 * c.block()),
            _ => 0,
        }
    }

    /// Prefix caching: a request referencing `blocks` cached blocks of its chain is admitted
    /// (the blocks no one else references are pinned in the pool).
    pub(super) fn reference_cached(&mut self, h: Handle, blocks: u32) {
        let (class, id) = (self.reqs[h].class as usize, self.reqs[h].prefix_chain);
        let (Some(cache), Some(id)) = (self.cache.as_mut(), id) else { return };
        let before = cache.reference(id, blocks);
        let b = cache.block();
        let pin = self.pool.units_for(blocks as u64 * b).saturating_sub(self.pool.units_for(before as u64 * b));
        if pin > 0 {
            self.pool.pin(class, pin);
        }
        self.reqs[h].cached_blocks = blocks;
    }

    /// Prefix caching: a prompt computed past its shared prefix offers its blocks to its chain.
    fn publish_prefix(&mut self, h: Handle) {
        let r = &self.reqs[h];
        let (Some(cache), Some(id)) = (self.cache.as_mut(), r.prefix_chain) else { return };
        let (_, _, full) = cache.state(id);
        let b = cache.block();
        if r.cached_blocks >= full || (r.prefilled as u64) < full as u64 * b {
            return;
        }
        let from = r.cached_blocks;
        if cache.publish(id, from) {
            let moved = self.pool.units_for(full as u64 * b) - self.pool.units_for(from as u64 * b);
            let r = &mut self.reqs[h];
            r.units -= moved;
            r.cached_blocks = full;
        }
    }

    /// Removes from their chains the cached blocks the pool took back for allocations.
    pub(super) fn settle_evictions(&mut self) {
        let Some(cache) = self.cache.as_mut() else { return };
        while self.pool.evict_due() > 0 {
            let Some((j, _)) = cache.evict_one() else { break };
            let b = cache.block();
            let units = self.pool.units_for((j as u64 + 1) * b) - self.pool.units_for(j as u64 * b);
            self.pool.evicted(units);
        }
    }

    // ---------------------------------------------------------------- iterations

    fn try_start_step(&mut self) {
        if self.step.is_some() || self.restarting_until.is_some() {
            return;
        }
        match self.sched.batching {
            Batching::Continuous => self.start_continuous_step(),
            Batching::Static => self.start_static_step(),
        }
    }

    pub(super) fn begin_step(&mut self, work: BatchWork, prefills: Vec<(Handle, u32)>, decode: bool, growth: u64) {
        let mut time = self.step_model.step_time(&work);
        if let Some(sp) = &self.spec {
            time.total += sp.draft_seconds(&work);
        }
        let dur = time.micros();
        let bound = time.linear_compute + time.attn_compute;
        let memb = time.linear_memory + time.attn_memory;
        // this step's draw: `next` tokens per sequence, the accepted drafts and its own
        let (draft_tokens, accepted_draft_tokens) = match &self.spec {
            Some(sp) if work.decode_seqs > 0 => (sp.draft_tokens(), sp.next - 1),
            _ => (0, 0),
        };
        self.last_step = StepInfo {
            draft_tokens,
            accepted_draft_tokens,
            start_s: self.now as f64 / 1e6,
            duration_ms: dur as f64 / 1000.0,
            prefill_tokens: work.prefill_tokens,
            decode_seqs: work.decode_seqs,
            compute_bound_share: if bound + memb > 0.0 { bound / (bound + memb) } else { 0.0 },
        };
        let alloc_tokens = self.pool.used() * self.pool.unit_tokens();
        let tokens = self.group.ctx_sum + self.loose_tokens;
        // a shared prefix's tokens are held once
        let tokens = self.cache.as_ref().map_or(tokens, |c| (tokens + c.held_tokens).saturating_sub(c.ref_tokens));
        self.rec.borrow_mut().kv_waste(alloc_tokens, tokens);
        self.stats.busy_us += dur;
        self.step = Some(InFlightStep { prefills, decode, growth_units: growth, ends_at: self.now + dur });
        self.wake_at(self.now + dur, Wakeup::StepEnd);
    }

    fn on_step_end(&mut self) {
        let Some(step) = self.step.take() else { return };
        if self.static_batch.is_some() {
            self.static_step_end();
            self.try_start_step();
            return;
        }
        if step.decode {
            self.decode_step_end();
        }
        for &(h, n) in &step.prefills {
            let Some(r) = self.reqs.get(h) else { continue };
            if r.phase != Phase::Prefill {
                continue;
            }
            let r = &mut self.reqs[h];
            r.prefilled += n;
            if self.cache.is_some() {
                self.publish_prefix(h);
            }
            let r = &self.reqs[h];
            if r.prefilled >= r.prefill_target {
                self.prefill_complete(h);
            }
        }
        self.spare_prefills = step.prefills;
    }

    /// Every decode member emitted a token: inter-token gaps, then the members that are done.
    fn decode_step_end(&mut self) {
        let now = self.now;
        let reqs = &self.reqs;
        self.group.step_done(|slot, join| {
            let r = reqs.at(slot);
            (r.live && r.join_id == join).then_some(r.class)
        });
        if let Some(sp) = &mut self.spec {
            self.group.step_tokens = sp.step_done() as u64;
        }
        // members that took part in the previous decode step all share one gap; fresh members
        // measure from their first token
        let gap = now - self.group.last_decode_end;
        let fresh_class = &mut self.fresh_class;
        fresh_class.iter_mut().for_each(|n| *n = 0);
        let mut rec = self.rec.borrow_mut();
        for (h, t) in self.group.fresh.drain(..) {
            let c = self.reqs[h].class as usize;
            fresh_class[c] += 1;
            rec.itl(c, now - t, 1);
        }
        for (c, fc) in fresh_class.iter().enumerate() {
            rec.itl(c, gap, self.group.n_class[c] - fc);
        }
        drop(rec);
        self.group.last_decode_end = now;
        while let Some((slot, join)) = self.group.pop_finished() {
            let r = self.reqs.at(slot);
            if r.live && r.join_id == join && r.phase == Phase::Decode {
                self.finish_decode_member(self.reqs.handle(slot));
            }
        }
    }

    /// A prompt's last chunk ran: it emits a token and joins the decode group (or ends).
    fn prefill_complete(&mut self, h: Handle) {
        self.prefilling.retain(|x| *x != h);
        let r = &mut self.reqs[h];
        if self.role == Pool::Prefill {
            // its first token is the decode replica's to send: the KV goes there; the prompt
            // keeps its blocks and slot until it has arrived (and is no preemption's victim)
            r.sending = true;
            self.running[r.class as usize].remove(&r.admit_order);
            self.out.push(Effect::Prefilled(h));
            return;
        }
        r.generated += 1;
        r.first_token.get_or_insert(self.now);
        self.loose_tokens -= r.prefilled as u64;
        if r.generated >= r.output {
            let tokens = r.prefilled as u64;
            self.keep_session_blocks(h, tokens);
            self.release_running(h);
            self.end_request(h, Outcome::Completed);
            return;
        }
        self.group.join(h, r, self.now);
    }

    fn finish_decode_member(&mut self, h: Handle) {
        let held = self.held_units(&self.reqs[h]);
        let r = &mut self.reqs[h];
        self.group.leave(h, r);
        r.generated = r.output;
        r.units = held;
        // every prompt and answer token but the last has its KV
        let tokens = r.input as u64 + r.output as u64 - 1;
        self.keep_session_blocks(h, tokens);
        self.release_running(h);
        self.end_request(h, Outcome::Completed);
    }

    /// Prefix caching: each chain's references are the running sequences that reference it,
    /// its unreferenced blocks are the pool's cached units; returns the units of the blocks in
    /// use (each counted once, however many sequences share it).
    fn check_cache(&self) -> Result<u64, String> {
        let Some(cache) = &self.cache else {
            return if self.pool.cached() == 0 { Ok(0) } else { Err("cached units without a cache".into()) };
        };
        let b = cache.block();
        let mut refs: BTreeMap<(u32, u32), u32> = BTreeMap::new();
        for r in self.reqs.live().filter(|r| r.cached_blocks > 0) {
            if r.phase == Phase::Queued {
                return Err(format!("request {} is queued and references cached blocks", r.id));
            }
            *refs.entry((r.prefix_chain.unwrap_or(u32::MAX), r.cached_blocks)).or_insert(0) += 1;
        }
        let (mut held_units, mut free_units, mut counted) = (0, 0, 0);
        for (id, _, cached, held) in cache.cached_chains() {
            for (blocks, n) in cache.refs(id) {
                if refs.get(&(id, blocks)) != Some(&n) {
                    return Err(format!(
                        "chain {id}: {n} references of {blocks} blocks, running {:?}",
                        refs.get(&(id, blocks))
                    ));
                }
                counted += 1;
            }
            if held > cached {
                return Err(format!("chain {id} holds {held} blocks of {cached} cached"));
            }
            held_units += self.pool.units_for(held as u64 * b);
            free_units += self.pool.units_for(cached as u64 * b) - self.pool.units_for(held as u64 * b);
        }
        if counted != refs.len() {
            return Err(format!(
                "running sequences reference {} (chain, length) pairs, the chains {counted}",
                refs.len()
            ));
        }
        if free_units != self.pool.cached() + self.pool.evict_due() {
            return Err(format!(
                "unreferenced cached units {free_units} != pool's cached {} + due {}",
                self.pool.cached(),
                self.pool.evict_due()
            ));
        }
        Ok(held_units)
    }

    // ---------------------------------------------------------------- reading

    /// Prefix caching: per class, what the cache saved (`None` without prefix caching).
    pub fn cache_stats(&self) -> Option<&[super::prefix::CacheStats]> {
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
