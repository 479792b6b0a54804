//! The guided lessons' model side: for each claim of the article, the runs that show it and the
//! outcome a learner predicts, computed from those runs' numbers.
//!
//! The words (question, choices, explanation) live in the app's translation tables, keyed by
//! lesson id, choice index and the named numbers in [`Outcome::numbers`]; this module decides
//! which choice the runs bear out, so an explanation can never claim what the run did not show.

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
    /// Metric the page highlights when the outcome shows (a metric panel key, e.g. `ttft.p99`).
    pub highlight: &'static str,
    pub runs: fn() -> Vec<LessonRun>,
    pub outcome: fn(&[Summary]) -> Outcome,
}

fn base(id: &str) -> Scenario {
    presets::find(id).expect("lesson preset exists").scenario()
}

fn nums(pairs: &[(&'static str, f64)]) -> BTreeMap<&'static str, f64> {
    pairs.iter().copied().collect()
}

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
    let answer = if ratio < 1.5 {
        0
    } else if ratio < 3.0 {
        1
    } else {
        2
    };
    Outcome {
        answer,
        numbers: nums(&[
            ("ttft_mean_ms", mean),
            ("ttft_p50_ms", r[0].all.ttft_ms.p50),
            ("ttft_p99_ms", p99),
            ("ratio", ratio),
        ]),
    }
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
    let answer = if ttft > 1.5 * tpot {
        0
    } else if tpot > 1.5 * ttft {
        1
    } else {
        2
    };
    Outcome {
        answer,
        numbers: nums(&[
            ("ttft_p99_a_ms", r[0].all.ttft_ms.p99),
            ("ttft_p99_b_ms", r[1].all.ttft_ms.p99),
            ("tpot_p99_a_ms", r[0].all.tpot_ms.p99),
            ("tpot_p99_b_ms", r[1].all.tpot_ms.p99),
            ("queue_mean_a_ms", r[0].all.queue_ms.mean),
            ("queue_mean_b_ms", r[1].all.queue_ms.mean),
            ("prefill_mean_b_ms", r[1].all.prefill_ms.mean),
            ("ttft_growth", ttft),
            ("tpot_growth", tpot),
        ]),
    }
}

fn strict_slo_runs() -> Vec<LessonRun> {
    // the same server, batching to the limit (max_num_seqs 512), at moderate and at high load
    let high = smaller(base("risk-strict-slo"), 1500);
    let mut moderate = high.clone();
    moderate.classes[0].arrival = Arrival::Poisson { rate_per_s: 8.0 };
    vec![LessonRun { variant: "8-req-s", scenario: moderate }, LessonRun { variant: "20-req-s", scenario: high }]
}

fn strict_slo(r: &[Summary]) -> Outcome {
    let (a, b) = (&r[0], &r[1]);
    let thr_up = b.all.throughput.output_tokens_per_s > a.all.throughput.output_tokens_per_s;
    let good_up = b.all.goodput.output_tokens_per_s > a.all.goodput.output_tokens_per_s;
    // choices: goodput rises with throughput, goodput falls while throughput rises, both fall
    let answer = match (thr_up, good_up) {
        (true, true) => 0,
        (true, false) => 1,
        _ => 2,
    };
    Outcome {
        answer,
        numbers: nums(&[
            ("throughput_a", a.all.throughput.output_tokens_per_s),
            ("throughput_b", b.all.throughput.output_tokens_per_s),
            ("goodput_a", a.all.goodput.output_tokens_per_s),
            ("goodput_b", b.all.goodput.output_tokens_per_s),
            ("tpot_p99_a_ms", a.all.tpot_ms.p99),
            ("tpot_p99_b_ms", b.all.tpot_ms.p99),
            ("attainment_a", a.all.goodput.slo_attainment),
            ("attainment_b", b.all.goodput.slo_attainment),
        ]),
    }
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
    let gib = (1u64 << 30) as f64;
    let tokens = 10.0 * 2048.0;
    let gqa = r[0].memory.kv_bytes_per_token * tokens / gib;
    let mha = r[1].memory.kv_bytes_per_token * tokens / gib;
    // the article's formula in bf16: 10 × 2048 × layers × hidden × 2 (K,V) × 2 bytes
    let m = crate::catalog::find_model("llama-3-8b").expect("catalogue");
    let article = tokens * crate::memory::article_kv_elements_per_token(&m) * 2.0 / gib;
    // choices: ~0.5 GiB, ~2.5 GiB, ~10 GiB (for Llama-3-8B)
    let answer = if gqa < 1.0 {
        0
    } else if gqa < 5.0 {
        1
    } else {
        2
    };
    Outcome {
        answer,
        numbers: nums(&[
            ("kv_gqa_gib", gqa),
            ("kv_mha_gib", mha),
            ("kv_article_gib", article),
            ("kv_peak_gqa_gib", r[0].memory.kv_peak_bytes / gib),
            ("kv_peak_mha_gib", r[1].memory.kv_peak_bytes / gib),
            ("kv_kib_per_token_gqa", r[0].memory.kv_bytes_per_token / 1024.0),
            ("kv_kib_per_token_mha", r[1].memory.kv_bytes_per_token / 1024.0),
        ]),
    }
}

fn headroom_runs() -> Vec<LessonRun> {
    let full = base("risk-oom-full-memory");
    let mut safe = full.clone();
    safe.gpu_memory_utilization = 0.75;
    vec![LessonRun { variant: "util-0.95", scenario: full }, LessonRun { variant: "util-0.75", scenario: safe }]
}

fn headroom(r: &[Summary]) -> Outcome {
    let (full, safe) = (&r[0], &r[1]);
    // choices: 95% serves more good tokens, 75% serves more, about the same
    let (g95, g75) = (full.all.goodput.output_tokens_per_s, safe.all.goodput.output_tokens_per_s);
    let answer = if g95 > 1.1 * g75 {
        0
    } else if g75 > 1.1 * g95 {
        1
    } else {
        2
    };
    Outcome {
        answer,
        numbers: nums(&[
            ("oom_95", full.all.requests.oom_restarts as f64),
            ("oom_75", safe.all.requests.oom_restarts as f64),
            ("failed_95", full.all.requests.failed as f64),
            ("goodput_95", g95),
            ("goodput_75", g75),
            ("kv_capacity_95_gib", full.memory.kv_capacity_bytes / (1u64 << 30) as f64),
            ("kv_capacity_75_gib", safe.memory.kv_capacity_bytes / (1u64 << 30) as f64),
        ]),
    }
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
    let (lat, thr) = (&r[0], &r[1]);
    // choices: latency-first wins both; throughput-first wins both; each wins its own metric
    let lat_fast = lat.all.tpot_ms.p99 < thr.all.tpot_ms.p99 && lat.all.ttft_ms.p99 < thr.all.ttft_ms.p99;
    let thr_more = thr.all.throughput.output_tokens_per_s > lat.all.throughput.output_tokens_per_s;
    let answer = match (lat_fast, thr_more) {
        (true, false) => 0,
        (false, true) => 1,
        _ => 2,
    };
    Outcome {
        answer,
        numbers: nums(&[
            ("ttft_p99_lat_ms", lat.all.ttft_ms.p99),
            ("ttft_p99_thr_ms", thr.all.ttft_ms.p99),
            ("tpot_p99_lat_ms", lat.all.tpot_ms.p99),
            ("tpot_p99_thr_ms", thr.all.tpot_ms.p99),
            ("throughput_lat", lat.all.throughput.output_tokens_per_s),
            ("throughput_thr", thr.all.throughput.output_tokens_per_s),
            ("refused_lat", (lat.all.requests.rejected + lat.all.requests.timed_out) as f64),
            ("refused_thr", (thr.all.requests.rejected + thr.all.requests.timed_out) as f64),
        ]),
    }
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
    let answer = if i.ttft_ms.p99 < 0.8 * s.ttft_ms.p99 {
        0
    } else if i.ttft_ms.p99 > 1.2 * s.ttft_ms.p99 {
        1
    } else {
        2
    };
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
    let answer = if ratio < 1.5 {
        0
    } else if ratio < 3.0 {
        1
    } else {
        2
    };
    Outcome {
        answer,
        numbers: nums(&[
            ("ratio", ratio),
            ("peak_running_contiguous", c.memory.peak_running as f64),
            ("peak_running_paged", p.memory.peak_running as f64),
            ("waste_contiguous", c.memory.kv_waste_mean),
            ("waste_paged", p.memory.kv_waste_mean),
            ("ttft_p99_contiguous_ms", c.all.ttft_ms.p99),
            ("ttft_p99_paged_ms", p.all.ttft_ms.p99),
        ]),
    }
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
    let mut n = BTreeMap::new();
    for (i, key) in [
        ("usd_per_hour_0", "usd_per_m_good_0"),
        ("usd_per_hour_1", "usd_per_m_good_1"),
        ("usd_per_hour_2", "usd_per_m_good_2"),
    ]
    .iter()
    .enumerate()
    {
        n.insert(key.0, r[i].cost.usd_per_hour);
        n.insert(key.1, r[i].cost.usd_per_million_good_tokens);
    }
    n.insert("attainment_0", r[0].all.goodput.slo_attainment);
    n.insert("attainment_1", r[1].all.goodput.slo_attainment);
    n.insert("attainment_2", r[2].all.goodput.slo_attainment);
    Outcome { answer: best, numbers: n }
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
    let answer = if hi - lo < 0.1 * hi {
        2
    } else if k == last {
        0
    } else {
        1
    };
    Outcome {
        answer,
        numbers: nums(&[
            ("knee_rate", SAFE_ZONE_RATES[k]),
            ("knee_goodput", best),
            ("knee_ttft_p99_ms", r[k].all.ttft_ms.p99),
            ("max_rate", SAFE_ZONE_RATES[last]),
            ("goodput_at_max", good[last]),
            ("throughput_at_max", r[last].all.throughput.output_tokens_per_s),
            ("ttft_p99_at_max_ms", r[last].all.ttft_ms.p99),
            ("peak_running_at_max", r[last].memory.peak_running as f64),
        ]),
    }
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
    Lesson { id: "mean-hides-tail", choices: 3, highlight: "ttft.p99", runs: chat_burst, outcome: mean_vs_tail },
    Lesson { id: "ttft-vs-tpot", choices: 3, highlight: "ttft.p99", runs: ttft_vs_tpot_runs, outcome: ttft_vs_tpot },
    Lesson {
        id: "goodput-vs-throughput",
        choices: 3,
        highlight: "goodput",
        runs: strict_slo_runs,
        outcome: strict_slo,
    },
    Lesson { id: "kv-arithmetic", choices: 3, highlight: "hbm", runs: kv_runs, outcome: kv_arithmetic },
    Lesson { id: "headroom", choices: 3, highlight: "oom", runs: headroom_runs, outcome: headroom },
    Lesson {
        id: "latency-vs-throughput-first",
        choices: 3,
        highlight: "ttft.p99",
        runs: strategy_runs,
        outcome: strategies,
    },
    Lesson { id: "mixed-traffic", choices: 3, highlight: "ttft.p99", runs: mixed_runs, outcome: mixed },
    Lesson { id: "context-too-large", choices: 3, highlight: "hbm", runs: context_runs, outcome: context },
    Lesson { id: "cost-per-good-token", choices: 3, highlight: "cost", runs: cost_runs, outcome: cost },
    Lesson { id: "safe-zone", choices: 3, highlight: "goodput", runs: safe_zone_runs, outcome: safe_zone },
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
