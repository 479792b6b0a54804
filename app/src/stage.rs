//! The stage: every live request is a class glyph that travels
//! arrivals → queue (one lane per class when isolated) → prefill (chunk progress) →
//! a decode slot (its token count growing) → an outcome bin.
//!
//! The simulation says where each request *is*; the stage remembers where each glyph was *drawn*
//! and eases it towards its place in wall-clock time, so motion stays smooth at any speed.
//! Preempted requests flash and glide back into the queue; ended ones fly to their outcome.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::f64::consts::TAU;
use std::hash::{BuildHasherDefault, Hasher};

use sim_core::metrics::Counts;
use sim_core::sim::{Ending, StepInfo};
use sim_core::{LiveRequest, Phase, Simulation};
use web_sys::CanvasRenderingContext2d;

use crate::format;
use crate::glyph;
use crate::i18n::{fill, t_untracked};
use crate::theme::palette;

/// Template text in the current language, without tracking (the canvas redraws every frame).
fn tr(key: &str, args: &[(&str, String)]) -> String {
    fill(&t_untracked(key), args)
}

/// A multiply-rotate hasher for request ids: they are small sequential integers.
#[derive(Default)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(*b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type IdMap<V> = HashMap<u64, V, BuildHasherDefault<IdHasher>>;

/// Wall-clock time constant of the glyph easing, ms.
const EASE_MS: f64 = 90.0;
/// Flight time of an ended request to its outcome bin, ms.
const GHOST_MS: f64 = 600.0;
/// Most flying glyphs at once (fast-forward ends thousands of requests per frame).
const MAX_GHOSTS: usize = 400;
/// Most decode slots drawn (max_num_seqs may reach 4096).
const MAX_CELLS: usize = 1024;

struct Sprite {
    x: f64,
    y: f64,
    r: f64,
    class: u16,
    phase: Phase,
    seen: u32,
    /// Decode slot, while decoding.
    cell: Option<u32>,
    /// Remaining highlight after a preemption, ms.
    flash: f64,
}

struct Ghost {
    from: (f64, f64),
    via: (f64, f64),
    to: (f64, f64),
    r: f64,
    t: f64,
    class: u16,
    bin: usize,
}

/// Outcome bins, top to bottom: icon and label (a translation key); colours in the palette.
const BINS: [(&str, &str); 4] = [
    ("✓", "stage.bin.completed"),
    ("✕", "stage.bin.rejected"),
    ("◷", "stage.bin.timed_out"),
    ("!", "stage.bin.oom_lost"),
];

fn bin_of(ending: Ending) -> Option<usize> {
    match ending {
        Ending::Completed => Some(0),
        Ending::Rejected => Some(1),
        Ending::TimedOut => Some(2),
        Ending::Failed => Some(3),
        Ending::Preempted => None,
    }
}

/// Positions of the stations for one canvas size and scenario shape.
struct Geo {
    w: f64,
    h: f64,
    top: f64,
    bottom: f64,
    spawn_x: f64,
    q0: f64,
    q1: f64,
    p0: f64,
    p1: f64,
    d0: f64,
    d1: f64,
    o0: f64,
    o1: f64,
    lanes: Vec<(f64, f64)>,
    cells: usize,
    cell_cols: usize,
    cell_w: f64,
    cell_h: f64,
}

impl Geo {
    fn new(w: f64, h: f64, lanes: usize, max_seqs: usize) -> Geo {
        let top = 54.0;
        let bottom = h - 26.0;
        let body = bottom - top;
        let gap = 6.0;
        let n = lanes.max(1) as f64;
        let lane_h = (body - gap * (n - 1.0)) / n;
        let lanes = (0..lanes.max(1))
            .map(|i| {
                let y0 = top + i as f64 * (lane_h + gap);
                (y0, y0 + lane_h)
            })
            .collect();
        let (d0, d1) = (0.5 * w, 0.845 * w);
        let cells = max_seqs.clamp(1, MAX_CELLS);
        // Cells are progress bars: pick the column count that makes them largest at ~3:1.
        let (mut best, mut best_cols) = (0.0, 1);
        for cols in 1..=cells {
            let rows = cells.div_ceil(cols);
            let cw = (d1 - d0) / cols as f64;
            let ch = body / rows as f64;
            let size = (cw / 3.0).min(ch);
            if size > best {
                best = size;
                best_cols = cols;
            }
        }
        let rows = cells.div_ceil(best_cols);
        Geo {
            w,
            h,
            top,
            bottom,
            spawn_x: 0.03 * w,
            q0: 0.065 * w,
            q1: 0.315 * w,
            p0: 0.34 * w,
            p1: 0.48 * w,
            d0,
            d1,
            o0: 0.86 * w,
            o1: w - 6.0,
            lanes,
            cells,
            cell_cols: best_cols,
            cell_w: (d1 - d0) / best_cols as f64,
            cell_h: (body / rows as f64).min(40.0),
        }
    }

    fn lane_mid(&self, lane: usize) -> f64 {
        let (a, b) = self.lanes[lane.min(self.lanes.len() - 1)];
        (a + b) / 2.0
    }

