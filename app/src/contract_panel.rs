//! The inference resource contract: model, request limits, resources, SLO targets and acceptance
//! metrics as a form (prefilled with sim-core's example), imported or exported as JSON, and its
//! acceptance test run in slices against the lab's scenario (or the contract's own workload),
//! reported line by line: field, target, measured, pass or fail.

use leptos::prelude::*;
use sim_core::catalog;
use sim_core::contract::{CheckLine, Contract, ContractReport, EXAMPLE};
use sim_core::{Dtype, Scenario, ScenarioError};

use crate::format;
use crate::i18n::{t, tf};
use crate::ui::Ui;
use crate::workbench::{self, data_url, esc, html, Jobs};
use app_model::jobs::{Acceptance, Status};
use wasm_bindgen::JsCast;

/// A numeric field of the contract.
struct Field {
    path: &'static str,
    label: fn() -> String,
    /// Empty means "no target" (an optional field).
    optional: bool,
    integer: bool,
    get: fn(&Contract) -> Option<f64>,
    set: fn(&mut Contract, Option<f64>),
}

fn u32_of(v: Option<f64>) -> u32 {
    v.unwrap_or(0.0).clamp(0.0, f64::from(u32::MAX)) as u32
}

static LIMITS: [Field; 4] = [
    Field {
        path: "request_limits.max_input_tokens",
        label: || t("features.contract.f.max_input_tokens"),
        optional: false,
        integer: true,
        get: |c| Some(f64::from(c.request_limits.max_input_tokens)),
        set: |c, v| c.request_limits.max_input_tokens = u32_of(v),
    },
    Field {
        path: "request_limits.max_output_tokens",
        label: || t("features.contract.f.max_output_tokens"),
        optional: false,
        integer: true,
        get: |c| Some(f64::from(c.request_limits.max_output_tokens)),
        set: |c, v| c.request_limits.max_output_tokens = u32_of(v),
    },
    Field {
        path: "request_limits.max_concurrency",
        label: || t("features.contract.f.max_concurrency"),
        optional: false,
        integer: true,
        get: |c| Some(f64::from(c.request_limits.max_concurrency)),
        set: |c, v| c.request_limits.max_concurrency = u32_of(v),
    },
    Field {
        path: "request_limits.max_rate_per_s",
        label: || t("features.contract.f.max_rate_per_s"),
        optional: true,
        integer: false,
        get: |c| c.request_limits.max_rate_per_s,
        set: |c, v| c.request_limits.max_rate_per_s = v,
    },
];

static RESOURCES: [Field; 2] = [
    Field {
        path: "resources.num_gpus",
        label: || t("features.contract.f.num_gpus"),
        optional: false,
        integer: true,
        get: |c| Some(f64::from(c.resources.num_gpus)),
        set: |c, v| c.resources.num_gpus = u32_of(v),
    },
    Field {
        path: "resources.gpu_memory_utilization",
        label: || t("features.contract.f.gpu_memory_utilization"),
        optional: false,
        integer: false,
        get: |c| Some(c.resources.gpu_memory_utilization),
        set: |c, v| c.resources.gpu_memory_utilization = v.unwrap_or(0.0),
    },
];

static SLO: [Field; 5] = [
    Field {
        path: "slo.ttft_p95_ms",
        label: || t("features.contract.f.ttft_p95_ms"),
        optional: true,
        integer: false,
        get: |c| c.slo.ttft_p95_ms,
        set: |c, v| c.slo.ttft_p95_ms = v,
    },
    Field {
        path: "slo.ttft_p99_ms",
        label: || t("features.contract.f.ttft_p99_ms"),
        optional: true,
        integer: false,
        get: |c| c.slo.ttft_p99_ms,
        set: |c, v| c.slo.ttft_p99_ms = v,
    },
    Field {
        path: "slo.tpot_p99_ms",
        label: || t("features.contract.f.tpot_p99_ms"),
        optional: true,
        integer: false,
        get: |c| c.slo.tpot_p99_ms,
        set: |c, v| c.slo.tpot_p99_ms = v,
    },
    Field {
        path: "slo.e2e_p99_ms",
        label: || t("features.contract.f.e2e_p99_ms"),
        optional: true,
        integer: false,
        get: |c| c.slo.e2e_p99_ms,
        set: |c, v| c.slo.e2e_p99_ms = v,
    },
    Field {
        path: "slo.goodput_min_req_s",
        label: || t("features.contract.f.goodput_min_req_s"),
        optional: true,
        integer: false,
        get: |c| c.slo.goodput_min_req_s,
        set: |c, v| c.slo.goodput_min_req_s = v,
    },
];

