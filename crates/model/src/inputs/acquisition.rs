//! Acquisition: each pinned input from the verified cache, else the mirror, else a download,
//! checked against its pin before use and stored in the cache once verified.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use super::cache::{claim_cache, CACHE_MARKER};
use super::manifest::{single, InputKind, InputManifest, PinnedInput};
use ratios_base::digest::HexDigest;
use ratios_base::error::{Error, Result};
use ratios_base::fetch::{self, Found};

/// Default folder of the verified cache, relative to the project root (the bundle's layout).
pub const DEFAULT_CACHE: &str = ratios_base::layout::INPUTS_DIR;

/// Default mirror, used only when the folder exists.
pub const DEFAULT_MIRROR: &str = "../shared/upstream";

/// Where an input's verified bytes came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Read from the verified cache, at this path.
    Cache(PathBuf),
    /// Read from the local mirror, at this path, then stored in the cache.
    Mirror(PathBuf),
    /// Downloaded from this URL (the pinned one, or its rewrite onto `download_base`), then stored
    /// in the cache.
    Download(String),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Cache(p) => write!(f, "cache {}", p.display()),
            Origin::Mirror(p) => write!(f, "mirror {}", p.display()),
            Origin::Download(u) => write!(f, "download {u}"),
        }
    }
}

/// An input whose bytes matched its pin.
#[derive(Debug, Clone)]
pub struct VerifiedInput {
    /// The manifest's pin the bytes matched.
    pub pin: PinnedInput,
    /// The file's verified bytes.
    pub bytes: Vec<u8>,
    /// Where the bytes were read from.
    pub origin: Origin,
    /// SHA-256 computed from `bytes` (equal to the pin's).
    pub sha256: HexDigest,
    /// git blob SHA-1 computed from `bytes` (equal to the pin's).
    pub git_blob_sha1: HexDigest,
}

impl VerifiedInput {
    /// Checks `bytes` against `pin` and keeps the digests computed on the way.
    pub fn new(pin: PinnedInput, bytes: Vec<u8>, origin: Origin, file: &Path) -> Result<Self> {
        let (sha256, git_blob_sha1) = pin.verify(file, &bytes)?;
        Ok(VerifiedInput {
            pin,
            bytes,
            origin,
            sha256,
            git_blob_sha1,
        })
    }
}

/// Every pinned input, verified, in manifest order.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// The manifest the inputs were acquired from, its lists' files included.
    pub manifest: InputManifest,
    /// Every pinned input, verified, in manifest order.
    pub files: Vec<VerifiedInput>,
}

impl Inputs {
    /// The verified inputs of `kind`, in manifest order.
    pub fn of_kind(&self, kind: InputKind) -> impl Iterator<Item = &VerifiedInput> {
        self.files.iter().filter(move |f| f.pin.kind == kind)
    }

    /// The single input of `kind` (summary CSV, summary JSON, licence).
    pub fn single(&self, kind: InputKind) -> Result<&VerifiedInput> {
        single(self.of_kind(kind), kind)
    }

    /// The input the manifest names `name` (as `data/rounds.json` names a round's summary).
    pub fn named(&self, name: &str) -> Result<&VerifiedInput> {
        self.files
            .iter()
            .find(|f| f.pin.name == name)
            .ok_or_else(|| ratios_base::error::Error::Manifest {
                file: crate::inputs::MANIFEST_PATH.into(),
                message: format!(
                    "pins no input named {}, which data/rounds.json reads a round's summary from",
                    ratios_base::text::quoted(name, 200)
                ),
            })
    }
}

/// Where to look for inputs.
#[derive(Debug, Clone)]
pub struct AcquireOptions {
    /// The verified cache folder: where inputs are looked for first, and stored once verified.
    pub cache_dir: PathBuf,
    /// A local mirror; `None` skips the mirror step.
    pub mirror: Option<PathBuf>,
    /// Replaces the `https://<host>` part of pinned URLs (tests point it at 127.0.0.1).
    pub download_base: Option<String>,
    /// When false, an input that is neither cached nor mirrored is an error instead of a download.
    pub allow_download: bool,
    /// The cache is the project's own `data/upstream/` (git-ignored, made by this tool, or
    /// unzipped with the bundle): it is used even without [`CACHE_MARKER`], but then never
    /// marked, and an entry in it that fails its pin is left as it is (see `claim_cache`).
    pub own_cache: bool,
}

impl AcquireOptions {
    /// The defaults for the project at `root`: its own cache `data/upstream/`, the mirror
    /// `../shared/upstream` beside it when that folder exists, downloads allowed.
    pub fn for_project(root: &Path) -> AcquireOptions {
        let mirror = root.join(DEFAULT_MIRROR);
        AcquireOptions {
            cache_dir: root.join(DEFAULT_CACHE),
            mirror: mirror.is_dir().then_some(mirror),
            download_base: None,
            allow_download: true,
            own_cache: true,
        }
    }
}

/// Acquires and verifies every input of `manifest`.
pub fn acquire(manifest: InputManifest, opts: &AcquireOptions) -> Result<Inputs> {
    if let Some(m) = &opts.mirror {
        if !m.is_dir() {
            return Err(Error::MirrorMissing(m.clone()));
        }
    }
    let ours = claim_cache(&opts.cache_dir, opts.own_cache)?;
    let files = manifest
        .inputs
        .iter()
        .map(|pin| acquire_one(pin, opts, ours))
        .collect::<Result<Vec<_>>>()?;
    Ok(Inputs { manifest, files })
}

