//! Cross-simulator equivalence: one seeded stimulus, run on the Verilator model (through
//! `qptable-sim`) and on Icarus Verilog (`iverilog -g2012` + `vvp`), every output compared
//! cycle by cycle.
//!
//! # How
//!
//! 1. [`record`] runs the stimulus on Verilator with reactive agents: a [`StreamSource`] and a
//!    [`StreamSink`] per lookup port (idle cycles, backpressure, phases of full speed), an
//!    [`AxiLiteMaster`] that issues commands (ALLOC, ALLOC_AT, PUBLISH, FREE, DIR_FLUSH and bad
//!    ones, chosen from what earlier results returned) and random register reads and writes,
//!    and in `directory = in_memory` an [`AxiMemory`] answering the directory reads (random
//!    latency, AR backpressure, R gaps, SLVERR ranges, entries rewritten under traffic). Every
//!    cycle it records the value of every input (what the agents drove) and of every output
//!    (what the rising edge sampled, see the step semantics of `qptable-sim`).
//! 2. [`IcarusBench`] writes a plain Verilog testbench that replays those input vectors from a
//!    file (`$readmemh`): inputs change at the falling edge (time `10c`, clock low), outputs
//!    are written with `$fwrite` at time `10c + 4`, the clock rises at `10c + 5`. That is the
//!    point at which the harness samples outputs, so the two traces line up cycle by cycle,
//!    and no input changes at a rising edge (no testbench race).
//! 3. [`compare`] checks the Icarus trace against the recorded one: the first differing
//!    cycle, signal and both values on a difference (an X or Z bit in Icarus is a difference).
//!
//! The inputs of a cycle only depend on outputs of earlier cycles (agents drive before the
//! step, from what the previous edge sampled), so replaying the recorded vectors is exact
//! as long as the two simulators agree, and the first difference is a real one.

use anyhow::{bail, ensure, Context, Result};
use qptable::config::{Config, Directory, Mode};
use qptable::model::regs;
use qptable::spec::{opcode, CmdStatus, QPN_MASK};
use qptable_sim::axi_mem::{AxiMemory, Latency};
use qptable_sim::{Agent, AxiLiteMaster, AxiResp, Dir, In, Model, Out, StreamSink, StreamSource};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Cache lines of a small variant with the state in memory (the fewest `cache_lines` allows).
pub const SMALL_CACHE_LINES: u32 = 16;
/// Fill slots of a small variant with the state in memory.
pub const SMALL_MAX_MISSES: u32 = 4;

/// The configuration `cfg` scaled down to `index_bits` (when it has more): `max_qps` becomes
/// 7/8 of the index space (so that OUT_OF_RANGE occurs) unless the configuration already
/// leaves part of the space out of range, and in `two_level` `leaf_bits` shrinks to at most
/// `index_bits - 3` (a directory of several entries). With the state in memory the cache and
/// the miss unit shrink with the table, to at most [`SMALL_CACHE_LINES`] lines and
/// [`SMALL_MAX_MISSES`] fill slots: the small table has `2^(index_bits - block_bits)` blocks
/// (2 at index_bits 7 and block_bits 6), each of which has a line of its own and a slot
/// whenever it misses either way (only the cache's tag sweep after reset is shorter), and an
/// event-driven simulator no longer evaluates the logic of 64 slots that never fill (it
/// made the state-in-memory configuration most of the cross-simulator test's time). Every
/// other parameter is kept.
pub fn small_variant(cfg: &Config, index_bits: u32) -> Result<Config> {
    let mut c = cfg.clone();
    let full = |bits: u32| 1u32 << bits;
    let leaves_out = cfg.max_qps() < full(cfg.index_bits);
    if cfg.index_bits > index_bits {
        c.index_bits = index_bits;
        c.max_qps = Some(full(index_bits) - full(index_bits) / 8);
        c.leaf_bits = c.leaf_bits.min(index_bits - 3);
        if c.state == qptable::config::State::InMemory {
            let blocks = full(index_bits.saturating_sub(c.block_bits)).max(1);
            c.cache_lines = c
                .cache_lines
                .min(SMALL_CACHE_LINES.max(blocks.next_power_of_two()));
            c.max_misses = c.max_misses.min(SMALL_MAX_MISSES.max(blocks));
        }
    } else if !leaves_out {
        c.max_qps = Some(full(c.index_bits) - full(c.index_bits) / 8);
    }
    c.first_index = c.first_index.min(c.max_qps() - 1);
    c.validate()
        .map_err(|e| anyhow::anyhow!("small variant of `{}`: {e}", cfg.top))?;
    Ok(c)
}

