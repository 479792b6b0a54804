//! Classroom exercises: a starting scenario, the controls a learner may change (the rest are
//! locked), goals checked automatically every time a run ends, and an objective to beat. Attempts
//! are kept in the browser's local storage, each with a result code to hand in, and download as
//! CSV or JSON or print as a summary. Teacher mode (off by default) makes a link that locks
//! chosen controls and checks a handed-in result code by re-running it (a background job).
//! The attempts, locks, exports, codes and the teacher's choices are `app_model::tabs::exercise`.
//! Teacher mode's link maker and result-code check are `teacher`.

mod class_table;
mod teacher;

use teacher::{teacher, verifier};

use app_model::share::Hidden;
use app_model::tabs::exercise::said::{self, exercise};
use app_model::tabs::exercise::{
    self as model, Attempts, CodeJob, CodeVerdict, Record, RunsSeen, Teacher, STORAGE_KEY,
};
use leptos::prelude::*;

use class_table::ClassTable;
use lab_content::exercise::{exercises, Exercise};

use crate::i18n::{t, tx, PAGE};
use crate::kit::{self, button, data_url, storage_get, storage_set, Jobs};
use crate::ui::{use_ui, Ui};
use crate::{address, share};

/// Local-storage key of the teacher-mode switch.
const TEACHER_KEY: &str = "llm-serving-lab.teacher-mode";

/// What the toolbar's preset box names while an exercise or a lesson is open (what is on the
/// stage is theirs, not the preset's).
pub fn preset_name(ui: Ui) -> Option<String> {
    let lesson = ui.lesson.with(|l| l.as_ref().map(|(id, _)| id.clone()));
    said::open_name(PAGE, lesson.as_deref(), ui.exercise.get().as_deref())
}

/// The reference solution behind a disclosure, once the learner has made an attempt.
fn solution(ex: &Exercise, recs: &[Record]) -> Option<AnyView> {
    if ex.reference.is_empty() {
        return None;
    }
    if !model::solution_offered(ex, recs) {
        return Some(view! { <p class="small muted">{t("features.ex.solution.later")}</p> }.into_any());
    }
    let lines = model::solution(ex)
        .into_iter()
        .map(|l| view! { <li>{said::solution_name(PAGE, &l)}": "<code>{l.path}" = "{l.value}</code></li> })
        .collect_view();
    let why = model::text_keys(&ex.id).map(|k| view! { <p class="small">{t(k.solution)}</p> });
    Some(
        view! {
            <details class="solution" data-testid="exercise-solution">
                <summary>{tx("features.ex.solution.show")}</summary>
                <p class="small muted">{t("features.ex.solution.intro")}</p>
                <ul class="goals">{lines}</ul>
                {why}
            </details>
        }
        .into_any(),
    )
}

fn clock(ms: f64) -> String {
    let d = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms));
    format!("{:02}:{:02}:{:02}", d.get_hours(), d.get_minutes(), d.get_seconds())
}

#[derive(Clone, Copy)]
struct State {
    ui: Ui,
    links: share::Links,
    attempts: RwSignal<Attempts>,
    /// (exercise, restart count) of the last run looked at: each finished run counts once.
    seen: StoredValue<RunsSeen>,
    note: RwSignal<Option<String>>,
    teacher: RwSignal<Teacher>,
    link: RwSignal<String>,
    /// What the teacher's link hides from students.
    hide: RwSignal<Vec<Hidden>>,
    teacher_mode: RwSignal<bool>,
    /// The card marked for printing (the open exercise's when none is).
    print: RwSignal<Option<String>>,
    code_text: RwSignal<String>,
    /// A dropped or opened file of codes that could not be read (its message).
    file_error: RwSignal<Option<String>>,
    verdict: RwSignal<Option<Checked>>,
    code_jobs: Jobs<CodeJob>,
    /// Many codes at once: the class table.
    class: ClassTable,
    /// The name the student puts on their result codes (optional; local storage).
    student: RwSignal<String>,
}

