//! The prefill and decode stations, drawn per replica: a band each (its tag, its prompts' bars,
//! its batch slots), or beyond eight replicas a tile each with its batch and KV fill; the KV
//! links between the pools; the last step's draft tokens.

use app_model::stage_layout::{Geo, PrefillRows};
use sim_core::{LiveRequest, Phase};
use web_sys::CanvasRenderingContext2d;

use super::{hatch, round_rect, width, FontSet, CACHED, CACHED_EDGE};
use crate::format;
use crate::glyph;
use crate::i18n::t_untracked;
use crate::stage::{tr, IdMap, StageCalm, StageState};
use crate::theme::{dash, palette};

/// The KV links' colour (a transfer under way) and the accepted draft tokens'.
const LINK: &str = "#7c3aed";

impl StageState {
    /// A replica's tag at the top left of its band (highlighted while a request arrives there).
    fn tag(&self, ctx: &CanvasRenderingContext2d, g: &Geo, f: &FontSet, x: f64, y0: f64, replica: usize) {
        let pal = palette();
        let text = tr("stage.replica_tag", &[("n", replica.to_string())]);
        ctx.set_font(&f.tiny);
        let hot = self.replicas.get(replica).is_some_and(|t| t.flash > 0.0);
        if hot {
            ctx.set_fill_style_str(pal.flash);
            round_rect(ctx, x + 1.0, y0 + 1.0, g.tag_w - 2.0, g.fonts.tiny + 4.0, 3.0);
            ctx.fill();
        }
        ctx.set_fill_style_str(if hot { pal.text } else { pal.muted });
        let _ = ctx.fill_text(&text, x + 3.0, y0 + 2.0 + g.fonts.tiny);
    }

