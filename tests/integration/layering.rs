//! What Cargo cannot check of the layering: no import circle joins the files of a crate's `src/`,
//! nor its folders. Cargo checks the rest: each layer is a crate of the workspace and depends only
//! on the ones below it (`docs/architecture.md`).
//!
//! The rules are those of `../shared/tools/circles.py`: each file of a `src/` is a module (a
//! folder's `mod.rs` is the folder; `lib.rs` and `main.rs` the crate); a `crate::a::b` or
//! `super::a` path, or an item of `use crate::{..}`, is an edge to the most specific module it
//! names; edges between a folder and the files inside it are not counted; what follows
//! `#[cfg(test)] mod tests` and every `//` comment are ignored. A circle is a strongly connected
//! set of two or more modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module path (`["article", "values"]`); the crate root is empty.
type Module = Vec<String>;

/// Every `.rs` file under `dir`, by its `/`-separated path relative to `dir`, with its text.
fn read_tree(dir: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.unwrap();
        let path = entry.path();
        if entry.file_type().is_file() && path.extension().is_some_and(|e| e == "rs") {
            let rel = path
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            files.insert(rel, std::fs::read_to_string(path).unwrap());
        }
    }
    files
}

/// The module a file is: `a/b.rs` is `a::b`, `a/mod.rs` is `a`, `lib.rs` and `main.rs` the root.
fn module_of(rel: &str) -> Module {
    let mut m: Module = rel
        .strip_suffix(".rs")
        .unwrap_or(rel)
        .split('/')
        .map(String::from)
        .collect();
    if m.last().is_some_and(|l| l == "mod") {
        m.pop();
    }
    if m == ["lib"] || m == ["main"] {
        m.clear();
    }
    m
}

