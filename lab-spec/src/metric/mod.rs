//! Typed metrics: every number of a [`Summary`] that lessons, exercises, contracts, sweeps, the
//! CLI and the page's panels read, as one enum with its stable name, unit and definition id.
//!
//! The stable name is the number's path in the summary's JSON (`ttft_ms.p99`,
//! `cost.usd_per_million_good_tokens`); a [`MetricRef`] adds a class
//! (`classes.chat.ttft_ms.p99`). Names are what exercise and contract files store, so they may be
//! added, never renamed. The definition id names the concept (`ttft`, `goodput`); sim-core knows
//! no locale, the page maps ids to its words.
//!
//! The parts a metric is made of (latencies, statistics, counts) are in `parts`, the units in
//! `unit`, reading a number from a summary in `read`, a class's metric in `reference`, and the
//! comparisons goals and objectives make in `goal`.

mod goal;
mod parts;
mod read;
mod reference;
mod unit;

pub use goal::{Direction, Op};
pub use parts::{Censorable, CensoredStat, Count, Latency, Stat};
pub use reference::MetricRef;
pub use unit::Unit;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// One number of a summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Metric {
    /// A statistic of a latency distribution (`ttft_ms.p99`).
    Latency(Latency, Stat),
    /// A statistic of a censored view (`ttft_ms_censored.p99`): a lower bound over every
    /// request that arrived.
    Censored(Censorable, CensoredStat),
    /// A request count (`requests.completed`).
    Requests(Count),
    /// Output tokens of completed requests per second (`throughput.output_tokens_per_s`).
    ThroughputTokens,
    /// Prompt and output tokens of completed requests per second.
    ThroughputTotalTokens,
    /// Completed requests per second.
    ThroughputRequests,
    /// Requests that met every SLO of their class, per second.
    GoodputRequests,
    /// Output tokens of those requests per second.
    GoodputTokens,
    /// Good requests ÷ requests that ended.
    SloAttainment,
    /// Rejected, timed-out and failed requests ÷ arrivals (derived; not a summary field).
    ErrorRate,
    /// Simulated time of the run.
    DurationS,
    HbmBytes,
    WeightsBytes,
    ActivationBytes,
    /// Capacity outside the server's budget (1 − gpu_memory_utilization).
    HeadroomBytes,
    /// The serving process's CUDA context and graphs, in the headroom.
    RuntimeBytes,
    /// Other processes' memory, in the headroom.
    OtherProcessBytes,
    KvCapacityBytes,
    KvPeakBytes,
    KvBytesPerToken,
    KvCapacityTokens,
    /// Most sequences holding KV at once.
    PeakRunning,
    /// Share of allocated KV holding no token, averaged over iterations.
    KvWasteMean,
    /// Share of the KV pool free at its peak use (derived; not a summary field).
    KvFreeAtPeak,
    UsdPerHour,
    UsdPerMillionOutputTokens,
    UsdPerMillionGoodTokens,
    /// Prompt tokens served from the prefix cache ÷ prompt tokens (0 where nothing is cached:
    /// prefix caching off, or no class sharing a prefix).
    PrefixHitRate,
    /// Prompt tokens whose KV was found in the prefix cache.
    PrefixCachedTokens,
    /// Cached prefix blocks taken back for other allocations.
    PrefixEvictedBlocks,
    /// Speculative decoding: tokens a decode step emitted per sequence, on average (0 with
    /// speculation off).
    SpeculativeTokensPerStep,
    /// Speculative decoding: draft tokens proposed per sequence per step (0 with it off).
    SpeculativeDraftTokens,
    /// Requests of the busiest replica ÷ the mean over replicas (1 with one replica).
    RouterImbalance,
    /// Disaggregation: from a prompt's prefill ending to its KV at the decode replica, mean and
    /// p99 (0 without disaggregation).
    KvTransferMean,
    KvTransferP99,
}

