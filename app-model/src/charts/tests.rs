use super::cdf::{self, Cdf, CDF_POINTS};
use super::series::{self, Mark, SeriesChart};
use super::*;
use crate::words::Keys;
use sim_core::scenario::Scenario;

fn run(preset: &str, seconds: u64) -> Simulation {
    let s = Scenario::from_json(sim_core::presets::find(preset).expect("preset").json).expect("valid");
    let mut sim = Simulation::new(&s).expect("runs");
    sim.advance_to(seconds * 1_000_000);
    sim
}

#[test]
fn linear_ticks_are_round_numbers_covering_the_data() {
    for hi in [0.3, 1.0, 7.0, 13.0, 99.0, 101.0, 1234.0, 25_000.0, 7e6] {
        let axis = Axis::zero_to(hi);
        let Axis::Linear { min, max } = axis else { panic!("linear") };
        assert_eq!(min, 0.0);
        assert!(max >= hi && max < hi * 2.6, "{hi} → {max}");
        let ticks = axis.ticks();
        assert_eq!(ticks.first(), Some(&0.0));
        assert!((ticks.last().expect("ticks") - max).abs() <= max * 1e-9, "{hi}: {ticks:?}");
        assert!((3..=6).contains(&ticks.len()), "{hi}: {ticks:?}");
        let step = ticks[1] - ticks[0];
        let mag = 10f64.powf(step.log10().floor());
        let m = step / mag;
        assert!([1.0, 2.0, 2.5, 5.0].iter().any(|r| (m - r).abs() < 1e-9), "{hi}: step {step}");
    }
    assert_eq!(Axis::zero_to(13.0).ticks(), [0.0, 5.0, 10.0, 15.0]);
    assert_eq!(Axis::zero_to(f64::NAN), Axis::Linear { min: 0.0, max: 1.0 });
}

#[test]
fn log_axes_span_whole_decades() {
    let axis = Axis::log_decades(35.0, 4200.0);
    assert_eq!(axis, Axis::Log { min: 10.0, max: 10_000.0 });
    assert_eq!(axis.ticks(), [10.0, 100.0, 1000.0, 10_000.0]);
    assert_eq!(axis.frac(100.0), 1.0 / 3.0);
    // one value: still a decade wide
    assert_eq!(Axis::log_decades(50.0, 50.0), Axis::Log { min: 10.0, max: 1000.0 });
    assert_eq!(Units::Ms.label(2000.0), "2 s");
    assert_eq!(Units::Ms.label(500.0), "500 ms");
    assert_eq!(Units::Count.label(20_000.0), "20k");
    assert_eq!(Units::Percent.label(50.0), "50 %");
}

#[test]
fn the_cdfs_are_monotone_and_end_at_one() {
    let sim = run("chat-latency-first", 30);
    let input = ChartInput { runs: vec![("A", &sim)], class: None };
    for of in [cdf::Of::Ttft, cdf::Of::Tpot] {
        let chart = Cdf::new(&input, of);
        assert!(!chart.curves.is_empty(), "{of:?}");
        assert_eq!(chart.note, None);
        for c in chart.curves.iter().chain(&chart.bounds) {
            assert_eq!(c.points.len(), CDF_POINTS);
            assert!(c.points.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 < w[1].1), "{of:?}");
            assert_eq!(c.points.last().map(|p| p.1), Some(1.0));
            let line = c.line();
            assert_eq!(line[0], (c.points[0].0, 0.0));
            // the axis covers every point
            let Axis::Log { min, max } = chart.x else { panic!("log") };
            assert!(c.points.iter().all(|p| p.0 <= 0.0 || (min..=max).contains(&p.0)));
        }
        for &(_, slo) in &chart.slos {
            let Axis::Log { min, max } = chart.x else { panic!("log") };
            assert!((min..=max).contains(&slo));
        }
        let text = chart.text(&input, "T", &Keys, true);
        assert!(
            text.summary.starts_with("a11y.chart_summary{title=T,text=a11y.cdf_one{name=T,p50="),
            "{}",
            text.summary
        );
        assert_eq!(text.rows.len(), 11);
        assert_eq!(text.rows[10][0], "100.0 %");
        assert_eq!(text.head[0], "a11y.col_share");
        assert!(text.rows.iter().all(|r| r.len() == text.head.len()));
        assert!(chart.text(&input, "T", &Keys, false).rows.is_empty());
    }
}

