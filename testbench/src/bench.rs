//! `Bench`: the shared fixture of the demo and the testbenches.
//!
//! It generates the Verilog of a configuration, builds (or reuses) its Verilator model,
//! applies reset, waits for INIT_DONE, and then runs every bus of the engine in one cycle
//! loop: a [`StreamSource`] and a [`StreamSink`] per lookup port, an [`AxiLiteMaster`] on
//! the control port. After each edge it feeds what happened to a [`Scoreboard`] in the
//! order the scoreboard expects (responses, command completion, command issue, requests),
//! so every response and every command result is checked against the reference model as
//! it happens. Mismatches are collected, not panicked on, so a run can report them all.
//!
//! Idle cycles on the requests and backpressure on the responses and on B/R are set per
//! bench ([`BenchOptions`]); a seed drives all of them.

use crate::scoreboard::Scoreboard;
use anyhow::{anyhow, bail, Context, Result};
use qptable::config::Config;
use qptable::model::{regs, CmdResult, Command, Status};
use qptable_sim::axi_mem::{AxiMemory, Latency as MemLatency};
use qptable_sim::{
    Agent, AxiLiteMaster, AxiResp, BuildOptions, Model, Sim, StreamSink, StreamSource,
};
use qptable_sim::{In, Out};
use std::collections::VecDeque;

/// Request fields of a lookup port, in the order a [`StreamSource`] drives them.
pub const REQ_FIELDS: [&str; 2] = ["qpn", "tag"];
/// Response fields of a lookup port, in the order a [`StreamSink`] records them.
pub const RSP_FIELDS: [&str; 4] = ["qpn", "tag", "status", "addr"];

/// Traffic shaping of a bench.
#[derive(Clone, Debug, Default)]
pub struct BenchOptions {
    /// Probability of an idle cycle before each request.
    pub req_idle: f64,
    /// Probability that a response port is not ready in a cycle.
    pub rsp_backpressure: f64,
    /// Probability of idle and backpressure cycles on the control port.
    pub axil_random: f64,
    /// Seed of every random choice of the agents.
    pub seed: u64,
    /// Build the model with tracing and write a VCD here.
    pub trace: Option<std::path::PathBuf>,
}

/// The memory model of a two_level in_memory bench (see [`Bench::new_with_mem`]).
#[derive(Clone, Debug)]
pub struct MemOptions {
    /// Latency of a read (default: 1 cycle).
    pub latency: MemLatency,
    /// Probability that the memory holds `arready` low in a cycle.
    pub ar_backpressure: f64,
    /// Probability of an idle cycle before each R beat.
    pub r_gaps: f64,
}

impl Default for MemOptions {
    fn default() -> Self {
        MemOptions {
            latency: MemLatency::Fixed(1),
            ar_backpressure: 0.0,
            r_gaps: 0.0,
        }
    }
}

/// Latency histogram of one port, in cycles from request handshake to response handshake.
#[derive(Clone, Debug, Default)]
pub struct Latency {
    counts: Vec<u64>,
}

impl Latency {
    fn add(&mut self, cycles: u64) {
        let i = cycles as usize;
        if self.counts.len() <= i {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += 1;
    }
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }
    pub fn min(&self) -> Option<u64> {
        self.counts.iter().position(|&c| c > 0).map(|i| i as u64)
    }
    pub fn max(&self) -> Option<u64> {
        self.counts.iter().rposition(|&c| c > 0).map(|i| i as u64)
    }
    pub fn median(&self) -> Option<u64> {
        let n = self.total();
        if n == 0 {
            return None;
        }
        let mut seen = 0;
        for (i, c) in self.counts.iter().enumerate() {
            seen += c;
            if seen * 2 >= n {
                return Some(i as u64);
            }
        }
        None
    }
}

struct PortIo {
    req_valid: In,
    req_ready: Out,
    req_qpn: In,
    req_tag: In,
}

