//! The inference resource contract: model, request limits, resources, SLO targets and acceptance
//! metrics as a form (prefilled with sim-core's example), imported or exported as JSON, and its
//! acceptance test run in slices against the lab's scenario (or the contract's own workload),
//! reported line by line: field, target, measured, pass or fail. The form's table and rules are
//! `app_model::tabs::contract`; the run is an `app_model::jobs::Acceptance` job. The contract
//! being edited is [`Draft`], which the plan tab plans too.

use app_model::jobs::{Acceptance, Status};
use app_model::tabs::contract::{self as model, ContractForm, ContractRun, Field, Group, Message, Select, Verdict};
use lab_content::contract::{Contract, EXAMPLE};
use leptos::prelude::*;
use sim_core::ScenarioError;

use crate::i18n::{t, tf, tx, PAGE};
use crate::kit::{self, button, data_url, error_list, text, Jobs};
use crate::ui::use_ui;
use app_model::format;

/// The contract being edited, shared by this tab and the plan tab: the first of them to open
/// makes it ([`draft`]).
#[derive(Clone, Copy)]
pub struct Draft {
    pub form: RwSignal<ContractForm>,
    /// The contract as it is run (on the lab's scenario, or its own workload).
    pub effective: Memo<Contract>,
    pub errors: Memo<Option<ScenarioError>>,
}

thread_local! {
    // The page's one draft, with the owner of its signals: a root of its own, since the tab that
    // makes it may render more than once (a suspense's first pass), and its owner would take
    // the draft with it. A slot here rather than a context keeps it out of the page's first
    // module: only the tabs' code names it.
    static DRAFT: std::cell::RefCell<Option<(Owner, Draft)>> = const { std::cell::RefCell::new(None) };
}

/// The contract being edited, made now when no tab has made it yet (the example, on the lab's
/// scenario). `None` when the example cannot be read.
pub fn draft() -> Option<Draft> {
    if let Some(d) = DRAFT.with(|d| d.borrow().as_ref().map(|(_, d)| *d)) {
        return Some(d);
    }
    let ui = use_ui();
    let example = Contract::from_json(EXAMPLE).ok()?;
    let owner = Owner::new_root(None);
    let d = owner.with(|| {
        let form = RwSignal::new(ContractForm::new(example));
        let effective = Memo::new(move |_| {
            let lab = form.with(|f| f.use_lab).then(|| ui.drafts[0].get());
            form.with(|f| f.effective(lab.as_ref()))
        });
        Draft { form, effective, errors: Memo::new(move |_| effective.with(model::validate)) }
    });
    DRAFT.with(|slot| *slot.borrow_mut() = Some((owner, d)));
    Some(d)
}

#[derive(Clone, Copy)]
struct State {
    form: RwSignal<ContractForm>,
    effective: Memo<Contract>,
    errors: Memo<Option<ScenarioError>>,
    run: RwSignal<ContractRun>,
    /// Whether the acceptance run is going (changes only at its start and end).
    running: Memo<bool>,
    progress: RwSignal<f64>,
    runner: Jobs<Acceptance>,
    import_text: RwSignal<String>,
}

impl State {
    fn run(self) {
        let st = self;
        let invalid = st.errors.with_untracked(Option::is_some);
        if !st.run.with_untracked(|r| r.may_start(invalid)) {
            return;
        }
        let c = st.effective.get_untracked();
        let job = match Acceptance::new(c.clone()) {
            Ok(job) => job,
            Err(e) => return st.run.update(|r| r.refused(e)),
        };
        st.run.update(ContractRun::started);
        st.progress.set(0.0);
        kit::start(st.runner, job, move |status| match status {
            Status::Working(share) => st.progress.set(share),
            Status::Finished(report) => st.run.update(|r| r.finished(c.clone(), report)),
            Status::Stopped => {}
        });
    }

    fn cancel(self) {
        kit::cancel(self.runner);
        self.run.update(ContractRun::cancelled);
    }

    fn import(self) {
        let text = self.import_text.get_untracked();
        if let Some(result) = self.form.try_update(|f| f.import(&text)) {
            self.run.update(|r| r.import_result(result));
        }
    }
}

