//! The virtual GPU: how long one scheduler iteration takes.
//!
//! One iteration runs a batch of prefill chunks and decode tokens through the model. Its time is a
//! roofline per kind of work, each part bounded by compute or by memory traffic:
//!
//! * linear layers: `2 · N · T` FLOPs for `T` tokens against reading the weights once;
//! * attention: `4 · layers · heads · head_dim` FLOPs per (token, attended position) pair against
//!   reading the KV cache of every sequence's context; sliding-window layers attend to (and read)
//!   at most their window, linear-attention layers read and write their fixed state once per
//!   step and have no pairs;
//!
//! plus a fixed per-iteration overhead and, with tensor parallelism, two all-reduces per layer.
//! The compute and memory times of one part are combined with a smoothed maximum
//! `(c^k + m^k)^(1/k)`: kernels near the ridge point reach neither roof. `docs/model.md` gives
//! every constant, its source and the calibration error.

use crate::catalog::{Dtype, GpuSpec, ModelSpec};
use crate::scenario::EngineConfig;
use std::cell::Cell;

pub use crate::scenario::{
    DEFAULT_ALLREDUCE_US, DEFAULT_FP8_EFFICIENCY, DEFAULT_LAYER_LAUNCH_US, DEFAULT_MBU, DEFAULT_MFU,
    DEFAULT_OVERHEAD_MS, DEFAULT_PCIE_ALLREDUCE_US, DEFAULT_SHARPNESS,
};

/// What one iteration computes, summed over its sequences.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BatchWork {
    /// Prompt tokens computed this iteration (all chunks).
    pub prefill_tokens: u64,
    /// Σ over prefill tokens of the positions each attends to (causal).
    pub prefill_attn_pairs: f64,
    /// KV tokens already in cache that the prefill chunks read (earlier chunks of their prompts).
    pub prefill_kv_read_tokens: u64,
    /// Sequences producing one token each.
    pub decode_seqs: u64,
    /// Σ over decoding sequences of their context length (tokens attended and KV read).
    pub decode_ctx_tokens: u64,
    /// Tokens that need logits (every decode, the last token of each finished prompt).
    pub logit_tokens: u64,
    /// The sliding window the `*_window_*` sums are capped at; 0: no window was applied, the
    /// windowed layers are counted like the others.
    pub window: u64,
    /// `prefill_attn_pairs` with each position attending to at most `window` positions.
    pub prefill_window_pairs: f64,
    /// `prefill_kv_read_tokens` capped at the window per chunk.
    pub prefill_window_kv_read_tokens: u64,
    /// Σ over decoding sequences of min(context, window).
    pub decode_window_ctx_tokens: u64,
    /// Prefill chunks (each reads and writes its sequence's fixed state once).
    pub prefill_chunks: u64,
    /// Speculative decoding: query positions the decoding sequences verify beyond their first
    /// (`k` each). They go through the weights and write KV like any token, read no KV of their
    /// own (each sequence's context is read once for all its positions).
    pub decode_draft_tokens: u64,
    /// Σ over the draft positions of the positions each attends to (`decode_ctx_tokens` counts
    /// the first position's).
    pub decode_draft_pairs: f64,
}

impl BatchWork {
    /// Adds a prefill chunk of `n` tokens starting after `done` tokens already in cache.
    pub fn add_prefill_chunk(&mut self, done: u64, n: u64, completes_prompt: bool) {
        self.prefill_tokens += n;
        self.prefill_chunks += 1;
        // positions done+1 ..= done+n each attend to themselves and everything before
        self.prefill_attn_pairs += n as f64 * done as f64 + (n as f64) * (n as f64 + 1.0) / 2.0;
        self.prefill_kv_read_tokens += done;
        if self.window > 0 {
            let w = self.window as f64;
            let (a, e) = (done as f64, (done + n) as f64);
            // Σ over positions p = done+1 ..= done+n of min(p, window)
            let tri = |x: f64| x * (x + 1.0) / 2.0;
            self.prefill_window_pairs += if e <= w {
                tri(e) - tri(a)
            } else if a >= w {
                n as f64 * w
            } else {
                tri(w) - tri(a) + (e - w) * w
            };
            self.prefill_window_kv_read_tokens += done.min(self.window);
        }
        if completes_prompt {
            self.logit_tokens += 1;
        }
    }
    pub fn tokens(&self) -> u64 {
        self.prefill_tokens + self.decode_seqs + self.decode_draft_tokens
    }
    pub fn is_empty(&self) -> bool {
        self.tokens() == 0
    }
}

