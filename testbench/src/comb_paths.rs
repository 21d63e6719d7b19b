//! A static check of emitted Verilog for combinational paths from the inputs of the top module
//! to its outputs (SPEC §4: no output of the memory port depends combinationally on an input;
//! on the other ports the docs list every output that is not registered).
//!
//! [`comb_paths`] runs yosys on the Verilog (`read_verilog; hierarchy -check -top; proc;
//! flatten; write_json`: no optimisation or synthesis pass, which are slow on the largest
//! designs and not needed; the JSON backend resolves the connections `flatten` leaves) and
//! walks the flat netlist at bit level. yosys takes the time: about 40 CPU seconds on
//! `gen/qp_table_scale.v` (mostly `read_verilog` and `proc_prune`; `opt_clean` would add 11),
//! a few seconds on the on-chip configurations, several minutes with 256 misses in flight
//! (one `always @(*)` block of the miss unit is then 58,000 lines long). The nodes are the net bits; each cell adds edges from
//! its input bits to its output bits:
//!
//! - bitwise cells (`$and $or $xor $xnor $not $pos $buf $mux $pmux $bwmux $bmux $demux
//!   $tribuf $concat $slice` ...) bit by bit: `Y[i]` from `A[i]`, `B[i]` (the bits of the
//!   same position, after the cell's sign or zero extension) and the select bits. rust-hdl
//!   packs unrelated signals into one vector, so an all-to-all treatment would report paths
//!   that do not exist;
//! - other combinational cells (arithmetic, compare, shift, reduce, logic, gate-level cells,
//!   latches, which are transparent) from every input bit to every output bit;
//! - flip-flops (`$dff $dffe $sdff $sdffe $sdffce $adff $adffe $aldff $aldffe $dffsr
//!   $dffsre $ff` and their gate-level forms) and memory write and init cells add none: they
//!   cut the path. An asynchronous reset, set or load is taken as cut too (its timing is a
//!   recovery/removal check, not a combinational path; the engine's reset is synchronous);
//! - a memory read port (`$memrd`, `$memrd_v2`, each read port of `$mem`/`$mem_v2`) is
//!   combinational from its address and enable to its data when it is not clocked
//!   (`CLK_ENABLE = 0`) and cuts the path when it is;
//! - a cell of a black-box module (`(* blackbox *)`, no body) is taken as sequential: all its
//!   outputs registered. The only one the generator instantiates is Lattice's `DP16KD`
//!   (`fpga = ecp5`), whose reads are synchronous with `REGMODE = "NOREG"` as with
//!   `"OUTREG"`; [`comb_paths`] gives yosys a black-box stub of it ([`dp16kd_blackbox`]) made
//!   from the port list of the simulation model [`DP16KD_MODEL`](crate::DP16KD_MODEL).
//!
//! Any other cell type is an error that names it, so that a new yosys cell can neither cut
//! nor create a path silently. Constants and undriven bits are the source of nothing. The
//! result is at port level: every `(input port, output port)` pair of the top module with a
//! path from a bit of the input to a bit of the output.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// Every `(input port, output port)` pair of module `top` of the Verilog file `verilog` that a
/// combinational path joins. `work` is a directory for yosys's files (created; the JSON
/// netlist is `<work>/<top>.comb_paths.json`). An error says why yosys failed (its command
/// and the end of its log), or names the cell type or port the walk cannot handle.
pub fn comb_paths(
    verilog: &Path,
    top: &str,
    work: &Path,
) -> Result<BTreeSet<(String, String)>, String> {
    let json = netlist_json(verilog, top, work)?;
    let text = std::fs::read_to_string(&json)
        .map_err(|e| format!("cannot read {}: {e}", json.display()))?;
    let netlist: Value =
        serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", json.display()))?;
    comb_paths_of_netlist(&netlist, top)
}

