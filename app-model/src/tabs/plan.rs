//! The Plan tab's state without the DOM: what the search may choose from (the tab's form), the
//! request the page sends and the replies its workers give (`Request`, `Reply`, as JSON text;
//! how several workers share the search is `plan_crew`), the answer as the page shows it (`Outcome`:
//! the best with its launch commands and slack, the cheaper configurations and the constraint
//! that bound each, in the page's words, the cost–TTFT Pareto front as a figure) and the run on
//! screen (`PlanRun`).

use lab_content::contract::Contract;
use lab_content::plan::bound::{Bound, Evidence};
use lab_content::plan::{Feasible, Phase, PlanAnswer, PlanOptions, Progress};
use serde::{Deserialize, Serialize};
use sim_core::profile::Engine;

use crate::charts::figure::{Dash, Figure, Ink, Item};
use crate::charts::{Axis, Units};
use crate::format;
use crate::words::Words;

/// What a worker says once it listens: the page sends its request then.
pub const READY: &str = "ready";

/// Most GPUs the form lets a configuration use.
pub const MAX_GPUS: u32 = 4096;

/// What the search may choose from, as the tab's form sets it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Choices {
    /// GPU ids of the catalogue.
    pub gpus: Vec<String>,
    /// Engine names (`vllm`, `sglang`, `trtllm`).
    pub engines: Vec<String>,
    pub max_gpus: u32,
    /// Also consider prefill/decode splits.
    pub splits: bool,
}

impl Default for Choices {
    fn default() -> Self {
        Choices {
            gpus: sim_core::catalog::gpus().into_iter().map(|g| g.id).collect(),
            engines: Engine::ALL.iter().map(|e| e.name().to_string()).collect(),
            max_gpus: 64,
            splits: true,
        }
    }
}

/// Why the form cannot start a search: a translation key.
pub type FormError = &'static str;

impl Choices {
    /// Ticks or unticks a GPU (`gpu:<id>`), an engine (`engine:<name>`) or the splits (`splits`),
    /// keeping the catalogue's order.
    pub fn tick(&mut self, what: &str, on: bool) {
        let set = |list: &mut Vec<String>, all: Vec<String>, id: &str| {
            let mut now: Vec<String> =
                all.into_iter().filter(|x| if x == id { on } else { list.contains(x) }).collect();
            std::mem::swap(list, &mut now);
        };
        if let Some(id) = what.strip_prefix("gpu:") {
            set(&mut self.gpus, sim_core::catalog::gpus().into_iter().map(|g| g.id).collect(), id);
        } else if let Some(name) = what.strip_prefix("engine:") {
            set(&mut self.engines, Engine::ALL.iter().map(|e| e.name().to_string()).collect(), name);
        } else if what == "splits" {
            self.splits = on;
        }
    }

    /// Reads the most-GPUs box: a whole number from 1 to `MAX_GPUS`.
    pub fn set_max_gpus(&mut self, text: &str) -> Result<(), FormError> {
        match text.trim().parse::<u32>() {
            Ok(n) if (1..=MAX_GPUS).contains(&n) => {
                self.max_gpus = n;
                Ok(())
            }
            _ => Err("features.plan.err.max_gpus"),
        }
    }

    /// The planner's options, or why there are none.
    pub fn options(&self) -> Result<PlanOptions, FormError> {
        if self.gpus.is_empty() {
            return Err("features.plan.err.no_gpu");
        }
        let engines: Vec<Engine> = self.engines.iter().filter_map(|e| Engine::parse(e)).collect();
        if engines.is_empty() {
            return Err("features.plan.err.no_engine");
        }
        Ok(PlanOptions {
            gpus: Some(self.gpus.clone()),
            max_gpus: self.max_gpus.clamp(1, MAX_GPUS),
            engines,
            splits: self.splits,
            prune: true,
            shard: None,
        })
    }
}

/// What the page sends a worker: the contract to plan and what the search may choose from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub contract: Contract,
    pub choices: Choices,
}

impl Request {
    pub fn to_json(&self) -> String {
        Request::json(&self.contract, &self.choices)
    }

    /// The request's JSON, the contract written as its export is (one serializer for both).
    pub fn json(contract: &Contract, choices: &Choices) -> String {
        let choices = serde_json::to_string(choices).unwrap_or_default();
        format!("{{\"contract\":{},\"choices\":{choices}}}", contract.to_json_pretty())
    }
}

