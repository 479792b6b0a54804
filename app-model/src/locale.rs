//! The lab's two languages: reading a `locale` value or a browser's language tag, and which
//! language the page opens in (`locale=`, else the language inside a `lab=` link, else the
//! browser's).

use crate::query::Query;
use crate::share::ShareState;

/// A language of the lab.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocaleCode {
    En,
    Zh,
}

/// The parts of each language's translation tables: `app/i18n/{part}.{locale}.json`, copied
/// beside the page as `i18n/` (the page fetches its language's, [`LocaleCode::table_urls`]).
pub const TABLE_PARTS: [&str; 3] = ["ui", "features", "lessons"];

impl LocaleCode {
    pub const ALL: [LocaleCode; 2] = [LocaleCode::En, LocaleCode::Zh];

    /// The addresses of the language's tables, relative to the page (it works under any path).
    pub fn table_urls(self) -> [String; 3] {
        TABLE_PARTS.map(|part| format!("i18n/{part}.{}.json", self.code()))
    }

    /// `en`, `zh`, or a BCP 47 tag such as `zh-CN` / `en-GB` (any case).
    pub fn parse(s: &str) -> Option<LocaleCode> {
        let s = s.trim().to_ascii_lowercase();
        let is = |code: &str| s == code || s.strip_prefix(code).is_some_and(|r| r.starts_with(['-', '_']));
        if is("zh") {
            Some(LocaleCode::Zh)
        } else if is("en") {
            Some(LocaleCode::En)
        } else {
            None
        }
    }

    pub fn code(self) -> &'static str {
        match self {
            LocaleCode::En => "en",
            LocaleCode::Zh => "zh",
        }
    }

    /// Its tag for `<html lang>` and `lang=` attributes.
    pub fn html_lang(self) -> &'static str {
        match self {
            LocaleCode::En => "en",
            LocaleCode::Zh => "zh-CN",
        }
    }

    /// The other language (shown when this one's texts cannot be fetched).
    pub fn other(self) -> LocaleCode {
        match self {
            LocaleCode::En => LocaleCode::Zh,
            LocaleCode::Zh => LocaleCode::En,
        }
    }

    /// The first of a browser's languages (in its order of preference) that is one of ours, else
    /// English.
    pub fn preferred<'a>(languages: impl IntoIterator<Item = &'a str>) -> LocaleCode {
        languages.into_iter().find_map(LocaleCode::parse).unwrap_or(LocaleCode::En)
    }
}

impl Query {
    /// The language the page opens in: `locale=`, else the language inside a readable `lab=`
    /// link, else the browser's (`browser`, asked only then).
    pub fn opening_locale(&self, browser: impl FnOnce() -> LocaleCode) -> LocaleCode {
        let from_link = || {
            let state = ShareState::decode(self.lab.as_deref()?.trim()).ok()?;
            LocaleCode::parse(state.locale.as_deref()?)
        };
        self.locale.or_else(from_link).unwrap_or_else(browser)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_read_by_their_language() {
        assert_eq!(LocaleCode::parse(" EN-gb "), Some(LocaleCode::En));
        assert_eq!(LocaleCode::parse("zh_TW"), Some(LocaleCode::Zh));
        assert_eq!(LocaleCode::parse("zhx"), None);
        assert_eq!(LocaleCode::Zh.html_lang(), "zh-CN");
        assert_eq!(LocaleCode::Zh.other(), LocaleCode::En);
        assert_eq!(LocaleCode::preferred(["fr-FR", "zh-CN", "en"]), LocaleCode::Zh);
        assert_eq!(LocaleCode::preferred(["fr"]), LocaleCode::En);
    }

    #[test]
    fn the_address_then_the_link_then_the_browser() {
        let s = ShareState {
            locale: Some("zh".into()),
            ..ShareState::new(sim_core::presets::find(sim_core::presets::DEFAULT_PRESET).expect("preset").scenario())
        };
        let with_link = Query::parse(&format!("?lab={}", s.encode()));
        assert_eq!(with_link.opening_locale(|| LocaleCode::En), LocaleCode::Zh);
        let both = Query::parse(&format!("?lab={}&locale=en", s.encode()));
        assert_eq!(both.opening_locale(|| LocaleCode::Zh), LocaleCode::En);
        let none = Query::parse("");
        assert_eq!(none.opening_locale(|| LocaleCode::Zh), LocaleCode::Zh);
        let broken = Query::parse("?lab=garbage");
        assert_eq!(broken.opening_locale(|| LocaleCode::En), LocaleCode::En);
    }
}
