//! Every translation key the models name (`src/panels`, `src/charts`, `src/tabs`, the editor's
//! and the messages' words: the lines' labels, the definitions, the words they build) exists in
//! English and Chinese, with the same placeholders. The browser test of the tables only reads
//! `app/src`.

use std::collections::BTreeMap;
use std::path::Path;

fn table(locale: &str) -> BTreeMap<String, String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../app/i18n");
    let mut all = BTreeMap::new();
    for part in ["ui", "features", "lessons"] {
        let path = dir.join(format!("{part}.{locale}.json"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let map: BTreeMap<String, String> =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        all.extend(map);
    }
    all
}

/// The quoted strings of the models' sources that look like keys of the tables' namespaces.
fn keys_named(spaces: &[&str]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("src/editor.rs"), root.join("src/words.rs"), root.join("src/link.rs")];
    for dir in ["src/panels", "src/charts", "src/tabs", "src/tabs/exercise", "src/tabs/contract"] {
        for entry in std::fs::read_dir(root.join(dir)).expect("source folder") {
            files.push(entry.expect("entry").path());
        }
    }
    {
        for path in files.into_iter().filter(|p| p.extension().is_some_and(|e| e == "rs")) {
            let text = std::fs::read_to_string(&path).expect("source");
            // the code, not its comments
            let text: String =
                text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
            for (i, quoted) in text.split('"').enumerate() {
                let key_shaped = i % 2 == 1
                    && quoted.split_once('.').is_some_and(|(space, rest)| {
                        spaces.contains(&space)
                            && rest.ends_with(|c: char| c.is_ascii_alphanumeric())
                            && rest.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_.-".contains(c))
                    });
                if key_shaped {
                    out.push((path.file_name().expect("name").to_string_lossy().into_owned(), quoted.to_string()));
                }
            }
        }
    }
    out
}

fn placeholders(s: &str) -> Vec<&str> {
    let mut out: Vec<&str> = s.split('{').skip(1).filter_map(|p| p.split_once('}').map(|(name, _)| name)).collect();
    out.sort_unstable();
    out
}

#[test]
fn every_key_the_models_name_exists_in_both_languages() {
    let (en, zh) = (table("en"), table("zh"));
    let spaces = [
        "metrics", "hbm", "chart", "a11y", "replicas", "trust", "def", "panels", "features", "ctl", "msg", "lessons",
        "share",
    ];
    let keys = keys_named(&spaces);
    assert!(keys.len() > 60, "the models name their words: {}", keys.len());
    for (file, key) in keys {
        let (Some(e), Some(z)) = (en.get(&key), zh.get(&key)) else { panic!("{file}: {key} is not in both tables") };
        assert_eq!(placeholders(e), placeholders(z), "{key}");
    }
}

#[test]
fn every_metric_is_defined_in_both_languages() {
    let (en, zh) = (table("en"), table("zh"));
    for m in sim_core::Metric::all() {
        let key = app_model::panels::defs::of_metric(m);
        assert!(en.contains_key(&key) && zh.contains_key(&key), "{m}: its definition {key} is not in both tables");
    }
    // the panels' own definition keys are the metrics' where they name one
    use app_model::panels::defs;
    use sim_core::metric::{Count, Metric};
    assert_eq!(defs::of_metric(Metric::TTFT_P99), defs::TTFT);
    assert_eq!(defs::of_metric(Metric::Requests(Count::OomRestarts)), defs::OOM);
    assert_eq!(defs::of_metric(Metric::UsdPerMillionGoodTokens), defs::COST_GOOD);
}

#[test]
fn the_runs_table_names_and_formats_each_metric_as_the_panels_do() {
    use app_model::format;
    use app_model::tabs::explain::{class_value, CLASS_ROWS, ROWS};
    use sim_core::metric::{Count, Metric};
    let (en, zh) = (table("en"), table("zh"));
    for row in ROWS.iter().chain(&CLASS_ROWS) {
        let key = row.label();
        assert!(en.contains_key(key) && zh.contains_key(key), "{}: no name in both tables", row.metric);
    }
    for (m, key) in app_model::panels::defs::NAMES {
        assert!(en.contains_key(key) && zh.contains_key(key), "{m}: {key}");
    }
    // a run whose numbers are known
    let mut s = sim_core::Summary::default();
    s.all.ttft_ms.count = 3;
    s.all.ttft_ms.p99 = 1847.6;
    s.all.requests.oom_restarts = 1200;
    s.memory.kv_peak_bytes = 2.5 * (1u64 << 30) as f64;
    let value = |m: Metric| ROWS.iter().find(|r| r.metric == m).expect("a row").value(&s);
    assert_eq!(value(Metric::TTFT_P99), format::dist_ms(3, 1847.6));
    assert_eq!(value(Metric::Requests(Count::OomRestarts)), "1,200");
    assert_eq!(value(Metric::KvPeakBytes), format::gib(s.memory.kv_peak_bytes));
    assert_eq!(value(Metric::TPOT_P99), format::NONE, "nothing counted");
    assert_eq!(class_value(&CLASS_ROWS[0], &s, "chat"), format::NONE, "no such class");
}
