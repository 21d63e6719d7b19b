//! `qptable`: the command-line tool, a thin layer over the library.

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use qptable::config::Config;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "qptable",
    version,
    about = "QP table lookup engine generator for RDMA NICs"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Args, Clone)]
struct ConfigArgs {
    /// Configuration file (TOML); parameters not given take their defaults.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Set one parameter, `name=value` (after the file; may be repeated).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
}

impl ConfigArgs {
    fn load(&self) -> anyhow::Result<Config> {
        let mut cfg = match &self.config {
            Some(path) => Config::from_toml_file(path)?,
            None => Config::default(),
        };
        for s in &self.set {
            cfg.set(s)?;
        }
        cfg.validate()?;
        Ok(cfg)
    }
}

#[derive(Subcommand)]
enum Cmd {
    /// Validate the configuration and write `<top>.v`.
    Gen {
        #[command(flatten)]
        config: ConfigArgs,
        /// Output directory.
        #[arg(short = 'o', long = "out", default_value = ".")]
        out: PathBuf,
    },
    /// Generate, build the Verilator model, and run a checked random campaign on every port.
    Demo {
        #[command(flatten)]
        config: ConfigArgs,
        /// Seed of the random campaign.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Lookups per port.
        #[arg(long, default_value_t = 100_000)]
        lookups: u64,
        /// Write a VCD trace of the run to this file.
        #[arg(long)]
        trace: Option<PathBuf>,
    },
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.cmd {
        Cmd::Gen { config, out } => {
            let cfg = config.load()?;
            let verilog = qptable::generate::generate_verilog(&cfg)?;
            let path = out.join(format!("{}.v", cfg.top));
            qptable::generate::write_atomically(&path, &verilog)
                .with_context(|| format!("cannot write {}", path.display()))?;
            println!("wrote {}", path.display());
            Ok(())
        }
        Cmd::Demo {
            config,
            seed,
            lookups,
            trace,
        } => {
            let cfg = config.load()?;
            let report = qptable::demo::run(&cfg, seed, lookups, trace.as_deref())?;
            print!("{report}");
            if report.mismatches > 0 {
                anyhow::bail!(
                    "{} mismatches against the reference model",
                    report.mismatches
                );
            }
            Ok(())
        }
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
