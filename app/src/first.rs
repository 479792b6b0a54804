//! A first visit: the stage's bottleneck badge (what limits the run now, in words from the
//! tables, refreshed at the calm tick) and the "Start here" call to action that opens the first
//! lesson (dismissed once, remembered in local storage).

use app_model::limit_badge::{self as badge, Steady, Text};
use app_model::Run;
use leptos::prelude::*;

use crate::i18n::{t, tf, tx};
use crate::kit::{storage_get, storage_set};
use crate::ui::use_ui;

/// Local storage key: the learner dismissed "Start here" (on the section as
/// `data-dismissed-key`, so the page's static layout leaves it out for such a visitor too).
const DISMISSED: &str = "lab.first.start_dismissed";

fn say(x: &Text) -> String {
    if x.args.is_empty() {
        t(x.key)
    } else {
        tf(x.key, &x.args)
    }
}

/// What limits `run` now: a headline announced politely when the kind of limit changes, and
/// its numbers beside it (not announced). A new kind shows once it has lasted two calm ticks
/// while playing, at once when paused or stepped.
#[component]
pub fn LimitBadge(run: Run) -> impl IntoView {
    let ui = use_ui();
    let steady = StoredValue::new(Steady::default());
    let shown = Memo::new(move |_| {
        let l = ui.views[run.index()].with(|v| v.as_ref().map(|v| v.limit))?;
        let at_once = !ui.playing.get_untracked();
        steady.try_update_value(|s| s.observe(l, at_once))
    });
    let words = move || shown.get().map(|l| badge::words(&l));
    view! {
        <p
            class="limit-badge"
            class:hidden=move || shown.with(Option::is_none)
            data-testid="limit-badge"
            data-limit=move || shown.get().map_or("none", |l| badge::kind(&l))
        >
            <span class="limit-head" aria-live="polite" data-testid="limit-head">
                {move || words().map(|(h, _)| say(&h))}
            </span>
            <span class="limit-detail" data-testid="limit-detail">
                {move || words().and_then(|(_, d)| d).map(|d| say(&d))}
            </span>
        </p>
    }
}

/// "Start here": leads a first visit into lesson 1; hidden while a lesson is open, in embed
/// mode, and for good once dismissed.
#[component]
pub fn StartHere() -> impl IntoView {
    let ui = use_ui();
    let dismissed = RwSignal::new(storage_get(DISMISSED).is_some());
    let first = lab_content::lessons::LESSONS.first().map(|l| l.id);
    let hidden = move || dismissed.get() || ui.embed.get() || ui.lesson.with(Option::is_some) || first.is_none();
    let title = move || first.map(|id| t(&format!("lesson.{id}.title"))).unwrap_or_default();
    view! {
        <section
            class="start-here"
            class:hidden=hidden
            data-testid="start-here"
            data-dismissed-key=DISMISSED
            aria-label=tx("first.start.aria")
        >
            <p class="start-text">
                <strong>{tx("first.start.lead")}</strong>
                " "
                <span>{move || tf("first.start.body", &[("title", title())])}</span>
            </p>
            <button
                class="btn primary start-btn"
                data-testid="start-here-open"
                on:click=move |_| {
                    if let Some(id) = first {
                        crate::lessons::open(ui, id);
                        // this button hides with the lesson open: the focus goes on to the lesson
                        crate::kit::focus_soon("[data-testid=\"lesson\"]:not(.hidden) .lesson-step");
                    }
                }
            >
                {tx("first.start.button")}
            </button>
            <button
                class="btn small-btn start-dismiss"
                data-testid="start-here-dismiss"
                title=tx("first.start.dismiss_title")
                on:click=move |_| {
                    storage_set(DISMISSED, "1");
                    dismissed.set(true);
                }
            >
                {tx("first.start.dismiss")}
            </button>
        </section>
    }
}
