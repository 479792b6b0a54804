//! Typed metrics: every number of a [`Summary`] that lessons, exercises, contracts, sweeps, the
//! CLI and the page's panels read, as one enum with its stable name, unit and definition id.
//!
//! The stable name is the number's path in the summary's JSON (`ttft_ms.p99`,
//! `cost.usd_per_million_good_tokens`); a [`MetricRef`] adds a class
//! (`classes.chat.ttft_ms.p99`). Names are what exercise and contract files store, so they may be
//! added, never renamed. The definition id names the concept (`ttft`, `goodput`); sim-core knows
//! no locale, the page maps ids to its words.

use crate::metrics::{Censored, ClassSummary, Dist, Summary};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// What a number is measured in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Milliseconds.
    Ms,
    /// Seconds.
    S,
    /// A share, 0..=1.
    Share,
    /// Requests (a count).
    Requests,
    /// Events counted (preemptions, restarts).
    Count,
    /// Sequences (a count).
    Seqs,
    /// Tokens (a count).
    Tokens,
    /// Closed-loop users (a count).
    Users,
    TokensPerS,
    RequestsPerS,
    Bytes,
    /// Gibibytes (a setting in GiB).
    Gib,
    BytesPerToken,
    Usd,
    UsdPerHour,
    /// A multiplier (trace speed-up).
    Times,
    /// A plain number (coefficient of variation, priority, σ).
    None,
}

impl Unit {
    /// A short symbol for plain-text output (`ms`, `tok/s`, `$`); empty for plain numbers.
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Ms => "ms",
            Unit::S => "s",
            Unit::Share => "share",
            Unit::Requests => "requests",
            Unit::Count => "count",
            Unit::Seqs => "seqs",
            Unit::Tokens => "tokens",
            Unit::Users => "users",
            Unit::TokensPerS => "tok/s",
            Unit::RequestsPerS => "req/s",
            Unit::Bytes => "B",
            Unit::Gib => "GiB",
            Unit::BytesPerToken => "B/token",
            Unit::Usd => "$",
            Unit::UsdPerHour => "$/GPU-h",
            Unit::Times => "×",
            Unit::None => "",
        }
    }
}

/// The six latency distributions of a summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Latency {
    Ttft,
    Tpot,
    Itl,
    E2e,
    Queue,
    Prefill,
}

impl Latency {
    pub const ALL: [Latency; 6] =
        [Latency::Ttft, Latency::Tpot, Latency::Itl, Latency::E2e, Latency::Queue, Latency::Prefill];

    /// The summary field (`ttft_ms`).
    pub fn field(self) -> &'static str {
        match self {
            Latency::Ttft => "ttft_ms",
            Latency::Tpot => "tpot_ms",
            Latency::Itl => "itl_ms",
            Latency::E2e => "e2e_ms",
            Latency::Queue => "queue_ms",
            Latency::Prefill => "prefill_ms",
        }
    }

    /// Definition id (`ttft`).
    pub fn definition(self) -> &'static str {
        self.field().trim_end_matches("_ms")
    }

    pub fn of(self, c: &ClassSummary) -> &Dist {
        match self {
            Latency::Ttft => &c.ttft_ms,
            Latency::Tpot => &c.tpot_ms,
            Latency::Itl => &c.itl_ms,
            Latency::E2e => &c.e2e_ms,
            Latency::Queue => &c.queue_ms,
            Latency::Prefill => &c.prefill_ms,
        }
    }
}

/// The latencies with a censored view (`ttft_ms_censored`): every request that arrived counted,
/// the ones without an answer at a lower bound (their age, a timed-out one's timeout).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Censorable {
    Ttft,
    E2e,
}

impl Censorable {
    pub const ALL: [Censorable; 2] = [Censorable::Ttft, Censorable::E2e];

    /// The completed-only latency this view extends.
    pub fn latency(self) -> Latency {
        match self {
            Censorable::Ttft => Latency::Ttft,
            Censorable::E2e => Latency::E2e,
        }
    }

    /// The censored view of `latency`, if it has one.
    pub fn of_latency(latency: Latency) -> Option<Censorable> {
        Censorable::ALL.into_iter().find(|c| c.latency() == latency)
    }

    /// The summary field (`ttft_ms_censored`).
    pub fn field(self) -> &'static str {
        match self {
            Censorable::Ttft => "ttft_ms_censored",
            Censorable::E2e => "e2e_ms_censored",
        }
    }

    /// Definition id (`ttft_censored`).
    pub fn definition(self) -> &'static str {
        match self {
            Censorable::Ttft => "ttft_censored",
            Censorable::E2e => "e2e_censored",
        }
    }

    pub fn of(self, c: &ClassSummary) -> &Censored {
        match self {
            Censorable::Ttft => &c.ttft_ms_censored,
            Censorable::E2e => &c.e2e_ms_censored,
        }
    }
}

/// A statistic of a censored view: a lower bound of the statistic over every request, or the
/// counts it is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CensoredStat {
    /// A statistic of the distribution (`Stat::Count`: requests counted, every arrival).
    Stat(Stat),
    /// Requests counted at a lower bound (no answer, or not ended).
    Censored,
}

