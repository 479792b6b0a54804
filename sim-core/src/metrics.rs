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

use hdrhistogram::Histogram;
use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};
use std::collections::BTreeMap;

/// Longest latency tracked exactly: 100 simulated days, in µs.
const MAX_TRACKED_US: u64 = 100 * 24 * 3600 * 1_000_000;

/// The quantiles of a distribution: p50, p90, p95, p99.
const QUANTILES: [f64; 4] = [0.50, 0.90, 0.95, 0.99];

#[derive(Clone, Debug)]
pub(crate) struct LatencyHist {
    hist: Histogram<u64>,
    sum_us: f64,
    max_us: u64,
}

impl LatencyHist {
    pub(crate) fn new() -> Self {
        LatencyHist {
            hist: Histogram::new_with_bounds(1, MAX_TRACKED_US, 3).expect("static bounds"),
            sum_us: 0.0,
            max_us: 0,
        }
    }
    pub(crate) fn record_n(&mut self, us: u64, n: u64) {
        if n == 0 {
            return;
        }
        self.hist.saturating_record_n(us.max(1), n);
        self.sum_us += us as f64 * n as f64;
        self.max_us = self.max_us.max(us);
    }
    pub(crate) fn record(&mut self, us: u64) {
        self.record_n(us, 1)
    }
    /// Population standard deviation in ms (from the histogram: three significant digits).
    pub(crate) fn std_ms(&self) -> f64 {
        if self.hist.is_empty() {
            0.0
        } else {
            self.hist.stdev() / 1000.0
        }
    }
    pub(crate) fn dist(&self) -> Dist {
        let n = self.hist.len();
        if n == 0 {
            return Dist::default();
        }
        let q = |p: f64| self.hist.value_at_quantile(p).min(self.max_us) as f64 / 1000.0;
        let [p50, p90, p95, p99] = QUANTILES.map(q);
        Dist { count: n, mean: self.sum_us / n as f64 / 1000.0, p50, p90, p95, p99, max: self.max_us as f64 / 1000.0 }
    }
    /// Non-empty buckets as (highest value of the bucket, count), lowest first.
    fn buckets(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.hist.iter_recorded().map(|v| (v.value_iterated_to(), v.count_at_value()))
    }

    /// The censored view: the values recorded here (completed requests), the lower bounds in
    /// `open` (requests that ended without an answer) and `live` (requests not ended, at their
    /// age or exact value), of which `censored` are lower bounds. Percentiles are taken as
    /// [`LatencyHist::dist`] takes them, over the same buckets, so with nothing but completed
    /// requests the figures equal the completed-only ones.
    fn censored(&self, open: &LatencyHist, live: &mut [u64], censored: u64) -> Censored {
        let n = self.hist.len() + open.hist.len() + live.len() as u64;
        if n == 0 {
            return Censored::default();
        }
        live.sort_unstable();
        let targets = QUANTILES.map(|q| ((q * n as f64).ceil() as u64).max(1));
        let at = self.merged_at(open, live, &targets);
        let max_us = self.max_us.max(open.max_us).max(live.last().copied().unwrap_or(0));
        let live_sum: f64 = live.iter().map(|&v| v as f64).sum();
        let ms = |us: u64| us.min(max_us) as f64 / 1000.0;
        Censored {
            count: n,
            censored,
            mean: (self.sum_us + open.sum_us + live_sum) / n as f64 / 1000.0,
            p50: ms(at[0]),
            p90: ms(at[1]),
            p95: ms(at[2]),
            p99: ms(at[3]),
            max: max_us as f64 / 1000.0,
        }
    }

    /// The censored view's empirical CDF in ms (`n` points, share `i/n` at point `i`), over the
    /// same merged buckets as [`LatencyHist::censored`]: point `i` at share 0.5 or 0.99 is that
    /// view's p50 or p99. Empty when nothing was counted.
    fn censored_cdf(&self, open: &LatencyHist, live: &mut [u64], n: usize) -> Vec<(f64, f64)> {
        let total = self.hist.len() + open.hist.len() + live.len() as u64;
        if total == 0 || n == 0 {
            return Vec::new();
        }
        live.sort_unstable();
        let shares: Vec<f64> = (1..=n).map(|i| i as f64 / n as f64).collect();
        let targets: Vec<u64> = shares.iter().map(|q| ((q * total as f64).ceil() as u64).max(1)).collect();
        let at = self.merged_at(open, live, &targets);
        let max_us = self.max_us.max(open.max_us).max(live.last().copied().unwrap_or(0));
        at.iter().zip(shares).map(|(&v, q)| (v.min(max_us) as f64 / 1000.0, q)).collect()
    }

