//! `QpTable`: the top level. Its ports are those of SPEC §4, named after the configured
//! lookup ports and narrowed to `tag_bits` and `addr_bits`; inside, it wires one lookup
//! pipeline per port ([`LookupPipe`]), the [`CmdEngine`] and the [`AxilRegs`], and in
//! two_level in_memory mode the [`DirFetch`] that reads the directory over the AXI4 master
//! `m_axi_*` for every port.
//!
//! ```text
//!   s_<p>_req_* --> LookupPipe (one per port) ---------------------> m_<p>_rsp_*
//!                     ^  state RAM and directory writes,    |  directory reads (in_memory)
//!                     |  init_done, table_base              v
//!                     |  v  drain accounting, counters    DirFetch <--> m_axi_* (AR, R)
//!   s_axil_* <----> AxilRegs <----> CmdEngine
//! ```
//!
//! rust-hdl names a top level's ports after the fields of a struct; the port names and
//! widths here depend on the configuration, so this block implements [`Block`] by hand:
//! it declares its ports as atoms of the configured widths and emits the structural wiring
//! between its children itself. Everything with behaviour lives in the children.
//! The unused high bits of the wide internal datapaths are gathered into `_unused_ok`.

use super::axil_regs::AxilRegs;
use super::cache_writes::CacheWrites;
use super::cmd_counters::CmdCounters;
use super::cmd_engine::CmdEngine;
use super::dir_fetch::DirFetch;
use super::drain::Drain;
use super::live_filter::LiveFilter;
use super::lookup_pipe::LookupPipe;
use super::mem_cmd::MemCmdEngine;
use super::mem_writer::{MemWriter, MEM_DATA_BITS_MAX};
use super::miss_unit::MissUnit;
use super::read_arb::ReadArb;
use super::skid::Skid;
use super::{EngineParams, ADDR_BITS, MAX_PORTS, TAG_BITS};
use rust_hdl::core::ast::VerilogLiteral;
use rust_hdl::core::atom::{Atom, AtomKind};
use rust_hdl::core::constraint::PinConstraint;
use rust_hdl::core::synth::VCDValue;
use rust_hdl::core::type_descriptor::{TypeDescriptor, TypeKind};
use rust_hdl::prelude::*;
use std::fmt::Write;

mod mem_port;

/// A top-level port whose name and width are chosen at generation time.
#[derive(Clone, Debug)]
pub struct Port {
    pub name: String,
    pub input: bool,
    pub width: usize,
    id: usize,
}

impl Port {
    fn new(name: String, input: bool, width: usize) -> Self {
        Self {
            name,
            input,
            width,
            id: rust_hdl::core::signal::get_signal_id(),
        }
    }
}

impl Atom for Port {
    fn bits(&self) -> usize {
        self.width
    }
    fn connected(&self) -> bool {
        true
    }
    fn changed(&self) -> bool {
        false
    }
    fn kind(&self) -> AtomKind {
        if self.input {
            AtomKind::InputParameter
        } else {
            AtomKind::OutputParameter
        }
    }
    fn descriptor(&self) -> TypeDescriptor {
        TypeDescriptor {
            name: format!("Bits::<{}>", self.width),
            kind: TypeKind::Bits(self.width),
        }
    }
    fn vcd(&self) -> VCDValue {
        VCDValue::String(String::new())
    }
    fn id(&self) -> usize {
        self.id
    }
    fn verilog(&self) -> VerilogLiteral {
        0u32.into()
    }
    fn constraints(&self) -> Vec<PinConstraint> {
        vec![]
    }
}

