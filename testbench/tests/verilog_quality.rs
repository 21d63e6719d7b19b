//! Quality of the emitted Verilog, checked with tools other than the simulator it is tested
//! on, for every shipped configuration (`configs/*.toml`) and a few extra ones built here:
//!
//! | test | what it checks |
//! |---|---|
//! | `verilator_lint_is_clean` | `verilator --lint-only -Wall <top>.vlt <top>.v` exits 0 and prints nothing, with the waivers `qptable gen` writes beside `<top>.v` |
//! | `no_port_is_assigned_twice_in_one_evaluation` | no signal that leaves a block (an output port, or a child's input that the child reads combinationally) is assigned twice on one path of an `always @(*)` block: in an event-driven simulator it pulses, and two such blocks can wake each other forever ([`comb_ports`](qptable_testbench::comb_ports)) |
//! | `icarus_compiles_without_warnings` | `iverilog -g2005 -Wall -o /dev/null -s <top> <top>.v` exits 0 and prints nothing |
//! | `yosys_*` | synthesis succeeds with no `Warning:` and `check -assert` finds no undriven or multiply driven net, before and after synthesis (`synth_ecp5` for the shipped configurations: it maps the state RAMs to block RAM; generic `synth` for `index_bits = 4`) |
//! | `gen_is_fresh` | `gen/<top>.v` is byte for byte the Verilog of `configs/<name>.toml`, `gen/<top>.vlt` its lint waivers and `gen/<top>_inst.vh` its instantiation template, and `verilator.vlt` the waivers of all of them in one file; `QPTABLE_BLESS=1` rewrites them |
//! | `default_top_ports_are_spec_section_4` | the ports of `qp_table` are exactly SPEC §4's, names, directions and widths |
//! | `top_ports_follow_the_configuration` | the same rule, derived from each configuration |
//! | `no_combinational_path_but_the_documented` | the combinational paths from the top module's inputs to its outputs ([`comb_paths`](qptable_testbench::comb_paths), yosys), of every configuration and of two with `fpga = ecp5`, are exactly the table of `docs/integration.md` (ports of a lookup port written `s_<p>_req_*`, `m_<p>_rsp_*`), none to the memory port `m_axi_*` (SPEC §4); `QPTABLE_BLESS=1` rewrites the table's pairs, and a row whose why is `(to be explained)` fails |
//! | `a_planted_combinational_path_is_found` | the check sees a path planted in the top module by one textual edit, in the smallest design of each organisation |
//!
//! Blocks of SPEC §9 (`MemWriter`, `CacheWrites`) are also checked alone by the lint, Icarus,
//! one-assignment and yosys tests, as if each were an engine.
//!
//! The Verilog of every configuration is generated once per test process and written to
//! `<target>/tmp/verilog_quality/out/<top>.v`, its waivers beside it as `<top>.vlt`.
//!
//! Regenerate the committed files after a change of the hardware description with:
//!
//! ```text
//! QPTABLE_BLESS=1 cargo test --release -p qptable-testbench --test verilog_quality
//! ```

use qptable::config::{Config, Directory, Mode, State};
use qptable::generate::{
    generate_verilog, instantiation_template, instantiation_template_name, lint_waivers_name,
    write_atomically,
};
use qptable_testbench::tools::{
    first_difference, relative, repo_root, run_tool, shipped_configs, tail, top_ports, waiver_file,
    PortDecl, PortDir as Dir, ToolRun, TAIL_LINES,
};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The environment variable that makes `gen_is_fresh` rewrite `gen/` instead of failing.
const BLESS_ENV: &str = "QPTABLE_BLESS";

/// The command that regenerates `gen/`, for failure messages.
const BLESS_COMMAND: &str =
    "QPTABLE_BLESS=1 cargo test --release -p qptable-testbench --test verilog_quality";

/// Extra configurations: a label and the `--set` assignments over the defaults. Each has
/// its own `top` so that the files do not collide.
const EXTRA_CONFIGS: &[(&str, &[&str])] = &[
    // The smallest table, every index allocatable, max_qps not a power of two.
    (
        "index_bits_4",
        &[
            "index_bits=4",
            "max_qps=13",
            "first_index=0",
            "top=qp_table_x_index_bits_4",
        ],
    ),
    // The largest table: no generation bits at all.
    (
        "index_bits_24",
        &["index_bits=24", "ports=rx", "top=qp_table_x_index_bits_24"],
    ),
    // The widest tag and address.
    (
        "tag_32_addr_64",
        &[
            "tag_bits=32",
            "addr_bits=64",
            "top=qp_table_x_tag_32_addr_64",
        ],
    ),
    // The largest stride.
    (
        "entry_bytes_4096",
        &["entry_bytes=4096", "top=qp_table_x_entry_bytes_4096"],
    ),
    // The quarantine at its largest: time 2^32 - 1 cycles, 4096 entries.
    (
        "quarantine_max",
        &[
            "quarantine_cycles=4294967295",
            "quarantine_depth=4096",
            "top=qp_table_x_quarantine_max",
        ],
    ),
    // The smallest quarantine.
    (
        "quarantine_min",
        &[
            "index_bits=4",
            "quarantine_cycles=1",
            "quarantine_depth=1",
            "top=qp_table_x_quarantine_min",
        ],
    ),
    // in_memory at its extremes: one port and one read in flight with 32-bit addresses;
    // four ports and 256 reads in flight (512-entry queues).
    (
        "in_memory_min",
        &[
            "mode=two_level",
            "directory=in_memory",
            "index_bits=6",
            "leaf_bits=2",
            "max_outstanding=1",
            "ports=rx",
            "addr_bits=32",
            "mem_data_bits=128",
            "top=qp_table_x_in_memory_min",
        ],
    ),
    (
        "in_memory_max",
        &[
            "mode=two_level",
            "directory=in_memory",
            "index_bits=8",
            "leaf_bits=1",
            "max_outstanding=256",
            "ports=a,b,c,d",
            "tag_bits=32",
            "mem_data_bits=512",
            "top=qp_table_x_in_memory_max",
        ],
    ),
    // The state in memory (SPEC §9) at its extremes: one port, one miss, the smallest blocks
    // of 32-bit words on a 64-bit bus, 32-bit addresses; four ports, 256 misses, the largest
    // blocks on a 512-bit bus, two_level with the directory on chip, the quarantine.
    (
        "state_in_memory_min",
        &[
            "state=in_memory",
            "index_bits=6",
            "block_bits=3",
            "cache_lines=16",
            "max_misses=1",
            "ports=rx",
            "addr_bits=32",
            "top=qp_table_x_state_in_memory_min",
        ],
    ),
    (
        "state_in_memory_max",
        &[
            "state=in_memory",
            "mode=two_level",
            "index_bits=16",
            "leaf_bits=8",
            "block_bits=8",
            "cache_lines=16",
            "max_misses=256",
            "mem_data_bits=512",
            "ports=a,b,c,d",
            "tag_bits=32",
            "quarantine_cycles=1000",
            "reuse=lowest",
            "top=qp_table_x_state_in_memory_max",
        ],
    ),
    // The state and the directory both in memory (three read IDs): blocks narrower than the
    // bus (the directory's reads are whole bus words), one read of each in flight; and the
    // widest bus with the most reads in flight.
    (
        "state_and_dir_in_memory_min",
        &[
            "state=in_memory",
            "mode=two_level",
            "directory=in_memory",
            "index_bits=6",
            "leaf_bits=2",
            "block_bits=3",
            "cache_lines=16",
            "max_misses=1",
            "max_outstanding=1",
            "mem_data_bits=128",
            "ports=rx",
            "addr_bits=32",
            "top=qp_table_x_state_and_dir_in_memory_min",
        ],
    ),
    (
        "state_and_dir_in_memory_max",
        &[
            "state=in_memory",
            "mode=two_level",
            "directory=in_memory",
            "index_bits=12",
            "leaf_bits=1",
            "block_bits=8",
            "cache_lines=16",
            "max_misses=256",
            "max_outstanding=256",
            "mem_data_bits=512",
            "ports=a,b,c,d",
            "tag_bits=32",
            "top=qp_table_x_state_and_dir_in_memory_max",
        ],
    ),
    // The most ports.
    (
        "four_ports",
        &["ports=a,b,c,d", "top=qp_table_x_four_ports"],
    ),
    // Every width at its largest on a table small enough for generic synthesis.
    (
        "index_bits_4_widest",
        &[
            "index_bits=4",
            "ports=tx,rx,cnp,aux",
            "tag_bits=32",
            "addr_bits=64",
            "entry_bytes=4096",
            "reuse=lowest",
            "top=qp_table_x_index_bits_4_widest",
        ],
    ),
];

