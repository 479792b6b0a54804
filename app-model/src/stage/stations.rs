//! The prefill and decode stations' painters, per replica: a band each (its tag, its prompts'
//! bars, its batch slots), or beyond eight replicas a tile each with its batch and KV fill; the
//! KV links between the pools; the last step's draft tokens.

use sim_core::{LiveRequest, Phase};

use super::display::{Align, Font, Item, Role};
use super::paint::Painter;
use super::{IdMap, Stage, StageCalm};
use crate::format;
use crate::stage_layout::{Geo, PrefillRows};

/// "a / b" with the numbers formatted.
fn of(a: u64, b: u64) -> String {
    format!("{} / {}", format::int(a), format::int(b))
}

/// A replica's tag at the top left of its band (highlighted while a request arrives there).
fn tag(p: &mut Painter, st: &Stage, g: &Geo, x: f64, y0: f64, replica: usize) {
    let hot = st.replicas.get(replica).is_some_and(|t| t.flash > 0.0);
    if hot {
        let (w, h) = (g.tag_w - 2.0, g.fonts.tiny + 4.0);
        p.push(Item::RoundRect {
            x: x + 1.0,
            y: y0 + 1.0,
            w,
            h,
            r: 3.0,
            fill: Some(Role::Flash),
            stroke: None,
            dash: None,
        });
    }
    let fill = if hot { Role::Text } else { Role::Muted };
    let text = p.tr("stage.replica_tag", &[("n", replica.to_string())]);
    p.text(x + 3.0, y0 + 2.0 + g.fonts.tiny, Font::Tiny, fill, Align::Left, &text);
}

/// Prefill: each replica's band with the chunk progress of its prompts (the part found in the
/// prefix cache marked), and how many more there are than rows.
pub(super) fn prefill(p: &mut Painter, st: &Stage, g: &Geo, live: &[LiveRequest]) {
    let by_id: IdMap<&LiveRequest> = live.iter().filter(|r| r.phase == Phase::Prefill).map(|r| (r.id, r)).collect();
    let bands: Vec<(f64, f64, Option<usize>)> = if g.prefill_bands.is_empty() {
        vec![(g.top, g.bottom, None)]
    } else {
        g.prefill_bands.iter().map(|b| (b.y0, b.y1, Some(b.replica).filter(|_| g.prefill_tag_w > 0.0))).collect()
    };
    for (band, (y0, y1, replica)) in bands.into_iter().enumerate() {
        p.zone(g.p0, y0, g.p1 - g.p0, y1 - y0, 6.0, Role::Zone);
        if let Some(r) = replica {
            tag(p, st, g, g.p0, y0, r);
        }
        let order = st.prefill_order.get(band).map_or(&[][..], Vec::as_slice);
        let rows = PrefillRows::new(g, band, order.len());
        for (i, (_, id)) in order.iter().enumerate().take(rows.shown) {
            let Some(r) = by_id.get(id) else { continue };
            let (x, y, w, h) = rows.bar(g, i);
            p.rect(x, y, w, h, Role::Tint(r.class));
            let share = if r.prefill_target > 0 { f64::from(r.prefilled) / f64::from(r.prefill_target) } else { 0.0 };
            p.rect(x, y, w * share.clamp(0.0, 1.0), h, Role::Class(r.class));
            // prompt tokens found in the prefix cache (not computed): their part of the bar
            if r.cached_tokens > 0 && r.prefill_target > 0 {
                let cached = (f64::from(r.cached_tokens) / f64::from(r.prefill_target)).clamp(0.0, 1.0);
                p.rect(x, y, w * cached, h, Role::Cached);
                p.rect(x, y + h - 2.0, w * cached, 2.0, Role::CachedEdge);
            }
            if h >= g.fonts.tiny + 1.0 {
                // the count if it fits the bar (with its unit, else without), else nothing
                let mut text = of(r.prefilled.into(), r.prefill_target.into());
                text.push_str(" tok");
                if p.width(Font::Tiny, &text) > w - 5.0 {
                    text.truncate(text.len() - 4);
                }
                if p.width(Font::Tiny, &text) <= w - 5.0 {
                    p.text(x + 3.0, y + h - 2.5, Font::Tiny, Role::Text, Align::Left, &text);
                }
            }
        }
        if order.len() > rows.shown {
            let n = [("n", (order.len() - rows.shown).to_string())];
            p.say("stage.more", &n, (rows.x0 + 6.0, y1 - 4.0), Font::Tiny, Role::Text, Align::Left);
        }
    }
}

