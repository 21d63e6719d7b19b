//! The generator: a validated [`Config`] in, the Verilog of its engine out.

use crate::config::Config;
use crate::hw::qp_table::QpTable;
use crate::hw::EngineParams;
use rust_hdl::prelude::*;

/// Verilog of the engine for `cfg`, top module named `cfg.top`.
///
/// The configuration is validated first; nothing is generated for an invalid one.
pub fn generate_verilog(cfg: &Config) -> anyhow::Result<String> {
    cfg.validate()?;
    let mut top = QpTable::new(EngineParams::new(cfg), &cfg.ports);
    top.connect_all();
    top.check()
        .map_err(|e| anyhow::anyhow!("internal error: rust-hdl check of the design: {e:?}"))?;
    let mut defines = ModuleDefines::default();
    top.accept(&cfg.top, &mut defines);
    Ok(crate::hw::qp_table::nets_for_wiring(
        &defines.defines(),
        &cfg.top,
    ))
}

/// Writes `text` to `path` through a temporary file and a rename, so a failure leaves
/// either the old file or none, never half a file.
pub fn write_atomically(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("v.tmp{}", std::process::id()));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Writes every `(path, text)` or none, for the generator's outputs that belong together
/// (`<top>.v` and its template).
///
/// Each text goes to a temporary file in its directory first; only when all are written are
/// they renamed onto their paths, an existing file being kept under a temporary name until
/// every rename succeeded and put back if one fails. On a failure no existing file has
/// changed, the temporaries are removed, and so are the directories this call created. A
/// path that is a directory, or whose parent is not one, is refused before anything is
/// written. Errors name the path and the operating system's reason.
pub fn write_all_or_nothing(files: &[(&std::path::Path, &str)]) -> anyhow::Result<()> {
    use anyhow::{bail, Context};
    use std::path::{Path, PathBuf};
    for &(path, _) in files {
        if path.is_dir() {
            bail!("cannot write {}: it is a directory", path.display());
        }
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
        if let Some(dir) = dir.filter(|d| d.exists() && !d.is_dir()) {
            bail!(
                "cannot write {}: {} is not a directory",
                path.display(),
                dir.display()
            );
        }
    }
    // Short names: a temporary name must not fail where the final one would not.
    let beside = |path: &Path, i: usize, ext: &str| {
        path.with_file_name(format!(".qptable-{}-{i}.{ext}", std::process::id()))
    };
    let mut created: Vec<PathBuf> = Vec::new();
    let mut temporaries: Vec<PathBuf> = Vec::new();
    // (path, its old content's temporary name) of the files already replaced.
    let mut replaced: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    let result = (|| -> anyhow::Result<()> {
        for &(path, _) in files {
            let mut missing = Vec::new();
            let mut dir = path.parent();
            while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
                missing.push(d.to_path_buf());
                dir = d.parent();
            }
            for d in missing.into_iter().rev() {
                std::fs::create_dir(&d)
                    .with_context(|| format!("cannot create directory {}", d.display()))?;
                created.push(d);
            }
        }
        for (i, &(path, text)) in files.iter().enumerate() {
            let tmp = beside(path, i, "tmp");
            std::fs::write(&tmp, text).with_context(|| {
                format!("cannot write {} (for {})", tmp.display(), path.display())
            })?;
            temporaries.push(tmp);
        }
        for (i, (&(path, _), tmp)) in files.iter().zip(&temporaries).enumerate() {
            let old = if path.exists() {
                let old = beside(path, i, "old");
                std::fs::rename(path, &old).with_context(|| {
                    format!("cannot rename {} to {}", path.display(), old.display())
                })?;
                Some(old)
            } else {
                None
            };
            replaced.push((path.to_path_buf(), old));
            std::fs::rename(tmp, path)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        Ok(())
    })();
    match result {
        Ok(()) => {
            for (_, old) in replaced {
                if let Some(old) = old {
                    let _ = std::fs::remove_file(old);
                }
            }
            Ok(())
        }
        Err(e) => {
            for (path, old) in replaced.iter().rev() {
                match old {
                    Some(old) => {
                        let _ = std::fs::rename(old, path);
                    }
                    None => {
                        let _ = std::fs::remove_file(path);
                    }
                }
            }
            for t in &temporaries {
                let _ = std::fs::remove_file(t);
            }
            for d in created.iter().rev() {
                let _ = std::fs::remove_dir(d);
            }
            Err(e)
        }
    }
}

