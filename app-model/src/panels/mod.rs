//! The panels beside the stage as data: the metrics panel's lines and figures (`metrics`), the
//! HBM gauge's segments and the KV-per-token formula's words (`hbm`), a cluster's replica tiles
//! (`replicas`), and the definitions' translation keys (`defs`). The page maps them to elements.

pub mod defs;
pub mod hbm;
pub mod legend;
pub mod live;
pub mod metrics;
pub mod replicas;
pub mod sections;
pub mod trust;

pub use crate::limit_badge::Text;
