//! The SPEC vocabulary ([`crate::spec`]) as hardware constants.
//!
//! rust-hdl cannot name a Rust constant inside `#[hdl_gen]` code, and a `Constant` must be a
//! field of the block that reads it. Each group here is such a field: a namespace of
//! `Constant`s (not a child module), so `self.status.stale.val()` in a block's `update`
//! is the `localparam status$stale` of that block's Verilog module. A group is built from
//! [`crate::spec`] only; no block writes a status, an opcode or a register word index as a
//! bare number.

use super::free_map::map_op;
use super::StateEntry;
use crate::spec::{opcode, regs, CmdStatus, Status, STATUS_BITS};
use rust_hdl::prelude::*;

/// A namespace of constants of one width: the struct, its values, and the `Block` that
/// declares them in the enclosing module.
macro_rules! codes {
    ($(#[$doc:meta])* $name:ident, $bits:expr, { $($field:ident = $value:expr),* $(,)? }) => {
        $(#[$doc])*
        pub struct $name {
            $(pub $field: Constant<Bits<{ $bits }>>,)*
        }

        impl Default for $name {
            fn default() -> Self {
                Self { $($field: Constant::new(u64::from($value).into()),)* }
            }
        }

        impl Logic for $name {
            fn update(&mut self) {}
        }

        impl Block for $name {
            fn connect_all(&mut self) {}
            fn update_all(&mut self) {}
            fn has_changed(&self) -> bool {
                false
            }
            fn accept(&self, name: &str, probe: &mut dyn Probe) {
                probe.visit_start_namespace(name, self);
                $(self.$field.accept(stringify!($field), probe);)*
                probe.visit_end_namespace(name, self);
            }
        }
    };
}

codes!(
    /// Lookup statuses (SPEC §4).
    StatusCodes, STATUS_BITS, {
        ok = Status::Ok as u8,
        out_of_range = Status::OutOfRange as u8,
        not_allocated = Status::NotAllocated as u8,
        stale = Status::Stale as u8,
        page_absent = Status::PageAbsent as u8,
        mem_error = Status::MemError as u8,
    }
);

codes!(
    /// Command result statuses, `CMD_RESULT[31:28]` (SPEC §6).
    CmdCodes, regs::CMD_RESULT_STATUS_BITS, {
        ok = CmdStatus::Ok as u8,
        full = CmdStatus::Full as u8,
        out_of_range = CmdStatus::OutOfRange as u8,
        bad_state = CmdStatus::BadState as u8,
        bad_cmd = CmdStatus::BadCmd as u8,
    }
);

codes!(
    /// Command opcodes, `CMD[31:28]` (SPEC §6).
    OpCodes, regs::CMD_OPCODE_BITS, {
        alloc = opcode::ALLOC,
        alloc_at = opcode::ALLOC_AT,
        publish = opcode::PUBLISH,
        free = opcode::FREE,
        dir_flush = opcode::DIR_FLUSH,
        last = opcode::LAST,
    }
);

codes!(
    /// The operations of the [`FreeMap`](super::free_map::FreeMap).
    MapOps, 2, {
        find = map_op::FIND,
        clear = map_op::CLEAR,
        set = map_op::SET,
        test = map_op::TEST,
    }
);

codes!(
    /// The states of an index in the state RAM (SPEC §2).
    StateCodes, 2, {
        free = StateEntry::FREE,
        reserved = StateEntry::RESERVED,
        valid = StateEntry::VALID,
    }
);

codes!(
    /// Word indexes (byte address / 4) of the registers, as the control port decodes them.
    RegWords, regs::WORD_ADDR_BITS, {
        id = regs::word(regs::ID),
        version = regs::word(regs::VERSION),
        max_qps = regs::word(regs::MAX_QPS),
        entry_bytes = regs::word(regs::ENTRY_BYTES),
        geometry = regs::word(regs::GEOMETRY),
        status = regs::word(regs::STATUS),
        first_index = regs::word(regs::FIRST_INDEX),
        table_base_lo = regs::word(regs::TABLE_BASE_LO),
        table_base_hi = regs::word(regs::TABLE_BASE_HI),
        cmd = regs::word(regs::CMD),
        cmd_result = regs::word(regs::CMD_RESULT),
        dir_index = regs::word(regs::DIR_INDEX),
        dir_entry_lo = regs::word(regs::DIR_ENTRY_LO),
        dir_entry_hi = regs::word(regs::DIR_ENTRY_HI),
        alloc_ok = regs::word(regs::ALLOC_OK),
        alloc_full = regs::word(regs::ALLOC_FULL),
        free_ok = regs::word(regs::FREE_OK),
        cmd_error = regs::word(regs::CMD_ERROR),
        quarantine_overflow = regs::word(regs::QUARANTINE_OVERFLOW),
        in_use = regs::word(regs::IN_USE),
        quarantined = regs::word(regs::QUARANTINED),
        state_base_lo = regs::word(regs::STATE_BASE_LO),
        state_base_hi = regs::word(regs::STATE_BASE_HI),
        state_bytes = regs::word(regs::STATE_BYTES),
        cache_hit = regs::word(regs::CACHE_HIT),
        cache_miss = regs::word(regs::CACHE_MISS),
        miss_merged = regs::word(regs::MISS_MERGED),
        filtered = regs::word(regs::FILTERED),
        mem_reads = regs::word(regs::MEM_READS),
        mem_writes = regs::word(regs::MEM_WRITES),
    }
);

codes!(
    /// Word offsets inside a port's counter block (SPEC §6).
    PortWords, 3, {
        lookups = regs::word(regs::PORT_LOOKUPS),
        ok = regs::word(regs::PORT_OK),
        out_of_range = regs::word(regs::PORT_OUT_OF_RANGE),
        not_allocated = regs::word(regs::PORT_NOT_ALLOCATED),
        stale = regs::word(regs::PORT_STALE),
        page_absent = regs::word(regs::PORT_PAGE_ABSENT),
        mem_error = regs::word(regs::PORT_MEM_ERROR),
    }
);
