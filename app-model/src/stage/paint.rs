//! Painting one frame of the stage into its display list, one painter per station: the titles,
//! the running batch's bracket, the arrival doors and queue lanes, (in `stations`) the prefill
//! and decode bands or the replicas' tiles, the KV links and the draft tokens, then the outcome
//! bins, the preemption arrow, the glyphs, their flights, the restart shade and the footer.
//! The places come from [`crate::stage_layout`]; the state from [`Stage`].

use sim_core::Phase;

use super::display::{Align, Dash, DisplayList, Font, Item, Measure, Role, Words};
use super::{stations, Readings, Sprite, Stage};
use crate::format;
use crate::stage_layout::{bezier, ease_out, place_rows, wrap, Bin, Geo, LaneGrid, PrefillRows};

/// Appends items to a display list, measuring and translating text through the app.
pub struct Painter<'a> {
    pub list: &'a mut DisplayList,
    pub m: &'a mut dyn Measure,
    pub words: &'a dyn Words,
}

impl Painter<'_> {
    pub fn width(&mut self, font: Font, s: &str) -> f64 {
        let px = self.list.px(font);
        self.m.width(font, px, s)
    }
    pub fn tr(&self, key: &str, args: &[(&str, String)]) -> String {
        self.words.tf(key, args)
    }
    /// A translation key's text (with `args`) at (x, y).
    pub fn say(&mut self, key: &str, args: &[(&str, String)], at: (f64, f64), font: Font, fill: Role, align: Align) {
        let s = self.words.tf(key, args);
        self.text(at.0, at.1, font, fill, align, &s);
    }
    pub fn push(&mut self, item: Item) {
        self.list.items.push(item);
    }
    pub fn text(&mut self, x: f64, y: f64, font: Font, fill: Role, align: Align, s: &str) {
        let from = self.list.text.len() as u32;
        self.list.text.push_str(s);
        let to = self.list.text.len() as u32;
        self.push(Item::Text { x, y, font, fill, align, from, to });
    }
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: Role) {
        self.push(Item::Rect { x, y, w, h, fill });
    }
    /// A round rectangle filled and outlined like a station (1 px).
    pub fn zone(&mut self, x: f64, y: f64, w: f64, h: f64, r: f64, fill: Role) {
        self.push(Item::RoundRect { x, y, w, h, r, fill: Some(fill), stroke: Some(Role::ZoneLine), dash: None });
    }
    /// A polyline stroked `width` thick, or (width 0) closed and filled.
    pub fn path(&mut self, pts: &[(f64, f64)], role: Role, width: f64, dash: Dash) {
        let from = self.list.points.len() as u32;
        for &(x, y) in pts {
            self.list.points.push((x, y, 0.0));
        }
        let to = self.list.points.len() as u32;
        self.push(Item::Path { from, to, role, width, dash });
    }
    pub fn circle(&mut self, x: f64, y: f64, r: f64, role: Role, width: f64) {
        let from = self.list.points.len() as u32;
        self.list.points.push((x, y, r));
        self.push(Item::Circles { from, to: from + 1, role, width });
    }
}

/// Paints the frame of `st` (its motion already advanced) into `p`'s list.
pub(super) fn paint(p: &mut Painter, st: &mut Stage, g: &Geo, rd: &Readings) {
    p.rect(0.0, 0.0, g.w, g.h, Role::Bg);
    titles(p, st, g, rd);
    // The running batch as a whole: one bracket around prefill and decode.
    let (x, y, w, h) = (g.p0 - 6.0, g.top - 5.0, g.d1 - g.p0 + 12.0, g.bottom - g.top + 10.0);
    p.push(Item::RoundRect { x, y, w, h, r: 8.0, fill: None, stroke: Some(Role::Bracket), dash: Some([4.0, 3.0]) });
    queue(p, st, g);
    if g.tiles.is_empty() {
        stations::prefill(p, st, g, rd.live);
        stations::decode(p, st, g, rd.live);
    } else {
        stations::tiles(p, st, g, rd.calm);
    }
    if g.link {
        stations::links(p, st, g);
    }
    let step = &rd.calm.last_step;
    if step.draft_tokens > 0 {
        stations::drafts(p, g, step.draft_tokens, step.accepted_draft_tokens);
    }
    bins(p, st, g, rd);
    preemption(p, st, g, rd.calm.counts.preempted);
    glyphs(p, st, g);
    flights(p, st);
    restarting(p, g, rd);
    footer(p, st, g, rd);
}

