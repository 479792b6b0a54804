//! Lesson `goodput-vs-throughput`.

use super::*;

pub(super) const LESSON: Lesson = Lesson {
    id: "goodput-vs-throughput",
    choices: 3,
    taught: 1,
    highlight: GOODPUT,
    focus_class: None,
    sentences: &OLD_EXPLANATIONS,
    runs: strict_slo_runs,
    outcome: strict_slo,
};

fn strict_slo_runs(_seed: u64) -> Vec<LessonRun> {
    // the same server, batching to the limit (max_num_seqs 512), at moderate and at high load
    let high = smaller(base("risk-strict-slo"), 1500);
    let mut moderate = high.clone();
    moderate.classes[0].arrival = Arrival::Poisson { rate_per_s: 8.0 };
    vec![LessonRun { variant: "8-req-s", scenario: moderate }, LessonRun { variant: "20-req-s", scenario: high }]
}

fn strict_slo(r: &[Summary]) -> Outcome {
    let (a, b) = (&r[0].all, &r[1].all);
    let thr_up = b.throughput.output_tokens_per_s > a.throughput.output_tokens_per_s;
    let good_up = b.goodput.output_tokens_per_s > a.goodput.output_tokens_per_s;
    // choices: goodput rises with throughput, goodput falls while throughput rises, both fall
    let answer = first(&[thr_up && good_up, thr_up && !good_up]);
    let quotes = [
        ("throughput_a", 0, THROUGHPUT, 1.0),
        ("throughput_b", 1, THROUGHPUT, 1.0),
        ("goodput_a", 0, GOODPUT, 1.0),
        ("goodput_b", 1, GOODPUT, 1.0),
        ("tpot_p99_a_ms", 0, Metric::TPOT_P99, 1.0),
        ("tpot_p99_b_ms", 1, Metric::TPOT_P99, 1.0),
        ("attainment_a", 0, Metric::SloAttainment, 1.0),
        ("attainment_b", 1, Metric::SloAttainment, 1.0),
    ];
    Outcome { sentences: vec![OLD_EXPLANATIONS[answer]], answer, numbers: quote(r, &quotes, &[]) }
}
