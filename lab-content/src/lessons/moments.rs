//! The moments to notice while a lesson's run plays: the queue fills, the KV pool is full,
//! preemptions start, the first request is turned away, the first OOM restart. Each is read from
//! the run itself (its request counts event by event, its time series), so a callout the page pins
//! to the stage at `at_us` is what that run did then. The words are the page's.

use super::{Lesson, LessonRun};
use serde::Serialize;
use sim_core::metrics::{Counts, Sample};
use sim_core::sim::Simulation;
use sim_core::ScenarioError;

/// Requests waiting (averaged over one sample of the time series) above which the queue "fills".
pub const QUEUE_FILLS: f64 = 10.0;
/// Share of the KV pool allocated (averaged over one sample) at which the pool is "full".
pub const KV_FULL: f64 = 0.95;

/// What happened at a moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum MomentKind {
    /// The first sample of the time series with more than [`QUEUE_FILLS`] requests waiting;
    /// `value` is that sample's queue length.
    QueueFills,
    /// The first sample with at least [`KV_FULL`] of the KV pool allocated; `value` is the share.
    KvFull,
    /// The first preemption; `value` is the preemptions counted at that event.
    PreemptionsStart,
    /// The first request rejected (queue full, server restarting, or too long); `value` counts.
    FirstRejected,
    /// The first request dropped after waiting its queue timeout; `value` counts.
    FirstTimedOut,
    /// The first OOM restart of the server; `value` counts.
    FirstOomRestart,
}

impl MomentKind {
    pub const ALL: [MomentKind; 6] = [
        MomentKind::QueueFills,
        MomentKind::KvFull,
        MomentKind::PreemptionsStart,
        MomentKind::FirstRejected,
        MomentKind::FirstTimedOut,
        MomentKind::FirstOomRestart,
    ];

    /// Stable name (the page keys its words by it).
    pub fn name(self) -> &'static str {
        match self {
            MomentKind::QueueFills => "queue_fills",
            MomentKind::KvFull => "kv_full",
            MomentKind::PreemptionsStart => "preemptions_start",
            MomentKind::FirstRejected => "first_rejected",
            MomentKind::FirstTimedOut => "first_timed_out",
            MomentKind::FirstOomRestart => "first_oom_restart",
        }
    }

    /// The count this kind watches for its first increase, if it is a count.
    fn count(self, c: &Counts) -> Option<u64> {
        match self {
            MomentKind::PreemptionsStart => Some(c.preempted),
            MomentKind::FirstRejected => Some(c.rejected),
            MomentKind::FirstTimedOut => Some(c.timed_out),
            MomentKind::FirstOomRestart => Some(c.oom_restarts),
            MomentKind::QueueFills | MomentKind::KvFull => None,
        }
    }

    /// The first sample this kind is about, if it is read from the time series.
    fn sample(self, series: &[Sample]) -> Option<(f64, f64)> {
        let first =
            |f: fn(&Sample) -> f64, above: fn(f64) -> bool| series.iter().find(|s| above(f(s))).map(|s| (s.t_s, f(s)));
        match self {
            MomentKind::QueueFills => first(|s| s.queue_len, |v| v > QUEUE_FILLS),
            MomentKind::KvFull => first(|s| s.kv_fill, |v| v >= KV_FULL),
            _ => None,
        }
    }
}

/// A moment of one of a lesson's runs: `run` is its position in [`Lesson::scenarios`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Moment {
    pub run: usize,
    pub variant: &'static str,
    /// Simulated time, µs from the run's start.
    pub at_us: u64,
    pub kind: MomentKind,
    pub value: f64,
}

/// The moments of one run, in time order (ties in [`MomentKind`] order).
pub fn moments_of(run: usize, r: &LessonRun) -> Result<Vec<Moment>, ScenarioError> {
    let mut sim = Simulation::new(&r.scenario)?;
    let mut out = Vec::new();
    let mut seen = Counts::default();
    let moment = |kind, at_us, value| Moment { run, variant: r.variant, at_us, kind, value };
    while sim.advance_events(1) > 0 {
        let now = sim.counts();
        for kind in MomentKind::ALL {
            if let (Some(before), Some(after)) = (kind.count(&seen), kind.count(&now)) {
                if before == 0 && after > 0 {
                    out.push(moment(kind, sim.now(), after as f64));
                }
            }
        }
        seen = now;
    }
    for kind in MomentKind::ALL {
        if let Some((t_s, v)) = kind.sample(&sim.series()) {
            out.push(moment(kind, (t_s * 1e6).round() as u64, v));
        }
    }
    out.sort_by_key(|m| (m.at_us, m.kind));
    Ok(out)
}

impl Lesson {
    /// The moments of the runs the stage plays ([`Lesson::watch`]) on `seed`, in time order.
    pub fn moments(&self, seed: u64) -> Vec<Moment> {
        let runs = self.scenarios(seed);
        let mut out: Vec<Moment> = self
            .watch
            .iter()
            .filter_map(|&i| runs.get(i).map(|r| moments_of(i, r).expect("lesson scenarios are valid")))
            .flatten()
            .collect();
        out.sort_by_key(|m| (m.at_us, m.kind));
        out
    }
}
