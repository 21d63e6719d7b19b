//! Block-level tests of the three blocks both command engines share, each alone in Verilator
//! against a plain model: the quarantine queue ([`Quarantine`], against a `VecDeque` of
//! `(time, index)`), the FREE drain ([`Drain`], against the request and response counts of
//! lookup streams) and the command counters ([`CmdCounters`], against plain sums).
//!
//! Every run is seeded (the seed is printed; `QPTABLE_SEED` replays it), mixes busy and idle
//! stretches (every input from every cycle to rare), resets the block once in the middle of
//! the traffic, and ends with nothing outstanding: the queue emptied, every counted lookup
//! answered, the counters at their sums. Each block's doc comment states its timing; the
//! checks here are exact to the cycle against it.

use qptable::hw::cmd_counters::CmdCounters;
use qptable::hw::drain::Drain;
use qptable::hw::quarantine::Quarantine;
use qptable::hw::EngineParams;
use qptable_sim::{In, Out, Sim};
use qptable_testbench::{block, configs};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// Probabilities of an input being active in a cycle: busy to rare.
const RATES: [f64; 4] = [1.0, 0.6, 0.2, 0.03];

/// The quarantine against a queue of `(time, index)`: `count` and `full` every cycle;
/// `head_index` and `due` in every cycle at least `head_latency` cycles after the last push
/// or pop (the engines' contract). `now` moves on by random steps, from just below the
/// 48-bit wrap, so the subtraction that measures the time wraps during the run.
fn quarantine_run(sets: &[&str], cycles: u64, seed: u64) {
    let p = EngineParams::new(&configs::config(sets));
    let q = Quarantine::new(&p);
    let latency = q.head_latency() as u64;
    let top = format!("quarantine_{}_{}", p.quarantine_depth, p.quarantine_cycles);
    let model = block::model(q, &top).unwrap();
    let mut sim = model.instantiate();
    let input = |s: &Sim, n: &str| -> In { s.input(n).unwrap() };
    let output = |s: &Sim, n: &str| -> Out { s.output(n).unwrap() };
    let (rst, now, push, push_index, pop) = (
        input(&sim, "rst"),
        input(&sim, "now"),
        input(&sim, "push"),
        input(&sim, "push_index"),
        input(&sim, "pop"),
    );
    let (head_index, due, full, count) = (
        output(&sim, "head_index"),
        output(&sim, "due"),
        output(&sim, "full"),
        output(&sim, "count"),
    );
    let depth = p.quarantine_depth as usize;
    let wait = p.quarantine_cycles;
    const WRAP: u64 = 1 << 48;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut queue: VecDeque<(u64, u64)> = VecDeque::new();
    let mut t: u64 = WRAP - cycles / 2;
    let mut quiet: u64 = 0; // cycles since the last push or pop
    let (mut pushed, mut popped, mut checked_due, mut full_seen) = (0u64, 0u64, [0u64; 2], 0u64);
    let reset_at = rng.gen_range(cycles / 4..cycles / 2);
    sim.set(rst, 1);
    sim.step_n(2);
    sim.set(rst, 0);
    let mut c = 0u64;
    loop {
        let draining = c >= cycles;
        if draining && queue.is_empty() {
            break;
        }
        assert!(
            c < cycles + 10 * depth as u64 + 100,
            "the queue does not drain"
        );
        let rate = RATES[((c / 997) % RATES.len() as u64) as usize];
        // The engines' time is the edge count at each command: a step of 1 a cycle on
        // average, and now and then a long pause.
        let step = if rng.gen_bool(0.01) {
            rng.gen_range(0..=4 * wait)
        } else {
            rng.gen_range(0..=2)
        };
        t = (t + step) % WRAP;
        let reset = c == reset_at;
        let do_push = !reset && !draining && queue.len() < depth && rng.gen_bool(rate);
        let do_pop = !reset && !queue.is_empty() && (draining || rng.gen_bool(rate * 0.9));
        let index = rng.gen_range(0..1u64 << 24);
        sim.set(rst, u64::from(reset));
        sim.set(now, t);
        sim.set(push, u64::from(do_push));
        sim.set(push_index, index);
        sim.set(pop, u64::from(do_pop));
        sim.step();
        let at = || format!("seed {seed} {sets:?} cycle {c}");
        assert_eq!(sim.get(count), queue.len() as u64, "count, {}", at());
        assert_eq!(sim.is_high(full), queue.len() == depth, "full, {}", at());
        full_seen += u64::from(queue.len() == depth);
        if quiet >= latency {
            if let Some(&(pushed_at, idx)) = queue.front() {
                assert_eq!(sim.get(head_index), idx, "head_index, {}", at());
                let elapsed = t.wrapping_sub(pushed_at) % WRAP;
                let expect = wait > 0 && elapsed >= wait;
                assert_eq!(sim.is_high(due), expect, "due, {}", at());
                checked_due[usize::from(expect)] += 1;
            } else {
                assert!(!sim.is_high(due), "due with an empty queue, {}", at());
            }
        }
        if reset {
            queue.clear();
            quiet = 0;
        } else {
            if do_pop {
                queue.pop_front();
                popped += 1;
            }
            if do_push {
                queue.push_back((t, index));
                pushed += 1;
            }
            quiet = if do_push || do_pop { 0 } else { quiet + 1 };
        }
        c += 1;
    }
    // Nothing outstanding: the count says empty after the last pop.
    sim.set(push, 0);
    sim.set(pop, 0);
    sim.step();
    assert_eq!(sim.get(count), 0, "seed {seed}: count after the drain");
    println!(
        "{sets:?}: {pushed} pushed, {popped} popped, due checked {} times high and {} low, \
         {full_seen} cycles full",
        checked_due[1], checked_due[0]
    );
    assert!(pushed > depth as u64 && popped > 0, "traffic too thin");
    if wait > 0 {
        assert!(
            checked_due[0] > 0 && checked_due[1] > 0,
            "due seen both ways"
        );
    }
    assert!(full_seen > 0, "the queue was never full");
}

