//! Acquire every pinned upstream input and verify it.
//!
//! The committed manifest (`data/inputs.json`, [`manifest`]) pins each input by repository,
//! commit, path, size, SHA-256 and git blob SHA-1. An input is taken from the verified cache
//! (`data/upstream/`, [`cache`]), else from a local mirror laid out as `<owner>/<repo>/<path>`,
//! else downloaded from its pinned HTTPS URL ([`acquisition`]). Every copy is checked
//! before use; a mismatch is a hard error naming the file and both hashes.

pub mod acquisition;
pub mod cache;
pub mod manifest;

pub use acquisition::{acquire, download_url, AcquireOptions, Inputs, Origin, VerifiedInput};
pub use acquisition::{DEFAULT_CACHE, DEFAULT_MIRROR};
pub use cache::CACHE_MARKER;
pub use manifest::{InputKind, InputManifest, PinnedInput, MANIFEST_PATH, MAX_INPUT_BYTES};
