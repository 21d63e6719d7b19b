//! Block-level tests of the FIFO blocks alone in Verilator against a `VecDeque`: [`MemFifo`]
//! as the response queue at the end of a lookup pipe (4 words of a whole `QueuedLookup`, 124
//! bits) and as the queues of the in_memory path (2, 16 and 512 words, and the read request
//! queue's write-ahead kind in distributed RAM at 2 and 64 words); the head-registered kind
//! ([`MemFifo::head_registered`]: the state cache's wait queue, its head read ahead into
//! registers) at 2, 4, 64 and 512 words, and in distributed RAM at 64 words (the response queue
//! of a pipe with the directory in memory), whose contract is to behave as a plain [`MemFifo`]
//! of the same depth cycle for cycle.
//!
//! Every cycle, before the edge, the block must show exactly the queue's state: `out_valid`
//! when it holds a word, `data_out` the oldest word (first word fall-through: a word pushed at
//! edge `t` is offered right after `t`), `count` the number of words. Pushes keep to the
//! blocks' contract (no `in_valid` into a full FIFO: the producers hold credit); pops are
//! random (backpressure from none to 90 %), pushes from every cycle to rare, including
//! simultaneous push and pop at every fill level. Every word carries a sequence number, so a
//! word lost, doubled or reordered shows at once. A reset in the middle of the traffic empties
//! the queue; each run ends drained: count 0, nothing valid, every word popped exactly once.

use qptable::hw::head_fifo::PeekFifo;
use qptable::hw::lookup_pipe::{QueuedLookup, RSP_FIFO_DEPTH};
use qptable::hw::mem_fifo::MemFifo;
use qptable_sim::{In, Model, Out, Sim};
use qptable_testbench::block;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;
use std::collections::VecDeque;

/// The ports of the FIFOs (one place: a rename in the blocks is a one-line fix here).
struct Ports {
    rst: In,
    in_valid: In,
    data_in: In,
    out_ready: In,
    out_valid: Out,
    data_out: Out,
    count: Out,
    /// [`PeekFifo`]'s second word.
    next: Option<(Out, Out)>,
}

impl Ports {
    fn new(sim: &Sim) -> Ports {
        Ports {
            rst: sim.input("rst").unwrap(),
            in_valid: sim.input("in_valid").unwrap(),
            data_in: sim.input("data_in").unwrap(),
            out_ready: sim.input("out_ready").unwrap(),
            out_valid: sim.output("out_valid").unwrap(),
            data_out: sim.output("data_out").unwrap(),
            count: sim.output("count").unwrap(),
            next: sim
                .output("next_valid")
                .ok()
                .zip(sim.output("data_next").ok()),
        }
    }
}

/// One traffic shape: probability of a push (when not full) and of `out_ready` in a cycle.
#[derive(Clone, Copy, Debug)]
struct Shape {
    push: f64,
    ready: f64,
}

const SHAPES: [Shape; 5] = [
    Shape {
        push: 1.0,
        ready: 1.0,
    },
    Shape {
        push: 0.9,
        ready: 0.5,
    },
    Shape {
        push: 0.5,
        ready: 0.1,
    },
    Shape {
        push: 0.2,
        ready: 0.9,
    },
    Shape {
        push: 0.6,
        ready: 0.6,
    },
];

/// What one run saw, for the coverage checks and the report.
#[derive(Default, Debug)]
struct Seen {
    pushed: u64,
    popped: u64,
    /// Words emptied by the reset.
    discarded: u64,
    /// Cycles with a push and a pop at the same edge.
    push_and_pop: u64,
    /// Cycles seen at each fill level `0..=depth`.
    fill: Vec<u64>,
    resets: u64,
    /// Cycles where the second word was checked ([`PeekFifo`]).
    peeked: u64,
}

/// A random word of `bits` bits carrying the sequence number `seq` in its low 20 bits
/// (every FIFO here is at least 40 bits wide).
fn word(rng: &mut ChaCha8Rng, bits: u32, seq: u64) -> Vec<u64> {
    let n = bits.div_ceil(64) as usize;
    let mut w: Vec<u64> = (0..n).map(|_| rng.gen()).collect();
    w[0] = (w[0] & !0xF_FFFF) | (seq & 0xF_FFFF);
    let top = bits - 64 * (n as u32 - 1);
    if top < 64 {
        w[n - 1] &= (1 << top) - 1;
    }
    w
}

