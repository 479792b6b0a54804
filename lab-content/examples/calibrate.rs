//! Prints the step-time model's error on every calibration row, and with `--fit` searches the
//! engine constants on both measurement sets together (`joint_fit`). With
//! `--serving` it replays the closed-loop serving benchmarks of current engines instead and prints
//! the error table per engine, model and TP degree (`--rows`: every row too; `--csv FILE`: the
//! rows of another CSV of the same format instead).
use lab_content::calibration::errors;
use sim_core::scenario::EngineConfig;

fn score(e: &EngineConfig, rows: &dyn Fn(&str) -> bool) -> f64 {
    let errs: Vec<f64> = errors(e).into_iter().filter(|(r, _, _)| rows(&r.framework)).map(|(_, _, x)| x).collect();
    errs.iter().map(|x| (1.0 + x).ln().powi(2)).sum::<f64>() / errs.len() as f64
}

/// `--serving`: the closed-loop serving benchmarks replayed through the whole simulation, as a
/// markdown table per engine, model and TP degree (`--rows` adds every row).
fn serving(engine: &EngineConfig, every_row: bool, csv: Option<&str>) {
    use lab_content::calibration::serving::{errors, errors_of, parse};
    let errs = match csv {
        Some(path) => {
            let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("--csv {path}: {e}"));
            errors_of(parse(&text), engine)
        }
        None => errors(engine),
    };
    if every_row {
        for (r, p) in &errs {
            match p {
                Some(x) => println!(
                    "{:6} {:12} {:8} {:4} tp{} {:>5}/{:<4} c{:<3} TTFT {:>8.1} vs {:>8.1} {:>+6.1}%  TPOT {:>6.2} vs {:>6.2} {:>+6.1}%",
                    r.backend, r.model, r.gpu, r.dtype, r.tp, r.isl, r.osl, r.concurrency, x.ttft_ms, r.ttft_ms, x.ttft_error * 100.0, x.tpot_ms, r.tpot_ms, x.tpot_error * 100.0
                ),
                None => println!("{:6} {:12} {:8} {:4} tp{} not replayable (model or GPU not in the catalogue, or does not fit)", r.backend, r.model, r.gpu, r.dtype, r.tp),
            }
        }
    }
    // (name, (TTFT error, TPOT error) of each row replayed, rows)
    type Group = (String, Vec<(f64, f64)>, usize);
    let mut groups: Vec<Group> = Vec::new();
    let mut add = |key: String, e: Option<(f64, f64)>| {
        let i = match groups.iter().position(|g| g.0 == key) {
            Some(i) => i,
            None => {
                groups.push((key, Vec::new(), 0));
                groups.len() - 1
            }
        };
        groups[i].2 += 1;
        if let Some(e) = e {
            groups[i].1.push(e);
        }
    };
    for (r, p) in &errs {
        let e = p.map(|x| (x.ttft_error, x.tpot_error));
        add(format!("{} {} {} TP{}", r.backend, r.model, r.dtype, r.tp), e);
        add(format!("{} TP{}", r.backend, r.tp), e);
        add(format!("{} (all)", r.backend), e);
        add(format!("{} ISL/OSL {}/{}", r.backend, r.isl, r.osl), e);
        add(format!("{} concurrency {:03}", r.backend, r.concurrency), e);
        add("all".to_string(), e);
    }
    let kind = |k: &str| match k {
        "all" => 0,
        k if k.ends_with("(all)") => 1,
        k if k.contains("ISL/OSL") => 3,
        k if k.contains("concurrency") => 4,
        k if k.matches(' ').count() > 1 => 5,
        _ => 2,
    };
    groups.sort_by_key(|g| (kind(&g.0), g.0.clone()));
    println!("| rows | replayed | TPOT median error | TPOT median \\|error\\| | TPOT p90 \\|error\\| | TTFT median error | TTFT median \\|error\\| | TTFT p90 \\|error\\| |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (key, e, n) in &groups {
        let x = lab_content::fit::Errors::of(e, *n);
        if x.replayed == 0 {
            println!("| {key} | 0/{n} | — | — | — | — | — | — |");
            continue;
        }
        println!(
            "| {key} | {}/{n} | {:+.1}% | {:.1}% | {:.1}% | {:+.1}% | {:.1}% | {:.1}% |",
            x.replayed,
            x.tpot_median * 100.0,
            x.tpot_median_abs * 100.0,
            x.tpot_p90_abs * 100.0,
            x.ttft_median * 100.0,
            x.ttft_median_abs * 100.0,
            x.ttft_p90_abs * 100.0,
        );
    }
}

