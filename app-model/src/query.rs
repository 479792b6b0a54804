//! The page's query parameters, declared and read in one place. The app hands over
//! `location.search` once; [`Query::parse`] returns typed values and a message for each value it
//! could not use, naming the parameter and the values it may take (the page shows the messages
//! and goes on without those values).
//!
//! | parameter | values | effect |
//! | --- | --- | --- |
//! | `lab` | a share code `2.…` (or an older `1.…`) | the shared state (`sim_core::share`) |
//! | `embed` | `1` (or present); `0`, `false`, `no` turn it off | compact layout for iframes |
//! | `view` | comma list of `stage`, `metrics`, `hbm`, `charts`, `controls` | the parts shown |
//! | `controls` | comma list of control ids (`app_model::controls`) | the only controls shown |
//! | `preset` | a preset id (`sim_core::presets`) | the scenario to open (a `lab` link wins) |
//! | `lesson` | a lesson id (`lab_content::lessons`) | opens that lesson (wins over the link's) |
//! | `exercise` | an exercise id (`lab_content::exercise`) | opens that exercise (wins over the link's) |
//! | `autoplay` | `0`, `false`, `no` (or `1`) | starts paused |
//! | `locale` | `en`, `zh`, or a tag such as `zh-CN` | the language |
//! | `contrast` | `high` | the projector colour profile |
//! | `parent` | an origin, `https://host[:port]` | the embedding page: messages go only to it, commands only from it ([`parent_origin`], `crate::protocol`) |
//! | `panic` | present | panics after mounting (tests the error view) |

use crate::controls::CONTROLS;
use crate::share::ShareState;
use lab_content::{exercise, lessons};
use sim_core::presets;

/// A parameter the page reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    Lab,
    Embed,
    View,
    Controls,
    Preset,
    Lesson,
    Exercise,
    Autoplay,
    Locale,
    Contrast,
    Parent,
    Panic,
}

impl Param {
    pub const ALL: [Param; 12] = [
        Param::Lab,
        Param::Embed,
        Param::View,
        Param::Controls,
        Param::Preset,
        Param::Lesson,
        Param::Exercise,
        Param::Autoplay,
        Param::Locale,
        Param::Contrast,
        Param::Parent,
        Param::Panic,
    ];

    /// Its name in the address.
    pub fn name(self) -> &'static str {
        match self {
            Param::Lab => "lab",
            Param::Embed => "embed",
            Param::View => "view",
            Param::Controls => "controls",
            Param::Preset => "preset",
            Param::Lesson => "lesson",
            Param::Exercise => "exercise",
            Param::Autoplay => "autoplay",
            Param::Locale => "locale",
            Param::Contrast => "contrast",
            Param::Parent => "parent",
            Param::Panic => "panic",
        }
    }

    /// The values it takes, in words (for messages).
    pub fn allowed(self) -> String {
        let list = |ids: Vec<String>| ids.join(", ");
        match self {
            Param::Lab => "a share code 2.… or 1.…".into(),
            Param::Embed => "1, or 0 / false / no".into(),
            Param::View => format!("a comma list of {}", list(Part::ALL.iter().map(|p| p.name().into()).collect())),
            Param::Controls => {
                format!("a comma list of control ids: {}", list(CONTROLS.iter().map(|c| c.id.into()).collect()))
            }
            Param::Preset => list(presets::PRESETS.iter().map(|p| p.id.into()).collect()),
            Param::Lesson => list(lessons::LESSONS.iter().map(|l| l.id.into()).collect()),
            Param::Exercise => list(exercise::exercises().into_iter().map(|e| e.id).collect()),
            Param::Autoplay => "0 / false / no (starts paused), or 1".into(),
            Param::Locale => "en or zh (or a tag such as zh-CN)".into(),
            Param::Contrast => "high".into(),
            Param::Parent => "an origin such as https://docs.example.org (no path)".into(),
            Param::Panic => "no value".into(),
        }
    }

    /// Parameters that say how the page is shown: they stay in the address when the state
    /// changes (`lab` and `locale` are rewritten from the state; `preset`, `lesson` and
    /// `exercise` are in the state once it opened).
    pub const SHOWN: [Param; 6] =
        [Param::Embed, Param::View, Param::Controls, Param::Autoplay, Param::Contrast, Param::Parent];

    /// Parameters the error view's reset link keeps (the default scenario, shown the same way).
    pub const KEPT_ON_RESET: [Param; 6] =
        [Param::Embed, Param::View, Param::Controls, Param::Locale, Param::Contrast, Param::Parent];
}

