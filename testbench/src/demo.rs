//! The demo: the main job shown working on one configuration.
//!
//! Generates the Verilog, builds its Verilator model, creates QPs through the control port
//! (ALLOC, PUBLISH, some FREE), then runs two checked phases on every lookup port at once:
//!
//! 1. **throughput**: always-ready consumers, a request every cycle on every port; reports
//!    lookups per cycle per port and the latency (request handshake to response handshake);
//! 2. **stress**: random idle cycles on the requests, random backpressure on the responses
//!    and the control port, commands (ALLOC, PUBLISH, FREE) running between lookups.
//!
//! Every response is checked against the reference model; the report ends with the number
//! of mismatches.

use crate::bench::{status_name, Bench, BenchOptions};
use anyhow::Result;
use qptable::config::{Config, Directory, Mode};
use qptable::model::{regs, CmdStatus, Command};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt;
use std::path::Path;

/// What the demo measured.
pub struct Report {
    pub text: String,
    pub mismatches: usize,
    /// Lookups per cycle per port in the throughput phase.
    pub rate: Vec<f64>,
    /// (min, median, max) latency per port in the throughput phase.
    pub latency: Vec<(u64, u64, u64)>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// QPNs the traffic draws from.
struct Population {
    published: Vec<u32>,
    reserved: Vec<u32>,
    freed: Vec<u32>,
}

impl Population {
    fn pick(&self, rng: &mut ChaCha8Rng, cfg: &Config) -> u32 {
        let gen_shift = cfg.index_bits;
        let roll = rng.gen_range(0..100);
        let any = |v: &Vec<u32>, rng: &mut ChaCha8Rng| v[rng.gen_range(0..v.len())];
        match roll {
            0..=59 if !self.published.is_empty() => any(&self.published, rng),
            60..=69 if !self.reserved.is_empty() => any(&self.reserved, rng),
            70..=79 if !self.freed.is_empty() => any(&self.freed, rng),
            80..=89 if !self.published.is_empty() && cfg.gen_bits() > 0 => {
                // Same index, another generation: STALE.
                let q = any(&self.published, rng);
                q ^ (rng.gen_range(1..(1u32 << cfg.gen_bits())) << gen_shift)
            }
            _ => rng.gen_range(0..1u32 << 24),
        }
    }
}

/// Cycles of the throughput phase over which the trace's growth is measured.
const TRACE_SAMPLE: u64 = 4096;

/// Most lookups per port: they are queued before the throughput phase starts.
pub const MAX_LOOKUPS: u64 = 10_000_000;

/// Checks the lookups per port: at least one (the latency of no lookup is no figure, and a
/// report of 0/0/0 would look like one), at most [`MAX_LOOKUPS`].
pub fn check_lookups(lookups: u64) -> Result<()> {
    anyhow::ensure!(
        (1..=MAX_LOOKUPS).contains(&lookups),
        "lookups = {lookups} is out of range: allowed 1..={MAX_LOOKUPS} (per port)"
    );
    Ok(())
}

/// Runs the demo on `cfg` and returns its report.
/// `progress` gets what the run says before it ends: with a trace, its size early in the
/// throughput phase and the size expected at the end.
pub fn run(
    cfg: &Config,
    seed: u64,
    lookups: u64,
    trace: Option<&Path>,
    progress: &mut dyn FnMut(&str),
) -> Result<Report> {
    check_lookups(lookups)?;
    let mut text = String::new();
    let mut line = |s: String| {
        text.push_str(&s);
        text.push('\n');
    };
    let t0 = std::time::Instant::now();
    let mut bench = Bench::new(
        cfg,
        &BenchOptions {
            seed,
            trace: trace.map(Path::to_path_buf),
            ..Default::default()
        },
    )?;
    line(format!(
        "qptable demo: top {}, index_bits {}, max_qps {}, entry_bytes {}, ports {:?}, seed {seed}",
        cfg.top,
        cfg.index_bits,
        cfg.max_qps(),
        cfg.entry_bytes,
        cfg.ports
    ));
    line(format!(
        "model: {} ({:.1} s), init sweep done at cycle {}",
        if bench.model.was_cached() {
            "cached"
        } else {
            "built"
        },
        bench.model.build_time().as_secs_f64(),
        bench.sim.cycle()
    ));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);