/// A Verilog black-box stub of `DP16KD`: the ports and parameters of the simulation model
/// [`DP16KD_MODEL`](crate::DP16KD_MODEL), no body.
pub fn dp16kd_blackbox() -> String {
    let model = crate::DP16KD_MODEL;
    let start = model
        .find("module DP16KD")
        .expect("DP16KD_MODEL declares module DP16KD");
    let header_len = model[start..]
        .find(");")
        .expect("DP16KD_MODEL's port list ends with );")
        + 2;
    let mut stub = String::from("(* blackbox *)\n");
    stub.push_str(&model[start..start + header_len]);
    stub.push('\n');
    for line in model[start + header_len..].lines() {
        if line.trim_start().starts_with("parameter ") {
            stub.push_str(line);
            stub.push('\n');
        }
    }
    stub.push_str("endmodule\n");
    stub
}

/// Runs yosys on `verilog` (with the `DP16KD` stub when the file instantiates it without
/// defining it) and returns the path of the flat JSON netlist of `top`.
fn netlist_json(verilog: &Path, top: &str, work: &Path) -> Result<std::path::PathBuf, String> {
    std::fs::create_dir_all(work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let source = std::fs::read_to_string(verilog)
        .map_err(|e| format!("cannot read {}: {e}", verilog.display()))?;
    let mut reads = String::new();
    if source.contains("DP16KD") && !source.contains("module DP16KD") {
        let stub = work.join("dp16kd_blackbox.v");
        std::fs::write(&stub, dp16kd_blackbox())
            .map_err(|e| format!("cannot write {}: {e}", stub.display()))?;
        reads.push_str(&format!("read_verilog {}; ", stub.display()));
    }
    let json = work.join(format!("{top}.comb_paths.json"));
    let script = format!(
        "{reads}read_verilog {}; hierarchy -check -top {top}; proc; flatten; write_json {}",
        verilog.display(),
        json.display()
    );
    let run = crate::tools::capture(Command::new("yosys").args(["-q", "-p", &script]))
        .map_err(|e| format!("cannot run yosys (is it installed? scripts/setup): {e}"))?;
    if !run.success() {
        return Err(format!("yosys failed\n{}", run.report()));
    }
    Ok(json)
}

/// A bit of a cell connection: a net bit, or a constant (`"0"`, `"1"`, `"x"`, `"z"`).
type Bit = Option<usize>;

/// The bits of connection `port` of a cell (empty when the cell has no such connection).
fn bits(conns: &serde_json::Map<String, Value>, port: &str) -> Result<Vec<Bit>, String> {
    let Some(v) = conns.get(port) else {
        return Ok(Vec::new());
    };
    bit_list(v).map_err(|e| format!("connection {port}: {e}"))
}

fn bit_list(v: &Value) -> Result<Vec<Bit>, String> {
    let list = v.as_array().ok_or("not a list of bits")?;
    list.iter()
        .map(|b| match b {
            Value::Number(n) => n
                .as_u64()
                .map(|n| Some(n as usize))
                .ok_or_else(|| format!("bad bit {n}")),
            Value::String(_) => Ok(None),
            other => Err(format!("bad bit {other}")),
        })
        .collect()
}

/// A parameter of a cell as a number (yosys writes them as binary strings or numbers).
fn param(cell: &Value, name: &str) -> Result<u64, String> {
    match cell.get("parameters").and_then(|p| p.get(name)) {
        Some(Value::Number(n)) => n.as_u64().ok_or_else(|| format!("parameter {name}: {n}")),
        Some(Value::String(s)) => {
            let s = s.trim();
            if s.is_empty() {
                return Ok(0);
            }
            // A bit string, most significant first; x and z taken as 0.
            let mut v: u64 = 0;
            for c in s
                .chars()
                .rev()
                .take(64)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
            {
                v = (v << 1) | u64::from(c == '1');
            }
            Ok(v)
        }
        Some(other) => Err(format!("parameter {name}: {other}")),
        None => Err(format!("no parameter {name}")),
    }
}

/// A parameter that may be absent (0 then).
fn param_or_0(cell: &Value, name: &str) -> u64 {
    param(cell, name).unwrap_or(0)
}

/// The edges of the netlist: from each node to the nodes it drives combinationally.
/// Nodes are the net bits (`0..=max_bit`), then one extra node per all-to-all cell (inputs ->
/// node -> outputs: the same reachability without the product of the widths).
struct Graph {
    next: Vec<Vec<usize>>,
}

impl Graph {
    /// A graph of the net bits `0..=max_bit`, no edge.
    fn new(max_bit: usize) -> Graph {
        Graph {
            next: vec![Vec::new(); max_bit + 1],
        }
    }

    fn edge(&mut self, from: Bit, to: Bit) {
        if let (Some(f), Some(t)) = (from, to) {
            self.next[f].push(t);
        }
    }

    /// Every bit of `from` to every bit of `to`, through a fresh node.
    fn all_to_all(&mut self, from: &[Bit], to: &[Bit]) {
        let mid = self.next.len();
        self.next.push(to.iter().flatten().copied().collect());
        for &f in from.iter().flatten() {
            self.next[f].push(mid);
        }
    }
}

/// `sig` extended (or truncated) to `width` bits as yosys extends a cell operand: the sign
/// bit repeated when `signed`, else constant 0.
fn extend(sig: &[Bit], width: usize, signed: bool) -> Vec<Bit> {
    (0..width)
        .map(|i| match sig.get(i) {
            Some(&b) => b,
            None if signed => sig.last().copied().flatten(),
            None => None,
        })
        .collect()
}

/// Flip-flop cell types (word level): they cut every path.
const FLIP_FLOPS: &[&str] = &[
    "$dff", "$dffe", "$sdff", "$sdffe", "$sdffce", "$adff", "$adffe", "$aldff", "$aldffe",
    "$dffsr", "$dffsre", "$ff",
];

/// Prefixes of gate-level flip-flop types (`$_DFF_P_`, `$_SDFFE_PP0P_`, ...).
const GATE_FLIP_FLOPS: &[&str] = &[
    "$_DFF_",
    "$_DFFE_",
    "$_SDFF_",
    "$_SDFFE_",
    "$_SDFFCE_",
    "$_DFFSR_",
    "$_DFFSRE_",
    "$_ALDFF_",
    "$_ALDFFE_",
    "$_FF_",
];

/// Cells without a combinational output: memory writes and inits, formal and print cells.
const NO_OUTPUT: &[&str] = &[
    "$memwr",
    "$memwr_v2",
    "$meminit",
    "$meminit_v2",
    "$assert",
    "$assume",
    "$cover",
    "$live",
    "$fair",
    "$print",
    "$check",
    "$scopeinfo",
    "$specify2",
    "$specify3",
    "$specrule",
    "$initstate",
    "$anyconst",
    "$anyseq",
    "$allconst",
    "$allseq",
];

/// Combinational cells taken from every input bit to every output bit.
const ALL_TO_ALL: &[&str] = &[
    "$add",
    "$sub",
    "$mul",
    "$div",
    "$mod",
    "$divfloor",
    "$modfloor",
    "$pow",
    "$neg",
    "$alu",
    "$lcu",
    "$macc",
    "$fa",
    "$eq",
    "$ne",
    "$eqx",
    "$nex",
    "$lt",
    "$le",
    "$gt",
    "$ge",
    "$shl",
    "$shr",
    "$sshl",
    "$sshr",
    "$shift",
    "$shiftx",
    "$reduce_and",
    "$reduce_or",
    "$reduce_xor",
    "$reduce_xnor",
    "$reduce_bool",
    "$logic_not",
    "$logic_and",
    "$logic_or",
    "$lut",
    "$sop",
    "$equiv",
    // Gate-level cells: one output bit each.
    "$_BUF_",
    "$_NOT_",
    "$_AND_",
    "$_NAND_",
    "$_OR_",
    "$_NOR_",
    "$_XOR_",
    "$_XNOR_",
    "$_ANDNOT_",
    "$_ORNOT_",
    "$_MUX_",
    "$_NMUX_",
    "$_AOI3_",
    "$_OAI3_",
    "$_AOI4_",
    "$_OAI4_",
    "$_MUX4_",
    "$_MUX8_",
    "$_MUX16_",
    "$_TBUF_",
];

/// Adds the edges of one cell. `blackboxes` are the modules without a body.
fn add_cell(
    g: &mut Graph,
    name: &str,
    cell: &Value,
    blackboxes: &BTreeSet<String>,
) -> Result<(), String> {
    let ty = cell
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("cell {name} has no type"))?;
    let conns = cell
        .get("connections")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("cell {name} ({ty}) has no connections"))?;
    let b = |port: &str| bits(conns, port).map_err(|e| format!("cell {name} ({ty}): {e}"));
    let width = |p: &str| param(cell, p).map(|w| w as usize);
    let signed = |p: &str| param_or_0(cell, p) != 0;
    let unknown = || {
        format!(
            "cell {name}: unknown cell type {ty}: the combinational-path walk does not know \
             whether it cuts or creates paths (add it to testbench/src/comb_paths.rs)"
        )
    };
    if FLIP_FLOPS.contains(&ty)
        || GATE_FLIP_FLOPS.iter().any(|p| ty.starts_with(p))
        || NO_OUTPUT.contains(&ty)
    {
        return Ok(());
    }
    if !ty.starts_with('$') {
        return if blackboxes.contains(ty) {
            Ok(()) // Sequential by assumption (module doc).
        } else {
            Err(format!(
                "cell {name}: instance of module {ty}, neither a yosys cell nor a black box \
                 (the design should be flat)"
            ))
        };
    }
    match ty {
        "$not" | "$pos" | "$buf" => {
            let y = b("Y")?;
            let a = extend(&b("A")?, y.len(), signed("A_SIGNED"));
            for (i, &yb) in y.iter().enumerate() {
                g.edge(a[i], yb);
            }
        }
        "$and" | "$or" | "$xor" | "$xnor" | "$bweqx" => {
            let y = b("Y")?;
            let a = extend(&b("A")?, y.len(), signed("A_SIGNED"));
            let bb = extend(&b("B")?, y.len(), signed("B_SIGNED"));
            for (i, &yb) in y.iter().enumerate() {
                g.edge(a[i], yb);
                g.edge(bb[i], yb);
            }
        }
        "$mux" | "$bwmux" | "$tribuf" => {
            let y = b("Y")?;
            let a = b("A")?;
            let bb = b("B")?;
            let s = if ty == "$tribuf" { b("EN")? } else { b("S")? };
            for (i, &yb) in y.iter().enumerate() {
                g.edge(a.get(i).copied().flatten(), yb);
                g.edge(bb.get(i).copied().flatten(), yb);
                if ty == "$bwmux" {
                    g.edge(s.get(i).copied().flatten(), yb);
                } else {
                    for &sb in &s {
                        g.edge(sb, yb);
                    }
                }
            }
        }
        "$pmux" => {
            let y = b("Y")?;
            let a = b("A")?;
            let bb = b("B")?;
            let s = b("S")?;
            let w = y.len();
            for (i, &yb) in y.iter().enumerate() {
                g.edge(a.get(i).copied().flatten(), yb);
                for j in 0..s.len() {
                    g.edge(bb.get(j * w + i).copied().flatten(), yb);
                }
                for &sb in &s {
                    g.edge(sb, yb);
                }
            }
        }
        "$bmux" => {
            // Y = A[S*W +: W].
            let y = b("Y")?;
            let a = b("A")?;
            let s = b("S")?;
            let w = y.len();
            for (i, &yb) in y.iter().enumerate() {
                for j in 0..(a.len() / w.max(1)) {
                    g.edge(a[j * w + i], yb);
                }
                for &sb in &s {
                    g.edge(sb, yb);
                }
            }
        }
        "$demux" => {
            // Y[S*W +: W] = A, the other words 0.
            let y = b("Y")?;
            let a = b("A")?;
            let s = b("S")?;
            let w = a.len().max(1);
            for (k, &yb) in y.iter().enumerate() {
                g.edge(a.get(k % w).copied().flatten(), yb);
                for &sb in &s {
                    g.edge(sb, yb);
                }
            }
        }
        "$concat" => {
            let y = b("Y")?;
            let ab: Vec<Bit> = b("A")?.into_iter().chain(b("B")?).collect();
            for (i, &yb) in y.iter().enumerate() {
                g.edge(ab.get(i).copied().flatten(), yb);
            }
        }
        "$slice" => {
            let y = b("Y")?;
            let a = b("A")?;
            let offset = width("OFFSET")?;
            for (i, &yb) in y.iter().enumerate() {
                g.edge(a.get(offset + i).copied().flatten(), yb);
            }
        }
        "$dlatch" | "$adlatch" | "$dlatchsr" => {
            // Transparent: Q[i] from D[i] and the enable; resets and sets too.
            let q = b("Q")?;
            let d = b("D")?;
            let en = b("EN")?;
            let arst = b("ARST")?;
            let (set, clr) = (b("SET")?, b("CLR")?);
            for (i, &qb) in q.iter().enumerate() {
                g.edge(d.get(i).copied().flatten(), qb);
                for &e in en.iter().chain(&arst) {
                    g.edge(e, qb);
                }
                g.edge(set.get(i).copied().flatten(), qb);
                g.edge(clr.get(i).copied().flatten(), qb);
            }
        }
        "$sr" => {
            let q = b("Q")?;
            let (set, clr) = (b("SET")?, b("CLR")?);
            for (i, &qb) in q.iter().enumerate() {
                g.edge(set.get(i).copied().flatten(), qb);
                g.edge(clr.get(i).copied().flatten(), qb);
            }
        }
        "$memrd" | "$memrd_v2" => {
            if param(cell, "CLK_ENABLE")? == 0 {
                let from: Vec<Bit> = b("ADDR")?.into_iter().chain(b("EN")?).collect();
                g.all_to_all(&from, &b("DATA")?);
            }
        }
        "$mem" | "$mem_v2" => {
            let ports = width("RD_PORTS")?;
            let abits = width("ABITS")?;
            let w = width("WIDTH")?;
            let clk_enable = param(cell, "RD_CLK_ENABLE")?;
            let (addr, data, en) = (b("RD_ADDR")?, b("RD_DATA")?, b("RD_EN")?);
            for p in 0..ports {
                if p < 64 && (clk_enable >> p) & 1 == 1 {
                    continue;
                }
                if p >= 64 {
                    return Err(format!("cell {name} ({ty}): more than 64 read ports"));
                }
                let from: Vec<Bit> = addr
                    .iter()
                    .skip(p * abits)
                    .take(abits)
                    .chain(en.get(p))
                    .copied()
                    .collect();
                let to: Vec<Bit> = data.iter().skip(p * w).take(w).copied().collect();
                g.all_to_all(&from, &to);
            }
        }
        _ if ALL_TO_ALL.contains(&ty) => {
            let dirs = cell
                .get("port_directions")
                .and_then(Value::as_object)
                .ok_or_else(|| format!("cell {name} ({ty}) has no port_directions"))?;
            let (mut from, mut to) = (Vec::new(), Vec::new());
            for (port, dir) in dirs {
                match dir.as_str() {
                    Some("input") => from.extend(b(port)?),
                    Some("output") => to.extend(b(port)?),
                    _ => return Err(format!("cell {name} ({ty}): port {port} is {dir}")),
                }
            }
            g.all_to_all(&from, &to);
        }
        _ => return Err(unknown()),
    }
    Ok(())
}

