//! The starting points of the mutations: every built-in preset, every complete example of
//! docs/scenario.md, a valid share link of each (the whole form, version 1, and the short one,
//! version 2: a preset and what differs), and the built-in traces under the trace preset.

use crate::input::{Input, TRACE_PATH};
use sim_core::presets::PRESETS;
use sim_core::workload::BUILTIN_TRACES;
use sim_core::Scenario;

/// Requests per class in a seed: the presets send thousands, which would make each fuzz run
/// slow; mutations still reach any count (see `RunLimits` for how big runs are bounded).
pub const SEED_REQUESTS: u64 = 120;

/// The documentation the examples come from.
const SCENARIO_DOC: &str = include_str!("../../docs/scenario.md");

/// Every ```json block of docs/scenario.md (fragments included: donors for splices).
pub fn doc_blocks() -> Vec<&'static str> {
    SCENARIO_DOC.split("```json").skip(1).filter_map(|b| b.split("```").next()).collect()
}

/// The complete examples of docs/scenario.md.
pub fn doc_examples() -> Vec<&'static str> {
    doc_blocks().into_iter().filter(|b| b.trim_start().starts_with("{\n  \"version\"")).collect()
}

/// `json` with every class's `num_requests` capped at `SEED_REQUESTS`.
fn small(json: &str) -> String {
    let Ok(mut v) = serde_json::from_str::<serde_json::Value>(json) else { return json.to_string() };
    if let Some(classes) = v.get_mut("classes").and_then(|c| c.as_array_mut()) {
        for c in classes {
            if let Some(n) = c.get_mut("num_requests") {
                if n.as_u64().is_some_and(|n| n > SEED_REQUESTS) {
                    *n = SEED_REQUESTS.into();
                }
            }
        }
    }
    serde_json::to_string_pretty(&v).unwrap_or_else(|_| json.to_string())
}

