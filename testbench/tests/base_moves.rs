//! Registers whose write changes what the engine's on-chip state means, each written in every
//! situation SPEC allows, then checked: no lookup and no command is answered from state that
//! belonged to the old value. The expected values are written by hand from SPEC (§4, §6, §9)
//! and `docs/state_in_memory.md` (the state word: `state[1:0] | generation << 2`); every
//! response and command is also checked against the reference model by the scoreboard.
//!
//! | register | what its old value meant on chip | test |
//! |---|---|---|
//! | STATE_BASE_LO/HI | `written` (a block holds the engine's words, trusted) and `live` (a block may hold RESERVED or VALID words), the cache lines and the command engine's block buffer | `state_base_move_*`, `state_base_written_with_its_own_value_trusts_nothing` |
//! | TABLE_BASE_LO/HI | flat: the context address of every OK answer; directory in memory: where the directory is read (nothing of it is cached: DIR_FLUSH is a no-op) | `table_base_move_*` |
//! | DIR_INDEX, DIR_ENTRY_LO/HI | the on-chip directory entry every OK answer of its page is built from | `dir_entry_rewrite_on_chip` |
//!
//! The memory holds seeded junk wherever the engine has not written (SPEC §9: nothing is
//! written at reset), so a block trusted without having been written answers something other
//! than NOT_ALLOCATED. `QPTABLE_SEED=<n>` draws other junk.

use anyhow::{ensure, Result};
use qptable::config::Config;
use qptable::model::{regs, Command, Status};
use qptable_testbench::bench::BenchOptions;
use qptable_testbench::campaign;
use qptable_testbench::configs::named;
use qptable_testbench::tb::Tb;

const OK: Status = Status::Ok;
const NA: Status = Status::NotAllocated;
const STALE: Status = Status::Stale;

/// Flat, state in memory: index_bits 10 (14 generation bits: 16-bit state words), blocks of 8
/// indexes (16 bytes), 128 blocks, 16 cache lines, 4 misses, two ports, addr_bits 40,
/// entry_bytes 64.
fn flat_sets() -> Vec<&'static str> {
    vec![
        "state=in_memory",
        "index_bits=10",
        "block_bits=3",
        "cache_lines=16",
        "max_misses=4",
        "ports=tx,rx",
        "addr_bits=40",
        "entry_bytes=64",
    ]
}

fn flat() -> Config {
    named("qpt_moves_flat", &flat_sets())
}

const INDEX_BITS: u32 = 10;
const BLOCK: u32 = 8;
const BLOCK_BYTES: u64 = 16;

fn qpn(generation: u32, index: u32) -> u32 {
    generation << INDEX_BITS | index
}

/// Junk in every byte the engine has not written, the whole 40-bit space, seeded by
/// `QPTABLE_SEED` when it is set (else `seed`), and printed.
fn junk_everywhere(tb: &mut Tb, seed: u64) {
    let seed = campaign::seed(seed);
    println!("[{}] junk seed {seed:#x}", tb.name);
    let m =
        tb.b.mem
            .as_mut()
            .expect("state in memory has a memory model");
    let everything = 0..1 << 40;
    m.mem_mut().set_junk(vec![everything], seed);
}

fn write64(tb: &mut Tb, lo: u32, hi: u32, value: u64, ok: bool) -> Result<()> {
    tb.expect_write(lo, value as u32, 0xF, ok)?;
    tb.expect_write(hi, (value >> 32) as u32, 0xF, ok)
}

/// The 16-bit state word of `index` in the table at `base`.
fn word(tb: &Tb, base: u64, index: u32) -> u64 {
    let m = tb.b.mem.as_ref().expect("memory model");
    m.mem().read_le(base + 2 * u64::from(index), 2)
}

/// Waits until every lookup queued with `tb.b.lookup` has been answered (the responses are
/// checked by the scoreboard), so that the next `expect_lookups` counts only its own.
fn settle(tb: &mut Tb) -> Result<()> {
    tb.run_until(10_000, "lookups in flight answered", |tb| {
        tb.b.sources.iter().all(|s| s.is_done()) && tb.b.sb.outstanding() == 0
    })?;
    Ok(())
}

