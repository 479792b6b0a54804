//! Requests: the slots that hold live requests (reused through generation-checked handles) and
//! the wait queues in front of the scheduler.

use super::time::Micros;
use serde::Serialize;
use std::collections::VecDeque;
use std::ops::{Index, IndexMut};

/// Where a live request is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Queued,
    Prefill,
    Decode,
}

/// A request's slot and the generation of the slot it was given; stale once the request ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Handle {
    pub slot: u32,
    pub gen: u32,
}

#[derive(Clone, Debug)]
pub(crate) struct Req {
    pub id: u64,
    pub gen: u32,
    pub live: bool,
    pub class: u16,
    pub arrival: Micros,
    /// When it reached this replica (the client's send plus the way there).
    pub reached: Micros,
    pub input: u32,
    pub output: u32,
    pub phase: Phase,
    /// Tokens to compute before decoding (the prompt, or prompt + generated after preemption).
    pub prefill_target: u32,
    pub prefilled: u32,
    /// Tokens emitted so far (outside the decode group; inside it, see `DecodeGroup::generated`).
    pub generated: u32,
    pub first_scheduled: Option<Micros>,
    pub first_token: Option<Micros>,
    /// KV units held (blocks for paged, tokens for contiguous).
    pub units: u64,
    pub preemptions: u32,
    /// Times this request was resent after an OOM restart.
    pub retries: u32,
    pub admit_order: u64,
    // decode group membership
    pub dec_k0: u64,
    pub dec_gen0: u32,
    pub join_id: u64,
    /// Static batching: done generating, waiting for the batch to end.
    pub static_done: bool,
    /// Prefix caching: the chain of shared blocks its prompt starts with, and how many of them
    /// it references while running (their KV is held once, by the chain).
    pub prefix_chain: Option<u32>,
    pub cached_blocks: u32,
    /// Prompt tokens found in the cache when it was last admitted.
    pub hit_tokens: u32,
    /// Disaggregation, decode side: prompt tokens whose KV came over the link (computed
    /// elsewhere; allocated, not computed, when it is admitted).
    pub kv_ready: u32,
    /// Disaggregation, prefill side: prefilled, its KV on the way to a decode replica.
    pub sending: bool,
    /// A conversation's turn: the driver's session slot.
    pub session: Option<u32>,
    /// Its client sees each token this long after the engine emitted it (the front end's way
    /// back, `crate::frontend`).
    pub to_client: u32,
}

/// A request's way from its client: when the client sent it (its TTFT's and E2E latency's
/// start), and how long each token takes back to the client.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Way {
    pub sent: Micros,
    pub to_client: u32,
}

/// Slots for live requests; an ended request's slot is reused with the next generation.
#[derive(Default)]
pub(crate) struct Requests {
    slots: Vec<Req>,
    free: Vec<u32>,
}

impl Requests {
    /// A new request, queued, with the id its driver gave it.
    pub fn alloc(&mut self, id: u64, class: usize, arrival: Micros, input: u32, output: u32) -> Handle {
        let req = Req {
            id,
            gen: 0,
            live: true,
            class: class as u16,
            arrival,
            reached: arrival,
            input,
            output,
            phase: Phase::Queued,
            prefill_target: input,
            prefilled: 0,
            generated: 0,
            first_scheduled: None,
            first_token: None,
            units: 0,
            preemptions: 0,
            retries: 0,
            admit_order: 0,
            dec_k0: 0,
            dec_gen0: 0,
            join_id: 0,
            static_done: false,
            prefix_chain: None,
            cached_blocks: 0,
            hit_tokens: 0,
            kv_ready: 0,
            sending: false,
            session: None,
            to_client: 0,
        };
        if let Some(slot) = self.free.pop() {
            let gen = self.slots[slot as usize].gen.wrapping_add(1);
            self.slots[slot as usize] = Req { gen, ..req };
            Handle { slot, gen }
        } else {
            self.slots.push(req);
            Handle { slot: self.slots.len() as u32 - 1, gen: 0 }
        }
    }

