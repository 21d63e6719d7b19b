//! AXI4 read slave agent (`AxiMemory`) against a small AXI4 read master: requests come in on
//! a stream (`s_x_req_`), go out on AR, and every R beat is forwarded (combinationally, with
//! its ID) to a response stream (`m_x_rsp_`), so completion order across IDs is whatever the
//! slave chooses.

mod common;

use qptable_sim::axi_mem::{ArRecord, AxiMemory, Latency};
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
        let bytes = 1u64 << self.size.min(3);
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
