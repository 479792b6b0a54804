//! Planning one iteration of continuous batching, as a value.
//!
//! The planner reads the replica through its read-only [`State`] and decides, on a copy of the
//! KV pool and a tentative view of the queues and the decode group, what the next iteration
//! does: which running sequences are preempted (the newest, when the decode step's new blocks
//! do not fit), whether the decode group takes a step, which prompts continue with which chunk
//! sizes, which waiting prompts are admitted. The replica then applies the plan
//! (`replica/schedule.rs`). Tests check properties on plans (`Simulation::set_plan_observer`).
//! Static batching's next batch is decided the same way ([`StaticPlan`]), and applied by
//! `replica/batching.rs`.

use super::kv::{KvPool, Refusal};
use super::requests::{is_tombstone, Handle, Phase};
use super::state::State;
use super::time::Micros;
use super::view::AdmitStop;
use crate::perf::BatchWork;
use crate::profile::sglang::CLIP_MAX_NEW_TOKENS;
use crate::scenario::Admission;

/// A prefill chunk an iteration computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlannedChunk {
    /// The request's id.
    pub id: u64,
    /// Tokens computed this iteration.
    pub tokens: u32,
    /// Prompt tokens computed before, and the tokens to compute before decoding.
    pub done: u32,
    pub target: u32,
    /// Admitted from the queue by this iteration (otherwise a prompt continuing).
    pub admitted: bool,
    pub(crate) h: Handle,
    pub(crate) class: u16,
    /// KV units allocated for the chunk (paged; a contiguous admission reserves its own).
    pub(crate) units: u64,
}

/// A running sequence the iteration sends back to the queue to be recomputed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlannedPreemption {
    pub id: u64,
    pub(crate) h: Handle,
}

/// What one iteration of continuous batching does, decided before anything changes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IterationPlan {
    /// Preemptions, in the order they happen (applied first).
    pub preempted: Vec<PlannedPreemption>,
    /// Decode group members that each take one token (0: no decode step).
    pub decode_seqs: u64,
    /// New KV blocks per class for the decode step (only meaningful with `decode_seqs > 0`).
    pub(crate) growth: Vec<u64>,
    /// Prefill chunks: prompts continuing (oldest first), then admissions (in admission order).
    pub chunks: Vec<PlannedChunk>,
    /// The iteration's work for the step-time model.
    pub work: BatchWork,
    /// Nothing could run and a stuck prompt was preempted: plan again after applying.
    pub retry: bool,
    /// Why no more waiting prompts were admitted.
    pub stop: AdmitStop,
    /// What batch waiting made of the step (`scheduler.batch_wait_iters`).
    pub batch_wait: BatchWait,
}

/// Batch waiting's decision on a step (TensorRT-LLM's `PyExecutor._waiting_requests`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BatchWait {
    /// Not asked: batch waiting is off, or the step has no new prompts or no decodes.
    #[default]
    NotAsked,
    /// The step's prompts were held back: the decodes run alone.
    Held,
    /// The step was big enough, or the prompts had waited long enough: they run.
    Released,
}

impl IterationPlan {
    /// Tokens the iteration computes: one per decoding sequence plus the prefill chunks.
    pub fn tokens(&self) -> u64 {
        self.decode_seqs + self.chunks.iter().map(|c| c.tokens as u64).sum::<u64>()
    }
    /// Nothing runs (the replica stays idle after the preemptions, if any).
    pub fn is_idle(&self) -> bool {
        self.work.is_empty()
    }
    pub fn admitted(&self) -> impl Iterator<Item = &PlannedChunk> + '_ {
        self.chunks.iter().filter(|c| c.admitted)
    }
}

/// The replica as a plan found it (given to a plan observer with the plan).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlanContext {
    /// Sequences running, and the id of the oldest admitted of them.
    pub running: u64,
    pub oldest_running: Option<u64>,
}

/// Sees every plan before it is applied (for tests of the scheduler).
pub type PlanObserver = Box<dyn FnMut(&IterationPlan, &PlanContext)>;

/// The plan being made and the buffers the planner reuses, so planning allocates nothing in
/// the steady state.
#[derive(Default)]
pub(crate) struct PlanScratch {
    pub plan: IterationPlan,
    /// The pool as the plan leaves it.
    pool: Option<KvPool>,
    t: Tentative,
}

