//! `llmsim`: run LLM Serving Lab scenarios from the command line.

use sim_core::catalog;
use sim_core::presets::{self, PRESETS};
use sim_core::settings;
use sim_core::{Scenario, ScenarioError, SimOptions, Simulation, Summary, TraceLoader};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod bench;
mod fit;
mod lessons;
mod plan;
mod table;

/// The usage text; the sweep knobs come from sim-core's settings table.
fn usage() -> String {
    let params: Vec<&str> = settings::sweepable().map(|r| r.id).collect();
    format!(
        "\
llmsim — simulate LLM serving: queue → prefill → decode on a virtual GPU

USAGE:
  llmsim run <scenario.json | --preset NAME> [--format json|table] [--requests out.csv] [--seed N]
  llmsim sweep <scenario.json | --preset NAME> --param P --from A --to B [--steps N] [--out sweep.csv]
                              P: {}
{}
{}
  llmsim lessons              list the guided lessons (choices, the answer each teaches, runs)
  llmsim lesson ID [--seeds N] [--from S] [--format table|json] [--set PATH=VALUE]...
                 [--runs i,j] [--neighbours [--check]]
                              run a lesson on seeds S..S+N-1 (default 1..20): the answer each
                              seed's runs bear out, and the share that agree with the lesson;
                              --set changes a setting (scheduler.max_num_seqs=64,
                              classes[*].arrival.rate_per_s=8) in every run or the --runs given;
                              --neighbours: agreement with the load x0.7 and x1.3, each engine
                              profile, the engine's default caps, the next GPU, the next model;
                              --check: exit 2 if one does not hold (>= 80% of seeds) and the
                              lesson's explanation does not name it
  llmsim check <contract.json>    run a resource contract's acceptance test (exit 0 pass, 1 fail)
  llmsim contract [NAME]      print an example resource contract (chat, chat-moe, rag, mixed)
{}
  llmsim presets              list built-in scenarios
  llmsim show PRESET          print a preset's scenario JSON, every field written out (the engine
                              profile's scheduler defaults too)
  llmsim models               list catalogue models
  llmsim gpus                 list catalogue GPUs

Exit codes: 0 ok, 1 contract failed, 2 bad input or an output that could not be written (message on stderr).",
        params.join(" | "),
        bench::USAGE,
        fit::USAGE,
        plan::USAGE
    )
}

pub(crate) struct Fail(pub(crate) String);

