//! Class identity (a colour and a shape per traffic class: `app_model::glyph`), drawn on a canvas.

use std::f64::consts::TAU;

pub use app_model::glyph::{colour, shape, shape_name, svg_path, tint, Shape};
use app_model::glyph::{outline, PathSink};
use web_sys::CanvasRenderingContext2d;

struct Canvas<'a>(&'a CanvasRenderingContext2d);

impl PathSink for Canvas<'_> {
    fn move_to(&mut self, x: f64, y: f64) {
        self.0.move_to(x, y);
    }
    fn line_to(&mut self, x: f64, y: f64) {
        self.0.line_to(x, y);
    }
    fn close(&mut self) {
        self.0.close_path();
    }
    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64) {
        self.0.rect(x, y, w, h);
    }
    fn circle(&mut self, x: f64, y: f64, r: f64) {
        self.0.move_to(x + r, y);
        let _ = self.0.arc(x, y, r, 0.0, TAU);
    }
}

/// Adds the outline of a glyph centred on (x, y) with half-size `r` to the current path.
pub fn add_path(ctx: &CanvasRenderingContext2d, shape: Shape, x: f64, y: f64, r: f64) {
    outline(&mut Canvas(ctx), shape, x, y, r);
}

/// A class's shape as a small inline SVG beside its name.
pub fn icon(class: usize) -> impl leptos::prelude::IntoView {
    use leptos::prelude::*;
    view! { <svg class="glyph" viewBox="0 0 16 16" aria-hidden="true"><path d=svg_path(class) fill=colour(class)/></svg> }
}
