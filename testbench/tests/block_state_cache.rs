//! Block-level test of the lookup side of `state = in_memory` (SPEC §9): 1 to 4
//! [`LookupPipe`]s with their [`StateCache`](qptable::hw::state_cache::StateCache), the
//! shared [`MissUnit`] and the cache write bus [`CacheWrites`], wired in a Verilog wrapper,
//! in Verilator against the AXI memory model of the harness ([`AxiMemory`]) holding a random
//! state table image at a random aligned STATE_BASE.
//!
//! The `live` bits are written through `live_we` first (with blocks whose live bit is 0
//! although their words say VALID: those must answer NOT_ALLOCATED with no memory read).
//! Every port then sends random lookups (hot blocks drawn with a Zipf-like skew, and
//! uniform ones, of every status), with and without idle request cycles and response
//! backpressure, at a fixed memory latency of 64 and a random one; the command side raises
//! invalidations of random lines at random times (holding each until `inv_done`, which must
//! come within 2 cycles). Every response is checked in order against the reference: the
//! status and address computed from the image word and the qpn in SPEC order (range, live
//! bit, state, generation, page), MEM_ERROR exactly for the lookups of blocks whose reads the
//! memory model recorded as failed. Also: no read of a block whose live bit is 0, every read
//! aligned inside the table, the s2 pulses (`filtered` exactly for the lookups the live bit
//! answers; `hit` exactly when the model of the cache below holds the block at the request's
//! edge, else `miss`), and nothing outstanding at the end (lookups in flight, reads, slots).
//!
//! The cache write bus (`CacheWrites`' outputs, to every copy) is followed by a model of the
//! tags and rows: every invalidation writes its line invalid in its `inv_done` cycle; a line
//! whose tag is valid always holds, in every row, its block's bytes from memory (so no beat
//! is ever half applied, and an invalidation never leaves a stale valid line).
//!
//! Figures (printed): lookups per cycle per port on an all-hit workload after warm-up (must
//! be 1.00) and on a missing workload at latency 64, beside the bound of SPEC §9.
//!
//! The Verilog of the pipe with its cache and of `CacheWrites` is checked on its own:
//! Verilator lint (`-Wall`), Icarus, yosys, no port assigned twice in one evaluation.

use qptable::config::Fpga;
use qptable::hw::cache_writes::CacheWrites;
use qptable::hw::live_filter::LiveFilter;
use qptable::hw::lookup_pipe::LookupPipe;
use qptable::hw::miss_unit::{MissParams, MissUnit};
use qptable::hw::state_cache::state_queue_depth;
use qptable::hw::EngineParams;
use qptable::spec::Status;
use qptable_sim::axi_mem::{AxiMemory, Latency};
use qptable_sim::{Agent, AxiResp, Sim, StreamSink, StreamSource};
use qptable_testbench::{block, comb_ports, configs};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{HashSet, VecDeque};

/// The engine parameters of a test: `ports` ports, `index_bits`, flat or two_level with the
/// directory on chip (`leaf_bits`), the state in memory as `m`.
fn engine(
    ports: usize,
    index_bits: u32,
    max_qps: Option<u32>,
    leaf_bits: Option<u32>,
    m: MissParams,
) -> EngineParams {
    let port_list = format!(
        "ports=[{}]",
        (0..ports)
            .map(|p| format!("\"p{p}\""))
            .collect::<Vec<_>>()
            .join(",")
    );
    let ib = format!("index_bits={index_bits}");
    let mut sets = vec![port_list, ib];
    if let Some(q) = max_qps {
        sets.push(format!("max_qps={q}"));
    }
    if let Some(l) = leaf_bits {
        sets.push("mode=two_level".into());
        sets.push("directory=on_chip".into());
        sets.push(format!("leaf_bits={l}"));
    }
    let refs: Vec<&str> = sets.iter().map(String::as_str).collect();
    let mut p = EngineParams::new(&configs::config(&refs));
    p.state_mem = Some(m);
    p
}

