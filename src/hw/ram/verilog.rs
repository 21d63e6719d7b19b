//! The Verilog of the RAMs of `ram.rs`, written as text: the generic array that every
//! synthesizer infers as block RAM, and the ECP5 DP16KD primitives with their output
//! registers (see the header of `ram.rs`).

use super::{DP16KD_MIN_DEPTH, DP16KD_ROW_DEPTH};
use crate::config::Fpga;
use rust_hdl::prelude::*;

/// The shape of one emitted RAM.
pub(super) struct Layout {
    pub(super) depth: usize,
    /// Address bits used (the low bits of the ports).
    pub(super) address_bits: usize,
    pub(super) port_address_bits: usize,
    /// Data bits stored (the low bits of the ports).
    pub(super) width: usize,
    pub(super) port_width: usize,
    /// With the output register.
    pub(super) registered: bool,
    /// One more register after the read data ([`Ram::row_registered`]; never with `tdp`).
    pub(super) row_register: bool,
    /// With `row_register`, one more in the middle of the row multiplexer (more than two
    /// rows, [`Ram::row_registered`]).
    pub(super) row_split: bool,
    /// The write port registered once more ([`Ram::write_registered`]; never with `tdp`).
    pub(super) write_register: bool,
    /// The read address registered once more ([`Ram::address_registered`]; never with
    /// `tdp`).
    pub(super) address_register: bool,
    /// True dual port ([`TdpRam`]): the write port also reads, into `a_read_data`.
    pub(super) tdp: bool,
}

impl Layout {
    /// The RAM module's body for `fpga`: DP16KD blocks with `ecp5` from
    /// [`DP16KD_MIN_DEPTH`] words, inferred otherwise; the simulation write range check.
    pub(super) fn emit(&self, fpga: Fpga) -> Verilog {
        let body = match fpga {
            Fpga::Ecp5 if self.depth >= DP16KD_MIN_DEPTH => dp16kd_verilog(self),
            _ => ram_verilog(self),
        };
        Verilog::Custom(body + &write_range_check(self))
    }

    /// `wire _unused_ok` over the unused high bits of the ports, and the zero padding of the
    /// read data (`{N'd0, ` or `{`).
    fn unused_and_pad(&self) -> (String, String) {
        let (a, w) = (self.address_bits, self.width);
        let mut unused = vec!["1'b0".to_string()];
        for port in ["read_address", "write_address"] {
            if a < self.port_address_bits {
                unused.push(format!("{port}[{}:{a}]", self.port_address_bits - 1));
            }
        }
        if w < self.port_width {
            unused.push(format!("write_data[{}:{w}]", self.port_width - 1));
        }
        let pad = if w < self.port_width {
            format!("{{{}'d0, ", self.port_width - w)
        } else {
            "{".to_string()
        };
        (
            format!("wire _unused_ok = &{{{}}};", unused.join(", ")),
            pad,
        )
    }
}

