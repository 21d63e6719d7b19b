use super::*;
use std::collections::BTreeSet;

fn cfg(assignments: &[&str]) -> Config {
    let mut c = Config::default();
    for a in assignments {
        c.set(a).unwrap();
    }
    c
}

fn model(assignments: &[&str]) -> Model {
    Model::new(&cfg(assignments))
}

fn ok(qpn: u32) -> CmdResult {
    CmdResult {
        status: CmdStatus::Ok,
        qpn,
    }
}

fn res(status: CmdStatus, qpn: u32) -> CmdResult {
    CmdResult { status, qpn }
}

fn run(m: &mut Model, cmd: Command) -> CmdResult {
    m.command(cmd).0
}

fn st(m: &Model, qpn: u32) -> Status {
    m.lookup(qpn).status
}

fn reg(m: &Model, addr: u32) -> u32 {
    m.read_register(addr).unwrap()
}

#[test]
fn fresh_table_is_all_free() {
    // Defaults: index_bits 14, 10 generation bits, max_qps 16384.
    let m = model(&[]);
    assert_eq!(st(&m, 0x000000), Status::NotAllocated);
    assert_eq!(st(&m, 0x003FFF), Status::NotAllocated);
    assert_eq!(st(&m, 0xFFFFFF), Status::NotAllocated);
    assert_eq!(
        m.entry(5),
        Entry {
            state: State::Free,
            generation: 0
        }
    );
    assert_eq!(m.in_use(), 0);
    assert_eq!(m.table_base(), 0);
    assert_eq!(reg(&m, regs::CMD_RESULT), 0);
}

#[test]
fn lookup_statuses_and_check_order() {
    // index_bits 4 (gen bits 20), max_qps 10, entry_bytes 64, first_index 2.
    let mut m = model(&["index_bits=4", "max_qps=10", "entry_bytes=64"]);
    // First ALLOC: index 2, generation 1 -> qpn 0x12.
    assert_eq!(run(&mut m, Command::Alloc), ok(0x12));
    // RESERVED: NOT_ALLOCATED with the right or a wrong generation.
    assert_eq!(st(&m, 0x12), Status::NotAllocated);
    assert_eq!(st(&m, 0x22), Status::NotAllocated);
    assert_eq!(run(&mut m, Command::Publish(0x12)), ok(0x12));
    assert_eq!(
        m.lookup(0x12),
        Lookup {
            status: Status::Ok,
            addr: 2 * 64
        }
    );
    // VALID with another generation: STALE (gen 0 and gen 2).
    assert_eq!(
        m.lookup(0x02),
        Lookup {
            status: Status::Stale,
            addr: 0
        }
    );
    assert_eq!(st(&m, 0x22), Status::Stale);
    // Index 10..15 are out of range whatever the generation bits.
    for qpn in [0x0A, 0x1A, 0xFFFFFA, 0x0F, 0xFFFFFF] {
        assert_eq!(
            m.lookup(qpn),
            Lookup {
                status: Status::OutOfRange,
                addr: 0
            }
        );
    }
    // A FREE index is NOT_ALLOCATED whatever the generation.
    assert_eq!(st(&m, 0x13), Status::NotAllocated);
    // Bits above 24 are ignored.
    assert_eq!(st(&m, 0x0100_0012), Status::Ok);
    // FREE: NOT_ALLOCATED again, generation kept.
    assert_eq!(run(&mut m, Command::Free(0x12)), ok(0x12));
    assert_eq!(st(&m, 0x12), Status::NotAllocated);
    assert_eq!(
        m.entry(2),
        Entry {
            state: State::Free,
            generation: 1
        }
    );
}

/// State in memory, index_bits 8, blocks of 8 indexes, first_index 2, released at once.
fn state_in_memory(reuse: &str) -> Model {
    let reuse = format!("reuse={reuse}");
    let mut m = model(&[
        "state=in_memory",
        "index_bits=8",
        "block_bits=3",
        "first_index=2",
        "quarantine_cycles=0",
        &reuse,
    ]);
    m.write_register(regs::STATE_BASE_LO, 0x10000, 0xF).unwrap();
    m
}

fn mem_error(qpn: u32) -> CmdResult {
    CmdResult {
        status: CmdStatus::MemError,
        qpn,
    }
}

