//! The stage without a canvas: every live request is a class glyph that travels
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
//! Here: what the stage remembers between frames ([`Stage`]) and its frame; `config` the run's
//! facts and readings; `motion` moving the glyphs one frame; `display` the display list;
//! `paint` and `stations` one painter per station appending to it. The app replays the list.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

use sim_core::sim::Ending;
use sim_core::Phase;

use crate::stage_layout::{Bin, Fonts, Geo, TextNeeds, COMPACT_BELOW};

mod config;
mod display;
mod motion;
mod paint;
mod stations;
#[cfg(test)]
mod tests;

pub use config::{Readings, StageCalm, StageConfig};
pub use display::{Align, Dash, DisplayList, Font, Item, Measure, Role, Words};

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

/// Where a request's glyph is drawn, and what the stage remembers of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprite {
    pub x: f64,
    pub y: f64,
    pub r: f64,
    pub class: u16,
    pub phase: Phase,
    seen: u32,
    /// The replica it is on.
    pub replica: u16,
    /// Decode slot in its replica's band, while decoding.
    pub cell: Option<u32>,
    /// Remaining highlight after a preemption, ms.
    pub flash: f64,
}

/// An ended request flying to its outcome bin (`t` from 0 to 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Flight {
    pub from: (f64, f64),
    pub via: (f64, f64),
    pub to: (f64, f64),
    pub r: f64,
    pub t: f64,
    pub class: u16,
    pub bin: Bin,
}

/// Per replica, what the stage tallies (the grid's tiles, the bands' tags).
#[derive(Clone, Copy, Debug, Default)]
struct ReplicaTally {
    queued: u32,
    running: u32,
    /// Requests seen leaving the queue for this replica.
    entered: u64,
    /// Remaining highlight of its tag after a request arrived in its band, ms.
    flash: f64,
}

/// Everything the stage remembers between frames for one run.
pub struct Stage {
    cfg: StageConfig,
    sprites: IdMap<Sprite>,
    flights: Vec<Flight>,
    /// Free decode slots and the next new one, per replica.
    free_cells: Vec<BinaryHeap<Reverse<u32>>>,
    next_cell: Vec<u32>,
    replicas: Vec<ReplicaTally>,
    /// Disaggregation: prompts on the links now (id, from band, to band, progress), each link's
    /// (from band × decode bands + to band) remaining highlight, ms, and the transfers seen.
    on_link: Vec<(u64, usize, usize, f64)>,
    link_flash: Vec<f64>,
    transfers_seen: u64,
    last_on_link: IdMap<()>,
    /// Arrived at a decode replica, waiting there for KV blocks, per decode band.
    arrived_order: Vec<Vec<(f64, u64)>>,
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
    list: DisplayList,
    /// Motion tempo: glyphs move faster when simulated time runs faster, so fewer are in
    /// transit at once and the picture stays readable (1 at 1× or below, √speed above, ≤ 4).
    pace: f64,
    /// Reduced motion: glyphs jump to their places, nothing flies.
    still: bool,
}

impl Stage {
    pub fn new(cfg: StageConfig) -> Stage {
        let classes = cfg.class_names.len().max(1);
        let n = cfg.cluster.replicas.max(1);
        Stage {
            lane_order: vec![Vec::new(); cfg.lanes()],
            glyphs: vec![Vec::new(); classes],
            sprites: IdMap::default(),
            flights: Vec::new(),
            free_cells: vec![BinaryHeap::new(); n],
            next_cell: vec![0; n],
            replicas: vec![ReplicaTally::default(); n],
            on_link: Vec::new(),
            link_flash: Vec::new(),
            transfers_seen: 0,
            last_on_link: IdMap::default(),
            arrived_order: Vec::new(),
            cfg,
            frame: 0,
            last_recent: None,
            preempt_flash: 0.0,
            bin_flash: [0.0; Bin::ALL.len()],
            geo: None,
            needs: TextNeeds::default(),
            prefill_order: Vec::new(),
            list: DisplayList::default(),
            pace: 1.0,
            still: false,
        }
    }

