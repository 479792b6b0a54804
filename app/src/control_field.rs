//! One control of the editor's table bound to a run's draft ([`ControlField`], through the shared
//! widgets of [`crate::field`]), a section of them ([`section_view`]), the memory fix offered
//! under a setting, and what a field frame reads of the page: sim-core's message at a path
//! (`ScenarioError::for_field`), the draft's class names, whether a path is locked. The editor
//! ([`crate::controls`]) and a traffic class's card ([`crate::class_card`]) are built of these.

use std::sync::Arc;

use app_model::controls::{in_section, Control, Kind, Options, Section};
use app_model::words::Said;
use app_model::{editor, locks, messages, Run};
use leptos::prelude::*;

use crate::field::{FieldFrame, NumberField, OptText, SelectField, ToggleField};
use crate::i18n::{msg, PAGE};
use crate::ui::{use_ui, Ui};

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

/// A drop-down's options (`app_model::editor::options`), their texts in the page's language.
fn options_of(options: Options) -> Vec<(String, OptText)> {
    let text = |said: Said| -> OptText { Arc::new(move || said.words(PAGE)) };
    editor::options(options).into_iter().map(|(value, said)| (value, text(said))).collect()
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
    let address = crate::address::use_address();
    let fields = move || {
        in_section(section)
            .filter(|ctl| address.with(|q| q.shows_control(ctl.id)))
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
                    in_section(section).any(|c| address.with(|q| q.shows_control(c.id)) && c.applies_to(s, class))
                })
            });
            (move || any.get().then(|| view! { <div class=wrap>{fields()}</div> })).into_any()
        }
    }
}

/// Under a memory setting, while the draft does not fit: the smallest value of this setting that
/// fits (sim-core's `memory::fixes`, found with its own fit check), with a button that sets it.
fn fix_hint(run: Run, ctl: &'static Control) -> Option<impl IntoView> {
    editor::FIXABLE.contains(&ctl.setting).then(|| {
        let ui = use_ui();
        let draft = ui.drafts[run.index()];
        let fix = Memo::new(move |_| {
            // only a draft that cannot run is searched
            ui.errors[run.index()].with(|e| e.is_some()).then(|| draft.with(|s| editor::fix_under(s, ctl.setting)))?
        });
        move || {
            fix.get().map(|f| {
                let (sentence, button) = editor::fix_words(PAGE, &f);
                let value = f.value.clone();
                view! {
                    <p class="fix small" role="status" data-testid=format!("fix-{}", ctl.id)>
                        {sentence} " "
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
                        >{button}</button>
                    </p>
                }
            })
        }
    })
}