static ACCEPTANCE: [Field; 5] = [
    Field {
        path: "acceptance.min_slo_attainment",
        label: || t("features.contract.f.min_slo_attainment"),
        optional: true,
        integer: false,
        get: |c| c.acceptance.min_slo_attainment,
        set: |c, v| c.acceptance.min_slo_attainment = v,
    },
    Field {
        path: "acceptance.max_error_rate",
        label: || t("features.contract.f.max_error_rate"),
        optional: true,
        integer: false,
        get: |c| c.acceptance.max_error_rate,
        set: |c, v| c.acceptance.max_error_rate = v,
    },
    Field {
        path: "acceptance.max_oom_restarts",
        label: || t("features.contract.f.max_oom_restarts"),
        optional: true,
        integer: true,
        get: |c| c.acceptance.max_oom_restarts.map(|x| x as f64),
        set: |c, v| c.acceptance.max_oom_restarts = v.map(|x| x.max(0.0) as u64),
    },
    Field {
        path: "acceptance.max_usd_per_million_good_tokens",
        label: || t("features.contract.f.max_usd_per_million_good_tokens"),
        optional: true,
        integer: false,
        get: |c| c.acceptance.max_usd_per_million_good_tokens,
        set: |c, v| c.acceptance.max_usd_per_million_good_tokens = v,
    },
    Field {
        path: "acceptance.min_kv_headroom",
        label: || t("features.contract.f.min_kv_headroom"),
        optional: true,
        integer: false,
        get: |c| c.acceptance.min_kv_headroom,
        set: |c, v| c.acceptance.min_kv_headroom = v,
    },
];

/// What a report line checks, in words.
fn line_label(field: &str) -> String {
    match field {
        "request_limits.max_concurrency" => t("features.contract.line.max_concurrency"),
        "request_limits.max_rate_per_s" => t("features.contract.line.max_rate_per_s"),
        "slo.ttft_p95_ms" => t("features.contract.f.ttft_p95_ms"),
        "slo.ttft_p99_ms" => t("features.contract.f.ttft_p99_ms"),
        "slo.tpot_p99_ms" => t("features.contract.f.tpot_p99_ms"),
        "slo.e2e_p99_ms" => t("features.contract.f.e2e_p99_ms"),
        "slo.goodput_min_req_s" => t("features.contract.f.goodput_min_req_s"),
        "acceptance.min_slo_attainment" => t("features.contract.f.min_slo_attainment"),
        "acceptance.max_error_rate" => t("features.contract.f.max_error_rate"),
        "acceptance.max_oom_restarts" => t("features.contract.f.max_oom_restarts"),
        "acceptance.max_usd_per_million_good_tokens" => t("features.contract.f.max_usd_per_million_good_tokens"),
        "acceptance.min_kv_headroom" => t("features.contract.f.min_kv_headroom"),
        other => other.to_string(),
    }
}

/// A value of a report line with its unit, as the page shows it.
fn line_value(l: &CheckLine, v: f64) -> String {
    match l.unit {
        "ms" => format::ms(v),
        "GiB KV at full length" => tf("features.contract.unit.kv_full", &[("v", format!("{v:.1}"))]),
        "req/s offered" | "req/s" => format!("{} req/s", format::rate(v)),
        "of requests" | "of KV pool free at peak" => format::pct(v),
        "restarts" => format::int(v.max(0.0).round() as u64),
        "$" => format::usd(v),
        _ => format!("{} {}", format::plain(v), l.unit),
    }
}

/// The contract as it is run: the lab's scenario as the workload, or the contract's own.
fn effective(c: &Contract, lab: Option<&Scenario>) -> Contract {
    let mut c = c.clone();
    if let Some(s) = lab {
        c.workload = s.clone();
    }
    c
}

fn validate(c: &Contract) -> Option<ScenarioError> {
    Contract::from_json(&c.to_json_pretty()).err()
}

#[derive(Clone, Copy, PartialEq)]
enum Phase {
    Idle,
    Running,
    Done,
}

