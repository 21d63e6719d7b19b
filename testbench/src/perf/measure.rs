//! `qptable bench`: the performance figures of SPEC §7, measured in Verilator cycles.
//!
//! For one configuration, [`bench_config`] measures:
//!
//! 1. **throughput and latency**: through the checked [`Bench`] fixture (every response
//!    compared with the reference model), a request every cycle on every port with
//!    always-ready consumers: lookups per cycle of each port from its first to its last
//!    request handshake, and the latency (request handshake to response handshake, which
//!    with an always-ready consumer is the first edge at which the response is valid);
//!    then the same with ALLOC commands running back to back on the control port, which
//!    shows how many lookup cycles a command steals;
//! 2. **command latency**: ALLOC, PUBLISH and FREE with no lookup in flight, in cycles from
//!    the edge of the CMD write handshake (AW and W) to the edge of the B handshake, which
//!    the register block holds until the command is done
//!    ([`AxilDone`](qptable_sim::AxilDone) `addr_cycle` to `done_cycle`), at a growing
//!    occupancy of the table;
//! 3. **simulation speed** of the same model, in cycles per second ([`speed`](super::speed)):
//!    * the whole engine (`QpTable`): (a) a lean Rust loop over the Verilator model that
//!      drives every bus every cycle through the `qptable_sim` agents
//!      ([`SPEED_LOOP`](super::speed::SPEED_LOOP)), and
//!      (b) the plain C++ Verilator main of the harness on the same model, with the
//!      request valids and response readies high and the request QPNs changing every cycle
//!      (so both do a lookup per port per cycle);
//!    * one lookup pipeline (`LookupPipe`, a plain `#[derive(LogicBlock)]`, so rust-hdl can
//!      simulate it; the top level cannot be, its wiring is emitted as Verilog text): the
//!      same (a) and (b) on its Verilog, generated with rust-hdl and built with Verilator,
//!      and (c) rust-hdl's own simulator on the same block, both as users run it
//!      (`Simulation` with a clock thread and a testbench thread) and as a bare loop over
//!      its settle function (`simulate`), the fastest rust-hdl can go. The rust-hdl run and
//!      the Verilator run get the same stimulus, and their first responses are compared
//!      (`QPTABLE_PERF_DEBUG=1` prints the first difference, if any).
//!
//!    Speeds are cycles per second of CPU time of the simulating thread (of the whole
//!    process for rust-hdl's threaded `Simulation`), beside the wall-clock figure: the
//!    machine may be shared, and CPU time is not inflated by other load. The Rust loop and
//!    the C++ main run in turn, [`ROUNDS`](super::speed::ROUNDS) rounds each, and the best round of each counts.
//!    in_memory configurations use the bench's AXI memory with a fixed latency
//!    ([`PerfOptions::mem_latency`]); their SPEC targets are computed from it.
//!
//! [`run`] does that for every configuration; the text of the reports is in
//! [`report`](super::report); `qptable bench` prints it.

use super::speed::{measure_speed, Speed};
use crate::bench::{Bench, BenchOptions, Latency};
use anyhow::{anyhow, bail, Result};
use qptable::config::Config;
use qptable::model::{regs, CmdResult, CmdStatus, Command, Status};
use qptable_sim::AxiResp;
use std::time::Instant;

/// Knobs of a benchmark run.
#[derive(Clone, Debug)]
pub struct PerfOptions {
    /// Lookups per port in the throughput phase.
    pub lookups: u64,
    /// QPs created before the throughput phase (ALLOC + PUBLISH; at most the pool).
    pub qps: u32,
    /// Timed cycles of the Verilator speed runs (Rust loop and C++ main).
    pub speed_cycles: u64,
    /// Cycles of the rust-hdl runs (it is slow).
    pub rust_hdl_cycles: u64,
    /// Seed of the lookup traffic.
    pub seed: u64,
    /// in_memory: latency of the bench's memory (cycles from AR to R) for the directory reads.
    pub mem_latency: u64,
}

