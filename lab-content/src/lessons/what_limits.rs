//! Lesson 19, what limits this deployment: the long-prompt contract (`llmsim contract rag`:
//! Llama-3.1-8B, prompts of about 10,000 tokens and up to 32,768, answers of about 250, 3 req/s,
//! TTFT p99 ≤ 3 s, TPOT p99 ≤ 40 ms) on one H100 whose `max_num_seqs` is the memory-safe limit
//! the contract's acceptance test asks for — as many sequences of the longest allowed length as
//! its KV pool holds (13) — and on two such replicas. The learner predicts what binds the one
//! GPU; the runs show it the way the planner reads a failed run (`crate::plan::bound`): requests
//! wait for one of the 13 slots while most of the KV pool is empty and each token is on time,
//! so neither compute nor memory use but the safe zone's cap sets the limit. The planner's
//! answer to the contract is the exercise `meet-contract`.

use super::*;
use crate::contract::{example, Contract};

const REQUESTS: u64 = 600;
/// The contract's targets.
const TTFT_TARGET_MS: f64 = 3000.0;
const TPOT_TARGET_MS: f64 = 40.0;
/// The KV pool counts as full from this share of its capacity on.
const FULL: f64 = 0.95;

/// The most sequences of `max_model_len` tokens the KV pool of `s` holds: the contract's
/// `request_limits.max_concurrency` line.
pub fn safe_cap(s: &Scenario) -> u32 {
    let plan = sim_core::sim::Simulation::new(s).expect("lesson scenario").hbm_plan().clone();
    let per_seq = f64::from(s.scheduler.max_model_len) * plan.kv_bytes_per_token;
    ((plan.kv_capacity_bytes / per_seq).floor() as u32).max(1)
}

/// The contract's traffic on one H100 at the memory-safe cap.
fn one_gpu() -> Scenario {
    let c = Contract::from_json(example("rag").expect("example")).expect("example contract");
    let mut s = smaller(c.scenario().expect("its scenario"), REQUESTS);
    s.scheduler.queue_timeout_ms = None;
    s.scheduler.max_queue_len = None;
    s.scheduler.max_num_seqs = safe_cap(&s);
    s
}

fn runs(_seed: u64) -> Vec<LessonRun> {
    let one = one_gpu();
    let mut two = one.clone();
    two.replicas = 2;
    vec![LessonRun { variant: "one-gpu", scenario: one }, LessonRun { variant: "two-gpus", scenario: two }]
}

const SENTENCES: &[&str] = &["cap", "memory", "decode", "prefill", "two", "planner", "where"];

fn outcome(r: &[Summary]) -> Outcome {
    let (one, two) = (&r[0], &r[1]);
    let kv_share = Metric::KvPeakBytes.of(one) / Metric::KvCapacityBytes.of(one).max(1.0);
    let queue_p99 = Metric::Latency(Latency::Queue, Stat::P99).of(one);
    let ttft_p99 = Metric::TTFT_P99.of(one);
    let tpot_p50 = Metric::Latency(Latency::Tpot, Stat::P50).of(one);
    let preempted = Metric::Requests(Count::Preempted).of(one);
    // choices: prompts' compute, the KV pool full, the concurrency cap, each token's speed
    let memory = kv_share >= FULL || preempted > 0.0;
    let decode = tpot_p50 > TPOT_TARGET_MS;
    let cap = !memory && !decode && ttft_p99 > TTFT_TARGET_MS && queue_p99 > 0.5 * ttft_p99;
    let answer = if memory {
        1
    } else if cap {
        2
    } else if decode {
        3
    } else {
        0
    };
    let two_pass = Metric::TTFT_P99.of(two) <= TTFT_TARGET_MS && Metric::TPOT_P99.of(two) <= TPOT_TARGET_MS;
    let sentences = say(&[
        ("cap", answer == 2),
        ("memory", answer == 1),
        ("decode", answer == 3),
        ("prefill", answer == 0),
        ("two", two_pass),
        ("planner", true),
        ("where", true),
    ]);
    let numbers = nums(&[
        ("peak_running", Metric::PeakRunning.of(one)),
        ("kv_peak_pct", (kv_share * 100.0).round()),
        ("kv_capacity_gib", Metric::KvCapacityBytes.of(one) / GIB),
        ("queue_p99_ms", queue_p99),
        ("ttft_p99_ms", ttft_p99),
        ("tpot_p50_ms", tpot_p50),
        ("tpot_p99_ms", Metric::TPOT_P99.of(one)),
        ("attainment_one", Metric::SloAttainment.of(one)),
        ("ttft_p99_two_ms", Metric::TTFT_P99.of(two)),
        ("tpot_p99_two_ms", Metric::TPOT_P99.of(two)),
        ("attainment_two", Metric::SloAttainment.of(two)),
        ("usd_hour_two", Metric::UsdPerHour.of(two)),
    ]);
    Outcome { answer, numbers, sentences }
}

pub(super) const LESSON: Lesson = Lesson {
    id: "what-limits",
    choices: 4,
    taught: 2,
    highlight: Metric::KvPeakBytes,
    focus_class: None,
    sentences: SENTENCES,
    runs,
    watch: &[0, 1],
    outcome,
};

#[cfg(test)]
mod tests {
    use super::*;

    /// The cap is the contract's memory-safe limit: 13 sequences of 33,792 tokens on one H100
    /// at a memory share of 0.9, and one more would not fit.
    #[test]
    fn the_cap_is_the_safe_limit() {
        let s = one_gpu();
        assert_eq!(s.scheduler.max_model_len, 32768 + 1024);
        assert_eq!(s.scheduler.max_num_seqs, 13);
        let c = Contract::from_json(example("rag").unwrap()).unwrap();
        let mut c13 = c.clone();
        c13.request_limits.max_concurrency = 13;
        let line = |c: &Contract| {
            let r = c.check(&sim_core::sim::BuiltinTraces).unwrap();
            r.lines.iter().find(|l| l.field == "request_limits.max_concurrency").unwrap().pass
        };
        assert!(line(&c13));
        let mut c14 = c;
        c14.request_limits.max_concurrency = 14;
        assert!(!line(&c14));
    }
}
