//! What a visitor reads: [`figure`] (the SVG figures and the social card), [`article`] (the
//! article, its data page and the data files) and [`self_check`] (the build's checks of what it
//! publishes). It depends on `ratios-base` and `ratios-model` only: the bundle's bytes, which the
//! pages list, reach it as files of the published set, so it compiles beside `ratios-bundle`.

// Templates name items by the crate's own name, whichever crate compiles them.
extern crate self as ratios_render;

pub mod article;
pub mod figure;
pub mod self_check;
