//! Guided lessons, one per claim of the article: set up (the lesson's scenario goes onto the
//! stage) → predict (one of three choices, before anything runs) → run (every run of the lesson,
//! in slices, with progress and cancel) → explain (what the runs showed, in words quoting their
//! numbers, and where to look on the page) → play freely in the same scenario.
//!
//! sim-core decides which choice the runs bear out (`Lesson::outcome`); the words come from the
//! translation tables (`lesson.<id>.*`). The open lesson and its step live in `ui.lesson`, so a
//! share link carries them and opening one resumes there.

use leptos::prelude::*;
use sim_core::lessons::{self as core, Lesson, Outcome, LESSONS, SAFE_ZONE_RATES};
use sim_core::metric::{Count, Metric};
use sim_core::metrics::Summary;
use sim_core::sweep::{SweepParam, SweepPoint};
use sim_core::Scenario;
use wasm_bindgen::JsCast;

use crate::format;
use crate::i18n::{self, t, tf};
use crate::share;
use crate::sweep_panel;
use crate::ui::Ui;
use crate::workbench::{self, esc, flag, html, text, Jobs};
use app_model::jobs::{Runs, Status};

pub const SETUP: u32 = 0;
pub const PREDICT: u32 = 1;
pub const RUN: u32 = 2;
pub const EXPLAIN: u32 = 3;
const STEPS: u32 = 5;

/// Class the page puts on the element a lesson points at.
const HIGHLIGHT_CLASS: &str = "lesson-highlight";

/// A lesson's runs, finished.
#[derive(Clone, PartialEq)]
struct Finished {
    id: String,
    variants: Vec<&'static str>,
    sums: Vec<Summary>,
    outcome: Outcome,
    predicted: Option<usize>,
}

#[derive(Clone, Copy)]
struct State {
    prediction: RwSignal<Option<usize>>,
    result: RwSignal<Option<Finished>>,
    running: RwSignal<bool>,
    runner: Jobs<Runs>,
    /// Runs finished, runs in all, share done.
    progress: RwSignal<(usize, usize, f64)>,
    error: RwSignal<Option<String>>,
    /// The lesson whose local state (prediction, results) this panel holds.
    adopted: StoredValue<Option<String>>,
}

fn text_of(id: &str, part: &str) -> String {
    i18n::t(&format!("lesson.{id}.{part}"))
}

fn variant_label(id: &str, variant: &str) -> String {
    i18n::t_untracked(&format!("lesson.{id}.variant.{variant}"))
}

/// The numbers of an outcome as an explanation quotes them, formatted by the name's suffix:
/// `_ms` a plain number of milliseconds ("1,848"), `_gib` one decimal, attainment and waste as
/// percentages, goodput and throughput whole tokens/s, `usd_*` three decimals, ratios and
/// growth factors one decimal, counts whole.
pub fn format_number(name: &str, v: f64) -> String {
    if !v.is_finite() {
        return format::NONE.to_string();
    }
    if name.ends_with("_ms") {
        if v >= 100.0 {
            format::int(v.round() as u64)
        } else if v >= 10.0 {
            format!("{v:.1}")
        } else {
            format!("{v:.2}")
        }
    } else if name.ends_with("_gib") {
        format!("{v:.1}")
    } else if name.contains("attainment") || name.contains("waste") {
        format::pct(v)
    } else if name.contains("goodput") || name.contains("throughput") {
        format::int(v.max(0.0).round() as u64)
    } else if name.starts_with("usd_") {
        format!("{v:.3}")
    } else if name == "ratio" || name.ends_with("_growth") {
        format!("{v:.1}")
    } else if v.fract() == 0.0 && v >= 0.0 {
        format::int(v as u64)
    } else {
        format::rate(v)
    }
}

fn fill_outcome(template: &str, o: &Outcome) -> String {
    let args: Vec<(&str, String)> = o.numbers.iter().map(|(k, v)| (*k, format_number(k, *v))).collect();
    i18n::fill(template, &args)
}

