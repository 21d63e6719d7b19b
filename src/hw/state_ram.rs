//! `StateRam`: the per-index state and generation store, one copy per reader.
//!
//! A simple dual-port RAM (one synchronous read port, one write port, one clock) of
//! `depth` words of `width` bits. The ports are declared at the widest size any
//! configuration needs ([`QPN_BITS`] address bits, [`ENTRY_BITS`] data bits) so the blocks
//! around it keep one type; the emitted memory uses only the low `index_bits` address bits
//! and the low `width` data bits, and marks the rest as intentionally unused so that
//! Verilator's `-Wall` stays clean without waivers.
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `clock` | in | |
//! | `read_address` | in | index; `read_data` holds `mem[index]` after the next edge |
//! | `read_data` | out | read-first: a write at the same edge is not seen |
//! | `write_enable`, `write_address`, `write_data` | in | one write per edge |
//!
//! Latency: one cycle (registered read). A read of an address `>= depth` returns an
//! undefined word; every reader checks the range before it uses the word.

use super::{StateEntry, ENTRY_BITS, QPN_BITS};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct StateRam {
    pub clock: Signal<In, Clock>,
    pub read_address: Signal<In, Bits<QPN_BITS>>,
    pub read_data: Signal<Out, StateEntry>,
    pub write_enable: Signal<In, Bit>,
    pub write_address: Signal<In, Bits<QPN_BITS>>,
    pub write_data: Signal<In, StateEntry>,
    _depth: usize,
    _address_bits: usize,
    _width: usize,
    _sim: Vec<u64>,
}

impl StateRam {
    /// A RAM of `depth` words of `width` bits addressed by `address_bits` bits.
    pub fn new(depth: usize, address_bits: usize, width: usize) -> Self {
        assert!(depth >= 1 && depth <= 1 << address_bits && address_bits <= QPN_BITS);
        assert!((1..=ENTRY_BITS).contains(&width));
        Self {
            _depth: depth,
            _address_bits: address_bits,
            _width: width,
            _sim: vec![0; depth],
            ..Default::default()
        }
    }

    fn data_mask(&self) -> u64 {
        (1u64 << self._width) - 1
    }
}

impl Logic for StateRam {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let index = self.read_address.val().index() & ((1 << self._address_bits) - 1);
            let word = self._sim.get(index).copied().unwrap_or(0);
            self.read_data.next = StateEntry {
                state: (word & 3).into(),
                gen: (word >> 2).into(),
            };
            if self.write_enable.val() {
                let index = self.write_address.val().index() & ((1 << self._address_bits) - 1);
                let bits: Bits<ENTRY_BITS> = self.write_data.val().into();
                let data: u64 = bits.into();
                let mask = self.data_mask();
                if let Some(w) = self._sim.get_mut(index) {
                    *w = data & mask;
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
            QPN_BITS,
            self._width,
            ENTRY_BITS,
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![
            TimingInfo {
                name: "state_ram_read".into(),
                clock: "clock".into(),
                inputs: vec!["read_address".into()],
                outputs: vec!["read_data".into()],
            },
            TimingInfo {
                name: "state_ram_write".into(),
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
pub(crate) fn ram_verilog(
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
