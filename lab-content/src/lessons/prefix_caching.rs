//! Lesson 13, shared prefixes and prefix caching: questions about long documents (12,000 tokens
//! each, a question of about 300) on Llama-3.1-8B and one H100 at 1.45 requests/s, a load the GPU
//! keeps up with even prefilling every document whole. With one document shared by every request
//! the cache computes it once and TTFT falls to tens of milliseconds. With 96 distinct documents
//! the KV pool at the lessons' utilisation 0.9 (about 456,000 tokens, some 38 documents' worth,
//! running requests included) overflows: the cache evicts documents that are soon asked about
//! again, and the cut in TTFT shrinks. (The exercise `cache-prompts` keeps the system-prompt
//! traffic on a small pool that this lesson used before: [`under_pressure`].)

use super::*;
use sim_core::scenario::PrefixConfig;

/// The exercise's traffic: requests, the offered load (above what one H100 prefills without the
/// cache), the system prompt's tokens and the prompts' mean length.
const REQUESTS: u64 = 1000;
pub const RATE: f64 = 10.0;
pub const SHARED: u32 = 3000;
const PROMPT: f64 = 3500.0;
/// System prompts in the runs under memory pressure, and their GPU memory utilisation (a KV pool
/// of about 63,000 tokens against 456,000 at the lessons' 0.9).
pub const MANY: u32 = 48;
pub const SMALL_POOL: f64 = 0.3;
/// The lesson's documents: tokens each, how many, the questions' mean length, the offered load
/// (requests/s: the GPU prefills every document whole at it without falling behind for long)
/// and the requests per run.
pub const DOC: u32 = 12_000;
pub const DOCS: u32 = 96;
const QUESTION: f64 = 300.0;
pub const DOC_RATE: f64 = 1.45;
const DOC_REQUESTS: u64 = 600;
/// The many-document runs' cut in mean TTFT counts as "as much" within this many points of the
/// one-document runs' cut, and as no help below this cut.
pub const AS_MUCH: f64 = 0.1;
pub const NO_HELP: f64 = 0.1;

/// The chat traffic with `groups` system prompts of [`SHARED`] tokens, prefix caching off.
fn chat(groups: u32, memory: f64) -> Scenario {
    let mut s = lesson_server(smaller(base("prefix-caching"), REQUESTS));
    s.gpu_memory_utilization = memory;
    s.scheduler.prefix_caching = false;
    let c = &mut s.classes[0];
    c.arrival = Arrival::Poisson { rate_per_s: RATE };
    c.input_tokens = Some(LengthDist::Lognormal { mean: PROMPT, sigma: 0.2 });
    c.output_tokens = Some(LengthDist::Lognormal { mean: 150.0, sigma: 0.5 });
    c.prefix = Some(PrefixConfig { shared_tokens: SHARED, groups });
    s
}

/// The runs under memory pressure, caching off: [`MANY`] system prompts on the small pool (the
/// exercise `cache-prompts` starts here).
pub(crate) fn under_pressure() -> Scenario {
    chat(MANY, SMALL_POOL)
}

/// Questions about long documents: each prompt is one of `groups` documents of [`DOC`] tokens
/// and a question of about [`QUESTION`] tokens, on Llama-3.1-8B at the lessons' utilisation 0.9
/// (a KV pool of about 456,000 tokens), caching off.
fn documents(groups: u32) -> Scenario {
    let mut s = lesson_server(smaller(base("prefix-caching"), DOC_REQUESTS));
    s.model = sim_core::scenario::ModelRef::Id("llama-3.1-8b".into());
    s.scheduler.max_model_len = 32_768;
    s.scheduler.prefix_caching = false;
    let c = &mut s.classes[0];
    c.arrival = Arrival::Poisson { rate_per_s: DOC_RATE };
    c.input_tokens = Some(LengthDist::Lognormal { mean: f64::from(DOC) + QUESTION, sigma: 0.02 });
    c.output_tokens = Some(LengthDist::Lognormal { mean: 200.0, sigma: 0.5 });
    c.prefix = Some(PrefixConfig { shared_tokens: DOC, groups });
    s
}

fn cached(mut s: Scenario) -> Scenario {
    s.scheduler.prefix_caching = true;
    s
}

fn runs(_seed: u64) -> Vec<LessonRun> {
    let (one, many) = (documents(1), documents(DOCS));
    vec![
        LessonRun { variant: "one-prompt", scenario: one.clone() },
        LessonRun { variant: "one-prompt-cached", scenario: cached(one) },
        LessonRun { variant: "many-prompts", scenario: many.clone() },
        LessonRun { variant: "many-prompts-cached", scenario: cached(many) },
    ]
}

