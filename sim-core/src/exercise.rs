//! Classroom exercises: a starting scenario, the controls a learner may change, goals checked
//! automatically against the run's summary, and an objective to minimise or maximise.
//!
//! Goals name summary numbers as [`MetricRef`]s (`classes.chat.ttft_ms.p99`,
//! `cost.usd_per_million_good_tokens`), so any number the summary reports can be a goal, and a
//! file naming an unknown one is refused when read.

use crate::metric::{Direction, Metric, MetricRef, Op};
use crate::metrics::Summary;
use crate::scenario::{FieldError, Scenario, ScenarioError};
use crate::settings::{self, Value};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Goal {
    pub metric: MetricRef,
    /// `"<="` or `">="` in JSON.
    pub op: Op,
    pub value: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Objective {
    pub metric: MetricRef,
    /// `"min"` or `"max"` in JSON.
    pub direction: Direction,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exercise {
    pub id: String,
    pub scenario: Scenario,
    /// Control ids (scenario field paths) the learner may change; the rest are locked.
    pub allowed: Vec<String>,
    pub goals: Vec<Goal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub objective: Option<Objective>,
    /// A known solution: the settings it changes from `scenario`, in order. Files without one
    /// read as before (an empty list).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reference: Vec<Change>,
}

/// One setting a solution changes: its scenario path (`classes[1].priority`) and the value, as
/// the scenario JSON writes it (`null` switches an optional setting off).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Change {
    pub path: String,
    pub value: Json,
}

impl Change {
    pub fn new(path: &str, value: impl Into<Json>) -> Change {
        Change { path: path.into(), value: value.into() }
    }

    /// The settings row this path belongs to, and the class index for a per-class row.
    fn row(&self, s: &Scenario) -> Option<(&'static settings::Setting, usize)> {
        settings::SETTINGS.iter().find_map(|r| {
            if r.per_class() {
                (0..s.classes.len()).find(|&i| r.path_of(i) == self.path).map(|i| (r, i))
            } else {
                (r.path == self.path).then_some((r, 0))
            }
        })
    }

    /// Writes the value into `s`; a path no setting has, or a value of the wrong kind, is an error.
    pub fn apply(&self, s: &mut Scenario) -> Result<(), FieldError> {
        let err = |problem: crate::Problem| FieldError::new(self.path.clone(), problem);
        let (row, i) = self.row(s).ok_or_else(|| err(crate::Problem::NotASetting))?;
        let value = match &self.value {
            Json::Null => Value::Off,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => Value::Number(n.as_f64().ok_or_else(|| err(crate::Problem::ExerciseValue))?),
            Json::String(t) => Value::Text(t.clone()),
            _ => return Err(err(crate::Problem::ExerciseValue)),
        };
        row.set(s, i, &value)
    }

    /// The lock id of the control this change turns (`classes.priority`).
    pub fn control(&self, s: &Scenario) -> Option<String> {
        self.row(s).map(|(r, _)| r.lock_id())
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GoalResult {
    pub metric: MetricRef,
    pub op: Op,
    pub target: f64,
    /// `None` when the summary has no such number (e.g. a class that does not exist).
    pub measured: Option<f64>,
    pub pass: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Attempt {
    pub goals: Vec<GoalResult>,
    pub pass: bool,
    /// The objective's value, when every goal passed.
    pub score: Option<f64>,
}

impl Exercise {
    /// Whether the learner may turn the control `id` (a lock id such as `classes.slo.ttft_ms`):
    /// it, or a group it belongs to (`classes.slo`), is allowed.
    pub fn allows(&self, id: &str) -> bool {
        self.allowed.iter().any(|a| id == a || id.strip_prefix(a.as_str()).is_some_and(|r| r.starts_with('.')))
    }

    /// The scenario with the reference solution's changes made; every change must turn a
    /// control the exercise allows, and the result must be valid.
    pub fn reference_scenario(&self) -> Result<Scenario, ScenarioError> {
        let mut s = self.scenario.clone();
        for c in &self.reference {
            match c.control(&s) {
                Some(id) if self.allows(&id) => {}
                Some(id) => {
                    return Err(ScenarioError::one(&c.path, crate::Problem::ExerciseLocked { id: id.to_string() }))
                }
                None => {}
            }
            c.apply(&mut s).map_err(|e| ScenarioError { errors: vec![e] })?;
        }
        s.validate()?;
        Ok(s)
    }

    pub fn check(&self, summary: &Summary) -> Attempt {
        let goals: Vec<GoalResult> = self
            .goals
            .iter()
            .map(|g| {
                let measured = g.metric.read(summary);
                let pass = measured.is_some_and(|m| g.op.holds(m, g.value));
                GoalResult { metric: g.metric.clone(), op: g.op, target: g.value, measured, pass }
            })
            .collect();
        let pass = goals.iter().all(|g| g.pass);
        let score = if pass { self.objective.as_ref().and_then(|o| o.metric.read(summary)) } else { None };
        Attempt { goals, pass, score }
    }
}

fn goal(metric: MetricRef, op: Op, value: f64) -> Goal {
    Goal { metric, op, value }
}

fn cheapest() -> Objective {
    Objective { metric: MetricRef::all(Metric::UsdPerMillionGoodTokens), direction: Direction::Min }
}

/// The built-in exercises.
pub fn exercises() -> Vec<Exercise> {
    vec![mixed_20(), chat_cheapest(), speculative_users(), cache_prompts(), route_documents(), split_the_work()]
}

/// Lesson 13's traffic under memory pressure: chat at 10 req/s on one H100, each prompt (about
/// 3,500 tokens) starting with one of 48 system prompts of 3,000 tokens, on a server started with
/// memory utilisation 0.3 and prefix caching off. Caching alone evicts most prompts before they
/// are asked for again; a pool that holds them all makes it pay. A second GPU passes without the
/// cache, at twice the cost per good token.
fn cache_prompts() -> Exercise {
    let mut s = crate::lessons::under_pressure();
    s.name = Some("Keep the system prompts cached".into());
    Exercise {
        id: "cache-prompts".into(),
        scenario: s,
        allowed: ids(&[
            "num_gpus",
            "gpu_memory_utilization",
            "scheduler.prefix_caching",
            "scheduler.max_num_seqs",
            "scheduler.max_num_batched_tokens",
        ]),
        goals: vec![
            goal(MetricRef::all(Metric::SloAttainment), Op::AtLeast, 0.95),
            goal(MetricRef::all(Metric::TTFT_P99), Op::AtMost, 1000.0),
        ],
        objective: Some(cheapest()),
        // caching on, and a pool that holds every system prompt besides the running requests
        reference: vec![Change::new("scheduler.prefix_caching", true), Change::new("gpu_memory_utilization", 0.9)],
    }
}

/// Four L40S replicas answer questions about 96 shared documents at 12 req/s, routed round robin
/// as given: every replica caches every document and thrashes (lesson 14). Prefix affinity
/// passes on the same four GPUs; more replicas routed round robin pass too, at a higher cost per
/// good token.
fn route_documents() -> Exercise {
    let mut s = crate::presets::find("cluster-prefix-affinity").expect("preset").scenario();
    s.name = Some("Route the documents".into());
    s.router.policy = crate::cluster::Policy::RoundRobin;
    s.classes[0].num_requests = Some(2000);
    Exercise {
        id: "route-documents".into(),
        scenario: s,
        allowed: ids(&[
            "replicas",
            "router.policy",
            "router.load_cap",
            "scheduler.max_num_seqs",
            "scheduler.max_num_batched_tokens",
            "scheduler.prefix_caching",
        ]),
        goals: vec![
            goal(MetricRef::all(Metric::SloAttainment), Op::AtLeast, 0.95),
            goal(MetricRef::all(Metric::TTFT_P99), Op::AtMost, 1000.0),
        ],
        objective: Some(cheapest()),
        reference: vec![Change::new("router.policy", "prefix_affinity")],
    }
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// 20 req/s on one H100: 16 chat, 4 bursty document requests, in one shared first-come queue,
/// with the lessons' vLLM-style batch limits. The GPU and the bf16 weights are fixed and nothing is
/// reserved per class, so neither a faster GPU, fp8 nor a reserved share can stand in for what
/// the exercise practises (lesson 7): separate queues served by priority. More GPUs also pass,
/// at about twice the cost per good token.
fn mixed_20() -> Exercise {
    use crate::scenario::{Arrival, LengthDist};
    let mut s = crate::presets::find("mixed-shared").expect("preset").scenario();
    s.name = Some("Serve 20 req/s of mixed traffic".into());
    s.scheduler.max_num_seqs = 256;
    s.scheduler.max_num_batched_tokens = 8192;
    let (chat, docs) = (0, 1);
    s.classes[chat].arrival = Arrival::Poisson { rate_per_s: 16.0 };
    s.classes[chat].num_requests = Some(2000);
    s.classes[docs].arrival = Arrival::Bursty { rate_per_s: 4.0, cv: 3.0 };
    s.classes[docs].num_requests = Some(500);
    s.classes[docs].input_tokens = Some(LengthDist::Lognormal { mean: 3000.0, sigma: 0.4 });
    s.classes[docs].output_tokens = Some(LengthDist::Lognormal { mean: 400.0, sigma: 0.5 });
    for c in &mut s.classes {
        c.priority = 0;
        c.reserved_share = Some(0.0);
    }
    Exercise {
        id: "mixed-20".into(),
        scenario: s,
        allowed: ids(&[
            "num_gpus",
            "gpu_memory_utilization",
            "scheduler.max_num_seqs",
            "scheduler.max_num_batched_tokens",
            "scheduler.chunked_prefill",
            "scheduler.isolation",
            "scheduler.queue_timeout_ms",
            "scheduler.max_queue_len",
            "classes.priority",
        ]),
        goals: vec![
            goal(MetricRef::class(Metric::TTFT_P99, "chat"), Op::AtMost, 800.0),
            goal(MetricRef::class(Metric::SloAttainment, "chat"), Op::AtLeast, 0.95),
            goal(MetricRef::class(Metric::SloAttainment, "batch"), Op::AtLeast, 0.9),
        ],
        objective: Some(cheapest()),
        // chat first in a queue of its own; a smaller token budget keeps each step (and so chat's
        // time per token) short while the documents' prompts are prefilled in chunks
        reference: vec![
            Change::new("scheduler.isolation", true),
            Change::new("classes[1].priority", 1),
            Change::new("scheduler.max_num_batched_tokens", 2048),
        ],
    }
}

/// 24 chat req/s on one replica with the lessons' vLLM-style server: too much for one H100 in bf16. Which GPU
/// and precision give the cheapest good tokens is what lesson 9 compares: each GPU at the load
/// it carries within the SLO, not its price per hour or its peak throughput.
fn chat_cheapest() -> Exercise {
    use crate::scenario::Arrival;
    let mut s = crate::presets::find("chat-latency-first").expect("preset").scenario();
    s.name = Some("Cheapest good tokens for chat".into());
    s.scheduler.max_num_seqs = 256;
    s.scheduler.max_num_batched_tokens = 8192;
    s.scheduler.queue_timeout_ms = None;
    s.scheduler.max_queue_len = None;
    s.classes[0].arrival = Arrival::Poisson { rate_per_s: 24.0 };
    Exercise {
        id: "chat-cheapest".into(),
        scenario: s,
        allowed: ids(&[
            "gpu",
            "num_gpus",
            "dtype",
            "gpu_memory_utilization",
            "scheduler.max_num_seqs",
            "scheduler.max_num_batched_tokens",
            "scheduler.chunked_prefill",
        ]),
        goals: vec![
            goal(MetricRef::all(Metric::TTFT_P99), Op::AtMost, 1000.0),
            goal(MetricRef::all(Metric::TPOT_P99), Op::AtMost, 50.0),
            goal(MetricRef::all(Metric::SloAttainment), Op::AtLeast, 0.97),
        ],
        objective: Some(cheapest()),
        // the GPU with the most SLO-bound capacity per dollar, with fp8 weights
        reference: vec![Change::new("gpu", "mi300x"), Change::new("dtype", "fp8")],
    }
}

/// Lesson 12's speculation (an EAGLE-style head, 8 draft tokens accepted at 0.6) on Llama-3.1-8B
/// and one H100, with 256 closed-loop users without think time. Speculation is set in the file
/// (the page has no control for it); what the learner chooses is the load it serves: the number of
/// users, and the batch cap. Speculation pays only while the batch is small, so the most tokens
/// per second within 10 ms per token come from a few dozen users, not from the crowd.
fn speculative_users() -> Exercise {
    use crate::scenario::Arrival;
    use crate::speculative::SpeculativeConfig;
    let mut s = crate::presets::find("speculative").expect("preset").scenario();
    s.name = Some("Speculative decoding within 10 ms per token".into());
    s.speculative = Some(SpeculativeConfig { draft_tokens: 8, acceptance_rate: 0.6, draft_model: None });
    s.classes[0].arrival = Arrival::ClosedLoop { users: 256, think_time_ms: 0.0 };
    s.classes[0].num_requests = Some(800);
    Exercise {
        id: "speculative-users".into(),
        scenario: s,
        allowed: ids(&["classes.arrival.users", "scheduler.max_num_seqs"]),
        goals: vec![
            goal(MetricRef::all(Metric::TPOT_P99), Op::AtMost, 10.0),
            goal(MetricRef::all(Metric::TTFT_P99), Op::AtMost, 1000.0),
        ],
        objective: Some(Objective { metric: MetricRef::all(Metric::ThroughputTokens), direction: Direction::Max }),
        // 24 users: a batch small enough for speculation to pay (without it 24 users miss 10 ms)
        reference: vec![Change::new("classes[0].arrival.users", 24)],
    }
}

/// Lesson 15's busy traffic: long-prompt chat at 24 req/s on four colocated H100 replicas, whose
/// decode steps carry the prompts' prefill chunks, so TPOT misses its SLO for most requests. The
/// batch limits are locked: the layout is the exercise. Two prefill and two decode replicas pass
/// on the same four GPUs; a wrong ratio fails, and more colocated replicas cost more.
fn split_the_work() -> Exercise {
    let mut s = crate::lessons::busy_colocated();
    s.name = Some("Split prefill from decode".into());
    Exercise {
        id: "split-the-work".into(),
        scenario: s,
        allowed: ids(&[
            "replicas",
            "router.policy",
            "disaggregation.prefill_replicas",
            "disaggregation.decode_replicas",
            "disaggregation.kv_link_gbps",
            // switching the split on sets the link's latency too: a result code carries it
            "disaggregation.kv_link_latency_us",
        ]),
        goals: vec![
            goal(MetricRef::all(Metric::SloAttainment), Op::AtLeast, 0.95),
            goal(MetricRef::all(Metric::TPOT_P99), Op::AtMost, 20.0),
        ],
        objective: Some(cheapest()),
        // two of the four replicas run prompts only, the other two decode
        reference: vec![Change::new("disaggregation.prefill_replicas", 2)],
    }
}

/// A result a learner hands in: which exercise, the seed, the settings that differ from the
/// exercise's scenario and the numbers the run claims (each goal's metric, then the objective's).
/// A teacher's page turns it back into the scenario, re-runs it and compares the numbers
/// ([`ResultCode::check`]): equal numbers mean the lab produced them from these settings.
///
/// Text form (version 1): `R1.<base64url(JSON)>.<checksum>`, the JSON an array
/// `[exercise id, seed, [[setting id, value] or [setting id, value, class index], …], [claims]]`,
/// the checksum eight hex digits of FNV-1a over the JSON. Claimed numbers keep
/// [`CLAIM_DIGITS`] significant digits; `null` is a number the summary did not have.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultCode {
    pub exercise: String,
    pub seed: u64,
    pub changes: Vec<CodeChange>,
    /// One per goal, in the exercise's order, then the objective's metric (when it has one).
    pub claimed: Vec<Option<f64>>,
}

/// One setting of a result code: a `settings` row id, the class index of a per-class row, and
/// the value as the scenario JSON writes it.
#[derive(Clone, Debug, PartialEq)]
pub struct CodeChange {
    pub setting: String,
    pub class: Option<usize>,
    pub value: Json,
}

/// Significant digits a result code keeps of each claimed number.
pub const CLAIM_DIGITS: usize = 6;

/// The version a result code starts with.
pub const CODE_VERSION: &str = "R1";

/// Why a result code cannot be checked; each names the part that failed.
#[derive(Clone, Debug, PartialEq)]
pub enum CodeProblem {
    /// The text does not look like a result code at all.
    NotACode,
    /// A result code of a version this lab does not read.
    Version(String),
    /// The checksum does not match: the code was cut short, mistyped or edited by hand.
    Damaged,
    /// The checksum matches but the contents are not a result code's (a part is missing).
    Unreadable(&'static str),
    /// No built-in exercise has this id.
    UnknownExercise(String),
    /// A setting the code names cannot be applied: unknown, locked by the exercise, or its value
    /// refused (`message` says which).
    Setting { setting: String, message: String },
    /// The claims are not one per goal plus the objective.
    Claims { expected: usize, found: usize },
}

impl std::fmt::Display for CodeProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CodeProblem::NotACode => write!(f, "not a result code"),
            CodeProblem::Version(v) => write!(f, "result code version {v} is not known"),
            CodeProblem::Damaged => write!(f, "the result code is damaged (checksum)"),
            CodeProblem::Unreadable(part) => write!(f, "the result code's {part} cannot be read"),
            CodeProblem::UnknownExercise(id) => write!(f, "no exercise {id}"),
            CodeProblem::Setting { setting, message } => write!(f, "setting {setting}: {message}"),
            CodeProblem::Claims { expected, found } => {
                write!(f, "{found} claimed numbers, the exercise has {expected}")
            }
        }
    }
}

/// One claimed number against the re-run's.
#[derive(Clone, Debug, PartialEq)]
pub struct ClaimLine {
    pub metric: MetricRef,
    pub claimed: Option<f64>,
    /// The re-run's number at the code's precision.
    pub rerun: Option<f64>,
    pub equal: bool,
}

/// What a re-run says about a result code.
#[derive(Clone, Debug, PartialEq)]
pub struct CodeCheck {
    /// Every claimed number equals the re-run's.
    pub verified: bool,
    pub lines: Vec<ClaimLine>,
    /// The re-run checked against the goals (pass, score).
    pub attempt: Attempt,
}

/// `x` to [`CLAIM_DIGITS`] significant digits (what a code carries and what is compared).
pub fn claim_round(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    crate::decimal::parse_f64(&format!("{:.*e}", CLAIM_DIGITS - 1, x)).unwrap_or(x)
}

fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |h, b| (h ^ u32::from(*b)).wrapping_mul(0x0100_0193))
}

