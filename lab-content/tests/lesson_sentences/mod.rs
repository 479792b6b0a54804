//! Independent checks of what each lesson's sentences state, one file per lesson: each check
//! reads the runs' summaries directly (not through the lesson's rule).

mod context_too_large;
mod cost_per_good_token;
mod disaggregation;
mod goodput_vs_throughput;
mod headroom;
mod kv_arithmetic;
mod latency_vs_throughput_first;
mod long_outputs;
mod mean_hides_tail;
mod mixed_traffic;
mod prefix_caching;
mod quantization;
mod routing;
mod safe_zone;
mod speculative_crowd;
mod tp_vs_replicas;
mod tpot_vs_itl;
mod ttft_vs_tpot;
mod what_limits;

use lab_content::lessons::{find, Outcome};
use sim_core::{Scenario, Summary};

/// A lesson's checks: whether a sentence is true of these runs, `None` for one it does not know.
type Check = fn(&str, &[Summary], &Outcome) -> Option<bool>;

/// One line per lesson explained sentence by sentence.
const CHECKS: &[(&str, Check)] = &[
    ("context-too-large", context_too_large::check),
    ("goodput-vs-throughput", goodput_vs_throughput::check),
    ("headroom", headroom::check),
    ("kv-arithmetic", kv_arithmetic::check),
    ("latency-vs-throughput-first", latency_vs_throughput_first::check),
    ("mean-hides-tail", mean_hides_tail::check),
    ("ttft-vs-tpot", ttft_vs_tpot::check),
    ("mixed-traffic", mixed_traffic::check),
    ("routing", routing::check),
    ("tpot-vs-itl", tpot_vs_itl::check),
    ("cost-per-good-token", cost_per_good_token::check),
    ("safe-zone", safe_zone::check),
    ("speculative-crowd", speculative_crowd::check),
    ("prefix-caching", prefix_caching::check),
    ("disaggregation", disaggregation::check),
    ("long-outputs", long_outputs::check),
    ("quantization", quantization::check),
    ("tp-vs-replicas", tp_vs_replicas::check),
    ("what-limits", what_limits::check),
];

/// Whether `sentence` of `lesson` is true of these runs; `None` for a sentence no check knows.
pub fn check(lesson: &str, sentence: &str, sums: &[Summary], o: &Outcome) -> Option<bool> {
    CHECKS.iter().find(|(id, _)| *id == lesson).and_then(|(_, c)| c(sentence, sums, o))
}

/// The choice `lesson`'s runs bear out on `seed` after `change` (a run's position, its scenario).
pub fn answer(lesson: &str, seed: u64, change: impl Fn(usize, &mut Scenario)) -> usize {
    let l = find(lesson).expect("lesson");
    l.run_changed(seed, change).expect("the changed runs are valid").1.answer
}

/// The outcome quotes `name` as `v`.
pub fn quoted(o: &Outcome, name: &str, v: f64) -> bool {
    o.numbers.get(name).is_some_and(|n| (n - v).abs() <= 1e-9 * v.abs().max(1.0))
}
