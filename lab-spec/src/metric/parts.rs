//! The parts a metric is made of: the latency distributions and their statistics, the censored
//! views and theirs, the request counts.

use super::{Direction, Unit};
use crate::metrics::{Censored, ClassSummary, Dist};

/// The six latency distributions of a summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Latency {
    Ttft,
    Tpot,
    Itl,
    E2e,
    Queue,
    Prefill,
}

impl Latency {
    pub const ALL: [Latency; 6] =
        [Latency::Ttft, Latency::Tpot, Latency::Itl, Latency::E2e, Latency::Queue, Latency::Prefill];

    /// The summary field (`ttft_ms`).
    pub fn field(self) -> &'static str {
        match self {
            Latency::Ttft => "ttft_ms",
            Latency::Tpot => "tpot_ms",
            Latency::Itl => "itl_ms",
            Latency::E2e => "e2e_ms",
            Latency::Queue => "queue_ms",
            Latency::Prefill => "prefill_ms",
        }
    }

    /// Definition id (`ttft`).
    pub fn definition(self) -> &'static str {
        self.field().trim_end_matches("_ms")
    }

    pub fn of(self, c: &ClassSummary) -> &Dist {
        match self {
            Latency::Ttft => &c.ttft_ms,
            Latency::Tpot => &c.tpot_ms,
            Latency::Itl => &c.itl_ms,
            Latency::E2e => &c.e2e_ms,
            Latency::Queue => &c.queue_ms,
            Latency::Prefill => &c.prefill_ms,
        }
    }
}

/// The latencies with a censored view (`ttft_ms_censored`): every request that arrived counted,
/// the ones without an answer at a lower bound (their age, a timed-out one's timeout).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Censorable {
    Ttft,
    E2e,
}

impl Censorable {
    pub const ALL: [Censorable; 2] = [Censorable::Ttft, Censorable::E2e];

    /// The completed-only latency this view extends.
    pub fn latency(self) -> Latency {
        match self {
            Censorable::Ttft => Latency::Ttft,
            Censorable::E2e => Latency::E2e,
        }
    }

    /// The censored view of `latency`, if it has one.
    pub fn of_latency(latency: Latency) -> Option<Censorable> {
        Censorable::ALL.into_iter().find(|c| c.latency() == latency)
    }

    /// The summary field (`ttft_ms_censored`).
    pub fn field(self) -> &'static str {
        match self {
            Censorable::Ttft => "ttft_ms_censored",
            Censorable::E2e => "e2e_ms_censored",
        }
    }

    /// Definition id (`ttft_censored`).
    pub fn definition(self) -> &'static str {
        match self {
            Censorable::Ttft => "ttft_censored",
            Censorable::E2e => "e2e_censored",
        }
    }

    pub fn of(self, c: &ClassSummary) -> &Censored {
        match self {
            Censorable::Ttft => &c.ttft_ms_censored,
            Censorable::E2e => &c.e2e_ms_censored,
        }
    }
}

/// A statistic of a censored view: a lower bound of the statistic over every request, or the
/// counts it is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CensoredStat {
    /// A statistic of the distribution (`Stat::Count`: requests counted, every arrival).
    Stat(Stat),
    /// Requests counted at a lower bound (no answer, or not ended).
    Censored,
}

impl CensoredStat {
    pub fn all() -> impl Iterator<Item = CensoredStat> {
        Stat::ALL.into_iter().map(CensoredStat::Stat).chain([CensoredStat::Censored])
    }

    /// The field of [`Censored`] (`p99`, `censored`).
    pub fn field(self) -> &'static str {
        match self {
            CensoredStat::Stat(s) => s.field(),
            CensoredStat::Censored => "censored",
        }
    }

    pub fn of(self, c: &Censored) -> f64 {
        match self {
            CensoredStat::Stat(Stat::Count) => c.count as f64,
            CensoredStat::Stat(Stat::Mean) => c.mean,
            CensoredStat::Stat(Stat::P50) => c.p50,
            CensoredStat::Stat(Stat::P90) => c.p90,
            CensoredStat::Stat(Stat::P95) => c.p95,
            CensoredStat::Stat(Stat::P99) => c.p99,
            CensoredStat::Stat(Stat::Max) => c.max,
            CensoredStat::Censored => c.censored as f64,
        }
    }
}

/// A statistic of a latency distribution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stat {
    Count,
    Mean,
    P50,
    P90,
    P95,
    P99,
    Max,
}

impl Stat {
    pub const ALL: [Stat; 7] = [Stat::Count, Stat::Mean, Stat::P50, Stat::P90, Stat::P95, Stat::P99, Stat::Max];

    /// The field of [`Dist`] (`p99`); also its definition id.
    pub fn field(self) -> &'static str {
        match self {
            Stat::Count => "count",
            Stat::Mean => "mean",
            Stat::P50 => "p50",
            Stat::P90 => "p90",
            Stat::P95 => "p95",
            Stat::P99 => "p99",
            Stat::Max => "max",
        }
    }

    pub fn of(self, d: &Dist) -> f64 {
        match self {
            Stat::Count => d.count as f64,
            Stat::Mean => d.mean,
            Stat::P50 => d.p50,
            Stat::P90 => d.p90,
            Stat::P95 => d.p95,
            Stat::P99 => d.p99,
            Stat::Max => d.max,
        }
    }
}

/// A request count of [`crate::metrics::Counts`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Count {
    Arrived,
    Completed,
    Rejected,
    TimedOut,
    Failed,
    Preempted,
    OomRestarts,
    InFlight,
    /// Completed, rejected, timed out or failed (what the completed-only latencies are out of).
    Ended,
}

impl Count {
    pub const ALL: [Count; 9] = [
        Count::Arrived,
        Count::Completed,
        Count::Rejected,
        Count::TimedOut,
        Count::Failed,
        Count::Preempted,
        Count::OomRestarts,
        Count::InFlight,
        Count::Ended,
    ];

    /// The field of `Counts` (`timed_out`); also its definition id.
    pub fn field(self) -> &'static str {
        match self {
            Count::Arrived => "arrived",
            Count::Completed => "completed",
            Count::Rejected => "rejected",
            Count::TimedOut => "timed_out",
            Count::Failed => "failed",
            Count::Preempted => "preempted",
            Count::OomRestarts => "oom_restarts",
            Count::InFlight => "in_flight",
            Count::Ended => "ended",
        }
    }

    pub fn of(self, c: &crate::metrics::Counts) -> u64 {
        match self {
            Count::Arrived => c.arrived,
            Count::Completed => c.completed,
            Count::Rejected => c.rejected,
            Count::TimedOut => c.timed_out,
            Count::Failed => c.failed,
            Count::Preempted => c.preempted,
            Count::OomRestarts => c.oom_restarts,
            Count::InFlight => c.in_flight,
            Count::Ended => c.ended(),
        }
    }

    /// Which way is better for the learner: more completed, fewer rejected, timed out,
    /// failed, preempted or restarted; neither for what only counts the traffic.
    pub(super) fn better(self) -> Option<Direction> {
        match self {
            Count::Completed => Some(Direction::Max),
            Count::Arrived | Count::InFlight | Count::Ended => None,
            Count::Rejected | Count::TimedOut | Count::Failed | Count::Preempted | Count::OomRestarts => {
                Some(Direction::Min)
            }
        }
    }

    pub(super) fn unit(self) -> Unit {
        match self {
            Count::Preempted | Count::OomRestarts => Unit::Count,
            _ => Unit::Requests,
        }
    }
}