/// The top level of the engine.
pub struct QpTable {
    params: EngineParams,
    port_names: Vec<String>,
    ports: Vec<Port>,
    pipes: Vec<LookupPipe>,
    /// The memory port's read master (one in in_memory mode, none otherwise).
    fetch: Vec<DirFetch>,
    regs: AxilRegs,
    /// The command engine: [`CmdEngine`] with the state on chip, [`MemCmdEngine`] with the
    /// state in memory (one of the two, named `engine` in the Verilog either way).
    engine: Vec<CmdEngine>,
    mengine: Vec<MemCmdEngine>,
    /// The FREE drain's count of the lookups in flight and the command counters of SPEC §6,
    /// beside either engine (`drain_snap`, `drained`, `events` on the engine's side).
    drain: Drain,
    counters: CmdCounters,
    /// State in memory (one each, none otherwise): the miss unit, the cache write bus and the
    /// AR arbiter of the miss unit (ID 0) and the command engine (ID 1).
    miss: Vec<MissUnit>,
    cw: Vec<CacheWrites>,
    arb: Vec<ReadArb>,
    /// State in memory: the register slice between the miss unit's reads and the arbiter
    /// (`ar_skid`), so that no logic of the miss unit follows `m_axi_arready`.
    ar_skid: Vec<Skid<Bits<ADDR_BITS>>>,
    /// The same for the command engine's reads (`eng_ar_skid`).
    eng_ar_skid: Vec<Skid<Bits<ADDR_BITS>>>,
    /// State in memory: the command engine's AXI4 write master (`mem_wr`), beside the engine
    /// so that no logic of the engine follows AW, W or B.
    mem_wr: Vec<MemWriter>,
    /// State in memory: the `live` filter, one copy per two ports (`live_<k>`: pipes `2k`
    /// on its port A, `2k + 1` on its port B), none otherwise.
    live: Vec<LiveFilter>,
}

/// Fields of a lookup port: (suffix, is input, width) with widths resolved.
fn lookup_port_fields(p: &str, tag_bits: usize, addr_bits: usize) -> Vec<(String, bool, usize)> {
    vec![
        (format!("s_{p}_req_valid"), true, 1),
        (format!("s_{p}_req_ready"), false, 1),
        (format!("s_{p}_req_qpn"), true, 24),
        (format!("s_{p}_req_tag"), true, tag_bits),
        (format!("m_{p}_rsp_valid"), false, 1),
        (format!("m_{p}_rsp_ready"), true, 1),
        (format!("m_{p}_rsp_qpn"), false, 24),
        (format!("m_{p}_rsp_tag"), false, tag_bits),
        (format!("m_{p}_rsp_status"), false, 3),
        (format!("m_{p}_rsp_addr"), false, addr_bits),
    ]
}

/// The AXI4-Lite control port of SPEC §4: (name, is input, width).
pub const AXIL_PORTS: [(&str, bool, usize); 19] = [
    ("s_axil_awaddr", true, 12),
    ("s_axil_awprot", true, 3),
    ("s_axil_awvalid", true, 1),
    ("s_axil_awready", false, 1),
    ("s_axil_wdata", true, 32),
    ("s_axil_wstrb", true, 4),
    ("s_axil_wvalid", true, 1),
    ("s_axil_wready", false, 1),
    ("s_axil_bresp", false, 2),
    ("s_axil_bvalid", false, 1),
    ("s_axil_bready", true, 1),
    ("s_axil_araddr", true, 12),
    ("s_axil_arprot", true, 3),
    ("s_axil_arvalid", true, 1),
    ("s_axil_arready", false, 1),
    ("s_axil_rdata", false, 32),
    ("s_axil_rresp", false, 2),
    ("s_axil_rvalid", false, 1),
    ("s_axil_rready", true, 1),
];

