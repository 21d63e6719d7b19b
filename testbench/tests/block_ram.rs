//! Block-level tests of [`Ram`] alone in Verilator against a model of its timing contract: a
//! state RAM of 2^16 words of 10 bits (four rows of DP16KD with `ecp5`), in both flavours
//! (`generic` inferred, `ecp5` through the DP16KD simulation model), plain and with the
//! registers a reader or writer can ask for: the row registers ([`Ram::row_registered`]: one
//! after the row multiplexer, and with more than two rows one in its middle; also at 2^15
//! words, two rows, where only the first applies), the write register
//! ([`Ram::write_registered`]) and the address register ([`Ram::address_registered`]), alone
//! and together as the designs use them. Each variant's latency is also checked against the
//! value its registers add up to (2 for the output register, +1 per register asked for).
//!
//! The contract checked, every cycle: a read whose address is taken at edge `t` shows its
//! word in `read_data` after edge `t + latency - 1` ([`Ram::latency`]), the array read at
//! edge `t` (`t + 1` with the address register); a write taken at edge `w` lands at edge
//! `w + write_latency - 1` ([`Ram::write_latency`]); a read sees exactly the writes landed at
//! the edges before its array read (read-first). Reads and writes are random every cycle, on
//! a few addresses spread over the four rows, so that reads often meet the writes of the
//! cycles just before and after them. The Verilog of every variant also passes Verilator's
//! lint and Icarus.

use qptable::config::Fpga;
use qptable::hw::ram::Ram;
use qptable_sim::Model;
use qptable_testbench::block;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;
use std::collections::HashMap;

/// Rows of 16384 words (one DP16KD row at width 1) of the RAMs tested, but `row_two_rows`.
const ROWS: usize = 4;
const WIDTH: usize = 10;

