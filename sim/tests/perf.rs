//! Speed of the harness on a medium design shaped like a table lookup engine: two lookup
//! pipelines sharing a 2^14-entry table, driven by stream agents. Ignored by default (a
//! timing print, meaningful in release mode only); run with
//! `cargo test -p qptable-sim --release --test perf -- --ignored --nocapture` (set
//! `QPTABLE_PERF_SWEEP=1` to compare optimisation levels and build options).

mod common;

use qptable_sim::{step_agents, BuildOptions, Model, StreamSink, StreamSource};
use std::time::Instant;

const LOOKUP: &str = r#"
module lkp_port(
    input clk, input rst,
    input req_valid, output req_ready, input [23:0] req_qpn, input [7:0] req_tag,
    output [13:0] rd_idx, input [11:0] rd_data, input [63:0] base,
    output rsp_valid, input rsp_ready, output [23:0] rsp_qpn, output [7:0] rsp_tag,
    output [2:0] rsp_status, output [63:0] rsp_addr
);
    reg v1, v2;
    reg [23:0] q1, q2;
    reg [7:0] t1, t2;
    reg [11:0] e2;
    reg [98:0] fifo [0:3];
    reg [2:0] rd, wr;
    wire [2:0] count = wr - rd;
    assign req_ready = ({1'b0, count} + {3'b0, v1} + {3'b0, v2}) <= 4'd2;
    assign rd_idx = q1[13:0];
    wire [1:0] st = e2[11:10];
    wire [9:0] gen = e2[9:0];
    wire [2:0] status = (q2[13:0] >= 14'd12000) ? 3'd1 : (st != 2'd2) ? 3'd2 : (gen != q2[23:14]) ? 3'd3 : 3'd0;
    wire [63:0] addr = status == 3'd0 ? base + {42'd0, q2[13:0], 8'd0} : 64'd0;
    wire [98:0] head = fifo[rd[1:0]];
    assign rsp_valid = count != 0;
    assign {rsp_qpn, rsp_tag, rsp_status, rsp_addr} = head;
    always @(posedge clk) begin
        if (rst) begin
            v1 <= 0; v2 <= 0; rd <= 0; wr <= 0;
        end else begin
            v1 <= req_valid && req_ready;
            q1 <= req_qpn; t1 <= req_tag;
            v2 <= v1; q2 <= q1; t2 <= t1; e2 <= rd_data;
            if (v2) begin fifo[wr[1:0]] <= {q2, t2, status, addr}; wr <= wr + 1; end
            if (rsp_valid && rsp_ready) rd <= rd + 1;
        end
    end
endmodule

module lookup2(
    input clk, input rst,
    input s_tx_req_valid, output s_tx_req_ready, input [23:0] s_tx_req_qpn, input [7:0] s_tx_req_tag,
    output m_tx_rsp_valid, input m_tx_rsp_ready, output [23:0] m_tx_rsp_qpn, output [7:0] m_tx_rsp_tag,
    output [2:0] m_tx_rsp_status, output [63:0] m_tx_rsp_addr,
    input s_rx_req_valid, output s_rx_req_ready, input [23:0] s_rx_req_qpn, input [7:0] s_rx_req_tag,
    output m_rx_rsp_valid, input m_rx_rsp_ready, output [23:0] m_rx_rsp_qpn, output [7:0] m_rx_rsp_tag,
    output [2:0] m_rx_rsp_status, output [63:0] m_rx_rsp_addr,
    input we, input [13:0] waddr, input [11:0] wdata, input [63:0] base
);
    reg [11:0] tbl [0:16383];
    reg [14:0] init;
    wire [13:0] ia, ib;
    reg [11:0] da, db;
    always @(posedge clk) begin
        if (rst) init <= 0;
        else if (!init[14]) begin tbl[init[13:0]] <= 12'd0; init <= init + 1; end
        else if (we) tbl[waddr] <= wdata;
    end
    always @(*) begin da = tbl[ia]; db = tbl[ib]; end
    lkp_port tx(.clk(clk), .rst(rst), .req_valid(s_tx_req_valid), .req_ready(s_tx_req_ready),
        .req_qpn(s_tx_req_qpn), .req_tag(s_tx_req_tag), .rd_idx(ia), .rd_data(da), .base(base),
        .rsp_valid(m_tx_rsp_valid), .rsp_ready(m_tx_rsp_ready), .rsp_qpn(m_tx_rsp_qpn),
        .rsp_tag(m_tx_rsp_tag), .rsp_status(m_tx_rsp_status), .rsp_addr(m_tx_rsp_addr));
    lkp_port rx(.clk(clk), .rst(rst), .req_valid(s_rx_req_valid), .req_ready(s_rx_req_ready),
        .req_qpn(s_rx_req_qpn), .req_tag(s_rx_req_tag), .rd_idx(ib), .rd_data(db), .base(base),
        .rsp_valid(m_rx_rsp_valid), .rsp_ready(m_rx_rsp_ready), .rsp_qpn(m_rx_rsp_qpn),
        .rsp_tag(m_rx_rsp_tag), .rsp_status(m_rx_rsp_status), .rsp_addr(m_rx_rsp_addr));
endmodule
"#;

fn measure(opts: &BuildOptions, label: &str) {
    let t = Instant::now();
    let model = Model::build(LOOKUP, "lookup2", opts).unwrap();
    let build = t.elapsed();
    let n: u64 = 2_000_000;
    let fixed = [
        ("s_tx_req_valid", 1),
        ("s_rx_req_valid", 1),
        ("m_tx_rsp_ready", 1),
        ("m_rx_rsp_ready", 1),
        ("s_tx_req_qpn", 5),
        ("s_rx_req_qpn", 7),
    ];
    let cpp = model.cpp_main_benchmark(n, &fixed).unwrap();

    // Raw loop: fixed inputs, one output read per cycle.
    let mut sim = model.instantiate();
    let rst = sim.input("rst").unwrap();
    sim.set(rst, 1);
    sim.step_n(8);
    sim.set(rst, 0);
    for (name, v) in fixed {
        sim.set_named(name, v).unwrap();
    }
    let out = sim.output("m_tx_rsp_addr").unwrap();
    let t = Instant::now();
    let mut acc = 0u64;
    for _ in 0..n {
        sim.step();
        acc = acc.wrapping_add(sim.get(out));
    }
    let raw = n as f64 / t.elapsed().as_secs_f64();

    // Agents: two sources, two sinks, a new beat every cycle.
    let mut sim = model.instantiate();
    sim.set(rst, 1);
    sim.step_n(8);
    sim.set(rst, 0);
    sim.step_n(16400);
    let mut s_tx = StreamSource::new(&sim, "s_tx_req_", &["qpn", "tag"])
        .unwrap()
        .with_history(false);
    let mut s_rx = StreamSource::new(&sim, "s_rx_req_", &["qpn", "tag"])
        .unwrap()
        .with_history(false);
    let f = ["qpn", "tag", "status", "addr"];
    let mut k_tx = StreamSink::new(&sim, "m_tx_rsp_", &f).unwrap();
    let mut k_rx = StreamSink::new(&sim, "m_rx_rsp_", &f).unwrap();
    let t = Instant::now();
    let mut got = 0u64;
    for i in 0..n {
        if s_tx.pending() < 2 {
            s_tx.push([i & 0xff_ffff, i & 0xff]);
            s_rx.push([(i * 7) & 0xff_ffff, i & 0xff]);
        }
        step_agents(&mut sim, &mut [&mut s_tx, &mut s_rx, &mut k_tx, &mut k_rx]);
        while let Some(b) = k_tx.pop() {
            got = got.wrapping_add(b[3]);
        }
        while let Some(b) = k_rx.pop() {
            got = got.wrapping_add(b[3]);
        }
    }
    let agents = n as f64 / t.elapsed().as_secs_f64();
    k_tx.check().unwrap();
    k_rx.check().unwrap();
    println!(
        "{label}: build {:.1}s{} | C++ main {:.2} Mc/s | Rust raw {:.2} Mc/s ({:.2}x) | Rust 4 agents {:.2} Mc/s ({:.2}x) | beats {} {} [{acc:x} {got:x}]",
        build.as_secs_f64(),
        if model.was_cached() { " (cached)" } else { "" },
        cpp / 1e6,
        raw / 1e6,
        raw / cpp,
        agents / 1e6,
        agents / cpp,
        s_tx.sent_total(),
        k_rx.received_total(),
    );
}

#[test]
#[ignore]
fn speed_of_a_lookup_engine_sized_design() {
    measure(&BuildOptions::default(), "default (-O2)");
    if std::env::var_os("QPTABLE_PERF_SWEEP").is_none() {
        return;
    }
    // Each optimisation level also builds its own Verilator runtime (part of the time).
    for (opt, slow) in [("-Os", "-Os"), ("-O3", "-O1"), ("-O1", "-O0")] {
        let opts = BuildOptions {
            opt: opt.into(),
            opt_slow: slow.into(),
            ..Default::default()
        };
        measure(&opts, &format!("opt {opt} slow {slow}"));
    }
    measure(
        &BuildOptions {
            falling_edge_eval: true,
            ..Default::default()
        },
        "-O2, 3 evals per cycle",
    );
    measure(
        &BuildOptions::traced(true),
        "-O2, built with --trace (not tracing)",
    );
}
