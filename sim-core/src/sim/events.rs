//! Events: one priority queue ordered by time, then by the order events were made, so
//! a run is a pure function of its scenario.

use super::requests::Handle;
use super::time::Micros;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A timer a replica sets for itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Wakeup {
    /// The iteration in flight ends.
    StepEnd,
    /// A queued request's `queue_timeout_ms` runs out.
    Timeout(Handle),
    /// Static batching: the fill window of the oldest waiting request closes.
    BatchWindow,
    /// The server is back after an OOM restart.
    RestartDone,
}

/// What a replica asks of its driver, in the order it asked (the order keeps ties
/// deterministic).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Effect {
    /// Call the replica back at this time.
    Wake(Micros, Wakeup),
    /// A request of this class ended (a closed-loop user thinks, then sends the next one; a
    /// conversation's turn: the next turn, or the conversation is over).
    /// Its client hears of it `to_client` µs later.
    Ended { class: u16, session: Option<u32>, completed: bool, to_client: u32 },
    /// Disaggregation: this request's prompt is prefilled; send its KV to a decode replica.
    Prefilled(Handle),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum EventKind {
    /// The next request of a class arrives.
    Arrival { class: u16 },
    /// A timer of replica `at`.
    Replica { at: u16, w: Wakeup },
    /// Disaggregation: a KV transfer (the driver's slot `slot`) arrives.
    Transfer { slot: u32 },
    /// The next turn of the conversation in the driver's session slot `slot` is sent.
    Turn { slot: u32 },
    /// A request sent by its client (the driver's front-end slot `slot`) reaches the engines.
    Reach { slot: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Event {
    time: Micros,
    seq: u64,
    kind: EventKind,
}

/// Pending events, earliest first; simultaneous events in creation order.
#[derive(Default)]
pub(crate) struct EventQueue {
    heap: BinaryHeap<Reverse<Event>>,
    made: u64,
}

impl EventQueue {
    pub fn push(&mut self, time: Micros, kind: EventKind) {
        self.made += 1;
        self.heap.push(Reverse(Event { time, seq: self.made, kind }));
    }
    pub fn peek(&self) -> Option<(Micros, EventKind)> {
        self.heap.peek().map(|Reverse(e)| (e.time, e.kind))
    }
    pub fn pop(&mut self) -> Option<(Micros, EventKind)> {
        self.heap.pop().map(|Reverse(e)| (e.time, e.kind))
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_then_creation_order() {
        let mut q = EventQueue::default();
        q.push(5, EventKind::Replica { at: 0, w: Wakeup::StepEnd });
        q.push(3, EventKind::Arrival { class: 1 });
        q.push(5, EventKind::Arrival { class: 0 });
        q.push(3, EventKind::Replica { at: 1, w: Wakeup::RestartDone });
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (3, EventKind::Arrival { class: 1 }),
                (3, EventKind::Replica { at: 1, w: Wakeup::RestartDone }),
                (5, EventKind::Replica { at: 0, w: Wakeup::StepEnd }),
                (5, EventKind::Arrival { class: 0 }),
            ]
        );
        assert!(q.is_empty());
    }
}