/// Break-down of one iteration's time, in seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepTime {
    pub linear_compute: f64,
    pub linear_memory: f64,
    pub attn_compute: f64,
    pub attn_memory: f64,
    pub comm: f64,
    pub overhead: f64,
    pub total: f64,
}

impl StepTime {
    /// Whole microseconds, at least 1 (simulated time is integer).
    pub fn micros(&self) -> u64 {
        // a step's time is positive: + 0.5 and truncation round it without a call into libm
        // (`f64::round` is one on the baseline x86-64 target; this runs once per iteration)
        ((self.total * 1e6 + 0.5) as u64).max(1)
    }
}

/// The KV memory traffic of a model on its GPUs (all GPUs together), by attention form.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KvTraffic {
    /// Bytes per token in the layers that attend over the whole context.
    pub full_bytes_per_token: f64,
    /// Bytes per token in the sliding-window layers, and their window (0: none).
    pub window_bytes_per_token: f64,
    pub window: u64,
    /// Fixed state per sequence (linear-attention layers), read and written once per step.
    pub state_bytes: f64,
}

impl KvTraffic {
    /// Every layer attends over the whole context with `bytes` per token.
    pub fn uniform(bytes: f64) -> KvTraffic {
        KvTraffic { full_bytes_per_token: bytes, window_bytes_per_token: 0.0, window: 0, state_bytes: 0.0 }
    }
}

/// Step-time model for one model on `tp` GPUs; constants are per GPU (shards divided out).
#[derive(Clone, Debug)]
pub struct StepModel {
    flops: f64,
    bw: f64,
    sharpness: f64,
    /// The smoothed maximum's shape for this sharpness, tabulated ([`SmoothMax`]).
    smooth: SmoothMax,
    tp: f64,
    shared_linear_params: f64,
    expert_params: f64,
    lm_head_params: f64,
    num_experts: f64,
    experts_per_token: f64,
    attn_width_layers: f64,
    attn_width_window_layers: f64,
    w_bytes: f64,
    kv: KvTraffic,
    hidden: f64,
    layers: f64,
    link_bw: f64,
    direct_link: bool,
    overhead: f64,
    layer_launch: f64,
    eager_allreduce: f64,
    /// Decode-only iterations replay a captured CUDA graph (true for the engines the lab models).
    decode_graphs: bool,
    allreduce_latency: f64,
    pcie_allreduce_latency: f64,
    /// The linear layers' time depends only on the step's token and logit counts, which repeat
    /// from step to step: the last value for each pair that maps to a slot (its two powers are
    /// a third of a step time's cost). A pure function's results, so the numbers are the same
    /// with or without it.
    linear_memo: LinearMemo,
}

/// Slots of [`StepModel`]'s linear-time memo: (tokens, logit tokens, time), found by the pair.
#[derive(Clone, Debug)]
struct LinearMemo(Box<[Cell<(u64, u64, f64)>]>);

impl LinearMemo {
    /// A power of two.
    const SLOTS: usize = 1024;
    fn new() -> Self {
        // no step has u64::MAX tokens: every slot starts empty
        LinearMemo((0..Self::SLOTS).map(|_| Cell::new((u64::MAX, 0, 0.0))).collect())
    }
    fn slot(&self, tokens: u64, logits: u64) -> &Cell<(u64, u64, f64)> {
        let h = tokens.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ logits.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        // the hash's top bits, as many as index the slots
        &self.0[(h >> (64 - Self::SLOTS.trailing_zeros())) as usize]
    }
}

