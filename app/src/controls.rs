//! The scenario editor: every sim-core strategy and setting, grouped as a learner thinks of them.
//!
//! The controls are rows of `app_model::controls::CONTROLS` (id, translation keys, unit, range,
//! section, when it applies); [`crate::control_field::ControlField`] binds one row to a run's draft through the shared
//! field widgets of [`crate::field`]. Sliders clamp to a sensible range; the number box accepts
//! any value and shows sim-core's validation message for that field (`ScenarioError::for_field`).
//!
//! A control whose scenario path is locked (`Ui::locked`, set by a teacher's link or an
//! exercise; `app_model::locks`) is disabled and shows a lock.

use app_model::controls::{Section, GROUPS};
use app_model::panels::sections;
use app_model::{scenario_edit, Run};
use leptos::prelude::*;
use sim_core::presets::PRESETS;
use sim_core::Scenario;

use crate::class_card::ClassCard;
use crate::control_field::{locked_at, section_view};
use crate::field::lock_badge;
use crate::i18n::{t, tf, tx, PAGE};
use crate::presets::preset_summary;
use crate::ui::use_ui;

/// The controls of the draft being edited.
#[component]
pub fn Controls() -> impl IntoView {
    let ui = use_ui();
    move || {
        let run = ui.edited();
        view! { <Editor run=run/> }
    }
}

/// A note under a group's fields: a text that follows the draft.
fn note(class: &'static str, text: impl Fn() -> String + Send + Sync + 'static) -> impl IntoView {
    view! { <p class=class>{text}</p> }
}

#[component]
fn Editor(run: Run) -> impl IntoView {
    let ui = use_ui();
    let draft = ui.drafts[run.index()];
    let classes = Memo::new(move |_| draft.with(|s| s.classes.len()));
    let classes_locked = Memo::new(move |_| locked_at(ui, "classes"));
    let group = move |(heading, sections): (&'static str, &'static [Section])| {
        let body = sections
            .iter()
            .map(|&sec| {
                let extra = match sec {
                    Section::Arrivals => Some(
                        view! {
                            {move || (0..classes.get()).map(|i| view! { <ClassCard run=run i=i/> }).collect_view()}
                            <button
                                class="btn small-btn"
                                data-testid="add-class"
                                disabled=move || { classes.get() >= scenario_edit::MAX_CLASSES || classes_locked.get() }
                                title=move || if classes_locked.get() { t("ctl.locked") } else { String::new() }
                                on:click=move |_| draft.update(scenario_edit::add_class)
                            >{tx("ctl.add_class")}</button>
                        }
                        .into_any(),
                    ),
                    Section::Batching => Some(
                        view! {
                            {section_view(run, sec, 0, None)}
                            {note_isolation(classes)}
                        }
                        .into_any(),
                    ),
                    Section::KvLayout => Some(
                        view! {
                            {section_view(run, sec, 0, None)}
                            {note("small muted field-note", move || draft.with(max_context_note))}
                        }
                        .into_any(),
                    ),
                    // shown inside each class's card
                    s if s.per_class() => None,
                    _ => Some(section_view(run, sec, 0, None).into_any()),
                };
                extra.unwrap_or_else(|| ().into_any())
            })
            .collect_view();
        view! {
            <details class="group" open>
                <summary>{tx(heading)}</summary>
                {body}
            </details>
        }
    };
    view! {
        <div class="editor" data-testid=format!("editor-{}", run.slug())>
            <PresetPicker run=run/>
            {GROUPS.into_iter().map(group).collect_view()}
        </div>
    }
}

fn note_isolation(classes: Memo<usize>) -> impl IntoView {
    view! { <p class="small muted" class:hidden=move || { classes.get() > 1 }>{tx("ctl.isolation.note")}</p> }
}

/// "Llama 3 8B has a context of 8,192 tokens" under the context-length control.
fn max_context_note(s: &Scenario) -> String {
    app_model::editor::max_context(s).map(|a| tf("ctl.max_context_note", &a)).unwrap_or_default()
}

/// The scenario heading and the preset drop-down with its one-line summary.
#[component]
fn PresetPicker(run: Run) -> impl IntoView {
    let ui = use_ui();
    let preset_id = ui.presets[run.index()];
    // edited: changed since it was loaded (a lesson's run or a link is not an edit)
    let edited = Memo::new(move |_| ui.changed_since_load(run));
    let preset_opts = PRESETS
        .iter()
        .map(|p| {
            let id = p.id;
            // the preset's name in the page's language (its id when the table has none)
            let key = format!("preset.{id}.name");
            let name = move || if crate::i18n::has(&key) { t(&key) } else { id.to_string() };
            view! { <option value=id prop:selected=move || ui.exercise.with(Option::is_none) && ui.lesson.with(Option::is_none) && preset_id.get() == id>{name}</option> }
        })
        .collect_view();
    let summary = move || {
        let open = ui.exercise.with(Option::is_some) || ui.lesson.with(Option::is_some);
        app_model::editor::preset_line(PAGE, preset_summary(&preset_id.get()), edited.get(), open)
    };
    // loading a preset would change every control: any lock forbids it
    let presets_locked = Memo::new(move |_| ui.locked.with(|l| !l.is_empty()));
    let heading = move || sections::run_heading(PAGE, "ctl.scenario", "ctl.scenario_ab", run, ui.ab.get());
    view! {
        <section class="group">
            <h2>{heading}</h2>
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
                    {move || {
                        crate::exercises::preset_name(ui)
                            .map(|n| view! { <option value="" selected disabled data-testid="preset-exercise">{n}</option> })
                    }}
                    {preset_opts}
                </select>
                <p class="small muted" data-testid="preset-summary">{summary}</p>
            </div>
            <p class="rule small">{tx("ctl.rule")}</p>
        </section>
    }
}
