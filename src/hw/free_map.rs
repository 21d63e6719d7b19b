//! `FreeMap`: the set of indexes ALLOC may hand out, as a hierarchical bitmap, so that
//! finding, taking and returning an index costs a number of cycles bounded by the number
//! of levels, not by how full the table is.
//!
//! Level 0 holds one bit per index (1: FREE and not quarantined). Level `k + 1` holds one
//! bit per 64-bit word of level `k` (1: that word is not zero). Each level is a [`Ram`]
//! of 64-bit words; the top level is one word. With `n = max_qps` there are
//! `levels = ceil(log64 n)` levels (1 for n <= 64, 4 for n = 2^24).
//!
//! | operation | what it does | cycles (at most) |
//! |---|---|---|
//! | FIND `s` | the first member `>= s`; with `wrap`, if none, the first member `>= first_index` | up the levels from `s`, then down: 5 cycles a level (read over two cycles, latch, find, check), `5 * (2 * levels)`, up to `5 * (3 * levels)` with the wrap |
//! | CLEAR `i` | removes `i`; clears the summary bits whose word became zero | `5 * levels` |
//! | SET `i` | adds `i`; sets the summary bits of words that were zero | `5 * levels` |
//! | TEST `i` | whether `i` is a member | 5 |
//!
//! A read takes two cycles: the level RAMs have their output register (see [`Ram`]). Where
//! the state RAM's copies span several rows of block RAMs
//! ([`EngineParams::state_write_registered`]) each level's word is registered once more
//! straight after its RAM (`rd_q`; `rd_wait2` marks the third cycle): those copies fill
//! most of the die's block RAM sites and the free map's blocks land far from its logic (on
//! ECP5, with `configs/in_memory.toml` at index_bits 16, the route from a level-0 block to
//! `latched` was 5.95 of the 7.38 ns of the longest path); a read then takes three cycles,
//! and every count of cycles below one more per level (6 a level, TEST 6).
//!
//! CLEAR, SET and TEST share one path of 5 cycles a level (`PointRead` twice, `PointLatch`,
//! `PointPrep`, `PointApply`): read the word, latch it, compute the changed word and whether
//! it became zero (or was zero) into registers, then write it back (and go up a level while
//! the word's summary bit changes with it), or report the bit (TEST). The `PointPrep` cycle
//! keeps the 64-bit mask and zero test off the paths into the position and state registers.
//!
//! Invariant (checked by the reference model's identical structure): a bit of level `k + 1`
//! is set exactly when word of level `k` it stands for is not zero.
//!
//! After reset the levels are written word by word (`ceil(max_qps / 64)` cycles and one more,
//! in parallel with the state RAM's sweep; each word's comparisons are registered before its
//! write): every index `< max_qps` is a member. `init_done` rises after.
//! One operation at a time: `op_valid` is taken in `Idle` and in the cycle of `done`.

use super::codes::MapOps;
use super::defaults;
use super::ram::{Ram, RAM_ADDR_BITS, WORD_ADDR_BITS};
use super::{EngineParams, QPN_BITS};
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum MapState {
    Init,
    /// The last word of the init sweep goes through its pipeline stage.
    InitTail,
    Idle,
    /// FIND: read the word of the current level, latch it, find its lowest set bit, then
    /// decide (up: `down` clear; down: `down` set).
    WalkRead,
    WalkLatch,
    WalkFind,
    WalkCheck,
    /// CLEAR, SET and TEST: read the word of the current level, latch it, compute the
    /// changed word and whether the summary bit above changes (registered), then apply the
    /// operation held in `op_q` (write the word back, or report the bit).
    PointRead,
    PointLatch,
    PointPrep,
    PointApply,
    Done,
}

/// Operation codes of `op`; the blocks name them through [`MapOps`].
pub mod map_op {
    pub const FIND: u64 = 0;
    pub const CLEAR: u64 = 1;
    pub const SET: u64 = 2;
    pub const TEST: u64 = 3;
}

/// Bits of a position inside a level (an index at level 0).
const POS_BITS: usize = QPN_BITS + 1;

