//! Speculative decoding (`speculative` in a scenario): each decode step drafts `k` tokens per
//! sequence, verifies them and the next position (`k + 1` query tokens per sequence) in one
//! forward pass of the target model, and emits the accepted draft tokens plus one token of its
//! own. With acceptance rate `a` per draft token (each accepted only if those before it were),
//! the accepted count `j` of `k` is a truncated geometric, `P(j) = a^j (1 − a)` for `j < k` and
//! `a^k` for `j = k`, and a step emits `j + 1` tokens: `(1 − a^(k+1)) / (1 − a)` on average
//! (Leviathan et al. 2023, eq. 1).
//!
//! The lab draws one count per step for the whole decode batch (the decode group moves in
//! lockstep, in O(1) per iteration): each sequence's mean tokens per step is right, the spread
//! across the sequences of one step is not (they all accept the same number). The draw for a
//! step is made when the step before it ends, from a stream of its own (seeded by the scenario's
//! seed), so a plan knows how much KV the step will write. `docs/model.md` gives the cost model.

use crate::catalog::{self, GpuSpec};
use crate::perf::{BatchWork, StepModel};
use crate::scenario::Scenario;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

pub use crate::metrics::SpeculativeSummary;
pub use crate::scenario::{expected_tokens, SpeculativeConfig, MAX_ACCEPTANCE, MAX_DRAFT_TOKENS};

/// A replica's speculation: the draw of each step's accepted tokens, the draft model's cost,
/// the counts for the summary.
pub(crate) struct Speculation {
    k: u32,
    a: f64,
    /// The draft model on the target's GPUs (`None`: a head of negligible cost).
    draft: Option<StepModel>,
    /// The draft's sliding window (0: none). The pool's window is the draft's (speculation needs
    /// a target without one), so the target's work carries the sums capped at it.
    draft_window: u64,
    rng: Xoshiro256PlusPlus,
    /// Tokens the next decode step emits per sequence (drawn when the step before it ended).
    pub next: u32,
    steps: u64,
    emitted: u64,
}

