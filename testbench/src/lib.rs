//! Shared fixture of the testbenches.
pub mod campaign;
