//! Scenario controls: every sim-core strategy and setting, grouped as a learner thinks of them.
//!
//! Sliders clamp to a sensible range; the number box beside each accepts any value and shows
//! sim-core's validation message for that field (`ScenarioError::for_field`). Fields are data
//! (`NumSpec`: label, definition, path, range, getter, setter) rendered by one component.
//! Labels, definitions and option texts are translation keys (`app/i18n/ui.*.json`).
//!
//! A control whose scenario path is locked (`Ui::locked`, set by a teacher's link or an
//! exercise) is disabled and shows a lock with the reason.

use app_model::Run;
use leptos::prelude::*;
use sim_core::catalog;
use sim_core::presets::PRESETS;
use sim_core::scenario::{Arrival, Batching, ClassConfig, KvLayout, LengthDist, Slo};
use sim_core::settings;
use sim_core::workload::BUILTIN_TRACES;
use sim_core::{Dtype, Scenario};

use std::sync::Arc;

use crate::defs::Term;
use crate::format;
use crate::glyph;
use crate::i18n::{t, tf, tx};
use crate::ui::{use_ui, Ui};

/// Text of a drop-down option, computed in the current language.
pub type OptText = Arc<dyn Fn() -> String + Send + Sync>;

/// A numeric field.
pub struct NumSpec {
    pub label: &'static str,
    pub help: &'static str,
    pub unit: &'static str,
    pub path: fn(usize) -> String,
    pub min: f64,
    pub max: f64,
    /// Upper end of the slider that depends on the scenario (e.g. the model's context).
    pub max_of: Option<fn(&Scenario) -> f64>,
    pub log: bool,
    pub integer: bool,
    /// Slider step for linear sliders.
    pub step: f64,
    /// Can be switched off; the value it takes when switched on.
    pub optional: Option<f64>,
    pub get: fn(&Scenario, usize) -> Option<f64>,
    pub set: fn(&mut Scenario, usize, Option<f64>),
}

const LOG_STEPS: f64 = 1000.0;

impl NumSpec {
    fn slider_of(&self, max: f64, v: f64) -> f64 {
        if self.log {
            let v = v.clamp(self.min, max);
            (v / self.min).ln() / (max / self.min).ln() * LOG_STEPS
        } else {
            v.clamp(self.min, max)
        }
    }

    fn value_at(&self, max: f64, x: f64) -> f64 {
        let v = if self.log {
            self.min * (max / self.min).powf((x / LOG_STEPS).clamp(0.0, 1.0))
        } else {
            x.clamp(self.min, max)
        };
        if self.integer {
            v.round()
        } else if self.log {
            round_sig(v, 2)
        } else {
            v
        }
    }

    /// Reads what was typed: a number (a whole number for integer fields). The error is a
    /// translation key.
    fn parse(&self, text: &str) -> Result<f64, &'static str> {
        let text = text.trim().replace(',', "");
        let v: f64 = text.parse().map_err(|_| "ctl.err.number")?;
        if !v.is_finite() {
            return Err("ctl.err.finite");
        }
        if self.integer && (v.fract() != 0.0 || v < 0.0 || v > f64::from(u32::MAX)) {
            return Err("ctl.err.whole");
        }
        Ok(v)
    }
}

fn round_sig(v: f64, digits: i32) -> f64 {
    if v <= 0.0 || !v.is_finite() {
        return v;
    }
    let mag = 10f64.powi(v.log10().floor() as i32 - digits + 1);
    (v / mag).round() * mag
}

fn sanitize(path: &str) -> String {
    path.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
}

/// sim-core's message for `path`, if the draft is invalid there (sim-core's words, English,
/// after a translated lead-in).
fn field_error(ui: Ui, run: Run, path: String) -> Memo<Option<String>> {
    Memo::new(move |_| {
        ui.errors[run.index()]
            .with(|e| e.as_ref().and_then(|e| e.for_field(&path)).map(|f| f.message.clone()))
            .map(|m| tf("ctl.field_error", &[("message", m)]))
    })
}

/// A scenario path without its class indices: `classes[1].slo.ttft_ms` → `classes.slo.ttft_ms`.
fn control_id(path: &str) -> String {
    let mut plain = String::with_capacity(path.len());
    let mut depth = 0u32;
    for ch in path.chars() {
        match ch {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            _ if depth == 0 => plain.push(ch),
            _ => {}
        }
    }
    plain
}

/// Whether lock `lock` covers the control at `path`. Locks name controls by scenario path, with or
/// without class indices (`classes[0].arrival.rate_per_s`, `classes.arrival.rate_per_s`); a lock
/// also covers the fields under it (`classes.slo` covers `classes[0].slo.ttft_ms`), except
/// `classes`, which locks the list of classes (adding and removing one).
pub fn lock_covers(lock: &str, path: &str) -> bool {
    if lock == path {
        return true;
    }
    let plain = control_id(path);
    plain == lock
        || (lock != "classes"
            && ((plain.starts_with(lock) && plain.as_bytes().get(lock.len()) == Some(&b'.'))
                || (path.starts_with(lock) && matches!(path.as_bytes().get(lock.len()), Some(b'.' | b'[')))))
}

/// Whether the control at `path` is locked (by a teacher's link or an exercise).
pub fn locked_at(ui: Ui, path: &str) -> bool {
    ui.locked.with(|l| l.iter().any(|lock| lock_covers(lock, path)))
}

/// Whether any control is locked (loading a preset would change them all).
fn any_locked(ui: Ui) -> bool {
    ui.locked.with(|l| !l.is_empty())
}

/// The lock shown beside a locked control.
fn lock_badge(locked: impl Fn() -> bool + Send + Sync + 'static) -> impl IntoView {
    view! {
        <span class="lock" class:hidden=move || !locked() title=tx("ctl.locked") data-testid="lock">
            <span aria-hidden="true">"🔒"</span>
            <span class="sr-only">{tx("ctl.locked")}</span>
        </span>
    }
}

