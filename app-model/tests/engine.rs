//! The controller's advance within a frame budget, its statistics and the calm tick's numbers.

use std::collections::VecDeque;

use app_model::engine::{quantile, FrameStats, Runs, Tick, FRAME_BUDGET_MS, STATS_KEEP};
use sim_core::{Scenario, Simulation};

fn sim(preset: &str) -> Simulation {
    let p = sim_core::presets::find(preset).expect("preset");
    Simulation::new(&Scenario::from_json(p.json).expect("scenario")).expect("runs")
}

fn playing(now_ms: f64, speed: f64) -> Tick {
    Tick { now_ms, playing: true, speed, fast_forward: false }
}

/// A clock that never moves: the budget never runs out.
fn still() -> impl FnMut() -> f64 {
    || 0.0
}

#[test]
fn the_runs_follow_wall_time_times_speed() {
    let mut runs = Runs::new(vec![sim("chat-latency-first")]);
    // the first frame only starts the wall clock
    let first = runs.advance(playing(0.0, 2.0), &mut still());
    assert_eq!(first.dt_ms, 0.0);
    assert_eq!(runs.runs[0].sim.now(), 0);
    for f in 1..=10 {
        let out = runs.advance(playing(16.0 * f as f64, 2.0), &mut still());
        assert_eq!(out.dt_ms, 16.0);
        assert!(!out.behind);
        // 16 ms of wall time at 2× is 32 ms of simulated time a frame
        assert_eq!(runs.runs[0].sim.now(), 32_000 * f);
    }
}

#[test]
fn a_long_pause_between_frames_advances_by_at_most_the_frame_cap() {
    let mut runs = Runs::new(vec![sim("chat-latency-first")]);
    runs.advance(playing(0.0, 1.0), &mut still());
    let out = runs.advance(playing(5_000.0, 1.0), &mut still());
    assert_eq!(out.dt_ms, 100.0);
    assert_eq!(runs.runs[0].sim.now(), 100_000);
}

#[test]
fn a_paused_run_stays_where_it_is() {
    let mut runs = Runs::new(vec![sim("chat-latency-first")]);
    runs.advance(playing(0.0, 1.0), &mut still());
    runs.advance(playing(50.0, 1.0), &mut still());
    let at = runs.runs[0].sim.now();
    assert!(at > 0);
    let paused = Tick { now_ms: 100.0, playing: false, speed: 1.0, fast_forward: false };
    for f in 0..5 {
        runs.advance(Tick { now_ms: paused.now_ms + 16.0 * f as f64, ..paused }, &mut still());
        assert_eq!(runs.runs[0].sim.now(), at);
    }
    // playing again goes on from there by the frame's time only (the last paused frame was at
    // 164 ms), not by the time paused
    runs.advance(playing(180.0, 1.0), &mut still());
    assert_eq!(runs.runs[0].sim.now(), at + 16_000);
}

#[test]
fn a_and_b_advance_in_step() {
    let mut runs = Runs::new(vec![sim("chat-latency-first"), sim("batch-throughput-first")]);
    for f in 0..20 {
        runs.advance(playing(16.0 * f as f64, 4.0), &mut still());
        let (a, b) = (runs.runs[0].sim.now(), runs.runs[1].sim.now());
        assert_eq!(a, b, "frame {f}");
    }
    assert_eq!(runs.runs[0].sim.now(), 19 * 64_000);
}

#[test]
fn a_frame_never_spends_more_than_its_budget() {
    // every look at the clock costs 1 ms: the run stops at its budget and is behind
    let mut runs = Runs::new(vec![sim("chat-latency-first"), sim("chat-latency-first")]);
    runs.advance(playing(0.0, 1.0), &mut still());
    let mut t = 1000.0;
    let mut looks = 0;
    let mut clock = || {
        looks += 1;
        t += 1.0;
        t
    };
    let out = runs.advance(playing(1000.0, 1e6), &mut clock);
    assert!(out.behind);
    // the clock passed the frame's deadline once, not more: budget + one look
    assert_eq!(looks as f64, FRAME_BUDGET_MS + 1.0);
    // the first run stopped at its half of the budget, the second at the whole
    let (a, b) = (runs.runs[0].sim.now(), runs.runs[1].sim.now());
    assert!(a > 0 && b > 0);
    assert!((a as f64) < 100.0 * 1e6 * 1000.0);
    // behind, the clock falls back to the slowest run: the next frame goes on from there
    let mut cheap = still();
    let next = runs.advance(playing(1016.0, 1.0), &mut cheap);
    assert!(!next.behind);
    let slowest = a.min(b);
    assert_eq!(runs.runs[0].sim.now().min(runs.runs[1].sim.now()), slowest + 16_000);
}