#[test]
fn an_empty_run_has_a_note_and_no_curve() {
    let sim = run("chat-latency-first", 0);
    let input = ChartInput { runs: vec![("A", &sim)], class: None };
    let chart = Cdf::new(&input, cdf::Of::Ttft);
    assert!(chart.curves.is_empty() && chart.bounds.is_empty());
    assert_eq!(chart.note, Some("chart.no_completed"));
    let series = SeriesChart::new(&input, series::Of::Queue);
    assert_eq!(series.note, Some("chart.first_sample"));
    assert!(series.text(&input, "Q", &Keys, false).summary.contains("chart.first_sample"));
}

#[test]
fn series_points_map_into_the_plot_box() {
    let a = run("chat-latency-first", 40);
    let b = run("static-batching", 40);
    let input = ChartInput { runs: vec![("A", &a), ("B", &b)], class: None };
    for of in [series::Of::Queue, series::Of::Batch, series::Of::Kv, series::Of::Goodput] {
        let chart = SeriesChart::new(&input, of);
        assert_eq!(chart.note, None);
        let frame = PlotBox::new(600.0, 180.0, 1.0, chart.x, chart.y);
        let mut lines = 0;
        for mark in &chart.marks {
            match mark {
                Mark::Line(_, _, pts) => {
                    lines += 1;
                    assert_eq!(pts[0].0, 0.0, "{of:?} starts at t = 0");
                    for &(x, y) in pts {
                        // the axes cover the data: no point is clamped to the edge
                        assert!((0.0..=1.0).contains(&chart.x.frac(x)) && (0.0..=1.0).contains(&chart.y.frac(y)));
                        let (px, py) = (frame.px(x), frame.py(y));
                        assert!((frame.x0..=frame.x1).contains(&px) && (frame.y0..=frame.y1).contains(&py));
                    }
                }
                Mark::Limit(y, label) => {
                    assert!(label.starts_with("max_num_seqs "));
                    assert!(chart.y.frac(*y) <= 1.0);
                }
            }
        }
        let per_run = if of == series::Of::Goodput { 2 } else { 1 };
        assert_eq!(lines, 2 * per_run, "{of:?}");
        assert!(chart.legend.contains(&Legend::Run("B".into(), 1)));
        let text = chart.text(&input, "S", &Keys, true);
        assert_eq!(text.head[..2], ["a11y.col_run".to_string(), "a11y.col_time".to_string()]);
        assert!(text.rows.len() <= 40 && !text.rows.is_empty());
        // each run's rows end on its last sample
        let last_a = a.series().last().map(|s| format::sim_time(s.t_s)).expect("samples");
        let a_rows: Vec<&Vec<String>> = text.rows.iter().filter(|r| r[0] == "A").collect();
        assert_eq!(a_rows.last().map(|r| r[1].clone()), Some(last_a));
    }
    // KV is plotted in percent on a 0–100 axis
    assert_eq!(SeriesChart::new(&input, series::Of::Kv).y, Axis::Linear { min: 0.0, max: 100.0 });
}

#[test]
fn the_batch_limit_counts_every_replica() {
    let sim = run("chat-latency-first", 0);
    let (limit, label) = series::batch_limit(&sim);
    let per = sim.scenario().scheduler.max_num_seqs;
    assert_eq!(limit, f64::from(per) * sim.replica_count() as f64);
    assert_eq!(label, format!("max_num_seqs {}", format::int(u64::from(per))));
}

