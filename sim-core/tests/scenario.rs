//! The scenario format: the documented example runs as written, bad input names its field.

mod common;
use sim_core::{Scenario, Simulation};

const CONTRACT: &str = r#"{
  "version": 1,
  "seed": 7,
  "model": "llama-3-8b",
  "gpu": "h100-sxm",
  "num_gpus": 1,
  "dtype": "bf16",
  "gpu_memory_utilization": 0.9,
  "scheduler": {
    "batching": "continuous",
    "max_num_seqs": 256,
    "max_num_batched_tokens": 2048,
    "chunked_prefill": true,
    "kv_layout": "paged",
    "block_size": 16,
    "max_model_len": 8192,
    "queue_timeout_ms": null,
    "max_queue_len": null,
    "isolation": false
  },
  "classes": [
    {
      "name": "chat",
      "arrival": { "kind": "poisson", "rate_per_s": 5.0 },
      "num_requests": 2000,
      "input_tokens": { "kind": "lognormal", "mean": 1000, "sigma": 0.7 },
      "output_tokens": { "kind": "fixed", "value": 256 },
      "slo": { "ttft_ms": 500, "tpot_ms": 50 }
    }
  ]
}"#;

fn err(json: &str) -> String {
    Scenario::from_json(json).err().map(|e| e.to_string()).unwrap_or_else(|| "accepted".into())
}

#[test]
fn the_documented_example_runs_as_written() {
    let s = Scenario::from_json(CONTRACT).unwrap();
    let sum = common::run(&s);
    assert_eq!(sum.all.requests.arrived, 2000);
    assert!(sum.all.requests.completed >= 1990);
    assert!(sum.all.ttft_ms.p50 > 0.0 && sum.all.tpot_ms.p50 > 0.0);
}

