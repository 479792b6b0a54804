//! Every lesson's runs bear out the answer its explanation teaches.

use sim_core::lessons::{knee, LESSONS};
use sim_core::sweep::Sweep;

/// The answer each lesson teaches (the choice its explanation is written for).
const TAUGHT: &[(&str, usize)] = &[
    ("mean-hides-tail", 2),
    ("ttft-vs-tpot", 0),
    ("goodput-vs-throughput", 1),
    ("kv-arithmetic", 1),
    ("headroom", 1),
    ("latency-vs-throughput-first", 2),
    ("mixed-traffic", 0),
    ("context-too-large", 2),
    ("cost-per-good-token", 2),
    ("safe-zone", 0),
];

#[test]
fn each_lesson_shows_what_it_teaches() {
    assert_eq!(LESSONS.len(), TAUGHT.len());
    for l in LESSONS {
        let (sums, o) = l.run();
        eprintln!("{}: answer {} {:?}", l.id, o.answer, o.numbers);
        let want = TAUGHT.iter().find(|(id, _)| *id == l.id).map(|(_, a)| *a).unwrap();
        assert_eq!(o.answer, want, "{}: {:?}", l.id, o.numbers);
        assert!(o.answer < l.choices);
        assert!(o.numbers.values().all(|v| v.is_finite()), "{}: {:?}", l.id, o.numbers);
        assert_eq!(sums.len(), (l.runs)().len());
    }
}

#[test]
fn the_safe_zone_sweep_has_a_knee_inside_its_range() {
    let l = sim_core::lessons::find("safe-zone").unwrap();
    let (param, from, to, steps) = l.sweep.unwrap();
    let base = (l.runs)().remove(0).scenario;
    let pts = Sweep::new(&base, param, from, to, steps).unwrap().run();
    let (rate, _) = knee(&pts).unwrap();
    assert!(rate > from && rate < to, "knee at {rate}");
}
