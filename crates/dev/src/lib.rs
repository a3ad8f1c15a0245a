//! The development crate: what the tests, the benches and `examples/synth.rs` share and the
//! published program never compiles. [`synth`] writes synthetic summaries of any size. It depends
//! on `ratios-base` and `ratios-model`; the root crate takes it as a dev-dependency only.

pub mod synth;
