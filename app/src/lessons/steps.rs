//! The content of each step of a lesson: the note after set-up, the question and its choices,
//! the run, the explanation with the runs' numbers, and what to try next.

use leptos::prelude::*;
use sim_core::lessons::Lesson;
use sim_core::metrics::{ClassSummary, Summary};
use sim_core::sweep::SweepParam;

use super::{explanation, load_scenarios, open, set_step, text_of, variant_label, Ctx, HIGHLIGHT_CLASS};
use crate::format;
use crate::i18n::{self, t, tf};
use crate::sweep_panel;
use crate::workbench::{self, actions, button};
use app_model::tabs::lesson::{self as model, Finished, Step};

fn choice_text(id: &str, i: usize) -> String {
    text_of(id, &format!("choice.{i}"))
}

/// A button that moves to `step`.
fn go(cx: Ctx, class: &'static str, testid: Option<&'static str>, label: &'static str, step: Step) -> AnyView {
    button(class, testid, label, None, cx.act(move |cx| set_step(cx.ui, step)))
}

fn reload(cx: Ctx, lesson: &'static Lesson, testid: Option<&'static str>) -> AnyView {
    button("", testid, "features.lesson.reload", None, cx.act(move |cx| load_scenarios(cx.ui, lesson)))
}

/// The step's content.
pub(super) fn step(cx: Ctx, lesson: &'static Lesson, step: Step) -> AnyView {
    let id = lesson.id;
    match step {
        Step::Setup => {
            let seed = super::page_seed(cx.ui);
            let note = match lesson.scenarios(seed).len() {
                1 => t("features.lesson.loaded_one"),
                2 if lesson.same_arrivals(seed) => t("features.lesson.loaded_ab"),
                2 => t("features.lesson.loaded_ab_other"),
                n => tf("features.lesson.loaded_many", &[("n", n.to_string())]),
            };
            view! {
                <p class="lesson-note">{note}</p>
                {actions(vec![
                    go(cx, "primary", Some("lesson-next"), "lessons.next", Step::Predict),
                    reload(cx, lesson, Some("lesson-reload")),
                ])}
            }
            .into_any()
        }
        Step::Predict => {
            let choices = (0..lesson.choices)
                .map(|i| {
                    let on = move || cx.prediction.get() == Some(i);
                    view! {
                        <button
                            type="button"
                            class="choice"
                            class:active=on
                            aria-pressed=move || on().to_string()
                            data-testid=format!("lesson-choice-{i}")
                            on:click=move |_| cx.panel.update(|p| p.choose(i))
                        >
                            <span class="choice-mark" aria-hidden="true">{move || if on() { "●" } else { "○" }}</span>
                            {choice_text(id, i)}
                        </button>
                    }
                })
                .collect_view();
            let run = cx.act(move |cx| {
                if cx.panel.with_untracked(|p| p.can_run()) {
                    cx.panel.update(|p| p.result = None);
                    set_step(cx.ui, Step::Run);
                }
            });
            let blocked = Signal::derive(move || cx.prediction.get().is_none());
            view! {
                <h3>{t("lessons.predict")}</h3>
                <p class="lesson-question">{text_of(id, "question")}</p>
                <div class="choices" role="group" aria-label=t("lessons.predict")>{choices}</div>
                <p class="small muted">{t("features.lesson.commit_first")}</p>
                {actions(vec![
                    button("primary", Some("lesson-run"), "lessons.run", Some(blocked), run),
                    go(cx, "", None, "lessons.prev", Step::Setup),
                ])}
            }
            .into_any()
        }
        Step::Run => {
            let cancel = cx.act(|cx| {
                cx.cancel();
                set_step(cx.ui, Step::Predict);
            });
            let yours = move || {
                cx.prediction.get().map(|p| choice_text(id, p)).unwrap_or_else(|| t("features.lesson.no_prediction"))
            };
            view! {
                <h3>{t("lessons.running")}</h3>
                <p class="lesson-question">{text_of(id, "question")}</p>
                <p class="small"><b>{t("lessons.your_prediction")}</b>": "{yours}</p>
                {actions(vec![button("", Some("lesson-cancel"), "lessons.cancel", None, cancel)])}
            }
            .into_any()
        }
        Step::Explain => (move || match cx.finished.get() {
            Some(fin) => explain(cx, lesson, fin),
            None => view! { <h3>{t("lessons.running")}</h3> }.into_any(),
        })
        .into_any(),
        Step::Play => {
            let mut buttons = Vec::new();
            if let Some(n) = model::next(id) {
                let next = cx.act(move |cx| open(cx.ui, n.id));
                buttons.push(button("primary", Some("lesson-next-lesson"), "features.lesson.next_lesson", None, next));
            }
            buttons.push(go(cx, "", None, "lessons.prev", Step::Explain));
            buttons.push(reload(cx, lesson, None));
            view! {
                <h3>{t("features.lesson.try")}</h3>
                <p class="lesson-try" data-testid="lesson-try">{text_of(id, "try")}</p>
                <p class="small muted">{t("features.lesson.play_note")}</p>
                {actions(buttons)}
            }
            .into_any()
        }
    }
}