impl From<ScenarioError> for Fail {
    fn from(e: ScenarioError) -> Self {
        Fail(e.to_string())
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("check") {
        return match cmd_check(&args[1..]) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::from(1),
            Err(Fail(msg)) => {
                eprintln!("llmsim: {msg}");
                ExitCode::from(2)
            }
        };
    }
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail(msg)) => {
            eprintln!("llmsim: {msg}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<(), Fail> {
    let Some(cmd) = args.first() else {
        println!("{}", usage());
        return Ok(());
    };
    let rest = &args[1..];
    match cmd.as_str() {
        "run" => cmd_run(rest),
        "bench" => bench::cmd_bench(rest),
        "fit" => fit::cmd_fit(rest),
        "lessons" => lessons::cmd_lessons(),
        "lesson" => lessons::cmd_lesson(rest),
        "sweep" => cmd_sweep(rest),
        "check" => cmd_check(rest).map(|_| ()),
        "contract" => {
            let name = rest.first().map_or("chat", String::as_str);
            let text = lab_content::contract::example(name).ok_or_else(|| {
                let names: Vec<&str> = lab_content::contract::EXAMPLES.iter().map(|(n, _)| *n).collect();
                Fail(format!("contract: no example `{name}` (the examples: {})", names.join(", ")))
            })?;
            print!("{text}");
            Ok(())
        }
        "plan" => plan::cmd_plan(rest),
        "presets" => {
            let w = PRESETS.iter().map(|p| p.id.len()).max().unwrap_or(0);
            for p in PRESETS {
                let mark = if p.id == presets::DEFAULT_PRESET { " (default)" } else { "" };
                println!("{:w$}  {}{mark}", p.id, p.summary);
            }
            Ok(())
        }
        "show" => {
            let name = rest.first().ok_or_else(|| Fail("show needs a preset name (see `llmsim presets`)".into()))?;
            let p = find_preset(name)?;
            // every field as the run uses it: what the file leaves to its engine profile too
            println!("{}", p.scenario().to_json_pretty());
            Ok(())
        }
        "models" => {
            println!(
                "{:18} {:>8} {:>8} {:>6} {:>8} {:>8} {:>12} {:>8}  attention",
                "id", "params", "active", "layers", "heads", "kv_heads", "KV KiB/tok", "context"
            );
            for m in catalog::models() {
                let f = sim_core::memory::KvFormula::of(&m, 2.0);
                let kv = f.bytes_per_token() / 1024.0;
                println!(
                    "{:18} {:>7.2}B {:>7.2}B {:>6} {:>8} {:>8} {:>12.1} {:>8}  {}",
                    m.id,
                    m.params_total / 1e9,
                    m.params_active / 1e9,
                    m.num_layers,
                    m.num_attention_heads,
                    m.num_kv_heads,
                    kv,
                    m.max_context,
                    attention_note(&f, &m)
                );
            }
            Ok(())
        }
        "gpus" => {
            println!(
                "{:13} {:>8} {:>8} {:>10} {:>10} {:>17} {:>8}",
                "id", "memory", "TB/s", "bf16 TF/s", "fp8 TF/s", "link (GB/s/dir)", "$/hour"
            );
            for g in catalog::gpus() {
                println!(
                    "{:13} {:>5.0}GiB {:>8.3} {:>10.1} {:>10} {:>17} {:>8.2}",
                    g.id,
                    g.hbm_bytes / (1u64 << 30) as f64,
                    g.mem_bandwidth / 1e12,
                    g.bf16_flops / 1e12,
                    g.fp8_flops.map(|f| format!("{:.1}", f / 1e12)).unwrap_or_else(|| "-".into()),
                    format!("{:.0} {}", g.interconnect_bw / 1e9, short_link(&g.interconnect)),
                    g.usd_per_hour
                );
            }
            Ok(())
        }
        "-h" | "--help" | "help" => {
            println!("{}", usage());
            Ok(())
        }
        other => Err(Fail(format!("unknown command \"{other}\"\n\n{}", usage()))),
    }
}

fn short_link(s: &str) -> &str {
    s.split_whitespace().next().unwrap_or(s)
}

fn find_preset(name: &str) -> Result<&'static presets::Preset, Fail> {
    presets::find(name).ok_or_else(|| {
        let ids: Vec<&str> = PRESETS.iter().map(|p| p.id).collect();
        Fail(format!("no preset \"{name}\"; presets: {}", ids.join(", ")))
    })
}

/// Trace paths are read relative to the scenario file; built-in trace names need no file.
pub(crate) struct FileTraces {
    pub(crate) base: Option<PathBuf>,
}

impl TraceLoader for FileTraces {
    fn load(&self, path: &str) -> Result<String, String> {
        let p = Path::new(path);
        let full = match (&self.base, p.is_absolute()) {
            (Some(b), false) => b.join(p),
            _ => p.to_path_buf(),
        };
        match std::fs::read_to_string(&full) {
            Ok(t) => Ok(t),
            Err(e) => sim_core::workload::builtin_trace(path)
                .map(str::to_string)
                .ok_or_else(|| format!("cannot read {}: {e}", full.display())),
        }
    }
}

struct RunArgs {
    source: Option<String>,
    preset: Option<String>,
    format: String,
    requests: Option<String>,
    seed: Option<u64>,
}

fn parse_run_args(args: &[String]) -> Result<RunArgs, Fail> {
    let mut r = RunArgs { source: None, preset: None, format: "json".into(), requests: None, seed: None };
    let mut i = 0;
    let value = |i: usize, flag: &str| args.get(i + 1).cloned().ok_or_else(|| Fail(format!("{flag} needs a value")));
    while i < args.len() {
        match args[i].as_str() {
            "--preset" => {
                r.preset = Some(value(i, "--preset")?);
                i += 1;
            }
            "--format" => {
                r.format = value(i, "--format")?;
                if r.format != "json" && r.format != "table" {
                    return Err(Fail(format!("--format must be json or table, got \"{}\"", r.format)));
                }
                i += 1;
            }
            "--requests" => {
                r.requests = Some(value(i, "--requests")?);
                i += 1;
            }
            "--seed" => {
                let v = value(i, "--seed")?;
                r.seed =
                    Some(v.parse().map_err(|_| {
                        Fail(format!("--seed must be an integer 0..=18446744073709551615, got \"{v}\""))
                    })?);
                i += 1;
            }
            a if a.starts_with('-') => return Err(Fail(format!("unknown option {a}\n\n{}", usage()))),
            a => {
                if r.source.is_some() {
                    return Err(Fail(format!("unexpected argument \"{a}\"")));
                }
                r.source = Some(a.to_string());
            }
        }
        i += 1;
    }
    if r.source.is_some() == r.preset.is_some() {
        return Err(Fail("run needs exactly one of <scenario.json> or --preset NAME".into()));
    }
    Ok(r)
}