impl StepModel {
    pub fn new(model: &ModelSpec, gpu: &GpuSpec, tp: u32, dtype: Dtype, kv: KvTraffic, engine: &EngineConfig) -> Self {
        // fp8 and fp4 products on their tensor cores, at `fp8_efficiency` of that peak; int4, and
        // fp4 on a GPU without fp4 tensor cores, run weight-only: dequantised into bf16 products
        let peak = match dtype {
            Dtype::Fp8 => gpu.fp8_flops.map(|f| f * engine.fp8_efficiency).unwrap_or(gpu.bf16_flops),
            Dtype::Mxfp4 | Dtype::Nvfp4 => gpu.fp4_flops.map(|f| f * engine.fp8_efficiency).unwrap_or(gpu.bf16_flops),
            _ => gpu.bf16_flops,
        };
        StepModel {
            flops: peak * engine.mfu,
            bw: gpu.mem_bandwidth * engine.mbu,
            sharpness: engine.roofline_sharpness,
            smooth: SmoothMax::new(engine.roofline_sharpness),
            tp: tp as f64,
            shared_linear_params: model.shared_linear_params(),
            expert_params: model.expert_params(),
            lm_head_params: model.vocab_size as f64 * model.hidden_size as f64,
            num_experts: model.num_experts as f64,
            experts_per_token: model.experts_per_token as f64,
            attn_width_layers: model.attn_width() * model.full_attn_layers() as f64,
            attn_width_window_layers: model.attn_width() * model.window_layers() as f64,
            w_bytes: dtype.bytes(),
            kv,
            hidden: model.hidden_size as f64,
            layers: model.num_layers as f64,
            link_bw: gpu.interconnect_bw,
            direct_link: gpu.direct_link(),
            overhead: engine.iteration_overhead_ms * 1e-3,
            layer_launch: engine.layer_launch_us * 1e-6,
            eager_allreduce: engine.eager_allreduce_us * 1e-6,
            decode_graphs: true,
            allreduce_latency: engine.allreduce_latency_us * 1e-6,
            pcie_allreduce_latency: engine.pcie_allreduce_latency_us * 1e-6,
            linear_memo: LinearMemo::new(),
        }
    }

    /// The same GPU model for an engine that captures no CUDA graphs: every iteration launches
    /// every layer's kernels (the 2023 engines of the calibration rows).
    pub fn without_cuda_graphs(mut self) -> Self {
        self.decode_graphs = false;
        self
    }

    /// The same model with an empty memo.
    #[cfg(test)]
    fn clone_without_memo(&self) -> Self {
        StepModel { linear_memo: LinearMemo::new(), ..self.clone() }
    }

    /// Expected share of a MoE layer's experts that at least one of `tokens` tokens is routed to.
    fn expert_fraction_touched(&self, tokens: f64) -> f64 {
        if self.expert_params == 0.0 {
            return 0.0;
        }
        1.0 - (1.0 - self.experts_per_token / self.num_experts).powf(tokens)
    }

