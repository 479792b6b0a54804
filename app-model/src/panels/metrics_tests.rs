use super::*;
use crate::ab::{Arrow, Verdict};
use sim_core::metrics::{Censored, Dist};

fn dist(count: u64, p50: f64, p95: f64, p99: f64, mean: f64) -> Dist {
    Dist { count, mean, p50, p90: p95, p95, p99, max: p99 }
}

/// 10 requests arrived, 8 completed, 2 timed out; TTFT's p99 (800 ms) over its 500 ms SLO.
fn summary() -> Summary {
    let mut s = Summary::default();
    let c = &mut s.all;
    c.requests.arrived = 10;
    c.requests.completed = 8;
    c.requests.timed_out = 2;
    c.ttft_ms = dist(8, 100.0, 300.0, 800.0, 150.0);
    c.ttft_ms_censored = Censored {
        count: 10,
        censored: 2,
        mean: 400.0,
        p50: 120.0,
        p90: 2000.0,
        p95: 2000.0,
        p99: 2000.0,
        max: 2000.0,
    };
    c.tpot_ms = dist(8, 20.0, 30.0, 40.0, 25.0);
    c.itl_ms = dist(500, 20.0, 30.0, 45.0, 25.0);
    c.e2e_ms = dist(8, 1000.0, 2000.0, 3000.0, 1500.0);
    c.e2e_ms_censored =
        Censored { count: 8, p50: 1000.0, p95: 2000.0, p99: 3000.0, mean: 1500.0, ..Default::default() };
    c.throughput.output_tokens_per_s = 400.0;
    c.throughput.requests_per_s = 2.0;
    c.goodput.output_tokens_per_s = 100.0;
    c.goodput.requests_per_s = 0.5;
    c.goodput.slo_attainment = 0.25;
    s.cost.usd_per_million_output_tokens = 2.5;
    s.cost.usd_per_million_good_tokens = 10.0;
    s
}

fn slo() -> Slo {
    Slo { ttft_ms: Some(500.0), tpot_ms: Some(50.0), e2e_ms: None }
}

fn texts(line: &Line) -> Vec<&str> {
    line.cells.iter().map(|c| c.text.as_str()).collect()
}

#[test]
fn a_p99_over_the_slo_marks_that_cell_and_only_that_cell() {
    let s = summary();
    let p = Panel::new(Some(Part::of(&s, None)), Some(&slo()), None);
    let over: Vec<(usize, usize)> = p
        .lines
        .iter()
        .enumerate()
        .flat_map(|(i, l)| l.cells.iter().enumerate().filter(|(_, c)| c.over).map(move |(j, _)| (i, j)))
        .collect();
    // TTFT's p99 (800 > 500), and the every-arrival view's p95 and p99 (2 s); nothing else
    assert_eq!(over, vec![(0, 2), (1, 1), (1, 2)]);
    assert_eq!(texts(&p.lines[0]), ["100 ms", "300 ms", "800 ms", "150 ms"]);
    assert!(p.lines[0].missed);
    assert_eq!(p.lines[0].slo, "SLO 500 ms");
    // TPOT within its SLO; E2E without one; the every-arrival lines carry no SLO tag
    assert!(!p.lines[2].missed);
    assert_eq!(p.lines[2].slo, "SLO 50.0 ms");
    assert_eq!((p.lines[4].slo.as_str(), p.lines[4].missed), ("", false));
    assert_eq!((p.lines[1].slo.as_str(), p.lines[1].missed), ("", false));
}

#[test]
fn the_every_arrival_view_with_unanswered_requests_is_a_lower_bound() {
    let s = summary();
    let p = Panel::new(Some(Part::of(&s, None)), Some(&slo()), None);
    assert_eq!(texts(&p.lines[1]), ["≥ 120 ms", "≥ 2.00 s", "≥ 2.00 s", "≥ 400 ms"]);
    // E2E's view counts no unanswered request: plain numbers
    assert_eq!(texts(&p.lines[5]), ["1.00 s", "2.00 s", "3.00 s", "1.50 s"]);
    let counted = p.lines[1].counted.as_ref().expect("counted");
    assert_eq!(counted.key, "metrics.over_all");
    assert_eq!(counted.args, vec![("m", "10".to_string()), ("k", "2".to_string())]);
    let ttft = p.lines[0].counted.as_ref().expect("counted");
    assert_eq!((ttft.key, ttft.args.clone()), ("metrics.over_ended", vec![("n", "8".into()), ("m", "10".into())]));
    let itl = p.lines[3].counted.as_ref().expect("counted");
    assert_eq!((itl.key, itl.args.clone()), ("metrics.over_gaps", vec![("n", "500".into())]));
    // the key numbers: TTFT's sub line is the lower bound, TPOT's what it is over
    assert_eq!(p.keys[0].value, "800 ms");
    assert!(p.keys[0].missed);
    assert_eq!(p.keys[0].sub, Some(Text { key: "metrics.key_all", args: vec![("v", "≥ 2.00 s".into())] }));
    assert_eq!(
        p.keys[1].sub,
        Some(Text { key: "metrics.key_over", args: vec![("n", "8".into()), ("m", "10".into())] })
    );
    assert!(!p.keys[1].missed);
}

