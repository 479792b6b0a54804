//! The scenario editor's controls as data: one [`Control`] row per setting (id, translation keys,
//! unit, kind, slider range, where it shows), plus the slider maths and the parsing of what was
//! typed. The rows themselves are in [`crate::control_table`]: each names its row of
//! `sim_core::settings` (path, ranges, reading and writing) and adds the page's part; the app
//! renders them with one field widget per kind.
//!
//! A control's id is its scenario path without class indices (`scheduler.max_num_seqs`,
//! `classes.arrival.rate_per_s`); [`Control::path`] puts the class index back
//! (`classes[1].arrival.rate_per_s`), which is also what sim-core's field errors name.

use sim_core::decimal::parse_f64;
use sim_core::settings::{self, Setting, Value};
use sim_core::Scenario;

pub use crate::control_table::{control, CONTROLS};

/// Slider positions of a logarithmic slider (0 ..= `LOG_STEPS`).
pub const LOG_STEPS: f64 = 1000.0;

/// How a slider maps its position to a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Linear,
    /// Equal ratios per step: for values spanning orders of magnitude.
    Log,
}

/// Range and step of a numeric control.
#[derive(Clone, Copy, Debug)]
pub struct Range {
    pub min: f64,
    pub max: f64,
    /// Upper end that depends on the scenario (e.g. the model's context length).
    pub max_of: Option<fn(&Scenario) -> f64>,
    pub scale: Scale,
    pub integer: bool,
    /// Slider step of a linear slider (0: any).
    pub step: f64,
    /// The setting can be switched off (`None` in the scenario); the value it takes when
    /// switched on.
    pub optional: Option<f64>,
}

/// Why what was typed is not a value the control takes (worded by
/// [`crate::messages::typed_message`] with the control's label, unit and allowed range). What
/// was typed is kept in the message: it is refused, never read as something else.
#[derive(Clone, Debug, PartialEq)]
pub enum TypedError {
    /// Nothing typed.
    Empty,
    NotANumber {
        text: String,
    },
    /// A comma where English and Chinese write a decimal point ("0,9"); `point`: the text with
    /// a point ("0.9"). A comma between groups of three digits ("1,024") is a thousands
    /// separator and is read.
    DecimalComma {
        text: String,
        point: String,
    },
    /// Too large to be a number ("1e999").
    NotFinite {
        text: String,
    },
    /// A fraction for a whole-number control.
    NotWhole {
        text: String,
    },
    /// A number outside the range the setting allows.
    OutOfRange {
        got: f64,
    },
}

/// Reads a decimal number as English and Chinese write it: a point for decimals, commas only
/// as thousands separators between groups of three digits (`1,024`, `1,000,000.5`). Any other
/// comma (`0,9`, `1,5`, `12,34`) is refused as a decimal comma, with the point reading offered:
/// the lab never turns "0,9" into 9 or 0.9 by itself.
pub fn read_decimal(text: &str) -> Result<f64, TypedError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(TypedError::Empty);
    }
    let plain = if t.contains(',') {
        if !thousands(t) {
            let point = t.replace(',', ".");
            return Err(if parse_f64(&point).is_some() && t.matches(',').count() == 1 {
                TypedError::DecimalComma { text: t.to_string(), point }
            } else {
                TypedError::NotANumber { text: t.to_string() }
            });
        }
        t.replace(',', "")
    } else {
        t.to_string()
    };
    let v = parse_f64(&plain).ok_or_else(|| TypedError::NotANumber { text: t.to_string() })?;
    if v.is_nan() {
        return Err(TypedError::NotANumber { text: t.to_string() });
    }
    if !v.is_finite() {
        return Err(TypedError::NotFinite { text: t.to_string() });
    }
    Ok(v)
}