/// The scenario JSON of trace inputs: the trace preset, reading the fuzzed CSV.
pub fn trace_scenario() -> String {
    let json = sim_core::presets::find("sharegpt-replay").map(|p| p.json).unwrap_or("{}");
    let mut v: serde_json::Value = serde_json::from_str(json).unwrap_or_default();
    if let Some(a) = v.pointer_mut("/classes/0/arrival/path") {
        *a = TRACE_PATH.into();
    }
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

/// The seed inputs, named.
pub fn seeds() -> Vec<(String, Input)> {
    let mut out = Vec::new();
    let mut scenarios = Vec::new();
    for p in PRESETS {
        scenarios.push((format!("preset-{}", p.id), small(p.json)));
    }
    for (i, ex) in doc_examples().into_iter().enumerate() {
        scenarios.push((format!("doc-example-{i}"), small(ex)));
    }
    for (name, json) in &scenarios {
        out.push((name.clone(), Input::Scenario(json.clone())));
    }
    // Share links: each scenario alone, and one with every optional part of the state.
    for (name, json) in &scenarios {
        if let Ok(s) = Scenario::from_json(json) {
            out.push((format!("link-{name}"), Input::Share(crate::input::encode_link(&state_json(&s, None)))));
            out.push((format!("short-link-{name}"), Input::Share(short_link(&state_json(&s, None)))));
        }
    }
    if let (Ok(a), Ok(b)) =
        (Scenario::from_json(&scenarios[0].1), Scenario::from_json(&scenarios[scenarios.len() / 2].1))
    {
        out.push(("link-full-state".into(), Input::Share(crate::input::encode_link(&state_json(&a, Some(&b))))));
        out.push(("short-link-full-state".into(), Input::Share(short_link(&state_json(&a, Some(&b))))));
    }
    let trace_json = trace_scenario();
    for (name, csv) in BUILTIN_TRACES {
        out.push((format!("trace-{name}"), Input::Trace { scenario: trace_json.clone(), csv: csv.to_string() }));
    }
    // the first built-in trace as conversations: rows three by three share a `session_id`; then
    // the same after one of three shared prefixes, each row naming its group
    if let Some((name, text)) = BUILTIN_TRACES.first() {
        let lines = text.lines().enumerate().map(|(i, l)| match i {
            0 => format!("{l},session_id"),
            _ => format!("{l},{}", (i - 1) / 3),
        });
        let csv = lines.collect::<Vec<_>>().join("\n");
        out.push((format!("trace-sessions-{name}"), Input::Trace { scenario: trace_json.clone(), csv }));
        let lines = text.lines().enumerate().map(|(i, l)| match i {
            0 => format!("{l},prefix_group,session_id"),
            _ => format!("{l},{},{}", (i - 1) % 3, (i - 1) / 3),
        });
        let csv = lines.collect::<Vec<_>>().join("\n");
        let mut v: serde_json::Value = serde_json::from_str(&trace_json).unwrap_or_default();
        if let Some(c) = v.pointer_mut("/classes/0") {
            c["prefix"] = serde_json::json!({ "shared_tokens": 200, "groups": 3 });
        }
        let scenario = serde_json::to_string_pretty(&v).unwrap_or_default();
        out.push((format!("trace-sessions-prefix-{name}"), Input::Trace { scenario, csv }));
    }
    out
}

/// The short (version-2) link of a state JSON, as the lab writes it.
fn short_link(state_json: &str) -> String {
    sim_core::share::encode(&serde_json::from_str::<serde_json::Value>(state_json).unwrap_or_default())
}

/// The JSON of a share state holding `scenario` (and a comparison, lesson, step, locks).
fn state_json(scenario: &Scenario, compare: Option<&Scenario>) -> String {
    let mut v = serde_json::json!({ "scenario": scenario });
    if let Some(c) = compare {
        v["compare"] = serde_json::json!(c);
        v["lesson"] = "mean-hides-tail".into();
        v["step"] = 2.into();
        v["locked"] = serde_json::json!(["scheduler.max_num_seqs", "seed"]);
        v["exercise"] = "chat-cheapest".into();
        v["locale"] = "zh".into();
    }
    v.to_string()
}

/// Words for string and key mutations: every key and string of the seeds, and the enum names.
pub fn dictionary(seeds: &[(String, Input)]) -> Vec<String> {
    let mut words: Vec<String> = [
        "paged",
        "contiguous",
        "static",
        "continuous",
        "poisson",
        "bursty",
        "closed_loop",
        "trace",
        "fixed",
        "uniform",
        "lognormal",
        "bf16",
        "fp16",
        "fp8",
        "int8",
        "sharegpt300_llama3.csv",
        "sharegpt300_qwen3.csv",
        TRACE_PATH,
        "compare",
        "lesson",
        "step",
        "locked",
        "exercise",
        "kv_dtype",
        "engine",
        "mfu",
        "reserved_share",
        "max_concurrency",
        "overcommit",
        "retry_on_oom",
        "restart_s",
        "batch_timeout_ms",
        "speedup",
        "locale",
        "en",
        "zh",
        "mixed-20",
        "chat-cheapest",
        "preset",
        "diff",
        "scheduler.max_num_seqs",
        "classes[0].arrival.rate_per_s",
        "classes[1].slo.ttft_ms",
        "classes[9]",
        "seed",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for block in doc_blocks() {
        collect_words(&serde_json::from_str(block).unwrap_or_default(), &mut words);
    }
    for (_, input) in seeds {
        if let Input::Scenario(j) = input {
            collect_words(&serde_json::from_str(j).unwrap_or_default(), &mut words);
        }
    }
    words.extend(PRESETS.iter().map(|p| p.id.to_string()));
    words.sort();
    words.dedup();
    words
}

fn collect_words(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| collect_words(x, out)),
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                out.push(k.clone());
                collect_words(x, out);
            }
        }
        _ => {}
    }
}