    /// Prefill: each replica's band with the chunk progress of its prompts.
    pub(super) fn draw_prefill(&self, ctx: &CanvasRenderingContext2d, g: &Geo, live: &[LiveRequest], f: &FontSet) {
        let pal = palette();
        let by_id: IdMap<&LiveRequest> = live.iter().filter(|r| r.phase == Phase::Prefill).map(|r| (r.id, r)).collect();
        let bands: Vec<(f64, f64, Option<usize>)> = if g.prefill_bands.is_empty() {
            vec![(g.top, g.bottom, None)]
        } else {
            g.prefill_bands.iter().map(|b| (b.y0, b.y1, Some(b.replica).filter(|_| g.prefill_tag_w > 0.0))).collect()
        };
        for (band, (y0, y1, replica)) in bands.into_iter().enumerate() {
            ctx.set_fill_style_str(pal.zone);
            ctx.set_stroke_style_str(pal.zone_line);
            round_rect(ctx, g.p0, y0, g.p1 - g.p0, y1 - y0, 6.0);
            ctx.fill();
            ctx.stroke();
            if let Some(r) = replica {
                self.tag(ctx, g, f, g.p0, y0, r);
            }
            let order = self.prefill_order.get(band).map_or(&[][..], Vec::as_slice);
            let rows = PrefillRows::new(g, band, order.len());
            for (i, (_, id)) in order.iter().enumerate().take(rows.shown) {
                let Some(r) = by_id.get(id) else { continue };
                let (x, y, w, h) = rows.bar(g, i);
                let c = r.class as usize;
                ctx.set_fill_style_str(glyph::tint(c));
                ctx.fill_rect(x, y, w, h);
                let share =
                    if r.prefill_target > 0 { f64::from(r.prefilled) / f64::from(r.prefill_target) } else { 0.0 };
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
                    let n = format!(
                        "{} / {}",
                        format::int(u64::from(r.prefilled)),
                        format::int(u64::from(r.prefill_target))
                    );
                    let with_unit = format!("{n} tok");
                    let text = [with_unit, n].into_iter().find(|t| width(ctx, t) <= w - 5.0);
                    if let Some(text) = text {
                        let _ = ctx.fill_text(&text, x + 3.0, y + h - 2.5);
                    }
                }
            }
            if order.len() > rows.shown {
                ctx.set_font(&f.tiny);
                ctx.set_fill_style_str(pal.text);
                let _ = ctx.fill_text(
                    &tr("stage.more", &[("n", (order.len() - rows.shown).to_string())]),
                    rows.x0 + 6.0,
                    y1 - 4.0,
                );
            }
        }
    }

    /// Decode: each replica's band of batch slots, filling as tokens are generated.
    pub(super) fn draw_decode(&self, ctx: &CanvasRenderingContext2d, g: &Geo, live: &[LiveRequest], f: &FontSet) {
        let pal = palette();
        let bands = g.decode_bands.len().max(1);
        let mut cell_req: Vec<Vec<Option<&LiveRequest>>> = vec![vec![None; g.cells]; bands];
        let mut overflow = 0usize;
        for r in live.iter().filter(|r| r.phase == Phase::Decode) {
            let band = g.decode_band(r.replica as usize).unwrap_or(0).min(bands - 1);
            match self.sprites.get(&r.id).and_then(|s| s.cell) {
                Some(c) if (c as usize) < g.cells => cell_req[band][c as usize] = Some(r),
                _ => overflow += 1,
            }
        }
        ctx.set_line_width(1.0);
        for (band, cells) in cell_req.iter().enumerate() {
            if g.tag_w > 0.0 {
                if let Some(b) = g.decode_bands.get(band) {
                    ctx.set_fill_style_str(pal.zone);
                    round_rect(ctx, g.d0, b.y0, g.d1 - g.d0, b.y1 - b.y0, 4.0);
                    ctx.fill();
                    self.tag(ctx, g, f, g.d0, b.y0, b.replica);
                }
            }
            ctx.set_stroke_style_str(pal.cell_line);
            for (i, slot) in cells.iter().enumerate() {
                let (x, y, w, h) = g.cell_rect(band, i);
                let (x, y, w, h) = (x + 1.0, y + 1.0, (w - 2.0).max(1.0), (h - 2.0).max(1.0));
                let Some(r) = slot else {
                    if h >= 3.0 {
                        ctx.stroke_rect(x + 0.5, y + 0.5, w - 1.0, h - 1.0);
                    }
                    continue;
                };
                let c = r.class as usize;
                let done = r.generated >= r.output_tokens;
                ctx.set_fill_style_str(if done { pal.done_cell } else { glyph::tint(c) });
                ctx.fill_rect(x, y, w, h);
                let share = if r.output_tokens > 0 { f64::from(r.generated) / f64::from(r.output_tokens) } else { 0.0 };
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
                        format!("{} / {}", format::int(u64::from(r.generated)), format::int(u64::from(r.output_tokens)))
                    };
                    // only where it fits beside the glyph
                    if width(ctx, &text) <= w - 2.0 * g.cell_glyph(band, i).2 - 10.0 {
                        let _ = ctx.fill_text(&text, x + w - 3.0, y + h / 2.0 + g.fonts.tiny * 0.35);
                    }
                    ctx.set_text_align("left");
                }
                ctx.set_stroke_style_str(pal.cell_line);
            }
        }
        if overflow > 0 {
            ctx.set_font(&f.tiny);
            ctx.set_fill_style_str(pal.text);
            let _ =
                ctx.fill_text(&tr("stage.not_drawn", &[("n", format::int(overflow as u64))]), g.d0, g.bottom + 12.0);
        }
    }

    /// More than eight replicas: a tile each over both stations, with its batch and KV fill.
    pub(super) fn draw_tiles(&self, ctx: &CanvasRenderingContext2d, g: &Geo, calm: &StageCalm, f: &FontSet) {
        let pal = palette();
        let seqs = self.cfg.cluster.seqs_per_replica.max(1) as f64;
        for (i, &(x, y, w, h)) in g.tiles.iter().enumerate() {
            let t = self.replicas.get(i).copied().unwrap_or_default();
            ctx.set_fill_style_str(if t.flash > 0.0 { pal.flash } else { pal.zone });
            ctx.set_stroke_style_str(pal.zone_line);
            round_rect(ctx, x, y, w, h, 4.0);
            ctx.fill();
            ctx.stroke();
            ctx.set_font(&f.tiny);
            ctx.set_fill_style_str(pal.text);
            let tag = tr("stage.replica_tag", &[("n", i.to_string())]);
            let _ = ctx.fill_text(&tag, x + 3.0, y + 2.0 + g.fonts.tiny);
            let count = format!("{} / {}", format::int(u64::from(t.running)), format::int(seqs as u64));
            let tag_w = width(ctx, &tag);
            if tag_w + width(ctx, &count) + 12.0 <= w {
                ctx.set_fill_style_str(pal.muted);
                ctx.set_text_align("right");
                let _ = ctx.fill_text(&count, x + w - 3.0, y + 2.0 + g.fonts.tiny);
                ctx.set_text_align("left");
            }
            // two bars below the tag: the batch's slots taken, the KV pool's fill
            let top = y + 5.0 + g.fonts.tiny;
            let bar_h = ((y + h - top - 6.0) / 2.0).clamp(2.0, 8.0);
            let kv = calm.kv_fill.get(i).copied().unwrap_or(0.0);
            for (j, (share, colour)) in [(f64::from(t.running) / seqs, pal.text), (kv, CACHED_EDGE)].iter().enumerate()
            {
                let by = top + j as f64 * (bar_h + 2.0);
                if by + bar_h > y + h - 1.0 {
                    break;
                }
                ctx.set_fill_style_str(pal.bg);
                ctx.fill_rect(x + 3.0, by, w - 6.0, bar_h);
                ctx.set_fill_style_str(colour);
                ctx.fill_rect(x + 3.0, by, (w - 6.0) * share.clamp(0.0, 1.0), bar_h);
            }
        }
    }

    /// The KV links from the prefill pool's bands to the decode pool's: a line while a transfer
    /// is on it (fading after), and the label.
    pub(super) fn draw_links(&self, ctx: &CanvasRenderingContext2d, g: &Geo, f: &FontSet) {
        let pal = palette();
        let d = g.decode_bands.len().max(1);
        let _ = ctx.set_line_dash(&dash(&[3.0, 3.0]));
        for (i, flash) in self.link_flash.iter().enumerate() {
            let ((x0, y0), (x1, y1)) = g.link_ends(i / d, i % d);
            ctx.set_global_alpha(if *flash > 0.0 { 0.35 + 0.65 * (flash / 700.0).min(1.0) } else { 0.18 });
            ctx.set_stroke_style_str(if *flash > 0.0 { LINK } else { pal.muted });
            ctx.set_line_width(if *flash > 0.0 { 1.5 } else { 1.0 });
            ctx.begin_path();
            ctx.move_to(x0, y0);
            ctx.line_to(x1, y1);
            ctx.stroke();
        }
        ctx.set_global_alpha(1.0);
        ctx.set_line_width(1.0);
        let _ = ctx.set_line_dash(&dash(&[]));
        // the label at the top of the gap between the pools (shorter where it is narrow)
        ctx.set_font(&f.tiny);
        ctx.set_fill_style_str(LINK);
        ctx.set_text_align("center");
        let k = [("k", format::int(self.on_link.len() as u64))];
        let long = tr("stage.kv_link", &k);
        let gap = g.d0 - g.p1 - 4.0;
        let short = tr("stage.kv_link_short", &k);
        // the long label, the short one, or (a phone) the count alone, never into the bands' tags
        let label = if width(ctx, &long) <= gap {
            long
        } else if width(ctx, &short) <= gap {
            short
        } else {
            k[0].1.clone()
        };
        let _ = ctx.fill_text(&label, (g.p1 + g.d0) / 2.0, g.top + g.fonts.tiny);
        ctx.set_text_align("left");
    }
}

