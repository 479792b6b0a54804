//! Classroom exercises: a starting scenario, the controls a learner may change (the rest are
//! locked), goals checked automatically every time a run ends, and an objective to beat. Attempts
//! are kept in the browser's local storage; a teacher can make a link that locks chosen controls.

use leptos::prelude::*;
use serde_json::{json, Value};
use sim_core::exercise::{exercises, Attempt, Exercise};
use sim_core::Scenario;

use crate::controls::lock_covers;
use crate::format;
use crate::i18n::{t, tf};
use crate::share;
use crate::ui::{self, Ui};
use crate::workbench::{self, esc, html, storage_get, storage_set, text};
use wasm_bindgen::JsCast;

const STORAGE_KEY: &str = "llm-serving-lab.attempts";

/// A control's id and its label.
pub type Control = (&'static str, fn() -> String);

/// Every control of the lab by id (scenario field path without class indices) and its label.
pub static CONTROLS: [Control; 36] = [
    ("model", || t("features.control.model")),
    ("gpu", || t("features.control.gpu")),
    ("num_gpus", || t("features.control.num_gpus")),
    ("dtype", || t("features.control.dtype")),
    ("kv_dtype", || t("features.control.kv_dtype")),
    ("gpu_usd_per_hour", || t("features.control.gpu_usd_per_hour")),
    ("gpu_memory_utilization", || t("features.control.gpu_memory_utilization")),
    ("seed", || t("features.control.seed")),
    ("scheduler.batching", || t("features.control.batching")),
    ("scheduler.max_num_seqs", || t("features.control.max_num_seqs")),
    ("scheduler.max_num_batched_tokens", || t("features.control.max_num_batched_tokens")),
    ("scheduler.chunked_prefill", || t("features.control.chunked_prefill")),
    ("scheduler.batch_timeout_ms", || t("features.control.batch_timeout_ms")),
    ("scheduler.isolation", || t("features.control.isolation")),
    ("scheduler.kv_layout", || t("features.control.kv_layout")),
    ("scheduler.block_size", || t("features.control.block_size")),
    ("scheduler.max_model_len", || t("features.control.max_model_len")),
    ("scheduler.overcommit", || t("features.control.overcommit")),
    ("scheduler.retry_on_oom", || t("features.control.retry_on_oom")),
    ("scheduler.restart_s", || t("features.control.restart_s")),
    ("scheduler.queue_timeout_ms", || t("features.control.queue_timeout_ms")),
    ("scheduler.max_queue_len", || t("features.control.max_queue_len")),
    ("classes", || t("features.control.classes")),
    ("classes.name", || t("features.control.class_name")),
    ("classes.arrival.kind", || t("features.control.arrival_kind")),
    ("classes.arrival.rate_per_s", || t("features.control.rate_per_s")),
    ("classes.arrival.cv", || t("features.control.cv")),
    ("classes.arrival.users", || t("features.control.users")),
    ("classes.arrival.think_time_ms", || t("features.control.think_time_ms")),
    ("classes.num_requests", || t("features.control.num_requests")),
    ("classes.input_tokens", || t("features.control.input_tokens")),
    ("classes.output_tokens", || t("features.control.output_tokens")),
    ("classes.slo", || t("features.control.slo")),
    ("classes.priority", || t("features.control.priority")),
    ("classes.reserved_share", || t("features.control.reserved_share")),
    ("classes.arrival.speedup", || t("features.control.speedup")),
];

fn control_label(id: &str) -> String {
    CONTROLS.iter().find(|(c, _)| *c == id).map_or_else(|| id.to_string(), |(_, l)| l())
}

/// The control a scenario path belongs to: `classes[1].slo.ttft_ms` → `classes.slo`.
fn control_of(path: &str) -> String {
    let mut plain = String::with_capacity(path.len());
    let mut depth = 0;
    for ch in path.chars() {
        match ch {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ if depth == 0 => plain.push(ch),
            _ => {}
        }
    }
    // the longest control id that is the path or a prefix of it
    CONTROLS
        .iter()
        .map(|(id, _)| *id)
        .filter(|id| plain == *id || plain.starts_with(&format!("{id}.")))
        .max_by_key(|id| id.len())
        .map_or(plain.clone(), str::to_string)
}

/// The controls an exercise locks: every control it does not allow.
pub fn locked_for(ex: &Exercise) -> Vec<String> {
    CONTROLS.iter().map(|(id, _)| id.to_string()).filter(|id| !ex.allowed.iter().any(|a| a == id)).collect()
}

fn title(ex: &Exercise) -> String {
    match ex.id.as_str() {
        "mixed-20" => t("features.ex.mixed-20.title"),
        "chat-cheapest" => t("features.ex.chat-cheapest.title"),
        _ => ex.scenario.name.clone().unwrap_or_else(|| ex.id.clone()),
    }
}

fn task(ex: &Exercise) -> String {
    match ex.id.as_str() {
        "mixed-20" => t("features.ex.mixed-20.task"),
        "chat-cheapest" => t("features.ex.chat-cheapest.task"),
        _ => String::new(),
    }
}

/// A summary path in words: `classes.chat.ttft_ms.p99` → "p99 TTFT of class chat".
fn metric_label(path: &str) -> String {
    let (class, rest) = match path.strip_prefix("classes.") {
        Some(r) => match r.split_once('.') {
            Some((c, rest)) => (Some(c), rest),
            None => (None, path),
        },
        None => (None, path),
    };
    let name = match rest {
        "ttft_ms.p99" => t("features.num.ttft_p99"),
        "ttft_ms.p95" => t("features.num.ttft_p95"),
        "ttft_ms.mean" => t("features.num.ttft_mean"),
        "tpot_ms.p99" => t("features.num.tpot_p99"),
        "e2e_ms.p99" => t("features.num.e2e_p99"),
        "goodput.slo_attainment" => t("features.num.attainment"),
        "goodput.output_tokens_per_s" => t("features.num.goodput"),
        "throughput.output_tokens_per_s" => t("features.num.throughput"),
        "cost.usd_per_million_good_tokens" => t("features.num.cost_good"),
        "cost.usd_per_million_output_tokens" => t("features.num.cost_output"),
        "requests.oom_restarts" => t("features.num.oom"),
        other => other.to_string(),
    };
    match class {
        Some(c) => tf("features.ex.of_class", &[("metric", name), ("class", c.to_string())]),
        None => name,
    }
}

fn metric_value(path: &str, v: f64) -> String {
    if path.contains("_ms.") {
        format::ms(v)
    } else if path.ends_with("slo_attainment") {
        format::pct(v)
    } else if path.contains("usd") {
        format::usd(v)
    } else if path.ends_with("tokens_per_s") {
        format!("{} tok/s", format::rate(v))
    } else {
        format::plain(v)
    }
}

/// One recorded attempt.
#[derive(Clone, Debug, PartialEq)]
struct Record {
    time_ms: f64,
    pass: bool,
    score: Option<f64>,
    /// metric, measured, pass
    goals: Vec<(String, Option<f64>, bool)>,
    /// "path = value" for each setting changed from the starting scenario
    settings: Vec<String>,
}

impl Record {
    fn to_json(&self) -> Value {
        json!({
            "time_ms": self.time_ms,
            "pass": self.pass,
            "score": self.score,
            "goals": self.goals.iter().map(|(m, v, p)| json!({ "metric": m, "measured": v, "pass": p })).collect::<Vec<_>>(),
            "settings": self.settings,
        })
    }

    fn from_json(v: &Value) -> Option<Record> {
        Some(Record {
            time_ms: v.get("time_ms")?.as_f64()?,
            pass: v.get("pass")?.as_bool()?,
            score: v.get("score").and_then(Value::as_f64),
            goals: v
                .get("goals")?
                .as_array()?
                .iter()
                .filter_map(|g| {
                    Some((
                        g.get("metric")?.as_str()?.to_string(),
                        g.get("measured").and_then(Value::as_f64),
                        g.get("pass")?.as_bool()?,
                    ))
                })
                .collect(),
            settings: v.get("settings")?.as_array()?.iter().filter_map(|s| s.as_str().map(str::to_string)).collect(),
        })
    }
}

fn load_all() -> Vec<(String, Vec<Record>)> {
    let Some(text) = storage_get(STORAGE_KEY) else { return Vec::new() };
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(&text) else { return Vec::new() };
    map.iter()
        .map(|(id, list)| {
            let recs = list.as_array().map(|a| a.iter().filter_map(Record::from_json).collect()).unwrap_or_default();
            (id.clone(), recs)
        })
        .collect()
}

fn save_all(all: &[(String, Vec<Record>)]) {
    let map: serde_json::Map<String, Value> =
        all.iter().map(|(id, recs)| (id.clone(), Value::Array(recs.iter().map(Record::to_json).collect()))).collect();
    storage_set(STORAGE_KEY, &Value::Object(map).to_string());
}

/// The value at a path such as `classes[0].reserved_share` in a scenario's JSON, as text.
fn value_at(s: &Scenario, path: &str) -> String {
    let Ok(mut v) = serde_json::to_value(s) else { return String::new() };
    for part in path.split('.') {
        let (key, idx) = match part.split_once('[') {
            Some((k, rest)) => (k, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (part, None),
        };
        v = v.get(key).cloned().unwrap_or(Value::Null);
        if let Some(i) = idx {
            v = v.get(i).cloned().unwrap_or(Value::Null);
        }
    }
    match v {
        Value::String(s) => s,
        Value::Null => "—".into(),
        other => other.to_string(),
    }
}

fn clock(ms: f64) -> String {
    let d = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms));
    format!("{:02}:{:02}:{:02}", d.get_hours(), d.get_minutes(), d.get_seconds())
}

