//! The formal harness of an engine: a SystemVerilog module that instantiates the emitted top,
//! drives every input from free values (`anyseq`) constrained only by what the datasheet lets
//! a well-behaved environment do, and states the datasheet's properties about what comes out.
//! `scripts/formal` proves them with SymbiYosys (`docs/verification.md`).
//!
//! The harness sees the engine's ports only, never its internals, so what it proves is about
//! the contract (SPEC §4, §6, §7), whatever the implementation:
//!
//! - **P1** (SPEC §1, §4, §6): a lookup response with status OK names a QPN that an accepted
//!   PUBLISH command named and that no FREE of that QPN has removed since (a FREE removes it
//!   from the shadow set at its write response); **P1_INDEX**: the weaker form that PDR
//!   proves unbounded, an OK response names an index that some accepted PUBLISH named since
//!   reset; **P1_ADDR**: a response whose status is not OK has `addr` 0.
//! - **P2** (SPEC §4, streams): no response without an outstanding request; per port,
//!   responses in request order (the tags, which the environment draws from a counter, come
//!   back in sequence); fewer than min(8, 2^tag_bits) requests outstanding (the bound that
//!   keeps the tag and QPN checks exact); no AXI4-Lite write response without a write.
//!   **P2_ECHO**: each response carries its request's QPN (checked on one freely chosen bit,
//!   `echo_bit`, so for every bit). **P2_HOLD**: a response is held
//!   (valid and payload) while `valid && !ready`.
//! - **Latency** (SPEC §7): with `rsp_ready` always high, every request is answered within
//!   the datasheet's bound (flat 3 cycles, two_level with the directory on chip 4).
//! - **P3** (SPEC §4, §6): the AXI4-Lite slave (`src/formal/axil.rs`): B and R held while not ready, no R
//!   without a read, SLVERR exactly where the register map says, the constant registers'
//!   values, and TABLE_BASE, STATE_BASE and DIR_INDEX reading back what the accepted writes
//!   left.
//! - **P5** (SPEC §6, §7): with `rsp_ready` always high, every write of the control port, a
//!   command included, is answered within [`command_bound`] cycles of its acceptance.
//!
//! Which of them a run checks is chosen with Verilog defines: `FORMAL_P1`, `FORMAL_P1_INDEX`,
//! `FORMAL_P1_ADDR`, `FORMAL_P2`, `FORMAL_P2_ECHO`, `FORMAL_P2_HOLD`, `FORMAL_LATENCY` (which
//! also assumes every `rsp_ready` high), `FORMAL_P3`, `FORMAL_P5` (`P5_BOUND=N` overrides
//! the bound). The reachability checks assert that something never happens, and must FAIL,
//! which shows the environment reaches it (the properties are not vacuous):
//! `FORMAL_REACH_OK` (an OK response), `FORMAL_REACH_FREE` (the write response of a FREE of a
//! QPN in P1's shadow set), `FORMAL_REACH_FULL` (a read of CMD_RESULT showing FULL),
//! `FORMAL_REACH_DRAIN` (the write response of a FREE that drained an OK lookup of its own
//! QPN). `FORMAL_NARROW` narrows the environment for them (AW with W, B taken at once, reads
//! of CMD_RESULT only, one QPN for every command and lookup): a trace found under it is a
//! trace of the full environment.
//!
//! The environment:
//!
//! - `rst` is high in the first two cycles (SPEC: held at least 2 cycles) and low from then
//!   on; every valid is low while `rst` is high. A reset in the middle of a run is not
//!   explored;
//! - AXI4-Lite master: AW, W and AR each hold valid and payload until ready; one write at a
//!   time (no new AW or W until the previous write's B handshake); any address, data,
//!   strobes, `bready` and `rready`;
//! - CMD writes name QPNs whose generation is below 2^TRACK_GEN (4; all generations when the
//!   QPN has fewer generation bits), so the shadow is one bit per (index, generation): lookups
//!   name any QPN, and ALLOC may hand out any generation;
//! - lookup requests hold valid and payload until ready, any QPN, tags from a counter; with a
//!   memory port, whose lookup queues hold more requests than the harness's shadow follows
//!   ([`MAX_SLOTS`]), a requester raises valid only while fewer than `SLOTS - 1` of its
//!   requests are unanswered (on chip no such limit: that the engine never holds `SLOTS` is
//!   part of P2);
//! - with a memory port (`state = in_memory`, or the directory in memory), an honest but lazy
//!   AXI4 slave, the harness's view of STATE_BASE and TABLE_BASE, and the AXI4 master's
//!   properties (`FORMAL_P3_MASTER`): [`memory`].

