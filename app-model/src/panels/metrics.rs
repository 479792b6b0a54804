//! The live metrics panel as data: which latency lines it shows (TTFT, TPOT, ITL, E2E, and for
//! TTFT and E2E the every-arrival view beneath), which columns, each cell's text and whether it
//! is over the SLO, what each line is counted over, B's marks against run A, throughput beside
//! goodput, SLO attainment, cost and the counts; and the embedded page's key numbers. Built from
//! a summary, the selected class, its SLO and (for run B in A/B mode) run A's summary; the page
//! only maps it to elements.

use sim_core::metric::{Censorable, CensoredStat, Count, Latency, Metric, Stat};
use sim_core::metrics::{ClassSummary, Summary};
use sim_core::scenario::{Scenario, Slo};

use super::defs;
use crate::ab::{self, Change};
use crate::format;
use crate::limit_badge::Text;

/// What a latency line reads: the answered-only distribution, or the every-arrival view (the
/// unanswered at a lower bound, shown as "≥").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    Answered,
    EveryArrival(Censorable),
}

/// One line of the latency table, as the page lays it out.
#[derive(Clone, Copy, Debug)]
pub struct LineSpec {
    /// The latency's key in test ids (`ttft`).
    pub key: &'static str,
    /// Its label and definition (translation keys, or text shown as written).
    pub label: &'static str,
    pub def: &'static str,
    pub latency: Latency,
    pub view: View,
}

impl LineSpec {
    /// Whether it is the every-arrival line beneath its latency's.
    pub fn every_arrival(&self) -> bool {
        self.view != View::Answered
    }

    /// The test id of one of its parts: a column (`p99`), `over` or `slo`
    /// (`metric-ttft-p99`, `metric-ttft-censored-over`).
    pub fn id(&self, part: &str) -> String {
        match self.view {
            View::Answered => format!("metric-{}-{part}", self.key),
            View::EveryArrival(_) => format!("metric-{}-censored-{part}", self.key),
        }
    }

    /// The test id of its key number's value (`key-ttft-value`), in the key numbers above the
    /// stage or in the phone's bar.
    pub fn key_value_id(&self) -> String {
        format!("key-{}-value", self.key)
    }

    /// The test id of its mark against run A (`vs-ttft-p99`, `vs-ttft-censored-p99`).
    pub fn vs_id(&self) -> String {
        match self.view {
            View::Answered => format!("vs-{}-p99", self.key),
            View::EveryArrival(_) => format!("vs-{}-censored-p99", self.key),
        }
    }

    /// The metric of its statistic `stat`.
    pub fn metric(&self, stat: Stat) -> Metric {
        match self.view {
            View::Answered => Metric::Latency(self.latency, stat),
            View::EveryArrival(v) => Metric::Censored(v, CensoredStat::Stat(stat)),
        }
    }

    /// Its statistic `stat` in `c`, or `None` while nothing is counted.
    pub fn read(&self, c: &ClassSummary, stat: Stat) -> Option<f64> {
        (self.metric(Stat::Count).of_class(c)? > 0.0).then(|| self.metric(stat).of_class(c)).flatten()
    }

    /// Whether its figures are lower bounds now (some requests counted without an answer).
    fn bounded(&self, c: &ClassSummary) -> bool {
        match self.view {
            View::Answered => false,
            View::EveryArrival(v) => Metric::Censored(v, CensoredStat::Censored).of_class(c).is_some_and(|k| k > 0.0),
        }
    }

    /// Its statistic `stat` as the panel shows it: "—" while nothing is counted, "≥ …" for a
    /// lower bound.
    pub fn text(&self, c: &ClassSummary, stat: Stat) -> String {
        match self.read(c, stat) {
            None => format::NONE.to_string(),
            Some(v) if self.bounded(c) => format!("≥ {}", format::ms(v)),
            Some(v) => format::ms(v),
        }
    }
}

/// The latency table's lines, top to bottom.
pub const LINES: [LineSpec; 6] = [
    LineSpec { key: "ttft", label: "TTFT", def: defs::TTFT, latency: Latency::Ttft, view: View::Answered },
    LineSpec {
        key: "ttft",
        label: "metrics.ttft_all",
        def: defs::TTFT_CENSORED,
        latency: Latency::Ttft,
        view: View::EveryArrival(Censorable::Ttft),
    },
    LineSpec { key: "tpot", label: "TPOT", def: defs::TPOT, latency: Latency::Tpot, view: View::Answered },
    LineSpec { key: "itl", label: "ITL", def: defs::ITL, latency: Latency::Itl, view: View::Answered },
    LineSpec { key: "e2e", label: "E2E", def: defs::E2E, latency: Latency::E2e, view: View::Answered },
    LineSpec {
        key: "e2e",
        label: "metrics.e2e_all",
        def: defs::E2E_CENSORED,
        latency: Latency::E2e,
        view: View::EveryArrival(Censorable::E2e),
    },
];