/// The metrics that are not `Latency` or `Requests`, with their names.
const SCALARS: [(Metric, &str); 32] = [
    (Metric::ThroughputTokens, "throughput.output_tokens_per_s"),
    (Metric::ThroughputTotalTokens, "throughput.total_tokens_per_s"),
    (Metric::ThroughputRequests, "throughput.requests_per_s"),
    (Metric::GoodputRequests, "goodput.requests_per_s"),
    (Metric::GoodputTokens, "goodput.output_tokens_per_s"),
    (Metric::SloAttainment, "goodput.slo_attainment"),
    (Metric::ErrorRate, "error_rate"),
    (Metric::DurationS, "duration_s"),
    (Metric::HbmBytes, "memory.hbm_bytes"),
    (Metric::WeightsBytes, "memory.weights_bytes"),
    (Metric::ActivationBytes, "memory.activation_bytes"),
    (Metric::HeadroomBytes, "memory.headroom_bytes"),
    (Metric::RuntimeBytes, "memory.runtime_bytes"),
    (Metric::OtherProcessBytes, "memory.other_process_bytes"),
    (Metric::KvCapacityBytes, "memory.kv_capacity_bytes"),
    (Metric::KvPeakBytes, "memory.kv_peak_bytes"),
    (Metric::KvBytesPerToken, "memory.kv_bytes_per_token"),
    (Metric::KvCapacityTokens, "memory.kv_capacity_tokens"),
    (Metric::PeakRunning, "memory.peak_running"),
    (Metric::KvWasteMean, "memory.kv_waste_mean"),
    (Metric::KvFreeAtPeak, "kv_free_at_peak"),
    (Metric::UsdPerHour, "cost.usd_per_hour"),
    (Metric::UsdPerMillionOutputTokens, "cost.usd_per_million_output_tokens"),
    (Metric::UsdPerMillionGoodTokens, "cost.usd_per_million_good_tokens"),
    (Metric::PrefixHitRate, "prefix_cache.hit_rate"),
    (Metric::PrefixCachedTokens, "prefix_cache.cached_tokens"),
    (Metric::PrefixEvictedBlocks, "prefix_cache.evicted_blocks"),
    (Metric::SpeculativeTokensPerStep, "speculative.mean_accepted_tokens_per_step"),
    (Metric::SpeculativeDraftTokens, "speculative.draft_tokens"),
    (Metric::RouterImbalance, "router.imbalance"),
    (Metric::KvTransferMean, "disaggregation.kv_transfer_ms.mean"),
    (Metric::KvTransferP99, "disaggregation.kv_transfer_ms.p99"),
];

impl Metric {
    pub const TTFT_P99: Metric = Metric::Latency(Latency::Ttft, Stat::P99);
    pub const TPOT_P99: Metric = Metric::Latency(Latency::Tpot, Stat::P99);
    pub const E2E_P99: Metric = Metric::Latency(Latency::E2e, Stat::P99);

    pub const TTFT_P99_CENSORED: Metric = Metric::Censored(Censorable::Ttft, CensoredStat::Stat(Stat::P99));

    /// Every metric: the latency statistics, their censored views, the counts, then the rest.
    pub fn all() -> Vec<Metric> {
        let lat = Latency::ALL.into_iter().flat_map(|l| Stat::ALL.into_iter().map(move |s| Metric::Latency(l, s)));
        let cen = Censorable::ALL.into_iter().flat_map(|c| CensoredStat::all().map(move |s| Metric::Censored(c, s)));
        lat.chain(cen)
            .chain(Count::ALL.into_iter().map(Metric::Requests))
            .chain(SCALARS.iter().map(|(m, _)| *m))
            .collect()
    }

    /// The stable name: the path of the number in the summary's JSON (`ttft_ms.p99`), or a
    /// plain id for a derived number (`error_rate`).
    pub fn name(self) -> String {
        match self {
            Metric::Latency(l, s) => format!("{}.{}", l.field(), s.field()),
            Metric::Censored(c, s) => format!("{}.{}", c.field(), s.field()),
            Metric::Requests(c) => format!("requests.{}", c.field()),
            m => SCALARS.iter().find(|(x, _)| *x == m).map(|(_, n)| n.to_string()).expect("every scalar is listed"),
        }
    }

    pub fn parse(name: &str) -> Option<Metric> {
        if let Some((head, stat)) = name.split_once('.') {
            let l = Latency::ALL.into_iter().find(|l| l.field() == head);
            if let (Some(l), Some(s)) = (l, Stat::ALL.into_iter().find(|s| s.field() == stat)) {
                return Some(Metric::Latency(l, s));
            }
            if let Some(c) = Censorable::ALL.into_iter().find(|c| c.field() == head) {
                return CensoredStat::all().find(|s| s.field() == stat).map(|s| Metric::Censored(c, s));
            }
            if head == "requests" {
                return Count::ALL.into_iter().find(|c| c.field() == stat).map(Metric::Requests);
            }
        }
        SCALARS.iter().find(|(_, n)| *n == name).map(|(m, _)| *m)
    }

    pub fn unit(self) -> Unit {
        match self {
            Metric::Latency(_, Stat::Count) => Unit::Requests,
            Metric::Latency(..) => Unit::Ms,
            Metric::Censored(_, CensoredStat::Stat(Stat::Count) | CensoredStat::Censored) => Unit::Requests,
            Metric::Censored(..) => Unit::Ms,
            Metric::Requests(c) => c.unit(),
            Metric::ThroughputTokens | Metric::ThroughputTotalTokens | Metric::GoodputTokens => Unit::TokensPerS,
            Metric::ThroughputRequests | Metric::GoodputRequests => Unit::RequestsPerS,
            Metric::SloAttainment
            | Metric::ErrorRate
            | Metric::KvWasteMean
            | Metric::KvFreeAtPeak
            | Metric::PrefixHitRate => Unit::Share,
            Metric::DurationS => Unit::S,
            Metric::HbmBytes
            | Metric::WeightsBytes
            | Metric::ActivationBytes
            | Metric::HeadroomBytes
            | Metric::RuntimeBytes
            | Metric::OtherProcessBytes
            | Metric::KvCapacityBytes
            | Metric::KvPeakBytes => Unit::Bytes,
            Metric::KvBytesPerToken => Unit::BytesPerToken,
            Metric::KvCapacityTokens | Metric::PrefixCachedTokens | Metric::SpeculativeDraftTokens => Unit::Tokens,
            Metric::SpeculativeTokensPerStep => Unit::None,
            Metric::PrefixEvictedBlocks => Unit::Count,
            Metric::RouterImbalance => Unit::Times,
            Metric::KvTransferMean | Metric::KvTransferP99 => Unit::Ms,
            Metric::PeakRunning => Unit::Seqs,
            Metric::UsdPerHour => Unit::UsdPerHour,
            Metric::UsdPerMillionOutputTokens | Metric::UsdPerMillionGoodTokens => Unit::Usd,
        }
    }

