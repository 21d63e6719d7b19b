//! The benches of qptable and everything that drives the emitted Verilog in Verilator
//! (through the `qptable-sim` harness), shared by the tests of this crate and the commands of
//! `qptable-cli`:
//!
//! * fixtures: [`bench`](mod@bench) (generate + build + reset + every agent in one cycle loop),
//!   [`scoreboard`] (every response and command checked against the reference model),
//!   [`tb`] (a bench with an independent monitor of every lookup handshake), [`configs`]
//!   (the configuration builders of the tests, the model build lock), [`block`] (one hardware
//!   block alone in Verilator, for the block-level tests), [`tools`] (external
//!   tools), [`comb_ports`] (a static check of the emitted Verilog), [`comb_paths`] (the
//!   combinational paths from the top module's inputs to its outputs, found with yosys);
//! * campaigns and measurements that return values: [`campaign`], [`demo`], [`perf`],
//!   [`cmd_latency`], [`stale_hw`], [`synth`], [`wave`], [`xsim`] (the same stimulus on
//!   Verilator and Icarus, compared cycle by cycle).
pub mod bench;
pub mod block;
pub mod campaign;
pub mod cmd_latency;
pub mod comb_paths;
pub mod comb_ports;
pub mod configs;
pub mod demo;
pub mod markdown;
pub mod perf;
pub mod scoreboard;
pub mod stale_hw;
pub mod synth;
pub mod tb;
pub mod tools;
pub mod wave;
pub mod xsim;

/// Behavioural simulation model of the Lattice DP16KD (the subset `fpga = ecp5` instantiates):
/// yosys 0.23's `ecp5/cells_sim.v` declares the primitive without behaviour.
pub const DP16KD_MODEL: &str = include_str!("dp16kd_model.v");

/// The Verilog of `cfg` as the simulators take it: the emitted Verilog, followed with `fpga =
/// ecp5` by [`DP16KD_MODEL`].
pub fn sim_verilog(cfg: &qptable::config::Config) -> anyhow::Result<String> {
    let mut v = qptable::generate::generate_verilog(cfg)?;
    if cfg.fpga == qptable::config::Fpga::Ecp5 {
        v.push('\n');
        v.push_str(DP16KD_MODEL);
    }
    Ok(v)
}
