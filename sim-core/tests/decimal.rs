//! `decimal::parse_f64` against `str::parse::<f64>`: the same answer (bit for bit, errors alike)
//! for every input tried — short and long decimals, both sides of every halfway point between
//! neighbouring `f64`s, the subnormal and overflow edges, and random text.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use sim_core::decimal::parse_f64;

fn same(text: &str) {
    let want = text.parse::<f64>().ok();
    let got = parse_f64(text);
    match (want, got) {
        (None, None) => {}
        (Some(w), Some(g)) if w.is_nan() && g.is_nan() => {
            assert_eq!(w.is_sign_negative(), g.is_sign_negative(), "{text:?}: NaN sign");
        }
        (Some(w), Some(g)) => assert_eq!(w.to_bits(), g.to_bits(), "{text:?}: parse {w:e}, parse_f64 {g:e}"),
        _ => panic!("{text:?}: parse {want:?}, parse_f64 {got:?}"),
    }
}

/// Adds two decimal digit strings of equal length (no point), giving a string one longer.
fn add_digits(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; a.len() + 1];
    let mut carry = 0;
    for i in (0..a.len()).rev() {
        let s = a[i] + b[i] + carry;
        out[i + 1] = s % 10;
        carry = s / 10;
    }
    out[0] = carry;
    out
}

/// Halves a decimal digit string, appending a digit (…5) when odd.
fn halve(d: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(d.len() + 1);
    let mut rem = 0;
    for &x in d.iter().chain(std::iter::once(&0)) {
        let v = rem * 10 + x;
        out.push(v / 2);
        rem = v % 2;
    }
    out
}

/// The midpoint between `x` and the next `f64`, exactly, and texts just above and below it.
fn halfway_texts(x: f64) -> Vec<String> {
    let next = f64::from_bits(x.to_bits() + 1);
    // 1100 fraction digits are exact for every f64; pad the integer parts to one length
    let digits = |v: f64, int_len: usize| -> Vec<u8> {
        let t = format!("{v:.1100}");
        let (int, frac) = t.split_once('.').unwrap();
        let mut d = vec![0u8; int_len - int.len()];
        d.extend(int.bytes().chain(frac.bytes()).map(|c| c - b'0'));
        d
    };
    let int_len = format!("{next:.0}").len();
    let mid = halve(&add_digits(&digits(x, int_len), &digits(next, int_len)));
    // mid has one more leading digit than the padded numbers: it stands for 0.mid × 10^(int_len + 1)
    let text = |d: &[u8]| {
        let s: String = d.iter().map(|&c| (b'0' + c) as char).collect();
        format!("0.{s}e{}", int_len + 1)
    };
    let mut up = mid.clone();
    up.push(1);
    let mut down = mid.clone();
    let last = down.iter().rposition(|&c| c != 0).unwrap();
    down[last] -= 1;
    down.extend(std::iter::repeat_n(9, 30));
    vec![text(&mid), text(&up), text(&down)]
}

#[test]
fn fixed_cases_match_str_parse() {
    for t in [
        "",
        "+",
        "-",
        ".",
        "e",
        "e5",
        "1e",
        "1e+",
        "1e-",
        "+.",
        "-.e1",
        "1.",
        ".5",
        "1.e5",
        "0",
        "-0",
        "+0",
        "0.0",
        "00000",
        "-0.000e-999",
        "1",
        "12",
        "1.5",
        "2.5e-3",
        "1E5",
        "1e+5",
        "+1",
        "-1",
        "1_0",
        " 1",
        "1 ",
        "1,5",
        "0x10",
        "inf",
        "-inf",
        "+inf",
        "INF",
        "Infinity",
        "-infinity",
        "infinit",
        "infinityy",
        "nan",
        "NaN",
        "-nan",
        "+NAN",
        "nana",
        "in",
        "1e308",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "1.7976931348623159e308",
        "1e309",
        "1e310",
        "1e-320",
        "5e-324",
        "4.9406564584124654e-324",
        "2.4703282292062327e-324",
        "2.4703282292062328e-324",
        "2.47032822920623272e-324",
        "1e-324",
        "1e-400",
        "2.2250738585072011e-308",
        "2.2250738585072014e-308",
        "9007199254740993",
        "9007199254740992",
        "9007199254740994",
        "18014398509481985",
        "0.1",
        "0.2",
        "0.3",
        "0.30000000000000004",
        "123456789012345678901234567890",
        "1e22",
        "1e23",
        "9e22",
        "1e99999999999999999999999",
        "0e99999999999999999999999",
        "1e-99999999999999999999999",
        "0.000000000000000000000000000001e30",
        "100000000000000000000000000000e-29",
        "0.301012143",
        "0.000000000",
        "1.000000000000000000000000000000000000001",
        "4503599627370496.5",
        "4503599627370497.5",
        "2.0000000000000002",
        "2.00000000000000011102230246251565404236316680908203125",
        "2.000000000000000111022302462515654042363166809082031250000001",
    ] {
        same(t);
    }
    same(&format!("1{}", "0".repeat(400)));
    same(&format!("0.{}1", "0".repeat(400)));
    same(&format!("{}e-1000", "9".repeat(1000)));
    same(&format!("2.00000000000000011102230246251565404236316680908203125{}1", "0".repeat(900)));
    same(&format!("2.00000000000000011102230246251565404236316680908203124{}9", "9".repeat(900)));
}

