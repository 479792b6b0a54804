//! Drawing one frame of the stage: stations, lanes, prefill bars, decode slots, outcome bins,
//! the preemption arrow, the glyphs and their flights, the footer. The places come from
//! `app_model::stage_layout`; the state from [`StageState`].

use std::f64::consts::TAU;

use app_model::stage_layout::{
    bezier, ease_out, place_rows, wrap, Bin, Fonts, Geo, LaneGrid, PrefillRows, TextNeeds, COMPACT_BELOW,
};
use sim_core::{LiveRequest, Phase, Simulation};
use web_sys::CanvasRenderingContext2d;

use super::{tr, Sprite, StageCalm, StageState};

mod stations;

use crate::format;
use crate::glyph;
use crate::i18n::t_untracked;
use crate::theme::{dash, palette};
use stations::draw_drafts;

/// Prompt tokens found in the prefix cache, on a prefill bar: a translucent teal and its edge
/// (the HBM gauge's colour for cached prefixes).
pub(super) const CACHED: &str = "rgba(13, 148, 136, 0.55)";
pub(super) const CACHED_EDGE: &str = "#0f766e";

impl StageState {
    pub(super) fn draw(
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

        let waiting: usize = self.lane_order.iter().chain(&self.arrived_order).map(Vec::len).sum();
        let prefilling: usize = self.prefill_order.iter().map(Vec::len).sum();
        let sending = self.on_link.len();
        let decoding = live.len().saturating_sub(waiting + prefilling + sending);
        let running = prefilling + sending + decoding;

        // Station titles and counts; a count that would reach into the next one moves down a row.
        let f = fonts(g);
        ctx.set_text_baseline("alphabetic");
        let prompts = if prefilling == 1 { "stage.prompts_one" } else { "stage.prompts" };
        let names = ["stage.queue", "stage.prefill", "stage.decode", "stage.outcome"];
        let subs = [
            tr(
                "stage.queue_sub",
                &[("arrived", format::int(calm.counts.arrived)), ("waiting", format::int(waiting as u64))],
            ),
            tr(prompts, &[("n", prefilling.to_string())]),
            tr(
                "stage.decode_sub",
                &[("n", format::int(running as u64)), ("max", format::int(self.cfg.max_num_seqs as u64))],
            ),
        ];
        let xs = g.station_x();
        ctx.set_font(&f.title);
        ctx.set_fill_style_str(pal.text);
        for (x, key) in xs.iter().zip(names) {
            let _ = ctx.fill_text(&t_untracked(key), x.max(4.0), g.title_y);
        }
        ctx.set_font(&f.small);
        ctx.set_fill_style_str(pal.muted);
        let widths: Vec<f64> = subs.iter().map(|s| width(ctx, s)).collect();
        let rows = place_rows(&xs[..3], &widths, 6.0, g.w - 4.0, g.sub_rows);
        for ((x, sub), row) in xs.iter().zip(&subs).zip(rows) {
            let _ = ctx.fill_text(sub, x.max(4.0), g.sub_y(row));
        }

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
            arrow_right(ctx, g.spawn_x, y);
            ctx.set_font(&f.tiny);
            ctx.set_text_align("center");
            let _ = ctx.fill_text(&t_untracked("stage.in"), g.spawn_x, y + 16.0 + g.fonts.tiny);
        }
        ctx.set_text_align("left");

        // Queue lanes.
        for (lane, (y0, y1)) in g.lanes.iter().enumerate() {
            ctx.set_fill_style_str(pal.zone);
            ctx.set_stroke_style_str(pal.zone_line);
            round_rect(ctx, g.q0, *y0, g.q1 - g.q0, y1 - y0, 6.0);
            ctx.fill();
            ctx.stroke();
            ctx.set_font(&f.tiny);
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
            let lines = wrap(&label, g.q1 - g.q0 - 12.0, |s| width(ctx, s));
            for (i, line) in lines.iter().take(g.lane_label_rows).enumerate() {
                let _ = ctx.fill_text(line, g.q0 + 6.0, y0 + 2.0 + g.fonts.tiny + i as f64 * g.fonts.line());
            }
            let grid = LaneGrid::new(g, lane, n);
            if n > grid.cap {
                let (x, y) = grid.pos(grid.cap - 1);
                ctx.set_fill_style_str(pal.zone);
                ctx.fill_rect(x - grid.pitch * 2.5, y - grid.pitch / 2.0, grid.pitch * 3.0, grid.pitch);
                ctx.set_fill_style_str(pal.text);
                ctx.set_font(&f.tiny);
                ctx.set_text_align("right");
                let _ =
                    ctx.fill_text(&format!("+{}", format::int((n - grid.cap) as u64)), x + grid.pitch / 2.0, y + 3.5);
                ctx.set_text_align("left");
            }
        }

        if g.tiles.is_empty() {
            self.draw_prefill(ctx, g, live, &f);
            self.draw_decode(ctx, g, live, &f);
        } else {
            self.draw_tiles(ctx, g, calm, &f);
        }
        if g.link {
            self.draw_links(ctx, g, &f);
        }
        if calm.last_step.draft_tokens > 0 {
            draw_drafts(ctx, g, &f, calm.last_step.draft_tokens, calm.last_step.accepted_draft_tokens);
        }

