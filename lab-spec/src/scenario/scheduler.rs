//! The scheduler: batching, KV layout and the limits a run uses ([`SchedulerConfig`]), and the
//! form a file gives it in ([`SchedulerFile`]), whose left-out fields the engine profile fills
//! ([`SchedulerDefaults`], which `crate::profile::Engine::defaults` gives per engine and GPU).

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Batching {
    /// Collect a batch, run it to completion, free it at once.
    Static,
    /// Iteration-level scheduling: sequences join and leave the batch every step (vLLM, Orca).
    Continuous,
}

impl Batching {
    /// The name files use.
    pub fn name(self) -> &'static str {
        match self {
            Batching::Static => "static",
            Batching::Continuous => "continuous",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KvLayout {
    /// Fixed-size blocks allocated as a sequence grows (PagedAttention).
    Paged,
    /// Each admitted sequence reserves `max_model_len` tokens up front.
    Contiguous,
}

impl KvLayout {
    /// The name files use.
    pub fn name(self) -> &'static str {
        match self {
            KvLayout::Paged => "paged",
            KvLayout::Contiguous => "contiguous",
        }
    }
}

/// What a waiting request needs free in the KV pool to be admitted (docs/model.md §4,
/// "Admission").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Admission {
    /// Room for its prompt (its first chunk); a sequence that cannot grow later is preempted
    /// (vLLM).
    Prompt,
    /// Room for its whole sequence, prompt and every output token, beside what the running
    /// sequences still need to finish: nothing is ever preempted (TensorRT-LLM's default
    /// `GUARANTEED_NO_EVICT` capacity scheduler).
    WholeSequence,
    /// Room for its prompt and its output tokens (at most 4,096), beside the running sequences'
    /// remaining output times the new-token ratio, which starts at 0.7, falls by 0.001 per
    /// decode step to 0.098 and is reset when the server idles (SGLang's `PrefillAdder`).
    NewTokenRatio,
}

impl Admission {
    /// The names files use.
    pub const NAMES: [&'static str; 3] = ["prompt", "whole_sequence", "new_token_ratio"];

    /// The name files use.
    pub fn name(self) -> &'static str {
        match self {
            Admission::Prompt => Self::NAMES[0],
            Admission::WholeSequence => Self::NAMES[1],
            Admission::NewTokenRatio => Self::NAMES[2],
        }
    }
}

/// The scheduler as a run uses it, every field set. A file may leave out the fields an engine
/// profile sets ([`SchedulerDefaults`]); [`SchedulerFile`] reads it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SchedulerConfig {
    pub batching: Batching,
    /// Most sequences in one batch (static: the batch size B).
    pub max_num_seqs: u32,
    /// Most tokens (prefill + decode) one iteration may process.
    pub max_num_batched_tokens: u32,
    /// Split long prompts into chunks and mix them with decodes (Sarathi-Serve, vLLM).
    pub chunked_prefill: bool,
    pub kv_layout: KvLayout,
    /// Tokens per KV block (paged layout).
    pub block_size: u32,
    /// Longest sequence (prompt + output) the server accepts.
    pub max_model_len: u32,
    /// A request still waiting for its first token this long after arrival is dropped.
    pub queue_timeout_ms: Option<f64>,
    /// Arrivals beyond this many waiting requests are rejected.
    pub max_queue_len: Option<u32>,
    /// One queue per class with reserved batch slots and KV, instead of one shared FCFS queue.
    pub isolation: bool,
    /// Static batching: longest wait for a batch to fill before it starts anyway.
    pub batch_timeout_ms: f64,
    /// Admit on the KV in use now rather than on guaranteed space; running out of memory is then
    /// an OOM restart instead of a preemption.
    pub overcommit: bool,
    /// Time the server is down after an OOM.
    pub restart_s: f64,
    /// After an OOM, requeue the in-flight requests instead of failing them.
    pub retry_on_oom: bool,
    /// Keep the KV blocks of shared prompt prefixes and reuse them (vLLM's automatic prefix
    /// caching); paged KV and continuous batching only.
    pub prefix_caching: bool,
    /// What a waiting request needs free in the KV pool to be admitted (continuous batching).
    pub admission: Admission,
    /// Chunked prefill off: whole prompts join the decode steps (TensorRT-LLM's in-flight
    /// batching) instead of running first in prefill-only steps while the decodes wait (vLLM V0,
    /// SGLang). No effect with chunked prefill on, whose chunks always join the decodes.
    pub mixed_prefill: bool,
    /// The engine plans each step while the one before it runs on the GPU (TensorRT-LLM's and
    /// SGLang's overlap scheduler): a request that reaches a busy engine waits for the step
    /// after next, and a request that reaches an idle one starts at once.
    pub overlap: bool,
    /// Batch waiting (TensorRT-LLM's `batch_wait_timeout_iters`): while decodes run, a step's
    /// new prompts are held back, for at most this many steps in a row, until the step would
    /// process `batch_wait_tokens_ratio` × `max_num_batched_tokens` tokens. Off unless both
    /// are above 0 (as in TensorRT-LLM, whose defaults are 0).
    pub batch_wait_iters: u32,
    /// Batch waiting's share of the token budget (TensorRT-LLM's `batch_wait_max_tokens_ratio`).
    pub batch_wait_tokens_ratio: f64,
}