    /// The layout for a `w` × `h` stage and this text, laid out again when either changed.
    fn layout(&mut self, w: f64, h: f64, needs: TextNeeds) {
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
    }

    /// Sets the motion tempo from the simulation speed.
    pub fn set_speed(&mut self, speed: f64) {
        self.pace = if speed.is_finite() { speed.sqrt().clamp(1.0, 4.0) } else { 4.0 };
    }

    /// `prefers-reduced-motion: reduce`: glyphs are placed at once, nothing flies.
    pub fn set_reduced_motion(&mut self, reduced: bool) {
        self.still = reduced;
    }

    /// One frame of a `w` × `h` stage: moves the glyphs `dt_ms` of wall-clock time towards
    /// where the readings say the requests are, and paints the frame into the display list.
    #[allow(clippy::too_many_arguments)]
    pub fn frame(
        &mut self,
        w: f64,
        h: f64,
        needs: TextNeeds,
        r: &Readings,
        dt_ms: f64,
        m: &mut dyn Measure,
        words: &dyn Words,
    ) -> &DisplayList {
        self.frame = self.frame.wrapping_add(1);
        self.layout(w, h, needs);
        let Some(g) = self.geo.take() else { return &self.list };
        self.advance(&g, r, dt_ms);
        let mut list = std::mem::take(&mut self.list);
        list.clear();
        list.fonts = g.fonts;
        paint::paint(&mut paint::Painter { list: &mut list, m, words }, self, &g, r);
        self.list = list;
        self.geo = Some(g);
        &self.list
    }

    /// The last frame's display list.
    pub fn list(&self) -> &DisplayList {
        &self.list
    }

    /// Whether this frame refreshes the canvas's data attributes (every 15th).
    pub fn attrs_due(&self) -> bool {
        self.frame % 15 == 1
    }

    /// What the canvas shows, as data attributes (for tests and tools): the replicas' layout
    /// (`one`, `bands`, `grid`), their count, the requests seen entering each replica, the
    /// prompts on the KV links now and in all, the last step's accepted draft tokens.
    pub fn attrs(&self, calm: &StageCalm) -> [(&'static str, String); 6] {
        let layout = if self.geo.as_ref().is_some_and(|g| !g.tiles.is_empty()) {
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
        [
            ("data-layout", layout.to_string()),
            ("data-replicas", self.cfg.cluster.replicas.to_string()),
            ("data-entered", entered.join(",")),
            ("data-on-link", self.on_link.len().to_string()),
            ("data-transfers-seen", self.transfers_seen.to_string()),
            ("data-drafts", drafts),
        ]
    }

    /// The glyph of a live request, if it has one.
    pub fn sprite(&self, id: u64) -> Option<&Sprite> {
        self.sprites.get(&id)
    }

    /// The requests flying to their outcome bins.
    pub fn flights(&self) -> &[Flight] {
        &self.flights
    }

    /// The layout of the last frame.
    pub fn geo(&self) -> Option<&Geo> {
        self.geo.as_ref()
    }
}

/// What the text of a `w` wide stage needs in the page's language and profile (text `scale`):
/// the scale, the widest outcome label (which sets the bins' width) and the widest replica tag.
pub fn text_needs(m: &mut dyn Measure, words: &dyn Words, scale: f64, w: f64) -> TextNeeds {
    let fonts = Fonts::new(scale, w < COMPACT_BELOW);
    let bin_label_w =
        Bin::ALL.iter().map(|b| m.width(Font::Small, fonts.small, &words.t(b.label()))).fold(0.0, f64::max).ceil();
    let tag = words.tf("stage.replica_tag", &[("n", "88".to_string())]);
    let tag_w = m.width(Font::Tiny, fonts.tiny, &tag).ceil();
    TextNeeds { scale, bin_label_w, tag_w }
}

/// The shortest a `w` wide stage may be drawn with this text: its outcome bins keep their labels
/// and counts apart ([`Geo::min_height`]).
pub fn min_height(w: f64, needs: TextNeeds) -> f64 {
    Geo::with_text(w, 1000.0, 1, 1, needs).min_height()
}