        // Outcome bins.
        for bin in Bin::ALL {
            let i = bin.index();
            let colour = pal.bins[i];
            let (x, y, w, h) = g.bin_rect(bin);
            ctx.set_fill_style_str(if self.bin_flash[i] > 0.0 { pal.flash } else { pal.zone });
            ctx.set_stroke_style_str(pal.zone_line);
            round_rect(ctx, x, y, w, h, 6.0);
            ctx.fill();
            ctx.stroke();
            let count = format::int(bin.count(&calm.counts));
            // label above count, or (a short stage) both on one line, the count at the right
            let label_y = if g.bin_inline { y + h / 2.0 + g.fonts.small * 0.36 } else { y + 4.0 + g.fonts.small };
            bin_icon(ctx, bin, colour, x + 11.0, label_y - g.fonts.small * 0.36, g.fonts.small * 0.45);
            ctx.set_font(&f.small);
            ctx.set_fill_style_str(pal.text);
            // the bins are laid out as wide as the widest label (`text_needs`)
            let _ = ctx.fill_text(&t_untracked(bin.label()), x + 21.0, label_y);
            ctx.set_font(&f.title);
            if g.bin_inline {
                ctx.set_text_align("right");
                let _ = ctx.fill_text(&count, x + w - 6.0, label_y);
                ctx.set_text_align("left");
            } else {
                let _ = ctx.fill_text(&count, x + 6.0, y + h - 6.0);
            }
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
            ctx.set_font(&f.tiny);
            let label = tr("stage.preempted", &[("n", format::int(preempted))]);
            let tw = width(ctx, &label);
            let mid = (x0 + x1) / 2.0;
            ctx.set_fill_style_str(pal.bg);
            ctx.fill_rect(mid - tw / 2.0 - 3.0, g.top - 9.5 - g.fonts.tiny, tw + 6.0, g.fonts.tiny + 3.0);
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
        let grid = !g.tiles.is_empty();
        for (band, order) in self.prefill_order.iter().enumerate() {
            // in the grid, only those still on their way to their replica's tile
            let shown = if grid { order.len() } else { PrefillRows::new(g, band, order.len()).shown };
            for (_, id) in order.iter().take(shown) {
                if let Some(s) = self.sprites.get(id) {
                    if !grid || moving(s, g.tile_mid(band)) {
                        push_glyph(&mut self.glyphs, s, &mut rings);
                    }
                }
            }
        }
        for (id, ..) in &self.on_link {
            if let Some(s) = self.sprites.get(id) {
                push_glyph(&mut self.glyphs, s, &mut rings);
            }
        }
        for order in &self.arrived_order {
            for (_, id) in order.iter().take(12) {
                if let Some(s) = self.sprites.get(id) {
                    push_glyph(&mut self.glyphs, s, &mut rings);
                }
            }
        }
        for s in self.sprites.values() {
            if s.phase != Phase::Decode {
                continue;
            }
            let drawn = if grid {
                moving(s, g.tile_mid(s.replica as usize))
            } else {
                s.cell.is_some_and(|c| (c as usize) < g.cells)
            };
            if drawn {
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
            ctx.set_fill_style_str(if gh.bin == Bin::Completed {
                glyph::colour(gh.class as usize)
            } else {
                pal.bins[gh.bin.index()]
            });
            ctx.fill();
        }
        ctx.set_global_alpha(1.0);

        // Server down after an OOM.
        if let Some(until) = calm.restarting_until_s {
            let now = sim.now() as f64 / 1e6;
            if until > now {
                ctx.set_fill_style_str("rgba(185, 28, 28, 0.14)");
                ctx.fill_rect(g.p0 - 6.0, g.top - 5.0, g.d1 - g.p0 + 12.0, g.bottom - g.top + 10.0);
                ctx.set_fill_style_str(pal.bins[Bin::OomLost.index()]);
                ctx.set_font(&f.title);
                ctx.set_text_align("center");
                let _ = ctx.fill_text(
                    &tr("stage.oom", &[("t", format::sim_time(until))]),
                    (g.p0 + g.d1) / 2.0,
                    (g.top + g.bottom) / 2.0,
                );
                ctx.set_text_align("left");
            }
        }

        // Footer: clock and the last iteration, wrapped beside the clock; the static-batching
        // note on the lines below.
        let now = sim.now() as f64 / 1e6;
        ctx.set_font(&f.title);
        ctx.set_fill_style_str(pal.text);
        let clock = format!("t = {}", format::sim_time(now));
        let _ = ctx.fill_text(&clock, 6.0, g.foot_line_y(0));
        let x0 = 6.0 + (width(ctx, "t = 000.00 s")).max(width(ctx, &clock)) + 10.0;
        let step = &calm.last_step;
        ctx.set_font(&f.small);
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
        let mut lines: Vec<(f64, String)> =
            wrap(&text, g.w - x0 - 6.0, |s| width(ctx, s)).into_iter().map(|l| (x0, l)).collect();
        if self.cfg.static_batching {
            let note = t_untracked("stage.static_note");
            lines.extend(wrap(&note, g.w - 12.0, |s| width(ctx, s)).into_iter().map(|l| (6.0, l)));
        }
        for (i, (x, line)) in lines.iter().take(g.foot_rows).enumerate() {
            let _ = ctx.fill_text(line, *x, g.foot_line_y(i));
        }
    }
}

/// Still on its way to `to` (more than 2 px off).
fn moving(s: &Sprite, to: (f64, f64)) -> bool {
    (s.x - to.0).abs() + (s.y - to.1).abs() > 2.0
}

fn push_glyph(glyphs: &mut [Vec<(f64, f64, f64)>], s: &Sprite, rings: &mut Vec<(f64, f64, f64)>) {
    let c = (s.class as usize).min(glyphs.len() - 1);
    glyphs[c].push((s.x, s.y, s.r));
    if s.flash > 0.0 {
        rings.push((s.x, s.y, s.r));
    }
}

/// The stage's fonts for its layout and the profile's title weight.
pub(super) struct FontSet {
    pub title: String,
    pub small: String,
    pub tiny: String,
}

const FAMILY: &str = "system-ui, -apple-system, 'Segoe UI', sans-serif";

fn fonts(g: &Geo) -> FontSet {
    let px = |v: f64| format!("{v:.1}px {FAMILY}");
    FontSet {
        title: format!("{} {}", palette().title_weight, px(g.fonts.title)),
        small: px(g.fonts.small),
        tiny: px(g.fonts.tiny),
    }
}

/// What the text of a `w` wide stage needs in the page's language and profile: the scale, and
/// the widest outcome label, which sets the bins' width.
pub(super) fn text_needs(ctx: &CanvasRenderingContext2d, w: f64) -> TextNeeds {
    let scale = palette().text_scale;
    let small = Fonts::new(scale, w < COMPACT_BELOW).small;
    ctx.set_font(&format!("{small:.1}px {FAMILY}"));
    let bin_label_w = Bin::ALL.iter().map(|b| width(ctx, &t_untracked(b.label()))).fold(0.0, f64::max).ceil();
    ctx.set_font(&format!("{:.1}px {FAMILY}", Fonts::new(scale, w < COMPACT_BELOW).tiny));
    let tag_w = width(ctx, &tr("stage.replica_tag", &[("n", "88".to_string())])).ceil();
    TextNeeds { scale, bin_label_w, tag_w }
}

pub(super) fn width(ctx: &CanvasRenderingContext2d, s: &str) -> f64 {
    ctx.measure_text(s).map(|m| m.width()).unwrap_or(0.0)
}

/// The arrivals' door: an arrow drawn as a shape.
fn arrow_right(ctx: &CanvasRenderingContext2d, x: f64, y: f64) {
    ctx.begin_path();
    ctx.move_to(x - 4.0, y - 1.0);
    ctx.line_to(x, y - 1.0);
    ctx.line_to(x, y - 4.0);
    ctx.line_to(x + 4.5, y);
    ctx.line_to(x, y + 4.0);
    ctx.line_to(x, y + 1.0);
    ctx.line_to(x - 4.0, y + 1.0);
    ctx.close_path();
    ctx.fill();
}

/// A bin's mark as a shape (no font needed): a tick, a cross, a clock, an exclamation mark.
fn bin_icon(ctx: &CanvasRenderingContext2d, bin: Bin, colour: &str, cx: f64, cy: f64, r: f64) {
    ctx.set_stroke_style_str(colour);
    ctx.set_fill_style_str(colour);
    ctx.set_line_width(1.8);
    ctx.begin_path();
    match bin {
        Bin::Completed => {
            ctx.move_to(cx - r, cy);
            ctx.line_to(cx - r * 0.3, cy + r * 0.8);
            ctx.line_to(cx + r, cy - r * 0.8);
        }
        Bin::Rejected => {
            ctx.move_to(cx - r * 0.8, cy - r * 0.8);
            ctx.line_to(cx + r * 0.8, cy + r * 0.8);
            ctx.move_to(cx + r * 0.8, cy - r * 0.8);
            ctx.line_to(cx - r * 0.8, cy + r * 0.8);
        }
        Bin::TimedOut => {
            let _ = ctx.arc(cx, cy, r, 0.0, TAU);
            ctx.move_to(cx, cy - r * 0.6);
            ctx.line_to(cx, cy);
            ctx.line_to(cx + r * 0.5, cy);
        }
        Bin::OomLost => {
            ctx.move_to(cx, cy - r);
            ctx.line_to(cx, cy + r * 0.35);
            ctx.stroke();
            ctx.begin_path();
            let _ = ctx.arc(cx, cy + r * 0.85, 1.2, 0.0, TAU);
            ctx.fill();
            ctx.set_line_width(1.0);
            return;
        }
    }
    ctx.stroke();
    ctx.set_line_width(1.0);
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
