//! The rows of the settings table. Adding a setting is one row here (and its words in the app's
//! translation tables); validation, the editor, sweeps and locks follow.

use super::{Custom, Kind, Number, Setting, Value};
use crate::catalog::{self, Dtype};
use crate::message::Problem;
use crate::metric::Unit;
use crate::scenario::{Arrival, ClassConfig, Engine, GpuRef, LengthDist, ModelRef, Policy, Scenario};
use serde::de::DeserializeOwned;
use serde_json::Value as Json;

const fn num(id: &'static str, path: &'static str, unit: Unit, min: f64, max: f64, slider: (f64, f64)) -> Setting {
    let n = Number {
        min,
        max,
        min_of: None,
        max_of: None,
        choices: &[],
        slider,
        step: 0.0,
        integer: false,
        log: false,
        optional: None,
    };
    Setting { id, path, kind: Kind::Number(n), unit, sweep: false, file_only: false, custom: None }
}

/// An integer setting (slider step 1).
const fn int(id: &'static str, path: &'static str, unit: Unit, min: f64, max: f64, slider: (f64, f64)) -> Setting {
    num(id, path, unit, min, max, slider).integer()
}

const fn select(id: &'static str, path: &'static str, options: fn() -> Vec<String>) -> Setting {
    let kind = Kind::Select { options, optional: false };
    Setting { id, path, kind, unit: Unit::None, sweep: false, file_only: false, custom: None }
}

const fn toggle(id: &'static str, path: &'static str) -> Setting {
    Setting { id, path, kind: Kind::Toggle, unit: Unit::None, sweep: false, file_only: false, custom: None }
}

/// An engine constant: set in files only, the slider spans the allowed range.
const fn engine(id: &'static str, path: &'static str, unit: Unit, min: f64, max: f64) -> Setting {
    let mut s = num(id, path, unit, min, max, (min, max));
    s.file_only = true;
    s
}

const MAX_DRAFT: f64 = crate::scenario::MAX_DRAFT_TOKENS as f64;
const MAX_ACCEPTANCE: f64 = crate::scenario::MAX_ACCEPTANCE;

impl Setting {
    const fn integer(mut self) -> Self {
        if let Kind::Number(n) = &mut self.kind {
            n.integer = true;
            n.step = 1.0;
        }
        self
    }
    const fn log(mut self) -> Self {
        if let Kind::Number(n) = &mut self.kind {
            n.log = true;
        }
        self
    }
    const fn step(mut self, step: f64) -> Self {
        if let Kind::Number(n) = &mut self.kind {
            n.step = step;
        }
        self
    }
    const fn switchable(mut self, on: f64) -> Self {
        if let Kind::Number(n) = &mut self.kind {
            n.optional = Some(on);
        }
        self
    }
    const fn choices(mut self, choices: &'static [f64]) -> Self {
        if let Kind::Number(n) = &mut self.kind {
            n.choices = choices;
        }
        self
    }
    const fn min_of(mut self, f: fn(&Scenario, usize) -> f64) -> Self {
        if let Kind::Number(n) = &mut self.kind {
            n.min_of = Some(f);
        }
        self
    }
    const fn max_of(mut self, f: fn(&Scenario, usize) -> f64) -> Self {
        if let Kind::Number(n) = &mut self.kind {
            n.max_of = Some(f);
        }
        self
    }
    const fn unset(mut self) -> Self {
        if let Kind::Select { optional, .. } = &mut self.kind {
            *optional = true;
        }
        self
    }
    const fn sweep(mut self) -> Self {
        self.sweep = true;
        self
    }
    const fn custom(mut self, get: fn(&Scenario, usize) -> Option<Value>, set: SetFn) -> Self {
        self.custom = Some(Custom { get, set });
        self
    }
}

type SetFn = fn(&mut Scenario, usize, &Value) -> Result<(), Problem>;

