//! What sim-core says about input it cannot use, as data: a [`Problem`] is a code with typed
//! values, never a sentence the page has to show. The page words each code in its language from
//! its translation tables (naming settings by the labels it shows); `Display` is the plain
//! English the CLI prints (`llmsim`), and what [`crate::scenario::FieldError`]'s `message` holds.
//!
//! Two kinds carry text sim-core did not compose: [`Problem::Parse`] (serde's message on a
//! malformed file, English, with its line and column) and [`Problem::Text`] (a message from
//! outside, such as a [`crate::TraceLoader`]'s).

use std::fmt;

use crate::fix::Fix;
use crate::value::fmt_num;

/// Why one value (or the whole scenario, for the memory problems) cannot be used.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// Outside `min..=max` (`must be 1..=4096, got 0`).
    Range { min: f64, max: f64, got: f64 },
    /// Not one of the allowed values (`must be 1, 2, 4 or 8, got 3`).
    OneOf { choices: Vec<f64>, got: f64 },
    /// Speculative decoding with static batching (it runs in continuous batching's decode steps).
    SpeculativeStatic,
    /// Speculative decoding for a model with sliding-window layers (not modelled).
    SpeculativeWindow { model: String },
    /// Prefill/decode disaggregation with static batching.
    DisaggStatic,
    /// Prefill/decode disaggregation with over-committed admission (OOM restarts).
    DisaggOvercommit,
    /// `disaggregation`'s pools and `replicas` disagree (it must be 1, left out, or their sum).
    DisaggReplicas { pools: u32, got: u32 },
    /// NaN or infinite.
    NotFinite { got: f64 },
    /// A fraction or a negative number for a whole-number setting.
    NotWhole { got: f64 },
    /// A name the list does not hold (a catalogue id, a kind of arrival process).
    NotListed { options: Vec<String>, got: String },
    /// The file's format version.
    Version { expected: u32, got: u32 },
    /// fp8 weights on a GPU without fp8 tensor cores.
    Fp8Unsupported { gpu: String },
    /// `max_num_batched_tokens` below `max_model_len` with chunked prefill off.
    BatchBelowContext { max_model_len: u32, got: u32 },
    /// Not 1..=8 traffic classes.
    ClassCount { got: usize },
    /// A class name empty or longer than 40 characters.
    NameLength,
    /// A class name used twice.
    NameTaken { name: String },
    /// A trace class without a file name.
    NoTracePath,
    /// A field a trace class must leave out (the trace gives it).
    GivenByTrace,
    /// A field that must be given; with the allowed range when it is a number.
    Required { range: Option<(f64, f64)> },
    /// The classes' reserved shares add up to more than 1.
    SharesOverOne { sum: f64 },
    /// A custom model whose parameter count cannot hold its layers.
    ParamsTooSmall,
    /// The memory outside the budget does not fit in the headroom: the server cannot start.
    CannotStart(Box<CannotStart>),
    /// The KV pool cannot hold one sequence: the scenario does not fit in memory.
    DoesNotFit(Box<DoesNotFit>),
    /// A trace file's header lacks a column.
    TraceHeader { header: String },
    /// A trace line with too few columns.
    TraceColumns { line: usize },
    /// A trace line whose arrival time is not a number.
    TraceArrivalNumber { line: usize },
    /// A trace line whose arrival time is outside `0..=max` seconds.
    TraceArrival { line: usize, max: f64, got: f64 },
    /// A trace line whose lengths are not whole numbers 1..=1048576 (`column`: which one, or
    /// `None` for both).
    TraceLength { line: usize, column: Option<&'static str> },
    /// A trace line whose `prefix_group` is not one of its class's prefix groups `0..=max`
    /// (`got`: the group named, `None` when it is not a whole number).
    TracePrefixGroup { line: usize, max: u64, got: Option<u64> },
    /// A trace with a `prefix_group` column for a class without shared prefixes
    /// (`classes[i].prefix`).
    TracePrefixUnset { line: usize },
    /// A trace line whose `session_id` is not a whole number.
    TraceSessionId { line: usize },
    /// A trace without requests.
    TraceEmpty,
    /// A sweep over a workload without an open-loop rate.
    NoRateToScale,
    /// A sweep's ends are not both positive.
    SweepEnds { from: f64, to: f64 },
    /// A class index beyond the scenario's classes.
    NoClass { class: usize, classes: usize },
    /// The setting does not apply to this scenario (the burstiness of a Poisson class).
    DoesNotApply,
    /// The setting cannot be switched off.
    CannotSwitchOff,
    /// A value of the wrong kind for the setting (text for a number).
    WrongKind,
    /// No setting has this id.
    UnknownSetting,
    /// No setting of this scenario has this path.
    NotASetting,
    /// An exercise's change holds a value that is no setting's.
    ExerciseValue,
    /// An exercise's change turns a locked setting (`id`: the lock).
    ExerciseLocked { id: String },
    /// serde's message on a file it could not read (English; `line` 0 when it has none).
    Parse { message: String, line: usize, column: usize },
    /// A message from outside sim-core (a trace loader's), shown as it is.
    Text(String),
}

