//! The table of controls: one row per scenario setting the editor shows, in the editor's order.
//! A row adds to sim-core's settings row (`sim_core::settings`: path, kind, ranges, get/set, its
//! translation keys) only what is the page's: the id the page and locks use, the unit's text,
//! where it shows and when. Its label and definition are the setting's keys
//! (`setting.<id>.label`, `.def`), taken from the row when the table is built. Adding a control
//! is one row here plus the setting's words in `app/i18n/ui.{en,zh}.json`;
//! `tests/controls_table.rs` checks ids, keys and locks.

use sim_core::scenario::Batching;
use sim_core::settings::{Setting, SETTINGS};
use sim_core::Scenario;

use crate::controls::{At, Control, Kind, Options, Section};

/// The control with id `id`.
pub fn control(id: &str) -> Option<&'static Control> {
    CONTROLS.iter().find(|c| c.id == id)
}

fn always(_: &Scenario, _: At) -> bool {
    true
}

/// sim-core's settings row `id`, found while the table is built (an id the settings table does
/// not hold stops the build).
const fn setting(id: &str) -> &'static Setting {
    const fn same(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }
    let mut i = 0;
    while i < SETTINGS.len() {
        if same(SETTINGS[i].id, id) {
            return &SETTINGS[i];
        }
        i += 1;
    }
    panic!("a control names a setting the settings table does not hold")
}

const fn row(id: &'static str, setting_id: &'static str, unit: &'static str, section: Section, kind: Kind) -> Control {
    let keys = setting(setting_id).keys;
    Control {
        id,
        setting: setting_id,
        label: keys.label,
        def: keys.def,
        unit,
        section,
        when: always,
        kind,
        read: None,
        slider_max_of: None,
    }
}

const fn num(id: &'static str, setting: &'static str, unit: &'static str, section: Section) -> Control {
    row(id, setting, unit, section, Kind::Number)
}

const fn select(id: &'static str, setting: &'static str, section: Section, options: Options) -> Control {
    row(id, setting, "", section, Kind::Select(options))
}

const fn toggle(id: &'static str, setting: &'static str, section: Section) -> Control {
    row(id, setting, "", section, Kind::Toggle)
}

impl Control {
    /// Shown only when `f` holds too (beyond sim-core reading a value for it).
    const fn when(self, f: fn(&Scenario, At) -> bool) -> Control {
        Control { when: f, ..self }
    }
}

const NUM_GPUS: &[(&str, &str)] =
    &[("1", "ctl.num_gpus.1"), ("2", "ctl.num_gpus.2"), ("4", "ctl.num_gpus.4"), ("8", "ctl.num_gpus.8")];
/// `sim_core::catalog::Dtype::ALL` by name, in its order (a test holds them equal).
const DTYPES: &[(&str, &str)] = &[
    ("bf16", "ctl.dtype.bf16"),
    ("fp16", "ctl.dtype.fp16"),
    ("fp8", "ctl.dtype.fp8"),
    ("int4", "ctl.dtype.int4"),
    ("mxfp4", "ctl.dtype.mxfp4"),
    ("nvfp4", "ctl.dtype.nvfp4"),
];
/// "same as weights", then `Dtype::KV` by name (a test holds them equal).
const KV_DTYPES: &[(&str, &str)] =
    &[("", "ctl.kv_dtype.same"), ("bf16", "ctl.dtype.bf16"), ("fp16", "ctl.dtype.fp16"), ("fp8", "ctl.dtype.fp8")];
const ARRIVALS: &[(&str, &str)] = &[
    ("poisson", "ctl.arrivals.poisson"),
    ("bursty", "ctl.arrivals.bursty"),
    ("closed_loop", "ctl.arrivals.closed_loop"),
    ("trace", "ctl.arrivals.trace"),
];
const LEN_KINDS: &[(&str, &str)] =
    &[("lognormal", "ctl.len.lognormal"), ("uniform", "ctl.len.uniform"), ("fixed", "ctl.len.fixed")];
