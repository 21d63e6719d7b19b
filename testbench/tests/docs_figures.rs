//! The figures that README.md and docs/ quote from the tools, checked against the tools.
//!
//! Each check computes a figure the way the command that prints it does (the on-chip memory
//! of `qptable gen` is [`on_chip_memory`]; the in-memory directory's latency is
//! [`in_memory_extra_latency`], which the benches measure) and requires the document to hold
//! the sentence with that figure, whitespace aside: editing a figure in the prose, or a
//! change of the design that changes the figure, fails here until the two agree again.
//!
//! The measurements of BENCHMARKS.md (throughput, latency, Fmax, ratios) are not copied into
//! README.md or docs/integration.md: they point at its sections. `no_measurement_is_copied`
//! keeps it so, by refusing the shapes such a copy takes (a frequency in MHz, a ratio or a rate
//! with three decimals).

use qptable::config::Config;
use qptable::generate::on_chip_memory;
use qptable::hw::lookup_pipe::in_memory_extra_latency;
use qptable::hw::EngineParams;
use qptable_testbench::tools::repo_root;

/// `file` (relative to the repository root) with every run of whitespace made one space.
fn text_of(file: &str) -> String {
    let path = repo_root().join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `n` with a comma every three digits, as the docs write bit counts.
fn commas(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `configs/<file>` (the defaults when `None`) with `assignments` over it, as `--config` and
/// `--set` load it.
fn config(file: Option<&str>, assignments: &[&str]) -> Config {
    let path = file.map(|f| repo_root().join("configs").join(f));
    let sets: Vec<String> = assignments.iter().map(|a| a.to_string()).collect();
    qptable::config_files::load(path.as_deref(), &sets)
        .unwrap_or_else(|e| panic!("{file:?} {assignments:?}: {e:#}"))
}

/// On-chip memory of `cfg` in all, in bits, as `qptable gen` prints it.
fn total_bits(cfg: &Config) -> u64 {
    on_chip_memory(cfg).iter().map(|(_, w, b)| w * b).sum()
}

/// Bits of the rows of `cfg`'s on-chip memory whose name starts with `prefix`.
fn rows_bits(cfg: &Config, prefix: &str) -> u64 {
    let bits: Vec<u64> = on_chip_memory(cfg)
        .iter()
        .filter(|(n, _, _)| n.starts_with(prefix))
        .map(|(_, w, b)| w * b)
        .collect();
    assert!(!bits.is_empty(), "no on-chip memory row named {prefix}...");
    bits.iter().sum()
}

/// Fails, naming each, unless every `(file, sentence)` holds.
fn assert_quoted(checks: &[(&str, String)]) {
    let missing: Vec<String> = checks
        .iter()
        .filter(|(file, sentence)| !text_of(file).contains(sentence.as_str()))
        .map(|(file, sentence)| format!("{file} does not say: {sentence}"))
        .collect();
    assert!(
        missing.is_empty(),
        "the figures below are what the tools compute now; correct the prose (or the \
         design):\n{}",
        missing.join("\n")
    );
}

#[test]
fn on_chip_bit_counts_are_what_gen_prints() {
    let ports = ["tx", "tx,rx", "tx,rx,cnp", "tx,rx,cnp,ack"];
    let scale: Vec<u64> = ports
        .iter()
        .map(|p| total_bits(&config(Some("scale.toml"), &[&format!("ports={p}")])))
        .collect();
    let defaults = config(None, &[]);
    let wide = config(Some("wide.toml"), &[]);
    let i24 = config(None, &["index_bits=24"]);
    assert_eq!(
        wide.index_bits, 20,
        "configs/wide.toml is the README's index_bits 20"
    );
    assert_eq!(
        wide.ports.len(),
        3,
        "configs/wide.toml is the README's 3 ports"
    );
    assert_quoted(&[
        (
            "README.md",
            format!(
                "as `qptable gen` lists them: {} at the defaults, {} at index_bits 20 with 3 \
                 ports (`configs/wide.toml`), {} at index_bits 24",
                commas(rows_bits(&defaults, "state RAM")),
                commas(rows_bits(&wide, "state RAM")),
                commas(rows_bits(&i24, "state RAM")),
            ),
        ),
        (
            "README.md",
            format!(
                "`qptable gen --config configs/scale.toml` lists them, {} to {} bits in all for \
                 1 to 4 ports at index_bits 24",
                commas(scale[0]),
                commas(scale[3])
            ),
        ),
        (
            "docs/state_in_memory.md",
            format!(
                "reports, in all: 1 port {} bits, 2 ports {}, 3 ports {}, 4 ports {} (<= \
                 2,097,152 each)",
                commas(scale[0]),
                commas(scale[1]),
                commas(scale[2]),
                commas(scale[3])
            ),
        ),
        (
            "docs/reuse_safety.md",
            format!(
                "On chip (flat, 2 ports): state RAM {} bits (3 copies), free map {} bits",
                commas(rows_bits(&i24, "state RAM")),
                commas(rows_bits(&i24, "free map"))
            ),
        ),
    ]);
    // SPEC §9's budget, which the docs quote as 2,097,152.
    assert!(scale.iter().all(|&b| b <= 2_097_152), "{scale:?}");
}

#[test]
fn directory_in_memory_latency_is_the_pipes() {
    let extra = |index_bits: u32| {
        let c = config(
            Some("in_memory.toml"),
            &[&format!("index_bits={index_bits}")],
        );
        in_memory_extra_latency(&EngineParams::new(&c))
    };
    let (at14, at15, at16, at24) = (extra(14), extra(15), extra(16), extra(24));
    assert_eq!(
        at16, at24,
        "the docs say the same latency for every index_bits above 15"
    );
    assert_quoted(&[(
        "docs/integration.md",
        format!(
            "two_level in_memory answers in memory latency + {at14}, + {at15} at index_bits 15 \
             and + {at16} above"
        ),
    )]);
}

/// README.md and docs/integration.md point at BENCHMARKS.md for measurements instead of
/// copying them: no frequency in MHz but the constraints' 250, no number with three decimals
/// (how `bench` and `synth` print rates and ratios) but the constraints' period `4.000`.
#[test]
fn no_measurement_is_copied() {
    let mut found = Vec::new();
    for file in ["README.md", "docs/integration.md"] {
        let text = std::fs::read_to_string(repo_root().join(file)).unwrap();
        for (n, line) in text.lines().enumerate() {
            // The constraints' clock period, quoted as they write it, is not a measurement.
            let line_ = line.replace("-period 4.000", "-period 4");
            if numbers(&line_)
                .iter()
                .any(|(num, unit)| (unit.starts_with("MHz") && num != "250") || decimals(num) >= 3)
            {
                found.push(format!("{file}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "measurements copied from BENCHMARKS.md (point at its section instead):\n{}",
        found.join("\n")
    );
}

/// The numbers of `line` (`12`, `0.933`; a run of digits and dots that starts with a digit,
/// a trailing dot dropped), each with the text after it (one space skipped).
fn numbers(line: &str) -> Vec<(String, &str)> {
    let mut out = Vec::new();
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit()
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.'));
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'.') {
            j += 1;
        }
        let num = line[i..j].trim_end_matches('.').to_string();
        let rest = line[j..].strip_prefix(' ').unwrap_or(&line[j..]);
        out.push((num, rest));
        i = j;
    }
    out
}

/// Digits after the decimal point of `num` (0 for an integer or a dotted name like `1.2.3`).
fn decimals(num: &str) -> usize {
    match num.split('.').collect::<Vec<_>>().as_slice() {
        [_, d] => d.len(),
        _ => 0,
    }
}

#[test]
fn numbers_and_their_units_are_read() {
    let got = numbers("reaches 165.23 MHz, 0.933 = 1.00x; v2.1 and 250 MHz. x86");
    let nums: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(nums, ["165.23", "0.933", "1.00", "250"]);
    assert!(got[0].1.starts_with("MHz") && got[3].1.starts_with("MHz"));
    assert_eq!(decimals("0.933"), 3);
    assert_eq!(decimals("1.2.3"), 0);
}

#[test]
fn commas_group_by_three() {
    assert_eq!(commas(0), "0");
    assert_eq!(commas(999), "999");
    assert_eq!(commas(1000), "1,000");
    assert_eq!(commas(100_663_296), "100,663,296");
}