/// The write channels of the memory master (state in memory, SPEC §9): (name, is input,
/// width); `None` is `addr_bits`, `Some(0)` the data bus, `Some(1000)` its strobes.
pub const AXI_WRITE_PORTS: [(&str, bool, Option<usize>); 19] = [
    ("m_axi_awid", false, Some(1)),
    ("m_axi_awaddr", false, None),
    ("m_axi_awlen", false, Some(8)),
    ("m_axi_awsize", false, Some(3)),
    ("m_axi_awburst", false, Some(2)),
    ("m_axi_awlock", false, Some(1)),
    ("m_axi_awcache", false, Some(4)),
    ("m_axi_awprot", false, Some(3)),
    ("m_axi_awvalid", false, Some(1)),
    ("m_axi_awready", true, Some(1)),
    ("m_axi_wdata", false, Some(0)),
    ("m_axi_wstrb", false, Some(1000)),
    ("m_axi_wlast", false, Some(1)),
    ("m_axi_wvalid", false, Some(1)),
    ("m_axi_wready", true, Some(1)),
    ("m_axi_bid", true, Some(1)),
    ("m_axi_bresp", true, Some(2)),
    ("m_axi_bvalid", true, Some(1)),
    ("m_axi_bready", false, Some(1)),
];

/// The AXI4 read master of SPEC §4 (in_memory only): (name, is input, width); `None` is
/// `addr_bits`, `Some(0)` the data bus, `mem_data_bits`, `Some(2000)` the read ID: 1 bit, or 2
/// with the directory and the state both in memory (IDs 0, 1 and 2, see [`ReadArb`]).
pub const AXI_PORTS: [(&str, bool, Option<usize>); 16] = [
    ("m_axi_arid", false, Some(2000)),
    ("m_axi_araddr", false, None),
    ("m_axi_arlen", false, Some(8)),
    ("m_axi_arsize", false, Some(3)),
    ("m_axi_arburst", false, Some(2)),
    ("m_axi_arlock", false, Some(1)),
    ("m_axi_arcache", false, Some(4)),
    ("m_axi_arprot", false, Some(3)),
    ("m_axi_arvalid", false, Some(1)),
    ("m_axi_arready", true, Some(1)),
    ("m_axi_rid", true, Some(2000)),
    ("m_axi_rdata", true, Some(0)),
    ("m_axi_rresp", true, Some(2)),
    ("m_axi_rlast", true, Some(1)),
    ("m_axi_rvalid", true, Some(1)),
    ("m_axi_rready", false, Some(1)),
];

impl QpTable {
    pub fn new(params: EngineParams, port_names: &[String]) -> Self {
        assert!(!port_names.is_empty() && port_names.len() <= MAX_PORTS);
        let mut ports = vec![
            Port::new("clk".into(), true, 1),
            Port::new("rst".into(), true, 1),
        ];
        for p in port_names {
            for (name, input, width) in
                lookup_port_fields(p, params.tag_bits as usize, params.addr_bits as usize)
            {
                ports.push(Port::new(name, input, width));
            }
        }
        for (name, input, width) in AXIL_PORTS {
            ports.push(Port::new(name.into(), input, width));
        }
        let mem = params.dir_in_memory();
        let smem = params.state_mem.is_some();
        let width = |w: Option<usize>| match w {
            // `None`: addr_bits wide; `Some(0)`: the data bus, mem_data_bits wide; `Some(1000)`
            // its byte strobes.
            None => params.addr_bits as usize,
            Some(0) => params.mem_data_bits as usize,
            Some(1000) => params.mem_data_bits as usize / 8,
            Some(2000) => params.read_id_bits(),
            Some(w) => w,
        };
        if mem || smem {
            for (name, input, w) in AXI_PORTS {
                ports.push(Port::new(name.into(), input, width(w)));
            }
        }
        if smem {
            for (name, input, w) in AXI_WRITE_PORTS {
                ports.push(Port::new(name.into(), input, width(w)));
            }
        }
        Self {
            pipes: port_names
                .iter()
                .map(|_| LookupPipe::new(&params))
                .collect(),
            fetch: (0..usize::from(mem))
                .map(|_| DirFetch::new(&params))
                .collect(),
            regs: AxilRegs::new(&params),
            engine: (0..usize::from(!smem))
                .map(|_| CmdEngine::new(&params))
                .collect(),
            mengine: params
                .state_mem
                .iter()
                .map(|m| MemCmdEngine::new(&params, m))
                .collect(),
            drain: Drain::new(port_names.len()),
            counters: CmdCounters::default(),
            miss: params
                .state_mem
                .iter()
                .map(|m| MissUnit::new(&params, m).expect("checked by the configuration"))
                .collect(),
            cw: params.state_mem.iter().map(CacheWrites::new).collect(),
            arb: (0..usize::from(smem)).map(|_| ReadArb::new(mem)).collect(),
            ar_skid: (0..usize::from(smem)).map(|_| Skid::default()).collect(),
            eng_ar_skid: (0..usize::from(smem)).map(|_| Skid::default()).collect(),
            mem_wr: params
                .state_mem
                .iter()
                .map(|m| MemWriter::new(m.mem_data_bits as usize))
                .collect(),
            live: params
                .state_mem
                .iter()
                .flat_map(|m| {
                    let bn = params.index_bits.saturating_sub(m.block_bits) as usize;
                    (0..live_copies(port_names.len()))
                        .map(move |_| LiveFilter::new(bn, params.fpga))
                })
                .collect(),
            port_names: port_names.to_vec(),
            ports,
            params,
        }
    }

