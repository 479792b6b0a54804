//! Translation tables: every user-visible string lives in `app/i18n/*.json`, in English and
//! Chinese, under the same keys. Views call [`t`] (reactive: the text follows the locale switch)
//! and [`tf`] for templates with `{name}` placeholders.

use std::cell::RefCell;
use std::collections::HashMap;

use leptos::prelude::*;

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

struct Tables {
    en: Table,
    zh: Table,
}

fn parse(parts: &[&str]) -> Table {
    let mut t = Table::new();
    for p in parts {
        // the tables are part of the build; a broken one shows keys instead of text
        if let Ok(m) = serde_json::from_str::<Table>(p) {
            t.extend(m);
        }
    }
    t
}

thread_local! {
    static TABLES: Tables = Tables {
        en: parse(&[
            include_str!("../i18n/ui.en.json"),
            include_str!("../i18n/features.en.json"),
            include_str!("../i18n/lessons.en.json"),
        ]),
        zh: parse(&[
            include_str!("../i18n/ui.zh.json"),
            include_str!("../i18n/features.zh.json"),
            include_str!("../i18n/lessons.zh.json"),
        ]),
    };
    static LOCALE: RefCell<Option<RwSignal<Locale>>> = const { RefCell::new(None) };
}

/// The locale signal (created on first use with the browser's language).
pub fn locale() -> RwSignal<Locale> {
    LOCALE.with(|cell| *cell.borrow_mut().get_or_insert_with(|| RwSignal::new(Locale::from_browser())))
}

/// Text for `key` in `locale`; falls back to English, then to the key itself.
pub fn lookup(locale: Locale, key: &str) -> String {
    TABLES.with(|t| {
        let table = match locale {
            Locale::En => &t.en,
            Locale::Zh => &t.zh,
        };
        table.get(key).or_else(|| t.en.get(key)).cloned().unwrap_or_else(|| key.to_string())
    })
}

/// Whether a key exists (in English, the reference table).
pub fn has(key: &str) -> bool {
    TABLES.with(|t| t.en.contains_key(key))
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
