//! The scenario editor: every sim-core strategy and setting, grouped as a learner thinks of them.
//!
//! The controls are rows of `app_model::controls::CONTROLS` (id, translation keys, unit, range,
//! section, when it applies); [`ControlField`] binds one row to a run's draft through the shared
//! field widgets of [`crate::field`]. Sliders clamp to a sensible range; the number box accepts
//! any value and shows sim-core's validation message for that field (`ScenarioError::for_field`).
//!
//! A control whose scenario path is locked (`Ui::locked`, set by a teacher's link or an
//! exercise; `app_model::locks`) is disabled and shows a lock.

use std::sync::Arc;

use app_model::controls::{in_section, Control, Kind, Options, Section, GROUPS};
use app_model::{locks, messages, scenario_edit, Run};
use leptos::prelude::*;
use sim_core::catalog;
use sim_core::presets::PRESETS;
use sim_core::profile::Engine;
use sim_core::workload::BUILTIN_TRACES;
use sim_core::Scenario;

use crate::class_card::ClassCard;
use crate::field::{
    keyed_options, lock_badge, verbatim_options, FieldFrame, NumberField, OptText, SelectField, ToggleField,
};
use crate::format;
use crate::i18n::{msg, t, tf, tx};
use crate::ui::{use_ui, Ui};

pub use app_model::locks::covers as lock_covers;

/// sim-core's problem at `path`, if the draft is invalid there, in the page's language and
/// naming the setting by its label (`app_model::messages`).
pub fn field_error(ui: Ui, run: Run, path: String) -> Memo<Option<String>> {
    Memo::new(move |_| {
        let found = ui.errors[run.index()].with(|e| e.as_ref().and_then(|e| e.for_field(&path)).cloned())?;
        Some(msg(&messages::field_message(&found, &class_names(ui, run))))
    })
}

/// The names of the draft's classes (a message names a class's setting with its class).
pub fn class_names(ui: Ui, run: Run) -> Vec<String> {
    ui.drafts[run.index()].with(|s| s.classes.iter().map(|c| c.name.clone()).collect())
}

/// Whether the control at `path` is locked (by a teacher's link or an exercise).
pub fn locked_at(ui: Ui, path: &str) -> bool {
    ui.locked.with(|l| locks::any_covers(l, path))
}

/// The field frame of the control at `path` of run `run`: its error and lock follow the page.
pub fn frame_at(ui: Ui, run: Run, label: &'static str, def: &'static str, path: String) -> FieldFrame {
    let lock_path = path.clone();
    FieldFrame {
        label,
        def,
        error: field_error(ui, run, path.clone()).into(),
        locked: Memo::new(move |_| locked_at(ui, &lock_path)).into(),
        name: path,
    }
}

/// The texts of a drop-down's options.
fn options_of(options: Options) -> Vec<(String, OptText)> {
    match options {
        Options::Keys(list) => keyed_options(list),
        Options::DraftModels => {
            let mut all = keyed_options(&[("", "ctl.draft_model.head")]);
            all.extend(options_of(Options::Models));
            all
        }
        Options::Models => catalog::models()
            .into_iter()
            .map(|m| {
                let name = m.name.clone();
                let params = format::plain((m.params_total / 1e8).round() / 10.0);
                let kv = m.num_kv_heads.to_string();
                let text: OptText = Arc::new(move || {
                    tf(
                        "ctl.model.option",
                        &[("name", name.clone()), ("params", params.clone()), ("kv_heads", kv.clone())],
                    )
                });
                (m.id, text)
            })
            .collect(),
        Options::Gpus => catalog::gpus()
            .into_iter()
            .map(|g| {
                let label = format!("{} · {}", g.name, format::usd(g.usd_per_hour));
                let text: OptText = Arc::new(move || label.clone());
                (g.id, text)
            })
            .collect(),
        Options::Traces => verbatim_options(BUILTIN_TRACES.iter().map(|(n, _)| n.to_string())),
        Options::Engines => Engine::ALL
            .iter()
            .map(|e| {
                let label = e.label();
                let text: OptText = Arc::new(move || label.to_string());
                (e.name().to_string(), text)
            })
            .collect(),
    }
}

/// One control of the table bound to the draft of `run` (class `class` for class settings).
#[component]
pub fn ControlField(run: Run, ctl: &'static Control, #[prop(default = 0)] class: usize) -> impl IntoView {
    let ui = use_ui();
    let draft = ui.drafts[run.index()];
    let frame = frame_at(ui, run, ctl.label, ctl.def, ctl.path(class));
    match (ctl.kind, ctl.range()) {
        (Kind::Number, Some(range)) => {
            let value = Memo::new(move |_| draft.with(|s| ctl.number(s, class)));
            let max = Memo::new(move |_| draft.with(|s| range.max_for(s)));
            let allowed = Memo::new(move |_| draft.with(|s| ctl.allowed(s, class)));
            let on_change = Callback::new(move |v| draft.update(|s| ctl.set_number(s, class, v)));
            view! {
                <NumberField frame=frame unit=ctl.unit range=range value=value max=max allowed=allowed on_change=on_change/>
            }
            .into_any()
        }
        (Kind::Select(options), _) => {
            let value = Memo::new(move |_| draft.with(|s| ctl.choice(s, class)));
            let on_change = Callback::new(move |v: String| draft.update(|s| ctl.set_choice(s, class, &v)));
            view! { <SelectField frame=frame options=options_of(options) value=value on_change=on_change/> }.into_any()
        }
        (Kind::Toggle, _) => {
            let checked = Memo::new(move |_| draft.with(|s| ctl.checked(s)));
            let on_change = Callback::new(move |v| draft.update(|s| ctl.set_checked(s, v)));
            view! { <ToggleField frame=frame checked=checked on_change=on_change/> }.into_any()
        }
        // a number control whose setting has no number row: the consistency test forbids it
        (Kind::Number, None) => ().into_any(),
    }
}

