//! The lesson's runs on the stage: playing them, the moments passed as callouts under each
//! stage, and what the page does around an open lesson (a preset closes it, the end explains).

use app_model::tabs::lesson::{self as model, Step, Watching};
use app_model::Run;
use lab_content::lessons::{self as core, Lesson, Moment};
use leptos::prelude::*;
use sim_core::Scenario;

use super::{load_scenarios, set_step};
use crate::i18n::{t, tf};
use crate::kit;
use crate::ui::{use_ui, Ui};
use app_model::format;

/// Plays the lesson's runs on the stage from t = 0 at the speed `w` chose, with its moments.
pub(super) fn begin_watch(ui: Ui, lesson: &'static Lesson, w: Watching) {
    load_scenarios(ui, lesson);
    ui.speed.set(w.speed);
    ui.watch.update(|s| {
        s.watching = Some(w);
        s.closed_by_preset = None;
    });
    ui.apply(true);
    ui.playing.set(true);
    if ui.embed.get_untracked() {
        request_animation_frame(stage_into_view);
    }
}

/// Embedded, the lesson's text is above the stage: when its runs start, the page scrolls to
/// the first run's key numbers and stage, so what the lesson asks to watch is in the frame.
fn stage_into_view() {
    let doc = web_sys::window().and_then(|w| w.document());
    if let Some(el) = doc.and_then(|d| d.query_selector("main.lab .stage-col").ok().flatten()) {
        el.scroll_into_view_with_bool(true);
    }
}

/// The explanation: playback is skipped (the stage runs to its end) and the text shows.
pub(super) fn skip_to_explanation(ui: Ui) {
    if !ui.finished() {
        ui.fast_forward.set(true);
    }
    set_step(ui, Step::Explain);
}

/// The stage shows the open lesson's runs (tracked): when not, the lesson pauses and its
/// callouts hide, so no text points at runs that are not there.
pub(super) fn stage_matches(ui: Ui) -> bool {
    let Some(lesson) = ui.lesson.with(|l| l.as_ref().and_then(|(id, _)| core::find(id))) else { return true };
    let seed = ui.drafts[0].with(|s| s.seed);
    let n = if ui.ab.get() { 2 } else { 1 };
    let on: Vec<Scenario> =
        (0..n).filter_map(|i| ui.infos[i].with(|x| x.as_ref().map(|x| x.scenario.clone()))).collect();
    model::stage_shows(&on, &model::stage_scenarios(lesson, seed))
}

/// The open lesson's watching on the page's seed, in a step that shows it (tracked).
pub(super) fn shown_watch<T>(ui: Ui, f: impl FnOnce(&Watching) -> T) -> Option<T> {
    let seed = ui.drafts[0].with(|s| s.seed);
    ui.lesson.with(|l| ui.watch.with(|w| w.shown(l.as_ref().map(|(id, s)| (id.as_str(), *s)), seed).map(f)))
}

/// What the page does around an open lesson wherever the learner is: choosing a preset closes
/// it (and says so in the lessons tab); playback reaching the end shows the explanation; a
/// closed or other lesson drops the watched runs' moments. Call once at mount.
pub fn follow_stage(ui: Ui) {
    let seen = StoredValue::new(ui.preset_choices.get_untracked());
    kit::effect(Box::new(move || {
        let n = ui.preset_choices.get();
        if n == seen.get_value() {
            return;
        }
        seen.set_value(n);
        let open = ui.lesson.get_untracked().map(|(id, _)| id);
        if ui.watch.try_update(|w| w.preset_chosen(open.as_deref())).unwrap_or(false) {
            ui.lesson.set(None);
        }
    }));
    kit::effect(Box::new(move || {
        let open = ui.lesson.get();
        let stale =
            ui.watch.with(|w| w.watching.as_ref().is_some_and(|w| open.as_ref().is_none_or(|(id, _)| id != w.id)));
        if stale {
            ui.watch.update(|w| w.watching = None);
            return;
        }
        let watching = matches!(&open, Some((_, Step::Run))) && shown_watch(ui, |_| ()).is_some();
        if watching && ui.finished() && stage_matches(ui) {
            set_step(ui, Step::Explain);
        }
    }));
}

/// Words of a moment, with its value.
pub(super) fn moment_text(m: &Moment) -> String {
    let (key, value) = app_model::tabs::lesson_view::moment_words(m);
    tf(&key, &[("value", value)])
}

/// The moments of one stage run playback has passed, pinned under that run's stage.
#[component]
pub fn StageCallouts(run: Run) -> impl IntoView {
    let ui = use_ui();
    let passed = Memo::new(move |_| {
        let now = ui.views[run.index()].with(|v| v.as_ref().map(|v| v.now_s))?;
        if !stage_matches(ui) {
            return None;
        }
        let list: Vec<Moment> = shown_watch(ui, |w| w.passed(run.index(), now).cloned().collect())?;
        (!list.is_empty()).then_some(list)
    });
    move || {
        passed.get().map(|list| {
            let last = list.len() - 1;
            let items = list
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    view! {
                        <li class="callout" class:callout-new=i == last data-kind=m.kind.name()>
                            <span class="callout-time">{format::sim_time(m.at_us as f64 / 1e6)}</span>
                            " "{moment_text(m)}
                        </li>
                    }
                })
                .collect_view();
            view! {
                <ol class="callouts" data-testid="lesson-callouts" aria-live="polite" aria-label=t("lessons.watch.callouts")>
                    {items}
                </ol>
            }
        })
    }
}
