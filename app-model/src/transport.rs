//! The transport bar's state: what the run is doing, as scripts read it (`data-state`) and as
//! the page says it.

use crate::controls::{Range, Scale};

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

/// Speeds the slider spans, simulated seconds per wall-clock second.
pub const MIN_SPEED: f64 = 0.1;
pub const MAX_SPEED: f64 = 100.0;

/// The speed slider: logarithmic from 0.1× to 100×, two significant digits.
const SPEED: Range = Range::new(MIN_SPEED, MAX_SPEED, Scale::Log);

/// The speed slider's position for speed `v`.
pub fn speed_to_slider(v: f64) -> f64 {
    SPEED.slider_of(MAX_SPEED, v)
}

/// The speed at slider position `x`, within the slider's span.
pub fn slider_to_speed(x: f64) -> f64 {
    SPEED.value_at(MAX_SPEED, x).clamp(MIN_SPEED, MAX_SPEED)
}

/// What the play button (and Space) does: replay a finished run, pause a running one, else play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayAction {
    Replay,
    Pause,
    Play,
}

impl PlayAction {
    /// The action for the page's flags; `running` is playing or fast-forwarding, and a lesson's
    /// hold (`held`) shows Play (the button is disabled then).
    pub fn of(finished: bool, running: bool, held: bool) -> PlayAction {
        if finished {
            PlayAction::Replay
        } else if running && !held {
            PlayAction::Pause
        } else {
            PlayAction::Play
        }
    }

    /// Translation key of the button's words.
    pub fn key(self) -> &'static str {
        match self {
            PlayAction::Replay => "toolbar.replay",
            PlayAction::Pause => "toolbar.pause",
            PlayAction::Play => "toolbar.play",
        }
    }
}

/// The simulated time in the status line, seconds: milliseconds show while paused, where a step
/// may advance only a few.
pub fn sim_time_text(now_s: f64, playing: bool) -> String {
    if playing {
        format!("{now_s:.2}")
    } else {
        format!("{now_s:.3}")
    }
}

/// The class of the "restarted" note after `restarts` restarts: hidden before the first, then two
/// animation names alternated, so the note fades in again at every restart.
pub fn restart_flash(restarts: u32) -> &'static str {
    match restarts {
        0 => "flash hidden",
        n if n % 2 == 0 => "flash fa",
        _ => "flash fb",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_play_button_replays_pauses_or_plays() {
        assert_eq!(PlayAction::of(true, true, false), PlayAction::Replay);
        assert_eq!(PlayAction::of(false, true, false), PlayAction::Pause);
        assert_eq!(PlayAction::of(false, true, true), PlayAction::Play);
        assert_eq!(PlayAction::of(false, false, false), PlayAction::Play);
        assert_eq!(PlayAction::Pause.key(), "toolbar.pause");
    }

    #[test]
    fn the_speed_slider_spans_its_range_and_round_trips() {
        assert_eq!(slider_to_speed(-5.0), MIN_SPEED);
        assert_eq!(slider_to_speed(1e9), MAX_SPEED);
        for v in [0.1, 1.0, 10.0, 100.0] {
            assert!((slider_to_speed(speed_to_slider(v)) - v).abs() < 1e-9, "{v}");
        }
        assert!(speed_to_slider(1.0) < speed_to_slider(10.0));
    }

    #[test]
    fn the_status_line_and_the_restart_note() {
        assert_eq!(sim_time_text(1.23456, true), "1.23");
        assert_eq!(sim_time_text(1.23456, false), "1.235");
        assert_eq!(restart_flash(0), "flash hidden");
        assert_eq!(restart_flash(1), "flash fb");
        assert_eq!(restart_flash(2), "flash fa");
    }

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