/// One port of the top module as the trace sees it.
#[derive(Clone, Debug)]
pub struct Signal {
    pub name: String,
    pub width: u32,
}

impl Signal {
    /// Hex digits of the value (as Icarus prints it with `%h`).
    fn digits(&self) -> usize {
        self.width.div_ceil(4) as usize
    }
}

/// The inputs driven and the outputs sampled in every cycle of a run.
#[derive(Debug)]
pub struct Recording {
    pub inputs: Vec<Signal>,
    pub outputs: Vec<Signal>,
    /// `cycles * inputs.len()` values, cycle-major.
    pub input_values: Vec<u64>,
    /// `cycles * outputs.len()` values, cycle-major.
    pub output_values: Vec<u64>,
    pub cycles: u64,
    /// What the run did, counted on the Verilator side.
    pub stats: Stats,
}

/// What a run exercised: lookup statuses at the response handshakes (all ports), command
/// result statuses, AXI4-Lite responses.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub lookup_status: [u64; 8],
    pub cmd_status: [u64; 16],
    pub cmd_ops: [u64; 16],
    pub reg_reads: u64,
    pub reg_writes: u64,
    pub slverr: u64,
    pub mem_reads: u64,
}

impl Stats {
    pub fn add(&mut self, o: &Stats) {
        for (a, b) in self.lookup_status.iter_mut().zip(o.lookup_status) {
            *a += b;
        }
        for (a, b) in self.cmd_status.iter_mut().zip(o.cmd_status) {
            *a += b;
        }
        for (a, b) in self.cmd_ops.iter_mut().zip(o.cmd_ops) {
            *a += b;
        }
        self.reg_reads += o.reg_reads;
        self.reg_writes += o.reg_writes;
        self.slverr += o.slverr;
        self.mem_reads += o.mem_reads;
    }
}

impl Recording {
    /// The Verilator trace in the format of the Icarus one (one line per cycle, every output
    /// in hex in port order), to diff the two files when they differ.
    pub fn output_text(&self) -> String {
        let n = self.outputs.len();
        let mut t = String::new();
        for c in 0..self.cycles as usize {
            let line: Vec<String> = self
                .outputs
                .iter()
                .enumerate()
                .map(|(k, s)| format!("{:0w$x}", self.output_values[c * n + k], w = s.digits()))
                .collect();
            t.push_str(&line.join(" "));
            t.push('\n');
        }
        t
    }
}

// Opcodes and the OK result as the stimulus' u64 words carry them (SPEC §6, from `spec`).
const OP_ALLOC: u64 = opcode::ALLOC as u64;
const OP_ALLOC_AT: u64 = opcode::ALLOC_AT as u64;
const OP_PUBLISH: u64 = opcode::PUBLISH as u64;
const OP_FREE: u64 = opcode::FREE as u64;
const OP_DIR_FLUSH: u64 = opcode::DIR_FLUSH as u64;
const ST_OK: u64 = CmdStatus::Ok as u64;

/// Traffic phases: (request idle probability, response backpressure probability).
const PHASES: [(f64, f64); 4] = [(0.0, 0.0), (0.3, 0.3), (0.7, 0.1), (0.1, 0.7)];

/// Cycles at the end of a run without new requests or commands, so the trace ends quiet.
const TAIL: u64 = 400;

struct PortAgents {
    src: StreamSource,
    sink: StreamSink,
    rsp_valid: Out,
    rsp_ready: In,
    rsp_status: Out,
}

enum Phase {
    Idle { until: u64 },
    Write { id: u64, op: u64, qpn: u64 },
    Result { id: u64, op: u64, qpn: u64 },
}

/// What the stimulus knows of the table, from command results only.
#[derive(Default)]
struct Known {
    reserved: Vec<u64>,
    valid: Vec<u64>,
    freed: Vec<u64>,
}

