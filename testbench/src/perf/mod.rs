//! `qptable bench`: the performance figures of SPEC §7, measured in Verilator cycles
//! ([`measure`]; simulation speed in [`speed`]) and written as text or as the Markdown of
//! `BENCHMARKS.md` ([`report`]; `qptable bench --markdown`).

pub mod measure;
pub mod report;
pub mod speed;

pub use measure::*;
pub use speed::*;
