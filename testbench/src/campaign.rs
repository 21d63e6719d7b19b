//! Seeded random campaigns: lookups on every port at once, mixed with every kind of
//! command, checked response by response against the reference model by [`Bench`].
//!
//! Coverage is asserted, not only counted: a campaign fails when a lookup status or a command
//! result that its configuration can produce ([`reachable`]) never occurred.

use crate::bench::{Bench, BenchOptions, MemOptions};
use anyhow::{bail, Result};
use qptable::config::{Config, Directory, Mode, State};
use qptable::model::{regs, CmdResult, CmdStatus, Command, State as EntryState};
use qptable::spec::{opcode, Status};
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
    pub cmd_counts: [u64; 6],
    /// Moves of the bases (`move_phase`) and writes of TABLE_BASE or STATE_BASE at random
    /// moments, accepted and refused (SLVERR).
    pub moves: u64,
    pub base_writes_ok: u64,
    pub base_writes_refused: u64,
    /// State in memory: the engine's writes checked to lie inside the state table of their
    /// time.
    pub state_writes: u64,
}

/// A campaign fills the table (ALLOC until FULL) once when at most this many indexes can be
/// allocated (`max_qps - first_index`), so that FULL is produced; larger tables would take
/// too long to fill (about 40 cycles an ALLOC through the control port).
pub const FILL_LIMIT: u32 = 16384;

/// The lookup statuses and command results a campaign on `cfg` can produce, derived from the
/// configuration and the stimulus of [`run_with_mem`]:
///
/// | result | reachable when |
/// |---|---|
/// | lookup OK, NOT_ALLOCATED | always |
/// | lookup OUT_OF_RANGE, command OUT_OF_RANGE | `max_qps < 2^index_bits` (an index field value past the table) |
/// | STALE | generation bits (`index_bits < 24`): a valid index looked up with another generation |
/// | PAGE_ABSENT | two_level (directory entries written absent, or never written; the directed phase makes one for sure: `directed_phase`) |
/// | MEM_ERROR | two_level in_memory (the campaign makes some directory reads answer SLVERR, and the directed phase for sure); state in_memory (the campaign makes the blocks of live QPNs answer SLVERR for a while, and the directed phase for sure) |
/// | command OK, BAD_STATE, BAD_CMD | always |
/// | FULL | the campaign fills the table: `max_qps - first_index <=` [`FILL_LIMIT`] |
/// | command MEM_ERROR | state in_memory (commands on those blocks; the directed phase for sure) |
pub fn reachable(cfg: &Config) -> (Vec<Status>, Vec<CmdStatus>) {
    let past_the_table = cfg.max_qps() < 1 << cfg.index_bits;
    let two_level = cfg.mode == Mode::TwoLevel;
    let in_memory = two_level && cfg.directory == Directory::InMemory;
    let state_in_memory = cfg.state == State::InMemory;
    let statuses = Status::ALL
        .into_iter()
        .filter(|s| match s {
            Status::Ok | Status::NotAllocated => true,
            Status::OutOfRange => past_the_table,
            Status::Stale => cfg.gen_bits() > 0,
            Status::PageAbsent => two_level,
            Status::MemError => in_memory || state_in_memory,
        })
        .collect();
    let results = CmdStatus::ALL
        .into_iter()
        .filter(|c| match c {
            CmdStatus::Ok | CmdStatus::BadState | CmdStatus::BadCmd => true,
            CmdStatus::OutOfRange => past_the_table,
            CmdStatus::Full => fills_the_table(cfg),
            CmdStatus::MemError => state_in_memory,
        })
        .collect();
    (statuses, results)
}

/// Whether a campaign on `cfg` fills the table (see [`FILL_LIMIT`]).
pub fn fills_the_table(cfg: &Config) -> bool {
    cfg.max_qps().saturating_sub(cfg.first_index) <= FILL_LIMIT
}

