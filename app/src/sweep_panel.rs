//! Sweeps: the scenario being edited at a series of values of one knob, run in slices so the page
//! stays responsive (progress, cancel), drawn as goodput and throughput against the knob and p99
//! TTFT against the knob, with the knee — the value with the most goodput — marked. The points
//! download as the same CSV `llmsim sweep` writes.

use leptos::prelude::*;
use sim_core::lessons::knee;
use sim_core::sweep::{to_csv, Sweep, SweepParam, SweepPoint};

use crate::charts::{canvas_by_id, fit_canvas, Axis, Plot, Units};
use crate::format;
use crate::i18n::{self, t, tf};
use crate::ui::Ui;
use crate::workbench::{self, data_url, esc, html, text, Jobs};
use app_model::jobs::{Status, SweepJob};

const MAX_STEPS: usize = 100;
const CHART_H: f64 = 230.0;
const GOOD: &str = "#15803d";
const THROUGHPUT: &str = "#94a3b8";
const TTFT: &str = "#0072b2";
const KNEE: &str = "#b45309";
const SLO: &str = "#b91c1c";

pub fn param_label(p: SweepParam) -> String {
    match p {
        SweepParam::RatePerS => t("features.sweep.param.rate_per_s"),
        SweepParam::MaxNumSeqs => t("features.sweep.param.max_num_seqs"),
        SweepParam::GpuMemoryUtilization => t("features.sweep.param.gpu_memory_utilization"),
        SweepParam::MaxNumBatchedTokens => t("features.sweep.param.max_num_batched_tokens"),
    }
}

fn param_unit(p: SweepParam) -> &'static str {
    match p {
        SweepParam::RatePerS => "req/s",
        _ => "",
    }
}

/// Starting range of each knob: from, to, steps.
fn defaults(p: SweepParam) -> (&'static str, &'static str, &'static str) {
    match p {
        SweepParam::RatePerS => ("2", "20", "10"),
        SweepParam::MaxNumSeqs => ("8", "128", "6"),
        SweepParam::GpuMemoryUtilization => ("0.6", "0.95", "8"),
        SweepParam::MaxNumBatchedTokens => ("512", "8192", "6"),
    }
}

fn integer(p: SweepParam) -> bool {
    matches!(p, SweepParam::MaxNumSeqs | SweepParam::MaxNumBatchedTokens)
}

/// Reads one end of the range; the message says what is wrong.
fn parse_end(p: SweepParam, text: &str) -> Result<f64, String> {
    let v: f64 = text.trim().replace(',', "").parse().map_err(|_| t("features.sweep.err.number"))?;
    if !v.is_finite() || v <= 0.0 {
        return Err(t("features.sweep.err.positive"));
    }
    if p == SweepParam::GpuMemoryUtilization && v > 1.0 {
        return Err(t("features.sweep.err.share"));
    }
    if integer(p) && v.fract() != 0.0 {
        return Err(t("features.sweep.err.whole"));
    }
    Ok(v)
}

