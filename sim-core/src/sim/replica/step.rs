//! A replica's iterations: one starts when the GPU is free (continuous batching plans it,
//! `schedule.rs`; static batching, `batching.rs`), and when it ends its decode members emit
//! their tokens, its prompt chunks advance, and the requests that are done leave.

use super::{InFlightStep, Replica};
use crate::metrics::Outcome;
use crate::perf::BatchWork;
use crate::profile::sglang::{NEW_TOKEN_RATIO_DECAY_STEPS, NEW_TOKEN_RATIO_INIT, NEW_TOKEN_RATIO_MIN};
use crate::scenario::Batching;
use crate::sim::events::{Effect, Wakeup};
use crate::sim::requests::{Handle, Phase};
use crate::sim::state::State;
use crate::sim::view::{Pool, StepInfo};

impl Replica {
    pub(super) fn try_start_step(&mut self) {
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
        let dur = match self.jitter.as_mut() {
            Some(j) => j.vary(time.micros()),
            None => time.micros(),
        };
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
        self.step_began = self.now;
        self.step = Some(InFlightStep { prefills, decode, growth_units: growth, ends_at: self.now + dur });
        self.wake_at(self.now + dur, Wakeup::StepEnd);
    }

    pub(super) fn on_step_end(&mut self) {
        let Some(step) = self.step.take() else { return };
        self.step_ended = self.now;
        if self.static_batch.is_some() {
            self.static_step_end();
            self.try_start_step();
            return;
        }
        if step.decode {
            self.decode_step_end();
            // SGLang's new-token ratio falls a step's share toward its floor after each decode
            let fall = (NEW_TOKEN_RATIO_INIT - NEW_TOKEN_RATIO_MIN) / NEW_TOKEN_RATIO_DECAY_STEPS;
            self.new_token_ratio = (self.new_token_ratio - fall).max(NEW_TOKEN_RATIO_MIN);
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
        self.group.step_done();
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
}