    fn cell_rect(&self, i: usize) -> (f64, f64, f64, f64) {
        let col = i % self.cell_cols;
        let row = i / self.cell_cols;
        (self.d0 + col as f64 * self.cell_w, self.top + row as f64 * self.cell_h, self.cell_w, self.cell_h)
    }

    fn bin_rect(&self, bin: usize) -> (f64, f64, f64, f64) {
        let gap = 8.0;
        let h = ((self.bottom - self.top) - gap * 3.0) / 4.0;
        (self.o0, self.top + bin as f64 * (h + gap), self.o1 - self.o0, h)
    }

    /// Where flights end: the bin's icon, so its label and count stay readable.
    fn bin_target(&self, bin: usize) -> (f64, f64) {
        let (x, y, _, _) = self.bin_rect(bin);
        (x + 10.0, y + 12.0)
    }
}

/// Queue grid of one lane: pitch and capacity for `n` tokens.
struct LaneGrid {
    x1: f64,
    y_mid: f64,
    pitch: f64,
    cols: usize,
    cap: usize,
}

impl LaneGrid {
    fn new(g: &Geo, lane: usize, n: usize) -> LaneGrid {
        let (y0, y1) = g.lanes[lane];
        let (x0, x1) = (g.q0 + 6.0, g.q1 - 6.0);
        let (y0, y1) = (y0 + 16.0, y1 - 4.0);
        let (w, h) = ((x1 - x0).max(4.0), (y1 - y0).max(4.0));
        let mut pick = None;
        for pitch in [18.0, 14.0, 11.0, 8.0, 6.0, 5.0, 4.0] {
            let cols = ((w / pitch).floor() as usize).max(1);
            let rows = ((h / pitch).floor() as usize).max(1);
            // an odd number of rows keeps the middle-out fill inside the lane
            let rows = if rows % 2 == 0 { rows - 1 } else { rows };
            pick = Some((pitch, cols, rows));
            if cols * rows >= n {
                break;
            }
        }
        let (pitch, cols, rows) = pick.unwrap_or((4.0, 1, 1));
        let cap = cols * rows;
        LaneGrid { x1, y_mid: (y0 + y1) / 2.0, pitch, cols, cap }
    }

    /// Slot `i` of the queue (0 = head, at the right). Rows fill outwards from the lane's
    /// middle — middle, below, above, … — so a row never moves when the queue grows.
    fn pos(&self, i: usize) -> (f64, f64) {
        let i = i.min(self.cap.saturating_sub(1));
        let col = i % self.cols;
        let row = i / self.cols;
        let x = self.x1 - self.pitch * (col as f64 + 0.5);
        let k = row.div_ceil(2) as f64;
        let off = if row % 2 == 1 { k } else { -k };
        let y = self.y_mid + off * self.pitch;
        (x, y)
    }
}

/// Scenario facts the stage needs, read once per run.
pub struct StageConfig {
    pub isolation: bool,
    pub max_num_seqs: usize,
    pub class_names: Vec<String>,
    pub priorities: Vec<u32>,
    pub static_batching: bool,
}

impl StageConfig {
    pub fn of(sim: &Simulation) -> StageConfig {
        let s = sim.scenario();
        StageConfig {
            isolation: s.lane_per_class(),
            max_num_seqs: s.scheduler.max_num_seqs as usize,
            class_names: sim.class_names().to_vec(),
            priorities: s.classes.iter().map(|c| c.priority).collect(),
            static_batching: s.scheduler.batching == sim_core::scenario::Batching::Static,
        }
    }
    fn lanes(&self) -> usize {
        if self.isolation {
            self.class_names.len()
        } else {
            1
        }
    }
    fn lane_of(&self, class: u16) -> usize {
        if self.isolation {
            class as usize
        } else {
            0
        }
    }
}

/// Values refreshed at the calm tick that the stage prints.
#[derive(Clone, Copy, Default)]
pub struct StageCalm {
    pub counts: Counts,
    pub last_step: StepInfo,
    pub restarting_until_s: Option<f64>,
}

/// Everything the stage remembers between frames for one run.
pub struct StageState {
    cfg: StageConfig,
    sprites: IdMap<Sprite>,
    ghosts: Vec<Ghost>,
    free_cells: BinaryHeap<Reverse<u32>>,
    next_cell: u32,
    frame: u32,
    last_recent: Option<(u64, Ending, u64)>,
    preempt_flash: f64,
    bin_flash: [f64; 4],
    geo: Option<Geo>,
    // scratch buffers kept across frames
    lane_order: Vec<Vec<(f64, u64)>>,
    prefill_order: Vec<(f64, u64)>,
    glyphs: Vec<Vec<(f64, f64, f64)>>,
    /// Live requests in the last frame.
    pub live_count: usize,
    /// Motion tempo: glyphs move faster when simulated time runs faster, so fewer are in
    /// transit at once and the picture stays readable (1 at 1× or below, √speed above, ≤ 4).
    pace: f64,
}

impl StageState {
    pub fn new(cfg: StageConfig) -> StageState {
        let classes = cfg.class_names.len().max(1);
        StageState {
            lane_order: vec![Vec::new(); cfg.lanes()],
            glyphs: vec![Vec::new(); classes],
            cfg,
            sprites: IdMap::default(),
            ghosts: Vec::new(),
            free_cells: BinaryHeap::new(),
            next_cell: 0,
            frame: 0,
            last_recent: None,
            preempt_flash: 0.0,
            bin_flash: [0.0; 4],
            geo: None,
            prefill_order: Vec::new(),
            live_count: 0,
            pace: 1.0,
        }
    }