/// The fixture: a model of one configuration with all its buses and the scoreboard.
pub struct Bench {
    pub cfg: Config,
    pub sim: Sim,
    pub axil: AxiLiteMaster,
    pub sources: Vec<StreamSource>,
    pub sinks: Vec<StreamSink>,
    /// two_level in_memory: the memory on `m_axi_*` (see [`Bench::mem_write_u64`]).
    pub mem: Option<AxiMemory>,
    pub sb: Scoreboard,
    pub mismatches: Vec<String>,
    pub latency: Vec<Latency>,
    /// When set, every response handshake is also kept in `responses` (per port, in order:
    /// edge, qpn, tag, status, addr), for tests that check values by hand.
    pub keep_responses: bool,
    pub responses: Vec<Vec<[u64; 5]>>,
    ports: Vec<PortIo>,
    rst: In,
    awvalid: In,
    awready: Out,
    awaddr: In,
    wdata: In,
    wstrb: In,
    bvalid: Out,
    bresp: Out,
    /// A register write (not CMD) between its AW/W handshake and its write response.
    reg_write: bool,
    bready: In,
    cmd_issued: bool,
    /// Edge of the last CMD write handshake.
    pub last_cmd_cycle: u64,
    req_cycles: Vec<VecDeque<u64>>,
    /// The model the bench runs (for build figures).
    pub model: Model,
}

impl Bench {
    /// Generates, builds, resets and initialises an engine of configuration `cfg`.
    pub fn new(cfg: &Config, opts: &BenchOptions) -> Result<Bench> {
        Bench::new_with_mem(cfg, opts, &MemOptions::default())
    }

    /// [`Bench::new`] with the memory model of `mem` (two_level in_memory; ignored otherwise).
    pub fn new_with_mem(cfg: &Config, opts: &BenchOptions, mem: &MemOptions) -> Result<Bench> {
        let verilog = crate::sim_verilog(cfg)?;
        let model = Model::build(
            &verilog,
            &cfg.top,
            &BuildOptions::traced(opts.trace.is_some()),
        )
        .context("building the Verilator model")?;
        let mut sim = model.try_instantiate()?;
        if let Some(path) = &opts.trace {
            sim.trace(path)?;
        }
        let n = cfg.ports.len();
        let mut sources = Vec::with_capacity(n);
        let mut sinks = Vec::with_capacity(n);
        let mut ports = Vec::with_capacity(n);
        for (i, p) in cfg.ports.iter().enumerate() {
            let seed = opts
                .seed
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                .wrapping_add(i as u64);
            sources.push(
                StreamSource::new(&sim, &format!("s_{p}_req_"), &REQ_FIELDS)?
                    .with_idle(opts.req_idle, seed ^ 0x1111),
            );
            sinks.push(
                StreamSink::new(&sim, &format!("m_{p}_rsp_"), &RSP_FIELDS)?
                    .with_backpressure(opts.rsp_backpressure, seed ^ 0x2222),
            );
            ports.push(PortIo {
                req_valid: sim.input(&format!("s_{p}_req_valid"))?,
                req_ready: sim.output(&format!("s_{p}_req_ready"))?,
                req_qpn: sim.input(&format!("s_{p}_req_qpn"))?,
                req_tag: sim.input(&format!("s_{p}_req_tag"))?,
            });
        }
        let axil = AxiLiteMaster::new(&sim, "s_axil_")?.with_random(
            opts.axil_random,
            opts.axil_random,
            opts.seed ^ 0x3333,
        );
        let mem_opts = mem;
        let mem = if (cfg.mode == qptable::config::Mode::TwoLevel
            && cfg.directory == qptable::config::Directory::InMemory)
            || cfg.state == qptable::config::State::InMemory
        {
            Some(
                AxiMemory::new(&sim, "m_axi_")?
                    .with_seed(opts.seed ^ 0x4444)
                    .with_latency(mem_opts.latency)
                    .with_ar_backpressure(mem_opts.ar_backpressure)
                    .with_r_gaps(mem_opts.r_gaps)
                    .with_aw_log(cfg.state == qptable::config::State::InMemory),
            )
        } else {
            None
        };
        let mut bench = Bench {
            mem,
            rst: sim.input("rst")?,
            awvalid: sim.input("s_axil_awvalid")?,
            awready: sim.output("s_axil_awready")?,
            awaddr: sim.input("s_axil_awaddr")?,
            wdata: sim.input("s_axil_wdata")?,
            wstrb: sim.input("s_axil_wstrb")?,
            bresp: sim.output("s_axil_bresp")?,
            reg_write: false,
            bvalid: sim.output("s_axil_bvalid")?,
            bready: sim.input("s_axil_bready")?,
            sb: Scoreboard::new(cfg),
            cfg: cfg.clone(),
            sim,
            axil,
            sources,
            sinks,
            mismatches: Vec::new(),
            latency: vec![Latency::default(); n],
            keep_responses: false,
            responses: vec![Vec::new(); n],
            ports,
            cmd_issued: false,
            last_cmd_cycle: 0,
            req_cycles: vec![VecDeque::new(); n],
            model,
        };
        bench.reset()?;
        Ok(bench)
    }