#[test]
fn a_failing_check_on_a_block_that_fails_to_read_may_answer_mem_error_too() {
    let mut m = state_in_memory("lowest");
    let q = run(&mut m, Command::Alloc).qpn; // index 2, generation 1
    assert_eq!(q, 1 << 8 | 2);
    m.mem_add_error(m.state_block_range(2));
    let errors = reg(&m, regs::CMD_ERROR);
    // The check fails (wrong generation): BAD_STATE from the cache, or MEM_ERROR from a read.
    let wrong = 2 << 8 | 2;
    let (r, change) = m.command(Command::Publish(wrong));
    assert_eq!((r.status, change), (CmdStatus::BadState, None));
    assert!(m.mem_error_allowed());
    assert_eq!(reg(&m, regs::CMD_ERROR), errors + 1);
    let other = m.read_register_if_mem_error(regs::CMD_RESULT);
    assert_eq!(other, Some(Ok(mem_error(wrong).to_register())));
    assert_eq!(
        m.read_register_if_mem_error(regs::CMD_ERROR),
        Some(Ok(errors))
    );
    // The engine answered MEM_ERROR: nothing changed, no counter.
    assert!(m.take_mem_error());
    assert_eq!(m.last_result(), mem_error(wrong));
    assert_eq!(reg(&m, regs::CMD_ERROR), errors);
    assert!(!m.mem_error_allowed() && !m.take_mem_error());
    // The check passes: the write fails whatever was read, MEM_ERROR is the one outcome.
    assert_eq!(run(&mut m, Command::Publish(q)), mem_error(q));
    assert!(!m.mem_error_allowed());
    assert_eq!(m.entry(2).state, State::Reserved);
    // A block never written is not read: BAD_STATE is the one outcome there.
    m.mem_add_error(m.state_block_range(9));
    assert_eq!(
        run(&mut m, Command::Publish(1 << 8 | 9)).status,
        CmdStatus::BadState
    );
    assert!(!m.mem_error_allowed());
    // ... and a command that writes it fails.
    assert_eq!(
        run(&mut m, Command::AllocAt(1 << 8 | 9)),
        mem_error(1 << 8 | 9)
    );
    // No error range: one outcome, the model's kept.
    m.mem_clear_errors();
    let (r, _) = m.command(Command::Publish(wrong));
    assert_eq!(r.status, CmdStatus::BadState);
    assert!(!m.mem_error_allowed());
    assert_eq!(run(&mut m, Command::Publish(q)), ok(q));
}

#[test]
fn cyclic_alloc_past_a_block_that_fails_to_read_may_answer_mem_error() {
    let mut m = state_in_memory("cyclic");
    // Block 0 (indexes 2..7): ALLOC 2, 3, 4 (the cursor at 5), ALLOC_AT 5, 6, 7, FREE 2.
    for i in 2..=4 {
        assert_eq!(run(&mut m, Command::Alloc).qpn & 0xFF, i);
    }
    for i in 5..=7 {
        run(&mut m, Command::AllocAt(1 << 8 | i));
    }
    assert_eq!(run(&mut m, Command::Free(1 << 8 | 2)).status, CmdStatus::Ok);
    // The free map finds block 0 from the cursor's block, which holds nothing to take at
    // or after the cursor: the next ALLOC may read it before it takes index 8 of block 1.
    m.mem_add_error(m.state_block_range(0));
    let in_use = reg(&m, regs::IN_USE);
    let snapshot = m.clone();
    let (r, change) = m.command(Command::Alloc);
    assert_eq!(r, ok(1 << 8 | 8));
    assert_eq!(change.map(|c| c.index), Some(8));
    assert!(m.mem_error_allowed());
    assert_eq!(reg(&m, regs::IN_USE), in_use + 1);
    assert!(m.take_mem_error());
    assert_eq!(m.last_result(), mem_error(0));
    assert_eq!(reg(&m, regs::IN_USE), in_use);
    assert_eq!(m.entry(8), snapshot.entry(8));
    // Taken again, the same ALLOC; kept, the next one goes on from 9.
    assert_eq!(m.command(Command::Alloc).0, ok(1 << 8 | 8));
    m.forget_mem_error();
    assert!(!m.take_mem_error());
    assert_eq!(run(&mut m, Command::Alloc), ok(1 << 8 | 9));
    // Lowest takes index 2 of block 0 itself: its write fails, one outcome.
    let mut m = state_in_memory("lowest");
    for i in 2..=7 {
        run(&mut m, Command::AllocAt(1 << 8 | i));
    }
    assert_eq!(run(&mut m, Command::Free(1 << 8 | 2)).status, CmdStatus::Ok);
    m.mem_add_error(m.state_block_range(0));
    assert_eq!(run(&mut m, Command::Alloc), mem_error(0));
    assert!(!m.mem_error_allowed());
}

#[test]
fn state_base_written_while_an_outcome_is_open_starts_a_new_table_either_way() {
    let mut m = state_in_memory("lowest");
    let q = run(&mut m, Command::Alloc).qpn;
    run(&mut m, Command::Publish(q));
    assert_eq!(run(&mut m, Command::Free(q)), ok(q));
    // Nothing in use; FREE again fails its check on a block that fails to read.
    m.mem_add_error(m.state_block_range(2));
    assert_eq!(run(&mut m, Command::Free(q)).status, CmdStatus::BadState);
    assert!(m.mem_error_allowed());
    // STATE_BASE is written before the outcome is seen: a new table, whatever it was.
    m.write_register(regs::STATE_BASE_LO, 0x20000, 0xF).unwrap();
    assert!(m.take_mem_error());
    assert_eq!(m.last_result(), mem_error(q));
    assert_eq!(
        m.entry(2),
        Entry {
            state: State::Free,
            generation: 0
        }
    );
    assert!(!m.block_written(2) && !m.block_live(2));
}

