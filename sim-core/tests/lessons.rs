//! Every lesson's runs bear out the answer its explanation teaches.

use sim_core::lessons::LESSONS;

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
    ("safe-zone", 1),
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