fn remove(v: &mut Vec<u64>, qpn: u64) {
    if let Some(p) = v.iter().position(|&q| q == qpn) {
        v.swap_remove(p);
    }
}

/// Runs `cycles` cycles of the seeded stimulus on `model` (built from the Verilog of `cfg`)
/// and records every input and output of every cycle.
pub fn record(model: &Model, cfg: &Config, seed: u64, cycles: u64) -> Result<Recording> {
    let mut sim = model.instantiate();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let in_memory = cfg.mode == Mode::TwoLevel && cfg.directory == Directory::InMemory;
    let on_chip_dir = cfg.mode == Mode::TwoLevel && cfg.directory == Directory::OnChip;

    let mut inputs = Vec::new();
    let mut in_handles = Vec::new();
    let mut outputs = Vec::new();
    let mut out_handles = Vec::new();
    for p in sim.ports() {
        ensure!(
            p.width <= 64,
            "port `{}` is {} bits wide: the cross-simulator trace handles up to 64",
            p.name,
            p.width
        );
        let s = Signal {
            name: p.name.clone(),
            width: p.width,
        };
        match p.dir {
            Dir::Input => inputs.push(s),
            Dir::Output => outputs.push(s),
        }
    }
    for s in &inputs {
        in_handles.push(sim.input(&s.name)?);
    }
    for s in &outputs {
        out_handles.push(sim.output(&s.name)?);
    }

    let mut ports = Vec::new();
    for (k, p) in cfg.ports.iter().enumerate() {
        let sub = seed.wrapping_mul(31).wrapping_add(k as u64);
        ports.push(PortAgents {
            src: StreamSource::new(&sim, &format!("s_{p}_req_"), &["qpn", "tag"])?
                .with_idle(0.3, sub ^ 0x5eed_0001)
                .with_scrambled_idle(true)
                .with_history(false),
            sink: StreamSink::new(
                &sim,
                &format!("m_{p}_rsp_"),
                &["qpn", "tag", "status", "addr"],
            )?
            .with_backpressure(0.3, sub ^ 0x5eed_0002)
            .with_history(false),
            rsp_valid: sim.output(&format!("m_{p}_rsp_valid"))?,
            rsp_ready: sim.input(&format!("m_{p}_rsp_ready"))?,
            rsp_status: sim.output(&format!("m_{p}_rsp_status"))?,
        });
    }
    let mut axil = AxiLiteMaster::new(&sim, "s_axil_")?.with_random(0.2, 0.2, seed ^ 0xa1);
    // The directory in memory reads it; the state in memory reads and writes its table
    // (at STATE_BASE 0: the memory model serves any address).
    let state_in_memory = cfg.state == qptable::config::State::InMemory;
    let mut mem = if in_memory || state_in_memory {
        Some(
            AxiMemory::new(&sim, "m_axi_")?
                .with_seed(seed ^ 0x3e3)
                .with_latency(Latency::Uniform(1, 12))
                .with_ar_backpressure(0.2)
                .with_r_gaps(0.2)
                .with_out_of_order(false)
                .with_scrambled_idle(true),
        )
    } else {
        None
    };
    let rst = sim.input("rst")?;

    let max_qps = cfg.max_qps() as u64;
    let space = 1u64 << cfg.index_bits;
    let gen_mask = (1u64 << (24 - cfg.index_bits)) - 1;
    let tag_mask = (1u64 << cfg.tag_bits) - 1;
    let strb = axil.strb_all();
    let dir_entries = max_qps.div_ceil(1 << cfg.leaf_bits);
    let table_base: u64 = rng.gen_range(1..1u64 << 20) << 12;
    let page_base = |rng: &mut ChaCha8Rng| (rng.gen::<u64>() & ((1 << 40) - 1)) & !63;

    let mut rec_in = Vec::with_capacity(cycles as usize * inputs.len());
    let mut rec_out = Vec::with_capacity(cycles as usize * outputs.len());
    let mut stats = Stats::default();
    let mut known = Known::default();
    let mut phase = Phase::Idle { until: 0 };
    let reset_cycles = rng.gen_range(2..6u64);
    let write_dir_mem = |mem: &mut AxiMemory, rng: &mut ChaCha8Rng, i: u64| {
        let a = table_base + 8 * i;
        let e = page_base(rng) | rng.gen_bool(0.8) as u64;
        mem.write_u64(a, e);
    };
    if let Some(m) = mem.as_mut().filter(|_| in_memory) {
        for i in 0..dir_entries {
            write_dir_mem(m, &mut rng, i);
        }
        // One directory entry answers SLVERR: MEM_ERROR for its indexes.
        let bad = rng.gen_range(0..dir_entries);
        m.add_error_range(
            table_base + 8 * bad..table_base + 8 * bad + 8,
            AxiResp::SlvErr,
        );
    }
    // Register addresses read at random: every mapped one and a few unmapped.
    let mut read_addrs: Vec<u64> = vec![
        0x000, 0x004, 0x008, 0x00C, 0x010, 0x014, 0x018, 0x020, 0x024, 0x034, 0x040, 0x044, 0x048,
        0x180, 0x184, 0x188, 0x18C, 0x190, 0x194, 0x198, 0x030, 0x01C, 0x0FC, 0xFFC, 0x1E0,
    ];
    for p in 0..4u64 {
        for off in (0..0x20).step_by(4) {
            read_addrs.push(0x100 + 0x20 * p + off);
        }
    }

    let mut fill = true;
    let mut cycle = 0u64;
    while cycle < cycles {
        let active = cycle >= reset_cycles && cycle + TAIL < cycles;
        sim.set_bool(rst, cycle < reset_cycles);
        if cycle.is_multiple_of(1500) {
            let (idle_p, bp) = PHASES[rng.gen_range(0..PHASES.len())];
            for p in ports.iter_mut() {
                p.src.set_idle_prob(idle_p);
                p.sink.set_backpressure(bp);
            }
            fill = rng.gen_bool(0.5);
        }
        if cycle + TAIL >= cycles {
            for p in ports.iter_mut() {
                p.sink.set_backpressure(0.0);
            }
        }
        // Set-up writes once reset is over (a transfer during reset is dropped), before any
        // command.
        if cycle == reset_cycles {
            axil.push_write(regs::TABLE_BASE_LO as u64, table_base & 0xffff_ffff, strb);
            axil.push_write(regs::TABLE_BASE_HI as u64, table_base >> 32, strb);
            if on_chip_dir {
                for i in 0..dir_entries {
                    let e = if rng.gen_bool(0.75) {
                        page_base(&mut rng) | 1
                    } else {
                        page_base(&mut rng)
                    };
                    axil.push_write(regs::DIR_INDEX as u64, i, strb);
                    axil.push_write(regs::DIR_ENTRY_LO as u64, e & 0xffff_ffff, strb);
                    axil.push_write(regs::DIR_ENTRY_HI as u64, e >> 32, strb);
                }
            }
        }
        // Lookups: keep two requests queued on every port.
        if active {
            for p in ports.iter_mut() {
                while p.src.pending() < 2 {
                    let qpn = pick_qpn(&mut rng, &known, max_qps, space, cfg.index_bits, gen_mask);
                    p.src.push([qpn, rng.gen::<u64>() & tag_mask]);
                }
            }
        }
        // Commands, one at a time: CMD write, then CMD_RESULT read after the write response.
        if let Phase::Idle { until } = phase {
            if active && cycle >= until && axil.writes_pending() == 0 {
                // Sometimes a register write first: TABLE_BASE (SLVERR while QPs are in use),
                // a read-only register, an unmapped address, a directory entry.
                if rng.gen_bool(0.1) {
                    let (a, d) = match rng.gen_range(0..4) {
                        0 => (regs::TABLE_BASE_LO as u64, table_base & 0xffff_ffff),
                        1 => (regs::ID as u64, rng.gen::<u32>() as u64),
                        2 => (0x0F0, rng.gen::<u32>() as u64),
                        _ if on_chip_dir => (regs::DIR_INDEX as u64, rng.gen_range(0..dir_entries)),
                        _ => (regs::STATUS as u64, 0),
                    };
                    axil.push_write(a, d, strb);
                    stats.reg_writes += 1;
                }
                let (op, qpn) = pick_command(&mut rng, &known, fill, max_qps, space, cfg, gen_mask);
                let id =
                    axil.push_write(regs::CMD as u64, (op << regs::CMD_OPCODE_SHIFT) | qpn, strb);
                stats.cmd_ops[op as usize] += 1;
                phase = Phase::Write { id, op, qpn };
            }
        }
        if active && axil.reads_pending() == 0 && rng.gen_bool(0.02) {
            axil.push_read(*read_addrs.choose(&mut rng).expect("addresses"));
            stats.reg_reads += 1;
        }
        // In-memory directory: rewrite an entry now and then (a DIR_FLUSH makes it seen).
        if let Some(m) = mem.as_mut() {
            if active && rng.gen_bool(0.002) {
                let i = rng.gen_range(0..dir_entries);
                write_dir_mem(m, &mut rng, i);
            }
        }

        // One cycle: drive, record the inputs, step, record the outputs, observe.
        for p in ports.iter_mut() {
            p.src.drive(&mut sim);
            p.sink.drive(&mut sim);
        }
        axil.drive(&mut sim);
        if let Some(m) = mem.as_mut() {
            m.drive(&mut sim);
        }
        rec_in.extend(in_handles.iter().map(|&i| sim.driven(i)));
        sim.step();
        rec_out.extend(out_handles.iter().map(|&o| sim.get(o)));
        for p in ports.iter_mut() {
            p.src.observe(&sim);
            p.sink.observe(&sim);
            if sim.is_high(p.rsp_valid) && sim.driven(p.rsp_ready) != 0 {
                stats.lookup_status[sim.get(p.rsp_status) as usize & 7] += 1;
            }
        }
        axil.observe(&sim);
        if let Some(m) = mem.as_mut() {
            m.observe(&sim);
        }
        cycle += 1;

        while let Some(d) = axil.pop_done() {
            if d.resp != AxiResp::Okay {
                stats.slverr += 1;
            }
            phase = match phase {
                Phase::Write { id, op, qpn } if d.id == id => {
                    ensure!(
                        d.resp == AxiResp::Okay,
                        "seed {seed}: CMD write answered {:?} at cycle {cycle}",
                        d.resp
                    );
                    let id = axil.push_read(regs::CMD_RESULT as u64);
                    Phase::Result { id, op, qpn }
                }
                Phase::Result { id, op, qpn } if d.id == id => {
                    let status = d.data >> regs::CMD_RESULT_STATUS_SHIFT;
                    let got = d.data & u64::from(QPN_MASK);
                    stats.cmd_status[status as usize] += 1;
                    if status == ST_OK {
                        match op {
                            OP_ALLOC => known.reserved.push(got),
                            OP_ALLOC_AT => {
                                known
                                    .freed
                                    .retain(|&q| q & (space - 1) != qpn & (space - 1));
                                known.reserved.push(qpn)
                            }
                            OP_PUBLISH => {
                                remove(&mut known.reserved, qpn);
                                known.valid.push(qpn);
                            }
                            OP_FREE => {
                                remove(&mut known.valid, qpn);
                                remove(&mut known.reserved, qpn);
                                known.freed.push(qpn);
                                if known.freed.len() > 64 {
                                    known.freed.remove(0);
                                }
                            }
                            _ => {}
                        }
                    }
                    // In memory, now and then another directory entry answers SLVERR (the
                    // engine sees it once that entry is no longer cached: after a DIR_FLUSH).
                    if let Some(m) = mem.as_mut().filter(|_| in_memory) {
                        if rng.gen_bool(if op == OP_DIR_FLUSH { 0.3 } else { 0.003 }) {
                            m.clear_error_ranges();
                            let bad = rng.gen_range(0..dir_entries);
                            m.add_error_range(
                                table_base + 8 * bad..table_base + 8 * bad + 8,
                                AxiResp::SlvErr,
                            );
                        }
                    }
                    Phase::Idle {
                        until: cycle + rng.gen_range(0..24),
                    }
                }
                other => other,
            };
        }
    }
    for p in &ports {
        p.sink.check()?;
        ensure!(
            p.src.is_done() && !p.src.presenting(),
            "seed {seed}: requests of {} still pending at the end",
            p.src.prefix()
        );
    }
    axil.check()?;
    ensure!(
        axil.is_idle(),
        "seed {seed}: AXI4-Lite transfers still pending at the end: {} writes, {} reads, {}",
        axil.writes_pending(),
        axil.reads_pending(),
        match phase {
            Phase::Idle { .. } => "no command".to_string(),
            Phase::Write { op, qpn, .. } => format!("command {op} qpn {qpn:#x} not answered"),
            Phase::Result { op, .. } => format!("CMD_RESULT of command {op} not read"),
        }
    );
    if let Some(m) = mem.as_ref() {
        m.check()?;
        stats.mem_reads = m.stats().reads_done;
    }
    Ok(Recording {
        inputs,
        outputs,
        input_values: rec_in,
        output_values: rec_out,
        cycles,
        stats,
    })
}