/// Decode: each replica's band of batch slots, filling as tokens are generated; a slot whose
/// sequence finished under static batching striped; the sequences beyond the slots drawn counted.
pub(super) fn decode(p: &mut Painter, st: &Stage, g: &Geo, live: &[LiveRequest]) {
    let bands = g.decode_bands.len().max(1);
    let mut cell_req: Vec<Vec<Option<&LiveRequest>>> = vec![vec![None; g.cells]; bands];
    let mut overflow = 0usize;
    for r in live.iter().filter(|r| r.phase == Phase::Decode) {
        let band = g.decode_band(r.replica as usize).unwrap_or(0).min(bands - 1);
        match st.sprites.get(&r.id).and_then(|s| s.cell) {
            Some(c) if (c as usize) < g.cells => cell_req[band][c as usize] = Some(r),
            _ => overflow += 1,
        }
    }
    let done_waits = p.tr("stage.done_waits", &[]);
    for (band, cells) in cell_req.iter().enumerate() {
        if g.tag_w > 0.0 {
            if let Some(b) = g.decode_bands.get(band) {
                let (y, h) = (b.y0, b.y1 - b.y0);
                let fill = Some(Role::Zone);
                p.push(Item::RoundRect { x: g.d0, y, w: g.d1 - g.d0, h, r: 4.0, fill, stroke: None, dash: None });
                tag(p, st, g, g.d0, b.y0, b.replica);
            }
        }
        for (i, slot) in cells.iter().enumerate() {
            let (x, y, w, h) = g.cell_rect(band, i);
            let (x, y, w, h) = (x + 1.0, y + 1.0, (w - 2.0).max(1.0), (h - 2.0).max(1.0));
            let Some(r) = slot else {
                if h >= 3.0 {
                    p.push(Item::Frame {
                        x: x + 0.5,
                        y: y + 0.5,
                        w: w - 1.0,
                        h: h - 1.0,
                        stroke: Role::CellLine,
                        width: 1.0,
                    });
                }
                continue;
            };
            let done = r.generated >= r.output_tokens;
            p.rect(x, y, w, h, if done { Role::DoneCell } else { Role::Tint(r.class) });
            if done {
                // static batching: finished, but its slot stays taken until the batch ends
                p.push(Item::Hatch { x, y, w, h });
            } else {
                let share = if r.output_tokens > 0 { f64::from(r.generated) / f64::from(r.output_tokens) } else { 0.0 };
                p.push(Item::Alpha(0.55));
                p.rect(x, y, w * share.clamp(0.0, 1.0), h, Role::Class(r.class));
                p.push(Item::Alpha(1.0));
            }
            if h >= g.fonts.tiny + 3.0 {
                // only where it fits beside the glyph
                let room = w - 2.0 * g.cell_glyph(band, i).2 - 10.0;
                let (tx, ty) = (x + w - 3.0, y + h / 2.0 + g.fonts.tiny * 0.35);
                if done {
                    if p.width(Font::Tiny, &done_waits) <= room {
                        p.text(tx, ty, Font::Tiny, Role::Text, Align::Right, &done_waits);
                    }
                } else {
                    let text = of(r.generated.into(), r.output_tokens.into());
                    if p.width(Font::Tiny, &text) <= room {
                        p.text(tx, ty, Font::Tiny, Role::Text, Align::Right, &text);
                    }
                }
            }
        }
    }
    if overflow > 0 {
        let n = [("n", format::int(overflow as u64))];
        p.say("stage.not_drawn", &n, (g.d0, g.bottom + 12.0), Font::Tiny, Role::Text, Align::Left);
    }
}