/// Longest length a class may ask for, in tokens.
const MAX_LEN: f64 = 1_048_576.0;
/// Longest time limit, in ms (an hour).
const HOUR_MS: f64 = 3.6e6;

/// Every setting, in the order validation reports them.
pub const SETTINGS: &[Setting] = &[
    int("seed", "seed", Unit::None, 0.0, u64::MAX as f64, (0.0, 1e6)),
    select("model", "model", model_ids).custom(model_get, model_set),
    select("gpu", "gpu", gpu_ids).custom(gpu_get, gpu_set),
    int("num_gpus", "num_gpus", Unit::None, 1.0, 8.0, (1.0, 8.0)).choices(&[1.0, 2.0, 4.0, 8.0]),
    select("dtype", "dtype", dtypes),
    select("kv_dtype", "kv_dtype", kv_dtypes).unset(),
    num("gpu_usd_per_hour", "gpu_usd_per_hour", Unit::UsdPerHour, 0.0, 1000.0, (0.1, 20.0)).log().switchable(2.0),
    num("gpu_memory_utilization", "gpu_memory_utilization", Unit::Share, 0.05, 1.0, (0.3, 1.0)).step(0.01).sweep(),
    num("other_process_gib", "other_process_gib", Unit::Gib, 0.0, 1024.0, (0.0, 16.0))
        .step(0.1)
        .custom(other_get, other_set),
    select("engine_profile", "engine_profile", engine_names).custom(profile_get, profile_set),
    select("batching", "scheduler.batching", || names(&["continuous", "static"])),
    int("max_num_seqs", "scheduler.max_num_seqs", Unit::Seqs, 1.0, 4096.0, (1.0, 1024.0)).log().sweep(),
    int("max_num_batched_tokens", "scheduler.max_num_batched_tokens", Unit::Tokens, 1.0, MAX_LEN, (64.0, 65536.0))
        .log()
        .sweep(),
    toggle("chunked_prefill", "scheduler.chunked_prefill"),
    select("kv_layout", "scheduler.kv_layout", || names(&["paged", "contiguous"])),
    int("block_size", "scheduler.block_size", Unit::Tokens, 1.0, 1024.0, (1.0, 256.0)).log(),
    int("max_model_len", "scheduler.max_model_len", Unit::Tokens, 2.0, 1e7, (256.0, 131072.0)).log().max_of(context),
    num("queue_timeout_ms", "scheduler.queue_timeout_ms", Unit::Ms, 1.0, HOUR_MS, (50.0, 120_000.0))
        .log()
        .switchable(2000.0),
    int("max_queue_len", "scheduler.max_queue_len", Unit::Requests, 0.0, 1e7, (1.0, 10_000.0)).log().switchable(64.0),
    toggle("isolation", "scheduler.isolation"),
    num("batch_timeout_ms", "scheduler.batch_timeout_ms", Unit::Ms, 0.0, HOUR_MS, (0.0, 5000.0)).step(10.0),
    toggle("overcommit", "scheduler.overcommit"),
    num("restart_s", "scheduler.restart_s", Unit::S, 0.0, 3600.0, (0.0, 120.0)).step(1.0),
    toggle("retry_on_oom", "scheduler.retry_on_oom"),
    toggle("prefix_caching", "scheduler.prefix_caching"),
    int("replicas", "replicas", Unit::None, 1.0, 64.0, (1.0, 16.0)).custom(replicas_get, replicas_set).sweep(),
    select("router_policy", "router.policy", policy_names).custom(policy_get, policy_set),
    num("router_load_cap", "router.load_cap", Unit::Times, 1.0, 100.0, (1.0, 4.0))
        .step(0.05)
        .custom(load_cap_get, load_cap_set),
    engine("mfu", "engine.mfu", Unit::Share, 0.01, 1.0),
    engine("mbu", "engine.mbu", Unit::Share, 0.01, 1.0),
    engine("iteration_overhead_ms", "engine.iteration_overhead_ms", Unit::Ms, 0.0, 1000.0),
    engine("layer_launch_us", "engine.layer_launch_us", Unit::None, 0.0, 10_000.0),
    engine("allreduce_latency_us", "engine.allreduce_latency_us", Unit::None, 0.0, 10_000.0),
    engine("pcie_allreduce_latency_us", "engine.pcie_allreduce_latency_us", Unit::None, 0.0, 10_000.0),
    engine("fp8_efficiency", "engine.fp8_efficiency", Unit::Share, 0.1, 1.0),
    engine("roofline_sharpness", "engine.roofline_sharpness", Unit::None, 1.0, 64.0),
    // off: no speculation; on: a draft head proposing this many tokens, accepted at 0.8
    int("draft_tokens", "speculative.draft_tokens", Unit::Tokens, 1.0, MAX_DRAFT, (1.0, MAX_DRAFT))
        .switchable(4.0)
        .custom(draft_get, draft_set),
    num("acceptance_rate", "speculative.acceptance_rate", Unit::Share, 0.0, MAX_ACCEPTANCE, (0.0, MAX_ACCEPTANCE))
        .step(0.01),
    select("draft_model", "speculative.draft_model", model_ids).unset(),
    // off: every replica does both; on: the replicas become a prefill and a decode pool
    int("prefill_replicas", "disaggregation.prefill_replicas", Unit::None, 1.0, 32.0, (1.0, 8.0))
        .switchable(1.0)
        .custom(prefill_get, prefill_set),
    int("decode_replicas", "disaggregation.decode_replicas", Unit::None, 1.0, 32.0, (1.0, 8.0)),
    num("kv_link_gbps", "disaggregation.kv_link_gbps", Unit::None, 0.1, 10_000.0, (1.0, 1000.0)).log(),
    num("kv_link_latency_us", "disaggregation.kv_link_latency_us", Unit::None, 0.0, 1e6, (0.0, 1000.0)).step(1.0),
    Setting { kind: Kind::Text, ..select("class_name", "classes[{i}].name", Vec::new) },
    select("arrival_kind", "classes[{i}].arrival.kind", || names(&Arrival::KINDS)).custom(arrival_get, arrival_set),
    num("rate_per_s", "classes[{i}].arrival.rate_per_s", Unit::RequestsPerS, 1e-6, 1e6, (0.1, 200.0)).log().sweep(),
    num("cv", "classes[{i}].arrival.cv", Unit::None, 0.05, 20.0, (0.1, 10.0)).log(),
    int("users", "classes[{i}].arrival.users", Unit::Users, 1.0, 100_000.0, (1.0, 2000.0)).log(),
    num("think_time_ms", "classes[{i}].arrival.think_time_ms", Unit::Ms, 0.0, HOUR_MS, (0.0, 60_000.0)).step(100.0),
    select("trace", "classes[{i}].arrival.path", trace_names),
    num("speedup", "classes[{i}].arrival.speedup", Unit::Times, 0.001, 1000.0, (0.1, 100.0)).log(),
    int("num_requests", "classes[{i}].num_requests", Unit::Requests, 1.0, 1e7, (10.0, 20_000.0)).log(),
    select("input_tokens_kind", "classes[{i}].input_tokens.kind", len_kinds).custom(input_kind_get, input_kind_set),
    int("input_tokens_value", "classes[{i}].input_tokens.value", Unit::Tokens, 1.0, MAX_LEN, (1.0, 32768.0)).log(),
    int("input_tokens_min", "classes[{i}].input_tokens.min", Unit::Tokens, 1.0, MAX_LEN, (1.0, 32768.0)).log(),
    int("input_tokens_max", "classes[{i}].input_tokens.max", Unit::Tokens, 1.0, MAX_LEN, (1.0, 32768.0))
        .log()
        .min_of(|s, i| uniform_min(s.classes[i].input_tokens.as_ref())),
    num("input_tokens_mean", "classes[{i}].input_tokens.mean", Unit::Tokens, 1.0, MAX_LEN, (1.0, 32768.0)).log(),
    num("input_tokens_sigma", "classes[{i}].input_tokens.sigma", Unit::None, 0.0, 3.0, (0.0, 2.0)).step(0.05),
    select("output_tokens_kind", "classes[{i}].output_tokens.kind", len_kinds).custom(output_kind_get, output_kind_set),
    int("output_tokens_value", "classes[{i}].output_tokens.value", Unit::Tokens, 1.0, MAX_LEN, (1.0, 32768.0)).log(),
    int("output_tokens_min", "classes[{i}].output_tokens.min", Unit::Tokens, 1.0, MAX_LEN, (1.0, 32768.0)).log(),
    int("output_tokens_max", "classes[{i}].output_tokens.max", Unit::Tokens, 1.0, MAX_LEN, (1.0, 32768.0))
        .log()
        .min_of(|s, i| uniform_min(s.classes[i].output_tokens.as_ref())),
    num("output_tokens_mean", "classes[{i}].output_tokens.mean", Unit::Tokens, 1.0, MAX_LEN, (1.0, 32768.0)).log(),
    num("output_tokens_sigma", "classes[{i}].output_tokens.sigma", Unit::None, 0.0, 3.0, (0.0, 2.0)).step(0.05),
    num("slo_ttft_ms", "classes[{i}].slo.ttft_ms", Unit::Ms, 0.001, HOUR_MS, (10.0, 60_000.0)).log().switchable(500.0),
    num("slo_tpot_ms", "classes[{i}].slo.tpot_ms", Unit::Ms, 0.001, HOUR_MS, (1.0, 1000.0)).log().switchable(50.0),
    num("slo_e2e_ms", "classes[{i}].slo.e2e_ms", Unit::Ms, 0.001, HOUR_MS, (100.0, 600_000.0))
        .log()
        .switchable(60_000.0),
    int("priority", "classes[{i}].priority", Unit::None, 0.0, 100.0, (0.0, 10.0)),
    num("reserved_share", "classes[{i}].reserved_share", Unit::Share, 0.0, 1.0, (0.0, 1.0)).step(0.05).switchable(0.5),
];

