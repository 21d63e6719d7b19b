//! qptable: generator of the QP table lookup engine of an RDMA NIC.
//!
//! This crate is the product: the configuration, the hardware blocks, the Verilog generator,
//! the reference model and the model-level studies (capacity plan, stale packets). It does not
//! depend on the Verilator harness: the benches that drive the emitted Verilog live in the
//! `qptable-testbench` crate (`testbench/`), the `qptable` command in `qptable-cli`
//! (`cli/`).

pub mod config;
pub mod config_files;
pub mod formal;
pub mod generate;
pub mod hw;
pub mod mem_image;
pub mod model;
pub mod plan;
pub mod spec;
pub mod stale;
pub mod tidy;