/// [`comb_paths`] on a yosys JSON netlist already read (flat: module `top` has only yosys
/// cells and black-box instances).
pub fn comb_paths_of_netlist(
    netlist: &Value,
    top: &str,
) -> Result<BTreeSet<(String, String)>, String> {
    let modules = netlist
        .get("modules")
        .and_then(Value::as_object)
        .ok_or("the netlist has no modules")?;
    let blackboxes: BTreeSet<String> = modules
        .iter()
        .filter(|(_, m)| {
            m.get("attributes")
                .and_then(|a| a.get("blackbox"))
                .is_some_and(param_value_nonzero)
        })
        .map(|(n, _)| n.clone())
        .collect();
    let m = modules
        .get(top)
        .ok_or_else(|| format!("the netlist has no module {top}"))?;
    let ports = m
        .get("ports")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("module {top} has no ports"))?;
    let mut inputs: Vec<(&str, Vec<Bit>)> = Vec::new();
    let mut outputs_of_bit: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    for (name, p) in ports {
        let b = bit_list(p.get("bits").unwrap_or(&Value::Null))
            .map_err(|e| format!("port {name}: {e}"))?;
        match p.get("direction").and_then(Value::as_str) {
            Some("input") => inputs.push((name, b)),
            Some("output") => {
                for bit in b.into_iter().flatten() {
                    outputs_of_bit.entry(bit).or_default().push(name);
                }
            }
            other => {
                return Err(format!(
                    "port {name} of {top} has direction {other:?}: only input and output are \
                     handled"
                ))
            }
        }
    }
    let no_cells = serde_json::Map::new();
    let cells = match m.get("cells") {
        Some(c) => c.as_object().ok_or("cells is not an object")?,
        None => &no_cells,
    };
    // The largest net bit: of the ports, and of every cell connection.
    let mut max_bit = inputs
        .iter()
        .flat_map(|(_, b)| b.iter().flatten())
        .chain(outputs_of_bit.keys())
        .max()
        .copied()
        .unwrap_or(0);
    for (name, cell) in cells {
        if let Some(conns) = cell.get("connections").and_then(Value::as_object) {
            for (port, v) in conns {
                let b = bit_list(v).map_err(|e| format!("cell {name}: connection {port}: {e}"))?;
                max_bit = max_bit.max(b.into_iter().flatten().max().unwrap_or(0));
            }
        }
    }
    let mut g = Graph::new(max_bit);
    for (name, cell) in cells {
        add_cell(&mut g, name, cell, &blackboxes)?;
    }
    let mut found = BTreeSet::new();
    let mut seen = vec![u32::MAX; g.next.len()];
    for (k, (input, b)) in inputs.iter().enumerate() {
        let mark = k as u32;
        let mut stack: Vec<usize> = Vec::new();
        for &bit in b.iter().flatten() {
            if seen[bit] != mark {
                seen[bit] = mark;
                stack.push(bit);
            }
        }
        while let Some(n) = stack.pop() {
            if let Some(outs) = outputs_of_bit.get(&n) {
                for o in outs {
                    found.insert((input.to_string(), o.to_string()));
                }
            }
            for &t in &g.next[n] {
                if seen[t] != mark {
                    seen[t] = mark;
                    stack.push(t);
                }
            }
        }
    }
    Ok(found)
}

