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
        /// Directory for the Verilog that is simulated (`<top>.v`).
        #[arg(short = 'o', long = "out", default_value = "out")]
        out: PathBuf,
    },
    /// Stale-packet campaign (ABA hazard): late packets rejected or misdirected, per reuse
    /// policy (reuse, quarantine, generation bits), on the reference model (or the hardware).
    Stale(qptable::stale::StaleArgs),
    /// Capacity planner: host memory of a flat vs a two-level table (several leaf_bits) and
    /// on-chip bits, for a QP population placed by the engine's own allocator.
    Plan(qptable::plan::PlanArgs),
    /// ALLOC and FREE latency in cycles at 0, 50, 99.9 and 100 % full.
    #[command(name = "cmd-latency")]
    AllocLatency {
        /// index_bits of the tables to measure.
        #[arg(long, value_delimiter = ',', default_value = "14,24")]
        index_bits: Vec<u32>,
        /// ALLOC + FREE pairs timed at each fill level.
        #[arg(long, default_value_t = 200)]
        samples: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Measure SPEC §7: lookups per cycle, latency, command cycles and simulation speed
    /// (Rust over Verilator, C++ Verilator main, rust-hdl) for each configuration.
    Bench {
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
    },
    /// Synthesize and place-and-route for ECP5-85F (yosys, nextpnr-ecp5 from PyPI, installed
    /// when missing): LUTs, FFs, block RAMs and Fmax beside a registered 64-bit adder.
    Synth {
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
    },
    /// Run the scenarios of docs/integration.md with a trace and render their waveforms
    /// as SVG.
    Wave {
        #[command(flatten)]
        config: ConfigArgs,
        /// Output directory of the SVG files.
        #[arg(short = 'o', long = "out", default_value = "docs/waves")]
        out: PathBuf,
        /// Where to write the VCD trace.
        #[arg(long, default_value = "target/qptable-wave/scenarios.vcd")]
        vcd: PathBuf,
    },
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.cmd {
        Cmd::Stale(args) => qptable::stale::cli(&args),
        Cmd::Plan(args) => qptable::plan::cli(&args),
        Cmd::AllocLatency {
            index_bits,
            samples,
            seed,
        } => {
            for b in index_bits {
                print!("{}", qptable::cmd_latency::run(b, samples, seed)?);
            }
            Ok(())
        }
        Cmd::Gen { config, out } => {
            let cfg = config.load()?;
            let verilog = qptable::generate::generate_verilog(&cfg)?;
            let path = out.join(format!("{}.v", cfg.top));
            qptable::generate::write_atomically(&path, &verilog)
                .with_context(|| format!("cannot write {}", path.display()))?;
            println!("wrote {}", path.display());
            let path = out.join(qptable::generate::instantiation_template_name(&cfg));
            qptable::generate::write_atomically(
                &path,
                &qptable::generate::instantiation_template(&cfg)?,
            )
            .with_context(|| format!("cannot write {}", path.display()))?;
            println!("wrote {}", path.display());
            let memory = qptable::generate::on_chip_memory(&cfg);
            let mut total = 0;
            for (name, words, bits) in &memory {
                println!("  {name}: {words} x {bits} bits = {} bits", words * bits);
                total += words * bits;
            }
            println!(
                "  on-chip memory in all: {total} bits ({:.1} KiB)",
                total as f64 / 8192.0
            );
            Ok(())
        }
        Cmd::Demo {
            config,
            seed,
            lookups,
            trace,
            out,
        } => {
            let cfg = config.load()?;
            let path = out.join(format!("{}.v", cfg.top));
            qptable::generate::write_atomically(&path, &qptable::generate::generate_verilog(&cfg)?)
                .with_context(|| format!("cannot write {}", path.display()))?;
            println!(
                "generated {} (simulated below with Verilator)",
                path.display()
            );
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
        Cmd::Bench {
            configs,
            lookups,
            speed_cycles,
            rust_hdl_cycles,
            seed,
            mem_latency,
        } => {
            let configs = if configs.is_empty() {
                qptable::perf::shipped_configs(std::path::Path::new("configs"))?
            } else {
                let mut v = vec![];
                for p in &configs {
                    let cfg = Config::from_toml_file(p)?;
                    cfg.validate()?;
                    let stem = p.file_stem().unwrap_or_default().to_string_lossy();
                    v.push((stem.into_owned(), cfg));
                }
                v
            };
            let opts = qptable::perf::PerfOptions {
                lookups,
                speed_cycles,
                rust_hdl_cycles,
                seed,
                mem_latency,
                ..Default::default()
            };
            let reports = qptable::perf::run(&configs, &opts)?;
            let bad: usize = reports.iter().map(|r| r.mismatches.len()).sum();
            if bad > 0 {
                anyhow::bail!("{bad} mismatches against the reference model");
            }
            Ok(())
        }
        Cmd::Synth {
            config,
            seed,
            freq,
            work_dir,
            skip_generic,
        } => {
            let cfg = config.load()?;
            let opts = qptable::synth::SynthOptions {
                work_dir,
                seed,
                freq_mhz: freq,
                skip_generic,
            };
            let report = qptable::synth::run(&cfg, &opts, &mut |s| println!("{s}"))?;
            print!("{}", report.text());
            Ok(())
        }
        Cmd::Wave { config, out, vcd } => {
            let cfg = config.load()?;
            for path in qptable::wave::docs_waves(&cfg, &vcd, &out)? {
                println!("wrote {}", path.display());
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