/// Lock ids that cover several rows: the list of classes itself (adding and removing one), and
/// the groups under a class (`classes.slo` covers `classes[0].slo.ttft_ms`).
pub const GROUPS: [&str; 4] = ["classes", "classes.input_tokens", "classes.output_tokens", "classes.slo"];

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}
fn model_ids() -> Vec<String> {
    catalog::models().into_iter().map(|m| m.id).collect()
}
fn gpu_ids() -> Vec<String> {
    catalog::gpus().into_iter().map(|g| g.id).collect()
}
fn dtypes() -> Vec<String> {
    Dtype::ALL.iter().map(|d| d.name().to_string()).collect()
}
fn kv_dtypes() -> Vec<String> {
    Dtype::KV.iter().map(|d| d.name().to_string()).collect()
}
fn trace_names() -> Vec<String> {
    crate::catalog::BUILTIN_TRACES.iter().map(|(n, _)| n.to_string()).collect()
}
fn len_kinds() -> Vec<String> {
    names(&LengthDist::KINDS)
}

fn context(s: &Scenario, _: usize) -> f64 {
    s.model_spec().map_or(u32::MAX as f64, |m| m.max_context as f64)
}

fn uniform_min(d: Option<&LengthDist>) -> f64 {
    match d {
        Some(LengthDist::Uniform { min, .. }) => (*min).max(1) as f64,
        _ => 1.0,
    }
}

