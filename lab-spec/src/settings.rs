//! Every scenario setting a learner or a file can set, as one table ([`SETTINGS`]): a stable id,
//! the JSON path (with `{i}` for a class index), the kind (number with its allowed range, the
//! editor's slider range and step; a choice among options; a toggle; text), the unit, whether a
//! sweep may turn it, whether a lock can hold it ([`Lock`]), what it is when a file leaves it out
//! ([`Omitted`]: the same for every engine profile, or the profile's own for the GPU or its own
//! engine constant), and the
//! translation keys of its words, derived from the id by one rule ([`Keys`]).
//!
//! Scenario validation takes its ranges from the rows, so a field's message
//! ("scheduler.max_num_seqs must be 1..=4096, got 0") comes from its row; the editor, the
//! contract form, sweeps, locks, share links and `llmsim sweep` read the same rows. Reading and
//! writing by id goes through the scenario's JSON form, so a row is data, not code, and the
//! consistency tests check that every path exists.

mod custom;
mod rows;
mod write;

use crate::message::Problem;
use crate::metric::Unit;
use crate::scenario::{EngineConfig, FieldError, Scenario, SchedulerDefaults};
use serde_json::Value as Json;

pub use crate::fix::{Bound, Fix};
pub use crate::value::{fmt_num, Value};
pub use rows::{GROUPS, SETTINGS};

/// A numeric setting's ranges and editor hints.
#[derive(Clone, Copy, Debug)]
pub struct Number {
    /// Smallest value validation accepts (unless `min_of` gives one for the scenario).
    pub min: f64,
    /// Largest value validation accepts (unless `max_of` gives one for the scenario).
    pub max: f64,
    /// A lower bound that depends on the scenario and class (a uniform length's max ≥ its min).
    pub min_of: Option<fn(&Scenario, usize) -> f64>,
    /// An upper bound that depends on the scenario (`max_model_len` ≤ the model's context).
    pub max_of: Option<fn(&Scenario, usize) -> f64>,
    /// The only values allowed, when not empty (`num_gpus`: 1, 2, 4, 8).
    pub choices: &'static [f64],
    /// The editor's slider range (narrower than what validation accepts).
    pub slider: (f64, f64),
    /// Slider step; 0 for a free (or logarithmic) slider.
    pub step: f64,
    pub integer: bool,
    /// The slider is logarithmic.
    pub log: bool,
    /// The setting can be switched off; the value it takes when switched on.
    pub optional: Option<f64>,
}

impl Number {
    /// The allowed range for class `i` of `s`.
    pub fn range(&self, s: &Scenario, i: usize) -> (f64, f64) {
        (self.min_of.map_or(self.min, |f| f(s, i)), self.max_of.map_or(self.max, |f| f(s, i)))
    }

    /// Why `x` is not allowed (validation's problem: `must be 1..=4096, got 0`).
    pub fn check(&self, s: &Scenario, i: usize, x: f64) -> Option<Problem> {
        if !self.choices.is_empty() {
            if self.choices.contains(&x) {
                return None;
            }
            return Some(Problem::OneOf { choices: self.choices.to_vec(), got: x });
        }
        let (min, max) = self.range(s, i);
        if x.is_finite() && x >= min && x <= max {
            None
        } else {
            Some(Problem::Range { min, max, got: x })
        }
    }
}

/// What kind of value a setting holds.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Number(Number),
    /// One of a list of options (catalogue ids, enum names). `optional`: may be unset (`kv_dtype`).
    Select {
        options: fn() -> Vec<String>,
        optional: bool,
    },
    Toggle,
    /// Free text (a class's name).
    Text,
}

/// The translation keys of a setting's words, derived from its id by one rule (the rows are
/// written with `id!`, which applies it; `tests/settings.rs` checks every row against
/// [`Keys::rule`]): `setting.<id>.label`, `setting.<id>.def` (its definition) and
/// `setting.<id>.lock` (what the lock list calls it, when that is not its label).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keys {
    pub label: &'static str,
    pub def: &'static str,
    pub lock: &'static str,
}

impl Keys {
    /// The rule: the keys of setting `id`.
    pub fn rule(id: &str) -> [String; 3] {
        ["label", "def", "lock"].map(|k| format!("setting.{id}.{k}"))
    }
}

/// Whether a lock (a teacher's link, an exercise) can hold a setting on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lock {
    /// No: an engine constant (files only), or what a lock cannot name by itself.
    No,
    /// Yes, and the lock list shows the setting's label.
    Label,
    /// Yes, and the lock list shows words of its own ([`Keys::lock`]).
    Words,
}

