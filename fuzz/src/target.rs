//! What one input goes through: the parser that reads it, then, if accepted, a run to the end
//! (bounded), with the simulation's invariants checked along the way and its summary at the end.

use crate::input::{Input, TRACE_PATH};
use sim_core::scenario::{Arrival, LengthDist};
use sim_core::workload::{builtin_trace, Trace};
use sim_core::{Scenario, ScenarioError, SimOptions, Simulation, TraceLoader};

/// How far one accepted input is run.
#[derive(Clone, Copy, Debug)]
pub struct RunLimits {
    /// Events one run may take; a longer run stops there (counted as "stopped", not a finding)
    /// after its invariants and partial summary are checked.
    pub max_events: u64,
    /// Events between invariant checks.
    pub check_every: u64,
}

impl Default for RunLimits {
    fn default() -> Self {
        RunLimits { max_events: 200_000, check_every: 256 }
    }
}

/// What happened to an input that is not a finding.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Refused with these messages (each checked to be clear).
    Rejected(Vec<String>),
    /// Every simulation ran to its end; events processed in all.
    Finished { events: u64 },
    /// A run reached `RunLimits::max_events` before its end (progressing, invariants held).
    Stopped { events: u64 },
}

/// A finding: something an input must never cause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// `panic`, `hang`, `invariant` or `message`.
    pub kind: &'static str,
    pub detail: String,
}

fn finding(kind: &'static str, detail: impl Into<String>) -> Finding {
    Finding { kind, detail: detail.into() }
}

/// Serves the fuzzed CSV as `fuzz.csv` and the built-in traces by name.
struct FuzzTraces<'a>(Option<&'a str>);

impl TraceLoader for FuzzTraces<'_> {
    fn load(&self, path: &str) -> Result<String, String> {
        match (path, self.0) {
            (TRACE_PATH, Some(csv)) => Ok(csv.to_string()),
            _ => sim_core::sim::BuiltinTraces.load(path),
        }
    }
}

/// Open bugs found by the fuzzer and not fixed yet, each with the test that recognises an input
/// reaching it: such inputs are counted as known and not run (in a build without overflow
/// checks they would hang). Each has an `open-*` regression input in fuzz/regressions; drop the
/// entry when the bug is fixed.
/// Recognises an input that reaches an open bug.
pub type Reaches = fn(&Input) -> bool;

pub const OPEN_BUGS: &[(&str, Reaches)] = &[];

/// The open bug an input reaches, if any.
pub fn open_bug(input: &Input) -> Option<&'static str> {
    OPEN_BUGS.iter().find(|(_, reaches)| reaches(input)).map(|(name, _)| *name)
}

/// Runs one input (without catching panics: see `crate::run_one`).
pub fn run_input(input: &Input, limits: RunLimits) -> Result<Outcome, Finding> {
    match input {
        Input::Scenario(json) => run_scenario_text(json, None, limits),
        Input::Trace { scenario, csv } => run_scenario_text(scenario, Some(csv), limits),
        Input::Share(link) => {
            let scenarios = match share_scenarios(link)? {
                Err(msg) => {
                    check_link_message(&msg)?;
                    return Ok(Outcome::Rejected(vec![msg]));
                }
                Ok(scenarios) => scenarios,
            };
            let mut total = Outcome::Finished { events: 0 };
            for s in &scenarios {
                total = merge(total, build_and_run(s, None, limits)?);
            }
            Ok(total)
        }
    }
}