fn text(v: &Value) -> Result<&str, Problem> {
    match v {
        Value::Text(t) => Ok(t),
        _ => Err(Problem::WrongKind),
    }
}

// read directly: the field is left out of the JSON while it is 0
fn other_get(s: &Scenario, _: usize) -> Option<Value> {
    Some(Value::Number(s.other_process_gib))
}

fn other_set(s: &mut Scenario, _: usize, v: &Value) -> Result<(), Problem> {
    match v {
        Value::Number(x) => {
            s.other_process_gib = *x;
            Ok(())
        }
        _ => Err(Problem::WrongKind),
    }
}

fn engine_names() -> Vec<String> {
    Engine::ALL.iter().map(|e| e.name().to_string()).collect()
}

fn profile_get(s: &Scenario, _: usize) -> Option<Value> {
    Some(Value::Text(s.engine_profile.name().to_string()))
}

/// Chooses another engine profile: its scheduler defaults replace the scheduler settings it
/// governs (choosing the one in use changes nothing).
fn profile_set(s: &mut Scenario, _: usize, v: &Value) -> Result<(), Problem> {
    let name = text(v)?;
    let e = Engine::parse(name).ok_or_else(|| Problem::NotListed { options: engine_names(), got: name.to_string() })?;
    if e != s.engine_profile {
        s.set_engine_profile(e);
    }
    Ok(())
}

