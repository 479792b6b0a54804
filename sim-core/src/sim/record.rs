//! Recording: each request's metrics as it ends (per class and for all traffic), preemptions,
//! inter-token gaps, the time series, the recent endings the stage shows, the per-request sink,
//! and the summary built from them.

use super::prefix::CacheStats;
use super::requests::Req;
use super::time::Micros;
use super::view::{Ending, RecentEnding};
use crate::memory::HbmPlan;
use crate::metrics::{
    ClassMetrics, ClassSummary, Cost, Counts, Live, Memory, Outcome, PrefixCache, RequestRecord, Series, Summary,
};
use crate::scenario::{Scenario, Slo};
use std::collections::{BTreeMap, VecDeque};

/// Receives each request's record as it ends.
pub type RequestSink = Box<dyn FnMut(&RequestRecord)>;

/// The one recorder of a run, which its driver and every replica write to (a run is
/// single-threaded; each borrow lasts one call).
pub(crate) type SharedRecorder = std::rc::Rc<std::cell::RefCell<Recorder>>;

pub(crate) struct Recorder {
    class_names: Vec<String>,
    slo: Vec<Slo>,
    /// Per class.
    metrics: Vec<ClassMetrics>,
    /// All traffic. With one class, all traffic is that class: its figures are counted once,
    /// in `metrics[0]` (each record into a latency histogram is a cache miss), and this holds
    /// only what no class counts (OOM restarts).
    total: ClassMetrics,
    pub series: Series,
    recent: VecDeque<RecentEnding>,
    recent_capacity: usize,
    pub sink: Option<RequestSink>,
    /// Σ over iterations of the share of allocated KV that holds no token, and the iterations.
    waste_acc: f64,
    waste_iters: u64,
    pub peak_running: u64,
}

impl Recorder {
    pub fn new(scenario: &Scenario, opts: &super::SimOptions) -> Recorder {
        let classes = &scenario.classes;
        Recorder {
            class_names: classes.iter().map(|c| c.name.clone()).collect(),
            slo: classes.iter().map(|c| c.slo.clone()).collect(),
            metrics: classes.iter().map(|_| ClassMetrics::new()).collect(),
            total: ClassMetrics::new(),
            series: Series::new(opts.sample_interval_us, opts.max_samples),
            recent: VecDeque::with_capacity(opts.recent_capacity),
            recent_capacity: opts.recent_capacity,
            sink: None,
            waste_acc: 0.0,
            waste_iters: 0,
            peak_running: 0,
        }
    }

    /// The class's metrics and, with several classes, the all-traffic metrics: where a
    /// request of the class counts.
    fn both(&mut self, class: usize) -> impl Iterator<Item = &mut ClassMetrics> {
        let separate = self.total_apart();
        std::iter::once(&mut self.metrics[class]).chain(separate.then_some(&mut self.total))
    }

    /// All traffic is counted apart from the classes (unless it is the one class).
    fn total_apart(&self) -> bool {
        self.metrics.len() != 1
    }

    /// All traffic's figures (OOM restarts apart: [`Recorder::all_counts`]).
    pub fn all(&self) -> &ClassMetrics {
        if self.total_apart() {
            &self.total
        } else {
            &self.metrics[0]
        }
    }

    /// All traffic's counts.
    pub fn all_counts(&self) -> Counts {
        Counts { oom_restarts: self.total.counts.oom_restarts, ..self.all().counts }
    }

    /// Class `class`'s figures, or all traffic's with `None` (`None` for a class that does not
    /// exist).
    pub fn of(&self, class: Option<usize>) -> Option<&ClassMetrics> {
        match class {
            Some(c) => self.metrics.get(c),
            None => Some(self.all()),
        }
    }

    pub fn arrived(&mut self, class: usize) {
        self.both(class).for_each(|m| m.counts.arrived += 1);
    }