    /// Synchronous reset for two cycles, then waits for INIT_DONE (polling STATUS).
    pub fn reset(&mut self) -> Result<()> {
        self.sim.set(self.rst, 1);
        self.sim.step_n(2);
        self.sim.set(self.rst, 0);
        let old = std::mem::replace(&mut self.sb, Scoreboard::new(&self.cfg));
        // The memory is not the engine's: it keeps its contents over a reset.
        self.sb.model.copy_memory(&old.model);
        // The init sweep writes one index per cycle.
        let limit = u64::from(self.cfg.max_qps()) + 10_000;
        let start = self.sim.cycle();
        loop {
            let (status, resp) = self.read(regs::STATUS)?;
            if resp != AxiResp::Okay {
                bail!("STATUS read answered {resp:?}");
            }
            if status & regs::STATUS_INIT_DONE != 0 {
                return Ok(());
            }
            if self.sim.cycle() - start > limit {
                bail!(
                    "INIT_DONE not set {} cycles after reset",
                    self.sim.cycle() - start
                );
            }
            self.run_cycles(64.min(u64::from(self.cfg.max_qps())))?;
        }
    }

    /// One clock cycle of every agent, then the scoreboard.
    pub fn step(&mut self) {
        self.axil.drive(&mut self.sim);
        for s in &mut self.sources {
            s.drive(&mut self.sim);
        }
        for s in &mut self.sinks {
            s.drive(&mut self.sim);
        }
        if let Some(m) = &mut self.mem {
            m.drive(&mut self.sim);
        }
        self.sim.step();
        if let Some(m) = &mut self.mem {
            m.observe(&self.sim);
        }
        self.axil.observe(&self.sim);
        for s in &mut self.sources {
            s.observe(&self.sim);
        }
        for s in &mut self.sinks {
            s.observe(&self.sim);
        }
        self.score_edge();
    }