    pub fn step_time(&self, w: &BatchWork) -> StepTime {
        if w.is_empty() {
            return StepTime::default();
        }
        let t = w.tokens() as f64;
        let tp = self.tp;
        // Linear layers: every token through the shared weights; the LM head only for tokens
        // that need logits.
        let shared_flops = 2.0 * self.shared_linear_params * t + 2.0 * self.lm_head_params * w.logit_tokens as f64;
        let shared_bytes = (self.shared_linear_params + self.lm_head_params) * self.w_bytes;
        let mut linear_compute = shared_flops / tp / self.flops;
        let mut linear_memory = shared_bytes / tp / self.bw;
        let memo = self.linear_memo.slot(w.tokens(), w.logit_tokens);
        let (tokens, logits, known) = memo.get();
        let hit = tokens == w.tokens() && logits == w.logit_tokens;
        let mut linear = if hit { known } else { self.smooth_max(linear_compute, linear_memory) };
        // MoE: each touched expert is its own small GEMM over the tokens routed to it, with its
        // own roofline.
        if self.expert_params > 0.0 {
            let touched = self.expert_fraction_touched(t) * self.num_experts;
            let per_expert = self.expert_params / self.num_experts;
            let tokens_per_expert = t * self.experts_per_token / touched.max(1e-9);
            let c = 2.0 * per_expert * tokens_per_expert / tp / self.flops;
            let m = per_expert * self.w_bytes / tp / self.bw;
            linear_compute += c * touched;
            linear_memory += m * touched;
            if !hit {
                linear += self.smooth_max(c, m) * touched;
            }
        }
        if !hit {
            memo.set((w.tokens(), w.logit_tokens, linear));
        }
        // Attention: QK^T and AV, 2 FLOPs per multiply-add each.
        let attn_pairs = w.prefill_attn_pairs + w.decode_ctx_tokens as f64 + w.decode_draft_pairs;
        let kv = &self.kv;
        let full_read = (w.prefill_kv_read_tokens + w.decode_ctx_tokens) as f64;
        let mut attn_flops = 4.0 * self.attn_width_layers * attn_pairs;
        let mut kv_read = full_read * kv.full_bytes_per_token;
        let mut kv_write = t * kv.full_bytes_per_token;
        if self.attn_width_window_layers > 0.0 {
            // sliding-window layers: capped at the window (uncapped when the work was not)
            let (pairs, read) = if w.window > 0 {
                (
                    w.prefill_window_pairs + w.decode_window_ctx_tokens as f64,
                    (w.prefill_window_kv_read_tokens + w.decode_window_ctx_tokens) as f64,
                )
            } else {
                (attn_pairs, full_read)
            };
            attn_flops += 4.0 * self.attn_width_window_layers * pairs;
            kv_read += read * kv.window_bytes_per_token;
            kv_write += t * kv.window_bytes_per_token;
        }
        if kv.state_bytes > 0.0 {
            // linear-attention layers: each sequence's state read and written once per step
            let seqs = (w.decode_seqs + w.prefill_chunks) as f64;
            kv_read += seqs * kv.state_bytes;
            kv_write += seqs * kv.state_bytes;
        }
        let attn_compute = attn_flops / tp / self.flops;
        let attn_memory = (kv_read + kv_write) / tp / self.bw;
        // Tensor parallel: two all-reduces of the activations per layer.
        let comm = if self.tp > 1.0 { 2.0 * self.layers * self.allreduce(t * self.hidden * 2.0) } else { 0.0 };
        // Decode-only iterations replay a captured CUDA graph; an iteration with prompt tokens
        // launches every layer's kernels.
        let launches = w.prefill_tokens > 0 || !self.decode_graphs;
        // an iteration launched kernel by kernel also launches each of its all-reduces from the host
        let eager = self.layer_launch + if self.tp > 1.0 { 2.0 * self.eager_allreduce } else { 0.0 };
        let overhead = self.overhead + if launches { self.layers * eager } else { 0.0 };
        let total = linear + self.smooth_max(attn_compute, attn_memory) + comm + overhead;
        StepTime { linear_compute, linear_memory, attn_compute, attn_memory, comm, overhead, total }
    }

    /// One all-reduce of `bytes` per GPU across the `tp` GPUs. Over a direct link (NVLink,
    /// Infinity Fabric) a custom kernel as vLLM's `custom_all_reduce.cuh` dispatches it: one-shot
    /// (every GPU reads the `tp − 1` other buffers: one latency, `(tp − 1) · bytes` in) with 2
    /// GPUs, or up to 4 GPUs below 512 KiB, or up to 8 below 256 KiB; otherwise two-shot
    /// (reduce-scatter then all-gather: two latencies, `2 (tp − 1)/tp · bytes`). Over PCIe a ring
    /// all-reduce (NCCL) with its own latency.
    fn allreduce(&self, bytes: f64) -> f64 {
        let tp = self.tp;
        let two_shot = 2.0 * (tp - 1.0) / tp * bytes / self.link_bw;
        if self.direct_link {
            const KIB: f64 = 1024.0;
            let one_shot = tp <= 2.0 || (tp <= 4.0 && bytes < 512.0 * KIB) || (tp <= 8.0 && bytes < 256.0 * KIB);
            if one_shot {
                self.allreduce_latency + (tp - 1.0) * bytes / self.link_bw
            } else {
                2.0 * self.allreduce_latency + two_shot
            }
        } else {
            self.pcie_allreduce_latency + two_shot
        }
    }
}