fn best(ex: &Exercise, recs: &[Record]) -> Option<f64> {
    let max = ex.objective.as_ref().is_some_and(|o| o.direction == sim_core::metric::Direction::Max);
    recs.iter()
        .filter(|r| r.pass)
        .filter_map(|r| r.score)
        .fold(None, |b: Option<f64>, s| Some(b.map_or(s, |b| if max { b.max(s) } else { b.min(s) })))
}

#[derive(Clone, Copy)]
struct State {
    ui: Ui,
    all: RwSignal<Vec<(String, Vec<Record>)>>,
    /// (exercise, restart count) of the last run looked at: each finished run counts once.
    seen: StoredValue<Option<(String, u32)>>,
    note: RwSignal<Option<String>>,
    /// Controls the teacher ticked, and a counter bumped when the boxes must be redrawn.
    chosen: RwSignal<Vec<String>>,
    boxes: RwSignal<u32>,
    link: RwSignal<String>,
}

impl State {
    fn start(&self, id: &str) {
        let Some(ex) = exercises().into_iter().find(|e| e.id == id) else { return };
        let ui = self.ui;
        self.seen.set_value(Some((ex.id.clone(), ui.restarts.get_untracked())));
        self.note.set(None);
        ui.lesson.set(None);
        ui.ab.set(false);
        ui.editing.set(app_model::Run::A);
        ui.drafts[0].set(ex.scenario.clone());
        ui.locked.set(locked_for(&ex));
        ui.exercise.set(Some(ex.id.clone()));
        ui.apply(true);
    }