/// The Verilog of the three blocks and the wrapper `top` around them: port `p`'s request
/// stream `q<p>_*`, response stream `r<p>_*`, s2 pulses `c<p>_filtered/hit/miss`, lookups in
/// flight `k<p>_flight`; the shared `live_*` and directory `d_*` writes, the invalidation
/// `inv_*`, `swept`, the miss unit's `busy` query and its AXI read master `m_axi_*`.
fn design(name: &str, p: &EngineParams) -> String {
    let m = p.state_mem.unwrap();
    let pipe = format!("sc_pipe_{name}");
    let miss = format!("sc_miss_{name}");
    let cw = format!("sc_cw_{name}");
    let live = format!("sc_live_{name}");
    let mut v = block::verilog(LookupPipe::new(p), &pipe).unwrap();
    let bn = p.index_bits.saturating_sub(m.block_bits) as usize;
    v += &block::verilog(LiveFilter::new(bn, p.fpga), &live).unwrap();
    v += &block::verilog(MissUnit::new(p, &m).unwrap(), &miss).unwrap();
    v += &block::verilog(CacheWrites::new(&m), &cw).unwrap();
    let two = p.dir_on_chip;
    let mut decl = String::new();
    let mut body = String::new();
    let mut miss_conn = String::new();
    for k in 0..p.ports {
        decl += &format!(
            "    input q{k}_valid, output q{k}_ready, input [23:0] q{k}_qpn, input [31:0] q{k}_tag,
    output r{k}_valid, input r{k}_ready, output [23:0] r{k}_qpn, output [31:0] r{k}_tag,
    output [2:0] r{k}_status, output [63:0] r{k}_addr,
    output c{k}_filtered, output c{k}_hit, output c{k}_miss, output [9:0] k{k}_flight,\n"
        );
        let dir = if two {
            ".dir_we$0(d_we), .dir_waddr$0(d_waddr), .dir_wdata$0(d_wdata),"
        } else {
            ""
        };
        // The live filter as the top level wires it: pipe 2k on port A of copy k (the write
        // steals its request cycle), pipe 2k + 1 or an unpaired last pipe on port B.
        let (c, a) = (k / 2, k % 2 == 0 && k + 1 < p.ports);
        let steal = if a { "live_we" } else { "1'b0" };
        if k % 2 == 0 {
            body += &format!(
                "    wire [20:0] live_a{c}, live_b{c};
    wire live_ra{c}, live_rb{c};
    {live} u_live{c}(
        .clock(clock), .live_we(live_we), .live_waddr(live_waddr), .live_wdata(live_wdata),
        .a_raddr(live_a{c}), .a_rdata(live_ra{c}), .b_raddr(live_b{c}), .b_rdata(live_rb{c})
    );\n"
            );
            if !a {
                body += &format!("    assign live_a{c} = 21'd0;\n");
            }
        }
        let port = if a { "a" } else { "b" };
        body += &format!(
            "    wire [20:0] live_raddr{k};
    wire live_rdata{k};
    assign live_{port}{c} = live_raddr{k};
    assign live_rdata{k} = live_r{port}{c};\n"
        );
        body += &format!(
            "    wire mreq_valid{k}, mreq_ready{k}, ans_valid{k}, ans_ready{k}, rd_filled{k}, rd_error{k}, rel_valid{k};
    wire rd_filled2{k};
    wire [20:0] mreq_block{k};
    wire [7:0] ans_slot{k}, rd_slot{k}, rd_word{k}, rel_slot{k}, rd_slot2{k};
    wire [31:0] rd_data{k};
    {pipe} u_pipe{k}(
        .clock(clock), .rst(rst), .init_done(init_done), .table_base(table_base),
        .req_valid(q{k}_valid), .req_ready(q{k}_ready), .req_qpn(q{k}_qpn), .req_tag(q{k}_tag),
        .rsp_valid(r{k}_valid), .rsp_ready(r{k}_ready), .rsp_qpn(r{k}_qpn), .rsp_tag(r{k}_tag),
        .rsp_status(r{k}_status), .rsp_addr(r{k}_addr),
        .ram_we(1'b0), .ram_waddr(24'd0), .ram_wdata(22'd0), {dir}
        .req_fire(), .rsp_fire(), .in_flight(k{k}_flight), .counts(),
        .live_raddr$0(live_raddr{k}), .live_rdata$0(live_rdata{k}), .live_steal$0({steal}),
        .tag_we$0(tag_we), .tag_line$0(tag_line), .tag_valid$0(tag_valid), .tag_block$0(tag_block),
        .data_we$0(data_we), .data_row$0(data_row), .data$0(data),
        .mreq_valid$0(mreq_valid{k}), .mreq_ready$0(mreq_ready{k}), .mreq_block$0(mreq_block{k}),
        .ans_valid$0(ans_valid{k}), .ans_ready$0(ans_ready{k}), .ans_slot$0(ans_slot{k}),
        .rd_slot$0(rd_slot{k}), .rd_word$0(rd_word{k}), .rd_data$0(rd_data{k}),
        .rd_filled$0(rd_filled{k}), .rd_error$0(rd_error{k}),
        .rd_slot2$0(rd_slot2{k}), .rd_filled2$0(rd_filled2{k}),
        .rel_valid$0(rel_valid{k}), .rel_slot$0(rel_slot{k}),
        .filtered$0(c{k}_filtered), .hit$0(c{k}_hit), .miss$0(c{k}_miss)
    );\n"
        );
        miss_conn += &format!(
            "        .req_valid${k}(mreq_valid{k}), .req_ready${k}(mreq_ready{k}), .req_block${k}(mreq_block{k}),
        .ans_valid${k}(ans_valid{k}), .ans_ready${k}(ans_ready{k}), .ans_slot${k}(ans_slot{k}),
        .rel_valid${k}(rel_valid{k}), .rel_slot${k}(rel_slot{k}),
        .rd_slot${k}(rd_slot{k}), .rd_word${k}(rd_word{k}), .rd_data${k}(rd_data{k}),
        .rd_filled${k}(rd_filled{k}), .rd_error${k}(rd_error{k}),
        .rd_slot2${k}(rd_slot2{k}), .rd_filled2${k}(rd_filled2{k}),\n"
        );
    }
    let bus = m.mem_data_bits;
    let pad = if bus < 512 {
        format!("{{{}'d0, m_axi_rdata}}", 512 - bus)
    } else {
        "m_axi_rdata".to_string()
    };
    v += &format!(
        "module {name}(
    input clock, input rst, input init_done, input [63:0] table_base, input [63:0] state_base,
    input live_we, input [20:0] live_waddr, input live_wdata,
    input d_we, input [23:0] d_waddr, input [58:0] d_wdata,
{decl}    input inv_valid, input [20:0] inv_line, output inv_done, output swept,
    output w_tag_we, output [20:0] w_tag_line, output w_tag_valid, output [20:0] w_tag_block,
    output w_data_we, output [23:0] w_data_row, output [511:0] w_data,
    input [20:0] busy_block, output busy,
    output m_axi_arvalid, input m_axi_arready, output [63:0] m_axi_araddr,
    output [7:0] m_axi_arlen, output [2:0] m_axi_arsize, output [1:0] m_axi_arburst,
    input m_axi_rvalid, output m_axi_rready, input [{bm}:0] m_axi_rdata,
    input [1:0] m_axi_rresp, input m_axi_rlast
);
    wire tag_we, tag_valid, data_we;
    wire [20:0] tag_line, tag_block;
    wire [23:0] data_row;
    wire [511:0] data;
    wire cw_valid, cw_last;
    wire [20:0] cw_line, cw_block;
    wire [7:0] cw_beat;
    wire [511:0] cw_data;
    assign w_tag_we = tag_we;
    assign w_tag_line = tag_line;
    assign w_tag_valid = tag_valid;
    assign w_tag_block = tag_block;
    assign w_data_we = data_we;
    assign w_data_row = data_row;
    assign w_data = data;
{body}    {miss} u_miss(
        .clock(clock), .rst(rst), .state_base(state_base),
{miss_conn}        .taken_merged(), .taken_new(), .taken_slot(),
        .cw_valid(cw_valid), .cw_line(cw_line), .cw_block(cw_block), .cw_beat(cw_beat),
        .cw_last(cw_last), .cw_data(cw_data),
        .busy_block(busy_block), .busy(busy), .hold_valid(1'b0), .hold_block(21'd0),
        .arvalid(m_axi_arvalid), .arready(m_axi_arready), .araddr(m_axi_araddr),
        .arlen(m_axi_arlen), .arsize(m_axi_arsize), .arburst(m_axi_arburst),
        .rvalid(m_axi_rvalid), .rready(m_axi_rready), .rdata({pad}),
        .rresp(m_axi_rresp), .rlast(m_axi_rlast)
    );
    {cw} u_cw(
        .clock(clock), .rst(rst),
        .cw_valid(cw_valid), .cw_line(cw_line), .cw_block(cw_block), .cw_beat(cw_beat),
        .cw_last(cw_last), .cw_data(cw_data), .inv_valid(inv_valid), .inv_line(inv_line),
        .inv_done(inv_done), .tag_we(tag_we), .tag_line(tag_line), .tag_valid(tag_valid),
        .tag_block(tag_block), .data_we(data_we), .data_row(data_row), .data(data),
        .swept(swept)
    );
endmodule
",
        bm = bus - 1,
    );
    v
}