impl Outcome {
    /// An error naming every reachable status and result (see [`reachable`]) that never
    /// occurred.
    pub fn check_coverage(&self, cfg: &Config) -> Result<()> {
        let (statuses, results) = reachable(cfg);
        let missing: Vec<String> = statuses
            .iter()
            .filter(|s| self.status_counts[s.as_u64() as usize] == 0)
            .map(|s| format!("lookup status {s}"))
            .chain(
                results
                    .iter()
                    .filter(|c| self.cmd_counts[c.as_u32() as usize] == 0)
                    .map(|c| format!("command result {c}")),
            )
            .collect();
        if !missing.is_empty() {
            bail!(
                "coverage: never produced {} (reachable in this configuration; statuses {:?}, \
                 command results {:?})",
                missing.join(", "),
                self.status_counts,
                self.cmd_counts
            );
        }
        Ok(())
    }
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
/// two_level on chip and the state in memory: a quarter of the way in, `directed_phase`.
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
    let state_in_memory = cfg.state == State::InMemory;
    if state_in_memory {
        if let Some(m) = bench.mem.as_mut() {
            m.set_out_of_order(rng.gen_bool(0.5));
        }
    }
    let mut out = Outcome::default();
    if state_in_memory {
        // The state table anywhere in the address space (the engine ignores the bits below
        // the block size), over junk (see `write_base`).
        write_base(&mut bench, &mut rng, &mut out, regs::STATE_BASE_LO)?;
        write_base(&mut bench, &mut rng, &mut out, regs::STATE_BASE_HI)?;
    }
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
    let ports = cfg.ports.len();
    let mut sent = 0;
    let mut filled = !fills_the_table(cfg);
    // The directed phase (see `directed_phase`) runs once, a quarter of the way in, when
    // the configuration has something for it to produce.
    let mut directed = !(on_chip || in_memory || state_in_memory);
    while sent < lookups {
        if !directed && sent >= lookups / 4 && lookups - sent >= DIRECTED_LOOKUPS {
            directed = true;
            // Its lookups count in the `lookups` per port.
            sent += directed_phase(&mut bench, &mut rng, &mut known, &mut out)?;
        }
        // The bases move (every QP freed first) now and then, and once for sure in the last
        // quarter.
        if rng.gen_ratio(1, 60) || (out.moves == 0 && sent >= 3 * lookups / 4) {
            // Its lookups count in the `lookups` per port.
            sent += move_phase(&mut bench, &mut rng, &mut out, lookups - sent)?;
        }
        if !filled && sent >= lookups / 2 {
            filled = true;
            if state_in_memory {
                // An ALLOC whose block is in an error range answers MEM_ERROR (and the next
                // one picks the same block): the table fills without errors.
                bench.mem_clear_errors();
            }
            fill_the_table(&mut bench, &mut rng, &mut known, &mut out)?;
        }
        let batch = rng.gen_range(1..200).min(lookups - sent);
        for p in 0..ports {
            for _ in 0..batch {
                let qpn = match rng.gen_range(0..10) {
                    0..=5 if !known.is_empty() => known[rng.gen_range(0..known.len())],
                    6 if !known.is_empty() => {
                        // Another generation of a known index.
                        known[rng.gen_range(0..known.len())] ^ (rng.gen::<u32>() & !index_mask)
                    }
                    _ => random_qpn(&mut rng, cfg),
                };
                bench.lookup(p, qpn, rng.gen());
            }
        }
        sent += batch;
        // Let part of the batch flow, then a command while the rest is in flight.
        bench.run_cycles(rng.gen_range(0..batch + 1))?;
        // A base register written at a random moment (refused while QPs are in use).
        if rng.gen_ratio(1, 25) {
            let addr = match rng.gen_range(0..4) {
                0 if state_in_memory => regs::STATE_BASE_LO,
                1 if state_in_memory => regs::STATE_BASE_HI,
                2 => regs::TABLE_BASE_HI,
                _ => regs::TABLE_BASE_LO,
            };
            let table_base = bench.sb.model.table_base();
            write_base(&mut bench, &mut rng, &mut out, addr)?;
            if in_memory && bench.sb.model.table_base() != table_base {
                rewrite_mem_directory(&mut bench, &mut rng);
            }
        }
        let cmd = match rng.gen_range(0..20) {
            0..=6 => Command::Alloc,
            7..=9 if !known.is_empty() => Command::Publish(known[rng.gen_range(0..known.len())]),
            10..=12 if !known.is_empty() => Command::Free(known[rng.gen_range(0..known.len())]),
            13 => Command::AllocAt(random_qpn(&mut rng, cfg)),
            14 if !known.is_empty() => Command::AllocAt(
                known[rng.gen_range(0..known.len())] ^ (rng.gen::<u32>() & !index_mask),
            ),
            15 => Command::Free(random_qpn(&mut rng, cfg)),
            16 => Command::Publish(random_qpn(&mut rng, cfg)),
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
                    // And the entry of a live QPN, so that lookups keep meeting MEM_ERROR
                    // (entries 0..4 alone may never be looked up again).
                    if !known.is_empty() {
                        let q = known[rng.gen_range(0..known.len())];
                        let a = bench
                            .sb
                            .model
                            .mem_dir_address((q & index_mask) >> cfg.leaf_bits);
                        bench.mem_add_error(a..a + 8);
                    }
                }
                Command::DirFlush
            }
            17 | 19 if state_in_memory => {
                // The blocks of a few live QPNs (and of a random index) answer SLVERR for a
                // while: lookups that miss on them and commands on them answer MEM_ERROR.
                bench.mem_clear_errors();
                if rng.gen_bool(0.6) {
                    for _ in 0..rng.gen_range(1..4) {
                        let index = if !known.is_empty() && rng.gen_bool(0.8) {
                            known[rng.gen_range(0..known.len())] & index_mask
                        } else {
                            rng.gen_range(0..cfg.max_qps())
                        };
                        let r = bench.sb.model.state_block_range(index);
                        bench.mem_add_error(r);
                    }
                }
                Command::DirFlush
            }
            17 => Command::DirFlush,
            18 => {
                // An opcode that names no command (BAD_CMD): 0, or past the last one.
                let op = match rng.gen_range(0..=15 - opcode::LAST) {
                    0 => 0,
                    k => opcode::LAST + k,
                };
                Command::Raw(op, rng.gen::<u32>() & qptable::spec::QPN_MASK)
            }
            _ => Command::Alloc,
        };
        let r = counted_command(&mut bench, &mut out, cmd)?;
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
                    counted_command(&mut bench, &mut out, Command::Publish(qpn))?;
                }
            }
        }
        if known.len() > 4 * cfg.max_qps() as usize {
            known.drain(..known.len() / 2);
        }
    }
    bench.drain(1_000_000)?;
    out.cycles = bench.sim.cycle() - start;
    if state_in_memory {
        out.state_writes += check_state_writes(&mut bench)?;
        if out.state_writes == 0 {
            bail!("state in memory: the engine wrote nothing");
        }
        println!(
            "  {} state table writes, each inside the state table of its time",
            out.state_writes
        );
        let [kept, mem_error] = bench.sb.either_outcomes();
        println!(
            "  {} commands SPEC §9 lets answer MEM_ERROR (a read in an error range) or not \
             (the block's words from the cache): {mem_error} answered MEM_ERROR, {kept} not",
            kept + mem_error
        );
    }
    println!(
        "  {} moves of the bases; base writes at random moments: {} accepted, {} refused",
        out.moves, out.base_writes_ok, out.base_writes_refused
    );
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
    out.check_coverage(cfg)?;
    Ok(out)
}

