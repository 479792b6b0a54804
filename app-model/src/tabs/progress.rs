//! The learner's progress through the lessons, kept in the browser's local storage: which lessons
//! they have run, and which of those they predicted right at least once. The lesson list shows it.

use lab_content::lessons::{self, LESSONS};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Local storage key.
pub const STORAGE_KEY: &str = "llm-serving-lab.lessons.v1";

/// How far a learner got with one lesson.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    /// Run to its outcome.
    Done,
    /// Run, and the prediction matched the outcome (at least once).
    Right,
}

impl Mark {
    /// Translation key of the mark's words in the list.
    pub fn key(self) -> &'static str {
        match self {
            Mark::Done => "features.lesson.progress.done",
            Mark::Right => "features.lesson.progress.right",
        }
    }

    /// The mark's id (`data-mark`): as storage writes it.
    pub fn id(self) -> &'static str {
        match self {
            Mark::Done => "done",
            Mark::Right => "right",
        }
    }

    /// The mark's sign in the list: a tick when right, a ring when only run.
    pub fn glyph(self) -> &'static str {
        match self {
            Mark::Done => "○",
            Mark::Right => "✓",
        }
    }
}

/// Every lesson's mark, by lesson id.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Progress {
    marks: BTreeMap<String, Mark>,
}

impl Progress {
    /// Reads what storage holds; anything it cannot read (nothing, another format, a lesson that
    /// no longer exists) counts as not done.
    pub fn parse(text: Option<&str>) -> Progress {
        let marks: BTreeMap<String, Mark> = text.and_then(|t| serde_json::from_str(t).ok()).unwrap_or_default();
        Progress { marks: marks.into_iter().filter(|(id, _)| lessons::find(id).is_some()).collect() }
    }

    pub fn to_text(&self) -> String {
        serde_json::to_string(&self.marks).unwrap_or_default()
    }

    /// A lesson ran to its outcome; `right`: the learner's prediction matched it. A lesson once
    /// predicted right stays so.
    pub fn record(&mut self, id: &str, right: bool) {
        if lessons::find(id).is_none() {
            return;
        }
        let m = self.marks.entry(id.to_string()).or_insert(Mark::Done);
        if right {
            *m = Mark::Right;
        }
    }

    pub fn of(&self, id: &str) -> Option<Mark> {
        self.marks.get(id).copied()
    }

    /// How many of the lessons have been run.
    pub fn done(&self) -> usize {
        LESSONS.iter().filter(|l| self.marks.contains_key(l.id)).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lesson_once_right_stays_right_and_the_record_survives_storage() {
        let mut p = Progress::parse(None);
        assert_eq!((p.of("mean-hides-tail"), p.done()), (None, 0));
        p.record("mean-hides-tail", false);
        assert_eq!(p.of("mean-hides-tail"), Some(Mark::Done));
        p.record("mean-hides-tail", true);
        p.record("mean-hides-tail", false);
        assert_eq!(p.of("mean-hides-tail"), Some(Mark::Right), "a later miss does not undo a right prediction");
        p.record("routing", false);
        p.record("no-such-lesson", true);
        let back = Progress::parse(Some(&p.to_text()));
        assert_eq!(back, p);
        assert_eq!(back.done(), 2);
        assert_eq!(back.of("no-such-lesson"), None);
    }

    #[test]
    fn a_marks_id_is_the_stored_word_and_its_sign_says_right_or_run() {
        for m in [Mark::Done, Mark::Right] {
            assert_eq!(serde_json::to_string(&m).unwrap(), format!("\"{}\"", m.id()));
            assert_eq!(m.id(), format!("{m:?}").to_lowercase());
        }
        assert_eq!((Mark::Right.glyph(), Mark::Done.glyph()), ("✓", "○"));
    }

    #[test]
    fn what_storage_cannot_give_counts_as_not_done() {
        for text in ["", "not json", "[1,2]", r#"{"mean-hides-tail":"perfect"}"#] {
            assert_eq!(Progress::parse(Some(text)), Progress::default(), "{text:?}");
        }
        // a lesson that no longer exists is dropped, the others kept
        let p = Progress::parse(Some(r#"{"gone-lesson":"right","routing":"done"}"#));
        assert_eq!((p.of("gone-lesson"), p.of("routing"), p.done()), (None, Some(Mark::Done), 1));
    }
}
