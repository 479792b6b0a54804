//! The rows of the settings table. Adding a setting is one row here (its id, path, kind and
//! ranges, unit, whether it sweeps, whether a lock holds it, what it is when a file leaves it out),
//! its field in the scenario (and its arm in `super::write`), and its words under the keys the id gives
//! (`setting.<id>.label`, `.def`) in the app's translation tables; validation, the editor (a row of
//! its controls table), sweeps, locks and share links follow, and `tests/settings.rs` fails until
//! the field and the row agree.

use super::custom::{
    arrival_get, arrival_set, draft_get, draft_set, engine_names, gpu_get, gpu_set, input_kind_get, input_kind_set,
    load_cap_get, load_cap_set, model_get, model_set, names, other_get, other_set, output_kind_get, output_kind_set,
    policy_get, policy_names, policy_set, prefill_get, prefill_set, profile_get, profile_set, replicas_get,
    replicas_set,
};
use super::{Custom, Keys, Kind, Lock, Number, Omitted, Setting, Value};
use crate::catalog::{self, Dtype};
use crate::message::Problem;
use crate::metric::Unit;
use crate::scenario::{self as sc, Arrival, LengthDist, Scenario};

/// A row's id and the translation keys the rule gives it ([`Keys::rule`]).
struct Id(&'static str, Keys);

/// `id!("max_num_seqs")`: the id with its keys `setting.max_num_seqs.label`, `.def`, `.lock`.
macro_rules! id {
    ($id:expr) => {
        Id(
            $id,
            Keys {
                label: concat!("setting.", $id, ".label"),
                def: concat!("setting.", $id, ".def"),
                lock: concat!("setting.", $id, ".lock"),
            },
        )
    };
}

const fn row(id: Id, path: &'static str, kind: Kind, unit: Unit) -> Setting {
    Setting {
        id: id.0,
        path,
        kind,
        unit,
        sweep: false,
        file_only: false,
        custom: None,
        lock: Lock::Label,
        omitted: Omitted::Unsaid,
        keys: id.1,
    }
}

const fn num(id: Id, path: &'static str, unit: Unit, min: f64, max: f64, slider: (f64, f64)) -> Setting {
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
    row(id, path, Kind::Number(n), unit)
}

/// An integer setting (slider step 1).
const fn int(id: Id, path: &'static str, unit: Unit, min: f64, max: f64, slider: (f64, f64)) -> Setting {
    num(id, path, unit, min, max, slider).integer()
}

const fn select(id: Id, path: &'static str, options: fn() -> Vec<String>) -> Setting {
    row(id, path, Kind::Select { options, optional: false }, Unit::None)
}

const fn toggle(id: Id, path: &'static str) -> Setting {
    row(id, path, Kind::Toggle, Unit::None)
}

const fn text(id: Id, path: &'static str) -> Setting {
    row(id, path, Kind::Text, Unit::None)
}

/// An engine constant: set in files only (no lock holds it), the slider spans the allowed range,
/// the profile's (`default` of its [`sc::EngineConfig`]) when a file leaves it out.
const fn engine(
    id: Id,
    path: &'static str,
    unit: Unit,
    min: f64,
    max: f64,
    default: fn(&sc::EngineConfig) -> Value,
) -> Setting {
    let mut s = num(id, path, unit, min, max, (min, max)).no_lock().or(Omitted::Constant(default));
    s.file_only = true;
    s
}

/// `constant!(mfu, Unit::Share, 0.01, 1.0)`: the engine constant `mfu`, its id, its path
/// (`engine.mfu`) and the profile's value when a file leaves it out all from the field's name.
macro_rules! constant {
    ($field:ident, $unit:expr, $min:expr, $max:expr) => {
        engine(id!(stringify!($field)), concat!("engine.", stringify!($field)), $unit, $min, $max, |c| {
            Value::Number(c.$field)
        })
    };
}

/// A pool's tensor parallelism (disaggregation): `num_gpus`'s values; off, the pool takes
/// `num_gpus` (so a file that leaves it out gets what its `num_gpus` says). Set in files only.
const fn tp_of_pool(id: Id, path: &'static str) -> Setting {
    int(id, path, Unit::None, 1.0, 8.0, (1.0, 8.0)).choices(TP_SIZES).switchable(2.0).file_only().no_lock()
}

const MAX_DRAFT: f64 = sc::MAX_DRAFT_TOKENS as f64;
const MAX_ACCEPTANCE: f64 = sc::MAX_ACCEPTANCE;

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
    /// No lock holds it on its own.
    /// Set in files only: the page's editor has no control for it.
    const fn file_only(mut self) -> Self {
        self.file_only = true;
        self
    }
    const fn no_lock(mut self) -> Self {
        self.lock = Lock::No;
        self
    }
    /// The lock list names it with words of its own (`setting.<id>.lock`).
    const fn lock_words(mut self) -> Self {
        self.lock = Lock::Words;
        self
    }
    /// What it is when a file leaves it out.
    const fn or(mut self, omitted: Omitted) -> Self {
        self.omitted = omitted;
        self
    }
    /// When a file leaves it out: the engine profile's value, read from its [`sc::SchedulerDefaults`].
    const fn profile(self, f: fn(&sc::SchedulerDefaults) -> Value) -> Self {
        self.or(Omitted::Profile(f))
    }
}

