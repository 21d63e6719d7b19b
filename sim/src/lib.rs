//! Verilator harness: builds a cycle-accurate model from Verilog text and drives it from
//! Rust, one clock cycle per call.
//!
//! This crate is generic: it knows nothing of the QP table, only of a top module with a
//! clock input (default `clk`), ports of any width, and AXI-style ready/valid buses.
//!
//! ```no_run
//! use qptable_sim::{BuildOptions, Model};
//! let verilog = "module counter(input clk, input rst, output reg [7:0] q);\n\
//!                always @(posedge clk) q <= rst ? 0 : q + 1;\nendmodule\n";
//! let model = Model::build(verilog, "counter", &BuildOptions::default())?;
//! let mut sim = model.instantiate();
//! let (rst, q) = (sim.input("rst")?, sim.output("q")?);
//! sim.set(rst, 1);
//! sim.step();
//! sim.set(rst, 0);
//! sim.step(); // q sampled at this edge: 0 (the reset edge before cleared it)
//! sim.step(); // 1
//! assert_eq!(sim.get(q), 1);
//! # anyhow::Ok(())
//! ```
//!
//! # Step semantics
//!
//! [`Sim::step`] simulates one clock cycle with a single FFI call into a generated C++ shim:
//!
//! 1. with the clock low, every input is set to the value last given to [`Sim::set`] and
//!    the model is evaluated (combinational outputs now reflect this cycle's inputs);
//! 2. every output is copied into the Rust-side array: these are **the values the rising
//!    edge samples**;
//! 3. the clock rises and the model is evaluated (registers take their new values).
//!
//! So after `step()`, [`Sim::get`] returns what the design drove *just before* the edge,
//! with the inputs of that cycle applied; e.g. `valid && ready` read after a step means a
//! handshake happened at that edge, and a registered output shows its value from before
//! the edge (the new value appears after the next step). [`Sim::cycle`] counts edges: after
//! the first step it is 1, and a handshake seen after a step happened at edge
//! `sim.cycle()`. Latency counts edges: a request taken at edge `t` whose response is first
//! seen valid after the step of edge `t + 2` has latency 2.
//!
//! The falling edge is evaluated together with the next cycle's inputs (two evaluations per
//! cycle, as in a plain C++ Verilator main). This is exact for designs that only use rising
//! edges; set [`BuildOptions::falling_edge_eval`] for `negedge` logic. In a VCD written by
//! [`Sim::trace`] the period is 10 time units: inputs change (and the clock falls) at `10k`,
//! the clock rises at `10k + 5`.
//!
//! Inputs keep their values until set again (all 0 at creation). `set` masks to the port's
//! width and `debug_assert!`s that the value fits. Ports wider than 64 bits are supported
//! through [`Sim::set_wide`] / [`Sim::get_wide`].
//!
//! The per-cycle path allocates nothing and hashes nothing: [`In`] and [`Out`] are `Copy`
//! indexes into packed `u64` arrays resolved once by name.
//!
//! # Model cache
//!
//! [`Model::build`] hashes (SHA-256) the Verilog text, the top module name, the
//! [`BuildOptions`] (except `jobs` and `cache_dir`), the Verilator version and
//! [`HARNESS_VERSION`], and keeps the built library in `<cache>/<top>-<hash>/`, where
//! `<cache>` is [`BuildOptions::cache_dir`], else `$QPTABLE_MODEL_CACHE`, else
//! `$CARGO_TARGET_DIR/qptable-models`, else under cargo `<workspace>/target/qptable-models`,
//! else the user's cache `$XDG_CACHE_HOME/qptable/models` or `~/.cache/qptable/models` (see
//! [`default_cache_dir`]). A later build of the same inputs only loads the library
//! ([`Model::was_cached`]). A build runs in a temporary sibling directory that is renamed
//! into place, so concurrent processes building the same model do not collide (the loser
//! of the race uses the winner's result). The Verilator runtime is compiled once per cache
//! (`<cache>/runtime-<hash>/`). A failed build's error holds the tail of the tool output;
//! set `QPTABLE_KEEP_FAILED=1` to keep its work directory. Each library is stored with its
//! SHA-256 (`model.so.sha256`) and loaded only when its bytes still match: a truncated or
//! damaged one (a full disk, a hand edit) is rebuilt, not loaded (a truncated library can
//! kill the process with SIGBUS). A build also removes the temporary directories that builds
//! killed more than an hour ago left behind. Deleting the cache directory is always safe.
//!
//! Requirements at run time: `verilator` (5.x), `make`, `g++` and `ar` on the `PATH`.
//!
//! # Agents
//!
//! An [`Agent`] has `drive(&mut Sim)`, called before the step to set its inputs, and
//! `observe(&Sim)`, called after it to see what the edge sampled. [`step_agents`] runs one
//! cycle for a set of agents, so a testbench can drive many buses in one loop:
//!
//! * [`StreamSource`]: feeds a ready/valid stream (`<prefix>valid/ready/<field>...`) from a
//!   queue of [`Beat`]s, with optional random idle cycles between beats, and records the
//!   handshake cycle of each beat;
//! * [`StreamSink`]: takes a stream with optional random backpressure, records beats with
//!   their handshake cycle, and checks the design's side of the protocol (valid held with a
//!   stable payload until the handshake), recording [`Violation`]s;
//! * [`AxiLiteMaster`]: queued AXI4-Lite writes and reads (a read may proceed while a write
//!   waits for its response), optional random delays and B/R backpressure, checks of the
//!   slave's responses, plus blocking `write`/`read` for directed tests;
//! * [`axi_mem::AxiMemory`]: an AXI4 memory slave over a sparse byte memory for a design that
//!   is an AXI4 master: reads, and writes when the design has the AW/W/B channels, with
//!   latency, backpressure, ordering, error injection, outstanding limits, statistics and
//!   checks of the master's side of the protocol.
//!
//! Random behaviour comes from `StdRng`s seeded by the caller, so a failing seed can be
//! replayed.

mod agents;
pub mod axi_mem;
mod model;
mod shim;
mod sim;
pub mod tool;

pub use agents::{
    run_until, step_agents, Agent, AxiLiteMaster, AxiResp, AxilDone, AxilKind, Beat, StreamSink,
    StreamSource, Violation, MAX_FIELDS,
};
pub use model::{
    default_cache_dir, BuildOptions, CppSpeed, Model, CACHE_ENV, HARNESS_VERSION, KEEP_FAILED_ENV,
};
pub use sim::{Dir, In, Out, Port, Sim};
