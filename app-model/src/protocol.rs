//! Protocol v1: the messages between an embedded lab and the page that embeds it (the
//! `<llm-lab>` element, `static/llm-lab/llm-lab.js`, or any host's script). Its JSON Schema is
//! `static/llm-lab/protocol.schema.json` (a test checks that it names the same messages and
//! fields as this file); docs/embed.md describes it.
//!
//! Out, from the lab: `{source: "llm-serving-lab", protocol: 1, type, ...}` with `type` one of
//! [`OUT`]. In, from the host: `{protocol: 1, type, ...}` with `type` one of [`Command::TYPES`];
//! [`Command::read`] reads one, or says which field is wrong and what it may be, so the lab
//! answers a bad command with an `error` message and carries on as it was.
//!
//! The host may name its origin (`?parent=https://docs.example.org`, `crate::query::parent_origin`): the lab
//! then posts only to that origin and obeys only commands from it. Without it the lab posts to
//! any parent (its messages carry only what the page shows) and obeys its parent window's commands.

use crate::locale::LocaleCode;
use crate::transport::{MAX_SPEED, MIN_SPEED};
use serde_json::Value;

/// The protocol's version, in every message both ways.
pub const PROTOCOL: u64 = 1;

/// `source` of every message the lab posts.
pub const SOURCE: &str = "llm-serving-lab";

/// The messages the lab posts, and the fields each carries beside `source`, `protocol` and `type`.
pub const OUT: [(&str, &[&str]); 6] = [
    ("ready", &["version", "state_version", "locale", "embed"]),
    ("resize", &["height"]),
    ("state", &["lab"]),
    ("lesson-completed", &["id", "predicted", "answer", "correct"]),
    ("exercise-result", &["id", "pass", "score", "goals", "settings"]),
    ("error", &["kind", "message"]),
];

/// A host's command.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Put a shared state (a share code, `2.…`) on the page.
    SetState(String),
    Play,
    Pause,
    /// Start the runs again from time zero.
    Reset,
    /// Simulated seconds per wall-clock second.
    SetSpeed(f64),
    SetLocale(LocaleCode),
}

/// Why a command was refused: the field, and what it may be.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    /// The command's `type`, when it had a known one.
    pub command: Option<&'static str>,
    pub field: &'static str,
    pub message: String,
}

impl Refusal {
    /// The `error` message's fields (beside `kind: "command"`).
    pub fn fields(&self) -> Value {
        serde_json::json!({
            "kind": "command",
            "command": self.command,
            "field": self.field,
            "message": self.message,
        })
    }
}