#[derive(LogicBlock)]
pub struct FreeMap {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub init_done: Signal<Out, Bit>,
    pub op_valid: Signal<In, Bit>,
    pub op: Signal<In, Bits<2>>,
    pub op_index: Signal<In, Bits<QPN_BITS>>,
    pub op_wrap: Signal<In, Bit>,
    /// One-cycle pulse; `found` and `result` are valid with it.
    pub done: Signal<Out, Bit>,
    pub found: Signal<Out, Bit>,
    pub result: Signal<Out, Bits<QPN_BITS>>,
    rams: Vec<Ram<Bits<64>>>,
    state: DFF<MapState>,
    level: DFF<Bits<3>>,
    pos: DFF<Bits<POS_BITS>>,
    wrapped: DFF<Bit>,
    wrap: DFF<Bit>,
    /// FIND is on its way down (from the summary bit it found towards level 0).
    down: DFF<Bit>,
    /// The operation taken (CLEAR, SET or TEST for the `Point*` states).
    op_q: DFF<Bits<2>>,
    found_q: DFF<Bit>,
    /// `state == Done`, as a flip-flop of its own.
    done_q: DFF<Bit>,
    result_q: DFF<Bits<QPN_BITS>>,
    /// The word read at the current level (masked from pos on the way up), registered.
    latched: DFF<Bits<64>>,
    /// Per 16-bit group of the latched word, the number (0..15) of its lowest set bit,
    /// registered: bits 4g+3:4g for group g.
    nums_q: DFF<Bits<16>>,
    /// The lowest set bit of each 16-bit group of `ffs_in`.
    first: Vec<FirstSet16>,
    /// The number of the lowest set bit of the first group with one.
    num_sel: Signal<Local, Bits<4>>,
    /// In `Idle` or `Done` (where an operation is taken), as a flip-flop of its own: set
    /// with `done_q` and by the end of the init sweep, cleared when an operation is taken.
    accept_q: DFF<Bit>,
    /// The init sweep is over (`init_done`), as a flip-flop: set with `Idle` after
    /// `InitTail`.
    init_done_q: DFF<Bit>,
    /// The operation is taken at this edge.
    take: Signal<Local, Bit>,
    init_word: DFF<Bits<WORD_ADDR_BITS>>,
    /// In a read state: the first of its two cycles is over (the RAMs' read latency is two
    /// edges: the array, then its output register).
    rd_wait: DFF<Bit>,
    /// With `rd_q`: the second of the three cycles of a read state is over (one flip-flop,
    /// or none).
    rd_wait2: Vec<DFF<Bit>>,
    /// With [`EngineParams::state_write_registered`]: each level's read word, registered
    /// straight after its RAM (one per level, or none: without them the Verilog has no trace
    /// of them).
    rd_q: Vec<DFF<Bits<64>>>,
    /// 1 with `rd_q` and `rd_wait2`, else 0.
    _rd_more: usize,
    /// `_levels` with `rd_q`, else 0.
    _rd_q_levels: usize,
    /// `bit_mask` and `ones << bitpos` of `pos`, registered (valid from the second cycle of
    /// a read state on: `pos` does not change while a level is read).
    bit_mask_q: DFF<Bits<64>>,
    ge_mask_q: DFF<Bits<64>>,
    /// `bit_mask_q` for CLEAR and TEST, 0 for SET, registered (one edge after `bit_mask_q`):
    /// the word
    /// `PointPrep` tests for zero (CLEAR: without the bit; SET: the whole word, which is
    /// zero exactly when the summary bit above goes from 0 to 1).
    zero_mask_q: DFF<Bits<64>>,
    /// Decodes of registers, registered (valid from the cycle after `level`, `op_q`, `wrap`
    /// or `wrapped` change; they are read in `WalkCheck` and `PointApply`, at least four
    /// cycles later): the decisions of those states read flip-flops, not decodes.
    /// `level` is 0.
    lvl0_r: DFF<Bit>,
    /// FIND ends in `WalkCheck` if the word has no member at or after pos (going up): at
    /// the top level when it may not wrap (any more); going down it ends at level 0.
    stop_nogo_r: DFF<Bit>,
    /// `level` is the top level.
    top_r: DFF<Bit>,
    /// CLEAR or SET below the top level: a word that becomes zero (CLEAR) or non-zero (SET)
    /// changes the summary bit above.
    may_prop_r: DFF<Bit>,
    is_test_r: DFF<Bit>,
    is_set_r: DFF<Bit>,
    /// One-hot state flags, registered from the state before (`WalkCheck` always follows
    /// `WalkFind`, `PointApply` always follows `PointPrep`).
    at_walk_check: DFF<Bit>,
    at_point_apply: DFF<Bit>,
    /// Computed in `PointPrep` from the latched word: the word to write back, whether each
    /// half of the word is zero under `zero_mask_q` (CLEAR: without the bit; SET: the whole
    /// word; the summary bit above changes when both halves are), and whether each half
    /// holds the bit (TEST). (Halves: each reduction is finished by one gate in
    /// `PointApply`, so no cycle holds a whole 64-bit reduction and the decision after it.)
    modified_q: DFF<Bits<64>>,
    zero_lo_q: DFF<Bit>,
    zero_hi_q: DFF<Bit>,
    bit_lo_q: DFF<Bit>,
    bit_hi_q: DFF<Bit>,
    others: Signal<Local, Bits<64>>,
    /// The latched word under `zero_mask_q`.
    zero_test: Signal<Local, Bits<64>>,
    hits: Signal<Local, Bits<64>>,
    /// The write port of every level, registered: a write decided in a cycle lands at the
    /// edge after the next, so no logic runs into the block RAMs' write ports (the next read
    /// of the level written comes later: the next level up, or the next operation).
    wa_q: DFF<Bits<RAM_ADDR_BITS>>,
    we_q: Vec<DFF<Bit>>,
    wd_q: Vec<DFF<Bits<64>>>,
    /// The init sweep's stage of comparisons: for the word `init_wa` (when `init_valid`),
    /// per level, whether it exists, is a word of ones, or the partial word.
    init_valid: DFF<Bit>,
    init_wa: DFF<Bits<WORD_ADDR_BITS>>,
    init_exists: Vec<DFF<Bit>>,
    init_ones: Vec<DFF<Bit>>,
    init_partial: Vec<DFF<Bit>>,
    /// Per level: the current word exists at that level (`word < depth`), registered; then
    /// the current level's, registered (valid from the third cycle after `pos` and `level`
    /// change: the `*Latch` cycle that uses it).
    exists_k: Vec<DFF<Bit>>,
    /// `word + 1`, registered (the position one level up after this word, for `WalkCheck`).
    next_word_q: DFF<Bits<POS_BITS>>,
    word_exists_q: DFF<Bit>,
    rd: Signal<Local, Bits<64>>,
    init_pos: Signal<Local, Bits<POS_BITS>>,
    word: Signal<Local, Bits<POS_BITS>>,
    bitpos: Signal<Local, Bits<6>>,
    bit_mask: Signal<Local, Bits<64>>,
    masked: Signal<Local, Bits<64>>,
    /// The latched word with the current bit cleared (CLEAR) or set (SET).
    modified: Signal<Local, Bits<64>>,
    /// CLEAR or SET, below the top level: the word went from non-zero to zero (CLEAR) or
    /// from zero to non-zero (SET), so the summary bit one level up changes too.
    propagate: Signal<Local, Bit>,
    /// FIND in `WalkCheck`: down, or up with a member at or after pos in this word (a group
    /// of it has one: the whole word's OR is not a register of its own, so no cycle
    /// reduces 64 bits to one and registers it).
    go_down: Signal<Local, Bit>,
    /// FIND ends in `WalkCheck` (found at level 0, or nothing up to the top level).
    walk_stop: Signal<Local, Bit>,
    word_exists: Signal<Local, Bit>,
    ffs_in: Signal<Local, Bits<64>>,
    ffs: Signal<Local, Bits<POS_BITS>>,
    /// The position with its bit number cleared.
    ffs_base: Signal<Local, Bits<POS_BITS>>,
    /// Per 16-bit group of the latched word: it has a set bit, registered.
    grp_any_q: DFF<Bits<4>>,
    /// 16 * g for the groups g = 1, 2, 3, at the width of a position (bits 5:4 of a found
    /// bit's number).
    grp_num: Vec<Constant<Bits<POS_BITS>>>,
    hit: Signal<Local, Bits<POS_BITS>>,
    depths: Vec<Constant<Bits<POS_BITS>>>,
    full_words: Vec<Constant<Bits<POS_BITS>>>,
    /// `full_words + 1`: compared with `<` (a comparison with `full_words`, which can be 0,
    /// would be constant).
    full_words_1: Vec<Constant<Bits<POS_BITS>>>,
    partial: Vec<Constant<Bits<64>>>,
    top_level: Constant<Bits<3>>,
    ops: MapOps,
    last_init_word: Constant<Bits<WORD_ADDR_BITS>>,
    first_index: Constant<Bits<POS_BITS>>,
    ones: Constant<Bits<64>>,
    one: Constant<Bits<64>>,
    _levels: usize,
}