pub mod memory;

use crate::config::{Config, Mode};
use crate::generate::verilog_header;
use crate::hw::qp_table::QpTable;
use crate::hw::EngineParams;
use anyhow::bail;

mod axil;
use std::fmt::Write as _;

/// Generation bits the shadow of P1 tracks: commands name generations below 2^this.
pub const TRACK_GEN: u32 = 2;
/// Largest index_bits the harness accepts: its P1 shadow holds 2^(index_bits + TRACK_GEN)
/// bits.
pub const MAX_INDEX_BITS: u32 = 8;
/// Requests outstanding per port the harness can follow (its QPN shadow's slots, at most
/// 2^tag_bits).
pub const MAX_SLOTS: u32 = 8;

/// File name of the harness of `cfg`, written beside `<top>.v`.
pub fn formal_wrapper_name(cfg: &Config) -> String {
    format!("{}_formal.sv", cfg.top)
}

/// The bound P5 states on a write of the control port (acceptance to `bvalid`, in cycles),
/// with every lookup response taken at once: the init sweep (`max_qps` cycles: a command
/// written during it waits) plus 24 for the command itself and the drain of the lookups in
/// flight. On the smallest flat configuration (`scripts/formal`), `max_qps + 20` is exceeded
/// (docs/verification.md), so the bound is within a few cycles of the longest command.
pub fn command_bound(cfg: &Config) -> u32 {
    cfg.max_qps() + 24
}

/// SPEC §7's latency bound of `cfg` (request handshake to response valid), in cycles.
pub fn latency_bound(cfg: &Config) -> u32 {
    match cfg.mode {
        Mode::Flat => 3,
        Mode::TwoLevel => 4,
    }
}

/// A directed environment of the harness ([`directed_scenarios`]).
pub struct DirectedScenario {
    /// The define that selects it.
    pub define: &'static str,
    /// What it is for.
    pub what: &'static str,
    /// The control-port writes it makes, in order: (register word, data).
    pub writes: Vec<(u32, u32)>,
}

/// The directed environments of the harness. With one of them
/// defined, the control port makes exactly these writes, each offered the cycle after the
/// previous write response, AW with W, all strobes, B taken at once, no reads; lookups (any
/// QPN) start after the last write response, responses are taken at once; the memory takes
/// every request it has room for and answers each read beat and each B as soon as it may,
/// OKAY, with the data the slave of `memory` may choose. A trace found under one is a trace
/// of the full environment too; a pass covers that sequence only. The commands are fixed so
/// that the solver meets no choice before the lookups: with the QPNs and the base left free,
/// bmc3 got no verdict at 140 steps in 900 s on the STATE_BASE bug (docs/verification.md).
pub fn directed_scenarios() -> Vec<DirectedScenario> {
    use crate::spec::opcode::{ALLOC_AT, FREE, PUBLISH};
    let cmd = crate::spec::regs::CMD >> 2;
    let state_base_lo = crate::spec::regs::STATE_BASE_LO >> 2;
    let command = |op: u32, qpn: u32| (cmd, (op << 28) | qpn);
    vec![
        DirectedScenario {
            define: "FORMAL_DIRECTED_MOVE",
            what: "the STATE_BASE bug of d52ba55: ALLOC_AT 1, FREE 1, a move of STATE_BASE (a \
                   change, block-aligned), ALLOC_AT 2 in the same block",
            writes: vec![
                command(ALLOC_AT, 1),
                command(FREE, 1),
                (state_base_lo, 0x1000),
                command(ALLOC_AT, 2),
            ],
        },
        DirectedScenario {
            define: "FORMAL_DIRECTED_OK",
            what: "an OK response with the state in memory: ALLOC_AT 1, PUBLISH 1",
            writes: vec![command(ALLOC_AT, 1), command(PUBLISH, 1)],
        },
    ]
}

