//! Sweeps: the same scenario at a series of values of one knob (offered load, batch size,
//! memory utilisation, …), one summary per point. Time-sliced: `step` runs a bounded number of
//! events, so a page can sweep without freezing and a user can cancel between slices.

use crate::metrics::Summary;
use crate::scenario::{Arrival, Scenario, ScenarioError};
use crate::sim::Simulation;
use serde::{Deserialize, Serialize};

/// The knob a sweep turns.
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
}

impl SweepParam {
    pub const ALL: [SweepParam; 4] = [
        SweepParam::RatePerS,
        SweepParam::MaxNumSeqs,
        SweepParam::GpuMemoryUtilization,
        SweepParam::MaxNumBatchedTokens,
    ];

    pub fn id(self) -> &'static str {
        match self {
            SweepParam::RatePerS => "rate_per_s",
            SweepParam::MaxNumSeqs => "max_num_seqs",
            SweepParam::GpuMemoryUtilization => "gpu_memory_utilization",
            SweepParam::MaxNumBatchedTokens => "max_num_batched_tokens",
        }
    }

    pub fn parse(s: &str) -> Option<SweepParam> {
        SweepParam::ALL.into_iter().find(|p| p.id() == s)
    }

    /// The scenario with this knob set to `v` (validated).
    pub fn apply(self, base: &Scenario, v: f64) -> Result<Scenario, ScenarioError> {
        let mut s = base.clone();
        match self {
            SweepParam::RatePerS => {
                let total = offered_rate(base);
                if total <= 0.0 {
                    return Err(ScenarioError::one("classes", "have no open-loop rate to scale"));
                }
                let f = v / total;
                for c in &mut s.classes {
                    match &mut c.arrival {
                        Arrival::Poisson { rate_per_s } | Arrival::Bursty { rate_per_s, .. } => *rate_per_s *= f,
                        Arrival::ClosedLoop { users, .. } => *users = ((*users as f64 * f).round() as u32).max(1),
                        Arrival::Trace { speedup, .. } => *speedup *= f,
                    }
                }
            }
            SweepParam::MaxNumSeqs => s.scheduler.max_num_seqs = v.round() as u32,
            SweepParam::GpuMemoryUtilization => s.gpu_memory_utilization = v,
            SweepParam::MaxNumBatchedTokens => s.scheduler.max_num_batched_tokens = v.round() as u32,
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
    pub error: Option<String>,
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
            return Err(ScenarioError::one("steps", format!("must be 1..=200, got {steps}")));
        }
        if !from.is_finite() || !to.is_finite() || from <= 0.0 || to <= 0.0 {
            return Err(ScenarioError::one(
                "from",
                format!("from and to must be positive numbers, got {from} and {to}"),
            ));
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
                        self.points.push(SweepPoint { value: v, summary: None, error: Some(e.to_string()) });
                        continue;
                    }
                }
            }
            let sim = self.current.as_mut().expect("set above");
            events -= sim.advance_events(events);
            if sim.is_finished() {
                let v = self.values[self.next - 1];
                self.points.push(SweepPoint { value: v, summary: Some(sim.summary()), error: None });
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

/// CSV header and rows for a finished sweep (the CLI's `llmsim sweep` output).
pub fn to_csv(param: SweepParam, points: &[SweepPoint]) -> String {
    let mut out = format!(
        "{},completed,rejected,timed_out,failed,preempted,oom_restarts,throughput_tok_s,goodput_tok_s,goodput_req_s,slo_attainment,ttft_p50_ms,ttft_p99_ms,tpot_p50_ms,tpot_p99_ms,e2e_p99_ms,kv_peak_gib,usd_per_m_tokens,usd_per_m_good_tokens,error\n",
        param.id()
    );
    for p in points {
        match &p.summary {
            Some(s) => out.push_str(&format!(
                "{},{},{},{},{},{},{},{:.1},{:.1},{:.3},{:.4},{:.1},{:.1},{:.2},{:.2},{:.1},{:.2},{:.4},{:.4},\n",
                p.value,
                s.all.requests.completed,
                s.all.requests.rejected,
                s.all.requests.timed_out,
                s.all.requests.failed,
                s.all.requests.preempted,
                s.all.requests.oom_restarts,
                s.all.throughput.output_tokens_per_s,
                s.all.goodput.output_tokens_per_s,
                s.all.goodput.requests_per_s,
                s.all.goodput.slo_attainment,
                s.all.ttft_ms.p50,
                s.all.ttft_ms.p99,
                s.all.tpot_ms.p50,
                s.all.tpot_ms.p99,
                s.all.e2e_ms.p99,
                s.memory.kv_peak_bytes / (1u64 << 30) as f64,
                s.cost.usd_per_million_output_tokens,
                s.cost.usd_per_million_good_tokens,
            )),
            None => out.push_str(&format!(
                "{},,,,,,,,,,,,,,,,,,,\"{}\"\n",
                p.value,
                p.error.as_deref().unwrap_or("").replace('"', "'")
            )),
        }
    }
    out
}
