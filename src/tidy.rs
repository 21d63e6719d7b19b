//! rust-hdl's Verilog made to read like hand-written IP: what the generator does to the text
//! after rust-hdl wrote it, and the lint waivers shipped beside it.
//!
//! - [`plain_names`]: module and instance names without `$` (rust-hdl names a submodule
//!   `<top>$<instance>` and an array's instances `<name>$<i>`; a `$` must be escaped in every
//!   Tcl or XDC `get_cells`). Each `$` becomes `_`; a name that would then clash is refused.
//! - [`ansi_header`]: the top module's ports declared in its header, one a line, grouped by
//!   interface with a comment per group, instead of one line of names and a list of
//!   declarations.
//! - [`lint_waivers`]: the Verilator configuration file `<top>.vlt` that `qptable gen`
//!   writes beside `<top>.v`: the only waivers `-Wall` needs, each saying why.
//!
//! Signal names keep rust-hdl's `$` (`engine$state$q`): they are local to their module and
//! never named from outside it.

use anyhow::{bail, Result};
use std::collections::{BTreeMap, BTreeSet};

/// A Verilog identifier character, `$` included (rust-hdl uses it inside names).
fn ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// The module a line opens, for rust-hdl's `module name(...` at the start of a line.
fn module_name(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("module ")?;
    let end = rest.find(|c: char| !ident_char(c))?;
    Some(&rest[..end])
}

/// `(indent, module, instance)` of an instance line `    module instance(`.
fn instance_line<'a>(
    line: &'a str,
    modules: &BTreeMap<String, String>,
) -> Option<(&'a str, &'a str, &'a str)> {
    let line = line.trim_end();
    let t = line.trim_start();
    let indent = &line[..line.len() - t.len()];
    let (module, rest) = t.split_once(' ')?;
    let instance = rest.strip_suffix('(')?;
    (modules.contains_key(module) && !instance.is_empty() && instance.chars().all(ident_char))
        .then_some((indent, module, instance))
}

/// Every identifier of `text`.
fn identifiers(text: &str) -> BTreeSet<&str> {
    text.split(|c: char| !ident_char(c))
        .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
        .collect()
}

/// `verilog` with every `$` of a module or instance name replaced by `_`.
///
/// An error (an internal one: a configuration cannot cause it) names a new module name that
/// is already a module's, or a new instance name that is already an identifier of the
/// module holding the instance; the text is then not changed.
pub fn plain_names(verilog: &str) -> Result<String> {
    let mut modules: BTreeMap<String, String> = BTreeMap::new();
    for line in verilog.lines() {
        if let Some(name) = module_name(line) {
            modules.insert(name.to_string(), name.replace('$', "_"));
        }
    }
    let mut taken = BTreeSet::new();
    for (old, new) in &modules {
        if !taken.insert(new) || (old != new && modules.contains_key(new)) {
            bail!("internal error: module {old} renamed {new} clashes with another module");
        }
    }
    let mut out = String::with_capacity(verilog.len());
    let mut body_ids: BTreeSet<&str> = BTreeSet::new();
    let mut current = String::new();
    let mut pos = 0;
    for line in verilog.split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        if let Some(name) = module_name(line) {
            current = name.to_string();
            let len = verilog[start..].find("endmodule").unwrap_or(0);
            body_ids = identifiers(&verilog[start..start + len]);
            out.push_str(&line.replacen(name, &modules[name], 1));
        } else if let Some((indent, module, instance)) = instance_line(line, &modules) {
            let new = instance.replace('$', "_");
            if new != instance && body_ids.contains(new.as_str()) {
                bail!(
                    "internal error: instance {instance} of module {current} renamed {new} \
                     clashes with a name of that module"
                );
            }
            out.push_str(&format!("{indent}{} {new}(\n", modules[module]));
        } else if let Some(name) = line.trim_end().strip_prefix("endmodule // ") {
            let new = modules.get(name).map_or(name, String::as_str);
            out.push_str(&format!("endmodule // {new}\n"));
        } else {
            out.push_str(line);
        }
    }
    Ok(out)
}