/// An attribute value that yosys writes as a bit string, a number or a string: set unless it
/// is all zeros.
fn param_value_nonzero(v: &Value) -> bool {
    match v {
        Value::Number(n) => n.as_u64() != Some(0),
        Value::String(s) => s.chars().any(|c| c != '0'),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `verilog` to a fresh directory and runs the check on module `top`.
    fn paths_of(verilog: &str, top: &str) -> BTreeSet<(String, String)> {
        let dir =
            std::env::temp_dir().join(format!("qptable_comb_paths_{}_{top}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(format!("{top}.v"));
        std::fs::write(&file, verilog).unwrap();
        let found = comb_paths(&file, top, &dir).unwrap_or_else(|e| panic!("{e}"));
        let _ = std::fs::remove_dir_all(&dir);
        found
    }

    fn pairs(list: &[(&str, &str)]) -> BTreeSet<(String, String)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    /// A mux is combinational from its data and its select; a register cuts; in a packed
    /// vector only the bit that is combinational makes a path; a constant is no source.
    #[test]
    fn bit_level_paths_of_a_small_module() {
        let v = r#"
module tiny(input clk, input a, input b, input s, input d, input [3:0] e,
            output y, output q, output [1:0] pk, output lo, output hi, output k,
            output m, output r);
  reg q_r;
  reg [1:0] v;
  reg [7:0] mem [0:3];
  reg [7:0] rd;
  always @(posedge clk) q_r <= d;
  assign q = q_r;
  assign y = s ? a : b;
  // Bit 0 combinational from a, bit 1 registered from b.
  reg b_r;
  always @(posedge clk) b_r <= b;
  always @(*) begin
    v = 2'b00;
    v[0] = a;
    v[1] = b_r;
  end
  assign pk = v;
  assign lo = v[0];
  assign hi = v[1];
  assign k = 1'b1 & ~1'b0;
  // An asynchronous memory read is combinational from the address; the written data is not.
  always @(posedge clk) mem[e[1:0]] <= {8{d}};
  assign m = mem[e[3:2]][0];
  // A synchronous read cuts.
  always @(posedge clk) rd <= mem[e[1:0]];
  assign r = rd[0];
endmodule
"#;
        assert_eq!(
            paths_of(v, "tiny"),
            pairs(&[
                ("a", "y"),
                ("b", "y"),
                ("s", "y"),
                ("a", "pk"),
                ("a", "lo"),
                ("e", "m"),
            ])
        );
    }

    /// A planted path through a child module, and a child's register, after `flatten`.
    #[test]
    fn paths_cross_the_hierarchy() {
        let v = r#"
module child(input clk, input x, output y, output z);
  reg z_r;
  always @(posedge clk) z_r <= x;
  assign y = ~x;
  assign z = z_r;
endmodule
module parent(input clk, input i, output o, output p);
  child c(.clk(clk), .x(i), .y(o), .z(p));
endmodule
"#;
        assert_eq!(paths_of(v, "parent"), pairs(&[("i", "o")]));
    }

    /// A DP16KD instance is a black box: its outputs are registered; the stub declares the
    /// model's ports.
    #[test]
    fn dp16kd_is_a_sequential_black_box() {
        let stub = dp16kd_blackbox();
        assert!(stub.starts_with("(* blackbox *)\nmodule DP16KD"), "{stub}");
        assert!(stub.contains("output DOB17"), "{stub}");
        assert!(stub.contains("parameter [47:0] REGMODE_B"), "{stub}");
        let v = r#"
module bb(input clk, input [13:0] ad, input w, output [1:0] d, output c);
  DP16KD #(.DATA_WIDTH_A(18), .DATA_WIDTH_B(18), .REGMODE_B("NOREG")) ram (
    .ADB13(ad[13]), .ADB0(ad[0]), .CLKB(clk), .CLKA(clk), .WEA(w),
    .DOB0(d[0]), .DOB1(d[1]));
  assign c = ad[5] | w;
endmodule
"#;
        assert_eq!(paths_of(v, "bb"), pairs(&[("ad", "c"), ("w", "c")]));
    }

    /// A cell type the walk does not know is an error that names it.
    #[test]
    fn an_unknown_cell_is_an_error() {
        let netlist: Value = serde_json::from_str(
            r#"{"modules": {"t": {
                "ports": {"a": {"direction": "input", "bits": [2]},
                          "y": {"direction": "output", "bits": [3]}},
                "cells": {"c": {"type": "$frobnicate", "parameters": {},
                    "port_directions": {"A": "input", "Y": "output"},
                    "connections": {"A": [2], "Y": [3]}}}}}}"#,
        )
        .unwrap();
        let e = comb_paths_of_netlist(&netlist, "t").unwrap_err();
        assert!(e.contains("unknown cell type $frobnicate"), "{e}");
    }
}
