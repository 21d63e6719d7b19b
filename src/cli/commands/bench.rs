//! `qptable bench`: the SPEC §7 figures of each configuration.

use anyhow::Result;
use qptable::config_files;
use qptable_testbench::markdown::Stamp;
use qptable_testbench::perf::{self, report, PerfOptions};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// Configuration files (may be repeated); default: every `configs/*.toml`.
    #[arg(long = "config")]
    configs: Vec<PathBuf>,
    /// Lookups per port in the throughput phase.
    #[arg(long, default_value_t = 100_000)]
    lookups: u64,
    /// Timed cycles of each Verilator speed run.
    #[arg(long, default_value_t = 5_000_000)]
    speed_cycles: u64,
    /// Cycles of each rust-hdl speed run.
    #[arg(long, default_value_t = 20_000)]
    rust_hdl_cycles: u64,
    /// Seed of the lookup traffic.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// in_memory configurations: latency of the bench's memory, cycles.
    #[arg(long, default_value_t = 10)]
    mem_latency: u64,
    /// Print the figures as the Markdown of BENCHMARKS.md (stamped with the commit, the
    /// machine and the tools) on stdout; the progress goes to stderr.
    #[arg(long)]
    markdown: bool,
}

pub fn run(args: &Args) -> Result<()> {
    let configs = if args.configs.is_empty() {
        config_files::in_dir(Path::new("configs"))?
            .into_iter()
            .map(|s| (s.name, s.config))
            .collect()
    } else {
        let mut v = vec![];
        for p in &args.configs {
            v.push(config_files::from_file(p)?);
        }
        v
    };
    let opts = PerfOptions {
        lookups: args.lookups,
        speed_cycles: args.speed_cycles,
        rust_hdl_cycles: args.rust_hdl_cycles,
        seed: args.seed,
        mem_latency: args.mem_latency,
        ..Default::default()
    };
    let reports = if args.markdown {
        // Stamped before the run: the commit and tools measured, whatever changes meanwhile.
        let stamp = Stamp::now(&[]);
        eprint!("{}", report::header(&opts));
        let reports = perf::run(&configs, &opts, &mut |r| eprint!("{}", r.text()))?;
        print!("{}", report::markdown(&reports, &opts, &stamp));
        reports
    } else {
        print!("{}", report::header(&opts));
        perf::run(&configs, &opts, &mut |r| print!("{}", r.text()))?
    };
    let bad: usize = reports.iter().map(|r| r.mismatches.len()).sum();
    if bad > 0 {
        anyhow::bail!("{bad} mismatches against the reference model");
    }
    Ok(())
}
