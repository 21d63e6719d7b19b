//! The scripted scenarios of `docs/integration.md`: [`docs_waves`] runs them through the
//! checked [`Bench`] with a trace and renders each picture (`qptable wave -o docs/waves`).

use super::svg::{render_svg, signals_of, Format, Row, Wave};
use super::vcd::Trace;
use crate::bench::{Bench, BenchOptions};
use anyhow::{bail, Context, Result};
use qptable::config::Config;
use qptable::model::{regs, CmdStatus, Command};
use std::path::{Path, PathBuf};

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
                (
                    rd.addr_cycle,
                    format!(
                        "AR taken; R {} cycles after (address and counter word registered first)",
                        rd.done_cycle - rd.addr_cycle
                    ),
                ),
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
    let not_alloc = |b: &Bench| b.status_counts(1)[qptable::model::Status::NotAllocated as usize];
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
    // All pictures or none: a failure leaves the old set as it was.
    let svgs: Vec<(PathBuf, String)> = waves
        .iter()
        .map(|(name, w)| (out_dir.join(format!("{name}.svg")), render_svg(&trace, w)))
        .collect();
    let files: Vec<(&Path, &str)> = svgs
        .iter()
        .map(|(p, t)| (p.as_path(), t.as_str()))
        .collect();
    qptable::generate::write_all_or_nothing(&files)?;
    let written: Vec<PathBuf> = svgs.into_iter().map(|(p, _)| p).collect();
    Ok(written)
}
