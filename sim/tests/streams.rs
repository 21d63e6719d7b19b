//! Stream source/sink agents on a small ready/valid FIFO, and the protocol checker on
//! deliberately broken variants.

mod common;

use qptable_sim::{step_agents, Agent, Beat, Model, Sim, StreamSink, StreamSource};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn reset(sim: &mut Sim) {
    let rst = sim.input("rst").unwrap();
    sim.set(rst, 1);
    sim.step_n(2);
    sim.set(rst, 0);
}

struct Run {
    sent: Vec<Beat>,
    got: Vec<Beat>,
    cycles: u64,
    sink: StreamSink,
}

fn run_echo(model: &Model, n: usize, idle: f64, bp: f64, seed: u64, scramble: bool) -> Run {
    let mut sim = model.instantiate();
    reset(&mut sim);
    let mut src = StreamSource::new(&sim, "s_x_req_", &["qpn", "tag"])
        .unwrap()
        .with_idle(idle, seed)
        .with_scrambled_idle(scramble);
    let mut sink = StreamSink::new(&sim, "m_x_rsp_", &["qpn", "tag", "sum"])
        .unwrap()
        .with_backpressure(bp, seed ^ 0x5555);
    let mut rng = StdRng::seed_from_u64(seed.wrapping_add(1));
    for _ in 0..n {
        src.push([rng.gen_range(0..1u64 << 24), rng.gen_range(0..256)]);
    }
    let start = sim.cycle();
    let mut got = Vec::new();
    while (got.len() < n) && sim.cycle() - start < 100 * n as u64 + 100 {
        step_agents(&mut sim, &mut [&mut src, &mut sink]);
        got.extend(sink.take_received());
    }
    // A few more cycles: nothing else may come out.
    for _ in 0..20 {
        step_agents(&mut sim, &mut [&mut src, &mut sink]);
    }
    got.extend(sink.take_received());
    Run {
        sent: src.sent().to_vec(),
        got,
        cycles: sim.cycle() - start,
        sink,
    }
}

fn check_echo(r: &Run, n: usize) {
    r.sink.check().unwrap();
    assert_eq!(r.sent.len(), n, "every beat sent");
    assert_eq!(r.got.len(), n, "every beat received exactly once");
    for (s, g) in r.sent.iter().zip(&r.got) {
        assert_eq!(
            g.data(),
            &[s[0], s[1], s[0] + s[1]],
            "in order, payload intact"
        );
        assert!(g.cycle >= s.cycle + 2, "latency at least 2: {s:?} -> {g:?}");
    }
}

#[test]
fn stream_full_throughput_and_latency() {
    let model = common::build(&common::echo(0), "echo");
    let r = run_echo(&model, 200, 0.0, 0.0, 1, false);
    check_echo(&r, 200);
    // Always ready, no idle: one beat per cycle, latency exactly 2.
    for w in r.sent.windows(2) {
        assert_eq!(w[1].cycle, w[0].cycle + 1, "II = 1");
    }
    for (s, g) in r.sent.iter().zip(&r.got) {
        assert_eq!(g.cycle, s.cycle + 2);
    }
}

#[test]
fn stream_random_idle_and_backpressure() {
    let model = common::build(&common::echo(0), "echo");
    let base = common::seed("stream_random_idle_and_backpressure");
    for (k, (idle, bp)) in [(0.5, 0.0), (0.0, 0.5), (0.3, 0.7), (0.8, 0.2), (0.1, 0.9)]
        .into_iter()
        .enumerate()
    {
        let seed = base.wrapping_add(k as u64);
        let r = run_echo(&model, 300, idle, bp, seed, true);
        println!(
            "idle {idle} backpressure {bp} seed {seed}: {} cycles",
            r.cycles
        );
        check_echo(&r, 300);
    }
}

#[test]
fn source_holds_valid_until_handshake() {
    // Sink paused: the FIFO fills (input stage + 4), then the source must keep presenting
    // the same beat with valid high.
    let model = common::build(&common::echo(0), "echo");
    let mut sim = model.instantiate();
    reset(&mut sim);
    let mut src = StreamSource::new(&sim, "s_x_req_", &["qpn", "tag"]).unwrap();
    let mut sink = StreamSink::new(&sim, "m_x_rsp_", &["qpn", "tag", "sum"]).unwrap();
    sink.set_paused(true);
    for i in 0..10u64 {
        src.push([i, i]);
    }
    let valid = sim.input("s_x_req_valid").unwrap();
    let qpn = sim.input("s_x_req_qpn").unwrap();
    for _ in 0..20 {
        step_agents(&mut sim, &mut [&mut src, &mut sink]);
    }
    assert_eq!(
        src.sent().len(),
        5,
        "bounded depth: 4 in the FIFO + 1 in the input stage"
    );
    assert_eq!(sim.driven(valid), 1);
    assert_eq!(sim.driven(qpn), 5, "the 6th beat is held");
    sink.set_paused(false);
    for _ in 0..30 {
        step_agents(&mut sim, &mut [&mut src, &mut sink]);
    }
    assert_eq!(sink.received_total(), 10);
    assert!(src.is_done());
    sink.check().unwrap();
}

fn broken_run(kind: u32) -> Vec<String> {
    let model = common::build(&common::echo(kind), "echo");
    let mut sim = model.instantiate();
    reset(&mut sim);
    let mut src = StreamSource::new(&sim, "s_x_req_", &["qpn", "tag"]).unwrap();
    let mut sink = StreamSink::new(&sim, "m_x_rsp_", &["qpn", "tag", "sum"])
        .unwrap()
        .with_backpressure(0.6, 7);
    for i in 0..100u64 {
        src.push([i, i & 0xff]);
    }
    for _ in 0..400 {
        src.drive(&mut sim);
        sink.drive(&mut sim);
        sim.step();
        src.observe(&sim);
        sink.observe(&sim);
    }
    assert!(sink.check().is_err());
    sink.violations().iter().map(|v| v.to_string()).collect()
}

#[test]
fn checker_catches_valid_dropped_without_handshake() {
    let v = broken_run(1);
    println!("{}", v[..v.len().min(3)].join("\n"));
    assert!(!v.is_empty());
    assert!(
        v.iter().all(|m| m.contains("m_x_rsp_valid: valid dropped")),
        "{v:?}"
    );
}

#[test]
fn checker_catches_payload_change_while_stalled() {
    let v = broken_run(2);
    println!("{}", v[..v.len().min(3)].join("\n"));
    assert!(
        v.iter().any(|m| m.contains("m_x_rsp_tag: payload changed")),
        "{v:?}"
    );
    assert!(
        !v.iter().any(|m| m.contains("m_x_rsp_qpn")),
        "qpn is stable: {v:?}"
    );
}
