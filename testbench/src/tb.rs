//! [`Tb`]: a [`Bench`] stepped one cycle at a time that also records every request and
//! response handshake of every lookup port with its edge number, read from the port signals
//! themselves: an independent monitor, so a test can compare exact field values and cycles.
//! The bench's scoreboard checks the same traffic against the model; [`Tb::finish`] drains,
//! compares the monitor's totals with the scoreboard's, and requires `bench.finish()` Ok.

use crate::bench::{Bench, BenchOptions};
use crate::configs::prebuild;
use anyhow::{ensure, Context, Result};
use qptable::config::Config;
use qptable::model::{regs, CmdStatus, Command, Status};
use qptable_sim::{AxiResp, AxilDone, In, Out};

#[derive(Clone, Copy, Debug)]
pub struct Req {
    pub cycle: u64,
    pub qpn: u32,
    pub tag: u64,
}

#[derive(Clone, Copy, Debug)]
pub struct Rsp {
    pub cycle: u64,
    pub qpn: u32,
    pub tag: u64,
    pub status: u64,
    pub addr: u64,
}

pub struct PortSignals {
    pub req_valid: In,
    pub req_ready: Out,
    pub req_qpn: In,
    pub req_tag: In,
    pub rsp_valid: Out,
    pub rsp_ready: In,
    pub rsp_qpn: Out,
    pub rsp_tag: Out,
    pub rsp_status: Out,
    pub rsp_addr: Out,
}

pub struct Tb {
    pub b: Bench,
    pub name: String,
    pub sig: Vec<PortSignals>,
    /// Request handshakes per port, in order.
    pub reqs: Vec<Vec<Req>>,
    /// Response handshakes per port, in order (the k-th answers the k-th request).
    pub rsps: Vec<Vec<Rsp>>,
}

impl Tb {
    pub fn new(name: &str, cfg: &Config, opts: BenchOptions) -> Result<Tb> {
        prebuild(cfg)?;
        println!(
            "[{name}] top {} index_bits {} max_qps {} entry_bytes {} addr_bits {} tag_bits {} \
             ports {:?} first_index {} reuse {}; req_idle {} rsp_backpressure {} axil_random {} \
             seed {:#x}",
            cfg.top,
            cfg.index_bits,
            cfg.max_qps(),
            cfg.entry_bytes,
            cfg.addr_bits,
            cfg.tag_bits,
            cfg.ports,
            cfg.first_index,
            cfg.reuse,
            opts.req_idle,
            opts.rsp_backpressure,
            opts.axil_random,
            opts.seed
        );
        let b = Bench::new(cfg, &opts).with_context(|| format!("[{name}] Bench::new"))?;
        let mut sig = Vec::new();
        for p in &cfg.ports {
            let s = &b.sim;
            sig.push(PortSignals {
                req_valid: s.input(&format!("s_{p}_req_valid"))?,
                req_ready: s.output(&format!("s_{p}_req_ready"))?,
                req_qpn: s.input(&format!("s_{p}_req_qpn"))?,
                req_tag: s.input(&format!("s_{p}_req_tag"))?,
                rsp_valid: s.output(&format!("m_{p}_rsp_valid"))?,
                rsp_ready: s.input(&format!("m_{p}_rsp_ready"))?,
                rsp_qpn: s.output(&format!("m_{p}_rsp_qpn"))?,
                rsp_tag: s.output(&format!("m_{p}_rsp_tag"))?,
                rsp_status: s.output(&format!("m_{p}_rsp_status"))?,
                rsp_addr: s.output(&format!("m_{p}_rsp_addr"))?,
            });
        }
        let n = cfg.ports.len();
        Ok(Tb {
            b,
            name: name.to_string(),
            sig,
            reqs: vec![Vec::new(); n],
            rsps: vec![Vec::new(); n],
        })
    }

    pub fn cycle(&self) -> u64 {
        self.b.sim.cycle()
    }

    /// One cycle of the bench, then the monitor looks at the handshakes of that edge.
    pub fn step(&mut self) {
        self.b.step();
        let Tb {
            b, sig, reqs, rsps, ..
        } = self;
        let sim = &b.sim;
        let c = sim.cycle();
        for (p, s) in sig.iter().enumerate() {
            if sim.driven(s.req_valid) == 1 && sim.is_high(s.req_ready) {
                reqs[p].push(Req {
                    cycle: c,
                    qpn: sim.driven(s.req_qpn) as u32,
                    tag: sim.driven(s.req_tag),
                });
            }
            if sim.is_high(s.rsp_valid) && sim.driven(s.rsp_ready) == 1 {
                rsps[p].push(Rsp {
                    cycle: c,
                    qpn: sim.get(s.rsp_qpn) as u32,
                    tag: sim.get(s.rsp_tag),
                    status: sim.get(s.rsp_status),
                    addr: sim.get(s.rsp_addr),
                });
            }
        }
    }

    /// `s_<p>_req_ready` as sampled at the last edge.
    pub fn req_ready(&self, p: usize) -> bool {
        self.b.sim.is_high(self.sig[p].req_ready)
    }

