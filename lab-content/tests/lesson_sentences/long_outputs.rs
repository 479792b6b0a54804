//! Sentence checks and reachability for `long-outputs`, read from the summaries (runs: answers
//! of about 300 tokens and of about 4,000, at the same 2 req/s).

use super::quoted;
use lab_content::lessons::Outcome;
use sim_core::metrics::Summary;
use sim_core::scenario::Arrival;
use sim_core::Scenario;

const SLO_TTFT: f64 = 500.0;
const SLO_TPOT: f64 = 50.0;

/// Output tokens per completed request.
fn answer_tokens(s: &Summary) -> f64 {
    s.all.throughput.output_tokens_per_s / s.all.throughput.requests_per_s
}

pub fn check(sentence: &str, s: &[Summary], o: &Outcome) -> Option<bool> {
    let (short, long) = (&s[0], &s[1]);
    // the long run is the one with the long answers, at the short run's arrivals
    let shape =
        answer_tokens(long) > 5.0 * answer_tokens(short) && long.all.requests.arrived == short.all.requests.arrived;
    let ttft = long.all.ttft_ms.p99;
    let late = shape && quoted(o, "ttft_p99_long_ms", ttft) && ttft > SLO_TTFT;
    let growth = answer_tokens(long) / answer_tokens(short);
    let tpot = long.all.tpot_ms.p50;
    let kv_full = long.memory.kv_peak_bytes >= 0.9 * long.memory.kv_capacity_bytes;
    Some(match sentence {
        "ttft_breaks" => late && quoted(o, "attainment_long", long.all.goodput.slo_attainment),
        "on_time" => shape && quoted(o, "ttft_p99_long_ms", ttft) && ttft <= SLO_TTFT,
        "tpot_fine" => quoted(o, "tpot_p50_long_ms", tpot) && tpot <= SLO_TPOT,
        "tpot_slow" => quoted(o, "tpot_p50_long_ms", tpot) && tpot > SLO_TPOT,
        // the pool was (nearly) full at its peak, with many more sequences than the short answers held
        "kv_bound" => {
            late && kv_full
                && quoted(o, "peak_running_long", long.memory.peak_running as f64)
                && quoted(o, "kv_capacity_tokens", long.memory.kv_capacity_tokens as f64)
                && long.memory.peak_running > short.memory.peak_running
        }
        // Little's law: arrivals/s × the time an answer takes to decode is more than ran at once
        "littles_law" => {
            let answer_s = answer_tokens(long) * tpot / 1000.0;
            let need = short.all.throughput.requests_per_s * answer_s;
            late && kv_full
                && quoted(o, "answer_s", answer_s)
                && quoted(o, "needed", need.round())
                && need > long.memory.peak_running as f64
        }
        "preempted" => {
            quoted(o, "preempted_long", long.all.requests.preempted as f64) && long.all.requests.preempted > 0
        }
        "e2e" => {
            let g = long.all.e2e_ms.p99 / short.all.e2e_ms.p99;
            quoted(o, "e2e_growth", g) && quoted(o, "length_growth", growth) && g > 2.0 * growth
        }
        _ => return None,
    })
}

#[test]
fn long_outputs_every_choice_is_reachable() {
    let answer = |seed, change: &dyn Fn(usize, &mut Scenario)| super::answer("long-outputs", seed, change);
    let rate = |s: &mut Scenario, r: f64| s.classes[0].arrival = Arrival::Poisson { rate_per_s: r };
    for seed in [1, 7] {
        assert_eq!(answer(seed, &|_, _| {}), 2, "as taught");
        // a tenth of the traffic: the long answers fit in the pool
        assert_eq!(answer(seed, &|_, s| rate(s, 0.2)), 0);
        // a slow engine (60 ms a step) at that light traffic: first tokens on time, every next one late
        assert_eq!(
            answer(seed, &|_, s| {
                rate(s, 0.2);
                s.engine.iteration_overhead_ms = 60.0;
            }),
            1
        );
        // the slow engine at the lesson's traffic: both
        assert_eq!(answer(seed, &|_, s| s.engine.iteration_overhead_ms = 60.0), 3);
    }
}
