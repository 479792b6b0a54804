//! `llmsim bench`: a serving benchmark run the way users run `vllm bench serve` against a real
//! server, printed with the names `vllm bench serve` saves (see `lab_content::bench`).

use crate::Fail;
use lab_content::bench::{percentile_word, Bench, BenchResult, Engine, Load, RampUp, Rate, Schedule, Spread};
use sim_core::{Scenario, ScenarioError};

pub(crate) const USAGE: &str = "\
  llmsim bench --model M --gpu G [--num-gpus N] [--dtype D] [--kv-dtype D] [--engine vllm|sglang|trtllm]
               --input-len I --output-len O [--random-range-ratio R] [--num-prompts N] [--seed S]
               [--request-rate R|inf] [--burstiness B|inf] [--max-concurrency C]
               [--ramp-up-strategy linear|exponential --ramp-up-start-rps A --ramp-up-end-rps B]
               [--num-warmups W] [--gpu-memory-utilization U] [--max-num-seqs N]
               [--max-num-batched-tokens N] [--max-model-len N] [--metric-percentiles 50,90,99]
               [--format table|json]
                              a `vllm bench serve`-style benchmark (random dataset) on the
                              engine's scheduler defaults (vllm: the default; the flags given
                              win); the JSON has the keys `vllm bench serve` saves. Lengths are
                              exact, or with --random-range-ratio R (0 <= R < 1) drawn from
                              floor(I(1-R))..=ceil(I(1+R)) and likewise for O, as vLLM's are.
                              The client sends as vLLM's does: --request-rate inf (the default)
                              sends every prompt at once; a rate R sends them at gaps drawn from
                              a gamma of shape B (--burstiness, 1 = Poisson, inf = even gaps)
                              and mean 1/R, rescaled to end at N/R; a ramp-up sends prompt i at
                              the rate at i/(N-1) of the way from A to B rps (whole numbers,
                              1 <= A <= B; not with --request-rate); --max-concurrency C holds a
                              prompt at the client while C are in flight and times it from its
                              send; --num-warmups is accepted and changes nothing (the lab's
                              server has nothing to warm up)";

/// Each flag and the scenario field it sets: a field's message names the flag.
const FLAGS: [(&str, &str); 23] = [
    ("--model", "model"),
    ("--gpu", "gpu"),
    ("--num-gpus", "num_gpus"),
    ("--dtype", "dtype"),
    ("--kv-dtype", "kv_dtype"),
    ("--gpu-memory-utilization", "gpu_memory_utilization"),
    ("--seed", "seed"),
    ("--max-num-seqs", "scheduler.max_num_seqs"),
    ("--max-num-batched-tokens", "scheduler.max_num_batched_tokens"),
    ("--max-model-len", "scheduler.max_model_len"),
    ("--max-concurrency", "classes[0].arrival.users"),
    ("--max-concurrency", "classes[0].max_concurrency"),
    ("--request-rate", "classes[0].arrival.rate_per_s"),
    ("--request-rate", "classes[0].arrival.path"),
    ("--burstiness", "classes[0].arrival.cv"),
    ("--num-prompts", "classes[0].num_requests"),
    ("--input-len", "classes[0].input_tokens"),
    ("--output-len", "classes[0].output_tokens"),
    ("--random-range-ratio", "random_range_ratio"),
    ("--ramp-up-strategy", ""),
    ("--ramp-up-start-rps", ""),
    ("--ramp-up-end-rps", ""),
    ("--num-warmups", ""),
];

