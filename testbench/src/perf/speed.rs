//! Simulation speed (item 3 of [`measure`](super::measure)): the whole engine and one lookup
//! pipeline, by a lean Rust loop over Verilator, the plain C++ Verilator main, and rust-hdl's
//! own simulator, in cycles per second of CPU time and of the wall clock.

use super::measure::PerfOptions;
use anyhow::{anyhow, bail, Context, Result};
use qptable::config::Config;
use qptable::hw::lookup_pipe::LookupPipe;
use qptable::hw::{EngineParams, StateEntry};
use qptable_sim::{
    step_agents, Agent, AxiLiteMaster, BuildOptions, Model, StreamSink, StreamSource,
};
use rust_hdl::prelude::*;
use std::time::Instant;

/// What the lean Rust loop of the speed measurement does, for the report.
pub const SPEED_LOOP: &str = "every cycle: each port's StreamSource is topped up with a new \
request (QPN from a counter) and presents it, each StreamSink is always ready, takes the \
response and pops it (its fields are folded into a checksum), the AxiLiteMaster drives the \
idle control port; one FFI step per cycle; no scoreboard";

/// A simulation speed in cycles per second, by the CPU time of the simulating thread(s)
/// (what the comparisons use: other load on a shared machine does not inflate it) and by the
/// wall clock.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rate {
    pub cpu: f64,
    pub wall: f64,
}

impl Rate {
    /// The better of two measurements of the same thing, figure by figure.
    pub fn best(self, o: Rate) -> Rate {
        Rate {
            cpu: self.cpu.max(o.cpu),
            wall: self.wall.max(o.wall),
        }
    }
}

impl From<qptable_sim::CppSpeed> for Rate {
    fn from(c: qptable_sim::CppSpeed) -> Rate {
        Rate {
            cpu: c.cpu,
            wall: c.wall,
        }
    }
}

