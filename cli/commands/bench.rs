//! `qptable bench`: the SPEC §7 figures of each configuration.

use anyhow::{ensure, Result};
use qptable::config_files;
use qptable_testbench::markdown::Stamp;
use qptable_testbench::perf::state_mem::{self, StateMemOptions};
use qptable_testbench::perf::workload::{self, WorkloadOptions, WorkloadSpec, WORKLOAD_SYNTAX};
use qptable_testbench::perf::{self, report, PerfOptions};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// Configuration files (may be repeated); default: every `configs/*.toml`.
    #[arg(long = "config")]
    configs: Vec<PathBuf>,
    /// Lookups per port in the throughput phase (1..=10000000).
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
    /// in_memory configurations: latency of the bench's memory, cycles (1..=10000).
    #[arg(long, default_value_t = 10)]
    mem_latency: u64,
    /// Print the figures as the Markdown of BENCHMARKS.md (stamped with the commit, the
    /// machine and the tools) on stdout; the progress goes to stderr.
    #[arg(long)]
    markdown: bool,
    /// Run this lookup workload instead of the SPEC §7 figures (may be repeated: run in
    /// turn on the same engine and live set). KIND for every port, PORT=KIND,... per port
    /// (the others uniform), or KIND,PORT=KIND,... (KIND the default of the ports not
    /// named). KIND: `uniform` (over the live set), `zipf:S` (Zipf with exponent S in 0..=10
    /// over the live set), `garbage` (uniformly random 24-bit QPNs). E.g.
    /// `--workload tx=zipf:0.99,rx=garbage`. Prints per workload and port the lookups per
    /// cycle, the status mix, memory reads per lookup and the share answered with no memory
    /// access; every response is checked against the model.
    #[arg(long = "workload", value_parser = parse_workload, value_name = "WORKLOAD")]
    workloads: Vec<WorkloadSpec>,
    /// With --workload: QPNs created (ALLOC then PUBLISH, through the control port) before
    /// the workloads (0..=the configuration's ALLOC pool, max_qps - first_index); default:
    /// the pool, at most 4096.
    #[arg(long)]
    live: Option<u32>,
    /// With --workload: lookups per port run before each workload, drawn the same way and
    /// not measured (0..=10000000).
    #[arg(long, default_value_t = 0)]
    warmup: u64,
    /// state in_memory configurations (SPEC §9 targets): QPNs live for the cold, garbage and
    /// flood workloads (SPEC §9: 1048576; the default keeps the set-up to about 2 minutes).
    #[arg(long, default_value_t = state_mem::COLD_LIVE)]
    cold_live: u32,
    /// state in_memory configurations: measured lookups per port of each §9 workload.
    #[arg(long, default_value_t = 50_000)]
    state_lookups: u64,
}

/// `--workload` values, refused with what is allowed.
fn parse_workload(s: &str) -> Result<WorkloadSpec, String> {
    WorkloadSpec::parse(s).map_err(|e| format!("{e:#}; allowed: {WORKLOAD_SYNTAX}"))
}

/// Most lookups per port: they are queued before the throughput phase.
const MAX_LOOKUPS: u64 = 10_000_000;
/// Largest latency of the bench's memory, cycles.
const MAX_MEM_LATENCY: u64 = 10_000;

/// Checks the values before anything is built.
fn check(args: &Args) -> Result<()> {
    ensure!(
        (1..=MAX_LOOKUPS).contains(&args.lookups),
        "lookups = {} is out of range: allowed 1..={MAX_LOOKUPS} (per port)",
        args.lookups
    );
    ensure!(
        args.speed_cycles >= 1,
        "speed_cycles = 0 is out of range: allowed >= 1"
    );
    ensure!(
        args.rust_hdl_cycles >= 1,
        "rust_hdl_cycles = 0 is out of range: allowed >= 1"
    );
    ensure!(
        (1..=MAX_MEM_LATENCY).contains(&args.mem_latency),
        "mem_latency = {} is out of range: allowed 1..={MAX_MEM_LATENCY}",
        args.mem_latency
    );
    ensure!(
        !args.markdown || args.workloads.is_empty(),
        "--markdown writes the SPEC §7 figures of BENCHMARKS.md: it does not take --workload"
    );
    ensure!(
        args.live.is_none() || !args.workloads.is_empty(),
        "live = {} is given without --workload: the live set is made for the workloads only",
        args.live.unwrap_or(0)
    );
    ensure!(
        args.warmup <= MAX_LOOKUPS,
        "warmup = {} is out of range: allowed 0..={MAX_LOOKUPS} (per port)",
        args.warmup
    );
    ensure!(
        args.warmup == 0 || !args.workloads.is_empty(),
        "warmup = {} is given without --workload: it warms up the workloads only",
        args.warmup
    );
    Ok(())
}