#[test]
fn every_f64_written_any_way_reads_back_alike() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    for i in 0..200_000 {
        let x = match i % 4 {
            0 => f64::from_bits(rng.random::<u64>() >> 1),
            1 => rng.random::<f64>() * 1e6,
            2 => f64::from_bits(rng.random_range(0..1u64 << 56)),
            _ => rng.random_range(-1e3..1e3),
        };
        if !x.is_finite() {
            continue;
        }
        same(&format!("{x}"));
        same(&format!("{x:e}"));
        same(&format!("{x:.3}"));
        same(&format!("{x:.17e}"));
        same(&format!("{x:.25e}"));
    }
}

#[test]
fn both_sides_of_halfway_points_round_alike() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let mut xs: Vec<f64> =
        vec![0.0, 1.0, 0.1, 2.0, 1e22, 1e23, 9007199254740992.0, f64::MIN_POSITIVE, 5e-324, f64::MAX / 2.0];
    for i in 0..3_000 {
        xs.push(match i % 3 {
            0 => f64::from_bits(rng.random_range(1..0x7fe0_0000_0000_0000u64)),
            1 => f64::from_bits(rng.random_range(1..1u64 << 53)),
            _ => rng.random_range(0.0..1e7),
        });
    }
    for x in xs {
        if x.is_finite() && x < f64::MAX {
            for t in halfway_texts(x) {
                same(&t);
            }
        }
    }
}

#[test]
fn random_text_is_accepted_or_refused_alike() {
    let alphabet = b"0123456789012345678901234567890123456789..eE+-infatyINFATYx_ ";
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    for _ in 0..300_000 {
        let len = rng.random_range(0..12);
        let t: String = (0..len).map(|_| alphabet[rng.random_range(0..alphabet.len())] as char).collect();
        same(&t);
    }
    for _ in 0..100_000 {
        // well-formed numbers with many digits and exponents near the edges
        let int: String = (0..rng.random_range(0..30)).map(|_| (b'0' + rng.random_range(0..10u8)) as char).collect();
        let frac: String = (0..rng.random_range(0..30)).map(|_| (b'0' + rng.random_range(0..10u8)) as char).collect();
        let e = rng.random_range(-360..330);
        same(&format!("{int}.{frac}e{e}"));
        same(&format!("{int}e{e}"));
        same(&format!("-{int}.{frac}"));
    }
}

/// The two readers the wasm still had through `str::parse` (exercise claims, the trust table) read
/// what they read before.
#[test]
fn claim_rounding_and_the_trust_table_read_as_str_parse_does() {
    use lab_content::exercise::{claim_round, CLAIM_DIGITS};
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    for k in 0..200_000 {
        let x = if k % 2 == 0 { f64::from_bits(rng.random()) } else { rng.random_range(-1e7..1e7) };
        let old =
            if !x.is_finite() || x == 0.0 { x } else { format!("{:.*e}", CLAIM_DIGITS - 1, x).parse().unwrap_or(x) };
        assert_eq!(claim_round(x).to_bits(), old.to_bits(), "{x:e}");
    }
    let groups = lab_content::trust::table();
    assert!(!groups.is_empty());
    for (g, line) in groups.iter().zip(lab_content::trust::TABLE.lines().skip(1)) {
        let c: Vec<&str> = line.split(',').collect();
        let old = |s: &str| if s.is_empty() { f64::NAN } else { s.parse::<f64>().unwrap() };
        for (got, text) in [(g.tpot_median, c[7]), (g.tpot_p90_abs, c[8]), (g.ttft_median, c[9])] {
            assert_eq!(got.to_bits(), old(text).to_bits(), "{line}");
        }
    }
    assert_eq!(groups.len(), lab_content::trust::TABLE.lines().skip(1).filter(|l| !l.is_empty()).count());
}
