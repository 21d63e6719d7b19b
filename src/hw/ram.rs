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
//! | `read_address` | in | word index; `read_data` holds `mem[index]` after the next edge |
//! | `read_data` | out | read-first: a write at the same edge is not seen |
//! | `write_enable`, `write_address`, `write_data` | in | one write per edge |
//!
//! Latency: one cycle (registered read). A read of an address `>= depth` returns an
//! undefined word; every reader checks the range before it uses the word.

use super::QPN_BITS;
use rust_hdl::prelude::*;

/// Width of the address ports (the deepest RAM: the state RAM of 2^24 indexes).
pub const RAM_ADDR_BITS: usize = QPN_BITS;
/// Widest word address of a free map level: 2^24 indexes / 64 bits per word.
pub const WORD_ADDR_BITS: usize = QPN_BITS - 6;

#[derive(LogicBlock, Default)]
pub struct Ram<T: Synth> {
    pub clock: Signal<In, Clock>,
    pub read_address: Signal<In, Bits<RAM_ADDR_BITS>>,
    pub read_data: Signal<Out, T>,
    pub write_enable: Signal<In, Bit>,
    pub write_address: Signal<In, Bits<RAM_ADDR_BITS>>,
    pub write_data: Signal<In, T>,
    _depth: usize,
    _address_bits: usize,
    _width: usize,
    _sim: Vec<T>,
}

impl<T: Synth> Ram<T> {
    /// A RAM of `depth` whole words, addressed by as many bits as `depth` needs.
    pub fn new(depth: usize) -> Self {
        let address_bits = (usize::BITS - depth.saturating_sub(1).leading_zeros()).max(1);
        Self::with_layout(depth, address_bits as usize, T::BITS)
    }

    /// A RAM of `depth` words of which the low `width` bits are stored, addressed by
    /// `address_bits` bits.
    pub fn with_layout(depth: usize, address_bits: usize, width: usize) -> Self {
        assert!(depth >= 1 && depth <= 1 << address_bits && address_bits <= RAM_ADDR_BITS);
        assert!((1..=T::BITS).contains(&width));
        Self {
            _depth: depth,
            _address_bits: address_bits,
            _width: width,
            _sim: vec![T::default(); depth],
            ..Default::default()
        }
    }
}

impl<T: Synth> Logic for Ram<T> {
    fn update(&mut self) {
        // rust-hdl's own simulator (not used by the testbenches, which run Verilator).
        if self.clock.pos_edge() {
            let mask = (1 << self._address_bits) - 1;
            let index = self.read_address.val().index() & mask;
            self.read_data.next = self._sim.get(index).copied().unwrap_or_default();
            if self.write_enable.val() {
                let index = self.write_address.val().index() & mask;
                if let Some(w) = self._sim.get_mut(index) {
                    *w = self.write_data.val();
                }
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(ram_verilog(
            self._depth,
            self._address_bits,
            RAM_ADDR_BITS,
            self._width,
            T::BITS,
        ))
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

/// The body of a RAM module: `depth` words of `width` bits, addressed by the low
/// `address_bits` of `port_address_bits`-bit ports, with `port_width`-bit data ports (the
/// unused high bits of the ports are gathered into `_unused_ok`, zero-filled on read).
fn ram_verilog(
    depth: usize,
    address_bits: usize,
    port_address_bits: usize,
    width: usize,
    port_width: usize,
) -> String {
    let (a, w) = (address_bits, width);
    let mut unused = vec!["1'b0".to_string()];
    for port in ["read_address", "write_address"] {
        if a < port_address_bits {
            unused.push(format!("{port}[{}:{a}]", port_address_bits - 1));
        }
    }
    if w < port_width {
        unused.push(format!("write_data[{}:{w}]", port_width - 1));
    }
    let pad = if w < port_width {
        format!("{{{}'d0, ", port_width - w)
    } else {
        "{".to_string()
    };
    format!(
        "\
reg [{wm}:0] mem [0:{dm}];
reg [{wm}:0] read_word;
wire _unused_ok = &{{{unused}}};

always @(posedge clock) begin
   read_word <= mem[read_address[{am}:0]];
   if (write_enable) begin
      mem[write_address[{am}:0]] <= write_data[{wm}:0];
   end
end

always @(*) read_data = {pad}read_word}};
",
        wm = w - 1,
        dm = depth - 1,
        am = a - 1,
        unused = unused.join(", "),
    )
}
