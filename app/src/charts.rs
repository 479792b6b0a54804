//! A small canvas chart helper (axes, ticks, lines, reference lines, legend) and the lab's
//! charts built on it. Charts only draw what sim-core computed: `ttft_cdf`, `tpot_cdf`, `series`.
//!
//! Each chart of the lab also says what it shows in words (its accessible description: the
//! key numbers of the same points) and opens a table of the plotted points on demand.

use std::cell::RefCell;

use leptos::prelude::*;
use sim_core::Simulation;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use crate::format;
use crate::glyph;
use crate::i18n::{fill, t, t_untracked, tx};
use crate::stage::dash;
use crate::theme::palette;
use crate::ui::use_ui;

/// Points per CDF curve.
const CDF_POINTS: usize = 80;

/// Sizes a canvas's backing store to its CSS width × `css_h` at the device pixel ratio and
/// returns its context scaled to CSS pixels. `min_w` keeps a layout readable when narrow (the
/// canvas is then scaled down by CSS).
pub fn fit_canvas(canvas: &HtmlCanvasElement, min_w: f64, css_h: f64) -> Option<(CanvasRenderingContext2d, f64, f64)> {
    let dpr = web_sys::window().map(|w| w.device_pixel_ratio()).unwrap_or(1.0).clamp(1.0, 3.0);
    let cw = f64::from(canvas.client_width());
    let w = if cw > 0.0 { cw.max(min_w) } else { min_w };
    let h = css_h;
    let (pw, ph) = ((w * dpr).round() as u32, (h * dpr).round() as u32);
    if canvas.width() != pw || canvas.height() != ph {
        canvas.set_width(pw);
        canvas.set_height(ph);
    }
    let ctx = canvas.get_context("2d").ok().flatten()?.dyn_into::<CanvasRenderingContext2d>().ok()?;
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    Some((ctx, w, h))
}

pub fn canvas_by_id(id: &str) -> Option<HtmlCanvasElement> {
    web_sys::window()?.document()?.get_element_by_id(id)?.dyn_into::<HtmlCanvasElement>().ok()
}

/// One axis: linear or base-10 logarithmic.
#[derive(Clone, Copy, Debug)]
pub enum Axis {
    Linear { min: f64, max: f64 },
    Log { min: f64, max: f64 },
}

impl Axis {
    fn frac(&self, v: f64) -> f64 {
        match *self {
            Axis::Linear { min, max } => {
                if max > min {
                    (v - min) / (max - min)
                } else {
                    0.0
                }
            }
            Axis::Log { min, max } => {
                let v = v.max(min);
                (v.log10() - min.log10()) / (max.log10() - min.log10()).max(1e-9)
            }
        }
    }

    fn ticks(&self) -> Vec<f64> {
        match *self {
            Axis::Linear { min, max } => nice_ticks(min, max, 4),
            Axis::Log { min, max } => {
                let mut out = Vec::new();
                let mut d = 10f64.powf(min.log10().floor());
                while d <= max * 1.0001 {
                    if d >= min * 0.9999 {
                        out.push(d);
                    }
                    d *= 10.0;
                }
                out
            }
        }
    }

    /// A log axis spanning whole decades around [lo, hi].
    pub fn log_decades(lo: f64, hi: f64) -> Axis {
        let lo = lo.max(1e-3);
        let hi = hi.max(lo * 10.0);
        Axis::Log { min: 10f64.powf(lo.log10().floor()), max: 10f64.powf(hi.log10().ceil()) }
    }

    /// A linear axis from 0 to a round number at or above `hi`.
    pub fn zero_to(hi: f64) -> Axis {
        let hi = if hi.is_finite() && hi > 0.0 { hi } else { 1.0 };
        let step = nice_step(hi / 4.0);
        Axis::Linear { min: 0.0, max: (hi / step).ceil() * step }
    }
}

fn nice_step(raw: f64) -> f64 {
    if raw <= 0.0 || !raw.is_finite() {
        return 1.0;
    }
    let mag = 10f64.powf(raw.log10().floor());
    let n = raw / mag;
    let m = if n <= 1.0 {
        1.0
    } else if n <= 2.0 {
        2.0
    } else if n <= 2.5 {
        2.5
    } else if n <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

fn nice_ticks(min: f64, max: f64, n: usize) -> Vec<f64> {
    let step = nice_step((max - min) / n.max(1) as f64);
    let mut out = Vec::new();
    let mut v = (min / step).ceil() * step;
    while v <= max + step * 1e-6 {
        out.push(v);
        v += step;
    }
    out
}

/// A plot area with its axes drawn.
pub struct Plot<'a> {
    ctx: &'a CanvasRenderingContext2d,
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
    xa: Axis,
    ya: Axis,
    legend_y: f64,
    /// Stack legend entries upwards from the bottom right (where a CDF leaves room).
    legend_bottom: bool,
}

