//! `CacheWrites`: the one write bus of the state cache (SPEC §9, `state = in_memory`), shared
//! by every port's tag and data copies ([`StateCache`](super::state_cache::StateCache)): it
//! clears the tags after a reset, applies the [`MissUnit`](super::miss_unit::MissUnit)'s
//! broadcast of each good fill (`cw_*`) and the command engine's line invalidations.
//!
//! # Interface
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `cw_valid`, `cw_line`, `cw_block`, `cw_beat`, `cw_last`, `cw_data` | in | the miss unit's cache write: beat `cw_beat` of block `cw_block` into line `cw_line` (no ready: every beat is taken) |
//! | `inv_valid`, `inv_line` | in | the command engine invalidates line `inv_line`; held (line unchanged) until `inv_done` |
//! | `inv_done` | out | one cycle, from a register: the invalidation is on `tag_*` this cycle, so the tag copies take it at the edge that ends it; a lookup whose request handshake is at a later edge misses on the line (at that edge it still reads the old tag: the RAMs are read-first). At most 2 cycles after `inv_valid` rises (1 + one beat 0 ahead of it) |
//! | `tag_we`, `tag_line`, `tag_valid`, `tag_block` | out | to every port's tag copy (registered) |
//! | `data_we`, `data_row`, `data` | out | to every port's data copy (registered): `data_row = line * beats + beat` |
//! | `swept` | out | after a reset, the tags of every line have been written invalid (`cache_lines + 2` cycles after the reset): the lookup ports must not take requests before (the engine's `init_done` includes it) |
//!
//! Every output is a register, so one bus fans out to the copies of every port with no logic
//! behind it; a write decided in cycle `c` is on the outputs in cycle `c + 1` and in the RAMs
//! after the edge that ends it.
//!
//! # Who takes the tag port
//!
//! A fill of a block of several beats arrives on `cw_*` one beat per cycle, beat 0 first,
//! and its beats must never be half applied to a line that reads valid. So:
//! - beat 0 of a multi-beat block writes the line's tag invalid (it has priority over an
//!   invalidation, which then waits one cycle) and its data;
//! - a middle beat writes data only: the tag port is free for an invalidation;
//! - the last beat (the only beat of a one-beat block) writes the tag valid with its block,
//!   and its data, unless an invalidation is pending in that cycle: then the invalidation
//!   takes the tag port and the last beat's tag and data writes are both dropped. A one-beat
//!   block's line then keeps its old contents, tag and data together, still consistent; a
//!   multi-beat block's line stays invalid (beat 0 invalidated it), its partial data unused.
//!
//! Why: an invalidation never waits more than one beat (the command engine's write-through
//! waits for it), there is one tag write port per copy, and a line never reads valid with
//! data from two blocks. A dropped fill costs at most a later miss on that block; the
//! fill's waiters read the fill buffer, not the cache, so no answer changes. With no
//! invalidation, every beat is applied as it comes.

use super::miss_unit::{MissParams, BEAT_BITS, BLOCK_NUM_BITS, MEM_DATA_BITS};
use super::ram::RAM_ADDR_BITS;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct CacheWrites {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub cw_valid: Signal<In, Bit>,
    pub cw_line: Signal<In, Bits<BLOCK_NUM_BITS>>,
    pub cw_block: Signal<In, Bits<BLOCK_NUM_BITS>>,
    pub cw_beat: Signal<In, Bits<BEAT_BITS>>,
    pub cw_last: Signal<In, Bit>,
    pub cw_data: Signal<In, Bits<MEM_DATA_BITS>>,
    pub inv_valid: Signal<In, Bit>,
    pub inv_line: Signal<In, Bits<BLOCK_NUM_BITS>>,
    pub inv_done: Signal<Out, Bit>,
    pub tag_we: Signal<Out, Bit>,
    pub tag_line: Signal<Out, Bits<BLOCK_NUM_BITS>>,
    pub tag_valid: Signal<Out, Bit>,
    pub tag_block: Signal<Out, Bits<BLOCK_NUM_BITS>>,
    pub data_we: Signal<Out, Bit>,
    pub data_row: Signal<Out, Bits<RAM_ADDR_BITS>>,
    pub data: Signal<Out, Bits<MEM_DATA_BITS>>,
    pub swept: Signal<Out, Bit>,
    o_tag_we: DFF<Bit>,
    o_tag_line: DFF<Bits<BLOCK_NUM_BITS>>,
    o_tag_valid: DFF<Bit>,
    o_tag_block: DFF<Bits<BLOCK_NUM_BITS>>,
    o_data_we: DFF<Bit>,
    o_data_row: DFF<Bits<RAM_ADDR_BITS>>,
    o_data: DFF<Bits<MEM_DATA_BITS>>,
    o_inv_done: DFF<Bit>,
    sweeping: DFF<Bit>,
    sweep_line: DFF<Bits<BLOCK_NUM_BITS>>,
    swept_q: DFF<Bit>,
    first: Signal<Local, Bit>,
    last: Signal<Local, Bit>,
    take_inv: Signal<Local, Bit>,
    line_mask: Constant<Bits<BLOCK_NUM_BITS>>,
    beat_shift: Constant<Bits<8>>,
}

