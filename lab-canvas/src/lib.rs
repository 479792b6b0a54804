//! The stage and the charts drawn on a browser canvas, with web-sys and nothing of a view
//! framework: the palettes ([`palette`]), the traffic classes' glyph paths ([`glyph`]), the replay
//! of a stage frame's display list ([`replay`]), a run's stage state ([`stage`]) and the one chart
//! painter ([`chart`]). `app_model::stage` and `app_model::charts::figure` compute every frame
//! and figure; this crate only paints them.
//!
//! Two wasm modules draw with it: the page (`app`) and the first-frame module (`lab-first`),
//! which animates the opening stage while the page is still on its way.
//!
//! Must not know: leptos, the page's components, its translation tables (the words come in
//! through `app_model::stage::Words`).

use app_model::stage::{Role, Words};
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

pub mod chart;
pub mod glyph;
pub mod palette;
pub mod replay;
pub mod stage;

pub use palette::Palette;

/// What a canvas draws with: the colour profile and the page's words in its language.
#[derive(Clone, Copy)]
pub struct Look<'a> {
    pub projector: bool,
    pub words: &'a dyn Words,
}

impl Look<'_> {
    /// The palette of the profile.
    pub fn palette(self) -> &'static Palette {
        palette::palette(self.projector)
    }

    /// The colour of a stage role in the profile.
    pub fn colour(self, role: Role) -> &'static str {
        palette::colour(self.projector, role)
    }
}

/// Sizes `canvas` for its CSS width (at least `min_w`) and `css_h` at the device's pixel ratio
/// (1–3) and returns its context, scaled so that one unit is one CSS pixel, with that size.
pub fn fit_canvas(canvas: &HtmlCanvasElement, min_w: f64, css_h: f64) -> Option<(CanvasRenderingContext2d, f64, f64)> {
    let dpr = web_sys::window().map(|w| w.device_pixel_ratio()).unwrap_or(1.0).clamp(1.0, 3.0);
    let cw = f64::from(canvas.client_width());
    let w = if cw > 0.0 { cw.max(min_w) } else { min_w };
    let h = css_h;
    let (pw, ph) = ((w * dpr).round() as u32, (h * dpr).round() as u32);
    if canvas.width() != pw || canvas.height() != ph {
        canvas.set_width(pw);
        canvas.set_height(ph);
    }
    let ctx = canvas.get_context("2d").ok().flatten()?.dyn_into::<CanvasRenderingContext2d>().ok()?;
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    Some((ctx, w, h))
}

/// The canvas with id `id` in the page, if there is one.
pub fn canvas_by_id(id: &str) -> Option<HtmlCanvasElement> {
    web_sys::window()?.document()?.get_element_by_id(id)?.dyn_into::<HtmlCanvasElement>().ok()
}

thread_local! {
    /// The `(prefers-reduced-motion: reduce)` media query list, once asked. Not page state: a
    /// handle on the browser's own live answer, kept so the stage does not ask for a new one at
    /// every frame (a JavaScript object is not `Send`, so it cannot be a plain `static`).
    static MOTION: std::cell::OnceCell<Option<wasm_bindgen::JsValue>> = const { std::cell::OnceCell::new() };
}

/// Whether the learner's system asks for reduced motion (`prefers-reduced-motion: reduce`),
/// read live: the stage then puts glyphs at their places at once, scrolling jumps.
pub fn reduced_motion() -> bool {
    use js_sys::Reflect;
    MOTION.with(|m| {
        let mql = m.get_or_init(|| {
            let w = web_sys::window()?;
            let f = Reflect::get(&w, &"matchMedia".into()).ok()?.dyn_into::<js_sys::Function>().ok()?;
            f.call1(&w, &"(prefers-reduced-motion: reduce)".into()).ok()
        });
        mql.as_ref().and_then(|q| Reflect::get(q, &"matches".into()).ok()).and_then(|v| v.as_bool()).unwrap_or(false)
    })
}

/// The name of the performance mark set when the page's first animated frame is drawn, by the
/// first-frame module or, without it, by the page (the browser tests and the budget read it).
pub const FIRST_FRAME_MARK: &str = "lab:first-animated-frame";

/// Sets [`FIRST_FRAME_MARK`] unless it is set already.
pub fn mark_first_animated_frame() {
    let Some(perf) = web_sys::window().and_then(|w| w.performance()) else { return };
    if perf.get_entries_by_name(FIRST_FRAME_MARK).length() == 0 {
        let _ = perf.mark(FIRST_FRAME_MARK);
    }
}
