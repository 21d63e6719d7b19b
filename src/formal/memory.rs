//! The memory side of the formal harness (SPEC §4 memory port, §9 state in memory): an
//! honest but lazy AXI4 slave for `m_axi_*`, the harness's own view of STATE_BASE and
//! TABLE_BASE, and the properties about the AXI4 master (P3, `FORMAL_P3_MASTER`).
//!
//! **The slave.** Every input of the memory port stays free (`anyseq`); the harness only
//! assumes what an AXI4 slave that keeps its word would do:
//!
//! - `arready`, `awready`, `wready` free, but low while the slave's queue for that request is
//!   full (a slave may stall as long as it likes); `rready` and `bready` are the engine's;
//! - each accepted read burst is queued by ID (one queue per ID, `READ_DEPTH` deep); R beats
//!   come with free timing, from the head of any ID's queue (bursts of different IDs may
//!   interleave, AXI4 allows it), in order within an ID, `rlast` exactly on the last beat;
//!   `rresp` free (OKAY, SLVERR or DECERR, anywhere);
//! - W beats are taken into a FIFO (`W_DEPTH` deep) with free timing, also before their AW;
//!   a beat is performed on the memory when its burst's AW has been accepted (one a cycle, in
//!   order); the B of a burst comes after its last beat is performed, with free timing, in
//!   order of the bursts, `bresp` free. A write answered with an error leaves the bytes it
//!   wrote arbitrary;
//! - while a valid is low its payload is free (`rdata`, `rresp`, `rid`, `rlast`, `bresp`,
//!   `bid`); while `valid && !ready` valid and payload are held (AXI);
//! - read data: each byte of the state area `[start, start + STATE_BYTES)` (start: STATE_BASE
//!   aligned down to the block, the engine ignores the bits below, SPEC §9 requires the
//!   alignment) that the engine wrote since the last accepted STATE_BASE write reads back what
//!   it wrote (a shadow of STATE_BYTES bytes, byte-valid bits); every other byte, and every
//!   byte of a beat answered with an error, is free. So the directory (the host's) always
//!   reads arbitrary, and so does the state area after a move: SPEC §9, "nothing in the old
//!   or new area is trusted".
//!
//! **The bases.** The harness follows the AXI4-Lite writes of STATE_BASE_LO/HI (0x050/0x054)
//! and TABLE_BASE_LO/HI (0x020/0x024): a write accepted (AW and W taken) is applied, with its
//! byte strobes and `addr_bits` bits, at its B handshake if `bresp` is OKAY, and forgotten if
//! not (the engine answers SLVERR when SPEC §6/§9 forbid the write: the base does not move).
//! Any OKAY write of STATE_BASE (even one that leaves the value as it was: SPEC §9 says "a
//! write of STATE_BASE ... starts the new table") makes the whole shadow arbitrary;
//! `FORMAL_MOVE_ON_CHANGE` takes only a write that changes the register for a move. Between
//! the acceptance and the B handshake of such a write, the engine may already use either
//! base: the address checks accept both then.
//!
//! **P3, master** (`FORMAL_P3_MASTER`): AR, AW and W hold valid and payload until ready;
//! `arburst`/`awburst` INCR, no exclusive access, `arsize`/`awsize` at most the bus; no burst
//! crosses a 4 KB boundary; the state reads (IDs 0 and 1) are one block (`arlen` = beats - 1,
//! `arsize` the block's beat), aligned to the block and inside the state area; directory reads
//! (ID 2, or ID 0 with the state on chip) single beats of the bus width (`arlen` 0, SPEC §4
//! and "This release"), aligned, inside the directory `[TABLE_BASE, + 8 x entries)` (64-bit
//! bus); every write burst (first beat and every strobed byte of every beat) inside the state
//! area; `wlast` exactly on beat `awlen` of its burst (so no burst gets more or fewer beats
//! than its AW announced); `awid` is 0 (the B queue is in order). `rready` and `bready` are
//! free for the engine (SPEC lets it stall R and B); that they do not depend combinationally
//! on an input is not a property of one trace: `testbench/src/comb_paths.rs` checks it on the
//! netlist.
//!
//! Reachability (must FAIL): `FORMAL_REACH_MEM_ERROR` (a lookup answered MEM_ERROR),
//! `FORMAL_REACH_CMD_MEM_ERROR` (a read of CMD_RESULT showing status MEM_ERROR, not busy),
//! `FORMAL_REACH_MOVE` (an OKAY write of STATE_BASE after a command's write response).