    // Context table base.
    bench.write(regs::TABLE_BASE_LO, 0x8000_0000)?;
    bench.write(regs::TABLE_BASE_HI, 0x0000_0012)?;

    // two_level on chip: second-level pages for the first directory entries (entry 1 is left
    // absent, so its QPs answer PAGE_ABSENT).
    if cfg.mode == Mode::TwoLevel && cfg.directory == Directory::OnChip {
        let entries = bench.sb.model.dir_entries().min(8);
        for i in (0..entries).filter(|&i| i != 1) {
            let base = (0x0000_0040_0000_0000u64 + (u64::from(i) << 24)) | 1;
            bench.write(regs::DIR_INDEX, i)?;
            bench.write(regs::DIR_ENTRY_LO, base as u32)?;
            bench.write(regs::DIR_ENTRY_HI, (base >> 32) as u32)?;
        }
        line(format!(
            "directory: {entries} of {} entries written, entry 1 absent",
            bench.sb.model.dir_entries()
        ));
    }
    // two_level in memory: the directory is an array at TABLE_BASE in the memory model (on
    // `m_axi_*`, 1-cycle latency); the same entries, entry 1 absent.
    if cfg.mode == Mode::TwoLevel && cfg.directory == Directory::InMemory {
        let entries = bench.sb.model.dir_entries().min(8);
        for i in (0..entries).filter(|&i| i != 1) {
            let base = (0x0000_0040_0000_0000u64 + (u64::from(i) << 24)) | 1;
            bench.mem_write_dir(i, base);
        }
        line(format!(
            "directory in memory at TABLE_BASE {:#x}: {entries} of {} entries written, entry 1 \
             absent",
            bench.sb.model.mem_dir_address(0),
            bench.sb.model.dir_entries()
        ));
    }

    // Create QPs: ALLOC, then PUBLISH three in four; FREE one in eight of those.
    let pool = cfg.max_qps() - cfg.first_index;
    let n = pool.min(256);
    let mut pop = Population {
        published: vec![],
        reserved: vec![],
        freed: vec![],
    };
    let t_cmd = bench.sim.cycle();
    for i in 0..n {
        let r = bench.command(Command::Alloc)?;
        if r.status != CmdStatus::Ok {
            break;
        }
        if i % 4 == 3 {
            pop.reserved.push(r.qpn);
        } else {
            bench.command(Command::Publish(r.qpn))?;
            pop.published.push(r.qpn);
        }
    }
    let k = pop.published.len() / 8;
    for _ in 0..k {
        let q = pop
            .published
            .swap_remove(rng.gen_range(0..pop.published.len()));
        bench.command(Command::Free(q))?;
        pop.freed.push(q);
    }
    line(format!(
        "created {} QPs: {} published, {} reserved, {} freed ({} cycles of commands)",
        n,
        pop.published.len(),
        pop.reserved.len(),
        pop.freed.len(),
        bench.sim.cycle() - t_cmd
    ));

