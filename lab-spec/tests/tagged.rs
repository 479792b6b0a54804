//! `Arrival` and `LengthDist` are read by hand (`lab_spec::tagged`) instead of serde's
//! `#[serde(tag = "kind")]` derive: for many mutated inputs — as text on its own, as text inside an
//! object (the error's position) and as a `serde_json::Value` — both accept the same values and
//! refuse with the same message. The derive's types are copied here as the reference.

use lab_spec::scenario::{Arrival, LengthDist};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;
use std::fmt::Debug;

#[allow(dead_code)]
mod derived {
    use serde::Deserialize;

    fn one_f64() -> f64 {
        1.0
    }

    #[derive(Debug, Deserialize)]
    #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
    pub enum Arrival {
        Poisson {
            rate_per_s: f64,
        },
        Bursty {
            rate_per_s: f64,
            cv: f64,
        },
        ClosedLoop {
            users: u32,
            think_time_ms: f64,
        },
        Trace {
            path: String,
            #[serde(default = "one_f64")]
            speedup: f64,
        },
    }

    #[derive(Debug, Deserialize)]
    #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
    pub enum LengthDist {
        Fixed { value: u32 },
        Uniform { min: u32, max: u32 },
        Lognormal { mean: f64, sigma: f64 },
    }
}

/// The tagged value inside an object, before and after other members (positions, paths).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Holder<T> {
    #[allow(dead_code)]
    a: u32,
    #[allow(dead_code)]
    x: T,
    #[allow(dead_code)]
    #[serde(default)]
    b: Option<u32>,
}

fn outcome<T: DeserializeOwned + Debug>(r: Result<T, serde_json::Error>) -> Result<String, String> {
    r.map(|v| format!("{v:?}")).map_err(|e| e.to_string())
}

fn compare<New: DeserializeOwned + Debug, Old: DeserializeOwned + Debug>(text: &str) -> bool {
    let want = outcome::<Old>(serde_json::from_str(text));
    assert_eq!(outcome::<New>(serde_json::from_str(text)), want, "text {text}");
    let held = format!("{{\"a\": 1, \"x\": {text}, \"b\": 2}}");
    assert_eq!(
        outcome::<Holder<New>>(serde_json::from_str(&held)),
        outcome::<Holder<Old>>(serde_json::from_str(&held)),
        "held {held}"
    );
    let held = format!("{{\"a\": 1,\n  \"x\": {text}}}");
    assert_eq!(
        outcome::<Holder<New>>(serde_json::from_str(&held)),
        outcome::<Holder<Old>>(serde_json::from_str(&held)),
        "held {held}"
    );
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        assert_eq!(
            outcome::<New>(serde_json::from_value(v.clone())),
            outcome::<Old>(serde_json::from_value(v.clone())),
            "value {v}"
        );
    }
    want.is_ok()
}

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

const VALUES: [&str; 22] = [
    "1",
    "0",
    "2.5",
    "-1",
    "1e400",
    "18446744073709551616",
    "5000000000",
    "1.5e3",
    "\"x\"",
    "\"poisson\"",
    "\"fixed\"",
    "true",
    "null",
    "[]",
    "{}",
    "[1]",
    "{\"a\":1}",
    "\"a.csv\"",
    "-0",
    "3",
    "0.25",
    "\"\\u0070oisson\"",
];