const SENTENCES: &[&str] =
    &["one_cuts", "one_queue", "many_evicts", "many_same", "many_less", "many_none", "load_fits", "where"];

/// The share of mean TTFT that caching took away: `1 − cached ÷ uncached` (the mean counts every
/// miss by its share; a p99 is set by the few first requests of each document even when all fit).
fn cut(off: &Summary, on: &Summary) -> f64 {
    1.0 - TTFT_MEAN.of(on) / TTFT_MEAN.of(off)
}

fn outcome(r: &[Summary]) -> Outcome {
    let mean = |i: usize| TTFT_MEAN.of(&r[i]);
    let hit = |i: usize| Metric::PrefixHitRate.of(&r[i]);
    let evicted = |i: usize| Metric::PrefixEvictedBlocks.of(&r[i]);
    let queue = |i: usize| QUEUE_MEAN.of(&r[i]);
    let (cut_one, cut_many) = (cut(&r[0], &r[1]), cut(&r[2], &r[3]));
    // choices: it cuts TTFT as much as with one prompt; it cuts it, far less; it does not help
    let same = cut_many >= cut_one - AS_MUCH;
    let none = cut_many < NO_HELP;
    let answer = first(&[same, !none]);
    let pool = Metric::KvCapacityTokens.of(&r[3]);
    let sentences = say(&[
        ("one_cuts", cut_one > 0.5 && hit(1) > 0.5),
        ("one_queue", queue(0) > 10.0 * queue(1) && queue(0) > PREFILL_MEAN.of(&r[0])),
        ("many_evicts", evicted(3) > evicted(1) && hit(3) < hit(1) - 0.2),
        ("many_same", answer == 0),
        ("many_less", answer == 1),
        ("many_none", answer == 2),
        ("load_fits", [0, 2, 3].iter().all(|&i| queue(i) < 0.5 * PREFILL_MEAN.of(&r[0]))),
        ("where", true),
    ]);
    let quotes = [
        ("hit_rate_one", 1, Metric::PrefixHitRate, 1.0),
        ("hit_rate_many", 3, Metric::PrefixHitRate, 1.0),
        ("evicted_one", 1, Metric::PrefixEvictedBlocks, 1.0),
        ("evicted_many", 3, Metric::PrefixEvictedBlocks, 1.0),
        ("ttft_p99_one_ms", 0, Metric::TTFT_P99, 1.0),
        ("ttft_p99_one_cached_ms", 1, Metric::TTFT_P99, 1.0),
        ("ttft_p99_many_ms", 2, Metric::TTFT_P99, 1.0),
        ("ttft_p99_many_cached_ms", 3, Metric::TTFT_P99, 1.0),
        ("ttft_mean_one_ms", 0, TTFT_MEAN, 1.0),
        ("ttft_mean_one_cached_ms", 1, TTFT_MEAN, 1.0),
        ("ttft_mean_many_ms", 2, TTFT_MEAN, 1.0),
        ("ttft_mean_many_cached_ms", 3, TTFT_MEAN, 1.0),
        ("ttft_p50_one_ms", 0, TTFT_P50, 1.0),
        ("ttft_p50_one_cached_ms", 1, TTFT_P50, 1.0),
        ("ttft_p50_many_ms", 2, TTFT_P50, 1.0),
        ("ttft_p50_many_cached_ms", 3, TTFT_P50, 1.0),
        ("queue_one_ms", 0, QUEUE_MEAN, 1.0),
        ("queue_one_cached_ms", 1, QUEUE_MEAN, 1.0),
        ("queue_many_ms", 2, QUEUE_MEAN, 1.0),
        ("queue_many_cached_ms", 3, QUEUE_MEAN, 1.0),
        ("prefill_one_ms", 0, PREFILL_MEAN, 1.0),
        ("prefill_one_cached_ms", 1, PREFILL_MEAN, 1.0),
    ];
    let extra = [
        ("rate", DOC_RATE),
        ("shared_tokens", f64::from(DOC)),
        ("prompts", f64::from(DOCS)),
        ("pool_tokens", pool),
        ("prompts_fit", (pool / f64::from(DOC)).floor()),
        ("gain_one", mean(0) / mean(1)),
        ("gain_many", mean(2) / mean(3)),
    ];
    Outcome { answer, numbers: quote(r, &quotes, &extra), sentences }
}

pub(super) const LESSON: Lesson = Lesson {
    id: "prefix-caching",
    choices: 3,
    taught: 1,
    highlight: TTFT_MEAN,
    focus_class: None,
    sentences: SENTENCES,
    runs,
    watch: &[1, 3],
    outcome,
};