/// The controls of `section` for the draft of `run` (class `class`), each shown while it
/// applies; inside an element of class `wrap` when given, while any of them applies. A field is
/// built once and kept while it applies (a drag keeps its slider, a choice keeps the focus).
pub fn section_view(run: Run, section: Section, class: usize, wrap: Option<&'static str>) -> impl IntoView {
    let draft = use_ui().drafts[run.index()];
    let fields = move || {
        in_section(section)
            .filter(|ctl| crate::share::query().shows_control(ctl.id))
            .map(|ctl| {
                let applies = Memo::new(move |_| draft.with(|s| ctl.applies_to(s, class)));
                move || {
                    applies.get().then(|| view! { <ControlField run=run ctl=ctl class=class/> {fix_hint(run, ctl)} })
                }
            })
            .collect_view()
    };
    match wrap {
        None => fields().into_any(),
        Some(wrap) => {
            let any = Memo::new(move |_| {
                draft.with(|s| {
                    in_section(section).any(|c| crate::share::query().shows_control(c.id) && c.applies_to(s, class))
                })
            });
            (move || any.get().then(|| view! { <div class=wrap>{fields()}</div> })).into_any()
        }
    }
}

/// The settings sim-core can suggest a value for when the draft does not fit in memory.
const FIXABLE: [&str; 4] = ["num_gpus", "dtype", "gpu_memory_utilization", "max_model_len"];

/// Under a memory setting, while the draft does not fit: the smallest value of this setting that
/// fits (sim-core's `memory::fixes`, found with its own fit check), with a button that sets it.
fn fix_hint(run: Run, ctl: &'static Control) -> Option<impl IntoView> {
    FIXABLE.contains(&ctl.setting).then(|| {
        let ui = use_ui();
        let draft = ui.drafts[run.index()];
        let fix = Memo::new(move |_| {
            // only a draft that cannot run is searched
            ui.errors[run.index()]
                .with(|e| e.is_some())
                .then(|| draft.with(|s| sim_core::memory::fixes(s).into_iter().find(|f| f.setting == ctl.setting)))?
        });
        move || {
            fix.get().map(|f| {
                // as the control shows it: "fp8 (1 byte)", "0.22"
                let shown = match messages::value_arg(ctl.setting, &f.value) {
                    messages::Arg::Key(k) => t(k),
                    messages::Arg::Text(s) => s,
                    _ => String::new(),
                };
                let key = match f.bound {
                    _ if ctl.setting == "num_gpus" => "ctl.fix_gpus",
                    sim_core::memory::Bound::AtLeast => "ctl.fix_at_least",
                    sim_core::memory::Bound::AtMost => "ctl.fix_at_most",
                    sim_core::memory::Bound::Exactly => "ctl.fix_exactly",
                };
                let value = f.value.clone();
                view! {
                    <p class="fix small" role="status" data-testid=format!("fix-{}", ctl.id)>
                        {tf(key, &[("value", shown.clone())])} " "
                        <button
                            class="btn small-btn"
                            data-testid=format!("apply-fix-{}", ctl.id)
                            on:click=move |_| {
                                let v = value.clone();
                                draft.update(|s| {
                                    if let Some(row) = sim_core::settings::find(ctl.setting) {
                                        let _ = row.set(s, 0, &v);
                                    }
                                });
                            }
                        >{tf("ctl.fix_use", &[("value", shown)])}</button>
                    </p>
                }
            })
        }
    })
}

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
                    s if s_is_class(s) => None,
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

fn s_is_class(s: Section) -> bool {
    matches!(s, Section::Requests | Section::InputLength | Section::OutputLength | Section::Slo | Section::Isolation)
}

fn note_isolation(classes: Memo<usize>) -> impl IntoView {
    view! { <p class="small muted" class:hidden=move || { classes.get() > 1 }>{tx("ctl.isolation.note")}</p> }
}

/// "Llama 3 8B has a context of 8,192 tokens" under the context-length control.
fn max_context_note(s: &Scenario) -> String {
    s.model_spec()
        .ok()
        .map(|m| {
            let model = if m.name.is_empty() { m.id.clone() } else { m.name.clone() };
            tf("ctl.max_context_note", &[("model", model), ("tokens", format::int(u64::from(m.max_context)))])
        })
        .unwrap_or_default()
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
        if ui.exercise.with(Option::is_some) || ui.lesson.with(Option::is_some) {
            return String::new();
        }
        let s = preset_summary(&preset_id.get());
        match (edited.get(), s.is_empty()) {
            (true, false) => tf("ctl.edited", &[("summary", s)]),
            // a scenario a lesson or a link brought, no preset's: "edited" alone
            (true, true) => t("ctl.edited_alone"),
            (false, _) => s,
        }
    };
    // loading a preset would change every control: any lock forbids it
    let presets_locked = Memo::new(move |_| ui.locked.with(|l| !l.is_empty()));
    let heading = move || {
        if ui.ab.get() {
            tf("ctl.scenario_ab", &[("run", run.label().to_string())])
        } else {
            t("ctl.scenario")
        }
    };
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
