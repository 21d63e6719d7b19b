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
    /// Fail (exit 1) when the engine's Fmax over the adder's is below this.
    #[arg(long, value_name = "X")]
    min_ratio: Option<f64>,
}

pub fn run(args: &Args) -> Result<()> {
    if let Some(min) = args.min_ratio {
        if !(min.is_finite() && min > 0.0) {
            anyhow::bail!("--min-ratio = {min} is not allowed: a number > 0 (e.g. 0.75)");
        }
    }
    let cfg = args.config.load()?;
    let opts = SynthOptions {
        work_dir: args.work_dir.clone(),
        seed: args.seed,
        freq_mhz: args.freq,
        skip_generic: args.skip_generic,
    };
    let report = synth::run(&cfg, &opts, &mut |s| println!("{s}"))?;
    print!("{}", report.text());
    if let Some(min) = args.min_ratio {
        let r = report.ratio();
        if r < min {
            anyhow::bail!(
                "Fmax ratio {r:.3} of {} is below --min-ratio {min}",
                report.top
            );
        }
        println!("Fmax ratio {r:.3} >= --min-ratio {min}: met");
    }
    Ok(())
}