/// Why the server cannot start: all per GPU, in GiB.
#[derive(Clone, Debug, PartialEq)]
pub struct CannotStart {
    pub utilization: f64,
    /// Headroom outside the budget.
    pub headroom_gib: f64,
    /// The CUDA context and graphs.
    pub runtime_gib: f64,
    /// Other processes (0 when none).
    pub other_gib: f64,
    /// The largest utilisation that starts.
    pub max_utilization: f64,
    /// The most other processes may hold (when they hold any).
    pub max_other_gib: f64,
}

/// Why the KV pool cannot hold one sequence, and the smallest changes that fit.
#[derive(Clone, Debug, PartialEq)]
pub struct DoesNotFit {
    pub shortfall: Shortfall,
    /// The catalogue id of the GPU.
    pub gpu: String,
    /// One per setting that can make it fit (empty: none can).
    pub fixes: Vec<Fix>,
    /// When nothing on one 8-GPU node fits: the fewest GPUs of this kind that would hold it.
    pub beyond_node: Option<BeyondNode>,
}

/// A model too large for one node: at least `gpus` GPUs (more than 8) in `dtype` at
/// `utilization` would hold it — several nodes, with pipeline or expert parallelism, which the
/// lab does not model.
#[derive(Clone, Debug, PartialEq)]
pub struct BeyondNode {
    pub gpus: u32,
    pub dtype: String,
    pub utilization: f64,
}

/// What leaves no room for one sequence.
#[derive(Clone, Debug, PartialEq)]
pub enum Shortfall {
    /// The weights and activations exceed the budget (GiB over all GPUs).
    Weights {
        model: String,
        dtype: String,
        weights_gib: f64,
        activation_gib: f64,
        num_gpus: u32,
        utilization: f64,
        budget_gib: f64,
    },
    /// The pool left is smaller than one sequence of `max_model_len` tokens.
    KvPool { kv_gib: f64, kv_tokens: u64, max_model_len: u32 },
}

impl Problem {
    /// The stable code of the kind of problem (the page's translation keys use it).
    pub fn code(&self) -> &'static str {
        match self {
            Problem::Range { .. } => "range",
            Problem::OneOf { .. } => "one_of",
            Problem::SpeculativeStatic => "speculative_static",
            Problem::SpeculativeWindow { .. } => "speculative_window",
            Problem::DisaggStatic => "disagg_static",
            Problem::DisaggOvercommit => "disagg_overcommit",
            Problem::DisaggReplicas { .. } => "disagg_replicas",
            Problem::NotFinite { .. } => "not_finite",
            Problem::NotWhole { .. } => "not_whole",
            Problem::NotListed { .. } => "not_listed",
            Problem::Version { .. } => "version",
            Problem::Fp8Unsupported { .. } => "fp8_unsupported",
            Problem::BatchBelowContext { .. } => "batch_below_context",
            Problem::ClassCount { .. } => "class_count",
            Problem::NameLength => "name_length",
            Problem::NameTaken { .. } => "name_taken",
            Problem::NoTracePath => "no_trace_path",
            Problem::GivenByTrace => "given_by_trace",
            Problem::Required { .. } => "required",
            Problem::SharesOverOne { .. } => "shares_over_one",
            Problem::ParamsTooSmall => "params_too_small",
            Problem::CannotStart(_) => "cannot_start",
            Problem::DoesNotFit(_) => "does_not_fit",
            Problem::TraceHeader { .. } => "trace_header",
            Problem::TraceColumns { .. } => "trace_columns",
            Problem::TraceArrivalNumber { .. } => "trace_arrival_number",
            Problem::TraceArrival { .. } => "trace_arrival",
            Problem::TraceLength { .. } => "trace_length",
            Problem::TracePrefixGroup { .. } => "trace_prefix_group",
            Problem::TracePrefixUnset { .. } => "trace_prefix_unset",
            Problem::TraceSessionId { .. } => "trace_session_id",
            Problem::TraceEmpty => "trace_empty",
            Problem::NoRateToScale => "no_rate_to_scale",
            Problem::SweepEnds { .. } => "sweep_ends",
            Problem::NoClass { .. } => "no_class",
            Problem::DoesNotApply => "does_not_apply",
            Problem::CannotSwitchOff => "cannot_switch_off",
            Problem::WrongKind => "wrong_kind",
            Problem::UnknownSetting => "unknown_setting",
            Problem::NotASetting => "not_a_setting",
            Problem::ExerciseValue => "exercise_value",
            Problem::ExerciseLocked { .. } => "exercise_locked",
            Problem::Parse { .. } => "parse",
            Problem::Text(_) => "text",
        }
    }

    /// serde's error as a problem (its message keeps serde's English, with line and column).
    pub fn parse(e: &serde_json::Error) -> Problem {
        Problem::Parse { message: e.to_string(), line: e.line(), column: e.column() }
    }
}