/// What the result-code box shows.
#[derive(Clone)]
enum Checked {
    Checking,
    Done(CodeVerdict),
}

impl State {
    fn start(self, id: &str) {
        let ui = self.ui;
        self.seen.update_value(|s| s.start(id, ui.restarts.get_untracked()));
        self.note.set(None);
        ui.open_exercise(id);
    }

    fn stop(self) {
        self.ui.close_exercise();
        self.note.set(None);
    }

    fn check_code(self) {
        let text = self.code_text.get_untracked();
        // a class's codes: the table; one code: its verdict in detail
        if model::codes_in(&text).len() >= 2 {
            kit::cancel(self.code_jobs);
            self.verdict.set(None);
            self.class.start(&text);
            return;
        }
        self.class.clear();
        self.verdict.set(Some(Checked::Checking));
        kit::start(self.code_jobs, CodeJob::new(&text), move |status| {
            if let app_model::jobs::Status::Finished(v) = status {
                self.verdict.set(Some(Checked::Done(v)));
            }
        });
    }

    fn save(self, f: impl FnOnce(&mut Attempts)) {
        self.attempts.update(|a| {
            f(a);
            storage_set(STORAGE_KEY, &a.to_text());
        });
    }

    /// Records the run that just ended as an attempt at the open exercise.
    fn record(self) {
        let ui = self.ui;
        let Some(id) = ui.exercise.get() else { return };
        let finished = ui.views[0].with(|v| v.as_ref().is_some_and(|v| v.finished));
        if !finished {
            return;
        }
        let r = ui.restarts.get_untracked();
        if !self.seen.try_update_value(|s| s.first_look(&id, r)).unwrap_or(false) {
            return;
        }
        let Some(ex) = exercise(&id) else { return };
        let Some(summary) = ui.views[0].with_untracked(|v| v.as_ref().map(|v| v.summary.clone())) else { return };
        let Some(scenario) = ui.infos[0].with_untracked(|i| i.as_ref().map(|i| i.scenario.clone())) else { return };
        let student = self.student.get_untracked();
        let counted = ui
            .locked
            .with_untracked(|locks| model::attempt_of(&ex, &scenario, &summary, locks, &student, js_sys::Date::now()));
        let (attempt, rec) = match counted {
            Ok(counted) => counted,
            Err(outside) => return self.note.set(Some(said::not_counted(PAGE, &outside))),
        };
        self.note.set(None);
        address::post_event("exercise-result", model::result_event(&id, &attempt, &rec));
        self.save(|a| a.push(&id, rec));
    }
}

/// One attempt as a table row.
fn attempt_row(i: usize, r: &Record, metric: &str) -> AnyView {
    let said::AttemptSaid { verdict, score, goals, settings, seed } = said::attempt(PAGE, r, metric);
    let goals = goals
        .into_iter()
        .map(|g| {
            view! {
                <li class=if g.met { "ok" } else { "no" } data-metric=g.metric data-value=g.raw data-met=g.met.to_string()>
                    <span aria-hidden="true">{if g.met { "✓ " } else { "✗ " }}</span>
                    {g.text}
                </li>
            }
        })
        .collect_view();
    let code = match r.code.clone() {
        Some(c) => {
            let copied = c.clone();
            view! {
                <input type="text" readonly class="result-code" data-testid="result-code" prop:value=c aria-label=tx("features.class.code.title") />
                {button("small-btn", None, "features.class.code.copy", None, Callback::new(move |()| share::copy_text(&copied, Box::new(|_| {}))))}
            }
            .into_any()
        }
        None => view! { <span class="small muted">{t("features.class.code.none")}</span> }.into_any(),
    };
    view! {
        <tr data-testid="exercise-attempt" data-pass=r.pass.to_string() data-seed=r.seed.map(|s| s.to_string()).unwrap_or_default() data-score=model::raw(r.score)>
            <td class="num">{i + 1}</td>
            <td class="num">{clock(r.time_ms)}</td>
            <td class=if r.pass { "verdict pass" } else { "verdict fail" }>
                <span aria-hidden="true">{if r.pass { "✓ " } else { "✗ " }}</span>
                {verdict}
            </td>
            <td class="num">{score}</td>
            <td><ul class="goal-results">{goals}</ul></td>
            <td class="small" data-testid="attempt-settings">{settings}" "<span class="muted">{seed}</span></td>
            <td class="code-cell">{code}</td>
        </tr>
    }
    .into_any()
}