/// Words of each level for `n` members: level 0 has `ceil(n / 64)`, each next level one bit
/// per word of the level below, up to a level of one word.
pub fn level_words(n: u32) -> Vec<u32> {
    let mut words = vec![n.div_ceil(64).max(1)];
    while *words.last().unwrap() > 1 {
        let below = *words.last().unwrap();
        words.push(below.div_ceil(64));
    }
    words
}

impl FreeMap {
    pub fn new(p: &EngineParams) -> Self {
        let words = level_words(p.max_qps);
        // Set bits of level k after reset: one per index at level 0, then one per non-zero
        // word of the level below.
        let mut set_bits = vec![u64::from(p.max_qps)];
        for _ in 1..words.len() {
            let below = *set_bits.last().unwrap();
            set_bits.push(below.div_ceil(64));
        }
        let levels = words.len();
        let more = usize::from(p.state_write_registered());
        block_new!(
            [
                clock, rst, init_done, op_valid, op, op_index, op_wrap, done, found, result, state,
                level, pos, wrapped, wrap, down, op_q, found_q, done_q, result_q, latched, nums_q,
                num_sel, rd_wait, bit_mask_q, ge_mask_q, zero_mask_q,
                lvl0_r, stop_nogo_r, top_r, may_prop_r, is_test_r, is_set_r, at_walk_check,
                at_point_apply, modified_q, zero_lo_q, zero_hi_q, bit_lo_q, bit_hi_q, others,
                zero_test, hits, wa_q, init_valid, init_wa, next_word_q, word_exists_q, accept_q,
                init_done_q, take, init_word, rd, init_pos, word, bitpos, bit_mask, masked,
                modified, propagate, go_down, walk_stop, word_exists, ffs_in, ffs, ffs_base,
                grp_any_q, hit, ops,
            ]
            rams: words
                .iter()
                .map(|&d| Ram::new(d as usize, p.fpga))
                .collect(),
            first: (0..4).map(|_| FirstSet16::default()).collect(),
            we_q: defaults(words.len()),
            wd_q: defaults(words.len()),
            rd_wait2: defaults(more),
            rd_q: defaults(levels * more),
            _rd_more: more,
            _rd_q_levels: levels * more,
            init_exists: defaults(words.len()),
            init_ones: defaults(words.len()),
            init_partial: defaults(words.len()),
            exists_k: defaults(words.len()),
            grp_num: (1..4)
                .map(|g| Constant::new((16 * g as u64).into()))
                .collect(),
            depths: words
                .iter()
                .map(|&d| Constant::new(u64::from(d).into()))
                .collect(),
            full_words: set_bits
                .iter()
                .map(|&b| Constant::new((b / 64).into()))
                .collect(),
            full_words_1: set_bits
                .iter()
                .map(|&b| Constant::new((b / 64 + 1).into()))
                .collect(),
            partial: set_bits
                .iter()
                .map(|&b| Constant::new(((1u64 << (b % 64)) - 1).into()))
                .collect(),
            top_level: Constant::new((levels as u64 - 1).into()),
            last_init_word: Constant::new(u64::from(words[0] - 1).into()),
            first_index: Constant::new(u64::from(p.first_index).into()),
            ones: Constant::new(u64::MAX.into()),
            one: Constant::new(1u64.into()),
            _levels: levels,
        )
    }
}

