//! Block-level test of the register slice [`Skid`] alone in Verilator against a plain model: a
//! queue of at most two words. In every cycle: `in_ready` is high exactly when the queue holds
//! fewer than two words (whatever `out_ready` is in that cycle: it is a register),
//! `out_valid` exactly when it holds one, and `data_out` is its head. The stream in is random,
//! its payload random while `in_valid` is low too, the stream out stalls at random, in busy
//! to idle stretches; the block is reset once in the middle of the traffic; the run ends with
//! the queue empty. Seeded (`QPTABLE_SEED` replays a run).

use qptable::hw::skid::Skid;
use qptable_sim::{In, Out, Sim};
use qptable_testbench::block;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::Bits;
use std::collections::VecDeque;

/// Probabilities of `in_valid` and of `out_ready` in a cycle, by stretches: busy to rare.
const RATES: [(f64, f64); 5] = [(1.0, 1.0), (1.0, 0.5), (0.5, 1.0), (0.2, 0.9), (0.9, 0.1)];

#[test]
fn skid_against_a_two_word_queue() {
    let seed = block::seed("skid_against_a_two_word_queue", 11);
    let model = block::model(Skid::<Bits<40>>::default(), "skid_40").unwrap();
    let mut sim = model.instantiate();
    let input = |s: &Sim, n: &str| -> In { s.input(n).unwrap() };
    let output = |s: &Sim, n: &str| -> Out { s.output(n).unwrap() };
    let (rst, in_valid, data_in, out_ready) = (
        input(&sim, "rst"),
        input(&sim, "in_valid"),
        input(&sim, "data_in"),
        input(&sim, "out_ready"),
    );
    let (in_ready, out_valid, data_out) = (
        output(&sim, "in_ready"),
        output(&sim, "out_valid"),
        output(&sim, "data_out"),
    );
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let cycles: u64 = 40_000;
    let reset_at = rng.gen_range(cycles / 4..cycles / 2);
    let mut queue: VecDeque<u64> = VecDeque::new();
    let (mut taken, mut given, mut next) = (0u64, 0u64, 0u64);
    let mut seen = [0u64; 3]; // cycles with 0, 1, 2 words held
                              // In the stretches where both sides are always ready: cycles, words taken, stretches.
    let (mut full_cycles, mut full_taken, mut full_stretches) = (0u64, 0u64, 0u64);
    sim.set(rst, 1);
    sim.step_n(2);
    sim.set(rst, 0);
    let mut c = 0u64;
    loop {
        let draining = c >= cycles;
        if draining && queue.is_empty() {
            break;
        }
        assert!(c < cycles + 100, "seed {seed}: the slice does not drain");
        let stretch = ((c / 1009) % RATES.len() as u64) as usize;
        let (pv, pr) = RATES[stretch];
        let full_rate = stretch == 0 && !draining;
        full_stretches += u64::from(full_rate && c.is_multiple_of(1009));
        let reset = c == reset_at;
        let valid = !draining && rng.gen_bool(pv);
        let ready = draining || rng.gen_bool(pr);
        // A word is a running number in the low bits and noise above, so order and payload
        // are both checked; noise on the bus while `in_valid` is low.
        let word = if valid {
            next | (rng.gen_range(0..1u64 << 20) << 20)
        } else {
            rng.gen_range(0..1u64 << 40)
        };
        sim.set(rst, u64::from(reset));
        sim.set(in_valid, u64::from(valid));
        sim.set(data_in, word);
        sim.set(out_ready, u64::from(ready));
        sim.step();
        let at = || format!("seed {seed}, cycle {c}, {} words held", queue.len());
        assert_eq!(sim.is_high(in_ready), queue.len() < 2, "in_ready, {}", at());
        assert_eq!(
            sim.is_high(out_valid),
            !queue.is_empty(),
            "out_valid, {}",
            at()
        );
        if let Some(&head) = queue.front() {
            assert_eq!(sim.get(data_out), head, "data_out, {}", at());
        }
        seen[queue.len()] += 1;
        full_cycles += u64::from(full_rate && !reset);
        if reset {
            queue.clear();
        } else {
            if ready && !queue.is_empty() {
                queue.pop_front();
                given += 1;
            }
            if valid && sim.is_high(in_ready) {
                queue.push_back(word);
                taken += 1;
                full_taken += u64::from(full_rate);
                next = (next + 1) % (1 << 20);
            }
        }
        c += 1;
    }
    println!(
        "{taken} words in, {given} out, cycles holding 0 / 1 / 2 words: {} / {} / {}",
        seen[0], seen[1], seen[2]
    );
    assert!(seen.iter().all(|&n| n > 100), "every fill level seen often");
    // One word a cycle through when both sides are always ready, but for the cycle a stretch
    // may start with both words held.
    println!("both sides always ready: {full_taken} words in {full_cycles} cycles");
    assert!(
        full_taken + full_stretches >= full_cycles,
        "seed {seed}: not one word a cycle with both sides ready"
    );
}
