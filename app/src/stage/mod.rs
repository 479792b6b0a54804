//! The stage's canvas: `app_model::stage` moves the glyphs and paints each frame into a display
//! list; here the page's words and text widths go in, the list is replayed on the canvas
//! ([`replay`]), and what it shows is set as the canvas's data attributes.

use app_model::stage::{text_needs, Font, Measure, Readings, Stage, Words};
use app_model::stage_layout::TextNeeds;
use sim_core::{LiveRequest, Simulation};
use web_sys::CanvasRenderingContext2d;

use crate::theme::Look;

mod replay;

pub use app_model::stage::{StageCalm, StageConfig};

const FAMILY: &str = "system-ui, -apple-system, 'Segoe UI', sans-serif";

/// A canvas font for a role at `px` in the profile of `look`.
fn font(font: Font, px: f64, look: Look) -> String {
    match font {
        Font::Title => format!("{} {px:.1}px {FAMILY}", look.palette().title_weight),
        Font::Small | Font::Tiny => format!("{px:.1}px {FAMILY}"),
    }
}

/// Template text in the page's language (the canvas redraws every frame).
struct PageWords(Look);

impl Words for PageWords {
    fn text(&self, key: &str, args: &[(&str, String)]) -> String {
        self.0.tf(key, args)
    }
}

/// Text widths from the canvas (`measureText`), setting its font only when it changes.
struct CanvasMeasure<'a> {
    ctx: &'a CanvasRenderingContext2d,
    look: Look,
    font: Option<(Font, u64)>,
}

impl Measure for CanvasMeasure<'_> {
    fn width(&mut self, f: Font, px: f64, text: &str) -> f64 {
        if self.font != Some((f, px.to_bits())) {
            self.ctx.set_font(&font(f, px, self.look));
            self.font = Some((f, px.to_bits()));
        }
        self.ctx.measure_text(text).map(|m| m.width()).unwrap_or(0.0)
    }
}

fn needs(ctx: &CanvasRenderingContext2d, look: Look, w: f64) -> TextNeeds {
    text_needs(&mut CanvasMeasure { ctx, look, font: None }, &PageWords(look), look.palette().text_scale, w)
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
        let reduced = crate::kit::reduced_motion();
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
        let mut measure = CanvasMeasure { ctx, look, font: None };
        let list = self.stage.frame(w, h, needs, &rd, dt_ms, &mut measure, &PageWords(look));
        replay::replay(ctx, list, look);
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