// read directly: `replicas` and `router` are left out of the JSON while they are the defaults
fn replicas_get(s: &Scenario, _: usize) -> Option<Value> {
    Some(Value::Number(s.replicas as f64))
}

fn replicas_set(s: &mut Scenario, _: usize, v: &Value) -> Result<(), Problem> {
    put_json(&mut s.replicas, v)
}

fn draft_get(s: &Scenario, _: usize) -> Option<Value> {
    Some(s.speculative.as_ref().map_or(Value::Off, |sp| Value::Number(sp.draft_tokens as f64)))
}

/// Switching speculation on gives a draft head (no cost) whose tokens are accepted at 0.8, as
/// the `speculative` preset's; switching it off forgets the draft.
fn draft_set(s: &mut Scenario, _: usize, v: &Value) -> Result<(), Problem> {
    match (v, s.speculative.as_mut()) {
        (Value::Off, _) => s.speculative = None,
        (_, Some(sp)) => put_json(&mut sp.draft_tokens, v)?,
        (_, None) => {
            let mut k: u32 = 0;
            put_json(&mut k, v)?;
            s.speculative =
                Some(crate::scenario::SpeculativeConfig { draft_tokens: k, acceptance_rate: 0.8, draft_model: None });
        }
    }
    Ok(())
}

fn prefill_get(s: &Scenario, _: usize) -> Option<Value> {
    Some(s.disaggregation.as_ref().map_or(Value::Off, |d| Value::Number(d.prefill_replicas as f64)))
}

/// Switching disaggregation on splits the replicas there are (at least one of each pool, over
/// 50 GB/s links with 20 µs latency); switching it off leaves as many colocated replicas.
fn prefill_set(s: &mut Scenario, _: usize, v: &Value) -> Result<(), Problem> {
    match (v, s.disaggregation.as_mut()) {
        (Value::Off, None) => {}
        (Value::Off, Some(d)) => {
            s.replicas = d.replicas().max(1);
            s.disaggregation = None;
        }
        (_, Some(d)) => put_json(&mut d.prefill_replicas, v)?,
        (_, None) => {
            let mut prefill = 1;
            put_json(&mut prefill, v)?;
            let decode = s.replicas.saturating_sub(prefill).max(1);
            s.disaggregation = Some(crate::scenario::DisaggConfig {
                prefill_replicas: prefill,
                decode_replicas: decode,
                kv_link_gbps: 50.0,
                kv_link_latency_us: 20.0,
            });
            s.replicas = 1;
        }
    }
    Ok(())
}

fn policy_names() -> Vec<String> {
    Policy::ALL.iter().map(|p| p.name().to_string()).collect()
}

fn policy_get(s: &Scenario, _: usize) -> Option<Value> {
    Some(Value::Text(s.router.policy.name().to_string()))
}