    /// Walks the buckets of this histogram, of `open` and the sorted values of `live` in order,
    /// and returns, for each of the ascending `targets` (counts), the bucket value at which the
    /// running count reaches it (values of `live` are bucketed as this histogram buckets them).
    fn merged_at(&self, open: &LatencyHist, live: &[u64], targets: &[u64]) -> Vec<u64> {
        let top = self.hist.high();
        let done: Vec<(u64, u64)> = self.buckets().collect();
        let gone: Vec<(u64, u64)> = open.buckets().collect();
        let mut at = vec![0u64; targets.len()];
        let (mut i, mut j, mut l, mut k, mut seen) = (0, 0, 0, 0, 0u64);
        while k < at.len() {
            let key_live = live.get(l).map(|&v| self.hist.highest_equivalent(v.clamp(1, top)));
            let (key, count) = match (done.get(i), gone.get(j), key_live) {
                (Some(&a), b, c) if b.is_none_or(|b| a.0 <= b.0) && c.is_none_or(|c| a.0 <= c) => {
                    i += 1;
                    a
                }
                (_, Some(&b), c) if c.is_none_or(|c| b.0 <= c) => {
                    j += 1;
                    b
                }
                (_, _, Some(c)) => {
                    l += 1;
                    (c, 1)
                }
                _ => break,
            };
            seen += count;
            while k < at.len() && seen >= targets[k] {
                at[k] = key;
                k += 1;
            }
        }
        at
    }

    /// Points of the empirical CDF in ms (at most `n` points), for charts.
    fn cdf(&self, n: usize) -> Vec<(f64, f64)> {
        let total = self.hist.len();
        if total == 0 {
            return Vec::new();
        }
        let mut out = Vec::with_capacity(n + 1);
        for i in 1..=n {
            let p = i as f64 / n as f64;
            let v = self.hist.value_at_quantile(p).min(self.max_us) as f64 / 1000.0;
            out.push((v, p));
        }
        out
    }
}

/// A latency distribution in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Dist {
    pub count: u64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

/// A latency over every request that arrived, the ones without an answer counted at a lower
/// bound (see the module's introduction): every figure is at least `count` requests' figure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Censored {
    /// Requests counted: every request that arrived, answered or not.
    pub count: u64,
    /// Of them, the ones counted at a lower bound (timed out, rejected, lost, or not ended).
    pub censored: u64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

/// Serialised with `ended` (completed + rejected + timed out + failed) after the fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub arrived: u64,
    pub completed: u64,
    /// Refused at arrival: queue full, server restarting, or longer than max_model_len.
    pub rejected: u64,
    /// Dropped after waiting queue_timeout_ms without a first token.
    pub timed_out: u64,
    /// Lost in an OOM restart.
    pub failed: u64,
    /// Preemptions (a request preempted twice counts twice).
    pub preempted: u64,
    pub oom_restarts: u64,
    /// Arrived and not yet ended.
    pub in_flight: u64,
}

impl Serialize for Counts {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Counts", 9)?;
        st.serialize_field("arrived", &self.arrived)?;
        st.serialize_field("completed", &self.completed)?;
        st.serialize_field("rejected", &self.rejected)?;
        st.serialize_field("timed_out", &self.timed_out)?;
        st.serialize_field("failed", &self.failed)?;
        st.serialize_field("preempted", &self.preempted)?;
        st.serialize_field("oom_restarts", &self.oom_restarts)?;
        st.serialize_field("in_flight", &self.in_flight)?;
        st.serialize_field("ended", &self.ended())?;
        st.end()
    }
}

