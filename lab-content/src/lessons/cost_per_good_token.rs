//! Lesson 9, cost per good token: three GPUs, each run at four loads around what it can carry,
//! each in the best precision it has (fp8 weights where it has fp8 tensor cores). Each GPU is
//! judged at its own SLO-bound capacity — the highest of its loads at which 99% of requests meet
//! the SLO — and there its price per hour is divided by the good tokens it delivers.

use super::*;
use sim_core::catalog::Dtype;
use sim_core::scenario::GpuRef;

/// A GPU of the comparison: catalogue id, precision, the loads (req/s) it runs at with their run
/// labels, and the names of the numbers read from it.
pub struct CostGpu {
    pub id: &'static str,
    pub dtype: Dtype,
    pub rates: [f64; 4],
    variants: [&'static str; 4],
    /// rate, $ per million good tokens, $ per hour, SLO attainment, goodput
    names: [&'static str; 5],
}

/// The GPUs compared, in run order (each GPU's four loads in a row).
pub const COST_GPUS: [CostGpu; 3] = [
    CostGpu {
        id: "l40s",
        dtype: Dtype::Fp8,
        rates: [6.0, 8.0, 10.0, 12.0],
        variants: ["l40s-6", "l40s-8", "l40s-10", "l40s-12"],
        names: ["rate_l40s", "usd_per_m_good_l40s", "usd_per_hour_l40s", "attainment_l40s", "goodput_l40s"],
    },
    CostGpu {
        id: "a100-80gb",
        dtype: Dtype::Bf16,
        rates: [2.0, 3.0, 4.0, 6.0],
        variants: ["a100-2", "a100-3", "a100-4", "a100-6"],
        names: ["rate_a100", "usd_per_m_good_a100", "usd_per_hour_a100", "attainment_a100", "goodput_a100"],
    },
    CostGpu {
        id: "h100-sxm",
        dtype: Dtype::Fp8,
        rates: [24.0, 28.0, 32.0, 36.0],
        variants: ["h100-24", "h100-28", "h100-32", "h100-36"],
        names: ["rate_h100", "usd_per_m_good_h100", "usd_per_hour_h100", "attainment_h100", "goodput_h100"],
    },
];
/// A load is served within the SLO when at least this share of requests meets it.
pub const WITHIN_SLO: f64 = 0.99;
const REQUESTS: u64 = 1000;

fn scenario(g: &CostGpu, rate: f64) -> Scenario {
    let mut s = smaller(base("chat-latency-first"), REQUESTS);
    s.gpu = GpuRef::Id(g.id.into());
    s.dtype = g.dtype;
    // the lessons' vLLM-style server
    let c = &mut s.scheduler;
    (c.max_num_seqs, c.max_num_batched_tokens) = (256, 8192);
    (c.max_queue_len, c.queue_timeout_ms) = (None, None);
    s.classes[0].arrival = Arrival::Poisson { rate_per_s: rate };
    s
}

fn runs(_seed: u64) -> Vec<LessonRun> {
    let each = |g: &'static CostGpu| g.rates.iter().zip(g.variants).map(move |(r, variant)| (g, *r, variant));
    COST_GPUS
        .iter()
        .flat_map(each)
        .map(|(g, rate, variant)| LessonRun { variant, scenario: scenario(g, rate) })
        .collect()
}

/// For each GPU, the index (into its loads) of its SLO-bound capacity: the highest load served
/// within the SLO, or `None` when even the lowest was not.
fn capacity(r: &[Summary]) -> [Option<usize>; 3] {
    let mut out = [None; 3];
    for (gi, o) in out.iter_mut().enumerate() {
        *o = r[gi * 4..gi * 4 + 4].iter().rposition(|s| Metric::SloAttainment.of(s) >= WITHIN_SLO);
    }
    out
}

const SENTENCES: &[&str] =
    &["capacities", "below_slo", "costs", "h100_cheapest", "l40s_cheapest", "a100_cheapest", "a100_least", "where"];

fn outcome(r: &[Summary]) -> Outcome {
    let cap = capacity(r);
    // each GPU read at its capacity (or at its lowest load when none was within the SLO)
    let at = |gi: usize| &r[gi * 4 + cap[gi].unwrap_or(0)];
    let cost = |gi: usize| {
        let c = Metric::UsdPerMillionGoodTokens.of(at(gi));
        if c.is_finite() {
            c
        } else {
            1e9
        }
    };
    let rate = |gi: usize| COST_GPUS[gi].rates[cap[gi].unwrap_or(0)];
    let per_hour = |gi: usize| Metric::UsdPerHour.of(at(gi));
    // choices: the L40S (cheapest per hour), the A100, the H100 (dearest per hour)
    let answer = (1..3).fold(0, |best, gi| if cost(gi) < cost(best) { gi } else { best });
    let all_within = cap.iter().all(Option::is_some);
    let sentences = say(&[
        ("capacities", all_within),
        ("below_slo", !all_within),
        ("costs", true),
        ("h100_cheapest", answer == 2 && rate(2) / rate(0) > per_hour(2) / per_hour(0)),
        ("l40s_cheapest", answer == 0),
        ("a100_cheapest", answer == 1),
        ("a100_least", rate(1) < rate(0) && rate(1) < rate(2)),
        ("where", true),
    ]);
    let mut numbers = BTreeMap::new();
    for (gi, g) in COST_GPUS.iter().enumerate() {
        let s = at(gi);
        let values = [rate(gi), cost(gi), per_hour(gi), Metric::SloAttainment.of(s), GOODPUT.of(s)];
        numbers.extend(g.names.into_iter().zip(values));
    }
    numbers.insert("ratio", rate(2) / rate(0));
    Outcome { answer, numbers, sentences }
}

pub(super) const LESSON: Lesson = Lesson {
    id: "cost-per-good-token",
    choices: 3,
    taught: 2,
    highlight: Metric::UsdPerMillionGoodTokens,
    focus_class: None,
    sentences: SENTENCES,
    runs,
    watch: &[0],
    outcome,
};
