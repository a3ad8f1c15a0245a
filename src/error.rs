//! The pipeline's error type: every failure is one line naming the file, the row or field, and what
//! was expected, so a reader can act on it without a backtrace.

use std::path::PathBuf;

/// Any failure of a pipeline stage.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: {message}")]
    Manifest { file: String, message: String },
    #[error("{file}: input `{name}` {what} mismatch: expected {expected}, got {actual}")]
    Mismatch {
        file: String,
        name: String,
        what: &'static str,
        expected: String,
        actual: String,
    },
    #[error("{}: mirror folder does not exist (given by --mirror or UPSTREAM_MIRROR)", .0.display())]
    MirrorMissing(PathBuf),
    #[error("input `{name}`: {message}")]
    Acquire { name: String, message: String },
    /// A cache entry that fails its pin, in a folder whose files the tool did not write.
    #[error("{mismatch}; left as it is, since scenario-ratios did not fill this folder (no {marker} inside): restore the file, or remove it to have the pinned copy acquired again")]
    DamagedNotOurs {
        mismatch: Box<Error>,
        marker: &'static str,
    },
    #[error("{url}: download failed: {message}")]
    Download { url: String, message: String },
    #[error("{file}: {location}: {message}")]
    Parse {
        file: String,
        location: String,
        message: String,
    },
    #[error("{0}")]
    Disagree(Box<Disagreement>),
    #[error("{file}: {message}")]
    Config { file: String, message: String },
    #[error("{context}: {message}")]
    Invalid { context: String, message: String },
    /// The one problem `verify` found, as its own line.
    #[error("{0}")]
    Verify(String),
    /// A request the tool refuses because following it could lose data.
    #[error("{}: {message}", path.display())]
    Refused { path: PathBuf, message: String },
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn parse(
        file: impl Into<String>,
        location: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Error::Parse {
            file: file.into(),
            location: location.into(),
            message: message.into(),
        }
    }

    pub fn invalid(context: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Invalid {
            context: context.into(),
            message: message.into(),
        }
    }
}

/// A cell on which summary.csv and summary.json disagree.
#[derive(Debug, thiserror::Error)]
#[error(
    "{csv_file} vs {json_file}: row {row}, field `{field}`: CSV has {csv}, JSON has {json}{hint}"
)]
pub struct Disagreement {
    pub csv_file: String,
    pub json_file: String,
    pub row: String,
    pub field: String,
    /// Each value as the line shows it: quoted, excerpted, invisible characters escaped.
    pub csv: String,
    pub json: String,
    /// Why two values that print alike differ (empty when they do not print alike).
    pub hint: String,
}

/// Result alias of the pipeline.
pub type Result<T, E = Error> = std::result::Result<T, E>;
