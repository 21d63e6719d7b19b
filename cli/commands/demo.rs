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
    /// Write a VCD trace of the run to this file (large: hundreds of MB at the default
    /// --lookups; its expected size is printed after the init sweep). Written to a temporary
    /// beside it and renamed at the end.
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
    // The trace is written beside its final name and renamed at the end, so that a failed or
    // interrupted run leaves no truncated trace over an old one.
    let trace = args.trace.as_ref().map(|t| {
        let name = t
            .file_name()
            .map_or_else(Default::default, |n| n.to_string_lossy());
        (
            t,
            t.with_file_name(format!(".{name}.qptable-{}.tmp", std::process::id())),
        )
    });
    let tmp = trace.as_ref().map(|(_, tmp)| tmp.as_path());
    let run =
        qptable_testbench::demo::run(&cfg, args.seed, args.lookups, tmp, &mut |l| noteln!("{l}"));
    if let Some((trace, tmp)) = &trace {
        if run.is_err() {
            let _ = std::fs::remove_file(tmp);
        } else if let Err(e) = std::fs::rename(tmp, trace) {
            let _ = std::fs::remove_file(tmp);
            anyhow::bail!("cannot write {}: {e}", trace.display());
        }
    }
    let report = run?;
    out!("{report}")?;
    if report.mismatches > 0 {
        anyhow::bail!(
            "{} mismatches against the reference model",
            report.mismatches
        );
    }
    Ok(())
}
