//! KV memory by attention form, worked by hand from the models' config numbers, and every
//! catalogue model run on the fewest GPUs that hold it.

mod common;
use sim_core::catalog::{find_model, models, AttentionForm, Dtype};
use sim_core::memory::{kv_bytes_per_token, KvFormula};
use sim_core::scenario::ModelRef;
use sim_core::{Scenario, Simulation};

#[test]
fn mla_stores_one_latent_per_layer_shared_by_all_heads() {
    // DeepSeek-V3: 61 layers × (kv_lora_rank 512 + qk_rope_head_dim 64) × 2 bytes
    let m = find_model("deepseek-v3").unwrap();
    assert_eq!(m.attention_form(), AttentionForm::Mla);
    assert_eq!(kv_bytes_per_token(&m, 2.0), 70_272.0);
    assert_eq!(kv_bytes_per_token(&m, 1.0), 35_136.0);
    // its 128 heads stored as K (192) and V (128) per head (MHA) would take 4,997,120 B: 71× more
    let mha = 61.0 * 128.0 * (192.0 + 128.0) * 2.0;
    assert_eq!(mha, 4_997_120.0);
    assert!(mha / kv_bytes_per_token(&m, 2.0) > 71.0);
    // Kimi-K2 and GLM-5 have the same latent: 61 and 78 layers
    assert_eq!(kv_bytes_per_token(&find_model("kimi-k2").unwrap(), 2.0), 70_272.0);
    assert_eq!(kv_bytes_per_token(&find_model("glm-5").unwrap(), 2.0), 78.0 * 576.0 * 2.0);
}

#[test]
fn grouped_query_attention_counts_kv_heads() {
    // Qwen3-235B-A22B: 2 · 94 layers · 4 KV heads · 128 · 2 bytes; Llama-3.1-405B: 8 KV heads of 128
    assert_eq!(kv_bytes_per_token(&find_model("qwen3-235b-a22b").unwrap(), 2.0), 192_512.0);
    assert_eq!(kv_bytes_per_token(&find_model("llama-3.1-405b").unwrap(), 2.0), 516_096.0);
    assert_eq!(find_model("llama-3.1-70b").unwrap().attention_form(), AttentionForm::Gqa);
    assert_eq!(find_model("llama-2-7b").unwrap().attention_form(), AttentionForm::Mha);
}

#[test]
fn sliding_window_layers_stop_growing_at_the_window() {
    // gpt-oss-120b: 36 layers alternate a 128-token window and full attention; 8 KV heads of 64
    let f = KvFormula::of(&find_model("gpt-oss-120b").unwrap(), 2.0);
    assert_eq!((f.full_layers, f.window_layers, f.window), (18, 18, 128));
    assert_eq!(f.bytes_per_token(), 2.0 * 36.0 * 8.0 * 64.0 * 2.0);
    assert_eq!(f.bytes_per_token_past_window(), 36_864.0);
    assert_eq!(f.sequence_bytes(100), 100.0 * 73_728.0);
    assert_eq!(f.sequence_bytes(10_000), 10_000.0 * 36_864.0 + 128.0 * 36_864.0);
    // Mistral-7B: every layer has a 4096-token window, so a sequence's KV stops growing there
    let f = KvFormula::of(&find_model("mistral-7b").unwrap(), 2.0);
    assert_eq!((f.full_layers, f.window_layers, f.window), (0, 32, 4096));
    assert_eq!(f.sequence_bytes(4096), 4096.0 * 131_072.0);
    assert_eq!(f.sequence_bytes(8192), f.sequence_bytes(4096));
    assert_eq!(f.bytes_per_token_past_window(), 0.0);
}

#[test]
fn linear_attention_holds_a_constant_state() {
    // Qwen3.5-397B-A17B: 15 gated-attention layers (2 KV heads of 256) and 45 Gated DeltaNet
    // layers, each with a 64 × 128 × 128 fp32 recurrent state and 3 × (2·16·128 + 64·128) bf16
    // convolution inputs per sequence
    let f = KvFormula::of(&find_model("qwen3.5-397b-a17b").unwrap(), 2.0);
    assert_eq!((f.full_layers, f.window_layers, f.linear_layers), (15, 0, 45));
    assert_eq!(f.bytes_per_token(), 2.0 * 15.0 * 2.0 * 256.0 * 2.0);
    let per_layer = 64.0 * 128.0 * 128.0 * 4.0 + 3.0 * (2.0 * 16.0 * 128.0 + 64.0 * 128.0) * 2.0;
    assert_eq!(per_layer, 4_268_032.0);
    assert_eq!(f.state_bytes, 45.0 * per_layer);
    for n in [0u64, 1, 1000, 100_000] {
        assert_eq!(f.sequence_bytes(n) - n as f64 * 30_720.0, f.state_bytes, "{n} tokens");
    }
}

#[test]
fn many_small_experts_activate_their_share() {
    // active = shared + embeddings + routed experts × top-k / experts
    for (id, active_b) in
        [("qwen3-30b-a3b", 3.35), ("qwen3-235b-a22b", 22.19), ("deepseek-v3", 37.55), ("kimi-k2", 32.86)]
    {
        let m = find_model(id).unwrap();
        let k = m.experts_per_token as f64 / m.num_experts as f64;
        let active = m.shared_linear_params() + m.embedding_params() + m.expert_params() * k;
        assert!((active / 1e9 - active_b).abs() < 1e-6, "{id}: {active}");
        assert!(m.shared_linear_params() > 0.0, "{id}");
    }
}

