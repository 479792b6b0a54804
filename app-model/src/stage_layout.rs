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
}

impl Geo {
    /// The layout of a `w` × `h` stage with `lanes` queue lanes and `max_seqs` decode slots.
    pub fn new(w: f64, h: f64, lanes: usize, max_seqs: usize) -> Geo {
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
        let gap = 8.0;
        let h = ((self.bottom - self.top) - gap * 3.0) / 4.0;
        (self.o0, self.top + bin.index() as f64 * (h + gap), self.o1 - self.o0, h)
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
}
