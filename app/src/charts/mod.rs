//! The lab's charts on canvas: `app_model::charts` computes each chart's lines, axes, legend and
//! words from the runs (`ttft_cdf`, `tpot_cdf`, `series`); this module paints them (`plot`, the
//! canvas chart helper) and writes each chart's words and data table into its figure (`text`).

mod plot;
mod text;

pub use app_model::charts::{Axis, ChartInput, Units, CHARTS};
pub use plot::{canvas_by_id, fit_canvas, Plot};
pub use text::figures;

use app_model::charts::cdf::{self, Cdf};
use app_model::charts::series::{self, Mark, Role, SeriesChart};
use app_model::charts::{Legend, Words};

use crate::theme::{Look, Palette};
use app_model::format;
use lab_canvas::glyph;

const RUN_DASH: [&[f64]; 2] = [&[], &[6.0, 4.0]];
/// The every-arrival TTFT curve (the unanswered at a lower bound): dotted, thinner.
const BOUND_DOTS: &[f64] = &[2.0, 3.0];

const CHART_H: f64 = 180.0;
const CHART_MIN_W: f64 = 300.0;

/// The page's words in the language of the look the charts are drawn in.
struct PageWords(Look);

impl Words for PageWords {
    fn t(&self, key: &str) -> String {
        self.0.t(key)
    }
    fn tf(&self, key: &str, args: &[(&str, String)]) -> String {
        self.0.tf(key, args)
    }
}

/// Redraws the chart canvases found in the page in `look`: all of them, or (to spread the work
/// over calm ticks) only those whose index has the parity `half`.
pub fn draw(input: &ChartInput<'_>, look: Look, half: Option<usize>) {
    let (pal, words) = (look.palette(), PageWords(look));
    for (i, (id, key)) in CHARTS.iter().enumerate() {
        if half.is_some_and(|h| i % 2 != h % 2) {
            continue;
        }
        let Some(canvas) = canvas_by_id(id) else { continue };
        let Some((ctx, w, h)) = fit_canvas(&canvas, CHART_MIN_W, CHART_H * pal.chart_scale) else { continue };
        match i {
            0 | 1 => {
                let chart = Cdf::new(input, if i == 0 { cdf::Of::Ttft } else { cdf::Of::Tpot });
                let title = look.t(key);
                let share = Axis::Linear { min: 0.0, max: 1.0 };
                paint_cdf(
                    &mut Plot::new(&ctx, pal, w, h, &title, chart.x, Units::Ms, share, Units::Share),
                    &chart,
                    look,
                );
                text::publish(i, |table| chart.text(input, &title, &words, table));
            }
            _ => {
                let of = [series::Of::Queue, series::Of::Batch, series::Of::Kv, series::Of::Goodput][i - 2];
                let chart = SeriesChart::new(input, of);
                let title = look.t(of.title_key().unwrap_or(key));
                paint_series(
                    &mut Plot::new(&ctx, pal, w, h, &title, chart.x, Units::Seconds, chart.y, chart.y_units),
                    &chart,
                    look,
                );
                text::publish(i, |table| chart.text(input, &title, &words, table));
            }
        }
    }
}

fn legend(plot: &mut Plot<'_>, entries: &[Legend], look: Look) {
    let pal: &Palette = look.palette();
    for entry in entries {
        match entry {
            Legend::Class(name, c) => plot.legend_class(name, *c),
            Legend::Run(label, r) => plot.legend(label, pal.run_line, RUN_DASH[(*r).min(1)]),
            Legend::Key(key) => {
                let colour = match *key {
                    "chart.legend_throughput" => pal.throughput_line,
                    "chart.legend_goodput" => GOODPUT,
                    _ => pal.run_line,
                };
                let pattern = if *key == "chart.legend_all_arrivals" { BOUND_DOTS } else { &[] };
                plot.legend(&look.t(key), colour, pattern);
            }
        }
    }
}

fn paint_cdf(plot: &mut Plot<'_>, chart: &Cdf, look: Look) {
    if let Some(note) = chart.note {
        plot.note(&look.t(note));
    }
    plot.legend_at_bottom();
    for c in &chart.curves {
        plot.line(&c.line(), glyph::colour(c.class), RUN_DASH[c.run.min(1)], 2.0);
    }
    for c in &chart.bounds {
        plot.line(&c.line(), glyph::colour(c.class), BOUND_DOTS, 1.5);
    }
    for &(c, v) in &chart.slos {
        plot.vline(v, glyph::colour(c), &format!("SLO {}", format::ms(v)));
    }
    legend(plot, &chart.legend, look);
}

const GOODPUT: &str = "#15803d";

fn paint_series(plot: &mut Plot<'_>, chart: &SeriesChart, look: Look) {
    let pal = look.palette();
    for mark in &chart.marks {
        match mark {
            Mark::Line(run, role, pts) => {
                let (colour, width) = match role {
                    Role::Queue => ("#0f766e", 1.8),
                    Role::Batch => ("#1d4ed8", 1.8),
                    Role::Kv => ("#7c3aed", 1.8),
                    Role::Throughput => (pal.throughput_line, 3.0),
                    Role::Goodput => (GOODPUT, 1.4),
                };
                plot.line(pts, colour, RUN_DASH[(*run).min(1)], width);
            }
            Mark::Limit(y, label) => plot.hline(*y, pal.ref_line, label),
        }
    }
    legend(plot, &chart.legend, look);
    if let Some(note) = chart.note {
        plot.note(&look.t(note));
    }
}
