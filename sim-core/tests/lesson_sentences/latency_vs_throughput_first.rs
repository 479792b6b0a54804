//! Sentence checks and reachability for `latency-vs-throughput-first`, read from the summaries
//! (runs: latency-first and throughput-first at 18 req/s, then both at 32 req/s).

use sim_core::lessons::Outcome;
use sim_core::metrics::{ClassSummary, Summary};
use sim_core::scenario::Arrival;

fn good(s: &Summary) -> f64 {
    s.all.goodput.output_tokens_per_s
}

fn turned_away(c: &ClassSummary) -> u64 {
    c.requests.rejected + c.requests.timed_out
}

fn quotes(o: &Outcome, pairs: &[(&str, f64)]) -> bool {
    pairs.iter().all(|(k, v)| o.numbers.get(k).is_some_and(|n| (n - v).abs() <= 1e-9 * v.abs().max(1.0)))
}

pub fn check(sentence: &str, s: &[Summary], o: &Outcome) -> Option<bool> {
    let (lb, tb, lo, to) = (&s[0], &s[1], &s[2], &s[3]);
    let quoted_busy = quotes(o, &[("goodput_lat_busy", good(lb)), ("goodput_thr_busy", good(tb))]);
    let quoted_over = quotes(o, &[("goodput_lat_over", good(lo)), ("goodput_thr_over", good(to))]);
    Some(match sentence {
        "busy_throughput_wins" => {
            quoted_busy
                && good(tb) > 1.05 * good(lb)
                && tb.cost.usd_per_million_good_tokens < lb.cost.usd_per_million_good_tokens
        }
        "busy_latency_short" => {
            turned_away(&lb.all) > 0
                && lb.all.goodput.slo_attainment < tb.all.goodput.slo_attainment
                && quotes(o, &[("turned_away_lat_busy", turned_away(&lb.all) as f64)])
        }
        "busy_tie" => quoted_busy && good(lb) <= 1.05 * good(tb) && good(tb) <= 1.05 * good(lb),
        "busy_latency_wins" => quoted_busy && good(lb) > 1.05 * good(tb),
        "overload_latency_wins" => {
            quoted_over
                && good(lo) > 1.05 * good(to)
                && lo.cost.usd_per_million_good_tokens < to.cost.usd_per_million_good_tokens
        }
        "overload_tie" => quoted_over && good(lo) <= 1.05 * good(to) && good(to) <= 1.05 * good(lo),
        "overload_throughput_wins" => quoted_over && good(to) > 1.05 * good(lo),
        "overload_queue" => {
            // no timeout, TTFT past the 500 ms target, and not every request good
            to.all.requests.timed_out == 0
                && to.all.ttft_ms.p99 > 500.0
                && to.all.goodput.slo_attainment < 1.0
                && good(to) < to.all.throughput.output_tokens_per_s
        }
        "overload_shed" => {
            let served = lo.all.requests.completed as f64;
            let on_time = lo.all.goodput.requests_per_s * lo.duration_s;
            turned_away(&lo.all) > 0 && served > 0.0 && on_time / served >= 0.99
        }
        _ => return None,
    })
}

#[test]
fn latency_vs_throughput_first_every_choice_is_reachable() {
    // 2: the lesson as it is
    assert_eq!(super::answer("latency-vs-throughput-first", 7, |_, _| {}), 2);
    // 0: latency-first with the big batch too (only its queue limit and timeout differ): it ties
    // at the busy load and still wins past capacity
    let big_batch = |i: usize, s: &mut sim_core::Scenario| {
        if i.is_multiple_of(2) {
            (s.scheduler.max_num_seqs, s.scheduler.max_num_batched_tokens) = (256, 8192);
        }
    };
    assert_eq!(super::answer("latency-vs-throughput-first", 7, big_batch), 0);
    // 1: a second load the big batch still serves on time (22 instead of 32 req/s): nothing
    // needs turning away, and throughput-first wins at both loads
    let within = |i: usize, s: &mut sim_core::Scenario| {
        if i >= 2 {
            s.classes[0].arrival = Arrival::Poisson { rate_per_s: 22.0 };
        }
    };
    assert_eq!(super::answer("latency-vs-throughput-first", 7, within), 1);
}
