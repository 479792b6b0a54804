//! The replicas on the stage: with several, the prefill and decode stations are split into a band
//! per replica (side by side rows, so a request leaving the queue goes to its replica's band),
//! with prefill/decode disaggregation the prefill pool's bands on the left and the decode pool's
//! on the right with the KV links between them; beyond [`FULL_REPLICAS`], a compact tile per
//! replica over both stations.

use super::{Geo, MAX_CELLS};

/// Most replicas drawn with their own bands; more are drawn as a grid of tiles.
pub const FULL_REPLICAS: usize = 8;
/// Space between two bands of a station, CSS px.
const BAND_GAP: f64 = 4.0;

/// The replicas a stage draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cluster {
    pub replicas: usize,
    /// Disaggregation: the first `prefill_pool` replicas run prompts only, the others decode
    /// steps only; 0: every replica runs both.
    pub prefill_pool: usize,
    /// Batch slots of each replica (max_num_seqs).
    pub seqs_per_replica: usize,
}

/// One replica's part of a station, top to bottom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Band {
    pub replica: usize,
    pub y0: f64,
    pub y1: f64,
}

impl Band {
    pub fn mid(&self) -> f64 {
        (self.y0 + self.y1) / 2.0
    }
}

impl Cluster {
    /// One replica with `max_seqs` batch slots.
    pub fn one(max_seqs: usize) -> Cluster {
        Cluster { replicas: 1, prefill_pool: 0, seqs_per_replica: max_seqs }
    }

    pub fn disaggregated(&self) -> bool {
        self.prefill_pool > 0 && self.prefill_pool < self.replicas
    }

    /// More replicas than [`FULL_REPLICAS`]: a tile each.
    pub fn as_grid(&self) -> bool {
        self.replicas > FULL_REPLICAS
    }

    /// The replicas that prefill, and those that decode.
    fn pools(&self) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
        let n = self.replicas.max(1);
        if self.disaggregated() {
            (0..self.prefill_pool, self.prefill_pool..n)
        } else {
            (0..n, 0..n)
        }
    }
}

/// `n` bands between `top` and `bottom` for the replicas of `range`.
fn bands(range: std::ops::Range<usize>, top: f64, bottom: f64) -> Vec<Band> {
    let n = range.len().max(1) as f64;
    let gap = if range.len() > 1 { BAND_GAP } else { 0.0 };
    let h = (bottom - top - gap * (n - 1.0)) / n;
    range
        .enumerate()
        .map(|(i, replica)| {
            let y0 = top + i as f64 * (h + gap);
            Band { replica, y0, y1: y0 + h }
        })
        .collect()
}

impl Geo {
    /// Lays the replicas of `c` out in the stations this geometry has placed.
    pub(super) fn with_replicas(mut self, c: Cluster) -> Geo {
        let (top, bottom) = (self.top, self.bottom);
        if c.as_grid() {
            // tiles about twice as wide as tall over both stations
            let (w, h) = (self.d1 - self.p0, bottom - top);
            let n = c.replicas;
            let cols = (1..=n).min_by_key(|&cols| {
                let rows = n.div_ceil(cols);
                let (tw, th) = (w / cols as f64, h / rows as f64);
                ((tw / th - 2.0).abs() * 1000.0) as u64
            });
            let cols = cols.unwrap_or(1);
            let rows = n.div_ceil(cols);
            let (tw, th) = (w / cols as f64, h / rows as f64);
            self.tiles = (0..n)
                .map(|i| {
                    let (col, row) = (i % cols, i / cols);
                    (self.p0 + col as f64 * tw + 1.5, top + row as f64 * th + 1.5, tw - 3.0, th - 3.0)
                })
                .collect();
            // no bands, so no links between them: transfers happen inside the tiles' picture
            (self.tag_w, self.prefill_tag_w) = (0.0, 0.0);
            self.link = false;
            return self;
        }
        let (prefill, decode) = c.pools();
        self.prefill_bands = bands(prefill, top, bottom);
        self.decode_bands = bands(decode, top, bottom);
        // decode slots per band: every replica's batch, within the cap over the whole station
        let per_band = MAX_CELLS / self.decode_bands.len().max(1);
        let cells = c.seqs_per_replica.clamp(1, per_band.max(1));
        let band_h = self.decode_bands.first().map_or(bottom - top, |b| b.y1 - b.y0);
        let width = self.d1 - self.d0 - self.tag_w;
        // cells are progress bars: pick the column count that makes them largest at ~3:1
        let (mut best, mut best_cols) = (0.0, 1);
        for cols in 1..=cells {
            let rows = cells.div_ceil(cols);
            let size = (width / cols as f64 / 3.0).min(band_h / rows as f64);
            if size > best {
                best = size;
                best_cols = cols;
            }
        }
        let rows = cells.div_ceil(best_cols);
        self.cells = cells;
        self.cell_cols = best_cols;
        self.cell_w = width / best_cols as f64;
        self.cell_h = (band_h / rows as f64).min(40.0);
        self
    }