/// What a setting is in a scenario whose file leaves it out.
#[derive(Clone, Copy, Debug)]
pub enum Omitted {
    /// Nothing the table says: the file gives it, or it follows from what the file gives.
    Unsaid,
    /// The engine profile's: this field of the [`SchedulerDefaults`] that
    /// `crate::profile::Engine::defaults` gives for the profile, the GPU and the model's context.
    Profile(fn(&SchedulerDefaults) -> Value),
    /// The engine profile's: this one of the constants `crate::profile::Engine::constants`
    /// gives for the profile.
    Constant(fn(&EngineConfig) -> Value),
    /// The same under every profile.
    Number(f64),
    Bool(bool),
    Text(&'static str),
    Off,
}

impl Omitted {
    /// The value a scenario gets under profile defaults `d` and constants `c` (`None`:
    /// [`Omitted::Unsaid`]).
    pub fn value(&self, d: &SchedulerDefaults, c: &EngineConfig) -> Option<Value> {
        Some(match self {
            Omitted::Unsaid => return None,
            Omitted::Profile(f) => f(d),
            Omitted::Constant(f) => f(c),
            Omitted::Number(x) => Value::Number(*x),
            Omitted::Bool(b) => Value::Bool(*b),
            Omitted::Text(t) => Value::Text(t.to_string()),
            Omitted::Off => Value::Off,
        })
    }
}

/// Reads or writes a setting in Rust where its JSON form cannot say it (the model's catalogue
/// id, switching an arrival process and keeping its rate).
#[derive(Clone, Copy, Debug)]
pub struct Custom {
    pub get: fn(&Scenario, usize) -> Option<Value>,
    pub set: fn(&mut Scenario, usize, &Value) -> Result<(), Problem>,
}

/// One row of the table.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    /// Stable id (`max_num_seqs`, `rate_per_s`): sweeps, the CLI, the page's label keys.
    pub id: &'static str,
    /// JSON path; `{i}` stands for the class index (`classes[{i}].arrival.rate_per_s`).
    pub path: &'static str,
    pub kind: Kind,
    pub unit: Unit,
    /// `llmsim sweep --param` and the sweep tab accept it.
    pub sweep: bool,
    /// Set in scenario files only; the editor does not show it (the engine's constants).
    pub file_only: bool,
    pub custom: Option<Custom>,
    /// Whether a lock can hold it on its own (a row a group of [`GROUPS`] covers is locked by
    /// its group).
    pub lock: Lock,
    /// What it is when a file leaves it out.
    pub omitted: Omitted,
    /// Its words' translation keys (`setting.<id>.label`, …).
    pub keys: Keys,
}

impl Setting {
    /// One value per class.
    pub fn per_class(&self) -> bool {
        self.path.contains("{i}")
    }

    /// The path of class `i`'s value (`classes[2].arrival.rate_per_s`).
    pub fn path_of(&self, i: usize) -> String {
        self.path.replace("{i}", &i.to_string())
    }

    /// The id locks use: the path without class indices (`classes.arrival.rate_per_s`).
    pub fn lock_id(&self) -> String {
        self.path.replace("[{i}]", "")
    }

    pub fn number(&self) -> Option<&Number> {
        match &self.kind {
            Kind::Number(n) => Some(n),
            _ => None,
        }
    }

    /// Whether the setting can be switched off.
    pub fn optional(&self) -> bool {
        match &self.kind {
            Kind::Number(n) => n.optional.is_some(),
            Kind::Select { optional, .. } => *optional,
            _ => false,
        }
    }

    /// The value for class `i` (ignored for a whole-scenario setting); `None` when the setting
    /// does not apply (`cv` of a Poisson class, a class that does not exist).
    pub fn get(&self, s: &Scenario, i: usize) -> Option<Value> {
        if self.per_class() && i >= s.classes.len() {
            return None;
        }
        if let Some(c) = self.custom {
            return (c.get)(s, i);
        }
        self.read(&to_json(s), i)
    }

    fn read(&self, json: &Json, i: usize) -> Option<Value> {
        let (parent, key) = pointer(&self.path_of(i));
        let obj = json.pointer(&parent)?.as_object()?;
        match obj.get(&key) {
            // JSON writes NaN and infinities as null: a number that cannot be off is not finite
            Some(Json::Null) if !self.optional() && self.number().is_some() => Some(Value::Number(f64::NAN)),
            None | Some(Json::Null) => self.optional().then_some(Value::Off),
            Some(Json::Number(n)) => n.as_f64().map(Value::Number),
            Some(Json::String(t)) => Some(Value::Text(t.clone())),
            Some(Json::Bool(b)) => Some(Value::Bool(*b)),
            Some(_) => None,
        }
    }

    /// Sets the value for class `i`. Out-of-range numbers are accepted (validation names them);
    /// a value of the wrong kind, or for a setting that does not apply, is an error.
    pub fn set(&self, s: &mut Scenario, i: usize, v: &Value) -> Result<(), FieldError> {
        let field = self.path_of(i);
        let err = |problem: Problem| FieldError::new(field.clone(), problem);
        if self.per_class() && i >= s.classes.len() {
            return Err(err(Problem::NoClass { class: i, classes: s.classes.len() }));
        }
        let json = self.json_of(v).map_err(err)?;
        if let Some(c) = self.custom {
            return (c.set)(s, i, v).map_err(err);
        }
        let doc = to_json(s);
        let (parent, key) = pointer(&field);
        let obj = doc.pointer(&parent).and_then(Json::as_object).ok_or_else(|| err(Problem::DoesNotApply))?;
        if !obj.contains_key(&key) && !self.optional() {
            return Err(err(Problem::DoesNotApply));
        }
        write::write(s, self.id, i, json).unwrap_or(Err(Problem::DoesNotApply)).map_err(err)
    }

