//! `llmsim fit`: the engine constants fitted to a team's own measurements (see `lab_content::fit`).

use crate::Fail;
use lab_content::fit::{fit, param, read, start, Errors, Server, PARAMS};

pub(crate) const USAGE: &str = "\
  llmsim fit FILE... [--gpu G] [--num-gpus N] [--dtype D] [--model M] [--params P,P,...]
             [--max-evals N] [--format table|json]
                              fit the engine constants to `vllm bench serve` result JSON files
                              (their hardware from the flags) or serving_benchmarks.csv-style
                              CSVs; prints an \"engine\" block and the error before and after";

/// The constants fitted when `--params` is not given.
const DEFAULT_PARAMS: [&str; 4] = ["mfu", "mbu", "iteration_overhead_ms", "allreduce_latency_us"];

pub(crate) fn cmd_fit(args: &[String]) -> Result<(), Fail> {
    let mut files = Vec::new();
    let mut server = Server::default();
    let mut names: Vec<String> = DEFAULT_PARAMS.iter().map(|s| s.to_string()).collect();
    let mut max_evals = 400usize;
    let mut format = "table".to_string();
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].as_str();
        if !flag.starts_with("--") {
            files.push(flag.to_string());
            i += 1;
            continue;
        }
        let v = args.get(i + 1).cloned().ok_or_else(|| Fail(format!("{flag} needs a value")))?;
        match flag {
            "--gpu" => server.gpu = Some(v),
            "--model" => server.model = Some(v),
            "--dtype" => server.dtype = Some(v),
            "--num-gpus" => {
                server.num_gpus =
                    Some(v.parse().map_err(|_| Fail(format!("--num-gpus must be 1, 2, 4 or 8, got \"{v}\"")))?)
            }
            "--params" => names = v.split(',').map(|s| s.trim().to_string()).collect(),
            "--max-evals" => {
                max_evals = match v.parse() {
                    Ok(n) if (10..=100_000).contains(&n) => n,
                    _ => {
                        return Err(Fail(format!("--max-evals must be a whole number from 10 to 100000, got \"{v}\"")))
                    }
                }
            }
            "--format" => {
                if v != "json" && v != "table" {
                    return Err(Fail(format!("--format must be json or table, got \"{v}\"")));
                }
                format = v
            }
            _ => return Err(Fail(format!("fit: unknown argument \"{flag}\"\n{USAGE}"))),
        }
        i += 2;
    }
    if files.is_empty() {
        return Err(Fail(format!("fit needs at least one measurement file\n{USAGE}")));
    }
    if let Some(d) = &server.dtype {
        let names: Vec<&str> = sim_core::Dtype::ALL.iter().map(|d| d.name()).collect();
        sim_core::Dtype::parse(d)
            .ok_or_else(|| Fail(format!("--dtype must be one of {}, got \"{d}\"", names.join(", "))))?;
    }
    if let Some(g) = &server.gpu {
        sim_core::catalog::find_gpu(g)
            .ok_or_else(|| Fail(format!("--gpu \"{g}\" is not in the catalogue (see `llmsim gpus`)")))?;
    }
    if let Some(m) = &server.model {
        sim_core::catalog::find_model(m)
            .ok_or_else(|| Fail(format!("--model \"{m}\" is not in the catalogue (see `llmsim models`)")))?;
    }
    let mut params = Vec::new();
    for n in &names {
        let known: Vec<&str> = PARAMS.iter().map(|p| p.name).collect();
        params.push(param(n).ok_or_else(|| {
            Fail(format!("--params: \"{n}\" is not an engine constant; one of {}", known.join(", ")))
        })?);
    }
    let mut rows = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).map_err(|e| Fail(format!("cannot read {f}: {e}")))?;
        rows.extend(read(&text, &server).map_err(|m| Fail(format!("{f}: {m}")))?);
    }
    // from the constants of the engine the runs were measured on
    let fitted = fit(&rows, &start(&rows), &params, max_evals);
    if fitted.after.replayed == 0 {
        return Err(Fail(
            "no measurement could be replayed: its model or GPU is not in the catalogue (`llmsim models`, `llmsim gpus`), or it does not fit"
                .into(),
        ));
    }
    let engine: serde_json::Map<String, serde_json::Value> =
        params.iter().map(|p| (p.name.to_string(), round6((p.get)(&fitted.engine)).into())).collect();
    if format == "json" {
        let out = serde_json::json!({
            "engine": engine,
            "before": errors_json(&fitted.before),
            "after": errors_json(&fitted.after),
        });
        println!("{}", sim_core::pretty::to_string_pretty(&out).map_err(|e| Fail(e.to_string()))?);
        return Ok(());
    }
    println!("measurements: {} rows, {} replayed", fitted.after.rows, fitted.after.replayed);
    println!("{:<28} {:>10} {:>10}", "", "before", "after");
    let pct = |x: f64| format!("{:.1}%", x * 100.0);
    for (label, b, a) in [
        ("TPOT median |error|", fitted.before.tpot_median_abs, fitted.after.tpot_median_abs),
        ("TPOT p90 |error|", fitted.before.tpot_p90_abs, fitted.after.tpot_p90_abs),
        ("TTFT median |error|", fitted.before.ttft_median_abs, fitted.after.ttft_median_abs),
        ("TTFT p90 |error|", fitted.before.ttft_p90_abs, fitted.after.ttft_p90_abs),
        ("TTFT median error (signed)", fitted.before.ttft_median, fitted.after.ttft_median),
    ] {
        println!("{label:<28} {:>10} {:>10}", pct(b), pct(a));
    }
    println!("\npaste into a scenario:");
    let block = serde_json::json!({ "engine": engine });
    let text = sim_core::pretty::to_string_pretty(&block).map_err(|e| Fail(e.to_string()))?;
    println!("{}", text.trim_start_matches('{').trim_end().trim_end_matches('}').trim_matches('\n'));
    Ok(())
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

fn errors_json(e: &Errors) -> serde_json::Value {
    serde_json::json!({
        "rows": e.rows,
        "replayed": e.replayed,
        "tpot_median_abs_error": e.tpot_median_abs,
        "tpot_p90_abs_error": e.tpot_p90_abs,
        "ttft_median_abs_error": e.ttft_median_abs,
        "ttft_p90_abs_error": e.ttft_p90_abs,
        "ttft_median_error": e.ttft_median,
    })
}
