//! Directed tests of `mode = two_level`, `directory = on_chip` (SPEC §1, §5, §6 DIR_*): the
//! directory written and read back through DIR_INDEX / DIR_ENTRY_LO / DIR_ENTRY_HI, the
//! address from a page's base, PAGE_ABSENT after the on-chip checks, an entry rewritten,
//! GEOMETRY. Expected values are worked out by hand from SPEC; the Bench's scoreboard checks
//! the same traffic against the model too.

use anyhow::Result;
use qptable::config::Config;
use qptable::model::{regs, CmdStatus, Command, Status};
use qptable_sim::AxiResp;
use qptable_testbench::bench::{Bench, BenchOptions};
use qptable_testbench::configs;

/// index_bits 6, leaf_bits 2: 16 directory entries of 4 indexes; entry_bytes 96;
/// addr_bits 48; one port; first_index 0.
fn config() -> Config {
    configs::config(&[
        "mode=two_level",
        "directory=on_chip",
        "index_bits=6",
        "leaf_bits=2",
        "entry_bytes=96",
        "addr_bits=48",
        "ports=[\"rx\"]",
        "first_index=0",
        "top=qpt_on_chip",
    ])
}

fn qpn(generation: u32, index: u32) -> u32 {
    generation << 6 | index
}

fn write_entry(b: &mut Bench, i: u32, entry: u64) -> Result<()> {
    assert_eq!(b.write(regs::DIR_INDEX, i)?, AxiResp::Okay);
    assert_eq!(b.write(regs::DIR_ENTRY_LO, entry as u32)?, AxiResp::Okay);
    assert_eq!(
        b.write(regs::DIR_ENTRY_HI, (entry >> 32) as u32)?,
        AxiResp::Okay
    );
    Ok(())
}

/// One lookup on port 0, answered before returning: (status, addr).
fn lookup(b: &mut Bench, q: u32) -> Result<(u64, u64)> {
    b.responses[0].clear();
    b.lookup(0, q, 0);
    b.run_until(100, |b| !b.responses[0].is_empty())?;
    let [_, qpn, _, status, addr] = b.responses[0][0];
    assert_eq!(qpn, u64::from(q));
    Ok((status, addr))
}

#[test]
fn directory_registers_addresses_and_page_absent() -> Result<()> {
    let cfg = config();
    let mut b = Bench::new(&cfg, &BenchOptions::default())?;
    b.keep_responses = true;
    // GEOMETRY: index_bits 6, leaf_bits 2 << 5, mode 1 << 10, 1 port << 12, cyclic.
    assert_eq!(b.read(regs::GEOMETRY)?.0, 6 | 2 << 5 | 1 << 10 | 1 << 12);
    // After reset every entry reads 0 (not present).
    assert_eq!(b.read(regs::DIR_ENTRY_LO)?, (0, AxiResp::Okay));
    // DIR_INDEX takes 0..=15; 16 is refused and changes nothing.
    assert_eq!(b.write(regs::DIR_INDEX, 15)?, AxiResp::Okay);
    assert_eq!(b.write(regs::DIR_INDEX, 16)?, AxiResp::SlvErr);
    assert_eq!(b.read(regs::DIR_INDEX)?, (15, AxiResp::Okay));
    // Entry 1 (indexes 4..=7): base 0xABCD_1234_5640, present, reserved bits set (ignored,
    // read back 0). Writing LO alone commits nothing.
    assert_eq!(b.write(regs::DIR_INDEX, 1)?, AxiResp::Okay);
    assert_eq!(b.write(regs::DIR_ENTRY_LO, 0x3456_407F)?, AxiResp::Okay);
    assert_eq!(b.read(regs::DIR_ENTRY_LO)?, (0, AxiResp::Okay));
    assert_eq!(b.write(regs::DIR_ENTRY_HI, 0xABCD_0012)?, AxiResp::Okay);
    assert_eq!(b.read(regs::DIR_ENTRY_LO)?, (0x3456_4041, AxiResp::Okay));
    assert_eq!(b.read(regs::DIR_ENTRY_HI)?, (0xABCD_0012, AxiResp::Okay));
    // QP at index 6 (entry 1, offset 2): generation 9 by ALLOC_AT, published.
    let q = qpn(9, 6);
    assert_eq!(b.command(Command::AllocAt(q))?.status, CmdStatus::Ok);
    assert_eq!(b.command(Command::Publish(q))?.status, CmdStatus::Ok);
    // addr = (entry & ~63) + 2 * 96, modulo 2^48.
    let base = 0xABCD_0012_3456_4040u64 & !0x3F;
    let expect = (base + 2 * 96) & ((1 << 48) - 1);
    assert_eq!(lookup(&mut b, q)?, (Status::Ok as u64, expect));
    // The on-chip checks come first: a stale generation is STALE, not an address.
    assert_eq!(lookup(&mut b, qpn(8, 6))?, (Status::Stale as u64, 0));
    // A QP in a page that is not present: PAGE_ABSENT (entry 3: indexes 12..=15).
    let r = b.command(Command::AllocAt(qpn(1, 13)))?;
    assert_eq!(r.status, CmdStatus::Ok);
    b.command(Command::Publish(qpn(1, 13)))?;
    assert_eq!(lookup(&mut b, qpn(1, 13))?, (Status::PageAbsent as u64, 0));
    // Entry 3 made present: the next lookup finds the page; then absent again.
    write_entry(&mut b, 3, 0x40 | 1)?;
    assert_eq!(lookup(&mut b, qpn(1, 13))?, (Status::Ok as u64, 0x40 + 96));
    write_entry(&mut b, 3, 0xFFC0)?;
    assert_eq!(lookup(&mut b, qpn(1, 13))?, (Status::PageAbsent as u64, 0));
    // PAGE_ABSENT counter of port 0 (+0x14): 2.
    assert_eq!(
        b.read(regs::port_register(0, regs::PORT_PAGE_ABSENT))?,
        (2, AxiResp::Okay)
    );
    // DIR_FLUSH: nothing is cached, OK.
    assert_eq!(b.command(Command::DirFlush)?.status, CmdStatus::Ok);
    b.drain(10_000)?;
    b.finish()
}
