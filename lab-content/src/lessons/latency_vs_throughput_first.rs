//! Lesson 6, admission control: the same chat traffic on three servers — vLLM as it runs (a big
//! batch, an unlimited queue, no deadline), the same big batch behind admission control (a queue
//! of 64 and a 300 ms deadline, which vLLM does not have: a gateway or the client holds them), and
//! a "latency-first" small batch behind the same admission control — at a busy load the GPU can
//! still serve and at one well past it. The question an operator pays for: which delivers the
//! most good tokens under chat's SLO at both loads? Admission control is the gain (it never loses
//! more than the tie margin, and wins past capacity); the small batch is the loss.

use super::*;

/// The two loads (requests/s): busy but within what the GPU serves on time, and well past it
/// (still past it at 30% less).
pub const RATES: [f64; 2] = [18.0, 40.0];
const REQUESTS: u64 = 1200;
/// Goodputs within this factor of each other are a tie.
const MARGIN: f64 = 1.05;
/// Chat's TTFT target (the preset's SLO).
const TTFT_TARGET_MS: f64 = 500.0;

fn chat(rate: f64) -> Scenario {
    let mut s = smaller(base("chat-latency-first"), REQUESTS);
    s.classes[0].arrival = Arrival::Poisson { rate_per_s: rate };
    s
}

/// Admission control in front of the server: a queue of 64 and a 300 ms deadline for the first
/// token (well inside the 500 ms TTFT target, so what it starts it can still serve in time).
pub fn admission(mut s: Scenario) -> Scenario {
    (s.scheduler.max_queue_len, s.scheduler.queue_timeout_ms) = (Some(64), Some(300.0));
    s
}

/// The small batch: at most 64 sequences, 2,048 tokens per step.
pub fn small_batch(mut s: Scenario) -> Scenario {
    (s.scheduler.max_num_seqs, s.scheduler.max_num_batched_tokens) = (64, 2048);
    s
}

/// The big batch: the lessons' vLLM server (256 sequences, 8,192 tokens per step, no queue
/// limit, no deadline).
pub fn big_batch(s: Scenario) -> Scenario {
    let mut s = lesson_server(s);
    (s.scheduler.max_num_seqs, s.scheduler.max_num_batched_tokens) = (256, 8192);
    s
}

fn runs(_seed: u64) -> Vec<LessonRun> {
    let [busy, over] = RATES;
    vec![
        LessonRun { variant: "small-admission-busy", scenario: admission(small_batch(big_batch(chat(busy)))) },
        LessonRun { variant: "big-busy", scenario: big_batch(chat(busy)) },
        LessonRun { variant: "big-admission-busy", scenario: admission(big_batch(chat(busy))) },
        LessonRun { variant: "small-admission-overload", scenario: admission(small_batch(big_batch(chat(over)))) },
        LessonRun { variant: "big-overload", scenario: big_batch(chat(over)) },
        LessonRun { variant: "big-admission-overload", scenario: admission(big_batch(chat(over))) },
    ]
}

fn turned_away(s: &Summary) -> f64 {
    Metric::Requests(Count::Rejected).of(s) + Metric::Requests(Count::TimedOut).of(s)
}

/// Good requests among the requests a run served (completed).
fn served_on_time(s: &Summary) -> f64 {
    let good = Metric::GoodputRequests.of(s) * Metric::DurationS.of(s);
    good / Metric::Requests(Count::Completed).of(s).max(1.0)
}

const SENTENCES: &[&str] = &[
    "busy_tie",
    "busy_admission_wins",
    "busy_admission_loses",
    "over_admission_wins",
    "over_tie",
    "over_admission_loses",
    "over_queue",
    "over_shed",
    "small_batch_loss",
    "where",
];