#[derive(Clone, Copy)]
struct State {
    example: StoredValue<Contract>,
    contract: RwSignal<Contract>,
    use_lab: RwSignal<bool>,
    /// Bumped when the form must show new values (reset, import).
    form_version: RwSignal<u32>,
    /// Fields whose text could not be read as a number: path, message.
    local: RwSignal<Vec<(String, String)>>,
    effective: Memo<Contract>,
    errors: Memo<Option<ScenarioError>>,
    report: RwSignal<Option<ContractReport>>,
    reported: RwSignal<Option<Contract>>,
    phase: RwSignal<Phase>,
    progress: RwSignal<f64>,
    runner: Jobs<Acceptance>,
    import_errors: RwSignal<Option<ScenarioError>>,
    imported: RwSignal<bool>,
}

/// A group of the form: its title and fields.
type Group = (fn() -> String, &'static [Field]);

const GROUPS: [Group; 3] = [
    (|| t("features.contract.g.limits"), &LIMITS),
    (|| t("features.contract.g.slo"), &SLO),
    (|| t("features.contract.g.acceptance"), &ACCEPTANCE),
];

fn find_field(path: &str) -> Option<&'static Field> {
    LIMITS.iter().chain(RESOURCES.iter()).chain(SLO.iter()).chain(ACCEPTANCE.iter()).find(|f| f.path == path)
}

impl State {
    fn run(&self) {
        let st = *self;
        if st.errors.with_untracked(Option::is_some) || st.phase.get_untracked() == Phase::Running {
            return;
        }
        let c = st.effective.get_untracked();
        let job = match Acceptance::new(c.clone()) {
            Ok(job) => job,
            Err(e) => {
                st.import_errors.set(Some(e));
                return;
            }
        };
        st.phase.set(Phase::Running);
        st.progress.set(0.0);
        workbench::start(st.runner, job, move |status| match status {
            Status::Working(share) => st.progress.set(share),
            Status::Finished(report) => {
                match report {
                    Ok(r) => {
                        st.report.set(Some(r));
                        st.reported.set(Some(c.clone()));
                    }
                    Err(e) => st.import_errors.set(Some(ScenarioError::one("", e))),
                }
                st.phase.set(Phase::Done);
            }
            Status::Stopped => {}
        });
    }

    fn edit(&self, field: &str, value: &str, checked: bool) {
        match field {
            "use_lab" => self.use_lab.set(checked),
            "model.id" => self.contract.update(|c| c.model.id = value.to_string()),
            "model.dtype" => self.contract.update(|c| c.model.dtype = Dtype::parse(value).unwrap_or(Dtype::Bf16)),
            "resources.gpu" => self.contract.update(|c| c.resources.gpu = value.to_string()),
            path => {
                let Some(f) = find_field(path) else { return };
                let text = value.trim().replace(',', "");
                let parsed = if text.is_empty() && f.optional {
                    Ok(None)
                } else {
                    match text.parse::<f64>() {
                        Ok(v) if v.is_finite() && (!f.integer || (v.fract() == 0.0 && v >= 0.0)) => Ok(Some(v)),
                        Ok(_) if f.integer => Err(t("features.sweep.err.whole")),
                        _ => Err(t("features.sweep.err.number")),
                    }
                };
                self.local.update(|l| l.retain(|(p, _)| p != path));
                match parsed {
                    Ok(v) => self.contract.update(|c| (f.set)(c, v)),
                    Err(m) => self.local.update(|l| l.push((path.to_string(), m))),
                }
            }
        }
    }

    fn act(&self, act: &str) {
        match act {
            "run" => self.run(),
            "cancel" => {
                workbench::cancel(self.runner);
                self.phase.set(Phase::Idle);
            }
            "reset" => {
                self.contract.set(self.example.get_value());
                self.use_lab.set(true);
                self.local.set(Vec::new());
                self.form_version.update(|v| *v += 1);
            }
            "import" => {
                self.imported.set(false);
                match Contract::from_json(&workbench::value_of("contract-import-text")) {
                    Ok(c) => {
                        self.contract.set(c);
                        self.use_lab.set(false);
                        self.local.set(Vec::new());
                        self.import_errors.set(None);
                        self.imported.set(true);
                        self.form_version.update(|v| *v += 1);
                    }
                    Err(e) => self.import_errors.set(Some(e)),
                }
            }
            _ => {}
        }
    }
}