/// An exercise: its task, goals, objective, allowed controls, best score and attempts.
fn card(st: State, ex: Exercise, active: bool, recs: &[Record]) -> AnyView {
    let id = ex.id.clone();
    let metric = ex.objective.as_ref().map(|o| o.metric.to_string()).unwrap_or_default();
    // the teacher's locks (not another open exercise's) decide what this card offers
    let open = st.ui.exercise.get_untracked().and_then(|id| exercise(&id));
    let locks_now = st.ui.locked.with_untracked(|l| model::teacher_locks(l, open.as_ref()));
    let said::Card { title, task, goals, objective, allowed, by_teacher, best } =
        said::card(PAGE, &ex, &locks_now, recs);
    let goals = goals.into_iter().map(|g| view! { <li>{g}</li> }).collect_view();
    let objective = objective.map(|o| view! { <p class="small"><b>{t("features.ex.objective")}</b>" "{o}</p> });
    let by_teacher = by_teacher.map(|line| view! { <p class="small muted" data-testid="teacher-locked">{line}</p> });
    let table = (!recs.is_empty()).then(|| {
        let cols = kit::heads(said::attempt_heads(PAGE));
        let rows = recs.iter().enumerate().rev().map(|(i, r)| attempt_row(i, r, &metric)).collect_view().into_any();
        let clear_id = id.clone();
        let clear = Callback::new(move |()| st.save(|a| a.clear(&clear_id)));
        let label = |k: &str| t(k);
        let csv = data_url("text/csv", &model::csv(&ex, recs, &label));
        let json = model::export_json(&ex, recs, model::best(&ex, recs), &label);
        let json = data_url("application/json", &serde_json::to_string_pretty(&json).unwrap_or_default());
        let print_id = id.clone();
        let print = Callback::new(move |()| {
            st.print.set(Some(print_id.clone()));
            let _ = window().print();
        });
        view! {
            {kit::table("runs-table attempts", None, t("features.ex.attempts"), cols, rows)}
            <div class="actions ex-export">
                {kit::download("btn small-btn", csv, format!("attempts-{id}.csv"), "exercise-csv", "features.class.export_csv")}
                {kit::download("btn small-btn", json, format!("attempts-{id}.json"), "exercise-json", "features.class.export_json")}
                {button("small-btn", Some("exercise-print"), "features.class.print", None, print)}
                {button("small-btn", None, "features.ex.clear", None, clear)}
            </div>
        }
    });
    let start_id = id.clone();
    let start = Callback::new(move |()| st.start(&start_id));
    let stop = active.then(|| {
        button("small-btn", Some("exercise-stop"), "features.ex.stop", None, Callback::new(move |()| st.stop()))
    });
    let card_id = id.clone();
    let printed = move || st.print.get().or_else(|| st.ui.exercise.get()).as_deref() == Some(card_id.as_str());
    view! {
        <article class="exercise" class:active=active class:print-this=printed data-testid=format!("exercise-{id}")>
            <header class="exercise-head">
                <h3>{title}</h3>
                <div class="lesson-actions">
                    <button type="button" class="btn primary small-btn" data-testid=format!("exercise-start-{id}") on:click=move |_| start.run(())>
                        {tx("features.ex.start")}
                    </button>
                    {stop}
                </div>
            </header>
            <p>{task}</p>
            <p class="small"><b>{t("features.ex.goals")}</b></p>
            <ul class="goals">{goals}</ul>
            {objective}
            <p class="small muted" data-testid="exercise-allowed"><b>{t("features.ex.allowed")}</b>" "{allowed}</p>
            {by_teacher}
            <p class="best" data-testid="exercise-best">{best}</p>
            {table}
            {(!st.ui.hides(Hidden::Solutions)).then(|| solution(&ex, recs))}
        </article>
    }
    .into_any()
}

