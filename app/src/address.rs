//! The page's address, read once ([`read`]) and provided in context ([`Address`]): what its query parameters ask for (declared and parsed in
//! `app_model::query`), and the events the page posts to a window that embeds it
//! (`docs/embed.md` lists them). Below every panel: the translations read the language from
//! here, the editor the controls shown, the share links and the tabs post their events.

use std::sync::Arc;

use app_model::query::Query;
use leptos::prelude::*;
use serde_json::Value;
use wasm_bindgen::JsValue;

/// `source` of every message the lab posts to its parent window.
pub const EVENT_SOURCE: &str = "llm-serving-lab";

/// What the page's address asks for, read from `location.search` (once, at start: the page
/// rewrites only `lab` and `locale`, from its state). Values it cannot use are reported on the
/// console.
pub fn read() -> Query {
    let search = web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default();
    let q = Query::parse(&search);
    for p in &q.problems {
        web_sys::console::warn_1(&JsValue::from_str(p));
    }
    q
}

/// The page's address as it was opened: provided once by the app ([`provide`]); components take
/// it with [`use_address`].
#[derive(Clone, Copy)]
pub struct Address(StoredValue<Arc<Query>>);

impl Address {
    /// The query, shared (one copy of the arena's code for every reader).
    fn query(self) -> Arc<Query> {
        self.0.get_value()
    }

    pub fn with<R>(self, f: impl FnOnce(&Query) -> R) -> R {
        f(&self.query())
    }

    pub fn get(self) -> Query {
        Query::clone(&self.query())
    }
}

/// Makes `q` the page's address for every component below (once, at mount).
pub fn provide(q: Query) -> Address {
    let address = Address(StoredValue::new(Arc::new(q)));
    provide_context(address);
    address
}

/// The page's address, as provided at mount.
pub fn use_address() -> Address {
    expect_context::<Address>()
}

/// Posts `{source: "llm-serving-lab", type: kind, ...payload}` to the parent window when the page
/// is in a frame (no-op otherwise). An object payload's fields are merged into the message;
/// any other payload goes under `data`.
pub fn post_event(kind: &str, payload: Value) {
    let Some(w) = web_sys::window() else { return };
    let Ok(Some(parent)) = w.parent() else { return };
    if js_sys::Object::is(parent.as_ref(), w.as_ref()) {
        return;
    }
    let mut msg = serde_json::Map::new();
    msg.insert("source".into(), EVENT_SOURCE.into());
    msg.insert("type".into(), kind.into());
    match payload {
        Value::Object(fields) => {
            for (k, v) in fields {
                if k != "source" && k != "type" {
                    msg.insert(k, v);
                }
            }
        }
        Value::Null => {}
        other => {
            msg.insert("data".into(), other);
        }
    }
    if let Ok(value) = js_sys::JSON::parse(&Value::Object(msg).to_string()) {
        let _ = parent.post_message(&value, "*");
    }
}
