//! The top level's own registers and the wiring of the memory port with the state in memory
//! (SPEC §9): [`QpTable::registers`] and [`QpTable::state_mem_wiring`], called by
//! [`QpTable::wiring`](super::QpTable).

use super::super::mem_writer::MEM_DATA_BITS_MAX;
use super::super::miss_unit::MissParams;
use super::super::ADDR_BITS;
use super::QpTable;
use std::fmt::Write;

impl QpTable {
    /// The top level's own registers, declared before the wiring uses them:
    ///
    /// - `rst_r`, `rst` registered once. Every block takes it, so no block's logic follows a
    ///   top-level input through its reset (Verilator evaluates a block whose logic follows an
    ///   input again at every change of the inputs, besides once after each edge: the state in
    ///   memory ran at half speed for it). The blocks reset one edge after `rst`: after the edge
    ///   that samples `rst` high, `rst_r` is high for one cycle, and in that cycle every
    ///   handshake output is held low (`gate`) whatever the blocks show, so no transfer is
    ///   taken while a block still runs that the next edge resets.
    /// - State in memory: `miss_r_*`, the miss unit's R beats (handshake, data, response,
    ///   last) registered, so no logic of the miss unit follows `m_axi_r*` combinationally;
    ///   `eng_r_valid`, the command engine's handshakes (ID 1), with the same data.
    pub(super) fn registers(&self) -> String {
        let mut v = String::from(
            "reg rst_r;\n\
             always @(posedge clk) rst_r <= rst;\n",
        );
        let mut init = vec!["rst_r = 1'b0;".to_string()];
        if self.params.state_mem.is_some() {
            let bus = self.params.mem_data_bits as usize;
            let (mine, eng) = if self.params.dir_in_memory() {
                ("(m_axi_rid == 2'd0)", "(m_axi_rid == 2'd1)")
            } else {
                ("~m_axi_rid", "m_axi_rid")
            };
            let _ = write!(
                v,
                "reg miss_r_valid;\n\
                 reg eng_r_valid;\n\
                 reg [{dm}:0] miss_r_data;\n\
                 reg [1:0] miss_r_resp;\n\
                 reg miss_r_last;\n\
                 always @(posedge clk) begin\n\
                 \x20   miss_r_valid <= ~rst_r & m_axi_rvalid & m_axi_rready & {mine};\n\
                 \x20   eng_r_valid <= ~rst_r & m_axi_rvalid & m_axi_rready & {eng};\n\
                 \x20   miss_r_data <= m_axi_rdata;\n\
                 \x20   miss_r_resp <= m_axi_rresp;\n\
                 \x20   miss_r_last <= m_axi_rlast;\n\
                 end\n",
                dm = bus - 1
            );
            init.push("miss_r_valid = 1'b0;".into());
            init.push("eng_r_valid = 1'b0;".into());
            init.push(format!("miss_r_data = {bus}'d0;"));
            init.push("miss_r_resp = 2'd0;".into());
            init.push("miss_r_last = 1'b0;".into());
        }
        // Initial values for event-driven simulators, as rust-hdl gives its flip-flops (see
        // `MemFifo`); yosys defines SYNTHESIS.
        let _ = writeln!(
            v,
            "`ifndef SYNTHESIS\ninitial begin\n{}\nend\n`endif",
            init.iter()
                .map(|l| format!("    {l}"))
                .collect::<Vec<_>>()
                .join("\n")
        );
        v
    }