impl Counts {
    /// Requests that ended: completed, rejected, timed out or failed.
    pub fn ended(&self) -> u64 {
        self.completed + self.errors()
    }
    /// Requests that ended without an answer: rejected, timed out or failed.
    pub fn errors(&self) -> u64 {
        self.rejected + self.timed_out + self.failed
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Throughput {
    pub output_tokens_per_s: f64,
    pub total_tokens_per_s: f64,
    pub requests_per_s: f64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Goodput {
    pub requests_per_s: f64,
    pub output_tokens_per_s: f64,
    /// Good requests ÷ requests that ended (completed, rejected, timed out or failed).
    pub slo_attainment: f64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Memory {
    pub hbm_bytes: f64,
    pub weights_bytes: f64,
    pub activation_bytes: f64,
    /// Capacity × (1 − gpu_memory_utilization): outside the server's budget.
    pub headroom_bytes: f64,
    /// In the headroom: the serving process's CUDA context and CUDA graphs.
    pub runtime_bytes: f64,
    /// In the headroom: memory other processes hold on the GPUs.
    pub other_process_bytes: f64,
    pub kv_capacity_bytes: f64,
    pub kv_peak_bytes: f64,
    pub kv_bytes_per_token: f64,
    pub kv_capacity_tokens: u64,
    /// Most sequences holding KV at once.
    pub peak_running: u64,
    /// Share of allocated KV holding no token, averaged over iterations (fragmentation and
    /// over-reservation).
    pub kv_waste_mean: f64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Cost {
    pub usd_per_hour: f64,
    pub usd_per_million_output_tokens: f64,
    pub usd_per_million_good_tokens: f64,
}

/// Everything measured for one class, or for all classes together.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ClassSummary {
    pub requests: Counts,
    pub ttft_ms: Dist,
    pub tpot_ms: Dist,
    pub itl_ms: Dist,
    pub e2e_ms: Dist,
    pub queue_ms: Dist,
    pub prefill_ms: Dist,
    /// TTFT over every request that arrived, lower bounds for those without a first token.
    pub ttft_ms_censored: Censored,
    /// E2E over every request that arrived, lower bounds for those without an answer.
    pub e2e_ms_censored: Censored,
    pub throughput: Throughput,
    pub goodput: Goodput,
    /// Prefix caching (`scheduler.prefix_caching`; absent when off).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix_cache: Option<PrefixCache>,
}

/// What prefix caching saved: the share of prompt tokens found in the cache (each admission
/// counts, so a preempted prompt that is recomputed counts again), those tokens, and the cached
/// blocks taken back for other allocations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PrefixCache {
    /// Prompt tokens served from the cache ÷ prompt tokens admitted (0 before any admission).
    pub hit_rate: f64,
    pub cached_tokens: u64,
    pub evicted_blocks: u64,
}

impl PrefixCache {
    /// From the prompt tokens admitted, those found cached and the blocks evicted.
    pub fn of(prompt_tokens: u64, cached_tokens: u64, evicted_blocks: u64) -> PrefixCache {
        let hit_rate = if prompt_tokens > 0 { cached_tokens as f64 / prompt_tokens as f64 } else { 0.0 };
        PrefixCache { hit_rate, cached_tokens, evicted_blocks }
    }
}

/// A run's numbers: all traffic (`all`, serialised in place), memory, cost and each class.
/// [`crate::metric::Metric`] names each number.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    pub duration_s: f64,
    #[serde(flatten)]
    pub all: ClassSummary,
    /// One replica's HBM plan; with several replicas `kv_peak_bytes` and `peak_running` are the
    /// largest replica's.
    pub memory: Memory,
    /// Every GPU of every replica.
    pub cost: Cost,
    pub classes: BTreeMap<String, ClassSummary>,
    /// Speculative decoding's accepted tokens (only when `speculative` is on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speculative: Option<crate::speculative::SpeculativeSummary>,
    /// With more than one replica: each replica (absent with one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub replicas: Vec<ReplicaSummary>,
    /// With more than one replica: how the router spread the requests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub router: Option<RouterSummary>,
    /// Prefill/decode disaggregation: the KV transfers (absent without it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disaggregation: Option<crate::disagg::DisaggSummary>,
}

/// One replica of a cluster.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ReplicaSummary {
    /// Requests the router sent it (rejected ones included).
    pub requests: u64,
    pub completed: u64,
    pub ttft_ms: Dist,
    pub kv_peak_bytes: f64,
    /// Share of the run its GPUs spent running iterations.
    pub busy_share: f64,
    /// Prefix caching: prompt tokens it served from its cache ÷ prompt tokens it admitted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix_hit_rate: Option<f64>,
}

/// How the router spread a cluster's requests.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RouterSummary {
    pub policy: String,
    /// Requests of the busiest replica ÷ the mean over replicas (1 when even).
    pub imbalance: f64,
    /// `prefix_affinity`: requests sent to the replica holding most of their prefix, sent
    /// elsewhere because that replica was over the load cap, and with no replica holding any.
    pub by_affinity: u64,
    pub over_cap: u64,
    pub none_cached: u64,
}

/// Outcome of one request, as written by `llmsim run --requests`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Completed,
    Rejected,
    TimedOut,
    Failed,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RequestRecord {
    pub id: u64,
    pub class: String,
    pub arrival_s: f64,
    pub input_tokens: u32,
    pub output_tokens: u32,
    pub outcome: Outcome,
    pub queue_ms: Option<f64>,
    pub ttft_ms: Option<f64>,
    pub tpot_ms: Option<f64>,
    pub e2e_ms: Option<f64>,
    pub preemptions: u32,
    pub met_slo: bool,
}

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

