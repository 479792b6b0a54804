//! The form field widgets every form of the page uses: [`NumberField`] (a slider and a number
//! box, optionally switched off), [`SelectField`] and [`ToggleField`]. They know nothing of
//! scenarios: they show a value, an error, a lock, and report what the learner picked. Their
//! test ids are `field-{name}`, `slider-{name}`, `toggle-{name}` and `error-{name}`.
//!
//! The slider maths and the reading of typed text are `app_model::controls::Range`'s.

use std::sync::Arc;

use app_model::controls::{element_id, Range, TypedError};
use app_model::messages::{typed_message, Arg};
use leptos::prelude::*;
use sim_core::decimal::parse_f64;

use crate::defs::Term;
use crate::i18n::{msg, t, tf, tx};
use app_model::format;

/// Text of a drop-down option, computed in the current language.
pub type OptText = Arc<dyn Fn() -> String + Send + Sync>;

/// What every field shows around its input: label and definition keys, the name its test ids
/// and element id derive from, an error message and whether it is locked.
#[derive(Clone)]
pub struct FieldFrame {
    /// Translation key of the label.
    pub label: &'static str,
    /// Translation key of the definition.
    pub def: &'static str,
    /// The field's name in test ids (a scenario path such as `classes[0].slo.ttft_ms`).
    pub name: String,
    /// A message to show under the field (already in the current language).
    pub error: Signal<Option<String>>,
    pub locked: Signal<bool>,
}

/// The lock shown beside a locked control.
pub fn lock_badge(locked: impl Fn() -> bool + Send + Sync + 'static) -> impl IntoView {
    view! {
        <span class="lock" class:hidden=move || !locked() title=tx("ctl.locked") data-testid="lock">
            {crate::icon::svg(crate::icon::LOCK)}
            <span class="sr-only">{tx("ctl.locked")}</span>
        </span>
    }
}

/// A slider and a number box. `value` `None` means switched off (for optional ranges) or absent;
/// `max` is the slider's upper end (the range's, or one that follows the scenario); `allowed`
/// what the setting accepts. Text the box cannot use ("0,9", "abc", a value outside `allowed`)
/// is refused with a message naming the label, unit and range; the value stays the last good one.
#[component]
pub fn NumberField(
    frame: FieldFrame,
    unit: &'static str,
    range: Range,
    #[prop(into)] value: Signal<Option<f64>>,
    #[prop(into)] max: Signal<f64>,
    #[prop(into)] allowed: Signal<(f64, f64)>,
    on_change: Callback<Option<f64>>,
) -> impl IntoView {
    let FieldFrame { label, def, name, error, locked } = frame;
    let id = format!("f-{}", element_id(&name));
    let typed = RwSignal::new(None::<TypedError>);
    // Text that could not be read is dropped when the value changes in any other way.
    let nonce = RwSignal::new(0u32);
    Effect::new(move |_| {
        value.track();
        if typed.get_untracked().is_some() {
            typed.set(None);
            nonce.update(|n| *n += 1);
        }
    });
    let message = move || {
        typed
            .with(|e| {
                e.as_ref().map(|e| {
                    let (min, max) = allowed.get();
                    format!("{} {}", msg(&typed_message(e, Arg::Key(label), unit, min, max)), t("msg.kept"))
                })
            })
            .or_else(|| error.get())
    };
    let commit = move |v: Option<f64>| {
        typed.set(None);
        on_change.run(v);
    };
    let on = move || value.get().is_some();
    let slider_value = move || value.get().map_or(0.0, |v| range.slider_of(max.get(), v)).to_string();
    let toggle = range.optional.map(|default| {
        view! {
            <input
                type="checkbox"
                class="opt"
                aria-label=move || tf("ctl.use", &[("name", t(label))])
                data-testid=format!("toggle-{name}")
                disabled=move || locked.get()
                prop:checked=on
                on:change=move |ev| commit(event_target_checked(&ev).then_some(default))
            />
        }
    });
    let step = move || {
        let (_, _, step) = range.slider_bounds(max.get());
        if step > 0.0 {
            step.to_string()
        } else {
            "any".to_string()
        }
    };
    view! {
        <div class="field" class:invalid=move || message().is_some() class:off=move || !on() class:locked=move || locked.get()>
            <div class="field-head">
                {toggle}
                <label for=id.clone()><Term label=label def=def id=format!("{id}-def")/></label>
                {lock_badge(move || locked.get())}
            </div>
            <div class="inputs">
                <input
                    type="range"
                    min=move || range.slider_bounds(max.get()).0
                    max=move || range.slider_bounds(max.get()).1
                    step=step
                    aria-label=move || tf("ctl.slider", &[("name", t(label))])
                    aria-describedby=format!("{id}-def")
                    data-testid=format!("slider-{name}")
                    disabled=move || !on() || locked.get()
                    prop:value=slider_value
                    on:input=move |ev| {
                        if let Some(x) = parse_f64(&event_target_value(&ev)) {
                            commit(Some(range.value_at(max.get_untracked(), x)));
                        }
                    }
                />
                <input
                    type="text"
                    inputmode="decimal"
                    aria-describedby=format!("{id}-def")
                    id=id
                    class="num"
                    data-testid=format!("field-{name}")
                    disabled=move || !on() || locked.get()
                    prop:value=move || {
                        nonce.track();
                        value.get().map(format::plain).unwrap_or_default()
                    }
                    on:change=move |ev| match range.read(&event_target_value(&ev), allowed.get_untracked()) {
                        Ok(v) => commit(Some(v)),
                        Err(e) => typed.set(Some(e)),
                    }
                />
                <span class="unit">{tx(unit)}</span>
            </div>
            <p class="err" role="alert" data-testid=format!("error-{name}")>{message}</p>
        </div>
    }
}

