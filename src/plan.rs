//! `qptable plan`: a capacity planner. Given a table size, a context size, a number of live
//! QPs and a churn pattern, it places the QPs with the reference model's own allocator and
//! prints what each table organisation costs: host memory (a flat table reserves all of it; a
//! two-level table a directory plus the second-level pages its live indexes touch) and on-chip
//! bits.
//!
//! Placement: `live` ALLOCs, then `churn` rounds of (FREE a live QP picked uniformly with a
//! seeded [`ChaCha8Rng`], ALLOC). Commands are written `cmd_interval` edges apart (the clock a
//! quarantine counts by); an ALLOC answered FULL (every free index quarantined) is written again
//! at the next slot. The live indexes are then counted per page of `2^leaf_bits` indexes.
//!
//! | figure | formula |
//! |---|---|
//! | flat table | `max_qps * entry_bytes` |
//! | directory | `ceil(max_qps / 2^leaf_bits)` entries of 8 bytes (in memory) or of 64 bits per copy (on chip) |
//! | pages | pages holding at least one live index `* 2^leaf_bits * entry_bytes` |
//! | state RAM | `(2 + gen_bits) * max_qps` bits, one copy per lookup port + one for the command engine |
//! | free map | `sum(level_words(max_qps)) * 64` bits |
//! | quarantine queue | `quarantine_depth * 72` bits (48-bit time + 24-bit index), when `quarantine_cycles > 0` |
//!
//! The on-chip figures come from [`crate::generate::on_chip_memory`] (what `qptable gen`
//! reports) for every configuration the generator accepts, two_level included. Where it
//! refuses a two_level configuration of the plan, the directory is the estimate above (one
//! on-chip copy) and the row says "planned".

use crate::config::{Config, Directory, Mode, Reuse};
use crate::model::{CmdStatus, Command, Model};
use anyhow::{bail, ensure, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt::Write as _;

/// Inputs of a plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanParams {
    pub max_qps: u32,
    /// `None`: the fewest bits that hold `max_qps` (at least 4).
    pub index_bits: Option<u32>,
    pub entry_bytes: u32,
    pub live: u32,
    /// Rounds of (FREE a random live QP, ALLOC) after the initial fill.
    pub churn: u64,
    pub leaf_bits: Vec<u32>,
    /// One placement per policy.
    pub reuse: Vec<Reuse>,
    pub first_index: u32,
    /// Lookup ports.
    pub ports: u32,
    pub quarantine_cycles: u64,
    pub quarantine_depth: u32,
    /// Edges between two commands.
    pub cmd_interval: u64,
    pub seed: u64,
}

impl Default for PlanParams {
    /// The example of the issue: 2^24 QPs of 256 bytes, 262144 of them live.
    fn default() -> Self {
        PlanParams {
            max_qps: 1 << 24,
            index_bits: None,
            entry_bytes: 256,
            live: 262_144,
            churn: 0,
            leaf_bits: vec![8, 10, 12, 14],
            reuse: vec![Reuse::Cyclic, Reuse::Lowest],
            first_index: 2,
            ports: 2,
            quarantine_cycles: 0,
            quarantine_depth: 64,
            cmd_interval: 64,
            seed: 1,
        }
    }
}

impl PlanParams {
    /// The page sizes compared when none are given: 8, 10, 12 and 14 index bits, those that
    /// leave a directory of at least two entries (`< index_bits`); for a table of 8 index bits
    /// or fewer, pages of half the index bits.
    pub fn default_leaf_bits(index_bits: u32) -> Vec<u32> {
        let v: Vec<u32> = [8, 10, 12, 14]
            .into_iter()
            .filter(|&l| l < index_bits)
            .collect();
        if v.is_empty() {
            vec![(index_bits / 2).max(1)]
        } else {
            v
        }
    }

    /// `index_bits`, or the fewest bits that hold `max_qps` (at least 4).
    pub fn index_bits(&self) -> u32 {
        self.index_bits.unwrap_or_else(|| {
            let bits = 32 - self.max_qps.saturating_sub(1).leading_zeros();
            bits.max(4)
        })
    }