fn pick_qpn(
    rng: &mut ChaCha8Rng,
    known: &Known,
    max_qps: u64,
    space: u64,
    index_bits: u32,
    gen_mask: u64,
) -> u64 {
    let with_gen = |g: u64, index: u64| ((g & gen_mask) << index_bits) | index;
    let r = rng.gen_range(0..100);
    match r {
        0..=44 if !known.valid.is_empty() => *known.valid.choose(rng).expect("non-empty"),
        45..=59 if !known.valid.is_empty() => {
            // A live index with another generation: STALE.
            let q = *known.valid.choose(rng).expect("non-empty");
            let g = (q >> index_bits) ^ rng.gen_range(1..=gen_mask.max(1));
            with_gen(g, q & (space - 1))
        }
        60..=69 if !known.reserved.is_empty() => *known.reserved.choose(rng).expect("non-empty"),
        70..=79 if !known.freed.is_empty() => *known.freed.choose(rng).expect("non-empty"),
        80..=87 if max_qps < space => with_gen(rng.gen(), rng.gen_range(max_qps..space)),
        _ => rng.gen::<u64>() & u64::from(QPN_MASK),
    }
}

fn pick_command(
    rng: &mut ChaCha8Rng,
    known: &Known,
    fill: bool,
    max_qps: u64,
    space: u64,
    cfg: &Config,
    gen_mask: u64,
) -> (u64, u64) {
    let with_gen = |g: u64, index: u64| ((g & gen_mask) << cfg.index_bits) | index;
    let r = rng.gen_range(0..100);
    let (alloc, publish) = if fill { (45, 75) } else { (20, 45) };
    match r {
        _ if r < alloc => (OP_ALLOC, 0),
        _ if r < publish && !known.reserved.is_empty() => {
            (OP_PUBLISH, *known.reserved.choose(rng).expect("non-empty"))
        }
        _ if r < 88 && !known.valid.is_empty() => {
            (OP_FREE, *known.valid.choose(rng).expect("non-empty"))
        }
        88..=92 => {
            // ALLOC_AT: any index (also below first_index, in use, or out of range).
            let index = rng.gen_range(0..space.min(max_qps + 4));
            (OP_ALLOC_AT, with_gen(rng.gen(), index))
        }
        93..=94 => (
            *[OP_PUBLISH, OP_FREE].choose(rng).expect("two"),
            rng.gen::<u64>() & u64::from(QPN_MASK),
        ),
        95..=97 => (
            *[0u64, 6, 7, 9, 15].choose(rng).expect("opcodes"),
            rng.gen::<u64>() & u64::from(QPN_MASK),
        ),
        _ => (OP_DIR_FLUSH, 0),
    }
}