/// Reads a seed: a whole number 0 ..= 2^64 − 1 (thousands separators allowed); anything else
/// (`abc`, `-1`, `1.5`, `0,9`) is refused, never read as another seed.
pub fn read_seed(text: &str) -> Option<u64> {
    let t = text.trim();
    let t = if t.contains(',') && thousands(t) { t.replace(',', "") } else { t.to_string() };
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

/// Whether the commas of `t` separate thousands: `[sign]d{1,3}(,ddd)+[.digits]`.
fn thousands(t: &str) -> bool {
    let t = t.strip_prefix(['-', '+']).unwrap_or(t);
    let int = t.split_once('.').map_or(t, |(i, _)| i);
    let mut groups = int.split(',');
    let first = groups.next().unwrap_or("");
    let digits = |g: &str| g.bytes().all(|b| b.is_ascii_digit());
    (1..=3).contains(&first.len()) && digits(first) && groups.all(|g| g.len() == 3 && digits(g))
}

impl Range {
    /// A range from `min` to `max` on `scale`: not whole, no slider step, not optional.
    pub const fn new(min: f64, max: f64, scale: Scale) -> Range {
        Range { min, max, max_of: None, scale, integer: false, step: 0.0, optional: None }
    }

    /// Whole numbers only (slider step 1).
    pub const fn whole(self) -> Range {
        Range { integer: true, step: 1.0, ..self }
    }

    /// Slider step `step` (linear sliders).
    pub const fn step(self, step: f64) -> Range {
        Range { step, ..self }
    }

    /// May be switched off; `on` is the value it takes when switched on.
    pub const fn optional(self, on: f64) -> Range {
        Range { optional: Some(on), ..self }
    }

    /// Upper end read from the scenario.
    pub const fn max_of(self, f: fn(&Scenario) -> f64) -> Range {
        Range { max_of: Some(f), ..self }
    }

    /// Upper end for scenario `s` (never below the lower end).
    pub fn max_for(&self, s: &Scenario) -> f64 {
        self.max_of.map_or(self.max, |f| f(s)).max(self.min)
    }

    /// The slider element's `min`, `max` and `step`: positions for a log slider, values for a
    /// linear one (`step` 0 means any).
    pub fn slider_bounds(&self, max: f64) -> (f64, f64, f64) {
        match self.scale {
            Scale::Log => (0.0, LOG_STEPS, 1.0),
            Scale::Linear => (self.min, max.max(self.max.min(max)), self.step),
        }
    }

    /// Slider position of value `v` (clamped into the range) when the upper end is `max`.
    pub fn slider_of(&self, max: f64, v: f64) -> f64 {
        match self.scale {
            Scale::Log => {
                let v = v.clamp(self.min, max);
                (v / self.min).ln() / (max / self.min).ln() * LOG_STEPS
            }
            Scale::Linear => v.clamp(self.min, max),
        }
    }

    /// Value at slider position `x`: whole numbers rounded, log values to two significant digits.
    pub fn value_at(&self, max: f64, x: f64) -> f64 {
        let v = match self.scale {
            Scale::Log => self.min * (max / self.min).powf((x / LOG_STEPS).clamp(0.0, 1.0)),
            Scale::Linear => x.clamp(self.min, max),
        };
        if self.integer {
            v.round()
        } else if self.scale == Scale::Log {
            round_sig(v, 2)
        } else {
            v
        }
    }

    /// Reads what was typed ([`read_decimal`]): a whole number for whole-number controls, and
    /// within `allowed` (the setting's range for this scenario, `Control::allowed`). A value
    /// outside it is refused, not clipped: the draft keeps its last good value.
    pub fn read(&self, text: &str, allowed: (f64, f64)) -> Result<f64, TypedError> {
        let v = read_decimal(text)?;
        if self.integer && v.fract() != 0.0 {
            return Err(TypedError::NotWhole { text: text.trim().to_string() });
        }
        if v < allowed.0 || v > allowed.1 {
            return Err(TypedError::OutOfRange { got: v });
        }
        Ok(v)
    }
}

/// `v` rounded to `digits` significant digits (positive finite values; others as they are).
pub fn round_sig(v: f64, digits: i32) -> f64 {
    if v <= 0.0 || !v.is_finite() {
        return v;
    }
    let mag = 10f64.powi(v.log10().floor() as i32 - digits + 1);
    (v / mag).round() * mag
}

/// Where the editor shows a control. Sections are shown in this order; the class sections repeat
/// in every class's card.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    /// Model, GPUs, precision, price.
    Model,
    /// A class's arrival process.
    Arrivals,
    /// A class's request count.
    Requests,
    /// A class's prompt length distribution.
    InputLength,
    /// A class's output length distribution.
    OutputLength,
    /// A class's SLOs.
    Slo,
    /// A class's priority and reserved share (isolation only).
    Isolation,
    /// Batching and scheduler limits.
    Batching,
    /// KV layout and context length.
    KvLayout,
    /// Memory share and out-of-memory behaviour.
    KvMemory,
    /// Queue limits.
    Queue,
}

