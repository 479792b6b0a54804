//! The bounded time series: fixed intervals that merge pairwise when full.

use super::Sample;

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
