//! Published measurements the step-time model is calibrated on, and its predictions for them.
//!
//! Rows come from `data/calibration_measurements.csv` (TensorRT-LLM performance tables and
//! blogs, a vLLM blog post). Each row is replayed through [`StepModel`] the way the benchmark
//! ran it: a batch-1 first-token latency is one prefill iteration; a static-batch offline
//! throughput is one prefill of the whole batch followed by `output − 1` decode iterations. The
//! engines of then captured no CUDA graphs: every iteration pays the per-layer launch cost.

use sim_core::catalog::{find_gpu, find_model, Dtype, ModelSpec};
use sim_core::memory::stored_kv_traffic;
use sim_core::perf::{BatchWork, StepModel};
use sim_core::scenario::EngineConfig;

pub const DATA: &str = include_str!("../data/calibration_measurements.csv");

#[derive(Clone, Debug)]
pub struct Row {
    pub gpu: String,
    pub model: String,
    pub precision: String,
    pub framework: String,
    pub tp: u32,
    pub batch: u32,
    pub input: u32,
    pub output: u32,
    pub metric: String,
    pub value: f64,
    pub unit: String,
}

/// GPT-J-6B, used by two TensorRT-LLM blog rows; not in the lab's catalogue.
fn gpt_j_6b() -> ModelSpec {
    sim_core::catalog::model("gpt-j-6b", "GPT-J-6B", 6.05, 6.05, 28, 4096, 16, 16, 256, 16384, 50400, 2048, (1, 1))
}

fn split_csv(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for ch in line.chars() {
        match ch {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out
}

pub fn rows() -> Vec<Row> {
    let mut out = Vec::new();
    for line in DATA.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let c = split_csv(line);
        let batch = c[6].trim_start_matches("bs=").split_whitespace().next().and_then(|b| b.parse().ok()).unwrap_or(1);
        out.push(Row {
            gpu: c[1].trim_end_matches('?').to_string(),
            model: c[2].clone(),
            precision: c[3].split_whitespace().next().unwrap_or("").to_string(),
            framework: c[4].clone(),
            tp: c[5].parse().unwrap_or(1),
            batch,
            input: c[7].parse().unwrap_or(0),
            output: c[8].parse().unwrap_or(0),
            metric: c[9].clone(),
            value: c[10].parse().unwrap_or(f64::NAN),
            unit: c[11].clone(),
        });
    }
    out
}

fn gpu_id(name: &str) -> &'static str {
    match name {
        "A100-80GB-SXM4" => "a100-80gb",
        "H100-SXM5-80GB" => "h100-sxm",
        "H200-SXM-141GB" => "h200",
        "L40S" => "l40s",
        _ => "",
    }
}

fn model_for(name: &str) -> Option<ModelSpec> {
    match name {
        "Llama-2-7B" => find_model("llama-2-7b"),
        "Llama-2-70B" => find_model("llama-2-70b"),
        "Mistral-7B" => find_model("mistral-7b"),
        "Mixtral-8x7B" => find_model("mixtral-8x7b"),
        "Llama-3-8B" => find_model("llama-3-8b"),
        "GPT-J-6B" => Some(gpt_j_6b()),
        _ => None,
    }
}

/// The model's prediction for a row, in the row's unit; `None` for rows it cannot replay.
pub fn predict(row: &Row, engine: &EngineConfig) -> Option<f64> {
    let gpu = find_gpu(gpu_id(&row.gpu))?;
    let model = model_for(&row.model)?;
    let dtype = if Dtype::parse(&row.precision) == Some(Dtype::Fp8) { Dtype::Fp8 } else { Dtype::Fp16 };
    // the KV as the replica stores it (heads copied when the GPUs outnumber them), as the
    // simulator reads it
    let kv = stored_kv_traffic(&model, dtype.bytes(), row.tp);
    // 2023 engines paid a launch cost in every iteration: TensorRT-LLM's runtime of then made
    // CUDA graphs opt-in; vLLM before 0.6 spent milliseconds of Python per step
    let sm = StepModel::new(&model, &gpu, row.tp, dtype, kv, engine).without_cuda_graphs();
    let prefill = |batch: u64, len: u64| {
        let mut w = BatchWork::default();
        for _ in 0..batch {
            w.add_prefill_chunk(0, len, true);
        }
        sm.step_time(&w).total
    };
    let decode = |batch: u64, ctx: u64| {
        let w =
            BatchWork { decode_seqs: batch, decode_ctx_tokens: batch * ctx, logit_tokens: batch, ..Default::default() };
        sm.step_time(&w).total
    };
    let b = row.batch as u64;
    match row.metric.as_str() {
        "TTFT" => Some(prefill(1, row.input as u64) * 1000.0),
        "output_throughput_per_GPU" | "output_throughput" => {
            let (i, o) = (row.input as u64, row.output as u64);
            let mut t = prefill(b, i);
            for j in 1..o {
                t += decode(b, i + j);
            }
            let per_gpu = if row.metric == "output_throughput_per_GPU" { row.tp as f64 } else { 1.0 };
            Some((b * o) as f64 / t / per_gpu)
        }
        // batch-1 generation with a 128-token prompt: tokens/s of one sequence
        "decode_throughput" => Some(1.0 / decode(1, row.input as u64 + 64)),
        // vLLM under light load: a handful of sequences with ~1k tokens of context
        "inter-token latency" => Some(decode(4, 1000) * 1000.0),
        _ => None,
    }
}

