//! Lesson 2, TTFT and TPOT measure different things: the same rise in load (4 → 16 requests/s)
//! on 256-sequence, 8,192-token limits, where the extra requests join the batch and both metrics grow
//! together, and on a server capped at 32 sequences, where they queue and only TTFT breaks away.

use super::*;

/// The rates of runs A and B/C (requests/s) and run C's batch cap.
const LOW_RATE: f64 = 4.0;
const HIGH_RATE: f64 = 16.0;
const CAP: u32 = 32;
/// TTFT "breaks away" when its growth is at least this many times TPOT's.
const BREAKS_AWAY: f64 = 3.0;

fn runs(_seed: u64) -> Vec<LessonRun> {
    let mut a = lesson_server(smaller(base("chat-latency-first"), 1000));
    a.classes[0].arrival = Arrival::Poisson { rate_per_s: LOW_RATE };
    let mut b = a.clone();
    b.classes[0].arrival = Arrival::Poisson { rate_per_s: HIGH_RATE };
    let mut c = b.clone();
    c.scheduler.max_num_seqs = CAP;
    vec![
        LessonRun { variant: "4-req-s", scenario: a },
        LessonRun { variant: "16-req-s", scenario: b },
        LessonRun { variant: "16-req-s-cap-32", scenario: c },
    ]
}

fn outcome(r: &[Summary]) -> Outcome {
    let growth = |i: usize, m: Metric| m.of(&r[i]) / m.of(&r[0]);
    let (ttft_b, tpot_b) = (growth(1, Metric::TTFT_P99), growth(1, Metric::TPOT_P99));
    let (ttft_c, tpot_c) = (growth(2, Metric::TTFT_P99), growth(2, Metric::TPOT_P99));
    let b_breaks = ttft_b >= BREAKS_AWAY * tpot_b;
    let c_breaks = ttft_c >= BREAKS_AWAY * tpot_c;
    // choices: TTFT breaks away on both; on neither; only on the capped server. (Breaking away
    // on the default server but not on the capped one would need the cap to shorten the queue.)
    let answer = if b_breaks {
        0
    } else if c_breaks {
        2
    } else {
        1
    };
    let (b, c) = (&r[1], &r[2]);
    let queue = |s: &Summary| QUEUE_MEAN.of(s);
    let prefill = |s: &Summary| PREFILL_MEAN.of(s);
    let sentences = say(&[
        ("a_below_cap", Metric::PeakRunning.of(&r[0]) < CAP as f64),
        ("b_together", !b_breaks && tpot_b < BREAKS_AWAY * ttft_b),
        ("b_breaks", b_breaks),
        ("b_no_queue", queue(b) < prefill(b)),
        ("b_steps_longer", ttft_b > 1.2 && tpot_b > 1.2),
        ("b_tpot_more", !b_breaks && tpot_b > ttft_b),
        ("c_breaks", c_breaks),
        ("c_together", !c_breaks && tpot_c < BREAKS_AWAY * ttft_c),
        ("c_queue", queue(c) > prefill(c)),
        ("c_tpot_lower", Metric::TPOT_P99.of(c) < Metric::TPOT_P99.of(b)),
        ("where", true),
    ]);
    let quotes = [
        ("ttft_p99_a_ms", 0, Metric::TTFT_P99, 1.0),
        ("ttft_p99_b_ms", 1, Metric::TTFT_P99, 1.0),
        ("ttft_p99_c_ms", 2, Metric::TTFT_P99, 1.0),
        ("tpot_p99_a_ms", 0, Metric::TPOT_P99, 1.0),
        ("tpot_p99_b_ms", 1, Metric::TPOT_P99, 1.0),
        ("tpot_p99_c_ms", 2, Metric::TPOT_P99, 1.0),
        ("queue_mean_b_ms", 1, QUEUE_MEAN, 1.0),
        ("queue_mean_c_ms", 2, QUEUE_MEAN, 1.0),
        ("prefill_mean_b_ms", 1, PREFILL_MEAN, 1.0),
        ("prefill_mean_c_ms", 2, PREFILL_MEAN, 1.0),
        ("peak_running_a", 0, Metric::PeakRunning, 1.0),
        ("peak_running_b", 1, Metric::PeakRunning, 1.0),
    ];
    let extra =
        [("ttft_growth_b", ttft_b), ("tpot_growth_b", tpot_b), ("ttft_growth_c", ttft_c), ("tpot_growth_c", tpot_c)];
    Outcome { answer, numbers: quote(r, &quotes, &extra), sentences }
}

pub(super) const LESSON: Lesson = Lesson {
    id: "ttft-vs-tpot",
    choices: 3,
    taught: 2,
    highlight: Metric::TTFT_P99,
    focus_class: None,
    sentences: &[
        "a_below_cap",
        "b_together",
        "b_breaks",
        "b_no_queue",
        "b_steps_longer",
        "b_tpot_more",
        "c_breaks",
        "c_together",
        "c_queue",
        "c_tpot_lower",
        "where",
    ],
    runs,
    watch: &[1, 2],
    outcome,
};