    /// The flat engine configuration, validated (errors name the parameter).
    pub fn config(&self) -> Result<Config> {
        let mut cfg = Config {
            index_bits: self.index_bits(),
            max_qps: Some(self.max_qps),
            entry_bytes: self.entry_bytes,
            first_index: self.first_index,
            reuse: self.reuse.first().copied().unwrap_or(Reuse::Cyclic),
            quarantine_cycles: self.quarantine_cycles,
            quarantine_depth: self.quarantine_depth,
            ..Config::default()
        };
        cfg.ports = (0..self.ports).map(|p| format!("p{p}")).collect();
        cfg.validate()?;
        let room = self.max_qps - self.first_index;
        ensure!(
            self.live <= room,
            "live = {} is out of range: allowed 0..={room} (max_qps - first_index)",
            self.live
        );
        for &l in &self.leaf_bits {
            ensure!(
                (1..cfg.index_bits).contains(&l),
                "leaf_bits = {l} is out of range: allowed 1..={}",
                cfg.index_bits - 1
            );
        }
        ensure!(!self.reuse.is_empty(), "reuse: give at least one policy");
        ensure!(
            self.cmd_interval >= 1,
            "cmd_interval = 0 is out of range: allowed >= 1"
        );
        Ok(cfg)
    }
}

/// Where a figure comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// [`crate::generate::on_chip_memory`] of a configuration the generator accepts.
    Generated,
    /// The estimate of the module documentation: the generator does not accept it yet.
    Planned,
}

/// On-chip bits of the flat engine, structure by structure (name, bits).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OnChip {
    pub structures: Vec<(String, u64)>,
}

impl OnChip {
    pub fn total(&self) -> u64 {
        self.structures.iter().map(|(_, b)| b).sum()
    }
}

/// One two-level choice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leaf {
    pub leaf_bits: u32,
    /// `ceil(max_qps / 2^leaf_bits)`.
    pub directory_entries: u64,
    /// `directory_entries * 8`: the directory in memory.
    pub directory_bytes: u64,
    /// Pages holding at least one live index.
    pub pages_touched: u64,
    /// `ceil(live / 2^leaf_bits)`: the fewest pages the live QPs could fit in.
    pub pages_needed: u64,
    /// `2^leaf_bits * entry_bytes`.
    pub page_bytes: u64,
    /// On-chip bits with the directory on chip (the flat engine's plus the directory).
    pub on_chip_bits: u64,
    pub on_chip_source: Source,
}

impl Leaf {
    /// Memory of the pages touched.
    pub fn pages_bytes(&self) -> u64 {
        self.pages_touched * self.page_bytes
    }
}

/// The live QPs as one reuse policy placed them.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    pub reuse: Reuse,
    pub allocs: u64,
    pub frees: u64,
    /// ALLOCs answered FULL (written again).
    pub full: u64,
    /// Lowest and highest live index.
    pub span: Option<(u32, u32)>,
    pub leaves: Vec<Leaf>,
    /// Wall time of the placement on the reference model.
    pub seconds: f64,
}

/// A whole plan.
#[derive(Clone, Debug)]
pub struct PlanReport {
    pub params: PlanParams,
    pub gen_bits: u32,
    /// `max_qps * entry_bytes`.
    pub flat_bytes: u64,
    pub on_chip: OnChip,
    pub placements: Vec<Placement>,
}

/// The planned on-chip directory: one copy of `entries` 64-bit entries.
pub fn planned_directory_bits(entries: u64) -> u64 {
    entries * 64
}

/// On-chip bits of a two-level engine with the directory on chip, and where they come from.
fn two_level_bits(flat: &Config, base: u64, leaf_bits: u32, entries: u64) -> (u64, Source) {
    let cfg = Config {
        mode: Mode::TwoLevel,
        directory: Directory::OnChip,
        leaf_bits,
        ..flat.clone()
    };
    if cfg.validate().is_ok() {
        let bits = crate::generate::on_chip_memory(&cfg)
            .iter()
            .map(|(_, words, width)| words * width)
            .sum();
        (bits, Source::Generated)
    } else {
        (base + planned_directory_bits(entries), Source::Planned)
    }
}

