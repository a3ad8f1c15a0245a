//! The pipeline's error type: every failure is one line naming the file, the row or field, and what
//! was expected, so a reader can act on it without a backtrace. Each kind of failure has its own
//! variant; its `Display` is the line the user sees (after `error: `).

use std::path::PathBuf;

/// Any failure of a pipeline stage.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file or folder that cannot be read, written, listed or removed.
    #[error("{}: {source}", crate::text::path(path))]
    Io {
        /// The file or folder the operation was on, as the line prints it.
        path: PathBuf,
        /// What the operating system answered.
        #[source]
        source: std::io::Error,
    },
    /// An input manifest (`data/inputs.json`) that does not parse, or pins no input, or several,
    /// where the build needs exactly one.
    #[error("{file}: {message}")]
    Manifest {
        /// The manifest's path, relative to the project.
        file: String,
        /// What is wrong with it.
        message: String,
    },
    /// Standard output could not be written (full, or closed by its reader).
    #[error("standard output: {0}")]
    Stdout(std::io::Error),
    /// Bytes that fail their pin: an input against `data/inputs.json`, or a vendored crate's
    /// archive against the checksum Cargo.lock records.
    #[error("{file}: input `{name}` {what} mismatch: expected {expected}, got {actual}")]
    Mismatch {
        /// Where the bytes came from: a file of the mirror or the cache, or a download's URL.
        file: String,
        /// The pinned input's name in the manifest, or the crate's `name version`.
        name: String,
        /// Which property differs: `size`, `SHA-256` or `git blob SHA-1`.
        what: &'static str,
        /// The value the pin records, as the line prints it (`N bytes`, or hexadecimal).
        expected: String,
        /// The value the bytes have, printed the same way.
        actual: String,
    },
    /// The mirror folder given by `--mirror` or `UPSTREAM_MIRROR`, which does not exist.
    #[error("{}: mirror folder does not exist (given by --mirror or UPSTREAM_MIRROR)", crate::text::path(.0))]
    MirrorMissing(PathBuf),
    /// An input or a vendored crate that cannot be taken from where it was looked for (a path
    /// that is not a regular file, an archive not cached while downloads are off).
    #[error("input `{name}`: {message}")]
    Acquire {
        /// The input's name in the manifest, or `crate name version` for a vendored crate.
        name: String,
        /// What failed and how to mend it.
        message: String,
    },
    /// A cache entry that fails its pin, in a folder whose files the tool did not write.
    #[error("{mismatch}; left as it is, since scenario-ratios did not fill this folder (no {marker} inside): restore the file, or remove it to have the pinned copy acquired again")]
    DamagedNotOurs {
        /// The entry's failure of its pin (an [`Error::Mismatch`]).
        mismatch: Box<Error>,
        /// The marker file whose absence shows that the tool did not fill the folder.
        marker: &'static str,
    },
    /// A download with `curl` that failed: curl missing, an HTTP error, a body over its limit.
    #[error("{url}: download failed: {message}")]
    Download {
        /// The URL asked for, shortened to 200 characters.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// An input the build could not get from any of the three places it looks: `reason` says
    /// what failed, and the line ends with the ways to provide it.
    #[error("input `{name}`: {reason}; {INPUT_SOURCES}")]
    Unavailable {
        /// The input's name in the manifest.
        name: String,
        /// Why the last place tried could not provide it.
        reason: String,
    },
    /// An upstream summary whose text does not parse as its format requires.
    #[error("{file}: {location}: {message}")]
    Parse {
        /// The summary file, as the line names it.
        file: String,
        /// Where in the file: `line N (row I)`, or the rows and field concerned.
        location: String,
        /// What was expected there.
        message: String,
    },
    /// A cell on which a round's summary.csv and summary.json disagree.
    #[error("{0}")]
    Disagree(Box<Disagreement>),
    /// A project file the build reads its settings from (`data/rounds.json`,
    /// `content/article.json`, `sources/claims.json` and the like) that is invalid or
    /// contradicts the data.
    #[error("{file}: {message}")]
    Config {
        /// The project file, relative to the project.
        file: String,
        /// What is wrong in it.
        message: String,
    },
    /// The command line asks for something this command cannot do (a missing default, a build
    /// without a feature, a size over its limit); `context` names the command or option.
    #[error("{context}: {message}")]
    Usage {
        /// The command or option at fault, such as `verify` or `synth --rows`.
        context: String,
        /// What it cannot do, and what it accepts.
        message: String,
    },
    /// A folder that is not this project: `--root` names another, or none is found upward.
    #[error("{}: {}", crate::text::path(path), if *.searched_upward { NO_PROJECT_ABOVE } else { NOT_THE_PROJECT })]
    NotAProject {
        /// The folder given by `--root`, or the one the upward search started from.
        path: PathBuf,
        /// Whether no `--root` was given and the folders above `path` were searched too.
        searched_upward: bool,
    },
    /// An Askama template that fails to render; `template` names it.
    #[error("{template}: {message}")]
    Template {
        /// The template's path, such as `templates/bundle/README.md`.
        template: String,
        /// Askama's error, as it reports it.
        message: String,
    },
    /// A value that cannot be written in its file's format (JSON, CSV).
    #[error("{file}: {message}")]
    Serialise {
        /// The file being written, as published (`provenance.json`, `ro-crate-metadata.json`).
        file: String,
        /// The serialiser's error.
        message: String,
    },
    /// A Result (tokens/s) of a summary (`file`, summary.csv for v6.1) that is not a positive
    /// finite number in range; `field` is the summary's name for it.
    #[error("{file} row {row}, field {field}: {message}")]
    BadResult {
        /// The summary the row is read from.
        file: String,
        /// The row's ID: its key in summary.json, its 0-based position in the CSV.
        row: String,
        /// The summary's name for the Result field.
        field: String,
        /// What the text holds instead of a Result in range.
        message: String,
    },
    /// A summary that does not hold exactly one round of results.
    #[error("{file}: {message}")]
    Summary {
        /// The summary file.
        file: String,
        /// How it holds other than one round (no row, or rows of several).
        message: String,
    },
    /// A highlight the analysis holds no pair for; `context` names what needed it.
    #[error("{context}: highlight {highlight} has no pair")]
    NoPair {
        /// What needed the pair: `figure 3`, `highlights`.
        context: &'static str,
        /// The highlight's id or label, as `content/article.json` names it.
        highlight: String,
    },
    /// A project source file the bundle cannot carry (too large, unreadable, outside the project).
    #[error("{file}: {message}")]
    Source {
        /// The source file or folder, as the walk of the project found it.
        file: String,
        /// Why it cannot be carried.
        message: String,
    },
    /// A time the zip entries cannot be stamped with: why, and the range a zip can store.
    #[error("SOURCE_DATE_EPOCH: {epoch} {why}; {range}")]
    ZipTime {
        /// The time asked for, in Unix seconds (UTC), from `SOURCE_DATE_EPOCH` or the build.
        epoch: i64,
        /// Why a zip cannot store it: outside the zip date range, or an odd number of seconds.
        why: &'static str,
        /// The times a zip can store, in dates and in Unix seconds.
        range: &'static str,
    },
    /// The reproducibility bundle or its vendored fragment cannot be written as it must be.
    #[error("{file}: {message}")]
    Bundle {
        /// The zip or fragment at fault: its path, or `vendor fragment`.
        file: String,
        /// What cannot be written or does not read back.
        message: String,
    },
    /// An output file set that cannot be written or read back as built; `path` names the file
    /// or folder.
    #[error("{path}: {message}")]
    Output {
        /// The file's path in the published set, or the output folder or file on disk.
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// The build's own checks of its output failed; each entry is `rule (detail)`.
    #[error("validation: {} check(s) failed: {}", .0.len(), .0.join("; "))]
    ValidationFailed(Vec<String>),
    /// A worker thread of the build that ended without an answer; `task` names its work.
    #[error("{task}: the worker thread failed")]
    WorkerFailed {
        /// What the thread was doing, as the line names it.
        task: &'static str,
    },
    /// The live preview cannot start, listen or watch.
    #[error("{context}: {message}")]
    Serve {
        /// What failed: `serve`, or the folder that cannot be watched.
        context: String,
        /// The failure, with the system's error.
        message: String,
    },
    /// `synth` cannot lay out its inputs for this project.
    #[error("synth: {0}")]
    Synth(String),
    /// The author's key could not sign: `file` is the key file.
    #[error("{file}: {message}")]
    Signing {
        /// The secret key file's path.
        file: String,
        /// Why it cannot sign, and what to do.
        message: String,
    },
    /// The one problem `verify` found, as its own line.
    #[error("{0}")]
    Verify(String),
    /// Several problems `verify` found (each already printed as its own line), counted.
    #[error("{path}: {count} problems")]
    VerifyProblems {
        /// The folder or bundle verified, as the command line gave it.
        path: String,
        /// How many problems were printed.
        count: usize,
    },
    /// A request the tool refuses because following it could lose data.
    #[error("{}: {message}", crate::text::path(path))]
    Refused {
        /// The folder the request would write into or replace (the output, a cache, `synth`'s).
        path: PathBuf,
        /// Why it is refused, and what to do instead.
        message: String,
    },
}

impl Error {
    /// An [`Error::Io`] for the operation on `path` that failed with `source`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// An [`Error::Parse`] in the summary `file`, at `location` (`line N`), saying `message`.
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
    /// The round's summary.csv, as the line names it.
    pub csv_file: String,
    /// The round's summary.json, as the line names it.
    pub json_file: String,
    /// The row's ID: its key in the JSON, its 0-based position in the CSV.
    pub row: String,
    /// The field's name in the summary's header.
    pub field: String,
    /// Each value as the line shows it: quoted, excerpted, invisible characters escaped.
    pub csv: String,
    /// The JSON's value, shown the same way (a non-string value as JSON writes it).
    pub json: String,
    /// Why two values that print alike differ (empty when they do not print alike).
    pub hint: String,
}

/// Result alias of the pipeline.
pub type Result<T, E = Error> = std::result::Result<T, E>;
