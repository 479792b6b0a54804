//! Drawing one frame of the stage: stations, lanes, prefill bars, decode slots, outcome bins,
//! the preemption arrow, the glyphs and their flights, the footer. The places come from
//! `app_model::stage_layout`; the state from [`StageState`].

use std::f64::consts::TAU;

use app_model::stage_layout::{
    bezier, ease_out, place_rows, wrap, Bin, Fonts, Geo, LaneGrid, PrefillRows, TextNeeds, COMPACT_BELOW,
};
use sim_core::{LiveRequest, Phase, Simulation};
use web_sys::CanvasRenderingContext2d;

use super::{tr, IdMap, Sprite, StageCalm, StageState};
use crate::format;
use crate::glyph;
use crate::i18n::t_untracked;
use crate::theme::palette;

/// Prompt tokens found in the prefix cache, on a prefill bar: a translucent teal and its edge
/// (the HBM gauge's colour for cached prefixes).
const CACHED: &str = "rgba(13, 148, 136, 0.55)";
const CACHED_EDGE: &str = "#0f766e";

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

        let waiting: usize = self.lane_order.iter().map(Vec::len).sum();
        let prefilling = self.prefill_order.len();
        let decoding = live.len() - waiting - prefilling;
        let running = prefilling + decoding;

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

        // Prefill rows: chunk progress of each prompt.
        let rows = PrefillRows::new(g, prefilling);
        ctx.set_fill_style_str(pal.zone);
        ctx.set_stroke_style_str(pal.zone_line);
        round_rect(ctx, g.p0, g.top, g.p1 - g.p0, g.bottom - g.top, 6.0);
        ctx.fill();
        ctx.stroke();
        let by_id: IdMap<&LiveRequest> = live.iter().filter(|r| r.phase == Phase::Prefill).map(|r| (r.id, r)).collect();
        for (i, (_, id)) in self.prefill_order.iter().enumerate().take(rows.shown) {
            let Some(r) = by_id.get(id) else { continue };
            let (x, y, w, h) = rows.bar(g, i);
            let c = r.class as usize;
            ctx.set_fill_style_str(glyph::tint(c));
            ctx.fill_rect(x, y, w, h);
            let share = if r.prefill_target > 0 { f64::from(r.prefilled) / f64::from(r.prefill_target) } else { 0.0 };
            ctx.set_fill_style_str(glyph::colour(c));
            ctx.fill_rect(x, y, w * share.clamp(0.0, 1.0), h);
            // prompt tokens found in the prefix cache (not computed): their part of the bar
            if r.cached_tokens > 0 && r.prefill_target > 0 {
                let cached = (f64::from(r.cached_tokens) / f64::from(r.prefill_target)).clamp(0.0, 1.0);
                ctx.set_fill_style_str(CACHED);
                ctx.fill_rect(x, y, w * cached, h);
                ctx.set_fill_style_str(CACHED_EDGE);
                ctx.fill_rect(x, y + h - 2.0, w * cached, 2.0);
            }
            if h >= g.fonts.tiny + 1.0 {
                ctx.set_font(&f.tiny);
                ctx.set_fill_style_str(pal.text);
                // the count if it fits the bar (with its unit, else without), else nothing
                let n =
                    format!("{} / {}", format::int(u64::from(r.prefilled)), format::int(u64::from(r.prefill_target)));
                let with_unit = format!("{n} tok");
                let text = [with_unit, n].into_iter().find(|t| width(ctx, t) <= w - 5.0);
                if let Some(text) = text {
                    let _ = ctx.fill_text(&text, x + 3.0, y + h - 2.5);
                }
            }
        }
        if prefilling > rows.shown {
            ctx.set_font(&f.tiny);
            ctx.set_fill_style_str(pal.text);
            let _ = ctx.fill_text(
                &tr("stage.more", &[("n", (prefilling - rows.shown).to_string())]),
                g.p0 + 6.0,
                g.bottom - 4.0,
            );
        }

        // Decode slots: one cell per batch slot, filling as tokens are generated.
        let mut cell_req: Vec<Option<&LiveRequest>> = vec![None; g.cells];
        let mut overflow = 0usize;
        for r in live.iter().filter(|r| r.phase == Phase::Decode) {
            match self.sprites.get(&r.id).and_then(|s| s.cell) {
                Some(c) if (c as usize) < g.cells => cell_req[c as usize] = Some(r),
                _ => overflow += 1,
            }
        }
        ctx.set_stroke_style_str(pal.cell_line);
        ctx.set_line_width(1.0);
        for (i, slot) in cell_req.iter().enumerate() {
            let (x, y, w, h) = g.cell_rect(i);
            let (x, y, w, h) = (x + 1.0, y + 1.0, (w - 2.0).max(1.0), (h - 2.0).max(1.0));
            match slot {
                None => {
                    if h >= 3.0 {
                        ctx.stroke_rect(x + 0.5, y + 0.5, w - 1.0, h - 1.0);
                    }
                }
                Some(r) => {
                    let c = r.class as usize;
                    let done = r.generated >= r.output_tokens;
                    ctx.set_fill_style_str(if done { pal.done_cell } else { glyph::tint(c) });
                    ctx.fill_rect(x, y, w, h);
                    let share =
                        if r.output_tokens > 0 { f64::from(r.generated) / f64::from(r.output_tokens) } else { 0.0 };
                    if done {
                        // static batching: finished, but its slot stays taken until the batch ends
                        hatch(ctx, x, y, w, h);
                    } else {
                        ctx.set_fill_style_str(glyph::colour(c));
                        ctx.set_global_alpha(0.55);
                        ctx.fill_rect(x, y, w * share.clamp(0.0, 1.0), h);
                        ctx.set_global_alpha(1.0);
                    }
                    if h >= g.fonts.tiny + 3.0 {
                        ctx.set_font(&f.tiny);
                        ctx.set_fill_style_str(pal.text);
                        ctx.set_text_align("right");
                        let text = if done {
                            t_untracked("stage.done_waits")
                        } else {
                            format!(
                                "{} / {}",
                                format::int(u64::from(r.generated)),
                                format::int(u64::from(r.output_tokens))
                            )
                        };
                        // only where it fits beside the glyph
                        if width(ctx, &text) <= w - 2.0 * g.cell_glyph(i).2 - 10.0 {
                            let _ = ctx.fill_text(&text, x + w - 3.0, y + h / 2.0 + g.fonts.tiny * 0.35);
                        }
                        ctx.set_text_align("left");
                    }
                }
            }
        }
        if overflow > 0 {
            ctx.set_font(&f.tiny);
            ctx.set_fill_style_str(pal.text);
            let _ =
                ctx.fill_text(&tr("stage.not_drawn", &[("n", format::int(overflow as u64))]), g.d0, g.bottom + 12.0);
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
        for (i, (_, id)) in self.prefill_order.iter().enumerate() {
            if i >= rows.shown {
                break;
            }
            if let Some(s) = self.sprites.get(id) {
                push_glyph(&mut self.glyphs, s, &mut rings);
            }
        }
        for s in self.sprites.values() {
            if s.phase == Phase::Decode && s.cell.is_some_and(|c| (c as usize) < g.cells) {
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

fn push_glyph(glyphs: &mut [Vec<(f64, f64, f64)>], s: &Sprite, rings: &mut Vec<(f64, f64, f64)>) {
    let c = (s.class as usize).min(glyphs.len() - 1);
    glyphs[c].push((s.x, s.y, s.r));
    if s.flash > 0.0 {
        rings.push((s.x, s.y, s.r));
    }
}

/// The stage's fonts for its layout and the profile's title weight.
struct FontSet {
    title: String,
    small: String,
    tiny: String,
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
    TextNeeds { scale, bin_label_w }
}

fn width(ctx: &CanvasRenderingContext2d, s: &str) -> f64 {
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

/// A line-dash pattern for `set_line_dash`.
pub fn dash(pattern: &[f64]) -> wasm_bindgen::JsValue {
    let arr = js_sys::Array::new();
    for p in pattern {
        arr.push(&wasm_bindgen::JsValue::from_f64(*p));
    }
    arr.into()
}
