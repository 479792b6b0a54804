//! Number formatting for the page's panels and canvases. Formatting only: every value comes
//! from sim-core.

/// Shown where a value does not exist yet (no request has completed, no token produced).
pub const NONE: &str = "—";

/// Groups thousands with a thin comma: 1234567 → "1,234,567".
#[allow(clippy::manual_is_multiple_of)] // is_multiple_of is newer than the workspace's rust-version
pub fn int(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A latency in milliseconds, switching to seconds from 1 s: "9.21 ms", "143 ms", "1.23 s", "209 s".
pub fn ms(v: f64) -> String {
    if !v.is_finite() {
        return NONE.to_string();
    }
    if v >= 100_000.0 {
        format!("{} s", int((v / 1000.0).round() as u64))
    } else if v >= 10_000.0 {
        format!("{:.1} s", v / 1000.0)
    } else if v >= 1000.0 {
        format!("{:.2} s", v / 1000.0)
    } else if v >= 100.0 {
        format!("{v:.0} ms")
    } else if v >= 10.0 {
        format!("{v:.1} ms")
    } else {
        format!("{v:.2} ms")
    }
}

/// A latency of a distribution that may be empty.
pub fn dist_ms(count: u64, v: f64) -> String {
    if count == 0 {
        NONE.to_string()
    } else {
        ms(v)
    }
}

/// A rate with a sensible number of digits: "1,443", "5.90", "0.031".
pub fn rate(v: f64) -> String {
    if !v.is_finite() {
        NONE.to_string()
    } else if v >= 100.0 {
        int(v.round() as u64)
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// US dollars: "$0.518", "$12.40", "$714.59"; infinite (nothing produced yet) → "—".
pub fn usd(v: f64) -> String {
    if !v.is_finite() {
        NONE.to_string()
    } else if v >= 1000.0 {
        format!("${}", int(v.round() as u64))
    } else if v >= 1.0 {
        format!("${v:.2}")
    } else {
        format!("${v:.3}")
    }
}

/// A share as a percentage: 0.9987 → "99.9 %".
pub fn pct(v: f64) -> String {
    if !v.is_finite() {
        NONE.to_string()
    } else {
        format!("{:.1} %", v * 100.0)
    }
}

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// Bytes as GiB: "15.0 GiB".
pub fn gib(bytes: f64) -> String {
    if bytes.abs() >= 100.0 * GIB {
        format!("{:.0} GiB", bytes / GIB)
    } else {
        format!("{:.1} GiB", bytes / GIB)
    }
}

/// Bytes in the largest binary unit that keeps an integer-ish value: "128 KiB", "320 KiB".
pub fn bytes(b: f64) -> String {
    if b >= GIB {
        format!("{:.1} GiB", b / GIB)
    } else if b >= 1024.0 * 1024.0 {
        format!("{:.1} MiB", b / (1024.0 * 1024.0))
    } else if b >= 1024.0 {
        let k = b / 1024.0;
        if (k - k.round()).abs() < 1e-9 {
            format!("{} KiB", int(k.round() as u64))
        } else {
            format!("{k:.1} KiB")
        }
    } else {
        format!("{b:.0} B")
    }
}

/// A plain number without trailing zeros: 0.5 → "0.5", 8.0 → "8", 1e-3 → "0.001".
pub fn plain(v: f64) -> String {
    if !v.is_finite() {
        return String::new();
    }
    if v == v.trunc() && v.abs() < 1e15 {
        return format!("{}", v as i64);
    }
    let s = format!("{v:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Simulated time: "12.34 s", or minutes beyond ten minutes "12 min 05 s".
pub fn sim_time(s: f64) -> String {
    if s >= 600.0 {
        let m = (s / 60.0).floor();
        format!("{} min {:02.0} s", m as u64, (s - m * 60.0).floor())
    } else {
        format!("{s:.2} s")
    }
}

/// A speed factor: 0.1 → "0.1×", 2.5 → "2.5×", 100 → "100×".
pub fn speed(v: f64) -> String {
    if v >= 10.0 {
        format!("{v:.0}×")
    } else if v >= 1.0 {
        let s = format!("{v:.1}");
        format!("{}×", s.trim_end_matches(".0"))
    } else {
        format!("{v:.2}×").replace("0×", "×").replace(".×", "×")
    }
}

/// A metric's value in its unit (`Metric::unit`): the one place a unit picks its format.
pub fn in_unit(unit: sim_core::Unit, v: f64) -> String {
    use sim_core::Unit;
    match unit {
        Unit::Ms => ms(v),
        Unit::S => sim_time(v),
        Unit::Share => pct(v),
        Unit::Usd | Unit::UsdPerHour => usd(v),
        Unit::TokensPerS => format!("{} tok/s", rate(v)),
        Unit::RequestsPerS => format!("{} req/s", rate(v)),
        Unit::Bytes => gib(v),
        Unit::Gib => format!("{} GiB", plain(v)),
        Unit::BytesPerToken => format!("{}/token", bytes(v)),
        Unit::Times => format!("{}×", plain(v)),
        Unit::Requests | Unit::Count | Unit::Seqs | Unit::Tokens | Unit::Users if v >= 0.0 && v == v.trunc() => {
            int(v as u64)
        }
        Unit::Requests | Unit::Count | Unit::Seqs | Unit::Tokens | Unit::Users | Unit::None => plain(v),
    }
}

/// A metric of all traffic as the page shows it: a latency with "—" while it counts nothing, any
/// other number in its unit ([`in_unit`]).
pub fn metric(m: sim_core::Metric, s: &sim_core::Summary) -> String {
    match m {
        sim_core::Metric::Latency(l, _) => dist_ms(l.of(&s.all).count, m.of(s)),
        _ => in_unit(m.unit(), m.of(s)),
    }
}

/// The same for one class (a number only the whole run has: "—").
pub fn metric_of_class(m: sim_core::Metric, c: &sim_core::ClassSummary) -> String {
    match (m, m.of_class(c)) {
        (sim_core::Metric::Latency(l, _), Some(v)) => dist_ms(l.of(c).count, v),
        (_, Some(v)) => in_unit(m.unit(), v),
        (_, None) => NONE.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(int(1234567), "1,234,567");
        assert_eq!(int(12), "12");
        assert_eq!(ms(143.04), "143 ms");
        assert_eq!(ms(81.3), "81.3 ms");
        assert_eq!(ms(1234.0), "1.23 s");
        assert_eq!(ms(209153.5), "209 s");
        assert_eq!(usd(0.518), "$0.518");
        assert_eq!(pct(0.999), "99.9 %");
        assert_eq!(bytes(131072.0), "128 KiB");
        assert_eq!(speed(0.1), "0.1×");
        assert_eq!(speed(0.25), "0.25×");
        assert_eq!(speed(1.0), "1×");
        assert_eq!(speed(100.0), "100×");
        assert_eq!(plain(0.5), "0.5");
    }

    #[test]
    fn edges_and_missing_values() {
        assert_eq!(ms(f64::NAN), NONE);
        assert_eq!(ms(9.213), "9.21 ms");
        assert_eq!(ms(12_345.0), "12.3 s");
        assert_eq!(dist_ms(0, 5.0), NONE);
        assert_eq!(dist_ms(3, 5.0), "5.00 ms");
        assert_eq!(rate(1443.2), "1,443");
        assert_eq!(rate(5.9), "5.90");
        assert_eq!(rate(0.0312), "0.031");
        assert_eq!(usd(f64::INFINITY), NONE);
        assert_eq!(usd(12.4), "$12.40");
        assert_eq!(usd(1234.5), "$1,235");
        assert_eq!(gib(15.0 * GIB), "15.0 GiB");
        assert_eq!(gib(141.0 * GIB), "141 GiB");
        assert_eq!(bytes(1536.0), "1.5 KiB");
        assert_eq!(bytes(500.0), "500 B");
        assert_eq!(plain(8.0), "8");
        assert_eq!(plain(0.001), "0.001");
        assert_eq!(plain(f64::NAN), "");
        assert_eq!(sim_time(12.345), "12.35 s");
        assert_eq!(sim_time(725.0), "12 min 05 s");
        assert_eq!(speed(2.5), "2.5×");
    }
}
