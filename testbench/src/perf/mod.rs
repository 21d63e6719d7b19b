//! `qptable bench`: the performance figures of SPEC §7, measured in Verilator cycles
//! ([`measure`]; simulation speed in [`speed`]) and written as text ([`report`]).

pub mod measure;
pub mod report;
pub mod speed;

pub use measure::*;
pub use speed::*;
