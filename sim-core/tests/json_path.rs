//! The field a malformed document's message names: `sim_core::json_path` (a scan of the text at
//! serde_json's error position) must name the same path as `serde_path_to_error` (which tracks
//! the path while deserializing) with the same message, for every preset, the documented
//! examples and the example contract under many seeded mutations.

use lab_content::contract::Contract;
use serde::de::DeserializeOwned;
use serde_json::Value;
use sim_core::json_path;
use sim_core::share::SharedRun;
use sim_core::Scenario;

/// What serde_path_to_error says: the path and serde_json's message (with its position).
fn tracked<T: DeserializeOwned>(text: &str) -> Result<(), (String, String)> {
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize::<_, T>(de)
        .map(|_| ())
        .map_err(|e| (e.path().to_string(), e.into_inner().to_string()))
}

fn scanned<T: DeserializeOwned>(text: &str) -> Result<(), (String, String)> {
    json_path::from_str::<T>(text).map(|_| ()).map_err(|(p, e)| (p, e.to_string()))
}

fn same<T: DeserializeOwned>(text: &str, what: &str) -> bool {
    let want = tracked::<T>(text);
    let got = scanned::<T>(text);
    assert_eq!(got, want, "{what}: the scanned path differs for\n{text}");
    want.is_err()
}

/// The share link's second form deserializes an expanded `Value` and names the field by scanning
/// the value as compact text (as `share::decode` does).
fn same_value<T: DeserializeOwned>(v: &Value, what: &str) {
    let want = serde_path_to_error::deserialize::<_, T>(v.clone())
        .map(|_| ())
        .map_err(|e| (e.path().to_string(), e.into_inner().to_string()));
    let got = serde_json::from_value::<T>(v.clone()).map(|_| ()).map_err(|e| {
        let path = json_path::from_str::<T>(&v.to_string()).err().map_or_else(String::new, |(p, _)| p);
        (path, e.to_string())
    });
    assert_eq!(got, want, "{what}: the scanned path differs for the value\n{v}");
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Every node of `v` as a JSON pointer.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => m.iter().for_each(|(k, x)| pointers(x, format!("{at}/{k}"), out)),
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| pointers(x, format!("{at}/{i}"), out)),
        _ => {}
    }
}

const WRONG: [&str; 12] =
    ["\"x\"", "7", "-1", "1.5", "true", "null", "[]", "{}", "[1]", "{\"a\":1}", "1e400", "18446744073709551616"];

/// One seeded mutation of `base`, as a value (for the structural ones) or text.
fn mutate(base: &Value, rng: &mut Rng) -> Value {
    let mut v = base.clone();
    let mut ptrs = Vec::new();
    pointers(&v, String::new(), &mut ptrs);
    let p = ptrs[rng.below(ptrs.len())].clone();
    let kind = rng.below(4);
    let node = v.pointer_mut(&p).expect("pointer from the tree");
    match (kind, node) {
        (0, n) => {
            let w = WRONG[rng.below(WRONG.len() - 2)];
            *n = serde_json::from_str(w).unwrap();
        }
        (1, Value::Object(m)) => {
            m.insert("no_such_field".into(), Value::from(1));
        }
        (2, Value::Object(m)) if !m.is_empty() => {
            let k = m.keys().nth(rng.below(m.len())).unwrap().clone();
            m.remove(&k);
        }
        (3, n @ Value::String(_)) => *n = Value::from("no_such_variant"),
        (_, n) => *n = Value::from("no_such_variant"),
    }
    v
}

/// Text-level mutations of `text`: truncations, a wrong literal or a stray character.
fn mutate_text(text: &str, rng: &mut Rng) -> String {
    let b = text.as_bytes();
    let at = rng.below(b.len() + 1);
    let at = (0..=at).rev().find(|&i| text.is_char_boundary(i)).unwrap();
    match rng.below(4) {
        0 => text[..at].to_string(),
        1 => {
            let junk = [",", "}", "]", ":", "\"", "x", "[", "{", " ", "1", "tru", "-"];
            format!("{}{}{}", &text[..at], junk[rng.below(junk.len())], &text[at..])
        }
        2 => {
            let n = rng.below(3) + 1;
            let end = (at + n).min(b.len());
            let end = (end..=b.len()).find(|&i| text.is_char_boundary(i)).unwrap();
            format!("{}{}", &text[..at], &text[end..])
        }
        _ => {
            // A value replaced by a wrong literal in the text as it is formatted.
            let w = WRONG[rng.below(WRONG.len())];
            match text[at..].find([',', '\n']) {
                Some(k) => {
                    let start = text[..at].rfind(':').map_or(at, |s| s + 1);
                    format!("{}{}{}", &text[..start], w, &text[at + k..])
                }
                None => text[..at].to_string(),
            }
        }
    }
}

fn documents() -> Vec<(String, String)> {
    let mut docs: Vec<(String, String)> =
        sim_core::presets::PRESETS.iter().map(|p| (format!("preset {}", p.id), p.json.to_string())).collect();
    let doc = include_str!("../../docs/scenario.md");
    for (i, block) in doc.split("```json").skip(1).enumerate() {
        let json = block.split("```").next().unwrap();
        if json.trim_start().starts_with("{\n  \"version\"") {
            docs.push((format!("docs/scenario.md example {i}"), json.to_string()));
        }
    }
    docs
}