impl Logic for FreeMap {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            level,
            pos,
            wrapped,
            wrap,
            down,
            op_q,
            found_q,
            result_q,
            init_word,
            latched,
            nums_q,
            accept_q,
            init_done_q,
            rd_wait,
            bit_mask_q,
            ge_mask_q,
            zero_mask_q,
            lvl0_r,
            stop_nogo_r,
            top_r,
            may_prop_r,
            is_test_r,
            is_set_r,
            at_walk_check,
            at_point_apply,
            modified_q,
            zero_lo_q,
            zero_hi_q,
            bit_lo_q,
            bit_hi_q,
            wa_q,
            init_valid,
            init_wa,
            word_exists_q,
            grp_any_q,
            next_word_q,
            done_q
        );
        // A read state lasts two cycles; rd_wait is back to 0 when it is left.
        self.rd_wait.d.next = false;
        for x in 0..self._rd_more {
            self.rd_wait2[x].clock.next = self.clock.val();
            self.rd_wait2[x].d.next = false;
        }
        // Assigned once, from a register: a default overridden later in this block would
        // pulse `done` in an event-driven simulator, and the engine reads it back. `done_q`
        // is set exactly at the edges that enter `Done` (a flip-flop, not a decode of the
        // state, on the engine's paths).
        self.done.next = self.done_q.q.val();
        self.done_q.d.next = false;
        self.found.next = self.found_q.q.val();
        self.result.next = self.result_q.q.val();
        self.init_done.next = self.init_done_q.q.val();

        // The word and bit of the current position at the current level, and that level's
        // read data.
        self.word.next = self.pos.q.val() >> 6;
        self.bitpos.next = self.pos.q.val().get_bits::<6>(0);
        self.bit_mask.next = self.one.val() << self.bitpos.val();
        self.bit_mask_q.d.next = self.bit_mask.val();
        self.ge_mask_q.d.next = self.ones.val() << self.bitpos.val();
        // From `bit_mask_q` (one edge later: valid from the `PointLatch` cycle on, used in
        // `PointPrep`), so that no cycle holds the position's decode and the choice by op.
        self.zero_mask_q.d.next = self.bit_mask_q.q.val();
        if self.is_set_r.q.val() {
            self.zero_mask_q.d.next = 0.into();
        }
        self.lvl0_r.d.next = self.level.q.val() == 0;
        self.top_r.d.next = self.level.q.val() == self.top_level.val();
        self.stop_nogo_r.d.next = (self.level.q.val() == self.top_level.val())
            & !(self.wrap.q.val() & !self.wrapped.q.val());
        if self.down.q.val() {
            self.stop_nogo_r.d.next = self.level.q.val() == 0;
        }
        self.may_prop_r.d.next = (self.level.q.val() != self.top_level.val())
            & (self.op_q.q.val() != self.ops.test.val());
        self.is_test_r.d.next = self.op_q.q.val() == self.ops.test.val();
        self.is_set_r.d.next = self.op_q.q.val() == self.ops.set.val();
        self.at_walk_check.d.next = self.state.q.val() == MapState::WalkFind;
        self.at_point_apply.d.next = self.state.q.val() == MapState::PointPrep;
        self.next_word_q.d.next = self.word.val() + 1;
        // CLEAR and SET: the latched word with the bit changed (registered in `PointPrep`),
        // and whether the summary bit one level up changes with it: SET, the word was zero;
        // CLEAR, it is zero without the bit (both from the halves registered in `PointPrep`
        // under `zero_mask_q`), below the top level.
        self.others.next = self.latched.q.val() & !self.bit_mask_q.q.val();
        self.zero_test.next = self.latched.q.val() & !self.zero_mask_q.q.val();
        self.hits.next = self.latched.q.val() & self.bit_mask_q.q.val();
        if self.is_set_r.q.val() {
            self.modified.next = self.latched.q.val() | self.bit_mask_q.q.val();
        } else {
            self.modified.next = self.others.val();
        }
        self.propagate.next =
            self.may_prop_r.q.val() & self.zero_lo_q.q.val() & self.zero_hi_q.q.val();
        self.rd.next = 0.into();
        self.word_exists.next = false;
        self.init_pos.next = bit_cast::<POS_BITS, WORD_ADDR_BITS>(self.init_word.q.val());
        self.init_wa.d.next = self.init_word.q.val();
        self.init_valid.d.next = false;
        self.wa_q.d.next = self.word.val().get_bits::<RAM_ADDR_BITS>(0);
        for k in 0..self._levels {
            self.rams[k].clock.next = self.clock.val();
            self.we_q[k].clock.next = self.clock.val();
            self.wd_q[k].clock.next = self.clock.val();
            self.rams[k].read_address.next = self.word.val().get_bits::<RAM_ADDR_BITS>(0);
            self.rams[k].write_address.next = self.wa_q.q.val();
            self.rams[k].write_enable.next = self.we_q[k].q.val();
            self.rams[k].write_data.next = self.wd_q[k].q.val();
            self.init_exists[k].clock.next = self.clock.val();
            self.exists_k[k].clock.next = self.clock.val();
            self.exists_k[k].d.next = self.word.val() < self.depths[k].val();
            self.init_ones[k].clock.next = self.clock.val();
            self.init_partial[k].clock.next = self.clock.val();
            self.we_q[k].d.next = false;
            self.wd_q[k].d.next = self.modified_q.q.val();
            // The init sweep's comparisons, one stage ahead of its writes.
            self.init_exists[k].d.next = self.init_pos.val() < self.depths[k].val();
            self.init_ones[k].d.next = self.init_pos.val() < self.full_words_1[k].val();
            self.init_partial[k].d.next = self.init_pos.val() == self.full_words[k].val();
            if self.level.q.val().index() == k {
                self.rd.next = self.rams[k].read_data.val();
                self.word_exists.next = self.exists_k[k].q.val();
            }
        }
        // `rd_q`: the level's word one edge later, from a flip-flop next to its blocks.
        for k in 0..self._rd_q_levels {
            self.rd_q[k].clock.next = self.clock.val();
            self.rd_q[k].d.next = self.rams[k].read_data.val();
            if self.level.q.val().index() == k {
                self.rd.next = self.rd_q[k].q.val();
            }
        }
        // Registered: valid in the `WalkLatch` cycle (the third after `pos` changes).
        self.word_exists_q.d.next = self.word_exists.val();
        self.masked.next = self.rd.val() & self.ge_mask_q.q.val();
        if !self.word_exists_q.q.val() {
            self.masked.next = 0.into();
        }

        // Lowest set bit of the word latched one cycle before (the RAM read and the mask
        // in one cycle, the find-first-set and the next position in the next: no path
        // runs from a RAM's read port through the whole search), as a position:
        // (word << 6) | bit.
        self.ffs_in.next = self.latched.q.val();
        self.ffs_base.next = self.pos.q.val() & 0x1FF_FFC0_u64;
        self.ffs.next = self.ffs_base.val();
        // The lowest set bit, by 16-bit groups: in each group the number of its lowest set
        // bit and whether the group has one, registered; in the next cycle, the first group
        // that has one gives bits 5:4 of the number, its registered number bits 3:0.
        for g in 0..4 {
            self.first[g].bits.next = self.ffs_in.val().get_bits::<16>(16 * g);
        }
        self.nums_q.d.next = (bit_cast::<16, 4>(self.first[3].num.val()) << 12)
            | (bit_cast::<16, 4>(self.first[2].num.val()) << 8)
            | (bit_cast::<16, 4>(self.first[1].num.val()) << 4)
            | bit_cast::<16, 4>(self.first[0].num.val());
        self.grp_any_q.d.next = bit_cast::<4, 1>(self.first[0].any.val().into())
            | (bit_cast::<4, 1>(self.first[1].any.val().into()) << 1)
            | (bit_cast::<4, 1>(self.first[2].any.val().into()) << 2)
            | (bit_cast::<4, 1>(self.first[3].any.val().into()) << 3);
        // The first group with a set bit (group 3 when none: then `grp_any_q` is clear and the
        // number is not used).
        self.num_sel.next = self.nums_q.q.val().get_bits::<4>(12);
        self.ffs.next = self.ffs.val() | self.grp_num[2].val();
        if self.grp_any_q.q.val().get_bit(2) {
            self.num_sel.next = self.nums_q.q.val().get_bits::<4>(8);
            self.ffs.next = self.ffs_base.val() | self.grp_num[1].val();
        }
        if self.grp_any_q.q.val().get_bit(1) {
            self.num_sel.next = self.nums_q.q.val().get_bits::<4>(4);
            self.ffs.next = self.ffs_base.val() | self.grp_num[0].val();
        }
        if self.grp_any_q.q.val().get_bit(0) {
            self.num_sel.next = self.nums_q.q.val().get_bits::<4>(0);
            self.ffs.next = self.ffs_base.val();
        }
        self.ffs.next = self.ffs.val() | bit_cast::<POS_BITS, 4>(self.num_sel.val());
        self.hit.next = self.ffs.val();

        if self.init_valid.q.val() {
            self.wa_q.d.next = bit_cast::<RAM_ADDR_BITS, WORD_ADDR_BITS>(self.init_wa.q.val());
            for k in 0..self._levels {
                self.we_q[k].d.next = self.init_exists[k].q.val();
                self.wd_q[k].d.next = 0.into();
                if self.init_ones[k].q.val() {
                    self.wd_q[k].d.next = self.ones.val();
                    if self.init_partial[k].q.val() {
                        self.wd_q[k].d.next = self.partial[k].val();
                    }
                }
            }
        }

        match self.state.q.val() {
            MapState::Init => {
                // Every index < max_qps is a member: whole words of ones, one partial word.
                // The word `init_word` is compared in this cycle, written from the next.
                self.init_valid.d.next = true;
                self.init_word.d.next = self.init_word.q.val() + 1;
                if self.init_word.q.val() == self.last_init_word.val() {
                    self.state.d.next = MapState::InitTail;
                }
            }
            MapState::InitTail => {
                self.state.d.next = MapState::Idle;
                self.accept_q.d.next = true;
                self.init_done_q.d.next = true;
            }
            MapState::Idle => {}
            MapState::WalkRead => {
                self.rd_wait.d.next = !self.rd_wait.q.val();
                if self.rd_wait.q.val() {
                    self.state.d.next = MapState::WalkLatch;
                }
                // With `rd_q`: three cycles (`rd_wait`, then `rd_wait2`).
                for x in 0..self._rd_more {
                    self.rd_wait2[x].d.next = self.rd_wait.q.val();
                    self.rd_wait.d.next = !self.rd_wait.q.val() & !self.rd_wait2[x].q.val();
                    self.state.d.next = MapState::WalkRead;
                    if self.rd_wait2[x].q.val() {
                        self.state.d.next = MapState::WalkLatch;
                    }
                }
            }
            MapState::WalkLatch => {
                // Up: the members at or after pos in the word just read. Down: the word.
                if self.down.q.val() {
                    self.latched.d.next = self.rd.val();
                } else {
                    self.latched.d.next = self.masked.val();
                }
                self.state.d.next = MapState::WalkFind;
            }
            MapState::WalkFind => {
                self.state.d.next = MapState::WalkCheck;
            }
            // Decided below from the one-hot flag `at_walk_check`.
            MapState::WalkCheck => {}
            MapState::PointRead => {
                self.rd_wait.d.next = !self.rd_wait.q.val();
                if self.rd_wait.q.val() {
                    self.state.d.next = MapState::PointLatch;
                }
                // With `rd_q`: three cycles (`rd_wait`, then `rd_wait2`).
                for x in 0..self._rd_more {
                    self.rd_wait2[x].d.next = self.rd_wait.q.val();
                    self.rd_wait.d.next = !self.rd_wait.q.val() & !self.rd_wait2[x].q.val();
                    self.state.d.next = MapState::PointRead;
                    if self.rd_wait2[x].q.val() {
                        self.state.d.next = MapState::PointLatch;
                    }
                }
            }
            MapState::PointLatch => {
                self.latched.d.next = self.rd.val();
                self.state.d.next = MapState::PointPrep;
            }
            MapState::PointPrep => {
                self.modified_q.d.next = self.modified.val();
                self.zero_lo_q.d.next = !self.zero_test.val().get_bits::<32>(0).any();
                self.zero_hi_q.d.next = !self.zero_test.val().get_bits::<32>(32).any();
                self.bit_lo_q.d.next = self.hits.val().get_bits::<32>(0).any();
                self.bit_hi_q.d.next = self.hits.val().get_bits::<32>(32).any();
                self.state.d.next = MapState::PointApply;
            }
            // Decided below from the one-hot flag `at_point_apply`.
            MapState::PointApply => {}
            MapState::Done => {
                self.state.d.next = MapState::Idle;
            }
        }
        // FIND's decision in `WalkCheck`, from flip-flops only. Down, or up with a member at
        // or after pos in this word: found at level 0, else go down from it. Up with none:
        // the next word, one level up; past the top: wrap once, or not found. The position
        // and level take their next value whatever the decision (after `Done` they are not
        // read until the next operation loads them): only the state, `done` and `found`
        // wait for it, so no decision runs into the enables of `pos` and `level`.
        self.go_down.next = self.down.q.val() | self.grp_any_q.q.val().any();
        self.walk_stop.next = self.stop_nogo_r.q.val();
        if self.grp_any_q.q.val().any() {
            self.walk_stop.next = self.lvl0_r.q.val();
        }
        if self.at_walk_check.q.val() {
            if self.go_down.val() & self.lvl0_r.q.val() {
                self.found_q.d.next = true;
                self.result_q.d.next = self.hit.val().get_bits::<QPN_BITS>(0);
            }
            self.done_q.d.next = self.walk_stop.val();
            self.accept_q.d.next = self.walk_stop.val();
            if self.walk_stop.val() {
                self.state.d.next = MapState::Done;
            } else {
                self.state.d.next = MapState::WalkRead;
            }
            if self.go_down.val() {
                self.pos.d.next = self.hit.val() << 6;
                self.level.d.next = self.level.q.val() - 1;
                self.down.d.next = true;
            } else if self.top_r.q.val() {
                self.wrapped.d.next = true;
                self.level.d.next = 0.into();
                self.pos.d.next = self.first_index.val();
            } else {
                self.pos.d.next = self.next_word_q.q.val();
                self.level.d.next = self.level.q.val() + 1;
            }
        }
        // CLEAR, SET and TEST in `PointApply`: report the bit (TEST), or write the word back
        // and go up a level while its summary bit changes with it. As in `WalkCheck`, the
        // position and level move up whatever the decision.
        if self.at_point_apply.q.val() {
            self.pos.d.next = self.word.val();
            self.level.d.next = self.level.q.val() + 1;
            if self.is_test_r.q.val() {
                self.found_q.d.next = self.bit_lo_q.q.val() | self.bit_hi_q.q.val();
                self.result_q.d.next = self.pos.q.val().get_bits::<QPN_BITS>(0);
            } else {
                for k in 0..self._levels {
                    if self.level.q.val().index() == k {
                        self.we_q[k].d.next = true;
                    }
                }
            }
            if self.propagate.val() {
                self.state.d.next = MapState::PointRead;
            } else {
                self.state.d.next = MapState::Done;
                self.done_q.d.next = true;
                self.accept_q.d.next = true;
            }
        }
        // A new operation is taken when idle, and also in the cycle that reports the previous
        // one done, so a caller can chain operations back to back.
        self.take.next = self.accept_q.q.val() & self.op_valid.val();
        if self.take.val() {
            self.accept_q.d.next = false;
            self.level.d.next = 0.into();
            self.pos.d.next = bit_cast::<POS_BITS, QPN_BITS>(self.op_index.val());
            self.wrap.d.next = self.op_wrap.val();
            self.wrapped.d.next = false;
            self.found_q.d.next = false;
            self.op_q.d.next = self.op.val();
            self.down.d.next = false;
            if self.op.val() == self.ops.find.val() {
                self.state.d.next = MapState::WalkRead;
            } else {
                self.state.d.next = MapState::PointRead;
            }
        }

        if self.rst.val() {
            for k in 0..self._levels {
                self.we_q[k].d.next = false;
            }
            self.init_valid.d.next = false;
            self.done_q.d.next = false;
            self.accept_q.d.next = false;
            self.init_done_q.d.next = false;
            self.state.d.next = MapState::Init;
            self.init_word.d.next = 0.into();
            self.found_q.d.next = false;
        }
    }
}