/// The table's columns: test id part, statistic, label and definition.
/// The test id of the key numbers' goodput value.
pub const GOODPUT_VALUE_ID: &str = "key-goodput-value";

/// The latency lines (indices into [`LINES`]) whose p99 the key numbers show: TTFT and TPOT.
pub const KEY_LINES: [usize; 2] = [0, 2];

pub const COLUMNS: [(&str, Stat, &str, &str); 4] = [
    ("p50", Stat::P50, "p50", defs::P50),
    ("p95", Stat::P95, "p95", defs::P95),
    ("p99", Stat::P99, "p99", defs::P99),
    ("mean", Stat::Mean, "metrics.mean", defs::MEAN),
];

/// The counts of what happened to requests: test id part, label, definition, count.
pub const COUNTS: [(&str, &str, &str, Count); 7] = [
    ("completed", "metrics.completed", defs::COMPLETED, Count::Completed),
    ("in-flight", "metrics.in_flight", defs::IN_FLIGHT, Count::InFlight),
    ("rejected", "metrics.rejected", defs::REJECTED, Count::Rejected),
    ("timed-out", "metrics.timed_out", defs::TIMED_OUT, Count::TimedOut),
    ("preempted", "metrics.preempted", defs::PREEMPTED, Count::Preempted),
    ("oom-restarts", "metrics.oom_restarts", defs::OOM, Count::OomRestarts),
    ("failed", "metrics.failed", defs::FAILED, Count::Failed),
];

/// The big figures beside the table: test id part, metric, label, definition.
pub const FIGURES: [(&str, Metric, &str, &str); 5] = [
    ("throughput", Metric::ThroughputTokens, "metrics.throughput", defs::THROUGHPUT),
    ("goodput", Metric::GoodputTokens, "metrics.goodput", defs::GOODPUT),
    ("slo-attainment", Metric::SloAttainment, "metrics.slo_attainment", defs::SLO_ATTAINMENT),
    ("cost-output", Metric::UsdPerMillionOutputTokens, "metrics.cost_output", defs::COST_OUTPUT),
    ("cost-good", Metric::UsdPerMillionGoodTokens, "metrics.cost_good", defs::COST_GOOD),
];

/// Indexes into [`FIGURES`].
pub const THROUGHPUT: usize = 0;
pub const GOODPUT: usize = 1;
pub const SLO_ATTAINMENT: usize = 2;
pub const COST_OUTPUT: usize = 3;
pub const COST_GOOD: usize = 4;

/// The part of a summary the panel shows: one class, or all traffic with the run's own figures
/// (cost, disaggregation's transfers).
#[derive(Clone, Copy)]
pub struct Part<'a> {
    pub class: &'a ClassSummary,
    /// The whole run, when all traffic is shown.
    pub run: Option<&'a Summary>,
}

impl<'a> Part<'a> {
    /// Class `name` of `s` when it has one by that name, else all traffic.
    pub fn of(s: &'a Summary, name: Option<&str>) -> Part<'a> {
        match name.and_then(|n| s.classes.get(n)) {
            Some(class) => Part { class, run: None },
            None => Part { class: &s.all, run: Some(s) },
        }
    }

    /// A number the panel shows or compares, `None` when there is none to show: a run figure
    /// of one class, SLO attainment before anything ended.
    pub fn read(&self, m: Metric) -> Option<f64> {
        match m {
            Metric::SloAttainment if Count::Ended.of(&self.class.requests) == 0 => None,
            m if m.per_class() => m.of_class(self.class),
            m => self.run.map(|s| m.of(s)),
        }
    }

    /// Goodput's share of the output-token throughput, in [0, 1] (0 while nothing came out).
    pub fn goodput_share(&self) -> f64 {
        Metric::GoodputShare.of_class(self.class).unwrap_or(0.0).clamp(0.0, 1.0)
    }
}

/// The SLO the panel marks misses against: the selected class's, or with all traffic shown the
/// only class's (several classes have no one SLO).
pub fn slo_of(s: &Scenario, class: Option<usize>) -> Option<&Slo> {
    match class {
        Some(c) => s.classes.get(c),
        None if s.classes.len() == 1 => s.classes.first(),
        None => None,
    }
    .map(|c| &c.slo)
}

/// One cell of the latency table.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub text: String,
    /// Over the SLO (red, ▲).
    pub over: bool,
}

/// One latency line's numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// "SLO 500 ms", or "" without one.
    pub slo: String,
    /// The SLO is missed at p99 by either view (marked on the answered-only line).
    pub missed: bool,
    /// What its figures are counted over ("over 12 of 14 ended"); none before the first numbers.
    pub counted: Option<Text>,
    pub cells: Vec<Cell>,
    /// B against A at p99.
    pub vs: Option<Change>,
}