/// The code of a file as the check reads it: up to `#[cfg(test)] mod tests`, every line cut at
/// its first `//`.
fn code_of(text: &str) -> String {
    let mut end = text.len();
    let mut from = 0;
    while let Some(at) = text[from..].find("#[cfg(test)]") {
        let after = &text[from + at + "#[cfg(test)]".len()..];
        if after.trim_start().starts_with("mod tests") {
            end = from + at;
            break;
        }
        from += at + 1;
    }
    text[..end]
        .split('\n')
        .map(|line| line.find("//").map_or(line, |i| &line[..i]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module `super` names from `m`.
fn parent(m: &Module) -> Module {
    m[..m.len().saturating_sub(1)].to_vec()
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every `crate::a::b` and `super::a` path in `code`, left to right and not overlapping: whether
/// it starts at `super`, and its segments after the keyword (as many `::word` as follow).
fn paths(code: &str) -> Vec<(bool, Vec<String>)> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < code.len() {
        let rest = &code[i..];
        let keyword = ["crate", "super"].into_iter().find(|k| rest.starts_with(k));
        let at_boundary = !code[..i].chars().next_back().is_some_and(is_word);
        let (Some(keyword), true) = (keyword, at_boundary) else {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let mut tail = &rest[keyword.len()..];
        let mut parts = Vec::new();
        while let Some(after) = tail.strip_prefix("::") {
            let len = after.find(|c: char| !is_word(c)).unwrap_or(after.len());
            if len == 0 {
                break;
            }
            parts.push(after[..len].to_string());
            tail = &after[len..];
        }
        if parts.is_empty() {
            i += keyword.len();
        } else {
            i = code.len() - tail.len();
            found.push((keyword == "super", parts));
        }
    }
    found
}

/// The items of every `use crate::{..};` of `code`, each as its plain segments (`a::{self` is
/// `a`).
fn grouped_uses(code: &str) -> Vec<Vec<String>> {
    let mut items = Vec::new();
    for line_start in std::iter::once(0).chain(code.match_indices('\n').map(|(i, _)| i + 1)) {
        let line = code[line_start..].trim_start();
        let Some(rest) = line.strip_prefix("use") else {
            continue;
        };
        let rest = rest.trim_start();
        if rest.len() == line.len() - 3 {
            continue; // `use` must be followed by white space
        }
        let Some(group) = rest.strip_prefix("crate::{") else {
            continue;
        };
        let Some(end) = group.find(';') else { continue };
        let Some(inner) = group[..end].strip_suffix('}') else {
            continue;
        };
        for item in inner.split(',') {
            let parts: Vec<String> = item
                .trim()
                .split("::")
                .filter(|p| !p.is_empty() && p.chars().all(is_word))
                .map(String::from)
                .collect();
            items.push(parts);
        }
    }
    items
}

/// The import edges between the modules of `files` (relative path → text).
fn edges(files: &BTreeMap<String, String>) -> BTreeMap<Module, BTreeSet<Module>> {
    let modules: BTreeMap<Module, &str> =
        files.keys().map(|p| (module_of(p), p.as_str())).collect();
    let resolve = |mut path: Module| {
        while !path.is_empty() {
            if modules.contains_key(&path) {
                return Some(path);
            }
            path.pop();
        }
        None
    };
    let family = |a: &Module, b: &Module| a.starts_with(b) || b.starts_with(a);
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (m, rel) in &modules {
        let code = code_of(&files[*rel]);
        let mut targets = Vec::new();
        for (is_super, parts) in paths(&code) {
            let path = if is_super {
                // `super` of `a/b.rs` is `a`, and of `a/mod.rs` the folder above `a`.
                parent(m).into_iter().chain(parts).collect()
            } else {
                parts
            };
            targets.push(resolve(path));
        }
        for parts in grouped_uses(&code) {
            targets.push(resolve(parts));
        }
        let out = edges.entry(m.clone()).or_default();
        for t in targets.into_iter().flatten() {
            if &t != m && !family(m, &t) {
                out.insert(t);
            }
        }
    }
    edges
}

/// The strongly connected sets of two or more nodes of `edges` (Tarjan's algorithm).
fn strongly_connected(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on_stack: BTreeSet<&'a Module>,
        found: Vec<Vec<&'a Module>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a Module) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.edges.get(v).into_iter().flatten() {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    self.found.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.found
        .into_iter()
        .map(|c| c.into_iter().cloned().collect())
        .collect()
}

/// The import circles among `files`: each a sorted list of the relative paths of its modules.
fn circles(files: &BTreeMap<String, String>) -> Vec<Vec<String>> {
    let rel: BTreeMap<Module, &str> = files.keys().map(|p| (module_of(p), p.as_str())).collect();
    let mut found: Vec<Vec<String>> = strongly_connected(&edges(files))
        .into_iter()
        .map(|c| {
            let mut paths: Vec<String> = c.iter().map(|m| rel[m].to_string()).collect();
            paths.sort();
            paths
        })
        .collect();
    found.sort();
    found
}

/// The import circles among the top-level modules of `files` (a folder counts as one, with
/// every file inside it): each a sorted list of their names. A circle of folders can hide from
/// [`circles`], since each edge may join different files of each folder.
fn folder_circles(files: &BTreeMap<String, String>) -> Vec<Vec<String>> {
    let mut folders: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (from, to) in edges(files) {
        let Some(a) = from.first() else { continue };
        let entry = folders.entry(vec![a.clone()]).or_default();
        for t in to {
            if let Some(b) = t.first().filter(|b| *b != a) {
                entry.insert(vec![b.clone()]);
            }
        }
    }
    let mut found: Vec<Vec<String>> = strongly_connected(&folders)
        .into_iter()
        .map(|c| {
            let mut names: Vec<String> = c.into_iter().map(|m| m.join("::")).collect();
            names.sort();
            names
        })
        .collect();
    found.sort();
    found
}

#[test]
fn no_import_circle_joins_the_files_or_folders_of_any_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = vec![root.join("src")];
    for member in ["base", "model", "bundle", "render", "dev"] {
        sources.push(root.join("crates").join(member).join("src"));
    }
    for src in sources {
        let files = read_tree(&src);
        assert!(
            files.contains_key("lib.rs"),
            "{} has a lib.rs",
            src.display()
        );
        for (among, found) in [
            ("folders and top-level files", folder_circles(&files)),
            ("files", circles(&files)),
        ] {
            let listed: Vec<String> = found.iter().map(|c| c.join(" ")).collect();
            assert!(
                found.is_empty(),
                "import circles among the {among} of {}:\n{}",
                src.display(),
                listed.join("\n")
            );
        }
    }
}

/// The check itself, on a made-up tree: it finds a circle through a folder's file and one through
/// `use crate::{..}`; it ignores what a folder and its files say of each other, comments and test
/// code.
#[test]
fn the_check_finds_circles_through_files_folders_and_grouped_uses() {
    let tree = |files: &[(&str, &str)]| -> BTreeMap<String, String> {
        files
            .iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect()
    };
    let clean = tree(&[
        ("lib.rs", "pub mod base; pub mod a; pub mod b; pub mod c;"),
        ("base/mod.rs", "pub mod text; pub mod error;"),
        ("base/text.rs", "use crate::base::error::Error;"),
        (
            "base/error.rs",
            "pub struct Error; // crate::a::x in a comment\n",
        ),
        (
            "a/mod.rs",
            "pub mod inner; use crate::a::inner::X; use crate::base::text;",
        ),
        ("a/inner.rs", "use super::Y; use crate::base::error::Error;"),
        ("b.rs", "use crate::a::inner::X;"),
        (
            "c.rs",
            "use crate::b;\n#[cfg(test)]\nmod tests { use crate::c; use crate::a; }\n",
        ),
    ]);
    assert!(circles(&clean).is_empty(), "{:?}", circles(&clean));

    // A circle of folders that no two files close: project/mod.rs → evidence/claims.rs,
    // evidence/mod.rs → highlight.rs → project/config.rs, as the tree once had.
    let folders = tree(&[
        (
            "lib.rs",
            "pub mod project; pub mod evidence; pub mod highlight;",
        ),
        (
            "project/mod.rs",
            "pub mod config; use crate::evidence::claims::C;",
        ),
        ("project/config.rs", "pub struct Config;"),
        (
            "evidence/mod.rs",
            "pub mod claims; use crate::highlight::H;",
        ),
        ("evidence/claims.rs", "pub struct C;"),
        ("highlight.rs", "use crate::project::config::Config;"),
    ]);
    assert!(circles(&folders).is_empty(), "{:?}", circles(&folders));
    assert_eq!(
        folder_circles(&folders),
        [["evidence", "highlight", "project"]
            .map(String::from)
            .to_vec()]
    );
    assert!(
        folder_circles(&clean).is_empty(),
        "{:?}",
        folder_circles(&clean)
    );

    let mut tangled = clean.clone();
    // a/inner → c → b → a/inner, the last step through a grouped use.
    tangled.insert("a/inner.rs".into(), "fn f() { crate::c::g() }".into());
    tangled.insert("c.rs".into(), "use crate::{base::text, b::f};".into());
    // And a two-module circle between siblings of one folder.
    tangled.insert("base/error.rs".into(), "use super::text::quoted;".into());
    tangled.insert("base/text.rs".into(), "use super::error::Error;".into());
    assert_eq!(
        circles(&tangled),
        [
            ["a/inner.rs", "b.rs", "c.rs"].map(String::from).to_vec(),
            ["base/error.rs", "base/text.rs"].map(String::from).to_vec(),
        ]
    );
}
