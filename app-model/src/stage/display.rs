//! The stage's display list: what one frame paints, as a few primitives whose colours are palette
//! roles ([`Role`]) and whose text has a font role ([`Font`]). The painters append to it; the app
//! replays it on its canvas, mapping roles to the active profile's colours. The list keeps its
//! buffers between frames (cleared, not reallocated); text lives in one string, glyph centres and
//! polyline points in one vector.

use crate::stage_layout::{Bin, Fonts};

/// A colour by what it is for; the app's theme says which colour that is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Bg,
    /// A station's fill, and its outline.
    Zone,
    ZoneLine,
    Text,
    Muted,
    /// The running batch's dashed bracket.
    Bracket,
    Door,
    CellLine,
    /// A decode slot holding a finished sequence (static batching), and its stripes.
    DoneCell,
    Hatch,
    Preempt,
    PreemptSoft,
    /// Highlight of a bin, tag or tile that something just reached.
    Flash,
    /// Prompt tokens found in the prefix cache, and the edge of their part of a bar.
    Cached,
    CachedEdge,
    /// The KV links and the accepted draft tokens.
    Link,
    /// The stations' shade while the server restarts after an OOM.
    Down,
    Bin(Bin),
    /// A traffic class's colour, and its light tint.
    Class(u16),
    Tint(u16),
}

impl Role {
    /// Position of a role without a value in the order above (a theme's table of colours);
    /// the roles with a value come after them.
    pub fn index(self) -> usize {
        match self {
            Role::Bg => 0,
            Role::Zone => 1,
            Role::ZoneLine => 2,
            Role::Text => 3,
            Role::Muted => 4,
            Role::Bracket => 5,
            Role::Door => 6,
            Role::CellLine => 7,
            Role::DoneCell => 8,
            Role::Hatch => 9,
            Role::Preempt => 10,
            Role::PreemptSoft => 11,
            Role::Flash => 12,
            Role::Cached => 13,
            Role::CachedEdge => 14,
            Role::Link => 15,
            Role::Down => 16,
            Role::Bin(_) | Role::Class(_) | Role::Tint(_) => 17,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Font {
    Title,
    Small,
    Tiny,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Center,
    Right,
}

/// A stroke's dash pattern: dash and gap lengths, or none.
pub type Dash = Option<[f64; 2]>;

/// One thing to paint. `from..to` index [`DisplayList::points`] or [`DisplayList::text`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Item {
    /// The alpha of what follows (1 until set).
    Alpha(f64),
    Rect {
        x: f64,
        y: f64,
        w: f64,
        h: f64,
        fill: Role,
    },
    /// A rectangle's outline, `width` thick.
    Frame {
        x: f64,
        y: f64,
        w: f64,
        h: f64,
        stroke: Role,
        width: f64,
    },
    /// A rectangle with rounded corners, filled and/or outlined (1 px).
    RoundRect {
        x: f64,
        y: f64,
        w: f64,
        h: f64,
        r: f64,
        fill: Option<Role>,
        stroke: Option<Role>,
        dash: Dash,
    },
    /// Diagonal stripes over a rectangle.
    Hatch {
        x: f64,
        y: f64,
        w: f64,
        h: f64,
    },
    /// Glyphs of one class (centre, half-size in `points`) as one path, filled with `fill`,
    /// outlined in the background colour when `outline`.
    Glyphs {
        class: u16,
        fill: Role,
        from: u32,
        to: u32,
        outline: bool,
    },
    /// Circles (centre, radius in `points`) as one path: outlined with `stroke`, `width` thick,
    /// or filled with it when `width` is 0.
    Circles {
        from: u32,
        to: u32,
        role: Role,
        width: f64,
    },
    /// A polyline through `points` (their third value unused): stroked, or closed and filled
    /// with `role` when `width` is 0.
    Path {
        from: u32,
        to: u32,
        role: Role,
        width: f64,
        dash: Dash,
    },
    /// A quadratic curve.
    Curve {
        from: (f64, f64),
        ctrl: (f64, f64),
        to: (f64, f64),
        stroke: Role,
        width: f64,
        dash: Dash,
    },
    /// Text whose baseline starts (left), is centred (center) or ends (right) at x.
    Text {
        x: f64,
        y: f64,
        font: Font,
        fill: Role,
        align: Align,
        from: u32,
        to: u32,
    },
}

/// A frame's items and their points and text.
#[derive(Debug)]
pub struct DisplayList {
    pub items: Vec<Item>,
    pub points: Vec<(f64, f64, f64)>,
    pub text: String,
    /// The font sizes of the frame's text, CSS px.
    pub fonts: Fonts,
}

impl Default for DisplayList {
    fn default() -> DisplayList {
        DisplayList { items: Vec::new(), points: Vec::new(), text: String::new(), fonts: Fonts::new(1.0, false) }
    }
}

impl DisplayList {
    /// Empties the list, keeping its buffers.
    pub fn clear(&mut self) {
        self.items.clear();
        self.points.clear();
        self.text.clear();
    }

    /// The text of a [`Item::Text`] (empty for other items).
    pub fn text_of(&self, item: &Item) -> &str {
        match *item {
            Item::Text { from, to, .. } => &self.text[from as usize..to as usize],
            _ => "",
        }
    }

    /// The points of a [`Item::Glyphs`], [`Item::Circles`] or [`Item::Path`].
    pub fn points_of(&self, item: &Item) -> &[(f64, f64, f64)] {
        match *item {
            Item::Glyphs { from, to, .. } | Item::Circles { from, to, .. } | Item::Path { from, to, .. } => {
                &self.points[from as usize..to as usize]
            }
            _ => &[],
        }
    }

    /// Size of a font role.
    pub fn px(&self, font: Font) -> f64 {
        match font {
            Font::Title => self.fonts.title,
            Font::Small => self.fonts.small,
            Font::Tiny => self.fonts.tiny,
        }
    }
}

/// Text width in the page's fonts: the app measures with its canvas, tests with a fake.
pub trait Measure {
    /// Width of `text` in font role `font` at `px`, CSS px.
    fn width(&mut self, font: Font, px: f64, text: &str) -> f64;
}

/// The page's words (`crate::words::Words`: a key's template in the page's language, `{name}`
/// placeholders filled): the app looks them up; app-model knows only the keys.
pub use crate::words::Words;