use crate::config::{Config, Mode, State};
use crate::hw::EngineParams;
use crate::spec::regs;
use anyhow::bail;

/// Largest state table the shadow follows (bytes): the shadow is a register per byte.
pub const MAX_STATE_BYTES: u64 = 256;
/// Read bursts the slave holds per ID.
pub const READ_DEPTH: u32 = 2;
/// Accepted write bursts waiting for their data or their B.
pub const WRITE_DEPTH: u32 = 2;
/// W beats the slave holds before performing them.
pub const W_DEPTH: u32 = 4;

/// Whether `cfg` has a memory port (`m_axi_*`).
pub fn has_memory_port(cfg: &Config) -> bool {
    cfg.state == State::InMemory
        || (cfg.mode == Mode::TwoLevel && cfg.directory == crate::config::Directory::InMemory)
}

/// Bytes of the state table (STATE_BYTES, 0x058) and of one block, 0 with the state on chip.
pub fn state_bytes(cfg: &Config) -> (u64, u64) {
    match EngineParams::new(cfg).state_mem {
        Some(m) => {
            let blocks = u64::from(cfg.max_qps().div_ceil(1 << cfg.block_bits));
            (blocks * m.block_bytes(), m.block_bytes())
        }
        None => (0, 0),
    }
}

fn clog2(n: u64) -> u32 {
    n.next_power_of_two().trailing_zeros().max(1)
}

