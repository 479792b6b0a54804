//! Lesson `context-too-large`.

use super::*;

pub(super) const LESSON: Lesson = Lesson {
    id: "context-too-large",
    choices: 3,
    taught: 2,
    highlight: Metric::KvPeakBytes,
    focus_class: None,
    sentences: &OLD_EXPLANATIONS,
    runs: context_runs,
    outcome: context,
};

fn context_runs(_seed: u64) -> Vec<LessonRun> {
    let big = smaller(base("risk-context-too-large"), 600);
    let mut paged = big.clone();
    paged.scheduler.kv_layout = KvLayout::Paged;
    vec![LessonRun { variant: "contiguous-32k", scenario: big }, LessonRun { variant: "paged-32k", scenario: paged }]
}

fn context(r: &[Summary]) -> Outcome {
    let (c, p) = (&r[0], &r[1]);
    let ratio = p.memory.peak_running as f64 / c.memory.peak_running.max(1) as f64;
    // choices: paged holds about as many, ~2× as many, 3× or more sequences at once
    let answer = first(&[ratio < 1.5, ratio < 3.0]);
    let quotes = [
        ("peak_running_contiguous", 0, Metric::PeakRunning, 1.0),
        ("peak_running_paged", 1, Metric::PeakRunning, 1.0),
        ("waste_contiguous", 0, Metric::KvWasteMean, 1.0),
        ("waste_paged", 1, Metric::KvWasteMean, 1.0),
        ("ttft_p99_contiguous_ms", 0, Metric::TTFT_P99, 1.0),
        ("ttft_p99_paged_ms", 1, Metric::TTFT_P99, 1.0),
    ];
    Outcome { sentences: vec![OLD_EXPLANATIONS[answer]], answer, numbers: quote(r, &quotes, &[("ratio", ratio)]) }
}