/// Every index of `blocks` but `except`, looked up on both ports with each of `gens`:
/// NOT_ALLOCATED, whatever the generation.
fn expect_blocks_not_allocated(
    tb: &mut Tb,
    blocks: &[u32],
    except: &[u32],
    gens: &[u32],
) -> Result<()> {
    let mut items = Vec::new();
    let mut tag = 0;
    for &b in blocks {
        for index in b * BLOCK..(b + 1) * BLOCK {
            if except.contains(&index) {
                continue;
            }
            for &g in gens {
                items.push((tag as usize % 2, qpn(g, index), tag & 0xFF, NA, 0));
                tag += 1;
            }
        }
    }
    tb.expect_lookups(&items)
}

/// The bug this file was written for: QPs in six blocks, all freed, STATE_BASE moved to an
/// area of junk, one index of an old block created again. Every other index of the old blocks
/// answers NOT_ALLOCATED (the junk is not trusted), the created one OK, its other generations
/// STALE; the block was written whole in the new table (zeros but the word); ALLOC restarts
/// the generations. Then the table moves back onto the first area, which holds the engine's
/// own words of before: not trusted either (an index freed there with generation 5 is handed
/// out with generation 1).
#[test]
fn state_base_move_trusts_nothing_of_the_old_table() -> Result<()> {
    let mut tb = Tb::new("state_base_move_flat", &flat(), BenchOptions::default())?;
    junk_everywhere(&mut tb, 0x0BAD_5EED);
    let (a, b) = (0x10_0000_0000u64, 0x20_0000_0040u64);
    write64(&mut tb, regs::STATE_BASE_LO, regs::STATE_BASE_HI, a, true)?;
    write64(
        &mut tb,
        regs::TABLE_BASE_LO,
        regs::TABLE_BASE_HI,
        0x1000,
        true,
    )?;
    let blocks = [1u32, 2, 3, 4, 5, 6];
    let old: Vec<u32> = blocks.iter().map(|b| b * BLOCK + 3).collect();
    for &i in &old {
        tb.cmd_ok(Command::AllocAt(qpn(5, i)), qpn(5, i))?;
        tb.cmd_ok(Command::Publish(qpn(5, i)), qpn(5, i))?;
    }
    for &i in &old {
        tb.expect_lookup(0, qpn(5, i), 1, OK, 0x1000 + u64::from(i) * 64)?;
        ensure!(
            word(&tb, a, i) == 5 << 2 | 2,
            "index {i} not VALID generation 5"
        );
    }
    // In use: both bases refuse a write and keep their value.
    write64(&mut tb, regs::STATE_BASE_LO, regs::STATE_BASE_HI, b, false)?;
    write64(
        &mut tb,
        regs::TABLE_BASE_LO,
        regs::TABLE_BASE_HI,
        0x2000,
        false,
    )?;
    tb.expect_reg(regs::STATE_BASE_LO, Some(a as u32))?;
    tb.expect_reg(regs::STATE_BASE_HI, Some((a >> 32) as u32))?;
    tb.expect_lookup(1, qpn(5, old[0]), 2, OK, 0x1000 + u64::from(old[0]) * 64)?;
    for &i in &old {
        tb.cmd_ok(Command::Free(qpn(5, i)), qpn(5, i))?;
    }
    tb.expect_reg(regs::IN_USE, Some(0))?;
    // The move, while lookups of the freed QPNs are in flight on both ports.
    for (k, &i) in old.iter().enumerate() {
        tb.b.lookup(k % 2, qpn(5, i), 0x40 + k as u64);
    }
    write64(
        &mut tb,
        regs::TABLE_BASE_LO,
        regs::TABLE_BASE_HI,
        0x2000,
        true,
    )?;
    write64(&mut tb, regs::STATE_BASE_LO, regs::STATE_BASE_HI, b, true)?;
    tb.expect_reg(regs::STATE_BASE_LO, Some(b as u32))?;
    settle(&mut tb)?;
    let reads = tb.b.mem.as_ref().unwrap().ar_count();
    // Nothing is live in the new table: every old index is filtered, no memory access.
    expect_blocks_not_allocated(&mut tb, &blocks, &[], &[0, 1, 5])?;
    ensure!(
        tb.b.mem.as_ref().unwrap().ar_count() == reads,
        "lookups of the new table, where nothing is live, read memory"
    );
    // One index of each old block created again: ALLOC_AT of a FREE index succeeds (junk
    // that reads RESERVED or VALID would make it BAD_STATE), whatever the old generation.
    let new: Vec<u32> = blocks.iter().map(|b| b * BLOCK + 5).collect();
    for &i in &new {
        tb.cmd_ok(Command::AllocAt(qpn(2, i)), qpn(2, i))?;
        tb.cmd_ok(Command::Publish(qpn(2, i)), qpn(2, i))?;
    }
    // Each block was never written in the new table: written whole, zeros but the word.
    for &blk in &blocks {
        for i in blk * BLOCK..(blk + 1) * BLOCK {
            let want = if new.contains(&i) { 2 << 2 | 2 } else { 0 };
            let got = word(&tb, b & !(BLOCK_BYTES - 1), i);
            ensure!(
                got == want,
                "new table: word of index {i} is {got:#x}, expected {want:#x}"
            );
        }
    }
    for &i in &new {
        tb.expect_lookups(&[
            (0, qpn(2, i), 3, OK, 0x2000 + u64::from(i) * 64),
            (1, qpn(5, i), 4, STALE, 0),
            (1, qpn(0, i), 5, STALE, 0),
        ])?;
    }
    // Every other index of the old blocks: NOT_ALLOCATED (these blocks are live and read from
    // memory now: the words are the engine's, not junk).
    expect_blocks_not_allocated(&mut tb, &blocks, &new, &[0, 1, 2, 5])?;
    // ALLOC (cyclic, after the last one: none yet, so from first_index 2) restarts the
    // generations: index 2, generation 1.
    tb.cmd_ok(Command::Alloc, qpn(1, 2))?;
    // Everything freed again, and the table moves back onto the first area, which holds the
    // old table's words (index 11 FREE with generation 5).
    tb.cmd_ok(Command::Free(qpn(1, 2)), qpn(1, 2))?;
    for &i in &new {
        tb.cmd_ok(Command::Free(qpn(2, i)), qpn(2, i))?;
    }
    ensure!(
        word(&tb, a, old[0]) == 5 << 2,
        "old area: index 11 not FREE generation 5"
    );
    write64(&mut tb, regs::STATE_BASE_LO, regs::STATE_BASE_HI, a, true)?;
    expect_blocks_not_allocated(&mut tb, &blocks, &[], &[0, 1, 2, 5, 6])?;
    // ALLOC_AT with the old generation + 1 is no different from any other: the index is FREE.
    tb.cmd_ok(Command::AllocAt(qpn(6, old[1])), qpn(6, old[1]))?;
    // The cyclic ALLOC goes on after index 2: 3, 4, ... 11, each with generation 1, also index
    // 11, whose word in this area says FREE with generation 5 (trusted, it would be 6).
    for i in 3..=old[0] {
        tb.cmd_ok(Command::Alloc, qpn(1, i))?;
    }
    tb.cmd_ok(Command::Publish(qpn(1, old[0])), qpn(1, old[0]))?;
    tb.expect_lookups(&[
        (0, qpn(1, old[0]), 6, OK, 0x2000 + u64::from(old[0]) * 64),
        (1, qpn(5, old[0]), 7, STALE, 0),
    ])?;
    expect_blocks_not_allocated(&mut tb, &blocks, &[old[0]], &[0, 5])?;
    tb.finish()
}