/// One run.
#[derive(Clone, Copy, Debug)]
struct Run {
    ports: usize,
    index_bits: u32,
    /// Below 2^index_bits: some lookups are out of range.
    max_qps: Option<u32>,
    leaf_bits: Option<u32>,
    m: MissParams,
    latency: Latency,
    /// Idle probability between a port's requests, and of `ready` low on its responses.
    idle: f64,
    backpressure: f64,
    /// Lookups per port.
    lookups: usize,
    /// Fraction of the lookups drawn from the hot blocks (the rest uniform).
    hot: f64,
    hot_blocks: usize,
    /// Fraction of the blocks with an error range.
    errors: f64,
    /// Probability of raising an invalidation in a cycle.
    invalidations: f64,
    /// Probability of a command's `live` write (flipping a block's bit) in a cycle, during
    /// the lookups.
    live_writes: f64,
}

/// The state table image and what the reference needs of it.
struct Image {
    index_bits: u32,
    max_qps: u64,
    block_bits: u32,
    word_bits: u32,
    block_bytes: u64,
    words: Vec<u64>,
    live: Vec<bool>,
    /// (present, page base) per directory entry (two_level).
    dir: Vec<(bool, u64)>,
    leaf_bits: Option<u32>,
    table_base: u64,
    entry_bytes: u64,
}

impl Image {
    fn blocks(&self) -> u64 {
        1 << self.index_bits.saturating_sub(self.block_bits)
    }

    fn block_of(&self, qpn: u64) -> u64 {
        (qpn & ((1 << self.index_bits) - 1)) >> self.block_bits
    }

    fn in_range(&self, qpn: u64) -> bool {
        (qpn & ((1 << self.index_bits) - 1)) < self.max_qps
    }

    /// The reference answer: (status, address), given whether the block's read failed and
    /// its live bit at the request's edge.
    fn expect(&self, qpn: u64, failed: bool, live: bool) -> (u64, u64) {
        let index = qpn & ((1 << self.index_bits) - 1);
        let gen = qpn >> self.index_bits;
        if index >= self.max_qps {
            return (Status::OutOfRange as u64, 0);
        }
        if !live {
            return (Status::NotAllocated as u64, 0);
        }
        if failed {
            return (Status::MemError as u64, 0);
        }
        let w = self.words[index as usize];
        let gen_mask = (1u64 << (24 - self.index_bits)) - 1;
        if w & 3 != 2 {
            return (Status::NotAllocated as u64, 0);
        }
        if (w >> 2) & gen_mask != gen {
            return (Status::Stale as u64, 0);
        }
        match self.leaf_bits {
            None => (
                Status::Ok as u64,
                self.table_base + index * self.entry_bytes,
            ),
            Some(l) => {
                let (present, page) = self.dir[(index >> l) as usize];
                if !present {
                    return (Status::PageAbsent as u64, 0);
                }
                (
                    Status::Ok as u64,
                    page + (index & ((1 << l) - 1)) * self.entry_bytes,
                )
            }
        }
    }

    /// The block's bytes in memory.
    fn block_bytes_of(&self, b: u64) -> Vec<u8> {
        let mut bytes = vec![0u8; self.block_bytes as usize];
        let per = 1u64 << self.block_bits;
        for w in 0..per {
            let v = self.words[(b * per + w) as usize];
            for k in 0..u64::from(self.word_bits) {
                if v >> k & 1 == 1 {
                    let bit = w * u64::from(self.word_bits) + k;
                    bytes[(bit / 8) as usize] |= 1 << (bit % 8);
                }
            }
        }
        bytes
    }
}

/// A lookup sent, waiting for its response.
#[derive(Clone, Copy, Debug)]
struct Sent {
    qpn: u64,
    tag: u64,
}

/// What a run measured over its window (each port's second half of responses).
struct Figures {
    /// Lookups answered per cycle per port.
    rate: Vec<f64>,
    /// Block reads per lookup answered.
    reads_per_lookup: f64,
    /// Lookups answered from the `live` bit or out of range.
    no_memory: f64,
    /// Per port, the cycles its source presented a request that was not taken, while it
    /// sent the second half of its requests.
    stalls: Vec<u64>,
    /// Per port, the `live` writes made in the same window.
    live_writes: Vec<u64>,
}

