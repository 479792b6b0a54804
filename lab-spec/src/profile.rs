//! Engine profiles: the serving engine a scenario models (`engine_profile`: `vllm`, `sglang`,
//! `trtllm`) and the scheduler defaults that engine documents. A scheduler field a scenario
//! leaves out takes its profile's value; a field it gives wins. A scenario that names no profile
//! models vLLM, the engine whose metric definitions and scheduler the lab follows.
//!
//! The engine constants (`engine`: MFU, per-iteration cost, all-reduce latency, …) are one fitted
//! set for vLLM and SGLang; TensorRT-LLM's PyTorch runtime differs in three of them
//! ([`Engine::constants`], docs/model.md): in its steps with prompt tokens, which run eagerly,
//! each all-reduce costs host time to launch; its all-reduces are its own kernels and cost less
//! on the GPU; its decode steps reach a smaller share of the memory bandwidth. A constant a
//! scenario leaves out takes its profile's value, like a scheduler field.

use crate::catalog::GpuSpec;
use crate::scenario::{Admission, Batching, EngineConfig, KvLayout, SchedulerDefaults};
use serde::{Deserialize, Serialize};

/// A serving engine the lab can imitate. Defined once here; the scenario's `engine_profile`,
/// `llmsim bench --engine` and the calibration replay read it, a page lists [`Engine::ALL`] with
/// [`Engine::label`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// vLLM (V1): chunked prefill mixing prompt chunks into decode steps, automatic prefix
    /// caching; `vllm serve`'s budget and sequence limit depend on the GPU
    /// ([`Engine::defaults`]).
    #[default]
    Vllm,
    /// SGLang: a waiting prompt goes first in a prefill-only batch of up to 16,384 tokens
    /// (`max_prefill_tokens`), decodes are not mixed in (`enable_mixed_chunk` off), the radix
    /// cache on; all in its `server_args.py`.
    Sglang,
    /// TensorRT-LLM (`trtllm-serve`): in-flight batching puts whole prompts and decodes in one
    /// step within `max_num_tokens` 8,192; KV blocks of 32 tokens reused across requests
    /// (`enable_block_reuse`).
    Trtllm,
}

/// TensorRT-LLM's token budget per step (`max_num_tokens`, `BuildConfig`'s default, which
/// `trtllm-serve` takes); with chunked prefill off (its default) also the longest prompt.
pub const TRTLLM_MAX_NUM_TOKENS: u32 = 8192;

/// TensorRT-LLM's share of the memory bandwidth in its steps (`mbu`; vLLM's and SGLang's:
/// [`crate::scenario::DEFAULT_MBU`]), fitted on its calibration rows (docs/model.md).
pub const TRTLLM_MBU: f64 = 0.79;
/// TensorRT-LLM's all-reduce latency over NVLink (`allreduce_latency_us`): its own all-reduce
/// kernels (`AllReduce`, which can also do the residual add and the RMSNorm after it,
/// `AllReduceFusionOp`); fitted on its calibration rows (docs/model.md).
pub const TRTLLM_ALLREDUCE_US: f64 = 15.0;
/// TensorRT-LLM's host cost of each all-reduce in a step with prompt tokens
/// (`eager_allreduce_us`): its PyTorch runtime captures CUDA graphs of decode-only steps
/// (`cuda_graph_config`) and runs the others eagerly, op by op (piecewise graphs of those steps,
/// `torch_compile_config.enable_piecewise_cuda_graph`, are off by default), its all-reduces
/// launched from Python each time; fitted on its calibration rows (docs/model.md).
pub const TRTLLM_EAGER_ALLREDUCE_US: f64 = 180.0;

/// SGLang's default prefill batch (`max_prefill_tokens` in its `server_args.py`).
pub const SGLANG_MAX_PREFILL_TOKENS: u32 = 16_384;

/// SGLang's running-request limit as the lab sets it: 2,048, the floor of its request pool
/// (SGLang 0.5.3: `max_running_requests` = min(KV pool tokens / 2, `req_to_token_pool.size`),
/// the size `clamp(pool tokens / context_len × 512, 2048, 4096)`; `srt/managers/tp_worker.py`
/// `TpModelWorker.__init__`, `srt/model_executor/model_runner.py` `init_memory_pool`). Above
/// 2,048 the KV pool bounds the batch first in every row the lab replays.
pub const SGLANG_MAX_RUNNING_REQUESTS: u32 = 2048;

