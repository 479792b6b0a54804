//! The stage's geometry, without a canvas: where the stations are for a canvas size and scenario
//! shape, the queue lanes and the grid of waiting glyphs in each, the prefill rows, the decode
//! slots, the outcome bins and the paths glyphs fly along. The app's stage draws at these places.

use sim_core::metrics::Counts;
use sim_core::sim::Ending;

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
}

impl Default for TextNeeds {
    fn default() -> TextNeeds {
        TextNeeds { scale: 1.0, bin_label_w: 60.0 }
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
    /// Decode slots drawn.
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
        let (d0, d1) = (0.5 * w, o0 - 0.015 * w);
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
            o0,
            o1: w - 6.0,
            lanes,
            cells,
            cell_cols: best_cols,
            cell_w: (d1 - d0) / best_cols as f64,
            cell_h: (body / rows as f64).min(40.0),
            fonts,
            compact,
            bin_inline,
            title_y,
            sub_rows,
            foot_rows,
            foot_y,
            lane_label_rows,
        }
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

    /// Decode slot `i`.
    pub fn cell_rect(&self, i: usize) -> Rect {
        let col = i % self.cell_cols;
        let row = i / self.cell_cols;
        (self.d0 + col as f64 * self.cell_w, self.top + row as f64 * self.cell_h, self.cell_w, self.cell_h)
    }

    /// Where a decoding request's glyph sits in slot `i` (beyond the slots drawn: the last one):
    /// centre and radius.
    pub fn cell_glyph(&self, i: usize) -> (f64, f64, f64) {
        let (cx, cy, cw, ch) = self.cell_rect(i.min(self.cells - 1));
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

/// Prefill rows: one bar per prompt being prefilled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrefillRows {
    pub row_h: f64,
    /// Rows drawn (the rest are counted as "+ n more").
    pub shown: usize,
}

impl PrefillRows {
    pub fn new(g: &Geo, n: usize) -> PrefillRows {
        let body = g.bottom - g.top - 8.0;
        let row_h = if n == 0 { 20.0 } else { (body / n as f64).clamp(5.0, 20.0) };
        let fit = (body / row_h).floor() as usize;
        let shown = if n > fit { fit.saturating_sub(1) } else { n };
        PrefillRows { row_h, shown }
    }

    pub fn glyph_r(&self) -> f64 {
        (self.row_h * 0.3).clamp(1.5, 5.5)
    }

    /// Centre of row `i`'s glyph.
    pub fn glyph(&self, g: &Geo, i: usize) -> (f64, f64) {
        let i = i.min(self.shown.max(1) - 1);
        (g.p0 + 10.0, g.top + 4.0 + (i as f64 + 0.5) * self.row_h)
    }

