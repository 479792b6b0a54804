//! The stage's geometry, without a canvas: where the stations are for a canvas size and scenario
//! shape, the queue lanes and the grid of waiting glyphs in each, the prefill rows, the decode
//! slots, the outcome bins and the paths glyphs fly along. The app's stage draws at these places.

use sim_core::metrics::Counts;
use sim_core::sim::Ending;

mod cluster;

pub use cluster::{link_progress, Band, Cluster, FULL_REPLICAS};

/// Most decode slots drawn (max_num_seqs may reach 4096).
pub const MAX_CELLS: usize = 1024;

/// Where an ended request goes: the outcome bins, top to bottom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bin {
    Completed,
    Rejected,
    TimedOut,
    OomLost,
}

impl Bin {
    pub const ALL: [Bin; 4] = [Bin::Completed, Bin::Rejected, Bin::TimedOut, Bin::OomLost];

    /// Position from the top (and in per-bin arrays such as the palette's colours).
    pub fn index(self) -> usize {
        match self {
            Bin::Completed => 0,
            Bin::Rejected => 1,
            Bin::TimedOut => 2,
            Bin::OomLost => 3,
        }
    }

    pub fn icon(self) -> &'static str {
        match self {
            Bin::Completed => "✓",
            Bin::Rejected => "✕",
            Bin::TimedOut => "◷",
            Bin::OomLost => "!",
        }
    }

    /// Translation key of the label.
    pub fn label(self) -> &'static str {
        match self {
            Bin::Completed => "stage.bin.completed",
            Bin::Rejected => "stage.bin.rejected",
            Bin::TimedOut => "stage.bin.timed_out",
            Bin::OomLost => "stage.bin.oom_lost",
        }
    }

    /// The bin of an ending; a preemption is no ending (the request goes back to the queue).
    pub fn of(ending: Ending) -> Option<Bin> {
        match ending {
            Ending::Completed => Some(Bin::Completed),
            Ending::Rejected => Some(Bin::Rejected),
            Ending::TimedOut => Some(Bin::TimedOut),
            Ending::Failed => Some(Bin::OomLost),
            Ending::Preempted => None,
        }
    }

    /// How many requests ended here so far.
    pub fn count(self, c: &Counts) -> u64 {
        match self {
            Bin::Completed => c.completed,
            Bin::Rejected => c.rejected,
            Bin::TimedOut => c.timed_out,
            Bin::OomLost => c.failed,
        }
    }
}

/// A rectangle: x, y, width, height.
pub type Rect = (f64, f64, f64, f64);

/// Space between the outcome bins, CSS px.
const BIN_GAP: f64 = 8.0;
/// Room for a count beside its bin's label (seven digits with separators at the title font).
const BIN_COUNT_W: f64 = 52.0;

/// An outcome bin's height for its label above its count.
fn bin_two_lines(f: Fonts) -> f64 {
    (4.0 + f.small + 4.0 + f.title + 6.0).ceil()
}

/// An outcome bin's height for its label and count on one line.
fn bin_one_line(f: Fonts) -> f64 {
    (f.small.max(f.title) + 10.0).ceil()
}

/// Stages narrower than this (CSS px) use the compact layout: more rows for the stations'
/// counts, the footer and the lane labels, so nothing is cut or scaled below [`MIN_TEXT_PX`].
pub const COMPACT_BELOW: f64 = 520.0;
/// The smallest canvas text, CSS px, in the compact layout (phones).
pub const MIN_TEXT_PX: f64 = 11.0;

/// What the stage's text needs: a scale (1 normally, larger for the projector profile) and the
/// widest outcome label at the small font, measured by the page in its language.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextNeeds {
    pub scale: f64,
    pub bin_label_w: f64,
    /// The widest replica tag ("R7") at the tiny font: the column a replica's band keeps for it.
    pub tag_w: f64,
}

