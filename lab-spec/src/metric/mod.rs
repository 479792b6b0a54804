//! Typed metrics: every number of a [`Summary`] that lessons, exercises, contracts, sweeps, the
//! CLI and the page's panels read, as one enum with its stable name, unit, definition id, the
//! direction that is better, and how it is read.
//!
//! Three families are built from their parts (`parts`): a latency's statistics (`ttft_ms.p99`),
//! a censored view's (`ttft_ms_censored.p99`) and the request counts (`requests.timed_out`).
//! Every other number is one row of the `metrics!` table below, which declares the enum's
//! variant together with its name, unit, definition, direction and reading (`Read::Class` for a
//! number each class has, `Read::Run` for the whole run's): adding a metric is one row, the
//! words of its definition in the page's two translation tables, and a test.
//!
//! The stable name is the number's path in the summary's JSON (`ttft_ms.p99`,
//! `cost.usd_per_million_good_tokens`); a [`MetricRef`] adds a class
//! (`classes.chat.ttft_ms.p99`). Names are what exercise and contract files store, so they may be
//! added, never renamed. The definition id names the concept (`ttft`, `goodput`); sim-core knows
//! no locale, the page maps ids to its words. The units are in `unit`, a class's metric in
//! `reference`, and the comparisons goals and objectives make in `goal`.

mod goal;
mod parts;
mod reference;
mod unit;

pub use goal::{Direction, Op};
pub use parts::{Censorable, CensoredStat, Count, Latency, Stat};
pub use reference::MetricRef;
pub use unit::Unit;

use crate::metrics::{ClassSummary, Summary};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// How a metric of the table is read from a summary.
#[derive(Clone, Copy)]
pub enum Read {
    /// Each class has the number, and all traffic (`summary.all`) has it too.
    Class(fn(&ClassSummary) -> f64),
    /// Only the whole run has it (memory, cost, duration, the cluster's parts).
    Run(fn(&Summary) -> f64),
}

/// What the table says of one metric: its stable name, unit, definition id, which way is
/// better for the learner, and how it is read.
#[derive(Clone, Copy)]
pub struct Row {
    /// The number's path in the summary's JSON, or a plain id for a derived number.
    pub name: &'static str,
    pub unit: Unit,
    /// The id of the definition that explains it (the page maps ids to its words).
    pub definition: &'static str,
    /// `None` where neither way is better (memory sizes, duration).
    pub better: Option<Direction>,
    pub read: Read,
}

/// A metric by where its facts come from.
enum Kind {
    Latency(Latency, Stat),
    Censored(Censorable, CensoredStat),
    Requests(Count),
    Table(Row),
}

/// Declares the metrics that are not a latency statistic, a censored view's statistic or a
/// request count: each is one row, from which the enum's variant, its name, unit, definition,
/// direction and reading all come. Adding a metric is one row here (its definition's words in
/// the app's translation tables, and a test that reads it).
macro_rules! metrics {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, $unit:ident, $def:literal, $better:expr, $read:expr; )*) => {
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
            $( $(#[$doc])* $variant, )*
        }

        /// The table's metrics, in its order.
        const SCALARS: &[Metric] = &[$( Metric::$variant ),*];

        impl Metric {
            /// What the metric is: one of the three families, or a row of the table.
            fn kind(self) -> Kind {
                match self {
                    Metric::Latency(l, s) => Kind::Latency(l, s),
                    Metric::Censored(c, s) => Kind::Censored(c, s),
                    Metric::Requests(c) => Kind::Requests(c),
                    $( Metric::$variant => Kind::Table(Row {
                        name: $name,
                        unit: Unit::$unit,
                        definition: $def,
                        better: $better,
                        read: $read,
                    }), )*
                }
            }
        }
    };
}

const MIN: Option<Direction> = Some(Direction::Min);
const MAX: Option<Direction> = Some(Direction::Max);
const NEITHER: Option<Direction> = None;

