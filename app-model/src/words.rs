//! The page's words as the model takes them: a [`Words`] translator (the page gives its
//! translation tables, a test gives keys), and a [`Msg`] said through it.

use crate::messages::{list_words, Arg, Msg};

/// The page's words: a translation and a template with `{name}` placeholders filled (the page
/// gives its translation tables; a test gives keys).
pub trait Words {
    fn t(&self, key: &str) -> String;
    fn tf(&self, key: &str, args: &[(&str, String)]) -> String;
}

impl Msg {
    /// In the page's words: its key's text with each placeholder filled (labels and units
    /// translated, nested messages worded, alternatives joined with `msg.or`, lists with
    /// `msg.list_sep` and `msg.list_last`).
    pub fn said(&self, w: &dyn Words) -> String {
        let args: Vec<(&str, String)> = self
            .args
            .iter()
            .map(|(name, arg)| {
                let v = match arg {
                    Arg::Text(s) => s.clone(),
                    Arg::Key(k) => w.t(k),
                    Arg::Label(k) => w.t(k),
                    Arg::Msg(inner) => inner.said(w),
                    Arg::Or(list) => list.iter().map(|m| m.said(w)).collect::<Vec<_>>().join(&w.t("msg.or")),
                    Arg::List(items) => list_words(items, &w.t("msg.list_sep"), &w.t("msg.list_last")),
                };
                (*name, v)
            })
            .collect();
        w.tf(self.key, &args)
    }
}

/// Text the page shows: as it is, or a translation key with its placeholders' values.
#[derive(Clone, Debug, PartialEq)]
pub enum Said {
    Text(String),
    Fill(&'static str, Vec<(&'static str, String)>),
}

impl Said {
    /// A translation key's text alone.
    pub fn key(key: &'static str) -> Said {
        Said::Fill(key, Vec::new())
    }

    /// In the page's words.
    pub fn words(&self, w: &dyn Words) -> String {
        match self {
            Said::Text(s) => s.clone(),
            Said::Fill(key, args) => w.tf(key, args),
        }
    }
}

/// Words that show their key and arguments (`key{a=1,b=2}`): what the tests word things with.
#[cfg(test)]
pub(crate) struct Keys;

#[cfg(test)]
impl Words for Keys {
    fn t(&self, key: &str) -> String {
        key.to_string()
    }
    fn tf(&self, key: &str, args: &[(&str, String)]) -> String {
        let args: Vec<String> = args.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{key}{{{}}}", args.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::fill;

    #[test]
    fn a_message_is_said_with_its_labels_translated_and_its_parts_joined() {
        struct Table;
        impl Words for Table {
            fn t(&self, key: &str) -> String {
                let text = match key {
                    "msg.or" => ", or ",
                    "msg.list_sep" => ", ",
                    "msg.list_last" => " or ",
                    "label.rate" => "Rate",
                    "outer" => "{what} must be {range} ({of}; {n})",
                    "inner" => "at least {lo}",
                    k => k,
                };
                text.to_string()
            }
            fn tf(&self, key: &str, args: &[(&str, String)]) -> String {
                fill(&self.t(key), args)
            }
        }
        let inner = |lo: &str| Msg { key: "inner", args: vec![("lo", Arg::Text(lo.into()))] };
        let m = Msg {
            key: "outer",
            args: vec![
                ("what", Arg::Key("label.rate")),
                ("range", Arg::Or(vec![inner("1"), inner("2")])),
                ("of", Arg::List(vec!["1".into(), "2".into(), "4".into()])),
                ("n", Arg::Msg(Box::new(inner("3")))),
            ],
        };
        assert_eq!(m.said(&Table), "Rate must be at least 1, or at least 2 (1, 2 or 4; at least 3)");
    }
}