#[test]
fn quarantine_against_a_queue() {
    let seed = block::seed("quarantine_against_a_queue", 61);
    for (k, sets) in [
        &["quarantine_depth=4", "quarantine_cycles=0"][..],
        &["quarantine_depth=4", "quarantine_cycles=7"],
        &["quarantine_depth=16", "quarantine_cycles=1"],
        &["quarantine_depth=64", "quarantine_cycles=40"],
    ]
    .iter()
    .enumerate()
    {
        quarantine_run(sets, 20_000, seed + k as u64);
    }
}

/// The drain against lookup streams: each port's requests and in-order responses come at
/// random (`in_flight` their difference), `snap` at random moments, also while a count
/// runs. With `snap` in cycle `n`, `drained` in a cycle `x > n` (until the next snap) is
/// "every port has answered, by cycle `x - 2`, every request it took by cycle `n - 1`".
fn drain_run(ports: usize, cycles: u64, seed: u64) {
    let model = block::model(Drain::new(ports), &format!("drain_{ports}")).unwrap();
    let mut sim = model.instantiate();
    let rst = sim.input("rst").unwrap();
    let snap = sim.input("snap").unwrap();
    let drained = sim.output("drained").unwrap();
    // Port `p` of a vector is `<name>$<p>` in the Verilog, which Verilator spells `__024`.
    let pin = |s: &Sim, n: &str, p: usize| -> In { s.input(&format!("{n}__024{p}")).unwrap() };
    let req: Vec<In> = (0..ports).map(|p| pin(&sim, "req_fire", p)).collect();
    let rsp: Vec<In> = (0..ports).map(|p| pin(&sim, "rsp_fire", p)).collect();
    let fly: Vec<In> = (0..ports).map(|p| pin(&sim, "in_flight", p)).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Requests and responses taken up to and including each cycle, per port.
    let mut reqs: Vec<Vec<u64>> = vec![vec![0]; ports];
    let mut rsps: Vec<Vec<u64>> = vec![vec![0]; ports];
    // The latest snap: the cycle it was taken in and its targets.
    let mut target: Option<(usize, Vec<u64>)> = None;
    let reset_at = rng.gen_range(cycles as usize / 4..cycles as usize / 2);
    let (mut snaps, mut waited, mut seen_high) = (0u64, 0u64, 0u64);
    sim.set(rst, 1);
    sim.step_n(2);
    sim.set(rst, 0);
    // Cycle indexes: `reqs[p][c + 1]` counts through cycle `c`.
    let mut c = 0usize;
    loop {
        let draining = c as u64 >= cycles;
        let in_flight: Vec<u64> = (0..ports).map(|p| reqs[p][c] - rsps[p][c]).collect();
        if draining && in_flight.iter().all(|&f| f == 0) && c as u64 > cycles + 4 {
            break;
        }
        assert!((c as u64) < cycles + 5000, "the lookups do not drain");
        let phase = (c / 613) % RATES.len();
        let rate_req = RATES[phase];
        let rate_rsp = RATES[(phase + p_shift(seed)) % RATES.len()];
        let reset = c == reset_at;
        let take_snap = !reset && !draining && rng.gen_bool(0.01);
        sim.set(rst, u64::from(reset));
        sim.set(snap, u64::from(take_snap));
        for p in 0..ports {
            let r = !draining && in_flight[p] < 400 && rng.gen_bool(rate_req);
            let s = in_flight[p] > 0 && (draining || rng.gen_bool(rate_rsp));
            sim.set(req[p], u64::from(r));
            sim.set(rsp[p], u64::from(s));
            sim.set(fly[p], in_flight[p]);
            let (r_sum, s_sum) = (reqs[p][c] + u64::from(r), rsps[p][c] + u64::from(s));
            reqs[p].push(r_sum);
            rsps[p].push(s_sum);
        }
        sim.step();
        // What cycle c shows: the state after edge c - 1.
        let expect = match &target {
            Some((n, t)) if c > *n => (0..ports).all(|p| c >= 2 && rsps[p][c - 1] >= t[p]),
            _ => true,
        };
        assert_eq!(
            sim.is_high(drained),
            expect,
            "drained, seed {seed} ports {ports} cycle {c} (snap {:?})",
            target.as_ref().map(|t| t.0)
        );
        seen_high += u64::from(expect);
        waited += u64::from(!expect);
        if reset {
            target = None;
        } else if take_snap {
            // Requests through cycle c - 1.
            target = Some((c, (0..ports).map(|p| reqs[p][c]).collect()));
            snaps += 1;
        }
        c += 1;
    }
    // Nothing outstanding: every lookup answered, the last count has run out.
    for p in 0..ports {
        sim.set(req[p], 0);
        sim.set(rsp[p], 0);
        sim.set(fly[p], 0);
    }
    sim.set(snap, 0);
    sim.step_n(3);
    assert!(sim.is_high(drained), "seed {seed}: drained at the end");
    println!("{ports} ports: {snaps} snaps, {waited} cycles waiting, {seen_high} drained");
    assert!(
        snaps > 10 && waited > 100 && seen_high > 100,
        "traffic too thin"
    );
}