impl Section {
    /// A traffic class's section: shown in each class's card (the editor puts the cards where
    /// the arrivals stand).
    pub fn per_class(self) -> bool {
        use Section::*;
        matches!(self, Arrivals | Requests | InputLength | OutputLength | Slo | Isolation)
    }
}

/// The editor's groups (collapsible panels), in order, with their heading keys.
pub const GROUPS: [(&str, &[Section]); 5] = [
    ("ctl.group.model", &[Section::Model]),
    (
        "ctl.group.workload",
        &[
            Section::Arrivals,
            Section::Requests,
            Section::InputLength,
            Section::OutputLength,
            Section::Slo,
            Section::Isolation,
        ],
    ),
    ("ctl.group.batching", &[Section::Batching]),
    ("ctl.group.kv", &[Section::KvLayout, Section::KvMemory]),
    ("ctl.group.queue", &[Section::Queue]),
];

/// Choices of a drop-down.
#[derive(Clone, Copy, Debug)]
pub enum Options {
    /// Fixed values with translation keys for their texts.
    Keys(&'static [(&'static str, &'static str)]),
    /// The catalogue's models.
    Models,
    /// A draft model: none (a draft head, "") or one of the catalogue's models.
    DraftModels,
    /// The catalogue's GPUs.
    Gpus,
    /// The built-in traces, by name.
    Traces,
    /// The engine profiles (`sim_core::profile::Engine::ALL`), by product name.
    Engines,
}

/// A control at one place: its id and, for class settings, the class index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct At {
    pub id: &'static str,
    pub class: usize,
}

/// How the editor shows a control.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// A slider and a number box (the range is sim-core's row's slider range).
    Number,
    /// A drop-down.
    Select(Options),
    /// A checkbox.
    Toggle,
}

/// One scenario setting as the editor shows it: sim-core's settings row plus the page's part.
#[derive(Clone, Copy)]
pub struct Control {
    /// The page's id: the scenario path without class indices (`classes.arrival.rate_per_s`;
    /// a length's kind is `classes.input_tokens`). Locks and test ids use it.
    pub id: &'static str,
    /// The row of `sim_core::settings` (path, kind, ranges, reading and writing).
    pub setting: &'static str,
    /// Translation key of the label.
    pub label: &'static str,
    /// Translation key of the definition (shown on the label).
    pub def: &'static str,
    /// Unit: a translation key (`unit.tokens`) or a symbol (`ms`); "" for none.
    pub unit: &'static str,
    pub section: Section,
    /// Shown only when this holds too (beyond sim-core reading a value for it: the burstiness
    /// of a Poisson class has none).
    pub when: fn(&Scenario, At) -> bool,
    pub kind: Kind,
    /// A number the editor reads otherwise than the file says it (the price in effect).
    pub read: Option<fn(&Scenario) -> Option<f64>>,
    /// Upper end of the slider read from the scenario.
    pub slider_max_of: Option<fn(&Scenario) -> f64>,
}