fn policy_set(s: &mut Scenario, _: usize, v: &Value) -> Result<(), Problem> {
    let name = text(v)?;
    s.router.policy =
        Policy::parse(name).ok_or_else(|| Problem::NotListed { options: policy_names(), got: name.to_string() })?;
    Ok(())
}

fn load_cap_get(s: &Scenario, _: usize) -> Option<Value> {
    Some(Value::Number(s.router.load_cap))
}

fn load_cap_set(s: &mut Scenario, _: usize, v: &Value) -> Result<(), Problem> {
    put_json(&mut s.router.load_cap, v)
}

/// Writes a number into a typed field the way serde reads it (`5.5` is no `u32`).
fn put_json<T: DeserializeOwned>(field: &mut T, v: &Value) -> Result<(), Problem> {
    let Value::Number(x) = v else { return Err(Problem::WrongKind) };
    let json = serde_json::Number::from_f64(*x).map(Json::Number).ok_or(Problem::WrongKind)?;
    let json = match json.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 9e15 => Json::from(f as i64),
        _ => json,
    };
    *field = serde_json::from_value(json).map_err(|e| Problem::parse(&e))?;
    Ok(())
}

fn model_get(s: &Scenario, _: usize) -> Option<Value> {
    Some(Value::Text(s.model.id().to_string()))
}

/// Switches to a catalogue model; a context limit beyond the new model's is lowered to it.
fn model_set(s: &mut Scenario, _: usize, v: &Value) -> Result<(), Problem> {
    let id = text(v)?;
    s.model = ModelRef::Id(id.to_string());
    if let Some(m) = catalog::find_model(id) {
        s.scheduler.max_model_len = s.scheduler.max_model_len.min(m.max_context);
    }
    Ok(())
}

fn gpu_get(s: &Scenario, _: usize) -> Option<Value> {
    Some(Value::Text(s.gpu.id().to_string()))
}

/// Switches to a catalogue GPU; a price set for another GPU gives way to the catalogue price.
fn gpu_set(s: &mut Scenario, _: usize, v: &Value) -> Result<(), Problem> {
    let id = text(v)?;
    if s.gpu.id() != id {
        s.gpu = GpuRef::Id(id.to_string());
        s.gpu_usd_per_hour = None;
    }
    Ok(())
}

fn arrival_get(s: &Scenario, i: usize) -> Option<Value> {
    Some(Value::Text(s.classes[i].arrival.kind().to_string()))
}

/// Switches a class's arrival process, keeping its rate; a trace gives each request's arrival
/// and lengths, so switching to one drops them and switching back restores typical ones.
fn arrival_set(s: &mut Scenario, i: usize, v: &Value) -> Result<(), Problem> {
    let kind = text(v)?;
    let c = &mut s.classes[i];
    if c.arrival.kind() == kind {
        return Ok(());
    }
    let rate = match c.arrival {
        Arrival::Poisson { rate_per_s } | Arrival::Bursty { rate_per_s, .. } => rate_per_s,
        _ => 5.0,
    };
    let was_trace = matches!(c.arrival, Arrival::Trace { .. });
    c.arrival = match kind {
        "poisson" => Arrival::Poisson { rate_per_s: rate },
        "bursty" => Arrival::Bursty { rate_per_s: rate, cv: 3.0 },
        "closed_loop" => Arrival::ClosedLoop { users: 32, think_time_ms: 2000.0 },
        "trace" => Arrival::Trace { path: crate::catalog::BUILTIN_TRACES[0].0.to_string(), speedup: 1.0 },
        other => return Err(Problem::NotListed { options: names(&Arrival::KINDS), got: other.to_string() }),
    };
    if kind == "trace" {
        c.num_requests = None;
        c.input_tokens = None;
        c.output_tokens = None;
    } else if was_trace {
        c.num_requests = Some(1000);
        c.input_tokens = Some(LengthDist::Lognormal { mean: 1000.0, sigma: 0.7 });
        c.output_tokens = Some(LengthDist::Lognormal { mean: 250.0, sigma: 0.6 });
    }
    Ok(())
}