/// The host writes STATE_BASE with the value it already holds (SPEC §9: "a write of
/// STATE_BASE ... starts the new table ... nothing in the old or new area is trusted"), after
/// scribbling on the area: the engine must not trust the block it wrote before. Twice: with
/// the same value and all strobes, and with no strobe at all (the register keeps its value).
/// Index 12 of block 1 is scribbled VALID and index 13 VALID with generation 7: trusted, the
/// first would make ALLOC_AT of index 12 BAD_STATE, the second would answer a lookup OK.
#[test]
fn state_base_written_with_its_own_value_trusts_nothing() -> Result<()> {
    let mut tb = Tb::new("state_base_same_value", &flat(), BenchOptions::default())?;
    junk_everywhere(&mut tb, 0x5A3E_BA5E);
    let a = 0x30_0000_0080u64;
    write64(&mut tb, regs::STATE_BASE_LO, regs::STATE_BASE_HI, a, true)?;
    let scribble = |tb: &mut Tb| {
        let m = tb.b.mem.as_mut().expect("memory model");
        m.mem_mut()
            .write_bytes(a + 2 * 12, &(7u16 << 2 | 2).to_le_bytes());
        m.mem_mut()
            .write_bytes(a + 2 * 13, &(7u16 << 2 | 2).to_le_bytes());
    };
    for (round, strobes) in [(0u32, 0xFu8), (1, 0x0)] {
        // Block 1 written by the engine: index 11 created, published, freed.
        let g = 5 + round;
        tb.cmd_ok(Command::AllocAt(qpn(g, 11)), qpn(g, 11))?;
        tb.cmd_ok(Command::Publish(qpn(g, 11)), qpn(g, 11))?;
        tb.cmd_ok(Command::Free(qpn(g, 11)), qpn(g, 11))?;
        ensure!(
            word(&tb, a, 11) == u64::from(g) << 2,
            "index 11 not FREE generation {g}"
        );
        scribble(&mut tb);
        tb.expect_write(regs::STATE_BASE_LO, a as u32, strobes, true)?;
        tb.expect_reg(regs::STATE_BASE_LO, Some(a as u32))?;
        // A new table: block 1 never written, all FREE with generation 0.
        tb.cmd_ok(Command::AllocAt(qpn(2, 12)), qpn(2, 12))?;
        tb.cmd_ok(Command::Publish(qpn(2, 12)), qpn(2, 12))?;
        for i in BLOCK..2 * BLOCK {
            let want = if i == 12 { 2 << 2 | 2 } else { 0 };
            let got = word(&tb, a, i);
            ensure!(
                got == want,
                "round {round}: word of index {i} is {got:#x}, expected {want:#x}"
            );
        }
        tb.expect_lookups(&[
            (0, qpn(2, 12), 1, OK, 12 * 64),
            (1, qpn(7, 13), 2, NA, 0),
            (0, qpn(g, 11), 3, NA, 0),
        ])?;
        tb.cmd_ok(Command::Free(qpn(2, 12)), qpn(2, 12))?;
    }
    tb.finish()
}