#[test]
fn nothing_counted_shows_the_none_mark() {
    let empty = Summary::default();
    for p in [Panel::new(None, Some(&slo()), None), Panel::new(Some(Part::of(&empty, None)), Some(&slo()), None)] {
        for line in &p.lines {
            assert!(line.cells.iter().all(|c| c.text == format::NONE && !c.over), "{line:?}");
            assert!(!line.missed);
        }
        assert_eq!(p.figures[SLO_ATTAINMENT].text, format::NONE, "no attainment before anything ended");
        assert_eq!(p.keys[0].value, format::NONE);
        assert!(p.has_cost);
        assert_eq!(p.goodput_share, 0.0);
    }
    let none = Panel::new(None, None, None);
    assert!(none.lines.iter().all(|l| l.counted.is_none() && l.slo.is_empty()));
    assert!(none.counts.iter().all(|c| c == format::NONE));
    assert_eq!(none.figures[THROUGHPUT].text, format::NONE);
}

#[test]
fn figures_counts_and_goodput_share() {
    let s = summary();
    let p = Panel::new(Some(Part::of(&s, None)), None, None);
    assert_eq!(p.figures[THROUGHPUT], Figure { text: "400 tok/s".into(), sub: "2.00 req/s".into(), vs: None });
    assert_eq!(p.figures[GOODPUT].text, "100 tok/s");
    assert_eq!(p.figures[GOODPUT].sub, "0.500 req/s");
    assert_eq!(p.figures[SLO_ATTAINMENT].text, "25.0 %");
    assert_eq!(p.figures[COST_OUTPUT].text, "$2.50");
    assert_eq!(p.figures[COST_GOOD].text, "$10.00");
    assert_eq!(p.goodput_share, 0.25);
    assert!(p.has_cost && !p.against_a);
    assert_eq!(p.counts, ["8", "0", "0", "2", "0", "0", "0"]);
    assert_eq!(p.key_goodput, "100 tok/s");
    assert_eq!(p.key_throughput, Some(Text { key: "metrics.key_of_throughput", args: vec![("x", "400".into())] }));
    assert!(p.prefix_cache.is_none() && p.kv_transfer.is_none());
}

#[test]
fn a_class_shows_no_cost() {
    let mut s = summary();
    s.classes.insert("chat".into(), s.all.clone());
    let p = Panel::new(Some(Part::of(&s, Some("chat"))), None, None);
    assert!(!p.has_cost);
    assert_eq!(p.figures[COST_OUTPUT].text, format::NONE);
    // an unknown class falls back to all traffic
    assert!(Panel::new(Some(Part::of(&s, Some("batch"))), None, None).has_cost);
}

#[test]
fn run_b_is_marked_against_run_a() {
    let a = summary();
    let mut b = summary();
    b.all.ttft_ms.p99 = 400.0;
    b.all.goodput.output_tokens_per_s = 200.0;
    let p = Panel::new(Some(Part::of(&b, None)), Some(&slo()), Some(Part::of(&a, None)));
    assert!(p.against_a);
    let ttft = p.lines[0].vs.expect("compared");
    assert_eq!((ttft.arrow, ttft.verdict), (Arrow::Down, Verdict::Better));
    let good = p.figures[GOODPUT].vs.expect("compared");
    assert_eq!((good.arrow, good.verdict), (Arrow::Up, Verdict::Better));
    assert_eq!(p.lines[2].vs.map(|c| c.arrow), Some(Arrow::Same));
    // nothing ended in A: attainment is not compared
    let empty = Summary::default();
    let p = Panel::new(Some(Part::of(&b, None)), None, Some(Part::of(&empty, None)));
    assert_eq!(p.figures[SLO_ATTAINMENT].vs, None);
    assert_eq!(p.lines[0].vs, None);
}

