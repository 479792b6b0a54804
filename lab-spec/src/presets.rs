//! Built-in scenarios: the strategies and the article's high-risk configurations, ready to run.

use crate::scenario::Scenario;

/// A named scenario shipped with the lab.
pub struct Preset {
    pub id: &'static str,
    /// One line: what it shows.
    pub summary: &'static str,
    pub json: &'static str,
}

macro_rules! preset {
    ($id:literal, $summary:literal) => {
        Preset { id: $id, summary: $summary, json: include_str!(concat!("../presets/", $id, ".json")) }
    };
}

pub const PRESETS: &[Preset] = &[
    preset!("chat-latency-first", "latency-first chat: small batches, short queue, reject on timeout"),
    preset!("batch-throughput-first", "throughput-first documents: queue everything, batch to the limit"),
    preset!("static-batching", "static batching: collect a batch, run it to completion, free it at once"),
    preset!("continuous-batching", "the same traffic with continuous (iteration-level) batching"),
    preset!("mixed-shared", "high risk: chat and batch traffic in one shared FCFS queue (tail explodes)"),
    preset!("mixed-isolated", "the same mixed traffic with isolated, prioritised queues"),
    preset!(
        "risk-oom-full-memory",
        "high risk: 95% memory utilisation, over-committed admission, high concurrency (OOM restarts)"
    ),
    preset!("risk-context-too-large", "high risk: 32k context limit with contiguous KV reservation (fragmentation)"),
    preset!(
        "risk-strict-slo",
        "high risk: continuous batching to the limit under a strict SLO (throughput up, goodput down)"
    ),
    preset!("sharegpt-replay", "replay of 300 real ShareGPT requests on Llama-3.1-8B"),
    preset!("prefix-caching", "chat whose prompts start with one of 4 shared system prompts, prefix caching on"),
    preset!(
        "cluster-prefix-affinity",
        "4 replicas behind a prefix-affinity router: 96 shared documents, each kept cached on one replica"
    ),
    preset!(
        "multi-turn-chat",
        "4 replicas serve multi-turn conversations: each turn resends the history, prefix affinity keeps it cached"
    ),
    preset!("deepseek-v3-h200", "a 2026 model: DeepSeek-V3 (MLA, 256 small experts) on 8 × H200 in fp8"),
    preset!(
        "disaggregated",
        "prefill/decode disaggregation: 2 prefill + 2 decode H100s, prompts' KV over 50 GB/s links"
    ),
    preset!(
        "speculative",
        "speculative decoding: 4 draft tokens from an EAGLE-style head, accepted at 0.8, four users"
    ),
];

/// The scenario the lab opens on.
pub const DEFAULT_PRESET: &str = "chat-latency-first";

pub fn find(id: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.id == id)
}

impl Preset {
    pub fn scenario(&self) -> Scenario {
        Scenario::from_json(self.json).unwrap_or_else(|e| panic!("built-in preset {} is invalid: {e}", self.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_parses_and_round_trips() {
        // that each one runs is sim-core's tests/golden.rs
        for p in PRESETS {
            let s = p.scenario();
            let again = Scenario::from_json(&s.to_json_pretty()).unwrap();
            assert_eq!(again, s, "{}", p.id);
        }
        assert!(find(DEFAULT_PRESET).is_some());
    }
}