/// The scenarios a share link holds (the main one, then the A/B comparison), or its message,
/// read as the page reads it (`app_model::share::ShareState`). A link the page accepts, the
/// model's reader (`sim_core::share::SharedRun`, which ignores the page's fields) accepts with
/// the same scenarios; an accepted state, encoded again (short, and whole as version 1), is
/// accepted again.
fn share_scenarios(link: &str) -> Result<Result<Vec<Scenario>, String>, Finding> {
    use app_model::share::ShareState;
    use sim_core::share::SharedRun;
    let state = match ShareState::decode(link) {
        Err(msg) => return Ok(Err(msg)),
        Ok(state) => state,
    };
    match SharedRun::decode(link) {
        Ok(run) if run == state.run() => {}
        Ok(_) => return Err(finding("invariant", "sim-core reads other scenarios from the link than the page")),
        Err(e) => return Err(finding("invariant", format!("the page opens the link, sim-core rejects it: {e}"))),
    }
    if let Err(e) = ShareState::decode(&state.encode()) {
        return Err(finding("invariant", format!("the accepted link, encoded again, is rejected: {e}")));
    }
    if let Err(e) = ShareState::decode(&state.encode_v1()) {
        return Err(finding("invariant", format!("the accepted link, encoded as version 1, is rejected: {e}")));
    }
    Ok(Ok(std::iter::once(state.scenario).chain(state.compare).collect()))
}

fn merge(a: Outcome, b: Outcome) -> Outcome {
    match (a, b) {
        (Outcome::Rejected(m), _) | (_, Outcome::Rejected(m)) => Outcome::Rejected(m),
        (Outcome::Finished { events: x }, Outcome::Finished { events: y }) => Outcome::Finished { events: x + y },
        (Outcome::Finished { events: x } | Outcome::Stopped { events: x }, Outcome::Stopped { events: y })
        | (Outcome::Stopped { events: x }, Outcome::Finished { events: y }) => Outcome::Stopped { events: x + y },
    }
}

fn run_scenario_text(json: &str, csv: Option<&str>, limits: RunLimits) -> Result<Outcome, Finding> {
    match Scenario::from_json(json) {
        Err(e) => rejected(&e),
        Ok(s) => build_and_run(&s, csv, limits),
    }
}

fn rejected(e: &ScenarioError) -> Result<Outcome, Finding> {
    check_scenario_error(e)?;
    Ok(Outcome::Rejected(e.errors.iter().map(|f| f.to_string()).collect()))
}

/// Field names a message about the whole configuration (no single field) may name instead,
/// such as the "does not fit" message's suggestions.
const FIELD_WORDS: &[&str] = &[
    "num_gpus",
    "gpu_memory_utilization",
    "dtype",
    "max_model_len",
    "max_num_seqs",
    "max_num_batched_tokens",
    "block_size",
    "kv_layout",
    "num_requests",
    "arrival",
];

/// A rejection must say what is wrong and where: each message names a field (a path) or a
/// line of the text, and none is empty or a panic's text.
pub fn check_scenario_error(e: &ScenarioError) -> Result<(), Finding> {
    if e.errors.is_empty() {
        return Err(finding("message", "a rejection with no message"));
    }
    for f in &e.errors {
        let text = f.to_string();
        if f.message.trim().is_empty() {
            return Err(finding("message", format!("empty message for field \"{}\"", f.field)));
        }
        if text.contains("panicked") {
            return Err(finding("message", format!("a panic's text as a message: {text}")));
        }
        if f.field.trim().is_empty() && !text.contains("line ") && !FIELD_WORDS.iter().any(|w| text.contains(w)) {
            return Err(finding("message", format!("names neither a field nor a line: {text}")));
        }
    }
    Ok(())
}

/// A link's rejection says it is about the link (the page shows it as is).
fn check_link_message(msg: &str) -> Result<(), Finding> {
    if msg.trim().is_empty() || msg.contains("panicked") || !msg.contains("link") {
        return Err(finding("message", format!("unclear link message: {msg:?}")));
    }
    Ok(())
}

fn build_and_run(s: &Scenario, csv: Option<&str>, limits: RunLimits) -> Result<Outcome, Finding> {
    let opts = SimOptions::default();
    let mut sim = match Simulation::with_options(s, &FuzzTraces(csv), opts) {
        Err(e) => return rejected(&e),
        Ok(sim) => sim,
    };
    let bound = event_bound(s, csv);
    drive(&mut sim, bound, limits)
}