pub(crate) fn load_scenario(source: Option<&str>, preset: Option<&str>) -> Result<(Scenario, FileTracesBox), Fail> {
    if let Some(name) = preset {
        return Ok((find_preset(name)?.scenario(), Box::new(FileTraces { base: None })));
    }
    let path = source.expect("checked");
    let text = std::fs::read_to_string(path).map_err(|e| Fail(format!("cannot read {path}: {e}")))?;
    let scenario = Scenario::from_json(&text).map_err(|e| Fail(format!("{path}: {e}")))?;
    let base = Path::new(path).parent().map(Path::to_path_buf);
    Ok((scenario, Box::new(FileTraces { base })))
}

type FileTracesBox = Box<dyn TraceLoader>;

fn cmd_run(args: &[String]) -> Result<(), Fail> {
    let a = parse_run_args(args)?;
    let (mut scenario, traces) = load_scenario(a.source.as_deref(), a.preset.as_deref())?;
    if let Some(seed) = a.seed {
        scenario.seed = seed;
    }
    let mut sim =
        Simulation::with_options(&scenario, traces.as_ref(), SimOptions { recent_capacity: 0, ..Default::default() })?;
    let out = a.requests.as_deref().map(RequestsCsv::create).transpose()?;
    if let Some(out) = &out {
        sim.set_request_sink(out.sink());
    }
    let summary = sim.run_to_end();
    drop(sim);
    if let Some(out) = out {
        out.finish()?;
    }
    print_summary(&scenario, &summary, &a.format);
    Ok(())
}

/// The per-request CSV of `llmsim run --requests`: the first write error is kept and reported
/// when the run ends (a full disk or an unwritable path exits non-zero with a message).
struct RequestsCsv {
    path: String,
    state: std::rc::Rc<std::cell::RefCell<(std::io::BufWriter<std::fs::File>, Option<std::io::Error>)>>,
}

impl RequestsCsv {
    const HEADER: &'static str =
        "id,class,arrival_s,input_tokens,output_tokens,outcome,queue_ms,ttft_ms,tpot_ms,e2e_ms,preemptions,met_slo";

    fn create(path: &str) -> Result<RequestsCsv, Fail> {
        let file = std::fs::File::create(path).map_err(|e| Fail(format!("cannot write {path}: {e}")))?;
        let mut w = std::io::BufWriter::new(file);
        let err = writeln!(w, "{}", Self::HEADER).err();
        Ok(RequestsCsv { path: path.to_string(), state: std::rc::Rc::new(std::cell::RefCell::new((w, err))) })
    }

    fn sink(&self) -> sim_core::sim::RequestSink {
        let state = self.state.clone();
        Box::new(move |r| {
            let mut st = state.borrow_mut();
            if st.1.is_some() {
                return;
            }
            let o = |x: Option<f64>| x.map(|v| format!("{v:.3}")).unwrap_or_default();
            let outcome =
                serde_json::to_value(r.outcome).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
            let res = writeln!(
                st.0,
                "{},{},{:.6},{},{},{},{},{},{},{},{},{}",
                r.id,
                r.class,
                r.arrival_s,
                r.input_tokens,
                r.output_tokens,
                outcome,
                o(r.queue_ms),
                o(r.ttft_ms),
                o(r.tpot_ms),
                o(r.e2e_ms),
                r.preemptions,
                r.met_slo
            );
            st.1 = res.err();
        })
    }

    /// Flushes the file; the first error of the whole run, if any, is the message.
    fn finish(self) -> Result<(), Fail> {
        let mut st = self.state.borrow_mut();
        let flushed = st.0.flush();
        match st.1.take().map_or(flushed, Err) {
            Ok(()) => Ok(()),
            Err(e) => Err(Fail(format!("cannot write {}: {e}", self.path))),
        }
    }
}

fn print_summary(scenario: &Scenario, s: &Summary, format: &str) {
    if format == "table" {
        print!("{}", table::render(scenario, s));
    } else {
        println!("{}", serde_json::to_string_pretty(s).expect("summary serialises"));
    }
}

