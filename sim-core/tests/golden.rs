//! Golden summaries: every preset and every complete example of docs/scenario.md, as the JSON
//! the CLI prints, compared byte for byte with `tests/golden/*.json` (the lessons' runs are
//! lab-content's `tests/golden.rs`).
//!
//! A change that moves numbers on purpose regenerates them with
//! `UPDATE_GOLDEN=1 cargo test -p sim-core --test golden` and says why in its commit.

mod common;
use sim_core::presets::PRESETS;
use sim_core::Scenario;
use std::path::PathBuf;

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Every (name, summary JSON) pair the golden files hold.
fn cases() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for p in PRESETS {
        let sum = common::run(&p.scenario());
        out.push((format!("preset-{}", p.id), serde_json::to_string_pretty(&sum).unwrap()));
    }
    let doc = include_str!("../../docs/scenario.md");
    for (i, block) in doc.split("```json").skip(1).enumerate() {
        let json = block.split("```").next().unwrap();
        if !json.trim_start().starts_with("{\n  \"version\"") {
            continue;
        }
        let s = Scenario::from_json(json).unwrap_or_else(|e| panic!("doc example {i}: {e}"));
        let sum = common::run(&s);
        out.push((format!("doc-scenario-{i}"), serde_json::to_string_pretty(&sum).unwrap()));
    }
    out
}

#[test]
fn summaries_equal_the_golden_files() {
    let dir = golden_dir();
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let cases = cases();
    assert!(cases.len() >= PRESETS.len() + 4);
    let mut differ = Vec::new();
    for (name, json) in &cases {
        let path = dir.join(format!("{name}.json"));
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, format!("{json}\n")).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("missing {}", path.display()));
        if want.trim_end() != json {
            differ.push(name.clone());
        }
    }
    // no stale files: every golden file belongs to a case
    let names: Vec<String> = cases.iter().map(|(n, _)| format!("{n}.json")).collect();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let f = entry.unwrap().file_name().into_string().unwrap();
        assert!(names.contains(&f), "stale golden file {f}");
    }
    assert!(differ.is_empty(), "summaries differ from tests/golden for: {differ:?}");
}