fn json_of_value(v: &Value) -> Json {
    match v {
        Value::Number(x) if x.fract() == 0.0 && x.abs() < 9.0e15 => Json::from(*x as i64),
        Value::Number(x) => Json::from(*x),
        Value::Text(t) => Json::from(t.as_str()),
        Value::Bool(b) => Json::from(*b),
        Value::Off => Json::Null,
    }
}

fn value_of_json(j: &Json) -> Option<Value> {
    match j {
        Json::Null => Some(Value::Off),
        Json::Bool(b) => Some(Value::Bool(*b)),
        Json::Number(n) => n.as_f64().map(Value::Number),
        Json::String(t) => Some(Value::Text(t.clone())),
        _ => None,
    }
}

impl Exercise {
    /// The metrics a result code claims, in order: each goal's, then the objective's.
    pub fn claimed_metrics(&self) -> Vec<MetricRef> {
        self.goals.iter().map(|g| g.metric.clone()).chain(self.objective.iter().map(|o| o.metric.clone())).collect()
    }
}

impl ResultCode {
    /// The code of a run of `ran` (a scenario the learner made from `ex.scenario`) that ended
    /// with `summary`: the seed, every setting whose value differs, and the claimed numbers.
    pub fn of(ex: &Exercise, ran: &Scenario, summary: &Summary) -> ResultCode {
        let mut changes = Vec::new();
        for row in settings::SETTINGS.iter().filter(|r| r.id != "seed") {
            let classes = if row.per_class() { ran.classes.len() } else { 1 };
            for i in 0..classes {
                let now = row.get(ran, i);
                if now.is_some() && now != row.get(&ex.scenario, i) {
                    let value = now.as_ref().map_or(Json::Null, json_of_value);
                    changes.push(CodeChange { setting: row.id.into(), class: row.per_class().then_some(i), value });
                }
            }
        }
        let claimed = ex.claimed_metrics().iter().map(|m| m.read(summary).map(claim_round)).collect();
        ResultCode { exercise: ex.id.clone(), seed: ran.seed, changes, claimed }
    }