/// One configuration and its emitted Verilog.
struct Design {
    /// `default`, `small`, ... for shipped configurations, the label for extra ones.
    label: String,
    /// Where the configuration comes from, for messages.
    origin: String,
    config: Config,
    /// The Verilog text.
    text: String,
    /// Where the text was written (a directory named `gen`).
    path: PathBuf,
}

/// `<target>/tmp/verilog_quality/out`: where the Verilog under test is written (not a
/// directory named `gen`: the waivers hold in any folder).
fn work_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("verilog_quality")
        .join("out")
}

/// Every shipped and extra configuration, generated once per process.
fn designs() -> &'static [Design] {
    static DESIGNS: OnceLock<Vec<Design>> = OnceLock::new();
    DESIGNS.get_or_init(|| {
        let mut configs: Vec<(String, String, Config)> = shipped_configs()
            .into_iter()
            .map(|s| (s.name, relative(&s.path), s.config))
            .collect();
        configs.extend(
            EXTRA_CONFIGS
                .iter()
                .map(|(label, assignments)| extra_config(label, assignments)),
        );
        configs
            .into_iter()
            .map(|(label, origin, config)| generate_design(label, origin, config))
            .collect()
    })
}

/// A label, its origin and the configuration of the defaults with `assignments`.
fn extra_config(label: &str, assignments: &[&str]) -> (String, String, Config) {
    let mut config = Config::default();
    for a in assignments {
        config
            .set(a)
            .unwrap_or_else(|e| panic!("extra configuration {label}: {e}"));
    }
    (
        label.to_string(),
        format!("the defaults with {}", assignments.join(" ")),
        config,
    )
}

/// The Verilog of `config`, written to `<work_dir>/<top>.v`.
fn generate_design(label: String, origin: String, config: Config) -> Design {
    let text = generate_verilog(&config)
        .unwrap_or_else(|e| panic!("generating {label} ({origin}): {e:#}"));
    let path = work_dir().join(format!("{}.v", config.top));
    write_atomically(&path, &text)
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    Design {
        label,
        origin,
        config,
        text,
        path,
    }
}

/// Blocks of SPEC §9 checked alone as well, each as a top module (its label and top are the
/// block's name), written beside the engines: lint, Icarus, the one-assignment rule and
/// synthesis hold for them as for an engine, at parameters the engines of `gen/` do not use.
fn standalone_blocks() -> &'static [Design] {
    static BLOCKS: OnceLock<Vec<Design>> = OnceLock::new();
    BLOCKS.get_or_init(|| {
        let dir = work_dir();
        // One block's Verilog, written to `<top>.v`, as a design.
        let standalone = |top: String, text: anyhow::Result<String>, origin: String| {
            let text = text.unwrap_or_else(|e| panic!("{top}: {e:#}"));
            let path = dir.join(format!("{top}.v"));
            write_atomically(&path, &text)
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
            Design {
                label: top.clone(),
                origin,
                config: Config {
                    top,
                    ..Config::default()
                },
                text,
                path,
            }
        };
        let mut designs: Vec<Design> = [64, 512]
            .into_iter()
            .map(|bits| {
                let top = format!("block_mem_writer_{bits}");
                let text = qptable_testbench::block::verilog(
                    qptable::hw::mem_writer::MemWriter::new(bits),
                    &top,
                );
                standalone(top, text, format!("MemWriter::new({bits})"))
            })
            .collect();
        // The cache write bus of state in_memory at the SPEC §9 defaults (1024 lines, 2-beat
        // blocks).
        let m = qptable::hw::miss_unit::MissParams {
            block_bits: 6,
            word_bits: 2,
            max_misses: 64,
            mem_data_bits: 64,
            cache_lines: 1024,
        };
        let top = "block_cache_writes".to_string();
        let text = qptable_testbench::block::verilog(
            qptable::hw::cache_writes::CacheWrites::new(&m),
            &top,
        );
        designs.push(standalone(
            top,
            text,
            "CacheWrites::new(defaults of SPEC §9)".into(),
        ));
        designs
    })
}

fn design(label: &str) -> &'static Design {
    designs()
        .iter()
        .chain(standalone_blocks())
        .find(|d| d.label == label)
        .unwrap_or_else(|| panic!("no configuration labelled {label}"))
}

/// Panics with every failure, one block each, when there is any.
fn assert_no_failures(what: &str, failures: Vec<String>) {
    if !failures.is_empty() {
        panic!(
            "{what}: {} failure(s)\n\n{}",
            failures.len(),
            failures.join("\n\n")
        );
    }
}

/// A tool run that must exit 0 and print nothing.
fn silent_success(d: &Design, run: &ToolRun) -> Option<String> {
    let quiet = run.stdout.trim().is_empty() && run.stderr.trim().is_empty();
    if run.success() && quiet {
        return None;
    }
    // The diagnostics themselves (Verilator: `%Warning-...`, Icarus: `file:line: warning:`),
    // without the source excerpts that follow them.
    let diagnostics: Vec<&str> = run
        .stdout
        .lines()
        .chain(run.stderr.lines())
        .filter(|l| {
            let lower = l.to_ascii_lowercase();
            l.starts_with('%') || lower.contains("warning") || lower.contains("error")
        })
        .collect();
    Some(format!(
        "{} ({}, {}): {}\n--- diagnostics ({} lines, first {TAIL_LINES}) ---\n{}\n{}",
        d.label,
        d.origin,
        d.path.display(),
        if run.success() {
            "exit code 0 but the tool printed diagnostics"
        } else {
            "the tool failed"
        },
        diagnostics.len(),
        diagnostics[..diagnostics.len().min(TAIL_LINES)].join("\n"),
        run.report()
    ))
}

// ---- (a) Verilator lint ------------------------------------------------------------------

