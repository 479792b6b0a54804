//! The workbench under the toolbar: guided lessons, sweeps, the resource contract and classroom
//! exercises, one tab each. A panel is built the first time its tab opens (its code is fetched
//! then: each tab is a wasm module of its own) and then stays, so a sweep or an acceptance run
//! keeps going (and keeps its results) while another tab is shown.
//!
//! Also what those panels share: the one driver of their background jobs
//! (`app_model::jobs`, a slice per animation frame: the page never freezes, progress shows, a
//! run can be cancelled), typed buttons, a progress bar, data URLs for downloads and a little
//! local storage. The panels' state and rules live in `app_model::tabs`; these files only
//! render them.

use app_model::jobs::{Job, Runner, Status, Ticket};
use leptos::prelude::*;
use leptos::wasm_split::SplitLoaderError;
use sim_core::ScenarioError;
use wasm_bindgen::JsCast;

use crate::contract_panel::ContractPanel;
use crate::exercises::ExercisesPanel;
use crate::i18n::{t, tx};
use crate::lessons::LessonsPanel;
use crate::sweep_panel::SweepPanel;
use crate::ui::use_ui;

/// Wall time one slice of a job may take per animation frame, ms.
pub const SLICE_MS: f64 = 8.0;

/// The workbench's tabs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Lessons,
    Sweep,
    Contract,
    Exercises,
}

impl Tab {
    const ALL: [Tab; 4] = [Tab::Lessons, Tab::Sweep, Tab::Contract, Tab::Exercises];

    fn id(self) -> &'static str {
        match self {
            Tab::Lessons => "lessons",
            Tab::Sweep => "sweep",
            Tab::Contract => "contract",
            Tab::Exercises => "exercises",
        }
    }

    fn label(self) -> String {
        match self {
            Tab::Lessons => t("features.tab.lessons"),
            Tab::Sweep => t("features.tab.sweep"),
            Tab::Contract => t("features.tab.contract"),
            Tab::Exercises => t("features.tab.exercises"),
        }
    }

    fn index(self) -> usize {
        Tab::ALL.iter().position(|x| *x == self).unwrap_or(0)
    }
}

#[component]
pub fn Workbench() -> impl IntoView {
    let ui = use_ui();
    let tab = RwSignal::new(None::<Tab>);
    let opened: [RwSignal<bool>; 4] = std::array::from_fn(|_| RwSignal::new(false));
    let open = move |x: Tab| {
        opened[x.index()].set(true);
        tab.set(Some(x));
    };
    // A lesson or an exercise opened (from a link, or from another panel) shows its tab.
    let seen = StoredValue::new((None::<String>, None::<String>));
    effect(Box::new(move || {
        let lesson = ui.lesson.with(|l| l.as_ref().map(|(id, _)| id.clone()));
        let exercise = ui.exercise.get();
        let (was_lesson, was_exercise) = seen.get_value();
        if lesson.is_some() && lesson != was_lesson && tab.get_untracked() != Some(Tab::Lessons) {
            open(Tab::Lessons);
        }
        if exercise.is_some() && exercise != was_exercise && tab.get_untracked().is_none() {
            open(Tab::Exercises);
        }
        seen.set_value((lesson, exercise));
    }));

    let tab_button = move |x: Tab| {
        let on = move || tab.get() == Some(x);
        let on_key = move |ev: web_sys::KeyboardEvent| {
            let n = Tab::ALL.len() as isize;
            let to: isize = match ev.key().as_str() {
                // activating a tab opens it (a click on the open tab closes the workbench)
                "Enter" | " " => {
                    ev.prevent_default();
                    open(x);
                    return;
                }
                "ArrowRight" => x.index() as isize + 1,
                "ArrowLeft" => x.index() as isize - 1,
                "Home" => 0,
                "End" => n - 1,
                _ => return,
            };
            ev.prevent_default();
            let next = Tab::ALL[to.rem_euclid(n) as usize];
            open(next);
            focus_id(format!("wb-tab-{}", next.id()));
        };
        view! {
            <button
                type="button"
                class="tab wb-tab"
                class:active=on
                role="tab"
                id=format!("wb-tab-{}", x.id())
                aria-controls=format!("wb-panel-{}", x.id())
                aria-selected=text(Box::new(move || on().to_string()))
                tabindex=move || if on() || (tab.get().is_none() && x == Tab::Lessons) { 0 } else { -1 }
                data-testid=format!("wb-tab-{}", x.id())
                on:click=move |_| if tab.get_untracked() == Some(x) { tab.set(None) } else { open(x) }
                on:keydown=on_key
                on:pointerenter=move |_| warm(x)
                on:focus=move |_| warm(x)
            >
                {text(Box::new(move || x.label()))}
            </button>
        }
    };

    let panel = move |x: Tab| {
        let body = move || {
            opened[x.index()].get().then(|| {
                let sweep_visible = Signal::derive(move || tab.get() == Some(Tab::Sweep));
                // a failed fetch says so and offers another try; the rest of the lab runs on
                let attempt = RwSignal::new(0u32);
                move || {
                    attempt.track();
                    view! {
                        <Suspense fallback=|| view! { <p class="small muted" data-testid="wb-loading">{tx("features.workbench.loading")}</p> }>
                            {Suspend::new(async move {
                                let body = match x {
                                    Tab::Lessons => lessons_tab().await,
                                    Tab::Sweep => sweep_tab(sweep_visible).await,
                                    Tab::Contract => contract_tab().await,
                                    Tab::Exercises => exercises_tab().await,
                                };
                                body.unwrap_or_else(|_| load_failed(x, attempt))
                            })}
                        </Suspense>
                    }
                }
            })
        };
        view! {
            <div
                class="wb-panel"
                role="tabpanel"
                id=format!("wb-panel-{}", x.id())
                aria-labelledby=format!("wb-tab-{}", x.id())
                class:hidden=move || tab.get() != Some(x)
                data-testid=format!("wb-panel-{}", x.id())
            >{body}</div>
        }
    };

    let close = Callback::new(move |()| tab.set(None));
    view! {
        <section class="workbench" aria-label=tx("features.workbench.label")>
            <div class="wb-bar">
                <div class="wb-tabs" role="tablist" aria-label=tx("features.workbench.label")>
                    {Tab::ALL.into_iter().map(tab_button).collect_view()}
                </div>
                {move || match tab.get() {
                    Some(_) => button("small-btn wb-close", Some("wb-close"), "features.workbench.close", None, close),
                    None => view! { <span class="small muted wb-hint">{tx("features.workbench.hint")}</span> }.into_any(),
                }}
            </div>
            {Tab::ALL.into_iter().map(panel).collect_view()}
        </section>
    }
}