impl From<String> for Problem {
    /// Text from outside sim-core (a trace loader's message).
    fn from(t: String) -> Problem {
        Problem::Text(t)
    }
}

impl From<&str> for Problem {
    fn from(t: &str) -> Problem {
        Problem::Text(t.to_string())
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Range { min, max, got } => {
                write!(f, "must be {}..={}, got {}", fmt_num(*min), fmt_num(*max), fmt_num(*got))
            }
            Problem::OneOf { choices, got } => {
                let names: Vec<String> = choices.iter().map(|c| fmt_num(*c)).collect();
                match names.split_last() {
                    Some((last, head)) if !head.is_empty() => {
                        write!(f, "must be {} or {last}, got {}", head.join(", "), fmt_num(*got))
                    }
                    _ => write!(f, "must be {}, got {}", names.join(""), fmt_num(*got)),
                }
            }
            Problem::SpeculativeStatic => {
                write!(f, "needs continuous batching (scheduler.batching is \"static\"); remove speculative or batch continuously")
            }
            Problem::SpeculativeWindow { model } => write!(
                f,
                "is not modelled for {model}, whose sliding-window layers the lab decodes one token per step; remove speculative"
            ),
            Problem::DisaggStatic => write!(
                f,
                "needs continuous batching (scheduler.batching is \"static\"); remove disaggregation or batch continuously"
            ),
            Problem::DisaggOvercommit => write!(
                f,
                "is not modelled with scheduler.overcommit (a prefill replica's OOM restart would lose prompts whose KV is on its way); turn one of them off"
            ),
            Problem::DisaggReplicas { pools, got } => write!(
                f,
                "has {pools} replicas (prefill and decode together) but replicas is {got}: leave replicas out or set it to {pools}"
            ),
            Problem::NotFinite { got } => write!(f, "must be a finite number, got {got}"),
            Problem::NotWhole { got } => write!(f, "must be a whole number, got {}", fmt_num(*got)),
            Problem::NotListed { options, got } => write!(f, "must be one of {}, got \"{got}\"", options.join(", ")),
            Problem::Version { expected, got } => write!(f, "must be {expected}, got {got}"),
            Problem::Fp8Unsupported { gpu } => {
                write!(f, "fp8 is not supported on {gpu} (no fp8 tensor cores); use bf16 or fp16")
            }
            Problem::BatchBelowContext { max_model_len, got } => write!(
                f,
                "must be at least scheduler.max_model_len ({max_model_len}) when chunked_prefill is off (a whole prompt must fit in one iteration), got {got}"
            ),
            Problem::ClassCount { got } => write!(f, "must hold 1..=8 traffic classes, got {got}"),
            Problem::NameLength => write!(f, "must be 1..=40 characters"),
            Problem::NameTaken { name } => write!(f, "must be unique, \"{name}\" appears twice"),
            Problem::NoTracePath => write!(f, "must name a CSV file"),
            Problem::GivenByTrace => write!(f, "must be omitted for a trace class (the trace gives it)"),
            Problem::Required { range: Some((lo, hi)) } => {
                write!(f, "is required ({}..={})", fmt_num(*lo), fmt_num(*hi))
            }
            Problem::Required { range: None } => write!(f, "is required"),
            Problem::SharesOverOne { sum } => {
                write!(f, "reserved_share values must add up to at most 1, got {sum:.3}")
            }
            Problem::ParamsTooSmall => {
                write!(f, "is too small for its layer shapes (non-embedding parameters would be negative)")
            }
            Problem::CannotStart(c) => c.fmt(f),
            Problem::DoesNotFit(d) => d.fmt(f),
            Problem::TraceHeader { header } => {
                write!(f, "must be a CSV with columns arrival_s,input_len,output_len; header was \"{header}\"")
            }
            Problem::TraceColumns { line } => write!(f, "line {line}: has too few columns"),
            Problem::TraceArrivalNumber { line } => write!(f, "line {line}: arrival_s is not a number"),
            Problem::TraceArrival { line, max, got } => {
                write!(f, "line {line}: arrival_s must be 0..={max} s, got {got}")
            }
            Problem::TraceLength { line, column: Some(c) } => {
                write!(f, "line {line}: {c} must be an integer 1..=1048576")
            }
            Problem::TraceLength { line, column: None } => {
                write!(f, "line {line}: input_len and output_len must be 1..=1048576")
            }
            Problem::TracePrefixGroup { line, max, got: Some(g) } => {
                write!(f, "line {line}: prefix_group must be 0..={max}, got {g}")
            }
            Problem::TracePrefixGroup { line, max, got: None } => {
                write!(f, "line {line}: prefix_group must be a whole number 0..={max}")
            }
            Problem::TracePrefixUnset { line } => write!(
                f,
                "line {line}: has a prefix_group column, which needs the class's prefix (its shared_tokens and groups)"
            ),
            Problem::TraceSessionId { line } => write!(f, "line {line}: session_id must be a whole number"),
            Problem::TraceEmpty => write!(f, "has no requests"),
            Problem::NoRateToScale => write!(f, "have no open-loop rate to scale"),
            Problem::SweepEnds { from, to } => {
                write!(f, "from and to must be positive numbers, got {from} and {to}")
            }
            Problem::NoClass { class, classes } => write!(f, "has no class {class} (the scenario has {classes})"),
            Problem::DoesNotApply => write!(f, "does not apply to this scenario"),
            Problem::CannotSwitchOff => write!(f, "cannot be switched off"),
            Problem::WrongKind => write!(f, "cannot take a value of this kind"),
            Problem::UnknownSetting => write!(f, "is not a known setting"),
            Problem::NotASetting => write!(f, "is not a setting of this scenario"),
            Problem::ExerciseValue => write!(f, "must be a number, text, true/false or null"),
            Problem::ExerciseLocked { id } => write!(f, "turns {id}, which the exercise locks"),
            Problem::Parse { message, .. } => f.write_str(message),
            Problem::Text(t) => f.write_str(t),
        }
    }
}

