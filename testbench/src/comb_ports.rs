//! A check of emitted Verilog for the zero-delay oscillation that event-driven simulators
//! (Icarus, xsim, Questa) show and Verilator hides.
//!
//! rust-hdl writes each block's `update` as one `always @(*)` block. A signal that leaves the
//! block, assigned a default and then overridden in the same evaluation, takes two values in
//! one time step: each assignment is an event for every process that reads it. When the
//! reader is itself an `always @(*)` block that writes back something the first block reads,
//! the two wake each other forever and simulated time stops (found on ALLOC_AT: the command
//! engine's `map.op_valid` against the free map's `done`). Verilator sorts the statements and
//! never sees it.
//!
//! The rule this checks: every signal that leaves a block is assigned at most once on every
//! path through the block's `always @(*)` code, where "leaves" means
//! - an output port of the module (its parent reads it through an `always @(*)` or `assign`),
//! - or a child instance's input port (`child$port`) that the child reads in its own
//!   combinational code (a D flip-flop's `d` or a RAM's write port, read only at the clock
//!   edge, cannot wake anything).
//!
//! Branches of an `if` or a `case` are exclusive: a signal assigned once in each branch is
//! assigned once per evaluation. A part-select assignment (`x[3:0] = ...`) counts as an
//! assignment of `x`: between two of them the reader sees a value that is neither the old nor
//! the new one.
//!
//! The parser reads the subset rust-hdl emits (one statement per line: `if (...) begin`,
//! `end`, `else begin`, `else if (...) begin`, `case (...)`, `label:`, `begin`, `endcase`,
//! `lhs = rhs;`), and refuses anything else with the line, so a change in rust-hdl's output
//! cannot make the check pass by not reading the code.

use std::collections::{BTreeMap, BTreeSet};

/// A signal that leaves its block and is assigned more than once on some path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DoubleAssignment {
    /// The Verilog module (rust-hdl names children `top$child$grandchild`).
    pub module: String,
    /// The signal, as written on the left-hand side (`done`, `map$op_valid`).
    pub signal: String,
    /// The most assignments on one path through the block.
    pub count: usize,
    /// `output port` or `input of child <module> read combinationally`.
    pub role: String,
}

impl std::fmt::Display for DoubleAssignment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "module {}: {} ({}) is assigned {} times in one evaluation of an always @(*) block",
            self.module, self.signal, self.role, self.count
        )
    }
}

#[derive(Default)]
struct Module {
    outputs: BTreeSet<String>,
    /// Instance name -> module name.
    instances: BTreeMap<String, String>,
    /// Per combinational block, the most assignments of each signal on one path.
    blocks: Vec<BTreeMap<String, usize>>,
    /// Every identifier read by the module's combinational code.
    comb_reads: BTreeSet<String>,
}

/// Every signal of `verilog` that leaves its block and is assigned more than once in one
/// evaluation of an `always @(*)` block. An error names a line the parser cannot read.
pub fn double_assignments(verilog: &str) -> Result<Vec<DoubleAssignment>, String> {
    let modules = parse(verilog)?;
    let mut found = Vec::new();
    for (name, m) in &modules {
        for block in &m.blocks {
            for (signal, &count) in block {
                if count < 2 {
                    continue;
                }
                let role = if m.outputs.contains(signal) {
                    Some("output port".to_string())
                } else {
                    signal.split_once('$').and_then(|(inst, port)| {
                        let child = m.instances.get(inst)?;
                        let reads = &modules.get(child)?.comb_reads;
                        reads
                            .contains(port)
                            .then(|| format!("input of child {child} read combinationally"))
                    })
                };
                if let Some(role) = role {
                    found.push(DoubleAssignment {
                        module: name.clone(),
                        signal: signal.clone(),
                        count,
                        role,
                    });
                }
            }
        }
    }
    Ok(found)
}