#[test]
fn a_cdf_figure_notes_first_draws_curves_then_bounds_then_slos_and_its_legend_at_the_bottom() {
    use super::figure::{Dash, Ink, Item};
    let a = run("chat-latency-first", 30);
    let b = run("static-batching", 30);
    let input = ChartInput { runs: vec![("A", &a), ("B", &b)], class: None };
    let chart = Cdf::new(&input, cdf::Of::Ttft);
    let fig = chart.figure("T".into(), &Keys);
    assert_eq!((fig.title.as_str(), fig.x, fig.x_units, fig.y_units), ("T", chart.x, Units::Ms, Units::Share));
    assert_eq!(fig.y, Axis::Linear { min: 0.0, max: 1.0 });
    assert_eq!(fig.items[0], Item::LegendAtBottom, "no note with curves");
    let lines: Vec<(Ink, Dash, f64)> = fig
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Line { ink, dash, width, .. } => Some((*ink, *dash, *width)),
            _ => None,
        })
        .collect();
    assert_eq!(lines.len(), chart.curves.len() + chart.bounds.len());
    // run B's curves are dashed, the every-arrival bounds dotted and thinner
    for (c, line) in chart.curves.iter().zip(&lines) {
        assert_eq!(*line, (Ink::Class(c.class), if c.run == 0 { Dash::Solid } else { Dash::RunB }, 2.0));
    }
    assert!(lines[chart.curves.len()..].iter().all(|l| l.1 == Dash::Dots && l.2 == 1.5));
    let slos: Vec<&Item> = fig.items.iter().filter(|i| matches!(i, Item::VLine { .. })).collect();
    assert_eq!(slos.len(), chart.slos.len());
    for (&(c, v), item) in chart.slos.iter().zip(slos) {
        assert_eq!(*item, Item::VLine { x: v, ink: Ink::Class(c), label: format!("SLO {}", format::ms(v)) });
    }
    // the legend comes last: the runs by their dash
    let legend: Vec<&Item> = fig.items.iter().filter(|i| matches!(i, Item::Legend { .. })).collect();
    assert_eq!(legend.len(), chart.legend.len());
    assert!(legend.contains(&&Item::Legend { label: "B".into(), ink: Ink::Run, dash: Dash::RunB, glyph: None }));
    assert!(matches!(fig.items.last(), Some(Item::Legend { .. })));

    let empty = run("chat-latency-first", 0);
    let input = ChartInput { runs: vec![("A", &empty)], class: None };
    let fig = Cdf::new(&input, cdf::Of::Ttft).figure("T".into(), &Keys);
    assert_eq!(fig.items[..2], [Item::Note("chart.no_completed".into()), Item::LegendAtBottom]);
}

#[test]
fn a_series_figure_draws_throughput_thick_under_goodput_and_the_batch_limit() {
    use super::figure::{Dash, Ink, Item};
    let a = run("chat-latency-first", 20);
    let input = ChartInput { runs: vec![("A", &a)], class: None };
    let fig = SeriesChart::new(&input, series::Of::Goodput).figure("G".into(), &Keys);
    assert_eq!((fig.x_units, fig.y_units), (Units::Seconds, Units::Count));
    let inks: Vec<(Ink, f64)> = fig
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Line { ink, width, dash: Dash::Solid, .. } => Some((*ink, *width)),
            _ => None,
        })
        .collect();
    assert_eq!(inks, [(Ink::Throughput, 3.0), (Ink::Goodput, 1.4)]);
    assert_eq!(
        fig.items[2..],
        [
            Item::Legend {
                label: "chart.legend_throughput".into(),
                ink: Ink::Throughput,
                dash: Dash::Solid,
                glyph: None
            },
            Item::Legend { label: "chart.legend_goodput".into(), ink: Ink::Goodput, dash: Dash::Solid, glyph: None },
        ]
    );
    let batch = SeriesChart::new(&input, series::Of::Batch).figure("B".into(), &Keys);
    let limit = series::batch_limit(&a);
    assert!(batch.items.contains(&Item::HLine { y: limit.0, ink: Ink::Reference, label: limit.1 }));
    let empty = run("chat-latency-first", 0);
    let input = ChartInput { runs: vec![("A", &empty)], class: None };
    let fig = SeriesChart::new(&input, series::Of::Queue).figure("Q".into(), &Keys);
    assert_eq!(fig.items.last(), Some(&Item::Note("chart.first_sample".into())));
}
