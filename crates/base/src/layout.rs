//! The layout of what a build publishes: the files of the output folder, the folders of the
//! reproducibility bundle, and the project's own source that the bundle carries. The pipeline,
//! the build's own checks and the reader's `verify` all name files through this module.

use std::path::{Component, Path};

use crate::error::{Error, Result};

/// One file of the output folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum OutputFile {
    /// `article.html`: the article, one self-contained page with its figures inline.
    Article,
    /// The article's companion page: its long tables.
    DataPage,
    /// `results.json`: every count, pair, ratio and finding of the analysis, for each round.
    Results,
    /// `selected_rows.json`: the highlighted rows with every source field, typed and raw.
    SelectedRows,
    /// `pairs.csv`: every Server/Offline pair of every round, with its ratio and links.
    PairsCsv,
    /// `interactive_pairs.csv`: every Offline/Interactive pair of every round, likewise.
    InteractivePairsCsv,
    /// `scenario-ratios.svg`: figure 3, the highlighted pairs' bars, as a standalone file.
    FigureHighlights,
    /// `ratios-by-model.svg`: figure 6, every pair as one mark, as a standalone file.
    FigurePairs,
    /// `scenario-ratios-card.png`: the social card a shared link shows, 1200 × 630.
    Card,
    /// `CITATION.cff`: how to cite the article, in Citation File Format.
    Citation,
    /// `provenance.json`: every input with its pin and the hashes computed from its bytes.
    Provenance,
    /// `analysis.ipynb`: the walk-through notebook, a second implementation in Python.
    Notebook,
    /// `analysis.py`: the notebook's code cells as a script, for a reader without Jupyter.
    NotebookScript,
    /// `reproducibility.zip`: the inputs, the source, the vendored crates and the published
    /// files, to rebuild offline.
    Bundle,
    /// `qa/validation.json`: the report of the build's own checks of what it publishes.
    Validation,
    /// `SHA256SUMS`: the SHA-256 of every other published file, as `sha256sum` lists them.
    Sums,
    /// The author's minisign signature of SHA256SUMS: made after it, so neither it, the
    /// bundle nor the article lists it, and a rebuild never makes it (see [`OutputFile::ALL`]).
    Signature,
}

impl OutputFile {
    /// Every output file a build makes, in the order the downloads table lists them: the
    /// bundle and its checksum list first. The signature is not among them: only the author's
    /// release build makes one.
    pub const ALL: &'static [OutputFile] = &[
        OutputFile::Bundle,
        OutputFile::Sums,
        OutputFile::Results,
        OutputFile::PairsCsv,
        OutputFile::InteractivePairsCsv,
        OutputFile::SelectedRows,
        OutputFile::Provenance,
        OutputFile::Notebook,
        OutputFile::NotebookScript,
        OutputFile::FigureHighlights,
        OutputFile::FigurePairs,
        OutputFile::Card,
        OutputFile::Citation,
        OutputFile::Article,
        OutputFile::DataPage,
        OutputFile::Validation,
    ];

    /// The path inside the output folder.
    pub const fn path(self) -> &'static str {
        match self {
            OutputFile::Article => "article.html",
            OutputFile::DataPage => "data.html",
            OutputFile::Results => "results.json",
            OutputFile::SelectedRows => "selected_rows.json",
            OutputFile::PairsCsv => "pairs.csv",
            OutputFile::InteractivePairsCsv => "interactive_pairs.csv",
            OutputFile::FigureHighlights => "scenario-ratios.svg",
            OutputFile::FigurePairs => "ratios-by-model.svg",
            OutputFile::Card => "scenario-ratios-card.png",
            OutputFile::Provenance => "provenance.json",
            OutputFile::Notebook => "analysis.ipynb",
            OutputFile::NotebookScript => "analysis.py",
            OutputFile::Bundle => "reproducibility.zip",
            OutputFile::Validation => "qa/validation.json",
            OutputFile::Sums => "SHA256SUMS",
            OutputFile::Signature => "SHA256SUMS.minisig",
            OutputFile::Citation => "CITATION.cff",
        }
    }
}

impl OutputFile {
    /// Where the bundle carries a copy of this file, relative to its folder: the notebook and
    /// its script at the top (a reader runs them there), the other published files under
    /// [`PUBLISHED_DIR`]. The bundle cannot hold itself, nor what is made after it: the article
    /// (whose downloads table gives the bundle's SHA-256) and its data page, rendered with it,
    /// the validation report and the
    /// checksum list; a rebuild checks those against SHA256SUMS.
    pub fn in_bundle(self) -> Option<String> {
        match self {
            OutputFile::Bundle
            | OutputFile::Article
            | OutputFile::DataPage
            | OutputFile::Validation
            | OutputFile::Sums
            | OutputFile::Signature => None,
            OutputFile::Notebook | OutputFile::NotebookScript | OutputFile::Citation => {
                Some(self.path().to_string())
            }
            _ => Some(format!("{PUBLISHED_DIR}/{}", self.path())),
        }
    }
}

/// The folder every bundle entry sits in: `scenario-ratios-<version>`.
pub fn bundle_folder() -> String {
    format!("{}-{}", crate::PACKAGE, env!("CARGO_PKG_VERSION"))
}

