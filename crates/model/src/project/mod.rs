//! The project, loaded at run time from its root folder, as mdBook's `MDBook::load` and Zola's
//! `Site::new` do: the prose (`content/article.md`), the page settings (`content/article.json`),
//! the input manifest (`data/inputs.json`), the vendoring plan (`data/vendor.json`), the
//! checker facts (`sources/mlperf-checker-facts.json`) and the claims register
//! (`sources/claims.json`). An edit to any of them is picked up by the next build of the same
//! binary; only the Askama templates are compiled in.
//!
//! The root is the folder given with `--root`, else the nearest folder, upward from the current
//! one, holding this project's `Cargo.toml` (the way cargo finds its manifest).

pub mod claims;
pub mod config;
pub mod facts;
pub mod rounds;
pub mod vendor_plan;

use std::fs;
use std::path::{Path, PathBuf};

use crate::inputs::{InputManifest, MANIFEST_PATH};
use claims::{ClaimRegister, CLAIMS_PATH};
use config::{ArticleConfig, CONFIG_PATH};
use facts::{CheckerFacts, FACTS_PATH};
use ratios_base::error::{Error, Result};
use vendor_plan::{Plan, PLAN_PATH};

/// Where the prose lives in the project.
pub const PROSE_PATH: &str = "content/article.md";
/// Where the data page's prose lives in the project.
pub const DATA_PROSE_PATH: &str = "content/data.md";

/// Largest project file read (the real ones are a few kB).
const MAX_PROJECT_FILE: u64 = 4 << 20;

/// Everything the build takes from the project folder.
#[derive(Debug, Clone)]
pub struct Project {
    /// The project's root folder, which every project file's path is relative to.
    pub root: PathBuf,
    /// The article's prose (`content/article.md`), its `{{...}}` placeholders not yet filled.
    pub prose: String,
    /// The data page's prose: its long tables, each under its heading.
    pub data_prose: String,
    /// The page settings and highlight selectors (`content/article.json`).
    pub config: ArticleConfig,
    /// The input manifest (`data/inputs.json`), with the files of its lists added.
    pub manifest: InputManifest,
    /// The submission checker's limits and targets (`sources/mlperf-checker-facts.json`).
    pub facts: CheckerFacts,
    /// The statements of fact the prose cites, each with its pinned source lines.
    pub claims: ClaimRegister,
    /// Which locked crates the bundle carries as stubs, and the platforms its offline rebuild
    /// covers (`data/vendor.json`).
    pub vendor_plan: Plan,
    /// The walk-through notebook, as stored (with its outputs).
    pub notebook: String,
    /// The rounds the article compares, its own first (`data/rounds.json`).
    pub rounds: rounds::Rounds,
}

impl Project {
    /// Loads the project at `root`. Each file's errors name it.
    pub fn load(root: &Path) -> Result<Project> {
        check_is_project(root)?;
        Ok(Project {
            root: root.to_path_buf(),
            prose: shown_as_written(PROSE_PATH, read_text(root, PROSE_PATH)?)?,
            data_prose: shown_as_written(DATA_PROSE_PATH, read_text(root, DATA_PROSE_PATH)?)?,
            config: ArticleConfig::parse(CONFIG_PATH, &read_text(root, CONFIG_PATH)?)?,
            manifest: load_manifest(root, MANIFEST_PATH, &read_text(root, MANIFEST_PATH)?)?,
            facts: CheckerFacts::parse(FACTS_PATH, &read_text(root, FACTS_PATH)?)?,
            claims: ClaimRegister::parse(CLAIMS_PATH, &read_text(root, CLAIMS_PATH)?)?,
            vendor_plan: Plan::parse(PLAN_PATH, &read_text(root, PLAN_PATH)?)?,
            notebook: read_text(root, crate::notebook::NOTEBOOK_PATH)?,
            rounds: rounds::Rounds::parse(
                rounds::ROUNDS_PATH,
                &read_text(root, rounds::ROUNDS_PATH)?,
            )?,
        })
    }

    /// This project with the input manifest read from `path` instead (`--manifest`).
    pub fn with_manifest_file(mut self, path: &Path) -> Result<Project> {
        let name = path.display().to_string();
        let text = read_text_file(path, &name)?;
        self.manifest = load_manifest(&self.root, &name, &text)?;
        Ok(self)
    }

    /// The files a build reads from the project, relative to the root (what `serve` watches).
    pub const WATCHED: &'static [&'static str] = &[
        "content",
        MANIFEST_PATH,
        ratios_base::layout::LOG_LIST,
        rounds::ROUNDS_PATH,
        "sources",
    ];
}

