//! Translation tables: every user-visible string lives in `app/i18n/*.json`, in English and
//! Chinese, under the same keys. Views call [`t`] (reactive: the text follows the locale switch)
//! and [`tf`] for templates with `{name}` placeholders.
//!
//! The tables are not compiled in: the page fetches the language it shows ([`init`] before the
//! first paint, [`set_locale`] on a switch). That keeps about 40 KB of gzipped text per build out
//! of the wasm, and a learner downloads one language, not both (docs/wasm-size.md).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use js_sys::futures::{spawn_local, JsFuture};
use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::Response;

/// Languages of the lab.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Locale {
    En,
    Zh,
}

impl Locale {
    pub const ALL: [Locale; 2] = [Locale::En, Locale::Zh];

    pub fn code(self) -> &'static str {
        match self {
            Locale::En => "en",
            Locale::Zh => "zh",
        }
    }

    /// `en`, `zh`, or a BCP 47 tag such as `zh-CN` / `en-GB`.
    pub fn parse(s: &str) -> Option<Locale> {
        let s = s.trim().to_ascii_lowercase();
        if s == "zh" || s.starts_with("zh-") || s.starts_with("zh_") {
            Some(Locale::Zh)
        } else if s == "en" || s.starts_with("en-") || s.starts_with("en_") {
            Some(Locale::En)
        } else {
            None
        }
    }

    /// The browser's preferred language when it is one of ours, else English.
    pub fn from_browser() -> Locale {
        let nav = window().navigator();
        let langs = nav.languages();
        for i in 0..langs.length() {
            if let Some(l) = langs.get(i).as_string().and_then(|s| Locale::parse(&s)) {
                return l;
            }
        }
        nav.language().and_then(|s| Locale::parse(&s)).unwrap_or(Locale::En)
    }
}

type Table = HashMap<String, String>;

/// The parts of each language's table: `app/i18n/{part}.{locale}.json`. The build copies the folder
/// beside the page (`dist/i18n/`), and only the language shown is fetched, so the wasm carries no
/// text. The address is relative to the page, like the wasm's own: the lab works under any path.
const PARTS: [&str; 3] = ["ui", "features", "lessons"];

thread_local! {
    /// The tables fetched so far, indexed like [`Locale::ALL`].
    static TABLES: RefCell<[Option<Rc<Table>>; 2]> = const { RefCell::new([None, None]) };
    static LOCALE: RefCell<Option<RwSignal<Locale>>> = const { RefCell::new(None) };
}

fn index(l: Locale) -> usize {
    match l {
        Locale::En => 0,
        Locale::Zh => 1,
    }
}

fn table(l: Locale) -> Option<Rc<Table>> {
    TABLES.with(|t| t.borrow()[index(l)].clone())
}

fn loaded(l: Locale) -> bool {
    TABLES.with(|t| t.borrow()[index(l)].is_some())
}

/// Fetches one language's tables (all parts at once) unless they are here already.
pub async fn load(l: Locale) -> Result<(), String> {
    if loaded(l) {
        return Ok(());
    }
    let urls = PARTS.map(|part| format!("i18n/{part}.{}.json", l.code()));
    // start every request before waiting for any
    let pending = urls.each_ref().map(|url| JsFuture::from(window().fetch_with_str(url)));
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
    TABLES.with(|t| t.borrow_mut()[index(l)] = Some(Rc::new(all)));
    Ok(())
}

fn js_text(e: &JsValue) -> String {
    e.as_string().or_else(|| js_sys::JSON::stringify(e).ok().map(String::from)).unwrap_or_default()
}

/// The language the page opens in: `?locale=`, else the language inside a `lab=` share link,
/// else the browser's (the same order `share::init` applies them in).
pub fn initial_locale() -> Locale {
    let q = crate::address::query();
    let from_link = || {
        let state = app_model::share::ShareState::decode(q.lab.as_deref()?.trim()).ok()?;
        Locale::parse(state.locale.as_deref()?)
    };
    q.locale.and_then(|l| Locale::parse(l.code())).or_else(from_link).unwrap_or_else(Locale::from_browser)
}

