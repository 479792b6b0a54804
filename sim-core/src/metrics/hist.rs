//! Latency histograms: HDR percentiles, exact means, the censored views and CDF points.

use super::{Censored, Dist};
use hdrhistogram::Histogram;

/// Longest latency tracked exactly: 100 simulated days, in µs.
const MAX_TRACKED_US: u64 = 100 * 24 * 3600 * 1_000_000;

/// The quantiles of a distribution: p50, p90, p95, p99.
const QUANTILES: [f64; 4] = [0.50, 0.90, 0.95, 0.99];

#[derive(Clone, Debug)]
pub(crate) struct LatencyHist {
    pub(super) hist: Histogram<u64>,
    /// Σ of the values recorded, exact (the mean is this over the count)
    sum_us: u128,
    max_us: u64,
}

impl LatencyHist {
    pub(crate) fn new() -> Self {
        LatencyHist {
            hist: Histogram::new_with_bounds(1, MAX_TRACKED_US, 3).expect("static bounds"),
            sum_us: 0,
            max_us: 0,
        }
    }
    pub(crate) fn record_n(&mut self, us: u64, n: u64) {
        if n == 0 {
            return;
        }
        self.hist.saturating_record_n(us.max(1), n);
        self.sum_us += us as u128 * n as u128;
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
        Dist {
            count: n,
            mean: self.sum_us as f64 / n as f64 / 1000.0,
            p50,
            p90,
            p95,
            p99,
            max: self.max_us as f64 / 1000.0,
        }
    }
    /// Non-empty buckets as (highest value of the bucket, count), lowest first.
    pub(super) fn buckets(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.hist.iter_recorded().map(|v| (v.value_iterated_to(), v.count_at_value()))
    }

    /// The censored view: the values recorded here (completed requests), the lower bounds in
    /// `open` (requests that ended without an answer) and `live` (requests not ended, at their
    /// age or exact value), of which `censored` are lower bounds. Percentiles are taken as
    /// [`LatencyHist::dist`] takes them, over the same buckets, so with nothing but completed
    /// requests the figures equal the completed-only ones.
    pub(super) fn censored(&self, open: &LatencyHist, live: &mut [u64], censored: u64) -> Censored {
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
            mean: ((self.sum_us + open.sum_us) as f64 + live_sum) / n as f64 / 1000.0,
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
    pub(super) fn censored_cdf(&self, open: &LatencyHist, live: &mut [u64], n: usize) -> Vec<(f64, f64)> {
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
    pub(super) fn merged_at(&self, open: &LatencyHist, live: &[u64], targets: &[u64]) -> Vec<u64> {
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
    pub(super) fn cdf(&self, n: usize) -> Vec<(f64, f64)> {
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
