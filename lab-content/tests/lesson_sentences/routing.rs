//! Sentence checks and reachability for `routing`, read from the summaries (runs: round robin,
//! least outstanding, prefix affinity, over four replicas).

use super::quoted;
use lab_content::lessons::Outcome;
use sim_core::cluster::Policy;
use sim_core::metrics::Summary;
use sim_core::scenario::Arrival;

fn attainment(s: &Summary) -> f64 {
    s.all.goodput.slo_attainment
}

fn hits(s: &Summary) -> f64 {
    s.all.prefix_cache.map_or(0.0, |p| p.hit_rate)
}

fn evicted(s: &Summary) -> f64 {
    s.all.prefix_cache.map_or(0.0, |p| p.evicted_blocks as f64)
}

pub fn check(sentence: &str, s: &[Summary], o: &Outcome) -> Option<bool> {
    let (rr, lo, aff) = (&s[0], &s[1], &s[2]);
    let policies = [rr, lo, aff].map(|r| r.router.as_ref().map(|x| x.policy.clone()));
    let right_runs = policies
        == [Policy::RoundRobin, Policy::LeastOutstanding, Policy::PrefixAffinity].map(|p| Some(p.name().to_string()));
    let (a, b, c) = (attainment(rr), attainment(lo), attainment(aff));
    let q = right_runs
        && quoted(o, "attainment_round_robin", a)
        && quoted(o, "attainment_least", b)
        && quoted(o, "attainment_affinity", c);
    let spread = a.max(b).max(c) - a.min(b).min(c);
    Some(match sentence {
        "affinity_best" => q && spread >= 0.05 && c >= a && c >= b,
        "balance_best" => q && spread >= 0.05 && (a > c || b > c),
        "all_same" => q && spread < 0.05,
        "hits_kept" => {
            quoted(o, "hit_rate_affinity", hits(aff)) && hits(aff) > hits(rr) + 0.2 && hits(aff) > hits(lo) + 0.2
        }
        "evictions" => {
            quoted(o, "evicted_round_robin", evicted(rr))
                && evicted(rr) > 10.0 * evicted(aff).max(1.0)
                && evicted(lo) > 10.0 * evicted(aff).max(1.0)
        }
        "ttft_falls" => aff.all.ttft_ms.p99 < 0.5 * rr.all.ttft_ms.p99,
        "balancing_no_help" => q && b < a + 0.05,
        "spills" => aff.router.as_ref().is_some_and(|r| r.over_cap > 0 && quoted(o, "over_cap", r.over_cap as f64)),
        "less_even" => aff.router.as_ref().zip(rr.router.as_ref()).is_some_and(|(x, y)| x.imbalance > y.imbalance),
        "more_good_tokens" => {
            quoted(o, "goodput_affinity", aff.all.goodput.output_tokens_per_s)
                && aff.all.goodput.output_tokens_per_s > rr.all.goodput.output_tokens_per_s
        }
        // names where the SLO gain stops (`llmsim lesson routing --neighbours`)
        "where" => true,
        _ => return None,
    })
}

#[test]
fn routing_the_hit_rate_picks_the_router() {
    // 2: the lesson as it is
    assert_eq!(super::answer("routing", 7, |_, _| {}), 2);
    // 2 still with light traffic: every router meets the SLO, affinity still keeps the history
    let light = |_: usize, s: &mut sim_core::Scenario| {
        s.classes[0].arrival = Arrival::Poisson { rate_per_s: 1.0 };
    };
    assert_eq!(super::answer("routing", 7, light), 2);
    // 3: no prefix caching, nothing to find
    let off = |_: usize, s: &mut sim_core::Scenario| s.scheduler.prefix_caching = false;
    assert_eq!(super::answer("routing", 7, off), 3);
}

/// The rule on made-up runs: the best hit rate picks the router, unless all three are within 5
/// points of each other. (On the lesson's traffic no simple change makes round robin or least
/// outstanding keep more history.)
#[test]
fn routing_the_best_hit_rate_picks_the_router() {
    let lesson = lab_content::lessons::find("routing").unwrap();
    let runs = |h: [f64; 3]| {
        h.map(|x| {
            let mut s = Summary::default();
            s.all.prefix_cache =
                Some(sim_core::metrics::PrefixCache { hit_rate: x, cached_tokens: 0, evicted_blocks: 0 });
            s
        })
    };
    let answer = |h| (lesson.outcome)(&runs(h)).answer;
    assert_eq!(answer([0.9, 0.5, 0.6]), 0);
    assert_eq!(answer([0.5, 0.9, 0.6]), 1);
    assert_eq!(answer([0.5, 0.6, 0.9]), 2);
    assert_eq!(answer([0.9, 0.92, 0.94]), 3);
}
