//! The building blocks: what every stage uses and none owns. Digests and the sha256sum listing,
//! folder ownership, text and number formats, lines for the terminal, bounded reading and downloading, the system calls,
//! zip archives, HTML nesting and the tree a browser builds, the calendar, work on a second core, the few statistical
//! distributions the analysis tests against, the error type and the layout of what a build
//! publishes. A module here imports only the standard library, external crates and other modules
//! of this crate, never a stage: the crate depends on no other of the workspace.

pub mod archive;
pub mod calendar;
pub mod console;
pub mod digest;
pub mod dist;
pub mod dom;
pub mod error;
pub mod fetch;
pub mod inventory;
pub mod json;
pub mod layout;
pub mod markup;
pub mod minisign;
pub mod number;
pub mod ownership;
pub mod problems;
pub mod readability;
pub mod stats;
pub mod sums;
pub mod sys;
pub mod template;
pub mod text;
pub mod workers;

/// The generator's package name, as the outputs print it (the root manifest's; a test of the
/// binary checks that they agree).
pub const PACKAGE: &str = "scenario-ratios";

/// Name and version of this generator, as printed in the outputs (the workspace's version).
pub const TOOL: &str = concat!("scenario-ratios", " ", env!("CARGO_PKG_VERSION"));
