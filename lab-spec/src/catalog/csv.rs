//! A reader of the sourced reference tables (`lab-spec/data/*.csv`) for tests: the catalogue's
//! and the engine's (sim-core's `tests/catalog_kv.rs` includes this file).

/// Rows of a CSV file as maps from the header's names (quoted fields, `""` escapes).
pub fn csv_rows(text: &str) -> Vec<std::collections::HashMap<String, String>> {
    let split = |line: &str| {
        let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '"' if quoted && chars.peek() == Some(&'"') => {
                    cur.push('"');
                    chars.next();
                }
                '"' => quoted = !quoted,
                ',' if !quoted => out.push(std::mem::take(&mut cur)),
                c => cur.push(c),
            }
        }
        out.push(cur);
        out
    };
    let mut lines = text.lines();
    let header = split(lines.next().unwrap());
    lines.map(|l| header.iter().cloned().zip(split(l)).collect()).collect()
}