    /// The text to hand in.
    pub fn encode(&self) -> String {
        let changes: Vec<Json> = self
            .changes
            .iter()
            .map(|c| match c.class {
                Some(i) => serde_json::json!([c.setting, c.value, i]),
                None => serde_json::json!([c.setting, c.value]),
            })
            .collect();
        let payload = serde_json::json!([self.exercise, self.seed, changes, self.claimed]).to_string();
        format!("{CODE_VERSION}.{}.{:08x}", URL_SAFE_NO_PAD.encode(payload.as_bytes()), fnv1a(payload.as_bytes()))
    }

    /// Reads a code (surrounding white space is ignored); says which part failed.
    pub fn decode(text: &str) -> Result<ResultCode, CodeProblem> {
        let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let mut parts = text.split('.');
        let version = parts.next().unwrap_or_default();
        if !version.starts_with('R') || version.len() < 2 || !version[1..].bytes().all(|b| b.is_ascii_digit()) {
            return Err(CodeProblem::NotACode);
        }
        if version != CODE_VERSION {
            return Err(CodeProblem::Version(version.into()));
        }
        let (Some(body), Some(sum), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(CodeProblem::Damaged);
        };
        let bytes = URL_SAFE_NO_PAD.decode(body).map_err(|_| CodeProblem::Damaged)?;
        if sum.len() != 8 || u32::from_str_radix(sum, 16).ok() != Some(fnv1a(&bytes)) {
            return Err(CodeProblem::Damaged);
        }
        let json: Json = serde_json::from_slice(&bytes).map_err(|_| CodeProblem::Unreadable("contents"))?;
        let arr = json.as_array().filter(|a| a.len() == 4).ok_or(CodeProblem::Unreadable("contents"))?;
        let exercise = arr[0].as_str().ok_or(CodeProblem::Unreadable("exercise id"))?.to_string();
        let seed = arr[1].as_u64().ok_or(CodeProblem::Unreadable("seed"))?;
        let change = |c: &Json| -> Option<CodeChange> {
            let c = c.as_array().filter(|c| c.len() == 2 || c.len() == 3)?;
            let class = match c.get(2) {
                Some(i) => Some(usize::try_from(i.as_u64()?).ok()?),
                None => None,
            };
            Some(CodeChange { setting: c[0].as_str()?.to_string(), class, value: c[1].clone() })
        };
        let changes = arr[2]
            .as_array()
            .and_then(|l| l.iter().map(change).collect::<Option<Vec<_>>>())
            .ok_or(CodeProblem::Unreadable("settings"))?;
        let claim = |c: &Json| if c.is_null() { Some(None) } else { c.as_f64().map(Some) };
        let claimed = arr[3]
            .as_array()
            .and_then(|l| l.iter().map(claim).collect::<Option<Vec<_>>>())
            .ok_or(CodeProblem::Unreadable("claimed numbers"))?;
        Ok(ResultCode { exercise, seed, changes, claimed })
    }