/// A drop-down.
#[component]
pub fn SelectField(
    frame: FieldFrame,
    options: Vec<(String, OptText)>,
    #[prop(into)] value: Signal<String>,
    on_change: Callback<String>,
) -> impl IntoView {
    let FieldFrame { label, def, name, error, locked } = frame;
    let id = format!("f-{}", element_id(&name));
    let opts = options
        .into_iter()
        .map(|(v, text)| {
            let mine = v.clone();
            view! { <option value=v prop:selected=move || value.get() == mine>{move || text()}</option> }
        })
        .collect_view();
    view! {
        <div class="field" class:invalid=move || error.get().is_some() class:locked=move || locked.get()>
            <div class="field-head">
                <label for=id.clone()><Term label=label def=def id=format!("{id}-def")/></label>
                {lock_badge(move || locked.get())}
            </div>
            <select
                aria-describedby=format!("{id}-def")
                id=id
                data-testid=format!("field-{name}")
                disabled=move || locked.get()
                on:change=move |ev| on_change.run(event_target_value(&ev))
            >
                {opts}
            </select>
            <p class="err" role="alert" data-testid=format!("error-{name}")>{move || error.get()}</p>
        </div>
    }
}

/// A checkbox.
#[component]
pub fn ToggleField(frame: FieldFrame, #[prop(into)] checked: Signal<bool>, on_change: Callback<bool>) -> impl IntoView {
    let FieldFrame { label, def, name, error, locked } = frame;
    let id = format!("f-{}", element_id(&name));
    view! {
        <div class="field check" class:invalid=move || error.get().is_some() class:locked=move || locked.get()>
            <input
                type="checkbox"
                aria-describedby=format!("{id}-def")
                id=id.clone()
                data-testid=format!("field-{name}")
                disabled=move || locked.get()
                prop:checked=move || checked.get()
                on:change=move |ev| on_change.run(event_target_checked(&ev))
            />
            <label for=id.clone()><Term label=label def=def id=format!("{id}-def")/></label>
            {lock_badge(move || locked.get())}
            <p class="err" role="alert" data-testid=format!("error-{name}")>{move || error.get()}</p>
        </div>
    }
}
