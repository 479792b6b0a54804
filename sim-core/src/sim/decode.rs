//! The decode group: sequences that are decoding advance in lockstep, one token per iteration,
//! so the group keeps aggregate state — a global token counter `k` (tokens each member gained
//! per step, summed: the decode steps, or with speculative decoding the tokens the steps
//! emitted, `step_tokens` each) and, per member, the count it joined at. Context sums, KV block growth (by block phase), inter-token gaps and
//! finishes are then updated in O(1) per iteration plus O(log n) per member event, whatever the
//! batch size.
//!
//! A model's KV grows by attention form: a full-attention layer group gains a block every
//! `block` tokens for ever, a sliding-window group only until the sequence holds `window`
//! tokens (members still inside the window are counted apart, and leave that count at a step
//! known when they join). Linear-attention state is fixed and never grows here.
//!
//! With speculative decoding a step emits `step_tokens` tokens per member (one draw for the
//! batch, `crate::speculative`): a member's KV grows by all of them, and it finishes at the step
//! whose tokens reach its output (it delivers only the tokens it still needed; its KV counts the
//! whole step until it leaves, at the step's end). The pool's sliding window is then a draft
//! model's (validation refuses speculation for a target with one): a member's window layers gain
//! blocks only for the tokens of a step still inside the window, and the members whose window
//! ends inside the coming step are looked up by the step it ends at.

use super::requests::{Handle, Phase, Req};
use super::time::Micros;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// How one sequence's KV units grow with its tokens (see `KvPool::units_for`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Growth {
    /// Units a block of tokens adds in the full-attention layers.
    pub full: u64,
    /// Units a block of tokens adds in the sliding-window layers, while inside the window.
    pub windowed: u64,
    /// The window in tokens (0: no sliding-window layers).
    pub window: u64,
}

impl Growth {
    /// Every layer attends over the whole context: one unit per block.
    #[cfg(test)]
    pub const FULL: Growth = Growth { full: 1, windowed: 0, window: 0 };
}

pub(crate) struct DecodeGroup {
    /// Tokens per member the completed decode steps emitted (one per step without
    /// speculation).
    pub k: u64,
    /// Tokens each member gains in the next decode step (1 without speculation).
    pub step_tokens: u64,
    pub n: u64,
    pub n_class: Vec<u64>,
    /// Σ KV tokens of members after the last completed step.
    pub ctx_sum: u64,
    /// Tokens per KV block (1 when contiguous).
    block: u64,
    /// Members per class and block phase: a member crosses into a new block at step k when
    /// (phase + k) % block == 0.
    phase_count: Vec<Vec<u64>>,
    /// Members whose last token is not the group's last decode step (just joined).
    pub fresh: Vec<(Handle, Micros)>,
    pub last_decode_end: Micros,
    /// (step it finishes at, slot, join id); stale entries are skipped.
    finishes: BinaryHeap<Reverse<(u64, u32, u64)>>,
    /// Σ over members of the step count `k` at which each finishes: Σ of their output tokens
    /// still to come is `finish_sum − n × k` ([`DecodeGroup::outputs_to_come`]).
    finish_sum: u64,
    next_join_id: u64,
    growth: Growth,
    /// Members whose tokens are still below the window, per class and block phase.
    window_phase_count: Vec<Vec<u64>>,
    /// Members still below the window.
    pub n_in_window: u64,
    /// Σ over members of min(tokens, window).
    pub window_ctx_sum: u64,
    /// (step its tokens reach the window, slot, join id) → (class, block phase) of each member
    /// still below the window (removed when it leaves).
    window_ends: BTreeMap<(u64, u32, u64), (usize, usize)>,
}

impl DecodeGroup {
    pub fn new(classes: usize, block: u64, growth: Growth) -> DecodeGroup {
        DecodeGroup {
            k: 0,
            step_tokens: 1,
            n: 0,
            n_class: vec![0; classes],
            ctx_sum: 0,
            block,
            phase_count: vec![vec![0; block as usize]; classes],
            fresh: Vec::new(),
            last_decode_end: 0,
            finishes: BinaryHeap::new(),
            finish_sum: 0,
            next_join_id: 1,
            growth,
            window_phase_count: if growth.window > 0 { vec![vec![0; block as usize]; classes] } else { Vec::new() },
            n_in_window: 0,
            window_ctx_sum: 0,
            window_ends: BTreeMap::new(),
        }
    }

    fn in_window(&self, tokens: u64) -> bool {
        tokens < self.growth.window
    }