    /// rust-hdl's own checks (every input driven, no combinational loop, no input written)
    /// on each child block. The top level's wiring is checked by lint instead.
    pub fn check(&self) -> Result<(), rust_hdl::core::check_error::CheckError> {
        for p in &self.pipes {
            check_all(p)?;
        }
        for f in &self.fetch {
            check_all(f)?;
        }
        check_all(&self.regs)?;
        for e in &self.engine {
            check_all(e)?;
        }
        for e in &self.mengine {
            check_all(e)?;
        }
        check_all(&self.drain)?;
        check_all(&self.counters)?;
        for m in &self.miss {
            check_all(m)?;
        }
        for c in &self.cw {
            check_all(c)?;
        }
        for a in &self.arb {
            check_all(a)?;
        }
        for a in &self.ar_skid {
            check_all(a)?;
        }
        for a in &self.eng_ar_skid {
            check_all(a)?;
        }
        for w in &self.mem_wr {
            check_all(w)?;
        }
        for l in &self.live {
            check_all(l)?;
        }
        Ok(())
    }

    /// The top level's ports, in declaration order.
    pub fn ports(&self) -> &[Port] {
        &self.ports
    }

    fn pipe_name(&self, i: usize) -> String {
        format!("pipe_{}", self.port_names[i])
    }

