//! Directed testbenches of qptable: one test per behaviour of SPEC.md, each on a small
//! configuration so that its Verilator model builds in seconds.
//!
//! Every test runs on a `Bench` (generate + build + reset + INIT_DONE, all agents in one
//! cycle loop, the scoreboard checking every response and command against the reference
//! model) through the thin wrapper [`Tb`] (`qptable_testbench::tb`), which steps the bench
//! one cycle at a time and also records every request and response handshake of every lookup
//! port with its edge number, read from the port signals themselves: an independent monitor,
//! so a test can compare exact field values and cycles. Every expected value in this file is
//! written by hand from SPEC (QPN = {generation, index}, addr = TABLE_BASE + index *
//! entry_bytes modulo 2^addr_bits, ...), never taken from the DUT; the scoreboard checks the
//! same traffic against the model too, and every test ends with [`Tb::finish`] (drain, monitor
//! totals, and `bench.finish()`, which must be Ok).
//!
//! Configurations (one Verilator model each; builds are serialised by `configs::prebuild`):
//!
//! | name | parameters | used for |
//! |---|---|---|
//! | A | index_bits 4, max_qps 13, entry_bytes 96, addr_bits 32, tag_bits 32, ports tx,rx | statuses, commands (cyclic), drain, II, credit |
//! | B | index_bits 6, entry_bytes 4096, addr_bits 40, tag_bits 1, ports rx, first_index 5, lowest | tag 1 bit, 40-bit TABLE_BASE, lowest reuse, one port, init sweep |
//! | C | index_bits 22 (gen_bits 2), max_qps 4, first_index 3 | generation wrap, FULL |
//! | D | index_bits 24 (no generation), max_qps 100, first_index 0, entry_bytes 32, ports a,b,c,d | 4 ports: counters, II; 64-bit wrap |
//!
//! Random traffic (idle, backpressure) is seeded; every seed is printed by [`Tb::new`]
//! (`cargo test -- --nocapture` shows them; a failing test shows its output anyway).
//! `QPTABLE_DIRECTED_SEEDS=0x1,0x2,...` replaces the default seeds of the randomised tests.

use anyhow::{ensure, Result};
use qptable::config::Config;
use qptable::model::{regs, CmdStatus, Command, Status};
use qptable_sim::AxiResp;
use qptable_testbench::bench::BenchOptions;
use qptable_testbench::configs::named;
use qptable_testbench::scoreboard::Scoreboard;
use qptable_testbench::tb::Tb;

// ---------------------------------------------------------------------------------------------
// Configurations
// ---------------------------------------------------------------------------------------------

/// A: QPN = {gen[19:0], index[3:0]}; indexes 13..15 OUT_OF_RANGE; pool 2..=12.
fn cfg_a() -> Config {
    named(
        "qpt_dir_a",
        &[
            "index_bits=4",
            "max_qps=13",
            "entry_bytes=96",
            "addr_bits=32",
            "tag_bits=32",
        ],
    )
}

/// B: QPN = {gen[17:0], index[5:0]}; one port `rx`; `lowest`; pool 5..=63.
fn cfg_b() -> Config {
    named(
        "qpt_dir_b",
        &[
            "index_bits=6",
            "entry_bytes=4096",
            "addr_bits=40",
            "tag_bits=1",
            "ports=rx",
            "first_index=5",
            "reuse=lowest",
        ],
    )
}

/// C: QPN = {gen[1:0], index[21:0]}; pool = {3}.
fn cfg_c() -> Config {
    named(
        "qpt_dir_c",
        &["index_bits=22", "max_qps=4", "first_index=3"],
    )
}

/// D: QPN = index (no generation bits); 4 ports.
fn cfg_d() -> Config {
    named(
        "qpt_dir_d",
        &[
            "index_bits=24",
            "max_qps=100",
            "first_index=0",
            "entry_bytes=32",
            "ports=a,b,c,d",
        ],
    )
}

fn quiet() -> BenchOptions {
    BenchOptions::default()
}

/// The seeds of a randomised test: `defaults`, or those of `QPTABLE_DIRECTED_SEEDS` (comma
/// separated, decimal or 0x hex) to replay or explore.
fn seeds(defaults: &[u64]) -> Vec<u64> {
    match std::env::var("QPTABLE_DIRECTED_SEEDS") {
        Ok(v) if !v.trim().is_empty() => v
            .split(',')
            .map(|s| {
                let s = s.trim();
                match s.strip_prefix("0x") {
                    Some(h) => u64::from_str_radix(h, 16),
                    None => s.parse(),
                }
                .unwrap_or_else(|e| panic!("QPTABLE_DIRECTED_SEEDS: {s}: {e}"))
            })
            .collect(),
        _ => defaults.to_vec(),
    }
}

fn random(seed: u64) -> BenchOptions {
    BenchOptions {
        req_idle: 0.3,
        rsp_backpressure: 0.4,
        axil_random: 0.3,
        seed,
        trace: None,
    }
}

const OK: Status = Status::Ok;
const OOR: Status = Status::OutOfRange;
const NA: Status = Status::NotAllocated;
const STALE: Status = Status::Stale;

/// Counts of `[OK, OOR, NA, STALE]` per port of a list of expected lookups.
fn hand_counts(items: &[(usize, u32, u64, Status, u64)], ports: usize) -> Vec<[u32; 4]> {
    let mut c = vec![[0u32; 4]; ports];
    for &(p, _, _, s, _) in items {
        c[p][s as usize] += 1;
    }
    c
}

// ---------------------------------------------------------------------------------------------
// Lookup statuses
// ---------------------------------------------------------------------------------------------

/// Config A, TABLE_BASE 0xFFFF_FE00 (addr_bits 32): QPs at indexes 2..=12 with generation 1,
/// all published but index 11; every lookup status, with exact addresses (some wrap modulo
/// 2^32), tags of 32 bits echoed, and the per-port counters at the end.
fn lookup_statuses(name: &str, opts: BenchOptions) -> Result<()> {
    let mut tb = Tb::new(name, &cfg_a(), opts)?;
    // addr_bits 32: TABLE_BASE_HI holds nothing; the write is taken (OKAY) and dropped.
    tb.expect_write(regs::TABLE_BASE_HI, 0xFFFF_FFFF, 0xF, true)?;
    tb.expect_reg(regs::TABLE_BASE_HI, Some(0))?;
    tb.expect_write(regs::TABLE_BASE_LO, 0xFFFF_FE00, 0xF, true)?;
    tb.expect_reg(regs::TABLE_BASE_LO, Some(0xFFFF_FE00))?;
    // ALLOC hands out first_index (2) with generation 1, then 3, 4, ... (cyclic).
    for i in 2..=12u32 {
        tb.cmd_ok(Command::Alloc, 0x10 | i)?;
    }
    for i in (2..=12u32).filter(|&i| i != 11) {
        tb.cmd_ok(Command::Publish(0x10 | i), 0x10 | i)?;
    }
    // addr = 0xFFFF_FE00 + index * 96 (0x60) mod 2^32.
    let items: Vec<(usize, u32, u64, Status, u64)> = vec![
        // OK.
        (0, 0x12, 0xDEAD_BEEF, OK, 0xFFFF_FEC0),
        (1, 0x13, 0x0000_0000, OK, 0xFFFF_FF20),
        (0, 0x14, 0xFFFF_FFFF, OK, 0xFFFF_FF80),
        (1, 0x15, 0x8000_0000, OK, 0xFFFF_FFE0),
        (0, 0x16, 0x0000_0001, OK, 0x0000_0040), // wraps
        (1, 0x17, 0x1234_5678, OK, 0x0000_00A0),
        (0, 0x18, 0x0BAD_F00D, OK, 0x0000_0100),
        (1, 0x19, 0x7FFF_FFFF, OK, 0x0000_0160),
        (0, 0x1A, 0x0000_00FF, OK, 0x0000_01C0),
        (1, 0x1C, 0xFFFF_FFFE, OK, 0x0000_0280),
        // OUT_OF_RANGE: index 13..=15, whatever the generation bits.
        (0, 0x00_000D, 1, OOR, 0),
        (1, 0x00_001D, 2, OOR, 0),
        (0, 0x00_000E, 3, OOR, 0),
        (1, 0x00_002F, 4, OOR, 0),
        (0, 0xFF_FFFF, 5, OOR, 0),
        (1, 0xAB_CDED, 6, OOR, 0),
        // NOT_ALLOCATED: FREE (indexes 0, 1 below first_index), whatever the generation.
        (0, 0x00_0000, 7, NA, 0),
        (1, 0x00_0001, 8, NA, 0),
        (0, 0x00_0011, 9, NA, 0),
        (1, 0x00_0051, 10, NA, 0),
        // NOT_ALLOCATED: RESERVED (index 11, generation 1), whatever the generation.
        (0, 0x00_001B, 11, NA, 0),
        (1, 0x00_002B, 12, NA, 0),
        (0, 0x00_000B, 13, NA, 0),
        // STALE: VALID, other generation.
        (1, 0x00_0022, 14, STALE, 0),
        (0, 0x00_0002, 15, STALE, 0),
        (1, 0xFF_FFF2, 16, STALE, 0),
        (0, 0x00_002C, 17, STALE, 0),
        (1, 0x00_000C, 18, STALE, 0),
    ];
    tb.expect_lookups(&items)?;
    // FREE: later lookups get NOT_ALLOCATED whatever the generation; the others are untouched.
    tb.cmd_ok(Command::Free(0x13), 0x13)?;
    let after = vec![
        (0, 0x13, 0xAAAA_5555, NA, 0),
        (1, 0x23, 0x5555_AAAA, NA, 0),
        (1, 0x14, 0xC0FF_EE00, OK, 0xFFFF_FF80),
    ];
    tb.expect_lookups(&after)?;
    // Per-port counters, counted at the response handshake.
    let all: Vec<_> = items.iter().chain(after.iter()).copied().collect();
    let counts = hand_counts(&all, 2);
    assert_eq!(counts[0], [5, 3, 5, 2]); // the hand counts of the lists above
    assert_eq!(counts[1], [6, 3, 4, 3]);
    for (p, &c) in counts.iter().enumerate() {
        tb.expect_port_counters(p, c)?;
    }
    tb.finish()
}