    /// KV tokens a member holds now.
    pub fn tokens(&self, r: &Req) -> u64 {
        r.input as u64 + r.dec_gen0 as u64 - 1 + (self.k - r.dec_k0)
    }

    /// Tokens a member has generated (a member finishing inside a speculative step delivers
    /// only the tokens it needed).
    pub fn generated(&self, r: &Req) -> u32 {
        (r.dec_gen0 as u64 + (self.k - r.dec_k0)).min(r.output as u64) as u32
    }

    fn block_phase(&self, r: &Req) -> usize {
        let b = self.block;
        // crosses at step k when (tokens_before_step) % b == 0, tokens_before(k) = base + k
        let base = (r.input as u64 + r.dec_gen0 as u64 - 1) % b;
        ((base + b - r.dec_k0 % b) % b) as usize
    }

    /// The block phase whose members cross into a new block with token `j` of the next step.
    fn crossing_phase(&self, j: u64) -> usize {
        let b = self.block;
        ((b - (self.k + j) % b) % b) as usize
    }

    /// New KV units a class's members need for the next decode step.
    pub fn growth_of(&self, class: usize) -> u64 {
        let b = self.block;
        if self.step_tokens > 1 {
            // one crossing per token of the step whose position starts a block
            let m = self.step_tokens;
            let crossings: u64 = (0..m).map(|j| self.phase_count[class][self.crossing_phase(j)]).sum();
            let mut full = crossings * self.growth.full;
            if self.growth.window > 0 {
                // the window layers cross too while the token is inside the window: members whose
                // window ends at step `end` inside this step cross only with tokens j < end − k
                let inside: u64 = (0..m).map(|j| self.window_phase_count[class][self.crossing_phase(j)]).sum();
                let mut past = 0;
                for (&(end, _, _), &(c, ph)) in self.window_ends.range(..(self.k + m, 0, 0)) {
                    if c == class {
                        past += (end - self.k..m).filter(|&j| self.crossing_phase(j) == ph).count() as u64;
                    }
                }
                full += (inside - past) * self.growth.windowed;
            }
            return full;
        }
        let phase = ((b - self.k % b) % b) as usize;
        let full = self.phase_count[class][phase] * self.growth.full;
        if self.growth.window > 0 {
            full + self.window_phase_count[class][phase] * self.growth.windowed
        } else {
            full
        }
    }

    /// New KV units this member needs in the next decode step (it crosses into a new block).
    pub fn grows_next(&self, r: &Req) -> u64 {
        let b = self.block;
        if self.step_tokens > 1 {
            let (ph, tokens) = (self.block_phase(r), self.tokens(r));
            let crossing = |j: &u64| ph == self.crossing_phase(*j);
            let crossings = (0..self.step_tokens).filter(crossing).count() as u64;
            let windowed = (0..self.step_tokens).filter(|j| crossing(j) && self.in_window(tokens + j)).count() as u64;
            return crossings * self.growth.full + windowed * self.growth.windowed;
        }
        if self.block_phase(r) != ((b - self.k % b) % b) as usize {
            return 0;
        }
        self.growth.full + if self.in_window(self.tokens(r)) { self.growth.windowed } else { 0 }
    }

    pub fn growth(&self) -> u64 {
        (0..self.n_class.len()).map(|c| self.growth_of(c)).sum()
    }

    /// A sequence whose prompt is done (and emitted its first token at `now`) joins.
    pub fn join(&mut self, h: Handle, r: &mut Req, now: Micros) {
        r.phase = Phase::Decode;
        r.dec_k0 = self.k;
        r.dec_gen0 = r.generated;
        r.join_id = self.next_join_id;
        self.next_join_id += 1;
        let finish = self.k + (r.output - r.generated) as u64;
        self.finishes.push(Reverse((finish, h.slot, r.join_id)));
        self.finish_sum += finish;
        let class = r.class as usize;
        self.n += 1;
        self.n_class[class] += 1;
        self.ctx_sum += r.prefilled as u64;
        let ph = self.block_phase(r);
        self.phase_count[class][ph] += 1;
        if self.growth.window > 0 {
            let tokens = self.tokens(r);
            self.window_ctx_sum += tokens.min(self.growth.window);
            if self.in_window(tokens) {
                self.n_in_window += 1;
                self.window_phase_count[class][ph] += 1;
                let end = self.k + (self.growth.window - tokens);
                self.window_ends.insert((end, h.slot, r.join_id), (class, ph));
            }
        }
        self.fresh.push((h, now));
    }

