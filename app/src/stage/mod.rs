//! The stage: every live request is a class glyph that travels
//! arrivals → queue (one lane per class when isolated) → prefill (chunk progress) →
//! a decode slot (its token count growing) → an outcome bin.
//!
//! The simulation says where each request *is*; the stage remembers where each glyph was *drawn*
//! and eases it towards its place in wall-clock time, so motion stays smooth at any speed.
//! Preempted requests flash and glide back into the queue; ended ones fly to their outcome.
//!
//! With several replicas the prefill and decode stations have a band per replica (a tile each
//! beyond eight), so a request leaving the queue goes to the replica the router picked; with
//! prefill/decode disaggregation a prompt whose KV is on the links moves from its prefill
//! replica's band to its decode replica's as the link's times say.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

use sim_core::metrics::Counts;
use sim_core::sim::{Ending, StepInfo};
use sim_core::{LiveRequest, Phase, Simulation};
use web_sys::CanvasRenderingContext2d;

use app_model::stage_layout::{link_progress, Bin, Cluster, Geo, LaneGrid, PrefillRows, TextNeeds};

use crate::i18n::{fill, t_untracked};

mod draw;

pub use draw::{dash, round_rect};

/// The shortest a `w` wide stage may be drawn with this page's text (language, profile): its
/// outcome bins keep their labels and counts apart ([`Geo::min_height`]).
pub fn min_height(ctx: &CanvasRenderingContext2d, w: f64) -> f64 {
    Geo::with_text(w, 1000.0, 1, 1, draw::text_needs(ctx, w)).min_height()
}

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

struct Sprite {
    x: f64,
    y: f64,
    r: f64,
    class: u16,
    phase: Phase,
    seen: u32,
    /// The replica it is on.
    replica: u16,
    /// Decode slot in its replica's band, while decoding.
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
    bin: Bin,
}

/// Scenario facts the stage needs, read once per run.
pub struct StageConfig {
    pub isolation: bool,
    /// Most sequences running at once: every replica's batch.
    pub max_num_seqs: usize,
    pub class_names: Vec<String>,
    pub priorities: Vec<u32>,
    pub static_batching: bool,
    /// The replicas, their pools and batch slots.
    pub cluster: Cluster,
}

