//! The HBM gauge as data: the split of a replica's GPU memory into segments (weights,
//! activations, KV in use, KV reserved but empty, cached prefixes, KV free, what lives outside
//! the budget, headroom) with each one's share of the capacity, the utilisation watermark and
//! the peak-KV mark; and the KV-per-token formula in words, filled in with the model's numbers
//! beside the article's simplified one.

use sim_core::catalog::{AttentionForm, ModelSpec};
use sim_core::memory::{article_kv_elements_per_token, kv_bytes_per_token, HbmPlan};
use sim_core::scenario::Scenario;
use sim_core::sim::HbmUse;

use super::{defs, Text};
use crate::format;
use crate::words::Words;

/// One segment of the gauge: its key (CSS class `seg-…`, test id `hbm-…`), label, definition
/// and bytes.
pub struct Segment {
    pub key: &'static str,
    pub label: &'static str,
    pub def: &'static str,
    pub bytes: fn(&HbmUse) -> f64,
}

impl Segment {
    /// Its share of the capacity, in [0, 1] (a negative headroom draws nothing).
    pub fn share(&self, h: &HbmUse) -> f64 {
        share(h, (self.bytes)(h).max(0.0))
    }

    /// Whether the legend lists it for the run on screen (`s`): the cached prefixes only where
    /// prefix caching is on.
    pub fn listed(&self, s: Option<&Scenario>) -> bool {
        self.key != "kv-cached" || s.is_some_and(Scenario::caches_prefixes)
    }
}

fn share(h: &HbmUse, bytes: f64) -> f64 {
    if h.capacity > 0.0 {
        bytes / h.capacity
    } else {
        0.0
    }
}

/// The gauge's segments, left to right.
pub const SEGMENTS: [Segment; 8] = [
    Segment { key: "weights", label: "hbm.weights", def: defs::WEIGHTS, bytes: |h| h.weights },
    Segment { key: "activations", label: "hbm.activations", def: defs::ACTIVATIONS, bytes: |h| h.activations },
    Segment { key: "kv-used", label: "hbm.kv_used", def: defs::KV_USED, bytes: |h| h.kv_used },
    Segment { key: "kv-waste", label: "hbm.kv_waste", def: defs::KV_WASTE, bytes: |h| h.kv_waste },
    Segment { key: "kv-cached", label: "hbm.kv_cached", def: defs::KV_CACHED, bytes: |h| h.kv_cached },
    Segment { key: "kv-free", label: "hbm.kv_free", def: defs::KV_FREE, bytes: |h| h.kv_free },
    Segment { key: "outside", label: "hbm.outside", def: defs::OUTSIDE, bytes: |h| h.outside_budget },
    Segment { key: "headroom", label: "hbm.headroom", def: defs::HEADROOM, bytes: |h| h.headroom },
];

/// The gauge now.
#[derive(Clone, Debug, PartialEq)]
pub struct Gauge {
    /// Each segment's width, a CSS percentage ("12.345%"), in [`SEGMENTS`] order.
    pub widths: Vec<String>,
    /// Each segment's size ("12.3 GiB"), in [`SEGMENTS`] order.
    pub sizes: Vec<String>,
    /// The utilisation watermark's place, a CSS percentage.
    pub watermark: String,
    /// The watermark sits in the left third (its label goes to the right).
    pub low_watermark: bool,
    /// The most KV held at once so far, where it reaches on the bar (CSS percentage); `None`
    /// before any was held.
    pub peak: Option<String>,
    /// The peak mark is near the right end (its label goes to the line's left).
    pub peak_late: bool,
    /// An over-committed server eats into the headroom.
    pub over: bool,
    /// The run's numbers are in (else the empty gauge).
    pub measured: bool,
}

impl Gauge {
    /// The gauge for `h`, with the run's peak of KV held (`kv_peak_bytes`).
    pub fn new(h: &HbmUse, kv_peak_bytes: f64) -> Gauge {
        let limit = if h.capacity > 0.0 { h.utilization_limit / h.capacity } else { 1.0 };
        let peak_at = share(h, h.weights + h.activations + kv_peak_bytes);
        Gauge {
            widths: SEGMENTS.iter().map(|s| format!("{:.3}%", s.share(h) * 100.0)).collect(),
            sizes: SEGMENTS.iter().map(|s| format::gib((s.bytes)(h))).collect(),
            watermark: format!("{:.2}%", limit * 100.0),
            low_watermark: h.capacity > 0.0 && limit < 0.35,
            peak: (kv_peak_bytes > 0.0).then(|| format!("{:.2}%", (peak_at * 100.0).clamp(0.0, 100.0))),
            peak_late: h.capacity > 0.0 && peak_at > 0.7,
            over: h.headroom < -1.0,
            measured: true,
        }
    }

