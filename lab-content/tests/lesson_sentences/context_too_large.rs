//! What the `context-too-large` sentences state, checked on the summaries: runs A (paged, 8k),
//! B (paged, 32k), C (contiguous, 32k) and D (paged, 32k, with long documents).

use lab_content::lessons::Outcome;
use sim_core::Summary;

const GIB: f64 = (1u64 << 30) as f64;
const LONG: f64 = 32768.0;

pub fn check(sentence: &str, s: &[Summary], o: &Outcome) -> Option<bool> {
    let n = |k: &str| o.numbers[k];
    let (a, b, c, d) = (&s[0].memory, &s[1].memory, &s[2].memory, &s[3]);
    let chat = |i: usize| &s[i].classes["chat"];
    let docs_done = d.classes["docs"].requests.completed;
    Some(match sentence {
        "same-concurrency" => {
            let (pa, pb) = (a.peak_running as f64, b.peak_running as f64);
            (pb - pa).abs() <= 0.2 * pa
                && a.kv_capacity_bytes == b.kv_capacity_bytes
                && b.kv_waste_mean < 0.05
                && n("peak_running_32k") == pb
        }
        "reservation-caps" => (b.peak_running as f64) < 0.5 * a.peak_running as f64 && b.kv_waste_mean > 0.5,
        "pool-shrinks" => b.kv_capacity_bytes < 0.9 * a.kv_capacity_bytes && b.activation_bytes > a.activation_bytes,
        "activations-by-budget" => {
            a.activation_bytes == b.activation_bytes && n("activation_8k_gib") == a.activation_bytes / GIB
        }
        "contiguous" => {
            (c.peak_running as f64) <= 0.5 * b.peak_running as f64
                && c.kv_waste_mean > 0.5
                && s[2].all.ttft_ms.p99 > s[1].all.ttft_ms.p99
                && n("peak_running_contiguous") == c.peak_running as f64
        }
        "long-sequence-kv" => {
            docs_done > 0
                && n("docs_completed") == docs_done as f64
                && (n("kv_full_seq_gib") - b.kv_bytes_per_token * LONG / GIB).abs() < 1e-9
                && n("full_seqs_in_pool") == (b.kv_capacity_tokens as f64 / LONG).floor()
        }
        "docs-slow-chat" => docs_done > 0 && chat(3).itl_ms.p99 > 1.2 * chat(1).itl_ms.p99,
        "docs-delay-chat" => docs_done > 0 && chat(3).ttft_ms.p99 > 1.2 * chat(1).ttft_ms.p99,
        _ => return None,
    })
}

#[test]
fn context_too_large_every_choice_is_reachable() {
    use sim_core::scenario::KvLayout;
    assert_eq!(
        super::answer("context-too-large", 7, |_, _| {}),
        0,
        "as taught: paged KV reserves nothing for the limit"
    );
    // runs A and B reserve the limit per request (the article's server)
    assert_eq!(
        super::answer("context-too-large", 7, |i, s| if i < 2 {
            s.scheduler.kv_layout = KvLayout::Contiguous
        }),
        1
    );
    // run B at Llama-3.1-8B's full 128k context without chunked prefill: a whole prompt must fit
    // one iteration, so the profile run (and the activation reserve) grows with the limit
    assert_eq!(
        super::answer("context-too-large", 7, |i, s| if i == 1 {
            s.scheduler.chunked_prefill = false;
            s.scheduler.max_model_len = 131072;
            s.scheduler.max_num_batched_tokens = 131072;
        }),
        2
    );
}