/// The serving rows' figures with `engine`, replayed on two threads.
fn serving_errors(engine: &EngineConfig, rows: &[lab_content::calibration::serving::Row]) -> lab_content::fit::Errors {
    use lab_content::calibration::serving::predict;
    let half = rows.len().div_ceil(2);
    let replayed: Vec<(f64, f64)> = std::thread::scope(|s| {
        let parts: Vec<_> = rows
            .chunks(half.max(1))
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .filter_map(|r| predict(r, engine).map(|(t, p)| (t / r.ttft_ms - 1.0, p / r.tpot_ms - 1.0)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        parts.into_iter().flat_map(|h| h.join().expect("replay thread")).collect()
    });
    lab_content::fit::Errors::of(&replayed, rows.len())
}

/// The constants `--fit` moves: the engine's own costs. The kernels' shares of the roofs (`mfu`,
/// `mbu`, `roofline_sharpness`, `fp8_efficiency`) stay as the 2023 offline rows fixed them
/// (fitting them to the closed-loop TTFTs bends the roofline away from the batch measurements);
/// the PCIe all-reduce has one row.
const FITTED: [&str; 3] = ["iteration_overhead_ms", "layer_launch_us", "allreduce_latency_us"];

/// `--fit`: the constants of `FITTED` fitted on both sets together by Nelder–Mead on log scales: the objective is the serving rows' score
/// (`fit::Errors::score`: TPOT's mean squared log error plus half TTFT's) plus the mean squared
/// log error of the 2023 TensorRT-LLM rows (the known fp8 Mixtral outlier left out).
fn joint_fit(start: &EngineConfig) -> EngineConfig {
    let serving_rows = lab_content::calibration::serving::rows();
    let trt = |f: &str| f.starts_with("TensorRT");
    let params: Vec<&'static lab_content::fit::Param> =
        FITTED.iter().map(|n| lab_content::fit::param(n).expect("a fit parameter")).collect();
    let objective = |e: &EngineConfig| {
        let old = errors(e)
            .into_iter()
            .filter(|(r, _, _)| trt(&r.framework) && !(r.model == "Mixtral-8x7B" && r.precision == "FP8"))
            .map(|(_, _, x)| (1.0 + x).ln().powi(2))
            .collect::<Vec<f64>>();
        let old = old.iter().sum::<f64>() / old.len() as f64;
        old + serving_errors(e, &serving_rows).score
    };
    println!("start score {:.4}", objective(start));
    let best = lab_content::fit::minimise(start, &params, &objective, 160);
    println!("best score {:.4}", objective(&best));
    for p in &params {
        println!("  {} = {:.4}", p.name, (p.get)(&best));
    }
    best
}

fn main() {
    // `--engine '{"frontend_cpu_ms": 5}'`: constants other than the defaults (a scenario's
    // `engine` block; `--gpu-only`: without the front end and timing variation)
    let args: Vec<String> = std::env::args().collect();
    let mut best = match args.iter().position(|a| a == "--engine").and_then(|i| args.get(i + 1)) {
        Some(json) => serde_json::from_str(json).unwrap_or_else(|e| panic!("--engine: {e}")),
        None => EngineConfig::default(),
    };
    if args.iter().any(|a| a == "--gpu-only") {
        best = best.gpu_only();
    }
    if std::env::args().any(|a| a == "--serving") {
        // `--csv FILE`: rows of the same format held out of the calibration, replayed the same way
        let csv = args.iter().position(|a| a == "--csv").and_then(|i| args.get(i + 1));
        serving(&best, std::env::args().any(|a| a == "--rows"), csv.map(String::as_str));
        return;
    }
    if std::env::args().any(|a| a == "--fit") {
        best = joint_fit(&best);
        let trt = |f: &str| f.starts_with("TensorRT");
        println!("rms log error (TensorRT-LLM rows) {:.3}", score(&best, &trt).sqrt());
    }
    let errs = errors(&best);
    for (r, p, e) in &errs {
        println!(
            "{:>16} {:>12} {:>4} tp{} bs{:<5} {:>5}/{:<5} {:>26} measured {:>9.1} model {:>9.1} {:>+6.1}%",
            r.gpu,
            r.model,
            r.precision,
            r.tp,
            r.batch,
            r.input,
            r.output,
            r.metric,
            r.value,
            p,
            e * 100.0
        );
    }
    let mean_abs = errs.iter().map(|(_, _, e)| e.abs()).sum::<f64>() / errs.len() as f64;
    println!("rows {} mean |error| {:.1}%", errs.len(), mean_abs * 100.0);
}