/// What a worker says: progress after each step, then its share of the answer (a
/// `PlanAnswer` as JSON, which the page passes on unread), and from the worker that joins the
/// shares, the answer (or why it could not plan).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reply {
    Progress(Step),
    Part(String),
    Answer(Box<Outcome>),
    Error(String),
}

impl Reply {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn read(text: &str) -> Result<Reply, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }
}

/// The search so far (`lab_content::plan::Progress`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Working out what the answer reports around the best (after the search).
    pub answering: bool,
    /// This worker's search is over; it waits for the others'.
    #[serde(default)]
    pub waiting: bool,
    pub tried: usize,
    pub total: usize,
    pub simulated: u64,
    pub best_usd_per_hour: Option<f64>,
    /// The best's rank in the least-cost order of all candidates (ties at one cost go to the earlier).
    #[serde(default)]
    pub best_rank: Option<usize>,
    pub best_label: Option<String>,
}

impl From<&Progress> for Step {
    fn from(p: &Progress) -> Step {
        Step {
            answering: matches!(p.phase, Phase::Answer | Phase::Done),
            waiting: p.phase == Phase::Waiting,
            tried: p.tried,
            total: p.total,
            simulated: p.simulated,
            best_usd_per_hour: p.best_usd_per_hour,
            best_rank: p.best_rank,
            best_label: p.best_label.clone(),
        }
    }
}

/// An acceptance line's margin in the best's confirming run (the planner's own type).
pub use lab_content::plan::Slack;

/// A configuration on the Pareto front (or the best).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub label: String,
    pub usd_per_hour: f64,
    pub ttft_p99_ms: f64,
    pub gpus: u32,
}

impl Point {
    fn of(f: &Feasible) -> Point {
        Point {
            label: f.candidate.label(f.units),
            usd_per_hour: f.usd_per_hour,
            ttft_p99_ms: f.ttft_p99_ms,
            gpus: f.gpus,
        }
    }
}

/// The cheapest configuration that meets the contract.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BestView {
    pub point: Point,
    /// The scenario of the complete contract `llmsim check` accepts, as JSON (it goes on the
    /// stage; the page reads it as it reads a link's).
    pub scenario: String,
    pub usd_per_million_good_tokens: f64,
    pub launch: Vec<String>,
    pub slack: Vec<Slack>,
}

/// Why a configuration failed: the binding constraint and its numbers, ready to word.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Why {
    /// `Bound::id`.
    pub bound: String,
    /// The sentence's placeholders (`features.plan.why.<bound>`), numbers already formatted.
    pub args: Vec<(String, String)>,
}

impl Why {
    pub fn of(b: Bound, e: &Evidence) -> Why {
        let ms = |v: f64| format::ms(v);
        let args: Vec<(&str, String)> = match b {
            Bound::KvMemory => vec![
                ("peak", format::pct(e.kv_peak)),
                ("preempted", format::int(e.preempted)),
                ("oom", format::int(e.oom_restarts)),
            ],
            Bound::SchedulingCaps => vec![
                ("running", format::int(e.peak_running)),
                ("cap", format::int(u64::from(e.max_num_seqs))),
                ("peak", format::pct(e.kv_peak)),
                ("queue", ms(e.queue_p99_ms)),
            ],
            Bound::DecodeBandwidth => vec![("p50", ms(e.tpot_p50_ms)), ("target", ms(e.tpot_target_ms))],
            Bound::Interference => {
                vec![("p50", ms(e.tpot_p50_ms)), ("target", ms(e.tpot_target_ms)), ("p99", ms(e.tpot_p99_ms))]
            }
            Bound::Queueing => vec![("ttft", ms(e.ttft_p99_ms)), ("queue", ms(e.queue_p99_ms))],
            Bound::PrefillCompute => vec![("ttft", ms(e.ttft_p99_ms)), ("prefill", ms(e.prefill_p99_ms))],
            Bound::Weights | Bound::Cost | Bound::GpuBudget => Vec::new(),
        };
        Why { bound: b.id().to_string(), args: args.into_iter().map(|(k, v)| (k.to_string(), v)).collect() }
    }

    /// The constraint's name in the page's words.
    pub fn name(&self, w: &dyn Words) -> String {
        w.t(&bound_key(&self.bound))
    }

    /// The sentence with its numbers in the page's words.
    pub fn said(&self, w: &dyn Words) -> String {
        let args: Vec<(&str, String)> = self.args.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
        w.tf(&format!("features.plan.why.{}", self.bound), &args)
    }
}

