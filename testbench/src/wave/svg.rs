//! The SVG renderer: [`render_svg`] draws a [`Wave`] from a [`Trace`]: the clock, one-bit
//! signals as lines, buses as labelled segments (hex, decimal or a name per value), a dot at
//! each edge where a stream's `valid` and `ready` are both high (a handshake), and dashed
//! markers with notes.

use super::vcd::{edge_time, Trace};
use std::fmt::Write as _;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wave::vcd::Trace;

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