fn parse(verilog: &str) -> Result<BTreeMap<String, Module>, String> {
    let lines: Vec<&str> = verilog.lines().map(str::trim).collect();
    let mut modules = BTreeMap::new();
    let mut current: Option<(String, Module)> = None;
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        i += 1;
        if let Some(rest) = l.strip_prefix("module ") {
            let name = rest.split('(').next().unwrap_or(rest).trim().to_string();
            if let Some((n, m)) = current.replace((name, Module::default())) {
                modules.insert(n, m);
            }
            continue;
        }
        let Some((_, m)) = current.as_mut() else {
            continue;
        };
        if let Some(rest) = l.strip_prefix("output ") {
            if let Some(name) = declared_name(rest) {
                m.outputs.insert(name);
            }
        } else if let Some(rest) = l.strip_prefix("always @(*)") {
            let rest = rest.trim();
            let body: Vec<&str> = if rest == "begin" {
                let start = i;
                let mut depth = 1;
                while i < lines.len() {
                    let s = lines[i];
                    if s.ends_with("begin") {
                        depth += 1;
                    }
                    if s == "end" {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    i += 1;
                }
                let body = lines[start..i].to_vec();
                i += 1;
                body
            } else {
                vec![rest]
            };
            let mut p = Parser {
                lines: &body,
                pos: 0,
                reads: &mut m.comb_reads,
            };
            let counts = p.sequence()?;
            if p.pos != body.len() {
                return Err(format!("unexpected line: {}", body[p.pos]));
            }
            m.blocks.push(counts);
        } else if let Some(rest) = l.strip_prefix("assign ") {
            if let Some((_, rhs)) = rest.split_once('=') {
                identifiers(rhs, &mut m.comb_reads);
            }
        } else if l.ends_with('(') && !l.starts_with("always") {
            // `child_module instance(`
            let mut words = l.trim_end_matches('(').split_whitespace();
            if let (Some(module), Some(instance), None) = (words.next(), words.next(), words.next())
            {
                m.instances.insert(instance.to_string(), module.to_string());
            }
        }
    }
    if let Some((n, m)) = current {
        modules.insert(n, m);
    }
    Ok(modules)
}

/// `reg  [3:0] name;` -> `name` (also `wire name,` of an ANSI header).
fn declared_name(decl: &str) -> Option<String> {
    let name = decl
        .trim()
        .trim_end_matches([';', ','])
        .rsplit([' ', ']'])
        .next()?;
    (!name.is_empty()).then(|| name.to_string())
}

fn identifiers(expr: &str, into: &mut BTreeSet<String>) {
    let mut word = String::new();
    for c in expr.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphanumeric() || c == '_' || c == '$' {
            word.push(c);
        } else {
            if word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
                into.insert(std::mem::take(&mut word));
            }
            word.clear();
        }
    }
}

type Counts = BTreeMap<String, usize>;

/// Assignments on one path after `a` then `b`.
fn then(a: &mut Counts, b: Counts) {
    for (k, v) in b {
        *a.entry(k).or_default() += v;
    }
}

/// Assignments of either of two exclusive paths.
fn either(mut a: Counts, b: Counts) -> Counts {
    for (k, v) in b {
        let e = a.entry(k).or_default();
        *e = (*e).max(v);
    }
    a
}

struct Parser<'a, 'r> {
    lines: &'a [&'a str],
    pos: usize,
    reads: &'r mut BTreeSet<String>,
}

impl<'a> Parser<'a, '_> {
    fn peek(&self) -> Option<&'a str> {
        self.lines.get(self.pos).copied()
    }

    fn expect(&mut self, what: &str) -> Result<(), String> {
        match self.peek() {
            Some(l) if l == what => {
                self.pos += 1;
                Ok(())
            }
            other => Err(format!("expected `{what}`, found {other:?}")),
        }
    }

    /// Statements up to (not including) `end`, `endcase` or a case label.
    fn sequence(&mut self) -> Result<Counts, String> {
        let mut counts = Counts::new();
        while let Some(l) = self.peek() {
            if l == "end" || l == "endcase" || is_label(l) {
                break;
            }
            if l.is_empty() || l.starts_with("//") {
                self.pos += 1;
            } else if l.starts_with("if ") || l.starts_with("if(") {
                let c = self.conditional()?;
                then(&mut counts, c);
            } else if l.starts_with("case ") || l.starts_with("case(") {
                let c = self.case()?;
                then(&mut counts, c);
            } else if l == "begin" {
                self.pos += 1;
                let c = self.sequence()?;
                self.expect("end")?;
                then(&mut counts, c);
            } else if let Some((lhs, rhs)) = l.strip_suffix(';').and_then(|s| s.split_once(" = ")) {
                let (name, select) = match lhs.split_once('[') {
                    Some((n, sel)) => (n.trim(), sel),
                    None => (lhs.trim(), ""),
                };
                if name.is_empty()
                    || !name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
                {
                    return Err(format!("cannot read the line `{l}`"));
                }
                identifiers(rhs, self.reads);
                identifiers(select, self.reads);
                *counts.entry(name.to_string()).or_default() += 1;
                self.pos += 1;
            } else {
                return Err(format!("cannot read the line `{l}`"));
            }
        }
        Ok(counts)
    }

    /// `if (...) begin ... end [else if ... | else begin ... end]`, at an `if` or `else if`.
    fn conditional(&mut self) -> Result<Counts, String> {
        let head = self.peek().unwrap_or_default();
        identifiers(head, self.reads);
        if !head.ends_with("begin") {
            return Err(format!("an if without begin: `{head}`"));
        }
        self.pos += 1;
        let taken = self.sequence()?;
        self.expect("end")?;
        let other = match self.peek() {
            Some(l) if l.starts_with("else if") => self.conditional()?,
            Some("else begin") => {
                self.pos += 1;
                let c = self.sequence()?;
                self.expect("end")?;
                c
            }
            _ => Counts::new(),
        };
        Ok(either(taken, other))
    }

    /// `case (...)`, labels each with a `begin ... end` or one statement, `endcase`.
    fn case(&mut self) -> Result<Counts, String> {
        identifiers(self.peek().unwrap_or_default(), self.reads);
        self.pos += 1;
        let mut all = Counts::new();
        loop {
            match self.peek() {
                Some("endcase") => {
                    self.pos += 1;
                    return Ok(all);
                }
                Some(l) if is_label(l) => {
                    self.pos += 1;
                    let c = self.sequence()?;
                    all = either(all, c);
                }
                other => return Err(format!("expected a case label, found {other:?}")),
            }
        }
    }
}

