//! `MemFifo<T>`: a first-word-fall-through FIFO of `depth` words of type `T`: the response
//! queue of every [`LookupPipe`](super::lookup_pipe::LookupPipe) (depth 4), and the
//! in_memory directory path (the pipe's queues and [`DirFetch`](super::dir_fetch::DirFetch)),
//! where the queues must be as deep as the memory latency (up to 512 entries).
//!
//! Like the [`Ram`](super::ram::Ram) it is a memory primitive written as
//! Verilog: a memory array with a combinational read of the head (a LUT/distributed RAM), so a
//! word pushed at edge `t` is offered (`out_valid`, `data_out`) right after edge `t`.
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `in_valid`, `data_in` | in | push (no ready: every producer holds credit and never pushes into a full FIFO) |
//! | `out_valid`, `out_ready`, `data_out` | out/in/out | AXI-style pop; `out_valid` comes from a register |
//! | `count` | out | words held, `0..=depth` |
//!
//! `depth` is a power of two, 2..=512; `count` is [`FIFO_COUNT_BITS`] wide.
//!
//! Where the words live: [`MemFifo::new`] leaves it to the synthesis tool (yosys puts a deep
//! or wide array in block RAM, where the head is read through the block's address register:
//! on ECP5 a DP16KD read port without its output register, 5.8 ns from the clock to the
//! data, so any logic after the head runs on a slow path); [`MemFifo::lut_ram`] asks for
//! distributed RAM (`ram_style = "distributed"`, read by yosys 0.23's `memory_libmap`, by
//! Vivado and by Quartus (as `ramstyle`), so the head is read through LUTs (ECP5
//! `TRELLIS_DPR16X4`, 16 words of 4 bits each) in about a LUT delay after the read pointer.
//! It costs LUTs: about 7 LUT4 per 64 bits stored (measured on ECP5 with the in_memory
//! directory queues).
//!
//! [`MemFifo::head_registered`]: the head is read ahead into registers
//! ([`super::head_fifo`]), so no path runs from the array's read data through the
//! consumer's pop back into the array (the state cache's and miss unit's queues, and the
//! response queue of a lookup pipe whose directory is in memory).
//!
//! [`MemFifo::write_ahead`]: the array is written at every edge where the FIFO is not full
//! (the word after the tail, which only a push keeps), and `in_valid` only moves the write
//! pointer: the push decision, when it comes late in the cycle, then drives a few pointer
//! flip-flops, not the write enable of every RAM cell. Such a FIFO must never be pushed while
//! full, even at an edge where its head leaves (a simulation check stops on it).

use rust_hdl::prelude::*;

/// Width of `count` (up to 512 words).
pub const FIFO_COUNT_BITS: usize = 10;

#[derive(LogicBlock, Default)]
pub struct MemFifo<T: Synth> {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub data_in: Signal<In, T>,
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub data_out: Signal<Out, T>,
    pub count: Signal<Out, Bits<FIFO_COUNT_BITS>>,
    _depth: usize,
    /// Ask for distributed (LUT) RAM.
    _lut: bool,
    /// Write the array at every edge where the FIFO is not full ([`MemFifo::write_ahead`]).
    _ahead: bool,
    /// The head read ahead into registers ([`MemFifo::head_registered`]).
    _head: bool,
    _sim: std::collections::VecDeque<T>,
}

impl<T: Synth> MemFifo<T> {
    /// A FIFO whose array the synthesis tool places (block RAM when deep or wide).
    pub fn new(depth: usize) -> Self {
        assert!(depth.is_power_of_two() && (2..=512).contains(&depth));
        Self {
            _depth: depth,
            ..Default::default()
        }
    }

    /// A FIFO whose array is in distributed (LUT) RAM, so the head is read in about a LUT
    /// delay: for the queues whose head feeds logic on a short path.
    pub fn lut_ram(depth: usize) -> Self {
        Self {
            _lut: true,
            ..Self::new(depth)
        }
    }

    /// This FIFO with its array written at every edge where it is not full, `in_valid` moving
    /// only the write pointer (see the module documentation). Its producer never pushes while
    /// it is full, even at an edge where its head leaves.
    pub fn write_ahead(self) -> Self {
        assert!(!self._head, "a head-registered FIFO is not written ahead");
        Self {
            _ahead: true,
            ..self
        }
    }

    /// This FIFO with its head read ahead into registers ([`super::head_fifo`]): the same
    /// behaviour at the ports, cycle for cycle, but `out_valid` and `data_out` come from
    /// flip-flops, for a queue whose head decides its own pop (or much else) in the cycle it
    /// is offered. Not with [`MemFifo::write_ahead`].
    pub fn head_registered(self) -> Self {
        assert!(!self._ahead, "a write-ahead FIFO is not head-registered");
        Self {
            _head: true,
            ..self
        }
    }

