//! Seeded random campaigns on four configurations, each at full speed and stressed (idle
//! requests, response and control-port backpressure), all ports at once, commands mixed in.
//! Every response and every command result is checked against the reference model; each
//! run ends with nothing outstanding, and fails if a lookup status or command result that
//! its configuration can produce never occurred (`campaign::reachable`: e.g. FULL where the
//! campaign fills the table, PAGE_ABSENT in two_level, MEM_ERROR in_memory).
//! `QPTABLE_SEED=<n>` replays a seed.

use qptable_sim::axi_mem::Latency as MemLatency;
use qptable_testbench::bench::MemOptions;
use qptable_testbench::campaign::{self, FULL_SPEED, STRESSED};
use qptable_testbench::configs;

const LOOKUPS_PER_PORT: u64 = 60_000;

fn both_shapes(name: &str, sets: &[&str], default_seed: u64) {
    let cfg = configs::config(sets);
    let mut total = 0;
    for (i, shape) in [FULL_SPEED, STRESSED].into_iter().enumerate() {
        let seed = campaign::seed(default_seed + i as u64);
        let out = campaign::run(&cfg, shape, seed, LOOKUPS_PER_PORT)
            .unwrap_or_else(|e| panic!("{name} seed {seed} {shape:?}: {e:#}"));
        assert_eq!(out.lookups, LOOKUPS_PER_PORT * cfg.ports.len() as u64);
        total += out.lookups;
    }
    println!("{name}: {total} lookups checked");
}

#[test]
fn small_table_three_ports_lowest_reuse() {
    // index_bits 4, max_qps not a power of two, 3 ports, tag_bits 1, addr_bits 32,
    // entry_bytes not a power of two: the pool (11 indexes) fills up, FULL is exercised.
    both_shapes(
        "small",
        &[
            "index_bits=4",
            "max_qps=13",
            "first_index=2",
            "ports=[\"a\",\"b\",\"c\"]",
            "tag_bits=1",
            "addr_bits=32",
            "entry_bytes=96",
            "reuse=lowest",
            "top=qpt_small",
        ],
        0x5EED_0001,
    );
}

#[test]
fn default_configuration() {
    both_shapes("default", &[], 0x5EED_0010);
}

#[test]
fn wide_table_one_port() {
    // index_bits 20 with max_qps not a power of two, one port, 32-bit tags, 48-bit addresses.
    both_shapes(
        "wide",
        &[
            "index_bits=20",
            "max_qps=1000000",
            "ports=[\"rx\"]",
            "tag_bits=32",
            "addr_bits=48",
            "entry_bytes=4096",
            "top=qpt_wide",
        ],
        0x5EED_0020,
    );
}

#[test]
fn four_ports_first_index_zero() {
    both_shapes(
        "four",
        &[
            "index_bits=10",
            "max_qps=1000",
            "first_index=0",
            "ports=[\"p0\",\"p1\",\"p2\",\"p3\"]",
            "tag_bits=16",
            "addr_bits=40",
            "entry_bytes=32",
            "top=qpt_four",
        ],
        0x5EED_0030,
    );
}

#[test]
fn small_table_with_quarantine_and_overflow() {
    // A quarantine much longer than the spacing of commands and a queue of 3, so that it
    // overflows: the model predicts every ALLOC exactly, since
    // quarantine time is counted between CMD write handshakes.
    both_shapes(
        "quarantine-small",
        &[
            "index_bits=5",
            "max_qps=20",
            "first_index=1",
            "ports=[\"tx\",\"rx\"]",
            "reuse=lowest",
            "quarantine_cycles=5000",
            "quarantine_depth=3",
            "top=qpt_quar",
        ],
        0x5EED_0040,
    );
}

#[test]
fn default_with_quarantine_cyclic() {
    both_shapes(
        "quarantine-default",
        &["quarantine_cycles=2000", "quarantine_depth=64"],
        0x5EED_0050,
    );
}

#[test]
fn index_bits_24_full_table() {
    // 2^24 indexes, no generation bits: the 16.8M-cycle init sweep, then a stressed
    // campaign; cyclic allocation and the quarantine are the only reuse guards here.
    let cfg = configs::config(&[
        "index_bits=24",
        "ports=[\"tx\",\"rx\"]",
        "quarantine_cycles=1000",
        "top=qpt_24",
    ]);
    let seed = campaign::seed(0x5EED_0060);
    let t = std::time::Instant::now();
    let out = campaign::run(&cfg, STRESSED, seed, 20_000)
        .unwrap_or_else(|e| panic!("index_bits 24 seed {seed}: {e:#}"));
    assert_eq!(out.lookups, 40_000);
    println!(
        "index_bits 24: {:.1} s with the init sweep",
        t.elapsed().as_secs_f64()
    );
}

#[test]
fn two_level_on_chip_directory() {
    // 64-entry pages (leaf_bits 6), pages present and absent, entries rewritten under
    // traffic; lookups of a rewritten page may see the old or the new entry until the write
    // response, and exactly the new one after it.
    both_shapes(
        "two-level",
        &[
            "mode=two_level",
            "leaf_bits=6",
            "index_bits=12",
            "max_qps=3000",
            "ports=[\"tx\",\"rx\"]",
            "entry_bytes=224",
            "top=qpt_two_level",
        ],
        0x5EED_0070,
    );
}

