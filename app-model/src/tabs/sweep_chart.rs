//! A sweep's points as the page shows them: the charts' series and axis ranges (goodput and
//! throughput against the knob, p99 TTFT against the knob), a knob value with its unit, and the
//! table's columns.

use lab_content::sweep::SweepPoint;
use sim_core::Summary;

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
}
