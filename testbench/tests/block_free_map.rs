//! Block-level test of the free map ([`FreeMap`], the hierarchical bitmap of the indexes
//! ALLOC may take), alone in Verilator, against the reference model's [`IndexSet`].
//!
//! Seeded random FIND (with and without the cyclic wrap; from `first_index`, as `lowest`
//! reuse asks), CLEAR, SET and TEST, issued back to back (the next operation taken in the
//! cycle of `done`) or after idle cycles, on a full set, then on a sparse one (everything
//! cleared but a few members far apart, so FIND climbs to the top level and down again),
//! then on the empty set and a refilled one. Every result is compared with the model.
//!
//! Cycles: the block's doc comment gives 5 cycles per level visited by FIND (up from the
//! start word, then down; a RAM read takes two cycles), 5 per level by CLEAR and SET, 5 for
//! TEST, and 6 for each where every level's read is registered once more (the state RAM's
//! copies over several rows of block RAMs). The visits are derived here from the set alone
//! (which ranges of indexes are empty), so every operation's cycle count is asserted
//! exactly, and against the documented bound: FIND `<= c * 2 * levels`, `<= c * 3 * levels`
//! with the wrap, CLEAR/SET `<= c * levels`, TEST `c` (`c` 5 or 6). The cycles of an
//! operation are those between the edge that takes it and the edge that samples `done`.
//!
//! Sizes: 1, 2 and 3 levels, with partial words at every level; 3 levels with the reads
//! registered once more.

use qptable::hw::free_map::{level_words, map_op, FreeMap};
use qptable::hw::EngineParams;
use qptable::model::IndexSet;
use qptable_sim::{In, Out, Sim};
use qptable_testbench::{block, configs};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The block's ports (one place: a rename in the block is a one-line fix here).
struct Ports {
    rst: In,
    op_valid: In,
    op: In,
    op_index: In,
    op_wrap: In,
    init_done: Out,
    done: Out,
    found: Out,
    result: Out,
}

impl Ports {
    fn new(sim: &Sim) -> Ports {
        Ports {
            rst: sim.input("rst").unwrap(),
            op_valid: sim.input("op_valid").unwrap(),
            op: sim.input("op").unwrap(),
            op_index: sim.input("op_index").unwrap(),
            op_wrap: sim.input("op_wrap").unwrap(),
            init_done: sim.output("init_done").unwrap(),
            done: sim.output("done").unwrap(),
            found: sim.output("found").unwrap(),
            result: sim.output("result").unwrap(),
        }
    }
}

