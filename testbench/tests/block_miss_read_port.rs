//! Block-level test of one read port of the miss unit's fill buffer ([`MissReadPort`]) alone
//! in Verilator against a plain model: a buffer of blocks (slot, beat) written by R beats at
//! random, the slots' flag vectors changing at random, and a random slot and word presented
//! every cycle (with a second slot). Checked every cycle, exact to the documented timing:
//! `rd_error` is the failed flag of `rd_slot` in the copy (the vectors of the edge before),
//! `rd_filled` / `rd_filled2` the copy's filled flag of the slot presented at the last edge,
//! and `rd_data` the word presented two edges before when the copy showed its slot filled
//! then, else 0. Words are read from slots not written in the last few cycles (the buffer's
//! contents are then settled). The block is reset once in the middle. Seeded
//! (`QPTABLE_SEED` replays a run).

use qptable::hw::miss_read_port::MissReadPort;
use qptable::hw::miss_unit::MissParams;
use qptable::hw::EngineParams;
use qptable_sim::{In, Out, Sim};
use qptable_testbench::block::miss_params as mp;
use qptable_testbench::{block, configs};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

fn read_port(name: &str, m: MissParams, default_seed: u64) {
    let seed = block::seed(name, default_seed);
    m.check(1).unwrap();
    let p = EngineParams::new(&configs::config(&[]));
    let model = block::model(MissReadPort::new(&p, &m), &format!("miss_read_port_{name}")).unwrap();
    let mut sim = model.instantiate();
    let input = |s: &Sim, n: &str| -> In { s.input(n).unwrap() };
    let output = |s: &Sim, n: &str| -> Out { s.output(n).unwrap() };
    let (rst, w_valid, w_slot, w_beat, w_data) = (
        input(&sim, "rst"),
        input(&sim, "w_valid"),
        input(&sim, "w_slot"),
        input(&sim, "w_beat"),
        input(&sim, "w_data"),
    );
    let (fl_vec, er_vec, rd_slot, rd_word, rd_slot2) = (
        input(&sim, "fl_vec"),
        input(&sim, "er_vec"),
        input(&sim, "rd_slot"),
        input(&sim, "rd_word"),
        input(&sim, "rd_slot2"),
    );
    let (rd_data, rd_filled, rd_error, rd_filled2) = (
        output(&sim, "rd_data"),
        output(&sim, "rd_filled"),
        output(&sim, "rd_error"),
        output(&sim, "rd_filled2"),
    );
    let slots = m.max_misses as usize;
    let beats = u64::from(m.beats());
    let stored = m.stored_bits() as usize;
    let wb = m.word_bits as usize;
    let wpb = (stored / wb) as u64;
    let words_per_block = 1u64 << m.block_bits;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let cycles = 20_000u64;
    let reset_at = rng.gen_range(cycles / 4..cycles / 2);
    // The buffer: (slot, beat) -> the beat's stored bits, as 64-bit words; the last cycle a
    // slot was written.
    let mut buf: HashMap<(usize, u64), Vec<u64>> = HashMap::new();
    let mut written_at: Vec<Option<u64>> = vec![None; slots];
    // No write of the slot in the 4 cycles before `pc` or since.
    let quiet = |w: Option<u64>, pc: u64| w.is_none_or(|w| w + 4 < pc);
    // The copies of the flag vectors (registered), and what was presented at the last two
    // edges: (slot, word, slot2, the copy's filled flag of slot then).
    let (mut fl_copy, mut er_copy) = (vec![false; slots], vec![false; slots]);
    let mut reads: [Option<(usize, u64, bool, u64)>; 2] = [None, None];
    let mut f1_expect = false;
    let mut f2_expect = false;
    let (mut words_checked, mut zeros_checked) = (0u64, 0u64);
    sim.set(rst, 1);
    sim.step_n(2);
    sim.set(rst, 0);
    for c in 0..cycles {
        let reset = c == reset_at;
        let write = rng.gen_bool(0.5);
        let ws = rng.gen_range(0..slots);
        let wbeat = rng.gen_range(0..beats);
        let data: Vec<u64> = (0..8).map(|_| rng.gen()).collect();
        // Flag vectors: each slot's flags flip now and then.
        let fl: Vec<bool> = (0..slots).map(|_| rng.gen_bool(0.7)).collect();
        let er: Vec<bool> = (0..slots).map(|s| fl[s] && rng.gen_bool(0.3)).collect();
        // (Slot `s`'s flag is bit `vector_bit(s)` of the vector: the miss unit's layout.)
        let vec_words = |v: &[bool]| -> Vec<u64> {
            let mut w = vec![0u64; 4];
            for (s, &b) in v.iter().enumerate() {
                if b {
                    let i = m.vector_bit(s);
                    w[i / 64] |= 1 << (i % 64);
                }
            }
            w
        };
        // A slot to read that was not written in the last 4 cycles (else any).
        let mut rs = rng.gen_range(0..slots);
        for _ in 0..8 {
            if quiet(written_at[rs], c) {
                break;
            }
            rs = rng.gen_range(0..slots);
        }
        let rw = rng.gen_range(0..256u64);
        let rs2 = rng.gen_range(0..slots);
        sim.set(rst, u64::from(reset));
        sim.set(w_valid, u64::from(write));
        sim.set(w_slot, ws as u64);
        sim.set(w_beat, wbeat);
        sim.set_wide(w_data, &data);
        sim.set_wide(fl_vec, &vec_words(&fl));
        sim.set_wide(er_vec, &vec_words(&er));
        sim.set(rd_slot, rs as u64);
        sim.set(rd_word, rw);
        sim.set(rd_slot2, rs2 as u64);
        sim.step();
        let at = || format!("seed {seed}, {name}, cycle {c}");
        assert_eq!(sim.is_high(rd_error), er_copy[rs], "rd_error, {}", at());
        assert_eq!(sim.is_high(rd_filled), f1_expect, "rd_filled, {}", at());
        assert_eq!(sim.is_high(rd_filled2), f2_expect, "rd_filled2, {}", at());
        // `rd_data`: the word presented two edges before.
        if let Some((slot, word, filled, _)) = reads[1].filter(|r| quiet(written_at[r.0], r.3)) {
            let want = if filled {
                let w = word & (words_per_block - 1);
                let (beat, lane) = (w / wpb, (w % wpb) as usize);
                let bits = buf
                    .get(&(slot, beat))
                    .cloned()
                    .unwrap_or_else(|| vec![0; 8]);
                let bit = lane * wb;
                (bits[bit / 64] >> (bit % 64)) & ((1u64 << wb) - 1)
            } else {
                0
            };
            if filled {
                words_checked += 1;
            } else {
                zeros_checked += 1;
            }
            assert_eq!(
                sim.get(rd_data),
                want,
                "rd_data of slot {slot} word {word}, {}",
                at()
            );
        }
        // The edge.
        f1_expect = !reset && fl_copy[rs];
        f2_expect = !reset && fl_copy[rs2];
        reads[1] = reads[0];
        reads[0] = Some((rs, rw, fl_copy[rs], c));
        if reset {
            fl_copy = vec![false; slots];
            er_copy = vec![false; slots];
        } else {
            fl_copy = fl;
            er_copy = er;
        }
        if write {
            let mut bits: Vec<u64> = data.clone();
            for (i, b) in bits.iter_mut().enumerate() {
                let lo = 64 * i;
                if lo >= stored {
                    *b = 0;
                } else if stored - lo < 64 {
                    *b &= (1u64 << (stored - lo)) - 1;
                }
            }
            buf.insert((ws, wbeat), bits);
            written_at[ws] = Some(c);
        }
    }
    println!("{name}: {words_checked} words and {zeros_checked} unfilled reads checked");
    assert!(
        words_checked > 1000 && zeros_checked > 100,
        "too few reads checked"
    );
}

#[test]
fn scale_blocks_two_beats_64_slots() {
    read_port("two_beats", mp(6, 2, 64, 64), 1);
}

#[test]
fn narrow_block_in_a_wide_bus_4_slots() {
    read_port("narrow", mp(3, 8, 4, 512), 2);
}

#[test]
fn wide_words_many_beats_256_slots() {
    read_port("many_beats", mp(8, 32, 256, 128), 3);
}