#[test]
fn test_ids_name_the_line_and_column() {
    assert_eq!(LINES[0].id("p99"), "metric-ttft-p99");
    assert_eq!(LINES[1].id("over"), "metric-ttft-censored-over");
    assert_eq!(LINES[1].vs_id(), "vs-ttft-censored-p99");
    assert_eq!(LINES[3].vs_id(), "vs-itl-p99");
    let keys: Vec<&str> = COLUMNS.iter().map(|c| c.0).collect();
    assert_eq!(keys, ["p50", "p95", "p99", "mean"]);
}

#[test]
fn the_slo_is_the_selected_classs_or_the_only_ones() {
    let one = Scenario::from_json(sim_core::presets::find("chat-latency-first").expect("preset").json).expect("valid");
    assert_eq!(one.classes.len(), 1);
    assert_eq!(slo_of(&one, None), Some(&one.classes[0].slo));
    assert_eq!(slo_of(&one, Some(3)), None);
    let mixed = Scenario::from_json(sim_core::presets::find("mixed-shared").expect("preset").json).expect("valid");
    assert!(mixed.classes.len() > 1);
    assert_eq!(slo_of(&mixed, None), None);
    assert_eq!(slo_of(&mixed, Some(1)), Some(&mixed.classes[1].slo));
}

#[test]
fn a_runs_panel_shows_the_selected_class_with_its_slo_against_run_as_same_class() {
    let mixed = Scenario::from_json(sim_core::presets::find("mixed-shared").expect("preset").json).expect("valid");
    let names: Vec<String> = mixed.classes.iter().map(|c| c.name.clone()).collect();
    let mut s = summary();
    let mut class = s.all.clone();
    class.ttft_ms.p99 = 123.0;
    s.classes.insert(names[1].clone(), class);
    let run = Some((&mixed, names.as_slice()));
    // class 1 selected: its numbers, its SLO
    let p = Panel::of_run(run, Some(1), Some(&s), None);
    assert_eq!(p, Panel::new(Some(Part::of(&s, Some(&names[1]))), Some(&mixed.classes[1].slo), None));
    assert!(!p.has_cost && !p.against_a);
    // all traffic of several classes: no one SLO
    assert_eq!(Panel::of_run(run, None, Some(&s), None), Panel::new(Some(Part::of(&s, None)), None, None));
    // a class beyond the run's: all traffic
    assert!(Panel::of_run(run, Some(9), Some(&s), None).has_cost);
    // run B against run A's same class
    let p = Panel::of_run(run, Some(1), Some(&s), Some(&s));
    assert!(p.against_a);
    assert_eq!(p.lines[0].vs.map(|c| c.arrow), Some(Arrow::Same));
    // nothing on screen yet
    assert_eq!(Panel::of_run(None, None, None, None), Panel::new(None, None, None));
}

#[test]
fn the_numbers_by_test_id_are_the_cells_and_keys_the_panel_shows() {
    let s = summary();
    let p = Panel::new(Some(Part::of(&s, None)), Some(&slo()), None);
    let n = p.numbers();
    let get = |id: &str| n.iter().find(|(k, _)| k == id).map(|(_, v)| v.as_str());
    // every latency cell once, the two keys and goodput
    assert_eq!(n.len(), LINES.len() * COLUMNS.len() + 3);
    let mut ids: Vec<&str> = n.iter().map(|(k, _)| k.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), n.len(), "an id twice");
    assert_eq!(get("metric-ttft-p99"), Some("800 ms"));
    assert_eq!(get("metric-ttft-censored-p99"), Some("≥ 2.00 s"));
    assert_eq!(get("metric-tpot-mean"), Some("25.0 ms"));
    assert_eq!(get("key-ttft-value"), Some(p.keys[0].value.as_str()));
    assert_eq!(get("key-tpot-value"), Some(p.keys[1].value.as_str()));
    assert_eq!(p.keys[0].value, "800 ms", "the TTFT key is TTFT's p99");
    assert_eq!(p.keys[1].value, "40.0 ms", "the TPOT key is TPOT's p99");
    assert_eq!(get("key-goodput-value"), Some(p.key_goodput.as_str()));
    // before any number: dashes, not blanks
    let empty = Panel::new(None, Some(&slo()), None).numbers();
    assert!(empty.iter().all(|(_, v)| !v.is_empty()), "{empty:?}");
}
