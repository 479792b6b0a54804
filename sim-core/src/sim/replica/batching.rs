//! A replica's side of static batching (`static_batch.rs` holds the batch): a batch formed from
//! the queue once it is full or its window closes, its steps run, and everyone freed at once.

use super::Replica;
use crate::metrics::Outcome;
use crate::sim::events::Wakeup;
use crate::sim::requests::{Handle, Phase};
use crate::sim::static_batch::StaticBatch;

impl Replica {
    pub(super) fn start_static_step(&mut self) {
        if self.static_batch.is_some() {
            self.static_next_step();
            return;
        }
        let Some(first) = self.peek_waiting(&[]) else { return };
        let oldest = self.reqs[first].arrival;
        let window_end = oldest + (self.sched.batch_timeout_ms * 1000.0).round() as u64;
        let max_seqs = self.sched.max_num_seqs as u64;
        if self.queues.total() < max_seqs && self.now < window_end {
            if self.window_at != Some(window_end) {
                self.window_at = Some(window_end);
                self.wake_at(window_end, Wakeup::BatchWindow);
            }
            return;
        }
        // Form a batch: up to B requests in queue order whose padded KV fits.
        let mut members: Vec<Handle> = Vec::new();
        let (mut p_max, mut o_max) = (0u32, 0u32);
        while (members.len() as u64) < max_seqs {
            let Some(h) = self.peek_waiting(&[]) else { break };
            let r = &self.reqs[h];
            let (p, o) = (p_max.max(r.prefill_target), o_max.max(r.output));
            if self.pool.static_units((p + o) as u64) * (members.len() as u64 + 1) > self.pool.capacity() {
                break;
            }
            (p_max, o_max) = (p, o);
            self.admit(h);
            members.push(h);
        }
        if members.is_empty() {
            return;
        }
        let per = self.pool.static_units((p_max + o_max) as u64);
        for &h in &members {
            let r = &mut self.reqs[h];
            if self.pool.paged() {
                // the admission already took the sequence's fixed state
                self.pool.take(r.class as usize, per - r.units);
                r.units = per;
            }
            r.prefilled = 0;
        }
        let outputs: Vec<u32> = members.iter().map(|&h| self.reqs[h].output).collect();
        self.static_batch = Some(StaticBatch::new(members, outputs, p_max, o_max));
        self.static_next_step();
    }

    fn static_next_step(&mut self) {
        let Some(b) = self.static_batch.as_ref() else { return };
        let (work, held) = b.next_work(self.pool.growth().window);
        let decode = b.prefill_done();
        self.loose_tokens = held;
        self.begin_step(work, Vec::new(), decode, 0);
    }

    pub(super) fn static_step_end(&mut self) {
        let now = self.now;
        let mut b = self.static_batch.take().expect("static step without a batch");
        if !b.prefill_done() {
            b.prefilled();
            for &h in &b.members {
                let r = &mut self.reqs[h];
                r.phase = Phase::Decode;
                r.prefilled = r.prefill_target;
                r.generated = 1;
                r.first_token.get_or_insert(now);
                r.static_done = r.output <= 1;
            }
            self.group.last_decode_end = now;
        } else {
            // token t for every member whose output is that long
            let (t, still) = b.decoded();
            let gap = now - self.group.last_decode_end;
            self.group.last_decode_end = now;
            for &h in &b.members {
                let r = &mut self.reqs[h];
                if r.output >= t {
                    r.generated = t;
                    self.rec.borrow_mut().itl_class(r.class as usize, gap);
                }
                if r.output <= t {
                    r.static_done = true;
                }
            }
            self.rec.borrow_mut().itl_total(gap, still);
        }
        if b.is_done() {
            // batch ends: everyone completes now, all memory freed at once
            for &h in &b.members {
                self.release_running(h);
                self.end_request(h, Outcome::Completed);
            }
            self.window_at = None;
            self.loose_tokens = 0;
            return;
        }
        self.static_batch = Some(b);
    }
}