/// One input: from the cache, else the mirror, else a download. `ours` says the tool filled
/// the cache folder, so a damaged entry there may be removed and acquired again; otherwise it is
/// left as it is and the build stops.
fn acquire_one(pin: &PinnedInput, opts: &AcquireOptions, ours: bool) -> Result<VerifiedInput> {
    let cached = opts.cache_dir.join(pin.cache_path());
    fetch::remove_stale_partials(&cached);
    // A cache entry is only ever written verified, so one that fails its pin (size or hashes)
    // was changed or damaged since: drop it and acquire the input again.
    let damaged = match read_pinned(&cached, pin, CACHE_REMEDY) {
        Ok(Some(bytes)) => {
            match VerifiedInput::new(pin.clone(), bytes, Origin::Cache(cached.clone()), &cached) {
                Ok(input) => return Ok(input),
                Err(e) => Some(e),
            }
        }
        Ok(None) => None,
        Err(e @ Error::Mismatch { .. }) => Some(e),
        Err(e) => return Err(e),
    };
    if let Some(e) = damaged {
        if !ours {
            return Err(Error::DamagedNotOurs {
                mismatch: Box::new(e),
                marker: CACHE_MARKER,
            });
        }
        ratios_base::note!(
            "warning: {}; removed the cache entry, acquiring it again",
            ratios_base::text::escaped(&e.to_string())
        );
        fs::remove_file(&cached).map_err(|e| Error::io(&cached, e))?;
    }
    if let Some(mirror) = &opts.mirror {
        let mirrored = mirror.join(pin.mirror_path());
        if let Some(bytes) = read_pinned(&mirrored, pin, "remove it or point the mirror elsewhere")?
        {
            let input = VerifiedInput::new(
                pin.clone(),
                bytes,
                Origin::Mirror(mirrored.clone()),
                &mirrored,
            )?;
            fetch::store(&cached, &input.bytes)?;
            return Ok(input);
        }
    }
    let nowhere = || {
        format!(
            "not in the cache ({}){}",
            cached.display(),
            match &opts.mirror {
                Some(m) => format!(" nor in the mirror {}", m.display()),
                None => " and no mirror is given".to_string(),
            }
        )
    };
    if !opts.allow_download {
        return Err(Error::Unavailable {
            name: pin.name.clone(),
            reason: format!("{} and downloads are disabled", nowhere()),
        });
    }
    let url = download_url(pin, opts.download_base.as_deref());
    let bytes =
        fetch::download(&url, pin.size, opts.download_base.is_some()).map_err(|e| match e {
            Error::Download { .. } => Error::Unavailable {
                name: pin.name.clone(),
                reason: format!("{}, and {e}", nowhere()),
            },
            e => e,
        })?;
    let input = VerifiedInput::new(
        pin.clone(),
        bytes,
        Origin::Download(url.clone()),
        Path::new(&url),
    )?;
    fetch::store(&cached, &input.bytes)?;
    Ok(input)
}

/// The bytes at `path` when it exists, read only after its size matched the pin and through a
/// cap. A path that exists but is not a regular file (after following a symbolic link) is an
/// error naming it and its `remedy` (which differs between the cache and the mirror); a missing
/// path is `None`.
fn read_pinned(path: &Path, pin: &PinnedInput, remedy: &str) -> Result<Option<Vec<u8>>> {
    match fetch::read_expected(path, pin.size).map_err(|e| Error::io(path, e))? {
        Found::Missing => Ok(None),
        Found::Bytes(b) => Ok(Some(b)),
        Found::NotAFile => Err(Error::Acquire {
            name: pin.name.clone(),
            message: format!(
                "{} exists but is not a regular file; {remedy}",
                ratios_base::text::path(path),
            ),
        }),
        Found::WrongSize(actual) => Err(Error::Mismatch {
            file: path.display().to_string(),
            name: pin.name.clone(),
            what: "size",
            expected: format!("{} bytes", pin.size),
            actual: format!("{actual} bytes"),
        }),
    }
}

/// What to do about a cache entry that is not a regular file.
const CACHE_REMEDY: &str = "remove it from the cache (scenario-ratios stores only regular files there, and acquires the input again)";

/// The pinned URL, with its scheme and host replaced by `base` when given.
pub fn download_url(pin: &PinnedInput, base: Option<&str>) -> String {
    match base {
        None => pin.url.clone(),
        Some(base) => {
            let after_scheme = pin.url.trim_start_matches("https://");
            let path = after_scheme.find('/').map_or("", |i| &after_scheme[i..]);
            format!("{}{}", base.trim_end_matches('/'), path)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn download_base_replaces_scheme_and_host() {
        let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join(crate::inputs::MANIFEST_PATH);
        let m = InputManifest::parse(
            crate::inputs::MANIFEST_PATH,
            &fs::read_to_string(path).unwrap(),
        )
        .unwrap();
        let pin = &m.inputs[0];
        let url = download_url(pin, Some("http://127.0.0.1:9/"));
        assert!(url.starts_with("http://127.0.0.1:9/mlcommons/inference_results_v6.1/"));
        assert!(url.ends_with("/summary.csv"));
    }
}