/// `text`, the prose of `name`, unless it holds a character that would make the page show
/// something other than what its words say: a bidirectional control or isolate (U+202E shows
/// the text after it reversed), or another invisible character. Refused as in the data and the
/// settings.
fn shown_as_written(name: &str, text: String) -> Result<String> {
    for (n, line) in text.lines().enumerate() {
        if let Some((column, c)) = ratios_base::text::first_invisible(line) {
            return Err(Error::Config {
                file: name.into(),
                message: format!(
                    "line {}, column {}: U+{:04X}, an invisible or bidirectional-control character, would make the page show something other than its text; remove it",
                    n + 1,
                    column + 1,
                    c as u32
                ),
            });
        }
    }
    Ok(text)
}

/// The input manifest `text` (read from `name`), with the files of its list, which is read from
/// the project at `root`.
fn load_manifest(root: &Path, name: &str, text: &str) -> Result<InputManifest> {
    let mut manifest = InputManifest::parse(name, text)?;
    for list in manifest.lists.clone() {
        let bytes = read_text(root, &list.path)?;
        manifest.add_list(name, &list.path, &list.path, bytes.as_bytes())?;
    }
    Ok(manifest)
}

/// Reads a project file as UTF-8, with a size cap; errors name the file relative to the root.
/// A project file that is a symbolic link is refused: the bundle carries regular files only, so a
/// reader's rebuild would not find it.
pub fn read_text(root: &Path, rel: &str) -> Result<String> {
    let path = root.join(rel);
    if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(symlink_refused(root, &path));
    }
    read_text_file(&path, rel)
}

/// The line for a symbolic link among the project's files (`path`, under `root`).
pub fn symlink_refused(root: &Path, path: &Path) -> Error {
    let rel = path.strip_prefix(root).unwrap_or(path);
    Error::Config {
        file: ratios_base::text::path(rel),
        message: "is a symbolic link; the reproducibility bundle carries regular files only, so a reader's rebuild would not find it (replace the link by a copy of the file or folder it points to)".into(),
    }
}

/// Reads the project file at `path` as UTF-8, with the same cap, without a leading byte-order
/// mark; errors name it as `name`.
pub(crate) fn read_text_file(path: &Path, name: &str) -> Result<String> {
    let Some(bytes) =
        ratios_base::fetch::read_file(path, MAX_PROJECT_FILE).map_err(|e| Error::io(path, e))?
    else {
        return Err(Error::Config {
            file: name.into(),
            message: format!("larger than {MAX_PROJECT_FILE} bytes"),
        });
    };
    let text = String::from_utf8(bytes).map_err(|e| Error::Config {
        file: name.into(),
        message: format!("not UTF-8 (byte {})", e.utf8_error().valid_up_to()),
    })?;
    // A byte-order mark, which some editors write first, is not part of the text: JSON does not
    // allow it and the page would carry it invisibly.
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    })
}

/// True when `dir/Cargo.toml` declares this package.
fn is_project(dir: &Path) -> bool {
    ratios_base::fetch::read_text_if_readable(&dir.join("Cargo.toml"), MAX_PROJECT_FILE)
        .is_some_and(|t| {
            t.lines()
                .map(str::trim)
                .any(|l| l == format!("name = \"{}\"", ratios_base::PACKAGE))
        })
}

/// An error naming `root` unless its Cargo.toml declares this package.
pub fn check_is_project(root: &Path) -> Result<()> {
    if is_project(root) {
        Ok(())
    } else {
        Err(Error::NotAProject {
            path: root.to_path_buf(),
            searched_upward: false,
        })
    }
}

/// The project root: the nearest folder upward from `start` whose Cargo.toml declares this
/// package.
pub fn find_root(start: &Path) -> Result<PathBuf> {
    let start = fs::canonicalize(start).map_err(|e| Error::io(start, e))?;
    start
        .ancestors()
        .find(|d| is_project(d))
        .map(Path::to_path_buf)
        .ok_or_else(|| Error::NotAProject {
            path: start.clone(),
            searched_upward: true,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_is_found_from_a_subfolder_and_the_project_loads() {
        let here = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        let root = find_root(&here.join("content")).unwrap();
        assert_eq!(root, fs::canonicalize(here).unwrap());
        let p = Project::load(&root).unwrap();
        assert!(p.prose.contains("{{"));
        // As many highlights as the settings file lists, read as plain JSON.
        let settings: serde_json::Value =
            serde_json::from_str(&read_text(&root, CONFIG_PATH).unwrap()).unwrap();
        assert_eq!(
            p.config.highlights.len(),
            settings["highlights"].as_array().unwrap().len()
        );
        assert!(!p.manifest.inputs.is_empty());
        assert!(p.facts.models.contains_key("llama2-70b-99.9"));
        assert!(find_root(Path::new("/")).is_err());
    }

    #[test]
    fn a_leading_byte_order_mark_is_dropped_and_only_that() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("article.json");
        fs::write(&path, b"\xef\xbb\xbf{\"a\": \"\xef\xbb\xbf\"}").unwrap();
        let text = read_text_file(&path, "article.json").unwrap();
        assert_eq!(text, "{\"a\": \"\u{feff}\"}");
        assert!(serde_json::from_str::<serde_json::Value>(&text).is_ok());
    }
}