/// Why a server turns a request away on arrival ([`SchedulerConfig::turns_away`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TooLong {
    /// Prompt and output exceed `max_model_len`.
    Context,
    /// Without chunked prefill, the prompt exceeds one continuous step's token budget.
    Step,
}

impl SchedulerConfig {
    /// Whole prompts join the decode steps and admission never preempts (TensorRT-LLM): without
    /// chunked prefill only a prompt, never a recomputed sequence, must fit one step.
    pub fn never_recomputes(&self) -> bool {
        self.mixed_prefill && self.admission == Admission::WholeSequence
    }

    /// Whether batch waiting holds prompts back: both its settings above 0.
    pub fn batch_waits(&self) -> bool {
        self.batch_wait_iters > 0 && self.batch_wait_tokens_ratio > 0.0
    }

    /// Whether a request of `input` prompt and `output` answer tokens is turned away on arrival,
    /// and why. Validation holds the budget to `max_model_len` without chunks unless
    /// [`never_recomputes`](Self::never_recomputes), so `Step` arises only there; static
    /// batching has no token budget.
    pub fn turns_away(&self, input: u32, output: u32) -> Option<TooLong> {
        if u64::from(input) + u64::from(output) > u64::from(self.max_model_len) {
            Some(TooLong::Context)
        } else if self.batching == Batching::Continuous && !self.chunked_prefill && input > self.max_num_batched_tokens
        {
            Some(TooLong::Step)
        } else {
            None
        }
    }
}

/// The scheduler settings an engine profile gives a scenario that leaves them out. Each field is
/// the default of one row of `crate::settings` (`Omitted::Profile`); `tests/settings.rs` holds
/// the two equal (serialised, its fields are the rows' keys).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SchedulerDefaults {
    pub batching: Batching,
    pub max_num_seqs: u32,
    pub max_num_batched_tokens: u32,
    pub chunked_prefill: bool,
    pub kv_layout: KvLayout,
    pub block_size: u32,
    pub max_model_len: u32,
    /// Prefix caching where the engine enables it (all three do by default); it has an effect
    /// only with paged KV under continuous batching (`Scenario::caches_prefixes`).
    pub prefix_caching: bool,
    pub admission: Admission,
    pub mixed_prefill: bool,
    pub overlap: bool,
}

impl SchedulerDefaults {
    /// Writes every profile setting into `s`.
    pub fn apply(&self, s: &mut SchedulerConfig) {
        s.batching = self.batching;
        s.max_num_seqs = self.max_num_seqs;
        s.max_num_batched_tokens = self.max_num_batched_tokens;
        s.chunked_prefill = self.chunked_prefill;
        s.kv_layout = self.kv_layout;
        s.block_size = self.block_size;
        s.max_model_len = self.max_model_len;
        s.prefix_caching = self.prefix_caching;
        s.admission = self.admission;
        s.mixed_prefill = self.mixed_prefill;
        s.overlap = self.overlap;
    }

