//! Sentence checks and reachability for `disaggregation`, read from the summaries (runs at 24
//! req/s: four colocated replicas, 1P3D, 2P2D, 3P1D; at 8 req/s: colocated, 2P2D).

use super::quoted;
use lab_content::lessons::Outcome;
use sim_core::metrics::Summary;
use sim_core::scenario::{Arrival, LengthDist};
use sim_core::Scenario;

const SLO_TTFT: f64 = 1500.0;
const SLO_TPOT: f64 = 15.0;

fn goodput(s: &Summary) -> f64 {
    s.all.goodput.output_tokens_per_s
}

fn attainment(s: &Summary) -> f64 {
    s.all.goodput.slo_attainment
}

/// The run's prefill and decode pools, or `None` colocated.
fn pools(s: &Summary) -> Option<(u32, u32)> {
    s.disaggregation.as_ref().map(|d| (d.prefill_replicas, d.decode_replicas))
}

fn transfer_mean(s: &Summary) -> f64 {
    s.disaggregation.as_ref().map_or(0.0, |d| d.kv_transfer_ms.mean)
}

pub fn check(sentence: &str, s: &[Summary], o: &Outcome) -> Option<bool> {
    let (co, p1, p2, p3, light_co, light_p2) = (&s[0], &s[1], &s[2], &s[3], &s[4], &s[5]);
    // the runs are the layouts the lesson names, on four GPUs
    let shape = pools(co).is_none()
        && co.replicas.len() == 4
        && pools(p1) == Some((1, 3))
        && pools(p2) == Some((2, 2))
        && pools(p3) == Some((3, 1))
        && pools(light_co).is_none()
        && pools(light_p2) == Some((2, 2));
    let goods = [co, p1, p2, p3].map(goodput);
    let q = shape
        && quoted(o, "goodput_colocated", goods[0])
        && quoted(o, "goodput_1p3d", goods[1])
        && quoted(o, "goodput_2p2d", goods[2])
        && quoted(o, "goodput_3p1d", goods[3]);
    let best = |i: usize| goods.iter().enumerate().all(|(j, g)| j == i || goods[i] > *g);
    Some(match sentence {
        "split_best" => q && best(2),
        "colocated_best" => q && best(0),
        "other_best" => q && (best(1) || best(3)),
        "colocated_tpot" => {
            shape
                && quoted(o, "tpot_p99_colocated_ms", co.all.tpot_ms.p99)
                && quoted(o, "attainment_colocated", attainment(co))
                && quoted(o, "attainment_2p2d", attainment(p2))
                && co.all.tpot_ms.p99 > SLO_TPOT
                && attainment(co) < attainment(p2)
        }
        "balanced_meets" => {
            shape
                && quoted(o, "ttft_p99_2p2d_ms", p2.all.ttft_ms.p99)
                && quoted(o, "tpot_p99_2p2d_ms", p2.all.tpot_ms.p99)
                && quoted(o, "attainment_2p2d", attainment(p2))
                && p2.all.ttft_ms.p99 <= SLO_TTFT
                && p2.all.tpot_ms.p99 <= SLO_TPOT
                && attainment(p2) >= 0.95
        }
        "transfer_small" => {
            let d = p2.disaggregation.as_ref()?;
            shape
                && quoted(o, "kv_transfer_mean_ms", d.kv_transfer_ms.mean)
                && quoted(o, "kv_transfer_p99_ms", d.kv_transfer_ms.p99)
                && quoted(o, "ttft_p50_2p2d_ms", p2.all.ttft_ms.p50)
                && d.transfers > 0
                && d.kv_transfer_ms.mean < 0.1 * p2.all.ttft_ms.p50
        }
        "prefill_bound" => {
            shape
                && quoted(o, "ttft_p99_1p3d_ms", p1.all.ttft_ms.p99)
                && quoted(o, "attainment_1p3d", attainment(p1))
                && p1.all.ttft_ms.p99 > 10.0 * SLO_TTFT
                && attainment(p1) < 0.5
        }
        "decode_bound" => {
            shape
                && quoted(o, "tpot_p99_3p1d_ms", p3.all.tpot_ms.p99)
                && quoted(o, "attainment_3p1d", attainment(p3))
                && p3.all.tpot_ms.p99 > SLO_TPOT
                && attainment(p3) < 0.5
        }
        "light_colocated_sooner" => {
            shape
                && quoted(o, "ttft_p50_light_colocated_ms", light_co.all.ttft_ms.p50)
                && quoted(o, "ttft_p50_light_2p2d_ms", light_p2.all.ttft_ms.p50)
                && quoted(o, "kv_transfer_mean_light_ms", transfer_mean(light_p2))
                && quoted(o, "attainment_light_colocated", attainment(light_co))
                && quoted(o, "attainment_light_2p2d", attainment(light_p2))
                && attainment(light_co) >= 0.95
                && attainment(light_p2) >= 0.95
                && light_co.all.ttft_ms.p50 < light_p2.all.ttft_ms.p50
        }
        // names where the lesson stops holding (`llmsim lesson … --neighbours`): no number of the runs
        "where" => true,
        _ => return None,
    })
}

fn traffic(rate: f64, answer_tokens: f64) -> impl Fn(usize, &mut Scenario) {
    move |_, s| {
        s.classes[0].arrival = Arrival::Poisson { rate_per_s: rate };
        s.classes[0].output_tokens = Some(LengthDist::Lognormal { mean: answer_tokens, sigma: 0.5 });
    }
}

/// Every choice is reachable: the lesson as it is (2P2D); 8 req/s with a TTFT target of 100 ms
/// and none for TPOT (nothing fights, and a whole replica per prompt with no transfer serves the
/// first token sooner: colocated); 10 req/s with answers of 1,000 tokens (decode carries the
/// load: 1P3D); 40 req/s with answers of 10 tokens (prefill carries it: 3P1D).
#[test]
fn disaggregation_every_choice_is_reachable() {
    let light = |_: usize, s: &mut Scenario| {
        s.classes[0].arrival = Arrival::Poisson { rate_per_s: 8.0 };
        s.classes[0].slo.ttft_ms = Some(100.0);
        s.classes[0].slo.tpot_ms = None;
    };
    for seed in [1, 7] {
        assert_eq!(super::answer("disaggregation", seed, |_, _| {}), 2);
        assert_eq!(super::answer("disaggregation", seed, light), 0);
        assert_eq!(super::answer("disaggregation", seed, traffic(10.0, 1000.0)), 1);
        assert_eq!(super::answer("disaggregation", seed, traffic(40.0, 10.0)), 3);
    }
}