/// `sim_core::cluster::Policy::ALL` by name, in its order (a test holds them equal).
const POLICIES: &[(&str, &str)] = &[
    ("round_robin", "ctl.router.round_robin"),
    ("random", "ctl.router.random"),
    ("least_outstanding", "ctl.router.least_outstanding"),
    ("least_kv", "ctl.router.least_kv"),
    ("prefix_affinity", "ctl.router.prefix_affinity"),
];
const BATCHINGS: &[(&str, &str)] = &[("continuous", "ctl.batching.continuous"), ("static", "ctl.batching.static")];
const KV_LAYOUTS: &[(&str, &str)] = &[("paged", "ctl.kv_layout.paged"), ("contiguous", "ctl.kv_layout.contiguous")];

const M: Section = Section::Model;
const A: Section = Section::Arrivals;
const IN: Section = Section::InputLength;
const OUT: Section = Section::OutputLength;
const SLO: Section = Section::Slo;
const B: Section = Section::Batching;
const KV: Section = Section::KvLayout;
const MEM: Section = Section::KvMemory;
const Q: Section = Section::Queue;

/// Every control, in the editor's order within each section.
#[rustfmt::skip]
pub static CONTROLS: [Control; 59] = [
    // ---- model and hardware
    select("model", "model", M, Options::Models),
    select("gpu", "gpu", M, Options::Gpus),
    select("num_gpus", "num_gpus", M, Options::Keys(NUM_GPUS)),
    select("dtype", "dtype", M, Options::Keys(DTYPES)),
    select("kv_dtype", "kv_dtype", M, Options::Keys(KV_DTYPES)),
    // ---- replicas behind a router: the router's settings only with more than one
    num("replicas", "replicas", "", M).when(colocated),
    select("router.policy", "router_policy", M, Options::Keys(POLICIES)).when(cluster),
    num("router.load_cap", "router_load_cap", "×", M).when(affinity),
    // ---- prefill/decode disaggregation: off, or the two pools and the link between them
    num("disaggregation.prefill_replicas", "prefill_replicas", "", M),
    num("disaggregation.decode_replicas", "decode_replicas", "", M),
    num("disaggregation.kv_link_gbps", "kv_link_gbps", "GB/s", M),
    num("disaggregation.kv_link_latency_us", "kv_link_latency_us", "µs", M),
    // the editor shows the price in effect (the catalogue's when none is set), never "off"
    Control { read: Some(|s| Some(s.usd_per_hour_per_gpu())), ..num("gpu_usd_per_hour", "gpu_usd_per_hour", "$/GPU-h", M) },
    // ---- each class: arrivals
    select("classes.arrival.kind", "arrival_kind", A, Options::Keys(ARRIVALS)),
    num("classes.arrival.rate_per_s", "rate_per_s", "req/s", A),
    num("classes.arrival.cv", "cv", "", A),
    num("classes.arrival.users", "users", "unit.users", A),
    num("classes.arrival.think_time_ms", "think_time_ms", "ms", A),
    select("classes.arrival.path", "trace", A, Options::Traces),
    num("classes.arrival.speedup", "speedup", "×", A),
    // ---- each class: requests and lengths (a trace gives them: they do not apply to it)
    num("classes.num_requests", "num_requests", "unit.requests", Section::Requests),
    select("classes.input_tokens", "input_tokens_kind", IN, Options::Keys(LEN_KINDS)),
    num("classes.input_tokens.value", "input_tokens_value", "unit.tokens", IN),
    num("classes.input_tokens.min", "input_tokens_min", "unit.tokens", IN),
    num("classes.input_tokens.max", "input_tokens_max", "unit.tokens", IN),
    num("classes.input_tokens.mean", "input_tokens_mean", "unit.tokens", IN),
    num("classes.input_tokens.sigma", "input_tokens_sigma", "", IN),
    select("classes.output_tokens", "output_tokens_kind", OUT, Options::Keys(LEN_KINDS)),
    num("classes.output_tokens.value", "output_tokens_value", "unit.tokens", OUT),
    num("classes.output_tokens.min", "output_tokens_min", "unit.tokens", OUT),
    num("classes.output_tokens.max", "output_tokens_max", "unit.tokens", OUT),
    num("classes.output_tokens.mean", "output_tokens_mean", "unit.tokens", OUT),
    num("classes.output_tokens.sigma", "output_tokens_sigma", "", OUT),
    // ---- each class: SLOs, priority
    num("classes.slo.ttft_ms", "slo_ttft_ms", "ms", SLO),
    num("classes.slo.tpot_ms", "slo_tpot_ms", "ms", SLO),
    num("classes.slo.e2e_ms", "slo_e2e_ms", "ms", SLO),
    num("classes.priority", "priority", "", Section::Isolation).when(isolated),
    num("classes.reserved_share", "reserved_share", "", Section::Isolation).when(isolated),
    // ---- batching: the engine profile first (choosing one sets the settings below that the
    // user left at the old profile's defaults)
    select("engine_profile", "engine_profile", B, Options::Engines),
    select("scheduler.batching", "batching", B, Options::Keys(BATCHINGS)),
    num("scheduler.max_num_seqs", "max_num_seqs", "unit.seqs", B),
    num("scheduler.max_num_batched_tokens", "max_num_batched_tokens", "unit.tokens", B),
    toggle("scheduler.chunked_prefill", "chunked_prefill", B),
    num("scheduler.batch_timeout_ms", "batch_timeout_ms", "ms", B).when(static_batching),
    // speculative decoding: off, or k draft tokens a step (the rest only while it is on)
    num("speculative.draft_tokens", "draft_tokens", "unit.tokens", B),
    num("speculative.acceptance_rate", "acceptance_rate", "", B),
    select("speculative.draft_model", "draft_model", B, Options::DraftModels),
    toggle("scheduler.isolation", "isolation", B),
    // ---- KV cache and memory
    select("scheduler.kv_layout", "kv_layout", KV, Options::Keys(KV_LAYOUTS)),
    num("scheduler.block_size", "block_size", "unit.tokens", KV),
    toggle("scheduler.prefix_caching", "prefix_caching", KV),
    // the slider ends at the model's context (validation's limit; the page says so under it)
    Control { slider_max_of: Some(model_context), ..num("scheduler.max_model_len", "max_model_len", "unit.tokens", KV) },
    num("gpu_memory_utilization", "gpu_memory_utilization", "", MEM),
    num("other_process_gib", "other_process_gib", "GiB", MEM),
    toggle("scheduler.overcommit", "overcommit", MEM),
    toggle("scheduler.retry_on_oom", "retry_on_oom", MEM),
    num("scheduler.restart_s", "restart_s", "s", MEM),
    // ---- queue
    num("scheduler.queue_timeout_ms", "queue_timeout_ms", "ms", Q),
    num("scheduler.max_queue_len", "max_queue_len", "unit.requests", Q),
];

/// The router has a choice: more than one replica (with disaggregation, prefill replica) to send
/// an arrival to.
fn cluster(s: &Scenario, _: At) -> bool {
    s.arrival_replicas() > 1
}

fn affinity(s: &Scenario, at: At) -> bool {
    cluster(s, at) && s.router.policy == sim_core::cluster::Policy::PrefixAffinity
}

/// `replicas` counts colocated replicas; with disaggregation the pools' counts stand instead.
fn colocated(s: &Scenario, _: At) -> bool {
    s.disaggregation.is_none()
}

fn isolated(s: &Scenario, _: At) -> bool {
    s.lane_per_class()
}

fn static_batching(s: &Scenario, _: At) -> bool {
    s.scheduler.batching == Batching::Static
}

/// The slider's upper end for the context length: the model's context.
fn model_context(s: &Scenario) -> f64 {
    s.model_spec().map_or(131072.0, |m| f64::from(m.max_context))
}