/// Runs `run`; `measure`: also the window for the figures (the second half of the
/// responses). Returns the figures.
fn state_cache(name: &str, run: Run, default_seed: u64) -> Figures {
    let m = run.m;
    let p = engine(run.ports, run.index_bits, run.max_qps, run.leaf_bits, m);
    let verilog = design(name, &p);
    let mut sim = block::build(&verilog, name).unwrap().instantiate();
    let seed = block::seed(name, default_seed);
    let what = format!("{name} seed {seed}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);

    // The image: random words (state mostly VALID, generation random), pad bits random.
    let block_bytes = m.block_bytes();
    let base = (rng.gen::<u64>() & 0xFF_FFFF_F000_0000) | (rng.gen_range(0..1024u64) * block_bytes);
    let gen_bits = 24 - run.index_bits;
    let n = 1usize << run.index_bits;
    let words: Vec<u64> = (0..n)
        .map(|_| {
            let state = [2u64, 2, 2, 0, 1, 3][rng.gen_range(0..6)];
            let gen = rng.gen_range(0..1u64 << gen_bits);
            let pad = if 2 + gen_bits < m.word_bits {
                rng.gen_range(0..1u64 << (m.word_bits - 2 - gen_bits)) << (2 + gen_bits)
            } else {
                0
            };
            state | gen << 2 | pad
        })
        .collect();
    let per = 1usize << m.block_bits;
    let blocks = 1usize << run.index_bits.saturating_sub(m.block_bits);
    // The live bit as the engine keeps it (RESERVED or VALID in the block), and some blocks
    // with live words forced to 0: they must be answered from the bit alone.
    let mut forced = HashSet::new();
    let live: Vec<bool> = (0..blocks)
        .map(|b| {
            let any = (0..per.min(n)).any(|w| matches!(words[b * per + w] & 3, 1 | 2));
            if any && rng.gen_bool(0.15) {
                forced.insert(b as u64);
                false
            } else {
                any || rng.gen_bool(0.1)
            }
        })
        .collect();
    let leaf_entries = p.dir_entries() as usize;
    let dir: Vec<(bool, u64)> = (0..leaf_entries)
        .map(|_| (rng.gen_bool(0.85), rng.gen::<u64>() & 0xFFFF_FFFF_FFC0))
        .collect();
    let mut img = Image {
        index_bits: run.index_bits,
        max_qps: u64::from(p.max_qps),
        block_bits: m.block_bits,
        word_bits: m.word_bits,
        block_bytes,
        words,
        live,
        dir,
        leaf_bits: run.leaf_bits,
        table_base: rng.gen::<u64>() & 0xFFFF_FFFF_FFFF_F000,
        entry_bytes: u64::from(p.entry_bytes),
    };

    let mut axi = AxiMemory::new(&sim, "m_axi_")
        .unwrap()
        .with_seed(seed ^ 0xC0FFEE)
        .with_latency(run.latency)
        .with_ar_log(true)
        .with_history(true);
    let mut configured_fail = HashSet::new();
    for b in 0..img.blocks() {
        axi.write_bytes(base + b * block_bytes, &img.block_bytes_of(b));
        if rng.gen_bool(run.errors) {
            let off = rng.gen_range(0..block_bytes);
            let resp = if rng.gen() {
                AxiResp::SlvErr
            } else {
                AxiResp::DecErr
            };
            let a = base + b * block_bytes + off;
            axi.add_error_range(a..a + 1, resp);
            configured_fail.insert(b);
        }
    }

    // Reset, the live bits (and the directory), then init_done once the tags are swept.
    let set = |sim: &mut Sim, n: &str, v: u64| sim.set_named(n, v).unwrap();
    set(&mut sim, "state_base", base | rng.gen_range(0..block_bytes));
    set(&mut sim, "table_base", img.table_base);
    set(&mut sim, "rst", 1);
    sim.step_n(2);
    set(&mut sim, "rst", 0);
    set(&mut sim, "live_we", 1);
    for (b, &l) in img.live.iter().enumerate() {
        set(&mut sim, "live_waddr", b as u64);
        set(&mut sim, "live_wdata", u64::from(l));
        sim.step();
    }
    set(&mut sim, "live_we", 0);
    set(&mut sim, "d_we", u64::from(run.leaf_bits.is_some()));
    for (k, &(present, page)) in img.dir.iter().enumerate() {
        set(&mut sim, "d_waddr", k as u64);
        set(&mut sim, "d_wdata", (page >> 6) << 1 | u64::from(present));
        sim.step();
    }
    set(&mut sim, "d_we", 0);
    let mut waited = 0;
    while sim.get_named("swept").unwrap() == 0 {
        sim.step();
        waited += 1;
        assert!(
            waited <= u64::from(m.cache_lines) + 4,
            "{what}: tags not swept"
        );
    }
    set(&mut sim, "init_done", 1);

    // Lookups: hot blocks (Zipf-like: the k-th hottest drawn ~1/k) and uniform indexes; the
    // generation mostly the word's, sometimes another; some out of range.
    // Hot blocks: live, in distinct lines, so that together they fit the cache.
    let mut hot: Vec<u64> = Vec::new();
    let lines = u64::from(m.cache_lines);
    let beats = u64::from(m.beats());
    let stored = u64::from(m.stored_bits());
    // The model of the cache copies: (valid, block) per line, the words of each row.
    let mut tags: Vec<(bool, u64)> = vec![(false, 0); lines as usize];
    let words_per_row = stored.div_ceil(64) as usize;
    let mut rows: Vec<Vec<u64>> = vec![vec![0; words_per_row]; (lines * beats) as usize];
    let row_of = |img: &Image, b: u64, beat: u64| -> Vec<u64> {
        let bytes = img.block_bytes_of(b);
        let mut out = vec![0u64; words_per_row];
        for k in 0..stored {
            let bit = beat * stored + k;
            if bytes[(bit / 8) as usize] >> (bit % 8) & 1 == 1 {
                out[(k / 64) as usize] |= 1 << (k % 64);
            }
        }
        out
    };
    let o = |n: &str| sim.output(n).unwrap();
    let (w_tag_we, w_tag_line, w_tag_valid, w_tag_block) = (
        o("w_tag_we"),
        o("w_tag_line"),
        o("w_tag_valid"),
        o("w_tag_block"),
    );
    let (w_data_we, w_data_row, w_data) = (o("w_data_we"), o("w_data_row"), o("w_data"));
    let live_blocks: Vec<u64> = (0..img.blocks())
        .filter(|&b| img.live[b as usize])
        .collect();
    let mut tries = 0;
    while hot.len() < run.hot_blocks && tries < 100_000 {
        let b = live_blocks[rng.gen_range(0..live_blocks.len())];
        if hot.iter().all(|h| h % lines != b % lines) {
            hot.push(b);
        }
        tries += 1;
    }
    let mut sources: Vec<StreamSource> =
        block::port_sources(&sim, 'q', &["qpn", "tag"], run.ports, run.idle, seed).unwrap();
    let mut sinks: Vec<StreamSink> = (0..run.ports)
        .map(|k| {
            StreamSink::new(&sim, &format!("r{k}_"), &["qpn", "tag", "status", "addr"])
                .unwrap()
                .with_backpressure(run.backpressure, seed.wrapping_add(100 + k as u64))
        })
        .collect();
    let mut sent: Vec<VecDeque<Sent>> = vec![VecDeque::new(); run.ports];
    for (k, src) in sources.iter_mut().enumerate() {
        for j in 0..run.lookups {
            let index = if rng.gen_bool(run.hot) && !hot.is_empty() {
                let r = rng.gen::<f64>();
                let k = ((hot.len() as f64).powf(r) as usize - 1).min(hot.len() - 1);
                (hot[k] << m.block_bits | rng.gen_range(0..1u64 << m.block_bits)) & (n as u64 - 1)
            } else {
                rng.gen_range(0..n as u64)
            };
            let wg = (img.words[index as usize] >> 2) & ((1 << gen_bits) - 1);
            let gen = if rng.gen_bool(0.85) {
                wg
            } else {
                rng.gen_range(0..1u64 << gen_bits)
            };
            let qpn = gen << run.index_bits | index;
            let tag = (k as u64) << 28 | j as u64;
            src.push([qpn, tag]);
            sent[k].push_back(Sent { qpn, tag });
        }
    }

    let total = (run.ports * run.lookups) as u64;
    let mut answered = 0u64;
    let mut inv: Option<(u64, u64)> = None; // (line, raised at edge)
    let mut invalidations = 0u64;
    let (mut filtered, mut hits, mut misses) = (0u64, 0u64, 0u64);
    // Per port, the lookups in request order: qpn, and whether the model of the cache held
    // its block at the request's edge (the RAMs are read-first).
    let mut order: Vec<VecDeque<(u64, bool, bool)>> = vec![VecDeque::new(); run.ports];
    // Per port, the live bit of each lookup's block at its request's edge, in request order.
    let mut lives: Vec<VecDeque<bool>> = vec![VecDeque::new(); run.ports];
    // The blocks whose live bit was ever 1 (reads of them are allowed).
    let mut ever_live = img.live.clone();
    let mut stalls = vec![0u64; run.ports];
    // The window of the stall count: the second half of a port's requests (after the cache's
    // warm-up, whose misses hold requests back on credit).
    let sending = |sent: usize| sent >= run.lookups / 2 && sent < run.lookups;
    let mut live_writes = vec![0u64; run.ports];
    let (live_we, live_waddr, live_wdata) = (
        sim.input("live_we").unwrap(),
        sim.input("live_waddr").unwrap(),
        sim.input("live_wdata").unwrap(),
    );
    let mut counts = [0u64; 8];
    let mut failed: HashSet<u64> = HashSet::new();
    let mut reads_seen = 0;
    let mut window: Vec<(u64, u64, u64)> = vec![(0, 0, 0); run.ports]; // (from, to, count)
    let start = sim.cycle();
    let flight: Vec<_> = (0..run.ports)
        .map(|k| sim.output(&format!("k{k}_flight")).unwrap())
        .collect();
    let pulse: Vec<[qptable_sim::Out; 3]> = (0..run.ports)
        .map(|k| {
            [
                sim.output(&format!("c{k}_filtered")).unwrap(),
                sim.output(&format!("c{k}_hit")).unwrap(),
                sim.output(&format!("c{k}_miss")).unwrap(),
            ]
        })
        .collect();
    let inv_valid = sim.input("inv_valid").unwrap();
    let inv_line = sim.input("inv_line").unwrap();
    let inv_done = sim.output("inv_done").unwrap();
    while answered < total {
        let e = sim.cycle() + 1;
        assert!(
            e - start < 400 * total + 50_000,
            "{what}: stuck at edge {e}: {answered} of {total} answered"
        );
        for s in sources.iter_mut() {
            s.drive(&mut sim);
        }
        for s in sinks.iter_mut() {
            s.drive(&mut sim);
        }
        axi.drive(&mut sim);
        if inv.is_none() && rng.gen_bool(run.invalidations) {
            // Mostly the lines of hot blocks.
            let line = if rng.gen_bool(0.7) && !hot.is_empty() {
                hot[rng.gen_range(0..hot.len())] % lines
            } else {
                rng.gen_range(0..lines)
            };
            inv = Some((line, e));
        }
        sim.set_bool(inv_valid, inv.is_some());
        sim.set(inv_line, inv.map_or(rng.gen_range(0..lines), |i| i.0));
        // A command's live write at this edge (a flip of a block that is not forced to 0:
        // mostly a hot block, which the lookups hit).
        let mut flip = None;
        if rng.gen_bool(run.live_writes) {
            let b = if rng.gen_bool(0.7) && !hot.is_empty() {
                hot[rng.gen_range(0..hot.len())]
            } else {
                rng.gen_range(0..img.blocks())
            };
            if !forced.contains(&b) {
                flip = Some(b);
            }
        }
        sim.set_bool(live_we, flip.is_some());
        sim.set(live_waddr, flip.unwrap_or(0));
        sim.set_bool(live_wdata, flip.is_some_and(|b| !img.live[b as usize]));
        let sent_before: Vec<usize> = sources.iter().map(|s| s.sent().len()).collect();
        sim.step();
        for s in sources.iter_mut() {
            s.observe(&sim);
        }
        for s in sinks.iter_mut() {
            s.observe(&sim);
        }
        axi.observe(&sim);
        let inv_raised = inv;
        if let Some((line, at)) = inv {
            if sim.is_high(inv_done) {
                assert!(
                    e - at <= 2,
                    "{what}: invalidation of line {line} took {}",
                    e - at + 1
                );
                inv = None;
                invalidations += 1;
            } else {
                assert!(
                    e - at < 2,
                    "{what}: invalidation of line {line} not done at {e}"
                );
            }
        } else {
            assert!(
                !sim.is_high(inv_done),
                "{what}: inv_done with no invalidation"
            );
        }
        for k in 0..run.ports {
            let taken = sources[k].sent().len() > sent_before[k];
            if !taken && sending(sent_before[k]) {
                stalls[k] += 1;
            }
            if let Some(b) = sources[k].sent().last() {
                if b.cycle == e {
                    let q = b.data()[0];
                    let blk = img.block_of(q);
                    let held = tags[(blk % lines) as usize] == (true, blk);
                    // Read-first: a request at the write's edge sees the old bit.
                    let live = img.in_range(q) && img.live[blk as usize];
                    order[k].push_back((q, held, live));
                    lives[k].push_back(live);
                }
            }
        }
        if let Some(b) = flip {
            img.live[b as usize] = !img.live[b as usize];
            ever_live[b as usize] |= img.live[b as usize];
            for k in 0..run.ports {
                live_writes[k] += u64::from(sending(sent_before[k]));
            }
        }
        // The cache writes of edge e, into the model; an invalidation done at e is on them.
        let mut touched: Vec<u64> = Vec::new();
        if sim.is_high(w_tag_we) {
            let line = sim.get(w_tag_line);
            assert!(line < lines, "{what}: tag write of line {line}");
            tags[line as usize] = (sim.is_high(w_tag_valid), sim.get(w_tag_block));
            touched.push(line);
        }
        if sim.is_high(inv_done) {
            let line = inv_raised.map_or(u64::MAX, |i| i.0);
            assert!(
                sim.is_high(w_tag_we) && sim.get(w_tag_line) == line && !sim.is_high(w_tag_valid),
                "{what}: inv_done at {e} without the invalidation of line {line} on the tags"
            );
        }
        if sim.is_high(w_data_we) {
            let row = sim.get(w_data_row);
            assert!(row < lines * beats, "{what}: data write of row {row}");
            rows[row as usize] = sim.get_wide(w_data)[..words_per_row].to_vec();
            if stored % 64 != 0 {
                let last = rows[row as usize].last_mut().unwrap();
                *last &= (1u64 << (stored % 64)) - 1;
            }
            touched.push(row / beats);
        }
        for &line in &touched {
            let (valid, blk) = tags[line as usize];
            if valid {
                assert_eq!(blk % lines, line, "{what}: block {blk} in line {line}");
                for beat in 0..beats {
                    assert_eq!(
                        rows[(line * beats + beat) as usize],
                        row_of(&img, blk, beat),
                        "{what}: line {line} valid for block {blk} at edge {e} with row {beat} \
                         not the block's"
                    );
                }
            }
        }
        // s3 pulses: in request order, one per in-range lookup, three edges after its request.
        // The blocks whose reads failed, from the memory model's record.
        for r in &axi.done()[reads_seen..] {
            if r.resp != AxiResp::Okay {
                failed.insert((r.ar.addr - base) / block_bytes);
            }
        }
        reads_seen = axi.done().len();
        for k in 0..run.ports {
            let [f, h, mi] = pulse[k].map(|o| sim.is_high(o));
            assert!(
                u8::from(f) + u8::from(h) + u8::from(mi) <= 1,
                "{what}: two pulses on port {k}"
            );
            if f || h || mi {
                // The oldest lookup of the port not yet pulsed, skipping those out of range.
                let (qpn, held, live) = loop {
                    let (q, held, live) = order[k]
                        .pop_front()
                        .unwrap_or_else(|| panic!("{what}: port {k} pulse with no lookup at {e}"));
                    if img.in_range(q) {
                        break (q, held, live);
                    }
                };
                let b = img.block_of(qpn);
                assert_eq!(
                    f, !live,
                    "{what}: port {k} filtered pulse for qpn {qpn:#x} (block {b}) at {e}"
                );
                if !f {
                    assert_eq!(
                        h, held,
                        "{what}: port {k} hit pulse for qpn {qpn:#x} (block {b}) at {e}"
                    );
                }
                assert!(
                    !(h && configured_fail.contains(&b)),
                    "{what}: port {k} hit on block {b}, which never fills"
                );
                filtered += u64::from(f);
                hits += u64::from(h);
                misses += u64::from(mi);
            }
        }
        for k in 0..run.ports {
            while let Some(r) = sinks[k].pop() {
                let s = sent[k]
                    .pop_front()
                    .unwrap_or_else(|| panic!("{what}: port {k}: a response for nothing"));
                let d = r.data();
                assert_eq!(
                    (d[0], d[1]),
                    (s.qpn, s.tag),
                    "{what}: port {k} order at {}",
                    r.cycle
                );
                let b = img.block_of(s.qpn);
                let live = lives[k].pop_front().unwrap();
                let (status, addr) = img.expect(s.qpn, failed.contains(&b), live);
                assert_eq!(
                    (d[2], d[3]),
                    (status, addr),
                    "{what}: port {k} qpn {:#x} (block {b}, word {:#x}, live {}) at edge {}",
                    s.qpn,
                    img.words[(s.qpn & (n as u64 - 1)) as usize],
                    img.live.get(b as usize).copied().unwrap_or(false),
                    r.cycle
                );
                counts[d[2] as usize] += 1;
                answered += 1;
                let w = &mut window[k];
                let done_k = (run.lookups - sent[k].len()) as u64;
                if done_k * 2 > run.lookups as u64 {
                    if w.2 == 0 {
                        w.0 = r.cycle;
                    }
                    w.1 = r.cycle;
                    w.2 += 1;
                }
            }
        }
    }
    // Nothing outstanding: no lookup in flight, no read, every slot free.
    for _ in 0..5 {
        axi.drive(&mut sim);
        sim.set_bool(inv_valid, false);
        sim.set_bool(live_we, false);
        sim.step();
        axi.observe(&sim);
    }
    for (k, &f) in flight.iter().enumerate() {
        assert_eq!(sim.get(f), 0, "{what}: port {k} lookups still in flight");
    }
    assert!(
        sinks.iter().all(|s| s.received().is_empty()),
        "{what}: responses after the last"
    );
    axi.check().unwrap_or_else(|e| panic!("{what}: {e:#}"));
    assert!(axi.is_idle(), "{what}: memory still busy");
    // `busy` is registered: it tells of the block asked one edge before.
    for b in 0..img.blocks().min(4096) {
        set(&mut sim, "busy_block", b);
        sim.step();
        sim.step();
        assert_eq!(
            sim.get_named("busy").unwrap(),
            0,
            "{what}: block {b} holds a slot"
        );
    }
    // The reads: aligned blocks inside the table, never of a block whose live bit is 0; a read
    // failed exactly for the blocks with an error range.
    let table_bytes = img.blocks() * block_bytes;
    for ar in axi.ar_log() {
        assert!(
            ar.addr >= base
                && ar.addr < base + table_bytes
                && (ar.addr - base).is_multiple_of(block_bytes),
            "{what}: read at {:#x} outside the table or unaligned",
            ar.addr
        );
        let b = (ar.addr - base) / block_bytes;
        assert!(
            ever_live[b as usize],
            "{what}: read of block {b} whose live bit was never 1"
        );
        assert!(!forced.contains(&b), "{what}: read of filtered block {b}");
    }
    for r in axi.done() {
        let b = (r.ar.addr - base) / block_bytes;
        assert_eq!(
            r.resp != AxiResp::Okay,
            configured_fail.contains(&b),
            "{what}: read of block {b} failed or not"
        );
    }
    let reads = axi.ar_count();
    assert!(reads <= misses, "{what}: {reads} reads for {misses} misses");
    let in_range_live = hits + misses;
    println!(
        "{name}: {run:?}\n{name}: {total} lookups: OK {} OUT_OF_RANGE {} NOT_ALLOCATED {} STALE {} \
         PAGE_ABSENT {} MEM_ERROR {}; {filtered} filtered, {hits} hits, {misses} misses, \
         {reads} reads, {invalidations} invalidations, {} forced-filtered blocks",
        counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], forced.len()
    );
    for (s, c) in counts.iter().enumerate().take(6) {
        let possible = match s {
            1 => run.max_qps.is_some(),
            4 => run.leaf_bits.is_some(),
            5 => run.errors > 0.0,
            _ => true,
        };
        assert!(*c > 0 || !possible, "{what}: status {s} never answered");
    }
    let rate: Vec<f64> = window
        .iter()
        .map(|w| w.2 as f64 / (w.1 - w.0 + 1) as f64)
        .collect();
    let (from, to) = (
        window.iter().map(|w| w.0).min().unwrap(),
        window.iter().map(|w| w.1).max().unwrap(),
    );
    let window_reads = axi
        .ar_log()
        .iter()
        .filter(|a| (from..=to).contains(&a.cycle))
        .count();
    Figures {
        rate,
        reads_per_lookup: window_reads as f64 / window.iter().map(|w| w.2).sum::<u64>() as f64,
        no_memory: 1.0 - in_range_live as f64 / total as f64,
        stalls,
        live_writes,
    }
}

