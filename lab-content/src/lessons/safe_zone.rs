//! Lesson 10, the concurrency safe zone: long chat (prompts of about 2,000 tokens, answers of
//! about 400) on Llama-3.1-8B and one H100 with the lessons' vLLM-style server, swept over six
//! arrival rates — once at `gpu_memory_utilization` 0.9 and once at 0.5, a lever that changes only
//! the KV cache's capacity (not the step time). Goodput rises, then collapses past a knee; the
//! lesson reads what gave way at the first rate past the knee (not at the top rate, where an
//! unbounded queue always fills the cache or the cap): the TPOT missed with the KV cache below 95%
//! (the GPU's step time), the KV cache full with a growing queue (memory), or the batch at
//! `max_num_seqs` (the scheduler's cap).

use super::*;
use sim_core::scenario::ModelRef;

/// Offered loads (requests/s) of each sweep; the sweep at utilisation 0.9 comes first, then the
/// one at 0.5.
pub const SAFE_ZONE_RATES: [f64; 7] = [4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0];
const REQUESTS: u64 = 1000;
/// The KV cache counts as full from this share of its capacity on.
const FULL: f64 = 0.95;
const TTFT_TARGET_MS: f64 = 500.0;
/// the lessons' batch cap (256 sequences).
const MAX_NUM_SEQS: u64 = 256;

/// The second sweep's `gpu_memory_utilization` (the first's is the lessons' 0.9).
const LESS_ROOM: f64 = 0.5;

const VARIANTS: [[&str; 7]; 2] = [
    ["util-0.9-4", "util-0.9-6", "util-0.9-8", "util-0.9-10", "util-0.9-12", "util-0.9-14", "util-0.9-16"],
    ["util-0.5-4", "util-0.5-6", "util-0.5-8", "util-0.5-10", "util-0.5-12", "util-0.5-14", "util-0.5-16"],
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
    for (util, names) in [0.9, LESS_ROOM].into_iter().zip(VARIANTS) {
        for (rate, variant) in SAFE_ZONE_RATES.iter().zip(names) {
            let mut s = server();
            s.gpu_memory_utilization = util;
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
        if GOODPUT.of(s) > GOODPUT.of(&sweep[k]) {
            k = i;
        }
    }
    k
}

/// What gave way at a load: 2 = the batch reached `max_num_seqs`, 1 = the KV cache was full
/// below the cap, 0 = neither (what missed the SLO was the step time).
pub fn limit(s: &Summary, max_num_seqs: u64) -> usize {
    if Metric::PeakRunning.of(s) >= max_num_seqs as f64 {
        2
    } else if Metric::KvPeakBytes.of(s) >= FULL * Metric::KvCapacityBytes.of(s) {
        1
    } else {
        0
    }
}

const SENTENCES: &[&str] = &[
    "knee",
    "no_knee",
    "past",
    "memory",
    "cap",
    "compute",
    "queue",
    "room_moves",
    "room_same",
    "knee_margin",
    "where",
];

fn outcome(r: &[Summary]) -> Outcome {
    let n = SAFE_ZONE_RATES.len();
    let (full, less) = r.split_at(n);
    let (k, k7, last) = (knee(full), knee(less), n - 1);
    // judged at the first rate past the knee (the top rate when there is no knee)
    let j = (k + 1).min(last);
    let at = &full[j];
    // choices: the step time (TPOT missed with KV room left), memory (the KV cache full), the
    // scheduler's batch cap
    let answer = limit(at, MAX_NUM_SEQS);
    let good = |s: &Summary| GOODPUT.of(s);
    let gib = |s: &Summary, m: Metric| m.of(s) / GIB;
    let (attainment, tpot_p99, queue) = (Metric::SloAttainment, Metric::TPOT_P99, QUEUE_MEAN);
    let growing = queue.of(at) > 2.0 * queue.of(&full[k]).max(1.0);
    let timed_out = Metric::Requests(Count::TimedOut).of(at);
    let sentences = say(&[
        ("knee", k < last && good(&full[last]) < good(&full[k])),
        ("no_knee", k == last),
        ("past", k < last),
        ("memory", answer == 1),
        ("cap", answer == 2),
        ("compute", answer == 0),
        ("queue", growing && Metric::TTFT_P99.of(at) > TTFT_TARGET_MS && timed_out == 0.0),
        ("room_moves", k7 < k),
        ("room_same", k7 == k),
        ("knee_margin", attainment.of(&full[k]) < 0.99),
        ("where", true),
    ]);
    let numbers = nums(&[
        ("knee_rate", SAFE_ZONE_RATES[k]),
        ("knee_goodput", good(&full[k])),
        ("knee_attainment", attainment.of(&full[k])),
        ("knee_tpot_p99_ms", tpot_p99.of(&full[k])),
        ("knee_queue_ms", queue.of(&full[k])),
        ("past_rate", SAFE_ZONE_RATES[j]),
        ("past_goodput", good(at)),
        ("past_tpot_p99_ms", tpot_p99.of(at)),
        ("past_queue_ms", queue.of(at)),
        ("past_ttft_p99_ms", Metric::TTFT_P99.of(at)),
        ("peak_running_past", Metric::PeakRunning.of(at)),
        ("kv_peak_past_gib", gib(at, Metric::KvPeakBytes)),
        ("kv_capacity_gib", gib(at, Metric::KvCapacityBytes)),
        ("max_num_seqs", MAX_NUM_SEQS as f64),
        ("max_rate", SAFE_ZONE_RATES[last]),
        ("goodput_at_max", good(&full[last])),
        ("throughput_at_max", THROUGHPUT.of(&full[last])),
        ("knee_rate_less", SAFE_ZONE_RATES[k7]),
        ("knee_goodput_less", good(&less[k7])),
        ("kv_capacity_less_gib", gib(&less[k7], Metric::KvCapacityBytes)),
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
