//! Colour profiles of the canvases: the normal light palette and the high-contrast "projector"
//! profile (black text, darker lines, heavier titles). The page switches the same profile in CSS
//! with a class on `<body>`. Text colours meet WCAG AA (4.5:1) on their backgrounds in both.

use app_model::stage::{Font, Role};

/// Colours and fonts the canvases draw with.
pub struct Palette {
    pub bg: &'static str,
    pub zone: &'static str,
    pub zone_line: &'static str,
    pub text: &'static str,
    pub muted: &'static str,
    pub grid: &'static str,
    pub axis: &'static str,
    pub bracket: &'static str,
    pub door: &'static str,
    pub cell_line: &'static str,
    pub done_cell: &'static str,
    pub hatch: &'static str,
    pub preempt: &'static str,
    pub preempt_soft: &'static str,
    pub flash: &'static str,
    pub legend_bg: &'static str,
    pub run_line: &'static str,
    pub ref_line: &'static str,
    pub throughput_line: &'static str,
    pub font_title: &'static str,
    pub font_small: &'static str,
    pub font_tiny: &'static str,
    /// Outcome bins: completed, rejected, timed out, lost in an OOM.
    pub bins: [&'static str; 4],
    /// The stage's text size against the normal profile (its layout makes room for it).
    pub text_scale: f64,
    /// The charts' text size and margins against the normal profile (the chart fonts above are
    /// that much larger; the charts are that much taller).
    pub chart_scale: f64,
    /// Weight of the stage's station titles.
    pub title_weight: u16,
}

pub static NORMAL: Palette = Palette {
    bg: "#ffffff",
    zone: "#f1f5f9",
    zone_line: "#c3cdd9",
    text: "#1e293b",
    muted: "#4f5f73",
    grid: "#e7ecf2",
    axis: "#7a889c",
    bracket: "#8e9cb0",
    door: "#e2e8f0",
    cell_line: "#b6c2d1",
    done_cell: "#e5e7eb",
    hatch: "#8b93a1",
    preempt: "#7c3aed",
    preempt_soft: "#a78bfa",
    flash: "#eef2ff",
    legend_bg: "rgba(255,255,255,0.88)",
    run_line: "#334155",
    ref_line: "#475569",
    throughput_line: "#94a3b8",
    font_title: "600 12px system-ui, -apple-system, 'Segoe UI', sans-serif",
    font_small: "11px system-ui, -apple-system, 'Segoe UI', sans-serif",
    font_tiny: "10px system-ui, -apple-system, 'Segoe UI', sans-serif",
    bins: ["#166534", "#b91c1c", "#9a5b00", "#7f1d1d"],
    text_scale: 1.0,
    chart_scale: 1.0,
    title_weight: 600,
};

pub static PROJECTOR: Palette = Palette {
    bg: "#ffffff",
    zone: "#ececec",
    zone_line: "#3a3a3a",
    text: "#000000",
    muted: "#222222",
    grid: "#c4c4c4",
    axis: "#000000",
    bracket: "#333333",
    door: "#d4d4d4",
    cell_line: "#555555",
    done_cell: "#d0d0d0",
    hatch: "#333333",
    preempt: "#5b00c8",
    preempt_soft: "#7c4dcc",
    flash: "#d8e0ff",
    legend_bg: "rgba(255,255,255,0.95)",
    run_line: "#000000",
    ref_line: "#000000",
    throughput_line: "#6b6b6b",
    // the charts' text `chart_scale` larger (12, 11, 10 px × 1.25); the stage draws its text
    // `text_scale` larger (its layout makes the room) with heavier titles
    font_title: "700 15px system-ui, -apple-system, 'Segoe UI', sans-serif",
    font_small: "14px system-ui, -apple-system, 'Segoe UI', sans-serif",
    font_tiny: "12.5px system-ui, -apple-system, 'Segoe UI', sans-serif",
    bins: ["#006400", "#a00000", "#7a4200", "#5a0000"],
    text_scale: 1.25,
    chart_scale: 1.25,
    title_weight: 700,
};

/// The palette of a profile: the projector's or the normal one.
pub fn palette(projector: bool) -> &'static Palette {
    if projector {
        &PROJECTOR
    } else {
        &NORMAL
    }
}

/// The colour of a stage role in a profile.
pub fn colour(projector: bool, role: Role) -> &'static str {
    match role {
        Role::Bin(b) => palette(projector).bins[b.index()],
        Role::Class(c) => crate::glyph::colour(c as usize),
        Role::Tint(c) => crate::glyph::tint(c as usize),
        plain => STAGE[usize::from(projector)].get(plain.index()).copied().unwrap_or(""),
    }
}

const FAMILY: &str = "system-ui, -apple-system, 'Segoe UI', sans-serif";

/// A canvas font for a role at `px` in the profile of `palette`.
pub fn font(font: Font, px: f64, palette: &Palette) -> String {
    match font {
        Font::Title => format!("{} {px:.1}px {FAMILY}", palette.title_weight),
        Font::Small | Font::Tiny => format!("{px:.1}px {FAMILY}"),
    }
}

/// A line-dash pattern for `set_line_dash` (the stage's and the charts' dashed lines).
pub fn dash(pattern: &[f64]) -> wasm_bindgen::JsValue {
    let arr = js_sys::Array::new();
    for p in pattern {
        arr.push(&wasm_bindgen::JsValue::from_f64(*p));
    }
    arr.into()
}

/// The stage's colours for its roles without a value (`app_model::stage::Role`, in its order).
const fn stage_colours(p: &Palette) -> [&'static str; 17] {
    [
        p.bg,
        p.zone,
        p.zone_line,
        p.text,
        p.muted,
        p.bracket,
        p.door,
        p.cell_line,
        p.done_cell,
        p.hatch,
        p.preempt,
        p.preempt_soft,
        p.flash,
        // prompt tokens found in the prefix cache: the HBM gauge's teal for cached prefixes
        "rgba(13, 148, 136, 0.55)",
        "#0f766e",
        // the KV links and accepted draft tokens; the stations' shade while the server restarts
        "#7c3aed",
        "rgba(185, 28, 28, 0.14)",
    ]
}

static STAGE: [[&str; 17]; 2] = [stage_colours(&NORMAL), stage_colours(&PROJECTOR)];
