use qptable_sim::{BuildOptions, Model};
use std::time::Instant;
fn main() {
    let v = std::fs::read_to_string("/work/main/gen/qp_table.v").unwrap();
    let model = Model::build(&v, "qp_table", &BuildOptions::default()).unwrap();
    let n = 2_000_000u64;
    let fixed = [
        ("s_tx_req_valid", 1),
        ("s_rx_req_valid", 1),
        ("m_tx_rsp_ready", 1),
        ("m_rx_rsp_ready", 1),
        ("s_axil_bready", 1),
        ("s_axil_rready", 1),
    ];
    for round in 0..3 {
        let cpp = model
            .cpp_main_benchmark_with(
                n,
                16500,
                &fixed,
                &[("s_tx_req_qpn", 0x9E3779), ("s_rx_req_qpn", 0x9E3779)],
            )
            .unwrap();
        let cpp_const = model
            .cpp_main_benchmark_with(n, 16500, &fixed, &[])
            .unwrap();
        let mut sim = model.instantiate();
        let rst = sim.input("rst").unwrap();
        sim.set(rst, 1);
        sim.step_n(8);
        sim.set(rst, 0);
        sim.step_n(16500);
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
        let raw = n as f64 / t.elapsed().as_secs_f64();
        println!("round {round}: cpp stepping {:.2} Mc/s, cpp const {:.2}, rust raw stepping {:.2} ({:.2}x) {acc}", cpp/1e6, cpp_const/1e6, raw/1e6, raw/cpp);
    }
}
