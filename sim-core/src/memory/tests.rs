use super::*;
use crate::catalog::{find_gpu, find_model, Dtype};
use crate::settings::Value;

/// vLLM's logged memory profile (llm-d-benchmark, config_explorer/empirical-vllm-memory-results.md):
/// `vllm serve` on one H100 (79.18 GiB), defaults there: max_num_batched_tokens 8192,
/// max_num_seqs 1024, gpu_memory_utilization 0.9.
fn vllm_h100(model: &str, tp: u32, dtype: Dtype) -> (Scenario, ModelSpec, GpuSpec) {
    let mut s = crate::presets::find("chat-latency-first").unwrap().scenario();
    s.num_gpus = tp;
    s.dtype = dtype;
    s.gpu_memory_utilization = 0.9;
    s.scheduler.max_num_batched_tokens = 8192;
    s.scheduler.max_num_seqs = 1024;
    s.scheduler.max_model_len = 16000;
    let mut gpu = find_gpu("h100-sxm").unwrap();
    gpu.hbm_bytes = 79.18 * GIB;
    (s, find_model(model).unwrap(), gpu)
}

fn gib(b: f64) -> f64 {
    b / GIB
}

#[test]
fn profile_peak_matches_vllm_logs() {
    // model, TP, logged peak activation (GiB per GPU)
    for (model, tp, dtype, logged) in [
        ("llama-3.1-8b", 1, Dtype::Bf16, 4.76),
        ("llama-3-70b", 2, Dtype::Fp8, 4.84),
        ("qwen3-32b", 1, Dtype::Bf16, 5.64),
    ] {
        let (s, m, _) = vllm_h100(model, tp, dtype);
        let peak = gib(activation_peak_per_gpu(&m, 8192, 1024, tp));
        assert!((peak - logged).abs() < 0.05 * logged, "{model}: {peak:.2} GiB, vLLM logged {logged}");
        assert_eq!(s.scheduler.max_num_seqs, 1024);
    }
}

#[test]
fn kv_pool_is_the_budget_less_weights_activations_and_non_torch() {
    // Llama-3.1-8B: 0.9 × 79.18 = 71.26 GiB budget − 14.99 weights − 4.76 activations − 0.13
    // non-torch = 51.38 GiB of KV cache in vLLM's log
    let (s, m, g) = vllm_h100("llama-3.1-8b", 1, Dtype::Bf16);
    let p = HbmPlan::new(&s, &m, &g).unwrap();
    assert!((gib(p.weights_bytes) - 14.99).abs() < 0.1, "{}", gib(p.weights_bytes));
    assert!((gib(p.activation_bytes) - (4.76 + 0.13)).abs() < 0.1, "{}", gib(p.activation_bytes));
    assert!((gib(p.kv_capacity_bytes) - 51.38).abs() < 0.2, "{}", gib(p.kv_capacity_bytes));
    // the headroom holds the CUDA context (0.61) and the graphs (0.4): 7.92 − 1.01 spare
    assert!((gib(p.headroom_bytes) - 7.918).abs() < 0.01);
    assert!((gib(p.runtime_bytes) - 1.01).abs() < 1e-9);
    let physical = p.kv_physical_tokens as f64 * p.kv_bytes_per_token;
    assert!((gib(physical) - (51.38 + 7.918 - 1.01)).abs() < 0.2, "{}", gib(physical));
    // two GPUs: NCCL's buffers inside the budget, the bigger context outside
    let (mut s2, m2, g2) = vllm_h100("llama-3-70b", 2, Dtype::Fp8);
    s2.scheduler.max_model_len = 8192;
    let p2 = HbmPlan::new(&s2, &m2, &g2).unwrap();
    assert!((gib(p2.runtime_bytes) / 2.0 - (1.54 + 0.4)).abs() < 1e-9);
    let act = gib(p2.activation_bytes) / 2.0;
    assert!((act - (4.84 + 0.55)).abs() < 0.2, "{act}");
}

#[test]
fn too_little_headroom_does_not_start() {
    let (mut s, m, g) = vllm_h100("llama-3.1-8b", 1, Dtype::Bf16);
    // 79.18 GiB: 1.01 GiB outside the budget needs 1 − util ≥ 1.28 %
    s.gpu_memory_utilization = 0.98;
    assert!(HbmPlan::new(&s, &m, &g).is_ok());
    s.gpu_memory_utilization = 0.99;
    let e = HbmPlan::new(&s, &m, &g).unwrap_err().to_string();
    assert!(e.contains("cannot start") && e.contains("gpu_memory_utilization ≤ 0.98"), "{e}");
    // another process holding memory: 0.95 leaves 3.96 GiB, 2.95 of it free for others
    s.gpu_memory_utilization = 0.95;
    s.other_process_gib = 2.9;
    let p = HbmPlan::new(&s, &m, &g).unwrap();
    assert!((gib(p.other_process_bytes) - 2.9).abs() < 1e-9);
    s.other_process_gib = 3.0;
    let e = HbmPlan::new(&s, &m, &g).unwrap_err().to_string();
    assert!(e.contains("other processes hold 3.00 GiB") && e.contains("other_process_gib ≤ 2.94"), "{e}");
}