    // Phase 1: throughput.
    let ports = cfg.ports.len();
    for p in 0..ports {
        for t in 0..lookups {
            let q = pop.pick(&mut rng, cfg);
            bench.lookup(p, q, t);
        }
    }
    let start = bench.sim.cycle();
    let trace_at_start = trace.map_or(0, |t| std::fs::metadata(t).map_or(0, |m| m.len()));
    let mut first = vec![None; ports];
    let mut last = vec![0u64; ports];
    let mut count = vec![0u64; ports];
    while !(bench.sources.iter().all(|s| s.is_done()) && bench.sb.outstanding() == 0) {
        if bench.sim.cycle() - start > 10 * lookups + 1000 {
            anyhow::bail!("throughput phase did not finish");
        }
        if let Some(t) = trace.filter(|_| bench.sim.cycle() - start == TRACE_SAMPLE) {
            // Measured, not guessed: the bytes written per cycle over the first cycles of
            // this phase (the busiest), times the cycles left (about 1.4 a lookup for the two
            // phases, measured on the default configuration).
            let bytes = std::fs::metadata(t).map(|m| m.len()).unwrap_or(0);
            let per_cycle = (bytes - trace_at_start) as f64 / TRACE_SAMPLE as f64;
            let left = (lookups * 14 / 10).saturating_sub(TRACE_SAMPLE) as f64;
            progress(&format!(
                "trace: {:.0} MB so far, about {:.0} MB at the end",
                bytes as f64 / 1e6,
                (bytes as f64 + per_cycle * left) / 1e6
            ));
        }
        let before: Vec<u64> = (0..ports).map(|p| bench.sb.requests(p)).collect();
        bench.step();
        for p in 0..ports {
            if bench.sb.requests(p) > before[p] {
                first[p].get_or_insert(bench.sim.cycle());
                last[p] = bench.sim.cycle();
                count[p] += 1;
            }
        }
    }
    let mut rate = vec![];
    let mut latency = vec![];
    line("phase 1, always-ready consumers, a request every cycle on every port:".into());
    for p in 0..ports {
        let span = last[p] - first[p].unwrap_or(last[p]) + 1;
        let r = count[p] as f64 / span as f64;
        let l = &bench.latency[p];
        let lat = (
            l.min().unwrap_or(0),
            l.median().unwrap_or(0),
            l.max().unwrap_or(0),
        );
        line(format!(
            "  port {:>4}: {} lookups in {} cycles = {:.2} lookups/cycle; latency min/median/max {}/{}/{} cycles",
            cfg.ports[p], count[p], span, r, lat.0, lat.1, lat.2
        ));
        rate.push(r);
        latency.push(lat);
    }

    // Phase 2: idle cycles, backpressure and commands under traffic. Its counts are printed
    // apart from phase 1's.
    let before: Vec<([u64; 6], u64)> = (0..ports)
        .map(|p| (bench.status_counts(p), bench.sb.lookups(p)))
        .collect();
    for s in &mut bench.sources {
        s.set_idle_prob(0.2);
    }
    for s in &mut bench.sinks {
        s.set_backpressure(0.3);
    }
    let stress = (lookups / 4).max(1);
    for p in 0..ports {
        for t in 0..stress {
            let q = pop.pick(&mut rng, cfg);
            bench.lookup(p, q, t);
        }
    }
    let mut commands = 0;
    while !bench.sources.iter().all(|s| s.is_done()) {
        bench.run_cycles(rng.gen_range(0..40))?;
        let roll = rng.gen_range(0..3);
        if roll == 0 && !pop.published.is_empty() {
            let q = pop
                .published
                .swap_remove(rng.gen_range(0..pop.published.len()));
            bench.command(Command::Free(q))?;
            pop.freed.push(q);
        } else if roll == 1 && !pop.reserved.is_empty() {
            let q = pop
                .reserved
                .swap_remove(rng.gen_range(0..pop.reserved.len()));
            bench.command(Command::Publish(q))?;
            pop.published.push(q);
        } else {
            let r = bench.command(Command::Alloc)?;
            if r.status == CmdStatus::Ok {
                pop.reserved.push(r.qpn);
            }
        }
        commands += 1;
    }
    bench.drain(100_000)?;
    line(format!(
        "phase 2, 20% idle requests, 30% response backpressure, {commands} commands under traffic: done at cycle {}",
        bench.sim.cycle()
    ));
    for (p, (c0, n0)) in before.iter().enumerate() {
        let c = bench.status_counts(p);
        let parts: Vec<String> = (0..6)
            .filter(|&s| c[s] > c0[s])
            .map(|s| format!("{} {}", status_name(s), c[s] - c0[s]))
            .collect();
        line(format!(
            "  port {:>4}: {} lookups: {}",
            cfg.ports[p],
            bench.sb.lookups(p) - n0,
            parts.join(", ")
        ));
    }
    let problems = bench.finish().err();
    let mismatches =
        bench.mismatches.len() + usize::from(problems.is_some() && bench.mismatches.is_empty());
    if let Some(e) = &problems {
        line(format!("PROBLEMS:\n{e:#}"));
    }
    line(format!(
        "checked against the reference model: mismatches: {mismatches} ({:.1} s)",
        t0.elapsed().as_secs_f64()
    ));
    Ok(Report {
        text,
        mismatches,
        rate,
        latency,
    })
}
