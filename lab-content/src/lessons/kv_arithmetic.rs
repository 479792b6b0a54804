//! Lesson `kv-arithmetic`: how big the KV cache of 10 × 2,048 tokens is, with grouped-query
//! attention (Llama-3-8B) and without (Llama-2-7B), against the article's formula.

use super::*;

pub(super) const LESSON: Lesson = Lesson {
    id: "kv-arithmetic",
    choices: 3,
    taught: 1,
    highlight: Metric::KvPeakBytes,
    focus_class: None,
    sentences: &["per-token", "totals", "gauge-agrees", "article-overstates", "article-right-without-gqa"],
    runs: kv_runs,
    watch: &[0, 1],
    outcome: kv_arithmetic,
};

/// Users, each always holding one conversation of `CONTEXT` tokens.
const USERS: u32 = 10;
const CONTEXT: f64 = 2048.0;

fn kv_runs(_seed: u64) -> Vec<LessonRun> {
    // 10 users, each always holding a 2,048-token conversation (prompt 1,792 + 256 output)
    let mut s = base("chat-latency-first");
    s.model = sim_core::scenario::ModelRef::Id("llama-3-8b".into());
    s.scheduler.max_num_seqs = USERS;
    s.scheduler.queue_timeout_ms = None;
    s.scheduler.max_queue_len = None;
    let c = &mut s.classes[0];
    c.arrival = Arrival::ClosedLoop { users: USERS, think_time_ms: 0.0 };
    c.num_requests = Some(60);
    c.input_tokens = Some(LengthDist::Fixed { value: 1792 });
    c.output_tokens = Some(LengthDist::Fixed { value: 257 });
    let mut mha = s.clone();
    mha.model = sim_core::scenario::ModelRef::Id("llama-2-7b".into());
    mha.scheduler.max_model_len = 4096;
    vec![LessonRun { variant: "llama-3-8b", scenario: s }, LessonRun { variant: "llama-2-7b", scenario: mha }]
}

fn kv_arithmetic(r: &[Summary]) -> Outcome {
    let tokens = USERS as f64 * CONTEXT;
    let gqa = Metric::KvBytesPerToken.of(&r[0]) * tokens / GIB;
    let mha = Metric::KvBytesPerToken.of(&r[1]) * tokens / GIB;
    // the article's formula in bf16: 10 × 2048 × layers × hidden × 2 (K,V) × 2 bytes
    let m = sim_core::catalog::find_model("llama-3-8b").expect("catalogue");
    let article = tokens * sim_core::memory::article_kv_elements_per_token(&m) * 2.0 / GIB;
    // choices: ~0.5 GiB, ~2.5 GiB, ~10 GiB (for run A's model)
    let answer = first(&[gqa < 1.0, gqa < 5.0]);
    let quotes = [
        ("kv_peak_gqa_gib", 0, Metric::KvPeakBytes, GIB),
        ("kv_peak_mha_gib", 1, Metric::KvPeakBytes, GIB),
        ("kv_kib_per_token_gqa", 0, Metric::KvBytesPerToken, 1024.0),
        ("kv_kib_per_token_mha", 1, Metric::KvBytesPerToken, 1024.0),
    ];
    let extra = [("kv_gqa_gib", gqa), ("kv_mha_gib", mha), ("kv_article_gib", article)];
    let numbers = quote(r, &quotes, &extra);
    let near = |a: f64, b: f64| (a - b).abs() <= 0.05 * b.max(1e-9);
    let peaks_agree = near(numbers["kv_peak_gqa_gib"], gqa) && near(numbers["kv_peak_mha_gib"], mha);
    let sentences = say(&[
        ("per-token", true),
        ("totals", true),
        ("gauge-agrees", peaks_agree),
        ("article-overstates", article > 1.5 * gqa),
        ("article-right-without-gqa", near(article, mha)),
    ]);
    Outcome { answer, numbers, sentences }
}