fn fuzz<New: DeserializeOwned + Debug, Old: DeserializeOwned + Debug>(
    kinds: &[&str],
    fields: &[&str],
    valid: &[&str],
    seed: u64,
    rounds: usize,
) -> (usize, usize) {
    let mut rng = Rng(seed);
    let (mut ok, mut refused) = (0, 0);
    let keys: Vec<&str> = fields.iter().copied().chain(["kind", "kind", "kind", "other", "Kind"]).collect();
    for _ in 0..rounds {
        let form = rng.below(10);
        let text = if form == 0 {
            // The sequence form: the tag first, then the fields in order.
            let n = rng.below(4);
            let mut items = vec![format!("\"{}\"", kinds[rng.below(kinds.len())])];
            items.extend((0..n).map(|_| VALUES[rng.below(VALUES.len())].to_string()));
            format!("[{}]", items.join(", "))
        } else if form == 1 {
            VALUES[rng.below(VALUES.len())].to_string()
        } else if form < 5 {
            // A valid value, as it is or with one member's value replaced.
            let v = valid[rng.below(valid.len())];
            match (rng.below(3), v.find(": ")) {
                (0, Some(_)) => {
                    let parts: Vec<&str> = v.split(", ").collect();
                    let k = rng.below(parts.len());
                    let mut parts: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
                    let (key, _) = parts[k].split_once(": ").unwrap();
                    let tail = if parts[k].ends_with('}') { "}" } else { "" };
                    parts[k] = format!("{key}: {}{tail}", VALUES[rng.below(VALUES.len())]);
                    parts.join(", ")
                }
                _ => v.to_string(),
            }
        } else {
            let n = rng.below(5);
            let mut members: Vec<String> = Vec::new();
            if rng.below(4) > 0 {
                let kind =
                    if rng.below(8) == 0 { "nope".to_string() } else { kinds[rng.below(kinds.len())].to_string() };
                members.push(format!("\"kind\": \"{kind}\""));
            }
            for _ in 0..n {
                let k = keys[rng.below(keys.len())];
                let v = if k == "kind" && rng.below(2) == 0 {
                    format!("\"{}\"", kinds[rng.below(kinds.len())])
                } else {
                    VALUES[rng.below(VALUES.len())].to_string()
                };
                members.push(format!("\"{k}\": {v}"));
            }
            // Most often well formed, so that the variants' own checks are reached.
            let at = rng.below(members.len() + 1).min(members.len());
            members.rotate_left(at);
            format!("{{{}}}", members.join(", "))
        };
        if compare::<New, Old>(&text) {
            ok += 1;
        } else {
            refused += 1;
        }
        // The same text cut short or with a stray character.
        let cut = rng.below(text.len() + 1);
        let _ = compare::<New, Old>(&text[..cut]);
        let _ =
            compare::<New, Old>(&format!("{}{}{}", &text[..cut], [",", "}", "x", "\""][rng.below(4)], &text[cut..]));
    }
    (ok, refused)
}

#[test]
fn arrivals_read_as_the_derive_read_them() {
    let fields = ["rate_per_s", "cv", "users", "think_time_ms", "path", "speedup"];
    let valid = [
        r#"{"kind": "poisson", "rate_per_s": 2}"#,
        r#"{"rate_per_s": 0.5, "cv": 3, "kind": "bursty"}"#,
        r#"{"kind": "closed_loop", "users": 8, "think_time_ms": 100}"#,
        r#"{"kind": "trace", "path": "a.csv"}"#,
        r#"{"speedup": 2, "kind": "trace", "path": "a.csv"}"#,
    ];
    let (ok, refused) = fuzz::<Arrival, derived::Arrival>(&Arrival::KINDS, &fields, &valid, 1, 40_000);
    assert!(ok > 5_000 && refused > 10_000, "{ok} accepted, {refused} refused");
    for text in [
        r#"{"kind": "poisson", "rate_per_s": 2}"#,
        r#"{"rate_per_s": 2, "kind": "poisson"}"#,
        r#"{"kind": "trace", "path": "a.csv"}"#,
        r#"{"kind": "trace", "speedup": 2, "path": "a.csv"}"#,
        r#"["closed_loop", 8, 100]"#,
        r#"["trace", "a.csv"]"#,
        r#"{"kind": "bursty", "rate_per_s": 1, "cv": 2, "cv": 3}"#,
        r#"{"kind": "poisson", "kind": "poisson", "rate_per_s": 1}"#,
        r#"{"kind": 0, "rate_per_s": 1}"#,
        r#"{"rate_per_s": 1}"#,
        r#"[]"#,
        r#"["poisson"]"#,
        r#"["poisson", 1, 2]"#,
    ] {
        compare::<Arrival, derived::Arrival>(text);
    }
}

#[test]
fn length_distributions_read_as_the_derive_read_them() {
    let fields = ["value", "min", "max", "mean", "sigma"];
    let valid = [
        r#"{"kind": "fixed", "value": 100}"#,
        r#"{"min": 1, "kind": "uniform", "max": 9}"#,
        r#"{"kind": "lognormal", "mean": 300.5, "sigma": 0.5}"#,
    ];
    let (ok, refused) = fuzz::<LengthDist, derived::LengthDist>(&LengthDist::KINDS, &fields, &valid, 2, 40_000);
    assert!(ok > 5_000 && refused > 10_000, "{ok} accepted, {refused} refused");
}
