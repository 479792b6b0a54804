//! `llmsim plan`: the cheapest configuration that meets a resource contract.

use crate::{Fail, FileTraces};
use lab_content::contract::Contract;
use lab_content::plan::{bound, PlanAnswer, PlanOptions, Planner};
use sim_core::profile::Engine;
use std::path::Path;

pub const USAGE: &str = "  llmsim plan <contract.json | --example NAME> [--format table|json] [--gpus id,id]
             [--max-gpus N] [--engines vllm,sglang,trtllm] [--no-split]
                              the cheapest configuration that meets a contract: GPU, tensor
                              parallelism, engine, scheduler caps, colocated or prefill/decode
                              split, router and replicas; each cheaper one's binding
                              constraint; the Pareto fronts. Examples: chat, chat-moe, rag,
                              mixed (`llmsim contract NAME` prints one)";

pub fn cmd_plan(args: &[String]) -> Result<(), Fail> {
    let mut path: Option<&str> = None;
    let mut example: Option<&str> = None;
    let mut json = false;
    let mut opts = PlanOptions::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| -> Result<&String, Fail> {
            it.next().ok_or_else(|| Fail(format!("plan: {flag} needs a value")))
        };
        match a.as_str() {
            "--format" => match value("--format")?.as_str() {
                "json" => json = true,
                "table" => json = false,
                f => return Err(Fail(format!("plan: --format is table or json, not `{f}`"))),
            },
            "--example" => example = Some(value("--example")?.as_str()),
            "--gpus" => {
                let ids: Vec<String> = value("--gpus")?.split(',').map(|s| s.trim().to_string()).collect();
                for id in &ids {
                    if sim_core::catalog::find_gpu(id).is_none() {
                        return Err(Fail(format!(
                            "plan: --gpus names `{id}`, not a catalogue GPU (see `llmsim gpus`)"
                        )));
                    }
                }
                opts.gpus = Some(ids);
            }
            "--max-gpus" => {
                let v = value("--max-gpus")?;
                opts.max_gpus = v
                    .parse::<u32>()
                    .ok()
                    .filter(|n| (1..=4096).contains(n))
                    .ok_or_else(|| Fail(format!("plan: --max-gpus is a whole number from 1 to 4096, not `{v}`")))?;
            }
            "--engines" => {
                let mut es = Vec::new();
                for e in value("--engines")?.split(',') {
                    es.push(Engine::parse(e.trim()).ok_or_else(|| {
                        Fail(format!("plan: --engines names `{e}`; the engines are vllm, sglang, trtllm"))
                    })?);
                }
                opts.engines = es;
            }
            "--no-split" => opts.splits = false,
            p if !p.starts_with("--") && path.is_none() => path = Some(p),
            other => return Err(Fail(format!("plan: unknown argument `{other}`"))),
        }
    }
    let (contract, base) = match (path, example) {
        (Some(p), None) => {
            let text = std::fs::read_to_string(p).map_err(|e| Fail(format!("cannot read {p}: {e}")))?;
            let c = Contract::from_json(&text).map_err(|e| Fail(format!("{p}: {e}")))?;
            (c, Path::new(p).parent().map(Path::to_path_buf))
        }
        (None, Some(name)) => {
            let text = lab_content::contract::example(name).ok_or_else(|| {
                Fail(format!(
                    "plan: no example `{name}` (the examples: {})",
                    lab_content::contract::EXAMPLES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
                ))
            })?;
            (Contract::from_json(text)?, None)
        }
        _ => return Err(Fail("plan needs one contract file or --example NAME (see `llmsim contract`)".into())),
    };
    let traces = FileTraces { base };
    keep_freed_memory();
    let start = std::time::Instant::now();
    let mut planner = Planner::new(&contract, &opts, &traces)?;
    let mut first: Option<f64> = None;
    while planner.step() {
        if first.is_none() && planner.progress().best_usd_per_hour.is_some() {
            first = Some(start.elapsed().as_secs_f64());
        }
    }
    let answer = planner.answer();
    let seconds = start.elapsed().as_secs_f64();
    if json {
        let mut v = serde_json::to_value(&answer).map_err(|e| Fail(format!("plan: {e}")))?;
        if let Some(o) = v.as_object_mut() {
            o.insert("seconds".into(), serde_json::json!((seconds * 1000.0).round() / 1000.0));
            o.insert("first_answer_seconds".into(), serde_json::json!(first.map(|f| (f * 1000.0).round() / 1000.0)));
        }
        println!("{}", serde_json::to_string_pretty(&v).map_err(|e| Fail(format!("plan: {e}")))?);
    } else {
        print_table(&contract, &answer, seconds, first);
    }
    Ok(())
}