impl Speculation {
    /// The scenario's speculation on replica `replica` (its draft model's step model on the
    /// scenario's GPUs), if it has any.
    pub fn of(s: &Scenario, replica: usize) -> Option<Speculation> {
        let sp = s.speculative.as_ref()?;
        let gpu: Option<GpuSpec> = s.gpu_spec().ok();
        let mut draft_window = 0;
        let draft = sp.draft_model.as_deref().and_then(catalog::find_model).zip(gpu).map(|(m, gpu)| {
            let kv = crate::memory::stored_kv_traffic(&m, s.kv_dtype().bytes(), s.num_gpus);
            draft_window = kv.window;
            StepModel::new(&m, &gpu, s.num_gpus, s.dtype, kv, &s.engine)
        });
        // a stream of its own: the workload's streams (and so every run without speculation)
        // are untouched
        // (and each replica draws its own)
        let mut z = s.seed ^ 0x5EC5_1A7E_D0DE_C0DE ^ (replica as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        let mut spec = Speculation {
            k: sp.draft_tokens,
            a: sp.acceptance_rate,
            draft,
            draft_window,
            rng: Xoshiro256PlusPlus::seed_from_u64(z ^ (z >> 31)),
            next: 1,
            steps: 0,
            emitted: 0,
        };
        spec.next = spec.draw();
        Some(spec)
    }

    /// Draft tokens proposed per sequence per step (`k`).
    pub fn draft_tokens(&self) -> u32 {
        self.k
    }

    /// Tokens one step emits: `j + 1`, `j` accepted of `k` with `P(j ≥ i) = a^i`.
    fn draw(&mut self) -> u32 {
        let u: f64 = self.rng.random();
        let (mut j, mut p) = (0, self.a);
        while j < self.k && u < p {
            j += 1;
            p *= self.a;
        }
        j + 1
    }

    /// A decode step ended having emitted `next` tokens per sequence: count it and draw the
    /// next step's.
    pub fn step_done(&mut self) -> u32 {
        self.steps += 1;
        self.emitted += self.next as u64;
        self.next = self.draw();
        self.next
    }

    /// The verifying pass: every decoding sequence of `work` computes `k` more query positions
    /// (its draft tokens) after its first, each attending to one position more than the one
    /// before, with logits for all of them. Weights and each sequence's KV are read once.
    pub fn add_verification(&self, work: &mut BatchWork) {
        let (n, k) = (work.decode_seqs, self.k as u64);
        work.decode_draft_tokens = n * k;
        // query i (0-based, after the first) of a sequence with c positions attends to c + i + 1
        work.decode_draft_pairs = k as f64 * work.decode_ctx_tokens as f64 + (n * k * (k + 1) / 2) as f64;
        work.logit_tokens += n * k;
    }

    /// Seconds the draft model's `k` forward passes take for the decode batch of `work` (0 with
    /// a draft head). Pass `i` runs one token per sequence against the context plus the `i`
    /// draft tokens before it; the first pass also runs the iteration's prompt chunks (the draft
    /// keeps its own KV of every prompt). The passes run inside the target's iteration, replayed
    /// from captured graphs: they pay compute and memory, not the iteration overhead. The
    /// draft's sliding-window layers attend to (and read) at most their window, as a target's
    /// do: the work's window sums are at the draft's window; pass `i`'s decode sum adds `i` per
    /// sequence, at most the window each.
    pub fn draft_seconds(&self, work: &BatchWork) -> f64 {
        let Some(draft) = &self.draft else { return 0.0 };
        let n = work.decode_seqs;
        if n == 0 {
            return 0.0;
        }
        let capped = self.draft_window > 0 && work.window == self.draft_window;
        let mut total = 0.0;
        for i in 0..self.k as u64 {
            let mut w = if i == 0 {
                BatchWork {
                    prefill_tokens: work.prefill_tokens,
                    prefill_attn_pairs: work.prefill_attn_pairs,
                    prefill_kv_read_tokens: work.prefill_kv_read_tokens,
                    prefill_chunks: work.prefill_chunks,
                    prefill_window_pairs: work.prefill_window_pairs,
                    prefill_window_kv_read_tokens: work.prefill_window_kv_read_tokens,
                    ..BatchWork::default()
                }
            } else {
                BatchWork::default()
            };
            w.decode_seqs = n;
            w.decode_ctx_tokens = work.decode_ctx_tokens + n * i;
            if capped {
                w.window = self.draft_window;
                w.decode_window_ctx_tokens = (work.decode_window_ctx_tokens + n * i).min(n * self.draft_window);
            }
            w.logit_tokens += n;
            let t = draft.step_time(&w);
            total += t.total - t.overhead;
        }
        total
    }

    /// The summary over the speculation of every replica: their decode steps together.
    pub fn summary<'a>(all: impl Iterator<Item = &'a Speculation>) -> Option<SpeculativeSummary> {
        let (mut k, mut steps, mut emitted) = (None, 0, 0);
        for s in all {
            k = Some(s.k);
            steps += s.steps;
            emitted += s.emitted;
        }
        let mean = if steps == 0 { 0.0 } else { emitted as f64 / steps as f64 };
        k.map(|k| SpeculativeSummary { mean_accepted_tokens_per_step: mean, draft_tokens: k })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::find_model;

    #[test]
    fn a_draft_model_s_sliding_window_layers_read_at_most_their_window() {
        // gpt-oss-20b drafting for Llama-3.1-70B on 4 × H100 (12 full-attention and 12
        // sliding-window layers of window 128, 24,576 B per token in each half, 8 KV heads
        // over 4 GPUs: no replication). One sequence decodes at context C = 1,000, one draft
        // pass (k = 1). By hand, the draft's pass reads 1,000 × 24,576 B in its full layers and
        // min(1,000, 128) × 24,576 = 3,145,728 B in its window layers; the old count read
        // 1,000 × 24,576 in both. The pass equals the draft's step model on a work capped at
        // the window by hand.
        let mut s = crate::presets::find("chat-latency-first").unwrap().scenario();
        s.model = crate::scenario::ModelRef::Id("llama-3.1-70b".into());
        s.gpu = crate::scenario::GpuRef::Id("h100-sxm".into());
        s.num_gpus = 4;
        s.speculative =
            Some(SpeculativeConfig { draft_tokens: 1, acceptance_rate: 0.8, draft_model: Some("gpt-oss-20b".into()) });
        let sp = Speculation::of(&s, 0).unwrap();
        assert_eq!(sp.draft_window, 128);
        // the target's work as the plan makes it: the pool's window is the draft's
        let work = BatchWork {
            window: 128,
            decode_seqs: 1,
            decode_ctx_tokens: 1_000,
            decode_window_ctx_tokens: 128,
            logit_tokens: 1,
            ..BatchWork::default()
        };
        let gpu = s.gpu_spec().unwrap();
        let m = find_model("gpt-oss-20b").unwrap();
        let kv = crate::memory::stored_kv_traffic(&m, s.kv_dtype().bytes(), 4);
        assert_eq!((kv.full_bytes_per_token, kv.window_bytes_per_token, kv.window), (24_576.0, 24_576.0, 128));
        let draft = StepModel::new(&m, &gpu, 4, s.dtype, kv, &s.engine);
        let by_hand = draft.step_time(&work);
        let uncapped = draft.step_time(&BatchWork { window: 0, decode_window_ctx_tokens: 0, ..work });
        assert_eq!(sp.draft_seconds(&work), by_hand.total - by_hand.overhead);
        // reading 2,000 × 24,576 B rather than 1,128 × 24,576 B costs more
        assert!(uncapped.attn_memory > by_hand.attn_memory * 1.5, "{uncapped:?} {by_hand:?}");
    }
}
