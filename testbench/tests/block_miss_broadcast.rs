//! Block-level test of the miss unit's broadcast ([`MissBroadcast`]) alone in Verilator
//! against a plain model: the R beats of a stream of block reads (one beat a cycle at most,
//! with random gaps), each read good or failed at its last beat; the cache writes must be
//! exactly the beats of the good reads, in read order, each block's beats on consecutive
//! cycles with their beat numbers, `cw_last` on the last, the block's line, the beat's data
//! (0 on `cw_data` between beats), and one `sent` pulse with the slot on each good read's last
//! beat. Block sizes from 1 to 128 beats, beats back to back
//! or with gaps; the block is reset once in the middle of the traffic, and the run ends
//! with every good read broadcast. Seeded (`QPTABLE_SEED` replays a run).

use qptable::hw::miss_broadcast::MissBroadcast;
use qptable::hw::miss_unit::MissParams;
use qptable::hw::EngineParams;
use qptable_sim::{In, Out, Sim};
use qptable_testbench::{block, configs};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// One beat the model expects on `cw_*`.
#[derive(Clone, Debug, PartialEq)]
struct Beat {
    block: u64,
    beat: u64,
    last: bool,
    data: Vec<u64>,
}

fn broadcast(name: &str, m: MissParams, gap: f64, default_seed: u64) {
    let seed = block::seed(name, default_seed);
    m.check(1).unwrap();
    let p = EngineParams::new(&configs::config(&[]));
    let model = block::model(
        MissBroadcast::new(&p, &m),
        &format!("miss_broadcast_{name}"),
    )
    .unwrap();
    let mut sim = model.instantiate();
    let input = |s: &Sim, n: &str| -> In { s.input(n).unwrap() };
    let output = |s: &Sim, n: &str| -> Out { s.output(n).unwrap() };
    let (rst, beat_valid, beat_data, fill_valid, fill_good, fill_block, fill_slot) = (
        input(&sim, "rst"),
        input(&sim, "beat_valid"),
        input(&sim, "beat_data"),
        input(&sim, "fill_valid"),
        input(&sim, "fill_good"),
        input(&sim, "fill_block"),
        input(&sim, "fill_slot"),
    );
    let (cw_valid, cw_line, cw_block, cw_beat, cw_last, cw_data, sent_valid, sent_slot) = (
        output(&sim, "cw_valid"),
        output(&sim, "cw_line"),
        output(&sim, "cw_block"),
        output(&sim, "cw_beat"),
        output(&sim, "cw_last"),
        output(&sim, "cw_data"),
        output(&sim, "sent_valid"),
        output(&sim, "sent_slot"),
    );
    let beats = u64::from(m.beats());
    let stored = m.stored_bits() as usize;
    let words = stored.div_ceil(64);
    let mask = |w: usize| -> u64 {
        let bits = stored - 64 * w;
        if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        }
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let reads: u64 = (6000 / beats).max(60);
    let reset_at = rng.gen_range(reads / 4..reads / 2);
    // The beats expected on `cw_*`, and the slots expected on `sent`, in order.
    let mut expect: VecDeque<Beat> = VecDeque::new();
    let mut sent: VecDeque<u64> = VecDeque::new();
    let (mut read, mut beat, mut good) = (0u64, 0u64, true);
    let (mut block_num, mut slot) = (0u64, 0u64);
    let mut pending: Vec<Beat> = Vec::new();
    let (mut seen_beats, mut seen_failed) = (0u64, 0u64);
    let mut in_block: Option<(u64, u64)> = None; // (block, next beat) being broadcast
    let mut was_reset = false;
    sim.set(rst, 1);
    sim.step_n(2);
    sim.set(rst, 0);
    let mut c = 0u64;
    let zero = [0u64; 8];
    loop {
        let done = read >= reads;
        if done && expect.is_empty() && sent.is_empty() {
            break;
        }
        assert!(
            c < 40 * reads * beats + 1000,
            "seed {seed}: the broadcast does not drain"
        );
        let reset = !was_reset && read == reset_at && beat == 0;
        was_reset |= reset;
        let valid = !done && !reset && !rng.gen_bool(gap);
        let mut data = vec![0u64; 8];
        // Noise above the stored bits and while no beat is valid.
        for d in data.iter_mut() {
            *d = rng.gen();
        }
        if beat == 0 && valid {
            block_num = rng.gen_range(0..1u64 << (24 - m.block_bits));
            slot = rng.gen_range(0..u64::from(m.max_misses));
            good = rng.gen_bool(0.8);
        }
        let last = valid && beat == beats - 1;
        sim.set(rst, u64::from(reset));
        sim.set(beat_valid, u64::from(valid));
        sim.set_wide(beat_data, &data);
        sim.set(fill_valid, u64::from(last));
        sim.set(fill_good, u64::from(good || rng.gen_bool(0.5) && !last));
        sim.set(fill_block, if last { block_num } else { rng.gen() });
        sim.set(fill_slot, if last { slot } else { rng.gen_range(0..256) });
        sim.step();
        let at = || format!("seed {seed}, {name}, cycle {c}");
        // The outputs of this cycle (before the edge).
        if sim.is_high(cw_valid) {
            let got = Beat {
                block: sim.get(cw_block),
                beat: sim.get(cw_beat),
                last: sim.is_high(cw_last),
                data: sim.get_wide(cw_data)[..words].to_vec(),
            };
            let want = expect
                .pop_front()
                .unwrap_or_else(|| panic!("a beat too many, {}", at()));
            assert_eq!(got, want, "cache write, {}", at());
            assert_eq!(
                sim.get(cw_line),
                want.block & u64::from(m.cache_lines - 1),
                "line, {}",
                at()
            );
            // A block's beats on consecutive cycles.
            if let Some((b, k)) = in_block {
                assert_eq!(
                    (b, k),
                    (got.block, got.beat),
                    "beats not consecutive, {}",
                    at()
                );
            }
            in_block = (!got.last).then_some((got.block, got.beat + 1));
            seen_beats += 1;
        } else {
            assert!(in_block.is_none(), "a gap inside a block's beats, {}", at());
            assert_eq!(
                sim.get_wide(cw_data)[..words],
                zero[..words],
                "cw_data between beats, {}",
                at()
            );
        }
        if sim.is_high(sent_valid) {
            assert!(
                sim.is_high(cw_valid) && sim.is_high(cw_last),
                "sent off a last beat, {}",
                at()
            );
            let want = sent
                .pop_front()
                .unwrap_or_else(|| panic!("a sent too many, {}", at()));
            assert_eq!(sim.get(sent_slot), want, "sent slot, {}", at());
        }
        if reset {
            expect.clear();
            sent.clear();
            pending.clear();
            beat = 0;
            in_block = None;
        } else if valid {
            let stored_data: Vec<u64> = (0..words).map(|w| data[w] & mask(w)).collect();
            pending.push(Beat {
                block: block_num,
                beat,
                last,
                data: stored_data,
            });
            beat += 1;
            if last {
                if good {
                    expect.extend(pending.drain(..));
                    sent.push_back(slot);
                } else {
                    pending.clear();
                    seen_failed += 1;
                }
                read += 1;
                beat = 0;
            }
        }
        c += 1;
    }
    println!(
        "{name}: {read} reads of {beats} beats, {seen_failed} failed, {seen_beats} beats sent"
    );
    assert!(seen_beats > 0 && seen_failed > 0, "both kinds of read seen");
}

fn mp(block_bits: u32, word_bits: u32, bus: u32) -> MissParams {
    block::miss_params(block_bits, word_bits, 64, bus)
}

#[test]
fn one_beat_blocks_back_to_back() {
    broadcast("one_beat", mp(3, 8, 64), 0.0, 1);
}

#[test]
fn narrow_block_in_a_wide_bus_with_gaps() {
    broadcast("narrow", mp(3, 4, 512), 0.3, 2);
}

#[test]
fn two_beat_blocks_back_to_back() {
    broadcast("two_beats", mp(6, 2, 64), 0.0, 3);
}

#[test]
fn eight_beats_of_512_with_gaps() {
    broadcast("eight_beats", mp(8, 16, 512), 0.2, 4);
}

#[test]
fn one_hundred_28_beats() {
    broadcast("beats_128", mp(8, 32, 64), 0.05, 5);
}
