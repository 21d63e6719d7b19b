//! A small VCD reader (on the `vcd` crate): [`Trace::load`] reads the value changes of chosen
//! signals of a VCD file as written by [`qptable_sim::Sim::trace`] (period 10, inputs change
//! at `10k`, the clock rises at `10k + 5`, so edge `n` of [`qptable_sim::Sim::cycle`] is at
//! time `10n - 5`, [`edge_time`]).

use anyhow::{anyhow, Context, Result};
use std::collections::HashMap;
use std::path::Path;

/// Changes of one signal: `(time, value)` in time order (`None`: x or z in some bit).
pub type Changes = Vec<(u64, Option<u64>)>;

/// Value changes of some signals of a VCD file.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// Per signal name (as asked for in [`Trace::load`]): width and changes.
    pub signals: HashMap<String, (u32, Changes)>,
}

fn value_of(bits: &[vcd::Value]) -> Option<u64> {
    let mut v = 0u64;
    for b in bits {
        v = (v << 1)
            | match b {
                vcd::Value::V0 => 0,
                vcd::Value::V1 => 1,
                _ => return None,
            };
    }
    Some(v)
}

impl Trace {
    /// Reads the changes of the signals whose path ends with one of `names` (a name `clk`
    /// matches `TOP.clk`; the shortest matching path wins, so top-level ports are preferred
    /// over signals of the same name inside).
    pub fn load(path: &Path, names: &[&str]) -> Result<Trace> {
        let file = std::fs::File::open(path)
            .with_context(|| format!("cannot open VCD {}", path.display()))?;
        let mut parser = vcd::Parser::new(std::io::BufReader::new(file));
        let header = parser
            .parse_header()
            .with_context(|| format!("bad VCD header in {}", path.display()))?;
        // Every variable with its path.
        let mut vars: Vec<(String, vcd::IdCode, u32)> = vec![];
        fn walk(items: &[vcd::ScopeItem], prefix: &str, out: &mut Vec<(String, vcd::IdCode, u32)>) {
            for it in items {
                match it {
                    vcd::ScopeItem::Scope(s) => {
                        walk(&s.children, &format!("{prefix}{}.", s.identifier), out)
                    }
                    vcd::ScopeItem::Var(v) => {
                        out.push((format!("{prefix}{}", v.reference), v.code, v.size))
                    }
                }
            }
        }
        walk(&header.items, "", &mut vars);
        let mut wanted: HashMap<vcd::IdCode, Vec<String>> = HashMap::new();
        let mut trace = Trace::default();
        for name in names {
            let best = vars
                .iter()
                .filter(|(p, _, _)| p == name || p.ends_with(&format!(".{name}")))
                .min_by_key(|(p, _, _)| p.len())
                .ok_or_else(|| anyhow!("no signal `{name}` in {}", path.display()))?;
            wanted.entry(best.1).or_default().push(name.to_string());
            trace.signals.insert(name.to_string(), (best.2, Vec::new()));
        }
        let mut now = 0u64;
        for cmd in parser {
            let cmd = cmd.with_context(|| format!("bad VCD data in {}", path.display()))?;
            let (code, v) = match cmd {
                vcd::Command::Timestamp(t) => {
                    now = t;
                    continue;
                }
                vcd::Command::ChangeScalar(c, v) => (c, value_of(&[v])),
                vcd::Command::ChangeVector(c, v) => (c, value_of(&v)),
                _ => continue,
            };
            if let Some(ns) = wanted.get(&code) {
                for n in ns {
                    let ch = &mut trace.signals.get_mut(n).expect("wanted").1;
                    match ch.last_mut() {
                        Some(last) if last.0 == now => last.1 = v,
                        _ => ch.push((now, v)),
                    }
                }
            }
        }
        Ok(trace)
    }

    /// Width of a loaded signal.
    pub fn width(&self, name: &str) -> u32 {
        self.signals.get(name).map_or(1, |s| s.0)
    }

    /// The value of `name` at time `t` (after the changes at `t`); `None` before its first
    /// change, for x/z, or for a signal not loaded.
    pub fn value_at(&self, name: &str, t: u64) -> Option<u64> {
        let ch = &self.signals.get(name)?.1;
        let i = ch.partition_point(|c| c.0 <= t);
        if i == 0 {
            None
        } else {
            ch[i - 1].1
        }
    }

    /// Segments `(start, end, value)` of `name` covering `[t0, t1)`.
    pub fn segments(&self, name: &str, t0: u64, t1: u64) -> Vec<(u64, u64, Option<u64>)> {
        let mut out = vec![];
        let Some((_, ch)) = self.signals.get(name) else {
            return out;
        };
        let mut start = t0;
        let mut val = self.value_at(name, t0);
        for &(t, v) in ch.iter().filter(|c| c.0 > t0 && c.0 < t1) {
            if v != val {
                out.push((start, t, val));
                start = t;
                val = v;
            }
        }
        out.push((start, t1, val));
        out
    }
}

/// Time of edge `n` in a trace of [`qptable_sim::Sim::trace`].
pub fn edge_time(n: u64) -> u64 {
    10 * n - 5
}
