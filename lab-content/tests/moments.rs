//! The moments a lesson's callouts pin to the stage are what its runs did: a count's first
//! increase happens at that event and not before (read from summaries of a fresh run stopped
//! just before and at the moment), a time-series moment is the first sample past its threshold,
//! and nothing that happened is left out.

use lab_content::lessons::{MomentKind, KV_FULL, LESSONS, QUEUE_FILLS};
use sim_core::metrics::Counts;
use sim_core::Simulation;

const SEEDS: [u64; 3] = [1, 7, 13];

fn count(kind: MomentKind, c: &Counts) -> Option<u64> {
    match kind {
        MomentKind::PreemptionsStart => Some(c.preempted),
        MomentKind::FirstRejected => Some(c.rejected),
        MomentKind::FirstTimedOut => Some(c.timed_out),
        MomentKind::FirstOomRestart => Some(c.oom_restarts),
        MomentKind::QueueFills | MomentKind::KvFull => None,
    }
}

#[test]
fn every_lesson_watches_one_or_two_of_its_runs() {
    for l in LESSONS {
        let n = l.scenarios(7).len();
        assert!((1..=2).contains(&l.watch.len()), "{}", l.id);
        assert!(l.watch.iter().all(|&i| i < n), "{}: watch {:?} of {n} runs", l.id, l.watch);
        assert!(l.watch.windows(2).all(|w| w[0] < w[1]), "{}", l.id);
    }
}

#[test]
fn every_moment_is_what_the_run_did_then() {
    let mut seen_kinds = std::collections::BTreeSet::new();
    for l in LESSONS {
        for seed in SEEDS {
            let runs = l.scenarios(seed);
            let moments = l.moments(seed);
            assert!(moments.windows(2).all(|w| w[0].at_us <= w[1].at_us), "{} seed {seed}: in time order", l.id);
            for &i in l.watch {
                let r = &runs[i];
                let mine: Vec<_> = moments.iter().filter(|m| m.run == i).collect();
                assert!(mine.iter().all(|m| m.variant == r.variant), "{}", l.id);
                let mut full = Simulation::new(&r.scenario).unwrap();
                let sum = full.run_to_end();
                for kind in MomentKind::ALL {
                    let of_kind: Vec<_> = mine.iter().filter(|m| m.kind == kind).collect();
                    assert!(of_kind.len() <= 1, "{} seed {seed} run {i}: {kind:?} twice", l.id);
                    let what = format!("{} seed {seed} run {} {kind:?}", l.id, r.variant);
                    if let Some(total) = count(kind, &sum.all.requests) {
                        assert_eq!(of_kind.len(), usize::from(total > 0), "{what}: happened {total} times");
                        let Some(m) = of_kind.first() else { continue };
                        seen_kinds.insert(kind);
                        let summary_at = |t: u64| {
                            let mut sim = Simulation::new(&r.scenario).unwrap();
                            sim.advance_to(t);
                            count(kind, &sim.summary().all.requests).unwrap()
                        };
                        assert_eq!(summary_at(m.at_us - 1), 0, "{what}: already before {} µs", m.at_us);
                        assert_eq!(summary_at(m.at_us) as f64, m.value, "{what}: at {} µs", m.at_us);
                        assert!(m.value >= 1.0, "{what}");
                    } else {
                        let series = full.series();
                        let past = |s: &sim_core::Sample| match kind {
                            MomentKind::QueueFills => s.queue_len > QUEUE_FILLS,
                            _ => s.kv_fill >= KV_FULL,
                        };
                        let first = series.iter().find(|s| past(s));
                        assert_eq!(of_kind.len(), usize::from(first.is_some()), "{what}");
                        let (Some(m), Some(s)) = (of_kind.first(), first) else { continue };
                        seen_kinds.insert(kind);
                        assert_eq!(m.at_us, (s.t_s * 1e6).round() as u64, "{what}");
                        let v = if kind == MomentKind::QueueFills { s.queue_len } else { s.kv_fill };
                        assert_eq!(m.value, v, "{what}");
                        let before = series.iter().filter(|x| x.t_s < s.t_s);
                        assert!(before.clone().all(|x| !past(x)), "{what}: an earlier sample was past it");
                    }
                }
            }
        }
    }
    // the lessons' runs show most of what a callout can say
    for kind in [MomentKind::QueueFills, MomentKind::FirstTimedOut, MomentKind::PreemptionsStart] {
        assert!(seen_kinds.contains(&kind), "no lesson shows {kind:?}: {seen_kinds:?}");
    }
    eprintln!("kinds the lessons show: {seen_kinds:?}");
}