#[test]
fn lookup_statuses_quiet() -> Result<()> {
    lookup_statuses("lookup_statuses_quiet", quiet())
}

#[test]
fn lookup_statuses_backpressure() -> Result<()> {
    for seed in seeds(&[0xA11C_E5EE]) {
        lookup_statuses("lookup_statuses_backpressure", random(seed))?;
    }
    Ok(())
}

/// Config B: tag_bits 1 (both values echoed), one port, entry_bytes 4096, addr_bits 40 with a
/// base near the top of the 40-bit space (addresses wrap modulo 2^40).
fn lookups_one_port_tag1(name: &str, opts: BenchOptions) -> Result<()> {
    let mut tb = Tb::new(name, &cfg_b(), opts)?;
    tb.expect_write(regs::TABLE_BASE_LO, 0xFFFF_B000, 0xF, true)?;
    tb.expect_write(regs::TABLE_BASE_HI, 0x0000_00FF, 0xF, true)?;
    // QPN = {gen, index[5:0]}; ALLOC from first_index 5.
    tb.cmd_ok(Command::Alloc, 0x45)?;
    tb.cmd_ok(Command::Publish(0x45), 0x45)?;
    tb.cmd_ok(Command::Alloc, 0x46)?;
    tb.cmd_ok(Command::Publish(0x46), 0x46)?;
    tb.cmd_ok(Command::AllocAt(0x7F), 0x7F)?; // index 63, generation 1
    tb.cmd_ok(Command::Publish(0x7F), 0x7F)?;
    tb.cmd_ok(Command::AllocAt(0x44), 0x44)?; // index 4 (below first_index), generation 1
    tb.cmd_ok(Command::Publish(0x44), 0x44)?;
    // base 0xFF_FFFF_B000 + index * 0x1000 modulo 2^40: index 4 does not wrap, 5 lands
    // exactly on 2^40 (OK with address 0), 6 and 63 wrap.
    tb.expect_lookups(&[
        (0, 0x44, 0, OK, 0xFF_FFFF_F000),
        (0, 0x45, 1, OK, 0x00_0000_0000),
        (0, 0x46, 0, OK, 0x00_0000_1000),
        (0, 0x7F, 1, OK, 0x00_0003_A000),
        (0, 0x85, 0, STALE, 0),
        (0, 0x47, 1, NA, 0),
        (0, 0x03, 0, NA, 0),
        (0, 0x04, 1, STALE, 0),
        (0, 0xFF_FFC5, 1, STALE, 0),
        (0, 0x45, 0, OK, 0x00_0000_0000),
    ])?;
    tb.finish()
}

#[test]
fn lookups_one_port_tag1_quiet() -> Result<()> {
    lookups_one_port_tag1("lookups_one_port_tag1_quiet", quiet())
}