/// The number (0..15) of the lowest set bit of a 16-bit group, and whether it has one: a
/// priority encoder written by nibbles (the first nibble with a set bit gives bits 3:2, its
/// lowest set bit bits 1:0) so that it maps onto three levels of LUTs rather than a chain of
/// 16 priorities. `num` is 0 when no bit is set.
#[derive(LogicBlock)]
pub struct FirstSet16 {
    pub bits: Signal<In, Bits<16>>,
    pub num: Signal<Out, Bits<4>>,
    pub any: Signal<Out, Bit>,
    num_l: Signal<Local, Bits<4>>,
    /// 0..15 as 4-bit constants.
    c4: Vec<Constant<Bits<4>>>,
}

impl Default for FirstSet16 {
    fn default() -> Self {
        Self {
            bits: Default::default(),
            num: Default::default(),
            any: Default::default(),
            num_l: Default::default(),
            c4: (0..16).map(|i| Constant::new((i as u64).into())).collect(),
        }
    }
}

impl Logic for FirstSet16 {
    #[hdl_gen]
    fn update(&mut self) {
        // The nibbles are visited from the highest: the lowest with a set bit is assigned
        // last.
        self.num_l.next = 0.into();
        for j in 0..4 {
            if self.bits.val().get_bits::<4>(12 - 4 * j).any() {
                self.num_l.next = self.c4[15 - 4 * j].val();
                if self.bits.val().get_bit(14 - 4 * j) {
                    self.num_l.next = self.c4[14 - 4 * j].val();
                }
                if self.bits.val().get_bit(13 - 4 * j) {
                    self.num_l.next = self.c4[13 - 4 * j].val();
                }
                if self.bits.val().get_bit(12 - 4 * j) {
                    self.num_l.next = self.c4[12 - 4 * j].val();
                }
            }
        }
        self.num.next = self.num_l.val();
        self.any.next = self.bits.val().any();
    }
}
