//! The controller: owns the running simulations (one, or two in A/B mode), advances them every
//! animation frame by the frame's wall time × speed, draws their stages, and at the calm tick
//! hands the panels fresh numbers and redraws the charts.
//!
//! It lives in an [`EngineCell`] made at mount: the components reach it through `Ui`, the
//! animation loop and the timers through the copy they captured.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use sim_core::memory::{article_kv_elements_per_token, kv_bytes_per_token};
use sim_core::metrics::Summary;
use sim_core::sim::{HbmUse, StepInfo};
use sim_core::{GpuSpec, HbmPlan, ModelSpec, Scenario, Simulation};

use leptos::prelude::{GetValue, LocalStorage, StoredValue};

use crate::charts;
use crate::stage::{StageCalm, StageConfig, StageState};

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
/// Logical size of a stage: drawn at its CSS width (so its text keeps its size) down to this
/// width (narrower screens scale it down), this tall; a compact stage (a phone, or A and B
/// side by side on a narrow screen) is taller, for its extra rows of text.
const STAGE_MIN_W: f64 = 320.0;
const STAGE_H: [f64; 2] = [360.0, 320.0];
const STAGE_H_COMPACT: f64 = 460.0;
/// Sim work allowed per frame before the run falls behind the requested speed, ms.
const FRAME_BUDGET_MS: f64 = 9.0;
/// Sim work per frame while fast-forwarding to the end, ms.
const FAST_FORWARD_BUDGET_MS: f64 = 40.0;

/// Space kept below an embedded stage, CSS px (its block's padding and border).
const STAGE_BELOW_EMBED: f64 = 8.0;

/// The height that makes `canvas` end at the bottom of the window (the iframe) when the page is
/// scrolled to its top, between the stage's smallest readable height
/// ([`crate::stage::min_height`]) and `tallest`: an embedded lab shows the key numbers and the
/// whole stage without scrolling; the panels follow below.
fn fit_to_frame(canvas: &web_sys::HtmlCanvasElement, tallest: f64) -> f64 {
    use wasm_bindgen::JsCast;
    let Some(w) = web_sys::window() else { return tallest };
    let inner = w.inner_height().ok().and_then(|v| v.as_f64()).unwrap_or(0.0);
    let top = canvas.get_bounding_client_rect().top() + w.scroll_y().unwrap_or(0.0);
    let Some(ctx) =
        canvas.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
    else {
        return tallest;
    };
    let shortest = crate::stage::min_height(&ctx, f64::from(canvas.client_width()).max(STAGE_MIN_W)).min(tallest);
    if inner <= 0.0 {
        return tallest;
    }
    (inner - top - STAGE_BELOW_EMBED).floor().clamp(shortest, tallest)
}

/// One simulation and what its stage remembers.
pub struct LiveRun {
    pub sim: Simulation,
    pub stage: StageState,
    pub calm: StageCalm,
}

/// Facts of a run that do not change while it runs: for the HBM gauge, formula and legends.
#[derive(Clone, Debug, PartialEq)]
pub struct RunInfo {
    pub scenario: Scenario,
    pub model: ModelSpec,
    pub gpu: GpuSpec,
    pub plan: HbmPlan,
    /// sim_core::memory::kv_bytes_per_token with the KV dtype's bytes per element.
    pub kv_bytes_formula: f64,
    /// sim_core::memory::article_kv_elements_per_token.
    pub article_elements: f64,
    pub class_names: Vec<String>,
}

impl RunInfo {
    fn of(sim: &Simulation) -> RunInfo {
        let s = sim.scenario();
        RunInfo {
            scenario: s.clone(),
            model: sim.model().clone(),
            gpu: sim.gpu().clone(),
            plan: sim.hbm_plan().clone(),
            kv_bytes_formula: kv_bytes_per_token(sim.model(), s.kv_dtype().bytes()),
            article_elements: article_kv_elements_per_token(sim.model()),
            class_names: sim.class_names().to_vec(),
        }
    }
}

/// Numbers for the panels, taken at the calm tick.
#[derive(Clone, Debug, PartialEq)]
pub struct RunView {
    pub now_s: f64,
    pub finished: bool,
    pub summary: Summary,
    pub hbm: HbmUse,
    pub last_step: StepInfo,
    pub restarting_until_s: Option<f64>,
    pub running: u64,
    pub queued: u64,
    /// What limits the run now (the stage's badge).
    pub limit: sim_core::sim::Limit,
    /// Each replica now (empty with one).
    pub replicas: Vec<sim_core::sim::ReplicaView>,
}

