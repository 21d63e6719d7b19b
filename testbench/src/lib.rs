//! Shared fixture of the testbenches.