fn cards(st: State) -> AnyView {
    let body = move || {
        let open = st.ui.exercise.get();
        st.ui.locked.track();
        let note = st
            .note
            .get()
            .map(|n| view! { <p class="banner note small" role="status" data-testid="exercise-note">{n}</p> });
        let running = open.is_some().then(|| {
            let to_end = Callback::new(move |()| st.ui.fast_forward.set(true));
            view! {
                <p class="small ex-running">
                    {t("features.ex.running_hint")}" "
                    {button("small-btn", Some("exercise-run-to-end"), "features.ex.run_to_end", None, to_end)}
                </p>
            }
        });
        let list = st.attempts.with(|all| {
            exercises()
                .into_iter()
                .map(|ex| {
                    let active = open.as_deref() == Some(ex.id.as_str());
                    let recs = all.of(&ex.id).to_vec();
                    card(st, ex, active, &recs)
                })
                .collect_view()
        });
        view! { {note}{running}<div class="exercise-list">{list}</div> }
    };
    view! { <div>{body}</div> }.into_any()
}

#[component]
pub fn ExercisesPanel() -> impl IntoView {
    let ui = use_ui();
    let st = State {
        ui,
        links: share::use_links(),
        attempts: RwSignal::new(Attempts::parse(storage_get(STORAGE_KEY).as_deref())),
        seen: StoredValue::new(RunsSeen::default()),
        note: RwSignal::new(None),
        teacher: RwSignal::new(Teacher { chosen: ui.locked.get_untracked(), version: 0 }),
        link: RwSignal::new(String::new()),
        hide: RwSignal::new(Vec::new()),
        teacher_mode: RwSignal::new(storage_get(TEACHER_KEY).as_deref() == Some("1")),
        print: RwSignal::new(None),
        code_text: RwSignal::new(String::new()),
        file_error: RwSignal::new(None),
        verdict: RwSignal::new(None),
        code_jobs: kit::jobs(),
        class: ClassTable::new(),
        student: RwSignal::new(storage_get(model::NAME_KEY).unwrap_or_default()),
    };
    let mode = move |ev: leptos::ev::Event| {
        let on = event_target_checked(&ev);
        storage_set(TEACHER_KEY, if on { "1" } else { "0" });
        st.teacher_mode.set(on);
    };
    // Every run that ends while an exercise is open is an attempt.
    kit::effect(Box::new(move || st.record()));
    view! {
        <div class="exercises" data-testid="exercises">
            {kit::panel_head("features.ex.title", Box::new(|| t("features.ex.intro")))}
            <label class="check-line teacher-mode" class:hidden=move || ui.hides(Hidden::Teacher)>
                <input type="checkbox" data-testid="teacher-mode" prop:checked=move || st.teacher_mode.get() on:change=mode />
                {tx("features.class.teacher_mode")}
            </label>
            <div class="field student-name">
                <label for="student-name" class="small">{tx("features.class.student_name")}</label>
                <input
                    id="student-name"
                    type="text"
                    maxlength="60"
                    autocomplete="name"
                    data-testid="student-name"
                    prop:value=move || st.student.get()
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        storage_set(model::NAME_KEY, &v);
                        st.student.set(v);
                    }
                />
            </div>
            {cards(st)}
            <div
                class="teacher-tools"
                class:hidden=move || !st.teacher_mode.get() || ui.hides(Hidden::Teacher)
                data-testid="teacher-tools"
            >
                <details class="teacher" data-testid="teacher">
                    <summary>{tx("features.teacher.title")}</summary>
                    {teacher(st)}
                </details>
                {verifier(st)}
            </div>
        </div>
    }
}