    /// The request, if the handle is still its own.
    pub fn get(&self, h: Handle) -> Option<&Req> {
        self.slots.get(h.slot as usize).filter(|r| r.live && r.gen == h.gen)
    }

    /// The current handle of a slot.
    pub fn handle(&self, slot: u32) -> Handle {
        Handle { slot, gen: self.slots[slot as usize].gen }
    }

    pub fn at(&self, slot: u32) -> &Req {
        &self.slots[slot as usize]
    }

    /// The request ended: its slot is free for the next one.
    pub fn free(&mut self, h: Handle) {
        let r = &mut self.slots[h.slot as usize];
        debug_assert!(r.live && r.gen == h.gen);
        r.live = false;
        self.free.push(h.slot);
    }

    /// Live requests, in slot order.
    pub fn live(&self) -> impl Iterator<Item = &Req> + '_ {
        self.slots.iter().filter(|r| r.live)
    }
}

impl Index<Handle> for Requests {
    type Output = Req;
    fn index(&self, h: Handle) -> &Req {
        &self.slots[h.slot as usize]
    }
}

impl IndexMut<Handle> for Requests {
    fn index_mut(&mut self, h: Handle) -> &mut Req {
        &mut self.slots[h.slot as usize]
    }
}

/// One shared FCFS queue, or one lane per class (isolation). A request that timed out stays in
/// its lane as a tombstone (no longer live or no longer queued) and is dropped when it reaches
/// the front.
pub(crate) struct WaitQueues {
    lanes: Vec<VecDeque<Handle>>,
    queued: Vec<u64>,
    total: u64,
}

impl WaitQueues {
    pub fn new(classes: usize, isolation: bool) -> WaitQueues {
        WaitQueues {
            lanes: vec![VecDeque::new(); if isolation { classes } else { 1 }],
            queued: vec![0; classes],
            total: 0,
        }
    }

    /// The lane of a class.
    pub fn lane(&self, class: usize) -> usize {
        if self.lanes.len() > 1 {
            class
        } else {
            0
        }
    }
    pub fn lanes(&self) -> usize {
        self.lanes.len()
    }
    /// Requests waiting, per class.
    pub fn queued(&self) -> &[u64] {
        &self.queued
    }
    /// Requests waiting in the lane a class uses (its own with isolation, else the shared one).
    pub fn waiting_for(&self, class: usize) -> u64 {
        if self.lanes.len() > 1 {
            self.queued[class]
        } else {
            self.total
        }
    }
    pub fn total(&self) -> u64 {
        self.total
    }

    pub fn push_back(&mut self, h: Handle, class: usize) {
        let q = self.lane(class);
        self.lanes[q].push_back(h);
        self.count(class, true);
    }

    /// Back to the front of its lane (preempted, or resent after a restart).
    pub fn push_front(&mut self, h: Handle, class: usize) {
        let q = self.lane(class);
        self.lanes[q].push_front(h);
        self.count(class, true);
    }

    /// A queued request left without being popped (it timed out); it stays as a tombstone.
    pub fn forget(&mut self, class: usize) {
        self.count(class, false);
    }

    fn count(&mut self, class: usize, add: bool) {
        if add {
            self.queued[class] += 1;
            self.total += 1;
        } else {
            self.queued[class] -= 1;
            self.total -= 1;
        }
    }

    /// The entry at the front of a lane, if any (for tests).
    #[cfg(test)]
    pub fn front(&self, lane: usize) -> Option<Handle> {
        self.lanes[lane].front().copied()
    }

    /// A lane's entries, front first, tombstones included.
    pub fn entries(&self, lane: usize) -> &VecDeque<Handle> {
        &self.lanes[lane]
    }

