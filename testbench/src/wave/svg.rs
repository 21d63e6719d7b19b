//! Waveform pictures from real simulation traces: a small VCD reader (on the `vcd` crate),
//! an SVG renderer, and the scripted scenarios of `docs/integration.md`.
//!
//! * [`Trace::load`] reads the value changes of chosen signals of a VCD file (as written by
//!   [`qptable_sim::Sim::trace`]: period 10, inputs change at `10k`, the clock rises at
//!   `10k + 5`, so edge `n` of [`qptable_sim::Sim::cycle`] is at time `10n - 5`);
//! * [`render_svg`] draws a [`Wave`]: the clock, one-bit signals as lines, buses as labelled
//!   segments (hex, decimal or a name per value), a dot at each edge where a stream's
//!   `valid` and `ready` are both high (a handshake), and dashed markers with notes;
//! * [`docs_waves`] runs the scenarios of `docs/integration.md` through the checked
//!   [`Bench`] with a trace and renders each picture (`qptable wave -o docs/waves`).

use crate::bench::{Bench, BenchOptions};
use crate::config::Config;
use crate::model::{regs, CmdStatus, Command};
use anyhow::{anyhow, bail, Context, Result};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

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

/// How a bus value is written in a picture.
#[derive(Clone, Debug)]
pub enum Format {
    /// `0x...`
    Hex,
    /// decimal
    Dec,
    /// a name per value (the value in hex when out of the list)
    Names(Vec<&'static str>),
    /// AXI4-Lite register addresses: the register's name (SPEC §6)
    Register,
    /// CMD words: `ALLOC`, `PUBLISH 0x...`, ...
    CmdWord,
}

fn register_name(a: u64) -> String {
    let n = match a & 0xFFC {
        0x000 => "ID",
        0x004 => "VERSION",
        0x014 => "STATUS",
        0x020 => "TABLE_BASE_LO",
        0x024 => "TABLE_BASE_HI",
        0x030 => "CMD",
        0x034 => "CMD_RESULT",
        _ => return format!("0x{a:03x}"),
    };
    n.to_string()
}

impl Format {
    fn show(&self, v: u64) -> String {
        match self {
            Format::Hex => format!("0x{v:x}"),
            Format::Dec => v.to_string(),
            Format::Names(n) => n
                .get(v as usize)
                .map_or_else(|| format!("0x{v:x}"), |s| s.to_string()),
            Format::Register => register_name(v),
            Format::CmdWord => {
                let qpn = v & 0xFF_FFFF;
                match v >> 28 {
                    1 => "ALLOC".into(),
                    2 => format!("ALLOC_AT 0x{qpn:x}"),
                    3 => format!("PUBLISH 0x{qpn:x}"),
                    4 => format!("FREE 0x{qpn:x}"),
                    5 => "DIR_FLUSH".into(),
                    _ => format!("0x{v:x}"),
                }
            }
        }
    }
}

/// One row of a picture.
#[derive(Clone, Debug)]
pub struct Row {
    /// Text on the left.
    pub label: String,
    /// Signal name (as given to [`Trace::load`]).
    pub signal: String,
    /// How to write bus values (ignored for one-bit signals).
    pub format: Format,
    /// For a `valid` row: the `ready` signal; a dot marks each edge where both are high.
    pub ready: Option<String>,
    /// Draw the row only while this one-bit signal is high (e.g. a payload only while its
    /// `valid` is high); elsewhere it is drawn as "don't care".
    pub when: Option<String>,
}

impl Row {
    /// A row showing `signal` under its own name, in hex.
    pub fn new(signal: &str) -> Row {
        Row {
            label: signal.to_string(),
            signal: signal.to_string(),
            format: Format::Hex,
            ready: None,
            when: None,
        }
    }
    /// Values written with `format`.
    pub fn fmt(mut self, format: Format) -> Row {
        self.format = format;
        self
    }
    /// A valid signal whose handshakes with `ready` are marked.
    pub fn handshake(mut self, ready: &str) -> Row {
        self.ready = Some(ready.to_string());
        self
    }
    /// Payload shown only while `valid` is high.
    pub fn when(mut self, valid: &str) -> Row {
        self.when = Some(valid.to_string());
        self
    }
}

/// A picture: a window of a trace, rows and notes.
#[derive(Clone, Debug)]
pub struct Wave {
    pub title: String,
    /// The clock signal (drawn first).
    pub clock: String,
    /// First and last edge shown ([`qptable_sim::Sim::cycle`] numbers).
    pub first_edge: u64,
    pub last_edge: u64,
    pub rows: Vec<Row>,
    /// Dashed lines at edges with a note.
    pub notes: Vec<(u64, String)>,
}

/// Time of edge `n` in a trace of [`qptable_sim::Sim::trace`].
pub fn edge_time(n: u64) -> u64 {
    10 * n - 5
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Every signal a picture needs (for [`Trace::load`]).
pub fn signals_of(w: &Wave) -> Vec<String> {
    let mut v = vec![w.clock.clone()];
    for r in &w.rows {
        v.push(r.signal.clone());
        v.extend(r.ready.clone());
        v.extend(r.when.clone());
    }
    v.sort();
    v.dedup();
    v
}

/// Pixels per cycle.
const CW: f64 = 72.0;
/// Pixels of a compressed stretch of quiet cycles.
const GAP_W: f64 = 28.0;
/// Quiet cycles in a row from which a stretch is compressed (one is kept on each side).
const MIN_QUIET: usize = 4;

/// Horizontal layout: cycle `k` (the slot that ends with edge `k`, times `[10k - 10, 10k)`)
/// is drawn `CW` wide, except runs of quiet cycles (no signal of the picture changes, no
/// handshake, no note), which collapse into a `GAP_W` break.
struct Layout {
    first: u64,
    /// x of the start of each slot `first..=last`, and of the end (one more entry).
    slot_x: Vec<f64>,
    hidden: Vec<bool>,
    /// (x, width) of each break.
    gaps: Vec<(f64, f64)>,
}

impl Layout {
    fn new(trace: &Trace, w: &Wave, left: f64) -> Layout {
        let n = (w.last_edge - w.first_edge + 1) as usize;
        let (t0, t1) = (edge_time(w.first_edge) - 5, edge_time(w.last_edge) + 5);
        let mut busy = vec![false; n];
        let mark = |busy: &mut Vec<bool>, t: u64| {
            if t >= t0 && t < t1 {
                busy[((t - t0) / 10) as usize] = true;
            }
        };
        for name in signals_of(w).iter().filter(|s| **s != w.clock) {
            if let Some((_, ch)) = trace.signals.get(name) {
                for c in ch {
                    mark(&mut busy, c.0);
                }
            }
        }
        for (e, _) in &w.notes {
            for d in [0, 1] {
                if *e >= w.first_edge + d && *e - d <= w.last_edge {
                    mark(&mut busy, edge_time(*e - d));
                }
            }
        }
        for r in &w.rows {
            if let Some(ready) = &r.ready {
                for e in w.first_edge..=w.last_edge {
                    let te = edge_time(e);
                    if trace.value_at(&r.signal, te - 1).unwrap_or(0) != 0
                        && trace.value_at(ready, te - 1).unwrap_or(0) != 0
                    {
                        mark(&mut busy, te);
                    }
                }
            }
        }
        let mut hidden = vec![false; n];
        let mut i = 0;
        while i < n {
            if busy[i] {
                i += 1;
                continue;
            }
            let start = i;
            while i < n && !busy[i] {
                i += 1;
            }
            if i - start >= MIN_QUIET {
                for h in &mut hidden[start + 1..i - 1] {
                    *h = true;
                }
            }
        }
        let mut slot_x = Vec::with_capacity(n + 1);
        let mut gaps = vec![];
        let mut xcur = left;
        let mut k = 0;
        while k < n {
            if hidden[k] {
                let run = hidden[k..].iter().take_while(|h| **h).count();
                gaps.push((xcur, GAP_W));
                for _ in 0..run {
                    slot_x.push(xcur + GAP_W / 2.0);
                }
                xcur += GAP_W;
                k += run;
            } else {
                slot_x.push(xcur);
                xcur += CW;
                k += 1;
            }
        }
        slot_x.push(xcur);
        Layout {
            first: w.first_edge,
            slot_x,
            hidden,
            gaps,
        }
    }

    fn x(&self, t: u64) -> f64 {
        let k = t / 10 + 1;
        let i = k.saturating_sub(self.first) as usize;
        if i >= self.hidden.len() {
            return *self.slot_x.last().expect("end");
        }
        if self.hidden[i] {
            return self.slot_x[i];
        }
        self.slot_x[i] + (t - (10 * k - 10)) as f64 * CW / 10.0
    }

    fn edge_visible(&self, e: u64) -> bool {
        !self.hidden[(e - self.first) as usize]
    }

    fn width(&self) -> f64 {
        *self.slot_x.last().expect("end")
    }
}

/// Renders `w` from `trace` as a standalone SVG document.
pub fn render_svg(trace: &Trace, w: &Wave) -> String {
    const ROW: f64 = 26.0;
    const CHAR: f64 = 6.6; // width of a character at font-size 11
    let t0 = edge_time(w.first_edge) - 5; // the cycle before the first edge starts here
    let t1 = edge_time(w.last_edge) + 5;
    let label_w = 16.0
        + CHAR
            * w.rows
                .iter()
                .map(|r| r.label.len())
                .chain([w.clock.len()])
                .max()
                .unwrap_or(4) as f64;
    let layout = Layout::new(trace, w, label_w);
    let x = |t: u64| layout.x(t);
    let top = 46.0;
    let n_rows = w.rows.len() + 1;
    let notes_h = 18.0 * w.notes.len() as f64 + 10.0;
    let width = layout.width() + 12.0;
    let height = top + ROW * n_rows as f64 + notes_h + 8.0;
    let bottom = top + ROW * n_rows as f64;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="11">"##
    );
    let _ = writeln!(
        s,
        r##"<rect x="0" y="0" width="{width:.0}" height="{height:.0}" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        s,
        r##"<text x="8" y="16" font-size="13" font-weight="bold" fill="#000">{}</text>"##,
        esc(&w.title)
    );
    // Edge grid and numbers (relative to the first edge).
    for n in (w.first_edge..=w.last_edge).filter(|n| layout.edge_visible(*n)) {
        let xe = x(edge_time(n));
        let _ = writeln!(
            s,
            r##"<line x1="{xe:.1}" y1="{:.1}" x2="{xe:.1}" y2="{bottom:.1}" stroke="#dddddd" stroke-width="1"/>"##,
            top - 8.0,
        );
        let _ = writeln!(
            s,
            r##"<text x="{xe:.1}" y="{:.1}" text-anchor="middle" fill="#888888" font-size="9">{}</text>"##,
            top - 11.0,
            n - w.first_edge
        );
    }
    let draw_bit = |s: &mut String, y0: f64, segs: &[(u64, u64, Option<u64>)], color: &str| {
        let (hi, lo) = (y0 + 5.0, y0 + ROW - 7.0);
        let mut pts = String::new();
        for &(a, b, v) in segs {
            let y = match v {
                Some(0) => lo,
                Some(_) => hi,
                None => (hi + lo) / 2.0,
            };
            let _ = write!(pts, "{:.1},{y:.1} {:.1},{y:.1} ", x(a), x(b));
        }
        let _ = writeln!(
            s,
            r##"<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="1.5"/>"##
        );
    };
    // Clock.
    let y = top;
    let _ = writeln!(
        s,
        r##"<text x="8" y="{:.1}" fill="#000">{}</text>"##,
        y + ROW / 2.0 + 2.0,
        esc(&w.clock)
    );
    draw_bit(&mut s, y, &trace.segments(&w.clock, t0, t1), "#555555");
    // Rows.
    for (i, r) in w.rows.iter().enumerate() {
        let y0 = top + ROW * (i + 1) as f64;
        let _ = writeln!(
            s,
            r##"<text x="8" y="{:.1}" fill="#000">{}</text>"##,
            y0 + ROW / 2.0 + 2.0,
            esc(&r.label)
        );
        let mut segs = trace.segments(&r.signal, t0, t1);
        if let Some(valid) = &r.when {
            // Split at the valid's changes; "don't care" where it is low.
            let mut out = vec![];
            for (a, b, v) in segs {
                let mut cuts = vec![a];
                for (va, _, _) in trace.segments(valid, a, b) {
                    if va > a {
                        cuts.push(va);
                    }
                }
                cuts.push(b);
                for k in 0..cuts.len() - 1 {
                    let on = trace.value_at(valid, cuts[k]).unwrap_or(0) != 0;
                    out.push((cuts[k], cuts[k + 1], if on { v } else { None }));
                }
            }
            // Merge equal neighbours.
            let mut merged: Vec<(u64, u64, Option<u64>)> = vec![];
            for sgm in out {
                match merged.last_mut() {
                    Some(l) if l.2 == sgm.2 && l.1 == sgm.0 => l.1 = sgm.1,
                    _ => merged.push(sgm),
                }
            }
            segs = merged;
        }
        if trace.width(&r.signal) == 1 {
            draw_bit(&mut s, y0, &segs, "#1f5fbf");
        } else {
            let (yt, yb) = (y0 + 5.0, y0 + ROW - 7.0);
            let ym = (yt + yb) / 2.0;
            // Shapes first, then the values (a value may run on over the next shape).
            let mut texts = String::new();
            for (si, &(a, b, v)) in segs.iter().enumerate() {
                let (xa, xb) = (x(a), x(b));
                let k = 3.0f64.min((xb - xa) / 2.0);
                let (fill, stroke) = match v {
                    Some(_) => ("#eef4ff", "#1f5fbf"),
                    None => ("#eeeeee", "#999999"),
                };
                let _ = writeln!(
                    s,
                    r##"<polygon points="{xa:.1},{ym:.1} {:.1},{yt:.1} {:.1},{yt:.1} {xb:.1},{ym:.1} {:.1},{yb:.1} {:.1},{yb:.1}" fill="{fill}" stroke="{stroke}" stroke-width="1"/>"##,
                    xa + k,
                    xb - k,
                    xb - k,
                    xa + k
                );
                if let Some(v) = v {
                    let text = r.format.show(v);
                    // Centre the text on the visible part (a break may sit inside).
                    let mut room = ((xb - xa - 8.0) / CHAR).floor() as usize;
                    let mut xc = (xa + xb) / 2.0;
                    let mut anchor = "middle";
                    // Too long: run on into a "don't care" segment after it, left-aligned.
                    if text.len() > room {
                        if let Some(&(_, nb, None)) = segs.get(si + 1) {
                            room = ((x(nb) - xa - 10.0) / CHAR).floor() as usize;
                            xc = xa + 5.0;
                            anchor = "start";
                        }
                    }
                    let shown = if text.len() <= room {
                        text
                    } else if room >= 3 {
                        format!("{}~", &text[..room - 1])
                    } else {
                        String::new()
                    };
                    for &(gx, gw) in layout.gaps.iter().filter(|_| anchor == "middle") {
                        if gx > xa && gx + gw < xb {
                            xc = (xa + gx) / 2.0;
                            if gx - xa < shown.len() as f64 * CHAR + 8.0 {
                                xc = (gx + gw + xb) / 2.0;
                            }
                        }
                    }
                    let halo = if anchor == "start" { "#eeeeee" } else { "none" };
                    if !shown.is_empty() {
                        let _ = writeln!(
                            texts,
                            r##"<text x="{xc:.1}" y="{:.1}" text-anchor="{anchor}" fill="#000" stroke="{halo}" stroke-width="3" paint-order="stroke">{}</text>"##,
                            ym + 4.0,
                            esc(&shown)
                        );
                    }
                }
            }
            s.push_str(&texts);
        }
        // Handshakes: both high just before the edge.
        if let Some(ready) = &r.ready {
            for n in w.first_edge..=w.last_edge {
                let te = edge_time(n);
                let v = trace.value_at(&r.signal, te - 1).unwrap_or(0);
                let rd = trace.value_at(ready, te - 1).unwrap_or(0);
                if v != 0 && rd != 0 {
                    let _ = writeln!(
                        s,
                        r##"<circle cx="{:.1}" cy="{:.1}" r="4" fill="#e0531f"/>"##,
                        x(te),
                        y0 + 5.0
                    );
                }
            }
        }
    }
    // Breaks over compressed quiet cycles.
    for &(gx, gw) in &layout.gaps {
        let _ = writeln!(
            s,
            r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="#ffffff"/>"##,
            gx + 6.0,
            top - 20.0,
            gw - 12.0,
            bottom - top + 20.0
        );
        for dx in [6.0, gw - 6.0] {
            let _ = writeln!(
                s,
                r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{bottom:.1}" stroke="#aaaaaa" stroke-width="1" stroke-dasharray="2,3"/>"##,
                gx + dx,
                top - 8.0,
                gx + dx
            );
        }
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#888888" font-size="9">...</text>"##,
            gx + gw / 2.0,
            top - 11.0
        );
    }
    // Notes.
    for (k, (edge, text)) in w.notes.iter().enumerate() {
        let xe = x(edge_time(*edge));
        let yt = bottom + 14.0 + 18.0 * k as f64;
        let _ = writeln!(
            s,
            r##"<line x1="{xe:.1}" y1="{:.1}" x2="{xe:.1}" y2="{:.1}" stroke="#e0531f" stroke-width="1" stroke-dasharray="3,3"/>"##,
            top - 6.0,
            yt - 10.0
        );
        let fits_right = xe + 4.0 + text.len() as f64 * CHAR <= width - 4.0;
        let (anchor, dx) = if fits_right {
            ("start", 4.0)
        } else {
            ("end", -4.0)
        };
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="{yt:.1}" text-anchor="{anchor}" fill="#b03a10">{}</text>"##,
            xe + dx,
            esc(text)
        );
    }
    let _ = writeln!(
        s,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="end" fill="#888888" font-size="9">dot: valid &amp;&amp; ready at that edge (a handshake); numbers: rising edges; ...: quiet cycles left out</text>"##,
        width - 6.0,
        height - 4.0
    );
    s.push_str("</svg>\n");
    s
}