struct Args {
    values: Vec<(&'static str, String)>,
    engine: Engine,
    format: String,
    percentiles: Vec<f64>,
}

impl Args {
    fn get(&self, flag: &str) -> Option<&str> {
        self.values.iter().rev().find(|(f, _)| *f == flag).map(|(_, v)| v.as_str())
    }
    fn require(&self, flag: &str) -> Result<&str, Fail> {
        self.get(flag).ok_or_else(|| Fail(format!("bench needs {flag}")))
    }
    fn whole(&self, flag: &str) -> Result<Option<u64>, Fail> {
        self.get(flag)
            .map(|v| v.parse::<u64>().map_err(|_| Fail(format!("{flag} must be a whole number ≥ 0, got \"{v}\""))))
            .transpose()
    }
    fn number(&self, flag: &str) -> Result<Option<f64>, Fail> {
        self.get(flag)
            .map(|v| match v.parse::<f64>() {
                Ok(x) if x.is_finite() => Ok(x),
                _ => Err(Fail(format!("{flag} must be a number, got \"{v}\""))),
            })
            .transpose()
    }
}

fn parse(args: &[String]) -> Result<Args, Fail> {
    let mut a = Args { values: Vec::new(), engine: Engine::Vllm, format: "table".into(), percentiles: vec![99.0] };
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].as_str();
        let value = args.get(i + 1).cloned().ok_or_else(|| Fail(format!("{flag} needs a value")));
        match flag {
            "--format" => {
                a.format = value?;
                if a.format != "json" && a.format != "table" {
                    return Err(Fail(format!("--format must be json or table, got \"{}\"", a.format)));
                }
            }
            "--engine" => {
                let v = value?;
                a.engine = Engine::parse(&v).ok_or_else(|| {
                    let names: Vec<&str> = Engine::ALL.iter().map(|e| e.name()).collect();
                    Fail(format!("--engine must be one of {}, got \"{v}\"", names.join(", ")))
                })?;
            }
            "--metric-percentiles" => {
                let v = value?;
                a.percentiles = v
                    .split(',')
                    .map(|p| match p.trim().parse::<f64>() {
                        Ok(x) if x > 0.0 && x < 100.0 => Ok(x),
                        _ => Err(Fail(format!(
                            "--metric-percentiles must be numbers between 0 and 100 (exclusive), comma-separated, got \"{v}\""
                        ))),
                    })
                    .collect::<Result<_, _>>()?;
            }
            _ => match FLAGS.iter().find(|(f, _)| *f == flag) {
                Some((f, _)) => a.values.push((f, value?)),
                None => return Err(Fail(format!("bench: unknown argument \"{flag}\"\n{USAGE}"))),
            },
        }
        i += 2;
    }
    Ok(a)
}