    /// Takes the request at the front of its lane (which must be `h`, after tombstones).
    pub fn pop(&mut self, h: Handle, class: usize, reqs: &Requests) {
        let q = self.lane(class);
        let lane = &mut self.lanes[q];
        while lane.front().is_some_and(|&f| is_tombstone(reqs, f)) {
            lane.pop_front();
        }
        let front = lane.pop_front();
        debug_assert_eq!(front, Some(h));
        self.count(class, false);
    }

    /// Empties every lane, front to back, returning the live queued requests.
    pub fn drain(&mut self, reqs: &Requests) -> Vec<Handle> {
        let mut out = Vec::new();
        for q in 0..self.lanes.len() {
            while let Some(h) = self.lanes[q].pop_front() {
                if let Some(r) = reqs.get(h).filter(|r| r.phase == Phase::Queued) {
                    self.count(r.class as usize, false);
                    out.push(h);
                }
            }
        }
        out
    }
}

/// A lane entry for a request that is no longer waiting (it timed out, or ended).
pub(crate) fn is_tombstone(reqs: &Requests, h: Handle) -> bool {
    reqs.get(h).is_none_or(|r| r.phase != Phase::Queued)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_reused_with_a_new_generation() {
        let mut reqs = Requests::default();
        let a = reqs.alloc(0, 0, 10, 100, 5);
        let b = reqs.alloc(1, 1, 11, 200, 6);
        assert_eq!((reqs[a].id, reqs[b].id, reqs[b].class), (0, 1, 1));
        reqs.free(a);
        assert!(reqs.get(a).is_none(), "a stale handle finds nothing");
        let c = reqs.alloc(2, 0, 12, 300, 7);
        assert_eq!(c.slot, a.slot);
        assert_ne!(c.gen, a.gen);
        assert!(reqs.get(a).is_none());
        assert_eq!(reqs.get(c).map(|r| (r.id, r.input, r.phase)), Some((2, 300, Phase::Queued)));
        assert_eq!(reqs.handle(c.slot), c);
        assert_eq!(reqs.live().map(|r| r.id).collect::<Vec<_>>(), vec![2, 1]);
    }

    #[test]
    fn lanes_skip_tombstones() {
        let mut reqs = Requests::default();
        let h: Vec<Handle> = (0..4).map(|i| reqs.alloc(i as u64, i % 2, i as u64, 10, 10)).collect();
        let mut q = WaitQueues::new(2, false);
        assert_eq!((q.lanes(), q.lane(1)), (1, 0));
        for (i, &x) in h.iter().enumerate() {
            q.push_back(x, i % 2);
        }
        assert_eq!((q.total(), q.waiting_for(1), q.queued()), (4, 4, &[2, 2][..]));
        // h[0] times out: a tombstone the next pop steps over
        q.forget(0);
        reqs.free(h[0]);
        q.pop(h[1], 1, &reqs);
        assert_eq!(q.front(0), Some(h[2]));
        assert_eq!(q.queued(), &[1, 1]);
        // a preempted request goes back to the front
        q.push_front(h[1], 1);
        assert_eq!(q.front(0), Some(h[1]));
        assert_eq!(q.drain(&reqs), vec![h[1], h[2], h[3]]);
        assert_eq!(q.total(), 0);
    }

    #[test]
    fn isolation_gives_each_class_a_lane() {
        let mut reqs = Requests::default();
        let (a, b) = (reqs.alloc(0, 0, 0, 1, 1), reqs.alloc(1, 1, 0, 1, 1));
        let mut q = WaitQueues::new(2, true);
        q.push_back(a, 0);
        q.push_back(b, 1);
        assert_eq!((q.lanes(), q.lane(1), q.waiting_for(0), q.total()), (2, 1, 1, 2));
        assert_eq!((q.front(0), q.front(1)), (Some(a), Some(b)));
        assert_eq!(q.entries(1).len(), 1);
    }
}
