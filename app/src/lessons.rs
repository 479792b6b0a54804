//! Guided lessons, one per claim of the article: set up (the lesson's scenario goes onto the
//! stage) → predict (one of three choices, before anything runs) → run (every run of the lesson,
//! in slices, with progress and cancel) → explain (what the runs showed, in words quoting their
//! numbers, and where to look on the page) → play freely in the same scenario.
//!
//! sim-core decides which choice the runs bear out (`Lesson::outcome`); the words come from the
//! translation tables (`lesson.<id>.*`). The open lesson and its [`Step`] live in `ui.lesson`, so
//! a share link carries them and opening one resumes there; the panel's own state (prediction,
//! results) is `app_model::tabs::lesson::LessonPanel`. The step views are in [`steps`]; the runs
//! played on the stage and their callouts in [`watch`].

mod steps;
mod watch;

use watch::{begin_watch, moment_text, shown_watch, skip_to_explanation, stage_matches};
pub use watch::{follow_stage, StageCallouts};

use app_model::jobs::{Runs, Status};
use app_model::tabs::explain;
use app_model::tabs::lesson::{self as model, Finished, Follow, LessonPanel, Step, WatchState};
use app_model::tabs::lesson_view::{self, AfterRun};
use app_model::tabs::progress::{self, Progress};
use lab_content::lessons::{self as core, Lesson, LESSONS};
use lab_content::sweep::SweepParam;
use leptos::prelude::*;
use sim_core::metrics::Summary;
use wasm_bindgen::JsCast;

use crate::address;
use crate::i18n::{self, t, tf, PAGE};
use crate::kit::{self, text, Jobs};
use crate::sweep_panel;
use crate::ui::{use_ui, Ui};

/// Class the page puts on the element a lesson points at.
const HIGHLIGHT_CLASS: &str = "lesson-highlight";

fn text_of(id: &str, part: &str) -> String {
    i18n::t(&format!("lesson.{id}.{part}"))
}

fn variant_label(id: &str, variant: &str) -> String {
    i18n::t_untracked(&format!("lesson.{id}.variant.{variant}"))
}

/// A lesson's outcome on `seed`, computed in one go (the browser tests compare the page with it).
pub fn outcome_json(id: &str, seed: Option<u32>) -> String {
    explain::outcome_json(id, seed)
}

/// The page's seed: lessons run on it.
fn page_seed(ui: Ui) -> u64 {
    ui.drafts[0].with_untracked(|s| s.seed)
}

/// Puts the runs the lesson plays on the stage ([`Lesson::watch`]: one, or two as A and B) into
/// the lab.
fn load_scenarios(ui: Ui, lesson: &Lesson) {
    let runs = lesson_view::stage_runs(lesson, page_seed(ui));
    if ui.exercise.get_untracked().is_some() {
        ui.close_exercise();
    }
    let two = lesson.watch.len() == 2;
    for (run, (mut s, variant)) in app_model::Run::ALL.into_iter().zip(runs).take(if two { 2 } else { 1 }) {
        s.name = Some(variant_label(lesson.id, variant));
        ui.load(run, s);
    }
    ui.ab.set(two);
    ui.editing.set(app_model::Run::A);
}

pub fn open(ui: Ui, id: &'static str) {
    if let Some(lesson) = core::find(id) {
        ui.watch.set(WatchState::default());
        load_scenarios(ui, lesson);
        ui.lesson.set(Some((id.to_string(), Step::Setup)));
    }
}

fn set_step(ui: Ui, step: Step) {
    ui.lesson.update(|l| {
        if let Some((_, s)) = l {
            *s = step;
        }
    });
}

/// What the panel's views and actions share.
#[derive(Clone, Copy)]
struct Ctx {
    ui: Ui,
    panel: RwSignal<LessonPanel>,
    runner: Jobs<Runs>,
    prediction: Memo<Option<usize>>,
    running: Memo<bool>,
    finished: Memo<Option<Finished>>,
    /// The stage shows the lesson's runs (else the lesson pauses).
    stage_ok: Memo<bool>,
    /// Which lessons the learner has run (local storage).
    progress: RwSignal<Progress>,
}