/// A big figure: its text, a second line beneath (requests per second), B against A.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub text: String,
    pub sub: String,
    pub vs: Option<Change>,
}

/// A key number of the embedded page (p99 TTFT and TPOT).
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    pub slo: String,
    pub value: String,
    pub missed: bool,
    /// The every-arrival lower bound while some are unanswered, else what it is over.
    pub sub: Option<Text>,
}

/// The whole panel's numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    /// Run A is shown beside (the "vs A" column and marks).
    pub against_a: bool,
    /// In [`LINES`] order.
    pub lines: Vec<Line>,
    /// In [`FIGURES`] order.
    pub figures: Vec<Figure>,
    /// Goodput's share of throughput (the bar).
    pub goodput_share: f64,
    /// Cost is shown (all traffic; or nothing yet).
    pub has_cost: bool,
    pub prefix_cache: Option<Text>,
    pub kv_transfer: Option<Text>,
    /// In [`COUNTS`] order.
    pub counts: Vec<String>,
    /// p99 TTFT and p99 TPOT: the lines [`KEY_LINES`] at p99.
    pub keys: [Key; 2],
    /// The key numbers' goodput and the throughput beneath it.
    pub key_goodput: String,
    pub key_throughput: Option<Text>,
}

fn text(key: &'static str, args: Vec<(&'static str, String)>) -> Text {
    Text { key, args }
}

fn slo_text(slo: Option<&Slo>, l: Latency) -> String {
    slo.and_then(|s| s.limit_ms(l)).map(|v| format!("SLO {}", format::ms(v))).unwrap_or_default()
}

fn tokens_per_s(v: Option<f64>) -> String {
    v.map_or_else(|| format::NONE.to_string(), |v| format!("{} tok/s", format::rate(v)))
}

impl Panel {
    /// Its numbers by the test id of the element that shows each — the latency table's cells
    /// (`metric-ttft-p99`), the key numbers' values (`key-ttft-value`) and goodput (`key-goodput-value`):
    /// what the first-frame module writes into the page's static layout before the page mounts.
    pub fn numbers(&self) -> Vec<(String, String)> {
        let mut out = Vec::with_capacity(LINES.len() * COLUMNS.len() + 3);
        for (spec, line) in LINES.iter().zip(&self.lines) {
            for (col, cell) in COLUMNS.iter().zip(&line.cells) {
                out.push((spec.id(col.0), cell.text.clone()));
            }
        }
        for (k, key) in KEY_LINES.iter().zip(&self.keys) {
            out.push((LINES[*k].key_value_id(), key.value.clone()));
        }
        out.push((GOODPUT_VALUE_ID.to_string(), self.key_goodput.clone()));
        out
    }

    /// The panel of a run on screen whose scenario and class names are `run` (none yet: `None`):
    /// the part of its summary `shown` for class `class` (an index into its classes; all traffic
    /// when it has no such class), that class's SLO (or the only class's), and against run A's
    /// summary `a` for the same class (run B in A/B mode).
    pub fn of_run(
        run: Option<(&Scenario, &[String])>,
        class: Option<usize>,
        shown: Option<&Summary>,
        a: Option<&Summary>,
    ) -> Panel {
        let name = run.zip(class).and_then(|((_, names), c)| names.get(c)).map(String::as_str);
        let slo = run.and_then(|(s, _)| slo_of(s, class));
        Panel::new(shown.map(|s| Part::of(s, name)), slo, a.map(|s| Part::of(s, name)))
    }