fn field_html(c: &Contract, f: &Field) -> String {
    let id = format!("contract-{}", f.path.replace('.', "-"));
    let value = (f.get)(c).map(format::plain).unwrap_or_default();
    let placeholder = if f.optional { esc(&t("features.contract.none")) } else { String::new() };
    format!(
        "<div class=\"field cfield\"><label for=\"{id}\">{}</label><input id=\"{id}\" type=\"text\" inputmode=\"decimal\" class=\"num\" data-field=\"{p}\" data-testid=\"contract-field-{p}\" value=\"{}\" placeholder=\"{placeholder}\" aria-describedby=\"{id}-err\"><p class=\"err\" id=\"{id}-err\" role=\"alert\" data-err-for=\"{p}\"></p></div>",
        esc(&(f.label)()),
        esc(&value),
        p = f.path,
    )
}

fn select_html(label: &str, field: &str, options: &[(String, String)], current: &str) -> String {
    let id = format!("contract-{}", field.replace('.', "-"));
    let mut opts = String::new();
    for (v, l) in options {
        opts.push_str(&format!(
            "<option value=\"{}\"{}>{}</option>",
            esc(v),
            if v == current { " selected" } else { "" },
            esc(l)
        ));
    }
    format!(
        "<div class=\"field cfield wide\"><label for=\"{id}\">{}</label><select id=\"{id}\" data-field=\"{field}\" data-testid=\"{id}\">{opts}</select></div>",
        esc(label)
    )
}

fn form_html(st: State) -> String {
    st.form_version.track();
    let c = st.contract.get_untracked();
    let models: Vec<(String, String)> = catalog::models().into_iter().map(|m| (m.id, m.name)).collect();
    let gpus: Vec<(String, String)> = catalog::gpus().into_iter().map(|g| (g.id, g.name)).collect();
    let dtypes: Vec<(String, String)> =
        Dtype::ALL.iter().map(|d| (d.name().to_string(), d.name().to_string())).collect();
    let group = |title: String, inner: String| {
        format!("<fieldset class=\"cgroup\"><legend>{}</legend>{inner}</fieldset>", esc(&title))
    };
    let mut out = group(
        t("features.contract.g.model"),
        select_html(&t("features.contract.f.model"), "model.id", &models, &c.model.id)
            + &select_html(&t("features.contract.f.dtype"), "model.dtype", &dtypes, c.model.dtype.name()),
    );
    let fields = |list: &[Field]| list.iter().map(|f| field_html(&c, f)).collect::<String>();
    out.push_str(&group((GROUPS[0].0)(), fields(GROUPS[0].1)));
    out.push_str(&group(
        t("features.contract.g.resources"),
        select_html(&t("features.contract.f.gpu"), "resources.gpu", &gpus, &c.resources.gpu) + &fields(&RESOURCES),
    ));
    out.push_str(&group((GROUPS[1].0)(), fields(GROUPS[1].1)));
    out.push_str(&group((GROUPS[2].0)(), fields(GROUPS[2].1)));
    out.push_str(&group(
        t("features.contract.g.workload"),
        format!(
            "<label class=\"check-line\"><input type=\"checkbox\" data-field=\"use_lab\" data-testid=\"contract-use-lab\"{}>{}</label><p class=\"small muted\" data-testid=\"contract-workload\"></p>",
            if st.use_lab.get_untracked() { " checked" } else { "" },
            esc(&t("features.contract.use_lab"))
        ),
    ));
    out
}

/// Shows each field's message beside it (sim-core's words, or "enter a number").
fn show_field_errors(msgs: &[(String, String)], workload: &str) {
    let doc = document();
    let Ok(list) = doc.query_selector_all("[data-err-for]") else { return };
    for i in 0..list.length() {
        let Some(el) = list.item(i).and_then(|n| n.dyn_into::<web_sys::Element>().ok()) else { continue };
        let path = el.get_attribute("data-err-for").unwrap_or_default();
        let msg = msgs.iter().find(|(p, _)| *p == path).map(|(_, m)| m.as_str());
        el.set_text_content(msg);
        if let Some(field) = el.parent_element() {
            let _ = field.class_list().toggle_with_force("invalid", msg.is_some());
        }
        if let Some(input) = el.previous_element_sibling() {
            let _ = input.set_attribute("aria-invalid", if msg.is_some() { "true" } else { "false" });
        }
    }
    if let Some(p) = doc.query_selector("[data-testid=\"contract-workload\"]").ok().flatten() {
        p.set_text_content(Some(workload));
    }
}

