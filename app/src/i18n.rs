//! Translation tables: every user-visible string lives in `app/i18n/*.json`, in English and
//! Chinese, under the same keys. Views call [`t`] (reactive: the text follows the locale switch)
//! and [`tf`] for templates with `{name}` placeholders.
//!
//! The tables are not compiled in: the page fetches the language it shows ([`init`] before the
//! first paint, [`Lang::switch`] on a switch). That keeps about 40 KB of gzipped text per build out
//! of the wasm, and a learner downloads one language, not both (docs/wasm-size.md).

use std::collections::HashMap;
use std::sync::OnceLock;

use js_sys::futures::{spawn_local, JsFuture};
use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::Response;

/// Languages of the lab (`app_model::locale`: reading tags, the language the page opens in).
pub use app_model::locale::LocaleCode as Locale;

/// The browser's preferred language when it is one of ours, else English.
pub fn browser_locale() -> Locale {
    let nav = window().navigator();
    let mut tags: Vec<String> = nav.languages().iter().filter_map(|v| v.as_string()).collect();
    tags.extend(nav.language());
    Locale::preferred(tags.iter().map(String::as_str))
}

type Table = HashMap<String, String>;

/// The tables fetched so far, indexed like [`Locale::ALL`]. A cache of constant data, not page
/// state: a language's table is fetched once and never changes (which language the page shows is
/// [`Lang`], in context).
static TABLES: [OnceLock<Table>; 2] = [OnceLock::new(), OnceLock::new()];

/// The page's language: a signal provided once by the app ([`provide`]); components take it with
/// [`use_lang`], listeners outside the reactive owner use the copy they captured at mount, and the
/// canvases the [`crate::theme::Look`] they are handed.
#[derive(Clone, Copy)]
pub struct Lang(RwSignal<Locale>);

impl Lang {
    /// The language shown (tracked).
    pub fn get(self) -> Locale {
        self.0.get()
    }

    pub fn get_untracked(self) -> Locale {
        self.0.get_untracked()
    }

    pub fn track(self) {
        self.0.track();
    }

    /// Shows `l` (its tables must be here: [`Lang::switch`] fetches them first).
    pub fn set(self, l: Locale) {
        if self.0.get_untracked() != l {
            self.0.set(l);
        }
    }

    /// Switches the language: at once when its tables are here, else once they have been fetched
    /// (the page keeps the current language meanwhile, never showing keys).
    pub fn switch(self, l: Locale) {
        if loaded(l) {
            self.set(l);
            return;
        }
        spawn_local(async move {
            match load(l).await {
                Ok(()) => self.set(l),
                Err(e) => web_sys::console::error_1(&format!("the {} texts could not be loaded: {e}", l.code()).into()),
            }
        });
    }
}

/// Makes `shown`, the language [`init`] loaded, the page's, for every component below (once, at
/// mount).
pub fn provide(shown: Locale) -> Lang {
    let lang = Lang(RwSignal::new(shown));
    provide_context(lang);
    lang
}

/// The page's language, as provided at mount.
pub fn use_lang() -> Lang {
    expect_context::<Lang>()
}

fn index(l: Locale) -> usize {
    match l {
        Locale::En => 0,
        Locale::Zh => 1,
    }
}

fn table(l: Locale) -> Option<&'static Table> {
    TABLES[index(l)].get()
}

fn loaded(l: Locale) -> bool {
    table(l).is_some()
}

/// Fetches one language's tables (all parts at once) unless they are here already.
pub async fn load(l: Locale) -> Result<(), String> {
    if loaded(l) {
        return Ok(());
    }
    // The tables are `app_model::locale::TABLE_PARTS`, fetched for the language shown only, so the
    // wasm carries no text; index.html's loader may have started these requests already, beside
    // the page's module (`window.labFetched`: address → the fetch's promise, each taken once).
    let urls = l.table_urls();
    // start every request before waiting for any
    let pending =
        urls.each_ref().map(|url| JsFuture::from(prefetched(url).unwrap_or_else(|| window().fetch_with_str(url))));
    let mut all = Table::new();
    for (url, response) in urls.iter().zip(pending) {
        let failed = |why: String| format!("{url}: {why}");
        let response: Response = response.await.map_err(|e| failed(js_text(&e)))?.unchecked_into();
        if !response.ok() {
            return Err(failed(format!("HTTP {}", response.status())));
        }
        let text =
            JsFuture::from(response.text().map_err(|e| failed(js_text(&e)))?).await.map_err(|e| failed(js_text(&e)))?;
        let part: Table =
            serde_json::from_str(&text.as_string().unwrap_or_default()).map_err(|e| failed(e.to_string()))?;
        all.extend(part);
    }
    let _ = TABLES[index(l)].set(all);
    Ok(())
}

