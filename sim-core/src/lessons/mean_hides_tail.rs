//! Lesson `mean-hides-tail`.

use super::*;

pub(super) const LESSON: Lesson = Lesson {
    id: "mean-hides-tail",
    choices: 3,
    taught: 2,
    highlight: Metric::TTFT_P99,
    focus_class: None,
    sentences: &OLD_EXPLANATIONS,
    runs: chat_burst,
    outcome: mean_vs_tail,
};

fn chat_burst(_seed: u64) -> Vec<LessonRun> {
    let mut s = smaller(base("chat-latency-first"), 600);
    s.classes[0].arrival = Arrival::Bursty { rate_per_s: 7.0, cv: 3.0 };
    s.scheduler.queue_timeout_ms = None;
    s.scheduler.max_queue_len = None;
    vec![LessonRun { variant: "bursty-chat", scenario: s }]
}

fn mean_vs_tail(r: &[Summary]) -> Outcome {
    let (mean, p99) = (r[0].all.ttft_ms.mean, r[0].all.ttft_ms.p99);
    let ratio = p99 / mean;
    // choices: p99 ≈ mean, ≈ 2× mean, ≥ 3× mean
    let answer = first(&[ratio < 1.5, ratio < 3.0]);
    let quotes = [
        ("ttft_mean_ms", 0, TTFT_MEAN, 1.0),
        ("ttft_p50_ms", 0, TTFT_P50, 1.0),
        ("ttft_p99_ms", 0, Metric::TTFT_P99, 1.0),
    ];
    Outcome { sentences: vec![OLD_EXPLANATIONS[answer]], answer, numbers: quote(r, &quotes, &[("ratio", ratio)]) }
}