/// A lesson's outcome computed in one go (the browser tests compare the page with it).
pub fn outcome_json(id: &str) -> String {
    let Some(lesson) = core::find(id) else {
        return serde_json::json!({ "error": format!("no lesson {id:?}") }).to_string();
    };
    let (_, o) = lesson.run();
    let numbers: serde_json::Map<String, serde_json::Value> =
        o.numbers.iter().map(|(k, v)| (k.to_string(), serde_json::json!(v))).collect();
    serde_json::json!({ "id": id, "answer": o.answer, "numbers": numbers }).to_string()
}

/// Puts the lesson's first run (and, for a two-run lesson, the second as B) into the lab.
fn load_scenarios(ui: Ui, lesson: &Lesson) {
    let runs = (lesson.runs)();
    let named = |i: usize| -> Option<Scenario> {
        runs.get(i).map(|r| {
            let mut s = r.scenario.clone();
            s.name = Some(variant_label(lesson.id, r.variant));
            s
        })
    };
    if ui.exercise.get_untracked().is_some() {
        ui.exercise.set(None);
        ui.locked.set(Vec::new());
    }
    let two = runs.len() == 2;
    if let Some(a) = named(0) {
        ui.drafts[0].set(a);
    }
    if two {
        if let Some(b) = named(1) {
            ui.drafts[1].set(b);
        }
    }
    ui.ab.set(two);
    ui.editing.set(app_model::Run::A);
}

fn open(ui: Ui, id: &'static str) {
    if let Some(lesson) = core::find(id) {
        load_scenarios(ui, lesson);
        ui.lesson.set(Some((id.to_string(), SETUP)));
    }
}

fn set_step(ui: Ui, step: u32) {
    ui.lesson.update(|l| {
        if let Some((_, s)) = l {
            *s = step.min(STEPS - 1);
        }
    });
}

fn cancel(st: State) {
    workbench::cancel(st.runner);
    st.running.set(false);
}

/// Runs every scenario of the lesson in slices, then reads the outcome.
fn start_run(ui: Ui, st: State, lesson: &'static Lesson) {
    let runs = (lesson.runs)();
    let variants: Vec<&'static str> = runs.iter().map(|r| r.variant).collect();
    let total = runs.len();
    st.running.set(true);
    st.error.set(None);
    st.progress.set((0, total, 0.0));
    let predicted = st.prediction.get_untracked();
    let job = Runs::new(runs.into_iter().map(|r| r.scenario).collect());
    workbench::start(st.runner, job, move |status| {
        let runs = match status {
            Status::Working(p) => return st.progress.set((p.done, p.total, p.share)),
            Status::Stopped => return,
            Status::Finished(Err(e)) => {
                st.error.set(Some(e));
                st.running.set(false);
                return;
            }
            Status::Finished(Ok(runs)) => runs,
        };
        let sums: Vec<Summary> = runs.into_iter().map(|r| r.summary).collect();
        let outcome = (lesson.outcome)(&sums);
        let correct = predicted.map(|p| p == outcome.answer);
        share::post_event(
            "lesson-completed",
            serde_json::json!({ "id": lesson.id, "predicted": predicted, "answer": outcome.answer, "correct": correct }),
        );
        st.progress.set((total, total, 1.0));
        st.result.set(Some(Finished {
            id: lesson.id.to_string(),
            variants: variants.clone(),
            sums,
            outcome,
            predicted,
        }));
        st.running.set(false);
        if ui.lesson.with_untracked(|l| l.as_ref().is_some_and(|(id, s)| id == lesson.id && *s == RUN)) {
            set_step(ui, EXPLAIN);
        }
        // the lab on the page catches up, so the numbers it shows are the ones the text quotes
        if !ui.finished() {
            ui.fast_forward.set(true);
        }
    });
}

/// The page's key for the number a lesson highlights (sim-core names it as a metric).
fn highlight_key(m: Metric) -> &'static str {
    match m {
        Metric::TTFT_P99 => "ttft.p99",
        Metric::GoodputTokens => "goodput",
        Metric::KvPeakBytes => "hbm",
        Metric::Requests(Count::OomRestarts) => "oom",
        Metric::UsdPerMillionGoodTokens => "cost",
        _ => "",
    }
}