    /// A member leaves (finished or preempted): its generated count is fixed and its finish
    /// entry goes stale.
    pub fn leave(&mut self, h: Handle, r: &mut Req) {
        let class = r.class as usize;
        self.finish_sum -= r.dec_k0 + (r.output - r.dec_gen0) as u64;
        self.n -= 1;
        self.n_class[class] -= 1;
        self.ctx_sum -= self.tokens(r);
        let ph = self.block_phase(r);
        self.phase_count[class][ph] -= 1;
        if self.growth.window > 0 {
            let tokens = self.tokens(r);
            self.window_ctx_sum -= tokens.min(self.growth.window);
            if self.in_window(tokens) {
                self.n_in_window -= 1;
                self.window_phase_count[class][ph] -= 1;
                let end = self.k + (self.growth.window - tokens);
                self.window_ends.remove(&(end, h.slot, r.join_id));
            }
        }
        if !self.fresh.is_empty() {
            self.fresh.retain(|(f, _)| *f != h);
        }
        r.generated = self.generated(r);
        r.join_id = u64::MAX;
    }

    /// A decode step ended: every member has `step_tokens` more tokens (members reaching the
    /// window leave the window count, having gained window tokens only up to it).
    pub fn step_done(&mut self) {
        let m = self.step_tokens;
        self.k += m;
        self.ctx_sum += self.n * m;
        if self.growth.window == 0 {
            return;
        }
        self.window_ctx_sum += self.n_in_window * m;
        while let Some((&(end, slot, join), &(class, phase))) = self.window_ends.first_key_value() {
            if end > self.k {
                break;
            }
            self.window_ends.remove(&(end, slot, join));
            // its tokens reached the window at step `end`, inside this step
            self.window_ctx_sum -= self.k - end;
            self.n_in_window -= 1;
            self.window_phase_count[class][phase] -= 1;
        }
    }

    /// Output tokens the members have still to emit (each up to its output length).
    pub fn outputs_to_come(&self) -> u64 {
        self.finish_sum.saturating_sub(self.n * self.k)
    }

    /// The next member (slot, join id) due to finish by now, if any; may be stale.
    pub fn pop_finished(&mut self) -> Option<(u32, u64)> {
        let &Reverse((k, slot, join)) = self.finishes.peek()?;
        if k > self.k {
            return None;
        }
        self.finishes.pop();
        Some((slot, join))
    }

