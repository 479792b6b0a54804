//! What a number is measured in.

use serde::Serialize;

/// What a number is measured in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Milliseconds.
    Ms,
    /// Seconds.
    S,
    /// A share, 0..=1.
    Share,
    /// Requests (a count).
    Requests,
    /// Events counted (preemptions, restarts).
    Count,
    /// Sequences (a count).
    Seqs,
    /// Tokens (a count).
    Tokens,
    /// Closed-loop users (a count).
    Users,
    TokensPerS,
    RequestsPerS,
    Bytes,
    /// Gibibytes (a setting in GiB).
    Gib,
    BytesPerToken,
    Usd,
    UsdPerHour,
    /// A multiplier (trace speed-up).
    Times,
    /// A plain number (coefficient of variation, priority, σ).
    None,
}

impl Unit {
    /// A short symbol for plain-text output (`ms`, `tok/s`, `$`); empty for plain numbers.
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Ms => "ms",
            Unit::S => "s",
            Unit::Share => "share",
            Unit::Requests => "requests",
            Unit::Count => "count",
            Unit::Seqs => "seqs",
            Unit::Tokens => "tokens",
            Unit::Users => "users",
            Unit::TokensPerS => "tok/s",
            Unit::RequestsPerS => "req/s",
            Unit::Bytes => "B",
            Unit::Gib => "GiB",
            Unit::BytesPerToken => "B/token",
            Unit::Usd => "$",
            Unit::UsdPerHour => "$/GPU-h",
            Unit::Times => "×",
            Unit::None => "",
        }
    }
}
