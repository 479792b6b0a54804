//! `lab_content::fit`: a fit on measurements the lab itself produced with known constants gets
//! those constants back; reading `vllm bench serve` results and CSV rows.

use lab_content::calibration::serving::{predict, Row};
use lab_content::fit::{catalogue_id, errors, fit, param, read, start, Server};
use sim_core::scenario::EngineConfig;

fn row(tp: u32, isl: u32, osl: u32, concurrency: u32) -> Row {
    Row {
        backend: "lab".into(),
        version: String::new(),
        model: "llama-3.1-8b".into(),
        gpu: "h100-sxm".into(),
        dtype: "bf16".into(),
        tp,
        isl,
        osl,
        concurrency,
        request_rate: None,
        num_prompts: Some(2 * concurrency as u64),
        ttft_ms: 1.0,
        tpot_ms: 1.0,
        harness: lab_content::calibration::serving::Harness::Defaults,
    }
}

#[test]
fn a_fit_recovers_the_constants_that_produced_the_measurements() {
    let truth = EngineConfig {
        mfu: 0.45,
        mbu: 0.6,
        iteration_overhead_ms: 2.5,
        allreduce_latency_us: 60.0,
        ..Default::default()
    };
    let mut rows = Vec::new();
    for tp in [1, 2, 4, 8] {
        for (isl, osl) in [(128, 48), (2048, 16)] {
            for c in [1, 16] {
                let mut r = row(tp, isl, osl, c);
                let (ttft, tpot) = predict(&r, &truth).expect("replayable");
                r.ttft_ms = ttft;
                r.tpot_ms = tpot;
                rows.push(r);
            }
        }
    }
    let names = ["mfu", "mbu", "iteration_overhead_ms", "allreduce_latency_us"];
    let params: Vec<_> = names.iter().map(|n| param(n).unwrap()).collect();
    let f = fit(&rows, &EngineConfig::default(), &params, 320);
    assert!(f.before.tpot_median_abs > 0.2, "the defaults start far off: {:?}", f.before);
    for p in &params {
        let (got, want) = ((p.get)(&f.engine), (p.get)(&truth));
        assert!((got / want - 1.0).abs() < 0.05, "{}: fitted {got}, produced with {want}", p.name);
    }
    assert!(f.after.tpot_median_abs < 0.01 && f.after.ttft_median_abs < 0.02, "{:?}", f.after);
    // constants not fitted stay where they started
    assert_eq!(f.engine.roofline_sharpness, EngineConfig::default().roofline_sharpness);
    assert_eq!(errors(&rows, &f.engine), f.after);
}

#[test]
fn a_fit_starts_from_the_constants_of_the_engine_the_runs_were_measured_on() {
    use sim_core::profile::Engine;
    let on = |backend: &str| Row { backend: backend.into(), ..row(1, 128, 16, 1) };
    assert_eq!(start(&[on("trtllm"), on("trtllm")]), Engine::Trtllm.constants());
    assert_eq!(start(&[on("sglang")]), Engine::Sglang.constants());
    // runs of several engines, or of one the lab does not know (run as vLLM), start from the defaults
    assert_eq!(start(&[on("trtllm"), on("sglang")]), EngineConfig::default());
    assert_eq!(start(&[on("lab")]), EngineConfig::default());
    assert_eq!(start(&[]), EngineConfig::default());
    // a TensorRT-LLM row replays with its engine's constants unless the fit's trial sets them
    let mut r = on("trtllm");
    r.concurrency = 4;
    r.num_prompts = Some(8);
    let own = predict(&r, &EngineConfig::default()).unwrap();
    assert_eq!(predict(&r, &Engine::Trtllm.constants()).unwrap(), own);
    let trial = EngineConfig { mbu: 0.5, ..Engine::Trtllm.constants() };
    assert!(predict(&r, &trial).unwrap().1 > own.1, "a smaller share of the bandwidth decodes slower");
}

#[test]
fn a_fit_recovers_the_front_end_that_produced_the_measurements() {
    // a slower front end than the default (8 ms on the way in, 6 ms back): one user's TTFT
    // carries both ways; TPOT neither. The GPU's constants stay the defaults'.
    let truth = EngineConfig { request_latency_ms: 8.0, stream_latency_ms: 6.0, ..Default::default() };
    let mut rows = Vec::new();
    for tp in [1, 4] {
        for (isl, osl) in [(128, 48), (2048, 16), (512, 32)] {
            let mut r = row(tp, isl, osl, 1);
            let (ttft, tpot) = predict(&r, &truth).expect("replayable");
            r.ttft_ms = ttft;
            r.tpot_ms = tpot;
            rows.push(r);
        }
    }
    let params: Vec<_> = ["request_latency_ms", "stream_latency_ms"].iter().map(|n| param(n).unwrap()).collect();
    let f = fit(&rows, &EngineConfig::default(), &params, 200);
    assert!(f.before.ttft_median_abs > 0.05, "the defaults start off: {:?}", f.before);
    // one user: only their sum shows in TTFT, so the fit finds the sum (14 ms)
    let sum = f.engine.request_latency_ms + f.engine.stream_latency_ms;
    assert!((sum / 14.0 - 1.0).abs() < 0.05, "ways in and out {sum} ms, produced with 14");
    assert!(f.after.ttft_median_abs < 0.01, "{:?}", f.after);
}

#[test]
fn a_vllm_bench_serve_result_is_read_with_the_server_it_does_not_record() {
    let json = r#"{"backend":"vllm","model_id":"meta-llama/Llama-3.1-8B-Instruct","num_prompts":200,
        "request_rate":"inf","burstiness":1.0,"max_concurrency":16,"duration":30.1,"completed":200,
        "input_lens":[1024,1024,1024],"output_lens":[128,128,127],"mean_ttft_ms":120.5,"mean_tpot_ms":9.25}"#;
    let server = Server { gpu: Some("h100-sxm".into()), num_gpus: Some(2), ..Default::default() };
    let rows = read(json, &server).unwrap();
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    assert_eq!(
        (r.model.as_str(), r.gpu.as_str(), r.tp, r.isl, r.osl, r.concurrency),
        ("llama-3.1-8b", "h100-sxm", 2, 1024, 128, 16)
    );
    assert_eq!((r.ttft_ms, r.tpot_ms, r.num_prompts, r.request_rate), (120.5, 9.25, Some(200), None));
    let no_gpu = read(json, &Server::default()).unwrap_err();
    assert!(no_gpu.contains("--gpu"), "{no_gpu}");
    let missing = read(&json.replace("\"mean_tpot_ms\":9.25", "\"x\":1"), &server).unwrap_err();
    assert!(missing.contains("mean_tpot_ms"), "{missing}");
    let rate =
        read(&json.replace("\"max_concurrency\":16", "\"max_concurrency\":null").replace("\"inf\"", "4.0"), &server)
            .unwrap();
    assert_eq!((rate[0].request_rate, rate[0].concurrency), (Some(4.0), 0));
    assert!(read("hello", &server).unwrap_err().contains("neither"));
}

#[test]
fn serving_benchmark_csv_rows_are_read_and_model_names_map_to_the_catalogue() {
    let csv = lab_content::calibration::serving::DATA;
    let rows = read(csv, &Server::default()).unwrap();
    assert_eq!(rows.len(), 513);
    assert_eq!(catalogue_id("Qwen/Qwen3-32B").as_deref(), Some("qwen3-32b"));
    assert_eq!(catalogue_id("meta-llama/Llama-3.1-8B-Instruct").as_deref(), Some("llama-3.1-8b"));
    assert_eq!(catalogue_id("someone/unknown-model"), None);
}
