//! The pipeline's error type: every failure is one line naming the file, the row or field, and what
//! was expected, so a reader can act on it without a backtrace. Each kind of failure has its own
//! variant; its `Display` is the line the user sees (after `error: `).

use std::path::PathBuf;

/// Any failure of a pipeline stage.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: {source}", crate::text::path(path))]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: {message}")]
    Manifest { file: String, message: String },
    /// Standard output could not be written (full, or closed by its reader).
    #[error("standard output: {0}")]
    Stdout(std::io::Error),
    #[error("{file}: input `{name}` {what} mismatch: expected {expected}, got {actual}")]
    Mismatch {
        file: String,
        name: String,
        what: &'static str,
        expected: String,
        actual: String,
    },
    #[error("{}: mirror folder does not exist (given by --mirror or UPSTREAM_MIRROR)", crate::text::path(.0))]
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
    /// An input the build could not get from any of the three places it looks: `reason` says
    /// what failed, and the line ends with the ways to provide it.
    #[error("input `{name}`: {reason}; {INPUT_SOURCES}")]
    Unavailable { name: String, reason: String },
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
    /// The command line asks for something this command cannot do (a missing default, a build
    /// without a feature, a size over its limit); `context` names the command or option.
    #[error("{context}: {message}")]
    Usage { context: String, message: String },
    /// A folder that is not this project: `--root` names another, or none is found upward.
    #[error("{}: {}", crate::text::path(path), if *.searched_upward { NO_PROJECT_ABOVE } else { NOT_THE_PROJECT })]
    NotAProject {
        path: PathBuf,
        searched_upward: bool,
    },
    /// An Askama template that fails to render; `template` names it.
    #[error("{template}: {message}")]
    Template { template: String, message: String },
    /// A value that cannot be written in its file's format (JSON, CSV).
    #[error("{file}: {message}")]
    Serialise { file: String, message: String },
    /// A Result (tokens/s) of a summary (`file`, summary.csv for v6.1) that is not a positive
    /// finite number in range; `field` is the summary's name for it.
    #[error("{file} row {row}, field {field}: {message}")]
    BadResult {
        file: String,
        row: String,
        field: String,
        message: String,
    },
    /// A summary that does not hold exactly one round of results.
    #[error("{file}: {message}")]
    Summary { file: String, message: String },
    /// A highlight the analysis holds no pair for; `context` names what needed it.
    #[error("{context}: highlight {highlight} has no pair")]
    NoPair {
        context: &'static str,
        highlight: String,
    },
    /// A project source file the bundle cannot carry (too large, unreadable, outside the project).
    #[error("{file}: {message}")]
    Source { file: String, message: String },
    /// A time the zip entries cannot be stamped with: why, and the range a zip can store.
    #[error("SOURCE_DATE_EPOCH: {epoch} {why}; {range}")]
    ZipTime {
        epoch: i64,
        why: &'static str,
        range: &'static str,
    },
    /// The reproducibility bundle or its vendored fragment cannot be written as it must be.
    #[error("{file}: {message}")]
    Bundle { file: String, message: String },
    /// An output file set that cannot be written or read back as built; `path` names the file
    /// or folder.
    #[error("{path}: {message}")]
    Output { path: String, message: String },
    /// The build's own checks of its output failed; each entry is `rule (detail)`.
    #[error("validation: {} check(s) failed: {}", .0.len(), .0.join("; "))]
    ValidationFailed(Vec<String>),
    /// A worker thread of the build that ended without an answer; `task` names its work.
    #[error("{task}: the worker thread failed")]
    WorkerFailed { task: &'static str },
    /// The live preview cannot start, listen or watch.
    #[error("{context}: {message}")]
    Serve { context: String, message: String },
    /// `synth` cannot lay out its inputs for this project.
    #[error("synth: {0}")]
    Synth(String),
    /// The author's key could not sign: `file` is the key file.
    #[error("{file}: {message}")]
    Signing { file: String, message: String },
    /// The one problem `verify` found, as its own line.
    #[error("{0}")]
    Verify(String),
    /// Several problems `verify` found (each already printed as its own line), counted.
    #[error("{path}: {count} problems")]
    VerifyProblems { path: String, count: usize },
    /// A request the tool refuses because following it could lose data.
    #[error("{}: {message}", crate::text::path(path))]
    Refused { path: PathBuf, message: String },
}

impl Error {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    pub fn parse(
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
}

/// The three ways the build gets an input, as an error line names them.
pub(crate) const INPUT_SOURCES: &str = "provide it through a mirror of the upstream files (--mirror DIR or UPSTREAM_MIRROR=DIR; ../shared/upstream beside the project is used when it exists), a cache folder holding a verified copy (--cache DIR), or a download over HTTPS (network access, without --offline)";

/// Why `--root` names a folder that is not this project.
const NOT_THE_PROJECT: &str = concat!(
    "is not the ",
    "scenario-ratios",
    " project (no Cargo.toml naming it); run from the project folder or give --root"
);
/// Why no project is found upward from the current folder.
const NO_PROJECT_ABOVE: &str = concat!(
    "neither this folder nor any above it holds the ",
    "scenario-ratios",
    " project's Cargo.toml; run from the project folder or give --root"
);

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
