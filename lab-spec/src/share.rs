//! Shared links: a versioned, URL-safe envelope for any state, and the model's part of a link —
//! the scenario (it carries its seed, and the simulation is deterministic, so a link reproduces
//! the same numbers) and the second scenario of an A/B comparison.
//!
//! Format: `<version>.<base64url(JSON)>`. An unreadable string, or one from a newer version, is
//! an error with a message. What else a page puts in the JSON (the open lesson, the language) is
//! the page's business: [`SharedRun`] reads its part and ignores the rest.
//!
//! * Version 1 (`1.eyJzY2VuYXJpbyI6...`): the state's JSON as it is, whole scenarios included
//!   (about 2,100 characters for one preset). Still read, unchanged.
//! * Version 2 (what [`encode`] writes): the same object, but a scenario field (`scenario`,
//!   `compare`) may be short: `{"preset": "<preset id>", "diff": {"<path>": value, …}}` — the
//!   built-in preset it is closest to and the values that differ from it, by JSON path as
//!   validation names fields (`classes[0].arrival.rate_per_s`, `scheduler.max_num_seqs`;
//!   `null` removes an optional value; an array whose length changed is given whole). The
//!   encoder picks the preset with the shortest diff (ties: the first in `presets::PRESETS`), or
//!   keeps the scenario whole when that is shorter, so the same state always gives the same
//!   link. On reading, an unknown preset, a path the preset does not have, or a value of the
//!   wrong type is a message naming the field.

use crate::presets;
use crate::scenario::Scenario;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The version [`encode`] writes; [`decode`] reads this one and every older one.
pub const SHARE_VERSION: u32 = 2;

/// The fields of a state that hold a scenario (and may be short in version 2).
pub const SCENARIO_FIELDS: [&str; 2] = ["scenario", "compare"];

/// `state` as `2.<base64url(JSON)>`, its scenarios short (a preset and what differs from it).
pub fn encode<T: Serialize>(state: &T) -> String {
    let mut json = serde_json::to_value(state).expect("state serialises");
    if let Value::Object(fields) = &mut json {
        for f in SCENARIO_FIELDS {
            if let Some(s) = fields.get_mut(f) {
                *s = shorten(s);
            }
        }
    }
    format!("{SHARE_VERSION}.{}", URL_SAFE_NO_PAD.encode(json.to_string().as_bytes()))
}

/// `state` as a version-1 link (whole scenarios), as the lab wrote them before version 2.
pub fn encode_v1<T: Serialize>(state: &T) -> String {
    let json = serde_json::to_string(state).expect("state serialises");
    format!("1.{}", URL_SAFE_NO_PAD.encode(json.as_bytes()))
}

