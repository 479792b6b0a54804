//! Prints the step-time model's error on every calibration row, and with `--fit` searches the
//! engine constants that minimise the mean squared log error (coordinate descent).
use sim_core::calibration::errors;
use sim_core::scenario::EngineConfig;

fn score(e: &EngineConfig, rows: &dyn Fn(&str) -> bool) -> f64 {
    let errs: Vec<f64> = errors(e).into_iter().filter(|(r, _, _)| rows(&r.framework)).map(|(_, _, x)| x).collect();
    errs.iter().map(|x| (1.0 + x).ln().powi(2)).sum::<f64>() / errs.len() as f64
}

fn main() {
    let mut best = EngineConfig::default();
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
