//! `qptable bench --workload` ([`bench_workloads`]): every workload kind on small
//! configurations with 0 mismatches against the model, status mixes against what the drawn
//! QPNs must give, and on `configs/in_memory.toml` the memory reads seen by the AXI memory
//! model against the model's count and the draws that hit the live set.

use qptable::config::Config;
use qptable::model::Status;
use qptable_testbench::block::seed;
use qptable_testbench::configs::{named, prebuild};
use qptable_testbench::perf::workload::{
    bench_workloads, directory_entry, Kind, WorkloadOptions, WorkloadReport, WorkloadSpec,
};
use std::path::Path;

fn specs(v: &[&str]) -> Vec<WorkloadSpec> {
    v.iter().map(|s| WorkloadSpec::parse(s).unwrap()).collect()
}

/// Runs workloads `w` (each with `warmup` unmeasured lookups per port first) and checks what
/// holds for every run: 0 mismatches, every lookup answered, the live kinds draw live QPNs.
fn run(cfg: &Config, w: &[&str], live: Option<u32>, lookups: u64, warmup: u64) -> WorkloadReport {
    prebuild(cfg).unwrap();
    let opts = WorkloadOptions {
        specs: specs(w),
        live,
        lookups,
        warmup,
        seed: seed(&cfg.top, 7),
        mem_latency: 10,
    };
    let r = bench_workloads(&cfg.top, cfg, &opts).unwrap();
    print!("{}", r.text());
    assert!(r.mismatches.is_empty(), "{:?}", r.mismatches);
    assert_eq!(r.runs.len(), w.len());
    for run in &r.runs {
        for p in &run.ports {
            assert_eq!(p.lookups, lookups, "{}", p.name);
            assert_eq!(p.statuses.iter().sum::<u64>(), lookups, "{}", p.name);
            if p.kind.needs_live() {
                assert_eq!(p.live_hits, lookups, "{}: every draw is live", p.name);
            }
        }
    }
    r
}

fn count(p: &qptable_testbench::perf::workload::PortWorkload, s: Status) -> u64 {
    p.statuses[s as usize]
}

/// Flat, 2 ports, index_bits 8, max_qps 200: each kind on each port. Uniform and Zipf draw
/// live QPNs only (all OK); garbage is OUT_OF_RANGE for indexes >= 200 (56 of 256) and OK
/// exactly for the draws that are live QPNs.
#[test]
fn every_kind_on_a_flat_config() {
    let cfg = named(
        "qpt_wl_flat",
        &["index_bits=8", "max_qps=200", "ports=tx,rx"],
    );
    let n = 6000;
    let r = run(
        &cfg,
        &["tx=uniform,rx=zipf:0.99", "garbage", "zipf:1.5,tx=garbage"],
        Some(150),
        n,
        500,
    );
    assert_eq!(r.live_qpns.len(), 150);
    // The two ports of `garbage` draw from generators of their own.
    let g = &r.runs[1].ports;
    assert_ne!(g[0].statuses, g[1].statuses, "tx and rx drew the same QPNs");
    for run in &r.runs {
        for p in &run.ports {
            assert!(p.rate > 0.999, "{} {}: {}", run.spec.text, p.name, p.rate);
            assert_eq!(count(p, Status::Ok), p.live_hits, "{}", p.name);
            if p.kind == Kind::Garbage {
                let oor = count(p, Status::OutOfRange) as f64 / n as f64;
                let want = 56.0 / 256.0;
                // 4 standard deviations of a binomial share.
                let sd = (want * (1.0 - want) / n as f64).sqrt();
                assert!((oor - want).abs() < 4.0 * sd, "{}: OOR share {oor}", p.name);
                assert!(count(p, Status::NotAllocated) + count(p, Status::Stale) > 0);
            } else {
                assert_eq!(count(p, Status::Ok), n);
            }
            assert_eq!(p.model_mem_reads, 0, "no memory port");
        }
    }
}

/// two_level with the directory on chip (written through DIR_* by the bench, every 4th
/// entry absent): PAGE_ABSENT exactly for the live QPNs whose entry is absent.
#[test]
fn two_level_on_chip_directory_gives_page_absent_where_written_absent() {
    let cfg = named(
        "qpt_wl_two",
        &[
            "index_bits=8",
            "mode=two_level",
            "leaf_bits=3",
            "ports=tx,rx",
        ],
    );
    let n = 4000;
    let r = run(&cfg, &["uniform", "rx=garbage"], Some(120), n, 0);
    let absent = r
        .live_qpns
        .iter()
        .filter(|&&q| directory_entry(&cfg, (q & 0xff) >> 3) & 1 == 0)
        .count();
    println!("{absent} of 120 live QPNs in an absent page");
    assert!(absent > 10);
    for run in &r.runs {
        for p in &run.ports {
            let (ok, abs) = (count(p, Status::Ok), count(p, Status::PageAbsent));
            assert_eq!(ok + abs, p.live_hits, "{} {}", run.spec.text, p.name);
            if p.kind == Kind::Uniform {
                let share = abs as f64 / n as f64;
                let want = absent as f64 / 120.0;
                let sd = (want * (1.0 - want) / n as f64).sqrt();
                assert!((share - want).abs() < 4.0 * sd, "{}: {share}", p.name);
            }
        }
    }
}

/// configs/in_memory.toml (index_bits 20, directory in memory): the AXI memory model sees
/// exactly the reads the model says (the lookups that pass the on-chip checks), which are
/// exactly the draws of live QPNs; a garbage port almost never reads memory.
#[test]
fn in_memory_reads_are_the_lookups_that_pass_the_on_chip_checks() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let (_, cfg) = qptable::config_files::from_file(&root.join("configs/in_memory.toml")).unwrap();
    let n = 8000;
    // The default live set: the pool, at most 4096 (indexes 2..=4097: directory entries 0
    // to 4, entry 3 absent).
    let r = run(
        &cfg,
        &["tx=uniform,rx=garbage", "garbage", "zipf:0.99"],
        None,
        n,
        1000,
    );
    assert_eq!(r.live, 4096);
    for run in &r.runs {
        let axi = run
            .axi_reads
            .expect("in_memory: the AXI model counts reads");
        let live: u64 = run.ports.iter().map(|p| p.live_hits).sum();
        println!(
            "{}: AXI reads {axi}, model {}, live draws {live}",
            run.spec.text,
            run.model_mem_reads()
        );
        assert_eq!(axi, run.model_mem_reads(), "{}", run.spec.text);
        assert_eq!(axi, live, "{}", run.spec.text);
        for p in &run.ports {
            assert_eq!(p.model_mem_reads, p.live_hits, "{}", p.name);
            match p.kind {
                Kind::Garbage => {
                    assert!(p.no_memory_fraction() > 0.99, "{}", p.name);
                    assert_eq!(
                        count(p, Status::Ok) + count(p, Status::PageAbsent),
                        p.live_hits
                    );
                }
                _ => {
                    assert_eq!(p.mem_reads_per_lookup(), 1.0);
                    assert!(count(p, Status::PageAbsent) > 0, "entry 3 is absent");
                }
            }
        }
    }
}
