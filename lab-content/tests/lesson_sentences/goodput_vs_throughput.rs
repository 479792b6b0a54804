//! Lesson `goodput-vs-throughput`: each sentence checked against the three runs' summaries.

use lab_content::lessons::{find, Outcome};
use sim_core::metrics::Summary;

const SLO_TTFT_MS: f64 = 300.0;
const SLO_TPOT_MS: f64 = 20.0;

pub fn check(sentence: &str, sums: &[Summary], o: &Outcome) -> Option<bool> {
    let (a, b, c) = (&sums[0].all, &sums[1].all, &sums[2].all);
    let quoted = |name: &str, v: f64| o.numbers.get(name).is_some_and(|q| (*q - v).abs() <= 1e-9 * v.abs().max(1.0));
    let good = |s: &sim_core::metrics::ClassSummary| s.goodput.output_tokens_per_s;
    let thr = |s: &sim_core::metrics::ClassSummary| s.throughput.output_tokens_per_s;
    let most = good(a).max(good(b)).max(good(c));
    Some(match sentence {
        "b_more_tokens_fewer_good" => {
            quoted("throughput_b", thr(b)) && quoted("goodput_b", good(b)) && thr(b) > thr(a) && good(b) < good(a)
        }
        "b_tpot_over" => {
            quoted("tpot_p99_b_ms", b.tpot_ms.p99)
                && b.tpot_ms.p99 > SLO_TPOT_MS
                && sums[1].memory.peak_running > sums[0].memory.peak_running
        }
        "c_beats_b" => quoted("gain_growth", good(c) / good(b)) && good(c) > good(b) && thr(c) < thr(b),
        "c_tpot_ok" => quoted("tpot_p99_c_ms", c.tpot_ms.p99) && c.tpot_ms.p99 <= SLO_TPOT_MS,
        "c_tpot_over" => {
            quoted("tpot_p99_c_ms", c.tpot_ms.p99)
                && c.tpot_ms.p99 > SLO_TPOT_MS
                && c.tpot_ms.p99 <= 1.1 * SLO_TPOT_MS
                && c.tpot_ms.p99 < b.tpot_ms.p99
        }
        "c_ttft_ok" => quoted("ttft_p99_c_ms", c.ttft_ms.p99) && c.ttft_ms.p99 <= SLO_TTFT_MS,
        "c_refused" => quoted("timed_out_c", c.requests.timed_out as f64) && c.requests.timed_out > 0,
        "c_survivors" => {
            let all = &c.ttft_ms_censored;
            quoted("ttft_p99_c_ms", c.ttft_ms.p99)
                && quoted("ttft_p99_all_c_ms", all.p99)
                && quoted("completed_c", c.requests.completed as f64)
                && quoted("unanswered_c", all.censored as f64)
                && quoted("arrived_c", c.requests.arrived as f64)
                && c.requests.timed_out > 0
                && all.censored >= c.requests.timed_out
                && all.count == c.requests.arrived
                && c.ttft_ms.count == c.requests.completed
                && all.censored * 100 > all.count
        }
        "c_beats_a" => good(c) == most && good(c) > good(a) && good(c) > good(b),
        "a_best" => good(a) == most,
        "b_best" => good(b) == most && good(b) > good(a),
        // names the neighbours the runs do not hold on (`llmsim lesson … --neighbours`)
        "where" => true,
        _ => return None,
    })
}

/// Relaxing the TPOT SLO to 50 ms lets run B's slower tokens count (choice 1); taking run C's
/// queue timeout away lets its queue make every request late (choice 0).
#[test]
fn goodput_vs_throughput_every_choice_is_reachable() {
    let answer =
        |seed, change: &dyn Fn(usize, &mut sim_core::Scenario)| super::answer("goodput-vs-throughput", seed, change);
    for seed in [1, 7] {
        assert_eq!(answer(seed, &|_, _| {}), 2);
        assert_eq!(answer(seed, &|_, s| s.classes[0].slo.tpot_ms = Some(50.0)), 1);
        assert_eq!(
            answer(seed, &|i, s| if i == 2 {
                s.scheduler.queue_timeout_ms = None
            }),
            0
        );
    }
}

/// The checks' SLO and run C's fix are the ones the lesson's runs have.
#[test]
fn goodput_vs_throughput_checks_the_runs_slo() {
    for r in find("goodput-vs-throughput").unwrap().scenarios(1) {
        let slo = &r.scenario.classes[0].slo;
        assert_eq!((slo.ttft_ms, slo.tpot_ms), (Some(SLO_TTFT_MS), Some(SLO_TPOT_MS)), "{}", r.variant);
    }
}