/// Frame timings for the budget report.
#[derive(Default)]
pub struct FrameStats {
    work_ms: VecDeque<f64>,
    calm_ms: VecDeque<f64>,
    charts_ms: VecDeque<f64>,
    interval_ms: VecDeque<f64>,
    pub frames: u64,
    pub first_animated_ms: Option<f64>,
    last_start: Option<f64>,
}

const STATS_KEEP: usize = 900;

impl FrameStats {
    fn record(&mut self, start: f64, end: f64) {
        self.frames += 1;
        if let Some(prev) = self.last_start {
            push_bounded(&mut self.interval_ms, start - prev);
        }
        self.last_start = Some(start);
        push_bounded(&mut self.work_ms, end - start);
    }

    pub fn reset(&mut self) {
        self.work_ms.clear();
        self.calm_ms.clear();
        self.charts_ms.clear();
        self.interval_ms.clear();
    }

    /// JSON with percentiles of frame work time and frame interval.
    pub fn json(&self, extra: &[(&str, f64)]) -> String {
        let q = |v: &VecDeque<f64>, p: f64| -> f64 {
            if v.is_empty() {
                return 0.0;
            }
            let mut s: Vec<f64> = v.iter().copied().collect();
            s.sort_by(f64::total_cmp);
            let i = ((s.len() as f64 - 1.0) * p).round() as usize;
            s[i.min(s.len() - 1)]
        };
        let mut out = format!(
            "{{\"frames\":{},\"first_animated_ms\":{},\"samples\":{},\"work_ms_p50\":{:.3},\"work_ms_p95\":{:.3},\"work_ms_max\":{:.3},\"interval_ms_p50\":{:.3},\"interval_ms_p95\":{:.3}",
            self.frames,
            self.first_animated_ms.map_or("null".to_string(), |v| format!("{v:.1}")),
            self.work_ms.len(),
            q(&self.work_ms, 0.5),
            q(&self.work_ms, 0.95),
            q(&self.work_ms, 1.0),
            q(&self.interval_ms, 0.5),
            q(&self.interval_ms, 0.95),
        );
        out.push_str(&format!(
            ",\"calm_tick_ms_p50\":{:.3},\"calm_tick_ms_p95\":{:.3},\"charts_ms_p95\":{:.3}",
            q(&self.calm_ms, 0.5),
            q(&self.calm_ms, 0.95),
            q(&self.charts_ms, 0.95)
        ));
        for (k, v) in extra {
            out.push_str(&format!(",\"{k}\":{v}"));
        }
        out.push('}');
        out
    }
}

fn push_bounded(v: &mut VecDeque<f64>, x: f64) {
    if v.len() == STATS_KEEP {
        v.pop_front();
    }
    v.push_back(x);
}

/// What the animation loop asks of a frame.
#[derive(Clone, Copy)]
pub struct FrameInput {
    pub now_ms: f64,
    pub playing: bool,
    pub speed: f64,
    pub fast_forward: bool,
    /// Embedded (`embed=1`): the stage ends at the frame's bottom edge (see [`fit_to_frame`]).
    pub fit_to_frame: bool,
}

/// What a frame reports back.
#[derive(Clone, Copy, Default)]
pub struct FrameOutput {
    pub all_finished: bool,
    /// The runs could not keep up with the requested speed in this frame.
    pub behind: bool,
}

pub struct Engine {
    pub runs: Vec<LiveRun>,
    /// Simulated time the runs should have reached, µs.
    clock_us: f64,
    last_wall: Option<f64>,
    pub stats: FrameStats,
    dirty: bool,
    chart_widths: Vec<i32>,
    ticks: usize,
}

impl Engine {
    fn new(sims: Vec<Simulation>) -> Engine {
        let mut e = Engine {
            runs: Vec::new(),
            clock_us: 0.0,
            last_wall: None,
            stats: FrameStats::default(),
            dirty: true,
            chart_widths: Vec::new(),
            ticks: 0,
        };
        e.replace(sims);
        e
    }

