//! # lab-fuzz: the lab's outside input, fuzzed through to a finished run
//!
//! A seeded, deterministic, structure-aware mutational fuzzer on stable Rust. It starts from the
//! built-in presets, the examples of docs/scenario.md, valid share links and the built-in
//! traces ([`corpus`]), mutates them ([`mutate`]) and feeds each result to the parser that reads
//! it: `Scenario::from_json`, the share-link decoder, or the trace parser behind
//! `Simulation::with_options`. An accepted input is run to its end, bounded ([`target`]).
//!
//! A **finding** is a panic, a hang (no simulated progress over a large event window, or more
//! events than the input's size allows), a broken invariant, or a rejection whose message is
//! empty, a panic's text, or names neither a field nor a line. Input `i` of seed `s` is built
//! from those two numbers alone, so `labfuzz --seed s --input i` reproduces it; findings are
//! also saved as files that `labfuzz --replay FILE` reads.

pub mod corpus;
pub mod input;
pub mod mutate;
pub mod target;

use input::Input;
use mutate::{FuzzRng, Pool};
use rand::SeedableRng;
use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
pub use target::{Finding, Outcome, RunLimits};

/// The message and place of the last panic (the hook keeps it instead of printing it).
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

thread_local! {
    /// Set while `run_one` runs an input: only those panics are kept quiet.
    static IN_INPUT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Routes the panic messages of inputs to `LAST_PANIC` instead of stderr (once per process);
/// other panics print as usual.
pub fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !IN_INPUT.with(|f| f.get()) {
                return default(info);
            }
            let msg = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(no message)".into());
            let place = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
            if let Ok(mut last) = LAST_PANIC.lock() {
                *last = Some(format!("{msg}{place}"));
            }
        }));
    });
}

/// Runs one input, turning a panic into a finding.
pub fn run_one(input: &Input, limits: RunLimits) -> Result<Outcome, Finding> {
    guarded(|| target::run_input(input, limits))
}

/// Runs `f`, turning a panic inside it into a finding that carries the panic's message.
pub fn guarded(f: impl FnOnce() -> Result<Outcome, Finding>) -> Result<Outcome, Finding> {
    quiet_panics();
    IN_INPUT.with(|f| f.set(true));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    IN_INPUT.with(|f| f.set(false));
    match result {
        Ok(r) => r,
        Err(_) => {
            let msg = LAST_PANIC.lock().ok().and_then(|mut m| m.take()).unwrap_or_else(|| "(no message)".into());
            Err(Finding { kind: "panic", detail: msg })
        }
    }
}

/// The random stream of input `index` of a run seeded with `seed`.
pub fn input_rng(seed: u64, index: u64) -> FuzzRng {
    let mut z = seed ^ index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    FuzzRng::seed_from_u64(z ^ (z >> 31))
}

/// Input `index` of the run seeded with `seed`: the seeds themselves come first, unmutated.
pub fn nth_input(pool: &Pool, seed: u64, index: u64) -> Input {
    if let Some((_, s)) = pool.seeds.get(index as usize) {
        return s.clone();
    }
    mutate::generate(&mut input_rng(seed, index), pool)
}

/// One finding, with what reproduces it.
#[derive(Clone, Debug)]
pub struct Found {
    pub finding: Finding,
    /// `--seed S --input I`, or the regression file's name.
    pub source: String,
    pub kind: &'static str,
    pub saved: Option<PathBuf>,
    /// A regression input of a bug not fixed yet (`open-*`): reported, not failing.
    pub known: bool,
}

/// Counts of a fuzz run.
#[derive(Debug, Default)]
pub struct Report {
    pub runs: u64,
    pub accepted: u64,
    pub rejected: u64,
    /// Accepted and ran to their end / stopped at `RunLimits::max_events`.
    pub finished: u64,
    pub stopped: u64,
    pub events: u64,
    pub by_kind: BTreeMap<&'static str, (u64, u64)>,
    /// Distinct rejection messages (numbers and quoted text blanked) → (count, first example).
    pub messages: BTreeMap<String, (u64, String)>,
    pub findings: Vec<Found>,
    pub regressions: u64,
    /// Open regression inputs left out of this build (no overflow checks).
    pub open_not_run: Vec<String>,
    /// Generated inputs that reach a known open bug (`target::OPEN_BUGS`), not run.
    pub open_bug_inputs: BTreeMap<&'static str, u64>,
}

impl Report {
    pub fn failing(&self) -> usize {
        self.findings.iter().filter(|f| !f.known).count()
    }

    fn record(&mut self, kind: &'static str, result: &Result<Outcome, Finding>) {
        self.runs += 1;
        let entry = self.by_kind.entry(kind).or_default();
        entry.0 += 1;
        match result {
            Ok(Outcome::Rejected(msgs)) => {
                self.rejected += 1;
                for m in msgs {
                    let e = self.messages.entry(message_shape(m)).or_insert((0, m.clone()));
                    e.0 += 1;
                }
            }
            Ok(Outcome::Finished { events }) => {
                self.accepted += 1;
                entry.1 += 1;
                self.finished += 1;
                self.events += events;
            }
            Ok(Outcome::Stopped { events }) => {
                self.accepted += 1;
                entry.1 += 1;
                self.stopped += 1;
                self.events += events;
            }
            Err(_) => {}
        }
    }
}

