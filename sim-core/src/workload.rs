//! Traffic: when requests arrive and how long their prompts and outputs are.
//!
//! Each class draws from its own random stream (seeded from the scenario seed and the class
//! index), so adding a class or changing one class's rate leaves the others' requests unchanged,
//! and two configurations compared side by side see the same arrivals.

use crate::message::Problem;
use crate::scenario::{Arrival, ClassConfig, LengthDist, ScenarioError};
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp, Gamma, LogNormal};
use rand_xoshiro::Xoshiro256PlusPlus;

/// One row of a request trace.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceRow {
    pub arrival_us: u64,
    pub input: u32,
    pub output: u32,
    /// The optional `prefix_group` column: which of the class's shared prefixes the prompt
    /// starts with (instead of a uniform draw).
    pub group: Option<u32>,
    /// The optional `session_id` column: rows with the same id are one conversation's turns
    /// (`crate::session`).
    pub session: Option<u64>,
    /// The row's line in the file (for messages).
    pub line: usize,
}

/// Latest arrival a trace row may state, s (about 116 days): even slowed down by the smallest
/// `speedup` (0.001) the simulated clock stays far inside its 64-bit microseconds.
pub const MAX_TRACE_ARRIVAL_S: f64 = 1e7;

/// A parsed trace: rows sorted by arrival time, the first at 0.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub rows: Vec<TraceRow>,
}

impl Trace {
    /// Parses CSV with the header `arrival_s,input_len,output_len` and optionally
    /// `prefix_group` and `session_id`.
    pub fn parse(text: &str, field: &str) -> Result<Trace, ScenarioError> {
        let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
        let header = lines.next().map(|(_, l)| l.trim().to_string()).unwrap_or_default();
        let cols: Vec<&str> = header.split(',').map(|c| c.trim()).collect();
        let idx = |name: &str| cols.iter().position(|c| *c == name);
        let ig = idx("prefix_group");
        let is = idx("session_id");
        let (Some(ia), Some(ii), Some(io)) = (idx("arrival_s"), idx("input_len"), idx("output_len")) else {
            return Err(ScenarioError::one(field, Problem::TraceHeader { header }));
        };
        let mut rows = Vec::new();
        for (n, line) in lines {
            let cells: Vec<&str> = line.split(',').map(|c| c.trim()).collect();
            let line = n + 1;
            let bad = |p: Problem| ScenarioError::one(field, p);
            let get = |i: usize| cells.get(i).copied().ok_or_else(|| bad(Problem::TraceColumns { line }));
            let a = crate::decimal::parse_f64(get(ia)?).ok_or_else(|| bad(Problem::TraceArrivalNumber { line }))?;
            let len = |column| bad(Problem::TraceLength { line, column: Some(column) });
            let i: u32 = get(ii)?.parse().map_err(|_| len("input_len"))?;
            let o: u32 = get(io)?.parse().map_err(|_| len("output_len"))?;
            if !a.is_finite() || !(0.0..=MAX_TRACE_ARRIVAL_S).contains(&a) {
                return Err(bad(Problem::TraceArrival { line, max: MAX_TRACE_ARRIVAL_S, got: a }));
            }
            if i == 0 || o == 0 || i > 1 << 20 || o > 1 << 20 {
                return Err(bad(Problem::TraceLength { line, column: None }));
            }
            let group = match ig {
                Some(ig) => Some(get(ig)?.parse::<u32>().map_err(|_| {
                    let max = crate::scenario::PrefixConfig::MAX_GROUPS as u64 - 1;
                    bad(Problem::TracePrefixGroup { line, max, got: None })
                })?),
                None => None,
            };
            let session = match is {
                Some(is) => Some(get(is)?.parse::<u64>().map_err(|_| bad(Problem::TraceSessionId { line }))?),
                None => None,
            };
            rows.push(TraceRow { arrival_us: (a * 1e6).round() as u64, input: i, output: o, group, session, line });
        }
        if rows.is_empty() {
            return Err(ScenarioError::one(field, Problem::TraceEmpty));
        }
        rows.sort_by_key(|r| r.arrival_us);
        let t0 = rows[0].arrival_us;
        for r in &mut rows {
            r.arrival_us -= t0;
        }
        Ok(Trace { rows })
    }
}