    /// Everyone is gone (OOM restart); the step counter goes on.
    pub fn clear(&mut self) {
        self.n = 0;
        self.ctx_sum = 0;
        self.n_class.iter_mut().chain(self.phase_count.iter_mut().flatten()).for_each(|c| *c = 0);
        self.window_phase_count.iter_mut().flatten().for_each(|c| *c = 0);
        (self.n_in_window, self.window_ctx_sum) = (0, 0);
        self.window_ends.clear();
        self.fresh.clear();
        self.finishes.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::requests::Requests;

    /// A request whose prompt of `input` tokens is done and that emitted its first token.
    fn prefilled(reqs: &mut Requests, class: usize, input: u32, output: u32) -> Handle {
        let h = reqs.alloc(reqs.live().count() as u64, class, 0, input, output);
        let r = &mut reqs[h];
        (r.prefilled, r.generated, r.phase) = (input, 1, Phase::Prefill);
        h
    }

    #[test]
    fn lockstep_tokens_growth_and_finishes() {
        let block = 4;
        let mut reqs = Requests::default();
        let mut g = DecodeGroup::new(2, block, Growth::FULL);
        let hs = [prefilled(&mut reqs, 0, 5, 4), prefilled(&mut reqs, 1, 8, 10), prefilled(&mut reqs, 0, 3, 3)];
        for &h in &hs {
            g.join(h, &mut reqs[h], 7);
        }
        assert_eq!((g.n, g.n_class.clone(), g.ctx_sum, g.fresh.len()), (3, vec![2, 1], 16, 3));
        let mut finished = Vec::new();
        for step in 0..12u64 {
            // brute force: a member needs a new block when its KV tokens fill the last one
            let need: Vec<u64> = (0..2)
                .map(|c| {
                    let members = hs.iter().filter(|&&h| reqs.get(h).is_some_and(|r| r.phase == Phase::Decode));
                    members
                        .filter(|&&h| reqs[h].class as usize == c && g.tokens(&reqs[h]).is_multiple_of(block))
                        .count() as u64
                })
                .collect();
            assert_eq!((g.growth_of(0), g.growth_of(1)), (need[0], need[1]), "step {step}");
            assert_eq!(g.growth(), need[0] + need[1]);
            for &h in &hs {
                if reqs.get(h).is_some_and(|r| r.phase == Phase::Decode) {
                    assert_eq!(g.grows_next(&reqs[h]), g.tokens(&reqs[h]).is_multiple_of(block) as u64);
                }
            }
            g.step_done();
            while let Some((slot, join)) = g.pop_finished() {
                let h = reqs.handle(slot);
                if reqs[h].join_id == join {
                    g.leave(h, &mut reqs[h]);
                    assert_eq!(reqs[h].generated, reqs[h].output);
                    reqs[h].phase = Phase::Queued;
                    reqs.free(h);
                    finished.push((reqs[h].id, step + 1));
                }
            }
            let live_ctx: u64 = hs.iter().filter(|&&h| reqs.get(h).is_some()).map(|&h| g.tokens(&reqs[h])).sum();
            assert_eq!(g.ctx_sum, live_ctx, "step {step}");
        }
        // outputs 4, 10, 3 with one token from the prefill: 3, 9, 2 decode steps
        assert_eq!(finished, vec![(2, 2), (0, 3), (1, 9)]);
        assert_eq!((g.n, g.ctx_sum), (0, 0));
    }

    #[test]
    fn speculative_steps_grow_window_layers_only_inside_the_window() {
        // blocks of 4, two full-attention units and one window unit per block, window 10; steps
        // of 1 to 4 tokens; one member leaves midway. Brute force per member of t tokens and a
        // step of m: a full crossing for each j < m with (t + j) % 4 == 0, a window crossing for
        // those with t + j < 10 too; it holds min(t, 10) window tokens.
        let (block, window) = (4, 10);
        let mut reqs = Requests::default();
        let mut g = DecodeGroup::new(2, block, Growth { full: 2, windowed: 1, window });
        let hs = [prefilled(&mut reqs, 0, 1, 99), prefilled(&mut reqs, 1, 3, 99), prefilled(&mut reqs, 0, 6, 99)];
        let extra = prefilled(&mut reqs, 1, 2, 99);
        for &h in hs.iter().chain([&extra]) {
            g.join(h, &mut reqs[h], 0);
        }
        let mut live: Vec<Handle> = hs.iter().copied().chain([extra]).collect();
        for (step, m) in [3u64, 1, 4, 2, 4, 1, 3, 4].into_iter().enumerate() {
            g.step_tokens = m;
            let crosses = |t: u64, inside: bool| {
                (0..m).filter(move |j| (t + j).is_multiple_of(block) && (!inside || t + j < window))
            };
            let want = |h: Handle| {
                let t = g.tokens(&reqs[h]);
                2 * crosses(t, false).count() as u64 + crosses(t, true).count() as u64
            };
            for c in 0..2 {
                let need: u64 = live.iter().filter(|&&h| reqs[h].class as usize == c).map(|&h| want(h)).sum();
                assert_eq!(g.growth_of(c), need, "step {step} class {c}");
            }
            for &h in &live {
                assert_eq!(g.grows_next(&reqs[h]), want(h), "step {step}");
            }
            g.step_done();
            if step == 3 {
                g.leave(extra, &mut reqs[extra]);
                live.retain(|&h| h != extra);
            }
            let tokens: Vec<u64> = live.iter().map(|&h| g.tokens(&reqs[h])).collect();
            assert_eq!(g.window_ctx_sum, tokens.iter().map(|&t| t.min(window)).sum::<u64>(), "step {step}");
            assert_eq!(g.n_in_window, tokens.iter().filter(|&&t| t < window).count() as u64, "step {step}");
        }
        assert!(g.window_ends.is_empty(), "every member passed its window");
    }

    #[test]
    fn a_member_that_leaves_early_keeps_its_count() {
        let mut reqs = Requests::default();
        let mut g = DecodeGroup::new(1, 16, Growth::FULL);
        let h = prefilled(&mut reqs, 0, 10, 100);
        g.join(h, &mut reqs[h], 0);
        for _ in 0..5 {
            g.step_done();
        }
        assert_eq!((g.generated(&reqs[h]), g.tokens(&reqs[h])), (6, 15));
        g.leave(h, &mut reqs[h]);
        assert_eq!((reqs[h].generated, reqs[h].join_id, g.n, g.ctx_sum), (6, u64::MAX, 0, 0));
        assert!(g.fresh.is_empty());
        g.clear();
        assert_eq!(g.pop_finished(), None);
    }
}