/// Most tokens one request of a length distribution can have, within `max_model_len` (longer
/// requests are refused at arrival).
fn longest(d: Option<&LengthDist>, max_model_len: u64) -> u64 {
    let max = match d {
        Some(LengthDist::Fixed { value }) => *value as u64,
        Some(LengthDist::Uniform { max, min }) => (*max).max(*min) as u64,
        Some(LengthDist::Lognormal { .. }) | None => 1 << 20,
    };
    max.min(max_model_len)
}

/// Events a run of `s` can need at most: every request costs an arrival, a timeout and at most
/// one iteration per token of its prompt and output, recomputed after preemptions and OOM
/// retries (a factor 16), plus the closed-loop users' first arrivals. A run that goes past it
/// without ending is a hang.
pub fn event_bound(s: &Scenario, csv: Option<&str>) -> u64 {
    let mml = s.scheduler.max_model_len as u64;
    let mut tokens: u64 = 0;
    let mut extra: u64 = 0;
    for c in &s.classes {
        match &c.arrival {
            Arrival::Trace { path, .. } => {
                let text = if path == TRACE_PATH { csv } else { builtin_trace(path) };
                if let Some(trace) = text.and_then(|t| Trace::parse(t, "").ok()) {
                    for r in &trace.rows {
                        tokens = tokens.saturating_add((r.input as u64).min(mml) + (r.output as u64).min(mml) + 4);
                    }
                }
            }
            a => {
                if let Arrival::ClosedLoop { users, .. } = a {
                    extra = extra.saturating_add(*users as u64);
                }
                let per = longest(c.input_tokens.as_ref(), mml) + longest(c.output_tokens.as_ref(), mml) + 4;
                tokens = tokens.saturating_add(c.num_requests.unwrap_or(0).saturating_mul(per));
            }
        }
    }
    tokens.saturating_mul(16).saturating_add(extra).saturating_add(100_000)
}

fn drive(sim: &mut Simulation, bound: u64, limits: RunLimits) -> Result<Outcome, Finding> {
    let cap = bound.min(limits.max_events);
    // Events that may share one instant: every request's arrival and timeout, plus slack.
    let stall_window = sim.total_requests().saturating_mul(3).saturating_add(65_536);
    let (mut last_now, mut last_progress, mut still) = (sim.now(), sim.progress(), 0u64);
    let mut checks = 0u64;
    loop {
        let step = limits.check_every.min(cap.saturating_sub(sim.events_processed())).max(1);
        let n = sim.advance_events(step);
        sim.check_invariants().map_err(|e| {
            finding("invariant", format!("after {} events at t = {} µs: {e}", sim.events_processed(), sim.now()))
        })?;
        if n == 0 {
            break;
        }
        // what the page reads a few times a second: the snapshot and the CDFs
        checks += 1;
        if checks.is_multiple_of(64) {
            let snap = sim.snapshot();
            let share = snap.hbm.allocated_share();
            if !(0.0..=1.0 + 1e-9).contains(&share) && !sim.scenario().scheduler.overcommit {
                return Err(finding("invariant", format!("snapshot: allocated HBM share {share}")));
            }
            for (ms, f) in sim.ttft_cdf(None, 32).into_iter().chain(sim.tpot_cdf(None, 32)) {
                if !ms.is_finite() || ms < 0.0 || !(0.0..=1.0).contains(&f) {
                    return Err(finding("invariant", format!("CDF point ({ms} ms, {f})")));
                }
            }
        }
        let (now, progress) = (sim.now(), sim.progress());
        if now < last_now {
            return Err(finding("invariant", format!("time went back from {last_now} to {now} µs")));
        }
        if now == last_now && progress == last_progress {
            still += n;
            if still > stall_window {
                return Err(finding(
                    "hang",
                    format!("{still} events without simulated time or requests moving (t = {now} µs)"),
                ));
            }
        } else {
            (last_now, last_progress, still) = (now, progress, 0);
        }
        if sim.events_processed() >= cap && !sim.is_finished() {
            if cap == bound {
                return Err(finding(
                    "hang",
                    format!("{} events without ending, more than its size allows ({bound})", sim.events_processed()),
                ));
            }
            check_summary(sim, false)?;
            return Ok(Outcome::Stopped { events: sim.events_processed() });
        }
    }
    check_summary(sim, true)?;
    Ok(Outcome::Finished { events: sim.events_processed() })
}