fn n(x: u32) -> Value {
    Value::Number(x as f64)
}

type SetFn = fn(&mut Scenario, usize, &Value) -> Result<(), Problem>;

/// Longest length a class may ask for, in tokens.
const MAX_LEN: f64 = 1_048_576.0;
/// Longest time limit, in ms (an hour).
const HOUR_MS: f64 = 3.6e6;

/// The tensor-parallel sizes a replica may have (`num_gpus`, and each pool's with disaggregation).
const TP_SIZES: &[f64] = &[1.0, 2.0, 4.0, 8.0];

/// Every setting, in the order the page offers locks (a group in place of the rows it covers) and
/// validation reports problems.
pub const SETTINGS: &[Setting] = &[
    select(id!("model"), "model", model_ids).custom(model_get, model_set),
    select(id!("gpu"), "gpu", gpu_ids).custom(gpu_get, gpu_set),
    int(id!("num_gpus"), "num_gpus", Unit::None, 1.0, 8.0, (1.0, 8.0)).choices(TP_SIZES).or(Omitted::Number(1.0)),
    select(id!("dtype"), "dtype", dtypes),
    select(id!("kv_dtype"), "kv_dtype", kv_dtypes).unset().or(Omitted::Off),
    int(id!("replicas"), "replicas", Unit::None, 1.0, 64.0, (1.0, 16.0))
        .custom(replicas_get, replicas_set)
        .sweep()
        .or(Omitted::Number(1.0)),
    select(id!("router_policy"), "router.policy", policy_names)
        .custom(policy_get, policy_set)
        .or(Omitted::Text("round_robin")),
    num(id!("router_load_cap"), "router.load_cap", Unit::Times, 1.0, 100.0, (1.0, 4.0))
        .step(0.05)
        .custom(load_cap_get, load_cap_set)
        .or(Omitted::Number(1.25)),
    // off: every replica does both; on: the replicas become a prefill and a decode pool
    int(id!("prefill_replicas"), "disaggregation.prefill_replicas", Unit::None, 1.0, 32.0, (1.0, 8.0))
        .switchable(1.0)
        .custom(prefill_get, prefill_set)
        .or(Omitted::Off),
    int(id!("decode_replicas"), "disaggregation.decode_replicas", Unit::None, 1.0, 32.0, (1.0, 8.0)),
    num(id!("kv_link_gbps"), "disaggregation.kv_link_gbps", Unit::None, 0.1, 10_000.0, (1.0, 1000.0)).log(),
    num(id!("kv_link_latency_us"), "disaggregation.kv_link_latency_us", Unit::None, 0.0, 1e6, (0.0, 1000.0)).step(1.0),
    // each pool's tensor parallelism; off: `num_gpus`
    tp_of_pool(id!("prefill_num_gpus"), "disaggregation.prefill_num_gpus"),
    tp_of_pool(id!("decode_num_gpus"), "disaggregation.decode_num_gpus"),
    num(id!("gpu_usd_per_hour"), "gpu_usd_per_hour", Unit::UsdPerHour, 0.0, 1000.0, (0.1, 20.0))
        .log()
        .switchable(2.0)
        .or(Omitted::Off),
    num(id!("gpu_memory_utilization"), "gpu_memory_utilization", Unit::Share, 0.05, 1.0, (0.3, 1.0)).step(0.01).sweep(),
    num(id!("other_process_gib"), "other_process_gib", Unit::Gib, 0.0, 1024.0, (0.0, 16.0))
        .step(0.1)
        .custom(other_get, other_set)
        .or(Omitted::Number(0.0)),
    int(id!("seed"), "seed", Unit::None, 0.0, u64::MAX as f64, (0.0, 1e6)),
    select(id!("engine_profile"), "engine_profile", engine_names)
        .custom(profile_get, profile_set)
        .or(Omitted::Text("vllm")),
    select(id!("batching"), "scheduler.batching", || names(&["continuous", "static"]))
        .profile(|d| Value::Text(d.batching.name().to_string())),
    int(id!("max_num_seqs"), "scheduler.max_num_seqs", Unit::Seqs, 1.0, 4096.0, (1.0, 1024.0))
        .log()
        .sweep()
        .profile(|d| n(d.max_num_seqs)),
    int(id!("max_num_batched_tokens"), "scheduler.max_num_batched_tokens", Unit::Tokens, 1.0, MAX_LEN, (64.0, 65536.0))
        .log()
        .sweep()
        .lock_words()
        .profile(|d| n(d.max_num_batched_tokens)),
    toggle(id!("chunked_prefill"), "scheduler.chunked_prefill").profile(|d| Value::Bool(d.chunked_prefill)),
    num(id!("batch_timeout_ms"), "scheduler.batch_timeout_ms", Unit::Ms, 0.0, HOUR_MS, (0.0, 5000.0))
        .step(10.0)
        .or(Omitted::Number(50.0)),
    // off: no speculation; on: a draft head proposing this many tokens, accepted at 0.8
    int(id!("draft_tokens"), "speculative.draft_tokens", Unit::Tokens, 1.0, MAX_DRAFT, (1.0, MAX_DRAFT))
        .switchable(4.0)
        .custom(draft_get, draft_set)
        .or(Omitted::Off),
    num(id!("acceptance_rate"), "speculative.acceptance_rate", Unit::Share, 0.0, MAX_ACCEPTANCE, (0.0, MAX_ACCEPTANCE))
        .step(0.01),
    select(id!("draft_model"), "speculative.draft_model", model_ids).unset(),
    toggle(id!("isolation"), "scheduler.isolation").or(Omitted::Bool(false)),
    select(id!("kv_layout"), "scheduler.kv_layout", || names(&["paged", "contiguous"]))
        .profile(|d| Value::Text(d.kv_layout.name().to_string())),
    int(id!("block_size"), "scheduler.block_size", Unit::Tokens, 1.0, 1024.0, (1.0, 256.0))
        .log()
        .profile(|d| n(d.block_size)),
    toggle(id!("prefix_caching"), "scheduler.prefix_caching").profile(|d| Value::Bool(d.prefix_caching)),
    select(id!("admission"), "scheduler.admission", || names(&sc::Admission::NAMES))
        .file_only()
        .no_lock()
        .profile(|d| Value::Text(d.admission.name().to_string())),
    toggle(id!("mixed_prefill"), "scheduler.mixed_prefill")
        .file_only()
        .no_lock()
        .profile(|d| Value::Bool(d.mixed_prefill)),
    toggle(id!("overlap"), "scheduler.overlap").file_only().no_lock().profile(|d| Value::Bool(d.overlap)),
    int(id!("batch_wait_iters"), "scheduler.batch_wait_iters", Unit::Count, 0.0, 10_000.0, (0.0, 100.0))
        .file_only()
        .no_lock()
        .or(Omitted::Number(0.0)),
    num(id!("batch_wait_tokens_ratio"), "scheduler.batch_wait_tokens_ratio", Unit::Share, 0.0, 1.0, (0.0, 1.0))
        .file_only()
        .no_lock()
        .or(Omitted::Number(0.0)),
    int(id!("max_model_len"), "scheduler.max_model_len", Unit::Tokens, 2.0, 1e7, (256.0, 131072.0))
        .log()
        .max_of(context)
        .profile(|d| n(d.max_model_len)),
    toggle(id!("overcommit"), "scheduler.overcommit").or(Omitted::Bool(false)),
    toggle(id!("retry_on_oom"), "scheduler.retry_on_oom").or(Omitted::Bool(false)),
    num(id!("restart_s"), "scheduler.restart_s", Unit::S, 0.0, 3600.0, (0.0, 120.0))
        .step(1.0)
        .lock_words()
        .or(Omitted::Number(30.0)),
    num(id!("queue_timeout_ms"), "scheduler.queue_timeout_ms", Unit::Ms, 1.0, HOUR_MS, (50.0, 120_000.0))
        .log()
        .switchable(2000.0)
        .or(Omitted::Off),
    int(id!("max_queue_len"), "scheduler.max_queue_len", Unit::Requests, 0.0, 1e7, (1.0, 10_000.0))
        .log()
        .switchable(64.0)
        .or(Omitted::Off),
    constant!(mfu, Unit::Share, 0.01, 1.0),
    constant!(mbu, Unit::Share, 0.01, 1.0),
    constant!(iteration_overhead_ms, Unit::Ms, 0.0, 1000.0),
    constant!(layer_launch_us, Unit::None, 0.0, 10_000.0),
    constant!(allreduce_latency_us, Unit::None, 0.0, 10_000.0),
    constant!(eager_allreduce_us, Unit::None, 0.0, 10_000.0),
    constant!(pcie_allreduce_latency_us, Unit::None, 0.0, 10_000.0),
    constant!(fp8_efficiency, Unit::Share, 0.1, 1.0),
    constant!(roofline_sharpness, Unit::None, 1.0, 64.0),
    constant!(request_latency_ms, Unit::Ms, 0.0, 10_000.0),
    constant!(frontend_cpu_ms, Unit::Ms, 0.0, 10_000.0),
    constant!(tokenize_us_per_token, Unit::None, 0.0, 1000.0),
    constant!(stream_latency_ms, Unit::Ms, 0.0, 10_000.0),
    constant!(frontend_jitter, Unit::Share, 0.0, 1.0),
    constant!(step_jitter, Unit::Share, 0.0, 0.5),
    // each class (the lock list offers `classes`, adding and removing one, before them)
    text(id!("class_name"), "classes[{i}].name").lock_words(),
    select(id!("arrival_kind"), "classes[{i}].arrival.kind", || names(&Arrival::KINDS))
        .custom(arrival_get, arrival_set)
        .lock_words(),
    num(id!("rate_per_s"), "classes[{i}].arrival.rate_per_s", Unit::RequestsPerS, 1e-6, 1e6, (0.1, 200.0))
        .log()
        .sweep(),
    num(id!("cv"), "classes[{i}].arrival.cv", Unit::None, 0.05, 20.0, (0.1, 10.0)).log(),
    int(id!("users"), "classes[{i}].arrival.users", Unit::Users, 1.0, 100_000.0, (1.0, 2000.0)).log(),
    num(id!("think_time_ms"), "classes[{i}].arrival.think_time_ms", Unit::Ms, 0.0, HOUR_MS, (0.0, 60_000.0))
        .step(100.0),
    select(id!("trace"), "classes[{i}].arrival.path", trace_names).no_lock(),
    int(id!("num_requests"), "classes[{i}].num_requests", Unit::Requests, 1.0, 1e7, (10.0, 20_000.0)).log(),
    select(id!("input_tokens_kind"), "classes[{i}].input_tokens.kind", len_kinds)
        .custom(input_kind_get, input_kind_set),
    int(id!("input_tokens_value"), "classes[{i}].input_tokens.value", Unit::Tokens, 1.0, MAX_LEN, (1.0, 32768.0)).log(),
    int(id!("input_tokens_min"), "classes[{i}].input_tokens.min", Unit::Tokens, 1.0, MAX_LEN, (1.0, 32768.0)).log(),
    int(id!("input_tokens_max"), "classes[{i}].input_tokens.max", Unit::Tokens, 1.0, MAX_LEN, (1.0, 32768.0))
        .log()
        .min_of(|s, i| uniform_min(s.classes[i].input_tokens.as_ref())),
    num(id!("input_tokens_mean"), "classes[{i}].input_tokens.mean", Unit::Tokens, 1.0, MAX_LEN, (1.0, 32768.0)).log(),
    num(id!("input_tokens_sigma"), "classes[{i}].input_tokens.sigma", Unit::None, 0.0, 3.0, (0.0, 2.0)).step(0.05),
    select(id!("output_tokens_kind"), "classes[{i}].output_tokens.kind", len_kinds)
        .custom(output_kind_get, output_kind_set),
    int(id!("output_tokens_value"), "classes[{i}].output_tokens.value", Unit::Tokens, 1.0, MAX_LEN, (1.0, 32768.0))
        .log(),
    int(id!("output_tokens_min"), "classes[{i}].output_tokens.min", Unit::Tokens, 1.0, MAX_LEN, (1.0, 32768.0)).log(),
    int(id!("output_tokens_max"), "classes[{i}].output_tokens.max", Unit::Tokens, 1.0, MAX_LEN, (1.0, 32768.0))
        .log()
        .min_of(|s, i| uniform_min(s.classes[i].output_tokens.as_ref())),
    num(id!("output_tokens_mean"), "classes[{i}].output_tokens.mean", Unit::Tokens, 1.0, MAX_LEN, (1.0, 32768.0)).log(),
    num(id!("output_tokens_sigma"), "classes[{i}].output_tokens.sigma", Unit::None, 0.0, 3.0, (0.0, 2.0)).step(0.05),
    num(id!("slo_ttft_ms"), "classes[{i}].slo.ttft_ms", Unit::Ms, 0.001, HOUR_MS, (10.0, 60_000.0))
        .log()
        .switchable(500.0)
        .or(Omitted::Off),
    num(id!("slo_tpot_ms"), "classes[{i}].slo.tpot_ms", Unit::Ms, 0.001, HOUR_MS, (1.0, 1000.0))
        .log()
        .switchable(50.0)
        .or(Omitted::Off),
    num(id!("slo_e2e_ms"), "classes[{i}].slo.e2e_ms", Unit::Ms, 0.001, HOUR_MS, (100.0, 600_000.0))
        .log()
        .switchable(60_000.0)
        .or(Omitted::Off),
    int(id!("priority"), "classes[{i}].priority", Unit::None, 0.0, 100.0, (0.0, 10.0)).or(Omitted::Number(0.0)),
    num(id!("reserved_share"), "classes[{i}].reserved_share", Unit::Share, 0.0, 1.0, (0.0, 1.0))
        .step(0.05)
        .switchable(0.5)
        .lock_words()
        .or(Omitted::Off),
    int(id!("max_concurrency"), "classes[{i}].max_concurrency", Unit::Requests, 1.0, 1e6, (1.0, 1024.0))
        .log()
        .switchable(16.0)
        .no_lock()
        .file_only()
        .or(Omitted::Off),
    num(id!("speedup"), "classes[{i}].arrival.speedup", Unit::Times, 0.001, 1000.0, (0.1, 100.0)).log(),
];

/// Lock ids that cover several rows: the list of classes itself (adding and removing one), and
/// the groups under a class (`classes.slo` covers `classes[0].slo.ttft_ms`).
pub const GROUPS: [&str; 4] = ["classes", "classes.input_tokens", "classes.output_tokens", "classes.slo"];

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
