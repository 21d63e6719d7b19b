//! The state in memory (SPEC §9, `state = in_memory`): directed tests whose expected values
//! are written by hand from SPEC and `docs/state_in_memory.md` (the block layout, lazy
//! initialisation, the fail-fast filter, write-through), and seeded campaigns against the
//! reference model on several configurations, with slow, random and erroring memory.
//!
//! Every test runs on a `Bench` whose scoreboard also checks every response and command
//! against the model (hit or miss changes no answer; MEM_ERROR only where a memory error
//! range covers the block).

use anyhow::{ensure, Result};
use qptable::config::Config;
use qptable::model::{regs, CmdStatus, Command, Status};
use qptable_sim::axi_mem::Latency;
use qptable_testbench::bench::{BenchOptions, MemOptions};
use qptable_testbench::campaign::{self, Shape, FULL_SPEED, STRESSED};
use qptable_testbench::configs::named;
use qptable_testbench::tb::Tb;

/// S: index_bits 10 (generation 14 bits: 16-bit state words), blocks of 16 indexes (32 bytes,
/// 4 beats of the 64-bit bus), 64 blocks (STATE_BYTES 2048), 16 cache lines, 4 misses in
/// flight, one port, addr_bits 40, entry_bytes 64, first_index 2 (the default), cyclic.
fn cfg_s() -> Config {
    named(
        "qpt_sm_s",
        &[
            "state=in_memory",
            "index_bits=10",
            "block_bits=4",
            "cache_lines=16",
            "max_misses=4",
            "ports=tx",
            "addr_bits=40",
            "entry_bytes=64",
        ],
    )
}

const OK: Status = Status::Ok;
const NA: Status = Status::NotAllocated;

fn quiet() -> BenchOptions {
    BenchOptions::default()
}