    /// The exercise the code is for and the scenario to re-run: the exercise's scenario with the
    /// code's seed and settings, every one a control the exercise allows, and valid.
    pub fn scenario(&self) -> Result<(Exercise, Scenario), CodeProblem> {
        let ex = exercises()
            .into_iter()
            .find(|e| e.id == self.exercise)
            .ok_or_else(|| CodeProblem::UnknownExercise(self.exercise.clone()))?;
        let expected = ex.claimed_metrics().len();
        if self.claimed.len() != expected {
            return Err(CodeProblem::Claims { expected, found: self.claimed.len() });
        }
        let mut s = ex.scenario.clone();
        s.seed = self.seed;
        for c in &self.changes {
            let bad = |message: String| CodeProblem::Setting { setting: c.setting.clone(), message };
            let row =
                settings::find(&c.setting).filter(|r| r.id != "seed").ok_or_else(|| bad("is not a setting".into()))?;
            if row.per_class() != c.class.is_some() {
                return Err(bad("has the wrong class part".into()));
            }
            if !ex.allows(&row.lock_id()) {
                return Err(bad(format!("is locked by exercise {}", ex.id)));
            }
            let value = value_of_json(&c.value).ok_or_else(|| bad("has a value of the wrong kind".into()))?;
            row.set(&mut s, c.class.unwrap_or(0), &value).map_err(|e| bad(e.message))?;
        }
        if let Err(e) = s.validate() {
            let first = e.errors.first();
            return Err(CodeProblem::Setting {
                setting: first.map_or_else(String::new, |f| f.field.clone()),
                message: first.map_or_else(|| e.to_string(), |f| f.message.clone()),
            });
        }
        Ok((ex, s))
    }

