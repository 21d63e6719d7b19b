//! Block-level test of the directory fetch ([`DirFetch`], the AXI4 read master of the
//! in_memory directory), alone in Verilator, against the AXI memory model of the harness
//! ([`AxiMemory`]) with AR backpressure, R gaps, random latency and error responses.
//!
//! Every port requests random 8-byte directory entries (random idle cycles between its
//! requests) at once with the others. Checked: every request answered exactly once, on its
//! own port, in that port's request order, with the entry's `present` bit and page base and
//! the error bit set exactly when the memory answered SLVERR or DECERR (the reserved bits of
//! the entry cleared); never more than `max_outstanding` reads between a request's handshake
//! and its answer (and that limit reached when the memory is slow); at most one answer a
//! cycle; one read a cycle at full speed, the ports granted in turn (round robin); the AXI
//! master's side of the protocol (held, stable AR); nothing outstanding at the end.

use qptable::hw::dir_fetch::DirFetch;
use qptable::hw::lookup_pipe::DIR_ERROR_BIT;
use qptable::hw::EngineParams;
use qptable::spec::dir_entry;
use qptable_sim::axi_mem::{AxiMemory, Latency};
use qptable_sim::{step_agents, Agent, AxiResp, Out};
use qptable_testbench::{block, configs};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// The block's ports as the wrapper names them: port `p`'s requests `d<p>_valid`,
/// `d<p>_ready`, `d<p>_addr` (a stream), its answers `c<p>_valid` with the shared
/// `cpl_data`; the AXI read master `m_axi_*`, with the fixed fields tied as the top level
/// ties them (single 8-byte INCR beats, ID 0). The block's own port names appear only here.
fn wrapper(top: &str, block_top: &str, ports: usize) -> String {
    let mut decl = String::new();
    let mut conn = String::new();
    for p in 0..ports {
        decl += &format!(
            "    input d{p}_valid, output d{p}_ready, input [63:0] d{p}_addr, output c{p}_valid,\n"
        );
        conn += &format!(
            "        .dreq_valid${p}(d{p}_valid), .dreq_ready${p}(d{p}_ready), \
             .dreq_addr${p}(d{p}_addr), .cpl_valid${p}(c{p}_valid),\n"
        );
    }
    format!(
        "module {top}(
    input clock, input rst,
{decl}    output [63:0] cpl_data,
    output m_axi_arvalid, input m_axi_arready, output [63:0] m_axi_araddr,
    output [7:0] m_axi_arlen, output [2:0] m_axi_arsize, output [1:0] m_axi_arburst,
    input m_axi_rvalid, output m_axi_rready, input [63:0] m_axi_rdata, input [1:0] m_axi_rresp,
    input m_axi_rlast
);
    assign m_axi_arlen = 8'd0;
    assign m_axi_arsize = 3'd3;
    assign m_axi_arburst = 2'd1;
    {block_top} u_fetch(
        .clock(clock), .rst(rst),
{conn}        .cpl_data(cpl_data),
        .arvalid(m_axi_arvalid), .arready(m_axi_arready), .araddr(m_axi_araddr),
        .rvalid(m_axi_rvalid), .rready(m_axi_rready), .rdata({{448'd0, m_axi_rdata}}),
        .rresp(m_axi_rresp), .rlast(m_axi_rlast)
    );
endmodule
"
    )
}

/// The memory side of one run.
#[derive(Clone, Copy, Debug)]
struct Memory {
    latency: Latency,
    ar_backpressure: f64,
    r_gaps: f64,
    /// Idle probability between a port's requests.
    req_idle: f64,
}

impl Memory {
    /// Latency 1, no backpressure, no gaps, requests back to back: the block must then
    /// take and answer one read a cycle.
    fn full_speed(&self) -> bool {
        self.latency == Latency::Fixed(1)
            && self.ar_backpressure == 0.0
            && self.r_gaps == 0.0
            && self.req_idle == 0.0
    }
}

/// `requests` per port on `ports` ports with `max_outstanding` reads in flight at most.
fn dir_fetch(
    name: &str,
    ports: usize,
    max_outstanding: u32,
    mem: Memory,
    requests: usize,
    default_seed: u64,
) {
    let port_list = format!(
        "ports=[{}]",
        (0..ports)
            .map(|p| format!("\"p{p}\""))
            .collect::<Vec<_>>()
            .join(",")
    );
    let mo = format!("max_outstanding={max_outstanding}");
    let cfg = configs::config(&[
        "mode=two_level",
        "directory=in_memory",
        "index_bits=12",
        "leaf_bits=4",
        &port_list,
        &mo,
    ]);
    let params = EngineParams::new(&cfg);
    let block_top = format!("dir_fetch_{name}");
    let top = format!("{block_top}_tb");
    let verilog = block::verilog(DirFetch::new(&params), &block_top).unwrap()
        + &wrapper(&top, &block_top, ports);
    let model = block::build(&verilog, &top).unwrap();
    let seed = block::seed(name, default_seed);
    let what = format!("{name} seed {seed} {mem:?}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut sim = model.instantiate();

    // A pool of entries at random 8-byte aligned addresses (low and high in the address
    // space), random contents; about one in eight answers SLVERR or DECERR.
    let mut axi = AxiMemory::new(&sim, "m_axi_")
        .unwrap()
        .with_seed(seed ^ 0xA5A5)
        .with_latency(mem.latency)
        .with_ar_backpressure(mem.ar_backpressure)
        .with_r_gaps(mem.r_gaps);
    let pool: Vec<u64> = (0..256)
        .map(|_| {
            let a = rng.gen::<u64>() & !7;
            if rng.gen_bool(0.5) {
                a & 0xFFFF_FFF8
            } else {
                a
            }
        })
        .collect();
    let mut errors = Vec::new();
    for &a in &pool {
        axi.write_u64(a, rng.gen());
        if rng.gen_bool(0.125) {
            let resp = if rng.gen() {
                AxiResp::SlvErr
            } else {
                AxiResp::DecErr
            };
            axi.add_error_range(a..a + 8, resp);
            errors.push(a);
        }
    }
    // The entry a port must receive for address a: present and base as read, the reserved
    // bits cleared, the error bit set on an error response.
    let expected = |axi: &AxiMemory, a: u64| {
        (axi.read_u64(a) & (dir_entry::BASE_MASK | dir_entry::PRESENT))
            | u64::from(errors.contains(&a)) << DIR_ERROR_BIT
    };

    let mut sources = block::port_sources(&sim, 'd', &["addr"], ports, mem.req_idle, seed).unwrap();
    let cpl_valid: Vec<Out> = (0..ports)
        .map(|p| sim.output(&format!("c{p}_valid")).unwrap())
        .collect();
    let cpl_data = sim.output("cpl_data").unwrap();
    let rst = sim.input("rst").unwrap();
    let mut pending: Vec<VecDeque<u64>> = vec![VecDeque::new(); ports];
    for (p, src) in sources.iter_mut().enumerate() {
        for _ in 0..requests {
            let a = pool[rng.gen_range(0..pool.len())];
            src.push([a]);
            pending[p].push_back(a);
        }
    }
    sim.set(rst, 1);
    sim.step_n(2);
    sim.set(rst, 0);

    let total = (ports * requests) as u64;
    let mut answered = 0u64;
    let mut answered_errors = 0u64;
    let mut most_outstanding = 0u64;
    let start = sim.cycle();
    while answered < total {
        assert!(
            sim.cycle() - start < 1000 * total + 10_000,
            "{what}: {answered} of {total} answered, stuck"
        );
        {
            let mut agents: Vec<&mut dyn Agent> =
                sources.iter_mut().map(|s| s as &mut dyn Agent).collect();
            agents.push(&mut axi);
            step_agents(&mut sim, &mut agents);
        }
        let mut answers = 0;
        for p in 0..ports {
            if !sim.is_high(cpl_valid[p]) {
                continue;
            }
            answers += 1;
            let a = pending[p]
                .pop_front()
                .unwrap_or_else(|| panic!("{what}: an answer on port {p} nothing asked for"));
            // This is the port's answer number `k`: its request `k` must have been taken.
            let k = requests - pending[p].len() - 1;
            assert!(
                sources[p].sent().len() > k,
                "{what}: port {p} answered before its request was taken"
            );
            let want = expected(&axi, a);
            assert_eq!(
                sim.get(cpl_data),
                want,
                "{what}: port {p} entry at {a:#x} (edge {})",
                sim.cycle()
            );
            answered += 1;
            answered_errors += u64::from(want >> DIR_ERROR_BIT & 1 == 1);
        }
        assert!(answers <= 1, "{what}: {answers} answers in one cycle");
        let taken: u64 = sources.iter().map(|s| s.sent_total()).sum();
        let outstanding = taken - answered;
        assert!(
            outstanding <= u64::from(max_outstanding),
            "{what}: {outstanding} reads outstanding, limit {max_outstanding}"
        );
        most_outstanding = most_outstanding.max(outstanding);
    }
    let cycles = sim.cycle() - start;
    for _ in 0..20 {
        sim.step();
        for v in &cpl_valid {
            assert!(!sim.is_high(*v), "{what}: answer after the end");
        }
    }
    axi.check().unwrap_or_else(|e| panic!("{what}: {e:#}"));
    assert!(axi.is_idle(), "{what}: memory still busy");
    assert_eq!(axi.ar_count(), total, "{what}: one read per request");
    let stats = axi.stats();
    println!(
        "{name}: {ports} ports x {requests} requests, max_outstanding {max_outstanding}: \
         {cycles} cycles, {answered_errors} error answers, most outstanding {most_outstanding}, \
         memory latency observed {}..={}",
        stats.min_latency.unwrap_or(0),
        stats.max_latency.unwrap_or(0)
    );
    assert!(answered_errors > 0, "{what}: no error answer");
    assert!(answered_errors < total, "{what}: only error answers");
    if mem.full_speed() {
        // One read a cycle, plus the AR register, the memory's cycle and the answer.
        assert!(
            cycles <= total + 3,
            "{what}: {cycles} cycles for {total} reads at full speed"
        );
        // Every port requesting all the time: the round-robin arbiter grants the ports in
        // turn, until the first port has no more requests.
        let mut grants: Vec<(u64, usize)> = sources
            .iter()
            .enumerate()
            .flat_map(|(p, s)| s.sent().iter().map(move |b| (b.cycle, p)))
            .collect();
        grants.sort();
        let all_busy_until = sources
            .iter()
            .map(|s| s.sent().last().unwrap().cycle)
            .min()
            .unwrap();
        let turns: Vec<&[(u64, usize)]> = grants
            .windows(2)
            .filter(|w| w[1].0 <= all_busy_until)
            .collect();
        assert!(
            turns.len() + 1 >= total as usize - ports,
            "{what}: ports busy to the end"
        );
        for w in turns {
            assert_eq!(
                w[1].1,
                (w[0].1 + 1) % ports,
                "{what}: round robin, grant at edge {} after port {} at edge {}",
                w[1].0,
                w[0].1,
                w[0].0
            );
        }
    } else {
        assert_eq!(
            most_outstanding,
            u64::from(max_outstanding),
            "{what}: the outstanding limit is reached"
        );
    }
}

#[test]
fn one_port_one_outstanding_latency_50() {
    dir_fetch(
        "mo1",
        1,
        1,
        Memory {
            latency: Latency::Fixed(50),
            ar_backpressure: 0.2,
            r_gaps: 0.2,
            req_idle: 0.2,
        },
        300,
        0xD1F0_0001,
    );
}

#[test]
fn three_ports_five_outstanding_random_latency() {
    // max_outstanding not a power of two: the return queue is deeper than the limit.
    dir_fetch(
        "mo5",
        3,
        5,
        Memory {
            latency: Latency::Uniform(1, 30),
            ar_backpressure: 0.3,
            r_gaps: 0.3,
            req_idle: 0.3,
        },
        2_000,
        0xD1F0_0005,
    );
}

#[test]
fn four_ports_32_outstanding_latency_1_to_200() {
    dir_fetch(
        "mo32",
        4,
        32,
        Memory {
            latency: Latency::Uniform(1, 200),
            ar_backpressure: 0.5,
            r_gaps: 0.1,
            req_idle: 0.1,
        },
        2_000,
        0xD1F0_0032,
    );
}

#[test]
fn two_ports_full_speed_latency_1() {
    // The fastest memory, no backpressure, back-to-back requests: one read a cycle.
    dir_fetch(
        "fast",
        2,
        4,
        Memory {
            latency: Latency::Fixed(1),
            ar_backpressure: 0.0,
            r_gaps: 0.0,
            req_idle: 0.0,
        },
        2_000,
        0xD1F0_0100,
    );
}
