//! Each class's running figures as requests end, and the requests not ended yet.

use super::{ClassSummary, Counts, Goodput, LatencyHist, Throughput};

#[derive(Clone, Debug)]
pub(crate) struct ClassMetrics {
    pub counts: Counts,
    pub ttft: LatencyHist,
    pub tpot: LatencyHist,
    pub itl: LatencyHist,
    pub e2e: LatencyHist,
    pub queue: LatencyHist,
    pub prefill: LatencyHist,
    /// TTFT of requests that ended without an answer: exact if they had a first token (lost
    /// later), else their age when they ended (a lower bound); `ttft_open_censored` of them are
    /// lower bounds.
    pub ttft_open: LatencyHist,
    pub ttft_open_censored: u64,
    /// Age when they ended of requests that ended without an answer (a lower bound of E2E).
    pub e2e_open: LatencyHist,
    pub input_tokens_done: u64,
    pub output_tokens_done: u64,
    pub good_requests: u64,
    pub good_output_tokens: u64,
}

impl ClassMetrics {
    pub(crate) fn new() -> Self {
        ClassMetrics {
            counts: Counts::default(),
            ttft: LatencyHist::new(),
            tpot: LatencyHist::new(),
            itl: LatencyHist::new(),
            e2e: LatencyHist::new(),
            queue: LatencyHist::new(),
            prefill: LatencyHist::new(),
            ttft_open: LatencyHist::new(),
            ttft_open_censored: 0,
            e2e_open: LatencyHist::new(),
            input_tokens_done: 0,
            output_tokens_done: 0,
            good_requests: 0,
            good_output_tokens: 0,
        }
    }

    pub(crate) fn ended(&self) -> u64 {
        self.counts.ended()
    }

    /// The summary at `duration_s`, with the requests not ended yet in `live`.
    pub(crate) fn summary(&self, duration_s: f64, live: &mut Live) -> ClassSummary {
        let d = if duration_s > 0.0 { duration_s } else { f64::INFINITY };
        let ended = self.ended();
        let ttft_censored = self.ttft_open_censored + live.ttft_censored;
        let e2e_censored = self.e2e_open.hist.len() + live.e2e.len() as u64;
        ClassSummary {
            requests: self.counts,
            ttft_ms: self.ttft.dist(),
            tpot_ms: self.tpot.dist(),
            itl_ms: self.itl.dist(),
            e2e_ms: self.e2e.dist(),
            queue_ms: self.queue.dist(),
            prefill_ms: self.prefill.dist(),
            ttft_ms_censored: self.ttft.censored(&self.ttft_open, &mut live.ttft, ttft_censored),
            e2e_ms_censored: self.e2e.censored(&self.e2e_open, &mut live.e2e, e2e_censored),
            throughput: Throughput {
                output_tokens_per_s: self.output_tokens_done as f64 / d,
                total_tokens_per_s: (self.output_tokens_done + self.input_tokens_done) as f64 / d,
                requests_per_s: self.counts.completed as f64 / d,
            },
            goodput: Goodput {
                requests_per_s: self.good_requests as f64 / d,
                output_tokens_per_s: self.good_output_tokens as f64 / d,
                slo_attainment: if ended > 0 { self.good_requests as f64 / ended as f64 } else { 0.0 },
            },
            prefix_cache: None,
        }
    }

    pub(crate) fn ttft_cdf(&self, n: usize) -> Vec<(f64, f64)> {
        self.ttft.cdf(n)
    }
    /// The TTFT CDF over every arrival, the unanswered at a lower bound (their wait when they
    /// ended, their age in `live` when they have not): `ttft_ms_censored` as a curve.
    pub(crate) fn ttft_cdf_censored(&self, live: &mut Live, n: usize) -> Vec<(f64, f64)> {
        self.ttft.censored_cdf(&self.ttft_open, &mut live.ttft, n)
    }
    pub(crate) fn tpot_cdf(&self, n: usize) -> Vec<(f64, f64)> {
        self.tpot.cdf(n)
    }
}

/// Requests of a class not ended yet, for the censored views: their TTFT (exact once they have
/// a first token, else their age: `ttft_censored` of them) and their age (E2E's lower bound), µs.
#[derive(Clone, Debug, Default)]
pub(crate) struct Live {
    pub ttft: Vec<u64>,
    pub ttft_censored: u64,
    pub e2e: Vec<u64>,
}

impl Live {
    /// A request that arrived `age` µs ago, with its TTFT if it has a first token.
    pub(crate) fn add(&mut self, age: u64, ttft: Option<u64>) {
        self.ttft.push(ttft.unwrap_or(age));
        self.ttft_censored += ttft.is_none() as u64;
        self.e2e.push(age);
    }
}
