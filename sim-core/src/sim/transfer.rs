//! Prefill/decode disaggregation in the driver: the links between the pools, the KV
//! transfers under way, and the decode replica each prefilled prompt is sent to.

use super::events::EventKind;
use super::requests::Handle;
use super::state::State;
use super::{Micros, Simulation};
use crate::cluster::{Load, Router};
use crate::disagg::Links;

/// Prefill/decode disaggregation's state in the driver: the links, the transfers under way,
/// and how the decode replica is picked.
pub(super) struct Disagg {
    pub(super) links: Links,
    /// Transfers under way, by slot (`EventKind::Transfer`); freed slots are reused.
    pub(super) transfers: Vec<Option<Transfer>>,
    pub(super) free: Vec<u32>,
    /// Per replica: transfers on their way to it.
    pub(super) incoming: Vec<u64>,
    /// Prompts prefilled during the current call, to send once its effects are drained.
    pub(super) ready: Vec<(u16, Handle)>,
    pub(super) router: Router,
}

#[derive(Clone, Copy)]
pub(super) struct Transfer {
    pub(super) from: u16,
    pub(super) to: u16,
    pub(super) h: Handle,
    /// When it was sent, its first byte left and it arrives, µs.
    pub(super) sent: Micros,
    pub(super) sent_on: crate::disagg::Sent,
}

impl Simulation {
    /// Disaggregation: sends the KV of each prompt just prefilled to a decode replica (the
    /// fewest requests queued, running and on their way; ties in turn), queued on the links.
    pub(super) fn send_prefilled(&mut self) {
        let Some(pd) = self.pd.as_mut() else { return };
        let first = self.arrival_pool;
        let bytes_per_token = self.replicas[0].plan().kv_bytes_per_token;
        for (from, h) in std::mem::take(&mut pd.ready) {
            for (i, o) in self.occupancy[first..].iter().enumerate() {
                let outstanding = o.queued + o.running + pd.incoming[first + i];
                self.loads[i] = Load { outstanding, ..Load::default() };
            }
            let to = first + pd.router.route(&self.loads[..self.replicas.len() - first]).replica;
            let input = self.replicas[from as usize].reqs()[h].input;
            let sent_on = pd.links.send(self.now, from as usize, to, input as f64 * bytes_per_token);
            let arrives = sent_on.arrives;
            pd.incoming[to] += 1;
            let t = Some(Transfer { from, to: to as u16, h, sent: self.now, sent_on });
            let slot = match pd.free.pop() {
                Some(slot) => {
                    pd.transfers[slot as usize] = t;
                    slot
                }
                None => {
                    pd.transfers.push(t);
                    pd.transfers.len() as u32 - 1
                }
            };
            self.events.push(arrives, EventKind::Transfer { slot });
        }
    }

    /// Disaggregation: a transfer's KV is at its decode replica: the prefill replica frees the
    /// prompt, the decode replica queues it. Returns the decode replica.
    pub(super) fn transfer_arrived(&mut self, now: Micros, slot: u32) -> usize {
        let pd = self.pd.as_mut().expect("transfers only with disaggregation");
        let t = pd.transfers[slot as usize].take().expect("a transfer under way");
        pd.free.push(slot);
        pd.incoming[t.to as usize] -= 1;
        let req = self.replicas[t.from as usize].release_sent(now, t.h);
        self.settle(t.from as usize);
        self.replicas[t.to as usize].admit_transferred(now, req.id, &req);
        t.to as usize
    }
}
