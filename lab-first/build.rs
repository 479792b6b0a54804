//! The stage's words in both languages, taken from the page's translation tables
//! (`app/i18n/ui.{en,zh}.json`, keys `stage.*`): the first-frame module carries only these.

use std::fmt::Write as _;

fn table(locale: &str) -> serde_json::Map<String, serde_json::Value> {
    let path = format!("../app/i18n/ui.{locale}.json");
    println!("cargo:rerun-if-changed={path}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    match serde_json::from_str(&text) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => panic!("{path}: not a JSON object of texts"),
    }
}

fn main() {
    let (en, zh) = (table("en"), table("zh"));
    let mut out =
        String::from("/// (key, English, Chinese), sorted by key.\npub static WORDS: &[(&str, &str, &str)] = &[\n");
    let mut keys: Vec<&String> = en.keys().filter(|k| k.starts_with("stage.")).collect();
    keys.sort();
    assert!(!keys.is_empty(), "no stage.* keys in ui.en.json");
    for k in keys {
        let zh = zh.get(k).and_then(|v| v.as_str()).unwrap_or_else(|| panic!("ui.zh.json lacks {k}"));
        let en = en[k].as_str().unwrap_or_else(|| panic!("ui.en.json: {k} is not a text"));
        writeln!(out, "    ({k:?}, {en:?}, {zh:?}),").unwrap();
    }
    out.push_str("];\n");
    let dest = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("words.rs");
    std::fs::write(dest, out).unwrap();
}