    /// The wiring of the state in memory (SPEC §9): the command engine's STATE_BASE, cache
    /// and hold ports, the miss unit and the cache write bus, the §9 counters' events, and
    /// the memory port: AR shared by the miss unit (ID 0) and the command engine (ID 1), R
    /// sent back by `rid`, AW/W/B the command engine's.
    pub(super) fn state_mem_wiring(
        &self,
        m: &MissParams,
        set: &mut impl FnMut(&str, &str),
        unused: &mut Vec<String>,
        fixed: &mut Vec<String>,
    ) {
        let addr = self.params.addr_bits as usize;
        let bus = self.params.mem_data_bits as usize;
        let n = self.port_names.len();
        set("engine$state_base", "regs$state_base$0");
        set("engine$state_base_wr", "regs$state_base_wr$0");
        set("engine$cache_swept", "cw$swept");
        set("engine$busy", "miss$busy");
        set("engine$inv_done", "cw$inv_done");
        set("miss$clock", "clk");
        set("miss$rst", "rst_r");
        set("miss$state_base", "regs$state_base$0");
        set("miss$busy_block", "engine$busy_block");
        set("miss$hold_valid", "engine$hold_valid");
        set("miss$hold_block", "engine$hold_block");
        set("cw$clock", "clk");
        set("cw$rst", "rst_r");
        for k in 0..self.live.len() {
            set(&format!("live_{k}$clock"), "clk");
            for s in ["live_we", "live_waddr", "live_wdata"] {
                set(&format!("live_{k}${s}"), &format!("engine${s}"));
            }
        }
        for s in [
            "cw_valid", "cw_line", "cw_block", "cw_beat", "cw_last", "cw_data",
        ] {
            set(&format!("cw${s}"), &format!("miss${s}"));
        }
        set("cw$inv_valid", "engine$inv_valid");
        set("cw$inv_line", "engine$inv_line");
        // The §9 counters: events of this cycle, summed over the ports.
        let sum = |s: &str| -> String {
            (0..n)
                .map(|i| format!("{{31'd0, {}${s}$0}}", self.pipe_name(i)))
                .collect::<Vec<_>>()
                .join(" + ")
        };
        set("regs$ev_hit$0", &sum("hit"));
        set("regs$ev_miss$0", &sum("miss"));
        set("regs$ev_filtered$0", &sum("filtered"));
        set("regs$ev_merged$0", "{31'd0, miss$taken_merged}");
        set("regs$ev_reads$0", "{31'd0, m_axi_arvalid & m_axi_arready}");
        set("regs$ev_writes$0", "{31'd0, m_axi_awvalid & m_axi_awready}");
        unused.push("miss$taken_new".into());
        unused.push("miss$taken_slot".into());
        // AR.
        set("arb$clock", "clk");
        set("arb$rst", "rst_r");
        // The miss unit's reads through the register slice (its `arlen` is a constant).
        set("ar_skid$clock", "clk");
        set("ar_skid$rst", "rst_r");
        set("ar_skid$in_valid", "miss$arvalid");
        set("ar_skid$data_in", "miss$araddr");
        set("miss$arready", "ar_skid$in_ready");
        set("arb$a_valid", "ar_skid$out_valid");
        set("arb$a_addr", "ar_skid$data_out");
        set("ar_skid$out_ready", "arb$a_ready");
        set("arb$a_len", "miss$arlen");
        // The command engine's too (its `arlen` is a constant as well).
        set("eng_ar_skid$clock", "clk");
        set("eng_ar_skid$rst", "rst_r");
        set("eng_ar_skid$in_valid", "engine$c_arvalid");
        set("eng_ar_skid$data_in", "engine$c_araddr");
        set("engine$c_arready", "eng_ar_skid$in_ready");
        set("arb$b_valid", "eng_ar_skid$out_valid");
        set("arb$b_addr", "eng_ar_skid$data_out");
        set("eng_ar_skid$out_ready", "arb$b_ready");
        set("arb$b_len", "engine$c_arlen");
        set("arb$arready", "m_axi_arready");
        set("m_axi_arvalid", "arb$arvalid & ~rst_r");
        let dir = self.params.dir_in_memory();
        if dir {
            // The directory's reads (single beats of the bus width), ID 2.
            set("arb$c_valid$0", "fetch$arvalid");
            set("arb$c_addr$0", "fetch$araddr");
            set("fetch$arready", "arb$c_ready$0");
            set("m_axi_arid", "arb$arid");
        } else {
            set("m_axi_arid", "arb$arid[0:0]");
            unused.push("arb$arid[1:1]".into());
        }
        set("m_axi_arlen", "arb$arlen");
        set("m_axi_araddr", &format!("arb$araddr[{}:0]", addr - 1));
        if addr < ADDR_BITS {
            unused.push(format!("arb$araddr[{}:{addr}]", ADDR_BITS - 1));
        }
        unused.push("miss$arsize".into());
        unused.push("miss$arburst".into());
        let arsize = format!("3'd{}", m.arsize());
        let awsize = format!("3'd{}", (bus / 8).trailing_zeros());
        // `arsize`: the miss unit's and the command engine's block reads (the block, at most
        // the bus width); with the directory too, its reads (ID 2) are whole bus words.
        let dir_arsize = format!(
            "m_axi_arid[1] ? 3'd{} : {arsize}",
            (bus / 8).trailing_zeros()
        );
        let arsize = if dir { dir_arsize } else { arsize };
        for (s, w, value) in [
            ("arsize", 3, arsize.as_str()),
            ("arburst", 2, "2'd1"),
            ("arlock", 1, "1'b0"),
            ("arcache", 4, "4'b0011"),
            ("arprot", 3, "3'd0"),
            ("awid", 1, "1'b0"),
            ("awsize", 3, awsize.as_str()),
            ("awburst", 2, "2'd1"),
            ("awlock", 1, "1'b0"),
            ("awcache", 4, "4'b0011"),
            ("awprot", 3, "3'd0"),
        ] {
            fixed.push(format!("wire [{}:0] m_axi_{s}_value = {value};", w - 1));
            set(&format!("m_axi_{s}"), &format!("m_axi_{s}_value"));
        }
        // R, back by ID.
        if dir {
            let rdata = if bus < MEM_DATA_BITS_MAX {
                format!("{{{}'d0, m_axi_rdata}}", MEM_DATA_BITS_MAX - bus)
            } else {
                "m_axi_rdata".into()
            };
            // A reader sees a beat only when it moves (`rready` may be low for another
            // reader's sake).
            set(
                "fetch$rvalid",
                "m_axi_rvalid & m_axi_rready & (m_axi_rid == 2'd2)",
            );
            // Every reader says whether it would take a beat of its ID now, from its registers
            // alone: `rready` is their AND, so it does not follow `rid` (SPEC §4: no output of
            // the memory port depends combinationally on an input).
            set(
                "m_axi_rready",
                "fetch$rready & engine$c_rready & ~eng_r_valid & miss$rready",
            );
            set("fetch$rdata", &rdata);
            set("fetch$rresp", "m_axi_rresp");
            set("fetch$rlast", "m_axi_rlast");
        } else {
            // A reader sees a beat only when it moves (`rready` may be low for another
            // reader's sake).
            set(
                "m_axi_rready",
                "engine$c_rready & ~eng_r_valid & miss$rready",
            );
        }
        // The registered beat, at the readers' width.
        let r_data = if bus < MEM_DATA_BITS_MAX {
            format!("{{{}'d0, miss_r_data}}", MEM_DATA_BITS_MAX - bus)
        } else {
            "miss_r_data".to_string()
        };
        // The engine's beats one edge after their handshake too (`eng_r_valid`, `registers`,
        // with the miss unit's `miss_r_*` data); `rready` stays low in that cycle (the engine
        // takes the beat at the next edge, and holds `c_rready` low while it scans it).
        set("engine$c_rvalid", "eng_r_valid");
        set("engine$c_rdata", &r_data);
        set("engine$c_rresp", "miss_r_resp");
        set("engine$c_rlast", "miss_r_last");
        // The miss unit's beats one edge after their handshake (`miss_r_*`, `registers`).
        set("miss$rvalid", "miss_r_valid");
        set("miss$rdata", &r_data);
        set("miss$rresp", "miss_r_resp");
        set("miss$rlast", "miss_r_last");
        // AW, W, B: the command engine's writes, through its writer (`mem_wr`).
        set("mem_wr$clock", "clk");
        set("mem_wr$rst", "rst_r");
        for p in ["valid", "addr", "last", "beat", "data", "strb"] {
            set(&format!("mem_wr$req_{p}"), &format!("engine$wr_req_{p}"));
        }
        set("engine$wr_req_ready", "mem_wr$req_ready");
        set("engine$wr_done", "mem_wr$done");
        set("engine$wr_error", "mem_wr$error");
        set("m_axi_awvalid", "mem_wr$awvalid & ~rst_r");
        set("mem_wr$awready", "m_axi_awready");
        set("m_axi_awaddr", &format!("mem_wr$awaddr[{}:0]", addr - 1));
        if addr < ADDR_BITS {
            unused.push(format!("mem_wr$awaddr[{}:{addr}]", ADDR_BITS - 1));
        }
        set("m_axi_awlen", "mem_wr$awlen");
        set("m_axi_wvalid", "mem_wr$wvalid & ~rst_r");
        set("mem_wr$wready", "m_axi_wready");
        set("m_axi_wdata", &format!("mem_wr$wdata[{}:0]", bus - 1));
        set("m_axi_wstrb", &format!("mem_wr$wstrb[{}:0]", bus / 8 - 1));
        if bus < MEM_DATA_BITS_MAX {
            unused.push(format!("mem_wr$wdata[{}:{bus}]", MEM_DATA_BITS_MAX - 1));
            unused.push(format!(
                "mem_wr$wstrb[{}:{}]",
                MEM_DATA_BITS_MAX / 8 - 1,
                bus / 8
            ));
        }
        set("m_axi_wlast", "mem_wr$wlast");
        set("mem_wr$bvalid", "m_axi_bvalid");
        set("mem_wr$bresp", "m_axi_bresp");
        set("m_axi_bready", "mem_wr$bready");
        unused.push("m_axi_bid".into());
    }
}