    fn geo(&mut self, w: f64, h: f64) -> &Geo {
        let stale = self.geo.as_ref().is_none_or(|g| g.w != w || g.h != h);
        if stale {
            self.geo = Some(Geo::new(w, h, self.cfg.lanes(), self.cfg.max_num_seqs));
        }
        // just set when missing
        self.geo.get_or_insert_with(|| Geo::new(w, h, 1, 1))
    }

    fn alloc_cell(&mut self) -> u32 {
        if let Some(Reverse(c)) = self.free_cells.pop() {
            c
        } else {
            self.next_cell += 1;
            self.next_cell - 1
        }
    }

    /// Sets the motion tempo from the simulation speed.
    pub fn set_speed(&mut self, speed: f64) {
        self.pace = if speed.is_finite() { speed.sqrt().clamp(1.0, 4.0) } else { 4.0 };
    }

    /// Moves the glyphs one frame towards where `live` says the requests are, and draws.
    #[allow(clippy::too_many_arguments)]
    pub fn frame(
        &mut self,
        ctx: &CanvasRenderingContext2d,
        w: f64,
        h: f64,
        sim: &Simulation,
        live: &[LiveRequest],
        calm: &StageCalm,
        dt_ms: f64,
    ) {
        self.frame = self.frame.wrapping_add(1);
        self.live_count = live.len();
        let _ = self.geo(w, h);
        let Some(g) = self.geo.take() else { return };
        self.advance(&g, sim, live, dt_ms);
        self.draw(ctx, &g, sim, live, calm);
        self.geo = Some(g);
    }

    fn advance(&mut self, g: &Geo, sim: &Simulation, live: &[LiveRequest], dt_ms: f64) {
        let frame = self.frame;
        // 1. What ended or was preempted since the last frame.
        let recent: Vec<_> = sim.recent_endings().copied().collect();
        let start = match self.last_recent {
            Some(key) => recent.iter().rposition(|e| (e.id, e.ending, e.at_s.to_bits()) == key).map_or(0, |i| i + 1),
            None => 0,
        };
        if let Some(e) = recent.last() {
            self.last_recent = Some((e.id, e.ending, e.at_s.to_bits()));
        }
        let mut ended: IdMap<(Ending, u16)> = IdMap::default();
        for e in &recent[start..] {
            match e.ending {
                Ending::Preempted => {
                    self.preempt_flash = 1500.0;
                    if let Some(s) = self.sprites.get_mut(&e.id) {
                        s.flash = 1500.0;
                    }
                }
                Ending::Rejected => {
                    // Turned away at the door: it never entered a queue.
                    let lane = self.cfg.lane_of(e.class);
                    let from = (g.spawn_x, g.lane_mid(lane));
                    self.launch(g, from, 5.0, e.class, 1);
                }
                other => {
                    ended.insert(e.id, (other, e.class));
                }
            }
        }

        // 2. Phase changes: free and take decode slots, notice preemptions.
        for r in live {
            let lane = self.cfg.lane_of(r.class);
            let spawn = (g.spawn_x, g.lane_mid(lane));
            let s = self.sprites.entry(r.id).or_insert(Sprite {
                x: spawn.0,
                y: spawn.1,
                r: 4.0,
                class: r.class,
                phase: Phase::Queued,
                seen: frame,
                cell: None,
                flash: 0.0,
            });
            s.seen = frame;
            if s.phase != r.phase {
                if s.phase != Phase::Queued && r.phase == Phase::Queued {
                    s.flash = s.flash.max(1500.0);
                }
                s.phase = r.phase;
            }
            if r.phase != Phase::Decode {
                if let Some(c) = s.cell.take() {
                    self.free_cells.push(Reverse(c));
                }
            }
        }
        for r in live {
            if r.phase == Phase::Decode && self.sprites.get(&r.id).is_some_and(|s| s.cell.is_none()) {
                let c = self.alloc_cell();
                if let Some(s) = self.sprites.get_mut(&r.id) {
                    s.cell = Some(c);
                }
            }
        }

        // 3. Requests that are gone: free their slots, send them to their outcome.
        let mut gone: Vec<(f64, f64, f64, u16, usize)> = Vec::new();
        let mut launched: IdMap<()> = IdMap::default();
        let free_cells = &mut self.free_cells;
        self.sprites.retain(|id, s| {
            if s.seen == frame {
                return true;
            }
            if let Some(c) = s.cell.take() {
                free_cells.push(Reverse(c));
            }
            launched.insert(*id, ());
            let bin = match ended.get(id) {
                Some((e, _)) => bin_of(*e),
                None if s.phase == Phase::Queued => Some(2),
                None => Some(0),
            };
            if let Some(bin) = bin {
                gone.push((s.x, s.y, s.r, s.class, bin));
            }
            false
        });
        for (x, y, r, class, bin) in gone {
            self.launch(g, (x, y), r, class, bin);
        }
        // Some ended within a frame of arriving (high speed): they never had a glyph.
        for (id, (ending, class)) in &ended {
            if !launched.contains_key(id) {
                if let Some(bin) = bin_of(*ending) {
                    let from = (g.spawn_x, g.lane_mid(self.cfg.lane_of(*class)));
                    self.launch(g, from, 4.0, *class, bin);
                }
            }
        }
        if self.sprites.is_empty() {
            self.free_cells.clear();
            self.next_cell = 0;
        }

        // 4. Targets: queue order per lane (by arrival: FCFS, preempted requests first).
        for l in &mut self.lane_order {
            l.clear();
        }
        self.prefill_order.clear();
        for r in live {
            match r.phase {
                Phase::Queued => {
                    let lane = self.cfg.lane_of(r.class).min(self.lane_order.len() - 1);
                    self.lane_order[lane].push((r.arrival_s, r.id));
                }
                Phase::Prefill => self.prefill_order.push((r.arrival_s, r.id)),
                Phase::Decode => {}
            }
        }
        let k = 1.0 - (-dt_ms * self.pace / EASE_MS).exp();
        for (lane, order) in self.lane_order.iter_mut().enumerate() {
            order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let grid = LaneGrid::new(g, lane, order.len());
            let r = grid.pitch * 0.36;
            for (i, (_, id)) in order.iter().enumerate() {
                if let Some(s) = self.sprites.get_mut(id) {
                    let (tx, ty) = grid.pos(i);
                    ease(s, tx, ty, r, k);
                }
            }
        }
        self.prefill_order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let rows = PrefillRows::new(g, self.prefill_order.len());
        for (i, (_, id)) in self.prefill_order.iter().enumerate() {
            if let Some(s) = self.sprites.get_mut(id) {
                let (x, y) = rows.glyph(g, i);
                ease(s, x, y, rows.glyph_r(), k);
            }
        }
        for s in self.sprites.values_mut() {
            if s.phase == Phase::Decode {
                let c = s.cell.unwrap_or(0) as usize;
                let (cx, cy, cw, ch) = g.cell_rect(c.min(g.cells - 1));
                let r = (ch * 0.32).clamp(1.5, 6.0);
                let x = cx + (r + 2.0).min(cw * 0.3);
                ease(s, x, cy + ch / 2.0, r, k);
            }
            s.flash = (s.flash - dt_ms).max(0.0);
        }

        // 5. Flights.
        for gh in &mut self.ghosts {
            gh.t += dt_ms * self.pace / GHOST_MS;
        }
        let bin_flash = &mut self.bin_flash;
        self.ghosts.retain(|gh| {
            if gh.t >= 1.0 {
                bin_flash[gh.bin] = 400.0;
                false
            } else {
                true
            }
        });
        for f in &mut self.bin_flash {
            *f = (*f - dt_ms).max(0.0);
        }
        self.preempt_flash = (self.preempt_flash - dt_ms).max(0.0);
    }

