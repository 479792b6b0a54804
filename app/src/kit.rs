//! What the workbench's panels share: the one driver of their background jobs
//! (`app_model::jobs`, a slice per animation frame: the page never freezes, progress shows, a
//! run can be cancelled), typed buttons, a progress bar, boxed reactive texts, the list of
//! sim-core's messages, and small browser helpers (focus, the clock, data URLs for downloads, a
//! little local storage, scrolling, whether the learner asked for reduced motion). It imports no
//! panel: the panels, the first visit and the stage build on it.

use app_model::jobs::{Job, Runner, Status, Ticket};
use leptos::prelude::*;
use sim_core::ScenarioError;
use wasm_bindgen::JsCast;

use crate::i18n::tx;

/// Wall time one slice of a job may take per animation frame, ms.
pub const SLICE_MS: f64 = 8.0;

/// Focuses the first element matching `selector` (`#id` for an element by its id) once it is on
/// the page (a tab's panel may still be loading its module): tries at each animation frame, for
/// about two seconds.
pub fn focus_soon(selector: impl Into<String>) {
    fn attempt(selector: String, left: u32) {
        let found =
            document().query_selector(&selector).ok().flatten().and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
        match found {
            Some(el) => {
                let _ = el.focus();
            }
            None if left > 0 => request_animation_frame(move || attempt(selector, left - 1)),
            None => {}
        }
    }
    let selector = selector.into();
    request_animation_frame(move || attempt(selector, 120));
}

/// A button of a panel: `class` after `btn`, an optional test id, its label (a translation
/// key), whether it is disabled, and what a click does. One function for every panel's buttons,
/// so their rendering code exists once in the wasm.
pub fn button(
    class: &'static str,
    testid: Option<&'static str>,
    label: &'static str,
    disabled: Option<Signal<bool>>,
    on: Callback<()>,
) -> AnyView {
    view! {
        <button
            type="button"
            class=format!("btn {class}")
            data-testid=testid
            disabled=move || disabled.is_some_and(|d| d.get())
            on:click=move |_| on.run(())
        >
            {tx(label)}
        </button>
    }
    .into_any()
}

/// Buttons in a row.
pub fn actions(buttons: Vec<AnyView>) -> AnyView {
    view! { <div class="lesson-actions">{buttons}</div> }.into_any()
}

/// A table of a panel (the runs, a sweep's points, a contract's report, attempts, a class's
/// codes): scrolls sideways on a narrow screen; `heads` the header row's cells, `body` its rows.
pub fn table(
    class: &'static str,
    testid: Option<&'static str>,
    caption: String,
    heads: AnyView,
    body: AnyView,
) -> AnyView {
    view! {
        <div class="table-scroll">
            <table class=class data-testid=testid>
                <caption class="small muted">{caption}</caption>
                <thead><tr>{heads}</tr></thead>
                <tbody>{body}</tbody>
            </table>
        </div>
    }
    .into_any()
}

/// Column heads, each a `<th scope="col">` with its words.
pub fn heads(words: impl IntoIterator<Item = String>) -> AnyView {
    words.into_iter().map(|h| view! { <th scope="col">{h}</th> }).collect_view().into_any()
}

/// A row's number cells, each a `<td class="num">` with its text.
pub fn num_cells(cells: impl IntoIterator<Item = String>) -> AnyView {
    cells.into_iter().map(|c| view! { <td class="num">{c}</td> }).collect_view().into_any()
}

/// A download link that looks like a button: `href` a data URL ([`data_url`]), `name` the
/// file's, `label` a translation key.
pub fn download(class: &'static str, href: String, name: String, testid: &'static str, label: &'static str) -> AnyView {
    view! { <a class=class href=href download=name data-testid=testid>{tx(label)}</a> }.into_any()
}

/// A checkbox with its words, in a `check-line` label; `on` hears whether it is now ticked.
pub fn check_line(testid: String, checked: bool, label: AnyView, on: Callback<bool>) -> AnyView {
    view! {
        <label class="check-line">
            <input type="checkbox" data-testid=testid checked=checked on:change=move |ev| on.run(event_target_checked(&ev)) />
            {label}
        </label>
    }
    .into_any()
}

/// A button of a group that shows which one is chosen (`tab`, `active` and `aria-pressed` while
/// `on`): the A/B bar's runs, the metrics panel's classes.
pub fn pressed_tab(on: Signal<bool>, testid: String, content: AnyView, click: Callback<()>) -> AnyView {
    view! {
        <button
            class="tab"
            class:active=move || on.get()
            aria-pressed=move || on.get().to_string()
            data-testid=testid
            on:click=move |_| click.run(())
        >{content}</button>
    }
    .into_any()
}

/// A panel's title and its note.
pub fn panel_head(title: &'static str, note: Text) -> AnyView {
    view! {
        <header class="panel-head">
            <h2>{tx(title)}</h2>
            <span class="small muted">{text(note)}</span>
        </header>
    }
    .into_any()
}