    /// Feeds what happened at the last edge to the scoreboard, in its order.
    fn score_edge(&mut self) {
        let cycle = self.sim.cycle();
        // 1. Responses.
        for p in 0..self.sinks.len() {
            while let Some(b) = self.sinks[p].pop() {
                if let Some(t) = self.req_cycles[p].pop_front() {
                    self.latency[p].add(b.cycle - t);
                }
                if self.keep_responses {
                    self.responses[p].push([b.cycle, b[0], b[1], b[2], b[3]]);
                }
                if let Err(m) = self.sb.response(p, b[0] as u32, b[1], b[2], b[3]) {
                    self.mismatches
                        .push(format!("cycle {cycle}: {}", m.message()));
                }
            }
        }
        // 2. Completion of the command or register write (B handshake).
        if self.sim.is_high(self.bvalid) && self.sim.driven(self.bready) == 1 {
            if self.cmd_issued {
                self.cmd_issued = false;
                if let Err(m) = self.sb.command_completed() {
                    self.mismatches
                        .push(format!("cycle {cycle}: {}", m.message()));
                }
            } else if self.reg_write {
                self.reg_write = false;
                let got = if self.sim.get(self.bresp) == 0 {
                    Ok(())
                } else {
                    Err(())
                };
                if let Err(m) = self.sb.register_write_completed(got) {
                    self.mismatches
                        .push(format!("cycle {cycle}: {}", m.message()));
                }
            }
        }
        // 3. Issue of a command or register write (AW/W handshake; the slave takes both together).
        if self.sim.driven(self.awvalid) == 1 && self.sim.is_high(self.awready) {
            let addr = self.sim.driven(self.awaddr) as u32;
            let word = self.sim.driven(self.wdata) as u32;
            if addr & 0xFFC == regs::CMD {
                self.sb.command_issued_at(Command::decode(word), cycle);
                self.cmd_issued = true;
                self.last_cmd_cycle = cycle;
            } else {
                let strb = self.sim.driven(self.wstrb) as u8;
                self.sb.register_write_issued(addr, word, strb);
                self.reg_write = true;
            }
        }
        // 4. Requests.
        for (p, io) in self.ports.iter().enumerate() {
            if self.sim.driven(io.req_valid) == 1 && self.sim.is_high(io.req_ready) {
                let qpn = self.sim.driven(io.req_qpn) as u32;
                let tag = self.sim.driven(io.req_tag);
                self.sb.request(p, qpn, tag);
                self.req_cycles[p].push_back(cycle);
            }
        }
    }