pub fn run(args: &Args) -> Result<()> {
    check(args)?;
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
    if !args.workloads.is_empty() {
        return run_workloads(args, &configs);
    }
    for (label, cfg) in configs.iter().filter(|(_, c)| state_mem::applies(c)) {
        state_mem::check(cfg, label, &state_opts(args))?;
    }
    let opts = PerfOptions {
        lookups: args.lookups,
        speed_cycles: args.speed_cycles,
        rust_hdl_cycles: args.rust_hdl_cycles,
        seed: args.seed,
        mem_latency: args.mem_latency,
        ..Default::default()
    };
    // Stamped before the run: the commit and tools measured, whatever changes meanwhile.
    let stamp = args.markdown.then(|| Stamp::now(&[]));
    // With --markdown the progress goes to stderr and only the Markdown to stdout.
    let reports = if args.markdown {
        note!("{}", report::header(&opts));
        perf::run(&configs, &opts, &mut |r| note!("{}", r.text()))?
    } else {
        out!("{}", report::header(&opts))?;
        // The callback cannot return an error: a closed stdout is kept and returned after the
        // run.
        let mut printed = Ok(());
        let reports = perf::run(&configs, &opts, &mut |r| {
            if printed.is_ok() {
                printed = out!("{}", r.text());
            }
        })?;
        printed?;
        reports
    };
    let mut state = vec![];
    for (label, cfg) in configs.iter().filter(|(_, c)| state_mem::applies(c)) {
        let r = state_mem::bench_state_mem(label, cfg, &state_opts(args), &mut |l| noteln!("{l}"))?;
        if args.markdown {
            note!("{}", r.text());
        } else {
            out!("{}", r.text())?;
        }
        state.push(r);
    }
    if let Some(stamp) = &stamp {
        out!("{}", report::markdown(&reports, &state, &opts, stamp))?;
    }
    let bad: usize = reports.iter().map(|r| r.mismatches.len()).sum::<usize>()
        + state.iter().map(|r| r.mismatches.len()).sum::<usize>();
    let missed: Vec<String> = reports
        .iter()
        .filter(|r| !r.targets_met())
        .map(|r| format!("{}: SPEC §7", r.label))
        .chain(state.iter().flat_map(not_met))
        .collect();
    verdict(bad, missed)
}

/// The end of a run whose figures are printed: a mismatch against the model is a failure
/// (whatever the targets), else a target missed is [`NotMet`], else success.
fn verdict(mismatches: usize, missed: Vec<String>) -> Result<()> {
    if mismatches > 0 {
        anyhow::bail!("{mismatches} mismatches against the reference model");
    }
    if !missed.is_empty() {
        return Err(NotMet(missed).into());
    }
    Ok(())
}

/// The figures were measured and printed, and some SPEC target is NOT MET: `main` exits
/// with [`NotMet::EXIT_CODE`], so a script can tell it from a failure (1).
#[derive(Debug)]
pub struct NotMet(pub Vec<String>);

impl NotMet {
    pub const EXIT_CODE: u8 = 3;
}

impl std::fmt::Display for NotMet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SPEC targets NOT MET: {}", self.0.join("; "))
    }
}

impl std::error::Error for NotMet {}

/// The §9 targets of `r` that are NOT MET, one line each.
fn not_met(r: &state_mem::StateMemReport) -> Vec<String> {
    r.targets()
        .into_iter()
        .filter(|(ok, _)| !ok)
        .map(|(_, line)| format!("{}: {line}", r.label))
        .collect()
}

/// The §9 options of `args`.
fn state_opts(args: &Args) -> StateMemOptions {
    StateMemOptions {
        cold_live: args.cold_live,
        lookups: args.state_lookups,
        warmup: args.state_lookups,
        seed: args.seed,
        ..Default::default()
    }
}

/// `--workload`: the workloads on each configuration, checked before any is built.
fn run_workloads(args: &Args, configs: &[(String, qptable::config::Config)]) -> Result<()> {
    let opts = WorkloadOptions {
        specs: args.workloads.clone(),
        live: args.live,
        lookups: args.lookups,
        warmup: args.warmup,
        seed: args.seed,
        mem_latency: args.mem_latency,
    };
    for (label, cfg) in configs {
        workload::check(cfg, label, &opts)?;
    }
    out!("{}", workload::header(&opts))?;
    let mut bad = 0;
    for (label, cfg) in configs {
        let r = workload::bench_workloads(label, cfg, &opts)?;
        out!("{}", r.text())?;
        bad += r.mismatches.len();
    }
    if bad > 0 {
        anyhow::bail!("{bad} mismatches against the reference model");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mismatch_fails_whatever_the_targets_and_a_missed_target_is_not_met() {
        assert!(verdict(0, vec![]).is_ok());
        let e = verdict(0, vec!["sm: FREE".into(), "sm: garbage".into()]).unwrap_err();
        let not_met = e.downcast_ref::<NotMet>().expect("NotMet");
        assert_eq!(not_met.0, ["sm: FREE", "sm: garbage"]);
        assert_eq!(e.to_string(), "SPEC targets NOT MET: sm: FREE; sm: garbage");
        for missed in [vec![], vec!["sm: FREE".to_string()]] {
            let e = verdict(2, missed).unwrap_err();
            assert!(!e.is::<NotMet>());
            assert_eq!(e.to_string(), "2 mismatches against the reference model");
        }
    }
}