impl CensoredStat {
    pub fn all() -> impl Iterator<Item = CensoredStat> {
        Stat::ALL.into_iter().map(CensoredStat::Stat).chain([CensoredStat::Censored])
    }

    /// The field of [`Censored`] (`p99`, `censored`).
    pub fn field(self) -> &'static str {
        match self {
            CensoredStat::Stat(s) => s.field(),
            CensoredStat::Censored => "censored",
        }
    }

    pub fn of(self, c: &Censored) -> f64 {
        match self {
            CensoredStat::Stat(Stat::Count) => c.count as f64,
            CensoredStat::Stat(Stat::Mean) => c.mean,
            CensoredStat::Stat(Stat::P50) => c.p50,
            CensoredStat::Stat(Stat::P90) => c.p90,
            CensoredStat::Stat(Stat::P95) => c.p95,
            CensoredStat::Stat(Stat::P99) => c.p99,
            CensoredStat::Stat(Stat::Max) => c.max,
            CensoredStat::Censored => c.censored as f64,
        }
    }
}

/// A statistic of a latency distribution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stat {
    Count,
    Mean,
    P50,
    P90,
    P95,
    P99,
    Max,
}

impl Stat {
    pub const ALL: [Stat; 7] = [Stat::Count, Stat::Mean, Stat::P50, Stat::P90, Stat::P95, Stat::P99, Stat::Max];

    /// The field of [`Dist`] (`p99`); also its definition id.
    pub fn field(self) -> &'static str {
        match self {
            Stat::Count => "count",
            Stat::Mean => "mean",
            Stat::P50 => "p50",
            Stat::P90 => "p90",
            Stat::P95 => "p95",
            Stat::P99 => "p99",
            Stat::Max => "max",
        }
    }

    pub fn of(self, d: &Dist) -> f64 {
        match self {
            Stat::Count => d.count as f64,
            Stat::Mean => d.mean,
            Stat::P50 => d.p50,
            Stat::P90 => d.p90,
            Stat::P95 => d.p95,
            Stat::P99 => d.p99,
            Stat::Max => d.max,
        }
    }
}

/// A request count of [`crate::metrics::Counts`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Count {
    Arrived,
    Completed,
    Rejected,
    TimedOut,
    Failed,
    Preempted,
    OomRestarts,
    InFlight,
    /// Completed, rejected, timed out or failed (what the completed-only latencies are out of).
    Ended,
}

impl Count {
    pub const ALL: [Count; 9] = [
        Count::Arrived,
        Count::Completed,
        Count::Rejected,
        Count::TimedOut,
        Count::Failed,
        Count::Preempted,
        Count::OomRestarts,
        Count::InFlight,
        Count::Ended,
    ];

