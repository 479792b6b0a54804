//! Lesson 12, speculative decoding: a big gain alone, a small one in a crowd. The same requests
//! on Llama-3.1-8B on one H100, with and without speculation (an EAGLE-like draft head proposing 4
//! tokens, each accepted at 0.7: about 2.8 tokens per step), first for one closed-loop user
//! (batch 1) and then for 256 users sharing the GPU. Alone, decode is memory-bound: the verifying
//! pass over the 5 positions costs hardly more than a plain step, and time per output token falls
//! by nearly the tokens per step. In the crowd the plain step is still mostly weight and KV reads,
//! but 5 positions per sequence push the linear layers past the GPU's ridge point: the step grows
//! by more than 2×, and the gain shrinks to about 1.2×. A weak draft (8 tokens at 0.6) makes it a
//! loss there: the try step.

use super::*;
use sim_core::speculative::SpeculativeConfig;

/// The speculation of the "on" runs: an EAGLE-like head (no draft model), k 4, a 0.7.
pub const DRAFT_TOKENS: u32 = 4;
pub const ACCEPTANCE: f64 = 0.7;
/// Closed-loop users of the crowd runs (the lessons' server's 256 sequences).
pub const CROWD: u32 = 256;
/// Requests of the runs alone and in the crowd (three rounds of the crowd).
const ALONE_REQUESTS: u64 = 24;
const CROWD_REQUESTS: u64 = 3 * CROWD as u64;
/// The crowd's gain counts as "as much as alone" from this share of the gain alone.
pub const AS_MUCH: f64 = 0.8;

const ITL_MEAN: Metric = Metric::Latency(Latency::Itl, Stat::Mean);

/// The preset `speculative` on the lessons' server, speculation off, `users` users without think
/// time (each sends its next request as soon as the last one ends: the batch stays at `users`).
fn users(users: u32, requests: u64) -> Scenario {
    let mut s = lesson_server(base("speculative"));
    s.speculative = None;
    let c = &mut s.classes[0];
    c.arrival = Arrival::ClosedLoop { users, think_time_ms: 0.0 };
    c.num_requests = Some(requests);
    s
}

/// `s` with the lesson's speculation on.
pub fn speculating(mut s: Scenario) -> Scenario {
    s.speculative =
        Some(SpeculativeConfig { draft_tokens: DRAFT_TOKENS, acceptance_rate: ACCEPTANCE, draft_model: None });
    s
}

fn runs(_seed: u64) -> Vec<LessonRun> {
    let (alone, crowd) = (users(1, ALONE_REQUESTS), users(CROWD, CROWD_REQUESTS));
    vec![
        LessonRun { variant: "alone", scenario: alone.clone() },
        LessonRun { variant: "alone-speculative", scenario: speculating(alone) },
        LessonRun { variant: "crowd", scenario: crowd.clone() },
        LessonRun { variant: "crowd-speculative", scenario: speculating(crowd) },
    ]
}

fn tokens_per_step(s: &Summary) -> f64 {
    // without speculation a step emits one token (the metric reads 0 there)
    if s.speculative.is_some() {
        Metric::SpeculativeTokensPerStep.of(s)
    } else {
        1.0
    }
}

const SENTENCES: &[&str] = &[
    "alone_faster",
    "alone_near_tokens",
    "alone_step_cheap",
    "crowd_worse",
    "crowd_less",
    "crowd_same",
    "crowd_step_dear",
    "crowd_step_grows",
];

fn outcome(r: &[Summary]) -> Outcome {
    let tpot = |i: usize| TPOT_MEAN.of(&r[i]);
    let itl = |i: usize| ITL_MEAN.of(&r[i]);
    let (gain_alone, gain_crowd) = (tpot(0) / tpot(1), tpot(2) / tpot(3));
    let (step_alone, step_crowd) = (itl(1) / itl(0), itl(3) / itl(2));
    let (tokens_alone, tokens_crowd) = (tokens_per_step(&r[1]), tokens_per_step(&r[3]));
    // choices: it helps as much as alone; it helps, less; it makes TPOT worse
    let worse = gain_crowd < 1.0;
    let same = gain_crowd >= AS_MUCH * gain_alone;
    let answer = first(&[same, !worse]);
    let sentences = say(&[
        ("alone_faster", gain_alone > 1.0),
        ("alone_near_tokens", gain_alone >= AS_MUCH * tokens_alone),
        ("alone_step_cheap", step_alone < 1.2),
        ("crowd_worse", worse),
        ("crowd_less", !worse && !same),
        ("crowd_same", same),
        ("crowd_step_dear", step_crowd > tokens_crowd),
        ("crowd_step_grows", step_crowd >= 1.2 && step_crowd <= tokens_crowd),
    ]);
    let quotes = [
        ("tpot_alone_ms", 0, TPOT_MEAN, 1.0),
        ("tpot_alone_speculative_ms", 1, TPOT_MEAN, 1.0),
        ("tpot_crowd_ms", 2, TPOT_MEAN, 1.0),
        ("tpot_crowd_speculative_ms", 3, TPOT_MEAN, 1.0),
        ("itl_alone_ms", 0, ITL_MEAN, 1.0),
        ("itl_alone_speculative_ms", 1, ITL_MEAN, 1.0),
        ("itl_crowd_ms", 2, ITL_MEAN, 1.0),
        ("itl_crowd_speculative_ms", 3, ITL_MEAN, 1.0),
    ];
    let extra = [
        ("draft_tokens", f64::from(DRAFT_TOKENS)),
        ("positions", f64::from(DRAFT_TOKENS + 1)),
        ("acceptance_pct", (100.0 * ACCEPTANCE).round()),
        ("users", f64::from(CROWD)),
        ("gain_alone", gain_alone),
        ("gain_crowd", gain_crowd),
        ("crowd_slower_pct", 100.0 * (1.0 / gain_crowd - 1.0)),
        ("step_growth_alone", step_alone),
        ("step_growth_crowd", step_crowd),
        ("tokens_per_step_alone", tokens_alone),
        ("tokens_per_step_crowd", tokens_crowd),
    ];
    Outcome { answer, numbers: quote(r, &quotes, &extra), sentences }
}

pub(super) const LESSON: Lesson = Lesson {
    id: "speculative-crowd",
    choices: 3,
    taught: 1,
    highlight: TPOT_MEAN,
    focus_class: None,
    sentences: SENTENCES,
    runs,
    watch: &[2, 3],
    outcome,
};
