//! Block-level test of the miss unit ([`MissUnit`], SPEC §9 state in memory), alone in
//! Verilator, against a plain model written here and the AXI memory model of the harness
//! ([`AxiMemory`]) with fixed and random latency, AR backpressure, R gaps and error ranges.
//!
//! Every port sends miss requests for random blocks (a few hot blocks, to force merges, and
//! many distinct ones, to exhaust the slots), takes its answers with random backpressure,
//! reads one word of each answered block from the fill buffer once the slot is filled, and
//! releases the slot after a random delay, in the order of its answers (the unit's contract). A command side raises holds on hot blocks (or the
//! block a port sends next, so that every run has requests that wait for a hold) and the
//! test asks `busy` about random blocks every cycle.
//!
//! The model follows the block edge by edge, as the unit's header documents its edges (the
//! request register decides from its registered view of its set, one edge old but for the
//! last edge's slot), and checks: every request answered with a slot, in its port's order;
//! merged exactly when that view has a live, not failed slot of the block, else the first
//! free way of its set (and never a slot that is live, never more than `max_misses` slots,
//! never two reads of one block in flight); a request waits while its set has no free way,
//! and leaves the request register at every edge the model says it may (the throughput); a held request never leaves while
//! its hold is up; the AR fields and address of every read, in the order of the new slots;
//! `rd_filled` / `rd_error` and `busy` exactly as the model; the word read equals memory;
//! the error flag exactly when a beat of the block answered an error; the cache broadcast
//! carries every good fill's beats in fill order and nothing for a failed one; nothing
//! outstanding at the end. Two runs start after a reset in the middle of traffic (slots
//! held, reads in flight, answers and cache writes pending), so the checks above also say
//! that the reset cleared everything. Two runs (1 and 2 ports, 64-bit bus) are replayed on Icarus from
//! the recorded inputs and every output compared cycle by cycle with Verilator
//! ([`xsim`]). Full-speed runs check one new miss per cycle; directed tests check what the
//! memory model never does (`rlast` on the wrong beat) and a slot serving thousands of
//! requests (a port's answer numbers wrapping around).
//!
//! The Verilog of the block is also checked on its own: Verilator lint (`-Wall`, with the
//! waivers `qptable gen` would write beside it, `<top>.vlt`), Icarus, yosys synthesis with
//! `check -assert`, and no port assigned twice in one evaluation.

use qptable::hw::miss_unit::{MissParams, MissUnit, ANSWER_DEPTH, SEQ_BITS};
use qptable::hw::EngineParams;
use qptable_sim::axi_mem::{AxiMemory, Latency};
use qptable_sim::{Agent, AxiResp, BuildOptions, Dir, In, Model, Out, Sim};
use qptable_testbench::block::miss_params as mp;
use qptable_testbench::xsim::{self, IcarusBench, Recording, Signal, Stats};
use qptable_testbench::{block, comb_ports, configs};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::path::Path;

/// The block's ports under plain names: port `p`'s requests `q<p>_valid/ready/block` (a
/// stream), answers `a<p>_valid/ready/slot`, releases `l<p>_valid/slot`, fill reads
/// `f<p>_slot/word/data/filled/error`; the AXI read master `m_axi_*` with `rdata` as wide as
/// the bus.
/// The clock is `clock` (the harness's block clock) or `clk` (the Icarus replay bench's);
/// `cw_data` is 512 bits, or 64 for the Icarus replay (whose trace handles up to 64).
fn wrapper(top: &str, block_top: &str, ports: usize, bus: u32, icarus: bool) -> String {
    let mut decl = String::new();
    let mut conn = String::new();
    for p in 0..ports {
        decl += &format!(
            "    input q{p}_valid, output q{p}_ready, input [20:0] q{p}_block,
    output a{p}_valid, input a{p}_ready, output [7:0] a{p}_slot,
    input l{p}_valid, input [7:0] l{p}_slot,
    input [7:0] f{p}_slot, input [7:0] f{p}_word, output [31:0] f{p}_data,
    output f{p}_filled, output f{p}_error, input [7:0] f{p}_slot2, output f{p}_filled2,\n"
        );
        conn += &format!(
            "        .req_valid${p}(q{p}_valid), .req_ready${p}(q{p}_ready), .req_block${p}(q{p}_block),
        .ans_valid${p}(a{p}_valid), .ans_ready${p}(a{p}_ready), .ans_slot${p}(a{p}_slot),
        .rel_valid${p}(l{p}_valid), .rel_slot${p}(l{p}_slot),
        .rd_slot${p}(f{p}_slot), .rd_word${p}(f{p}_word), .rd_data${p}(f{p}_data),
        .rd_filled${p}(f{p}_filled), .rd_error${p}(f{p}_error),
        .rd_slot2${p}(f{p}_slot2), .rd_filled2${p}(f{p}_filled2),\n"
        );
    }
    let pad = if bus < 512 {
        format!("{{{}'d0, m_axi_rdata}}", 512 - bus)
    } else {
        "m_axi_rdata".to_string()
    };
    let (clock, cw_bits) = if icarus { ("clk", 64) } else { ("clock", 512) };
    format!(
        "module {top}(
    input {clock}, input rst, input [63:0] state_base,
{decl}    output taken_merged, output taken_new, output [7:0] taken_slot,
    output cw_valid, output [20:0] cw_line, output [20:0] cw_block, output [7:0] cw_beat,
    output cw_last, output [{cwm}:0] cw_data,
    input [20:0] busy_block, output busy, input hold_valid, input [20:0] hold_block,
    output m_axi_arvalid, input m_axi_arready, output [63:0] m_axi_araddr,
    output [7:0] m_axi_arlen, output [2:0] m_axi_arsize, output [1:0] m_axi_arburst,
    input m_axi_rvalid, output m_axi_rready, input [{bm}:0] m_axi_rdata,
    input [1:0] m_axi_rresp, input m_axi_rlast
);
    wire [511:0] cw_full;
    assign cw_data = cw_full[{cwm}:0];
    {block_top} u_miss(
        .clock({clock}), .rst(rst), .state_base(state_base),
{conn}        .taken_merged(taken_merged), .taken_new(taken_new), .taken_slot(taken_slot),
        .cw_valid(cw_valid), .cw_line(cw_line), .cw_block(cw_block), .cw_beat(cw_beat),
        .cw_last(cw_last), .cw_data(cw_full),
        .busy_block(busy_block), .busy(busy), .hold_valid(hold_valid), .hold_block(hold_block),
        .arvalid(m_axi_arvalid), .arready(m_axi_arready), .araddr(m_axi_araddr),
        .arlen(m_axi_arlen), .arsize(m_axi_arsize), .arburst(m_axi_arburst),
        .rvalid(m_axi_rvalid), .rready(m_axi_rready), .rdata({pad}),
        .rresp(m_axi_rresp), .rlast(m_axi_rlast)
    );
endmodule
",
        bm = bus - 1,
        cwm = cw_bits - 1
    )
}

fn engine_params(ports: usize) -> EngineParams {
    let port_list = format!(
        "ports=[{}]",
        (0..ports)
            .map(|p| format!("\"p{p}\""))
            .collect::<Vec<_>>()
            .join(",")
    );
    EngineParams::new(&configs::config(&[&port_list]))
}