/// Places the QPs with one policy and returns the live indexes.
fn place(p: &PlanParams, cfg: &Config, reuse: Reuse) -> Result<(Vec<u32>, u64, u64, u64)> {
    let cfg = Config {
        reuse,
        ..cfg.clone()
    };
    let mut model = Model::new(&cfg);
    let mut rng = ChaCha8Rng::seed_from_u64(p.seed);
    let mut now = 0u64;
    let (mut allocs, mut frees, mut full) = (0, 0, 0);
    let mut live: Vec<u32> = Vec::with_capacity(p.live as usize);
    let mut alloc = |model: &mut Model, now: &mut u64, live: &mut Vec<u32>| -> Result<()> {
        // A FULL (only with a quarantine) is written again until an index is released.
        let limit = p.quarantine_cycles / p.cmd_interval + 2;
        for _ in 0..limit {
            *now += p.cmd_interval;
            let (r, _) = model.command_at(Command::Alloc, *now);
            match r.status {
                CmdStatus::Ok => {
                    allocs += 1;
                    live.push(r.qpn);
                    return Ok(());
                }
                CmdStatus::Full => full += 1,
                _ => bail!("ALLOC answered {r}"),
            }
        }
        bail!("ALLOC answered FULL {limit} times in a row")
    };
    for _ in 0..p.live {
        alloc(&mut model, &mut now, &mut live)?;
    }
    for _ in 0..p.churn {
        if live.is_empty() {
            break;
        }
        let qpn = live.swap_remove(rng.gen_range(0..live.len()));
        now += p.cmd_interval;
        let (r, _) = model.command_at(Command::Free(qpn), now);
        ensure!(r.status == CmdStatus::Ok, "FREE {qpn:#08x} answered {r}");
        frees += 1;
        alloc(&mut model, &mut now, &mut live)?;
    }
    let mask = (1u32 << cfg.index_bits) - 1;
    let indexes = live.iter().map(|q| q & mask).collect();
    Ok((indexes, allocs, frees, full))
}

/// Runs the placements and computes every figure.
pub fn plan(p: &PlanParams) -> Result<PlanReport> {
    let cfg = p.config()?;
    let on_chip = OnChip {
        structures: crate::generate::on_chip_memory(&cfg)
            .into_iter()
            .map(|(name, words, width)| (name, words * width))
            .collect(),
    };
    let base = on_chip.total();
    let mut placements = Vec::new();
    for &reuse in &p.reuse {
        let start = std::time::Instant::now();
        let (indexes, allocs, frees, full) = place(p, &cfg, reuse)?;
        let seconds = start.elapsed().as_secs_f64();
        let span = indexes
            .iter()
            .min()
            .zip(indexes.iter().max())
            .map(|(a, b)| (*a, *b));
        let mut leaves = Vec::new();
        for &l in &p.leaf_bits {
            let entries = u64::from(p.max_qps.div_ceil(1 << l));
            let mut touched = vec![false; entries as usize];
            for &i in &indexes {
                touched[(i >> l) as usize] = true;
            }
            let (on_chip_bits, on_chip_source) = two_level_bits(&cfg, base, l, entries);
            leaves.push(Leaf {
                leaf_bits: l,
                directory_entries: entries,
                directory_bytes: entries * 8,
                pages_touched: touched.iter().filter(|&&t| t).count() as u64,
                pages_needed: u64::from(p.live).div_ceil(1 << l),
                page_bytes: (1u64 << l) * u64::from(p.entry_bytes),
                on_chip_bits,
                on_chip_source,
            });
        }
        placements.push(Placement {
            reuse,
            allocs,
            frees,
            full,
            span,
            leaves,
            seconds,
        });
    }
    Ok(PlanReport {
        params: p.clone(),
        gen_bits: cfg.gen_bits(),
        flat_bytes: u64::from(p.max_qps) * u64::from(p.entry_bytes),
        on_chip,
        placements,
    })
}