#[test]
fn verilator_lint_is_clean() {
    let mut failures = Vec::new();
    for d in designs().iter().chain(standalone_blocks()) {
        let run = run_tool(
            Command::new("verilator")
                .arg("--lint-only")
                .arg("-Wall")
                .arg(waiver_file(&d.path, &d.config.top))
                .arg(&d.path),
        );
        failures.extend(silent_success(d, &run));
    }
    assert_no_failures(
        "verilator --lint-only -Wall with each file's <top>.vlt (qptable::tidy::lint_waivers: \
         waive only what rust-hdl's way of writing Verilog causes, with a comment why; fix \
         everything else in the design)",
        failures,
    );
}

// ---- (a') one assignment per evaluation ------------------------------------------------

#[test]
fn no_port_is_assigned_twice_in_one_evaluation() {
    let mut failures = Vec::new();
    let mut blocks = 0;
    for d in designs().iter().chain(standalone_blocks()) {
        match qptable_testbench::comb_ports::double_assignments(&d.text) {
            Ok(found) => failures.extend(
                found
                    .iter()
                    .map(|f| format!("{} ({}): {f}", d.label, d.origin)),
            ),
            Err(e) => failures.push(format!(
                "{} ({}): cannot read the Verilog: {e}",
                d.label, d.origin
            )),
        }
        blocks += d.text.matches("always @(*)").count();
    }
    println!(
        "{} designs, {blocks} always @(*) blocks read",
        designs().len()
    );
    assert_no_failures(
        "signals leaving a block assigned more than once in one evaluation (compute the value \
         in a local and assign the port once, or derive it from a register)",
        failures,
    );
}

// ---- (b) Icarus Verilog ------------------------------------------------------------------

#[test]
fn icarus_compiles_without_warnings() {
    let mut failures = Vec::new();
    for d in designs().iter().chain(standalone_blocks()) {
        let run = run_tool(
            Command::new("iverilog")
                .args(["-g2005", "-Wall", "-o", "/dev/null", "-s"])
                .arg(&d.config.top)
                .arg(&d.path),
        );
        failures.extend(silent_success(d, &run));
    }
    assert_no_failures(
        "iverilog -g2005 -Wall (Icarus warnings are real: e.g. \"@* found no sensitivities\" \
         is a combinational block that never runs)",
        failures,
    );
}

// ---- (c) yosys synthesis -----------------------------------------------------------------

/// Synthesis flow of a yosys run.
#[derive(Clone, Copy)]
enum Synth {
    /// `synth`: generic gates; memories become flip-flops, so only for small tables.
    Generic,
    /// `synth_ecp5`: Lattice ECP5; memories become DP16KD block RAMs.
    Ecp5,
}

/// Synthesizes `label`'s Verilog; `check -assert` after elaboration (before any
/// optimisation can hide a conflict) and after synthesis. Returns the log.
fn yosys_synth(label: &str, flow: Synth) -> String {
    let d = design(label);
    let top = &d.config.top;
    let synth = match flow {
        Synth::Generic => format!("synth -top {top}"),
        Synth::Ecp5 => format!("synth_ecp5 -top {top}"),
    };
    let script = format!(
        "read_verilog {path}; hierarchy -check -top {top}; proc -noopt; check -assert; \
         {synth}; check -assert; stat",
        path = d.path.display()
    );
    let run = run_tool(Command::new("yosys").arg("-p").arg(&script));
    let warnings: Vec<&str> = run
        .stdout
        .lines()
        .chain(run.stderr.lines())
        .filter(|l| l.trim_start().starts_with("Warning:"))
        .collect();
    assert!(
        run.success() && warnings.is_empty(),
        "yosys on {label} ({}, {}): {}\n{}\n{}",
        d.origin,
        d.path.display(),
        if run.success() {
            "synthesis succeeded with warnings"
        } else {
            "synthesis failed (undriven or multiply driven nets fail `check -assert`)"
        },
        if warnings.is_empty() {
            String::new()
        } else {
            format!(
                "--- warnings (first {TAIL_LINES}) ---\n{}",
                warnings[..warnings.len().min(TAIL_LINES)].join("\n")
            )
        },
        run.report()
    );
    let cells = cell_count(&run.stdout, "Number of cells:");
    eprintln!(
        "yosys {} on {label} (top {top}): {:.1} s, {} cells",
        match flow {
            Synth::Generic => "synth",
            Synth::Ecp5 => "synth_ecp5",
        },
        run.elapsed.as_secs_f64(),
        cells.map_or("?".to_string(), |c| c.to_string())
    );
    run.stdout
}

/// The count on the last line of `stat` that starts with `key` (the design total is last).
fn cell_count(log: &str, key: &str) -> Option<u64> {
    log.lines()
        .rev()
        .filter_map(|l| l.trim().strip_prefix(key))
        .find_map(|rest| rest.split_whitespace().next()?.parse().ok())
}

/// Block RAMs in a `synth_ecp5` log.
fn block_rams(log: &str) -> u64 {
    cell_count(log, "DP16KD").unwrap_or(0)
}

#[test]
fn yosys_synth_standalone_blocks() {
    for d in standalone_blocks() {
        yosys_synth(&d.label, Synth::Generic);
    }
}

#[test]
fn yosys_synth_ecp5_default() {
    let log = yosys_synth("default", Synth::Ecp5);
    // The state RAMs must map to block RAM: as flip-flops synthesis takes minutes and the
    // design would not fit.
    assert!(
        block_rams(&log) > 0,
        "synth_ecp5 of the default configuration used no DP16KD block RAM: the state RAMs \
         were not inferred as memories\n{}",
        tail(&log, TAIL_LINES)
    );
}

#[test]
fn yosys_synth_ecp5_small() {
    yosys_synth("small", Synth::Ecp5);
}

#[test]
fn yosys_synth_ecp5_wide() {
    let log = yosys_synth("wide", Synth::Ecp5);
    assert!(
        block_rams(&log) > 0,
        "synth_ecp5 of the wide configuration used no DP16KD block RAM\n{}",
        tail(&log, TAIL_LINES)
    );
}

#[test]
fn yosys_synth_generic_index_bits_4() {
    yosys_synth("index_bits_4", Synth::Generic);
}

#[test]
fn yosys_synth_generic_index_bits_4_widest() {
    yosys_synth("index_bits_4_widest", Synth::Generic);
}

// ---- (d) gen/ is fresh -------------------------------------------------------------------