#[test]
fn the_suggested_fix_is_the_smallest_that_fits() {
    // Llama-3-8B on one H100 at gpu_memory_utilization 0.2: the budget (16 GiB) barely
    // holds the weights
    let mut s = crate::presets::find("chat-latency-first").unwrap().scenario();
    s.gpu_memory_utilization = 0.2;
    let (m, g) = (s.model_spec().unwrap(), s.gpu_spec().unwrap());
    let e = HbmPlan::new(&s, &m, &g).unwrap_err().to_string();
    let found = fixes(&s);
    let util = found.iter().find(|f| f.setting == "gpu_memory_utilization").expect("a utilisation fits");
    let Value::Number(u) = util.value else { panic!("{util:?}") };
    assert_eq!(util.bound, Bound::AtLeast);
    assert!(u < 0.3, "the least utilisation that fits, not the most: {u}");
    let at = |u: f64| {
        let mut t = s.clone();
        t.gpu_memory_utilization = u;
        t
    };
    assert!(HbmPlan::new(&at(u), &m, &g).is_ok(), "{u} fits");
    assert!(HbmPlan::new(&at(u - 0.01), &m, &g).is_err(), "{} does not", u - 0.01);
    assert!(fixes(&at(u)).is_empty());
    assert!(e.contains(&format!("gpu_memory_utilization ≥ {}", crate::settings::fmt_num(u))), "{e}");
    assert!(!e.contains("0.95"), "{e}");
    // more GPUs: the fewest that fit
    let gpus = found.iter().find(|f| f.setting == "num_gpus").expect("more GPUs fit");
    assert_eq!(gpus.value, Value::Number(2.0));
    assert!(e.contains("num_gpus = 2"), "{e}");

    // a pool too small for max_model_len: the longest that fits, and one more does not
    let mut s = at(u - 0.01);
    s.scheduler.max_model_len = m.max_context;
    let found = fixes(&s);
    let len = found.iter().find(|f| f.setting == "max_model_len").expect("a shorter limit fits");
    let Value::Number(n) = len.value else { panic!("{len:?}") };
    assert_eq!(len.bound, Bound::AtMost);
    let with_len = |n: f64| {
        let mut t = s.clone();
        t.scheduler.max_model_len = n as u32;
        HbmPlan::new(&t, &m, &g).is_ok()
    };
    assert!(n < m.max_context as f64 && with_len(n) && !with_len(n + 1.0), "{n}");
    assert!(HbmPlan::new(&s, &m, &g).unwrap_err().to_string().contains(&format!("scheduler.max_model_len ≤ {n}")));
}

#[test]
fn a_draft_model_takes_its_weights_and_its_kv_from_the_pool() {
    // Llama-3.1-70B on 4 × H100 with Llama-3.1-8B drafting. By hand: the draft's weights are
    // 8.03 B params × 2 bytes; a pool token holds the target's 80 layers × 8 KV heads × 128 × 2
    // (K and V) × 2 bytes = 327,680 B and the draft's 32 layers of the same = 131,072 B (8 KV
    // heads over 4 GPUs: no replication).
    let (mut s, m, g) = vllm_h100("llama-3.1-70b", 4, Dtype::Bf16);
    let alone = HbmPlan::new(&s, &m, &g).unwrap();
    s.speculative = Some(crate::speculative::SpeculativeConfig {
        draft_tokens: 4,
        acceptance_rate: 0.8,
        draft_model: Some("llama-3.1-8b".into()),
    });
    let p = HbmPlan::new(&s, &m, &g).unwrap();
    assert!((p.draft_weights_bytes - 8.03e9 * 2.0).abs() < 1.0, "{}", p.draft_weights_bytes);
    assert!((p.weights_bytes - (alone.weights_bytes + p.draft_weights_bytes)).abs() < 1.0);
    assert_eq!(alone.kv_bytes_per_token, 327_680.0);
    assert_eq!(p.draft_kv_bytes_per_token, 131_072.0);
    assert_eq!(p.kv_bytes_per_token, 327_680.0 + 131_072.0);
    assert!((p.kv_capacity_bytes - (alone.kv_capacity_bytes - p.draft_weights_bytes)).abs() < 1.0);
    assert_eq!(p.kv_capacity_tokens, (p.kv_capacity_bytes / 458_752.0) as u64);
    // about two thirds of the tokens the target alone holds: 16 GB less pool, 40% more bytes a token
    let share = p.kv_capacity_tokens as f64 / alone.kv_capacity_tokens as f64;
    assert!((0.6..0.72).contains(&share), "{share}");
    // the target's step model reads only the target's KV
    assert_eq!(p.kv_traffic(), alone.kv_traffic());
    // a draft head costs no memory
    s.speculative.as_mut().unwrap().draft_model = None;
    assert_eq!(HbmPlan::new(&s, &m, &g).unwrap(), alone);
}

