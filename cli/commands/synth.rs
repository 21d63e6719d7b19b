//! `qptable synth`: yosys and nextpnr-ecp5 figures beside a registered 64-bit adder.

use super::ConfigArgs;
use anyhow::{ensure, Result};
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
    /// Fail (exit 1) when the engine's Fmax over the adder's is below this.
    #[arg(long, value_name = "X")]
    min_ratio: Option<f64>,
}

pub fn run(args: &Args) -> Result<()> {
    ensure!(
        args.freq.is_finite() && args.freq > 0.0 && args.freq <= 10_000.0,
        "freq = {} is out of range: allowed a frequency in MHz, above 0 and at most 10000",
        args.freq
    );
    if let Some(min) = args.min_ratio {
        ensure!(
            min.is_finite() && min > 0.0,
            "--min-ratio = {min} is not allowed: a number > 0 (e.g. 0.75)"
        );
    }
    let cfg = args.config.load()?;
    let opts = SynthOptions {
        work_dir: args.work_dir.clone(),
        seed: args.seed,
        freq_mhz: args.freq,
        skip_generic: args.skip_generic,
    };
    let report = if args.markdown {
        // Stamped before the run: the commit measured, whatever changes meanwhile.
        let commit = qptable_testbench::markdown::commit();
        let report = synth::run(&cfg, &opts, &mut |s| noteln!("{s}"))?;
        note!("{}", report.text());
        out!("{}", report.markdown(&commit))?;
        report
    } else {
        // The callback cannot return an error: a closed stdout is kept and returned after the
        // run.
        let mut printed = Ok(());
        let report = synth::run(&cfg, &opts, &mut |s| {
            if printed.is_ok() {
                printed = outln!("{s}");
            }
        })?;
        printed?;
        out!("{}", report.text())?;
        report
    };
    if let Some(min) = args.min_ratio {
        let r = report.ratio();
        ensure!(
            r >= min,
            "Fmax ratio {r:.3} of {} is below --min-ratio {min}",
            report.top
        );
        if !args.markdown {
            outln!("Fmax ratio {r:.3} >= --min-ratio {min}: met")?;
        }
    }
    Ok(())
}