metrics! {
    /// Output tokens of completed requests per second (`throughput.output_tokens_per_s`).
    ThroughputTokens => "throughput.output_tokens_per_s", TokensPerS, "throughput", MAX,
        Read::Class(|c| c.throughput.output_tokens_per_s);
    /// Prompt and output tokens of completed requests per second.
    ThroughputTotalTokens => "throughput.total_tokens_per_s", TokensPerS, "throughput", MAX,
        Read::Class(|c| c.throughput.total_tokens_per_s);
    /// Completed requests per second.
    ThroughputRequests => "throughput.requests_per_s", RequestsPerS, "throughput", MAX,
        Read::Class(|c| c.throughput.requests_per_s);
    /// Requests that met every SLO of their class, per second.
    GoodputRequests => "goodput.requests_per_s", RequestsPerS, "goodput", MAX,
        Read::Class(|c| c.goodput.requests_per_s);
    /// Output tokens of those requests per second.
    GoodputTokens => "goodput.output_tokens_per_s", TokensPerS, "goodput", MAX,
        Read::Class(|c| c.goodput.output_tokens_per_s);
    /// Goodput's share of the output-token throughput: output tokens of requests that met their
    /// SLOs ÷ output tokens of completed requests (0 while nothing came out; derived).
    GoodputShare => "goodput_share", Share, "goodput_share", MAX, Read::Class(|c| {
        let (good, all) = (c.goodput.output_tokens_per_s, c.throughput.output_tokens_per_s);
        if all > 0.0 { good / all } else { 0.0 }
    });
    /// Good requests ÷ requests that ended.
    SloAttainment => "goodput.slo_attainment", Share, "slo_attainment", MAX,
        Read::Class(|c| c.goodput.slo_attainment);
    /// Rejected, timed-out and failed requests ÷ arrivals (derived; not a summary field).
    ErrorRate => "error_rate", Share, "error_rate", MIN,
        Read::Class(|c| c.requests.errors() as f64 / c.requests.arrived.max(1) as f64);
    /// Simulated time of the run.
    DurationS => "duration_s", S, "duration", NEITHER, Read::Run(|s| s.duration_s);
    HbmBytes => "memory.hbm_bytes", Bytes, "hbm", NEITHER, Read::Run(|s| s.memory.hbm_bytes);
    WeightsBytes => "memory.weights_bytes", Bytes, "weights", NEITHER, Read::Run(|s| s.memory.weights_bytes);
    ActivationBytes => "memory.activation_bytes", Bytes, "activations", NEITHER,
        Read::Run(|s| s.memory.activation_bytes);
    /// Capacity outside the server's budget (1 − gpu_memory_utilization).
    HeadroomBytes => "memory.headroom_bytes", Bytes, "headroom", NEITHER, Read::Run(|s| s.memory.headroom_bytes);
    /// The serving process's CUDA context and graphs, in the headroom.
    RuntimeBytes => "memory.runtime_bytes", Bytes, "runtime", NEITHER, Read::Run(|s| s.memory.runtime_bytes);
    /// Other processes' memory, in the headroom.
    OtherProcessBytes => "memory.other_process_bytes", Bytes, "other_process", NEITHER,
        Read::Run(|s| s.memory.other_process_bytes);
    KvCapacityBytes => "memory.kv_capacity_bytes", Bytes, "kv_capacity", NEITHER,
        Read::Run(|s| s.memory.kv_capacity_bytes);
    KvPeakBytes => "memory.kv_peak_bytes", Bytes, "kv_peak", NEITHER, Read::Run(|s| s.memory.kv_peak_bytes);
    KvBytesPerToken => "memory.kv_bytes_per_token", BytesPerToken, "kv_bytes_per_token", NEITHER,
        Read::Run(|s| s.memory.kv_bytes_per_token);
    KvCapacityTokens => "memory.kv_capacity_tokens", Tokens, "kv_capacity", NEITHER,
        Read::Run(|s| s.memory.kv_capacity_tokens as f64);
    /// Most sequences holding KV at once.
    PeakRunning => "memory.peak_running", Seqs, "peak_running", NEITHER, Read::Run(|s| s.memory.peak_running as f64);
    /// Share of allocated KV holding no token, averaged over iterations.
    KvWasteMean => "memory.kv_waste_mean", Share, "kv_waste", MIN, Read::Run(|s| s.memory.kv_waste_mean);
    /// Share of the KV pool free at its peak use (derived; not a summary field).
    KvFreeAtPeak => "kv_free_at_peak", Share, "kv_free", NEITHER, Read::Run(|s| {
        let m = &s.memory;
        if m.kv_capacity_bytes > 0.0 { 1.0 - m.kv_peak_bytes / m.kv_capacity_bytes } else { 0.0 }
    });
    UsdPerHour => "cost.usd_per_hour", UsdPerHour, "cost_hour", MIN, Read::Run(|s| s.cost.usd_per_hour);
    UsdPerMillionOutputTokens => "cost.usd_per_million_output_tokens", Usd, "cost_output", MIN,
        Read::Run(|s| s.cost.usd_per_million_output_tokens);
    UsdPerMillionGoodTokens => "cost.usd_per_million_good_tokens", Usd, "cost_good", MIN,
        Read::Run(|s| s.cost.usd_per_million_good_tokens);
    /// Prompt tokens served from the prefix cache ÷ prompt tokens (0 where nothing is cached:
    /// prefix caching off, or no class sharing a prefix).
    PrefixHitRate => "prefix_cache.hit_rate", Share, "prefix_cache", MAX,
        Read::Class(|c| c.prefix_cache.map_or(0.0, |p| p.hit_rate));
    /// Prompt tokens whose KV was found in the prefix cache.
    PrefixCachedTokens => "prefix_cache.cached_tokens", Tokens, "prefix_cache", NEITHER,
        Read::Class(|c| c.prefix_cache.map_or(0.0, |p| p.cached_tokens as f64));
    /// Cached prefix blocks taken back for other allocations.
    PrefixEvictedBlocks => "prefix_cache.evicted_blocks", Count, "prefix_cache", NEITHER,
        Read::Class(|c| c.prefix_cache.map_or(0.0, |p| p.evicted_blocks as f64));
    /// Speculative decoding: tokens a decode step emitted per sequence, on average (0 with
    /// speculation off).
    SpeculativeTokensPerStep => "speculative.mean_accepted_tokens_per_step", None, "speculative", MAX,
        Read::Run(|s| s.speculative.map_or(0.0, |p| p.mean_accepted_tokens_per_step));
    /// Speculative decoding: draft tokens proposed per sequence per step (0 with it off).
    SpeculativeDraftTokens => "speculative.draft_tokens", Tokens, "speculative", NEITHER,
        Read::Run(|s| s.speculative.map_or(0.0, |p| f64::from(p.draft_tokens)));
    /// Requests of the busiest replica ÷ the mean over replicas (1 with one replica).
    RouterImbalance => "router.imbalance", Times, "router_imbalance", MIN,
        Read::Run(|s| s.router.as_ref().map_or(1.0, |r| r.imbalance));
    /// Disaggregation: from a prompt's prefill ending to its KV at the decode replica, mean
    /// (0 without disaggregation).
    KvTransferMean => "disaggregation.kv_transfer_ms.mean", Ms, "kv_transfer", MIN,
        Read::Run(|s| s.disaggregation.map_or(0.0, |d| d.kv_transfer_ms.mean));
    /// The same, p99.
    KvTransferP99 => "disaggregation.kv_transfer_ms.p99", Ms, "kv_transfer", MIN,
        Read::Run(|s| s.disaggregation.map_or(0.0, |d| d.kv_transfer_ms.p99));
}

