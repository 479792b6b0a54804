//! The decode group: sequences that are decoding advance in lockstep, one token per iteration,
//! so the group keeps aggregate state — a global decode-step counter `k` and, per member, the
//! step it joined at. Context sums, KV block growth (by block phase), inter-token gaps and
//! finishes are then updated in O(1) per iteration plus O(log n) per member event, whatever the
//! batch size.

use super::events::Micros;
use super::requests::{Handle, Phase, Req};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub(crate) struct DecodeGroup {
    /// Decode iterations completed.
    pub k: u64,
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
    next_join_id: u64,
}

impl DecodeGroup {
    pub fn new(classes: usize, block: u64) -> DecodeGroup {
        DecodeGroup {
            k: 0,
            n: 0,
            n_class: vec![0; classes],
            ctx_sum: 0,
            block,
            phase_count: vec![vec![0; block as usize]; classes],
            fresh: Vec::new(),
            last_decode_end: 0,
            finishes: BinaryHeap::new(),
            next_join_id: 1,
        }
    }

    /// KV tokens a member holds now.
    pub fn tokens(&self, r: &Req) -> u64 {
        r.input as u64 + r.dec_gen0 as u64 - 1 + (self.k - r.dec_k0)
    }

    /// Tokens a member has generated.
    pub fn generated(&self, r: &Req) -> u32 {
        r.dec_gen0 + (self.k - r.dec_k0) as u32
    }

    fn block_phase(&self, r: &Req) -> usize {
        let b = self.block;
        // crosses at step k when (tokens_before_step) % b == 0, tokens_before(k) = base + k
        let base = (r.input as u64 + r.dec_gen0 as u64 - 1) % b;
        ((base + b - r.dec_k0 % b) % b) as usize
    }

    /// New KV blocks a class's members need for the next decode step.
    pub fn growth_of(&self, class: usize) -> u64 {
        let b = self.block;
        self.phase_count[class][((b - self.k % b) % b) as usize]
    }

    /// Does this member cross into a new block in the next decode step?
    pub fn grows_next(&self, r: &Req) -> bool {
        let b = self.block;
        self.block_phase(r) == ((b - self.k % b) % b) as usize
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
        let class = r.class as usize;
        self.n += 1;
        self.n_class[class] += 1;
        self.ctx_sum += r.prefilled as u64;
        let ph = self.block_phase(r);
        self.phase_count[class][ph] += 1;
        self.fresh.push((h, now));
    }

    /// A member leaves (finished or preempted): its generated count is fixed and its finish
    /// entry goes stale.
    pub fn leave(&mut self, h: Handle, r: &mut Req) {
        let class = r.class as usize;
        self.n -= 1;
        self.n_class[class] -= 1;
        self.ctx_sum -= self.tokens(r);
        let ph = self.block_phase(r);
        self.phase_count[class][ph] -= 1;
        if !self.fresh.is_empty() {
            self.fresh.retain(|(f, _)| *f != h);
        }
        r.generated = self.generated(r);
        r.join_id = u64::MAX;
    }

    /// A decode step ended: every member has one more token.
    pub fn step_done(&mut self) {
        self.k += 1;
        self.ctx_sum += self.n;
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
        let h = reqs.alloc(class, 0, input, output);
        let r = &mut reqs[h];
        (r.prefilled, r.generated, r.phase) = (input, 1, Phase::Prefill);
        h
    }

    #[test]
    fn lockstep_tokens_growth_and_finishes() {
        let block = 4;
        let mut reqs = Requests::default();
        let mut g = DecodeGroup::new(2, block);
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
                    assert_eq!(g.grows_next(&reqs[h]), g.tokens(&reqs[h]).is_multiple_of(block));
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
    fn a_member_that_leaves_early_keeps_its_count() {
        let mut reqs = Requests::default();
        let mut g = DecodeGroup::new(1, 16);
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