#[test]
fn a_draft_model_s_sliding_window_layers_hold_at_most_their_window() {
    // Llama-3.1-70B on 4 × H100 with gpt-oss-20b drafting: 12 full-attention and 12
    // sliding-window layers of window 128, 8 KV heads × 64 (8 heads over 4 GPUs: no
    // replication). By hand, bytes per token (K and V, bf16):
    //   target, 80 full layers: 80 × 8 × 128 × 2 × 2 = 327,680 B
    //   draft's 12 full layers: 12 × 8 × 64 × 2 × 2  =  24,576 B
    //   draft's 12 window layers: the same            =  24,576 B, for the last 128 tokens only
    // A sequence of C = 1,000 tokens holds 1,000 × (327,680 + 24,576) + 128 × 24,576
    // = 352,256,000 + 3,145,728 = 355,401,728 B (the old count, every draft layer full:
    // 1,000 × (327,680 + 49,152) = 376,832,000 B). The pool token is gcd(352,256, 24,576) =
    // 8,192 B: 43 of them per token for ever, 3 more per token inside the window.
    let (mut s, m, g) = vllm_h100("llama-3.1-70b", 4, Dtype::Bf16);
    let alone = HbmPlan::new(&s, &m, &g).unwrap();
    s.speculative = Some(crate::speculative::SpeculativeConfig {
        draft_tokens: 4,
        acceptance_rate: 0.8,
        draft_model: Some("gpt-oss-20b".into()),
    });
    let p = HbmPlan::new(&s, &m, &g).unwrap();
    assert_eq!(p.kv_bytes_per_token, 8_192.0);
    assert_eq!(p.pool_growth, PoolGrowth { full_groups: 43, window_groups: 3, window: 128, state_tokens: 0 });
    assert_eq!(p.pool_growth.sequence_tokens(1_000) as f64 * p.kv_bytes_per_token, 355_401_728.0);
    // past the window a token adds the target's and the draft's full layers only
    assert_eq!(p.pool_growth.sequence_tokens(1_001) - p.pool_growth.sequence_tokens(1_000), 43);
    assert_eq!(p.draft_kv_bytes_per_token, 24_576.0);
    assert_eq!(p.kv_capacity_tokens, (p.kv_capacity_bytes / 8_192.0) as u64);
    // the target's step model reads only the target's KV
    assert_eq!(p.kv_traffic(), alone.kv_traffic());
}

#[test]
fn a_model_s_stored_kv_traffic_is_the_plan_s_for_the_target() {
    // every catalogue model that fits four H100s, at 1, 2 and 4 GPUs: the plan's traffic for the
    // target is the stored traffic a draft of the same model would read; at one GPU both are one
    // copy of the KV
    let mut compared = 0;
    for m in crate::catalog::models() {
        for tp in [1, 2, 4] {
            let (mut s, _, g) = vllm_h100("llama-3.1-8b", tp, Dtype::Bf16);
            s.scheduler.max_model_len = 4096;
            let p = HbmPlan::plan(&s, &m, &g);
            let kv = s.kv_dtype().bytes();
            let stored = stored_kv_traffic(&m, kv, tp);
            let (a, b) = (p.kv_traffic(), stored);
            let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * x.abs().max(1.0);
            assert!(close(a.full_bytes_per_token, b.full_bytes_per_token), "{} tp {tp}: {a:?} {b:?}", m.id);
            assert!(close(a.window_bytes_per_token, b.window_bytes_per_token), "{} tp {tp}", m.id);
            assert_eq!((a.window, a.state_bytes), (b.window, b.state_bytes), "{} tp {tp}", m.id);
            if tp == 1 {
                assert_eq!(stored, kv_traffic(&m, kv), "{}", m.id);
            }
            compared += 1;
        }
    }
    assert!(compared > 30, "{compared}");
}

#[test]
fn a_draft_that_does_not_fit_beside_its_target_is_named_with_it() {
    // Llama-3.1-8B fits one H100 in bf16; with Llama-3.1-70B drafting beside it, it does not:
    // (8.03 + 70.55) B params × 2 bytes = 146.4 GiB of weights
    let (mut s, m, g) = vllm_h100("llama-3.1-8b", 1, Dtype::Bf16);
    assert!(HbmPlan::new(&s, &m, &g).is_ok());
    s.speculative = Some(crate::speculative::SpeculativeConfig {
        draft_tokens: 4,
        acceptance_rate: 0.8,
        draft_model: Some("llama-3.1-70b".into()),
    });
    let e = HbmPlan::new(&s, &m, &g).unwrap_err().to_string();
    assert!(e.contains("llama-3.1-8b + llama-3.1-70b in bf16 needs 146.4 GiB for weights"), "{e}");
    // the fixes count both models: more GPUs or fewer bytes a weight
    assert!(e.contains("num_gpus = ") && !e.contains("num_gpus = 1,"), "{e}");
}