/// A progress bar (share 0..=1) and its text; `data-value` carries the share for tests.
pub fn progress(testid: &'static str, value: Signal<f64>, label: Signal<String>) -> AnyView {
    let pct = move || (value.get().clamp(0.0, 1.0) * 100.0).round();
    view! {
        <div class="wb-progress-row">
            <div
                class="wb-progress"
                role="progressbar"
                aria-valuemin="0"
                aria-valuemax="100"
                aria-valuenow=text(Box::new(move || pct().to_string()))
                aria-valuetext=label
                data-testid=testid
                data-value=text(Box::new(move || format!("{:.4}", value.get())))
            >
                <div class="wb-progress-fill" style=text(Box::new(move || format!("width:{}%", pct())))></div>
            </div>
            <span class="small" aria-hidden="true">{label}</span>
        </div>
    }
    .into_any()
}

/// A reactive text, boxed: every view that shows one through [`text`] shares one closure type,
/// so that rendering code exists once in the wasm.
pub type Text = Box<dyn Fn() -> String + Send + Sync>;

pub fn text(f: Text) -> impl Fn() -> String + Send + Sync + 'static {
    move || f()
}

/// Runs `f` now and again whenever a signal it read changes.
pub fn effect(f: Box<dyn Fn()>) {
    Effect::new(move |_| f());
}

/// A list of sim-core's messages in the page's language, each naming its setting by its label.
pub fn error_list(e: &ScenarioError) -> AnyView {
    let items = e
        .errors
        .iter()
        .map(|f| {
            let m = crate::i18n::msg(&app_model::messages::field_message(f, &[]));
            view! { <li>{m}</li> }
        })
        .collect_view();
    view! { <ul>{items}</ul> }.into_any()
}

/// The one driver of the tabs' background jobs: once per animation frame, runs the job of
/// `ticket` for [`SLICE_MS`] (so the page keeps drawing) and hands `on` what the slice came to,
/// until the job is finished or stopped (cancelled, replaced, or its panel gone). `on` runs in the
/// reactive owner `drive` was called in (it may word things in the page's language).
pub fn drive<J, F>(runner: Jobs<J>, ticket: Ticket, on: F)
where
    J: Job + 'static,
    F: FnMut(Status<J::Progress, J::Output>) + 'static,
{
    drive_in(Owner::current().unwrap_or_default(), runner, ticket, on);
}

fn drive_in<J, F>(owner: Owner, runner: Jobs<J>, ticket: Ticket, mut on: F)
where
    J: Job + 'static,
    F: FnMut(Status<J::Progress, J::Output>) + 'static,
{
    request_animation_frame(move || {
        let deadline = now_ms() + SLICE_MS;
        let Some(status) = runner.try_update_value(|r| r.run(ticket, &mut || now_ms() > deadline)) else { return };
        let more = matches!(status, Status::Working(_));
        owner.with(|| on(status));
        if more {
            drive_in(owner, runner, ticket, on);
        }
    });
}

/// A panel's job runner (jobs hold simulations: local to the page's thread).
pub type Jobs<J> = StoredValue<Runner<J>, LocalStorage>;

/// A fresh runner for a panel.
pub fn jobs<J: Job + 'static>() -> Jobs<J> {
    StoredValue::new_local(Runner::new())
}

/// Starts `job` on `runner` (cancelling the one before) and drives it.
pub fn start<J, F>(runner: Jobs<J>, job: J, on: F)
where
    J: Job + 'static,
    F: FnMut(Status<J::Progress, J::Output>) + 'static,
{
    if let Some(ticket) = runner.try_update_value(|r| r.start(job)) {
        drive(runner, ticket, on);
    }
}

/// Cancels the runner's job, if any.
pub fn cancel<J: Job + 'static>(runner: Jobs<J>) {
    runner.update_value(Runner::cancel);
}

/// Milliseconds on the page's performance clock.
pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// A `data:` URL holding `text` (for download links).
pub fn data_url(mime: &str, text: &str) -> String {
    format!("data:{mime};charset=utf-8,{}", String::from(js_sys::encode_uri_component(text)))
}

/// The page's local storage, if the browser allows it.
fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

pub fn storage_get(key: &str) -> Option<String> {
    storage()?.get_item(key).ok().flatten()
}

pub fn storage_set(key: &str, value: &str) {
    if let Some(s) = storage() {
        let _ = s.set_item(key, value);
    }
}

/// Scrolls the first element matching `selector` to the middle of the window.
pub fn scroll_to(selector: &str) {
    let Some(el) = document().query_selector(selector).ok().flatten() else { return };
    let opts = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&opts, &"block".into(), &"center".into());
    let behavior = if reduced_motion() { "auto" } else { "smooth" };
    let _ = js_sys::Reflect::set(&opts, &"behavior".into(), &behavior.into());
    if let Ok(f) = js_sys::Reflect::get(&el, &"scrollIntoView".into()).and_then(|f| f.dyn_into::<js_sys::Function>()) {
        let _ = f.call1(&el, &opts);
    }
}

pub use lab_canvas::reduced_motion;

/// Brings up another tab of the workbench as a click on it does, and moves the focus to it.
pub fn open_tab(id: &str) {
    let Some(tab) = document().get_element_by_id(&format!("wb-tab-{id}")) else { return };
    for method in ["click", "focus"] {
        if let Ok(f) = js_sys::Reflect::get(&tab, &method.into()).and_then(|f| f.dyn_into::<js_sys::Function>()) {
            let _ = f.call1(&tab, &wasm_bindgen::JsValue::UNDEFINED);
        }
    }
}
