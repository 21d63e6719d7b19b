//! `qptable bench`: the performance figures of SPEC §7, measured in Verilator cycles
//! ([`measure`]) and written as text ([`report`]).

pub mod measure;
pub mod report;

pub use measure::*;