/// Keeps the memory a finished run frees for the next run: glibc maps large blocks afresh each
/// time and returns freed memory above 128 KiB to the kernel, so every one of the plan's runs
/// would zero-fill its histograms' pages again (a third of the time in the kernel).
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets two of glibc's allocator thresholds; it is called before any
    // other thread exists and changes no memory that is in use.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 64 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
    }
}

fn print_table(contract: &Contract, a: &PlanAnswer, seconds: f64, first: Option<f64>) {
    println!("{}", contract.name.as_deref().unwrap_or("contract"));
    match &a.best {
        Some(b) => {
            println!(
                "BEST  {}  ${:.2}/hour, ${:.3} per million good tokens",
                b.plan.candidate.label(b.plan.units),
                b.usd_per_hour,
                b.usd_per_million_good_tokens
            );
            println!(
                "      one unit carries {:.0}% of the load; {:.0} output tok/s per GPU, {:.0} tok/s per user",
                b.plan.unit_capacity * 100.0,
                b.plan.tokens_per_s_per_gpu,
                b.plan.tokens_per_s_per_user
            );
            println!("  launch:");
            for l in &b.launch {
                println!("    {l}");
            }
            println!("  slack (share of the target left):");
            for s in &b.slack {
                println!("    {:<44} {:>12.3} vs {:<10.3} {:>+7.0}%", s.rule, s.measured, s.target, s.slack * 100.0);
            }
        }
        None => println!("NOTHING PASSES"),
    }
    if let Some(n) = &a.next_cheaper {
        println!(
            "NEXT CHEAPER  {}  ${:.2}/hour fails: {}",
            n.contract.workload.name.as_deref().unwrap_or(""),
            n.usd_per_hour,
            n.fails
                .iter()
                .map(|f| format!("{} {:.3} vs {:.3}", f.rule, f.measured, f.target))
                .collect::<Vec<_>>()
                .join("; ")
        );
        println!("      bound by {}: {}", n.bound.label(), n.why);
    }
    if !a.rejected.is_empty() {
        println!("CHEAPER, AND WHY NOT (the constraint that bound first; engines and token budgets that fail alike on one line):");
        // one line per GPU, parallelism, layout, units, cap and constraint
        let groups = lab_content::plan::group_rejected(&a.rejected);
        for g in groups.iter().take(15) {
            let r = g.first;
            println!("  ${:>8.2}/h  {:<32} [{}]", r.usd_per_hour, g.label, g.variants.join(", "));
            println!("              {}: {}", r.bound.label(), r.why);
        }
        if groups.len() > 15 {
            println!("  … {} more (--format json lists every candidate)", groups.len() - 15);
        }
        let mut tally: Vec<(bound::Bound, usize)> =
            bound::Bound::ALL.iter().map(|b| (*b, a.rejected.iter().filter(|r| r.bound == *b).count())).collect();
        tally.retain(|t| t.1 > 0);
        tally.sort_by_key(|t| std::cmp::Reverse(t.1));
        println!(
            "  bound by: {}",
            tally.iter().map(|(b, n)| format!("{} {n}", b.label())).collect::<Vec<_>>().join(", ")
        );
    }
    if !a.excluded.is_empty() {
        let first = &a.excluded[0];
        println!(
            "LEFT OUT BY MEMORY: {} GPU × parallelism pairs (e.g. {} × {}: {})",
            a.excluded.len(),
            first.tp,
            first.gpu,
            first.why
        );
    }
    if let Some(i) = &a.infeasible {
        println!("no candidate meets the contract; bound most often by {}: {}", i.bound.label(), i.why);
        if let Some(c) = &i.closest {
            println!("  closest: {} (${:.2}/h), fails {}", c.candidate.label(c.units), c.usd_per_hour, c.fails.len());
        }
    }
    if !a.pareto.cost_ttft.is_empty() {
        println!("PARETO: cost against TTFT p99");
        for f in &a.pareto.cost_ttft {
            println!(
                "  ${:>8.2}/h  TTFT p99 {:>8.1} ms  {}",
                f.usd_per_hour,
                f.ttft_p99_ms,
                f.candidate.label(f.units)
            );
        }
        println!("PARETO: tokens/s per GPU against tokens/s per user");
        for f in &a.pareto.gpu_user {
            println!(
                "  {:>8.0} tok/s/GPU  {:>6.0} tok/s/user  {}",
                f.tokens_per_s_per_gpu,
                f.tokens_per_s_per_user,
                f.candidate.label(f.units)
            );
        }
    }
    println!(
        "searched {} candidates, simulated {} runs in {:.2} s (first answer {})",
        a.searched,
        a.simulated,
        seconds,
        first.map_or("none".into(), |f| format!("{f:.2} s"))
    );
}