fn parse_steps(text: &str) -> Result<usize, String> {
    let msg = || tf("features.sweep.err.steps", &[("min", "2".into()), ("max", MAX_STEPS.to_string())]);
    let n: usize = text.trim().parse().map_err(|_| msg())?;
    if (2..=MAX_STEPS).contains(&n) {
        Ok(n)
    } else {
        Err(msg())
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Phase {
    Idle,
    Running,
    Done,
    Cancelled,
}

#[derive(Clone, Copy)]
struct State {
    ui: Ui,
    param: RwSignal<SweepParam>,
    /// From, to, points as typed.
    inputs: [RwSignal<String>; 3],
    errs: RwSignal<[Option<String>; 3]>,
    error: RwSignal<Option<String>>,
    phase: RwSignal<Phase>,
    runner: Jobs<SweepJob>,
    progress: RwSignal<f64>,
    points: RwSignal<Vec<SweepPoint>>,
    total: RwSignal<usize>,
    /// Knob and TTFT SLO of the sweep on screen (the SLO is drawn as a reference line).
    drawn: RwSignal<(SweepParam, Option<f64>)>,
}

const INPUT_IDS: [&str; 3] = ["sweep-from", "sweep-to", "sweep-steps"];

impl State {
    fn which(&self) -> usize {
        if self.ui.ab.get_untracked() {
            self.ui.editing.get_untracked().index()
        } else {
            0
        }
    }

    fn set_param(&self, p: SweepParam) {
        self.param.set(p);
        let (a, b, n) = defaults(p);
        for (sig, v) in self.inputs.iter().zip([a, b, n]) {
            sig.set(v.to_string());
        }
        self.errs.set([None, None, None]);
    }

    fn run(&self) {
        let st = *self;
        for (sig, id) in st.inputs.iter().zip(INPUT_IDS) {
            sig.set(workbench::value_of(id));
        }
        let p = st.param.get_untracked();
        let a = parse_end(p, &st.inputs[0].get_untracked());
        let b = parse_end(p, &st.inputs[1].get_untracked());
        let n = parse_steps(&st.inputs[2].get_untracked());
        let same = matches!((&a, &b), (Ok(x), Ok(y)) if x == y);
        st.errs.set([
            a.clone().err(),
            b.clone().err().or_else(|| same.then(|| t("features.sweep.err.same"))),
            n.clone().err(),
        ]);
        let (Ok(a), Ok(b), Ok(n)) = (a, b, n) else { return };
        if same {
            return;
        }
        let base = st.ui.drafts[st.which()].get_untracked();
        let sweep = match Sweep::new(&base, p, a, b, n) {
            Ok(s) => s,
            Err(e) => {
                st.error.set(Some(e.to_string()));
                return;
            }
        };
        st.error.set(None);
        st.drawn.set((p, base.classes.first().and_then(|c| c.slo.ttft_ms)));
        st.points.set(Vec::new());
        st.total.set(n);
        st.progress.set(0.0);
        st.phase.set(Phase::Running);
        workbench::start(st.runner, SweepJob::new(sweep), move |status| match status {
            Status::Working(p) => {
                if !p.new_points.is_empty() {
                    st.points.update(|pts| pts.extend(p.new_points));
                }
                st.progress.set(p.share);
            }
            Status::Finished(points) => {
                st.points.set(points);
                st.progress.set(1.0);
                st.phase.set(Phase::Done);
            }
            Status::Stopped => {}
        });
    }

    fn cancel(&self) {
        workbench::cancel(self.runner);
        self.phase.set(Phase::Cancelled);
    }

    fn status(&self) -> String {
        let n = self.points.with(Vec::len).to_string();
        let total = self.total.get().to_string();
        match self.phase.get() {
            Phase::Idle => t("features.sweep.idle"),
            Phase::Running => tf("features.sweep.running", &[("done", n), ("total", total)]),
            Phase::Done => tf("features.sweep.done", &[("done", n)]),
            Phase::Cancelled => tf("features.sweep.cancelled", &[("done", n), ("total", total)]),
        }
    }
}

fn form_html(st: State) -> String {
    let p = st.param.get();
    let errs = st.errs.get();
    let mut options = String::new();
    for q in SweepParam::ALL {
        options.push_str(&format!(
            "<option value=\"{}\"{}>{}</option>",
            q.id(),
            if q == p { " selected" } else { "" },
            esc(&param_label(q))
        ));
    }
    let mut out = format!(
        "<div class=\"field sweep-field\"><label for=\"sweep-param\">{}</label><select id=\"sweep-param\" data-field=\"param\" data-testid=\"sweep-param\">{options}</select></div>",
        esc(&t("features.sweep.knob"))
    );
    let labels = [t("features.sweep.from"), t("features.sweep.to"), t("features.sweep.steps")];
    for i in 0..3 {
        let id = INPUT_IDS[i];
        let err = errs[i].clone().unwrap_or_default();
        out.push_str(&format!(
            "<div class=\"field sweep-field{}\"><label for=\"{id}\">{}</label><input id=\"{id}\" type=\"text\" inputmode=\"decimal\" class=\"num\" data-field=\"{i}\" data-testid=\"{id}\" value=\"{}\" aria-invalid=\"{}\" aria-describedby=\"{id}-err\"><p class=\"err\" id=\"{id}-err\" role=\"alert\" data-testid=\"{id}-error\">{}</p></div>",
            if err.is_empty() { "" } else { " invalid" },
            esc(&labels[i]),
            esc(&st.inputs[i].get_untracked()),
            !err.is_empty(),
            esc(&err)
        ));
    }
    out
}

fn buttons_html(st: State) -> String {
    let running = st.phase.get() == Phase::Running;
    let csv = (!running)
        .then(|| {
            let p = st.drawn.get().0;
            st.points.with(|pts| (!pts.is_empty()).then(|| data_url("text/csv", &to_csv(p, pts))))
        })
        .flatten();
    let mut out = workbench::button(
        "primary",
        "run",
        "",
        if running { "data-testid=\"sweep-run\" disabled" } else { "data-testid=\"sweep-run\"" },
        &t("features.sweep.run"),
    );
    out.push_str(&workbench::button(
        "",
        "cancel",
        "",
        if running { "data-testid=\"sweep-cancel\"" } else { "data-testid=\"sweep-cancel\" disabled" },
        &t("lessons.cancel"),
    ));
    if let Some(href) = csv {
        out.push_str(&format!(
            "<a class=\"btn\" href=\"{}\" download=\"sweep-{}.csv\" data-testid=\"sweep-csv\">{}</a>",
            esc(&href),
            st.drawn.get_untracked().0.id(),
            esc(&t("features.sweep.csv"))
        ));
    }
    out
}

fn results_html(st: State) -> String {
    let (p, _) = st.drawn.get();
    st.points.with(|pts| {
        if pts.is_empty() {
            return String::new();
        }
        let knee_at = knee(pts);
        let mut out = String::new();
        if let Some((v, g)) = knee_at {
            out.push_str(&format!(
                "<p class=\"knee-note\" data-testid=\"sweep-knee\">{}</p>",
                esc(&tf(
                    "features.sweep.knee_text",
                    &[
                        ("value", format!("{} {}", format::plain(v), param_unit(p)).trim().to_string()),
                        ("goodput", format::int(g.round() as u64)),
                    ],
                ))
            ));
        }
        let heads = [
            param_label(p),
            t("features.num.throughput"),
            t("features.num.goodput"),
            t("features.num.attainment"),
            t("features.num.ttft_p99"),
            t("features.num.tpot_p99"),
        ];
        out.push_str(&format!(
            "<div class=\"table-scroll\"><table class=\"runs-table sweep-table\" data-testid=\"sweep-table\"><caption class=\"small muted\">{}</caption><thead><tr>",
            esc(&t("features.sweep.table"))
        ));
        for h in &heads {
            out.push_str(&format!("<th scope=\"col\">{}</th>", esc(h)));
        }
        out.push_str("</tr></thead><tbody>");
        let knee_tag = format!(" <span class=\"knee-tag\">{}</span>", esc(&t("features.sweep.knee")));
        for pt in pts {
            let value = format::plain(pt.value);
            match &pt.summary {
                Some(s) => {
                    let is_knee = knee_at.is_some_and(|k| k.0 == pt.value);
                    out.push_str(&format!(
                        "<tr data-testid=\"sweep-point\"{}><th scope=\"row\">{value}{}</th><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                        if is_knee { " class=\"hl-row\"" } else { "" },
                        if is_knee { knee_tag.as_str() } else { "" },
                        format::rate(s.all.throughput.output_tokens_per_s),
                        format::rate(s.all.goodput.output_tokens_per_s),
                        format::pct(s.all.goodput.slo_attainment),
                        format::dist_ms(s.all.ttft_ms.count, s.all.ttft_ms.p99),
                        format::dist_ms(s.all.tpot_ms.count, s.all.tpot_ms.p99),
                    ));
                }
                None => out.push_str(&format!(
                    "<tr data-testid=\"sweep-point\" class=\"point-error\"><th scope=\"row\">{value}</th><td colspan=\"5\" class=\"err\">{}</td></tr>",
                    esc(pt.error.as_deref().unwrap_or_default())
                )),
            }
        }
        out.push_str("</tbody></table></div>");
        out
    })
}

#[component]
pub fn SweepPanel(ui: Ui, #[prop(into)] visible: Signal<bool>) -> impl IntoView {
    let (f0, t0, s0) = defaults(SweepParam::RatePerS);
    let st = State {
        ui,
        param: RwSignal::new(SweepParam::RatePerS),
        inputs: [RwSignal::new(f0.to_string()), RwSignal::new(t0.to_string()), RwSignal::new(s0.to_string())],
        errs: RwSignal::new([None, None, None]),
        error: RwSignal::new(None),
        phase: RwSignal::new(Phase::Idle),
        runner: workbench::jobs(),
        progress: RwSignal::new(0.0),
        points: RwSignal::new(Vec::new()),
        total: RwSignal::new(0),
        drawn: RwSignal::new((SweepParam::RatePerS, None)),
    };
    // The charts follow the points, the language and the window size; the canvases are redrawn
    // after the page has them (they are rebuilt when the knob's name changes).
    let resized = RwSignal::new(0u32);
    let handle = window_event_listener(leptos::ev::resize, move |_| resized.update(|n| *n = n.wrapping_add(1)));
    on_cleanup(move || handle.remove());
    workbench::effect(Box::new(move || {
        resized.track();
        i18n::locale().track();
        if !visible.get() {
            return;
        }
        let (p, slo) = st.drawn.get();
        let pts = st.points.get();
        request_animation_frame(move || draw("sweep-chart-good", "sweep-chart-ttft", p, &pts, slo));
    }));
    let on_click = move |ev: web_sys::MouseEvent| match workbench::action(&ev) {
        Some((act, _)) if act == "run" => st.run(),
        Some((act, _)) if act == "cancel" => st.cancel(),
        _ => {}
    };
    let on_change = move |ev: web_sys::Event| {
        let Some((field, value, _)) = workbench::edited(&ev) else { return };
        match field.as_str() {
            "param" => {
                if let Some(p) = SweepParam::parse(&value) {
                    st.set_param(p);
                }
            }
            f => {
                if let Some(sig) = f.parse::<usize>().ok().and_then(|i| st.inputs.get(i)) {
                    sig.set(value);
                }
            }
        }
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        if ev.key() == "Enter" && workbench::edited(&ev).is_some() {
            ev.prevent_default();
            st.run();
        }
    };
    view! {
        <div class="sweep" data-testid="sweep" on:click=on_click on:change=on_change on:keydown=on_key>
            {html("", Box::new(move || {
                let name = st.ui.drafts[st.which_tracked()].with(|s| s.name.clone().unwrap_or_default());
                format!(
                    "<header class=\"panel-head\"><h2>{}</h2><span class=\"small muted\">{}</span></header><p class=\"small muted\">{}</p>",
                    esc(&t("features.sweep.title")),
                    esc(&tf("features.sweep.base", &[("name", name)])),
                    esc(&t("features.sweep.intro"))
                )
            }))}
            <div class="sweep-form">
                {html("sweep-inputs", Box::new(move || form_html(st)))}
                {html("sweep-buttons", Box::new(move || buttons_html(st)))}
            </div>
            <p class="err" role="alert" data-testid="sweep-error">{text(Box::new(move || st.error.get().unwrap_or_default()))}</p>
            {html("", Box::new(move || workbench::progress_html("sweep-progress", st.progress.get(), &st.status())))}
            <p class="sr-only" aria-live="polite" data-testid="sweep-state" data-phase=text(Box::new(move || st.phase_id().to_string()))>
                {text(Box::new(move || st.status()))}
            </p>
            {html("sweep-charts", Box::new(move || charts_html("sweep", st.drawn.get().0)))}
            {html("", Box::new(move || results_html(st)))}
        </div>
    }
}

impl State {
    fn which_tracked(&self) -> usize {
        if self.ui.ab.get() {
            self.ui.editing.get().index()
        } else {
            0
        }
    }

    fn phase_id(&self) -> &'static str {
        match self.phase.get() {
            Phase::Idle => "idle",
            Phase::Running => "running",
            Phase::Done => "done",
            Phase::Cancelled => "cancelled",
        }
    }
}

