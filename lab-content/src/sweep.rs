//! Sweeps: the same scenario at a series of values of one knob (offered load, batch size,
//! memory utilisation, …), one summary per point. Time-sliced: `step` runs a bounded number of
//! events, so a page can sweep without freezing and a user can cancel between slices.

use serde::{Deserialize, Serialize};
use sim_core::metric::{Count, Latency, Metric, Stat};
use sim_core::metrics::Summary;
use sim_core::scenario::{Arrival, Scenario, ScenarioError};
use sim_core::settings::{self, Setting, Value};
use sim_core::sim::Simulation;

/// The knob a sweep turns: one of the settings table's sweepable rows
/// ([`sim_core::settings::sweepable`]; a test keeps the two lists equal).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SweepParam {
    /// Total offered load in requests/s: every open-loop class's rate scaled by the same factor
    /// (closed-loop users and trace speed likewise).
    RatePerS,
    /// `scheduler.max_num_seqs`.
    MaxNumSeqs,
    /// `gpu_memory_utilization`.
    GpuMemoryUtilization,
    /// `scheduler.max_num_batched_tokens`.
    MaxNumBatchedTokens,
    /// `replicas`: identical colocated replicas behind the router, each `num_gpus` GPUs (not
    /// for a disaggregated scenario, whose pools have their own sizes).
    Replicas,
}

impl SweepParam {
    pub const ALL: [SweepParam; 5] = [
        SweepParam::RatePerS,
        SweepParam::MaxNumSeqs,
        SweepParam::GpuMemoryUtilization,
        SweepParam::MaxNumBatchedTokens,
        SweepParam::Replicas,
    ];

    pub fn id(self) -> &'static str {
        match self {
            SweepParam::RatePerS => "rate_per_s",
            SweepParam::MaxNumSeqs => "max_num_seqs",
            SweepParam::GpuMemoryUtilization => "gpu_memory_utilization",
            SweepParam::MaxNumBatchedTokens => "max_num_batched_tokens",
            SweepParam::Replicas => "replicas",
        }
    }

    /// The settings row this knob turns (its path, unit and ranges).
    pub fn setting(self) -> &'static Setting {
        settings::find(self.id()).expect("every sweep knob is a settings row")
    }

    /// The knob with this id, if the settings table marks it sweepable.
    pub fn parse(s: &str) -> Option<SweepParam> {
        settings::sweepable().find(|r| r.id == s).and_then(|r| SweepParam::ALL.into_iter().find(|p| p.id() == r.id))
    }

    /// The scenario with this knob set to `v` (validated).
    pub fn apply(self, base: &Scenario, v: f64) -> Result<Scenario, ScenarioError> {
        let mut s = base.clone();
        if self == SweepParam::RatePerS {
            let total = offered_rate(base);
            if total <= 0.0 {
                return Err(ScenarioError::one("classes", sim_core::Problem::NoRateToScale));
            }
            let f = v / total;
            for c in &mut s.classes {
                match &mut c.arrival {
                    Arrival::Poisson { rate_per_s } | Arrival::Bursty { rate_per_s, .. } => *rate_per_s *= f,
                    Arrival::ClosedLoop { users, .. } => *users = ((*users as f64 * f).round() as u32).max(1),
                    Arrival::Trace { speedup, .. } => *speedup *= f,
                }
            }
        } else if self == SweepParam::Replicas && base.disaggregation.is_some() {
            return Err(ScenarioError::one("replicas", sim_core::Problem::DoesNotApply));
        } else {
            let row = self.setting();
            let v = if row.number().is_some_and(|n| n.integer) { v.round() } else { v };
            row.set(&mut s, 0, &Value::Number(v)).map_err(|e| ScenarioError { errors: vec![e] })?;
        }
        s.validate()?;
        Ok(s)
    }
}

/// Offered load of the open-loop classes, requests/s (closed-loop users and traces count by
/// their users and their mean rate).
pub fn offered_rate(s: &Scenario) -> f64 {
    s.classes
        .iter()
        .map(|c| match &c.arrival {
            Arrival::Poisson { rate_per_s } | Arrival::Bursty { rate_per_s, .. } => *rate_per_s,
            Arrival::ClosedLoop { users, .. } => *users as f64,
            Arrival::Trace { speedup, .. } => *speedup,
        })
        .sum()
}

/// One point of a sweep: the knob's value and the run's summary (or why it could not run).
#[derive(Clone, Debug, Serialize)]
pub struct SweepPoint {
    pub value: f64,
    pub summary: Option<Summary>,
    /// Why the point could not run, in English (the CSV's and JSON's `error`).
    pub error: Option<String>,
    /// The same as structured problems (field and values), for a page that renders them in its
    /// own language.
    #[serde(skip)]
    pub problem: Option<sim_core::ScenarioError>,
}

/// A sweep in progress.
pub struct Sweep {
    base: Scenario,
    param: SweepParam,
    values: Vec<f64>,
    next: usize,
    current: Option<Simulation>,
    points: Vec<SweepPoint>,
}