    /// The structural wiring between the children, as Verilog: continuous assignments, so
    /// every connection holds from time 0 in an event-driven simulator (an `always @(*)`
    /// copy runs only when its input first changes: a `rst` held high from time 0 would
    /// leave the children's `rst` X). rust-hdl declares the nets these drive as `reg`;
    /// [`nets_for_wiring`] turns them into wires.
    fn wiring(&self) -> String {
        let mut v = self.registers();
        let mut unused: Vec<String> = vec![
            "1'b0".into(),
            "s_axil_awaddr[1:0]".into(),
            "s_axil_araddr[1:0]".into(),
            "s_axil_awprot".into(),
            "s_axil_arprot".into(),
        ];
        let mut fixed: Vec<String> = Vec::new();
        let mut set = |lhs: &str, rhs: &str| {
            let _ = writeln!(v, "assign {lhs} = {rhs};");
        };
        let tag = self.params.tag_bits as usize;
        let addr = self.params.addr_bits as usize;
        // Control port.
        set("regs$clock", "clk");
        set("regs$rst", "rst_r");
        set("regs$awaddr", "s_axil_awaddr[11:2]");
        set("regs$araddr", "s_axil_araddr[11:2]");
        for s in [
            "awvalid", "wdata", "wstrb", "wvalid", "bready", "arvalid", "rready",
        ] {
            set(&format!("regs${s}"), &format!("s_axil_{s}"));
        }
        for s in ["bresp", "rdata", "rresp"] {
            set(&format!("s_axil_{s}"), &format!("regs${s}"));
        }
        // The handshake outputs, held low while `rst_r` is high (see `registers`).
        let gate = |s: &str| format!("{s} & ~rst_r");
        for s in ["awready", "wready", "bvalid", "arready", "rvalid"] {
            set(&format!("s_axil_{s}"), &gate(&format!("regs${s}")));
        }
        // Command engine <-> registers.
        set("engine$clock", "clk");
        set("engine$rst", "rst_r");
        set("engine$cmd_valid", "regs$cmd_valid");
        set("engine$cmd_op", "regs$cmd_op");
        set("engine$cmd_qpn", "regs$cmd_qpn");
        set("engine$cmd_time", "regs$cmd_time");
        for s in ["cmd_done", "result_status", "result_qpn", "init_done"] {
            set(&format!("regs${s}"), &format!("engine${s}"));
        }
        // The drain and the counters beside the engine.
        for b in ["drain", "counters"] {
            set(&format!("{b}$clock"), "clk");
            set(&format!("{b}$rst"), "rst_r");
        }
        set("drain$snap", "engine$drain_snap");
        set("engine$drained", "drain$drained");
        set("counters$events", "engine$events");
        set("counters$quarantined", "engine$quarantined");
        set("regs$cmd_counts", "counters$counts");
        // Lookup ports.
        let mem = self.params.dir_in_memory();
        let smem = self.params.state_mem.is_some();
        for i in 0..self.port_names.len() {
            let q = self.pipe_name(i);
            let p = &self.port_names[i];
            set(&format!("{q}$clock"), "clk");
            set(&format!("{q}$rst"), "rst_r");
            set(&format!("{q}$init_done"), "engine$init_done");
            set(&format!("{q}$table_base"), "regs$table_base");
            if smem {
                // The state RAM stand-in of a cache port is never written.
                set(&format!("{q}$ram_we"), "1'b0");
                set(&format!("{q}$ram_waddr"), "24'd0");
                set(
                    &format!("{q}$ram_wdata"),
                    &format!("{}'d0", super::ENTRY_BITS),
                );
                // The `live` filter: pipe 2k on port A of copy k (the engine's write takes
                // it: the steal), pipe 2k + 1, or an unpaired last pipe, on port B.
                let (k, a) = (i / 2, i % 2 == 0 && i + 1 < self.port_names.len());
                let (port, steal) = if a {
                    ("a", "engine$live_we")
                } else {
                    ("b", "1'b0")
                };
                set(
                    &format!("live_{k}${port}_raddr"),
                    &format!("{q}$live_raddr$0"),
                );
                set(
                    &format!("{q}$live_rdata$0"),
                    &format!("live_{k}${port}_rdata"),
                );
                set(&format!("{q}$live_steal$0"), steal);
                if !a && i % 2 == 0 {
                    set(
                        &format!("live_{k}$a_raddr"),
                        &format!("{}'d0", super::miss_unit::BLOCK_NUM_BITS),
                    );
                    unused.push(format!("live_{k}$a_rdata"));
                }
                for s in [
                    "tag_we",
                    "tag_line",
                    "tag_valid",
                    "tag_block",
                    "data_we",
                    "data_row",
                    "data",
                ] {
                    set(&format!("{q}${s}$0"), &format!("cw${s}"));
                }
                set(&format!("miss$req_valid${i}"), &format!("{q}$mreq_valid$0"));
                set(&format!("miss$req_block${i}"), &format!("{q}$mreq_block$0"));
                set(&format!("{q}$mreq_ready$0"), &format!("miss$req_ready${i}"));
                for s in [
                    "ans_valid",
                    "ans_slot",
                    "rd_data",
                    "rd_filled",
                    "rd_filled2",
                    "rd_error",
                ] {
                    set(&format!("{q}${s}$0"), &format!("miss${s}${i}"));
                }
                for s in [
                    "ans_ready",
                    "rd_slot",
                    "rd_slot2",
                    "rd_word",
                    "rel_valid",
                    "rel_slot",
                ] {
                    set(&format!("miss${s}${i}"), &format!("{q}${s}$0"));
                }
            } else {
                set(&format!("{q}$ram_we"), "engine$ram_we");
                set(&format!("{q}$ram_waddr"), "engine$ram_waddr");
                set(&format!("{q}$ram_wdata"), "engine$ram_wdata");
            }
            if self.params.dir_on_chip {
                for s in ["dir_we", "dir_waddr", "dir_wdata"] {
                    set(&format!("{q}${s}$0"), &format!("regs${s}$0"));
                }
            }
            set(&format!("{q}$req_valid"), &format!("s_{p}_req_valid"));
            // `ready` low from the cycle `rst` rises (docs/integration.md: a documented path).
            set(
                &format!("s_{p}_req_ready"),
                &format!("{q}$req_ready & ~rst & ~rst_r"),
            );
            set(&format!("{q}$req_qpn"), &format!("s_{p}_req_qpn"));
            if tag < TAG_BITS {
                set(
                    &format!("{q}$req_tag"),
                    &format!("{{{}'d0, s_{p}_req_tag}}", TAG_BITS - tag),
                );
                unused.push(format!("{q}$rsp_tag[{}:{tag}]", TAG_BITS - 1));
            } else {
                set(&format!("{q}$req_tag"), &format!("s_{p}_req_tag"));
            }
            set(
                &format!("m_{p}_rsp_valid"),
                &gate(&format!("{q}$rsp_valid")),
            );
            set(&format!("{q}$rsp_ready"), &format!("m_{p}_rsp_ready"));
            set(&format!("m_{p}_rsp_qpn"), &format!("{q}$rsp_qpn"));
            set(
                &format!("m_{p}_rsp_tag"),
                &format!("{q}$rsp_tag[{}:0]", tag - 1),
            );
            set(&format!("m_{p}_rsp_status"), &format!("{q}$rsp_status"));
            set(
                &format!("m_{p}_rsp_addr"),
                &format!("{q}$rsp_addr[{}:0]", addr - 1),
            );
            if addr < ADDR_BITS {
                unused.push(format!("{q}$rsp_addr[{}:{addr}]", ADDR_BITS - 1));
            }
            for s in ["req_fire", "rsp_fire", "in_flight"] {
                set(&format!("drain${s}${i}"), &format!("{q}${s}"));
            }
            if mem {
                set(
                    &format!("fetch$dreq_valid${i}"),
                    &format!("{q}$dreq_valid$0"),
                );
                set(&format!("fetch$dreq_addr${i}"), &format!("{q}$dreq_addr$0"));
                set(
                    &format!("{q}$dreq_ready$0"),
                    &format!("fetch$dreq_ready${i}"),
                );
                set(&format!("{q}$cpl_valid$0"), &format!("fetch$cpl_valid${i}"));
                set(&format!("{q}$cpl_data$0"), "fetch$cpl_data");
            }
            set(&format!("regs$port_counts${i}"), &format!("{q}$counts"));
        }
        // Memory port (in_memory): single 8-byte INCR beats with ID 0. With the state in
        // memory too the directory's reads go through the AR arbiter with ID 2 (see
        // `state_mem_wiring`).
        if mem {
            set("fetch$clock", "clk");
            set("fetch$rst", "rst_r");
        }
        if mem && !smem {
            set("m_axi_araddr", &format!("fetch$araddr[{}:0]", addr - 1));
            if addr < ADDR_BITS {
                unused.push(format!("fetch$araddr[{}:{addr}]", ADDR_BITS - 1));
            }
            // The fixed fields through wires (an `always @(*)` of a bare constant would never
            // trigger in an event simulator).
            // Reads of whole bus words (`arsize` the bus width).
            let arsize = format!("3'd{}", (self.params.mem_data_bits / 8).trailing_zeros());
            for (s, w, value) in [
                ("arid", 1, "1'b0"),
                ("arlen", 8, "8'd0"),
                ("arsize", 3, arsize.as_str()),
                ("arburst", 2, "2'd1"),
                ("arlock", 1, "1'b0"),
                ("arcache", 4, "4'b0011"),
                ("arprot", 3, "3'd0"),
            ] {
                fixed.push(format!("wire [{}:0] m_axi_{s}_value = {value};", w - 1));
                set(&format!("m_axi_{s}"), &format!("m_axi_{s}_value"));
            }
            set("m_axi_arvalid", &gate("fetch$arvalid"));
            set("fetch$arready", "m_axi_arready");
            set("fetch$rvalid", "m_axi_rvalid");
            let bus = self.params.mem_data_bits as usize;
            if bus < MEM_DATA_BITS_MAX {
                set(
                    "fetch$rdata",
                    &format!("{{{}'d0, m_axi_rdata}}", MEM_DATA_BITS_MAX - bus),
                );
            } else {
                set("fetch$rdata", "m_axi_rdata");
            }
            set("fetch$rresp", "m_axi_rresp");
            set("fetch$rlast", "m_axi_rlast");
            set("m_axi_rready", "fetch$rready");
            unused.push("m_axi_rid".into());
        }
        if let Some(m) = self.params.state_mem {
            self.state_mem_wiring(&m, &mut set, &mut unused, &mut fixed);
        }
        for w in fixed {
            let _ = writeln!(v, "{w}");
        }
        let _ = writeln!(v, "wire _unused_ok = &{{{}}};", unused.join(", "));
        v
    }
}

