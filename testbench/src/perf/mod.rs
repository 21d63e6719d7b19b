//! `qptable bench`: the performance figures of SPEC §7, measured in Verilator cycles
//! ([`measure`]; simulation speed in [`speed`]) and written as text or as the Markdown of
//! `BENCHMARKS.md` ([`report`]; `qptable bench --markdown`); lookup workloads drawn from
//! the engine's own live QPNs or from the whole QPN space in [`workload`] (`qptable bench
//! --workload`).

pub mod measure;
pub mod report;
pub mod speed;
pub mod state_mem;
pub mod workload;

pub use measure::*;
pub use speed::*;
