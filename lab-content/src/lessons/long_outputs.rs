//! Lesson `long-outputs`, reasoning-length answers: the same chat prompts at the same 2
//! requests/s on Qwen3-8B / one H100, with answers of about 300 tokens (run A) and of about 4,000
//! (run B, a reasoning model's). Every answer holds its KV until its last token, so B needs
//! requests/s × answer time sequences at once, more than the pool holds: requests wait for room
//! and TTFT goes far past its target, while the tokens of a running answer still come well within
//! the TPOT target.

use super::*;

/// Requests per run, and the offered rate.
const REQUESTS: u64 = 1000;
pub const RATE: f64 = 2.0;
/// Mean answer lengths, tokens (log-normal, σ 0.6).
pub const SHORT: f64 = 300.0;
pub const LONG: f64 = 4000.0;
/// The chat class's targets in the preset, ms.
pub const SLO_TTFT_MS: f64 = 500.0;
pub const SLO_TPOT_MS: f64 = 50.0;

fn scenario(mean: f64) -> Scenario {
    let mut s = lesson_server(smaller(base("chat-latency-first"), REQUESTS));
    s.model = sim_core::scenario::ModelRef::Id("qwen3-8b".into());
    // room for a long prompt and a long answer
    s.scheduler.max_model_len = 32_768;
    let c = &mut s.classes[0];
    c.arrival = Arrival::Poisson { rate_per_s: RATE };
    c.output_tokens = Some(LengthDist::Lognormal { mean, sigma: 0.6 });
    s
}

fn runs(_seed: u64) -> Vec<LessonRun> {
    vec![
        LessonRun { variant: "short-300", scenario: scenario(SHORT) },
        LessonRun { variant: "long-4000", scenario: scenario(LONG) },
    ]
}

const SENTENCES: &[&str] =
    &["ttft_breaks", "on_time", "tpot_fine", "tpot_slow", "kv_bound", "littles_law", "preempted", "e2e"];

/// Mean output tokens of a run's completed requests.
fn mean_output(s: &Summary) -> f64 {
    let requests_per_s = Metric::ThroughputRequests.of(s);
    if requests_per_s > 0.0 {
        THROUGHPUT.of(s) / requests_per_s
    } else {
        0.0
    }
}

fn outcome(r: &[Summary]) -> Outcome {
    let (short, long) = (&r[0], &r[1]);
    let p50 = |l| Metric::Latency(l, Stat::P50);
    let late = Metric::TTFT_P99.of(long) > SLO_TTFT_MS;
    let slow = p50(Latency::Tpot).of(long) > SLO_TPOT_MS;
    // choices: both targets met; TTFT met, TPOT over; TTFT over, TPOT met; both over
    let answer = match (late, slow) {
        (false, false) => 0,
        (false, true) => 1,
        (true, false) => 2,
        (true, true) => 3,
    };
    let length_growth = mean_output(long) / mean_output(short).max(1.0);
    // the time an answer decodes, and the sequences the long run needs at once to keep up with
    // the arrivals (Little's law: arrivals/s × that time)
    let answer_s = mean_output(long) * p50(Latency::Tpot).of(long) / 1000.0;
    let needed = Metric::ThroughputRequests.of(short) * answer_s;
    let e2e_growth = Metric::E2E_P99.of(long) / Metric::E2E_P99.of(short).max(1e-9);
    let kv_full = Metric::KvPeakBytes.of(long) >= 0.9 * Metric::KvCapacityBytes.of(long);
    let peak = |s: &Summary| Metric::PeakRunning.of(s);
    let sentences = say(&[
        ("ttft_breaks", late),
        ("on_time", !late),
        ("tpot_fine", !slow),
        ("tpot_slow", slow),
        ("kv_bound", late && kv_full && peak(long) > peak(short)),
        ("littles_law", late && kv_full && needed > peak(long)),
        ("preempted", Metric::Requests(Count::Preempted).of(long) > 0.0),
        ("e2e", e2e_growth > 2.0 * length_growth),
    ]);
    let quotes = [
        ("rps_short", 0, Metric::ThroughputRequests, 1.0),
        ("tpot_p50_short_ms", 0, p50(Latency::Tpot), 1.0),
        ("tpot_p50_long_ms", 1, p50(Latency::Tpot), 1.0),
        ("ttft_p99_short_ms", 0, Metric::TTFT_P99, 1.0),
        ("ttft_p99_long_ms", 1, Metric::TTFT_P99, 1.0),
        ("e2e_p99_short_ms", 0, Metric::E2E_P99, 1.0),
        ("e2e_p99_long_ms", 1, Metric::E2E_P99, 1.0),
        ("peak_running_short", 0, Metric::PeakRunning, 1.0),
        ("peak_running_long", 1, Metric::PeakRunning, 1.0),
        ("kv_capacity_tokens", 1, Metric::KvCapacityTokens, 1.0),
        ("preempted_long", 1, Metric::Requests(Count::Preempted), 1.0),
        ("attainment_short", 0, Metric::SloAttainment, 1.0),
        ("attainment_long", 1, Metric::SloAttainment, 1.0),
    ];
    let extra = [
        ("length_growth", length_growth),
        ("e2e_growth", e2e_growth),
        ("needed", needed.round()),
        ("answer_s", answer_s),
        ("slo_ttft_ms", SLO_TTFT_MS),
        ("slo_tpot_ms", SLO_TPOT_MS),
    ];
    Outcome { answer, numbers: quote(r, &quotes, &extra), sentences }
}

pub(super) const LESSON: Lesson = Lesson {
    id: "long-outputs",
    choices: 4,
    taught: 2,
    highlight: Metric::TTFT_P99,
    focus_class: None,
    sentences: SENTENCES,
    runs,
    watch: &[0, 1],
    outcome,
};
