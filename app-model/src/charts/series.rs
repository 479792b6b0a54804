//! The time-series charts over simulated time (queue, batch, KV fill, throughput beside
//! goodput): each run's lines from time 0, the batch limit's reference line, round axes covering
//! them; and the chart in words.

use sim_core::{Sample, Simulation};

use super::{run_legend, Axis, ChartInput, ChartText, Legend, Units, Words};
use crate::format;

/// Most rows of a chart's data table, per run.
const TABLE_ROWS: usize = 20;

/// Which series.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Of {
    Queue,
    Batch,
    Kv,
    Goodput,
}

/// What a line shows (the page picks its colour and width).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Queue,
    Batch,
    Kv,
    Throughput,
    Goodput,
}

impl Role {
    /// Its value in a sample (KV fill as a share).
    fn of(self, s: &Sample) -> f64 {
        match self {
            Role::Queue => s.queue_len,
            Role::Batch => s.running,
            Role::Kv => s.kv_fill,
            Role::Throughput => s.throughput_tok_s,
            Role::Goodput => s.goodput_tok_s,
        }
    }

    /// Its name in a legend and a table head (a translation key), or none (the chart's title).
    fn key(self) -> Option<&'static str> {
        match self {
            Role::Throughput => Some("chart.legend_throughput"),
            Role::Goodput => Some("chart.legend_goodput"),
            _ => None,
        }
    }
}

impl Of {
    fn roles(self) -> &'static [Role] {
        match self {
            Of::Queue => &[Role::Queue],
            Of::Batch => &[Role::Batch],
            Of::Kv => &[Role::Kv],
            Of::Goodput => &[Role::Throughput, Role::Goodput],
        }
    }

    /// The value plotted (KV fill in percent).
    fn plotted(self, role: Role, s: &Sample) -> f64 {
        if self == Of::Kv {
            role.of(s) * 100.0
        } else {
            role.of(s)
        }
    }

    /// A value as the summary and table say it.
    fn said(self, v: f64) -> String {
        match self {
            Of::Kv => format::pct(v),
            Of::Goodput => format!("{} tok/s", format::rate(v)),
            _ => format::rate(v),
        }
    }

    /// The chart's full title where it is longer than its canvas's name.
    pub fn title_key(self) -> Option<&'static str> {
        match self {
            Of::Goodput => Some("chart.goodput_full"),
            Of::Kv => Some("chart.kv_full"),
            _ => None,
        }
    }
}

/// What the chart draws, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Mark {
    /// A run's line: run, role, points (s, value).
    Line(usize, Role, Vec<(f64, f64)>),
    /// A reference line at a value with its label.
    Limit(f64, String),
}

/// A time-series chart.
#[derive(Clone, Debug, PartialEq)]
pub struct SeriesChart {
    pub of: Of,
    pub x: Axis,
    pub y: Axis,
    pub y_units: Units,
    pub marks: Vec<Mark>,
    pub legend: Vec<Legend>,
    /// A note in the empty plot (a translation key).
    pub note: Option<&'static str>,
}

/// The most sequences a run can hold at once, and its label: `max_num_seqs`, times the replicas
/// of a cluster (the batch series counts every replica's).
pub fn batch_limit(sim: &Simulation) -> (f64, String) {
    let per = sim.scenario().scheduler.max_num_seqs;
    let n = sim.replica_count();
    let label = if n > 1 {
        format!("max_num_seqs {} × {n}", format::int(u64::from(per)))
    } else {
        format!("max_num_seqs {}", format::int(u64::from(per)))
    };
    (f64::from(per) * n as f64, label)
}

impl SeriesChart {
    pub fn new(input: &ChartInput<'_>, of: Of) -> SeriesChart {
        let (mut t_max, mut y_max) = (0.0f64, 0.0f64);
        let mut marks = Vec::new();
        for (run, (_, sim)) in input.runs.iter().enumerate() {
            let series = sim.series();
            for s in series.iter() {
                t_max = t_max.max(s.t_s);
                y_max = of.roles().iter().map(|&r| of.plotted(r, s)).fold(y_max, f64::max);
            }
            for &role in of.roles() {
                let f = |s: &Sample| of.plotted(role, s);
                let mut v = Vec::with_capacity(series.len() + 1);
                v.push((0.0, series.first().map_or(0.0, f)));
                v.extend(series.iter().map(|s| (s.t_s, f(s))));
                marks.push(Mark::Line(run, role, v));
            }
            if of == Of::Batch {
                let limit = batch_limit(sim);
                y_max = y_max.max(limit.0);
                if run == 0 || limit != batch_limit(input.runs[0].1) {
                    marks.push(Mark::Limit(limit.0, limit.1));
                }
            }
        }
        let (y, y_units) = match of {
            Of::Kv => (Axis::Linear { min: 0.0, max: 100.0 }, Units::Percent),
            _ => (Axis::zero_to(y_max.max(1.0)), Units::Count),
        };
        let mut legend: Vec<Legend> = of.roles().iter().filter_map(|r| r.key()).map(Legend::Key).collect();
        legend.extend(run_legend(input));
        let empty = input.runs.iter().all(|(_, s)| s.series().is_empty());
        SeriesChart {
            of,
            x: Axis::zero_to(t_max.max(1.0)),
            y,
            y_units,
            marks,
            legend,
            note: empty.then_some("chart.first_sample"),
        }
    }

    /// The chart in words (`title` translated, the full one): each line's value now and its
    /// peak over the time shown; with `table`, every n-th sample (at most 20 per run, ending on
    /// the last).
    pub fn text(&self, input: &ChartInput<'_>, title: &str, w: &dyn Words, table: bool) -> ChartText {
        let of = self.of;
        let multi = input.runs.len() > 1;
        let mut parts = Vec::new();
        for (ri, (label, sim)) in input.runs.iter().enumerate() {
            let series = sim.series();
            let Some(last) = series.last() else { continue };
            for &role in of.roles() {
                let name = match role.key() {
                    None => input.name(ri, None, title),
                    Some(key) if multi => format!("{label} · {}", w.t(key)),
                    Some(key) => w.t(key),
                };
                let peak = series.iter().map(|s| role.of(s)).fold(0.0f64, f64::max);
                let key = if name == title { "a11y.series_one" } else { "a11y.series_line" };
                parts.push(w.tf(key, &[("name", name), ("now", of.said(role.of(last))), ("peak", of.said(peak))]));
            }
            if of == Of::Batch {
                parts.push(batch_limit(sim).1);
            }
        }
        let span = input.runs.iter().filter_map(|(_, s)| s.series().last().map(|x| x.t_s)).fold(0.0f64, f64::max);
        let text = if parts.is_empty() {
            w.t("chart.first_sample")
        } else {
            w.tf("a11y.series_span", &[("span", format::sim_time(span)), ("lines", parts.join("; "))])
        };
        let summary = w.tf("a11y.chart_summary", &[("title", title.to_string()), ("text", text)]);
        if !table {
            return ChartText { summary, ..ChartText::default() };
        }
        let mut head = Vec::new();
        if multi {
            head.push(w.t("a11y.col_run"));
        }
        head.push(w.t("a11y.col_time"));
        head.extend(of.roles().iter().map(|r| r.key().map_or_else(|| title.to_string(), |k| w.t(k))));
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
                row.extend(of.roles().iter().map(|r| of.said(r.of(s))));
                rows.push(row);
            }
        }
        ChartText { summary, head, rows }
    }
}