/// Relative error (prediction / measurement − 1) for every row the model replays.
pub fn errors(engine: &EngineConfig) -> Vec<(Row, f64, f64)> {
    rows()
        .into_iter()
        .filter_map(|r| {
            let p = predict(&r, engine)?;
            let e = p / r.value - 1.0;
            Some((r, p, e))
        })
        .collect()
}

/// Closed-loop serving benchmarks of current engines (`data/serving_benchmarks.csv`: TensorRT-LLM
/// 1.0 and SGLang 0.5, from the aiconfigurator project's measured samples), replayed through the
/// whole simulation with [`crate::bench`].
pub mod serving {
    use crate::bench::{Bench, Load, Spread};
    use sim_core::catalog::Dtype;
    use sim_core::scenario::{EngineConfig, Scenario};
    use sim_core::sim::BuiltinTraces;

    pub const DATA: &str = include_str!("../data/serving_benchmarks.csv");

    /// Prompts each user sends in a replay of an aiconfigurator row, as aiconfigurator's client
    /// measured them (`eval/benchmarks/genai_perf_runner.py`: `genai-perf --concurrency v
    /// --request-count 10v`; its TensorRT-LLM TTFT model assumes the same, "requests 10x of
    /// concurrency … to mitigate the impact of first round latency"): the first wave (every
    /// user's first prompt, sent together at t = 0) is one in this many of the TTFTs averaged.
    pub const PROMPTS_PER_USER: u64 = 10;

    /// aiconfigurator's generator gives a server this many tokens per step beyond the batch and
    /// the prompt (`max_num_tokens`, `--max-num-batched-tokens`).
    pub const AIC_TOKENS_OVER_PROMPT: u32 = 1500;