/// One numeric field: label, box, and the message beside it.
fn number_field(st: State, f: &'static Field, value: String) -> AnyView {
    let id = format!("contract-{}", f.path.replace('.', "-"));
    let message = Memo::new(move |_| {
        st.form.with(|form| st.errors.with(|e| form.message(f.path, e.as_ref()))).map(|m| match m {
            Message::Key(k) => t(k),
            Message::Msg(m) => crate::i18n::msg(&m),
        })
    });
    let bad = move || message.with(Option::is_some);
    view! {
        <div class="field cfield" class:invalid=bad>
            <label for=id.clone()>{t(&f.label_key())}</label>
            <input
                id=id.clone()
                type="text"
                inputmode="decimal"
                class="num"
                data-testid=format!("contract-field-{}", f.path)
                value=value
                placeholder=if f.optional { t("features.contract.none") } else { String::new() }
                aria-invalid=move || bad().to_string()
                aria-describedby=format!("{id}-err")
                on:change=move |ev| st.form.update(|form| form.edit(f.path, &event_target_value(&ev), false))
            />
            <p class="err" id=format!("{id}-err") role="alert" data-err-for=f.path>{text(Box::new(move || message.get().unwrap_or_default()))}</p>
        </div>
    }
    .into_any()
}

/// A drop-down of the form (`app_model::tabs::contract::selects`).
fn select(st: State, Select { label, path, options, current }: Select) -> AnyView {
    let id = format!("contract-{}", path.replace('.', "-"));
    let opts = options
        .into_iter()
        .map(|(v, l)| {
            let on = v == current;
            view! { <option value=v selected=on>{l}</option> }
        })
        .collect_view();
    view! {
        <div class="field cfield wide">
            <label for=id.clone()>{t(label)}</label>
            <select
                id=id.clone()
                data-testid=id
                on:change=move |ev| st.form.update(|form| form.edit(path, &event_target_value(&ev), false))
            >
                {opts}
            </select>
        </div>
    }
    .into_any()
}

/// The form, rebuilt when it must show new values (reset, import).
fn form(st: State) -> AnyView {
    let body = move || {
        st.form.with(|f| f.version);
        let (c, use_lab) = st.form.with_untracked(|f| (f.contract.clone(), f.use_lab));
        Group::ALL
            .into_iter()
            .map(|g| {
                let mut inner: Vec<AnyView> = model::selects(g, &c).into_iter().map(|s| select(st, s)).collect();
                if g == Group::Workload {
                    inner.push(workload(st, use_lab));
                }
                inner.extend(
                    Field::of(g).map(|f| number_field(st, f, f.get(&c).map(format::plain).unwrap_or_default())),
                );
                view! { <fieldset class="cgroup"><legend>{t(g.key())}</legend>{inner}</fieldset> }
            })
            .collect_view()
    };
    view! { <div class="contract-form">{body}</div> }.into_any()
}

fn workload(st: State, use_lab: bool) -> AnyView {
    let name = move || {
        let name =
            st.effective.with(|c| c.workload.name.as_deref().map(crate::presets::scenario_title).unwrap_or_default());
        tf("features.contract.workload_is", &[("name", name)])
    };
    view! {
        {kit::check_line(
            "contract-use-lab".into(),
            use_lab,
            t("features.contract.use_lab").into_any(),
            Callback::new(move |on| st.form.update(|f| f.edit("use_lab", "", on))),
        )}
        <p class="small muted" data-testid="contract-workload">{text(Box::new(name))}</p>
    }
    .into_any()
}

fn buttons(st: State) -> AnyView {
    let blocked = Signal::derive(move || st.running.get() || st.errors.with(Option::is_some));
    let href = move || st.effective.with(|c| data_url("application/json", &c.to_json_pretty()));
    let run = Callback::new(move |()| st.run());
    let cancel = Callback::new(move |()| st.cancel());
    let reset = Callback::new(move |()| st.form.update(ContractForm::reset));
    view! {
        <div class="contract-run">
            {button("primary", Some("contract-run"), "features.contract.run", Some(blocked), run)}
            {move || st.running.get().then(|| button("", Some("contract-cancel"), "lessons.cancel", None, cancel))}
            <a class="btn" href=text(Box::new(href)) download="contract.json" data-testid="contract-export">{tx("features.contract.export")}</a>
            {button("", Some("contract-reset"), "features.contract.reset", None, reset)}
        </div>
    }
    .into_any()
}

