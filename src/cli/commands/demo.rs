//! `qptable demo`: generates the engine, builds its Verilator model and runs the checked
//! random campaign on every port.

use super::ConfigArgs;
use anyhow::Result;
use qptable::generate;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    config: ConfigArgs,
    /// Seed of the random campaign.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Lookups per port (1..=10000000).
    #[arg(long, default_value_t = 100_000)]
    lookups: u64,
    /// Write a VCD trace of the run to this file.
    #[arg(long)]
    trace: Option<PathBuf>,
    /// Directory for the Verilog that is simulated (`<top>.v`).
    #[arg(short = 'o', long = "out", default_value = "out")]
    out: PathBuf,
}

pub fn run(args: &Args) -> Result<()> {
    let cfg = args.config.load()?;
    // Before anything is written or built.
    qptable_testbench::demo::check_lookups(args.lookups)?;
    super::check_output_dir(&args.out)?;
    if let Some(trace) = &args.trace {
        super::check_output_file(trace)?;
    }
    let path = args.out.join(format!("{}.v", cfg.top));
    generate::write_all_or_nothing(&[(&path, &generate::generate_verilog(&cfg)?)])?;
    outln!(
        "generated {} (simulated below with Verilator)",
        path.display()
    )?;
    let report =
        qptable_testbench::demo::run(&cfg, args.seed, args.lookups, args.trace.as_deref())?;
    out!("{report}")?;
    if report.mismatches > 0 {
        anyhow::bail!(
            "{} mismatches against the reference model",
            report.mismatches
        );
    }
    Ok(())
}