    /// Runs `n` cycles.
    pub fn run_cycles(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            self.step();
        }
        Ok(())
    }

    /// Steps until `done` holds, at most `max` cycles.
    pub fn run_until(&mut self, max: u64, mut done: impl FnMut(&Bench) -> bool) -> Result<u64> {
        let start = self.sim.cycle();
        while !done(self) {
            if self.sim.cycle() - start >= max {
                bail!("not done after {max} cycles (cycle {})", self.sim.cycle());
            }
            self.step();
        }
        Ok(self.sim.cycle() - start)
    }

    /// Steps until every request is sent and answered and the control port is idle.
    pub fn drain(&mut self, max: u64) -> Result<u64> {
        self.run_until(max, |b| {
            b.sources.iter().all(|s| s.is_done())
                && b.sb.outstanding() == 0
                && b.axil.is_idle()
                && !b.cmd_issued
        })
    }

    /// two_level in_memory: writes `v` at `addr` into the memory and into the model's copy.
    /// The engine reads a lookup's directory entry some cycles after the request: lookups in
    /// flight now may see the old or the new contents, later ones see the new
    /// ([`Scoreboard::memory_changed`]).
    pub fn mem_write_u64(&mut self, addr: u64, v: u64) {
        if let Some(m) = &mut self.mem {
            m.write_u64(addr, v);
        }
        self.sb.model.mem_write_u64(addr, v);
        self.sb.memory_changed();
    }

    /// two_level in_memory: writes directory entry `i` at the current TABLE_BASE.
    pub fn mem_write_dir(&mut self, i: u32, entry: u64) {
        let a = self.sb.model.mem_dir_address(i);
        self.mem_write_u64(a, entry);
    }

    /// two_level in_memory: reads of `range` answer SLVERR (and MEM_ERROR in the model).
    pub fn mem_add_error(&mut self, range: std::ops::Range<u64>) {
        if let Some(m) = &mut self.mem {
            m.add_error_range(range.clone(), AxiResp::SlvErr);
        }
        self.sb.model.mem_add_error(range);
        self.sb.memory_changed();
        self.sb.state_errors_changed();
    }

    /// two_level in_memory: no read answers an error any more.
    pub fn mem_clear_errors(&mut self) {
        if let Some(m) = &mut self.mem {
            m.clear_error_ranges();
        }
        self.sb.model.mem_clear_errors();
        self.sb.memory_changed();
    }

    /// Queues a lookup on port `p`.
    pub fn lookup(&mut self, p: usize, qpn: u32, tag: u64) {
        let tag = tag & mask(self.cfg.tag_bits);
        self.sources[p].push([u64::from(qpn & 0xFF_FFFF), tag]);
    }

    /// Reads a register (blocking; every other bus keeps running).
    pub fn read(&mut self, addr: u32) -> Result<(u32, AxiResp)> {
        let id = self.axil.push_read(u64::from(addr));
        let d = self.wait_axil(id)?;
        Ok((d.data as u32, d.resp))
    }

    /// Writes a register with all byte strobes (blocking).
    pub fn write(&mut self, addr: u32, data: u32) -> Result<AxiResp> {
        self.write_strb(addr, data, 0xF)
    }

    /// Writes a register with byte strobes `strb` (blocking). Every write (also those queued
    /// on `axil` directly) is applied to the model at its AW/W handshake and its response
    /// checked against the model at the write response.
    pub fn write_strb(&mut self, addr: u32, data: u32, strb: u8) -> Result<AxiResp> {
        let id = self
            .axil
            .push_write(u64::from(addr), u64::from(data), u64::from(strb));
        Ok(self.wait_axil(id)?.resp)
    }

    fn wait_axil(&mut self, id: u64) -> Result<qptable_sim::AxilDone> {
        let limit = 1_000 + 4 * u64::from(self.cfg.max_qps());
        let start = self.sim.cycle();
        loop {
            if let Some(d) = self.axil.take_done(id) {
                return Ok(d);
            }
            if self.sim.cycle() - start > limit {
                return Err(anyhow!(
                    "control port operation {id} not done after {limit} cycles"
                ));
            }
            self.step();
        }
    }

    /// Runs a command (blocking; lookups keep flowing), reads CMD_RESULT, and checks both
    /// against the model. Returns the hardware's result.
    pub fn command(&mut self, cmd: Command) -> Result<CmdResult> {
        let resp = self.write(regs::CMD, cmd.encode())?;
        if resp != AxiResp::Okay {
            self.mismatches.push(format!(
                "command {cmd:?}: write answered {resp:?}, not OKAY"
            ));
        }
        let (word, resp) = self.read(regs::CMD_RESULT)?;
        if resp != AxiResp::Okay {
            bail!("CMD_RESULT read answered {resp:?}");
        }
        if let Err(m) = self.sb.check_cmd_result(word) {
            self.mismatches
                .push(format!("command {cmd:?}: {}", m.message()));
        }
        CmdResult::from_register(word).ok_or_else(|| anyhow!("bad CMD_RESULT {word:#010x}"))
    }

    /// Everything that must hold at the end of a run: nothing outstanding, no mismatch, no
    /// protocol violation on any bus.
    pub fn finish(&self) -> Result<()> {
        let mut problems: Vec<String> = self.mismatches.iter().take(10).cloned().collect();
        if self.mismatches.len() > 10 {
            problems.push(format!("... {} mismatches in all", self.mismatches.len()));
        }
        if self.sb.outstanding() != 0 {
            problems.push(format!("{} lookups never answered", self.sb.outstanding()));
        }
        for s in &self.sinks {
            if let Err(e) = s.check() {
                problems.push(format!("{e:#}"));
            }
        }
        if let Err(e) = self.axil.check() {
            problems.push(format!("{e:#}"));
        }
        if let Some(m) = &self.mem {
            if let Err(e) = m.check() {
                problems.push(format!("{e:#}"));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            bail!("{}", problems.join("\n"))
        }
    }

    /// Responses per status on port `p`, as counted by the scoreboard.
    pub fn status_counts(&self, p: usize) -> [u64; 6] {
        self.sb.status_counts(p)
    }
}

/// All ones in the low `bits` bits.
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Names of the lookup statuses, by code.
pub fn status_name(code: usize) -> &'static str {
    Status::from_u64(code as u64).map_or("?", |s| s.name())
}