/// CPU time of this thread (`thread = true`) or of the whole process, in seconds.
fn cpu_seconds(thread: bool) -> f64 {
    let clock = if thread {
        libc::CLOCK_THREAD_CPUTIME_ID
    } else {
        libc::CLOCK_PROCESS_CPUTIME_ID
    };
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given; both clocks exist on Linux.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Times a run by the wall clock and by CPU time.
struct Stopwatch {
    wall: Instant,
    cpu: f64,
    thread: bool,
}

impl Stopwatch {
    /// CPU time of this thread only.
    fn thread() -> Stopwatch {
        Stopwatch {
            wall: Instant::now(),
            cpu: cpu_seconds(true),
            thread: true,
        }
    }
    /// CPU time of every thread of the process (rust-hdl's `Simulation` runs the clock and
    /// the testbench in threads of their own).
    fn process() -> Stopwatch {
        Stopwatch {
            wall: Instant::now(),
            cpu: cpu_seconds(false),
            thread: false,
        }
    }
    fn rate(&self, cycles: u64) -> Rate {
        let cpu = cpu_seconds(self.thread) - self.cpu;
        let wall = self.wall.elapsed().as_secs_f64();
        Rate {
            cpu: cycles as f64 / cpu.max(1e-9),
            wall: cycles as f64 / wall.max(1e-9),
        }
    }
}

/// Simulation speeds.
#[derive(Clone, Debug, Default)]
pub struct Speed {
    /// Whole engine, Rust loop over Verilator.
    pub engine_rust: Rate,
    /// Whole engine, plain C++ Verilator main.
    pub engine_cpp: Rate,
    /// Responses the engine Rust loop took (a sanity figure: about ports x cycles).
    pub engine_rust_responses: u64,
    /// Lookup pipe, Rust loop over Verilator.
    pub pipe_rust: Rate,
    /// Lookup pipe, plain C++ Verilator main.
    pub pipe_cpp: Rate,
    /// Lookup pipe, rust-hdl `Simulation` (clock and testbench threads; CPU time of the
    /// whole process).
    pub pipe_rust_hdl: Rate,
    /// Lookup pipe, rust-hdl settle loop (`simulate`), no threads.
    pub pipe_rust_hdl_kernel: Rate,
    /// Responses compared between rust-hdl and Verilator on the lookup pipe.
    pub pipe_compared: u64,
    /// Whether they all matched.
    pub pipe_agree: bool,
}

/// Rounds of each Verilator speed measurement: the Rust loop and the C++ main run in turn,
/// `speed_cycles / ROUNDS` cycles each time, and the best rate of each counts (the machine
/// may be shared; interleaving exposes both to the same load, the best round is the least
/// disturbed one).
pub const ROUNDS: u64 = 5;

/// The speeds of [`Speed`] for one configuration.
pub fn measure_speed(cfg: &Config, engine: &Model, opts: &PerfOptions) -> Result<Speed> {
    let mut s = Speed::default();
    let chunk = (opts.speed_cycles / ROUNDS).max(1_000);

    // The whole engine.
    let mut lp = EngineLoop::new(cfg, engine)?;
    for _ in 0..ROUNDS {
        s.engine_rust = s.engine_rust.best(lp.run(chunk));
        s.engine_cpp = s
            .engine_cpp
            .best(engine_cpp_main(cfg, engine, chunk, lp.ready_cycles)?);
    }
    lp.check()?;
    s.engine_rust_responses = lp.responses;

    // One lookup pipe: rust-hdl and Verilator on the same block and stimulus. The stimulus
    // answers no directory read, so a configuration whose directory is in memory is measured
    // on the pipe of the same parameters without its directory (a flat pipe); likewise it
    // answers no block fetch and writes the pipe's state RAM itself, so a configuration whose
    // state is in memory is measured on the pipe with its state on chip.
    let mut params = EngineParams::new(cfg);
    if params.dir_in_memory() {
        params.leaf_bits = None;
    }
    params.state_mem = None;
    let pipe_model = Model::build(
        &lookup_pipe_verilog(&params),
        PIPE_TOP,
        &pipe_build_options(),
    )
    .context("building the Verilator model of the lookup pipe")?;
    let stim = PipeStimulus::new(&params);
    let (rh_rate, rh_rsp) = pipe_rust_hdl_simulation(&params, &stim, opts.rust_hdl_cycles)?;
    s.pipe_rust_hdl = rh_rate;
    let (kernel_rate, kernel_rsp) = pipe_rust_hdl_kernel(&params, &stim, opts.rust_hdl_cycles)?;
    s.pipe_rust_hdl_kernel = kernel_rate;
    let mut lp = PipeLoop::new(&pipe_model, stim, rh_rsp.len())?;
    for _ in 0..ROUNDS {
        s.pipe_rust = s.pipe_rust.best(lp.run(chunk));
        s.pipe_cpp = s
            .pipe_cpp
            .best(Rate::from(pipe_model.cpp_main_benchmark_with(
                chunk,
                0,
                &[
                    ("init_done", 1),
                    ("req_valid", 1),
                    ("rsp_ready", 1),
                    ("table_base", 0x12_8000_0000),
                    ("req_qpn", stim.qpn(0).into()),
                ],
                &[("req_qpn", 1), ("req_tag", 1)],
            )?));
    }
    lp.sink.check()?;
    let vl_rsp = &lp.got;
    let n = rh_rsp.len().min(vl_rsp.len()).min(kernel_rsp.len());
    if std::env::var_os("QPTABLE_PERF_DEBUG").is_some() {
        if let Some(k) = (0..n).find(|&k| rh_rsp[k] != vl_rsp[k] || kernel_rsp[k] != vl_rsp[k]) {
            eprintln!(
                "first difference at response {k}: rust-hdl {:x?}, settle loop {:x?}, Verilator {:x?}",
                rh_rsp[k], kernel_rsp[k], vl_rsp[k]
            );
        }
    }
    s.pipe_compared = n as u64;
    s.pipe_agree = n > 0 && rh_rsp[..n] == vl_rsp[..n] && kernel_rsp[..n] == vl_rsp[..n];
    Ok(s)
}

/// Resets the engine model and steps until INIT_DONE lets the first port accept requests
/// (with `s_<p>_req_valid` low). Returns the cycles that took after the reset.
fn reset_engine(sim: &mut qptable_sim::Sim, cfg: &Config) -> Result<u64> {
    let rst = sim.input("rst")?;
    let ready = sim.output(&format!("s_{}_req_ready", cfg.ports[0]))?;
    sim.set(rst, 1);
    sim.step_n(8);
    sim.set(rst, 0);
    let limit = u64::from(cfg.max_qps()) + 10_000;
    for n in 1..=limit {
        sim.step();
        if sim.is_high(ready) {
            return Ok(n);
        }
    }
    bail!("the engine did not become ready {limit} cycles after reset")
}

/// (a) on the whole engine: see [`SPEED_LOOP`].
struct EngineLoop {
    sim: qptable_sim::Sim,
    sources: Vec<StreamSource>,
    sinks: Vec<StreamSink>,
    axil: AxiLiteMaster,
    tag_mask: u64,
    /// Next QPN of each port (each steps like the C++ main's: +0x9E3779 per request).
    qpn: Vec<u64>,
    acc: u64,
    responses: u64,
    /// Cycles from the end of the reset to the first port's `req_ready` (the init sweep; a
    /// few with the state in memory, which writes nothing at reset).
    ready_cycles: u64,
}

impl EngineLoop {
    fn new(cfg: &Config, model: &Model) -> Result<EngineLoop> {
        let mut sim = model.try_instantiate()?;
        let ready_cycles = reset_engine(&mut sim, cfg)?;
        let mut sources = vec![];
        let mut sinks = vec![];
        for p in &cfg.ports {
            sources.push(
                StreamSource::new(&sim, &format!("s_{p}_req_"), &crate::bench::REQ_FIELDS)?
                    .with_history(false),
            );
            sinks.push(StreamSink::new(
                &sim,
                &format!("m_{p}_rsp_"),
                &crate::bench::RSP_FIELDS,
            )?);
        }
        let axil = AxiLiteMaster::new(&sim, "s_axil_")?;
        Ok(EngineLoop {
            sim,
            sources,
            sinks,
            axil,
            tag_mask: crate::bench::mask(cfg.tag_bits),
            qpn: vec![0; cfg.ports.len()],
            acc: 0,
            responses: 0,
            ready_cycles,
        })
    }

    /// Runs `cycles` cycles; returns the speed.
    fn run(&mut self, cycles: u64) -> Rate {
        let t = Stopwatch::thread();
        let sim = &mut self.sim;
        for i in 0..cycles {
            for (s, q) in self.sources.iter_mut().zip(&mut self.qpn) {
                if s.pending() < 2 {
                    *q = (*q + 0x9E3779) & 0xFF_FFFF;
                    s.push([*q, i & self.tag_mask]);
                }
            }
            self.axil.drive(sim);
            for s in &mut self.sources {
                s.drive(sim);
            }
            for s in &mut self.sinks {
                s.drive(sim);
            }
            sim.step();
            self.axil.observe(sim);
            for s in &mut self.sources {
                s.observe(sim);
            }
            for s in &mut self.sinks {
                s.observe(sim);
                while let Some(b) = s.pop() {
                    self.acc = self.acc.wrapping_mul(31).wrapping_add(b[0] ^ b[2] ^ b[3]);
                    self.responses += 1;
                }
            }
        }
        let rate = t.rate(cycles);
        std::hint::black_box(self.acc);
        rate
    }

    fn check(&self) -> Result<()> {
        for s in &self.sinks {
            s.check()?;
        }
        self.axil.check()
    }
}

/// (b) on the whole engine: the harness's C++ main, after the init sweep (`ready_cycles`, as
/// the Rust loop measured it, and 100 more untimed cycles), with every request valid and
/// response ready high and the request QPNs stepping every cycle.
fn engine_cpp_main(cfg: &Config, model: &Model, cycles: u64, ready_cycles: u64) -> Result<Rate> {
    let mut fixed: Vec<(String, u64)> =
        vec![("s_axil_bready".into(), 1), ("s_axil_rready".into(), 1)];
    let mut stepping: Vec<(String, u64)> = vec![];
    for p in &cfg.ports {
        fixed.push((format!("s_{p}_req_valid"), 1));
        fixed.push((format!("m_{p}_rsp_ready"), 1));
        stepping.push((format!("s_{p}_req_qpn"), 0x9E3779));
        stepping.push((format!("s_{p}_req_tag"), 1));
    }
    let fixed: Vec<(&str, u64)> = fixed.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    let stepping: Vec<(&str, u64)> = stepping.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    Ok(model
        .cpp_main_benchmark_with(cycles, ready_cycles + 100, &fixed, &stepping)?
        .into())
}

// ---- the lookup pipe: rust-hdl and Verilator on the same block ---------------------------

/// Module name of the lookup pipe's Verilog.
pub const PIPE_TOP: &str = "lookup_pipe";

/// Verilog of one [`LookupPipe`] of `params`, top module [`PIPE_TOP`] (its clock is
/// `clock`).
pub fn lookup_pipe_verilog(params: &EngineParams) -> String {
    let mut pipe = LookupPipe::new(params);
    pipe.connect_all();
    let mut defines = ModuleDefines::default();
    pipe.accept(PIPE_TOP, &mut defines);
    defines.defines()
}

fn pipe_build_options() -> BuildOptions {
    BuildOptions {
        clock: "clock".into(),
        ..Default::default()
    }
}

/// Stimulus shared by the rust-hdl and Verilator runs of the lookup pipe: `written` state
/// RAM entries set to {VALID, generation 1} before the lookups, then request `i` asks for
/// [`PipeStimulus::qpn`]`(i)` with tag `i`.
#[derive(Clone, Copy)]
struct PipeStimulus {
    written: u64,
    index_bits: u32,
    index_mask: u64,
}

/// The state RAM word {VALID, generation 1}.
const VALID_GEN1: u64 = (1 << 2) | StateEntry::VALID;

impl PipeStimulus {
    fn new(p: &EngineParams) -> Self {
        PipeStimulus {
            written: u64::from(p.max_qps).min(256),
            index_bits: p.index_bits,
            index_mask: p.index_mask(),
        }
    }
    /// Mostly written entries (OK), some unwritten (NOT_ALLOCATED), every fifth with
    /// generation 2 (STALE where VALID), and indexes past max_qps where it is below 2^bits.
    fn qpn(&self, i: u64) -> u32 {
        let index = ((i * 7) % (self.written + self.written / 4 + 2)) & self.index_mask;
        let gen = if i.is_multiple_of(5) { 2 } else { 1 };
        let gen = if self.index_bits >= 24 { 0 } else { gen };
        ((gen << self.index_bits) | index) as u32 & 0xFF_FFFF
    }
}

/// A response of the lookup pipe: qpn, tag, status, addr.
type PipeRsp = (u64, u64, u64, u64);

/// (c) rust-hdl's `Simulation`: a clock thread (period 10) and a testbench thread that
/// resets, writes the RAM entries, then presents request `i` until its handshake.
fn pipe_rust_hdl_simulation(
    params: &EngineParams,
    stim: &PipeStimulus,
    cycles: u64,
) -> Result<(Rate, Vec<PipeRsp>)> {
    let uut = connected_pipe(params);
    let written = stim.written;
    let stim = *stim;
    let (tx, rx) = std::sync::mpsc::channel::<(Rate, Vec<PipeRsp>)>();
    let mut sim: Simulation<LookupPipe> = Simulation::new();
    sim.add_clock(5, |x: &mut Box<LookupPipe>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<LookupPipe>| {
        let mut x = sim.init()?;
        x.rst.next = true;
        wait_clock_cycles!(sim, clock, x, 2);
        x.rst.next = false;
        x.table_base.next = 0x12_8000_0000u64.into();
        for i in 0..written {
            x.ram_we.next = true;
            x.ram_waddr.next = i.into();
            x.ram_wdata.next = StateEntry {
                state: StateEntry::VALID.into(),
                gen: 1u64.into(),
            };
            wait_clock_cycle!(sim, clock, x);
        }
        x.ram_we.next = false;
        x.init_done.next = true;
        x.rsp_ready.next = true;
        wait_clock_cycle!(sim, clock, x);
        x.req_valid.next = true;
        let mut got = Vec::with_capacity(cycles as usize);
        let mut i = 0u64;
        let t = Stopwatch::process();
        for _ in 0..cycles {
            x.req_qpn.next = u64::from(stim.qpn(i)).into();
            x.req_tag.next = (i & 0xFFFF_FFFF).into();
            // Both come from registers: their value now is the one the next edge samples.
            if x.req_ready.val() {
                i += 1;
            }
            if x.rsp_valid.val() {
                got.push(pipe_rsp_of(&x));
            }
            wait_clock_cycle!(sim, clock, x);
        }
        let _ = tx.send((t.rate(cycles), got));
        sim.done(x)
    });
    sim.run(Box::new(uut), 100 * (cycles + written + 100))
        .map_err(|e| anyhow!("rust-hdl simulation of the lookup pipe failed: {e:?}"))?;
    rx.recv().context("the rust-hdl testbench sent no result")
}

fn pipe_rsp_of(x: &LookupPipe) -> PipeRsp {
    (
        x.rsp_qpn.val().to_u64(),
        x.rsp_tag.val().to_u64(),
        x.rsp_status.val().to_u64(),
        x.rsp_addr.val().to_u64(),
    )
}

/// A lookup pipe of `params` whose inputs the testbench drives, ready for rust-hdl's
/// simulator.
fn connected_pipe(params: &EngineParams) -> LookupPipe {
    let mut uut = LookupPipe::new(params);
    connect_pipe_inputs(&mut uut);
    uut.connect_all();
    uut
}

fn connect_pipe_inputs(uut: &mut LookupPipe) {
    uut.clock.connect();
    uut.rst.connect();
    uut.init_done.connect();
    uut.table_base.connect();
    uut.req_valid.connect();
    uut.req_qpn.connect();
    uut.req_tag.connect();
    uut.rsp_ready.connect();
    uut.ram_we.connect();
    uut.ram_waddr.connect();
    uut.ram_wdata.connect();
}

/// (c') rust-hdl's settle function alone: per cycle, set the inputs with the clock low and
/// settle, sample, raise the clock and settle. No threads, no channels.
fn pipe_rust_hdl_kernel(
    params: &EngineParams,
    stim: &PipeStimulus,
    cycles: u64,
) -> Result<(Rate, Vec<PipeRsp>)> {
    let mut uut = connected_pipe(params);
    rust_hdl::core::check_error::check_all(&uut)
        .map_err(|e| anyhow!("rust-hdl check of the lookup pipe: {e:?}"))?;
    let settle = |uut: &mut LookupPipe, clk: bool| -> Result<()> {
        uut.clock.next = Clock { clk };
        if !simulate(uut, 100) {
            bail!("the lookup pipe did not settle");
        }
        Ok(())
    };
    let edge = |uut: &mut LookupPipe| -> Result<()> {
        settle(uut, false)?;
        settle(uut, true)
    };
    uut.rst.next = true;
    edge(&mut uut)?;
    edge(&mut uut)?;
    uut.rst.next = false;
    uut.table_base.next = 0x12_8000_0000u64.into();
    for i in 0..stim.written {
        uut.ram_we.next = true;
        uut.ram_waddr.next = i.into();
        uut.ram_wdata.next = StateEntry {
            state: StateEntry::VALID.into(),
            gen: 1u64.into(),
        };
        edge(&mut uut)?;
    }
    uut.ram_we.next = false;
    uut.init_done.next = true;
    uut.rsp_ready.next = true;
    edge(&mut uut)?;
    uut.req_valid.next = true;
    let mut got = Vec::with_capacity(cycles as usize);
    let mut i = 0u64;
    let t = Stopwatch::thread();
    for _ in 0..cycles {
        uut.req_qpn.next = u64::from(stim.qpn(i)).into();
        uut.req_tag.next = (i & 0xFFFF_FFFF).into();
        // Inputs applied with the clock low; what the rising edge samples.
        settle(&mut uut, false)?;
        if uut.req_ready.val() {
            i += 1;
        }
        if uut.rsp_valid.val() {
            got.push(pipe_rsp_of(&uut));
        }
        settle(&mut uut, true)?;
    }
    Ok((t.rate(cycles), got))
}

/// (a) on the lookup pipe's Verilator model: reset, the same RAM writes as the rust-hdl runs,
/// then the lean agent loop of [`SPEED_LOOP`] with the requests of [`PipeStimulus`]; keeps
/// the first `keep` responses for the comparison with rust-hdl.
struct PipeLoop {
    sim: qptable_sim::Sim,
    src: StreamSource,
    sink: StreamSink,
    stim: PipeStimulus,
    next: u64,
    keep: usize,
    got: Vec<PipeRsp>,
    acc: u64,
}

impl PipeLoop {
    fn new(model: &Model, stim: PipeStimulus, keep: usize) -> Result<PipeLoop> {
        let mut sim = model.try_instantiate()?;
        let i = |n: &str| sim.input(n);
        let (rst, init_done, base, we, waddr, wdata) = (
            i("rst")?,
            i("init_done")?,
            i("table_base")?,
            i("ram_we")?,
            i("ram_waddr")?,
            i("ram_wdata")?,
        );
        sim.set(rst, 1);
        sim.step_n(2);
        sim.set(rst, 0);
        sim.set(base, 0x12_8000_0000);
        for k in 0..stim.written {
            sim.set(we, 1);
            sim.set(waddr, k);
            sim.set(wdata, VALID_GEN1);
            sim.step();
        }
        sim.set(we, 0);
        sim.set(init_done, 1);
        sim.step();
        let src = StreamSource::new(&sim, "req_", &["qpn", "tag"])?.with_history(false);
        let sink = StreamSink::new(&sim, "rsp_", &["qpn", "tag", "status", "addr"])?;
        Ok(PipeLoop {
            sim,
            src,
            sink,
            stim,
            next: 0,
            keep,
            got: Vec::with_capacity(keep),
            acc: 0,
        })
    }

    /// Runs `cycles` cycles; returns the speed.
    fn run(&mut self, cycles: u64) -> Rate {
        let t = Stopwatch::thread();
        for _ in 0..cycles {
            if self.src.pending() < 2 {
                let n = self.next;
                self.src
                    .push([u64::from(self.stim.qpn(n)), n & 0xFFFF_FFFF]);
                self.next += 1;
            }
            step_agents(&mut self.sim, &mut [&mut self.src, &mut self.sink]);
            while let Some(b) = self.sink.pop() {
                if self.got.len() < self.keep {
                    self.got.push((b[0], b[1], b[2], b[3]));
                }
                self.acc = self.acc.wrapping_mul(31).wrapping_add(b[0] ^ b[2] ^ b[3]);
            }
        }
        let rate = t.rate(cycles);
        std::hint::black_box(self.acc);
        rate
    }
}
