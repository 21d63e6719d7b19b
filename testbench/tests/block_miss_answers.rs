//! Block-level test of [`MissAnswers`] (one port's answers of the miss unit and the slots it
//! holds) alone in Verilator against a plain model: a queue of answers, and per slot the
//! number of answers naming it that were pushed and not yet released (a count, not the
//! block's numbering). Every cycle it checks `room` (the queue's room after the last edge),
//! `ans_valid` / `ans_slot` (the queue's head) and `hold` (bit `vector_bit(s)`: the count of
//! slot `s` with the pushes up to the last edge and the releases up to three edges before is
//! not 0; every other bit 0).
//!
//! The pushes come whenever `room` allows, at random rates by stretches, for a few hot slots
//! and random others; the answers are taken with random backpressure; the port releases what
//! it received in order, after a random delay, at times holding back many hundred answers (so
//! the block's numbers wrap around 2^SEQ_BITS many times, with up to 900 answers held at
//! once). Noise on `push_slot` and `rel_slot` while their valid is low; a reset in the middle
//! of the traffic; the run ends with everything released and `hold` empty. Seeded
//! (`QPTABLE_SEED` replays a run).

use qptable::hw::miss_answers::MissAnswers;
use qptable::hw::miss_unit::{MissParams, ANSWER_DEPTH, SEQ_BITS};
use qptable::hw::EngineParams;
use qptable_sim::{In, Out, Sim};
use qptable_testbench::block::miss_params as mp;
use qptable_testbench::{block, configs};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// Probabilities of a push and of taking an answer in a cycle, by stretches.
const RATES: [(f64, f64); 4] = [(1.0, 1.0), (0.7, 0.4), (0.3, 0.9), (1.0, 0.1)];