/// Bytes with a binary unit: `4 GiB`, `65 MiB`, `32 KiB`, `1.50 MiB`, `96 B`.
pub fn bytes(n: u64) -> String {
    for (unit, size) in [("GiB", 1u64 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] {
        if n >= size {
            return if n.is_multiple_of(size) {
                format!("{} {unit}", n / size)
            } else {
                format!("{:.2} {unit}", n as f64 / size as f64)
            };
        }
    }
    format!("{n} B")
}

/// Bits, with their size in bytes.
pub fn bits(n: u64) -> String {
    format!("{n} ({})", bytes(n.div_ceil(8)))
}

/// The report as text (markdown tables).
pub fn format(r: &PlanReport) -> String {
    let p = &r.params;
    let mut s = String::new();
    let quarantine = if p.quarantine_cycles == 0 {
        "off".to_string()
    } else {
        format!(
            "{} cycles (depth {}, a command every {} edges)",
            p.quarantine_cycles, p.quarantine_depth, p.cmd_interval
        )
    };
    let _ = writeln!(
        s,
        "qptable plan: max_qps {} (index_bits {}, {} generation bits), entry_bytes {}, {} live \
         QPs, churn {} rounds (FREE a random live QP, then ALLOC), {}, quarantine \
         {quarantine}, seed {}\n",
        p.max_qps,
        p.index_bits(),
        r.gen_bits,
        p.entry_bytes,
        p.live,
        p.churn,
        crate::generate::count(p.ports, "lookup port"),
        p.seed
    );
    let _ = writeln!(
        s,
        "On-chip bits of the engine (flat; two_level adds its directory):\n"
    );
    s.push_str("| structure | bits |\n|---|---:|\n");
    for (name, b) in &r.on_chip.structures {
        let _ = writeln!(s, "| {name} | {} |", bits(*b));
    }
    let _ = writeln!(s, "| total | {} |", bits(r.on_chip.total()));
    for pl in &r.placements {
        let span = match pl.span {
            Some((a, b)) => format!("live indexes {a}..={b}"),
            None => "no live index".to_string(),
        };
        let _ = writeln!(
            s,
            "\nreuse {}: {} ALLOC ({} FULL) + {} FREE on the reference model in {:.2} s; {span}\n",
            pl.reuse.as_str(),
            pl.allocs,
            pl.full,
            pl.frees,
            pl.seconds
        );
        s.push_str(
            "| layout | leaf_bits | directory entries | pages touched (fewest possible) | page \
             | memory, directory in memory | memory, directory on chip | on-chip bits, directory \
             on chip |\n|---|---:|---:|---:|---:|---:|---:|---:|\n",
        );
        let _ = writeln!(
            s,
            "| flat | - | - | - | - | {} | - | {} |",
            bytes(r.flat_bytes),
            bits(r.on_chip.total())
        );
        for l in &pl.leaves {
            let status = match l.on_chip_source {
                Source::Generated => "",
                Source::Planned => " (planned)",
            };
            let _ = writeln!(
                s,
                "| two_level{status} | {} | {} | {} ({}) | {} | {} | {} | {} |",
                l.leaf_bits,
                l.directory_entries,
                l.pages_touched,
                l.pages_needed,
                bytes(l.page_bytes),
                bytes(l.directory_bytes + l.pages_bytes()),
                bytes(l.pages_bytes()),
                bits(l.on_chip_bits)
            );
        }
    }
    if r.placements
        .iter()
        .flat_map(|pl| &pl.leaves)
        .any(|l| l.on_chip_source == Source::Planned)
    {
        s.push_str(
            "\n(planned): the generator refuses this two_level configuration, so its on-chip bits \
             are an estimate: the flat engine's plus one copy of the directory, \
             ceil(max_qps / 2^leaf_bits) x 64 bits.\n",
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny(reuse: Reuse, live: u32, churn: u64) -> PlanParams {
        PlanParams {
            max_qps: 64,
            index_bits: None,
            entry_bytes: 32,
            live,
            churn,
            leaf_bits: vec![2, 4],
            reuse: vec![reuse],
            ..PlanParams::default()
        }
    }

    fn leaf(r: &PlanReport, l: u32) -> &Leaf {
        r.placements[0]
            .leaves
            .iter()
            .find(|x| x.leaf_bits == l)
            .unwrap()
    }

    #[test]
    fn tiny_table_by_hand() {
        // 64 indexes of 32 bytes, index_bits 6 (18 generation bits), 2 ports, quarantine off.
        // 10 live QPs, cyclic from first_index 2: indexes 2..=11.
        let r = plan(&tiny(Reuse::Cyclic, 10, 0)).unwrap();
        assert_eq!(r.params.index_bits(), 6);
        assert_eq!(r.gen_bits, 18);
        assert_eq!(r.flat_bytes, 64 * 32);
        // State RAM (2 + 18) x 64 x 3 copies = 3840; free map one word: 64. No quarantine.
        let names: Vec<u64> = r.on_chip.structures.iter().map(|(_, b)| *b).collect();
        assert_eq!(names, vec![3840, 64]);
        assert_eq!(r.on_chip.total(), 3904);
        let pl = &r.placements[0];
        assert_eq!(
            (pl.allocs, pl.frees, pl.full, pl.span),
            (10, 0, 0, Some((2, 11)))
        );
        // leaf_bits 2: pages of 4 indexes, 2..=11 touch pages 0, 1, 2; 16 directory entries.
        let l2 = leaf(&r, 2);
        assert_eq!(l2.directory_entries, 16);
        assert_eq!(l2.directory_bytes, 128);
        assert_eq!(l2.pages_touched, 3);
        assert_eq!(l2.pages_needed, 3);
        assert_eq!(l2.page_bytes, 128);
        assert_eq!(l2.pages_bytes(), 384);
        // leaf_bits 4: pages of 16 indexes, one page; 4 directory entries.
        let l4 = leaf(&r, 4);
        assert_eq!(
            (l4.directory_entries, l4.directory_bytes, l4.pages_touched),
            (4, 32, 1)
        );
        assert_eq!(l4.pages_bytes(), 512);
        // Directory on chip: planned, one copy of 64-bit entries; or generated, one copy
        // of 59-bit entries per lookup port and one for the control port.
        for (l, entries) in [(l2, 16), (l4, 4)] {
            let dir = match l.on_chip_source {
                Source::Planned => entries * 64,
                Source::Generated => entries * 59 * 3,
            };
            assert_eq!(l.on_chip_bits, 3904 + dir, "leaf_bits {}", l.leaf_bits);
        }
    }

    #[test]
    fn quarantine_and_free_map_levels_by_hand() {
        // 5000 indexes: free map levels of 79, 2 and 1 words; quarantine 64 x 72.
        let p = PlanParams {
            max_qps: 5000,
            live: 100,
            quarantine_cycles: 1000,
            ports: 1,
            leaf_bits: vec![6],
            reuse: vec![Reuse::Lowest],
            ..PlanParams::default()
        };
        let r = plan(&p).unwrap();
        assert_eq!(r.params.index_bits(), 13);
        let b: Vec<u64> = r.on_chip.structures.iter().map(|(_, b)| *b).collect();
        // State RAM (2 + 11) x 5000 x 2 copies.
        assert_eq!(b, vec![130_000, 79 * 64, 2 * 64, 64, 64 * 72]);
        // 100 live QPs at 2..=101: pages of 64 indexes 0 and 1.
        assert_eq!(leaf(&r, 6).pages_touched, 2);
        assert_eq!(leaf(&r, 6).directory_entries, 79);
    }

    #[test]
    fn churn_by_hand() {
        // One live QP, 16 indexes: cyclic moves it up one index per round (FREE, then ALLOC
        // takes the next index), lowest keeps it at index 2.
        let p = |reuse, churn| PlanParams {
            max_qps: 16,
            live: 1,
            churn,
            leaf_bits: vec![2],
            reuse: vec![reuse],
            ..PlanParams::default()
        };
        let r = plan(&p(Reuse::Cyclic, 10)).unwrap();
        assert_eq!(r.placements[0].span, Some((12, 12)));
        assert_eq!((r.placements[0].allocs, r.placements[0].frees), (11, 10));
        // After 15 is freed, the cursor wraps to first_index.
        let r = plan(&p(Reuse::Cyclic, 14)).unwrap();
        assert_eq!(r.placements[0].span, Some((2, 2)));
        let r = plan(&p(Reuse::Lowest, 10)).unwrap();
        assert_eq!(r.placements[0].span, Some((2, 2)));
        // With a quarantine longer than a command interval, FREE then ALLOC cannot take the
        // index just freed: lowest reuse alternates between 2 and 3, and never answers FULL.
        let r = plan(&PlanParams {
            quarantine_cycles: 100,
            cmd_interval: 64,
            ..p(Reuse::Lowest, 3)
        })
        .unwrap();
        assert_eq!(r.placements[0].span, Some((3, 3)));
        assert_eq!(r.placements[0].full, 0);
    }

    #[test]
    fn lowest_reuse_keeps_the_pages_under_churn() {
        // Lowest reuse refills the index just freed: churn does not spread the live QPs.
        let still = plan(&tiny(Reuse::Lowest, 20, 0)).unwrap();
        let churned = plan(&tiny(Reuse::Lowest, 20, 500)).unwrap();
        assert_eq!(still.placements[0].span, churned.placements[0].span);
        assert_eq!(leaf(&still, 2).pages_touched, 6); // 2..=21: pages 0..=5
        assert_eq!(leaf(&churned, 2).pages_touched, 6);
        // Cyclic reuse spreads them over the table.
        let cyclic = plan(&tiny(Reuse::Cyclic, 20, 500)).unwrap();
        assert!(leaf(&cyclic, 2).pages_touched > 6);
    }

    #[test]
    fn the_issue_example() {
        // 2^24 QPs of 256 bytes, 262144 live, no churn: indexes 2..=262145 with either policy.
        let r = plan(&PlanParams::default()).unwrap();
        assert_eq!(r.params.index_bits(), 24);
        assert_eq!(r.gen_bits, 0);
        assert_eq!(r.flat_bytes, 4 << 30);
        // State RAM 2 x 2^24 x 3 copies; free map 262144 + 4096 + 64 + 1 words.
        let b: Vec<u64> = r.on_chip.structures.iter().map(|(_, b)| *b).collect();
        assert_eq!(
            b,
            vec![2 * (1 << 24) * 3, 262_144 * 64, 4096 * 64, 64 * 64, 64]
        );
        for pl in &r.placements {
            assert_eq!(pl.span, Some((2, 262_145)));
            // leaf_bits 12: 4096 directory entries (32 KiB), pages 0..=64 of 1 MiB each.
            let l = pl.leaves.iter().find(|l| l.leaf_bits == 12).unwrap();
            assert_eq!(l.directory_bytes, 32 << 10);
            assert_eq!(l.pages_touched, 65);
            assert_eq!(l.pages_needed, 64);
            assert_eq!(l.page_bytes, 1 << 20);
            assert_eq!(l.directory_bytes + l.pages_bytes(), (65 << 20) + (32 << 10));
            // leaf_bits 8: 65536 entries (512 KiB), pages 0..=1024 of 64 KiB.
            let l = pl.leaves.iter().find(|l| l.leaf_bits == 8).unwrap();
            assert_eq!((l.directory_bytes, l.pages_touched), (512 << 10, 1025));
            assert_eq!(l.pages_bytes(), 1025 * (64 << 10));
        }
    }

    #[test]
    fn refusals_name_the_parameter() {
        let e = |p: PlanParams| format!("{:#}", plan(&p).unwrap_err());
        let d = PlanParams::default;
        assert!(e(PlanParams {
            live: 1 << 24,
            ..d()
        })
        .starts_with("live = 16777216"));
        assert!(e(PlanParams {
            leaf_bits: vec![24],
            ..d()
        })
        .starts_with("leaf_bits = 24"));
        assert!(e(PlanParams {
            entry_bytes: 100,
            ..d()
        })
        .contains("entry_bytes"));
        assert!(e(PlanParams {
            index_bits: Some(10),
            ..d()
        })
        .contains("max_qps"));
        assert_eq!(bytes(4 << 30), "4 GiB");
        assert_eq!(bytes((65 << 20) + (32 << 10)), "65.03 MiB");
        assert_eq!(bytes(96), "96 B");
    }
}