impl Sweep {
    /// `steps` evenly spaced values from `from` to `to` (inclusive).
    pub fn new(base: &Scenario, param: SweepParam, from: f64, to: f64, steps: usize) -> Result<Sweep, ScenarioError> {
        if !(1..=200).contains(&steps) {
            return Err(ScenarioError::one(
                "steps",
                sim_core::Problem::Range { min: 1.0, max: 200.0, got: steps as f64 },
            ));
        }
        if !from.is_finite() || !to.is_finite() || from <= 0.0 || to <= 0.0 {
            return Err(ScenarioError::one("from", sim_core::Problem::SweepEnds { from, to }));
        }
        let values = (0..steps)
            .map(|i| if steps == 1 { from } else { from + (to - from) * i as f64 / (steps - 1) as f64 })
            .collect();
        base.validate()?;
        Ok(Sweep { base: base.clone(), param, values, next: 0, current: None, points: Vec::new() })
    }

    pub fn param(&self) -> SweepParam {
        self.param
    }
    pub fn points(&self) -> &[SweepPoint] {
        &self.points
    }
    pub fn total(&self) -> usize {
        self.values.len()
    }
    /// Share done, 0..=1 (points finished plus the running point's simulated progress).
    pub fn progress(&self) -> f64 {
        let n = self.values.len() as f64;
        let partial = self.current.as_ref().map(|s| s.progress()).unwrap_or(0.0);
        ((self.points.len() as f64 + partial) / n).min(1.0)
    }
    pub fn is_done(&self) -> bool {
        self.points.len() == self.values.len()
    }

    /// Processes at most `events` simulation events; returns true when the sweep is complete.
    pub fn step(&mut self, mut events: u64) -> bool {
        while events > 0 && !self.is_done() {
            if self.current.is_none() {
                let v = self.values[self.next];
                self.next += 1;
                match self.param.apply(&self.base, v).and_then(|s| Simulation::new(&s)) {
                    Ok(sim) => self.current = Some(sim),
                    Err(e) => {
                        self.points.push(SweepPoint {
                            value: v,
                            summary: None,
                            error: Some(e.to_string()),
                            problem: Some(e),
                        });
                        continue;
                    }
                }
            }
            let sim = self.current.as_mut().expect("set above");
            events -= sim.advance_events(events);
            if sim.is_finished() {
                let v = self.values[self.next - 1];
                self.points.push(SweepPoint { value: v, summary: Some(sim.summary()), error: None, problem: None });
                self.current = None;
            }
        }
        self.is_done()
    }

    /// Runs to the end.
    pub fn run(mut self) -> Vec<SweepPoint> {
        while !self.step(u64::MAX) {}
        self.points
    }
}

/// The columns of a sweep's CSV: header, metric, divisor, decimals (`None`: a count).
const CSV_COLUMNS: [(&str, Metric, f64, Option<usize>); 18] = [
    ("completed", Metric::Requests(Count::Completed), 1.0, None),
    ("rejected", Metric::Requests(Count::Rejected), 1.0, None),
    ("timed_out", Metric::Requests(Count::TimedOut), 1.0, None),
    ("failed", Metric::Requests(Count::Failed), 1.0, None),
    ("preempted", Metric::Requests(Count::Preempted), 1.0, None),
    ("oom_restarts", Metric::Requests(Count::OomRestarts), 1.0, None),
    ("throughput_tok_s", Metric::ThroughputTokens, 1.0, Some(1)),
    ("goodput_tok_s", Metric::GoodputTokens, 1.0, Some(1)),
    ("goodput_req_s", Metric::GoodputRequests, 1.0, Some(3)),
    ("slo_attainment", Metric::SloAttainment, 1.0, Some(4)),
    ("ttft_p50_ms", Metric::Latency(Latency::Ttft, Stat::P50), 1.0, Some(1)),
    ("ttft_p99_ms", Metric::TTFT_P99, 1.0, Some(1)),
    ("tpot_p50_ms", Metric::Latency(Latency::Tpot, Stat::P50), 1.0, Some(2)),
    ("tpot_p99_ms", Metric::TPOT_P99, 1.0, Some(2)),
    ("e2e_p99_ms", Metric::E2E_P99, 1.0, Some(1)),
    ("kv_peak_gib", Metric::KvPeakBytes, (1u64 << 30) as f64, Some(2)),
    ("usd_per_m_tokens", Metric::UsdPerMillionOutputTokens, 1.0, Some(4)),
    ("usd_per_m_good_tokens", Metric::UsdPerMillionGoodTokens, 1.0, Some(4)),
];

/// CSV header and rows for a finished sweep (the CLI's `llmsim sweep` output).
pub fn to_csv(param: SweepParam, points: &[SweepPoint]) -> String {
    let names: Vec<&str> = CSV_COLUMNS.iter().map(|c| c.0).collect();
    let mut out = format!("{},{},error\n", param.id(), names.join(","));
    for p in points {
        out.push_str(&format!("{},", p.value));
        match &p.summary {
            Some(s) => {
                for (_, m, div, decimals) in CSV_COLUMNS {
                    let v = m.of(s) / div;
                    out.push_str(&match decimals {
                        Some(d) => format!("{v:.d$},"),
                        None => format!("{v},"),
                    });
                }
                out.push('\n');
            }
            None => {
                out.push_str(&",".repeat(CSV_COLUMNS.len()));
                let e = p.error.as_deref().unwrap_or("").replace('"', "'");
                out.push_str(&format!("\"{e}\"\n"));
            }
        }
    }
    out
}