impl StageConfig {
    pub fn of(sim: &Simulation) -> StageConfig {
        let s = sim.scenario();
        StageConfig {
            isolation: s.lane_per_class(),
            max_num_seqs: s.scheduler.max_num_seqs as usize * sim.replica_count(),
            class_names: sim.class_names().to_vec(),
            priorities: s.classes.iter().map(|c| c.priority).collect(),
            static_batching: s.scheduler.batching == sim_core::scenario::Batching::Static,
            cluster: Cluster {
                replicas: sim.replica_count(),
                prefill_pool: if s.disaggregation.is_some() { s.arrival_replicas() } else { 0 },
                seqs_per_replica: s.scheduler.max_num_seqs as usize,
            },
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
#[derive(Clone, Default)]
pub struct StageCalm {
    pub counts: Counts,
    pub last_step: StepInfo,
    pub restarting_until_s: Option<f64>,
    /// Each replica's KV fill (empty with one replica).
    pub kv_fill: Vec<f64>,
}

/// Per replica, what the stage tallies while it draws (the grid's tiles, the bands' tags).
#[derive(Clone, Copy, Default)]
struct ReplicaTally {
    queued: u32,
    running: u32,
    /// Requests seen leaving the queue for this replica.
    entered: u64,
    /// Remaining highlight of its tag after a request arrived in its band, ms.
    flash: f64,
}

/// Everything the stage remembers between frames for one run.
pub struct StageState {
    cfg: StageConfig,
    sprites: IdMap<Sprite>,
    ghosts: Vec<Ghost>,
    /// Free decode slots and the next new one, per replica.
    free_cells: Vec<BinaryHeap<Reverse<u32>>>,
    next_cell: Vec<u32>,
    replicas: Vec<ReplicaTally>,
    /// Disaggregation: prompts on the links now (id, from band, to band, progress), each link's
    /// (from band × decode bands + to band) remaining highlight, ms, and the transfers drawn.
    on_link: Vec<(u64, usize, usize, f64)>,
    link_flash: Vec<f64>,
    transfers_seen: u64,
    last_on_link: IdMap<()>,
    /// Arrived at a decode replica, waiting there for KV blocks, per decode band.
    arrived_order: Vec<Vec<(f64, u64)>>,
    /// The canvas's data attributes as last set.
    attrs: String,
    frame: u32,
    last_recent: Option<(u64, Ending, u64)>,
    preempt_flash: f64,
    bin_flash: [f64; Bin::ALL.len()],
    geo: Option<Geo>,
    /// What the text needed when `geo` was laid out (language, profile).
    needs: TextNeeds,
    // scratch buffers kept across frames
    lane_order: Vec<Vec<(f64, u64)>>,
    /// Prompts being prefilled, per prefill band (one with one replica; in the grid, one per
    /// replica).
    prefill_order: Vec<Vec<(f64, u64)>>,
    glyphs: Vec<Vec<(f64, f64, f64)>>,
    /// Live requests in the last frame.
    pub live_count: usize,
    /// Motion tempo: glyphs move faster when simulated time runs faster, so fewer are in
    /// transit at once and the picture stays readable (1 at 1× or below, √speed above, ≤ 4).
    pace: f64,
    /// `prefers-reduced-motion: reduce`: glyphs jump to their places, nothing flies (the
    /// canvas says so in `data-motion`).
    reduced: Option<bool>,
}

impl StageState {
    pub fn new(cfg: StageConfig) -> StageState {
        let classes = cfg.class_names.len().max(1);
        let n = cfg.cluster.replicas.max(1);
        StageState {
            lane_order: vec![Vec::new(); cfg.lanes()],
            glyphs: vec![Vec::new(); classes],
            sprites: IdMap::default(),
            ghosts: Vec::new(),
            free_cells: vec![BinaryHeap::new(); n],
            next_cell: vec![0; n],
            replicas: vec![ReplicaTally::default(); n],
            on_link: Vec::new(),
            link_flash: Vec::new(),
            transfers_seen: 0,
            last_on_link: IdMap::default(),
            arrived_order: Vec::new(),
            attrs: String::new(),
            cfg,
            frame: 0,
            last_recent: None,
            preempt_flash: 0.0,
            bin_flash: [0.0; Bin::ALL.len()],
            geo: None,
            needs: TextNeeds::default(),
            prefill_order: Vec::new(),
            live_count: 0,
            pace: 1.0,
            reduced: None,
        }
    }

    fn geo(&mut self, ctx: &CanvasRenderingContext2d, w: f64, h: f64) -> &Geo {
        let needs = draw::text_needs(ctx, w);
        let stale = self.geo.as_ref().is_none_or(|g| g.w != w || g.h != h || self.needs != needs);
        if stale {
            self.needs = needs;
            let g = Geo::of_cluster(w, h, self.cfg.lanes(), self.cfg.cluster, needs);
            let bands = if g.tiles.is_empty() { g.prefill_bands.len() } else { g.tiles.len() };
            self.prefill_order = vec![Vec::new(); bands.max(1)];
            self.arrived_order = vec![Vec::new(); g.decode_bands.len()];
            self.link_flash = vec![0.0; g.prefill_bands.len() * g.decode_bands.len()];
            self.geo = Some(g);
        }
        // just set when missing
        self.geo.get_or_insert_with(|| Geo::new(w, h, 1, 1))
    }

    /// A free decode slot of replica `replica`'s band.
    fn alloc_cell(&mut self, replica: usize) -> u32 {
        let r = replica.min(self.next_cell.len() - 1);
        if let Some(Reverse(c)) = self.free_cells[r].pop() {
            c
        } else {
            self.next_cell[r] += 1;
            self.next_cell[r] - 1
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
        let reduced = crate::a11y::reduced_motion();
        if self.reduced != Some(reduced) {
            self.reduced = Some(reduced);
            if let Some(c) = ctx.canvas() {
                let _ = c.set_attribute("data-motion", if reduced { "reduced" } else { "full" });
            }
        }
        let _ = self.geo(ctx, w, h);
        let Some(g) = self.geo.take() else { return };
        self.advance(&g, sim, live, dt_ms);
        self.draw(ctx, &g, sim, live, calm);
        if self.frame % 15 == 1 {
            self.set_attrs(ctx, &g, calm);
        }
        self.geo = Some(g);
    }

    /// What the canvas shows, as data attributes (for tests and tools): the replicas' layout,
    /// the requests seen entering each replica, the prompts on the KV links now and in all, the
    /// last step's accepted draft tokens.
    fn set_attrs(&mut self, ctx: &CanvasRenderingContext2d, g: &Geo, calm: &StageCalm) {
        let layout = if !g.tiles.is_empty() {
            "grid"
        } else if self.cfg.cluster.replicas > 1 {
            "bands"
        } else {
            "one"
        };
        let entered: Vec<String> = self.replicas.iter().map(|r| r.entered.to_string()).collect();
        let step = &calm.last_step;
        let drafts = if step.draft_tokens > 0 {
            format!("{}/{}", step.accepted_draft_tokens, step.draft_tokens)
        } else {
            String::new()
        };
        let attrs = format!(
            "{layout}|{}|{}|{}|{}|{drafts}",
            self.cfg.cluster.replicas,
            entered.join(","),
            self.on_link.len(),
            self.transfers_seen
        );
        if attrs == self.attrs {
            return;
        }
        if let Some(c) = ctx.canvas() {
            let _ = c.set_attribute("data-layout", layout);
            let _ = c.set_attribute("data-replicas", &self.cfg.cluster.replicas.to_string());
            let _ = c.set_attribute("data-entered", &entered.join(","));
            let _ = c.set_attribute("data-on-link", &self.on_link.len().to_string());
            let _ = c.set_attribute("data-transfers-seen", &self.transfers_seen.to_string());
            let _ = c.set_attribute("data-drafts", &drafts);
        }
        self.attrs = attrs;
    }

    fn advance(&mut self, g: &Geo, sim: &Simulation, live: &[LiveRequest], dt_ms: f64) {
        let frame = self.frame;
        // 1. What ended or was preempted since the last frame.
        let recent = sim.recent_endings();
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
                    let from = g.spawn(self.cfg.lane_of(e.class));
                    self.launch(g, from, 5.0, e.class, Bin::Rejected);
                }
                other => {
                    ended.insert(e.id, (other, e.class));
                }
            }
        }

        // 2. Phase changes: free and take decode slots, notice preemptions and requests
        // leaving the queue for their replica.
        let last = self.replicas.len() - 1;
        for t in &mut self.replicas {
            (t.queued, t.running) = (0, 0);
        }
        for r in live {
            let spawn = g.spawn(self.cfg.lane_of(r.class));
            let s = self.sprites.entry(r.id).or_insert(Sprite {
                x: spawn.0,
                y: spawn.1,
                r: 4.0,
                class: r.class,
                phase: Phase::Queued,
                seen: frame,
                replica: r.replica,
                cell: None,
                flash: 0.0,
            });
            s.seen = frame;
            let moved = s.replica != r.replica;
            if s.phase != r.phase {
                // back in a queue on the same replica: preempted (a prompt whose KV arrived
                // waits in its decode replica's queue: no preemption)
                if s.phase != Phase::Queued && r.phase == Phase::Queued && !moved {
                    s.flash = s.flash.max(1500.0);
                }
                if s.phase == Phase::Queued && r.phase != Phase::Queued && !moved {
                    let t = &mut self.replicas[(r.replica as usize).min(last)];
                    t.entered += 1;
                    t.flash = 600.0;
                }
                s.phase = r.phase;
            }
            if r.phase != Phase::Decode || moved {
                if let Some(c) = s.cell.take() {
                    self.free_cells[(s.replica as usize).min(last)].push(Reverse(c));
                }
            }
            s.replica = r.replica;
            let t = &mut self.replicas[(r.replica as usize).min(last)];
            if r.phase == Phase::Queued {
                t.queued += 1;
            } else {
                t.running += 1;
            }
        }
        for r in live {
            if r.phase == Phase::Decode && self.sprites.get(&r.id).is_some_and(|s| s.cell.is_none()) {
                let c = self.alloc_cell(r.replica as usize);
                if let Some(s) = self.sprites.get_mut(&r.id) {
                    s.cell = Some(c);
                }
            }
        }

        // 3. Requests that are gone: free their slots, send them to their outcome.
        let mut gone: Vec<(f64, f64, f64, u16, Bin)> = Vec::new();
        let mut launched: IdMap<()> = IdMap::default();
        let free_cells = &mut self.free_cells;
        self.sprites.retain(|id, s| {
            if s.seen == frame {
                return true;
            }
            if let Some(c) = s.cell.take() {
                let r = (s.replica as usize).min(free_cells.len() - 1);
                free_cells[r].push(Reverse(c));
            }
            launched.insert(*id, ());
            let bin = match ended.get(id) {
                Some((e, _)) => Bin::of(*e),
                None if s.phase == Phase::Queued => Some(Bin::TimedOut),
                None => Some(Bin::Completed),
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
                if let Some(bin) = Bin::of(*ending) {
                    let from = g.spawn(self.cfg.lane_of(*class));
                    self.launch(g, from, 4.0, *class, bin);
                }
            }
        }
        if self.sprites.is_empty() {
            self.free_cells.iter_mut().for_each(BinaryHeap::clear);
            self.next_cell.iter_mut().for_each(|c| *c = 0);
        }

        // 4. Targets: queue order per lane (by arrival: FCFS, preempted requests first); prompts
        // per replica; prompts on the links where their transfer is.
        for l in &mut self.lane_order {
            l.clear();
        }
        for l in self.prefill_order.iter_mut().chain(&mut self.arrived_order) {
            l.clear();
        }
        self.on_link.clear();
        let grid = !g.tiles.is_empty();
        let now_s = sim.now() as f64 / 1e6;
        for r in live {
            let replica = r.replica as usize;
            match r.phase {
                Phase::Queued => match g.decode_band(replica).filter(|_| g.link) {
                    // arrived with its KV at a decode replica, waiting there for blocks
                    Some(band) => self.arrived_order[band].push((r.arrival_s, r.id)),
                    // the same in the grid: at its replica's tile
                    None if grid && self.cfg.cluster.disaggregated() && replica >= self.cfg.cluster.prefill_pool => {
                        let band = replica.min(self.prefill_order.len() - 1);
                        self.prefill_order[band].push((r.arrival_s, r.id));
                    }
                    None => {
                        let lane = self.cfg.lane_of(r.class).min(self.lane_order.len() - 1);
                        self.lane_order[lane].push((r.arrival_s, r.id));
                    }
                },
                Phase::Prefill => match (r.transfer, g.prefill_band(replica)) {
                    (Some(t), Some(from)) if g.link => {
                        let to = g.decode_band(t.to as usize).unwrap_or(0);
                        self.on_link.push((r.id, from, to, link_progress(now_s, t.start_s, t.arrive_s)));
                    }
                    (_, band) => {
                        let band = if grid { replica } else { band.unwrap_or(0) };
                        let band = band.min(self.prefill_order.len() - 1);
                        self.prefill_order[band].push((r.arrival_s, r.id));
                    }
                },
                Phase::Decode => {}
            }
        }
        let still = self.reduced == Some(true);
        let k = if still { 1.0 } else { 1.0 - (-dt_ms * self.pace / EASE_MS).exp() };
        for (lane, order) in self.lane_order.iter_mut().enumerate() {
            order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let grid = LaneGrid::new(g, lane, order.len());
            let r = grid.glyph_r();
            for (i, (_, id)) in order.iter().enumerate() {
                if let Some(s) = self.sprites.get_mut(id) {
                    let (tx, ty) = grid.pos(i);
                    ease(s, tx, ty, r, k);
                }
            }
        }
        for (band, order) in self.prefill_order.iter_mut().enumerate() {
            order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            if grid {
                let (x, y) = g.tile_mid(band);
                for (_, id) in order.iter() {
                    if let Some(s) = self.sprites.get_mut(id) {
                        ease(s, x, y, 2.5, k);
                    }
                }
                continue;
            }
            let rows = PrefillRows::new(g, band, order.len());
            for (i, (_, id)) in order.iter().enumerate() {
                if let Some(s) = self.sprites.get_mut(id) {
                    let (x, y) = rows.glyph(g, i);
                    ease(s, x, y, rows.glyph_r(), k);
                }
            }
        }
        // on the links: a quicker easing, so the glyph keeps up with its transfer
        let k_link = if still { 1.0 } else { 1.0 - (-dt_ms * self.pace / 30.0).exp() };
        let mut on_link = IdMap::default();
        for &(id, from, to, t) in &self.on_link {
            if let Some(s) = self.sprites.get_mut(&id) {
                let (x, y) = g.on_link(from, to, t);
                ease(s, x, y, 3.5, k_link);
            }
            if !self.last_on_link.contains_key(&id) {
                self.transfers_seen += 1;
            }
            on_link.insert(id, ());
            if let Some(f) = self.link_flash.get_mut(from * g.decode_bands.len() + to) {
                *f = 700.0;
            }
        }
        self.last_on_link = on_link;
        for (band, order) in self.arrived_order.iter_mut().enumerate() {
            order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let ((_, _), (x1, y1)) = g.link_ends(0, band);
            for (i, (_, id)) in order.iter().enumerate() {
                if let Some(s) = self.sprites.get_mut(id) {
                    let i = i.min(11);
                    ease(s, x1 - 4.0 - (i % 4) as f64 * 7.0, y1 + (i / 4) as f64 * 7.0 - 7.0, 3.0, k);
                }
            }
        }
        for s in self.sprites.values_mut() {
            if s.phase == Phase::Decode {
                let (x, y, r) = if grid {
                    let (x, y) = g.tile_mid(s.replica as usize);
                    (x, y, 2.5)
                } else {
                    let band = g.decode_band(s.replica as usize).unwrap_or(0);
                    g.cell_glyph(band, s.cell.unwrap_or(0) as usize)
                };
                ease(s, x, y, r, k);
            }
            s.flash = (s.flash - dt_ms).max(0.0);
        }
        for f in &mut self.link_flash {
            *f = (*f - dt_ms).max(0.0);
        }
        for t in &mut self.replicas {
            t.flash = (t.flash - dt_ms).max(0.0);
        }

        // 5. Flights.
        for gh in &mut self.ghosts {
            gh.t += if still { 1.0 } else { dt_ms * self.pace / GHOST_MS };
        }
        let bin_flash = &mut self.bin_flash;
        self.ghosts.retain(|gh| {
            if gh.t >= 1.0 {
                bin_flash[gh.bin.index()] = 400.0;
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

    fn launch(&mut self, g: &Geo, from: (f64, f64), r: f64, class: u16, bin: Bin) {
        if self.ghosts.len() >= MAX_GHOSTS {
            return;
        }
        let (to, via) = (g.bin_target(bin), g.flight_via(from, bin));
        self.ghosts.push(Ghost { from, via, to, r: r.max(2.5), t: 0.0, class, bin });
    }
}

fn ease(s: &mut Sprite, tx: f64, ty: f64, tr: f64, k: f64) {
    s.x += (tx - s.x) * k;
    s.y += (ty - s.y) * k;
    s.r += (tr - s.r) * k;
}