/// The Verilog of [`directed_scenarios`]: `FORMAL_DIRECTED` and `DM_N` (the number of writes)
/// defined by whichever scenario is, `dm_step` (write responses so far), `dm_done`, and the
/// control port's assumptions. The memory's are in `memory`, the lookups' in the port block.
fn directed_environments() -> String {
    use std::fmt::Write as _;
    let scenarios = directed_scenarios();
    let mut s = String::new();
    for d in &scenarios {
        let _ = writeln!(
            s,
            "`ifdef {}\n`define FORMAL_DIRECTED\n`define DM_N 3'd{}\n`endif",
            d.define,
            d.writes.len()
        );
    }
    s.push_str(
        "`ifdef FORMAL_DIRECTED
    // A directed environment (qptable::formal::directed_scenarios, docs/verification.md).
    reg [2:0] dm_step;                  // write responses so far
    wire dm_done = dm_step == `DM_N;
    always @(posedge clk)
        if (rst) dm_step <= 3'd0;
        else if (b_hs && !dm_done) dm_step <= dm_step + 3'd1;
    always @* if (!rst) begin
        assume(s_axil_bready && !s_axil_arvalid);
        assume(s_axil_awvalid == s_axil_wvalid);
        assume(s_axil_awvalid == (!dm_done && !aw_taken));
        if (s_axil_wvalid) begin
            assume(s_axil_wstrb == 4'hf);
",
    );
    for d in &scenarios {
        let _ = writeln!(s, "`ifdef {}\n            // {}", d.define, d.what);
        for (i, (word, data)) in d.writes.iter().enumerate() {
            let _ = writeln!(
                s,
                "            if (dm_step == 3'd{i}) assume(s_axil_awaddr[11:2] == 10'd{word} \
                 && s_axil_wdata == 32'h{data:08x});"
            );
        }
        s.push_str("`endif\n");
    }
    s.push_str("        end\n    end\n`endif\n");
    s
}