#[test]
fn in_memory_directory() {
    // index_bits 6, leaf_bits 2: entry i at TABLE_BASE & !7 + 8 i covers indexes 4i..4i+3.
    let mut m = model(&[
        "mode=two_level",
        "directory=in_memory",
        "index_bits=6",
        "leaf_bits=2",
        "entry_bytes=96",
        "addr_bits=48",
    ]);
    m.write_register(regs::TABLE_BASE_LO, 0x1007, 0xF).unwrap();
    assert_eq!(m.mem_dir_address(3), 0x1000 + 24);
    m.mem_write_u64(0x1008, 0xFFFF_FFFF_FFC0 | 0x3E | 1);
    m.mem_write_u64(0x1010, 0x5000);
    m.mem_write_u64(0x1018, 0x6000 | 1);
    m.mem_add_error(0x1018..0x1020);
    for q in [5, 9, 13] {
        run(&mut m, Command::AllocAt(1 << 6 | q));
        run(&mut m, Command::Publish(1 << 6 | q));
    }
    // Page 1 present near the top of 2^48: wraps; page 2 absent; page 3 AXI error.
    assert_eq!(m.address(5), Ok(0x20));
    assert_eq!(m.lookup(1 << 6 | 5).addr, 0x20);
    assert_eq!(st(&m, 1 << 6 | 9), Status::PageAbsent);
    assert_eq!(st(&m, 1 << 6 | 13), Status::MemError);
    // The on-chip checks come first: a stale QPN of page 3 is STALE, not MEM_ERROR.
    assert_eq!(st(&m, 2 << 6 | 13), Status::Stale);
    // DIR_* do not exist in this mode.
    assert!(m.read_register(regs::DIR_INDEX).is_err());
    assert!(m.write_register(regs::DIR_ENTRY_HI, 1, 0xF).is_err());
    assert_eq!(m.geometry() >> 10 & 3, 2);
}

#[test]
fn address_with_base_and_wrap() {
    let mut m = model(&["addr_bits=32"]);
    m.write_register(regs::TABLE_BASE_LO, 0xFFFF_FF00, 0xF)
        .unwrap();
    assert_eq!(m.table_base(), 0xFFFF_FF00);
    assert_eq!(run(&mut m, Command::AllocAt(0x4002)), ok(0x4002));
    run(&mut m, Command::Publish(0x4002));
    // 0xFFFFFF00 + 2 * 256 = 0x1_0000_0100 -> mod 2^32 = 0x100.
    assert_eq!(
        m.lookup(0x4002),
        Lookup {
            status: Status::Ok,
            addr: 0x100
        }
    );

    let mut m = model(&["entry_bytes=4096", "index_bits=24"]);
    m.write_register(regs::TABLE_BASE_LO, 0xFFFF_F000, 0xF)
        .unwrap();
    m.write_register(regs::TABLE_BASE_HI, 0xFFFF_FFFF, 0xF)
        .unwrap();
    run(&mut m, Command::AllocAt(0xFFFFFF));
    run(&mut m, Command::Publish(0xFFFFFF));
    // 2^64 - 4096 + (2^24 - 1) * 4096 = 2^36 - 8192 (mod 2^64).
    assert_eq!(m.lookup(0xFFFFFF).addr, (1u64 << 36) - 8192);
    // 2^64 - 4096 + 3 * 4096 = 8192 (mod 2^64).
    assert_eq!(m.address(3), Ok(8192));
}

#[test]
fn cyclic_allocation() {
    // index_bits 4: qpn = gen << 4 | index. max_qps 6, first_index 2.
    let mut m = model(&["index_bits=4", "max_qps=6"]);
    assert_eq!(run(&mut m, Command::Alloc), ok(0x12));
    assert_eq!(run(&mut m, Command::Alloc), ok(0x13));
    assert_eq!(run(&mut m, Command::Alloc), ok(0x14));
    assert_eq!(run(&mut m, Command::Alloc), ok(0x15));
    assert_eq!(run(&mut m, Command::Free(0x13)), ok(0x13));
    // After 5: nothing up to max_qps - 1, wrap to first_index: 2 taken, 3 free (gen 2).
    assert_eq!(run(&mut m, Command::Alloc), ok(0x23));
    assert_eq!(run(&mut m, Command::Free(0x12)), ok(0x12));
    assert_eq!(run(&mut m, Command::Free(0x14)), ok(0x14));
    // After 3: 4 is free, although 2 is lower.
    assert_eq!(run(&mut m, Command::Alloc), ok(0x24));
    // After 4: 5 taken, wrap, 2 free.
    assert_eq!(run(&mut m, Command::Alloc), ok(0x22));
    // Full now: indexes 0 and 1 are never handed out by ALLOC.
    assert_eq!(run(&mut m, Command::Alloc), res(CmdStatus::Full, 0));
    assert_eq!(m.entry(0).state, State::Free);
}

