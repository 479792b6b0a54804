//! Browser front end of the LLM Serving Lab: learners watch requests flow through
//! queue → prefill → decode on a virtual GPU while the latency, goodput, memory and cost
//! numbers react live. sim-core computes everything; this crate animates, formats and draws.
//!
//! * [`engine`]: the controller (simulations, the per-frame advance, the calm tick)
//! * [`ui`]: shared signals, applying scenario drafts
//! * the stage's canvas and the glyphs: `lab_canvas` (shared with the first-frame module)
//! * [`charts`]: a small canvas chart helper and the lab's charts
//! * [`metrics_panel`], [`hbm`], [`controls`], [`toolbar`], [`panels`]: the page's sections
//! * [`field`], [`icon`], [`control_field`], [`presets`]: the editor's widgets, a control bound to
//!   a draft, the presets' names
//! * [`header`]: title, language switch, projector profile, footer; [`theme`]: colour profiles
//! * [`share`]: share links and embed mode; [`address`]: the address read once, events to an
//!   embedding page; [`a11y`]: the live summary
//! * [`i18n`]: the English and Chinese tables every text comes from
//! * [`workbench`]: guided [`lessons`], the [`sweep_panel`], the [`contract_panel`] and
//!   classroom [`exercises`], one tab each; [`kit`]: what those panels share
//! * [`panic_view`]: the error view if anything ever panics

use app_model::Run;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

pub mod a11y;
pub mod address;
pub mod charts;
pub mod class_card;
pub mod contract_panel;
pub mod control_field;
pub mod controls;
pub mod defs;
pub mod engine;
pub mod exercises;
pub mod field;
pub mod first;
pub mod hbm;
pub mod header;
pub mod i18n;
pub mod icon;
pub mod kit;
pub mod lessons;
pub mod metrics_panel;
pub mod panels;
mod panic_view;
pub mod plan_panel;
pub mod presets;
pub mod replicas;
pub mod share;
pub mod sweep_panel;
pub mod theme;
pub mod toolbar;
pub mod trust;
pub mod ui;
pub mod workbench;

use crate::a11y::LiveSummary;
use crate::controls::Controls;
use crate::first::StartHere;
use crate::header::{PageFooter, PageHeader};
use crate::metrics_panel::{KeyNumbers, MetricsPanel};
use crate::panels::{AbPairs, AbTabs, ChartsRow, ErrorBanner, StageBlock};
use crate::share::LinkBanner;
use crate::toolbar::{PhoneBar, Toolbar};
use crate::ui::Ui;
use crate::workbench::Workbench;

/// Entry point of the wasm binary: installs the panic view, fetches the page's language, then
/// mounts the app (so the first paint is already in that language).
///
/// Opening the page with `?panic` in the query string panics right after mounting,
/// which is how the browser tests check the error view.
pub fn start() {
    panic_view::install();
    let query = address::read();
    js_sys::futures::spawn_local(async move {
        let locale = match i18n::init(&query).await {
            Ok(l) => l,
            Err(e) => {
                panic_view::texts_missing(&e);
                return;
            }
        };
        let panic = query.panic;
        // the first-frame module stops where it got to; its static layout makes way for the page
        let handoff = first_handoff();
        remove_static_layout();
        mount_to_body(move || view! { <App query=query locale=locale handoff=handoff/> });
        if let Some(perf) = web_sys::window().and_then(|w| w.performance()) {
            let _ = perf.mark(MOUNTED_MARK);
        }
        if panic {
            panic!("panic requested by the ?panic query parameter");
        }
    });
}

/// The performance mark set when the page has mounted (the browser tests read it).
const MOUNTED_MARK: &str = "lab:page-mounted";

/// Stops the first-frame module (`lab-first`, `window.labFirst` when index.html loaded it) and
/// returns the simulated time its opening run reached, µs; 0 when it animated nothing.
fn first_handoff() -> u64 {
    use js_sys::{Function, Reflect};
    let Some(w) = web_sys::window() else { return 0 };
    let Ok(first) = Reflect::get(&w, &"labFirst".into()) else { return 0 };
    if first.is_undefined() {
        return 0;
    }
    let Ok(f) = Reflect::get(&first, &"first_handoff".into()).and_then(|f| f.dyn_into::<Function>()) else {
        return 0;
    };
    f.call0(&first).ok().and_then(|v| v.as_f64()).filter(|t| t.is_finite() && *t > 0.0).map_or(0, |t| t as u64)
}

/// Removes the page's static layout (the elements marked `data-first-paint` in index.html) just
/// before the page mounts in its place, in the same task: no frame shows neither.
fn remove_static_layout() {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let Ok(nodes) = doc.query_selector_all("[data-first-paint]") else { return };
    for i in 0..nodes.length() {
        if let Some(el) = nodes.item(i).and_then(|n| n.dyn_into::<web_sys::Element>().ok()) {
            el.remove();
        }
    }
}

/// The engine of the mounted page, for the test hooks below: they are called from JavaScript,
/// outside the page's reactive tree (no owner, no context to ask), so the app registers its
/// engine's handle here at mount — the one global the page keeps. It is that handle only (a `Copy`
/// key, set once), not the engine: the engine stays in the app's owner.
static MOUNTED: std::sync::OnceLock<engine::EngineCell> = std::sync::OnceLock::new();

/// Runs a built-in preset to its end and returns the summary JSON (for comparing with the CLI).
pub fn run_preset_json(id: &str) -> String {
    app_model::engine::run_preset_json(id)
}

/// Frame timings and live request counts, as JSON.
pub fn stats_json() -> String {
    MOUNTED.get().and_then(|engine| engine.with(|e| e.stats_json())).unwrap_or_else(|| "{}".to_string())
}

