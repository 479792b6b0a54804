//! The continuous-batching scheduler: each iteration decodes every running sequence, continues
//! chunked prompts and admits new ones within the token budget, slots and KV, preempting the
//! newest sequences when the decode step's KV does not fit.

use super::replica::Replica;
use super::requests::{Handle, Phase};
use crate::perf::BatchWork;

impl Replica {
    pub(super) fn start_continuous_step(&mut self) {
        let s = self.sched.clone();
        let chunked = s.chunked_prefill;
        let paged = self.pool.paged();
        loop {
            let mut work = BatchWork::default();
            let mut prefills: Vec<(Handle, u32)> = Vec::new();
            let mut budget = s.max_num_batched_tokens as u64;
            // Without chunked prefill, waiting prompts go first in prefill-only iterations
            // (vLLM's default scheduler); decodes wait.
            let prefill_first = !chunked && self.can_admit_whole_prompt(budget);
            let mut decode = false;
            let mut growth = 0;
            if !prefill_first && self.group.n > 0 {
                if paged && !s.overcommit {
                    self.make_room_for_decode();
                }
                if self.group.n > 0 {
                    if paged {
                        for c in 0..self.running.len() {
                            let g = self.group.growth_of(c);
                            if g > 0 {
                                self.pool.take(c, g);
                                growth += g;
                            }
                        }
                    }
                    work.decode_seqs = self.group.n;
                    work.decode_ctx_tokens = self.group.ctx_sum + self.group.n;
                    work.logit_tokens += self.group.n;
                    budget = budget.saturating_sub(self.group.n);
                    decode = true;
                }
            }
            // Continue prompts already being prefilled (chunked), oldest first.
            if chunked || prefill_first {
                let mut i = 0;
                while i < self.prefilling.len() && budget > 0 {
                    let h = self.prefilling[i];
                    let (n, done, target) = {
                        let r = &self.reqs[h];
                        let n = ((r.prefill_target - r.prefilled) as u64).min(budget);
                        (n, r.prefilled as u64, r.prefill_target as u64)
                    };
                    let n = if paged { self.fit_chunk(h, n) } else { n };
                    if n > 0 {
                        work.add_prefill_chunk(done, n, done + n == target);
                        prefills.push((h, n as u32));
                        budget -= n;
                    }
                    i += 1;
                }
            }
            // Admit new prompts while slots, tokens and KV allow.
            if !decode || chunked {
                let mut blocked = vec![false; self.queues.lanes()];
                while budget > 0 {
                    let Some(h) = self.peek_waiting(&blocked) else { break };
                    let (class, target) = {
                        let r = &self.reqs[h];
                        (r.class as usize, r.prefill_target as u64)
                    };
                    let n = if chunked { target.min(budget) } else { target };
                    if n > budget {
                        break;
                    }
                    if !self.pool.can_admit(class, n) {
                        if self.queues.lanes() > 1 {
                            blocked[self.queues.lane(class)] = true;
                            if blocked.iter().all(|b| *b) {
                                break;
                            }
                            continue;
                        }
                        break;
                    }
                    self.admit(h);
                    let units = if paged { self.pool.units_for(n) } else { 0 };
                    if units > 0 {
                        self.pool.take(class, units);
                        self.reqs[h].units += units;
                    }
                    work.add_prefill_chunk(0, n, n == target);
                    prefills.push((h, n as u32));
                    self.prefilling.push(h);
                    budget -= n;
                }
            }
            if !work.is_empty() {
                if s.overcommit && self.pool.over_physical() {
                    // admission looked only at the KV in use; growth has run past the memory
                    // the GPU has
                    self.oom_restart();
                    return;
                }
                // KV of the chunks is written during the step; count it as held from now
                self.loose_tokens += prefills.iter().map(|&(_, n)| n as u64).sum::<u64>();
                self.begin_step(work, prefills, decode, growth);
                return;
            }
            // Nothing could run. If prompts are stuck half-prefilled with no KV to continue,
            // preempt the newest so the oldest can progress; otherwise stay idle.
            if self.prefilling.is_empty() || !self.preempt_newest() {
                return;
            }
        }
    }

    fn can_admit_whole_prompt(&mut self, budget: u64) -> bool {
        let Some(h) = self.peek_waiting(&[]) else { return false };
        let r = &self.reqs[h];
        let (class, target) = (r.class as usize, r.prefill_target as u64);
        target <= budget && self.pool.can_admit(class, target)
    }

    /// Shrinks a continuing prefill chunk to the KV that can be allocated for it, and
    /// allocates it (paged layout).
    fn fit_chunk(&mut self, h: Handle, n: u64) -> u64 {
        let r = &mut self.reqs[h];
        let (n, need) = self.pool.fit_chunk(r.prefilled as u64, n);
        if need > 0 {
            self.pool.take(r.class as usize, need);
            r.units += need;
        }
        n
    }

    /// Preempts the newest running sequences until the decode step's new blocks fit.
    fn make_room_for_decode(&mut self) {
        while self.group.n > 0 && self.group.growth() > self.pool.free() {
            if !self.preempt_newest() {
                break;
            }
        }
    }

    /// Preempts (by recompute) the most recently admitted running sequence of the lowest
    /// priority class (isolation) or overall. Never the only running sequence.
    fn preempt_newest(&mut self) -> bool {
        if self.pool.seqs() <= 1 {
            return false;
        }
        let mut victim: Option<(u32, u64, u32)> = None; // (priority, order, slot)
        for (c, m) in self.running.iter().enumerate() {
            if let Some((&order, &slot)) = m.iter().next_back() {
                let p = if self.sched.isolation { self.priority[c] } else { 0 };
                if victim.is_none_or(|v| (p, order) > (v.0, v.1)) {
                    victim = Some((p, order, slot));
                }
            }
        }
        let Some((_, _, slot)) = victim else { return false };
        self.preempt(self.reqs.handle(slot));
        true
    }

    fn preempt(&mut self, h: Handle) {
        let held = self.held_units(&self.reqs[h]);
        let r = &mut self.reqs[h];
        match r.phase {
            Phase::Decode => self.group.leave(h, r),
            Phase::Prefill => {
                self.loose_tokens -= r.prefilled as u64;
                self.prefilling.retain(|x| *x != h);
            }
            Phase::Queued => unreachable!("only running sequences are preempted"),
        }
        r.units = held;
        self.release_running(h);
        let r = &mut self.reqs[h];
        r.phase = Phase::Queued;
        r.prefilled = 0;
        r.prefill_target = r.input + r.generated;
        r.preemptions += 1;
        let (id, class) = (r.id, r.class as usize);
        // back to the front of its lane
        self.queues.push_front(h, class);
        self.rec.preempted(id, class, self.now);
    }
}