/// The same with the directory in memory (two_level): a lookup of an old block is filtered
/// on chip, so the directory is not read either; after a QP is created again, its lookups
/// read the directory at the new TABLE_BASE.
#[test]
fn state_base_move_directory_in_memory() -> Result<()> {
    let cfg = named(
        "qpt_moves_dir",
        &[
            "state=in_memory",
            "mode=two_level",
            "directory=in_memory",
            "index_bits=10",
            "leaf_bits=4",
            "block_bits=3",
            "cache_lines=16",
            "max_misses=4",
            "max_outstanding=4",
            "ports=tx,rx",
            "addr_bits=40",
            "entry_bytes=64",
        ],
    );
    let mut tb = Tb::new("state_base_move_dir", &cfg, BenchOptions::default())?;
    junk_everywhere(&mut tb, 0x0BAD_5EED + 1);
    let (a, b) = (0x10_0000_0000u64, 0x30_0000_0000u64);
    let (dir_a, dir_b) = (0x40_0000_0000u64, 0x50_0000_0000u64);
    // Directory entries 0..4 (indexes 0..64) present at pages 0x100000 * (e + 1) in both
    // directories (the new one's pages elsewhere).
    for e in 0..4u64 {
        tb.b.mem_write_u64(dir_a + 8 * e, (0x10_0000 * (e + 1)) | 1);
        tb.b.mem_write_u64(dir_b + 8 * e, (0x80_0000 * (e + 1)) | 1);
    }
    write64(&mut tb, regs::STATE_BASE_LO, regs::STATE_BASE_HI, a, true)?;
    write64(
        &mut tb,
        regs::TABLE_BASE_LO,
        regs::TABLE_BASE_HI,
        dir_a,
        true,
    )?;
    let blocks = [1u32, 2, 3, 4, 5, 6];
    let old: Vec<u32> = blocks.iter().map(|b| b * BLOCK + 3).collect();
    for &i in &old {
        tb.cmd_ok(Command::AllocAt(qpn(5, i)), qpn(5, i))?;
        tb.cmd_ok(Command::Publish(qpn(5, i)), qpn(5, i))?;
        let page = 0x10_0000 * (u64::from(i >> 4) + 1);
        tb.expect_lookup(0, qpn(5, i), 1, OK, page + u64::from(i & 15) * 64)?;
    }
    for &i in &old {
        tb.cmd_ok(Command::Free(qpn(5, i)), qpn(5, i))?;
    }
    write64(&mut tb, regs::STATE_BASE_LO, regs::STATE_BASE_HI, b, true)?;
    write64(
        &mut tb,
        regs::TABLE_BASE_LO,
        regs::TABLE_BASE_HI,
        dir_b,
        true,
    )?;
    settle(&mut tb)?;
    let reads = tb.b.mem.as_ref().unwrap().ar_count();
    expect_blocks_not_allocated(&mut tb, &blocks, &[], &[0, 1, 5])?;
    ensure!(
        tb.b.mem.as_ref().unwrap().ar_count() == reads,
        "filtered lookups read memory (the state table or the directory)"
    );
    let i = old[2];
    tb.cmd_ok(Command::AllocAt(qpn(3, i)), qpn(3, i))?;
    tb.cmd_ok(Command::Publish(qpn(3, i)), qpn(3, i))?;
    let page = 0x80_0000 * (u64::from(i >> 4) + 1);
    tb.expect_lookup(1, qpn(3, i), 2, OK, page + u64::from(i & 15) * 64)?;
    expect_blocks_not_allocated(&mut tb, &blocks, &[i], &[0, 1, 5])?;
    tb.finish()
}