impl Control {
    /// sim-core's row.
    pub fn row(&self) -> Option<&'static Setting> {
        settings::find(self.setting)
    }

    /// Whether it is a setting of each class (its path holds a class index).
    pub fn per_class(&self) -> bool {
        self.id.starts_with("classes.")
    }

    /// Its scenario path for class `class`: `classes[1].slo.ttft_ms`; the id itself for settings
    /// of the whole scenario. sim-core's field errors name it.
    pub fn path(&self, class: usize) -> String {
        match self.id.strip_prefix("classes.") {
            Some(rest) => format!("classes[{class}].{rest}"),
            None => self.id.to_string(),
        }
    }

    fn get(&self, s: &Scenario, class: usize) -> Option<Value> {
        self.row()?.get(s, class)
    }

    fn put(&self, s: &mut Scenario, class: usize, v: Value) {
        // a value the row refuses leaves the draft as it is (the field keeps showing it)
        if let Some(row) = self.row() {
            let _ = row.set(s, class, &v);
        }
    }

    /// Whether it applies to scenario `s` (for class `class`).
    pub fn applies_to(&self, s: &Scenario, class: usize) -> bool {
        (self.when)(s, At { id: self.id, class }) && self.get(s, class).is_some()
    }

    /// A number control's value (`None`: switched off, or not a number).
    pub fn number(&self, s: &Scenario, class: usize) -> Option<f64> {
        match self.read {
            Some(read) => read(s),
            None => self.get(s, class)?.as_f64(),
        }
    }

    /// Sets a number control (`None` switches an optional one off).
    pub fn set_number(&self, s: &mut Scenario, class: usize, v: Option<f64>) {
        self.put(s, class, v.map_or(Value::Off, Value::Number));
    }

    /// A drop-down's value ("" for an optional one that is unset).
    pub fn choice(&self, s: &Scenario, class: usize) -> String {
        match self.get(s, class) {
            Some(Value::Text(t)) => t,
            Some(Value::Number(x)) => format!("{x}"),
            _ => String::new(),
        }
    }

    /// Picks a drop-down's value ("" unsets an optional one).
    pub fn set_choice(&self, s: &mut Scenario, class: usize, v: &str) {
        let value = match self.row().map(|r| &r.kind) {
            Some(settings::Kind::Number(_)) => match parse_f64(v) {
                Some(x) => Value::Number(x),
                None => return,
            },
            _ if v.is_empty() => Value::Off,
            _ => Value::Text(v.to_string()),
        };
        self.put(s, class, value);
    }

    /// A toggle's state.
    pub fn checked(&self, s: &Scenario) -> bool {
        matches!(self.get(s, 0), Some(Value::Bool(true)))
    }

    /// Switches a toggle.
    pub fn set_checked(&self, s: &mut Scenario, v: bool) {
        self.put(s, 0, Value::Bool(v));
    }

    /// The values the setting allows for class `class` of `s` (sim-core's row's range, which may
    /// follow the scenario: a model's context).
    pub fn allowed(&self, s: &Scenario, class: usize) -> (f64, f64) {
        self.row().and_then(|r| r.number()).map_or((f64::MIN, f64::MAX), |n| n.range(s, class))
    }

    /// The slider's range: sim-core's row's slider range and hints.
    pub fn range(&self) -> Option<Range> {
        let n = self.row()?.number()?;
        Some(Range {
            min: n.slider.0,
            max: n.slider.1,
            max_of: self.slider_max_of,
            scale: if n.log { Scale::Log } else { Scale::Linear },
            integer: n.integer,
            step: n.step,
            // a number read in effect is never off
            optional: if self.read.is_some() { None } else { n.optional },
        })
    }
}

/// The controls of `section`, in the editor's order.
pub fn in_section(section: Section) -> impl Iterator<Item = &'static Control> {
    CONTROLS.iter().filter(move |c| c.section == section)
}

/// A scenario path without its class indices: `classes[1].slo.ttft_ms` → `classes.slo.ttft_ms`.
pub fn plain_path(path: &str) -> String {
    let mut plain = String::with_capacity(path.len());
    let mut depth = 0u32;
    for ch in path.chars() {
        match ch {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            _ if depth == 0 => plain.push(ch),
            _ => {}
        }
    }
    plain
}

