//! The content of each step of a lesson: the note after set-up, the question and its choices,
//! the run, the explanation with the runs' numbers, and what to try next.

use app_model::tabs::explain;
use lab_content::lessons::Lesson;
use lab_content::sweep::SweepParam;
use leptos::prelude::*;

use super::{
    load_scenarios, moment_text, open, set_step, shown_watch, skip_to_explanation, text_of, Ctx, HIGHLIGHT_CLASS,
};
use crate::i18n::{self, t, tf, PAGE};
use crate::kit::{self, actions, button};
use crate::sweep_panel;
use app_model::format;
use app_model::tabs::lesson::{self as model, Finished, Step, Watching};
use app_model::tabs::lesson_view::{self, StepShows};

fn choice_text(id: &str, i: usize) -> String {
    text_of(id, &format!("choice.{i}"))
}

/// A button that moves to `step`.
fn go(cx: Ctx, class: &'static str, testid: Option<&'static str>, label: &'static str, step: Step) -> AnyView {
    button(class, testid, label, None, cx.act(move |cx| set_step(cx.ui, step)))
}

fn reload(cx: Ctx, lesson: &'static Lesson, testid: Option<&'static str>) -> AnyView {
    button("", testid, "features.lesson.reload", None, cx.act(move |cx| load_scenarios(cx.ui, lesson)))
}

/// The step's content.
pub(super) fn step(cx: Ctx, lesson: &'static Lesson, step: Step) -> AnyView {
    let id = lesson.id;
    match step {
        Step::Setup => {
            let (note, more) = lesson_view::setup_note(lesson, super::page_seed(cx.ui));
            let more = more.map(|(n, k)| {
                let n = [("n", n.to_string()), ("k", k.to_string())];
                view! { <p class="small muted">{tf("lessons.watch.more_runs", &n)}</p> }
            });
            view! {
                <p class="lesson-note">{t(note)}</p>
                {more}
                {actions(vec![
                    go(cx, "primary", Some("lesson-next"), "lessons.next", Step::Predict),
                    reload(cx, lesson, Some("lesson-reload")),
                ])}
            }
            .into_any()
        }
        Step::Predict => {
            let choices = (0..lesson.choices)
                .map(|i| {
                    let on = move || cx.prediction.get() == Some(i);
                    view! {
                        <button
                            type="button"
                            class="choice"
                            class:active=on
                            aria-pressed=move || on().to_string()
                            data-testid=format!("lesson-choice-{i}")
                            on:click=move |_| cx.panel.update(|p| p.choose(i))
                        >
                            <span class="choice-mark" aria-hidden="true">{move || if on() { "●" } else { "○" }}</span>
                            {choice_text(id, i)}
                        </button>
                    }
                })
                .collect_view();
            let run = cx.act(move |cx| {
                if cx.panel.with_untracked(|p| p.can_run()) {
                    cx.panel.update(|p| p.result = None);
                    set_step(cx.ui, Step::Run);
                }
            });
            let blocked = Signal::derive(move || cx.prediction.get().is_none());
            view! {
                <h3>{t("lessons.predict")}</h3>
                <p class="lesson-question">{text_of(id, "question")}</p>
                <div class="choices" role="group" aria-label=t("lessons.predict")>{choices}</div>
                <p class="small muted">{t("features.lesson.commit_first")}</p>
                {actions(vec![
                    button("primary", Some("lesson-run"), "lessons.run", Some(blocked), run),
                    go(cx, "", None, "lessons.prev", Step::Setup),
                ])}
            }
            .into_any()
        }
        // the stage (and the watch) are read only when they decide: a view reruns on what it reads
        Step::Run => (move || {
            let finished = cx.finished.with(Option::is_some);
            match StepShows::run_step(finished, !finished || cx.stage_ok.get()) {
                StepShows::Paused => paused(cx, lesson),
                _ => watch(cx, lesson),
            }
        })
        .into_any(),
        Step::Explain => (move || {
            let finished = cx.finished.get();
            let stage_ok = finished.is_none() || cx.stage_ok.get();
            let watched = !stage_ok && shown_watch(cx.ui, |_| ()).is_some();
            match (StepShows::explain_step(finished.is_some(), stage_ok, watched), finished) {
                (StepShows::Paused, _) => paused(cx, lesson),
                (StepShows::Explain, Some(fin)) => explain(cx, lesson, fin),
                _ => view! { <h3>{t("lessons.running")}</h3> }.into_any(),
            }
        })
        .into_any(),
        Step::Play => {
            let mut buttons = Vec::new();
            if let Some(n) = model::next(id) {
                let next = cx.act(move |cx| open(cx.ui, n.id));
                buttons.push(button("primary", Some("lesson-next-lesson"), "features.lesson.next_lesson", None, next));
            }
            buttons.push(go(cx, "", None, "lessons.prev", Step::Explain));
            buttons.push(reload(cx, lesson, None));
            view! {
                <h3>{t("features.lesson.try")}</h3>
                <p class="lesson-try" data-testid="lesson-try">{text_of(id, "try")}</p>
                <p class="small muted">{t("features.lesson.play_note")}</p>
                {actions(buttons)}
            }
            .into_any()
        }
    }
}