/// One run's traffic and memory.
#[derive(Clone, Copy, Debug)]
struct Run {
    ports: usize,
    m: MissParams,
    latency: Latency,
    ar_backpressure: f64,
    r_gaps: f64,
    /// Idle probability between a port's requests.
    req_idle: f64,
    /// Probability that a port does not take its answer in a cycle.
    ans_backpressure: f64,
    /// Most cycles between a port's read of a slot and its release.
    release_delay: u64,
    /// Probability that a request is for one of the hot blocks.
    hot: f64,
    /// Distinct cold blocks.
    cold_blocks: usize,
    /// Fraction of the blocks with an error range.
    errors: f64,
    /// Holds raised by the command side.
    holds: bool,
    requests: usize,
    /// Also replay the run on Icarus and compare every output (64-bit bus only).
    icarus: bool,
    /// Before the checked run: traffic with no releases, then a reset of the block (and of
    /// the memory model) in the middle of it; the checked run then starts from what the
    /// reset left.
    reset_under_traffic: bool,
}

/// Every input and output of the wrapper, every cycle, for the Icarus replay.
struct Recorder {
    inputs: Vec<(Signal, In)>,
    outputs: Vec<(Signal, Out)>,
    input_values: Vec<u64>,
    output_values: Vec<u64>,
    cycles: u64,
}

impl Recorder {
    fn new(sim: &Sim) -> Recorder {
        let (mut inputs, mut outputs) = (Vec::new(), Vec::new());
        for p in sim.ports() {
            assert!(
                p.width <= 64,
                "{}: the replay handles up to 64 bits",
                p.name
            );
            let s = Signal {
                name: p.name.clone(),
                width: p.width,
            };
            match p.dir {
                Dir::Input => inputs.push((s, sim.input(&p.name).unwrap())),
                Dir::Output => outputs.push((s, sim.output(&p.name).unwrap())),
            }
        }
        Recorder {
            inputs,
            outputs,
            input_values: Vec::new(),
            output_values: Vec::new(),
            cycles: 0,
        }
    }

    fn sample(&mut self, sim: &Sim) {
        self.input_values
            .extend(self.inputs.iter().map(|(_, i)| sim.driven(*i)));
        self.output_values
            .extend(self.outputs.iter().map(|(_, o)| sim.get(*o)));
        self.cycles += 1;
    }

    fn finish(self) -> Recording {
        Recording {
            inputs: self.inputs.into_iter().map(|(s, _)| s).collect(),
            outputs: self.outputs.into_iter().map(|(s, _)| s).collect(),
            input_values: self.input_values,
            output_values: self.output_values,
            cycles: self.cycles,
            stats: Stats::default(),
        }
    }
}

impl Run {
    fn full_speed(&self) -> bool {
        self.latency == Latency::Fixed(1)
            && self.ar_backpressure == 0.0
            && self.r_gaps == 0.0
            && self.req_idle == 0.0
    }
}

/// A slot as the model sees it.
#[derive(Clone, Copy, Debug)]
struct Slot {
    block: u64,
    refs: u64,
    filled: bool,
    failed: bool,
    broadcast: bool,
}

impl Slot {
    /// Live by its count and its fill (a slot is live too while the decision register's
    /// request is to merge into it: see `live` in `miss_unit`).
    fn live(&self) -> bool {
        self.refs > 0 || !self.filled || (!self.failed && !self.broadcast)
    }
}

/// A request in the request register (taken, not yet moved to the decision register).
#[derive(Clone, Copy, Debug)]
struct Taken {
    port: usize,
    block: u64,
    exempt: bool,
}

/// The request in the decision register: whether it merges, and its slot (the one it merges
/// into, or the free way of its set it takes; none while its set has no free way).
#[derive(Clone, Copy, Debug)]
struct Deciding {
    port: usize,
    block: u64,
    hit: bool,
    slot: Option<usize>,
}

/// An answered request waiting at its port for its fill.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    block: u64,
    slot: usize,
    word: u64,
}

struct PortIo {
    ans_valid: Out,
    ans_ready: In,
    ans_slot: Out,
    rel_valid: In,
    rel_slot: In,
    rd_slot: In,
    rd_word: In,
    rd_data: Out,
    rd_filled: Out,
    rd_error: Out,
    rd_slot2: In,
    rd_filled2: Out,
}

/// The model's state of one port.
#[derive(Default)]
struct PortModel {
    /// Slots of the requests that left the request register, in order: the answer queue.
    answers: VecDeque<usize>,
    waiting: VecDeque<Waiting>,
    /// (due edge, slot) releases, in due order (the order of the answers: the block's
    /// contract).
    releases: VecDeque<(u64, usize)>,
    /// (edge at which rd_data holds the word, block, word, failed).
    reads: VecDeque<(u64, u64, u64, usize)>,
    /// The head presented on the read port this cycle.
    presented: Option<Waiting>,
}