    /// Compares the claims with the summary of the re-run of [`ResultCode::scenario`].
    pub fn check(&self, ex: &Exercise, rerun: &Summary) -> CodeCheck {
        let lines: Vec<ClaimLine> = ex
            .claimed_metrics()
            .into_iter()
            .zip(&self.claimed)
            .map(|(metric, claimed)| {
                let rerun = metric.read(rerun).map(claim_round);
                ClaimLine { equal: rerun == *claimed, metric, claimed: *claimed, rerun }
            })
            .collect();
        let verified = lines.len() == self.claimed.len() && lines.iter().all(|l| l.equal);
        CodeCheck { verified, lines, attempt: ex.check(rerun) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goals_read_as_before_and_unknown_metrics_are_refused() {
        let json = r#"{"metric":"classes.chat.ttft_ms.p99","op":"<=","value":800}"#;
        let g: Goal = serde_json::from_str(json).unwrap();
        assert_eq!(g, goal(MetricRef::class(Metric::TTFT_P99, "chat"), Op::AtMost, 800.0));
        assert_eq!(serde_json::to_string(&g).unwrap(), json.replace("800", "800.0"));
        let bad = r#"{"metric":"ttft_ms.p100","op":"<=","value":1}"#;
        assert!(serde_json::from_str::<Goal>(bad).unwrap_err().to_string().contains("unknown metric"));
        let bad = r#"{"metric":"ttft_ms.p99","op":"<","value":1}"#;
        assert!(serde_json::from_str::<Goal>(bad).is_err());
    }

    #[test]
    fn every_built_in_exercise_round_trips_through_json() {
        for ex in exercises() {
            let back: Exercise = serde_json::from_str(&serde_json::to_string(&ex).unwrap()).unwrap();
            assert_eq!(back, ex);
        }
    }

    #[test]
    fn a_file_without_a_reference_reads_and_a_reference_is_written_readably() {
        let ex = &exercises()[1];
        let mut v = serde_json::to_value(ex).unwrap();
        assert_eq!(
            v["reference"],
            serde_json::json!([{ "path": "gpu", "value": "mi300x" }, { "path": "dtype", "value": "fp8" }])
        );
        v.as_object_mut().unwrap().remove("reference");
        let old: Exercise = serde_json::from_value(v).unwrap();
        assert!(old.reference.is_empty());
        assert!(!serde_json::to_string(&old).unwrap().contains("reference"));
    }

    #[test]
    fn a_reference_turns_only_allowed_controls_of_known_settings() {
        for ex in exercises() {
            ex.scenario.validate().unwrap();
            let s = ex.reference_scenario().unwrap();
            assert_ne!(s, ex.scenario, "{}", ex.id);
        }
        let mut ex = exercises()[0].clone();
        ex.reference = vec![Change::new("dtype", "fp8")];
        let e = ex.reference_scenario().unwrap_err();
        assert_eq!(e.errors[0].field, "dtype");
        assert!(e.errors[0].message.contains("locks"), "{e}");
        ex.reference = vec![Change::new("classes[5].priority", 1)];
        assert!(ex.reference_scenario().unwrap_err().errors[0].message.contains("not a setting"));
        ex.reference = vec![Change::new("scheduler.max_num_seqs", 0)];
        assert_eq!(ex.reference_scenario().unwrap_err().errors[0].field, "scheduler.max_num_seqs");
        ex.reference = vec![Change::new("scheduler.isolation", 3)];
        assert!(ex.reference_scenario().is_err());
        ex.reference = vec![Change::new("scheduler.queue_timeout_ms", serde_json::Value::Null)];
        assert_eq!(ex.reference_scenario().unwrap().scheduler.queue_timeout_ms, None);
    }

    #[test]
    fn on_the_default_seed_each_exercise_fails_as_given_and_its_reference_passes() {
        for ex in exercises() {
            let run = |s: &Scenario| ex.check(&crate::Simulation::new(s).unwrap().run_to_end());
            let a = run(&ex.scenario);
            assert!(!a.pass && a.score.is_none(), "{}", ex.id);
            let a = run(&ex.reference_scenario().unwrap());
            assert!(a.pass, "{}: {:#?}", ex.id, a.goals);
            assert!(a.score.unwrap() > 0.0);
        }
    }

    fn solved(ex: &Exercise) -> (Scenario, Summary) {
        let s = ex.reference_scenario().unwrap();
        let sum = crate::Simulation::new(&s).unwrap().run_to_end();
        (s, sum)
    }

    #[test]
    fn a_result_code_round_trips_and_verifies_by_re_running() {
        for ex in exercises() {
            let (s, sum) = solved(&ex);
            let code = ResultCode::of(&ex, &s, &sum);
            // one change can set several settings (switching disaggregation on splits the
            // replicas into two pools over default links): the code lists each it changed
            assert!(code.changes.len() >= ex.reference.len(), "{}: {:?}", ex.id, code.changes);
            let text = code.encode();
            assert!(text.len() < 300, "{} chars: {text}", text.len());
            let back = ResultCode::decode(&format!("  {text}\n")).unwrap();
            assert_eq!(back, code);
            let (ex2, s2) = back.scenario().unwrap();
            assert_eq!(s2, s, "{}: the code rebuilds the scenario that ran", ex.id);
            let again = crate::Simulation::new(&s2).unwrap().run_to_end();
            let check = back.check(&ex2, &again);
            assert!(check.verified, "{:#?}", check.lines);
            assert!(check.attempt.pass);
        }
    }

    #[test]
    fn a_tampered_or_cut_code_is_refused_naming_what_failed() {
        let ex = exercises().remove(0);
        let (s, sum) = solved(&ex);
        let code = ResultCode::of(&ex, &s, &sum);
        // a claimed number changed (and re-encoded, so the checksum fits): the re-run disagrees there
        let mut t = code.clone();
        t.claimed[0] = t.claimed[0].map(|x| claim_round(x * 0.9));
        let (ex2, s2) = ResultCode::decode(&t.encode()).unwrap().scenario().unwrap();
        let check = t.check(&ex2, &crate::Simulation::new(&s2).unwrap().run_to_end());
        assert!(!check.verified);
        assert_eq!(check.lines.iter().map(|l| l.equal).collect::<Vec<_>>(), [false, true, true, true]);
        // a setting changed: the re-run of the other settings gives other numbers
        let mut t = code.clone();
        let c = t.changes.iter_mut().find(|c| c.setting == "max_num_batched_tokens").unwrap();
        c.value = Json::from(4096);
        let (ex2, s2) = ResultCode::decode(&t.encode()).unwrap().scenario().unwrap();
        assert!(!t.check(&ex2, &crate::Simulation::new(&s2).unwrap().run_to_end()).verified);
        // a locked setting, an unknown one, a bad value: refused before running
        let mut t = code.clone();
        t.changes.push(CodeChange { setting: "dtype".into(), class: None, value: Json::from("fp8") });
        assert!(
            matches!(t.scenario(), Err(CodeProblem::Setting { ref setting, ref message }) if setting == "dtype" && message.contains("locked"))
        );
        t.changes.pop();
        t.changes.push(CodeChange { setting: "warp".into(), class: None, value: Json::from(1) });
        assert!(matches!(t.scenario(), Err(CodeProblem::Setting { ref setting, .. }) if setting == "warp"));
        t.changes.pop();
        t.changes.push(CodeChange { setting: "max_num_seqs".into(), class: None, value: Json::from(0) });
        assert!(matches!(t.scenario(), Err(CodeProblem::Setting { .. })), "{:?}", t.scenario());
        let mut t = code.clone();
        t.exercise = "nope".into();
        assert_eq!(t.scenario().unwrap_err(), CodeProblem::UnknownExercise("nope".into()));
        let mut t = code.clone();
        t.claimed.pop();
        assert_eq!(t.scenario().unwrap_err(), CodeProblem::Claims { expected: 4, found: 3 });
        // the text: cut, edited by hand, another version, not a code
        let text = code.encode();
        for cut in [text.len() - 1, text.len() - 9, text.len() / 2, 3] {
            assert_eq!(ResultCode::decode(&text[..cut]), Err(CodeProblem::Damaged), "cut at {cut}");
        }
        let body_at = text.find('.').unwrap() + 5;
        let mut edited = text.clone().into_bytes();
        edited[body_at] = if edited[body_at] == b'A' { b'B' } else { b'A' };
        assert_eq!(ResultCode::decode(std::str::from_utf8(&edited).unwrap()), Err(CodeProblem::Damaged));
        assert_eq!(ResultCode::decode(&text.replacen("R1", "R7", 1)), Err(CodeProblem::Version("R7".into())));
        assert_eq!(ResultCode::decode("hello"), Err(CodeProblem::NotACode));
        assert_eq!(ResultCode::decode(""), Err(CodeProblem::NotACode));
    }

    #[test]
    fn claims_keep_six_significant_digits() {
        assert_eq!(claim_round(612.345678), 612.346);
        assert_eq!(claim_round(0.000123456789), 0.000123457);
        assert_eq!(claim_round(0.0), 0.0);
        assert_eq!(claim_round(claim_round(98765.4321)), 98765.4);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn any_code_round_trips_and_any_cut_is_damaged(
            seed in proptest::prelude::any::<u64>(),
            claims in proptest::collection::vec(proptest::option::of(-1e12f64..1e12), 0..6),
            tokens in 1u64..100_000,
            cut in 0usize..400,
        ) {
            let code = ResultCode {
                exercise: "mixed-20".into(),
                seed,
                changes: vec![
                    CodeChange { setting: "max_num_batched_tokens".into(), class: None, value: Json::from(tokens) },
                    CodeChange { setting: "priority".into(), class: Some(1), value: Json::from(1) },
                ],
                claimed: claims.into_iter().map(|c| c.map(claim_round)).collect(),
            };
            let text = code.encode();
            proptest::prop_assert_eq!(ResultCode::decode(&text), Ok(code));
            if cut < text.len() {
                proptest::prop_assert!(ResultCode::decode(&text[..cut]).is_err());
            }
        }
    }
}
