//! qptable: generator of the QP table lookup engine of an RDMA NIC.

pub mod bench;
pub mod cmd_latency;
pub mod config;
pub mod demo;
pub mod generate;
pub mod hw;
pub mod model;
pub mod perf;
pub mod plan;
pub mod scoreboard;
pub mod spec;
pub mod stale;
pub mod synth;
pub mod wave;