    /// Before the first numbers.
    pub fn empty() -> Gauge {
        Gauge {
            widths: vec!["0%".into(); SEGMENTS.len()],
            sizes: vec![format::NONE.into(); SEGMENTS.len()],
            watermark: "90%".into(),
            low_watermark: false,
            peak: None,
            peak_late: false,
            over: false,
            measured: false,
        }
    }

    /// Segment `i`'s tooltip: its name and size (none before the run's numbers).
    pub fn title(&self, w: &dyn Words, i: usize) -> String {
        if self.measured {
            format!("{}: {}", w.t(SEGMENTS[i].label), self.sizes[i])
        } else {
            String::new()
        }
    }

    /// The split in words, for screen readers: the lead-in, then each segment and its size.
    pub fn aria(&self, w: &dyn Words) -> String {
        let lead = w.t("hbm.aria");
        if !self.measured {
            return lead;
        }
        let parts: Vec<String> =
            SEGMENTS.iter().zip(&self.sizes).map(|(s, size)| format!("{} {size}", w.t(s.label))).collect();
        format!("{lead}: {}", parts.join(", "))
    }
}

/// The KV-per-token formula of a run's model in words.
#[derive(Clone, Debug, PartialEq)]
pub struct Formula {
    /// The lab's formula with the model's numbers, its bytes per token and the size.
    pub lab: Text,
    pub lab_bytes: String,
    pub lab_size: Text,
    /// The article's simplified formula and its values per token.
    pub article: Text,
    pub article_values: Text,
    /// Why the two differ for this model's attention form.
    pub why: Text,
    /// For which layers "KV grows per token" holds (sliding windows, linear attention).
    pub grows: Vec<Text>,
    /// What the pool stores per token when it differs (replicated over the GPUs).
    pub stored: Option<Text>,
}

fn t(key: &'static str, args: Vec<(&'static str, String)>) -> Text {
    Text { key, args }
}

impl Formula {
    pub fn new(m: &ModelSpec, s: &Scenario, plan: &HbmPlan) -> Formula {
        let kv = s.kv_dtype();
        let per_token = kv_bytes_per_token(m, kv.bytes());
        let name = if m.name.is_empty() { m.id.clone() } else { m.name.clone() };
        let f = &plan.kv;
        let attn_layers = f.full_layers + f.window_layers;
        let bytes = ("bytes", format::plain(kv.bytes()));
        let dtype = ("dtype", kv.name().to_string());
        let hidden = ("hidden", format::int(u64::from(m.hidden_size)));
        let (why, lab) = match f.form {
            AttentionForm::Mla => {
                let rank = ("rank", f.kv_lora_rank.to_string());
                let rope = ("rope", f.qk_rope_head_dim.to_string());
                (
                    t(
                        "hbm.why_mla",
                        vec![
                            ("model", name),
                            rank.clone(),
                            rope.clone(),
                            ("heads", m.num_attention_heads.to_string()),
                            hidden.clone(),
                            bytes.clone(),
                            dtype.clone(),
                        ],
                    ),
                    t("hbm.formula_mla", vec![("layers", attn_layers.to_string()), rank, rope, bytes, dtype]),
                )
            }
            form => {
                let why = if form == AttentionForm::Gqa {
                    t(
                        "hbm.why_gqa",
                        vec![
                            hidden.clone(),
                            ("heads", m.num_attention_heads.to_string()),
                            ("model", name),
                            ("kv_heads", m.num_kv_heads.to_string()),
                            ("head_dim", m.head_dim.to_string()),
                            bytes.clone(),
                            dtype.clone(),
                        ],
                    )
                } else {
                    t("hbm.why_mha", vec![("model", name), bytes.clone(), dtype.clone()])
                };
                let lab = t(
                    "hbm.formula_lab",
                    vec![
                        ("layers", attn_layers.to_string()),
                        ("kv_heads", m.num_kv_heads.to_string()),
                        ("head_dim", m.head_dim.to_string()),
                        bytes,
                        dtype,
                    ],
                );
                (why, lab)
            }
        };
        let mut grows = Vec::new();
        if f.window_layers > 0 {
            grows.push(t(
                "hbm.grows_window",
                vec![
                    ("full", f.full_layers.to_string()),
                    ("layers", m.num_layers.to_string()),
                    ("n", f.window_layers.to_string()),
                    ("window", format::int(u64::from(f.window))),
                    ("past", format::bytes(f.bytes_per_token_past_window())),
                ],
            ));
        }
        if f.linear_layers > 0 {
            grows.push(t(
                "hbm.grows_linear",
                vec![
                    ("attn", attn_layers.to_string()),
                    ("layers", m.num_layers.to_string()),
                    ("n", f.linear_layers.to_string()),
                    ("state", format::bytes(f.state_bytes)),
                ],
            ));
        }
        // the pool counts one token per layer group: a token inside every window is one token
        // of each group
        let g = &plan.pool_growth;
        let stored = plan.kv_bytes_per_token * (g.full_groups + g.window_groups) as f64;
        Formula {
            lab,
            lab_bytes: format::int(per_token.round() as u64),
            lab_size: t("hbm.formula_lab_per_token", vec![("size", format::bytes(per_token))]),
            article: t("hbm.formula_article", vec![("layers", m.num_layers.to_string()), hidden]),
            article_values: t("hbm.values", vec![("n", format::int(article_kv_elements_per_token(m).round() as u64))]),
            why,
            grows,
            stored: ((stored - per_token).abs() > 0.5)
                .then(|| t("hbm.stored", vec![("size", format::bytes(stored)), ("n", s.num_gpus.to_string())])),
        }
    }
}

