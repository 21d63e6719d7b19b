//! `Ram<T>`: the one RAM block of the design: the state RAM (one copy per reader, words of
//! [`StateEntry`](super::StateEntry)), the on-chip directory (one copy per reader, words of
//! [`DirEntry`](super::DirEntry)), the levels of the [`FreeMap`](super::free_map::FreeMap)
//! (64-bit words) and the quarantine queue of the [`CmdEngine`](super::cmd_engine::CmdEngine).
//!
//! A simple dual-port RAM (one synchronous read port, one write port, one clock) of `depth`
//! words. The ports are declared at the widest size any configuration needs
//! ([`RAM_ADDR_BITS`] address bits, the whole word type) so the blocks around it keep one
//! type; the emitted memory uses only the low `address_bits` address bits and the low
//! `width` data bits, and marks the rest as intentionally unused so that Verilator's `-Wall`
//! stays clean without waivers.
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `clock` | in | |
//! | `read_address` | in | word index; `read_data` holds `mem[index]` after the [`Ram::latency`]-th edge |
//! | `read_data` | out | read-first: a write at the same edge as the read is not seen |
//! | `write_enable`, `write_address`, `write_data` | in | one write per edge |
//!
//! Latency ([`Ram::latency`]): two cycles with the output register (the default): the
//! array is read at the edge that takes the address, and the word read is registered at the
//! next edge, with no logic between the array and that register. That register is the
//! block RAM's own output register: nothing else runs from a block RAM's read port, whose
//! clock-to-out without it is the longest delay of the design (5.6 ns on ECP5). One cycle
//! ([`Ram::unregistered`]) for a reader that cannot wait the extra cycle. Three cycles
//! ([`Ram::row_registered`]) for a RAM deeper than one row of block RAMs whose reader can
//! wait: the word is registered once more after the row multiplexer. One more cycle
//! ([`Ram::address_registered`]) for a reader far from the blocks: the address is registered
//! once more, at the blocks. A read of an address
//! `>= depth` returns an undefined word; every reader checks the range before it uses the
//! word.
//!
//! How the RAM is emitted follows the configuration's `fpga` (SPEC §3):
//!
//! - `generic`: inferred. The template is the one of Xilinx UG901 (Vivado Design Suite User
//!   Guide: Synthesis), "Block RAM with Optional Output Registers" (`rams_pipeline.v`): the
//!   registered array read (`read_word <= mem[addr]`) followed by a second register of the
//!   read word alone (`read_q <= read_word`), which Vivado maps onto the block RAM's output
//!   register (DOA_REG / DOB_REG); Quartus maps the same pattern onto the M20K's output
//!   register (Intel Quartus Prime Recommended HDL Coding Styles, "Inferring RAM functions":
//!   registered output). yosys 0.23 puts the second register in fabric flip-flops, right at
//!   the block RAM's read port.
//! - `ecp5`: the array is Lattice DP16KD primitives instantiated with `REGMODE_B = "OUTREG"`
//!   (see `dp16kd_verilog` below); yosys 0.23 never infers that register itself. RAMs of fewer
//!   than [`DP16KD_MIN_DEPTH`] words are inferred as with `generic`.
//!
//! Simultaneous write and read of one address: the emitted RAM is read-first (the read
//! returns the old word), in both flavours as simulated. On the ECP5 silicon the DP16KD's
//! behaviour when its two ports access one address at the same edge is not guaranteed by
//! this generator's tests (they run the behavioural model of the testbench); a lookup at the
//! edge of a command's write to its own index may then see either word.

use super::QPN_BITS;
use crate::config::Fpga;
use rust_hdl::prelude::*;

/// Width of the address ports (the deepest RAM: the state RAM of 2^24 indexes).
pub const RAM_ADDR_BITS: usize = QPN_BITS;
/// Widest word address of a free map level: 2^24 indexes / 64 bits per word.
pub const WORD_ADDR_BITS: usize = QPN_BITS - 6;