/// One point of the time series, averaged over its interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Sample {
    /// End of the interval, seconds.
    pub t_s: f64,
    pub queue_len: f64,
    pub running: f64,
    /// KV allocated ÷ KV pool.
    pub kv_fill: f64,
    /// Output tokens of requests completed in the interval, per second.
    pub throughput_tok_s: f64,
    /// The same, counting only requests that met their SLOs.
    pub goodput_tok_s: f64,
}

/// Fixed-interval time series that stays bounded: when full, neighbouring samples merge and
/// the interval doubles, so a long run keeps its whole history at coarser resolution.
#[derive(Clone, Debug)]
pub(crate) struct Series {
    pub interval_us: u64,
    pub samples: Vec<Sample>,
    max: usize,
    // accumulators for the open interval: time-weighted integrals and token counts
    start_us: u64,
    last_us: u64,
    acc_queue: f64,
    acc_running: f64,
    acc_kv: f64,
    tokens: u64,
    good_tokens: u64,
}

impl Series {
    pub(crate) fn new(interval_us: u64, max: usize) -> Self {
        Series {
            interval_us: interval_us.max(1),
            samples: Vec::new(),
            // even, so that compaction always merges whole pairs
            max: (max.max(4) + 1) & !1,
            start_us: 0,
            last_us: 0,
            acc_queue: 0.0,
            acc_running: 0.0,
            acc_kv: 0.0,
            tokens: 0,
            good_tokens: 0,
        }
    }

    /// Accounts the state (constant since the last call) up to `now`, closing intervals.
    pub(crate) fn advance(&mut self, now: u64, queue: f64, running: f64, kv: f64) {
        // checked: a clock near the end of u64 closes no interval rather than overflowing
        while let Some(end) = self.start_us.checked_add(self.interval_us).filter(|&end| now >= end) {
            self.integrate(end, queue, running, kv);
            let span = self.interval_us as f64;
            let secs = span / 1e6;
            self.samples.push(Sample {
                t_s: end as f64 / 1e6,
                queue_len: self.acc_queue / span,
                running: self.acc_running / span,
                kv_fill: self.acc_kv / span,
                throughput_tok_s: self.tokens as f64 / secs,
                goodput_tok_s: self.good_tokens as f64 / secs,
            });
            self.acc_queue = 0.0;
            self.acc_running = 0.0;
            self.acc_kv = 0.0;
            self.tokens = 0;
            self.good_tokens = 0;
            self.start_us = end;
            if self.samples.len() >= self.max {
                self.compact();
            }
        }
        self.integrate(now, queue, running, kv);
    }

    fn integrate(&mut self, to: u64, queue: f64, running: f64, kv: f64) {
        if to > self.last_us {
            let dt = (to - self.last_us) as f64;
            self.acc_queue += queue * dt;
            self.acc_running += running * dt;
            self.acc_kv += kv * dt;
            self.last_us = to;
        }
    }

    pub(crate) fn completed(&mut self, tokens: u64, good: bool) {
        self.tokens += tokens;
        if good {
            self.good_tokens += tokens;
        }
    }

