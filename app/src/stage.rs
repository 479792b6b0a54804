//! The animated canvas: a `requestAnimationFrame` loop that draws one frame per call.

use std::{
    f64::consts::TAU,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
};

use leptos::prelude::request_animation_frame;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, Performance};

/// What the loop reports after drawing a frame.
#[derive(Clone, Copy, Debug)]
pub struct Tick {
    /// Seconds since the loop started.
    pub seconds: f64,
    /// Frames drawn so far, this one included.
    pub frame: u64,
}

struct Loop<F> {
    ctx: CanvasRenderingContext2d,
    width: f64,
    height: f64,
    performance: Performance,
    started: f64,
    frame: u64,
    running: Arc<AtomicBool>,
    on_tick: F,
}

/// Starts drawing on `canvas` every animation frame until `running` turns false.
pub fn run(canvas: HtmlCanvasElement, running: Arc<AtomicBool>, on_tick: impl Fn(Tick) + 'static) {
    let ctx = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|ctx| ctx.dyn_into::<CanvasRenderingContext2d>().ok())
        .expect("the stage canvas has no 2d context");
    let performance = leptos::prelude::window()
        .performance()
        .expect("window.performance is missing");
    let state = Loop {
        ctx,
        width: f64::from(canvas.width()),
        height: f64::from(canvas.height()),
        started: performance.now(),
        performance,
        frame: 0,
        running,
        on_tick,
    };
    request_animation_frame(move || step(state));
}

fn step<F: Fn(Tick) + 'static>(mut state: Loop<F>) {
    if !state.running.load(Ordering::Relaxed) {
        return;
    }
    state.frame += 1;
    let tick = Tick {
        seconds: (state.performance.now() - state.started) / 1000.0,
        frame: state.frame,
    };
    draw(&state.ctx, state.width, state.height, tick);
    (state.on_tick)(tick);
    request_animation_frame(move || step(state));
}

fn draw(ctx: &CanvasRenderingContext2d, w: f64, h: f64, tick: Tick) {
    ctx.set_fill_style_str("#0f172a");
    ctx.fill_rect(0.0, 0.0, w, h);

    ctx.set_stroke_style_str("#1e293b");
    ctx.set_line_width(1.0);
    ctx.begin_path();
    let grid = 50.0;
    let mut x = grid;
    while x < w {
        ctx.move_to(x, 0.0);
        ctx.line_to(x, h);
        x += grid;
    }
    let mut y = grid;
    while y < h {
        ctx.move_to(0.0, y);
        ctx.line_to(w, y);
        y += grid;
    }
    ctx.stroke();

    // A dot on a slow Lissajous path.
    let t = tick.seconds;
    let cx = w / 2.0 + (w / 2.0 - 40.0) * (t * 0.7).sin();
    let cy = h / 2.0 + (h / 2.0 - 40.0) * (t * 1.1).sin();
    ctx.set_fill_style_str("#38bdf8");
    ctx.begin_path();
    let _ = ctx.arc(cx, cy, 14.0, 0.0, TAU);
    ctx.fill();

    ctx.set_fill_style_str("#e2e8f0");
    ctx.set_font("14px ui-monospace, monospace");
    let _ = ctx.fill_text(&format!("frame {}", tick.frame), 12.0, 22.0);
}
