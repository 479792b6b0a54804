//! Lesson 13, a shared system prompt and prefix caching: Llama-3-8B on one H100 serves chat at
//! 10 requests/s, each prompt (about 3,500 tokens) starting with a 3,000-token system prompt.
//! Without prefix caching every prompt is prefilled whole and the GPU cannot keep up: requests
//! queue for seconds. With it the system prompt's blocks are computed once and every later request
//! prefills only its own tail, so the queue disappears. Then the same traffic with 48 different
//! system prompts on a KV pool that holds about 20 of them: the cache evicts the prompts it will
//! need next, most requests prefill theirs again, and the cut in TTFT shrinks.

use super::*;
use crate::scenario::PrefixConfig;

/// Requests per run, and the offered load (above what one H100 prefills without the cache).
const REQUESTS: u64 = 1000;
pub const RATE: f64 = 10.0;
/// The system prompt's tokens and the prompts' mean length (the system prompt included).
pub const SHARED: u32 = 3000;
const PROMPT: f64 = 3500.0;
/// System prompts in the runs under memory pressure, and their GPU memory utilisation (a KV pool
/// of about 63,000 tokens against 456,000 at the lessons' 0.9).
pub const MANY: u32 = 48;
pub const SMALL_POOL: f64 = 0.3;
/// The many-prompt runs' cut in p99 TTFT counts as "as much" within this many points of the
/// one-prompt runs' cut, and as no help below this cut.
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

fn cached(mut s: Scenario) -> Scenario {
    s.scheduler.prefix_caching = true;
    s
}

fn runs(_seed: u64) -> Vec<LessonRun> {
    let (one, many) = (chat(1, 0.9), under_pressure());
    vec![
        LessonRun { variant: "one-prompt", scenario: one.clone() },
        LessonRun { variant: "one-prompt-cached", scenario: cached(one) },
        LessonRun { variant: "many-prompts", scenario: many.clone() },
        LessonRun { variant: "many-prompts-cached", scenario: cached(many) },
    ]
}

const SENTENCES: &[&str] =
    &["one_cuts", "one_queue", "many_evicts", "many_same", "many_less", "many_none", "small_pool_costs"];

/// The share of p99 TTFT that caching took away: `1 − cached ÷ uncached`.
fn cut(off: &Summary, on: &Summary) -> f64 {
    1.0 - Metric::TTFT_P99.of(on) / Metric::TTFT_P99.of(off)
}

fn outcome(r: &[Summary]) -> Outcome {
    let p99 = |i: usize| Metric::TTFT_P99.of(&r[i]);
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
        ("small_pool_costs", p99(2) > 1.5 * p99(0)),
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
        ("ttft_p50_one_ms", 0, TTFT_P50, 1.0),
        ("ttft_p50_one_cached_ms", 1, TTFT_P50, 1.0),
        ("ttft_p50_many_ms", 2, TTFT_P50, 1.0),
        ("ttft_p50_many_cached_ms", 3, TTFT_P50, 1.0),
        ("queue_one_ms", 0, QUEUE_MEAN, 1.0),
        ("queue_one_cached_ms", 1, QUEUE_MEAN, 1.0),
        ("prefill_one_ms", 0, PREFILL_MEAN, 1.0),
        ("prefill_one_cached_ms", 1, PREFILL_MEAN, 1.0),
    ];
    let extra = [
        ("rate", RATE),
        ("shared_tokens", f64::from(SHARED)),
        ("prompts", f64::from(MANY)),
        ("pool_tokens", pool),
        ("prompts_fit", (pool / f64::from(SHARED)).floor()),
        ("gain_one", p99(0) / p99(1)),
        ("gain_many", p99(2) / p99(3)),
    ];
    Outcome { answer, numbers: quote(r, &quotes, &extra), sentences }
}

pub(super) const LESSON: Lesson = Lesson {
    id: "prefix-caching",
    choices: 3,
    taught: 1,
    highlight: Metric::TTFT_P99,
    focus_class: None,
    sentences: SENTENCES,
    runs,
    watch: &[1, 3],
    outcome,
};