#[test]
fn out_of_range_values_name_field_and_range() {
    let e = err(&CONTRACT.replace(r#""max_num_seqs": 256"#, r#""max_num_seqs": 0"#));
    assert_eq!(e, "scheduler.max_num_seqs must be 1..=4096, got 0");
    let e = err(&CONTRACT.replace(r#""gpu_memory_utilization": 0.9"#, r#""gpu_memory_utilization": 1.5"#));
    assert_eq!(e, "gpu_memory_utilization must be 0.05..=1, got 1.5");
    let e = err(&CONTRACT.replace(r#""rate_per_s": 5.0"#, r#""rate_per_s": -1"#));
    assert_eq!(e, "classes[0].arrival.rate_per_s must be 0.000001..=1000000, got -1");
    let e = err(&CONTRACT.replace(r#""num_gpus": 1"#, r#""num_gpus": 3"#));
    assert_eq!(e, "num_gpus must be 1, 2, 4 or 8, got 3");
    let e = err(&CONTRACT.replace(r#""max_model_len": 8192"#, r#""max_model_len": 100000"#));
    assert!(e.starts_with("scheduler.max_model_len must be 2..=8192, got 100000"), "{e}");
}

#[test]
fn every_invalid_field_is_reported_at_once() {
    let bad =
        CONTRACT.replace(r#""max_num_seqs": 256"#, r#""max_num_seqs": 0"#).replace(r#""sigma": 0.7"#, r#""sigma": 9"#);
    let e = Scenario::from_json(&bad).unwrap_err();
    assert!(e.for_field("scheduler.max_num_seqs").is_some());
    assert!(e.for_field("classes[0].input_tokens.sigma").is_some());
}

#[test]
fn unknown_and_mistyped_fields_are_rejected_with_their_path() {
    let e = err(&CONTRACT.replace(r#""isolation": false"#, r#""isolation": false, "max_batch": 4"#));
    assert!(e.starts_with("scheduler.max_batch unknown field `max_batch`"), "{e}");
    let e = err(&CONTRACT.replace(r#""block_size": 16"#, r#""block_size": "big""#));
    assert!(e.starts_with("scheduler.block_size invalid type"), "{e}");
    let e = err(&CONTRACT.replace(r#""kind": "poisson""#, r#""kind": "weibull""#));
    assert!(e.contains("classes[0].arrival") && e.contains("weibull"), "{e}");
    let e = err(&CONTRACT.replace(r#""model": "llama-3-8b""#, r#""model": "gpt-5""#));
    assert!(e.starts_with("model must be one of llama-2-7b,"), "{e}");
    assert!(err("{ not json").contains("line 1"));
}

#[test]
fn engine_constants_a_file_leaves_out_are_the_calibrated_ones() {
    use sim_core::scenario::EngineConfig;
    let with = |engine: &str| CONTRACT.replace(r#""classes""#, &format!(r#""engine": {engine}, "classes""#));
    let s = Scenario::from_json(&with(r#"{ "mfu": 0.5 }"#)).unwrap();
    assert_eq!(s.engine, EngineConfig { mfu: 0.5, ..EngineConfig::default() });
    assert_ne!(EngineConfig::default().mfu, 0.5);
    assert_eq!(Scenario::from_json(&with("{}")).unwrap().engine, EngineConfig::default());
    assert_eq!(Scenario::from_json(CONTRACT).unwrap().engine, EngineConfig::default());
    let e = err(&with(r#"{ "mfu": 0.5, "speed": 2 }"#));
    assert!(e.starts_with("engine.speed unknown field `speed`"), "{e}");
}

#[test]
fn a_model_that_does_not_fit_says_why_and_what_would() {
    let s =
        Scenario::from_json(&CONTRACT.replace(r#""llama-3-8b""#, r#""llama-2-70b""#).replace("8192", "4096")).unwrap();
    let e = Simulation::new(&s).err().expect("70B fp16 cannot fit one 80 GB GPU").to_string();
    assert!(e.contains("llama-2-70b in bf16 needs 128.5 GiB for weights"), "{e}");
    assert!(e.contains("num_gpus = 2"), "{e}");
    let mut two = s.clone();
    two.num_gpus = 2;
    assert!(Simulation::new(&two).is_ok());
}

#[test]
fn fp8_on_a_gpu_without_fp8_is_refused() {
    let e = err(&CONTRACT.replace(r#""h100-sxm""#, r#""a100-80gb""#).replace(r#""bf16""#, r#""fp8""#));
    assert!(e.starts_with("dtype fp8 is not supported on a100-80gb"), "{e}");
}

#[test]
fn trace_classes_take_counts_from_the_file() {
    let s = common::preset("sharegpt-replay");
    let sum = common::run(&s);
    assert_eq!(sum.all.requests.arrived, 300);
    let bad = s.to_json_pretty().replace(r#""path": "sharegpt300_llama3.csv""#, r#""path": "missing.csv""#);
    let e = Simulation::new(&Scenario::from_json(&bad).unwrap()).err().unwrap().to_string();
    assert!(e.starts_with("classes[0].arrival.path is not a built-in trace"), "{e}");
}

#[test]
fn custom_model_and_gpu_inline() {
    let custom = CONTRACT
        .replace(
            r#""model": "llama-3-8b""#,
            r#""model": { "id": "tiny", "params_total": 1.1e9, "params_active": 1.1e9, "num_layers": 22, "hidden_size": 2048,
                "num_attention_heads": 32, "num_kv_heads": 4, "head_dim": 64, "intermediate_size": 5632,
                "vocab_size": 32000, "max_context": 8192 }"#,
        )
        .replace(
            r#""gpu": "h100-sxm""#,
            r#""gpu": { "id": "toy", "hbm_bytes": 16e9, "mem_bandwidth": 5e11, "bf16_flops": 1e14,
                "interconnect_bw": 3.2e10, "usd_per_hour": 0.5 }"#,
        )
        .replace("2000", "50");
    let s = Scenario::from_json(&custom).unwrap();
    let sum = common::run(&s);
    assert_eq!(sum.all.requests.arrived, 50);
    assert_eq!(sum.memory.kv_bytes_per_token, 2.0 * 22.0 * 4.0 * 64.0 * 2.0);
}

#[test]
fn every_json_example_in_the_scenario_doc_runs() {
    let doc = include_str!("../../docs/scenario.md");
    let mut n = 0;
    for block in doc.split("```json").skip(1) {
        let json = block.split("```").next().unwrap();
        if !json.trim_start().starts_with("{\n  \"version\"") {
            continue; // fragments (custom model/GPU) are not whole scenarios
        }
        let s = Scenario::from_json(json).unwrap_or_else(|e| panic!("doc example: {e}\n{json}"));
        Simulation::new(&s).unwrap_or_else(|e| panic!("doc example: {e}"));
        n += 1;
    }
    assert!(n >= 4, "found {n} complete examples");
}