/// Translation key of a binding constraint's name.
pub fn bound_key(id: &str) -> String {
    format!("features.plan.bound.{id}")
}

/// Every translation key the bounds' words need.
pub fn bound_keys() -> Vec<String> {
    Bound::ALL.iter().flat_map(|b| [bound_key(b.id()), format!("features.plan.why.{}", b.id())]).collect()
}

/// A cheaper configuration that failed, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RejectedView {
    /// `Candidate::shape_label`: the engines and token budgets that failed alike are `variants`.
    pub label: String,
    pub variants: Vec<String>,
    pub usd_per_hour: f64,
    pub why: Why,
    /// The acceptance lines it failed (contract fields).
    pub fails: Vec<String>,
}

/// The answer as the page shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub best: Option<BestView>,
    /// Cheaper configurations that failed, most expensive first.
    pub rejected: Vec<RejectedView>,
    /// Cost against p99 TTFT: no point both cheaper and faster.
    pub front: Vec<Point>,
    /// Nothing met the contract: the constraint that bound most, and the closest configuration.
    pub infeasible: Option<(Why, Option<RejectedView>)>,
    pub searched: u64,
    pub simulated: u64,
}

/// Rows of the binding-constraint table the page shows at most.
pub const MAX_REJECTED: usize = 12;

impl Outcome {
    pub fn of(a: &PlanAnswer) -> Outcome {
        let view = |r: &lab_content::plan::Rejected, label: String, variants: Vec<String>| RejectedView {
            label,
            variants,
            usd_per_hour: r.usd_per_hour,
            why: Why::of(r.bound, &r.evidence),
            fails: r.fails.iter().map(|f| f.rule.clone()).collect(),
        };
        Outcome {
            best: a.best.as_ref().map(|b| BestView {
                point: Point::of(&b.plan),
                scenario: b.contract.scenario().map(|s| s.to_json_pretty()).unwrap_or_default(),
                usd_per_million_good_tokens: b.usd_per_million_good_tokens,
                launch: b.launch.clone(),
                slack: b.slack.clone(),
            }),
            rejected: lab_content::plan::group_rejected(&a.rejected)
                .into_iter()
                .map(|g| view(g.first, g.label, g.variants))
                .collect(),
            front: a.pareto.cost_ttft.iter().map(Point::of).collect(),
            infeasible: a.infeasible.as_ref().map(|i| {
                let why = match &i.closest {
                    Some(c) => Why::of(c.bound, &c.evidence),
                    None => Why { bound: i.bound.id().to_string(), args: Vec::new() },
                };
                (why, i.closest.as_ref().map(|c| view(c, c.candidate.label(c.units), Vec::new())))
            }),
            searched: a.searched,
            simulated: a.simulated,
        }
    }

    /// The launch commands as one block of text.
    pub fn launch_text(&self) -> String {
        self.best.as_ref().map(|b| b.launch.join("\n")).unwrap_or_default()
    }
}

/// A contract field's name in the page's words (the contract tab's line words), else the field.
pub fn rule_label(w: &dyn Words, rule: &str) -> String {
    super::contract::line_key(rule).map_or_else(|| rule.to_string(), |k| w.t(&k))
}

/// A value of an acceptance line as the page shows it, by its field's kind.
pub fn rule_value(rule: &str, v: f64) -> String {
    if rule.ends_with("_ms") {
        format::ms(v)
    } else if rule.contains("attainment") || rule.contains("error_rate") || rule.contains("headroom") {
        format::pct(v)
    } else if rule.contains("usd") {
        format::usd(v)
    } else if rule.contains("req_s") || rule.contains("rate_per_s") {
        format!("{} req/s", format::rate(v))
    } else if (v - v.round()).abs() < 1e-9 {
        format::int(v.max(0.0) as u64)
    } else {
        format!("{v:.1}")
    }
}

/// A slack row's cells: the rule, measured, target, and the share left.
pub fn slack_cells(w: &dyn Words, s: &Slack) -> [String; 4] {
    [rule_label(w, &s.rule), rule_value(&s.rule, s.measured), rule_value(&s.rule, s.target), format::pct(s.slack)]
}

/// Label keys of the slack table's columns.
pub const SLACK_COLUMNS: [&str; 4] = [
    "features.contract.col.field",
    "features.contract.col.measured",
    "features.contract.col.target",
    "features.plan.col.slack",
];

