//! Lesson 7, isolate mixed traffic: chat and long documents on one GPU, first in one shared
//! first-come-first-served queue, then with priority scheduling (chat first: what vLLM's
//! `--scheduling-policy priority` and SGLang's priority scheduling do), then on separate
//! replicas — a GPU for each class, which the lab models as two runs and pays for twice.

use super::*;
use sim_core::metrics::ClassSummary;
use sim_core::scenario::ModelRef;

/// The context limit: every document (about 6,000 + 600 tokens) fits Llama-3.1-8B's window.
pub const MAX_MODEL_LEN: u32 = 32_768;
const CHAT_REQUESTS: u64 = 1000;
const DOC_REQUESTS: u64 = 250;
/// Chat's TTFT target (the preset's SLO).
const CHAT_TTFT_TARGET_MS: f64 = 800.0;

/// Both classes on one H100 with the lessons' vLLM-style server, one shared FCFS queue.
fn shared() -> Scenario {
    let mut s = base("mixed-shared");
    s.model = ModelRef::Id("llama-3.1-8b".into());
    let c = &mut s.scheduler;
    (c.max_num_seqs, c.max_num_batched_tokens, c.max_model_len) = (256, 8192, MAX_MODEL_LEN);
    (c.max_queue_len, c.queue_timeout_ms, c.isolation) = (None, None, false);
    s.classes[0].num_requests = Some(CHAT_REQUESTS);
    s.classes[1].num_requests = Some(DOC_REQUESTS);
    s.classes[1].arrival = Arrival::Bursty { rate_per_s: 1.5, cv: 3.0 };
    s
}

/// Priority scheduling: one queue per class served chat first, nothing reserved (a reserved
/// share of 0 leaves every slot and KV block to whoever is first in line).
pub fn priority(mut s: Scenario) -> Scenario {
    s.scheduler.isolation = true;
    for c in &mut s.classes {
        c.reserved_share = Some(0.0);
    }
    s
}

/// One class alone on its own GPU (a separate replica).
fn alone(mut s: Scenario, class: usize) -> Scenario {
    s.classes = vec![s.classes.swap_remove(class)];
    s
}

fn runs(_seed: u64) -> Vec<LessonRun> {
    let s = shared();
    vec![
        LessonRun { variant: "shared", scenario: s.clone() },
        LessonRun { variant: "priority", scenario: priority(s.clone()) },
        LessonRun { variant: "chat-gpu", scenario: alone(s.clone(), 0) },
        LessonRun { variant: "documents-gpu", scenario: alone(s, 1) },
    ]
}

fn class<'a>(s: &'a Summary, name: &str) -> &'a ClassSummary {
    s.classes.get(name).unwrap_or(&s.all)
}

/// Dollars per million good tokens of runs paid together (each GPU for as long as its run).
pub fn usd_per_million_good(runs: &[&Summary]) -> f64 {
    let duration = |s: &Summary| Metric::DurationS.of(s);
    let usd: f64 = runs.iter().map(|s| Metric::UsdPerHour.of(s) * duration(s) / 3600.0).sum();
    let good: f64 = runs.iter().map(|s| GOODPUT.of(s) * duration(s)).sum();
    if good > 0.0 {
        usd / good * 1e6
    } else {
        0.0
    }
}

const SENTENCES: &[&str] = &[
    "chat_drops",
    "chat_rises",
    "chat_same",
    "within_target",
    "above_target",
    "all_tail",
    "documents_on_time",
    "own_gpu",
    "two_gpus_cost",
    "all_fit",
    "some_rejected",
    "where",
];

fn outcome(r: &[Summary]) -> Outcome {
    let (sh, pr, own) = (class(&r[0], "chat"), class(&r[1], "chat"), class(&r[2], "chat"));
    let (dsh, dpr) = (class(&r[0], "batch"), class(&r[1], "batch"));
    let ttft = |c: &ClassSummary| of_class(Metric::TTFT_P99, c);
    let tpot = |c: &ClassSummary| of_class(Metric::TPOT_P99, c);
    let attainment = |c: &ClassSummary| of_class(Metric::SloAttainment, c);
    let (p_sh, p_pr) = (ttft(sh), ttft(pr));
    // choices: chat's p99 TTFT drops clearly, rises, hardly changes
    let drops = p_pr < 0.8 * p_sh;
    let rises = p_pr > 1.25 * p_sh;
    let answer = if drops {
        0
    } else if rises {
        1
    } else {
        2
    };
    let one_gpu = Metric::UsdPerMillionGoodTokens.of(&r[1]);
    let two_gpus = usd_per_million_good(&[&r[2], &r[3]]);
    let rejected = of_class(Metric::Requests(Count::Rejected), dsh);
    // all traffic's tail moved much less than chat's, because at its top are the documents
    let all_ratio = Metric::TTFT_P99.of(&r[1]) / Metric::TTFT_P99.of(&r[0]);
    let all_tail = drops && all_ratio > 1.5 * (p_pr / p_sh) && ttft(dpr) > p_pr;
    let sentences = say(&[
        ("chat_drops", drops),
        ("chat_rises", rises),
        ("chat_same", !drops && !rises),
        ("within_target", p_pr <= CHAT_TTFT_TARGET_MS),
        ("above_target", p_pr > CHAT_TTFT_TARGET_MS),
        ("all_tail", all_tail),
        ("documents_on_time", attainment(dpr) >= 0.99),
        ("own_gpu", ttft(own) < p_pr && tpot(own) < tpot(pr)),
        ("two_gpus_cost", two_gpus > one_gpu),
        ("all_fit", rejected == 0.0),
        ("some_rejected", rejected > 0.0),
        ("where", true),
    ]);
    let numbers = nums(&[
        ("chat_ttft_p99_shared_ms", p_sh),
        ("chat_ttft_p99_priority_ms", p_pr),
        ("chat_ttft_p99_own_gpu_ms", ttft(own)),
        ("chat_attainment_shared", attainment(sh)),
        ("chat_attainment_priority", attainment(pr)),
        ("chat_tpot_p99_priority_ms", tpot(pr)),
        ("chat_tpot_p99_own_gpu_ms", tpot(own)),
        ("chat_ttft_target_ms", CHAT_TTFT_TARGET_MS),
        ("all_ttft_p99_shared_ms", Metric::TTFT_P99.of(&r[0])),
        ("all_ttft_p99_priority_ms", Metric::TTFT_P99.of(&r[1])),
        ("documents_ttft_p99_shared_ms", ttft(dsh)),
        ("documents_ttft_p99_priority_ms", ttft(dpr)),
        ("documents_attainment_priority", attainment(dpr)),
        ("documents_e2e_p99_priority_s", of_class(Metric::E2E_P99, dpr) / 1000.0),
        ("documents_rejected", rejected),
        ("usd_one_gpu_priority", one_gpu),
        ("usd_two_gpus", two_gpus),
    ]);
    Outcome { answer, numbers, sentences }
}

pub(super) const LESSON: Lesson = Lesson {
    id: "mixed-traffic",
    choices: 3,
    taught: 0,
    highlight: Metric::TTFT_P99,
    focus_class: Some("chat"),
    sentences: SENTENCES,
    runs,
    watch: &[0, 1],
    outcome,
};
