//! The walk-through notebook (`content/analysis.ipynb`): a second, independent implementation of
//! the analysis in Python, kept with the prose, published beside the article and placed at the
//! top of the bundle. Its code cells also become `analysis.py`, so a reader without Jupyter runs
//! the same check with `python3 analysis.py`. This module only reads the notebook and writes the
//! script; the notebook's stored outputs are proven current by running it (see README).

use serde::Deserialize;

use ratios_base::error::{Error, Result};

/// The oldest Python the notebook's code runs on (what the bundle's tests parse it as); the script
/// refuses an older one, and the article and the bundled README name it.
pub const MIN_PYTHON: (u32, u32) = (3, 9);

/// [`MIN_PYTHON`] as the prose writes it: `3.9`.
pub fn min_python() -> String {
    format!("{}.{}", MIN_PYTHON.0, MIN_PYTHON.1)
}

/// The oldest Python the pinned tools that re-run the notebook (nbval and the Jupyter kernel of
/// `tests/notebook/requirements.txt`) install on: the highest `Requires-Python` lower bound of the
/// packages they bring, which `tests/notebook.rs` reads from the installed tools. The bundled
/// README names it beside the install command.
pub const NBVAL_MIN_PYTHON: &str = "3.11";

/// The opening of `analysis.py`: what it is, the Python it needs, and one line instead of a
/// traceback on a mismatch.
#[derive(askama::Template)]
#[template(path = "notebook/script-header.py", escape = "none")]
struct ScriptHeader {
    major: u32,
    minor: u32,
}

/// Where the notebook lives in the project.
pub(crate) const NOTEBOOK_PATH: &str = "content/analysis.ipynb";

#[derive(Deserialize)]
struct Notebook {
    nbformat: u32,
    cells: Vec<Cell>,
}

#[derive(Deserialize)]
struct Cell {
    cell_type: String,
    source: Source,
}

/// A cell's text, as a list of lines or one string.
#[derive(Deserialize)]
#[serde(untagged)]
enum Source {
    Lines(Vec<String>),
    Text(String),
}

impl Source {
    fn text(&self) -> String {
        match self {
            Source::Lines(lines) => lines.concat(),
            Source::Text(t) => t.clone(),
        }
    }
}

/// `analysis.py`: the notebook's code cells, in order, under a header saying where they come from.
pub fn script(notebook: &str) -> Result<Vec<u8>> {
    let err = |m: String| Error::Config {
        file: NOTEBOOK_PATH.into(),
        message: m,
    };
    let nb: Notebook = serde_json::from_str(notebook).map_err(|e| err(e.to_string()))?;
    if nb.nbformat != 4 {
        return Err(err(format!("nbformat {} (4 expected)", nb.nbformat)));
    }
    let code: Vec<String> = nb
        .cells
        .iter()
        .filter(|c| c.cell_type == "code")
        .map(|c| c.source.text())
        .collect();
    if code.is_empty() {
        return Err(err("the notebook has no code cell".into()));
    }
    // python3 refuses a script holding a NUL byte ("source code cannot contain null bytes"), so
    // the published analysis.py would not run.
    if let Some(i) = code.iter().position(|c| c.contains('\0')) {
        return Err(err(format!(
            "code cell {} holds a NUL character (\\u0000), which python3 refuses in a script: analysis.py would not run",
            i + 1
        )));
    }
    let header = ScriptHeader {
        major: MIN_PYTHON.0,
        minor: MIN_PYTHON.1,
    };
    let mut out = askama::Template::render(&header).map_err(|e| Error::Template {
        template: "templates/notebook/script-header.py".into(),
        message: e.to_string(),
    })?;
    // Askama drops the template's final newline.
    out.push('\n');
    for (i, cell) in code.iter().enumerate() {
        out.push_str(&format!("\n# --- code cell {} ---\n", i + 1));
        out.push_str(cell.trim_end());
        out.push('\n');
    }
    Ok(out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_is_the_code_cells_in_order() {
        let nb = r##"{"nbformat": 4, "cells": [
            {"cell_type": "markdown", "source": ["# Title\n"]},
            {"cell_type": "code", "source": ["import json\n", "x = 1\n"]},
            {"cell_type": "code", "source": "print(x)"}
        ]}"##;
        let s = String::from_utf8(script(nb).unwrap()).unwrap();
        assert!(
            s.ends_with(
                "# --- code cell 1 ---\nimport json\nx = 1\n\n# --- code cell 2 ---\nprint(x)\n"
            ),
            "{s}"
        );
        assert!(!s.contains("Title"));
        assert!(script(r#"{"nbformat": 3, "cells": []}"#).is_err());
        assert!(script(r#"{"nbformat": 4, "cells": []}"#).is_err());
        let nul = r#"{"nbformat": 4, "cells": [{"cell_type": "code", "source": "x = 1"}, {"cell_type": "code", "source": "y = '\u0000'"}]}"#;
        assert_eq!(
            script(nul).unwrap_err().to_string(),
            "content/analysis.ipynb: code cell 2 holds a NUL character (\\u0000), which python3 refuses in a script: analysis.py would not run"
        );
    }
}