/// The queues and the running set as the plan leaves them.
#[derive(Default)]
struct Tentative {
    /// Per class: running sequences preempted, from the newest end.
    taken_back: Vec<usize>,
    /// Per class: blocks of the next decode step that preempted members no longer need.
    growth_gone: Vec<u64>,
    /// Per lane: preempted sequences put back in front (last = head) with their new targets.
    fronts: Vec<Vec<(Handle, u32)>>,
    /// Per lane: position of the next candidate in the lane.
    pos: Vec<usize>,
    blocked: Vec<bool>,
    /// The last plan preempted or blocked a lane (so the per-class and per-lane state needs
    /// resetting; most plans do neither).
    dirty: bool,
    /// Prefix caching: chains admissions of this plan reference, with the blocks then held.
    pins: Vec<(u32, u32)>,
}

/// A waiting request the plan could admit next.
struct Candidate {
    lane: usize,
    h: Handle,
    class: usize,
    target: u32,
    /// Prefix caching: the chain its prompt starts with.
    chain: Option<u32>,
    /// Disaggregation: prompt tokens whose KV arrived with it (allocated, not computed).
    ready: u32,
}

struct Planner<'a, S: State> {
    r: &'a S,
    pool: &'a mut KvPool,
    s: &'a mut Tentative,
    plan: &'a mut IterationPlan,
    /// The decode group as the plan leaves it.
    n: u64,
    ctx_sum: u64,
    /// Σ min(tokens, window) over the members, and the members below the window.
    window_ctx_sum: u64,
    in_window: u64,
    /// Tokens the admitted sequences may still need, as the scheduler's admission counts them
    /// (`Admission`: 0 for `Prompt`); a waiting request is admitted only beside them.
    reserved: u64,
}

impl PlanContext {
    /// The replica as a plan finds it now.
    pub(crate) fn of(st: &impl State) -> PlanContext {
        let firsts = st.running().iter().filter_map(|m| m.values().next());
        let oldest = firsts.map(|&slot| st.reqs().at(slot)).min_by_key(|r| r.admit_order).map(|r| r.id);
        PlanContext { running: st.pool().seqs(), oldest_running: oldest }
    }
}

impl PlanScratch {
    /// Plans the next continuous-batching iteration of the replica `st` shows into `self.plan`,
    /// changing nothing of the replica.
    pub(crate) fn plan<S: State>(&mut self, st: &S) -> &IterationPlan {
        let (classes, lanes) = (st.running().len(), st.queues().lanes());
        let PlanScratch { plan, pool, t } = self;
        let pool = pool.get_or_insert_with(|| st.pool().clone());
        pool.copy_usage_from(st.pool());
        if t.dirty || t.pos.len() != lanes || t.taken_back.len() != classes {
            reset(&mut t.taken_back, classes, 0);
            reset(&mut t.growth_gone, classes, 0);
            reset(&mut t.blocked, lanes, false);
            t.fronts.resize_with(lanes, Vec::new);
            t.fronts.iter_mut().for_each(Vec::clear);
            t.dirty = false;
        }
        reset(&mut t.pos, lanes, 0);
        t.pins.clear();
        plan.preempted.clear();
        plan.decode_seqs = 0;
        if plan.growth.len() != classes {
            plan.growth.resize(classes, 0);
        }
        plan.chunks.clear();
        plan.work = BatchWork { window: st.pool().growth().window, ..BatchWork::default() };
        plan.retry = false;
        plan.stop = AdmitStop::QueueEmpty;
        plan.batch_wait = BatchWait::NotAsked;
        let g = st.group();
        let (n, ctx_sum, window_ctx_sum, in_window) = (g.n, g.ctx_sum, g.window_ctx_sum, g.n_in_window);
        let reserved = reserved_tokens(st);
        Planner { r: st, pool, s: t, plan, n, ctx_sum, window_ctx_sum, in_window, reserved }.run();
        &self.plan
    }
}

/// What the running sequences may still need, as the replica's admission counts it: nothing
/// (`Prompt`: vLLM admits on the prompt alone); every token still to come, the rest of the
/// prompts being prefilled and every output token (`WholeSequence`: TensorRT-LLM's
/// `GUARANTEED_NO_EVICT`); the rest of the prompts and the new-token ratio's share of the
/// outputs (`NewTokenRatio`: SGLang's `PrefillAdder` offset).
fn reserved_tokens(st: &impl State) -> u64 {
    let ratio = match st.sched().admission {
        Admission::Prompt => return 0,
        Admission::WholeSequence => 1.0,
        Admission::NewTokenRatio => st.new_token_ratio(),
    };
    let (mut prompts, mut outputs) = (0u64, st.group().outputs_to_come());
    for &h in st.prefilling() {
        let r = &st.reqs()[h];
        prompts += u64::from(r.prefill_target.saturating_sub(r.prefilled));
        outputs += u64::from(r.output.saturating_sub(r.generated));
    }
    prompts + (ratio * outputs as f64).ceil() as u64
}