impl CacheWrites {
    /// The write bus of a cache of `m.cache_lines` lines of `m.beats()` rows.
    pub fn new(m: &MissParams) -> Self {
        block_new!(
            [
                clock, rst, cw_valid, cw_line, cw_block, cw_beat, cw_last, cw_data, inv_valid,
                inv_line, inv_done, tag_we, tag_line, tag_valid, tag_block, data_we, data_row,
                data, swept, o_tag_we, o_tag_line, o_tag_valid, o_tag_block, o_data_we,
                o_data_row, o_data, o_inv_done, sweeping, sweep_line, swept_q, first, last,
                take_inv,
            ]
            line_mask: Constant::new(u64::from(m.cache_lines - 1).into()),
            beat_shift: Constant::new(u64::from(m.beats().trailing_zeros()).into()),
        )
    }
}

impl Logic for CacheWrites {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            o_tag_we,
            o_tag_line,
            o_tag_valid,
            o_tag_block,
            o_data_we,
            o_data_row,
            o_data,
            o_inv_done,
            sweeping,
            sweep_line,
            swept_q
        );
        // Beat 0 of a multi-beat block; the last beat (of any block).
        self.first.next = self.cw_valid.val() & !self.cw_beat.val().any() & !self.cw_last.val();
        self.last.next = self.cw_valid.val() & self.cw_last.val();
        // An invalidation not yet served (its `inv_done` is not this cycle), after the sweep,
        // unless beat 0 has the tag port.
        self.take_inv.next = self.inv_valid.val()
            & !self.o_inv_done.q.val()
            & !self.sweeping.q.val()
            & !self.first.val();

        // Tag port.
        self.o_tag_we.d.next = self.first.val() | self.last.val() | self.take_inv.val();
        self.o_tag_line.d.next = self.cw_line.val() & self.line_mask.val();
        self.o_tag_valid.d.next = self.last.val();
        self.o_tag_block.d.next = self.cw_block.val();
        if self.take_inv.val() {
            self.o_tag_line.d.next = self.inv_line.val() & self.line_mask.val();
            self.o_tag_valid.d.next = false;
        }
        if self.sweeping.q.val() {
            self.o_tag_we.d.next = true;
            self.o_tag_line.d.next = self.sweep_line.q.val();
            self.o_tag_valid.d.next = false;
            self.sweep_line.d.next = self.sweep_line.q.val() + 1;
            if self.sweep_line.q.val() == self.line_mask.val() {
                self.sweeping.d.next = false;
            }
        }
        self.o_inv_done.d.next = self.take_inv.val();
        // Data port: every beat but a last beat that gave way to an invalidation.
        self.o_data_we.d.next = self.cw_valid.val() & !(self.last.val() & self.take_inv.val());
        self.o_data_row.d.next =
            (bit_cast::<RAM_ADDR_BITS, BLOCK_NUM_BITS>(self.cw_line.val() & self.line_mask.val())
                << self.beat_shift.val())
                | bit_cast::<RAM_ADDR_BITS, BEAT_BITS>(self.cw_beat.val());
        self.o_data.d.next = self.cw_data.val();
        // `swept` one cycle after the last sweep write is on the outputs (in the RAMs).
        self.swept_q.d.next = !self.sweeping.q.val();

        self.tag_we.next = self.o_tag_we.q.val();
        self.tag_line.next = self.o_tag_line.q.val();
        self.tag_valid.next = self.o_tag_valid.q.val();
        self.tag_block.next = self.o_tag_block.q.val();
        self.data_we.next = self.o_data_we.q.val();
        self.data_row.next = self.o_data_row.q.val();
        self.data.next = self.o_data.q.val();
        self.inv_done.next = self.o_inv_done.q.val();
        self.swept.next = self.swept_q.q.val();

        if self.rst.val() {
            self.o_tag_we.d.next = false;
            self.o_data_we.d.next = false;
            self.o_inv_done.d.next = false;
            self.sweeping.d.next = true;
            self.sweep_line.d.next = 0.into();
            self.swept_q.d.next = false;
        }
    }
}
