//! Block-level test of the state table's write master ([`MemWriter`]), alone in Verilator,
//! against the AXI memory model of the harness ([`AxiMemory`], write channels) with AW and W
//! backpressure, B gaps, fixed and random latency, the three orders a slave may impose on AW
//! and W, and error responses; on data buses of 64, 128, 256 and 512 bits.
//!
//! Random writes, one after the other as the command engine issues them (random idle cycles
//! between them): bursts of 1 to 64 beats aligned to their size inside one 4 KiB page (as a
//! block of the state table is), one random beat carrying random data and strobes, the
//! others zeros with every strobe. The memory starts filled with random bytes, so a zero
//! beat and a missing strobe both show. Checked against a plain byte array: after every
//! write, the bytes of its burst (a beat overlapping an error range writes nothing); at the
//! end the whole region. Also: one AW per request with its address and length; `done` once
//! per request, at the edge after its B handshake, with `error` exactly when a beat
//! overlapped an error range; `req_ready` low while a write is in flight; the master's side
//! of the protocol (the model's checks); at full speed, `beats + 2` cycles a write.

use qptable::hw::mem_writer::{MemWriter, MEM_DATA_BITS_MAX, MEM_STRB_BITS_MAX};
use qptable_sim::axi_mem::{AxiMemory, Latency, WriteDataOrder};
use qptable_sim::{step_agents, Agent, AxiResp, In, Out, Sim};
use qptable_testbench::block;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The block between a wrapper that narrows the data bus to `data_bits`, ties the fixed AXI
/// fields as the top level will (INCR, `awsize` of the bus, ID 0) and a read channel that
/// never reads (the memory model serves a read and a write master on one port).
fn wrapper(top: &str, block_top: &str, data_bits: usize) -> String {
    let strb = data_bits / 8;
    let size = strb.trailing_zeros();
    let d = data_bits;
    format!(
        "module {top}(
    input clock, input rst,
    input req_valid, output req_ready, input [63:0] req_addr, input [7:0] req_last,
    input [7:0] req_beat, input [{dm}:0] req_data, input [{sm}:0] req_strb,
    output done, output error,
    output m_axi_awvalid, input m_axi_awready, output [63:0] m_axi_awaddr,
    output [7:0] m_axi_awlen, output [2:0] m_axi_awsize, output [1:0] m_axi_awburst,
    output m_axi_wvalid, input m_axi_wready, output [{dm}:0] m_axi_wdata,
    output [{sm}:0] m_axi_wstrb, output m_axi_wlast,
    input m_axi_bvalid, output m_axi_bready, input [1:0] m_axi_bresp,
    output m_axi_arvalid, input m_axi_arready, output [63:0] m_axi_araddr,
    output [7:0] m_axi_arlen, output [2:0] m_axi_arsize, output [1:0] m_axi_arburst,
    input m_axi_rvalid, output m_axi_rready, input [{dm}:0] m_axi_rdata,
    input [1:0] m_axi_rresp, input m_axi_rlast
);
    wire [{wm}:0] wdata_full;
    wire [{xm}:0] wstrb_full;
    assign m_axi_awsize = 3'd{size};
    assign m_axi_awburst = 2'd1;
    assign m_axi_wdata = wdata_full[{dm}:0];
    assign m_axi_wstrb = wstrb_full[{sm}:0];
    assign m_axi_arvalid = 1'b0;
    assign m_axi_araddr = 64'd0;
    assign m_axi_arlen = 8'd0;
    assign m_axi_arsize = 3'd{size};
    assign m_axi_arburst = 2'd1;
    assign m_axi_rready = 1'b1;
    {block_top} u_writer(
        .clock(clock), .rst(rst),
        .req_valid(req_valid), .req_ready(req_ready), .req_addr(req_addr),
        .req_last(req_last), .req_beat(req_beat),
        .req_data({req_data}), .req_strb({req_strb}),
        .done(done), .error(error),
        .awvalid(m_axi_awvalid), .awready(m_axi_awready), .awaddr(m_axi_awaddr),
        .awlen(m_axi_awlen),
        .wvalid(m_axi_wvalid), .wready(m_axi_wready), .wdata(wdata_full),
        .wstrb(wstrb_full), .wlast(m_axi_wlast),
        .bvalid(m_axi_bvalid), .bready(m_axi_bready), .bresp(m_axi_bresp)
    );
endmodule
",
        dm = d - 1,
        sm = strb - 1,
        wm = MEM_DATA_BITS_MAX - 1,
        xm = MEM_STRB_BITS_MAX - 1,
        req_data = widened("req_data", MEM_DATA_BITS_MAX - d),
        req_strb = widened("req_strb", MEM_STRB_BITS_MAX - strb),
    )
}