/// Elements of the lab a highlight key points at: a selector and, optionally, the ancestor to mark.
fn highlight_targets(key: &str) -> &'static [(&'static str, Option<&'static str>)] {
    match key {
        "ttft.p99" => &[("[data-testid=\"metric-ttft-p99\"]", None)],
        "goodput" => &[("[data-testid=\"metric-goodput\"]", Some(".kv"))],
        "hbm" => &[("[data-testid^=\"hbm-gauge\"] .gauge", None)],
        "oom" => &[("[data-testid=\"count-oom-restarts\"]", Some(".count"))],
        "cost" => &[("[data-testid=\"metric-cost-good\"]", Some(".kv"))],
        _ => &[],
    }
}

/// Marks the elements `key` points at with [`HIGHLIGHT_CLASS`] and unmarks the rest.
fn apply_highlight(key: Option<&str>) {
    let doc = document();
    let mut targets: Vec<web_sys::Element> = Vec::new();
    for (sel, up) in key.map(highlight_targets).unwrap_or(&[]) {
        let Ok(list) = doc.query_selector_all(sel) else { continue };
        for i in 0..list.length() {
            let Some(el) = list.item(i).and_then(|n| n.dyn_into::<web_sys::Element>().ok()) else { continue };
            let el = match up {
                Some(a) => el.closest(a).ok().flatten().unwrap_or(el),
                None => el,
            };
            targets.push(el);
        }
    }
    if let Ok(list) = doc.query_selector_all(&format!(".{HIGHLIGHT_CLASS}")) {
        for i in 0..list.length() {
            let Some(el) = list.item(i).and_then(|n| n.dyn_into::<web_sys::Element>().ok()) else { continue };
            if !targets.iter().any(|x| x.is_same_node(Some(&el))) {
                let _ = el.class_list().remove_1(HIGHLIGHT_CLASS);
            }
        }
    }
    for el in targets {
        let _ = el.class_list().add_1(HIGHLIGHT_CLASS);
    }
}