impl Default for PerfOptions {
    fn default() -> Self {
        PerfOptions {
            lookups: 100_000,
            qps: 256,
            speed_cycles: 5_000_000,
            rust_hdl_cycles: 20_000,
            seed: 1,
            mem_latency: 10,
        }
    }
}

/// Throughput and latency of one port.
#[derive(Clone, Debug)]
pub struct PortFigures {
    pub name: String,
    /// Requests accepted in the window.
    pub lookups: u64,
    /// Cycles from the first to the last request handshake, both included.
    pub cycles: u64,
    /// `lookups / cycles`.
    pub rate: f64,
    /// Latency min / median / max in cycles.
    pub latency: (u64, u64, u64),
    /// Responses that needed a directory read (in_memory: OK, PAGE_ABSENT, MEM_ERROR).
    pub mem_reads: u64,
}

/// Cycles of one kind of command.
#[derive(Clone, Debug)]
pub struct CmdFigures {
    pub name: &'static str,
    pub count: u64,
    pub min: u64,
    pub median: u64,
    pub max: u64,
}

/// Lookup throughput while commands run back to back.
#[derive(Clone, Debug)]
pub struct UnderCommands {
    pub commands: u64,
    pub cycles: u64,
    /// Lookups per cycle of each port over the window.
    pub rate: Vec<f64>,
    /// Cycles in which a port could not take its request, per command.
    pub stolen_per_command: Vec<f64>,
}

/// Everything measured on one configuration.
#[derive(Clone, Debug)]
pub struct ConfigReport {
    pub label: String,
    pub cfg: Config,
    pub ports: Vec<PortFigures>,
    pub under_commands: UnderCommands,
    pub commands: Vec<CmdFigures>,
    pub speed: Speed,
    pub mismatches: Vec<String>,
    pub seconds: f64,
    /// in_memory: the bench memory's latency.
    pub mem_latency: u64,
}

/// Whether the directory of `cfg` is read over the memory port.
pub fn in_memory(cfg: &Config) -> bool {
    cfg.mode == qptable::config::Mode::TwoLevel
        && cfg.directory == qptable::config::Directory::InMemory
}

fn latency_triple(l: &Latency) -> (u64, u64, u64) {
    (
        l.min().unwrap_or(0),
        l.median().unwrap_or(0),
        l.max().unwrap_or(0),
    )
}

fn summary(v: &mut [u64], name: &'static str) -> CmdFigures {
    v.sort_unstable();
    CmdFigures {
        name,
        count: v.len() as u64,
        min: v.first().copied().unwrap_or(0),
        median: v.get(v.len().saturating_sub(1) / 2).copied().unwrap_or(0),
        max: v.last().copied().unwrap_or(0),
    }
}

/// Runs a command through the bench and returns its result and its latency: cycles from
/// the edge of the CMD write handshake to the edge of the B handshake. The result is
/// checked against the model like [`Bench::command`] does.
pub fn timed_command(bench: &mut Bench, cmd: Command) -> Result<(CmdResult, u64)> {
    let id = bench
        .axil
        .push_write(u64::from(regs::CMD), u64::from(cmd.encode()), 0xF);
    let limit = 10_000 + 4 * u64::from(bench.cfg.max_qps());
    let start = bench.sim.cycle();
    let done = loop {
        if let Some(d) = bench.axil.take_done(id) {
            break d;
        }
        if bench.sim.cycle() - start > limit {
            bail!("command {cmd:?} not done after {limit} cycles");
        }
        bench.step();
    };
    if done.resp != AxiResp::Okay {
        bench
            .mismatches
            .push(format!("command {cmd:?}: write answered {:?}", done.resp));
    }
    let (word, resp) = bench.read(regs::CMD_RESULT)?;
    if resp != AxiResp::Okay {
        bail!("CMD_RESULT read answered {resp:?}");
    }
    if let Err(m) = bench.sb.check_cmd_result(word) {
        bench
            .mismatches
            .push(format!("command {cmd:?}: {}", m.message()));
    }
    let r = CmdResult::from_register(word).ok_or_else(|| anyhow!("bad CMD_RESULT {word:#x}"))?;
    Ok((r, done.done_cycle - done.addr_cycle))
}