/// A slider and a number box for one numeric field.
#[component]
pub fn NumField(run: Run, spec: &'static NumSpec, #[prop(default = 0)] idx: usize) -> impl IntoView {
    let ui = use_ui();
    let draft = ui.drafts[run.index()];
    let path = (spec.path)(idx);
    let id = format!("f-{}", sanitize(&path));
    let value = Memo::new(move |_| draft.with(|s| (spec.get)(s, idx)));
    let max = Memo::new(move |_| draft.with(|s| spec.max_of.map_or(spec.max, |f| f(s)).max(spec.min)));
    let local = RwSignal::new(None::<&'static str>);
    // Text that could not be read is dropped when the scenario changes in any other way.
    let nonce = RwSignal::new(0u32);
    Effect::new(move |_| {
        draft.track();
        if local.get_untracked().is_some() {
            local.set(None);
            nonce.update(|n| *n += 1);
        }
    });
    let sim_err = field_error(ui, run, path.clone());
    let message = move || local.get().map(t).or_else(|| sim_err.get());
    let lock_path = path.clone();
    let locked = Memo::new(move |_| locked_at(ui, &lock_path));
    let commit = move |v: Option<f64>| {
        local.set(None);
        draft.update(|s| (spec.set)(s, idx, v));
    };
    let on = move || value.get().is_some();
    let slider_value = move || value.get().map_or(0.0, |v| spec.slider_of(max.get(), v)).to_string();
    let (s_min, s_max, s_step) = if spec.log { (0.0, LOG_STEPS, 1.0) } else { (spec.min, spec.max, spec.step) };
    let toggle = spec.optional.map(|default| {
        view! {
            <input
                type="checkbox"
                class="opt"
                aria-label=move || tf("ctl.use", &[("name", t(spec.label))])
                data-testid=format!("toggle-{path}")
                disabled=move || locked.get()
                prop:checked=on
                on:change=move |ev| {
                    let checked = event_target_checked(&ev);
                    commit(if checked { Some(default) } else { None });
                }
            />
        }
    });
    view! {
        <div class="field" class:invalid=move || message().is_some() class:off=move || !on() class:locked=move || locked.get()>
            <div class="field-head">
                {toggle}
                <label for=id.clone()><Term label=spec.label def=spec.help/></label>
                {lock_badge(move || locked.get())}
            </div>
            <div class="inputs">
                <input
                    type="range"
                    min=s_min
                    max=move || if spec.log { LOG_STEPS } else { max.get().max(s_max.min(max.get())) }
                    step={ if s_step > 0.0 { s_step.to_string() } else { "any".to_string() } }
                    aria-label=move || tf("ctl.slider", &[("name", t(spec.label))])
                    data-testid=format!("slider-{path}")
                    disabled=move || !on() || locked.get()
                    prop:value=slider_value
                    on:input={ move |ev| {
                        if let Ok(x) = event_target_value(&ev).parse::<f64>() {
                            commit(Some(spec.value_at(max.get_untracked(), x)));
                        }
                    } }
                />
                <input
                    type="text"
                    inputmode="decimal"
                    id=id
                    class="num"
                    data-testid=format!("field-{path}")
                    disabled=move || !on() || locked.get()
                    prop:value=move || {
                        nonce.track();
                        value.get().map(format::plain).unwrap_or_default()
                    }
                    on:change=move |ev| {
                        match spec.parse(&event_target_value(&ev)) {
                            Ok(v) => commit(Some(v)),
                            Err(m) => local.set(Some(m)),
                        }
                    }
                />
                <span class="unit">{tx(spec.unit)}</span>
            </div>
            <p class="err" role="alert" data-testid=format!("error-{path}")>{message}</p>
        </div>
    }
}

/// A drop-down field.
#[component]
pub fn SelectField(
    run: Run,
    label: &'static str,
    help: &'static str,
    path: String,
    options: Vec<(String, OptText)>,
    get: fn(&Scenario, usize) -> String,
    set: fn(&mut Scenario, usize, &str),
    #[prop(default = 0)] idx: usize,
) -> impl IntoView {
    let ui = use_ui();
    let draft = ui.drafts[run.index()];
    let id = format!("f-{}", sanitize(&path));
    let current = Memo::new(move |_| draft.with(|s| get(s, idx)));
    let err = field_error(ui, run, path.clone());
    let lock_path = path.clone();
    let locked = Memo::new(move |_| locked_at(ui, &lock_path));
    let opts = options
        .into_iter()
        .map(|(value, text)| {
            let v = value.clone();
            view! { <option value=value prop:selected=move || current.get() == v>{move || text()}</option> }
        })
        .collect_view();
    view! {
        <div class="field" class:invalid=move || err.get().is_some() class:locked=move || locked.get()>
            <div class="field-head">
                <label for=id.clone()><Term label=label def=help/></label>
                {lock_badge(move || locked.get())}
            </div>
            <select
                id=id
                data-testid=format!("field-{path}")
                disabled=move || locked.get()
                on:change=move |ev| {
                    let v = event_target_value(&ev);
                    draft.update(|s| set(s, idx, &v));
                }
            >
                {opts}
            </select>
            <p class="err" role="alert" data-testid=format!("error-{path}")>{move || err.get()}</p>
        </div>
    }
}

/// A checkbox field.
#[component]
pub fn CheckField(
    run: Run,
    label: &'static str,
    help: &'static str,
    path: &'static str,
    get: fn(&Scenario) -> bool,
    set: fn(&mut Scenario, bool),
) -> impl IntoView {
    let ui = use_ui();
    let draft = ui.drafts[run.index()];
    let id = format!("f-{}", sanitize(path));
    let checked = Memo::new(move |_| draft.with(get));
    let err = field_error(ui, run, path.to_string());
    let locked = Memo::new(move |_| locked_at(ui, path));
    view! {
        <div class="field check" class:invalid=move || err.get().is_some() class:locked=move || locked.get()>
            <input
                type="checkbox"
                id=id.clone()
                data-testid=format!("field-{path}")
                disabled=move || locked.get()
                prop:checked=move || checked.get()
                on:change=move |ev| {
                    let c = event_target_checked(&ev);
                    draft.update(|s| set(s, c));
                }
            />
            <label for=id><Term label=label def=help/></label>
            {lock_badge(move || locked.get())}
            <p class="err" role="alert" data-testid=format!("error-{path}")>{move || err.get()}</p>
        </div>
    }
}

// ------------------------------------------------------------------ helpers on the scenario

fn class(s: &Scenario, i: usize) -> Option<&ClassConfig> {
    s.classes.get(i)
}
fn class_mut(s: &mut Scenario, i: usize) -> Option<&mut ClassConfig> {
    s.classes.get_mut(i)
}

const LEN_NAMES: [&str; 2] = ["input_tokens", "output_tokens"];

/// Length distribution `k` = class × 2 + (0 input, 1 output).
fn len_dist(s: &Scenario, k: usize) -> Option<&LengthDist> {
    let c = class(s, k / 2)?;
    if k % 2 == 0 {
        c.input_tokens.as_ref()
    } else {
        c.output_tokens.as_ref()
    }
}
fn len_dist_mut(s: &mut Scenario, k: usize) -> Option<&mut LengthDist> {
    let c = class_mut(s, k / 2)?;
    if k % 2 == 0 {
        c.input_tokens.as_mut()
    } else {
        c.output_tokens.as_mut()
    }
}

fn u32_of(v: Option<f64>) -> u32 {
    v.unwrap_or(0.0).clamp(0.0, f64::from(u32::MAX)) as u32
}

fn rate_of(a: &Arrival) -> Option<f64> {
    match a {
        Arrival::Poisson { rate_per_s } | Arrival::Bursty { rate_per_s, .. } => Some(*rate_per_s),
        _ => None,
    }
}

// ------------------------------------------------------------------ field specifications

pub static GPU_PRICE: NumSpec = NumSpec {
    label: "ctl.gpu_price.label",
    help: "ctl.gpu_price.def",
    unit: "$/GPU-h",
    path: |_| "gpu_usd_per_hour".into(),
    min: 0.1,
    max: 20.0,
    max_of: None,
    log: true,
    integer: false,
    step: 0.0,
    optional: None,
    get: |s, _| Some(s.usd_per_hour_per_gpu()),
    set: |s, _, v| s.gpu_usd_per_hour = v,
};

pub static MEM_UTIL: NumSpec = NumSpec {
    label: "ctl.mem_util.label",
    help: "ctl.mem_util.def",
    unit: "",
    path: |_| "gpu_memory_utilization".into(),
    min: 0.3,
    max: 1.0,
    max_of: None,
    log: false,
    integer: false,
    step: 0.01,
    optional: None,
    get: |s, _| Some(s.gpu_memory_utilization),
    set: |s, _, v| s.gpu_memory_utilization = v.unwrap_or(0.9),
};

pub static MAX_SEQS: NumSpec = NumSpec {
    label: "ctl.max_seqs.label",
    help: "ctl.max_seqs.def",
    unit: "unit.seqs",
    path: |_| "scheduler.max_num_seqs".into(),
    min: 1.0,
    max: 1024.0,
    max_of: None,
    log: true,
    integer: true,
    step: 1.0,
    optional: None,
    get: |s, _| Some(f64::from(s.scheduler.max_num_seqs)),
    set: |s, _, v| s.scheduler.max_num_seqs = u32_of(v),
};

pub static MAX_TOKENS: NumSpec = NumSpec {
    label: "ctl.max_tokens.label",
    help: "ctl.max_tokens.def",
    unit: "unit.tokens",
    path: |_| "scheduler.max_num_batched_tokens".into(),
    min: 64.0,
    max: 65536.0,
    max_of: None,
    log: true,
    integer: true,
    step: 1.0,
    optional: None,
    get: |s, _| Some(f64::from(s.scheduler.max_num_batched_tokens)),
    set: |s, _, v| s.scheduler.max_num_batched_tokens = u32_of(v),
};

pub static BATCH_TIMEOUT: NumSpec = NumSpec {
    label: "ctl.batch_timeout.label",
    help: "ctl.batch_timeout.def",
    unit: "ms",
    path: |_| "scheduler.batch_timeout_ms".into(),
    min: 0.0,
    max: 5000.0,
    max_of: None,
    log: false,
    integer: false,
    step: 10.0,
    optional: None,
    get: |s, _| Some(s.scheduler.batch_timeout_ms),
    set: |s, _, v| s.scheduler.batch_timeout_ms = v.unwrap_or(50.0),
};

pub static BLOCK_SIZE: NumSpec = NumSpec {
    label: "ctl.block_size.label",
    help: "ctl.block_size.def",
    unit: "unit.tokens",
    path: |_| "scheduler.block_size".into(),
    min: 1.0,
    max: 256.0,
    max_of: None,
    log: true,
    integer: true,
    step: 1.0,
    optional: None,
    get: |s, _| Some(f64::from(s.scheduler.block_size)),
    set: |s, _, v| s.scheduler.block_size = u32_of(v),
};

fn model_max_context(s: &Scenario) -> f64 {
    s.model_spec().map_or(131072.0, |m| f64::from(m.max_context))
}

pub static MAX_LEN: NumSpec = NumSpec {
    label: "ctl.max_len.label",
    help: "ctl.max_len.def",
    unit: "unit.tokens",
    path: |_| "scheduler.max_model_len".into(),
    min: 256.0,
    max: 131072.0,
    max_of: Some(model_max_context),
    log: true,
    integer: true,
    step: 1.0,
    optional: None,
    get: |s, _| Some(f64::from(s.scheduler.max_model_len)),
    set: |s, _, v| s.scheduler.max_model_len = u32_of(v),
};

pub static RESTART_S: NumSpec = NumSpec {
    label: "ctl.restart_s.label",
    help: "ctl.restart_s.def",
    unit: "s",
    path: |_| "scheduler.restart_s".into(),
    min: 0.0,
    max: 120.0,
    max_of: None,
    log: false,
    integer: false,
    step: 1.0,
    optional: None,
    get: |s, _| Some(s.scheduler.restart_s),
    set: |s, _, v| s.scheduler.restart_s = v.unwrap_or(30.0),
};

pub static QUEUE_TIMEOUT: NumSpec = NumSpec {
    label: "ctl.queue_timeout.label",
    help: "ctl.queue_timeout.def",
    unit: "ms",
    path: |_| "scheduler.queue_timeout_ms".into(),
    min: 50.0,
    max: 120_000.0,
    max_of: None,
    log: true,
    integer: false,
    step: 0.0,
    optional: Some(2000.0),
    get: |s, _| s.scheduler.queue_timeout_ms,
    set: |s, _, v| s.scheduler.queue_timeout_ms = v,
};

pub static MAX_QUEUE: NumSpec = NumSpec {
    label: "ctl.max_queue.label",
    help: "ctl.max_queue.def",
    unit: "unit.requests",
    path: |_| "scheduler.max_queue_len".into(),
    min: 1.0,
    max: 10_000.0,
    max_of: None,
    log: true,
    integer: true,
    step: 1.0,
    optional: Some(64.0),
    get: |s, _| s.scheduler.max_queue_len.map(f64::from),
    set: |s, _, v| s.scheduler.max_queue_len = v.map(|x| u32_of(Some(x))),
};

pub static RATE: NumSpec = NumSpec {
    label: "ctl.rate.label",
    help: "ctl.rate.def",
    unit: "req/s",
    path: |i| format!("classes[{i}].arrival.rate_per_s"),
    min: 0.1,
    max: 200.0,
    max_of: None,
    log: true,
    integer: false,
    step: 0.0,
    optional: None,
    get: |s, i| class(s, i).and_then(|c| rate_of(&c.arrival)),
    set: |s, i, v| {
        if let Some(c) = class_mut(s, i) {
            match &mut c.arrival {
                Arrival::Poisson { rate_per_s } | Arrival::Bursty { rate_per_s, .. } => *rate_per_s = v.unwrap_or(1.0),
                _ => {}
            }
        }
    },
};

pub static CV: NumSpec = NumSpec {
    label: "ctl.cv.label",
    help: "ctl.cv.def",
    unit: "",
    path: |i| format!("classes[{i}].arrival.cv"),
    min: 0.1,
    max: 10.0,
    max_of: None,
    log: true,
    integer: false,
    step: 0.0,
    optional: None,
    get: |s, i| match class(s, i).map(|c| &c.arrival) {
        Some(Arrival::Bursty { cv, .. }) => Some(*cv),
        _ => None,
    },
    set: |s, i, v| {
        if let Some(Arrival::Bursty { cv, .. }) = class_mut(s, i).map(|c| &mut c.arrival) {
            *cv = v.unwrap_or(1.0);
        }
    },
};

pub static USERS: NumSpec = NumSpec {
    label: "ctl.users.label",
    help: "ctl.users.def",
    unit: "unit.users",
    path: |i| format!("classes[{i}].arrival.users"),
    min: 1.0,
    max: 2000.0,
    max_of: None,
    log: true,
    integer: true,
    step: 1.0,
    optional: None,
    get: |s, i| match class(s, i).map(|c| &c.arrival) {
        Some(Arrival::ClosedLoop { users, .. }) => Some(f64::from(*users)),
        _ => None,
    },
    set: |s, i, v| {
        if let Some(Arrival::ClosedLoop { users, .. }) = class_mut(s, i).map(|c| &mut c.arrival) {
            *users = u32_of(v);
        }
    },
};

pub static THINK: NumSpec = NumSpec {
    label: "ctl.think.label",
    help: "ctl.think.def",
    unit: "ms",
    path: |i| format!("classes[{i}].arrival.think_time_ms"),
    min: 0.0,
    max: 60_000.0,
    max_of: None,
    log: false,
    integer: false,
    step: 100.0,
    optional: None,
    get: |s, i| match class(s, i).map(|c| &c.arrival) {
        Some(Arrival::ClosedLoop { think_time_ms, .. }) => Some(*think_time_ms),
        _ => None,
    },
    set: |s, i, v| {
        if let Some(Arrival::ClosedLoop { think_time_ms, .. }) = class_mut(s, i).map(|c| &mut c.arrival) {
            *think_time_ms = v.unwrap_or(0.0);
        }
    },
};

pub static SPEEDUP: NumSpec = NumSpec {
    label: "ctl.speedup.label",
    help: "ctl.speedup.def",
    unit: "×",
    path: |i| format!("classes[{i}].arrival.speedup"),
    min: 0.1,
    max: 100.0,
    max_of: None,
    log: true,
    integer: false,
    step: 0.0,
    optional: None,
    get: |s, i| match class(s, i).map(|c| &c.arrival) {
        Some(Arrival::Trace { speedup, .. }) => Some(*speedup),
        _ => None,
    },
    set: |s, i, v| {
        if let Some(Arrival::Trace { speedup, .. }) = class_mut(s, i).map(|c| &mut c.arrival) {
            *speedup = v.unwrap_or(1.0);
        }
    },
};

pub static NUM_REQUESTS: NumSpec = NumSpec {
    label: "ctl.num_requests.label",
    help: "ctl.num_requests.def",
    unit: "unit.requests",
    path: |i| format!("classes[{i}].num_requests"),
    min: 10.0,
    max: 20_000.0,
    max_of: None,
    log: true,
    integer: true,
    step: 1.0,
    optional: None,
    get: |s, i| class(s, i).and_then(|c| c.num_requests).map(|n| n as f64),
    set: |s, i, v| {
        if let Some(c) = class_mut(s, i) {
            c.num_requests = Some(v.unwrap_or(1.0).max(0.0) as u64);
        }
    },
};

fn slo_spec_get(s: &Scenario, i: usize, f: fn(&Slo) -> Option<f64>) -> Option<f64> {
    class(s, i).and_then(|c| f(&c.slo))
}

pub static SLO_TTFT: NumSpec = NumSpec {
    label: "ctl.slo_ttft.label",
    help: "ctl.slo_ttft.def",
    unit: "ms",
    path: |i| format!("classes[{i}].slo.ttft_ms"),
    min: 10.0,
    max: 60_000.0,
    max_of: None,
    log: true,
    integer: false,
    step: 0.0,
    optional: Some(500.0),
    get: |s, i| slo_spec_get(s, i, |x| x.ttft_ms),
    set: |s, i, v| {
        if let Some(c) = class_mut(s, i) {
            c.slo.ttft_ms = v;
        }
    },
};

pub static SLO_TPOT: NumSpec = NumSpec {
    label: "ctl.slo_tpot.label",
    help: "ctl.slo_tpot.def",
    unit: "ms",
    path: |i| format!("classes[{i}].slo.tpot_ms"),
    min: 1.0,
    max: 1000.0,
    max_of: None,
    log: true,
    integer: false,
    step: 0.0,
    optional: Some(50.0),
    get: |s, i| slo_spec_get(s, i, |x| x.tpot_ms),
    set: |s, i, v| {
        if let Some(c) = class_mut(s, i) {
            c.slo.tpot_ms = v;
        }
    },
};

pub static SLO_E2E: NumSpec = NumSpec {
    label: "ctl.slo_e2e.label",
    help: "ctl.slo_e2e.def",
    unit: "ms",
    path: |i| format!("classes[{i}].slo.e2e_ms"),
    min: 100.0,
    max: 600_000.0,
    max_of: None,
    log: true,
    integer: false,
    step: 0.0,
    optional: Some(60_000.0),
    get: |s, i| slo_spec_get(s, i, |x| x.e2e_ms),
    set: |s, i, v| {
        if let Some(c) = class_mut(s, i) {
            c.slo.e2e_ms = v;
        }
    },
};

pub static PRIORITY: NumSpec = NumSpec {
    label: "ctl.priority.label",
    help: "ctl.priority.def",
    unit: "",
    path: |i| format!("classes[{i}].priority"),
    min: 0.0,
    max: 10.0,
    max_of: None,
    log: false,
    integer: true,
    step: 1.0,
    optional: None,
    get: |s, i| class(s, i).map(|c| f64::from(c.priority)),
    set: |s, i, v| {
        if let Some(c) = class_mut(s, i) {
            c.priority = u32_of(v);
        }
    },
};

pub static RESERVED: NumSpec = NumSpec {
    label: "ctl.reserved.label",
    help: "ctl.reserved.def",
    unit: "",
    path: |i| format!("classes[{i}].reserved_share"),
    min: 0.0,
    max: 1.0,
    max_of: None,
    log: false,
    integer: false,
    step: 0.05,
    optional: Some(0.5),
    get: |s, i| class(s, i).and_then(|c| c.reserved_share),
    set: |s, i, v| {
        if let Some(c) = class_mut(s, i) {
            c.reserved_share = v;
        }
    },
};

fn len_path(k: usize, field: &str) -> String {
    format!("classes[{}].{}.{field}", k / 2, LEN_NAMES[k % 2])
}

pub static LEN_FIXED: NumSpec = NumSpec {
    label: "ctl.len_fixed.label",
    help: "ctl.len_fixed.def",
    unit: "unit.tokens",
    path: |k| len_path(k, "value"),
    min: 1.0,
    max: 32768.0,
    max_of: None,
    log: true,
    integer: true,
    step: 1.0,
    optional: None,
    get: |s, k| match len_dist(s, k) {
        Some(LengthDist::Fixed { value }) => Some(f64::from(*value)),
        _ => None,
    },
    set: |s, k, v| {
        if let Some(LengthDist::Fixed { value }) = len_dist_mut(s, k) {
            *value = u32_of(v);
        }
    },
};

pub static LEN_MIN: NumSpec = NumSpec {
    label: "ctl.len_min.label",
    help: "ctl.len_min.def",
    unit: "unit.tokens",
    path: |k| len_path(k, "min"),
    min: 1.0,
    max: 32768.0,
    max_of: None,
    log: true,
    integer: true,
    step: 1.0,
    optional: None,
    get: |s, k| match len_dist(s, k) {
        Some(LengthDist::Uniform { min, .. }) => Some(f64::from(*min)),
        _ => None,
    },
    set: |s, k, v| {
        if let Some(LengthDist::Uniform { min, .. }) = len_dist_mut(s, k) {
            *min = u32_of(v);
        }
    },
};

pub static LEN_MAX: NumSpec = NumSpec {
    label: "ctl.len_max.label",
    help: "ctl.len_max.def",
    unit: "unit.tokens",
    path: |k| len_path(k, "max"),
    min: 1.0,
    max: 32768.0,
    max_of: None,
    log: true,
    integer: true,
    step: 1.0,
    optional: None,
    get: |s, k| match len_dist(s, k) {
        Some(LengthDist::Uniform { max, .. }) => Some(f64::from(*max)),
        _ => None,
    },
    set: |s, k, v| {
        if let Some(LengthDist::Uniform { max, .. }) = len_dist_mut(s, k) {
            *max = u32_of(v);
        }
    },
};

pub static LEN_MEAN: NumSpec = NumSpec {
    label: "ctl.len_mean.label",
    help: "ctl.len_mean.def",
    unit: "unit.tokens",
    path: |k| len_path(k, "mean"),
    min: 1.0,
    max: 32768.0,
    max_of: None,
    log: true,
    integer: false,
    step: 0.0,
    optional: None,
    get: |s, k| match len_dist(s, k) {
        Some(LengthDist::Lognormal { mean, .. }) => Some(*mean),
        _ => None,
    },
    set: |s, k, v| {
        if let Some(LengthDist::Lognormal { mean, .. }) = len_dist_mut(s, k) {
            *mean = v.unwrap_or(1.0);
        }
    },
};

pub static LEN_SIGMA: NumSpec = NumSpec {
    label: "ctl.len_sigma.label",
    help: "ctl.len_sigma.def",
    unit: "",
    path: |k| len_path(k, "sigma"),
    min: 0.0,
    max: 2.0,
    max_of: None,
    log: false,
    integer: false,
    step: 0.05,
    optional: None,
    get: |s, k| match len_dist(s, k) {
        Some(LengthDist::Lognormal { sigma, .. }) => Some(*sigma),
        _ => None,
    },
    set: |s, k, v| {
        if let Some(LengthDist::Lognormal { sigma, .. }) = len_dist_mut(s, k) {
            *sigma = v.unwrap_or(0.0);
        }
    },
};

// ------------------------------------------------------------------ option lists and setters

fn model_options() -> Vec<(String, OptText)> {
    catalog::models()
        .into_iter()
        .map(|m| {
            let name = m.name.clone();
            let params = format::plain((m.params_total / 1e8).round() / 10.0);
            let kv = m.num_kv_heads.to_string();
            let text: OptText = Arc::new(move || {
                tf("ctl.model.option", &[("name", name.clone()), ("params", params.clone()), ("kv_heads", kv.clone())])
            });
            (m.id, text)
        })
        .collect()
}

fn gpu_options() -> Vec<(String, OptText)> {
    catalog::gpus()
        .into_iter()
        .map(|g| {
            let label = format!("{} · {}", g.name, format::usd(g.usd_per_hour));
            let text: OptText = Arc::new(move || label.clone());
            (g.id, text)
        })
        .collect()
}

/// Options whose texts are translation keys.
fn opts(list: &[(&str, &'static str)]) -> Vec<(String, OptText)> {
    list.iter()
        .map(|&(value, key)| {
            let text: OptText = Arc::new(move || t(key));
            (value.to_string(), text)
        })
        .collect()
}

/// Options shown as their values (names that need no translation).
fn verbatim(list: impl IntoIterator<Item = String>) -> Vec<(String, OptText)> {
    list.into_iter()
        .map(|v| {
            let shown = v.clone();
            let text: OptText = Arc::new(move || shown.clone());
            (v, text)
        })
        .collect()
}

/// A built-in preset's one-line summary in the current language (sim-core's English words when
/// the table has none).
pub fn preset_summary(id: &str) -> String {
    let key = format!("preset.{id}.summary");
    if crate::i18n::has(&key) {
        t(&key)
    } else {
        sim_core::presets::find(id).map(|p| p.summary.to_string()).unwrap_or_default()
    }
}

/// A scenario's name for headings: a built-in preset's name in the current language, any other
/// name as written.
pub fn scenario_title(name: &str) -> String {
    thread_local! {
        /// Each preset's name as its JSON gives it (the English one).
        static NAMES: Vec<(&'static str, Option<String>)> =
            PRESETS.iter().map(|p| (p.id, Scenario::from_json(p.json).ok().and_then(|s| s.name))).collect();
    }
    let preset = NAMES.with(|names| names.iter().find(|(_, n)| n.as_deref() == Some(name)).map(|(id, _)| *id));
    match preset.map(|id| format!("preset.{id}.name")) {
        Some(key) if crate::i18n::has(&key) => t(&key),
        _ => name.to_string(),
    }
}

/// Writes a select's value through sim-core's settings table (which says what a switch of model,
/// GPU, arrival process or length distribution does to the rest of the scenario).
fn set_row(s: &mut Scenario, id: &str, class: usize, v: &str) {
    let _ = settings::set(s, id, class, &settings::Value::Text(v.to_string()));
}

fn set_model(s: &mut Scenario, _: usize, id: &str) {
    set_row(s, "model", 0, id);
}

fn set_gpu(s: &mut Scenario, _: usize, id: &str) {
    set_row(s, "gpu", 0, id);
}

fn set_arrival_kind(s: &mut Scenario, i: usize, kind: &str) {
    set_row(s, "arrival_kind", i, kind);
}

fn len_kind(d: Option<&LengthDist>) -> &'static str {
    d.map_or("", LengthDist::kind)
}

/// Length distribution `k` = class × 2 + (0 input, 1 output).
fn set_len_kind(s: &mut Scenario, k: usize, kind: &str) {
    set_row(s, if k % 2 == 0 { "input_tokens_kind" } else { "output_tokens_kind" }, k / 2, kind);
}

fn new_class(s: &Scenario) -> ClassConfig {
    let mut n = s.classes.len();
    let mut name = if s.classes.iter().any(|c| c.name == "batch") { format!("class {n}") } else { "batch".to_string() };
    while s.classes.iter().any(|c| c.name == name) {
        n += 1;
        name = format!("class {n}");
    }
    ClassConfig {
        name,
        arrival: Arrival::Poisson { rate_per_s: 2.0 },
        num_requests: Some(500),
        input_tokens: Some(LengthDist::Lognormal { mean: 3000.0, sigma: 0.5 }),
        output_tokens: Some(LengthDist::Lognormal { mean: 400.0, sigma: 0.5 }),
        slo: Slo { ttft_ms: None, tpot_ms: None, e2e_ms: Some(60_000.0) },
        priority: 1,
        reserved_share: None,
    }
}

// ------------------------------------------------------------------ the panel

/// The controls of the draft being edited.
#[component]
pub fn Controls() -> impl IntoView {
    let ui = use_ui();
    move || {
        let run = ui.edited();
        view! { <Editor run=run/> }
    }
}

#[component]
fn Editor(run: Run) -> impl IntoView {
    let ui = use_ui();
    let draft = ui.drafts[run.index()];
    let preset_id = ui.presets[run.index()];
    let edited = Memo::new(move |_| {
        let id = preset_id.get();
        let base = sim_core::presets::find(&id).and_then(|p| Scenario::from_json(p.json).ok());
        draft.with(|s| base.as_ref() != Some(s))
    });
    let preset_opts = PRESETS
        .iter()
        .map(|p| {
            let id = p.id;
            view! { <option value=id prop:selected=move || preset_id.get() == id>{id}</option> }
        })
        .collect_view();
    let preset_summary = move || {
        let s = preset_summary(&preset_id.get());
        if edited.get() && !s.is_empty() {
            tf("ctl.edited", &[("summary", s)])
        } else {
            s
        }
    };
    let presets_locked = Memo::new(move |_| any_locked(ui));
    let classes_locked = Memo::new(move |_| locked_at(ui, "classes"));
    let batching = Memo::new(move |_| draft.with(|s| s.scheduler.batching));
    let classes = Memo::new(move |_| draft.with(|s| s.classes.len()));
    let multi = move || classes.get() > 1;

    view! {
        <div class="editor" data-testid=format!("editor-{}", run.slug())>
            <section class="group">
                <h2>{move || if ui.ab.get() { tf("ctl.scenario_ab", &[("run", run.label().to_string())]) } else { t("ctl.scenario") }}</h2>
                <div class="field" class:locked=move || presets_locked.get()>
                    <div class="field-head">
                        <label for="f-preset">{tx("ctl.preset")}</label>
                        {lock_badge(move || presets_locked.get())}
                    </div>
                    <select
                        id="f-preset"
                        data-testid="preset"
                        disabled=move || presets_locked.get()
                        on:change=move |ev| ui.load_preset(run, &event_target_value(&ev))
                    >
                        {preset_opts}
                    </select>
                    <p class="small muted" data-testid="preset-summary">{preset_summary}</p>
                </div>
                <p class="rule small">{tx("ctl.rule")}</p>
            </section>

            <details class="group" open>
                <summary>{tx("ctl.group.model")}</summary>
                <SelectField run=run label="ctl.model.label" help="ctl.model.def" path="model".into() options=model_options() get=|s, _| s.model.id().to_string() set=set_model/>
                <SelectField run=run label="ctl.gpu.label" help="ctl.gpu.def" path="gpu".into() options=gpu_options() get=|s, _| s.gpu.id().to_string() set=set_gpu/>
                <SelectField run=run label="ctl.num_gpus.label" help="ctl.num_gpus.def" path="num_gpus".into()
                    options=opts(&[("1", "ctl.num_gpus.1"), ("2", "ctl.num_gpus.2"), ("4", "ctl.num_gpus.4"), ("8", "ctl.num_gpus.8")])
                    get=|s, _| s.num_gpus.to_string()
                    set=|s, _, v| s.num_gpus = v.parse().unwrap_or(1)/>
                <SelectField run=run label="ctl.dtype.label" help="ctl.dtype.def" path="dtype".into()
                    options=opts(&[("bf16", "ctl.dtype.bf16"), ("fp16", "ctl.dtype.fp16"), ("fp8", "ctl.dtype.fp8")])
                    get=|s, _| s.dtype.name().to_string()
                    set=|s, _, v| if let Some(d) = Dtype::parse(v) { s.dtype = d }/>
                <SelectField run=run label="ctl.kv_dtype.label" help="ctl.kv_dtype.def" path="kv_dtype".into()
                    options=opts(&[("", "ctl.kv_dtype.same"), ("bf16", "ctl.dtype.bf16"), ("fp16", "ctl.dtype.fp16"), ("fp8", "ctl.dtype.fp8")])
                    get=|s, _| s.kv_dtype.map(|d| d.name().to_string()).unwrap_or_default()
                    set=|s, _, v| s.kv_dtype = Dtype::parse(v)/>
                <NumField run=run spec=&GPU_PRICE/>
            </details>

            <details class="group" open>
                <summary>{tx("ctl.group.workload")}</summary>
                {move || (0..classes.get()).map(|i| view! { <ClassCard run=run i=i/> }).collect_view()}
                <button
                    class="btn small-btn"
                    data-testid="add-class"
                    disabled={move || classes.get() >= 8 || classes_locked.get()}
                    title=move || if classes_locked.get() { t("ctl.locked") } else { String::new() }
                    on:click=move |_| draft.update(|s| { let c = new_class(s); s.classes.push(c); })
                >{tx("ctl.add_class")}</button>
            </details>

            <details class="group" open>
                <summary>{tx("ctl.group.batching")}</summary>
                <SelectField run=run label="ctl.batching.label" help="ctl.batching.def" path="scheduler.batching".into()
                    options=opts(&[("continuous", "ctl.batching.continuous"), ("static", "ctl.batching.static")])
                    get=|s, _| if s.scheduler.batching == Batching::Static { "static".into() } else { "continuous".into() }
                    set=|s, _, v| s.scheduler.batching = if v == "static" { Batching::Static } else { Batching::Continuous }/>
                <NumField run=run spec=&MAX_SEQS/>
                <NumField run=run spec=&MAX_TOKENS/>
                <CheckField run=run label="ctl.chunked.label" help="ctl.chunked.def" path="scheduler.chunked_prefill"
                    get=|s| s.scheduler.chunked_prefill set=|s, v| s.scheduler.chunked_prefill = v/>
                {move || (batching.get() == Batching::Static).then(|| view! { <NumField run=run spec=&BATCH_TIMEOUT/> })}
                <CheckField run=run label="ctl.isolation.label" help="ctl.isolation.def" path="scheduler.isolation"
                    get=|s| s.scheduler.isolation set=|s, v| s.scheduler.isolation = v/>
                <p class="small muted" class:hidden=multi>{tx("ctl.isolation.note")}</p>
            </details>

            <details class="group" open>
                <summary>{tx("ctl.group.kv")}</summary>
                <SelectField run=run label="ctl.kv_layout.label" help="ctl.kv_layout.def" path="scheduler.kv_layout".into()
                    options=opts(&[("paged", "ctl.kv_layout.paged"), ("contiguous", "ctl.kv_layout.contiguous")])
                    get=|s, _| if s.scheduler.kv_layout == KvLayout::Contiguous { "contiguous".into() } else { "paged".into() }
                    set=|s, _, v| s.scheduler.kv_layout = if v == "contiguous" { KvLayout::Contiguous } else { KvLayout::Paged }/>
                <NumField run=run spec=&BLOCK_SIZE/>
                <NumField run=run spec=&MAX_LEN/>
                <p class="small muted field-note">{move || draft.with(|s| s.model_spec().ok().map(|m| tf("ctl.max_context_note", &[("model", if m.name.is_empty() { m.id.clone() } else { m.name.clone() }), ("tokens", format::int(u64::from(m.max_context)))]))).unwrap_or_default()}</p>
                <NumField run=run spec=&MEM_UTIL/>
                <CheckField run=run label="ctl.overcommit.label" help="ctl.overcommit.def" path="scheduler.overcommit"
                    get=|s| s.scheduler.overcommit set=|s, v| s.scheduler.overcommit = v/>
                <CheckField run=run label="ctl.retry.label" help="ctl.retry.def" path="scheduler.retry_on_oom"
                    get=|s| s.scheduler.retry_on_oom set=|s, v| s.scheduler.retry_on_oom = v/>
                <NumField run=run spec=&RESTART_S/>
            </details>

            <details class="group" open>
                <summary>{tx("ctl.group.queue")}</summary>
                <NumField run=run spec=&QUEUE_TIMEOUT/>
                <NumField run=run spec=&MAX_QUEUE/>
            </details>
        </div>
    }
}

/// One traffic class: arrivals, lengths, SLOs, priority.
#[component]
fn ClassCard(run: Run, i: usize) -> impl IntoView {
    let ui = use_ui();
    let draft = ui.drafts[run.index()];
    let kind = Memo::new(move |_| draft.with(|s| class(s, i).map(|c| c.arrival.kind())));
    let isolation = Memo::new(move |_| draft.with(Scenario::lane_per_class));
    let name = Memo::new(move |_| draft.with(|s| class(s, i).map(|c| c.name.clone()).unwrap_or_default()));
    let count = Memo::new(move |_| draft.with(|s| s.classes.len()));
    let name_path = format!("classes[{i}].name");
    let name_err = field_error(ui, run, name_path.clone());
    let name_lock = name_path.clone();
    let name_locked = Memo::new(move |_| locked_at(ui, &name_lock));
    let classes_locked = Memo::new(move |_| locked_at(ui, "classes"));
    let arrival_fields = move || {
        match kind.get() {
        Some("poisson") => view! { <NumField run=run spec=&RATE idx=i/> }.into_any(),
        Some("bursty") => view! { <NumField run=run spec=&RATE idx=i/><NumField run=run spec=&CV idx=i/> }.into_any(),
        Some("closed_loop") => view! { <NumField run=run spec=&USERS idx=i/><NumField run=run spec=&THINK idx=i/> }.into_any(),
        Some("trace") => view! {
            <SelectField run=run label="ctl.trace.label" help="ctl.trace.def" path=format!("classes[{i}].arrival.path") idx=i
                options=verbatim(BUILTIN_TRACES.iter().map(|(n, _)| n.to_string()))
                get=|s, i| match class(s, i).map(|c| &c.arrival) { Some(Arrival::Trace { path, .. }) => path.clone(), _ => String::new() }
                set=|s, i, v| if let Some(Arrival::Trace { path, .. }) = class_mut(s, i).map(|c| &mut c.arrival) { *path = v.to_string() }/>
            <NumField run=run spec=&SPEEDUP idx=i/>
        }
        .into_any(),
        _ => ().into_any(),
    }
    };
    let lengths = move || {
        (kind.get() != Some("trace")).then(|| {
            view! {
                <NumField run=run spec=&NUM_REQUESTS idx=i/>
                <LengthEditor run=run k=i * 2 label="ctl.prompt_len"/>
                <LengthEditor run=run k=i * 2 + 1 label="ctl.output_len"/>
            }
        })
    };
    view! {
        <fieldset class="class-card" data-testid=format!("class-{i}")>
            <legend>
                <svg class="glyph" viewBox="0 0 16 16" aria-hidden="true"><path d=glyph::svg_path(i) fill=glyph::colour(i)/></svg>
                <span class="sr-only">{move || format!("{} ", t(glyph::shape_name(i)))}</span>
                <input
                    type="text"
                    class="class-name"
                    aria-label=tx("ctl.class_name")
                    data-testid=format!("field-{name_path}")
                    disabled=move || name_locked.get()
                    prop:value=move || name.get()
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        draft.update(|s| if let Some(c) = class_mut(s, i) { c.name = v });
                    }
                />
                <button
                    class="icon-btn"
                    title=tx("ctl.remove_class")
                    aria-label=tx("ctl.remove_class")
                    disabled=move || classes_locked.get()
                    class:hidden={move || count.get() <= 1}
                    on:click={move |_| draft.update(|s| if s.classes.len() > 1 && i < s.classes.len() { s.classes.remove(i); })}
                >"✕"</button>
            </legend>
            <p class="err" role="alert">{move || name_err.get()}</p>
            <SelectField run=run label="ctl.arrivals.label" help="ctl.arrivals.def" path=format!("classes[{i}].arrival.kind") idx=i
                options=opts(&[("poisson", "ctl.arrivals.poisson"), ("bursty", "ctl.arrivals.bursty"), ("closed_loop", "ctl.arrivals.closed_loop"), ("trace", "ctl.arrivals.trace")])
                get=|s, i| class(s, i).map(|c| c.arrival.kind().to_string()).unwrap_or_default()
                set=set_arrival_kind/>
            {arrival_fields}
            {lengths}
            <div class="slos">
                <NumField run=run spec=&SLO_TTFT idx=i/>
                <NumField run=run spec=&SLO_TPOT idx=i/>
                <NumField run=run spec=&SLO_E2E idx=i/>
            </div>
            {move || isolation.get().then(|| view! {
                <NumField run=run spec=&PRIORITY idx=i/>
                <NumField run=run spec=&RESERVED idx=i/>
            })}
        </fieldset>
    }
}

/// Prompt or output length distribution of one class (`k` = class × 2 + 0 or 1).
#[component]
fn LengthEditor(run: Run, k: usize, label: &'static str) -> impl IntoView {
    let ui = use_ui();
    let draft = ui.drafts[run.index()];
    let kind = Memo::new(move |_| draft.with(|s| len_kind(len_dist(s, k))));
    let fields = move || match kind.get() {
        "fixed" => view! { <NumField run=run spec=&LEN_FIXED idx=k/> }.into_any(),
        "uniform" => {
            view! { <NumField run=run spec=&LEN_MIN idx=k/><NumField run=run spec=&LEN_MAX idx=k/> }.into_any()
        }
        "lognormal" => {
            view! { <NumField run=run spec=&LEN_MEAN idx=k/><NumField run=run spec=&LEN_SIGMA idx=k/> }.into_any()
        }
        _ => ().into_any(),
    };
    view! {
        <div class="lengths">
            <SelectField run=run label=label help="ctl.len.def" path=format!("classes[{}].{}", k / 2, LEN_NAMES[k % 2]) idx=k
                options=opts(&[("lognormal", "ctl.len.lognormal"), ("uniform", "ctl.len.uniform"), ("fixed", "ctl.len.fixed")])
                get=|s, k| len_kind(len_dist(s, k)).to_string()
                set=set_len_kind/>
            {fields}
        </div>
    }
}