/// Reads a state written by [`encode`] or [`encode_v1`] (by this version or an older one).
pub fn decode<T: DeserializeOwned>(link: &str) -> Result<T, String> {
    let (v, body) = link.split_once('.').ok_or_else(|| "the link's lab state has no version".to_string())?;
    let v: u32 = v.parse().map_err(|_| format!("the link's lab state has an unreadable version \"{v}\""))?;
    if v > SHARE_VERSION {
        return Err(format!(
            "the link was made by a newer version of the lab (state version {v}; this one reads up to {SHARE_VERSION})"
        ));
    }
    if v == 0 {
        return Err("the link's lab state has version 0, which never existed".into());
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(body.trim_end_matches('='))
        .map_err(|_| "the link's lab state is damaged (not base64url)".to_string())?;
    let text = String::from_utf8(bytes).map_err(|_| "the link's lab state is damaged (not UTF-8)".to_string())?;
    let invalid = |path: String, e: String| match path.as_str() {
        "" | "." => format!("the link's lab state is invalid: {e}"),
        _ => format!("the link's lab state is invalid: {path} {e}"),
    };
    if v == 1 {
        return crate::json_path::from_str(&text).map_err(|(path, e)| invalid(path, e.to_string()));
    }
    let mut json: Value = serde_json::from_str(&text).map_err(|e| invalid(String::new(), e.to_string()))?;
    if let Value::Object(fields) = &mut json {
        for f in SCENARIO_FIELDS {
            if let Some(s) = fields.get_mut(f) {
                expand(f, s).map_err(|(path, e)| invalid(path, e))?;
            }
        }
    }
    // The expanded state is not the link's text: its message has no position. The field is named
    // by reading the state as compact text (serde_json words a few type errors differently for a
    // `Value`; the message stays the `Value`'s).
    let compact = json.to_string();
    serde_json::from_value(json).map_err(|e| {
        let path = crate::json_path::from_str::<T>(&compact).err().map_or_else(String::new, |(path, _)| path);
        invalid(path, e.to_string())
    })
}

/// A preset's scenario as JSON (what diffs are taken against).
fn preset_json(p: &presets::Preset) -> Option<Value> {
    Scenario::from_json(p.json).ok().and_then(|s| serde_json::to_value(s).ok())
}

/// The short form of a scenario's JSON: the closest preset and what differs, or the scenario
/// itself when that is shorter.
fn shorten(scenario: &Value) -> Value {
    let mut best = scenario.clone();
    let mut best_len = scenario.to_string().len();
    for p in presets::PRESETS {
        let Some(base) = preset_json(p) else { continue };
        let mut diff = Map::new();
        diff_into(&base, scenario, String::new(), &mut diff);
        if diff.contains_key("") {
            continue;
        }
        let mut short = Map::new();
        short.insert("preset".into(), p.id.into());
        if !diff.is_empty() {
            short.insert("diff".into(), Value::Object(diff));
        }
        let short = Value::Object(short);
        let len = short.to_string().len();
        if len < best_len {
            best = short;
            best_len = len;
        }
    }
    best
}

/// Every value of `new` that differs from `base`, by path; `null` where `new` has no value.
fn diff_into(base: &Value, new: &Value, path: String, out: &mut Map<String, Value>) {
    if base == new {
        return;
    }
    match (base, new) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => diff_into(x, y, p, out),
                    (None, Some(y)) => {
                        out.insert(p, y.clone());
                    }
                    (Some(x), None) if !x.is_null() => {
                        out.insert(p, Value::Null);
                    }
                    _ => {}
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                diff_into(x, y, format!("{path}[{i}]"), out);
            }
        }
        _ => {
            out.insert(path, new.clone());
        }
    }
}

/// One step of a diff path: a key, or an index into an array.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// `scheduler.max_num_seqs` → keys; `classes[0].slo` → key, index, key.
fn steps(path: &str) -> Option<Vec<Step<'_>>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, indices) = part.split_once('[').map_or((part, None), |(k, r)| (k, Some(r)));
        if key.is_empty() || !key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return None;
        }
        out.push(Step::Key(key));
        let mut rest = indices;
        while let Some(r) = rest {
            let (n, after) = r.split_once(']')?;
            if n.is_empty() || n.len() > 6 || !n.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            out.push(Step::Index(n.parse().ok()?));
            rest = match after {
                "" => None,
                a => Some(a.strip_prefix('[')?),
            };
        }
    }
    Some(out)
}

/// Turns a short scenario (`{"preset", "diff"}`) into the whole one, in place; a whole scenario
/// stays as it is. The error is (field path, message).
fn expand(field: &str, s: &mut Value) -> Result<(), (String, String)> {
    let Value::Object(short) = s else { return Ok(()) };
    if !short.contains_key("preset") {
        return Ok(());
    }
    if let Some(k) = short.keys().find(|k| *k != "preset" && *k != "diff") {
        return Err((format!("{field}.{k}"), "is not a field of a short scenario (it has preset and diff)".into()));
    }
    let names = || presets::PRESETS.iter().map(|p| p.id).collect::<Vec<_>>().join(", ");
    let id = short.get("preset").and_then(Value::as_str).unwrap_or("");
    let preset = presets::find(id).ok_or_else(|| {
        (format!("{field}.preset"), format!("{} is not a built-in preset (allowed: {})", short["preset"], names()))
    })?;
    let mut whole = preset_json(preset).ok_or_else(|| (format!("{field}.preset"), "cannot be read".into()))?;
    match short.get("diff") {
        None => {}
        Some(Value::Object(diff)) => {
            for (path, value) in diff {
                let at = || format!("{field}.diff.{path}");
                let steps =
                    steps(path).ok_or_else(|| (at(), "is not a field path such as classes[0].slo.ttft_ms".into()))?;
                set_at(&mut whole, &steps, value.clone()).ok_or_else(|| {
                    (at(), format!("is not a field of preset {id} (nor a field its parent can hold)"))
                })?;
            }
        }
        Some(_) => return Err((format!("{field}.diff"), "must be an object of field paths and values".into())),
    }
    *s = whole;
    Ok(())
}