fn fuzz<T: DeserializeOwned>(name: &str, text: &str, seed: u64, rounds: usize) -> usize {
    let base: Value = serde_json::from_str(text).unwrap();
    let mut rng = Rng(seed);
    let mut errors = 0;
    for round in 0..rounds {
        let what = format!("{name}, round {round}");
        let v = mutate(&base, &mut rng);
        for t in [serde_json::to_string(&v).unwrap(), serde_json::to_string_pretty(&v).unwrap()] {
            errors += same::<T>(&t, &what) as usize;
        }
        same_value::<T>(&v, &what);
        for t in [text.to_string(), serde_json::to_string(&base).unwrap()] {
            errors += same::<T>(&mutate_text(&t, &mut rng), &what) as usize;
        }
    }
    errors
}

#[test]
fn scanned_paths_match_tracked_paths_for_mutated_scenarios() {
    let mut errors = 0;
    for (k, (name, text)) in documents().iter().enumerate() {
        assert!(!same::<Scenario>(text, name), "{name} parses");
        errors += fuzz::<Scenario>(name, text, 0x5eed + k as u64, 300);
    }
    // The mutations mostly break the documents: the comparison is about errors.
    assert!(errors > 10_000, "only {errors} mutated documents failed");
}

#[test]
fn scanned_paths_match_tracked_paths_for_mutated_contracts_and_links() {
    let errors = fuzz::<Contract>("contract", lab_content::contract::EXAMPLE, 77, 600);
    assert!(errors > 1_000, "only {errors} mutated contracts failed");
    let run = format!(
        "{{\"scenario\":{},\"compare\":{}}}",
        sim_core::presets::PRESETS[0].json,
        sim_core::presets::PRESETS[1].json
    );
    fuzz::<SharedRun>("shared run", &run, 78, 300);
}

/// Cases written out, with the path serde_path_to_error gives (checked against it too).
#[test]
fn hand_written_cases_name_the_field() {
    let base = sim_core::presets::PRESETS[0].json;
    let cases: Vec<(String, &str)> = vec![
        ("".into(), "."),
        ("   ".into(), "."),
        ("{".into(), "?"),
        ("[]".into(), "."),
        ("{}".into(), "."),
        ("7".into(), "."),
        ("{\"version\":1,".into(), "?"),
        ("{\"version\":".into(), "version"),
        ("{\"version\"".into(), "."),
        ("{\"version\" 1}".into(), "."),
        ("{\"nope\":1}".into(), "nope"),
        ("{\"version\":\"1\"}".into(), "version"),
        (base.replacen("\"max_num_seqs\": ", "\"max_num_seqs\": -", 1), "scheduler.max_num_seqs"),
        (base.replacen("\"max_num_seqs\": ", "\"max_num_seqs\": \"many\", \"x\": ", 1), "scheduler.max_num_seqs"),
        (base.replacen("\"batching\": \"", "\"batching\": \"no_", 1), "scheduler.batching"),
        (base.replacen("\"scheduler\": {", "\"scheduler\": {\"bogus\": 1,", 1), "scheduler.bogus"),
        (base.replacen("\"rate_per_s\": ", "\"rate_per_s\": \"fast\", \"r\": ", 1), "classes[0].arrival"),
        (base.replacen("\"kind\": \"", "\"kind\": \"no_", 1), "classes[0].arrival.kind"),
        (base[..base.len() / 2].to_string(), ""),
    ];
    for (text, want) in &cases {
        let want_err = tracked::<Scenario>(text).expect_err(text);
        if !want.is_empty() {
            assert_eq!(&want_err.0, want, "serde_path_to_error for\n{text}");
        }
        assert_eq!(scanned::<Scenario>(text).unwrap_err(), want_err, "{text}");
    }
    // The public scanner on its own: a value's error at its end, an unknown key after the key.
    assert_eq!(json_path::path_at("{\"a\": [1, {\"b\": true}]}", 1, 20, false), "a[1].b");
    assert_eq!(json_path::path_at("{\"a\": {\"b\": 1}, \"c\"", 1, 19, false), "c");
    assert_eq!(json_path::path_at("{\"a\": [1, ", 1, 10, true), "a");
    assert_eq!(json_path::path_at("{\"a\": [1, }", 1, 11, true), "a[1]");
    assert_eq!(json_path::path_at("{\"a\": 1 x", 1, 9, true), "?");
}

/// The messages the lab shows keep their form: the field, then serde_json's text.
#[test]
fn messages_name_the_field_and_keep_the_position() {
    let base = sim_core::presets::PRESETS[0].json;
    let bad = base.replacen("\"max_num_seqs\": ", "\"max_num_seqs\": -", 1);
    let e = Scenario::from_json(&bad).unwrap_err();
    assert_eq!(e.errors.len(), 1);
    assert_eq!(e.errors[0].field, "scheduler.max_num_seqs");
    assert!(e.to_string().contains(" at line "), "{e}");
    let e = Scenario::from_json("{}").unwrap_err();
    assert_eq!(e.errors[0].field, "");
}