/// How tick labels read.
#[derive(Clone, Copy)]
pub enum Units {
    Ms,
    Seconds,
    Share,
    Percent,
    Count,
}

fn tick_label(v: f64, u: Units) -> String {
    match u {
        Units::Ms => {
            if v >= 1000.0 {
                format!("{} s", format::plain(v / 1000.0))
            } else {
                format!("{} ms", format::plain(v))
            }
        }
        Units::Seconds => format!("{} s", format::plain(v)),
        Units::Share => format::plain(v),
        Units::Percent => format!("{} %", format::plain(v)),
        Units::Count => {
            if v >= 10_000.0 {
                format!("{}k", format::plain(v / 1000.0))
            } else {
                format::plain(v)
            }
        }
    }
}

impl<'a> Plot<'a> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        ctx: &'a CanvasRenderingContext2d,
        w: f64,
        h: f64,
        title: &str,
        xa: Axis,
        xu: Units,
        ya: Axis,
        yu: Units,
    ) -> Plot<'a> {
        let pal = palette();
        ctx.set_fill_style_str(pal.bg);
        ctx.fill_rect(0.0, 0.0, w, h);
        ctx.set_font(pal.font_title);
        ctx.set_fill_style_str(pal.text);
        ctx.set_text_align("left");
        ctx.set_text_baseline("alphabetic");
        let k = pal.chart_scale;
        let _ = ctx.fill_text(title, 8.0, 15.0 * k);
        let p = Plot {
            ctx,
            x0: 46.0 * k,
            y0: 24.0 * k,
            x1: w - 20.0 * k,
            y1: h - 22.0 * k,
            xa,
            ya,
            legend_y: 24.0 * k,
            legend_bottom: false,
        };
        ctx.set_font(pal.font_small);
        ctx.set_line_width(1.0);
        // grid and tick labels
        ctx.set_stroke_style_str(pal.grid);
        ctx.set_fill_style_str(pal.muted);
        ctx.set_text_align("right");
        for t in ya.ticks() {
            let y = p.py(t);
            ctx.begin_path();
            ctx.move_to(p.x0, y.round() + 0.5);
            ctx.line_to(p.x1, y.round() + 0.5);
            ctx.stroke();
            let _ = ctx.fill_text(&tick_label(t, yu), p.x0 - 5.0, y + 3.5);
        }
        ctx.set_text_align("center");
        for t in xa.ticks() {
            let x = p.px(t);
            ctx.begin_path();
            ctx.move_to(x.round() + 0.5, p.y0);
            ctx.line_to(x.round() + 0.5, p.y1);
            ctx.stroke();
            let _ = ctx.fill_text(&tick_label(t, xu), x, p.y1 + 14.0 * k);
        }
        ctx.set_text_align("left");
        ctx.set_stroke_style_str(pal.axis);
        ctx.begin_path();
        ctx.move_to(p.x0 + 0.5, p.y0);
        ctx.line_to(p.x0 + 0.5, p.y1 + 0.5);
        ctx.line_to(p.x1, p.y1 + 0.5);
        ctx.stroke();
        p
    }

    fn px(&self, v: f64) -> f64 {
        self.x0 + self.xa.frac(v).clamp(0.0, 1.0) * (self.x1 - self.x0)
    }
    fn py(&self, v: f64) -> f64 {
        self.y1 - self.ya.frac(v).clamp(0.0, 1.0) * (self.y1 - self.y0)
    }

    /// A polyline through `pts` (data coordinates).
    pub fn line(&self, pts: &[(f64, f64)], colour: &str, pattern: &[f64], width: f64) {
        if pts.is_empty() {
            return;
        }
        let ctx = self.ctx;
        ctx.save();
        ctx.begin_path();
        ctx.rect(self.x0, self.y0 - 2.0, self.x1 - self.x0 + 2.0, self.y1 - self.y0 + 4.0);
        ctx.clip();
        ctx.set_stroke_style_str(colour);
        ctx.set_line_width(width);
        ctx.set_line_join("round");
        let _ = ctx.set_line_dash(&dash(pattern));
        ctx.begin_path();
        for (i, &(x, y)) in pts.iter().enumerate() {
            if i == 0 {
                ctx.move_to(self.px(x), self.py(y));
            } else {
                ctx.line_to(self.px(x), self.py(y));
            }
        }
        ctx.stroke();
        ctx.restore();
    }

    /// A vertical reference line at x with a label near its foot (the label in the text colour:
    /// line colours are too light for small text).
    pub fn vline(&self, x: f64, colour: &str, label: &str) {
        let ctx = self.ctx;
        let px = self.px(x).round() + 0.5;
        ctx.set_stroke_style_str(colour);
        ctx.set_line_width(1.5);
        let _ = ctx.set_line_dash(&dash(&[2.0, 3.0]));
        ctx.begin_path();
        ctx.move_to(px, self.y0);
        ctx.line_to(px, self.y1);
        ctx.stroke();
        let _ = ctx.set_line_dash(&dash(&[]));
        ctx.set_line_width(1.0);
        let pal = palette();
        ctx.set_font(pal.font_small);
        ctx.set_fill_style_str(pal.text);
        let right = px > (self.x0 + self.x1) / 2.0;
        ctx.set_text_align(if right { "right" } else { "left" });
        let _ = ctx.fill_text(label, if right { px - 3.0 } else { px + 3.0 }, self.y1 - 6.0);
        ctx.set_text_align("left");
    }

    /// A horizontal reference line at y with a label.
    pub fn hline(&self, y: f64, colour: &str, label: &str) {
        let ctx = self.ctx;
        let py = self.py(y).round() + 0.5;
        ctx.set_stroke_style_str(colour);
        let _ = ctx.set_line_dash(&dash(&[2.0, 3.0]));
        ctx.begin_path();
        ctx.move_to(self.x0, py);
        ctx.line_to(self.x1, py);
        ctx.stroke();
        let _ = ctx.set_line_dash(&dash(&[]));
        let pal = palette();
        ctx.set_font(pal.font_small);
        ctx.set_fill_style_str(pal.text);
        let _ = ctx.fill_text(label, self.x0 + 4.0, py - 3.0);
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

    fn legend_entry(&mut self, label: &str, colour: &str, pattern: &[f64], class: Option<usize>) {
        let ctx = self.ctx;
        let pal = palette();
        ctx.set_font(pal.font_small);
        let tw = ctx.measure_text(label).map(|m| m.width()).unwrap_or(60.0);
        let x = self.x1 - tw - 30.0;
        // one row of the legend, and how far the text sits below its top
        let (row, k) = (14.0 * pal.chart_scale, pal.chart_scale);
        if self.legend_bottom && self.legend_y == self.y0 {
            self.legend_y = self.y1 - 22.0 * k;
        }
        let y = self.legend_y + 8.0 * k;
        ctx.set_fill_style_str(pal.legend_bg);
        ctx.fill_rect(x - 4.0, y - 9.0 * k, tw + 34.0, row);
        ctx.set_stroke_style_str(colour);
        ctx.set_line_width(2.0);
        let _ = ctx.set_line_dash(&dash(pattern));
        ctx.begin_path();
        ctx.move_to(x, y - 3.0 * k);
        ctx.line_to(x + 22.0, y - 3.0 * k);
        ctx.stroke();
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
        ctx.set_fill_style_str(pal.text);
        let _ = ctx.fill_text(label, x + 26.0, y + k);
        self.legend_y += if self.legend_bottom { -row } else { row };
    }

    /// Legend entries go to the bottom right.
    pub fn legend_at_bottom(&mut self) {
        self.legend_bottom = true;
    }

    /// A note in the middle of an empty plot.
    pub fn note(&self, text: &str) {
        let ctx = self.ctx;
        let pal = palette();
        ctx.set_font(pal.font_small);
        ctx.set_fill_style_str(pal.muted);
        ctx.set_text_align("center");
        let _ = ctx.fill_text(text, (self.x0 + self.x1) / 2.0, (self.y0 + self.y1) / 2.0);
        ctx.set_text_align("left");
    }

    /// A filled dot at (x, y) in data coordinates, ringed with the background colour (a sweep's
    /// measured points).
    pub fn dot(&self, x: f64, y: f64, colour: &str, r: f64) {
        let ctx = self.ctx;
        ctx.begin_path();
        let _ = ctx.arc(self.px(x), self.py(y), r, 0.0, std::f64::consts::TAU);
        ctx.set_fill_style_str(colour);
        ctx.fill();
        ctx.set_stroke_style_str(palette().bg);
        ctx.set_line_width(1.0);
        ctx.stroke();
    }
}

