//! OOM restarts: over-commit let the running sequences' KV grow past the memory the GPU has, so
//! the server process dies and restarts. Everything in it is lost; with `retry_on_oom` clients
//! resend (a bounded number of times), otherwise every running and queued request fails.

use super::Replica;
use crate::metrics::Outcome;
use crate::sim::events::Wakeup;
use crate::sim::requests::{Handle, Phase};
use crate::sim::view::StepInfo;

/// Resends of one request after OOM restarts before its client gives up.
pub const MAX_OOM_RETRIES: u32 = 3;

impl Replica {
    pub(super) fn oom_restart(&mut self) {
        self.rec.borrow_mut().oom_restart();
        // everything in the server process is lost: running and queued requests
        let mut victims: Vec<Handle> =
            self.running.iter().flat_map(|m| m.values()).map(|&slot| self.reqs.handle(slot)).collect();
        victims.sort_by_key(|&h| self.reqs[h].arrival);
        self.running.iter_mut().for_each(|m| m.clear());
        self.group.clear();
        self.pool.clear();
        if let Some(cache) = self.cache.as_mut() {
            cache.clear();
        }
        self.prefilling.clear();
        self.loose_tokens = 0;
        let until = self.now + (self.sched.restart_s * 1e6).round() as u64;
        self.restarting_until = Some(until);
        self.wake_at(until, Wakeup::RestartDone);
        let (give_up, again): (Vec<Handle>, Vec<Handle>) = if self.sched.retry_on_oom {
            // Requeue in arrival order ahead of those already waiting; they start over. A client
            // gives up after MAX_OOM_RETRIES resends, which also ends restart cascades.
            victims.into_iter().partition(|&h| self.reqs[h].retries >= MAX_OOM_RETRIES)
        } else {
            (victims, Vec::new())
        };
        for h in give_up {
            let r = &mut self.reqs[h];
            r.units = 0;
            r.cached_blocks = 0;
            r.phase = Phase::Queued;
            self.end_request(h, Outcome::Failed);
        }
        for &h in again.iter().rev() {
            let r = &mut self.reqs[h];
            r.phase = Phase::Queued;
            r.units = 0;
            r.cached_blocks = 0;
            r.prefilled = 0;
            r.generated = 0;
            r.prefill_target = r.input;
            r.first_token = None;
            r.join_id = u64::MAX;
            r.retries += 1;
            self.queues.push_front(h, r.class as usize);
        }
        if !self.sched.retry_on_oom {
            // the queue is lost too
            for h in self.queues.drain(&self.reqs) {
                self.end_request(h, Outcome::Failed);
            }
        }
        self.last_step = StepInfo { start_s: self.now as f64 / 1e6, ..Default::default() };
    }
}