/// The benchmark the arguments describe: the server with the engine's defaults
/// (`lab_content::bench::server_json`; vLLM's unless `--engine`), the flags given written
/// over them, and the client.
fn bench_of(a: &Args) -> Result<Bench, Fail> {
    let model = a.require("--model")?;
    let gpu = a.require("--gpu")?;
    let input_len = a.whole("--input-len")?.ok_or_else(|| Fail("bench needs --input-len".into()))?;
    let output_len = a.whole("--output-len")?.ok_or_else(|| Fail("bench needs --output-len".into()))?;
    let spread = match a.number("--random-range-ratio")? {
        None => Spread::Fixed,
        Some(r) if (0.0..1.0).contains(&r) => Spread::Symmetric(r),
        Some(r) => return Err(Fail(format!("--random-range-ratio must be at least 0 and below 1, got {r}"))),
    };
    let rate = match a.get("--request-rate") {
        None | Some("inf") => None,
        Some(_) => a.number("--request-rate")?,
    };
    let concurrency = match a.whole("--max-concurrency")? {
        Some(0) => return Err(Fail("--max-concurrency must be at least 1, got 0".into())),
        c => c.map(|c| u32::try_from(c).unwrap_or(u32::MAX)),
    };
    let burstiness = match a.get("--burstiness") {
        Some("inf") => f64::INFINITY,
        _ => a.number("--burstiness")?.unwrap_or(1.0),
    };
    if burstiness <= 0.0 {
        return Err(Fail(format!("--burstiness must be > 0 (or inf), got {burstiness}")));
    }
    a.whole("--num-warmups")?;
    let ramp = ramp_of(a)?;
    if ramp.is_some() && rate.is_some() {
        return Err(Fail(
            "--request-rate: a ramp-up sets the rate (--ramp-up-start-rps to --ramp-up-end-rps); leave --request-rate out".into(),
        ));
    }
    if a.get("--burstiness").is_some() && rate.is_none() && ramp.is_none() {
        return Err(Fail("--burstiness needs a finite --request-rate or a ramp-up".into()));
    }
    let load = match (rate.map(Rate::PerS).or(ramp), concurrency) {
        (Some(rate), max_concurrency) => Load::Schedule(Schedule { rate, burstiness, max_concurrency }),
        (None, Some(c)) => Load::MaxConcurrency(c),
        (None, None) => Load::AllAtOnce,
    };
    let clip = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
    let longest = spread.bounds(clip(input_len)).1.saturating_add(spread.bounds(clip(output_len)).1);
    let mut server = lab_content::bench::server_json(
        a.engine,
        model,
        gpu,
        a.whole("--num-gpus")?.unwrap_or(1),
        a.get("--dtype").unwrap_or("bf16"),
        longest,
    );
    if let Some(seed) = a.whole("--seed")? {
        server["seed"] = seed.into();
    }
    // the engine's defaults leave these out of the scheduler block: a limit given is set there
    let limits = [
        ("--max-num-seqs", "max_num_seqs"),
        ("--max-num-batched-tokens", "max_num_batched_tokens"),
        ("--max-model-len", "max_model_len"),
    ];
    for (flag, key) in limits {
        if let Some(v) = a.whole(flag)? {
            server["scheduler"][key] = v.into();
        }
    }
    if let Some(u) = a.number("--gpu-memory-utilization")? {
        server["gpu_memory_utilization"] = u.into();
    }
    if let Some(kv) = a.get("--kv-dtype") {
        server["kv_dtype"] = kv.into();
    }
    let server = Scenario::from_json(&server.to_string()).map_err(name_flags)?;
    let num_prompts = a.whole("--num-prompts")?.unwrap_or(1000);
    let too_big = |flag: &str, v: u64| Fail(format!("{flag} must be at most {}, got {v}", u32::MAX));
    Ok(Bench {
        server,
        input_len: u32::try_from(input_len).map_err(|_| too_big("--input-len", input_len))?,
        output_len: u32::try_from(output_len).map_err(|_| too_big("--output-len", output_len))?,
        spread,
        num_prompts,
        load,
        percentiles: a.percentiles.clone(),
    })
}

/// `--ramp-up-strategy` with its start and end rates (whole requests per second, as vLLM reads
/// them): each needs the others, 1 ≤ start ≤ end ≤ the largest request rate.
fn ramp_of(a: &Args) -> Result<Option<Rate>, Fail> {
    let start = a.whole("--ramp-up-start-rps")?;
    let end = a.whole("--ramp-up-end-rps")?;
    let Some(name) = a.get("--ramp-up-strategy") else {
        return match (start, end) {
            (None, None) => Ok(None),
            _ => {
                Err(Fail("--ramp-up-start-rps and --ramp-up-end-rps need --ramp-up-strategy linear|exponential".into()))
            }
        };
    };
    let strategy = RampUp::parse(name).ok_or_else(|| {
        let names: Vec<&str> = RampUp::ALL.iter().map(|r| r.name()).collect();
        Fail(format!("--ramp-up-strategy must be one of {}, got \"{name}\"", names.join(", ")))
    })?;
    let (Some(start), Some(end)) = (start, end) else {
        return Err(Fail("--ramp-up-strategy needs both --ramp-up-start-rps and --ramp-up-end-rps".into()));
    };
    let max = sim_core::settings::find("rate_per_s").and_then(|r| r.number()).map_or(1e6, |n| n.max) as u64;
    if !(1..=max).contains(&start) {
        return Err(Fail(format!("--ramp-up-start-rps must be 1..={max}, got {start}")));
    }
    if !(start..=max).contains(&end) {
        return Err(Fail(format!("--ramp-up-end-rps must be --ramp-up-start-rps ({start})..={max}, got {end}")));
    }
    Ok(Some(Rate::Ramp { strategy, start_rps: start as u32, end_rps: end as u32 }))
}