impl Metric {
    pub const TTFT_P99: Metric = Metric::Latency(Latency::Ttft, Stat::P99);
    pub const TPOT_P99: Metric = Metric::Latency(Latency::Tpot, Stat::P99);
    pub const E2E_P99: Metric = Metric::Latency(Latency::E2e, Stat::P99);

    pub const TTFT_P99_CENSORED: Metric = Metric::Censored(Censorable::Ttft, CensoredStat::Stat(Stat::P99));

    /// Every metric: the latency statistics, their censored views, the counts, then the table's.
    pub fn all() -> Vec<Metric> {
        let lat = Latency::ALL.into_iter().flat_map(|l| Stat::ALL.into_iter().map(move |s| Metric::Latency(l, s)));
        let cen = Censorable::ALL.into_iter().flat_map(|c| CensoredStat::all().map(move |s| Metric::Censored(c, s)));
        lat.chain(cen).chain(Count::ALL.into_iter().map(Metric::Requests)).chain(SCALARS.iter().copied()).collect()
    }

    /// The table's row of this metric; `None` for a latency, censored or count metric, whose
    /// facts come from their parts.
    pub fn row(self) -> Option<Row> {
        match self.kind() {
            Kind::Table(row) => Some(row),
            Kind::Latency(..) | Kind::Censored(..) | Kind::Requests(_) => None,
        }
    }