pub use crate::catalog::{builtin_trace, BUILTIN_TRACES};

pub(crate) type ClassRng = Xoshiro256PlusPlus;

pub(crate) fn class_rng(seed: u64, class: usize, stream: u64) -> ClassRng {
    // SplitMix-style mixing so nearby seeds give unrelated streams.
    let mut z =
        seed ^ (class as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    Xoshiro256PlusPlus::seed_from_u64(z ^ (z >> 31))
}

pub(crate) enum LenSampler {
    Fixed(u32),
    Uniform(u32, u32),
    LogNormal(LogNormal<f64>),
}

impl LenSampler {
    pub(crate) fn new(d: &LengthDist) -> LenSampler {
        match *d {
            LengthDist::Fixed { value } => LenSampler::Fixed(value),
            LengthDist::Uniform { min, max } => LenSampler::Uniform(min, max.max(min)),
            LengthDist::Lognormal { mean, sigma } => {
                // arithmetic mean m = exp(mu + sigma²/2)
                let mu = mean.ln() - sigma * sigma / 2.0;
                LenSampler::LogNormal(LogNormal::new(mu, sigma).expect("validated sigma"))
            }
        }
    }
    pub(crate) fn sample(&self, rng: &mut ClassRng) -> u32 {
        match self {
            LenSampler::Fixed(v) => *v,
            LenSampler::Uniform(a, b) => rng.random_range(*a..=*b),
            LenSampler::LogNormal(d) => (d.sample(rng).round().clamp(1.0, (1u32 << 20) as f64)) as u32,
        }
    }
}

pub(crate) enum Gap {
    Exp(Exp<f64>),
    Gamma(Gamma<f64>),
}

impl Gap {
    fn sample_s(&self, rng: &mut ClassRng) -> f64 {
        match self {
            Gap::Exp(d) => d.sample(rng),
            Gap::Gamma(d) => d.sample(rng),
        }
    }
}

/// Generates one class's requests lazily, in arrival order.
pub(crate) struct ClassSource {
    pub kind: SourceKind,
    /// Requests not yet generated.
    pub remaining: u64,
    /// Closed loop: arrivals scheduled but not yet taken.
    pending: u64,
    rng_arrival: ClassRng,
    rng_len: ClassRng,
    input: Option<LenSampler>,
    output: Option<LenSampler>,
    /// Shared prefixes: the prefix length, the number of groups and the stream that picks one.
    prefix: Option<(u32, u32, ClassRng)>,
    /// The prefix group of the request `take` drew last (`None` without shared prefixes).
    pub last_group: Option<u32>,
    /// The trace row `take` read last: its `session_id` (`None` without the column).
    pub last_session: Option<u64>,
    /// The client's cap on requests in flight (`ClassConfig::max_concurrency`), when set.
    cap: Option<Cap>,
}

/// A class's client with a cap on requests in flight: what is in flight, and the requests that
/// arrived at the cap and wait at the client, oldest first.
struct Cap {
    max: u32,
    in_flight: u32,
    waiting: std::collections::VecDeque<Held>,
}

/// A request waiting at the client: its lengths, prefix group and trace `session_id`.
struct Held {
    input: u32,
    output: u32,
    group: Option<u32>,
    session: Option<u64>,
}

pub(crate) enum SourceKind {
    Open { gap: Gap, next_us: u64 },
    Closed { users: u32, think: Option<Exp<f64>> },
    Trace { trace: Trace, next: usize, speedup: f64 },
}

impl ClassSource {
    pub(crate) fn new(seed: u64, index: usize, c: &ClassConfig, trace: Option<Trace>) -> ClassSource {
        let mut rng_arrival = class_rng(seed, index, 1);
        let rng_len = class_rng(seed, index, 2);
        let input = c.input_tokens.as_ref().map(LenSampler::new);
        let output = c.output_tokens.as_ref().map(LenSampler::new);
        let (kind, total) = match (&c.arrival, trace) {
            (Arrival::Trace { speedup, .. }, Some(trace)) => {
                let n = trace.rows.len() as u64;
                (SourceKind::Trace { trace, next: 0, speedup: *speedup }, n)
            }
            (Arrival::Poisson { rate_per_s }, _) => {
                let gap = Gap::Exp(Exp::new(*rate_per_s).expect("validated rate"));
                let first = gap.sample_s(&mut rng_arrival);
                (SourceKind::Open { gap, next_us: secs_to_us(first) }, c.num_requests.unwrap_or(0))
            }
            (Arrival::Bursty { rate_per_s, cv }, _) => {
                // Gamma with shape k = 1/cv², mean 1/rate  =>  scale = cv² / rate
                let shape = 1.0 / (cv * cv);
                let gap = Gap::Gamma(Gamma::new(shape, 1.0 / (rate_per_s * shape)).expect("validated"));
                let first = gap.sample_s(&mut rng_arrival);
                (SourceKind::Open { gap, next_us: secs_to_us(first) }, c.num_requests.unwrap_or(0))
            }
            (Arrival::ClosedLoop { users, think_time_ms }, _) => {
                let think = if *think_time_ms > 0.0 {
                    Some(Exp::new(1000.0 / think_time_ms).expect("validated"))
                } else {
                    None
                };
                (SourceKind::Closed { users: *users, think }, c.num_requests.unwrap_or(0))
            }
            (Arrival::Trace { .. }, None) => unreachable!("trace classes are built with their trace"),
        };
        // its own stream (3), so shared prefixes leave the arrival and length draws unchanged
        let prefix = c.prefix.map(|p| (p.shared_tokens, p.groups.max(1), class_rng(seed, index, 3)));
        ClassSource {
            kind,
            remaining: total,
            pending: 0,
            rng_arrival,
            rng_len,
            input,
            output,
            prefix,
            last_group: None,
            last_session: None,
            cap: c.max_concurrency.map(|max| Cap { max, in_flight: 0, waiting: Default::default() }),
        }
    }

    /// An arrival event of the class at `now`: returns the request to send now (its lengths;
    /// `last_group` and `last_session` are then its own) and the time of the class's next
    /// scheduled arrival. Without a cap that is [`Self::take`]'s request. With one, the request
    /// scheduled now (if any) joins the client's queue, and the oldest waiting request is sent
    /// if fewer than the cap are in flight; the event may also be a release
    /// ([`Self::ended`]), which has no scheduled request of its own. A trace row of a
    /// conversation (`session_id`) is sent when the trace says and is not counted: its turns
    /// wait for their answers already.
    pub(crate) fn arrive(&mut self, now: u64) -> (Option<(u32, u32)>, Option<u64>) {
        if self.cap.is_none() {
            let (input, output, next) = self.take(now);
            return (Some((input, output)), next);
        }
        let mut next = None;
        if self.due(now) {
            let (input, output, n) = self.take(now);
            next = n;
            let held = Held { input, output, group: self.last_group, session: self.last_session };
            if held.session.is_some() {
                return (Some((input, output)), next);
            }
            self.cap.as_mut().expect("a cap").waiting.push_back(held);
        }
        let cap = self.cap.as_mut().expect("a cap");
        if cap.in_flight >= cap.max {
            return (None, next);
        }
        let Some(h) = cap.waiting.pop_front() else { return (None, next) };
        cap.in_flight += 1;
        (self.last_group, self.last_session) = (h.group, h.session);
        (Some((h.input, h.output)), next)
    }

    /// Whether the class's next scheduled (open-loop or trace) request arrives at or before `now`
    /// and has not been taken.
    fn due(&self, now: u64) -> bool {
        self.remaining > 0
            && match &self.kind {
                SourceKind::Open { next_us, .. } => *next_us <= now,
                SourceKind::Trace { trace, next, speedup } => {
                    trace.rows.get(*next).is_some_and(|r| (r.arrival_us as f64 / *speedup).round() as u64 <= now)
                }
                SourceKind::Closed { .. } => false,
            }
    }

    /// One of the class's requests without a `session` ended: with a cap, whether a request
    /// waits at the client (the caller then raises an arrival event now, which sends it).
    pub(crate) fn ended(&mut self) -> bool {
        let Some(cap) = self.cap.as_mut() else { return false };
        cap.in_flight = cap.in_flight.saturating_sub(1);
        !cap.waiting.is_empty()
    }

    /// A drawn prompt with the class's shared prefix: the group it starts with, and its length
    /// raised to the prefix and one token more.
    fn with_prefix(&mut self, input: u32) -> u32 {
        let Some((shared, groups, rng)) = &mut self.prefix else { return input };
        self.last_group = Some(rng.random_range(0..*groups));
        input.max(*shared + 1)
    }

    /// Time of the first arrival of an open-loop or trace class; closed-loop users start at 0.
    pub(crate) fn first_arrivals(&mut self) -> Vec<u64> {
        match &self.kind {
            SourceKind::Open { next_us, .. } => {
                if self.remaining > 0 {
                    vec![*next_us]
                } else {
                    vec![]
                }
            }
            SourceKind::Trace { trace, .. } => vec![trace.rows[0].arrival_us],
            SourceKind::Closed { users, .. } => {
                let n = (*users as u64).min(self.remaining);
                self.pending = n;
                (0..n).map(|_| 0).collect()
            }
        }
    }

    /// Draws the lengths of the request arriving now, and for open/trace classes the time of the
    /// following arrival. Returns `(input, output, next_arrival)`; `last_group` is then the
    /// request's prefix group (a trace row's `prefix_group`, or a uniform draw).
    pub(crate) fn take(&mut self, now: u64) -> (u32, u32, Option<u64>) {
        let (row_group, row_session) = match &self.kind {
            SourceKind::Trace { trace, next, .. } => {
                trace.rows.get(*next).map_or((None, None), |r| (r.group, r.session))
            }
            _ => (None, None),
        };
        self.last_session = row_session;
        let (input, output, next) = self.draw(now);
        let input = self.with_prefix(input);
        if let (Some(g), Some(_)) = (row_group, &self.prefix) {
            self.last_group = Some(g);
        }
        (input, output, next)
    }

    fn draw(&mut self, now: u64) -> (u32, u32, Option<u64>) {
        debug_assert!(self.remaining > 0);
        self.remaining -= 1;
        match &mut self.kind {
            SourceKind::Trace { trace, next, speedup } => {
                let r = trace.rows[*next];
                *next += 1;
                let nxt = trace.rows.get(*next).map(|r| (r.arrival_us as f64 / *speedup).round() as u64);
                (r.input, r.output, nxt)
            }
            SourceKind::Open { gap, next_us } => {
                let i = self.input.as_ref().map(|s| s.sample(&mut self.rng_len)).unwrap_or(1);
                let o = self.output.as_ref().map(|s| s.sample(&mut self.rng_len)).unwrap_or(1);
                let next = if self.remaining > 0 {
                    *next_us = now + secs_to_us(gap.sample_s(&mut self.rng_arrival));
                    Some(*next_us)
                } else {
                    None
                };
                (i, o, next)
            }
            SourceKind::Closed { .. } => {
                self.pending -= 1;
                let i = self.input.as_ref().map(|s| s.sample(&mut self.rng_len)).unwrap_or(1);
                let o = self.output.as_ref().map(|s| s.sample(&mut self.rng_len)).unwrap_or(1);
                (i, o, None)
            }
        }
    }

    /// A later turn of a conversation: its new input and answer lengths, drawn with the class's
    /// length distributions from the conversation's own stream.
    pub(crate) fn turn_lengths(&self, rng: &mut ClassRng) -> (u32, u32) {
        let i = self.input.as_ref().map(|s| s.sample(rng)).unwrap_or(1);
        let o = self.output.as_ref().map(|s| s.sample(rng)).unwrap_or(1);
        (i, o)
    }

    /// Closed loop: when a user whose request ended at `now` sends the next one.
    pub(crate) fn next_user_arrival(&mut self, now: u64) -> Option<u64> {
        match &self.kind {
            SourceKind::Closed { think, .. } if self.remaining > self.pending => {
                self.pending += 1;
                let t = think.as_ref().map(|d| d.sample(&mut self.rng_arrival)).unwrap_or(0.0);
                Some(now + secs_to_us(t))
            }
            _ => None,
        }
    }
}

/// `n` draws of a gamma distribution of shape `shape` and scale 1 from a stream seeded by `seed`
/// (its own, apart from every class's): a client that computes its send times before it sends
/// (`vllm bench serve`'s, in `lab_content::bench`) scales draw i by its gap's scale, as a gamma of
/// scale θ is θ times one of scale 1. `shape` must be positive and finite.
pub fn unit_gamma_draws(seed: u64, shape: f64, n: usize) -> Vec<f64> {
    let mut rng = class_rng(seed, 1 << 16, 4);
    match Gamma::new(shape, 1.0) {
        Ok(g) => (0..n).map(|_| g.sample(&mut rng)).collect(),
        Err(_) => vec![f64::NAN; n],
    }
}

/// `n` lengths drawn uniformly from the whole numbers `lo..=hi` on stream `stream` of `seed` (its
/// own, apart from every class's and [`unit_gamma_draws`]'s): a client that lists its prompts
/// before it sends them (`lab_content::bench` with a spread of lengths and a send schedule).
pub fn uniform_draws(seed: u64, stream: u64, lo: u32, hi: u32, n: usize) -> Vec<u32> {
    let mut rng = class_rng(seed, 1 << 16, 8 + stream);
    let (lo, hi) = (lo.min(hi), hi.max(lo));
    (0..n).map(|_| rng.random_range(lo..=hi)).collect()
}

pub(crate) fn secs_to_us(s: f64) -> u64 {
    (s * 1e6).round().max(0.0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_parses_shipped_files() {
        for (name, text) in BUILTIN_TRACES {
            let t = Trace::parse(text, "x").unwrap();
            assert_eq!(t.rows.len(), 300, "{name}");
            assert_eq!(t.rows[0].arrival_us, 0);
            assert!(t.rows.windows(2).all(|w| w[0].arrival_us <= w[1].arrival_us));
        }
    }

    #[test]
    fn trace_errors_name_the_line() {
        let e = Trace::parse("arrival_s,input_len,output_len\n0,10,10\n0.5,abc,3\n", "classes[0].arrival.path")
            .unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("classes[0].arrival.path") && msg.contains("line 3"), "{msg}");
        assert!(Trace::parse("a,b\n1,2\n", "p").is_err());
        assert!(Trace::parse("arrival_s,input_len,output_len\n", "p").is_err());
        let e = Trace::parse("arrival_s,input_len,output_len\n0,10,10\n1e15,10,10\n", "p").unwrap_err();
        assert_eq!(e.to_string(), "p line 3: arrival_s must be 0..=10000000 s, got 1000000000000000");
        assert!(Trace::parse("arrival_s,input_len,output_len\n0,10,10\n10000000,10,10\n", "p").is_ok());
    }

    #[test]
    fn lognormal_has_requested_mean() {
        let s = LenSampler::new(&LengthDist::Lognormal { mean: 1000.0, sigma: 0.7 });
        let mut rng = class_rng(1, 0, 2);
        let n = 200_000;
        let sum: f64 = (0..n).map(|_| s.sample(&mut rng) as f64).sum();
        let mean = sum / n as f64;
        assert!((mean - 1000.0).abs() < 10.0, "{mean}");
    }

    #[test]
    fn bursty_gaps_have_requested_rate_and_cv() {
        let c: ClassConfig = serde_json::from_str(
            r#"{"name":"x","arrival":{"kind":"bursty","rate_per_s":4.0,"cv":3.0},"num_requests":200001,
                "input_tokens":{"kind":"fixed","value":1},"output_tokens":{"kind":"fixed","value":1}}"#,
        )
        .unwrap();
        let mut src = ClassSource::new(9, 0, &c, None);
        let mut t = src.first_arrivals()[0];
        let mut gaps = Vec::new();
        while let (_, _, Some(n)) = src.take(t) {
            gaps.push((n - t) as f64 / 1e6);
            t = n;
        }
        let m = gaps.iter().sum::<f64>() / gaps.len() as f64;
        let var = gaps.iter().map(|g| (g - m) * (g - m)).sum::<f64>() / gaps.len() as f64;
        assert!((m - 0.25).abs() < 0.01, "mean gap {m}");
        assert!((var.sqrt() / m - 3.0).abs() < 0.15, "cv {}", var.sqrt() / m);
    }
}