/// What the charts show: one or two runs, all classes or one.
pub struct ChartInput<'a> {
    pub runs: Vec<(&'a str, &'a Simulation)>,
    pub class: Option<usize>,
}

const RUN_DASH: [&[f64]; 2] = [&[], &[6.0, 4.0]];
/// The every-arrival TTFT curve (the unanswered at a lower bound): dotted, thinner.
const BOUND_DOTS: &[f64] = &[2.0, 3.0];

/// Chart canvases: id, title (a translation key).
pub const CHARTS: [(&str, &str); 6] = [
    ("chart-ttft", "chart.ttft"),
    ("chart-tpot", "chart.tpot"),
    ("chart-queue", "chart.queue"),
    ("chart-batch", "chart.batch"),
    ("chart-kv", "chart.kv"),
    ("chart-goodput", "chart.goodput"),
];

const CHART_H: f64 = 180.0;
const CHART_MIN_W: f64 = 300.0;

/// Redraws the chart canvases found in the page: all of them, or (to spread the work over calm
/// ticks) only those whose index has the parity `half`.
pub fn draw(input: &ChartInput<'_>, half: Option<usize>) {
    for (i, (id, key)) in CHARTS.iter().enumerate() {
        if half.is_some_and(|h| i % 2 != h % 2) {
            continue;
        }
        let title = &t_untracked(key);
        let Some(canvas) = canvas_by_id(id) else { continue };
        let Some((ctx, w, h)) = fit_canvas(&canvas, CHART_MIN_W, CHART_H * palette().chart_scale) else { continue };
        match i {
            0 => cdf_chart(&ctx, w, h, title, input, Latency::Ttft, i),
            1 => cdf_chart(&ctx, w, h, title, input, Latency::Tpot, i),
            2 => series_chart(&ctx, w, h, title, input, Series::Queue, i),
            3 => series_chart(&ctx, w, h, title, input, Series::Batch, i),
            4 => series_chart(&ctx, w, h, title, input, Series::Kv, i),
            _ => series_chart(&ctx, w, h, title, input, Series::Goodput, i),
        }
    }
}