/// More than eight replicas: a tile each over both stations, with its batch and KV fill.
pub(super) fn tiles(p: &mut Painter, st: &Stage, g: &Geo, calm: &StageCalm) {
    let seqs = st.cfg.cluster.seqs_per_replica.max(1) as f64;
    for (i, &(x, y, w, h)) in g.tiles.iter().enumerate() {
        let t = st.replicas.get(i).copied().unwrap_or_default();
        p.zone(x, y, w, h, 4.0, if t.flash > 0.0 { Role::Flash } else { Role::Zone });
        let tag = p.tr("stage.replica_tag", &[("n", i.to_string())]);
        p.text(x + 3.0, y + 2.0 + g.fonts.tiny, Font::Tiny, Role::Text, Align::Left, &tag);
        let count = of(t.running.into(), seqs as u64);
        if p.width(Font::Tiny, &tag) + p.width(Font::Tiny, &count) + 12.0 <= w {
            p.text(x + w - 3.0, y + 2.0 + g.fonts.tiny, Font::Tiny, Role::Muted, Align::Right, &count);
        }
        // two bars below the tag: the batch's slots taken, the KV pool's fill
        let top = y + 5.0 + g.fonts.tiny;
        let bar_h = ((y + h - top - 6.0) / 2.0).clamp(2.0, 8.0);
        let kv = calm.kv_fill.get(i).copied().unwrap_or(0.0);
        for (j, (share, role)) in
            [(f64::from(t.running) / seqs, Role::Text), (kv, Role::CachedEdge)].into_iter().enumerate()
        {
            let by = top + j as f64 * (bar_h + 2.0);
            if by + bar_h > y + h - 1.0 {
                break;
            }
            p.rect(x + 3.0, by, w - 6.0, bar_h, Role::Bg);
            p.rect(x + 3.0, by, (w - 6.0) * share.clamp(0.0, 1.0), bar_h, role);
        }
    }
}

/// The KV links from the prefill pool's bands to the decode pool's: a line while a transfer is
/// on it (fading after), and the label with the count on the links.
pub(super) fn links(p: &mut Painter, st: &Stage, g: &Geo) {
    let d = g.decode_bands.len().max(1);
    for (i, &flash) in st.link_flash.iter().enumerate() {
        let ((x0, y0), (x1, y1)) = g.link_ends(i / d, i % d);
        let hot = flash > 0.0;
        p.push(Item::Alpha(if hot { 0.35 + 0.65 * (flash / 700.0).min(1.0) } else { 0.18 }));
        let (role, width) = if hot { (Role::Link, 1.5) } else { (Role::Muted, 1.0) };
        p.path(&[(x0, y0), (x1, y1)], role, width, Some([3.0, 3.0]));
    }
    p.push(Item::Alpha(1.0));
    // the label at the top of the gap between the pools (shorter where it is narrow): the long
    // label, the short one, or (a phone) the count alone, never into the bands' tags
    let k = [("k", format::int(st.on_link.len() as u64))];
    let gap = g.d0 - g.p1 - 4.0;
    let long = p.tr("stage.kv_link", &k);
    let short = p.tr("stage.kv_link_short", &k);
    let label = if p.width(Font::Tiny, &long) <= gap {
        &long
    } else if p.width(Font::Tiny, &short) <= gap {
        &short
    } else {
        &k[0].1
    };
    p.text((g.p1 + g.d0) / 2.0, g.top + g.fonts.tiny, Font::Tiny, Role::Link, Align::Center, label);
}

/// The last step's draft tokens above the decode station's right end: `k` marks, the accepted
/// ones filled, the rejected ones hollow, with their count when there is room.
pub(super) fn drafts(p: &mut Painter, g: &Geo, k: u32, accepted: u32) {
    // the right of the decode station's top margin (the preemption arrow's label is further left)
    let room = (g.d1 - g.d0) * 0.62;
    let label = p.tr("stage.drafts", &[("a", accepted.to_string()), ("k", k.to_string())]);
    let lw = p.width(Font::Tiny, &label);
    let marks = |room: f64| (room / f64::from(k) - 2.0).clamp(3.0, 7.0);
    let labelled = lw + 4.0 + f64::from(k) * (marks(room - lw - 4.0) + 2.0) <= room;
    let size = if labelled { marks(room - lw - 4.0) } else { marks(room) };
    // above the running batch's dashed bracket
    let y = g.top - 12.0 - size / 2.0;
    let mut x = g.d1 - f64::from(k) * (size + 2.0);
    if labelled {
        p.text(x - 4.0, y + size / 2.0 + g.fonts.tiny * 0.35, Font::Tiny, Role::Text, Align::Right, &label);
    }
    for i in 0..k {
        if i < accepted {
            p.rect(x, y, size, size, Role::Link);
        } else {
            p.push(Item::Frame {
                x: x + 0.6,
                y: y + 0.6,
                w: size - 1.2,
                h: size - 1.2,
                stroke: Role::Link,
                width: 1.2,
            });
        }
        x += size + 2.0;
    }
}
