//! P3 on the control port: the AXI4-Lite slave of SPEC §4 and §6, stated on its ports.
//!
//! - B and R are held (valid and payload) while `valid && !ready`; no R without an accepted
//!   read, no B without an accepted write (the latter is P2's).
//! - A write answers by the register map: SLVERR for a read-only or unmapped word, OKAY for
//!   CMD and DIR_ENTRY_*, OKAY for DIR_INDEX exactly when the value it would hold (the old one
//!   merged with the strobed bytes) names a directory entry; TABLE_BASE and STATE_BASE may
//!   answer either (SLVERR while QPs are in use), and an OKAY one changes the register by its
//!   strobes.
//! - A read answers SLVERR exactly for an unmapped word (CMD included), and the data of every
//!   register whose value the datasheet fixes: the constants (ID, VERSION, MAX_QPS, ENTRY_BYTES,
//!   GEOMETRY, FIRST_INDEX, STATE_BYTES, the cache counters with the state on chip), and
//!   TABLE_BASE, STATE_BASE and DIR_INDEX as the accepted writes left them (when no write was
//!   in progress while the read was: SPEC does not order the two then).
//!
//! The register map comes from the reference model (`Model::read_register`, written from
//! SPEC §6), never from the design.

use crate::config::{Config, Directory, Mode, State};
use crate::model::Model;
use crate::spec::regs;
use std::fmt::Write as _;

/// What a write to a word answers (SPEC §6).
#[derive(Clone, Copy, PartialEq, Eq)]
enum WriteRule {
    /// Read-only or unmapped: SLVERR.
    Slverr,
    /// CMD, DIR_ENTRY_*: OKAY.
    Okay,
    /// TABLE_BASE, STATE_BASE: OKAY or SLVERR (IN_USE, QUARANTINED), OKAY writes by strobes.
    Either,
    /// DIR_INDEX: OKAY exactly when the merged value is below the directory's entry count.
    DirIndex,
}

