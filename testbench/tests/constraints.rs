//! The timing constraints of `constraints/` against the emitted Verilog of the default
//! configuration (`gen/qp_table.v`):
//!
//! | test | what it checks |
//! |---|---|
//! | `constraint_ports_exist` | every port named by `get_ports`, in active lines and in the commented templates, is a port of `qp_table`; a `[*]` bus select names a port wider than one bit, a port without one is one bit wide |
//! | `constraints_cover_every_port` | every port of `qp_table` is named in each file (so a new port is not forgotten) |
//! | `clock_is_250_mhz_on_clk` | each file creates exactly one clock, `clk`, period 4.000 ns, on port `clk`, and every `-clock` refers to it |

use qptable_testbench::tools::{repo_root, top_ports};
use std::collections::{BTreeMap, BTreeSet};

const FILES: [&str; 2] = ["constraints/qp_table.xdc", "constraints/qp_table.sdc"];
const TOP: &str = "qp_table";

/// The ports of module `top` in `verilog`: name -> width.
fn ports(verilog: &str, top: &str) -> BTreeMap<String, u32> {
    let (_, decls) = top_ports(verilog, top).unwrap_or_else(|e| panic!("gen/{top}.v: {e}"));
    decls
        .into_iter()
        .map(|(name, _, width)| (name, width))
        .collect()
}

fn text_of(file: &str) -> String {
    let path = repo_root().join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {file}: {e}"))
}

/// Every `get_ports` argument of the file, comments included (a `#` at the start of a line
/// is dropped, so the templates count): (line number, name as written).
fn named_ports(text: &str) -> Vec<(usize, String)> {
    let mut out = vec![];
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_start().trim_start_matches('#');
        let mut rest = line;
        while let Some(i) = rest.find("get_ports") {
            rest = rest[i + "get_ports".len()..].trim_start();
            let (args, after) = if let Some(r) = rest.strip_prefix('{') {
                let end = r.find('}').expect("unclosed { in get_ports");
                (&r[..end], &r[end + 1..])
            } else {
                let end = rest.find(']').unwrap_or(rest.len());
                (&rest[..end], &rest[end..])
            };
            for a in args.split_whitespace() {
                out.push((n + 1, a.to_string()));
            }
            rest = after;
        }
    }
    out
}

fn verilog_ports() -> BTreeMap<String, u32> {
    let path = repo_root().join("gen").join(format!("{TOP}.v"));
    let text = std::fs::read_to_string(&path).expect("gen/qp_table.v");
    ports(&text, TOP)
}

#[test]
fn constraint_ports_exist() {
    let ports = verilog_ports();
    let mut problems = vec![];
    for file in FILES {
        let named = named_ports(&text_of(file));
        assert!(!named.is_empty(), "{file} names no port");
        for (line, name) in named {
            let (base, bus) = match name.strip_suffix("[*]") {
                Some(b) => (b, true),
                None => (name.as_str(), false),
            };
            match ports.get(base) {
                None => problems.push(format!(
                    "{file}:{line}: `{name}` is not a port of {TOP} (gen/{TOP}.v)"
                )),
                Some(&w) if bus && w == 1 => problems.push(format!(
                    "{file}:{line}: `{name}` selects bits of a 1-bit port"
                )),
                Some(&w) if !bus && w > 1 => problems.push(format!(
                    "{file}:{line}: `{name}` is {w} bits wide: write `{name}[*]`"
                )),
                Some(_) => {}
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn constraints_cover_every_port() {
    let ports = verilog_ports();
    for file in FILES {
        let named: BTreeSet<String> = named_ports(&text_of(file))
            .into_iter()
            .map(|(_, n)| n.trim_end_matches("[*]").to_string())
            .collect();
        let missing: Vec<&String> = ports.keys().filter(|p| !named.contains(*p)).collect();
        assert!(
            missing.is_empty(),
            "{file} does not name these ports of {TOP}: {missing:?}"
        );
    }
}

#[test]
fn clock_is_250_mhz_on_clk() {
    for file in FILES {
        let text = text_of(file);
        let clocks: Vec<&str> = text
            .lines()
            .filter(|l| l.trim_start().starts_with("create_clock"))
            .collect();
        assert_eq!(clocks.len(), 1, "{file}: expected one active create_clock");
        let words: Vec<&str> = clocks[0].split_whitespace().collect();
        let arg = |flag: &str| {
            words
                .iter()
                .position(|w| *w == flag)
                .and_then(|i| words.get(i + 1))
                .copied()
                .unwrap_or_else(|| panic!("{file}: create_clock without {flag}"))
        };
        assert_eq!(arg("-name"), "clk", "{file}: the clock is named clk");
        assert_eq!(arg("-period"), "4.000", "{file}: 250 MHz is 4.000 ns");
        let ports: Vec<String> = named_ports(clocks[0]).into_iter().map(|(_, n)| n).collect();
        assert_eq!(ports, ["clk"], "{file}: the clock is on port clk");
        // Every -clock (templates included) refers to that clock.
        for (n, line) in text.lines().enumerate() {
            let w: Vec<&str> = line.split_whitespace().collect();
            if let Some(i) = w.iter().position(|x| *x == "-clock") {
                assert_eq!(
                    w.get(i + 1).copied(),
                    Some("clk"),
                    "{file}:{}: -clock must name clk",
                    n + 1
                );
            }
        }
    }
}

#[test]
fn port_reader_reads_rust_hdl_declarations() {
    let v = "module t(clk,a,b);\n    input wire  clk;\n    input wire  [23:0] a;\n    output reg  b;\nendmodule\n";
    let p = ports(v, "t");
    assert_eq!(p["clk"], 1);
    assert_eq!(p["a"], 24);
    assert_eq!(p["b"], 1);
    let named = named_ports(
        "# set_input_delay -clock clk [get_ports {a[*] b}]\ncreate_clock [get_ports clk]\n",
    );
    assert_eq!(
        named,
        [
            (1, "a[*]".to_string()),
            (1, "b".to_string()),
            (2, "clk".to_string())
        ]
    );
}
