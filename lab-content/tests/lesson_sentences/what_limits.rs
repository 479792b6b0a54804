//! Sentence checks and reachability for `what-limits`, read from the summaries (runs: the RAG
//! contract's traffic on one H100 at its memory-safe cap, then on two such replicas).

use super::quoted;
use lab_content::lessons::Outcome;
use sim_core::metrics::Summary;

/// The memory-safe cap of one H100 for 33,792-token sequences at memory share 0.9.
const CAP: u64 = 13;

pub fn check(sentence: &str, s: &[Summary], o: &Outcome) -> Option<bool> {
    let (one, two) = (&s[0], &s[1]);
    let m = &one.memory;
    let kv_share = m.kv_peak_bytes / m.kv_capacity_bytes;
    let a = &one.all;
    Some(match sentence {
        // the batch at its cap, the pool under half full, each token on time, the wait most of TTFT
        "cap" => {
            m.peak_running == CAP
                && kv_share < 0.5
                && a.requests.preempted == 0
                && a.tpot_ms.p50 <= 40.0
                && a.ttft_ms.p99 > 3000.0
                && a.queue_ms.p99 > 0.5 * a.ttft_ms.p99
                && quoted(o, "peak_running", m.peak_running as f64)
                && quoted(o, "queue_p99_ms", a.queue_ms.p99)
        }
        "memory" => kv_share >= 0.95 || a.requests.preempted > 0,
        "decode" => a.tpot_ms.p50 > 40.0,
        "prefill" => a.ttft_ms.p99 > 3000.0 && a.queue_ms.p99 <= 0.5 * a.ttft_ms.p99,
        "two" => {
            two.all.ttft_ms.p99 <= 3000.0
                && two.all.tpot_ms.p99 <= 40.0
                && two.all.goodput.slo_attainment >= 0.95
                && quoted(o, "attainment_two", two.all.goodput.slo_attainment)
        }
        // points at the planner; names where the diagnosis changes (checked by
        // `llmsim lesson what-limits --neighbours`)
        "planner" | "where" => true,
        _ => return None,
    })
}

#[test]
fn what_limits_every_choice_but_prefill_is_reachable() {
    use sim_core::scenario::ModelRef;
    // 2: the lesson as it is (the safe cap)
    assert_eq!(super::answer("what-limits", 7, |_, _| {}), 2);
    // 1: without the cap (vLLM's 1,024 sequences) the KV pool fills
    assert_eq!(super::answer("what-limits", 7, |_, s: &mut sim_core::Scenario| s.scheduler.max_num_seqs = 1024), 1);
    // 3: Llama-3.1-70B on four H100s keeps the cap but each token is too slow
    let big = |_: usize, s: &mut sim_core::Scenario| {
        s.model = ModelRef::Id("llama-3.1-70b".into());
        s.num_gpus = 4;
    };
    assert_eq!(super::answer("what-limits", 7, big), 3);
}
