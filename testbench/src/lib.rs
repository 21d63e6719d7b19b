//! Shared fixture of the testbenches.
pub mod campaign;
pub mod tools;
pub mod xsim;
