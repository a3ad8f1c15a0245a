//! The Rust crates the program is built from, carried in the reproducibility bundle so that a
//! reader builds it with an empty cargo home and no network: `vendor/<name>-<version>/`, laid out
//! as `cargo vendor --versioned-dirs` does (the files, and a `.cargo-checksum.json` with the
//! SHA-256 of each file and of the `.crate` archive), and a `.cargo/config.toml` pointing cargo
//! at it. A crate's tests, benchmarks and examples, which cargo never builds for a dependency,
//! are left out unless its library includes one of their files.
//!
//! Each crate is pinned by the SHA-256 that Cargo.lock records for it. Its files come from, in
//! order: the project's own `vendor/` folder (an unpacked bundle has one; each file is checked
//! against the folder's `.cargo-checksum.json`, whose package hash must be the lock's), the
//! verified crate cache `data/crates/`, cargo's own download cache, or the registry (`curl`).
//! Crates a Linux or macOS build of the program does not compile (other platforms, the tests and
//! benchmarks, the live preview) are carried as stubs: their `Cargo.toml` and an empty library,
//! so that cargo resolves the same Cargo.lock. Which ones is pinned by `data/vendor.json`.
//!
//! The vendored part depends only on Cargo.lock, the plan, the bundle's folder name and its
//! timestamp, so it is made once (compressed at the best level) into a zip fragment kept in
//! `data/crates/`, which each bundle copies raw, in one block, as its first entries; the block's
//! SHA-256 state is computed on a second core while the build verifies its inputs, and the
//! bundle's digest continues from it.

pub mod crates;
pub mod fragment;
pub mod lock;

pub use crates::CrateSources;
pub use fragment::{fragment, Block, Fragment};
pub use lock::{locked_crates, LockedCrate};

pub use ratios_model::project::vendor_plan::{Plan, PLAN_PATH};
/// Folder of the vendored crates inside the bundle.
pub(crate) const VENDOR_DIR: &str = "vendor";
/// Default crate cache, relative to the project root.
pub const DEFAULT_CRATE_CACHE: &str = "data/crates";
/// The cargo configuration the bundle carries.
pub(crate) const CARGO_CONFIG_PATH: &str = ".cargo/config.toml";
pub(crate) const CARGO_CONFIG: &str =
    include_str!("../../../../templates/bundle/cargo-config.toml");