/// SPEC §9: STATE_BASE moves only while IN_USE = 0 and QUARANTINED = 0 (TABLE_BASE only needs
/// IN_USE = 0). With a long quarantine, a freed index keeps STATE_BASE in place until it has
/// left the quarantine (one release per command once its time is over).
#[test]
fn state_base_refused_while_an_index_is_quarantined() -> Result<()> {
    let mut sets = flat_sets();
    sets.extend(["quarantine_cycles=300", "quarantine_depth=4"]);
    let cfg = named("qpt_moves_quar", &sets);
    let mut tb = Tb::new("state_base_quarantine", &cfg, BenchOptions::default())?;
    junk_everywhere(&mut tb, 0x0BAD_5EED + 2);
    let (a, b) = (0x10_0000_0000u64, 0x20_0000_0000u64);
    write64(&mut tb, regs::STATE_BASE_LO, regs::STATE_BASE_HI, a, true)?;
    tb.cmd_ok(Command::Alloc, qpn(1, 2))?;
    tb.cmd_ok(Command::Publish(qpn(1, 2)), qpn(1, 2))?;
    tb.cmd_ok(Command::Free(qpn(1, 2)), qpn(1, 2))?;
    tb.expect_reg(regs::IN_USE, Some(0))?;
    tb.expect_reg(regs::QUARANTINED, Some(1))?;
    write64(&mut tb, regs::STATE_BASE_LO, regs::STATE_BASE_HI, b, false)?;
    tb.expect_reg(regs::STATE_BASE_HI, Some((a >> 32) as u32))?;
    write64(
        &mut tb,
        regs::TABLE_BASE_LO,
        regs::TABLE_BASE_HI,
        0x3000,
        true,
    )?;
    // The quarantine's time runs out; the next command releases the index.
    tb.run(400);
    tb.cmd_ok(Command::DirFlush, 0)?;
    tb.expect_reg(regs::QUARANTINED, Some(0))?;
    write64(&mut tb, regs::STATE_BASE_LO, regs::STATE_BASE_HI, b, true)?;
    // Index 2 went back to the pool with generation 1 in the old table; in the new one the
    // cyclic ALLOC goes on after it (index 3), with generation 1.
    tb.cmd_ok(Command::Alloc, qpn(1, 3))?;
    tb.cmd_ok(Command::Publish(qpn(1, 3)), qpn(1, 3))?;
    tb.expect_lookup(0, qpn(1, 3), 1, OK, 0x3000 + 3 * 64)?;
    expect_blocks_not_allocated(&mut tb, &[0], &[3], &[0, 1, 2])?;
    tb.finish()
}