/// One CDF line: run, class, points (ms, share).
type Curve = (usize, usize, Vec<(f64, f64)>);

#[derive(Clone, Copy, PartialEq)]
enum Latency {
    Ttft,
    Tpot,
}

#[allow(clippy::too_many_arguments)]
fn cdf_chart(
    ctx: &CanvasRenderingContext2d,
    w: f64,
    h: f64,
    title: &str,
    input: &ChartInput<'_>,
    which: Latency,
    index: usize,
) {
    // curves: (run, class, points); for TTFT, every arrival's curve (a lower bound) where some
    // requests have no answer
    let mut curves: Vec<Curve> = Vec::new();
    let mut bounds: Vec<Curve> = Vec::new();
    let mut slos: Vec<(usize, f64)> = Vec::new();
    for (ri, (_, sim)) in input.runs.iter().enumerate() {
        let n = sim.class_names().len();
        let classes: Vec<usize> = match input.class {
            Some(c) if c < n => vec![c],
            _ => (0..n).collect(),
        };
        let per_class = n > 1;
        for &c in &classes {
            let cls = if per_class { Some(c) } else { None };
            let pts = match which {
                Latency::Ttft => sim.ttft_cdf(cls, CDF_POINTS),
                Latency::Tpot => sim.tpot_cdf(cls, CDF_POINTS),
            };
            if which == Latency::Ttft {
                let all = sim.ttft_cdf_censored(cls, CDF_POINTS);
                // drawn only when it differs: some requests counted at a lower bound
                if all != pts {
                    bounds.push((ri, c, all));
                }
            }
            curves.push((ri, c, pts));
            if let Some(cc) = sim.scenario().classes.get(c) {
                let slo = match which {
                    Latency::Ttft => cc.slo.ttft_ms,
                    Latency::Tpot => cc.slo.tpot_ms,
                };
                if let Some(v) = slo {
                    if !slos.iter().any(|&(k, s)| k == c && s == v) {
                        slos.push((c, v));
                    }
                }
            }
        }
    }
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for (_, _, pts) in curves.iter().chain(&bounds) {
        for &(x, _) in pts {
            if x > 0.0 {
                lo = lo.min(x);
                hi = hi.max(x);
            }
        }
    }
    for &(_, s) in &slos {
        lo = lo.min(s);
        hi = hi.max(s);
    }
    if !lo.is_finite() {
        lo = 1.0;
        hi = 1000.0;
    }
    let xa = Axis::log_decades(lo, hi);
    let mut plot = Plot::new(ctx, w, h, title, xa, Units::Ms, Axis::Linear { min: 0.0, max: 1.0 }, Units::Share);
    if curves.iter().all(|(_, _, p)| p.is_empty()) {
        plot.note(&t_untracked(if bounds.is_empty() { "chart.no_completed" } else { "chart.no_completed_bound" }));
    }
    plot.legend_at_bottom();
    let multi_run = input.runs.len() > 1;
    for (ri, c, pts) in &curves {
        if pts.is_empty() {
            continue;
        }
        let mut line = Vec::with_capacity(pts.len() + 1);
        line.push((pts[0].0, 0.0));
        line.extend_from_slice(pts);
        plot.line(&line, glyph::colour(*c), RUN_DASH[(*ri).min(1)], 2.0);
    }
    for (_, c, pts) in &bounds {
        let mut line = Vec::with_capacity(pts.len() + 1);
        line.push((pts[0].0, 0.0));
        line.extend_from_slice(pts);
        plot.line(&line, glyph::colour(*c), BOUND_DOTS, 1.5);
    }
    for &(c, v) in &slos {
        plot.vline(v, glyph::colour(c), &format!("SLO {}", format::ms(v)));
    }
    // legend: classes when several, runs when two
    let names: Vec<String> = input.runs.first().map(|(_, s)| s.class_names().to_vec()).unwrap_or_default();
    if names.len() > 1 && input.class.is_none() {
        for (c, name) in names.iter().enumerate() {
            plot.legend_class(name, c);
        }
    }
    if multi_run {
        for (ri, (label, _)) in input.runs.iter().enumerate() {
            plot.legend(label, palette().run_line, RUN_DASH[ri.min(1)]);
        }
    }
    if !bounds.is_empty() {
        plot.legend(&t_untracked("chart.legend_all_arrivals"), palette().run_line, BOUND_DOTS);
    }
    publish(index, |table| cdf_text(title, input, &curves, &bounds, &slos, table));
}

