//! The building blocks: what every stage uses and none owns. Digests and the sha256sum listing,
//! folder ownership, text and number formats, lines for the terminal, bounded reading and downloading, the system calls,
//! zip archives, HTML nesting and the tree a browser builds, the calendar, work on a second core, the few statistical
//! distributions the analysis tests against, the error type and the layout of what a build
//! publishes. A module here imports only the standard library, external crates and other modules
//! of this folder, never a stage (the project's layering test checks it).

pub mod archive;
pub mod calendar;
pub mod console;
pub mod digest;
pub mod dom;
pub mod error;
pub mod fetch;
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