/// Lookups per port of the state-in-memory part of `directed_phase` (the VALID index, then
/// other indexes of its block).
const BLOCK_LOOKUPS: u64 = 4;
/// Lookups per port of `directed_phase`, at most: one of the VALID index with its page
/// absent, one with its directory entry's read failing (directory in memory), then
/// [`BLOCK_LOOKUPS`].
const DIRECTED_LOOKUPS: u64 = 2 + BLOCK_LOOKUPS;

/// Statuses and results that random stimulus produces only by chance, produced on purpose
/// (the campaign's coverage check then holds for every seed, not only for lucky ones):
///
/// - two_level: PAGE_ABSENT. The directory entry of a VALID index's page is written absent
///   (through DIR_* on chip, into the memory with the directory in memory, whose error ranges
///   are cleared first), the index is looked up on every port, and the entry is written present
///   again (at a new base). Directory in memory: MEM_ERROR too, from an error range over that
///   entry while the index is looked up on every port.
/// - state in memory: lookup and command MEM_ERROR. An error range is set over the block of a
///   VALID index; a FREE of that index (its checks pass) must write the index's word, which
///   fails, so the FREE answers MEM_ERROR and changes nothing (SPEC §9), whatever it read. The
///   block stays live; lookups of it on every port may miss, read it and answer MEM_ERROR (a
///   fill answered with an error caches nothing), and one at least must (every command on a
///   block invalidates its line in every port: `docs/state_in_memory.md`, "Built"). Then the
///   error range is cleared.
///
/// Every answer is still checked against the model by the scoreboard; this only chooses the
/// stimulus. An error if the phase did not produce what it is built to produce. Returns the
/// lookups it sent on each port (at most [`DIRECTED_LOOKUPS`]).
fn directed_phase(
    bench: &mut Bench,
    rng: &mut ChaCha8Rng,
    known: &mut Vec<u32>,
    out: &mut Outcome,
) -> Result<u64> {
    let cfg = bench.cfg.clone();
    let on_chip = cfg.mode == Mode::TwoLevel && cfg.directory == Directory::OnChip;
    let dir_in_memory = cfg.mode == Mode::TwoLevel && cfg.directory == Directory::InMemory;
    let state_in_memory = cfg.state == State::InMemory;
    let ports = cfg.ports.len();
    if state_in_memory || dir_in_memory {
        // No error range left from the random phase may change the answers below.
        bench.mem_clear_errors();
    }
    // Nothing of the random phase in flight: what the checks below count is this phase's.
    bench.drain(1_000_000)?;
    let Some(qpn) = valid_qpn(bench, rng, known, out)? else {
        // Every ALLOC answered FULL: nothing VALID to work on (not with these campaigns'
        // tables, which are never full a quarter of the way in).
        bail!("directed phase: no VALID index and ALLOC answered FULL");
    };
    let (index, _) = bench.sb.model.split_qpn(qpn);
    let mut sent = 0;
    let counts =
        |b: &Bench, s: Status| -> u64 { (0..ports).map(|p| b.status_counts(p)[s as usize]).sum() };
    if on_chip || dir_in_memory {
        let page = index >> cfg.leaf_bits;
        let before = counts(bench, Status::PageAbsent);
        let entry = |present: bool, rng: &mut ChaCha8Rng| {
            (rng.gen::<u64>() & !0x3F) | (rng.gen::<u64>() & 0x3E) | u64::from(present)
        };
        if on_chip {
            write_dir_entry_present(bench, rng, page, false)?;
        } else {
            let e = entry(false, rng);
            bench.mem_write_dir(page, e);
        }
        for p in 0..ports {
            bench.lookup(p, qpn, rng.gen());
        }
        sent += 1;
        bench.drain(1_000_000)?;
        if on_chip {
            write_dir_entry_present(bench, rng, page, true)?;
        } else {
            let e = entry(true, rng);
            bench.mem_write_dir(page, e);
        }
        if counts(bench, Status::PageAbsent) == before {
            bail!(
                "directed phase: no lookup of {qpn:#08x} answered PAGE_ABSENT with its page absent"
            );
        }
        if dir_in_memory {
            // The entry's read answers SLVERR: MEM_ERROR on every port.
            let before = counts(bench, Status::MemError);
            let a = bench.sb.model.mem_dir_address(page);
            bench.mem_add_error(a..a + 8);
            for p in 0..ports {
                bench.lookup(p, qpn, rng.gen());
            }
            sent += 1;
            bench.drain(1_000_000)?;
            bench.mem_clear_errors();
            if counts(bench, Status::MemError) == before {
                bail!(
                    "directed phase: no lookup of {qpn:#08x} answered MEM_ERROR with its \
                     directory entry in an error range"
                );
            }
        }
    }
    if state_in_memory {
        let before = counts(bench, Status::MemError);
        let block = bench.sb.model.state_block_range(index);
        bench.mem_add_error(block);
        counted_command(bench, out, Command::Free(qpn))?;
        let predicted = bench.sb.model.last_result().status;
        if predicted != CmdStatus::MemError {
            bail!(
                "directed phase: the model predicts {predicted} for FREE {qpn:#08x} with its \
                 block in an error range, not MEM_ERROR"
            );
        }
        // The index itself and other indexes of its block (any generation).
        let bb = cfg.block_bits;
        let first = index >> bb << bb;
        let last = (first + (1 << bb)).min(cfg.max_qps()) - 1;
        let gen_mask = !((1u32 << cfg.index_bits) - 1) & qptable::spec::QPN_MASK;
        for p in 0..ports {
            bench.lookup(p, qpn, rng.gen());
            for _ in 1..BLOCK_LOOKUPS {
                let i = rng.gen_range(first..=last);
                bench.lookup(p, i | rng.gen::<u32>() & gen_mask, rng.gen());
            }
        }
        sent += BLOCK_LOOKUPS;
        bench.drain(1_000_000)?;
        bench.mem_clear_errors();
        if counts(bench, Status::MemError) == before {
            bail!(
                "directed phase: no lookup of the block of {qpn:#08x} answered MEM_ERROR with \
                 the block in an error range"
            );
        }
    }
    Ok(sent)
}