/// Drives `cycles` cycles of `shape` on a FIFO of `depth` words, checking it against a
/// `VecDeque` every cycle, with one reset at a random cycle of the first half, then drains.
fn run(model: &Model, depth: usize, shape: Shape, cycles: u64, seed: u64) -> Seen {
    let mut sim = model.instantiate();
    let p = Ports::new(&sim);
    let bits = p.data_in.width();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut queue: VecDeque<Vec<u64>> = VecDeque::new();
    let mut seen = Seen {
        fill: vec![0; depth + 1],
        ..Seen::default()
    };
    sim.set(p.rst, 1);
    sim.step_n(2);
    sim.set(p.rst, 0);
    let reset_at = rng.gen_range(cycles / 4..cycles / 2);
    let mut seq = 0u64;
    let mut draining = false;
    let mut c = 0u64;
    loop {
        if c == cycles {
            draining = true;
        }
        if draining && queue.is_empty() {
            break;
        }
        assert!(c < cycles + 100 * depth as u64, "the FIFO does not drain");
        let reset = c == reset_at;
        let push = !draining && !reset && queue.len() < depth && rng.gen_bool(shape.push);
        let ready = draining || rng.gen_bool(shape.ready);
        let data = word(&mut rng, bits, seq);
        sim.set(p.rst, u64::from(reset));
        sim.set(p.in_valid, u64::from(push));
        sim.set_wide(p.data_in, &data);
        sim.set(p.out_ready, u64::from(ready));
        sim.step();
        let at = || format!("seed {seed} {shape:?} depth {depth} cycle {c}");
        // What the edge sampled is the queue before the edge.
        assert_eq!(sim.get(p.count), queue.len() as u64, "count, {}", at());
        assert_eq!(
            sim.is_high(p.out_valid),
            !queue.is_empty(),
            "out_valid, {}",
            at()
        );
        if let Some((next_valid, data_next)) = p.next {
            assert_eq!(
                sim.is_high(next_valid),
                queue.len() >= 2,
                "next_valid, {}",
                at()
            );
            if queue.len() >= 2 {
                assert_eq!(
                    sim.get_wide(data_next),
                    queue[1].as_slice(),
                    "data_next is the second word (sequence {}), {}",
                    queue[1][0] & 0xF_FFFF,
                    at()
                );
                seen.peeked += 1;
            }
        }
        seen.fill[queue.len()] += 1;
        if reset {
            // Synchronous reset: the queue is empty after this edge, whatever was offered.
            seen.discarded += queue.len() as u64;
            queue.clear();
            seen.resets += 1;
            c += 1;
            continue;
        }
        let pop = ready && !queue.is_empty();
        if pop {
            let head = queue.pop_front().unwrap();
            assert_eq!(
                sim.get_wide(p.data_out),
                head.as_slice(),
                "data_out is the oldest word (sequence {}), {}",
                head[0] & 0xF_FFFF,
                at()
            );
            seen.popped += 1;
        } else if !queue.is_empty() {
            assert_eq!(
                sim.get_wide(p.data_out),
                queue[0].as_slice(),
                "data_out while not popped, {}",
                at()
            );
        }
        if push {
            queue.push_back(data);
            seq += 1;
            seen.pushed += 1;
        }
        if push && pop {
            seen.push_and_pop += 1;
        }
        c += 1;
    }
    // Drained: nothing valid, count 0, and it stays so.
    sim.set(p.in_valid, 0);
    for _ in 0..4 {
        sim.step();
        assert!(!sim.is_high(p.out_valid), "seed {seed}: valid after drain");
        assert_eq!(sim.get(p.count), 0, "seed {seed}: count after drain");
    }
    seen
}

/// Every shape on `model`; asserts that every fill level and push-with-pop was reached.
fn all_shapes(name: &str, model: &Model, depth: usize, cycles: u64, base_seed: u64) {
    let seed = block::seed(name, base_seed);
    let mut total = Seen {
        fill: vec![0; depth + 1],
        ..Seen::default()
    };
    for (k, shape) in SHAPES.into_iter().enumerate() {
        let s = run(model, depth, shape, cycles, seed.wrapping_add(k as u64));
        total.pushed += s.pushed;
        total.popped += s.popped;
        total.discarded += s.discarded;
        total.push_and_pop += s.push_and_pop;
        total.resets += s.resets;
        total.peeked += s.peeked;
        for (t, f) in total.fill.iter_mut().zip(&s.fill) {
            *t += f;
        }
    }
    println!(
        "{name}: depth {depth}, {} shapes x {cycles} cycles: {} pushed, {} popped, {} emptied \
         by the resets, {} cycles with push and pop, every fill level 0..={depth} seen in at \
         least {} cycles",
        SHAPES.len(),
        total.pushed,
        total.popped,
        total.discarded,
        total.push_and_pop,
        total.fill.iter().min().unwrap()
    );
    assert_eq!(
        total.pushed,
        total.popped + total.discarded,
        "{name}: every word popped once or emptied by a reset"
    );
    for (level, n) in total.fill.iter().enumerate() {
        assert!(*n > 0, "{name}: fill level {level} never reached");
    }
    assert!(total.push_and_pop > 0, "{name}: never a push with a pop");
    if name.starts_with("peek_fifo") {
        assert!(total.peeked > 0, "{name}: the second word never checked");
    }
    assert_eq!(total.resets, SHAPES.len() as u64);
}

