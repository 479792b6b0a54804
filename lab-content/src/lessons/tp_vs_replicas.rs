//! Lesson `tp-vs-replicas`, two GPUs as one tensor-parallel engine or as two replicas: Llama-3.1-8B
//! (it fits one H100) on two H100s, at light load (2 requests/s) and at heavy load (56 requests/s).
//! Tensor parallel splits every layer over both GPUs, so a prompt's prefill takes about half as
//! long and the first token comes sooner; each step pays two all-reduces per layer. At heavy load
//! two replicas serve more good tokens: each has its own batch (its own sequence cap and token
//! budget), and neither pays the all-reduces, so the same two GPUs deliver more within the SLO —
//! and the same price per hour makes that more good tokens per dollar.

use super::*;
use sim_core::cluster::Policy;

/// Requests per run at light load and at heavy load.
const LIGHT_REQUESTS: u64 = 400;
const HEAVY_REQUESTS: u64 = 1200;
/// The light and the heavy rate, requests/s.
pub const LIGHT_RATE: f64 = 2.0;
pub const HEAVY_RATE: f64 = 56.0;
/// GPUs in both layouts.
pub const GPUS: u32 = 2;

/// The chat traffic at `rate` on one engine over both GPUs (tensor parallel), or on two
/// single-GPU replicas behind a least-outstanding router.
fn scenario(tensor_parallel: bool, rate: f64, requests: u64) -> Scenario {
    let mut s = lesson_server(smaller(base("chat-latency-first"), requests));
    s.model = sim_core::scenario::ModelRef::Id("llama-3.1-8b".into());
    (s.num_gpus, s.replicas) = if tensor_parallel { (GPUS, 1) } else { (1, GPUS) };
    s.router.policy = Policy::LeastOutstanding;
    s.classes[0].arrival = Arrival::Poisson { rate_per_s: rate };
    s
}

fn runs(_seed: u64) -> Vec<LessonRun> {
    vec![
        LessonRun { variant: "tp2-light", scenario: scenario(true, LIGHT_RATE, LIGHT_REQUESTS) },
        LessonRun { variant: "replicas-light", scenario: scenario(false, LIGHT_RATE, LIGHT_REQUESTS) },
        LessonRun { variant: "tp2-heavy", scenario: scenario(true, HEAVY_RATE, HEAVY_REQUESTS) },
        LessonRun { variant: "replicas-heavy", scenario: scenario(false, HEAVY_RATE, HEAVY_REQUESTS) },
    ]
}

const SENTENCES: &[&str] = &[
    "split",
    "tp_both",
    "replicas_both",
    "reversed",
    "tpot_light",
    "same_throughput",
    "one_batch",
    "tpot_heavy",
    "tp_tokens_faster",
    "cost",
    "kv_pool",
    "where",
];

fn outcome(r: &[Summary]) -> Outcome {
    let (tl, rl, th, rh) = (&r[0], &r[1], &r[2], &r[3]);
    let ttft = |s: &Summary| TTFT_P50.of(s);
    let good = |s: &Summary| GOODPUT.of(s);
    let tp_sooner = ttft(tl) < ttft(rl);
    let replicas_more = good(rh) > good(th);
    // choices: tensor parallel both times; tensor parallel sooner at light load and replicas more
    // goodput at heavy load; replicas both times; replicas sooner and tensor parallel more goodput
    let answer = match (tp_sooner, replicas_more) {
        (true, false) => 0,
        (true, true) => 1,
        (false, true) => 2,
        (false, false) => 3,
    };
    let tpot = |s: &Summary| TPOT_MEAN.of(s);
    let tput = |s: &Summary| THROUGHPUT.of(s);
    let usd = |s: &Summary| Metric::UsdPerMillionGoodTokens.of(s);
    let queue = |s: &Summary| QUEUE_MEAN.of(s);
    // the most sequences one engine ran at once (with replicas, the busiest one's)
    let peak = |s: &Summary| Metric::PeakRunning.of(s);
    // the replicas' pools together: one replica's plan times the replicas
    let kv_pool = |s: &Summary| Metric::KvCapacityBytes.of(s);
    let kv_replicas = kv_pool(rh) * rh.replicas.len().max(1) as f64;
    let sentences = say(&[
        ("split", answer == 1),
        ("tp_both", answer == 0),
        ("replicas_both", answer == 2),
        ("reversed", answer == 3),
        ("tpot_light", tpot(tl) < tpot(rl) && tpot(tl) > 0.5 * tpot(rl)),
        ("same_throughput", (tput(th) - tput(rh)).abs() <= 0.05 * tput(rh)),
        ("one_batch", replicas_more && queue(th) > 2.0 * queue(rh) && peak(th) < 2.0 * peak(rh)),
        ("tpot_heavy", tpot(th) > tpot(rh)),
        ("tp_tokens_faster", replicas_more && tpot(th) < tpot(rh) && queue(th) > queue(rh)),
        ("cost", usd(th).is_finite() && usd(rh).is_finite() && usd(rh) < usd(th)),
        ("kv_pool", kv_pool(th) > kv_replicas),
        ("where", true),
    ]);
    let quotes = [
        ("ttft_p50_tp_light_ms", 0, TTFT_P50, 1.0),
        ("ttft_p50_replicas_light_ms", 1, TTFT_P50, 1.0),
        ("tpot_mean_tp_light_ms", 0, TPOT_MEAN, 1.0),
        ("tpot_mean_replicas_light_ms", 1, TPOT_MEAN, 1.0),
        ("goodput_tp_heavy", 2, GOODPUT, 1.0),
        ("goodput_replicas_heavy", 3, GOODPUT, 1.0),
        ("attainment_tp_heavy", 2, Metric::SloAttainment, 1.0),
        ("attainment_replicas_heavy", 3, Metric::SloAttainment, 1.0),
        ("throughput_tp_heavy", 2, THROUGHPUT, 1.0),
        ("throughput_replicas_heavy", 3, THROUGHPUT, 1.0),
        ("peak_running_tp_heavy", 2, Metric::PeakRunning, 1.0),
        ("peak_running_replicas_heavy", 3, Metric::PeakRunning, 1.0),
        ("queue_mean_tp_heavy_ms", 2, QUEUE_MEAN, 1.0),
        ("queue_mean_replicas_heavy_ms", 3, QUEUE_MEAN, 1.0),
        ("tpot_mean_tp_heavy_ms", 2, TPOT_MEAN, 1.0),
        ("tpot_mean_replicas_heavy_ms", 3, TPOT_MEAN, 1.0),
        ("kv_tp_gib", 2, Metric::KvCapacityBytes, GIB),
    ];
    // $ per million good tokens, 0 where a run delivered none (the sentence is then not said)
    let finite = |v: f64| if v.is_finite() { v } else { 0.0 };
    let extra = [
        ("kv_replicas_gib", kv_replicas / GIB),
        ("usd_per_m_good_tp", finite(usd(th))),
        ("usd_per_m_good_replicas", finite(usd(rh))),
    ];
    let numbers = quote(r, &quotes, &extra);
    Outcome { answer, numbers, sentences }
}

pub(super) const LESSON: Lesson = Lesson {
    id: "tp-vs-replicas",
    choices: 4,
    taught: 1,
    highlight: GOODPUT,
    focus_class: None,
    sentences: SENTENCES,
    runs,
    watch: &[2, 3],
    outcome,
};
