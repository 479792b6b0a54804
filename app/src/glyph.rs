//! Class identity: a colour and a shape per traffic class, so classes never differ by colour alone.
//!
//! Colours are the Okabe–Ito palette (distinguishable with the common colour-vision deficiencies),
//! darkened where needed to read on a light background.

use std::f64::consts::TAU;
use web_sys::CanvasRenderingContext2d;

/// Shapes in class order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Circle,
    Square,
    Triangle,
    Diamond,
    TriangleDown,
    Hexagon,
    Cross,
    Pill,
}

const SHAPES: [Shape; 8] = [
    Shape::Circle,
    Shape::Square,
    Shape::Triangle,
    Shape::Diamond,
    Shape::TriangleDown,
    Shape::Hexagon,
    Shape::Cross,
    Shape::Pill,
];

const COLOURS: [&str; 8] = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#B07800", "#3A9AD9", "#6B5B00", "#555555"];

/// Light tints of the class colours, for cell backgrounds.
const TINTS: [&str; 8] = ["#d6e8f5", "#f8dccb", "#cdeee4", "#f4e0eb", "#f3e6c7", "#d8ebf8", "#e6e1c4", "#e2e2e2"];

/// Translation keys of the shapes' names (legends say the shape for screen readers).
const NAMES: [&str; 8] = [
    "glyph.circle",
    "glyph.square",
    "glyph.triangle",
    "glyph.diamond",
    "glyph.triangle_down",
    "glyph.hexagon",
    "glyph.cross",
    "glyph.pill",
];

pub fn shape(class: usize) -> Shape {
    SHAPES[class % SHAPES.len()]
}

pub fn colour(class: usize) -> &'static str {
    COLOURS[class % COLOURS.len()]
}

pub fn tint(class: usize) -> &'static str {
    TINTS[class % TINTS.len()]
}

/// Translation key of the class's shape name.
pub fn shape_name(class: usize) -> &'static str {
    NAMES[class % NAMES.len()]
}

/// Adds the outline of a glyph centred on (x, y) with half-size `r` to the current path.
pub fn add_path(ctx: &CanvasRenderingContext2d, shape: Shape, x: f64, y: f64, r: f64) {
    match shape {
        Shape::Circle => {
            ctx.move_to(x + r, y);
            let _ = ctx.arc(x, y, r, 0.0, TAU);
        }
        Shape::Square => {
            let s = r * 0.9;
            ctx.rect(x - s, y - s, 2.0 * s, 2.0 * s);
        }
        Shape::Triangle => {
            ctx.move_to(x, y - r * 1.1);
            ctx.line_to(x + r * 1.05, y + r * 0.8);
            ctx.line_to(x - r * 1.05, y + r * 0.8);
            ctx.close_path();
        }
        Shape::TriangleDown => {
            ctx.move_to(x, y + r * 1.1);
            ctx.line_to(x + r * 1.05, y - r * 0.8);
            ctx.line_to(x - r * 1.05, y - r * 0.8);
            ctx.close_path();
        }
        Shape::Diamond => {
            ctx.move_to(x, y - r * 1.15);
            ctx.line_to(x + r * 1.15, y);
            ctx.line_to(x, y + r * 1.15);
            ctx.line_to(x - r * 1.15, y);
            ctx.close_path();
        }
        Shape::Hexagon => {
            let h = r * 0.87;
            ctx.move_to(x + r, y);
            ctx.line_to(x + r * 0.5, y + h);
            ctx.line_to(x - r * 0.5, y + h);
            ctx.line_to(x - r, y);
            ctx.line_to(x - r * 0.5, y - h);
            ctx.line_to(x + r * 0.5, y - h);
            ctx.close_path();
        }
        Shape::Cross => {
            let t = r * 0.38;
            ctx.rect(x - r, y - t, 2.0 * r, 2.0 * t);
            ctx.rect(x - t, y - r, 2.0 * t, 2.0 * r);
        }
        Shape::Pill => {
            ctx.rect(x - r, y - r * 0.5, 2.0 * r, r);
        }
    }
}

/// SVG path data of the same glyph in a 16 × 16 box, for legends drawn in HTML.
pub fn svg_path(class: usize) -> &'static str {
    match shape(class) {
        Shape::Circle => "M14 8 A6 6 0 1 1 2 8 A6 6 0 1 1 14 8 Z",
        Shape::Square => "M2.6 2.6 H13.4 V13.4 H2.6 Z",
        Shape::Triangle => "M8 1.4 L14.3 12.8 H1.7 Z",
        Shape::TriangleDown => "M8 14.6 L14.3 3.2 H1.7 Z",
        Shape::Diamond => "M8 1 L15 8 L8 15 L1 8 Z",
        Shape::Hexagon => "M14 8 L11 13.2 H5 L2 8 L5 2.8 H11 Z",
        Shape::Cross => "M2 5.7 H5.7 V2 H10.3 V5.7 H14 V10.3 H10.3 V14 H5.7 V10.3 H2 Z",
        Shape::Pill => "M2 5 H14 V11 H2 Z",
    }
}
