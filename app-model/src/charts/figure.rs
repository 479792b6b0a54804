//! A chart as a list of marks the page paints in order (the stage's display list is the same
//! idea): its title and axes, then lines, dots, reference lines, legend entries and a note, each
//! coloured by an [`Ink`] the page maps to its palette. Every chart of the page is made here —
//! the CDFs ([`Cdf::figure`]), the time series ([`SeriesChart::figure`]) and a sweep's two charts
//! (`tabs::sweep_chart::figures`) — so the page has one painter and no chart decides anything
//! in the browser.

use super::cdf::Cdf;
use super::series::{Mark, Role, SeriesChart};
use super::{Axis, Legend, Units, Words};
use crate::format;

/// A colour as what it shows (the page's palette says which colour).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ink {
    /// A traffic class's colour.
    Class(usize),
    /// A run's line in a legend (the profile's dark line colour).
    Run,
    /// A reference line (the batch limit).
    Reference,
    /// The series charts' raw throughput (the profile's light line colour).
    Throughput,
    Goodput,
    Queue,
    Batch,
    Kv,
    /// A sweep's raw throughput (the same light grey in every profile).
    SweepThroughput,
    /// A sweep's p99 TTFT.
    SweepTtft,
    /// A sweep's knee.
    Knee,
    /// A sweep's TTFT objective.
    Slo,
}

/// A line's dash pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dash {
    Solid,
    /// Run B's lines (run A's are solid).
    RunB,
    /// TTFT over every arrival (a lower bound), and the reference lines.
    Dots,
}

impl Dash {
    /// A run's dash: solid for the first, dashed for the second.
    pub fn of_run(run: usize) -> Dash {
        if run == 0 {
            Dash::Solid
        } else {
            Dash::RunB
        }
    }
}

/// One mark, in data coordinates; labels already in the page's language.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Line {
        points: Vec<(f64, f64)>,
        ink: Ink,
        dash: Dash,
        width: f64,
    },
    /// A filled dot ringed with the background (a sweep's measured point).
    Dot {
        at: (f64, f64),
        ink: Ink,
        radius: f64,
    },
    /// A vertical reference line with a label near its foot.
    VLine {
        x: f64,
        ink: Ink,
        label: String,
    },
    /// A horizontal reference line with a label.
    HLine {
        y: f64,
        ink: Ink,
        label: String,
    },
    /// A legend entry; a class's carries its glyph.
    Legend {
        label: String,
        ink: Ink,
        dash: Dash,
        glyph: Option<usize>,
    },
    /// Legend entries from here on stack up from the bottom right.
    LegendAtBottom,
    /// A note in the middle of the plot.
    Note(String),
}

/// A chart to paint.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub title: String,
    pub x: Axis,
    pub x_units: Units,
    pub y: Axis,
    pub y_units: Units,
    pub items: Vec<Item>,
}

impl Figure {
    pub fn new(title: String, (x, x_units): (Axis, Units), (y, y_units): (Axis, Units)) -> Figure {
        Figure { title, x, x_units, y, y_units, items: Vec::new() }
    }

    pub fn line(&mut self, points: &[(f64, f64)], ink: Ink, dash: Dash, width: f64) {
        self.items.push(Item::Line { points: points.to_vec(), ink, dash, width });
    }

    pub fn dots(&mut self, points: &[(f64, f64)], ink: Ink, radius: f64) {
        self.items.extend(points.iter().map(|&at| Item::Dot { at, ink, radius }));
    }

    pub fn legend(&mut self, label: String, ink: Ink, dash: Dash) {
        self.items.push(Item::Legend { label, ink, dash, glyph: None });
    }

    pub fn note(&mut self, note: Option<String>) {
        self.items.extend(note.map(Item::Note));
    }

    /// A chart's legend entries: a class with its glyph, a run with its dash, a named line.
    fn legends(&mut self, entries: &[Legend], w: &dyn Words) {
        for entry in entries {
            self.items.push(match entry {
                Legend::Class(name, c) => {
                    Item::Legend { label: name.clone(), ink: Ink::Class(*c), dash: Dash::Solid, glyph: Some(*c) }
                }
                Legend::Run(label, r) => {
                    Item::Legend { label: label.clone(), ink: Ink::Run, dash: Dash::of_run(*r), glyph: None }
                }
                Legend::Key(key) => {
                    let (ink, dash) = match *key {
                        "chart.legend_throughput" => (Ink::Throughput, Dash::Solid),
                        "chart.legend_goodput" => (Ink::Goodput, Dash::Solid),
                        "chart.legend_all_arrivals" => (Ink::Run, Dash::Dots),
                        _ => (Ink::Run, Dash::Solid),
                    };
                    Item::Legend { label: w.t(key), ink, dash, glyph: None }
                }
            });
        }
    }
}

impl Cdf {
    /// The CDF painted: the note, the answered curves (a class's colour, a run's dash), the
    /// every-arrival bounds dotted, each class's SLO line, the legend at the bottom right.
    pub fn figure(&self, title: String, w: &dyn Words) -> Figure {
        let share = Axis::Linear { min: 0.0, max: 1.0 };
        let mut f = Figure::new(title, (self.x, Units::Ms), (share, Units::Share));
        f.note(self.note.map(|k| w.t(k)));
        f.items.push(Item::LegendAtBottom);
        for c in &self.curves {
            f.line(&c.line(), Ink::Class(c.class), Dash::of_run(c.run), 2.0);
        }
        for c in &self.bounds {
            f.line(&c.line(), Ink::Class(c.class), Dash::Dots, 1.5);
        }
        for &(c, v) in &self.slos {
            f.items.push(Item::VLine { x: v, ink: Ink::Class(c), label: format!("SLO {}", format::ms(v)) });
        }
        f.legends(&self.legend, w);
        f
    }
}

impl SeriesChart {
    /// The series painted: each run's lines (thick light throughput under thin goodput), the
    /// batch limit, the legend, the note of an empty chart.
    pub fn figure(&self, title: String, w: &dyn Words) -> Figure {
        let mut f = Figure::new(title, (self.x, Units::Seconds), (self.y, self.y_units));
        for mark in &self.marks {
            match mark {
                Mark::Line(run, role, points) => {
                    let (ink, width) = match role {
                        Role::Queue => (Ink::Queue, 1.8),
                        Role::Batch => (Ink::Batch, 1.8),
                        Role::Kv => (Ink::Kv, 1.8),
                        Role::Throughput => (Ink::Throughput, 3.0),
                        Role::Goodput => (Ink::Goodput, 1.4),
                    };
                    f.line(points, ink, Dash::of_run(*run), width);
                }
                Mark::Limit(y, label) => f.items.push(Item::HLine { y: *y, ink: Ink::Reference, label: label.clone() }),
            }
        }
        f.legends(&self.legend, w);
        f.note(self.note.map(|k| w.t(k)));
        f
    }
}
