//! Fitting the engine constants to a team's own measurements: `vllm bench serve` result files or
//! rows in the `serving_benchmarks.csv` format, each replayed as a [`crate::bench`] run.
//!
//! The objective is the mean squared log error of mean TPOT and mean TTFT over the rows (TTFT
//! weighted by [`TTFT_WEIGHT`]: in closed-loop runs it depends on how the client starts its
//! users). The chosen constants of [`PARAMS`] are searched together, as logarithms within their
//! ranges, by the Nelder–Mead simplex method (correlated constants, such as the iteration
//! overhead and the bandwidth share, move together); the search is deterministic.

use crate::calibration::serving::{predict, Row};
use sim_core::scenario::EngineConfig;

/// One engine constant a fit may move: its `engine` field name and allowed range.
pub struct Param {
    pub name: &'static str,
    pub get: fn(&EngineConfig) -> f64,
    pub set: fn(&mut EngineConfig, f64),
    pub min: f64,
    pub max: f64,
}

/// A [`Param`] for the `EngineConfig` field of that name, within `min..=max`.
macro_rules! param {
    ($field:ident, $min:expr, $max:expr) => {
        Param { name: stringify!($field), get: |e| e.$field, set: |e, v| e.$field = v, min: $min, max: $max }
    };
}

/// Every constant `llmsim fit` can fit, named as the scenario's `engine` block names it.
pub const PARAMS: [Param; 15] = [
    param!(mfu, 0.05, 1.0),
    param!(mbu, 0.05, 1.0),
    param!(iteration_overhead_ms, 0.01, 50.0),
    param!(allreduce_latency_us, 0.1, 1000.0),
    param!(layer_launch_us, 0.01, 1000.0),
    param!(pcie_allreduce_latency_us, 0.1, 1000.0),
    param!(eager_allreduce_us, 0.01, 1000.0),
    param!(fp8_efficiency, 0.1, 1.5),
    param!(roofline_sharpness, 1.0, 8.0),
    // the front end and timing variation (`sim_core::frontend`): they move TTFT, and TPOT little
    param!(request_latency_ms, 0.01, 100.0),
    param!(frontend_cpu_ms, 0.01, 100.0),
    param!(tokenize_us_per_token, 0.01, 100.0),
    param!(stream_latency_ms, 0.01, 100.0),
    param!(frontend_jitter, 0.01, 1.0),
    param!(step_jitter, 0.001, 0.5),
];

/// Weight of TTFT's squared log error beside TPOT's.
pub const TTFT_WEIGHT: f64 = 0.5;

pub fn param(name: &str) -> Option<&'static Param> {
    PARAMS.iter().find(|p| p.name == name)
}

/// How far the lab is from the measurements with some constants.
#[derive(Clone, Debug, PartialEq)]
pub struct Errors {
    /// Rows replayed (the others' model or GPU is not in the catalogue, or it does not fit).
    pub replayed: usize,
    pub rows: usize,
    pub tpot_median_abs: f64,
    pub tpot_p90_abs: f64,
    /// Median of the signed error: above 0 the lab is too slow.
    pub tpot_median: f64,
    pub ttft_median_abs: f64,
    pub ttft_p90_abs: f64,
    pub ttft_median: f64,
    /// The objective: weighted mean squared log error.
    pub score: f64,
}

fn nearest_rank(mut v: Vec<f64>, q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
}

impl Errors {
    /// The figures over `rows` rows of which these were replayed, each given by its relative
    /// errors `(TTFT, TPOT)` (prediction / measurement − 1); quantiles by nearest rank, NaN
    /// when none was replayed.
    pub fn of(replayed: &[(f64, f64)], rows: usize) -> Errors {
        let ttft: Vec<f64> = replayed.iter().map(|e| e.0).collect();
        let tpot: Vec<f64> = replayed.iter().map(|e| e.1).collect();
        let abs = |v: &[f64]| v.iter().map(|x| x.abs()).collect::<Vec<f64>>();
        let score: f64 =
            replayed.iter().map(|(t, p)| (1.0 + p).ln().powi(2) + TTFT_WEIGHT * (1.0 + t).ln().powi(2)).sum();
        let n = replayed.len();
        Errors {
            replayed: n,
            rows,
            tpot_median_abs: nearest_rank(abs(&tpot), 0.5),
            tpot_p90_abs: nearest_rank(abs(&tpot), 0.9),
            tpot_median: nearest_rank(tpot, 0.5),
            ttft_median_abs: nearest_rank(abs(&ttft), 0.5),
            ttft_p90_abs: nearest_rank(abs(&ttft), 0.9),
            ttft_median: nearest_rank(ttft, 0.5),
            score: if n > 0 { score / n as f64 } else { f64::INFINITY },
        }
    }
}

/// The lab's error on `rows` with `engine`.
pub fn errors(rows: &[Row], engine: &EngineConfig) -> Errors {
    let replayed: Vec<(f64, f64)> = rows
        .iter()
        .filter_map(|r| predict(r, engine).map(|(t, p)| (t / r.ttft_ms - 1.0, p / r.tpot_ms - 1.0)))
        .collect();
    Errors::of(&replayed, rows.len())
}

