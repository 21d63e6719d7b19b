//! Waveform pictures from real simulation traces: a small VCD reader ([`vcd`]), an SVG
//! renderer ([`svg`]), and the scripted scenarios of `docs/integration.md` ([`scenarios`]).

pub mod scenarios;
pub mod svg;
pub mod vcd;

pub use scenarios::docs_waves;
pub use svg::{render_svg, signals_of, Format, Row, Wave};
pub use vcd::{edge_time, Changes, Trace};