/// One variant: its name, its rows of 16384 words, the RAM, and its read latency.
type Variant = (&'static str, usize, Ram<Bits<WIDTH>>, usize);

fn variants(fpga: Fpga) -> Vec<Variant> {
    let ram_of = |rows: usize| {
        Ram::<Bits<WIDTH>>::with_layout(
            rows << 14,
            14 + rows.trailing_zeros() as usize,
            WIDTH,
            fpga,
        )
    };
    let ram = || ram_of(ROWS);
    vec![
        ("plain", ROWS, ram(), 2),
        // Four rows: the register after the row multiplexer and the one in its middle.
        ("row", ROWS, ram().row_registered(), 4),
        // Two rows: only the register after the row multiplexer.
        ("row_two_rows", 2, ram_of(2).row_registered(), 3),
        ("write", ROWS, ram().write_registered(), 2),
        // The lookup pipes' copies in configs/in_memory.toml.
        (
            "row_write",
            ROWS,
            ram().row_registered().write_registered(),
            4,
        ),
        ("address", ROWS, ram().address_registered(), 3),
        // The command engine's copy in configs/in_memory.toml.
        (
            "write_address",
            ROWS,
            ram().write_registered().address_registered(),
            3,
        ),
        (
            "row_write_address",
            ROWS,
            ram()
                .row_registered()
                .write_registered()
                .address_registered(),
            5,
        ),
    ]
}

/// The Verilog of `ram` with top `top`, and the same with the DP16KD simulation model
/// appended when it instantiates DP16KD.
fn verilog(ram: Ram<Bits<WIDTH>>, top: &str) -> String {
    let mut text = block::verilog(ram, top).unwrap();
    if text.contains("DP16KD #(") {
        text.push_str(qptable_testbench::DP16KD_MODEL);
    }
    text
}

/// Drives `cycles` cycles of random reads and writes on `model` (a RAM whose read latency is
/// `latency`, whose array is read `ahead` edges after the address is taken and whose writes
/// land `write_latency - 1` edges after they are taken), checking every read of a written
/// word. Returns how many reads were checked.
fn run(
    model: &Model,
    rows: u64,
    latency: usize,
    ahead: usize,
    write_latency: usize,
    seed: u64,
) -> u64 {
    let mut sim = model.instantiate();
    let raddr = sim.input("read_address").unwrap();
    let we = sim.input("write_enable").unwrap();
    let waddr = sim.input("write_address").unwrap();
    let wdata = sim.input("write_data").unwrap();
    let rdata = sim.output("read_data").unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // A few addresses in each row (16384 words each).
    let addresses: Vec<u64> = (0..16)
        .map(|i| (i % rows) << 14 | rng.gen_range(0..1u64 << 14))
        .collect();
    // Per address, its writes as (landing edge, word), in landing order.
    let mut history: HashMap<u64, Vec<(u64, u64)>> = HashMap::new();
    // The reads issued: (edge that took the address, address).
    let mut reads: Vec<(u64, u64)> = Vec::new();
    let mut checked = 0;
    let cycles = 20_000u64;
    for edge in 1..=cycles + latency as u64 + 2 {
        // The word of the read whose address was taken `latency` edges ago is on `read_data`
        // now, before this edge.
        let issuing = edge <= cycles;
        let a = addresses[rng.gen_range(0..addresses.len())];
        let w = issuing && rng.gen_bool(0.4);
        let wa = addresses[rng.gen_range(0..addresses.len())];
        let wd = rng.gen_range(0..1u64 << WIDTH);
        sim.set(raddr, a);
        sim.set(we, u64::from(w));
        sim.set(waddr, wa);
        sim.set(wdata, wd);
        sim.step();
        if edge > latency as u64 {
            let (taken, ra) = reads[(edge - latency as u64 - 1) as usize];
            // Read-first: the writes landed at the edges before the array read.
            let read_edge = taken + ahead as u64;
            let want = history
                .get(&ra)
                .and_then(|h| h.iter().rev().find(|(landed, _)| *landed < read_edge))
                .map(|&(_, word)| word);
            if let Some(word) = want {
                assert_eq!(
                    sim.get(rdata),
                    word,
                    "seed {seed}: the read of word {ra:#x} taken at edge {taken} (array read at \
                     edge {read_edge}), seen before edge {edge}"
                );
                checked += 1;
            }
        }
        reads.push((edge, a));
        if w {
            history
                .entry(wa)
                .or_default()
                .push((edge + write_latency as u64 - 1, wd));
        }
    }
    checked
}

fn check(fpga: Fpga, flavour: &str, seed: u64) {
    let seed = block::seed(&format!("block_ram {flavour}"), seed);
    for (name, rows, ram, want_latency) in variants(fpga) {
        let (latency, write_latency) = (ram.latency(), ram.write_latency());
        assert_eq!(latency, want_latency, "{name}: read latency");
        assert_eq!(
            write_latency,
            1 + usize::from(name.contains("write")),
            "{name}: write latency"
        );
        let ahead = usize::from(name.contains("address"));
        let top = format!("ram_{flavour}_{name}");
        let text = verilog(ram, &top);
        let path =
            block::gen_dir(env!("CARGO_TARGET_TMPDIR"), "block_ram").join(format!("{top}.v"));
        std::fs::write(&path, &text).unwrap();
        block::lint_and_icarus(&path, &top);
        let model = block::build(&text, &top).unwrap();
        let checked = run(&model, rows as u64, latency, ahead, write_latency, seed);
        println!(
            "{top}: latency {latency}, write latency {write_latency}: {checked} reads checked"
        );
        assert!(
            checked > 5_000,
            "{top}: only {checked} reads of written words"
        );
    }
}

#[test]
fn generic_ram_reads_and_writes_at_their_latencies() {
    check(Fpga::Generic, "generic", 0x5EED_0301);
}

#[test]
fn ecp5_ram_of_four_rows_reads_and_writes_at_their_latencies() {
    check(Fpga::Ecp5, "ecp5", 0x5EED_0302);
}