/// The folder every bundle entry sits in, with its trailing `/`.
pub fn bundle_root() -> String {
    format!("{}/", bundle_folder())
}

/// Name of the inventory inside the bundle.
pub const INVENTORY: &str = "INVENTORY.sha256";
/// Folder of the published outputs inside the bundle.
pub const PUBLISHED_DIR: &str = "published";
/// Folder of the pinned inputs in the project and in the bundle: the build's cache, so a plain
/// `cargo run --release` in the unpacked folder finds them verified, with no mirror or network.
pub const INPUTS_DIR: &str = "data/upstream";
/// Where the input manifest sits in the project and in the bundle.
pub const MANIFEST: &str = "data/inputs.json";
/// The compact list of pinned LoadGen logs of the article's round that the manifest pins.
pub const LOG_LIST: &str = "data/loadgen-logs.json";
/// Where the manifest's lists of pinned logs may lie: `data/loadgen-logs.json` and, for other
/// rounds, `data/loadgen-logs-<round>.json`.
pub const LOG_LISTS: &str = "data/loadgen-logs*.json";

/// Whether `path` is one of the places [`LOG_LISTS`] allows.
pub fn is_log_list(path: &str) -> bool {
    path.strip_prefix("data/loadgen-logs")
        .and_then(|rest| rest.strip_suffix(".json"))
        .is_some_and(|round| {
            round.is_empty()
                || round.strip_prefix('-').is_some_and(|r| {
                    !r.is_empty()
                        && r.chars()
                            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
                })
        })
}

/// Files and folders of the project that the bundle carries (what a rebuild needs). The
/// bundle has its own README, written for its reader.
pub const SOURCE_PATHS: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "askama.toml",
    "crates",
    "src",
    "benches",
    "examples",
    "templates",
    "content",
    "data/inputs.json",
    "data/loadgen-logs.json",
    "data/loadgen-logs-v5.1.json",
    "data/rounds.json",
    "data/vendor.json",
    "sources",
    "tests/notebook",
];

/// True for a file or folder name that editors and tools leave beside the sources and that the
/// bundle never carries: hidden names (`.ipynb_checkpoints`, `.DS_Store`, `.article.md.swp`),
/// backups (`article.md~`, `#article.md#`) and Python's caches (`__pycache__`, `*.pyc`).
pub fn is_scratch(name: &str) -> bool {
    name.starts_with('.')
        || name.ends_with('~')
        || (name.len() > 1 && name.starts_with('#') && name.ends_with('#'))
        || name == "__pycache__"
        || name.ends_with(".pyc")
}

/// The bundle's README, for a reader of the bundle.
pub const BUNDLE_README: &str = "README.md";

/// Longest entry path the bundle may hold (it unpacks under Windows' 260-character limit).
pub(crate) const MAX_BUNDLE_PATH: usize = 160;

/// An entry path the bundle may hold: relative, normalised, and short enough to unpack anywhere.
pub fn check_entry_path(name: &str) -> Result<()> {
    if is_safe_relative(name) && name.len() <= MAX_BUNDLE_PATH {
        Ok(())
    } else {
        Err(Error::Bundle {
            file: OutputFile::Bundle.path().into(),
            message: format!(
                "entry path {name:?} is unsafe or longer than {MAX_BUNDLE_PATH} characters"
            ),
        })
    }
}

/// `path` relative to `dir`, `/`-separated (empty when `path` is not under `dir`).
pub fn relative(dir: &Path, path: &Path) -> String {
    path.strip_prefix(dir)
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .unwrap_or_default()
}

/// True when `p` is a relative, normalised, `/`-separated path: no empty, `.` or `..` component,
/// no leading or trailing `/`, no backslash and no control character.
pub fn is_safe_relative(p: &str) -> bool {
    !p.is_empty()
        && !p.starts_with('/')
        && !p.ends_with('/')
        && !p.contains('\\')
        && !p.chars().any(char::is_control)
        && p.split('/').all(|c| !c.is_empty() && c != "." && c != "..")
        && Path::new(p)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_names_are_those_tools_leave_behind() {
        for name in [
            ".ipynb_checkpoints",
            ".DS_Store",
            ".article.md.swp",
            "article.md~",
            "#article.md#",
            "__pycache__",
            "imports.cpython-311.pyc",
        ] {
            assert!(is_scratch(name), "{name}");
        }
        for name in [
            "article.md",
            "analysis.ipynb",
            "#",
            "a#b",
            "py.rs",
            "pycache",
        ] {
            assert!(!is_scratch(name), "{name}");
        }
    }

    #[test]
    fn only_normalised_relative_paths_are_safe() {
        assert!(is_safe_relative("closed/a/b.txt"));
        for bad in [
            "",
            "../x",
            "/etc/passwd",
            "a/../../b",
            "./a",
            "a//b",
            "a/",
            "a\\b",
            "C:\\x",
            "a/./b",
            "a\nb",
        ] {
            assert!(!is_safe_relative(bad), "{bad:?}");
        }
    }

    #[test]
    fn output_paths_are_unique_and_safe() {
        let mut paths: Vec<_> = OutputFile::ALL.iter().map(|f| f.path()).collect();
        assert!(paths.iter().all(|p| is_safe_relative(p)));
        paths.sort_unstable();
        paths.dedup();
        assert_eq!(paths.len(), OutputFile::ALL.len());
    }
}
