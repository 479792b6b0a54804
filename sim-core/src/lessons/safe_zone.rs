//! Lesson `safe-zone`.

use super::*;

/// Offered loads (requests/s) of the safe-zone lesson's sweep.
pub const SAFE_ZONE_RATES: [f64; 10] = [2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0, 18.0, 20.0];

pub(super) const LESSON: Lesson = Lesson {
    id: "safe-zone",
    choices: 3,
    taught: 1,
    highlight: GOODPUT,
    focus_class: None,
    sentences: &OLD_EXPLANATIONS,
    runs: safe_zone_runs,
    outcome: safe_zone,
};

fn safe_zone_runs(_seed: u64) -> Vec<LessonRun> {
    let base = smaller(base("chat-latency-first"), 600);
    SAFE_ZONE_RATES
        .iter()
        .map(|r| LessonRun {
            variant: "rate",
            scenario: SweepParam::RatePerS.apply(&base, *r).expect("rates in range"),
        })
        .collect()
}

fn safe_zone(r: &[Summary]) -> Outcome {
    let good: Vec<f64> = r.iter().map(|s| s.all.goodput.output_tokens_per_s).collect();
    let (mut k, mut best) = (0, f64::MIN);
    for (i, g) in good.iter().enumerate() {
        if *g > best {
            best = *g;
            k = i;
        }
    }
    let last = r.len() - 1;
    let (lo, hi) = good.iter().fold((f64::MAX, f64::MIN), |(a, b), g| (a.min(*g), b.max(*g)));
    // choices: goodput keeps rising to the highest load; it peaks at a knee and falls; it stays flat
    let answer = if hi - lo < 0.1 * hi { 2 } else { first(&[k == last]) };
    let quotes = [
        ("knee_ttft_p99_ms", k, Metric::TTFT_P99, 1.0),
        ("goodput_at_max", last, GOODPUT, 1.0),
        ("throughput_at_max", last, THROUGHPUT, 1.0),
        ("ttft_p99_at_max_ms", last, Metric::TTFT_P99, 1.0),
        ("peak_running_at_max", last, Metric::PeakRunning, 1.0),
    ];
    let extra = [("knee_rate", SAFE_ZONE_RATES[k]), ("knee_goodput", best), ("max_rate", SAFE_ZONE_RATES[last])];
    Outcome { sentences: vec![OLD_EXPLANATIONS[answer]], answer, numbers: quote(r, &quotes, &extra) }
}