/// TABLE_BASE moves (flat, state on chip and in memory): refused while a QP is in use;
/// accepted once every QP is freed, also with lookups of the freed QPNs in flight; the next
/// OK answers carry the new base.
#[test]
fn table_base_move_flat() -> Result<()> {
    for (name, cfg) in [
        (
            "table_base_flat",
            named("qpt_moves_tb", &["index_bits=10", "ports=tx,rx"]),
        ),
        ("table_base_flat_state_in_memory", flat()),
    ] {
        let mut tb = Tb::new(name, &cfg, BenchOptions::default())?;
        if tb.b.mem.is_some() {
            junk_everywhere(&mut tb, 0x0BAD_5EED + 3);
        }
        let entry = u64::from(cfg.entry_bytes);
        write64(
            &mut tb,
            regs::TABLE_BASE_LO,
            regs::TABLE_BASE_HI,
            0x7_0000,
            true,
        )?;
        tb.cmd_ok(Command::AllocAt(qpn(4, 40)), qpn(4, 40))?;
        tb.cmd_ok(Command::Publish(qpn(4, 40)), qpn(4, 40))?;
        tb.expect_lookup(0, qpn(4, 40), 1, OK, 0x7_0000 + 40 * entry)?;
        write64(
            &mut tb,
            regs::TABLE_BASE_LO,
            regs::TABLE_BASE_HI,
            0x9_0000,
            false,
        )?;
        tb.expect_lookup(1, qpn(4, 40), 2, OK, 0x7_0000 + 40 * entry)?;
        tb.cmd_ok(Command::Free(qpn(4, 40)), qpn(4, 40))?;
        for k in 0..6 {
            tb.b.lookup(k % 2, qpn(4, 40), 0x10 + k as u64);
        }
        write64(
            &mut tb,
            regs::TABLE_BASE_LO,
            regs::TABLE_BASE_HI,
            0x9_0000,
            true,
        )?;
        settle(&mut tb)?;
        tb.cmd_ok(Command::AllocAt(qpn(4, 40)), qpn(4, 40))?;
        tb.cmd_ok(Command::Publish(qpn(4, 40)), qpn(4, 40))?;
        tb.expect_lookups(&[
            (0, qpn(4, 40), 3, OK, 0x9_0000 + 40 * entry),
            (1, qpn(4, 40), 4, OK, 0x9_0000 + 40 * entry),
        ])?;
        tb.finish()?;
    }
    Ok(())
}

/// The on-chip directory (two_level): an entry rewritten while its page holds a VALID QP,
/// with lookups of it in flight. After the DIR_ENTRY_HI write response, every lookup answers
/// from the new entry: the new page base, then PAGE_ABSENT when written absent; those in
/// flight answer from the old or the new entry (SPEC §6), which the scoreboard accepts.
#[test]
fn dir_entry_rewrite_on_chip() -> Result<()> {
    let cfg = named(
        "qpt_moves_dir_on_chip",
        &[
            "mode=two_level",
            "index_bits=10",
            "leaf_bits=4",
            "ports=tx,rx",
        ],
    );
    let mut tb = Tb::new("dir_entry_rewrite", &cfg, BenchOptions::default())?;
    let entry = u64::from(cfg.entry_bytes);
    let set_entry = |tb: &mut Tb, e: u32, v: u64| -> Result<()> {
        tb.expect_write(regs::DIR_INDEX, e, 0xF, true)?;
        write64(tb, regs::DIR_ENTRY_LO, regs::DIR_ENTRY_HI, v, true)
    };
    // Index 37: entry 2, offset 5.
    set_entry(&mut tb, 2, 0x12_3440 | 1)?;
    tb.cmd_ok(Command::AllocAt(qpn(7, 37)), qpn(7, 37))?;
    tb.cmd_ok(Command::Publish(qpn(7, 37)), qpn(7, 37))?;
    tb.expect_lookup(0, qpn(7, 37), 1, OK, 0x12_3440 + 5 * entry)?;
    for (k, v) in [(0u64, 0xAB_CD00u64 | 1), (1, 0), (2, 0x5_0000 | 1)] {
        for t in 0..8 {
            tb.b.lookup(t % 2, qpn(7, 37), 0x10 * (k + 1) + t as u64);
        }
        set_entry(&mut tb, 2, v)?;
        settle(&mut tb)?;
        let want = if v & 1 == 1 {
            (OK, (v & !0x3F) + 5 * entry)
        } else {
            (Status::PageAbsent, 0)
        };
        tb.expect_lookups(&[
            (0, qpn(7, 37), 0x10 + k, want.0, want.1),
            (1, qpn(7, 37), 0x20 + k, want.0, want.1),
        ])?;
    }
    tb.finish()
}
