//! TTFT against the number of closed-loop users for one configuration of the serving benchmarks
//! (SGLang 0.5, Qwen3-32B bf16 on two H100s, 2,048-token prompts, 512-token answers): the
//! measured points, the lab's curve with its front end and timing variation, the lab's curve
//! with the engine alone (every user in lockstep), and where users × (prompt + answer) fill the
//! KV pool. Writes `docs/img/ttft-knee.svg` (or the path given) and prints the points.
//!
//! `cargo run --release -p lab-content --example knee [-- out.svg]`

use lab_content::calibration::serving::{bench, predict, rows, Row};
use sim_core::memory::HbmPlan;
use sim_core::scenario::EngineConfig;

const USERS: [u32; 15] = [1, 2, 4, 8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160];

fn main() {
    let out = std::env::args().nth(1).unwrap_or_else(|| "docs/img/ttft-knee.svg".into());
    let pick = |r: &Row| r.backend == "sglang" && r.model == "qwen3-32b" && r.tp == 2 && r.isl == 2048 && r.osl == 512;
    let measured: Vec<Row> = rows().into_iter().filter(pick).collect();
    let template = measured.first().expect("the configuration is in the serving benchmarks").clone();
    let at = |c: u32| Row { concurrency: c, ..template.clone() };
    let lab = EngineConfig::default();
    let alone = EngineConfig::default().gpu_only();
    let curve = |e: &EngineConfig| -> Vec<(f64, f64)> {
        USERS.iter().filter_map(|&c| predict(&at(c), e).map(|(ttft, _)| (c as f64, ttft))).collect()
    };
    let (with_front, engine_alone) = (curve(&lab), curve(&alone));
    let server = bench(&at(1), &lab).expect("replayable").scenario();
    let plan = HbmPlan::new(&server, &server.model_spec().unwrap(), &server.gpu_spec().unwrap()).unwrap();
    let knee = plan.kv_capacity_tokens as f64 / f64::from(template.isl + template.osl);
    println!(
        "KV pool {} tokens: {knee:.0} users of {} + {} tokens",
        plan.kv_capacity_tokens, template.isl, template.osl
    );
    println!("users  measured  lab  engine alone (ms)");
    for (i, &c) in USERS.iter().enumerate() {
        let m = measured.iter().find(|r| r.concurrency == c).map_or("-".to_string(), |r| format!("{:.0}", r.ttft_ms));
        println!("{c:5}  {m:>8}  {:>6.0}  {:>6.0}", with_front[i].1, engine_alone[i].1);
    }
    let points: Vec<(f64, f64)> = measured.iter().map(|r| (r.concurrency as f64, r.ttft_ms)).collect();
    std::fs::write(&out, svg(&points, &with_front, &engine_alone, knee)).unwrap();
    println!("wrote {out}");
}