/// A short chat run of `model` on `n` × `gpu` in `dtype`.
fn chat(model: &str, gpu: &str, n: u32, dtype: Dtype) -> Scenario {
    let mut s = common::preset("chat-latency-first");
    let m = find_model(model).unwrap();
    s.model = ModelRef::Id(model.into());
    s.gpu = sim_core::scenario::GpuRef::Id(gpu.into());
    s.num_gpus = n;
    s.dtype = dtype;
    s.scheduler.max_model_len = s.scheduler.max_model_len.min(m.max_context);
    s.classes[0].num_requests = Some(40);
    s
}

#[test]
fn every_catalogue_model_runs_on_the_fewest_gpus_that_hold_it() {
    for m in models() {
        let mut ran = 0;
        for gpu in ["h100-sxm", "h200", "b200"] {
            let fits = [Dtype::Bf16, Dtype::Fp8]
                .into_iter()
                .flat_map(|d| [1, 2, 4, 8].into_iter().map(move |n| (d, n)))
                .map(|(d, n)| chat(&m.id, gpu, n, d))
                .find(|s| Simulation::new(s).is_ok());
            let Some(s) = fits else {
                // nothing on one node: the message says how many GPUs would hold it
                let e = Simulation::new(&chat(&m.id, gpu, 8, Dtype::Fp8)).err().unwrap().to_string();
                assert!(e.contains("does not fit"), "{} on {gpu}: {e}", m.id);
                assert!(e.contains("pipeline or expert parallelism"), "{} on {gpu}: {e}", m.id);
                continue;
            };
            let sum = common::run(&s);
            let all = &sum.all;
            assert_eq!(all.requests.arrived, 40, "{} on {} × {gpu}", m.id, s.num_gpus);
            assert!(all.requests.completed > 0, "{} on {} × {gpu}: {:?}", m.id, s.num_gpus, all.requests);
            assert!(all.ttft_ms.mean > 0.0 && all.ttft_ms.mean.is_finite(), "{}", m.id);
            assert!(all.tpot_ms.mean > 0.0 && all.tpot_ms.mean < 1000.0, "{}: {}", m.id, all.tpot_ms.mean);
            assert!(sum.memory.kv_peak_bytes <= sum.memory.kv_capacity_bytes * 1.0001, "{}", m.id);
            ran += 1;
        }
        assert!(ran > 0, "{} fits none of H100, H200, B200", m.id);
    }
}

#[test]
fn a_windowed_sequence_kv_stops_growing_in_the_pool() {
    // one Mistral-7B request of 3000 + 4000 tokens: its KV peaks at the 4096-token window
    let mut s = chat("mistral-7b", "h100-sxm", 1, Dtype::Bf16);
    s.classes[0].num_requests = Some(1);
    s.classes[0].input_tokens = Some(sim_core::scenario::LengthDist::Fixed { value: 3000 });
    s.classes[0].output_tokens = Some(sim_core::scenario::LengthDist::Fixed { value: 4000 });
    s.classes[0].slo = Default::default();
    s.scheduler.queue_timeout_ms = None;
    let sum = common::run(&s);
    assert_eq!(sum.all.requests.completed, 1);
    let peak_tokens = sum.memory.kv_peak_bytes / 131_072.0;
    assert!((4096.0..=4096.0 + 16.0).contains(&peak_tokens), "{peak_tokens}");
}

#[test]
fn a_model_beyond_one_node_is_told_how_many_gpus_would_hold_it() {
    use sim_core::Problem;
    // Kimi-K2 in fp8: about 956 GiB of weights. Eight H100s at 0.9 give 8 × 72 = 576 GiB; sixteen
    // give 1,152 GiB, enough for the weights, the activations and one sequence's KV.
    let s = chat("kimi-k2", "h100-sxm", 8, Dtype::Bf16);
    let e = Simulation::new(&s).err().unwrap();
    let Some(Problem::DoesNotFit(d)) = e.errors.first().map(|f| &f.problem) else { panic!("{e}") };
    assert!(d.fixes.is_empty(), "{e}");
    let b = d.beyond_node.as_ref().expect("a multi-node estimate");
    assert_eq!((b.gpus, b.dtype.as_str(), b.utilization), (16, "fp8", 0.9));
    let weights_gib = find_model("kimi-k2").unwrap().params_total / 1024f64.powi(3);
    assert!(weights_gib > 8.0 * 72.0 && weights_gib < 16.0 * 72.0, "{weights_gib}");
    // a model that one node holds gets fixes, not an estimate
    let small = chat("llama-3.1-70b", "h100-sxm", 1, Dtype::Bf16);
    let e = Simulation::new(&small).err().unwrap();
    let Some(Problem::DoesNotFit(d)) = e.errors.first().map(|f| &f.problem) else { panic!("{e}") };
    assert!(!d.fixes.is_empty() && d.beyond_node.is_none(), "{e}");
}
