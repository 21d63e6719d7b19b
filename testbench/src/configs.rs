//! Configurations of the benches and tests, built in one place (configuration files are
//! read by [`qptable::config_files`]):
//!
//! * [`config`], [`named`]: a configuration from `name=value` assignments over the defaults
//!   (the builders of the tests; they panic with the assignment and the error);
//! * [`prebuild`]: builds the Verilator model of a configuration, one build at a time.

use anyhow::{Context, Result};
use qptable::config::Config;
use qptable_sim::{BuildOptions, Model};
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

/// Builds (or finds in the cache) the Verilator model of `cfg`, one build at a time, so that
/// tests running in parallel do not build the same model twice at once.
pub fn prebuild(cfg: &Config) -> Result<()> {
    static BUILD: Mutex<()> = Mutex::new(());
    let _guard = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    let verilog = crate::sim_verilog(cfg)?;
    Model::build(&verilog, &cfg.top, &BuildOptions::traced(false))
        .with_context(|| format!("building {}", cfg.top))?;
    Ok(())
}
