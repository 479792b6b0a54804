//! A small canvas chart helper: paints axes with their ticks, lines, reference lines and a
//! legend where `app_model::charts` places them.

use app_model::charts::{Axis, PlotBox, Units};
use web_sys::CanvasRenderingContext2d;

use crate::theme::{dash, Palette};
use lab_canvas::glyph;

pub use lab_canvas::{canvas_by_id, fit_canvas};

/// Strokes a polyline through canvas points with the current style.
fn stroke(ctx: &CanvasRenderingContext2d, pts: impl IntoIterator<Item = (f64, f64)>) {
    ctx.begin_path();
    for (i, (x, y)) in pts.into_iter().enumerate() {
        if i == 0 {
            ctx.move_to(x, y);
        } else {
            ctx.line_to(x, y);
        }
    }
    ctx.stroke();
}

/// Writes `text` at (x, y) in the small font `font`, `colour`, aligned `align` (then left again).
#[allow(clippy::too_many_arguments)]
fn label(ctx: &CanvasRenderingContext2d, font: &str, text: &str, x: f64, y: f64, colour: &str, align: &str) {
    ctx.set_font(font);
    ctx.set_fill_style_str(colour);
    ctx.set_text_align(align);
    let _ = ctx.fill_text(text, x, y);
    ctx.set_text_align("left");
}

/// A plot area with its axes drawn, in a profile's palette.
pub struct Plot<'a> {
    ctx: &'a CanvasRenderingContext2d,
    pal: &'static Palette,
    frame: PlotBox,
    legend_y: f64,
    /// Stack legend entries upwards from the bottom right (where a CDF leaves room).
    legend_bottom: bool,
}