#[test]
fn gen_is_fresh() {
    let bless = std::env::var(BLESS_ENV).is_ok_and(|v| v == "1");
    let root = repo_root();
    let gen_dir = root.join("gen");
    let shipped = shipped_configs();
    let mut failures = Vec::new();

    // Each shipped configuration has its own top, so its own file.
    let mut tops = BTreeSet::new();
    for s in &shipped {
        if !tops.insert(s.config.top.clone()) {
            failures.push(format!(
                "{}: top = {:?} is also the top of another file in configs/; give every \
                 shipped configuration its own top so that their files in gen/ do not collide",
                relative(&s.path),
                s.config.top
            ));
        }
    }

    for s in &shipped {
        let generated = generate_verilog(&s.config)
            .unwrap_or_else(|e| panic!("generating {}: {e:#}", s.path.display()));
        // Beside the Verilog, `qptable gen` writes the instantiation template.
        let template = instantiation_template(&s.config)
            .unwrap_or_else(|e| panic!("generating {}: {e:#}", s.path.display()));
        let template_path = gen_dir.join(instantiation_template_name(&s.config));
        // And the lint waivers.
        let waivers = qptable::tidy::lint_waivers(&s.config.top);
        let waivers_path = gen_dir.join(lint_waivers_name(&s.config));
        for (path, generated, kind) in [
            (&s.verilog, &generated, "Verilog"),
            (&waivers_path, &waivers, "lint waivers"),
            (&template_path, &template, "instantiation template"),
        ] {
            let committed = std::fs::read_to_string(path).ok();
            if committed.as_deref() == Some(generated.as_str()) {
                continue;
            }
            if bless {
                write_atomically(path, generated)
                    .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
                eprintln!("{BLESS_ENV}=1: wrote {}", relative(path));
                continue;
            }
            let what = match &committed {
                None => "is missing".to_string(),
                Some(text) => format!(
                    "differs from the {kind} generated from {}; {}",
                    relative(&s.path),
                    first_difference(text, generated).unwrap_or_default()
                ),
            };
            failures.push(format!(
                "{} {what}\nRegenerate every file of gen/ with\n    {BLESS_COMMAND}\nor this \
                 one with\n    cargo run --release -- gen --config configs/{}.toml -o gen",
                relative(path),
                s.name
            ));
        }
    }

    // The repository's verilator.vlt: the waivers of every gen/<top>.v in one file.
    let tops_sorted: Vec<&str> = shipped.iter().map(|s| s.config.top.as_str()).collect();
    let all = qptable::tidy::lint_waivers_of(&tops_sorted);
    let all_path = root.join("verilator.vlt");
    if std::fs::read_to_string(&all_path).ok().as_deref() != Some(all.as_str()) {
        if bless {
            write_atomically(&all_path, &all)
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", all_path.display()));
            eprintln!("{BLESS_ENV}=1: wrote verilator.vlt");
        } else {
            failures.push(format!(
                "verilator.vlt is not the waivers of gen/'s tops (qptable::tidy::lint_waivers_of); \
                 regenerate it with\n    {BLESS_COMMAND}"
            ));
        }
    }

    // A file of gen/ that no configuration produces is stale too.
    if let Ok(entries) = std::fs::read_dir(&gen_dir) {
        let mut orphans: Vec<PathBuf> = entries
            .map(|e| e.expect("directory entry").path())
            .filter(|p| {
                p.extension()
                    .is_some_and(|e| e == "v" || e == "vh" || e == "vlt")
            })
            .filter(|p| {
                let stem = p.file_stem().unwrap_or_default().to_string_lossy();
                let top = match p.extension().is_some_and(|e| e == "vh") {
                    true => stem.strip_suffix("_inst").unwrap_or("").to_string(),
                    false => stem.to_string(),
                };
                !tops.contains(&top)
            })
            .collect();
        orphans.sort();
        for p in orphans {
            if bless {
                std::fs::remove_file(&p)
                    .unwrap_or_else(|e| panic!("cannot remove {}: {e}", p.display()));
                eprintln!("{BLESS_ENV}=1: removed {} (no configuration)", relative(&p));
            } else {
                failures.push(format!(
                    "{} is the output of no file in configs/ (no configuration has that top): \
                     delete it, or run\n    {BLESS_COMMAND}",
                    relative(&p)
                ));
            }
        }
    }

    assert_no_failures("gen/ is not fresh", failures);
}

#[test]
fn default_toml_is_the_defaults() {
    let shipped = shipped_configs();
    let default = shipped
        .iter()
        .find(|s| s.name == "default")
        .expect("configs/default.toml exists");
    // max_qps is left out, so that it follows index_bits (`--set index_bits=12` on the file
    // must not meet a max_qps of 16384).
    assert_eq!(
        default.config,
        Config::default(),
        "configs/default.toml must hold exactly the defaults of SPEC §3, max_qps left out"
    );
    let mut narrower = default.config.clone();
    narrower
        .set("index_bits=12")
        .expect("index_bits=12 on configs/default.toml");
    assert_eq!(narrower.max_qps(), 1 << 12);
}

// ---- (e) the ports of the top module -----------------------------------------------------