impl Default for TextNeeds {
    fn default() -> TextNeeds {
        TextNeeds { scale: 1.0, bin_label_w: 60.0, tag_w: 16.0 }
    }
}

/// Font sizes of the stage's text, CSS px (the stage is drawn at CSS size, never scaled down).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fonts {
    pub title: f64,
    pub small: f64,
    pub tiny: f64,
}

impl Fonts {
    /// The sizes for text `scale` (1: the normal profile) on a compact stage or not.
    pub fn new(scale: f64, compact: bool) -> Fonts {
        let k = scale.clamp(1.0, 2.0);
        let min = if compact { MIN_TEXT_PX } else { 10.0 };
        Fonts { title: (12.0 * k).max(min + 1.0), small: (11.0 * k).max(min), tiny: (10.0 * k).max(min) }
    }

    /// Line height of the small font.
    pub fn line(&self) -> f64 {
        (self.small * 1.3).round()
    }
}

/// Positions of the stations for one canvas size and scenario shape.
#[derive(Clone, Debug, PartialEq)]
pub struct Geo {
    pub w: f64,
    pub h: f64,
    pub top: f64,
    pub bottom: f64,
    /// Where arrivals appear.
    pub spawn_x: f64,
    /// Queue station, left and right.
    pub q0: f64,
    pub q1: f64,
    /// Prefill station.
    pub p0: f64,
    pub p1: f64,
    /// Decode slots.
    pub d0: f64,
    pub d1: f64,
    /// Outcome bins.
    pub o0: f64,
    pub o1: f64,
    /// Queue lanes, top and bottom.
    pub lanes: Vec<(f64, f64)>,
    /// The replicas' bands in the prefill and the decode station, top to bottom (one band over
    /// the whole station with one replica; none in the grid of more than [`FULL_REPLICAS`]).
    pub prefill_bands: Vec<Band>,
    pub decode_bands: Vec<Band>,
    /// More than [`FULL_REPLICAS`]: a tile per replica over both stations.
    pub tiles: Vec<Rect>,
    /// Width of the replica tag column at each decode band's left (0 with one replica), and at
    /// each prefill band's (0 too on a phone when a replica's prefill band is beside its decode
    /// band: the row names it).
    pub tag_w: f64,
    pub prefill_tag_w: f64,
    /// Disaggregation: the stations stand apart for the KV links between them.
    pub link: bool,
    /// Decode slots drawn in each decode band.
    pub cells: usize,
    pub cell_cols: usize,
    pub cell_w: f64,
    pub cell_h: f64,
    pub fonts: Fonts,
    pub compact: bool,
    /// The outcome bins are too short for a count under the label: it sits at the label's right.
    pub bin_inline: bool,
    /// Baselines: the station titles, then each row of their counts.
    pub title_y: f64,
    pub sub_rows: usize,
    /// Footer lines (clock and last iteration, the static-batching note), first baseline.
    pub foot_rows: usize,
    pub foot_y: f64,
    /// Lines a queue lane's label may take.
    pub lane_label_rows: usize,
}

impl Geo {
    /// The layout of a `w` × `h` stage with `lanes` queue lanes and `max_seqs` decode slots.
    pub fn new(w: f64, h: f64, lanes: usize, max_seqs: usize) -> Geo {
        Geo::with_text(w, h, lanes, max_seqs, TextNeeds::default())
    }

    /// The layout for text of `needs` (scale, the outcome labels' width).
    pub fn with_text(w: f64, h: f64, lanes: usize, max_seqs: usize, needs: TextNeeds) -> Geo {
        Geo::of_cluster(w, h, lanes, Cluster::one(max_seqs), needs)
    }