fn mp(block_bits: u32, word_bits: u32, max_misses: u32, bus: u32, lines: u32) -> MissParams {
    MissParams {
        block_bits,
        word_bits,
        max_misses,
        mem_data_bits: bus,
        cache_lines: lines,
    }
}

fn random_run(ports: usize, index_bits: u32, m: MissParams, latency: Latency) -> Run {
    Run {
        ports,
        index_bits,
        max_qps: Some((1 << index_bits) - (1 << index_bits) / 16),
        leaf_bits: None,
        m,
        latency,
        idle: 0.3,
        backpressure: 0.3,
        lookups: 1500,
        hot: 0.6,
        hot_blocks: 24,
        errors: 0.05,
        invalidations: 0.05,
        live_writes: 0.01,
    }
}

/// A quiet run at full rate: index_bits 18, memory latency 64, no idle, no backpressure, no
/// error, no invalidation, no `live` write; every lookup drawn from 8 hot blocks.
fn full_rate_hits(ports: usize, m: MissParams) -> Run {
    Run {
        ports,
        index_bits: 18,
        max_qps: None,
        leaf_bits: None,
        m,
        latency: Latency::Fixed(64),
        idle: 0.0,
        backpressure: 0.0,
        lookups: 4000,
        hot: 1.0,
        hot_blocks: 8,
        errors: 0.0,
        invalidations: 0.0,
        live_writes: 0.0,
    }
}