/// A word a [`Ram`] or [`TdpRam`] holds. The emitted memory stores the low `width` bits of
/// the write port and reads the rest back as 0; the simulation model in rust-hdl stores what
/// [`RamWord::low_bits`] keeps of it, so that both read back the same word.
pub trait RamWord: Synth {
    /// The word with its bits from `width` up cleared (bit 0 is the low bit of the first
    /// field: rust-hdl packs a struct's fields from the low bits up, in order).
    fn low_bits(self, width: usize) -> Self;
}

impl<const N: usize> RamWord for Bits<N> {
    fn low_bits(self, width: usize) -> Self {
        if width >= N {
            self
        } else {
            self & !(Bits::<N>::mask() << (width as LiteralType))
        }
    }
}

#[derive(LogicBlock)]
pub struct Ram<T: RamWord> {
    pub clock: Signal<In, Clock>,
    pub read_address: Signal<In, Bits<RAM_ADDR_BITS>>,
    pub read_data: Signal<Out, T>,
    pub write_enable: Signal<In, Bit>,
    pub write_address: Signal<In, Bits<RAM_ADDR_BITS>>,
    pub write_data: Signal<In, T>,
    _depth: usize,
    _address_bits: usize,
    _width: usize,
    _fpga: Fpga,
    _registered: bool,
    /// [`Ram::row_registered`], and the RAM spans more than one row of blocks.
    _row_register: bool,
    /// [`Ram::row_registered`], and the RAM spans more than two rows of blocks: the row
    /// multiplexer is split by a register.
    _row_split: bool,
    /// [`Ram::write_registered`].
    _write_register: bool,
    /// [`Ram::address_registered`].
    _address_register: bool,
    /// The read address taken at the last edge ([`Ram::address_registered`]).
    _sim_address: usize,
    _sim: Vec<T>,
    _sim_word: T,
    _sim_row_word: T,
    _sim_split_word: T,
    /// The write taken at the last edge ([`Ram::write_registered`]): it lands at the next.
    _sim_write: Option<(usize, T)>,
}

impl<T: RamWord> Default for Ram<T> {
    fn default() -> Self {
        Self::new(1, Fpga::Generic)
    }
}

impl<T: RamWord> Ram<T> {
    /// A RAM of `depth` whole words, addressed by as many bits as `depth` needs, with its
    /// output register, emitted for `fpga`.
    pub fn new(depth: usize, fpga: Fpga) -> Self {
        let address_bits = (usize::BITS - depth.saturating_sub(1).leading_zeros()).max(1);
        Self::with_layout(depth, address_bits as usize, T::BITS, fpga)
    }

    /// A RAM of `depth` words of which the low `width` bits are stored, addressed by
    /// `address_bits` bits, with its output register, emitted for `fpga`.
    pub fn with_layout(depth: usize, address_bits: usize, width: usize, fpga: Fpga) -> Self {
        assert!(depth >= 1 && depth <= 1 << address_bits && address_bits <= RAM_ADDR_BITS);
        assert!((1..=T::BITS).contains(&width));
        block_new!(
            [
                clock, read_address, read_data, write_enable, write_address, write_data,
            ]
            _depth: depth,
            _address_bits: address_bits,
            _width: width,
            _fpga: fpga,
            _registered: true,
            _row_register: false,
            _row_split: false,
            _write_register: false,
            _address_register: false,
            _sim_address: 0,
            _sim: vec![T::default(); depth],
            _sim_word: T::default(),
            _sim_row_word: T::default(),
            _sim_split_word: T::default(),
            _sim_write: None,
        )
    }

    /// The same RAM without its output register (read latency one cycle).
    pub fn unregistered(mut self) -> Self {
        self._registered = false;
        self
    }

