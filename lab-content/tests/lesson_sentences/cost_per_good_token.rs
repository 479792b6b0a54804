//! Sentence checks and reachability for `cost-per-good-token`, read from the summaries (runs:
//! each GPU at its four loads, in the order of `COST_GPUS`).

use lab_content::lessons::COST_GPUS;

/// The share of requests on time that counts as served within the SLO.
const WITHIN_SLO: f64 = 0.99;
use super::quoted;
use lab_content::lessons::Outcome;
use sim_core::metrics::Summary;

/// For each GPU: the load (req/s) and the summary it is judged at — the highest load whose SLO
/// attainment is at least 99%, or the lowest load when none is.
fn judged(s: &[Summary]) -> Vec<(f64, bool, &Summary)> {
    COST_GPUS
        .iter()
        .enumerate()
        .map(|(gi, g)| {
            let runs = &s[gi * 4..gi * 4 + 4];
            let within: Vec<usize> = (0..4).filter(|&i| runs[i].all.goodput.slo_attainment >= WITHIN_SLO).collect();
            let i = within.last().copied().unwrap_or(0);
            (g.rates[i], !within.is_empty(), &runs[i])
        })
        .collect()
}

fn cheapest(j: &[(f64, bool, &Summary)]) -> usize {
    let cost = |i: usize| j[i].2.cost.usd_per_million_good_tokens;
    (0..3).fold(0, |b, i| if cost(i) < cost(b) { i } else { b })
}

pub fn check(sentence: &str, s: &[Summary], o: &Outcome) -> Option<bool> {
    let j = judged(s);
    let rates = quoted(o, "rate_l40s", j[0].0) && quoted(o, "rate_a100", j[1].0) && quoted(o, "rate_h100", j[2].0);
    Some(match sentence {
        "capacities" => rates && j.iter().all(|g| g.1),
        "below_slo" => rates && j.iter().any(|g| !g.1),
        "costs" => {
            quoted(o, "usd_per_m_good_l40s", j[0].2.cost.usd_per_million_good_tokens)
                && quoted(o, "usd_per_m_good_a100", j[1].2.cost.usd_per_million_good_tokens)
                && quoted(o, "usd_per_m_good_h100", j[2].2.cost.usd_per_million_good_tokens)
        }
        "h100_cheapest" => {
            cheapest(&j) == 2
                && j[2].2.cost.usd_per_hour > j[0].2.cost.usd_per_hour
                && j[2].0 / j[0].0 > j[2].2.cost.usd_per_hour / j[0].2.cost.usd_per_hour
        }
        "l40s_cheapest" => cheapest(&j) == 0 && j[0].2.cost.usd_per_hour < j[2].2.cost.usd_per_hour,
        "a100_cheapest" => cheapest(&j) == 1,
        "a100_least" => j[1].0 < j[0].0 && j[1].0 < j[2].0,
        // names where the lesson stops holding (`llmsim lesson … --neighbours`): no number of the runs
        "where" => true,
        _ => return None,
    })
}

#[test]
fn cost_per_good_token_every_choice_is_reachable() {
    use sim_core::scenario::Arrival;
    // 2: the lesson as it is
    assert_eq!(super::answer("cost-per-good-token", 7, |_, _| {}), 2);
    // 0: every GPU at the same light load (the try step): all serve it, the cheapest hour wins
    assert_eq!(
        super::answer("cost-per-good-token", 7, |_, s| s.classes[0].arrival = Arrival::Poisson { rate_per_s: 4.0 }),
        0
    );
    // 1: a much cheaper A100 hour
    assert_eq!(
        super::answer("cost-per-good-token", 7, |i, s| if i / 4 == 1 {
            s.gpu_usd_per_hour = Some(0.2)
        }),
        1
    );
}