fn is_label(l: &str) -> bool {
    l.ends_with(':') && !l.contains(' ')
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHILD: &str = "
module top$child(clock,op_valid,d_only,done);
    input wire  clock;
    input wire  op_valid;
    input wire  d_only;
    output reg  done;
    always @(*) begin
        done = 1'b0;
        if (op_valid) begin
            done = 1'b1;
        end
    end
endmodule
";

    fn top(body: &str) -> String {
        format!(
            "
module top(clock,go,out);
    input wire  clock;
    input wire  go;
    output reg  out;
    reg  child$op_valid;
    reg  child$d_only;
    wire  child$done;
    top$child child(
        .clock(child$clock),
        .op_valid(child$op_valid),
        .d_only(child$d_only),
        .done(child$done)
    );
    always @(*) begin
{body}
    end
endmodule
{CHILD}"
        )
    }

    #[test]
    fn default_then_override_of_an_output_is_found() {
        let v = top("out = 1'b0;\nout = go;\nchild$op_valid = go;\nchild$d_only = go;");
        let found = double_assignments(&v).unwrap();
        let names: Vec<(&str, &str)> = found
            .iter()
            .map(|d| (d.module.as_str(), d.signal.as_str()))
            .collect();
        // The child's `done` (default then override) and the top's `out`.
        assert_eq!(names, [("top", "out"), ("top$child", "done")], "{found:?}");
    }

    #[test]
    fn child_input_read_combinationally_is_found_and_one_read_at_the_edge_is_not() {
        // `d_only` is never read by the child's combinational code.
        let v = top("out = go;\nchild$op_valid = 1'b0;\nchild$d_only = 1'b0;\n\
             if (go) begin\nchild$op_valid = 1'b1;\nchild$d_only = 1'b1;\nend");
        let found = double_assignments(&v).unwrap();
        assert!(found
            .iter()
            .any(|d| d.module == "top" && d.signal == "child$op_valid" && d.count == 2));
        assert!(!found.iter().any(|d| d.signal == "child$d_only"));
    }

    #[test]
    fn exclusive_branches_count_once() {
        let v = top(
            "if (go) begin\nout = 1'b1;\nend\nelse if (clock) begin\nout = 1'b0;\nend\n\
             else begin\nout = go;\nend\ncase (go)\n0:\nbegin\nchild$op_valid = 1'b0;\nend\n\
             default:\nchild$op_valid = 1'b1;\nendcase\nchild$d_only = go;",
        );
        let found = double_assignments(&v).unwrap();
        assert!(
            found.iter().all(|d| d.module != "top"),
            "exclusive branches flagged: {found:?}"
        );
    }

    #[test]
    fn part_selects_count_as_assignments() {
        let v = top("out[0] = go;\nout[1] = go;\nchild$op_valid = go;\nchild$d_only = go;");
        let found = double_assignments(&v).unwrap();
        assert!(found.iter().any(|d| d.signal == "out" && d.count == 2));
    }

    #[test]
    fn an_unreadable_line_is_an_error() {
        let v = top("out = go;\nfor (i = 0; i < 2; i = i + 1) out = go;");
        assert!(double_assignments(&v).is_err());
    }
}