/// A message with its numbers and quoted values blanked, so one kind of error counts once.
pub fn message_shape(m: &str) -> String {
    let mut out = String::with_capacity(m.len());
    let mut chars = m.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '0'..='9' => {
                while chars.peek().is_some_and(|d| d.is_ascii_digit() || *d == '.' || *d == 'e' || *d == '-') {
                    chars.next();
                }
                out.push('#');
            }
            '"' | '`' => {
                for d in chars.by_ref() {
                    if d == c {
                        break;
                    }
                }
                out.push_str("\"…\"");
            }
            _ => out.push(c),
        }
    }
    out
}

/// What a fuzz run does.
#[derive(Clone, Debug)]
pub struct Config {
    pub seed: u64,
    pub runs: u64,
    /// Where inputs of findings are saved (none: not saved).
    pub out: Option<PathBuf>,
    pub limits: RunLimits,
    /// Regression inputs run first (fuzz/regressions).
    pub regressions: Option<PathBuf>,
    /// Called with the report every few hundred runs and at the end (progress lines).
    pub verbose: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config { seed: 1, runs: 1000, out: None, limits: RunLimits::default(), regressions: None, verbose: false }
    }
}

/// The regression inputs shipped beside the crate.
pub fn regressions_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions")
}

/// The inputs of a regressions folder, by file name, sorted.
pub fn read_regressions(dir: &Path) -> Result<Vec<(String, Input)>, String> {
    let mut out = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("").to_string();
        if name.ends_with(".md") || name.starts_with('.') {
            continue;
        }
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        out.push((name.clone(), Input::from_file(&name, &text)?));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// Inputs started so far, and the one running now (what the watchdog reports).
static STARTED: AtomicU64 = AtomicU64::new(0);
static CURRENT: Mutex<Option<(String, Input)>> = Mutex::new(None);

fn starting(source: &str, input: &Input) {
    STARTED.fetch_add(1, Ordering::Relaxed);
    if let Ok(mut c) = CURRENT.lock() {
        *c = Some((source.to_string(), input.clone()));
    }
}

/// A wall-clock guard against a hang inside one event, which event counting cannot see: if one
/// input runs longer than `limit` (normal inputs take milliseconds), it prints the input's
/// source, saves it to `out` and exits with status 3. The fuzz loop itself reads no clock.
pub fn spawn_watchdog(limit: std::time::Duration, out: Option<PathBuf>) {
    std::thread::spawn(move || {
        let mut seen = (u64::MAX, std::time::Instant::now());
        loop {
            std::thread::sleep(std::time::Duration::from_secs(1));
            let now = STARTED.load(Ordering::Relaxed);
            if now != seen.0 {
                seen = (now, std::time::Instant::now());
            } else if seen.1.elapsed() > limit {
                let current = CURRENT.lock().ok().and_then(|c| c.clone());
                if let Some((source, input)) = current {
                    let saved = out.as_ref().and_then(|dir| {
                        std::fs::create_dir_all(dir).ok()?;
                        let path = dir.join(format!("hang-wallclock.{}", input.extension()));
                        std::fs::write(&path, input.to_file_text()).ok().map(|_| path)
                    });
                    println!(
                        "FINDING hang ({}) {source}: one input ran over {} s; saved as {saved:?}",
                        input.kind(),
                        limit.as_secs()
                    );
                }
                std::process::exit(3);
            }
        }
    });
}

/// Runs the regression inputs, then `runs` generated inputs.
pub fn fuzz(cfg: &Config) -> Result<Report, String> {
    let mut report = Report::default();
    let pool = Pool::new(corpus::seeds());
    if let Some(dir) = &cfg.regressions {
        for (name, input) in read_regressions(dir)? {
            let known = name.starts_with("open-");
            // An open bug may be a hang where overflow checks are off (release): run those
            // only in builds with the checks (cargo test, scripts/test.sh), where they panic.
            if known && !cfg!(debug_assertions) {
                report.open_not_run.push(name);
                continue;
            }
            starting(&name, &input);
            let result = run_one(&input, cfg.limits);
            report.record(input.kind(), &result);
            report.regressions += 1;
            match result {
                Err(f) => {
                    report.findings.push(Found { finding: f, source: name, kind: input.kind(), saved: None, known })
                }
                Ok(_) if known => eprintln!("labfuzz: regression {name} passes now: rename it without \"open-\""),
                Ok(_) => {}
            }
        }
    }
    let t0 = std::time::Instant::now();
    for index in 0..cfg.runs {
        let input = nth_input(&pool, cfg.seed, index);
        if let Some(bug) = target::open_bug(&input) {
            report.runs += 1;
            *report.open_bug_inputs.entry(bug).or_default() += 1;
            continue;
        }
        starting(&format!("--seed {} --input {index}", cfg.seed), &input);
        let result = run_one(&input, cfg.limits);
        report.record(input.kind(), &result);
        if let Err(f) = result {
            let saved = cfg.out.as_ref().and_then(|dir| save(dir, cfg.seed, index, &f, &input));
            let source = format!("--seed {} --input {index}", cfg.seed);
            report.findings.push(Found { finding: f, source, kind: input.kind(), saved, known: false });
        }
        if cfg.verbose && (index + 1) % 1000 == 0 {
            let rate = (index + 1) as f64 / t0.elapsed().as_secs_f64().max(1e-9);
            eprintln!("labfuzz: {} inputs, {} findings, {rate:.0} inputs/s", index + 1, report.findings.len());
        }
    }
    Ok(report)
}

fn save(dir: &Path, seed: u64, index: u64, f: &Finding, input: &Input) -> Option<PathBuf> {
    std::fs::create_dir_all(dir).ok()?;
    let path = dir.join(format!("{}-s{seed}-i{index}.{}", f.kind, input.extension()));
    std::fs::write(&path, input.to_file_text()).ok()?;
    Some(path)
}
