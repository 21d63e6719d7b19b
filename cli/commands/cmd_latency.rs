//! `qptable cmd-latency`: ALLOC and FREE latency in cycles at 0, 50, 99.9 and 100 % full.

use anyhow::Result;

#[derive(clap::Args)]
pub struct Args {
    /// index_bits of the tables to measure.
    #[arg(long, value_delimiter = ',', default_value = "14,24")]
    index_bits: Vec<u32>,
    /// ALLOC + FREE pairs timed at each fill level (1..=1000000).
    #[arg(long, default_value_t = 200)]
    samples: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn run(args: &Args) -> Result<()> {
    // Every value is checked before the first measurement (each builds a Verilator model).
    for &b in &args.index_bits {
        qptable_testbench::cmd_latency::config(b, args.samples)?;
    }
    for &b in &args.index_bits {
        out!(
            "{}",
            qptable_testbench::cmd_latency::run(b, args.samples, args.seed, &mut |l| noteln!(
                "{l}"
            ))?
        )?;
    }
    Ok(())
}