    fn launch(&mut self, g: &Geo, from: (f64, f64), r: f64, class: u16, bin: usize) {
        if self.ghosts.len() >= MAX_GHOSTS {
            return;
        }
        let to = g.bin_target(bin);
        // Completions fly straight; the others dip below the stations.
        let via = if bin == 0 {
            ((from.0 + to.0) / 2.0, (from.1 + to.1) / 2.0)
        } else {
            ((from.0 + to.0) / 2.0, g.bottom + 10.0)
        };
        self.ghosts.push(Ghost { from, via, to, r: r.max(2.5), t: 0.0, class, bin });
    }

    fn draw(
        &mut self,
        ctx: &CanvasRenderingContext2d,
        g: &Geo,
        sim: &Simulation,
        live: &[LiveRequest],
        calm: &StageCalm,
    ) {
        let pal = palette();
        ctx.set_fill_style_str(pal.bg);
        ctx.fill_rect(0.0, 0.0, g.w, g.h);

        let waiting: usize = self.lane_order.iter().map(Vec::len).sum();
        let prefilling = self.prefill_order.len();
        let decoding = live.len() - waiting - prefilling;
        let running = prefilling + decoding;

        // Station titles and counts.
        ctx.set_text_baseline("alphabetic");
        title(
            ctx,
            g.q0,
            &t_untracked("stage.queue"),
            &tr(
                "stage.queue_sub",
                &[("arrived", format::int(calm.counts.arrived)), ("waiting", format::int(waiting as u64))],
            ),
        );
        let prompts = if prefilling == 1 { "stage.prompts_one" } else { "stage.prompts" };
        title(ctx, g.p0, &t_untracked("stage.prefill"), &tr(prompts, &[("n", prefilling.to_string())]));
        title(
            ctx,
            g.d0,
            &t_untracked("stage.decode"),
            &tr(
                "stage.decode_sub",
                &[("n", format::int(running as u64)), ("max", format::int(self.cfg.max_num_seqs as u64))],
            ),
        );
        title(ctx, g.o0, &t_untracked("stage.outcome"), "");

        // The running batch as a whole: one bracket around prefill and decode.
        ctx.set_stroke_style_str(pal.bracket);
        ctx.set_line_width(1.0);
        let _ = ctx.set_line_dash(&dash(&[4.0, 3.0]));
        round_rect(ctx, g.p0 - 6.0, g.top - 5.0, g.d1 - g.p0 + 12.0, g.bottom - g.top + 10.0, 8.0);
        ctx.stroke();
        let _ = ctx.set_line_dash(&dash(&[]));

        // Arrival door.
        ctx.set_fill_style_str(pal.zone);
        for lane in 0..g.lanes.len() {
            let y = g.lane_mid(lane);
            ctx.set_fill_style_str(pal.door);
            round_rect(ctx, g.spawn_x - 7.0, y - 14.0, 14.0, 28.0, 4.0);
            ctx.fill();
            ctx.set_fill_style_str(pal.muted);
            ctx.set_font(pal.font_small);
            ctx.set_text_align("center");
            let _ = ctx.fill_text("→", g.spawn_x, y + 4.0);
            ctx.set_font(pal.font_tiny);
            let _ = ctx.fill_text(&t_untracked("stage.in"), g.spawn_x, y + 26.0);
        }
        ctx.set_text_align("left");

        // Queue lanes.
        for (lane, (y0, y1)) in g.lanes.iter().enumerate() {
            ctx.set_fill_style_str(pal.zone);
            ctx.set_stroke_style_str(pal.zone_line);
            round_rect(ctx, g.q0, *y0, g.q1 - g.q0, y1 - y0, 6.0);
            ctx.fill();
            ctx.stroke();
            ctx.set_font(pal.font_tiny);
            ctx.set_fill_style_str(pal.muted);
            let n = self.lane_order[lane].len();
            let label = if self.cfg.isolation {
                let name = self.cfg.class_names.get(lane).map(String::as_str).unwrap_or("");
                let prio = self.cfg.priorities.get(lane).copied().unwrap_or(0);
                tr(
                    "stage.lane",
                    &[("name", name.to_string()), ("prio", prio.to_string()), ("n", format::int(n as u64))],
                )
            } else {
                t_untracked("stage.shared_queue")
            };
            let _ = ctx.fill_text(&label, g.q0 + 6.0, y0 + 12.0);
            let grid = LaneGrid::new(g, lane, n);
            if n > grid.cap {
                let (x, y) = grid.pos(grid.cap - 1);
                ctx.set_fill_style_str(pal.zone);
                ctx.fill_rect(x - grid.pitch * 2.5, y - grid.pitch / 2.0, grid.pitch * 3.0, grid.pitch);
                ctx.set_fill_style_str(pal.text);
                ctx.set_font(pal.font_tiny);
                ctx.set_text_align("right");
                let _ =
                    ctx.fill_text(&format!("+{}", format::int((n - grid.cap) as u64)), x + grid.pitch / 2.0, y + 3.5);
                ctx.set_text_align("left");
            }
        }

        // Prefill rows: chunk progress of each prompt.
        let rows = PrefillRows::new(g, prefilling);
        ctx.set_fill_style_str(pal.zone);
        ctx.set_stroke_style_str(pal.zone_line);
        round_rect(ctx, g.p0, g.top, g.p1 - g.p0, g.bottom - g.top, 6.0);
        ctx.fill();
        ctx.stroke();
        let by_id: IdMap<&LiveRequest> = live.iter().filter(|r| r.phase == Phase::Prefill).map(|r| (r.id, r)).collect();
        for (i, (_, id)) in self.prefill_order.iter().enumerate().take(rows.shown) {
            let Some(r) = by_id.get(id) else { continue };
            let (x, y, w, h) = rows.bar(g, i);
            let c = r.class as usize;
            ctx.set_fill_style_str(glyph::tint(c));
            ctx.fill_rect(x, y, w, h);
            let share = if r.prefill_target > 0 { f64::from(r.prefilled) / f64::from(r.prefill_target) } else { 0.0 };
            ctx.set_fill_style_str(glyph::colour(c));
            ctx.fill_rect(x, y, w * share.clamp(0.0, 1.0), h);
            if h >= 11.0 {
                ctx.set_font(pal.font_tiny);
                ctx.set_fill_style_str(pal.text);
                let _ = ctx.fill_text(
                    &format!(
                        "{} / {} tok",
                        format::int(u64::from(r.prefilled)),
                        format::int(u64::from(r.prefill_target))
                    ),
                    x + 3.0,
                    y + h - 2.5,
                );
            }
        }
        if prefilling > rows.shown {
            ctx.set_font(pal.font_tiny);
            ctx.set_fill_style_str(pal.text);
            let _ = ctx.fill_text(
                &tr("stage.more", &[("n", (prefilling - rows.shown).to_string())]),
                g.p0 + 6.0,
                g.bottom - 4.0,
            );
        }

        // Decode slots: one cell per batch slot, filling as tokens are generated.
        let mut cell_req: Vec<Option<&LiveRequest>> = vec![None; g.cells];
        let mut overflow = 0usize;
        for r in live.iter().filter(|r| r.phase == Phase::Decode) {
            match self.sprites.get(&r.id).and_then(|s| s.cell) {
                Some(c) if (c as usize) < g.cells => cell_req[c as usize] = Some(r),
                _ => overflow += 1,
            }
        }
        ctx.set_stroke_style_str(pal.cell_line);
        ctx.set_line_width(1.0);
        for (i, slot) in cell_req.iter().enumerate() {
            let (x, y, w, h) = g.cell_rect(i);
            let (x, y, w, h) = (x + 1.0, y + 1.0, (w - 2.0).max(1.0), (h - 2.0).max(1.0));
            match slot {
                None => {
                    if h >= 3.0 {
                        ctx.stroke_rect(x + 0.5, y + 0.5, w - 1.0, h - 1.0);
                    }
                }
                Some(r) => {
                    let c = r.class as usize;
                    let done = r.generated >= r.output_tokens;
                    ctx.set_fill_style_str(if done { pal.done_cell } else { glyph::tint(c) });
                    ctx.fill_rect(x, y, w, h);
                    let share =
                        if r.output_tokens > 0 { f64::from(r.generated) / f64::from(r.output_tokens) } else { 0.0 };
                    if done {
                        // static batching: finished, but its slot stays taken until the batch ends
                        hatch(ctx, x, y, w, h);
                    } else {
                        ctx.set_fill_style_str(glyph::colour(c));
                        ctx.set_global_alpha(0.55);
                        ctx.fill_rect(x, y, w * share.clamp(0.0, 1.0), h);
                        ctx.set_global_alpha(1.0);
                    }
                    if h >= 13.0 && w >= 72.0 {
                        ctx.set_font(pal.font_tiny);
                        ctx.set_fill_style_str(pal.text);
                        ctx.set_text_align("right");
                        let text = if done {
                            t_untracked("stage.done_waits")
                        } else {
                            format!(
                                "{} / {}",
                                format::int(u64::from(r.generated)),
                                format::int(u64::from(r.output_tokens))
                            )
                        };
                        let _ = ctx.fill_text(&text, x + w - 3.0, y + h / 2.0 + 3.5);
                        ctx.set_text_align("left");
                    }
                }
            }
        }
        if overflow > 0 {
            ctx.set_font(pal.font_tiny);
            ctx.set_fill_style_str(pal.text);
            let _ =
                ctx.fill_text(&tr("stage.not_drawn", &[("n", format::int(overflow as u64))]), g.d0, g.bottom + 12.0);
        }

        // Outcome bins.
        for (i, (icon, label)) in BINS.iter().enumerate() {
            let colour = pal.bins[i];
            let (x, y, w, h) = g.bin_rect(i);
            ctx.set_fill_style_str(if self.bin_flash[i] > 0.0 { pal.flash } else { pal.zone });
            ctx.set_stroke_style_str(pal.zone_line);
            round_rect(ctx, x, y, w, h, 6.0);
            ctx.fill();
            ctx.stroke();
            let count = match i {
                0 => calm.counts.completed,
                1 => calm.counts.rejected,
                2 => calm.counts.timed_out,
                _ => calm.counts.failed,
            };
            ctx.set_fill_style_str(colour);
            ctx.set_font(pal.font_title);
            let _ = ctx.fill_text(icon, x + 6.0, y + 16.0);
            ctx.set_font(pal.font_small);
            ctx.set_fill_style_str(pal.text);
            let _ = ctx.fill_text(&fit(ctx, &t_untracked(label), w - 23.0), x + 21.0, y + 15.0);
            ctx.set_font(pal.font_title);
            let _ = ctx.fill_text(&format::int(count), x + 6.0, y + h - 8.0);
        }

        // Preemption: an arrow from the batch back to the queue.
        let preempted = calm.counts.preempted;
        if preempted > 0 || self.preempt_flash > 0.0 {
            let hot = self.preempt_flash > 0.0;
            ctx.set_stroke_style_str(if hot { pal.preempt } else { pal.preempt_soft });
            ctx.set_line_width(if hot { 2.0 } else { 1.0 });
            let _ = ctx.set_line_dash(&dash(&[5.0, 4.0]));
            let (x0, y0) = ((g.d0 + g.d1) / 2.0, g.top - 4.0);
            let (x1, y1) = (g.q1 - 20.0, g.top - 2.0);
            ctx.begin_path();
            ctx.move_to(x0, y0);
            ctx.quadratic_curve_to((x0 + x1) / 2.0, g.top - 14.0, x1, y1);
            ctx.stroke();
            let _ = ctx.set_line_dash(&dash(&[]));
            ctx.begin_path();
            ctx.move_to(x1, y1 + 1.0);
            ctx.line_to(x1 + 7.0, y1 - 4.0);
            ctx.line_to(x1 + 8.0, y1 + 3.0);
            ctx.close_path();
            ctx.set_fill_style_str(if hot { pal.preempt } else { pal.preempt_soft });
            ctx.fill();
            ctx.set_font(pal.font_tiny);
            let label = tr("stage.preempted", &[("n", format::int(preempted))]);
            let tw = ctx.measure_text(&label).map(|m| m.width()).unwrap_or(70.0);
            let mid = (x0 + x1) / 2.0;
            ctx.set_fill_style_str(pal.bg);
            ctx.fill_rect(mid - tw / 2.0 - 3.0, g.top - 19.0, tw + 6.0, 12.0);
            ctx.set_fill_style_str(pal.preempt);
            ctx.set_text_align("center");
            let _ = ctx.fill_text(&label, mid, g.top - 9.5);
            ctx.set_text_align("left");
            ctx.set_line_width(1.0);
        }

        // Glyphs, batched per class: one path and one fill for all tokens of a class.
        for v in &mut self.glyphs {
            v.clear();
        }
        let mut rings: Vec<(f64, f64, f64)> = Vec::new();
        for (lane, order) in self.lane_order.iter().enumerate() {
            let grid = LaneGrid::new(g, lane, order.len());
            for (i, (_, id)) in order.iter().enumerate() {
                if i >= grid.cap.saturating_sub(usize::from(order.len() > grid.cap)) {
                    break;
                }
                if let Some(s) = self.sprites.get(id) {
                    push_glyph(&mut self.glyphs, s, &mut rings);
                }
            }
        }
        for (i, (_, id)) in self.prefill_order.iter().enumerate() {
            if i >= rows.shown {
                break;
            }
            if let Some(s) = self.sprites.get(id) {
                push_glyph(&mut self.glyphs, s, &mut rings);
            }
        }
        for s in self.sprites.values() {
            if s.phase == Phase::Decode && s.cell.is_some_and(|c| (c as usize) < g.cells) {
                push_glyph(&mut self.glyphs, s, &mut rings);
            }
        }
        ctx.set_line_width(1.0);
        ctx.set_stroke_style_str(pal.bg);
        for (class, list) in self.glyphs.iter().enumerate() {
            if list.is_empty() {
                continue;
            }
            let shape = glyph::shape(class);
            ctx.begin_path();
            for &(x, y, r) in list {
                glyph::add_path(ctx, shape, x, y, r);
            }
            ctx.set_fill_style_str(glyph::colour(class));
            ctx.fill();
            if list.len() < 600 {
                ctx.stroke();
            }
        }
        if !rings.is_empty() {
            ctx.set_stroke_style_str(pal.preempt);
            ctx.set_line_width(2.0);
            ctx.begin_path();
            for (x, y, r) in rings {
                ctx.move_to(x + r + 3.0, y);
                let _ = ctx.arc(x, y, r + 3.0, 0.0, TAU);
            }
            ctx.stroke();
            ctx.set_line_width(1.0);
        }

        // Flights to the outcome bins.
        for gh in &self.ghosts {
            let t = ease_out(gh.t);
            let (x, y) = bezier(gh.from, gh.via, gh.to, t);
            let alpha = if gh.t > 0.75 { (1.0 - gh.t) / 0.25 } else { 1.0 };
            ctx.set_global_alpha(alpha.clamp(0.0, 1.0));
            ctx.begin_path();
            glyph::add_path(ctx, glyph::shape(gh.class as usize), x, y, gh.r);
            ctx.set_fill_style_str(if gh.bin == 0 { glyph::colour(gh.class as usize) } else { pal.bins[gh.bin] });
            ctx.fill();
        }
        ctx.set_global_alpha(1.0);

        // Server down after an OOM.
        if let Some(until) = calm.restarting_until_s {
            let now = sim.now() as f64 / 1e6;
            if until > now {
                ctx.set_fill_style_str("rgba(185, 28, 28, 0.14)");
                ctx.fill_rect(g.p0 - 6.0, g.top - 5.0, g.d1 - g.p0 + 12.0, g.bottom - g.top + 10.0);
                ctx.set_fill_style_str(pal.bins[3]);
                ctx.set_font(pal.font_title);
                ctx.set_text_align("center");
                let _ = ctx.fill_text(
                    &tr("stage.oom", &[("t", format::sim_time(until))]),
                    (g.p0 + g.d1) / 2.0,
                    (g.top + g.bottom) / 2.0,
                );
                ctx.set_text_align("left");
            }
        }

        // Footer: clock and the last iteration.
        let now = sim.now() as f64 / 1e6;
        ctx.set_font(pal.font_title);
        ctx.set_fill_style_str(pal.text);
        let clock = format!("t = {}", format::sim_time(now));
        let _ = ctx.fill_text(&clock, 6.0, g.h - 8.0);
        let step = &calm.last_step;
        ctx.set_font(pal.font_small);
        ctx.set_fill_style_str(pal.muted);
        let text = if sim.is_finished() {
            t_untracked("stage.finished")
        } else if step.duration_ms > 0.0 {
            tr(
                "stage.last_iteration",
                &[
                    ("ms", format::ms(step.duration_ms)),
                    ("prefill", format::int(step.prefill_tokens)),
                    ("decode", format::int(step.decode_seqs)),
                    ("pct", format!("{:.0}", step.compute_bound_share * 100.0)),
                ],
            )
        } else {
            t_untracked("stage.waiting_first")
        };
        // static batching adds a note at the right; the iteration line gives way to it
        let mut room = g.w - 116.0;
        if self.cfg.static_batching {
            let note = fit(ctx, &t_untracked("stage.static_note"), room / 2.0);
            room -= ctx.measure_text(&note).map(|m| m.width()).unwrap_or(0.0) + 12.0;
            ctx.set_text_align("right");
            let _ = ctx.fill_text(&note, g.w - 6.0, g.h - 8.0);
            ctx.set_text_align("left");
        }
        let _ = ctx.fill_text(&fit(ctx, &text, room), 110.0, g.h - 8.0);
    }
}