/// A VALID QPN (index and current generation) from `known`, looked up in the model from a
/// random start; if none, one made by ALLOC and PUBLISH. `None` if ALLOC answers FULL.
fn valid_qpn(
    bench: &mut Bench,
    rng: &mut ChaCha8Rng,
    known: &mut Vec<u32>,
    out: &mut Outcome,
) -> Result<Option<u32>> {
    let model = &bench.sb.model;
    let max_qps = bench.cfg.max_qps();
    let start = if known.is_empty() {
        0
    } else {
        rng.gen_range(0..known.len())
    };
    let found = known[start..].iter().chain(&known[..start]).find_map(|&q| {
        let (index, _) = model.split_qpn(q);
        (index < max_qps).then(|| model.entry(index)).and_then(|e| {
            (e.state == EntryState::Valid).then(|| model.make_qpn(index, e.generation))
        })
    });
    if found.is_some() {
        return Ok(found);
    }
    let r = counted_command(bench, out, Command::Alloc)?;
    if r.status != CmdStatus::Ok {
        return Ok(None);
    }
    known.push(r.qpn);
    let r = counted_command(bench, out, Command::Publish(r.qpn))?;
    if r.status != CmdStatus::Ok {
        bail!(
            "directed phase: PUBLISH {:#08x} after its ALLOC answered {}",
            r.qpn,
            r.status
        );
    }
    Ok(Some(r.qpn))
}