    /// A request ended at `now` with `outcome`.
    pub fn ended(&mut self, r: &Req, outcome: Outcome, now: Micros) {
        let class = r.class as usize;
        // TTFT and E2E latency as the client sees them: its tokens reach it `to_client` later
        let back = r.to_client as u64;
        let (queue_us, ttft_us) =
            (r.first_scheduled.map(|t| t - r.arrival), r.first_token.map(|t| t + back - r.arrival));
        let e2e_us = now + back - r.arrival;
        let tpot_us = if r.output > 1 { ttft_us.map(|f| (e2e_us - f) / (r.output as u64 - 1)) } else { None };
        let slo = &self.slo[class];
        let good = outcome == Outcome::Completed
            && slo.ttft_ms.is_none_or(|l| ttft_us.is_some_and(|t| t as f64 <= l * 1000.0))
            && slo.tpot_ms.is_none_or(|l| tpot_us.is_none_or(|t| t as f64 <= l * 1000.0))
            && slo.e2e_ms.is_none_or(|l| e2e_us as f64 <= l * 1000.0);
        for m in self.both(class) {
            match outcome {
                Outcome::Completed => {
                    m.counts.completed += 1;
                    m.output_tokens_done += r.output as u64;
                    m.input_tokens_done += r.input as u64;
                    m.e2e.record(e2e_us);
                    if let Some(t) = ttft_us {
                        m.ttft.record(t);
                    }
                    if let Some(t) = tpot_us {
                        m.tpot.record(t);
                    }
                    if let Some(q) = queue_us {
                        m.queue.record(q);
                        if let Some(t) = ttft_us {
                            m.prefill.record(t.saturating_sub(q + back));
                        }
                    }
                    if good {
                        m.good_requests += 1;
                        m.good_output_tokens += r.output as u64;
                    }
                }
                Outcome::Rejected | Outcome::TimedOut | Outcome::Failed => {
                    match outcome {
                        Outcome::Rejected => m.counts.rejected += 1,
                        Outcome::TimedOut => m.counts.timed_out += 1,
                        _ => m.counts.failed += 1,
                    }
                    // no answer: at least as long as it waited (its TTFT if it had a first token)
                    m.ttft_open.record(ttft_us.unwrap_or(e2e_us));
                    m.ttft_open_censored += ttft_us.is_none() as u64;
                    m.e2e_open.record(e2e_us);
                }
            }
        }
        if outcome == Outcome::Completed {
            self.series.completed(r.output as u64, good);
        }
        let ending = match outcome {
            Outcome::Completed => Ending::Completed,
            Outcome::Rejected => Ending::Rejected,
            Outcome::TimedOut => Ending::TimedOut,
            Outcome::Failed => Ending::Failed,
        };
        self.note_recent(r.id, class, ending, now);
        if let Some(sink) = self.sink.as_mut() {
            let completed = |us: Option<u64>| us.filter(|_| outcome == Outcome::Completed).map(|u| u as f64 / 1000.0);
            sink(&RequestRecord {
                id: r.id,
                class: self.class_names[class].clone(),
                arrival_s: r.arrival as f64 / 1e6,
                input_tokens: r.input,
                output_tokens: r.output,
                outcome,
                queue_ms: queue_us.map(|u| u as f64 / 1000.0),
                ttft_ms: completed(ttft_us),
                tpot_ms: completed(tpot_us),
                e2e_ms: completed(Some(e2e_us)),
                preemptions: r.preemptions,
                met_slo: good,
            });
        }
    }

    /// A running request was sent back to the queue to be recomputed.
    pub fn preempted(&mut self, id: u64, class: usize, now: Micros) {
        self.both(class).for_each(|m| m.counts.preempted += 1);
        self.note_recent(id, class, Ending::Preempted, now);
    }

    /// An inter-token gap of one request of `class` (the all-traffic histogram is not touched).
    pub fn itl_class(&mut self, class: usize, gap: Micros) {
        self.metrics[class].itl.record(gap);
    }

    /// `n` inter-token gaps of `gap` in all traffic (not in any class), the same gaps the
    /// classes were given one by one by [`Recorder::itl_class`].
    pub fn itl_total(&mut self, gap: Micros, n: u64) {
        if self.total_apart() {
            self.total.itl.record_n(gap, n);
        }
    }

    /// `n` inter-token gaps of `gap` of requests of `class`, in the class and in all traffic.
    pub fn itl(&mut self, class: usize, gap: Micros, n: u64) {
        self.both(class).for_each(|m| m.itl.record_n(gap, n));
    }

    pub fn oom_restart(&mut self) {
        self.total.counts.oom_restarts += 1;
    }

    fn note_recent(&mut self, id: u64, class: usize, ending: Ending, now: Micros) {
        if self.recent_capacity == 0 {
            return;
        }
        if self.recent.len() == self.recent_capacity {
            self.recent.pop_front();
        }
        self.recent.push_back(RecentEnding { id, class: class as u16, ending, at_s: now as f64 / 1e6 });
    }

