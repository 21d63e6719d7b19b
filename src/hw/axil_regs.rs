//! `AxilRegs`: the AXI4-Lite control slave and the register map of SPEC §6.
//!
//! | channel | behaviour |
//! |---|---|
//! | write (AW + W) | taken together, one write at a time: `awready = wready = awvalid & wvalid` while idle. A register write answers on B the cycle after; a CMD write holds B until the command engine is done (`cmd_done`), so the B handshake marks the command's completion. |
//! | read (AR -> R) | served while a write waits (so STATUS and CMD_RESULT can be polled during a command); R comes three cycles after AR (at the AR handshake the address is decoded into one select per word and registered with the engine's counter word it selects; at the next edge the word is read, with the port counter word it selects (the port counters count one edge after their response handshake); at the next R is loaded; DIR_ENTRY_* one cycle more); `arready` is low from the AR handshake until R is taken. Counters read as of the AR handshake. |
//!
//! Errors: a read of an unmapped address (and of CMD, and of the blocks of ports that do
//! not exist) and a write to a read-only or unmapped address answer SLVERR and change
//! nothing; so does a write of TABLE_BASE_LO/HI while IN_USE is not 0. Byte strobes are
//! honoured on TABLE_BASE and ignored on CMD; `addr[1:0]` is not wired in (word registers).

use super::codes::{PortWords, RegWords};
use super::ram::{Ram, RAM_ADDR_BITS};
use super::{DirEntry, ADDR_BITS, DIR_BITS, PAGE_BITS, QPN_BITS, TIME_BITS};
use crate::spec::{dir_entry, regs};

/// Bits of the page base in DIR_ENTRY_LO (`[31:6]`).
const LO_PAGE_BITS: usize = 32 - dir_entry::BASE_SHIFT as usize;
const OP_BITS: usize = regs::CMD_OPCODE_BITS;
const RESULT_BITS: usize = regs::CMD_RESULT_STATUS_BITS;
const WORD_BITS: usize = regs::WORD_ADDR_BITS;
use super::cmd_counters::CmdCounts;
use super::defaults;
use super::lookup_counters::LookupCounts;
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum WriteState {
    Idle,
    Command,
    Response,
}

/// A read address decoded (stage 1 of a read): one select per register word read in stage
/// 2, and whether the address is mapped (`ok`).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
struct ReadSel {
    id: Bit,
    version: Bit,
    max_qps: Bit,
    entry_bytes: Bit,
    geometry: Bit,
    status: Bit,
    first_index: Bit,
    base_lo: Bit,
    base_hi: Bit,
    dir_index: Bit,
    dir_lo: Bit,
    dir_hi: Bit,
    cmd_result: Bit,
    ok: Bit,
}

