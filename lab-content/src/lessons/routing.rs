//! Lesson 14, route a conversation to its history: four replicas serve multi-turn chat, each
//! turn resending the whole conversation. Round robin and least-outstanding routing send a
//! conversation's next turn to whichever replica is next or least busy, rarely the one that
//! holds its history, so most turns prefill the history again; prefix affinity sends each turn
//! to the replica caching its conversation (session affinity), within a load cap. The question
//! is the hit rate, which holds at any load; the SLO attainment it buys depends on the load.

use super::*;
use sim_core::cluster::Policy;

/// Conversations per run (the preset's arrival rate and turns: about 2,700 requests).
const CONVERSATIONS: u64 = 400;
/// Hit rates, and SLO attainments, closer than this count as "about the same".
const SAME: f64 = 0.05;

fn runs(_seed: u64) -> Vec<LessonRun> {
    let s = smaller(base("multi-turn-chat"), CONVERSATIONS);
    let with = |p: Policy| {
        let mut s = s.clone();
        s.router.policy = p;
        s
    };
    vec![
        LessonRun { variant: "round-robin", scenario: with(Policy::RoundRobin) },
        LessonRun { variant: "least-outstanding", scenario: with(Policy::LeastOutstanding) },
        LessonRun { variant: "prefix-affinity", scenario: with(Policy::PrefixAffinity) },
    ]
}

const SENTENCES: &[&str] = &[
    "affinity_best",
    "balance_best",
    "all_same",
    "hits_kept",
    "evictions",
    "ttft_falls",
    "balancing_no_help",
    "spills",
    "less_even",
    "more_good_tokens",
    "where",
];

fn outcome(r: &[Summary]) -> Outcome {
    let att = |i: usize| Metric::SloAttainment.of(&r[i]);
    let hit = |i: usize| Metric::PrefixHitRate.of(&r[i]);
    let evicted = |i: usize| Metric::PrefixEvictedBlocks.of(&r[i]);
    // the question is the hit rate (what holds wherever the routers run); the SLO attainment,
    // which depends on how loaded the replicas are, is what the sentences add
    let pick = |x: [f64; 3]| {
        let (best, worst) = (x[0].max(x[1]).max(x[2]), x[0].min(x[1]).min(x[2]));
        // choices: round robin, least outstanding, prefix affinity, about the same
        if best - worst < SAME {
            3
        } else if x[2] == best {
            2
        } else if x[1] == best {
            1
        } else {
            0
        }
    };
    let answer = pick([hit(0), hit(1), hit(2)]);
    let by_slo = pick([att(0), att(1), att(2)]);
    let (rr, lo) = (att(0), att(1));
    // requests the affinity router sent elsewhere because their replica was over the load cap
    let over_cap = r[2].router.as_ref().map_or(0.0, |x| x.over_cap as f64);
    let sentences = say(&[
        ("affinity_best", by_slo == 2),
        ("balance_best", by_slo == 0 || by_slo == 1),
        ("all_same", by_slo == 3),
        ("hits_kept", hit(2) > hit(0) + 0.2 && hit(2) > hit(1) + 0.2),
        ("evictions", evicted(0) > 10.0 * evicted(2).max(1.0) && evicted(1) > 10.0 * evicted(2).max(1.0)),
        ("ttft_falls", Metric::TTFT_P99.of(&r[2]) < 0.5 * Metric::TTFT_P99.of(&r[0])),
        ("balancing_no_help", lo < rr + SAME),
        ("spills", over_cap > 0.0),
        ("less_even", Metric::RouterImbalance.of(&r[2]) > Metric::RouterImbalance.of(&r[0])),
        ("more_good_tokens", GOODPUT.of(&r[2]) > GOODPUT.of(&r[0])),
        ("where", true),
    ]);
    let quotes = [
        ("attainment_round_robin", 0, Metric::SloAttainment, 1.0),
        ("attainment_least", 1, Metric::SloAttainment, 1.0),
        ("attainment_affinity", 2, Metric::SloAttainment, 1.0),
        ("hit_rate_round_robin", 0, Metric::PrefixHitRate, 1.0),
        ("hit_rate_least", 1, Metric::PrefixHitRate, 1.0),
        ("hit_rate_affinity", 2, Metric::PrefixHitRate, 1.0),
        ("evicted_round_robin", 0, Metric::PrefixEvictedBlocks, 1.0),
        ("evicted_affinity", 2, Metric::PrefixEvictedBlocks, 1.0),
        ("ttft_p99_round_robin_ms", 0, Metric::TTFT_P99, 1.0),
        ("ttft_p99_affinity_ms", 2, Metric::TTFT_P99, 1.0),
        ("imbalance_round_robin", 0, Metric::RouterImbalance, 1.0),
        ("imbalance_affinity", 2, Metric::RouterImbalance, 1.0),
        ("goodput_round_robin", 0, GOODPUT, 1.0),
        ("goodput_affinity", 2, GOODPUT, 1.0),
    ];
    let numbers = quote(r, &quotes, &[("over_cap", over_cap), ("conversations", CONVERSATIONS as f64)]);
    Outcome { answer, numbers, sentences }
}

pub(super) const LESSON: Lesson = Lesson {
    id: "routing",
    choices: 4,
    taught: 2,
    highlight: Metric::PrefixHitRate,
    focus_class: None,
    sentences: SENTENCES,
    runs,
    watch: &[0, 2],
    outcome,
};
