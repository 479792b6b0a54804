//! The guided lessons' model side: for each claim of the article, the runs that show it and the
//! outcome a learner predicts, computed from those runs' numbers.
//!
//! The words (question, choices, feedback, sentences) live in the app's translation tables, keyed
//! by lesson id, choice index, sentence key and the named numbers in [`Outcome::numbers`]; this
//! module decides which choice the runs bear out and which sentences the explanation says, each
//! sentence only when its condition on the numbers holds, so an explanation can never claim what
//! the run did not show. Every lesson runs on any seed; [`Lesson::agreement`] says on how many
//! seeds the runs bear out the answer the lesson teaches.
//!
//! One module per lesson, each defining its `LESSON`.

use crate::sweep::SweepParam;
use serde::Serialize;
use sim_core::metric::{Count, Latency, Metric, Stat};
use sim_core::metrics::{ClassSummary, Summary};
use sim_core::presets;
use sim_core::scenario::{Arrival, KvLayout, LengthDist, Scenario};
use std::collections::BTreeMap;

mod change;
mod context_too_large;
mod cost_per_good_token;
mod disaggregation;
mod goodput_vs_throughput;
mod headroom;
mod kv_arithmetic;
mod latency_vs_throughput_first;
mod long_outputs;
mod mean_hides_tail;
mod mixed_traffic;
mod moments;
mod neighbours;
mod prefix_caching;
mod quantization;
mod routing;
mod safe_zone;
mod speculative_crowd;
mod tp_vs_replicas;
mod tpot_vs_itl;
mod ttft_vs_tpot;
mod what_limits;

pub use change::{apply_to, Change, ChangeError, Classes};
pub use cost_per_good_token::{CostGpu, COST_GPUS};
pub(crate) use disaggregation::busy_colocated;
pub use moments::{moments_of, Moment, MomentKind, KV_FULL, QUEUE_FILLS};
pub use neighbours::{
    named_limit, next_gpu, next_model, Neighbour, NeighbourAgreement, Skip, HOLDS_AT, LIMITS, LIMIT_SENTENCE,
    NEIGHBOURS,
};
pub(crate) use prefix_caching::under_pressure;
pub use safe_zone::SAFE_ZONE_RATES;

/// The lessons, in teaching order.
pub const LESSONS: &[Lesson] = &[
    mean_hides_tail::LESSON,
    ttft_vs_tpot::LESSON,
    tpot_vs_itl::LESSON,
    goodput_vs_throughput::LESSON,
    kv_arithmetic::LESSON,
    headroom::LESSON,
    latency_vs_throughput_first::LESSON,
    mixed_traffic::LESSON,
    context_too_large::LESSON,
    cost_per_good_token::LESSON,
    safe_zone::LESSON,
    speculative_crowd::LESSON,
    prefix_caching::LESSON,
    routing::LESSON,
    disaggregation::LESSON,
    long_outputs::LESSON,
    quantization::LESSON,
    tp_vs_replicas::LESSON,
    what_limits::LESSON,
];

/// The seed the page opens a lesson with (the presets' seed).
pub const DEFAULT_SEED: u64 = 7;

/// One run of a lesson: a label (for the A/B view) and its scenario.
#[derive(Clone, Debug)]
pub struct LessonRun {
    pub variant: &'static str,
    pub scenario: Scenario,
}

/// What the runs showed: which choice was right, the numbers the explanation quotes and the
/// sentences it says.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub answer: usize,
    pub numbers: BTreeMap<&'static str, f64>,
    /// The explanation, in order: keys of [`Lesson::sentences`], each said because its condition
    /// on the numbers held.
    pub sentences: Vec<&'static str>,
}

/// A lesson: the runs to make, how many choices the question has, the answer it teaches, the
/// metric to highlight, and the rule that reads the outcome from the runs' summaries (in the
/// order of `runs`).
pub struct Lesson {
    pub id: &'static str,
    pub choices: usize,
    /// The choice the lesson teaches: the runs bear it out on (almost) every seed.
    pub taught: usize,
    /// The number the page points at when the outcome shows (the page decides how).
    pub highlight: Metric,
    /// The class a lesson about one class of traffic is about (the page shows its rows).
    pub focus_class: Option<&'static str>,
    /// Every sentence the outcome may say, in the order they are said.
    pub sentences: &'static [&'static str],
    /// The runs for a seed; [`Lesson::scenarios`] gives every run that seed.
    pub runs: fn(u64) -> Vec<LessonRun>,
    /// The runs the stage plays while the learner watches (positions in `runs`): one, or two as
    /// A and B, chosen to show the point.
    pub watch: &'static [usize],
    pub outcome: fn(&[Summary]) -> Outcome,
}

/// How one seed's runs came out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeedAnswer {
    pub seed: u64,
    /// The choice this seed's runs bear out.
    pub answer: usize,
    /// It is the one the lesson teaches.
    pub agrees: bool,
}

/// A lesson run over many seeds: the answer it teaches and the share of seeds that bear it out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Agreement {
    pub id: &'static str,
    /// The answer the lesson teaches.
    pub answer: usize,
    pub agree_share: f64,
    pub per_seed: Vec<SeedAnswer>,
}

pub fn find(id: &str) -> Option<&'static Lesson> {
    LESSONS.iter().find(|l| l.id == id)
}

impl Lesson {
    /// The lesson's runs on `seed` (every run's scenario gets that seed).
    pub fn scenarios(&self, seed: u64) -> Vec<LessonRun> {
        let mut runs = (self.runs)(seed);
        for r in &mut runs {
            r.scenario.seed = seed;
        }
        runs
    }