// ---- the scenarios of docs/integration.md ----------------------------------------------------

const STATUS_NAMES: [&str; 6] = [
    "OK",
    "OUT_OF_RANGE",
    "NOT_ALLOC",
    "STALE",
    "PAGE_ABSENT",
    "MEM_ERROR",
];
const RESP_NAMES: [&str; 4] = ["OKAY", "EXOKAY", "SLVERR", "DECERR"];

fn lookup_rows(p: &str) -> Vec<Row> {
    let v = format!("s_{p}_req_valid");
    let rv = format!("m_{p}_rsp_valid");
    vec![
        Row::new(&v).handshake(&format!("s_{p}_req_ready")),
        Row::new(&format!("s_{p}_req_ready")),
        Row::new(&format!("s_{p}_req_qpn")).when(&v),
        Row::new(&format!("s_{p}_req_tag")).when(&v),
        Row::new(&rv).handshake(&format!("m_{p}_rsp_ready")),
        Row::new(&format!("m_{p}_rsp_ready")),
        Row::new(&format!("m_{p}_rsp_qpn")).when(&rv),
        Row::new(&format!("m_{p}_rsp_tag")).when(&rv),
        Row::new(&format!("m_{p}_rsp_status"))
            .fmt(Format::Names(STATUS_NAMES.to_vec()))
            .when(&rv),
        Row::new(&format!("m_{p}_rsp_addr")).when(&rv),
    ]
}

