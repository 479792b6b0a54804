//! Button icons as shapes (12 × 12 view box), so they need no symbol or emoji font.

use leptos::prelude::*;

pub const PLAY: &str = "M2.5 1.5v9l8-4.5z";
pub const PAUSE: &str = "M2 1.5h3v9H2zM7 1.5h3v9H7z";
pub const REPLAY: &str = "M6 1.5a4.5 4.5 0 1 1-4.3 5.8l1.5-.4A3 3 0 1 0 6 3v1.8L3 2.2 6 0z";
pub const STEP: &str = "M1.5 1.5v9l6.5-4.5zM8.5 1.5h2v9h-2z";
pub const TO_END: &str = "M0.5 1.5v9l5.5-4.5zM6 1.5v9l5.5-4.5z";
pub const RESET: &str = "M6 1.5a4.5 4.5 0 1 0 4.5 4.5H9A3 3 0 1 1 6 3v1.8L9 2.2 6 0z";
pub const LOCK: &str = "M3 5V3.5a3 3 0 0 1 6 0V5h1v6H2V5zm1.5 0h3V3.5a1.5 1.5 0 0 0-3 0z";

pub fn svg(d: &'static str) -> impl IntoView {
    view! { <svg class="ico" viewBox="0 0 12 12" aria-hidden="true"><path d=d/></svg> }
}

/// A traffic class's shape (`app_model::glyph`) as a small inline SVG beside its name.
pub fn class_glyph(class: usize) -> impl IntoView {
    use app_model::glyph::{colour, svg_path};
    view! { <svg class="glyph" viewBox="0 0 16 16" aria-hidden="true"><path d=svg_path(class) fill=colour(class)/></svg> }
}