/// Registers, lazy initialisation, the filter, write-through, the counters of §9.
#[test]
fn commands_lookups_lazy_init_and_counters() -> Result<()> {
    let mut tb = Tb::new("commands_lookups_lazy_init_and_counters", &cfg_s(), quiet())?;
    tb.expect_reg(regs::VERSION, Some(0x0002_0000))?;
    // index_bits 10, flat, 1 port, cyclic, state in memory (bit 16).
    tb.expect_reg(regs::GEOMETRY, Some(10 | 1 << 12 | 1 << 16))?;
    tb.expect_reg(regs::STATE_BYTES, Some(2048))?;
    tb.expect_write(regs::STATE_BASE_LO, 0x8765_4321, 0xF, true)?;
    tb.expect_write(regs::STATE_BASE_HI, 0xFFFF_FFFF, 0xF, true)?;
    // addr_bits 40: the high word keeps 8 bits; the low bits read back as written.
    tb.expect_reg(regs::STATE_BASE_LO, Some(0x8765_4321))?;
    tb.expect_reg(regs::STATE_BASE_HI, Some(0xFF))?;
    // The table starts at STATE_BASE aligned to the 32-byte block.
    let start = 0xFF_8765_4320u64;
    // Nothing was written at reset, nothing is live: a lookup is filtered, no memory access.
    tb.expect_lookups(&[(0, 5, 1, NA, 0)])?;
    ensure!(
        tb.b.mem.as_ref().unwrap().ar_count() == 0,
        "a filtered lookup read memory"
    );
    ensure!(
        tb.b.mem.as_ref().unwrap().aw_count() == 0,
        "a write at reset"
    );
    // First ALLOC: index 2 (first_index), generation 1. Block 0 was never written: it is
    // written whole (4 beats), zeros but word 2 = RESERVED (1) | generation 1 << 2.
    tb.cmd_ok(Command::Alloc, 1 << 10 | 2)?;
    {
        let m = tb.b.mem.as_ref().unwrap();
        ensure!(m.aw_count() == 1, "ALLOC: {} writes", m.aw_count());
        ensure!(m.ar_count() == 0, "ALLOC of a block never written read it");
        let w = m.mem().read_le(start + 4, 2);
        ensure!(w == 0b101, "word 2 of block 0 is {w:#x}, expected 0x5");
        ensure!(m.mem().read_le(start, 4) == 0, "words 0 and 1 not FREE");
        ensure!(m.mem().read_le(start + 6, 8) == 0, "words 3..6 not FREE");
    }
    // RESERVED answers NOT_ALLOCATED, from the block read from memory (block 0 is live).
    tb.expect_lookups(&[(0, 1 << 10 | 2, 2, NA, 0)])?;
    ensure!(
        tb.b.mem.as_ref().unwrap().ar_count() == 1,
        "the miss read the block once"
    );
    // PUBLISH reads the block (written) and writes the beat of word 2; it invalidates the
    // line, so the next lookup misses, the one after hits. (The miss answers from the fill
    // buffer as soon as the block has landed; the block reaches the cache a few cycles
    // later, after its broadcast: the test waits for it.)
    tb.cmd_ok(Command::Publish(1 << 10 | 2), 1 << 10 | 2)?;
    tb.expect_lookups(&[(0, 1 << 10 | 2, 3, OK, 2 * 64)])?;
    tb.run(20);
    tb.expect_lookups(&[(0, 1 << 10 | 2, 4, OK, 2 * 64)])?;
    tb.expect_lookups(&[(0, 2 << 10 | 2, 5, Status::Stale, 0)])?;
    {
        let m = tb.b.mem.as_ref().unwrap();
        ensure!(
            m.mem().read_le(start + 4, 2) == 0b110,
            "word 2 not VALID, generation 1"
        );
    }
    // FREE: the word is FREE again (generation kept), the block holds no live index: the next
    // lookup is filtered.
    tb.cmd_ok(Command::Free(1 << 10 | 2), 1 << 10 | 2)?;
    tb.expect_lookups(&[(0, 1 << 10 | 2, 6, NA, 0)])?;
    ensure!(
        tb.b.mem.as_ref().unwrap().mem().read_le(start + 4, 2) == 0b100,
        "word 2 not FREE with generation 1"
    );
    // Counters: lookups 0x005 (filtered), 0x402 miss, (PUBLISH), miss, hit, 0x802 hit, 0x402
    // filtered. Reads: the two misses only: PUBLISH and FREE find block 0 in the command
    // engine's block buffer (ALLOC made it there). Writes: ALLOC, PUBLISH, FREE.
    tb.expect_reg(regs::FILTERED, Some(2))?;
    tb.expect_reg(regs::CACHE_MISS, Some(2))?;
    tb.expect_reg(regs::CACHE_HIT, Some(2))?;
    tb.expect_reg(regs::MISS_MERGED, Some(0))?;
    tb.expect_reg(regs::MEM_READS, Some(2))?;
    tb.expect_reg(regs::MEM_WRITES, Some(3))?;
    // ALLOC_AT in block 6 (never written), twice; PUBLISH with the wrong generation.
    tb.cmd_ok(Command::AllocAt(7 << 10 | 100), 7 << 10 | 100)?;
    tb.cmd(
        Command::AllocAt(7 << 10 | 100),
        CmdStatus::BadState,
        7 << 10 | 100,
    )?;
    tb.cmd(
        Command::Publish(6 << 10 | 100),
        CmdStatus::BadState,
        6 << 10 | 100,
    )?;
    tb.cmd_ok(Command::Publish(7 << 10 | 100), 7 << 10 | 100)?;
    tb.expect_lookups(&[(0, 7 << 10 | 100, 7, OK, 100 * 64)])?;
    // Cyclic: the next ALLOC takes index 3 (after 2), generation 1.
    tb.cmd_ok(Command::Alloc, 1 << 10 | 3)?;
    tb.expect_cmd_counters(3, 0, 1, 2, 2)?;
    tb.finish()
}

/// One campaign: `lookups` per port with commands, under `shape`, with memory `mem`.
fn run(name: &str, sets: &[&str], shape: Shape, mem: MemOptions, seed: u64, lookups: u64) {
    let cfg = named(name, sets);
    let seed = campaign::seed(seed);
    campaign::run_with_mem(&cfg, shape, seed, lookups, &mem)
        .unwrap_or_else(|e| panic!("{name} seed {seed}: {e:#}"));
}