#[test]
fn one_port_flat_16_beats_latency_64() {
    // index_bits 12 (12 generation bits: words of 16 bits), 64-word blocks on a 64-bit bus:
    // 16 beats a block.
    state_cache(
        "sc_p1_flat",
        random_run(1, 12, mp(6, 16, 8, 64, 64), Latency::Fixed(64)),
        0x5CA0_0001,
    );
}

#[test]
fn two_ports_flat_random_latency_no_idle() {
    // index_bits 14: 10 generation bits, 16-bit words; 8-word blocks: 128 bits, 2 beats.
    state_cache(
        "sc_p2_flat",
        Run {
            idle: 0.0,
            backpressure: 0.0,
            ..random_run(2, 14, mp(3, 16, 16, 64, 128), Latency::Uniform(1, 80))
        },
        0x5CA0_0002,
    );
}

#[test]
fn three_ports_two_level_on_chip_narrow_blocks() {
    // index_bits 10, 14 generation bits: 16-bit words; 8 words a block: 128 bits in a
    // 512-bit beat (one narrow transfer).
    state_cache(
        "sc_p3_two_level",
        Run {
            leaf_bits: Some(6),
            ..random_run(3, 10, mp(3, 16, 32, 512, 32), Latency::Uniform(1, 100))
        },
        0x5CA0_0003,
    );
}