/// A part of the page `view=` can show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The animated stage (with its legend).
    Stage,
    /// The live metrics.
    Metrics,
    /// The HBM gauge under the stage.
    Hbm,
    /// The CDFs and time series.
    Charts,
    /// The scenario editor.
    Controls,
}

impl Part {
    pub const ALL: [Part; 5] = [Part::Stage, Part::Metrics, Part::Hbm, Part::Charts, Part::Controls];

    /// What an embedded page shows without `view=`: the stage, the key numbers, the memory.
    pub const EMBED_DEFAULT: [Part; 3] = [Part::Stage, Part::Metrics, Part::Hbm];

    pub fn name(self) -> &'static str {
        match self {
            Part::Stage => "stage",
            Part::Metrics => "metrics",
            Part::Hbm => "hbm",
            Part::Charts => "charts",
            Part::Controls => "controls",
        }
    }

    pub fn parse(s: &str) -> Option<Part> {
        Part::ALL.into_iter().find(|p| p.name() == s.trim())
    }
}

pub use crate::locale::LocaleCode;

/// What the address asks for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Query {
    /// The raw query string, without the leading `?`.
    pub raw: String,
    /// A shared state's code, not yet decoded.
    pub lab: Option<String>,
    pub embed: bool,
    /// The parts `view=` asked for, in its order (`None`: not given, or nothing usable in it).
    pub view: Option<Vec<Part>>,
    /// The only controls to show, by control id (`None`: every control).
    pub controls: Option<Vec<&'static str>>,
    /// A built-in preset to open.
    pub preset: Option<&'static str>,
    /// A lesson to open.
    pub lesson: Option<&'static str>,
    /// An exercise to open.
    pub exercise: Option<String>,
    /// `autoplay=0`: the runs start paused.
    pub paused: bool,
    pub locale: Option<LocaleCode>,
    /// The projector colour profile.
    pub high_contrast: bool,
    /// The embedding page's origin (`crate::protocol::parent_origin`).
    pub parent: Option<String>,
    pub panic: bool,
    /// Values that could not be used, in words (parameter, what it was, what it may be).
    pub problems: Vec<String>,
}

/// What the first-frame module (`lab-first`) reads of an address: its language and colour
/// profile, when it asks for nothing else (of the lab's parameters only `locale=` and
/// `contrast=`); `None` otherwise. It reads no catalogue, lesson or exercise, so the module
/// stays small, and it is never more willing than [`crate::page::first_frame_opening`] (tested).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FirstAddress {
    pub locale: Option<LocaleCode>,
    pub high_contrast: bool,
}

impl FirstAddress {
    pub fn parse(search: &str) -> Option<FirstAddress> {
        let mut a = FirstAddress::default();
        let mut seen: Vec<Param> = Vec::new();
        for pair in search.trim_start_matches('?').split('&').filter(|p| !p.is_empty()) {
            let (name, value) = match pair.split_once('=') {
                Some((k, v)) => (k, decode_component(v)),
                None => (pair, String::new()),
            };
            let Some(param) = Param::ALL.into_iter().find(|p| p.name() == name) else { continue };
            if seen.contains(&param) {
                continue;
            }
            seen.push(param);
            match param {
                Param::Locale => a.locale = LocaleCode::parse(&value),
                Param::Contrast => a.high_contrast = value == "high",
                _ => return None,
            }
        }
        Some(a)
    }
}