    /// Recent endings and preemptions, oldest first.
    pub fn recent(&self) -> impl Iterator<Item = &RecentEnding> + '_ {
        self.recent.iter()
    }

    /// One iteration starts with `alloc_tokens` of KV allocated of which `used_tokens` hold a
    /// token.
    pub fn kv_waste(&mut self, alloc_tokens: u64, used_tokens: u64) {
        if alloc_tokens > 0 {
            self.waste_acc += 1.0 - (used_tokens as f64 / alloc_tokens as f64).min(1.0);
            self.waste_iters += 1;
        }
    }

    /// Share of all requests that have ended.
    pub fn ended_count(&self) -> u64 {
        self.all().ended()
    }

    /// The TTFT CDF over every arrival of `class` (all with `None`) at `now`, the unanswered at
    /// a lower bound; `live` as for [`Recorder::summary`].
    pub fn ttft_cdf_censored(
        &self,
        now: Micros,
        live: impl Iterator<Item = (u16, Micros, Option<Micros>)>,
        class: Option<usize>,
        points: usize,
    ) -> Vec<(f64, f64)> {
        let Some(m) = self.of(class) else {
            return Vec::new();
        };
        let mut open = Live::default();
        for (c, arrival, first) in live {
            if class.is_none_or(|k| k == c as usize) {
                open.add(now.saturating_sub(arrival), first.map(|t| t.saturating_sub(arrival)));
            }
        }
        m.ttft_cdf_censored(&mut open, points)
    }

    /// The summary at `now`: metrics so far, the memory plan with the KV peak, and the cost.
    /// `live` holds each request not ended yet: its class, arrival and first token.
    pub fn summary(
        &self,
        now: Micros,
        live: impl Iterator<Item = (u16, Micros, Option<Micros>)>,
        plan: &HbmPlan,
        kv_peak_tokens: u64,
        usd_per_hour: f64,
        prefix: Option<&[CacheStats]>,
    ) -> Summary {
        let duration_s = now as f64 / 1e6;
        let mut open: Vec<Live> = vec![Live::default(); self.metrics.len()];
        let mut open_total = Live::default();
        for (class, arrival, first) in live {
            let (age, ttft) = (now.saturating_sub(arrival), first.map(|t| t.saturating_sub(arrival)));
            open[class as usize].add(age, ttft);
            open_total.add(age, ttft);
        }
        let mut classes = BTreeMap::new();
        let mut inflight_total = 0;
        for (i, m) in self.metrics.iter().enumerate() {
            let mut cs = m.summary(duration_s, &mut open[i]);
            if let Some(st) = prefix.and_then(|p| p.get(i)) {
                cs.prefix_cache = Some(PrefixCache::of(st.prompt_tokens, st.cached_tokens, st.evicted_blocks));
            }
            cs.requests.in_flight = m.counts.arrived - m.ended();
            inflight_total += cs.requests.in_flight;
            classes.insert(self.class_names[i].clone(), cs);
        }
        let mut t = self.all().summary(duration_s, &mut open_total);
        t.requests.oom_restarts = self.total.counts.oom_restarts;
        if let Some(p) = prefix {
            let sum = |f: fn(&CacheStats) -> u64| p.iter().map(f).sum::<u64>();
            let (prompt, cached) = (sum(|s| s.prompt_tokens), sum(|s| s.cached_tokens));
            t.prefix_cache = Some(PrefixCache::of(prompt, cached, sum(|s| s.evicted_blocks)));
        }
        let mut requests = t.requests;
        requests.in_flight = inflight_total;
        let cost_usd = usd_per_hour * duration_s / 3600.0;
        let per_m = |tokens: u64| if tokens > 0 { cost_usd / (tokens as f64 / 1e6) } else { f64::INFINITY };
        Summary {
            duration_s,
            all: ClassSummary { requests, ..t },
            memory: Memory {
                hbm_bytes: plan.capacity_bytes,
                weights_bytes: plan.weights_bytes,
                draft_weights_bytes: plan.draft_weights_bytes,
                activation_bytes: plan.activation_bytes,
                headroom_bytes: plan.headroom_bytes,
                runtime_bytes: plan.runtime_bytes,
                other_process_bytes: plan.other_process_bytes,
                kv_capacity_bytes: plan.kv_capacity_bytes,
                kv_peak_bytes: kv_peak_tokens as f64 * plan.kv_bytes_per_token,
                kv_bytes_per_token: plan.kv_bytes_per_token,
                draft_kv_bytes_per_token: plan.draft_kv_bytes_per_token,
                kv_capacity_tokens: plan.kv_capacity_tokens,
                peak_running: self.peak_running,
                kv_waste_mean: if self.waste_iters > 0 { self.waste_acc / self.waste_iters as f64 } else { 0.0 },
            },
            cost: Cost {
                usd_per_hour,
                usd_per_million_output_tokens: per_m(self.all().output_tokens_done),
                usd_per_million_good_tokens: per_m(self.all().good_output_tokens),
            },
            classes,
            speculative: None,
            disaggregation: None,
            replicas: Vec::new(),
            router: None,
        }
    }
}