fn explain(cx: Ctx, lesson: &'static Lesson, fin: Finished) -> AnyView {
    let id = lesson.id;
    let answer = fin.outcome.answer;
    let fb = fin.feedback();
    let predicted = fin.predicted;
    let outcome = fin.outcome.clone();
    let numbers = if id == "safe-zone" {
        view! { <div class="sweep-charts">{sweep_panel::charts("lesson-sweep", Signal::stored(SweepParam::RatePerS))}</div> }
            .into_any()
    } else {
        runs_table(lesson, &fin)
    };
    let show = cx.act(|_| workbench::scroll_to(&format!(".{HIGHLIGHT_CLASS}")));
    let again = cx.act(|cx| {
        cx.panel.update(|p| p.again());
        set_step(cx.ui, Step::Predict);
    });
    view! {
        <div class=format!("lesson-feedback {}", fb.class()) data-testid="lesson-feedback" data-correct=fb.correct()>
            <span class="fb-icon" aria-hidden="true">{fb.icon()}</span>
            <p>{t(fb.key())}</p>
        </div>
        <dl class="lesson-answers small">
            <div>
                <dt>{t("lessons.your_prediction")}</dt>
                <dd>{predicted.map(|p| choice_text(id, p)).unwrap_or_else(|| format::NONE.to_string())}</dd>
            </div>
            <div>
                <dt>{t("lessons.outcome")}</dt>
                <dd data-testid="lesson-answer" data-answer=answer.to_string()>{choice_text(id, answer)}</dd>
            </div>
        </dl>
        {predicted.map(|p| {
            let key = format!("lesson.{id}.feedback.{p}");
            i18n::has(&key).then(|| view! { <p class="lesson-why small" data-testid="lesson-why">{t(&key)}</p> })
        })}
        <p class="lesson-explanation" data-testid="lesson-explanation">{explanation(id, &outcome)}</p>
        <div class="lesson-look">
            <span class="look-icon" aria-hidden="true">"◎"</span>
            <p><b>{t("features.lesson.where")}</b>" "{text_of(id, "highlight")}</p>
            {button("small-btn", Some("lesson-show"), "features.lesson.show", None, show)}
        </div>
        {numbers}
        {actions(vec![
            go(cx, "primary", Some("lesson-play"), "lessons.play_freely", Step::Play),
            button("", Some("lesson-again"), "features.lesson.again", None, again),
        ])}
    }
    .into_any()
}