#[component]
pub fn LessonsPanel(ui: Ui) -> impl IntoView {
    let st = State {
        prediction: RwSignal::new(None),
        result: RwSignal::new(None),
        running: RwSignal::new(false),
        runner: workbench::jobs(),
        progress: RwSignal::new((0, 0, 0.0)),
        error: RwSignal::new(None),
        adopted: StoredValue::new(None),
    };

    // Follow ui.lesson: a newly opened lesson starts clean; the run and explain steps need results.
    workbench::effect(Box::new(move || {
        let Some((id, step)) = ui.lesson.get() else {
            if st.adopted.get_value().is_some() {
                st.adopted.set_value(None);
                cancel(st);
            }
            return;
        };
        let Some(lesson) = core::find(&id) else {
            ui.lesson.set(None);
            return;
        };
        if st.adopted.get_value().as_deref() != Some(id.as_str()) {
            st.adopted.set_value(Some(id.clone()));
            cancel(st);
            st.prediction.set(None);
            st.result.set(None);
            st.error.set(None);
        }
        let have = st.result.with_untracked(|r| r.as_ref().is_some_and(|r| r.id == id));
        if (step == RUN || step == EXPLAIN) && !have && !st.running.get_untracked() {
            start_run(ui, st, lesson);
        }
    }));

    // Point at the lab's metric once the explanation shows; follow re-renders at the calm tick.
    // The safe-zone lesson draws its runs as a sweep chart once the explanation is on the page.
    // A new step replaces the step's content: the focus moves there, so keyboard and
    // screen-reader users continue where the content changed.
    let last = StoredValue::new(None::<(String, u32)>);
    workbench::effect(Box::new(move || {
        i18n::locale().track();
        let cur = ui.lesson.get();
        let lesson = cur.as_ref().and_then(|(id, _)| core::find(id));
        let step = cur.as_ref().map_or(SETUP, |(_, s)| *s);
        let have = st.result.with(|r| r.as_ref().is_some_and(|f| Some(f.id.as_str()) == lesson.map(|l| l.id)));
        let key = lesson.filter(|_| step >= EXPLAIN && have).map(|l| highlight_key(l.highlight));
        if key.is_some() {
            ui.views[0].track();
            ui.views[1].track();
            ui.ab.track();
        }
        apply_highlight(key);
        if step == EXPLAIN && have && lesson.is_some_and(|l| l.id == "safe-zone") {
            // once per canvas: a rebuilt explanation brings fresh canvases
            request_animation_frame(move || {
                let Some(canvas) = document().get_element_by_id("lesson-sweep-chart-good") else { return };
                if canvas.has_attribute("data-drawn") {
                    return;
                }
                let _ = canvas.set_attribute("data-drawn", "1");
                let points: Vec<SweepPoint> = st.result.with_untracked(|r| {
                    r.as_ref()
                        .map(|f| {
                            SAFE_ZONE_RATES
                                .iter()
                                .zip(&f.sums)
                                .map(|(v, s)| SweepPoint { value: *v, summary: Some(s.clone()), error: None })
                                .collect()
                        })
                        .unwrap_or_default()
                });
                let slo = core::find("safe-zone").and_then(|l| {
                    (l.runs)().first().and_then(|r| r.scenario.classes.first().and_then(|c| c.slo.ttft_ms))
                });
                sweep_panel::draw(
                    "lesson-sweep-chart-good",
                    "lesson-sweep-chart-ttft",
                    SweepParam::RatePerS,
                    &points,
                    slo,
                );
            });
        }
        let prev = last.get_value();
        if let (Some((a, sa)), Some((b, sb))) = (&prev, &cur) {
            if a == b && sa != sb {
                request_animation_frame(|| {
                    if let Some(el) = document()
                        .query_selector("[data-testid=\"lesson\"] .lesson-step")
                        .ok()
                        .flatten()
                        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
                    {
                        let _ = el.focus();
                    }
                });
            }
        }
        last.set_value(cur);
    }));
    on_cleanup(|| apply_highlight(None));

    let lesson = move || ui.lesson.with(|c| c.as_ref().and_then(|(id, step)| core::find(id).map(|l| (l, *step))));
    let on_click = move |ev: web_sys::MouseEvent| {
        if let Some((act, arg)) = workbench::action(&ev) {
            on_action(ui, st, &act, &arg);
            workbench::refocus(act, arg);
        }
    };

    view! {
        <div class="lessons" data-testid="lessons" on:click=on_click>
            {html("", Box::new(move || if ui.lesson.with(Option::is_none) { list_html() } else { String::new() }))}
            <article
                class="lesson"
                class:hidden=flag(Box::new(move || ui.lesson.with(Option::is_none)))
                data-testid="lesson"
                data-lesson=text(Box::new(move || lesson().map(|l| l.0.id.to_string()).unwrap_or_default()))
                data-step=text(Box::new(move || lesson().map(|l| l.1.to_string()).unwrap_or_default()))
            >
                {html("", Box::new(move || lesson().map(|(l, step)| head_html(l, step)).unwrap_or_default()))}
                <div class="lesson-grid">
                    {html("lesson-context", Box::new(move || {
                        lesson()
                            .map(|(l, _)| format!("<blockquote class=\"lesson-claim-full\">{}</blockquote><p>{}</p>", esc(&text_of(l.id, "claim")), esc(&text_of(l.id, "setup"))))
                            .unwrap_or_default()
                    }))}
                    <div class="lesson-step" tabindex="-1">
                        {html("", Box::new(move || lesson().map(|(l, step)| step_html(st, l, step)).unwrap_or_default()))}
                        {html("", Box::new(move || {
                            if !st.running.get() {
                                return String::new();
                            }
                            let (done, total, share) = st.progress.get();
                            let label = tf("lessons.progress", &[("done", done.to_string()), ("total", total.to_string())]);
                            workbench::progress_html("lesson-progress", share, &label)
                        }))}
                        <p class="err" role="alert">{text(Box::new(move || st.error.get().unwrap_or_default()))}</p>
                    </div>
                </div>
            </article>
        </div>
    }
}

fn on_action(ui: Ui, st: State, act: &str, arg: &str) {
    match act {
        "open" | "next-lesson" => {
            if let Some(l) = core::find(arg) {
                open(ui, l.id);
            }
        }
        "all" => ui.lesson.set(None),
        "step" => set_step(ui, arg.parse().unwrap_or(SETUP)),
        "reload" => {
            if let Some(l) = ui.lesson.with_untracked(|l| l.as_ref().and_then(|(id, _)| core::find(id))) {
                load_scenarios(ui, l);
            }
        }
        "choose" => st.prediction.set(arg.parse().ok()),
        "run" if st.prediction.get_untracked().is_some() => {
            st.result.set(None);
            set_step(ui, RUN);
        }
        "cancel" => {
            cancel(st);
            set_step(ui, PREDICT);
        }
        "again" => {
            st.result.set(None);
            st.prediction.set(None);
            set_step(ui, PREDICT);
        }
        "show" => workbench::scroll_to(&format!(".{HIGHLIGHT_CLASS}")),
        _ => {}
    }
}

