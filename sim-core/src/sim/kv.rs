//! The KV pool of one replica: KV cache allocation in units and the batch slots, per class.
//!
//! A *unit* is a block of `block_size` tokens for the paged layout and one token for the
//! contiguous layout (which reserves `max_model_len` tokens per sequence at admission). With
//! isolation, each class has a reserved share of the slots and of the units that other classes
//! cannot take; with over-commit, admission counts only the prompts' KV against the pool and what
//! running sequences generate grows unchecked into the headroom (past `physical` it is an OOM).
//!
//! A unit holds its tokens for one group of layers (all of them for most models). A sequence of
//! `t` tokens holds `full · ⌈t/b⌉` units for its full-attention layers, `windowed · ⌈min(t, W)/b⌉`
//! for its sliding-window layers and, from admission on, a fixed `state` for its linear-attention
//! layers (`HbmPlan::pool_growth`).

use super::decode::Growth;
use crate::memory::HbmPlan;
use crate::scenario::{KvLayout, Scenario};

/// How a pool is sized and shared; everything fixed for the run.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PoolConfig {
    pub paged: bool,
    /// Tokens per unit: `block_size` when paged, 1 when contiguous.
    pub unit_tokens: u64,
    /// Units the scheduler may fill.
    pub capacity: u64,
    /// Units that fit before physical memory runs out.
    pub physical: u64,
    pub overcommit: bool,
    pub isolation: bool,
    pub max_seqs: u64,
    pub max_model_len: u64,
    /// Reserved share of slots and units per class (used with isolation).
    pub shares: Vec<f64>,
    /// How a sequence's units grow with its tokens.
    pub growth: Growth,
    /// Units of fixed state each sequence holds from admission (linear-attention layers).
    pub state_units: u64,
}

impl PoolConfig {
    pub fn from_scenario(scenario: &Scenario, plan: &HbmPlan) -> PoolConfig {
        let s = &scenario.scheduler;
        let paged = s.kv_layout == KvLayout::Paged;
        let (unit_tokens, capacity, physical) = if paged {
            (s.block_size as u64, plan.capacity_blocks(), plan.physical_blocks())
        } else {
            (1, plan.kv_capacity_tokens, plan.kv_physical_tokens)
        };
        let pg = plan.pool_growth;
        let growth = Growth { full: pg.full_groups, windowed: pg.window_groups, window: pg.window };
        let state_units = pg.state_tokens.div_ceil(unit_tokens);
        // Reserved shares: explicit ones, the rest split equally.
        let classes = &scenario.classes;
        let given: f64 = classes.iter().filter_map(|c| c.reserved_share).sum();
        let unspecified = classes.iter().filter(|c| c.reserved_share.is_none()).count();
        let rest = if unspecified > 0 { (1.0 - given).max(0.0) / unspecified as f64 } else { 0.0 };
        PoolConfig {
            paged,
            unit_tokens,
            capacity,
            physical,
            overcommit: s.overcommit,
            isolation: s.isolation,
            max_seqs: s.max_num_seqs as u64,
            max_model_len: s.max_model_len as u64,
            shares: classes.iter().map(|c| c.reserved_share.unwrap_or(rest)).collect(),
            growth,
            state_units,
        }
    }
}

/// Why the pool refuses a sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Every batch slot (`max_num_seqs`) is taken.
    Slots,
    /// The KV units it needs (with the watermark) are more than those free.
    Kv { need: u64, free: u64 },
    /// It would eat into another class's reserved share (isolation).
    Reserved,
}

/// KV units and batch slots in use, per class, with the admission rules.
#[derive(Debug)]
pub(crate) struct KvPool {
    cfg: PoolConfig,
    slot_quota: Vec<u64>,
    unit_quota: Vec<u64>,
    used: u64,
    used_class: Vec<u64>,
    /// Over-commit admission: units of the prompts of running sequences.
    prompt: u64,
    seqs: u64,
    seqs_class: Vec<u64>,
    peak: u64,
    /// Prefix caching: units cached but referenced by no running sequence (outside `used`,
    /// taken back when an allocation finds no free unit), and units taken back so but not yet
    /// removed from their chains (`Replica::settle_evictions`).
    cached: u64,
    evict_due: u64,
}

impl Clone for KvPool {
    fn clone(&self) -> Self {
        let mut p = KvPool::new(self.cfg.clone());
        p.copy_usage_from(self);
        p
    }
}