/// The servers within the tie margin of the most goodput at one load (positions 0..3: small
/// batch with admission control, big batch, big batch with admission control).
fn best(g: [f64; 3]) -> [bool; 3] {
    let top = g.iter().copied().fold(0.0, f64::max);
    g.map(|x| x * MARGIN >= top)
}

fn outcome(r: &[Summary]) -> Outcome {
    let g = |i: usize| GOODPUT.of(&r[i]);
    let (busy, over) = (best([g(0), g(1), g(2)]), best([g(3), g(4), g(5)]));
    let both = |i: usize| busy[i] && over[i];
    let tie = |a: usize, b: usize| g(a) * MARGIN >= g(b) && g(b) * MARGIN >= g(a);
    // choices: the small batch with admission control is best at both loads; the big batch as
    // vLLM runs it; the big batch with admission control; the two big batches tie (within 5%)
    // at both loads, so admission control made no difference; else no server is best at both
    let answer = if both(2) && both(1) && tie(1, 2) && tie(4, 5) {
        3
    } else if both(2) {
        2
    } else if both(1) {
        1
    } else if both(0) {
        0
    } else {
        4
    };
    let usd = Metric::UsdPerMillionGoodTokens;
    let quotes: [Quote; 15] = [
        ("goodput_small_busy", 0, GOODPUT, 1.0),
        ("goodput_big_busy", 1, GOODPUT, 1.0),
        ("goodput_adm_busy", 2, GOODPUT, 1.0),
        ("goodput_small_over", 3, GOODPUT, 1.0),
        ("goodput_big_over", 4, GOODPUT, 1.0),
        ("goodput_adm_over", 5, GOODPUT, 1.0),
        ("usd_big_busy", 1, usd, 1.0),
        ("usd_adm_busy", 2, usd, 1.0),
        ("usd_big_over", 4, usd, 1.0),
        ("usd_adm_over", 5, usd, 1.0),
        ("attainment_big_over", 4, Metric::SloAttainment, 1.0),
        ("ttft_p99_big_over_ms", 4, Metric::TTFT_P99, 1.0),
        ("throughput_big_over", 4, THROUGHPUT, 1.0),
        ("attainment_adm_busy", 2, Metric::SloAttainment, 1.0),
        ("attainment_big_busy", 1, Metric::SloAttainment, 1.0),
    ];
    let queue = Metric::TTFT_P99.of(&r[4]) > TTFT_TARGET_MS && Metric::Requests(Count::TimedOut).of(&r[4]) == 0.0;
    let shed = turned_away(&r[5]) > 0.0 && served_on_time(&r[5]) >= 0.99;
    let small_loss = g(0) * MARGIN < g(2) && g(3) * MARGIN < g(5);
    let sentences = say(&[
        ("busy_tie", tie(1, 2)),
        ("busy_admission_wins", g(2) > MARGIN * g(1)),
        ("busy_admission_loses", g(1) > MARGIN * g(2)),
        ("over_admission_wins", g(5) > MARGIN * g(4)),
        ("over_tie", tie(4, 5)),
        ("over_admission_loses", g(4) > MARGIN * g(5)),
        ("over_queue", queue),
        ("over_shed", shed),
        ("small_batch_loss", small_loss),
        ("where", true),
    ]);
    let extra = [("turned_away_adm_over", turned_away(&r[5])), ("served_attainment_adm_over", served_on_time(&r[5]))];
    Outcome { answer, numbers: quote(r, &quotes, &extra), sentences }
}

pub(super) const LESSON: Lesson = Lesson {
    id: "latency-vs-throughput-first",
    choices: 5,
    taught: 2,
    highlight: Metric::GoodputTokens,
    focus_class: None,
    sentences: SENTENCES,
    runs,
    watch: &[4, 5],
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

    #[test]
    fn a_tie_is_within_the_margin_either_way() {
        assert_eq!(best([100.0, 104.0, 96.0]), [true, true, false]);
        assert_eq!(best([0.0, 0.0, 0.0]), [true, true, true]);
    }
}
