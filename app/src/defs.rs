//! Definitions shown one hover or focus away from every metric and setting
//! (metrics follow vLLM's benchmark definitions, as sim-core measures them).
//! The definitions' translation keys are `app_model::panels::defs`'s; [`Term`] looks them up.

use leptos::prelude::*;

use app_model::panels::Text;

use crate::i18n::{t, tf, tx};

pub use app_model::panels::defs::*;

/// Words a model composed (a translation key with its values) in the page's language.
pub fn say(x: &Text) -> String {
    tf(x.key, &x.args)
}

/// A label with its definition one hover, tap or keyboard focus away. `label` and `def` are
/// translation keys; text that is not a key shows as written.
///
/// A term is not a tab stop of its own (`tabindex="-1"`: a tap or click still focuses it and
/// shows the definition). Keyboard users meet the definition on the control it belongs to: a
/// field shows it while its control has the keyboard focus, and names it as the control's
/// description (`aria-describedby` = `id`, given by the field). The page's "Definitions" switch
/// ([`DefsToggle`]) shows every definition in place.
#[component]
pub fn Term(
    #[prop(into)] label: String,
    def: &'static str,
    /// Element id of the definition, for the control's `aria-describedby`.
    #[prop(optional, into)]
    id: Option<String>,
) -> impl IntoView {
    // a definition that describes a control is not read again as part of its label
    let hidden = id.as_ref().map(|_| "true");
    view! {
        <span class="term" tabindex="-1">
            {move || t(&label)}
            <span class="def" role="tooltip" id=id aria-hidden=hidden>{tx(def)}</span>
        </span>
    }
}

/// Shows every definition in place (for keyboard and screen-reader users, and on touch
/// screens): a pressed button puts `defs-shown` on `<body>`.
#[component]
pub fn DefsToggle() -> impl IntoView {
    let on = RwSignal::new(false);
    let toggle = move |_| {
        let next = !on.get_untracked();
        on.set(next);
        if let Some(body) = document().body() {
            let _ = body.class_list().toggle_with_force("defs-shown", next);
        }
    };
    view! {
        <button
            type="button"
            class="chip"
            class:active=move || on.get()
            aria-pressed=move || on.get().to_string()
            title=tx("a11y.defs_title")
            data-testid="defs-toggle"
            on:click=toggle
        >{tx("a11y.defs")}</button>
    }
}