#[test]
fn response_queue_against_a_queue() {
    let model = block::model(MemFifo::<QueuedLookup>::new(RSP_FIFO_DEPTH), "rsp_fifo").unwrap();
    assert_eq!(
        model
            .ports()
            .iter()
            .find(|p| p.name == "data_in")
            .map(|p| p.width),
        Some(QueuedLookup::BITS as u32),
        "the response queue carries a whole QueuedLookup"
    );
    all_shapes("rsp_fifo", &model, RSP_FIFO_DEPTH, 20_000, 0xF1F0_0001);
}

#[test]
fn mem_fifo_against_a_queue() {
    for (depth, cycles) in [(2, 10_000), (16, 20_000), (512, 40_000)] {
        let top = format!("mem_fifo_{depth}");
        let model = block::model(MemFifo::<Bits<40>>::new(depth), &top).unwrap();
        all_shapes(&top, &model, depth, cycles, 0xF1F0_0010 + depth as u64);
    }
}

/// The in_memory read request queue's kind: distributed RAM, written at every edge where it is
/// not full (`in_valid` moves only the write pointer). `data_in` carries a random word at every
/// edge, pushed or not, so a word written ahead that overwrote a held word, or a push that
/// lost its word, shows against the queue.
#[test]
fn write_ahead_lut_ram_fifo_against_a_queue() {
    for (depth, cycles) in [(2, 10_000), (64, 20_000)] {
        let top = format!("mem_fifo_ahead_{depth}");
        let model = block::model(MemFifo::<Bits<40>>::lut_ram(depth).write_ahead(), &top).unwrap();
        all_shapes(&top, &model, depth, cycles, 0xF1F0_0A00 + depth as u64);
    }
}

/// The state cache's wait queue: the same queue as a [`MemFifo`] (so the same checks every
/// cycle), its head served from registers while the array (block RAM at 512 words) is read
/// ahead. Depth 2 and 4 keep everything within the head registers and the read in flight; 64
/// and 512 go through the array at every fill level, with pops at every rate from none to
/// every cycle (the shapes above).
#[test]
fn head_fifo_against_a_queue() {
    for (depth, cycles) in [(2, 10_000), (4, 10_000), (64, 20_000), (512, 40_000)] {
        let top = format!("head_fifo_{depth}");
        let model = block::model(MemFifo::<Bits<40>>::new(depth).head_registered(), &top).unwrap();
        all_shapes(&top, &model, depth, cycles, 0xF1F0_0B00 + depth as u64);
    }
    // The response queue of a pipe whose directory is in memory: distributed RAM.
    let top = "head_fifo_lut_64";
    let model = block::model(MemFifo::<QueuedLookup>::lut_ram(64).head_registered(), top).unwrap();
    all_shapes(top, &model, 64, 20_000, 0xF1F0_0C40);
}

/// The state cache's slot queue: a head-registered FIFO in distributed RAM that also shows
/// the word after its head (`next_valid`, `data_next`), checked every cycle against the
/// queue's second word, besides every check of a [`MemFifo`]. Depth 2 and 4 keep every word
/// in the head registers and the read in flight; 64 reaches the second word in the ring and on
/// the array's read register (a drain at one word a cycle), at every fill level.
#[test]
fn peek_fifo_against_a_queue() {
    for (depth, cycles) in [(2, 10_000), (4, 10_000), (64, 20_000)] {
        let top = format!("peek_fifo_{depth}");
        let model = block::model(PeekFifo::<Bits<40>>::new(depth), &top).unwrap();
        all_shapes(&top, &model, depth, cycles, 0xF1F0_0D00 + depth as u64);
    }
}