fn push_glyph(glyphs: &mut [Vec<(f64, f64, f64)>], s: &Sprite, rings: &mut Vec<(f64, f64, f64)>) {
    let c = (s.class as usize).min(glyphs.len() - 1);
    glyphs[c].push((s.x, s.y, s.r));
    if s.flash > 0.0 {
        rings.push((s.x, s.y, s.r));
    }
}

/// Prefill rows: one bar per prompt being prefilled.
struct PrefillRows {
    row_h: f64,
    shown: usize,
}

impl PrefillRows {
    fn new(g: &Geo, n: usize) -> PrefillRows {
        let body = g.bottom - g.top - 8.0;
        let row_h = if n == 0 { 20.0 } else { (body / n as f64).clamp(5.0, 20.0) };
        let fit = (body / row_h).floor() as usize;
        let shown = if n > fit { fit.saturating_sub(1) } else { n };
        PrefillRows { row_h, shown }
    }
    fn glyph_r(&self) -> f64 {
        (self.row_h * 0.3).clamp(1.5, 5.5)
    }
    fn glyph(&self, g: &Geo, i: usize) -> (f64, f64) {
        let i = i.min(self.shown.max(1) - 1);
        (g.p0 + 10.0, g.top + 4.0 + (i as f64 + 0.5) * self.row_h)
    }
    fn bar(&self, g: &Geo, i: usize) -> (f64, f64, f64, f64) {
        let y = g.top + 4.0 + i as f64 * self.row_h + self.row_h * 0.15;
        (g.p0 + 20.0, y, g.p1 - g.p0 - 26.0, self.row_h * 0.7)
    }
}

