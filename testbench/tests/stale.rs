//! The stale-packet campaign (`qptable::stale`): late packets that resolve to a different QP
//! than their sender (the ABA hazard), per reuse policy.
//!
//! Where the design guarantees it the count is exactly 0 (see the guarantees in
//! `src/stale.rs`): a quarantine at least as long as the largest delay; `2^g` generations when
//! fewer than `2^g` ALLOCs fit in one largest delay; cyclic reuse with `g` generation bits when
//! fewer than `2^g + (2^g - 1) * F_min` do. Without any guard (no generation bits, no
//! quarantine) it is measured and must be above 0: the hazard is real. One run also goes
//! through the generated Verilog in Verilator and must count exactly what the model counts.
//! `QPTABLE_SEED=<n>` replays another seed.

use qptable::config::Reuse;
use qptable::model::Status;
use qptable::stale::{self, Guarantee, StaleParams, StaleReport, Victim};
use qptable_testbench::stale_hw;

fn seed() -> u64 {
    let seed = std::env::var("QPTABLE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    println!("seed {seed}");
    seed
}

/// The documented campaign (1000 of 1024 indexes live, a QP replaced every 48 edges, delays
/// up to 10 000 edges), shortened.
fn base(victim: Victim) -> StaleParams {
    StaleParams {
        steps: 30_000,
        victim,
        seed: seed(),
        ..StaleParams::default()
    }
}

fn with(p: &StaleParams, reuse: Reuse, index_bits: u32, quarantine_cycles: u64) -> StaleParams {
    StaleParams {
        reuse,
        index_bits,
        quarantine_cycles,
        ..p.clone()
    }
}

fn show(r: &StaleReport) {
    print!("{}", stale::format_rows(std::slice::from_ref(r)));
}

/// What every run must satisfy: packets of live QPs are all delivered, late packets are
/// either rejected or misdirected (never OUT_OF_RANGE or anything else).
fn sane(r: &StaleReport) {
    let on_time: u64 = r.on_time.iter().sum();
    assert_eq!(r.delivered(), on_time, "{r:?}");
    assert_eq!(r.rejected() + r.misdirected(), r.late_packets(), "{r:?}");
    assert_eq!(
        r.packets(),
        r.params.steps * u64::from(r.params.packets_per_step)
    );
}

#[test]
fn quarantine_at_least_the_largest_delay_misdirects_nothing() {
    // Any reuse policy, no generation bits (index_bits 24): the quarantine alone. In a
    // nearly full table (ALLOC then often answers FULL: the cost) and with room for it.
    for victim in [Victim::Random, Victim::Newest] {
        for live in [1000, 768] {
            for reuse in [Reuse::Lowest, Reuse::Cyclic] {
                let p = StaleParams {
                    live,
                    ..with(&base(victim), reuse, 24, base(victim).max_delay + 1)
                };
                let r = stale::run(&p);
                show(&r);
                sane(&r);
                assert_eq!(r.guarantee(), Some(Guarantee::Quarantine));
                assert_eq!(r.quarantine_overflow, 0);
                assert!(r.late_packets() > 0);
                assert_eq!(r.misdirected(), 0, "{r:?}");
                if live == 768 {
                    // 254 spare indexes hold the ~208 QPs freed per quarantine: no FULL.
                    assert_eq!(r.alloc_full, 0);
                }
            }
        }
    }
}

#[test]
fn generations_when_fewer_allocs_than_generations_fit_in_a_delay() {
    // 8 generation bits (index_bits 16), lowest reuse, the hot-slot churn (the same index is
    // reissued at every step): W, the most ALLOCs in any window of max_delay edges after the
    // first FREE, is 209 < 2^8, so no QPN can come back before its late packets arrive.
    let p = with(&base(Victim::Newest), Reuse::Lowest, 16, 0);
    let r = stale::run(&p);
    show(&r);
    sane(&r);
    assert_eq!(r.max_allocs_in_window, 209);
    assert_eq!(r.guarantee(), Some(Guarantee::Generations));
    assert_eq!(r.misdirected(), 0, "{r:?}");
    // The same schedule without generation bits: every packet misdirected there is STALE here
    // (the allocator hands out the same indexes whatever the generation width).
    let r0 = stale::run(&with(&p, Reuse::Lowest, 24, 0));
    show(&r0);
    assert!(r0.misdirected() > 0);
    assert_eq!(r.late[Status::Stale as usize], r0.misdirected());
    assert_eq!(r.late_packets(), r0.late_packets());
}

#[test]
fn cyclic_reuse_multiplies_the_generations() {
    // 4 generation bits, hot-slot churn in a table with 22 spare indexes. Lowest reuse hands
    // the hot index out again at every step: 16 steps (768 edges) bring its QPN back, far
    // within a delay, and packets are misdirected (measured, > 0). Cyclic reuse hands out
    // every available index (F_min = 22 of them) before the same one again, so the QPN needs
    // 16 + 15 * 22 = 346 ALLOCs to come back, more than fit in a delay (W = 209): 0.
    let p = base(Victim::Newest);
    let lowest = stale::run(&with(&p, Reuse::Lowest, 20, 0));
    show(&lowest);
    sane(&lowest);
    assert_eq!(lowest.guarantee(), None);
    assert!(lowest.misdirected() > 0, "{lowest:?}");
    let cyclic = stale::run(&with(&p, Reuse::Cyclic, 20, 0));
    show(&cyclic);
    sane(&cyclic);
    assert_eq!(cyclic.min_available, Some(22));
    assert_eq!(cyclic.cyclic_bound(), 346);
    assert_eq!(cyclic.guarantee(), Some(Guarantee::CyclicGenerations));
    assert_eq!(cyclic.misdirected(), 0, "{cyclic:?}");
    // With no generation bits the bound is W < 1: cyclic reuse alone guarantees nothing, and
    // in a nearly full table it does misdirect.
    let cyclic0 = stale::run(&with(&p, Reuse::Cyclic, 24, 0));
    show(&cyclic0);
    assert_eq!(cyclic0.guarantee(), None);
    assert!(cyclic0.misdirected() > 0, "{cyclic0:?}");
}

#[test]
fn without_guards_late_packets_are_misdirected() {
    // No generation bits, no quarantine, nearly full table, random victims: measured, and
    // most late packets land on another QP, with either reuse policy.
    for reuse in [Reuse::Lowest, Reuse::Cyclic] {
        let r = stale::run(&with(&base(Victim::Random), reuse, 24, 0));
        show(&r);
        sane(&r);
        assert_eq!(r.guarantee(), None);
        assert!(r.misdirected() > 0, "{r:?}");
        assert!(r.rate() > 0.5, "{r:?}");
    }
    // A quarantine shorter than the delay helps, but is not a guarantee.
    let r = stale::run(&with(&base(Victim::Random), Reuse::Lowest, 24, 2500));
    show(&r);
    assert_eq!(r.guarantee(), None);
    assert!(r.misdirected() > 0, "{r:?}");
}

#[test]
fn every_guaranteed_row_of_the_table_is_zero() {
    // The whole policy grid of the documented tables (shortened), three workloads.
    let mut guaranteed = 0;
    for (victim, live) in [
        (Victim::Random, 1000),
        (Victim::Newest, 1000),
        (Victim::Random, 768),
    ] {
        let b = StaleParams {
            steps: 20_000,
            live,
            ..base(victim)
        };
        let reports: Vec<StaleReport> = stale::grid(&b).iter().map(stale::run).collect();
        println!("{}\n{}", stale::describe(&b), stale::format_rows(&reports));
        for r in &reports {
            sane(r);
            if r.guarantee().is_some() {
                guaranteed += 1;
                assert_eq!(r.misdirected(), 0, "{r:?}");
            }
        }
    }
    assert!(guaranteed >= 30, "{guaranteed}");
}

#[test]
fn a_run_is_a_function_of_its_seed() {
    let p = StaleParams {
        steps: 5_000,
        ..with(&base(Victim::Random), Reuse::Cyclic, 23, 2500)
    };
    assert_eq!(stale::run(&p), stale::run(&p));
    let other = stale::run(&StaleParams {
        seed: p.seed + 1,
        ..p.clone()
    });
    assert_ne!(stale::run(&p), other);
}

#[test]
fn hardware_counts_equal_the_model() {
    // 64 indexes, 48 live, 1 generation bit, lowest reuse, a 3000-edge quarantine of depth 4
    // that overflows: NOT_ALLOCATED, STALE and misdirected packets all occur. Commands every
    // 200 edges (room for the hardware to finish each one and drain the packets between).
    let p = StaleParams {
        index_bits: 23,
        max_qps: 64,
        first_index: 2,
        reuse: Reuse::Lowest,
        quarantine_cycles: 3000,
        quarantine_depth: 4,
        live: 48,
        cmd_interval: 200,
        max_delay: 12_000,
        steps: 700,
        packets_per_step: 4,
        victim: Victim::Random,
        seed: seed(),
    };
    let model = stale::run(&p);
    show(&model);
    let start = std::time::Instant::now();
    let hw = stale_hw::run_on_hardware(&p).expect("hardware run");
    println!(
        "hardware ({:.1} s, every command and lookup checked by the scoreboard):",
        start.elapsed().as_secs_f64()
    );
    show(&hw);
    assert_eq!(hw, model);
    assert!(model.misdirected() > 0 && model.late[Status::Stale as usize] > 0);
    assert!(model.late[Status::NotAllocated as usize] > 0 && model.quarantine_overflow > 0);
}
