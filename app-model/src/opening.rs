//! What the page does with its address when it opens (read once, before the runs start): embed
//! mode and the parts it hides, the projector profile, the shared state a link carries (or why
//! it cannot be used), what `preset=`, `lesson=` and `exercise=` open, whether the runs start
//! paused, and the language.

use crate::address::embed_without_workbench;
use crate::link::{self, LinkProblem};
use crate::locale::LocaleCode;
use crate::query::{Part, Query};
use crate::share::ShareState;

/// The page's opening, decided from its address.
#[derive(Clone, Debug, PartialEq)]
pub struct Opening {
    pub embed: bool,
    pub high_contrast: bool,
    /// Classes for `<body>`: `hide-<part>` for each part not shown, `only-controls` when
    /// `controls=` names the controls, `no-workbench` for an embed that teaches nothing.
    pub body_classes: Vec<String>,
    /// Why the link cannot be used (the page shows the default scenario and says so).
    pub problem: Option<LinkProblem>,
    /// The state to put on the page: the link's, or what `preset=`, `lesson=`, `exercise=` ask.
    pub state: Option<ShareState>,
    /// The exercise and the lesson to open as their own buttons do (their scenarios on the stage).
    pub exercise: Option<String>,
    pub lesson: Option<&'static str>,
    pub paused: bool,
    /// `locale=`, else the link's language.
    pub locale: Option<LocaleCode>,
}

impl Opening {
    pub fn of(q: &Query) -> Opening {
        let (opened, problem) = match q.lab.as_deref().map(link::open) {
            Some(Ok(state)) => (Some(state), None),
            Some(Err(problem)) => (None, Some(problem)),
            None => (None, None),
        };
        let state = q.opening(opened);
        let mut body_classes: Vec<String> =
            Part::ALL.into_iter().filter(|p| !q.shows(*p)).map(|p| format!("hide-{}", p.name())).collect();
        if q.controls.is_some() {
            body_classes.push("only-controls".into());
        }
        if embed_without_workbench(q.embed, state.as_ref()) {
            body_classes.push("no-workbench".into());
        }
        let link_locale = state.as_ref().and_then(|s| s.locale.as_deref()).and_then(LocaleCode::parse);
        Opening {
            embed: q.embed,
            high_contrast: q.high_contrast,
            body_classes,
            problem,
            state,
            exercise: q.exercise.clone(),
            lesson: q.lesson,
            paused: q.paused,
            locale: q.locale.or(link_locale),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::{presets, Scenario};

    fn link(locale: &str) -> String {
        let s = Scenario::from_json(presets::find(presets::DEFAULT_PRESET).expect("preset").json).expect("valid");
        let mut state = ShareState::new(s);
        state.locale = Some(locale.into());
        state.encode()
    }

    #[test]
    fn a_plain_address_opens_the_default_page() {
        let o = Opening::of(&Query::parse(""));
        assert!(!o.embed && !o.high_contrast && !o.paused);
        assert_eq!((o.body_classes.len(), o.problem, o.state, o.locale), (0, None, None, None));
    }

    #[test]
    fn a_link_brings_its_state_and_language_unless_locale_says_otherwise() {
        let o = Opening::of(&Query::parse(&format!("lab={}", link("zh"))));
        assert!(o.state.is_some() && o.problem.is_none());
        assert_eq!(o.locale, LocaleCode::parse("zh"));
        let o = Opening::of(&Query::parse(&format!("lab={}&locale=en&autoplay=0&contrast=high", link("zh"))));
        assert_eq!(o.locale, LocaleCode::parse("en"));
        assert!(o.paused && o.high_contrast);
        let o = Opening::of(&Query::parse("lab=damaged"));
        assert!(matches!(o.problem, Some(LinkProblem::Unreadable(_))));
        assert_eq!(o.state, None);
    }

    #[test]
    fn an_embed_hides_the_parts_it_does_not_show_and_the_workbench_unless_it_teaches() {
        let q = Query::parse("embed=1");
        let o = Opening::of(&q);
        assert!(o.embed);
        for p in Part::ALL {
            assert_eq!(o.body_classes.contains(&format!("hide-{}", p.name())), !q.shows(p), "{}", p.name());
        }
        assert!(o.body_classes.contains(&"no-workbench".to_string()));
        let lesson = LESSON_ID;
        let o = Opening::of(&Query::parse(&format!("embed=1&lesson={lesson}")));
        assert!(!o.body_classes.contains(&"no-workbench".to_string()));
        assert_eq!(o.lesson, Some(lesson));
        assert_eq!(o.state.and_then(|s| s.lesson).as_deref(), Some(lesson));
        let o = Opening::of(&Query::parse("controls=scheduler.max_num_seqs"));
        assert!(o.body_classes.contains(&"only-controls".to_string()));
    }

    const LESSON_ID: &str = "ttft-vs-tpot";
}