/// Label keys of the binding-constraint table's columns.
pub const REJECTED_COLUMNS: [&str; 4] =
    ["features.plan.col.config", "features.plan.col.cost", "features.plan.col.bound", "features.plan.col.why"];

/// The Pareto chart: p99 TTFT (log) against the cost of each configuration on the front, the
/// chosen one marked.
pub fn figure(o: Option<&Outcome>, w: &dyn Words) -> Figure {
    let front: Vec<(f64, f64)> =
        o.map(|o| o.front.iter().map(|p| (p.usd_per_hour, p.ttft_p99_ms.max(1e-3))).collect()).unwrap_or_default();
    let chosen = o.and_then(|o| o.best.as_ref()).map(|b| (b.point.usd_per_hour, b.point.ttft_p99_ms.max(1e-3)));
    let all: Vec<(f64, f64)> = front.iter().copied().chain(chosen).collect();
    let (x0, x1, y0, y1) = all.iter().fold((f64::INFINITY, 0.0f64, f64::INFINITY, 0.0f64), |(a, b, c, d), p| {
        (a.min(p.0), b.max(p.0), c.min(p.1), d.max(p.1))
    });
    let (x, y) = if all.is_empty() {
        (Axis::zero_to(1.0), Axis::log_decades(10.0, 1000.0))
    } else {
        (Axis::zero_to(x1.max(x0) * 1.1), Axis::log_decades(y0, y1))
    };
    let mut f = Figure::new(w.t("features.plan.chart"), (x, Units::Count), (y, Units::Ms));
    f.line(&front, Ink::SweepTtft, Dash::Solid, 2.0);
    f.dots(&front, Ink::SweepTtft, 3.5);
    if let Some(c) = chosen {
        f.dots(&[c], Ink::Knee, 6.0);
        f.items.push(Item::VLine { x: c.0, ink: Ink::Knee, label: w.t("features.plan.chosen") });
    }
    f.legend(w.t("features.plan.legend_front"), Ink::SweepTtft, Dash::Solid);
    f.note(all.is_empty().then(|| w.t("features.plan.chart_empty")));
    f
}

/// Where a search is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RunPhase {
    #[default]
    Idle,
    Running,
    Done,
    Cancelled,
    Failed,
}

impl RunPhase {
    /// As `data-phase`.
    pub fn id(self) -> &'static str {
        match self {
            RunPhase::Idle => "idle",
            RunPhase::Running => "running",
            RunPhase::Done => "done",
            RunPhase::Cancelled => "cancelled",
            RunPhase::Failed => "failed",
        }
    }
}

/// The search on screen.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlanRun {
    pub phase: RunPhase,
    pub step: Option<Step>,
    pub outcome: Option<Outcome>,
    /// Why the search could not run (a translation key or the planner's English).
    pub error: Option<String>,
    /// The contract the answer on screen planned (the page says when the form changed since).
    pub planned: Option<Contract>,
    /// When it started and how long it took, ms of the page's clock.
    pub started_ms: f64,
    pub took_ms: Option<f64>,
}

impl PlanRun {
    pub fn may_start(&self, invalid: bool) -> bool {
        self.phase != RunPhase::Running && !invalid
    }

    pub fn started(&mut self, contract: Contract, now_ms: f64) {
        *self = PlanRun { phase: RunPhase::Running, planned: Some(contract), started_ms: now_ms, ..PlanRun::default() };
    }

    /// A worker's reply; stale replies (after a cancel) change nothing.
    pub fn reply(&mut self, r: Reply, now_ms: f64) {
        if self.phase != RunPhase::Running {
            return;
        }
        match r {
            Reply::Progress(s) => self.step = Some(s),
            Reply::Answer(o) => {
                self.outcome = Some(*o);
                self.phase = RunPhase::Done;
                self.took_ms = Some(now_ms - self.started_ms);
            }
            Reply::Error(e) => self.failed(e),
            Reply::Part(_) => {}
        }
    }

    pub fn failed(&mut self, e: String) {
        self.error = Some(e);
        self.phase = RunPhase::Failed;
    }

    pub fn cancelled(&mut self) {
        if self.phase == RunPhase::Running {
            self.phase = RunPhase::Cancelled;
        }
    }

    /// The progress bar's share: candidates tried of the total (the answer phase shows full).
    pub fn share(&self) -> f64 {
        match (&self.step, self.phase) {
            (_, RunPhase::Done) => 1.0,
            (Some(s), _) if s.answering => 1.0,
            (Some(s), _) if s.total > 0 => s.tried as f64 / s.total as f64,
            _ => 0.0,
        }
    }