/// Sets (or, for `null` in an object, removes) the value at `steps`; `None` when the path does
/// not reach into `doc` (an index past an array's end, a key under a value that is no object).
fn set_at(doc: &mut Value, steps: &[Step], value: Value) -> Option<()> {
    let (last, parents) = steps.split_last()?;
    let mut at = doc;
    for s in parents {
        at = match s {
            Step::Key(k) => at.as_object_mut()?.get_mut(*k)?,
            Step::Index(i) => at.as_array_mut()?.get_mut(*i)?,
        };
    }
    match last {
        Step::Key(k) => {
            let obj = at.as_object_mut()?;
            if value.is_null() {
                obj.remove(*k);
            } else {
                obj.insert(k.to_string(), value);
            }
        }
        Step::Index(i) => *at.as_array_mut()?.get_mut(*i)? = value,
    }
    Some(())
}

/// The model's part of a link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SharedRun {
    pub scenario: Scenario,
    /// Second configuration of an A/B comparison.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare: Option<Scenario>,
}

impl SharedRun {
    pub fn encode(&self) -> String {
        encode(self)
    }

    /// Reads the scenarios of a link (a page's link too: its other fields are ignored) and
    /// validates them.
    pub fn decode(link: &str) -> Result<SharedRun, String> {
        let run: SharedRun = decode(link)?;
        run.check()?;
        Ok(run)
    }