#[test]
fn four_ports_flat_wide_bus_latency_64() {
    // index_bits 16, 8 generation bits: 16-bit words (2 + 8 rounded up); 16 words a block.
    state_cache(
        "sc_p4_flat",
        Run {
            lookups: 1000,
            ..random_run(4, 16, mp(4, 16, 32, 256, 256), Latency::Fixed(64))
        },
        0x5CA0_0004,
    );
}

#[test]
fn all_hit_one_lookup_per_cycle_and_missing_against_the_bound() {
    // All hits: a few hot blocks in distinct lines, no idle, no backpressure, no
    // invalidation, no error: after warm-up (the second half) one answer per cycle per port.
    // index_bits 18: 6 generation bits, 8-bit words; 64 words a block: 8 beats of 64.
    let m = mp(6, 8, 64, 64, 1024);
    let hits = state_cache("sc_hits", full_rate_hits(2, m), 0x5CA0_0100);
    for (k, r) in hits.rate.iter().enumerate() {
        println!(
            "sc_hits: port {k}: {r:.3} lookups per cycle after warm-up (all hits; target 1.00)"
        );
        assert!(*r >= 0.999, "port {k}: {r:.3} lookups per cycle on hits");
    }
    // Missing: uniform over 2^12 blocks (1024 lines), fixed latency 64.
    let ports = 2;
    let missing = Run {
        hot: 0.0,
        hot_blocks: 0,
        ..full_rate_hits(ports, m)
    };
    let miss = state_cache("sc_misses", missing, 0x5CA0_0101);
    print_against_bound("sc_misses", ports, &m, &miss);
    // Missing with one beat a block (512-bit bus) and 16 slots: bound by the slots.
    let m16 = mp(6, 8, 16, 512, 1024);
    let slots = state_cache("sc_misses_slots", Run { m: m16, ..missing }, 0x5CA0_0102);
    print_against_bound("sc_misses_slots", ports, &m16, &slots);
}

