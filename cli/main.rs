//! `qptable`: the command-line tool. This file only parses the command line and dispatches;
//! each command is a module of `commands/` that calls the library (`qptable`) or the benches
//! (`qptable_testbench`) and prints what they return.

// Every command writes through `out!`/`outln!`/`note!`/`noteln!` (see `output`), never
// `print!` or `eprint!` (they panic when the stream is closed or full).
#![deny(clippy::print_stdout, clippy::print_stderr)]

#[macro_use]
mod output;
mod commands;

use clap::{Parser, Subcommand};
use commands::*;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "qptable",
    version,
    about = "QP table lookup engine generator for RDMA NICs"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate the configuration and write `<top>.v`.
    Gen(gen::Args),
    /// Generate (`<out>/<top>.v`), build the Verilator model, and run a checked random
    /// campaign on every port.
    #[command(after_help = MODEL_CACHE_HELP)]
    Demo(demo::Args),
    /// Stale-packet campaign (ABA hazard): late packets rejected or misdirected, per reuse
    /// policy (reuse, quarantine, generation bits), on the reference model (or the hardware).
    #[command(after_help = MODEL_CACHE_HELP)]
    Stale(stale::Args),
    /// Capacity planner: host memory of a flat vs a two-level table (several leaf_bits) and
    /// on-chip bits, for a QP population placed by the engine's own allocator.
    Plan(plan::Args),
    /// ALLOC and FREE latency in cycles at 0, 50, 99.9 and 100 % full.
    #[command(name = "cmd-latency", after_help = MODEL_CACHE_HELP)]
    CmdLatency(cmd_latency::Args),
    /// Measure SPEC §7: lookups per cycle, latency, command cycles and simulation speed
    /// (Rust over Verilator, C++ Verilator main, rust-hdl) for each configuration. Exit code 0
    /// when every target is met, 3 when the figures were measured and printed but some
    /// target is NOT MET (listed on stderr), 1 on a failure or a mismatch against the model.
    #[command(after_help = MODEL_CACHE_HELP)]
    Bench(bench::Args),
    /// Synthesize and place-and-route for ECP5-85F (yosys, nextpnr-ecp5 from PyPI, installed
    /// when missing): LUTs, FFs, block RAMs and Fmax beside a registered 64-bit adder, the
    /// critical paths, and how many timing endpoints arrive later than the target asks.
    Synth(synth::Args),
    /// Run the scenarios of docs/integration.md with a trace and render their waveforms
    /// as SVG.
    #[command(after_help = MODEL_CACHE_HELP)]
    Wave(wave::Args),
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Gen(args) => gen::run(&args),
        Command::Demo(args) => demo::run(&args),
        Command::Stale(args) => stale::run(&args),
        Command::Plan(args) => plan::run(&args),
        Command::CmdLatency(args) => cmd_latency::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Synth(args) => synth::run(&args),
        Command::Wave(args) => wave::run(&args),
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let code = exit_code(&e);
            if code != 0 {
                noteln!("{}", message(&e));
            }
            ExitCode::from(code)
        }
    }
}

/// The exit code of a run that ended with `e`: 0 when the reader of stdout went away (`|
/// head`: a quiet end, not a failure), [`bench::NotMet::EXIT_CODE`] when the figures were
/// measured and printed but a SPEC target is NOT MET, else 1.
fn exit_code(e: &anyhow::Error) -> u8 {
    if output::is_stdout_closed(e) {
        0
    } else if e.is::<bench::NotMet>() {
        bench::NotMet::EXIT_CODE
    } else {
        1
    }
}

/// The line `main` writes on stderr for `e`: the targets NOT MET as they are, any other error
/// with its causes after `error: `.
fn message(e: &anyhow::Error) -> String {
    if e.is::<bench::NotMet>() {
        e.to_string()
    } else {
        format!("error: {e:#}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_met_exits_3_a_failure_1_a_closed_stdout_0() {
        let not_met = anyhow::Error::from(bench::NotMet(vec!["sm: FREE".into()]));
        assert_eq!(exit_code(&not_met), 3);
        assert_eq!(message(&not_met), "SPEC targets NOT MET: sm: FREE");
        let failed = anyhow::anyhow!("3 mismatches against the reference model");
        assert_eq!(exit_code(&failed), 1);
        assert_eq!(
            message(&failed.context("bench")),
            "error: bench: 3 mismatches against the reference model"
        );
        // What `out!` returns on a closed stdout, also under a context.
        let closed = anyhow::Error::from(output::StdoutClosed).context("bench");
        assert_eq!(exit_code(&closed), 0);
        // Any other I/O error is a failure.
        let io = anyhow::Error::from(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        assert_eq!(exit_code(&io), 1);
    }
}
