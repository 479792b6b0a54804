//! The one chart painter: paints an `app_model::charts::figure::Figure` — its axes with their
//! ticks, then its marks in order (lines, dots, reference lines, legend, note) — where
//! `app_model::charts` places them, each ink in the profile's colour.

use app_model::charts::figure::{Dash, Figure, Ink, Item};
use app_model::charts::PlotBox;
use web_sys::CanvasRenderingContext2d;

use crate::glyph;
use crate::palette::{dash, Palette};
use crate::{canvas_by_id, fit_canvas};

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

/// The colour of `ink` in the palette `pal`.
fn colour(pal: &Palette, ink: Ink) -> &'static str {
    match ink {
        Ink::Class(c) => glyph::colour(c),
        Ink::Run => pal.run_line,
        Ink::Reference => pal.ref_line,
        Ink::Throughput => pal.throughput_line,
        Ink::Goodput => "#15803d",
        Ink::Queue => "#0f766e",
        Ink::Batch => "#1d4ed8",
        Ink::Kv => "#7c3aed",
        Ink::SweepThroughput => "#94a3b8",
        Ink::SweepTtft => "#0072b2",
        Ink::Knee => "#b45309",
        Ink::Slo => "#b91c1c",
    }
}

fn pattern(dash: Dash) -> &'static [f64] {
    match dash {
        Dash::Solid => &[],
        Dash::RunB => &[6.0, 4.0],
        Dash::Dots => &[2.0, 3.0],
    }
}

/// Paints `fig` on the canvas `id`, sized to its CSS width (at least `min_w`) × `h`.
pub fn paint(id: &str, fig: &Figure, pal: &'static Palette, min_w: f64, h: f64) {
    let Some((ctx, w, h)) = canvas_by_id(id).and_then(|c| fit_canvas(&c, min_w, h)) else { return };
    let mut plot = Plot::new(&ctx, pal, w, h, fig);
    for item in &fig.items {
        match item {
            Item::Line { points, ink, dash, width } => plot.line(points, colour(pal, *ink), pattern(*dash), *width),
            Item::Dot { at, ink, radius } => plot.dot(at.0, at.1, colour(pal, *ink), *radius),
            Item::VLine { x, ink, label } => plot.vline(*x, colour(pal, *ink), label),
            Item::HLine { y, ink, label } => plot.hline(*y, colour(pal, *ink), label),
            Item::Legend { label, ink, dash, glyph } => {
                plot.legend_entry(label, colour(pal, *ink), pattern(*dash), *glyph)
            }
            Item::LegendAtBottom => plot.legend_bottom = true,
            Item::Note(text) => plot.note(text),
        }
    }
}

/// A plot area with its axes drawn, in a profile's palette.
struct Plot<'a> {
    ctx: &'a CanvasRenderingContext2d,
    pal: &'static Palette,
    frame: PlotBox,
    legend_y: f64,
    /// Stack legend entries upwards from the bottom right (where a CDF leaves room).
    legend_bottom: bool,
}

impl<'a> Plot<'a> {
    fn new(ctx: &'a CanvasRenderingContext2d, pal: &'static Palette, w: f64, h: f64, fig: &Figure) -> Plot<'a> {
        let (title, xa, xu, ya, yu) = (&fig.title, fig.x, fig.x_units, fig.y, fig.y_units);
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
    fn line(&self, pts: &[(f64, f64)], colour: &str, pattern: &[f64], width: f64) {
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
    fn vline(&self, x: f64, colour: &str, text: &str) {
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
    fn hline(&self, y: f64, colour: &str, text: &str) {
        let f = &self.frame;
        let py = f.py(y).round() + 0.5;
        self.reference((f.x0, py), (f.x1, py), colour);
        label(self.ctx, self.pal.font_small, text, f.x0 + 4.0, py - 3.0, self.pal.text, "left");
    }

    /// One legend entry, stacked at the top right (or up from the bottom right); a traffic
    /// class's line carries its glyph (shape and name, not colour alone).
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

    /// A note in the middle of an empty plot.
    fn note(&self, text: &str) {
        let f = &self.frame;
        label(self.ctx, self.pal.font_small, text, (f.x0 + f.x1) / 2.0, (f.y0 + f.y1) / 2.0, self.pal.muted, "center");
    }

    /// A filled dot at (x, y) in data coordinates, ringed with the background colour (a sweep's
    /// measured points).
    fn dot(&self, x: f64, y: f64, colour: &str, r: f64) {
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