impl KvPool {
    pub fn new(cfg: PoolConfig) -> KvPool {
        let n = cfg.shares.len();
        let quota = |total: u64| -> Vec<u64> {
            cfg.shares.iter().map(|f| if cfg.isolation { (f * total as f64).floor() as u64 } else { 0 }).collect()
        };
        KvPool {
            slot_quota: quota(cfg.max_seqs),
            unit_quota: quota(cfg.capacity),
            used: 0,
            used_class: vec![0; n],
            prompt: 0,
            seqs: 0,
            seqs_class: vec![0; n],
            peak: 0,
            cached: 0,
            evict_due: 0,
            cfg,
        }
    }

    /// Takes the usage of a pool of the same configuration, reusing the allocations (the
    /// scheduler plans every iteration on a copy of the pool).
    pub fn copy_usage_from(&mut self, o: &KvPool) {
        debug_assert!(self.cfg == o.cfg && self.slot_quota == o.slot_quota);
        self.used_class.copy_from_slice(&o.used_class);
        self.seqs_class.copy_from_slice(&o.seqs_class);
        (self.used, self.prompt, self.seqs, self.peak) = (o.used, o.prompt, o.seqs, o.peak);
        (self.cached, self.evict_due) = (o.cached, o.evict_due);
    }

    pub fn paged(&self) -> bool {
        self.cfg.paged
    }
    pub fn unit_tokens(&self) -> u64 {
        self.cfg.unit_tokens
    }
    pub fn capacity(&self) -> u64 {
        self.cfg.capacity
    }
    pub fn used(&self) -> u64 {
        self.used
    }
    /// Most units in use at any time.
    pub fn peak(&self) -> u64 {
        self.peak
    }
    pub fn free(&self) -> u64 {
        self.cfg.capacity.saturating_sub(self.used)
    }
    /// Share of the pool in use (0 without a pool).
    pub fn used_share(&self) -> f64 {
        if self.cfg.capacity > 0 {
            self.used as f64 / self.cfg.capacity as f64
        } else {
            0.0
        }
    }
    /// Over-commit has grown past the memory the GPU has.
    pub fn over_physical(&self) -> bool {
        self.used > self.cfg.physical
    }
    /// Within the pool (with the cached units), or over-committing (which may run past it).
    pub fn within_capacity(&self) -> bool {
        self.cfg.overcommit || self.used + self.cached <= self.cfg.capacity
    }
    /// Running sequences (batch slots taken).
    pub fn seqs(&self) -> u64 {
        self.seqs
    }

    pub fn growth(&self) -> Growth {
        self.cfg.growth
    }

    /// Units of the attention layers' KV for `tokens` tokens (without the fixed state).
    pub fn units_for(&self, tokens: u64) -> u64 {
        let g = self.cfg.growth;
        let b = self.cfg.unit_tokens;
        let full = tokens.div_ceil(b) * g.full;
        if g.window == 0 {
            full
        } else {
            full + tokens.min(g.window).div_ceil(b) * g.windowed
        }
    }

    /// Units a sequence of `tokens` tokens holds: its KV and its fixed state.
    pub fn seq_units(&self, tokens: u64) -> u64 {
        self.units_for(tokens) + self.cfg.state_units
    }

    /// The most tokens whose KV (without the state) fits in `units` units.
    fn max_tokens(&self, units: u64) -> u64 {
        let g = self.cfg.growth;
        let b = self.cfg.unit_tokens;
        let below = units / (g.full + g.windowed).max(1) * b;
        if g.window == 0 || below <= g.window {
            return below;
        }
        // past the window only the full-attention layers grow (none: no limit)
        let rest = units - g.window.div_ceil(b) * g.windowed;
        rest.checked_div(g.full).map_or(u64::MAX, |n| (n * b).max(g.window))
    }

    pub fn take(&mut self, class: usize, units: u64) {
        self.used += units;
        self.used_class[class] += units;
        self.peak = self.peak.max(self.used);
        let over = (self.used + self.cached).saturating_sub(self.cfg.capacity);
        if over > 0 && self.cached > 0 {
            // no free unit left: cached prefix blocks are taken back
            let n = over.min(self.cached);
            self.cached -= n;
            self.evict_due += n;
        }
    }

    /// Cached units no running sequence references (prefix caching).
    pub fn cached(&self) -> u64 {
        self.cached
    }

