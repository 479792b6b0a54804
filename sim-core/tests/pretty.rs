//! `pretty::to_string_pretty` writes exactly what `serde_json::to_string_pretty` writes.

mod common;
use lab_content::contract::{Contract, EXAMPLE};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::{json, Value};
use sim_core::pretty::to_string_pretty;

fn same<T: serde::Serialize>(v: &T) {
    assert_eq!(to_string_pretty(v).unwrap(), serde_json::to_string_pretty(v).unwrap());
}

fn random_value(rng: &mut Xoshiro256PlusPlus, depth: u32) -> Value {
    let texts = ["", "a", "q\"uote", "back\\slash", "tab\there", "new\nline", "汉字", "{[,:]}", "\u{1}", "é\"\\"];
    match rng.random_range(0..if depth > 3 { 5 } else { 8 }) {
        0 => Value::Null,
        1 => Value::Bool(rng.random()),
        2 => json!(rng.random_range(-1_000_000i64..1_000_000)),
        3 => json!(f64::from_bits(rng.random::<u64>() >> 2)),
        4 => json!(texts[rng.random_range(0..texts.len())]),
        5 | 6 => {
            let n = rng.random_range(0..4);
            Value::Object(
                (0..n)
                    .map(|k| (format!("{}{k}", texts[rng.random_range(0..texts.len())]), random_value(rng, depth + 1)))
                    .collect(),
            )
        }
        _ => Value::Array((0..rng.random_range(0..4)).map(|_| random_value(rng, depth + 1)).collect()),
    }
}

#[test]
fn scenarios_contracts_summaries_and_random_json_indent_alike() {
    for p in sim_core::presets::PRESETS {
        let s = p.scenario();
        same(&s);
        assert_eq!(s.to_json_pretty(), serde_json::to_string_pretty(&s).unwrap());
    }
    let c = Contract::from_json(EXAMPLE).unwrap();
    same(&c);
    let s = common::preset("chat-latency-first");
    same(&common::run(&s));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    for _ in 0..20_000 {
        same(&random_value(&mut rng, 0));
    }
    same(&json!({"a": [], "b": {}, "c": [[], [{}]], "d": [1, [2, [3]]]}));
}