/// The promise of a fetch of `url` that index.html's loader started, taken out of
/// `window.labFetched` (a response's body is read once).
fn prefetched(url: &str) -> Option<js_sys::Promise> {
    let started = js_sys::Reflect::get(&window(), &"labFetched".into()).ok().filter(|v| v.is_object())?;
    let key = JsValue::from_str(url);
    let promise = js_sys::Reflect::get(&started, &key).ok()?.dyn_into::<js_sys::Promise>().ok()?;
    let _ = js_sys::Reflect::delete_property(started.unchecked_ref::<js_sys::Object>(), &key);
    Some(promise)
}

fn js_text(e: &JsValue) -> String {
    e.as_string().or_else(|| js_sys::JSON::stringify(e).ok().map(String::from)).unwrap_or_default()
}

/// Loads the page's language before anything is drawn, so the first paint is already in it
/// ([`provide`] then makes it the page's); returns the language loaded. With no table at all the
/// lab could only show keys: then the error is returned to be shown.
pub async fn init(q: &app_model::query::Query) -> Result<Locale, String> {
    let l = q.opening_locale(browser_locale);
    let first = load(l).await;
    let shown = if first.is_ok() {
        l
    } else {
        // the other language rather than keys
        load(l.other()).await.map_err(|e| format!("{} ({e})", first.unwrap_err()))?;
        l.other()
    };
    Ok(shown)
}

/// The language shown, tracked: read in a reactive owner (a view, an effect, a memo, an event
/// handler; timers and animation frames that word anything run in the owner they were started
/// in, and the canvases word with the [`crate::theme::Look`] they are handed). Outside any owner
/// there is no page to ask: English.
fn current() -> Locale {
    use_context::<Lang>().map_or(Locale::En, Lang::get)
}

/// Text for `key` in `locale`; falls back to the other loaded language, then to the key itself.
pub fn lookup(locale: Locale, key: &str) -> String {
    let found = |l: Locale| table(l).and_then(|t| t.get(key).cloned());
    found(locale).or_else(|| Locale::ALL.into_iter().find_map(found)).unwrap_or_else(|| key.to_string())
}

/// Whether a key exists (in the tables loaded; the languages hold the same keys).
pub fn has(key: &str) -> bool {
    TABLES.iter().filter_map(OnceLock::get).any(|t| t.contains_key(key))
}

/// Text for `key` in the current locale; tracks the locale signal.
pub fn t(key: &str) -> String {
    lookup(current(), key)
}

/// The text for `key` as a reactive closure: `{tx("metrics.title")}` in a view, or
/// `title=tx("toolbar.reset_title")`. Every call returns the same closure type, so the view code
/// for translated text is compiled once rather than once per `move || t("…")` (a smaller wasm).
pub fn tx(key: &'static str) -> impl Fn() -> String + Copy + Send + Sync + 'static {
    move || t(key)
}

/// Like [`t`] without tracking.
pub fn t_untracked(key: &str) -> String {
    untrack(|| t(key))
}

/// Template text with `{name}` placeholders filled from `args`.
pub fn tf(key: &str, args: &[(&str, String)]) -> String {
    fill(&t(key), args)
}

/// The page's words for `app_model`'s sentences ([`t`] and [`tf`]: in the current language,
/// tracked).
pub struct Page;

/// [`Page`] as the model takes it.
pub const PAGE: &Page = &Page;

impl app_model::words::Words for Page {
    fn t(&self, key: &str) -> String {
        t(key)
    }
    fn tf(&self, key: &str, args: &[(&str, String)]) -> String {
        tf(key, args)
    }
}

/// Fills `{name}` placeholders; unknown names stay as written (host-tested in app-model).
pub use app_model::messages::fill;

/// A message of `app_model::messages` in the current language (tracks the locale).
pub fn msg(m: &app_model::messages::Msg) -> String {
    m.said(PAGE)
}
