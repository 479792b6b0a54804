//! Lesson `latency-vs-throughput-first`.

use super::*;

pub(super) const LESSON: Lesson = Lesson {
    id: "latency-vs-throughput-first",
    choices: 3,
    taught: 2,
    highlight: Metric::TTFT_P99,
    focus_class: None,
    sentences: &OLD_EXPLANATIONS,
    runs: strategy_runs,
    outcome: strategies,
};

fn strategy_runs(_seed: u64) -> Vec<LessonRun> {
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
    Outcome {
        sentences: vec![OLD_EXPLANATIONS[answer]],
        answer,
        numbers: quote(r, &quotes, &[("refused_lat", refused(lat)), ("refused_thr", refused(thr))]),
    }
}
