//! A run's stage on its canvas: `app_model::stage` moves the glyphs and paints each frame into a
//! display list; here the page's words and text widths go in, the list is replayed on the canvas
//! ([`crate::replay`]), and what it shows is set as the canvas's data attributes.

use app_model::stage::{text_needs, Font, Measure, Readings, Stage};
use app_model::stage_layout::TextNeeds;
use sim_core::{LiveRequest, Simulation};
use web_sys::CanvasRenderingContext2d;

use crate::palette::font;
use crate::{Look, Palette};

pub use app_model::stage::{StageCalm, StageConfig};

/// Logical size of a stage: drawn at its CSS width (so its text keeps its size) down to this
/// width (narrower screens scale it down), this tall; a compact stage (a phone, or A and B
/// side by side on a narrow screen) is taller, for its extra rows of text. The page's static
/// layout gives the stage's canvas the same heights (static/first.css).
pub const MIN_W: f64 = 320.0;
const H: [f64; 2] = [360.0, 320.0];
const H_COMPACT: f64 = 460.0;

/// The height a stage `css_w` wide is drawn at, CSS px, with `runs` stages on the page.
pub fn height(css_w: f64, runs: usize) -> f64 {
    if css_w < app_model::stage_layout::COMPACT_BELOW {
        H_COMPACT
    } else if runs > 1 {
        H[1]
    } else {
        H[0]
    }
}

/// Text widths from the canvas (`measureText`), setting its font only when it changes.
struct CanvasMeasure<'a> {
    ctx: &'a CanvasRenderingContext2d,
    palette: &'static Palette,
    font: Option<(Font, u64)>,
}

impl Measure for CanvasMeasure<'_> {
    fn width(&mut self, f: Font, px: f64, text: &str) -> f64 {
        if self.font != Some((f, px.to_bits())) {
            self.ctx.set_font(&font(f, px, self.palette));
            self.font = Some((f, px.to_bits()));
        }
        self.ctx.measure_text(text).map(|m| m.width()).unwrap_or(0.0)
    }
}

fn needs(ctx: &CanvasRenderingContext2d, look: Look, w: f64) -> TextNeeds {
    let palette = look.palette();
    text_needs(&mut CanvasMeasure { ctx, palette, font: None }, look.words, palette.text_scale, w)
}

/// The shortest a `w` wide stage may be drawn with this page's text (language, profile): its
/// outcome bins keep their labels and counts apart.
pub fn min_height(ctx: &CanvasRenderingContext2d, look: Look, w: f64) -> f64 {
    app_model::stage::min_height(w, needs(ctx, look, w))
}

/// One run's stage and what its canvas was last told.
pub struct StageState {
    stage: Stage,
    /// The canvas's data attributes as last set.
    attrs: String,
    /// `prefers-reduced-motion: reduce`, as last told to the canvas (`data-motion`).
    reduced: Option<bool>,
    /// Live requests in the last frame.
    pub live_count: usize,
}

impl StageState {
    pub fn new(cfg: StageConfig) -> StageState {
        StageState { stage: Stage::new(cfg), attrs: String::new(), reduced: None, live_count: 0 }
    }

    /// Sets the motion tempo from the simulation speed.
    pub fn set_speed(&mut self, speed: f64) {
        self.stage.set_speed(speed);
    }

    /// Moves the glyphs one frame towards where `live` says the requests are, and draws in `look`.
    #[allow(clippy::too_many_arguments)]
    pub fn frame(
        &mut self,
        ctx: &CanvasRenderingContext2d,
        look: Look,
        w: f64,
        h: f64,
        sim: &Simulation,
        live: &[LiveRequest],
        calm: &StageCalm,
        dt_ms: f64,
    ) {
        self.live_count = live.len();
        let reduced = crate::reduced_motion();
        if self.reduced != Some(reduced) {
            self.reduced = Some(reduced);
            self.stage.set_reduced_motion(reduced);
            if let Some(c) = ctx.canvas() {
                let _ = c.set_attribute("data-motion", if reduced { "reduced" } else { "full" });
            }
        }
        let needs = needs(ctx, look, w);
        let endings = sim.recent_endings();
        let now_s = sim.now() as f64 / 1e6;
        let rd = Readings { now_s, finished: sim.is_finished(), live, endings: &endings, calm };
        let mut measure = CanvasMeasure { ctx, palette: look.palette(), font: None };
        let list = self.stage.frame(w, h, needs, &rd, dt_ms, &mut measure, look.words);
        crate::replay::replay(ctx, list, look);
        if self.stage.attrs_due() {
            let attrs = self.stage.attrs(calm);
            let mut joined = String::new();
            for (_, v) in &attrs {
                joined.push_str(v);
                joined.push('|');
            }
            if joined != self.attrs {
                if let Some(c) = ctx.canvas() {
                    for (name, value) in &attrs {
                        let _ = c.set_attribute(name, value);
                    }
                }
                self.attrs = joined;
            }
        }
    }
}