#[derive(Clone, Copy, PartialEq)]
enum Series {
    Queue,
    Batch,
    Kv,
    Goodput,
}

#[allow(clippy::too_many_arguments)]
fn series_chart(
    ctx: &CanvasRenderingContext2d,
    w: f64,
    h: f64,
    title: &str,
    input: &ChartInput<'_>,
    which: Series,
    index: usize,
) {
    let mut t_max = 0.0f64;
    let mut y_max = 0.0f64;
    for (_, sim) in &input.runs {
        for s in sim.series().iter() {
            t_max = t_max.max(s.t_s);
            let y = match which {
                Series::Queue => s.queue_len,
                Series::Batch => s.running,
                Series::Kv => s.kv_fill * 100.0,
                Series::Goodput => s.throughput_tok_s.max(s.goodput_tok_s),
            };
            y_max = y_max.max(y);
        }
        if which == Series::Batch {
            y_max = y_max.max(batch_limit(sim).0);
        }
    }
    let ya = match which {
        Series::Kv => Axis::Linear { min: 0.0, max: 100.0 },
        _ => Axis::zero_to(y_max.max(1.0)),
    };
    let yu = match which {
        Series::Kv => Units::Percent,
        _ => Units::Count,
    };
    let xa = Axis::zero_to(t_max.max(1.0));
    let full_title = match which {
        Series::Goodput => t_untracked("chart.goodput_full"),
        Series::Kv => t_untracked("chart.kv_full"),
        _ => title.to_string(),
    };
    let mut plot = Plot::new(ctx, w, h, &full_title, xa, Units::Seconds, ya, yu);
    let multi_run = input.runs.len() > 1;
    for (ri, (_, sim)) in input.runs.iter().enumerate() {
        let pattern = RUN_DASH[ri.min(1)];
        let series = sim.series();
        let pick = |f: &dyn Fn(&sim_core::Sample) -> f64| -> Vec<(f64, f64)> {
            let mut v = Vec::with_capacity(series.len() + 1);
            v.push((0.0, series.first().map_or(0.0, f)));
            v.extend(series.iter().map(|s| (s.t_s, f(s))));
            v
        };
        match which {
            Series::Queue => plot.line(&pick(&|s| s.queue_len), "#0f766e", pattern, 1.8),
            Series::Batch => {
                plot.line(&pick(&|s| s.running), "#1d4ed8", pattern, 1.8);
                if ri == 0 || batch_limit(sim) != batch_limit(input.runs[0].1) {
                    let (m, label) = batch_limit(sim);
                    plot.hline(m, palette().ref_line, &label);
                }
            }
            Series::Kv => plot.line(&pick(&|s| s.kv_fill * 100.0), "#7c3aed", pattern, 1.8),
            Series::Goodput => {
                plot.line(&pick(&|s| s.throughput_tok_s), palette().throughput_line, pattern, 3.0);
                plot.line(&pick(&|s| s.goodput_tok_s), "#15803d", pattern, 1.4);
            }
        }
    }
    if which == Series::Goodput {
        plot.legend(&t_untracked("chart.legend_throughput"), palette().throughput_line, &[]);
        plot.legend(&t_untracked("chart.legend_goodput"), "#15803d", &[]);
    }
    if multi_run {
        for (ri, (label, _)) in input.runs.iter().enumerate() {
            plot.legend(label, palette().run_line, RUN_DASH[ri.min(1)]);
        }
    }
    if input.runs.iter().all(|(_, s)| s.series().is_empty()) {
        plot.note(&t_untracked("chart.first_sample"));
    }
    publish(index, |table| series_text(&full_title, input, which, table));
}