fn slow_random() -> MemOptions {
    MemOptions {
        latency: Latency::Uniform(1, 40),
        ar_backpressure: 0.3,
        r_gaps: 0.3,
    }
}

/// Flat, one port, index_bits 8, blocks of 8 (2-byte... 32-bit words: gen 16 bits), 16 lines,
/// one miss in flight: every lookup of a missing block waits for the one fill.
#[test]
fn campaign_flat_one_port_index_bits_8() {
    let sets = [
        "state=in_memory",
        "index_bits=8",
        "block_bits=3",
        "cache_lines=16",
        "max_misses=1",
        "ports=a",
        "max_qps=200",
    ];
    run(
        "qpt_sm_c1",
        &sets,
        FULL_SPEED,
        MemOptions::default(),
        0x51,
        20_000,
    );
    run("qpt_sm_c1", &sets, STRESSED, slow_random(), 0x52, 20_000);
}

/// Flat, two ports, index_bits 12, quarantine with overflow, 256-bit bus.
#[test]
fn campaign_flat_two_ports_quarantine_wide_bus() {
    let sets = [
        "state=in_memory",
        "index_bits=12",
        "block_bits=6",
        "cache_lines=16",
        "max_misses=8",
        "mem_data_bits=256",
        "ports=tx,rx",
        "quarantine_cycles=5000",
        "quarantine_depth=8",
    ];
    run(
        "qpt_sm_c2",
        &sets,
        FULL_SPEED,
        MemOptions::default(),
        0x53,
        20_000,
    );
    run("qpt_sm_c2", &sets, STRESSED, slow_random(), 0x54, 20_000);
}

/// two_level with the directory on chip, three ports, index_bits 16, lowest reuse.
#[test]
fn campaign_two_level_three_ports_index_bits_16() {
    let sets = [
        "state=in_memory",
        "mode=two_level",
        "index_bits=16",
        "leaf_bits=8",
        "block_bits=5",
        "cache_lines=64",
        "max_misses=16",
        "ports=a,b,c",
        "reuse=lowest",
    ];
    run(
        "qpt_sm_c3",
        &sets,
        FULL_SPEED,
        MemOptions::default(),
        0x55,
        12_000,
    );
    run(
        "qpt_sm_c3",
        &sets,
        STRESSED,
        MemOptions {
            latency: Latency::Fixed(64),
            ar_backpressure: 0.1,
            r_gaps: 0.1,
        },
        0x56,
        20_000,
    );
}

/// Flat, four ports, index_bits 24 (no generation: 2-bit words, blocks of 64 in two beats),
/// the defaults of §9 otherwise.
#[test]
fn campaign_flat_four_ports_index_bits_24() {
    let sets = ["state=in_memory", "index_bits=24", "ports=a,b,c,d"];
    run(
        "qpt_sm_c4",
        &sets,
        FULL_SPEED,
        MemOptions::default(),
        0x57,
        12_000,
    );
    run("qpt_sm_c4", &sets, STRESSED, slow_random(), 0x58, 12_000);
}

/// two_level with the directory in memory too (three read IDs on one memory port), two
/// ports, index_bits 12 (max_qps 3000), blocks of 16 on a 128-bit bus (narrower block reads than the
/// directory's bus words), few misses and directory reads in flight: state MEM_ERROR from
/// block fetches, directory MEM_ERROR and PAGE_ABSENT from directory reads (only after the
/// state checks), entries rewritten under traffic, out-of-order IDs half the time.
#[test]
fn campaign_two_level_directory_in_memory() {
    let sets = [
        "state=in_memory",
        "mode=two_level",
        "directory=in_memory",
        "index_bits=12",
        "max_qps=3000",
        "leaf_bits=6",
        "block_bits=4",
        "cache_lines=16",
        "max_misses=4",
        "max_outstanding=8",
        "mem_data_bits=128",
        "ports=tx,rx",
    ];
    run(
        "qpt_sm_c5",
        &sets,
        FULL_SPEED,
        MemOptions::default(),
        0x59,
        20_000,
    );
    run("qpt_sm_c5", &sets, STRESSED, slow_random(), 0x5A, 20_000);
}