/// A compiled Icarus testbench around the Verilog of one configuration, replaying recordings
/// of up to `max_cycles` cycles.
pub struct IcarusBench {
    dir: PathBuf,
    vvp: PathBuf,
    inputs: Vec<Signal>,
    max_cycles: u64,
    pub compile_time: Duration,
}

/// Total bits of a stimulus line: every input padded to whole hex digits.
fn padded_bits(inputs: &[Signal]) -> usize {
    inputs.iter().map(|s| 4 * s.digits()).sum()
}

/// The replay testbench (see the module documentation for the timing).
pub fn testbench_verilog(
    top: &str,
    inputs: &[Signal],
    outputs: &[Signal],
    max_cycles: u64,
) -> String {
    let total = padded_bits(inputs);
    let mut v = String::new();
    let decl = |w: u32| {
        if w == 1 {
            String::new()
        } else {
            format!("[{}:0] ", w - 1)
        }
    };
    writeln!(
        v,
        "// Replays per-cycle input vectors on `{top}` and writes every output each cycle.\n\
         // Written by qptable's cross-simulator test (testbench/src/xsim.rs).\n\
         // Inputs change at 10c (clock low), outputs are written at 10c+4, the clock rises at 10c+5.\n\
         module xsim_tb;\n\
         reg clk = 1'b0;\n\
         reg [{}:0] stim [0:{}];\n\
         reg [{}:0] v;",
        total - 1,
        max_cycles - 1,
        total - 1
    )
    .unwrap();
    for s in inputs {
        writeln!(v, "reg {}{};", decl(s.width), s.name).unwrap();
    }
    for s in outputs {
        writeln!(v, "wire {}{};", decl(s.width), s.name).unwrap();
    }
    let conns: Vec<String> = std::iter::once(".clk(clk)".to_string())
        .chain(
            inputs
                .iter()
                .chain(outputs)
                .map(|s| format!(".{0}({0})", s.name)),
        )
        .collect();
    writeln!(v, "{top} dut ({});", conns.join(", ")).unwrap();
    writeln!(
        v,
        "integer c, n, fd;\nreg [8*1024-1:0] stim_file, trace_file;\ninitial begin\n\
         if (!$value$plusargs(\"stim=%s\", stim_file) || !$value$plusargs(\"trace=%s\", trace_file)\n\
             || !$value$plusargs(\"cycles=%d\", n)) begin\n\
           $display(\"xsim_tb: usage: +stim=FILE +trace=FILE +cycles=N\"); $finish;\n\
         end\n\
         $readmemh(stim_file, stim, 0, n - 1);\n\
         fd = $fopen(trace_file, \"w\");\n\
         for (c = 0; c < n; c = c + 1) begin\n\
           v = stim[c];"
    )
    .unwrap();
    let mut off = total;
    for s in inputs {
        off -= 4 * s.digits();
        writeln!(v, "  {} = v[{}+:{}];", s.name, off, s.width).unwrap();
    }
    let fmt = vec!["%h"; outputs.len()].join(" ");
    let args: Vec<&str> = outputs.iter().map(|s| s.name.as_str()).collect();
    writeln!(
        v,
        "  #4 $fwrite(fd, \"{fmt}\\n\", {});\n  #1 clk = 1'b1;\n  #5 clk = 1'b0;\nend\n\
         $fclose(fd);\n$finish;\nend\nendmodule",
        args.join(", ")
    )
    .unwrap();
    v
}

