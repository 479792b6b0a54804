//! How far to trust the lab's numbers: the error of its mean TPOT and mean TTFT against the
//! published serving benchmarks it is calibrated on ([`crate::calibration::serving`]), per
//! engine, and per engine, model, precision, GPU and tensor-parallel degree — the table the
//! page shows under "How far to trust these numbers".
//!
//! The table is computed by [`groups`] from a replay of every benchmark row (about a minute of
//! simulation, too long for a page) and kept in `data/calibration_trust.csv`; the test
//! `tests/trust.rs` replays the rows again and fails when the file is stale
//! (`UPDATE_TRUST=1 cargo test -p lab-content --test trust` rewrites it).

use crate::calibration::serving::{Replay, Row};
use crate::fit::Errors;

/// The table as kept in the crate (see the module's introduction).
pub const TABLE: &str = include_str!("../data/calibration_trust.csv");

/// The header of [`TABLE`].
pub const HEADER: &str = "engine,model,dtype,gpu,tp,replayed,rows,tpot_median,tpot_p90_abs,ttft_median";

/// The errors over a group of benchmark rows. An engine's whole set has `model` "all" and no
/// `tp`. Errors are relative (prediction / measurement − 1): above 0 the lab is slower than
/// the measurement; NaN when no row of the group could be replayed.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    pub engine: String,
    pub model: String,
    pub dtype: String,
    pub gpu: String,
    pub tp: Option<u32>,
    /// Rows replayed (a row whose model or GPU is not in the catalogue, or that does not fit, is
    /// not) of `rows`.
    pub replayed: usize,
    pub rows: usize,
    /// Median of the signed TPOT error.
    pub tpot_median: f64,
    /// 90th percentile of the TPOT error's size.
    pub tpot_p90_abs: f64,
    /// Median of the signed TTFT error.
    pub ttft_median: f64,
}

impl Group {
    /// Whether this group measured `model` in `dtype` on `tp` × `gpu` (catalogue ids; for
    /// marking the row of the run on screen).
    pub fn covers(&self, model: &str, dtype: &str, gpu: &str, tp: u32) -> bool {
        self.tp == Some(tp) && self.model == model && self.dtype == dtype && self.gpu == gpu
    }
}

/// The groups of a replay ([`crate::calibration::serving::errors`]): each engine's whole set
/// first, then each engine × model × dtype × GPU × TP, in a steady order.
pub fn groups(errors: &[(Row, Option<Replay>)]) -> Vec<Group> {
    type Key = (String, String, String, String, Option<u32>);
    let mut keys: Vec<Key> = Vec::new();
    for (r, _) in errors {
        let whole = (r.backend.clone(), "all".to_string(), String::new(), String::new(), None);
        let one = (r.backend.clone(), r.model.clone(), r.dtype.clone(), r.gpu.clone(), Some(r.tp));
        for k in [whole, one] {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    keys.sort_by(|a, b| {
        (&a.0, a.4.is_some(), &a.1, &a.2, &a.3, a.4).cmp(&(&b.0, b.4.is_some(), &b.1, &b.2, &b.3, b.4))
    });
    keys.into_iter()
        .map(|(engine, model, dtype, gpu, tp)| {
            let inside = |r: &Row| {
                r.backend == engine
                    && (tp.is_none() || (r.model == model && r.dtype == dtype && r.gpu == gpu && Some(r.tp) == tp))
            };
            let rows = errors.iter().filter(|(r, _)| inside(r)).count();
            let replayed: Vec<(f64, f64)> = errors
                .iter()
                .filter(|(r, _)| inside(r))
                .filter_map(|(_, p)| p.map(|p| (p.ttft_error, p.tpot_error)))
                .collect();
            let e = Errors::of(&replayed, rows);
            Group {
                engine,
                model,
                dtype,
                gpu,
                tp,
                replayed: e.replayed,
                rows,
                tpot_median: e.tpot_median,
                tpot_p90_abs: e.tpot_p90_abs,
                ttft_median: e.ttft_median,
            }
        })
        .collect()
}

/// The groups as [`TABLE`] keeps them: [`HEADER`], then one line each, errors to 0.1%.
pub fn to_csv(groups: &[Group]) -> String {
    let e = |v: f64| if v.is_finite() { format!("{v:.3}") } else { String::new() };
    let mut out = format!("{HEADER}\n");
    for g in groups {
        let tp = g.tp.map(|t| t.to_string()).unwrap_or_default();
        out.push_str(&format!(
            "{},{},{},{},{tp},{},{},{},{},{}\n",
            g.engine,
            g.model,
            g.dtype,
            g.gpu,
            g.replayed,
            g.rows,
            e(g.tpot_median),
            e(g.tpot_p90_abs),
            e(g.ttft_median)
        ));
    }
    out
}

/// Reads a table written by [`to_csv`]; lines it cannot read are skipped.
pub fn parse(text: &str) -> Vec<Group> {
    // `decimal::parse_f64` reads like `str::parse` without its tables (docs/wasm-size.md).
    let num = |s: &str| if s.is_empty() { Some(f64::NAN) } else { sim_core::decimal::parse_f64(s) };
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            if c.len() != 10 {
                return None;
            }
            Some(Group {
                engine: c[0].to_string(),
                model: c[1].to_string(),
                dtype: c[2].to_string(),
                gpu: c[3].to_string(),
                tp: if c[4].is_empty() { None } else { Some(c[4].parse().ok()?) },
                replayed: c[5].parse().ok()?,
                rows: c[6].parse().ok()?,
                tpot_median: num(c[7])?,
                tpot_p90_abs: num(c[8])?,
                ttft_median: num(c[9])?,
            })
        })
        .collect()
}

/// The table kept in the crate.
pub fn table() -> Vec<Group> {
    parse(TABLE)
}