    /// Units the pool took back from the cache that are still to be removed from their chains.
    pub fn evict_due(&self) -> u64 {
        self.evict_due
    }

    /// A cached block of `units` units was removed from its chain (`evict_due` goes down by it;
    /// what it held beyond that leaves the cached units).
    pub fn evicted(&mut self, units: u64) {
        let from_due = units.min(self.evict_due);
        self.evict_due -= from_due;
        self.cached -= units - from_due;
    }

    /// Cached units a sequence now references are in use again.
    pub fn pin(&mut self, class: usize, units: u64) {
        debug_assert!(units <= self.cached);
        self.cached -= units;
        self.used += units;
        self.used_class[class] += units;
        self.peak = self.peak.max(self.used);
    }

    /// Units no running sequence references any more stay cached.
    pub fn unpin(&mut self, class: usize, units: u64) {
        self.release(class, units);
        self.cached += units;
    }

    pub fn release(&mut self, class: usize, units: u64) {
        self.used -= units;
        self.used_class[class] -= units;
    }

    /// A sequence with a prompt of `prompt_tokens` takes a batch slot; returns the units
    /// reserved for it now (contiguous: `max_model_len`; paged: none until its chunks run).
    pub fn admit_seq(&mut self, class: usize, prompt_tokens: u64) -> u64 {
        self.prompt += self.seq_units(prompt_tokens);
        self.seqs += 1;
        self.seqs_class[class] += 1;
        let reserve = if self.cfg.paged { self.cfg.state_units } else { self.seq_units(self.cfg.max_model_len) };
        if reserve > 0 {
            self.take(class, reserve);
        }
        reserve
    }

    /// A running sequence leaves its slot and frees the `held` units it holds.
    pub fn release_seq(&mut self, class: usize, prompt_tokens: u64, held: u64) {
        self.prompt -= self.seq_units(prompt_tokens);
        self.release(class, held);
        self.seqs -= 1;
        self.seqs_class[class] -= 1;
    }

    /// Everything is lost (an OOM restart); the peak is kept.
    pub fn clear(&mut self) {
        (self.used, self.prompt, self.seqs, self.cached, self.evict_due) = (0, 0, 0, 0, 0);
        self.used_class.iter_mut().chain(self.seqs_class.iter_mut()).for_each(|u| *u = 0);
    }

    /// Free blocks kept back when admitting while others run, so an admission does not force
    /// an immediate preemption (vLLM keeps 1%).
    pub fn watermark(&self) -> u64 {
        if self.cfg.overcommit || !self.cfg.paged || self.seqs == 0 {
            0
        } else {
            self.cfg.capacity / 100
        }
    }

    /// Could `class` admit a sequence whose first `done` prompt tokens are cached, and of whose
    /// cached blocks `pin` units are referenced by no other sequence, with a first chunk of `n`
    /// tokens? (`done` and `pin` 0: `can_admit`.)
    pub fn can_admit_cached(&self, class: usize, done: u64, n: u64, pin: u64) -> bool {
        if done == 0 && pin == 0 {
            return self.can_admit(class, n);
        }
        let need = self.units_for(done + n) - self.units_for(done) + self.cfg.state_units + self.watermark();
        pin <= self.cached && self.allows(class, need + pin)
    }

    /// Could `class` admit a sequence whose first chunk is `tokens` long?
    pub fn can_admit(&self, class: usize, tokens: u64) -> bool {
        let need = if self.cfg.paged {
            self.seq_units(tokens) + self.watermark()
        } else {
            self.seq_units(self.cfg.max_model_len)
        };
        self.allows(class, need)
    }

    /// Why a sequence whose first chunk is `tokens` long cannot be admitted (call after
    /// `can_admit` said no): the batch slots, another class's reservation, or the KV.
    pub fn refusal(&self, tokens: u64) -> Refusal {
        if self.seqs >= self.cfg.max_seqs {
            return Refusal::Slots;
        }
        let need = if self.cfg.paged { self.units_for(tokens) + self.watermark() } else { self.cfg.max_model_len };
        let free = if self.cfg.overcommit { self.cfg.capacity.saturating_sub(self.prompt) } else { self.free() };
        if need > free {
            return Refusal::Kv { need, free };
        }
        Refusal::Reserved
    }

