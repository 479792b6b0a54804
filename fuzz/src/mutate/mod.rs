//! Structure-aware mutations: JSON values at type extremes and of the wrong type, keys deleted,
//! duplicated and renamed, subtrees spliced between corpus items; plain text truncation, byte
//! flips and splices; share links damaged ([`link`]) and CSV traces damaged ([`csv`]).

mod csv;
mod link;

use crate::input::{link_json, Input};
pub use csv::mutate_csv;
pub use link::mutate_link;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::{Map, Value};

pub type FuzzRng = Xoshiro256PlusPlus;

/// A random element of a non-empty slice.
pub fn pick<'a, T>(rng: &mut FuzzRng, items: &'a [T]) -> &'a T {
    &items[rng.random_range(0..items.len())]
}

/// What mutations draw from: the corpus (splice donors) and its words.
pub struct Pool {
    pub seeds: Vec<(String, Input)>,
    /// Parsed JSON of every scenario-like seed and doc block (subtree donors).
    pub donors: Vec<Value>,
    pub words: Vec<String>,
}

impl Pool {
    pub fn new(seeds: Vec<(String, Input)>) -> Pool {
        let words = crate::corpus::dictionary(&seeds);
        let mut donors: Vec<Value> =
            crate::corpus::doc_blocks().iter().filter_map(|b| serde_json::from_str(b).ok()).collect();
        for (_, input) in &seeds {
            let text = match input {
                Input::Scenario(s) => Some(s.clone()),
                Input::Share(l) => link_json(l),
                Input::Trace { scenario, .. } => Some(scenario.clone()),
            };
            if let Some(v) = text.and_then(|t| serde_json::from_str(&t).ok()) {
                donors.push(v);
            }
        }
        Pool { seeds, donors, words }
    }
}

/// Builds one input: a seed, mutated 1 to 4 times (sometimes more).
pub fn generate(rng: &mut FuzzRng, pool: &Pool) -> Input {
    // kinds in fixed shares (scenario 45 %, link 30 %, trace 25 %), then a seed of that kind
    let kind = match rng.random_range(0..20) {
        0..=8 => "scenario",
        9..=14 => "link",
        _ => "trace",
    };
    let of_kind: Vec<&Input> = pool.seeds.iter().map(|(_, s)| s).filter(|s| s.kind() == kind).collect();
    let mut input = if of_kind.is_empty() { pick(rng, &pool.seeds).1.clone() } else { (*pick(rng, &of_kind)).clone() };
    let rounds = match rng.random_range(0..16) {
        0..=6 => 1,
        7..=11 => 2,
        12..=14 => 3,
        _ => rng.random_range(4..12),
    };
    for _ in 0..rounds {
        input = mutate(rng, pool, input);
    }
    input
}

fn mutate(rng: &mut FuzzRng, pool: &Pool, input: Input) -> Input {
    match input {
        Input::Scenario(s) => Input::Scenario(mutate_json_text(rng, pool, &s)),
        Input::Share(link) => Input::Share(mutate_link(rng, pool, &link)),
        Input::Trace { scenario, csv } => {
            if rng.random_range(0..8) == 0 {
                Input::Trace { scenario: mutate_json_text(rng, pool, &scenario), csv }
            } else {
                Input::Trace { scenario, csv: mutate_csv(rng, pool, &csv) }
            }
        }
    }
}

// ------------------------------------------------------------------------------------- JSON

/// Mutates JSON text: mostly through its structure, sometimes as plain text.
pub fn mutate_json_text(rng: &mut FuzzRng, pool: &Pool, text: &str) -> String {
    if rng.random_range(0..6) != 0 {
        if let Ok(mut v) = serde_json::from_str::<Value>(text) {
            let mut raw = Vec::new();
            mutate_value(rng, pool, &mut v, &mut raw);
            return render(&v, &raw);
        }
    }
    mutate_text(rng, pool, text)
}

/// Markers in rendered JSON that stand for raw text (bad numbers, duplicate keys).
const RAW: &str = "\u{1}raw\u{1}";

fn raw_marker(raw: &mut Vec<String>, text: String) -> String {
    raw.push(text);
    format!("{RAW}{}{RAW}", raw.len() - 1)
}

/// Serialises `v`, then puts the raw pieces in place of their quoted markers.
fn render(v: &Value, raw: &[String]) -> String {
    let mut text = serde_json::to_string_pretty(v).unwrap_or_default();
    for (i, piece) in raw.iter().enumerate() {
        let marker = serde_json::to_string(&format!("{RAW}{i}{RAW}")).unwrap_or_default();
        text = text.replace(&marker, piece);
    }
    text
}

#[derive(Clone, Debug)]
enum Seg {
    Key(String),
    Index(usize),
}

