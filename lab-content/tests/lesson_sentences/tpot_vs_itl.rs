//! Lesson `tpot-vs-itl`: each sentence checked against the run's summary.

use lab_content::lessons::Outcome;
use sim_core::metrics::Summary;
use sim_core::scenario::Arrival;

pub fn check(sentence: &str, sums: &[Summary], o: &Outcome) -> Option<bool> {
    let a = &sums[0].all;
    let (itl, tpot) = (&a.itl_ms, &a.tpot_ms);
    let quoted = |name: &str, v: f64| o.numbers.get(name).is_some_and(|q| *q == v);
    let ratio = itl.p99 / tpot.p99;
    let nums = quoted("itl_p99_ms", itl.p99) && quoted("tpot_p99_ms", tpot.p99) && quoted("ratio", ratio);
    Some(match sentence {
        "itl_far" => nums && ratio >= 2.5,
        "itl_some" => nums && (1.5..2.5).contains(&ratio),
        "itl_same" => nums && ratio < 1.5,
        "typical_gap" => quoted("itl_p50_ms", itl.p50) && (itl.p50 - tpot.mean).abs() <= 0.2 * tpot.mean,
        "no_request_that_slow" => quoted("tpot_max_ms", tpot.max) && tpot.max < itl.p99,
        "worst_gap" => quoted("itl_max_ms", itl.max) && itl.max >= 2.0 * itl.p99 && a.requests.preempted == 0,
        "itl_pools" => ratio >= 1.5,
        _ => return None,
    })
}

/// Small prefill chunks (384 tokens a step) remove the stalls (choice 0); at 2 requests/s fewer
/// gaps land on a prefill step (choice 1); the lesson's own run is choice 2.
#[test]
fn tpot_vs_itl_every_choice_is_reachable() {
    let answer = |seed, change: &dyn Fn(&mut sim_core::Scenario)| {
        super::answer("tpot-vs-itl", seed, |i, s| {
            if i == 0 {
                change(s)
            }
        })
    };
    for seed in [1, 7] {
        assert_eq!(answer(seed, &|_| {}), 2);
        assert_eq!(answer(seed, &|s| s.scheduler.max_num_batched_tokens = 384), 0);
        assert_eq!(answer(seed, &|s| s.classes[0].arrival = Arrival::Poisson { rate_per_s: 2.0 }), 1);
    }
}