    /// Runs every scenario to the end and reads the outcome (the CLI and tests; the page runs
    /// the same scenarios visibly).
    pub fn run(&self, seed: u64) -> (Vec<Summary>, Outcome) {
        self.run_changed(seed, |_, _| {}).expect("lesson scenarios are valid")
    }

    /// Runs the lesson after `change` (given each run's position and scenario) and reads the
    /// outcome: what a learner's "try" does, and how the tests reach every choice.
    pub fn run_changed(
        &self,
        seed: u64,
        change: impl Fn(usize, &mut Scenario),
    ) -> Result<(Vec<Summary>, Outcome), sim_core::ScenarioError> {
        let mut sums = Vec::new();
        for (i, mut r) in self.scenarios(seed).into_iter().enumerate() {
            change(i, &mut r.scenario);
            sums.push(sim_core::Simulation::new(&r.scenario)?.run_to_end());
        }
        let o = (self.outcome)(&sums);
        Ok((sums, o))
    }

    /// Every run serves the same requests at the same times (only the serving differs), so A and B
    /// can be compared request for request.
    pub fn same_arrivals(&self, seed: u64) -> bool {
        let runs = self.scenarios(seed);
        runs.windows(2)
            .all(|w| w[0].scenario.seed == w[1].scenario.seed && w[0].scenario.classes == w[1].scenario.classes)
    }

    /// The lesson over `seeds`: which choice each seed's runs bear out, and the share that agree
    /// with the one the lesson teaches.
    pub fn agreement(&self, seeds: &[u64]) -> Agreement {
        self.agreement_prepared(seeds, &|_| Ok(())).expect("lesson scenarios are valid")
    }
}

/// The sentences whose condition holds, in the order given.
fn say(rules: &[(&'static str, bool)]) -> Vec<&'static str> {
    rules.iter().filter(|(_, holds)| *holds).map(|(key, _)| *key).collect()
}

fn base(id: &str) -> Scenario {
    presets::find(id).expect("lesson preset exists").scenario()
}

fn nums(pairs: &[(&'static str, f64)]) -> BTreeMap<&'static str, f64> {
    pairs.iter().copied().collect()
}

/// A number an explanation quotes: its name, the run it is read from, the metric, a divisor.
type Quote = (&'static str, usize, Metric, f64);

/// The quoted numbers of `runs`, plus the ones the rule computed itself (`extra`).
fn quote(runs: &[Summary], quotes: &[Quote], extra: &[(&'static str, f64)]) -> BTreeMap<&'static str, f64> {
    let read = quotes.iter().map(|&(name, i, m, div)| (name, m.of(&runs[i]) / div));
    read.chain(extra.iter().copied()).collect()
}

/// `m` of one class (or of all traffic, `summary.all`): lessons read only metrics every class has.
fn of_class(m: Metric, c: &ClassSummary) -> f64 {
    m.of_class(c).expect("a metric every class has")
}

/// The index of the first choice whose condition holds, else the last choice: the shape of
/// every rule ("below 1.5× is choice 0, below 3× choice 1, else choice 2").
fn first(conditions: &[bool]) -> usize {
    conditions.iter().position(|c| *c).unwrap_or(conditions.len())
}

const GIB: f64 = (1u64 << 30) as f64;
const TTFT_P50: Metric = Metric::Latency(Latency::Ttft, Stat::P50);
const TTFT_MEAN: Metric = Metric::Latency(Latency::Ttft, Stat::Mean);
const TPOT_MEAN: Metric = Metric::Latency(Latency::Tpot, Stat::Mean);
const QUEUE_MEAN: Metric = Metric::Latency(Latency::Queue, Stat::Mean);
const PREFILL_MEAN: Metric = Metric::Latency(Latency::Prefill, Stat::Mean);
const THROUGHPUT: Metric = Metric::ThroughputTokens;
const GOODPUT: Metric = Metric::GoodputTokens;

fn smaller(mut s: Scenario, per_class: u64) -> Scenario {
    for c in &mut s.classes {
        if c.num_requests.is_some() {
            c.num_requests = Some(per_class);
        }
    }
    s
}

/// `s` on the lessons' server: vLLM V1 as it schedules (paged KV in blocks of 16, chunked
/// prefill, no queue timeout, no queue limit, no over-commit) with up to 256 sequences and 8,192
/// tokens per step (today's `vllm serve` allows an H100 1,024 sequences; `sim_core::profile`).
/// Lessons use it unless the setting is the point of the lesson.
fn lesson_server(mut s: Scenario) -> Scenario {
    let c = &mut s.scheduler;
    c.max_num_seqs = 256;
    c.max_num_batched_tokens = 8192;
    c.chunked_prefill = true;
    c.kv_layout = KvLayout::Paged;
    c.block_size = 16;
    c.queue_timeout_ms = None;
    c.max_queue_len = None;
    c.overcommit = false;
    s.gpu_memory_utilization = 0.9;
    s
}

/// Reads the knee of a load sweep: the offered rate with the most goodput.
pub fn knee(points: &[crate::sweep::SweepPoint]) -> Option<(f64, f64)> {
    points
        .iter()
        .filter_map(|p| p.summary.as_ref().map(|s| (p.value, GOODPUT.of(s))))
        .fold(None, |best: Option<(f64, f64)>, (v, g)| if best.is_none_or(|b| g > b.1) { Some((v, g)) } else { best })
}