/// Compares the ports of `top` in `verilog` with `expected` (SPEC §4): the same set of
/// names, directions and widths, each declared once, `clk` and `rst` first, no `$`.
fn check_top_ports(label: &str, verilog: &str, top: &str, expected: &[PortDecl]) -> Vec<String> {
    let (header, decls) = match top_ports(verilog, top) {
        Ok(p) => p,
        Err(e) => return vec![format!("{label}: {e}")],
    };
    let mut failures = Vec::new();
    let header_set: BTreeSet<&String> = header.iter().collect();
    if header_set.len() != header.len() {
        failures.push(format!(
            "{label}: a name appears twice in the header of module {top}: {header:?}"
        ));
    }
    let declared: BTreeSet<&String> = decls.iter().map(|(n, _, _)| n).collect();
    if declared.len() != decls.len() {
        failures.push(format!("{label}: a port of module {top} is declared twice"));
    }
    if header_set != declared {
        failures.push(format!(
            "{label}: the header of module {top} and its input/output declarations differ: \
             only in the header {:?}, only declared {:?}",
            header_set.difference(&declared).collect::<Vec<_>>(),
            declared.difference(&header_set).collect::<Vec<_>>()
        ));
    }
    for name in &header {
        if name.contains('$') {
            failures.push(format!(
                "{label}: top-level port `{name}` of module {top} contains `$`"
            ));
        }
    }
    if header.len() < 2 || header[0] != "clk" || header[1] != "rst" {
        failures.push(format!(
            "{label}: module {top} does not start with clk, rst: {:?}",
            &header[..header.len().min(4)]
        ));
    }
    let got: BTreeSet<&PortDecl> = decls.iter().collect();
    let want: BTreeSet<&PortDecl> = expected.iter().collect();
    if got != want {
        let show = |set: Vec<&&PortDecl>| {
            set.iter()
                .map(|(n, d, w)| format!("{n} ({d:?}, {w} bits)"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        failures.push(format!(
            "{label}: the ports of module {top} are not SPEC §4's\n  missing or different: \
             {}\n  unexpected: {}",
            show(want.difference(&got).collect()),
            show(got.difference(&want).collect())
        ));
    }
    failures
}

/// SPEC §4 for a configuration: clock and reset, each lookup port in declaration order,
/// the AXI4-Lite control slave, and in two_level in_memory the AXI4 read master `m_axi_*`
/// (ID width 1, 64-bit data, addr_bits-wide addresses).
fn spec_ports(cfg: &Config) -> Vec<PortDecl> {
    let p = |name: String, dir: Dir, width: u32| (name, dir, width);
    let mut ports = vec![p("clk".into(), Dir::In, 1), p("rst".into(), Dir::In, 1)];
    for n in &cfg.ports {
        ports.extend([
            p(format!("s_{n}_req_valid"), Dir::In, 1),
            p(format!("s_{n}_req_ready"), Dir::Out, 1),
            p(format!("s_{n}_req_qpn"), Dir::In, 24),
            p(format!("s_{n}_req_tag"), Dir::In, cfg.tag_bits),
            p(format!("m_{n}_rsp_valid"), Dir::Out, 1),
            p(format!("m_{n}_rsp_ready"), Dir::In, 1),
            p(format!("m_{n}_rsp_qpn"), Dir::Out, 24),
            p(format!("m_{n}_rsp_tag"), Dir::Out, cfg.tag_bits),
            p(format!("m_{n}_rsp_status"), Dir::Out, 3),
            p(format!("m_{n}_rsp_addr"), Dir::Out, cfg.addr_bits),
        ]);
    }
    for (name, dir, width) in AXIL_PORTS {
        ports.push(p(format!("s_axil_{name}"), *dir, *width));
    }
    let width = |w: u32| match w {
        0 => cfg.addr_bits,
        DATA => cfg.mem_data_bits,
        STRB => cfg.mem_data_bits / 8,
        w => w,
    };
    let state_in_memory = cfg.state == State::InMemory;
    let dir_in_memory = cfg.mode == Mode::TwoLevel && cfg.directory == Directory::InMemory;
    if dir_in_memory || state_in_memory {
        for (name, dir, w) in AXI_PORTS {
            // Read IDs: 0 and 1 with one master or two; 0, 1 and 2 (the directory's reads)
            // with the state and the directory both in memory.
            let w = match *w {
                ID if dir_in_memory && state_in_memory => 2,
                ID => 1,
                w => width(w),
            };
            ports.push(p(format!("m_axi_{name}"), *dir, w));
        }
    }
    // SPEC §9: with the state in memory the memory master gains its write channels.
    if state_in_memory {
        for (name, dir, w) in AXI_WRITE_PORTS {
            ports.push(p(format!("m_axi_{name}"), *dir, width(*w)));
        }
    }
    ports
}

/// Width of `wstrb` in [`AXI_WRITE_PORTS`]: `mem_data_bits / 8`.
const STRB: u32 = u32::MAX - 1;

/// The write channels of the AXI4 master (state in memory, SPEC §9): the signals of AXI4's
/// AW, W and B channels that the read channels have the counterparts of (ID width 1).
const AXI_WRITE_PORTS: &[(&str, Dir, u32)] = &[
    ("awid", Dir::Out, 1),
    ("awaddr", Dir::Out, 0),
    ("awlen", Dir::Out, 8),
    ("awsize", Dir::Out, 3),
    ("awburst", Dir::Out, 2),
    ("awlock", Dir::Out, 1),
    ("awcache", Dir::Out, 4),
    ("awprot", Dir::Out, 3),
    ("awvalid", Dir::Out, 1),
    ("awready", Dir::In, 1),
    ("wdata", Dir::Out, DATA),
    ("wstrb", Dir::Out, STRB),
    ("wlast", Dir::Out, 1),
    ("wvalid", Dir::Out, 1),
    ("wready", Dir::In, 1),
    ("bid", Dir::In, 1),
    ("bresp", Dir::In, 2),
    ("bvalid", Dir::In, 1),
    ("bready", Dir::Out, 1),
];

/// Width of `rdata` in [`AXI_PORTS`]: the configuration's `mem_data_bits`.
const DATA: u32 = u32::MAX;

/// Width of `arid` and `rid` in [`AXI_PORTS`]: 2 with the state and the directory both in
/// memory, else 1.
const ID: u32 = u32::MAX - 2;

/// The AXI4 read master of SPEC §4 (two_level in_memory); width 0 is addr_bits, [`DATA`]
/// mem_data_bits.
const AXI_PORTS: &[(&str, Dir, u32)] = &[
    ("arid", Dir::Out, ID),
    ("araddr", Dir::Out, 0),
    ("arlen", Dir::Out, 8),
    ("arsize", Dir::Out, 3),
    ("arburst", Dir::Out, 2),
    ("arlock", Dir::Out, 1),
    ("arcache", Dir::Out, 4),
    ("arprot", Dir::Out, 3),
    ("arvalid", Dir::Out, 1),
    ("arready", Dir::In, 1),
    ("rid", Dir::In, ID),
    ("rdata", Dir::In, DATA),
    ("rresp", Dir::In, 2),
    ("rlast", Dir::In, 1),
    ("rvalid", Dir::In, 1),
    ("rready", Dir::Out, 1),
];

/// The AXI4-Lite control slave of SPEC §4: 32-bit data, 12-bit address.
const AXIL_PORTS: &[(&str, Dir, u32)] = &[
    ("awaddr", Dir::In, 12),
    ("awprot", Dir::In, 3),
    ("awvalid", Dir::In, 1),
    ("awready", Dir::Out, 1),
    ("wdata", Dir::In, 32),
    ("wstrb", Dir::In, 4),
    ("wvalid", Dir::In, 1),
    ("wready", Dir::Out, 1),
    ("bresp", Dir::Out, 2),
    ("bvalid", Dir::Out, 1),
    ("bready", Dir::In, 1),
    ("araddr", Dir::In, 12),
    ("arprot", Dir::In, 3),
    ("arvalid", Dir::In, 1),
    ("arready", Dir::Out, 1),
    ("rdata", Dir::Out, 32),
    ("rresp", Dir::Out, 2),
    ("rvalid", Dir::Out, 1),
    ("rready", Dir::In, 1),
];

#[test]
fn default_top_ports_are_spec_section_4() {
    // SPEC §4 for the defaults (ports tx and rx, tag_bits 8, addr_bits 64), written out.
    let (i, o) = (Dir::In, Dir::Out);
    let expected: Vec<PortDecl> = [
        ("clk", i, 1),
        ("rst", i, 1),
        ("s_tx_req_valid", i, 1),
        ("s_tx_req_ready", o, 1),
        ("s_tx_req_qpn", i, 24),
        ("s_tx_req_tag", i, 8),
        ("m_tx_rsp_valid", o, 1),
        ("m_tx_rsp_ready", i, 1),
        ("m_tx_rsp_qpn", o, 24),
        ("m_tx_rsp_tag", o, 8),
        ("m_tx_rsp_status", o, 3),
        ("m_tx_rsp_addr", o, 64),
        ("s_rx_req_valid", i, 1),
        ("s_rx_req_ready", o, 1),
        ("s_rx_req_qpn", i, 24),
        ("s_rx_req_tag", i, 8),
        ("m_rx_rsp_valid", o, 1),
        ("m_rx_rsp_ready", i, 1),
        ("m_rx_rsp_qpn", o, 24),
        ("m_rx_rsp_tag", o, 8),
        ("m_rx_rsp_status", o, 3),
        ("m_rx_rsp_addr", o, 64),
        ("s_axil_awaddr", i, 12),
        ("s_axil_awprot", i, 3),
        ("s_axil_awvalid", i, 1),
        ("s_axil_awready", o, 1),
        ("s_axil_wdata", i, 32),
        ("s_axil_wstrb", i, 4),
        ("s_axil_wvalid", i, 1),
        ("s_axil_wready", o, 1),
        ("s_axil_bresp", o, 2),
        ("s_axil_bvalid", o, 1),
        ("s_axil_bready", i, 1),
        ("s_axil_araddr", i, 12),
        ("s_axil_arprot", i, 3),
        ("s_axil_arvalid", i, 1),
        ("s_axil_arready", o, 1),
        ("s_axil_rdata", o, 32),
        ("s_axil_rresp", o, 2),
        ("s_axil_rvalid", o, 1),
        ("s_axil_rready", i, 1),
    ]
    .into_iter()
    .map(|(n, d, w)| (n.to_string(), d, w))
    .collect();
    assert_eq!(expected.len(), 2 + 2 * 10 + 19);
    let cfg = Config::default();
    let verilog = generate_verilog(&cfg).expect("the defaults generate");
    assert_no_failures(
        "ports of the default top module",
        check_top_ports("defaults", &verilog, "qp_table", &expected),
    );
}

#[test]
fn top_ports_follow_the_configuration() {
    let mut failures = Vec::new();
    for d in designs() {
        let label = format!("{} ({})", d.label, d.origin);
        failures.extend(check_top_ports(
            &label,
            &d.text,
            &d.config.top,
            &spec_ports(&d.config),
        ));
    }
    assert_no_failures("ports of the top modules", failures);
}

#[test]
fn port_parser_reads_rust_hdl_declarations() {
    let v = "module t(clk,rst,a$b,q);\n    input wire  clk;\n    input wire  rst;\n    \
             input wire  [23:0] a$b;\n    output reg  [2:0] q;\nendmodule\nmodule t$x(y);\n    \
             output reg y;\nendmodule\n";
    let (header, decls) = top_ports(v, "t").unwrap();
    assert_eq!(header, ["clk", "rst", "a$b", "q"]);
    assert_eq!(
        decls,
        [
            ("clk".to_string(), Dir::In, 1),
            ("rst".to_string(), Dir::In, 1),
            ("a$b".to_string(), Dir::In, 24),
            ("q".to_string(), Dir::Out, 3),
        ]
    );
    let expected = vec![
        ("clk".to_string(), Dir::In, 1),
        ("rst".to_string(), Dir::In, 1),
        ("a$b".to_string(), Dir::In, 24),
        ("q".to_string(), Dir::Out, 2),
    ];
    let failures = check_top_ports("t", v, "t", &expected);
    assert_eq!(failures.len(), 2, "{failures:#?}");
    assert!(failures[0].contains("`a$b`"), "{}", failures[0]);
    assert!(failures[1].contains("q (Out, 2 bits)"), "{}", failures[1]);
    assert!(top_ports(v, "u").is_err());
    // The ANSI header `qptable gen` writes: comments, one port a line.
    let v = "module t (\n    // Clock\n    input  wire        clk,\n    // Data, (a, b)\n    \
             output reg  [2:0]  q\n);\n    wire x;\nendmodule\n";
    let (header, decls) = top_ports(v, "t").unwrap();
    assert_eq!(header, ["clk", "q"]);
    assert_eq!(
        decls,
        [
            ("clk".to_string(), Dir::In, 1),
            ("q".to_string(), Dir::Out, 3)
        ]
    );
}

// ---- (e) combinational paths from inputs to outputs --------------------------------------

/// Configurations checked for combinational paths beside [`designs`]: `fpga = ecp5`, whose
/// RAMs are `DP16KD` black boxes, for an on-chip table and a table with its state in memory.
/// Only this check reads them (the other tools would need the simulation model).
const ECP5_CONFIGS: &[(&str, &[&str])] = &[
    (
        "ecp5_on_chip",
        &["fpga=ecp5", "mode=two_level", "top=qp_table_x_ecp5_on_chip"],
    ),
    (
        "ecp5_state_in_memory",
        &[
            "fpga=ecp5",
            "state=in_memory",
            "max_misses=2",
            "top=qp_table_x_ecp5_state_in_memory",
        ],
    ),
];

/// The designs of [`ECP5_CONFIGS`], generated once per process.
fn ecp5_designs() -> &'static [Design] {
    static DESIGNS: OnceLock<Vec<Design>> = OnceLock::new();
    DESIGNS.get_or_init(|| {
        ECP5_CONFIGS
            .iter()
            .map(|(label, assignments)| {
                let (label, origin, config) = extra_config(label, assignments);
                generate_design(label, origin, config)
            })
            .collect()
    })
}

/// The file that documents the combinational paths, and the markers around its table.
const COMB_DOC: &str = "docs/integration.md";
const COMB_BEGIN: &str = "<!-- comb-paths: begin";
const COMB_END: &str = "<!-- comb-paths: end -->";
/// The "why" of a row that bless added: the test fails until someone explains it.
const TO_BE_EXPLAINED: &str = "(to be explained)";

/// One row of the table: input and output port patterns, and why the output is not
/// registered.
#[derive(Clone, Debug)]
struct CombRow {
    input: String,
    output: String,
    why: String,
}

/// The documentation's text and its table: the line index of the begin marker, of the end
/// marker, and the rows between them (after the header and the separator).
fn read_comb_table(doc: &str) -> Result<(usize, usize, Vec<CombRow>), String> {
    let lines: Vec<&str> = doc.lines().collect();
    let find = |marker: &str| {
        let at: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].trim_start().starts_with(marker))
            .collect();
        match at.as_slice() {
            [i] => Ok(*i),
            _ => Err(format!(
                "{COMB_DOC} must have exactly one line starting with `{marker}`, it has {}",
                at.len()
            )),
        }
    };
    let (begin, end) = (find(COMB_BEGIN)?, find(COMB_END)?);
    if end < begin + 3 {
        return Err(format!(
            "{COMB_DOC}: the table between `{COMB_BEGIN}` (line {}) and `{COMB_END}` (line {}) \
             needs a header line, a separator line and its rows",
            begin + 1,
            end + 1
        ));
    }
    let cells = |i: usize| -> Result<Vec<String>, String> {
        let line = lines[i].trim();
        let inner = line
            .strip_prefix('|')
            .and_then(|l| l.strip_suffix('|'))
            .ok_or_else(|| format!("{COMB_DOC}:{}: not a table row: {line}", i + 1))?;
        // The ports without their backquotes; the why as written.
        let cells: Vec<String> = inner
            .splitn(3, '|')
            .enumerate()
            .map(|(k, c)| match k {
                2 => c.trim().to_string(),
                _ => c.trim().trim_matches('`').to_string(),
            })
            .collect();
        if cells.len() != 3 || cells.iter().any(String::is_empty) {
            return Err(format!(
                "{COMB_DOC}:{}: a row needs 3 non-empty cells (input | output | why): {line}",
                i + 1
            ));
        }
        Ok(cells)
    };
    let header = cells(begin + 1)?;
    if header != ["input", "output", "why"] {
        return Err(format!(
            "{COMB_DOC}:{}: the header must be `| input | output | why |`",
            begin + 2
        ));
    }
    let rows = (begin + 3..end)
        .map(|i| {
            let c = cells(i)?;
            Ok(CombRow {
                input: c[0].clone(),
                output: c[1].clone(),
                why: c[2].clone(),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok((begin, end, rows))
}

/// `doc` with the rows of its table replaced by `rows`.
fn write_comb_table(doc: &str, begin: usize, end: usize, rows: &[CombRow]) -> String {
    let lines: Vec<&str> = doc.lines().collect();
    let mut out: Vec<String> = lines[..begin + 3].iter().map(|l| l.to_string()).collect();
    out.extend(
        rows.iter()
            .map(|r| format!("| `{}` | `{}` | {} |", r.input, r.output, r.why)),
    );
    out.extend(lines[end..].iter().map(|l| l.to_string()));
    let mut text = out.join("\n");
    if doc.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// `port` with the name of a lookup port of `cfg` replaced by `<p>` (`s_tx_req_ready` ->
/// `s_<p>_req_ready`), so that one row covers every port of every configuration.
fn port_pattern(port: &str, cfg: &Config) -> String {
    for p in &cfg.ports {
        for (pre, post) in [("s_", "_req_"), ("m_", "_rsp_")] {
            if let Some(rest) = port.strip_prefix(&format!("{pre}{p}{post}")) {
                return format!("{pre}<p>{post}{rest}");
            }
        }
    }
    port.to_string()
}

/// The paths of one design, or why the check failed.
type CombResult = Result<BTreeSet<(String, String)>, String>;

/// `<target>/tmp/verilog_quality/comb_paths/<sub>`: yosys's files of the check.
fn comb_work(sub: &str) -> PathBuf {
    work_dir()
        .parent()
        .expect("the work directory has a parent")
        .join("comb_paths")
        .join(sub)
}

/// [`comb_paths`](qptable_testbench::comb_paths::comb_paths) on each `(file, top)`, two at a
/// time (the machine's cores; yosys is single-threaded), the largest files first; the results
/// and run times in the order of `jobs`.
fn comb_paths_parallel(jobs: &[(PathBuf, String)]) -> Vec<(CombResult, std::time::Duration)> {
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| {
        std::cmp::Reverse(std::fs::metadata(&jobs[i].0).map(|m| m.len()).unwrap_or(0))
    });
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(vec![None; jobs.len()]);
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(2);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&i) = order.get(k) else { break };
                let (file, top) = &jobs[i];
                let start = std::time::Instant::now();
                // Beside the file: the planted designs have the tops of the originals, and
                // the two tests run in parallel processes.
                let work = file
                    .parent()
                    .expect("a Verilog file has a directory")
                    .join("comb_paths")
                    .join(top);
                let r = qptable_testbench::comb_paths::comb_paths(file, top, &work);
                let elapsed = start.elapsed();
                eprintln!("comb_paths {top}: {:.1} s", elapsed.as_secs_f64());
                results.lock().unwrap()[i] = Some((r, elapsed));
            });
        }
    });
    results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect()
}

