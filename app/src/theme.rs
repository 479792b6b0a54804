//! Colour profiles: the normal light palette and a high-contrast "projector" profile (black
//! text, darker lines, heavier titles) for projectors and bright classrooms (the palettes:
//! `lab_canvas::palette`).
//!
//! The profile is a class on `<body>` (`projector`) that switches the CSS variables, and the
//! [`Theme`] signal the canvas code reads (through the [`Look`] it is handed) every time it draws,
//! so a switch shows at the next frame.

use leptos::prelude::*;

pub use lab_canvas::palette::{dash, Palette};

use crate::i18n::{Lang, Locale};

/// What the canvases draw with: the page's language and colour profile as they are when a frame
/// is drawn. The canvases draw at animation frames and timers, outside the reactive tree, so the
/// drawing code is handed one, made from the handles the animation loop, the calm tick and the
/// panels captured at mount (`Ui::look`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Look {
    pub locale: Locale,
    pub projector: bool,
}

impl Look {
    /// The language and profile shown now (untracked).
    pub fn of(lang: Lang, theme: Theme) -> Look {
        Look { locale: lang.get_untracked(), projector: theme.projector_untracked() }
    }

    /// The palette of the profile.
    pub fn palette(self) -> &'static Palette {
        lab_canvas::palette::palette(self.projector)
    }

    /// What a canvas draws with in this look, its words from `words` (made with [`PageWords`]).
    pub fn canvas(self, words: &PageWords) -> lab_canvas::Look<'_> {
        lab_canvas::Look { projector: self.projector, words }
    }

    /// The text for `key` in the language.
    pub fn t(self, key: &str) -> String {
        crate::i18n::lookup(self.locale, key)
    }

    /// Template text for `key` in the language, its `{name}` placeholders filled from `args`.
    pub fn tf(self, key: &str, args: &[(&str, String)]) -> String {
        crate::i18n::fill(&self.t(key), args)
    }
}

/// The page's words in a look's language, for the canvases and the charts' words (they are
/// drawn outside the reactive tree).
pub struct PageWords(pub Look);

impl app_model::words::Words for PageWords {
    fn t(&self, key: &str) -> String {
        self.0.t(key)
    }
    fn tf(&self, key: &str, args: &[(&str, String)]) -> String {
        self.0.tf(key, args)
    }
}

/// The colour profile: whether the projector profile is on (a signal provided once by the app,
/// [`provide`]; components take it with [`use_theme`]).
#[derive(Clone, Copy)]
pub struct Theme(RwSignal<bool>);

impl Theme {
    /// Whether the projector profile is on (tracked).
    pub fn projector(self) -> bool {
        self.0.get()
    }

    pub fn projector_untracked(self) -> bool {
        self.0.get_untracked()
    }

    /// Switches the profile: the body class for CSS, the signal (the canvases read it as they draw).
    pub fn set(self, on: bool) {
        if let Some(body) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.body()) {
            let list = body.class_list();
            let _ = if on { list.add_1("projector") } else { list.remove_1("projector") };
        }
        if self.0.get_untracked() != on {
            self.0.set(on);
        }
    }
}

/// Makes the colour profile (normal to begin with) the page's, for every component below.
pub fn provide() -> Theme {
    let theme = Theme(RwSignal::new(false));
    provide_context(theme);
    theme
}

/// The page's colour profile, as provided at mount.
pub fn use_theme() -> Theme {
    expect_context::<Theme>()
}
