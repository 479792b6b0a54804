//! Timing a real serving run has besides the GPU's work (docs/model.md, "The front end and
//! timing variation"):
//!
//! * the serving front end between a client and the engine. A request is worked on by the
//!   front-end process (`frontend_cpu_ms`: parsing, validating, preparing it; plus
//!   `tokenize_us_per_token` × its prompt), one request at a time as that process works, then
//!   travels `request_latency_ms` (the HTTP request, the hop to the engine process) to the
//!   engine's waiting queue; its client sees each token `stream_latency_ms` after the engine
//!   emitted it (detokenizing, the streamed chunk). The way in is multiplied by one factor per
//!   request, uniform in `1 ± frontend_jitter`.
//! * each iteration's time, multiplied by a factor uniform in `1 ± step_jitter` (kernels,
//!   the scheduler's own CPU time and the host vary from step to step).
//!
//! Without them, closed-loop users with fixed lengths stay in lockstep forever: they start
//! together, finish in the same iteration and send their next prompts at the same instant, so
//! every turn prefills all of them in one step. With them, the prompts of a wave reach the
//! engine one after another: the first to reach an idle engine starts an iteration alone and
//! the others join the next one, so TTFT has a distribution and the first wave splits.
//!
//! Each draws from its own seeded stream, so a run stays a pure function of its scenario.

use crate::scenario::EngineConfig;
use crate::sim::time::Micros;
use crate::workload::{class_rng, ClassRng};
use rand::{Rng, RngCore};

/// Stream index of the front end's draws (apart from every class's and replica's).
const FRONT_END_STREAM: usize = 0xF0_0000;
/// Stream index of replica `i`'s step-time draws: `STEP_STREAM + i`.
const STEP_STREAM: usize = 0xF1_0000;

/// A factor uniform in `1 ± spread`.
#[inline]
fn factor(rng: &mut ClassRng, spread: f64) -> f64 {
    if spread == 0.0 {
        return 1.0;
    }
    1.0 + spread * (2.0 * rng.random::<f64>() - 1.0)
}

/// The serving front end's delays, drawn per request.
pub struct FrontEnd {
    request_us: f64,
    cpu_us: f64,
    per_token_us: f64,
    stream_us: f64,
    jitter: f64,
    rng: ClassRng,
    /// The front-end process works on one request at a time: busy until then.
    busy_until: Micros,
}

/// One request's way through the front end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delays {
    /// From the client's send to the engine's queue.
    pub to_engine: Micros,
    /// From the engine emitting a token to the client seeing it.
    pub to_client: u32,
}

impl FrontEnd {
    /// The front end of `engine`'s constants; `None` when it adds nothing (every delay 0).
    pub fn new(engine: &EngineConfig, seed: u64) -> Option<FrontEnd> {
        let f = FrontEnd {
            request_us: engine.request_latency_ms * 1000.0,
            cpu_us: engine.frontend_cpu_ms * 1000.0,
            per_token_us: engine.tokenize_us_per_token,
            stream_us: (engine.stream_latency_ms * 1000.0).round(),
            jitter: engine.frontend_jitter,
            rng: class_rng(seed, FRONT_END_STREAM, 1),
            busy_until: 0,
        };
        (f.request_us > 0.0 || f.cpu_us > 0.0 || f.per_token_us > 0.0 || f.stream_us > 0.0).then_some(f)
    }

    /// The delays of a request with a prompt of `input` tokens sent at `now`: its work in the
    /// front-end process (after the requests before it) and the way to the engine.
    pub fn draw(&mut self, now: Micros, input: u32) -> Delays {
        let k = factor(&mut self.rng, self.jitter);
        // every term is at least 0: + 0.5 and truncation round it
        let work = ((self.cpu_us + self.per_token_us * input as f64) * k + 0.5) as Micros;
        let start = now.max(self.busy_until);
        self.busy_until = start + work;
        let way = (self.request_us * k + 0.5) as Micros;
        Delays { to_engine: self.busy_until - now + way, to_client: self.stream_us.min(u32::MAX as f64) as u32 }
    }
}

/// An iteration's time varied by `1 ± step_jitter`, from a replica's own stream.
pub struct StepJitter {
    spread: f64,
    rng: ClassRng,
    /// One 64-bit draw gives four steps' factors, 16 bits each (a resolution of 1/65,536 of the
    /// band): the draw costs a quarter as often, and it runs once per iteration.
    bits: u64,
    left: u8,
}

impl StepJitter {
    /// Replica `replica`'s; `None` when `step_jitter` is 0.
    pub fn new(engine: &EngineConfig, seed: u64, replica: usize) -> Option<StepJitter> {
        (engine.step_jitter > 0.0).then(|| StepJitter {
            spread: engine.step_jitter,
            rng: class_rng(seed, STEP_STREAM + replica, 1),
            bits: 0,
            left: 0,
        })
    }