/// vLLM's `gpu_memory_utilization` (`vllm/config/cache.py`, 0.11.0), the lab's for TensorRT-LLM
/// too (`free_gpu_memory_fraction` 0.9 in `trtllm-serve`).
pub const DEFAULT_MEMORY_SHARE: f64 = 0.9;

/// SGLang 0.5.3's defaults that follow the GPU's memory, from `nvidia-smi memory.total` in MiB
/// (`python/sglang/srt/server_args.py: ServerArgs._handle_gpu_memory_settings`; docs/engine-sources.md
/// §C1, §C2, §C4).
pub mod sglang {
    const GIB_MIB: f64 = 1024.0;

    /// The new-token ratio's start (`SGLANG_INIT_NEW_TOKEN_RATIO` × `schedule_conservativeness`
    /// 1.0), its floor (× `SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR` 0.14) and the decode steps it takes
    /// to fall from one to the other (`SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS`): SGLang 0.5.3's
    /// `global_config.py` and `Scheduler.__init__`.
    pub const NEW_TOKEN_RATIO_INIT: f64 = 0.7;
    pub const NEW_TOKEN_RATIO_MIN: f64 = 0.7 * 0.14;
    pub const NEW_TOKEN_RATIO_DECAY_STEPS: f64 = 600.0;
    /// A request's output tokens counted at admission are clipped to this
    /// (`SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION`).
    pub const CLIP_MAX_NEW_TOKENS: u64 = 4096;

    /// `chunked_prefill_size`: 2,048 below 35 GiB, 4,096 below 60, 8,192 below 160, else 16,384.
    pub fn chunked_prefill_size(gpu_mib: f64) -> u32 {
        match gpu_mib / GIB_MIB {
            g if g < 35.0 => 2048,
            g if g < 60.0 => 4096,
            g if g < 160.0 => 8192,
            _ => 16_384,
        }
    }

    /// `cuda_graph_max_bs`: 8 below 20 GiB; 16 (80 from TP 4) below 35; 32 (160) below 60; 256
    /// (512) below 160; else 512.
    pub fn cuda_graph_max_bs(gpu_mib: f64, tp: u32) -> u32 {
        let wide = tp >= 4;
        match gpu_mib / GIB_MIB {
            g if g < 20.0 => 8,
            g if g < 35.0 => [16, 80][wide as usize],
            g if g < 60.0 => [32, 160][wide as usize],
            g if g < 160.0 => [256, 512][wide as usize],
            _ => 512,
        }
    }

    /// `mem_fraction_static`, the share of the GPU's memory for the weights and the KV pool:
    /// `(gpu − reserved) / gpu` rounded to three decimals, reserved (MiB) = 512 +
    /// 1.5 · max(chunked_prefill_size, 2048) + 2 · cuda_graph_max_bs + tp / 8 · 1024, at least
    /// 10,240 above 60 GiB (no DP attention, no speculative decoding).
    pub fn mem_fraction_static(gpu_mib: f64, tp: u32) -> f64 {
        let chunk = chunked_prefill_size(gpu_mib).max(2048) as f64;
        let mut reserved = 512.0 + 1.5 * chunk + 2.0 * cuda_graph_max_bs(gpu_mib, tp) as f64 + tp as f64 / 8.0 * 1024.0;
        if gpu_mib > 60.0 * GIB_MIB {
            reserved = reserved.max(10_240.0);
        }
        ((gpu_mib - reserved) / gpu_mib * 1000.0).round() / 1000.0
    }
}

impl Engine {
    pub const ALL: [Engine; 3] = [Engine::Vllm, Engine::Sglang, Engine::Trtllm];

