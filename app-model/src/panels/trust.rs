//! "How far to trust these numbers" as data: the lab's errors against published serving
//! benchmarks (`lab_content::trust`) as the page words them — a line per engine, then a row per
//! engine, model, precision, GPU and tensor-parallel degree, signed errors as "+48 %" / "−12 %".

use lab_content::trust::Group;

use super::Text;
use crate::format;

/// A signed relative error as a percentage ("+48 %", "−12 %"), or a dash when none was replayed.
pub fn signed(v: f64) -> String {
    if v.is_finite() {
        let pct = format::plain((v * 100.0).round());
        if v >= 0.0 {
            format!("+{pct} %")
        } else {
            format!("−{} %", pct.trim_start_matches('-'))
        }
    } else {
        format::NONE.to_string()
    }
}

/// An error's size as a percentage ("30 %"), or a dash.
pub fn size(v: f64) -> String {
    if v.is_finite() {
        format!("{} %", format::plain((v * 100.0).round()))
    } else {
        format::NONE.to_string()
    }
}

/// The engine's product name (`lab_content::bench::Engine::label`), or its id when unknown.
pub fn engine_name(id: &str) -> String {
    lab_content::bench::Engine::parse(id).map_or_else(|| id.to_string(), |e| e.label().to_string())
}

/// The summary's line for a whole engine's group (one without a TP degree).
pub fn engine_line(g: &Group) -> Text {
    Text {
        key: "trust.engine_line",
        args: vec![
            ("engine", engine_name(&g.engine)),
            ("tpot", signed(g.tpot_median)),
            ("p90", size(g.tpot_p90_abs)),
            ("ttft", signed(g.ttft_median)),
            ("n", format::int(g.replayed as u64)),
        ],
    }
}

/// The summary above the table: each whole engine's line.
pub fn summary(w: &dyn crate::words::Words, groups: &[Group]) -> String {
    groups.iter().filter(|g| g.tp.is_none()).map(|g| engine_line(g).said(w)).collect::<Vec<_>>().join(" ")
}

/// A table row's cells: engine, setup, TP, rows replayed, TPOT error, its p90 size, TTFT error.
pub fn cells(g: &Group) -> [String; 7] {
    [
        engine_name(&g.engine),
        format!("{} · {} · {}", g.model, g.dtype, g.gpu),
        g.tp.map(|t| t.to_string()).unwrap_or_default(),
        format!("{}/{}", g.replayed, g.rows),
        signed(g.tpot_median),
        size(g.tpot_p90_abs),
        signed(g.ttft_median),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_read_as_signed_percentages() {
        assert_eq!(signed(0.482), "+48 %");
        assert_eq!(signed(-0.12), "−12 %");
        assert_eq!(signed(0.0), "+0 %");
        assert_eq!(signed(f64::NAN), format::NONE);
        assert_eq!(size(0.3), "30 %");
        assert_eq!(size(f64::INFINITY), format::NONE);
        assert_eq!(engine_name("no-such-engine"), "no-such-engine");
    }

    #[test]
    fn every_row_of_the_table_has_its_cells() {
        let groups = lab_content::trust::table();
        let row = groups.iter().find(|g| g.tp.is_some()).expect("a row per TP degree");
        let c = cells(row);
        assert_eq!(c[2], row.tp.expect("tp").to_string());
        assert_eq!(c[3], format!("{}/{}", row.replayed, row.rows));
        let whole = groups.iter().find(|g| g.tp.is_none()).expect("a line per engine");
        assert_eq!(engine_line(whole).args[0].1, engine_name(&whole.engine));
    }

    #[test]
    fn the_summary_says_each_whole_engine_once() {
        let groups = lab_content::trust::table();
        let said = summary(&crate::words::Keys, &groups);
        let engines = groups.iter().filter(|g| g.tp.is_none()).count();
        assert!(engines > 0);
        assert_eq!(said.matches("trust.engine_line{").count(), engines);
    }
}
