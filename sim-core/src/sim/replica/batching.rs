//! A replica's side of static batching (`static_batch.rs` holds the batch): the batch planned
//! from the queue once it is full or its window closes (`plan::StaticPlan`) is admitted, its
//! steps run, and everyone freed at once.

use super::Replica;
use crate::metrics::Outcome;
use crate::sim::events::Wakeup;
use crate::sim::plan::StaticPlan;
use crate::sim::requests::Phase;
use crate::sim::static_batch::StaticBatch;

impl Replica {
    pub(super) fn start_static_step(&mut self) {
        if self.static_batch.is_some() {
            self.static_next_step();
            return;
        }
        let (members, p_max, o_max) = match StaticPlan::of(&*self, self.now) {
            StaticPlan::Idle => return,
            StaticPlan::Wait { until } => {
                if self.window_at != Some(until) {
                    self.window_at = Some(until);
                    self.wake_at(until, Wakeup::BatchWindow);
                }
                return;
            }
            StaticPlan::Form { members, p_max, o_max } => (members, p_max, o_max),
        };
        for &h in &members {
            self.admit(h);
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
