//! The verified input cache (`data/upstream/` by default): a folder the tool writes in only when
//! it is new, empty, marked as the tool's, or the project's own.

use std::path::Path;

use ratios_base::error::Result;
use ratios_base::ownership::{claim, Ownership};

/// The file that marks a folder as this tool's input cache. The build writes and removes files
/// only in a cache folder that is new, empty, marked, or the project's own.
pub const CACHE_MARKER: &str = ".scenario-ratios-cache";

/// Checks that the cache folder `dir` is the tool's to write in (see [`CACHE_MARKER`]), and marks
/// it when it is new or empty; `own_cache` says it is the project's own `data/upstream/`. True when the tool filled the folder, so an entry that fails its pin
/// may be removed: false for the project's own cache when it holds files but no marker, as an
/// unzipped bundle's `data/upstream/` does (those files are the reader's).
pub(super) fn claim_cache(dir: &Path, own_cache: bool) -> Result<bool> {
    let state = claim(
        dir,
        CACHE_MARKER,
        "This folder is the verified input cache of scenario-ratios; entries that fail their pin are removed and acquired again.\n",
        |state| match state {
            Ownership::Foreign if !own_cache => Some(format!(
                "is a folder that scenario-ratios did not make as its input cache (no {CACHE_MARKER} inside) and is not empty; refusing to write or remove files in it (give a new or empty folder as --cache)"
            )),
            Ownership::NotAFolder => {
                Some("is not a folder; give a folder for the input cache (--cache)".into())
            }
            _ => None,
        },
    )?;
    Ok(state != Ownership::Foreign)
}
