//! Configurations of the benches, tests and commands, built or found in one place:
//!
//! * [`config`], [`named`]: a configuration from `name=value` assignments over the defaults
//!   (the builders of the tests; they panic with the assignment and the error);
//! * [`load`]: a configuration file (or the defaults) plus `name=value` assignments, validated
//!   (the `--config`/`--set` of the commands);
//! * [`from_file`], [`in_dir`]: configuration files with their names (`configs/*.toml`);
//! * [`prebuild`]: builds the Verilator model of a configuration, one build at a time.

use anyhow::{bail, Context, Result};
use qptable::config::Config;
use qptable_sim::{BuildOptions, Model};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A configuration from `name=value` assignments over the defaults. Panics with the
/// assignment or the configuration and the error when one does not apply or validate.
pub fn config(sets: &[&str]) -> Config {
    let mut cfg = Config::default();
    for s in sets {
        cfg.set(s).unwrap_or_else(|e| panic!("{s}: {e}"));
    }
    cfg.validate().unwrap_or_else(|e| panic!("{sets:?}: {e}"));
    cfg
}

/// [`config`] with `top = top` first.
pub fn named(top: &str, sets: &[&str]) -> Config {
    let top = format!("top={top}");
    config(&[&[top.as_str()], sets].concat())
}

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

/// Builds (or finds in the cache) the Verilator model of `cfg`, one build at a time, so that
/// tests running in parallel do not build the same model twice at once.
pub fn prebuild(cfg: &Config) -> Result<()> {
    static BUILD: Mutex<()> = Mutex::new(());
    let _guard = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    let verilog = qptable::generate::generate_verilog(cfg)?;
    Model::build(&verilog, &cfg.top, &BuildOptions::traced(false))
        .with_context(|| format!("building {}", cfg.top))?;
    Ok(())
}
