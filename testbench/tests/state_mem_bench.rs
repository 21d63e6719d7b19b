//! The SPEC §9 targets computation of `qptable bench` (`perf::state_mem`) on a small state
//! in_memory configuration: the figures it reports agree with each other, with the engine's
//! counters, with the AXI memory model and with what the live set implies, worked out here
//! from the QPNs drawn (no timing threshold: the small configuration is not the one the
//! targets are about).

use qptable_testbench::configs::named;
use qptable_testbench::markdown::{header_row, split_row};
use qptable_testbench::perf::report;
use qptable_testbench::perf::state_mem::{bench_state_mem, StateMemOptions};

#[test]
fn state_mem_figures_agree_with_the_counters_and_the_memory_model() {
    // index_bits 10, blocks of 16 indexes (16-bit words: 4 beats of 64 bits), 16 cache lines,
    // 4 fetches in flight, two ports, first_index 2, cyclic ALLOC.
    let cfg = named(
        "qpt_sm_bench",
        &[
            "state=in_memory",
            "index_bits=10",
            "block_bits=4",
            "cache_lines=16",
            "max_misses=4",
            "ports=tx,rx",
        ],
    );
    let o = StateMemOptions {
        hot_live: 100,
        cold_live: 600,
        lookups: 3000,
        warmup: 3000,
        seed: 7,
        cmd_max_qps: 128,
        cmd_samples: 6,
        keep_draws: true,
        ..Default::default()
    };
    println!("seed {}", o.seed);
    let r = bench_state_mem("small", &cfg, &o, &mut |l| println!("{l}")).unwrap();
    print!("{}", r.text());
    assert!(r.mismatches.is_empty(), "{:?}", r.mismatches);
    assert_eq!(r.beats, 4);
    // Cyclic ALLOC hands out indexes 2, 3, ... in order: the live blocks are those of
    // indexes 2 ..= cold_live + 1 (the hot set: 2 ..= 101, blocks 0..=6).
    let block = |q: u32| (q & 0x3FF) >> 4;
    let last_live_block = (o.cold_live + 1) >> 4;
    let names: Vec<&str> = r.workloads.iter().map(|w| w.name).collect();
    assert_eq!(names, ["hot", "cold", "garbage", "tx alone", "rx flood"]);
    for w in &r.workloads {
        let k = w.counters;
        let lookups = w.lookups();
        let drawn: u64 = w.drawn.iter().map(|d| d.len() as u64).sum();
        assert_eq!(lookups, drawn, "{}: lookups accepted vs drawn", w.name);
        let oor: u64 = w.ports.iter().map(|p| p.out_of_range).sum();
        // Every lookup is exactly one of: out of range, filtered, hit, miss.
        assert_eq!(
            k.hit + k.miss + k.filtered + oor,
            lookups,
            "{}: the counters do not cover the lookups",
            w.name
        );
        // No command in a window: every read is a block fetch of a miss not merged.
        assert_eq!(
            k.reads, w.axi_reads,
            "{}: MEM_READS vs AR handshakes",
            w.name
        );
        assert_eq!(k.miss - k.merged, k.reads, "{}: fetches", w.name);
        assert_eq!((k.writes, w.axi_writes), (0, 0), "{}: writes", w.name);
        // FILTERED: exactly the lookups of a block that holds no live index.
        let dead = w
            .drawn
            .iter()
            .flatten()
            .filter(|&&q| block(q) > last_live_block)
            .count() as u64;
        let dead = if w.live == o.hot_live {
            w.drawn
                .iter()
                .flatten()
                .filter(|&&q| block(q) > (o.hot_live + 1) >> 4)
                .count() as u64
        } else {
            dead
        };
        assert_eq!(
            k.filtered, dead,
            "{}: FILTERED vs blocks with no live index",
            w.name
        );
        assert!(
            k.filtered <= w.not_allocated,
            "{}: filtered lookups answer NOT_ALLOCATED",
            w.name
        );
        // The memory model never holds more reads than there are fetch slots.
        assert!(w.in_flight_max <= cfg.max_misses as usize, "{}", w.name);
        assert!(w.in_flight_mean <= w.in_flight_max as f64, "{}", w.name);
        // The bound is one: no port beats it (2 % for the window's edges).
        assert!(
            w.min_rate() <= r.bound(w) * 1.02,
            "{}: {} lookups/cycle above the bound {}",
            w.name,
            w.min_rate(),
            r.bound(w)
        );
    }
    let hot = r.workload("hot").unwrap();
    // 7 live blocks in 16 lines, warmed up: every lookup hits, nothing is read.
    assert_eq!(hot.counters.hit, hot.lookups(), "hot: every lookup hits");
    assert_eq!(hot.hit_rate(), 1.0);
    assert_eq!(hot.counters.reads, 0);
    // Cold: 38 live blocks in 16 lines: some lookups miss.
    let cold = r.workload("cold").unwrap();
    assert!(cold.counters.miss > 0 && cold.counters.filtered == 0);
    assert_eq!(cold.not_allocated, 0, "cold draws only VALID QPNs");
    // Flood: rx ran for at least tx's window; alone: rx idle.
    let alone = r.workload("tx alone").unwrap();
    assert_eq!(alone.ports[1].lookups, 0);
    let flood = r.workload("rx flood").unwrap();
    assert!(flood.ports[1].cycles >= flood.ports[0].cycles);
    // Commands: four levels, every sample timed; at 100 % every first ALLOC is FULL.
    let c = r.cmd.as_ref().unwrap();
    let labels: Vec<&str> = c.levels.iter().map(|l| l.label).collect();
    assert_eq!(labels, ["0 %", "100 %", "99.9 %", "50 %"]);
    for l in &c.levels {
        assert_eq!((l.alloc.0, l.free.0), (6, 6), "{}", l.label);
    }
    assert_eq!(c.levels[1].alloc_full.0, 6);
    assert_eq!(c.levels[1].in_use, c.pool);
    assert_eq!(r.targets().len(), 6);
    // The section of BENCHMARKS.md: both tables, one row per running port of each workload
    // and one per target, every row as wide as its header.
    let md = report::state_mem_markdown(std::slice::from_ref(&r));
    let rows = |cols: &[&str]| -> Vec<Vec<String>> {
        let head = header_row(cols);
        let at = md
            .find(&head)
            .unwrap_or_else(|| panic!("no table {cols:?} in\n{md}"));
        md[at + head.len()..]
            .lines()
            .skip(1)
            .take_while(|l| l.starts_with('|'))
            .map(|l| split_row(l).unwrap())
            .collect()
    };
    let w = rows(&report::STATE_MEM_WORKLOAD_COLUMNS);
    let running: usize = r.workloads.iter().map(|w| w.active_ports()).sum();
    assert_eq!(w.len(), running);
    assert!(w
        .iter()
        .all(|c| c.len() == report::STATE_MEM_WORKLOAD_COLUMNS.len()));
    let t = rows(&report::STATE_MEM_TARGET_COLUMNS);
    assert_eq!(t.len(), 6);
    for (row, (ok, _)) in t.iter().zip(r.targets()) {
        assert_eq!(row[2], if ok { "met" } else { "NOT MET" });
    }
}
