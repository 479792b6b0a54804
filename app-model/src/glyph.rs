//! Class identity: a colour and a shape per traffic class, so classes never differ by colour alone.
//!
//! Colours are the Okabe–Ito palette (distinguishable with the common colour-vision deficiencies),
//! darkened where needed to read on a light background. A shape's outline is drawn through
//! [`PathSink`] (the app's canvas), or as SVG path data for legends in HTML.

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

/// Where a glyph's outline goes: a path being built (the canvas's current path).
pub trait PathSink {
    fn move_to(&mut self, x: f64, y: f64);
    fn line_to(&mut self, x: f64, y: f64);
    fn close(&mut self);
    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64);
    /// A full circle (the pen moved to its rightmost point first).
    fn circle(&mut self, x: f64, y: f64, r: f64);
}

/// Adds the outline of a glyph centred on (x, y) with half-size `r` to `p`.
pub fn outline(p: &mut impl PathSink, shape: Shape, x: f64, y: f64, r: f64) {
    let poly = |p: &mut dyn FnMut(f64, f64, bool), pts: &[(f64, f64)]| {
        for (i, (dx, dy)) in pts.iter().enumerate() {
            p(x + dx * r, y + dy * r, i == 0);
        }
    };
    let mut to = |px: f64, py: f64, first: bool| if first { p.move_to(px, py) } else { p.line_to(px, py) };
    match shape {
        Shape::Circle => return p.circle(x, y, r),
        Shape::Square => return p.rect(x - r * 0.9, y - r * 0.9, 1.8 * r, 1.8 * r),
        Shape::Triangle => poly(&mut to, &[(0.0, -1.1), (1.05, 0.8), (-1.05, 0.8)]),
        Shape::TriangleDown => poly(&mut to, &[(0.0, 1.1), (1.05, -0.8), (-1.05, -0.8)]),
        Shape::Diamond => poly(&mut to, &[(0.0, -1.15), (1.15, 0.0), (0.0, 1.15), (-1.15, 0.0)]),
        Shape::Hexagon => {
            poly(&mut to, &[(1.0, 0.0), (0.5, 0.87), (-0.5, 0.87), (-1.0, 0.0), (-0.5, -0.87), (0.5, -0.87)])
        }
        Shape::Cross => {
            let t = r * 0.38;
            p.rect(x - r, y - t, 2.0 * r, 2.0 * t);
            return p.rect(x - t, y - r, 2.0 * t, 2.0 * r);
        }
        Shape::Pill => return p.rect(x - r, y - r * 0.5, 2.0 * r, r),
    }
    p.close();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Rec(Vec<String>);
    impl PathSink for Rec {
        fn move_to(&mut self, x: f64, y: f64) {
            self.0.push(format!("M{x:.2},{y:.2}"));
        }
        fn line_to(&mut self, x: f64, y: f64) {
            self.0.push(format!("L{x:.2},{y:.2}"));
        }
        fn close(&mut self) {
            self.0.push("Z".into());
        }
        fn rect(&mut self, x: f64, y: f64, w: f64, h: f64) {
            self.0.push(format!("R{x:.2},{y:.2},{w:.2},{h:.2}"));
        }
        fn circle(&mut self, x: f64, y: f64, r: f64) {
            self.0.push(format!("C{x:.2},{y:.2},{r:.2}"));
        }
    }

    fn path(class: usize) -> Vec<String> {
        let mut p = Rec::default();
        outline(&mut p, shape(class), 10.0, 20.0, 4.0);
        p.0
    }

    #[test]
    fn each_class_has_its_outline_around_its_centre() {
        assert_eq!(path(0), ["C10.00,20.00,4.00"]);
        assert_eq!(path(1), ["R6.40,16.40,7.20,7.20"]);
        assert_eq!(path(2), ["M10.00,15.60", "L14.20,23.20", "L5.80,23.20", "Z"]);
        assert_eq!(path(3), ["M10.00,15.40", "L14.60,20.00", "L10.00,24.60", "L5.40,20.00", "Z"]);
        assert_eq!(path(4), ["M10.00,24.40", "L14.20,16.80", "L5.80,16.80", "Z"]);
        assert_eq!(path(5).len(), 7);
        assert_eq!(path(6), ["R6.00,18.48,8.00,3.04", "R8.48,16.00,3.04,8.00"]);
        assert_eq!(path(7), ["R6.00,18.00,8.00,4.00"]);
        // classes beyond eight repeat the shapes and colours
        assert_eq!(path(8), path(0));
        assert_eq!(colour(9), colour(1));
        assert_ne!(colour(0), colour(1));
    }
}