fn list_html() -> String {
    let mut out = format!(
        "<header class=\"panel-head\"><h2>{}</h2><span class=\"small muted\">{}</span></header><ol class=\"lesson-list\">",
        esc(&t("lessons.title")),
        esc(&t("features.lesson.list_hint"))
    );
    let start = t("features.lesson.start");
    for (i, l) in LESSONS.iter().enumerate() {
        let title = text_of(l.id, "title");
        let named = tf("features.lesson.start_named", &[("title", title.clone())]);
        out.push_str(&format!(
            "<li class=\"lesson-card\"><span class=\"lesson-num\" aria-hidden=\"true\">{}</span><div class=\"lesson-card-body\"><h3>{}</h3><p class=\"small muted lesson-claim\">{}</p></div>{}</li>",
            i + 1,
            esc(&title),
            esc(&text_of(l.id, "claim")),
            workbench::button(
                "small-btn",
                "open",
                l.id,
                &format!("data-testid=\"lesson-open-{}\" aria-label=\"{}\"", l.id, esc(&named)),
                &start
            )
        ));
    }
    out.push_str("</ol>");
    out
}

fn head_html(lesson: &Lesson, step: u32) -> String {
    let index = LESSONS.iter().position(|l| l.id == lesson.id).unwrap_or(0);
    let names = [
        t("features.lesson.step.setup"),
        t("features.lesson.step.predict"),
        t("features.lesson.step.run"),
        t("features.lesson.step.explain"),
        t("features.lesson.step.play"),
    ];
    let mut steps = String::new();
    for (i, name) in names.iter().enumerate() {
        let i = i as u32;
        let (class, mark) = if i < step {
            ("st-done", "✓".to_string())
        } else if i == step {
            ("st-current", (i + 1).to_string())
        } else {
            ("st-todo", (i + 1).to_string())
        };
        let current = if i == step { " aria-current=\"step\"" } else { "" };
        steps.push_str(&format!(
            "<li class=\"{class}\"{current}><span class=\"st-dot\" aria-hidden=\"true\">{mark}</span>{}</li>",
            esc(name)
        ));
    }
    format!(
        "<header class=\"lesson-head\"><span class=\"small muted\">{}</span><h2>{}</h2><span class=\"small muted\" data-testid=\"lesson-step\">{}</span>{}</header><ol class=\"stepper\">{steps}</ol>",
        esc(&tf("features.lesson.n_of", &[("n", (index + 1).to_string()), ("total", LESSONS.len().to_string())])),
        esc(&text_of(lesson.id, "title")),
        esc(&tf("lessons.step_n", &[("n", (step + 1).to_string()), ("total", STEPS.to_string())])),
        workbench::button("small-btn lesson-all", "all", "", "data-testid=\"lesson-all\"", &t("features.lesson.all")),
    )
}

fn choice_text(id: &str, i: usize) -> String {
    text_of(id, &format!("choice.{i}"))
}

fn actions(buttons: &[String]) -> String {
    format!("<div class=\"lesson-actions\">{}</div>", buttons.concat())
}

