//! The workbench's tabs: which exist, how the keyboard moves between them, what a click does, and
//! which tab a lesson or an exercise opened elsewhere (a link, another panel) brings up.

/// The workbench's tabs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Lessons,
    Sweep,
    Contract,
    Plan,
    Exercises,
}

/// What a key pressed on a tab asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyMove {
    /// Enter or Space: open this tab.
    Open,
    /// An arrow, Home or End: open that tab and move the focus to it.
    To(Tab),
}

impl Tab {
    pub const ALL: [Tab; 5] = [Tab::Lessons, Tab::Sweep, Tab::Contract, Tab::Plan, Tab::Exercises];

    /// Its name in ids and test ids (`wb-tab-lessons`).
    pub fn id(self) -> &'static str {
        match self {
            Tab::Lessons => "lessons",
            Tab::Sweep => "sweep",
            Tab::Contract => "contract",
            Tab::Plan => "plan",
            Tab::Exercises => "exercises",
        }
    }

    /// Translation key of its label.
    pub fn key(self) -> &'static str {
        match self {
            Tab::Lessons => "features.tab.lessons",
            Tab::Sweep => "features.tab.sweep",
            Tab::Contract => "features.tab.contract",
            Tab::Plan => "features.tab.plan",
            Tab::Exercises => "features.tab.exercises",
        }
    }

    pub fn index(self) -> usize {
        Tab::ALL.iter().position(|x| *x == self).unwrap_or(0)
    }

    /// What `key` (a `KeyboardEvent.key`) pressed on this tab does: the arrows go round.
    pub fn on_key(self, key: &str) -> Option<KeyMove> {
        let n = Tab::ALL.len() as isize;
        let to = match key {
            "Enter" | " " => return Some(KeyMove::Open),
            "ArrowRight" => self.index() as isize + 1,
            "ArrowLeft" => self.index() as isize - 1,
            "Home" => 0,
            "End" => n - 1,
            _ => return None,
        };
        Some(KeyMove::To(Tab::ALL[to.rem_euclid(n) as usize]))
    }

    /// The tab open after a click on this one while `open` is open: a click on the open tab
    /// closes the workbench.
    pub fn clicked(self, open: Option<Tab>) -> Option<Tab> {
        (open != Some(self)).then_some(self)
    }

    /// Whether this tab is the tab list's stop for the keyboard: the open one, or the first when
    /// none is open.
    pub fn tab_stop(self, open: Option<Tab>) -> bool {
        open == Some(self) || (open.is_none() && self == Tab::Lessons)
    }
}

/// The lesson and exercise open on the page, as the workbench last saw them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Opened {
    pub lesson: Option<String>,
    pub exercise: Option<String>,
}

impl Opened {
    /// The tab to bring up when the page's open lesson and exercise become `now` while `tab` is
    /// open: a newly opened lesson shows the lessons, a newly opened exercise the exercises
    /// (unless another tab is open). `self` becomes `now`.
    pub fn follow(&mut self, now: Opened, tab: Option<Tab>) -> Option<Tab> {
        let mut show = None;
        if now.lesson.is_some() && now.lesson != self.lesson && tab != Some(Tab::Lessons) {
            show = Some(Tab::Lessons);
        }
        if now.exercise.is_some() && now.exercise != self.exercise && tab.or(show).is_none() {
            show = Some(Tab::Exercises);
        }
        *self = now;
        show
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrows_go_round_and_enter_opens() {
        assert_eq!(Tab::Lessons.on_key("ArrowLeft"), Some(KeyMove::To(Tab::Exercises)));
        assert_eq!(Tab::Exercises.on_key("ArrowRight"), Some(KeyMove::To(Tab::Lessons)));
        assert_eq!(Tab::Sweep.on_key("ArrowRight"), Some(KeyMove::To(Tab::Contract)));
        assert_eq!(Tab::Contract.on_key("ArrowRight"), Some(KeyMove::To(Tab::Plan)));
        assert_eq!(Tab::Contract.on_key("Home"), Some(KeyMove::To(Tab::Lessons)));
        assert_eq!(Tab::Sweep.on_key("End"), Some(KeyMove::To(Tab::Exercises)));
        assert_eq!(Tab::Sweep.on_key(" "), Some(KeyMove::Open));
        assert_eq!(Tab::Sweep.on_key("a"), None);
    }

    #[test]
    fn a_click_on_the_open_tab_closes_and_the_first_tab_is_the_stop_when_none_is_open() {
        assert_eq!(Tab::Sweep.clicked(Some(Tab::Sweep)), None);
        assert_eq!(Tab::Sweep.clicked(Some(Tab::Lessons)), Some(Tab::Sweep));
        assert_eq!(Tab::Sweep.clicked(None), Some(Tab::Sweep));
        assert!(Tab::Lessons.tab_stop(None));
        assert!(!Tab::Sweep.tab_stop(None));
        assert!(Tab::Sweep.tab_stop(Some(Tab::Sweep)));
        assert!(!Tab::Lessons.tab_stop(Some(Tab::Sweep)));
    }

    #[test]
    fn a_new_lesson_shows_the_lessons_and_a_new_exercise_only_an_idle_workbench() {
        let lesson = |l: &str| Opened { lesson: Some(l.into()), exercise: None };
        let exercise = |e: &str| Opened { lesson: None, exercise: Some(e.into()) };
        let mut seen = Opened::default();
        assert_eq!(seen.follow(lesson("a"), Some(Tab::Sweep)), Some(Tab::Lessons));
        // the same lesson again (a new step) changes nothing
        assert_eq!(seen.follow(lesson("a"), Some(Tab::Sweep)), None);
        assert_eq!(seen.follow(lesson("a"), Some(Tab::Lessons)), None);
        assert_eq!(seen.follow(exercise("x"), Some(Tab::Sweep)), None);
        let mut seen = Opened::default();
        assert_eq!(seen.follow(exercise("x"), None), Some(Tab::Exercises));
        assert_eq!(seen.follow(exercise("x"), None), None);
        assert_eq!(seen.follow(Opened::default(), None), None);
    }
}
