//! Lesson 10, the concurrency safe zone: long chat (prompts of about 2,000 tokens, answers of
//! about 400) on Llama-3.1-8B and one H100 with the lessons' vLLM-style server, swept over six arrival rates —
//! once with the KV cache in bf16 and once in fp8 (half the bytes per token). Goodput rises, then
//! collapses past a knee; the lesson reads what stopped the batch from growing there: the KV
//! cache (memory), `max_num_seqs` (the scheduler's cap), or neither (the GPU's step time).

use super::*;
use crate::catalog::Dtype;
use crate::scenario::ModelRef;

/// Offered loads (requests/s) of each sweep; the bf16 sweep comes first, then the fp8 one.
pub const SAFE_ZONE_RATES: [f64; 6] = [4.0, 6.0, 8.0, 10.0, 12.0, 14.0];
const REQUESTS: u64 = 1000;
/// The KV cache counts as full from this share of its capacity on.
const FULL: f64 = 0.95;
const TTFT_TARGET_MS: f64 = 500.0;
/// the lessons' batch cap (256 sequences).
const MAX_NUM_SEQS: u64 = 256;

const VARIANTS: [[&str; 6]; 2] = [
    ["bf16-kv-4", "bf16-kv-6", "bf16-kv-8", "bf16-kv-10", "bf16-kv-12", "bf16-kv-14"],
    ["fp8-kv-4", "fp8-kv-6", "fp8-kv-8", "fp8-kv-10", "fp8-kv-12", "fp8-kv-14"],
];

/// The swept server: the lessons' vLLM-style server on Llama-3.1-8B (its whole 131,072-token context allowed).
fn server() -> Scenario {
    let mut s = smaller(base("chat-latency-first"), REQUESTS);
    s.model = ModelRef::Id("llama-3.1-8b".into());
    let c = &mut s.scheduler;
    (c.max_num_seqs, c.max_num_batched_tokens, c.max_model_len) = (MAX_NUM_SEQS as u32, 8192, 131_072);
    (c.max_queue_len, c.queue_timeout_ms) = (None, None);
    let chat = &mut s.classes[0];
    chat.input_tokens = Some(LengthDist::Lognormal { mean: 2000.0, sigma: 0.7 });
    chat.output_tokens = Some(LengthDist::Lognormal { mean: 400.0, sigma: 0.6 });
    s
}

fn runs(_seed: u64) -> Vec<LessonRun> {
    let mut out = Vec::new();
    for (kv, names) in [None, Some(Dtype::Fp8)].into_iter().zip(VARIANTS) {
        for (rate, variant) in SAFE_ZONE_RATES.iter().zip(names) {
            let mut s = server();
            s.kv_dtype = kv;
            let scenario = SweepParam::RatePerS.apply(&s, *rate).expect("rates in range");
            out.push(LessonRun { variant, scenario });
        }
    }
    out
}

/// The index of the load with the most goodput in a sweep.
fn knee(sweep: &[Summary]) -> usize {
    let mut k = 0;
    for (i, s) in sweep.iter().enumerate() {
        if s.all.goodput.output_tokens_per_s > sweep[k].all.goodput.output_tokens_per_s {
            k = i;
        }
    }
    k
}

/// What held the batch back at a load: 1 = the KV cache was full below the cap, 2 = the batch
/// reached `max_num_seqs`, 0 = neither.
pub fn limit(s: &Summary, max_num_seqs: u64) -> usize {
    let m = &s.memory;
    if m.peak_running >= max_num_seqs {
        2
    } else if m.kv_peak_bytes >= FULL * m.kv_capacity_bytes {
        1
    } else {
        0
    }
}

const SENTENCES: &[&str] =
    &["knee", "no_knee", "queue", "memory", "cap", "compute", "fp8_moves", "fp8_cap", "knee_margin"];

fn outcome(r: &[Summary]) -> Outcome {
    let n = SAFE_ZONE_RATES.len();
    let (bf16, fp8) = r.split_at(n);
    let (k, k8, last) = (knee(bf16), knee(fp8), n - 1);
    let top = &bf16[last];
    // choices: compute (the GPU's step time), memory (the KV cache), the scheduler's batch cap
    let answer = limit(top, MAX_NUM_SEQS);
    let good = |s: &Summary| s.all.goodput.output_tokens_per_s;
    let gib = |b: f64| b / GIB;
    let sentences = say(&[
        ("knee", k < last && good(top) < good(&bf16[k])),
        ("no_knee", k == last),
        ("queue", top.all.ttft_ms.p99 > TTFT_TARGET_MS && top.all.requests.timed_out == 0),
        ("memory", answer == 1),
        ("cap", answer == 2),
        ("compute", answer == 0),
        ("fp8_moves", k8 > k),
        ("fp8_cap", limit(&fp8[last], MAX_NUM_SEQS) == 2),
        ("knee_margin", bf16[k].all.goodput.slo_attainment < 0.99),
    ]);
    let numbers = nums(&[
        ("knee_rate", SAFE_ZONE_RATES[k]),
        ("knee_goodput", good(&bf16[k])),
        ("knee_attainment", bf16[k].all.goodput.slo_attainment),
        ("knee_tpot_p99_ms", bf16[k].all.tpot_ms.p99),
        ("max_rate", SAFE_ZONE_RATES[last]),
        ("goodput_at_max", good(top)),
        ("throughput_at_max", top.all.throughput.output_tokens_per_s),
        ("ttft_p99_at_max_ms", top.all.ttft_ms.p99),
        ("peak_running_at_max", top.memory.peak_running as f64),
        ("kv_peak_at_max_gib", gib(top.memory.kv_peak_bytes)),
        ("kv_capacity_gib", gib(top.memory.kv_capacity_bytes)),
        ("max_num_seqs", MAX_NUM_SEQS as f64),
        ("knee_rate_fp8", SAFE_ZONE_RATES[k8]),
        ("knee_goodput_fp8", good(&fp8[k8])),
        ("peak_running_fp8_at_max", fp8[last].memory.peak_running as f64),
        ("kv_peak_fp8_at_max_gib", gib(fp8[last].memory.kv_peak_bytes)),
    ]);
    Outcome { answer, numbers, sentences }
}

pub(super) const LESSON: Lesson = Lesson {
    id: "safe-zone",
    choices: 3,
    taught: 1,
    highlight: GOODPUT,
    focus_class: None,
    sentences: SENTENCES,
    runs,
    watch: &[0],
    outcome,
};