/// Runs `cmd` ([`Bench::command`]) and counts its result in `out`.
fn counted_command(bench: &mut Bench, out: &mut Outcome, cmd: Command) -> Result<CmdResult> {
    let r = bench.command(cmd)?;
    out.commands += 1;
    out.cmd_counts[r.status as usize] += 1;
    Ok(r)
}

/// State in memory: the bus words that hold the state table, as (first byte, bytes) (a block
/// narrower than the bus is written in its bus word, with strobes on its own bytes only).
fn state_table_bus_words(bench: &Bench) -> (u64, u64) {
    let bus = u64::from(bench.cfg.mem_data_bits / 8);
    let start = bench.sb.model.state_table_start();
    let bytes = bench.sb.model.state_bytes();
    let words_start = start & !(bus - 1);
    (
        words_start,
        (start - words_start + bytes).div_ceil(bus) * bus,
    )
}

/// State in memory: the address ranges of [`state_table_bus_words`], modulo 2^addr_bits (two
/// ranges where the table wraps around the top of the address space).
fn state_table_words(bench: &Bench) -> Vec<std::ops::Range<u64>> {
    let (words_start, words_bytes) = state_table_bus_words(bench);
    let top = 1u128 << bench.cfg.addr_bits;
    let end = u128::from(words_start) + u128::from(words_bytes);
    if end <= top {
        let words = words_start..end as u64;
        vec![words]
    } else {
        // (At addr_bits 64 the top byte stays out: a Range<u64> cannot end at 2^64.)
        vec![
            words_start..u64::try_from(top).unwrap_or(u64::MAX),
            0..(end - top) as u64,
        ]
    }
}

