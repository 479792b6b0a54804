//! `Deserialize` for the scenario's `kind`-tagged enums ([`Arrival`], [`LengthDist`]) as serde's
//! `#[serde(tag = "kind", deny_unknown_fields)]` derive reads them — same accepted input, same
//! messages at the same positions — without serde's buffered `Content` and its deserializer, one
//! copy per variant in the wasm (docs/wasm-size.md). The members other than `kind` are buffered as
//! `serde_json::Value`s in their order (duplicates kept), then read by a derived struct per variant
//! that says what the derive said (`struct variant Arrival::Poisson with 1 element`, the only
//! message that names it). `tests/tagged.rs` compares
//! both on many mutated inputs.

use crate::scenario::{Arrival, LengthDist};
use serde::de::value::{MapDeserializer, SeqDeserializer};
use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use std::fmt;

/// What follows the tag: an object's other members, or a sequence's other elements.
enum Rest {
    Map(Vec<(String, Value)>),
    Seq(Vec<Value>),
}

/// Reads the tag (its index in `kinds`) and buffers the rest, as serde's `TaggedContentVisitor`.
struct Tagged {
    kinds: &'static [&'static str],
    expecting: &'static str,
}

/// The tag's value: a variant name of `kinds`.
struct Kind(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for Kind {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for Kind {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("variant identifier")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<usize, E> {
        self.0.iter().position(|k| *k == v).ok_or_else(|| E::unknown_variant(v, self.0))
    }
}

impl<'de> Visitor<'de> for Tagged {
    type Value = (usize, Rest);
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.expecting)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let kind = seq.next_element_seed(Kind(self.kinds))?.ok_or_else(|| de::Error::missing_field("kind"))?;
        let mut rest = Vec::new();
        while let Some(v) = seq.next_element::<Value>()? {
            rest.push(v);
        }
        Ok((kind, Rest::Seq(rest)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut kind = None;
        let mut rest = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "kind" {
                if kind.is_some() {
                    return Err(de::Error::duplicate_field("kind"));
                }
                kind = Some(map.next_value_seed(Kind(self.kinds))?);
            } else {
                rest.push((key, map.next_value::<Value>()?));
            }
        }
        Ok((kind.ok_or_else(|| de::Error::missing_field("kind"))?, Rest::Map(rest)))
    }
}

/// The variant's fields from what followed the tag; serde_json's error (no position: the caller's
/// deserializer gives it the position after the tagged value, where the derive's errors were).
fn variant<T: DeserializeOwned>(rest: Rest) -> Result<T, serde_json::Error> {
    match rest {
        Rest::Map(m) => T::deserialize(MapDeserializer::new(m.into_iter())),
        Rest::Seq(s) => T::deserialize(SeqDeserializer::new(s.into_iter())),
    }
}

fn read<'de, D: Deserializer<'de>>(
    d: D,
    kinds: &'static [&'static str],
    expecting: &'static str,
) -> Result<(usize, Rest), D::Error> {
    d.deserialize_any(Tagged { kinds, expecting })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "struct variant Arrival::Poisson with 1 element")]
struct Poisson {
    rate_per_s: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "struct variant Arrival::Bursty with 2 elements")]
struct Bursty {
    rate_per_s: f64,
    cv: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "struct variant Arrival::ClosedLoop with 2 elements")]
struct ClosedLoop {
    users: u32,
    think_time_ms: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "struct variant Arrival::Trace with 2 elements")]
struct Trace {
    path: String,
    #[serde(default = "one_f64")]
    speedup: f64,
}

fn one_f64() -> f64 {
    1.0
}

impl<'de> Deserialize<'de> for Arrival {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (kind, rest) = read(d, &Arrival::KINDS, "internally tagged enum Arrival")?;
        let a = match kind {
            0 => variant(rest).map(|v: Poisson| Arrival::Poisson { rate_per_s: v.rate_per_s }),
            1 => variant(rest).map(|v: Bursty| Arrival::Bursty { rate_per_s: v.rate_per_s, cv: v.cv }),
            2 => variant(rest)
                .map(|v: ClosedLoop| Arrival::ClosedLoop { users: v.users, think_time_ms: v.think_time_ms }),
            _ => variant(rest).map(|v: Trace| Arrival::Trace { path: v.path, speedup: v.speedup }),
        };
        a.map_err(de::Error::custom)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "struct variant LengthDist::Fixed with 1 element")]
struct Fixed {
    value: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "struct variant LengthDist::Uniform with 2 elements")]
struct Uniform {
    min: u32,
    max: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "struct variant LengthDist::Lognormal with 2 elements")]
struct Lognormal {
    mean: f64,
    sigma: f64,
}

impl<'de> Deserialize<'de> for LengthDist {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (kind, rest) = read(d, &LengthDist::KINDS, "internally tagged enum LengthDist")?;
        let l = match kind {
            0 => variant(rest).map(|v: Fixed| LengthDist::Fixed { value: v.value }),
            1 => variant(rest).map(|v: Uniform| LengthDist::Uniform { min: v.min, max: v.max }),
            _ => variant(rest).map(|v: Lognormal| LengthDist::Lognormal { mean: v.mean, sigma: v.sigma }),
        };
        l.map_err(de::Error::custom)
    }
}