fn reset<T: Copy>(v: &mut Vec<T>, len: usize, value: T) {
    v.clear();
    v.resize(len, value);
}

impl<S: State> Planner<'_, S> {
    fn run(&mut self) {
        let sched = self.r.sched();
        let (chunked, paged) = (sched.chunked_prefill, self.pool.paged());
        // prompts (chunks, or whole prompts with `mixed_prefill`) join the decode steps
        let mixed = chunked || sched.mixed_prefill;
        let mut budget = sched.max_num_batched_tokens as u64;
        // Otherwise waiting prompts go first in prefill-only iterations (vLLM V0's and SGLang's
        // default scheduler); decodes wait.
        let prefill_first = !mixed && self.peek().is_some_and(|c| self.fits_whole(&c, budget));
        if !prefill_first && self.n > 0 {
            if paged && !sched.overcommit {
                while self.n > 0 && self.growth() > self.pool.free() {
                    if !self.preempt_newest() {
                        break;
                    }
                }
            }
            if self.n > 0 {
                for c in 0..self.plan.growth.len() {
                    let g = if paged { self.growth_of(c) } else { 0 };
                    self.pool.take(c, g);
                    self.plan.growth[c] = g;
                }
                let (n, work) = (self.n, &mut self.plan.work);
                work.decode_seqs = n;
                work.decode_ctx_tokens = self.ctx_sum + n;
                work.decode_window_ctx_tokens = self.window_ctx_sum + self.in_window;
                work.logit_tokens += n;
                if let Some(sp) = self.r.spec() {
                    sp.add_verification(work);
                }
                self.plan.decode_seqs = n;
                // the draft positions count against the token budget too (vLLM schedules them)
                budget = budget.saturating_sub(n + work.decode_draft_tokens);
                if !mixed {
                    // the decodes run because the head of the queue does not fit whole
                    let whole = sched.max_num_batched_tokens as u64;
                    if let Some(c) = self.peek().filter(|c| !self.fits_whole(c, whole)) {
                        self.plan.stop = self.stop_for(c.target as u64, whole);
                    }
                }
            }
        }
        let decode_only = self.plan.work;
        if mixed || prefill_first {
            budget = self.continue_prompts(budget, paged);
        }
        if self.plan.decode_seqs == 0 || mixed {
            self.admit_prompts(budget, chunked, paged);
        }
        if sched.batch_waits() && self.plan.decode_seqs > 0 && !self.plan.chunks.is_empty() {
            // TensorRT-LLM holds the step's prompts back while decodes run, until the step
            // would reach the share of the budget or they have waited the most steps
            let share = sched.batch_wait_tokens_ratio * sched.max_num_batched_tokens as f64;
            if self.r.batch_waited() < sched.batch_wait_iters && (self.plan.tokens() as f64) < share {
                self.plan.chunks.clear();
                self.plan.work = decode_only;
                self.plan.stop = AdmitStop::BatchWait;
                self.plan.batch_wait = BatchWait::Held;
            } else {
                self.plan.batch_wait = BatchWait::Released;
            }
        }
        if self.plan.work.is_empty() {
            // Nothing could run. If prompts are stuck half-prefilled with no KV to continue,
            // preempt the newest so the oldest can progress (and plan again); otherwise idle.
            let stuck = self.r.prefilling().iter().any(|h| !self.is_preempted(*h));
            self.plan.retry = stuck && self.preempt_newest();
        }
    }

    /// Prompts already being prefilled continue, oldest first, in chunks the budget and (paged)
    /// the free KV allow. Returns the budget left.
    fn continue_prompts(&mut self, mut budget: u64, paged: bool) -> u64 {
        let r = self.r;
        for &h in r.prefilling() {
            if budget == 0 {
                break;
            }
            if self.is_preempted(h) {
                continue;
            }
            let r = &r.reqs()[h];
            let (done, target) = (r.prefilled, r.prefill_target);
            let n = ((target - done) as u64).min(budget);
            let (n, units) = if paged { self.pool.fit_chunk(done as u64, n) } else { (n, 0) };
            self.pool.take(r.class as usize, units);
            if n > 0 {
                self.chunk(h, r.id, r.class, done, target, n, false, units);
                budget -= n;
            }
        }
        budget
    }

    /// Admits waiting prompts while the budget, the batch slots and the KV allow; with
    /// isolation, a class that does not fit is skipped and the next class tried.
    fn admit_prompts(&mut self, mut budget: u64, chunked: bool, paged: bool) {
        while budget > 0 {
            let Some(c) = self.peek() else { break };
            let target = c.target as u64;
            let (done, pin) = self.hit_of(&c);
            let rest = target - done;
            let n = if chunked { rest.min(budget) } else { rest };
            if n > budget {
                self.plan.stop = AdmitStop::TokenBudget { budget: self.r.sched().max_num_batched_tokens as u64 };
                break;
            }
            let owed = self.owed(&c, target - done - n);
            let reservation = self.reservation_refused(&c, done, n, owed);
            if reservation.is_some() || !self.admissible(&c, done, n, pin) {
                self.plan.stop = match reservation {
                    Some(stop) => stop,
                    None => self.stop_for(if c.ready > 0 { done + n } else { n }, budget),
                };
                if self.s.blocked.len() > 1 {
                    self.s.blocked[c.lane] = true;
                    self.s.dirty = true;
                    if self.s.blocked.iter().all(|b| *b) {
                        break;
                    }
                    continue;
                }
                break;
            }
            if self.s.fronts[c.lane].pop().is_none() {
                self.s.pos[c.lane] += 1;
            }
            if done > 0 && c.ready == 0 {
                self.pool.pin(c.class, pin);
                let cache = self.r.cache().expect("a hit has a cache");
                let held = (done / cache.block()) as u32;
                // by chain: a conversation's pins its group's prefix and its own blocks
                for (chain, held) in cache.parts(c.chain.expect("a hit has a chain"), held).into_iter().flatten() {
                    match self.s.pins.iter_mut().find(|p| p.0 == chain) {
                        Some(p) => p.1 = p.1.max(held),
                        None => self.s.pins.push((chain, held)),
                    }
                }
            }
            self.pool.admit_seq(c.class, target);
            // arrived KV is the sequence's own: its blocks are allocated with the first chunk's
            let own = if c.ready > 0 { 0 } else { self.pool.units_for(done) };
            let units = if paged { self.pool.units_for(done + n) - own } else { 0 };
            self.pool.take(c.class, units);
            self.chunk(c.h, self.r.reqs()[c.h].id, c.class as u16, done as u32, c.target, n, true, units);
            self.reserved += owed;
            budget -= n;
        }
        if budget == 0 && self.peek().is_some() {
            self.plan.stop = AdmitStop::TokenBudget { budget: self.r.sched().max_num_batched_tokens as u64 };
        }
    }

    /// Tokens candidate `c` may still need once admitted with `prompt_rest` prompt tokens after
    /// its first chunk, as the admission counts them: none (`Prompt`), the rest of its prompt
    /// and all its output (`WholeSequence`), or with its output clipped to 4,096
    /// (`NewTokenRatio`: SGLang counts a new request's output whole, not by the ratio).
    fn owed(&self, c: &Candidate, prompt_rest: u64) -> u64 {
        let r = &self.r.reqs()[c.h];
        let output = u64::from(r.output.saturating_sub(r.generated));
        match self.r.sched().admission {
            Admission::Prompt => 0,
            Admission::WholeSequence => prompt_rest + output,
            Admission::NewTokenRatio => prompt_rest + output.min(CLIP_MAX_NEW_TOKENS),
        }
    }

    /// Whether the pool's free units, beside what the admitted sequences may still need, leave
    /// no room for candidate `c`'s first chunk (`done` tokens there already, `n` more) and the
    /// `owed` tokens after it: the stop that says so. A server with nothing running takes it
    /// anyway (a sequence longer than the whole pool would otherwise wait forever).
    fn reservation_refused(&self, c: &Candidate, done: u64, n: u64, owed: u64) -> Option<AdmitStop> {
        if owed == 0 && self.reserved == 0 || !self.pool.paged() || self.pool.seqs() == 0 {
            return None;
        }
        let held = if c.ready > 0 { 0 } else { self.pool.units_for(done) };
        let need = self.pool.units_for(done + n) - held + self.pool.units_for(self.reserved + owed);
        let free = self.pool.free();
        (need > free).then_some(AdmitStop::KvMemory { need_units: need, free_units: free })
    }

    /// Why a waiting prompt whose first chunk is `tokens` long is not admitted now.
    fn stop_for(&self, tokens: u64, budget: u64) -> AdmitStop {
        if tokens > budget {
            return AdmitStop::TokenBudget { budget: self.r.sched().max_num_batched_tokens as u64 };
        }
        match self.pool.refusal(tokens) {
            Refusal::Slots => AdmitStop::MaxSeqs { max_num_seqs: self.r.sched().max_num_seqs as u64 },
            Refusal::Kv { need, free } => AdmitStop::KvMemory { need_units: need, free_units: free },
            Refusal::Reserved => AdmitStop::Reserved,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn chunk(&mut self, h: Handle, id: u64, class: u16, done: u32, target: u32, n: u64, admitted: bool, units: u64) {
        self.plan.work.add_prefill_chunk(done as u64, n, done as u64 + n == target as u64);
        self.plan.chunks.push(PlannedChunk { id, tokens: n as u32, done, target, admitted, h, class, units });
    }

    fn fits_whole(&self, c: &Candidate, budget: u64) -> bool {
        let (done, pin) = self.hit_of(c);
        let rest = c.target as u64 - done;
        rest <= budget
            && self.admissible(c, done, rest, pin)
            && self.reservation_refused(c, done, rest, self.owed(c, 0)).is_none()
    }

    /// Whether the pool can take candidate `c` with `done` tokens there already (cached, or
    /// arrived with it) and a first chunk of `n`.
    fn admissible(&self, c: &Candidate, done: u64, n: u64, pin: u64) -> bool {
        if c.ready > 0 {
            self.pool.can_admit(c.class, done + n)
        } else {
            self.pool.can_admit_cached(c.class, done, n, pin)
        }
    }

    /// Prefix caching: the prompt tokens of a candidate found in the cache (whole blocks of its
    /// chain) and the units of them no running sequence references now (to pin). Blocks this
    /// plan's allocations may have taken back are not counted on: then only the blocks in use.
    fn hit_of(&self, c: &Candidate) -> (u64, u64) {
        if c.ready > 0 {
            return (c.ready as u64, 0);
        }
        let (Some(cache), Some(id)) = (self.r.cache(), c.chain) else { return (0, 0) };
        let pins = &self.s.pins;
        let (cached, held) = cache.view(id, |chain| pins.iter().find(|p| p.0 == chain).map_or(0, |p| p.1));
        if cached == 0 {
            return (0, 0);
        }
        let b = cache.block();
        let (cached, held) = (cached as u64, held as u64);
        let pin = self.pool.units_for(cached * b) - self.pool.units_for(held.min(cached) * b);
        if pin > self.pool.cached() {
            return (held * b, 0);
        }
        (cached * b, pin)
    }

    /// The waiting request that would be admitted next: with isolation, by class priority and
    /// then arrival across the lanes not blocked; otherwise the head of the shared queue.
    /// Preempted sequences are back at the front of their lanes; tombstones are skipped.
    fn peek(&mut self) -> Option<Candidate> {
        let r = self.r;
        let mut best: Option<((u32, u64, usize), Candidate)> = None;
        for lane in 0..self.s.pos.len() {
            if self.s.blocked[lane] {
                continue;
            }
            let head = match self.s.fronts[lane].last() {
                Some(&(h, target)) => Some((h, target)),
                None => {
                    let entries = r.queues().entries(lane);
                    let pos = &mut self.s.pos[lane];
                    while entries.get(*pos).is_some_and(|&h| is_tombstone(r.reqs(), h)) {
                        *pos += 1;
                    }
                    entries.get(*pos).map(|&h| (h, r.reqs()[h].prefill_target))
                }
            };
            if let Some((h, target)) = head {
                let q = &r.reqs()[h];
                if self.s.fronts[lane].is_empty() && q.reached > r.visible_until() {
                    continue;
                }
                let key = (r.priority()[q.class as usize], q.arrival, lane);
                if best.as_ref().is_none_or(|(b, _)| key < *b) {
                    let (chain, ready) = (q.prefix_chain, q.kv_ready);
                    best = Some((key, Candidate { lane, h, class: q.class as usize, target, chain, ready }));
                }
            }
        }
        best.map(|(_, c)| c)
    }

    fn growth_of(&self, class: usize) -> u64 {
        self.r.group().growth_of(class) - self.s.growth_gone[class]
    }

    fn growth(&self) -> u64 {
        (0..self.s.growth_gone.len()).map(|c| self.growth_of(c)).sum()
    }

    fn is_preempted(&self, h: Handle) -> bool {
        self.plan.preempted.iter().any(|p| p.h == h)
    }

    /// Preempts (by recompute) the most recently admitted running sequence of the lowest
    /// priority class (isolation) or overall. Never the only running sequence.
    fn preempt_newest(&mut self) -> bool {
        if self.pool.seqs() <= 1 {
            return false;
        }
        let r = self.r;
        let mut victim: Option<(u32, u64, usize, u32)> = None; // (priority, order, class, slot)
        for (c, m) in r.running().iter().enumerate() {
            if let Some((&order, &slot)) = m.iter().rev().nth(self.s.taken_back[c]) {
                let p = if r.sched().isolation { r.priority()[c] } else { 0 };
                if victim.is_none_or(|v| (p, order) > (v.0, v.1)) {
                    victim = Some((p, order, c, slot));
                }
            }
        }
        let Some((_, _, class, slot)) = victim else { return false };
        self.s.taken_back[class] += 1;
        self.s.dirty = true;
        let h = r.reqs().handle(slot);
        let q = &r.reqs()[h];
        let generated = match q.phase {
            Phase::Decode => {
                self.n -= 1;
                let tokens = r.group().tokens(q);
                self.ctx_sum -= tokens;
                let window = self.pool.growth().window;
                if window > 0 {
                    self.window_ctx_sum -= tokens.min(window);
                    self.in_window -= (tokens < window) as u64;
                }
                self.s.growth_gone[class] += r.group().grows_next(q);
                r.group().generated(q)
            }
            _ => q.generated,
        };
        self.pool.release_seq(class, q.prefill_target as u64, r.held_units(q));
        self.s.fronts[r.queues().lane(class)].push((h, q.input + generated));
        self.plan.preempted.push(PlannedPreemption { id: q.id, h });
        true
    }
}

/// Static batching, with the GPU free and no batch running: what the replica does next.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum StaticPlan {
    /// Nothing waits.
    Idle,
    /// The batch is not full: wait until the oldest request's fill window closes.
    Wait { until: Micros },
    /// A batch of these waiting requests (in queue order), prompts padded to `p_max`, run until
    /// the longest output `o_max`.
    Form { members: Vec<Handle>, p_max: u32, o_max: u32 },
}

