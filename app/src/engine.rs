//! The controller's canvas side: `app_model::engine` owns the running simulations (one, or two in
//! A/B mode), advances them every animation frame within its budget on the page's clock
//! (`performance.now()`) and keeps the frame statistics; here each frame draws their stages, and
//! the calm tick hands the panels fresh numbers and redraws the charts.
//!
//! It lives in an [`EngineCell`] made at mount: the components reach it through `Ui`, the
//! animation loop and the timers through the copy they captured.

use std::cell::RefCell;
use std::rc::Rc;

use app_model::engine::{Advanced, Runs};
use sim_core::{Scenario, Simulation};

use leptos::prelude::{GetValue, LocalStorage, StoredValue};

pub use app_model::engine::{RunInfo, RunView, Tick};

use crate::charts;
use lab_canvas::stage::{StageConfig, StageState};

use crate::theme::{Look, PageWords};

/// The page's engine: made once when the app mounts, kept by the app's reactive owner and handed
/// out as a `Copy` handle — through `Ui` (context) to the components, and captured at mount by
/// the animation loop, the calm tick and the event listeners, which run outside the reactive
/// owner. The engine holds browser objects, so it is stored locally (`LocalStorage`), not `Send`.
/// Every access is a `try_borrow_mut`, so a re-entrant call is skipped instead of panicking.
#[derive(Clone, Copy)]
pub struct EngineCell(StoredValue<Rc<RefCell<Option<Engine>>>, LocalStorage>);

impl EngineCell {
    /// An empty cell (no simulations yet), owned by the current reactive owner.
    pub fn new() -> EngineCell {
        EngineCell(StoredValue::new_local(Rc::new(RefCell::new(None))))
    }

    /// The engine's cell, taken out of the reactive arena once per access (not generic: one copy
    /// of the arena's code serves every caller).
    fn cell(self) -> Option<Rc<RefCell<Option<Engine>>>> {
        self.0.try_get_value()
    }

    /// Runs `f` on the engine; `None` when it is not installed, already borrowed or disposed.
    pub fn with<R>(self, f: impl FnOnce(&mut Engine) -> R) -> Option<R> {
        let cell = self.cell()?;
        let mut guard = cell.try_borrow_mut().ok()?;
        guard.as_mut().map(f)
    }

    /// Installs the engine with ready simulations.
    pub fn install(self, sims: Vec<Simulation>) {
        if let Some(mut guard) = self.cell().as_deref().and_then(|c| c.try_borrow_mut().ok()) {
            *guard = Some(Engine::new(sims));
        }
    }
}

impl Default for EngineCell {
    fn default() -> Self {
        EngineCell::new()
    }
}

/// Canvas ids of the stages of run A and run B.
pub const STAGE_IDS: [&str; 2] = ["stage", "stage-b"];
/// The narrowest a stage is drawn (narrower screens scale it down): `lab_canvas::stage::MIN_W`.
const STAGE_MIN_W: f64 = lab_canvas::stage::MIN_W;
/// Space kept below an embedded stage, CSS px (its block's padding and border).
const STAGE_BELOW_EMBED: f64 = 8.0;

/// The height that makes `canvas` end at the bottom of the window (the iframe) when the page is
/// scrolled to its top, between the stage's smallest readable height
/// ([`lab_canvas::stage::min_height`]) and `tallest`: an embedded lab shows the key numbers and the
/// whole stage without scrolling; the panels follow below.
fn fit_to_frame(canvas: &web_sys::HtmlCanvasElement, tallest: f64, look: Look) -> f64 {
    use wasm_bindgen::JsCast;
    let Some(w) = web_sys::window() else { return tallest };
    let inner = w.inner_height().ok().and_then(|v| v.as_f64()).unwrap_or(0.0);
    let top = canvas.get_bounding_client_rect().top() + w.scroll_y().unwrap_or(0.0);
    let Some(ctx) =
        canvas.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
    else {
        return tallest;
    };
    let words = PageWords(look);
    let w = f64::from(canvas.client_width()).max(STAGE_MIN_W);
    let shortest = lab_canvas::stage::min_height(&ctx, look.canvas(&words), w).min(tallest);
    if inner <= 0.0 {
        return tallest;
    }
    (inner - top - STAGE_BELOW_EMBED).floor().clamp(shortest, tallest)
}

/// What the animation loop asks of a frame.
#[derive(Clone, Copy)]
pub struct FrameInput {
    pub tick: Tick,
    /// Embedded (`embed=1`): the stage ends at the frame's bottom edge (see [`fit_to_frame`]).
    pub fit_to_frame: bool,
}

/// The runs (`app_model::engine::Runs`: the advance, the calm tick's numbers, the statistics)
/// and what the page draws of them: a stage per run, the charts.
pub struct Engine {
    pub runs: Runs,
    /// Each run's stage, in the order of `runs`.
    stages: Vec<StageState>,
    chart_widths: Vec<i32>,
    ticks: usize,
    /// The first animated frame's performance mark is set (by this page or the first-frame module).
    marked: bool,
}

