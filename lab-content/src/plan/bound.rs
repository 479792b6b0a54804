//! Which constraint bound first: a failed acceptance run read in the lab's vocabulary.
//!
//! A configuration that cannot carry its share of the contract's load fails some acceptance
//! lines; the *binding constraint* is what made it fail, read from the run's summary in this
//! order (the first that holds):
//!
//! 1. **KV memory** — the KV pool ran out: an OOM restart, a preemption, the headroom line, or
//!    the pool's peak within 5% of its capacity while requests failed or waited.
//! 2. **Scheduling caps** — the batch was at `max_num_seqs` (or the memory-safe limit that caps
//!    it) while requests waited and the pool still had room: the cap, not memory or compute,
//!    held them back.
//! 3. **Decode bandwidth** — TPOT missed even at the median: every decode step is too slow for
//!    the batch it carries (weights and KV read per step).
//! 4. **Interference between prefill and decode** — TPOT missed in the tail only: the steps
//!    that carry prompt chunks (or prefill-only steps that stall the decodes) are the slow ones.
//! 5. **Queueing** — TTFT (or errors from timeouts and a full queue) missed and waiting, not
//!    prefill, is most of TTFT: arrivals outrun the replica's service.
//! 6. **Prefill compute** — TTFT missed with prefill most of it: the prompts themselves take
//!    too long on this hardware.
//! 7. **Cost** — every latency held, but the price per good token or the goodput floor did not.

use crate::contract::ContractReport;
use serde::{Deserialize, Serialize};
use sim_core::Scenario;

/// A binding constraint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// The weights and one sequence of the longest allowed length do not fit the GPUs.
    Weights,
    KvMemory,
    SchedulingCaps,
    DecodeBandwidth,
    Interference,
    Queueing,
    PrefillCompute,
    Cost,
    /// More GPUs than the search may use.
    GpuBudget,
}

impl Bound {
    pub const ALL: [Bound; 9] = [
        Bound::Weights,
        Bound::KvMemory,
        Bound::SchedulingCaps,
        Bound::DecodeBandwidth,
        Bound::Interference,
        Bound::Queueing,
        Bound::PrefillCompute,
        Bound::Cost,
        Bound::GpuBudget,
    ];

    /// The id the JSON and the page name it by.
    pub fn id(self) -> &'static str {
        match self {
            Bound::Weights => "weights",
            Bound::KvMemory => "kv_memory",
            Bound::SchedulingCaps => "scheduling_caps",
            Bound::DecodeBandwidth => "decode_bandwidth",
            Bound::Interference => "interference",
            Bound::Queueing => "queueing",
            Bound::PrefillCompute => "prefill_compute",
            Bound::Cost => "cost",
            Bound::GpuBudget => "gpu_budget",
        }
    }

    /// Its name in English, for the command line.
    pub fn label(self) -> &'static str {
        match self {
            Bound::Weights => "weights memory",
            Bound::KvMemory => "KV memory",
            Bound::SchedulingCaps => "scheduling caps",
            Bound::DecodeBandwidth => "decode bandwidth",
            Bound::Interference => "prefill/decode interference",
            Bound::Queueing => "queueing",
            Bound::PrefillCompute => "prefill compute",
            Bound::Cost => "cost",
            Bound::GpuBudget => "GPU budget",
        }
    }

    /// Whether the article's "safe zone" side holds it: memory or the scheduler, not compute.
    pub fn is_memory_or_scheduling(self) -> bool {
        matches!(self, Bound::Weights | Bound::KvMemory | Bound::SchedulingCaps)
    }
}

/// The numbers a binding constraint was read from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// Peak KV use, share of the pool.
    pub kv_peak: f64,
    pub peak_running: u64,
    pub max_num_seqs: u32,
    /// `max_num_seqs` is the memory-safe limit: one more sequence of the longest allowed
    /// length would not fit the KV pool.
    pub cap_set_by_memory: bool,
    pub preempted: u64,
    pub oom_restarts: u64,
    /// Requests rejected or timed out, share of those that ended.
    pub errors: f64,
    pub queue_p99_ms: f64,
    pub prefill_p99_ms: f64,
    pub ttft_p99_ms: f64,
    pub tpot_p50_ms: f64,
    pub tpot_p99_ms: f64,
    /// The strictest TPOT target of any class (0: none).
    pub tpot_target_ms: f64,
}

