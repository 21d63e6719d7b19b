use qptable_sim::{Agent, AxiLiteMaster, BuildOptions, Model, Sim, StreamSink, StreamSource};
use std::time::Instant;
fn agents(sim: &mut Sim, n: u64) -> f64 {
    let mut sources = vec![];
    let mut sinks = vec![];
    for p in ["tx", "rx"] {
        sources.push(
            StreamSource::new(sim, &format!("s_{p}_req_"), &["qpn", "tag"])
                .unwrap()
                .with_history(false),
        );
        sinks.push(
            StreamSink::new(
                sim,
                &format!("m_{p}_rsp_"),
                &["qpn", "tag", "status", "addr"],
            )
            .unwrap(),
        );
    }
    let mut axil = AxiLiteMaster::new(sim, "s_axil_").unwrap();
    let mut qpn = 0u64;
    let mut acc = 0u64;
    let t = Instant::now();
    for i in 0..n {
        for s in &mut sources {
            if s.pending() < 2 {
                qpn = (qpn + 0x9E3779) & 0xFF_FFFF;
                s.push([qpn, i & 0xff]);
            }
        }
        axil.drive(sim);
        for s in &mut sources {
            s.drive(sim);
        }
        for s in &mut sinks {
            s.drive(sim);
        }
        sim.step();
        axil.observe(sim);
        for s in &mut sources {
            s.observe(sim);
        }
        for s in &mut sinks {
            s.observe(sim);
            while let Some(b) = s.pop() {
                acc = acc.wrapping_mul(31).wrapping_add(b[0] ^ b[2] ^ b[3]);
            }
        }
    }
    std::hint::black_box(acc);
    n as f64 / t.elapsed().as_secs_f64()
}
fn raw(sim: &mut Sim, n: u64) -> f64 {
    let fixed = [
        ("s_tx_req_valid", 1),
        ("s_rx_req_valid", 1),
        ("m_tx_rsp_ready", 1),
        ("m_rx_rsp_ready", 1),
        ("s_axil_bready", 1),
        ("s_axil_rready", 1),
    ];
    for (nm, v) in fixed {
        sim.set_named(nm, v).unwrap();
    }
    let q1 = sim.input("s_tx_req_qpn").unwrap();
    let q2 = sim.input("s_rx_req_qpn").unwrap();
    let out = sim.output("m_tx_rsp_addr").unwrap();
    let t = Instant::now();
    let mut acc = 0u64;
    let mut q = 0u64;
    for _ in 0..n {
        q = (q + 0x9E3779) & 0xFFFFFF;
        sim.set(q1, q);
        sim.set(q2, q);
        sim.step();
        acc = acc.wrapping_add(sim.get(out));
    }
    std::hint::black_box(acc);
    n as f64 / t.elapsed().as_secs_f64()
}
fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or("/work/main/gen/qp_table.v".into());
    let top = std::path::Path::new(&path)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .to_string();
    let v = std::fs::read_to_string(&path).unwrap();
    let model = Model::build(&v, &top, &BuildOptions::default()).unwrap();
    let n = 500_000;
    let (mut bc, mut br, mut ba) = (0f64, 0f64, 0f64);
    let ports: Vec<String> = model
        .ports()
        .iter()
        .filter(|p| p.name.ends_with("_req_valid"))
        .map(|p| {
            p.name
                .trim_start_matches("s_")
                .trim_end_matches("_req_valid")
                .to_string()
        })
        .collect();
    assert_eq!(ports, ["tx", "rx"]);
    for _ in 0..5 {
        let fixed = [
            ("s_tx_req_valid", 1),
            ("s_rx_req_valid", 1),
            ("m_tx_rsp_ready", 1),
            ("m_rx_rsp_ready", 1),
            ("s_axil_bready", 1),
            ("s_axil_rready", 1),
        ];
        bc = bc.max(
            model
                .cpp_main_benchmark_with(
                    n,
                    16500,
                    &fixed,
                    &[("s_tx_req_qpn", 0x9E3779), ("s_rx_req_qpn", 0x9E3779)],
                )
                .unwrap(),
        );
        let mut sim = model.instantiate();
        let rst = sim.input("rst").unwrap();
        sim.set(rst, 1);
        sim.step_n(8);
        sim.set(rst, 0);
        sim.step_n(16500);
        br = br.max(raw(&mut sim, n));
        let mut sim = model.instantiate();
        sim.set(rst, 1);
        sim.step_n(8);
        sim.set(rst, 0);
        sim.step_n(16500);
        ba = ba.max(agents(&mut sim, n));
    }
    println!("best of 5: cpp {:.2} Mc/s ({:.0} ns), raw {:.2} ({:.0} ns, {:.2}x), agents {:.2} ({:.0} ns, {:.2}x)", bc/1e6, 1e9/bc, br/1e6, 1e9/br, br/bc, ba/1e6, 1e9/ba, ba/bc);
}