fn paths(v: &Value, here: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    out.push(here.clone());
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                here.push(Seg::Key(k.clone()));
                paths(x, here, out);
                here.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                here.push(Seg::Index(i));
                paths(x, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

fn at<'a>(v: &'a mut Value, path: &[Seg]) -> Option<&'a mut Value> {
    let mut cur = v;
    for seg in path {
        cur = match (seg, cur) {
            (Seg::Key(k), Value::Object(m)) => m.get_mut(k)?,
            (Seg::Index(i), Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// Numbers at the edges of the ranges sim-core validates and of the Rust types behind them.
const INTS: &[i128] = &[
    0,
    1,
    -1,
    2,
    3,
    7,
    8,
    9,
    16,
    100,
    101,
    255,
    256,
    1023,
    1024,
    1025,
    4095,
    4096,
    4097,
    65_535,
    65_536,
    100_000,
    100_001,
    1_048_575,
    1_048_576,
    1_048_577,
    10_000_000,
    10_000_001,
    u32::MAX as i128,
    u32::MAX as i128 + 1,
    i64::MAX as i128,
    u64::MAX as i128,
    i64::MIN as i128,
];
const FLOATS: &[f64] = &[
    0.0,
    -0.0,
    5e-324,
    1e-308,
    1e-9,
    1e-6,
    0.000_999,
    0.001,
    0.01,
    0.05,
    0.1,
    0.5,
    0.999_999_9,
    1.000_000_1,
    2.5,
    3.0,
    20.0,
    64.0,
    1000.0,
    3.6e6,
    1e12,
    1e13,
    1e17,
    1e300,
    f64::MAX,
    -1e300,
    -0.5,
];
/// Number-like text JSON cannot hold or serde rejects: out of range, NaN-ish, malformed.
const RAW_NUMBERS: &[&str] =
    &["1e999", "-1e999", "NaN", "Infinity", "-Infinity", "01", "-", "1.", ".5", "1e", "0x10", "+1", "1_000", "١"];

fn number_value(rng: &mut FuzzRng, old: Option<f64>) -> Value {
    let x = old.unwrap_or(1.0);
    match rng.random_range(0..10) {
        0..=2 => int_value(*pick(rng, INTS)),
        3..=4 => Value::from(*pick(rng, FLOATS)),
        5 => Value::from(x + 1.0),
        6 => Value::from(x - 1.0),
        7 => Value::from(x * *pick(rng, &[2.0, 10.0, 1000.0, 1e6, 0.5, 0.1, 1e-6, -1.0])),
        8 => Value::from(x.trunc()),
        _ => Value::from(rng.random_range(-2.0..2.0) * 10f64.powi(rng.random_range(-8..12))),
    }
}

fn int_value(i: i128) -> Value {
    if let Ok(u) = u64::try_from(i) {
        Value::from(u)
    } else if let Ok(s) = i64::try_from(i) {
        Value::from(s)
    } else {
        Value::from(i as f64)
    }
}

fn string_value(rng: &mut FuzzRng, pool: &Pool, old: &str) -> Value {
    match rng.random_range(0..9) {
        0..=3 => Value::from(pick(rng, &pool.words).clone()),
        4 => Value::from(""),
        5 => Value::from(*pick(rng, &[" ", "模型", "a\u{0}b", "../../etc/passwd", "NaN", "1", "null", "\u{feff}x"])),
        6 => Value::from(old.to_uppercase()),
        7 => Value::from("x".repeat(*pick(rng, &[39, 40, 41, 1000, 100_000]))),
        _ => {
            let mut s = old.to_string();
            if !s.is_empty() && rng.random_bool(0.5) {
                let at = s.char_indices().nth(rng.random_range(0..s.chars().count())).map_or(0, |(i, _)| i);
                s.remove(at);
            } else {
                s.push(*pick(rng, &['-', '_', 'x', '9', '/', '.']));
            }
            Value::from(s)
        }
    }
}

fn wrong_type(rng: &mut FuzzRng) -> Value {
    match rng.random_range(0..8) {
        0 => Value::Null,
        1 => Value::from(true),
        2 => Value::from(false),
        3 => Value::from("NaN"),
        4 => Value::Array(vec![]),
        5 => Value::Object(Map::new()),
        6 => Value::Array(vec![Value::from(1)]),
        _ => serde_json::json!({ "kind": "fixed" }),
    }
}

/// A subtree from another corpus item, under the same key where one has it.
fn donor_subtree(rng: &mut FuzzRng, pool: &Pool, key: Option<&str>) -> Value {
    let donor = pick(rng, &pool.donors);
    let mut all = Vec::new();
    paths(donor, &mut Vec::new(), &mut all);
    let same: Vec<&Vec<Seg>> =
        all.iter().filter(|p| matches!((p.last(), key), (Some(Seg::Key(k)), Some(want)) if k == want)).collect();
    let path =
        if !same.is_empty() && rng.random_bool(0.8) { (*pick(rng, &same)).clone() } else { pick(rng, &all).clone() };
    let mut d = donor.clone();
    at(&mut d, &path).cloned().unwrap_or(Value::Null)
}

fn mutate_value(rng: &mut FuzzRng, pool: &Pool, root: &mut Value, raw: &mut Vec<String>) {
    let mut all = Vec::new();
    paths(root, &mut Vec::new(), &mut all);
    let path = pick(rng, &all).clone();
    let key = match path.last() {
        Some(Seg::Key(k)) => Some(k.clone()),
        _ => None,
    };
    // Operations on the parent: delete, duplicate, rename keys; delete or repeat elements.
    if !path.is_empty() && rng.random_range(0..4) == 0 {
        let (last, parent_path) = path.split_last().expect("non-empty");
        let Some(parent) = at(root, parent_path) else { return };
        match (parent, last) {
            (Value::Object(m), Seg::Key(k)) => match rng.random_range(0..4) {
                0 => {
                    m.remove(k);
                }
                1 => {
                    // a duplicate key with another value: JSON text a map cannot hold
                    let old = m.get(k).cloned().unwrap_or(Value::Null);
                    let other = if rng.random_bool(0.5) { number_value(rng, old.as_f64()) } else { old };
                    let text = serde_json::to_string(k).unwrap_or_default();
                    let marker = raw_marker(raw, text);
                    // as a key the marker is quoted like a value, so the raw piece replaces it
                    m.insert(marker, other);
                }
                2 => {
                    if let Some(x) = m.remove(k) {
                        let name = if rng.random_bool(0.6) {
                            pick(rng, &pool.words).clone()
                        } else {
                            string_value(rng, pool, k).as_str().unwrap_or("").to_string()
                        };
                        m.insert(name, x);
                    }
                }
                _ => {
                    let name = pick(rng, &pool.words).clone();
                    let v = donor_subtree(rng, pool, Some(&name));
                    m.insert(name, v);
                }
            },
            (Value::Array(a), Seg::Index(i)) if *i < a.len() => match rng.random_range(0..3) {
                0 => {
                    a.remove(*i);
                }
                1 => {
                    let x = a[*i].clone();
                    for _ in 0..*pick(rng, &[1, 1, 2, 7, 8]) {
                        a.insert(*i, x.clone());
                    }
                }
                _ => {
                    let j = rng.random_range(0..a.len());
                    a.swap(*i, j);
                }
            },
            _ => {}
        }
        return;
    }
    let Some(node) = at(root, &path) else { return };
    let new = match rng.random_range(0..12) {
        0 => wrong_type(rng),
        1 => donor_subtree(rng, pool, key.as_deref()),
        2 => Value::String(raw_marker(raw, pick(rng, RAW_NUMBERS).to_string())),
        _ => match node {
            Value::Number(n) => number_value(rng, n.as_f64()),
            Value::String(s) => string_value(rng, pool, s),
            Value::Bool(b) => Value::from(!*b),
            Value::Null => number_value(rng, None),
            Value::Array(_) | Value::Object(_) => donor_subtree(rng, pool, key.as_deref()),
        },
    };
    *node = new;
}

// ------------------------------------------------------------------------------------- text

/// Plain text damage: truncation, byte flips, inserted punctuation, spans deleted, repeated
/// or spliced from another seed.
pub fn mutate_text(rng: &mut FuzzRng, pool: &Pool, text: &str) -> String {
    let mut b = text.as_bytes().to_vec();
    let n = b.len().max(1);
    match rng.random_range(0..7) {
        0 => b.truncate(rng.random_range(0..n)),
        1 => {
            if !b.is_empty() {
                let i = rng.random_range(0..b.len());
                b[i] ^= 1 << rng.random_range(0..8);
            }
        }
        2 => {
            let i = rng.random_range(0..=b.len());
            let c = *pick(rng, b"{}[],:\"\\ 0-.eE\n\t");
            b.insert(i, c);
        }
        3 => {
            let i = rng.random_range(0..n);
            let j = (i + rng.random_range(0..64)).min(b.len());
            b.drain(i.min(b.len())..j);
        }
        4 => {
            let i = rng.random_range(0..n).min(b.len());
            let j = (i + rng.random_range(0..256)).min(b.len());
            let span = b[i..j].to_vec();
            b.splice(j..j, span);
        }
        5 => {
            let other = pick(rng, &pool.seeds).1.to_file_text().into_bytes();
            let i = rng.random_range(0..n).min(b.len());
            let j = rng.random_range(0..other.len().max(1)).min(other.len());
            b.truncate(i);
            b.extend_from_slice(&other[j..]);
        }
        _ => {
            let i = rng.random_range(0..=b.len());
            let s = *pick(rng, &["\u{feff}", "\r\n", "\u{0}", "é", "\u{10ffff}", "null", "1e999", "-"]);
            b.splice(i..i, s.bytes());
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}