    pub fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.step();
        }
    }

    pub fn run_until(
        &mut self,
        max: u64,
        what: &str,
        mut done: impl FnMut(&Tb) -> bool,
    ) -> Result<u64> {
        let start = self.cycle();
        while !done(self) {
            ensure!(
                self.cycle() - start < max,
                "[{}] {what}: not done after {max} cycles (cycle {})",
                self.name,
                self.cycle()
            );
            self.step();
        }
        Ok(self.cycle() - start)
    }

    pub fn wait_axil(&mut self, id: u64) -> Result<AxilDone> {
        let start = self.cycle();
        loop {
            if let Some(d) = self.b.axil.take_done(id) {
                return Ok(d);
            }
            ensure!(
                self.cycle() - start < 20_000,
                "[{}] control port operation {id} not done after 20000 cycles",
                self.name
            );
            self.step();
        }
    }

    /// Whether write/read `id` has completed (without taking it).
    pub fn axil_done(&self, id: u64) -> bool {
        self.b.axil.done().iter().any(|d| d.id == id)
    }

    pub fn read(&mut self, addr: u32) -> Result<(u32, AxiResp)> {
        let id = self.b.axil.push_read(u64::from(addr));
        let d = self.wait_axil(id)?;
        Ok((d.data as u32, d.resp))
    }

    /// Reads `addr` and compares with the hand value (`None`: SLVERR); the scoreboard's
    /// model is asked too.
    pub fn expect_reg(&mut self, addr: u32, expected: Option<u32>) -> Result<()> {
        let (v, r) = self.read(addr)?;
        let got = match r {
            AxiResp::Okay => Some(v),
            AxiResp::SlvErr => None,
            other => anyhow::bail!("[{}] read of {addr:#05x} answered {other:?}", self.name),
        };
        let show = |x: Option<u32>| x.map_or("SLVERR".to_string(), |v| format!("{v:#010x}"));
        ensure!(
            got == expected,
            "[{}] read of {addr:#05x}: expected {}, got {} (cycle {})",
            self.name,
            show(expected),
            show(got),
            self.cycle()
        );
        if let Err(m) = self.b.sb.check_read(addr, got.ok_or(())) {
            self.b.mismatches.push(format!("scoreboard: {m}"));
        }
        Ok(())
    }

    /// A register write (applied to the scoreboard's model unless it is CMD).
    pub fn write_strb(&mut self, addr: u32, data: u32, strb: u8) -> Result<AxilDone> {
        let id = self
            .b
            .axil
            .push_write(u64::from(addr), u64::from(data), u64::from(strb));
        let d = self.wait_axil(id)?;
        if addr & 0xFFC != regs::CMD {
            let got = if d.resp == AxiResp::Okay {
                Ok(())
            } else {
                Err(())
            };
            if let Err(m) = self.b.sb.check_write(addr, data, strb, got) {
                self.b.mismatches.push(format!("scoreboard: {m}"));
            }
        }
        Ok(d)
    }

    /// A write that must answer OKAY (`ok`) or SLVERR.
    pub fn expect_write(&mut self, addr: u32, data: u32, strb: u8, ok: bool) -> Result<()> {
        let d = self.write_strb(addr, data, strb)?;
        let want = if ok { AxiResp::Okay } else { AxiResp::SlvErr };
        ensure!(
            d.resp == want,
            "[{}] write of {data:#010x} (strb {strb:#06b}) to {addr:#05x}: expected {want:?}, got {:?}",
            self.name,
            d.resp
        );
        Ok(())
    }

    /// Writes the CMD word (OKAY expected), then reads CMD_RESULT and compares it with
    /// `status` and `qpn` (busy clear).
    pub fn cmd_word(&mut self, word: u32, strb: u8, status: CmdStatus, qpn: u32) -> Result<()> {
        let d = self.write_strb(regs::CMD, word, strb)?;
        ensure!(
            d.resp == AxiResp::Okay,
            "[{}] CMD write {word:#010x}: answered {:?}, not OKAY",
            self.name,
            d.resp
        );
        let expected = status.as_u32() << regs::CMD_RESULT_STATUS_SHIFT | qpn;
        self.expect_reg(regs::CMD_RESULT, Some(expected))
            .with_context(|| {
                format!(
                    "[{}] command {:?} ({word:#010x}): expected {status} qpn {qpn:#08x}",
                    self.name,
                    Command::decode(word)
                )
            })
    }

    pub fn cmd(&mut self, cmd: Command, status: CmdStatus, qpn: u32) -> Result<()> {
        self.cmd_word(cmd.encode(), 0xF, status, qpn)
    }

    pub fn cmd_ok(&mut self, cmd: Command, qpn: u32) -> Result<()> {
        self.cmd(cmd, CmdStatus::Ok, qpn)
    }

    /// Queues lookups `(port, qpn, tag)`, waits until every one is answered, and returns the
    /// responses in the order of `items`.
    pub fn lookups(&mut self, items: &[(usize, u32, u64)]) -> Result<Vec<Rsp>> {
        let n = self.sig.len();
        let start: Vec<usize> = self.rsps.iter().map(Vec::len).collect();
        let mut want = vec![0; n];
        for &(p, q, t) in items {
            self.b.lookup(p, q, t);
            want[p] += 1;
        }
        let max = 10_000 + 50 * items.len() as u64;
        self.run_until(max, "lookups answered", |tb| {
            (0..n).all(|p| tb.rsps[p].len() >= start[p] + want[p])
        })?;
        let mut next = start;
        Ok(items
            .iter()
            .map(|&(p, _, _)| {
                let r = self.rsps[p][next[p]];
                next[p] += 1;
                r
            })
            .collect())
    }

    /// Lookups `(port, qpn, tag, status, addr)`: each response must echo qpn and tag and
    /// carry exactly this status and address.
    pub fn expect_lookups(&mut self, items: &[(usize, u32, u64, Status, u64)]) -> Result<()> {
        let q: Vec<(usize, u32, u64)> = items.iter().map(|&(p, q, t, _, _)| (p, q, t)).collect();
        let got = self.lookups(&q)?;
        for (&(p, qpn, tag, status, addr), r) in items.iter().zip(got) {
            ensure!(
                r.qpn == qpn & 0xFF_FFFF
                    && r.tag == tag
                    && r.status == status.as_u64()
                    && r.addr == addr,
                "[{}] port {p} lookup qpn {qpn:#08x} tag {tag:#x}: expected qpn {qpn:#08x} tag \
                 {tag:#x} {status} addr {addr:#x}, got qpn {:#08x} tag {:#x} status {} addr {:#x} \
                 (cycle {})",
                self.name,
                r.qpn,
                r.tag,
                r.status,
                r.addr,
                r.cycle
            );
        }
        Ok(())
    }

    pub fn expect_lookup(
        &mut self,
        p: usize,
        qpn: u32,
        tag: u64,
        status: Status,
        addr: u64,
    ) -> Result<()> {
        self.expect_lookups(&[(p, qpn, tag, status, addr)])
    }

    /// Per-port counters of port `p` (LOOKUPS, OK, OUT_OF_RANGE, NOT_ALLOCATED, STALE,
    /// PAGE_ABSENT, MEM_ERROR): compared with the hand counts `[OK, OOR, NA, STALE]` and with
    /// the scoreboard's counts of the responses taken.
    pub fn expect_port_counters(&mut self, p: usize, counts: [u32; 4]) -> Result<()> {
        let sb = self.b.status_counts(p);
        let total: u32 = counts.iter().sum();
        let hand = [total, counts[0], counts[1], counts[2], counts[3], 0, 0];
        let sbv = [
            sb.iter().sum::<u64>(),
            sb[0],
            sb[1],
            sb[2],
            sb[3],
            sb[4],
            sb[5],
        ];
        for k in 0..7u32 {
            ensure!(
                u64::from(hand[k as usize]) == sbv[k as usize],
                "[{}] port {p} counter +{:#x}: hand count {} but the scoreboard took {} responses",
                self.name,
                4 * k,
                hand[k as usize],
                sbv[k as usize]
            );
            let addr = regs::port_register(p, 4 * k);
            self.expect_reg(addr, Some(hand[k as usize]))?;
        }
        Ok(())
    }

    /// Global counters ALLOC_OK, ALLOC_FULL, FREE_OK, CMD_ERROR, IN_USE.
    pub fn expect_cmd_counters(
        &mut self,
        alloc_ok: u32,
        full: u32,
        free_ok: u32,
        err: u32,
        in_use: u32,
    ) -> Result<()> {
        self.expect_reg(regs::ALLOC_OK, Some(alloc_ok))?;
        self.expect_reg(regs::ALLOC_FULL, Some(full))?;
        self.expect_reg(regs::FREE_OK, Some(free_ok))?;
        self.expect_reg(regs::CMD_ERROR, Some(err))?;
        self.expect_reg(regs::QUARANTINE_OVERFLOW, Some(0))?;
        self.expect_reg(regs::IN_USE, Some(in_use))?;
        self.expect_reg(regs::QUARANTINED, Some(0))
    }

    /// Runs until every request is sent and answered and the control port is idle, checks the
    /// monitor's totals against the scoreboard's, then `bench.finish()`.
    pub fn finish(mut self) -> Result<()> {
        self.run_until(200_000, "final drain", |tb| {
            tb.b.sources.iter().all(|s| s.is_done())
                && tb.b.sb.outstanding() == 0
                && tb.b.axil.is_idle()
                && !tb.b.sb.command_in_flight()
        })?;
        for p in 0..self.sig.len() {
            ensure!(
                self.reqs[p].len() == self.rsps[p].len()
                    && self.reqs[p].len() as u64 == self.b.sb.lookups(p),
                "[{}] port {p}: monitor saw {} requests and {} responses, scoreboard {}",
                self.name,
                self.reqs[p].len(),
                self.rsps[p].len(),
                self.b.sb.lookups(p)
            );
        }
        self.b
            .finish()
            .with_context(|| format!("[{}] bench.finish()", self.name))
    }
}
