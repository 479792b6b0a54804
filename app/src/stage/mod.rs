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
//!
//! Here: what the stage remembers between frames ([`StageState`]) and its frame; `config` the
//! run's facts it reads once and the calm tick's values; `motion` moving the glyphs one frame;
//! `draw` painting it.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

use sim_core::sim::Ending;
use sim_core::{LiveRequest, Phase, Simulation};
use web_sys::CanvasRenderingContext2d;

use app_model::stage_layout::{Bin, Geo, TextNeeds};

use crate::i18n::{fill, t_untracked};

mod config;
mod draw;
mod motion;

pub use config::{StageCalm, StageConfig};
pub use draw::round_rect;

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
        let reduced = crate::kit::reduced_motion();
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
}
