//! Trace CSV mutations.

use super::{mutate_text, pick, FuzzRng, Pool};
use rand::Rng;

const CELLS: &[&str] = &[
    "0",
    "-1",
    "-0",
    "1",
    "0.5",
    "1e308",
    "1e309",
    "-1e-300",
    "NaN",
    "inf",
    "-inf",
    "",
    " ",
    "1048576",
    "1048577",
    "4294967295",
    "4294967296",
    "18446744073709551616",
    "1e-7",
    "abc",
    "\"5\"",
    "0x10",
    "+5",
    "5.0",
    "١",
    "1e6",
    "86400000",
];

/// Damages a CSV trace: rows deleted, repeated and shuffled, columns swapped, dropped and
/// added, cells at extremes, the header renamed, line endings changed, text truncated.
pub fn mutate_csv(rng: &mut FuzzRng, pool: &Pool, csv: &str) -> String {
    let mut lines: Vec<String> = csv.lines().map(str::to_string).collect();
    if lines.is_empty() || rng.random_range(0..8) == 0 {
        return mutate_text(rng, pool, csv);
    }
    let body =
        |rng: &mut FuzzRng, lines: &Vec<String>| if lines.len() > 1 { rng.random_range(1..lines.len()) } else { 0 };
    match rng.random_range(0..12) {
        0 => {
            let i = body(rng, &lines);
            lines.remove(i);
        }
        1 => {
            let i = body(rng, &lines);
            let row = lines[i].clone();
            for _ in 0..*pick(rng, &[1, 2, 10, 500]) {
                lines.insert(i, row.clone());
            }
        }
        2 => {
            let keep = rng.random_range(1..=lines.len());
            lines.truncate(keep);
        }
        3 => {
            for _ in 0..rng.random_range(1..8) {
                let i = body(rng, &lines);
                let j = body(rng, &lines);
                lines.swap(i, j);
            }
        }
        4..=6 => {
            let i = if rng.random_range(0..6) == 0 { 0 } else { body(rng, &lines) };
            let mut cells: Vec<String> = lines[i].split(',').map(str::to_string).collect();
            let c = rng.random_range(0..cells.len());
            cells[c] = pick(rng, CELLS).to_string();
            lines[i] = cells.join(",");
        }
        7 => {
            // swap two columns in every line, or in the header only
            let all = rng.random_bool(0.5);
            for (n, line) in lines.iter_mut().enumerate() {
                if n > 0 && !all {
                    break;
                }
                let mut cells: Vec<&str> = line.split(',').collect();
                if cells.len() > 1 {
                    let last = cells.len() - 1;
                    cells.swap(0, last);
                }
                *line = cells.join(",");
            }
        }
        8 => {
            let i = body(rng, &lines);
            if rng.random_bool(0.5) {
                lines[i].push_str(",7");
            } else if let Some(cut) = lines[i].rfind(',') {
                lines[i].truncate(cut);
            }
        }
        9 => {
            let header = *pick(
                rng,
                &[
                    "arrival_s,input_len",
                    "input_len,output_len,arrival_s",
                    "ARRIVAL_S,INPUT_LEN,OUTPUT_LEN",
                    "\u{feff}arrival_s,input_len,output_len",
                    "arrival_s,input_len,output_len,arrival_s",
                    " arrival_s , input_len , output_len ",
                    "arrival_s;input_len;output_len",
                    "",
                ],
            );
            lines[0] = header.to_string();
        }
        10 => {
            // one row far in the future, or every row at once
            if rng.random_bool(0.5) {
                let i = body(rng, &lines);
                let rest = lines[i].split_once(',').map_or(String::new(), |(_, r)| r.to_string());
                lines[i] = format!("{},{rest}", pick(rng, &["1e9", "86400", "1e15", "0"]));
            } else {
                for line in lines.iter_mut().skip(1) {
                    let rest = line.split_once(',').map_or(String::new(), |(_, r)| r.to_string());
                    *line = format!("0,{rest}");
                }
            }
        }
        _ => {
            let i = body(rng, &lines);
            lines.insert(i, pick(rng, &["", " ", "# comment", ",,", "\r"]).to_string());
        }
    }
    let sep = if rng.random_range(0..10) == 0 { "\r\n" } else { "\n" };
    let mut out = lines.join(sep);
    if rng.random_bool(0.8) {
        out.push_str(sep);
    }
    out
}