    fn act(&self, act: &str, arg: &str) {
        let ui = self.ui;
        match act {
            "start" => self.start(arg),
            "stop" => {
                ui.exercise.set(None);
                ui.locked.set(Vec::new());
                self.note.set(None);
            }
            "clear" => self.all.update(|a| {
                a.retain(|(k, _)| k != arg);
                save_all(a);
            }),
            "run-to-end" => ui.fast_forward.set(true),
            "lock-none" => self.set_boxes(Vec::new()),
            "lock-all" => self.set_boxes(CONTROLS.iter().map(|(id, _)| id.to_string()).collect()),
            "lock-current" => self.set_boxes(ui.locked.get_untracked()),
            "make-link" => self.link.set(share::share_url(&ui, &self.chosen.get_untracked())),
            "copy" => copy(&self.link.get_untracked()),
            _ => {}
        }
    }

    fn set_boxes(&self, v: Vec<String>) {
        self.chosen.set(v);
        self.boxes.update(|n| *n += 1);
    }

    /// Records the run that just ended as an attempt at the open exercise.
    fn record(&self) {
        let ui = self.ui;
        let Some(id) = ui.exercise.get() else { return };
        let finished = ui.views[0].with(|v| v.as_ref().is_some_and(|v| v.finished));
        if !finished {
            return;
        }
        let r = ui.restarts.get_untracked();
        if self.seen.get_value() == Some((id.clone(), r)) {
            return;
        }
        self.seen.set_value(Some((id.clone(), r)));
        let Some(ex) = exercises().into_iter().find(|e| e.id == id) else { return };
        let Some(summary) = ui.views[0].with_untracked(|v| v.as_ref().map(|v| v.summary.clone())) else { return };
        let Some(scenario) = ui.infos[0].with_untracked(|i| i.as_ref().map(|i| i.scenario.clone())) else { return };
        let changed = ui::differences(&ex.scenario, &scenario);
        let locks = locked_for(&ex);
        let mut outside: Vec<String> =
            changed.iter().filter(|p| locks.iter().any(|l| lock_covers(l, p))).map(|p| control_of(p)).collect();
        outside.dedup();
        if !outside.is_empty() {
            let names: Vec<String> = outside.iter().map(|c| control_label(c)).collect();
            self.note.set(Some(tf("features.ex.not_counted", &[("controls", names.join(", "))])));
            return;
        }
        self.note.set(None);
        let attempt: Attempt = ex.check(&summary);
        let rec = Record {
            time_ms: js_sys::Date::now(),
            pass: attempt.pass,
            score: attempt.score,
            goals: attempt.goals.iter().map(|g| (g.metric.to_string(), g.measured, g.pass)).collect(),
            settings: changed.iter().map(|p| format!("{p} = {}", value_at(&scenario, p))).collect(),
        };
        share::post_event(
            "exercise-result",
            json!({
                "id": id,
                "pass": rec.pass,
                "score": rec.score,
                "goals": attempt.goals.iter().map(|g| json!({ "metric": g.metric, "op": g.op, "target": g.target, "measured": g.measured, "pass": g.pass })).collect::<Vec<_>>(),
                "settings": rec.settings,
            }),
        );
        self.all.update(|a| {
            match a.iter_mut().find(|(k, _)| *k == id) {
                Some((_, recs)) => recs.push(rec),
                None => a.push((id.clone(), vec![rec])),
            }
            save_all(a);
        });
    }
}

