//! Lesson `ttft-vs-tpot`.

use super::*;

pub(super) const LESSON: Lesson = Lesson {
    id: "ttft-vs-tpot",
    choices: 3,
    taught: 0,
    highlight: Metric::TTFT_P99,
    focus_class: None,
    sentences: &OLD_EXPLANATIONS,
    runs: ttft_vs_tpot_runs,
    outcome: ttft_vs_tpot,
};

fn ttft_vs_tpot_runs(_seed: u64) -> Vec<LessonRun> {
    let mut a = smaller(base("chat-latency-first"), 600);
    a.scheduler.queue_timeout_ms = None;
    a.scheduler.max_queue_len = None;
    a.classes[0].arrival = Arrival::Poisson { rate_per_s: 4.0 };
    let mut b = a.clone();
    b.classes[0].arrival = Arrival::Poisson { rate_per_s: 9.0 };
    vec![LessonRun { variant: "4-req-s", scenario: a }, LessonRun { variant: "9-req-s", scenario: b }]
}

fn ttft_vs_tpot(r: &[Summary]) -> Outcome {
    let ttft = r[1].all.ttft_ms.p99 / r[0].all.ttft_ms.p99;
    let tpot = r[1].all.tpot_ms.p99 / r[0].all.tpot_ms.p99;
    // choices: TTFT rises more, TPOT rises more, both about the same
    let answer = first(&[ttft > 1.5 * tpot, tpot > 1.5 * ttft]);
    let quotes = [
        ("ttft_p99_a_ms", 0, Metric::TTFT_P99, 1.0),
        ("ttft_p99_b_ms", 1, Metric::TTFT_P99, 1.0),
        ("tpot_p99_a_ms", 0, Metric::TPOT_P99, 1.0),
        ("tpot_p99_b_ms", 1, Metric::TPOT_P99, 1.0),
        ("queue_mean_a_ms", 0, QUEUE_MEAN, 1.0),
        ("queue_mean_b_ms", 1, QUEUE_MEAN, 1.0),
        ("prefill_mean_b_ms", 1, PREFILL_MEAN, 1.0),
    ];
    Outcome {
        sentences: vec![OLD_EXPLANATIONS[answer]],
        answer,
        numbers: quote(r, &quotes, &[("ttft_growth", ttft), ("tpot_growth", tpot)]),
    }
}
