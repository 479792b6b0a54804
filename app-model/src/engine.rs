//! The page's controller without the DOM: the runs on screen (one, or two in A/B mode), advancing
//! them every animation frame by the frame's wall time × speed within a per-frame budget (on a
//! clock the caller passes: the page's `performance.now()`, a test's counter), the numbers the
//! calm tick hands the panels, and the frame statistics the test hooks read (`lab_stats`).

use std::collections::VecDeque;

use sim_core::metrics::Summary;
use sim_core::sim::{HbmUse, Limit, ReplicaView, StepInfo};
use sim_core::{GpuSpec, HbmPlan, ModelSpec, Scenario, Simulation};

use crate::stage::StageCalm;

/// How often the panels' numbers and what the stage draws from refresh, ms (the calm tick: about
/// 7 times a second), in the page and in the first-frame module.
pub const CALM_TICK_MS: u32 = 150;

/// Sim work allowed per frame before the run falls behind the requested speed, ms.
pub const FRAME_BUDGET_MS: f64 = 9.0;
/// Sim work per frame while fast-forwarding to the end, ms.
pub const FAST_FORWARD_BUDGET_MS: f64 = 40.0;
/// The longest wall time one frame advances by, ms (a frame after a stall, a hidden tab).
pub const MAX_FRAME_MS: f64 = 100.0;
/// Events processed between two looks at the clock.
const EVENTS_PER_LOOK: u32 = 256;

/// Facts of a run that do not change while it runs: for the HBM gauge, formula and legends.
#[derive(Clone, Debug, PartialEq)]
pub struct RunInfo {
    pub scenario: Scenario,
    pub model: ModelSpec,
    pub gpu: GpuSpec,
    pub plan: HbmPlan,
    pub class_names: Vec<String>,
}