/// State in memory: every write of the engine since the last check stayed inside [STATE_BASE,
/// STATE_BASE + STATE_BYTES) (SPEC §9), modulo 2^addr_bits; returns how many there were. Called
/// before each write of STATE_BASE (a write is over before its command's response, so none
/// is in flight then) and at the end.
fn check_state_writes(bench: &mut Bench) -> Result<u64> {
    let start = bench.sb.model.state_table_start();
    let bytes = bench.sb.model.state_bytes();
    let (words_start, words_bytes) = state_table_bus_words(bench);
    let mask = u64::MAX >> (64 - bench.cfg.addr_bits);
    let Some(m) = bench.mem.as_mut() else {
        bail!("state in memory without a memory model");
    };
    let bus = m.bus_bytes();
    let log = m.take_aw_log();
    for w in &log {
        let len = w.beats() * bus;
        let off = w.addr.wrapping_sub(words_start) & mask;
        if off + len > words_bytes {
            bail!(
                "state in memory: write of {len} bytes at {:#x} outside the state table \
                 [{start:#x}, +{bytes:#x})",
                w.addr
            );
        }
    }
    Ok(log.len() as u64)
}

/// Writes the base register `addr` (TABLE_BASE_LO/HI, STATE_BASE_LO/HI) with a random value,
/// whatever the engine's state: the scoreboard applies it to the model at its handshake and
/// checks the response (SPEC §6, §9: refused while QPs are in use; STATE_BASE also while an
/// index is quarantined). State in memory: the engine's writes so far are checked against
/// the table they were made in, and a new state table's area holds fresh junk.
fn write_base(bench: &mut Bench, rng: &mut ChaCha8Rng, out: &mut Outcome, addr: u32) -> Result<()> {
    let state_base = addr == regs::STATE_BASE_LO || addr == regs::STATE_BASE_HI;
    if state_base {
        out.state_writes += check_state_writes(bench)?;
    }
    // A random value with every strobe; now and then the value the register holds (SPEC §9:
    // a write of STATE_BASE starts a new table even so) or a write with no strobe.
    let resp = match rng.gen_range(0..8) {
        0 => {
            let held = bench.sb.model.read_register(addr).unwrap_or(0);
            bench.write(addr, held)?
        }
        1 => bench.write_strb(addr, rng.gen(), 0)?,
        _ => bench.write(addr, rng.gen())?,
    };
    if resp == qptable_sim::AxiResp::Okay {
        out.base_writes_ok += 1;
    } else {
        out.base_writes_refused += 1;
    }
    if state_base && resp == qptable_sim::AxiResp::Okay {
        // A new table, whatever the value: what memory holds before the engine writes it is
        // junk, never zeros (lazy initialisation must not read a block never written, nor
        // take its bytes for FREE), also where the old table was.
        let junk = state_table_words(bench);
        let seed = rng.gen();
        if let Some(m) = bench.mem.as_mut() {
            m.mem_mut().set_junk(junk, seed);
        }
    }
    Ok(())
}