    /// Row `i`'s progress bar.
    pub fn bar(&self, g: &Geo, i: usize) -> Rect {
        let y = g.top + 4.0 + i as f64 * self.row_h + self.row_h * 0.15;
        (g.p0 + 20.0, y, g.p1 - g.p0 - 26.0, self.row_h * 0.7)
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
pub fn wrap(text: &str, max_w: f64, measure: impl Fn(&str) -> f64) -> Vec<String> {
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
mod tests {
    use super::*;

    #[test]
    fn stations_are_left_to_right_and_lanes_stack_without_overlap() {
        let g = Geo::new(1000.0, 360.0, 3, 48);
        assert!(g.spawn_x < g.q0 && g.q0 < g.q1 && g.q1 < g.p0 && g.p0 < g.p1 && g.p1 < g.d0);
        assert!(g.d0 < g.d1 && g.d1 < g.o0 && g.o0 < g.o1 && g.o1 <= g.w);
        assert_eq!(g.lanes.len(), 3);
        for pair in g.lanes.windows(2) {
            assert!(pair[0].1 < pair[1].0, "lanes overlap: {pair:?}");
        }
        assert!((g.lanes[0].0 - g.top).abs() < 1e-9 && (g.lanes[2].1 - g.bottom).abs() < 1e-9);
        // a lane beyond the last is the last
        assert_eq!(g.lane_mid(9), g.lane_mid(2));
        // no lanes asked: one lane
        assert_eq!(Geo::new(800.0, 300.0, 0, 1).lanes.len(), 1);
    }

    #[test]
    fn outcome_bins_keep_label_and_count_apart_down_to_the_min_height() {
        for (w, scale) in [(624.0, 1.0), (784.0, 1.0), (390.0, 1.0), (624.0, 1.25)] {
            let needs = TextNeeds { scale, bin_label_w: 60.0 };
            let min = Geo::with_text(w, 360.0, 1, 32, needs).min_height();
            // the same asked at any height: it depends on the width and the text only
            assert_eq!(Geo::with_text(w, 500.0, 1, 32, needs).min_height(), min, "w {w}, scale {scale}");
            for h in [min, min + 30.0, min + 60.0, 360.0] {
                let g = Geo::with_text(w, h, 1, 32, needs);
                for bin in Bin::ALL {
                    let (x, y, bw, bh) = g.bin_rect(bin);
                    assert!(bh + 1e-9 >= g.bin_min_h(), "{bin:?} w {w} h {h}: {bh} < {}", g.bin_min_h());
                    if g.bin_inline {
                        // the label (icon, words) ends before the count's room begins
                        assert!(
                            x + 21.0 + needs.bin_label_w + 8.0 <= x + bw - BIN_COUNT_W + 1e-9 || bw >= 0.3 * w - 1e-9
                        );
                    } else {
                        let label = y + 4.0 + g.fonts.small;
                        let count_top = y + bh - 6.0 - g.fonts.title;
                        assert!(
                            label <= count_top + 1e-9,
                            "{bin:?} w {w} h {h}: label {label}, count from {count_top}"
                        );
                    }
                }
            }
            // tall stages have label above count; the shortest, both on a line
            assert!(!Geo::with_text(w, 460.0, 1, 32, needs).bin_inline || w < COMPACT_BELOW);
            assert!(Geo::with_text(w, min, 1, 32, needs).bin_inline);
        }
        // the compact layout (more text rows) needs more height
        let needs = TextNeeds::default();
        assert!(
            Geo::with_text(390.0, 360.0, 1, 32, needs).min_height()
                > Geo::with_text(624.0, 360.0, 1, 32, needs).min_height()
        );
    }

    #[test]
    fn decode_cells_fill_their_station_and_are_capped() {
        let g = Geo::new(1000.0, 360.0, 1, 48);
        assert_eq!(g.cells, 48);
        let rows = g.cells.div_ceil(g.cell_cols);
        let (x, y, w, h) = g.cell_rect(g.cells - 1);
        assert!(x + w <= g.d1 + 1e-9 && y + h <= g.bottom + 1e-9);
        assert!(rows as f64 * g.cell_h <= g.bottom - g.top + 1e-9);
        assert_eq!(Geo::new(1000.0, 360.0, 1, 4096).cells, MAX_CELLS);
        // a glyph beyond the drawn slots sits in the last one
        assert_eq!(g.cell_glyph(10_000), g.cell_glyph(g.cells - 1));
    }

    #[test]
    fn queue_fills_from_the_middle_and_grows_denser() {
        let g = Geo::new(1000.0, 360.0, 1, 16);
        let few = LaneGrid::new(&g, 0, 5);
        let many = LaneGrid::new(&g, 0, 5000);
        assert!(many.pitch < few.pitch);
        assert!(few.cap >= 5);
        // head at the right of the middle row; the second row below, the third above
        let (x0, y0) = few.pos(0);
        assert!((y0 - few.y_mid).abs() < 1e-9);
        assert!(few.pos(1).0 < x0);
        let below = few.pos(few.cols).1;
        let above = few.pos(2 * few.cols).1;
        assert!(below > y0 && above < y0);
        // a place beyond the capacity is the last place
        assert_eq!(many.pos(many.cap + 10), many.pos(many.cap - 1));
    }

    #[test]
    fn prefill_rows_leave_room_for_the_overflow_note() {
        let g = Geo::new(1000.0, 360.0, 1, 16);
        let few = PrefillRows::new(&g, 3);
        assert_eq!((few.shown, few.row_h), (3, 20.0));
        let many = PrefillRows::new(&g, 500);
        assert!(many.shown < 500 && many.row_h == 5.0);
        let (_, y, _, h) = many.bar(&g, many.shown - 1);
        assert!(y + h < g.bottom);
        assert!(few.glyph(&g, 99).1 == few.glyph(&g, 2).1);
    }

    #[test]
    fn bins_and_flights() {
        let g = Geo::new(1000.0, 360.0, 1, 16);
        for pair in Bin::ALL.windows(2) {
            let (a, b) = (g.bin_rect(pair[0]), g.bin_rect(pair[1]));
            assert!(a.1 + a.3 < b.1, "bins overlap");
        }
        assert_eq!(Bin::of(Ending::Preempted), None);
        assert_eq!(Bin::of(Ending::Failed), Some(Bin::OomLost));
        let from = (100.0, 100.0);
        assert!(g.flight_via(from, Bin::Rejected).1 > g.bottom);
        assert!(g.flight_via(from, Bin::Completed).1 < g.bottom);
        assert_eq!(bezier((0.0, 0.0), (5.0, 5.0), (10.0, 0.0), 1.0), (10.0, 0.0));
        assert_eq!(bezier((0.0, 0.0), (5.0, 5.0), (10.0, 0.0), 0.0), (0.0, 0.0));
        assert_eq!(ease_out(2.0), 1.0);
        assert_eq!(ease_out(0.5), 0.75);
        for (i, b) in Bin::ALL.iter().enumerate() {
            assert_eq!(b.index(), i);
        }
    }

    /// A rough width of text in the fonts the stage uses (DejaVu-like: wide).
    fn approx(text: &str, px: f64) -> f64 {
        text.chars().map(|c| if c.is_ascii() { 0.62 } else { 1.0 }).sum::<f64>() * px
    }

    #[test]
    fn phone_stage_is_drawn_at_css_size_with_readable_text_and_labels_apart() {
        for (locale, subs, bins) in [
            (
                "en",
                ["15 arrived · 0 waiting", "12 prompts", "running batch 12 / 32"],
                ["completed", "rejected", "timed out", "OOM lost"],
            ),
            ("zh", ["已到达 15 · 等待 0", "12 个提示", "运行批次 12 / 32"], ["完成", "拒绝", "超时", "OOM丢失"]),
        ] {
            for w in [330.0, 358.0, 390.0] {
                let f = Fonts::new(1.0, true);
                let label_w = bins.iter().map(|b| approx(b, f.small)).fold(0.0, f64::max);
                let g = Geo::with_text(w, 460.0, 1, 32, TextNeeds { scale: 1.0, bin_label_w: label_w });
                assert!(g.compact, "{w}");
                assert!(g.fonts.tiny >= MIN_TEXT_PX && g.fonts.small >= MIN_TEXT_PX && g.fonts.title > MIN_TEXT_PX);
                // stations in order and inside the canvas
                assert!(g.q1 < g.p0 && g.p1 < g.d0 && g.d0 < g.d1 && g.d1 < g.o0 && g.o1 <= w, "{locale} {w}: {g:?}");
                // each outcome label fits its bin beside the icon
                let (_, _, bw, bh) = g.bin_rect(Bin::Completed);
                assert!(label_w + 21.0 + 4.0 <= bw, "{locale} {w}: label {label_w} in bin {bw}");
                assert!(bh >= g.fonts.title * 2.0 + 8.0, "room for label and count: {bh}");
                // the station counts do not overlap: each row's labels are apart
                let xs = g.station_x();
                let widths: Vec<f64> = subs.iter().map(|s| approx(s, g.fonts.small)).collect();
                let rows = place_rows(&xs[..3], &widths, 6.0, w - 4.0, g.sub_rows);
                for i in 0..3 {
                    for j in i + 1..3 {
                        if rows[i] == rows[j] {
                            assert!(xs[i] + widths[i] + 6.0 <= xs[j], "{locale} {w}: {i} and {j} overlap");
                        }
                    }
                    assert!(xs[i] + widths[i] <= w - 4.0, "{locale} {w}: count {i} runs off the canvas");
                }
                // titles fit before the next station
                let titles = if locale == "en" {
                    ["Queue", "Prefill", "Decode", "Outcome"]
                } else {
                    ["队列", "预填充", "解码", "结果"]
                };
                for i in 0..4 {
                    let end = if i < 3 { xs[i + 1] } else { w };
                    assert!(xs[i] + approx(titles[i], g.fonts.title) <= end, "{locale} {w}: title {i}");
                }
                // the counts sit below the titles and above the stations
                assert!(g.sub_y(0) > g.title_y && g.sub_y(g.sub_rows - 1) + 4.0 < g.top);
                // the footer lines are below the stations and inside the canvas
                assert!(g.foot_line_y(0) > g.bottom && g.foot_line_y(g.foot_rows - 1) < g.h);
            }
        }
    }

    #[test]
    fn projector_text_is_larger_and_the_desktop_layout_keeps_its_shape() {
        let normal = Geo::new(600.0, 360.0, 1, 32);
        let big = Geo::with_text(600.0, 360.0, 1, 32, TextNeeds { scale: 1.25, bin_label_w: 75.0 });
        assert!(!normal.compact && !big.compact);
        assert!(big.fonts.tiny > normal.fonts.tiny && big.fonts.title > normal.fonts.title);
        assert_eq!(normal.fonts, Fonts { title: 12.0, small: 11.0, tiny: 10.0 });
        assert!(big.sub_rows > normal.sub_rows && big.top > normal.top);
        // the bins widen for a wider label, the decode slots give way
        assert!(big.o1 - big.o0 > normal.o1 - normal.o0 && big.d1 < normal.d1);
    }

    #[test]
    fn rows_and_wrapping() {
        // the second label reaches the third's place: it moves down a row
        assert_eq!(place_rows(&[0.0, 100.0, 150.0], &[90.0, 80.0, 40.0], 6.0, 400.0, 3), vec![0, 0, 1]);
        assert_eq!(place_rows(&[0.0, 10.0], &[50.0, 50.0], 6.0, 400.0, 1), vec![0, 0]);
        let m = |s: &str| s.chars().count() as f64;
        assert_eq!(wrap("one two three", 7.0, m), vec!["one two", "three"]);
        assert_eq!(wrap("静态批处理整批结束", 4.0, m), vec!["静态批处", "理整批结", "束"]);
        assert_eq!(wrap("", 4.0, m), Vec::<String>::new());
        for line in wrap("a very long sentence that has to wrap somewhere", 12.0, m) {
            assert!(m(&line) <= 12.0, "{line}");
        }
    }
}