#[test]
fn lookups_one_port_tag1_backpressure() -> Result<()> {
    for seed in seeds(&[0xB0B]) {
        lookups_one_port_tag1("lookups_one_port_tag1_backpressure", random(seed))?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------------------------

/// Config A (cyclic, pool 2..=12): ALLOC order, wrap to first_index (not 0), FULL, ALLOC_AT
/// below first_index, CMD byte strobes ignored, and the command counters.
#[test]
fn alloc_cyclic_order_full_and_counters() -> Result<()> {
    let mut tb = Tb::new("alloc_cyclic_order_full_and_counters", &cfg_a(), quiet())?;
    tb.cmd_ok(Command::Alloc, 0x12)?; // first ALLOC: generation 1 at first_index
    tb.cmd_ok(Command::Alloc, 0x13)?;
    tb.cmd_ok(Command::Alloc, 0x14)?;
    tb.cmd_ok(Command::Free(0x13), 0x13)?;
    // Cyclic: after index 4 comes 5, not the freed 3. Strobes are ignored on CMD.
    tb.cmd_word(Command::Alloc.encode(), 0b0000, CmdStatus::Ok, 0x15)?;
    for i in 6..=12u32 {
        tb.cmd_ok(Command::Alloc, 0x10 | i)?;
    }
    // Wrap from max_qps - 1 (12) to first_index (2, RESERVED), then 3: FREE, generation 1 -> 2.
    // (Indexes 0 and 1 are FREE but below first_index.)
    tb.cmd_ok(Command::Alloc, 0x23)?;
    tb.expect_cmd_counters(12, 0, 1, 0, 11)?;
    // Full: FULL with qpn 0, counted in ALLOC_FULL only; nothing changes.
    tb.cmd(Command::Alloc, CmdStatus::Full, 0)?;
    tb.expect_reg(regs::CMD_RESULT, Some(0x1000_0000))?; // SPEC §6 encoding: FULL = 1 in [31:28]
    tb.expect_cmd_counters(12, 1, 1, 0, 11)?;
    // ALLOC_AT below first_index is allowed; ALLOC still refuses indexes 0 and 1.
    tb.cmd_ok(Command::AllocAt(0x01), 0x01)?;
    tb.cmd(Command::Alloc, CmdStatus::Full, 0)?;
    tb.expect_cmd_counters(13, 2, 1, 0, 12)?;
    // FREE 7 and 4 (both generation 1): the next ALLOC goes on after 3 (the last handed out):
    // 4 then 7, each with generation 2.
    tb.cmd_ok(Command::Free(0x17), 0x17)?;
    tb.cmd_ok(Command::Free(0x14), 0x14)?;
    tb.cmd_ok(Command::Alloc, 0x24)?;
    tb.cmd_ok(Command::Alloc, 0x27)?;
    tb.cmd(Command::Alloc, CmdStatus::Full, 0)?;
    tb.expect_cmd_counters(15, 3, 3, 0, 12)?;
    // Nothing is published: every allocated QPN is NOT_ALLOCATED.
    tb.expect_lookups(&[
        (0, 0x12, 1, NA, 0),
        (1, 0x23, 2, NA, 0),
        (0, 0x27, 3, NA, 0),
        (1, 0x01, 4, NA, 0),
    ])?;
    tb.finish()
}

/// Config B (`lowest`, first_index 5): ALLOC reuses the lowest FREE index.
#[test]
fn alloc_lowest_reuses_lowest_free() -> Result<()> {
    let mut tb = Tb::new("alloc_lowest_reuses_lowest_free", &cfg_b(), quiet())?;
    tb.cmd_ok(Command::Alloc, 0x45)?;
    tb.cmd_ok(Command::Alloc, 0x46)?;
    tb.cmd_ok(Command::Alloc, 0x47)?;
    tb.cmd_ok(Command::Free(0x46), 0x46)?;
    tb.cmd_ok(Command::Alloc, 0x86)?; // index 6 again, generation 2
    tb.cmd_ok(Command::Free(0x45), 0x45)?;
    tb.cmd_ok(Command::Free(0x47), 0x47)?;
    tb.cmd_ok(Command::Alloc, 0x85)?;
    tb.cmd_ok(Command::Alloc, 0x87)?;
    tb.cmd_ok(Command::Alloc, 0x48)?;
    tb.cmd_ok(Command::Free(0x86), 0x86)?;
    tb.cmd_ok(Command::Alloc, 0xC6)?; // generation 3
                                      // ALLOC_AT below first_index is allowed; ALLOC never goes there.
    tb.cmd_ok(Command::AllocAt(0x00), 0x00)?;
    tb.cmd_ok(Command::Alloc, 0x49)?;
    tb.expect_cmd_counters(10, 0, 4, 0, 6)?;
    tb.finish()
}

/// Config A: ALLOC_AT takes the generation from the QPN; BAD_STATE when not FREE;
/// OUT_OF_RANGE; allowed below first_index; does not move the cyclic pointer; ALLOC then
/// advances the generation it left.
#[test]
fn alloc_at_cases() -> Result<()> {
    let mut tb = Tb::new("alloc_at_cases", &cfg_a(), quiet())?;
    tb.cmd_ok(Command::AllocAt(0x35), 0x35)?; // index 5, generation 3
    tb.expect_lookup(0, 0x35, 1, NA, 0)?; // RESERVED
    tb.cmd_ok(Command::Publish(0x35), 0x35)?;
    tb.expect_lookups(&[
        (0, 0x35, 2, OK, 5 * 96),
        (1, 0x15, 3, STALE, 0),
        (1, 0x45, 4, STALE, 0),
    ])?;
    // Not FREE: BAD_STATE, whatever the generation.
    tb.cmd(Command::AllocAt(0x45), CmdStatus::BadState, 0x45)?;
    tb.cmd(Command::AllocAt(0x35), CmdStatus::BadState, 0x35)?;
    // Out of range (index 13..15), range first.
    tb.cmd(Command::AllocAt(0x0D), CmdStatus::OutOfRange, 0x0D)?;
    tb.cmd(
        Command::AllocAt(0xFF_FFFF),
        CmdStatus::OutOfRange,
        0xFF_FFFF,
    )?;
    tb.cmd(Command::AllocAt(0x5E), CmdStatus::OutOfRange, 0x5E)?;
    // Below first_index.
    tb.cmd_ok(Command::AllocAt(0x00), 0x00)?;
    tb.cmd_ok(Command::AllocAt(0x71), 0x71)?;
    tb.cmd_ok(Command::Publish(0x00), 0x00)?;
    tb.expect_lookup(1, 0x00, 5, OK, 0)?;
    // The first ALLOC after reset starts at first_index: ALLOC_AT did not move it.
    tb.cmd_ok(Command::Alloc, 0x12)?;
    tb.cmd(Command::AllocAt(0x12), CmdStatus::BadState, 0x12)?;
    tb.cmd(Command::AllocAt(0x22), CmdStatus::BadState, 0x22)?;
    // ALLOC advances the generation that ALLOC_AT set: 7 -> 8 at index 3.
    tb.cmd_ok(Command::AllocAt(0x73), 0x73)?;
    tb.cmd_ok(Command::Free(0x73), 0x73)?;
    tb.cmd_ok(Command::Alloc, 0x83)?;
    tb.expect_cmd_counters(6, 0, 1, 7, 5)?;
    // The failing commands changed nothing.
    tb.expect_lookups(&[
        (0, 0x35, 6, OK, 5 * 96),
        (1, 0x45, 7, STALE, 0),
        (0, 0x12, 8, NA, 0),
        (1, 0x0D, 9, OOR, 0),
    ])?;
    tb.finish()
}

/// Config A: PUBLISH OK; BAD_STATE when not RESERVED or the generation differs; OUT_OF_RANGE.
#[test]
fn publish_cases() -> Result<()> {
    let mut tb = Tb::new("publish_cases", &cfg_a(), quiet())?;
    tb.expect_write(regs::TABLE_BASE_LO, 0x1000_0000, 0xF, true)?;
    tb.cmd_ok(Command::Alloc, 0x12)?;
    tb.cmd_ok(Command::Alloc, 0x13)?;
    tb.cmd(Command::Publish(0x22), CmdStatus::BadState, 0x22)?; // generation differs
    tb.expect_lookup(0, 0x12, 1, NA, 0)?; // still RESERVED
    tb.cmd(Command::Publish(0x14), CmdStatus::BadState, 0x14)?; // FREE
    tb.cmd(Command::Publish(0x04), CmdStatus::BadState, 0x04)?; // FREE, generation 0
    tb.cmd(Command::Publish(0x0D), CmdStatus::OutOfRange, 0x0D)?;
    tb.cmd(Command::Publish(0x1F), CmdStatus::OutOfRange, 0x1F)?;
    tb.cmd_ok(Command::Publish(0x12), 0x12)?;
    tb.expect_lookup(1, 0x12, 2, OK, 0x1000_00C0)?;
    tb.cmd(Command::Publish(0x12), CmdStatus::BadState, 0x12)?; // already VALID
    tb.expect_lookups(&[
        (0, 0x12, 3, OK, 0x1000_00C0),
        (1, 0x13, 4, NA, 0),
        (0, 0x22, 5, STALE, 0),
    ])?;
    tb.expect_cmd_counters(2, 0, 0, 6, 2)?;
    tb.finish()
}

/// Config A: FREE OK (of VALID and of RESERVED); BAD_STATE on double free, on a wrong
/// generation and on a never-allocated index; OUT_OF_RANGE; FREE keeps the generation.
#[test]
fn free_cases() -> Result<()> {
    let mut tb = Tb::new("free_cases", &cfg_a(), quiet())?;
    tb.cmd_ok(Command::Alloc, 0x12)?;
    tb.cmd_ok(Command::Alloc, 0x13)?;
    tb.cmd_ok(Command::Publish(0x12), 0x12)?;
    tb.cmd(Command::Free(0x22), CmdStatus::BadState, 0x22)?; // VALID, generation differs
    tb.expect_lookup(0, 0x12, 1, OK, 0xC0)?;
    tb.cmd(Command::Free(0x03), CmdStatus::BadState, 0x03)?; // RESERVED, generation differs
    tb.cmd(Command::Free(0x0D), CmdStatus::OutOfRange, 0x0D)?;
    tb.cmd(Command::Free(0xFF_FFFE), CmdStatus::OutOfRange, 0xFF_FFFE)?;
    tb.expect_cmd_counters(2, 0, 0, 4, 2)?;
    tb.cmd_ok(Command::Free(0x12), 0x12)?;
    tb.expect_lookups(&[(0, 0x12, 2, NA, 0), (1, 0x12, 3, NA, 0)])?;
    tb.expect_cmd_counters(2, 0, 1, 4, 1)?;
    tb.cmd(Command::Free(0x12), CmdStatus::BadState, 0x12)?; // double free
    tb.cmd_ok(Command::Free(0x13), 0x13)?; // RESERVED
    tb.cmd(Command::Free(0x14), CmdStatus::BadState, 0x14)?; // never allocated
    tb.cmd(Command::Free(0x04), CmdStatus::BadState, 0x04)?;
    tb.expect_cmd_counters(2, 0, 2, 7, 0)?;
    // Cyclic goes on at 4..=12, then wraps to 2, whose generation FREE kept at 1: now 2.
    for i in 4..=12u32 {
        tb.cmd_ok(Command::Alloc, 0x10 | i)?;
    }
    tb.cmd_ok(Command::Alloc, 0x22)?;
    tb.cmd_ok(Command::Alloc, 0x23)?;
    tb.expect_cmd_counters(13, 0, 2, 7, 11)?;
    tb.finish()
}

/// Config A: DIR_FLUSH is OK (and reports the written qpn); opcodes 0 and 6..=15 are BAD_CMD
/// with the written qpn and change nothing; ALLOC ignores its qpn field; CMD[27:24] ignored.
///
/// Raw opcodes and CMD / CMD_RESULT words are numbers on purpose: the test checks the
/// command encoding of SPEC §6, so the literal is the specification.
#[test]
fn dir_flush_and_bad_cmd() -> Result<()> {
    let mut tb = Tb::new("dir_flush_and_bad_cmd", &cfg_a(), quiet())?;
    tb.cmd_ok(Command::Alloc, 0x12)?;
    tb.cmd_ok(Command::Publish(0x12), 0x12)?;
    tb.cmd_ok(Command::DirFlush, 0)?;
    tb.expect_reg(regs::CMD_RESULT, Some(0x0000_0000))?;
    tb.cmd_ok(Command::Raw(5, 0x42), 0x42)?;
    tb.expect_reg(regs::CMD_RESULT, Some(0x0000_0042))?;
    tb.expect_lookup(0, 0x12, 1, OK, 0xC0)?;
    tb.cmd(Command::Raw(0, 0x12_3456), CmdStatus::BadCmd, 0x12_3456)?;
    tb.expect_reg(regs::CMD_RESULT, Some(0x4012_3456))?;
    // Opcodes 6..=15 on the QP that exists: nothing may happen to it.
    for op in 6..=15u32 {
        tb.cmd(Command::Raw(op, 0x12), CmdStatus::BadCmd, 0x12)?;
    }
    tb.expect_cmd_counters(1, 0, 0, 11, 1)?;
    tb.expect_lookups(&[(0, 0x12, 2, OK, 0xC0), (1, 0x12, 3, OK, 0xC0)])?;
    // ALLOC ignores the qpn field: the next index, generation 1.
    tb.cmd_ok(Command::Raw(1, 0x777), 0x13)?;
    // Bits [27:24] of CMD are not part of the command: FREE 0x12.
    tb.cmd_word(0x4F00_0012, 0xF, CmdStatus::Ok, 0x12)?;
    tb.expect_lookup(1, 0x12, 4, NA, 0)?;
    tb.expect_cmd_counters(2, 0, 1, 11, 1)?;
    tb.finish()
}

/// Config C (index_bits 22: 2 generation bits; pool = {3}): ALLOC/FREE of the one index
/// hands out generations 1, 2, 3, 0, 1; FULL while it is taken; STALE for the old QPN.
#[test]
fn generation_wrap() -> Result<()> {
    let mut tb = Tb::new("generation_wrap", &cfg_c(), quiet())?;
    let gens = [1u32, 2, 3, 0, 1];
    let mut previous: Option<u32> = None;
    for (round, &g) in gens.iter().enumerate() {
        let qpn = g << 22 | 3;
        tb.cmd_ok(Command::Alloc, qpn)?;
        tb.cmd(Command::Alloc, CmdStatus::Full, 0)?;
        tb.cmd_ok(Command::Publish(qpn), qpn)?;
        tb.expect_lookup(round % 2, qpn, round as u64, OK, 3 * 256)?;
        if let Some(old) = previous {
            tb.expect_lookup(1 - round % 2, old, 0xEE, STALE, 0)?;
        }
        if round + 1 < gens.len() {
            tb.cmd_ok(Command::Free(qpn), qpn)?;
            tb.expect_lookup(0, qpn, 0x55, NA, 0)?;
        }
        previous = Some(qpn);
    }
    tb.expect_lookups(&[
        (0, 0x00_0004, 1, OOR, 0),
        (1, 0x3F_FFFF, 2, OOR, 0),
        (0, 0xFF_FFFF, 3, OOR, 0),
        (1, 0x40_0002, 4, NA, 0),
        (0, 0x00_0000, 5, NA, 0),
        (1, 0x80_0003, 6, STALE, 0),
    ])?;
    tb.expect_cmd_counters(5, 5, 4, 0, 1)?;
    tb.finish()
}

// ---------------------------------------------------------------------------------------------
// Registers
// ---------------------------------------------------------------------------------------------

/// Read-only values of SPEC §6 for configs A, B, C and D; addr[1:0] ignored; counters 0
/// after reset.
///
/// The register values and the aliased addresses are written as numbers on purpose: this
/// test checks the encoding against the SPEC §6 table, so the literal is the specification
/// (a named constant from `spec` would check the code against itself).
#[test]
fn register_values() -> Result<()> {
    // (config, MAX_QPS, ENTRY_BYTES, GEOMETRY, FIRST_INDEX)
    let cases = [
        (cfg_a(), 13, 96, 4 | 2 << 12, 2),
        (cfg_b(), 64, 4096, 6 | 1 << 12 | 1 << 15, 5),
        (cfg_c(), 4, 256, 22 | 2 << 12, 3),
        (cfg_d(), 100, 32, 24 | 4 << 12, 0),
    ];
    for (cfg, max_qps, entry, geometry, first) in cases {
        let name = format!("register_values {}", cfg.top);
        let mut tb = Tb::new(&name, &cfg, quiet())?;
        tb.expect_reg(regs::ID, Some(0x5150_5431))?;
        tb.expect_reg(regs::VERSION, Some(0x0002_0000))?;
        tb.expect_reg(regs::MAX_QPS, Some(max_qps))?;
        tb.expect_reg(regs::ENTRY_BYTES, Some(entry))?;
        tb.expect_reg(regs::GEOMETRY, Some(geometry))?;
        tb.expect_reg(regs::STATUS, Some(1))?;
        tb.expect_reg(regs::FIRST_INDEX, Some(first))?;
        tb.expect_reg(regs::TABLE_BASE_LO, Some(0))?;
        tb.expect_reg(regs::TABLE_BASE_HI, Some(0))?;
        // addr[1:0] are ignored.
        tb.expect_reg(0x001, Some(0x5150_5431))?;
        tb.expect_reg(0x002, Some(0x5150_5431))?;
        tb.expect_reg(0x003, Some(0x5150_5431))?;
        tb.expect_reg(0x00B, Some(max_qps))?;
        tb.expect_reg(0x016, Some(1))?;
        // Every counter resets to 0.
        for p in 0..cfg.ports.len() {
            for k in 0..7 {
                tb.expect_reg(regs::port_register(p, 4 * k), Some(0))?;
            }
        }
        tb.expect_cmd_counters(0, 0, 0, 0, 0)?;
        tb.finish()?;
    }
    Ok(())
}

/// TABLE_BASE: byte strobes, addr_bits masking (40: HI keeps 8 bits), writes refused with
/// SLVERR while IN_USE != 0 (value unchanged), the base used by lookups; addr[1:0] ignored.
#[test]
fn table_base_strobes_width_and_in_use() -> Result<()> {
    // Config B, addr_bits 40.
    let mut tb = Tb::new("table_base B", &cfg_b(), quiet())?;
    tb.expect_write(regs::TABLE_BASE_LO, 0x1234_5678, 0b0101, true)?;
    tb.expect_reg(regs::TABLE_BASE_LO, Some(0x0034_0078))?;
    tb.expect_write(regs::TABLE_BASE_LO + 2, 0xAABB_CCDD, 0b1010, true)?; // addr[1:0] ignored
    tb.expect_reg(regs::TABLE_BASE_LO, Some(0xAA34_CC78))?;
    tb.expect_write(regs::TABLE_BASE_HI, 0xFFFF_FFFF, 0xF, true)?;
    tb.expect_reg(regs::TABLE_BASE_HI, Some(0x0000_00FF))?;
    tb.expect_write(regs::TABLE_BASE_HI, 0x0000_0012, 0b0000, true)?;
    tb.expect_reg(regs::TABLE_BASE_HI, Some(0x0000_00FF))?;
    tb.expect_write(regs::TABLE_BASE_HI, 0x0000_3412, 0b0010, true)?; // byte 1: dropped
    tb.expect_reg(regs::TABLE_BASE_HI, Some(0x0000_00FF))?;
    tb.expect_write(regs::TABLE_BASE_HI, 0x0000_0012, 0b0001, true)?;
    tb.expect_reg(regs::TABLE_BASE_HI, Some(0x0000_0012))?;
    tb.expect_reg(regs::TABLE_BASE_LO, Some(0xAA34_CC78))?;
    // base 0x12_AA34_CC78 (bits [2:0] kept in flat mode).
    tb.cmd_ok(Command::Alloc, 0x45)?;
    tb.cmd_ok(Command::Publish(0x45), 0x45)?;
    tb.expect_lookup(0, 0x45, 1, OK, 0x12_AA34_CC78 + 5 * 4096)?;
    // IN_USE = 1: TABLE_BASE writes answer SLVERR and change nothing, strobes or not.
    tb.expect_write(regs::TABLE_BASE_LO, 0, 0xF, false)?;
    tb.expect_write(regs::TABLE_BASE_HI, 0, 0xF, false)?;
    tb.expect_write(regs::TABLE_BASE_LO, 0, 0b0000, false)?;
    tb.expect_write(regs::TABLE_BASE_HI + 1, 0xFFFF_FFFF, 0b0001, false)?;
    tb.expect_reg(regs::TABLE_BASE_LO, Some(0xAA34_CC78))?;
    tb.expect_reg(regs::TABLE_BASE_HI, Some(0x0000_0012))?;
    tb.expect_lookup(0, 0x45, 0, OK, 0x12_AA34_CC78 + 5 * 4096)?;
    // IN_USE back to 0: accepted again.
    tb.cmd_ok(Command::Free(0x45), 0x45)?;
    tb.expect_reg(regs::IN_USE, Some(0))?;
    tb.expect_write(regs::TABLE_BASE_LO, 0x0000_1000, 0xF, true)?;
    tb.expect_write(regs::TABLE_BASE_HI, 0, 0xF, true)?;
    tb.cmd_ok(Command::Alloc, 0x85)?; // lowest: index 5 again, generation 2
    tb.cmd_ok(Command::Publish(0x85), 0x85)?;
    tb.expect_lookup(0, 0x85, 1, OK, 0x6000)?;
    tb.finish()?;

    // Config A, addr_bits 32: HI reads 0, LO keeps 32 bits, an odd base wraps.
    let mut tb = Tb::new("table_base A", &cfg_a(), quiet())?;
    tb.expect_write(regs::TABLE_BASE_HI, 0xFFFF_FFFF, 0xF, true)?;
    tb.expect_reg(regs::TABLE_BASE_HI, Some(0))?;
    tb.expect_write(0x023, 0x1000_0001, 0xF, true)?; // = TABLE_BASE_LO
    tb.expect_reg(0x021, Some(0x1000_0001))?;
    tb.expect_write(regs::TABLE_BASE_LO, 0xFFFF_FFFF, 0xF, true)?;
    tb.cmd_ok(Command::Alloc, 0x12)?;
    tb.cmd_ok(Command::Publish(0x12), 0x12)?;
    // 0xFFFF_FFFF + 2 * 96 = 0x1_0000_00BF -> 0xBF.
    tb.expect_lookup(1, 0x12, 0xFFFF_FFFF, OK, 0xBF)?;
    tb.finish()?;

    // Config D, addr_bits 64: HI keeps 32 bits, addresses wrap modulo 2^64.
    let mut tb = Tb::new("table_base D", &cfg_d(), quiet())?;
    tb.expect_write(regs::TABLE_BASE_HI, 0xFFFF_FFFF, 0xF, true)?;
    tb.expect_reg(regs::TABLE_BASE_HI, Some(0xFFFF_FFFF))?;
    tb.expect_write(regs::TABLE_BASE_LO, 0xFFFF_FFE0, 0xF, true)?;
    // No generation bits: ALLOC hands out index 0 (first_index) as QPN 0, then 1.
    tb.cmd_ok(Command::Alloc, 0)?;
    tb.cmd_ok(Command::Alloc, 1)?;
    tb.cmd_ok(Command::AllocAt(3), 3)?;
    for q in [0, 1, 3] {
        tb.cmd_ok(Command::Publish(q), q)?;
    }
    tb.expect_lookups(&[
        (0, 0, 1, OK, 0xFFFF_FFFF_FFFF_FFE0),
        (1, 1, 2, OK, 0),
        (2, 3, 3, OK, 0x40),
        (3, 2, 4, NA, 0),
    ])?;
    tb.finish()
}

/// Per-port counters of 4 ports (config D) at 0x100 + 0x20 p, after known traffic.
#[test]
fn per_port_counters_four_ports() -> Result<()> {
    for seed in seeds(&[0xC0C0]) {
        per_port_counters_four_ports_seed(seed)?;
    }
    Ok(())
}

fn per_port_counters_four_ports_seed(seed: u64) -> Result<()> {
    let mut tb = Tb::new("per_port_counters_four_ports", &cfg_d(), random(seed))?;
    tb.expect_write(regs::TABLE_BASE_LO, 0x0000_8000, 0xF, true)?;
    tb.cmd_ok(Command::Alloc, 0)?;
    tb.cmd_ok(Command::Alloc, 1)?;
    tb.cmd_ok(Command::Alloc, 2)?;
    tb.cmd_ok(Command::Publish(0), 0)?;
    tb.cmd_ok(Command::Publish(1), 1)?;
    let items = vec![
        (0, 0, 1, OK, 0x8000),
        (0, 0, 2, OK, 0x8000),
        (0, 0, 3, OK, 0x8000),
        (0, 2, 4, NA, 0),
        (1, 100, 5, OOR, 0),
        (1, 0xFF_FFFF, 6, OOR, 0),
        (1, 1, 7, OK, 0x8020),
        (2, 50, 8, NA, 0),
        (2, 99, 9, NA, 0),
        (2, 2, 10, NA, 0),
        (2, 3, 11, NA, 0),
        (3, 1, 12, OK, 0x8020),
        (3, 0x80_0000, 13, OOR, 0),
        (3, 98, 14, NA, 0),
        (3, 97, 15, NA, 0),
    ];
    tb.expect_lookups(&items)?;
    let counts = hand_counts(&items, 4);
    assert_eq!(
        counts,
        vec![[3, 0, 1, 0], [1, 2, 0, 0], [0, 0, 4, 0], [1, 1, 2, 0]]
    );
    for (p, &c) in counts.iter().enumerate() {
        tb.expect_port_counters(p, c)?;
    }
    // Offset 0x1C of a block is not a counter.
    tb.expect_reg(0x17C, None)?;
    tb.finish()
}

/// SLVERR: reads of unmapped addresses and of CMD and of ports that do not exist; writes to
/// read-only and unmapped registers and to TABLE_BASE while IN_USE != 0. Each changes
/// nothing (everything read back, and the lookup still resolves the same way).
///
/// The address lists are numbers on purpose: they are the SPEC §6 register map (mapped,
/// read-only, unmapped), which this test checks the hardware against.
#[test]
fn slverr_cases() -> Result<()> {
    let mut tb = Tb::new("slverr_cases A", &cfg_a(), quiet())?;
    tb.expect_write(regs::TABLE_BASE_LO, 0x1234_5660, 0xF, true)?;
    tb.cmd_ok(Command::Alloc, 0x12)?;
    tb.cmd_ok(Command::Publish(0x12), 0x12)?;
    tb.expect_lookups(&[(0, 0x12, 1, OK, 0x1234_5720), (1, 0x05, 2, NA, 0)])?;
    let unmapped = [
        0x01C, 0x028, 0x02C, 0x038, 0x03C, 0x040, 0x044, 0x048, 0x04C, 0x0FC, 0x11C, 0x13C, 0x140,
        0x15C, 0x160, 0x178, 0x17C, 0x19C, 0x1B8, 0x1FC, 0x200, 0x800, 0xFFC,
        // STATE_BASE_LO/HI and STATE_BYTES exist with the state in memory only.
        0x050, 0x054, 0x058,
    ];
    for a in unmapped {
        tb.expect_reg(a, None)?;
    }
    // CMD is write-only (addr[1:0] ignored).
    tb.expect_reg(regs::CMD, None)?;
    tb.expect_reg(0x033, None)?;
    let read_only = [
        0x000, 0x004, 0x008, 0x00C, 0x010, 0x014, 0x018, 0x034, 0x100, 0x104, 0x108, 0x10C, 0x110,
        0x114, 0x118, 0x120, 0x138, 0x180, 0x184, 0x188, 0x18C, 0x190, 0x194, 0x198,
        // The §9 counters read 0 with the state on chip; they are read-only.
        0x1A0, 0x1A4, 0x1A8, 0x1AC, 0x1B0, 0x1B4,
    ];
    for a in read_only {
        tb.expect_write(a, 0xFFFF_FFFF, 0xF, false)?;
    }
    // CMD_RESULT written with a command word: still refused, no command runs.
    tb.expect_write(regs::CMD_RESULT, 0x4000_0012, 0xF, false)?;
    for a in unmapped {
        tb.expect_write(a, 0x4000_0012, 0xF, false)?;
    }
    // IN_USE = 1.
    tb.expect_write(regs::TABLE_BASE_LO, 0, 0xF, false)?;
    tb.expect_write(regs::TABLE_BASE_HI, 0xFF, 0xF, false)?;
    // Nothing changed.
    tb.expect_reg(regs::ID, Some(0x5150_5431))?;
    tb.expect_reg(regs::VERSION, Some(0x0002_0000))?;
    tb.expect_reg(regs::MAX_QPS, Some(13))?;
    tb.expect_reg(regs::ENTRY_BYTES, Some(96))?;
    tb.expect_reg(regs::GEOMETRY, Some(0x2004))?;
    tb.expect_reg(regs::STATUS, Some(1))?;
    tb.expect_reg(regs::FIRST_INDEX, Some(2))?;
    tb.expect_reg(regs::TABLE_BASE_LO, Some(0x1234_5660))?;
    tb.expect_reg(regs::TABLE_BASE_HI, Some(0))?;
    tb.expect_reg(regs::CMD_RESULT, Some(0x0000_0012))?;
    tb.expect_cmd_counters(1, 0, 0, 0, 1)?;
    tb.expect_port_counters(0, [1, 0, 0, 0])?;
    tb.expect_port_counters(1, [0, 0, 1, 0])?;
    tb.expect_lookups(&[(1, 0x12, 3, OK, 0x1234_5720), (0, 0x05, 4, NA, 0)])?;
    tb.finish()?;

    // One port: the block of port 1 (0x120..) does not exist.
    let mut tb = Tb::new("slverr_cases B", &cfg_b(), quiet())?;
    for k in 0..7 {
        tb.expect_reg(0x100 + 4 * k, Some(0))?;
        tb.expect_reg(0x120 + 4 * k, None)?;
    }
    tb.expect_reg(0x140, None)?;
    tb.expect_write(0x120, 1, 0xF, false)?;
    tb.expect_write(0x100, 1, 0xF, false)?;
    tb.expect_reg(0x100, Some(0))?;
    tb.finish()
}

// ---------------------------------------------------------------------------------------------
// The drain
// ---------------------------------------------------------------------------------------------

/// Config A. Lookups of the QP (port tx) and of another QP (port rx) are accepted, their
/// responses held (consumers paused); then FREE. The write response must not come while they
/// are held, STATUS.CMD_BUSY and CMD_RESULT.busy read 1 with the previous result meanwhile;
/// releasing tx alone is not enough (the rx lookup, another QPN, holds the drain too); the B
/// handshake comes after the last response of every lookup accepted before the FREE; later
/// lookups get NOT_ALLOCATED.
#[test]
fn drain_free_waits_for_held_responses() -> Result<()> {
    let mut tb = Tb::new("drain_free_waits_for_held_responses", &cfg_a(), quiet())?;
    tb.expect_write(regs::TABLE_BASE_LO, 0x0010_0000, 0xF, true)?;
    tb.cmd_ok(Command::Alloc, 0x12)?;
    tb.cmd_ok(Command::Publish(0x12), 0x12)?;
    tb.cmd_ok(Command::Alloc, 0x13)?;
    tb.cmd_ok(Command::Publish(0x13), 0x13)?;
    // A distinctive previous result: BAD_CMD, qpn 0x0ABCDE.
    tb.cmd(Command::Raw(9, 0x0A_BCDE), CmdStatus::BadCmd, 0x0A_BCDE)?;
    let previous = 0x400A_BCDE;

    tb.b.sinks[0].set_paused(true);
    tb.b.sinks[1].set_paused(true);
    for t in 0..4 {
        tb.b.lookup(0, 0x12, t);
    }
    tb.b.lookup(1, 0x13, 10);
    tb.b.lookup(1, 0x13, 11);
    tb.run(10);
    ensure!(
        tb.reqs[0].len() == 4 && tb.reqs[1].len() == 2 && tb.rsps[0].is_empty(),
        "setup: {} + {} lookups accepted, {} answered",
        tb.reqs[0].len(),
        tb.reqs[1].len(),
        tb.rsps[0].len()
    );
    let id = tb.b.axil.push_write(
        u64::from(regs::CMD),
        u64::from(Command::Free(0x12).encode()),
        0xF,
    );
    tb.run_until(50, "CMD write handshake", |tb| tb.b.sb.command_in_flight())?;
    // Held for 200 cycles: no write response; STATUS and CMD_RESULT answer meanwhile.
    let until = tb.cycle() + 200;
    let mut polls = 0;
    while tb.cycle() < until {
        tb.expect_reg(regs::STATUS, Some(0b11))?;
        tb.expect_reg(regs::CMD_RESULT, Some(previous | 1 << 27))?;
        ensure!(
            !tb.axil_done(id),
            "FREE answered at cycle {} while 6 lookups accepted before it were held",
            tb.cycle()
        );
        polls += 1;
    }
    println!("  {polls} polls of STATUS and CMD_RESULT while the FREE drained");
    // Per-port counters count at the response handshake: nothing yet.
    tb.expect_reg(regs::port_register(0, regs::PORT_LOOKUPS), Some(0))?;
    tb.expect_reg(regs::port_register(1, regs::PORT_OK), Some(0))?;
    // Release tx: its 4 responses (OK: accepted before the FREE) come, but rx still holds.
    tb.b.sinks[0].set_paused(false);
    tb.run(50);
    ensure!(
        tb.rsps[0].len() == 4,
        "tx answered {} of 4",
        tb.rsps[0].len()
    );
    for (k, r) in tb.rsps[0].iter().enumerate() {
        ensure!(
            r.status == OK.as_u64() && r.addr == 0x0010_00C0 && r.tag == k as u64,
            "tx response {k}: {r:?}, expected OK addr 0x1000c0 tag {k}"
        );
    }
    ensure!(
        !tb.axil_done(id),
        "FREE answered while an rx lookup accepted before it was held"
    );
    tb.expect_reg(regs::STATUS, Some(0b11))?;
    tb.b.sinks[1].set_paused(false);
    let d = tb.wait_axil(id)?;
    ensure!(d.resp == AxiResp::Okay, "FREE write answered {:?}", d.resp);
    let last_before = tb.rsps[0][3].cycle.max(tb.rsps[1][1].cycle);
    println!(
        "  CMD write at cycle {}, last held response at {}, write response at {}",
        d.addr_cycle, last_before, d.done_cycle
    );
    ensure!(
        d.done_cycle > last_before,
        "write response at cycle {} not after the last response ({last_before}) of the lookups \
         accepted before the FREE",
        d.done_cycle
    );
    for r in &tb.rsps[1] {
        ensure!(
            r.status == OK.as_u64() && r.addr == 0x0010_0120,
            "rx response {r:?}"
        );
    }
    tb.expect_reg(regs::CMD_RESULT, Some(0x0000_0012))?;
    tb.expect_reg(regs::STATUS, Some(1))?;
    tb.expect_lookups(&[
        (0, 0x12, 20, NA, 0),
        (1, 0x12, 21, NA, 0),
        (1, 0x13, 22, OK, 0x0010_0120),
    ])?;
    tb.expect_cmd_counters(2, 0, 1, 1, 1)?;
    tb.expect_port_counters(0, [4, 0, 1, 0])?;
    tb.expect_port_counters(1, [3, 0, 1, 0])?;
    tb.finish()
}

/// Config A under random idle and backpressure, lookups of the QP being freed flowing on
/// both ports throughout. For each FREE: every lookup accepted before the CMD write handshake
/// is answered before the write response; no response with OK for that QPN comes after the
/// write response; lookups of it accepted after the write response are NOT_ALLOCATED.
fn drain_random(seed: u64) -> Result<()> {
    let opts = BenchOptions {
        req_idle: 0.2,
        rsp_backpressure: 0.6,
        axil_random: 0.3,
        seed,
        trace: None,
    };
    let name = format!("drain_under_random_backpressure seed {seed:#x}");
    let mut tb = Tb::new(&name, &cfg_a(), opts)?;
    tb.expect_write(regs::TABLE_BASE_LO, 0x0020_0000, 0xF, true)?;
    tb.cmd_ok(Command::AllocAt(0x00), 0x00)?;
    tb.cmd_ok(Command::Publish(0x00), 0x00)?;
    let mut rng_state = seed | 1;
    let mut rnd = move |n: u64| {
        rng_state ^= rng_state << 13;
        rng_state ^= rng_state >> 7;
        rng_state ^= rng_state << 17;
        rng_state % n
    };
    let mut held_total = 0;
    for round in 0..8u32 {
        let q = 0x10 | (2 + round); // cyclic: indexes 2, 3, ... with generation 1
        tb.cmd_ok(Command::Alloc, q)?;
        tb.cmd_ok(Command::Publish(q), q)?;
        let mark: Vec<usize> = tb.reqs.iter().map(Vec::len).collect();
        for k in 0..24u64 {
            let p = (k % 2) as usize;
            let qpn = if rnd(4) == 0 { 0x00 } else { q };
            tb.b.lookup(p, qpn, k);
        }
        tb.run(rnd(12));
        let d = tb.write_strb(regs::CMD, Command::Free(q).encode(), 0xF)?;
        ensure!(d.resp == AxiResp::Okay);
        tb.expect_reg(regs::CMD_RESULT, Some(q))?;
        tb.run_until(10_000, "round drained", |tb| {
            tb.b.sources.iter().all(|s| s.is_done()) && tb.b.sb.outstanding() == 0
        })?;
        for (p, &from) in mark.iter().enumerate() {
            for k in from..tb.reqs[p].len() {
                let (rq, rs) = (tb.reqs[p][k], tb.rsps[p][k]);
                if rq.cycle < d.addr_cycle {
                    ensure!(
                        rs.cycle < d.done_cycle,
                        "round {round}: port {p} lookup of {:#x} accepted at {} (before the FREE \
                         write at {}) answered at {}, after the write response at {}",
                        rq.qpn,
                        rq.cycle,
                        d.addr_cycle,
                        rs.cycle,
                        d.done_cycle
                    );
                    if rs.cycle > d.addr_cycle {
                        held_total += 1;
                    }
                }
                if rs.qpn == q && rs.cycle > d.done_cycle {
                    ensure!(
                        rs.status != 0,
                        "round {round}: port {p}: OK for {q:#x} at cycle {}, after the FREE's \
                         write response at {}",
                        rs.cycle,
                        d.done_cycle
                    );
                }
                if rq.qpn == q && rq.cycle > d.done_cycle {
                    ensure!(
                        rs.status == NA.as_u64() && rs.addr == 0,
                        "round {round}: port {p}: lookup of {q:#x} accepted at {} after the write \
                         response ({}) answered {rs:?}",
                        rq.cycle,
                        d.done_cycle
                    );
                }
            }
        }
    }
    println!("  {held_total} lookups accepted before a FREE were answered while it drained");
    ensure!(
        held_total > 0,
        "no FREE ever had lookups to drain: the test proved nothing"
    );
    tb.expect_cmd_counters(9, 0, 8, 0, 1)?;
    tb.finish()
}

#[test]
fn drain_under_random_backpressure() -> Result<()> {
    for seed in seeds(&[0xD4A1_0001, 0x5EED_0002]) {
        drain_random(seed)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Reset and the init sweep
// ---------------------------------------------------------------------------------------------

/// Config B (max_qps 64). A second reset: lookups are held off (req_ready 0) during the
/// sweep and taken after INIT_DONE; STATUS polled during the sweep answers INIT_DONE 0; a
/// command written during the sweep completes after it, correctly; reset cleared the table,
/// the generations and TABLE_BASE.
#[test]
fn init_sweep_holds_lookups_and_commands() -> Result<()> {
    let cfg = cfg_b();
    let mut tb = Tb::new("init_sweep_holds_lookups_and_commands", &cfg, quiet())?;
    tb.expect_write(regs::TABLE_BASE_LO, 0x0000_7000, 0xF, true)?;
    tb.cmd_ok(Command::Alloc, 0x45)?;
    tb.cmd_ok(Command::Publish(0x45), 0x45)?;
    tb.cmd_ok(Command::Free(0x45), 0x45)?;
    tb.cmd_ok(Command::Alloc, 0x85)?;
    tb.cmd_ok(Command::Publish(0x85), 0x85)?;
    tb.expect_lookup(0, 0x85, 1, OK, 0x7000 + 5 * 4096)?;

    // Reset by hand: rst high for two edges, then the sweep.
    let rst = tb.b.sim.input("rst")?;
    tb.b.sim.set(rst, 1);
    tb.run(2);
    tb.b.sim.set(rst, 0);
    tb.b.sb = Scoreboard::new(&cfg);
    // The monitor starts over with the scoreboard.
    tb.reqs = vec![Vec::new()];
    tb.rsps = vec![Vec::new()];
    let release = tb.cycle();
    let mark = 0;
    tb.b.lookup(0, 0x45, 1);
    tb.b.lookup(0, 0x85, 0);
    tb.b.lookup(0, 0x3F, 1);
    let wid = tb.b.axil.push_write(
        u64::from(regs::CMD),
        u64::from(Command::Alloc.encode()),
        0xF,
    );
    let mut rid = tb.b.axil.push_read(u64::from(regs::STATUS));
    let mut first_ready = None;
    let mut status_reads: Vec<(u64, u32)> = Vec::new(); // (AR cycle, value)
    let mut write = None;
    while write.is_none() || tb.rsps[0].len() < mark + 3 {
        ensure!(
            tb.cycle() - release < 1000,
            "sweep: not done after 1000 cycles"
        );
        tb.step();
        if first_ready.is_none() && tb.req_ready(0) {
            first_ready = Some(tb.cycle());
        }
        if let Some(d) = tb.b.axil.take_done(rid) {
            ensure!(d.resp == AxiResp::Okay, "STATUS read answered {:?}", d.resp);
            status_reads.push((d.addr_cycle, d.data as u32));
            rid = tb.b.axil.push_read(u64::from(regs::STATUS));
        }
        if let Some(d) = tb.b.axil.take_done(wid) {
            write = Some(d);
        }
    }
    tb.wait_axil(rid)?;
    let r1 = first_ready.unwrap();
    let w = write.unwrap();
    let swept: Vec<&(u64, u32)> = status_reads.iter().filter(|(_, v)| v & 1 == 0).collect();
    println!(
        "  reset released at cycle {release}; req_ready first 1 at {r1} ({} cycles, max_qps 64); \
         {} STATUS reads with INIT_DONE 0; CMD written at {}, answered at {}",
        r1 - release,
        swept.len(),
        w.addr_cycle,
        w.done_cycle
    );
    ensure!(
        (32..=80).contains(&(r1 - release)),
        "req_ready rose {} cycles after reset, expected about max_qps = 64",
        r1 - release
    );
    ensure!(
        swept.len() >= 3,
        "only {} STATUS reads during the sweep",
        swept.len()
    );
    ensure!(
        w.addr_cycle < r1,
        "the CMD write was not taken during the sweep (at {}, sweep done at {r1})",
        w.addr_cycle
    );
    for &&(ar, v) in &swept {
        // The command is written (busy) from its write handshake on.
        let busy = if ar > w.addr_cycle { 0b10 } else { v & 0b10 };
        ensure!(
            v == busy,
            "STATUS during the sweep (AR at {ar}): {v:#x}, expected {busy:#x}"
        );
        ensure!(
            tb.reqs[0][mark].cycle > ar,
            "a lookup was accepted at {} while STATUS read INIT_DONE 0 at {ar}",
            tb.reqs[0][mark].cycle
        );
    }
    ensure!(
        tb.reqs[0][mark].cycle == r1,
        "first lookup accepted at {}, req_ready rose at {r1}",
        tb.reqs[0][mark].cycle
    );
    ensure!(
        w.done_cycle > r1 && w.resp == AxiResp::Okay,
        "CMD answered {:?} at {} before INIT_DONE ({r1})",
        w.resp,
        w.done_cycle
    );
    // The lookups of the sweep: the table was cleared (0x85 not VALID any more).
    for (k, r) in tb.rsps[0][mark..].iter().enumerate() {
        ensure!(
            r.status == NA.as_u64() && r.addr == 0,
            "lookup {k} after reset: {r:?}"
        );
    }
    // The ALLOC of the sweep: generation 1 at first_index again (generations cleared).
    tb.expect_reg(regs::CMD_RESULT, Some(0x45))?;
    tb.expect_reg(regs::STATUS, Some(1))?;
    tb.expect_reg(regs::TABLE_BASE_LO, Some(0))?;
    tb.cmd_ok(Command::Publish(0x45), 0x45)?;
    tb.expect_lookups(&[(0, 0x45, 0, OK, 5 * 4096), (0, 0x85, 1, STALE, 0)])?;
    tb.expect_cmd_counters(1, 0, 0, 0, 1)?;
    tb.expect_port_counters(0, [1, 0, 3, 1])?;
    tb.finish()
}

// ---------------------------------------------------------------------------------------------
// Throughput, latency, and the ready path
// ---------------------------------------------------------------------------------------------

/// Latency of a flat or two_level on_chip lookup in this implementation: the request edge
/// reads the RAMs, the next registers their words, the next pushes the checked response
/// (SPEC §7: flat <= 3, two_level on_chip <= 4).
const LOOKUP_LATENCY: u64 = 3;

/// 1000 lookups on every port at once, always-ready consumers, no idle: every port takes one
/// per cycle at the same edges (II = 1) and answers each at latency exactly
/// [`LOOKUP_LATENCY`]. Then the same with commands running: at most one cycle stolen per command.
/// `spare` is a FREE QPN: some lookups go to it, and the commands of the second phase
/// ALLOC_AT and FREE it (NOT_ALLOCATED either way).
fn throughput(name: &str, cfg: &Config, published: &[u32], spare: u32, n: u64) -> Result<()> {
    let ports = cfg.ports.len();
    let mut tb = Tb::new(name, cfg, quiet())?;
    tb.expect_write(regs::TABLE_BASE_LO, 0x4000_0000, 0xF, true)?;
    for &q in published {
        tb.cmd_ok(Command::Alloc, q)?;
        tb.cmd_ok(Command::Publish(q), q)?;
    }
    for phase in 0..2 {
        let mark: Vec<usize> = tb.reqs.iter().map(Vec::len).collect();
        for p in 0..ports {
            for k in 0..n {
                // Mostly published QPs, some of every other status.
                let qpn = match k % 8 {
                    7 => 0xFF_FFFF,
                    6 => spare,
                    _ => published[(k as usize + p) % published.len()],
                };
                tb.b.lookup(p, qpn, k);
            }
        }
        let mut commands = 0u64;
        if phase == 1 {
            // Commands while the burst runs.
            while tb.b.sources.iter().any(|s| !s.is_done()) && commands < 10 {
                if commands.is_multiple_of(2) {
                    tb.cmd_ok(Command::AllocAt(spare), spare)?;
                } else {
                    tb.cmd_ok(Command::Free(spare), spare)?;
                }
                commands += 1;
            }
        }
        tb.run_until(10 * n + 1000, "burst answered", |tb| {
            (0..ports).all(|p| tb.rsps[p].len() >= mark[p] + n as usize)
        })?;
        let first = tb.reqs[0][mark[0]].cycle;
        for (p, &from) in mark.iter().enumerate() {
            let reqs = &tb.reqs[p][from..];
            let rsps = &tb.rsps[p][from..from + n as usize];
            let span = reqs[n as usize - 1].cycle - reqs[0].cycle + 1;
            println!(
                "  phase {phase} port {}: {n} lookups accepted in {span} cycles ({commands} commands)",
                cfg.ports[p]
            );
            ensure!(
                reqs[0].cycle == first,
                "port {p} started at {}, port 0 at {first}",
                reqs[0].cycle
            );
            ensure!(
                span <= n + commands,
                "port {}: {n} lookups took {span} cycles with {commands} commands (II = 1 expected)",
                cfg.ports[p]
            );
            for (k, (rq, rs)) in reqs.iter().zip(rsps).enumerate() {
                ensure!(
                    rs.cycle - rq.cycle == LOOKUP_LATENCY,
                    "port {} lookup {k}: accepted at {}, answered at {}: latency {} (expected {LOOKUP_LATENCY})",
                    cfg.ports[p],
                    rq.cycle,
                    rs.cycle,
                    rs.cycle - rq.cycle
                );
            }
        }
    }
    for p in 0..ports {
        let l = &tb.b.latency[p];
        println!(
            "  port {}: latency min/median/max {:?}/{:?}/{:?} over {}",
            cfg.ports[p],
            l.min(),
            l.median(),
            l.max(),
            l.total()
        );
        ensure!(
            (l.min(), l.median(), l.max())
                == (
                    Some(LOOKUP_LATENCY),
                    Some(LOOKUP_LATENCY),
                    Some(LOOKUP_LATENCY)
                ),
            "port {} latency min/median/max {:?}/{:?}/{:?}, expected {LOOKUP_LATENCY} each",
            cfg.ports[p],
            l.min(),
            l.median(),
            l.max()
        );
    }
    tb.finish()
}

#[test]
fn throughput_ii1_latency3_two_ports() -> Result<()> {
    let published: Vec<u32> = (2..=12).map(|i| 0x10 | i).collect();
    throughput(
        "throughput_ii1_latency3_two_ports",
        &cfg_a(),
        &published,
        0x00_0001,
        1000,
    )
}

#[test]
fn throughput_ii1_latency3_four_ports() -> Result<()> {
    // Config D: first_index 0, no generation bits: ALLOC hands out QPNs 0, 1, 2, ... in order.
    let published: Vec<u32> = (0..=38).collect();
    throughput(
        "throughput_ii1_latency3_four_ports",
        &cfg_d(),
        &published,
        99,
        1000,
    )
}

/// `s_p_req_ready` must not depend combinationally on `m_p_rsp_ready`. With the step
/// semantics (inputs applied, outputs sampled, edge) a combinational path would show as
/// req_ready = 1 sampled in the very cycle in which rsp_ready is raised on a full pipe. With
/// tx responses held, tx takes exactly 4 lookups (the response queue depth, RSP_FIFO_DEPTH:
/// an implementation figure, not SPEC) and then holds req_ready low; in the cycle rsp_ready
/// rises, req_ready is still 0; it comes back one cycle after the first response handshake.
/// Port rx keeps one lookup per cycle meanwhile.
#[test]
fn req_ready_independent_of_rsp_ready() -> Result<()> {
    let mut tb = Tb::new("req_ready_independent_of_rsp_ready", &cfg_a(), quiet())?;
    tb.cmd_ok(Command::Alloc, 0x12)?;
    tb.cmd_ok(Command::Publish(0x12), 0x12)?;
    tb.b.sinks[0].set_paused(true);
    for k in 0..10 {
        tb.b.lookup(0, 0x12, k);
    }
    for k in 0..30 {
        tb.b.lookup(1, 0x12, 100 + k);
    }
    let start = tb.cycle();
    tb.run(30);
    let r = &tb.reqs[0];
    ensure!(
        r.len() == 4,
        "with responses held, tx took {} lookups (expected 4)",
        r.len()
    );
    ensure!(
        r[3].cycle - r[0].cycle == 3 && r[0].cycle == start + 1,
        "the 4 lookups were not taken back to back from the first cycle: {r:?}"
    );
    ensure!(!tb.req_ready(0), "req_ready high with 4 lookups held");
    let rx = &tb.reqs[1];
    ensure!(
        rx.len() == 30 && rx[29].cycle - rx[0].cycle == 29,
        "rx was slowed down by tx: {} lookups",
        rx.len()
    );
    // Toggle rsp_ready on a full pipe: pause/unpause; observe the edge of the first pop.
    tb.b.sinks[0].set_paused(false);
    tb.step();
    let e1 = tb.cycle();
    ensure!(
        tb.rsps[0].len() == 1 && tb.rsps[0][0].cycle == e1,
        "no response handshake at the first cycle with rsp_ready = 1"
    );
    ensure!(
        !tb.req_ready(0) && tb.reqs[0].len() == 4,
        "req_ready = 1 in the same cycle as rsp_ready rose on a full pipe: combinational path"
    );
    tb.b.sinks[0].set_paused(true);
    tb.step();
    ensure!(
        tb.reqs[0].len() == 5 && tb.reqs[0][4].cycle == e1 + 1,
        "req_ready did not come back the cycle after the response handshake: {:?}",
        &tb.reqs[0][4..]
    );
    tb.run(5);
    ensure!(
        tb.reqs[0].len() == 5 && !tb.req_ready(0),
        "took more than the freed slot"
    );
    tb.b.sinks[0].set_paused(false);
    tb.finish()
}