// ---------------------------------------------------------------- text alternatives

/// Most rows of a chart's data table (per run for a time series).
const TABLE_ROWS: usize = 20;
/// The CDF's rows: shares of requests (of [`CDF_POINTS`]: point i is the share (i + 1) / 80).
const CDF_ROWS: [usize; 11] = [7, 15, 23, 31, 39, 47, 55, 63, 71, 75, 79];

/// A chart in words: its summary (its accessible description) and, while its table is open,
/// the plotted points (bounded: [`TABLE_ROWS`] per run, [`CDF_ROWS`] for a CDF).
#[derive(Default, PartialEq)]
pub struct ChartText {
    pub summary: String,
    pub head: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// A chart figure in the page: whether its table is open, and the words last written into it
/// (the page's text changes only when they do).
struct Figure {
    open: RwSignal<bool>,
    shown: ChartText,
}

thread_local! {
    static FIGURES: RefCell<Vec<Figure>> = const { RefCell::new(Vec::new()) };
}

fn tu(key: &str, args: &[(&str, String)]) -> String {
    fill(&t_untracked(key), args)
}

/// Writes chart `i`'s words into its figure (when they changed): the summary, and the table's
/// rows while it is open (`make` is told whether to make them).
fn publish(i: usize, make: impl FnOnce(bool) -> ChartText) {
    let Some(open) = FIGURES.with(|f| f.borrow().get(i).and_then(|f| f.open.try_get_untracked())) else { return };
    let next = make(open);
    if FIGURES.with(|f| f.borrow().get(i).is_none_or(|f| f.shown == next)) {
        return;
    }
    let id = CHARTS[i].0;
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    for part in ["summary", "caption"] {
        if let Some(el) = doc.get_element_by_id(&format!("{id}-{part}")) {
            el.set_text_content(Some(&next.summary));
        }
    }
    let fill_rows = |part: &str, rows: &[Vec<String>], tag: &str| {
        let Some(el) = doc.get_element_by_id(&format!("{id}-{part}")) else { return };
        el.set_text_content(None);
        for cells in rows {
            let Ok(tr) = doc.create_element("tr") else { return };
            for c in cells {
                let Ok(cell) = doc.create_element(tag) else { return };
                if tag == "th" {
                    let _ = cell.set_attribute("scope", "col");
                }
                cell.set_text_content(Some(c));
                let _ = tr.append_child(&cell);
            }
            let _ = el.append_child(&tr);
        }
    };
    fill_rows("head", std::slice::from_ref(&next.head), "th");
    fill_rows("body", &next.rows, "td");
    FIGURES.with(|f| {
        if let Some(f) = f.borrow_mut().get_mut(i) {
            f.shown = next;
        }
    });
}

/// A curve's or a run's name in a summary and a table head: the class, the run, or both.
fn series_name(input: &ChartInput<'_>, run: usize, class: Option<usize>, fallback: &str) -> String {
    let runs = input.runs.len() > 1;
    let class = class.and_then(|c| input.runs.get(run).and_then(|(_, s)| s.class_names().get(c).cloned()));
    match (runs, class) {
        (true, Some(c)) => format!("{} · {c}", input.runs[run].0),
        (true, None) => input.runs[run].0.to_string(),
        (false, Some(c)) => c,
        (false, None) => fallback.to_string(),
    }
}

fn cdf_text(
    title: &str,
    input: &ChartInput<'_>,
    curves: &[Curve],
    bounds: &[Curve],
    slos: &[(usize, f64)],
    table: bool,
) -> ChartText {
    let name_of = |(r, c, _): &Curve| {
        let per_class = input.runs.get(*r).is_some_and(|(_, s)| s.class_names().len() > 1);
        series_name(input, *r, per_class.then_some(*c), title)
    };
    let all_arrivals = t_untracked("chart.legend_all_arrivals");
    // (name, points, whether its figures are lower bounds)
    let named: Vec<(String, &Vec<(f64, f64)>, bool)> = curves
        .iter()
        .filter(|(_, _, p)| !p.is_empty())
        .map(|curve| (name_of(curve), &curve.2, false))
        .chain(bounds.iter().map(|curve| {
            let name = name_of(curve);
            (if name == title { all_arrivals.clone() } else { format!("{name} · {all_arrivals}") }, &curve.2, true)
        }))
        .collect();
    let shown = |v: f64, bound: bool| if bound { format!("≥ {}", format::ms(v)) } else { format::ms(v) };
    let at = |p: &Vec<(f64, f64)>, i: usize| p.get(i).or(p.last()).map_or(0.0, |q| q.0);
    let mut parts: Vec<String> = named
        .iter()
        .map(|(name, p, bound)| {
            // a single curve is the chart's own: its name would repeat the title
            let key = if *name == title { "a11y.cdf_one" } else { "a11y.cdf_curve" };
            tu(
                key,
                &[
                    ("name", name.clone()),
                    ("p50", shown(at(p, 39), *bound)),
                    ("p95", shown(at(p, 75), *bound)),
                    ("max", shown(at(p, 79), *bound)),
                ],
            )
        })
        .collect();
    if named.is_empty() {
        parts.push(t_untracked("chart.no_completed"));
    }
    if !slos.is_empty() {
        let list = slos.iter().map(|&(_, v)| format::ms(v)).collect::<Vec<_>>().join(", ");
        parts.push(tu("a11y.chart_slo", &[("slo", list)]));
    }
    let summary = tu("a11y.chart_summary", &[("title", title.to_string()), ("text", parts.join("; "))]);
    if !table {
        return ChartText { summary, ..ChartText::default() };
    }
    let mut head = vec![t_untracked("a11y.col_share")];
    head.extend(named.iter().map(|(n, _, _)| n.clone()));
    let rows = CDF_ROWS
        .iter()
        .map(|&i| {
            let mut row = vec![format::pct((i + 1) as f64 / CDF_POINTS as f64)];
            row.extend(named.iter().map(|(_, p, bound)| shown(at(p, i), *bound)));
            row
        })
        .collect();
    ChartText { summary, head, rows }
}

/// The lines of a time series chart: (name key or "", value of a sample).
fn series_lines(which: Series) -> Vec<(&'static str, fn(&sim_core::Sample) -> f64)> {
    match which {
        Series::Queue => vec![("", |s| s.queue_len)],
        Series::Batch => vec![("", |s| s.running)],
        Series::Kv => vec![("", |s| s.kv_fill)],
        Series::Goodput => {
            vec![("chart.legend_throughput", |s| s.throughput_tok_s), ("chart.legend_goodput", |s| s.goodput_tok_s)]
        }
    }
}

fn series_value(which: Series, v: f64) -> String {
    match which {
        Series::Kv => format::pct(v),
        Series::Goodput => format!("{} tok/s", format::rate(v)),
        _ => format::rate(v),
    }
}

fn series_text(title: &str, input: &ChartInput<'_>, which: Series, table: bool) -> ChartText {
    let lines = series_lines(which);
    let mut parts = Vec::new();
    for (ri, (_, sim)) in input.runs.iter().enumerate() {
        let series = sim.series();
        let Some(last) = series.last() else { continue };
        for (key, f) in &lines {
            let name = if key.is_empty() {
                series_name(input, ri, None, title)
            } else {
                let n = t_untracked(key);
                if input.runs.len() > 1 {
                    format!("{} · {n}", input.runs[ri].0)
                } else {
                    n
                }
            };
            let peak = series.iter().map(f).fold(0.0f64, f64::max);
            let key = if name == title { "a11y.series_one" } else { "a11y.series_line" };
            parts.push(tu(
                key,
                &[("name", name), ("now", series_value(which, f(last))), ("peak", series_value(which, peak))],
            ));
        }
        if which == Series::Batch {
            parts.push(batch_limit(sim).1);
        }
    }
    let span = input.runs.iter().filter_map(|(_, s)| s.series().last().map(|x| x.t_s)).fold(0.0f64, f64::max);
    let text = if parts.is_empty() {
        t_untracked("chart.first_sample")
    } else {
        tu("a11y.series_span", &[("span", format::sim_time(span)), ("lines", parts.join("; "))])
    };
    let summary = tu("a11y.chart_summary", &[("title", title.to_string()), ("text", text)]);
    if !table {
        return ChartText { summary, ..ChartText::default() };
    }
    let multi = input.runs.len() > 1;
    let mut head = Vec::new();
    if multi {
        head.push(t_untracked("a11y.col_run"));
    }
    head.push(t_untracked("a11y.col_time"));
    head.extend(lines.iter().map(|(key, _)| if key.is_empty() { title.to_string() } else { t_untracked(key) }));
    let mut rows = Vec::new();
    for (label, sim) in &input.runs {
        let series = sim.series();
        let step = series.len().div_ceil(TABLE_ROWS).max(1);
        // every step-th sample, ending on the last one
        let picked = series.iter().rev().step_by(step).take(TABLE_ROWS).collect::<Vec<_>>();
        for s in picked.into_iter().rev() {
            let mut row = Vec::with_capacity(head.len());
            if multi {
                row.push(label.to_string());
            }
            row.push(format::sim_time(s.t_s));
            row.extend(lines.iter().map(|(_, f)| series_value(which, f(s))));
            rows.push(row);
        }
    }
    ChartText { summary, head, rows }
}

/// The charts' figures: each canvas with its summary as its description, a "Show data" button
/// and the data table it opens (their words are written by [`draw`]).
pub fn figures() -> impl IntoView {
    let ui = use_ui();
    let opens: Vec<RwSignal<bool>> = CHARTS.iter().map(|_| RwSignal::new(false)).collect();
    FIGURES
        .with(|f| *f.borrow_mut() = opens.iter().map(|&open| Figure { open, shown: ChartText::default() }).collect());
    CHARTS
        .iter()
        .zip(opens)
        .map(|(&(id, title), open)| {
            view! {
                <figure class="chart-fig">
                    <canvas id=id class="chart" data-testid=id role="img" aria-label=tx(title) aria-describedby=format!("{id}-summary")></canvas>
                    <p class="sr-only" id=format!("{id}-summary") data-testid=format!("{id}-summary")></p>
                    <button
                        type="button"
                        class="btn small-btn chart-data-btn"
                        aria-expanded=move || open.get().to_string()
                        aria-controls=format!("{id}-data")
                        data-testid=format!("{id}-data-btn")
                        on:click=move |_| {
                            open.update(|o| *o = !*o);
                            ui.refresh(true);
                        }
                    >{move || if open.get() { t("a11y.hide_data") } else { t("a11y.show_data") }}</button>
                    <div class="chart-table-wrap" id=format!("{id}-data") class:hidden=move || !open.get()>
                        <table class="chart-table" data-testid=format!("{id}-table")>
                            <caption id=format!("{id}-caption")></caption>
                            <thead id=format!("{id}-head")></thead>
                            <tbody id=format!("{id}-body")></tbody>
                        </table>
                    </div>
                </figure>
            }
        })
        .collect_view()
}

/// The most sequences the run can hold at once, and its label: `max_num_seqs`, times the
/// replicas of a cluster (the batch series counts every replica's).
fn batch_limit(sim: &Simulation) -> (f64, String) {
    let per = sim.scenario().scheduler.max_num_seqs;
    let n = sim.replica_count();
    let label = if n > 1 {
        format!("max_num_seqs {} × {n}", format::int(u64::from(per)))
    } else {
        format!("max_num_seqs {}", format::int(u64::from(per)))
    };
    (f64::from(per) * n as f64, label)
}