/// two_level in_memory: the directory written again at TABLE_BASE (after it may have moved).
fn rewrite_mem_directory(bench: &mut Bench, rng: &mut ChaCha8Rng) {
    for i in 0..bench.sb.model.dir_entries().min(4096) {
        write_mem_dir_entry(bench, rng, i);
    }
}

/// A move of the bases: every QP freed (memory errors cleared first, so that each FREE
/// succeeds), a STATE_BASE write tried while the quarantine still holds indexes (refused),
/// the quarantine emptied (its time run out, one release per command), then TABLE_BASE and,
/// with the state in memory, STATE_BASE written with random values while lookups of the
/// freed QPNs and random ones are in flight; with the directory in memory, the directory is
/// written again at the new TABLE_BASE. The scoreboard checks every response against the
/// model, which starts a new state table at the move (SPEC §9). Returns the lookups it sent on
/// each port (at most `budget`).
fn move_phase(
    bench: &mut Bench,
    rng: &mut ChaCha8Rng,
    out: &mut Outcome,
    budget: u64,
) -> Result<u64> {
    let cfg = bench.cfg.clone();
    let state_in_memory = cfg.state == State::InMemory;
    let dir_in_memory = cfg.mode == Mode::TwoLevel && cfg.directory == Directory::InMemory;
    bench.mem_clear_errors();
    let in_use: Vec<u32> = (0..cfg.max_qps())
        .filter_map(|i| {
            let e = bench.sb.model.entry(i);
            (e.state != EntryState::Free).then(|| bench.sb.model.make_qpn(i, e.generation))
        })
        .collect();
    let mut freed = Vec::new();
    for qpn in in_use {
        let r = counted_command(bench, out, Command::Free(qpn))?;
        if r.status != CmdStatus::Ok {
            bail!("move: FREE of {qpn:#08x} answered {:?}", r.status);
        }
        freed.push(qpn);
    }
    let quarantined = |b: &Bench| b.sb.model.read_register(regs::QUARANTINED).unwrap_or(0);
    if state_in_memory && quarantined(bench) > 0 {
        write_base(bench, rng, out, regs::STATE_BASE_LO)?;
    }
    if quarantined(bench) > 0 {
        bench.run_cycles(cfg.quarantine_cycles + 1)?;
        for _ in 0..=cfg.quarantine_depth {
            if quarantined(bench) == 0 {
                break;
            }
            counted_command(bench, out, Command::DirFlush)?;
        }
    }
    let in_flight = rng.gen_range(0..16).min(budget);
    for p in 0..cfg.ports.len() {
        for _ in 0..in_flight {
            let qpn = if !freed.is_empty() && rng.gen_bool(0.7) {
                freed[rng.gen_range(0..freed.len())]
            } else {
                random_qpn(rng, &cfg)
            };
            bench.lookup(p, qpn, rng.gen());
        }
    }
    let mut addrs = vec![regs::TABLE_BASE_LO, regs::TABLE_BASE_HI];
    if state_in_memory {
        addrs.extend([regs::STATE_BASE_LO, regs::STATE_BASE_HI]);
    }
    for addr in addrs {
        write_base(bench, rng, out, addr)?;
    }
    if dir_in_memory {
        rewrite_mem_directory(bench, rng);
    }
    out.moves += 1;
    Ok(in_flight)
}