impl StepModel {
    fn smooth_max(&self, a: f64, b: f64) -> f64 {
        self.smooth.of(a, b, self.sharpness)
    }
}

/// The smoothed maximum `(a^k + b^k)^(1/k)` is `m · g(r)` with `m` the larger term, `r` the
/// smaller over the larger (0..=1) and `g(r) = (1 + r^k)^(1/k)`: `g` tabulated at 1,024 equal
/// steps of `r` and read by linear interpolation, within 3 millionths of the formula (its two
/// powers were a sixth of a run's instructions; every iteration's attention needs one).
#[derive(Clone, Debug)]
struct SmoothMax(Box<[f64]>);

impl SmoothMax {
    const STEPS: usize = 1024;

    fn new(k: f64) -> SmoothMax {
        let n = Self::STEPS as f64;
        SmoothMax((0..=Self::STEPS).map(|i| (1.0 + (i as f64 / n).powf(k)).powf(1.0 / k)).collect())
    }

    #[inline]
    fn of(&self, a: f64, b: f64, k: f64) -> f64 {
        let m = a.max(b);
        if m <= 0.0 {
            return 0.0;
        }
        if !m.is_finite() {
            return smooth_max(a, b, k);
        }
        let other = if a == m { b } else { a };
        let x = (other / m).max(0.0) * Self::STEPS as f64;
        let i = (x as usize).min(Self::STEPS - 1);
        let (lo, hi) = (self.0[i], self.0[i + 1]);
        m * (lo + (hi - lo) * (x - i as f64))
    }
}

