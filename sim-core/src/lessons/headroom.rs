//! Lesson `headroom`.

use super::*;

pub(super) const LESSON: Lesson = Lesson {
    id: "headroom",
    choices: 3,
    taught: 1,
    highlight: Metric::Requests(Count::OomRestarts),
    focus_class: None,
    sentences: &OLD_EXPLANATIONS,
    runs: headroom_runs,
    outcome: headroom,
};

fn headroom_runs(_seed: u64) -> Vec<LessonRun> {
    let full = base("risk-oom-full-memory");
    let mut safe = full.clone();
    safe.gpu_memory_utilization = 0.75;
    vec![LessonRun { variant: "util-0.95", scenario: full }, LessonRun { variant: "util-0.75", scenario: safe }]
}

fn headroom(r: &[Summary]) -> Outcome {
    // choices: 95% serves more good tokens, 75% serves more, about the same
    let (g95, g75) = (r[0].all.goodput.output_tokens_per_s, r[1].all.goodput.output_tokens_per_s);
    let answer = first(&[g95 > 1.1 * g75, g75 > 1.1 * g95]);
    let oom = Metric::Requests(Count::OomRestarts);
    let quotes = [
        ("oom_95", 0, oom, 1.0),
        ("oom_75", 1, oom, 1.0),
        ("failed_95", 0, Metric::Requests(Count::Failed), 1.0),
        ("goodput_95", 0, GOODPUT, 1.0),
        ("goodput_75", 1, GOODPUT, 1.0),
        ("kv_capacity_95_gib", 0, Metric::KvCapacityBytes, GIB),
        ("kv_capacity_75_gib", 1, Metric::KvCapacityBytes, GIB),
    ];
    Outcome { sentences: vec![OLD_EXPLANATIONS[answer]], answer, numbers: quote(r, &quotes, &[]) }
}
