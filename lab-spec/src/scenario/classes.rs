//! Traffic classes: each class's arrivals, prompt and answer lengths, SLO, priority, reserved
//! share, shared prefixes and conversations.

use serde::{Deserialize, Serialize};

use crate::metric::{Censorable, CensoredStat, Latency, Stat};
use crate::metrics::ClassSummary;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassConfig {
    pub name: String,
    pub arrival: Arrival,
    /// Requests this class sends (from the trace when omitted for a trace class).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_requests: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<LengthDist>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<LengthDist>,
    #[serde(default)]
    pub slo: Slo,
    /// Lower is served first when classes compete (0 = highest).
    #[serde(default)]
    pub priority: u32,
    /// With isolation: share of batch slots and KV reserved for this class (0..1); classes
    /// without one split what is left equally.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserved_share: Option<f64>,
    /// Each request starts with one of `groups` shared prefixes of `shared_tokens` tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<PrefixConfig>,
    /// Multi-turn conversations: each arrival starts one (`crate::session`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<super::SessionConfig>,
    /// The client's cap on this class's requests in flight (`vllm bench serve --max-concurrency`
    /// with a request rate): a request that arrives while this many are in flight waits at the
    /// client and is sent when one of them ends, oldest first; its arrival (TTFT's clock) is then.
    /// Open-loop and trace classes only (a closed loop's users are its cap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_concurrency: Option<u32>,
}

/// Shared prompt prefixes of a class (a system prompt, a few-shot template, a document): each
/// request's prompt starts with one of `groups` prefixes of `shared_tokens` tokens, chosen
/// uniformly; `input_tokens` is the whole prompt, the prefix included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrefixConfig {
    pub shared_tokens: u32,
    pub groups: u32,
}

impl PrefixConfig {
    /// Most prefix groups a class may have.
    pub const MAX_GROUPS: u32 = 100_000;
}

/// Read by `crate::tagged` (as serde's derive would, without its buffered `Content`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Arrival {
    /// Exponential inter-arrival times.
    Poisson { rate_per_s: f64 },
    /// Gamma inter-arrival times with the given coefficient of variation (cv = 1 is Poisson).
    Bursty { rate_per_s: f64, cv: f64 },
    /// `users` clients, each sending its next request after the previous one ends and an
    /// exponentially distributed think time.
    ClosedLoop { users: u32, think_time_ms: f64 },
    /// Replay of a CSV trace `arrival_s,input_len,output_len`.
    Trace {
        path: String,
        /// Divide trace arrival times by this (2.0 replays twice as fast); 1 when left out.
        speedup: f64,
    },
}

impl Arrival {
    /// The `kind` names, as the JSON writes them.
    pub const KINDS: [&'static str; 4] = ["poisson", "bursty", "closed_loop", "trace"];

    pub fn kind(&self) -> &'static str {
        match self {
            Arrival::Poisson { .. } => Self::KINDS[0],
            Arrival::Bursty { .. } => Self::KINDS[1],
            Arrival::ClosedLoop { .. } => Self::KINDS[2],
            Arrival::Trace { .. } => Self::KINDS[3],
        }
    }
}

impl LengthDist {
    /// The `kind` names, as the JSON writes them.
    pub const KINDS: [&'static str; 3] = ["fixed", "uniform", "lognormal"];

    pub fn kind(&self) -> &'static str {
        match self {
            LengthDist::Fixed { .. } => Self::KINDS[0],
            LengthDist::Uniform { .. } => Self::KINDS[1],
            LengthDist::Lognormal { .. } => Self::KINDS[2],
        }
    }

    /// A representative length (the value, the midpoint, the mean): kept when the kind changes.
    pub fn typical(&self) -> f64 {
        match self {
            LengthDist::Fixed { value } => *value as f64,
            LengthDist::Uniform { min, max } => (*min as f64 + *max as f64) / 2.0,
            LengthDist::Lognormal { mean, .. } => *mean,
        }
    }
}

/// Read by `crate::tagged`, like [`Arrival`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LengthDist {
    Fixed {
        value: u32,
    },
    Uniform {
        min: u32,
        max: u32,
    },
    /// Log-normal with the given arithmetic mean and log-space sigma, rounded, at least 1.
    Lognormal {
        mean: f64,
        sigma: f64,
    },
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Slo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpot_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub e2e_ms: Option<f64>,
}

impl Slo {
    /// The SLO on `latency`, ms: TTFT, TPOT and E2E can have one, the other latencies none.
    pub fn limit_ms(&self, latency: Latency) -> Option<f64> {
        match latency {
            Latency::Ttft => self.ttft_ms,
            Latency::Tpot => self.tpot_ms,
            Latency::E2e => self.e2e_ms,
            Latency::Itl | Latency::Queue | Latency::Prefill => None,
        }
    }

    /// Whether `latency`'s p99 in `c` is over its SLO by the answered-only view or, where the
    /// latency has one, by the every-arrival view (the unanswered at a lower bound). A view that
    /// counts nothing yet misses nothing; a latency without an SLO is never missed.
    pub fn missed_at_p99(&self, latency: Latency, c: &ClassSummary) -> bool {
        let Some(limit) = self.limit_ms(latency) else { return false };
        let done = latency.of(c);
        let answered = done.count > 0 && Stat::P99.of(done) > limit;
        let every = Censorable::of_latency(latency)
            .map(|v| v.of(c))
            .is_some_and(|all| all.count > 0 && CensoredStat::Stat(Stat::P99).of(all) > limit);
        answered || every
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slo() -> Slo {
        Slo { ttft_ms: Some(500.0), tpot_ms: Some(50.0), e2e_ms: None }
    }

    #[test]
    fn limits_are_the_fields_of_their_latency() {
        let s = slo();
        assert_eq!(s.limit_ms(Latency::Ttft), Some(500.0));
        assert_eq!(s.limit_ms(Latency::Tpot), Some(50.0));
        assert_eq!(s.limit_ms(Latency::E2e), None);
        assert_eq!(s.limit_ms(Latency::Itl), None);
        assert_eq!(s.limit_ms(Latency::Queue), None);
    }

    #[test]
    fn missed_at_p99_by_either_view_and_only_when_counted() {
        let s = slo();
        let mut c = ClassSummary::default();
        // nothing counted: nothing missed, even with a p99 over the limit
        c.ttft_ms.p99 = 900.0;
        assert!(!s.missed_at_p99(Latency::Ttft, &c));
        // answered-only over the limit
        c.ttft_ms.count = 10;
        assert!(s.missed_at_p99(Latency::Ttft, &c));
        // at the limit is not over it
        c.ttft_ms.p99 = 500.0;
        assert!(!s.missed_at_p99(Latency::Ttft, &c));
        // the every-arrival view over it while the answered ones are within
        c.ttft_ms_censored.count = 12;
        c.ttft_ms_censored.censored = 2;
        c.ttft_ms_censored.p99 = 700.0;
        assert!(s.missed_at_p99(Latency::Ttft, &c));
        // TPOT has no every-arrival view; E2E has no SLO here
        c.tpot_ms = crate::metrics::Dist { count: 3, p99: 49.0, ..Default::default() };
        assert!(!s.missed_at_p99(Latency::Tpot, &c));
        c.e2e_ms = crate::metrics::Dist { count: 3, p99: 1e9, ..Default::default() };
        assert!(!s.missed_at_p99(Latency::E2e, &c));
    }
}