/// `verilog` with module `top`'s non-ANSI header (`module top(a,b,...);` and one `input` or
/// `output` declaration per port in its body) replaced by an ANSI header: one port a line in
/// the header's order, `group(port)` written as a comment before each new group (a line
/// break in it starts a new comment line). An error names a port without its declaration.
pub fn ansi_header(verilog: &str, top: &str, group: &dyn Fn(&str) -> String) -> Result<String> {
    let head = format!("module {top}(");
    let Some(start) = verilog.find(&head) else {
        bail!("internal error: no `{head}` in the Verilog");
    };
    let close = start
        + verilog[start..]
            .find(");")
            .ok_or_else(|| anyhow::anyhow!("internal error: the header of {top} has no `);`"))?;
    let names: Vec<&str> = verilog[start + head.len()..close]
        .split(',')
        .map(str::trim)
        .collect();
    let end = start
        + verilog[start..]
            .find("endmodule")
            .ok_or_else(|| anyhow::anyhow!("internal error: module {top} has no endmodule"))?;
    let body = &verilog[close + 2..end];
    // name -> (direction, kind, range) from the body's declarations.
    let mut decls: BTreeMap<&str, (&str, &str, &str)> = BTreeMap::new();
    let mut kept = String::with_capacity(body.len());
    for line in body.split_inclusive('\n') {
        let t = line.trim();
        let words: Vec<&str> = t.trim_end_matches(';').split_whitespace().collect();
        let decl = match words.as_slice() {
            [dir @ ("input" | "output"), kind, name] => Some((*name, (*dir, *kind, ""))),
            [dir @ ("input" | "output"), kind, range, name] => Some((*name, (*dir, *kind, *range))),
            _ => None,
        };
        match decl.filter(|(n, _)| t.ends_with(';') && names.contains(n)) {
            Some((n, d)) => {
                decls.insert(n, d);
            }
            None if t == "// Module arguments" => {}
            None => kept.push_str(line),
        }
    }
    let rw = decls.values().map(|d| d.2.len()).max().unwrap_or(0);
    let mut s = format!("module {top} (\n");
    let mut last = String::new();
    for (i, name) in names.iter().enumerate() {
        let Some(&(dir, kind, range)) = decls.get(name) else {
            bail!("internal error: port {name} of {top} has no declaration");
        };
        let g = group(name);
        if g.contains(");") {
            // Simple tools read a header up to its first `);` (cocotb's run.py did).
            bail!("internal error: the comment of port {name} holds `);`: {g}");
        }
        if g != last {
            for l in g.lines() {
                s.push_str(&format!("    // {l}\n"));
            }
            last = g;
        }
        let comma = if i + 1 < names.len() { "," } else { "" };
        s.push_str(&format!("    {dir:<6} {kind} {range:<rw$} {name}{comma}\n"));
    }
    s.push_str(");\n");
    let kept = kept.trim_start_matches(['\n', ' ']);
    Ok(format!(
        "{}{s}\n    {kept}{}",
        &verilog[..start],
        &verilog[end..]
    ))
}

/// The Verilator configuration file `<top>.vlt` of the engine `top`: the waivers that
/// `verilator --lint-only -Wall <top>.vlt <top>.v` needs, each limited to the file
/// `<top>.v` in any folder and to the messages its `-match` pattern names, with why.
pub fn lint_waivers(top: &str) -> String {
    let head = format!(
        "{top}.vlt: the Verilator lint waivers of {top}.v, written by `qptable gen` beside it.\n\
         Use: verilator --lint-only -Wall {top}.vlt {top}.v (any folder: the waivers apply\n\
         to files named {top}.v). Each waiver is limited to the messages its -match names;\n\
         any other warning is reported. All of them come from how rust-hdl writes Verilog,\n\
         not from the design."
    );
    waiver_file(&head, &[top])
}