#[derive(LogicBlock)]
pub struct AxilRegs {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    // AXI4-Lite, word address (byte address bits [11:2]).
    pub awaddr: Signal<In, Bits<WORD_BITS>>,
    pub awvalid: Signal<In, Bit>,
    pub awready: Signal<Out, Bit>,
    pub wdata: Signal<In, Bits<32>>,
    pub wstrb: Signal<In, Bits<4>>,
    pub wvalid: Signal<In, Bit>,
    pub wready: Signal<Out, Bit>,
    pub bresp: Signal<Out, Bits<2>>,
    pub bvalid: Signal<Out, Bit>,
    pub bready: Signal<In, Bit>,
    pub araddr: Signal<In, Bits<WORD_BITS>>,
    pub arvalid: Signal<In, Bit>,
    pub arready: Signal<Out, Bit>,
    pub rdata: Signal<Out, Bits<32>>,
    pub rresp: Signal<Out, Bits<2>>,
    pub rvalid: Signal<Out, Bit>,
    pub rready: Signal<In, Bit>,
    // Command engine.
    pub cmd_valid: Signal<Out, Bit>,
    pub cmd_op: Signal<Out, Bits<OP_BITS>>,
    pub cmd_qpn: Signal<Out, Bits<QPN_BITS>>,
    /// Edge count at the CMD write handshake (the time the quarantine counts with).
    pub cmd_time: Signal<Out, Bits<TIME_BITS>>,
    pub cmd_done: Signal<In, Bit>,
    pub result_status: Signal<In, Bits<RESULT_BITS>>,
    pub result_qpn: Signal<In, Bits<QPN_BITS>>,
    pub init_done: Signal<In, Bit>,
    /// The command engine's counters.
    pub cmd_counts: Signal<In, CmdCounts>,
    /// Lookup ports' counters, one entry per port (MEM_ERROR stays 0 but in two_level
    /// in_memory, PAGE_ABSENT in flat).
    pub port_counts: Vec<Signal<In, LookupCounts>>,
    /// TABLE_BASE, `addr_bits` wide (higher bits 0).
    pub table_base: Signal<Out, Bits<ADDR_BITS>>,
    /// State in memory (SPEC §9; one each, none with the state on chip): STATE_BASE,
    /// `addr_bits` wide, and the events of this cycle the §9 counters count (each 0..=4:
    /// summed over the ports at the top level, 32 bits wide so that no cast is needed in the
    /// loop over these 0/1-sized ports: hdl_gen does not substitute a loop index inside a
    /// cast's argument).
    pub state_base: Vec<Signal<Out, Bits<ADDR_BITS>>>,
    /// High for one cycle after each accepted write of STATE_BASE_LO or _HI, with
    /// `state_base` already the new value: SPEC §9, every such write starts a new table, also
    /// one that leaves the value as it was.
    pub state_base_wr: Vec<Signal<Out, Bit>>,
    pub ev_hit: Vec<Signal<In, Bits<32>>>,
    pub ev_miss: Vec<Signal<In, Bits<32>>>,
    pub ev_merged: Vec<Signal<In, Bits<32>>>,
    pub ev_filtered: Vec<Signal<In, Bits<32>>>,
    pub ev_reads: Vec<Signal<In, Bits<32>>>,
    pub ev_writes: Vec<Signal<In, Bits<32>>>,
    /// STATE_BASE, both words.
    sbase: Vec<DFF<Bits<ADDR_BITS>>>,
    /// A write of STATE_BASE was accepted at the last edge.
    sb_wr: Vec<DFF<Bit>>,
    /// CACHE_HIT, CACHE_MISS, MISS_MERGED, FILTERED, MEM_READS, MEM_WRITES.
    c_hit: Vec<DFF<Bits<32>>>,
    c_miss: Vec<DFF<Bits<32>>>,
    c_merged: Vec<DFF<Bits<32>>>,
    c_filtered: Vec<DFF<Bits<32>>>,
    c_reads: Vec<DFF<Bits<32>>>,
    c_writes: Vec<DFF<Bits<32>>>,
    /// The events, registered before they are counted (one edge later): the events come
    /// from all over the die (the ports' caches, the miss unit, the memory port), the
    /// counters' carry chains sit together here.
    q_hit: Vec<DFF<Bits<32>>>,
    q_miss: Vec<DFF<Bits<32>>>,
    q_merged: Vec<DFF<Bits<32>>>,
    q_filtered: Vec<DFF<Bits<32>>>,
    q_reads: Vec<DFF<Bits<32>>>,
    q_writes: Vec<DFF<Bits<32>>>,
    state_bytes: Vec<Constant<Bits<32>>>,
    /// A write of STATE_BASE_LO / _HI, as a 64-bit mask and value.
    sb_mask: Vec<Signal<Local, Bits<ADDR_BITS>>>,
    sb_value: Vec<Signal<Local, Bits<ADDR_BITS>>>,
    sb_write: Signal<Local, Bit>,
    /// `addr_bits` ones: STATE_BASE keeps that many bits.
    addr_mask: Vec<Constant<Bits<ADDR_BITS>>>,
    _smem: usize,
    /// Write port of every copy of the on-chip directory (two_level on_chip).
    /// (One each in two_level on_chip mode, none otherwise.)
    pub dir_we: Vec<Signal<Out, Bit>>,
    pub dir_waddr: Vec<Signal<Out, Bits<RAM_ADDR_BITS>>>,
    pub dir_wdata: Vec<Signal<Out, Bits<DIR_BITS>>>,
    /// The control port's copy of the on-chip directory (read through DIR_ENTRY_*).
    dirs: Vec<Ram<Bits<DIR_BITS>>>,
    dir_index: DFF<Bits<32>>,
    stage_lo: DFF<Bits<32>>,
    stage_hi: DFF<Bits<32>>,
    ar_dir: DFF<Bit>,
    commit: DFF<Bit>,
    ar_dir_hi: DFF<Bit>,
    /// After reset every directory entry is written "not present", one per cycle; control
    /// writes wait until then.
    dir_sweep: DFF<Bits<RAM_ADDR_BITS>>,
    dir_swept: DFF<Bit>,
    dir_last: Vec<Constant<Bits<RAM_ADDR_BITS>>>,
    dir_entry: Signal<Local, Bits<64>>,
    dir_rd: Signal<Local, Bits<DIR_BITS>>,
    /// Each directory copy's write, decided here and assigned to `dir_we`/`dir_waddr`/
    /// `dir_wdata` once.
    dir_we_l: Vec<Signal<Local, Bit>>,
    dir_waddr_l: Vec<Signal<Local, Bits<RAM_ADDR_BITS>>>,
    dir_wdata_l: Vec<Signal<Local, Bits<DIR_BITS>>>,

    swept_ok: Signal<Local, Bit>,
    on_chip: Constant<Bit>,
    dir_entries: Vec<Constant<Bits<32>>>,
    _dirs: usize,
    wstate: DFF<WriteState>,
    now: DFF<Bits<TIME_BITS>>,
    cmd_time_q: DFF<Bits<TIME_BITS>>,
    cmd_op_q: DFF<Bits<OP_BITS>>,
    cmd_qpn_q: DFF<Bits<QPN_BITS>>,
    bresp_q: DFF<Bits<2>>,
    base_lo: DFF<Bits<32>>,
    base_hi: DFF<Bits<32>>,
    /// The word of a read is complete (its R beat is loaded at the next edge).
    rvalid_q: DFF<Bit>,
    /// The R channel's registers.
    r_valid: DFF<Bit>,
    r_data: DFF<Bits<32>>,
    r_resp: DFF<Bits<2>>,
    /// The port counter a read selects (its block, port and counter), registered at the AR
    /// handshake, and its word (stage 2).
    rport_hit: DFF<Bit>,
    rport_sel: DFF<Bits<2>>,
    rport_reg: DFF<Bits<3>>,
    pword: Signal<Local, Bits<32>>,
    pword_q: DFF<Bits<32>>,
    rdata_q: DFF<Bits<32>>,
    rresp_q: DFF<Bits<2>>,
    write_fire: Signal<Local, Bit>,
    strobe_mask: Signal<Local, Bits<32>>,
    base_lo_new: Signal<Local, Bits<32>>,
    base_hi_new: Signal<Local, Bits<32>>,
    busy: Signal<Local, Bit>,
    read_data: Signal<Local, Bits<32>>,
    read_ok: Signal<Local, Bit>,
    /// IN_USE is 0, registered (IN_USE changes only while a command runs, and a command
    /// holds the write channel until it is done: the flag is current by the next write).
    no_qps_q: DFF<Bit>,
    /// IN_USE and QUARANTINED are both 0, registered (the quarantine changes only in
    /// commands too): STATE_BASE may move (SPEC §9).
    no_qps_quiet_q: DFF<Bit>,
    /// The read's first stage: an AR handshake, its address and the counter word it
    /// selects, registered.
    ar_fire: Signal<Local, Bit>,
    ar_q: DFF<Bit>,
    /// The address decoded: one select per word, and whether it is mapped.
    sel: Signal<Local, ReadSel>,
    rsel: DFF<ReadSel>,
    cnt_word: Signal<Local, Bits<32>>,
    cnt_word_q: DFF<Bits<32>>,
    port_sel: Signal<Local, Bits<2>>,
    /// The counters of one port (in the loop over the ports).
    port_cnt: Signal<Local, LookupCounts>,
    port_reg: Signal<Local, Bits<3>>,
    id: Constant<Bits<32>>,
    version: Constant<Bits<32>>,
    max_qps: Constant<Bits<32>>,
    entry_bytes: Constant<Bits<32>>,
    geometry: Constant<Bits<32>>,
    first_index: Constant<Bits<32>>,
    ports: Constant<Bits<3>>,
    base_hi_mask: Constant<Bits<32>>,
    time_one: Constant<Bits<TIME_BITS>>,
    words: RegWords,
    port: PortWords,
    /// `addr[9:5]` of the per-port counter blocks.
    port_block: Constant<Bits<5>>,
    cmd_op_shift: Constant<Bits<5>>,
    result_status_shift: Constant<Bits<32>>,
    result_busy_bit: Constant<Bits<32>>,
    init_done_bit: Constant<Bits<32>>,
    busy_bit: Constant<Bits<32>>,
    base_shift: Constant<Bits<5>>,
    present_bit: Constant<Bits<5>>,
    /// Where [`DirEntry`]'s fields sit in a stored entry.
    present_offset: Constant<Bits<6>>,
    page_offset: Constant<Bits<6>>,
    /// (Per on-chip directory copy, so that flat has no unused constant.)
    hi_page_offset: Vec<Constant<Bits<6>>>,
    _ports: usize,
}