    /// The id a scenario or flag names it by.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Vllm => "vllm",
            Engine::Sglang => "sglang",
            Engine::Trtllm => "trtllm",
        }
    }

    /// Its product name, for display.
    pub fn label(self) -> &'static str {
        match self {
            Engine::Vllm => "vLLM",
            Engine::Sglang => "SGLang",
            Engine::Trtllm => "TensorRT-LLM",
        }
    }

    pub fn parse(name: &str) -> Option<Engine> {
        Engine::ALL.into_iter().find(|e| e.name().eq_ignore_ascii_case(name))
    }

    /// The scheduler this engine starts with on `gpu` (when known) for a model of `context`
    /// tokens:
    ///
    /// * vLLM: `vllm serve` (`EngineArgs.get_batch_defaults`) gives GPUs of at least 70 GiB
    ///   other than the A100 an 8,192-token budget and 1,024 sequences, others 2,048 and 256;
    ///   chunked prefill, paged KV in blocks of 16, prefix caching, `max_model_len` the model's
    ///   context.
    /// * SGLang: prefill-only batches of up to [`SGLANG_MAX_PREFILL_TOKENS`] (the lab's scheduler
    ///   without chunked prefill, whose budget must hold a whole prompt: `max_model_len` at most
    ///   that), the radix cache, [`SGLANG_MAX_RUNNING_REQUESTS`] running requests (its memory
    ///   plan sets no activations aside inside the budget, as SGLang's `mem_fraction_static`
    ///   does not, so the limit takes no KV).
    /// * TensorRT-LLM: whole prompts (`enable_chunked_prefill` off) in the decode steps
    ///   (in-flight batching) within `max_num_tokens` 8,192, which is then also the longest
    ///   prompt it takes; `max_model_len` stays the model's context (its `GUARANTEED_NO_EVICT`
    ///   admission never recomputes a sequence); KV blocks of 32 tokens (`tokens_per_block`),
    ///   block reuse; `max_batch_size` is 2,048 in `trtllm-serve`, and the lab keeps 256 for the
    ///   same reason as SGLang's (its KV pool bounds the batch first).
    ///
    /// SGLang and TensorRT-LLM plan each step while the one before runs (their overlap
    /// schedulers, on by default); vLLM plans between steps (async scheduling off by default).
    pub fn defaults(self, gpu: Option<&GpuSpec>, context: u32) -> SchedulerDefaults {
        let big = gpu.is_some_and(|g| g.hbm_bytes >= 70.0 * (1u64 << 30) as f64 && !g.id.starts_with("a100"));
        let (max_num_seqs, max_num_batched_tokens, chunked_prefill, block_size, max_model_len) = match self {
            Engine::Vllm if big => (1024, 8192, true, 16, context),
            Engine::Vllm => (256, 2048, true, 16, context),
            Engine::Sglang => (
                SGLANG_MAX_RUNNING_REQUESTS,
                SGLANG_MAX_PREFILL_TOKENS,
                false,
                16,
                context.min(SGLANG_MAX_PREFILL_TOKENS),
            ),
            Engine::Trtllm => (256, TRTLLM_MAX_NUM_TOKENS, false, 32, context),
        };
        SchedulerDefaults {
            batching: Batching::Continuous,
            max_num_seqs,
            max_num_batched_tokens,
            chunked_prefill,
            kv_layout: KvLayout::Paged,
            block_size,
            max_model_len,
            prefix_caching: true,
            admission: match self {
                Engine::Vllm => Admission::Prompt,
                Engine::Sglang => Admission::NewTokenRatio,
                Engine::Trtllm => Admission::WholeSequence,
            },
            mixed_prefill: self == Engine::Trtllm,
            overlap: self != Engine::Vllm,
        }
    }

    /// The engine constants this engine starts with: the calibrated defaults
    /// ([`EngineConfig::default`]) for vLLM and SGLang; TensorRT-LLM's own share of the memory
    /// bandwidth, all-reduce latency and host cost of an all-reduce in an eager step
    /// ([`TRTLLM_MBU`], [`TRTLLM_ALLREDUCE_US`], [`TRTLLM_EAGER_ALLREDUCE_US`]).
    pub fn constants(self) -> EngineConfig {
        match self {
            Engine::Vllm | Engine::Sglang => EngineConfig::default(),
            Engine::Trtllm => EngineConfig {
                mbu: TRTLLM_MBU,
                allreduce_latency_us: TRTLLM_ALLREDUCE_US,
                eager_allreduce_us: TRTLLM_EAGER_ALLREDUCE_US,
                ..EngineConfig::default()
            },
        }
    }

    /// The share of each GPU's memory the server takes (`gpu_memory_utilization`) on `tp` GPUs
    /// of `gpu` (when known): vLLM's and TensorRT-LLM's 0.9 ([`DEFAULT_MEMORY_SHARE`]); SGLang's
    /// `mem_fraction_static` for the GPU's memory ([`sglang::mem_fraction_static`], 0.88 when
    /// the GPU is unknown). Under SGLang the share holds the weights and the KV pool only: the
    /// activations live in the rest, which the formula reserves for them.
    pub fn memory_share(self, gpu: Option<&GpuSpec>, tp: u32) -> f64 {
        match (self, gpu) {
            (Engine::Sglang, Some(g)) => sglang::mem_fraction_static(g.hbm_bytes / (1u64 << 20) as f64, tp.max(1)),
            (Engine::Sglang, None) => 0.88,
            _ => DEFAULT_MEMORY_SHARE,
        }
    }

    /// Whether the server's memory share holds the activations of its largest step (vLLM's
    /// profile run, and TensorRT-LLM in the lab) or only the weights and the KV pool (SGLang's
    /// `mem_fraction_static`, whose reserved rest holds them).
    pub fn activations_in_budget(self) -> bool {
        self != Engine::Sglang
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::find_gpu;

    #[test]
    fn names_parse_back_and_labels_differ() {
        for e in Engine::ALL {
            assert_eq!(Engine::parse(e.name()), Some(e));
            assert_eq!(Engine::parse(&e.name().to_uppercase()), Some(e));
            assert_eq!(serde_json::to_value(e).unwrap(), e.name());
        }
        assert_eq!(Engine::parse("tgi"), None);
        assert_eq!(Engine::default(), Engine::Vllm);
    }

    #[test]
    fn lesson_server_follow_the_gpu_as_vllm_serve_does() {
        let h100 = find_gpu("h100-sxm").unwrap();
        let a100 = find_gpu("a100-80gb").unwrap();
        let l4 = find_gpu("l4").unwrap();
        let big = Engine::Vllm.defaults(Some(&h100), 8192);
        assert_eq!((big.max_num_seqs, big.max_num_batched_tokens), (1024, 8192));
        for small in [&a100, &l4] {
            let d = Engine::Vllm.defaults(Some(small), 8192);
            assert_eq!((d.max_num_seqs, d.max_num_batched_tokens), (256, 2048), "{}", small.id);
        }
    }

    #[test]
    fn sglang_memory_defaults_follow_its_server_args_by_hand() {
        // docs/engine-sources.md §C1's worked values (typical nvidia-smi totals in MiB). H100 at
        // TP 1 by hand: chunked_prefill_size 8,192, cuda_graph_max_bs 256, reserved 512 +
        // 1.5 × 8,192 + 2 × 256 + 1/8 × 1,024 = 13,440 MiB (above the 10,240 floor);
        // (81,559 − 13,440) / 81,559 = 0.8352 → 0.835.
        for (mib, tp, want) in [
            (81_559.0, 1, 0.835),
            (81_559.0, 2, 0.834),
            (81_559.0, 4, 0.824),
            (81_559.0, 8, 0.818),
            (143_771.0, 1, 0.907),
            (143_771.0, 8, 0.897),
            (81_920.0, 1, 0.836),
            (40_960.0, 1, 0.833),
            (46_068.0, 1, 0.851),
            (183_359.0, 1, 0.857),
        ] {
            assert_eq!(sglang::mem_fraction_static(mib, tp), want, "{mib} MiB TP {tp}");
        }
        assert_eq!(sglang::chunked_prefill_size(81_559.0), 8192);
        assert_eq!(sglang::chunked_prefill_size(46_068.0), 4096);
        assert_eq!(sglang::chunked_prefill_size(183_359.0), 16_384);
        assert_eq!((sglang::cuda_graph_max_bs(81_559.0, 1), sglang::cuda_graph_max_bs(81_559.0, 4)), (256, 512));
        assert_eq!((sglang::cuda_graph_max_bs(24_576.0, 1), sglang::cuda_graph_max_bs(24_576.0, 4)), (16, 80));
        // the lab's H100 has 80 GiB (81,920 MiB): 0.836; vLLM's and TensorRT-LLM's share is 0.9
        let h100 = find_gpu("h100-sxm").unwrap();
        assert_eq!(Engine::Sglang.memory_share(Some(&h100), 1), 0.836);
        assert_eq!(Engine::Vllm.memory_share(Some(&h100), 1), 0.9);
        assert_eq!(Engine::Trtllm.memory_share(Some(&h100), 8), 0.9);
        assert_eq!(Engine::Sglang.defaults(Some(&h100), 8192).max_num_seqs, 2048);
    }

    #[test]
    fn sglang_budget_holds_its_longest_prompt() {
        for context in [4096, 16_384, 131_072] {
            let d = Engine::Sglang.defaults(None, context);
            assert!(!d.chunked_prefill);
            assert!(d.max_model_len <= d.max_num_batched_tokens);
            assert_eq!(d.max_model_len, context.min(SGLANG_MAX_PREFILL_TOKENS));
        }
    }
}
