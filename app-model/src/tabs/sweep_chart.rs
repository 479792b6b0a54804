//! A sweep's points as the page shows them: the charts' series and axis ranges (goodput and
//! throughput against the knob, p99 TTFT against the knob), a knob value with its unit, and the
//! table's columns.

use lab_content::sweep::{SweepParam, SweepPoint};
use sim_core::Summary;

use crate::charts::figure::{Dash, Figure, Ink, Item};
use crate::charts::{Axis, Units, Words};
use crate::format;

/// What the two sweep charts draw.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepSeries {
    /// The knob's axis, min and max.
    pub x: (f64, f64),
    pub throughput: Vec<(f64, f64)>,
    pub goodput: Vec<(f64, f64)>,
    /// Top of the tokens/s axis (at least 1).
    pub y_max: f64,
    /// p99 TTFT of the points that have one, ms.
    pub ttft: Vec<(f64, f64)>,
    /// The TTFT axis, ms (a log axis: above zero), taking in the SLO line.
    pub ttft_range: (f64, f64),
    /// Points that ran (the charts say "no points yet" without any).
    pub ran: usize,
}

/// The knob's axis: the points' values, widened around a single value (not below zero), 0 to 1
/// without points.
pub fn x_range(points: &[SweepPoint]) -> (f64, f64) {
    let (mut lo, mut hi) =
        points.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.value), b.max(p.value)));
    if !lo.is_finite() {
        (lo, hi) = (0.0, 1.0);
    }
    if hi <= lo {
        let pad = if lo > 0.0 { lo * 0.1 } else { 1.0 };
        (lo, hi) = ((lo - pad).max(0.0), hi + pad);
    }
    (lo, hi)
}

/// The series of `points` (those that ran), with the TTFT objective `slo` ms on the TTFT axis.
pub fn series(points: &[SweepPoint], slo: Option<f64>) -> SweepSeries {
    let ok: Vec<(f64, &Summary)> = points.iter().filter_map(|p| p.summary.as_ref().map(|s| (p.value, s))).collect();
    let y_max = ok
        .iter()
        .map(|(_, s)| s.all.throughput.output_tokens_per_s.max(s.all.goodput.output_tokens_per_s))
        .fold(0.0, f64::max);
    let ttft: Vec<(f64, f64)> =
        ok.iter().filter(|(_, s)| s.all.ttft_ms.count > 0).map(|(v, s)| (*v, s.all.ttft_ms.p99)).collect();
    let (mut lo, mut hi) = ttft.iter().fold((f64::INFINITY, 0.0f64), |(a, b), p| (a.min(p.1), b.max(p.1)));
    if let Some(s) = slo {
        lo = lo.min(s);
        hi = hi.max(s);
    }
    if !lo.is_finite() {
        (lo, hi) = (10.0, 1000.0);
    }
    SweepSeries {
        x: x_range(points),
        throughput: ok.iter().map(|(v, s)| (*v, s.all.throughput.output_tokens_per_s)).collect(),
        goodput: ok.iter().map(|(v, s)| (*v, s.all.goodput.output_tokens_per_s)).collect(),
        y_max: y_max.max(1.0),
        ttft,
        ttft_range: (lo, hi),
        ran: ok.len(),
    }
}

/// A knob value with its unit ("12 req/s"; no trailing space for a unitless knob).
pub fn with_unit(v: f64, unit: &str) -> String {
    format!("{} {unit}", format::plain(v)).trim().to_string()
}