    /// Could `class` take one more batch slot and `units` more units without eating into
    /// another class's reservation?
    fn allows(&self, class: usize, units: u64) -> bool {
        let base_ok = self.seqs < self.cfg.max_seqs;
        if self.cfg.overcommit {
            return base_ok && self.prompt + units <= self.cfg.capacity;
        }
        if !base_ok || units > self.free() {
            return false;
        }
        if !self.cfg.isolation {
            return true;
        }
        let (mut others_slots, mut others_units) = (0, 0);
        for c in (0..self.seqs_class.len()).filter(|&c| c != class) {
            others_slots += self.slot_quota[c].saturating_sub(self.seqs_class[c]);
            others_units += self.unit_quota[c].saturating_sub(self.used_class[c]);
        }
        // a class with nothing running may always start one sequence, so no class starves
        // when its reservation is smaller than one sequence
        self.seqs_class[class] == 0
            || (self.seqs + 1 + others_slots <= self.cfg.max_seqs
                && self.used + units + others_units <= self.cfg.capacity)
    }

    /// A prefill chunk of `n` tokens after `done` computed ones, shrunk to the KV that can be
    /// allocated for it (paged): the tokens that run and the units they add.
    pub fn fit_chunk(&self, done: u64, n: u64) -> (u64, u64) {
        let have = self.units_for(done);
        let n = if self.cfg.overcommit { n } else { n.min(self.max_tokens(have + self.free()).saturating_sub(done)) };
        (n, self.units_for(done + n) - have)
    }

