//! Cross-simulator equivalence (issue 9): for every shipped configuration (`configs/*.toml`)
//! scaled down to a small `index_bits` (with the state in memory, its cache and fill slots
//! too: `xsim::small_variant`), seeded stimuli are run on the Verilator model and
//! replayed on Icarus Verilog, and every output is compared cycle by cycle (see
//! `qptable_testbench::xsim`). Passes with 0 differences and >= 100 000 cycles compared per
//! configuration; the statuses the engine answers must include every lookup status the
//! configuration can give and the command results OK, OUT_OF_RANGE, BAD_STATE and BAD_CMD.
//!
//! `QPTABLE_SEED` sets the first seed (default below); seeds `seed..seed + SEEDS` run per
//! configuration. The files (design, testbench, stimulus, traces) stay under
//! `target/tmp/cross_sim/<config>/` for inspection.

use anyhow::{ensure, Context, Result};
use qptable::config::{Directory, Mode};
use qptable::spec::{CmdStatus, Status};
use qptable_sim::{BuildOptions, Model};
use qptable_testbench::campaign;
use qptable_testbench::tools::{shipped_configs, ShippedConfig};
use qptable_testbench::xsim::{self, Stats};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Index bits of the scaled-down configurations (a configuration with fewer keeps its own).
const INDEX_BITS: u32 = 7;
/// Seeds per configuration and cycles per seed: 4 x 25 000 = 100 000 cycles compared.
const SEEDS: u64 = 4;
const CYCLES: u64 = 25_000;
const MIN_CYCLES: u64 = 100_000;
/// A `vvp` run whose trace does not grow for this long is a hang (it writes a line per cycle,
/// thousands per second).
const VVP_STALL: Duration = Duration::from_secs(20);

/// Builds one Verilator model at a time (two threads may want one at once).
static BUILD: Mutex<()> = Mutex::new(());

struct Outcome {
    name: String,
    cycles: u64,
    stats: Stats,
    report: String,
}