impl Evidence {
    fn of(r: &ContractReport, s: &Scenario) -> Evidence {
        let m = &r.summary;
        let a = &m.all;
        let ended = (a.requests.completed + a.requests.rejected + a.requests.timed_out + a.requests.failed).max(1);
        let tpot_target = s
            .classes
            .iter()
            .filter_map(|c| c.slo.tpot_ms)
            .chain(r.lines.iter().filter(|l| l.field == "slo.tpot_p99_ms").map(|l| l.target))
            .fold(f64::INFINITY, f64::min);
        let n = f64::from(s.scheduler.max_num_seqs.max(1));
        let cap_set_by_memory = r
            .lines
            .iter()
            .find(|l| l.field == "request_limits.max_concurrency")
            .is_some_and(|l| l.measured * (n + 1.0) / n > l.target);
        Evidence {
            cap_set_by_memory,
            kv_peak: if m.memory.kv_capacity_bytes > 0.0 {
                m.memory.kv_peak_bytes / m.memory.kv_capacity_bytes
            } else {
                0.0
            },
            peak_running: m.memory.peak_running,
            max_num_seqs: s.scheduler.max_num_seqs,
            preempted: a.requests.preempted,
            oom_restarts: a.requests.oom_restarts,
            errors: (a.requests.rejected + a.requests.timed_out + a.requests.failed) as f64 / ended as f64,
            queue_p99_ms: a.queue_ms.p99,
            prefill_p99_ms: a.prefill_ms.p99,
            ttft_p99_ms: a.ttft_ms.p99,
            tpot_p50_ms: a.tpot_ms.p50,
            tpot_p99_ms: a.tpot_ms.p99,
            tpot_target_ms: if tpot_target.is_finite() { tpot_target } else { 0.0 },
        }
    }
}

/// The binding constraint of a failed acceptance run of scenario `s`, with its evidence.
pub fn classify(r: &ContractReport, s: &Scenario) -> (Bound, Evidence) {
    let e = Evidence::of(r, s);
    let failed = |field: &str| r.lines.iter().any(|l| !l.pass && l.field.starts_with(field));
    let latency_failed =
        failed("slo.") || failed("acceptance.min_slo_attainment") || failed("acceptance.max_error_rate");
    let waited = e.errors > 0.0 || e.queue_p99_ms > 0.5 * e.ttft_p99_ms;
    if e.oom_restarts > 0 || e.preempted > 0 || failed("acceptance.min_kv_headroom") || (e.kv_peak >= 0.95 && waited) {
        return (Bound::KvMemory, e);
    }
    if !latency_failed {
        return (Bound::Cost, e);
    }
    let tpot_missed = e.tpot_target_ms > 0.0 && e.tpot_p99_ms > e.tpot_target_ms;
    let caps_full = e.peak_running >= u64::from(e.max_num_seqs);
    if caps_full && waited && !tpot_missed {
        return (Bound::SchedulingCaps, e);
    }
    if tpot_missed {
        return (if e.tpot_p50_ms > e.tpot_target_ms { Bound::DecodeBandwidth } else { Bound::Interference }, e);
    }
    if e.queue_p99_ms >= e.prefill_p99_ms {
        (Bound::Queueing, e)
    } else {
        (Bound::PrefillCompute, e)
    }
}

/// One sentence in English on why `b` bound, with its numbers.
pub fn explain(b: Bound, e: &Evidence) -> String {
    match b {
        Bound::Weights => "the weights and one sequence of the longest allowed length do not fit".into(),
        Bound::KvMemory => format!(
            "the KV pool filled ({:.0}% at peak; {} preemptions, {} OOM restarts): memory, not compute, set the limit",
            e.kv_peak * 100.0,
            e.preempted,
            e.oom_restarts
        ),
        Bound::SchedulingCaps => format!(
            "{} sequences ran at once, the cap max_num_seqs = {}{}, with the KV pool {:.0}% full: requests waited for a slot (queue p99 {:.0} ms)",
            e.peak_running,
            e.max_num_seqs,
            if e.cap_set_by_memory { " (the most sequences of the longest allowed length the KV pool holds)" } else { "" },
            e.kv_peak * 100.0,
            e.queue_p99_ms
        ),
        Bound::DecodeBandwidth => format!(
            "TPOT p50 {:.1} ms > target {:.1} ms: every decode step reads the weights and the batch's KV, too slow for this batch",
            e.tpot_p50_ms, e.tpot_target_ms
        ),
        Bound::Interference => format!(
            "TPOT p50 {:.1} ms meets {:.1} ms but p99 {:.1} ms does not: the steps that carry prompts stall the decodes",
            e.tpot_p50_ms, e.tpot_target_ms, e.tpot_p99_ms
        ),
        Bound::Queueing => format!(
            "TTFT p99 {:.0} ms, of which waiting {:.0} ms (p99): arrivals outrun the replica",
            e.ttft_p99_ms, e.queue_p99_ms
        ),
        Bound::PrefillCompute => format!(
            "TTFT p99 {:.0} ms, of which prefill {:.0} ms (p99): the prompts take too long on this hardware",
            e.ttft_p99_ms, e.prefill_p99_ms
        ),
        Bound::Cost => "every latency target held; the price per good token or the goodput floor did not".into(),
        Bound::GpuBudget => "more GPUs than the search may use".into(),
    }
}
