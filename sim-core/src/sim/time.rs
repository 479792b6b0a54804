//! Simulated time: an integer number of microseconds, so a run is exact and the same everywhere.

/// Simulated time in microseconds.
pub type Micros = u64;