fn run_config(sc: &ShippedConfig, first_seed: u64) -> Result<Outcome> {
    let t0 = Instant::now();
    let cfg = xsim::small_variant(&sc.config, INDEX_BITS)?;
    let verilog = qptable::generate::generate_verilog(&cfg)?;
    let model = {
        let _guard = BUILD.lock().unwrap_or_else(|e| e.into_inner());
        Model::build(&verilog, &cfg.top, &BuildOptions::default())
            .with_context(|| format!("building the Verilator model of {}", cfg.top))?
    };
    let build_time = t0.elapsed();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cross_sim")
        .join(&sc.name);
    let mut cycles = 0;
    let mut stats = Stats::default();
    let mut bench = None;
    let (mut t_record, mut t_icarus) = (Duration::ZERO, Duration::ZERO);
    for seed in first_seed..first_seed + SEEDS {
        let t = Instant::now();
        let rec = xsim::record(&model, &cfg, seed, CYCLES)
            .with_context(|| format!("seed {seed} on Verilator"))?;
        t_record += t.elapsed();
        if bench.is_none() {
            bench = Some(xsim::IcarusBench::compile(
                &dir,
                &verilog,
                &cfg.top,
                &rec.inputs,
                &rec.outputs,
                CYCLES,
            )?);
        }
        let bench = bench.as_ref().expect("compiled above");
        let t = Instant::now();
        let trace = bench
            .replay(&rec, &format!("seed{seed}"), VVP_STALL)
            .with_context(|| format!("seed {seed} on Icarus"))?;
        t_icarus += t.elapsed();
        match xsim::compare(&rec, &trace) {
            Ok(n) => cycles += n,
            Err((d, count)) => {
                let mine = dir.join(format!("seed{seed}.verilator.hex"));
                std::fs::write(&mine, rec.output_text())?;
                anyhow::bail!(
                    "{} (index_bits {}) seed {seed}: {d}; {count} differing (cycle, signal) \
                     pairs in {} cycles; traces seed{seed}.verilator.hex and \
                     seed{seed}.trace.hex (outputs in the order of xsim_tb.v's $fwrite) in {}",
                    sc.name,
                    cfg.index_bits,
                    rec.cycles,
                    dir.display()
                )
            }
        }
        stats.add(&rec.stats);
    }
    let report = format!(
        "{}: index_bits {} max_qps {} ports {}, seeds {first_seed}..{}, {cycles} cycles \
         compared, 0 differences; model build {:.1} s, iverilog {:.1} s, Verilator runs {:.1} s, \
         vvp runs {:.1} s; lookups {:?}, command results {:?}",
        sc.name,
        cfg.index_bits,
        cfg.max_qps(),
        cfg.ports.len(),
        first_seed + SEEDS - 1,
        build_time.as_secs_f64(),
        bench.as_ref().map_or(0.0, |b| b.compile_time.as_secs_f64()),
        t_record.as_secs_f64(),
        t_icarus.as_secs_f64(),
        Status::ALL
            .iter()
            .map(|s| s.name())
            .zip(stats.lookup_status)
            .collect::<Vec<_>>(),
        CmdStatus::ALL
            .iter()
            .map(|s| s.name())
            .zip(stats.cmd_status)
            .collect::<Vec<_>>(),
    );
    // The stimulus made the engine do real work: every status this configuration can give.
    let mut want = vec![
        Status::Ok,
        Status::OutOfRange,
        Status::NotAllocated,
        Status::Stale,
    ];
    if sc.config.mode == Mode::TwoLevel {
        want.push(Status::PageAbsent);
        if sc.config.directory == Directory::InMemory {
            want.push(Status::MemError);
        }
    }
    for s in want {
        ensure!(
            stats.lookup_status[s as usize] > 0,
            "{}: no lookup answered {s} in {cycles} cycles\n{report}",
            sc.name,
        );
    }
    for s in [
        CmdStatus::Ok,
        CmdStatus::OutOfRange,
        CmdStatus::BadState,
        CmdStatus::BadCmd,
    ] {
        ensure!(
            stats.cmd_status[s as usize] > 0,
            "{}: no command answered {s} in {cycles} cycles\n{report}",
            sc.name,
        );
    }
    ensure!(
        stats.slverr > 0 && stats.reg_reads > 0,
        "{}: no register access answered SLVERR\n{report}",
        sc.name
    );
    ensure!(
        cycles >= MIN_CYCLES,
        "{}: {cycles} cycles compared, fewer than {MIN_CYCLES}",
        sc.name
    );
    Ok(Outcome {
        name: sc.name.clone(),
        cycles,
        stats,
        report,
    })
}

#[test]
fn verilator_and_icarus_agree_cycle_by_cycle() {
    let first_seed = campaign::seed(0x9c51_0001);
    let configs = shipped_configs();
    assert!(!configs.is_empty(), "no configs/*.toml");
    println!(
        "cross_sim: first seed {first_seed} (QPTABLE_SEED), {SEEDS} seeds x {CYCLES} cycles per \
         configuration, index_bits {INDEX_BITS}"
    );
    let start = Instant::now();
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, Result<Outcome>)>> = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(2);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(sc) = configs.get(k) else { break };
                let r = run_config(sc, first_seed);
                if let Ok(o) = &r {
                    println!("cross_sim: {}", o.report);
                }
                results.lock().unwrap().push((k, r));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(k, _)| *k);
    let mut failures = Vec::new();
    let mut total = 0;
    for (k, r) in results {
        match r {
            Ok(o) => {
                assert_eq!(o.name, configs[k].name);
                total += o.cycles;
                assert!(o.stats.cmd_ops.iter().sum::<u64>() > 0);
            }
            Err(e) => failures.push(format!("{}: {e:#}", configs[k].name)),
        }
    }
    println!(
        "cross_sim: {total} cycles compared over {} configurations in {:.1} s",
        configs.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "cross-simulator equivalence failed (first seed {first_seed}):\n{}",
        failures.join("\n")
    );
}