#[test]
fn cyclic_starts_at_first_index_and_ignores_alloc_at() {
    let mut m = model(&["index_bits=4", "max_qps=6"]);
    // ALLOC_AT does not move the cyclic pointer: the first ALLOC still starts at 2.
    assert_eq!(run(&mut m, Command::AllocAt(0x34)), ok(0x34));
    assert_eq!(run(&mut m, Command::Alloc), ok(0x12));
    assert_eq!(run(&mut m, Command::Alloc), ok(0x13));
    // 4 is taken by ALLOC_AT: skipped.
    assert_eq!(run(&mut m, Command::Alloc), ok(0x15));
    assert_eq!(run(&mut m, Command::Free(0x13)), ok(0x13));
    // FULL does not move the pointer either (there is nothing to move to).
    assert_eq!(run(&mut m, Command::Alloc), ok(0x23));
    assert_eq!(run(&mut m, Command::Alloc), res(CmdStatus::Full, 0));
    assert_eq!(run(&mut m, Command::Free(0x12)), ok(0x12));
    assert_eq!(run(&mut m, Command::Alloc), ok(0x22));
}

#[test]
fn first_index_zero_and_wrap_to_it() {
    let mut m = model(&["index_bits=4", "max_qps=3", "first_index=0"]);
    assert_eq!(run(&mut m, Command::Alloc), ok(0x10));
    assert_eq!(run(&mut m, Command::Alloc), ok(0x11));
    assert_eq!(run(&mut m, Command::Alloc), ok(0x12));
    assert_eq!(run(&mut m, Command::Free(0x10)), ok(0x10));
    assert_eq!(run(&mut m, Command::Alloc), ok(0x20));
}

#[test]
fn lowest_allocation() {
    let mut m = model(&["index_bits=4", "max_qps=6", "reuse=lowest"]);
    assert_eq!(run(&mut m, Command::Alloc), ok(0x12));
    assert_eq!(run(&mut m, Command::Alloc), ok(0x13));
    assert_eq!(run(&mut m, Command::Alloc), ok(0x14));
    assert_eq!(run(&mut m, Command::Free(0x13)), ok(0x13));
    // The lowest FREE index >= first_index: 3 again, generation 2.
    assert_eq!(run(&mut m, Command::Alloc), ok(0x23));
    assert_eq!(run(&mut m, Command::Alloc), ok(0x15));
    assert_eq!(run(&mut m, Command::Alloc), res(CmdStatus::Full, 0));
    // ALLOC_AT below first_index works; ALLOC never goes there.
    assert_eq!(run(&mut m, Command::AllocAt(0x01)), ok(0x01));
    assert_eq!(run(&mut m, Command::Free(0x12)), ok(0x12));
    assert_eq!(run(&mut m, Command::Alloc), ok(0x22));
}

#[test]
fn generations_wrap() {
    // index_bits 22: 2 generation bits; one index.
    let mut m = model(&["index_bits=22", "max_qps=1", "first_index=0"]);
    assert_eq!(run(&mut m, Command::Alloc), ok(0x40_0000));
    assert_eq!(run(&mut m, Command::Free(0x40_0000)), ok(0x40_0000));
    assert_eq!(run(&mut m, Command::Alloc), ok(0x80_0000));
    assert_eq!(run(&mut m, Command::Free(0x80_0000)), ok(0x80_0000));
    assert_eq!(run(&mut m, Command::Alloc), ok(0xC0_0000));
    assert_eq!(run(&mut m, Command::Free(0xC0_0000)), ok(0xC0_0000));
    // 3 + 1 = 4 = 0 mod 4.
    assert_eq!(run(&mut m, Command::Alloc), ok(0x00_0000));
    assert_eq!(run(&mut m, Command::Publish(0x00_0000)), ok(0x00_0000));
    assert_eq!(st(&m, 0x00_0000), Status::Ok);
    assert_eq!(st(&m, 0xC0_0000), Status::Stale);
    assert_eq!(run(&mut m, Command::Free(0x00_0000)), ok(0x00_0000));
    assert_eq!(run(&mut m, Command::Alloc), ok(0x40_0000));
}

#[test]
fn no_generation_bits() {
    let mut m = model(&["index_bits=24"]);
    assert_eq!(run(&mut m, Command::Alloc), ok(2));
    assert_eq!(run(&mut m, Command::Free(2)), ok(2));
    assert_eq!(m.entry(2).generation, 0);
    assert_eq!(run(&mut m, Command::Alloc), ok(3));
    assert_eq!(run(&mut m, Command::Publish(3)), ok(3));
    assert_eq!(m.lookup(3).addr, 3 * 256);
    assert_eq!(run(&mut m, Command::AllocAt(0xFFFFFF)), ok(0xFFFFFF));
    // 1000 cyclic ALLOCs: 4, 5, ...
    for i in 4..1004 {
        assert_eq!(run(&mut m, Command::Alloc), ok(i));
    }
    let mut m = model(&["index_bits=24", "reuse=lowest"]);
    assert_eq!(run(&mut m, Command::Alloc), ok(2));
    assert_eq!(run(&mut m, Command::Free(2)), ok(2));
    assert_eq!(run(&mut m, Command::Alloc), ok(2));
}