/// The memory side of the harness of `cfg` (SystemVerilog, inside `<top>_formal`, after the
/// AXI4-Lite master's section whose `wr_accept`, `wr_addr`, `wr_data`, `w_hs`, `b_hs` it
/// uses), or `None` without a memory port. `arid_bits`: the width of `m_axi_arid`.
pub fn memory_harness(cfg: &Config, arid_bits: usize) -> anyhow::Result<Option<String>> {
    if !has_memory_port(cfg) {
        return Ok(None);
    }
    let params = EngineParams::new(cfg);
    let smem = params.state_mem;
    let (sby, bb) = state_bytes(cfg);
    if sby > MAX_STATE_BYTES {
        bail!(
            "formal: STATE_BYTES = {sby} is too large for the harness's shadow (at most {MAX_STATE_BYTES}: lower index_bits or max_qps)"
        );
    }
    let ab = cfg.addr_bits;
    let mb = u64::from(cfg.mem_data_bits / 8);
    let lmb = mb.trailing_zeros();
    let nid = 1u32 << arid_bits;
    // Which IDs read what (docs/state_in_memory.md, docs/integration.md).
    let dir = params.dir_in_memory();
    let dir_id: Option<u32> = match (dir, smem.is_some()) {
        (true, true) => Some(2),
        (true, false) => Some(0),
        _ => None,
    };
    let (beats, arsize) = smem.map_or((1, lmb), |m| (m.beats(), m.arsize()));
    let dir_bytes = u64::from(params.dir_entries()) * 8;
    let rdb = clog2(u64::from(READ_DEPTH)) + 1;
    let wdb = clog2(u64::from(WRITE_DEPTH)) + 1;
    let wfb = clog2(u64::from(W_DEPTH)) + 1;
    let has_w = smem.is_some();
    let sby = sby.max(1);

    let mut t = String::from(TEMPLATE_BASES);
    t.push_str(TEMPLATE_READ);
    if has_w {
        t.push_str(TEMPLATE_WRITE);
    } else {
        t.push_str(
            "    wire mx_b_err_hs = 1'b0;\n    wire [SBP-1:0] mx_b_touched = 0;\n    wire mx_w_perform = 1'b0;\n    wire [MB-1:0] mx_w_strb = 0;\n    wire [AB-1:0] mx_w_word = 0;\n    wire [8*MB-1:0] mx_w_data = 0;\n",
        );
    }
    t.push_str(TEMPLATE_SHADOW);
    t.push_str(TEMPLATE_P3_READ);
    if has_w {
        t.push_str(TEMPLATE_P3_WRITE);
    }
    let state_ids: Vec<u32> = if smem.is_some() { vec![0, 1] } else { vec![] };
    let is_state = if state_ids.is_empty() {
        "1'b0".to_string()
    } else {
        state_ids
            .iter()
            .map(|i| format!("m_axi_arid == {i}"))
            .collect::<Vec<_>>()
            .join(" || ")
    };
    let is_dir = dir_id.map_or("1'b0".to_string(), |i| format!("m_axi_arid == {i}"));
    let dir_check = if dir_id.is_some() && mb == 8 {
        "            if (mx_is_dir) assert(mx_dir_ok(m_axi_araddr));\n"
    } else {
        ""
    };
    t = t.replace("@DIR_CHECK@", dir_check);
    let p0 = &cfg.ports[0];
    let reach = format!(
        "`ifdef FORMAL_REACH_MEM_ERROR
    always @* if (!rst && m_{p0}_rsp_valid) assert(m_{p0}_rsp_status != 3'd5);
`endif
"
    );
    t.push_str(&reach);
    t.push_str(TEMPLATE_REACH);
    let rep: Vec<(&str, String)> = vec![
        ("@AB@", ab.to_string()),
        ("@MB@", mb.to_string()),
        ("@LMB@", lmb.to_string()),
        ("@NID@", nid.to_string()),
        ("@IDW@", arid_bits.to_string()),
        ("@SBY@", sby.to_string()),
        ("@SBP@", sby.next_power_of_two().max(2).to_string()),
        (
            "@SBI@",
            sby.next_power_of_two().max(2).trailing_zeros().to_string(),
        ),
        ("@BB@", bb.max(1).to_string()),
        ("@BEATS@", beats.to_string()),
        ("@ARSIZE@", arsize.to_string()),
        ("@DIRB@", dir_bytes.max(8).to_string()),
        ("@RD@", READ_DEPTH.to_string()),
        ("@RDB@", rdb.to_string()),
        ("@WD@", WRITE_DEPTH.to_string()),
        ("@WDB@", wdb.to_string()),
        ("@WF@", W_DEPTH.to_string()),
        ("@WFB@", wfb.to_string()),
        ("@IS_STATE@", is_state),
        ("@IS_DIR@", is_dir),
        ("@SB_LO@", format!("10'd{}", regs::STATE_BASE_LO >> 2)),
        ("@SB_HI@", format!("10'd{}", regs::STATE_BASE_HI >> 2)),
        ("@TB_LO@", format!("10'd{}", regs::TABLE_BASE_LO >> 2)),
        ("@TB_HI@", format!("10'd{}", regs::TABLE_BASE_HI >> 2)),
        ("@CMD_RESULT@", format!("10'd{}", regs::CMD_RESULT >> 2)),
        ("@CMD@", format!("10'd{}", regs::CMD >> 2)),
    ];
    for (k, v) in rep {
        t = t.replace(k, &v);
    }
    debug_assert!(!t.contains('@'), "a placeholder left in the memory harness");
    Ok(Some(t))
}

const TEMPLATE_BASES: &str = r#"
    // ---- The memory side (src/formal/memory.rs): an honest but lazy AXI4 slave. ----
    localparam AB = @AB@;              // addr_bits
    localparam MB = @MB@;              // bytes of a bus beat
    localparam NID = @NID@;            // read IDs
    localparam SBY = @SBY@;            // STATE_BYTES (0x058)
    localparam SBP = @SBP@;            // STATE_BYTES rounded up to a power of two: the shadow
    localparam SBI = @SBI@;            // bits of a byte's index in the shadow
    localparam BB = @BB@;              // bytes of a block
    localparam RD = @RD@;              // read bursts held per ID
    localparam RDB = @RDB@;
    localparam WD = @WD@;              // write bursts held
    localparam WDB = @WDB@;
    localparam WF = @WF@;              // W beats held
    localparam WFB = @WFB@;
    localparam [63:0] AMASK = (AB == 64) ? ~64'd0 : ((64'd1 << AB) - 64'd1);

    // The bases and the write in progress, as the control port's part tracks them (applied at
    // an OKAY B handshake, by strobes, addr_bits bits: src/formal/axil.rs).
    wire lb_pend = b_due;               // a write accepted, its B not yet taken
    wire [9:0] lb_word = bw_word;
    wire [31:0] lb_data = bw_data;
    wire [31:0] lb_mask = {{8{bw_strb[3]}}, {8{bw_strb[2]}}, {8{bw_strb[1]}}, {8{bw_strb[0]}}};
    wire [63:0] sbase = state_base;     // STATE_BASE, TABLE_BASE
    wire [63:0] tbase = table_base;
    wire [63:0] lb_new_lo_s = {sbase[63:32], (sbase[31:0] & ~lb_mask) | (lb_data & lb_mask)} & AMASK;
    wire [63:0] lb_new_hi_s = {(sbase[63:32] & ~lb_mask) | (lb_data & lb_mask), sbase[31:0]} & AMASK;
    wire [63:0] lb_new_lo_t = {tbase[63:32], (tbase[31:0] & ~lb_mask) | (lb_data & lb_mask)} & AMASK;
    wire [63:0] lb_new_hi_t = {(tbase[63:32] & ~lb_mask) | (lb_data & lb_mask), tbase[31:0]} & AMASK;
    wire lb_is_sb = lb_word == @SB_LO@ || lb_word == @SB_HI@;
    wire lb_is_tb = lb_word == @TB_LO@ || lb_word == @TB_HI@;
    // The base the pending write would give (while lb_pend): the engine may already use it.
    wire [63:0] sbase_new = lb_word == @SB_LO@ ? lb_new_lo_s : lb_new_hi_s;
    wire [63:0] tbase_new = lb_word == @TB_LO@ ? lb_new_lo_t : lb_new_hi_t;
    wire sb_pend = lb_pend && lb_is_sb;
    wire tb_pend = lb_pend && lb_is_tb;
    wire lb_ok = b_hs && lb_pend && s_axil_bresp == 2'd0;
`ifdef FORMAL_MOVE_ON_CHANGE
    wire mx_move = lb_ok && lb_is_sb && sbase_new != sbase;
`else
    wire mx_move = lb_ok && lb_is_sb;
`endif
    // The state area: STATE_BASE aligned down to the block (the engine ignores the bits below).
    localparam [63:0] BMASK = ~(64'd@BB@ - 64'd1);
    localparam [63:0] BMASK8 = ~64'd7;
    wire [AB-1:0] s_start = sbase[AB-1:0] & BMASK[AB-1:0];
    wire [AB-1:0] s_start_new = sbase_new[AB-1:0] & BMASK[AB-1:0];
    wire [AB-1:0] d_start = tbase[AB-1:0] & BMASK8[AB-1:0];
    wire [AB-1:0] d_start_new = tbase_new[AB-1:0] & BMASK8[AB-1:0];
    // A byte's offset in the state area (modulo 2^addr_bits).
    function automatic [AB-1:0] soff(input [AB-1:0] a);
        soff = a - s_start;
    endfunction
    // Its index in the shadow (the offset's low bits: used where the offset is < SBY).
    function automatic [SBI-1:0] sidx(input [AB-1:0] a);
        sidx = soff(a);
    endfunction
    // Whether [a, a + n) lies in the state area (either base while a STATE_BASE write is pending).
    function automatic in_state(input [AB-1:0] a, input [15:0] n);
        reg [AB-1:0] o1, o2;
        begin
            o1 = a - s_start;
            o2 = a - s_start_new;
            in_state = (o1 < SBY && o1 + n <= SBY) || (sb_pend && o2 < SBY && o2 + n <= SBY);
        end
    endfunction
    // A directory read: one of the entries' 8-byte words, from TABLE_BASE (or the pending one).
    function automatic mx_dir_ok(input [AB-1:0] a);
        reg [AB-1:0] o1, o2;
        begin
            o1 = a - d_start;
            o2 = a - d_start_new;
            mx_dir_ok = (o1 < @DIRB@ && o1[2:0] == 0) || (tb_pend && o2 < @DIRB@ && o2[2:0] == 0);
        end
    endfunction

"#;

const TEMPLATE_READ: &str = r#"    // Reads: a queue of accepted bursts per ID (address, arlen, arsize), the head's beat count.
    wire mx_ar_hs = m_axi_arvalid && m_axi_arready;
    wire mx_r_hs = m_axi_rvalid && m_axi_rready;
    reg [AB*RD*NID-1:0] mq_addr;
    reg [8*RD*NID-1:0] mq_len;
    reg [3*RD*NID-1:0] mq_size;
    reg [RDB*NID-1:0] mq_n;
    reg [8*NID-1:0] mq_beat;
    reg mx_r_wait;                         // rvalid high and not taken at the last edge
    reg [@IDW@-1:0] rid_q;
    reg [8*MB-1:0] mx_rdata_q;
    reg [1:0] mx_rresp_q;
    reg rlast_q;
    integer mi2, mi3, mi4, mj5, mi6;  // loop variables, one per process
    // The beat R would carry now: the head of rid's queue.
    reg [AB-1:0] r_addr;
    reg [7:0] r_len, r_beat;
    reg [2:0] r_size;
    reg [RDB-1:0] r_n;
    always @* begin
        r_addr = 0; r_len = 0; r_size = 0; r_beat = 0; r_n = 0;
        for (mi2 = 0; mi2 < NID; mi2 = mi2 + 1)
            if (m_axi_rid == mi2) begin
                r_addr = mq_addr[AB*RD*mi2 +: AB];
                r_len = mq_len[8*RD*mi2 +: 8];
                r_size = mq_size[3*RD*mi2 +: 3];
                r_beat = mq_beat[8*mi2 +: 8];
                r_n = mq_n[RDB*mi2 +: RDB];
            end
    end
    // INCR: the first beat at the address, then aligned to the size.
    wire [AB-1:0] r_beat_addr = ((r_addr >> r_size) + r_beat) << r_size;
    wire [AB-1:0] r_word = r_beat_addr & ~(MB - 1);
    reg [RDB-1:0] ar_n;                 // bursts held for arid
    always @* begin
        ar_n = 0;
        for (mi3 = 0; mi3 < NID; mi3 = mi3 + 1)
            if (m_axi_arid == mi3) ar_n = mq_n[RDB*mi3 +: RDB];
    end
    always @(posedge clk) begin
        mx_r_wait <= !rst && m_axi_rvalid && !m_axi_rready;
        rid_q <= m_axi_rid;
        mx_rdata_q <= m_axi_rdata;
        mx_rresp_q <= m_axi_rresp;
        rlast_q <= m_axi_rlast;
    end
    genvar gi;
    generate for (gi = 0; gi < NID; gi = gi + 1) begin : rq
        wire pop = mx_r_hs && m_axi_rid == gi && mq_beat[8*gi +: 8] == mq_len[8*RD*gi +: 8];
        wire push = mx_ar_hs && m_axi_arid == gi;
        wire [RDB-1:0] n = mq_n[RDB*gi +: RDB];
        integer j;
        always @(posedge clk)
            if (rst) begin
                mq_n[RDB*gi +: RDB] <= 0;
                mq_beat[8*gi +: 8] <= 0;
            end else begin
                if (mx_r_hs && m_axi_rid == gi) mq_beat[8*gi +: 8] <= pop ? 8'd0 : mq_beat[8*gi +: 8] + 8'd1;
                if (pop)
                    for (j = 0; j + 1 < RD; j = j + 1) begin
                        mq_addr[AB*(RD*gi+j) +: AB] <= mq_addr[AB*(RD*gi+j+1) +: AB];
                        mq_len[8*(RD*gi+j) +: 8] <= mq_len[8*(RD*gi+j+1) +: 8];
                        mq_size[3*(RD*gi+j) +: 3] <= mq_size[3*(RD*gi+j+1) +: 3];
                    end
                if (push)
                    for (j = 0; j < RD; j = j + 1)
                        if (j == n - pop) begin
                            mq_addr[AB*(RD*gi+j) +: AB] <= m_axi_araddr;
                            mq_len[8*(RD*gi+j) +: 8] <= m_axi_arlen;
                            mq_size[3*(RD*gi+j) +: 3] <= m_axi_arsize;
                        end
                mq_n[RDB*gi +: RDB] <= n + push - pop;
            end
    end endgenerate
    always @* if (!rst) begin
        // AR: taken only with room in its ID's queue.
        if (m_axi_arvalid && ar_n == RD) assume(!m_axi_arready);
        // R: only a burst that was accepted; held while not ready; rlast on the last beat;
        // no EXOKAY (no exclusive access).
        if (m_axi_rvalid) begin
            assume(r_n != 0);
            assume(m_axi_rlast == (r_beat == r_len));
            assume(m_axi_rresp != 2'd1);
        end
        if (mx_r_wait) assume(m_axi_rvalid && m_axi_rid == rid_q && m_axi_rdata == mx_rdata_q
            && m_axi_rresp == mx_rresp_q && m_axi_rlast == rlast_q);
    end
    always @* if (rst) assume(!m_axi_rvalid);
`ifdef FORMAL_DIRECTED
    // A directed environment (src/formal/mod.rs): the slave takes every request it has room
    // for, answers each read beat as soon as a burst is queued, and answers OKAY.
    always @* if (!rst) begin
        if (ar_n != RD) assume(m_axi_arready);
        assume(m_axi_rvalid == (mq_n != 0));
        assume(m_axi_rresp == 2'd0);
    end
`endif

"#;

const TEMPLATE_WRITE: &str = r#"    // Writes: accepted AW bursts (address, awlen, awsize, awid) in order; W beats in a FIFO;
    // the head beat is performed once its burst's AW is there; then B, in order.
    wire mx_aw_hs = m_axi_awvalid && m_axi_awready;
    wire mx_w_hs = m_axi_wvalid && m_axi_wready;
    wire mx_b_hs = m_axi_bvalid && m_axi_bready;
    reg [AB*WD-1:0] aq_addr;
    reg [8*WD-1:0] aq_len;
    reg [3*WD-1:0] aq_size;
    reg [WDB-1:0] aq_n;
    reg [7:0] w_beat;                   // beats of the head burst performed
    reg [(8*MB+MB+1)*WF-1:0] wf;        // W beats taken: {wlast, wstrb, wdata}
    reg [WFB-1:0] wf_n;
    reg [SBP-1:0] w_touched;            // bytes the head burst wrote so far
    reg [SBP*WD-1:0] bq_touched;        // bursts performed, waiting for their B
    reg [WDB-1:0] bq_n;
    reg mx_b_wait;
    reg [1:0] mx_bresp_q;
    reg bid_q;
    localparam WFW = 8*MB + MB + 1;
    wire [8*MB-1:0] wh_data = wf[8*MB-1:0];
    wire [MB-1:0] wh_strb = wf[8*MB +: MB];
    wire wh_last = wf[8*MB+MB];
    wire [AB-1:0] wh_addr0 = aq_addr[AB-1:0];
    wire [7:0] wh_len = aq_len[7:0];
    wire [2:0] wh_size = aq_size[2:0];
    // A beat is performed when the FIFO has one and its burst's AW was accepted.
    wire w_do = wf_n != 0 && aq_n != 0 && !(w_beat == wh_len && bq_n == WD);
    wire w_end = w_do && w_beat == wh_len;
    wire [AB-1:0] wh_beat_addr = ((wh_addr0 >> wh_size) + w_beat) << wh_size;
    wire [AB-1:0] wh_word = wh_beat_addr & ~(MB - 1);
    wire mx_b_err_hs = mx_b_hs && m_axi_bresp != 2'd0;
    wire [SBP-1:0] mx_b_touched = bq_touched[SBP-1:0];
    wire mx_w_perform = w_do;
    wire [MB-1:0] mx_w_strb = wh_strb;
    wire [AB-1:0] mx_w_word = wh_word;
    wire [8*MB-1:0] mx_w_data = wh_data;
    reg [SBP-1:0] w_touch_now;
    always @* begin
        w_touch_now = 0;
        for (mi4 = 0; mi4 < MB; mi4 = mi4 + 1)
            if (wh_strb[mi4] && soff(wh_word + mi4) < SBY) w_touch_now[sidx(wh_word + mi4)] = 1'b1;
    end
    always @(posedge clk) begin
        mx_b_wait <= !rst && m_axi_bvalid && !m_axi_bready;
        mx_bresp_q <= m_axi_bresp;
        bid_q <= m_axi_bid;
        if (rst) begin
            aq_n <= 0;
            wf_n <= 0;
            bq_n <= 0;
            w_beat <= 0;
            w_touched <= 0;
        end else begin
            // AW queue.
            if (w_end)
                for (mj5 = 0; mj5 + 1 < WD; mj5 = mj5 + 1) begin
                    aq_addr[AB*mj5 +: AB] <= aq_addr[AB*(mj5+1) +: AB];
                    aq_len[8*mj5 +: 8] <= aq_len[8*(mj5+1) +: 8];
                    aq_size[3*mj5 +: 3] <= aq_size[3*(mj5+1) +: 3];
                end
            if (mx_aw_hs)
                for (mj5 = 0; mj5 < WD; mj5 = mj5 + 1)
                    if (mj5 == aq_n - w_end) begin
                        aq_addr[AB*mj5 +: AB] <= m_axi_awaddr;
                        aq_len[8*mj5 +: 8] <= m_axi_awlen;
                        aq_size[3*mj5 +: 3] <= m_axi_awsize;
                    end
            aq_n <= aq_n + mx_aw_hs - w_end;
            // W FIFO.
            if (w_do)
                for (mj5 = 0; mj5 + 1 < WF; mj5 = mj5 + 1) wf[WFW*mj5 +: WFW] <= wf[WFW*(mj5+1) +: WFW];
            if (mx_w_hs)
                for (mj5 = 0; mj5 < WF; mj5 = mj5 + 1)
                    if (mj5 == wf_n - w_do) wf[WFW*mj5 +: WFW] <= {m_axi_wlast, m_axi_wstrb, m_axi_wdata};
            wf_n <= wf_n + mx_w_hs - w_do;
            if (w_do) w_beat <= w_end ? 8'd0 : w_beat + 8'd1;
            // B queue: a burst's bytes, for an error answer.
            if (w_do) w_touched <= w_end ? 0 : (w_touched | w_touch_now);
            if (mx_b_hs)
                for (mj5 = 0; mj5 + 1 < WD; mj5 = mj5 + 1)
                    bq_touched[SBP*mj5 +: SBP] <= bq_touched[SBP*(mj5+1) +: SBP];
            if (w_end)
                for (mj5 = 0; mj5 < WD; mj5 = mj5 + 1)
                    if (mj5 == bq_n - mx_b_hs) bq_touched[SBP*mj5 +: SBP] <= w_touched | w_touch_now;
            bq_n <= bq_n + w_end - mx_b_hs;
        end
    end
    always @* if (!rst) begin
        if (m_axi_awvalid && aq_n == WD) assume(!m_axi_awready);
        if (m_axi_wvalid && wf_n == WF) assume(!m_axi_wready);
        if (m_axi_bvalid) begin
            assume(bq_n != 0);
            assume(m_axi_bid == 1'b0);
            assume(m_axi_bresp != 2'd1);
        end
        if (mx_b_wait) assume(m_axi_bvalid && m_axi_bresp == mx_bresp_q && m_axi_bid == bid_q);
    end
    always @* if (rst) assume(!m_axi_bvalid);
`ifdef FORMAL_DIRECTED
    always @* if (!rst) begin
        if (aq_n != WD) assume(m_axi_awready);
        if (wf_n != WF) assume(m_axi_wready);
        assume(m_axi_bvalid == (bq_n != 0));
        assume(m_axi_bresp == 2'd0);
    end
`endif

"#;

const TEMPLATE_SHADOW: &str = r#"    // The shadow of the state area: a byte and its valid bit per byte of STATE_BYTES.
    reg [8*SBP-1:0] sh_data;
    reg [SBP-1:0] sh_valid;
    always @(posedge clk) begin
        if (rst || mx_move) sh_valid <= 0;
        else begin
            // An error B leaves its burst's bytes arbitrary; a beat performed at the same
            // edge is newer and wins.
            if (mx_b_err_hs) sh_valid <= sh_valid & ~mx_b_touched;
            if (mx_w_perform)
                for (mi6 = 0; mi6 < MB; mi6 = mi6 + 1)
                    if (mx_w_strb[mi6] && soff(mx_w_word + mi6) < SBY) begin
                        sh_data[8*sidx(mx_w_word + mi6) +: 8] <= mx_w_data[8*mi6 +: 8];
                        sh_valid[sidx(mx_w_word + mi6)] <= 1'b1;
                    end
        end
    end
    // Read data: the shadow's valid bytes of an OKAY beat; any other byte is free.
    genvar gl;
    generate for (gl = 0; gl < MB; gl = gl + 1) begin : rlane
        wire [AB-1:0] off = soff(r_word + gl);
        wire [SBI-1:0] idx = off;
        always @* if (!rst && m_axi_rvalid && m_axi_rresp == 2'd0 && off < SBY && sh_valid[idx])
            assume(m_axi_rdata[8*gl +: 8] == sh_data[8*idx +: 8]);
    end endgenerate

"#;

const TEMPLATE_P3_READ: &str = r#"    // P3, the AXI4 master (SPEC §4, §9, AXI4).
    reg mar_wait;
    reg [AB+8+3+2+1+4+3+@IDW@-1:0] mar_q;
    wire [AB+8+3+2+1+4+3+@IDW@-1:0] mar_pl = {m_axi_araddr, m_axi_arlen, m_axi_arsize, m_axi_arburst,
        m_axi_arlock, m_axi_arcache, m_axi_arprot, m_axi_arid};
    always @(posedge clk) begin
        mar_wait <= !rst && m_axi_arvalid && !m_axi_arready;
        mar_q <= mar_pl;
    end
    wire mx_is_state = @IS_STATE@;
    wire mx_is_dir = @IS_DIR@;
    wire [12:0] ar_bytes = ({5'd0, m_axi_arlen} + 13'd1) << m_axi_arsize;
`ifdef FORMAL_P3_MASTER
    always @* if (!rst) begin
        if (mar_wait) assert(m_axi_arvalid && mar_pl == mar_q);
        if (m_axi_arvalid) begin
            assert(m_axi_arburst == 2'd1 && !m_axi_arlock && m_axi_arsize <= @LMB@);
            assert(mx_is_state || mx_is_dir);
            // No burst crosses a 4 KB boundary (INCR, aligned to its size).
            assert({1'b0, m_axi_araddr[11:0]} + ar_bytes <= 13'h1000);
            if (mx_is_state) assert(m_axi_arlen == @BEATS@ - 1 && m_axi_arsize == @ARSIZE@);
            if (mx_is_dir) assert(m_axi_arlen == 0 && m_axi_arsize == @LMB@
                && m_axi_araddr[@LMB@-1:0] == 0);
        end
        // Checked when valid rises (a request held across a move keeps its address).
        if (m_axi_arvalid && !mar_wait) begin
            if (mx_is_state) assert((m_axi_araddr & (BB - 1)) == 0 && in_state(m_axi_araddr, BB));
@DIR_CHECK@        end
    end
`endif

"#;

const TEMPLATE_P3_WRITE: &str = r#"    reg maw_wait, mw_wait;
    reg [AB+8+3+2+1+4+3+1-1:0] maw_q;
    reg [8*MB+MB+1-1:0] mw_q;
    wire [AB+8+3+2+1+4+3+1-1:0] maw_pl = {m_axi_awaddr, m_axi_awlen, m_axi_awsize, m_axi_awburst,
        m_axi_awlock, m_axi_awcache, m_axi_awprot, m_axi_awid};
    wire [8*MB+MB+1-1:0] mw_pl = {m_axi_wlast, m_axi_wstrb, m_axi_wdata};
    always @(posedge clk) begin
        maw_wait <= !rst && m_axi_awvalid && !m_axi_awready;
        mw_wait <= !rst && m_axi_wvalid && !m_axi_wready;
        maw_q <= maw_pl;
        mw_q <= mw_pl;
    end
    wire [AB-1:0] aw_a0 = (m_axi_awaddr >> m_axi_awsize) << m_axi_awsize;
    wire [12:0] aw_bytes = ({5'd0, m_axi_awlen} + 13'd1) << m_axi_awsize;
`ifdef FORMAL_P3_MASTER
    always @* if (!rst) begin
        if (maw_wait) assert(m_axi_awvalid && maw_pl == maw_q);
        if (mw_wait) assert(m_axi_wvalid && mw_pl == mw_q);
        if (m_axi_awvalid) begin
            assert(m_axi_awburst == 2'd1 && !m_axi_awlock && m_axi_awsize <= @LMB@ && m_axi_awid == 1'b0);
            assert({1'b0, aw_a0[11:0]} + aw_bytes <= 13'h1000);
        end
        // Every write inside [STATE_BASE, STATE_BASE + STATE_BYTES): the whole burst when its
        // AW rises, and each strobed byte of each beat when it is performed.
        if (m_axi_awvalid && !maw_wait) begin
            assert(in_state(m_axi_awaddr, 1));
            if (BB >= MB) assert(in_state(aw_a0, aw_bytes));
        end
        if (w_do) assert(wh_last == (w_beat == wh_len));
    end
    genvar gw;
    generate for (gw = 0; gw < MB; gw = gw + 1) begin : wlane
        always @* if (!rst && w_do && wh_strb[gw]) assert(in_state(wh_word + gw, 1));
    end endgenerate
`endif

"#;

const TEMPLATE_REACH: &str = r#"`ifdef FORMAL_REACH_CMD_MEM_ERROR
    // One AXI4-Lite read at a time here (no AR until the previous R handshake): a read of
    // CMD_RESULT with status MEM_ERROR (5), not busy, must be reachable.
    reg lr_pend, lr_cmd;
    always @(posedge clk)
        if (rst) lr_pend <= 1'b0;
        else if (s_axil_arvalid && s_axil_arready) begin
            lr_pend <= 1'b1;
            lr_cmd <= s_axil_araddr[11:2] == @CMD_RESULT@;
        end else if (s_axil_rvalid && s_axil_rready) lr_pend <= 1'b0;
    always @* begin
        if (lr_pend) assume(!s_axil_arvalid);
        if (!rst && s_axil_rvalid && lr_pend && lr_cmd && s_axil_rresp == 2'd0)
            assert(!(s_axil_rdata[31:28] == 4'd5 && !s_axil_rdata[27]));
    end
`endif
`ifdef FORMAL_REACH_MOVE
    // An OKAY STATE_BASE write after a command's write response must be reachable.
    reg mx_cmd_done;
    always @(posedge clk)
        if (rst) mx_cmd_done <= 1'b0;
        else if (b_hs && lb_pend && lb_word == @CMD@) mx_cmd_done <= 1'b1;
    always @* if (!rst && mx_cmd_done) assert(!(lb_ok && lb_is_sb && sbase_new != sbase));
`endif
"#;