impl IcarusBench {
    /// Writes the design and the testbench into `dir` and compiles them with
    /// `iverilog -g2012`.
    pub fn compile(
        dir: &Path,
        design: &str,
        top: &str,
        inputs: &[Signal],
        outputs: &[Signal],
        max_cycles: u64,
    ) -> Result<IcarusBench> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let design_path = dir.join(format!("{top}.v"));
        let tb_path = dir.join("xsim_tb.v");
        let vvp = dir.join("xsim_tb.vvp");
        std::fs::write(&design_path, design)?;
        std::fs::write(
            &tb_path,
            testbench_verilog(top, inputs, outputs, max_cycles),
        )?;
        let start = Instant::now();
        let out = Command::new("iverilog")
            .args(["-g2012", "-s", "xsim_tb", "-o"])
            .arg(&vvp)
            .arg(&tb_path)
            .arg(&design_path)
            .output()
            .context("cannot run iverilog (install it: scripts/setup)")?;
        if !out.status.success() {
            bail!(
                "iverilog failed on {}:\n{}{}",
                tb_path.display(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok(IcarusBench {
            dir: dir.to_path_buf(),
            vvp,
            inputs: inputs.to_vec(),
            max_cycles,
            compile_time: start.elapsed(),
        })
    }

    /// Replays `rec` under `vvp` (killed when its trace does not grow for `stall`: a hang fails
    /// instead of blocking) and returns the trace text: one line per cycle, the outputs in `%h`.
    pub fn replay(&self, rec: &Recording, name: &str, stall: Duration) -> Result<String> {
        ensure!(
            rec.cycles <= self.max_cycles,
            "{} cycles, the testbench holds {}",
            rec.cycles,
            self.max_cycles
        );
        let stim = self.dir.join(format!("{name}.stim.hex"));
        let trace = self.dir.join(format!("{name}.trace.hex"));
        let mut text = String::with_capacity(rec.cycles as usize * padded_bits(&self.inputs) / 4);
        let n = self.inputs.len();
        for c in 0..rec.cycles as usize {
            for (k, s) in self.inputs.iter().enumerate() {
                write!(text, "{:0w$x}", rec.input_values[c * n + k], w = s.digits()).unwrap();
            }
            text.push('\n');
        }
        std::fs::write(&stim, text)?;
        let _ = std::fs::remove_file(&trace);
        let mut child = Command::new("vvp")
            .arg("-n")
            .arg(&self.vvp)
            .arg(format!("+stim={}", stim.display()))
            .arg(format!("+trace={}", trace.display()))
            .arg(format!("+cycles={}", rec.cycles))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("cannot run vvp (install iverilog: scripts/setup)")?;
        // A hang (zero-delay oscillation: simulated time stops, vvp spins) shows as a trace
        // that stops growing: kill vvp after `stall` without progress.
        let (mut size, mut progress) = (0u64, Instant::now());
        loop {
            if let Some(status) = child.try_wait()? {
                let out = child.wait_with_output()?;
                ensure!(
                    status.success(),
                    "vvp exited with {status}:\n{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                break;
            }
            let now = std::fs::metadata(&trace).map_or(0, |m| m.len());
            if now != size {
                (size, progress) = (now, Instant::now());
            } else if progress.elapsed() > stall {
                let _ = child.kill();
                let _ = child.wait();
                let got = std::fs::read_to_string(&trace)
                    .map(|t| t.lines().count())
                    .unwrap_or(0);
                bail!(
                    "vvp made no progress for {stall:?} (a hang: simulated time stopped?) with \
                     about {got} of {} cycles written to {}",
                    rec.cycles,
                    trace.display()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        std::fs::read_to_string(&trace).with_context(|| format!("reading {}", trace.display()))
    }
}

/// A difference between the two traces.
#[derive(Debug)]
pub struct Difference {
    /// Edge number as `Sim::cycle` counts it (the first edge is 1).
    pub cycle: u64,
    pub signal: String,
    pub verilator: String,
    pub icarus: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "first difference at cycle {} on `{}`: Verilator {}, Icarus {}",
            self.cycle, self.signal, self.verilator, self.icarus
        )
    }
}

/// Compares the Icarus trace with the recorded outputs, every output in every cycle, digit
/// by digit: `Ok(cycles compared)`, or the first [`Difference`] and the number of differing
/// (cycle, signal) pairs. An X or Z digit in Icarus is a difference (Verilator has none: the
/// emitted Verilog must not show an unknown on any output, not even on the payload of an
/// idle stream, where a cocotb bench reading it would fail), and so is a missing line or
/// signal.
pub fn compare(rec: &Recording, icarus: &str) -> std::result::Result<u64, (Difference, u64)> {
    let n = rec.outputs.len();
    let mut lines = icarus.lines();
    let mut first: Option<Difference> = None;
    let mut count = 0u64;
    for c in 0..rec.cycles as usize {
        let mut fields = lines.next().unwrap_or("").split_whitespace();
        for (k, s) in rec.outputs.iter().enumerate() {
            let want = format!("{:0w$x}", rec.output_values[c * n + k], w = s.digits());
            let got = fields.next().unwrap_or("<missing>");
            if got == want {
                continue;
            }
            count += 1;
            if first.is_none() {
                first = Some(Difference {
                    cycle: c as u64 + 1,
                    signal: s.name.clone(),
                    verilator: format!("{}'h{want}", s.width),
                    icarus: format!("{}'h{got}", s.width),
                });
            }
        }
    }
    match first {
        None => Ok(rec.cycles),
        Some(d) => Err((d, count)),
    }
}