impl fmt::Display for CannotStart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the server cannot start: gpu_memory_utilization {:.2} leaves {:.2} GiB per GPU outside its budget, but the CUDA context and CUDA graphs need {:.2} GiB",
            self.utilization, self.headroom_gib, self.runtime_gib,
        )?;
        if self.other_gib > 0.0 {
            write!(f, " and other processes hold {:.2} GiB", self.other_gib)?;
        }
        write!(f, ". It would start with gpu_memory_utilization ≤ {:.2}", self.max_utilization)?;
        if self.other_gib > 0.0 {
            write!(f, ", or other_process_gib ≤ {:.2}", self.max_other_gib)?;
        }
        Ok(())
    }
}

impl fmt::Display for DoesNotFit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("does not fit: ")?;
        match &self.shortfall {
            Shortfall::Weights { model, dtype, weights_gib, activation_gib, num_gpus, utilization, budget_gib } => {
                write!(
                    f,
                    "{model} in {dtype} needs {weights_gib:.1} GiB for weights (+{activation_gib:.1} GiB activations), but {num_gpus} × {} at gpu_memory_utilization {utilization:.2} gives {budget_gib:.1} GiB",
                    self.gpu
                )?
            }
            Shortfall::KvPool { kv_gib, kv_tokens, max_model_len } => write!(
                f,
                "the KV pool ({kv_gib:.2} GiB, {kv_tokens} tokens) cannot hold one sequence of max_model_len {max_model_len} tokens"
            )?,
        }
        if self.fixes.is_empty() {
            write!(f, "; no setting of num_gpus, dtype or utilisation makes it fit on {}", self.gpu)?;
            if let Some(b) = &self.beyond_node {
                write!(
                    f,
                    " (one node of up to 8). It needs at least {} × {} in {} at gpu_memory_utilization {:.2}: several nodes, with pipeline or expert parallelism, which this lab does not model",
                    b.gpus, self.gpu, b.dtype, b.utilization
                )?;
            }
            Ok(())
        } else {
            let fixes: Vec<String> = self.fixes.iter().map(Fix::describe).collect();
            write!(f, ". It would fit with {}", fixes.join(", or "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_as_the_cli_prints_it() {
        assert_eq!(Problem::Range { min: 1.0, max: 4096.0, got: 0.0 }.to_string(), "must be 1..=4096, got 0");
        assert_eq!(
            Problem::OneOf { choices: vec![1.0, 2.0, 4.0, 8.0], got: 3.0 }.to_string(),
            "must be 1, 2, 4 or 8, got 3"
        );
        assert_eq!(Problem::NotFinite { got: f64::NAN }.to_string(), "must be a finite number, got NaN");
        assert_eq!(Problem::from("x").code(), "text");
    }
}
