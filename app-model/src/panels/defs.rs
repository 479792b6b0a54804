//! The definitions shown one hover or focus away from every metric and setting of the panels
//! (metrics follow vLLM's benchmark definitions, as sim-core measures them): translation keys
//! (`app/i18n/ui.*.json`) the page looks up.

pub const TTFT: &str = "def.ttft";
pub const TPOT: &str = "def.tpot";
pub const ITL: &str = "def.itl";
pub const E2E: &str = "def.e2e";
pub const TTFT_CENSORED: &str = "def.ttft_censored";
pub const E2E_CENSORED: &str = "def.e2e_censored";
pub const P50: &str = "def.p50";
pub const P95: &str = "def.p95";
pub const P99: &str = "def.p99";
pub const MEAN: &str = "def.mean";
pub const THROUGHPUT: &str = "def.throughput";
pub const GOODPUT: &str = "def.goodput";
pub const SLO_ATTAINMENT: &str = "def.slo_attainment";
pub const COST_OUTPUT: &str = "def.cost_output";
pub const COST_GOOD: &str = "def.cost_good";
pub const COMPLETED: &str = "def.completed";
pub const REJECTED: &str = "def.rejected";
pub const TIMED_OUT: &str = "def.timed_out";
pub const PREEMPTED: &str = "def.preempted";
pub const OOM: &str = "def.oom_restarts";
pub const FAILED: &str = "def.failed";
pub const IN_FLIGHT: &str = "def.in_flight";

pub const HBM: &str = "def.hbm";
pub const KV_USED: &str = "def.kv_used";
pub const KV_WASTE: &str = "def.kv_waste";
pub const KV_FREE: &str = "def.kv_free";
pub const KV_CACHED: &str = "def.kv_cached";
pub const PREFIX_CACHE: &str = "def.prefix_cache";
pub const ROUTER_IMBALANCE: &str = "def.router_imbalance";
pub const KV_TRANSFER: &str = "def.kv_transfer";
pub const HEADROOM: &str = "def.headroom";
pub const OUTSIDE: &str = "def.outside";
pub const WEIGHTS: &str = "def.weights";
pub const ACTIVATIONS: &str = "def.activations";

/// The key of a metric's definition: `def.` and its definition id (`Metric::definition`), so a
/// metric of the table is defined where it is declared (`tests/panel_texts.rs` holds every
/// metric's key to both tables).
pub fn of_metric(m: sim_core::Metric) -> String {
    format!("def.{}", m.definition())
}

/// The metrics the page names in words (a lesson's runs table, an exercise's goals), with the key
/// of each name: one table, read by the metric. A metric without a row is shown by its path.
pub const NAMES: [(sim_core::Metric, &str); 18] = {
    use sim_core::metric::{Count, Latency, Metric, Stat};
    [
        (Metric::Latency(Latency::Ttft, Stat::P99), "features.num.ttft_p99"),
        (Metric::Latency(Latency::Ttft, Stat::P95), "features.num.ttft_p95"),
        (Metric::Latency(Latency::Ttft, Stat::Mean), "features.num.ttft_mean"),
        (Metric::Latency(Latency::Tpot, Stat::P99), "features.num.tpot_p99"),
        (Metric::Latency(Latency::Tpot, Stat::Mean), "features.num.tpot_mean"),
        (Metric::Latency(Latency::Itl, Stat::P99), "features.num.itl_p99"),
        (Metric::Latency(Latency::E2e, Stat::P99), "features.num.e2e_p99"),
        (Metric::ThroughputTokens, "features.num.throughput"),
        (Metric::GoodputTokens, "features.num.goodput"),
        (Metric::SloAttainment, "features.num.attainment"),
        (Metric::UsdPerMillionGoodTokens, "features.num.cost_good"),
        (Metric::UsdPerMillionOutputTokens, "features.num.cost_output"),
        (Metric::Requests(Count::OomRestarts), "features.num.oom"),
        (Metric::PeakRunning, "features.num.peak_running"),
        (Metric::KvPeakBytes, "features.num.kv_peak"),
        (Metric::ErrorRate, "features.num.error_rate"),
        (Metric::KvFreeAtPeak, "features.num.kv_free_peak"),
        (Metric::UsdPerHour, "features.num.cost_hour"),
    ]
};

/// The key of a metric's name, if the page names it ([`NAMES`]).
pub fn name_of(m: sim_core::Metric) -> Option<&'static str> {
    NAMES.iter().find(|(x, _)| *x == m).map(|(_, k)| *k)
}