/// The body of an inferred RAM module (`fpga = generic`): `depth` words of `width` bits,
/// addressed by the low `address_bits` of the ports, the read word registered once more when
/// `registered` (UG901 "Block RAM with Optional Output Registers"); the unused high bits of
/// the ports are gathered into `_unused_ok`, the read data zero-filled. In simulation (not
/// under yosys's `SYNTHESIS`) the read registers start at 0, as rust-hdl's DFFs do; the array
/// is not initialised: every reader ignores a word read before it was written.
fn ram_verilog(l: &Layout) -> String {
    let (unused, pad) = l.unused_and_pad();
    let (mut out_decl, mut out_reg, mut out) = if l.registered {
        (
            format!(
                "reg [{}:0] read_q;\n`ifndef SYNTHESIS\ninitial read_q = {}'d0;\n`endif\n",
                l.width - 1,
                l.width
            ),
            "   read_q <= read_word;\n".to_string(),
            "read_q",
        )
    } else {
        (String::new(), String::new(), "read_word")
    };
    // Ram::row_registered: one more register for the latency of the ecp5 flavour
    // (`read_rq`), and with more than two rows one more again (`read_sq`).
    for (on, name) in [(l.row_register, "read_rq"), (l.row_split, "read_sq")] {
        if on {
            out_decl.push_str(&format!(
                "reg [{}:0] {name};\n`ifndef SYNTHESIS\ninitial {name} = {}'d0;\n`endif\n",
                l.width - 1,
                l.width
            ));
            out_reg.push_str(&format!("   {name} <= {out};\n"));
            out = name;
        }
    }
    // Ram::write_registered: the write is registered here and lands one edge later.
    let (w_decl, we, wa, wd) = if l.write_register {
        (
            format!(
                "\
reg we_q;
reg [{am}:0] wa_q;
reg [{wm}:0] wd_q;
`ifndef SYNTHESIS
initial we_q = 1'b0;
`endif
always @(posedge clock) begin
   we_q <= write_enable;
   wa_q <= write_address[{am}:0];
   wd_q <= write_data[{wm}:0];
end
",
                am = l.address_bits - 1,
                wm = l.width - 1,
            ),
            "we_q".to_string(),
            "wa_q".to_string(),
            "wd_q".to_string(),
        )
    } else {
        (
            String::new(),
            "write_enable".to_string(),
            format!("write_address[{}:0]", l.address_bits - 1),
            format!("write_data[{}:0]", l.width - 1),
        )
    };
    // Ram::address_registered: the read address is registered here first.
    let (ra_decl, ra) = if l.address_register {
        (
            format!(
                "\
reg [{am}:0] ra_q;
`ifndef SYNTHESIS
initial ra_q = {ab}'d0;
`endif
always @(posedge clock) ra_q <= read_address[{am}:0];
",
                am = l.address_bits - 1,
                ab = l.address_bits,
            ),
            "ra_q".to_string(),
        )
    } else {
        (
            String::new(),
            format!("read_address[{}:0]", l.address_bits - 1),
        )
    };
    format!(
        "\
reg [{wm}:0] mem [0:{dm}];
reg [{wm}:0] read_word;
`ifndef SYNTHESIS
initial read_word = {w}'d0;
`endif
{out_decl}{unused}

{ra_decl}{w_decl}always @(posedge clock) begin
   read_word <= mem[{ra}];
{out_reg}   if ({we}) begin
      mem[{wa}] <= {wd};
   end
end

always @(*) read_data = {pad}{out}}};
{a_port}",
        wm = l.width - 1,
        w = l.width,
        dm = l.depth - 1,
        w_decl = w_decl,
        we = we,
        wa = wa,
        wd = wd,
        a_port = if l.tdp {
            ram_verilog_a_port(l, &pad)
        } else {
            String::new()
        },
    )
}

/// The read of port A of a true dual-port RAM ([`TdpRam`], `fpga = generic`), as the read of
/// [`ram_verilog`] but at `write_address`: read-first (the write of the same edge is
/// non-blocking, so the read returns the old word), then the output register. UG901's
/// "True Dual-Port Block RAM" templates read each port in its own process as here; Vivado
/// and yosys map the array with two such reads and one write onto one true dual-port block.
fn ram_verilog_a_port(l: &Layout, pad: &str) -> String {
    let (out_decl, out_reg, out) = if l.registered {
        (
            format!(
                "reg [{}:0] a_q;\n`ifndef SYNTHESIS\ninitial a_q = {}'d0;\n`endif\n",
                l.width - 1,
                l.width
            ),
            "   a_q <= a_word;\n",
            "a_q",
        )
    } else {
        (String::new(), "", "a_word")
    };
    format!(
        "\
reg [{wm}:0] a_word;
`ifndef SYNTHESIS
initial a_word = {w}'d0;
`endif
{out_decl}
always @(posedge clock) begin
   a_word <= mem[write_address[{am}:0]];
{out_reg}end

always @(*) a_read_data = {pad}{out}}};
",
        wm = l.width - 1,
        w = l.width,
        am = l.address_bits - 1,
    )
}

