//! `ro-crate-metadata.json`: the bundle described as an RO-Crate 1.1 (the research-object
//! packaging that Zenodo and WorkflowHub read). Every file of the bundle but this one is a
//! `File` with its role, encoding format, size and SHA-256 (`INVENTORY.sha256` without its
//! SHA-256, since it lists this file's); the pinned inputs name their repository, commit, path
//! and licence; the article, its author, its licence and the program that made it are
//! contextual entities. Made when the bundle is finished, from the entries' sizes and digests.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Value};

use crate::package::provenance::bundle_path;
use ratios_base::digest::HexDigest;
use ratios_base::error::{Error, Result};
use ratios_base::layout::{OutputFile, INVENTORY, PUBLISHED_DIR};
use ratios_model::inputs::PinnedInput;
use ratios_model::project::config::ArticleConfig;

/// The file's name at the bundle's root.
pub const RO_CRATE: &str = "ro-crate-metadata.json";
/// The RO-Crate version it conforms to.
const SPEC: &str = "https://w3id.org/ro/crate/1.1";
/// The vendored crates' folder.
const VENDOR: &str = "vendor/";

/// One file of the bundle: its path inside the bundle's folder, size and SHA-256 (none for the
/// inventory, which lists this file's).
#[derive(Debug, Clone)]
pub struct FileFacts {
    /// Its path relative to the bundle's folder, the `File`'s `@id`.
    pub path: String,
    /// Its length in bytes, inflated: the `File`'s `contentSize`.
    pub size: u64,
    /// The SHA-256 of its bytes; `None` for `INVENTORY.sha256`, which lists this file's.
    pub sha256: Option<HexDigest>,
}

/// What the description needs besides the files: the settings and the pinned inputs.
#[derive(Debug, Clone)]
pub struct Describer {
    /// The article's settings (`content/article.json`): its title, author, licence and URL.
    pub config: ArticleConfig,
    /// The pinned inputs of `data/inputs.json`, whose files the description ties to their
    /// repository, commit and licence.
    pub inputs: Vec<PinnedInput>,
}

/// The encoding format of a file, as a media type, from its name.
fn media_type(path: &str) -> &'static str {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    match (name, ext) {
        (_, "csv") => "text/csv",
        (_, "json") => "application/json",
        (_, "html") => "text/html",
        (_, "svg") => "image/svg+xml",
        (_, "png") => "image/png",
        (_, "md") => "text/markdown",
        (_, "toml") => "application/toml",
        (_, "py") => "text/x-python",
        (_, "ipynb") => "application/x-ipynb+json",
        (_, "cff" | "yml" | "yaml") => "application/yaml",
        (_, "js") => "text/javascript",
        (_, "css") => "text/css",
        (_, "rs") => "text/x-rust",
        (_, "h") | (_, "c") => "text/x-c",
        (_, "txt") | (_, "lock") | (_, "sha256") | (_, "log") => "text/plain",
        _ if [
            "LICENSE",
            "LICENCE",
            "COPYING",
            "README",
            "NOTICE",
            "AUTHORS",
            "COPYRIGHT",
        ]
        .iter()
        .any(|p| name.starts_with(p)) =>
        {
            "text/plain"
        }
        _ => "application/octet-stream",
    }
}

/// The role of a file of the bundle, from where it sits.
fn role(path: &str, input: Option<&PinnedInput>) -> String {
    if let Some(pin) = input {
        return format!(
            "Pinned input `{}` ({:?}): {} at commit {}, {}; licence {}",
            pin.name, pin.kind, pin.repository, pin.commit, pin.path, pin.license
        );
    }
    let top = path.split('/').next().unwrap_or(path);
    match (top, path) {
        (_, INVENTORY) => "The SHA-256 of every other entry of the bundle".into(),
        (_, "README.md") => "How to check and rebuild the article from this bundle".into(),
        (_, "Cargo.toml" | "Cargo.lock") => {
            "The program's Rust package and its locked dependencies".into()
        }
        (_, "CITATION.cff") => "How to cite the article (Citation File Format)".into(),
        (_, "analysis.ipynb") => "The walk-through notebook, an independent check in Python".into(),
        (_, "analysis.py") => {
            "The notebook's code as a script, run by `python3 analysis.py`".into()
        }
        (_, "data/inputs.json") => {
            "The manifest pinning every input by commit, size and digest".into()
        }
        (_, "data/vendor.json") => "Which locked crates the bundle carries as stubs".into(),
        (PUBLISHED_DIR, _) => "A copy of a file published with the article".into(),
        ("src" | "benches" | "examples", _) => {
            "Source of the program that builds the article".into()
        }
        ("templates", _) => "Template of the page, its figures and texts".into(),
        ("content", _) => "The article's prose and settings".into(),
        ("sources", _) => {
            "Facts and claims the article cites, each with its pinned source line".into()
        }
        ("tests", _) => "The notebook's test requirements".into(),
        ("vendor", _) => "Part of a vendored Rust crate, as Cargo.lock pins it".into(),
        _ => "Configuration of the program's build".into(),
    }
}

