//! Reading a metric's number from a summary: for one class, or for the whole run.

use super::Metric;
use crate::metrics::{ClassSummary, Summary};

impl Metric {
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