fn input_kind_get(s: &Scenario, i: usize) -> Option<Value> {
    s.classes[i].input_tokens.as_ref().map(|d| Value::Text(d.kind().to_string()))
}
fn output_kind_get(s: &Scenario, i: usize) -> Option<Value> {
    s.classes[i].output_tokens.as_ref().map(|d| Value::Text(d.kind().to_string()))
}
fn input_kind_set(s: &mut Scenario, i: usize, v: &Value) -> Result<(), Problem> {
    set_len_kind(&mut s.classes[i].input_tokens, text(v)?)
}
fn output_kind_set(s: &mut Scenario, i: usize, v: &Value) -> Result<(), Problem> {
    set_len_kind(&mut s.classes[i].output_tokens, text(v)?)
}

/// Switches a length distribution's kind around its typical length (same kind: unchanged).
fn set_len_kind(slot: &mut Option<LengthDist>, kind: &str) -> Result<(), Problem> {
    if slot.as_ref().is_some_and(|d| d.kind() == kind) {
        return Ok(());
    }
    let typical = slot.as_ref().map_or(500.0, LengthDist::typical).max(1.0);
    *slot = Some(match kind {
        "fixed" => LengthDist::Fixed { value: typical.round() as u32 },
        "uniform" => LengthDist::Uniform {
            min: (typical / 2.0).round().max(1.0) as u32,
            max: (typical * 1.5).round().max(1.0) as u32,
        },
        "lognormal" => LengthDist::Lognormal { mean: typical.round(), sigma: 0.6 },
        other => return Err(Problem::NotListed { options: names(&LengthDist::KINDS), got: other.to_string() }),
    });
    Ok(())
}