/// `signal` widened with `n` zero bits above it.
fn widened(signal: &str, n: usize) -> String {
    if n == 0 {
        signal.into()
    } else {
        format!("{{{n}'d0, {signal}}}")
    }
}

/// The memory side of one run.
#[derive(Clone, Copy, Debug)]
struct Memory {
    latency: Latency,
    aw_backpressure: f64,
    w_backpressure: f64,
    b_gaps: f64,
    order: WriteDataOrder,
    /// Idle probability before each request.
    req_idle: f64,
}

impl Memory {
    fn full_speed(&self) -> bool {
        self.latency == Latency::Fixed(1)
            && self.aw_backpressure == 0.0
            && self.w_backpressure == 0.0
            && self.b_gaps == 0.0
            && self.req_idle == 0.0
    }
}

/// One write request.
#[derive(Clone, Debug)]
struct Write {
    addr: u64,
    beats: usize,
    beat: usize,
    /// The data beat's bytes and strobes, one per byte lane.
    data: Vec<u8>,
    strb: Vec<bool>,
}

/// The request inputs of the block.
struct Requester {
    valid: In,
    addr: In,
    last: In,
    beat: In,
    data: In,
    strb: In,
    ready: Out,
    lanes: usize,
}

impl Requester {
    fn new(sim: &Sim, lanes: usize) -> Requester {
        Requester {
            valid: sim.input("req_valid").unwrap(),
            addr: sim.input("req_addr").unwrap(),
            last: sim.input("req_last").unwrap(),
            beat: sim.input("req_beat").unwrap(),
            data: sim.input("req_data").unwrap(),
            strb: sim.input("req_strb").unwrap(),
            ready: sim.output("req_ready").unwrap(),
            lanes,
        }
    }

    fn present(&self, sim: &mut Sim, w: Option<&Write>) {
        let Some(w) = w else {
            sim.set(self.valid, 0);
            return;
        };
        sim.set(self.valid, 1);
        sim.set(self.addr, w.addr);
        sim.set(self.last, (w.beats - 1) as u64);
        sim.set(self.beat, w.beat as u64);
        let mut words = vec![0u64; self.lanes.div_ceil(8)];
        for (i, b) in w.data.iter().enumerate() {
            words[i / 8] |= u64::from(*b) << (8 * (i % 8));
        }
        sim.set_wide(self.data, &words);
        let strb = w
            .strb
            .iter()
            .enumerate()
            .fold(0u64, |acc, (i, s)| acc | u64::from(*s) << i);
        sim.set(self.strb, strb);
    }
}