impl Ctx {
    fn cancel(self) {
        kit::cancel(self.runner);
        self.panel.update(LessonPanel::cancelled);
        self.ui.watch.update(|w| w.watching = None);
    }

    /// Plays the finished runs on the stage again from t = 0 (the runs are put back first).
    fn replay(self, lesson: &'static Lesson) {
        match self.panel.with_untracked(|p| p.watching(lesson)) {
            Some(w) => {
                set_step(self.ui, Step::Run);
                begin_watch(self.ui, lesson, w);
            }
            None => load_scenarios(self.ui, lesson),
        }
    }

    /// Runs every scenario of the lesson in slices, then reads the outcome.
    fn start_run(self, lesson: &'static Lesson) {
        let Ctx { ui, panel, progress, .. } = self;
        let runs = lesson.scenarios(panel.with_untracked(|p| p.seed));
        let variants: Vec<&'static str> = runs.iter().map(|r| r.variant).collect();
        panel.update(|p| p.started(runs.len()));
        let job = Runs::new(runs.into_iter().map(|r| r.scenario).collect());
        kit::start(self.runner, job, move |status| {
            let runs = match status {
                Status::Working(p) => return panel.update(|s| s.progress = Some(p)),
                Status::Stopped => return,
                Status::Finished(Err(e)) => return panel.update(|s| s.failed(e)),
                Status::Finished(Ok(runs)) => runs,
            };
            let sums: Vec<Summary> = runs.into_iter().map(|r| r.summary).collect();
            let Some(fin) = panel.try_update(|p| p.finish(lesson, variants.clone(), sums).clone()) else { return };
            progress.update(|pr| {
                pr.record(lesson.id, fin.correct() == Some(true));
                kit::storage_set(progress::STORAGE_KEY, &pr.to_text());
            });
            address::post_event("lesson-completed", fin.completed_event());
            let at_run =
                ui.lesson.with_untracked(|l| l.as_ref().is_some_and(|(id, s)| id == lesson.id && *s == Step::Run));
            match AfterRun::of(at_run, ui.finished()) {
                AfterRun::Watch => {
                    if let Some(w) = panel.with_untracked(|p| p.watching(lesson)) {
                        begin_watch(ui, lesson, w);
                    }
                }
                AfterRun::CatchUp => ui.fast_forward.set(true),
                AfterRun::Nothing => {}
            }
        });
    }

    fn act(self, f: impl Fn(Ctx) + Send + Sync + 'static) -> Callback<()> {
        Callback::new(move |()| f(self))
    }
}

