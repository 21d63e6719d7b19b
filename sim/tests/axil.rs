//! AXI4-Lite master against a small register slave.

mod common;

use qptable_sim::{step_agents, AxiLiteMaster, AxiResp, AxilKind, Sim, StreamSink, StreamSource};

fn setup() -> (Sim, AxiLiteMaster) {
    let model = common::build(common::AXIL_REGS, "axil_regs");
    let mut sim = model.instantiate();
    let rst = sim.input("rst").unwrap();
    sim.set(rst, 1);
    sim.step_n(2);
    sim.set(rst, 0);
    let m = AxiLiteMaster::new(&sim, "s_axil_")
        .unwrap()
        .with_timeout(1000);
    (sim, m)
}

#[test]
fn blocking_reads_writes_okay_and_slverr() {
    let (mut sim, mut m) = setup();
    assert_eq!(m.read(&mut sim, 0x0).unwrap(), (0x51505431, AxiResp::Okay));
    let (resp, cycles) = m.write(&mut sim, 0x4, 0xdead_beef).unwrap();
    println!("write took {cycles} cycles");
    assert_eq!(resp, AxiResp::Okay);
    assert!(cycles >= 3);
    assert_eq!(m.read(&mut sim, 0x4).unwrap(), (0xdead_beef, AxiResp::Okay));
    // Read-only and unmapped: SLVERR, nothing changes.
    assert_eq!(m.write(&mut sim, 0x0, 1).unwrap().0, AxiResp::SlvErr);
    assert_eq!(m.write(&mut sim, 0x800, 1).unwrap().0, AxiResp::SlvErr);
    assert_eq!(m.read(&mut sim, 0x800).unwrap().1, AxiResp::SlvErr);
    assert_eq!(m.read(&mut sim, 0x0).unwrap().0, 0x51505431);
    // Byte strobes.
    m.write(&mut sim, 0x8, 0x1122_3344).unwrap();
    assert_eq!(
        m.write_strb(&mut sim, 0x8, 0xaabb_ccdd, 0b0101).unwrap().0,
        AxiResp::Okay
    );
    assert_eq!(m.read(&mut sim, 0x8).unwrap().0, 0x11bb_33dd);
    assert_eq!(
        m.write_strb(&mut sim, 0x8, 0xeeff_0000, 0b1000).unwrap().0,
        AxiResp::Okay
    );
    assert_eq!(m.read(&mut sim, 0x8).unwrap().0, 0xeebb_33dd);
    // Address bits [1:0] are ignored by this slave.
    assert_eq!(m.read(&mut sim, 0xb).unwrap().0, 0xeebb_33dd);
    m.check().unwrap();
    assert!(m.is_idle());
}

#[test]
fn reads_proceed_while_a_slow_write_waits() {
    let (mut sim, mut m) = setup();
    let w = m.push_write(0x10, 1, 0xf);
    let mut busy_seen = 0;
    let mut reads = 0;
    loop {
        if m.reads_pending() == 0 {
            m.push_read(0x14);
        }
        step_agents(&mut sim, &mut [&mut m]);
        while let Some(d) = m.pop_done() {
            match d.kind {
                AxilKind::Read => {
                    reads += 1;
                    busy_seen += d.data as usize;
                }
                AxilKind::Write => {
                    assert_eq!(d.id, w);
                    assert_eq!(d.resp, AxiResp::Okay);
                    assert!(d.addr_cycle < d.done_cycle && d.data_cycle < d.done_cycle);
                    println!("slow write: {d:?}, latency {}", d.latency());
                    assert!(d.latency() > 20);
                }
            }
        }
        if m.writes_pending() == 0 {
            break;
        }
        assert!(sim.cycle() < 200, "write never completed");
    }
    println!("{reads} reads completed while the write was pending, {busy_seen} saw busy");
    assert!(reads >= 5 && busy_seen >= 5);
    assert_eq!(m.read(&mut sim, 0x10).unwrap().0, 1, "the command ran once");
    m.check().unwrap();
}

#[test]
fn random_delays_and_backpressure() {
    let (mut sim, m) = setup();
    let seed = common::seed("axil random_delays_and_backpressure");
    let mut m = m.with_random(0.4, 0.6, seed);
    let mut shadow = [0u64; 3];
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(seed);
    use rand::Rng;
    let mut expected = std::collections::HashMap::new();
    for _ in 0..300 {
        let r: usize = rng.gen_range(0..3);
        let addr = 4 + 4 * r as u64;
        if rng.gen_bool(0.5) {
            let data: u64 = rng.gen::<u32>() as u64;
            let strb: u64 = rng.gen_range(0..16);
            // The blocking call serialises, so the shadow model is exact.
            let (resp, _) = m.write_strb(&mut sim, addr, data, strb).unwrap();
            assert_eq!(resp, AxiResp::Okay);
            for b in 0..4 {
                if strb >> b & 1 == 1 {
                    shadow[r] = shadow[r] & !(0xff << (8 * b)) | data & (0xff << (8 * b));
                }
            }
        } else {
            let id = m.push_read(addr);
            expected.insert(id, shadow[r]);
            let d = m.wait(&mut sim, id).unwrap();
            assert_eq!(d.data, expected[&id], "read {addr:#x}");
        }
    }
    m.check().unwrap();
}

/// An AXI-Lite master and stream agents driven in one cycle loop (two models in one
/// process, each with its own Sim).
#[test]
fn agents_share_one_cycle_loop() {
    let (mut sim, mut m) = setup();
    let echo = common::build(&common::echo(0), "echo");
    let mut esim = echo.instantiate();
    let mut src = StreamSource::new(&esim, "s_x_req_", &["qpn", "tag"]).unwrap();
    let mut sink = StreamSink::new(&esim, "m_x_rsp_", &["qpn", "tag", "sum"]).unwrap();
    for i in 0..50 {
        src.push([i, i]);
        m.push_write(4, i, 0xf);
        m.push_read(4);
    }
    for _ in 0..2000 {
        step_agents(&mut sim, &mut [&mut m]);
        step_agents(&mut esim, &mut [&mut src, &mut sink]);
        if m.is_idle() && src.is_done() && sink.received_total() == 50 {
            break;
        }
    }
    assert!(m.is_idle());
    assert_eq!(m.done().len(), 100);
    assert_eq!(sink.received_total(), 50);
}
