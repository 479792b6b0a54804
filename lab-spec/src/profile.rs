//! Engine profiles: the serving engine a scenario models (`engine_profile`: `vllm`, `sglang`,
//! `trtllm`) and the scheduler defaults that engine documents. A scheduler field a scenario
//! leaves out takes its profile's value; a field it gives wins. A scenario that names no profile
//! models vLLM, the engine whose metric definitions and scheduler the lab follows.
//!
//! The engine constants (`engine`: MFU, per-iteration cost, all-reduce latency, …) are one fitted
//! set for all three profiles (docs/model.md): the serving benchmarks the lab is calibrated on
//! give no grounds to tell the engines' kernels apart, only their schedulers.

use crate::catalog::GpuSpec;
use crate::scenario::{Batching, KvLayout, SchedulerDefaults};
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
    /// TensorRT-LLM (`trtllm-serve`): in-flight batching puts prompts and decodes in one step
    /// within `max_num_tokens` 8,192, like vLLM's mixed steps; KV blocks of 32 tokens reused
    /// across requests (`enable_block_reuse`).
    Trtllm,
}

/// SGLang's default prefill batch (`max_prefill_tokens` in its `server_args.py`).
pub const SGLANG_MAX_PREFILL_TOKENS: u32 = 16_384;

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
    ///   that), the radix cache. SGLang sizes its running-request limit from its KV pool; the lab
    ///   caps it at 256, because its memory model reserves sampler memory per sequence as vLLM's
    ///   profile run does (a 2,048 cap would take 12 GB from Qwen3-32B's KV on one H100, which
    ///   SGLang does not set aside) — at 256 the KV pool is what bounds the batch, as in SGLang.
    /// * TensorRT-LLM: mixed steps within `max_num_tokens` 8,192, KV blocks of 32 tokens
    ///   (`tokens_per_block`), block reuse; `max_batch_size` is 2,048 in `trtllm-serve`, and the
    ///   lab keeps 256 for the same reason as SGLang's (its KV pool bounds the batch first).
    pub fn defaults(self, gpu: Option<&GpuSpec>, context: u32) -> SchedulerDefaults {
        let big = gpu.is_some_and(|g| g.hbm_bytes >= 70.0 * (1u64 << 30) as f64 && !g.id.starts_with("a100"));
        let (max_num_seqs, max_num_batched_tokens, chunked_prefill, block_size, max_model_len) = match self {
            Engine::Vllm if big => (1024, 8192, true, 16, context),
            Engine::Vllm => (256, 2048, true, 16, context),
            Engine::Sglang => (256, SGLANG_MAX_PREFILL_TOKENS, false, 16, context.min(SGLANG_MAX_PREFILL_TOKENS)),
            Engine::Trtllm => (256, 8192, true, 32, context),
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
        }
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
    fn sglang_budget_holds_its_longest_prompt() {
        for context in [4096, 16_384, 131_072] {
            let d = Engine::Sglang.defaults(None, context);
            assert!(!d.chunked_prefill);
            assert!(d.max_model_len <= d.max_num_batched_tokens);
            assert_eq!(d.max_model_len, context.min(SGLANG_MAX_PREFILL_TOKENS));
        }
    }
}