#[test]
fn cyclic_wraps_on_a_big_table() {
    // 2^24 indexes: the wrap from max_qps - 1 searches across the whole bitmap.
    let mut m = model(&["index_bits=24", "first_index=5"]);
    assert_eq!(run(&mut m, Command::AllocAt(0xFFFFFE)), ok(0xFFFFFE));
    assert_eq!(run(&mut m, Command::AllocAt(0xFFFFFF)), ok(0xFFFFFF));
    assert_eq!(run(&mut m, Command::Free(0xFFFFFE)), ok(0xFFFFFE));
    assert_eq!(run(&mut m, Command::Alloc), ok(5));
    assert_eq!(run(&mut m, Command::Alloc), ok(6));
    // A full table, two holes, the wrap from max_qps - 1 back to first_index.
    let mut m = model(&["index_bits=12", "first_index=100"]);
    for i in 100..4096 {
        assert_eq!(run(&mut m, Command::Alloc), ok(1 << 12 | i));
    }
    assert_eq!(run(&mut m, Command::Alloc), res(CmdStatus::Full, 0));
    assert_eq!(
        run(&mut m, Command::Free(1 << 12 | 3000)),
        ok(1 << 12 | 3000)
    );
    assert_eq!(run(&mut m, Command::Free(1 << 12 | 200)), ok(1 << 12 | 200));
    // After 4095: wrap to 100 and up: 200 first.
    assert_eq!(run(&mut m, Command::Alloc), ok(2 << 12 | 200));
    assert_eq!(run(&mut m, Command::Alloc), ok(2 << 12 | 3000));
}

#[test]
fn full_and_counters() {
    let mut m = model(&["index_bits=4", "max_qps=4"]);
    assert_eq!(run(&mut m, Command::Alloc), ok(0x12));
    assert_eq!(run(&mut m, Command::Alloc), ok(0x13));
    let (r, change) = m.command(Command::Alloc);
    assert_eq!((r, change), (res(CmdStatus::Full, 0), None));
    assert_eq!(reg(&m, regs::CMD_RESULT), 0x1000_0000);
    assert_eq!(run(&mut m, Command::AllocAt(0x00)), ok(0x00));
    assert_eq!(run(&mut m, Command::Alloc), res(CmdStatus::Full, 0));
    assert_eq!(reg(&m, regs::ALLOC_OK), 3);
    assert_eq!(reg(&m, regs::ALLOC_FULL), 2);
    assert_eq!(reg(&m, regs::CMD_ERROR), 0);
    assert_eq!(reg(&m, regs::IN_USE), 3);
    assert_eq!(run(&mut m, Command::Free(0x12)), ok(0x12));
    assert_eq!(
        run(&mut m, Command::Free(0x12)),
        res(CmdStatus::BadState, 0x12)
    );
    assert_eq!(reg(&m, regs::FREE_OK), 1);
    assert_eq!(reg(&m, regs::IN_USE), 2);
    assert_eq!(reg(&m, regs::CMD_ERROR), 1);
    assert_eq!(reg(&m, regs::QUARANTINE_OVERFLOW), 0);
    assert_eq!(reg(&m, regs::QUARANTINED), 0);
    assert_eq!(m.in_use(), 2);
}