/// The scenario's messages with each field replaced by the flag that sets it.
fn name_flags(e: ScenarioError) -> Fail {
    let lines: Vec<String> = e
        .errors
        .iter()
        .map(|fe| {
            let sets =
                |field: &str| !field.is_empty() && (fe.field == field || fe.field.starts_with(&format!("{field}.")));
            match FLAGS.iter().find(|(_, field)| sets(field)) {
                // The position is in the JSON the flags were written into, which the user never saw.
                Some((flag, _)) => format!("{flag}: {}", strip_position(&fe.message)),
                None => fe.to_string(),
            }
        })
        .collect();
    Fail(lines.join("\n"))
}

fn strip_position(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(i) if message[i..].contains(" column ") => &message[..i],
        _ => message,
    }
}

pub(crate) fn cmd_bench(args: &[String]) -> Result<(), Fail> {
    let a = parse(args)?;
    let bench = bench_of(&a)?;
    let result = bench.run(&sim_core::sim::BuiltinTraces).map_err(name_flags)?;
    if let Some(why) = turned_away(&bench) {
        eprintln!("llmsim: {why}");
    }
    if a.format == "json" {
        println!("{}", sim_core::pretty::to_string_pretty(&result).map_err(|e| Fail(e.to_string()))?);
    } else {
        print!("{}", table(&result));
    }
    Ok(())
}

/// Why the server turns every prompt of the benchmark away at arrival, if it does (what the
/// engine would answer each with an error): the sequence is longer than `max_model_len`, or,
/// without chunked prefill, the prompt is longer than one step's token budget.
fn turned_away(b: &Bench) -> Option<String> {
    use sim_core::scenario::TooLong;
    let s = &b.server.scheduler;
    // every prompt is turned away when even the shortest is
    let (input, output) = (b.spread.bounds(b.input_len).0, b.spread.bounds(b.output_len).0);
    Some(match s.turns_away(input, output)? {
        TooLong::Context => format!(
            "every request failed: {input} + {output} tokens exceed the server's max_model_len {} (--max-model-len)",
            s.max_model_len
        ),
        TooLong::Step => format!(
            "every request failed: {input}-token prompts do not fit one {}-token step without chunked prefill (--max-num-batched-tokens)",
            s.max_num_batched_tokens
        ),
    })
}

/// The result as `vllm bench serve` prints it.
fn table(r: &BenchResult) -> String {
    let mut out = String::new();
    let mut line = |label: &str, value: String| out.push_str(&format!("{label:<40} {value:<10}\n"));
    line("Successful requests:", r.completed.to_string());
    line("Failed requests:", r.failed.to_string());
    if let Some(c) = r.max_concurrency {
        line("Maximum request concurrency:", c.to_string());
    }
    if let Some(rate) = r.request_rate {
        line("Request rate configured (RPS):", format!("{rate:.2}"));
    }
    line("Benchmark duration (s):", format!("{:.2}", r.duration));
    line("Total input tokens:", r.total_input_tokens.to_string());
    line("Total generated tokens:", r.total_output_tokens.to_string());
    line("Request throughput (req/s):", format!("{:.2}", r.request_throughput));
    line("Output token throughput (tok/s):", format!("{:.2}", r.output_throughput));
    line("Total token throughput (tok/s):", format!("{:.2}", r.total_token_throughput));
    let headers = [
        ("TTFT", "Time to First Token"),
        ("TPOT", "Time per Output Token (excl. 1st token)"),
        ("ITL", "Inter-token Latency"),
        ("E2EL", "End-to-end Latency"),
    ];
    let mut s = format!("{:=^50}\n", " Serving Benchmark Result ");
    s.push_str(&out);
    for ((_, st), (name, header)) in r.latencies().into_iter().zip(headers) {
        s.push_str(&format!("{:-^50}\n", header));
        s.push_str(&format!("{:<40} {:<10.2}\n", format!("Mean {name} (ms):"), st.mean));
        s.push_str(&format!("{:<40} {:<10.2}\n", format!("Median {name} (ms):"), st.median));
        for (p, v) in &st.percentiles {
            s.push_str(&format!("{:<40} {:<10.2}\n", format!("P{} {name} (ms):", percentile_word(*p)), v));
        }
    }
    s.push_str(&format!("{}\n", "=".repeat(50)));
    s
}
