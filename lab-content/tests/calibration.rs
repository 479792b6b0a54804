//! The step-time model against published measurements (tolerances in docs/model.md).

use lab_content::calibration::errors;
use sim_core::scenario::EngineConfig;

fn is_trt(f: &str) -> bool {
    f.starts_with("TensorRT")
}

/// Known outlier: Mixtral-8x7B in fp8 on H100 (TensorRT-LLM 0.9) ran its MoE fp8 kernels far
/// below the roofline the other rows share; see docs/model.md.
fn is_outlier(r: &lab_content::calibration::Row) -> bool {
    r.model == "Mixtral-8x7B" && r.precision == "FP8"
}

#[test]
fn every_tensorrt_row_within_35_percent() {
    let errs = errors(&EngineConfig::default());
    let trt: Vec<_> = errs.iter().filter(|(r, _, _)| is_trt(&r.framework)).collect();
    assert!(trt.len() >= 40, "rows replayed: {}", trt.len());
    for (r, p, e) in &trt {
        if is_outlier(r) {
            assert!(*e > 0.0 && *e < 1.0, "outlier moved: {} {} {} -> {p}", r.model, r.metric, r.value);
            continue;
        }
        assert!(
            e.abs() <= 0.35,
            "{} {} {} tp{} bs{} {}/{}: measured {} model {p:.1} ({:+.0}%)",
            r.gpu,
            r.model,
            r.precision,
            r.tp,
            r.batch,
            r.input,
            r.output,
            r.value,
            e * 100.0
        );
    }
}

#[test]
fn tensorrt_rows_rms_log_error_below_0_16() {
    let errs = errors(&EngineConfig::default());
    let logs: Vec<f64> = errs
        .iter()
        .filter(|(r, _, _)| is_trt(&r.framework) && !is_outlier(r))
        .map(|(_, _, e)| (1.0 + e).ln())
        .collect();
    let rms = (logs.iter().map(|x| x * x).sum::<f64>() / logs.len() as f64).sqrt();
    assert!(rms < 0.16, "rms log error {rms:.3}");
    // and no systematic bias
    let mean = logs.iter().sum::<f64>() / logs.len() as f64;
    assert!(mean.abs() < 0.08, "mean log error {mean:.3}");
}

#[test]
fn vllm_light_load_itl_within_40_percent() {
    // vLLM before 0.6 spent several ms of CPU per iteration; the default engine models a
    // CUDA-graph engine, so this row is matched only loosely.
    let errs = errors(&EngineConfig::default());
    let (_, p, e) = errs.iter().find(|(r, _, _)| r.framework.starts_with("vLLM")).expect("vLLM row");
    assert!(e.abs() <= 0.40, "model {p:.1} ms ({:+.0}%)", e * 100.0);
}

#[test]
fn calibration_is_not_flat_a_wrong_constant_breaks_it() {
    // The tolerance is tight enough to notice a 2x error in bandwidth or compute.
    for e in [
        EngineConfig { mbu: EngineConfig::default().mbu / 2.0, ..Default::default() },
        EngineConfig { mfu: EngineConfig::default().mfu / 2.0, ..Default::default() },
    ] {
        let bad =
            errors(&e).iter().filter(|(r, _, x)| is_trt(&r.framework) && !is_outlier(r) && x.abs() > 0.35).count();
        assert!(bad >= 5, "halving an efficiency left {bad} rows out of tolerance");
    }
}

#[test]
fn serving_benchmarks_are_read_and_replayed_as_closed_loop_benchmarks() {
    use lab_content::calibration::serving::{bench, predict, rows, PROMPTS_PER_USER};
    let rows = rows();
    assert_eq!(rows.len(), 513, "every measurement is read");
    let engine = sim_core::scenario::EngineConfig::default();
    let row = rows.iter().find(|r| r.model == "llama-3.1-8b" && r.tp == 1 && r.concurrency == 16).unwrap();
    let b = bench(row, &engine).unwrap();
    assert_eq!(b.num_prompts, 16 * PROMPTS_PER_USER);
    assert_eq!((b.input_len, b.output_len), (row.isl, row.osl));
    let (ttft, tpot) = predict(row, &engine).unwrap();
    assert!(ttft > 0.0 && tpot > 0.0);
    // a model the catalogue lacks is not replayed rather than guessed
    let mut other = row.clone();
    other.model = "no-such-model".into();
    assert!(predict(&other, &engine).is_none());
}