/// The summary adds up: every request ended once (at the end), no number is NaN, infinite or
/// negative, percentiles are ordered, goodput is within throughput and attainment within 0..=1.
/// It reads the summary as JSON, so it holds whatever shape the summary takes.
fn check_summary(sim: &Simulation, finished: bool) -> Result<(), Finding> {
    let sum = sim.summary();
    let v = serde_json::to_value(&sum).map_err(|e| finding("invariant", format!("summary does not serialise: {e}")))?;
    let bad = |m: String| Err(finding("invariant", m));
    if let Some(err) = walk(&v, "summary") {
        return bad(err);
    }
    let total = sim.total_requests();
    let arrived = v.pointer("/requests/arrived").and_then(|x| x.as_u64());
    if finished && arrived != Some(total) {
        return bad(format!("{total} requests to send, summary says {arrived:?} arrived"));
    }
    let in_flight = v.pointer("/requests/in_flight").and_then(|x| x.as_u64());
    if finished && in_flight != Some(0) {
        return bad(format!("the run ended with {in_flight:?} requests in flight"));
    }
    if finished && !sim.is_finished() {
        return bad("events left after the run ended".into());
    }
    Ok(())
}

/// The first broken rule in a summary's JSON, with its path.
fn walk(v: &serde_json::Value, path: &str) -> Option<String> {
    use serde_json::Value;
    match v {
        // cost per token with no (good) token is infinite by design, which JSON writes as null
        Value::Null if path.contains(".cost.usd_per_million_") => None,
        Value::Null => Some(format!("{path} is null (NaN or infinite)")),
        Value::Number(n) => match n.as_f64() {
            Some(x) if x.is_finite() && x >= 0.0 => None,
            _ => Some(format!("{path} = {n}")),
        },
        Value::Array(a) => a.iter().enumerate().find_map(|(i, x)| walk(x, &format!("{path}[{i}]"))),
        Value::Object(m) => {
            let f = |k: &str| m.get(k).and_then(Value::as_f64);
            let chain = ["p50", "p90", "p95", "p99", "max"];
            let vals: Vec<f64> = chain.iter().filter_map(|k| f(k)).collect();
            if vals.len() == chain.len() && vals.windows(2).any(|w| w[0] > w[1] * (1.0 + 1e-12)) {
                return Some(format!("{path} percentiles out of order: {vals:?}"));
            }
            if let (Some(mean), Some(max)) = (f("mean"), f("max")) {
                if mean > max * (1.0 + 1e-9) + 1e-9 {
                    return Some(format!("{path}.mean {mean} > max {max}"));
                }
            }
            if let Some(a) = f("slo_attainment") {
                if a > 1.0 + 1e-12 {
                    return Some(format!("{path}.slo_attainment = {a}"));
                }
            }
            if let (Some(good), Some(all)) = (
                m.get("goodput").and_then(|g| g.get("requests_per_s")).and_then(Value::as_f64),
                m.get("throughput").and_then(|t| t.get("requests_per_s")).and_then(Value::as_f64),
            ) {
                if good > all * (1.0 + 1e-9) + 1e-12 {
                    return Some(format!("{path}: goodput {good} req/s > throughput {all} req/s"));
                }
            }
            if let Some(r) = m.get("requests") {
                let g = |k: &str| r.get(k).and_then(Value::as_u64).unwrap_or(0);
                let ended = g("completed") + g("rejected") + g("timed_out") + g("failed");
                if r.get("arrived").is_some() && g("arrived") != ended + g("in_flight") {
                    return Some(format!(
                        "{path}.requests: arrived {} != ended {ended} + in flight {}",
                        g("arrived"),
                        g("in_flight")
                    ));
                }
            }
            m.iter().find_map(|(k, x)| walk(x, &format!("{path}.{k}")))
        }
        _ => None,
    }
}