    /// The status line: a key and its values.
    pub fn status(&self) -> (&'static str, Vec<(&'static str, String)>) {
        let s = self.step.clone().unwrap_or_default();
        let best = s.best_usd_per_hour.map(|v| format!("{}/h", format::usd(v))).unwrap_or_else(|| "–".into());
        match self.phase {
            RunPhase::Idle => ("features.plan.idle", Vec::new()),
            RunPhase::Running if s.answering => ("features.plan.answering", vec![("best", best)]),
            RunPhase::Running => (
                "features.plan.progress",
                vec![
                    ("tried", format::int(s.tried as u64)),
                    ("total", format::int(s.total as u64)),
                    ("runs", format::int(s.simulated)),
                    ("best", best),
                ],
            ),
            RunPhase::Done => (
                "features.plan.done",
                vec![
                    ("runs", format::int(self.outcome.as_ref().map_or(s.simulated, |o| o.simulated))),
                    ("seconds", format!("{:.1}", self.took_ms.unwrap_or(0.0) / 1000.0)),
                ],
            ),
            RunPhase::Cancelled => ("features.plan.cancelled", Vec::new()),
            RunPhase::Failed => ("features.plan.failed", Vec::new()),
        }
    }

    /// The answer on screen no longer matches the form's contract.
    pub fn stale(&self, now: &Contract) -> bool {
        self.outcome.is_some() && self.planned.as_ref().is_some_and(|p| p != now)
    }
}

