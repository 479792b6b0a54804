//! Metrics with vLLM's benchmark definitions.
//!
//! * TTFT: arrival → first output token (queueing + prefill).
//! * TPOT: (E2E − TTFT) / (output tokens − 1), per request with more than one output token.
//! * ITL: every gap between two consecutive output tokens of a request.
//! * E2E: arrival → last token. Queue time: arrival → first scheduled. Prefill time: first
//!   scheduled → first token (TTFT = queue + prefill).
//! * Goodput: requests that met every SLO of their class, per second, and their output tokens.
//!
//! These latencies count completed requests only (`vllm bench` does the same): a request that
//! timed out, was rejected or was lost never enters them. Their censored views
//! (`ttft_ms_censored`, `e2e_ms_censored`) count every request that arrived: a completed one at
//! its latency, any other at what it is known to be at least, its age when it ended without an
//! answer (a timed-out request's timeout) or its age now if it is still waiting or running (a
//! request that has its first token counts its TTFT exactly). Each figure of a censored view is
//! therefore a lower bound of the figure over every request.
//!
//! Percentiles come from HDR histograms (3 significant digits, microsecond resolution); means
//! are exact sums.
//!
//! The summary's types are lab-spec's (`lab_spec::metrics`, re-exported here); the histograms
//! behind the latencies are in `hist`, each class's running figures in `class_metrics`, the
//! bounded time series in `series`.

mod class_metrics;
mod hist;
mod series;

pub(crate) use class_metrics::{ClassMetrics, Live};
pub(crate) use hist::LatencyHist;
pub use lab_spec::metrics::*;
pub(crate) use series::Series;

#[cfg(test)]
mod tests;