/// Where a fit of `rows` starts: the constants of the engine they were all measured on
/// ([`sim_core::profile::Engine::constants`]; a row naming no engine the lab knows runs as
/// vLLM), the calibrated defaults when they mix engines.
pub fn start(rows: &[Row]) -> EngineConfig {
    use sim_core::profile::Engine;
    let engine = |r: &Row| Engine::parse(&r.backend).unwrap_or(Engine::Vllm);
    match rows.first().map(engine) {
        Some(e) if rows.iter().all(|r| engine(r) == e) => e.constants(),
        _ => EngineConfig::default(),
    }
}

/// A fit's outcome: the constants, and the error before and after.
#[derive(Clone, Debug)]
pub struct Fit {
    pub engine: EngineConfig,
    pub fitted: Vec<&'static str>,
    pub before: Errors,
    pub after: Errors,
}

/// Fits `params` (from [`PARAMS`]) to `rows`, starting from `start`; the other constants stay.
/// `max_evals` bounds the replays of all rows.
pub fn fit(rows: &[Row], start: &EngineConfig, params: &[&'static Param], max_evals: usize) -> Fit {
    let before = errors(rows, start);
    let engine = minimise(start, params, &|e| errors(rows, e).score, max_evals);
    Fit { after: errors(rows, &engine), engine, fitted: params.iter().map(|p| p.name).collect(), before }
}

/// The constants `params` that minimise `score`, starting from `start` (the others stay): the
/// search [`fit`] runs, for an objective of one's own (the calibration over both measurement
/// sets). `max_evals` bounds the calls of `score`.
pub fn minimise(
    start: &EngineConfig,
    params: &[&'static Param],
    score: &dyn Fn(&EngineConfig) -> f64,
    max_evals: usize,
) -> EngineConfig {
    let to_engine = |x: &[f64]| {
        let mut e = start.clone();
        for (p, v) in params.iter().zip(x) {
            (p.set)(&mut e, v.exp().clamp(p.min, p.max));
        }
        e
    };
    let bounds: Vec<(f64, f64)> = params.iter().map(|p| (p.min.ln(), p.max.ln())).collect();
    let x0: Vec<f64> = params.iter().map(|p| (p.get)(start).clamp(p.min, p.max).ln()).collect();
    // outside its range a constant is held at the range's end and the score grows with the
    // distance, so the search is led back inside instead of wandering on a flat plateau
    let score = |x: &[f64]| {
        let out: f64 = x.iter().zip(&bounds).map(|(v, (lo, hi))| (lo - v).max(0.0) + (v - hi).max(0.0)).sum();
        score(&to_engine(x)) + out * out
    };
    // restarted from its best point: a simplex that collapsed along a valley starts again with
    // its full size
    let mut best = x0;
    for _ in 0..RESTARTS {
        best = nelder_mead(&best, &bounds, &score, max_evals / RESTARTS);
        for (v, (lo, hi)) in best.iter_mut().zip(&bounds) {
            *v = v.clamp(*lo, *hi);
        }
    }
    to_engine(&best)
}

const RESTARTS: usize = 4;

/// Nelder–Mead simplex search (the standard coefficients 1, 2, ½, ½) from `x0`, with a first
/// simplex of ±0.5 in each coordinate (the constants are searched as logarithms: ×1.65 or ÷1.65);
/// stops when the simplex's scores agree to 1e-12 or after `max_evals` evaluations.
fn nelder_mead(x0: &[f64], bounds: &[(f64, f64)], f: &dyn Fn(&[f64]) -> f64, max_evals: usize) -> Vec<f64> {
    let n = x0.len();
    let mut pts: Vec<(Vec<f64>, f64)> = Vec::with_capacity(n + 1);
    pts.push((x0.to_vec(), f(x0)));
    for i in 0..n {
        let mut x = x0.to_vec();
        // towards the middle of the range
        x[i] += if x[i] + 0.5 > bounds[i].1 { -0.5 } else { 0.5 };
        let fx = f(&x);
        pts.push((x, fx));
    }
    let mut evals = n + 1;
    let along = |a: &[f64], b: &[f64], t: f64| -> Vec<f64> { a.iter().zip(b).map(|(a, b)| a + t * (b - a)).collect() };
    while evals < max_evals {
        pts.sort_by(|a, b| a.1.total_cmp(&b.1));
        if (pts[n].1 - pts[0].1).abs() <= 1e-12 * (1.0 + pts[0].1.abs()) {
            break;
        }
        let centroid: Vec<f64> = (0..n).map(|j| pts[..n].iter().map(|p| p.0[j]).sum::<f64>() / n as f64).collect();
        let worst = pts[n].clone();
        let reflected = along(&centroid, &worst.0, -1.0);
        let fr = f(&reflected);
        evals += 1;
        if fr < pts[0].1 {
            let expanded = along(&centroid, &worst.0, -2.0);
            let fe = f(&expanded);
            evals += 1;
            pts[n] = if fe < fr { (expanded, fe) } else { (reflected, fr) };
        } else if fr < pts[n - 1].1 {
            pts[n] = (reflected, fr);
        } else {
            let contracted =
                if fr < worst.1 { along(&centroid, &reflected, 0.5) } else { along(&centroid, &worst.0, 0.5) };
            let fc = f(&contracted);
            evals += 1;
            if fc < worst.1.min(fr) {
                pts[n] = (contracted, fc);
            } else {
                let best = pts[0].0.clone();
                for p in pts.iter_mut().skip(1) {
                    p.0 = along(&best, &p.0, 0.5);
                    p.1 = f(&p.0);
                    evals += 1;
                }
            }
        }
    }
    pts.sort_by(|a, b| a.1.total_cmp(&b.1));
    pts.swap_remove(0).0
}

/// Reads measurements: a CSV in the `serving_benchmarks.csv` format, or one `vllm bench serve`
/// result JSON. A result file does not record the server's hardware, so `server` gives the GPU,
/// GPU count and precision (and the catalogue model when `model_id` names none).
pub fn read(text: &str, server: &Server) -> Result<Vec<Row>, String> {
    let t = text.trim_start();
    if t.starts_with('{') {
        vllm_result(t, server).map(|r| vec![r])
    } else if t.starts_with("backend,version,model,gpu,dtype,tp,isl,osl,concurrency,ttft_ms,tpot_ms") {
        let rows = crate::calibration::serving::parse(t);
        if rows.is_empty() {
            Err("the CSV has no rows".into())
        } else {
            Ok(rows)
        }
    } else {
        Err("neither a `vllm bench serve` result (JSON object) nor a CSV with the header backend,version,model,gpu,dtype,tp,isl,osl,concurrency,ttft_ms,tpot_ms,...".into())
    }
}

/// What a `vllm bench serve` result does not say about the server.
#[derive(Clone, Debug, Default)]
pub struct Server {
    pub model: Option<String>,
    pub gpu: Option<String>,
    pub num_gpus: Option<u32>,
    pub dtype: Option<String>,
}

/// The catalogue id of a Hugging Face model name: `meta-llama/Llama-3.1-8B-Instruct` →
/// `llama-3.1-8b`, `Qwen/Qwen3-32B` → `qwen3-32b`.
pub fn catalogue_id(model_id: &str) -> Option<String> {
    let base = model_id.rsplit('/').next()?.to_lowercase();
    let mut id = base.as_str();
    for suffix in ["-instruct", "-chat", "-hf", "-fp8", "-awq", "-it"] {
        id = id.strip_suffix(suffix).unwrap_or(id);
    }
    let id = id.replace("meta-llama-", "llama-");
    sim_core::catalog::find_model(&id).map(|m| m.id)
}

fn vllm_result(text: &str, server: &Server) -> Result<Row, String> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    let num = |k: &str| v.get(k).and_then(serde_json::Value::as_f64);
    let need = |k: &str| num(k).ok_or_else(|| format!("`{k}` is missing or not a number"));
    let mean_of = |k: &str| -> Result<f64, String> {
        let a =
            v.get(k).and_then(|x| x.as_array()).ok_or_else(|| format!("`{k}` is missing (a list of token counts)"))?;
        let xs: Vec<f64> = a.iter().filter_map(serde_json::Value::as_f64).filter(|x| *x > 0.0).collect();
        if xs.is_empty() {
            return Err(format!("`{k}` has no positive token counts"));
        }
        Ok(xs.iter().sum::<f64>() / xs.len() as f64)
    };
    let model = match &server.model {
        Some(m) => m.clone(),
        None => {
            let id = v.get("model_id").and_then(|x| x.as_str()).ok_or("`model_id` is missing: give --model")?;
            catalogue_id(id).ok_or_else(|| {
                format!("model_id \"{id}\" is not in the catalogue: give --model (see `llmsim models`)")
            })?
        }
    };
    let concurrency = v.get("max_concurrency").and_then(|x| x.as_u64());
    let request_rate = match v.get("request_rate") {
        Some(serde_json::Value::Number(n)) => n.as_f64(),
        _ => None,
    };
    if concurrency.is_none() && request_rate.is_none() {
        return Err(
            "the run had neither `max_concurrency` nor a finite `request_rate`: all prompts at once is not fitted"
                .into(),
        );
    }
    Ok(Row {
        backend: v.get("backend").and_then(|x| x.as_str()).unwrap_or("vllm").to_string(),
        version: String::new(),
        model,
        gpu: server.gpu.clone().ok_or("a result file does not name its GPU: give --gpu")?,
        dtype: server.dtype.clone().unwrap_or_else(|| "bf16".into()),
        tp: server.num_gpus.unwrap_or(1),
        isl: mean_of("input_lens")?.round() as u32,
        osl: mean_of("output_lens")?.round() as u32,
        concurrency: concurrency.map(|c| c as u32).unwrap_or(0),
        request_rate: if concurrency.is_some() { None } else { request_rate },
        num_prompts: num("completed").map(|c| c as u64),
        ttft_ms: need("mean_ttft_ms")?,
        tpot_ms: need("mean_tpot_ms")?,
        harness: crate::calibration::serving::Harness::Defaults,
    })
}
