//! Seeded random campaigns: lookups on every port at once, mixed with every kind of
//! command, checked response by response against the reference model by [`Bench`].

use crate::bench::{Bench, BenchOptions, MemOptions};
use anyhow::Result;
use qptable::config::{Config, Directory, Mode};
use qptable::model::{regs, CmdStatus, Command};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Traffic shape of one campaign run.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub req_idle: f64,
    pub rsp_backpressure: f64,
    pub axil_random: f64,
}

/// Always-ready consumers, back-to-back requests.
pub const FULL_SPEED: Shape = Shape {
    req_idle: 0.0,
    rsp_backpressure: 0.0,
    axil_random: 0.0,
};

/// Idle cycles on the requests, backpressure on the responses and on the control port.
pub const STRESSED: Shape = Shape {
    req_idle: 0.3,
    rsp_backpressure: 0.4,
    axil_random: 0.2,
};

/// What a campaign did.
#[derive(Debug, Default)]
pub struct Outcome {
    pub lookups: u64,
    pub commands: u64,
    pub cycles: u64,
    pub status_counts: [u64; 6],
    pub cmd_counts: [u64; 5],
}

/// The seed of a run: `QPTABLE_SEED` if set, else `default`. Printed by the caller.
pub fn seed(default: u64) -> u64 {
    std::env::var("QPTABLE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Runs `lookups` lookups per port in batches, with a random command between batches.
pub fn run(cfg: &Config, shape: Shape, seed: u64, lookups: u64) -> Result<Outcome> {
    run_with_mem(cfg, shape, seed, lookups, &MemOptions::default())
}

/// [`run`] with the memory model `mem` (two_level in_memory; ignored in other modes).
/// In in_memory mode the directory is written into the memory at random 64-byte aligned page
/// bases, most present, a few entries answering SLVERR (MEM_ERROR), and entries are rewritten
/// (and made to answer SLVERR) under traffic between batches (see
/// [`Scoreboard::memory_changed`](crate::scoreboard::Scoreboard::memory_changed)).
pub fn run_with_mem(
    cfg: &Config,
    shape: Shape,
    seed: u64,
    lookups: u64,
    mem: &MemOptions,
) -> Result<Outcome> {
    let in_memory = cfg.mode == Mode::TwoLevel && cfg.directory == Directory::InMemory;
    println!(
        "campaign: top {} index_bits {} max_qps {} ports {} shape {shape:?} seed {seed}{}",
        cfg.top,
        cfg.index_bits,
        cfg.max_qps(),
        cfg.ports.len(),
        if in_memory {
            format!(" memory {:?} max_outstanding {}", mem, cfg.max_outstanding)
        } else {
            String::new()
        }
    );
    let mut bench = Bench::new_with_mem(
        cfg,
        &BenchOptions {
            req_idle: shape.req_idle,
            rsp_backpressure: shape.rsp_backpressure,
            axil_random: shape.axil_random,
            seed,
            trace: None,
        },
        mem,
    )?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    bench.write(qptable::model::regs::TABLE_BASE_LO, rng.gen())?;
    bench.write(qptable::model::regs::TABLE_BASE_HI, rng.gen())?;
    let index_mask = (1u32 << cfg.index_bits) - 1;
    // two_level on chip: most pages present, at random 64-byte aligned bases (some near the
    // top of the address space, so the address wraps).
    let dir_entries = bench.sb.model.dir_entries();
    let on_chip = cfg.mode == Mode::TwoLevel && cfg.directory == Directory::OnChip;
    if on_chip {
        for i in 0..dir_entries.min(256) {
            write_dir_entry(&mut bench, &mut rng, i)?;
        }
    }
    if in_memory {
        for i in 0..dir_entries.min(4096) {
            write_mem_dir_entry(&mut bench, &mut rng, i);
        }
        // A few entries whose reads answer SLVERR.
        for _ in 0..(dir_entries / 16).max(1) {
            let a = bench
                .sb
                .model
                .mem_dir_address(rng.gen_range(0..dir_entries));
            bench.mem_add_error(a..a + 8);
        }
    }
    let start = bench.sim.cycle();
    let mut known: Vec<u32> = Vec::new();
    let mut out = Outcome::default();
    let ports = cfg.ports.len();
    let mut sent = 0;
    while sent < lookups {
        let batch = rng.gen_range(1..200).min(lookups - sent);
        for p in 0..ports {
            for _ in 0..batch {
                let qpn = match rng.gen_range(0..10) {
                    0..=5 if !known.is_empty() => known[rng.gen_range(0..known.len())],
                    6 if !known.is_empty() => {
                        // Another generation of a known index.
                        known[rng.gen_range(0..known.len())] ^ (rng.gen::<u32>() & !index_mask)
                    }
                    _ => rng.gen::<u32>() & 0xFF_FFFF,
                };
                bench.lookup(p, qpn, rng.gen());
            }
        }
        sent += batch;
        // Let part of the batch flow, then a command while the rest is in flight.
        bench.run_cycles(rng.gen_range(0..batch + 1))?;
        let cmd = match rng.gen_range(0..20) {
            0..=6 => Command::Alloc,
            7..=9 if !known.is_empty() => Command::Publish(known[rng.gen_range(0..known.len())]),
            10..=12 if !known.is_empty() => Command::Free(known[rng.gen_range(0..known.len())]),
            13 => Command::AllocAt(rng.gen::<u32>() & 0xFF_FFFF),
            14 if !known.is_empty() => Command::AllocAt(
                known[rng.gen_range(0..known.len())] ^ (rng.gen::<u32>() & !index_mask),
            ),
            15 => Command::Free(rng.gen::<u32>() & 0xFF_FFFF),
            16 => Command::Publish(rng.gen::<u32>() & 0xFF_FFFF),
            17 if on_chip => {
                // Rewrite a directory entry while lookups flow.
                let i = rng.gen_range(0..dir_entries);
                write_dir_entry(&mut bench, &mut rng, i)?;
                Command::DirFlush
            }
            17 if in_memory => {
                // Rewrite a directory entry in memory under traffic: lookups in flight may
                // see the old or the new entry, later ones the new.
                let i = rng.gen_range(0..dir_entries.min(4));
                write_mem_dir_entry(&mut bench, &mut rng, i);
                // Sometimes the entry's reads start answering SLVERR (the others' stop).
                if rng.gen_bool(0.3) {
                    bench.mem_clear_errors();
                    let a = bench.sb.model.mem_dir_address(i);
                    bench.mem_add_error(a..a + 8);
                }
                Command::DirFlush
            }
            17 => Command::DirFlush,
            18 => Command::Raw(
                [0, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15][rng.gen_range(0..11)],
                rng.gen::<u32>() & 0xFF_FFFF,
            ),
            _ => Command::Alloc,
        };
        let r = bench.command(cmd)?;
        out.commands += 1;
        out.cmd_counts[r.status as usize] += 1;
        if r.status == CmdStatus::Ok {
            if let Command::Alloc | Command::AllocAt(_) = cmd {
                let qpn = if let Command::AllocAt(q) = cmd {
                    q
                } else {
                    r.qpn
                };
                known.push(qpn);
                // Most new QPs are published at once, so that lookups find them.
                if rng.gen_bool(0.7) {
                    let r = bench.command(Command::Publish(qpn))?;
                    out.commands += 1;
                    out.cmd_counts[r.status as usize] += 1;
                }
            }
        }
        if known.len() > 4 * cfg.max_qps() as usize {
            known.drain(..known.len() / 2);
        }
    }
    bench.drain(1_000_000)?;
    out.cycles = bench.sim.cycle() - start;
    // Every counter, global and per port, against the model.
    let mut addrs: Vec<u32> = (0..7).map(|k| regs::ALLOC_OK + 4 * k).collect();
    for p in 0..ports {
        addrs.extend((0..7).map(|k| regs::port_register(p, 4 * k)));
    }
    for addr in addrs {
        let (v, resp) = bench.read(addr)?;
        let got = if resp == qptable_sim::AxiResp::Okay {
            Ok(v)
        } else {
            Err(())
        };
        if let Err(m) = bench.sb.check_read(addr, got) {
            bench.mismatches.push(m.message().to_string());
        }
    }
    let (overflow, _) = bench.read(regs::QUARANTINE_OVERFLOW)?;
    let (quarantined, _) = bench.read(regs::QUARANTINED)?;
    println!(
        "  QUARANTINE_OVERFLOW {overflow}, QUARANTINED {quarantined} (checked against the model)"
    );
    for p in 0..ports {
        out.lookups += bench.sb.lookups(p);
        for (s, c) in bench.status_counts(p).iter().enumerate() {
            out.status_counts[s] += c;
        }
    }
    bench.finish()?;
    println!(
        "  {} lookups, {} commands, {} cycles; statuses {:?}; command results {:?}; mismatches 0",
        out.lookups, out.commands, out.cycles, out.status_counts, out.cmd_counts
    );
    Ok(out)
}

/// Writes directory entry `i` through DIR_INDEX / DIR_ENTRY_LO / DIR_ENTRY_HI: present with
/// probability 0.8, a random 64-byte aligned page base, random reserved bits.
fn write_dir_entry(bench: &mut Bench, rng: &mut ChaCha8Rng, i: u32) -> Result<()> {
    let present = rng.gen_bool(0.8);
    let entry = (rng.gen::<u64>() & !0x3F) | (rng.gen::<u64>() & 0x3E) | u64::from(present);
    bench.write(regs::DIR_INDEX, i)?;
    bench.write(regs::DIR_ENTRY_LO, entry as u32)?;
    bench.write(regs::DIR_ENTRY_HI, (entry >> 32) as u32)?;
    Ok(())
}

/// Writes directory entry `i` into the memory (two_level in_memory): present with
/// probability 0.8, a random 64-byte aligned page base, random reserved bits.
fn write_mem_dir_entry(bench: &mut Bench, rng: &mut ChaCha8Rng, i: u32) {
    let present = rng.gen_bool(0.8);
    let entry = (rng.gen::<u64>() & !0x3F) | (rng.gen::<u64>() & 0x3E) | u64::from(present);
    bench.mem_write_dir(i, entry);
}
