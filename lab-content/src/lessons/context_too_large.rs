//! Lesson `context-too-large`: on an engine with paged KV (vLLM), does raising the context limit
//! from 8k to 32k cost concurrency? Runs A and B: paged KV at 8k and 32k; run C: the contiguous
//! reservation the article describes, at 32k; run D: the 32k engine when long documents come.

use super::*;

pub(super) const LESSON: Lesson = Lesson {
    id: "context-too-large",
    choices: 3,
    taught: 0,
    highlight: Metric::KvPeakBytes,
    focus_class: None,
    sentences: &[
        "same-concurrency",
        "reservation-caps",
        "pool-shrinks",
        "activations-by-budget",
        "contiguous",
        "long-sequence-kv",
        "docs-slow-chat",
        "docs-delay-chat",
    ],
    runs: context_runs,
    watch: &[0, 1],
    outcome: context,
};

/// The limits compared.
const SHORT: u32 = 8192;
const LONG: u32 = 32768;

fn context_runs(_seed: u64) -> Vec<LessonRun> {
    // chat at 10 req/s on Llama-3.1-8B / H100 with the lessons' vLLM-style server (paged KV, chunked prefill)
    let mut long = lesson_server(smaller(base("risk-context-too-large"), 600));
    long.scheduler.max_model_len = LONG;
    let mut short = long.clone();
    short.scheduler.max_model_len = SHORT;
    let mut contiguous = long.clone();
    contiguous.scheduler.kv_layout = KvLayout::Contiguous;
    // the same chat plus long documents (prompts of about 16,000 tokens) that only 32k admits
    let mut docs = long.clone();
    let mut d = docs.classes[0].clone();
    d.name = "docs".into();
    d.arrival = Arrival::Poisson { rate_per_s: 0.3 };
    d.num_requests = Some(18);
    d.input_tokens = Some(LengthDist::Lognormal { mean: 16000.0, sigma: 0.4 });
    d.output_tokens = Some(LengthDist::Lognormal { mean: 300.0, sigma: 0.5 });
    d.slo = sim_core::scenario::Slo { ttft_ms: Some(10_000.0), tpot_ms: Some(100.0), e2e_ms: None };
    docs.classes.push(d);
    vec![
        LessonRun { variant: "paged-8k", scenario: short },
        LessonRun { variant: "paged-32k", scenario: long },
        LessonRun { variant: "contiguous-32k", scenario: contiguous },
        LessonRun { variant: "paged-32k-docs", scenario: docs },
    ]
}

fn context(r: &[Summary]) -> Outcome {
    let (short, long) = (&r[0], &r[1]);
    let (peak, kv_pool) = (Metric::PeakRunning, Metric::KvCapacityBytes);
    let ratio = peak.of(long) / peak.of(short).max(1.0);
    let pool = kv_pool.of(long) / kv_pool.of(short).max(1.0);
    // choices: about as many sequences; about a quarter as many (each reserves the limit);
    // fewer because the engine sets more memory aside for the longer limit
    let answer = if ratio < 0.5 {
        1
    } else if pool < 0.9 {
        2
    } else {
        0
    };
    let itl_p99 = Metric::Latency(Latency::Itl, Stat::P99);
    let quotes = [
        ("peak_running_8k", 0, Metric::PeakRunning, 1.0),
        ("peak_running_32k", 1, Metric::PeakRunning, 1.0),
        ("peak_running_contiguous", 2, Metric::PeakRunning, 1.0),
        ("kv_capacity_8k_gib", 0, Metric::KvCapacityBytes, GIB),
        ("kv_capacity_32k_gib", 1, Metric::KvCapacityBytes, GIB),
        ("activation_8k_gib", 0, Metric::ActivationBytes, GIB),
        ("activation_32k_gib", 1, Metric::ActivationBytes, GIB),
        ("waste_8k", 0, Metric::KvWasteMean, 1.0),
        ("waste_32k", 1, Metric::KvWasteMean, 1.0),
        ("waste_contiguous", 2, Metric::KvWasteMean, 1.0),
        ("ttft_p99_32k_ms", 1, Metric::TTFT_P99, 1.0),
        ("ttft_p99_contiguous_ms", 2, Metric::TTFT_P99, 1.0),
    ];
    let chat = |i: usize| r[i].classes.get("chat");
    let docs = r[3].classes.get("docs");
    let (c32, cd) = (chat(1), chat(3));
    let of = |c: Option<&ClassSummary>, m: Metric| c.map_or(0.0, |c| of_class(m, c));
    let full_seq = Metric::KvBytesPerToken.of(long) * f64::from(LONG);
    let extra = [
        ("max_len_32k", f64::from(LONG)),
        ("kv_full_seq_gib", full_seq / GIB),
        ("full_seqs_in_pool", (Metric::KvCapacityTokens.of(long) as u64 / u64::from(LONG)) as f64),
        ("docs_completed", of(docs, Metric::Requests(Count::Completed))),
        ("chat_itl_p99_32k_ms", of(c32, itl_p99)),
        ("chat_itl_p99_docs_ms", of(cd, itl_p99)),
        ("chat_ttft_p99_32k_ms", of(c32, Metric::TTFT_P99)),
        ("chat_ttft_p99_docs_ms", of(cd, Metric::TTFT_P99)),
    ];
    let n = quote(r, &quotes, &extra);
    let contiguous_caps = n["peak_running_contiguous"] <= 0.5 * n["peak_running_32k"] && n["waste_contiguous"] > 0.5;
    let sentences = say(&[
        ("same-concurrency", answer == 0 && pool >= 0.999 && n["waste_32k"] < 0.05),
        ("reservation-caps", answer == 1 && n["waste_32k"] > 0.5),
        ("pool-shrinks", answer == 2 && n["activation_32k_gib"] > n["activation_8k_gib"]),
        ("activations-by-budget", n["activation_32k_gib"] == n["activation_8k_gib"]),
        ("contiguous", contiguous_caps && n["ttft_p99_contiguous_ms"] > n["ttft_p99_32k_ms"]),
        ("long-sequence-kv", n["docs_completed"] > 0.0),
        ("docs-slow-chat", n["docs_completed"] > 0.0 && n["chat_itl_p99_docs_ms"] > 1.2 * n["chat_itl_p99_32k_ms"]),
        ("docs-delay-chat", n["docs_completed"] > 0.0 && n["chat_ttft_p99_docs_ms"] > 1.2 * n["chat_ttft_p99_32k_ms"]),
    ]);
    Outcome { answer, numbers: n, sentences }
}
