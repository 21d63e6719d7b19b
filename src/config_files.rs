//! Configuration files, read in one place: [`load`] (a file or the defaults, then
//! `name=value` assignments, validated: the `--config`/`--set` of the commands), [`from_file`]
//! (a file and its name) and [`in_dir`] (every `*.toml` of a directory, e.g. `configs/`).

use crate::config::Config;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// The configuration of `file` (the defaults when `None`) with the `name=value` assignments
/// `sets` applied after it, validated.
pub fn load(file: Option<&Path>, sets: &[String]) -> Result<Config> {
    let mut cfg = match file {
        Some(path) => Config::from_toml_file(path)?,
        None => Config::default(),
    };
    for s in sets {
        cfg.set(s)?;
    }
    cfg.validate()?;
    Ok(cfg)
}

/// A configuration file: its name (the file stem) and its validated configuration.
pub fn from_file(path: &Path) -> Result<(String, Config)> {
    let cfg = Config::from_toml_file(path)?;
    cfg.validate()?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok((stem, cfg))
}

/// A configuration file of a directory (`configs/<name>.toml`).
#[derive(Clone, Debug)]
pub struct ShippedConfig {
    /// File stem: `default`, `small`, ...
    pub name: String,
    /// `configs/<name>.toml`.
    pub path: PathBuf,
    /// The parsed and validated configuration.
    pub config: Config,
    /// `gen/<top>.v` (`gen/` beside the configuration directory), its committed Verilog.
    pub verilog: PathBuf,
}

/// Every `*.toml` of `dir`, sorted by file name, parsed and validated; an error names the
/// file. Fails when there is none.
pub fn in_dir(dir: &Path) -> Result<Vec<ShippedConfig>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    let gen = dir.parent().unwrap_or(Path::new(".")).join("gen");
    let mut out = vec![];
    for path in paths {
        let (name, config) = from_file(&path)?;
        let verilog = gen.join(format!("{}.v", config.top));
        out.push(ShippedConfig {
            name,
            path,
            config,
            verilog,
        });
    }
    if out.is_empty() {
        bail!("no configuration (*.toml) in {}", dir.display());
    }
    Ok(out)
}