/// The repository's `verilator.vlt`: the waivers of every `gen/<top>.v` of `tops` in one file
/// (the same lines as their `<top>.vlt`), so that `verilator --lint-only -Wall verilator.vlt
/// gen/<top>.v` works from the repository root for each.
pub fn lint_waivers_of(tops: &[&str]) -> String {
    let head = "The repository's verilator.vlt: the lint waivers of every gen/<top>.v, the lines of each\n\
                gen/<top>.vlt in one file (checked fresh by the verilog_quality test gen_is_fresh).\n\
                Use: verilator --lint-only -Wall verilator.vlt gen/<top>.v. Each waiver is limited\n\
                to the messages its -match names; any other warning is reported. All of them come\n\
                from how rust-hdl writes Verilog, not from the design.";
    waiver_file(head, tops)
}

/// A waiver file: `head` (comment lines), then each rule with why and its lines for each of
/// `tops`, limited to the files named `<top>.v`.
fn waiver_file(head: &str, tops: &[&str]) -> String {
    let mut s = String::from("`verilator_config\n");
    for l in head.lines() {
        s.push_str(&format!("// {l}\n"));
    }
    s.push_str(
        "// (A comment must not start with the word \"verilator\": that makes it a metacomment.)\n\n",
    );
    let declfilename = |top: &str| {
        vec![format!(
            "Filename '{top}' does not match MODULE name: '{top}_*'"
        )]
    };
    let fixed = |m: &[&str]| -> Vec<String> { m.iter().map(|x| x.to_string()).collect() };
    type Matches<'a> = Box<dyn Fn(&str) -> Vec<String> + 'a>;
    let rules: [(&str, &str, Matches); 3] = [
        (
            "DECLFILENAME: the whole hierarchy is in one file named after the top module; the \
             submodules are named `<top>_<instance>`. Another module name is still reported.",
            "DECLFILENAME",
            Box::new(declfilename),
        ),
        (
            "UNUSEDPARAM: rust-hdl declares the values of an enum type (`EngState$Init`, ...) as \
             localparams in every module that carries a signal of that type, also in the \
             flip-flop modules that never compare against them. Only names with `$` (enum \
             values) are waived; an unused configuration localparam is still reported.",
            "UNUSEDPARAM",
            Box::new(move |_| fixed(&["Parameter is not used: '*$*'"])),
        ),
        (
            "WIDTH: rust-hdl writes every integer literal as a sized 32-bit constant (`32'h1`), \
             or 64-bit when it does not fit in 32 bits, and a `bit_cast` as a mask (`(x & \
             24'hffffff)`), whatever the width of the other operand. The widths are enforced \
             by Rust's `Bits<N>` types when the Verilog is generated, so the extensions and \
             truncations these expressions imply are intended. Only those shapes are waived: \
             an operator widened by a literal; a bit_cast's mask; a literal, a mask, or a sum \
             or difference with a 32-bit literal assigned to a narrower signal; a part select \
             with a 64-bit literal offset (`x[(64'h2)+:(20)]`). A width mismatch between two \
             signals is still reported.",
            "WIDTH",
            Box::new(move |_| {
                fixed(&[
                    "Operator * expects 32 bits on the *",
                    "Operator * expects 64 bits on the *",
                    "Operator AND expects *",
                    "Operator ASSIGN expects * bits on the Assign RHS, but Assign RHS's CONST *",
                    "Operator ASSIGN expects * bits on the Assign RHS, but Assign RHS's AND generates *",
                    "Operator ASSIGN expects * bits on the Assign RHS, but Assign RHS's ADD generates 32 bits.",
                    "Operator ASSIGN expects * bits on the Assign RHS, but Assign RHS's SUB generates 32 bits.",
                    "Bit extraction of var* requires * bit index, not 64 bits.",
                ])
            }),
        ),
    ];
    for (why, rule, matches) in &rules {
        s.push_str(&wrap_comment(why));
        for top in tops {
            for m in matches(top) {
                s.push_str(&format!(
                    "lint_off -rule {rule} -file \"*{top}.v\" -match \"{m}\"\n"
                ));
            }
        }
        s.push('\n');
    }
    s.pop();
    s
}