    /// `us` varied, rounded to the nearest µs; at least 1 µs.
    #[inline]
    pub fn vary(&mut self, us: Micros) -> Micros {
        if self.left == 0 {
            self.bits = self.rng.next_u64();
            self.left = 4;
        }
        let u = (self.bits & 0xFFFF) as f64;
        self.bits >>= 16;
        self.left -= 1;
        // the middles of 65,536 equal slices of (−1, 1): symmetric, so the mean stays 1
        let k = 1.0 + self.spread * ((u + 0.5) / 32_768.0 - 1.0);
        // + 0.5 and truncation rounds a positive value without a call into libm (`f64::round`
        // is one on the baseline x86-64 target)
        ((us as f64 * k + 0.5) as Micros).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(request_ms: f64, cpu_ms: f64, per_token_us: f64, stream_ms: f64, jitter: f64) -> EngineConfig {
        EngineConfig {
            request_latency_ms: request_ms,
            frontend_cpu_ms: cpu_ms,
            tokenize_us_per_token: per_token_us,
            stream_latency_ms: stream_ms,
            frontend_jitter: jitter,
            ..EngineConfig::default()
        }
    }

    #[test]
    fn without_jitter_a_lone_request_takes_the_constants() {
        // 1 ms of work + 1,000 tokens × 0.5 µs, then 2 ms on the way: 3.5 ms to the engine;
        // 1 ms back
        let mut f = FrontEnd::new(&engine(2.0, 1.0, 0.5, 1.0, 0.0), 7).unwrap();
        for k in 0..10 {
            assert_eq!(f.draw(k * 1_000_000, 1000), Delays { to_engine: 3500, to_client: 1000 });
        }
        assert!(FrontEnd::new(&engine(0.0, 0.0, 0.0, 0.0, 0.5), 7).is_none());
    }

    #[test]
    fn requests_sent_together_are_worked_on_one_at_a_time() {
        // 2 ms of work each, 1 ms on the way: sent together at t = 10 ms they reach the engine
        // 3, 5 and 7 ms later; one sent at 11 ms waits for all three (done at 16 ms)
        let mut f = FrontEnd::new(&engine(1.0, 2.0, 0.0, 0.0, 0.0), 1).unwrap();
        let got: Vec<Micros> = (0..3).map(|_| f.draw(10_000, 100).to_engine).collect();
        assert_eq!(got, vec![3000, 5000, 7000]);
        assert_eq!(f.draw(11_000, 100).to_engine, 16_000 + 2000 + 1000 - 11_000);
        // once idle, a request is worked on at once
        assert_eq!(f.draw(100_000, 100).to_engine, 3000);
    }

    #[test]
    fn jitter_stays_within_its_band_and_keeps_the_mean() {
        // 4 ms of work, nothing else, each request long after the one before
        let mut f = FrontEnd::new(&engine(0.0, 4.0, 0.0, 2.0, 0.5), 3).unwrap();
        let n = 100_000u64;
        let (mut sum, mut lo, mut hi) = (0.0, u64::MAX, 0);
        for i in 0..n {
            let d = f.draw(i * 1_000_000, 0);
            // the way back does not vary
            assert_eq!(d.to_client, 2000);
            sum += d.to_engine as f64;
            lo = lo.min(d.to_engine);
            hi = hi.max(d.to_engine);
        }
        let mean = sum / n as f64;
        assert!((mean - 4000.0).abs() < 20.0, "mean {mean}");
        assert!((2000..2010).contains(&lo) && (5990..=6000).contains(&hi), "{lo}..{hi}");
    }

    #[test]
    fn step_jitter_varies_steps_within_its_band_and_is_seeded() {
        let e = EngineConfig { step_jitter: 0.1, ..EngineConfig::default() };
        let mut a = StepJitter::new(&e, 1, 0).unwrap();
        let mut b = StepJitter::new(&e, 1, 0).unwrap();
        let mut other = StepJitter::new(&e, 1, 1).unwrap();
        let xs: Vec<Micros> = (0..1000).map(|_| a.vary(10_000)).collect();
        assert!(xs.iter().all(|&x| (9000..=11000).contains(&x)));
        assert_eq!(xs, (0..1000).map(|_| b.vary(10_000)).collect::<Vec<_>>());
        assert_ne!(xs, (0..1000).map(|_| other.vary(10_000)).collect::<Vec<_>>());
        let mean = xs.iter().sum::<u64>() as f64 / 1000.0;
        assert!((mean - 10_000.0).abs() < 60.0, "{mean}");
        assert!(StepJitter::new(&EngineConfig { step_jitter: 0.0, ..e }, 1, 0).is_none());
    }
}