impl Engine {
    fn new(sims: Vec<Simulation>) -> Engine {
        let mut e = Engine {
            runs: Runs::new(Vec::new()),
            stages: Vec::new(),
            chart_widths: Vec::new(),
            ticks: 0,
            marked: false,
        };
        e.replace(sims);
        e
    }

    /// Replaces every run by fresh simulations, from t = 0.
    pub fn replace(&mut self, sims: Vec<Simulation>) {
        self.stages = sims.iter().map(|sim| StageState::new(StageConfig::of(sim))).collect();
        self.runs.replace(sims);
    }

    /// Drops the runs after the first `n` (leaving A/B mode keeps A as it is).
    pub fn truncate(&mut self, n: usize) {
        self.runs.truncate(n);
        self.stages.truncate(n.max(1));
    }

    pub fn scenarios(&self) -> Vec<Scenario> {
        self.runs.scenarios()
    }

    pub fn infos(&self) -> Vec<RunInfo> {
        self.runs.infos()
    }

    /// Every run restarts from t = 0 with its scenario and seed.
    pub fn reset(&mut self) -> Result<(), String> {
        self.runs.reset()?;
        self.stages = self.runs.runs.iter().map(|r| StageState::new(StageConfig::of(&r.sim))).collect();
        Ok(())
    }

    /// Advances every run by one scheduler iteration (the step button).
    pub fn step_iteration(&mut self) {
        self.runs.step_iteration();
    }

    /// One animation frame: advance, then draw each stage in the page's `look`.
    pub fn frame(&mut self, input: FrameInput, look: Look, perf: &web_sys::Performance) -> Advanced {
        let tick = input.tick;
        let out = self.runs.advance(tick, &mut || perf.now());
        let words = PageWords(look);
        let n = self.stages.len();
        for (i, (r, stage)) in self.runs.runs.iter().zip(&mut self.stages).enumerate() {
            let Some(canvas) = charts::canvas_by_id(STAGE_IDS[i.min(1)]) else { continue };
            let mut h = lab_canvas::stage::height(f64::from(canvas.client_width()), n);
            if input.fit_to_frame && i == 0 {
                h = fit_to_frame(&canvas, h, look);
            }
            let Some((ctx, w, h)) = charts::fit_canvas(&canvas, STAGE_MIN_W, h) else { continue };
            let live = r.sim.live_requests();
            stage.set_speed(if tick.fast_forward { f64::INFINITY } else { tick.speed });
            stage.frame(&ctx, look.canvas(&words), w, h, &r.sim, &live, &r.calm, out.dt_ms);
        }
        self.runs.frame_done(tick.now_ms, perf.now());
        if !self.marked && self.runs.stats.first_animated_ms.is_some() {
            lab_canvas::mark_first_animated_frame();
            self.marked = true;
        }
        out
    }

    /// The calm tick: fresh numbers for the panels and redrawn charts, when anything changed.
    pub fn calm(&mut self, force: bool, class: Option<usize>, look: Look) -> Option<Vec<RunView>> {
        let widths: Vec<i32> =
            charts::CHARTS.iter().map(|(id, _)| charts::canvas_by_id(id).map_or(0, |c| c.client_width())).collect();
        let resized = widths != self.chart_widths;
        self.chart_widths = widths;
        if !self.runs.take_due(force || resized) {
            return None;
        }
        let perf = web_sys::window().and_then(|w| w.performance());
        let t0 = perf.as_ref().map_or(0.0, |p| p.now());
        let views = self.runs.views();
        let labels = ["A", "B"];
        let input = charts::ChartInput {
            runs: self.runs.runs.iter().enumerate().map(|(i, r)| (labels[i.min(1)], &r.sim)).collect(),
            class,
        };
        let t1 = perf.as_ref().map_or(0.0, |p| p.now());
        // Charts refresh half at a time (each about 3 times a second) unless asked for all.
        self.ticks = self.ticks.wrapping_add(1);
        charts::draw(&input, look, if force || resized { None } else { Some(self.ticks) });
        if let Some(p) = &perf {
            let t2 = p.now();
            self.runs.stats.calm(t2 - t0, t2 - t1);
        }
        Some(views)
    }

    /// Marks the panels and charts for a refresh at the next calm tick.
    pub fn touch(&mut self) {
        self.runs.touch();
    }

    /// Frame statistics and live request counts, as JSON (the test hook `lab_stats`).
    pub fn stats_json(&self) -> String {
        let live = |i: usize| self.stages.get(i).map_or(0, |s| s.live_count) as f64;
        self.runs.stats.json(&[("live_a", live(0)), ("live_b", live(1)), ("sim_time_s", self.runs.sim_time_s())])
    }
}
