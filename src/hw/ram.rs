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
//!   (see `dp16kd_verilog` in `ram/verilog.rs`); yosys 0.23 never infers that register itself. RAMs of fewer
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

/// With `fpga = ecp5`, RAMs of fewer words are inferred as with `generic` (yosys maps them to
/// distributed RAM and flip-flops): a DP16KD holds at least 1024 words, and a RAM of 64
/// words of 64 bits would take four of them.
pub const DP16KD_MIN_DEPTH: usize = 128;

/// Words of one row of DP16KD blocks (16384 at width 1): a deeper RAM takes several rows.
pub const DP16KD_ROW_DEPTH: usize = 16384;

mod verilog;
use verilog::Layout;

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