/// ALLOC until FULL (while the lookups of the last batch are still in flight), most new QPs
/// published; then about half of them freed, so that the rest of the campaign allocates
/// again.
fn fill_the_table(
    bench: &mut Bench,
    rng: &mut ChaCha8Rng,
    known: &mut Vec<u32>,
    out: &mut Outcome,
) -> Result<()> {
    let limit = bench.cfg.max_qps() + 1;
    let mut taken = Vec::new();
    for _ in 0..limit {
        let r = counted_command(bench, out, Command::Alloc)?;
        if r.status != CmdStatus::Ok {
            break;
        }
        taken.push(r.qpn);
        if rng.gen_bool(0.7) {
            counted_command(bench, out, Command::Publish(r.qpn))?;
        }
    }
    for &qpn in &taken {
        if rng.gen_bool(0.5) {
            counted_command(bench, out, Command::Free(qpn))?;
        } else {
            known.push(qpn);
        }
    }
    Ok(())
}

/// A random QPN: any 24-bit value, or (one in four) an index at the edges of the table (around
/// `first_index`, around `max_qps`, the last of the index field) with a random generation, so
/// that OUT_OF_RANGE is produced often when the index field reaches past `max_qps`.
fn random_qpn(rng: &mut ChaCha8Rng, cfg: &Config) -> u32 {
    if rng.gen_bool(0.75) {
        return rng.gen::<u32>() & qptable::spec::QPN_MASK;
    }
    let field = 1u32 << cfg.index_bits;
    let index = match rng.gen_range(0..3) {
        0 => cfg.first_index.saturating_sub(1) + rng.gen_range(0..3),
        1 => cfg.max_qps().saturating_sub(2) + rng.gen_range(0..4),
        _ => field - 1,
    }
    .min(field - 1);
    (rng.gen::<u32>() << cfg.index_bits | index) & qptable::spec::QPN_MASK
}

/// Writes directory entry `i` through DIR_INDEX / DIR_ENTRY_LO / DIR_ENTRY_HI: present with
/// probability 0.8, a random 64-byte aligned page base, random reserved bits.
fn write_dir_entry(bench: &mut Bench, rng: &mut ChaCha8Rng, i: u32) -> Result<()> {
    let present = rng.gen_bool(0.8);
    write_dir_entry_present(bench, rng, i, present)
}

/// [`write_dir_entry`] with the present bit given.
fn write_dir_entry_present(
    bench: &mut Bench,
    rng: &mut ChaCha8Rng,
    i: u32,
    present: bool,
) -> Result<()> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::configs::config;

    #[test]
    fn reachable_follows_the_configuration() {
        use CmdStatus as C;
        use Status as S;
        // Default: 2^14 indexes = max_qps, 10 generation bits, flat, fillable.
        let (s, c) = reachable(&config(&[]));
        assert_eq!(s, [S::Ok, S::NotAllocated, S::Stale]);
        assert_eq!(c, [C::Ok, C::Full, C::BadState, C::BadCmd]);
        // Past the table, two_level in memory: every status and result.
        let (s, c) = reachable(&config(&[
            "mode=two_level",
            "directory=in_memory",
            "index_bits=10",
            "leaf_bits=4",
            "max_qps=1000",
        ]));
        assert_eq!(s, Status::ALL);
        assert_eq!(c, [C::Ok, C::Full, C::OutOfRange, C::BadState, C::BadCmd]);
        // 24 index bits: no generation (no STALE), too large to fill (no FULL).
        let (s, c) = reachable(&config(&["index_bits=24"]));
        assert_eq!(s, [S::Ok, S::NotAllocated]);
        assert_eq!(c, [C::Ok, C::BadState, C::BadCmd]);
        // two_level on chip: PAGE_ABSENT, not MEM_ERROR.
        let (s, _) = reachable(&config(&["mode=two_level", "index_bits=12", "leaf_bits=6"]));
        assert!(s.contains(&S::PageAbsent) && !s.contains(&S::MemError));
    }
}