/// Forgets the frame timings collected so far.
pub fn reset_stats() {
    if let Some(engine) = MOUNTED.get() {
        engine.with(|e| e.runs.stats.reset());
    }
}

#[component]
pub fn App(
    query: app_model::query::Query,
    locale: i18n::Locale,
    /// Where the first-frame module's opening run got to, µs (0: nowhere).
    #[prop(default = 0)]
    handoff: u64,
) -> impl IntoView {
    let opening = app_model::page::first_frame_opening(&query);
    // the page's state, each part provided once for every component below
    let lang = i18n::provide(locale);
    let theme = theme::provide();
    let address = address::provide(query);
    let ui = Ui::new(lang, theme);
    ui::provide(ui);
    let _ = MOUNTED.set(ui.engine);
    let page = share::Links::provide(ui, lang, theme, address);
    // a shared link, embed mode, language and colour profile from the address
    page.init();
    start_runs(ui);
    // the opening run carries on where the first-frame module's left off
    let same = opening.is_some_and(|s| ui.run_count() == 1 && ui.drafts[0].with_untracked(|d| *d == s));
    if handoff > 0 && same {
        ui.engine.with(|e| e.runs.seek(handoff));
    }

    // Any change of a draft (or of A/B mode) restarts the runs from t = 0.
    Effect::new(move |_| {
        ui.drafts[0].track();
        ui.drafts[1].track();
        ui.ab.track();
        ui.apply(false);
    });
    // Charts and metrics follow the class selection at once.
    Effect::new(move |_| {
        ui.class_view.track();
        ui.refresh(true);
    });

    page.watch();
    lessons::follow_stage(ui);
    start_animation(ui);
    gloo_timers::callback::Interval::new(app_model::engine::CALM_TICK_MS, move || ui.refresh(false)).forget();
    let keys = window_event_listener(leptos::ev::keydown, move |ev| on_key(ui, &ev));
    on_cleanup(move || keys.remove());

    view! {
        <PageHeader/>
        <Toolbar/>
        <Show when=move || !ui.embed.get()>
            <PhoneBar/>
        </Show>
        <LinkBanner/>
        <StartHere/>
        <LiveSummary/>
        <Workbench/>
        <main class="lab" class:ab=move || ui.ab.get()>
            <aside class="controls-col" aria-label=i18n::tx("app.settings")>
                <AbTabs/>
                <Controls/>
                <AbPairs/>
            </aside>
            <div class="stage-col">
                <ErrorBanner/>
                <Show when=move || ui.embed.get()>
                    <KeyNumbers run=Run::A/>
                </Show>
                <StageBlock run=Run::A/>
                <Show when=move || ui.ab.get()>
                    <Show when=move || ui.embed.get()>
                        <KeyNumbers run=Run::B/>
                    </Show>
                    <StageBlock run=Run::B/>
                </Show>
            </div>
            <div class="metrics-col">
                <MetricsPanel run=Run::A/>
                <Show when=move || ui.ab.get()>
                    <MetricsPanel run=Run::B/>
                </Show>
                <crate::trust::TrustTable/>
            </div>
            <div class="charts-col">
                <ChartsRow/>
            </div>
        </main>
        <PageFooter/>
    }
}

/// Builds the first runs (A, and B in A/B mode), each once: the effect that follows the drafts
/// finds them running. A draft that cannot run shows its errors; B's leaves A running.
fn start_runs(ui: Ui) {
    let runs = &Run::ALL[..ui.run_count()];
    let mut sims = Vec::with_capacity(runs.len());
    for run in runs {
        match sim_core::Simulation::new(&ui.drafts[run.index()].get_untracked()) {
            Ok(sim) => sims.push(sim),
            Err(e) => {
                ui.errors[run.index()].set(Some(e));
                break;
            }
        }
    }
    if !sims.is_empty() {
        ui.engine.install(sims);
        ui.set_infos(ui.engine.with(|e| e.infos()).unwrap_or_default());
    }
}

/// Space toggles play, → steps one iteration — unless the focus is in a form field.
fn on_key(ui: Ui, ev: &web_sys::KeyboardEvent) {
    let in_field = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA" | "BUTTON"));
    if in_field || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
        return;
    }
    if ui.withheld_untracked() {
        return;
    }
    match ev.key().as_str() {
        " " => {
            ev.prevent_default();
            ui.toggle_play();
        }
        "ArrowRight" => {
            ev.prevent_default();
            ui.step();
        }
        _ => {}
    }
}

/// The animation loop: one engine frame per `requestAnimationFrame`.
fn start_animation(ui: Ui) {
    let Some(perf) = window().performance() else { return };
    request_animation_frame(move || frame(ui, perf));
}

fn frame(ui: Ui, perf: web_sys::Performance) {
    // a lesson before its prediction holds the stage at its set-up
    let held = ui.withheld_untracked();
    let tick = engine::Tick {
        now_ms: perf.now(),
        playing: ui.playing.get_untracked() && !held,
        speed: ui.speed.get_untracked(),
        fast_forward: ui.fast_forward.get_untracked() && !held,
    };
    let input = engine::FrameInput { tick, fit_to_frame: ui.embed.get_untracked() };
    if let Some(out) = ui.engine.with(|e| e.frame(input, ui.look(), &perf)) {
        if out.all_finished && (tick.playing || tick.fast_forward) {
            ui.playing.set(false);
            ui.fast_forward.set(false);
            ui.refresh(true);
        }
        let behind = out.behind && !tick.fast_forward;
        if ui.behind.get_untracked() != behind {
            ui.behind.set(behind);
        }
    }
    request_animation_frame(move || frame(ui, perf));
}
