//! Moving the glyphs one frame: what ended or was preempted, phase changes (decode slots taken
//! and freed, requests leaving the queue for their replica), requests gone to their outcome,
//! each glyph eased towards its place (queue lane, prefill band, KV link, decode slot), flights.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use sim_core::sim::Ending;
use sim_core::Phase;

use super::{Flight, IdMap, Readings, Sprite, Stage};
use crate::stage_layout::{link_progress, Bin, Geo, LaneGrid, PrefillRows};

/// Wall-clock time constant of the glyph easing, ms.
const EASE_MS: f64 = 90.0;
/// Flight time of an ended request to its outcome bin, ms.
const FLIGHT_MS: f64 = 600.0;
/// Most flying glyphs at once (fast-forward ends thousands of requests per frame).
const MAX_FLIGHTS: usize = 400;

impl Stage {
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

    /// Moves every glyph one frame (`dt_ms` of wall-clock time) towards where the readings say
    /// its request is, and the flights towards their bins.
    pub(super) fn advance(&mut self, g: &Geo, rd: &Readings, dt_ms: f64) {
        let frame = self.frame;
        let live = rd.live;
        // 1. What ended or was preempted since the last frame.
        let recent = rd.endings;
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
        let now_s = rd.now_s;
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
        let still = self.still;
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
        for f in &mut self.flights {
            f.t += if still { 1.0 } else { dt_ms * self.pace / FLIGHT_MS };
        }
        let bin_flash = &mut self.bin_flash;
        self.flights.retain(|f| {
            if f.t >= 1.0 {
                bin_flash[f.bin.index()] = 400.0;
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
        if self.flights.len() >= MAX_FLIGHTS {
            return;
        }
        let (to, via) = (g.bin_target(bin), g.flight_via(from, bin));
        self.flights.push(Flight { from, via, to, r: r.max(2.5), t: 0.0, class, bin });
    }
}

fn ease(s: &mut Sprite, tx: f64, ty: f64, tr: f64, k: f64) {
    s.x += (tx - s.x) * k;
    s.y += (ty - s.y) * k;
    s.r += (tr - s.r) * k;
}