/// How many requests wait, are prefilled, on the links and decoded.
fn tally(st: &Stage, live: usize) -> (usize, usize, usize, usize) {
    let waiting: usize = st.lane_order.iter().chain(&st.arrived_order).map(Vec::len).sum();
    let prefilling: usize = st.prefill_order.iter().map(Vec::len).sum();
    let sending = st.on_link.len();
    (waiting, prefilling, sending, live.saturating_sub(waiting + prefilling + sending))
}

/// Station titles and counts; a count that would reach into the next one moves down a row.
fn titles(p: &mut Painter, st: &Stage, g: &Geo, rd: &Readings) {
    let (waiting, prefilling, sending, decoding) = tally(st, rd.live.len());
    let running = prefilling + sending + decoding;
    let prompts = if prefilling == 1 { "stage.prompts_one" } else { "stage.prompts" };
    let arrived = format::int(rd.calm.counts.arrived);
    let subs = [
        p.tr("stage.queue_sub", &[("arrived", arrived), ("waiting", format::int(waiting as u64))]),
        p.tr(prompts, &[("n", prefilling.to_string())]),
        p.tr(
            "stage.decode_sub",
            &[("n", format::int(running as u64)), ("max", format::int(st.cfg.max_num_seqs as u64))],
        ),
    ];
    let xs = g.station_x();
    for (x, key) in xs.iter().zip(["stage.queue", "stage.prefill", "stage.decode", "stage.outcome"]) {
        p.say(key, &[], (x.max(4.0), g.title_y), Font::Title, Role::Text, Align::Left);
    }
    let widths: Vec<f64> = subs.iter().map(|s| p.width(Font::Small, s)).collect();
    let rows = place_rows(&xs[..3], &widths, 6.0, g.w - 4.0, g.sub_rows);
    for ((x, sub), row) in xs.iter().zip(&subs).zip(rows) {
        p.text(x.max(4.0), g.sub_y(row), Font::Small, Role::Muted, Align::Left, sub);
    }
}