impl FirstAddress {
    /// The language `locale=` asks for (its first occurrence, if it names one), whatever else
    /// the address asks: the page's tables are fetched beside its module in that language, or
    /// the browser's.
    pub fn locale_of(search: &str) -> Option<LocaleCode> {
        let value = search.trim_start_matches('?').split('&').find_map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (k == Param::Locale.name()).then(|| decode_component(v))
        })?;
        LocaleCode::parse(&value)
    }
}

/// A `parent=` value as an origin (`https://host[:port]`, lower-cased, no path), or `None` when
/// it is not one.
pub fn parent_origin(v: &str) -> Option<String> {
    let v = v.trim().trim_end_matches('/');
    let (scheme, rest) = v.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if !matches!(scheme.as_str(), "http" | "https") || rest.is_empty() {
        return None;
    }
    let host_ok = rest.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'));
    // the port, after the host (an IPv6 host is in brackets)
    let after_host = match rest.strip_prefix('[') {
        Some(r) => r.split_once(']').map(|(_, p)| p),
        None => Some(rest.split_once(':').map_or("", |(_, p)| p)).filter(|_| !rest.starts_with(':')),
    };
    let port_ok = match after_host {
        Some("") => true,
        Some(p) => p.strip_prefix(':').or(Some(p)).is_some_and(|p| p.parse::<u16>().is_ok()),
        None => false,
    };
    (host_ok && port_ok).then(|| format!("{scheme}://{}", rest.to_ascii_lowercase()))
}

