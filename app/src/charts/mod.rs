//! A small canvas chart helper (axes, ticks, lines, reference lines, legend) and the lab's
//! charts built on it. Charts only draw what sim-core computed: `ttft_cdf`, `tpot_cdf`, `series`.
//!
//! Each chart of the lab also says what it shows in words (its accessible description: the
//! key numbers of the same points) and opens a table of the plotted points on demand.
//!
//! The chart helper is `plot`; the charts' words and data tables are `text`.

mod plot;
mod text;

pub use plot::{canvas_by_id, fit_canvas, Axis, Plot, Units};
pub use text::{figures, ChartText};

use text::{cdf_text, publish, series_text};

use sim_core::Simulation;
use web_sys::CanvasRenderingContext2d;

use crate::format;
use crate::glyph;
use crate::i18n::t_untracked;
use crate::theme::palette;

/// Points per CDF curve.
const CDF_POINTS: usize = 80;

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