/// A sweep's two charts over the knob `param`, in the page's words: goodput beside the raw
/// throughput (the knee marked), and p99 TTFT on a log axis with the objective `slo` (ms).
pub fn figures(param: SweepParam, points: &[SweepPoint], slo: Option<f64>, w: &dyn Words) -> [Figure; 2] {
    let s = series(points, slo);
    let x = (Axis::Linear { min: s.x.0, max: s.x.1 }, Units::Share);
    let knob = [("knob", w.t(super::sweep::label_key(param)))];
    let empty = || w.t("features.sweep.empty");
    let knee = super::sweep::knee_seen(points);

    let title = w.tf("features.sweep.chart_good", &knob);
    let mut good = Figure::new(title, x, (Axis::zero_to(s.y_max), Units::Count));
    good.line(&s.throughput, Ink::SweepThroughput, Dash::Solid, 3.0);
    good.line(&s.goodput, Ink::Goodput, Dash::Solid, 2.0);
    good.dots(&s.throughput, Ink::SweepThroughput, 3.0);
    good.dots(&s.goodput, Ink::Goodput, 3.5);
    if let Some((kv, kg)) = knee {
        let at = with_unit(kv, super::sweep::unit(param));
        good.items.push(Item::VLine { x: kv, ink: Ink::Knee, label: w.tf("features.sweep.knee_at", &[("value", at)]) });
        good.dots(&[(kv, kg)], Ink::Knee, 6.0);
    }
    good.legend(w.t("features.sweep.legend_throughput"), Ink::SweepThroughput, Dash::Solid);
    good.legend(w.t("features.sweep.legend_goodput"), Ink::Goodput, Dash::Solid);
    good.note((s.ran == 0).then(empty));

    let title = w.tf("features.sweep.chart_ttft", &knob);
    let mut ttft = Figure::new(title, x, (Axis::log_decades(s.ttft_range.0, s.ttft_range.1), Units::Ms));
    ttft.line(&s.ttft, Ink::SweepTtft, Dash::Solid, 2.0);
    ttft.dots(&s.ttft, Ink::SweepTtft, 3.5);
    if let Some(v) = slo {
        let label = w.tf("features.sweep.slo_line", &[("value", format::ms(v))]);
        ttft.items.push(Item::HLine { y: v, ink: Ink::Slo, label });
    }
    if let Some((kv, _)) = knee {
        ttft.items.push(Item::VLine { x: kv, ink: Ink::Knee, label: String::new() });
    }
    ttft.note(s.ttft.is_empty().then(empty));
    [good, ttft]
}

/// Label keys of the table's number columns (after the knob's).
pub const COLUMNS: [&str; 5] = [
    "features.num.throughput",
    "features.num.goodput",
    "features.num.attainment",
    "features.num.ttft_p99",
    "features.num.tpot_p99",
];

