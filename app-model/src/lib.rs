//! # app-model: the lab page's state and logic, without the DOM
//!
//! Everything the page decides that does not touch the DOM lives here, so that `cargo test` on
//! the host runs it: the table of controls with their translation keys, locks, share state, the
//! controller's runs and frame budget, the budgeted job runner behind lessons, sweeps, contracts
//! and exercises, number formatting, the stage's layout maths, the panels' rows and cells and the
//! charts' lines, axes and words. `app` (leptos) only renders it.
//!
//! It knows no leptos, web-sys or wasm-bindgen; sim-core knows nothing of it.

pub mod ab;
pub mod address;
pub mod charts;
pub mod control_table;
pub mod controls;
pub mod editor;
pub mod embed;
pub mod engine;
pub mod format;
pub mod glyph;
pub mod jobs;
pub mod limit_badge;
pub mod link;
pub mod locale;
pub mod locks;
pub mod messages;
pub mod opening;
pub mod page;
pub mod panels;
pub mod protocol;
pub mod query;
pub mod run;
pub mod scenario_edit;
pub mod share;
pub mod stage;
pub mod stage_layout;
pub mod tabs;
pub mod transport;
pub mod words;

pub use run::Run;