    /// The same RAM with, when it is deeper than one row of block RAMs ([`DP16KD_ROW_DEPTH`]
    /// words), one more register after the read data: with `ecp5` right after the multiplexer
    /// that selects the row (so that the routes from the blocks, spread over the die, end at
    /// a flip-flop), with `generic` after the output register (the same latency). Latency 3
    /// then; a RAM of one row is unchanged. A RAM of more than two rows registers the word
    /// once more, in the middle of the multiplexer (`ecp5`: after its first level of 2:1
    /// multiplexers, each of which joins two rows; `generic`: after the row register), so
    /// that no route runs from a block through more than one multiplexer: latency 4. On
    /// ECP5 the blocks of one bit lie far apart (the state RAM copies of
    /// `configs/in_memory.toml` at index_bits 16 take 58 % of the die's block RAM sites), and
    /// the route from the first level to the second alone took 4.4 ns.
    pub fn row_registered(mut self) -> Self {
        self._row_register = self._registered && self._depth > DP16KD_ROW_DEPTH;
        self._row_split = self._row_register && self._depth > 2 * DP16KD_ROW_DEPTH;
        self
    }

    /// The same RAM with its write port registered once more inside it: a write taken at
    /// edge `t` lands in the array at edge `t + 1` (read-first against a read of that edge),
    /// so the routes from the writer to the blocks end at flip-flops of this RAM. With `ecp5`
    /// every DP16KD has its own set (write enable, address, data; the row decoded before
    /// them, so that each drives its block's pins with no logic between), kept with yosys's
    /// `keep` (it would otherwise merge the identical sets of every block and every copy of a
    /// RAM written by one writer into one, whose routes span the die). [`Ram::write_latency`]
    /// 2.
    pub fn write_registered(mut self) -> Self {
        self._write_register = true;
        self
    }

    /// The same RAM with its read address registered once more inside it: `read_address` is
    /// taken at edge `t` and the array is read with it at `t + 1` (one more edge of
    /// [`Ram::latency`]). With `ecp5` each row of blocks has its own set of address
    /// flip-flops, kept with yosys's `keep` (it would otherwise merge them into one, and with
    /// the reader's register), so that each set is placed at its blocks and the reader's
    /// register at the reader's logic: the route across the die between them is then the
    /// whole of a cycle, with no logic before or after it.
    pub fn address_registered(mut self) -> Self {
        self._address_register = true;
        self
    }

    /// Edges from the one that takes a write to the one at which it lands in the array: 1,
    /// or 2 with [`Ram::write_registered`].
    pub fn write_latency(&self) -> usize {
        1 + usize::from(self._write_register)
    }

    /// Edges from the one that takes `read_address` to the one after which `read_data`
    /// holds the word: 2 with the output register, 1 without, one more with the row register
    /// ([`Ram::row_registered`], two with more than two rows of blocks) and one more with
    /// the address register ([`Ram::address_registered`]).
    pub fn latency(&self) -> usize {
        1 + usize::from(self._registered)
            + usize::from(self._row_register)
            + usize::from(self._row_split)
            + usize::from(self._address_register)
    }
}

