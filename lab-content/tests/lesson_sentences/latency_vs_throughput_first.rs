//! Sentence checks and reachability for `latency-vs-throughput-first`, read from the summaries
//! (runs: the small batch with admission control, the big batch, the big batch with admission
//! control, at 18 req/s and then at 40 req/s).

use lab_content::lessons::Outcome;
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

fn tie(a: &Summary, b: &Summary) -> bool {
    good(a) <= 1.05 * good(b) && good(b) <= 1.05 * good(a)
}

pub fn check(sentence: &str, s: &[Summary], o: &Outcome) -> Option<bool> {
    let (sb, bb, ab, so, bo, ao) = (&s[0], &s[1], &s[2], &s[3], &s[4], &s[5]);
    let quoted_busy = quotes(o, &[("goodput_adm_busy", good(ab)), ("goodput_big_busy", good(bb))]);
    let quoted_over = quotes(o, &[("goodput_adm_over", good(ao)), ("goodput_big_over", good(bo))]);
    Some(match sentence {
        "busy_tie" => quoted_busy && tie(ab, bb),
        "busy_admission_wins" => quoted_busy && good(ab) > 1.05 * good(bb),
        "busy_admission_loses" => quoted_busy && good(bb) > 1.05 * good(ab),
        "over_admission_wins" => {
            quoted_over
                && good(ao) > 1.05 * good(bo)
                && ao.cost.usd_per_million_good_tokens < bo.cost.usd_per_million_good_tokens
        }
        "over_tie" => quoted_over && tie(ao, bo),
        "over_admission_loses" => quoted_over && good(bo) > 1.05 * good(ao),
        "over_queue" => {
            // no deadline, TTFT past the 500 ms target, and not every request good
            bo.all.requests.timed_out == 0
                && bo.all.ttft_ms.p99 > 500.0
                && bo.all.goodput.slo_attainment < 1.0
                && good(bo) < bo.all.throughput.output_tokens_per_s
        }
        "over_shed" => {
            let served = ao.all.requests.completed as f64;
            let on_time = ao.all.goodput.requests_per_s * ao.duration_s;
            turned_away(&ao.all) > 0 && served > 0.0 && on_time / served >= 0.99
        }
        "small_batch_loss" => {
            quotes(o, &[("goodput_small_busy", good(sb)), ("goodput_small_over", good(so))])
                && 1.05 * good(sb) < good(ab)
                && 1.05 * good(so) < good(ao)
        }
        // names a neighbour the runs do not hold (checked by `llmsim lesson … --neighbours`)
        "where" => true,
        _ => return None,
    })
}

#[test]
fn latency_vs_throughput_first_every_choice_is_reachable() {
    let id = "latency-vs-throughput-first";
    // 2: the lesson as it is
    assert_eq!(super::answer(id, 7, |_, _| {}), 2);
    // 3: a second load the big batch still serves on time (22 instead of 40 req/s): the deadline
    // never fires and the two big batches tie at both loads
    let within = |i: usize, s: &mut sim_core::Scenario| {
        if i >= 3 {
            s.classes[0].arrival = Arrival::Poisson { rate_per_s: 22.0 };
        }
    };
    assert_eq!(super::answer(id, 7, within), 3);
    // 1: both loads within capacity (18 and 22 req/s) and a deadline shorter than a prompt's
    // prefill under load (20 ms): it drops requests the big batch alone serves on time
    let tight = |i: usize, s: &mut sim_core::Scenario| {
        within(i, s);
        if i % 3 == 2 {
            s.scheduler.queue_timeout_ms = Some(20.0);
        }
    };
    assert_eq!(super::answer(id, 7, tight), 1);
    // 0: a TPOT target the big batch's step cannot meet (16 ms): only the small batch serves in time
    let strict = |_: usize, s: &mut sim_core::Scenario| s.classes[0].slo.tpot_ms = Some(16.0);
    assert_eq!(super::answer(id, 7, strict), 0);
}