fn axil_write_rows() -> Vec<Row> {
    vec![
        Row::new("s_axil_awvalid").handshake("s_axil_awready"),
        Row::new("s_axil_awready"),
        Row::new("s_axil_awaddr")
            .fmt(Format::Register)
            .when("s_axil_awvalid"),
        Row::new("s_axil_wvalid").handshake("s_axil_wready"),
        Row::new("s_axil_wready"),
        Row::new("s_axil_wdata").when("s_axil_wvalid"),
        Row::new("s_axil_bvalid").handshake("s_axil_bready"),
        Row::new("s_axil_bready"),
        Row::new("s_axil_bresp")
            .fmt(Format::Names(RESP_NAMES.to_vec()))
            .when("s_axil_bvalid"),
    ]
}

fn axil_read_rows() -> Vec<Row> {
    vec![
        Row::new("s_axil_arvalid").handshake("s_axil_arready"),
        Row::new("s_axil_arready"),
        Row::new("s_axil_araddr")
            .fmt(Format::Register)
            .when("s_axil_arvalid"),
        Row::new("s_axil_rvalid").handshake("s_axil_rready"),
        Row::new("s_axil_rready"),
        Row::new("s_axil_rdata").when("s_axil_rvalid"),
        Row::new("s_axil_rresp")
            .fmt(Format::Names(RESP_NAMES.to_vec()))
            .when("s_axil_rvalid"),
    ]
}