/// The run step: the runs are computed, then play on the stage at a watchable speed with the
/// moments to notice; the explanation follows at the end, or at once on "skip".
fn watch(cx: Ctx, lesson: &'static Lesson) -> AnyView {
    let id = lesson.id;
    let cancel = cx.act(|cx| {
        cx.cancel();
        set_step(cx.ui, Step::Predict);
    });
    let yours =
        move || cx.prediction.get().map(|p| choice_text(id, p)).unwrap_or_else(|| t("features.lesson.no_prediction"));
    let playing = Memo::new(move |_| shown_watch(cx.ui, Watching::clone));
    let body = move || {
        let w = playing.get()?;
        let (runs, longest) = (w.durations_s.len(), w.longest_s());
        let note = tf("lessons.watch.note", &[("speed", format::speed(w.speed)), ("seconds", w.wall_s().to_string())]);
        let now = Signal::derive(move || {
            (0..runs).filter_map(|i| cx.ui.views[i].with(|v| v.as_ref().map(|v| v.now_s))).fold(0.0, f64::max)
        });
        let share = Signal::derive(move || playing.with(|w| w.as_ref().map_or(1.0, |w| w.share(now.get()))));
        let label = Signal::derive(move || {
            tf("lessons.watch.progress", &[("now", format::sim_time(now.get())), ("total", format::sim_time(longest))])
        });
        let count = Signal::derive(move || {
            let now = now.get();
            shown_watch(cx.ui, |w| w.noticed(now)).unwrap_or(0)
        });
        Some(view! {
            <p class="small lesson-watch-note">{note}</p>
            {kit::progress("lesson-watch-progress", share, label)}
            <p class="small muted" data-testid="lesson-watch-count">
                {move || tf("lessons.watch.noticed", &[("n", count.get().to_string())])}
            </p>
        })
    };
    let skip = cx.act(|cx| skip_to_explanation(cx.ui));
    let computing = move || playing.with(Option::is_none);
    view! {
        <h3>{move || if computing() { t("lessons.running") } else { t("lessons.watch.title") }}</h3>
        <p class="lesson-question">{text_of(id, "question")}</p>
        <p class="small"><b>{t("lessons.your_prediction")}</b>": "{yours}</p>
        {body}
        {move || {
            let mut b = Vec::new();
            if !computing() {
                b.push(button("primary", Some("lesson-skip"), "lessons.watch.skip", None, skip));
            }
            b.push(button("", Some("lesson-cancel"), "lessons.cancel", None, cancel));
            actions(b)
        }}
    }
    .into_any()
}

/// The stage no longer shows the lesson's runs: the lesson waits, its text hidden, until the runs
/// are put back or the lesson is closed.
fn paused(cx: Ctx, lesson: &'static Lesson) -> AnyView {
    let back = cx.act(move |cx| cx.replay(lesson));
    let close = cx.act(|cx| cx.ui.lesson.set(None));
    view! {
        <div class="lesson-paused" role="status" data-testid="lesson-paused">
            <h3>{t("lessons.watch.paused_title")}</h3>
            <p>{t("lessons.watch.paused")}</p>
        </div>
        {actions(vec![
            button("primary", Some("lesson-restore"), "lessons.watch.restore", None, back),
            button("", Some("lesson-close"), "lessons.watch.close", None, close),
        ])}
    }
    .into_any()
}

