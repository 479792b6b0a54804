//! Lesson `cost-per-good-token`.

use super::*;

/// GPUs compared in the cost lesson, in run order.
pub const COST_GPUS: [&str; 3] = ["l40s", "a100-80gb", "h100-sxm"];

pub(super) const LESSON: Lesson = Lesson {
    id: "cost-per-good-token",
    choices: 3,
    taught: 2,
    highlight: Metric::UsdPerMillionGoodTokens,
    focus_class: None,
    sentences: &OLD_EXPLANATIONS,
    runs: cost_runs,
    outcome: cost,
};

fn cost_runs(_seed: u64) -> Vec<LessonRun> {
    COST_GPUS
        .iter()
        .map(|g| {
            let mut s = smaller(base("chat-latency-first"), 800);
            s.gpu = crate::scenario::GpuRef::Id((*g).into());
            s.scheduler.max_num_seqs = 64;
            s.classes[0].arrival = Arrival::Poisson { rate_per_s: 6.0 };
            LessonRun { variant: g, scenario: s }
        })
        .collect()
}

fn cost(r: &[Summary]) -> Outcome {
    // choices: the cheapest GPU-hour (index 0) gives the cheapest good token, or index 1, or 2
    let mut best = 0;
    for i in 1..r.len() {
        if r[i].cost.usd_per_million_good_tokens < r[best].cost.usd_per_million_good_tokens {
            best = i;
        }
    }
    let quotes = [
        ("usd_per_hour_0", 0, Metric::UsdPerHour, 1.0),
        ("usd_per_hour_1", 1, Metric::UsdPerHour, 1.0),
        ("usd_per_hour_2", 2, Metric::UsdPerHour, 1.0),
        ("usd_per_m_good_0", 0, Metric::UsdPerMillionGoodTokens, 1.0),
        ("usd_per_m_good_1", 1, Metric::UsdPerMillionGoodTokens, 1.0),
        ("usd_per_m_good_2", 2, Metric::UsdPerMillionGoodTokens, 1.0),
        ("attainment_0", 0, Metric::SloAttainment, 1.0),
        ("attainment_1", 1, Metric::SloAttainment, 1.0),
        ("attainment_2", 2, Metric::SloAttainment, 1.0),
    ];
    Outcome { sentences: vec![OLD_EXPLANATIONS[best]], answer: best, numbers: quote(r, &quotes, &[]) }
}