    /// Choosing a profile in place of one whose defaults were `was`: each profile setting of `s`
    /// still at `was`'s value takes this profile's; one the user set (it differs from `was`'s)
    /// stays. When the change turns chunked prefill off, a whole prompt must fit the budget: a defaulted
    /// `max_model_len` shrinks to the user's budget; otherwise the budget grows to
    /// `max_model_len` (what vLLM does without chunking, `max(max_model_len, 2048)`: a budget
    /// set as a chunked scheduler's cap per step means nothing once prompts are not chunked).
    /// Where only prompts must fit ([`SchedulerConfig::never_recomputes`]), the budget grows to
    /// a `max_model_len` the user set and nothing changes otherwise.
    pub fn replace(&self, was: &SchedulerDefaults, s: &mut SchedulerConfig) {
        fn take<T: PartialEq + Copy>(field: &mut T, was: T, new: T) -> bool {
            let defaulted = *field == was;
            if defaulted {
                *field = new;
            }
            defaulted
        }
        take(&mut s.batching, was.batching, self.batching);
        take(&mut s.max_num_seqs, was.max_num_seqs, self.max_num_seqs);
        let budget = take(&mut s.max_num_batched_tokens, was.max_num_batched_tokens, self.max_num_batched_tokens);
        let unchunked =
            take(&mut s.chunked_prefill, was.chunked_prefill, self.chunked_prefill) && !self.chunked_prefill;
        take(&mut s.kv_layout, was.kv_layout, self.kv_layout);
        take(&mut s.block_size, was.block_size, self.block_size);
        let len = take(&mut s.max_model_len, was.max_model_len, self.max_model_len);
        take(&mut s.prefix_caching, was.prefix_caching, self.prefix_caching);
        take(&mut s.admission, was.admission, self.admission);
        take(&mut s.mixed_prefill, was.mixed_prefill, self.mixed_prefill);
        take(&mut s.overlap, was.overlap, self.overlap);
        if unchunked && s.max_num_batched_tokens < s.max_model_len {
            if s.never_recomputes() {
                // only prompts must fit (TensorRT-LLM): a context the user set is taken to hold
                // the prompts they mean to serve; the model's own context keeps the budget
                if !len {
                    s.max_num_batched_tokens = s.max_model_len;
                }
            } else if len && !budget {
                s.max_model_len = s.max_num_batched_tokens;
            } else {
                s.max_num_batched_tokens = s.max_model_len;
            }
        }
    }
}

/// The scheduler as a file gives it: the profile's fields may be left out (`None`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchedulerFile {
    #[serde(default)]
    batching: Option<Batching>,
    #[serde(default)]
    max_num_seqs: Option<u32>,
    #[serde(default)]
    max_num_batched_tokens: Option<u32>,
    #[serde(default)]
    chunked_prefill: Option<bool>,
    #[serde(default)]
    kv_layout: Option<KvLayout>,
    #[serde(default)]
    block_size: Option<u32>,
    #[serde(default)]
    max_model_len: Option<u32>,
    #[serde(default)]
    queue_timeout_ms: Option<f64>,
    #[serde(default)]
    max_queue_len: Option<u32>,
    #[serde(default)]
    isolation: bool,
    #[serde(default = "default_batch_timeout_ms")]
    batch_timeout_ms: f64,
    #[serde(default)]
    overcommit: bool,
    #[serde(default = "default_restart_s")]
    restart_s: f64,
    #[serde(default)]
    retry_on_oom: bool,
    #[serde(default)]
    prefix_caching: Option<bool>,
    #[serde(default)]
    admission: Option<Admission>,
    #[serde(default)]
    mixed_prefill: Option<bool>,
    #[serde(default)]
    overlap: Option<bool>,
    #[serde(default)]
    batch_wait_iters: u32,
    #[serde(default)]
    batch_wait_tokens_ratio: f64,
}

impl Default for SchedulerFile {
    fn default() -> Self {
        serde_json::from_str("{}").expect("every scheduler field has a default")
    }
}

impl SchedulerFile {
    /// The scheduler with the profile's values where the file gave none.
    pub(super) fn resolve(self, d: SchedulerDefaults) -> SchedulerConfig {
        let batching = self.batching.unwrap_or(d.batching);
        let kv_layout = self.kv_layout.unwrap_or(d.kv_layout);
        SchedulerConfig {
            batching,
            max_num_seqs: self.max_num_seqs.unwrap_or(d.max_num_seqs),
            max_num_batched_tokens: self.max_num_batched_tokens.unwrap_or(d.max_num_batched_tokens),
            chunked_prefill: self.chunked_prefill.unwrap_or(d.chunked_prefill),
            kv_layout,
            block_size: self.block_size.unwrap_or(d.block_size),
            max_model_len: self.max_model_len.unwrap_or(d.max_model_len),
            queue_timeout_ms: self.queue_timeout_ms,
            max_queue_len: self.max_queue_len,
            isolation: self.isolation,
            batch_timeout_ms: self.batch_timeout_ms,
            overcommit: self.overcommit,
            restart_s: self.restart_s,
            retry_on_oom: self.retry_on_oom,
            prefix_caching: self.prefix_caching.unwrap_or(d.prefix_caching),
            admission: self.admission.unwrap_or(d.admission),
            mixed_prefill: self.mixed_prefill.unwrap_or(d.mixed_prefill),
            overlap: self.overlap.unwrap_or(d.overlap),
            batch_wait_iters: self.batch_wait_iters,
            batch_wait_tokens_ratio: self.batch_wait_tokens_ratio,
        }
    }
}

fn default_batch_timeout_ms() -> f64 {
    50.0
}
fn default_restart_s() -> f64 {
    30.0
}