    /// The layout of a stage drawing the replicas of `cluster`.
    pub fn of_cluster(w: f64, h: f64, lanes: usize, cluster: Cluster, needs: TextNeeds) -> Geo {
        let compact = w < COMPACT_BELOW;
        let fonts = Fonts::new(needs.scale, compact);
        let line = fonts.line();
        let title_y = 2.0 + fonts.title;
        // the counts under the titles: one row, more when a wider font or a narrow stage
        // pushes one into its neighbour's place (see `place_rows`)
        let sub_rows = if compact {
            3
        } else if needs.scale > 1.0 {
            2
        } else {
            1
        };
        let top = title_y + sub_rows as f64 * line + 26.0;
        let foot_rows = if compact { 4 } else { 2 };
        let bottom = h - 12.0 - foot_rows as f64 * line;
        let foot_y = bottom + 8.0 + line;
        let lane_label_rows = if compact {
            3
        } else if needs.scale > 1.0 {
            2
        } else {
            1
        };
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
        // the outcome bins are as wide as their labels need (icon, label, padding)
        // bins too short for a label above a count put the count at the label's right, so the
        // bins are as wide as both need
        let bin_h = (bottom - top - 3.0 * BIN_GAP) / 4.0;
        let bin_inline = bin_h < bin_two_lines(fonts);
        let count_w = if bin_inline { BIN_COUNT_W } else { 0.0 };
        let o_w = (0.14 * w).max(needs.bin_label_w + 21.0 + 8.0 + count_w).min(0.3 * w);
        let o0 = w - 6.0 - o_w;
        let link = cluster.disaggregated();
        // disaggregation: the stations stand apart, the links between them
        let (p1, d0) = match (link, compact) {
            (false, _) => (0.48 * w, 0.5 * w),
            (true, false) => (0.44 * w, 0.54 * w),
            (true, true) => (0.46 * w, 0.53 * w),
        };
        let d1 = o0 - 0.015 * w;
        let tag_w = if cluster.replicas > 1 { needs.tag_w + 4.0 } else { 0.0 };
        Geo {
            w,
            h,
            top,
            bottom,
            spawn_x: 0.03 * w,
            q0: 0.065 * w,
            q1: 0.315 * w,
            p0: 0.34 * w,
            p1,
            d0,
            d1,
            o0,
            o1: w - 6.0,
            lanes,
            prefill_bands: Vec::new(),
            decode_bands: Vec::new(),
            tiles: Vec::new(),
            tag_w,
            prefill_tag_w: if link || !compact { tag_w } else { 0.0 },
            link,
            cells: 1,
            cell_cols: 1,
            cell_w: 1.0,
            cell_h: 1.0,
            fonts,
            compact,
            bin_inline,
            title_y,
            sub_rows,
            foot_rows,
            foot_y,
            lane_label_rows,
        }
        .with_replicas(cluster)
    }

    /// Baseline of row `row` of the stations' counts.
    pub fn sub_y(&self, row: usize) -> f64 {
        self.title_y + (row.min(self.sub_rows - 1) as f64 + 1.0) * self.fonts.line()
    }

    /// Baseline of footer line `i`.
    pub fn foot_line_y(&self, i: usize) -> f64 {
        self.foot_y + i as f64 * self.fonts.line()
    }

    /// Left edges of the stations, left to right: queue, prefill, decode, outcome.
    pub fn station_x(&self) -> [f64; 4] {
        [self.q0, self.p0, self.d0, self.o0]
    }

    /// Vertical middle of queue lane `lane` (the last lane for any beyond it).
    pub fn lane_mid(&self, lane: usize) -> f64 {
        let (a, b) = self.lanes[lane.min(self.lanes.len() - 1)];
        (a + b) / 2.0
    }

    /// Where a request of lane `lane` appears.
    pub fn spawn(&self, lane: usize) -> (f64, f64) {
        (self.spawn_x, self.lane_mid(lane))
    }

    /// Decode slot `i` of decode band `band`.
    pub fn cell_rect(&self, band: usize, i: usize) -> Rect {
        let col = i % self.cell_cols;
        let row = i / self.cell_cols;
        let y0 = self.decode_bands.get(band).map_or(self.top, |b| b.y0);
        (self.d0 + self.tag_w + col as f64 * self.cell_w, y0 + row as f64 * self.cell_h, self.cell_w, self.cell_h)
    }