fn id(s: impl Into<String>) -> Value {
    json!({ "@id": s.into() })
}

impl Describer {
    /// `ro-crate-metadata.json` for a bundle holding `files`.
    pub fn describe(&self, files: &[FileFacts]) -> Result<Vec<u8>> {
        let c = &self.config;
        let author = c.absolute(&c.author_url);
        let program = "#scenario-ratios";
        let inputs: Vec<(String, &PinnedInput)> =
            self.inputs.iter().map(|p| (bundle_path(p), p)).collect();
        let by_path: BTreeMap<&str, &PinnedInput> =
            inputs.iter().map(|(at, p)| (at.as_str(), *p)).collect();

        // Files outside `vendor/` are parts of the root; those inside are parts of their
        // crate's folder, itself a part of the root.
        let mut root_parts = Vec::new();
        let mut crates: Vec<(String, Vec<PartRef>)> = Vec::new();
        let mut entities = Vec::with_capacity(files.len());
        for f in files {
            let input = by_path.get(f.path.as_str()).copied();
            let vendored = f.path.starts_with(VENDOR);
            entities.push(FileEntity {
                id: &f.path,
                kind: "File",
                name: f.path.rsplit('/').next().unwrap_or(&f.path),
                content_size: f.size.to_string(),
                sha256: f.sha256.as_ref().map(|d| d.as_str()),
                encoding_format: media_type(&f.path),
                url: input.map(|pin| pin.url.as_str()),
                is_based_on: input.map(|pin| IdRef {
                    id: format!(
                        "https://github.com/{}/blob/{}/{}",
                        pin.repository, pin.commit, pin.path
                    ),
                }),
                license: input.map(|pin| IdRef {
                    id: format!("https://spdx.org/licenses/{}", pin.license),
                }),
                description: (!vendored).then(|| role(&f.path, input)),
            });
            if !vendored {
                root_parts.push(id(&f.path));
            } else {
                let name = f.path[VENDOR.len()..].split('/').next().unwrap_or_default();
                let folder = format!("{VENDOR}{name}/");
                let part = PartRef { id: &f.path };
                match crates.last_mut() {
                    Some((last, parts)) if *last == folder => parts.push(part),
                    _ => crates.push((folder, vec![part])),
                }
            }
        }
        let mut folders = Vec::with_capacity(crates.len());
        for (folder, parts) in crates.iter() {
            root_parts.push(id(folder));
            folders.push(CrateFolder {
                id: folder,
                kind: "Dataset",
                name: folder[VENDOR.len()..].trim_end_matches('/'),
                description: "A vendored Rust crate, as Cargo.lock pins it (a stub holds its Cargo.toml only, see data/vendor.json)",
                has_part: parts,
            });
        }

        let mut root = json!({
            "@id": "./",
            "@type": "Dataset",
            "name": c.title,
            "description": c.description,
            "datePublished": c.published,
            "license": id(&c.license_url),
            "author": id(&author),
            "url": c.canonical_url,
            "hasPart": root_parts,
            "isBasedOn": inputs.iter().map(|(at, _)| id(at)).collect::<Vec<_>>(),
        });
        if let Some(url) = c.doi_url() {
            root["identifier"] = json!(url);
        }
        let published: Vec<Value> = OutputFile::ALL
            .iter()
            .filter_map(|f| f.in_bundle())
            .filter(|at| files.iter().any(|f| &f.path == at))
            .map(id)
            .collect();
        let mut graph = vec![
            json!({
                "@id": RO_CRATE,
                "@type": "CreativeWork",
                "conformsTo": id(SPEC),
                "about": id("./"),
            }),
            root,
            json!({ "@id": author, "@type": "Person", "name": c.author }),
            json!({
                "@id": c.license_url,
                "@type": "CreativeWork",
                "name": c.license_name,
                "identifier": c.license_id,
            }),
            json!({
                "@id": program,
                "@type": "SoftwareApplication",
                "name": ratios_base::PACKAGE,
                "version": env!("CARGO_PKG_VERSION"),
                "description": "The program in src/ that builds the article from the pinned inputs (cargo run --release)",
            }),
            json!({
                "@id": "#build",
                "@type": "CreateAction",
                "name": format!("Build of {}", c.title),
                "agent": id(&author),
                "instrument": id(program),
                "object": inputs.iter().map(|(at, _)| id(at)).collect::<Vec<_>>(),
                "result": published,
            }),
        ];
        let mut licences: Vec<&str> = self.inputs.iter().map(|p| p.license.as_str()).collect();
        licences.sort_unstable();
        licences.dedup();
        for l in licences {
            graph.push(json!({
                "@id": format!("https://spdx.org/licenses/{l}"),
                "@type": "CreativeWork",
                "name": l,
                "identifier": l,
            }));
        }
        let mut sources: Vec<&PinnedInput> = self.inputs.iter().collect();
        sources.sort_by(|a, b| {
            (&a.repository, &a.commit, &a.path).cmp(&(&b.repository, &b.commit, &b.path))
        });
        for pin in sources {
            graph.push(json!({
                "@id": format!("https://github.com/{}/blob/{}/{}", pin.repository, pin.commit, pin.path),
                "@type": "CreativeWork",
                "name": pin.path,
                "version": pin.commit,
                "codeRepository": format!("https://github.com/{}", pin.repository),
            }));
        }
        let doc = Document {
            // RO-Crate 1.1's context lacks schema.org's `sha256`; the spec's way to add a term
            // is a second, inline context.
            context: json!([
                "https://w3id.org/ro/crate/1.1/context",
                { "sha256": "http://schema.org/sha256" },
            ]),
            graph: (graph.iter().map(Entity::Other))
                .chain(entities.iter().map(Entity::File))
                .chain(folders.iter().map(Entity::Folder))
                .collect(),
        };
        let mut bytes = serde_json::to_vec_pretty(&doc).map_err(|e| Error::Serialise {
            file: RO_CRATE.into(),
            message: e.to_string(),
        })?;
        bytes.push(b'\n');
        Ok(bytes)
    }
}

