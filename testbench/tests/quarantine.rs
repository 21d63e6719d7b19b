//! Directed tests of the quarantine (SPEC §6): time counted in edges between CMD write
//! handshakes, at most one release (the oldest, if its time is over) before each command,
//! a full queue releasing its oldest early (QUARANTINE_OVERFLOW), ALLOC answering FULL rather
//! than a quarantined index, ALLOC_AT refusing a quarantined index. Expected values are
//! worked out by hand from those rules; the Bench's scoreboard checks the same traffic
//! against the reference model as well.

use anyhow::{ensure, Result};
use qptable::config::Config;
use qptable::model::{regs, CmdResult, CmdStatus, Command};
use qptable_testbench::bench::{Bench, BenchOptions};
use qptable_testbench::configs;

const Q: u64 = 200;

/// index_bits 4 (20 generation bits), max_qps 5, first_index 2: the pool is 2, 3, 4.
fn config(depth: u32) -> Config {
    configs::config(&[
        "index_bits=4",
        "max_qps=5",
        "first_index=2",
        "reuse=lowest",
        "ports=[\"rx\"]",
        &format!("quarantine_cycles={Q}"),
        &format!("quarantine_depth={depth}"),
        "top=qpt_quarantine",
    ])
}

fn qpn(generation: u32, index: u32) -> u32 {
    generation << 4 | index
}

/// Runs `cmd` so that its CMD write handshake is at edge `at` (the control port is quiet:
/// the master presents AW/W in the cycle after it is asked, and the slave takes them at once).
fn command_at(bench: &mut Bench, cmd: Command, at: u64) -> Result<CmdResult> {
    ensure!(bench.sim.cycle() < at, "edge {at} is already past");
    while bench.sim.cycle() + 1 < at {
        bench.step();
    }
    let r = bench.command(cmd)?;
    ensure!(
        bench.last_cmd_cycle == at,
        "the CMD write handshake was at edge {}, not {at}",
        bench.last_cmd_cycle
    );
    Ok(r)
}

fn read(bench: &mut Bench, addr: u32) -> Result<u32> {
    Ok(bench.read(addr)?.0)
}

#[test]
fn freed_index_returns_exactly_after_quarantine_cycles() -> Result<()> {
    let mut b = Bench::new(&config(4), &BenchOptions::default())?;
    // Fill the pool: lowest reuse hands out 2, 3, 4 with generation 1.
    for i in 2..5 {
        let r = b.command(Command::Alloc)?;
        assert_eq!((r.status, r.qpn), (CmdStatus::Ok, qpn(1, i)));
    }
    // FREE index 3 with its CMD write at edge t.
    let t = b.sim.cycle() + 5;
    let r = command_at(&mut b, Command::Free(qpn(1, 3)), t)?;
    assert_eq!(r.status, CmdStatus::Ok);
    assert_eq!(read(&mut b, regs::QUARANTINED)?, 1);
    // ALLOC_AT of the quarantined index, well within its time: refused.
    let r = b.command(Command::AllocAt(qpn(7, 3)))?;
    assert_eq!(r.status, CmdStatus::BadState);
    // Written at t + Q - 1: the time is not over; nothing else is free: FULL.
    let r = command_at(&mut b, Command::Alloc, t + Q - 1)?;
    assert_eq!((r.status, r.qpn), (CmdStatus::Full, 0));
    assert_eq!(read(&mut b, regs::QUARANTINED)?, 1);
    // Written at t + Q or later: released before the command runs; generation 2.
    let later = (b.sim.cycle() + 1).max(t + Q);
    let r = command_at(&mut b, Command::Alloc, later)?;
    assert_eq!((r.status, r.qpn), (CmdStatus::Ok, qpn(2, 3)));
    assert_eq!(read(&mut b, regs::QUARANTINED)?, 0);
    assert_eq!(read(&mut b, regs::QUARANTINE_OVERFLOW)?, 0);
    b.drain(10_000)?;
    b.finish()
}

#[test]
fn exact_boundary_at_quarantine_cycles() -> Result<()> {
    let mut b = Bench::new(&config(4), &BenchOptions::default())?;
    for _ in 2..5 {
        b.command(Command::Alloc)?;
    }
    let t = b.sim.cycle() + 3;
    command_at(&mut b, Command::Free(qpn(1, 2)), t)?;
    // The first command written at exactly t + Q gets the index.
    let r = command_at(&mut b, Command::Alloc, t + Q)?;
    assert_eq!((r.status, r.qpn), (CmdStatus::Ok, qpn(2, 2)));
    b.finish()
}

#[test]
fn one_release_per_command_oldest_first() -> Result<()> {
    let mut b = Bench::new(&config(4), &BenchOptions::default())?;
    for _ in 2..5 {
        b.command(Command::Alloc)?;
    }
    // Free 4, then 2: queue [4, 2].
    b.command(Command::Free(qpn(1, 4)))?;
    b.command(Command::Free(qpn(1, 2)))?;
    assert_eq!(read(&mut b, regs::QUARANTINED)?, 2);
    // Long after both are due: each command releases one, the oldest (4) first. The ALLOC
    // finds only 4 available even though 2 is lower (lowest reuse): 2 is still queued.
    let at = b.sim.cycle() + Q + 10;
    let r = command_at(&mut b, Command::Alloc, at)?;
    assert_eq!((r.status, r.qpn), (CmdStatus::Ok, qpn(2, 4)));
    assert_eq!(read(&mut b, regs::QUARANTINED)?, 1);
    // A command that is not an ALLOC releases too: DIR_FLUSH releases 2.
    let r = b.command(Command::DirFlush)?;
    assert_eq!(r.status, CmdStatus::Ok);
    assert_eq!(read(&mut b, regs::QUARANTINED)?, 0);
    let r = b.command(Command::Alloc)?;
    assert_eq!((r.status, r.qpn), (CmdStatus::Ok, qpn(2, 2)));
    b.finish()
}

#[test]
fn overflow_releases_the_oldest_early() -> Result<()> {
    // Depth 2: the third FREE within the quarantine time overflows.
    let mut b = Bench::new(&config(2), &BenchOptions::default())?;
    for _ in 2..5 {
        b.command(Command::Alloc)?;
    }
    b.command(Command::Free(qpn(1, 3)))?;
    b.command(Command::Free(qpn(1, 4)))?;
    b.command(Command::Free(qpn(1, 2)))?;
    assert_eq!(read(&mut b, regs::QUARANTINE_OVERFLOW)?, 1);
    assert_eq!(read(&mut b, regs::QUARANTINED)?, 2);
    assert_eq!(read(&mut b, regs::FREE_OK)?, 3);
    assert_eq!(read(&mut b, regs::IN_USE)?, 0);
    // 3 left early: it is the only one available.
    let r = b.command(Command::Alloc)?;
    assert_eq!((r.status, r.qpn), (CmdStatus::Ok, qpn(2, 3)));
    let r = b.command(Command::Alloc)?;
    assert_eq!((r.status, r.qpn), (CmdStatus::Full, 0));
    assert_eq!(read(&mut b, regs::ALLOC_FULL)?, 1);
    b.finish()
}
