//! For screen readers: a visually hidden live region that says, calmly, how the run is doing —
//! "queue 12, batch 48, HBM 83 %, p99 TTFT 1.20 s" (`app_model::panels::live`) — at most once
//! every few seconds, and only when the words changed. The numbers are sim-core's, from the calm
//! tick's views.
//!
//! Also the skip links (the page's first tab stops); whether the learner asked for reduced
//! motion is [`crate::kit::reduced_motion`].

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::i18n::{tx, PAGE};
use app_model::panels::live;

use crate::ui::{use_ui, Ui};

/// Shortest gap between two announcements, ms.
pub const ANNOUNCE_MS: u32 = 5000;

/// The runs on screen in words (`app_model::panels::live`).
fn summary_text(ui: Ui) -> String {
    ui.views[0].with_untracked(|a| {
        ui.views[1].with_untracked(|b| live::summary(PAGE, [a.as_ref(), b.as_ref()], ui.ab.get_untracked()))
    })
}

/// The live region (place it once in the page).
#[component]
pub fn LiveSummary() -> impl IntoView {
    let ui = use_ui();
    let text = RwSignal::new(String::new());
    // the timer words the runs in the page's language: it runs in this component's owner
    let owner = Owner::current().unwrap_or_default();
    gloo_timers::callback::Interval::new(ANNOUNCE_MS, move || {
        let next = owner.with(|| untrack(|| summary_text(ui)));
        if text.with_untracked(|cur| *cur != next) {
            text.set(next);
        }
    })
    .forget();
    view! {
        <div class="sr-only" role="status" aria-live="polite" aria-atomic="true" data-testid="live-summary">
            {move || text.get()}
        </div>
    }
}

/// The first tab stops of the page, shown when focused: straight to the live metrics, or to
/// the settings. The target takes the focus (so the next Tab continues from there).
#[component]
pub fn SkipLinks() -> impl IntoView {
    let link = move |selector: &'static str, key: &'static str, testid: &'static str| {
        view! {
            <a
                class="skip-link"
                href="#"
                data-testid=testid
                on:click=move |ev| {
                    ev.prevent_default();
                    focus_target(selector);
                }
            >{tx(key)}</a>
        }
    };
    view! {
        <nav class="skip-links" aria-label=tx("a11y.skip_nav")>
            {link("[data-testid=\"metrics-a\"]", "a11y.skip_metrics", "skip-metrics")}
            {link(".controls-col", "a11y.skip_settings", "skip-settings")}
        </nav>
    }
}

/// Moves the focus to the first element matching `selector` (focusable by script only).
fn focus_target(selector: &str) {
    let Some(el) = document().query_selector(selector).ok().flatten() else { return };
    if !el.has_attribute("tabindex") {
        let _ = el.set_attribute("tabindex", "-1");
    }
    let _ = el.class_list().add_1("skip-target");
    if let Ok(el) = el.dyn_into::<web_sys::HtmlElement>() {
        let _ = el.focus();
        // its top just below the sticky toolbar (the page's scroll-padding), however tall it is
        el.scroll_into_view_with_bool(true);
    }
}