/// On-chip memory of an engine, structure by structure: (name, words, bits per word).
///
/// The state RAM has one copy per lookup port (each read every cycle) and one for the
/// command engine; the free map one level per 6 index bits; the quarantine queue
/// `quarantine_depth` entries of a 48-bit time and a 24-bit index (only used when
/// `quarantine_cycles > 0`, removed by synthesis otherwise); in two_level in_memory the queues
/// that cover the memory latency (see [`crate::hw::mem_pipe`]).
pub fn on_chip_memory(cfg: &Config) -> Vec<(String, u64, u64)> {
    let p = EngineParams::new(cfg);
    let copies = cfg.ports.len() as u64 + 1;
    let mut v = vec![(
        format!(
            "state RAM ({copies} copies: {} lookup ports + commands)",
            cfg.ports.len()
        ),
        copies * u64::from(p.max_qps),
        2 + u64::from(p.gen_bits()),
    )];
    if p.dir_on_chip {
        v.push((
            format!(
                "directory ({copies} copies: {} lookup ports + control port)",
                cfg.ports.len()
            ),
            copies * u64::from(p.dir_entries()),
            crate::hw::DIR_BITS as u64,
        ));
    }
    if p.dir_in_memory() {
        // Per port: the lookup queue, the directory read requests and the directory entries
        // read; shared: the port of every read in flight.
        let depth = crate::hw::mem_pipe::queue_depth(p.max_outstanding) as u64;
        let n = cfg.ports.len() as u64;
        v.push((
            format!("in_memory lookup queues ({n} ports x {depth})"),
            n * depth,
            <crate::hw::mem_pipe::MemEntry as rust_hdl::prelude::Synth>::BITS as u64,
        ));
        v.push((
            format!("in_memory directory read queues ({n} ports x {depth})"),
            n * depth,
            crate::hw::ADDR_BITS as u64,
        ));
        v.push((
            format!("in_memory directory entry queues ({n} ports x {depth})"),
            n * depth,
            64,
        ));
        v.push((
            "in_memory reads in flight (port of each)".into(),
            u64::from(p.max_outstanding).next_power_of_two().max(2),
            3,
        ));
    }
    for (k, words) in crate::hw::free_map::level_words(p.max_qps)
        .iter()
        .enumerate()
    {
        v.push((format!("free map level {k}"), u64::from(*words), 64));
    }
    if cfg.quarantine_cycles > 0 {
        v.push((
            "quarantine queue".into(),
            u64::from(cfg.quarantine_depth),
            crate::hw::TIME_BITS as u64 + 24,
        ));
    }
    v
}

/// File name of the instantiation template written beside `<top>.v`.
pub fn instantiation_template_name(cfg: &Config) -> String {
    format!("{}_inst.vh", cfg.top)
}