fn smooth_max(a: f64, b: f64, k: f64) -> f64 {
    let m = a.max(b);
    if m <= 0.0 {
        return 0.0;
    }
    if m.is_finite() {
        // the larger term is (m / m)^k = 1 exactly: the same value without its power
        let other = if a == m { b } else { a };
        return m * (1.0 + (other / m).powf(k)).powf(1.0 / k);
    }
    m * ((a / m).powf(k) + (b / m).powf(k)).powf(1.0 / k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{find_gpu, find_model};

    fn llama8b_h100() -> StepModel {
        let m = find_model("llama-3-8b").unwrap();
        StepModel::new(
            &m,
            &find_gpu("h100-sxm").unwrap(),
            1,
            Dtype::Bf16,
            KvTraffic::uniform(131072.0),
            &EngineConfig::default(),
        )
    }

    #[test]
    fn decode_is_memory_bound_and_prefill_compute_bound() {
        let s = llama8b_h100();
        let mut d = BatchWork { decode_seqs: 1, decode_ctx_tokens: 1000, logit_tokens: 1, ..Default::default() };
        let t = s.step_time(&d);
        assert!(t.linear_memory > 10.0 * t.linear_compute);
        d = BatchWork::default();
        d.add_prefill_chunk(0, 4096, true);
        let t = s.step_time(&d);
        assert!(t.linear_compute > 3.0 * t.linear_memory);
    }

    #[test]
    fn step_time_grows_with_work() {
        let s = llama8b_h100();
        let mut prev = 0.0;
        for n in [1u64, 8, 64, 256, 1024] {
            let w = BatchWork { decode_seqs: n, decode_ctx_tokens: n * 1000, logit_tokens: n, ..Default::default() };
            let t = s.step_time(&w).total;
            assert!(t > prev, "batch {n}: {t} <= {prev}");
            prev = t;
        }
    }

    #[test]
    fn the_linear_memo_gives_the_fresh_model_s_bits() {
        // every model of the catalog (dense and MoE), works whose token counts repeat while the
        // contexts do not: each step's time equals, to the bit, that of a model with no memo yet
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for m in crate::catalog::models() {
            let s = StepModel::new(
                &m,
                &find_gpu("h100-sxm").unwrap(),
                2,
                Dtype::Fp8,
                KvTraffic::uniform(65536.0),
                &EngineConfig::default(),
            );
            for _ in 0..3000 {
                let n = 1 + next(40);
                let mut w = BatchWork {
                    decode_seqs: n,
                    decode_ctx_tokens: n * (1 + next(4000)),
                    logit_tokens: n,
                    ..Default::default()
                };
                if next(2) == 0 {
                    w.add_prefill_chunk(next(2000), 1 + next(300), next(2) == 0);
                }
                let (memo, fresh) = (s.step_time(&w), s.clone_without_memo().step_time(&w));
                assert_eq!(format!("{memo:?}"), format!("{fresh:?}"), "{} {w:?}", m.id);
                assert_eq!(memo.total.to_bits(), fresh.total.to_bits());
            }
        }
    }

    #[test]
    fn the_tabulated_smooth_max_is_the_formula_within_three_millionths() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut unit = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        for k in [1.0, DEFAULT_SHARPNESS, 2.5, 8.0, 64.0] {
            let table = SmoothMax::new(k);
            for _ in 0..20_000 {
                let (a, b) = (unit() * 10f64.powf(unit() * 6.0 - 3.0), unit() * 10f64.powf(unit() * 6.0 - 3.0));
                let (got, want) = (table.of(a, b, k), smooth_max(a, b, k));
                assert!((got - want).abs() <= 3e-6 * want, "k {k}: {a} {b}: {got} against {want}");
            }
            // the ends exactly: one term alone, and two equal terms (2^(1/k) times either)
            assert_eq!(table.of(0.0, 2.0, k), 2.0);
            assert!((table.of(3.0, 3.0, k) - 3.0 * 2f64.powf(1.0 / k)).abs() < 1e-12);
        }
    }

    #[test]
    fn smooth_max_lies_between_max_and_sum() {
        for (a, b) in [(1.0, 1.0), (1.0, 3.0), (0.0, 2.0), (5.0, 0.1)] {
            let s = smooth_max(a, b, DEFAULT_SHARPNESS);
            assert!(s >= f64::max(a, b) - 1e-12 && s <= a + b + 1e-12);
        }
    }

    #[test]
    fn smooth_max_equals_the_symmetric_formula_bit_for_bit() {
        // the larger term's power is skipped (it is 1): the value is the formula's, to the bit
        let symmetric = |a: f64, b: f64, k: f64| {
            let m = a.max(b);
            if m <= 0.0 {
                0.0
            } else {
                m * ((a / m).powf(k) + (b / m).powf(k)).powf(1.0 / k)
            }
        };
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..20_000 {
            let (a, b) = (next() * 10f64.powi(-(next() * 6.0) as i32), next() * 1e-3);
            for k in [DEFAULT_SHARPNESS, 1.0, 2.5, 8.0] {
                assert_eq!(smooth_max(a, b, k).to_bits(), symmetric(a, b, k).to_bits(), "{a} {b} {k}");
                assert_eq!(smooth_max(b, a, k).to_bits(), symmetric(b, a, k).to_bits(), "{b} {a} {k}");
            }
        }
        for (a, b) in [(0.0, 0.0), (0.0, 1.0), (2.0, 2.0), (f64::INFINITY, 1.0), (1.0, f64::INFINITY)] {
            let k = DEFAULT_SHARPNESS;
            assert_eq!(smooth_max(a, b, k).to_bits(), symmetric(a, b, k).to_bits(), "{a} {b}");
        }
    }

    #[test]
    fn prefill_attention_pairs_are_causal_triangle() {
        let mut w = BatchWork::default();
        w.add_prefill_chunk(0, 4, true);
        assert_eq!(w.prefill_attn_pairs, 10.0);
        // two chunks cover the same pairs as one
        let mut w2 = BatchWork::default();
        w2.add_prefill_chunk(0, 2, false);
        w2.add_prefill_chunk(2, 2, true);
        assert_eq!(w2.prefill_attn_pairs, 10.0);
    }

    fn on(gpu: &str, tp: u32) -> StepModel {
        let m = find_model("llama-3-8b").unwrap();
        let e = EngineConfig::default();
        StepModel::new(&m, &find_gpu(gpu).unwrap(), tp, Dtype::Bf16, KvTraffic::uniform(131072.0), &e)
    }

    #[test]
    fn small_all_reduces_are_one_shot_large_ones_two_shot() {
        let s = on("h100-sxm", 8);
        let (a, bw) = (s.allreduce_latency, s.link_bw);
        // 16 tokens of 4096 bf16 activations: one latency and 7 peers' buffers
        let small = 16.0 * 4096.0 * 2.0;
        assert!((s.allreduce(small) - (a + 7.0 * small / bw)).abs() < 1e-12);
        // 8192 tokens: two latencies and 2·7/8 of the buffer
        let large = 8192.0 * 4096.0 * 2.0;
        assert!((s.allreduce(large) - (2.0 * a + 1.75 * large / bw)).abs() < 1e-12);
    }

    #[test]
    fn pcie_reduces_over_a_slower_ring() {
        let w = BatchWork { decode_seqs: 8, decode_ctx_tokens: 8000, logit_tokens: 8, ..Default::default() };
        let (nvlink, pcie) = (on("h100-sxm", 4).step_time(&w).comm, on("l40s", 4).step_time(&w).comm);
        assert!(find_gpu("h100-sxm").unwrap().direct_link() && !find_gpu("l40s").unwrap().direct_link());
        assert!(pcie > 2.0 * nvlink, "PCIe {pcie} s vs NVLink {nvlink} s");
    }

    #[test]
    fn only_iterations_with_prompt_tokens_launch_every_layer() {
        let s = llama8b_h100();
        let d = BatchWork { decode_seqs: 4, decode_ctx_tokens: 4000, logit_tokens: 4, ..Default::default() };
        assert_eq!(s.step_time(&d).overhead, s.overhead);
        let mut p = d;
        p.add_prefill_chunk(0, 16, true);
        assert!((s.step_time(&p).overhead - s.overhead - 32.0 * s.layer_launch).abs() < 1e-12);
    }

    #[test]
    fn an_eager_iteration_launches_its_all_reduces_too() {
        // 100 µs a layer and 40 µs an all-reduce launched from the host: with TP 2 a step with
        // prompt tokens pays 32 × (100 + 2 × 40) µs = 5.76 ms besides the iteration's own cost;
        // on one GPU there is no all-reduce, and a decode-only step replays its graph
        let e = EngineConfig { layer_launch_us: 100.0, eager_allreduce_us: 40.0, ..EngineConfig::default() };
        let m = find_model("llama-3-8b").unwrap();
        let at = |tp: u32| {
            StepModel::new(&m, &find_gpu("h100-sxm").unwrap(), tp, Dtype::Bf16, KvTraffic::uniform(131072.0), &e)
        };
        let d = BatchWork { decode_seqs: 4, decode_ctx_tokens: 4000, logit_tokens: 4, ..Default::default() };
        let mut p = d;
        p.add_prefill_chunk(0, 16, true);
        let (one, two) = (at(1), at(2));
        assert!((two.step_time(&p).overhead - two.overhead - 5.76e-3).abs() < 1e-12);
        assert!((one.step_time(&p).overhead - one.overhead - 3.2e-3).abs() < 1e-12);
        assert_eq!(two.step_time(&d).overhead, two.overhead);
    }
}