impl StaticPlan {
    /// The replica `st` shows at `now`: a batch of up to `max_num_seqs` requests in queue order
    /// (with isolation, by class priority and then arrival across the lanes) whose padded KV
    /// fits, once the queue holds that many or the oldest has waited `batch_timeout_ms`.
    pub(crate) fn of(st: &impl State, now: Micros) -> StaticPlan {
        let (reqs, queues, sched, pool) = (st.reqs(), st.queues(), st.sched(), st.pool());
        // per lane, the next entry not yet taken
        let mut pos = vec![0usize; queues.lanes()];
        let next = |pos: &mut [usize]| {
            let mut best: Option<((u32, Micros, usize), Handle)> = None;
            for (lane, p) in pos.iter_mut().enumerate() {
                let entries = queues.entries(lane);
                while entries.get(*p).is_some_and(|&h| is_tombstone(reqs, h)) {
                    *p += 1;
                }
                if let Some(&h) = entries.get(*p) {
                    let r = &reqs[h];
                    let key = (st.priority()[r.class as usize], r.arrival, lane);
                    if best.is_none_or(|(b, _)| key < b) {
                        best = Some((key, h));
                    }
                }
            }
            best.map(|((_, _, lane), h)| (lane, h))
        };
        let Some((_, first)) = next(&mut pos) else { return StaticPlan::Idle };
        let window_end = reqs[first].arrival + (sched.batch_timeout_ms * 1000.0).round() as u64;
        let max_seqs = sched.max_num_seqs as u64;
        if queues.total() < max_seqs && now < window_end {
            return StaticPlan::Wait { until: window_end };
        }
        let mut members: Vec<Handle> = Vec::new();
        let (mut p_max, mut o_max) = (0u32, 0u32);
        while (members.len() as u64) < max_seqs {
            let Some((lane, h)) = next(&mut pos) else { break };
            let r = &reqs[h];
            let (p, o) = (p_max.max(r.prefill_target), o_max.max(r.output));
            if pool.static_units((p + o) as u64) * (members.len() as u64 + 1) > pool.capacity() {
                break;
            }
            (p_max, o_max) = (p, o);
            pos[lane] += 1;
            members.push(h);
        }
        if members.is_empty() {
            StaticPlan::Idle
        } else {
            StaticPlan::Form { members, p_max, o_max }
        }
    }
}