fn buttons_html(st: State) -> String {
    let running = st.phase.get() == Phase::Running;
    let blocked = running || st.errors.with(Option::is_some);
    let mut out = workbench::button(
        "primary",
        "run",
        "",
        if blocked { "data-testid=\"contract-run\" disabled" } else { "data-testid=\"contract-run\"" },
        &t("features.contract.run"),
    );
    if running {
        out.push_str(&workbench::button("", "cancel", "", "data-testid=\"contract-cancel\"", &t("lessons.cancel")));
    }
    let href = st.effective.with(|c| data_url("application/json", &c.to_json_pretty()));
    out.push_str(&format!(
        "<a class=\"btn\" href=\"{}\" download=\"contract.json\" data-testid=\"contract-export\">{}</a>",
        esc(&href),
        esc(&t("features.contract.export"))
    ));
    out.push_str(&workbench::button("", "reset", "", "data-testid=\"contract-reset\"", &t("features.contract.reset")));
    out
}

fn error_list(e: &ScenarioError) -> String {
    let mut out = String::from("<ul>");
    for f in &e.errors {
        if f.field.is_empty() {
            out.push_str(&format!("<li>{}</li>", esc(&f.message)));
        } else {
            out.push_str(&format!("<li><code>{}</code> {}</li>", esc(&f.field), esc(&f.message)));
        }
    }
    out.push_str("</ul>");
    out
}

fn errors_html(st: State) -> String {
    st.errors.with(|e| {
        e.as_ref().map_or_else(String::new, |e| {
            format!(
                "<div class=\"banner error\" role=\"alert\" data-testid=\"contract-errors\"><h3>{}</h3>{}</div>",
                esc(&t("features.contract.invalid")),
                error_list(e)
            )
        })
    })
}

fn report_html(st: State) -> String {
    let stale = st.reported.with(|r| r.as_ref().is_some_and(|r| st.effective.with(|c| c != r)));
    st.report.with(|r| {
        let Some(r) = r else { return String::new() };
        let failed = r.lines.iter().filter(|l| !l.pass).count();
        let total = r.lines.len();
        let (class, icon, text) = if r.pass {
            ("pass", "✓", tf("features.contract.accepted", &[("n", total.to_string())]))
        } else {
            ("fail", "✗", tf("features.contract.rejected", &[("n", failed.to_string()), ("total", total.to_string())]))
        };
        let mut out = format!(
            "<p class=\"verdict-box {class}\" data-testid=\"contract-verdict\" data-pass=\"{}\"><span aria-hidden=\"true\">{icon} </span>{}</p>",
            r.pass,
            esc(&text)
        );
        if stale {
            out.push_str(&format!("<p class=\"small warn\" data-testid=\"contract-stale\">{}</p>", esc(&t("features.contract.stale"))));
        }
        out.push_str(&format!(
            "<div class=\"table-scroll\"><table class=\"runs-table contract-table\" data-testid=\"contract-report\"><caption class=\"small muted\">{}</caption><thead><tr><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th></tr></thead><tbody>",
            esc(&t("features.contract.report_caption")),
            esc(&t("features.contract.col.field")),
            esc(&t("features.contract.col.target")),
            esc(&t("features.contract.col.measured")),
            esc(&t("features.contract.col.result")),
        ));
        let (pass, fail) = (t("features.contract.pass"), t("features.contract.fail"));
        for l in &r.lines {
            out.push_str(&format!(
                "<tr class=\"{c}\" data-testid=\"contract-line\" data-field=\"{f}\" data-pass=\"{p}\"><th scope=\"row\">{}<code class=\"small muted\">{f}</code></th><td class=\"num\">{} {}</td><td class=\"num\">{}</td><td class=\"verdict\"><span class=\"v-icon\" aria-hidden=\"true\">{}</span>{}</td></tr>",
                esc(&line_label(&l.field)),
                l.op,
                esc(&line_value(l, l.target)),
                esc(&line_value(l, l.measured)),
                if l.pass { "✓" } else { "✗" },
                esc(if l.pass { &pass } else { &fail }),
                c = if l.pass { "pass" } else { "fail" },
                f = esc(&l.field),
                p = l.pass,
            ));
        }
        out.push_str("</tbody></table></div>");
        out
    })
}