    /// The id of the definition that explains this number (`ttft`, `goodput`, `kv_peak`).
    pub fn definition(self) -> &'static str {
        match self {
            Metric::Latency(l, _) => l.definition(),
            Metric::Censored(c, _) => c.definition(),
            Metric::Requests(c) => c.field(),
            Metric::ThroughputTokens | Metric::ThroughputTotalTokens | Metric::ThroughputRequests => "throughput",
            Metric::GoodputRequests | Metric::GoodputTokens => "goodput",
            Metric::SloAttainment => "slo_attainment",
            Metric::ErrorRate => "error_rate",
            Metric::DurationS => "duration",
            Metric::HbmBytes => "hbm",
            Metric::WeightsBytes => "weights",
            Metric::ActivationBytes => "activations",
            Metric::HeadroomBytes => "headroom",
            Metric::RuntimeBytes => "runtime",
            Metric::OtherProcessBytes => "other_process",
            Metric::KvCapacityBytes | Metric::KvCapacityTokens => "kv_capacity",
            Metric::KvPeakBytes => "kv_peak",
            Metric::KvBytesPerToken => "kv_bytes_per_token",
            Metric::PeakRunning => "peak_running",
            Metric::KvWasteMean => "kv_waste",
            Metric::KvFreeAtPeak => "kv_free",
            Metric::UsdPerHour => "cost_hour",
            Metric::UsdPerMillionOutputTokens => "cost_output",
            Metric::UsdPerMillionGoodTokens => "cost_good",
            Metric::PrefixHitRate | Metric::PrefixCachedTokens | Metric::PrefixEvictedBlocks => "prefix_cache",
            Metric::SpeculativeTokensPerStep | Metric::SpeculativeDraftTokens => "speculative",
            Metric::RouterImbalance => "router_imbalance",
            Metric::KvTransferMean | Metric::KvTransferP99 => "kv_transfer",
        }
    }

    /// Which way is better for the learner: lower latency, errors and cost, higher throughput,
    /// goodput and attainment; `None` where neither is (arrivals, memory sizes, duration).
    pub fn better(self) -> Option<Direction> {
        use Direction::{Max, Min};
        match self {
            Metric::Latency(_, Stat::Count) | Metric::Censored(_, CensoredStat::Stat(Stat::Count)) => None,
            Metric::Latency(..) | Metric::Censored(..) => Some(Min),
            Metric::Requests(Count::Completed) => Some(Max),
            Metric::Requests(Count::Arrived | Count::InFlight | Count::Ended) => None,
            Metric::Requests(_) => Some(Min),
            Metric::ThroughputTokens
            | Metric::ThroughputTotalTokens
            | Metric::ThroughputRequests
            | Metric::GoodputRequests
            | Metric::GoodputTokens
            | Metric::SloAttainment
            | Metric::PrefixHitRate
            | Metric::SpeculativeTokensPerStep => Some(Max),
            Metric::ErrorRate
            | Metric::KvWasteMean
            | Metric::UsdPerHour
            | Metric::UsdPerMillionOutputTokens
            | Metric::UsdPerMillionGoodTokens
            | Metric::RouterImbalance
            | Metric::KvTransferMean
            | Metric::KvTransferP99 => Some(Min),
            _ => None,
        }
    }

    /// Whether each class has this number too (memory, cost and duration are the run's).
    pub fn per_class(self) -> bool {
        matches!(
            self,
            Metric::Latency(..)
                | Metric::Censored(..)
                | Metric::Requests(_)
                | Metric::ThroughputTokens
                | Metric::ThroughputTotalTokens
                | Metric::ThroughputRequests
                | Metric::GoodputRequests
                | Metric::GoodputTokens
                | Metric::SloAttainment
                | Metric::ErrorRate
                | Metric::PrefixHitRate
                | Metric::PrefixCachedTokens
                | Metric::PrefixEvictedBlocks
        )
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl Serialize for Metric {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Metric {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Metric::parse(&s).ok_or_else(|| serde::de::Error::custom(format!("unknown metric \"{s}\"")))
    }
}