    /// The prefill band of replica `replica` (none for a decode-only replica, or in the grid).
    pub fn prefill_band(&self, replica: usize) -> Option<usize> {
        self.prefill_bands.iter().position(|b| b.replica == replica)
    }

    /// The decode band of replica `replica`.
    pub fn decode_band(&self, replica: usize) -> Option<usize> {
        self.decode_bands.iter().position(|b| b.replica == replica)
    }

    /// Where a KV transfer leaves prefill band `from` and reaches decode band `to`.
    pub fn link_ends(&self, from: usize, to: usize) -> ((f64, f64), (f64, f64)) {
        let mid = |b: &[Band], i: usize| b.get(i).map_or((self.top + self.bottom) / 2.0, Band::mid);
        ((self.p1 + 2.0, mid(&self.prefill_bands, from)), (self.d0 - 2.0, mid(&self.decode_bands, to)))
    }

    /// A point `t` (0 ..= 1) along the link from prefill band `from` to decode band `to`.
    pub fn on_link(&self, from: usize, to: usize, t: f64) -> (f64, f64) {
        let ((x0, y0), (x1, y1)) = self.link_ends(from, to);
        let t = t.clamp(0.0, 1.0);
        (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t)
    }

    /// The centre of replica `replica`'s tile in the grid (the stations' middle without one).
    pub fn tile_mid(&self, replica: usize) -> (f64, f64) {
        self.tiles.get(replica).map_or(((self.p0 + self.d1) / 2.0, (self.top + self.bottom) / 2.0), |&(x, y, w, h)| {
            (x + w / 2.0, y + h / 2.0)
        })
    }
}