/// The last step's draft tokens above the decode station's right end: `k` marks, the accepted
/// ones filled, the rejected ones hollow, with their count when there is room.
pub(super) fn draw_drafts(ctx: &CanvasRenderingContext2d, g: &Geo, f: &FontSet, k: u32, accepted: u32) {
    let pal = palette();
    // the right of the decode station's top margin (the preemption arrow's label is further left)
    let room = (g.d1 - g.d0) * 0.62;
    ctx.set_font(&f.tiny);
    let label = tr("stage.drafts", &[("a", accepted.to_string()), ("k", k.to_string())]);
    let lw = width(ctx, &label);
    let marks = |room: f64| (room / f64::from(k) - 2.0).clamp(3.0, 7.0);
    let labelled = lw + 4.0 + f64::from(k) * (marks(room - lw - 4.0) + 2.0) <= room;
    let size = if labelled { marks(room - lw - 4.0) } else { marks(room) };
    let marks_w = f64::from(k) * (size + 2.0);
    // above the running batch's dashed bracket
    let y = g.top - 12.0 - size / 2.0;
    let mut x = g.d1 - marks_w;
    if labelled {
        ctx.set_fill_style_str(pal.text);
        ctx.set_text_align("right");
        let _ = ctx.fill_text(&label, x - 4.0, y + size / 2.0 + g.fonts.tiny * 0.35);
        ctx.set_text_align("left");
    }
    ctx.set_line_width(1.2);
    ctx.set_stroke_style_str(LINK);
    ctx.set_fill_style_str(LINK);
    for i in 0..k {
        if i < accepted {
            ctx.fill_rect(x, y, size, size);
        } else {
            ctx.stroke_rect(x + 0.6, y + 0.6, size - 1.2, size - 1.2);
        }
        x += size + 2.0;
    }
    ctx.set_line_width(1.0);
}