/// The arrival doors and the queue lanes: each lane's label, and a count of those not drawn.
fn queue(p: &mut Painter, st: &Stage, g: &Geo) {
    for lane in 0..g.lanes.len() {
        let (x, y) = (g.spawn_x, g.lane_mid(lane));
        p.push(Item::RoundRect {
            x: x - 7.0,
            y: y - 14.0,
            w: 14.0,
            h: 28.0,
            r: 4.0,
            fill: Some(Role::Door),
            stroke: None,
            dash: None,
        });
        // an arrow drawn as a shape
        let arrow = [(-4.0, -1.0), (0.0, -1.0), (0.0, -4.0), (4.5, 0.0), (0.0, 4.0), (0.0, 1.0), (-4.0, 1.0)];
        p.path(&arrow.map(|(dx, dy)| (x + dx, y + dy)), Role::Muted, 0.0, None);
        p.say("stage.in", &[], (x, y + 16.0 + g.fonts.tiny), Font::Tiny, Role::Muted, Align::Center);
    }
    for (lane, &(y0, y1)) in g.lanes.iter().enumerate() {
        p.zone(g.q0, y0, g.q1 - g.q0, y1 - y0, 6.0, Role::Zone);
        let n = st.lane_order[lane].len();
        let label = if st.cfg.isolation {
            let name = st.cfg.class_names.get(lane).map(String::as_str).unwrap_or("");
            let prio = st.cfg.priorities.get(lane).copied().unwrap_or(0);
            let args = [("name", name.to_string()), ("prio", prio.to_string()), ("n", format::int(n as u64))];
            p.tr("stage.lane", &args)
        } else {
            p.tr("stage.shared_queue", &[])
        };
        let lines = wrap(&label, g.q1 - g.q0 - 12.0, &mut |s| p.width(Font::Tiny, s));
        for (i, line) in lines.iter().take(g.lane_label_rows).enumerate() {
            let y = y0 + 2.0 + g.fonts.tiny + i as f64 * g.fonts.line();
            p.text(g.q0 + 6.0, y, Font::Tiny, Role::Muted, Align::Left, line);
        }
        let grid = LaneGrid::new(g, lane, n);
        if n > grid.cap {
            let (x, y) = grid.pos(grid.cap - 1);
            p.rect(x - grid.pitch * 2.5, y - grid.pitch / 2.0, grid.pitch * 3.0, grid.pitch, Role::Zone);
            let more = format!("+{}", format::int((n - grid.cap) as u64));
            p.text(x + grid.pitch / 2.0, y + 3.5, Font::Tiny, Role::Text, Align::Right, &more);
        }
    }
}

/// The outcome bins: icon, label and count each, highlighted when a flight lands.
fn bins(p: &mut Painter, st: &Stage, g: &Geo, rd: &Readings) {
    for bin in Bin::ALL {
        let (x, y, w, h) = g.bin_rect(bin);
        p.zone(x, y, w, h, 6.0, if st.bin_flash[bin.index()] > 0.0 { Role::Flash } else { Role::Zone });
        let count = format::int(bin.count(&rd.calm.counts));
        // label above count, or (a short stage) both on one line, the count at the right
        let label_y = if g.bin_inline { y + h / 2.0 + g.fonts.small * 0.36 } else { y + 4.0 + g.fonts.small };
        bin_icon(p, bin, x + 11.0, label_y - g.fonts.small * 0.36, g.fonts.small * 0.45);
        // the bins are laid out as wide as the widest label (`text_needs`)
        p.say(bin.label(), &[], (x + 21.0, label_y), Font::Small, Role::Text, Align::Left);
        if g.bin_inline {
            p.text(x + w - 6.0, label_y, Font::Title, Role::Text, Align::Right, &count);
        } else {
            p.text(x + 6.0, y + h - 6.0, Font::Title, Role::Text, Align::Left, &count);
        }
    }
}

/// A bin's mark as lines (no font needed): a tick, a cross, a clock, an exclamation mark.
fn bin_icon(p: &mut Painter, bin: Bin, cx: f64, cy: f64, r: f64) {
    let c = Role::Bin(bin);
    match bin {
        Bin::Completed => p.path(&[(cx - r, cy), (cx - r * 0.3, cy + r * 0.8), (cx + r, cy - r * 0.8)], c, 1.8, None),
        Bin::Rejected => {
            let k = r * 0.8;
            p.path(&[(cx - k, cy - k), (cx + k, cy + k)], c, 1.8, None);
            p.path(&[(cx + k, cy - k), (cx - k, cy + k)], c, 1.8, None);
        }
        Bin::TimedOut => {
            p.circle(cx, cy, r, c, 1.8);
            p.path(&[(cx, cy - r * 0.6), (cx, cy), (cx + r * 0.5, cy)], c, 1.8, None);
        }
        Bin::OomLost => {
            p.path(&[(cx, cy - r), (cx, cy + r * 0.35)], c, 1.8, None);
            p.circle(cx, cy + r * 0.85, 1.2, c, 0.0);
        }
    }
}