/// Each row is replayed the way its harness ran it: aiconfigurator's own rows with fixed lengths
/// on the servers its generator launches, InferenceMAX's with its client's spread of lengths, ten
/// prompts a user and its launch scripts' servers (batch waiting on 1k/1k below TP 8 only).
#[test]
fn each_row_is_replayed_as_its_harness_ran_it() {
    use lab_content::bench::Spread;
    use lab_content::calibration::serving::{bench, parse, rows, Harness, AIC_TOKENS_OVER_PROMPT};
    let engine = EngineConfig::default();
    let rows = rows();
    let imax: Vec<_> = rows.iter().filter(|r| r.harness == Harness::InferenceMax).collect();
    assert_eq!(imax.len(), 72, "the Llama-3.1-70B collection");
    assert!(imax.iter().all(|r| r.model == "llama-3.1-70b" && r.backend == "trtllm"));
    for r in &imax {
        let b = bench(r, &engine).unwrap();
        let s = &b.server.scheduler;
        assert_eq!((b.spread, b.num_prompts), (Spread::Below(0.8), 10 * r.concurrency as u64));
        assert_eq!((s.max_num_batched_tokens, s.max_model_len), (r.isl + r.osl, r.isl + r.osl));
        let waits = r.isl == 1024 && r.osl == 1024 && r.tp < 8;
        assert_eq!(s.batch_waits(), waits, "{r:?}");
        if waits {
            assert_eq!((s.batch_wait_iters, s.batch_wait_tokens_ratio), (20, 0.9));
        }
    }
    let aic = rows.iter().find(|r| r.harness == Harness::Aiconfigurator && r.backend == "trtllm").unwrap();
    let b = bench(aic, &engine).unwrap();
    // its client's `genai-perf --request-count 10v` at concurrency v
    assert_eq!((b.spread, b.num_prompts), (Spread::Fixed, 10 * aic.concurrency as u64));
    // the overlap scheduler as each version's arguments set it: off on 1.0.0rc3 (its engine
    // arguments' default), on for the 1.2 rows (the generator's rules of their time)
    for r in rows.iter().filter(|r| r.harness == Harness::Aiconfigurator && r.backend == "trtllm") {
        let on = bench(r, &engine).unwrap().server.scheduler.overlap;
        assert_eq!(on, r.version.starts_with("1.2."), "{} {}", r.version, r.model);
    }
    assert_eq!(rows.iter().filter(|r| r.version.starts_with("1.2.")).count(), 4);
    let want = (aic.concurrency + aic.isl + AIC_TOKENS_OVER_PROMPT).div_ceil(32) * 32;
    assert_eq!((b.server.scheduler.max_num_seqs, b.server.scheduler.max_num_batched_tokens), (aic.concurrency, want));
    assert!(!b.server.scheduler.batch_waits());
    // the column may be left out (aiconfigurator's rows); a harness the lab does not know skips
    // the row rather than guess its client
    let head = "backend,version,model,gpu,dtype,tp,isl,osl,concurrency,ttft_ms,tpot_ms,source";
    let line = "vllm,0.12.0,qwen3-32b,h100-sxm,bf16,2,1024,128,8,154.2,18.0,x";
    let read = parse(&format!("{head},harness\n{line},inferencemax\n{line}\n{line},defaults\n{line},genai-perf\n"));
    let harnesses: Vec<Harness> = read.iter().map(|r| r.harness).collect();
    assert_eq!(harnesses, [Harness::InferenceMax, Harness::Aiconfigurator, Harness::Defaults]);
    // the held-out rows are read whole, each with a harness the lab knows
    let held = parse(include_str!("../data/serving_holdout.csv"));
    assert_eq!(held.len(), 727, "every held-out row is read");
    assert_eq!(held.iter().filter(|r| r.harness == Harness::InferenceMax).count(), 369);
    // vLLM under aiconfigurator's generator: the batch, batch + prompt + 1,500 tokens a step
    let v = bench(&read[1], &engine).unwrap();
    let s = &v.server.scheduler;
    assert_eq!((s.max_num_seqs, s.max_num_batched_tokens, s.max_model_len), (8, 8 + 1024 + 1500, 1024 + 128 + 1500));
    // and as vLLM ships on an H100 (8,192 tokens, 1,024 sequences) for a team's own runs
    let d = bench(&read[2], &engine).unwrap();
    assert_eq!((d.server.scheduler.max_num_seqs, d.server.scheduler.max_num_batched_tokens), (1024, 8192));
}