#[test]
fn command_errors_change_nothing() {
    // index_bits 4, max_qps 10.
    let mut m = model(&["index_bits=4", "max_qps=10"]);
    assert_eq!(run(&mut m, Command::Alloc), ok(0x12)); // RESERVED gen 1
    assert_eq!(run(&mut m, Command::Alloc), ok(0x13));
    assert_eq!(run(&mut m, Command::Publish(0x13)), ok(0x13)); // VALID gen 1
    let entries: Vec<Entry> = (0..10).map(|i| m.entry(i)).collect();
    let cases = [
        // Range first, whatever the generation bits or the opcode.
        (Command::AllocAt(0x1A), res(CmdStatus::OutOfRange, 0x1A)),
        (Command::Publish(0x0C), res(CmdStatus::OutOfRange, 0x0C)),
        (
            Command::Free(0xFFFFFF),
            res(CmdStatus::OutOfRange, 0xFFFFFF),
        ),
        // ALLOC_AT of a RESERVED or VALID index, any generation.
        (Command::AllocAt(0x12), res(CmdStatus::BadState, 0x12)),
        (Command::AllocAt(0x53), res(CmdStatus::BadState, 0x53)),
        // PUBLISH: FREE, VALID, or generation differs.
        (Command::Publish(0x14), res(CmdStatus::BadState, 0x14)),
        (Command::Publish(0x13), res(CmdStatus::BadState, 0x13)),
        (Command::Publish(0x22), res(CmdStatus::BadState, 0x22)),
        // FREE: already FREE, or generation differs (RESERVED and VALID).
        (Command::Free(0x14), res(CmdStatus::BadState, 0x14)),
        (Command::Free(0x02), res(CmdStatus::BadState, 0x02)),
        (Command::Free(0x23), res(CmdStatus::BadState, 0x23)),
        // Opcodes 0 and 6..15: BAD_CMD with the written qpn.
        (Command::Raw(0, 0x123), res(CmdStatus::BadCmd, 0x123)),
        (Command::Raw(6, 0x12), res(CmdStatus::BadCmd, 0x12)),
        (Command::Raw(15, 0xFFFFFF), res(CmdStatus::BadCmd, 0xFFFFFF)),
    ];
    for (i, (cmd, expected)) in cases.iter().enumerate() {
        assert_eq!(m.command(*cmd), (*expected, None), "{cmd:?}");
        assert_eq!(reg(&m, regs::CMD_ERROR), i as u32 + 1);
        assert_eq!(reg(&m, regs::CMD_RESULT), expected.to_register());
    }
    let after: Vec<Entry> = (0..10).map(|i| m.entry(i)).collect();
    assert_eq!(entries, after);
    assert_eq!(reg(&m, regs::ALLOC_OK), 2);
    assert_eq!(reg(&m, regs::IN_USE), 2);
    // The cyclic pointer did not move: the next ALLOC is index 4.
    assert_eq!(run(&mut m, Command::Alloc), ok(0x14));
}

#[test]
fn successful_commands_report_their_change() {
    let mut m = model(&["index_bits=4", "max_qps=10"]);
    let e = |state, generation| Entry { state, generation };
    assert_eq!(
        m.command(Command::Alloc),
        (
            ok(0x12),
            Some(Change {
                index: 2,
                before: e(State::Free, 0),
                after: e(State::Reserved, 1)
            })
        )
    );
    assert_eq!(
        m.command(Command::Publish(0x12)),
        (
            ok(0x12),
            Some(Change {
                index: 2,
                before: e(State::Reserved, 1),
                after: e(State::Valid, 1)
            })
        )
    );
    assert_eq!(
        m.command(Command::Free(0x12)),
        (
            ok(0x12),
            Some(Change {
                index: 2,
                before: e(State::Valid, 1),
                after: e(State::Free, 1)
            })
        )
    );
    // ALLOC_AT takes the generation from the qpn (here 7) and works below first_index.
    assert_eq!(
        m.command(Command::AllocAt(0x71)),
        (
            ok(0x71),
            Some(Change {
                index: 1,
                before: e(State::Free, 0),
                after: e(State::Reserved, 7)
            })
        )
    );
    // FREE of a RESERVED qpn is allowed.
    assert_eq!(
        m.command(Command::Free(0x71)),
        (
            ok(0x71),
            Some(Change {
                index: 1,
                before: e(State::Reserved, 7),
                after: e(State::Free, 7)
            })
        )
    );
    // ALLOC advances the generation left by ALLOC_AT: 7 + 1.
    assert_eq!(run(&mut m, Command::AllocAt(0x01)), ok(0x01));
    assert_eq!(run(&mut m, Command::Free(0x01)), ok(0x01));
    let mut m2 = model(&["index_bits=4", "max_qps=10", "first_index=1"]);
    assert_eq!(run(&mut m2, Command::AllocAt(0x71)), ok(0x71));
    assert_eq!(run(&mut m2, Command::Free(0x71)), ok(0x71));
    assert_eq!(run(&mut m2, Command::Alloc), ok(0x81));
    // DIR_FLUSH: OK, nothing changes; the written qpn comes back.
    assert_eq!(m.command(Command::DirFlush), (ok(0), None));
    assert_eq!(m.command(Command::Raw(5, 0x42)), (ok(0x42), None));
    // ALLOC ignores its qpn field.
    assert_eq!(run(&mut m, Command::Raw(1, 0x777)), ok(0x13));
}