    fn address_bits(&self) -> usize {
        self._depth.trailing_zeros() as usize
    }
}

/// One clock edge of a FIFO's rust-hdl model ([`MemFifo`], and the head-registered FIFOs of
/// [`super::head_fifo`]): a reset empties it; else the head leaves when `pop`, and `push`
/// joins the tail.
pub(crate) fn sim_edge<T>(
    q: &mut std::collections::VecDeque<T>,
    rst: bool,
    pop: bool,
    push: Option<T>,
) {
    if rst {
        q.clear();
        return;
    }
    if pop {
        q.pop_front();
    }
    if let Some(x) = push {
        q.push_back(x);
    }
}

impl<T: Synth> Logic for MemFifo<T> {
    fn update(&mut self) {
        // rust-hdl's own simulator (not used by the testbenches, which run Verilator).
        if self.clock.pos_edge() {
            sim_edge(
                &mut self._sim,
                self.rst.val(),
                self.out_ready.val(),
                self.in_valid.val().then(|| self.data_in.val()),
            );
        }
        self.out_valid.next = !self._sim.is_empty();
        self.data_out.next = self._sim.front().copied().unwrap_or_default();
        self.count.next = (self._sim.len() as u64).into();
    }

    fn connect(&mut self) {
        self.out_valid.connect();
        self.data_out.connect();
        self.count.connect();
    }

    fn hdl(&self) -> Verilog {
        if self._head {
            return Verilog::Custom(super::head_fifo::verilog(T::BITS, self._depth, self._lut));
        }
        let a = self.address_bits();
        Verilog::Custom(format!(
            "\
{style}reg [{wm}:0] mem [0:{dm}];
reg [{am}:0] wr_ptr;
reg [{am}:0] rd_ptr;
reg [{cm}:0] fill;
// `fill != 0`, in its own flip-flop: `out_valid` and the pop come from a register.
reg nonempty;
// Initial values, in an initial block as rust-hdl gives its DFFs (and as Verilator starts
// every variable): an event-driven simulator shows the same outputs as Verilator before the
// first reset edge, and a head never written reads 0, not X. (Not declaration initializers:
// under -g2012 those make no event, and the `always @(*)` blocks below would never run.)
// Simulation only: yosys defines SYNTHESIS, and initial values change what it maps.
`ifndef SYNTHESIS
integer init_i;
initial begin
   wr_ptr = {ab}'d0;
   rd_ptr = {ab}'d0;
   fill = {cb}'d0;
   nonempty = 1'b0;
   for (init_i = 0; init_i <= {dm}; init_i = init_i + 1) mem[init_i] = {wb}'d0;
end
`endif
wire pop = nonempty & out_ready;
wire [{wm}:0] head = mem[rd_ptr];

always @(posedge clock) begin
   if ({write}) begin
      mem[wr_ptr] <= data_in;
   end
   if (rst) begin
      wr_ptr <= {ab}'d0;
      rd_ptr <= {ab}'d0;
      fill <= {cb}'d0;
      nonempty <= 1'b0;
   end else begin
      nonempty <= in_valid | (fill > {cb}'d1) | (nonempty & ~pop);
      if (in_valid) wr_ptr <= wr_ptr + {ab}'d1;
      if (pop) rd_ptr <= rd_ptr + {ab}'d1;
      if (in_valid & ~pop) fill <= fill + {cb}'d1;
      if (~in_valid & pop) fill <= fill - {cb}'d1;
   end
end

always @(*) out_valid = nonempty;
always @(*) data_out = head;
always @(*) count = fill;

`ifndef SYNTHESIS
// Simulation only: a push into a full FIFO stops the simulation (every producer holds credit,
// so it is a design error).
always @(posedge clock) begin
   if (!rst && in_valid && !pop && fill == {cb}'d{depth}) begin
      $display(\"ERROR: %m: push into a full FIFO of {depth} words\");
      $fatal(1);
   end
{ahead_check}end
`endif
",
            wm = T::BITS - 1,
            wb = T::BITS,
            dm = self._depth - 1,
            am = a - 1,
            ab = a,
            cm = FIFO_COUNT_BITS - 1,
            cb = FIFO_COUNT_BITS,
            depth = self._depth,
            write = if self._ahead {
                // `fill` reaches `depth` only when full: its bit `a` is set then.
                format!("~fill[{a}]")
            } else {
                "in_valid".to_string()
            },
            ahead_check = if self._ahead {
                format!(
                    "   // Write-ahead: the word after the tail is the head when full.
   if (!rst && in_valid && fill == {FIFO_COUNT_BITS}'d{depth}) begin
      $display(\"ERROR: %m: push into a full write-ahead FIFO of {depth} words\");
      $fatal(1);
   end
",
                    depth = self._depth
                )
            } else {
                String::new()
            },
            style = if self._lut {
                "(* ram_style = \"distributed\" *)\n"
            } else {
                ""
            },
        ))
    }
}
