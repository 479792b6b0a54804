//! Lesson `goodput-vs-throughput`, goodput is the real throughput: under a strict SLO, a batch left
//! to grow with the load (256-sequence, 8,192-token limits) raises throughput while goodput collapses; a
//! batch cap with SLO-aware admission (a queue timeout below the TTFT target) brings it back.

use super::*;
use sim_core::metric::{Censorable, CensoredStat};

/// The strict SLO of the `risk-strict-slo` preset.
const SLO_TTFT_MS: f64 = 300.0;
const SLO_TPOT_MS: f64 = 20.0;
/// Run C's fix: the batch cap and the queue timeout (TTFT target minus room for the prefill).
const CAP: u32 = 64;
const TIMEOUT_MS: f64 = 200.0;

fn runs(_seed: u64) -> Vec<LessonRun> {
    let high = lesson_server(smaller(base("risk-strict-slo"), 1500));
    let mut light = high.clone();
    light.classes[0].arrival = Arrival::Poisson { rate_per_s: 8.0 };
    let mut capped = high.clone();
    capped.scheduler.max_num_seqs = CAP;
    capped.scheduler.queue_timeout_ms = Some(TIMEOUT_MS);
    vec![
        LessonRun { variant: "8-req-s", scenario: light },
        LessonRun { variant: "20-req-s", scenario: high },
        LessonRun { variant: "20-req-s-capped", scenario: capped },
    ]
}

fn outcome(r: &[Summary]) -> Outcome {
    let good: Vec<f64> = r.iter().map(|s| GOODPUT.of(s)).collect();
    let thr: Vec<f64> = r.iter().map(|s| THROUGHPUT.of(s)).collect();
    // choices: the run with the most goodput (A, B or C; a tie goes to the earlier run)
    let answer = (1..good.len()).fold(0, |best, i| if good[i] > good[best] { i } else { best });
    let (b, c) = (&r[1], &r[2]);
    let tpot = |s: &Summary| Metric::TPOT_P99.of(s);
    let timed_out = Metric::Requests(Count::TimedOut);
    let unanswered = Metric::Censored(Censorable::Ttft, CensoredStat::Censored);
    let arrived = Metric::Requests(Count::Arrived);
    let peak = |s: &Summary| Metric::PeakRunning.of(s);
    let sentences = say(&[
        ("b_more_tokens_fewer_good", thr[1] > thr[0] && good[1] < good[0]),
        ("b_tpot_over", tpot(b) > SLO_TPOT_MS && peak(&r[1]) > peak(&r[0])),
        ("c_beats_b", good[2] > good[1] && thr[2] < thr[1]),
        ("c_tpot_ok", tpot(c) <= SLO_TPOT_MS),
        ("c_tpot_over", tpot(c) > SLO_TPOT_MS && tpot(c) <= 1.1 * SLO_TPOT_MS && tpot(c) < tpot(b)),
        ("c_ttft_ok", Metric::TTFT_P99.of(c) <= SLO_TTFT_MS),
        ("c_refused", timed_out.of(c) > 0.0),
        // survivorship: the completed-only p99 is over the answered; counting the turned-away at
        // their wait gives a lower bound over every arrival, and with more than 1 in 100 never
        // answered no percentile over the answered can show them
        ("c_survivors", timed_out.of(c) > 0.0 && unanswered.of(c) * 100.0 > arrived.of(c)),
        ("c_beats_a", answer == 2 && good[2] > good[0]),
        ("a_best", answer == 0),
        ("b_best", answer == 1),
        ("where", true),
    ]);
    let quotes = [
        ("throughput_a", 0, THROUGHPUT, 1.0),
        ("throughput_b", 1, THROUGHPUT, 1.0),
        ("throughput_c", 2, THROUGHPUT, 1.0),
        ("goodput_a", 0, GOODPUT, 1.0),
        ("goodput_b", 1, GOODPUT, 1.0),
        ("goodput_c", 2, GOODPUT, 1.0),
        ("attainment_a", 0, Metric::SloAttainment, 1.0),
        ("attainment_b", 1, Metric::SloAttainment, 1.0),
        ("tpot_p99_b_ms", 1, Metric::TPOT_P99, 1.0),
        ("tpot_p99_c_ms", 2, Metric::TPOT_P99, 1.0),
        ("ttft_p99_c_ms", 2, Metric::TTFT_P99, 1.0),
        ("peak_running_b", 1, Metric::PeakRunning, 1.0),
        ("timed_out_c", 2, timed_out, 1.0),
        ("arrived_c", 2, arrived, 1.0),
        ("completed_c", 2, Metric::Requests(Count::Completed), 1.0),
        ("unanswered_c", 2, unanswered, 1.0),
        ("ttft_p99_all_c_ms", 2, Metric::TTFT_P99_CENSORED, 1.0),
    ];
    let extra =
        [("gain_growth", good[2] / good[1].max(1e-9)), ("slo_tpot_ms", SLO_TPOT_MS), ("slo_ttft_ms", SLO_TTFT_MS)];
    Outcome { answer, numbers: quote(r, &quotes, &extra), sentences }
}

pub(super) const LESSON: Lesson = Lesson {
    id: "goodput-vs-throughput",
    choices: 3,
    taught: 2,
    highlight: GOODPUT,
    focus_class: None,
    sentences: &[
        "b_more_tokens_fewer_good",
        "b_tpot_over",
        "c_beats_b",
        "c_tpot_ok",
        "c_tpot_over",
        "c_ttft_ok",
        "c_refused",
        "c_survivors",
        "c_beats_a",
        "a_best",
        "b_best",
        "where",
    ],
    runs,
    watch: &[1, 2],
    outcome,
};