fn cmd_sweep(args: &[String]) -> Result<(), Fail> {
    let (mut source, mut preset, mut param, mut from, mut to, mut steps, mut out) =
        (None, None, None, None, None, 10usize, None);
    let mut i = 0;
    let value = |i: usize, flag: &str| args.get(i + 1).cloned().ok_or_else(|| Fail(format!("{flag} needs a value")));
    let number =
        |v: String, flag: &str| v.parse::<f64>().map_err(|_| Fail(format!("{flag} must be a number, got \"{v}\"")));
    while i < args.len() {
        match args[i].as_str() {
            "--preset" => preset = Some(value(i, "--preset")?),
            "--param" => {
                let v = value(i, "--param")?;
                param = Some(lab_content::sweep::SweepParam::parse(&v).ok_or_else(|| {
                    let ids: Vec<&str> = settings::sweepable().map(|r| r.id).collect();
                    Fail(format!("--param must be one of {}, got \"{v}\"", ids.join(", ")))
                })?);
            }
            "--from" => from = Some(number(value(i, "--from")?, "--from")?),
            "--to" => to = Some(number(value(i, "--to")?, "--to")?),
            "--steps" => {
                let v = value(i, "--steps")?;
                steps = v.parse().map_err(|_| Fail(format!("--steps must be an integer 1..=200, got \"{v}\"")))?;
            }
            "--out" => out = Some(value(i, "--out")?),
            a if a.starts_with('-') => return Err(Fail(format!("unknown option {a}\n\n{}", usage()))),
            a => {
                source = Some(a.to_string());
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    if source.is_some() == preset.is_some() {
        return Err(Fail("sweep needs exactly one of <scenario.json> or --preset NAME".into()));
    }
    let param = param.ok_or_else(|| Fail("sweep needs --param".into()))?;
    let (from, to) =
        (from.ok_or_else(|| Fail("sweep needs --from".into()))?, to.ok_or_else(|| Fail("sweep needs --to".into()))?);
    let (scenario, _traces) = load_scenario(source.as_deref(), preset.as_deref())?;
    let sweep = lab_content::sweep::Sweep::new(&scenario, param, from, to, steps)?;
    let points = sweep.run();
    let csv = lab_content::sweep::to_csv(param, &points);
    match out {
        Some(path) => std::fs::write(&path, csv).map_err(|e| Fail(format!("cannot write {path}: {e}")))?,
        None => print!("{csv}"),
    }
    Ok(())
}

/// Runs a contract's acceptance test; prints one line per target. Ok(pass).
fn cmd_check(args: &[String]) -> Result<bool, Fail> {
    let [path] = args else {
        return Err(Fail("check needs one contract file (see `llmsim contract` for an example)".into()));
    };
    let text = std::fs::read_to_string(path).map_err(|e| Fail(format!("cannot read {path}: {e}")))?;
    let contract = lab_content::contract::Contract::from_json(&text).map_err(|e| Fail(format!("{path}: {e}")))?;
    let base = Path::new(path).parent().map(Path::to_path_buf);
    let report = contract.check(&FileTraces { base })?;
    println!("{}", contract.name.as_deref().unwrap_or("contract"));
    for l in &report.lines {
        println!(
            "  {}  {:<44} {:>12.3} {} {:<10.3} {}",
            if l.pass { "PASS" } else { "FAIL" },
            l.field,
            l.measured,
            l.op,
            l.target,
            l.unit
        );
    }
    let failed = report.lines.iter().filter(|l| !l.pass).count();
    println!(
        "{}: {} of {} lines pass",
        if report.pass { "ACCEPTED" } else { "REJECTED" },
        report.lines.len() - failed,
        report.lines.len()
    );
    Ok(report.pass)
}

/// How a model's KV grows, in words: its attention form, the layers with a window and the
/// layers with a fixed state; `MoE E/k` for a mixture of experts.
fn attention_note(f: &sim_core::memory::KvFormula, m: &catalog::ModelSpec) -> String {
    use catalog::AttentionForm;
    let mut out = match f.form {
        AttentionForm::Mha => "MHA".to_string(),
        AttentionForm::Gqa => "GQA".to_string(),
        AttentionForm::Mla => format!("MLA (latent {} + rope {})", f.kv_lora_rank, f.qk_rope_head_dim),
    };
    if f.window_layers > 0 {
        out += &format!(", {} of {} layers window {}", f.window_layers, m.num_layers, f.window);
    }
    if f.linear_layers > 0 {
        out += &format!(", {} linear layers ({:.0} MiB state/seq)", f.linear_layers, f.state_bytes / 1048576.0);
    }
    if m.is_moe() {
        out += &format!(", MoE {}/{}", m.num_experts, m.experts_per_token);
    }
    out
}