impl<T: RamWord> Logic for Ram<T> {
    fn update(&mut self) {
        // rust-hdl's own simulator (not used by the testbenches, which run Verilator).
        if self.clock.pos_edge() {
            let mask = (1 << self._address_bits) - 1;
            let mut index = self.read_address.val().index() & mask;
            if self._address_register {
                index = std::mem::replace(&mut self._sim_address, index);
            }
            let word = self._sim.get(index).copied().unwrap_or_default();
            if self._row_split {
                self.read_data.next = self._sim_split_word;
                self._sim_split_word = self._sim_row_word;
                self._sim_row_word = self._sim_word;
                self._sim_word = word;
            } else if self._row_register {
                self.read_data.next = self._sim_row_word;
                self._sim_row_word = self._sim_word;
                self._sim_word = word;
            } else if self._registered {
                self.read_data.next = self._sim_word;
                self._sim_word = word;
            } else {
                self.read_data.next = word;
            }
            let write = self.write_enable.val().then(|| {
                (
                    self.write_address.val().index() & mask,
                    self.write_data.val().low_bits(self._width),
                )
            });
            let write = if self._write_register {
                std::mem::replace(&mut self._sim_write, write)
            } else {
                write
            };
            if let Some((index, data)) = write {
                if let Some(w) = self._sim.get_mut(index) {
                    *w = data;
                }
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        let layout = Layout {
            depth: self._depth,
            address_bits: self._address_bits,
            port_address_bits: RAM_ADDR_BITS,
            width: self._width,
            port_width: T::BITS,
            registered: self._registered,
            row_register: self._row_register,
            row_split: self._row_split,
            write_register: self._write_register,
            address_register: self._address_register,
            tdp: false,
        };
        layout.emit(self._fpga)
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![
            TimingInfo {
                name: "ram_read".into(),
                clock: "clock".into(),
                inputs: vec!["read_address".into()],
                outputs: vec!["read_data".into()],
            },
            TimingInfo {
                name: "ram_write".into(),
                clock: "clock".into(),
                inputs: vec![
                    "write_address".into(),
                    "write_data".into(),
                    "write_enable".into(),
                ],
                outputs: vec![],
            },
        ]
    }
}

/// `TdpRam<T>`: a true dual-port RAM, one block RAM read by two readers: [`Ram`]'s ports
/// (port B: `read_address`, `read_data`; port A: `write_enable`, `write_address`,
/// `write_data`) and port A's read, `a_read_data`: `mem[write_address]` read at every edge
/// (when `write_enable` too: read-first, the old word), with the output register (latency 2,
/// as [`Ram`]). Both reads are read-first against the write of the same edge. Emitted as
/// [`Ram`] is: `generic` inferred (UG901's true dual-port read-first template: each port's
/// read in its own process), `ecp5` DP16KD with both ports' output registers (`REGMODE_A =
/// REGMODE_B = "OUTREG"`; DP16KD_MIN_DEPTH as for [`Ram`]). Used for the `live` filter of
/// the state in memory, one copy per two lookup ports ([`crate::hw::live_filter`]).
#[derive(LogicBlock)]
pub struct TdpRam<T: RamWord> {
    pub clock: Signal<In, Clock>,
    pub read_address: Signal<In, Bits<RAM_ADDR_BITS>>,
    pub read_data: Signal<Out, T>,
    pub write_enable: Signal<In, Bit>,
    pub write_address: Signal<In, Bits<RAM_ADDR_BITS>>,
    pub write_data: Signal<In, T>,
    pub a_read_data: Signal<Out, T>,
    _depth: usize,
    _address_bits: usize,
    _width: usize,
    _fpga: Fpga,
    _sim: Vec<T>,
    _sim_words: [T; 2],
}

impl<T: RamWord> Default for TdpRam<T> {
    fn default() -> Self {
        Self::with_layout(1, 1, T::BITS, Fpga::Generic)
    }
}

impl<T: RamWord> TdpRam<T> {
    /// As [`Ram::with_layout`].
    pub fn with_layout(depth: usize, address_bits: usize, width: usize, fpga: Fpga) -> Self {
        assert!(depth >= 1 && depth <= 1 << address_bits && address_bits <= RAM_ADDR_BITS);
        assert!((1..=T::BITS).contains(&width));
        block_new!(
            [
                clock, read_address, read_data, write_enable, write_address, write_data,
                a_read_data,
            ]
            _depth: depth,
            _address_bits: address_bits,
            _width: width,
            _fpga: fpga,
            _sim: vec![T::default(); depth],
            _sim_words: [T::default(); 2],
        )
    }
}

impl<T: RamWord> Logic for TdpRam<T> {
    fn update(&mut self) {
        // rust-hdl's own simulator (not used by the testbenches, which run Verilator).
        if self.clock.pos_edge() {
            let mask = (1 << self._address_bits) - 1;
            let get = |a: Bits<RAM_ADDR_BITS>| self._sim.get(a.index() & mask).copied();
            let b = get(self.read_address.val()).unwrap_or_default();
            let a = get(self.write_address.val()).unwrap_or_default();
            self.read_data.next = self._sim_words[0];
            self.a_read_data.next = self._sim_words[1];
            self._sim_words = [b, a];
            if self.write_enable.val() {
                let index = self.write_address.val().index() & mask;
                if let Some(w) = self._sim.get_mut(index) {
                    *w = self.write_data.val().low_bits(self._width);
                }
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
        self.a_read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        let layout = Layout {
            depth: self._depth,
            address_bits: self._address_bits,
            port_address_bits: RAM_ADDR_BITS,
            width: self._width,
            port_width: T::BITS,
            registered: true,
            row_register: false,
            row_split: false,
            write_register: false,
            address_register: false,
            tdp: true,
        };
        layout.emit(self._fpga)
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "ram_read".into(),
            clock: "clock".into(),
            inputs: vec!["read_address".into(), "write_address".into()],
            outputs: vec!["read_data".into(), "a_read_data".into()],
        }]
    }
}

/// The shape of one emitted RAM.
struct Layout {
    depth: usize,
    /// Address bits used (the low bits of the ports).
    address_bits: usize,
    port_address_bits: usize,
    /// Data bits stored (the low bits of the ports).
    width: usize,
    port_width: usize,
    /// With the output register.
    registered: bool,
    /// One more register after the read data ([`Ram::row_registered`]; never with `tdp`).
    row_register: bool,
    /// With `row_register`, one more in the middle of the row multiplexer (more than two
    /// rows, [`Ram::row_registered`]).
    row_split: bool,
    /// The write port registered once more ([`Ram::write_registered`]; never with `tdp`).
    write_register: bool,
    /// The read address registered once more ([`Ram::address_registered`]; never with
    /// `tdp`).
    address_register: bool,
    /// True dual port ([`TdpRam`]): the write port also reads, into `a_read_data`.
    tdp: bool,
}

impl Layout {
    /// The RAM module's body for `fpga`: DP16KD blocks with `ecp5` from
    /// [`DP16KD_MIN_DEPTH`] words, inferred otherwise; the simulation write range check.
    fn emit(&self, fpga: Fpga) -> Verilog {
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

/// With `fpga = ecp5`, RAMs of fewer words are inferred as with `generic` (yosys maps them to
/// distributed RAM and flip-flops): a DP16KD holds at least 1024 words, and a RAM of 64
/// words of 64 bits would take four of them.
pub const DP16KD_MIN_DEPTH: usize = 128;

/// Words of one row of DP16KD blocks (16384 at width 1): a deeper RAM takes several rows.
pub const DP16KD_ROW_DEPTH: usize = 16384;

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

#[cfg(test)]
mod tests {
    use super::RamWord;
    use crate::hw::{DirEntry, StateEntry};
    use rust_hdl::prelude::*;

    #[test]
    fn low_bits_keeps_what_the_emitted_memory_stores() {
        assert_eq!(
            Bits::<8>::from(0xFFu64).low_bits(3),
            Bits::<8>::from(0x07u64)
        );
        assert_eq!(
            Bits::<8>::from(0xA5u64).low_bits(8),
            Bits::<8>::from(0xA5u64)
        );
        let e = StateEntry {
            state: 2u64.into(),
            gen: 0xA_BCDEu64.into(),
        };
        // Bits 0-1 the state, then the generation: 6 bits keep its low 4.
        let kept = e.low_bits(6);
        assert_eq!(kept.state, Bits::<2>::from(2u64));
        assert_eq!(kept.gen, Bits::<20>::from(0xEu64));
        // index_bits 24: no generation bits, the state alone.
        assert_eq!(e.low_bits(2).gen, Bits::<20>::default());
        let d = DirEntry {
            present: true,
            page: 0x3Fu64.into(),
        };
        let kept = d.low_bits(4);
        assert!(kept.present);
        assert_eq!(kept.page, bits::<{ crate::hw::PAGE_BITS }>(0x7));
    }
}