impl<'a> Plot<'a> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        ctx: &'a CanvasRenderingContext2d,
        pal: &'static Palette,
        w: f64,
        h: f64,
        title: &str,
        xa: Axis,
        xu: Units,
        ya: Axis,
        yu: Units,
    ) -> Plot<'a> {
        let k = pal.chart_scale;
        ctx.set_fill_style_str(pal.bg);
        ctx.fill_rect(0.0, 0.0, w, h);
        ctx.set_font(pal.font_title);
        ctx.set_fill_style_str(pal.text);
        ctx.set_text_align("left");
        ctx.set_text_baseline("alphabetic");
        let _ = ctx.fill_text(title, 8.0, 15.0 * k);
        let frame = PlotBox::new(w, h, k, xa, ya);
        let PlotBox { x0, y0, x1, y1, .. } = frame;
        ctx.set_line_width(1.0);
        // grid and tick labels
        ctx.set_stroke_style_str(pal.grid);
        for t in ya.ticks() {
            let y = frame.py(t);
            stroke(ctx, [(x0, y.round() + 0.5), (x1, y.round() + 0.5)]);
            label(ctx, pal.font_small, &yu.label(t), x0 - 5.0, y + 3.5, pal.muted, "right");
        }
        for t in xa.ticks() {
            let x = frame.px(t);
            stroke(ctx, [(x.round() + 0.5, y0), (x.round() + 0.5, y1)]);
            label(ctx, pal.font_small, &xu.label(t), x, y1 + 14.0 * k, pal.muted, "center");
        }
        ctx.set_stroke_style_str(pal.axis);
        stroke(ctx, [(x0 + 0.5, y0), (x0 + 0.5, y1 + 0.5), (x1, y1 + 0.5)]);
        Plot { ctx, pal, frame, legend_y: 24.0 * k, legend_bottom: false }
    }

    /// A polyline through `pts` (data coordinates).
    pub fn line(&self, pts: &[(f64, f64)], colour: &str, pattern: &[f64], width: f64) {
        if pts.is_empty() {
            return;
        }
        let (ctx, f) = (self.ctx, &self.frame);
        ctx.save();
        ctx.begin_path();
        ctx.rect(f.x0, f.y0 - 2.0, f.x1 - f.x0 + 2.0, f.y1 - f.y0 + 4.0);
        ctx.clip();
        ctx.set_stroke_style_str(colour);
        ctx.set_line_width(width);
        ctx.set_line_join("round");
        let _ = ctx.set_line_dash(&dash(pattern));
        stroke(ctx, pts.iter().map(|&(x, y)| (f.px(x), f.py(y))));
        ctx.restore();
    }

    /// A dotted reference line between two canvas points.
    fn reference(&self, from: (f64, f64), to: (f64, f64), colour: &str) {
        self.ctx.set_stroke_style_str(colour);
        let _ = self.ctx.set_line_dash(&dash(&[2.0, 3.0]));
        stroke(self.ctx, [from, to]);
        let _ = self.ctx.set_line_dash(&dash(&[]));
    }

    /// A vertical reference line at x with a label near its foot (the label in the text colour:
    /// line colours are too light for small text).
    pub fn vline(&self, x: f64, colour: &str, text: &str) {
        let f = &self.frame;
        let px = f.px(x).round() + 0.5;
        self.ctx.set_line_width(1.5);
        self.reference((px, f.y0), (px, f.y1), colour);
        self.ctx.set_line_width(1.0);
        let right = px > (f.x0 + f.x1) / 2.0;
        let (x, align) = if right { (px - 3.0, "right") } else { (px + 3.0, "left") };
        label(self.ctx, self.pal.font_small, text, x, f.y1 - 6.0, self.pal.text, align);
    }

    /// A horizontal reference line at y with a label.
    pub fn hline(&self, y: f64, colour: &str, text: &str) {
        let f = &self.frame;
        let py = f.py(y).round() + 0.5;
        self.reference((f.x0, py), (f.x1, py), colour);
        label(self.ctx, self.pal.font_small, text, f.x0 + 4.0, py - 3.0, self.pal.text, "left");
    }

    /// One legend entry, stacked at the top right.
    pub fn legend(&mut self, label: &str, colour: &str, pattern: &[f64]) {
        self.legend_entry(label, colour, pattern, None);
    }

    /// A legend entry for a traffic class: its line with its glyph on it (shape and name, not
    /// colour alone).
    pub fn legend_class(&mut self, label: &str, class: usize) {
        self.legend_entry(label, glyph::colour(class), &[], Some(class));
    }

    fn legend_entry(&mut self, text: &str, colour: &str, pattern: &[f64], class: Option<usize>) {
        let (ctx, pal) = (self.ctx, self.pal);
        ctx.set_font(pal.font_small);
        let tw = ctx.measure_text(text).map(|m| m.width()).unwrap_or(60.0);
        let x = self.frame.x1 - tw - 30.0;
        // one row of the legend, and how far the text sits below its top
        let (row, k) = (14.0 * pal.chart_scale, pal.chart_scale);
        if self.legend_bottom && self.legend_y == self.frame.y0 {
            self.legend_y = self.frame.y1 - 22.0 * k;
        }
        let y = self.legend_y + 8.0 * k;
        ctx.set_fill_style_str(pal.legend_bg);
        ctx.fill_rect(x - 4.0, y - 9.0 * k, tw + 34.0, row);
        ctx.set_stroke_style_str(colour);
        ctx.set_line_width(2.0);
        let _ = ctx.set_line_dash(&dash(pattern));
        stroke(ctx, [(x, y - 3.0 * k), (x + 22.0, y - 3.0 * k)]);
        let _ = ctx.set_line_dash(&dash(&[]));
        ctx.set_line_width(1.0);
        if let Some(c) = class {
            ctx.begin_path();
            glyph::add_path(ctx, glyph::shape(c), x + 11.0, y - 3.0 * k, 4.5 * k);
            ctx.set_fill_style_str(colour);
            ctx.fill();
            ctx.set_stroke_style_str(pal.bg);
            ctx.stroke();
        }
        label(ctx, pal.font_small, text, x + 26.0, y + k, pal.text, "left");
        self.legend_y += if self.legend_bottom { -row } else { row };
    }

    /// Legend entries go to the bottom right.
    pub fn legend_at_bottom(&mut self) {
        self.legend_bottom = true;
    }

    /// A note in the middle of an empty plot.
    pub fn note(&self, text: &str) {
        let f = &self.frame;
        label(self.ctx, self.pal.font_small, text, (f.x0 + f.x1) / 2.0, (f.y0 + f.y1) / 2.0, self.pal.muted, "center");
    }

    /// A filled dot at (x, y) in data coordinates, ringed with the background colour (a sweep's
    /// measured points).
    pub fn dot(&self, x: f64, y: f64, colour: &str, r: f64) {
        let ctx = self.ctx;
        ctx.begin_path();
        let _ = ctx.arc(self.frame.px(x), self.frame.py(y), r, 0.0, std::f64::consts::TAU);
        ctx.set_fill_style_str(colour);
        ctx.fill();
        ctx.set_stroke_style_str(self.pal.bg);
        ctx.set_line_width(1.0);
        ctx.stroke();
    }
}
