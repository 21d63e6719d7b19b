//! Shared fixture of the testbenches.
pub mod campaign;
pub mod comb_ports;
pub mod tools;
pub mod xsim;