/// An instantiation template of the engine of `cfg` (`<top>_inst.vh`, written by `qptable
/// gen` beside `<top>.v`): one wire per port, of the port's name and width, with a comment
/// per group of ports, then an instance `u_<top>` with every port connected to its wire.
/// It can be pasted into the module that instantiates the engine, or `include`d there.
pub fn instantiation_template(cfg: &Config) -> anyhow::Result<String> {
    use std::fmt::Write as _;
    cfg.validate()?;
    let top = QpTable::new(EngineParams::new(cfg), &cfg.ports);
    let ports = top.ports();
    let gen_bits = cfg.gen_bits();
    let qpn_note = if gen_bits > 0 {
        format!(
            "QPN = {{generation[{}:0], index[{}:0]}}",
            gen_bits - 1,
            cfg.index_bits - 1
        )
    } else {
        format!("QPN = index[{}:0] (no generation bits)", cfg.index_bits - 1)
    };
    // Group of a port: (short heading for the instance, long heading for the wires).
    let group = |name: &str| -> (String, String) {
        if name == "clk" || name == "rst" {
            return (
                "Clock and reset".into(),
                "Clock and reset: one clock, rising edge; rst synchronous, active high\n// \
                 (drive it from a reset synchronizer, hold it for at least 2 cycles)"
                    .into(),
            );
        }
        for p in &cfg.ports {
            if name.starts_with(&format!("s_{p}_req_")) {
                return (
                    format!("Lookup port {p}: request stream"),
                    format!(
                        "Lookup port {p}, request stream (into the engine): a beat moves at \
                         a rising edge with valid && ready;\n// {qpn_note}; the tag is \
                         returned with the response"
                    ),
                );
            }
            if name.starts_with(&format!("m_{p}_rsp_")) {
                let (statuses, addr) = match cfg.mode {
                    crate::config::Mode::Flat => (
                        "",
                        format!("addr = TABLE_BASE + index * {}", cfg.entry_bytes),
                    ),
                    crate::config::Mode::TwoLevel => (
                        ", 4 PAGE_ABSENT, 5 MEM_ERROR",
                        format!(
                            "addr = page base + (index mod 2^{}) * {}",
                            cfg.leaf_bits, cfg.entry_bytes
                        ),
                    ),
                };
                return (
                    format!("Lookup port {p}: response stream"),
                    format!(
                        "Lookup port {p}, response stream (out of the engine), in request \
                         order; status 0 OK, 1 OUT_OF_RANGE,\n// 2 NOT_ALLOCATED, 3 \
                         STALE{statuses}; {addr} when OK, else 0"
                    ),
                );
            }
        }
        let axil = |short: &str, long: &str| (short.to_string(), long.to_string());
        if name.starts_with("s_axil_aw") || name.starts_with("s_axil_w") {
            return axil(
                "AXI4-Lite control slave: write address and data",
                "AXI4-Lite control slave (SPEC section 6 register map), write address and \
                 data, taken together;\n// a CMD write answers on B when the command is done",
            );
        }
        if name.starts_with("s_axil_b") {
            return axil(
                "AXI4-Lite control slave: write response",
                "AXI4-Lite control slave, write response",
            );
        }
        if name.starts_with("s_axil_ar") {
            return axil(
                "AXI4-Lite control slave: read address",
                "AXI4-Lite control slave, read address (reads are served while a write waits)",
            );
        }
        if name.starts_with("s_axil_r") {
            return axil(
                "AXI4-Lite control slave: read data",
                "AXI4-Lite control slave, read data",
            );
        }
        if name.starts_with("m_axi_") {
            return axil(
                "AXI4 memory read master (directory reads)",
                "AXI4 memory read master (in_memory directory reads: single 8-byte beats); \
                 connect to any AXI4 slave",
            );
        }
        ("Other ports".into(), "Other ports".into())
    };
    let range = |w: usize| {
        if w == 1 {
            String::new()
        } else {
            format!("[{}:0]", w - 1)
        }
    };
    let rw = ports
        .iter()
        .map(|p| range(p.width).len())
        .max()
        .unwrap_or(0);
    let nw = ports.iter().map(|p| p.name.len()).max().unwrap_or(0);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// {}: instantiation template of `{}`, written by qptable {} beside {}.v.",
        instantiation_template_name(cfg),
        cfg.top,
        env!("CARGO_PKG_VERSION"),
        cfg.top
    );
    let _ = writeln!(
        s,
        "// Configuration: index_bits {}, max_qps {}, entry_bytes {}, mode {}, ports {}, \
         tag_bits {}, addr_bits {}.",
        cfg.index_bits,
        cfg.max_qps(),
        cfg.entry_bytes,
        cfg.mode.as_str(),
        cfg.ports.join(" "),
        cfg.tag_bits,
        cfg.addr_bits
    );
    let _ = writeln!(
        s,
        "// Paste it into the module that instantiates the engine (or `include it there): one \
         wire per\n// port, of the port's name and width, and the instance with every port \
         connected. Drive the\n// inputs, use the outputs, rename the wires to your signals \
         (clk and rst are usually your own).\n// Streams are AXI ready/valid; see \
         docs/integration.md for the handshakes and command sequences."
    );
    let mut last = String::new();
    for p in ports {
        let (_, g) = group(&p.name);
        if g != last {
            let _ = writeln!(s, "\n// {g}");
            last = g;
        }
        let dir = if p.input { "input" } else { "output" };
        let decl = format!("wire {:<rw$} {};", range(p.width), p.name);
        let _ = writeln!(s, "{decl:<w$} // {dir}", w = rw + nw + 7);
    }
    let _ = writeln!(s, "\n{} u_{} (", cfg.top, cfg.top);
    let mut last = String::new();
    for (i, p) in ports.iter().enumerate() {
        let (g, _) = group(&p.name);
        if g != last {
            let _ = writeln!(s, "    // {g}");
            last = g;
        }
        let comma = if i + 1 < ports.len() { "," } else { "" };
        let _ = writeln!(s, "    .{:<nw$} ({}){comma}", p.name, p.name);
    }
    let _ = writeln!(s, ");");
    Ok(s)
}