    /// Who measured a row (the `harness` column), and so how its client sent the prompts and
    /// how its server was launched; the replay does the same.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub enum Harness {
        /// A server as its engine ships (`llmsim bench`'s), fixed lengths, [`PROMPTS_PER_USER`]
        /// prompts per user: a team's own runs (`llmsim fit` reads `vllm bench serve` results so).
        Defaults,
        /// aiconfigurator's own collection, on servers its generator launches
        /// (`generator/rule_plugin/benchmark/*.rule`): fixed lengths, [`PROMPTS_PER_USER`]
        /// prompts per user.
        #[default]
        Aiconfigurator,
        /// SemiAnalysis's InferenceMAX (measured 2025-10-29): `bench_serving/benchmark_serving.py`
        /// with `--random-range-ratio 0.8` (lengths from ⌊0.8 L⌋ to L in that copy of vLLM's
        /// script), `--num-prompts` 10 × the concurrency, `--request-rate inf`, no warm-up; the
        /// servers as its `benchmarks/70b_*` scripts launch them.
        InferenceMax,
    }

    impl Harness {
        pub const ALL: [Harness; 3] = [Harness::Defaults, Harness::Aiconfigurator, Harness::InferenceMax];

        /// The name the `harness` column uses.
        pub fn name(self) -> &'static str {
            match self {
                Harness::Defaults => "defaults",
                Harness::Aiconfigurator => "aiconfigurator",
                Harness::InferenceMax => "inferencemax",
            }
        }

        pub fn parse(name: &str) -> Option<Harness> {
            Self::ALL.into_iter().find(|h| h.name() == name.trim())
        }

        /// How its client spreads the lengths.
        pub fn spread(self) -> Spread {
            match self {
                Harness::Defaults | Harness::Aiconfigurator => Spread::Fixed,
                Harness::InferenceMax => Spread::Below(0.8),
            }
        }

        /// Prompts it sends per user.
        pub fn prompts_per_user(self) -> u64 {
            match self {
                Harness::Defaults | Harness::Aiconfigurator => PROMPTS_PER_USER,
                Harness::InferenceMax => 10,
            }
        }
    }

    /// One measurement: `concurrency` users with no think time, fixed lengths, mean TTFT and TPOT.
    #[derive(Clone, Debug, PartialEq)]
    pub struct Row {
        pub backend: String,
        pub version: String,
        pub model: String,
        pub gpu: String,
        pub dtype: String,
        pub tp: u32,
        pub isl: u32,
        pub osl: u32,
        /// Users in the closed loop (0 when the run was open-loop at `request_rate`).
        pub concurrency: u32,
        /// An open-loop run's rate, requests/s (replayed on `vllm bench serve`'s schedule, burstiness 1,
        /// without a cap); `None` for closed-loop rows.
        pub request_rate: Option<f64>,
        /// Prompts sent; `None`: the harness's number per user.
        pub num_prompts: Option<u64>,
        /// Who measured it (the `harness` column; aiconfigurator when there is none).
        pub harness: Harness,
        pub ttft_ms: f64,
        pub tpot_ms: f64,
    }

    pub fn rows() -> Vec<Row> {
        parse(DATA)
    }

    /// Rows of a CSV in this format (header first; `harness`, after `source`, may be left out);
    /// unreadable lines are skipped.
    pub fn parse(text: &str) -> Vec<Row> {
        text.lines()
            .skip(1)
            .filter(|l| !l.trim().is_empty())
            .filter_map(|l| {
                let c: Vec<&str> = l.split(',').collect();
                Some(Row {
                    backend: c.first()?.to_string(),
                    version: c.get(1)?.to_string(),
                    model: c.get(2)?.to_string(),
                    gpu: c.get(3)?.to_string(),
                    dtype: c.get(4)?.to_string(),
                    tp: c.get(5)?.parse().ok()?,
                    isl: c.get(6)?.parse().ok()?,
                    osl: c.get(7)?.parse().ok()?,
                    concurrency: c.get(8)?.parse().ok()?,
                    request_rate: None,
                    num_prompts: None,
                    ttft_ms: c.get(9)?.parse().ok()?,
                    tpot_ms: c.get(10)?.parse().ok()?,
                    harness: match c.get(12).map(|h| h.trim()).filter(|h| !h.is_empty()) {
                        Some(h) => Harness::parse(h)?,
                        None => Harness::Aiconfigurator,
                    },
                })
            })
            .collect()
    }

    /// The benchmark a row describes: its engine's profile ([`crate::bench::server_json`], long
    /// enough for the row's lengths) with its engine's constants
    /// ([`sim_core::profile::Engine::constants`]) but
    /// those `engine` sets away from the calibrated defaults, launched and loaded the way the
    /// row's [`Harness`] launched and loaded the real server.
    pub fn bench(row: &Row, engine: &EngineConfig) -> Option<Bench> {
        use crate::bench::Engine;
        let dtype = Dtype::parse(&row.dtype)?;
        sim_core::catalog::find_model(&row.model)?;
        sim_core::catalog::find_gpu(&row.gpu)?;
        // the row's engine's scheduler (docs/model.md); an engine the lab does not know runs as vLLM
        let engine_of = Engine::parse(&row.backend).unwrap_or(Engine::Vllm);
        let json =
            crate::bench::server_json(engine_of, &row.model, &row.gpu, row.tp as u64, dtype.name(), row.isl + row.osl);
        let mut server = Scenario::from_json(&json.to_string()).ok()?;
        // `engine`'s constants where they differ from the calibrated defaults (a fit's trial, a
        // team's fitted set), the row's engine's own elsewhere: as choosing the row's engine on
        // a scenario with `engine`'s constants does
        server.engine = engine.clone();
        server.engine.replace(&EngineConfig::default(), &engine_of.constants());
        let (c, isl, osl) = (row.concurrency.max(1), row.isl, row.osl);
        let sch = &mut server.scheduler;
        match (row.harness, engine_of) {
            (Harness::Aiconfigurator, Engine::Trtllm) => {
                // aiconfigurator's generator (`generator/rule_plugin/benchmark/trtllm.rule`): a
                // batch of the row's concurrency and `max_num_tokens` = batch + prompt + 1,500, up
                // to a whole number of 32-token blocks. The overlap scheduler: off on 1.0 (its
                // engine arguments then, `templates/trtllm/dynamo/extra_engine_args.1.0.0rc3.yaml.j2`,
                // write `disable_overlap_scheduler` true unless asked), on for any other version,
                // a row without one too (the generator's rules since 2025-12: `agg
                // disable_overlap_scheduler = false`)
                sch.max_num_seqs = c;
                sch.max_num_batched_tokens = (c + isl + AIC_TOKENS_OVER_PROMPT).div_ceil(32) * 32;
                sch.overlap = !row.version.starts_with("1.0.");
            }
            (Harness::Aiconfigurator, Engine::Vllm) => {
                // its `vllm.rule` and `backend_config_mapping.yaml`: `--max-num-seqs` the batch,
                // `--max-num-batched-tokens` batch + prompt + 1,500, `--max-model-len` ISL + OSL
                // + 1,500
                sch.max_num_seqs = c;
                sch.max_num_batched_tokens = c + isl + AIC_TOKENS_OVER_PROMPT;
                sch.max_model_len = isl + osl + AIC_TOKENS_OVER_PROMPT;
            }
            (Harness::InferenceMax, Engine::Trtllm) => {
                // `benchmarks/70b_fp8_h200_trt_slurm.sh`: `--max_seq_len` and `--max_num_tokens`
                // both MAX_MODEL_LEN (ISL + OSL), `max_batch_size` left at its default, KV in fp8
                // without block reuse; for 1k/1k below TP 8, batch waiting of up to 20 steps
                // until a step reaches 0.9 of the token budget
                sch.max_num_batched_tokens = isl + osl;
                sch.max_model_len = isl + osl;
                sch.prefix_caching = false;
                if isl == 1024 && osl == 1024 && row.tp < 8 {
                    sch.batch_wait_iters = 20;
                    sch.batch_wait_tokens_ratio = 0.9;
                }
            }
            (Harness::InferenceMax, Engine::Vllm) => {
                // its `vllm serve` line: `--max-num-seqs` the concurrency,
                // `--max-num-batched-tokens 8192`, `--max-model-len` ISL + OSL, chunked prefill,
                // `--async-scheduling` (steps planned while the one before runs),
                // `--no-enable-prefix-caching`
                sch.max_num_seqs = c;
                sch.max_num_batched_tokens = 8192;
                sch.max_model_len = isl + osl;
                sch.chunked_prefill = true;
                sch.overlap = true;
                sch.prefix_caching = false;
            }
            // SGLang as its profile ships
            (Harness::Defaults, _) | (_, Engine::Sglang) => {}
        }
        Some(Bench {
            server,
            input_len: isl,
            output_len: osl,
            spread: row.harness.spread(),
            num_prompts: row.num_prompts.unwrap_or(c as u64 * row.harness.prompts_per_user()),
            load: match row.request_rate {
                Some(r) => Load::rate(r, 1.0),
                None => Load::MaxConcurrency(row.concurrency),
            },
            percentiles: vec![99.0],
        })
    }

    /// The lab's mean TTFT and mean TPOT (ms) for a row; `None` when its model or GPU is not in
    /// the catalogue or the model does not fit.
    pub fn predict(row: &Row, engine: &EngineConfig) -> Option<(f64, f64)> {
        let r = bench(row, engine)?.run(&BuiltinTraces).ok()?;
        Some((r.ttft.mean, r.tpot.mean))
    }

    /// The lab's mean TTFT and TPOT for a row, and their relative errors.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Replay {
        pub ttft_ms: f64,
        pub tpot_ms: f64,
        pub ttft_error: f64,
        pub tpot_error: f64,
    }

    /// Every row with the lab's prediction (`None`: not replayable) and the relative errors
    /// (prediction / measurement − 1) of TTFT and TPOT.
    pub fn errors(engine: &EngineConfig) -> Vec<(Row, Option<Replay>)> {
        errors_of(rows(), engine)
    }

    /// [`errors`] on other rows of the same format (measurements held out of the calibration).
    pub fn errors_of(rows: Vec<Row>, engine: &EngineConfig) -> Vec<(Row, Option<Replay>)> {
        rows.into_iter()
            .map(|r| {
                let p = predict(&r, engine).map(|(ttft_ms, tpot_ms)| Replay {
                    ttft_ms,
                    tpot_ms,
                    ttft_error: ttft_ms / r.ttft_ms - 1.0,
                    tpot_error: tpot_ms / r.tpot_ms - 1.0,
                });
                (r, p)
            })
            .collect()
    }
}