fn step_html(st: State, lesson: &Lesson, step: u32) -> String {
    let id = lesson.id;
    let prediction = st.prediction.get();
    let your = |p: Option<usize>| {
        format!(
            "<p class=\"small\"><b>{}</b>: {}</p>",
            esc(&t("lessons.your_prediction")),
            esc(&p.map(|p| choice_text(id, p)).unwrap_or_else(|| t("features.lesson.no_prediction")))
        )
    };
    match step {
        SETUP => {
            let runs = (lesson.runs)().len();
            let note = match runs {
                1 => t("features.lesson.loaded_one"),
                2 => t("features.lesson.loaded_ab"),
                n => tf("features.lesson.loaded_many", &[("n", n.to_string())]),
            };
            format!(
                "<p class=\"lesson-note\">{}</p>{}",
                esc(&note),
                actions(&[
                    workbench::button("primary", "step", "1", "data-testid=\"lesson-next\"", &t("lessons.next")),
                    workbench::button("", "reload", "", "data-testid=\"lesson-reload\"", &t("features.lesson.reload")),
                ])
            )
        }
        PREDICT => {
            let mut choices = String::new();
            for i in 0..lesson.choices {
                let on = prediction == Some(i);
                choices.push_str(&format!(
                    "<button type=\"button\" class=\"choice{}\" aria-pressed=\"{on}\" data-act=\"choose\" data-arg=\"{i}\" data-testid=\"lesson-choice-{i}\"><span class=\"choice-mark\" aria-hidden=\"true\">{}</span>{}</button>",
                    if on { " active" } else { "" },
                    if on { "●" } else { "○" },
                    esc(&choice_text(id, i))
                ));
            }
            let disabled = if prediction.is_none() { " disabled" } else { "" };
            format!(
                "<h3>{}</h3><p class=\"lesson-question\">{}</p><div class=\"choices\" role=\"group\" aria-label=\"{}\">{choices}</div><p class=\"small muted\">{}</p>{}",
                esc(&t("lessons.predict")),
                esc(&text_of(id, "question")),
                esc(&t("lessons.predict")),
                esc(&t("features.lesson.commit_first")),
                actions(&[
                    workbench::button("primary", "run", "", &format!("data-testid=\"lesson-run\"{disabled}"), &t("lessons.run")),
                    workbench::button("", "step", "0", "", &t("lessons.prev")),
                ])
            )
        }
        RUN => format!(
            "<h3>{}</h3><p class=\"lesson-question\">{}</p>{}{}",
            esc(&t("lessons.running")),
            esc(&text_of(id, "question")),
            your(prediction),
            actions(&[workbench::button("", "cancel", "", "data-testid=\"lesson-cancel\"", &t("lessons.cancel"))])
        ),
        EXPLAIN => st.result.with(|r| match r.as_ref().filter(|f| f.id == id) {
            Some(fin) => explain_html(lesson, fin),
            None => format!("<h3>{}</h3>", esc(&t("lessons.running"))),
        }),
        _ => {
            let next = LESSONS.iter().position(|l| l.id == id).and_then(|i| LESSONS.get(i + 1));
            let mut buttons = Vec::new();
            if let Some(n) = next {
                buttons.push(workbench::button(
                    "primary",
                    "next-lesson",
                    n.id,
                    "data-testid=\"lesson-next-lesson\"",
                    &t("features.lesson.next_lesson"),
                ));
            }
            buttons.push(workbench::button("", "step", "3", "", &t("lessons.prev")));
            buttons.push(workbench::button("", "reload", "", "", &t("features.lesson.reload")));
            format!(
                "<h3>{}</h3><p class=\"lesson-try\" data-testid=\"lesson-try\">{}</p><p class=\"small muted\">{}</p>{}",
                esc(&t("features.lesson.try")),
                esc(&text_of(id, "try")),
                esc(&t("features.lesson.play_note")),
                actions(&buttons)
            )
        }
    }
}

