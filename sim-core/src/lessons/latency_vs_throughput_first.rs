//! Lesson 6, latency-first or throughput-first: the same chat traffic served by a latency-first
//! policy (a small batch, short steps, a short queue and a timeout inside the TTFT target) and by
//! the lessons' vLLM-style server (a big batch, an unlimited queue), at a busy load the GPU can still serve and
//! at one past what it can serve. The question is the one an operator pays for: which delivers
//! more good tokens under chat's SLO, and so the cheaper good token?

use super::*;
use crate::metrics::ClassSummary;

/// The two loads (requests/s): busy but within what the GPU serves on time, and past it.
pub const RATES: [f64; 2] = [18.0, 32.0];
const REQUESTS: u64 = 1200;
/// A policy wins a load when it delivers this much more goodput than the other.
const MARGIN: f64 = 1.05;
/// Chat's TTFT target (the preset's SLO).
const TTFT_TARGET_MS: f64 = 500.0;

fn chat(rate: f64) -> Scenario {
    let mut s = smaller(base("chat-latency-first"), REQUESTS);
    s.classes[0].arrival = Arrival::Poisson { rate_per_s: rate };
    s
}

/// Latency-first: at most 64 sequences, 2,048 tokens per step, a queue of 64 and a 300 ms
/// timeout (well inside the 500 ms TTFT target, so what it starts it can still serve in time).
pub fn latency_first(mut s: Scenario) -> Scenario {
    let c = &mut s.scheduler;
    (c.max_num_seqs, c.max_num_batched_tokens) = (64, 2048);
    (c.max_queue_len, c.queue_timeout_ms) = (Some(64), Some(300.0));
    s
}

/// Throughput-first: the lessons' vLLM-style server (256 sequences, 8,192 tokens per step, no queue limit, no
/// timeout).
pub fn throughput_first(mut s: Scenario) -> Scenario {
    let c = &mut s.scheduler;
    (c.max_num_seqs, c.max_num_batched_tokens) = (256, 8192);
    (c.max_queue_len, c.queue_timeout_ms) = (None, None);
    s
}

fn runs(_seed: u64) -> Vec<LessonRun> {
    let [busy, over] = RATES;
    vec![
        LessonRun { variant: "latency-first-busy", scenario: latency_first(chat(busy)) },
        LessonRun { variant: "throughput-first-busy", scenario: throughput_first(chat(busy)) },
        LessonRun { variant: "latency-first-overload", scenario: latency_first(chat(over)) },
        LessonRun { variant: "throughput-first-overload", scenario: throughput_first(chat(over)) },
    ]
}

fn turned_away(c: &ClassSummary) -> f64 {
    (c.requests.rejected + c.requests.timed_out) as f64
}

/// Good requests among the requests a run served (completed).
fn served_on_time(s: &Summary) -> f64 {
    let good = s.all.goodput.requests_per_s * s.duration_s;
    good / s.all.requests.completed.max(1) as f64
}

const SENTENCES: &[&str] = &[
    "busy_throughput_wins",
    "busy_latency_short",
    "busy_tie",
    "busy_latency_wins",
    "overload_latency_wins",
    "overload_tie",
    "overload_throughput_wins",
    "overload_queue",
    "overload_shed",
];

fn outcome(r: &[Summary]) -> Outcome {
    let g = |i: usize| r[i].all.goodput.output_tokens_per_s;
    let (lat_busy, thr_busy) = (g(0) > MARGIN * g(1), g(1) > MARGIN * g(0));
    let (lat_over, thr_over) = (g(2) > MARGIN * g(3), g(3) > MARGIN * g(2));
    // choices: latency-first at both loads; throughput-first at both; throughput-first at the
    // busy load and latency-first past capacity
    let answer = if lat_over && thr_busy {
        2
    } else if lat_over {
        0
    } else {
        1
    };
    let usd = Metric::UsdPerMillionGoodTokens;
    let quotes: [Quote; 13] = [
        ("goodput_lat_busy", 0, Metric::GoodputTokens, 1.0),
        ("goodput_thr_busy", 1, Metric::GoodputTokens, 1.0),
        ("goodput_lat_over", 2, Metric::GoodputTokens, 1.0),
        ("goodput_thr_over", 3, Metric::GoodputTokens, 1.0),
        ("usd_lat_busy", 0, usd, 1.0),
        ("usd_thr_busy", 1, usd, 1.0),
        ("usd_lat_over", 2, usd, 1.0),
        ("usd_thr_over", 3, usd, 1.0),
        ("attainment_lat_busy", 0, Metric::SloAttainment, 1.0),
        ("attainment_thr_busy", 1, Metric::SloAttainment, 1.0),
        ("attainment_thr_over", 3, Metric::SloAttainment, 1.0),
        ("ttft_p99_thr_over_ms", 3, Metric::TTFT_P99, 1.0),
        ("throughput_thr_over", 3, Metric::ThroughputTokens, 1.0),
    ];
    let busy_short = turned_away(&r[0].all) > 0.0 && r[0].all.goodput.slo_attainment < r[1].all.goodput.slo_attainment;
    let queue = r[3].all.ttft_ms.p99 > TTFT_TARGET_MS && r[3].all.requests.timed_out == 0;
    let shed = turned_away(&r[2].all) > 0.0 && served_on_time(&r[2]) >= 0.99;
    let sentences = say(&[
        ("busy_throughput_wins", thr_busy),
        ("busy_latency_short", busy_short),
        ("busy_tie", !thr_busy && !lat_busy),
        ("busy_latency_wins", lat_busy),
        ("overload_latency_wins", lat_over),
        ("overload_tie", !lat_over && !thr_over),
        ("overload_throughput_wins", thr_over),
        ("overload_queue", queue),
        ("overload_shed", shed),
    ]);
    let extra = [
        ("turned_away_lat_busy", turned_away(&r[0].all)),
        ("turned_away_lat_over", turned_away(&r[2].all)),
        ("served_attainment_lat_over", served_on_time(&r[2])),
    ];
    Outcome { answer, numbers: quote(r, &quotes, &extra), sentences }
}

pub(super) const LESSON: Lesson = Lesson {
    id: "latency-vs-throughput-first",
    choices: 3,
    taught: 2,
    highlight: Metric::GoodputTokens,
    focus_class: None,
    sentences: SENTENCES,
    runs,
    watch: &[2, 3],
    outcome,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_is_the_presets() {
        let slo = &base("chat-latency-first").classes[0].slo;
        assert_eq!(slo.ttft_ms, Some(TTFT_TARGET_MS));
    }
}
