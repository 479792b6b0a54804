use super::*;

#[test]
fn dist_percentiles_are_ordered_and_close() {
    let mut h = LatencyHist::new();
    for v in 1..=10_000u64 {
        h.record(v * 100);
    }
    let d = h.dist();
    assert!(d.p50 <= d.p90 && d.p90 <= d.p95 && d.p95 <= d.p99 && d.p99 <= d.max);
    assert!((d.p50 - 500.0).abs() / 500.0 < 0.002, "{}", d.p50);
    assert!((d.p99 - 990.0).abs() / 990.0 < 0.002, "{}", d.p99);
    assert!((d.mean - 500.05).abs() < 1e-9);
    assert_eq!(d.max, 1000.0);
}

fn hist(values: &[u64]) -> LatencyHist {
    let mut h = LatencyHist::new();
    values.iter().for_each(|&v| h.record(v));
    h
}

fn quantiles(c: &Censored) -> [f64; 5] {
    [c.p50, c.p90, c.p95, c.p99, c.max]
}

#[test]
fn censored_counts_timeouts_at_their_timeout() {
    // one answered at 80 ms, two timed out at 2 s, one still waiting for 500 ms
    let done = hist(&[80_000]);
    let open = hist(&[2_000_000, 2_000_000]);
    let c = done.censored(&open, &mut [500_000], 3);
    assert_eq!((c.count, c.censored), (4, 3));
    // ranks: p50 → 2nd of 4 (500 ms, reported as the top of its 3-digit bucket, as every
    // percentile is), p90/p95/p99 → 4th (2 s, the largest value)
    assert_eq!(c.p50, 500.223);
    assert_eq!((c.p90, c.p95, c.p99, c.max), (2000.0, 2000.0, 2000.0, 2000.0));
    assert_eq!(c.mean, (80.0 + 4000.0 + 500.0) / 4.0);
    assert_eq!(done.dist().p99, 80.0);
}

proptest::proptest! {
    /// With nothing censored, the censored view is the completed-only distribution.
    #[test]
    fn nothing_censored_is_the_completed_distribution(v in proptest::collection::vec(1u64..10_000_000, 1..300)) {
        let (h, c) = (hist(&v), hist(&v).censored(&LatencyHist::new(), &mut [], 0));
        let d = h.dist();
        proptest::prop_assert_eq!(quantiles(&c), [d.p50, d.p90, d.p95, d.p99, d.max]);
        proptest::prop_assert_eq!((c.count, c.mean), (d.count, d.mean));
    }

    /// A lower bound: whatever the requests without an answer would have taken (at least
    /// their bound), every figure over all requests is at least the censored one; and when
    /// every bound is at least a completed-only percentile, the censored percentile is at
    /// least that percentile.
    #[test]
    fn censored_figures_are_lower_bounds(
        done in proptest::collection::vec(1u64..10_000_000, 1..200),
        open in proptest::collection::vec((1u64..10_000_000, 0u64..10_000_000), 0..100),
        live in proptest::collection::vec((1u64..10_000_000, 0u64..10_000_000), 0..100),
    ) {
        let gone = hist(&open.iter().map(|o| o.0).collect::<Vec<_>>());
        let mut ages: Vec<u64> = live.iter().map(|l| l.0).collect();
        let c = hist(&done).censored(&gone, &mut ages, (open.len() + live.len()) as u64);
        let truth: Vec<u64> = done.iter().copied().chain(open.iter().chain(&live).map(|(b, more)| b + more)).collect();
        let t = hist(&truth).dist();
        let (cq, tq) = (quantiles(&c), [t.p50, t.p90, t.p95, t.p99, t.max]);
        for k in 0..5 {
            proptest::prop_assert!(cq[k] <= tq[k], "figure {k}: {} > {}", cq[k], tq[k]);
        }
        proptest::prop_assert!(c.mean <= t.mean + 1e-9);
        let d = hist(&done).dist();
        let bounds = open.iter().chain(&live).map(|o| o.0 as f64 / 1000.0);
        let low = bounds.fold(f64::INFINITY, f64::min);
        for (k, dq) in [d.p50, d.p90, d.p95, d.p99, d.max].into_iter().enumerate() {
            if low >= dq {
                proptest::prop_assert!(cq[k] >= dq, "figure {k}: {} < {}", cq[k], dq);
            }
        }
    }
}

#[test]
fn series_stays_bounded_and_covers_the_run() {
    let mut s = Series::new(1000, 64);
    for t in (0..1_000_000u64).step_by(333) {
        s.advance(t, 1.0, 2.0, 0.5);
    }
    assert!(s.samples.len() < 64);
    let last = s.samples.last().unwrap();
    assert!(last.t_s > 0.9, "{}", last.t_s);
    for w in s.samples.windows(2) {
        assert!(w[0].t_s < w[1].t_s);
    }
    assert!(s.samples.iter().all(|x| (x.queue_len - 1.0).abs() < 1e-9 && (x.running - 2.0).abs() < 1e-9));
}
