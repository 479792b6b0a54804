//! A metric of all traffic or of one class, by its path (`classes.chat.ttft_ms.p99`).

use super::Metric;
use crate::metrics::Summary;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A metric of all traffic or of one class: `ttft_ms.p99`, `classes.chat.ttft_ms.p99`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MetricRef {
    pub metric: Metric,
    /// The class's name; `None` for all traffic.
    pub class: Option<String>,
}

impl MetricRef {
    pub fn all(metric: Metric) -> Self {
        MetricRef { metric, class: None }
    }
    pub fn class(metric: Metric, class: impl Into<String>) -> Self {
        MetricRef { metric, class: Some(class.into()) }
    }

    /// Reads `classes.<name>.<metric>` or `<metric>`; the error lists what is known.
    pub fn parse(path: &str) -> Result<MetricRef, String> {
        if let Some(m) = Metric::parse(path) {
            return Ok(MetricRef::all(m));
        }
        if let Some(rest) = path.strip_prefix("classes.") {
            // class names may hold dots: the metric is the longest known suffix
            let found = rest
                .char_indices()
                .filter(|&(_, ch)| ch == '.')
                .find_map(|(i, _)| Metric::parse(&rest[i + 1..]).map(|m| (&rest[..i], m)));
            if let Some((class, m)) = found {
                if !m.per_class() {
                    return Err(format!("metric \"{m}\" is measured for the whole run, not per class"));
                }
                return Ok(MetricRef::class(m, class));
            }
        }
        let names: Vec<String> = Metric::all().into_iter().map(Metric::name).collect();
        Err(format!(
            "unknown metric \"{path}\"; metrics are {} (prefix classes.<name>. for one class)",
            names.join(", ")
        ))
    }

    /// The measured number; `None` when the summary has no such class.
    pub fn read(&self, s: &Summary) -> Option<f64> {
        match &self.class {
            None => Some(self.metric.of(s)),
            Some(c) => s.classes.get(c).and_then(|c| self.metric.of_class(c)),
        }
    }
}

impl fmt::Display for MetricRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.class {
            None => write!(f, "{}", self.metric),
            Some(c) => write!(f, "classes.{c}.{}", self.metric),
        }
    }
}

impl std::str::FromStr for MetricRef {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        MetricRef::parse(s)
    }
}

impl Serialize for MetricRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for MetricRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        MetricRef::parse(&s).map_err(serde::de::Error::custom)
    }
}