/// Both shapes on an in_memory configuration with the memory model `mem`.
fn in_memory_both_shapes(name: &str, sets: &[&str], mem: MemOptions, default_seed: u64) {
    let mut all = vec!["mode=two_level", "directory=in_memory"];
    all.extend_from_slice(sets);
    let cfg = configs::config(&all);
    let mut total = 0;
    for (i, shape) in [FULL_SPEED, STRESSED].into_iter().enumerate() {
        let seed = campaign::seed(default_seed + i as u64);
        let out = campaign::run_with_mem(&cfg, shape, seed, IN_MEMORY_LOOKUPS, &mem)
            .unwrap_or_else(|e| panic!("{name} seed {seed} {shape:?} {mem:?}: {e:#}"));
        assert_eq!(out.lookups, IN_MEMORY_LOOKUPS * cfg.ports.len() as u64);
        total += out.lookups;
    }
    println!("{name}: {total} lookups checked");
}

const IN_MEMORY_LOOKUPS: u64 = 20_000;

#[test]
fn in_memory_latency_1_four_outstanding() {
    in_memory_both_shapes(
        "in-memory-l1",
        &[
            "leaf_bits=4",
            "index_bits=10",
            "max_qps=1000",
            "max_outstanding=4",
            "entry_bytes=96",
            "top=qpt_mem_l1",
        ],
        MemOptions {
            latency: MemLatency::Fixed(1),
            ..MemOptions::default()
        },
        0x5EED_0100,
    );
}

#[test]
fn in_memory_random_latency_backpressure_three_ports() {
    in_memory_both_shapes(
        "in-memory-random",
        &[
            "leaf_bits=5",
            "index_bits=11",
            "ports=[\"a\",\"b\",\"c\"]",
            "max_outstanding=32",
            "addr_bits=48",
            "tag_bits=12",
            "top=qpt_mem_rand",
        ],
        MemOptions {
            latency: MemLatency::Uniform(1, 200),
            ar_backpressure: 0.3,
            r_gaps: 0.3,
        },
        0x5EED_0110,
    );
}

#[test]
fn in_memory_latency_50_one_outstanding() {
    in_memory_both_shapes(
        "in-memory-l50-mo1",
        &[
            "leaf_bits=3",
            "index_bits=8",
            "max_outstanding=1",
            "ports=[\"rx\"]",
            "addr_bits=32",
            "top=qpt_mem_mo1",
        ],
        MemOptions {
            latency: MemLatency::Fixed(50),
            ar_backpressure: 0.1,
            r_gaps: 0.1,
        },
        0x5EED_0120,
    );
}

#[test]
fn in_memory_shipped_index_bits_20() {
    // configs/in_memory.toml: 2^20 indexes, 1024-entry pages, 32 reads in flight.
    in_memory_both_shapes(
        "in-memory-20",
        &[
            "index_bits=20",
            "leaf_bits=10",
            "max_outstanding=32",
            "top=qpt_mem_20",
        ],
        MemOptions {
            latency: MemLatency::Fixed(50),
            ..MemOptions::default()
        },
        0x5EED_0130,
    );
}

// `fpga = ecp5`: the RAMs are DP16KD instances (simulated with the behavioural model of
// qptable_testbench::DP16KD_MODEL), with their output register (REGMODE_B = "OUTREG") or,
// for the control port's directory copy, without.

#[test]
fn ecp5_default_with_quarantine() {
    // 16384 x 12-bit state RAMs (one row of width-1 blocks), free-map levels of 64-bit words
    // at width 18, the quarantine queue.
    both_shapes(
        "ecp5-default",
        &[
            "fpga=ecp5",
            "quarantine_cycles=2000",
            "quarantine_depth=64",
            "top=qpt_ecp5",
        ],
        0x5EED_0200,
    );
}

#[test]
fn ecp5_small_table_three_ports() {
    both_shapes(
        "ecp5-small",
        &[
            "fpga=ecp5",
            "index_bits=4",
            "max_qps=13",
            "ports=[\"a\",\"b\",\"c\"]",
            "reuse=lowest",
            "top=qpt_ecp5_small",
        ],
        0x5EED_0210,
    );
}

#[test]
fn ecp5_two_rows_of_blocks_two_level() {
    // 2^15 indexes: the state RAM is two rows of 16384-word blocks (the row multiplexer after
    // the output registers); two_level on_chip: the directory copies, the control port's
    // without its output register.
    both_shapes(
        "ecp5-two-rows",
        &[
            "fpga=ecp5",
            "index_bits=15",
            "max_qps=30000",
            "mode=two_level",
            "leaf_bits=8",
            "top=qpt_ecp5_rows",
        ],
        0x5EED_0220,
    );
}

#[test]
fn ecp5_in_memory() {
    in_memory_both_shapes(
        "ecp5-in-memory",
        &[
            "fpga=ecp5",
            "leaf_bits=4",
            "index_bits=10",
            "max_outstanding=4",
            "top=qpt_ecp5_mem",
        ],
        MemOptions {
            latency: MemLatency::Fixed(4),
            ..MemOptions::default()
        },
        0x5EED_0230,
    );
}

#[test]
fn ecp5_in_memory_two_rows_of_blocks() {
    // 2^15 indexes with the directory in memory: the state RAM is two rows of DP16KD, read
    // through its row register (latency 3) and written through a register per block (the
    // write lands one edge later; the command engine publishes its result and counts FREE's
    // drain one edge later to match).
    in_memory_both_shapes(
        "ecp5-in-memory-rows",
        &[
            "fpga=ecp5",
            "leaf_bits=6",
            "index_bits=15",
            "max_qps=30000",
            "max_outstanding=8",
            "top=qpt_ecp5_mem_rows",
        ],
        MemOptions {
            latency: MemLatency::Uniform(1, 20),
            ..MemOptions::default()
        },
        0x5EED_0250,
    );
}
