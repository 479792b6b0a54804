//! The first-frame module: the first wasm a page load fetches, about a third of the page's own.
//! It runs the opening scenario and animates its stage in the page's static layout (index.html,
//! made from the page by scripts/prerender.mjs), so a learner on a slow phone sees requests move
//! while the page's module is still on its way. When the page mounts it asks where the run got
//! to ([`first_handoff`]), stops this loop and carries on from there.
//!
//! It carries the engine, the stage's display list and painters (`app_model::stage`,
//! `lab_canvas`), the stage's words in both languages (build.rs) and the headline numbers (the
//! metrics panel's latency table and key numbers, written into the static layout at the calm
//! tick); no view framework, no translation tables.
//!
//! Must not know: leptos, the page's components, anything the opening does not need.

use std::cell::RefCell;

use app_model::engine::{Runs, Tick};
use app_model::locale::LocaleCode;
use app_model::query::FirstAddress;
use app_model::stage::Words;
use lab_canvas::stage::{StageConfig, StageState};
use wasm_bindgen::prelude::*;

mod words {
    include!(concat!(env!("OUT_DIR"), "/words.rs"));
}

/// The id of the stage's canvas (the page's run A: `app::engine::STAGE_IDS`).
const STAGE_ID: &str = "stage";

/// The stage's words in the page's language.
struct StageWords(LocaleCode);

impl Words for StageWords {
    fn t(&self, key: &str) -> String {
        match words::WORDS.binary_search_by(|(k, _, _)| (*k).cmp(key)) {
            Ok(i) => match self.0 {
                LocaleCode::En => words::WORDS[i].1,
                LocaleCode::Zh => words::WORDS[i].2,
            },
            Err(_) => key,
        }
        .to_string()
    }
    fn tf(&self, key: &str, args: &[(&str, String)]) -> String {
        app_model::messages::fill(&self.t(key), args)
    }
}

/// The opening run and its stage while this module animates it.
struct First {
    runs: Runs,
    stage: StageState,
    words: StageWords,
    projector: bool,
    /// The run's traffic classes by name (the metrics panel's numbers are all classes').
    classes: Vec<String>,
    /// When the last calm tick was, ms on the page's clock.
    last_calm_ms: f64,
}

thread_local! {
    // The run this module animates until the page takes it over: one per page load, reached from
    // the animation frames and from the page's call (JavaScript, no owner to hold it).
    static FIRST: RefCell<Option<First>> = const { RefCell::new(None) };
}

fn main() {}

fn browser_locale() -> LocaleCode {
    let Some(nav) = web_sys::window().map(|w| w.navigator()) else { return LocaleCode::En };
    let mut tags: Vec<String> = nav.languages().iter().filter_map(|v| v.as_string()).collect();
    tags.extend(nav.language());
    LocaleCode::preferred(tags.iter().map(String::as_str))
}

/// Starts animating the opening stage for the page's address `search` (`location.search`).
/// Returns false, and does nothing, when the address may open anything else (a link, a lesson,
/// an embedding…: `app_model::query::FirstAddress`) or the page has no stage canvas: the page's
/// module then draws the first frame.
#[wasm_bindgen]
pub fn first_start(search: &str) -> bool {
    let Some(address) = FirstAddress::parse(search) else { return false };
    let (_, scenario) = app_model::page::opening_scenario();
    if lab_canvas::canvas_by_id(STAGE_ID).is_none() {
        return false;
    }
    let Ok(sim) = sim_core::Simulation::new(&scenario) else { return false };
    let stage = StageState::new(StageConfig::of(&sim));
    let classes = app_model::engine::RunInfo::of(&sim).class_names;
    let mut runs = Runs::new(vec![sim]);
    // the calm numbers the stage draws from (counts, KV fill), as at t = 0
    runs.views();
    let words = StageWords(address.locale.unwrap_or_else(browser_locale));
    let first = First { runs, stage, words, projector: address.high_contrast, classes, last_calm_ms: 0.0 };
    FIRST.with(|f| *f.borrow_mut() = Some(first));
    request_frame();
    true
}

