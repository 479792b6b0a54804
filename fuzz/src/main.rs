//! `labfuzz`: fuzz the lab's outside input; exit 1 on any finding.

use lab_fuzz::input::Input;
use lab_fuzz::mutate::Pool;
use lab_fuzz::{Config, Report};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

const USAGE: &str = "usage: labfuzz [--runs N] [--seed S] [--out DIR] [--max-events N] [--no-regressions] [--quiet]
       labfuzz --seed S --input I [--print]   run (or print) input I of seed S
       labfuzz --replay FILE...               run saved inputs (*.scenario.json, *.link.txt, *.trace.txt)

Runs the regression inputs (fuzz/regressions), then N inputs mutated from the presets, the
docs/scenario.md examples, share links and the built-in traces; each accepted one runs to its end
(at most --max-events events, default 200000). Findings (panic, hang, broken invariant, unclear
message) are saved to DIR (default target/fuzz-findings) and make the exit status 1.";

struct Args {
    cfg: Config,
    input: Option<u64>,
    print: bool,
    replay: Vec<PathBuf>,
    quiet: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut cfg = Config {
        out: Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/fuzz-findings")),
        regressions: Some(lab_fuzz::regressions_dir()),
        verbose: true,
        ..Config::default()
    };
    let (mut input, mut print, mut replay, mut quiet) = (None, false, Vec::new(), false);
    let mut it = std::env::args().skip(1);
    let num = |v: Option<String>, what: &str| -> Result<u64, String> {
        let v = v.ok_or_else(|| format!("{what} needs a value"))?;
        v.replace('_', "").parse().map_err(|_| format!("{what} must be a whole number, got \"{v}\""))
    };
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runs" => cfg.runs = num(it.next(), "--runs")?,
            "--seed" => cfg.seed = num(it.next(), "--seed")?,
            "--input" => input = Some(num(it.next(), "--input")?),
            "--max-events" => cfg.limits.max_events = num(it.next(), "--max-events")?.max(1),
            "--out" => cfg.out = Some(it.next().ok_or("--out needs a folder")?.into()),
            "--no-regressions" => cfg.regressions = None,
            "--print" => print = true,
            "--quiet" => quiet = true,
            "--replay" => replay.extend(it.by_ref().map(PathBuf::from)),
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument \"{other}\"")),
        }
    }
    cfg.verbose = !quiet;
    Ok(Args { cfg, input, print, replay, quiet })
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("labfuzz: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    if !args.replay.is_empty() {
        return replay(&args);
    }
    if let Some(i) = args.input {
        let input = lab_fuzz::nth_input(&Pool::new(lab_fuzz::corpus::seeds()), args.cfg.seed, i);
        if args.print {
            print!("{}", input.to_file_text());
            return ExitCode::SUCCESS;
        }
        return single(&format!("--seed {} --input {i}", args.cfg.seed), &input, &args);
    }
    lab_fuzz::spawn_watchdog(Duration::from_secs(120), args.cfg.out.clone());
    let t0 = Instant::now();
    let report = match lab_fuzz::fuzz(&args.cfg) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("labfuzz: {e}");
            return ExitCode::from(2);
        }
    };
    print_report(&report, &args.cfg, t0.elapsed(), args.quiet);
    if report.failing() > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn single(source: &str, input: &Input, args: &Args) -> ExitCode {
    match lab_fuzz::run_one(input, args.cfg.limits) {
        Ok(out) => {
            println!("{source} ({}, {} bytes): {out:?}", input.kind(), input.len());
            ExitCode::SUCCESS
        }
        Err(f) => {
            println!("{source} ({}, {} bytes): FINDING {}: {}", input.kind(), input.len(), f.kind, f.detail);
            ExitCode::FAILURE
        }
    }
}

fn replay(args: &Args) -> ExitCode {
    let mut failed = false;
    for path in &args.replay {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let input =
            match std::fs::read_to_string(path).map_err(|e| e.to_string()).and_then(|t| Input::from_file(name, &t)) {
                Ok(i) => i,
                Err(e) => {
                    eprintln!("labfuzz: {}: {e}", path.display());
                    return ExitCode::from(2);
                }
            };
        failed |= single(&path.display().to_string(), &input, args) != ExitCode::SUCCESS;
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn print_report(r: &Report, cfg: &Config, took: Duration, quiet: bool) {
    let secs = took.as_secs_f64().max(1e-9);
    println!(
        "labfuzz: seed {}, {} inputs ({} regression inputs) in {secs:.1} s, {:.0} inputs/s",
        cfg.seed,
        r.runs,
        r.regressions,
        r.runs as f64 / secs
    );
    println!(
        "  accepted {} (ran to the end {}, stopped at {} events {}), rejected {} with a clear message; {} simulated events",
        r.accepted, r.finished, cfg.limits.max_events, r.stopped, r.rejected, r.events
    );
    for (kind, (n, ok)) in &r.by_kind {
        println!("  {kind:>8}: {n} inputs, {ok} accepted");
    }
    println!("  distinct rejection messages: {}", r.messages.len());
    if !quiet {
        let mut shapes: Vec<_> = r.messages.iter().collect();
        shapes.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(b.0)));
        for (_, (n, example)) in shapes.iter().take(40) {
            let one_line: String = example.replace('\n', " ").chars().take(150).collect();
            println!("    {n:>7}  {one_line}");
        }
    }
    println!(
        "  findings: {} ({} failing, {} known open regressions)",
        r.findings.len(),
        r.failing(),
        r.findings.len() - r.failing()
    );
    for (bug, n) in &r.open_bug_inputs {
        println!("  known open bug {bug}: {n} inputs reach it (not run)");
    }
    for name in &r.open_not_run {
        println!("  known open regression {name}: not run in a build without overflow checks");
    }
    for f in &r.findings {
        let tag = if f.known { "known" } else { "FINDING" };
        let saved = f.saved.as_ref().map(|p| format!(" saved as {}", p.display())).unwrap_or_default();
        println!("  {tag} {} ({}) {}: {}{saved}", f.finding.kind, f.kind, f.source, f.finding.detail);
    }
}