    /// The field of `Counts` (`timed_out`); also its definition id.
    pub fn field(self) -> &'static str {
        match self {
            Count::Arrived => "arrived",
            Count::Completed => "completed",
            Count::Rejected => "rejected",
            Count::TimedOut => "timed_out",
            Count::Failed => "failed",
            Count::Preempted => "preempted",
            Count::OomRestarts => "oom_restarts",
            Count::InFlight => "in_flight",
            Count::Ended => "ended",
        }
    }

    pub fn of(self, c: &crate::metrics::Counts) -> u64 {
        match self {
            Count::Arrived => c.arrived,
            Count::Completed => c.completed,
            Count::Rejected => c.rejected,
            Count::TimedOut => c.timed_out,
            Count::Failed => c.failed,
            Count::Preempted => c.preempted,
            Count::OomRestarts => c.oom_restarts,
            Count::InFlight => c.in_flight,
            Count::Ended => c.ended(),
        }
    }

    fn unit(self) -> Unit {
        match self {
            Count::Preempted | Count::OomRestarts => Unit::Count,
            _ => Unit::Requests,
        }
    }
}

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

    /// The number for one class (or for all traffic: `summary.all`); `None` for a metric only
    /// the whole run has.
    pub fn of_class(self, c: &ClassSummary) -> Option<f64> {
        Some(match self {
            Metric::Latency(l, s) => s.of(l.of(c)),
            Metric::Censored(l, s) => s.of(l.of(c)),
            Metric::Requests(n) => n.of(&c.requests) as f64,
            Metric::ThroughputTokens => c.throughput.output_tokens_per_s,
            Metric::ThroughputTotalTokens => c.throughput.total_tokens_per_s,
            Metric::ThroughputRequests => c.throughput.requests_per_s,
            Metric::GoodputRequests => c.goodput.requests_per_s,
            Metric::GoodputTokens => c.goodput.output_tokens_per_s,
            Metric::SloAttainment => c.goodput.slo_attainment,
            Metric::ErrorRate => c.requests.errors() as f64 / c.requests.arrived.max(1) as f64,
            Metric::PrefixHitRate => c.prefix_cache.map_or(0.0, |p| p.hit_rate),
            Metric::PrefixCachedTokens => c.prefix_cache.map_or(0.0, |p| p.cached_tokens as f64),
            Metric::PrefixEvictedBlocks => c.prefix_cache.map_or(0.0, |p| p.evicted_blocks as f64),
            _ => return None,
        })
    }

    /// The number for the whole run.
    pub fn of(self, s: &Summary) -> f64 {
        if let Some(v) = self.of_class(&s.all) {
            return v;
        }
        let m = &s.memory;
        match self {
            Metric::DurationS => s.duration_s,
            Metric::HbmBytes => m.hbm_bytes,
            Metric::WeightsBytes => m.weights_bytes,
            Metric::ActivationBytes => m.activation_bytes,
            Metric::HeadroomBytes => m.headroom_bytes,
            Metric::RuntimeBytes => m.runtime_bytes,
            Metric::OtherProcessBytes => m.other_process_bytes,
            Metric::KvCapacityBytes => m.kv_capacity_bytes,
            Metric::KvPeakBytes => m.kv_peak_bytes,
            Metric::KvBytesPerToken => m.kv_bytes_per_token,
            Metric::KvCapacityTokens => m.kv_capacity_tokens as f64,
            Metric::PeakRunning => m.peak_running as f64,
            Metric::KvWasteMean => m.kv_waste_mean,
            Metric::KvFreeAtPeak => {
                if m.kv_capacity_bytes > 0.0 {
                    1.0 - m.kv_peak_bytes / m.kv_capacity_bytes
                } else {
                    0.0
                }
            }
            Metric::UsdPerHour => s.cost.usd_per_hour,
            Metric::UsdPerMillionOutputTokens => s.cost.usd_per_million_output_tokens,
            Metric::UsdPerMillionGoodTokens => s.cost.usd_per_million_good_tokens,
            Metric::SpeculativeTokensPerStep => s.speculative.map_or(0.0, |p| p.mean_accepted_tokens_per_step),
            Metric::SpeculativeDraftTokens => s.speculative.map_or(0.0, |p| p.draft_tokens as f64),
            Metric::RouterImbalance => s.router.as_ref().map_or(1.0, |r| r.imbalance),
            Metric::KvTransferMean => s.disaggregation.map_or(0.0, |d| d.kv_transfer_ms.mean),
            Metric::KvTransferP99 => s.disaggregation.map_or(0.0, |d| d.kv_transfer_ms.p99),
            _ => unreachable!("per-class metrics are read above"),
        }
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

/// A metric of all traffic or of one class: `ttft_ms.p99`, `classes.chat.ttft_ms.p99`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MetricRef {
    pub metric: Metric,
    /// The class's name; `None` for all traffic.
    pub class: Option<String>,
}

impl MetricRef {
    pub fn all(metric: Metric) -> Self {
        MetricRef { metric, class: None }
    }
    pub fn class(metric: Metric, class: impl Into<String>) -> Self {
        MetricRef { metric, class: Some(class.into()) }
    }

    /// Reads `classes.<name>.<metric>` or `<metric>`; the error lists what is known.
    pub fn parse(path: &str) -> Result<MetricRef, String> {
        if let Some(m) = Metric::parse(path) {
            return Ok(MetricRef::all(m));
        }
        if let Some(rest) = path.strip_prefix("classes.") {
            // class names may hold dots: the metric is the longest known suffix
            let found = rest
                .char_indices()
                .filter(|&(_, ch)| ch == '.')
                .find_map(|(i, _)| Metric::parse(&rest[i + 1..]).map(|m| (&rest[..i], m)));
            if let Some((class, m)) = found {
                if !m.per_class() {
                    return Err(format!("metric \"{m}\" is measured for the whole run, not per class"));
                }
                return Ok(MetricRef::class(m, class));
            }
        }
        let names: Vec<String> = Metric::all().into_iter().map(Metric::name).collect();
        Err(format!(
            "unknown metric \"{path}\"; metrics are {} (prefix classes.<name>. for one class)",
            names.join(", ")
        ))
    }

    /// The measured number; `None` when the summary has no such class.
    pub fn read(&self, s: &Summary) -> Option<f64> {
        match &self.class {
            None => Some(self.metric.of(s)),
            Some(c) => s.classes.get(c).and_then(|c| self.metric.of_class(c)),
        }
    }
}

impl fmt::Display for MetricRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.class {
            None => write!(f, "{}", self.metric),
            Some(c) => write!(f, "classes.{c}.{}", self.metric),
        }
    }
}

impl std::str::FromStr for MetricRef {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        MetricRef::parse(s)
    }
}

impl Serialize for MetricRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for MetricRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        MetricRef::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// How a measured number is compared with its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Op {
    /// The measured number must not exceed the target.
    #[serde(rename = "<=")]
    AtMost,
    /// The measured number must reach the target.
    #[serde(rename = ">=")]
    AtLeast,
}

impl Op {
    pub fn holds(self, measured: f64, target: f64) -> bool {
        match self {
            Op::AtMost => measured <= target,
            Op::AtLeast => measured >= target,
        }
    }
    /// `≤` or `≥`.
    pub fn symbol(self) -> &'static str {
        match self {
            Op::AtMost => "≤",
            Op::AtLeast => "≥",
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

/// Whether an objective is minimised or maximised.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Min,
    Max,
}