fn mem_writer(name: &str, data_bits: usize, mem: Memory, writes: usize, default_seed: u64) {
    let block_top = format!("mem_writer_{data_bits}");
    let top = format!("{block_top}_tb");
    let verilog = block::verilog(MemWriter::new(data_bits), &block_top).unwrap()
        + &wrapper(&top, &block_top, data_bits);
    let model = block::build(&verilog, &top).unwrap();
    let seed = block::seed(name, default_seed);
    let what = format!("{name} seed {seed} {data_bits}-bit bus {mem:?}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut sim = model.instantiate();
    let lanes = data_bits / 8;

    // The region: 4 pages at a random page-aligned address (low or high), random bytes;
    // some 64-byte ranges answer errors.
    let base = if rng.gen() {
        rng.gen::<u64>() & 0xFFFF_F000 & !0x3FFF
    } else {
        rng.gen::<u64>() & !0xFFF & !(0xFFFF << 48)
    };
    let size = 4 * 4096u64;
    let mut axi = AxiMemory::new(&sim, "m_axi_")
        .unwrap()
        .with_seed(seed ^ 0x5A5A)
        .with_write_latency(mem.latency)
        .with_aw_backpressure(mem.aw_backpressure)
        .with_w_backpressure(mem.w_backpressure)
        .with_b_gaps(mem.b_gaps)
        .with_write_data_order(mem.order)
        .with_aw_log(true)
        .with_history(true);
    let mut shadow: Vec<u8> = (0..size).map(|_| rng.gen()).collect();
    axi.write_bytes(base, &shadow);
    let mut errors: Vec<std::ops::Range<u64>> = Vec::new();
    for _ in 0..6 {
        let a = base + (rng.gen_range(0..size / 64)) * 64;
        let resp = if rng.gen() {
            AxiResp::SlvErr
        } else {
            AxiResp::DecErr
        };
        axi.add_error_range(a..a + 64, resp);
        errors.push(a..a + 64);
    }

    // The requests: bursts of a power of two beats (at most 64 and one page), aligned to
    // their size.
    let max_beats = (4096 / lanes).min(64);
    let requests: Vec<Write> = (0..writes)
        .map(|_| {
            let beats = 1usize << rng.gen_range(0..=max_beats.trailing_zeros());
            let bytes = (beats * lanes) as u64;
            let addr = base + rng.gen_range(0..size / bytes) * bytes;
            let full = rng.gen_bool(0.3);
            Write {
                addr,
                beats,
                beat: rng.gen_range(0..beats),
                data: (0..lanes).map(|_| rng.gen()).collect(),
                strb: (0..lanes).map(|_| full || rng.gen_bool(0.5)).collect(),
            }
        })
        .collect();

    let req = Requester::new(&sim, lanes);
    let done = sim.output("done").unwrap();
    let error = sim.output("error").unwrap();
    let rst = sim.input("rst").unwrap();
    sim.set(rst, 1);
    sim.step_n(2);
    sim.set(rst, 0);

    let mut next = 0usize;
    let mut in_flight: Option<(usize, u64)> = None;
    let mut finished = 0usize;
    let mut error_writes = 0usize;
    let mut idle = false;
    let start = sim.cycle();
    let mut busy_cycles = 0u64;
    while finished < writes {
        assert!(
            sim.cycle() - start < 2000 * writes as u64 + 10_000,
            "{what}: {finished} of {writes} writes done, stuck"
        );
        if in_flight.is_none() && next < writes && !idle {
            idle = rng.gen_bool(mem.req_idle);
        }
        let offer = (in_flight.is_none() && next < writes && !idle).then(|| &requests[next]);
        req.present(&mut sim, offer);
        step_agents(&mut sim, &mut [&mut axi as &mut dyn Agent]);
        // What the edge sampled (`Sim::get` after a step).
        let ready = sim.is_high(req.ready);
        let is_done = sim.is_high(done);
        idle = false;
        if in_flight.is_some() {
            busy_cycles += 1;
            assert_eq!(
                ready, is_done,
                "{what}: req_ready with a write in flight (high only with its done)"
            );
        }
        if offer.is_some() && ready {
            in_flight = Some((next, sim.cycle()));
            next += 1;
            continue;
        }
        if !is_done {
            continue;
        }
        let (k, _) = in_flight
            .take()
            .unwrap_or_else(|| panic!("{what}: done with no write in flight"));
        let w = &requests[k];
        // `done` is sampled high at the edge after the B handshake.
        let b = axi
            .take_write_done()
            .pop()
            .unwrap_or_else(|| panic!("{what}: done before the memory saw the write end"));
        assert_eq!(
            b.b_cycle + 1,
            sim.cycle(),
            "{what}: write {k}: done at the edge after its B handshake"
        );
        assert_eq!(b.aw.addr, w.addr, "{what}: write {k}: awaddr");
        assert_eq!(b.aw.len + 1, w.beats as u64, "{what}: write {k}: awlen");
        // The model: every beat not overlapping an error range is written.
        let mut failed = false;
        for i in 0..w.beats {
            let a = w.addr + (i * lanes) as u64;
            if errors
                .iter()
                .any(|r| r.start < a + lanes as u64 && a < r.end)
            {
                failed = true;
                continue;
            }
            for lane in 0..lanes {
                let off = (a - base) as usize + lane;
                if i == w.beat {
                    if w.strb[lane] {
                        shadow[off] = w.data[lane];
                    }
                } else {
                    shadow[off] = 0;
                }
            }
        }
        assert_eq!(
            sim.is_high(error),
            failed,
            "{what}: write {k} at {:#x}: error flag",
            w.addr
        );
        error_writes += usize::from(failed);
        let mut got = vec![0u8; w.beats * lanes];
        axi.read_bytes(w.addr, &mut got);
        let off = (w.addr - base) as usize;
        assert!(
            got == shadow[off..off + w.beats * lanes],
            "{what}: write {k} at {:#x}, {} beats, data beat {}: memory differs from the model",
            w.addr,
            w.beats,
            w.beat
        );
        finished += 1;
    }
    for _ in 0..20 {
        step_agents(&mut sim, &mut [&mut axi as &mut dyn Agent]);
        assert!(!sim.is_high(done), "{what}: done after the end");
    }
    let mut all = vec![0u8; size as usize];
    axi.read_bytes(base, &mut all);
    assert!(all == shadow, "{what}: the region differs from the model");
    axi.check().unwrap_or_else(|e| panic!("{what}: {e:#}"));
    assert!(axi.is_idle(), "{what}: memory still busy");
    assert_eq!(axi.aw_count(), writes as u64, "{what}: one AW per write");
    let beats: usize = requests.iter().map(|w| w.beats).sum();
    println!(
        "{name}: {writes} writes, {beats} beats on a {data_bits}-bit bus: {busy_cycles} cycles \
         busy, {error_writes} with an error response"
    );
    assert!(error_writes > 0, "{what}: no write met an error range");
    if mem.full_speed() {
        // Request at edge t, beat k taken at t + 1 + k, B at t + beats + 1 (latency 1),
        // done and req_ready sampled high at t + beats + 2, where the next request is taken:
        // beats + 2 edges a write.
        let bound = (beats + 2 * writes) as u64;
        assert!(
            busy_cycles <= bound,
            "{what}: {busy_cycles} busy cycles for {beats} beats in {writes} writes (bound {bound})"
        );
    }
}

const ALL_ORDERS: [WriteDataOrder; 3] = [
    WriteDataOrder::Any,
    WriteDataOrder::WAfterAw,
    WriteDataOrder::AwAfterW,
];

#[test]
fn full_speed_every_bus_width() {
    for (i, bits) in [64, 128, 256, 512].into_iter().enumerate() {
        mem_writer(
            &format!("full_speed_{bits}"),
            bits,
            Memory {
                latency: Latency::Fixed(1),
                aw_backpressure: 0.0,
                w_backpressure: 0.0,
                b_gaps: 0.0,
                order: WriteDataOrder::Any,
                req_idle: 0.0,
            },
            300,
            0x3E11_0000 + i as u64,
        );
    }
}

#[test]
fn slow_random_memory_every_order() {
    for (i, order) in ALL_ORDERS.into_iter().enumerate() {
        for (j, bits) in [64, 512].into_iter().enumerate() {
            mem_writer(
                &format!("slow_{order:?}_{bits}"),
                bits,
                Memory {
                    latency: Latency::Uniform(1, 40),
                    aw_backpressure: 0.4,
                    w_backpressure: 0.4,
                    b_gaps: 0.3,
                    order,
                    req_idle: 0.3,
                },
                200,
                0x3E11_0100 + (3 * i + j) as u64,
            );
        }
    }
}

#[test]
fn fixed_long_latency_128_and_256() {
    for (i, bits) in [128, 256].into_iter().enumerate() {
        mem_writer(
            &format!("latency64_{bits}"),
            bits,
            Memory {
                latency: Latency::Fixed(64),
                aw_backpressure: 0.1,
                w_backpressure: 0.0,
                b_gaps: 0.0,
                order: WriteDataOrder::Any,
                req_idle: 0.0,
            },
            150,
            0x3E11_0200 + i as u64,
        );
    }
}
