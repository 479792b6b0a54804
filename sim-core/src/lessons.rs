//! The guided lessons' model side: for each claim of the article, the runs that show it and the
//! outcome a learner predicts, computed from those runs' numbers.
//!
//! The words (question, choices, explanation) live in the app's translation tables, keyed by
//! lesson id, choice index and the named numbers in [`Outcome::numbers`]; this module decides
//! which choice the runs bear out, so an explanation can never claim what the run did not show.

use crate::metric::{Count, Latency, Metric, Stat};
use crate::metrics::Summary;
use crate::presets;
use crate::scenario::{Arrival, KvLayout, LengthDist, Scenario};
use crate::sweep::SweepParam;
use std::collections::BTreeMap;

/// One run of a lesson: a label (for the A/B view) and its scenario.
#[derive(Clone, Debug)]
pub struct LessonRun {
    pub variant: &'static str,
    pub scenario: Scenario,
}

/// What the runs showed: which choice was right and the numbers the explanation quotes.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub answer: usize,
    pub numbers: BTreeMap<&'static str, f64>,
}

/// A lesson: the runs to make, how many choices the question has, the metric to highlight, and
/// the rule that reads the outcome from the runs' summaries (in the order of `runs`).
pub struct Lesson {
    pub id: &'static str,
    pub choices: usize,
    /// The number the page points at when the outcome shows (the page decides how).
    pub highlight: Metric,
    pub runs: fn() -> Vec<LessonRun>,
    pub outcome: fn(&[Summary]) -> Outcome,
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

/// The index of the first choice whose condition holds, else the last choice: the shape of
/// every rule ("below 1.5× is choice 0, below 3× choice 1, else choice 2").
fn first(conditions: &[bool]) -> usize {
    conditions.iter().position(|c| *c).unwrap_or(conditions.len())
}

const GIB: f64 = (1u64 << 30) as f64;
const TTFT_P50: Metric = Metric::Latency(Latency::Ttft, Stat::P50);
const TTFT_MEAN: Metric = Metric::Latency(Latency::Ttft, Stat::Mean);
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

fn chat_burst() -> Vec<LessonRun> {
    let mut s = smaller(base("chat-latency-first"), 600);
    s.classes[0].arrival = Arrival::Bursty { rate_per_s: 7.0, cv: 3.0 };
    s.scheduler.queue_timeout_ms = None;
    s.scheduler.max_queue_len = None;
    vec![LessonRun { variant: "bursty-chat", scenario: s }]
}

fn mean_vs_tail(r: &[Summary]) -> Outcome {
    let (mean, p99) = (r[0].all.ttft_ms.mean, r[0].all.ttft_ms.p99);
    let ratio = p99 / mean;
    // choices: p99 ≈ mean, ≈ 2× mean, ≥ 3× mean
    let answer = first(&[ratio < 1.5, ratio < 3.0]);
    let quotes = [
        ("ttft_mean_ms", 0, TTFT_MEAN, 1.0),
        ("ttft_p50_ms", 0, TTFT_P50, 1.0),
        ("ttft_p99_ms", 0, Metric::TTFT_P99, 1.0),
    ];
    Outcome { answer, numbers: quote(r, &quotes, &[("ratio", ratio)]) }
}

fn ttft_vs_tpot_runs() -> Vec<LessonRun> {
    let mut a = smaller(base("chat-latency-first"), 600);
    a.scheduler.queue_timeout_ms = None;
    a.scheduler.max_queue_len = None;
    a.classes[0].arrival = Arrival::Poisson { rate_per_s: 4.0 };
    let mut b = a.clone();
    b.classes[0].arrival = Arrival::Poisson { rate_per_s: 9.0 };
    vec![LessonRun { variant: "4-req-s", scenario: a }, LessonRun { variant: "9-req-s", scenario: b }]
}

fn ttft_vs_tpot(r: &[Summary]) -> Outcome {
    let ttft = r[1].all.ttft_ms.p99 / r[0].all.ttft_ms.p99;
    let tpot = r[1].all.tpot_ms.p99 / r[0].all.tpot_ms.p99;
    // choices: TTFT rises more, TPOT rises more, both about the same
    let answer = first(&[ttft > 1.5 * tpot, tpot > 1.5 * ttft]);
    let quotes = [
        ("ttft_p99_a_ms", 0, Metric::TTFT_P99, 1.0),
        ("ttft_p99_b_ms", 1, Metric::TTFT_P99, 1.0),
        ("tpot_p99_a_ms", 0, Metric::TPOT_P99, 1.0),
        ("tpot_p99_b_ms", 1, Metric::TPOT_P99, 1.0),
        ("queue_mean_a_ms", 0, QUEUE_MEAN, 1.0),
        ("queue_mean_b_ms", 1, QUEUE_MEAN, 1.0),
        ("prefill_mean_b_ms", 1, PREFILL_MEAN, 1.0),
    ];
    Outcome { answer, numbers: quote(r, &quotes, &[("ttft_growth", ttft), ("tpot_growth", tpot)]) }
}

fn strict_slo_runs() -> Vec<LessonRun> {
    // the same server, batching to the limit (max_num_seqs 512), at moderate and at high load
    let high = smaller(base("risk-strict-slo"), 1500);
    let mut moderate = high.clone();
    moderate.classes[0].arrival = Arrival::Poisson { rate_per_s: 8.0 };
    vec![LessonRun { variant: "8-req-s", scenario: moderate }, LessonRun { variant: "20-req-s", scenario: high }]
}

fn strict_slo(r: &[Summary]) -> Outcome {
    let (a, b) = (&r[0].all, &r[1].all);
    let thr_up = b.throughput.output_tokens_per_s > a.throughput.output_tokens_per_s;
    let good_up = b.goodput.output_tokens_per_s > a.goodput.output_tokens_per_s;
    // choices: goodput rises with throughput, goodput falls while throughput rises, both fall
    let answer = first(&[thr_up && good_up, thr_up && !good_up]);
    let quotes = [
        ("throughput_a", 0, THROUGHPUT, 1.0),
        ("throughput_b", 1, THROUGHPUT, 1.0),
        ("goodput_a", 0, GOODPUT, 1.0),
        ("goodput_b", 1, GOODPUT, 1.0),
        ("tpot_p99_a_ms", 0, Metric::TPOT_P99, 1.0),
        ("tpot_p99_b_ms", 1, Metric::TPOT_P99, 1.0),
        ("attainment_a", 0, Metric::SloAttainment, 1.0),
        ("attainment_b", 1, Metric::SloAttainment, 1.0),
    ];
    Outcome { answer, numbers: quote(r, &quotes, &[]) }
}

fn kv_runs() -> Vec<LessonRun> {
    // 10 users, each always holding a 2,048-token conversation (prompt 1,792 + 256 output)
    let mut s = base("chat-latency-first");
    s.model = crate::scenario::ModelRef::Id("llama-3-8b".into());
    s.scheduler.max_num_seqs = 10;
    s.scheduler.queue_timeout_ms = None;
    s.scheduler.max_queue_len = None;
    let c = &mut s.classes[0];
    c.arrival = Arrival::ClosedLoop { users: 10, think_time_ms: 0.0 };
    c.num_requests = Some(60);
    c.input_tokens = Some(LengthDist::Fixed { value: 1792 });
    c.output_tokens = Some(LengthDist::Fixed { value: 257 });
    let mut mha = s.clone();
    mha.model = crate::scenario::ModelRef::Id("llama-2-7b".into());
    mha.scheduler.max_model_len = 4096;
    vec![LessonRun { variant: "llama-3-8b", scenario: s }, LessonRun { variant: "llama-2-7b", scenario: mha }]
}

fn kv_arithmetic(r: &[Summary]) -> Outcome {
    let tokens = 10.0 * 2048.0;
    let gqa = r[0].memory.kv_bytes_per_token * tokens / GIB;
    let mha = r[1].memory.kv_bytes_per_token * tokens / GIB;
    // the article's formula in bf16: 10 × 2048 × layers × hidden × 2 (K,V) × 2 bytes
    let m = crate::catalog::find_model("llama-3-8b").expect("catalogue");
    let article = tokens * crate::memory::article_kv_elements_per_token(&m) * 2.0 / GIB;
    // choices: ~0.5 GiB, ~2.5 GiB, ~10 GiB (for Llama-3-8B)
    let answer = first(&[gqa < 1.0, gqa < 5.0]);
    let quotes = [
        ("kv_peak_gqa_gib", 0, Metric::KvPeakBytes, GIB),
        ("kv_peak_mha_gib", 1, Metric::KvPeakBytes, GIB),
        ("kv_kib_per_token_gqa", 0, Metric::KvBytesPerToken, 1024.0),
        ("kv_kib_per_token_mha", 1, Metric::KvBytesPerToken, 1024.0),
    ];
    let extra = [("kv_gqa_gib", gqa), ("kv_mha_gib", mha), ("kv_article_gib", article)];
    Outcome { answer, numbers: quote(r, &quotes, &extra) }
}

fn headroom_runs() -> Vec<LessonRun> {
    let full = base("risk-oom-full-memory");
    let mut safe = full.clone();
    safe.gpu_memory_utilization = 0.75;
    vec![LessonRun { variant: "util-0.95", scenario: full }, LessonRun { variant: "util-0.75", scenario: safe }]
}

fn headroom(r: &[Summary]) -> Outcome {
    // choices: 95% serves more good tokens, 75% serves more, about the same
    let (g95, g75) = (r[0].all.goodput.output_tokens_per_s, r[1].all.goodput.output_tokens_per_s);
    let answer = first(&[g95 > 1.1 * g75, g75 > 1.1 * g95]);
    let oom = Metric::Requests(Count::OomRestarts);
    let quotes = [
        ("oom_95", 0, oom, 1.0),
        ("oom_75", 1, oom, 1.0),
        ("failed_95", 0, Metric::Requests(Count::Failed), 1.0),
        ("goodput_95", 0, GOODPUT, 1.0),
        ("goodput_75", 1, GOODPUT, 1.0),
        ("kv_capacity_95_gib", 0, Metric::KvCapacityBytes, GIB),
        ("kv_capacity_75_gib", 1, Metric::KvCapacityBytes, GIB),
    ];
    Outcome { answer, numbers: quote(r, &quotes, &[]) }
}

fn strategy_runs() -> Vec<LessonRun> {
    // the same heavy chat traffic, served two ways
    let mut lat = smaller(base("chat-latency-first"), 1000);
    lat.classes[0].arrival = Arrival::Poisson { rate_per_s: 24.0 };
    lat.scheduler.max_num_seqs = 16;
    lat.scheduler.max_queue_len = Some(4);
    lat.scheduler.queue_timeout_ms = Some(300.0);
    let mut thr = lat.clone();
    thr.scheduler = base("batch-throughput-first").scheduler;
    thr.scheduler.max_model_len = lat.scheduler.max_model_len;
    vec![
        LessonRun { variant: "latency-first", scenario: lat },
        LessonRun { variant: "throughput-first", scenario: thr },
    ]
}

fn strategies(r: &[Summary]) -> Outcome {
    let (lat, thr) = (&r[0].all, &r[1].all);
    // choices: latency-first wins both; throughput-first wins both; each wins its own metric
    let lat_fast = lat.tpot_ms.p99 < thr.tpot_ms.p99 && lat.ttft_ms.p99 < thr.ttft_ms.p99;
    let thr_more = thr.throughput.output_tokens_per_s > lat.throughput.output_tokens_per_s;
    let answer = first(&[lat_fast && !thr_more, !lat_fast && thr_more]);
    let quotes = [
        ("ttft_p99_lat_ms", 0, Metric::TTFT_P99, 1.0),
        ("ttft_p99_thr_ms", 1, Metric::TTFT_P99, 1.0),
        ("tpot_p99_lat_ms", 0, Metric::TPOT_P99, 1.0),
        ("tpot_p99_thr_ms", 1, Metric::TPOT_P99, 1.0),
        ("throughput_lat", 0, THROUGHPUT, 1.0),
        ("throughput_thr", 1, THROUGHPUT, 1.0),
    ];
    let refused = |c: &crate::metrics::ClassSummary| (c.requests.rejected + c.requests.timed_out) as f64;
    Outcome { answer, numbers: quote(r, &quotes, &[("refused_lat", refused(lat)), ("refused_thr", refused(thr))]) }
}

fn mixed_runs() -> Vec<LessonRun> {
    vec![
        LessonRun { variant: "shared", scenario: base("mixed-shared") },
        LessonRun { variant: "isolated", scenario: base("mixed-isolated") },
    ]
}

fn mixed(r: &[Summary]) -> Outcome {
    let (s, i) = (&r[0].classes["chat"], &r[1].classes["chat"]);
    // choices: isolation lowers chat p99 TTFT, raises it, no change
    let answer = first(&[i.ttft_ms.p99 < 0.8 * s.ttft_ms.p99, i.ttft_ms.p99 > 1.2 * s.ttft_ms.p99]);
    Outcome {
        answer,
        numbers: nums(&[
            ("chat_ttft_p99_shared_ms", s.ttft_ms.p99),
            ("chat_ttft_p99_isolated_ms", i.ttft_ms.p99),
            ("chat_attainment_shared", s.goodput.slo_attainment),
            ("chat_attainment_isolated", i.goodput.slo_attainment),
            ("batch_ttft_p99_isolated_ms", r[1].classes["batch"].ttft_ms.p99),
        ]),
    }
}

fn context_runs() -> Vec<LessonRun> {
    let big = smaller(base("risk-context-too-large"), 600);
    let mut paged = big.clone();
    paged.scheduler.kv_layout = KvLayout::Paged;
    vec![LessonRun { variant: "contiguous-32k", scenario: big }, LessonRun { variant: "paged-32k", scenario: paged }]
}

fn context(r: &[Summary]) -> Outcome {
    let (c, p) = (&r[0], &r[1]);
    let ratio = p.memory.peak_running as f64 / c.memory.peak_running.max(1) as f64;
    // choices: paged holds about as many, ~2× as many, 3× or more sequences at once
    let answer = first(&[ratio < 1.5, ratio < 3.0]);
    let quotes = [
        ("peak_running_contiguous", 0, Metric::PeakRunning, 1.0),
        ("peak_running_paged", 1, Metric::PeakRunning, 1.0),
        ("waste_contiguous", 0, Metric::KvWasteMean, 1.0),
        ("waste_paged", 1, Metric::KvWasteMean, 1.0),
        ("ttft_p99_contiguous_ms", 0, Metric::TTFT_P99, 1.0),
        ("ttft_p99_paged_ms", 1, Metric::TTFT_P99, 1.0),
    ];
    Outcome { answer, numbers: quote(r, &quotes, &[("ratio", ratio)]) }
}

/// GPUs compared in the cost lesson, in run order.
pub const COST_GPUS: [&str; 3] = ["l40s", "a100-80gb", "h100-sxm"];

fn cost_runs() -> Vec<LessonRun> {
    COST_GPUS
        .iter()
        .map(|g| {
            let mut s = smaller(base("chat-latency-first"), 800);
            s.gpu = crate::scenario::GpuRef::Id((*g).into());
            s.scheduler.max_num_seqs = 64;
            s.classes[0].arrival = Arrival::Poisson { rate_per_s: 6.0 };
            LessonRun { variant: g, scenario: s }
        })
        .collect()
}

fn cost(r: &[Summary]) -> Outcome {
    // choices: the cheapest GPU-hour (index 0) gives the cheapest good token, or index 1, or 2
    let mut best = 0;
    for i in 1..r.len() {
        if r[i].cost.usd_per_million_good_tokens < r[best].cost.usd_per_million_good_tokens {
            best = i;
        }
    }
    let quotes = [
        ("usd_per_hour_0", 0, Metric::UsdPerHour, 1.0),
        ("usd_per_hour_1", 1, Metric::UsdPerHour, 1.0),
        ("usd_per_hour_2", 2, Metric::UsdPerHour, 1.0),
        ("usd_per_m_good_0", 0, Metric::UsdPerMillionGoodTokens, 1.0),
        ("usd_per_m_good_1", 1, Metric::UsdPerMillionGoodTokens, 1.0),
        ("usd_per_m_good_2", 2, Metric::UsdPerMillionGoodTokens, 1.0),
        ("attainment_0", 0, Metric::SloAttainment, 1.0),
        ("attainment_1", 1, Metric::SloAttainment, 1.0),
        ("attainment_2", 2, Metric::SloAttainment, 1.0),
    ];
    Outcome { answer: best, numbers: quote(r, &quotes, &[]) }
}

/// Offered loads (requests/s) of the safe-zone lesson's sweep.
pub const SAFE_ZONE_RATES: [f64; 10] = [2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0, 18.0, 20.0];

fn safe_zone_runs() -> Vec<LessonRun> {
    let base = smaller(base("chat-latency-first"), 600);
    SAFE_ZONE_RATES
        .iter()
        .map(|r| LessonRun {
            variant: "rate",
            scenario: SweepParam::RatePerS.apply(&base, *r).expect("rates in range"),
        })
        .collect()
}

fn safe_zone(r: &[Summary]) -> Outcome {
    let good: Vec<f64> = r.iter().map(|s| s.all.goodput.output_tokens_per_s).collect();
    let (mut k, mut best) = (0, f64::MIN);
    for (i, g) in good.iter().enumerate() {
        if *g > best {
            best = *g;
            k = i;
        }
    }
    let last = r.len() - 1;
    let (lo, hi) = good.iter().fold((f64::MAX, f64::MIN), |(a, b), g| (a.min(*g), b.max(*g)));
    // choices: goodput keeps rising to the highest load; it peaks at a knee and falls; it stays flat
    let answer = if hi - lo < 0.1 * hi { 2 } else { first(&[k == last]) };
    let quotes = [
        ("knee_ttft_p99_ms", k, Metric::TTFT_P99, 1.0),
        ("goodput_at_max", last, GOODPUT, 1.0),
        ("throughput_at_max", last, THROUGHPUT, 1.0),
        ("ttft_p99_at_max_ms", last, Metric::TTFT_P99, 1.0),
        ("peak_running_at_max", last, Metric::PeakRunning, 1.0),
    ];
    let extra = [("knee_rate", SAFE_ZONE_RATES[k]), ("knee_goodput", best), ("max_rate", SAFE_ZONE_RATES[last])];
    Outcome { answer, numbers: quote(r, &quotes, &extra) }
}

/// Reads the knee of a load sweep: the offered rate with the most goodput.
pub fn knee(points: &[crate::sweep::SweepPoint]) -> Option<(f64, f64)> {
    points
        .iter()
        .filter_map(|p| p.summary.as_ref().map(|s| (p.value, s.all.goodput.output_tokens_per_s)))
        .fold(None, |best: Option<(f64, f64)>, (v, g)| if best.is_none_or(|b| g > b.1) { Some((v, g)) } else { best })
}

/// The ten lessons, in teaching order.
pub const LESSONS: &[Lesson] = &[
    Lesson { id: "mean-hides-tail", choices: 3, highlight: Metric::TTFT_P99, runs: chat_burst, outcome: mean_vs_tail },
    Lesson {
        id: "ttft-vs-tpot",
        choices: 3,
        highlight: Metric::TTFT_P99,
        runs: ttft_vs_tpot_runs,
        outcome: ttft_vs_tpot,
    },
    Lesson { id: "goodput-vs-throughput", choices: 3, highlight: GOODPUT, runs: strict_slo_runs, outcome: strict_slo },
    Lesson { id: "kv-arithmetic", choices: 3, highlight: Metric::KvPeakBytes, runs: kv_runs, outcome: kv_arithmetic },
    Lesson {
        id: "headroom",
        choices: 3,
        highlight: Metric::Requests(Count::OomRestarts),
        runs: headroom_runs,
        outcome: headroom,
    },
    Lesson {
        id: "latency-vs-throughput-first",
        choices: 3,
        highlight: Metric::TTFT_P99,
        runs: strategy_runs,
        outcome: strategies,
    },
    Lesson { id: "mixed-traffic", choices: 3, highlight: Metric::TTFT_P99, runs: mixed_runs, outcome: mixed },
    Lesson {
        id: "context-too-large",
        choices: 3,
        highlight: Metric::KvPeakBytes,
        runs: context_runs,
        outcome: context,
    },
    Lesson {
        id: "cost-per-good-token",
        choices: 3,
        highlight: Metric::UsdPerMillionGoodTokens,
        runs: cost_runs,
        outcome: cost,
    },
    Lesson { id: "safe-zone", choices: 3, highlight: GOODPUT, runs: safe_zone_runs, outcome: safe_zone },
];

pub fn find(id: &str) -> Option<&'static Lesson> {
    LESSONS.iter().find(|l| l.id == id)
}

impl Lesson {
    /// Runs every scenario to the end and reads the outcome (the CLI and tests; the page runs
    /// the same scenarios visibly).
    pub fn run(&self) -> (Vec<Summary>, Outcome) {
        let sums: Vec<Summary> = (self.runs)()
            .iter()
            .map(|r| crate::Simulation::new(&r.scenario).expect("lesson scenarios are valid").run_to_end())
            .collect();
        let o = (self.outcome)(&sums);
        (sums, o)
    }
}
