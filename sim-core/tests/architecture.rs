//! What each layer must not know, enforced where a test can: lab-spec, sim-core, lab-content and
//! app-model depend on no web or UI crate; lab-spec (the vocabulary) depends on no crate of the
//! workspace and on nothing that simulates; the engine (sim-core) depends on no crate above it;
//! the sources of the three model crates mention no page concern (locale, translations, test ids,
//! the view library, the DOM) in their code and use no clock or I/O.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Crates of the browser and of UI frameworks (a name equal to one, or starting with one that
/// ends in `*`).
const WEB_OR_UI: &[&str] = &[
    "leptos*",
    "web-sys",
    "js-sys",
    "wasm-bindgen*",
    "gloo*",
    "console_error_panic_hook",
    "console_log",
    "tracing-wasm",
    "wasm-logger",
    "yew*",
    "dioxus*",
    "sycamore*",
    "egui*",
    "eframe",
];

fn is_web_or_ui(name: &str) -> bool {
    let name = name.replace('_', "-");
    WEB_OR_UI.iter().any(|p| {
        let p = p.replace('_', "-");
        match p.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => name == p,
        }
    })
}

/// The names of every dependency a manifest declares: `[dependencies]`, `[dev-dependencies]`,
/// `[build-dependencies]`, their `[target.….dependencies]` forms, and `[dependencies.NAME]`
/// tables.
fn dependencies(manifest: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.starts_with('[') {
            let table = line.trim_matches(|c| c == '[' || c == ']').trim();
            let parts: Vec<&str> = table.split('.').collect();
            let is_dep_table = |p: &str| matches!(p, "dependencies" | "dev-dependencies" | "build-dependencies");
            in_deps = parts.last().is_some_and(|p| is_dep_table(p));
            // [dependencies.NAME] or [target.X.dependencies.NAME]
            if let Some(i) = parts.iter().position(|p| is_dep_table(p)) {
                if i + 1 < parts.len() {
                    out.push(parts[i + 1].trim_matches('"').to_string());
                }
            }
            continue;
        }
        if in_deps {
            if let Some((key, _)) = line.split_once('=') {
                // `name = …` or `name.workspace = true`
                let name = key.trim().split('.').next().unwrap_or("").trim_matches('"');
                if !name.is_empty() {
                    out.push(name.to_string());
                }
            }
        }
    }
    out
}

#[test]
fn the_model_and_the_page_state_depend_on_no_web_or_ui_crate() {
    for krate in ["lab-spec", "sim-core", "lab-content", "app-model"] {
        let path = root().join(krate).join("Cargo.toml");
        let manifest = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let deps = dependencies(&manifest);
        assert!(deps.iter().any(|d| d == "serde"), "{krate}: the manifest reader found no dependency: {deps:?}");
        let web: Vec<&String> = deps.iter().filter(|d| is_web_or_ui(d)).collect();
        assert!(web.is_empty(), "{krate} must not depend on web or UI crates, but depends on {web:?}");
    }
}

/// View frameworks: what the canvas crate and the first-frame module must do without (every byte
/// of the first-frame module is paid before a phone's first frame).
const VIEW_FRAMEWORKS: &[&str] = &["leptos", "reactive", "tachys", "gloo", "yew", "dioxus", "sycamore", "egui"];

#[test]
fn the_canvas_and_the_first_frame_module_depend_on_no_view_framework_and_not_on_the_page() {
    for krate in ["lab-canvas", "lab-first", "plan-worker"] {
        let path = root().join(krate).join("Cargo.toml");
        let manifest = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let deps = dependencies(&manifest);
        assert!(deps.iter().any(|d| d == "app-model"), "{krate}: the manifest reader found no app-model: {deps:?}");
        let views: Vec<&String> = deps
            .iter()
            .filter(|d| d.as_str() == "app" || VIEW_FRAMEWORKS.iter().any(|v| d.replace('_', "-").starts_with(v)))
            .collect();
        assert!(views.is_empty(), "{krate} must draw without a view framework or the page, but depends on {views:?}");
    }
}

#[test]
fn the_manifest_reader_sees_every_form_of_dependency() {
    let toml = r#"
[package]
name = "x"
[dependencies]
serde.workspace = true
leptos = { version = "0.8" }   # a comment
[target.'cfg(target_arch = "wasm32")'.dependencies]
web-sys = "0.3"
[dev-dependencies.wasm-bindgen-test]
version = "0.3"
[features]
default = []
"#;
    let deps = dependencies(toml);
    assert_eq!(deps, ["serde", "leptos", "web-sys", "wasm-bindgen-test"]);
    assert!(deps.iter().skip(1).all(|d| is_web_or_ui(d)));
    assert!(!is_web_or_ui("serde_json") && is_web_or_ui("leptos_router") && is_web_or_ui("console-error-panic-hook"));
}