impl Logic for QpTable {
    fn update(&mut self) {
        // The wiring is structural Verilog (see `wiring`); the children are simulated as
        // part of the emitted design by Verilator, not by rust-hdl's event simulator.
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(self.wiring())
    }
}

impl Block for QpTable {
    fn connect_all(&mut self) {
        for p in &mut self.pipes {
            p.connect_all();
        }
        for f in &mut self.fetch {
            f.connect_all();
        }
        self.regs.connect_all();
        for e in &mut self.engine {
            e.connect_all();
        }
        for e in &mut self.mengine {
            e.connect_all();
        }
        self.drain.connect_all();
        self.counters.connect_all();
        for m in &mut self.miss {
            m.connect_all();
        }
        for c in &mut self.cw {
            c.connect_all();
        }
        for a in &mut self.arb {
            a.connect_all();
        }
        for a in &mut self.ar_skid {
            a.connect_all();
        }
        for a in &mut self.eng_ar_skid {
            a.connect_all();
        }
        for w in &mut self.mem_wr {
            w.connect_all();
        }
        for l in &mut self.live {
            l.connect_all();
        }
    }

    fn update_all(&mut self) {
        for p in &mut self.pipes {
            p.update_all();
        }
        for f in &mut self.fetch {
            f.update_all();
        }
        self.regs.update_all();
        for e in &mut self.engine {
            e.update_all();
        }
        for e in &mut self.mengine {
            e.update_all();
        }
        self.drain.update_all();
        self.counters.update_all();
        for m in &mut self.miss {
            m.update_all();
        }
        for c in &mut self.cw {
            c.update_all();
        }
        for a in &mut self.arb {
            a.update_all();
        }
        for a in &mut self.ar_skid {
            a.update_all();
        }
        for a in &mut self.eng_ar_skid {
            a.update_all();
        }
        for w in &mut self.mem_wr {
            w.update_all();
        }
        for l in &mut self.live {
            l.update_all();
        }
    }

