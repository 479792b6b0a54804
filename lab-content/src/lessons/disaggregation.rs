//! Lesson 15, prefill/decode disaggregation: four H100s serve long-prompt chat (Llama-3.1-8B,
//! prompts of about 3,000 tokens, answers of about 250) at 24 requests/s. Colocated behind a
//! least-outstanding router, every replica mixes prefill chunks into its decode steps and TPOT
//! misses its SLO. Split into a prefill pool and a decode pool with the KV moving over a link,
//! TTFT and TPOT stop fighting, but only at the right ratio: one prefill replica cannot keep up
//! with the prompts, one decode replica cannot keep up with the tokens. At light load (8 req/s)
//! nothing fights and colocated serves the first token sooner: every prompt gets a whole replica
//! and pays no transfer.

use super::*;
use sim_core::cluster::Policy;
use sim_core::disagg::DisaggConfig;

/// Requests per run at the busy rate, and at the light one.
const REQUESTS: u64 = 1000;
const LIGHT_REQUESTS: u64 = 400;
/// The busy rate (the preset's) and the light one.
pub const RATE: f64 = 24.0;
pub const LIGHT_RATE: f64 = 8.0;
/// GPUs in every layout.
pub const GPUS: u32 = 4;
/// The chat class's SLO in the preset: TTFT and TPOT targets, ms.
pub const SLO_TTFT_MS: f64 = 1500.0;
pub const SLO_TPOT_MS: f64 = 15.0;

/// The preset's traffic at `rate` on four colocated replicas routed least outstanding.
fn colocated(rate: f64, requests: u64) -> Scenario {
    let mut s = lesson_server(smaller(base("disaggregated"), requests));
    s.disaggregation = None;
    s.replicas = GPUS;
    s.router.policy = Policy::LeastOutstanding;
    if let Arrival::Poisson { rate_per_s } = &mut s.classes[0].arrival {
        *rate_per_s = rate;
    }
    s
}

/// The same on `prefill` prefill replicas and the rest decode replicas, over the preset's links.
fn split(mut s: Scenario, prefill: u32) -> Scenario {
    let link = base("disaggregated").disaggregation.expect("the preset disaggregates");
    s.replicas = 1;
    s.disaggregation = Some(DisaggConfig { prefill_replicas: prefill, decode_replicas: GPUS - prefill, ..link });
    s
}

/// The busy runs' traffic on four colocated replicas: the classroom exercise `split-the-work`
/// starts there.
pub(crate) fn busy_colocated() -> Scenario {
    colocated(RATE, REQUESTS)
}

fn runs(_seed: u64) -> Vec<LessonRun> {
    let (busy, light) = (colocated(RATE, REQUESTS), colocated(LIGHT_RATE, LIGHT_REQUESTS));
    vec![
        LessonRun { variant: "colocated", scenario: busy.clone() },
        LessonRun { variant: "1p3d", scenario: split(busy.clone(), 1) },
        LessonRun { variant: "2p2d", scenario: split(busy.clone(), 2) },
        LessonRun { variant: "3p1d", scenario: split(busy, 3) },
        LessonRun { variant: "colocated-light", scenario: light.clone() },
        LessonRun { variant: "2p2d-light", scenario: split(light, 2) },
    ]
}

const SENTENCES: &[&str] = &[
    "split_best",
    "colocated_best",
    "other_best",
    "colocated_tpot",
    "balanced_meets",
    "transfer_small",
    "prefill_bound",
    "decode_bound",
    "light_colocated_sooner",
    "where",
];

/// The layouts' runs in the order of the choices: colocated, 1P3D, 2P2D, 3P1D.
const LAYOUTS: [usize; 4] = [0, 1, 2, 3];

