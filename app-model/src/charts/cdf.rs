//! The latency CDF charts (TTFT, TPOT): a curve per run and class, TTFT's every-arrival curve (a
//! lower bound) where some requests have no answer, the classes' SLO lines, a log axis of whole
//! decades covering them all; and the chart in words.

use super::{run_legend, Axis, ChartInput, ChartText, Legend, Words};
use crate::format;

/// Points per CDF curve: point i is the share (i + 1) / 80.
pub const CDF_POINTS: usize = 80;
/// The table's rows: indexes of [`CDF_POINTS`] points.
const TABLE_ROWS: [usize; 11] = [7, 15, 23, 31, 39, 47, 55, 63, 71, 75, 79];

/// Which latency.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Of {
    Ttft,
    Tpot,
}

/// One curve: run, class, points (ms, share).
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    pub run: usize,
    pub class: usize,
    pub points: Vec<(f64, f64)>,
}

impl Curve {
    /// The line drawn: from share 0 at its first latency, then its points.
    pub fn line(&self) -> Vec<(f64, f64)> {
        let mut line = Vec::with_capacity(self.points.len() + 1);
        if let Some(&(x, _)) = self.points.first() {
            line.push((x, 0.0));
        }
        line.extend_from_slice(&self.points);
        line
    }
}

/// A curve in words: its name, points, and whether its figures are lower bounds.
type Named<'a> = (String, &'a [(f64, f64)], bool);

/// A CDF chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Cdf {
    pub of: Of,
    /// Answered requests' curves (possibly empty: nothing answered yet).
    pub curves: Vec<Curve>,
    /// TTFT over every arrival, only where it differs from the answered-only curve.
    pub bounds: Vec<Curve>,
    /// The classes' SLOs on this latency: (class, ms), each once.
    pub slos: Vec<(usize, f64)>,
    pub x: Axis,
    /// A note in the empty plot (a translation key).
    pub note: Option<&'static str>,
    pub legend: Vec<Legend>,
}

impl Cdf {
    pub fn new(input: &ChartInput<'_>, of: Of) -> Cdf {
        let mut curves = Vec::new();
        let mut bounds = Vec::new();
        let mut slos: Vec<(usize, f64)> = Vec::new();
        for (run, (_, sim)) in input.runs.iter().enumerate() {
            let n = sim.class_names().len();
            let classes: Vec<usize> = match input.class {
                Some(c) if c < n => vec![c],
                _ => (0..n).collect(),
            };
            for class in classes {
                let cls = (n > 1).then_some(class);
                let points = match of {
                    Of::Ttft => sim.ttft_cdf(cls, CDF_POINTS),
                    Of::Tpot => sim.tpot_cdf(cls, CDF_POINTS),
                };
                if of == Of::Ttft {
                    let all = sim.ttft_cdf_censored(cls, CDF_POINTS);
                    // drawn only when it differs: some requests counted at a lower bound
                    if all != points {
                        bounds.push(Curve { run, class, points: all });
                    }
                }
                curves.push(Curve { run, class, points });
                let slo = sim.scenario().classes.get(class).and_then(|c| match of {
                    Of::Ttft => c.slo.ttft_ms,
                    Of::Tpot => c.slo.tpot_ms,
                });
                if let Some(v) = slo {
                    if !slos.iter().any(|&(k, s)| k == class && s == v) {
                        slos.push((class, v));
                    }
                }
            }
        }
        let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
        for c in curves.iter().chain(&bounds) {
            for &(x, _) in c.points.iter().filter(|p| p.0 > 0.0) {
                lo = lo.min(x);
                hi = hi.max(x);
            }
        }
        for &(_, s) in &slos {
            lo = lo.min(s);
            hi = hi.max(s);
        }
        if !lo.is_finite() {
            (lo, hi) = (1.0, 1000.0);
        }
        let note = curves.iter().all(|c| c.points.is_empty()).then_some(if bounds.is_empty() {
            "chart.no_completed"
        } else {
            "chart.no_completed_bound"
        });
        // legend: classes when several, runs when two, the every-arrival curve's dots
        let mut legend = Vec::new();
        let names = input.runs.first().map(|(_, s)| s.class_names().to_vec()).unwrap_or_default();
        if names.len() > 1 && input.class.is_none() {
            legend.extend(names.into_iter().enumerate().map(|(c, name)| Legend::Class(name, c)));
        }
        legend.extend(run_legend(input));
        if !bounds.is_empty() {
            legend.push(Legend::Key("chart.legend_all_arrivals"));
        }
        curves.retain(|c| !c.points.is_empty());
        Cdf { of, curves, bounds, slos, x: Axis::log_decades(lo, hi), note, legend }
    }

    /// The chart in words (`title` translated): each curve's p50, p95 and largest value (the
    /// every-arrival ones as "≥"), the SLOs; with `table`, the table of shares.
    pub fn text(&self, input: &ChartInput<'_>, title: &str, w: &dyn Words, table: bool) -> ChartText {
        let name_of = |c: &Curve| {
            let per_class = input.runs.get(c.run).is_some_and(|(_, s)| s.class_names().len() > 1);
            input.name(c.run, per_class.then_some(c.class), title)
        };
        let all_arrivals = w.t("chart.legend_all_arrivals");
        let named: Vec<Named<'_>> = self
            .curves
            .iter()
            .map(|c| (name_of(c), c.points.as_slice(), false))
            .chain(self.bounds.iter().map(|c| {
                let name = name_of(c);
                let name = if name == title { all_arrivals.clone() } else { format!("{name} · {all_arrivals}") };
                (name, c.points.as_slice(), true)
            }))
            .collect();
        let shown = |v: f64, bound: bool| if bound { format!("≥ {}", format::ms(v)) } else { format::ms(v) };
        let at = |p: &[(f64, f64)], i: usize| p.get(i).or(p.last()).map_or(0.0, |q| q.0);
        let mut parts: Vec<String> = named
            .iter()
            .map(|(name, p, bound)| {
                // a single curve is the chart's own: its name would repeat the title
                let key = if name == title { "a11y.cdf_one" } else { "a11y.cdf_curve" };
                let figure = |i| shown(at(p, i), *bound);
                w.tf(key, &[("name", name.clone()), ("p50", figure(39)), ("p95", figure(75)), ("max", figure(79))])
            })
            .collect();
        if named.is_empty() {
            parts.push(w.t("chart.no_completed"));
        }
        if !self.slos.is_empty() {
            let list = self.slos.iter().map(|&(_, v)| format::ms(v)).collect::<Vec<_>>().join(", ");
            parts.push(w.tf("a11y.chart_slo", &[("slo", list)]));
        }
        let summary = w.tf("a11y.chart_summary", &[("title", title.to_string()), ("text", parts.join("; "))]);
        if !table {
            return ChartText { summary, ..ChartText::default() };
        }
        let mut head = vec![w.t("a11y.col_share")];
        head.extend(named.iter().map(|(n, _, _)| n.clone()));
        let rows = TABLE_ROWS
            .iter()
            .map(|&i| {
                let mut row = vec![format::pct((i + 1) as f64 / CDF_POINTS as f64)];
                row.extend(named.iter().map(|(_, p, bound)| shown(at(p, i), *bound)));
                row
            })
            .collect();
        ChartText { summary, head, rows }
    }
}