impl AxilRegs {
    pub fn new(p: &super::EngineParams) -> Self {
        let layout = DirEntry::default();
        let mode = match (p.leaf_bits, p.dir_on_chip) {
            (None, _) => regs::MODE_FLAT,
            (Some(_), true) => regs::MODE_ON_CHIP,
            (Some(_), false) => regs::MODE_IN_MEMORY,
        };
        let geometry = u64::from(regs::geometry(
            p.index_bits,
            p.leaf_bits.unwrap_or(0),
            mode,
            p.ports as u32,
            p.reuse == crate::config::Reuse::Lowest,
            p.state_mem.is_some(),
        ));
        let smem = usize::from(p.state_mem.is_some());
        let state_bytes = p.state_mem.map_or(0, |m| {
            u64::from(p.max_qps.div_ceil(1 << m.block_bits)) * m.block_bytes()
        });
        let base_hi_mask = if p.addr_bits >= 64 {
            u64::from(u32::MAX)
        } else {
            (1u64 << (p.addr_bits - 32)) - 1
        };
        block_new!(
            [
                clock, rst, awaddr, awvalid, awready, wdata, wstrb, wvalid, wready, bresp,
                bvalid, bready, araddr, arvalid, arready, rdata, rresp, rvalid, rready,
                cmd_valid, cmd_op, cmd_qpn, cmd_time, cmd_done, result_status, result_qpn,
                init_done, cmd_counts, table_base, dir_index, stage_lo, stage_hi, ar_dir,
                commit, ar_dir_hi, dir_sweep, dir_swept, dir_entry, dir_rd, swept_ok, wstate,
                now, cmd_time_q, cmd_op_q, cmd_qpn_q, bresp_q, base_lo, base_hi, rvalid_q,
                r_valid, r_data, r_resp, rport_hit, rport_sel, rport_reg, pword, pword_q,
                rdata_q, rresp_q, write_fire, strobe_mask, base_lo_new, base_hi_new, busy,
                read_data, read_ok, no_qps_q, no_qps_quiet_q, ar_fire, ar_q, sel, rsel, cnt_word, cnt_word_q,
                port_sel, port_cnt, port_reg, words, port, sb_write,
            ]
            port_counts: defaults(p.ports),
            state_base: defaults(smem),
            state_base_wr: defaults(smem),
            ev_hit: defaults(smem),
            ev_miss: defaults(smem),
            ev_merged: defaults(smem),
            ev_filtered: defaults(smem),
            ev_reads: defaults(smem),
            ev_writes: defaults(smem),
            sbase: defaults(smem),
            sb_wr: defaults(smem),
            sb_mask: defaults(smem),
            sb_value: defaults(smem),
            addr_mask: (0..smem)
                .map(|_| Constant::new((u64::MAX >> (64 - p.addr_bits)).into()))
                .collect(),
            c_hit: defaults(smem),
            c_miss: defaults(smem),
            c_merged: defaults(smem),
            c_filtered: defaults(smem),
            c_reads: defaults(smem),
            c_writes: defaults(smem),
            q_hit: defaults(smem),
            q_miss: defaults(smem),
            q_merged: defaults(smem),
            q_filtered: defaults(smem),
            q_reads: defaults(smem),
            q_writes: defaults(smem),
            state_bytes: (0..smem)
                .map(|_| Constant::new(state_bytes.into()))
                .collect(),
            _smem: smem,
            dir_we: defaults(p.on_chip_dirs()),
            dir_waddr: defaults(p.on_chip_dirs()),
            dir_wdata: defaults(p.on_chip_dirs()),
            dirs: (0..p.on_chip_dirs())
                .map(|_| Ram::new(p.dir_entries() as usize, p.fpga).unregistered())
                .collect(),
            dir_last: (0..p.on_chip_dirs())
                .map(|_| Constant::new(u64::from(p.dir_entries().saturating_sub(1)).into()))
                .collect(),
            dir_we_l: defaults(p.on_chip_dirs()),
            dir_waddr_l: defaults(p.on_chip_dirs()),
            dir_wdata_l: defaults(p.on_chip_dirs()),

            on_chip: Constant::new(p.dir_on_chip),
            dir_entries: (0..p.on_chip_dirs())
                .map(|_| Constant::new(u64::from(p.dir_entries()).into()))
                .collect(),
            _dirs: p.on_chip_dirs(),
            id: Constant::new(u64::from(regs::ID_VALUE).into()),
            version: Constant::new(u64::from(regs::VERSION_VALUE).into()),
            max_qps: Constant::new(u64::from(p.max_qps).into()),
            entry_bytes: Constant::new(u64::from(p.entry_bytes).into()),
            geometry: Constant::new(geometry.into()),
            first_index: Constant::new(u64::from(p.first_index).into()),
            ports: Constant::new((p.ports as u64).into()),
            base_hi_mask: Constant::new(base_hi_mask.into()),
            time_one: Constant::new(1u64.into()),
            port_block: Constant::new((regs::word(regs::PORT_BASE) >> 5).into()),
            cmd_op_shift: Constant::new(u64::from(regs::CMD_OPCODE_SHIFT).into()),
            result_status_shift: Constant::new(u64::from(regs::CMD_RESULT_STATUS_SHIFT).into()),
            result_busy_bit: Constant::new(u64::from(regs::CMD_RESULT_BUSY_BIT).into()),
            init_done_bit: Constant::new(u64::from(regs::STATUS_INIT_DONE_BIT).into()),
            busy_bit: Constant::new(u64::from(regs::STATUS_CMD_BUSY_BIT).into()),
            base_shift: Constant::new(u64::from(dir_entry::BASE_SHIFT).into()),
            present_bit: Constant::new(u64::from(dir_entry::PRESENT_BIT).into()),
            present_offset: Constant::new((layout.get_my_offset_present() as u64).into()),
            page_offset: Constant::new((layout.get_my_offset_page() as u64).into()),
            hi_page_offset: (0..p.on_chip_dirs())
                .map(|_| {
                    Constant::new(((layout.get_my_offset_page() + LO_PAGE_BITS) as u64).into())
                })
                .collect(),
            _ports: p.ports,
        )
    }
}