    /// Validates both scenarios; the message says which one is wrong.
    pub fn check(&self) -> Result<(), String> {
        self.scenario.validate().map_err(|e| format!("the link's scenario is invalid: {e}"))?;
        if let Some(c) = &self.compare {
            c.validate().map_err(|e| format!("the link's comparison scenario is invalid: {e}"))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run() -> SharedRun {
        let s = crate::presets::find("mixed-isolated").unwrap().scenario();
        SharedRun { scenario: s.clone(), compare: Some(s) }
    }

    fn json_of(link: &str) -> Value {
        let body = link.split_once('.').unwrap().1;
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(body).unwrap()).unwrap()
    }

    /// A version-2 link whose JSON is `json`.
    fn v2(json: Value) -> String {
        format!("2.{}", URL_SAFE_NO_PAD.encode(json.to_string()))
    }

    #[test]
    fn round_trips_and_stays_url_safe() {
        let r = run();
        for e in [r.encode(), encode_v1(&r)] {
            assert!(e.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'));
            assert_eq!(SharedRun::decode(&e).unwrap(), r);
        }
        assert!(encode_v1(&r).starts_with("1."));
        assert!(r.encode().starts_with("2."));
    }

    #[test]
    fn a_preset_is_named_and_only_the_changes_travel() {
        let mut r = run();
        assert_eq!(
            json_of(&r.encode()),
            serde_json::json!({
                "scenario": { "preset": "mixed-isolated" }, "compare": { "preset": "mixed-isolated" }
            })
        );
        r.compare = None;
        r.scenario.scheduler.max_num_seqs = 24;
        r.scenario.classes[0].slo.ttft_ms = None;
        let json = json_of(&r.encode());
        assert_eq!(
            json,
            serde_json::json!({ "scenario": { "preset": "mixed-isolated", "diff": {
            "classes[0].slo.ttft_ms": null, "scheduler.max_num_seqs": 24
        } } })
        );
        assert_eq!(SharedRun::decode(&r.encode()).unwrap(), r);
        // the same state, the same link
        assert_eq!(r.encode(), r.clone().encode());
    }

    #[test]
    fn a_short_form_is_used_only_when_it_is_shorter() {
        let whole = serde_json::json!({ "version": 1, "seed": 1 });
        assert_eq!(shorten(&whole), whole, "a tiny scenario is shorter than any diff");
        let mut r = run();
        r.compare = None;
        r.scenario.name = Some("mine".into());
        for c in &mut r.scenario.classes {
            c.name = format!("{}-renamed-class", c.name);
        }
        let link = r.encode();
        assert!(link.len() <= encode_v1(&r).len());
        assert_eq!(SharedRun::decode(&link).unwrap(), r);
    }

    #[test]
    fn bad_or_newer_links_give_messages() {
        let e = run().encode();
        assert!(SharedRun::decode("nonsense").unwrap_err().contains("no version"));
        assert!(SharedRun::decode(&e.replacen("2.", "9.", 1)).unwrap_err().contains("newer version"));
        assert!(SharedRun::decode(&e.replacen("2.", "0.", 1)).unwrap_err().contains("version 0"));
        assert!(SharedRun::decode("1.@@@").unwrap_err().contains("damaged"));
        assert!(SharedRun::decode("2.@@@").unwrap_err().contains("damaged"));
        assert!(SharedRun::decode(&e[..e.len() / 2]).is_err());
        let mut r = run();
        r.scenario.scheduler.max_num_seqs = 0;
        for link in [r.encode(), encode_v1(&r)] {
            let msg = SharedRun::decode(&link).unwrap_err();
            assert!(msg.contains("scenario is invalid: scheduler.max_num_seqs must be 1..=4096"), "{msg}");
        }
    }

    #[test]
    fn a_bad_short_scenario_names_its_field() {
        let cases = [
            (
                serde_json::json!({ "scenario": { "preset": "nope" } }),
                "scenario.preset \"nope\" is not a built-in preset (allowed: chat-latency-first,",
            ),
            (serde_json::json!({ "scenario": { "preset": 3 } }), "scenario.preset 3 is not a built-in preset"),
            (
                serde_json::json!({ "scenario": { "preset": "static-batching", "extra": 1 } }),
                "scenario.extra is not a field of a short scenario",
            ),
            (
                serde_json::json!({ "scenario": { "preset": "static-batching", "diff": [] } }),
                "scenario.diff must be an object",
            ),
            (
                serde_json::json!({ "scenario": { "preset": "static-batching", "diff": { "classes[9].name": "x" } } }),
                "scenario.diff.classes[9].name is not a field of preset static-batching",
            ),
            (
                serde_json::json!({ "scenario": { "preset": "static-batching", "diff": { "a..b": 1 } } }),
                "scenario.diff.a..b is not a field path",
            ),
            (
                serde_json::json!({ "scenario": { "preset": "static-batching", "diff": { "classes[x]": 1 } } }),
                "scenario.diff.classes[x] is not a field path",
            ),
            (
                serde_json::json!({ "scenario": { "preset": "static-batching", "diff": { "scheduler.max_num_seqs": "many" } } }),
                "invalid: scenario.scheduler.max_num_seqs invalid type: string \"many\"",
            ),
            (
                serde_json::json!({ "scenario": { "preset": "static-batching", "diff": { "scheduler.wat": 1 } } }),
                "invalid: scenario.scheduler.wat unknown field `wat`",
            ),
            (
                serde_json::json!({ "scenario": { "preset": "static-batching" }, "compare": { "preset": "x" } }),
                "compare.preset \"x\"",
            ),
        ];
        for (json, want) in cases {
            let msg = SharedRun::decode(&v2(json.clone())).unwrap_err();
            assert!(msg.contains(want), "{json}: {msg}");
        }
        let r = SharedRun::decode(&v2(
            serde_json::json!({ "scenario": { "preset": "static-batching", "diff": { "scheduler.max_num_seqs": 5 } } }),
        ));
        assert_eq!(r.unwrap().scenario.scheduler.max_num_seqs, 5);
    }

    #[test]
    fn paths_read_as_validation_writes_them() {
        let names = |p: &str| {
            steps(p).map(|s| {
                s.iter()
                    .map(|s| match s {
                        Step::Key(k) => k.to_string(),
                        Step::Index(i) => format!("#{i}"),
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
        };
        assert_eq!(names("classes[12].slo.ttft_ms").as_deref(), Some("classes #12 slo ttft_ms"));
        assert_eq!(names("a[1][2]").as_deref(), Some("a #1 #2"));
        for bad in ["", ".", "a.", "[1]", "a[", "a[]", "a[1", "a[1]b", "a-b", "a[1234567]"] {
            assert!(names(bad).is_none(), "{bad}");
        }
    }
}
