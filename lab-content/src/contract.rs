//! The inference resource contract: model spec, request limits, resource spec, SLO targets and
//! acceptance metrics — and the acceptance test that checks a configuration against it.
//!
//! The contract fixes the model, hardware and limits; its `workload` says what traffic and
//! scheduler the acceptance run uses. Checking runs that scenario (with the contract's model,
//! GPUs, memory utilisation and limits applied) and compares each target with what was measured.

use crate::sweep::offered_rate;
use serde::{Deserialize, Serialize};
use sim_core::catalog::Dtype;
use sim_core::memory::HbmPlan;
use sim_core::metric::{Count, Latency, Metric, Op, Stat};
use sim_core::metrics::Summary;
use sim_core::scenario::{GpuRef, ModelRef, Scenario, ScenarioError};
use sim_core::sim::{SimOptions, Simulation, TraceLoader};

pub const CONTRACT_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contract {
    pub version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub model: ModelSpecRef,
    pub request_limits: RequestLimits,
    pub resources: Resources,
    pub slo: SloTargets,
    #[serde(default)]
    pub acceptance: Acceptance,
    /// Traffic and scheduler of the acceptance run (a scenario; the contract overrides its
    /// model, GPUs, precision, memory utilisation, `max_model_len` and `max_num_seqs`).
    pub workload: Scenario,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpecRef {
    /// Catalogue id.
    pub id: String,
    pub dtype: Dtype,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kv_dtype: Option<Dtype>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestLimits {
    pub max_input_tokens: u32,
    pub max_output_tokens: u32,
    /// Most requests served at once (the server's `max_num_seqs`).
    pub max_concurrency: u32,
    /// Most requests per second the service accepts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rate_per_s: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Resources {
    pub gpu: String,
    pub num_gpus: u32,
    pub gpu_memory_utilization: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_usd_per_hour: Option<f64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SloTargets {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_p95_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_p99_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpot_p99_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub e2e_p99_ms: Option<f64>,
    /// Floor on goodput, requests/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goodput_min_req_s: Option<f64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Acceptance {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_slo_attainment: Option<f64>,
    /// Most rejected + timed-out + failed requests, as a share of arrivals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_error_rate: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_oom_restarts: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_usd_per_million_good_tokens: Option<f64>,
    /// Least free KV (share of the pool) at the peak: the headroom the contract keeps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_kv_headroom: Option<f64>,
}

/// One line of the acceptance report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckLine {
    /// Contract field, e.g. `slo.ttft_p99_ms`.
    pub field: String,
    pub op: Op,
    pub target: f64,
    pub measured: f64,
    /// The summary number measured, when the line checks one (the request-limit lines check
    /// the HBM plan and the offered load instead).
    pub metric: Option<Metric>,
    pub unit: &'static str,
    pub pass: bool,
}

/// A contract target on a summary number: field, comparison, metric, unit text, target.
type Target = (&'static str, Op, Metric, &'static str, fn(&Contract) -> Option<f64>);

/// Every summary target of a contract, in report order.
const TARGETS: [Target; 9] = [
    ("slo.ttft_p95_ms", Op::AtMost, Metric::Latency(Latency::Ttft, Stat::P95), "ms", |c| c.slo.ttft_p95_ms),
    ("slo.ttft_p99_ms", Op::AtMost, Metric::TTFT_P99, "ms", |c| c.slo.ttft_p99_ms),
    ("slo.tpot_p99_ms", Op::AtMost, Metric::TPOT_P99, "ms", |c| c.slo.tpot_p99_ms),
    ("slo.e2e_p99_ms", Op::AtMost, Metric::E2E_P99, "ms", |c| c.slo.e2e_p99_ms),
    ("acceptance.max_error_rate", Op::AtMost, Metric::ErrorRate, "of requests", |c| c.acceptance.max_error_rate),
    ("acceptance.max_oom_restarts", Op::AtMost, Metric::Requests(Count::OomRestarts), "restarts", |c| {
        c.acceptance.max_oom_restarts.map(|x| x as f64)
    }),
    ("acceptance.max_usd_per_million_good_tokens", Op::AtMost, Metric::UsdPerMillionGoodTokens, "$", |c| {
        c.acceptance.max_usd_per_million_good_tokens
    }),
    ("slo.goodput_min_req_s", Op::AtLeast, Metric::GoodputRequests, "req/s", |c| c.slo.goodput_min_req_s),
    ("acceptance.min_slo_attainment", Op::AtLeast, Metric::SloAttainment, "of requests", |c| {
        c.acceptance.min_slo_attainment
    }),
];

const KV_HEADROOM: Target =
    ("acceptance.min_kv_headroom", Op::AtLeast, Metric::KvFreeAtPeak, "of KV pool free at peak", |c| {
        c.acceptance.min_kv_headroom
    });

#[derive(Clone, Debug, Serialize)]
pub struct ContractReport {
    pub pass: bool,
    pub lines: Vec<CheckLine>,
    pub summary: Summary,
    /// The scenario that was run.
    pub scenario: Scenario,
}

impl Contract {
    pub fn from_json(text: &str) -> Result<Contract, ScenarioError> {
        let c: Contract = sim_core::json_path::from_str(text).map_err(|(path, e)| {
            ScenarioError::one(if path == "." { String::new() } else { path }, sim_core::Problem::parse(&e))
        })?;
        c.validate()?;
        Ok(c)
    }

    pub fn to_json_pretty(&self) -> String {
        sim_core::pretty::to_string_pretty(self).expect("a contract always serialises")
    }

    fn validate(&self) -> Result<(), ScenarioError> {
        let mut errs = Vec::new();
        let mut range = |field: &str, x: f64, lo: f64, hi: f64| {
            if !x.is_finite() || x < lo || x > hi {
                errs.push(sim_core::scenario::FieldError::new(
                    field,
                    sim_core::Problem::Range { min: lo, max: hi, got: x },
                ));
            }
        };
        if self.version != CONTRACT_VERSION {
            range("version", self.version as f64, 1.0, 1.0);
        }
        let l = &self.request_limits;
        range("request_limits.max_input_tokens", l.max_input_tokens as f64, 1.0, 1_048_576.0);
        range("request_limits.max_output_tokens", l.max_output_tokens as f64, 1.0, 1_048_576.0);
        range("request_limits.max_concurrency", l.max_concurrency as f64, 1.0, 4096.0);
        if let Some(r) = l.max_rate_per_s {
            range("request_limits.max_rate_per_s", r, 1e-6, 1e6);
        }
        range("resources.gpu_memory_utilization", self.resources.gpu_memory_utilization, 0.05, 1.0);
        let s = &self.slo;
        for (f, v) in [
            ("slo.ttft_p95_ms", s.ttft_p95_ms),
            ("slo.ttft_p99_ms", s.ttft_p99_ms),
            ("slo.tpot_p99_ms", s.tpot_p99_ms),
            ("slo.e2e_p99_ms", s.e2e_p99_ms),
            ("slo.goodput_min_req_s", s.goodput_min_req_s),
        ] {
            if let Some(v) = v {
                range(f, v, 0.0, 3.6e6);
            }
        }
        let a = &self.acceptance;
        for (f, v, hi) in [
            ("acceptance.min_slo_attainment", a.min_slo_attainment, 1.0),
            ("acceptance.max_error_rate", a.max_error_rate, 1.0),
            ("acceptance.min_kv_headroom", a.min_kv_headroom, 1.0),
            ("acceptance.max_usd_per_million_good_tokens", a.max_usd_per_million_good_tokens, 1e6),
        ] {
            if let Some(v) = v {
                range(f, v, 0.0, hi);
            }
        }
        if errs.is_empty() {
            // the applied scenario must be valid too; its errors name scenario fields
            self.scenario().map(|_| ())
        } else {
            Err(ScenarioError { errors: errs })
        }
    }

    /// The acceptance run's scenario: the workload with the contract applied.
    pub fn scenario(&self) -> Result<Scenario, ScenarioError> {
        let mut s = self.workload.clone();
        s.model = ModelRef::Id(self.model.id.clone());
        s.dtype = self.model.dtype;
        s.kv_dtype = self.model.kv_dtype;
        s.gpu = GpuRef::Id(self.resources.gpu.clone());
        s.num_gpus = self.resources.num_gpus;
        s.gpu_memory_utilization = self.resources.gpu_memory_utilization;
        if let Some(p) = self.resources.gpu_usd_per_hour {
            s.gpu_usd_per_hour = Some(p);
        }
        let l = &self.request_limits;
        s.scheduler.max_model_len = l.max_input_tokens.saturating_add(l.max_output_tokens);
        s.scheduler.max_num_seqs = l.max_concurrency;
        if s.scheduler.chunked_prefill {
            s.scheduler.max_num_batched_tokens = s.scheduler.max_num_batched_tokens.max(l.max_concurrency);
        } else {
            s.scheduler.max_num_batched_tokens = s.scheduler.max_num_batched_tokens.max(s.scheduler.max_model_len);
        }
        s.validate().map_err(|e| ScenarioError {
            errors: e
                .errors
                .into_iter()
                .map(|f| sim_core::scenario::FieldError { field: format!("workload.{}", f.field), ..f })
                .collect(),
        })?;
        Ok(s)
    }

    /// The acceptance lines that read a summary number, as goals on it (`llmsim check`'s lines
    /// but the two request limits, which read the memory plan and the offered load): the
    /// contract's targets, the KV headroom, and with several classes each class's SLO
    /// attainment.
    pub fn goals(&self) -> Vec<(sim_core::metric::MetricRef, Op, f64)> {
        use sim_core::metric::MetricRef;
        let mut out: Vec<(MetricRef, Op, f64)> = TARGETS
            .iter()
            .chain([&KV_HEADROOM])
            .filter_map(|(_, op, metric, _, target)| target(self).map(|t| (MetricRef::all(*metric), *op, t)))
            .collect();
        if let (Some(t), true) = (self.acceptance.min_slo_attainment, self.workload.classes.len() > 1) {
            for c in &self.workload.classes {
                out.push((MetricRef::class(Metric::SloAttainment, c.name.clone()), Op::AtLeast, t));
            }
        }
        out
    }

    /// Runs the acceptance test.
    pub fn check(&self, traces: &dyn TraceLoader) -> Result<ContractReport, ScenarioError> {
        let scenario = self.scenario()?;
        let mut sim =
            Simulation::with_options(&scenario, traces, SimOptions { recent_capacity: 0, ..Default::default() })?;
        let summary = sim.run_to_end();
        let plan = sim.tightest_hbm_plan().clone();
        Ok(self.report(scenario, summary, &plan))
    }

    /// The acceptance report for a finished run of [`Contract::scenario`] (its summary and the
    /// HBM plan of least KV, `Simulation::tightest_hbm_plan`: with a prefill/decode split whose
    /// pools have their own TP, the smaller pool's): `check` in one call, or the last step of a
    /// run the caller advanced in slices.
    pub fn report(&self, scenario: Scenario, s: Summary, plan: &HbmPlan) -> ContractReport {
        let mut lines = Vec::new();
        let mut line = |field: &str, op: Op, target: Option<f64>, measured: f64, metric, unit| {
            if let Some(t) = target {
                let pass = op.holds(measured, t);
                lines.push(CheckLine { field: field.into(), op, target: t, measured, metric, unit, pass });
            }
        };
        let l = &self.request_limits;
        // The safe concurrency zone is set by memory: max_concurrency sequences at full length
        // must fit the KV pool.
        let worst_kv = l.max_concurrency as f64
            * (l.max_input_tokens as f64 + l.max_output_tokens as f64)
            * plan.kv_bytes_per_token;
        let gib = (1u64 << 30) as f64;
        let capacity = Some(plan.kv_capacity_bytes / gib);
        line("request_limits.max_concurrency", Op::AtMost, capacity, worst_kv / gib, None, "GiB KV at full length");
        let offered = offered_rate(&scenario);
        line("request_limits.max_rate_per_s", Op::AtMost, l.max_rate_per_s, offered, None, "req/s offered");
        for (field, op, metric, unit, target) in TARGETS.iter().chain([&KV_HEADROOM]) {
            line(field, *op, target(self), metric.of(&s), Some(*metric), unit);
        }
        // SLO attainment as DistServe counts it, per class: with several classes each must
        // meet the share on its own (a class of few requests cannot hide behind a large one)
        if s.classes.len() > 1 {
            for (name, c) in &s.classes {
                let field = format!("acceptance.min_slo_attainment[{name}]");
                let measured = c.goodput.slo_attainment;
                line(
                    &field,
                    Op::AtLeast,
                    self.acceptance.min_slo_attainment,
                    measured,
                    None,
                    "of the class's requests",
                );
            }
        }
        let pass = lines.iter().all(|l| l.pass);
        ContractReport { pass, lines, summary: s, scenario }
    }
}

/// A complete example contract (also the lab's starting point).
pub const EXAMPLE: &str = include_str!("../data/contract-chat.json");

/// The example contracts by name: a chat assistant on one H100's budget (the lab's starting
/// point), chat with shared system prompts and conversations on a 2026 mixture-of-experts
/// model, retrieval-augmented answers over long documents, and chat beside batch jobs in
/// isolated queues.
pub const EXAMPLES: [(&str, &str); 4] = [
    ("chat", EXAMPLE),
    ("chat-moe", include_str!("../data/contract-chat-moe.json")),
    ("rag", include_str!("../data/contract-rag.json")),
    ("mixed", include_str!("../data/contract-mixed.json")),
];

/// The example contract named `name`.
pub fn example(name: &str) -> Option<&'static str> {
    EXAMPLES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}