fn copy(text: &str) {
    let nav = window().navigator();
    let Ok(clip) = js_sys::Reflect::get(&nav, &"clipboard".into()) else { return };
    if let Ok(f) = js_sys::Reflect::get(&clip, &"writeText".into()) {
        if let Ok(f) = f.dyn_into::<js_sys::Function>() {
            let _ = f.call1(&clip, &text.into());
        }
    }
}

fn goal_text(metric: &str, op: sim_core::Op, v: f64) -> String {
    format!("{} {} {}", metric_label(metric), op.symbol(), metric_value(metric, v))
}

fn card_html(ex: &Exercise, active: bool, recs: &[Record]) -> String {
    let id = esc(&ex.id);
    let mut out = format!(
        "<article class=\"exercise{}\" data-testid=\"exercise-{id}\"><header class=\"exercise-head\"><h3>{}</h3><div class=\"lesson-actions\">{}{}</div></header><p>{}</p><p class=\"small\"><b>{}</b></p><ul class=\"goals\">",
        if active { " active" } else { "" },
        esc(&title(ex)),
        workbench::button("primary small-btn", "start", &ex.id, &format!("data-testid=\"exercise-start-{id}\""), &t("features.ex.start")),
        if active { workbench::button("small-btn", "stop", "", "data-testid=\"exercise-stop\"", &t("features.ex.stop")) } else { String::new() },
        esc(&task(ex)),
        esc(&t("features.ex.goals")),
    );
    for g in &ex.goals {
        out.push_str(&format!("<li>{}</li>", esc(&goal_text(&g.metric.to_string(), g.op, g.value))));
    }
    out.push_str("</ul>");
    let metric = ex.objective.as_ref().map(|o| o.metric.to_string()).unwrap_or_default();
    if let Some(o) = &ex.objective {
        let m = metric_label(&o.metric.to_string());
        let text = if o.direction == sim_core::metric::Direction::Max {
            tf("features.ex.maximise", &[("metric", m)])
        } else {
            tf("features.ex.minimise", &[("metric", m)])
        };
        out.push_str(&format!("<p class=\"small\"><b>{}</b> {}</p>", esc(&t("features.ex.objective")), esc(&text)));
    }
    let allowed: Vec<String> = ex.allowed.iter().map(|a| control_label(a)).collect();
    out.push_str(&format!(
        "<p class=\"small muted\"><b>{}</b> {}</p>",
        esc(&t("features.ex.allowed")),
        esc(&allowed.join(" · "))
    ));
    let best_text = match best(ex, recs) {
        Some(v) => tf("features.ex.best", &[("score", metric_value(&metric, v))]),
        None => t("features.ex.no_best"),
    };
    out.push_str(&format!("<p class=\"best\" data-testid=\"exercise-best\">{}</p>", esc(&best_text)));
    if !recs.is_empty() {
        out.push_str(&format!(
            "<div class=\"table-scroll\"><table class=\"runs-table attempts\"><caption class=\"small muted\">{}</caption><thead><tr><th scope=\"col\">#</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th></tr></thead><tbody>",
            esc(&t("features.ex.attempts")),
            esc(&t("features.ex.col.time")),
            esc(&t("features.contract.col.result")),
            esc(&t("features.ex.col.score")),
            esc(&t("features.ex.col.goals")),
            esc(&t("features.ex.col.settings")),
        ));
        let (pass, fail) = (t("features.contract.pass"), t("features.contract.fail"));
        for (i, r) in recs.iter().enumerate().rev() {
            let mut goals = String::new();
            for (m, v, p) in &r.goals {
                goals.push_str(&format!(
                    "<li class=\"{}\"><span aria-hidden=\"true\">{}</span>{}: {}</li>",
                    if *p { "ok" } else { "no" },
                    if *p { "✓ " } else { "✗ " },
                    esc(&metric_label(m)),
                    esc(&v.map(|v| metric_value(m, v)).unwrap_or_else(|| format::NONE.into()))
                ));
            }
            let settings = if r.settings.is_empty() { t("features.ex.as_given") } else { r.settings.join("; ") };
            out.push_str(&format!(
                "<tr data-testid=\"exercise-attempt\" data-pass=\"{}\"><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"verdict {}\"><span aria-hidden=\"true\">{}</span>{}</td><td class=\"num\">{}</td><td><ul class=\"goal-results\">{goals}</ul></td><td class=\"small\">{}</td></tr>",
                r.pass,
                i + 1,
                clock(r.time_ms),
                if r.pass { "pass" } else { "fail" },
                if r.pass { "✓ " } else { "✗ " },
                esc(if r.pass { &pass } else { &fail }),
                esc(&r.score.map(|s| metric_value(&metric, s)).unwrap_or_else(|| format::NONE.into())),
                esc(&settings),
            ));
        }
        out.push_str("</tbody></table></div>");
        out.push_str(&workbench::button("small-btn", "clear", &ex.id, "", &t("features.ex.clear")));
    }
    out.push_str("</article>");
    out
}