/// Focuses the element with this id once the page has it.
pub fn focus_id(id: String) {
    request_animation_frame(move || {
        if let Some(el) = document().get_element_by_id(&id).and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
            let _ = el.focus();
        }
    });
}

/// Focuses the first element matching `selector` once it is on the page (a tab's panel may still
/// be loading its module): tries at each animation frame, for about two seconds.
pub fn focus_soon(selector: &'static str) {
    fn attempt(selector: &'static str, left: u32) {
        let found =
            document().query_selector(selector).ok().flatten().and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
        match found {
            Some(el) => {
                let _ = el.focus();
            }
            None if left > 0 => request_animation_frame(move || attempt(selector, left - 1)),
            None => {}
        }
    }
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
/// until the job is finished or stopped (cancelled, replaced, or its panel gone).
pub fn drive<J, F>(runner: Jobs<J>, ticket: Ticket, mut on: F)
where
    J: Job + 'static,
    F: FnMut(Status<J::Progress, J::Output>) + 'static,
{
    request_animation_frame(move || {
        let deadline = now_ms() + SLICE_MS;
        let Some(status) = runner.try_update_value(|r| r.run(ticket, &mut || now_ms() > deadline)) else { return };
        let more = matches!(status, Status::Working(_));
        on(status);
        if more {
            drive(runner, ticket, on);
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
    let behavior = if crate::a11y::reduced_motion() { "auto" } else { "smooth" };
    let _ = js_sys::Reflect::set(&opts, &"behavior".into(), &behavior.into());
    if let Ok(f) = js_sys::Reflect::get(&el, &"scrollIntoView".into()).and_then(|f| f.dyn_into::<js_sys::Function>()) {
        let _ = f.call1(&el, &opts);
    }
}

// Each tab's code is a module of its own, fetched the first time the tab opens
// (`scripts/build-web.sh` builds with the `split` feature and splits them out; docs/wasm-size.md).
// `fallible`: a fetch that fails returns an error instead of stopping the whole lab. Without the
// feature (`trunk serve`'s development build) they are ordinary functions in the one module.

type Loaded = Result<AnyView, SplitLoaderError>;

macro_rules! tab_module {
    ($name:ident, $preload:ident, ($($arg:ident: $ty:ty),*) => $body:expr) => {
        #[cfg(feature = "split")]
        #[leptos::wasm_split::wasm_split($name, wasm_split_path = ::leptos::wasm_split, fallible, preload($preload))]
        fn $name($($arg: $ty),*) -> Loaded {
            $body
        }

        #[cfg(not(feature = "split"))]
        async fn $name($($arg: $ty),*) -> Loaded {
            $body
        }

        #[cfg(not(feature = "split"))]
        async fn $preload() {}
    };
}

tab_module!(lessons_tab, preload_lessons, () => Ok(view! { <LessonsPanel/> }.into_any()));
tab_module!(sweep_tab, preload_sweep, (visible: Signal<bool>) => Ok(view! { <SweepPanel visible/> }.into_any()));
tab_module!(contract_tab, preload_contract, () => Ok(view! { <ContractPanel/> }.into_any()));
tab_module!(exercises_tab, preload_exercises, () => Ok(view! { <ExercisesPanel/> }.into_any()));

/// Starts fetching a tab's module when the pointer reaches its button or the focus does, so it
/// is usually there by the click. A failure here is left to the click, which says so.
fn warm(x: Tab) {
    leptos::task::spawn_local(async move {
        let _ = match x {
            Tab::Lessons => preload_lessons().await,
            Tab::Sweep => preload_sweep().await,
            Tab::Contract => preload_contract().await,
            Tab::Exercises => preload_exercises().await,
        };
    });
}

/// What a tab shows when its module could not be fetched: why, and a button to try again (the
/// button goes with the message, so the keyboard's focus moves back to the tab).
fn load_failed(x: Tab, attempt: RwSignal<u32>) -> AnyView {
    let again = move |_| {
        focus_id(format!("wb-tab-{}", x.id()));
        attempt.update(|n| *n += 1);
    };
    view! {
        <div class="wb-load-failed" role="alert" data-testid="wb-load-failed">
            <p>{tx("features.workbench.load_failed")}</p>
            <button class="btn small-btn" data-testid="wb-retry" on:click=again>
                {tx("features.workbench.retry")}
            </button>
        </div>
    }
    .into_any()
}
