//! Lesson `kv-arithmetic`.

use super::*;

pub(super) const LESSON: Lesson = Lesson {
    id: "kv-arithmetic",
    choices: 3,
    taught: 1,
    highlight: Metric::KvPeakBytes,
    focus_class: None,
    sentences: &OLD_EXPLANATIONS,
    runs: kv_runs,
    outcome: kv_arithmetic,
};

fn kv_runs(_seed: u64) -> Vec<LessonRun> {
    // 10 users, each always holding a 2,048-token conversation (prompt 1,792 + 256 output)
    let mut s = base("chat-latency-first");
    s.model = crate::scenario::ModelRef::Id("llama-3-8b".into());
    s.scheduler.max_num_seqs = 10;
    s.scheduler.queue_timeout_ms = None;
    s.scheduler.max_queue_len = None;
    let c = &mut s.classes[0];
    c.arrival = Arrival::ClosedLoop { users: 10, think_time_ms: 0.0 };
    c.num_requests = Some(60);
    c.input_tokens = Some(LengthDist::Fixed { value: 1792 });
    c.output_tokens = Some(LengthDist::Fixed { value: 257 });
    let mut mha = s.clone();
    mha.model = crate::scenario::ModelRef::Id("llama-2-7b".into());
    mha.scheduler.max_model_len = 4096;
    vec![LessonRun { variant: "llama-3-8b", scenario: s }, LessonRun { variant: "llama-2-7b", scenario: mha }]
}

fn kv_arithmetic(r: &[Summary]) -> Outcome {
    let tokens = 10.0 * 2048.0;
    let gqa = r[0].memory.kv_bytes_per_token * tokens / GIB;
    let mha = r[1].memory.kv_bytes_per_token * tokens / GIB;
    // the article's formula in bf16: 10 × 2048 × layers × hidden × 2 (K,V) × 2 bytes
    let m = crate::catalog::find_model("llama-3-8b").expect("catalogue");
    let article = tokens * crate::memory::article_kv_elements_per_token(&m) * 2.0 / GIB;
    // choices: ~0.5 GiB, ~2.5 GiB, ~10 GiB (for Llama-3-8B)
    let answer = first(&[gqa < 1.0, gqa < 5.0]);
    let quotes = [
        ("kv_peak_gqa_gib", 0, Metric::KvPeakBytes, GIB),
        ("kv_peak_mha_gib", 1, Metric::KvPeakBytes, GIB),
        ("kv_kib_per_token_gqa", 0, Metric::KvBytesPerToken, 1024.0),
        ("kv_kib_per_token_mha", 1, Metric::KvBytesPerToken, 1024.0),
    ];
    let extra = [("kv_gqa_gib", gqa), ("kv_mha_gib", mha), ("kv_article_gib", article)];
    Outcome { sentences: vec![OLD_EXPLANATIONS[answer]], answer, numbers: quote(r, &quotes, &extra) }
}