impl Logic for AxilRegs {
    // hdl_gen translates `match` arms without guards only.
    #[allow(clippy::collapsible_match)]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            wstate,
            now,
            cmd_time_q,
            cmd_op_q,
            cmd_qpn_q,
            bresp_q,
            base_lo,
            base_hi,
            rvalid_q,
            r_valid,
            r_data,
            r_resp,
            rport_hit,
            rport_sel,
            rport_reg,
            pword_q,
            rdata_q,
            rresp_q,
            dir_index,
            stage_lo,
            stage_hi,
            ar_dir,
            ar_dir_hi,
            commit,
            dir_sweep,
            dir_swept,
            ar_q,
            rsel,
            cnt_word_q,
            no_qps_q,
            no_qps_quiet_q
        );
        self.table_base.next = (bit_cast::<ADDR_BITS, 32>(self.base_hi.q.val()) << 32)
            | bit_cast::<ADDR_BITS, 32>(self.base_lo.q.val());
        self.busy.next = self.wstate.q.val() == WriteState::Command;
        self.cmd_valid.next = self.busy.val();
        self.cmd_op.next = self.cmd_op_q.q.val();
        self.cmd_qpn.next = self.cmd_qpn_q.q.val();
        self.cmd_time.next = self.cmd_time_q.q.val();
        self.now.d.next = self.now.q.val() + self.time_one.val();
        self.no_qps_q.d.next = !self.cmd_counts.val().in_use.any();
        self.no_qps_quiet_q.d.next =
            !self.cmd_counts.val().in_use.any() & !self.cmd_counts.val().quarantined.any();
        // State in memory: STATE_BASE and the §9 counters.
        for m in 0..self._smem {
            self.sbase[m].clock.next = self.clock.val();
            self.sbase[m].d.next = self.sbase[m].q.val();
            self.state_base[m].next = self.sbase[m].q.val();
            self.sb_wr[m].clock.next = self.clock.val();
            self.sb_wr[m].d.next = false;
            self.state_base_wr[m].next = self.sb_wr[m].q.val();
            self.c_hit[m].clock.next = self.clock.val();
            self.q_hit[m].clock.next = self.clock.val();
            self.c_miss[m].clock.next = self.clock.val();
            self.q_miss[m].clock.next = self.clock.val();
            self.c_merged[m].clock.next = self.clock.val();
            self.q_merged[m].clock.next = self.clock.val();
            self.c_filtered[m].clock.next = self.clock.val();
            self.q_filtered[m].clock.next = self.clock.val();
            self.c_reads[m].clock.next = self.clock.val();
            self.q_reads[m].clock.next = self.clock.val();
            self.c_writes[m].clock.next = self.clock.val();
            self.q_writes[m].clock.next = self.clock.val();
            self.q_hit[m].d.next = self.ev_hit[m].val();
            self.q_miss[m].d.next = self.ev_miss[m].val();
            self.q_merged[m].d.next = self.ev_merged[m].val();
            self.q_filtered[m].d.next = self.ev_filtered[m].val();
            self.q_reads[m].d.next = self.ev_reads[m].val();
            self.q_writes[m].d.next = self.ev_writes[m].val();
            self.c_hit[m].d.next = self.c_hit[m].q.val() + self.q_hit[m].q.val();
            self.c_miss[m].d.next = self.c_miss[m].q.val() + self.q_miss[m].q.val();
            self.c_merged[m].d.next = self.c_merged[m].q.val() + self.q_merged[m].q.val();
            self.c_filtered[m].d.next = self.c_filtered[m].q.val() + self.q_filtered[m].q.val();
            self.c_reads[m].d.next = self.c_reads[m].q.val() + self.q_reads[m].q.val();
            self.c_writes[m].d.next = self.c_writes[m].q.val() + self.q_writes[m].q.val();
        }

        // Write channel.
        self.write_fire.next = false;
        self.strobe_mask.next = 0.into();
        if self.wstrb.val().get_bit(0) {
            self.strobe_mask.next = self.strobe_mask.val() | 0xFF;
        }
        if self.wstrb.val().get_bit(1) {
            self.strobe_mask.next = self.strobe_mask.val() | 0xFF00;
        }
        if self.wstrb.val().get_bit(2) {
            self.strobe_mask.next = self.strobe_mask.val() | 0xFF_0000;
        }
        if self.wstrb.val().get_bit(3) {
            self.strobe_mask.next = self.strobe_mask.val() | 0xFF00_0000_u64;
        }
        self.base_lo_new.next = (self.base_lo.q.val() & !self.strobe_mask.val())
            | (self.wdata.val() & self.strobe_mask.val());
        self.base_hi_new.next = ((self.base_hi.q.val() & !self.strobe_mask.val())
            | (self.wdata.val() & self.strobe_mask.val()))
            & self.base_hi_mask.val();
        // A STATE_BASE word write as a 64-bit mask and value (state in memory).
        self.sb_write.next = (self.awaddr.val() == self.words.state_base_lo.val())
            | (self.awaddr.val() == self.words.state_base_hi.val());
        for m in 0..self._smem {
            self.sb_mask[m].next =
                bit_cast::<ADDR_BITS, 32>(self.strobe_mask.val()) & self.addr_mask[m].val();
            self.sb_value[m].next = bit_cast::<ADDR_BITS, 32>(self.wdata.val());
            if self.awaddr.val() == self.words.state_base_hi.val() {
                self.sb_mask[m].next = (bit_cast::<ADDR_BITS, 32>(self.strobe_mask.val()) << 32)
                    & self.addr_mask[m].val();
                self.sb_value[m].next = bit_cast::<ADDR_BITS, 32>(self.wdata.val()) << 32;
            }
        }
        self.swept_ok.next = true;
        for _d in 0..self._dirs {
            self.swept_ok.next = self.dir_swept.q.val();
        }
        match self.wstate.q.val() {
            WriteState::Idle => {
                self.write_fire.next = self.awvalid.val() & self.wvalid.val() & self.swept_ok.val();
            }
            WriteState::Command => {
                if self.cmd_done.val() {
                    self.bresp_q.d.next = 0.into();
                    self.wstate.d.next = WriteState::Response;
                }
            }
            WriteState::Response => {
                // A DIR_ENTRY_HI write answers only after its entry is committed.
                if self.bready.val() & !self.commit.q.val() {
                    self.wstate.d.next = WriteState::Idle;
                }
            }
        }
        // Assigned once, after the decision (a port written twice in one evaluation pulses in
        // an event-driven simulator).
        self.awready.next = self.write_fire.val();
        self.wready.next = self.write_fire.val();
        if self.write_fire.val() {
            self.bresp_q.d.next = 2.into();
            self.wstate.d.next = WriteState::Response;
            // TABLE_BASE_LO/HI: refused while QPs are in use.
            if (self.awaddr.val() == self.words.table_base_lo.val()) & self.no_qps_q.q.val() {
                self.base_lo.d.next = self.base_lo_new.val();
                self.bresp_q.d.next = 0.into();
            }
            if (self.awaddr.val() == self.words.table_base_hi.val()) & self.no_qps_q.q.val() {
                self.base_hi.d.next = self.base_hi_new.val();
                self.bresp_q.d.next = 0.into();
            }
            // STATE_BASE_LO/HI (state in memory): the rules of TABLE_BASE, and no index in
            // quarantine either (SPEC §9: a move starts a new table, as after a reset).
            if self.sb_write.val() & self.no_qps_quiet_q.q.val() {
                for m in 0..self._smem {
                    self.sbase[m].d.next = (self.sbase[m].q.val() & !self.sb_mask[m].val())
                        | (self.sb_value[m].val() & self.sb_mask[m].val());
                    self.sb_wr[m].d.next = true;
                    self.bresp_q.d.next = 0.into();
                }
            }
            if self.awaddr.val() == self.words.cmd.val() {
                // CMD: the response waits for the command engine.
                self.cmd_op_q.d.next = self
                    .wdata
                    .val()
                    .get_bits::<OP_BITS>(self.cmd_op_shift.val().index());
                self.cmd_qpn_q.d.next = self.wdata.val().get_bits::<QPN_BITS>(0);
                self.cmd_time_q.d.next = self.now.q.val();
                self.wstate.d.next = WriteState::Command;
            }
        }
        // The on-chip directory (two_level on_chip; nothing of this in other modes): the sweep
        // after reset, DIR_INDEX / DIR_ENTRY_LO / DIR_ENTRY_HI writes, and the control copy.
        self.dir_rd.next = 0.into();
        for d in 0..self._dirs {
            self.dir_we_l[d].next = false;
            self.dir_waddr_l[d].next = self.dir_index.q.val().get_bits::<RAM_ADDR_BITS>(0);
            // A committed entry: {stage_hi, stage_lo} stored as {bits [63:6], bit 0}.
            // An entry is committed the cycle after its DIR_ENTRY_HI write; the write response
            // waits for it, so a lookup accepted at or after the response's edge sees the new
            // entry: {stage_hi, stage_lo} as {bits [63:6], bit 0}.
            self.dir_wdata_l[d].next = (bit_cast::<DIR_BITS, 32>(self.stage_hi.q.val())
                << self.hi_page_offset[d].val())
                | (bit_cast::<DIR_BITS, LO_PAGE_BITS>(
                    self.stage_lo
                        .q
                        .val()
                        .get_bits::<LO_PAGE_BITS>(self.base_shift.val().index()),
                ) << self.page_offset.val())
                | (bit_cast::<DIR_BITS, 1>(
                    self.stage_lo
                        .q
                        .val()
                        .get_bit(self.present_bit.val().index())
                        .into(),
                ) << self.present_offset.val());
            if self.commit.q.val() {
                self.dir_we_l[d].next = true;
                self.commit.d.next = false;
            }
            if !self.dir_swept.q.val() {
                self.dir_we_l[d].next = true;
                self.dir_waddr_l[d].next = self.dir_sweep.q.val();
                self.dir_wdata_l[d].next = 0.into();
                self.dir_sweep.d.next = self.dir_sweep.q.val() + 1;
                if self.dir_sweep.q.val() == self.dir_last[d].val() {
                    self.dir_swept.d.next = true;
                }
            }
            if self.write_fire.val() & (self.awaddr.val() == self.words.dir_index.val()) {
                // DIR_INDEX: an entry of the directory, else refused.
                if ((self.dir_index.q.val() & !self.strobe_mask.val())
                    | (self.wdata.val() & self.strobe_mask.val()))
                    < self.dir_entries[d].val()
                {
                    self.dir_index.d.next = (self.dir_index.q.val() & !self.strobe_mask.val())
                        | (self.wdata.val() & self.strobe_mask.val());
                    self.bresp_q.d.next = 0.into();
                }
            }
            if self.write_fire.val() & (self.awaddr.val() == self.words.dir_entry_lo.val()) {
                self.stage_lo.d.next = (self.stage_lo.q.val() & !self.strobe_mask.val())
                    | (self.wdata.val() & self.strobe_mask.val());
                self.bresp_q.d.next = 0.into();
            }
            if self.write_fire.val() & (self.awaddr.val() == self.words.dir_entry_hi.val()) {
                // DIR_ENTRY_HI commits LO and HI together.
                self.stage_hi.d.next = (self.stage_hi.q.val() & !self.strobe_mask.val())
                    | (self.wdata.val() & self.strobe_mask.val());
                self.commit.d.next = true;
                self.bresp_q.d.next = 0.into();
            }
            self.dirs[d].clock.next = self.clock.val();
            self.dirs[d].read_address.next = self.dir_index.q.val().get_bits::<RAM_ADDR_BITS>(0);
            self.dirs[d].write_enable.next = self.dir_we_l[d].val();
            self.dirs[d].write_address.next = self.dir_waddr_l[d].val();
            self.dirs[d].write_data.next = self.dir_wdata_l[d].val();
            self.dir_we[d].next = self.dir_we_l[d].val();
            self.dir_waddr[d].next = self.dir_waddr_l[d].val();
            self.dir_wdata[d].next = self.dir_wdata_l[d].val();
            self.dir_rd.next = self.dirs[d].read_data.val();
        }
        self.dir_entry.next = (bit_cast::<64, PAGE_BITS>(
            self.dir_rd
                .val()
                .get_bits::<PAGE_BITS>(self.page_offset.val().index()),
        ) << self.base_shift.val())
            | (bit_cast::<64, 1>(
                self.dir_rd
                    .val()
                    .get_bit(self.present_offset.val().index())
                    .into(),
            ) << self.present_bit.val());
        self.bvalid.next = (self.wstate.q.val() == WriteState::Response) & !self.commit.q.val();
        self.bresp.next = self.bresp_q.q.val();

        // Read channel, three stages: at the AR handshake the address is decoded and
        // registered, with the engine's counter word it selects (the counters are far from
        // here: their multiplexer ends at a register); at the next edge the word read is
        // registered (`rdata_q`), with the port counter word it selects (`pword_q`: the
        // port counters count one edge after their handshake, so this reads them as of the
        // AR handshake); at the next, R is loaded with both. DIR_ENTRY_* take one more
        // cycle (the directory is read from DIR_INDEX, answered from `ar_dir`).
        self.ar_fire.next = self.arvalid.val()
            & !self.rvalid_q.q.val()
            & !self.ar_q.q.val()
            & !self.ar_dir.q.val()
            & !self.r_valid.q.val();
        self.arready.next = !self.rvalid_q.q.val()
            & !self.ar_q.q.val()
            & !self.ar_dir.q.val()
            & !self.r_valid.q.val();
        self.rvalid.next = self.r_valid.q.val();
        self.rdata.next = self.r_data.q.val();
        self.rresp.next = self.r_resp.q.val();
        self.ar_q.d.next = self.ar_fire.val();
        // Stage 1: the counter word the address selects (0 for any other address).
        self.port_sel.next = self.araddr.val().get_bits::<2>(3);
        self.port_reg.next = self.araddr.val().get_bits::<3>(0);
        self.cnt_word.next = 0.into();
        if self.araddr.val() == self.words.alloc_ok.val() {
            self.cnt_word.next = self.cnt_word.val() | self.cmd_counts.val().alloc_ok;
        }
        if self.araddr.val() == self.words.alloc_full.val() {
            self.cnt_word.next = self.cnt_word.val() | self.cmd_counts.val().alloc_full;
        }
        if self.araddr.val() == self.words.free_ok.val() {
            self.cnt_word.next = self.cnt_word.val() | self.cmd_counts.val().free_ok;
        }
        if self.araddr.val() == self.words.cmd_error.val() {
            self.cnt_word.next = self.cnt_word.val() | self.cmd_counts.val().cmd_error;
        }
        if self.araddr.val() == self.words.quarantine_overflow.val() {
            self.cnt_word.next = self.cnt_word.val() | self.cmd_counts.val().quarantine_overflow;
        }
        if self.araddr.val() == self.words.in_use.val() {
            self.cnt_word.next = self.cnt_word.val() | self.cmd_counts.val().in_use;
        }
        if self.araddr.val() == self.words.quarantined.val() {
            self.cnt_word.next = self.cnt_word.val() | self.cmd_counts.val().quarantined;
        }
        for m in 0..self._smem {
            if self.araddr.val() == self.words.cache_hit.val() {
                self.cnt_word.next = self.cnt_word.val() | self.c_hit[m].q.val();
            }
            if self.araddr.val() == self.words.cache_miss.val() {
                self.cnt_word.next = self.cnt_word.val() | self.c_miss[m].q.val();
            }
            if self.araddr.val() == self.words.miss_merged.val() {
                self.cnt_word.next = self.cnt_word.val() | self.c_merged[m].q.val();
            }
            if self.araddr.val() == self.words.filtered.val() {
                self.cnt_word.next = self.cnt_word.val() | self.c_filtered[m].q.val();
            }
            if self.araddr.val() == self.words.mem_reads.val() {
                self.cnt_word.next = self.cnt_word.val() | self.c_reads[m].q.val();
            }
            if self.araddr.val() == self.words.mem_writes.val() {
                self.cnt_word.next = self.cnt_word.val() | self.c_writes[m].q.val();
            }
            if self.araddr.val() == self.words.state_base_lo.val() {
                self.cnt_word.next = self.cnt_word.val() | self.sbase[m].q.val().get_bits::<32>(0);
            }
            if self.araddr.val() == self.words.state_base_hi.val() {
                self.cnt_word.next = self.cnt_word.val() | self.sbase[m].q.val().get_bits::<32>(32);
            }
            if self.araddr.val() == self.words.state_bytes.val() {
                self.cnt_word.next = self.cnt_word.val() | self.state_bytes[m].val();
            }
        }
        // The ports' counters: which port and counter, registered; their word is read in
        // stage 2 (they count one edge after the response handshake, see `LookupCounters`).
        if self.ar_fire.val() {
            self.rport_hit.d.next = self.araddr.val().get_bits::<5>(5) == self.port_block.val();
            self.rport_sel.d.next = self.port_sel.val();
            self.rport_reg.d.next = self.port_reg.val();
        }
        self.cnt_word_q.d.next = self.cnt_word.val();
        // Stage 1 also decodes the address into one select per word and whether the read is
        // mapped, registered with it: stage 2 is then an OR of selected words.
        self.sel.next.id = self.araddr.val() == self.words.id.val();
        self.sel.next.version = self.araddr.val() == self.words.version.val();
        self.sel.next.max_qps = self.araddr.val() == self.words.max_qps.val();
        self.sel.next.entry_bytes = self.araddr.val() == self.words.entry_bytes.val();
        self.sel.next.geometry = self.araddr.val() == self.words.geometry.val();
        self.sel.next.status = self.araddr.val() == self.words.status.val();
        self.sel.next.first_index = self.araddr.val() == self.words.first_index.val();
        self.sel.next.base_lo = self.araddr.val() == self.words.table_base_lo.val();
        self.sel.next.base_hi = self.araddr.val() == self.words.table_base_hi.val();
        self.sel.next.dir_index = self.araddr.val() == self.words.dir_index.val();
        self.sel.next.dir_lo = self.araddr.val() == self.words.dir_entry_lo.val();
        self.sel.next.dir_hi = self.araddr.val() == self.words.dir_entry_hi.val();
        self.sel.next.cmd_result = self.araddr.val() == self.words.cmd_result.val();
        // Mapped: every register above (DIR_* only with the directory on chip), the
        // counters (the engine's, then the ports'), STATE_* with the state in memory.
        self.sel.next.ok = self.sel.val().id
            | self.sel.val().version
            | self.sel.val().max_qps
            | self.sel.val().entry_bytes
            | self.sel.val().geometry
            | self.sel.val().status
            | self.sel.val().first_index
            | self.sel.val().base_lo
            | self.sel.val().base_hi
            | self.sel.val().cmd_result
            | (self.on_chip.val()
                & (self.sel.val().dir_index | self.sel.val().dir_lo | self.sel.val().dir_hi))
            | (self.araddr.val() == self.words.alloc_ok.val())
            | (self.araddr.val() == self.words.alloc_full.val())
            | (self.araddr.val() == self.words.free_ok.val())
            | (self.araddr.val() == self.words.cmd_error.val())
            | (self.araddr.val() == self.words.quarantine_overflow.val())
            | (self.araddr.val() == self.words.in_use.val())
            | (self.araddr.val() == self.words.quarantined.val())
            | (self.araddr.val() == self.words.cache_hit.val())
            | (self.araddr.val() == self.words.cache_miss.val())
            | (self.araddr.val() == self.words.miss_merged.val())
            | (self.araddr.val() == self.words.filtered.val())
            | (self.araddr.val() == self.words.mem_reads.val())
            | (self.araddr.val() == self.words.mem_writes.val());
        for _m in 0..self._smem {
            if (self.araddr.val() == self.words.state_base_lo.val())
                | (self.araddr.val() == self.words.state_base_hi.val())
                | (self.araddr.val() == self.words.state_bytes.val())
            {
                self.sel.next.ok = true;
            }
        }
        if (self.araddr.val().get_bits::<5>(5) == self.port_block.val())
            & (bit_cast::<3, 2>(self.port_sel.val()) < self.ports.val())
            & (self.port_reg.val() <= self.port.mem_error.val())
        {
            self.sel.next.ok = true;
        }
        if self.ar_fire.val() {
            self.rsel.d.next = self.sel.val();
        }
        // Stage 2: the selected word (the addresses are exclusive: each register ORs its
        // word in, an OR of selected words, not a chain of priority multiplexers).
        self.read_data.next = 0.into();
        if self.rsel.q.val().id {
            self.read_data.next = self.read_data.val() | self.id.val();
        }
        if self.rsel.q.val().version {
            self.read_data.next = self.read_data.val() | self.version.val();
        }
        if self.rsel.q.val().max_qps {
            self.read_data.next = self.read_data.val() | self.max_qps.val();
        }
        if self.rsel.q.val().entry_bytes {
            self.read_data.next = self.read_data.val() | self.entry_bytes.val();
        }
        if self.rsel.q.val().geometry {
            self.read_data.next = self.read_data.val() | self.geometry.val();
        }
        if self.rsel.q.val().status {
            self.read_data.next = self.read_data.val()
                | (bit_cast::<32, 1>(self.init_done.val().into()) << self.init_done_bit.val())
                | (bit_cast::<32, 1>(self.busy.val().into()) << self.busy_bit.val());
        }
        if self.rsel.q.val().first_index {
            self.read_data.next = self.read_data.val() | self.first_index.val();
        }
        if self.rsel.q.val().base_lo {
            self.read_data.next = self.read_data.val() | self.base_lo.q.val();
        }
        if self.rsel.q.val().base_hi {
            self.read_data.next = self.read_data.val() | self.base_hi.q.val();
        }
        if self.rsel.q.val().dir_index {
            self.read_data.next = self.read_data.val() | self.dir_index.q.val();
        }
        if self.rsel.q.val().cmd_result {
            self.read_data.next = self.read_data.val()
                | (bit_cast::<32, RESULT_BITS>(self.result_status.val())
                    << self.result_status_shift.val())
                | (bit_cast::<32, 1>(self.busy.val().into()) << self.result_busy_bit.val())
                | bit_cast::<32, QPN_BITS>(self.result_qpn.val());
        }
        self.read_ok.next = self.rsel.q.val().ok;
        // Stage 2, the ports' counters: one term per port and counter, ORed (no multiplexer
        // of a port's counters before the one of the counter), registered beside R's word.
        self.pword.next = 0.into();
        for p in 0..self._ports {
            self.port_cnt.next = self.port_counts[p].val();
            if self.rport_hit.q.val() & (self.rport_sel.q.val().index() == p) {
                if self.rport_reg.q.val() == self.port.lookups.val() {
                    self.pword.next = self.pword.val() | self.port_cnt.val().lookups;
                }
                if self.rport_reg.q.val() == self.port.ok.val() {
                    self.pword.next = self.pword.val() | self.port_cnt.val().ok;
                }
                if self.rport_reg.q.val() == self.port.out_of_range.val() {
                    self.pword.next = self.pword.val() | self.port_cnt.val().out_of_range;
                }
                if self.rport_reg.q.val() == self.port.not_allocated.val() {
                    self.pword.next = self.pword.val() | self.port_cnt.val().not_allocated;
                }
                if self.rport_reg.q.val() == self.port.stale.val() {
                    self.pword.next = self.pword.val() | self.port_cnt.val().stale;
                }
                if self.rport_reg.q.val() == self.port.page_absent.val() {
                    self.pword.next = self.pword.val() | self.port_cnt.val().page_absent;
                }
                // MEM_ERROR: 0 but in two_level in_memory (its counter stays 0).
                if self.rport_reg.q.val() == self.port.mem_error.val() {
                    self.pword.next = self.pword.val() | self.port_cnt.val().mem_error;
                }
            }
        }
        self.pword_q.d.next = self.pword.val();
        // The counters' word was selected in stage 1 (0 for any other address).
        self.read_data.next = self.read_data.val() | self.cnt_word_q.q.val();
        // The word is complete (`rvalid_q`): with the ports' counters ORed in, it is offered
        // on R at the next edge.
        if self.rvalid_q.q.val() {
            self.rvalid_q.d.next = false;
            self.r_valid.d.next = true;
            self.r_data.d.next = self.rdata_q.q.val() | self.pword_q.q.val();
            self.r_resp.d.next = self.rresp_q.q.val();
        }
        if self.ar_q.q.val() {
            self.rvalid_q.d.next = true;
            self.rdata_q.d.next = 0.into();
            self.rresp_q.d.next = 2.into();
            if self.read_ok.val() {
                self.rdata_q.d.next = self.read_data.val();
                self.rresp_q.d.next = 0.into();
                if self.on_chip.val() & (self.rsel.q.val().dir_lo | self.rsel.q.val().dir_hi) {
                    // Answered next cycle, from the directory.
                    self.rvalid_q.d.next = false;
                    self.ar_dir.d.next = true;
                    self.ar_dir_hi.d.next = self.rsel.q.val().dir_hi;
                }
            }
        }
        if self.ar_dir.q.val() {
            self.ar_dir.d.next = false;
            self.rvalid_q.d.next = true;
            self.rresp_q.d.next = 0.into();
            self.rdata_q.d.next = self.dir_entry.val().get_bits::<32>(0);
            if self.ar_dir_hi.q.val() {
                self.rdata_q.d.next = self.dir_entry.val().get_bits::<32>(32);
            }
        }
        if self.r_valid.q.val() & self.rready.val() {
            self.r_valid.d.next = false;
        }

        if self.rst.val() {
            self.wstate.d.next = WriteState::Idle;
            self.now.d.next = 0.into();
            self.base_lo.d.next = 0.into();
            self.base_hi.d.next = 0.into();
            self.rvalid_q.d.next = false;
            self.r_valid.d.next = false;
            self.ar_q.d.next = false;
            self.ar_dir.d.next = false;
            self.dir_index.d.next = 0.into();
            self.dir_sweep.d.next = 0.into();
            self.dir_swept.d.next = false;
            self.commit.d.next = false;
            for m in 0..self._smem {
                self.sbase[m].d.next = 0.into();
                self.sb_wr[m].d.next = false;
                self.c_hit[m].d.next = 0.into();
                self.c_miss[m].d.next = 0.into();
                self.c_merged[m].d.next = 0.into();
                self.c_filtered[m].d.next = 0.into();
                self.c_reads[m].d.next = 0.into();
                self.c_writes[m].d.next = 0.into();
                self.q_hit[m].d.next = 0.into();
                self.q_miss[m].d.next = 0.into();
                self.q_merged[m].d.next = 0.into();
                self.q_filtered[m].d.next = 0.into();
                self.q_reads[m].d.next = 0.into();
                self.q_writes[m].d.next = 0.into();
            }
        }
    }
}
