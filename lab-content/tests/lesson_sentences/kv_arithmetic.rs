//! What the `kv-arithmetic` sentences state, checked on the summaries and the catalogue.

use lab_content::lessons::Outcome;
use sim_core::catalog::find_model;
use sim_core::Summary;

const GIB: f64 = (1u64 << 30) as f64;
/// 10 users × 2,048 tokens each.
const TOKENS: f64 = 10.0 * 2048.0;

fn near(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1e-9)
}

/// 2 (K, V) · layers · KV heads · head size · 2 bytes (bf16), from the catalogue.
fn bf16_bytes_per_token(id: &str) -> f64 {
    let m = find_model(id).unwrap();
    2.0 * m.num_layers as f64 * m.num_kv_heads as f64 * m.head_dim as f64 * 2.0
}

pub fn check(sentence: &str, s: &[Summary], o: &Outcome) -> Option<bool> {
    let n = |k: &str| o.numbers[k];
    let (gqa, mha) = (s[0].memory.kv_bytes_per_token, s[1].memory.kv_bytes_per_token);
    Some(match sentence {
        "per-token" => {
            gqa == bf16_bytes_per_token("llama-3-8b")
                && mha == bf16_bytes_per_token("llama-2-7b")
                && gqa == 2.0 * 32.0 * 8.0 * 128.0 * 2.0
                && n("kv_kib_per_token_gqa") == gqa / 1024.0
                && n("kv_kib_per_token_mha") == mha / 1024.0
        }
        "totals" => near(n("kv_gqa_gib"), gqa * TOKENS / GIB, 1e-9) && near(n("kv_mha_gib"), mha * TOKENS / GIB, 1e-9),
        "gauge-agrees" => {
            near(s[0].memory.kv_peak_bytes, gqa * TOKENS, 0.05)
                && near(s[1].memory.kv_peak_bytes, mha * TOKENS, 0.05)
                && n("kv_peak_gqa_gib") == s[0].memory.kv_peak_bytes / GIB
        }
        "article-overstates" => {
            let m = find_model("llama-3-8b").unwrap();
            let article = 2.0 * m.num_layers as f64 * m.hidden_size as f64 * 2.0 * TOKENS;
            near(n("kv_article_gib"), article / GIB, 1e-9)
                && article > 1.5 * gqa * TOKENS
                && m.num_attention_heads == 32
        }
        "article-right-without-gqa" => near(n("kv_article_gib"), mha * TOKENS / GIB, 0.05),
        _ => return None,
    })
}

#[test]
fn kv_arithmetic_every_choice_is_reachable() {
    let answer = |edit: &dyn Fn(&mut sim_core::Scenario)| super::answer("kv-arithmetic", 7, |_, s| edit(s));
    assert_eq!(answer(&|_| {}), 1, "as taught: Llama-3-8B in bf16");
    // a model with 4 KV heads (Qwen2.5-7B) and fp8 KV: about 0.5 GiB
    assert_eq!(
        answer(&|s| {
            if s.model.id() == "llama-3-8b" {
                s.model = sim_core::scenario::ModelRef::Id("qwen2.5-7b".into());
            }
            s.kv_dtype = Some(sim_core::catalog::Dtype::Fp8);
        }),
        0
    );
    // no grouped-query attention in run A either: about 10 GiB
    assert_eq!(
        answer(&|s| {
            s.model = sim_core::scenario::ModelRef::Id("llama-2-7b".into());
            s.scheduler.max_model_len = 4096;
        }),
        2
    );
}