fn answers(name: &str, m: MissParams, default_seed: u64) {
    let seed = block::seed(name, default_seed);
    let p = EngineParams::new(&configs::config(&[]));
    let model = block::model(MissAnswers::new(&p, &m), &format!("miss_answers_{name}")).unwrap();
    let mut sim = model.instantiate();
    let input = |s: &Sim, n: &str| -> In { s.input(n).unwrap() };
    let output = |s: &Sim, n: &str| -> Out { s.output(n).unwrap() };
    let (rst, push_valid, push_slot, ans_ready, rel_valid, rel_slot) = (
        input(&sim, "rst"),
        input(&sim, "push_valid"),
        input(&sim, "push_slot"),
        input(&sim, "ans_ready"),
        input(&sim, "rel_valid"),
        input(&sim, "rel_slot"),
    );
    let (room, ans_valid, ans_slot, hold) = (
        output(&sim, "room"),
        output(&sim, "ans_valid"),
        output(&sim, "ans_slot"),
        output(&sim, "hold"),
    );
    let slots = m.max_misses as usize;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let hot: Vec<usize> = (0..3).map(|_| rng.gen_range(0..slots)).collect();
    let cycles = 60_000u64;
    let reset_at = rng.gen_range(cycles / 4..cycles / 2);
    // The model: the answer queue, the answers the port received and holds (with the cycle
    // it may release each), per slot the answers pushed and not released, and the releases of
    // the last three edges (each counted three edges after it is shown).
    let mut queue: VecDeque<usize> = VecDeque::new();
    let mut held: VecDeque<(usize, u64)> = VecDeque::new();
    let mut count = vec![0u64; slots];
    let mut landing: VecDeque<Option<usize>> = VecDeque::from([None, None, None]);
    let (mut pushes, mut releases, mut most_held, mut hold_backs) = (0u64, 0u64, 0usize, 0u64);
    // While set, the port releases nothing until it holds this many answers.
    let mut hold_back: Option<usize> = None;
    sim.set(rst, 1);
    sim.step_n(2);
    sim.set(rst, 0);
    let mut c = 0u64;
    loop {
        let draining = c >= cycles;
        if draining
            && queue.is_empty()
            && held.is_empty()
            && landing.iter().all(|r| r.is_none())
            && count.iter().all(|&n| n == 0)
        {
            break;
        }
        assert!(c < cycles + 5_000, "seed {seed}: does not drain");
        let stretch = ((c / 997) % RATES.len() as u64) as usize;
        let (pp, pr) = RATES[stretch];
        let reset = c == reset_at;
        // Inputs for the next edge (a push only when the queue has room: `room`, checked below).
        let push = !draining && queue.len() < ANSWER_DEPTH && rng.gen_bool(pp);
        let slot = if rng.gen_bool(0.6) {
            hot[rng.gen_range(0..hot.len())]
        } else {
            rng.gen_range(0..slots)
        };
        sim.set(push_valid, u64::from(push));
        sim.set(
            push_slot,
            if push {
                slot as u64
            } else {
                rng.gen_range(0..256)
            },
        );
        let take = draining || rng.gen_bool(pr);
        sim.set(ans_ready, u64::from(take));
        if hold_back.is_none() && !draining && rng.gen_bool(0.0005) {
            hold_back = Some(rng.gen_range(100..900));
            hold_backs += 1;
        }
        if hold_back.is_some_and(|n| held.len() >= n) || draining {
            hold_back = None;
        }
        let rel = match held.front() {
            Some(&(s, due)) if hold_back.is_none() && due <= c => {
                held.pop_front();
                Some(s)
            }
            _ => None,
        };
        sim.set(rel_valid, u64::from(rel.is_some()));
        sim.set(rel_slot, rel.map_or(rng.gen_range(0..256), |s| s as u64));
        sim.set(rst, u64::from(reset));
        sim.step();
        // The outputs in the cycle of the edge (the harness samples them at the edge): what
        // the edge before left, the model before this edge.
        let at = || format!("seed {seed}, cycle {c}");
        assert_eq!(
            sim.is_high(room),
            queue.len() < ANSWER_DEPTH,
            "room, {}",
            at()
        );
        assert_eq!(
            sim.is_high(ans_valid),
            !queue.is_empty(),
            "ans_valid, {}",
            at()
        );
        if let Some(&s) = queue.front() {
            assert_eq!(sim.get(ans_slot) as usize, s, "ans_slot, {}", at());
        }
        let h = sim.get_wide(hold).to_vec();
        // Slot `s` is bit `vector_bit(s)` (the miss unit's layout); no other bit is set.
        let mut want = [0u64; 4];
        for (s, &n) in count.iter().enumerate() {
            let i = m.vector_bit(s);
            let bit = h[i / 64] >> (i % 64) & 1 == 1;
            assert_eq!(bit, n > 0, "hold of slot {s} ({n} held), {}", at());
            want[i / 64] |= u64::from(n > 0) << (i % 64);
        }
        assert_eq!(h, want, "hold, {}", at());

        // The edge, in the model.
        if reset {
            queue.clear();
            held.clear();
            count.iter_mut().for_each(|n| *n = 0);
            landing = VecDeque::from([None, None, None]);
        } else {
            // A release counts three edges after it is shown.
            landing.push_back(rel);
            if let Some(s) = landing.pop_front().unwrap() {
                count[s] -= 1;
            }
            releases += u64::from(rel.is_some());
            if take {
                if let Some(s) = queue.pop_front() {
                    let due = (c + rng.gen_range(1..30)).max(held.back().map_or(0, |h| h.1));
                    held.push_back((s, due));
                }
            }
            if push {
                queue.push_back(slot);
                count[slot] += 1;
                pushes += 1;
            }
        }
        let outstanding: u64 = count.iter().sum();
        assert!(
            outstanding < 1 << SEQ_BITS,
            "the test holds too many answers"
        );
        most_held = most_held.max(held.len());
        c += 1;
    }
    println!(
        "{name}: {pushes} answers, {releases} releases, at most {most_held} held by the port, \
         {hold_backs} hold-backs, in {c} cycles"
    );
    assert!(pushes > 8 << SEQ_BITS, "the numbers wrap several times");
    assert!(most_held > 500, "many answers held at once");
}

#[test]
fn sixteen_slots() {
    answers("s16", mp(6, 2, 16, 64), 5);
}

#[test]
fn two_hundred_fifty_six_slots() {
    answers("s256", mp(6, 2, 256, 64), 6);
}