    /// The stable name: the path of the number in the summary's JSON (`ttft_ms.p99`), or a
    /// plain id for a derived number (`error_rate`).
    pub fn name(self) -> String {
        match self.kind() {
            Kind::Latency(l, s) => format!("{}.{}", l.field(), s.field()),
            Kind::Censored(c, s) => format!("{}.{}", c.field(), s.field()),
            Kind::Requests(c) => format!("requests.{}", c.field()),
            Kind::Table(row) => row.name.to_string(),
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
        SCALARS.iter().copied().find(|m| m.row().is_some_and(|r| r.name == name))
    }

    pub fn unit(self) -> Unit {
        match self.kind() {
            Kind::Latency(_, Stat::Count) => Unit::Requests,
            Kind::Latency(..) => Unit::Ms,
            Kind::Censored(_, CensoredStat::Stat(Stat::Count) | CensoredStat::Censored) => Unit::Requests,
            Kind::Censored(..) => Unit::Ms,
            Kind::Requests(c) => c.unit(),
            Kind::Table(row) => row.unit,
        }
    }

    /// The id of the definition that explains this number (`ttft`, `goodput`, `kv_peak`).
    pub fn definition(self) -> &'static str {
        match self.kind() {
            Kind::Latency(l, _) => l.definition(),
            Kind::Censored(c, _) => c.definition(),
            Kind::Requests(c) => c.field(),
            Kind::Table(row) => row.definition,
        }
    }

    /// Which way is better for the learner: lower latency, errors and cost, higher throughput,
    /// goodput and attainment; `None` where neither is (arrivals, memory sizes, duration).
    pub fn better(self) -> Option<Direction> {
        match self.kind() {
            Kind::Latency(_, Stat::Count) | Kind::Censored(_, CensoredStat::Stat(Stat::Count)) => None,
            Kind::Latency(..) | Kind::Censored(..) => Some(Direction::Min),
            Kind::Requests(c) => c.better(),
            Kind::Table(row) => row.better,
        }
    }

    /// Whether each class has this number too (memory, cost and duration are the run's).
    pub fn per_class(self) -> bool {
        match self.kind() {
            Kind::Latency(..) | Kind::Censored(..) | Kind::Requests(_) => true,
            Kind::Table(row) => matches!(row.read, Read::Class(_)),
        }
    }

    /// The number for one class (or for all traffic: `summary.all`); `None` for a metric only
    /// the whole run has.
    pub fn of_class(self, c: &ClassSummary) -> Option<f64> {
        match self.kind() {
            Kind::Latency(l, s) => Some(s.of(l.of(c))),
            Kind::Censored(l, s) => Some(s.of(l.of(c))),
            Kind::Requests(n) => Some(n.of(&c.requests) as f64),
            Kind::Table(Row { read: Read::Class(f), .. }) => Some(f(c)),
            Kind::Table(Row { read: Read::Run(_), .. }) => None,
        }
    }

    /// The number for the whole run.
    pub fn of(self, s: &Summary) -> f64 {
        match self.kind() {
            Kind::Table(Row { read: Read::Run(f), .. }) => f(s),
            Kind::Table(Row { read: Read::Class(f), .. }) => f(&s.all),
            Kind::Latency(l, st) => st.of(l.of(&s.all)),
            Kind::Censored(l, st) => st.of(l.of(&s.all)),
            Kind::Requests(n) => n.of(&s.all.requests) as f64,
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