    fn has_changed(&self) -> bool {
        self.pipes.iter().any(|p| p.has_changed())
            || self.fetch.iter().any(|f| f.has_changed())
            || self.regs.has_changed()
            || self.engine.iter().any(|e| e.has_changed())
            || self.mengine.iter().any(|e| e.has_changed())
            || self.drain.has_changed()
            || self.counters.has_changed()
            || self.miss.iter().any(|m| m.has_changed())
            || self.cw.iter().any(|c| c.has_changed())
            || self.arb.iter().any(|a| a.has_changed())
            || self.ar_skid.iter().any(|a| a.has_changed())
            || self.eng_ar_skid.iter().any(|a| a.has_changed())
            || self.mem_wr.iter().any(|w| w.has_changed())
            || self.live.iter().any(|l| l.has_changed())
    }

    fn accept(&self, name: &str, probe: &mut dyn Probe) {
        probe.visit_start_scope(name, self);
        for port in &self.ports {
            probe.visit_atom(&port.name, port);
        }
        for (i, pipe) in self.pipes.iter().enumerate() {
            pipe.accept(&self.pipe_name(i), probe);
        }
        for f in &self.fetch {
            f.accept("fetch", probe);
        }
        self.regs.accept("regs", probe);
        for e in &self.engine {
            e.accept("engine", probe);
        }
        for e in &self.mengine {
            e.accept("engine", probe);
        }
        self.drain.accept("drain", probe);
        self.counters.accept("counters", probe);
        for m in &self.miss {
            m.accept("miss", probe);
        }
        for c in &self.cw {
            c.accept("cw", probe);
        }
        for a in &self.arb {
            a.accept("arb", probe);
        }
        for a in &self.ar_skid {
            a.accept("ar_skid", probe);
        }
        for a in &self.eng_ar_skid {
            a.accept("eng_ar_skid", probe);
        }
        for w in &self.mem_wr {
            w.accept("mem_wr", probe);
        }
        for (k, l) in self.live.iter().enumerate() {
            l.accept(&format!("live_{k}"), probe);
        }
        probe.visit_end_scope(name, self);
    }
}