/// Whether run B shows its own formula beside run A's: only when it differs (another model or
/// KV dtype; or nothing to compare with yet).
pub fn b_formula_differs(a: Option<(&ModelSpec, &Scenario)>, b: Option<(&ModelSpec, &Scenario)>) -> bool {
    match (a, b) {
        (Some((ma, sa)), Some((mb, sb))) => ma != mb || sa.kv_dtype() != sb.kv_dtype(),
        _ => true,
    }
}

/// The watermark's label: the share of HBM the server may use.
pub fn watermark(s: &Scenario) -> Text {
    t("hbm.limit", vec![("pct", format!("{:.0}", s.gpu_memory_utilization * 100.0))])
}

/// The peak mark's label: the most KV held at once so far.
pub fn peak(kv_peak_bytes: f64) -> Text {
    t("hbm.peak", vec![("size", format::gib(kv_peak_bytes))])
}

/// The capacity line: the replica's HBM, its GPUs and their name.
pub fn capacity(plan: &HbmPlan, s: &Scenario, gpu: &sim_core::catalog::GpuSpec) -> Text {
    let name = if gpu.name.is_empty() { gpu.id.clone() } else { gpu.name.clone() };
    t("hbm.capacity", vec![("size", format::gib(plan.capacity_bytes)), ("n", s.num_gpus.to_string()), ("gpu", name)])
}