fn cards_html(st: State) -> String {
    let open = st.ui.exercise.get();
    let mut out = String::new();
    if let Some(n) = st.note.get() {
        out.push_str(&format!(
            "<p class=\"banner note small\" role=\"status\" data-testid=\"exercise-note\">{}</p>",
            esc(&n)
        ));
    }
    if open.is_some() {
        out.push_str(&format!(
            "<p class=\"small ex-running\">{} {}</p>",
            esc(&t("features.ex.running_hint")),
            workbench::button(
                "small-btn",
                "run-to-end",
                "",
                "data-testid=\"exercise-run-to-end\"",
                &t("features.ex.run_to_end")
            )
        ));
    }
    out.push_str("<div class=\"exercise-list\">");
    st.all.with(|all| {
        for ex in exercises() {
            let recs = all.iter().find(|(k, _)| *k == ex.id).map_or(&[][..], |(_, r)| r.as_slice());
            out.push_str(&card_html(&ex, open.as_deref() == Some(ex.id.as_str()), recs));
        }
    });
    out.push_str("</div>");
    out
}

fn boxes_html(st: State) -> String {
    st.boxes.track();
    let chosen = st.chosen.get_untracked();
    let mut out = format!(
        "<p class=\"small muted\">{}</p><div class=\"lesson-actions\">{}{}{}</div><fieldset class=\"lock-grid\"><legend class=\"sr-only\">{}</legend>",
        esc(&t("features.teacher.intro")),
        workbench::button("small-btn", "lock-none", "", "", &t("features.teacher.none")),
        workbench::button("small-btn", "lock-all", "", "", &t("features.teacher.all")),
        workbench::button("small-btn", "lock-current", "", "", &t("features.teacher.current")),
        esc(&t("features.teacher.title")),
    );
    for (id, label) in CONTROLS.iter() {
        out.push_str(&format!(
            "<label class=\"check-line\"><input type=\"checkbox\" data-field=\"lock:{id}\" data-testid=\"teacher-lock-{id}\"{}>{}<code class=\"small muted\">{id}</code></label>",
            if chosen.iter().any(|c| c == id) { " checked" } else { "" },
            esc(&label()),
        ));
    }
    out.push_str("</fieldset>");
    out.push_str(&format!(
        "<div class=\"lesson-actions\">{}</div>",
        workbench::button(
            "primary small-btn",
            "make-link",
            "",
            "data-testid=\"teacher-make\"",
            &t("features.teacher.make")
        )
    ));
    out
}