/// The description as written: its contexts, then the graph.
#[derive(Serialize)]
struct Document<'a> {
    #[serde(rename = "@context")]
    context: Value,
    #[serde(rename = "@graph")]
    graph: Vec<Entity<'a>>,
}

/// An entity of the graph: a file of the bundle (thousands of them, so typed), or any other.
#[derive(Serialize)]
#[serde(untagged)]
enum Entity<'a> {
    File(&'a FileEntity<'a>),
    Folder(&'a CrateFolder<'a>),
    Other(&'a Value),
}

/// A vendored crate's folder, with its files as parts (thousands of them, so typed).
#[derive(Serialize)]
struct CrateFolder<'a> {
    #[serde(rename = "@id")]
    id: &'a str,
    #[serde(rename = "@type")]
    kind: &'static str,
    name: &'a str,
    description: &'static str,
    #[serde(rename = "hasPart")]
    has_part: &'a [PartRef<'a>],
}

/// A reference to a file of the bundle: `{"@id": ...}`.
#[derive(Serialize)]
struct PartRef<'a> {
    #[serde(rename = "@id")]
    id: &'a str,
}

/// A reference to another entity: `{"@id": ...}`.
#[derive(Serialize)]
struct IdRef {
    #[serde(rename = "@id")]
    id: String,
}

/// One `File` entity, its fields in the order the description writes them.
#[derive(Serialize)]
struct FileEntity<'a> {
    #[serde(rename = "@id")]
    id: &'a str,
    #[serde(rename = "@type")]
    kind: &'static str,
    name: &'a str,
    #[serde(rename = "contentSize")]
    content_size: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    sha256: Option<&'a str>,
    #[serde(rename = "encodingFormat")]
    encoding_format: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<&'a str>,
    #[serde(rename = "isBasedOn", skip_serializing_if = "Option::is_none")]
    is_based_on: Option<IdRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    license: Option<IdRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
}

/// A `File` of a description, as read back: its path inside the bundle's folder, and the size
/// and SHA-256 it states (none where it states none or something unreadable).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Described {
    /// The `File`'s `@id`: its path relative to the bundle's folder.
    pub path: String,
    /// Its `contentSize` in bytes; `None` when absent or not a whole number written as text.
    pub size: Option<u64>,
    /// Its `sha256` as written, unchecked; `None` when absent or not a string.
    pub sha256: Option<String>,
}

/// The bundle's files as its RO-Crate describes them. Used by `verify` to hold the description
/// to the bytes.
pub(crate) fn described_files(text: &[u8]) -> std::result::Result<Vec<Described>, String> {
    let doc: Value = serde_json::from_slice(text).map_err(|e| e.to_string())?;
    let graph = doc
        .get("@graph")
        .and_then(Value::as_array)
        .ok_or("has no @graph")?;
    Ok(graph
        .iter()
        .filter(|e| e.get("@type").and_then(Value::as_str) == Some("File"))
        .filter_map(|e| {
            let path = e.get("@id")?.as_str()?.to_string();
            let size = e
                .get("contentSize")
                .and_then(Value::as_str)
                .and_then(|s| s.parse().ok());
            let sha = e.get("sha256").and_then(Value::as_str).map(str::to_string);
            Some(Described {
                path,
                size,
                sha256: sha,
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_types_follow_the_name() {
        assert_eq!(media_type("published/pairs.csv"), "text/csv");
        assert_eq!(media_type("vendor/zip-9.8.2/src/lib.rs"), "text/x-rust");
        assert_eq!(media_type("vendor/zip-9.8.2/LICENSE"), "text/plain");
        assert_eq!(media_type("vendor/zip-9.8.2/LICENSE-MIT"), "text/plain");
        assert_eq!(media_type("templates/serve/reload.js"), "text/javascript");
        assert_eq!(media_type("a/b.bin"), "application/octet-stream");
    }

    #[test]
    fn inputs_name_their_source_and_everything_else_its_folder() {
        assert!(role("src/main.rs", None).contains("program"));
        assert!(role("published/pairs.csv", None).contains("published"));
        assert!(role(INVENTORY, None).contains("every other entry"));
    }
}