#[test]
fn fast_forward_runs_to_the_end_and_the_end_is_the_clis() {
    let mut runs = Runs::new(vec![sim("chat-latency-first")]);
    let mut frames = 0;
    let mut now = 0.0;
    loop {
        let out = runs.advance(Tick { now_ms: now, playing: false, speed: 1.0, fast_forward: true }, &mut still());
        frames += 1;
        now += 16.0;
        if out.all_finished {
            break;
        }
        assert!(frames < 10_000);
    }
    let views = runs.views();
    assert!(views[0].finished);
    let cli = sim("chat-latency-first").run_to_end();
    assert_eq!(views[0].summary, cli);
}

#[test]
fn the_first_animated_frame_is_recorded_once() {
    let mut runs = Runs::new(vec![sim("chat-latency-first")]);
    runs.advance(playing(0.0, 1.0), &mut still());
    runs.frame_done(0.0, 2.0);
    assert_eq!(runs.stats.first_animated_ms, None);
    runs.advance(playing(16.0, 1.0), &mut still());
    runs.frame_done(16.0, 19.0);
    assert_eq!(runs.stats.first_animated_ms, Some(19.0));
    runs.advance(playing(32.0, 1.0), &mut still());
    runs.frame_done(32.0, 40.0);
    runs.stats.reset();
    runs.frame_done(48.0, 50.0);
    assert_eq!(runs.stats.first_animated_ms, Some(19.0));
    assert_eq!(runs.stats.frames, 4);
}

#[test]
fn the_calm_tick_is_due_after_a_change_or_when_forced() {
    let mut runs = Runs::new(vec![sim("chat-latency-first")]);
    assert!(runs.take_due(false), "a new run is shown at once");
    assert!(!runs.take_due(false));
    assert!(runs.take_due(true));
    runs.advance(playing(0.0, 1.0), &mut still());
    assert!(runs.take_due(false), "a played frame changes the numbers");
    runs.advance(Tick { now_ms: 16.0, playing: false, speed: 1.0, fast_forward: false }, &mut still());
    assert!(!runs.take_due(false), "a paused frame does not");
    runs.step_iteration();
    assert!(runs.take_due(false));
    let views = runs.views();
    assert_eq!(runs.runs[0].calm.counts, views[0].summary.all.requests);
    assert!(views[0].now_s > 0.0);
}

#[test]
fn reset_and_truncate_keep_the_scenarios() {
    let mut runs = Runs::new(vec![sim("chat-latency-first"), sim("batch-throughput-first")]);
    runs.advance(playing(0.0, 1.0), &mut still());
    runs.advance(playing(50.0, 1.0), &mut still());
    let scenarios = runs.scenarios();
    runs.reset().unwrap();
    assert_eq!(runs.scenarios(), scenarios);
    assert!(runs.runs.iter().all(|r| r.sim.now() == 0));
    runs.truncate(0);
    assert_eq!(runs.runs.len(), 1, "A stays");
    assert_eq!(runs.infos()[0].scenario, scenarios[0]);
}

