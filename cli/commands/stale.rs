//! `qptable stale`: the stale-packet campaign (`qptable::stale`) on the reference model, and
//! with `--hardware` on the generated Verilog too (`qptable_testbench::stale_hw`).

use anyhow::{bail, ensure, Result};
use qptable::config::Reuse;
use qptable::stale::{self, describe, format_rows, table, StaleParams, Victim};
use qptable_testbench::stale_hw::run_on_hardware;

/// Which live QP a churn step destroys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum VictimArg {
    /// Any live QP, uniformly: every QP has the same expected lifetime.
    Random,
    /// The most recently created live QP: one hot slot of short-lived QPs next to long-lived
    /// ones (the pattern that reissues one index fastest).
    Newest,
}

impl From<VictimArg> for Victim {
    fn from(v: VictimArg) -> Victim {
        match v {
            VictimArg::Random => Victim::Random,
            VictimArg::Newest => Victim::Newest,
        }
    }
}

#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// Indexes of the table (max_qps).
    #[arg(long, default_value_t = 1024)]
    pub max_qps: u32,
    /// Lowest index ALLOC hands out.
    #[arg(long, default_value_t = 2)]
    pub first_index: u32,
    /// QPs kept alive.
    #[arg(long, default_value_t = 1000)]
    pub live: u32,
    /// Edges between two commands (a QP is replaced every 3 commands) [default: 16; with
    /// --hardware 128, room for a command and the lookups of the packets that arrived before
    /// it: 16 is too dense for the hardware, measured 64 too at 9 000 commands].
    #[arg(long)]
    pub cmd_interval: Option<u64>,
    /// Largest packet delay, in edges.
    #[arg(long, default_value_t = 10_000)]
    pub max_delay: u64,
    /// Churn steps.
    #[arg(long, default_value_t = 100_000)]
    pub steps: u64,
    /// Packets sent per churn step.
    #[arg(long, default_value_t = 10)]
    pub packets_per_step: u32,
    /// Which QP a step destroys; one table per value.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [VictimArg::Random, VictimArg::Newest])]
    pub victim: Vec<VictimArg>,
    /// Quarantine queue depth.
    #[arg(long, default_value_t = 4096)]
    pub quarantine_depth: u32,
    /// Run one policy instead of the grid: this index_bits (default 24) with --reuse
    /// (default lowest) and --quarantine-cycles (default 0); any of the three selects it.
    #[arg(long)]
    pub index_bits: Option<u32>,
    /// One policy (see --index-bits): cyclic or lowest.
    #[arg(long)]
    pub reuse: Option<String>,
    /// One policy (see --index-bits).
    #[arg(long)]
    pub quarantine_cycles: Option<u64>,
    /// Also run the single policy on the generated Verilog in Verilator; fails if its counts
    /// differ from the model's.
    #[arg(long)]
    pub hardware: bool,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// `--cmd-interval` when not given, for the model alone and with `--hardware`.
pub const CMD_INTERVAL: u64 = 16;
pub const HARDWARE_CMD_INTERVAL: u64 = 128;

pub fn run(args: &Args) -> Result<()> {
    let single =
        args.index_bits.is_some() || args.reuse.is_some() || args.quarantine_cycles.is_some();
    ensure!(
        single || !args.hardware,
        "--hardware runs one policy: give --index-bits, --reuse and --quarantine-cycles"
    );
    for victim in args.victim.iter().map(|&v| Victim::from(v)) {
        let mut base = StaleParams {
            max_qps: args.max_qps,
            first_index: args.first_index,
            live: args.live,
            cmd_interval: args.cmd_interval.unwrap_or(if args.hardware {
                HARDWARE_CMD_INTERVAL
            } else {
                CMD_INTERVAL
            }),
            max_delay: args.max_delay,
            steps: args.steps,
            packets_per_step: args.packets_per_step,
            victim,
            quarantine_depth: args.quarantine_depth,
            seed: args.seed,
            ..StaleParams::default()
        };
        if !single {
            stale::validate_grid(&base)?;
            outln!("{}\n", table(&base))?;
            continue;
        }
        base.index_bits = args.index_bits.unwrap_or(24);
        base.quarantine_cycles = args.quarantine_cycles.unwrap_or(0);
        base.reuse = match args.reuse.as_deref().unwrap_or("lowest") {
            "cyclic" => Reuse::Cyclic,
            "lowest" => Reuse::Lowest,
            other => bail!("reuse = {other:?} is not allowed: allowed cyclic, lowest"),
        };
        base.validate()?;
        let model = stale::run(&base);
        outln!("{}\n", describe(&base))?;
        out!("{}", format_rows(std::slice::from_ref(&model)))?;
        if args.hardware {
            let start = std::time::Instant::now();
            let hw = run_on_hardware(&base)?;
            outln!(
                "\nthe same run on the generated Verilog (Verilator, every command and lookup \
                 checked against the model by the scoreboard), {:.1} s:\n",
                start.elapsed().as_secs_f64()
            )?;
            out!("{}", format_rows(std::slice::from_ref(&hw)))?;
            ensure!(hw == model, "the hardware's counts differ from the model's");
            outln!("\nthe hardware's counts equal the model's")?;
        }
        outln!()?;
    }
    Ok(())
}
