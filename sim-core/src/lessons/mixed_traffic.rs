//! Lesson `mixed-traffic`.

use super::*;

pub(super) const LESSON: Lesson = Lesson {
    id: "mixed-traffic",
    choices: 3,
    taught: 0,
    highlight: Metric::TTFT_P99,
    focus_class: None,
    sentences: &OLD_EXPLANATIONS,
    runs: mixed_runs,
    outcome: mixed,
};

fn mixed_runs(_seed: u64) -> Vec<LessonRun> {
    vec![
        LessonRun { variant: "shared", scenario: base("mixed-shared") },
        LessonRun { variant: "isolated", scenario: base("mixed-isolated") },
    ]
}

fn mixed(r: &[Summary]) -> Outcome {
    let (s, i) = (&r[0].classes["chat"], &r[1].classes["chat"]);
    // choices: isolation lowers chat p99 TTFT, raises it, no change
    let answer = first(&[i.ttft_ms.p99 < 0.8 * s.ttft_ms.p99, i.ttft_ms.p99 > 1.2 * s.ttft_ms.p99]);
    Outcome {
        sentences: vec![OLD_EXPLANATIONS[answer]],
        answer,
        numbers: nums(&[
            ("chat_ttft_p99_shared_ms", s.ttft_ms.p99),
            ("chat_ttft_p99_isolated_ms", i.ttft_ms.p99),
            ("chat_attainment_shared", s.goodput.slo_attainment),
            ("chat_attainment_isolated", i.goodput.slo_attainment),
            ("batch_ttft_p99_isolated_ms", r[1].classes["batch"].ttft_ms.p99),
        ]),
    }
}