#[test]
fn live_writes_under_full_rate_steal_one_cycle_of_port_a_only() {
    // Three ports: pipes 0 and 1 share a live copy (0 on its read/write port A, 1 on its
    // read port B), pipe 2 is alone on port B of the second copy. Full-rate all-hit lookups
    // (no idle, no backpressure) while commands flip live bits of the hot blocks (the
    // lookups' answers follow the bit as of their request edge: checked in `state_cache`).
    // Each write must cost port 0 exactly one request cycle and ports 1 and 2 none, and
    // lose no lookup.
    let m = mp(6, 8, 64, 64, 1024);
    let f = state_cache(
        "sc_live_steal",
        Run {
            live_writes: 0.03,
            ..full_rate_hits(3, m)
        },
        0x5CA0_0200,
    );
    for k in 0..3 {
        println!(
            "sc_live_steal: port {k}: {} live writes while sending its second half, {} \
             request cycles lost",
            f.live_writes[k], f.stalls[k]
        );
    }
    assert!(
        f.live_writes[0] >= 50,
        "too few writes: {}",
        f.live_writes[0]
    );
    assert_eq!(
        f.stalls[0], f.live_writes[0],
        "port 0 (port A): one lost cycle per write"
    );
    assert_eq!(f.stalls[1], 0, "port 1 (port B) lost request cycles");
    assert_eq!(
        f.stalls[2], 0,
        "port 2 (unpaired, port B) lost request cycles"
    );
}

/// Prints each port's rate beside the bound of SPEC §9 for a memory latency of 64, the
/// slots and the bus shared by the ports.
fn print_against_bound(name: &str, ports: usize, m: &MissParams, f: &Figures) {
    let miss_rate = f.reads_per_lookup;
    let beats = f64::from(m.beats());
    let bound = 1f64
        .min(f64::from(m.max_misses) / ports as f64 / (miss_rate * 64.0))
        .min(1.0 / ports as f64 / (miss_rate * beats));
    for (k, r) in f.rate.iter().enumerate() {
        println!(
            "{name}: port {k}: {r:.3} lookups per cycle, bound {bound:.3} = min(1, {} slots / \
             {ports} ports / ({miss_rate:.3} reads per lookup x 64), 1 beat per cycle / {ports} \
             ports / ({miss_rate:.3} x {beats} beats)): {:.2} of the bound ({:.1} % of the \
             lookups answered with no memory access)",
            m.max_misses,
            r / bound,
            f.no_memory * 100.0
        );
    }
}

// ---- The Verilog on its own ----------------------------------------------------------------

#[test]
fn verilog_lints_compiles_and_synthesizes() {
    // Generic synthesis (RAMs in flip-flops) only for small caches; the SPEC §9 target maps
    // its RAMs to ECP5 block RAM.
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "sc_pipe_flat",
            block::verilog(
                LookupPipe::new(&engine(2, 14, None, None, mp(3, 16, 8, 64, 16))),
                "sc_pipe_flat",
            )
            .unwrap(),
            "synth",
        ),
        (
            "sc_pipe_two_level",
            block::verilog(
                LookupPipe::new(&engine(1, 10, None, Some(6), mp(3, 16, 4, 512, 32))),
                "sc_pipe_two_level",
            )
            .unwrap(),
            "synth",
        ),
        (
            "sc_pipe_target",
            // The SPEC §9 target: index_bits 24, block_bits 6, 2-bit words, 1024 lines.
            block::verilog(
                LookupPipe::new(&engine(2, 24, None, None, mp(6, 2, 64, 64, 1024))),
                "sc_pipe_target",
            )
            .unwrap(),
            "synth_ecp5",
        ),
        (
            "sc_live_small",
            block::verilog(LiveFilter::new(8, Fpga::Generic), "sc_live_small").unwrap(),
            "synth",
        ),
        (
            "sc_live_target",
            // The SPEC §9 target: 2^18 blocks, 16 DP16KD of 16384 x 1 with both ports.
            block::verilog(LiveFilter::new(18, Fpga::Ecp5), "sc_live_target").unwrap(),
            "synth_ecp5",
        ),
        (
            "sc_cache_writes",
            block::verilog(CacheWrites::new(&mp(6, 2, 64, 64, 1024)), "sc_cache_writes").unwrap(),
            "synth",
        ),
    ];
    for (top, text, flow) in &cases {
        let path = block::gen_dir(env!("CARGO_TARGET_TMPDIR"), "block_state_cache")
            .join(format!("{top}.v"));
        std::fs::write(&path, text).unwrap();
        let doubles = comb_ports::double_assignments(text).unwrap();
        assert!(doubles.is_empty(), "{top}: {doubles:?}");
        // Lint and Icarus with the DP16KD simulation model when the RAMs instantiate it;
        // yosys with the vendor primitive.
        let sim_dir =
            block::gen_dir(env!("CARGO_TARGET_TMPDIR"), "block_state_cache").join("with_models");
        std::fs::create_dir_all(&sim_dir).unwrap();
        let sim_path = sim_dir.join(format!("{top}.v"));
        let mut sim_text = text.clone();
        if text.contains("DP16KD #(") {
            sim_text.push_str(qptable_testbench::DP16KD_MODEL);
        }
        std::fs::write(&sim_path, &sim_text).unwrap();
        block::lint_and_icarus(&sim_path, top);
        let (cells, _) = block::yosys_synth(&path, top, flow);
        println!("{top}: yosys {flow}: {cells} cells");
    }
}

#[test]
fn queue_depth_is_twice_the_misses_within_16_to_128() {
    for (misses, want) in [
        (1, 16),
        (8, 16),
        (9, 32),
        (33, 128),
        (64, 128),
        (100, 128),
        (256, 128),
    ] {
        assert_eq!(state_queue_depth(misses), want, "max_misses {misses}");
    }
}