fn import_html(st: State) -> String {
    let mut out = String::new();
    if st.imported.get() {
        out.push_str(&format!("<p class=\"small good-text\">{}</p>", esc(&t("features.contract.imported"))));
    }
    if let Some(e) = st.import_errors.get() {
        out.push_str(&format!(
            "<div class=\"banner error\" role=\"alert\" data-testid=\"contract-import-errors\">{}</div>",
            error_list(&e)
        ));
    }
    out
}

#[component]
pub fn ContractPanel(ui: Ui) -> impl IntoView {
    let Some(example) = Contract::from_json(EXAMPLE).ok() else {
        return view! { <p class="err">{move || t("features.contract.no_example")}</p> }.into_any();
    };
    let contract = RwSignal::new(example.clone());
    let use_lab = RwSignal::new(true);
    let effective_now = Memo::new(move |_| {
        let lab = use_lab.get().then(|| ui.drafts[0].get());
        contract.with(|c| effective(c, lab.as_ref()))
    });
    let st = State {
        example: StoredValue::new(example),
        contract,
        use_lab,
        form_version: RwSignal::new(0),
        local: RwSignal::new(Vec::new()),
        effective: effective_now,
        errors: Memo::new(move |_| effective_now.with(validate)),
        report: RwSignal::new(None),
        reported: RwSignal::new(None),
        phase: RwSignal::new(Phase::Idle),
        progress: RwSignal::new(0.0),
        runner: workbench::jobs(),
        import_errors: RwSignal::new(None),
        imported: RwSignal::new(false),
    };

    // Field messages and the workload line follow the contract (after the form is in the page).
    workbench::effect(Box::new(move || {
        st.form_version.track();
        let mut msgs = st.local.get();
        st.errors.with(|e| {
            if let Some(e) = e {
                for f in &e.errors {
                    if !msgs.iter().any(|(p, _)| *p == f.field) {
                        msgs.push((f.field.clone(), f.message.clone()));
                    }
                }
            }
        });
        let workload = tf(
            "features.contract.workload_is",
            &[("name", st.effective.with(|c| c.workload.name.clone().unwrap_or_default()))],
        );
        request_animation_frame(move || show_field_errors(&msgs, &workload));
    }));

    let on_click = move |ev: web_sys::MouseEvent| {
        if let Some((act, arg)) = workbench::action(&ev) {
            st.act(&act);
            workbench::refocus(act, arg);
        }
    };
    let on_change = move |ev: web_sys::Event| {
        if let Some((field, value, checked)) = workbench::edited(&ev) {
            st.edit(&field, &value, checked);
        }
    };
    view! {
        <div class="contract" data-testid="contract" on:click=on_click on:change=on_change>
            {html("", Box::new(move || {
                format!(
                    "<header class=\"panel-head\"><h2>{}</h2><span class=\"small muted\">{}</span></header>",
                    esc(&t("features.contract.title")),
                    esc(&t("features.contract.intro"))
                )
            }))}
            <div class="contract-grid">
                {html("contract-form", Box::new(move || form_html(st)))}
                <div class="contract-side">
                    {html("contract-run", Box::new(move || buttons_html(st)))}
                    {html("", Box::new(move || errors_html(st)))}
                    {html("", Box::new(move || {
                        if st.phase.get() != Phase::Running {
                            return String::new();
                        }
                        let pct = format!("{:.0}", st.progress.get() * 100.0);
                        workbench::progress_html("contract-progress", st.progress.get(), &tf("features.contract.progress", &[("pct", pct)]))
                    }))}
                    {html("contract-report", Box::new(move || report_html(st)))}
                    {html("", Box::new(move || {
                        format!(
                            "<details class=\"contract-import\"><summary>{}</summary><label for=\"contract-import-text\" class=\"small\">{}</label><textarea id=\"contract-import-text\" rows=\"8\" spellcheck=\"false\" data-testid=\"contract-import-text\"></textarea><div class=\"lesson-actions\">{}</div></details>",
                            esc(&t("features.contract.import")),
                            esc(&t("features.contract.import_hint")),
                            workbench::button("", "import", "", "data-testid=\"contract-import\"", &t("features.contract.import_button"))
                        )
                    }))}
                    {html("", Box::new(move || import_html(st)))}
                </div>
            </div>
        </div>
    }
    .into_any()
}