/// Cycles per level visited, by FIND, CLEAR or SET, and of TEST (the block's doc comment): 5,
/// and one more (each level's read registered once more) where the state RAM's copies span
/// several rows of block RAMs.
fn cycles_per_level(p: &EngineParams) -> u64 {
    if p.state_write_registered() {
        6
    } else {
        5
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Find { start: u32, wrap: bool },
    Clear(u32),
    Set(u32),
    Test(u32),
}

/// An operation taken by the block, with what the model says of it.
#[derive(Debug)]
struct Taken {
    op: Op,
    edge: u64,
    /// FIND: the member found; TEST: `Some(i)` when a member.
    expect: Option<u32>,
    /// Exact cycles the set implies.
    cycles: u64,
}

#[derive(Default, Debug)]
struct Stats {
    ops: [u64; 4],
    find_found: u64,
    find_after_wrap: u64,
    find_none: u64,
    /// Most levels visited by one operation, per kind (FIND without wrap, FIND with wrap,
    /// CLEAR, SET).
    max_visits: [u64; 4],
    back_to_back: u64,
    max_cycles: [u64; 4],
}

struct Bench {
    sim: Sim,
    p: Ports,
    set: IndexSet,
    n: u32,
    first_index: u32,
    levels: u32,
    /// [`cycles_per_level`].
    per_level: u64,
    rng: ChaCha8Rng,
    inflight: Option<Taken>,
    stats: Stats,
    what: String,
}

impl Bench {
    /// Whether a member lies in `lo..=hi`.
    fn any_in(&self, lo: u64, hi: u64) -> bool {
        lo < u64::from(self.n)
            && self
                .set
                .first_at_or_after(lo as u32)
                .is_some_and(|m| u64::from(m) <= hi)
    }

    /// Levels a FIND from `start` visits, and what it finds, from the set alone: at level k
    /// the word read holds the ranges of 64^k indexes from position `pos`; a member there
    /// means k more levels down (found after `2k + 1` visits); none, the next word one level
    /// up; none at the top level, not found after `levels` visits.
    fn find_walk(&self, start: u32) -> (u64, Option<u32>) {
        let mut pos = u64::from(start);
        for k in 0..self.levels {
            let span = 64u64.pow(k);
            let lo = pos * span;
            let hi = (pos / 64 + 1) * 64 * span - 1;
            if self.any_in(lo, hi) {
                return (2 * u64::from(k) + 1, self.set.first_at_or_after(lo as u32));
            }
            pos = pos / 64 + 1;
        }
        (u64::from(self.levels), None)
    }

    /// Levels a CLEAR (`after` the removal) or a SET (`before` the insertion) of `i` visits:
    /// one more for each level whose word is empty, up to the top.
    fn update_visits(&self, i: u32) -> u64 {
        let mut visits = 1;
        for k in 1..self.levels {
            let span = 64u64.pow(k);
            let lo = u64::from(i) / span * span;
            if self.any_in(lo, lo + span - 1) {
                break;
            }
            visits += 1;
        }
        visits
    }

    /// What the model says of `op`, applied to the model (operations run in order).
    fn predict(&mut self, op: Op) -> (Option<u32>, u64) {
        match op {
            Op::Find { start, wrap } => {
                let (mut visits, mut hit) = self.find_walk(start);
                let kind = usize::from(wrap);
                if hit.is_none() && wrap {
                    let (v, h) = self.find_walk(self.first_index);
                    visits += v;
                    hit = h;
                    if hit.is_some() {
                        self.stats.find_after_wrap += 1;
                    }
                }
                if hit.is_some() {
                    self.stats.find_found += 1;
                } else {
                    self.stats.find_none += 1;
                }
                self.stats.max_visits[kind] = self.stats.max_visits[kind].max(visits);
                (hit, self.per_level * visits)
            }
            Op::Clear(i) => {
                self.set.remove(i);
                let v = self.update_visits(i);
                self.stats.max_visits[2] = self.stats.max_visits[2].max(v);
                (None, self.per_level * v)
            }
            Op::Set(i) => {
                let v = self.update_visits(i);
                self.set.insert(i);
                self.stats.max_visits[3] = self.stats.max_visits[3].max(v);
                (None, self.per_level * v)
            }
            Op::Test(i) => (self.set.contains(i).then_some(i), self.per_level),
        }
    }

    fn drive(&mut self, op: Option<Op>) {
        let (code, index, wrap) = match op {
            None => (0, 0, false),
            Some(Op::Find { start, wrap }) => (map_op::FIND, start, wrap),
            Some(Op::Clear(i)) => (map_op::CLEAR, i, false),
            Some(Op::Set(i)) => (map_op::SET, i, false),
            Some(Op::Test(i)) => (map_op::TEST, i, false),
        };
        let p = &self.p;
        self.sim.set(p.op_valid, u64::from(op.is_some()));
        self.sim.set(p.op, code);
        self.sim.set(p.op_index, u64::from(index));
        self.sim.set(p.op_wrap, u64::from(wrap));
    }

    /// One step; checks the operation in flight if `done` was sampled at this edge. Returns
    /// whether it was.
    fn step(&mut self) -> bool {
        self.sim.step();
        let edge = self.sim.cycle();
        if !self.sim.is_high(self.p.done) {
            let t = self
                .inflight
                .as_ref()
                .expect("a step with nothing in flight");
            let bound = self.bound(t.op);
            assert!(
                edge - t.edge - 1 < bound,
                "{}: {:?} taken at edge {} not done within {bound} cycles",
                self.what,
                t.op,
                t.edge
            );
            return false;
        }
        let t = self
            .inflight
            .take()
            .unwrap_or_else(|| panic!("{}: done at edge {edge} with nothing in flight", self.what));
        let cycles = edge - t.edge - 1;
        let at = format!("{}: {:?} taken at edge {}", self.what, t.op, t.edge);
        let found = self.sim.is_high(self.p.found);
        let result = self.sim.get(self.p.result) as u32;
        match t.op {
            Op::Find { .. } => {
                assert_eq!(found, t.expect.is_some(), "{at}: found");
                if let Some(m) = t.expect {
                    assert_eq!(result, m, "{at}: result");
                }
            }
            Op::Test(_) => assert_eq!(found, t.expect.is_some(), "{at}: found"),
            Op::Clear(_) | Op::Set(_) => {}
        }
        assert_eq!(cycles, t.cycles, "{at}: cycles");
        assert!(cycles <= self.bound(t.op), "{at}: {cycles} cycles");
        let k = kind(t.op);
        self.stats.max_cycles[k] = self.stats.max_cycles[k].max(cycles);
        true
    }

    /// The documented bound of an operation's cycles.
    fn bound(&self, op: Op) -> u64 {
        let l = u64::from(self.levels);
        match op {
            Op::Find { wrap: false, .. } => self.per_level * 2 * l,
            Op::Find { wrap: true, .. } => self.per_level * 3 * l,
            Op::Clear(_) | Op::Set(_) => self.per_level * l,
            Op::Test(_) => self.per_level,
        }
    }

    /// Issues `op`: after the one in flight (taken in the cycle of its `done`), or, with
    /// probability `gap`, after that one is done and a few idle cycles.
    fn issue(&mut self, op: Op, gap: f64) {
        if self.inflight.is_some() && self.rng.gen_bool(gap) {
            self.finish();
            for _ in 0..self.rng.gen_range(0..3) {
                self.drive(None);
                self.sim.step();
                assert!(
                    !self.sim.is_high(self.p.done),
                    "{}: done when idle",
                    self.what
                );
            }
        }
        let (expect, cycles) = self.predict(op);
        self.stats.ops[kind(op)] += 1;
        self.drive(Some(op));
        if self.inflight.is_none() {
            // Idle: taken at this edge.
            self.sim.step();
            assert!(
                !self.sim.is_high(self.p.done),
                "{}: done when idle",
                self.what
            );
        } else {
            while !self.step() {}
            self.stats.back_to_back += 1;
        }
        self.inflight = Some(Taken {
            op,
            edge: self.sim.cycle(),
            expect,
            cycles,
        });
        self.drive(None);
    }

    /// Waits for the operation in flight.
    fn finish(&mut self) {
        self.drive(None);
        while self.inflight.is_some() {
            self.step();
        }
    }

    fn random_index(&mut self) -> u32 {
        self.rng.gen_range(0..self.n)
    }

    /// A member (a random one at or after a random index), if any.
    fn random_member(&mut self) -> Option<u32> {
        let i = self.random_index();
        self.set
            .first_at_or_after(i)
            .or_else(|| self.set.first_at_or_after(0))
    }

    /// `count` random operations: FIND from anywhere (also past `max_qps`, inside the index
    /// field), with or without wrap, or from `first_index`; ALLOC-like FIND then CLEAR of the
    /// result; CLEAR of members and of a few non-members; SET; TEST of members and others.
    fn random_ops(&mut self, count: u64, set_weight: u32) {
        let field = (u64::from(self.n) * 2).next_power_of_two().min(1 << 24) as u32;
        for _ in 0..count {
            let gap = 0.3;
            match self.rng.gen_range(0..12 + set_weight) {
                0..=2 => {
                    let start = if self.rng.gen_bool(0.9) {
                        self.random_index()
                    } else {
                        self.rng.gen_range(0..field)
                    };
                    let wrap = self.rng.gen();
                    self.issue(Op::Find { start, wrap }, gap);
                }
                3 => {
                    let start = self.first_index;
                    self.issue(Op::Find { start, wrap: false }, gap);
                }
                4 | 5 => {
                    // ALLOC: the next member from a cursor, wrapping, then taken.
                    let start = self.random_index();
                    let hit = self
                        .set
                        .first_at_or_after(start)
                        .or_else(|| self.set.first_at_or_after(self.first_index));
                    self.issue(Op::Find { start, wrap: true }, gap);
                    if let Some(m) = hit {
                        self.issue(Op::Clear(m), gap);
                    }
                }
                6 | 7 => {
                    if let Some(m) = self.random_member() {
                        self.issue(Op::Clear(m), gap);
                    }
                }
                8 => {
                    let i = self.random_index();
                    self.issue(Op::Clear(i), gap);
                }
                9 | 10 => {
                    let i = match self.random_member() {
                        Some(m) if self.rng.gen() => m,
                        _ => self.random_index(),
                    };
                    self.issue(Op::Test(i), gap);
                }
                _ => {
                    let i = self.random_index();
                    self.issue(Op::Set(i), gap);
                }
            }
        }
    }
}

fn kind(op: Op) -> usize {
    match op {
        Op::Find { .. } => 0,
        Op::Clear(_) => 1,
        Op::Set(_) => 2,
        Op::Test(_) => 3,
    }
}

/// The free map of `sets` (index_bits, max_qps, first_index) against the model.
fn free_map(
    name: &str,
    sets: &[&str],
    (expect_levels, expect_per_level): (u32, u64),
    ops: u64,
    default_seed: u64,
) {
    let cfg = configs::config(sets);
    let p = EngineParams::new(&cfg);
    let levels = level_words(p.max_qps).len() as u32;
    assert_eq!(levels, expect_levels, "{name}: levels of the configuration");
    assert_eq!(
        cycles_per_level(&p),
        expect_per_level,
        "{name}: cycles a level of the configuration"
    );
    let model = block::model(FreeMap::new(&p), &format!("free_map_{name}")).unwrap();
    let seed = block::seed(name, default_seed);
    let sim = model.instantiate();
    let ports = Ports::new(&sim);
    let mut b = Bench {
        sim,
        p: ports,
        set: IndexSet::with_range(p.max_qps, 0),
        n: p.max_qps,
        first_index: p.first_index,
        levels,
        per_level: cycles_per_level(&p),
        rng: ChaCha8Rng::seed_from_u64(seed),
        inflight: None,
        stats: Stats::default(),
        what: format!("{name} seed {seed}"),
    };

    // Reset, then the levels are written one word a cycle: every index < max_qps a member.
    b.sim.set(b.p.rst, 1);
    b.sim.step_n(2);
    b.sim.set(b.p.rst, 0);
    let words = u64::from(level_words(p.max_qps)[0]);
    let mut init = 0;
    loop {
        b.sim.step();
        if b.sim.is_high(b.p.init_done) {
            break;
        }
        init += 1;
        assert!(init <= words + 1, "{name}: init_done after {words} words");
    }
    // One level-0 word a cycle, and one cycle more (the block's doc comment: each word's
    // comparisons are registered before its write).
    assert_eq!(init, words + 1, "{name}: one level-0 word written a cycle");

    // 1. On the full set.
    let t = std::time::Instant::now();
    b.random_ops(ops, 0);
    // 2. Sparse: every member cleared but a few, then random operations that keep it sparse
    //    (SET as likely as the CLEARs).
    let keep: Vec<u32> = (0..6).map(|_| b.random_index()).collect();
    let mut i = 0;
    while let Some(m) = b.set.first_at_or_after(i) {
        if !keep.contains(&m) {
            b.issue(Op::Clear(m), 0.05);
        }
        i = m + 1;
        if i >= b.n {
            break;
        }
    }
    b.random_ops(ops, 4);
    // 3. Empty: FIND finds nothing, with or without the wrap.
    while let Some(m) = b.set.first_at_or_after(0) {
        b.issue(Op::Clear(m), 0.3);
    }
    for _ in 0..20 {
        let start = b.random_index();
        b.issue(Op::Find { start, wrap: true }, 0.3);
        b.issue(Op::Find { start, wrap: false }, 0.3);
        b.issue(Op::Test(start), 0.3);
    }
    // 4. Refilled at random.
    b.random_ops(ops / 2, 12);
    b.finish();
    let elapsed = t.elapsed().as_secs_f64();

    let s = &b.stats;
    println!(
        "{name}: max_qps {} first_index {} levels {levels}: init {init} cycles ({words} words); \
         {} operations (FIND {}, CLEAR {}, SET {}, TEST {}; {} back to back) in {} cycles, \
         {elapsed:.2} s; FIND found {} (after the wrap {}), none {}; most levels visited: \
         FIND {} (with wrap {}), CLEAR {}, SET {}; most cycles: FIND {} (bound {} without the wrap, {} \
         with), CLEAR {}, SET {} (bound {}), TEST {}",
        p.max_qps,
        p.first_index,
        s.ops.iter().sum::<u64>(),
        s.ops[0],
        s.ops[1],
        s.ops[2],
        s.ops[3],
        s.back_to_back,
        b.sim.cycle(),
        s.find_found,
        s.find_after_wrap,
        s.find_none,
        s.max_visits[0],
        s.max_visits[1],
        s.max_visits[2],
        s.max_visits[3],
        s.max_cycles[0],
        b.bound(Op::Find {
            start: 0,
            wrap: false
        }),
        b.bound(Op::Find {
            start: 0,
            wrap: true
        }),
        s.max_cycles[1],
        s.max_cycles[2],
        b.bound(Op::Set(0)),
        s.max_cycles[3],
    );
    // The stimulus reached the deep cases: a FIND up to the top and down again, one that
    // wrapped and found, one that found nothing, a CLEAR and a SET through every level.
    let l = u64::from(levels);
    assert_eq!(s.max_visits[0], 2 * l - 1, "{name}: FIND up and down");
    assert!(
        s.max_visits[1] > l,
        "{name}: FIND climbing twice (the wrap)"
    );
    assert!(s.find_after_wrap > 0, "{name}: FIND found after the wrap");
    assert!(s.find_none > 0, "{name}: FIND found nothing");
    assert_eq!(s.max_visits[2], l, "{name}: CLEAR through every level");
    assert_eq!(s.max_visits[3], l, "{name}: SET through every level");
    assert!(s.back_to_back > 0 && s.back_to_back < s.ops.iter().sum::<u64>());
}

#[test]
fn one_level_64_indexes() {
    free_map(
        "fm6",
        &["index_bits=6", "max_qps=50", "first_index=3"],
        (1, 5),
        3_000,
        0xF4EE_0006,
    );
}

#[test]
fn two_levels_partial_words() {
    free_map(
        "fm12",
        &["index_bits=12", "max_qps=3000", "first_index=7"],
        (2, 5),
        10_000,
        0xF4EE_0012,
    );
}

#[test]
fn three_levels_partial_words() {
    free_map(
        "fm18",
        &["index_bits=18", "max_qps=200000", "first_index=1"],
        (3, 5),
        20_000,
        0xF4EE_0018,
    );
}

#[test]
fn three_levels_reads_registered() {
    // The kind of configs/in_memory.toml: directory in memory, the state on chip over several
    // rows of block RAMs, so each level's read is registered once more (6 cycles a level).
    free_map(
        "fm18r",
        &[
            "index_bits=18",
            "max_qps=200000",
            "first_index=1",
            "mode=two_level",
            "leaf_bits=10",
            "directory=in_memory",
        ],
        (3, 6),
        20_000,
        0xF4EE_0118,
    );
}
