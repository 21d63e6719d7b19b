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