/// The two canvases of a sweep's charts (`<prefix>-chart-good`, `<prefix>-chart-ttft`).
pub fn charts_html(prefix: &str, param: SweepParam) -> String {
    let knob = param_label(param);
    format!(
        "<canvas id=\"{prefix}-chart-good\" class=\"chart\" data-testid=\"{prefix}-chart-good\" role=\"img\" aria-label=\"{}\"></canvas><canvas id=\"{prefix}-chart-ttft\" class=\"chart\" data-testid=\"{prefix}-chart-ttft\" role=\"img\" aria-label=\"{}\"></canvas>",
        esc(&tf("features.sweep.chart_good", &[("knob", knob.clone())])),
        esc(&tf("features.sweep.chart_ttft", &[("knob", knob)])),
    )
}

pub fn draw(good_id: &str, ttft_id: &str, param: SweepParam, points: &[SweepPoint], slo: Option<f64>) {
    let ok: Vec<(f64, &sim_core::Summary)> =
        points.iter().filter_map(|p| p.summary.as_ref().map(|s| (p.value, s))).collect();
    let (mut lo, mut hi) =
        points.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.value), b.max(p.value)));
    if !lo.is_finite() {
        (lo, hi) = (0.0, 1.0);
    }
    if hi <= lo {
        let pad = if lo > 0.0 { lo * 0.1 } else { 1.0 };
        (lo, hi) = ((lo - pad).max(0.0), hi + pad);
    }
    let xa = Axis::Linear { min: lo, max: hi };
    let knob = param_label(param);
    let unit = param_unit(param);
    let empty = i18n::t_untracked("features.sweep.empty");

    if let Some((ctx, w, h)) = canvas_by_id(good_id).and_then(|c| fit_canvas(&c, 300.0, CHART_H)) {
        let y_max = ok
            .iter()
            .map(|(_, s)| s.all.throughput.output_tokens_per_s.max(s.all.goodput.output_tokens_per_s))
            .fold(0.0, f64::max);
        let title = i18n::fill(&i18n::t_untracked("features.sweep.chart_good"), &[("knob", knob.clone())]);
        let mut plot = Plot::new(&ctx, w, h, &title, xa, Units::Share, Axis::zero_to(y_max.max(1.0)), Units::Count);
        let thr: Vec<(f64, f64)> = ok.iter().map(|(v, s)| (*v, s.all.throughput.output_tokens_per_s)).collect();
        let good: Vec<(f64, f64)> = ok.iter().map(|(v, s)| (*v, s.all.goodput.output_tokens_per_s)).collect();
        plot.line(&thr, THROUGHPUT, &[], 3.0);
        plot.line(&good, GOOD, &[], 2.0);
        for &(x, y) in &thr {
            plot.dot(x, y, THROUGHPUT, 3.0);
        }
        for &(x, y) in &good {
            plot.dot(x, y, GOOD, 3.5);
        }
        if let Some((kv, kg)) = knee(points) {
            let label = i18n::fill(
                &i18n::t_untracked("features.sweep.knee_at"),
                &[("value", format!("{} {unit}", format::plain(kv)).trim().to_string())],
            );
            plot.vline(kv, KNEE, &label);
            plot.dot(kv, kg, KNEE, 6.0);
        }
        plot.legend(&i18n::t_untracked("features.sweep.legend_throughput"), THROUGHPUT, &[]);
        plot.legend(&i18n::t_untracked("features.sweep.legend_goodput"), GOOD, &[]);
        if ok.is_empty() {
            plot.note(&empty);
        }
    }

    if let Some((ctx, w, h)) = canvas_by_id(ttft_id).and_then(|c| fit_canvas(&c, 300.0, CHART_H)) {
        let ttft: Vec<(f64, f64)> =
            ok.iter().filter(|(_, s)| s.all.ttft_ms.count > 0).map(|(v, s)| (*v, s.all.ttft_ms.p99)).collect();
        let (mut ylo, mut yhi) = ttft.iter().fold((f64::INFINITY, 0.0f64), |(a, b), p| (a.min(p.1), b.max(p.1)));
        if let Some(s) = slo {
            ylo = ylo.min(s);
            yhi = yhi.max(s);
        }
        if !ylo.is_finite() {
            (ylo, yhi) = (10.0, 1000.0);
        }
        let title = i18n::fill(&i18n::t_untracked("features.sweep.chart_ttft"), &[("knob", knob)]);
        let plot = Plot::new(&ctx, w, h, &title, xa, Units::Share, Axis::log_decades(ylo, yhi), Units::Ms);
        plot.line(&ttft, TTFT, &[], 2.0);
        for &(x, y) in &ttft {
            plot.dot(x, y, TTFT, 3.5);
        }
        if let Some(s) = slo {
            plot.hline(s, SLO, &i18n::fill(&i18n::t_untracked("features.sweep.slo_line"), &[("value", format::ms(s))]));
        }
        if let Some((kv, _)) = knee(points) {
            plot.vline(kv, KNEE, "");
        }
        if ttft.is_empty() {
            plot.note(&empty);
        }
    }
}
