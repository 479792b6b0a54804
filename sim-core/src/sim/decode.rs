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