/// Preemption: an arrow from the batch back to the queue with the count, bright for a while
/// after one.
fn preemption(p: &mut Painter, st: &Stage, g: &Geo, preempted: u64) {
    if preempted == 0 && st.preempt_flash <= 0.0 {
        return;
    }
    let hot = st.preempt_flash > 0.0;
    let role = if hot { Role::Preempt } else { Role::PreemptSoft };
    let (x0, y0) = ((g.d0 + g.d1) / 2.0, g.top - 4.0);
    let (x1, y1) = (g.q1 - 20.0, g.top - 2.0);
    let ctrl = ((x0 + x1) / 2.0, g.top - 14.0);
    let width = if hot { 2.0 } else { 1.0 };
    p.push(Item::Curve { from: (x0, y0), ctrl, to: (x1, y1), stroke: role, width, dash: Some([5.0, 4.0]) });
    p.path(&[(x1, y1 + 1.0), (x1 + 7.0, y1 - 4.0), (x1 + 8.0, y1 + 3.0)], role, 0.0, None);
    let label = p.tr("stage.preempted", &[("n", format::int(preempted))]);
    let tw = p.width(Font::Tiny, &label);
    let mid = (x0 + x1) / 2.0;
    p.rect(mid - tw / 2.0 - 3.0, g.top - 9.5 - g.fonts.tiny, tw + 6.0, g.fonts.tiny + 3.0, Role::Bg);
    p.text(mid, g.top - 9.5, Font::Tiny, Role::Preempt, Align::Center, &label);
}

/// Still on its way to `to` (more than 2 px off).
fn moving(s: &Sprite, to: (f64, f64)) -> bool {
    (s.x - to.0).abs() + (s.y - to.1).abs() > 2.0
}

/// The glyphs where they are drawn, batched per class (one path each), and a ring around each
/// one flashing after a preemption. Waiting glyphs beyond a lane's grid, prompts beyond the
/// rows, and decoding ones beyond the slots drawn are left out; in the grid of tiles, only
/// those still on their way to their tile are drawn.
fn glyphs(p: &mut Painter, st: &mut Stage, g: &Geo) {
    let Stage { glyphs, sprites, lane_order, prefill_order, on_link, arrived_order, .. } = st;
    for v in glyphs.iter_mut() {
        v.clear();
    }
    let rings_from = p.list.points.len() as u32;
    let mut push = |s: &Sprite, points: &mut Vec<(f64, f64, f64)>| {
        let c = (s.class as usize).min(glyphs.len() - 1);
        glyphs[c].push((s.x, s.y, s.r));
        if s.flash > 0.0 {
            points.push((s.x, s.y, s.r + 3.0));
        }
    };
    let pts = &mut p.list.points;
    for (lane, order) in lane_order.iter().enumerate() {
        let grid = LaneGrid::new(g, lane, order.len());
        let cap = grid.cap.saturating_sub(usize::from(order.len() > grid.cap));
        for (_, id) in order.iter().take(cap) {
            if let Some(s) = sprites.get(id) {
                push(s, pts);
            }
        }
    }
    let grid = !g.tiles.is_empty();
    for (band, order) in prefill_order.iter().enumerate() {
        let shown = if grid { order.len() } else { PrefillRows::new(g, band, order.len()).shown };
        for (_, id) in order.iter().take(shown) {
            if let Some(s) = sprites.get(id).filter(|s| !grid || moving(s, g.tile_mid(band))) {
                push(s, pts);
            }
        }
    }
    for (id, ..) in on_link.iter() {
        if let Some(s) = sprites.get(id) {
            push(s, pts);
        }
    }
    for order in arrived_order.iter() {
        for (_, id) in order.iter().take(12) {
            if let Some(s) = sprites.get(id) {
                push(s, pts);
            }
        }
    }
    for s in sprites.values().filter(|s| s.phase == Phase::Decode) {
        let drawn = if grid {
            moving(s, g.tile_mid(s.replica as usize))
        } else {
            s.cell.is_some_and(|c| (c as usize) < g.cells)
        };
        if drawn {
            push(s, pts);
        }
    }
    let rings_to = p.list.points.len() as u32;
    for (class, list) in glyphs.iter().enumerate().filter(|(_, l)| !l.is_empty()) {
        let from = p.list.points.len() as u32;
        p.list.points.extend_from_slice(list);
        let to = p.list.points.len() as u32;
        let class = class as u16;
        p.push(Item::Glyphs { class, fill: Role::Class(class), from, to, outline: list.len() < 600 });
    }
    if rings_to > rings_from {
        p.push(Item::Circles { from: rings_from, to: rings_to, role: Role::Preempt, width: 2.0 });
    }
}

