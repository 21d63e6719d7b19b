//! `qptable synth`: yosys and nextpnr-ecp5 figures beside a registered 64-bit adder.

use super::ConfigArgs;
use anyhow::Result;
use qptable_testbench::synth::{self, SynthOptions};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    config: ConfigArgs,
    /// nextpnr placer seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// nextpnr target clock in MHz.
    #[arg(long, default_value_t = 250.0)]
    freq: f64,
    /// Directory for the netlists and logs.
    #[arg(long, default_value = "target/qptable-synth")]
    work_dir: PathBuf,
    /// Skip the generic yosys synthesis.
    #[arg(long)]
    skip_generic: bool,
    /// Print the figures as the Markdown of BENCHMARKS.md (stamped with the commit and the
    /// tools) on stdout; the progress goes to stderr.
    #[arg(long)]
    markdown: bool,
}

pub fn run(args: &Args) -> Result<()> {
    let cfg = args.config.load()?;
    let opts = SynthOptions {
        work_dir: args.work_dir.clone(),
        seed: args.seed,
        freq_mhz: args.freq,
        skip_generic: args.skip_generic,
    };
    if args.markdown {
        // Stamped before the run: the commit measured, whatever changes meanwhile.
        let commit = qptable_testbench::markdown::commit();
        let report = synth::run(&cfg, &opts, &mut |s| eprintln!("{s}"))?;
        eprint!("{}", report.text());
        print!("{}", report.markdown(&commit));
    } else {
        let report = synth::run(&cfg, &opts, &mut |s| println!("{s}"))?;
        print!("{}", report.text());
    }
    Ok(())
}