/// A point's numbers in the table's columns.
pub fn cells(s: &Summary) -> [String; 5] {
    [
        format::rate(s.all.throughput.output_tokens_per_s),
        format::rate(s.all.goodput.output_tokens_per_s),
        format::pct(s.all.goodput.slo_attainment),
        format::dist_ms(s.all.ttft_ms.count, s.all.ttft_ms.p99),
        format::dist_ms(s.all.tpot_ms.count, s.all.tpot_ms.p99),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(value: f64, thr: f64, good: f64, ttft_p99: Option<f64>) -> SweepPoint {
        let mut s = Summary::default();
        s.all.throughput.output_tokens_per_s = thr;
        s.all.goodput.output_tokens_per_s = good;
        if let Some(t) = ttft_p99 {
            s.all.ttft_ms.count = 10;
            s.all.ttft_ms.p99 = t;
        }
        SweepPoint { value, summary: Some(s), error: None, problem: None }
    }

    fn failed(value: f64) -> SweepPoint {
        SweepPoint { value, summary: None, error: Some("no".into()), problem: None }
    }

    #[test]
    fn the_knob_axis_spans_the_points_and_widens_a_single_value() {
        assert_eq!(x_range(&[]), (0.0, 1.0));
        assert_eq!(x_range(&[failed(2.0), failed(8.0)]), (2.0, 8.0));
        let (lo, hi) = x_range(&[failed(10.0)]);
        assert!((lo - 9.0).abs() < 1e-12 && (hi - 11.0).abs() < 1e-12);
        assert_eq!(x_range(&[failed(0.0)]), (0.0, 1.0));
    }

    #[test]
    fn series_take_the_points_that_ran_and_the_ttft_axis_takes_in_the_slo() {
        let pts = [point(1.0, 100.0, 80.0, Some(50.0)), failed(2.0), point(3.0, 300.0, 120.0, None)];
        let s = series(&pts, Some(500.0));
        assert_eq!(s.ran, 2);
        assert_eq!(s.throughput, vec![(1.0, 100.0), (3.0, 300.0)]);
        assert_eq!(s.goodput, vec![(1.0, 80.0), (3.0, 120.0)]);
        assert_eq!(s.y_max, 300.0);
        assert_eq!(s.ttft, vec![(1.0, 50.0)]);
        assert_eq!(s.ttft_range, (50.0, 500.0));
        assert_eq!(s.x, (1.0, 3.0));
        let empty = series(&[], None);
        assert_eq!((empty.y_max, empty.ttft_range, empty.ran), (1.0, (10.0, 1000.0), 0));
    }

    #[test]
    fn values_carry_their_unit_without_a_trailing_space() {
        assert_eq!(with_unit(12.0, "req/s"), format!("{} req/s", format::plain(12.0)));
        assert_eq!(with_unit(12.0, ""), format::plain(12.0));
        assert_eq!(cells(&Summary::default()).len(), COLUMNS.len());
    }

    #[test]
    fn the_sweep_charts_mark_the_knee_once_a_later_point_ran_and_the_slo_line() {
        use crate::charts::figure::{Dash, Ink, Item};
        use crate::words::Keys;
        let pts = [
            point(1.0, 100.0, 80.0, Some(50.0)),
            point(2.0, 200.0, 150.0, Some(90.0)),
            point(3.0, 300.0, 60.0, Some(900.0)),
        ];
        let [good, ttft] = figures(SweepParam::RatePerS, &pts, Some(500.0), &Keys);
        assert_eq!(good.title, "features.sweep.chart_good{knob=features.sweep.param.rate_per_s}");
        assert_eq!((good.x, good.y), (Axis::Linear { min: 1.0, max: 3.0 }, Axis::zero_to(300.0)));
        let knee_line = Item::VLine {
            x: 2.0,
            ink: Ink::Knee,
            label: format!("features.sweep.knee_at{{value={}}}", with_unit(2.0, "req/s")),
        };
        assert!(good.items.contains(&knee_line));
        assert!(good.items.contains(&Item::Dot { at: (2.0, 150.0), ink: Ink::Knee, radius: 6.0 }));
        assert_eq!(good.items.iter().filter(|i| matches!(i, Item::Dot { ink: Ink::Goodput, .. })).count(), 3);
        assert!(!good.items.iter().any(|i| matches!(i, Item::Note(_))));
        assert_eq!(ttft.y_units, Units::Ms);
        assert!(ttft.items.contains(&Item::HLine {
            y: 500.0,
            ink: Ink::Slo,
            label: format!("features.sweep.slo_line{{value={}}}", format::ms(500.0)),
        }));
        assert!(ttft.items.contains(&Item::VLine { x: 2.0, ink: Ink::Knee, label: String::new() }));
        assert!(ttft.items.contains(&Item::Line {
            points: vec![(1.0, 50.0), (2.0, 90.0), (3.0, 900.0)],
            ink: Ink::SweepTtft,
            dash: Dash::Solid,
            width: 2.0
        }));
        // no later point yet: no knee; nothing ran: both charts say so
        let [good, _] = figures(SweepParam::RatePerS, &pts[..2], None, &Keys);
        assert!(!good.items.iter().any(|i| matches!(i, Item::VLine { .. })));
        let [good, ttft] = figures(SweepParam::MaxNumSeqs, &[failed(4.0)], None, &Keys);
        assert_eq!(good.items.last(), Some(&Item::Note("features.sweep.empty".into())));
        assert_eq!(ttft.items.last(), Some(&Item::Note("features.sweep.empty".into())));
    }
}
