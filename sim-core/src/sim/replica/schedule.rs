//! The continuous-batching scheduler: plan an iteration (`plan.rs`, on the replica's
//! read-only `State`), then apply the plan —
//! preempt, allocate the decode step's new blocks, allocate and admit the prefill chunks, and
//! start the step (or restart after an OOM, when over-commit has outgrown the GPU).

use super::Replica;
use crate::sim::plan::{BatchWait, IterationPlan, PlanContext};
use crate::sim::requests::{Handle, Phase};
use crate::sim::state::State;

impl Replica {
    pub(super) fn start_continuous_step(&mut self) {
        loop {
            let mut s = self.planning.take().unwrap_or_default();
            s.plan(&*self);
            if self.plan_observer.is_some() {
                let context = PlanContext::of(&*self);
                if let Some(observe) = self.plan_observer.as_mut() {
                    observe(&s.plan, &context);
                }
            }
            let again = self.apply(&s.plan);
            self.planning = Some(s);
            if !again {
                return;
            }
        }
    }

    /// Applies a plan; true when the scheduler should plan again.
    fn apply(&mut self, plan: &IterationPlan) -> bool {
        match plan.batch_wait {
            BatchWait::Held => self.batch_waited += 1,
            BatchWait::Released => self.batch_waited = 0,
            BatchWait::NotAsked => {}
        }
        for p in &plan.preempted {
            self.preempt(p.h);
        }
        if plan.is_idle() {
            return plan.retry;
        }
        if let Some(cache) = &self.cache {
            // cached blocks the admissions reference are held before anything is allocated, so
            // the allocations take back other blocks (the plan counted them so)
            let b = cache.block();
            for ch in plan.chunks.iter().filter(|c| c.admitted && c.done > 0) {
                if self.reqs[ch.h].kv_ready > 0 {
                    continue; // arrived KV, not cached blocks
                }
                self.reference_cached(ch.h, (ch.done as u64 / b) as u32);
            }
        }
        let mut growth = 0;
        if plan.decode_seqs > 0 {
            for (c, &g) in plan.growth.iter().enumerate() {
                self.pool.take(c, g);
                growth += g;
            }
        }
        debug_assert_eq!(growth, if plan.decode_seqs > 0 && self.pool.paged() { self.group.growth() } else { 0 });
        let mut prefills = std::mem::take(&mut self.spare_prefills);
        prefills.clear();
        for ch in &plan.chunks {
            if ch.admitted {
                self.admit(ch.h);
                self.prefilling.push(ch.h);
                let ready = std::mem::take(&mut self.reqs[ch.h].kv_ready);
                if ready > 0 {
                    // the KV that came over the link is there already
                    self.reqs[ch.h].prefilled = ready;
                    self.loose_tokens += ready as u64;
                } else if let Some(cache) = &mut self.cache {
                    let st = &mut cache.stats[ch.class as usize];
                    st.prompt_tokens += ch.target as u64;
                    st.cached_tokens += ch.done as u64;
                    // the cached prompt tokens are there already
                    self.reqs[ch.h].prefilled = ch.done;
                    self.reqs[ch.h].hit_tokens = ch.done;
                    self.loose_tokens += ch.done as u64;
                }
            }
            self.pool.take(ch.class as usize, ch.units);
            self.reqs[ch.h].units += ch.units;
            prefills.push((ch.h, ch.tokens));
        }
        if self.sched.overcommit && self.pool.over_physical() {
            // admission looked only at the KV in use; growth has run past the memory the GPU has
            self.oom_restart();
            return false;
        }
        self.settle_evictions();
        // KV of the chunks is written during the step; count it as held from now
        self.loose_tokens += plan.chunks.iter().map(|c| c.tokens as u64).sum::<u64>();
        self.begin_step(plan.work, prefills, plan.decode_seqs > 0, growth);
        false
    }

    /// Sends a running sequence back to the front of its lane, to be recomputed.
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
        self.queues.push_front(h, class);
        self.rec.borrow_mut().preempted(id, class, self.now);
    }
}