fn link_html(st: State) -> String {
    let link = st.link.get();
    if link.is_empty() {
        return String::new();
    }
    format!(
        "<div class=\"teacher-link\"><label for=\"teacher-link\" class=\"small\">{}</label><input id=\"teacher-link\" type=\"text\" readonly data-testid=\"teacher-link\" value=\"{}\">{}</div>",
        esc(&t("features.teacher.link")),
        esc(&link),
        workbench::button("small-btn", "copy", "", "", &t("features.teacher.copy"))
    )
}

#[component]
pub fn ExercisesPanel(ui: Ui) -> impl IntoView {
    let st = State {
        ui,
        all: RwSignal::new(load_all()),
        seen: StoredValue::new(None),
        note: RwSignal::new(None),
        chosen: RwSignal::new(ui.locked.get_untracked()),
        boxes: RwSignal::new(0),
        link: RwSignal::new(String::new()),
    };
    // Every run that ends while an exercise is open is an attempt.
    workbench::effect(Box::new(move || st.record()));

    let on_click = move |ev: web_sys::MouseEvent| {
        if let Some((act, arg)) = workbench::action(&ev) {
            st.act(&act, &arg);
            workbench::refocus(act, arg);
        }
    };
    let on_change = move |ev: web_sys::Event| {
        let Some((field, _, checked)) = workbench::edited(&ev) else { return };
        if let Some(id) = field.strip_prefix("lock:") {
            st.chosen.update(|c| {
                c.retain(|x| x != id);
                if checked {
                    c.push(id.to_string());
                }
            });
        }
    };
    view! {
        <div class="exercises" data-testid="exercises" on:click=on_click on:change=on_change>
            {html("", Box::new(move || {
                format!(
                    "<header class=\"panel-head\"><h2>{}</h2><span class=\"small muted\">{}</span></header>",
                    esc(&t("features.ex.title")),
                    esc(&t("features.ex.intro"))
                )
            }))}
            {html("", Box::new(move || cards_html(st)))}
            <details class="teacher" data-testid="teacher">
                <summary>{text(Box::new(|| t("features.teacher.title")))}</summary>
                {html("", Box::new(move || boxes_html(st)))}
                {html("", Box::new(move || link_html(st)))}
            </details>
        </div>
    }
}
