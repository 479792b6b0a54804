//! Lesson `quantization`, weights and KV in fewer bytes: Qwen3-32B on one H100 serves chat at 5
//! requests/s in bf16 (run A: its 61 GiB of weights leave a few GiB for KV), with fp8 weights
//! (run B: half the bytes, so a pool several times larger and half the weight reads per decode
//! step), and with fp8 weights and fp8 KV (run C: twice B's tokens in the same pool, half the KV
//! reads). The simulator models speed and memory only; what quantization does to the answers'
//! quality is for an evaluation of one's own.

use super::*;
use sim_core::catalog::Dtype;

/// Requests per run, and the offered rate.
const REQUESTS: u64 = 1200;
pub const RATE: f64 = 5.0;
/// Goodputs within this factor of each other count as "about the same".
const SAME: f64 = 1.1;
/// B delivering at least this many times A's goodput is "far more".
const FAR: f64 = 1.5;

fn scenario(weights: Dtype, kv: Dtype) -> Scenario {
    let mut s = lesson_server(smaller(base("chat-latency-first"), REQUESTS));
    s.model = sim_core::scenario::ModelRef::Id("qwen3-32b".into());
    s.dtype = weights;
    s.kv_dtype = Some(kv);
    s.classes[0].arrival = Arrival::Poisson { rate_per_s: RATE };
    s
}

fn runs(_seed: u64) -> Vec<LessonRun> {
    vec![
        LessonRun { variant: "bf16", scenario: scenario(Dtype::Bf16, Dtype::Bf16) },
        LessonRun { variant: "fp8-weights", scenario: scenario(Dtype::Fp8, Dtype::Bf16) },
        LessonRun { variant: "fp8-weights-kv", scenario: scenario(Dtype::Fp8, Dtype::Fp8) },
    ]
}

const SENTENCES: &[&str] = &[
    "far_more",
    "some_more",
    "same",
    "less",
    "weights",
    "concurrency",
    "queued",
    "tpot",
    "kv_doubles",
    "kv_helps",
    "kv_room",
    "kv_reads",
    "quality",
    "where",
];

fn outcome(r: &[Summary]) -> Outcome {
    let (a, b, c) = (&r[0], &r[1], &r[2]);
    let good = |s: &Summary| GOODPUT.of(s);
    let (ga, gb, gc) = (good(a), good(b), good(c));
    // choices: about the same; more, under 1.5×; 1.5× or more; less
    let answer = if gb * SAME < ga {
        3
    } else if gb <= SAME * ga {
        0
    } else if gb < FAR * ga {
        1
    } else {
        2
    };
    let tpot = |s: &Summary| TPOT_MEAN.of(s);
    let queue = |s: &Summary| QUEUE_MEAN.of(s);
    let peak = |s: &Summary| Metric::PeakRunning.of(s);
    let weights = |s: &Summary| Metric::WeightsBytes.of(s);
    let kv_tokens = |s: &Summary| Metric::KvCapacityTokens.of(s);
    let b_room = Metric::KvPeakBytes.of(b) < 0.9 * Metric::KvCapacityBytes.of(b);
    let sentences = say(&[
        ("far_more", answer == 2),
        ("some_more", answer == 1),
        ("same", answer == 0),
        ("less", answer == 3),
        ("weights", weights(b) < 0.6 * weights(a) && kv_tokens(b) > kv_tokens(a)),
        ("concurrency", peak(b) > peak(a)),
        ("queued", queue(a) > 2.0 * queue(b)),
        ("tpot", tpot(b) < tpot(a)),
        ("kv_doubles", kv_tokens(c) >= 1.9 * kv_tokens(b)),
        ("kv_helps", gc > SAME * gb),
        ("kv_room", gc <= SAME * gb && gb <= SAME * gc && b_room),
        ("kv_reads", tpot(c) < tpot(b)),
        ("quality", true),
        ("where", true),
    ]);
    let quotes = [
        ("goodput_bf16", 0, GOODPUT, 1.0),
        ("goodput_fp8", 1, GOODPUT, 1.0),
        ("goodput_fp8_kv", 2, GOODPUT, 1.0),
        ("attainment_bf16", 0, Metric::SloAttainment, 1.0),
        ("attainment_fp8", 1, Metric::SloAttainment, 1.0),
        ("weights_bf16_gib", 0, Metric::WeightsBytes, GIB),
        ("weights_fp8_gib", 1, Metric::WeightsBytes, GIB),
        ("kv_bf16_gib", 0, Metric::KvCapacityBytes, GIB),
        ("kv_fp8_gib", 1, Metric::KvCapacityBytes, GIB),
        ("kv_tokens_bf16", 0, Metric::KvCapacityTokens, 1.0),
        ("kv_tokens_fp8", 1, Metric::KvCapacityTokens, 1.0),
        ("kv_tokens_fp8_kv", 2, Metric::KvCapacityTokens, 1.0),
        ("peak_running_bf16", 0, Metric::PeakRunning, 1.0),
        ("peak_running_fp8", 1, Metric::PeakRunning, 1.0),
        ("queue_mean_bf16_ms", 0, QUEUE_MEAN, 1.0),
        ("queue_mean_fp8_ms", 1, QUEUE_MEAN, 1.0),
        ("tpot_mean_bf16_ms", 0, TPOT_MEAN, 1.0),
        ("tpot_mean_fp8_ms", 1, TPOT_MEAN, 1.0),
        ("tpot_mean_fp8_kv_ms", 2, TPOT_MEAN, 1.0),
    ];
    Outcome { answer, numbers: quote(r, &quotes, &[("ratio", gb / ga.max(1e-9))]), sentences }
}

pub(super) const LESSON: Lesson = Lesson {
    id: "quantization",
    choices: 4,
    taught: 2,
    highlight: GOODPUT,
    focus_class: None,
    sentences: SENTENCES,
    runs,
    watch: &[0, 1],
    outcome,
};