    /// Where a decoding request's glyph sits in slot `i` of decode band `band` (beyond the slots
    /// drawn: the last one): centre and radius.
    pub fn cell_glyph(&self, band: usize, i: usize) -> (f64, f64, f64) {
        let (cx, cy, cw, ch) = self.cell_rect(band, i.min(self.cells - 1));
        let r = (ch * 0.32).clamp(1.5, 6.0);
        (cx + (r + 2.0).min(cw * 0.3), cy + ch / 2.0, r)
    }

    pub fn bin_rect(&self, bin: Bin) -> Rect {
        let gap = BIN_GAP;
        let h = ((self.bottom - self.top) - gap * 3.0) / 4.0;
        (self.o0, self.top + bin.index() as f64 * (h + gap), self.o1 - self.o0, h)
    }

    /// The height an outcome bin needs: for its label above its count, or (when
    /// [`Geo::bin_inline`]) for one line holding both.
    pub fn bin_min_h(&self) -> f64 {
        if self.bin_inline {
            bin_one_line(self.fonts)
        } else {
            bin_two_lines(self.fonts)
        }
    }

    /// The shortest stage of this width and text whose four outcome bins hold their label and
    /// count on one line each: what a stage fitted to a small frame may shrink to.
    pub fn min_height(&self) -> f64 {
        (self.top + (self.h - self.bottom) + 4.0 * bin_one_line(self.fonts) + 3.0 * BIN_GAP).ceil()
    }

    /// Where flights end: the bin's icon, so its label and count stay readable.
    pub fn bin_target(&self, bin: Bin) -> (f64, f64) {
        let (x, y, _, _) = self.bin_rect(bin);
        (x + 10.0, y + 12.0)
    }

    /// The control point of a flight from `from` to `bin`: completions fly straight, the others
    /// dip below the stations.
    pub fn flight_via(&self, from: (f64, f64), bin: Bin) -> (f64, f64) {
        let to = self.bin_target(bin);
        if bin == Bin::Completed {
            ((from.0 + to.0) / 2.0, (from.1 + to.1) / 2.0)
        } else {
            ((from.0 + to.0) / 2.0, self.bottom + 10.0)
        }
    }
}

/// Queue grid of one lane: pitch and capacity for `n` waiting requests.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LaneGrid {
    pub x1: f64,
    pub y_mid: f64,
    pub pitch: f64,
    pub cols: usize,
    /// Glyph places in the lane.
    pub cap: usize,
}

impl LaneGrid {
    #[allow(clippy::manual_is_multiple_of)] // is_multiple_of is newer than the workspace's rust-version
    pub fn new(g: &Geo, lane: usize, n: usize) -> LaneGrid {
        let (y0, y1) = g.lanes[lane];
        let (x0, x1) = (g.q0 + 6.0, g.q1 - 6.0);
        let (y0, y1) = (y0 + 4.0 + g.lane_label_rows as f64 * g.fonts.line(), y1 - 4.0);
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
    pub fn pos(&self, i: usize) -> (f64, f64) {
        let i = i.min(self.cap.saturating_sub(1));
        let col = i % self.cols;
        let row = i / self.cols;
        let x = self.x1 - self.pitch * (col as f64 + 0.5);
        let k = row.div_ceil(2) as f64;
        let off = if row % 2 == 1 { k } else { -k };
        let y = self.y_mid + off * self.pitch;
        (x, y)
    }

    /// Radius of a waiting glyph.
    pub fn glyph_r(&self) -> f64 {
        self.pitch * 0.36
    }
}

/// Prefill rows of one prefill band: one bar per prompt being prefilled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrefillRows {
    pub row_h: f64,
    /// Rows drawn (the rest are counted as "+ n more").
    pub shown: usize,
    /// The band's top and its left edge (after the replica's tag).
    pub y0: f64,
    pub x0: f64,
}