/// Steps the bench until the control port operation `id` completes; returns its record.
fn wait_op(b: &mut Bench, id: u64) -> Result<qptable_sim::AxilDone> {
    for _ in 0..10_000 {
        if let Some(d) = b.axil.take_done(id) {
            return Ok(d);
        }
        b.step();
    }
    bail!("control port operation {id} did not complete")
}

/// Runs the scenarios of `docs/integration.md` on `cfg` (the default configuration in the
/// docs) with a VCD trace at `vcd`, checked against the reference model, and renders each
/// picture into `out_dir`. Returns the files written.
pub fn docs_waves(cfg: &Config, vcd: &Path, out_dir: &Path) -> Result<Vec<PathBuf>> {
    if cfg.ports.len() < 2 {
        bail!("the pictures show two lookup ports: use a configuration with two or more");
    }
    let (tx, rx) = (cfg.ports[0].clone(), cfg.ports[1].clone());
    let mut b = Bench::new(
        cfg,
        &BenchOptions {
            trace: Some(vcd.to_path_buf()),
            ..Default::default()
        },
    )?;
    let mut waves: Vec<(&str, Wave)> = vec![];
    b.write(regs::TABLE_BASE_LO, 0x0010_0000)?;
    b.write(regs::TABLE_BASE_HI, 0)?;
    b.run_cycles(2)?;

    // 1. AXI4-Lite: a register write and a read.
    let start = b.sim.cycle();
    let w = b
        .axil
        .push_write(u64::from(regs::TABLE_BASE_LO), 0x0010_0000, 0xF);
    wait_op(&mut b, w)?;
    b.run_cycles(1)?;
    let r = b.axil.push_read(u64::from(regs::ID));
    let rd = wait_op(&mut b, r)?;
    b.run_cycles(2)?;
    let mut rows = axil_write_rows();
    rows.extend(axil_read_rows());
    waves.push((
        "axil_write_read",
        Wave {
            title: "AXI4-Lite: write TABLE_BASE_LO, then read ID".into(),
            clock: "clk".into(),
            first_edge: start + 1,
            last_edge: b.sim.cycle(),
            rows,
            notes: vec![
                (
                    start + 1,
                    "AW and W taken together (awready = wready = awvalid && wvalid)".into(),
                ),
                (rd.addr_cycle, "AR taken; R the cycle after".into()),
            ],
        },
    ));

    // 2. Create a QP: ALLOC, read CMD_RESULT, (the host writes the context), PUBLISH, lookup.
    b.run_cycles(2)?;
    let start = b.sim.cycle();
    let w = b.axil.push_write(
        u64::from(regs::CMD),
        u64::from(Command::Alloc.encode()),
        0xF,
    );
    let alloc = wait_op(&mut b, w)?;
    let r = b.axil.push_read(u64::from(regs::CMD_RESULT));
    let res = wait_op(&mut b, r)?;
    let qpn = (res.data & 0xFF_FFFF) as u32;
    if res.data >> 28 != CmdStatus::Ok as u64 {
        bail!("ALLOC failed in the scenario: CMD_RESULT {:#x}", res.data);
    }
    // The same QPN looked up before PUBLISH: NOT_ALLOCATED (RESERVED).
    b.lookup(0, qpn, 1);
    b.run_cycles(1)?;
    let w = b.axil.push_write(
        u64::from(regs::CMD),
        u64::from(Command::Publish(qpn).encode()),
        0xF,
    );
    let publish = wait_op(&mut b, w)?;
    b.lookup(0, qpn, 2);
    b.run_cycles(4)?;
    let mut rows = axil_write_rows();
    rows.extend(vec![
        Row::new("s_axil_rvalid").handshake("s_axil_rready"),
        Row::new("s_axil_rdata").when("s_axil_rvalid"),
    ]);
    rows.extend(
        lookup_rows(&tx)
            .into_iter()
            .filter(|r| !r.signal.ends_with("_ready") && !r.signal.ends_with("rsp_qpn")),
    );
    for r in rows.iter_mut() {
        if r.signal == "s_axil_wdata" {
            r.format = Format::CmdWord;
        }
    }
    waves.push((
        "create_qp",
        Wave {
            title: format!(
                "Create a QP: ALLOC, read CMD_RESULT (QPN 0x{qpn:x}), write the context, PUBLISH"
            ),
            clock: "clk".into(),
            first_edge: start + 1,
            last_edge: b.sim.cycle(),
            rows,
            notes: vec![
                (
                    alloc.addr_cycle,
                    format!(
                        "ALLOC written ({} cycles to B)",
                        alloc.done_cycle - alloc.addr_cycle
                    ),
                ),
                (
                    alloc.done_cycle,
                    "B: done; read CMD_RESULT for the QPN, then write the QP context to memory"
                        .into(),
                ),
                (
                    publish.addr_cycle,
                    format!(
                        "PUBLISH ({} cycles to B); a lookup before it: NOT_ALLOCATED",
                        publish.done_cycle - publish.addr_cycle
                    ),
                ),
                (
                    publish.done_cycle,
                    "B: published; lookups from here return OK and the address".into(),
                ),
            ],
        },
    ));

    // 3. Lookups: back to back on both ports, with backpressure on one response.
    b.run_cycles(2)?;
    let start = b.sim.cycle();
    let other = qpn ^ (1 << cfg.index_bits.min(23));
    b.lookup(0, qpn, 0x11);
    b.lookup(0, qpn + 1, 0x12);
    b.lookup(0, other, 0x13);
    b.lookup(0, 0xFF_FFFF, 0x14);
    b.lookup(1, qpn, 0x21);
    b.lookup(1, qpn, 0x22);
    b.run_cycles(3)?;
    b.sinks[0].set_paused(true);
    b.run_cycles(2)?;
    b.sinks[0].set_paused(false);
    b.run_cycles(5)?;
    let mut rows = lookup_rows(&tx);
    rows.extend(lookup_rows(&rx).into_iter().filter(|r| {
        r.signal.ends_with("req_valid")
            || r.signal.ends_with("req_qpn")
            || r.signal.ends_with("rsp_valid")
            || r.signal.ends_with("rsp_status")
    }));
    waves.push((
        "lookup",
        Wave {
            title: format!("Lookups on {tx} and {rx}: one per cycle, latency 3, backpressure on {tx}'s response"),
            clock: "clk".into(),
            first_edge: start + 1,
            last_edge: b.sim.cycle(),
            rows,
            notes: vec![
                (start + 1, "request handshakes at edge 0; responses valid at edge 3 (latency 3)".into()),
                (start + 4, format!("m_{tx}_rsp_ready low: the response is held, payload stable")),
            ],
        },
    ));

    // 4. Destroy a QP: FREE while lookups of it wait in a response queue; B after the drain.
    b.run_cycles(2)?;
    let start = b.sim.cycle();
    b.sinks[0].set_paused(true);
    b.lookup(0, qpn, 0x31);
    b.lookup(0, qpn, 0x32);
    b.run_cycles(3)?;
    let w = b.axil.push_write(
        u64::from(regs::CMD),
        u64::from(Command::Free(qpn).encode()),
        0xF,
    );
    // FREE takes effect a few cycles after its write handshake (the engine reads and checks
    // the entry first); a lookup accepted after that answers NOT_ALLOCATED at once.
    b.run_cycles(9)?;
    let not_alloc = |b: &Bench| b.status_counts(1)[crate::model::Status::NotAllocated as usize];
    let before = not_alloc(&b);
    b.lookup(1, qpn, 0x41);
    b.run_cycles(6)?;
    if not_alloc(&b) != before + 1 {
        bail!("the scenario's lookup during the drain did not answer NOT_ALLOCATED");
    }
    b.sinks[0].set_paused(false);
    let free = wait_op(&mut b, w)?;
    b.lookup(0, qpn, 0x33);
    b.run_cycles(4)?;
    let mut rows = axil_write_rows();
    for r in rows.iter_mut() {
        if r.signal == "s_axil_wdata" {
            r.format = Format::CmdWord;
        }
    }
    rows.extend(lookup_rows(&tx).into_iter().filter(|r| {
        r.signal.ends_with("req_valid")
            || r.signal.ends_with("req_tag")
            || r.signal.ends_with("rsp_valid")
            || r.signal.ends_with("rsp_ready")
            || r.signal.ends_with("rsp_tag")
            || r.signal.ends_with("rsp_status")
    }));
    rows.extend(lookup_rows(&rx).into_iter().filter(|r| {
        r.signal.ends_with("req_valid")
            || r.signal.ends_with("rsp_valid")
            || r.signal.ends_with("rsp_status")
    }));
    waves.push((
        "destroy_qp",
        Wave {
            title: format!("Destroy QP 0x{qpn:x}: FREE, the drain, then B"),
            clock: "clk".into(),
            first_edge: start + 1,
            last_edge: b.sim.cycle(),
            rows,
            notes: vec![
                (free.addr_cycle, format!("FREE written; it takes effect a few cycles later: {rx}'s lookup then answers NOT_ALLOC")),
                (free.done_cycle, format!("B after the drain: {tx}'s two lookups accepted before FREE (held by backpressure) have had their responses ({} cycles)", free.done_cycle - free.addr_cycle)),
                (free.done_cycle + 1, "after B: no lookup of the QP answers OK".into()),
            ],
        },
    ));

    b.drain(1_000)?;
    b.finish()
        .context("the scenario's responses do not match the reference model")?;
    b.sim.trace_close();
    drop(b);

    let names: Vec<String> = waves
        .iter()
        .flat_map(|(_, w)| signals_of(w))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let trace = Trace::load(vcd, &refs)?;
    std::fs::create_dir_all(out_dir)?;
    let mut written = vec![];
    for (name, w) in &waves {
        let path = out_dir.join(format!("{name}.svg"));
        std::fs::write(&path, render_svg(&trace, w))
            .with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    const VCD: &str = "$timescale 1ps $end\n$scope module TOP $end\n\
$var wire 1 ! clk $end\n$var wire 1 \" v $end\n$var wire 1 # r $end\n\
$var wire 8 $ d [7:0] $end\n$upscope $end\n$enddefinitions $end\n\
#0\n0!\n0\"\n1#\nb0 $\n#5\n1!\n#10\n0!\n1\"\nb101010 $\n#15\n1!\n#20\n0!\n0\"\n#25\n1!\n#30\n0!\n";

    #[test]
    fn reads_and_renders_a_small_trace() {
        let dir = std::env::temp_dir().join(format!("qptable-wave-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.vcd");
        std::fs::write(&path, VCD).unwrap();
        let t = Trace::load(&path, &["clk", "v", "r", "d"]).unwrap();
        assert_eq!(t.width("d"), 8);
        assert_eq!(t.value_at("d", 14), Some(42));
        assert_eq!(t.value_at("v", edge_time(2) - 1), Some(1));
        assert_eq!(
            t.segments("v", 0, 30),
            vec![(0, 10, Some(0)), (10, 20, Some(1)), (20, 30, Some(0))]
        );
        let w = Wave {
            title: "t".into(),
            clock: "clk".into(),
            first_edge: 1,
            last_edge: 3,
            rows: vec![Row::new("v").handshake("r"), Row::new("d").when("v")],
            notes: vec![(2, "edge 2".into())],
        };
        let svg = render_svg(&t, &w);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        // One handshake (edge 2), the value 0x2a shown once.
        assert_eq!(svg.matches("<circle").count(), 1);
        assert_eq!(svg.matches(">0x2a<").count(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
