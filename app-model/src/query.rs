//! The page's query parameters, declared and read in one place. The app hands over
//! `location.search` once; [`Query::parse`] returns typed values and a message for each value it
//! could not use (the page goes on without it).
//!
//! | parameter | values | effect |
//! | --- | --- | --- |
//! | `lab` | `1.<base64url JSON>` | the shared state (`sim_core::share`) |
//! | `embed` | `1` (or present); `0`, `false`, `no` turn it off | compact layout for iframes |
//! | `locale` | `en`, `zh`, or a tag such as `zh-CN` | the language |
//! | `contrast` | `high` | the projector colour profile |
//! | `panic` | present | panics after mounting (tests the error view) |

/// A parameter the page reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    Lab,
    Embed,
    Locale,
    Contrast,
    Panic,
}

impl Param {
    pub const ALL: [Param; 5] = [Param::Lab, Param::Embed, Param::Locale, Param::Contrast, Param::Panic];

    /// Its name in the address.
    pub fn name(self) -> &'static str {
        match self {
            Param::Lab => "lab",
            Param::Embed => "embed",
            Param::Locale => "locale",
            Param::Contrast => "contrast",
            Param::Panic => "panic",
        }
    }

    /// The values it takes, in words (for messages).
    pub fn allowed(self) -> &'static str {
        match self {
            Param::Lab => "a share code 1.<base64url JSON>",
            Param::Embed => "1, or 0 / false / no",
            Param::Locale => "en or zh (or a tag such as zh-CN)",
            Param::Contrast => "high",
            Param::Panic => "no value",
        }
    }

    /// Parameters that say how the page is shown: they stay in the address when the state
    /// changes (`lab` and `locale` are rewritten from the state).
    pub const SHOWN: [Param; 2] = [Param::Embed, Param::Contrast];

    /// Parameters the error view's reset link keeps (the default scenario, shown the same way).
    pub const KEPT_ON_RESET: [Param; 3] = [Param::Embed, Param::Locale, Param::Contrast];
}

/// The language a `locale` value asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocaleCode {
    En,
    Zh,
}

impl LocaleCode {
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
}

/// What the address asks for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Query {
    /// The raw query string, without the leading `?`.
    pub raw: String,
    /// A shared state's code, not yet decoded.
    pub lab: Option<String>,
    pub embed: bool,
    pub locale: Option<LocaleCode>,
    /// The projector colour profile.
    pub high_contrast: bool,
    pub panic: bool,
    /// Values that could not be used, in words (parameter, what it was, what it may be).
    pub problems: Vec<String>,
}

impl Query {
    /// Reads `search` (`?a=1&b=2`, the leading `?` optional). The first occurrence of a
    /// parameter counts; unknown parameters are ignored.
    pub fn parse(search: &str) -> Query {
        let raw = search.trim_start_matches('?').to_string();
        let mut q = Query { raw, ..Query::default() };
        let mut seen: Vec<Param> = Vec::new();
        let pairs: Vec<(String, Option<String>)> = q
            .raw
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|pair| match pair.split_once('=') {
                Some((k, v)) => (k.to_string(), Some(decode_component(v))),
                None => (pair.to_string(), None),
            })
            .collect();
        for (name, value) in pairs {
            let Some(param) = Param::ALL.into_iter().find(|p| p.name() == name) else { continue };
            if seen.contains(&param) {
                continue;
            }
            seen.push(param);
            let v = value.unwrap_or_default();
            let mut bad =
                || q.problems.push(format!("{}={v:?} is ignored: it may be {}", param.name(), param.allowed()));
            match param {
                Param::Lab => q.lab = Some(v),
                Param::Embed => q.embed = !matches!(v.as_str(), "0" | "false" | "no"),
                Param::Locale => match LocaleCode::parse(&v) {
                    Some(l) => q.locale = Some(l),
                    None => bad(),
                },
                Param::Contrast => {
                    if v == "high" {
                        q.high_contrast = true;
                    } else {
                        bad();
                    }
                }
                Param::Panic => q.panic = true,
            }
        }
        q
    }

    /// The raw `name=value` pairs of `params`, as they were written, in their order.
    pub fn kept(&self, params: &[Param]) -> Vec<String> {
        self.raw
            .split('&')
            .filter(|pair| {
                let name = pair.split('=').next().unwrap_or("");
                params.iter().any(|p| p.name() == name)
            })
            .map(str::to_string)
            .collect()
    }
}

/// Decodes one query value: `+` is a space, `%XX` a byte; text that is not valid percent-encoded
/// UTF-8 stays as written (with `+` as spaces).
pub fn decode_component(v: &str) -> String {
    let v = v.replace('+', " ");
    let bytes = v.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
            match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                Some(b) => {
                    out.push(b);
                    i += 3;
                    continue;
                }
                None => return v,
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_parameter() {
        let q = Query::parse("?embed=1&locale=zh-CN&contrast=high&lab=1.abc&panic");
        assert!(q.embed && q.high_contrast && q.panic);
        assert_eq!(q.locale, Some(LocaleCode::Zh));
        assert_eq!(q.lab.as_deref(), Some("1.abc"));
        assert!(q.problems.is_empty(), "{:?}", q.problems);
        let none = Query::parse("");
        assert_eq!(none, Query::default());
    }

    #[test]
    fn embed_is_on_unless_turned_off() {
        assert!(Query::parse("embed").embed);
        assert!(Query::parse("embed=yes").embed);
        for off in ["0", "false", "no"] {
            assert!(!Query::parse(&format!("embed={off}")).embed);
        }
        assert!(!Query::parse("x=embed").embed);
    }

    #[test]
    fn bad_values_are_named_with_what_is_allowed() {
        let q = Query::parse("locale=fr&contrast=low&locale=zh");
        assert_eq!(q.locale, None, "the first occurrence counts");
        assert!(!q.high_contrast);
        assert_eq!(q.problems.len(), 2);
        assert!(q.problems[0].contains("locale=\"fr\"") && q.problems[0].contains("en or zh"));
        assert!(q.problems[1].contains("contrast") && q.problems[1].contains("high"));
    }

    #[test]
    fn values_are_percent_decoded() {
        assert_eq!(decode_component("a%20b+c"), "a b c");
        assert_eq!(decode_component("%E4%B8%AD"), "中");
        // not percent-encoding: as written
        assert_eq!(decode_component("100%"), "100%");
        assert_eq!(decode_component("%ZZ"), "%ZZ");
        assert_eq!(decode_component("%FF"), "%FF");
        assert_eq!(Query::parse("lab=1.a%2Db").lab.as_deref(), Some("1.a-b"));
    }

    #[test]
    fn kept_parameters_stay_as_written() {
        let q = Query::parse("?lab=1.x&embed=1&locale=zh&contrast=high&foo=2");
        assert_eq!(q.kept(&Param::SHOWN), ["embed=1", "contrast=high"]);
        assert_eq!(q.kept(&Param::KEPT_ON_RESET), ["embed=1", "locale=zh", "contrast=high"]);
        assert!(Query::parse("").kept(&Param::SHOWN).is_empty());
    }

    #[test]
    fn locale_codes() {
        assert_eq!(LocaleCode::parse(" EN-gb "), Some(LocaleCode::En));
        assert_eq!(LocaleCode::parse("zh_TW"), Some(LocaleCode::Zh));
        assert_eq!(LocaleCode::parse("zhx"), None);
        assert_eq!(LocaleCode::Zh.code(), "zh");
    }
}