/// One row of the per-run numbers: label, value, the highlight key it belongs to.
type Row = (fn() -> String, fn(&Summary) -> String, &'static str);

const ROWS: [Row; 11] = [
    (|| t("features.num.ttft_p99"), |s| format::dist_ms(s.all.ttft_ms.count, s.all.ttft_ms.p99), "ttft.p99"),
    (|| t("features.num.ttft_mean"), |s| format::dist_ms(s.all.ttft_ms.count, s.all.ttft_ms.mean), ""),
    (|| t("features.num.tpot_p99"), |s| format::dist_ms(s.all.tpot_ms.count, s.all.tpot_ms.p99), ""),
    (|| t("features.num.itl_p99"), |s| format::dist_ms(s.all.itl_ms.count, s.all.itl_ms.p99), "itl.p99"),
    (|| t("features.num.throughput"), |s| format!("{} tok/s", format::rate(s.all.throughput.output_tokens_per_s)), ""),
    (|| t("features.num.goodput"), |s| format!("{} tok/s", format::rate(s.all.goodput.output_tokens_per_s)), "goodput"),
    (|| t("features.num.attainment"), |s| format::pct(s.all.goodput.slo_attainment), ""),
    (|| t("features.num.cost_good"), |s| format::usd(s.cost.usd_per_million_good_tokens), "cost"),
    (|| t("features.num.oom"), |s| format::int(s.all.requests.oom_restarts), "oom"),
    (|| t("features.num.peak_running"), |s| format::int(s.memory.peak_running), ""),
    (|| t("features.num.kv_peak"), |s| format::gib(s.memory.kv_peak_bytes), "hbm"),
];

/// One row of a class's numbers, for a lesson about that class.
type ClassRow = (fn() -> String, fn(&ClassSummary) -> String, &'static str);

const CLASS_ROWS: [ClassRow; 4] = [
    (|| t("features.num.ttft_p99"), |c| format::dist_ms(c.ttft_ms.count, c.ttft_ms.p99), "ttft.p99"),
    (|| t("features.num.tpot_p99"), |c| format::dist_ms(c.tpot_ms.count, c.tpot_ms.p99), ""),
    (|| t("features.num.goodput"), |c| format!("{} tok/s", format::rate(c.goodput.output_tokens_per_s)), "goodput"),
    (|| t("features.num.attainment"), |c| format::pct(c.goodput.slo_attainment), ""),
];

/// The focus class's rows first (a lesson about one class of traffic), then every class's.
fn class_rows(lesson: &'static Lesson, fin: &Finished) -> AnyView {
    let Some(class) = lesson.focus_class else { return ().into_any() };
    CLASS_ROWS
        .iter()
        .map(|(label, value, key)| {
            let hl = !key.is_empty() && *key == model::highlight_key(lesson.highlight);
            let cells = fin
                .sums
                .iter()
                .map(|s| {
                    let v = s.classes.get(class).map(value).unwrap_or_else(|| format::NONE.to_string());
                    view! { <td class="num">{v}</td> }
                })
                .collect_view();
            view! {
                <tr class="class-row" class:hl-row=hl data-class=class>
                    <th scope="row">{tf("features.lesson.class_row", &[("class", class.to_string()), ("what", label())])}</th>
                    {cells}
                </tr>
            }
        })
        .collect_view()
        .into_any()
}

fn runs_table(lesson: &'static Lesson, fin: &Finished) -> AnyView {
    let focus = lesson.focus_class.is_some();
    let two = fin.variants.len() == 2;
    let heads = fin
        .variants
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let tag = if two { ["A · ", "B · "][i.min(1)] } else { "" };
            view! { <th scope="col">{tag}{variant_label(lesson.id, v)}</th> }
        })
        .collect_view();
    let rows = ROWS
        .iter()
        .map(|(label, value, key)| {
            let hl = !focus && !key.is_empty() && *key == model::highlight_key(lesson.highlight);
            let cells = fin.sums.iter().map(|s| view! { <td class="num">{value(s)}</td> }).collect_view();
            let label = if focus { tf("features.lesson.all_row", &[("what", label())]) } else { label() };
            view! {
                <tr class:hl-row=hl>
                    <th scope="row">{label}</th>
                    {cells}
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll">
            <table class="runs-table" data-testid="lesson-runs">
                <caption class="small muted">{t("features.lesson.runs_caption")}</caption>
                <thead><tr><th scope="col"></th>{heads}</tr></thead>
                <tbody>{class_rows(lesson, fin)}{rows}</tbody>
            </table>
        </div>
    }
    .into_any()
}
