//! The "how far to trust these numbers" table (`lab_content::trust`) is what a replay of the
//! serving benchmarks gives now: a stale table fails here. `UPDATE_TRUST=1` rewrites it.

use lab_content::calibration::serving;
use lab_content::trust;
use sim_core::scenario::EngineConfig;

#[test]
fn the_trust_table_is_the_replay_of_the_serving_benchmarks() {
    let errors = serving::errors(&EngineConfig::default());
    let groups = trust::groups(&errors);
    let csv = trust::to_csv(&groups);
    if std::env::var_os("UPDATE_TRUST").is_some() {
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/data/calibration_trust.csv"), &csv).unwrap();
        return;
    }
    assert_eq!(
        trust::TABLE,
        csv,
        "data/calibration_trust.csv is stale: UPDATE_TRUST=1 cargo test -p lab-content --test trust"
    );
    // what it says can be read back, and adds up: each engine's whole set counts its groups' rows
    let read = trust::table();
    assert_eq!(read.len(), groups.len());
    for whole in read.iter().filter(|g| g.tp.is_none()) {
        let parts: Vec<_> = read.iter().filter(|g| g.engine == whole.engine && g.tp.is_some()).collect();
        assert_eq!(parts.iter().map(|g| g.rows).sum::<usize>(), whole.rows, "{}", whole.engine);
        assert_eq!(parts.iter().map(|g| g.replayed).sum::<usize>(), whole.replayed, "{}", whole.engine);
    }
    assert_eq!(read.iter().filter(|g| g.tp.is_none()).map(|g| g.rows).sum::<usize>(), serving::rows().len());
}

#[test]
fn a_group_of_hand_made_errors_gives_their_median_and_p90() {
    let row = |tp: u32| serving::Row {
        backend: "x".into(),
        version: String::new(),
        model: "m".into(),
        gpu: "g".into(),
        dtype: "bf16".into(),
        tp,
        isl: 1,
        osl: 2,
        concurrency: 1,
        request_rate: None,
        num_prompts: None,
        ttft_ms: 1.0,
        tpot_ms: 1.0,
        harness: serving::Harness::Aiconfigurator,
    };
    let replay =
        |tpot_error: f64| Some(serving::Replay { ttft_ms: 1.0, tpot_ms: 1.0, ttft_error: -tpot_error, tpot_error });
    let errors = vec![(row(1), replay(0.1)), (row(1), replay(-0.3)), (row(1), replay(0.2)), (row(2), None)];
    let g = trust::groups(&errors);
    let names: Vec<_> = g.iter().map(|g| (g.model.as_str(), g.tp)).collect();
    assert_eq!(names, [("all", None), ("m", Some(1)), ("m", Some(2))]);
    assert_eq!((g[1].replayed, g[1].rows), (3, 3));
    assert!((g[1].tpot_median - 0.1).abs() < 1e-12 && (g[1].ttft_median + 0.1).abs() < 1e-12);
    assert!((g[1].tpot_p90_abs - 0.3).abs() < 1e-12);
    assert_eq!((g[0].replayed, g[0].rows), (3, 4));
    assert_eq!((g[2].replayed, g[2].rows), (0, 1));
    assert!(g[2].tpot_median.is_nan());
    // the CSV keeps what the page reads, NaN as an empty cell
    let back = trust::parse(&trust::to_csv(&g));
    assert_eq!(back.len(), 3);
    assert!(
        back[2].tpot_median.is_nan()
            && back[1].covers("m", "bf16", "g", 1)
            && !back[1].covers("m", "bf16", "g", 2)
            && !back[1].covers("m", "fp8", "g", 1)
    );
    assert!((back[1].tpot_median - 0.1).abs() < 1e-9);
}
