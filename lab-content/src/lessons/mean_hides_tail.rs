//! Lesson 1, the mean hides the tail: bursty chat on 256-sequence, 8,192-token limits, where the mean
//! TTFT stays inside the SLO while the p99 — the requests at the back of a burst — does not.

use super::*;

/// The chat class's TTFT target (the `chat-latency-first` preset's).
const SLO_TTFT_MS: f64 = 500.0;
/// Average arrival rate (requests/s) and burstiness (CV of the gaps) of the lesson's run.
const RATE_PER_S: f64 = 12.0;
const CV: f64 = 4.0;

fn runs(_seed: u64) -> Vec<LessonRun> {
    let mut s = lesson_server(smaller(base("chat-latency-first"), 1000));
    s.classes[0].arrival = Arrival::Bursty { rate_per_s: RATE_PER_S, cv: CV };
    vec![LessonRun { variant: "bursty-chat", scenario: s }]
}

fn outcome(r: &[Summary]) -> Outcome {
    let a = |m: Metric| m.of(&r[0]);
    let (queue_p99, prefill_p99) =
        (Metric::Latency(Latency::Queue, Stat::P99), Metric::Latency(Latency::Prefill, Stat::P99));
    let (mean, p99) = (a(TTFT_MEAN), a(Metric::TTFT_P99));
    // choices: both inside the SLO; the mean inside and the p99 outside; both outside
    let answer = first(&[p99 <= SLO_TTFT_MS, mean <= SLO_TTFT_MS]);
    let rejected = a(Metric::Requests(Count::Rejected));
    let waited_out = a(Metric::Requests(Count::TimedOut));
    let sentences = say(&[
        ("mean_under_p99_over", answer == 1),
        ("both_under", answer == 0),
        ("both_over", answer == 2),
        ("median_below_mean", a(TTFT_P50) < mean),
        ("tail_is_queue", a(queue_p99) > a(prefill_p99)),
        ("tail_is_prefill", a(queue_p99) <= a(prefill_p99)),
        ("tail_missed", p99 > SLO_TTFT_MS),
        ("nobody_refused", rejected + waited_out == 0.0),
        ("overlong_rejected_one", rejected == 1.0 && waited_out == 0.0),
        ("overlong_rejected_many", rejected > 1.0 && waited_out == 0.0),
        ("where", true),
    ]);
    let quotes = [
        ("ttft_mean_ms", 0, TTFT_MEAN, 1.0),
        ("ttft_p50_ms", 0, TTFT_P50, 1.0),
        ("ttft_p99_ms", 0, Metric::TTFT_P99, 1.0),
        ("queue_p99_ms", 0, queue_p99, 1.0),
        ("prefill_p99_ms", 0, prefill_p99, 1.0),
        ("attainment", 0, Metric::SloAttainment, 1.0),
        ("rejected", 0, Metric::Requests(Count::Rejected), 1.0),
    ];
    let extra = [("ratio", p99 / mean), ("slo_ttft_ms", SLO_TTFT_MS)];
    Outcome { answer, numbers: quote(r, &quotes, &extra), sentences }
}

pub(super) const LESSON: Lesson = Lesson {
    id: "mean-hides-tail",
    choices: 3,
    taught: 1,
    highlight: Metric::TTFT_P99,
    focus_class: None,
    sentences: &[
        "mean_under_p99_over",
        "both_under",
        "both_over",
        "median_below_mean",
        "tail_is_queue",
        "tail_is_prefill",
        "tail_missed",
        "nobody_refused",
        "overlong_rejected_one",
        "overlong_rejected_many",
        "where",
    ],
    runs,
    watch: &[0],
    outcome,
};