fn ease(s: &mut Sprite, tx: f64, ty: f64, tr: f64, k: f64) {
    s.x += (tx - s.x) * k;
    s.y += (ty - s.y) * k;
    s.r += (tr - s.r) * k;
}

fn ease_out(t: f64) -> f64 {
    let t = t.clamp(0.0, 1.0);
    1.0 - (1.0 - t) * (1.0 - t)
}

fn bezier(a: (f64, f64), b: (f64, f64), c: (f64, f64), t: f64) -> (f64, f64) {
    let u = 1.0 - t;
    (u * u * a.0 + 2.0 * u * t * b.0 + t * t * c.0, u * u * a.1 + 2.0 * u * t * b.1 + t * t * c.1)
}

fn title(ctx: &CanvasRenderingContext2d, x: f64, name: &str, sub: &str) {
    let pal = palette();
    ctx.set_font(pal.font_title);
    ctx.set_fill_style_str(pal.text);
    let _ = ctx.fill_text(name, x.max(4.0), 14.0);
    if !sub.is_empty() {
        ctx.set_font(pal.font_small);
        ctx.set_fill_style_str(pal.muted);
        let _ = ctx.fill_text(sub, x.max(4.0), 28.0);
    }
}

/// `text`, cut short with "…" when it is wider than `max_w` in the current font (labels in
/// another language or a heavier font must not run out of their box).
fn fit(ctx: &CanvasRenderingContext2d, text: &str, max_w: f64) -> String {
    let width = |s: &str| ctx.measure_text(s).map(|m| m.width()).unwrap_or(0.0);
    if width(text) <= max_w {
        return text.to_string();
    }
    let mut chars: Vec<char> = text.chars().collect();
    while !chars.is_empty() {
        chars.pop();
        let cut: String = chars.iter().collect::<String>().trim_end().to_string() + "…";
        if width(&cut) <= max_w {
            return cut;
        }
    }
    String::new()
}