/// Copies of the `live` filter of the state in memory for `ports` lookup ports: one per
/// two ports ([`LiveFilter`]).
pub fn live_copies(ports: usize) -> usize {
    ports.div_ceil(2)
}

/// The top module `top` of `verilog` with every signal driven by an `assign` of
/// [`QpTable`]'s wiring declared as a net (`output wire`, `wire`) rather than the `reg` that
/// rust-hdl declares for a custom block's outputs and its children's inputs.
pub fn nets_for_wiring(verilog: &str, top: &str) -> String {
    let head = format!("module {top}(");
    let Some(start) = verilog.find(&head) else {
        return verilog.to_string();
    };
    let end = verilog[start..]
        .find("endmodule")
        .map_or(verilog.len(), |e| start + e);
    let body = &verilog[start..end];
    let driven: std::collections::HashSet<&str> = body
        .lines()
        .filter_map(|l| l.trim().strip_prefix("assign "))
        .filter_map(|l| l.split(" = ").next())
        .collect();
    let mut out = String::with_capacity(verilog.len());
    out.push_str(&verilog[..start]);
    for line in body.split_inclusive('\n') {
        let t = line.trim_start();
        let decl = ["output reg ", "reg "]
            .iter()
            .find(|k| t.starts_with(*k))
            .filter(|_| {
                let name = t.trim_end().trim_end_matches(';').rsplit(' ').next();
                name.is_some_and(|n| driven.contains(n))
            });
        match decl {
            Some(k) => {
                let indent = &line[..line.len() - t.len()];
                let net = if k.starts_with("output") {
                    "output wire "
                } else {
                    "wire "
                };
                out.push_str(indent);
                out.push_str(net);
                out.push_str(&t[k.len()..]);
            }
            None => out.push_str(line),
        }
    }
    out.push_str(&verilog[end..]);
    out
}