/// How far along its link a transfer is at `now_s`: 0 until its first byte leaves, then the
/// share of its time on the link (wire and latency) gone by, 1 once it has arrived.
pub fn link_progress(now_s: f64, start_s: f64, arrive_s: f64) -> f64 {
    if arrive_s <= start_s {
        return if now_s >= arrive_s { 1.0 } else { 0.0 };
    }
    ((now_s - start_s) / (arrive_s - start_s)).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::super::{PrefillRows, TextNeeds};
    use super::*;

    fn geo(w: f64, c: Cluster) -> Geo {
        Geo::of_cluster(w, 360.0, 1, c, TextNeeds::default())
    }

    #[test]
    fn colocated_replicas_get_a_band_each_in_both_stations_side_by_side() {
        let c = Cluster { replicas: 4, prefill_pool: 0, seqs_per_replica: 64 };
        let g = geo(1280.0, c);
        assert_eq!((g.prefill_bands.len(), g.decode_bands.len(), g.tiles.len()), (4, 4, 0));
        for (p, d) in g.prefill_bands.iter().zip(&g.decode_bands) {
            assert_eq!((p.replica, p.y0, p.y1), (d.replica, d.y0, d.y1), "a replica's row");
        }
        for pair in g.decode_bands.windows(2) {
            assert!(pair[0].y1 + BAND_GAP - 1e-9 <= pair[1].y0, "bands apart: {pair:?}");
        }
        assert!((g.decode_bands[0].y0 - g.top).abs() < 1e-9 && (g.decode_bands[3].y1 - g.bottom).abs() < 1e-9);
        // every replica's slots inside its band, after its tag
        assert_eq!(g.cells, 64);
        for band in 0..4 {
            let b = g.decode_bands[band];
            let (x, y, w, h) = g.cell_rect(band, g.cells - 1);
            let (x0, y0, _, _) = g.cell_rect(band, 0);
            assert!(x0 >= g.d0 + g.tag_w - 1e-9 && x + w <= g.d1 + 1e-9, "band {band}");
            assert!(y0 >= b.y0 - 1e-9 && y + h <= b.y1 + 1e-9, "band {band}: {y} + {h} > {}", b.y1);
            let rows = PrefillRows::new(&g, band, 3);
            assert!(rows.y0 == b.y0 && rows.glyph(&g, 2).1 < b.y1 && rows.bar(&g, 0).0 > g.p0 + g.tag_w);
        }
        // on a phone the prefill bands leave the tag to the decode band of their row
        let phone = geo(390.0, c);
        assert!(phone.tag_w > 0.0 && phone.prefill_tag_w == 0.0);
        assert_eq!(PrefillRows::new(&phone, 0, 1).x0, phone.p0);
        assert_eq!((g.prefill_band(3), g.decode_band(3), g.decode_band(4)), (Some(3), Some(3), None));
        assert!(!g.link);
    }

    #[test]
    fn one_replica_keeps_the_whole_stations_and_no_tags() {
        let g = geo(1000.0, Cluster::one(48));
        assert_eq!((g.prefill_bands.len(), g.decode_bands.len(), g.tag_w), (1, 1, 0.0));
        assert_eq!(g.cell_rect(0, 0).0, g.d0);
    }

    #[test]
    fn disaggregated_pools_stand_apart_with_the_links_between() {
        let c = Cluster { replicas: 3, prefill_pool: 2, seqs_per_replica: 256 };
        let g = geo(1280.0, c);
        assert!(g.link && g.d0 - g.p1 > 0.08 * 1280.0 - 1e-9);
        assert!(!geo(1280.0, Cluster { prefill_pool: 0, ..c }).link);
        // the pools' bands differ: each keeps its tag, on a phone too
        assert!(geo(390.0, c).prefill_tag_w > 0.0);
        assert_eq!(g.prefill_bands.iter().map(|b| b.replica).collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(g.decode_bands.iter().map(|b| b.replica).collect::<Vec<_>>(), vec![2]);
        assert_eq!((g.prefill_band(2), g.decode_band(2), g.decode_band(0)), (None, Some(0), None));
        // a transfer from replica 1 to replica 2 runs from the prefill station's edge to the
        // decode station's, from band to band
        let ((x0, y0), (x1, y1)) = g.link_ends(1, 0);
        assert!(x0 >= g.p1 && x1 <= g.d0 && x0 < x1);
        assert_eq!((y0, y1), (g.prefill_bands[1].mid(), g.decode_bands[0].mid()));
        assert_eq!(g.on_link(1, 0, 0.0), (x0, y0));
        assert_eq!(g.on_link(1, 0, 2.0), (x1, y1));
        let (xm, _) = g.on_link(1, 0, 0.5);
        assert!((xm - (x0 + x1) / 2.0).abs() < 1e-9);
    }

    #[test]
    fn beyond_eight_replicas_a_grid_of_tiles() {
        let c = Cluster { replicas: 12, prefill_pool: 0, seqs_per_replica: 64 };
        let g = geo(1440.0, c);
        assert!(g.prefill_bands.is_empty() && g.decode_bands.is_empty());
        assert_eq!(g.tiles.len(), 12);
        for (i, a) in g.tiles.iter().enumerate() {
            assert!(a.0 >= g.p0 && a.0 + a.2 <= g.d1 + 1e-9 && a.1 >= g.top && a.1 + a.3 <= g.bottom + 1e-9);
            for b in &g.tiles[i + 1..] {
                let apart = a.0 + a.2 <= b.0 || b.0 + b.2 <= a.0 || a.1 + a.3 <= b.1 || b.1 + b.3 <= a.1;
                assert!(apart, "{a:?} {b:?}");
            }
        }
        let (x, y) = g.tile_mid(5);
        let t = g.tiles[5];
        assert!(x > t.0 && x < t.0 + t.2 && y > t.1 && y < t.1 + t.3);
        assert!(geo(1440.0, Cluster { replicas: 8, ..c }).tiles.is_empty());
    }

    #[test]
    fn link_progress_follows_the_link_times() {
        assert_eq!(link_progress(1.0, 2.0, 4.0), 0.0, "waiting for the links");
        assert_eq!(link_progress(3.0, 2.0, 4.0), 0.5);
        assert_eq!(link_progress(5.0, 2.0, 4.0), 1.0);
        assert_eq!(link_progress(2.0, 2.0, 2.0), 1.0);
        assert_eq!(link_progress(1.0, 2.0, 2.0), 0.0);
    }
}
