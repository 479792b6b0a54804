//! # lab-content: what the lab teaches with the engine
//!
//! Guided lessons ([`lessons`]), classroom exercises ([`exercise`]), the resource contract's
//! acceptance test ([`contract`]), sweeps ([`sweep`]), `vllm bench serve`-style benchmarks
//! ([`bench`]), the replay of published measurements ([`calibration`]), fits of the engine's
//! constants ([`fit`]) and how far to trust the numbers ([`trust`]).
//!
//! Built on sim-core's public API only: it runs scenarios and reads their summaries, and owns no
//! physics, no scheduling and no page state. Like sim-core it knows no locale, panel or test id
//! and uses no clock or I/O.

pub mod bench;
pub mod calibration;
pub mod contract;
pub mod exercise;
pub mod fit;
pub mod lessons;
pub mod plan;
pub mod sweep;
pub mod trust;