/// The property block (inside `ifdef FORMAL_P3`) for `cfg`, using the harness's AXI4-Lite
/// signals (`aw_hs`, `w_hs`, `b_hs`, `wr_accept`, `wr_addr`, `wr_data`, `wr_strb`,
/// `aw_taken`, `w_taken`).
pub(super) fn properties(cfg: &Config) -> String {
    let model = Model::new(cfg);
    let state_mem = cfg.state == State::InMemory;
    let dir_on_chip = cfg.mode == Mode::TwoLevel && cfg.directory == Directory::OnChip;
    let addr_mask: u64 = if cfg.addr_bits >= 64 {
        u64::MAX
    } else {
        (1u64 << cfg.addr_bits) - 1
    };

    // Every word of the 4 KiB map: readable (and constant?), and its write rule.
    let mut mapped = Vec::new();
    let mut constants = Vec::new();
    let mut writes = Vec::new();
    for word in 0..1024u32 {
        let addr = word << 2;
        let readable = model.read_register(addr).is_ok();
        if readable {
            mapped.push(word);
        }
        let constant = matches!(
            addr,
            regs::ID
                | regs::VERSION
                | regs::MAX_QPS
                | regs::ENTRY_BYTES
                | regs::GEOMETRY
                | regs::FIRST_INDEX
        ) || (state_mem && addr == regs::STATE_BYTES)
            || (!state_mem && regs::MEM_COUNTERS.contains(&addr));
        if constant {
            constants.push((
                word,
                model.read_register(addr).expect("a constant is mapped"),
            ));
        }
        let rule = match addr {
            regs::CMD => WriteRule::Okay,
            regs::TABLE_BASE_LO | regs::TABLE_BASE_HI => WriteRule::Either,
            regs::STATE_BASE_LO | regs::STATE_BASE_HI if state_mem => WriteRule::Either,
            regs::DIR_INDEX if dir_on_chip => WriteRule::DirIndex,
            regs::DIR_ENTRY_LO | regs::DIR_ENTRY_HI if dir_on_chip => WriteRule::Okay,
            _ => WriteRule::Slverr,
        };
        if rule != WriteRule::Slverr {
            writes.push((word, rule));
        }
    }
    let case_items = |words: &[u32]| -> String {
        words
            .iter()
            .map(|w| format!("10'd{w}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let word = |addr: u32| addr >> 2;

    let mut s = String::new();
    let _ = write!(
        s,
        "    // The control port's register map (SPEC §6) and the reads in flight (P3, REACH_FULL).
    function automatic p3_mapped(input [9:0] w);          // a read answers OKAY
        case (w)
            {mapped}: p3_mapped = 1'b1;
            default: p3_mapped = 1'b0;
        endcase
    endfunction
    function automatic p3_constant(input [9:0] w);        // its value is fixed
        case (w)
            {const_words}: p3_constant = 1'b1;
            default: p3_constant = 1'b0;
        endcase
    endfunction
    function automatic [31:0] p3_value(input [9:0] w);    // that value
        case (w)
",
        mapped = case_items(&mapped),
        const_words = case_items(&constants.iter().map(|c| c.0).collect::<Vec<_>>()),
    );
    for (w, v) in &constants {
        let _ = writeln!(s, "            10'd{w}: p3_value = 32'h{v:08x};");
    }
    let _ = write!(
        s,
        "            default: p3_value = 32'h0;
        endcase
    endfunction
    // The write rule: 0 SLVERR, 1 OKAY, 2 either, 3 DIR_INDEX (OKAY iff the value is in range).
    function automatic [1:0] p3_write_rule(input [9:0] w);
        case (w)
"
    );
    for (w, rule) in &writes {
        let code = match rule {
            WriteRule::Slverr => 0,
            WriteRule::Okay => 1,
            WriteRule::Either => 2,
            WriteRule::DirIndex => 3,
        };
        let _ = writeln!(s, "            10'd{w}: p3_write_rule = 2'd{code};");
    }
    let _ = write!(
        s,
        "            default: p3_write_rule = 2'd0;
        endcase
    endfunction
    function automatic [31:0] p3_merge(input [31:0] old, input [31:0] data, input [3:0] strb);
        p3_merge = {{strb[3] ? data[31:24] : old[31:24], strb[2] ? data[23:16] : old[23:16],
                    strb[1] ? data[15:8] : old[15:8], strb[0] ? data[7:0] : old[7:0]}};
    endfunction

    wire ar_hs = s_axil_arvalid && s_axil_arready;
    wire r_hs = s_axil_rvalid && s_axil_rready;
    reg b_wait, r_wait;                 // valid high and not taken at the last edge
    reg [1:0] bresp_q, rresp_q;
    reg [31:0] rdata_q;
    always @(posedge clk) begin
        b_wait <= !rst && s_axil_bvalid && !s_axil_bready;
        r_wait <= !rst && s_axil_rvalid && !s_axil_rready;
        bresp_q <= s_axil_bresp;
        rresp_q <= s_axil_rresp;
        rdata_q <= s_axil_rdata;
    end
`ifdef FORMAL_P3
    always @* if (!rst) begin
        if (b_wait) assert(s_axil_bvalid && s_axil_bresp == bresp_q);
        if (r_wait) assert(s_axil_rvalid && s_axil_rresp == rresp_q && s_axil_rdata == rdata_q);
    end
`endif

    // The write in progress (accepted, B not yet taken) and the registers it may change.
    reg b_due;
    reg [9:0] bw_word;
    reg [31:0] bw_data;
    reg [3:0] bw_strb;
    reg [63:0] table_base;              // as the accepted writes left it (addr_bits bits)
    reg [63:0] state_base;
    reg [31:0] dir_index;
    wire [31:0] dir_index_new = p3_merge(dir_index, bw_data, bw_strb);
    wire dir_index_ok = dir_index_new < 32'd{dir_entries};
    always @(posedge clk) begin
        if (rst) begin
            b_due <= 1'b0;
            table_base <= 64'd0;
            state_base <= 64'd0;
            dir_index <= 32'd0;
        end else begin
            if (wr_accept) begin
                b_due <= 1'b1;
                bw_word <= wr_addr[11:2];
                bw_data <= wr_data;
                bw_strb <= wr_strb;
            end else if (b_hs) b_due <= 1'b0;
            if (b_hs && b_due && s_axil_bresp == 2'b00) begin
                if (bw_word == 10'd{tb_lo})
                    table_base[31:0] <= p3_merge(table_base[31:0], bw_data, bw_strb) & 32'h{mask_lo:08x};
                if (bw_word == 10'd{tb_hi})
                    table_base[63:32] <= p3_merge(table_base[63:32], bw_data, bw_strb) & 32'h{mask_hi:08x};
                if (bw_word == 10'd{sb_lo})
                    state_base[31:0] <= p3_merge(state_base[31:0], bw_data, bw_strb) & 32'h{mask_lo:08x};
                if (bw_word == 10'd{sb_hi})
                    state_base[63:32] <= p3_merge(state_base[63:32], bw_data, bw_strb) & 32'h{mask_hi:08x};
                if (bw_word == 10'd{di}) dir_index <= dir_index_new;
            end
        end
    end
`ifdef FORMAL_P3
    always @* if (!rst && s_axil_bvalid && b_due)
        case (p3_write_rule(bw_word))
            2'd0: assert(s_axil_bresp == 2'b10);
            2'd1: assert(s_axil_bresp == 2'b00);
            2'd2: assert(s_axil_bresp == 2'b00 || s_axil_bresp == 2'b10);
            default: assert(s_axil_bresp == (dir_index_ok ? 2'b00 : 2'b10));
        endcase
`endif

    // The reads in flight, oldest first (the harness follows two); `r_moved`: a write was in
    // progress while one of them was, so a written register may read either value.
    reg [9:0] rq0, rq1;
    reg [1:0] rq_n;
    reg r_moved;
    wire write_busy = aw_taken || w_taken || aw_hs || w_hs || b_due;
    always @(posedge clk) begin
        if (rst) begin
            rq_n <= 2'd0;
            r_moved <= 1'b0;
        end else begin
            case ({{ar_hs, r_hs}})
                2'b10: begin
                    if (rq_n == 2'd0) rq0 <= s_axil_araddr[11:2];
                    else rq1 <= s_axil_araddr[11:2];
                    rq_n <= rq_n + 2'd1;
                end
                2'b01: begin
                    rq0 <= rq1;
                    rq_n <= rq_n - 2'd1;
                end
                2'b11: begin
                    if (rq_n == 2'd1) rq0 <= s_axil_araddr[11:2];
                    else begin
                        rq0 <= rq1;
                        rq1 <= s_axil_araddr[11:2];
                    end
                end
                default: ;
            endcase
            if (rq_n + ar_hs - r_hs == 2'd0) r_moved <= 1'b0;
            else if (write_busy) r_moved <= 1'b1;
        end
    end
`ifdef FORMAL_REACH_FULL
    // Must fail: a read of CMD_RESULT shows FULL.
    always @* if (!rst && s_axil_rvalid && rq_n != 2'd0 && rq0 == 10'd{cr})
        assert(s_axil_rdata[31:28] != 4'd{full});
`endif
`ifdef FORMAL_P3
    always @* if (!rst) begin
        assert(rq_n <= 2'd2);           // the harness follows two reads
        if (s_axil_rvalid) begin
            assert(rq_n != 2'd0);
            assert(s_axil_rresp == (p3_mapped(rq0) ? 2'b00 : 2'b10));
            if (p3_mapped(rq0) && p3_constant(rq0)) assert(s_axil_rdata == p3_value(rq0));
            if (!r_moved && rq0 == 10'd{tb_lo}) assert(s_axil_rdata == table_base[31:0]);
            if (!r_moved && rq0 == 10'd{tb_hi}) assert(s_axil_rdata == table_base[63:32]);
",
        dir_entries = model.dir_entries(),
        tb_lo = word(regs::TABLE_BASE_LO),
        tb_hi = word(regs::TABLE_BASE_HI),
        sb_lo = word(regs::STATE_BASE_LO),
        sb_hi = word(regs::STATE_BASE_HI),
        di = word(regs::DIR_INDEX),
        cr = word(regs::CMD_RESULT),
        full = crate::spec::CmdStatus::Full.as_u32(),
        mask_lo = addr_mask as u32,
        mask_hi = (addr_mask >> 32) as u32,
    );
    if state_mem {
        let _ = write!(
            s,
            "            if (!r_moved && rq0 == 10'd{sb_lo}) assert(s_axil_rdata == state_base[31:0]);
            if (!r_moved && rq0 == 10'd{sb_hi}) assert(s_axil_rdata == state_base[63:32]);
",
            sb_lo = word(regs::STATE_BASE_LO),
            sb_hi = word(regs::STATE_BASE_HI),
        );
    }
    if dir_on_chip {
        let _ = writeln!(
            s,
            "            if (!r_moved && rq0 == 10'd{di}) assert(s_axil_rdata == dir_index);",
            di = word(regs::DIR_INDEX),
        );
    }
    let _ = write!(
        s,
        "        end
    end
`endif
"
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(sets: &[&str]) -> Config {
        let mut c = Config::default();
        for s in sets {
            c.set(s).unwrap();
        }
        c
    }

    /// The `case` item list of a function of the emitted block.
    fn case_of<'a>(block: &'a str, function: &str, result: &str) -> &'a str {
        let f = block
            .find(&format!("function automatic {function}"))
            .unwrap();
        let line = block[f..]
            .lines()
            .find(|l| l.trim_end().ends_with(&format!("{function} = {result};")))
            .unwrap();
        line.trim().split(':').next().unwrap()
    }

    #[test]
    fn the_map_follows_the_datasheet() {
        let flat = properties(&cfg(&["index_bits=4", "ports=tx"]));
        let mapped = case_of(&flat, "p3_mapped", "1'b1");
        let word = |a: u32| format!("10'd{}", a >> 2);
        for a in [
            regs::ID,
            regs::STATUS,
            regs::CMD_RESULT,
            regs::TABLE_BASE_HI,
            regs::IN_USE,
        ] {
            assert!(
                mapped.split(", ").any(|w| w == word(a)),
                "{a:#x} not mapped"
            );
        }
        // CMD is write-only; DIR_* exist only with the directory on chip; port 1 does not exist.
        for a in [
            regs::CMD,
            regs::DIR_INDEX,
            regs::STATE_BASE_LO,
            0x120,
            0xFFC,
        ] {
            assert!(!mapped.split(", ").any(|w| w == word(a)), "{a:#x} mapped");
        }
        assert!(flat.contains(&format!(
            "{}: p3_value = 32'h{:08x};",
            word(regs::ID),
            regs::ID_VALUE
        )));
        assert!(!flat.contains("assert(s_axil_rdata == dir_index)"));
        let two = properties(&cfg(&["index_bits=4", "mode=two_level", "leaf_bits=1"]));
        assert!(two.contains(&format!("{}: p3_write_rule = 2'd3;", word(regs::DIR_INDEX))));
        assert!(two.contains("dir_index_new < 32'd8"));
        assert!(two.contains("assert(s_axil_rdata == dir_index)"));
    }
}