/// Words of page concerns (matched case-insensitively) and of clocks and I/O.
const PAGE_WORDS: &[&str] =
    &["locale", "data-testid", "testid", "i18n", "leptos", "web_sys", "web-sys", "wasm_bindgen", "js_sys"];
const CLOCK_AND_IO: &[&str] =
    &["std::time", "Instant::", "SystemTime", "std::fs", "std::net", "std::env", "std::io::stdin"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The workspace's crates above the engine: what the lab teaches with it, the page, the tools.
const ABOVE_THE_ENGINE: &[&str] =
    &["lab-content", "app-model", "lab-canvas", "lab-first", "plan-worker", "app", "llmsim", "lab-fuzz"];

/// Crates a simulation is made of: random streams and the latency histograms.
const SIMULATING: &[&str] = &["rand", "rand_distr", "rand_xoshiro", "hdrhistogram"];

#[test]
fn the_vocabulary_depends_on_no_crate_of_the_workspace_and_on_nothing_that_simulates() {
    let manifest = std::fs::read_to_string(root().join("lab-spec/Cargo.toml")).unwrap();
    let deps = dependencies(manifest.split("[dev-dependencies]").next().unwrap());
    assert!(deps.iter().any(|d| d == "serde"), "the manifest reader found no dependency: {deps:?}");
    let ours: Vec<&String> =
        deps.iter().filter(|d| d.as_str() == "sim-core" || ABOVE_THE_ENGINE.contains(&d.as_str())).collect();
    assert!(ours.is_empty(), "lab-spec is the ground floor, but depends on {ours:?}");
    let sim: Vec<&String> = deps.iter().filter(|d| SIMULATING.contains(&d.as_str())).collect();
    assert!(sim.is_empty(), "lab-spec runs no simulation, but depends on {sim:?}");
    let engine = std::fs::read_to_string(root().join("sim-core/Cargo.toml")).unwrap();
    let engine_deps = dependencies(engine.split("[dev-dependencies]").next().unwrap());
    assert!(engine_deps.iter().any(|d| d == "lab-spec"), "sim-core is built on lab-spec: {engine_deps:?}");
}

#[test]
fn the_engine_depends_on_no_crate_above_it() {
    let path = root().join("sim-core/Cargo.toml");
    let manifest = std::fs::read_to_string(&path).unwrap();
    // what the library itself is built with: the tables before [dev-dependencies] (consistency
    // tests may hold the vocabulary against the lessons')
    let normal = manifest.split("[dev-dependencies]").next().unwrap();
    let deps = dependencies(normal);
    assert!(deps.iter().any(|d| d == "hdrhistogram"), "the manifest reader found no dependency: {deps:?}");
    let above: Vec<&String> = deps.iter().filter(|d| ABOVE_THE_ENGINE.contains(&d.as_str())).collect();
    assert!(above.is_empty(), "sim-core must not depend on {above:?}: lessons, pages and tools are built on it");
    let content = std::fs::read_to_string(root().join("lab-content/Cargo.toml")).unwrap();
    let content_deps = dependencies(&content);
    assert!(content_deps.iter().any(|d| d == "sim-core"), "lab-content is built on sim-core: {content_deps:?}");
    let up: Vec<&String> = content_deps.iter().filter(|d| ABOVE_THE_ENGINE.contains(&d.as_str())).collect();
    assert!(up.is_empty(), "lab-content must not depend on the page or the tools: {up:?}");
}

#[test]
fn the_model_mentions_no_page_concern_and_uses_no_clock_or_io() {
    let mut files = Vec::new();
    for krate in ["lab-spec/src", "sim-core/src", "lab-content/src"] {
        let before = files.len();
        rust_files(&root().join(krate), &mut files);
        assert!(files.len() >= before + 8, "found only {} source files in {krate}", files.len() - before);
    }
    files.sort();
    let root = root();
    let mut hits = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, full) in text.lines().enumerate() {
            // code only: a comment may say what the model does not know
            let line = full.split("//").next().unwrap_or("");
            let lower = line.to_lowercase();
            let page = PAGE_WORDS.iter().filter(|w| lower.contains(*w));
            let io = CLOCK_AND_IO.iter().filter(|w| line.contains(*w));
            for w in page.chain(io) {
                let name = f.strip_prefix(&root).unwrap_or(f).display();
                hits.push(format!("{name}:{}: \"{w}\": {}", n + 1, full.trim()));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "lab-spec, sim-core and lab-content are the model: no page concerns (they live in app-model or app), no clock, no I/O:\n{}",
        hits.join("\n")
    );
}