fn report(st: State) -> AnyView {
    let body = move || {
        st.run.with(|run| {
            let r = run.reported.as_ref()?;
            let stale = st.effective.with(|c| r.stale(c));
            let Verdict { class, icon, key, args } = r.verdict();
            let text = tf(key, &args);
            let (pass, fail) = (t("features.contract.pass"), t("features.contract.fail"));
            let lines = r
                .report
                .lines
                .iter()
                .map(|l| {
                    let verdict = if l.pass { pass.clone() } else { fail.clone() };
                    let [label, target, measured] = model::line_cells(PAGE, l);
                    view! {
                        <tr class=if l.pass { "pass" } else { "fail" } data-testid="contract-line" data-field=l.field.clone() data-pass=l.pass.to_string()>
                            <th scope="row">{label}<code class="small muted">{l.field.clone()}</code></th>
                            <td class="num">{target}</td>
                            <td class="num">{measured}</td>
                            <td class="verdict"><span class="v-icon" aria-hidden="true">{if l.pass { "✓" } else { "✗" }}</span>{verdict}</td>
                        </tr>
                    }
                })
                .collect_view();
            let cols = kit::heads(model::COLUMNS.map(t));
            Some(view! {
                <p class=format!("verdict-box {class}") data-testid="contract-verdict" data-pass=r.report.pass.to_string()>
                    <span aria-hidden="true">{icon}" "</span>{text}
                </p>
                {stale.then(|| view! { <p class="small warn" data-testid="contract-stale">{t("features.contract.stale")}</p> })}
                {kit::table("runs-table contract-table", Some("contract-report"), t("features.contract.report_caption"), cols, lines.into_any())}
            })
        })
    };
    view! { <div class="contract-report">{body}</div> }.into_any()
}

fn import(st: State) -> AnyView {
    let result = move || {
        let note = st
            .run
            .with(|r| r.imported)
            .then(|| view! { <p class="small good-text">{t("features.contract.imported")}</p> });
        let errors = st.run.with(|r| {
            r.errors.as_ref().map(|e| {
                view! { <div class="banner error" role="alert" data-testid="contract-import-errors">{error_list(e)}</div> }
            })
        });
        (note, errors)
    };
    view! {
        <div>
            <details class="contract-import">
                <summary>{tx("features.contract.import")}</summary>
                <label for="contract-import-text" class="small">{tx("features.contract.import_hint")}</label>
                <textarea
                    id="contract-import-text"
                    rows="8"
                    spellcheck="false"
                    data-testid="contract-import-text"
                    on:input=move |ev| st.import_text.set(event_target_value(&ev))
                ></textarea>
                <div class="lesson-actions">
                    {button("", Some("contract-import"), "features.contract.import_button", None, Callback::new(move |()| st.import()))}
                </div>
            </details>
        </div>
        <div>{result}</div>
    }
    .into_any()
}

#[component]
pub fn ContractPanel() -> impl IntoView {
    let Some(d) = draft() else {
        return view! { <p class="err">{tx("features.contract.no_example")}</p> }.into_any();
    };
    let run = RwSignal::new(ContractRun::default());
    let st = State {
        form: d.form,
        effective: d.effective,
        errors: d.errors,
        run,
        running: Memo::new(move |_| run.with(|r| r.running)),
        progress: RwSignal::new(0.0),
        runner: kit::jobs(),
        import_text: RwSignal::new(String::new()),
    };
    let errors = move || {
        st.errors.with(|e| {
            e.as_ref().map(|e| {
                view! {
                    <div class="banner error" role="alert" data-testid="contract-errors">
                        <h3>{t("features.contract.invalid")}</h3>
                        {error_list(e)}
                    </div>
                }
            })
        })
    };
    let progress = move || {
        st.running.get().then(|| {
            let label = Signal::derive(move || {
                tf("features.contract.progress", &[("pct", format!("{:.0}", st.progress.get() * 100.0))])
            });
            kit::progress("contract-progress", st.progress.into(), label)
        })
    };
    view! {
        <div class="contract" data-testid="contract">
            {kit::panel_head("features.contract.title", Box::new(|| t("features.contract.intro")))}
            <div class="contract-grid">
                {form(st)}
                <div class="contract-side">
                    {buttons(st)}
                    <div>{errors}</div>
                    <div>{progress}</div>
                    {report(st)}
                    {import(st)}
                </div>
            </div>
        </div>
    }
    .into_any()
}
