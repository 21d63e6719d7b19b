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
    let mut defines = ModuleDefines::default();
    top.accept(&cfg.top, &mut defines);
    Ok(defines.defines())
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

/// On-chip memory of an engine, structure by structure: (name, words, bits per word).
///
/// The state RAM has one copy per lookup port (each read every cycle) and one for the
/// command engine; the free map one level per 6 index bits; the quarantine queue
/// `quarantine_depth` entries of a 48-bit time and a 24-bit index (only used when
/// `quarantine_cycles > 0`, removed by synthesis otherwise).
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