/// Loads the page's language before anything is drawn, so the first paint is already in it.
/// With no table at all the lab could only show keys: then the error is returned to be shown.
pub async fn init() -> Result<(), String> {
    let l = initial_locale();
    let first = load(l).await;
    if first.is_ok() {
        locale().set(l);
        return first;
    }
    // the other language rather than keys
    let other = if l == Locale::En { Locale::Zh } else { Locale::En };
    load(other).await.map_err(|e| format!("{} ({e})", first.unwrap_err()))?;
    locale().set(other);
    Ok(())
}

/// Switches the language: at once when its tables are here, else once they have been fetched
/// (the page keeps the current language meanwhile, never showing keys).
pub fn set_locale(l: Locale) {
    if loaded(l) {
        locale().set(l);
        return;
    }
    spawn_local(async move {
        match load(l).await {
            Ok(()) => locale().set(l),
            Err(e) => web_sys::console::error_1(&format!("the {} texts could not be loaded: {e}", l.code()).into()),
        }
    });
}

/// The locale signal (created on first use with the browser's language). Set it through
/// [`set_locale`], which fetches the language's tables first.
pub fn locale() -> RwSignal<Locale> {
    LOCALE.with(|cell| *cell.borrow_mut().get_or_insert_with(|| RwSignal::new(Locale::from_browser())))
}

/// Text for `key` in `locale`; falls back to the other loaded language, then to the key itself.
pub fn lookup(locale: Locale, key: &str) -> String {
    let found = |l: Locale| table(l).and_then(|t| t.get(key).cloned());
    found(locale).or_else(|| Locale::ALL.into_iter().find_map(found)).unwrap_or_else(|| key.to_string())
}

/// Whether a key exists (in the tables loaded; the languages hold the same keys).
pub fn has(key: &str) -> bool {
    TABLES.with(|t| t.borrow().iter().flatten().any(|t| t.contains_key(key)))
}

/// Text for `key` in the current locale; tracks the locale signal.
pub fn t(key: &str) -> String {
    lookup(locale().get(), key)
}

/// The text for `key` as a reactive closure: `{tx("metrics.title")}` in a view, or
/// `title=tx("toolbar.reset_title")`. Every call returns the same closure type, so the view code
/// for translated text is compiled once rather than once per `move || t("…")` (a smaller wasm).
pub fn tx(key: &'static str) -> impl Fn() -> String + Copy + Send + Sync + 'static {
    move || t(key)
}

/// Like [`t`] without tracking (event handlers, canvas drawing).
pub fn t_untracked(key: &str) -> String {
    lookup(locale().get_untracked(), key)
}

/// Template text with `{name}` placeholders filled from `args`.
pub fn tf(key: &str, args: &[(&str, String)]) -> String {
    fill(&t(key), args)
}

/// Fills `{name}` placeholders; unknown names stay as written.
pub fn fill(template: &str, args: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                let name = &after[..close];
                match args.iter().find(|(n, _)| *n == name) {
                    Some((_, v)) => out.push_str(v),
                    None => {
                        out.push('{');
                        out.push_str(name);
                        out.push('}');
                    }
                }
                rest = &after[close + 1..];
            }
            None => {
                out.push_str(&rest[open..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// A message of `app_model::messages` in the current language (tracks the locale): its key's
/// text with each placeholder filled (labels and units translated, lists joined).
pub fn msg(m: &app_model::messages::Msg) -> String {
    use app_model::messages::Arg;
    let args: Vec<(&str, String)> = m
        .args
        .iter()
        .map(|(name, arg)| {
            let v = match arg {
                Arg::Text(s) => s.clone(),
                Arg::Key(k) => t(k),
                Arg::Label(k) => t(k),
                Arg::Msg(inner) => msg(inner),
                Arg::Or(list) => list.iter().map(msg).collect::<Vec<_>>().join(&t("msg.or")),
                Arg::List(items) => match items.split_last() {
                    Some((last, head)) if !head.is_empty() => {
                        format!("{}{}{last}", head.join(&t("msg.list_sep")), t("msg.list_last"))
                    }
                    _ => items.join(""),
                },
            };
            (*name, v)
        })
        .collect();
    fill(&t(m.key), &args)
}