/// A small deterministic generator (xorshift64*), so the traffic does not depend on a crate's
/// algorithm.
pub(crate) struct Xs(pub(crate) u64);

impl Xs {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// So that `rand`'s distributions (e.g. `rand_distr::Zipf`) draw from the bench's generator.
impl rand::RngCore for Xs {
    fn next_u32(&mut self) -> u32 {
        (self.next() >> 32) as u32
    }
    fn next_u64(&mut self) -> u64 {
        self.next()
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        for chunk in dest.chunks_mut(8) {
            chunk.copy_from_slice(&self.next().to_le_bytes()[..chunk.len()]);
        }
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand::Error> {
        self.fill_bytes(dest);
        Ok(())
    }
}

/// Measures one configuration. `label` names it in the report (e.g. the file stem).
pub fn bench_config(label: &str, cfg: &Config, opts: &PerfOptions) -> Result<ConfigReport> {
    let t0 = Instant::now();
    let bench_opts = BenchOptions {
        seed: opts.seed,
        ..Default::default()
    };
    let mut bench = if in_memory(cfg) {
        Bench::new_with_mem(
            cfg,
            &bench_opts,
            &crate::bench::MemOptions {
                latency: qptable_sim::axi_mem::Latency::Fixed(opts.mem_latency),
                ..Default::default()
            },
        )?
    } else {
        Bench::new(cfg, &bench_opts)?
    };
    let mut rng = Xs(opts.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    bench.write(regs::TABLE_BASE_LO, 0x8000_0000)?;
    bench.write(regs::TABLE_BASE_HI, 0x0000_0012)?;

    // Commands with no lookup in flight, at a growing occupancy.
    let pool = cfg.max_qps() - cfg.first_index;
    let n = pool.min(opts.qps.max(1));
    let (mut alloc, mut publish, mut free) = (vec![], vec![], vec![]);
    let mut live = vec![];
    for _ in 0..n {
        let (r, c) = timed_command(&mut bench, Command::Alloc)?;
        if r.status != CmdStatus::Ok {
            break;
        }
        alloc.push(c);
        let (_, c) = timed_command(&mut bench, Command::Publish(r.qpn))?;
        publish.push(c);
        live.push(r.qpn);
    }
    // FREE one in eight (no lookup in flight: the drain is immediate).
    let mut freed = vec![];
    for k in (0..live.len()).step_by(8) {
        let q = live[k];
        let (_, c) = timed_command(&mut bench, Command::Free(q))?;
        free.push(c);
        freed.push(q);
    }
    live.retain(|q| !freed.contains(q));
    let commands = vec![
        summary(&mut alloc, "ALLOC"),
        summary(&mut publish, "PUBLISH"),
        summary(&mut free, "FREE"),
    ];

    // Throughput: a request every cycle on every port, always-ready consumers.
    let nports = cfg.ports.len();
    let pick = |rng: &mut Xs| -> u32 {
        match rng.below(10) {
            0..=6 if !live.is_empty() => live[rng.below(live.len() as u64) as usize],
            7 if !freed.is_empty() => freed[rng.below(freed.len() as u64) as usize],
            _ => rng.below(1 << 24) as u32,
        }
    };
    for p in 0..nports {
        for t in 0..opts.lookups {
            let q = pick(&mut rng);
            bench.lookup(p, q, t);
        }
    }
    for l in &mut bench.latency {
        *l = Latency::default();
    }
    let (count, first, last) = run_window(&mut bench, opts.lookups, |_| {})?;
    let mut ports = vec![];
    for p in 0..nports {
        let cycles = last[p] - first[p] + 1;
        ports.push(PortFigures {
            name: cfg.ports[p].clone(),
            lookups: count[p],
            cycles,
            rate: count[p] as f64 / cycles as f64,
            latency: latency_triple(&bench.latency[p]),
            mem_reads: {
                // The lookups that read the directory: OK, PAGE_ABSENT, MEM_ERROR.
                let c = bench.sb.status_counts(p);
                [Status::Ok, Status::PageAbsent, Status::MemError]
                    .iter()
                    .map(|&s| c[s as usize])
                    .sum()
            },
        });
    }

    // The same with ALLOC commands back to back on the control port.
    let per_port = (opts.lookups / 4).max(1000);
    for p in 0..nports {
        for t in 0..per_port {
            let q = pick(&mut rng);
            bench.lookup(p, q, t);
        }
    }
    let mut issued = 0u64;
    let cmd_word = u64::from(Command::Alloc.encode());
    let (count, first, last) = run_window(&mut bench, per_port, |b| {
        if b.axil.writes_pending() == 0 && b.sources.iter().any(|s| s.pending() > 8) {
            b.axil.push_write(u64::from(regs::CMD), cmd_word, 0xF);
            issued += 1;
        }
    })?;
    bench.drain(100_000)?;
    let window = (0..nports)
        .map(|p| last[p] - first[p] + 1)
        .max()
        .unwrap_or(1);
    let under_commands = UnderCommands {
        commands: issued,
        cycles: window,
        rate: (0..nports)
            .map(|p| count[p] as f64 / (last[p] - first[p] + 1) as f64)
            .collect(),
        stolen_per_command: (0..nports)
            .map(|p| (last[p] - first[p] + 1 - count[p]) as f64 / issued.max(1) as f64)
            .collect(),
    };
    if let Err(e) = bench.finish() {
        bench.mismatches.push(format!("{e:#}"));
    }
    let mismatches = bench.mismatches.clone();
    let model = bench.model.clone();
    drop(bench);

    let speed = measure_speed(cfg, &model, opts)?;
    Ok(ConfigReport {
        label: label.to_string(),
        cfg: cfg.clone(),
        ports,
        under_commands,
        commands,
        speed,
        mismatches,
        seconds: t0.elapsed().as_secs_f64(),
        mem_latency: opts.mem_latency,
    })
}

/// Runs the bench until every queued request is sent and answered, calling `each` before
/// every cycle. Returns per port: requests accepted, first and last handshake cycle.
pub(crate) fn run_window(
    bench: &mut Bench,
    per_port: u64,
    mut each: impl FnMut(&mut Bench),
) -> Result<(Vec<u64>, Vec<u64>, Vec<u64>)> {
    let nports = bench.cfg.ports.len();
    let start = bench.sim.cycle();
    let mut first = vec![None; nports];
    let mut last = vec![0u64; nports];
    let mut count = vec![0u64; nports];
    while !(bench.sources.iter().all(|s| s.is_done()) && bench.sb.outstanding() == 0) {
        if bench.sim.cycle() - start > 20 * per_port + 10_000 {
            bail!("the lookups did not finish");
        }
        each(bench);
        let before: Vec<u64> = (0..nports).map(|p| bench.sb.requests(p)).collect();
        bench.step();
        for p in 0..nports {
            if bench.sb.requests(p) > before[p] {
                first[p].get_or_insert(bench.sim.cycle());
                last[p] = bench.sim.cycle();
                count[p] += 1;
            }
        }
    }
    let first = first
        .into_iter()
        .map(|f| f.unwrap_or(0))
        .collect::<Vec<_>>();
    Ok((count, first, last))
}

/// Runs [`bench_config`] on each `(label, config)`, handing each report to `done` as soon as
/// it is measured. Returns the reports.
pub fn run(
    configs: &[(String, Config)],
    opts: &PerfOptions,
    done: &mut dyn FnMut(&ConfigReport),
) -> Result<Vec<ConfigReport>> {
    let mut reports = vec![];
    for (label, cfg) in configs {
        let r = bench_config(label, cfg, opts)?;
        done(&r);
        reports.push(r);
    }
    Ok(reports)
}
