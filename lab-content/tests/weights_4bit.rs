//! 4-bit weights: bytes per weight with their block scales, where each format runs, and what a
//! GPU without a path for it says.

use lab_content::bench::vllm_server_json;
use sim_core::catalog::{find_gpu, find_model, Dtype};
use sim_core::memory::HbmPlan;
use sim_core::message::Problem;
use sim_core::perf::{BatchWork, KvTraffic, StepModel};
use sim_core::scenario::{EngineConfig, Scenario};

fn server(model: &str, gpu: &str, n: u64, dtype: &str) -> Result<Scenario, sim_core::scenario::ScenarioError> {
    let mut json = vllm_server_json(model, gpu, n, dtype);
    json["scheduler"]["max_model_len"] = 32768.into();
    Scenario::from_json(&json.to_string())
}

#[test]
fn bits_per_weight_count_the_block_scales() {
    assert_eq!(Dtype::Int4.bytes() * 8.0, 4.15625); // AWQ/GPTQ, group 128: fp16 scale, 4-bit zero
    assert_eq!(Dtype::Mxfp4.bytes() * 8.0, 4.25); // e8m0 scale per 32
    assert_eq!(Dtype::Nvfp4.bytes() * 8.0, 4.5); // e4m3 scale per 16
    for d in [Dtype::Int4, Dtype::Mxfp4, Dtype::Nvfp4] {
        assert_eq!(Dtype::parse(d.name()), Some(d));
        assert!(d.is_4bit() && !Dtype::KV.contains(&d));
    }
}

#[test]
fn four_bit_weights_fit_where_bf16_does_not_and_keep_a_bf16_cache() {
    // Llama-3.1-70B: 141 GB of bf16 weights, 37 GB in int4 — one H100 holds it
    let (m, gpu) = (find_model("llama-3.1-70b").unwrap(), find_gpu("h100-sxm").unwrap());
    let bf16 = server("llama-3.1-70b", "h100-sxm", 1, "bf16").unwrap();
    let e = HbmPlan::new(&bf16, &m, &gpu).unwrap_err();
    assert!(matches!(e.errors[0].problem, Problem::CannotStart(_) | Problem::DoesNotFit(_)), "{e}");
    let s = server("llama-3.1-70b", "h100-sxm", 1, "int4").unwrap();
    assert_eq!(s.kv_dtype(), Dtype::Bf16);
    let plan = HbmPlan::new(&s, &m, &gpu).unwrap();
    assert!((plan.weights_bytes - m.params_total * 4.15625 / 8.0).abs() < 1.0);
}

#[test]
fn a_gpu_without_a_path_for_a_format_names_the_ones_it_runs() {
    // AMD Instinct: no fp4 tensor cores and no Marlin kernels
    let e = server("llama-3.1-8b", "mi300x", 1, "nvfp4").unwrap_err();
    let f = e.errors.iter().find(|f| f.field == "dtype").expect("the dtype field is named");
    match &f.problem {
        Problem::NotListed { options, got } => {
            assert_eq!(got, "nvfp4");
            assert_eq!(options, &["bf16", "fp16", "fp8", "int4"]);
        }
        p => panic!("{p:?}"),
    }
    assert!(server("llama-3.1-8b", "mi300x", 1, "int4").is_ok());
    // Hopper runs fp4 weight-only (Marlin), Blackwell on its fp4 tensor cores
    assert!(server("llama-3.1-8b", "h100-sxm", 1, "nvfp4").is_ok());
    assert!(server("llama-3.1-8b", "b200", 1, "mxfp4").is_ok());
    // a 4-bit KV cache is not a thing engines store
    let mut json = vllm_server_json("llama-3.1-8b", "h100-sxm", 1, "int4");
    json["kv_dtype"] = "int4".into();
    let e = Scenario::from_json(&json.to_string()).unwrap_err();
    assert!(e.errors.iter().any(|f| f.field == "kv_dtype"), "{e}");
}

#[test]
fn fp4_tensor_cores_speed_up_prefill_weight_only_formats_speed_up_decode() {
    let m = find_model("llama-3.1-8b").unwrap();
    let e = EngineConfig::default();
    let kv = KvTraffic::uniform(131072.0);
    let step = |gpu: &str, d: Dtype, w: &BatchWork| {
        StepModel::new(&m, &find_gpu(gpu).unwrap(), 1, d, kv, &e).step_time(w).total
    };
    let mut prefill = BatchWork::default();
    prefill.add_prefill_chunk(0, 8192, true);
    let decode = BatchWork { decode_seqs: 1, decode_ctx_tokens: 1024, logit_tokens: 1, ..Default::default() };
    // B200: nvfp4 products on fp4 tensor cores beat int4's bf16 products
    assert!(step("b200", Dtype::Nvfp4, &prefill) < 0.6 * step("b200", Dtype::Int4, &prefill));
    // H100: no fp4 tensor cores, so nvfp4 prefills like bf16; batch-1 decode reads ~¼ of the bytes
    let (p4, p16) = (step("h100-sxm", Dtype::Nvfp4, &prefill), step("h100-sxm", Dtype::Bf16, &prefill));
    assert!((p4 / p16 - 1.0).abs() < 0.1, "{p4} vs {p16}");
    assert!(step("h100-sxm", Dtype::Int4, &decode) < 0.5 * step("h100-sxm", Dtype::Bf16, &decode));
}
