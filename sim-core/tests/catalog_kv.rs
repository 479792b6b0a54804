//! The KV bytes per token the engine allocates (`memory::kv_bytes_per_token`, bf16) equal the
//! reference table's computed column for every model of the catalogue.

#[path = "../../lab-spec/src/catalog/csv.rs"]
mod csv;

#[test]
fn kv_bytes_per_token_equal_the_sourced_table_for_every_model() {
    let rows = csv::csv_rows(include_str!("../../lab-spec/data/models.csv"));
    let models = sim_core::catalog::models();
    assert!(models.len() >= 10);
    for m in models {
        let r = rows.iter().find(|r| r["lab_id"] == m.id).unwrap_or_else(|| panic!("{} has no CSV row", m.id));
        // an empty cell reads as 0, as the catalogue's test reads the table
        let want: f64 = r["kv_bytes_per_token_fp16_computed"].parse().unwrap_or(0.0);
        assert_eq!(sim_core::memory::kv_bytes_per_token(&m, 2.0), want, "{}", m.id);
    }
}
