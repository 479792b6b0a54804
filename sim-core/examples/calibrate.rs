//! Prints the step-time model's error on every calibration row, and with `--fit` searches the
//! engine constants that minimise the mean squared log error (coordinate descent). With
//! `--serving` it replays the closed-loop serving benchmarks of current engines instead and prints
//! the error table per engine, model and TP degree (`--rows`: every row too).
use sim_core::calibration::errors;
use sim_core::scenario::EngineConfig;

fn score(e: &EngineConfig, rows: &dyn Fn(&str) -> bool) -> f64 {
    let errs: Vec<f64> = errors(e).into_iter().filter(|(r, _, _)| rows(&r.framework)).map(|(_, _, x)| x).collect();
    errs.iter().map(|x| (1.0 + x).ln().powi(2)).sum::<f64>() / errs.len() as f64
}

/// `--serving`: the closed-loop serving benchmarks replayed through the whole simulation, as a
/// markdown table per engine, model and TP degree (`--rows` adds every row).
fn serving(engine: &EngineConfig, every_row: bool) {
    use sim_core::calibration::serving::errors;
    let errs = errors(engine);
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
        add(format!("{} (all)", r.backend), e);
        add("all".to_string(), e);
    }
    groups.sort_by_key(|g| (g.0 != "all", !g.0.ends_with("(all)"), g.0.clone()));
    println!("| rows | replayed | TPOT median abs error | TPOT p90 abs error | TPOT median error | TTFT median abs error | TTFT median error |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (key, e, n) in &groups {
        let x = sim_core::fit::Errors::of(e, *n);
        if x.replayed == 0 {
            println!("| {key} | 0/{n} | — | — | — | — | — |");
            continue;
        }
        println!(
            "| {key} | {}/{n} | {:.1}% | {:.1}% | {:+.1}% | {:.1}% | {:+.1}% |",
            x.replayed,
            x.tpot_median_abs * 100.0,
            x.tpot_p90_abs * 100.0,
            x.tpot_median * 100.0,
            x.ttft_median_abs * 100.0,
            x.ttft_median * 100.0
        );
    }
}

fn main() {
    let mut best = EngineConfig::default();
    if std::env::args().any(|a| a == "--serving") {
        serving(&best, std::env::args().any(|a| a == "--rows"));
        return;
    }
    let trt = |f: &str| f.starts_with("TensorRT");
    if std::env::args().any(|a| a == "--fit") {
        let grids: [(&str, Vec<f64>); 6] = [
            ("mfu", (10..=19).map(|i| i as f64 * 0.05).collect()),
            ("mbu", (10..=19).map(|i| i as f64 * 0.05).collect()),
            ("overhead", (0..=12).map(|i| i as f64 * 0.25).collect()),
            ("allreduce", vec![0.0, 5.0, 10.0, 20.0, 30.0, 50.0, 80.0, 120.0]),
            ("fp8", (8..=20).map(|i| i as f64 * 0.05).collect()),
            ("sharp", vec![1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.5, 3.0, 4.0]),
        ];
        for _round in 0..4 {
            for (name, grid) in &grids {
                let mut bs = f64::INFINITY;
                let mut bv = 0.0;
                for &v in grid {
                    let mut e = best.clone();
                    match *name {
                        "mfu" => e.mfu = v,
                        "mbu" => e.mbu = v,
                        "overhead" => e.iteration_overhead_ms = v,
                        "allreduce" => e.allreduce_latency_us = v,
                        "fp8" => e.fp8_efficiency = v,
                        _ => e.roofline_sharpness = v,
                    }
                    let s = score(&e, &trt);
                    if s < bs {
                        bs = s;
                        bv = v;
                    }
                }
                match *name {
                    "mfu" => best.mfu = bv,
                    "mbu" => best.mbu = bv,
                    "overhead" => best.iteration_overhead_ms = bv,
                    "allreduce" => best.allreduce_latency_us = bv,
                    "fp8" => best.fp8_efficiency = bv,
                    _ => best.roofline_sharpness = bv,
                }
            }
        }
        println!("best {:?} rms log error (TensorRT-LLM rows) {:.3}", best, score(&best, &trt).sqrt());
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