/// Ended requests flying to their outcome bins, fading at the end; in the bin's colour unless
/// completed.
fn flights(p: &mut Painter, st: &Stage) {
    for f in &st.flights {
        let (x, y) = bezier(f.from, f.via, f.to, ease_out(f.t));
        let alpha = if f.t > 0.75 { (1.0 - f.t) / 0.25 } else { 1.0 };
        p.push(Item::Alpha(alpha.clamp(0.0, 1.0)));
        let fill = if f.bin == Bin::Completed { Role::Class(f.class) } else { Role::Bin(f.bin) };
        let from = p.list.points.len() as u32;
        p.list.points.push((x, y, f.r));
        p.push(Item::Glyphs { class: f.class, fill, from, to: from + 1, outline: false });
    }
    if !st.flights.is_empty() {
        p.push(Item::Alpha(1.0));
    }
}

/// Server down after an OOM: the batch shaded, and until when.
fn restarting(p: &mut Painter, g: &Geo, rd: &Readings) {
    let Some(until) = rd.calm.restarting_until_s.filter(|&u| u > rd.now_s) else { return };
    p.rect(g.p0 - 6.0, g.top - 5.0, g.d1 - g.p0 + 12.0, g.bottom - g.top + 10.0, Role::Down);
    let at = ((g.p0 + g.d1) / 2.0, (g.top + g.bottom) / 2.0);
    p.say("stage.oom", &[("t", format::sim_time(until))], at, Font::Title, Role::Bin(Bin::OomLost), Align::Center);
}

/// Footer: the clock and the last iteration, wrapped beside the clock; the static-batching
/// note on the lines below.
fn footer(p: &mut Painter, st: &Stage, g: &Geo, rd: &Readings) {
    let clock = format!("t = {}", format::sim_time(rd.now_s));
    p.text(6.0, g.foot_line_y(0), Font::Title, Role::Text, Align::Left, &clock);
    let x0 = 6.0 + p.width(Font::Title, "t = 000.00 s").max(p.width(Font::Title, &clock)) + 10.0;
    let step = &rd.calm.last_step;
    let text = if rd.finished {
        p.tr("stage.finished", &[])
    } else if step.duration_ms > 0.0 {
        let args = [
            ("ms", format::ms(step.duration_ms)),
            ("prefill", format::int(step.prefill_tokens)),
            ("decode", format::int(step.decode_seqs)),
            ("pct", format!("{:.0}", step.compute_bound_share * 100.0)),
        ];
        p.tr("stage.last_iteration", &args)
    } else {
        p.tr("stage.waiting_first", &[])
    };
    let mut lines = wrap(&text, g.w - x0 - 6.0, &mut |s| p.width(Font::Small, s));
    let beside = lines.len();
    if st.cfg.static_batching {
        let note = p.tr("stage.static_note", &[]);
        lines.extend(wrap(&note, g.w - 12.0, &mut |s| p.width(Font::Small, s)));
    }
    for (i, line) in lines.iter().take(g.foot_rows).enumerate() {
        let x = if i < beside { x0 } else { 6.0 };
        p.text(x, g.foot_line_y(i), Font::Small, Role::Muted, Align::Left, line);
    }
}
