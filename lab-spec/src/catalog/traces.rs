//! The request traces shipped with the lab (`lab-spec/traces/`), by file name.

/// Traces shipped with the lab, usable by name in `arrival.path`.
pub const BUILTIN_TRACES: &[(&str, &str)] = &[
    ("sharegpt300_llama3.csv", include_str!("../../traces/sharegpt300_llama3.csv")),
    ("sharegpt300_qwen3.csv", include_str!("../../traces/sharegpt300_qwen3.csv")),
];

pub fn builtin_trace(path: &str) -> Option<&'static str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    BUILTIN_TRACES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}
