//! Lesson `tpot-vs-itl` (right after `ttft-vs-tpot`), TPOT hides the stalls that ITL shows: chat
//! on 256-sequence, 8,192-token limits, where a step that also runs a new request's prefill stalls every
//! running stream. p99 ITL (per gap) is several times p99 TPOT (per request), and no request's
//! TPOT comes near it.

use super::*;

fn runs(_seed: u64) -> Vec<LessonRun> {
    let mut s = lesson_server(smaller(base("chat-latency-first"), 1000));
    s.classes[0].arrival = Arrival::Poisson { rate_per_s: 8.0 };
    vec![LessonRun { variant: "8-req-s", scenario: s }]
}

fn outcome(r: &[Summary]) -> Outcome {
    let itl = |s| Metric::Latency(Latency::Itl, s);
    let tpot = |s| Metric::Latency(Latency::Tpot, s);
    let a = |m: Metric| m.of(&r[0]);
    let ratio = a(itl(Stat::P99)) / a(tpot(Stat::P99));
    // choices: p99 ITL within 1.5× of p99 TPOT, 1.5× to 2.5×, 2.5× or more
    let answer = first(&[ratio < 1.5, ratio < 2.5]);
    let sentences = say(&[
        ("itl_far", answer == 2),
        ("itl_some", answer == 1),
        ("itl_same", answer == 0),
        ("typical_gap", (a(itl(Stat::P50)) - a(tpot(Stat::Mean))).abs() <= 0.2 * a(tpot(Stat::Mean))),
        ("no_request_that_slow", a(tpot(Stat::Max)) < a(itl(Stat::P99))),
        ("worst_gap", a(itl(Stat::Max)) >= 2.0 * a(itl(Stat::P99)) && a(Metric::Requests(Count::Preempted)) == 0.0),
        ("itl_pools", answer > 0),
    ]);
    let quotes = [
        ("itl_p99_ms", 0, itl(Stat::P99), 1.0),
        ("itl_p50_ms", 0, itl(Stat::P50), 1.0),
        ("itl_max_ms", 0, itl(Stat::Max), 1.0),
        ("tpot_p99_ms", 0, tpot(Stat::P99), 1.0),
        ("tpot_mean_ms", 0, tpot(Stat::Mean), 1.0),
        ("tpot_max_ms", 0, tpot(Stat::Max), 1.0),
    ];
    Outcome { answer, numbers: quote(r, &quotes, &[("ratio", ratio)]), sentences }
}

pub(super) const LESSON: Lesson = Lesson {
    id: "tpot-vs-itl",
    choices: 3,
    taught: 2,
    highlight: Metric::Latency(Latency::Itl, Stat::P99),
    focus_class: None,
    sentences: &["itl_far", "itl_some", "itl_same", "typical_gap", "no_request_that_slow", "worst_gap", "itl_pools"],
    runs,
    watch: &[0],
    outcome,
};