/// The formal harness of the engine of `cfg`: module `<top>_formal`, one input `clk`,
/// for `read_verilog -formal -sv`. Refused (with the reason) for the configurations it does
/// not model: index_bits above [`MAX_INDEX_BITS`], a state table larger than the memory
/// shadow holds ([`memory::MAX_STATE_BYTES`]).
pub fn formal_wrapper(cfg: &Config) -> anyhow::Result<String> {
    cfg.validate()?;
    if cfg.index_bits > MAX_INDEX_BITS {
        bail!(
            "formal: index_bits = {} is too large for the harness (its shadow holds 2^(index_bits + {TRACK_GEN}) bits); use index_bits <= {MAX_INDEX_BITS}",
            cfg.index_bits
        );
    }
    let top = QpTable::new(EngineParams::new(cfg), &cfg.ports);
    let ports = top.ports();
    let ib = cfg.index_bits;
    let tg = TRACK_GEN.min(cfg.gen_bits());
    let slots = MAX_SLOTS.min(1 << cfg.tag_bits.min(16));
    let slot_bits = slots.trailing_zeros().max(1);
    let tb = cfg.tag_bits;
    let lat = latency_bound(cfg);
    let range = |w: usize| {
        if w == 1 {
            String::new()
        } else {
            format!("[{}:0] ", w - 1)
        }
    };

    let mut s = verilog_header(
        cfg,
        &formal_wrapper_name(cfg),
        &format!("the formal harness of `{}` (docs/verification.md)", cfg.top),
    );
    let _ = writeln!(
        s,
        "// For `read_verilog -formal -sv`, with the engine's Verilog. Defines choose what is checked:\n\
         // FORMAL_P1 (OK only for a published QPN), FORMAL_P1_ADDR (addr 0 unless OK), FORMAL_P2\n\
         // (no response without a request, order, bounded outstanding, AXI4-Lite B), FORMAL_P2_ECHO\n\
         // (the request's QPN), FORMAL_P2_HOLD (response held while not ready),\n\
         // FORMAL_LATENCY (rsp_ready held high: every request answered within {lat} cycles),\n\
         // FORMAL_P1_INDEX (OK only for an index a PUBLISH named), FORMAL_P3 (the AXI4-Lite slave),\n\
         // FORMAL_P5 (every control write answered within a bound), FORMAL_REACH_* (must fail: shows\n\
         // the state is reachable; FORMAL_NARROW narrows the environment for them),\n\
         // FORMAL_DIRECTED_MOVE / FORMAL_DIRECTED_OK (a directed environment: fixed control writes).\n\
         // See src/formal/ for the environment.\n\
         `default_nettype none\n\n\
         module {top}_formal(input wire clk);\n\
         \x20   localparam IB = {ib};            // index bits\n\
         \x20   localparam TG = {tg};            // generation bits the shadow tracks\n\
         \x20   localparam TB = {tb};            // tag bits\n\
         \x20   localparam SLOTS = {slots};         // requests outstanding the QPN shadow follows\n\
         \x20   localparam SB = {slot_bits};            // bits of a slot number\n\
         \x20   localparam CMD_WORD = 10'd{cmd_word};   // CMD (0x030) >> 2\n\
         \x20   localparam OP_PUBLISH = 4'd{publish};\n\
         \x20   localparam OP_FREE = 4'd{free};\n\n\
         \x20   // Reset: high in the first two cycles, then low for good.\n\
         \x20   reg [1:0] cycle = 2'd0;\n\
         \x20   always @(posedge clk) if (cycle != 2'd3) cycle <= cycle + 2'd1;\n\
         \x20   wire rst = cycle < 2'd2;\n",
        top = cfg.top,
        cmd_word = crate::spec::regs::CMD >> 2,
        publish = crate::spec::opcode::PUBLISH,
        free = crate::spec::opcode::FREE,
    );

    let _ = writeln!(
        s,
        "    // The engine's ports: inputs free, outputs observed."
    );
    for p in ports {
        if p.name == "clk" || p.name == "rst" {
            continue;
        }
        if p.input {
            let _ = writeln!(s, "    (* anyseq *) wire {}{};", range(p.width), p.name);
        } else {
            let _ = writeln!(s, "    wire {}{};", range(p.width), p.name);
        }
    }
    let _ = writeln!(s, "\n    {} dut (", cfg.top);
    for (i, p) in ports.iter().enumerate() {
        let comma = if i + 1 < ports.len() { "," } else { "" };
        let _ = writeln!(s, "        .{}({}){comma}", p.name, p.name);
    }
    let _ = writeln!(s, "    );\n");

    // The AXI4-Lite master and the command shadow.
    let gen_assume = if cfg.gen_bits() > tg {
        "        if (!rst && cmd_accept) assume(cmd_qpn[23:IB+TG] == 0);\n"
    } else {
        ""
    };
    let p0 = &cfg.ports[0];
    let cmd_result_word = crate::spec::regs::CMD_RESULT >> 2;
    let directed = directed_environments();
    let _ = write!(
        s,
        "    // AXI4-Lite master: valid and payload held until ready, one write at a time.
    wire aw_hs = s_axil_awvalid && s_axil_awready;
    wire w_hs = s_axil_wvalid && s_axil_wready;
    wire b_hs = s_axil_bvalid && s_axil_bready;
    reg aw_wait, w_wait, ar_wait;       // valid high and not taken at the last edge
    reg [11:0] awaddr_q, araddr_q;
    reg [2:0] awprot_q, arprot_q;
    reg [31:0] wdata_q;
    reg [3:0] wstrb_q;
    reg aw_taken, w_taken;              // of the write in progress (until its B handshake)
    reg [11:0] wr_addr_t;
    reg [31:0] wr_data_t;
    reg [3:0] wr_strb_t;
    always @(posedge clk) begin
        aw_wait <= !rst && s_axil_awvalid && !s_axil_awready;
        w_wait <= !rst && s_axil_wvalid && !s_axil_wready;
        ar_wait <= !rst && s_axil_arvalid && !s_axil_arready;
        awaddr_q <= s_axil_awaddr;
        awprot_q <= s_axil_awprot;
        wdata_q <= s_axil_wdata;
        wstrb_q <= s_axil_wstrb;
        araddr_q <= s_axil_araddr;
        arprot_q <= s_axil_arprot;
        if (aw_hs) wr_addr_t <= s_axil_awaddr;
        if (w_hs) wr_data_t <= s_axil_wdata;
        if (w_hs) wr_strb_t <= s_axil_wstrb;
        if (rst || b_hs) begin
            aw_taken <= 1'b0;
            w_taken <= 1'b0;
        end else begin
            if (aw_hs) aw_taken <= 1'b1;
            if (w_hs) w_taken <= 1'b1;
        end
    end
    always @* begin
        if (rst) assume(!s_axil_awvalid && !s_axil_wvalid && !s_axil_arvalid);
        if (aw_wait) assume(s_axil_awvalid && s_axil_awaddr == awaddr_q && s_axil_awprot == awprot_q);
        if (w_wait) assume(s_axil_wvalid && s_axil_wdata == wdata_q && s_axil_wstrb == wstrb_q);
        if (ar_wait) assume(s_axil_arvalid && s_axil_araddr == araddr_q && s_axil_arprot == arprot_q);
        if (aw_taken) assume(!s_axil_awvalid);
        if (w_taken) assume(!s_axil_wvalid);
    end

    // A write is accepted at the later of its AW and W handshakes; a CMD write is a command.
    wire [11:0] wr_addr = aw_hs ? s_axil_awaddr : wr_addr_t;
    wire [31:0] wr_data = w_hs ? s_axil_wdata : wr_data_t;
    wire [3:0] wr_strb = w_hs ? s_axil_wstrb : wr_strb_t;
    wire wr_accept = (aw_hs && (w_hs || w_taken)) || (w_hs && aw_taken);
    wire cmd_accept = wr_accept && wr_addr[11:2] == CMD_WORD;
    // P2_ECHO follows one bit of every QPN, chosen freely once (anyconst): the check holds
    // for every choice, so for the whole QPN, and what a proof has to relate are single bits
    // of the design's registers and of the shadow, not 24-bit words.
    (* anyconst *) reg [4:0] echo_bit;
    always @* assume(echo_bit < 5'd24);
`ifdef FORMAL_NARROW
    // Reachability checks only: a narrower environment, so that BMC reaches deep states in
    // less time; a trace found under it is a trace of the full environment too. AW and W come
    // together, B is taken at once, reads are of CMD_RESULT only, and every command and
    // lookup names one QPN (chosen freely, once).
    (* anyconst *) reg [23:0] narrow_qpn;
    always @* begin
        assume(s_axil_bready);
        assume(s_axil_awvalid == s_axil_wvalid);
        if (s_axil_arvalid) assume(s_axil_araddr[11:2] == 10'd{cmd_result_word});
        if (s_axil_wvalid && s_axil_awaddr[11:2] == CMD_WORD)
            assume(s_axil_wdata[23:0] == narrow_qpn);
    end
`endif
{directed}    wire [3:0] cmd_op = wr_data[31:28];
    wire [23:0] cmd_qpn = wr_data[23:0];
    always @* begin
{gen_assume}    end

    // P1's shadow: a bit per (generation mod 2^TG, index), set by an accepted PUBLISH of that
    // QPN, cleared by the write response of a FREE of it.
    reg [(1 << (IB + TG)) - 1:0] published;
    reg free_wait;
    reg [IB+TG-1:0] free_slot;
    always @(posedge clk) begin
        if (rst) begin
            published <= 0;
            free_wait <= 1'b0;
        end else begin
            if (cmd_accept && cmd_op == OP_PUBLISH) published[cmd_qpn[IB+TG-1:0]] <= 1'b1;
            if (cmd_accept && cmd_op == OP_FREE) begin
                free_wait <= 1'b1;
                free_slot <= cmd_qpn[IB+TG-1:0];
            end
            if (b_hs && free_wait) begin
                published[free_slot] <= 1'b0;
                free_wait <= 1'b0;
            end
        end
    end
    // P1_INDEX's shadow: the indexes some accepted PUBLISH named since reset.
    reg [(1 << IB) - 1:0] named;
    always @(posedge clk)
        if (rst) named <= 0;
        else if (cmd_accept && cmd_op == OP_PUBLISH) named[cmd_qpn[IB-1:0]] <= 1'b1;
`ifdef FORMAL_P2
    always @* if (!rst && s_axil_bvalid) assert(aw_taken && w_taken);
`endif
`ifdef FORMAL_REACH_FREE
    always @* if (!rst && b_hs && free_wait) assert(!published[free_slot]);
`endif

"
    );
    s.push_str(&axil::properties(cfg));

    let arid_bits = ports
        .iter()
        .find(|p| p.name == "m_axi_arid")
        .map_or(1, |p| p.width);
    if let Some(m) = memory::memory_harness(cfg, arid_bits)? {
        s.push_str(&m);
    }

    let gen_ok = if cfg.gen_bits() > tg {
        "rsp_qpn[23:IB+TG] == 0 && "
    } else {
        ""
    };
    let hs_terms: Vec<String> = (1..lat).map(|k| format!("{{3'd0, h{k}}}")).collect();
    // With a memory port the engine's queues hold more requests than the shadow follows: the
    // requester keeps fewer than SLOTS - 1 unanswered (see the module documentation).
    let limited = memory::has_memory_port(cfg);
    for (i, name) in cfg.ports.iter().enumerate() {
        let limit = if limited {
            format!(
                "        if (!req_wait && outstanding >= SLOTS - 1) assume(!s_{name}_req_valid);\n"
            )
        } else {
            String::new()
        };
        let req = format!("s_{name}_req");
        let rsp = format!("m_{name}_rsp");
        let reach = if i == 0 {
            format!(
                "`ifdef FORMAL_REACH_OK\n    always @* if (!rst && {rsp}_valid) assert({rsp}_status != 3'd0);\n`endif\n"
            )
        } else {
            String::new()
        };
        let shifts: String = (2..lat).map(|k| format!(" h{k} <= h{};", k - 1)).collect();
        let hregs: Vec<String> = (1..lat).map(|k| format!("h{k}")).collect();
        let _ = write!(
            s,
            "    // Lookup port {name}.
    generate if (1) begin : port_{name}
    wire req_hs = {req}_valid && {req}_ready;
    wire rsp_hs = {rsp}_valid && {rsp}_ready;
    wire [23:0] rsp_qpn = {rsp}_qpn;
    reg req_wait;
    reg [23:0] req_qpn_q;
    reg [TB-1:0] req_count, rsp_count;  // tags of the next request and of the next response
    reg [3:0] outstanding;
    reg [SLOTS-1:0] qbits;              // bit echo_bit of each outstanding request's QPN, by tag mod SLOTS
    reg rsp_wait;                       // valid high and not taken at the last edge
    reg [{pw}:0] rsp_q;                 // the response's payload then
    reg {hregs};                        // request handshakes 1.. edges ago
    wire [{pw}:0] rsp_payload = {{{rsp}_qpn, {rsp}_tag, {rsp}_status, {rsp}_addr}};
    integer j;                          // the loop variable of the clocked block
    // Bit echo_bit of the QPN of the request the next response answers.
    wire expected_bit = qbits[rsp_count[SB-1:0]];
    // The QPNs widened to 32 bits, so that no index of echo_bit is out of range (an x).
    wire [31:0] req_qpn32 = {{8'd0, {req}_qpn}};
    wire [31:0] rsp_qpn32 = {{8'd0, rsp_qpn}};
    always @(posedge clk) begin
        req_wait <= !rst && {req}_valid && !{req}_ready;
        req_qpn_q <= {req}_qpn;
        rsp_wait <= !rst && {rsp}_valid && !{rsp}_ready;
        rsp_q <= rsp_payload;
        h1 <= !rst && req_hs;{shifts}
        if (rst) begin
            req_count <= 0;
            rsp_count <= 0;
            outstanding <= 4'd0;
        end else begin
            if (req_hs) req_count <= req_count + 1'b1;
            for (j = 0; j < SLOTS; j = j + 1)
                if (req_hs && req_count[SB-1:0] == j) qbits[j] <= req_qpn32[echo_bit];
            if (rsp_hs) rsp_count <= rsp_count + 1'b1;
            outstanding <= outstanding + req_hs - rsp_hs;
        end
    end
    always @* begin
        if (rst) assume(!{req}_valid);
        if (req_wait) assume({req}_valid && {req}_qpn == req_qpn_q);
        assume({req}_tag == req_count);
{limit}`ifdef FORMAL_NARROW
        if ({req}_valid) assume({req}_qpn == narrow_qpn);
`endif
`ifdef FORMAL_LATENCY
        assume({rsp}_ready);
`endif
`ifdef FORMAL_DIRECTED
        if (!dm_done) assume(!{req}_valid);
        assume({rsp}_ready);
`endif
`ifdef FORMAL_P5
        assume({rsp}_ready);
`endif
    end
`ifdef FORMAL_P1
    always @* if (!rst && {rsp}_valid && {rsp}_status == 3'd0)
        assert({gen_ok}published[rsp_qpn[IB+TG-1:0]]);
`endif
`ifdef FORMAL_P1_INDEX
    always @* if (!rst && {rsp}_valid && {rsp}_status == 3'd0)
        assert(named[rsp_qpn[IB-1:0]]);
`endif
`ifdef FORMAL_P1_ADDR
    always @* if (!rst && {rsp}_valid && {rsp}_status != 3'd0) assert({rsp}_addr == 0);
`endif
`ifdef FORMAL_P2
    always @* if (!rst) begin
        if ({rsp}_valid) assert(outstanding != 4'd0);
        if ({rsp}_valid) assert({rsp}_tag == rsp_count);
        assert(outstanding < SLOTS);
    end
`endif
`ifdef FORMAL_P2_ECHO
    always @* if (!rst && {rsp}_valid) assert(rsp_qpn32[echo_bit] == expected_bit);
`endif
`ifdef FORMAL_P2_HOLD
    always @* if (!rst && rsp_wait) assert({rsp}_valid && rsp_payload == rsp_q);
`endif
`ifdef FORMAL_LATENCY
    // The requests accepted {lat} or more edges ago are answered by now.
    always @* if (!rst) assert(outstanding <= {sum} + {{3'd0, rsp_hs}});
`endif
{reach}    end endgenerate

",
            pw = 24 + tb + 3 + cfg.addr_bits - 1,
            hregs = hregs.join(", "),
            sum = hs_terms.join(" + "),
        );
    }
    let _ = write!(
        s,
        "`ifdef FORMAL_P5
    // P5: with every response taken at once (rsp_ready high), every write of the control port
    // is answered within {bound} cycles of its acceptance: a command too, drain included.
    reg b_pending;
    reg [7:0] b_age;                    // edges since the write was accepted
    always @(posedge clk)
        if (rst) begin
            b_pending <= 1'b0;
            b_age <= 8'd0;
        end else if (wr_accept) begin
            b_pending <= 1'b1;
            b_age <= 8'd0;
        end else begin
            if (b_hs) b_pending <= 1'b0;
            if (b_age != 8'hff) b_age <= b_age + 8'd1;
        end
`ifndef P5_BOUND
`define P5_BOUND {bound}
`endif
    always @* if (!rst && b_pending && !s_axil_bvalid) assert(b_age < `P5_BOUND);
`endif
`ifdef FORMAL_REACH_DRAIN
    // Must fail: the write response of a FREE that came after it drained a lookup of its own
    // QPN, answered OK between the FREE's acceptance and its write response (so the FREE found
    // the QP VALID and waited for that lookup).
    reg drained_ok;
    always @(posedge clk)
        if (rst || (cmd_accept && cmd_op == OP_FREE)) drained_ok <= 1'b0;
        else if (free_wait && port_{p0}.rsp_hs && m_{p0}_rsp_status == 3'd0
                 && m_{p0}_rsp_qpn[IB+TG-1:0] == free_slot)
            drained_ok <= 1'b1;
    always @* if (!rst && b_hs && free_wait) assert(!drained_ok);
`endif
endmodule

`default_nettype wire
",
        bound = command_bound(cfg),
    );
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapper_names_every_port() {
        let mut cfg = Config::default();
        cfg.set("index_bits=4").unwrap();
        cfg.set("ports=tx,rx").unwrap();
        let w = formal_wrapper(&cfg).unwrap();
        assert!(w.contains("module qp_table_formal(input wire clk);"));
        for p in ["s_tx_req_valid", "m_rx_rsp_addr", "s_axil_rready"] {
            assert!(w.contains(&format!(".{p}({p})")), "{p} not connected");
        }
        let mut big = Config::default();
        big.set("index_bits=12").unwrap();
        assert!(formal_wrapper(&big).is_err());
    }

    #[test]
    fn wrapper_with_the_state_in_memory_names_and_constrains_every_memory_port() {
        let mut cfg = Config::default();
        for s in [
            "index_bits=4",
            "max_qps=4",
            "ports=tx",
            "state=in_memory",
            "block_bits=3",
        ] {
            cfg.set(s).unwrap();
        }
        let w = formal_wrapper(&cfg).unwrap();
        let top = QpTable::new(EngineParams::new(&cfg), &cfg.ports);
        let m_axi: Vec<_> = top
            .ports()
            .iter()
            .filter(|p| p.name.starts_with("m_axi_"))
            .collect();
        // AR, R, AW, W, B: every signal of the AXI4 master.
        assert_eq!(
            m_axi.len(),
            10 + 6 + 10 + 5 + 4,
            "{:?}",
            m_axi.iter().map(|p| &p.name).collect::<Vec<_>>()
        );
        let (_, mem) = w.split_once("The memory side").unwrap();
        for p in m_axi {
            let n = &p.name;
            assert!(w.contains(&format!(".{n}({n})")), "{n} not connected");
            // Each one appears in the memory side: an input constrained, an output checked.
            assert!(
                mem.contains(n.as_str()),
                "{n} not in the memory side of the harness"
            );
        }
        assert!(w.contains("`ifdef FORMAL_P3_MASTER"));
        // The state table beyond the shadow is refused.
        cfg.set("index_bits=8").unwrap();
        cfg.set("max_qps=256").unwrap();
        assert!(formal_wrapper(&cfg).is_err());
    }
}
