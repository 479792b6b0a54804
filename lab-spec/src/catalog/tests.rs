use super::gpus::GIB;
use super::*;
use csv::csv_rows;

#[path = "csv.rs"]
mod csv;

#[test]
fn kv_bytes_per_token_match_reference_table() {
    // models.csv column kv_bytes_per_token_fp16_computed
    let expect = [
        ("llama-2-7b", 524288.0),
        ("llama-2-13b", 819200.0),
        ("llama-2-70b", 327680.0),
        ("llama-3-8b", 131072.0),
        ("mistral-7b", 131072.0),
        ("qwen2.5-7b", 57344.0),
        ("qwen2.5-72b", 327680.0),
        ("mixtral-8x7b", 131072.0),
        ("qwen3-32b", 262144.0),
    ];
    for (id, bytes) in expect {
        let m = find_model(id).unwrap();
        let kv = 2.0 * m.num_layers as f64 * m.num_kv_heads as f64 * m.head_dim as f64 * 2.0;
        assert_eq!(kv, bytes, "{id}");
    }
}

#[test]
fn mixtral_expert_split_reproduces_active_params() {
    let m = find_model("mixtral-8x7b").unwrap();
    let active = m.shared_linear_params() + m.embedding_params() + m.expert_params() * 2.0 / 8.0;
    assert!((active - m.params_active).abs() / m.params_active < 1e-9);
    assert!(m.expert_params() > 40e9 && m.expert_params() < 50e9);
    assert!(!find_model("llama-3-8b").unwrap().is_moe());
}

#[test]
fn llama2_7b_non_embedding_params_match_published_6_48b() {
    let m = find_model("llama-2-7b").unwrap();
    let ne = m.shared_linear_params();
    assert!((ne / 1e9 - 6.48).abs() < 0.01, "{ne}");
}

#[test]
fn every_catalogue_row_is_in_the_sourced_csv() {
    // lab-spec/data/{models,gpus}.csv: the project's copy of shared/reference with a source per
    // row and the lab's id
    let rows = csv_rows(include_str!("../../data/models.csv"));
    let num = |r: &std::collections::HashMap<String, String>, k: &str| -> f64 {
        r[k].trim_end_matches('B').parse().unwrap_or(0.0)
    };
    for m in models() {
        let r = rows.iter().find(|r| r["lab_id"] == m.id).unwrap_or_else(|| panic!("{} has no CSV row", m.id));
        assert_eq!(num(r, "num_layers"), m.num_layers as f64, "{}", m.id);
        assert_eq!(num(r, "hidden_size"), m.hidden_size as f64, "{}", m.id);
        assert_eq!(num(r, "num_attention_heads"), m.num_attention_heads as f64, "{}", m.id);
        assert_eq!(num(r, "vocab_size"), m.vocab_size as f64, "{}", m.id);
        // Qwen2.5's row gives its YaRN context (131072); the lab keeps the native 32768
        if !m.id.starts_with("qwen2.5") {
            assert_eq!(num(r, "max_context"), m.max_context as f64, "{}", m.id);
        }
        assert_eq!(num(r, "kv_lora_rank"), m.kv_lora_rank as f64, "{}", m.id);
        assert_eq!(num(r, "sliding_window"), m.sliding_window as f64, "{}", m.id);
        assert_eq!(num(r, "sliding_window_layers"), m.sliding_window_layers as f64, "{}", m.id);
        assert_eq!(num(r, "linear_attn_layers"), m.linear_attn_layers as f64, "{}", m.id);
        assert_eq!(num(r, "linear_state_bytes_per_layer"), m.linear_state_bytes, "{}", m.id);
        let form = format!("{:?}", m.attention_form()).to_uppercase();
        assert_eq!(r["attention_form"], form, "{}", m.id);
        if !r["params_total_computed"].is_empty() {
            assert!((num(r, "params_total_computed") - m.params_total / 1e9).abs() < 0.006, "{}", m.id);
            assert!((num(r, "params_active_computed") - m.params_active / 1e9).abs() < 0.006, "{}", m.id);
        }
        assert!(!r["config_source"].is_empty(), "{}", m.id);
    }
    let rows = csv_rows(include_str!("../../data/gpus.csv"));
    for g in gpus() {
        let r = rows.iter().find(|r| r["lab_id"] == g.id).unwrap_or_else(|| panic!("{} has no CSV row", g.id));
        // the leading number of a field; older rows keep free text where no figure was sourced
        let new_row = ["b200", "b300", "gb200", "h20", "mi325x"].contains(&g.id.as_str());
        let check = |k: &str, scale: f64, want: f64| {
            let lead: String = r[k].chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
            match lead.parse::<f64>() {
                Ok(x) => assert!((x * scale - want).abs() <= want * 1e-12, "{} {k}: {x}", g.id),
                Err(_) => assert!(!new_row, "{} {k}: {:?}", g.id, r[k]),
            }
        };
        check("hbm_capacity_GB", GIB, g.hbm_bytes);
        check("mem_bandwidth_TBps", 1e12, g.mem_bandwidth);
        check("bf16_fp16_dense_TFLOPS", 1e12, g.bf16_flops);
        check("gpu_interconnect_GBps_bidir", 0.5e9, g.interconnect_bw);
        if let Some(f) = g.fp8_flops {
            check("fp8_dense_TFLOPS", 1e12, f);
        }
        if let Some(f) = g.fp4_flops {
            check("fp4_dense_TFLOPS", 1e12, f);
        }
        assert!(!r["spec_source"].is_empty(), "{}", g.id);
        assert!(!new_row || !r["price_sources"].is_empty(), "{}: a price source or the assumption", g.id);
    }
}

#[test]
fn ids_are_unique_and_lower_case() {
    let mut ids: Vec<String> = gpus().into_iter().map(|g| g.id).chain(models().into_iter().map(|m| m.id)).collect();
    for id in &ids {
        assert_eq!(id, &id.to_lowercase());
    }
    let n = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), n);
}