/// Diagonal stripes: a slot that holds a finished request (not colour alone).
fn hatch(ctx: &CanvasRenderingContext2d, x: f64, y: f64, w: f64, h: f64) {
    ctx.save();
    ctx.begin_path();
    ctx.rect(x, y, w, h);
    ctx.clip();
    ctx.set_stroke_style_str(palette().hatch);
    ctx.begin_path();
    let mut i = -h;
    while i < w {
        ctx.move_to(x + i, y + h);
        ctx.line_to(x + i + h, y);
        i += 5.0;
    }
    ctx.stroke();
    ctx.restore();
}

pub fn round_rect(ctx: &CanvasRenderingContext2d, x: f64, y: f64, w: f64, h: f64, r: f64) {
    let r = r.min(w / 2.0).min(h / 2.0).max(0.0);
    ctx.begin_path();
    ctx.move_to(x + r, y);
    ctx.line_to(x + w - r, y);
    ctx.quadratic_curve_to(x + w, y, x + w, y + r);
    ctx.line_to(x + w, y + h - r);
    ctx.quadratic_curve_to(x + w, y + h, x + w - r, y + h);
    ctx.line_to(x + r, y + h);
    ctx.quadratic_curve_to(x, y + h, x, y + h - r);
    ctx.line_to(x, y + r);
    ctx.quadratic_curve_to(x, y, x + r, y);
    ctx.close_path();
}

/// A line-dash pattern for `set_line_dash`.
pub fn dash(pattern: &[f64]) -> wasm_bindgen::JsValue {
    let arr = js_sys::Array::new();
    for p in pattern {
        arr.push(&wasm_bindgen::JsValue::from_f64(*p));
    }
    arr.into()
}