    /// Units each member of a static batch holds, padded to `tokens` (prompt + output).
    pub fn static_units(&self, tokens: u64) -> u64 {
        if self.cfg.paged {
            self.seq_units(tokens)
        } else {
            self.seq_units(self.cfg.max_model_len)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(paged: bool, capacity: u64) -> PoolConfig {
        PoolConfig {
            paged,
            unit_tokens: if paged { 16 } else { 1 },
            capacity,
            physical: capacity * 2,
            overcommit: false,
            isolation: false,
            max_seqs: 8,
            max_model_len: 100,
            shares: vec![0.5, 0.5],
            growth: Growth::FULL,
            state_units: 0,
        }
    }

    #[test]
    fn paged_units_round_up_to_blocks() {
        let p = KvPool::new(cfg(true, 1000));
        assert_eq!((p.units_for(0), p.units_for(1), p.units_for(16), p.units_for(17)), (0, 1, 1, 2));
        assert_eq!(p.static_units(33), 3);
        assert_eq!(KvPool::new(cfg(false, 1000)).static_units(33), 100);
    }

    #[test]
    fn windowed_layers_stop_counting_at_the_window_and_state_is_reserved_at_admission() {
        // one full-attention group and one sliding-window group of 32 tokens, 2 units of state
        let mut c = cfg(true, 10);
        (c.growth, c.state_units) = (Growth { full: 1, windowed: 1, window: 32 }, 2);
        let mut p = KvPool::new(c);
        assert_eq!((p.units_for(16), p.units_for(32), p.units_for(48), p.units_for(480)), (2, 4, 5, 32));
        assert_eq!(p.seq_units(48), 7);
        // 10 free units: 2 per block up to the window, then 1 per block
        assert_eq!(p.fit_chunk(0, 1000), (128, 10));
        assert_eq!(p.admit_seq(0, 48), 2, "the state is taken at admission");
        p.take(0, 2);
        assert_eq!(p.free(), 6);
        assert!(p.can_admit(1, 16 * 2 - 1) && !p.can_admit(1, 64), "a sequence needs its KV and its state");
    }

    #[test]
    fn take_release_and_peak() {
        let mut p = KvPool::new(cfg(true, 100));
        p.take(0, 30);
        p.take(1, 50);
        p.release(0, 30);
        assert_eq!((p.used(), p.free(), p.peak()), (50, 50, 80));
        assert!((p.used_share() - 0.5).abs() < 1e-12);
        p.clear();
        assert_eq!((p.used(), p.seqs(), p.peak()), (0, 0, 80));
    }

    #[test]
    fn contiguous_reserves_max_model_len_at_admission() {
        let mut p = KvPool::new(cfg(false, 250));
        assert_eq!(p.admit_seq(0, 10), 100);
        assert_eq!(p.admit_seq(1, 10), 100);
        assert_eq!((p.used(), p.seqs()), (200, 2));
        assert!(!p.can_admit(0, 1), "50 tokens left cannot hold another max_model_len");
        p.release_seq(0, 10, 100);
        assert!(p.can_admit(0, 1));
        assert_eq!(p.watermark(), 0);
    }

    #[test]
    fn watermark_applies_only_while_others_run() {
        let mut p = KvPool::new(cfg(true, 1000));
        assert_eq!(p.watermark(), 0);
        assert!(p.can_admit(0, 16 * 1000), "an idle pool admits a prompt that fills it");
        assert_eq!(p.admit_seq(0, 16), 0);
        p.take(0, 1);
        assert_eq!(p.watermark(), 10);
        assert!(p.can_admit(0, 16 * 989));
        assert!(!p.can_admit(0, 16 * 990), "the watermark's 10 blocks stay free");
    }

    #[test]
    fn max_seqs_caps_admission() {
        let mut p = KvPool::new(cfg(true, 1000));
        for _ in 0..8 {
            assert!(p.can_admit(0, 1));
            p.admit_seq(0, 1);
        }
        assert!(!p.can_admit(1, 1));
        assert_eq!(p.refusal(1), Refusal::Slots);
    }

    #[test]
    fn refusal_names_the_kv_it_needs_and_has() {
        let mut p = KvPool::new(cfg(true, 100));
        p.admit_seq(0, 16);
        p.take(0, 95);
        assert!(!p.can_admit(0, 16 * 5));
        assert_eq!(p.refusal(16 * 5), Refusal::Kv { need: 5 + 1, free: 5 }, "5 blocks and the 1% watermark");
        let mut c = cfg(true, 10_000);
        c.isolation = true;
        let mut p = KvPool::new(c);
        for _ in 0..4 {
            p.admit_seq(0, 1);
        }
        assert_eq!(p.refusal(1), Refusal::Reserved, "class 1's slots");
    }

    #[test]
    fn isolation_keeps_the_other_class_reservation() {
        let mut c = cfg(true, 100);
        c.isolation = true;
        let mut p = KvPool::new(c);
        // class 0 starts one sequence even beyond its share
        assert!(p.can_admit(0, 16 * 60));
        p.admit_seq(0, 16 * 60);
        p.take(0, 60);
        // now it may not eat into class 1's 50 units
        assert!(!p.can_admit(0, 16));
        assert!(p.can_admit(1, 16 * 30));
        // slots: 4 reserved for class 1 out of 8
        let mut c = cfg(true, 10_000);
        c.isolation = true;
        let mut p = KvPool::new(c);
        for _ in 0..4 {
            assert!(p.can_admit(0, 1));
            p.admit_seq(0, 1);
        }
        assert!(!p.can_admit(0, 1), "class 1's four slots stay free");
        assert!(p.can_admit(1, 1));
    }

    #[test]
    fn overcommit_counts_only_prompts() {
        let mut c = cfg(true, 10);
        c.overcommit = true;
        let mut p = KvPool::new(c);
        p.admit_seq(0, 16 * 6);
        p.take(0, 15);
        assert!(p.within_capacity(), "over-commit may run past the pool");
        assert!(p.can_admit(0, 16 * 4), "prompts 6 + 4 fit the 10 blocks, growth is not counted");
        assert!(!p.can_admit(0, 16 * 5));
        assert!(!p.over_physical());
        p.take(0, 6);
        assert!(p.over_physical());
        assert_eq!(p.fit_chunk(0, 1000), (1000, 63), "over-commit never shrinks a chunk");
    }

    #[test]
    fn chunks_shrink_to_the_free_blocks() {
        let mut p = KvPool::new(cfg(true, 10));
        p.take(0, 8);
        // 20 tokens done hold 2 blocks (of which 12 tokens are free); 2 more blocks are free
        assert_eq!(p.fit_chunk(20, 1000), (44, 2));
        assert_eq!(p.fit_chunk(20, 5), (5, 0));
        p.take(0, 2);
        assert_eq!(p.fit_chunk(20, 1000), (12, 0));
    }

    #[test]
    fn copy_usage_from_copies_usage() {
        let mut a = KvPool::new(cfg(true, 100));
        a.admit_seq(1, 40);
        a.take(1, 3);
        let mut b = KvPool::new(cfg(true, 100));
        b.copy_usage_from(&a);
        assert_eq!((b.used(), b.seqs(), b.peak()), (3, 1, 3));
        assert_eq!(b.can_admit(0, 16 * 96), a.can_admit(0, 16 * 96));
    }
}