    /// The panel for `shown` (nothing yet: `None`), the SLO of its class, and run A's part to
    /// compare with (run B in A/B mode).
    pub fn new(shown: Option<Part<'_>>, slo: Option<&Slo>, a: Option<Part<'_>>) -> Panel {
        let vs = |m: Metric, read: &dyn Fn(&Part<'_>) -> Option<f64>| -> Option<Change> {
            Some(ab::compare(m, read(a.as_ref()?)?, read(shown.as_ref()?)?))
        };
        let lines = LINES
            .iter()
            .map(|spec| {
                let limit = slo.and_then(|s| s.limit_ms(spec.latency));
                let cells = COLUMNS
                    .iter()
                    .map(|&(_, stat, _, _)| match shown {
                        None => Cell { text: format::NONE.to_string(), over: false },
                        Some(p) => Cell {
                            text: spec.text(p.class, stat),
                            over: limit.zip(spec.read(p.class, stat)).is_some_and(|(l, v)| v > l),
                        },
                    })
                    .collect();
                let counted = shown.map(|p| counted(spec, p.class));
                Line {
                    slo: if spec.every_arrival() { String::new() } else { slo_text(slo, spec.latency) },
                    missed: !spec.every_arrival()
                        && shown.is_some_and(|p| slo.is_some_and(|s| s.missed_at_p99(spec.latency, p.class))),
                    counted,
                    cells,
                    vs: vs(spec.metric(Stat::P99), &|p| spec.read(p.class, Stat::P99)),
                }
            })
            .collect();
        let rate = |m: Metric, unit: &str| {
            shown
                .and_then(|p| p.read(m))
                .map_or_else(|| format::NONE.to_string(), |v| format!("{} {unit}", format::rate(v)))
        };
        let figures = FIGURES
            .iter()
            .map(|&(key, m, _, _)| {
                let value = shown.as_ref().and_then(|p| p.read(m));
                let (text, sub) = match key {
                    "throughput" => (tokens_per_s(value), rate(Metric::ThroughputRequests, "req/s")),
                    "goodput" => (tokens_per_s(value), rate(Metric::GoodputRequests, "req/s")),
                    "slo-attainment" => (value.map_or_else(|| format::NONE.to_string(), format::pct), String::new()),
                    _ => (value.map_or_else(|| format::NONE.to_string(), format::usd), String::new()),
                };
                Figure { text, sub, vs: vs(m, &|p| p.read(m)) }
            })
            .collect();
        let prefix_cache = shown.and_then(|p| p.class.prefix_cache).map(|_| {
            let p = shown.expect("shown");
            let n = |m: Metric| p.read(m).unwrap_or(0.0);
            text(
                "metrics.prefix_cache_value",
                vec![
                    ("rate", format::pct(n(Metric::PrefixHitRate))),
                    ("tokens", format::int(n(Metric::PrefixCachedTokens) as u64)),
                    ("evicted", format::int(n(Metric::PrefixEvictedBlocks) as u64)),
                ],
            )
        });
        let kv_transfer = shown.and_then(|p| p.run).and_then(|s| s.disaggregation).map(|d| {
            text(
                "metrics.kv_transfer_value",
                vec![
                    ("mean", format::ms(d.kv_transfer_ms.mean)),
                    ("p99", format::ms(d.kv_transfer_ms.p99)),
                    ("n", format::int(d.transfers)),
                    ("wait", format::ms(d.link_wait_ms.mean)),
                ],
            )
        });
        let counts = COUNTS
            .iter()
            .map(|&(_, _, _, n)| {
                shown.map_or_else(|| format::NONE.to_string(), |p| format::int(n.of(&p.class.requests)))
            })
            .collect();
        let key = |i: usize| {
            let spec = &LINES[i];
            let every = LINES.iter().find(|l| l.latency == spec.latency && l.every_arrival());
            Key {
                slo: slo_text(slo, spec.latency),
                value: shown.map_or_else(|| format::NONE.to_string(), |p| spec.text(p.class, Stat::P99)),
                missed: shown.is_some_and(|p| slo.is_some_and(|s| s.missed_at_p99(spec.latency, p.class))),
                sub: shown.map(|p| match every.filter(|e| e.bounded(p.class)) {
                    Some(e) => text("metrics.key_all", vec![("v", e.text(p.class, Stat::P99))]),
                    None => text("metrics.key_over", over_ended(spec, p.class)),
                }),
            }
        };
        Panel {
            against_a: a.is_some(),
            lines,
            figures,
            goodput_share: shown.map_or(0.0, |p| p.goodput_share()),
            has_cost: shown.is_none_or(|p| p.run.is_some()),
            prefix_cache,
            kv_transfer,
            counts,
            keys: KEY_LINES.map(key),
            key_goodput: tokens_per_s(shown.and_then(|p| p.read(Metric::GoodputTokens))),
            key_throughput: shown
                .and_then(|p| p.read(Metric::ThroughputTokens))
                .map(|v| text("metrics.key_of_throughput", vec![("x", format::rate(v))])),
        }
    }
}

/// How many a line's figures are counted over and out of how many.
fn over_ended(spec: &LineSpec, c: &ClassSummary) -> Vec<(&'static str, String)> {
    let n = spec.read(c, Stat::Count).unwrap_or(0.0) as u64;
    vec![("n", format::int(n)), ("m", format::int(Count::Ended.of(&c.requests)))]
}

fn counted(spec: &LineSpec, c: &ClassSummary) -> Text {
    match spec.view {
        View::EveryArrival(v) => {
            let d = v.of(c);
            text("metrics.over_all", vec![("m", format::int(d.count)), ("k", format::int(d.censored))])
        }
        View::Answered if spec.latency == Latency::Itl => {
            text("metrics.over_gaps", vec![("n", format::int(spec.latency.of(c).count))])
        }
        View::Answered => text("metrics.over_ended", over_ended(spec, c)),
    }
}

#[cfg(test)]
#[path = "metrics_tests.rs"]
mod tests;
