//! The end-to-end tests, in one binary (as mdBook's and ripgrep's are): each module holds the
//! tests of one concern, and [`support`] the helpers they share. The property tests of the
//! loaders (`tests/fuzz.rs`), the documented bad inputs, one test per case (`tests/bad_input.rs`),
//! the live preview (`tests/serve.rs`), the pages in a browser (`tests/browser.rs`), Lighthouse
//! (`tests/lighthouse.rs`, whose timings must not share the cores with other tests) and the
//! reader's offline rebuild (`tests/rebuild.rs`, whose nested build must not either) are binaries
//! of their own; `scripts/test` runs the last two alone.

mod article;
mod cli;
mod evidence;
mod fixtures;
mod layering;
mod logs;
mod notebook;
mod output;
mod package;
mod page_safety;
mod publish;
mod release;
mod rounds;
mod support;
mod synth;
mod vendor;
mod verify;