#[test]
fn command_and_result_encoding() {
    assert_eq!(Command::Alloc.encode(), 0x1000_0000);
    assert_eq!(Command::AllocAt(0x123456).encode(), 0x2012_3456);
    assert_eq!(Command::Publish(0xABCDEF).encode(), 0x30AB_CDEF);
    assert_eq!(Command::Free(0x1_000001).encode(), 0x4000_0001);
    assert_eq!(Command::DirFlush.encode(), 0x5000_0000);
    assert_eq!(Command::Raw(15, 7).encode(), 0xF000_0007);
    assert_eq!(Command::decode(0x1000_0000), Command::Alloc);
    assert_eq!(Command::decode(0x1000_0001), Command::Raw(1, 1));
    assert_eq!(Command::decode(0x2F12_3456), Command::AllocAt(0x123456));
    assert_eq!(Command::decode(0x3000_0005), Command::Publish(5));
    assert_eq!(Command::decode(0x4000_0005), Command::Free(5));
    assert_eq!(Command::decode(0x5000_0000), Command::DirFlush);
    assert_eq!(Command::decode(0x5000_0042), Command::Raw(5, 0x42));
    assert_eq!(Command::decode(0x0000_0042), Command::Raw(0, 0x42));
    assert_eq!(Command::decode(0x6000_0000), Command::Raw(6, 0));
    let r = res(CmdStatus::BadState, 0x4002);
    assert_eq!(r.to_register(), 0x3000_4002);
    assert_eq!(CmdResult::from_register(0x3800_4002), Some(r));
    assert_eq!(
        CmdResult::from_register(0x5000_0000),
        Some(res(CmdStatus::MemError, 0))
    );
    assert_eq!(CmdResult::from_register(0x6000_0000), None);
    assert_eq!(Status::from_u64(3), Some(Status::Stale));
    assert_eq!(Status::from_u64(6), None);
    assert_eq!(Status::MemError.as_u64(), 5);
    assert_eq!(CmdStatus::from_u32(4), Some(CmdStatus::BadCmd));
    assert_eq!(CmdStatus::from_u32(5), Some(CmdStatus::MemError));
    assert_eq!(CmdStatus::from_u32(6), None);
}

#[test]
fn read_only_registers() {
    let m = model(&[]);
    assert_eq!(reg(&m, regs::ID), 0x5150_5431);
    assert_eq!(reg(&m, regs::VERSION), 0x0002_0000);
    assert_eq!(reg(&m, regs::MAX_QPS), 16384);
    assert_eq!(reg(&m, regs::ENTRY_BYTES), 256);
    // 14 | 2 ports << 12.
    assert_eq!(reg(&m, regs::GEOMETRY), 0x200E);
    assert_eq!(reg(&m, regs::STATUS), 1);
    assert_eq!(reg(&m, regs::FIRST_INDEX), 2);
    // addr[1:0] ignored, and bits above the 12-bit address.
    assert_eq!(reg(&m, 0x003), 0x5150_5431);
    assert_eq!(reg(&m, 0x1000 | 0x008), 16384);
    let m = model(&[
        "index_bits=24",
        "max_qps=1000",
        "ports=a,b,c,d",
        "reuse=lowest",
        "entry_bytes=32",
        "first_index=0",
    ]);
    // 24 | 4 << 12 | 1 << 15.
    assert_eq!(reg(&m, regs::GEOMETRY), 0xC018);
    assert_eq!(reg(&m, regs::MAX_QPS), 1000);
    assert_eq!(reg(&m, regs::ENTRY_BYTES), 32);
    assert_eq!(reg(&m, regs::FIRST_INDEX), 0);
    let m = model(&["ports=rx"]);
    assert_eq!(reg(&m, regs::GEOMETRY), 0x100E);
}

#[test]
fn table_base_strobes_width_and_in_use() {
    let mut m = model(&["addr_bits=40"]);
    m.write_register(regs::TABLE_BASE_LO, 0x1234_5678, 0b0101)
        .unwrap();
    assert_eq!(reg(&m, regs::TABLE_BASE_LO), 0x0034_0078);
    m.write_register(regs::TABLE_BASE_LO + 2, 0xAABB_CCDD, 0b1010)
        .unwrap();
    assert_eq!(reg(&m, regs::TABLE_BASE_LO), 0xAA34_CC78);
    // 40 bits: only HI[7:0] is held.
    m.write_register(regs::TABLE_BASE_HI, 0xFFFF_FFFF, 0xF)
        .unwrap();
    assert_eq!(reg(&m, regs::TABLE_BASE_HI), 0xFF);
    assert_eq!(m.table_base(), 0xFF_AA34_CC78);
    m.write_register(regs::TABLE_BASE_HI, 0x0000_0012, 0b0000)
        .unwrap();
    assert_eq!(m.table_base(), 0xFF_AA34_CC78);
    // Bits [2:0] are kept in flat mode.
    m.write_register(regs::TABLE_BASE_LO, 0x0000_0007, 0b0001)
        .unwrap();
    assert_eq!(reg(&m, regs::TABLE_BASE_LO), 0xAA34_CC07);
    // While IN_USE != 0: SLVERR, unchanged.
    run(&mut m, Command::Alloc);
    assert_eq!(
        m.write_register(regs::TABLE_BASE_LO, 0, 0xF),
        Err(Slverr::InUse)
    );
    assert_eq!(
        m.write_register(regs::TABLE_BASE_HI, 0, 0xF),
        Err(Slverr::InUse)
    );
    assert_eq!(m.table_base(), 0xFF_AA34_CC07);
    run(&mut m, Command::Free(0x4002));
    m.write_register(regs::TABLE_BASE_HI, 0, 0xF).unwrap();
    assert_eq!(m.table_base(), 0xAA34_CC07);

    let mut m = model(&["addr_bits=32"]);
    m.write_register(regs::TABLE_BASE_HI, 0xFFFF_FFFF, 0xF)
        .unwrap();
    assert_eq!(reg(&m, regs::TABLE_BASE_HI), 0);
    m.write_register(regs::TABLE_BASE_LO, 0xFFFF_FFFF, 0xF)
        .unwrap();
    assert_eq!(m.table_base(), 0xFFFF_FFFF);
}