/// Designs left to `no_combinational_path_in_the_slowest_designs` (ignored: run it with
/// `--ignored`): yosys's `read_verilog` and `proc` take several CPU minutes on their miss
/// unit (256 misses: one `always @(*)` block of some 58,000 lines and 14,000 `if`s). The same
/// organisations are checked by default at smaller sizes (`state_in_memory_min`, `scale`,
/// `state_and_dir_in_memory_min`, `ecp5_state_in_memory`).
const COMB_SLOW: &[&str] = &["state_in_memory_max", "state_and_dir_in_memory_max"];

/// The designs of the combinational-path check: every design and the ecp5 ones, without
/// ([`COMB_SLOW`]) or with only the slowest.
fn comb_designs(slowest: bool) -> Vec<&'static Design> {
    designs()
        .iter()
        .chain(ecp5_designs())
        .filter(|d| COMB_SLOW.contains(&d.label.as_str()) == slowest)
        .collect()
}

/// Runs the check on `all`: the failures (an error, a path to the memory port) and, for each
/// pair of port patterns found, the designs that have it.
fn comb_paths_of_designs(
    all: &[&Design],
    failures: &mut Vec<String>,
) -> std::collections::BTreeMap<(String, String), Vec<String>> {
    let jobs: Vec<(PathBuf, String)> = all
        .iter()
        .map(|d| (d.path.clone(), d.config.top.clone()))
        .collect();
    let results = comb_paths_parallel(&jobs);
    let mut found: std::collections::BTreeMap<(String, String), Vec<String>> = Default::default();
    for (d, (r, elapsed)) in all.iter().zip(&results) {
        let paths = match r {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{} ({}): {e}", d.label, d.origin));
                continue;
            }
        };
        println!(
            "{:<30} {:>6.1} s  {} path(s): {}",
            d.label,
            elapsed.as_secs_f64(),
            paths.len(),
            paths
                .iter()
                .map(|(i, o)| format!("{i} -> {o}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        for (i, o) in paths {
            if o.starts_with("m_axi_") {
                failures.push(format!(
                    "{} ({}): the memory port output {o} depends combinationally on the \
                     input {i}: SPEC §4 forbids any (AXI: no combinatorial paths between input \
                     and output signals); register it",
                    d.label, d.origin
                ));
            }
            found
                .entry((port_pattern(i, &d.config), port_pattern(o, &d.config)))
                .or_default()
                .push(d.label.clone());
        }
    }
    found
}

/// The end of a comb-path check: how many designs in how long, then every failure.
fn finish_comb_check(designs: usize, started: std::time::Instant, failures: Vec<String>) {
    println!(
        "{designs} designs checked in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert_no_failures(
        "combinational paths from the inputs to the outputs of the top module",
        failures,
    );
}

/// The undocumented combinational path `(i, o)` of the designs `labels`.
fn undocumented_path(i: &str, o: &str, labels: &[String]) -> String {
    format!(
        "undocumented combinational path {i} -> {o} (in {}): register the output, or add \
         the row to the table of {COMB_DOC} with why it is not registered ({BLESS_COMMAND} \
         adds it)",
        labels.join(", ")
    )
}

#[test]
#[ignore = "several minutes: yosys on the two largest designs"]
fn no_combinational_path_in_the_slowest_designs() {
    let started = std::time::Instant::now();
    let all = comb_designs(true);
    assert_eq!(
        all.len(),
        COMB_SLOW.len(),
        "COMB_SLOW names unknown designs"
    );
    let mut failures = Vec::new();
    let found = comb_paths_of_designs(&all, &mut failures);
    let doc = std::fs::read_to_string(repo_root().join(COMB_DOC)).expect("docs/integration.md");
    let (_, _, rows) = read_comb_table(&doc).unwrap_or_else(|e| panic!("{e}"));
    for ((i, o), labels) in &found {
        if !rows.iter().any(|r| &r.input == i && &r.output == o) {
            failures.push(undocumented_path(i, o, labels));
        }
    }
    finish_comb_check(all.len(), started, failures);
}

#[test]
fn no_combinational_path_but_the_documented() {
    let bless = std::env::var(BLESS_ENV).is_ok_and(|v| v == "1");
    let started = std::time::Instant::now();
    let all = comb_designs(false);
    let mut failures = Vec::new();
    for d in ecp5_designs() {
        if !d.text.contains("DP16KD #(") {
            failures.push(format!(
                "{} ({}): instantiates no DP16KD, so it does not check the ecp5 flavour: \
                 choose a configuration with a RAM of at least DP16KD_MIN_DEPTH words",
                d.label, d.origin
            ));
        }
    }
    let found = comb_paths_of_designs(&all, &mut failures);

    let doc_path = repo_root().join(COMB_DOC);
    let doc = std::fs::read_to_string(&doc_path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", doc_path.display()));
    let (begin, end, rows) = read_comb_table(&doc).unwrap_or_else(|e| panic!("{e}"));
    let mut documented = BTreeSet::new();
    for r in &rows {
        if !documented.insert((r.input.clone(), r.output.clone())) {
            failures.push(format!(
                "{COMB_DOC}: the row {} -> {} appears twice",
                r.input, r.output
            ));
        }
    }
    let undocumented: Vec<_> = found
        .iter()
        .filter(|(pair, _)| !documented.contains(*pair))
        .collect();
    let stale: Vec<_> = documented
        .iter()
        .filter(|pair| !found.contains_key(*pair))
        .collect();
    let mut rows = rows;
    if bless && (!undocumented.is_empty() || !stale.is_empty()) && failures.is_empty() {
        rows = found
            .keys()
            .map(|(i, o)| CombRow {
                input: i.clone(),
                output: o.clone(),
                why: rows
                    .iter()
                    .find(|r| &r.input == i && &r.output == o)
                    .map_or(TO_BE_EXPLAINED.to_string(), |r| r.why.clone()),
            })
            .collect();
        write_atomically(&doc_path, &write_comb_table(&doc, begin, end, &rows))
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", doc_path.display()));
        eprintln!("{BLESS_ENV}=1: rewrote the table of {COMB_DOC}");
    } else {
        for ((i, o), labels) in &undocumented {
            failures.push(undocumented_path(i, o, labels));
        }
        for (i, o) in &stale {
            failures.push(format!(
                "{COMB_DOC} documents the combinational path {i} -> {o}, which no design \
                 has: remove the row ({BLESS_COMMAND} does)"
            ));
        }
    }
    for r in rows.iter().filter(|r| r.why == TO_BE_EXPLAINED) {
        failures.push(format!(
            "{COMB_DOC}: the path {} -> {} is not explained: write why the output is not \
             registered in place of {TO_BE_EXPLAINED}",
            r.input, r.output
        ));
    }
    finish_comb_check(all.len(), started, failures);
}

/// The AXI-Lite output and the input joined by the path that
/// `a_planted_combinational_path_is_found` plants: both exist in every design.
const PLANTED: (&str, &str) = ("s_axil_bready", "s_axil_rvalid");

/// `text` with one combinational path planted in module `top`: its line
/// `assign s_axil_rvalid = <expr>;` becomes `assign s_axil_rvalid = (<expr>) ^ s_axil_bready;`.
fn plant_path(text: &str, top: &str) -> Result<String, String> {
    let start = text
        .find(&format!("\nmodule {top} ("))
        .ok_or_else(|| format!("no module {top}"))?;
    let end = start
        + text[start..]
            .find("\nendmodule")
            .ok_or_else(|| format!("module {top} has no endmodule"))?;
    let (input, output) = PLANTED;
    let prefix = format!("\n    assign {output} = ");
    let at: Vec<usize> = text[start..end]
        .match_indices(&prefix)
        .map(|(i, _)| start + i + prefix.len())
        .collect();
    let [expr_start] = at.as_slice() else {
        return Err(format!(
            "module {top} has {} lines `assign {output} = ...;`, expected 1",
            at.len()
        ));
    };
    let expr_end = expr_start
        + text[*expr_start..]
            .find(";\n")
            .ok_or("an assign without `;`")?;
    Ok(format!(
        "{}({}) ^ {input}{}",
        &text[..*expr_start],
        &text[*expr_start..expr_end],
        &text[expr_end..]
    ))
}

#[test]
fn a_planted_combinational_path_is_found() {
    let started = std::time::Instant::now();
    let (input, output) = PLANTED;
    // The planted pair is no documented path: the check of the unchanged designs
    // (`no_combinational_path_but_the_documented`) then says they do not have it.
    let doc = std::fs::read_to_string(repo_root().join(COMB_DOC)).expect("docs/integration.md");
    let (_, _, rows) = read_comb_table(&doc).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        !rows.iter().any(|r| r.input == input && r.output == output),
        "{input} -> {output} is documented: plant another path"
    );
    let dir = comb_work("planted");
    std::fs::create_dir_all(&dir).expect("create the directory of the planted designs");
    // yosys takes minutes on the largest designs: the smallest design of each organisation
    // (mode, directory, state, fpga) but the slowest ([`COMB_SLOW`]) is enough to show that a
    // path in the top module is seen.
    let mut smallest: std::collections::BTreeMap<String, &Design> = Default::default();
    for d in comb_designs(false) {
        let c = &d.config;
        let key = format!("{:?} {:?} {:?} {:?}", c.mode, c.directory, c.state, c.fpga);
        let e = smallest.entry(key).or_insert(d);
        if d.text.len() < e.text.len() {
            *e = d;
        }
    }
    let all: Vec<&Design> = smallest.into_values().collect();
    let jobs: Vec<(PathBuf, String)> = all
        .iter()
        .map(|d| {
            let text = plant_path(&d.text, &d.config.top)
                .unwrap_or_else(|e| panic!("{} ({}): {e}", d.label, d.origin));
            let path = dir.join(format!("{}.v", d.config.top));
            write_atomically(&path, &text)
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
            (path, d.config.top.clone())
        })
        .collect();
    let mut failures = Vec::new();
    for (d, (r, _)) in all.iter().zip(comb_paths_parallel(&jobs)) {
        match r {
            Ok(p) if p.contains(&(input.to_string(), output.to_string())) => {}
            Ok(p) => failures.push(format!(
                "{} ({}): the path {input} -> {output} planted in the top module is not found; \
                 found {p:?}",
                d.label, d.origin
            )),
            Err(e) => failures.push(format!("{} ({}): {e}", d.label, d.origin)),
        }
    }
    println!(
        "{} planted designs ({}) checked in {:.1} s",
        all.len(),
        all.iter()
            .map(|d| d.label.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        started.elapsed().as_secs_f64()
    );
    assert_no_failures("a planted combinational path", failures);
}

#[test]
fn the_comb_paths_table_round_trips() {
    let doc = "text\n<!-- comb-paths: begin (x) -->\n| input | output | why |\n|---|---|---|\n\
               | `a` | `b` | `because` | of |\n<!-- comb-paths: end -->\nafter\n";
    let (begin, end, rows) = read_comb_table(doc).unwrap();
    assert_eq!((begin, end, rows.len()), (1, 5, 1));
    assert_eq!(
        (
            rows[0].input.as_str(),
            rows[0].output.as_str(),
            rows[0].why.as_str()
        ),
        ("a", "b", "`because` | of")
    );
    assert_eq!(write_comb_table(doc, begin, end, &rows), doc);
    let mut more = rows.clone();
    more.push(CombRow {
        input: "c".into(),
        output: "d".into(),
        why: TO_BE_EXPLAINED.into(),
    });
    let (_, _, back) = read_comb_table(&write_comb_table(doc, begin, end, &more)).unwrap();
    assert_eq!(back.len(), 2);
    assert_eq!(back[1].why, TO_BE_EXPLAINED);
    let e = read_comb_table("| input | output | why |\n").unwrap_err();
    assert!(e.contains("exactly one line"), "{e}");
    let cfg = Config {
        ports: vec!["tx".into(), "a".into()],
        ..Config::default()
    };
    assert_eq!(port_pattern("s_tx_req_ready", &cfg), "s_<p>_req_ready");
    assert_eq!(port_pattern("m_a_rsp_valid", &cfg), "m_<p>_rsp_valid");
    assert_eq!(port_pattern("s_axil_awready", &cfg), "s_axil_awready");
}