/// Writes the JSON value `set` made for row `id` (of class `i`) into its typed field, as
/// `serde_json::from_value` of the whole scenario would (the same conversions and messages,
/// without a second copy of the scenario's deserializer in the wasm; docs/wasm-size.md). `None`
/// when the scenario has no such field; `tests/settings.rs` checks every row against the whole-
/// scenario round trip.
pub(super) fn write(s: &mut Scenario, id: &str, i: usize, json: Json) -> Option<Result<(), Problem>> {
    fn put<T: DeserializeOwned>(field: &mut T, json: Json) -> Result<(), Problem> {
        *field = serde_json::from_value(json).map_err(|e| Problem::parse(&e))?;
        Ok(())
    }
    fn class(s: &mut Scenario, i: usize) -> Option<&mut ClassConfig> {
        s.classes.get_mut(i)
    }
    Some(match id {
        "seed" => put(&mut s.seed, json),
        "num_gpus" => put(&mut s.num_gpus, json),
        "dtype" => put(&mut s.dtype, json),
        "kv_dtype" => put(&mut s.kv_dtype, json),
        "gpu_usd_per_hour" => put(&mut s.gpu_usd_per_hour, json),
        "gpu_memory_utilization" => put(&mut s.gpu_memory_utilization, json),
        "max_num_seqs" => put(&mut s.scheduler.max_num_seqs, json),
        "max_num_batched_tokens" => put(&mut s.scheduler.max_num_batched_tokens, json),
        "chunked_prefill" => put(&mut s.scheduler.chunked_prefill, json),
        "batching" => put(&mut s.scheduler.batching, json),
        "kv_layout" => put(&mut s.scheduler.kv_layout, json),
        "prefix_caching" => put(&mut s.scheduler.prefix_caching, json),
        "block_size" => put(&mut s.scheduler.block_size, json),
        "max_model_len" => put(&mut s.scheduler.max_model_len, json),
        "queue_timeout_ms" => put(&mut s.scheduler.queue_timeout_ms, json),
        "max_queue_len" => put(&mut s.scheduler.max_queue_len, json),
        "isolation" => put(&mut s.scheduler.isolation, json),
        "batch_timeout_ms" => put(&mut s.scheduler.batch_timeout_ms, json),
        "overcommit" => put(&mut s.scheduler.overcommit, json),
        "restart_s" => put(&mut s.scheduler.restart_s, json),
        "retry_on_oom" => put(&mut s.scheduler.retry_on_oom, json),
        "mfu" => put(&mut s.engine.mfu, json),
        "mbu" => put(&mut s.engine.mbu, json),
        "iteration_overhead_ms" => put(&mut s.engine.iteration_overhead_ms, json),
        "layer_launch_us" => put(&mut s.engine.layer_launch_us, json),
        "allreduce_latency_us" => put(&mut s.engine.allreduce_latency_us, json),
        "pcie_allreduce_latency_us" => put(&mut s.engine.pcie_allreduce_latency_us, json),
        "fp8_efficiency" => put(&mut s.engine.fp8_efficiency, json),
        "roofline_sharpness" => put(&mut s.engine.roofline_sharpness, json),
        "draft_tokens" => put(&mut s.speculative.as_mut()?.draft_tokens, json),
        "acceptance_rate" => put(&mut s.speculative.as_mut()?.acceptance_rate, json),
        "draft_model" => put(&mut s.speculative.as_mut()?.draft_model, json),
        "prefill_replicas" => put(&mut s.disaggregation.as_mut()?.prefill_replicas, json),
        "decode_replicas" => put(&mut s.disaggregation.as_mut()?.decode_replicas, json),
        "kv_link_gbps" => put(&mut s.disaggregation.as_mut()?.kv_link_gbps, json),
        "kv_link_latency_us" => put(&mut s.disaggregation.as_mut()?.kv_link_latency_us, json),
        "class_name" => put(&mut class(s, i)?.name, json),
        "num_requests" => put(&mut class(s, i)?.num_requests, json),
        "slo_ttft_ms" => put(&mut class(s, i)?.slo.ttft_ms, json),
        "slo_tpot_ms" => put(&mut class(s, i)?.slo.tpot_ms, json),
        "slo_e2e_ms" => put(&mut class(s, i)?.slo.e2e_ms, json),
        "priority" => put(&mut class(s, i)?.priority, json),
        "reserved_share" => put(&mut class(s, i)?.reserved_share, json),
        _ => {
            let c = class(s, i)?;
            match (id, &mut c.arrival) {
                ("rate_per_s", Arrival::Poisson { rate_per_s } | Arrival::Bursty { rate_per_s, .. }) => {
                    put(rate_per_s, json)
                }
                ("cv", Arrival::Bursty { cv, .. }) => put(cv, json),
                ("users", Arrival::ClosedLoop { users, .. }) => put(users, json),
                ("think_time_ms", Arrival::ClosedLoop { think_time_ms, .. }) => put(think_time_ms, json),
                ("trace", Arrival::Trace { path, .. }) => put(path, json),
                ("speedup", Arrival::Trace { speedup, .. }) => put(speedup, json),
                _ => {
                    let (dist, key) = if let Some(key) = id.strip_prefix("input_tokens_") {
                        (c.input_tokens.as_mut()?, key)
                    } else {
                        (c.output_tokens.as_mut()?, id.strip_prefix("output_tokens_")?)
                    };
                    match (key, dist) {
                        ("value", LengthDist::Fixed { value }) => put(value, json),
                        ("min", LengthDist::Uniform { min, .. }) => put(min, json),
                        ("max", LengthDist::Uniform { max, .. }) => put(max, json),
                        ("mean", LengthDist::Lognormal { mean, .. }) => put(mean, json),
                        ("sigma", LengthDist::Lognormal { sigma, .. }) => put(sigma, json),
                        _ => return None,
                    }
                }
            }
        }
    })
}