impl RunInfo {
    pub fn of(sim: &Simulation) -> RunInfo {
        RunInfo {
            scenario: sim.scenario().clone(),
            model: sim.model().clone(),
            gpu: sim.gpu().clone(),
            plan: sim.hbm_plan().clone(),
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
    pub limit: Limit,
    /// Each replica now (empty with one).
    pub replicas: Vec<ReplicaView>,
}

/// How many samples of each timing the statistics keep (the latest).
pub const STATS_KEEP: usize = 900;

/// Frame timings for the budget report, ms.
#[derive(Default)]
pub struct FrameStats {
    work_ms: VecDeque<f64>,
    calm_ms: VecDeque<f64>,
    charts_ms: VecDeque<f64>,
    interval_ms: VecDeque<f64>,
    pub frames: u64,
    /// When the first frame with run A past t = 0 ended (recorded once).
    pub first_animated_ms: Option<f64>,
    last_start: Option<f64>,
}

impl FrameStats {
    /// A frame that started at `start` and ended at `end`; `animated`: run A is past t = 0.
    pub fn frame(&mut self, start: f64, end: f64, animated: bool) {
        if animated && self.first_animated_ms.is_none() {
            self.first_animated_ms = Some(end);
        }
        self.frames += 1;
        if let Some(prev) = self.last_start {
            push_bounded(&mut self.interval_ms, start - prev);
        }
        self.last_start = Some(start);
        push_bounded(&mut self.work_ms, end - start);
    }

    /// A calm tick that took `total_ms`, `charts_ms` of it drawing the charts.
    pub fn calm(&mut self, total_ms: f64, charts_ms: f64) {
        push_bounded(&mut self.calm_ms, total_ms);
        push_bounded(&mut self.charts_ms, charts_ms);
    }

    /// Forgets the timings collected so far (not the frame count or the first animated frame).
    pub fn reset(&mut self) {
        self.work_ms.clear();
        self.calm_ms.clear();
        self.charts_ms.clear();
        self.interval_ms.clear();
    }

    /// JSON with percentiles of frame work time, frame interval and calm tick, then `extra`.
    pub fn json(&self, extra: &[(&str, f64)]) -> String {
        let q = quantile;
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

/// The sample at rank round((n − 1) × p) of the sorted samples; 0 with none.
pub fn quantile(v: &VecDeque<f64>, p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s: Vec<f64> = v.iter().copied().collect();
    s.sort_by(f64::total_cmp);
    let i = ((s.len() as f64 - 1.0) * p).round() as usize;
    s[i.min(s.len() - 1)]
}

fn push_bounded(v: &mut VecDeque<f64>, x: f64) {
    if v.len() == STATS_KEEP {
        v.pop_front();
    }
    v.push_back(x);
}

/// What the animation loop asks of a frame.
#[derive(Clone, Copy, Debug)]
pub struct Tick {
    /// When the frame starts, ms on the caller's clock.
    pub now_ms: f64,
    pub playing: bool,
    /// Simulated seconds per wall-clock second.
    pub speed: f64,
    pub fast_forward: bool,
}

/// What a frame's advance did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Advanced {
    /// Wall time since the previous frame, ms (at most [`MAX_FRAME_MS`]): the stage's motion.
    pub dt_ms: f64,
    pub all_finished: bool,
    /// The runs could not keep up with the requested speed in this frame.
    pub behind: bool,
}

/// One simulation and the numbers its stage drew from at the last calm tick.
pub struct LiveRun {
    pub sim: Simulation,
    pub calm: StageCalm,
}

/// The runs on screen and the clock they follow.
pub struct Runs {
    pub runs: Vec<LiveRun>,
    /// Simulated time the runs should have reached, µs.
    clock_us: f64,
    last_wall: Option<f64>,
    pub stats: FrameStats,
    /// Something changed since the last calm tick.
    dirty: bool,
}

impl Runs {
    pub fn new(sims: Vec<Simulation>) -> Runs {
        let mut r =
            Runs { runs: Vec::new(), clock_us: 0.0, last_wall: None, stats: FrameStats::default(), dirty: true };
        r.replace(sims);
        r
    }

    /// Replaces every run by fresh simulations, from t = 0.
    pub fn replace(&mut self, sims: Vec<Simulation>) {
        self.runs = sims.into_iter().map(|sim| LiveRun { sim, calm: StageCalm::default() }).collect();
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

    /// Run A's simulated time, s.
    pub fn sim_time_s(&self) -> f64 {
        self.runs.first().map_or(0.0, |r| r.sim.now() as f64 / 1e6)
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

    /// Moves every run on to simulated time `t_us` at once, and the clock with them: the page
    /// taking over the opening run where the first-frame module had got to. A run finished
    /// before `t_us` keeps the time of its last event.
    pub fn seek(&mut self, t_us: u64) {
        for r in &mut self.runs {
            advance(&mut r.sim, t_us, f64::INFINITY, &mut || 0.0);
        }
        self.clock_us = self.runs.iter().map(|r| r.sim.now() as f64).fold(0.0, f64::max);
        self.dirty = true;
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

    /// A frame's advance: the clock moves on by the wall time since the last frame × speed and
    /// every run follows it, each within its share of the frame's budget on `clock` (ms); a run
    /// stopped by its share puts the clock back to the slowest unfinished run. Fast-forward runs
    /// towards the end within a larger budget. A paused run stays where it is.
    pub fn advance(&mut self, tick: Tick, clock: &mut dyn FnMut() -> f64) -> Advanced {
        let dt_ms = match self.last_wall {
            Some(last) => (tick.now_ms - last).clamp(0.0, MAX_FRAME_MS),
            None => 0.0,
        };
        self.last_wall = Some(tick.now_ms);
        let mut out = Advanced { dt_ms, ..Advanced::default() };
        if tick.playing || tick.fast_forward {
            let budget = if tick.fast_forward { FAST_FORWARD_BUDGET_MS } else { FRAME_BUDGET_MS };
            let deadline = tick.now_ms + budget;
            let target = if tick.fast_forward {
                u64::MAX
            } else {
                self.clock_us += dt_ms * tick.speed * 1000.0;
                self.clock_us as u64
            };
            let n = self.runs.len().max(1) as f64;
            for (i, r) in self.runs.iter_mut().enumerate() {
                // each run gets its share of what is left of the budget
                let share = tick.now_ms + (deadline - tick.now_ms) * (i as f64 + 1.0) / n;
                if advance(&mut r.sim, target, share, clock) {
                    out.behind = true;
                }
            }
            if tick.fast_forward || out.behind {
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
        out
    }

    /// Records a frame that started at `start` and ended at `end` (ms).
    pub fn frame_done(&mut self, start: f64, end: f64) {
        let animated = self.runs.first().is_some_and(|r| r.sim.now() > 0);
        self.stats.frame(start, end, animated);
    }

    /// Whether the calm tick has anything to refresh (something changed, or `force`); clears the
    /// mark.
    pub fn take_due(&mut self, force: bool) -> bool {
        let due = self.dirty || force;
        self.dirty = false;
        due
    }

    /// Marks the panels and charts for a refresh at the next calm tick.
    pub fn touch(&mut self) {
        self.dirty = true;
    }

    /// The calm tick's numbers: each run's view for the panels, and what its stage draws from.
    pub fn views(&mut self) -> Vec<RunView> {
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
        views
    }
}

/// Processes the events of `sim` up to `target` (µs) until `deadline` (ms on `clock`, read every
/// [`EVENTS_PER_LOOK`] events). Returns true when the deadline stopped it before the target.
pub fn advance(sim: &mut Simulation, target: u64, deadline: f64, clock: &mut dyn FnMut() -> f64) -> bool {
    let mut n: u32 = 0;
    loop {
        match sim.next_event_time() {
            Some(t) if t <= target => {}
            _ => break,
        }
        sim.advance_events(1);
        n = n.wrapping_add(1);
        if n.is_multiple_of(EVENTS_PER_LOOK) && clock() > deadline {
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

/// Runs a built-in preset to its end in a fresh simulation and returns the summary as the CLI
/// prints it (`llmsim run --preset ID`, pretty JSON).
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