/// A path as an element id: every character other than a letter or digit becomes `-`.
pub fn element_id(path: &str) -> String {
    path.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: Range = Range::new(1.0, 1024.0, Scale::Log).whole();
    const LIN: Range = Range::new(0.3, 1.0, Scale::Linear).step(0.01);
    const RATE: Range = Range::new(0.1, 200.0, Scale::Log);

    #[test]
    fn a_class_section_holds_exactly_the_class_settings() {
        for c in CONTROLS.iter() {
            assert_eq!(c.section.per_class(), c.id.starts_with("classes."), "{}", c.id);
        }
    }

    #[test]
    fn log_slider_round_trips_its_ends_and_rounds() {
        assert_eq!(LOG.slider_of(1024.0, 1.0), 0.0);
        assert!((LOG.slider_of(1024.0, 1024.0) - LOG_STEPS).abs() < 1e-9);
        assert_eq!(LOG.value_at(1024.0, 0.0), 1.0);
        assert_eq!(LOG.value_at(1024.0, LOG_STEPS), 1024.0);
        // the middle of 1 .. 1024 on a log scale is 32
        assert_eq!(LOG.value_at(1024.0, 500.0), 32.0);
        // out-of-range positions and values clamp
        assert_eq!(LOG.value_at(1024.0, 5000.0), 1024.0);
        assert_eq!(LOG.slider_of(1024.0, 1e9), LOG.slider_of(1024.0, 1024.0));
        // non-integer log values keep two significant digits
        let v = RATE.value_at(200.0, 437.0);
        assert_eq!(v, round_sig(v, 2));
        assert_eq!(round_sig(1234.0, 2), 1200.0);
        assert_eq!(round_sig(0.0, 2), 0.0);
    }

    #[test]
    fn linear_slider_clamps() {
        assert_eq!(LIN.slider_of(1.0, 0.1), 0.3);
        assert_eq!(LIN.value_at(1.0, 0.55), 0.55);
        assert_eq!(LIN.value_at(1.0, 7.0), 1.0);
        assert_eq!(LIN.slider_bounds(1.0), (0.3, 1.0, 0.01));
        assert_eq!(LOG.slider_bounds(1024.0), (0.0, LOG_STEPS, 1.0));
    }

    #[test]
    fn read_refuses_what_it_would_have_to_guess() {
        let all = (f64::MIN, f64::MAX);
        assert_eq!(LOG.read(" 1,024 ", all), Ok(1024.0));
        assert_eq!(LIN.read("1,000,000.5", all), Ok(1_000_000.5));
        assert_eq!(LIN.read("0.5", all), Ok(0.5));
        let text = |t: &str| t.to_string();
        assert_eq!(LIN.read("abc", all), Err(TypedError::NotANumber { text: text("abc") }));
        assert_eq!(LIN.read("nan", all), Err(TypedError::NotANumber { text: text("nan") }));
        assert_eq!(LIN.read("  ", all), Err(TypedError::Empty));
        assert_eq!(LIN.read("inf", all), Err(TypedError::NotFinite { text: text("inf") }));
        assert_eq!(LIN.read("1e999", all), Err(TypedError::NotFinite { text: text("1e999") }));
        // a decimal comma is refused with the point reading, never read as 9
        assert_eq!(LIN.read("0,9", all), Err(TypedError::DecimalComma { text: text("0,9"), point: text("0.9") }));
        assert_eq!(LIN.read("12,34", all), Err(TypedError::DecimalComma { text: text("12,34"), point: text("12.34") }));
        assert_eq!(LIN.read("1,2,3", all), Err(TypedError::NotANumber { text: text("1,2,3") }));
        assert_eq!(LOG.read("2.5", all), Err(TypedError::NotWhole { text: text("2.5") }));
        // outside the setting's range: refused with the number, not clipped
        assert_eq!(LOG.read("-3", (1.0, 4096.0)), Err(TypedError::OutOfRange { got: -3.0 }));
        assert_eq!(LIN.read("-1", (1e-6, 1e6)), Err(TypedError::OutOfRange { got: -1.0 }));
        assert_eq!(LOG.read("99999", (1.0, 4096.0)), Err(TypedError::OutOfRange { got: 99999.0 }));
        assert_eq!(LOG.read("4096", (1.0, 4096.0)), Ok(4096.0));
        assert_eq!(read_seed(" 42 "), Some(42));
        assert_eq!(read_seed("1,000"), Some(1000));
        assert_eq!(read_seed("18446744073709551615"), Some(u64::MAX));
        for bad in ["abc", "", "-1", "1.5", "0,9", "18446744073709551616", "+3", "1e3"] {
            assert_eq!(read_seed(bad), None, "{bad}");
        }
    }

    #[test]
    fn paths() {
        assert_eq!(plain_path("classes[1].slo.ttft_ms"), "classes.slo.ttft_ms");
        assert_eq!(plain_path("scheduler.batching"), "scheduler.batching");
        assert_eq!(element_id("classes[0].arrival.rate_per_s"), "classes-0--arrival-rate-per-s");
        let rate = control("classes.arrival.rate_per_s").map(|c| c.path(2));
        assert_eq!(rate.as_deref(), Some("classes[2].arrival.rate_per_s"));
        assert_eq!(control("scheduler.max_num_seqs").map(|c| c.path(3)).as_deref(), Some("scheduler.max_num_seqs"));
    }
}