/// Splits a comma list into its trimmed, non-empty items.
fn items(v: &str) -> impl Iterator<Item = &str> {
    v.split(',').map(str::trim).filter(|x| !x.is_empty())
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
            let mut bad = |what: &str| {
                let what = if what.is_empty() { String::new() } else { format!(" ({what})") };
                q.problems.push(format!("{}={v:?} is ignored{what}: it may be {}", param.name(), param.allowed()))
            };
            let off = matches!(v.as_str(), "0" | "false" | "no");
            match param {
                Param::Lab => q.lab = Some(v.clone()),
                Param::Embed => q.embed = !off,
                Param::View => {
                    let (good, unknown): (Vec<&str>, Vec<&str>) = items(&v).partition(|x| Part::parse(x).is_some());
                    let mut parts: Vec<Part> = Vec::new();
                    for p in good.iter().filter_map(|x| Part::parse(x)) {
                        if !parts.contains(&p) {
                            parts.push(p);
                        }
                    }
                    if !unknown.is_empty() {
                        bad(&format!("unknown: {}", unknown.join(", ")));
                    } else if parts.is_empty() {
                        bad("empty");
                    }
                    q.view = (!parts.is_empty()).then_some(parts);
                }
                Param::Controls => {
                    let mut ids: Vec<&'static str> = Vec::new();
                    let mut unknown: Vec<&str> = Vec::new();
                    for x in items(&v) {
                        match CONTROLS.iter().find(|c| c.id == x) {
                            Some(c) if !ids.contains(&c.id) => ids.push(c.id),
                            Some(_) => {}
                            None => unknown.push(x),
                        }
                    }
                    if !unknown.is_empty() {
                        bad(&format!("unknown: {}", unknown.join(", ")));
                    } else if ids.is_empty() {
                        bad("empty");
                    }
                    q.controls = (!ids.is_empty()).then_some(ids);
                }
                Param::Preset => match presets::find(v.trim()) {
                    Some(p) => q.preset = Some(p.id),
                    None => bad(""),
                },
                Param::Lesson => match lessons::find(v.trim()) {
                    Some(l) => q.lesson = Some(l.id),
                    None => bad(""),
                },
                Param::Exercise => match exercise::exercises().into_iter().find(|e| e.id == v.trim()) {
                    Some(e) => q.exercise = Some(e.id),
                    None => bad(""),
                },
                Param::Autoplay => match v.as_str() {
                    "0" | "false" | "no" => q.paused = true,
                    "" | "1" | "true" | "yes" => {}
                    _ => bad(""),
                },
                Param::Locale => match LocaleCode::parse(&v) {
                    Some(l) => q.locale = Some(l),
                    None => bad(""),
                },
                Param::Contrast => {
                    if v == "high" {
                        q.high_contrast = true;
                    } else {
                        bad("");
                    }
                }
                Param::Parent => match parent_origin(&v) {
                    Some(o) => q.parent = Some(o),
                    None => bad(""),
                },
                Param::Panic => q.panic = true,
            }
        }
        if q.lab.is_some() {
            if let Some(p) = q.preset {
                q.problems.push(format!(
                    "preset={p:?} is ignored: lab= carries its own scenario (the preset opens only when the link cannot)"
                ));
            }
        }
        q
    }

    /// Whether the page shows `part`: what `view=` lists; without it, everything — or, embedded,
    /// [`Part::EMBED_DEFAULT`] (and the controls when `controls=` names some).
    pub fn shows(&self, part: Part) -> bool {
        match &self.view {
            Some(parts) => parts.contains(&part),
            None if self.embed => {
                Part::EMBED_DEFAULT.contains(&part) || (part == Part::Controls && self.controls.is_some())
            }
            None => true,
        }
    }

    /// Whether the editor shows the control `id` (every control unless `controls=` lists some).
    pub fn shows_control(&self, id: &str) -> bool {
        self.controls.as_ref().is_none_or(|ids| ids.contains(&id))
    }

    /// What the page opens: the link's state when it could be opened (`link`), else the preset
    /// asked for; then `lesson=` and `exercise=` open over either. `None`: the default opening.
    pub fn opening(&self, link: Option<ShareState>) -> Option<ShareState> {
        let mut state = link.or_else(|| self.preset.and_then(presets::find).map(|p| ShareState::new(p.scenario())));
        if self.lesson.is_none() && self.exercise.is_none() {
            return state;
        }
        if state.is_none() {
            state = presets::find(presets::DEFAULT_PRESET).map(|p| ShareState::new(p.scenario()));
        }
        let s = state.as_mut()?;
        if let Some(l) = self.lesson {
            s.lesson = Some(l.to_string());
            s.step = Some(0);
        }
        if let Some(e) = &self.exercise {
            s.exercise = Some(e.clone());
        }
        state
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

/// The address an embed opens: `base` (the lab's page) with `embed=1`, the parts shown when
/// they are not the embed's default, and the state.
pub fn embed_src(base: &str, state: &ShareState, parts: &[Part]) -> String {
    let mut q = vec!["embed=1".to_string()];
    if let Some(v) = view_value(parts) {
        q.push(format!("view={v}"));
    }
    q.push(format!("lab={}", state.encode()));
    format!("{base}?{}", q.join("&"))
}

/// The `view=` value for `parts`, in the page's order; `None` when they are the embed's default
/// (or none).
pub fn view_value(parts: &[Part]) -> Option<String> {
    let default: Vec<Part> = Part::ALL.into_iter().filter(|p| Part::EMBED_DEFAULT.contains(p)).collect();
    let chosen: Vec<Part> = Part::ALL.into_iter().filter(|p| parts.contains(p)).collect();
    (chosen != default && !chosen.is_empty()).then(|| chosen.iter().map(|p| p.name()).collect::<Vec<_>>().join(","))
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

    #[test]
    fn view_lists_parts() {
        let q = Query::parse("embed=1&view=metrics,%20stage,metrics");
        assert_eq!(q.view, Some(vec![Part::Metrics, Part::Stage]), "in order, once each");
        assert!(q.problems.is_empty(), "{:?}", q.problems);
        assert!(q.shows(Part::Stage) && q.shows(Part::Metrics));
        assert!(!q.shows(Part::Hbm) && !q.shows(Part::Charts) && !q.shows(Part::Controls));
        // without view=: everything, or embedded the stage, metrics and memory
        let all = Query::parse("");
        assert!(Part::ALL.iter().all(|p| all.shows(*p)));
        let embed = Query::parse("embed");
        let shown: Vec<Part> = Part::ALL.into_iter().filter(|p| embed.shows(*p)).collect();
        assert_eq!(shown, Part::EMBED_DEFAULT);
    }

    #[test]
    fn bad_view_names_the_unknown_parts_and_keeps_the_good_ones() {
        let q = Query::parse("view=stage,graphs,,knobs");
        assert_eq!(q.view, Some(vec![Part::Stage]));
        assert_eq!(q.problems.len(), 1);
        let m = &q.problems[0];
        assert!(m.starts_with("view=\"stage,graphs,,knobs\" is ignored (unknown: graphs, knobs)"), "{m}");
        assert!(m.contains("stage, metrics, hbm, charts, controls"), "{m}");
        let empty = Query::parse("view=");
        assert_eq!(empty.view, None);
        assert!(empty.problems[0].contains("(empty)"), "{:?}", empty.problems);
    }

    #[test]
    fn controls_are_control_ids() {
        let q = Query::parse("controls=scheduler.max_num_seqs,classes.arrival.rate_per_s");
        assert_eq!(q.controls, Some(vec!["scheduler.max_num_seqs", "classes.arrival.rate_per_s"]));
        assert!(q.problems.is_empty(), "{:?}", q.problems);
        assert!(q.shows_control("scheduler.max_num_seqs") && !q.shows_control("model"));
        assert!(Query::parse("").shows_control("model"));
        // embedded, naming controls shows the editor with them
        assert!(Query::parse("embed=1&controls=model").shows(Part::Controls));
        assert!(!Query::parse("embed=1&view=stage&controls=model").shows(Part::Controls), "view= decides");
        let bad = Query::parse("controls=model,max_num_seqs,warp");
        assert_eq!(bad.controls, Some(vec!["model"]));
        let m = &bad.problems[0];
        assert!(m.contains("controls=") && m.contains("(unknown: max_num_seqs, warp)"), "{m}");
        assert!(m.contains("scheduler.max_num_seqs"), "lists the control ids: {m}");
    }

    #[test]
    fn preset_lesson_exercise_and_autoplay() {
        let lesson = lab_content::lessons::LESSONS[0].id;
        let ex = lab_content::exercise::exercises()[0].id.clone();
        let q = Query::parse(&format!("preset=static-batching&lesson={lesson}&exercise={ex}&autoplay=0"));
        assert!(q.problems.is_empty(), "{:?}", q.problems);
        assert_eq!(q.preset, Some("static-batching"));
        assert_eq!(q.lesson, Some(lesson));
        assert_eq!(q.exercise.as_deref(), Some(ex.as_str()));
        assert!(q.paused);
        assert!(!Query::parse("autoplay=1").paused && !Query::parse("").paused);
        let bad = Query::parse("preset=fast&lesson=nope&exercise=x&autoplay=later");
        assert_eq!((bad.preset, bad.lesson, bad.exercise.clone(), bad.paused), (None, None, None, false));
        let names: Vec<&str> = bad.problems.iter().map(|m| m.split('=').next().unwrap()).collect();
        assert_eq!(names, ["preset", "lesson", "exercise", "autoplay"]);
        assert!(bad.problems[0].contains("chat-latency-first") && bad.problems[0].contains("static-batching"));
        assert!(bad.problems[1].contains(lesson));
        assert!(bad.problems[2].contains(&ex));
        assert!(bad.problems[3].contains("0 / false / no"));
    }

    #[test]
    fn opening_follows_link_then_preset_then_lesson_and_exercise() {
        let lesson = lab_content::lessons::LESSONS[1].id;
        // nothing asked: the default opening
        assert_eq!(Query::parse("embed=1").opening(None), None);
        // a preset alone
        let p = Query::parse("preset=mixed-shared").opening(None).unwrap();
        assert_eq!(p, ShareState::new(presets::find("mixed-shared").unwrap().scenario()));
        // a link wins over preset= (and says so), lesson= wins over the link's lesson
        let mut link = ShareState::new(presets::find("static-batching").unwrap().scenario());
        link.lesson = Some("other".into());
        link.step = Some(3);
        let q = Query::parse(&format!("lab={}&preset=mixed-shared&lesson={lesson}", link.encode()));
        assert!(q.problems.len() == 1 && q.problems[0].starts_with("preset=\"mixed-shared\" is ignored: lab="));
        let opened = q.opening(Some(link.clone())).unwrap();
        assert_eq!(opened.scenario, link.scenario);
        assert_eq!((opened.lesson.as_deref(), opened.step), (Some(lesson), Some(0)));
        // a link that could not be opened: the preset asked for
        assert_eq!(q.opening(None).unwrap().scenario, presets::find("mixed-shared").unwrap().scenario());
        // a lesson alone opens over the default preset
        let l = Query::parse(&format!("lesson={lesson}")).opening(None).unwrap();
        assert_eq!(l.scenario, presets::find(presets::DEFAULT_PRESET).unwrap().scenario());
        assert_eq!(l.lesson.as_deref(), Some(lesson));
        // a link's exercise stays unless exercise= names another
        let mut with_ex = link;
        with_ex.exercise = Some("kept".into());
        assert_eq!(Query::parse("").opening(Some(with_ex.clone())).unwrap().exercise.as_deref(), Some("kept"));
    }

    #[test]
    fn shown_parameters_survive_address_rewrites() {
        let q = Query::parse("embed=1&view=stage&controls=model&autoplay=0&preset=static-batching&locale=zh");
        assert_eq!(q.kept(&Param::SHOWN), ["embed=1", "view=stage", "controls=model", "autoplay=0"]);
        assert_eq!(q.kept(&Param::KEPT_ON_RESET), ["embed=1", "view=stage", "controls=model", "locale=zh"]);
    }

    #[test]
    fn embed_code_has_its_size_parts_and_state() {
        use crate::share::embed_code;
        let mut s = ShareState::new(presets::find("mixed-isolated").unwrap().scenario());
        s.lesson = Some("mixed-traffic".into());
        s.step = Some(2);
        s.locked = vec!["scheduler.isolation".into()];
        s.locale = Some("zh".into());
        let src = embed_src("https://x.org/lab/", &s, &[Part::Metrics, Part::Stage]);
        assert!(src.starts_with("https://x.org/lab/?embed=1&view=stage,metrics&lab=2."), "{src}");
        let default = embed_src("https://x.org/lab/", &s, &Part::EMBED_DEFAULT);
        assert!(!default.contains("view="), "{default}");
        // the page reads back what the code says
        let q = Query::parse(src.split_once('?').unwrap().1);
        assert!(q.embed && q.problems.is_empty(), "{:?}", q.problems);
        assert_eq!(q.view, Some(vec![Part::Stage, Part::Metrics]));
        assert_eq!(ShareState::decode(q.lab.as_deref().unwrap()).unwrap(), s);
        let code = embed_code(&src, (640, 400));
        assert!(
            code.starts_with("<iframe src=\"https://x.org/lab/?embed=1&amp;view=stage,metrics&amp;lab=2."),
            "{code}"
        );
        assert!(code.contains("width=\"640\" height=\"400\""), "{code}");
        assert!(code.ends_with("></iframe>"));
    }
}