    fn compact(&mut self) {
        // The open interval keeps the old length; only closed samples merge, and the next
        // boundary moves to the new grid.
        let merged: Vec<Sample> = self
            .samples
            .chunks(2)
            .map(|c| {
                if c.len() == 1 {
                    return c[0];
                }
                let (a, b) = (c[0], c[1]);
                Sample {
                    t_s: b.t_s,
                    queue_len: (a.queue_len + b.queue_len) / 2.0,
                    running: (a.running + b.running) / 2.0,
                    kv_fill: (a.kv_fill + b.kv_fill) / 2.0,
                    throughput_tok_s: (a.throughput_tok_s + b.throughput_tok_s) / 2.0,
                    goodput_tok_s: (a.goodput_tok_s + b.goodput_tok_s) / 2.0,
                }
            })
            .collect();
        self.samples = merged;
        self.interval_us *= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dist_percentiles_are_ordered_and_close() {
        let mut h = LatencyHist::new();
        for v in 1..=10_000u64 {
            h.record(v * 100);
        }
        let d = h.dist();
        assert!(d.p50 <= d.p90 && d.p90 <= d.p95 && d.p95 <= d.p99 && d.p99 <= d.max);
        assert!((d.p50 - 500.0).abs() / 500.0 < 0.002, "{}", d.p50);
        assert!((d.p99 - 990.0).abs() / 990.0 < 0.002, "{}", d.p99);
        assert!((d.mean - 500.05).abs() < 1e-9);
        assert_eq!(d.max, 1000.0);
    }

    fn hist(values: &[u64]) -> LatencyHist {
        let mut h = LatencyHist::new();
        values.iter().for_each(|&v| h.record(v));
        h
    }

    fn quantiles(c: &Censored) -> [f64; 5] {
        [c.p50, c.p90, c.p95, c.p99, c.max]
    }

    #[test]
    fn censored_counts_timeouts_at_their_timeout() {
        // one answered at 80 ms, two timed out at 2 s, one still waiting for 500 ms
        let done = hist(&[80_000]);
        let open = hist(&[2_000_000, 2_000_000]);
        let c = done.censored(&open, &mut [500_000], 3);
        assert_eq!((c.count, c.censored), (4, 3));
        // ranks: p50 → 2nd of 4 (500 ms, reported as the top of its 3-digit bucket, as every
        // percentile is), p90/p95/p99 → 4th (2 s, the largest value)
        assert_eq!(c.p50, 500.223);
        assert_eq!((c.p90, c.p95, c.p99, c.max), (2000.0, 2000.0, 2000.0, 2000.0));
        assert_eq!(c.mean, (80.0 + 4000.0 + 500.0) / 4.0);
        assert_eq!(done.dist().p99, 80.0);
    }

    proptest::proptest! {
        /// With nothing censored, the censored view is the completed-only distribution.
        #[test]
        fn nothing_censored_is_the_completed_distribution(v in proptest::collection::vec(1u64..10_000_000, 1..300)) {
            let (h, c) = (hist(&v), hist(&v).censored(&LatencyHist::new(), &mut [], 0));
            let d = h.dist();
            proptest::prop_assert_eq!(quantiles(&c), [d.p50, d.p90, d.p95, d.p99, d.max]);
            proptest::prop_assert_eq!((c.count, c.mean), (d.count, d.mean));
        }

        /// A lower bound: whatever the requests without an answer would have taken (at least
        /// their bound), every figure over all requests is at least the censored one; and when
        /// every bound is at least a completed-only percentile, the censored percentile is at
        /// least that percentile.
        #[test]
        fn censored_figures_are_lower_bounds(
            done in proptest::collection::vec(1u64..10_000_000, 1..200),
            open in proptest::collection::vec((1u64..10_000_000, 0u64..10_000_000), 0..100),
            live in proptest::collection::vec((1u64..10_000_000, 0u64..10_000_000), 0..100),
        ) {
            let gone = hist(&open.iter().map(|o| o.0).collect::<Vec<_>>());
            let mut ages: Vec<u64> = live.iter().map(|l| l.0).collect();
            let c = hist(&done).censored(&gone, &mut ages, (open.len() + live.len()) as u64);
            let truth: Vec<u64> = done.iter().copied().chain(open.iter().chain(&live).map(|(b, more)| b + more)).collect();
            let t = hist(&truth).dist();
            let (cq, tq) = (quantiles(&c), [t.p50, t.p90, t.p95, t.p99, t.max]);
            for k in 0..5 {
                proptest::prop_assert!(cq[k] <= tq[k], "figure {k}: {} > {}", cq[k], tq[k]);
            }
            proptest::prop_assert!(c.mean <= t.mean + 1e-9);
            let d = hist(&done).dist();
            let bounds = open.iter().chain(&live).map(|o| o.0 as f64 / 1000.0);
            let low = bounds.fold(f64::INFINITY, f64::min);
            for (k, dq) in [d.p50, d.p90, d.p95, d.p99, d.max].into_iter().enumerate() {
                if low >= dq {
                    proptest::prop_assert!(cq[k] >= dq, "figure {k}: {} < {}", cq[k], dq);
                }
            }
        }
    }

    #[test]
    fn series_stays_bounded_and_covers_the_run() {
        let mut s = Series::new(1000, 64);
        for t in (0..1_000_000u64).step_by(333) {
            s.advance(t, 1.0, 2.0, 0.5);
        }
        assert!(s.samples.len() < 64);
        let last = s.samples.last().unwrap();
        assert!(last.t_s > 0.9, "{}", last.t_s);
        for w in s.samples.windows(2) {
            assert!(w[0].t_s < w[1].t_s);
        }
        assert!(s.samples.iter().all(|x| (x.queue_len - 1.0).abs() < 1e-9 && (x.running - 2.0).abs() < 1e-9));
    }
}