impl PrefillRows {
    /// The rows for `n` prompts in prefill band `band` (the whole station with one replica).
    pub fn new(g: &Geo, band: usize, n: usize) -> PrefillRows {
        let (y0, y1) = g.prefill_bands.get(band).map_or((g.top, g.bottom), |b| (b.y0, b.y1));
        let body = y1 - y0 - 8.0;
        let row_h = if n == 0 { 20.0 } else { (body / n as f64).clamp(5.0, 20.0) };
        let fit = (body / row_h).floor() as usize;
        let shown = if n > fit { fit.saturating_sub(1) } else { n };
        PrefillRows { row_h, shown, y0, x0: g.p0 + g.prefill_tag_w }
    }

    pub fn glyph_r(&self) -> f64 {
        (self.row_h * 0.3).clamp(1.5, 5.5)
    }

    /// Centre of row `i`'s glyph.
    pub fn glyph(&self, _g: &Geo, i: usize) -> (f64, f64) {
        let i = i.min(self.shown.max(1) - 1);
        (self.x0 + 10.0, self.y0 + 4.0 + (i as f64 + 0.5) * self.row_h)
    }

    /// Row `i`'s progress bar.
    pub fn bar(&self, g: &Geo, i: usize) -> Rect {
        let y = self.y0 + 4.0 + i as f64 * self.row_h + self.row_h * 0.15;
        (self.x0 + 20.0, y, (g.p1 - self.x0 - 26.0).max(4.0), self.row_h * 0.7)
    }
}

/// Rows for labels that start at `x[i]` and are `w[i]` wide, left to right: each goes on the
/// first row where it does not reach into the label before it there (`gap` apart), and stays
/// left of `right`; the last row when none is free. Returns each label's row.
pub fn place_rows(x: &[f64], w: &[f64], gap: f64, right: f64, rows: usize) -> Vec<usize> {
    let rows = rows.max(1);
    let mut ends = vec![f64::NEG_INFINITY; rows];
    x.iter()
        .zip(w)
        .map(|(&x, &w)| {
            let row = (0..rows).find(|&r| ends[r] + gap <= x && x + w <= right).unwrap_or(rows - 1);
            ends[row] = ends[row].max(x + w);
            row
        })
        .collect()
}

/// `text` broken into lines no wider than `max_w` by `measure`: at spaces, and inside a word
/// (Chinese has no spaces) only when the word alone is wider.
pub fn wrap(text: &str, max_w: f64, measure: &mut dyn FnMut(&str) -> f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let joined = if cur.is_empty() { word.to_string() } else { format!("{cur} {word}") };
        if measure(&joined) <= max_w {
            cur = joined;
            continue;
        }
        if !cur.is_empty() {
            lines.push(std::mem::take(&mut cur));
        }
        if measure(word) <= max_w {
            cur = word.to_string();
            continue;
        }
        for ch in word.chars() {
            let mut next = cur.clone();
            next.push(ch);
            if measure(&next) > max_w && !cur.is_empty() {
                lines.push(std::mem::take(&mut cur));
                next = ch.to_string();
            }
            cur = next;
        }
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// Easing of a flight: fast start, gentle arrival (`t` in 0 ..= 1).
pub fn ease_out(t: f64) -> f64 {
    let t = t.clamp(0.0, 1.0);
    1.0 - (1.0 - t) * (1.0 - t)
}

/// The point at `t` of the quadratic Bézier curve from `a` via `b` to `c`.
pub fn bezier(a: (f64, f64), b: (f64, f64), c: (f64, f64), t: f64) -> (f64, f64) {
    let u = 1.0 - t;
    (u * u * a.0 + 2.0 * u * t * b.0 + t * t * c.0, u * u * a.1 + 2.0 * u * t * b.1 + t * t * c.1)
}

#[cfg(test)]
mod tests;
