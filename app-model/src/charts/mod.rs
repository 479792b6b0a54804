//! The lab's charts as data: which charts there are, their axes (round ticks covering the data,
//! linear or whole decades), where a data point lands in the plot box, each chart's lines
//! (`cdf`: TTFT and TPOT CDFs with SLO lines, TTFT also over every arrival; `series`: queue,
//! batch, KV and goodput over simulated time), and each chart in words: its summary sentence and
//! the data table it opens. The page paints them on a canvas and renders the table.

pub mod cdf;
pub mod figure;
pub mod series;
#[cfg(test)]
mod tests;

use sim_core::Simulation;

use crate::format;

/// Chart canvases: id (also the test id), title (a translation key).
pub const CHARTS: [(&str, &str); 6] = [
    ("chart-ttft", "chart.ttft"),
    ("chart-tpot", "chart.tpot"),
    ("chart-queue", "chart.queue"),
    ("chart-batch", "chart.batch"),
    ("chart-kv", "chart.kv"),
    ("chart-goodput", "chart.goodput"),
];

/// What the charts show: one or two runs (label, simulation), all classes or one.
pub struct ChartInput<'a> {
    pub runs: Vec<(&'a str, &'a Simulation)>,
    pub class: Option<usize>,
}

impl ChartInput<'_> {
    /// A curve's or a run's name in a summary and a table head: the class, the run, or both;
    /// `fallback` (the chart's title) for the only one.
    fn name(&self, run: usize, class: Option<usize>, fallback: &str) -> String {
        let runs = self.runs.len() > 1;
        let class = class.and_then(|c| self.runs.get(run).and_then(|(_, s)| s.class_names().get(c).cloned()));
        match (runs, class) {
            (true, Some(c)) => format!("{} · {c}", self.runs[run].0),
            (true, None) => self.runs[run].0.to_string(),
            (false, Some(c)) => c,
            (false, None) => fallback.to_string(),
        }
    }
}

pub use crate::words::Words;

/// A chart in words: its summary (its accessible description) and, while its table is open,
/// the plotted points.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChartText {
    pub summary: String,
    pub head: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// One axis: linear or base-10 logarithmic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Axis {
    Linear { min: f64, max: f64 },
    Log { min: f64, max: f64 },
}

impl Axis {
    /// Where `v` lies along the axis, 0 at its start and 1 at its end (not clamped).
    pub fn frac(&self, v: f64) -> f64 {
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

    /// The ticks: round numbers (1, 2, 2.5 or 5 times a power of ten) on a linear axis, every
    /// decade on a log axis.
    pub fn ticks(&self) -> Vec<f64> {
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

/// How tick labels read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Units {
    Ms,
    Seconds,
    Share,
    Percent,
    Count,
}

impl Units {
    /// A tick's label ("500 ms", "2 s", "0.5", "50 %", "12k").
    pub fn label(self, v: f64) -> String {
        match self {
            Units::Ms if v >= 1000.0 => format!("{} s", format::plain(v / 1000.0)),
            Units::Ms => format!("{} ms", format::plain(v)),
            Units::Seconds => format!("{} s", format::plain(v)),
            Units::Share => format::plain(v),
            Units::Percent => format!("{} %", format::plain(v)),
            Units::Count if v >= 10_000.0 => format!("{}k", format::plain(v / 1000.0)),
            Units::Count => format::plain(v),
        }
    }
}

/// A plot box on the canvas (CSS pixels, y down) with its two axes: where data lands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlotBox {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
    pub xa: Axis,
    pub ya: Axis,
}

impl PlotBox {
    /// The box of a `w` × `h` chart, its margins scaled by `k` (the projector profile's).
    pub fn new(w: f64, h: f64, k: f64, xa: Axis, ya: Axis) -> PlotBox {
        PlotBox { x0: 46.0 * k, y0: 24.0 * k, x1: w - 20.0 * k, y1: h - 22.0 * k, xa, ya }
    }

    /// The x of a data value, kept inside the box.
    pub fn px(&self, v: f64) -> f64 {
        self.x0 + self.xa.frac(v).clamp(0.0, 1.0) * (self.x1 - self.x0)
    }

    /// The y of a data value, kept inside the box (larger values higher).
    pub fn py(&self, v: f64) -> f64 {
        self.y1 - self.ya.frac(v).clamp(0.0, 1.0) * (self.y1 - self.y0)
    }
}

/// A legend entry of a chart.
#[derive(Clone, Debug, PartialEq)]
pub enum Legend {
    /// A traffic class: its name and index (colour and glyph).
    Class(String, usize),
    /// A run: its label and index (its dash pattern).
    Run(String, usize),
    /// A line named by a translation key (`chart.legend_all_arrivals`, …).
    Key(&'static str),
}

/// The legend's run entries when two runs are shown.
fn run_legend(input: &ChartInput<'_>) -> Vec<Legend> {
    if input.runs.len() > 1 {
        input.runs.iter().enumerate().map(|(i, (label, _))| Legend::Run(label.to_string(), i)).collect()
    } else {
        Vec::new()
    }
}
