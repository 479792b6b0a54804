//! Lesson `mean-hides-tail`: each sentence checked against the run's summary.

use lab_content::lessons::{find, Outcome};
use sim_core::metrics::Summary;
use sim_core::scenario::Arrival;

const SLO_TTFT_MS: f64 = 500.0;

pub fn check(sentence: &str, sums: &[Summary], o: &Outcome) -> Option<bool> {
    let a = &sums[0].all;
    let t = &a.ttft_ms;
    let quoted = |name: &str, v: f64| o.numbers.get(name).is_some_and(|q| *q == v);
    let numbers = quoted("ttft_mean_ms", t.mean) && quoted("ttft_p99_ms", t.p99) && quoted("slo_ttft_ms", SLO_TTFT_MS);
    let r = &a.requests;
    Some(match sentence {
        "mean_under_p99_over" => numbers && t.mean <= SLO_TTFT_MS && t.p99 > SLO_TTFT_MS,
        "both_under" => numbers && t.p99 <= SLO_TTFT_MS,
        "both_over" => numbers && t.mean > SLO_TTFT_MS,
        "median_below_mean" => quoted("ttft_p50_ms", t.p50) && t.p50 < t.mean,
        "tail_is_queue" => quoted("queue_p99_ms", a.queue_ms.p99) && a.queue_ms.p99 > a.prefill_ms.p99,
        "tail_is_prefill" => quoted("prefill_p99_ms", a.prefill_ms.p99) && a.queue_ms.p99 <= a.prefill_ms.p99,
        "tail_missed" => t.p99 > SLO_TTFT_MS && quoted("attainment", a.goodput.slo_attainment),
        "nobody_refused" => r.rejected == 0 && r.timed_out == 0,
        "overlong_rejected_one" => r.rejected == 1 && r.timed_out == 0,
        "overlong_rejected_many" => r.rejected > 1 && r.timed_out == 0 && quoted("rejected", r.rejected as f64),
        // names where the lesson stops holding (`llmsim lesson … --neighbours`): no number of the runs
        "where" => true,
        _ => return None,
    })
}

/// Steady arrivals at the same rate keep the p99 inside the SLO (choice 0); 40 requests/s push
/// the mean over it too (choice 2); the lesson's own run is choice 1.
#[test]
fn mean_hides_tail_every_choice_is_reachable() {
    let answer = |seed, change: &dyn Fn(&mut sim_core::Scenario)| {
        super::answer("mean-hides-tail", seed, |i, s| {
            if i == 0 {
                change(s)
            }
        })
    };
    for seed in [1, 7] {
        assert_eq!(answer(seed, &|_| {}), 1);
        assert_eq!(answer(seed, &|s| s.classes[0].arrival = Arrival::Poisson { rate_per_s: 12.0 }), 0);
        assert_eq!(answer(seed, &|s| s.classes[0].arrival = Arrival::Bursty { rate_per_s: 40.0, cv: 4.0 }), 2);
    }
}

/// The checks' SLO is the one the lesson's run is judged by.
#[test]
fn mean_hides_tail_checks_the_runs_slo() {
    let runs = find("mean-hides-tail").unwrap().scenarios(1);
    assert_eq!(runs[0].scenario.classes[0].slo.ttft_ms, Some(SLO_TTFT_MS));
}