fn outcome(r: &[Summary]) -> Outcome {
    let good = |i: usize| GOODPUT.of(&r[i]);
    let att = |i: usize| Metric::SloAttainment.of(&r[i]);
    let ttft = |i: usize| Metric::TTFT_P99.of(&r[i]);
    let tpot = |i: usize| Metric::TPOT_P99.of(&r[i]);
    let (slo_ttft, slo_tpot) = (SLO_TTFT_MS, SLO_TPOT_MS);
    // choices: four colocated, 1P3D, 2P2D, 3P1D: the layout with the most goodput
    let answer = LAYOUTS.iter().copied().fold(0, |best, i| if good(i) > good(best) { i } else { best });
    let transfer = Metric::KvTransferMean.of(&r[2]);
    let sentences = say(&[
        ("split_best", answer == 2),
        ("colocated_best", answer == 0),
        ("other_best", answer == 1 || answer == 3),
        ("colocated_tpot", tpot(0) > slo_tpot && att(0) < att(2)),
        ("balanced_meets", ttft(2) <= slo_ttft && tpot(2) <= slo_tpot && att(2) >= 0.95),
        ("transfer_small", transfer < 0.1 * TTFT_P50.of(&r[2])),
        ("prefill_bound", ttft(1) > 10.0 * slo_ttft && att(1) < 0.5),
        ("decode_bound", tpot(3) > slo_tpot && att(3) < 0.5),
        ("light_colocated_sooner", att(4) >= 0.95 && att(5) >= 0.95 && TTFT_P50.of(&r[4]) < TTFT_P50.of(&r[5])),
        ("where", true),
    ]);
    let quotes = [
        ("goodput_colocated", 0, GOODPUT, 1.0),
        ("goodput_1p3d", 1, GOODPUT, 1.0),
        ("goodput_2p2d", 2, GOODPUT, 1.0),
        ("goodput_3p1d", 3, GOODPUT, 1.0),
        ("attainment_colocated", 0, Metric::SloAttainment, 1.0),
        ("attainment_1p3d", 1, Metric::SloAttainment, 1.0),
        ("attainment_2p2d", 2, Metric::SloAttainment, 1.0),
        ("attainment_3p1d", 3, Metric::SloAttainment, 1.0),
        ("ttft_p99_colocated_ms", 0, Metric::TTFT_P99, 1.0),
        ("ttft_p99_1p3d_ms", 1, Metric::TTFT_P99, 1.0),
        ("ttft_p99_2p2d_ms", 2, Metric::TTFT_P99, 1.0),
        ("tpot_p99_colocated_ms", 0, Metric::TPOT_P99, 1.0),
        ("tpot_p99_2p2d_ms", 2, Metric::TPOT_P99, 1.0),
        ("tpot_p99_3p1d_ms", 3, Metric::TPOT_P99, 1.0),
        ("kv_transfer_mean_ms", 2, Metric::KvTransferMean, 1.0),
        ("kv_transfer_p99_ms", 2, Metric::KvTransferP99, 1.0),
        ("ttft_p50_2p2d_ms", 2, TTFT_P50, 1.0),
        ("ttft_p50_light_colocated_ms", 4, TTFT_P50, 1.0),
        ("ttft_p50_light_2p2d_ms", 5, TTFT_P50, 1.0),
        ("kv_transfer_mean_light_ms", 5, Metric::KvTransferMean, 1.0),
        ("attainment_light_colocated", 4, Metric::SloAttainment, 1.0),
        ("attainment_light_2p2d", 5, Metric::SloAttainment, 1.0),
    ];
    let extra = [("rate", RATE), ("light_rate", LIGHT_RATE), ("slo_ttft_ms", slo_ttft), ("slo_tpot_ms", slo_tpot)];
    Outcome { answer, numbers: quote(r, &quotes, &extra), sentences }
}

pub(super) const LESSON: Lesson = Lesson {
    id: "disaggregation",
    choices: 4,
    taught: 2,
    highlight: GOODPUT,
    focus_class: None,
    sentences: SENTENCES,
    runs,
    watch: &[0, 2],
    outcome,
};