fn explain_html(lesson: &Lesson, fin: &Finished) -> String {
    let id = lesson.id;
    let answer = fin.outcome.answer;
    let (class, correct, icon, msg) = match fin.predicted {
        Some(p) if p == answer => ("right", "true", "✓", t("lessons.correct")),
        Some(_) => ("other", "false", "↻", t("lessons.incorrect")),
        None => ("none", "none", "", t("features.lesson.no_prediction")),
    };
    let feedback = format!(
        "<div class=\"lesson-feedback {class}\" data-testid=\"lesson-feedback\" data-correct=\"{correct}\"><span class=\"fb-icon\" aria-hidden=\"true\">{icon}</span><p>{}</p></div>",
        esc(&msg)
    );
    let answers = format!(
        "<dl class=\"lesson-answers small\"><div><dt>{}</dt><dd>{}</dd></div><div><dt>{}</dt><dd data-testid=\"lesson-answer\" data-answer=\"{answer}\">{}</dd></div></dl>",
        esc(&t("lessons.your_prediction")),
        esc(&fin.predicted.map(|p| choice_text(id, p)).unwrap_or_else(|| format::NONE.to_string())),
        esc(&t("lessons.outcome")),
        esc(&choice_text(id, answer)),
    );
    let explanation = fill_outcome(&text_of(id, &format!("explain.{answer}")), &fin.outcome);
    let look = format!(
        "<div class=\"lesson-look\"><span class=\"look-icon\" aria-hidden=\"true\">◎</span><p><b>{}</b> {}</p>{}</div>",
        esc(&t("features.lesson.where")),
        esc(&text_of(id, "highlight")),
        workbench::button("small-btn", "show", "", "data-testid=\"lesson-show\"", &t("features.lesson.show"))
    );
    let numbers = if id == "safe-zone" {
        format!("<div class=\"sweep-charts\">{}</div>", sweep_panel::charts_html("lesson-sweep", SweepParam::RatePerS))
    } else {
        runs_table(lesson, fin)
    };
    format!(
        "{feedback}{answers}<p class=\"lesson-explanation\" data-testid=\"lesson-explanation\">{}</p>{look}{numbers}{}",
        esc(&explanation),
        actions(&[
            workbench::button("primary", "step", "4", "data-testid=\"lesson-play\"", &t("lessons.play_freely")),
            workbench::button("", "again", "", "data-testid=\"lesson-again\"", &t("features.lesson.again")),
        ])
    )
}

/// One row of the per-run numbers: label, value, the highlight key it belongs to.
type Row = (fn() -> String, fn(&Summary) -> String, &'static str);

const ROWS: [Row; 10] = [
    (|| t("features.num.ttft_p99"), |s| format::dist_ms(s.all.ttft_ms.count, s.all.ttft_ms.p99), "ttft.p99"),
    (|| t("features.num.ttft_mean"), |s| format::dist_ms(s.all.ttft_ms.count, s.all.ttft_ms.mean), ""),
    (|| t("features.num.tpot_p99"), |s| format::dist_ms(s.all.tpot_ms.count, s.all.tpot_ms.p99), ""),
    (|| t("features.num.throughput"), |s| format!("{} tok/s", format::rate(s.all.throughput.output_tokens_per_s)), ""),
    (|| t("features.num.goodput"), |s| format!("{} tok/s", format::rate(s.all.goodput.output_tokens_per_s)), "goodput"),
    (|| t("features.num.attainment"), |s| format::pct(s.all.goodput.slo_attainment), ""),
    (|| t("features.num.cost_good"), |s| format::usd(s.cost.usd_per_million_good_tokens), "cost"),
    (|| t("features.num.oom"), |s| format::int(s.all.requests.oom_restarts), "oom"),
    (|| t("features.num.peak_running"), |s| format::int(s.memory.peak_running), ""),
    (|| t("features.num.kv_peak"), |s| format::gib(s.memory.kv_peak_bytes), "hbm"),
];

fn runs_table(lesson: &Lesson, fin: &Finished) -> String {
    let two = fin.variants.len() == 2;
    let mut heads = String::from("<th scope=\"col\"></th>");
    for (i, v) in fin.variants.iter().enumerate() {
        let tag = if two { ["A · ", "B · "][i.min(1)] } else { "" };
        heads.push_str(&format!("<th scope=\"col\">{tag}{}</th>", esc(&variant_label(lesson.id, v))));
    }
    let mut rows = String::new();
    for (label, value, key) in ROWS.iter() {
        let hl = !key.is_empty() && *key == highlight_key(lesson.highlight);
        rows.push_str(&format!(
            "<tr{}><th scope=\"row\">{}</th>",
            if hl { " class=\"hl-row\"" } else { "" },
            esc(&label())
        ));
        for s in &fin.sums {
            rows.push_str(&format!("<td class=\"num\">{}</td>", esc(&value(s))));
        }
        rows.push_str("</tr>");
    }
    format!(
        "<div class=\"table-scroll\"><table class=\"runs-table\" data-testid=\"lesson-runs\"><caption class=\"small muted\">{}</caption><thead><tr>{heads}</tr></thead><tbody>{rows}</tbody></table></div>",
        esc(&t("features.lesson.runs_caption"))
    )
}
