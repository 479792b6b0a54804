//! Sentence checks and reachability for `mixed-traffic`, read from the summaries (runs: one
//! shared queue, priority scheduling, chat alone on a GPU, documents alone on a GPU).

use super::quoted;
use lab_content::lessons::Outcome;
use sim_core::metrics::{ClassSummary, Summary};
use sim_core::scenario::Arrival;

fn chat(s: &Summary) -> &ClassSummary {
    &s.classes["chat"]
}

fn docs(s: &Summary) -> &ClassSummary {
    &s.classes["batch"]
}

pub fn check(sentence: &str, s: &[Summary], o: &Outcome) -> Option<bool> {
    let (sh, pr, own, dgpu) = (&s[0], &s[1], &s[2], &s[3]);
    let (a, b) = (chat(sh).ttft_ms.p99, chat(pr).ttft_ms.p99);
    let q = quoted(o, "chat_ttft_p99_shared_ms", a) && quoted(o, "chat_ttft_p99_priority_ms", b);
    Some(match sentence {
        "chat_drops" => q && b < 0.8 * a && chat(pr).goodput.slo_attainment >= chat(sh).goodput.slo_attainment,
        "chat_rises" => q && b > 1.25 * a,
        "chat_same" => q && (0.8 * a..=1.25 * a).contains(&b),
        "within_target" => b <= 800.0,
        "above_target" => b > 800.0,
        "all_tail" => {
            // all traffic's tail moved by a much smaller factor than chat's, and at its top are
            // the documents
            pr.all.ttft_ms.p99 / sh.all.ttft_ms.p99 > 1.5 * b / a && docs(pr).ttft_ms.p99 > b
        }
        "documents_on_time" => docs(pr).goodput.slo_attainment >= 0.99,
        "own_gpu" => {
            own.classes.len() == 1 && chat(own).ttft_ms.p99 < b && chat(own).tpot_ms.p99 < chat(pr).tpot_ms.p99
        }
        "two_gpus_cost" => {
            let usd = (own.cost.usd_per_hour * own.duration_s + dgpu.cost.usd_per_hour * dgpu.duration_s) / 3600.0;
            let good = own.all.goodput.output_tokens_per_s * own.duration_s
                + dgpu.all.goodput.output_tokens_per_s * dgpu.duration_s;
            usd / good * 1e6 > pr.cost.usd_per_million_good_tokens
        }
        "all_fit" => s.iter().all(|r| r.classes.get("batch").is_none_or(|d| d.requests.rejected == 0)),
        "some_rejected" => docs(sh).requests.rejected > 0,
        // where it stops holding: the neighbours test runs it (`lessons::LIMITS`)
        "where" => true,
        _ => return None,
    })
}

#[test]
fn mixed_traffic_every_choice_is_reachable() {
    // 0: the lesson as it is
    assert_eq!(super::answer("mixed-traffic", 7, |_, _| {}), 0);
    // 1: documents first (the try step): chat now waits behind every document
    let documents_first = |i: usize, s: &mut sim_core::Scenario| {
        if i == 1 {
            s.classes[0].priority = 1;
            s.classes[1].priority = 0;
        }
    };
    assert_eq!(super::answer("mixed-traffic", 7, documents_first), 1);
    // 2: almost no documents: nothing stands in chat's way, so there is nothing to reorder
    let few_documents = |_: usize, s: &mut sim_core::Scenario| {
        if let Some(d) = s.classes.iter_mut().find(|c| c.name == "batch") {
            d.arrival = Arrival::Poisson { rate_per_s: 0.1 };
            d.num_requests = Some(2);
        }
    };
    assert_eq!(super::answer("mixed-traffic", 7, few_documents), 2);
}