/// The closed-loop serving benchmarks of current engines (TensorRT-LLM 1.0, SGLang 0.5) with the
/// default constants: the bounds docs/model.md states.
#[test]
fn serving_benchmarks_within_their_bounds() {
    use lab_content::calibration::serving::errors;
    let all = errors(&EngineConfig::default());
    let replayed: Vec<(f64, f64)> = all.iter().filter_map(|(_, p)| p.map(|x| (x.ttft_error, x.tpot_error))).collect();
    let e = lab_content::fit::Errors::of(&replayed, all.len());
    assert!(e.replayed >= 500, "rows replayed: {}", e.replayed);
    // bounds just above today's figures (docs/benchmarks.md, "Fidelity"): 6.3% and 19.1% for
    // TPOT, 16.8% and 59.7% for TTFT; the targets (TTFT 15% and 35%) are not reached
    // (docs/model.md: TensorRT-LLM's Llama-3.1-8B rows wait for a batch slot the rows do not
    // record)
    assert!(e.tpot_median_abs <= 0.07, "TPOT median |error| {:.1}%", e.tpot_median_abs * 100.0);
    assert!(e.tpot_p90_abs <= 0.20, "TPOT p90 |error| {:.1}%", e.tpot_p90_abs * 100.0);
    assert!(e.ttft_median_abs <= 0.17, "TTFT median |error| {:.1}%", e.ttft_median_abs * 100.0);
    assert!(e.ttft_p90_abs <= 0.61, "TTFT p90 |error| {:.1}%", e.ttft_p90_abs * 100.0);
    // no engine is fitted at the other's expense
    for backend in ["trtllm", "sglang"] {
        let mine: Vec<(f64, f64)> = all
            .iter()
            .filter(|(r, _)| r.backend == backend)
            .filter_map(|(_, p)| p.map(|x| (x.ttft_error, x.tpot_error)))
            .collect();
        let e = lab_content::fit::Errors::of(&mine, mine.len());
        assert!(e.tpot_median.abs() <= 0.15, "{backend}: TPOT median error {:+.1}%", e.tpot_median * 100.0);
        // 7.5% and 3.4% today; the issue asks 8% of each
        let bound = if backend == "sglang" { 0.04 } else { 0.08 };
        assert!(e.tpot_median_abs <= bound, "{backend}: TPOT median |error| {:.1}%", e.tpot_median_abs * 100.0);
        if backend == "sglang" {
            // its prefill-first waves: the TTFT the benchmark measured
            assert!(e.ttft_median_abs <= 0.15, "sglang TTFT median |error| {:.1}%", e.ttft_median_abs * 100.0);
        }
    }
}

/// TensorRT-LLM's own constants (`Engine::constants`, fitted on the calibration rows) on its
/// 270 held-out rows, which nothing was fitted to: aiconfigurator's Qwen3-235B-A22B samples and
/// InferenceMAX's Llama-3.1-70B on B200. With vLLM's and SGLang's constants their median TTFT
/// error was 28.3% and their TPOT error 13.0%; with its own, 17.4% and 12.0%.
#[test]
fn tensorrt_llm_constants_hold_on_its_held_out_rows() {
    use lab_content::calibration::serving::{bench, parse};
    use sim_core::sim::BuiltinTraces;
    let trt: Vec<_> =
        parse(include_str!("../data/serving_holdout.csv")).into_iter().filter(|r| r.backend == "trtllm").collect();
    assert_eq!(trt.len(), 270);
    // each row replayed with its engine's constants, or with vLLM's and SGLang's in their place
    let median = |shared: bool| {
        let e: Vec<(f64, f64)> = trt
            .iter()
            .filter_map(|r| {
                let mut b = bench(r, &EngineConfig::default())?;
                if shared {
                    b.server.engine = EngineConfig::default();
                }
                let x = b.run(&BuiltinTraces).ok()?;
                Some((x.ttft.mean / r.ttft_ms - 1.0, x.tpot.mean / r.tpot_ms - 1.0))
            })
            .collect();
        let e = lab_content::fit::Errors::of(&e, trt.len());
        (e.ttft_median_abs, e.tpot_median_abs)
    };
    let own = median(false);
    assert!(own.0 <= 0.18 && own.1 <= 0.13, "TTFT {:.1}%, TPOT {:.1}%", own.0 * 100.0, own.1 * 100.0);
    let shared = median(true);
    assert!(shared.0 > own.0 + 0.05 && shared.1 > own.1, "shared {shared:?}, own {own:?}");
}

#[test]
fn tensor_parallelism_shortens_decode_as_measured() {
    // SGLang, Qwen3-32B bf16 on H100, 16 users, 1024 in / 128 out: measured TPOT 16.5 / 10.6 /
    // 7.8 ms at TP 2 / 4 / 8. The lab's must fall by at least a third from TP 2 to TP 8.
    use lab_content::calibration::serving::{predict, rows};
    let tpot = |tp: u32| {
        let r = rows()
            .into_iter()
            .find(|r| r.backend == "sglang" && r.tp == tp && r.concurrency == 16 && r.isl == 1024 && r.osl == 128)
            .unwrap();
        predict(&r, &EngineConfig::default()).unwrap().1
    };
    let (t2, t8) = (tpot(2), tpot(8));
    assert!(t8 < t2 * 0.67, "TPOT TP2 {t2:.1} ms, TP8 {t8:.1} ms");
}