/// Marks the elements `key` points at with [`HIGHLIGHT_CLASS`] and unmarks the rest.
fn apply_highlight(key: Option<&str>) {
    let doc = document();
    let mut targets: Vec<web_sys::Element> = Vec::new();
    for (sel, up) in key.map(explain::highlight_targets).unwrap_or(&[]) {
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
pub fn LessonsPanel() -> impl IntoView {
    let ui = use_ui();
    let lang = crate::i18n::use_lang();
    let panel = RwSignal::new(LessonPanel::default());
    let cx = Ctx {
        ui,
        panel,
        runner: kit::jobs(),
        prediction: Memo::new(move |_| panel.with(|p| p.prediction)),
        running: Memo::new(move |_| panel.with(|p| p.running)),
        finished: Memo::new(move |_| panel.with(|p| p.finished().cloned())),
        stage_ok: Memo::new(move |_| stage_matches(ui)),
        progress: RwSignal::new(Progress::parse(kit::storage_get(progress::STORAGE_KEY).as_deref())),
    };

    // Follow ui.lesson and the page's seed: a newly opened lesson starts clean; the run and
    // explain steps need results of the seed the page shows.
    let seed = Memo::new(move |_| ui.drafts[0].with(|s| s.seed));
    kit::effect(Box::new(move || {
        let open = ui.lesson.get();
        let seed = seed.get();
        let follow = panel.try_update(|p| p.follow(open.as_ref().map(|(id, s)| (id.as_str(), *s)), seed));
        match follow {
            Some(Follow::Cancel) => kit::cancel(cx.runner),
            Some(Follow::Start(l)) => cx.start_run(l),
            Some(Follow::Restart(l)) => {
                kit::cancel(cx.runner);
                cx.start_run(l);
            }
            Some(Follow::Close) => ui.lesson.set(None),
            Some(Follow::Nothing) | None => {}
        }
    }));

    // Point at the lab's metric once the explanation shows; follow re-renders at the calm tick.
    // The safe-zone lesson draws its runs as a sweep chart once the explanation is on the page.
    // A new step replaces the step's content: the focus moves there, so keyboard and
    // screen-reader users continue where the content changed.
    let last = StoredValue::new(None::<(String, Step)>);
    kit::effect(Box::new(move || {
        lang.track();
        let cur = ui.lesson.get();
        let lesson = cur.as_ref().and_then(|(id, _)| core::find(id));
        let step = cur.as_ref().map_or(Step::Setup, |(_, s)| *s);
        let have = cx.finished.with(|f| f.as_ref().is_some_and(|f| Some(f.id) == lesson.map(|l| l.id)));
        let (key, safe_zone) = lesson_view::explained(lesson, step, have);
        if key.is_some() {
            ui.views[0].track();
            ui.views[1].track();
            ui.ab.track();
        }
        apply_highlight(key);
        if safe_zone {
            request_animation_frame(move || draw_safe_zone(cx));
        }
        if last.with_value(|prev| lesson_view::step_moved(prev.as_ref(), cur.as_ref())) {
            kit::focus_soon("[data-testid=\"lesson\"] .lesson-step");
        }
        last.set_value(cur);
    }));
    on_cleanup(|| apply_highlight(None));

    let current =
        Memo::new(move |_| ui.lesson.with(|c| c.as_ref().and_then(|(id, s)| core::find(id).map(|l| (l.id, *s)))));
    let lesson = move || current.get().and_then(|(id, s)| core::find(id).map(|l| (l, s)));
    let progress = move || {
        cx.running.get().then(|| {
            let p = Signal::derive(move || cx.panel.with(|p| p.progress.unwrap_or_default()));
            let label = Signal::derive(move || lesson_view::runs_progress(PAGE, p.get()));
            kit::progress("lesson-progress", Signal::derive(move || p.get().share), label)
        })
    };

    view! {
        <div class="lessons" data-testid="lessons">
            {move || ui.lesson.with(Option::is_none).then(move || list(cx))}
            <article
                class="lesson"
                class:hidden=move || current.with(Option::is_none)
                data-testid="lesson"
                data-lesson=text(Box::new(move || current.get().map(|(id, _)| id.to_string()).unwrap_or_default()))
                data-step=text(Box::new(move || current.get().map(|(_, s)| s.index().to_string()).unwrap_or_default()))
            >
                {move || lesson().map(|(l, step)| head(cx, l, step))}
                <div class="lesson-grid">
                    <div class="lesson-context">
                        {move || lesson().map(|(l, step)| view! {
                            // the claim is the answer in words: it comes with the outcome
                            {step.shows_claim().then(|| view! {
                                <blockquote class="lesson-claim-full" data-testid="lesson-claim">{text_of(l.id, "claim")}</blockquote>
                            })}
                            <p>{text_of(l.id, "setup")}</p>
                        })}
                    </div>
                    <div class="lesson-step" tabindex="-1">
                        <div>{move || lesson().map(|(l, step)| steps::step(cx, l, step))}</div>
                        <div>{progress}</div>
                        <p class="err" role="alert">{text(Box::new(move || cx.panel.with(|p| p.error.clone().unwrap_or_default())))}</p>
                    </div>
                </div>
            </article>
        </div>
    }
}

/// The safe-zone lesson's runs as a sweep chart, once per canvas (a rebuilt explanation brings
/// fresh canvases).
fn draw_safe_zone(cx: Ctx) {
    let Some(canvas) = document().get_element_by_id("lesson-sweep-chart-good") else { return };
    if canvas.has_attribute("data-drawn") {
        return;
    }
    let _ = canvas.set_attribute("data-drawn", "1");
    let points =
        cx.finished.with_untracked(|r| r.as_ref().map(|f| explain::safe_zone_points(&f.sums)).unwrap_or_default());
    let slo = explain::safe_zone_slo();
    let look = cx.ui.look();
    sweep_panel::draw("lesson-sweep-chart-good", "lesson-sweep-chart-ttft", SweepParam::RatePerS, &points, slo, look);
}

/// Every lesson, each with its start button.
fn list(cx: Ctx) -> AnyView {
    let cards = LESSONS
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let id = l.id;
            let title = text_of(id, "title");
            let mark = move || {
                cx.progress.with(|p| p.of(id)).map(|m| {
                    view! {
                        <span class="lesson-mark" data-testid=format!("lesson-mark-{id}") data-mark=m.id()>
                            <span aria-hidden="true">{m.glyph()}</span>" "{t(m.key())}
                        </span>
                    }
                })
            };
            view! {
                <li class="lesson-card" class:lesson-done=move || cx.progress.with(|p| p.of(id).is_some())>
                    <span class="lesson-num" aria-hidden="true">{i + 1}</span>
                    <div class="lesson-card-body">
                        <h3>{title.clone()}" "{mark}</h3>
                        // the question, not the claim: the list gives no answer away
                        <p class="small muted lesson-claim">{text_of(id, "question")}</p>
                    </div>
                    <button
                        type="button"
                        class="btn small-btn"
                        data-testid=format!("lesson-open-{id}")
                        aria-label=tf("features.lesson.start_named", &[("title", title)])
                        on:click=move |_| open(cx.ui, id)
                    >
                        {t("features.lesson.start")}
                    </button>
                </li>
            }
        })
        .collect_view();
    let closed = move || {
        let id = cx.ui.watch.with(|w| w.closed_by_preset)?;
        let reopen = cx.act(move |cx| open(cx.ui, id));
        Some(view! {
            <div class="lesson-closed" role="status" data-testid="lesson-closed">
                <p>{lesson_view::closed_note(PAGE, id)}</p>
                {kit::button("small-btn", Some("lesson-reopen"), "lessons.watch.reopen", None, reopen)}
            </div>
        })
    };
    view! {
        {kit::panel_head("lessons.title", Box::new(|| lesson_view::list_hint(PAGE)))}
        {move || {
            cx.progress.with(|p| lesson_view::progress_count(PAGE, p)).map(|n| {
                view! { <p class="small muted" data-testid="lesson-progress-count">{n}</p> }
            })
        }}
        {closed}
        <ol class="lesson-list">{cards}</ol>
    }
    .into_any()
}

/// The lesson's title, its place in the list, and the stepper.
fn head(cx: Ctx, lesson: &'static Lesson, step: Step) -> AnyView {
    let [place, step_n] = lesson_view::head_words(PAGE, lesson.id, step);
    let marks = Step::ALL
        .iter()
        .map(|s| {
            let mark = model::Mark::of(*s, step);
            view! {
                <li class=mark.class() aria-current=mark.aria_current()>
                    <span class="st-dot" aria-hidden="true">{mark.dot(*s)}</span>
                    {t(s.key())}
                </li>
            }
        })
        .collect_view();
    let all = cx.act(|cx| cx.ui.lesson.set(None));
    view! {
        <header class="lesson-head">
            <span class="small muted">{place}</span>
            <h2>{text_of(lesson.id, "title")}</h2>
            <span class="small muted" data-testid="lesson-step">{step_n}</span>
            {kit::button("small-btn lesson-all", Some("lesson-all"), "features.lesson.all", None, all)}
        </header>
        <ol class="stepper">{marks}</ol>
    }
    .into_any()
}