/// A 640 × 400 chart: users on x (0–160), TTFT in seconds on y.
fn svg(measured: &[(f64, f64)], lab: &[(f64, f64)], alone: &[(f64, f64)], knee: f64) -> String {
    let (w, h, left, right, top, bottom) = (640.0, 400.0, 64.0, 24.0, 52.0, 52.0);
    let x_max = 160.0;
    let y_max = lab.iter().chain(alone).chain(measured).map(|p| p.1 / 1000.0).fold(0.0, f64::max);
    let y_max = (y_max / 5.0).ceil() * 5.0;
    let x = |v: f64| left + (w - left - right) * v / x_max;
    let y = |ms: f64| h - bottom - (h - top - bottom) * (ms / 1000.0) / y_max;
    let line =
        |pts: &[(f64, f64)]| pts.iter().map(|&(c, t)| format!("{:.1},{:.1}", x(c), y(t))).collect::<Vec<_>>().join(" ");
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"{w}\" height=\"{h}\" fill=\"#fff\"/>\n\
         <text x=\"{left}\" y=\"18\" font-size=\"14\" font-weight=\"bold\">Mean TTFT against closed-loop users</text>\n\
         <text x=\"{left}\" y=\"34\" font-size=\"12\" fill=\"#444\">SGLang 0.5, Qwen3-32B bf16 on 2 × H100, 2,048-token prompts, 512-token answers</text>\n"
    );
    // axes, ticks, grid
    for i in 0..=8 {
        let c = 20.0 * i as f64;
        s += &format!(
            "<line x1=\"{0:.1}\" y1=\"{1}\" x2=\"{0:.1}\" y2=\"{2}\" stroke=\"#eee\"/><text x=\"{0:.1}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
            x(c),
            top,
            h - bottom,
            h - bottom + 16.0,
            c
        );
    }
    let step = if y_max > 20.0 { 5.0 } else { 2.5 };
    let mut t = 0.0;
    while t <= y_max + 1e-9 {
        s += &format!(
            "<line x1=\"{left}\" y1=\"{0:.1}\" x2=\"{1}\" y2=\"{0:.1}\" stroke=\"#eee\"/><text x=\"{2}\" y=\"{3:.1}\" text-anchor=\"end\">{t}</text>\n",
            y(t * 1000.0),
            w - right,
            left - 6.0,
            y(t * 1000.0) + 4.0
        );
        t += step;
    }
    s += &format!(
        "<line x1=\"{left}\" y1=\"{0}\" x2=\"{1}\" y2=\"{0}\" stroke=\"#333\"/><line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{0}\" stroke=\"#333\"/>\n\
         <text x=\"{2:.1}\" y=\"{3}\" text-anchor=\"middle\">concurrent users (each sends its next prompt when its answer ends)</text>\n\
         <text x=\"16\" y=\"{4:.1}\" transform=\"rotate(-90 16 {4:.1})\" text-anchor=\"middle\">mean TTFT (s)</text>\n",
        h - bottom,
        w - right,
        (left + w - right) / 2.0,
        h - 14.0,
        (top + h - bottom) / 2.0
    );
    // where the users' whole sequences fill the KV pool
    s += &format!(
        "<line x1=\"{0:.1}\" y1=\"{top}\" x2=\"{0:.1}\" y2=\"{1}\" stroke=\"#b45309\" stroke-dasharray=\"4 4\"/>\n\
         <text x=\"{2:.1}\" y=\"{3}\" fill=\"#b45309\">KV pool full: {4:.0} users × 2,560 tokens</text>\n",
        x(knee),
        h - bottom,
        x(knee) - 6.0,
        top + 14.0,
        knee
    );
    s = s.replace(
        &format!("x=\"{:.1}\" y=\"{}\" fill=\"#b45309\"", x(knee) - 6.0, top + 14.0),
        &format!("x=\"{:.1}\" y=\"{}\" fill=\"#b45309\" text-anchor=\"end\"", x(knee) - 6.0, top + 14.0),
    );
    s += &format!(
        "<polyline points=\"{}\" fill=\"none\" stroke=\"#888\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n",
        line(alone)
    );
    s += &format!("<polyline points=\"{}\" fill=\"none\" stroke=\"#1d4ed8\" stroke-width=\"2\"/>\n", line(lab));
    for &(c, t) in measured {
        s += &format!("<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"5\" fill=\"#dc2626\"/>\n", x(c), y(t));
    }
    // legend
    let (lx, ly) = (left + 14.0, top + 36.0);
    s += &format!(
        "<circle cx=\"{0}\" cy=\"{1}\" r=\"5\" fill=\"#dc2626\"/><text x=\"{2}\" y=\"{3}\">measured (aiconfigurator's SGLang 0.5.1 samples)</text>\n\
         <line x1=\"{4}\" y1=\"{5}\" x2=\"{6}\" y2=\"{5}\" stroke=\"#1d4ed8\" stroke-width=\"2\"/><text x=\"{2}\" y=\"{7}\">the lab (front end and timing variation)</text>\n\
         <line x1=\"{4}\" y1=\"{8}\" x2=\"{6}\" y2=\"{8}\" stroke=\"#888\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/><text x=\"{2}\" y=\"{9}\">the lab, engine alone (users in lockstep)</text>\n",
        lx,
        ly,
        lx + 16.0,
        ly + 4.0,
        lx - 8.0,
        ly + 20.0,
        lx + 8.0,
        ly + 24.0,
        ly + 40.0,
        ly + 44.0
    );
    s += "</svg>\n";
    s
}