/// The addresses of the page's translation tables in the language it will most likely show
/// (`locale=`, else the browser's), for index.html's loader to fetch beside the page's module.
#[wasm_bindgen]
pub fn first_tables(search: &str) -> Vec<String> {
    FirstAddress::locale_of(search).unwrap_or_else(browser_locale).table_urls().to_vec()
}

/// The simulated time the opening run has reached, µs (0 when this module animates nothing).
#[wasm_bindgen]
pub fn first_time_us() -> f64 {
    FIRST.with(|f| f.borrow().as_ref().map_or(0.0, |first| first.runs.runs[0].sim.now() as f64))
}

/// Stops the animation and returns the simulated time the opening run reached, µs (0 when this
/// module animated nothing). The page seeks its own run of the same scenario to it.
#[wasm_bindgen]
pub fn first_handoff() -> f64 {
    FIRST.with(|f| f.borrow_mut().take()).map_or(0.0, |first| first.runs.runs[0].sim.now() as f64)
}

/// Writes the run's headline numbers into the static layout: the metrics panel's latency table,
/// the key numbers (the phone's bar) and the simulated time, found by the test ids the page gives
/// them (`data-first-number`, scripts/prerender.mjs).
fn show_numbers(first: &First, v: &app_model::engine::RunView) {
    use app_model::panels::metrics::Panel;
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let scenario = first.runs.runs[0].sim.scenario();
    let panel = Panel::of_run(Some((scenario, &first.classes)), None, Some(&v.summary), None);
    let mut numbers = panel.numbers();
    numbers.push(("sim-time".to_string(), app_model::transport::sim_time_text(v.now_s, true)));
    for (id, text) in numbers {
        let Ok(found) = doc.query_selector_all(&format!("[data-first-paint] [data-first-number=\"{id}\"]")) else {
            continue;
        };
        for i in 0..found.length() {
            if let Some(node) = found.item(i) {
                node.set_text_content(Some(&text));
            }
        }
    }
}

fn request_frame() {
    let Some(w) = web_sys::window() else { return };
    let cb = Closure::once_into_js(frame);
    let _ = w.request_animation_frame(cb.unchecked_ref());
}

fn frame() {
    let Some(perf) = web_sys::window().and_then(|w| w.performance()) else { return };
    let go_on = FIRST.with(|f| {
        let mut guard = f.borrow_mut();
        let Some(first) = guard.as_mut() else { return false };
        let tick = Tick { now_ms: perf.now(), playing: true, speed: 1.0, fast_forward: false };
        let out = first.runs.advance(tick, &mut || perf.now());
        // the calm tick, as often as the page's: the numbers, and the counts and fill the stage shows
        if tick.now_ms - first.last_calm_ms >= f64::from(app_model::engine::CALM_TICK_MS) {
            first.last_calm_ms = tick.now_ms;
            let views = first.runs.views();
            if let Some(v) = views.first() {
                show_numbers(first, v);
            }
        }
        if let Some(canvas) = lab_canvas::canvas_by_id(STAGE_ID) {
            let h = lab_canvas::stage::height(f64::from(canvas.client_width()), 1);
            if let Some((ctx, w, h)) = lab_canvas::fit_canvas(&canvas, lab_canvas::stage::MIN_W, h) {
                let look = lab_canvas::Look { projector: first.projector, words: &first.words };
                let r = &first.runs.runs[0];
                let live = r.sim.live_requests();
                first.stage.frame(&ctx, look, w, h, &r.sim, &live, &r.calm, out.dt_ms);
            }
        }
        first.runs.frame_done(tick.now_ms, perf.now());
        if first.runs.stats.first_animated_ms.is_some() {
            lab_canvas::mark_first_animated_frame();
        }
        !out.all_finished
    });
    if go_on {
        request_frame();
    }
}