impl Command {
    /// Every command's `type`, and its fields beside `protocol` and `type`.
    pub const TYPES: [(&'static str, &'static [&'static str]); 6] = [
        ("set-state", &["lab"]),
        ("play", &[]),
        ("pause", &[]),
        ("reset", &[]),
        ("set-speed", &["x"]),
        ("set-locale", &["locale"]),
    ];

    /// Reads a host's message. Messages that are not objects with a `type` are not commands
    /// at all (other scripts post messages too): `Ok(None)`.
    pub fn read(v: &Value) -> Result<Option<Command>, Refusal> {
        let Some(o) = v.as_object() else { return Ok(None) };
        let Some(kind) = o.get("type").and_then(Value::as_str) else { return Ok(None) };
        // the lab's own messages (a host that echoes them) are not commands
        if o.get("source").and_then(Value::as_str) == Some(SOURCE) {
            return Ok(None);
        }
        let known = Command::TYPES.iter().map(|t| t.0).find(|t| *t == kind);
        let refuse = |field: &'static str, message: String| Refusal { command: known, field, message };
        if o.get("protocol").and_then(Value::as_u64) != Some(PROTOCOL) {
            return Err(refuse("protocol", format!("protocol must be {PROTOCOL} (the version this lab speaks)")));
        }
        let Some(kind) = known else {
            let all: Vec<&str> = Command::TYPES.iter().map(|t| t.0).collect();
            return Err(refuse("type", format!("type {kind:?} is not a command: it may be {}", all.join(", "))));
        };
        Ok(Some(match kind {
            "set-state" => match o.get("lab").and_then(Value::as_str) {
                Some(code) if code.starts_with("2.") || code.starts_with("1.") => Command::SetState(code.to_string()),
                _ => return Err(refuse("lab", "lab must be a share code (text starting 2. or 1.)".into())),
            },
            "play" => Command::Play,
            "pause" => Command::Pause,
            "reset" => Command::Reset,
            "set-speed" => match o.get("x").and_then(Value::as_f64) {
                Some(x) if (MIN_SPEED..=MAX_SPEED).contains(&x) => Command::SetSpeed(x),
                _ => return Err(refuse("x", format!("x must be a number from {MIN_SPEED} to {MAX_SPEED}"))),
            },
            _ => match o.get("locale").and_then(Value::as_str).and_then(LocaleCode::parse) {
                Some(l) => Command::SetLocale(l),
                None => return Err(refuse("locale", "locale must be en or zh (or a tag such as zh-CN)".into())),
            },
        }))
    }
}

pub use crate::query::parent_origin;

/// A message the lab posts: `fields` with `source`, `protocol` and `type` set (an object's
/// fields are kept, anything else goes under `data`).
pub fn outgoing(kind: &str, fields: Value) -> Value {
    let mut msg = serde_json::Map::new();
    msg.insert("source".into(), SOURCE.into());
    msg.insert("protocol".into(), PROTOCOL.into());
    msg.insert("type".into(), kind.into());
    match fields {
        Value::Object(f) => {
            for (k, v) in f {
                if !matches!(k.as_str(), "source" | "type" | "protocol") {
                    msg.insert(k, v);
                }
            }
        }
        Value::Null => {}
        other => {
            msg.insert("data".into(), other);
        }
    }
    Value::Object(msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(v: Value) -> Result<Option<Command>, Refusal> {
        Command::read(&v)
    }

    #[test]
    fn commands_are_read_or_refused_by_field() {
        assert_eq!(read(json!({"protocol": 1, "type": "play"})), Ok(Some(Command::Play)));
        assert_eq!(read(json!({"protocol": 1, "type": "pause"})), Ok(Some(Command::Pause)));
        assert_eq!(read(json!({"protocol": 1, "type": "reset"})), Ok(Some(Command::Reset)));
        assert_eq!(read(json!({"protocol": 1, "type": "set-speed", "x": 10})), Ok(Some(Command::SetSpeed(10.0))));
        assert_eq!(
            read(json!({"protocol": 1, "type": "set-locale", "locale": "zh-CN"})),
            Ok(Some(Command::SetLocale(LocaleCode::Zh)))
        );
        assert_eq!(
            read(json!({"protocol": 1, "type": "set-state", "lab": "2.abc"})),
            Ok(Some(Command::SetState("2.abc".into())))
        );
        let field = |v: Value| read(v).unwrap_err().field;
        assert_eq!(field(json!({"type": "play"})), "protocol");
        assert_eq!(field(json!({"protocol": 2, "type": "play"})), "protocol");
        assert_eq!(field(json!({"protocol": 1, "type": "explode"})), "type");
        assert_eq!(field(json!({"protocol": 1, "type": "set-speed", "x": 0})), "x");
        assert_eq!(field(json!({"protocol": 1, "type": "set-speed", "x": 1000})), "x");
        assert_eq!(field(json!({"protocol": 1, "type": "set-speed", "x": "fast"})), "x");
        assert_eq!(field(json!({"protocol": 1, "type": "set-locale", "locale": "fr"})), "locale");
        assert_eq!(field(json!({"protocol": 1, "type": "set-state", "lab": 3})), "lab");
        let r = read(json!({"protocol": 1, "type": "set-speed", "x": 0})).unwrap_err();
        assert_eq!(r.command, Some("set-speed"));
        assert!(r.message.contains("0.1") && r.message.contains("100"), "{}", r.message);
        assert_eq!(r.fields()["kind"], "command");
        // not commands: other scripts' messages, and the lab's own
        assert_eq!(read(json!("hello")), Ok(None));
        assert_eq!(read(json!({"kind": "x"})), Ok(None));
        assert_eq!(read(json!({"source": SOURCE, "protocol": 1, "type": "ready"})), Ok(None));
    }

    #[test]
    fn a_parent_is_an_origin() {
        assert_eq!(parent_origin("https://Docs.Example.org/"), Some("https://docs.example.org".into()));
        assert_eq!(parent_origin("http://127.0.0.1:8080"), Some("http://127.0.0.1:8080".into()));
        assert_eq!(parent_origin("https://docs.example.org/path"), None);
        assert_eq!(parent_origin("javascript:alert(1)"), None);
        assert_eq!(parent_origin("ftp://x.org"), None);
        assert_eq!(parent_origin("https://"), None);
        assert_eq!(parent_origin("https://x.org:99999"), None);
    }

    #[test]
    fn every_outgoing_message_carries_source_protocol_and_type() {
        let m = outgoing("resize", json!({"height": 420, "type": "forged", "protocol": 9}));
        assert_eq!(m, json!({"source": SOURCE, "protocol": 1, "type": "resize", "height": 420}));
        assert_eq!(outgoing("state", json!("2.x"))["data"], "2.x");
    }

    /// The JSON Schema names the same messages, each with the same fields, as this file.
    #[test]
    fn the_schema_agrees_with_the_protocol() {
        let schema: Value = serde_json::from_str(include_str!("../../static/llm-lab/protocol.schema.json"))
            .expect("the schema is JSON");
        let defs = schema["$defs"].as_object().expect("$defs");
        let fields_of = |name: &str| -> Vec<String> {
            let d = &defs[name];
            let mut f: Vec<String> =
                d["properties"].as_object().unwrap_or_else(|| panic!("{name}")).keys().cloned().collect();
            f.retain(|k| !matches!(k.as_str(), "source" | "protocol" | "type"));
            f.sort();
            assert_eq!(d["properties"]["protocol"]["const"], json!(PROTOCOL), "{name}");
            f
        };
        let mut out_names = Vec::new();
        for (kind, fields) in OUT {
            let name = format!("out-{kind}");
            assert_eq!(defs[&name]["properties"]["type"]["const"], json!(kind), "{name}");
            let mut want: Vec<String> = fields.iter().map(|s| s.to_string()).collect();
            want.sort();
            let have = fields_of(&name);
            assert!(want.iter().all(|w| have.contains(w)), "{name}: schema {have:?}, protocol {want:?}");
            out_names.push(name);
        }
        for (kind, fields) in Command::TYPES {
            let name = format!("in-{kind}");
            assert_eq!(defs[&name]["properties"]["type"]["const"], json!(kind), "{name}");
            let mut want: Vec<String> = fields.iter().map(|s| s.to_string()).collect();
            want.sort();
            assert_eq!(fields_of(&name), want, "{name}");
        }
        let listed = |key: &str| -> Vec<String> {
            defs[key]["oneOf"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["$ref"].as_str().unwrap().replace("#/$defs/", ""))
                .collect()
        };
        assert_eq!(listed("out"), out_names);
        assert_eq!(listed("in").len(), Command::TYPES.len());
        assert_eq!(
            defs.len(),
            2 + OUT.len() + Command::TYPES.len(),
            "no message in the schema that the lab does not have"
        );
    }
}
