//! Replaying a stage frame's display list on the canvas: one match over its items, the roles'
//! colours from the page's profile ([`crate::Look::colour`]).

use std::f64::consts::TAU;

use app_model::stage::{Align, Dash, DisplayList, Font, Item};
use web_sys::CanvasRenderingContext2d;

use crate::glyph;
use crate::palette::{dash, font};
use crate::Look;

/// Paints `list` on `ctx` in the profile of `look`.
pub fn replay(ctx: &CanvasRenderingContext2d, list: &DisplayList, look: Look) {
    let fonts = [
        font(Font::Title, list.fonts.title, look.palette()),
        font(Font::Small, list.fonts.small, look.palette()),
        font(Font::Tiny, list.fonts.tiny, look.palette()),
    ];
    let colour = |role| look.colour(role);
    let pal = look.palette();
    let (mut current, mut align) = (None, Align::Left);
    ctx.set_text_baseline("alphabetic");
    ctx.set_text_align("left");
    ctx.set_line_width(1.0);
    let _ = ctx.set_line_dash(&dash(&[]));
    let mut pen = Pen { ctx, width: 1.0, dash: None };
    for item in &list.items {
        match *item {
            Item::Alpha(a) => ctx.set_global_alpha(a),
            Item::Rect { x, y, w, h, fill } => {
                ctx.set_fill_style_str(colour(fill));
                ctx.fill_rect(x, y, w, h);
            }
            Item::Frame { x, y, w, h, stroke, width } => {
                pen.set(width, None);
                ctx.set_stroke_style_str(colour(stroke));
                ctx.stroke_rect(x, y, w, h);
            }
            Item::RoundRect { x, y, w, h, r, fill, stroke, dash } => {
                round_rect(ctx, x, y, w, h, r);
                if let Some(fill) = fill {
                    ctx.set_fill_style_str(colour(fill));
                    ctx.fill();
                }
                if let Some(stroke) = stroke {
                    pen.set(1.0, dash);
                    ctx.set_stroke_style_str(colour(stroke));
                    ctx.stroke();
                }
            }
            Item::Hatch { x, y, w, h } => hatch(ctx, x, y, w, h, pal.hatch),
            Item::Glyphs { class, fill, outline, .. } => {
                let shape = glyph::shape(class as usize);
                ctx.begin_path();
                for &(x, y, r) in list.points_of(item) {
                    glyph::add_path(ctx, shape, x, y, r);
                }
                ctx.set_fill_style_str(colour(fill));
                ctx.fill();
                if outline {
                    pen.set(1.0, None);
                    ctx.set_stroke_style_str(pal.bg);
                    ctx.stroke();
                }
            }
            Item::Circles { role, width, .. } => {
                ctx.begin_path();
                for &(x, y, r) in list.points_of(item) {
                    ctx.move_to(x + r, y);
                    let _ = ctx.arc(x, y, r, 0.0, TAU);
                }
                stroke_or_fill(ctx, colour(role), width, None, &mut pen);
            }
            Item::Path { role, width, dash, .. } => {
                ctx.begin_path();
                for (i, &(x, y, _)) in list.points_of(item).iter().enumerate() {
                    if i == 0 {
                        ctx.move_to(x, y);
                    } else {
                        ctx.line_to(x, y);
                    }
                }
                if width == 0.0 {
                    ctx.close_path();
                }
                stroke_or_fill(ctx, colour(role), width, dash, &mut pen);
            }
            Item::Curve { from, ctrl, to, stroke, width, dash } => {
                ctx.begin_path();
                ctx.move_to(from.0, from.1);
                ctx.quadratic_curve_to(ctrl.0, ctrl.1, to.0, to.1);
                pen.set(width, dash);
                ctx.set_stroke_style_str(colour(stroke));
                ctx.stroke();
            }
            Item::Text { x, y, font: f, fill, align: a, .. } => {
                if current != Some(f) {
                    ctx.set_font(&fonts[f as usize]);
                    current = Some(f);
                }
                if a != align {
                    ctx.set_text_align(["left", "center", "right"][a as usize]);
                    align = a;
                }
                ctx.set_fill_style_str(colour(fill));
                let _ = ctx.fill_text(list.text_of(item), x, y);
            }
        }
    }
    ctx.set_global_alpha(1.0);
    ctx.set_text_align("left");
    pen.set(1.0, None);
}

/// The canvas's line width and dash, set only when they change.
struct Pen<'a> {
    ctx: &'a CanvasRenderingContext2d,
    width: f64,
    dash: Dash,
}

impl Pen<'_> {
    fn set(&mut self, width: f64, dash: Dash) {
        if width != self.width {
            self.ctx.set_line_width(width);
            self.width = width;
        }
        if dash != self.dash {
            let _ = self.ctx.set_line_dash(&crate::palette::dash(dash.as_ref().map_or(&[], |d| &d[..])));
            self.dash = dash;
        }
    }
}

/// Strokes the current path `width` thick, or fills it when `width` is 0.
fn stroke_or_fill(ctx: &CanvasRenderingContext2d, c: &str, width: f64, dash: Dash, pen: &mut Pen) {
    if width == 0.0 {
        ctx.set_fill_style_str(c);
        ctx.fill();
    } else {
        pen.set(width, dash);
        ctx.set_stroke_style_str(c);
        ctx.stroke();
    }
}

/// Diagonal stripes in `colour`: a slot that holds a finished request (not colour alone).
fn hatch(ctx: &CanvasRenderingContext2d, x: f64, y: f64, w: f64, h: f64, colour: &str) {
    ctx.save();
    ctx.begin_path();
    ctx.rect(x, y, w, h);
    ctx.clip();
    ctx.set_stroke_style_str(colour);
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

fn round_rect(ctx: &CanvasRenderingContext2d, x: f64, y: f64, w: f64, h: f64, r: f64) {
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
