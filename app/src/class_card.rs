//! One traffic class in the editor: its glyph and name, then its arrivals, request count, prompt
//! and output lengths, SLOs and (under isolation) priority and reserved share — the class
//! sections of the control table.

use app_model::controls::Section;
use app_model::{scenario_edit, Run};
use leptos::prelude::*;

use crate::control_field::{field_error, locked_at, section_view};
use crate::i18n::{t, tx};
use crate::ui::use_ui;
use lab_canvas::glyph;

/// Class `i` of the draft of `run`.
#[component]
pub fn ClassCard(run: Run, i: usize) -> impl IntoView {
    let ui = use_ui();
    let draft = ui.drafts[run.index()];
    let name = Memo::new(move |_| draft.with(|s| s.classes.get(i).map(|c| c.name.clone()).unwrap_or_default()));
    let count = Memo::new(move |_| draft.with(|s| s.classes.len()));
    let name_path = format!("classes[{i}].name");
    let name_err = field_error(ui, run, name_path.clone());
    let name_lock = name_path.clone();
    let name_locked = Memo::new(move |_| locked_at(ui, &name_lock));
    let classes_locked = Memo::new(move |_| locked_at(ui, "classes"));
    view! {
        <fieldset class="class-card" data-testid=format!("class-{i}")>
            <legend>
                {crate::icon::class_glyph(i)}
                <span class="sr-only">{move || format!("{} ", t(glyph::shape_name(i)))}</span>
                <input
                    type="text"
                    class="class-name"
                    aria-label=tx("setting.class_name.label")
                    data-testid=format!("field-{name_path}")
                    disabled=move || name_locked.get()
                    prop:value=move || name.get()
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        draft.update(|s| scenario_edit::rename_class(s, i, v));
                    }
                />
                <button
                    class="icon-btn"
                    title=tx("ctl.remove_class")
                    aria-label=tx("ctl.remove_class")
                    disabled=move || classes_locked.get()
                    class:hidden=move || count.get() <= 1
                    on:click=move |_| draft.update(|s| scenario_edit::remove_class(s, i))
                >"✕"</button>
            </legend>
            <p class="err" role="alert">{move || name_err.get()}</p>
            {section_view(run, Section::Arrivals, i, None)}
            {section_view(run, Section::Requests, i, None)}
            {section_view(run, Section::InputLength, i, Some("lengths"))}
            {section_view(run, Section::OutputLength, i, Some("lengths"))}
            <div class="slos">{section_view(run, Section::Slo, i, None)}</div>
            {section_view(run, Section::Isolation, i, None)}
        </fieldset>
    }
}