/// Every moment of the watched runs, in order, as the stage's callouts said them.
fn moments_list(cx: Ctx) -> impl IntoView {
    move || {
        let two = cx.ui.ab.get();
        shown_watch(cx.ui, |w| {
            let items = w
                .moments
                .iter()
                .map(|m| {
                    let when = w.moment_when(m, two, format::sim_time(m.at_us as f64 / 1e6));
                    view! { <li data-kind=m.kind.name()><span class="callout-time">{when}</span>" "{moment_text(m)}</li> }
                })
                .collect_view();
            let empty = w.moments.is_empty().then(|| view! { <p class="small muted">{t("lessons.watch.none")}</p> });
            view! {
                <div class="lesson-moments" data-testid="lesson-moments">
                    <h4>{t("lessons.watch.moments")}</h4>
                    <ol class="callouts">{items}</ol>
                    {empty}
                </div>
            }
        })
    }
}

fn explain(cx: Ctx, lesson: &'static Lesson, fin: Finished) -> AnyView {
    let id = lesson.id;
    let answer = fin.outcome.answer;
    let fb = fin.feedback();
    let predicted = fin.predicted;
    let outcome = fin.outcome.clone();
    let numbers = if id == "safe-zone" {
        view! { <div class="sweep-charts">{sweep_panel::charts("lesson-sweep", Signal::stored(SweepParam::RatePerS))}</div> }
            .into_any()
    } else {
        runs_table(lesson, &fin)
    };
    let show = cx.act(|_| kit::scroll_to(&format!(".{HIGHLIGHT_CLASS}")));
    let again = cx.act(|cx| {
        cx.panel.update(|p| p.again());
        set_step(cx.ui, Step::Predict);
    });
    view! {
        <div class=format!("lesson-feedback {}", fb.class()) data-testid="lesson-feedback" data-correct=fb.correct()>
            <span class="fb-icon" aria-hidden="true">{fb.icon()}</span>
            <p>{t(fb.key())}</p>
        </div>
        <dl class="lesson-answers small">
            <div>
                <dt>{t("lessons.your_prediction")}</dt>
                <dd>{predicted.map(|p| choice_text(id, p)).unwrap_or_else(|| format::NONE.to_string())}</dd>
            </div>
            <div>
                <dt>{t("lessons.outcome")}</dt>
                <dd data-testid="lesson-answer" data-answer=answer.to_string()>{choice_text(id, answer)}</dd>
            </div>
        </dl>
        {predicted.map(|p| {
            let key = format!("lesson.{id}.feedback.{p}");
            i18n::has(&key).then(|| view! { <p class="lesson-why small" data-testid="lesson-why">{t(&key)}</p> })
        })}
        <p class="lesson-explanation" data-testid="lesson-explanation">{explain::explanation(PAGE, id, &outcome)}</p>
        {moments_list(cx)}
        <div class="lesson-look">
            <span class="look-icon" aria-hidden="true">"◎"</span>
            <p><b>{t("features.lesson.where")}</b>" "{text_of(id, "highlight")}</p>
            {button("small-btn", Some("lesson-show"), "features.lesson.show", None, show)}
        </div>
        {numbers}
        {actions(vec![
            go(cx, "primary", Some("lesson-play"), "lessons.play_freely", Step::Play),
            button("", Some("lesson-again"), "features.lesson.again", None, again),
            button("", Some("lesson-replay"), "lessons.watch.replay", None, cx.act(move |cx| cx.replay(lesson))),
        ])}
    }
    .into_any()
}

/// The runs' numbers (`explain::runs_table`): the focus class's rows first, then every run's.
fn runs_table(lesson: &'static Lesson, fin: &Finished) -> AnyView {
    let (heads, rows) = explain::runs_table(PAGE, lesson, &fin.variants, &fin.sums);
    let body = rows
        .into_iter()
        .map(|r| {
            let row = view! { <th scope="row">{r.label}</th>{kit::num_cells(r.cells)} };
            match r.class {
                Some(class) => {
                    view! { <tr class="class-row" class:hl-row=r.highlighted data-class=class>{row}</tr> }.into_any()
                }
                None => view! { <tr class:hl-row=r.highlighted>{row}</tr> }.into_any(),
            }
        })
        .collect_view()
        .into_any();
    kit::table("runs-table", Some("lesson-runs"), t("features.lesson.runs_caption"), kit::heads(heads), body)
}