/// The KV pool's line: its size and the tokens it holds.
pub fn pool(plan: &HbmPlan) -> Text {
    t("hbm.pool", vec![("size", format::gib(plan.kv_capacity_bytes)), ("tokens", format::int(plan.kv_capacity_tokens))])
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

    fn hbm() -> HbmUse {
        HbmUse {
            capacity: 80.0 * GIB,
            weights: 16.0 * GIB,
            activations: 4.0 * GIB,
            kv_used: 20.0 * GIB,
            kv_waste: 2.0 * GIB,
            kv_free: 26.0 * GIB,
            kv_cached: 0.0,
            outside_budget: 4.0 * GIB,
            headroom: 8.0 * GIB,
            utilization_limit: 72.0 * GIB,
        }
    }

    #[test]
    fn the_legend_lists_the_cached_prefixes_only_with_prefix_caching() {
        let preset = |id| Scenario::from_json(sim_core::presets::find(id).expect("preset").json).expect("reads");
        let unlisted =
            |s: Option<&Scenario>| SEGMENTS.iter().filter(|g| !g.listed(s)).map(|g| g.key).collect::<Vec<_>>();
        let (plain, cached) = (preset(sim_core::presets::DEFAULT_PRESET), preset("prefix-caching"));
        assert!(!plain.caches_prefixes() && cached.caches_prefixes());
        assert_eq!(unlisted(None), vec!["kv-cached"], "nothing on screen: every segment but the cached prefixes");
        assert_eq!(unlisted(Some(&plain)), vec!["kv-cached"]);
        assert_eq!(unlisted(Some(&cached)), Vec::<&str>::new());
    }

    #[test]
    fn segments_share_the_capacity() {
        let h = hbm();
        let shares: Vec<f64> = SEGMENTS.iter().map(|s| s.share(&h)).collect();
        assert_eq!(shares, [0.2, 0.05, 0.25, 0.025, 0.0, 0.325, 0.05, 0.1]);
        assert!((shares.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let g = Gauge::new(&h, 30.0 * GIB);
        assert_eq!(g.widths[0], "20.000%");
        assert_eq!(g.widths[3], "2.500%");
        assert_eq!(g.sizes[0], "16.0 GiB");
        assert_eq!(g.watermark, "90.00%");
        assert!(!g.low_watermark && !g.over);
        // weights + activations + 30 GiB of KV at most: 50 of 80 GiB
        assert_eq!(g.peak.as_deref(), Some("62.50%"));
        assert!(!g.peak_late);
    }

    #[test]
    fn overcommit_eats_the_headroom_and_draws_none_of_it() {
        let mut h = hbm();
        h.headroom = -2.0 * GIB;
        let g = Gauge::new(&h, 70.0 * GIB);
        assert!(g.over);
        assert_eq!(g.widths[7], "0.000%");
        assert_eq!(g.sizes[7], "-2.0 GiB");
        // a peak past the end stays on the bar, its label to the left
        assert_eq!(g.peak.as_deref(), Some("100.00%"));
        assert!(g.peak_late);
    }

    #[test]
    fn no_capacity_no_shares_and_no_peak_before_any_kv() {
        let h = HbmUse { capacity: 0.0, ..hbm() };
        assert!(SEGMENTS.iter().all(|s| s.share(&h) == 0.0));
        let g = Gauge::new(&h, 0.0);
        assert_eq!((g.watermark.as_str(), g.peak, g.low_watermark), ("100.00%", None, false));
        let low = Gauge::new(&HbmUse { utilization_limit: 20.0 * GIB, ..hbm() }, 0.0);
        assert!(low.low_watermark);
        assert_eq!(Gauge::empty().widths.len(), SEGMENTS.len());
    }

    fn preset(id: &str) -> Scenario {
        Scenario::from_json(sim_core::presets::find(id).expect("preset").json).expect("valid")
    }

    #[test]
    fn the_formula_fills_in_the_models_numbers() {
        let s = preset(sim_core::presets::DEFAULT_PRESET);
        let sim = sim_core::Simulation::new(&s).expect("runs");
        let f = Formula::new(sim.model(), &s, sim.hbm_plan());
        let per_token = kv_bytes_per_token(sim.model(), s.kv_dtype().bytes());
        assert_eq!(f.lab_bytes, format::int(per_token.round() as u64));
        let layers = f.lab.args.iter().find(|a| a.0 == "layers").expect("layers");
        assert_eq!(layers.1, (sim.hbm_plan().kv.full_layers + sim.hbm_plan().kv.window_layers).to_string());
        assert_eq!(f.article.args[0], ("layers", sim.model().num_layers.to_string()));
        assert!(f.why.key.starts_with("hbm.why_"));
        assert_eq!(pool(sim.hbm_plan()).key, "hbm.pool");
        assert_eq!(watermark(&s).args, vec![("pct", format!("{:.0}", s.gpu_memory_utilization * 100.0))]);
        assert_eq!(peak(1.5 * GIB).args, vec![("size", "1.5 GiB".to_string())]);
        // B's formula beside A's only when the model or the KV dtype differs
        let m = sim.model();
        assert!(!b_formula_differs(Some((m, &s)), Some((m, &s))));
        let mut fp8 = s.clone();
        fp8.kv_dtype = Some(sim_core::catalog::Dtype::parse("fp8").expect("fp8"));
        assert_ne!(fp8.kv_dtype(), s.kv_dtype());
        assert!(b_formula_differs(Some((m, &s)), Some((m, &fp8))));
        assert!(b_formula_differs(None, Some((m, &s))));
    }

    #[test]
    fn the_gauge_in_words_names_each_segment_once_the_numbers_are_in() {
        use crate::words::Keys;
        let g = Gauge::new(&hbm(), 0.0);
        assert_eq!(g.title(&Keys, 0), format!("hbm.weights: {}", format::gib(16.0 * GIB)));
        let aria = g.aria(&Keys);
        assert!(aria.starts_with(&format!("hbm.aria: hbm.weights {}, hbm.activations ", format::gib(16.0 * GIB))));
        assert_eq!(aria.matches(", ").count(), SEGMENTS.len() - 1);
        let empty = Gauge::empty();
        assert_eq!((empty.title(&Keys, 0), empty.aria(&Keys)), (String::new(), "hbm.aria".to_string()));
    }
}