/// A simulation-only check (not under yosys's `SYNTHESIS`): a write past the last word stops
/// the simulation. Every writer keeps its addresses in range (the init sweeps stop at the last
/// word, the queues wrap at their depth), so such a write is a design error that the low
/// address bits would otherwise fold onto another word. Reads are not checked: a lookup of an
/// index out of range reads the RAM before its range check discards the word.
fn write_range_check(l: &Layout) -> String {
    if l.depth >= 1 << l.port_address_bits {
        return String::new();
    }
    format!(
        "\
`ifndef SYNTHESIS
always @(posedge clock) begin
   if (write_enable && write_address >= {ab}'d{depth}) begin
      $display(\"ERROR: %m: write to word %0d of a RAM of {depth} words\", write_address);
      $fatal(1);
   end
end
`endif
",
        ab = l.port_address_bits,
        depth = l.depth,
    )
}

/// DP16KD data widths (port B read, port A write) and the words one block holds at each.
const DP16KD_MODES: [(usize, usize); 5] = [(18, 1024), (9, 2048), (4, 4096), (2, 8192), (1, 16384)];

/// The body of a RAM module for `fpga = ecp5`: Lattice DP16KD blocks, port A writes and
/// port B reads, `REGMODE_B = "OUTREG"` when `registered` (the read data leaves the block
/// through its own output register: clock-to-out of the register, not of the array).
///
/// Each block runs at the widest data width whose depth holds the RAM (at most 16384 words at
/// width 1); the word is split over `ceil(width / block_width)` blocks side by side, and a
/// RAM deeper than 16384 words over several rows of blocks: the row is selected by the
/// write enable on the write side and, on the read side, by a multiplexer after the blocks,
/// driven by the high address bits delayed as the read data is (`latency` edges), and with
/// [`Ram::row_registered`] followed by a register.
///
/// Block addresses (Lattice TN1264, "Memory Usage Guide for ECP5 Devices"): the word address
/// sits in the high bits of `AD[13:0]`, `AD[13:4]` at width 18 down to `AD[13:0]` at width 1;
/// at width 18 `ADA[1:0]` are the byte enables of the write (both set). Simultaneous write
/// and read of the same address through the two ports: see the module documentation.
fn dp16kd_verilog(l: &Layout) -> String {
    let (unused, pad) = l.unused_and_pad();
    let rows_depth = l.depth.min(DP16KD_ROW_DEPTH);
    let &(bw, bdepth) = DP16KD_MODES
        .iter()
        .find(|m| m.1 >= rows_depth)
        .unwrap_or(&DP16KD_MODES[4]);
    let rows = l.depth.div_ceil(bdepth);
    let cols = l.width.div_ceil(bw);
    let row_bits = (usize::BITS - (rows - 1).leading_zeros()) as usize;
    // Address bits inside a block, and where they sit in AD[13:0].
    let in_bits = (usize::BITS - (bdepth - 1).leading_zeros()) as usize;
    let shift = 14 - in_bits;
    let lat = 1 + usize::from(l.registered);
    let mut o = String::new();
    o.push_str(&format!("{unused}\n"));
    let wd_pad = if cols * bw > l.width {
        format!("{}'d0, ", cols * bw - l.width)
    } else {
        String::new()
    };
    o.push_str(&format!(
        "wire [{}:0] wd_in = {{{wd_pad}write_data[{}:0]}};\n",
        cols * bw - 1,
        l.width - 1
    ));
    let addr = |port: &str| -> String {
        // The in-block word address of `port`, zero-extended or cut to `in_bits`.
        let a = l.address_bits.min(in_bits);
        let lo = if shift > 0 {
            format!(", {shift}'d0")
        } else {
            String::new()
        };
        let hi = if in_bits > a {
            format!("{}'d0, ", in_bits - a)
        } else {
            String::new()
        };
        format!("{{{hi}{port}[{}:0]{lo}}}", a - 1)
    };
    if l.address_register {
        // Ram::address_registered: each row of blocks reads at an address register of its
        // own, kept (yosys would merge the copies, and them with the reader's register), and
        // the row select starts from one more register.
        for r in 0..rows {
            o.push_str(&format!(
                "\
reg [13:0] ra{r};
`ifndef SYNTHESIS
initial ra{r} = 14'd0;
`endif
`ifdef SYNTHESIS
(* keep *)
`endif
always @(posedge clock) ra{r} <= {};
",
                addr("read_address")
            ));
        }
        if rows > 1 {
            o.push_str(&format!(
                "\
reg [{rm}:0] ra_row;
`ifndef SYNTHESIS
initial ra_row = {row_bits}'d0;
`endif
always @(posedge clock) ra_row <= read_address[{}:{in_bits}];
",
                in_bits + row_bits - 1,
                rm = row_bits - 1,
            ));
        }
    } else {
        o.push_str(&format!("wire [13:0] ra = {};\n", addr("read_address")));
    }
    let wa = addr("write_address");
    // At width 18, ADA[1:0] are the byte enables.
    let wa = if bw == 18 {
        format!("{wa} | 14'd3")
    } else {
        wa
    };
    o.push_str(&format!("wire [13:0] wa_in = {wa};\n"));
    if !l.write_register {
        o.push_str(&format!(
            "wire [{}:0] wd = wd_in;\nwire [13:0] wa = wa_in;\n",
            cols * bw - 1
        ));
    }
    for r in 0..rows {
        // Port A's read data: read (`tdp`) or marked unused below, never left unconnected
        // (Verilator's PINCONNECTEMPTY).
        o.push_str(&format!("wire [{}:0] rd{r};\n", cols * 18 - 1));
        o.push_str(&format!("wire [{}:0] rda{r};\n", cols * 18 - 1));
        let we = if rows > 1 {
            format!(
                "write_enable & (write_address[{}:{in_bits}] == {row_bits}'d{r})",
                in_bits + row_bits - 1
            )
        } else {
            "write_enable".to_string()
        };
        if !l.write_register {
            o.push_str(&format!("wire we{r} = {we};\n"));
        }
        for c in 0..cols {
            // Ram::write_registered: each block's write port in flip-flops of its own, kept
            // (yosys would merge the identical ones of every block and every copy into one
            // set, whose routes span the die), so that each set is placed at its block.
            let (we_b, wa_b, wd_b) = if l.write_register {
                // The row is decoded before the flip-flops: the block's write enable is a
                // flip-flop of its own, with no logic between it and the block.
                let n = format!("r{r}_c{c}");
                o.push_str(&format!(
                    "\
reg w_we_{n};
reg [13:0] w_ad_{n};
reg [{bm}:0] w_di_{n};
`ifndef SYNTHESIS
initial w_we_{n} = 1'b0;
`endif
`ifdef SYNTHESIS
(* keep *)
`endif
always @(posedge clock) begin
   w_we_{n} <= {we};
   w_ad_{n} <= wa_in;
   w_di_{n} <= wd_in[{}:{}];
end
",
                    c * bw + bw - 1,
                    c * bw,
                    bm = bw - 1,
                ));
                (
                    format!("w_we_{n}"),
                    format!("w_ad_{n}"),
                    Some(format!("w_di_{n}")),
                )
            } else {
                (format!("we{r}"), "wa".to_string(), None)
            };
            let di: Vec<String> = (0..18)
                .rev()
                .map(|b| {
                    if b < bw {
                        match &wd_b {
                            Some(d) => format!(".DIA{b}({d}[{b}])"),
                            None => format!(".DIA{b}(wd[{}])", c * bw + b),
                        }
                    } else {
                        format!(".DIA{b}(1'b0)")
                    }
                })
                .collect();
            let ada: Vec<String> = (0..14)
                .rev()
                .map(|b| format!(".ADA{b}({wa_b}[{b}])"))
                .collect();
            let ra = if l.address_register {
                format!("ra{r}")
            } else {
                "ra".to_string()
            };
            let adb: Vec<String> = (0..14)
                .rev()
                .map(|b| format!(".ADB{b}({ra}[{b}])"))
                .collect();
            let dob: Vec<String> = (0..18)
                .rev()
                .map(|b| format!(".DOB{b}(rd{r}[{}])", c * 18 + b))
                .collect();
            let dib: Vec<String> = (0..18).rev().map(|b| format!(".DIB{b}(1'b0)")).collect();
            let doa: Vec<String> = (0..18)
                .rev()
                .map(|b| format!(".DOA{b}(rda{r}[{}])", c * 18 + b))
                .collect();
            o.push_str(&format!(
                "\
DP16KD #(
   .DATA_WIDTH_A({bw}), .DATA_WIDTH_B({bw}),
   .REGMODE_A(\"{regmode_a}\"), .REGMODE_B(\"{regmode}\"),
   .WRITEMODE_A(\"NORMAL\"), .WRITEMODE_B(\"NORMAL\"),
   .CSDECODE_A(\"0b000\"), .CSDECODE_B(\"0b000\"),
   .RESETMODE(\"SYNC\"), .GSR(\"DISABLED\")
) ram_r{r}_c{c} (
   {di},
   {ada},
   .CEA(1'b1), .OCEA(1'b1), .CLKA(clock), .WEA({we_b}), .RSTA(1'b0),
   .CSA2(1'b0), .CSA1(1'b0), .CSA0(1'b0),
   {doa},
   {dib},
   {adb},
   .CEB(1'b1), .OCEB(1'b1), .CLKB(clock), .WEB(1'b0), .RSTB(1'b0),
   .CSB2(1'b0), .CSB1(1'b0), .CSB0(1'b0),
   {dob}
);
",
                regmode = if l.registered { "OUTREG" } else { "NOREG" },
                regmode_a = if l.registered && l.tdp {
                    "OUTREG"
                } else {
                    "NOREG"
                },
                doa = doa.join(", "),
                di = di.join(", "),
                ada = ada.join(", "),
                dib = dib.join(", "),
                adb = adb.join(", "),
                dob = dob.join(", "),
            ));
        }
    }
    // The word of each row of port B (`rd`, into `read_word`) and, true dual port, of port
    // A (`rda`, into `a_read_word`): the used data bits of its blocks, side by side; with
    // several rows, the row of the read delayed as its data is selects.
    let read_side = |o: &mut String, rd: &str, row_sel: &str, word: &str, pre: &str| {
        let row_word = |r: usize| -> String {
            let parts: Vec<String> = (0..cols)
                .rev()
                .map(|c| format!("{rd}{r}[{}:{}]", c * 18 + bw - 1, c * 18))
                .collect();
            format!("{{{}}}", parts.join(", "))
        };
        o.push_str(&format!("wire [{}:0] {word};\n", cols * bw - 1));
        if rows == 1 {
            o.push_str(&format!("assign {word} = {};\n", row_word(0)));
            return;
        }
        let tree = l.row_register && rows == 1 << row_bits;
        // Ram::row_registered, more than two rows: the multiplexer's levels after the first
        // take the row delayed once more, as the data registered after the first is.
        // (Only the bits above the first level's: `{pre}row_late`.)
        let split_tree = tree && l.row_split;
        // A register of the row's word width, `q <= d` at every edge.
        let reg = |o: &mut String, q: &str, d: &str| {
            o.push_str(&format!(
                "reg [{w}:0] {q};\n`ifndef SYNTHESIS\ninitial {q} = {}'d0;\n`endif\n\
                 always @(posedge clock) {q} <= {d};\n",
                cols * bw,
                w = cols * bw - 1,
            ));
        };
        for k in 0..lat {
            o.push_str(&format!(
                "reg [{}:0] {pre}row{k};\n`ifndef SYNTHESIS\ninitial {pre}row{k} = {row_bits}'d0;\n`endif\n",
                row_bits - 1
            ));
        }
        if split_tree {
            o.push_str(&format!(
                "reg [{}:1] {pre}row_late;\n`ifndef SYNTHESIS\ninitial {pre}row_late = {}'d0;\n`endif\n",
                row_bits - 1,
                row_bits - 1
            ));
        }
        o.push_str("always @(posedge clock) begin\n");
        o.push_str(&format!("   {pre}row0 <= {row_sel};\n"));
        for k in 1..lat {
            o.push_str(&format!("   {pre}row{k} <= {pre}row{};\n", k - 1));
        }
        if split_tree {
            o.push_str(&format!(
                "   {pre}row_late <= {pre}row{}[{}:1];\n",
                lat - 1,
                row_bits - 1
            ));
        }
        o.push_str("end\n");
        if tree {
            // Ram::row_registered: the row is selected by a tree of 2:1 multiplexers, one
            // per row address bit, each level kept (`keep`) so that a block's data goes
            // through one LUT per row address bit to the row register (two with four rows);
            // unkept, yosys maps the multiplexer of four rows onto a LUT, a PFUMX and another
            // LUT with a route between them: the critical path of configs/in_memory.toml on
            // seeds 1 and 2 (ECP5, index_bits 16). With more than two rows the first level's
            // outputs are registered (`q0_*`), so a block's data crosses one LUT to a
            // flip-flop, and that flip-flop's the rest of the tree to the row register.
            let mut level: Vec<String> = (0..rows).map(row_word).collect();
            let mut k = 0;
            while level.len() > 1 {
                let sel = if k > 0 && split_tree {
                    "row_late".to_string()
                } else {
                    format!("row{}", lat - 1)
                };
                let mut next = Vec::new();
                for (i, pair) in level.chunks(2).enumerate() {
                    let n = format!("{pre}m{k}_{i}");
                    o.push_str(&format!(
                        "`ifdef SYNTHESIS\n(* keep *)\n`endif\nwire [{}:0] {n} = {pre}{sel}[{k}] ? {} : {};\n",
                        cols * bw - 1, pair[1], pair[0]
                    ));
                    if k == 0 && split_tree {
                        let q = format!("{pre}q0_{i}");
                        reg(o, &q, &n);
                        next.push(q);
                    } else {
                        next.push(n);
                    }
                }
                level = next;
                k += 1;
            }
            o.push_str(&format!(
                "wire [{}:0] {pre}read_mux = {};\n",
                cols * bw - 1,
                level[0]
            ));
        } else {
            o.push_str(&format!("reg [{}:0] {pre}read_mux;\n", cols * bw - 1));
            o.push_str("always @(*) begin\n");
            o.push_str(&format!("   case ({pre}row{})\n", lat - 1));
            for r in 0..rows {
                o.push_str(&format!(
                    "      {row_bits}'d{r}:\n         {pre}read_mux = {};\n",
                    row_word(r)
                ));
            }
            o.push_str(&format!(
                "      default:\n         {pre}read_mux = {}'d0;\n",
                cols * bw
            ));
            o.push_str("   endcase\nend\n");
        }
        if l.row_register {
            // Ram::row_registered: the row's word is registered right after the multiplexer
            // (and, more than two rows of a count that is not a power of two, once more).
            reg(o, &format!("{pre}read_rq"), &format!("{pre}read_mux"));
            let out = if l.row_split && !split_tree {
                reg(o, &format!("{pre}read_sq"), &format!("{pre}read_rq"));
                format!("{pre}read_sq")
            } else {
                format!("{pre}read_rq")
            };
            o.push_str(&format!("assign {word} = {out};\n"));
        } else {
            o.push_str(&format!("assign {word} = {pre}read_mux;\n"));
        }
    };
    // The row bits of an address (meaningful with several rows).
    let row_of = |port: &str| format!("{port}[{}:{in_bits}]", in_bits + row_bits - 1);
    let row_sel = if l.address_register {
        "ra_row".to_string()
    } else {
        row_of("read_address")
    };
    read_side(&mut o, "rd", &row_sel, "read_word", "");
    if l.tdp {
        read_side(&mut o, "rda", &row_of("write_address"), "a_read_word", "a_");
    }
    // Every data bit of the blocks is read by an instance; the unused ones are marked, and so
    // are the address bits above those the blocks and rows use.
    let mut spare = vec!["1'b0".to_string()];
    let used = in_bits + if rows > 1 { row_bits } else { 0 };
    if used < l.address_bits {
        for port in ["read_address", "write_address"] {
            spare.push(format!("{port}[{}:{used}]", l.address_bits - 1));
        }
    }
    for r in 0..rows {
        spare.push(format!("rd{r}"));
        spare.push(format!("rda{r}"));
    }
    if cols * bw > l.width {
        spare.push(format!("read_word[{}:{}]", cols * bw - 1, l.width));
        if l.tdp {
            spare.push(format!("a_read_word[{}:{}]", cols * bw - 1, l.width));
        }
    }
    o.push_str(&format!("wire _unused_rd = &{{{}}};\n", spare.join(", ")));
    o.push_str(&format!(
        "always @(*) read_data = {pad}read_word[{}:0]}};\n",
        l.width - 1
    ));
    if l.tdp {
        o.push_str(&format!(
            "always @(*) a_read_data = {pad}a_read_word[{}:0]}};\n",
            l.width - 1
        ));
    }
    o
}