    /// Replaces every run by fresh simulations, from t = 0.
    pub fn replace(&mut self, sims: Vec<Simulation>) {
        self.runs = sims
            .into_iter()
            .map(|sim| LiveRun { stage: StageState::new(StageConfig::of(&sim)), sim, calm: StageCalm::default() })
            .collect();
        self.clock_us = 0.0;
        self.dirty = true;
    }

    /// Drops the runs after the first `n` (leaving A/B mode keeps A as it is).
    pub fn truncate(&mut self, n: usize) {
        self.runs.truncate(n.max(1));
        self.dirty = true;
    }

    pub fn scenarios(&self) -> Vec<Scenario> {
        self.runs.iter().map(|r| r.sim.scenario().clone()).collect()
    }

    pub fn infos(&self) -> Vec<RunInfo> {
        self.runs.iter().map(|r| RunInfo::of(&r.sim)).collect()
    }

    pub fn all_finished(&self) -> bool {
        self.runs.iter().all(|r| r.sim.is_finished())
    }

    /// Every run restarts from t = 0 with its scenario and seed.
    pub fn reset(&mut self) -> Result<(), String> {
        let mut sims = Vec::with_capacity(self.runs.len());
        for r in &self.runs {
            sims.push(Simulation::new(r.sim.scenario()).map_err(|e| e.to_string())?);
        }
        self.replace(sims);
        Ok(())
    }

    /// Advances every run by one scheduler iteration (the step button).
    pub fn step_iteration(&mut self) {
        for r in &mut self.runs {
            if !r.sim.is_finished() {
                r.sim.advance_one_iteration();
            }
        }
        self.clock_us = self.runs.iter().map(|r| r.sim.now() as f64).fold(0.0, f64::max);
        self.dirty = true;
    }

    /// One animation frame: advance, then draw each stage.
    pub fn frame(&mut self, input: FrameInput, perf: &web_sys::Performance) -> FrameOutput {
        let dt = match self.last_wall {
            Some(last) => (input.now_ms - last).clamp(0.0, 100.0),
            None => 0.0,
        };
        self.last_wall = Some(input.now_ms);
        let mut out = FrameOutput::default();

        if input.playing || input.fast_forward {
            let budget = if input.fast_forward { FAST_FORWARD_BUDGET_MS } else { FRAME_BUDGET_MS };
            let deadline = input.now_ms + budget;
            let target = if input.fast_forward {
                u64::MAX
            } else {
                self.clock_us += dt * input.speed * 1000.0;
                self.clock_us as u64
            };
            let n = self.runs.len().max(1) as f64;
            for (i, r) in self.runs.iter_mut().enumerate() {
                // each run gets its share of what is left of the budget
                let share = input.now_ms + (deadline - input.now_ms) * (i as f64 + 1.0) / n;
                if advance(&mut r.sim, target, share, perf) {
                    out.behind = true;
                }
            }
            if input.fast_forward || out.behind {
                // the clock follows the slowest unfinished run
                let slowest = self
                    .runs
                    .iter()
                    .filter(|r| !r.sim.is_finished())
                    .map(|r| r.sim.now() as f64)
                    .fold(f64::INFINITY, f64::min);
                let latest = self.runs.iter().map(|r| r.sim.now() as f64).fold(0.0, f64::max);
                self.clock_us = if slowest.is_finite() { slowest } else { latest };
            }
            self.dirty = true;
        }
        out.all_finished = self.all_finished();

        let stage_h = if self.runs.len() > 1 { STAGE_H[1] } else { STAGE_H[0] };
        for (i, r) in self.runs.iter_mut().enumerate() {
            let Some(canvas) = charts::canvas_by_id(STAGE_IDS[i.min(1)]) else { continue };
            let compact = f64::from(canvas.client_width()) < app_model::stage_layout::COMPACT_BELOW;
            let mut h = if compact { STAGE_H_COMPACT } else { stage_h };
            if input.fit_to_frame && i == 0 {
                h = fit_to_frame(&canvas, h);
            }
            let Some((ctx, w, h)) = charts::fit_canvas(&canvas, STAGE_MIN_W, h) else { continue };
            let live = r.sim.live_requests();
            r.stage.set_speed(if input.fast_forward { f64::INFINITY } else { input.speed });
            r.stage.frame(&ctx, w, h, &r.sim, &live, &r.calm, dt);
        }
        if self.stats.first_animated_ms.is_none() && self.runs.first().is_some_and(|r| r.sim.now() > 0) {
            self.stats.first_animated_ms = Some(perf.now());
        }
        self.stats.record(input.now_ms, perf.now());
        out
    }

