//! `qptable wave`: the waveform pictures of docs/integration.md.

use super::ConfigArgs;
use anyhow::Result;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    config: ConfigArgs,
    /// Output directory of the SVG files.
    #[arg(short = 'o', long = "out", default_value = "docs/waves")]
    out: PathBuf,
    /// Where to write the VCD trace.
    #[arg(long, default_value = "target/qptable-wave/scenarios.vcd")]
    vcd: PathBuf,
}

pub fn run(args: &Args) -> Result<()> {
    let cfg = args.config.load()?;
    // Before the simulation: a bad path is found in milliseconds, not after the trace.
    super::check_output_dir(&args.out)?;
    super::check_output_file(&args.vcd)?;
    for path in qptable_testbench::wave::docs_waves(&cfg, &args.vcd, &args.out)? {
        outln!("wrote {}", path.display())?;
    }
    Ok(())
}