    /// The JSON a value stands for, or why this setting cannot hold it.
    fn json_of(&self, v: &Value) -> Result<Json, Problem> {
        match (&self.kind, v) {
            (_, Value::Off) if self.optional() => Ok(Json::Null),
            (_, Value::Off) => Err(Problem::CannotSwitchOff),
            (Kind::Number(n), Value::Number(x)) => {
                if !x.is_finite() {
                    Err(Problem::NotFinite { got: *x })
                } else if n.integer {
                    if x.fract() != 0.0 || *x < 0.0 {
                        return Err(Problem::NotWhole { got: *x });
                    }
                    Ok(Json::from(*x as u64))
                } else {
                    Ok(Json::from(*x))
                }
            }
            (Kind::Select { .. } | Kind::Text, Value::Text(t)) => Ok(Json::from(t.as_str())),
            (Kind::Toggle, Value::Bool(b)) => Ok(Json::from(*b)),
            (_, _) => Err(Problem::WrongKind),
        }
    }
}

/// The row with this id.
pub fn find(id: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.id == id)
}

/// The fix that sets row `id` to `value` (`bound`: the least, the most, or the one that fits).
/// Panics on an id the table does not hold (the fixes name their rows as constants).
pub fn fix(id: &'static str, value: Value, bound: Bound) -> Fix {
    let row = find(id).unwrap_or_else(|| panic!("no setting {id}"));
    Fix { setting: row.id, path: row.path, value, bound }
}

/// Reads setting `id` (of class `class` for a per-class setting).
pub fn get(s: &Scenario, id: &str, class: usize) -> Option<Value> {
    find(id)?.get(s, class)
}

/// Writes setting `id` (of class `class` for a per-class setting).
pub fn set(s: &mut Scenario, id: &str, class: usize, v: &Value) -> Result<(), FieldError> {
    find(id).ok_or_else(|| FieldError::new(id, Problem::UnknownSetting))?.set(s, class, v)
}

/// Every id a lock (a teacher's link, an exercise) can name, in the order the page offers them
/// (table order): each lockable row by its lock id; a group of [`GROUPS`] in place of the rows it
/// covers, at the first of them (`classes`, the list of classes, before the first class row).
pub fn lock_ids() -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |id: &str| {
        if !out.iter().any(|x| x == id) {
            out.push(id.to_string());
        }
    };
    for row in SETTINGS {
        let id = row.lock_id();
        if row.per_class() {
            push(GROUPS[0]);
        }
        match GROUPS[1..].iter().find(|g| id.starts_with(*g) && id.as_bytes().get(g.len()) == Some(&b'.')) {
            Some(g) => push(g),
            None if row.lock != Lock::No => push(&id),
            None => {}
        }
    }
    out
}

/// The row a lock id names on its own (`None` for a group or an unknown id).
pub fn by_lock_id(id: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|r| r.lock != Lock::No && r.lock_id() == id)
}

/// The rows a sweep may turn, in table order.
pub fn sweepable() -> impl Iterator<Item = &'static Setting> {
    SETTINGS.iter().filter(|s| s.sweep)
}

/// Checks every numeric row against its range; pushes one error per bad value, in table order.
pub(crate) fn check_ranges(s: &Scenario, errors: &mut Vec<FieldError>) {
    let json = to_json(s);
    for row in SETTINGS.iter() {
        let Kind::Number(n) = &row.kind else { continue };
        let classes = if row.per_class() { s.classes.len() } else { 1 };
        for i in 0..classes {
            if let Some(Value::Number(x)) = row.read(&json, i) {
                if let Some(problem) = n.check(s, i, x) {
                    errors.push(FieldError::new(row.path_of(i), problem));
                }
            }
        }
    }
}

/// The scenario as JSON, with the engine constants written out even when they are the defaults.
fn to_json(s: &Scenario) -> Json {
    let mut v = serde_json::to_value(s).expect("a scenario always serialises");
    if let Some(o) = v.as_object_mut() {
        o.entry("engine").or_insert_with(|| serde_json::to_value(&s.engine).expect("serialises"));
    }
    v
}

/// `classes[0].arrival.rate_per_s` → (`/classes/0/arrival`, `rate_per_s`).
fn pointer(path: &str) -> (String, String) {
    let p = format!("/{}", path.replace(['.', '['], "/").replace(']', ""));
    let (parent, key) = p.rsplit_once('/').expect("a path has a key");
    (parent.to_string(), key.to_string())
}
