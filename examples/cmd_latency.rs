//! ALLOC / FREE latency against occupancy: `cargo run --release --example cmd_latency -- 14 24`.
fn main() -> anyhow::Result<()> {
    let bits: Vec<u32> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    for b in if bits.is_empty() { vec![14, 24] } else { bits } {
        print!("{}", qptable::cmd_latency::run(b, 200, 1)?);
    }
    Ok(())
}