#[test]
fn percentiles_of_known_samples() {
    let v: VecDeque<f64> = (1..=100).rev().map(f64::from).collect();
    assert_eq!(quantile(&v, 0.5), 51.0);
    assert_eq!(quantile(&v, 0.95), 95.0);
    assert_eq!(quantile(&v, 1.0), 100.0);
    assert_eq!(quantile(&v, 0.0), 1.0);
    assert_eq!(quantile(&VecDeque::new(), 0.5), 0.0);

    let mut s = FrameStats::default();
    // work 1..=100 ms, frames every 10 ms then one 30 ms gap
    for k in 1..=100 {
        let start = 10.0 * f64::from(k) + if k == 100 { 20.0 } else { 0.0 };
        s.frame(start, start + f64::from(k), false);
    }
    s.calm(4.0, 1.0);
    s.calm(2.0, 0.5);
    let json: serde_json::Value = serde_json::from_str(&s.json(&[("live_a", 3.0)])).unwrap();
    assert_eq!(json["frames"], 100);
    assert_eq!(json["first_animated_ms"], serde_json::Value::Null);
    assert_eq!(json["samples"], 100);
    assert_eq!(json["work_ms_p50"], 51.0);
    assert_eq!(json["work_ms_p95"], 95.0);
    assert_eq!(json["work_ms_max"], 100.0);
    assert_eq!(json["interval_ms_p50"], 10.0);
    assert_eq!(json["interval_ms_p95"], 10.0);
    assert_eq!(json["calm_tick_ms_p50"], 4.0);
    assert_eq!(json["calm_tick_ms_p95"], 4.0);
    assert_eq!(json["charts_ms_p95"], 1.0);
    assert_eq!(json["live_a"], 3.0);
}

#[test]
fn the_statistics_keep_the_latest_samples() {
    let mut s = FrameStats::default();
    for k in 0..STATS_KEEP + 50 {
        s.frame(k as f64, k as f64 + if k < 50 { 1000.0 } else { 1.0 }, false);
    }
    let json: serde_json::Value = serde_json::from_str(&s.json(&[])).unwrap();
    assert_eq!(json["samples"], STATS_KEEP);
    assert_eq!(json["work_ms_max"], 1.0, "the oldest (slow) frames are gone");
    s.reset();
    let json: serde_json::Value = serde_json::from_str(&s.json(&[])).unwrap();
    assert_eq!(json["samples"], 0);
    assert_eq!(json["frames"], (STATS_KEEP + 50) as u64);
}

#[test]
fn a_preset_runs_to_the_clis_summary() {
    let json = app_model::engine::run_preset_json("chat-latency-first");
    let summary = sim("chat-latency-first").run_to_end();
    assert_eq!(json, sim_core::pretty::to_string_pretty(&summary).unwrap());
    assert!(app_model::engine::run_preset_json("no-such").contains("error"));
}

#[test]
fn seeking_to_a_time_leaves_the_runs_where_frames_to_that_time_leave_them() {
    // the first-frame module played 1× frame by frame; the page seeks to where it got to
    let mut played = Runs::new(vec![sim("chat-latency-first")]);
    for f in 0..=250 {
        played.advance(playing(16.0 * f as f64, 1.0), &mut still());
    }
    let t = played.runs[0].sim.now();
    assert_eq!(t, 4_000_000);
    let mut seeked = Runs::new(vec![sim("chat-latency-first")]);
    seeked.seek(t);
    assert_eq!(seeked.runs[0].sim.now(), t);
    assert_eq!(seeked.sim_time_s(), 4.0);
    let (a, b) = (played.views(), seeked.views());
    assert!(a[0].summary.all.requests.arrived > 0, "something happened by {t} µs");
    assert_eq!(format!("{:?}", a[0].summary), format!("{:?}", b[0].summary));
    assert_eq!(a[0].running, b[0].running);
    assert_eq!(a[0].queued, b[0].queued);
    // and both go on alike: 1 s more of frames
    for f in 1..=62 {
        let now = 4000.0 + 16.0 * f as f64;
        played.advance(playing(now, 1.0), &mut still());
        if f == 1 {
            // the seeked run's wall clock starts at its first frame
            seeked.advance(playing(now - 16.0, 1.0), &mut still());
        }
        seeked.advance(playing(now, 1.0), &mut still());
    }
    assert_eq!(played.runs[0].sim.now(), seeked.runs[0].sim.now());
    assert_eq!(format!("{:?}", played.views()[0].summary), format!("{:?}", seeked.views()[0].summary));
}