#[test]
fn slverr_cases() {
    let mut m = model(&[]);
    for addr in [
        0x01C, 0x028, 0x02C, 0x038, 0x03C, 0x040, 0x044, 0x048, 0x04C, 0x0FC, 0x11C, 0x13C, 0x140,
        0x160, 0x17C, 0x19C, 0x1B8, 0x050, 0x054, 0x058, 0xFFC,
    ] {
        assert_eq!(
            m.read_register(addr),
            Err(Slverr::Unmapped),
            "read {addr:#x}"
        );
        assert_eq!(
            m.write_register(addr, 1, 0xF),
            Err(Slverr::Unmapped),
            "write {addr:#x}"
        );
    }
    assert_eq!(m.read_register(regs::CMD), Err(Slverr::WriteOnly));
    assert_eq!(m.read_register(0x033), Err(Slverr::WriteOnly));
    assert_eq!(
        m.write_register(regs::CMD, 0x1000_0000, 0xF),
        Err(Slverr::Command)
    );
    assert!(!Slverr::Command.is_slverr() && Slverr::ReadOnly.is_slverr());
    for addr in [
        0x000, 0x004, 0x008, 0x00C, 0x010, 0x014, 0x018, 0x034, 0x100, 0x118, 0x120, 0x138, 0x180,
        0x184, 0x188, 0x18C, 0x190, 0x194, 0x198,
    ] {
        assert_eq!(
            m.write_register(addr, 0, 0xF),
            Err(Slverr::ReadOnly),
            "{addr:#x}"
        );
    }
    // Nothing changed: no command ran, counters are 0.
    assert_eq!(reg(&m, regs::CMD_RESULT), 0);
    // Ports that exist: 4 of them map 0x100..0x178.
    let m = model(&["ports=a,b,c,d"]);
    assert_eq!(m.read_register(0x160), Ok(0));
    assert_eq!(m.read_register(0x178), Ok(0));
    assert_eq!(m.read_register(0x17C), Err(Slverr::Unmapped));
}

#[test]
fn per_port_counters() {
    let mut m = model(&["ports=tx,rx,aux"]);
    m.count_lookup(0, Status::Ok);
    m.count_lookup(0, Status::Ok);
    m.count_lookup(0, Status::Stale);
    m.count_lookup(2, Status::MemError);
    m.count_lookup(2, Status::OutOfRange);
    m.count_lookup(2, Status::NotAllocated);
    m.count_lookup(2, Status::PageAbsent);
    let r = |a| reg(&m, a);
    assert_eq!(
        [0x100, 0x104, 0x108, 0x10C, 0x110, 0x114, 0x118].map(r),
        [3, 2, 0, 0, 1, 0, 0]
    );
    assert_eq!(
        [0x120, 0x124, 0x128, 0x12C, 0x130, 0x134, 0x138].map(r),
        [0; 7]
    );
    assert_eq!(
        [0x140, 0x144, 0x148, 0x14C, 0x150, 0x154, 0x158].map(r),
        [4, 0, 1, 1, 0, 1, 1]
    );
    assert_eq!(regs::port_register(2, regs::PORT_STALE), 0x150);
}

#[test]
#[should_panic(expected = "index_bits = 30 is out of range")]
fn invalid_config_panics() {
    model(&["index_bits=30"]);
}

#[test]
fn index_set_against_btreeset() {
    use rand::{Rng, SeedableRng};
    let seed = 0x5eed_1dea;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    for (len, lo) in [
        (1, 0),
        (64, 3),
        (65, 64),
        (200, 7),
        (4096, 2),
        (300_000, 100),
    ] {
        let mut set = IndexSet::with_range(len, lo);
        let mut reference: BTreeSet<u32> = (lo..len).collect();
        for _ in 0..5000 {
            let i = rng.gen_range(0..len);
            match rng.gen_range(0..3) {
                0 => {
                    set.insert(i);
                    reference.insert(i);
                }
                1 => {
                    set.remove(i);
                    reference.remove(&i);
                }
                _ => {}
            }
            let probe = rng.gen_range(0..=len);
            assert_eq!(
                set.first_at_or_after(probe),
                reference.range(probe..).next().copied(),
                "seed {seed:#x} len {len} probe {probe}"
            );
            assert_eq!(set.contains(i), reference.contains(&i));
        }
    }
}