    /// The calm tick: fresh numbers for the panels and redrawn charts, when anything changed.
    pub fn calm(&mut self, force: bool, class: Option<usize>) -> Option<Vec<RunView>> {
        let widths: Vec<i32> =
            charts::CHARTS.iter().map(|(id, _)| charts::canvas_by_id(id).map_or(0, |c| c.client_width())).collect();
        let resized = widths != self.chart_widths;
        self.chart_widths = widths;
        if !(self.dirty || force || resized) {
            return None;
        }
        self.dirty = false;
        let perf = web_sys::window().and_then(|w| w.performance());
        let t0 = perf.as_ref().map_or(0.0, |p| p.now());
        let mut views = Vec::with_capacity(self.runs.len());
        for r in &mut self.runs {
            let snap = r.sim.snapshot();
            r.calm = StageCalm {
                counts: snap.summary.all.requests,
                last_step: snap.last_step,
                restarting_until_s: snap.restarting_until_s,
                kv_fill: snap.replicas.iter().map(|v| v.kv_fill).collect(),
            };
            views.push(RunView {
                now_s: snap.now_s,
                finished: snap.finished,
                hbm: snap.hbm,
                last_step: snap.last_step,
                restarting_until_s: snap.restarting_until_s,
                running: snap.running,
                queued: snap.queued.iter().sum(),
                limit: snap.limit,
                replicas: snap.replicas,
                summary: snap.summary,
            });
        }
        let labels = ["A", "B"];
        let input = charts::ChartInput {
            runs: self.runs.iter().enumerate().map(|(i, r)| (labels[i.min(1)], &r.sim)).collect(),
            class,
        };
        let t1 = perf.as_ref().map_or(0.0, |p| p.now());
        // Charts refresh half at a time (each about 3 times a second) unless asked for all.
        self.ticks = self.ticks.wrapping_add(1);
        charts::draw(&input, if force || resized { None } else { Some(self.ticks) });
        if let Some(p) = &perf {
            let t2 = p.now();
            push_bounded(&mut self.stats.calm_ms, t2 - t0);
            push_bounded(&mut self.stats.charts_ms, t2 - t1);
        }
        Some(views)
    }

    /// Marks the panels and charts for a refresh at the next calm tick.
    pub fn touch(&mut self) {
        self.dirty = true;
    }

    /// Live requests of each run in the last frame.
    pub fn live_counts(&self) -> Vec<usize> {
        self.runs.iter().map(|r| r.stage.live_count).collect()
    }
}

/// Processes the events of `sim` up to `target` (µs) until `deadline` (ms, performance clock).
/// Returns true when the deadline stopped it before the target.
fn advance(sim: &mut Simulation, target: u64, deadline: f64, perf: &web_sys::Performance) -> bool {
    let mut n: u32 = 0;
    loop {
        match sim.next_event_time() {
            Some(t) if t <= target => {}
            _ => break,
        }
        sim.advance_events(1);
        n = n.wrapping_add(1);
        if n % 256 == 0 && perf.now() > deadline {
            return true;
        }
    }
    // Move the clock on only while requests remain: a finished run keeps the time of its last
    // event, so its summary equals `run_to_end` (and `llmsim run`).
    if target != u64::MAX && !sim.is_finished() && target > sim.now() {
        sim.advance_to(target);
    }
    false
}

/// Runs a built-in preset to its end in a fresh simulation and returns the summary as the
/// CLI prints it (`llmsim run --preset ID`, pretty JSON).
pub fn run_preset_json(id: &str) -> String {
    let Some(p) = sim_core::presets::find(id) else {
        return format!("{{\"error\":\"no preset {id:?}\"}}");
    };
    let scenario = match Scenario::from_json(p.json) {
        Ok(s) => s,
        Err(e) => return format!("{{\"error\":{:?}}}", e.to_string()),
    };
    match Simulation::new(&scenario) {
        Ok(mut sim) => {
            let summary = sim.run_to_end();
            sim_core::pretty::to_string_pretty(&summary)
                .unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string()))
        }
        Err(e) => format!("{{\"error\":{:?}}}", e.to_string()),
    }
}