/// A different mix of request and response rates for each seed.
fn p_shift(seed: u64) -> usize {
    1 + (seed % 3) as usize
}

#[test]
fn drain_against_counted_lookups() {
    let seed = block::seed("drain_against_counted_lookups", 62);
    for ports in 1..=4 {
        drain_run(ports, 30_000, seed + ports as u64);
    }
}

/// The counters against sums: a pulse of cycle `k` shows in `counts` from cycle `k + 2`
/// (registered, then counted); `quarantined` passes through. IN_USE never goes below 0 (the
/// engines free only what they reserved).
#[test]
fn counters_against_sums() {
    let seed = block::seed("counters_against_sums", 63);
    let model = block::model(CmdCounters::default(), "cmd_counters").unwrap();
    let mut sim = model.instantiate();
    let rst = sim.input("rst").unwrap();
    // `events`: reserved, freed, error, full, overflow, the first field lowest.
    let events = sim.input("events").unwrap();
    let quarantined = sim.input("quarantined").unwrap();
    let counts = sim.output("counts").unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let cycles = 40_000u64;
    let reset_at = rng.gen_range(cycles / 4..cycles / 2);
    // Sums as the counters must show them: `shown` in this cycle, `next` from the next one,
    // `later` from the one after.
    let mut shown = [0u64; 6];
    let mut next = shown;
    sim.set(rst, 1);
    sim.step_n(2);
    sim.set(rst, 0);
    let mut in_use_seen_zero = 0u64;
    for c in 0..cycles + 4 {
        let rate = RATES[((c / 509) % RATES.len() as u64) as usize];
        let quiet = c >= cycles;
        let reset = c == reset_at;
        let mut on = [false; 5];
        for (k, o) in on.iter_mut().enumerate() {
            *o = !quiet && rng.gen_bool(rate * if k < 2 { 0.5 } else { 0.2 });
        }
        // IN_USE (`next[4]`, what it will be once every pulse so far has counted) >= 0.
        if on[1] && !on[0] && next[4] == 0 {
            on[1] = false;
        }
        let q = rng.gen_range(0..=4096u64);
        sim.set(rst, u64::from(reset));
        sim.set(
            events,
            on.iter().enumerate().map(|(k, &o)| u64::from(o) << k).sum(),
        );
        sim.set(quarantined, q);
        sim.step();
        // counts: alloc_ok, alloc_full, free_ok, cmd_error, in_use, quarantine_overflow,
        // quarantined (32 bits each, the first field lowest).
        let w = sim.get_wide(counts);
        let field = |k: usize| -> u64 {
            let bit = 32 * k;
            (w[bit / 64] >> (bit % 64)) & 0xFFFF_FFFF
        };
        let at = format!("seed {seed} cycle {c}");
        let want = [shown[0], shown[3], shown[1], shown[2], shown[4], shown[5]];
        for (k, name) in [
            "ALLOC_OK",
            "ALLOC_FULL",
            "FREE_OK",
            "CMD_ERROR",
            "IN_USE",
            "QUARANTINE_OVERFLOW",
        ]
        .iter()
        .enumerate()
        {
            assert_eq!(field(k), want[k], "{name}, {at}");
        }
        assert_eq!(field(6), q, "QUARANTINED passes through, {at}");
        in_use_seen_zero += u64::from(shown[4] == 0);
        // The pipeline of the sums: this cycle's pulses show two cycles on.
        shown = next;
        if reset {
            // The reset clears the counters and the registered pulses.
            shown = [0; 6];
            next = [0; 6];
        } else {
            next[0] += u64::from(on[0]);
            next[1] += u64::from(on[1]);
            next[2] += u64::from(on[2]);
            next[3] += u64::from(on[3]);
            next[4] = next[4] + u64::from(on[0]) - u64::from(on[1]);
            next[5] += u64::from(on[4]);
        }
    }
    println!("sums at the end {shown:?}; IN_USE at 0 in {in_use_seen_zero} cycles");
    assert_eq!(shown, next, "nothing outstanding at the end");
    assert!(
        [0, 1, 2, 3, 5].iter().all(|&k| shown[k] > 100) && in_use_seen_zero > 0,
        "traffic too thin"
    );
}
