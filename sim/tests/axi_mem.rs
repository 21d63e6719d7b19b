//! AXI4 read slave agent (`AxiMemory`) against a small AXI4 read master: requests come in on
//! a stream (`s_x_req_`), go out on AR, and every R beat is forwarded (combinationally, with
//! its ID) to a response stream (`m_x_rsp_`), so completion order across IDs is whatever the
//! slave chooses.

mod common;

use qptable_sim::axi_mem::{ArRecord, AxiMemory, Latency, WriteDataOrder};
use qptable_sim::{step_agents, AxiResp, Beat, Model, Sim, StreamSink, StreamSource};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::{HashMap, VecDeque};

/// The master. `cfg_maxout` (1..=256) bounds the reads in flight (from request acceptance to
/// the `rlast` handshake); `cfg_broken` = 1 drops `arvalid` without a handshake when stalled
/// at a cycle with `tick == 7`, 2 changes `araddr` while stalled. With `extras`, the optional
/// `arlock/arcache/arprot` outputs exist (driven 0, 3, 2).
fn master(extras: bool) -> String {
    let (ports, assigns) = if extras {
        (
            "output m_axi_arlock, output [3:0] m_axi_arcache, output [2:0] m_axi_arprot,",
            "assign m_axi_arlock = 1'b0; assign m_axi_arcache = 4'b0011; assign m_axi_arprot = 3'b010;",
        )
    } else {
        ("", "")
    };
    format!(
        r#"
module axi_rd_master (
    input clk,
    input rst,
    input [8:0] cfg_maxout,
    input [1:0] cfg_broken,
    input s_x_req_valid,
    output s_x_req_ready,
    input [47:0] s_x_req_addr,
    input [3:0] s_x_req_id,
    input [7:0] s_x_req_len,
    input [2:0] s_x_req_size,
    input [1:0] s_x_req_burst,
    output m_x_rsp_valid,
    input m_x_rsp_ready,
    output [63:0] m_x_rsp_data,
    output [1:0] m_x_rsp_resp,
    output [3:0] m_x_rsp_id,
    output m_x_rsp_last,
    output reg [3:0] m_axi_arid,
    output reg [47:0] m_axi_araddr,
    output reg [7:0] m_axi_arlen,
    output reg [2:0] m_axi_arsize,
    output reg [1:0] m_axi_arburst,
    {ports}
    output reg m_axi_arvalid,
    input m_axi_arready,
    input [3:0] m_axi_rid,
    input [63:0] m_axi_rdata,
    input [1:0] m_axi_rresp,
    input m_axi_rlast,
    input m_axi_rvalid,
    output m_axi_rready,
    output reg [8:0] inflight
);
    {assigns}
    reg [2:0] tick;
    wire ar_fire = m_axi_arvalid && m_axi_arready;
    wire r_done = m_axi_rvalid && m_axi_rready && m_axi_rlast;
    assign s_x_req_ready = (inflight < cfg_maxout) && (!m_axi_arvalid || m_axi_arready);
    wire req_fire = s_x_req_valid && s_x_req_ready;
    assign m_axi_rready = m_x_rsp_ready;
    assign m_x_rsp_valid = m_axi_rvalid;
    assign m_x_rsp_data = m_axi_rdata;
    assign m_x_rsp_resp = m_axi_rresp;
    assign m_x_rsp_id = m_axi_rid;
    assign m_x_rsp_last = m_axi_rlast;
    always @(posedge clk) begin
        if (rst) begin
            inflight <= 9'd0; m_axi_arvalid <= 1'b0; tick <= 3'd0;
        end else begin
            tick <= tick + 3'd1;
            inflight <= inflight + {{8'd0, req_fire}} - {{8'd0, r_done}};
            if (req_fire) begin
                m_axi_arvalid <= 1'b1;
                m_axi_arid <= s_x_req_id;
                m_axi_araddr <= s_x_req_addr;
                m_axi_arlen <= s_x_req_len;
                m_axi_arsize <= s_x_req_size;
                m_axi_arburst <= s_x_req_burst;
            end else if (ar_fire) m_axi_arvalid <= 1'b0;
            else if (m_axi_arvalid && cfg_broken == 2'd1 && tick == 3'd7) m_axi_arvalid <= 1'b0;
            else if (m_axi_arvalid && cfg_broken == 2'd2) m_axi_araddr <= m_axi_araddr + 48'd8;
        end
    end
endmodule
"#
    )
}

fn model(extras: bool) -> Model {
    common::build(&master(extras), "axi_rd_master")
}

/// One read request of the test: (addr, id, len, size, burst).
#[derive(Clone, Copy, Debug)]
struct Req {
    addr: u64,
    id: u64,
    len: u64,
    size: u64,
    burst: u64,
}

impl Req {
    fn single(addr: u64, id: u64) -> Req {
        Req {
            addr,
            id,
            len: 0,
            size: 3,
            burst: 1,
        }
    }
    fn beats(&self) -> u64 {
        self.len + 1
    }
    /// The address of beat `n` (INCR), as the AXI spec computes it.
    fn beat_addr(&self, n: u64) -> u64 {
        let bytes = 1u64 << self.size;
        if n == 0 {
            self.addr
        } else {
            (self.addr & !(bytes - 1)) + n * bytes
        }
    }
}

struct Tb {
    sim: Sim,
    src: StreamSource,
    sink: StreamSink,
    mem: AxiMemory,
    reqs: Vec<Req>,
}

impl Tb {
    fn new(extras: bool, maxout: u64, mem: impl FnOnce(AxiMemory) -> AxiMemory) -> Tb {
        let m = model(extras);
        let mut sim = m.instantiate();
        sim.set_named("cfg_maxout", maxout).unwrap();
        sim.set_named("rst", 1).unwrap();
        sim.step_n(2);
        sim.set_named("rst", 0).unwrap();
        let src =
            StreamSource::new(&sim, "s_x_req_", &["addr", "id", "len", "size", "burst"]).unwrap();
        let sink = StreamSink::new(&sim, "m_x_rsp_", &["data", "resp", "id", "last"]).unwrap();
        let mem = mem(AxiMemory::new(&sim, "m_axi_").unwrap().with_history(true));
        Tb {
            sim,
            src,
            sink,
            mem,
            reqs: Vec::new(),
        }
    }

    fn push(&mut self, r: Req) {
        self.src.push([r.addr, r.id, r.len, r.size, r.burst]);
        self.reqs.push(r);
    }

    fn step(&mut self) {
        step_agents(
            &mut self.sim,
            &mut [&mut self.src, &mut self.mem, &mut self.sink],
        );
    }

    /// Steps until every pushed request is answered (all beats received) and the memory is
    /// idle, then 20 more cycles (nothing else may come). Returns the beats received.
    fn run(&mut self, max_cycles: u64) -> Vec<Beat> {
        let want: u64 = self.reqs.iter().map(|r| r.beats()).sum();
        let start = self.sim.cycle();
        let mut got = Vec::new();
        while (got.len() as u64) < want || !self.mem.is_idle() || !self.src.is_done() {
            assert!(
                self.sim.cycle() - start < max_cycles,
                "not done after {max_cycles} cycles: {} of {want} beats, {} outstanding",
                got.len(),
                self.mem.outstanding()
            );
            self.step();
            got.extend(self.sink.take_received());
        }
        for _ in 0..20 {
            self.step();
        }
        got.extend(self.sink.take_received());
        assert_eq!(got.len() as u64, want, "no extra beats");
        self.sink.check().unwrap();
        self.mem.check().unwrap();
        got
    }
}

/// Response beats matched against the requests, per ID in request order: data equals the
/// memory word of each beat, `rlast` only on the last beat of a burst, response as
/// `resp_of(beat address)` says. Returns, for each completed burst in completion order, the
/// index of its request.
fn check_responses(
    reqs: &[Req],
    got: &[Beat],
    mem: &AxiMemory,
    resp_of: impl Fn(u64) -> AxiResp,
) -> Vec<usize> {
    let mut per_id: HashMap<u64, VecDeque<usize>> = HashMap::new();
    for (k, r) in reqs.iter().enumerate() {
        per_id.entry(r.id).or_default().push_back(k);
    }
    let mut beat_no: HashMap<u64, u64> = HashMap::new();
    let mut order = Vec::new();
    for b in got {
        let (data, resp, id, last) = (b[0], b[1], b[2], b[3]);
        let q = per_id
            .get_mut(&id)
            .unwrap_or_else(|| panic!("response with unknown id {id}: {b:?}"));
        let k = *q
            .front()
            .unwrap_or_else(|| panic!("extra response for id {id}: {b:?}"));
        let r = &reqs[k];
        let n = beat_no.entry(id).or_insert(0);
        let a = r.beat_addr(*n);
        assert_eq!(
            data,
            mem.read_u64(a & !7),
            "data of beat {n} of request {k} {r:?} (beat address {a:#x}): {b:?}"
        );
        assert_eq!(
            AxiResp::from_bits(resp),
            resp_of(a),
            "resp of beat {n} of request {k} {r:?}: {b:?}"
        );
        assert_eq!(last != 0, *n == r.len, "rlast of beat {n} of {r:?}: {b:?}");
        *n += 1;
        if last != 0 {
            *n = 0;
            q.pop_front();
            order.push(k);
        }
    }
    assert!(
        per_id.values().all(|q| q.is_empty()),
        "every request answered"
    );
    order
}

/// Number of completions that overtook an older request.
fn reorders(order: &[usize]) -> usize {
    let mut max = None;
    let mut n = 0;
    for &k in order {
        if max.is_some_and(|m| k < m) {
            n += 1;
        }
        max = Some(max.map_or(k, |m: usize| m.max(k)));
    }
    n
}

fn fill_random(mem: &mut AxiMemory, rng: &mut StdRng, base: u64, bytes: u64) {
    for a in (base..base + bytes).step_by(8) {
        mem.write_u64(a, rng.gen());
    }
}

#[test]
fn in_order_fixed_latency_data_counts_and_optional_signals() {
    let seed = common::seed("axi_mem in_order_fixed_latency");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tb = Tb::new(true, 4, |m| {
        m.with_seed(seed).with_latency(Latency::Fixed(5))
    });
    fill_random(&mut tb.mem, &mut rng, 0x1_0000, 0x4000);
    for _ in 0..200 {
        let addr = 0x1_0000 + 8 * rng.gen_range(0..0x800u64);
        tb.push(Req::single(addr, rng.gen_range(0..16)));
    }
    let got = tb.run(5000);
    let order = check_responses(&tb.reqs, &got, &tb.mem, |_| AxiResp::Okay);
    assert_eq!(order, (0..200).collect::<Vec<_>>(), "in AR order");
    let s = tb.mem.stats();
    println!("{s:?}");
    assert_eq!(s.ar_handshakes, 200);
    assert_eq!(s.reads_done, 200);
    assert_eq!(s.r_beats, 200);
    assert_eq!((s.min_latency, s.max_latency), (Some(5), Some(5)));
    assert!(s.max_outstanding <= 4);
    // The master's view: request at edge t, AR at t + 1, first R beat at t + 1 + 5.
    for (req, rsp) in tb.src.sent().iter().zip(&got) {
        assert_eq!(rsp.cycle, req.cycle + 6, "{req:?} -> {rsp:?}");
    }
    for d in tb.mem.done() {
        assert_eq!((d.latency, d.observed_latency()), (5, 5));
        assert_eq!(d.first_beat_cycle, d.first_valid_cycle);
        assert_eq!((d.ar.lock, d.ar.cache, d.ar.prot), (0, 3, 2));
        assert_eq!(d.resp, AxiResp::Okay);
    }
}

#[test]
fn latency_1_full_throughput_and_reset() {
    let seed = common::seed("axi_mem latency_1");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tb = Tb::new(true, 4, |m| m.with_seed(seed));
    fill_random(&mut tb.mem, &mut rng, 0x2000, 0x1000);
    for _ in 0..100 {
        tb.push(Req::single(
            0x2000 + 8 * rng.gen_range(0..0x200u64),
            rng.gen_range(0..16),
        ));
    }
    let got = tb.run(1000);
    check_responses(&tb.reqs, &got, &tb.mem, |_| AxiResp::Okay);
    // Request at t, AR at t + 1, rvalid at t + 2; one read per cycle.
    for (req, rsp) in tb.src.sent().iter().zip(&got) {
        assert_eq!(rsp.cycle, req.cycle + 2, "{req:?} -> {rsp:?}");
    }
    assert!(got.windows(2).all(|w| w[1].cycle == w[0].cycle + 1));
    let s = tb.mem.stats();
    assert_eq!((s.min_latency, s.max_latency), (Some(1), Some(1)));
    // Reset in the middle of reads: the agent forgets them, then works on.
    tb.mem.set_r_paused(true);
    for _ in 0..4 {
        tb.src.push([0x2000, 0, 0, 3, 1]);
    }
    for _ in 0..20 {
        tb.step();
    }
    assert_eq!(tb.mem.outstanding(), 4);
    tb.sim.set_named("rst", 1).unwrap();
    tb.sim.step_n(2);
    tb.sim.set_named("rst", 0).unwrap();
    tb.mem.reset();
    assert!(tb.mem.is_idle());
    tb.mem.set_r_paused(false);
    tb.reqs.clear();
    for _ in 0..20 {
        tb.push(Req::single(
            0x2000 + 8 * rng.gen_range(0..0x200u64),
            rng.gen_range(0..16),
        ));
    }
    let got = tb.run(1000);
    check_responses(&tb.reqs, &got, &tb.mem, |_| AxiResp::Okay);
    assert_eq!(tb.mem.ar_count(), 124);
}

#[test]
fn random_latency_bounds_observed() {
    let seed = common::seed("axi_mem random_latency_bounds");
    let mut rng = StdRng::seed_from_u64(seed);
    // One read at a time: nothing delays a read, observed latency == drawn latency.
    let mut tb = Tb::new(true, 1, |m| {
        m.with_seed(seed).with_latency(Latency::Uniform(3, 12))
    });
    fill_random(&mut tb.mem, &mut rng, 0, 0x1000);
    for _ in 0..400 {
        tb.push(Req::single(
            8 * rng.gen_range(0..0x200u64),
            rng.gen_range(0..16),
        ));
    }
    let got = tb.run(20_000);
    check_responses(&tb.reqs, &got, &tb.mem, |_| AxiResp::Okay);
    let s = tb.mem.stats();
    println!(
        "1 outstanding: latency min {:?} max {:?}",
        s.min_latency, s.max_latency
    );
    assert_eq!((s.min_latency, s.max_latency), (Some(3), Some(12)));
    for d in tb.mem.done() {
        assert_eq!(d.observed_latency(), d.latency);
    }
    for (req, rsp) in tb.src.sent().iter().zip(&got) {
        let l = rsp.cycle - req.cycle - 1;
        assert!((3..=12).contains(&l), "{req:?} -> {rsp:?}");
    }
    // Many in flight, in order: a read may wait for an older one, never less than drawn.
    let mut tb = Tb::new(true, 16, |m| {
        m.with_seed(seed ^ 1).with_latency(Latency::Uniform(3, 12))
    });
    fill_random(&mut tb.mem, &mut rng, 0, 0x1000);
    for _ in 0..400 {
        tb.push(Req::single(
            8 * rng.gen_range(0..0x200u64),
            rng.gen_range(0..16),
        ));
    }
    let got = tb.run(20_000);
    let order = check_responses(&tb.reqs, &got, &tb.mem, |_| AxiResp::Okay);
    assert_eq!(reorders(&order), 0);
    let s = tb.mem.stats();
    println!("16 outstanding, in order: {s:?}");
    assert!(s.min_latency.unwrap() >= 3 && s.max_latency.unwrap() >= 12);
    let waited = tb
        .mem
        .done()
        .iter()
        .filter(|d| d.observed_latency() > d.latency)
        .count();
    assert!(tb
        .mem
        .done()
        .iter()
        .all(|d| d.observed_latency() >= d.latency));
    println!("{waited} of 400 reads waited for an older one");
    assert!(waited > 0);
    assert!(s.max_outstanding > 4, "reads overlapped");
}

#[test]
fn out_of_order_across_ids_in_order_within_id() {
    let seed = common::seed("axi_mem out_of_order");
    let run = |ooo: bool, bursts: bool, interleave: bool| {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut tb = Tb::new(true, 16, |m| {
            m.with_seed(seed)
                .with_latency(Latency::Uniform(1, 30))
                .with_out_of_order(ooo)
                .with_interleave(interleave)
        });
        fill_random(&mut tb.mem, &mut rng, 0x4000, 0x4000);
        for _ in 0..400 {
            let len = if bursts { rng.gen_range(0..8) } else { 0 };
            let page = 0x4000 + 0x1000 * rng.gen_range(0..3u64);
            let addr = page + 8 * rng.gen_range(0..0x200 - (len + 1));
            tb.push(Req {
                len,
                ..Req::single(addr, rng.gen_range(0..4))
            });
        }
        let got = tb.run(40_000);
        let order = check_responses(&tb.reqs, &got, &tb.mem, |_| AxiResp::Okay);
        // Bursts interleaved: a beat of another ID between two beats of one burst.
        let mut open: Option<u64> = None;
        let mut interleaved = 0;
        for b in &got {
            if open.is_some_and(|id| id != b[2]) {
                interleaved += 1;
            }
            open = (b[3] == 0).then_some(b[2]);
        }
        let n = reorders(&order);
        println!(
            "ooo {ooo} bursts {bursts} interleave {interleave}: {n} reorders, {interleaved} interleaved beats, {} cycles, {:?}",
            got.last().unwrap().cycle - tb.src.sent()[0].cycle,
            tb.mem.stats()
        );
        (n, interleaved)
    };
    assert_eq!(run(false, false, false), (0, 0), "in order by default");
    assert!(run(true, false, false).0 > 20, "reordered across IDs");
    let (n, i) = run(true, true, false);
    assert!(n > 20 && i == 0, "bursts reordered, not interleaved");
    let (n, i) = run(true, true, true);
    assert!(n > 20 && i > 20, "bursts reordered and interleaved");
}

#[test]
fn error_ranges_answer_slverr_and_decerr_per_beat() {
    let seed = common::seed("axi_mem error_ranges");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tb = Tb::new(true, 8, |m| {
        m.with_seed(seed)
            .with_latency(Latency::Uniform(1, 6))
            .with_out_of_order(true)
    });
    fill_random(&mut tb.mem, &mut rng, 0, 0x8000);
    tb.mem.add_error_range(0x2000..0x2008, AxiResp::SlvErr);
    tb.mem.add_error_range(0x3000..0x3100, AxiResp::DecErr);
    tb.mem.add_error_range(0x4005..0x4006, AxiResp::SlvErr); // one byte of the word at 0x4000
    tb.mem.add_error_range(0x3080..0x3088, AxiResp::SlvErr); // hidden by the DecErr range
    let resp_of = |a: u64| match a & !7 {
        0x2000 | 0x4000 => AxiResp::SlvErr,
        0x3000..=0x30ff => AxiResp::DecErr,
        _ => AxiResp::Okay,
    };
    let mut errs = 0;
    for k in 0..300 {
        let addr = match k % 4 {
            0 => [
                0x1ff8, 0x2000, 0x2008, 0x3000, 0x30f8, 0x3100, 0x3080, 0x4000, 0x4008,
            ][k % 9],
            _ => 8 * rng.gen_range(0..0x1000u64),
        };
        let r = Req::single(addr, rng.gen_range(0..16));
        errs += (resp_of(addr) != AxiResp::Okay) as u64;
        tb.push(r);
    }
    // A burst across the edges of the DecErr range: only the beats inside are errors.
    let burst = Req {
        addr: 0x30e0,
        id: 1,
        len: 5,
        size: 3,
        burst: 1,
    };
    tb.push(burst);
    errs += 4;
    let got = tb.run(20_000);
    check_responses(&tb.reqs, &got, &tb.mem, resp_of);
    assert_eq!(tb.mem.stats().error_beats, errs);
    let d = tb.mem.done().iter().find(|d| d.ar.len == 5).unwrap();
    assert_eq!((d.error_beats, d.resp), (4, AxiResp::DecErr));
    println!("{errs} error beats of {}", got.len());
    // Error data: a constant instead of the memory contents.
    tb.mem.set_error_data(Some(0xbad0_bad0_bad0_bad0));
    tb.src.push([0x2000, 3, 0, 3, 1]);
    tb.src.push([0x1000, 3, 0, 3, 1]);
    for _ in 0..40 {
        tb.step();
    }
    let got = tb.sink.take_received();
    assert_eq!(got.len(), 2);
    assert_eq!((got[0][0], got[0][1]), (0xbad0_bad0_bad0_bad0, 2));
    assert_eq!((got[1][0], got[1][1]), (tb.mem.read_u64(0x1000), 0));
}

#[test]
fn backpressure_on_ar_and_r_with_gaps() {
    let seed = common::seed("axi_mem backpressure");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tb = Tb::new(true, 8, |m| {
        m.with_seed(seed)
            .with_latency(Latency::Uniform(1, 8))
            .with_ar_backpressure(0.5)
            .with_r_gaps(0.4)
            .with_out_of_order(true)
            .with_scrambled_idle(true)
    });
    tb.src = StreamSource::new(&tb.sim, "s_x_req_", &["addr", "id", "len", "size", "burst"])
        .unwrap()
        .with_idle(0.3, seed ^ 2);
    tb.sink = StreamSink::new(&tb.sim, "m_x_rsp_", &["data", "resp", "id", "last"])
        .unwrap()
        .with_backpressure(0.5, seed ^ 3);
    fill_random(&mut tb.mem, &mut rng, 0x10_0000, 0x2000);
    for _ in 0..500 {
        let len = if rng.gen_bool(0.2) {
            rng.gen_range(1..4)
        } else {
            0
        };
        let addr = 0x10_0000 + 8 * rng.gen_range(0..0x200 - (len + 1));
        tb.push(Req {
            len,
            ..Req::single(addr, rng.gen_range(0..8))
        });
    }
    let got = tb.run(50_000);
    let order = check_responses(&tb.reqs, &got, &tb.mem, |_| AxiResp::Okay);
    let s = tb.mem.stats();
    println!("{} reorders, {s:?}", reorders(&order));
    assert_eq!(s.ar_handshakes, 500);
    assert!(s.ar_stall_cycles > 50, "arvalid waited for arready");
    assert!(s.r_stall_cycles > 50, "rvalid waited for rready");
    let gapped = tb
        .mem
        .done()
        .iter()
        .filter(|d| d.observed_latency() > d.latency)
        .count();
    assert!(gapped > 50, "R gaps delayed reads: {gapped}");
    assert!(tb.mem.done().iter().all(|d| d.observed_latency() >= 1));
}

#[test]
fn slave_outstanding_limit_and_pauses() {
    let seed = common::seed("axi_mem outstanding");
    let mut rng = StdRng::seed_from_u64(seed);
    // The master allows 16, the slave 3.
    let mut tb = Tb::new(true, 16, |m| {
        m.with_seed(seed)
            .with_latency(Latency::Fixed(20))
            .with_max_outstanding(3)
    });
    fill_random(&mut tb.mem, &mut rng, 0, 0x1000);
    for _ in 0..60 {
        tb.push(Req::single(
            8 * rng.gen_range(0..0x200u64),
            rng.gen_range(0..16),
        ));
    }
    let got = tb.run(5_000);
    check_responses(&tb.reqs, &got, &tb.mem, |_| AxiResp::Okay);
    let s = tb.mem.stats();
    println!("slave limit 3: {s:?}");
    assert_eq!(s.max_outstanding, 3);
    assert!(s.ar_full_cycles > 100 && s.ar_stall_cycles > 100);
    // Each of the 3 slots turns over every 21 cycles (AR, 20 cycles of latency, R): 20 rounds.
    let span = got.last().unwrap().cycle - got[0].cycle;
    assert!(span >= 19 * 21, "span {span}");
    // No slave limit: the master's 16 is reached.
    let mut tb = Tb::new(true, 16, |m| {
        m.with_seed(seed).with_latency(Latency::Fixed(20))
    });
    for _ in 0..60 {
        tb.push(Req::single(8 * rng.gen_range(0..0x200u64), 0));
    }
    let got = tb.run(5_000);
    check_responses(&tb.reqs, &got, &tb.mem, |_| AxiResp::Okay);
    assert_eq!(tb.mem.stats().max_outstanding, 16);
    assert_eq!(tb.mem.stats().ar_full_cycles, 0);
    // R paused: the master fills up to its limit, nothing comes back until resumed.
    tb.mem.set_r_paused(true);
    tb.reqs.clear();
    for _ in 0..30 {
        tb.push(Req::single(
            8 * rng.gen_range(0..0x200u64),
            rng.gen_range(0..16),
        ));
    }
    for _ in 0..100 {
        tb.step();
    }
    assert_eq!(tb.mem.outstanding(), 16);
    assert_eq!(tb.sink.received_total(), 60);
    assert_eq!(tb.sim.get_named("inflight").unwrap(), 16);
    // AR paused: nothing accepted even when there is room.
    tb.mem.set_ar_paused(true);
    tb.mem.set_r_paused(false);
    for _ in 0..100 {
        tb.step();
    }
    assert_eq!(tb.mem.outstanding(), 0);
    assert_eq!(tb.sink.received_total(), 76);
    assert_eq!(tb.mem.ar_count(), 76);
    tb.mem.set_ar_paused(false);
    // The 16 beats received while AR was paused are still in the sink: `run` gets all 30.
    let got = tb.run(5_000);
    assert_eq!(got.len(), 30);
    check_responses(&tb.reqs, &got, &tb.mem, |_| AxiResp::Okay);
    assert_eq!(tb.mem.ar_count(), 90);
}

#[test]
fn incr_bursts_of_every_size_with_rlast() {
    let seed = common::seed("axi_mem bursts");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tb = Tb::new(true, 8, |m| {
        m.with_seed(seed)
            .with_latency(Latency::Uniform(1, 10))
            .with_out_of_order(true)
            .with_r_gaps(0.2)
    });
    fill_random(&mut tb.mem, &mut rng, 0x8_0000, 0x4000);
    let mut beats = 0;
    for _ in 0..300 {
        let size = rng.gen_range(0..4u64);
        let len = rng.gen_range(0..32u64);
        // Any start (unaligned too) whose burst stays inside one 4 KiB page.
        let span = (len + 1) << size;
        let page = 0x8_0000 + 0x1000 * rng.gen_range(0..4u64);
        let addr = page + rng.gen_range(0..0x1000 - span);
        tb.push(Req {
            addr,
            id: rng.gen_range(0..8),
            len,
            size,
            burst: 1,
        });
        beats += len + 1;
    }
    let got = tb.run(50_000);
    check_responses(&tb.reqs, &got, &tb.mem, |_| AxiResp::Okay);
    assert_eq!(tb.mem.stats().r_beats, beats);
    for d in tb.mem.done() {
        assert!(d.last_beat_cycle >= d.first_beat_cycle + d.ar.len);
    }
    println!("{beats} beats in 300 bursts, {:?}", tb.mem.stats());
}

#[test]
fn master_protocol_violations_are_recorded() {
    let seed = common::seed("axi_mem violations");
    let mut tb = Tb::new(true, 4, |m| {
        m.with_seed(seed)
            .with_aligned_check(true)
            .with_ar_check(|ar: &ArRecord| {
                (ar.id == 15).then(|| format!("id 15 is reserved (araddr {:#x})", ar.addr))
            })
    });
    let bad = [
        (Req::single(0x100, 0), None),
        (
            Req {
                size: 4,
                ..Req::single(0x100, 0)
            },
            Some("m_axi_arsize"),
        ),
        (
            Req {
                burst: 0,
                ..Req::single(0x100, 0)
            },
            Some("m_axi_arburst"),
        ),
        (
            Req {
                burst: 2,
                len: 3,
                ..Req::single(0x100, 0)
            },
            Some("m_axi_arburst"),
        ),
        (
            Req {
                len: 2,
                ..Req::single(0xff8, 0)
            },
            Some("m_axi_araddr"),
        ), // crosses 4 KiB
        (Req::single(0x104, 0), Some("m_axi_araddr")), // unaligned
        (Req::single(0x100, 15), Some("m_axi_araddr")), // custom check
    ];
    for (r, expect) in bad {
        let before = tb.mem.violations().len();
        tb.push(r);
        for _ in 0..30 {
            tb.step();
        }
        let v = &tb.mem.violations()[before..];
        println!("{r:?}: {v:?}");
        match expect {
            None => assert!(v.is_empty()),
            Some(sig) => {
                assert_eq!(v.len(), 1, "{v:?}");
                assert_eq!(v[0].signal, sig);
            }
        }
        assert!(tb.mem.is_idle(), "answered anyway");
    }
    // FIXED and WRAP are answered with their own addressing.
    tb.mem.write_u64(0x100, 1);
    tb.mem.write_u64(0x108, 2);
    tb.mem.write_u64(0x110, 3);
    tb.mem.write_u64(0x118, 4);
    tb.sink.take_received();
    tb.src.push([0x108, 1, 2, 3, 0]);
    tb.src.push([0x110, 1, 3, 3, 2]);
    for _ in 0..40 {
        tb.step();
    }
    let data: Vec<u64> = tb.sink.take_received().iter().map(|b| b[0]).collect();
    assert_eq!(data, [2, 2, 2, 3, 4, 1, 2]);
    // arvalid dropped without a handshake.
    let mut tb = Tb::new(true, 4, |m| m.with_seed(seed));
    tb.sim.set_named("cfg_broken", 1).unwrap();
    tb.mem.set_ar_paused(true);
    tb.push(Req::single(0x100, 0));
    for _ in 0..20 {
        tb.step();
    }
    let v = tb.mem.violations();
    println!("{v:?}");
    assert!(!v.is_empty() && v.iter().all(|v| v.signal == "m_axi_arvalid"));
    assert!(tb.mem.check().is_err());
    // araddr changed while stalled.
    let mut tb = Tb::new(true, 4, |m| m.with_seed(seed));
    tb.sim.set_named("cfg_broken", 2).unwrap();
    tb.mem.set_ar_paused(true);
    tb.push(Req::single(0x100, 0));
    for _ in 0..8 {
        tb.step();
    }
    let v = tb.mem.violations();
    println!("{}", tb.mem.check().unwrap_err());
    assert!(v.len() >= 3 && v.iter().all(|v| v.signal == "m_axi_araddr"));
}

#[test]
fn ar_log_and_counters_prove_which_reads_happened() {
    let seed = common::seed("axi_mem ar_log");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tb = Tb::new(true, 8, |m| {
        m.with_seed(seed)
            .with_latency(Latency::Uniform(2, 9))
            .with_ar_log(true)
            .with_out_of_order(true)
    });
    let forbidden = tb.mem.add_ar_range_counter(0x9000..0xa000);
    let low = tb.mem.add_ar_range_counter(0x0..0x1000);
    let id3 = tb.mem.add_ar_counter(|ar| ar.id == 3);
    let (mut n_low, mut n_id3) = (0, 0);
    for _ in 0..200 {
        let addr = if rng.gen_bool(0.5) { 0 } else { 0xa000 } + 8 * rng.gen_range(0..0x200u64);
        let id = rng.gen_range(0..8);
        n_low += (addr < 0x1000) as u64;
        n_id3 += (id == 3) as u64;
        tb.push(Req::single(addr, id));
    }
    let got = tb.run(10_000);
    check_responses(&tb.reqs, &got, &tb.mem, |_| AxiResp::Okay);
    assert_eq!(tb.mem.ar_counter(forbidden), 0, "no read of 0x9000..0xa000");
    assert_eq!(tb.mem.ar_counter(low), n_low);
    assert_eq!(tb.mem.ar_counter(id3), n_id3);
    let log = tb.mem.ar_log();
    assert_eq!(log.len(), 200);
    for ((l, r), s) in log.iter().zip(&tb.reqs).zip(tb.src.sent()) {
        assert_eq!(
            (l.addr, l.id, l.len, l.size, l.burst),
            (r.addr, r.id, 0, 3, 1)
        );
        assert!(l.cycle > s.cycle);
    }
    assert!(log.windows(2).all(|w| w[0].cycle < w[1].cycle));
    tb.mem.reset_stats();
    assert_eq!((tb.mem.ar_count(), tb.mem.ar_counter(low)), (0, 0));
    assert_eq!(tb.mem.take_ar_log().len(), 200);
    assert!(tb.mem.ar_log().is_empty());
}

#[test]
fn without_optional_signals() {
    let seed = common::seed("axi_mem no_extras");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tb = Tb::new(false, 4, |m| {
        m.with_seed(seed).with_latency(Latency::Uniform(1, 4))
    });
    fill_random(&mut tb.mem, &mut rng, 0, 0x800);
    for _ in 0..50 {
        tb.push(Req::single(
            8 * rng.gen_range(0..0x100u64),
            rng.gen_range(0..16),
        ));
    }
    let got = tb.run(2_000);
    check_responses(&tb.reqs, &got, &tb.mem, |_| AxiResp::Okay);
    for d in tb.mem.done() {
        assert_eq!((d.ar.lock, d.ar.cache, d.ar.prot), (0, 0, 0));
    }
}

// ----- writes ---------------------------------------------------------------------------

/// A read and write master with a `dw`-bit data bus (64..=512): AR and AW requests come in
/// on their own streams (`s_x_ar_`, `s_x_aw_`) into a register stage; W is the stream
/// `s_x_w_` (`d`, `strb`, `last`) passed straight through, so the testbench decides whether
/// data comes before or after its address, with `wdata` word `k` = [`w_word`]`(d, k)` (the
/// stream agents carry at most 8 fields); R beats and B responses are forwarded
/// combinationally to `m_x_rsp_` (`d0..d{min(n, 5) - 1}`, `resp`, `id`, `last`; every word of
/// `rdata` is also on the output `m_x_rsp_d<k>`) and `m_x_b_`. `cfg_broken`: 1 drops `awvalid` when stalled at `tick == 7`, 2 changes `awaddr`
/// while stalled, 3 changes `wdata` every cycle, 4 drops `wvalid` at `tick == 7`. The
/// optional `awcache/awprot` are driven 3, 2; there are no optional AR signals.
fn rw_master(dw: u32) -> String {
    let n = dw / 64;
    let words = |dir: &str, pre: &str| -> String {
        (0..n)
            .map(|k| format!("{dir} [63:0] {pre}d{k},"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let r_out = words("output", "m_x_rsp_");
    let wcat = (0..n)
        .rev()
        .map(|k| {
            format!(
                "s_x_w_d * 64'd{} + 64'h{:x}",
                2 * k + 1,
                w_word(0, u64::from(k))
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    let rsplit: String = (0..n)
        .map(|k| {
            format!(
                "    assign m_x_rsp_d{k} = m_axi_rdata[{}:{}];\n",
                64 * k + 63,
                64 * k
            )
        })
        .collect();
    let sb = dw / 8 - 1;
    let dm = dw - 1;
    let pad = dw - 3;
    format!(
        r#"
module axi_rw_master (
    input clk,
    input rst,
    input [2:0] cfg_broken,
    input s_x_ar_valid, output s_x_ar_ready,
    input [47:0] s_x_ar_addr, input [3:0] s_x_ar_id, input [7:0] s_x_ar_len,
    input [2:0] s_x_ar_size, input [1:0] s_x_ar_burst,
    input s_x_aw_valid, output s_x_aw_ready,
    input [47:0] s_x_aw_addr, input [3:0] s_x_aw_id, input [7:0] s_x_aw_len,
    input [2:0] s_x_aw_size, input [1:0] s_x_aw_burst,
    input s_x_w_valid, output s_x_w_ready,
    input [63:0] s_x_w_d, input [{sb}:0] s_x_w_strb, input s_x_w_last,
    output m_x_rsp_valid, input m_x_rsp_ready,
    {r_out} output [1:0] m_x_rsp_resp, output [3:0] m_x_rsp_id,
    output m_x_rsp_last,
    output m_x_b_valid, input m_x_b_ready, output [1:0] m_x_b_resp, output [3:0] m_x_b_id,
    output reg [3:0] m_axi_arid, output reg [47:0] m_axi_araddr, output reg [7:0] m_axi_arlen,
    output reg [2:0] m_axi_arsize, output reg [1:0] m_axi_arburst,
    output reg m_axi_arvalid, input m_axi_arready,
    input [3:0] m_axi_rid, input [{dm}:0] m_axi_rdata, input [1:0] m_axi_rresp,
    input m_axi_rlast, input m_axi_rvalid, output m_axi_rready,
    output reg [3:0] m_axi_awid, output reg [47:0] m_axi_awaddr, output reg [7:0] m_axi_awlen,
    output reg [2:0] m_axi_awsize, output reg [1:0] m_axi_awburst,
    output [3:0] m_axi_awcache, output [2:0] m_axi_awprot,
    output reg m_axi_awvalid, input m_axi_awready,
    output [{dm}:0] m_axi_wdata, output [{sb}:0] m_axi_wstrb, output m_axi_wlast,
    output m_axi_wvalid, input m_axi_wready,
    input [3:0] m_axi_bid, input [1:0] m_axi_bresp, input m_axi_bvalid, output m_axi_bready
);
    reg [2:0] tick;
    assign m_axi_awcache = 4'd3;
    assign m_axi_awprot = 3'd2;
    assign s_x_ar_ready = !m_axi_arvalid || m_axi_arready;
    assign s_x_aw_ready = !m_axi_awvalid || m_axi_awready;
    wire w_drop = cfg_broken == 3'd4 && tick == 3'd7;
    assign m_axi_wvalid = s_x_w_valid && !w_drop;
    assign s_x_w_ready = m_axi_wready && !w_drop;
    wire [{dm}:0] wcat = {{{wcat}}};
    assign m_axi_wdata = cfg_broken == 3'd3 ? wcat ^ {{{pad}'d0, tick}} : wcat;
    assign m_axi_wstrb = s_x_w_strb;
    assign m_axi_wlast = s_x_w_last;
    assign m_axi_rready = m_x_rsp_ready;
    assign m_x_rsp_valid = m_axi_rvalid;
{rsplit}    assign m_x_rsp_resp = m_axi_rresp;
    assign m_x_rsp_id = m_axi_rid;
    assign m_x_rsp_last = m_axi_rlast;
    assign m_axi_bready = m_x_b_ready;
    assign m_x_b_valid = m_axi_bvalid;
    assign m_x_b_resp = m_axi_bresp;
    assign m_x_b_id = m_axi_bid;
    always @(posedge clk) begin
        if (rst) begin
            m_axi_arvalid <= 1'b0; m_axi_awvalid <= 1'b0; tick <= 3'd0;
        end else begin
            tick <= tick + 3'd1;
            if (s_x_ar_valid && s_x_ar_ready) begin
                m_axi_arvalid <= 1'b1;
                m_axi_arid <= s_x_ar_id; m_axi_araddr <= s_x_ar_addr; m_axi_arlen <= s_x_ar_len;
                m_axi_arsize <= s_x_ar_size; m_axi_arburst <= s_x_ar_burst;
            end else if (m_axi_arvalid && m_axi_arready) m_axi_arvalid <= 1'b0;
            if (s_x_aw_valid && s_x_aw_ready) begin
                m_axi_awvalid <= 1'b1;
                m_axi_awid <= s_x_aw_id; m_axi_awaddr <= s_x_aw_addr; m_axi_awlen <= s_x_aw_len;
                m_axi_awsize <= s_x_aw_size; m_axi_awburst <= s_x_aw_burst;
            end else if (m_axi_awvalid && m_axi_awready) m_axi_awvalid <= 1'b0;
            else if (m_axi_awvalid && cfg_broken == 3'd1 && tick == 3'd7) m_axi_awvalid <= 1'b0;
            else if (m_axi_awvalid && cfg_broken == 3'd2) m_axi_awaddr <= m_axi_awaddr + 48'd8;
        end
    end
endmodule
"#
    )
}

/// Word `k` of the `wdata` that [`rw_master`] makes of the W stream's `d`.
fn w_word(d: u64, k: u64) -> u64 {
    d.wrapping_mul(2 * k + 1)
        .wrapping_add(k.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// Data words the R stream of [`rw_master`] carries as fields (the agents' field limit).
fn r_stream_words(dw: u32) -> usize {
    (dw as usize / 64).min(5)
}

/// The fields of the R response stream of [`rw_master`].
fn r_fields(dw: u32) -> Vec<String> {
    let d = (0..r_stream_words(dw)).map(|k| format!("d{k}"));
    d.chain(["resp", "id", "last"].map(String::from)).collect()
}

const REQ: [&str; 5] = ["addr", "id", "len", "size", "burst"];

/// Region of the random traffic, and the error ranges placed in it.
const BASE: u64 = 0x20_0000;
const SPAN: u64 = 0x3000;

fn error_ranges() -> Vec<(std::ops::Range<u64>, AxiResp)> {
    vec![
        (BASE + 0x100..BASE + 0x108, AxiResp::SlvErr),
        (BASE + 0x800..BASE + 0x900, AxiResp::DecErr),
        (BASE + 0x1805..BASE + 0x1806, AxiResp::SlvErr),
    ]
}

/// The response of a beat at `a` of `bytes` bytes: the first error range overlapping
/// `[a, align(a, bytes) + bytes)`.
fn resp_at(errors: &[(std::ops::Range<u64>, AxiResp)], a: u64, bytes: u64) -> AxiResp {
    let end = (a & !(bytes - 1)) + bytes;
    errors
        .iter()
        .find(|(r, _)| r.start < end && r.end > a)
        .map_or(AxiResp::Okay, |(_, x)| *x)
}

/// Byte lanes of a `bus`-byte bus that beat `n` of `r` covers.
fn active_lanes(r: &Req, n: u64, bus: u64) -> u64 {
    let a = r.beat_addr(n);
    let bytes = 1u64 << r.size;
    let end = (a & !(bytes - 1)) + bytes;
    (a..end).fold(0, |m, x| m | 1 << (x % bus))
}

/// One operation of the random traffic.
struct Op {
    write: bool,
    req: Req,
    /// Bus words it touches: [lo, hi), 8-byte aligned.
    lo: u64,
    hi: u64,
    /// Writes: (`d` of [`w_word`], strb) of each beat.
    beats: Vec<(u64, u64)>,
}

#[derive(Clone, Debug)]
struct Traffic {
    /// Data bus width, bits (64..=512).
    data_bits: u32,
    ops: usize,
    write_share: f64,
    latency: Latency,
    write_latency: Option<Latency>,
    /// Probability of idle/backpressure on every channel and stream.
    random: f64,
    out_of_order: bool,
    max_writes: Option<usize>,
    order: WriteDataOrder,
    errors: bool,
}

impl Traffic {
    fn quiet(ops: usize) -> Traffic {
        Traffic {
            data_bits: 64,
            ops,
            write_share: 0.5,
            latency: Latency::Fixed(4),
            write_latency: None,
            random: 0.0,
            out_of_order: false,
            max_writes: None,
            order: WriteDataOrder::Any,
            errors: false,
        }
    }
}

struct RwTb {
    sim: Sim,
    ar: StreamSource,
    aw: StreamSource,
    w: StreamSource,
    rsp: StreamSink,
    b: StreamSink,
    mem: AxiMemory,
    /// Every word of `rdata` (the outputs `m_x_rsp_d<k>`), and the words of each R beat
    /// taken, in order.
    r_words: Vec<qptable_sim::Out>,
    r_data: VecDeque<Vec<u64>>,
}

impl RwTb {
    fn new(seed: u64, t: &Traffic) -> RwTb {
        let m = common::build(&rw_master(t.data_bits), "axi_rw_master");
        let rf = r_fields(t.data_bits);
        let rf: Vec<&str> = rf.iter().map(|x| x.as_str()).collect();
        let mut sim = m.instantiate();
        sim.set_named("rst", 1).unwrap();
        sim.step_n(2);
        sim.set_named("rst", 0).unwrap();
        let p = t.random;
        let src = |sim: &Sim, pre: &str, f: &[&str], k: u64| {
            StreamSource::new(sim, pre, f)
                .unwrap()
                .with_idle(p, seed ^ k)
        };
        let ar = src(&sim, "s_x_ar_", &REQ, 1);
        // AW idles more than W, so data comes before and after its address.
        let aw = StreamSource::new(&sim, "s_x_aw_", &REQ)
            .unwrap()
            .with_idle(if p > 0.0 { 0.7 } else { 0.0 }, seed ^ 2);
        let w = src(&sim, "s_x_w_", &["d", "strb", "last"], 3);
        let rsp = StreamSink::new(&sim, "m_x_rsp_", &rf)
            .unwrap()
            .with_backpressure(p, seed ^ 4);
        let b = StreamSink::new(&sim, "m_x_b_", &["resp", "id"])
            .unwrap()
            .with_backpressure(p, seed ^ 5);
        let mut mem = AxiMemory::new(&sim, "m_axi_")
            .unwrap()
            .with_seed(seed)
            .with_latency(t.latency)
            .with_ar_backpressure(p)
            .with_aw_backpressure(p)
            .with_w_backpressure(p)
            .with_r_gaps(p)
            .with_b_gaps(p)
            .with_out_of_order(t.out_of_order)
            .with_scrambled_idle(p > 0.0)
            .with_write_data_order(t.order)
            .with_history(true)
            .with_aw_log(true);
        if let Some(l) = t.write_latency {
            mem = mem.with_write_latency(l);
        }
        if let Some(n) = t.max_writes {
            mem = mem.with_max_outstanding_writes(n);
        }
        assert!(mem.has_write_channels());
        let r_words = (0..t.data_bits / 64)
            .map(|k| sim.output(&format!("m_x_rsp_d{k}")).unwrap())
            .collect();
        RwTb {
            sim,
            ar,
            aw,
            w,
            rsp,
            b,
            mem,
            r_words,
            r_data: VecDeque::new(),
        }
    }

    fn step(&mut self) {
        let before = self.rsp.received_total();
        step_agents(
            &mut self.sim,
            &mut [
                &mut self.ar,
                &mut self.aw,
                &mut self.w,
                &mut self.mem,
                &mut self.rsp,
                &mut self.b,
            ],
        );
        if self.rsp.received_total() > before {
            let d = self.r_words.iter().map(|&o| self.sim.get(o)).collect();
            self.r_data.push_back(d);
        }
    }

    /// Queues a write: its AW and its W beats (wlast on the last one).
    fn push_write(&mut self, r: &Req, beats: &[(u64, u64)]) {
        self.aw.push([r.addr, r.id, r.len, r.size, r.burst]);
        for (k, &(d, s)) in beats.iter().enumerate() {
            self.w.push([d, s, (k as u64 == r.len) as u64]);
        }
    }
}

/// What a traffic run saw.
#[derive(Debug, Default)]
struct Seen {
    reads: u64,
    writes: u64,
    write_beats: u64,
    error_write_beats: u64,
    error_read_beats: u64,
    bytes_written: u64,
    cycles: u64,
}

/// Random reads and writes (INCR bursts of 1..16 beats of 1..8 bytes, random strobes) to a
/// 12 KiB region, checked against a plain byte array: a write is applied to the array when
/// its B arrives (beats overlapping an error range are not), a read's data is compared with
/// the array word by word. Nothing is issued on a word a write in flight touches, and no
/// write on a word a read in flight touches, so every answer is exact. Every B response
/// is checked, then the whole region byte by byte.
fn run_traffic(name: &str, t: Traffic) -> (RwTb, Seen) {
    let seed = common::seed(name);
    println!("{t:?}");
    let mut rng = StdRng::seed_from_u64(seed ^ 0x77);
    let mut tb = RwTb::new(seed, &t);
    // Counters of AW and of AR handshakes in the first page, and of writes with ID 3.
    let aw_page0 = tb.mem.add_aw_range_counter(BASE..BASE + 0x1000);
    let ar_page0 = tb.mem.add_ar_range_counter(BASE..BASE + 0x1000);
    let aw_id3 = tb.mem.add_aw_counter(|aw| aw.id == 3);
    let errors = if t.errors { error_ranges() } else { vec![] };
    for (r, x) in &errors {
        tb.mem.add_error_range(r.clone(), *x);
    }
    let mut model = vec![0u8; SPAN as usize];
    rng.fill(&mut model[..]);
    tb.mem.write_bytes(BASE, &model);
    let mut ops: Vec<Op> = Vec::new();
    let mut inflight: Vec<usize> = Vec::new();
    let mut reads_of: HashMap<u64, VecDeque<usize>> = HashMap::new();
    let mut writes_of: HashMap<u64, VecDeque<usize>> = HashMap::new();
    let mut beat_no: HashMap<u64, u64> = HashMap::new();
    // For each write in AW order: edge of its last W beat (from the W source's history).
    let mut write_order: Vec<usize> = Vec::new();
    let mut seen = Seen::default();
    let start = tb.sim.cycle();
    let bus = u64::from(t.data_bits / 8);
    // The bus word that holds address `a`, as 64-bit words.
    let word = |m: &[u8], a: u64| -> Vec<u64> {
        let o = ((a & !(bus - 1)) - BASE) as usize;
        m[o..o + bus as usize]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let max_cycles = 400 * t.ops as u64 + 10_000;
    while ops.len() < t.ops || !inflight.is_empty() {
        assert!(
            tb.sim.cycle() - start < max_cycles,
            "not done after {max_cycles} cycles: {} ops issued, {} in flight, {:?}",
            ops.len(),
            inflight.len(),
            tb.mem
        );
        if ops.len() < t.ops && inflight.len() < 12 {
            let write = rng.gen_bool(t.write_share);
            let size = rng.gen_range(0..=bus.trailing_zeros() as u64);
            let len = if rng.gen_bool(0.5) {
                0
            } else {
                rng.gen_range(1..16u64)
            };
            let span = (len + 1) << size;
            let page = BASE + 0x1000 * rng.gen_range(0..SPAN / 0x1000);
            let addr = page + rng.gen_range(0..0x1000 - span + 1);
            let req = Req {
                addr,
                id: rng.gen_range(0..4),
                len,
                size,
                burst: 1,
            };
            let (lo, hi) = (addr & !(bus - 1), (req.beat_addr(len) | (bus - 1)) + 1);
            let clash = inflight.iter().any(|&k| {
                let o = &ops[k];
                (write || o.write) && o.lo < hi && lo < o.hi
            });
            if !clash {
                let beats = if write {
                    (0..=len)
                        .map(|n| {
                            let lanes = active_lanes(&req, n, bus);
                            let strb = if rng.gen_bool(0.6) {
                                lanes
                            } else {
                                rng.gen::<u64>() & lanes
                            };
                            (rng.gen::<u64>(), strb)
                        })
                        .collect()
                } else {
                    vec![]
                };
                let k = ops.len();
                if write {
                    tb.push_write(&req, &beats);
                    writes_of.entry(req.id).or_default().push_back(k);
                    write_order.push(k);
                } else {
                    tb.ar.push([req.addr, req.id, req.len, req.size, req.burst]);
                    reads_of.entry(req.id).or_default().push_back(k);
                }
                ops.push(Op {
                    write,
                    req,
                    lo,
                    hi,
                    beats,
                });
                inflight.push(k);
            }
        }
        tb.step();
        for b in tb.rsp.take_received() {
            let m = r_stream_words(t.data_bits);
            let data = tb.r_data.pop_front().expect("words of the beat");
            assert_eq!(&b.data()[..m], &data[..m]);
            let (resp, id, last) = (b[m], b[m + 1], b[m + 2]);
            let k = *reads_of[&id].front().expect("R beat of a read in flight");
            let r = ops[k].req;
            let n = beat_no.entry(id).or_insert(0);
            let a = r.beat_addr(*n);
            assert_eq!(data, word(&model, a), "data of beat {n} of {r:?}");
            let want = resp_at(&errors, a, 1 << r.size);
            assert_eq!(AxiResp::from_bits(resp), want, "rresp of beat {n} of {r:?}");
            seen.error_read_beats += (want != AxiResp::Okay) as u64;
            assert_eq!(last != 0, *n == r.len, "rlast of beat {n} of {r:?}");
            *n += 1;
            if last != 0 {
                *n = 0;
                reads_of.get_mut(&id).unwrap().pop_front();
                inflight.retain(|&x| x != k);
                seen.reads += 1;
            }
        }
        for b in tb.b.take_received() {
            let (resp, id) = (AxiResp::from_bits(b[0]), b[1]);
            let k = writes_of
                .get_mut(&id)
                .and_then(|q| q.pop_front())
                .unwrap_or_else(|| panic!("B with id {id} and no write in flight"));
            let o = &ops[k];
            let mut want = AxiResp::Okay;
            for (n, &(d, strb)) in o.beats.iter().enumerate() {
                let a = o.req.beat_addr(n as u64);
                let r = resp_at(&errors, a, 1 << o.req.size);
                seen.write_beats += 1;
                if r != AxiResp::Okay {
                    seen.error_write_beats += 1;
                    if want == AxiResp::Okay {
                        want = r;
                    }
                    continue;
                }
                for lane in 0..bus {
                    if strb >> lane & 1 == 1 {
                        let byte = (w_word(d, lane / 8) >> (8 * (lane % 8))) as u8;
                        model[((a & !(bus - 1)) + lane - BASE) as usize] = byte;
                        seen.bytes_written += 1;
                    }
                }
            }
            assert_eq!(resp, want, "bresp of {:?}", o.req);
            inflight.retain(|&x| x != k);
            seen.writes += 1;
        }
    }
    for _ in 0..20 {
        tb.step();
    }
    seen.cycles = tb.sim.cycle() - start;
    assert!(tb.rsp.take_received().is_empty() && tb.b.take_received().is_empty());
    assert!(tb.mem.is_idle(), "{:?}", tb.mem);
    tb.rsp.check().unwrap();
    tb.b.check().unwrap();
    tb.mem.check().unwrap();
    let mut back = vec![0u8; SPAN as usize];
    tb.mem.read_bytes(BASE, &mut back);
    let diff = back.iter().zip(&model).position(|(a, b)| a != b);
    assert_eq!(
        diff,
        None,
        "memory differs from the model at {:?}",
        diff.map(|d| BASE + d as u64)
    );
    // The slave's statistics against the traffic.
    let s = tb.mem.stats();
    println!("{seen:?}\n{s:?}");
    assert_eq!(s.aw_handshakes, seen.writes);
    assert_eq!(s.writes_done, seen.writes);
    assert_eq!(s.w_beats, seen.write_beats);
    assert_eq!(s.write_error_beats, seen.error_write_beats);
    assert_eq!(s.bytes_written, seen.bytes_written);
    assert_eq!(s.reads_done, seen.reads);
    assert_eq!(s.error_beats, seen.error_read_beats);
    assert_eq!(tb.mem.write_done().len() as u64, seen.writes);
    // B at least the drawn latency after the last W beat, seen from the master: the W
    // source's handshake edges against the B sink's.
    let w_lat = t.write_latency.unwrap_or(t.latency);
    let min_l = match w_lat {
        Latency::Fixed(n) | Latency::Uniform(n, _) => n,
    };
    let sent_w = tb.w.sent();
    let mut last_w = HashMap::new();
    let mut i = 0;
    for &k in &write_order {
        i += ops[k].beats.len();
        last_w.insert(k, sent_w[i - 1].cycle);
    }
    for d in tb.mem.write_done() {
        assert!(d.observed_latency() >= d.latency, "{d:?}");
        assert!(d.complete_cycle >= d.aw.cycle && d.b_cycle >= d.first_valid_cycle);
        assert!(d.first_valid_cycle >= d.complete_cycle + min_l, "{d:?}");
    }
    let in_page0 = |w: bool| {
        ops.iter()
            .filter(|o| o.write == w && o.req.addr < BASE + 0x1000)
            .count() as u64
    };
    assert_eq!(tb.mem.aw_counter(aw_page0), in_page0(true));
    assert_eq!(tb.mem.ar_counter(ar_page0), in_page0(false));
    let id3 = ops.iter().filter(|o| o.write && o.req.id == 3).count() as u64;
    assert_eq!(tb.mem.aw_counter(aw_id3), id3);
    let aw_log = tb.mem.aw_log();
    assert_eq!(aw_log.len() as u64, seen.writes);
    for (l, &k) in aw_log.iter().zip(&write_order) {
        let r = ops[k].req;
        assert_eq!(
            (l.addr, l.id, l.len, l.size, l.burst),
            (r.addr, r.id, r.len, r.size, 1)
        );
        assert_eq!((l.cache, l.prot, l.lock), (3, 2, 0));
    }
    // Completion edges in AW order, against the W source's last beat of each write.
    let done: HashMap<(u64, u64), &qptable_sim::axi_mem::AxiWriteDone> = tb
        .mem
        .write_done()
        .iter()
        .map(|d| ((d.aw.cycle, d.aw.addr), d))
        .collect();
    for (l, &k) in aw_log.iter().zip(&write_order) {
        let d = done[&(l.cycle, l.addr)];
        assert_eq!(d.complete_cycle, last_w[&k].max(l.cycle), "{d:?}");
        assert!(d.b_cycle >= last_w[&k] + min_l);
    }
    (tb, seen)
}

#[test]
fn writes_and_reads_quiet_fixed_latency() {
    let (tb, seen) = run_traffic("axi_mem rw quiet", Traffic::quiet(600));
    let s = tb.mem.stats();
    // Nothing delays a B: every write answers exactly 4 edges after it is complete.
    assert_eq!(
        (s.min_write_latency, s.max_write_latency),
        (Some(4), Some(4))
    );
    // Reads share the R channel (one beat per cycle): some wait behind older bursts.
    assert_eq!(s.min_latency, Some(4));
    assert_eq!(
        (s.aw_stall_cycles, s.w_stall_cycles, s.b_stall_cycles),
        (0, 0, 0)
    );
    assert!(seen.writes > 200 && seen.reads > 200);
    // W came with (or, the register stage in front of AW, one edge before) its AW.
    assert!(s.w_early_beats > 0);
}

#[test]
fn writes_and_reads_under_backpressure_out_of_order_with_errors() {
    let t = Traffic {
        latency: Latency::Uniform(1, 20),
        write_latency: Some(Latency::Uniform(3, 30)),
        random: 0.4,
        out_of_order: true,
        errors: true,
        ..Traffic::quiet(4000)
    };
    let (tb, seen) = run_traffic("axi_mem rw backpressure", t);
    let s = tb.mem.stats();
    assert!(s.aw_stall_cycles > 50 && s.w_stall_cycles > 50 && s.b_stall_cycles > 50);
    assert!(
        s.w_early_beats > 50,
        "W before AW happened: {}",
        s.w_early_beats
    );
    assert!(
        seen.error_write_beats > 5 && seen.error_read_beats > 5,
        "{seen:?}"
    );
    // B gaps and backpressure delayed some responses beyond their drawn latency.
    let late = tb
        .mem
        .write_done()
        .iter()
        .filter(|d| d.observed_latency() > d.latency)
        .count();
    assert!(late > 20, "{late}");
    // Out of order across IDs, in order within one.
    let done = tb.mem.write_done();
    let overtaken = done
        .windows(2)
        .filter(|w| w[1].aw.cycle < w[0].aw.cycle)
        .count();
    assert!(overtaken > 20, "{overtaken}");
    let mut last_of: HashMap<u64, u64> = HashMap::new();
    for d in done {
        let prev = last_of.insert(d.aw.id, d.aw.cycle);
        assert!(
            prev.is_none_or(|p| p < d.aw.cycle),
            "B reordered within id {}",
            d.aw.id
        );
    }
    // Every error answer matches the beats: resp SLVERR or DECERR iff an error beat.
    for d in done {
        assert_eq!(d.error_beats > 0, d.resp != AxiResp::Okay, "{d:?}");
    }
}

#[test]
fn write_data_orders_and_outstanding_write_limit() {
    for order in [WriteDataOrder::WAfterAw, WriteDataOrder::AwAfterW] {
        let t = Traffic {
            random: 0.3,
            order,
            write_share: 0.8,
            max_writes: Some(3),
            latency: Latency::Fixed(12),
            ..Traffic::quiet(500)
        };
        let (tb, _) = run_traffic(&format!("axi_mem rw order {order:?}"), t);
        let s = tb.mem.stats();
        assert_eq!(s.max_outstanding_writes, 3);
        assert!(s.aw_full_cycles > 50, "{s:?}");
        let early_ok = match order {
            WriteDataOrder::WAfterAw => s.w_early_beats == 0,
            _ => s.w_early_beats >= s.aw_handshakes,
        };
        assert!(early_ok, "{order:?}: {s:?}");
        // AwAfterW: every AW found its first beat already there.
        if order == WriteDataOrder::AwAfterW {
            assert!(tb
                .mem
                .write_done()
                .iter()
                .all(|d| d.first_beat_cycle < d.aw.cycle));
        }
    }
}

#[test]
fn a_read_after_a_write_response_sees_the_write() {
    let seed = common::seed("axi_mem read after B");
    let mut tb = RwTb::new(seed, &Traffic::quiet(0));
    tb.mem.set_latency(Latency::Fixed(30));
    tb.mem.set_write_latency(Latency::Fixed(30));
    tb.mem.write_u64(0x1000, 0x1111_1111_1111_1111);
    let r = Req::single(0x1000, 0);
    tb.push_write(&r, &[(0x2222_2222_2222_2222, 0x0f)]);
    // A read issued with the write sees old or new; here the write is complete first, so
    // it sees the new bytes (the write is applied when complete, before its B).
    let mut b_cycle = None;
    for _ in 0..100 {
        tb.step();
        if let Some(b) = tb.b.take_received().pop() {
            assert_eq!(b[0], 0);
            b_cycle = Some(b.cycle);
            break;
        }
    }
    let b_cycle = b_cycle.expect("B came");
    let d = tb.mem.write_done()[0];
    assert_eq!(d.observed_latency(), 30);
    assert_eq!(d.b_cycle, b_cycle);
    tb.ar.push([0x1000, 0, 0, 3, 1]);
    for _ in 0..60 {
        tb.step();
    }
    let got = tb.rsp.take_received();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0][0], 0x1111_1111_2222_2222, "strobed low half only");
    assert_eq!(tb.mem.read_u64(0x1000), 0x1111_1111_2222_2222);
    // A write to an error range is not applied and answers the error.
    tb.mem.add_error_range(0x2008..0x2009, AxiResp::DecErr);
    tb.mem.write_u64(0x2008, 5);
    tb.push_write(
        &Req {
            len: 1,
            ..Req::single(0x2000, 3)
        },
        &[(7, 0xff), (9, 0xff)],
    );
    for _ in 0..100 {
        tb.step();
    }
    let b = tb.b.take_received();
    assert_eq!((b.len(), b[0][0], b[0][1]), (1, 3, 3));
    assert_eq!((tb.mem.read_u64(0x2000), tb.mem.read_u64(0x2008)), (7, 5));
    let d = tb.mem.write_done()[1];
    assert_eq!(
        (d.error_beats, d.bytes_written, d.resp),
        (1, 8, AxiResp::DecErr)
    );
    tb.mem.check().unwrap();
}

#[test]
fn write_master_protocol_violations_are_recorded() {
    let seed = common::seed("axi_mem write violations");
    /// A write request, its W beats (data, strb, last) and the signal it offends, if any.
    type Case = (Req, Vec<(u64, u64, u64)>, Option<&'static str>);
    let cases: Vec<Case> = vec![
        (Req::single(0x100, 0), vec![(1, 0xff, 1)], None),
        // wlast missing, then early.
        (
            Req::single(0x100, 0),
            vec![(1, 0xff, 0)],
            Some("m_axi_wlast"),
        ),
        (
            Req {
                len: 2,
                ..Req::single(0x100, 0)
            },
            vec![(1, 0xff, 0), (2, 0xff, 1), (3, 0xff, 1)],
            Some("m_axi_wlast"),
        ),
        // A strobe outside the lanes of a 4-byte transfer at 0x104.
        (
            Req {
                size: 2,
                ..Req::single(0x104, 0)
            },
            vec![(1, 0x1f, 1)],
            Some("m_axi_wstrb"),
        ),
        (
            Req {
                size: 4,
                ..Req::single(0x100, 0)
            },
            vec![(1, 0xff, 1)],
            Some("m_axi_awsize"),
        ),
        (
            Req {
                burst: 0,
                ..Req::single(0x100, 0)
            },
            vec![(1, 0xff, 1)],
            Some("m_axi_awburst"),
        ),
        (
            Req {
                len: 2,
                ..Req::single(0xff8, 0)
            },
            vec![(1, 0xff, 0), (2, 0xff, 0), (3, 0xff, 1)],
            Some("m_axi_awaddr"),
        ),
    ];
    let mut tb = RwTb::new(seed, &Traffic::quiet(0));
    for (r, beats, expect) in cases {
        let before = tb.mem.violations().len();
        tb.aw.push([r.addr, r.id, r.len, r.size, r.burst]);
        for (d, s, l) in beats {
            tb.w.push([d, s, l]);
        }
        for _ in 0..30 {
            tb.step();
        }
        tb.b.take_received();
        let v = &tb.mem.violations()[before..];
        println!("{r:?}: {v:?}");
        match expect {
            None => assert!(v.is_empty()),
            Some(sig) => {
                assert_eq!(v.len(), 1, "{v:?}");
                assert_eq!(v[0].signal, sig);
            }
        }
        assert!(tb.mem.is_idle(), "answered anyway");
    }
    // Unstable or dropped AW and W while stalled.
    for (broken, pause_w, sig) in [
        (1, false, "m_axi_awvalid"),
        (2, false, "m_axi_awaddr"),
        (3, true, "m_axi_wdata"),
        (4, true, "m_axi_wvalid"),
    ] {
        let mut tb = RwTb::new(seed, &Traffic::quiet(0));
        tb.sim.set_named("cfg_broken", broken).unwrap();
        if pause_w {
            tb.mem.set_w_paused(true);
        } else {
            tb.mem.set_aw_paused(true);
        }
        tb.push_write(&Req::single(0x100, 0), &[(1, 0xff)]);
        for _ in 0..20 {
            tb.step();
        }
        let v = tb.mem.violations();
        println!("broken {broken}: {}", tb.mem.check().unwrap_err());
        assert!(!v.is_empty() && v.iter().all(|v| v.signal == sig), "{v:?}");
    }
}

#[test]
fn a_partial_write_channel_is_refused() {
    let m = common::build(
        r#"
module half_writer (
    input clk,
    output [31:0] m_axi_araddr, output [7:0] m_axi_arlen, output [2:0] m_axi_arsize,
    output [1:0] m_axi_arburst, output m_axi_arvalid, input m_axi_arready,
    input [63:0] m_axi_rdata, input [1:0] m_axi_rresp, input m_axi_rlast,
    input m_axi_rvalid, output m_axi_rready,
    output [31:0] m_axi_awaddr, output m_axi_awvalid, input m_axi_awready,
    output [63:0] m_axi_wdata, output m_axi_wvalid, input m_axi_wready
);
    assign m_axi_araddr = 0; assign m_axi_arlen = 0; assign m_axi_arsize = 3;
    assign m_axi_arburst = 1; assign m_axi_arvalid = 0; assign m_axi_rready = 1;
    assign m_axi_awaddr = 0; assign m_axi_awvalid = 0; assign m_axi_wdata = 0;
    assign m_axi_wvalid = 0;
endmodule
"#,
        "half_writer",
    );
    let sim = m.instantiate();
    let e = AxiMemory::new(&sim, "m_axi_").unwrap_err().to_string();
    println!("{e}");
    for w in [
        "awlen (output)",
        "wstrb (output)",
        "bresp (input)",
        "bvalid (input)",
    ] {
        assert!(e.contains(w), "{e}");
    }
}

/// The same random traffic on 128-, 256- and 512-bit data buses (transfers of 1 byte up to
/// the bus width, strobes over up to 64 byte lanes).
#[test]
fn wide_data_buses_with_backpressure_and_errors() {
    for data_bits in [128, 256, 512] {
        let t = Traffic {
            data_bits,
            latency: Latency::Uniform(1, 12),
            random: 0.3,
            out_of_order: true,
            errors: true,
            ..Traffic::quiet(1500)
        };
        let (tb, seen) = run_traffic(&format!("axi_mem rw {data_bits}-bit"), t);
        assert_eq!(tb.mem.bus_bytes(), u64::from(data_bits / 8));
        assert!(
            seen.error_write_beats > 0 && seen.error_read_beats > 0,
            "{seen:?}"
        );
        // Some transfers used the whole bus.
        let full = tb
            .mem
            .aw_log()
            .iter()
            .filter(|a| 1u32 << a.size == data_bits / 8)
            .count();
        assert!(full > 50, "{full} full-width writes");
    }
}

/// A reset of the design with writes in flight: the agent forgets them (and the W beats
/// waiting for their AW), keeps the memory and the statistics, and serves writes after.
#[test]
fn reset_with_writes_in_flight() {
    let seed = common::seed("axi_mem write reset");
    let mut tb = RwTb::new(seed, &Traffic::quiet(0));
    tb.mem.set_b_paused(true);
    for k in 0..3 {
        tb.push_write(&Req::single(0x100 + 8 * k, 0), &[(k + 1, 0xff)]);
    }
    // A W beat with no AW yet.
    tb.w.push([9, 0xff, 1]);
    for _ in 0..20 {
        tb.step();
    }
    assert_eq!(tb.mem.writes_outstanding(), 3);
    // Every beat came an edge before its AW (the master's AW register stage); the last one
    // has no AW.
    assert_eq!(tb.mem.stats().w_early_beats, 4);
    assert_eq!(tb.mem.stats().w_beats, 4);
    assert!(!tb.mem.is_idle());
    // Applied before their B (which never came).
    assert_eq!(tb.mem.read_u64(0x110), 3);
    tb.sim.set_named("rst", 1).unwrap();
    tb.sim.step_n(2);
    tb.sim.set_named("rst", 0).unwrap();
    tb.mem.reset();
    tb.mem.set_b_paused(false);
    assert!(tb.mem.is_idle());
    tb.push_write(&Req::single(0x200, 5), &[(0x55, 0x01)]);
    for _ in 0..20 {
        tb.step();
    }
    let b = tb.b.take_received();
    assert_eq!((b.len(), b[0][0], b[0][1]), (1, 0, 5));
    assert_eq!(tb.mem.read_u64(0x200), 0x55);
    assert_eq!(tb.mem.stats().writes_done, 1);
    assert!(tb.mem.is_idle());
    tb.mem.check().unwrap();
}