/// Every translation key this module names.
pub fn keys() -> Vec<String> {
    let mut k: Vec<String> = [
        "features.plan.err.max_gpus",
        "features.plan.err.no_gpu",
        "features.plan.err.no_engine",
        "features.plan.chart",
        "features.plan.chosen",
        "features.plan.legend_front",
        "features.plan.chart_empty",
        "features.plan.idle",
        "features.plan.answering",
        "features.plan.progress",
        "features.plan.done",
        "features.plan.cancelled",
        "features.plan.failed",
    ]
    .into_iter()
    .chain(SLACK_COLUMNS)
    .chain(REJECTED_COLUMNS)
    .map(str::to_string)
    .collect();
    k.extend(bound_keys());
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::Keys;
    use lab_content::contract::EXAMPLE;
    use lab_content::plan::Planner;
    use sim_core::sim::BuiltinTraces;

    fn small() -> Choices {
        Choices { gpus: vec!["l4".into(), "h100-sxm".into()], engines: vec!["vllm".into()], max_gpus: 8, splits: false }
    }

    #[test]
    fn the_form_ticks_in_catalogue_order_and_refuses_an_empty_choice() {
        let mut c = Choices::default();
        assert!(c.options().is_ok());
        let n = c.gpus.len();
        c.tick("gpu:l4", false);
        assert_eq!(c.gpus.len(), n - 1);
        c.tick("gpu:l4", true);
        assert_eq!(c, Choices::default());
        c.gpus.clear();
        assert_eq!(c.options(), Err("features.plan.err.no_gpu"));
        c.tick("gpu:h100-sxm", true);
        for e in Engine::ALL {
            c.tick(&format!("engine:{}", e.name()), false);
        }
        assert_eq!(c.options(), Err("features.plan.err.no_engine"));
        c.tick("engine:sglang", true);
        c.tick("splits", false);
        let o = c.options().unwrap();
        assert_eq!((o.gpus, o.engines, o.splits), (Some(vec!["h100-sxm".to_string()]), vec![Engine::Sglang], false));
        assert_eq!(c.set_max_gpus("0"), Err("features.plan.err.max_gpus"));
        assert_eq!(c.set_max_gpus("2.5"), Err("features.plan.err.max_gpus"));
        assert_eq!(c.set_max_gpus(" 16 "), Ok(()));
        assert_eq!(c.max_gpus, 16);
    }

    /// One worker's search as the page sees it: progress after every step, tried never going
    /// back, then an answer whose best is the planner's own.
    #[test]
    fn a_search_reports_progress_then_the_answer_the_planner_gives() {
        let contract = Contract::from_json(EXAMPLE).unwrap();
        let req = Request { contract: contract.clone(), choices: small() };
        let (o, steps) = crate::tabs::plan_crew::tests::crew_search(1, &req.to_json(), &mut |_| 0);
        assert!(steps.len() >= 3, "{}", steps.len());
        assert!(steps.windows(2).all(|w| w[1].tried >= w[0].tried || w[1].answering));
        assert!(steps.iter().any(|s| s.best_usd_per_hour.is_some()));
        let mut replies: Vec<Reply> = steps.into_iter().map(Reply::Progress).collect();
        replies.push(Reply::Answer(Box::new(o.clone())));
        let direct = Planner::new(&contract, &small().options().unwrap(), &BuiltinTraces).unwrap().run();
        let best = o.best.as_ref().expect("the example can be met");
        assert_eq!(best.point.usd_per_hour, direct.best.as_ref().unwrap().usd_per_hour);
        assert!(!best.launch.is_empty() && !best.slack.is_empty());
        assert!(o.front.iter().any(|p| p.label == best.point.label));
        assert!(o.rejected.iter().all(|r| r.usd_per_hour < best.point.usd_per_hour));
        assert!(sim_core::Scenario::from_json(&best.scenario).is_ok());
        assert_eq!(serde_json::from_str::<Request>(&req.to_json()).unwrap(), req);
        // the answer on screen
        let mut run = PlanRun::default();
        run.started(contract.clone(), 100.0);
        for r in replies {
            run.reply(r, 600.0);
        }
        assert_eq!((run.phase, run.took_ms, run.share()), (RunPhase::Done, Some(500.0), 1.0));
        assert!(!run.stale(&contract));
        let fig = figure(run.outcome.as_ref(), &Keys);
        assert!(fig.items.iter().any(|i| matches!(i, Item::Dot { ink: Ink::Knee, .. })));
    }

    #[test]
    fn a_run_takes_replies_only_while_it_runs() {
        let c = Contract::from_json(EXAMPLE).unwrap();
        let mut run = PlanRun::default();
        assert!(run.may_start(false) && !run.may_start(true));
        assert_eq!(run.status().0, "features.plan.idle");
        run.started(c.clone(), 0.0);
        assert!(!run.may_start(false));
        let step = Step { tried: 5, total: 20, simulated: 40, best_usd_per_hour: Some(2.5), ..Step::default() };
        run.reply(Reply::Progress(step), 1.0);
        assert_eq!(run.share(), 0.25);
        let (key, args) = run.status();
        assert_eq!(key, "features.plan.progress");
        assert_eq!(args[3], ("best", format!("{}/h", format::usd(2.5))));
        run.cancelled();
        assert_eq!(run.phase, RunPhase::Cancelled);
        run.reply(Reply::Error("late".into()), 2.0);
        assert_eq!((run.phase, run.error.as_deref()), (RunPhase::Cancelled, None));
        let mut other = c.clone();
        other.name = Some("another".into());
        run.outcome = Some(Outcome {
            best: None,
            rejected: Vec::new(),
            front: Vec::new(),
            infeasible: None,
            searched: 0,
            simulated: 0,
        });
        assert!(run.stale(&other) && !run.stale(&c));
    }

    #[test]
    fn a_bound_is_worded_with_its_numbers() {
        let e =
            Evidence { peak_running: 65, max_num_seqs: 65, kv_peak: 0.17, queue_p99_ms: 1782.0, ..Evidence::default() };
        let why = Why::of(Bound::SchedulingCaps, &e);
        assert_eq!(why.name(&Keys), "features.plan.bound.scheduling_caps");
        let said = why.said(&Keys);
        assert!(said.starts_with("features.plan.why.scheduling_caps{"), "{said}");
        assert!(said.contains("running=65") && said.contains(&format::ms(1782.0)), "{said}");
        assert_eq!(rule_value("slo.ttft_p99_ms", 105.0), format::ms(105.0));
        assert_eq!(rule_value("acceptance.min_slo_attainment", 0.99), format::pct(0.99));
        assert_eq!(rule_value("request_limits.max_concurrency", 147.362959), "147.4");
        assert_eq!(rule_value("request_limits.max_concurrency", 147.0), "147");
        assert_eq!(rule_value("slo.goodput_min_req_s", 8.04), format!("{} req/s", format::rate(8.04)));
        assert_eq!(slack_cells(&Keys, &Slack { rule: "x.y".into(), measured: 1.0, target: 2.0, slack: 0.5 })[0], "x.y");
        assert!(figure(None, &Keys).items.contains(&Item::Note("features.plan.chart_empty".into())));
    }
}
