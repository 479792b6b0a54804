//! The transport bar's state: what the run is doing, as scripts read it (`data-state`) and as
//! the page says it.

/// What the runs on screen are doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayState {
    /// A lesson holds the runs at their start until the learner has predicted.
    Held,
    /// Fast-forwarding to the end.
    RunningToEnd,
    /// Every request of every run has ended.
    Finished,
    Playing,
    Paused,
}

impl PlayState {
    /// The state from the page's flags; a lesson's hold wins over everything, fast-forward over
    /// finished, finished over playing.
    pub fn of(held: bool, fast_forward: bool, finished: bool, playing: bool) -> PlayState {
        if held {
            PlayState::Held
        } else if fast_forward {
            PlayState::RunningToEnd
        } else if finished {
            PlayState::Finished
        } else if playing {
            PlayState::Playing
        } else {
            PlayState::Paused
        }
    }

    /// `data-state` of the status line (the browser tests and embedding pages read it).
    pub fn code(self) -> &'static str {
        match self {
            PlayState::Held => "held",
            PlayState::RunningToEnd => "running-to-end",
            PlayState::Finished => "finished",
            PlayState::Playing => "playing",
            PlayState::Paused => "paused",
        }
    }

    /// Translation key of its words.
    pub fn key(self) -> &'static str {
        match self {
            PlayState::Held => "toolbar.state.held",
            PlayState::RunningToEnd => "toolbar.state.running_to_end",
            PlayState::Finished => "toolbar.state.finished",
            PlayState::Playing => "toolbar.state.playing",
            PlayState::Paused => "toolbar.state.paused",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_wins_then_fast_forward_then_finished_then_playing() {
        assert_eq!(PlayState::of(true, true, true, true), PlayState::Held);
        assert_eq!(PlayState::of(true, false, false, false), PlayState::Held);
        assert_eq!(PlayState::of(false, true, true, true), PlayState::RunningToEnd);
        assert_eq!(PlayState::of(false, false, true, true), PlayState::Finished);
        assert_eq!(PlayState::of(false, false, false, true), PlayState::Playing);
        assert_eq!(PlayState::of(false, false, false, false), PlayState::Paused);
        assert_eq!(PlayState::Held.key(), "toolbar.state.held");
        assert_eq!(PlayState::RunningToEnd.code(), "running-to-end");
        assert_eq!(PlayState::Paused.key(), "toolbar.state.paused");
    }
}