/// `text` as `// ` comment lines of at most 96 characters (a longer word stays whole).
pub fn wrap_comment(text: &str) -> String {
    let mut out = String::new();
    let mut line = String::from("//");
    for w in text.split_whitespace() {
        if line.len() + 1 + w.len() > 96 {
            out.push_str(&line);
            out.push('\n');
            line = String::from("//");
        }
        line.push(' ');
        line.push_str(w);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const V: &str = "module t(clk,a,q);\n    \n    // Module arguments\n    input wire  clk;\n    \
                     input wire  [23:0] a;\n    output wire  q;\n    \n    // Local signals\n    \
                     wire c$d;\n    t$child child(\n        .d(c$d)\n    );\n    t$child$x u$0(\n    \
                     );\nendmodule // t\n\nmodule t$child(d);\nendmodule // t$child\n\nmodule \
                     t$child$x();\nendmodule // t$child$x\n";

    #[test]
    fn modules_and_instances_lose_their_dollar_signals_keep_it() {
        let out = plain_names(V).unwrap();
        assert!(out.contains("    t_child child(\n"), "{out}");
        assert!(out.contains("    t_child_x u_0(\n"), "{out}");
        assert!(
            out.contains("module t_child(d);\nendmodule // t_child\n"),
            "{out}"
        );
        assert!(
            out.contains("module t_child_x();\nendmodule // t_child_x\n"),
            "{out}"
        );
        assert!(
            out.contains("wire c$d;") && out.contains(".d(c$d)"),
            "{out}"
        );
    }

    #[test]
    fn a_clash_is_refused() {
        let v = "module t();\n    t$a u$0(\n    );\n    wire u_0;\nendmodule // t\n\nmodule t$a();\nendmodule // t$a\n";
        let e = plain_names(v).unwrap_err().to_string();
        assert!(e.contains("u$0") && e.contains("u_0"), "{e}");
        let v = "module t();\nendmodule\nmodule t$a();\nendmodule\nmodule t_a();\nendmodule\n";
        assert!(plain_names(v).unwrap_err().to_string().contains("t_a"));
    }

    #[test]
    fn the_header_becomes_ansi_grouped_one_port_a_line() {
        let group = |n: &str| {
            if n == "clk" {
                "Clock\nsecond line".into()
            } else {
                "Data".to_string()
            }
        };
        let out = ansi_header(V, "t", &group).unwrap();
        let want =
            "module t (\n    // Clock\n    // second line\n    input  wire        clk,\n    \
                    // Data\n    input  wire [23:0] a,\n    output wire        q\n);\n\n    \
                    // Local signals\n    wire c$d;\n";
        assert!(out.starts_with(want), "{out}");
        assert!(
            !out.contains("input wire") && !out.contains("Module arguments"),
            "{out}"
        );
        let bad = |_: &str| "reads (IDs 0 and 1); more".to_string();
        assert!(ansi_header(V, "t", &bad)
            .unwrap_err()
            .to_string()
            .contains("`);`"));
        assert!(ansi_header(
            "module t(clk,b);\n    input wire clk;\nendmodule\n",
            "t",
            &group
        )
        .unwrap_err()
        .to_string()
        .contains("port b"));
    }

    #[test]
    fn the_waivers_name_the_file_of_the_top_only() {
        let w = lint_waivers("qp_x");
        assert!(w.starts_with("`verilator_config\n"));
        let rules: Vec<&str> = w.lines().filter(|l| l.starts_with("lint_off")).collect();
        assert_eq!(rules.len(), 10);
        assert!(rules
            .iter()
            .all(|l| l.contains("-file \"*qp_x.v\" -match \"")));
        assert!(w.contains("MODULE name: 'qp_x_*'"));
        assert!(w
            .lines()
            .all(|l| l.len() <= 100 || l.starts_with("lint_off")));
        assert!(!w.lines().any(|l| l.starts_with("// verilator")));
        let all = lint_waivers_of(&["qp_a", "qp_b"]);
        assert!(!all.lines().any(|l| l.starts_with("// verilator")), "{all}");
        let rules = |top: &str| {
            all.lines()
                .filter(|l| l.contains(&format!("\"*{top}.v\"")))
                .count()
        };
        assert_eq!((rules("qp_a"), rules("qp_b")), (10, 10));
    }
}
