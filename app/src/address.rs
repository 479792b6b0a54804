//! The page's address, read once ([`read`]) and provided in context ([`Address`]): what its query parameters ask for (declared and parsed in
//! `app_model::query`), and the events the page posts to a window that embeds it
//! (`docs/embed.md` lists them). Below every panel: the translations read the language from
//! here, the editor the controls shown, the share links and the tabs post their events.

use std::sync::Arc;

use app_model::query::Query;
use leptos::prelude::*;
use serde_json::Value;
use wasm_bindgen::JsValue;

use std::cell::RefCell;

thread_local! {
    /// The embedding page's origin, when `parent=` names it: messages go only there, and only
    /// its commands are obeyed (`app_model::protocol`).
    static PARENT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// What the page's address asks for, read from `location.search` (once, at start: the page
/// rewrites only `lab` and `locale`, from its state). Values it cannot use are reported on the
/// console.
pub fn read() -> Query {
    let search = web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default();
    let q = Query::parse(&search);
    PARENT.with(|p| *p.borrow_mut() = q.parent.clone());
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

/// The window that embeds this page, if it is in a frame.
fn parent_window() -> Option<web_sys::Window> {
    let w = web_sys::window()?;
    let parent = w.parent().ok().flatten()?;
    (!js_sys::Object::is(parent.as_ref(), w.as_ref())).then_some(parent)
}

/// Whether the page is in a frame.
pub fn in_frame() -> bool {
    parent_window().is_some()
}

/// Whether `ev` came from the embedding window (and from its named origin, if `parent=` names
/// one): only then is it a command to obey.
pub fn from_host(ev: &web_sys::MessageEvent) -> bool {
    let Some(parent) = parent_window() else { return false };
    let from_parent = ev.source().is_some_and(|s| js_sys::Object::is(s.as_ref(), parent.as_ref()));
    from_parent && PARENT.with(|p| p.borrow().as_ref().is_none_or(|o| *o == ev.origin()))
}

/// Posts `{source: "llm-serving-lab", protocol: 1, type: kind, ...payload}` to the parent
/// window when the page is in a frame (no-op otherwise): to the origin `parent=` names, else to
/// any (the messages carry only what the page shows). An object payload's fields are merged
/// into the message; any other payload goes under `data` (`app_model::protocol::outgoing`).
pub fn post_event(kind: &str, payload: Value) {
    let Some(parent) = parent_window() else { return };
    let target = PARENT.with(|p| p.borrow().clone()).unwrap_or_else(|| "*".into());
    let msg = app_model::protocol::outgoing(kind, payload);
    if let Ok(value) = js_sys::JSON::parse(&msg.to_string()) {
        let _ = parent.post_message(&value, &target);
    }
}