fn miss_unit(name: &str, run: Run, default_seed: u64) {
    let m = run.m;
    let ports = run.ports;
    let params = engine_params(ports);
    let block_top = format!("miss_unit_{name}");
    let top = format!("{block_top}_tb");
    let verilog = block::verilog(MissUnit::new(&params, &m).unwrap(), &block_top).unwrap()
        + &wrapper(&top, &block_top, ports, m.mem_data_bits, run.icarus);
    let model = if run.icarus {
        let opts = BuildOptions {
            clock: "clk".into(),
            ..BuildOptions::default()
        };
        Model::build(&verilog, &top, &opts).unwrap()
    } else {
        block::build(&verilog, &top).unwrap()
    };
    let seed = block::seed(name, default_seed);
    let what = format!("{name} seed {seed}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut sim = model.instantiate();
    let mut rec = run.icarus.then(|| Recorder::new(&sim));
    let step = |sim: &mut Sim, rec: &mut Option<Recorder>| {
        sim.step();
        if let Some(r) = rec {
            r.sample(sim);
        }
    };

    let block_bytes = m.block_bytes();
    let blocks_space = 1u64 << (24 - m.block_bits);
    // Garbage in the bits of a 21-bit block number above `24 - block_bits`, which the block
    // ignores.
    let garbage =
        |rng: &mut ChaCha8Rng| rng.gen_range(0..1u64 << (m.block_bits - 3)) * blocks_space;
    // STATE_BASE aligned to the block only (so a narrow block sits in any lane of a beat),
    // with garbage below the block size, which the block must ignore.
    let base = ((rng.gen::<u64>() & 0xFF_FFFF_FFFF) & !(block_bytes - 1) & !0xFFF_FFFF)
        | (rng.gen_range(0..64u64) * block_bytes);
    let base_in = base | rng.gen_range(0..block_bytes);
    let addr = |b: u64| base + b * block_bytes;

    let mut axi = AxiMemory::new(&sim, "m_axi_")
        .unwrap()
        .with_seed(seed ^ 0x5A5A)
        .with_latency(run.latency)
        .with_ar_backpressure(run.ar_backpressure)
        .with_r_gaps(run.r_gaps);
    // The blocks: hot ones and cold ones, all distinct, random contents; some with an error
    // range of a few bytes somewhere in the block.
    let mut pool: Vec<u64> = Vec::new();
    while pool.len() < 8 + run.cold_blocks {
        let b = rng.gen_range(0..blocks_space);
        if !pool.contains(&b) {
            pool.push(b);
        }
    }
    let mut failing = std::collections::HashSet::new();
    for (k, &b) in pool.iter().enumerate() {
        let bytes: Vec<u8> = (0..block_bytes).map(|_| rng.gen()).collect();
        axi.write_bytes(addr(b), &bytes);
        // The first hot block always fails (when the run has errors): requests for a block
        // whose fill failed keep coming while its waiters still hold the slot.
        if run.errors > 0.0 && k == 0 || rng.gen_bool(run.errors) {
            let off = rng.gen_range(0..block_bytes);
            let len = rng.gen_range(1..=4).min(block_bytes - off);
            let resp = if rng.gen() {
                AxiResp::SlvErr
            } else {
                AxiResp::DecErr
            };
            axi.add_error_range(addr(b) + off..addr(b) + off + len, resp);
            failing.insert(b);
        }
    }
    let hot = &pool[..8];
    let cold = &pool[8..];

    let mut sources =
        block::port_sources(&sim, 'q', &["block"], ports, run.req_idle, seed).unwrap();
    let mut total = 0u64;
    // Each port's blocks in the order it sends them (a hold may pick the next one).
    let mut queued: Vec<Vec<u64>> = vec![vec![]; ports];
    for (src, q) in sources.iter_mut().zip(queued.iter_mut()) {
        for _ in 0..run.requests {
            let b = if rng.gen_bool(run.hot) {
                hot[rng.gen_range(0..hot.len())]
            } else {
                cold[rng.gen_range(0..cold.len())]
            };
            src.push([b | garbage(&mut rng)]);
            q.push(b);
            total += 1;
        }
    }
    let io: Vec<PortIo> = (0..ports)
        .map(|p| PortIo {
            ans_valid: sim.output(&format!("a{p}_valid")).unwrap(),
            ans_ready: sim.input(&format!("a{p}_ready")).unwrap(),
            ans_slot: sim.output(&format!("a{p}_slot")).unwrap(),
            rel_valid: sim.input(&format!("l{p}_valid")).unwrap(),
            rel_slot: sim.input(&format!("l{p}_slot")).unwrap(),
            rd_slot: sim.input(&format!("f{p}_slot")).unwrap(),
            rd_word: sim.input(&format!("f{p}_word")).unwrap(),
            rd_data: sim.output(&format!("f{p}_data")).unwrap(),
            rd_filled: sim.output(&format!("f{p}_filled")).unwrap(),
            rd_error: sim.output(&format!("f{p}_error")).unwrap(),
            rd_slot2: sim.input(&format!("f{p}_slot2")).unwrap(),
            rd_filled2: sim.output(&format!("f{p}_filled2")).unwrap(),
        })
        .collect();
    let o = |n: &str| sim.output(n).unwrap();
    let (taken_merged, taken_new, taken_slot) =
        (o("taken_merged"), o("taken_new"), o("taken_slot"));
    let (cw_valid, cw_line, cw_block, cw_beat, cw_last, cw_data) = (
        o("cw_valid"),
        o("cw_line"),
        o("cw_block"),
        o("cw_beat"),
        o("cw_last"),
        o("cw_data"),
    );
    let busy = o("busy");
    let (arvalid, rready) = (o("m_axi_arvalid"), o("m_axi_rready"));
    let (araddr, arlen, arsize, arburst) = (
        o("m_axi_araddr"),
        o("m_axi_arlen"),
        o("m_axi_arsize"),
        o("m_axi_arburst"),
    );
    let i = |n: &str| sim.input(n).unwrap();
    let (rst, state_base, busy_block, hold_valid, hold_block) = (
        i("rst"),
        i("state_base"),
        i("busy_block"),
        i("hold_valid"),
        i("hold_block"),
    );
    let (arready, rvalid, rlast) = (i("m_axi_arready"), i("m_axi_rvalid"), i("m_axi_rlast"));

    // Expected contents.
    let block_bytes_of = |axi: &AxiMemory, b: u64| {
        let mut buf = vec![0u8; block_bytes as usize];
        axi.read_bytes(addr(b), &mut buf);
        buf
    };
    let bits_of = |bytes: &[u8], lo: u64, n: u64| -> Vec<u64> {
        // Bits [lo, lo + n) of little-endian `bytes`, as little-endian u64 words.
        let mut out = vec![0u64; n.div_ceil(64) as usize];
        for k in 0..n {
            let bit = lo + k;
            if bytes[(bit / 8) as usize] >> (bit % 8) & 1 == 1 {
                out[(k / 64) as usize] |= 1 << (k % 64);
            }
        }
        out
    };

    sim.set(state_base, base_in);
    sim.set(rst, 1);
    step(&mut sim, &mut rec);
    step(&mut sim, &mut rec);
    sim.set(rst, 0);
    if run.reset_under_traffic {
        // Requests from every port, answers taken, nothing released, the memory slow: slots,
        // reads, answers and broadcasts in flight when the reset comes.
        let mut pre = block::port_sources(&sim, 'q', &["block"], ports, 0.0, 0).unwrap();
        for src in pre.iter_mut() {
            for _ in 0..50 {
                let b = if rng.gen_bool(0.5) {
                    hot[rng.gen_range(0..hot.len())]
                } else {
                    cold[rng.gen_range(0..cold.len())]
                };
                src.push([b]);
            }
        }
        let ans_ready: Vec<In> = (0..ports)
            .map(|p| sim.input(&format!("a{p}_ready")).unwrap())
            .collect();
        let (mut reads, mut answers, mut broadcast) = (0, 0, 0);
        for _ in 0..60 {
            for src in pre.iter_mut() {
                src.drive(&mut sim);
            }
            axi.drive(&mut sim);
            for &a in &ans_ready {
                sim.set_bool(a, rng.gen_bool(0.5));
            }
            step(&mut sim, &mut rec);
            for src in pre.iter_mut() {
                src.observe(&sim);
            }
            axi.observe(&sim);
            reads += u64::from(sim.is_high(arvalid) && sim.driven(arready) == 1);
            broadcast += sim.get(cw_valid);
            answers += (0..ports)
                .filter(|&p| {
                    sim.driven(ans_ready[p]) == 1
                        && sim.get_named(&format!("a{p}_valid")).unwrap() == 1
                })
                .count();
        }
        // Slots are held (nothing was released) and answered; reads may still be in flight.
        assert!(
            reads > 0 && answers > 0,
            "{what}: nothing in flight before the reset ({reads} reads, {answers} answers)"
        );
        println!(
            "{name}: reset after {reads} reads, {answers} answers, {broadcast} cache writes, {} \
             reads outstanding",
            axi.outstanding()
        );
        for p in 0..ports {
            sim.set_named(&format!("q{p}_valid"), 0).unwrap();
        }
        sim.set(rst, 1);
        for _ in 0..2 {
            axi.drive(&mut sim);
            step(&mut sim, &mut rec);
            axi.observe(&sim);
            axi.reset();
        }
        sim.set(rst, 0);
    }
    let reads_before = axi.ar_count();

    let slots_n = m.max_misses as usize;
    let beats = u64::from(m.beats());
    let stored = u64::from(m.stored_bits());
    let mut slots: Vec<Option<Slot>> = vec![None; slots_n];
    // The input register (the arbiter's request) and the request register.
    let mut inp: VecDeque<Taken> = VecDeque::new();
    let mut cur: VecDeque<Taken> = VecDeque::new();
    let mut dec: Option<Deciding> = None;
    // A block's set, and the first way of its set that is not in `taken` (the slot a new
    // take of the block gets).
    let sets = m.sets();
    let first_free = |b: u64, taken: &dyn Fn(usize) -> bool| {
        (0..m.ways())
            .filter_map(|w| m.slot((b % sets as u64) as usize, w))
            .find(|&s| !taken(s))
    };
    let mut pm: Vec<PortModel> = (0..ports).map(|_| PortModel::default()).collect();
    let mut reads_to_issue: VecDeque<u64> = VecDeque::new();
    let mut in_flight: VecDeque<(u64, u64)> = VecDeque::new(); // (block, beats seen)
    let mut broadcasts: VecDeque<(u64, u64)> = VecDeque::new(); // (block, next beat)
    let mut hold: Option<(u64, u64)> = None; // (block, until edge)
    let mut hold_off_until = 0u64;
    let (mut merges, mut news, mut fill_errors, mut good_fills, mut read_checks) = (0, 0, 0, 0, 0);
    let (mut most_live, mut held_waits, mut busy_high) = (0usize, 0u64, 0u64);
    let mut set_waits = 0u64;
    // `busy` is registered: at edge e it shows what the model said at edge e - 1 (0 at the
    // first edge, after the reset) of the block asked at edge e - 2 (`busy_block` is
    // registered on entry).
    let mut busy_before = false;
    let mut asked_before: Option<u64> = None;
    // Each slot's (filled, failed) before the last edge, as the read ports show them.
    let mut flags_before = vec![(false, false); m.max_misses as usize];
    // `rd_filled` / `rd_filled2` are registered: at edge e they show the flags of the slots
    // presented on `rd_slot` / `rd_slot2` at edge e - 1 (the heads then, if any), as the read
    // ports showed them at edge e - 1 (`flags_prev`); 0 at the first edge, after the reset.
    let mut flags_prev = flags_before.clone();
    let mut shown: Vec<(Option<usize>, Option<usize>)> = vec![(None, None); ports];
    let mut now_shown: Vec<(Option<usize>, Option<usize>)> = vec![(None, None); ports];
    let mut first_go = None;
    let mut last_go = 0u64;
    // Requests whose slot was released.
    let mut done_count = 0u64;
    // The releases shown at the last three edges: the slots count a release three edges after
    // it is shown (the port's RAM of answer numbers is read with its output register, and the
    // comparison is registered).
    let mut landing: VecDeque<Vec<Option<usize>>> = VecDeque::from(vec![vec![None; ports]; 3]);
    // The request register's registered view (live, failed) of every slot, and the slot taken
    // new at the last edge.
    let mut seen: Vec<(bool, bool)> = vec![(false, false); slots_n];
    let mut lt: Option<(usize, bool)> = None;
    // The decision register's request was there at the last edge (its view is its own).
    let mut dec_seen = false;
    let start = sim.cycle();

    // Live: by count and fill, or pinned by the decision register's request.
    let live = |slots: &[Option<Slot>], dec: &Option<Deciding>| -> Vec<bool> {
        (0..slots.len())
            .map(|s| {
                slots[s].is_some_and(|x| x.live())
                    || dec.is_some_and(|d| d.hit && d.slot == Some(s))
            })
            .collect()
    };
    // The request register decides from its view of its set, registered: the slots' blocks as
    // they are, their live and failed flags as they were one edge before (`seen`), but for the
    // slot the decision register left with at the last edge (`lt`: live; not failed if it was
    // taken new) and the one it is to merge into (live).
    let mergeable = |slots: &[Option<Slot>],
                     seen: &[(bool, bool)],
                     lt: Option<(usize, bool)>,
                     dec: &Option<Deciding>,
                     b: u64| {
        let m: Vec<usize> = (0..slots.len())
            .filter(|&s| {
                let fresh = lt == Some((s, true));
                let last = lt.is_some_and(|l| l.0 == s);
                let pinned = dec.is_some_and(|d| d.hit && d.slot == Some(s));
                (seen[s].0 || last || pinned)
                    && (fresh || !seen[s].1)
                    && slots[s].is_some_and(|x| x.block == b)
            })
            .collect();
        assert!(m.len() <= 1, "two mergeable slots of block {b}: {m:?}");
        m.first().copied()
    };

    loop {
        let e = sim.cycle() + 1; // the edge of this step
        let all_sent = sources.iter().all(|s| s.is_done());
        let quiet = all_sent
            && cur.is_empty()
            && inp.is_empty()
            && dec.is_none()
            && pm.iter().all(|p| {
                p.answers.is_empty()
                    && p.waiting.is_empty()
                    && p.releases.is_empty()
                    && p.reads.is_empty()
            })
            && slots.iter().all(|s| s.is_none_or(|s| !s.live()))
            && broadcasts.is_empty()
            && in_flight.is_empty()
            && reads_to_issue.is_empty();
        if quiet && done_count == total {
            break;
        }
        assert!(
            e - start < 2000 * total + 20_000,
            "{what}: stuck at edge {e}: {done_count} of {total} requests done, {} in the \
             request register, slots {slots:?}",
            cur.len()
        );

        // ---- Drive.
        for s in sources.iter_mut() {
            s.drive(&mut sim);
        }
        axi.drive(&mut sim);
        if run.holds {
            match hold {
                Some((_, until)) if e >= until => {
                    hold = None;
                    hold_off_until = e + rng.gen_range(1..40);
                }
                None if e >= hold_off_until && rng.gen_bool(0.05) => {
                    // A hot block, or the block a port sends next (so that requests taken
                    // while their block is held, which must wait, come in every run).
                    let p = rng.gen_range(0..ports);
                    let next = queued[p].get(sources[p].sent_total() as usize).copied();
                    let b = match next {
                        Some(b) if rng.gen_bool(0.5) => b,
                        _ => hot[rng.gen_range(0..hot.len())],
                    };
                    hold = Some((b, e + rng.gen_range(1..60)));
                }
                _ => {}
            }
        }
        sim.set_bool(hold_valid, hold.is_some());
        sim.set(
            hold_block,
            hold.map_or(rng.gen_range(0..blocks_space), |h| h.0) | garbage(&mut rng),
        );
        let asked = if rng.gen_bool(0.5) {
            hot[rng.gen_range(0..hot.len())]
        } else if rng.gen_bool(0.8) {
            cold[rng.gen_range(0..cold.len())]
        } else {
            rng.gen_range(0..blocks_space)
        };
        sim.set(busy_block, asked | garbage(&mut rng));
        let mut released: Vec<Option<usize>> = vec![None; ports];
        for (p, port) in pm.iter_mut().enumerate() {
            sim.set_bool(io[p].ans_ready, !rng.gen_bool(run.ans_backpressure));
            port.presented = port.waiting.front().copied();
            let (s, w) = port
                .presented
                .map_or((rng.gen_range(0..slots_n as u64), 0), |h| {
                    (h.slot as u64, h.word)
                });
            sim.set(io[p].rd_slot, s);
            sim.set(io[p].rd_word, w);
            let second = port.waiting.get(1).map(|h| h.slot);
            sim.set(
                io[p].rd_slot2,
                second.map_or(rng.gen_range(0..slots_n as u64), |s| s as u64),
            );
            now_shown[p] = (port.presented.map(|h| h.slot), second);
            let rel = match port.releases.front() {
                Some(&(due, slot)) if due <= e => {
                    port.releases.pop_front();
                    Some(slot)
                }
                _ => None,
            };
            sim.set_bool(io[p].rel_valid, rel.is_some());
            sim.set(io[p].rel_slot, rel.map_or(0, |s| s as u64));
            released[p] = rel;
        }

        step(&mut sim, &mut rec);
        assert_eq!(sim.cycle(), e);
        for s in sources.iter_mut() {
            s.observe(&sim);
        }
        axi.observe(&sim);

        // ---- Checks of what the block showed at edge e, against the state before it.
        // Live before the edge (nothing below changes the slots before the decisions).
        let lv = live(&slots, &dec);
        // What the request register's view registers at this edge, for the next.
        let seen_next: Vec<(bool, bool)> = slots
            .iter()
            .map(|x| x.map_or((false, false), |x| (x.live(), x.filled && x.failed)))
            .collect();
        let model_busy = asked_before.is_some_and(|asked| {
            // Live as before the last edge, or the slot of the last edge's answer.
            (0..slots_n).any(|s| {
                (seen[s].0 || lt.is_some_and(|l| l.0 == s))
                    && slots[s].is_some_and(|x| x.block == asked)
            }) || cur.front().is_some_and(|t| t.exempt && t.block == asked)
                || inp.front().is_some_and(|t| t.exempt && t.block == asked)
                || dec.is_some_and(|d| d.block == asked)
        });
        assert_eq!(
            sim.is_high(busy),
            busy_before,
            "{what}: busy at edge {e} for the block asked at edge {}",
            e - 2
        );
        busy_before = model_busy;
        asked_before = Some(asked);
        busy_high += u64::from(model_busy);
        // The registered flags: those of the slots presented at the edge before, as the read
        // ports showed them then (a slot presented with no head behind it is not checked).
        for p in 0..ports {
            let (s1, s2) = shown[p];
            if let Some(s1) = s1 {
                assert_eq!(
                    sim.is_high(io[p].rd_filled),
                    flags_prev[s1].0,
                    "{what}: port {p} rd_filled of slot {s1} (presented at edge {}) at edge {e}",
                    e - 1
                );
            }
            if let Some(s2) = s2 {
                assert_eq!(
                    sim.is_high(io[p].rd_filled2),
                    flags_prev[s2].0,
                    "{what}: port {p} rd_filled2 of slot {s2} (presented at edge {}) at edge {e}",
                    e - 1
                );
            }
        }
        shown.clone_from(&now_shown);
        // The read ports show each slot's flags as they were one edge before: the head is
        // read (its word on `rd_data` two edges later, 0 if not filled) when filled.
        for (p, port) in pm.iter_mut().enumerate() {
            let Some(h) = port.presented else { continue };
            assert!(slots[h.slot].is_some(), "a waiting request's slot is held");
            let (filled, failed) = flags_before[h.slot];
            if filled {
                assert_eq!(
                    sim.is_high(io[p].rd_error),
                    failed,
                    "{what}: port {p} error flag of slot {} (block {}) at edge {e}",
                    h.slot,
                    h.block
                );
                port.waiting.pop_front();
                let failed = usize::from(failed);
                port.reads.push_back((e + 2, h.block, h.word, failed));
                // In the order of the answers (a release never overtakes an earlier one).
                let due = (e + 1 + rng.gen_range(0..=run.release_delay))
                    .max(port.releases.back().map_or(0, |r| r.0));
                port.releases.push_back((due, h.slot));
            }
        }
        flags_prev.clone_from(&flags_before);
        for (f, s) in flags_before.iter_mut().zip(&slots) {
            *f = s.map_or((false, false), |s| (s.filled, s.failed));
        }
        for (p, port) in pm.iter_mut().enumerate() {
            while let Some(&(at, b, w, failed)) = port.reads.front() {
                if at != e {
                    assert!(at > e);
                    break;
                }
                port.reads.pop_front();
                if failed == 0 {
                    let bytes = block_bytes_of(&axi, b);
                    let want =
                        bits_of(&bytes, w * u64::from(m.word_bits), u64::from(m.word_bits))[0];
                    assert_eq!(
                        sim.get(io[p].rd_data),
                        want,
                        "{what}: port {p} word {w} of block {b} at edge {e}"
                    );
                    read_checks += 1;
                }
            }
        }
        let merged = sim.is_high(taken_merged);
        let new = sim.is_high(taken_new);
        assert!(!(merged && new), "{what}: merged and new at edge {e}");
        let room = |pm: &[PortModel], p: usize| pm[p].answers.len() < ANSWER_DEPTH;
        // Everything below is decided on the state before the edge (`lv`, `dec`).
        most_live = most_live.max(lv.iter().filter(|&&l| l).count());
        let e_req = cur.front().copied();
        let e_hit = e_req.and_then(|t| mergeable(&slots, &seen, lt, &dec, t.block));
        // The first free way of the request register's set: not live (as seen), not the last
        // new take, not the decision register's slot; of the decision register's set, for
        // itself when it has no slot (from the flags as they are).
        let e_free = e_req.and_then(|t| {
            first_free(t.block, &|s| {
                seen[s].0 || lt.is_some_and(|l| l.0 == s) || dec.is_some_and(|d| d.slot == Some(s))
            })
        });
        // Without a slot, the decision register searches its set in its own registered view
        // (live as before the last edge: `seen`), once it has been there for an edge.
        let d_free = dec
            .filter(|_| dec_seen)
            .and_then(|d| first_free(d.block, &|s| seen[s].0));
        set_waits += u64::from(dec.is_some_and(|d| d.slot.is_none()));
        // The decision register: its request leaves when it has its slot and its port has
        // room.
        let go = dec.is_some_and(|d| room(&pm, d.port) && d.slot.is_some());
        assert_eq!(
            merged || new,
            go,
            "{what}: decision register {dec:?} at edge {e}"
        );
        let mut took_new = None;
        let mut went = None;
        if go {
            let d = dec.unwrap();
            let slot = sim.get(taken_slot) as usize;
            assert_eq!(Some(slot), d.slot, "{what}: the slot of {d:?} at edge {e}");
            match d.hit.then_some(slot) {
                Some(s) => {
                    assert!(merged, "{what}: block {} must merge at edge {e}", d.block);
                    assert_eq!(slot, s, "{what}: merged into the wrong slot at edge {e}");
                    let st = slots[s].as_mut().unwrap();
                    assert_eq!(
                        st.block, d.block,
                        "{what}: merged into another block's slot"
                    );
                    st.refs += 1;
                    merges += 1;
                }
                None => {
                    assert!(new, "{what}: block {} must be read at edge {e}", d.block);
                    assert!(!lv[slot], "{what}: slot {slot} taken while live at {e}");
                    slots[slot] = Some(Slot {
                        block: d.block,
                        refs: 1,
                        filled: false,
                        failed: false,
                        broadcast: false,
                    });
                    reads_to_issue.push_back(d.block);
                    news += 1;
                    took_new = Some(slot);
                }
            }
            pm[d.port].answers.push_back(slot);
            went = Some((slot, !d.hit));
            first_go.get_or_insert(e);
            last_go = e;
        }
        // The request register moves into the decision register when that is empty or leaves,
        // unless a hold keeps it (a request taken while the hold was up, the hold still up);
        // its slot is the mergeable one, or the new slot of the request before it, of its block.
        let blocked = e_req.is_some_and(|t| hold.is_some() && !t.exempt);
        held_waits += u64::from(blocked);
        let moves = e_req.is_some() && !blocked && (dec.is_none() || go);
        if moves {
            let t = cur.pop_front().unwrap();
            let hit = match (took_new, dec) {
                (Some(s), Some(d)) if d.block == t.block => Some(s),
                _ => e_hit,
            };
            dec = Some(Deciding {
                port: t.port,
                block: t.block,
                hit: hit.is_some(),
                slot: hit.or(e_free),
            });
        } else if go {
            dec = None;
        } else if let Some(d) = dec.as_mut().filter(|d| d.slot.is_none()) {
            d.slot = d_free;
        }
        seen = seen_next;
        lt = went;
        dec_seen = dec.is_some() && !moves;

        // ---- The other events of edge e.
        // A release counts three edges after the port showed it.
        landing.push_back(released);
        let landed = landing.pop_front().unwrap();
        for (p, rel) in landed.iter().enumerate() {
            if let Some(s) = *rel {
                let st = slots[s].as_mut().unwrap();
                assert!(
                    st.refs > 0,
                    "{what}: port {p} released slot {s} with no reference"
                );
                st.refs -= 1;
                done_count += 1;
            }
        }
        if sim.is_high(arvalid) && sim.driven(arready) == 1 {
            let b = reads_to_issue
                .pop_front()
                .unwrap_or_else(|| panic!("{what}: a read nobody asked for at edge {e}"));
            assert_eq!(sim.get(araddr), addr(b), "{what}: address of block {b}");
            assert_eq!(sim.get(arlen), beats - 1, "{what}: arlen");
            assert_eq!(sim.get(arsize), u64::from(m.arsize()), "{what}: arsize");
            assert_eq!(sim.get(arburst), 1, "{what}: arburst");
            assert!(
                in_flight.iter().all(|r| r.0 != b),
                "{what}: block {b} read twice at once"
            );
            in_flight.push_back((b, 0));
        }
        assert!(sim.is_high(rready), "{what}: rready low");
        if sim.driven(rvalid) == 1 {
            let r = in_flight
                .front_mut()
                .unwrap_or_else(|| panic!("{what}: a beat with no read in flight"));
            r.1 += 1;
            assert_eq!(
                sim.driven(rlast) == 1,
                r.1 == beats,
                "{what}: the memory's rlast"
            );
            if r.1 == beats {
                let b = r.0;
                in_flight.pop_front();
                let s = slots
                    .iter()
                    .position(|s| s.is_some_and(|s| s.block == b && !s.filled))
                    .unwrap();
                let st = slots[s].as_mut().unwrap();
                st.filled = true;
                st.failed = failing.contains(&b);
                if st.failed {
                    fill_errors += 1;
                } else {
                    good_fills += 1;
                    broadcasts.push_back((b, 0));
                }
            }
        }
        if sim.is_high(cw_valid) {
            let (b, k) = broadcasts
                .front_mut()
                .unwrap_or_else(|| panic!("{what}: a cache write with no good fill at {e}"));
            assert_eq!(
                sim.get(cw_block),
                *b,
                "{what}: cache write block at edge {e}"
            );
            assert_eq!(
                sim.get(cw_line),
                *b & u64::from(m.cache_lines - 1),
                "{what}: cache line"
            );
            assert_eq!(sim.get(cw_beat), *k, "{what}: cache write beat at {e}");
            let last = *k + 1 == beats;
            assert_eq!(sim.is_high(cw_last), last, "{what}: cw_last at {e}");
            let bytes = block_bytes_of(&axi, *b);
            let mut want = bits_of(&bytes, *k * stored, stored);
            let words = sim.get_wide(cw_data).len();
            want.resize(want.len().max(words), 0);
            assert!(want[words..].iter().all(|w| *w == 0));
            assert_eq!(
                sim.get_wide(cw_data),
                &want[..words],
                "{what}: cache write data of block {b} beat {k} at edge {e}"
            );
            *k += 1;
            if last {
                let b = *b;
                broadcasts.pop_front();
                let s = slots
                    .iter()
                    .position(|s| {
                        s.is_some_and(|s| s.block == b && s.filled && !s.failed && !s.broadcast)
                    })
                    .unwrap();
                slots[s].as_mut().unwrap().broadcast = true;
            }
        }
        for (p, io) in io.iter().enumerate() {
            if sim.is_high(io.ans_valid) && sim.driven(io.ans_ready) == 1 {
                let s = pm[p]
                    .answers
                    .pop_front()
                    .unwrap_or_else(|| panic!("{what}: an answer on port {p} for nothing"));
                assert_eq!(sim.get(io.ans_slot) as usize, s, "{what}: port {p} answer");
                let b = slots[s].unwrap().block;
                let word = rng.gen_range(0..1u64 << m.block_bits);
                pm[p].waiting.push_back(Waiting {
                    block: b,
                    slot: s,
                    word,
                });
            } else {
                assert!(
                    !sim.is_high(io.ans_valid) || !pm[p].answers.is_empty(),
                    "{what}: port {p} answer valid with nothing to answer at {e}"
                );
            }
        }
        // The input register moves into the request register when that is empty or moved on.
        if cur.is_empty() {
            cur.extend(inp.pop_front());
        }
        if hold.is_none() {
            for t in cur.iter_mut().chain(inp.iter_mut()) {
                t.exempt = true;
            }
        }
        for (p, src) in sources.iter().enumerate() {
            if let Some(beat) = src.sent().last() {
                if beat.cycle == e {
                    let b = beat.data()[0] % blocks_space;
                    inp.push_back(Taken {
                        port: p,
                        block: b,
                        exempt: hold.is_none_or(|h| h.0 != b),
                    });
                }
            }
        }
        assert!(inp.len() <= 1, "{what}: two requests taken at edge {e}");
    }
    let cycles = sim.cycle() - start;
    sim.set_bool(hold_valid, false);
    for io in &io {
        sim.set_bool(io.rel_valid, false);
    }
    for _ in 0..10 {
        step(&mut sim, &mut rec);
        assert!(!sim.is_high(cw_valid), "{what}: cache write after the end");
        assert!(!sim.is_high(arvalid), "{what}: read after the end");
    }
    // `busy` tells of the block asked two edges before.
    for &b in &pool {
        sim.set(busy_block, b);
        step(&mut sim, &mut rec);
        step(&mut sim, &mut rec);
        assert!(!sim.is_high(busy), "{what}: block {b} busy at the end");
    }
    axi.check().unwrap_or_else(|e| panic!("{what}: {e:#}"));
    assert!(axi.is_idle(), "{what}: memory still busy");
    assert_eq!(
        axi.ar_count() - reads_before,
        news,
        "{what}: one read per new slot"
    );
    println!(
        "{name}: {ports} ports x {} requests, {run:?}: {cycles} cycles, {news} reads \
         ({fill_errors} failed, {good_fills} broadcast), {merges} merged, {read_checks} words \
         checked, at most {most_live} of {slots_n} slots live, {held_waits} cycles held, \
         busy seen {busy_high} times",
        run.requests
    );
    assert_eq!(
        merges + news,
        total,
        "{what}: every request left the register"
    );
    if let Some(r) = rec {
        // The same run on Icarus, from the recorded inputs: every output, every cycle.
        let rec = r.finish();
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join("block_miss_unit")
            .join(name);
        let bench =
            IcarusBench::compile(&dir, &verilog, &top, &rec.inputs, &rec.outputs, rec.cycles)
                .unwrap();
        let trace = bench
            .replay(&rec, name, std::time::Duration::from_secs(60))
            .unwrap();
        match xsim::compare(&rec, &trace) {
            Ok(n) => println!(
                "{name}: Icarus equals Verilator on {n} cycles x {} outputs",
                rec.outputs.len()
            ),
            Err((d, count)) => panic!("{what}: Icarus differs: {d} ({count} differences)"),
        }
    }
    if run.hot > 0.0 {
        assert!(merges > 0, "{what}: no merge");
    }
    if run.errors > 0.0 {
        assert!(
            fill_errors > 0 && good_fills > 0,
            "{what}: errors not both ways"
        );
    }
    if run.holds {
        assert!(held_waits > 0, "{what}: no request waited for a hold");
    }
    if !run.full_speed() {
        // Every set filled up once, so a request waited for a way of its set.
        assert!(
            set_waits > 0,
            "{what}: no request waited for a free way of its set"
        );
        println!("{name}: {set_waits} cycles with the decision register waiting for a way");
    } else {
        let span = last_go - first_go.unwrap() + 1;
        let rate = total as f64 / span as f64;
        println!(
            "{name}: full speed: {total} requests left the request register in {span} \
             cycles: {rate:.3} per cycle (bound 1)"
        );
        assert!(
            rate >= 0.95,
            "{what}: {rate:.3} new misses per cycle at full speed"
        );
    }
}

fn slow(ports: usize, m: MissParams, latency: Latency) -> Run {
    Run {
        ports,
        m,
        latency,
        ar_backpressure: 0.3,
        r_gaps: 0.2,
        req_idle: 0.3,
        ans_backpressure: 0.2,
        release_delay: 20,
        hot: 0.4,
        cold_blocks: 300,
        errors: 0.1,
        holds: true,
        requests: 600,
        icarus: false,
        reset_under_traffic: false,
    }
}

#[test]
fn one_port_one_slot_narrow_block_latency_20() {
    // A block of 16 bits in a 64-bit beat: one narrow transfer, the block's lane kept.
    miss_unit(
        "p1_mm1_b3",
        Run {
            icarus: true,
            ..slow(1, mp(3, 2, 1, 64), Latency::Fixed(20))
        },
        0x3155_0001,
    );
}

#[test]
fn two_ports_four_slots_two_beats_random_latency() {
    miss_unit(
        "p2_mm4_b6",
        Run {
            icarus: true,
            reset_under_traffic: true,
            ..slow(2, mp(6, 2, 4, 64), Latency::Uniform(1, 40))
        },
        0x3155_0002,
    );
}

#[test]
fn three_ports_64_slots_narrow_in_512_latency_64() {
    // 256-bit blocks on a 512-bit bus.
    miss_unit(
        "p3_mm64_b6_512",
        Run {
            requests: 1500,
            ..slow(3, mp(6, 4, 64, 512), Latency::Fixed(64))
        },
        0x3155_0003,
    );
}

#[test]
fn four_ports_64_slots_block_bits_8_on_512_random_latency() {
    // 2048-bit blocks: 4 beats of 512.
    miss_unit(
        "p4_mm64_b8_512",
        Run {
            requests: 1000,
            reset_under_traffic: true,
            ..slow(4, mp(8, 8, 64, 512), Latency::Uniform(1, 100))
        },
        0x3155_0004,
    );
}

#[test]
fn four_ports_four_slots_128_beats() {
    // The longest burst: 2^8 words of 32 bits on a 64-bit bus.
    miss_unit(
        "p4_mm4_b8_w32",
        Run {
            requests: 150,
            cold_blocks: 60,
            ..slow(4, mp(8, 32, 4, 64), Latency::Uniform(1, 30))
        },
        0x3155_0005,
    );
}

/// The fastest memory, no idle cycles or backpressure anywhere, releases at once.
fn fast(ports: usize, m: MissParams, hot: f64, requests: usize) -> Run {
    Run {
        ports,
        m,
        latency: Latency::Fixed(1),
        ar_backpressure: 0.0,
        r_gaps: 0.0,
        req_idle: 0.0,
        ans_backpressure: 0.0,
        release_delay: 0,
        hot,
        cold_blocks: 4000,
        errors: 0.0,
        holds: false,
        requests,
        icarus: false,
        reset_under_traffic: false,
    }
}

#[test]
fn two_ports_full_speed_one_miss_per_cycle() {
    // One beat per block, distinct blocks: a new read every cycle.
    miss_unit("fast_64", fast(2, mp(3, 8, 64, 64), 0.0, 1500), 0x3155_0100);
}

#[test]
fn four_ports_full_speed_512_with_merges() {
    // 512-bit blocks on a 512-bit bus, hot blocks too: one request a cycle leaves.
    miss_unit(
        "fast_512",
        fast(4, mp(6, 8, 64, 512), 0.3, 800),
        0x3155_0101,
    );
}

// ---- The block's Verilog on its own ------------------------------------------------------

#[test]
fn verilog_lints_compiles_and_synthesizes() {
    let cases: &[(&str, usize, MissParams)] = &[
        ("miss_unit_small", 1, mp(3, 2, 1, 64)),
        ("miss_unit_mid", 2, mp(6, 2, 4, 64)),
        // The SPEC §9 target: 2 ports, the defaults of docs/state_in_memory.md.
        ("miss_unit_target", 2, mp(6, 2, 64, 64)),
        ("miss_unit_wide", 4, mp(8, 8, 64, 512)),
        ("miss_unit_max", 4, mp(8, 32, 256, 64)),
    ];
    for &(top, ports, m) in cases {
        let params = engine_params(ports);
        let text = block::verilog(MissUnit::new(&params, &m).unwrap(), top).unwrap();
        let path =
            block::gen_dir(env!("CARGO_TARGET_TMPDIR"), "block_miss_unit").join(format!("{top}.v"));
        std::fs::write(&path, &text).unwrap();
        let doubles = comb_ports::double_assignments(&text).unwrap();
        assert!(doubles.is_empty(), "{top}: {doubles:?}");
        block::lint_and_icarus(&path, top);
    }
    // Synthesis: generic for the small ones, ECP5 for a wide one (yosys infers its block
    // RAMs from the generic Verilog, as in `verilog_quality`).
    for (top, flow) in [
        ("miss_unit_small", "synth"),
        ("miss_unit_mid", "synth"),
        ("miss_unit_target", "synth_ecp5"),
        ("miss_unit_wide", "synth_ecp5"),
    ] {
        let path =
            block::gen_dir(env!("CARGO_TARGET_TMPDIR"), "block_miss_unit").join(format!("{top}.v"));
        let (cells, brams) = block::yosys_synth(&path, top, flow);
        println!("{top}: yosys {flow}: {cells} cells, {brams} DP16KD");
    }
}

#[test]
fn bad_parameters_are_refused_with_their_name() {
    let params = engine_params(2);
    let cases = [
        (mp(2, 2, 4, 64), "block_bits = 2"),
        (mp(9, 2, 4, 64), "block_bits = 9"),
        (mp(6, 3, 4, 64), "word_bits = 3"),
        (mp(6, 2, 0, 64), "max_misses = 0"),
        (mp(6, 2, 257, 64), "max_misses = 257"),
        (mp(6, 2, 4, 32), "mem_data_bits = 32"),
        (
            MissParams {
                cache_lines: 1000,
                ..mp(6, 2, 4, 64)
            },
            "cache_lines = 1000",
        ),
    ];
    for (m, want) in cases {
        let err = MissUnit::new(&params, &m).err().expect("refused");
        assert!(err.to_string().contains(want), "{err} should name {want}");
        assert!(err.to_string().contains("allowed"), "{err}");
    }
}

// ---- Directed: what the memory model never does, and a slot's number of requests ------

/// The block with `ports` ports and parameters `m` in Verilator, reset, `state_base` set.
fn directed(name: &str, ports: usize, m: MissParams, base: u64) -> qptable_sim::Sim {
    let top = format!("miss_unit_{name}");
    let tb = format!("{top}_tb");
    let verilog = block::verilog(MissUnit::new(&engine_params(ports), &m).unwrap(), &top).unwrap()
        + &wrapper(&tb, &top, ports, m.mem_data_bits, false);
    let mut sim = block::build(&verilog, &tb).unwrap().instantiate();
    sim.set_named("state_base", base).unwrap();
    sim.set_named("rst", 1).unwrap();
    sim.step_n(2);
    sim.set_named("rst", 0).unwrap();
    sim
}

fn get(sim: &qptable_sim::Sim, name: &str) -> u64 {
    sim.get_named(name).unwrap()
}

fn set(sim: &mut qptable_sim::Sim, name: &str, v: u64) {
    sim.set_named(name, v).unwrap();
}

/// Sends one request of port 0 for `block`; returns its answer (the slot), checking what the
/// request register reported.
fn request(sim: &mut qptable_sim::Sim, block: u64, want_new: bool) -> u64 {
    set(sim, "q0_valid", 1);
    set(sim, "q0_block", block);
    set(sim, "a0_ready", 1);
    let mut taken = false;
    for _ in 0..20 {
        sim.step();
        if get(sim, "q0_ready") == 1 {
            set(sim, "q0_valid", 0);
            taken = true;
        }
        if get(sim, "taken_new") == 1 || get(sim, "taken_merged") == 1 {
            assert!(taken);
            assert_eq!(get(sim, "taken_new") == 1, want_new, "block {block}");
        }
        if get(sim, "a0_valid") == 1 {
            return get(sim, "a0_slot");
        }
    }
    panic!("no answer for block {block}");
}

#[test]
fn rlast_out_of_place_fails_the_fill() {
    // Blocks of 2 beats. The fill of a read whose `rlast` comes on the wrong beat (early,
    // or missing on the last) is marked failed and not broadcast; a correct one is good.
    let m = mp(6, 2, 2, 64);
    let base = 0x4000_0000;
    let mut sim = directed("rlast", 1, m, base);
    for (block, rlasts, fails) in [
        (5u64, [1u64, 1], true),
        (6, [0, 0], true),
        (7, [0, 1], false),
    ] {
        // `arready` low until the read shows (it may show in the cycle of the answer), then
        // one handshake.
        set(&mut sim, "m_axi_arready", 0);
        let slot = request(&mut sim, block, true);
        let mut ar = false;
        for _ in 0..10 {
            if get(&sim, "m_axi_arvalid") == 1 {
                assert_eq!(get(&sim, "m_axi_araddr"), base + block * 16);
                ar = true;
                break;
            }
            sim.step();
        }
        assert!(ar, "no read of block {block}");
        set(&mut sim, "m_axi_arready", 1);
        sim.step();
        assert_eq!(get(&sim, "m_axi_arvalid"), 1, "the read held until arready");
        set(&mut sim, "m_axi_arready", 0);
        let mut broadcast = 0;
        for (k, &last) in rlasts.iter().enumerate() {
            set(&mut sim, "m_axi_rvalid", 1);
            set(&mut sim, "m_axi_rdata", 0x1111 * (k as u64 + 1) + block);
            set(&mut sim, "m_axi_rresp", 0);
            set(&mut sim, "m_axi_rlast", last);
            sim.step();
            assert_eq!(get(&sim, "m_axi_rready"), 1);
            broadcast += get(&sim, "cw_valid");
        }
        set(&mut sim, "m_axi_rvalid", 0);
        set(&mut sim, "f0_slot", slot);
        set(&mut sim, "f0_word", 0);
        for _ in 0..6 {
            sim.step();
            broadcast += get(&sim, "cw_valid");
        }
        assert_eq!(get(&sim, "f0_filled"), 1, "block {block}");
        assert_eq!(
            get(&sim, "f0_error") == 1,
            fails,
            "block {block}: error flag"
        );
        assert_eq!(
            broadcast,
            if fails { 0 } else { 2 },
            "block {block}: broadcast beats"
        );
        assert_eq!(get(&sim, "busy"), 0);
        // `busy` is registered, after `busy_block`'s own register: it shows at an edge what
        // the block asked two edges before was at the edge before.
        set(&mut sim, "busy_block", block);
        sim.step();
        sim.step();
        assert_eq!(get(&sim, "busy"), 0, "busy_block is registered first");
        sim.step();
        assert_eq!(get(&sim, "busy"), 1, "block {block} held by its request");
        set(&mut sim, "l0_valid", 1);
        set(&mut sim, "l0_slot", slot);
        sim.step();
        set(&mut sim, "l0_valid", 0);
        sim.step();
        assert_eq!(get(&sim, "busy"), 1, "block {block} busy up to its release");
        // The port's word of the slot is read at the release's edge and compared two edges
        // later, the hold ending one edge after; `busy` sees the slots as they were an edge
        // before.
        for _ in 0..4 {
            sim.step();
            assert_eq!(
                get(&sim, "busy"),
                1,
                "block {block} busy until its hold ends"
            );
        }
        sim.step();
        assert_eq!(get(&sim, "busy"), 0, "block {block} released");
    }
}

#[test]
fn a_slot_serves_any_number_of_requests() {
    // The memory never answers. Every request for one block merges into its slot (no limit:
    // a slot has no count to overflow), the port releasing its answers in order some 600
    // behind, so its answer numbers wrap around 2^SEQ_BITS several times; the slot stays the
    // one read. Once every answer is released the slot is still live (its fill is pending):
    // the block still merges there, and another block takes the other way of the set.
    let m = mp(3, 8, 2, 64);
    let mut sim = directed("many", 1, m, 0x8000);
    let total = 5 << SEQ_BITS;
    set(&mut sim, "q0_block", 9);
    set(&mut sim, "a0_ready", 1);
    set(&mut sim, "m_axi_arready", 1);
    let (mut reads, mut news, mut sent, mut answers) = (0u64, 0u64, 0u64, 0u64);
    let mut outstanding: VecDeque<u64> = VecDeque::new();
    let mut cycles = 0;
    while answers < total || !outstanding.is_empty() {
        cycles += 1;
        assert!(cycles < 3 * total, "stuck after {answers} answers");
        set(&mut sim, "q0_valid", u64::from(sent < total));
        let rel = if outstanding.len() > 600 || answers == total {
            outstanding.pop_front()
        } else {
            None
        };
        set(&mut sim, "l0_valid", u64::from(rel.is_some()));
        set(&mut sim, "l0_slot", rel.unwrap_or(0));
        sim.step();
        sent += get(&sim, "q0_ready") & u64::from(sent < total);
        reads += get(&sim, "m_axi_arvalid");
        news += get(&sim, "taken_new");
        if get(&sim, "a0_valid") == 1 {
            assert_eq!(get(&sim, "a0_slot"), 0, "answer {answers}");
            answers += 1;
            outstanding.push_back(0);
        }
    }
    set(&mut sim, "q0_valid", 0);
    set(&mut sim, "l0_valid", 0);
    assert_eq!(news, 1, "one new take");
    assert_eq!(reads, 1, "one read of the block");
    sim.step_n(4);
    assert_eq!(
        request(&mut sim, 9, false),
        0,
        "the pending slot still merges"
    );
    assert_eq!(request(&mut sim, 11, true), 1, "the other way of the set");
}
