//! A setting's value as the settings table reads and writes it, and numbers as messages print
//! them. A leaf: the settings table, problems and fixes all name these.

/// A setting's value, as `get` reads it and `set` takes it.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Number(f64),
    Text(String),
    Bool(bool),
    /// An optional setting switched off.
    Off,
}

impl Value {
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(x) => Some(*x),
            _ => None,
        }
    }
}

/// A number as validation messages print it: integers without a fraction.
pub fn fmt_num(x: f64) -> String {
    if x.is_finite() && x == x.trunc() && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}
