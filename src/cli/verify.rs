//! `scenario-ratios verify`: the reader's check of a published folder or a reproducibility.zip.
//! No problem is one line on standard output; one problem is the error line itself; several are
//! each printed, then counted.

use std::path::{Path, PathBuf};

use scenario_ratios::base::minisign::PublicKey;
use scenario_ratios::base::text::{escaped, path as shown};
use scenario_ratios::{note, out, project, Error};

/// Verifies `path`, else the project's `dist/` when run inside the project; a folder's
/// signature against `public_key` when given.
pub(crate) fn run(
    path: Option<PathBuf>,
    public_key: Option<String>,
) -> scenario_ratios::Result<()> {
    let key = match public_key {
        None => None,
        Some(text) => Some(PublicKey::parse(&text).map_err(|why| Error::Usage {
            context: "verify".into(),
            message: format!("--public-key {why}"),
        })?),
    };
    match path {
        Some(p) => verify(&p, key.as_ref()),
        None => match project::find_root(Path::new(".")) {
            Ok(root) => verify(&root.join("dist"), key.as_ref()),
            Err(_) => Err(Error::Usage {
                context: "verify".into(),
                message: "not inside the project, so there is no default dist/; name a published folder or a reproducibility.zip".into(),
            }),
        },
    }
}

fn verify(path: &Path, key: Option<&PublicKey>) -> scenario_ratios::Result<()> {
    let report = scenario_ratios::verify::verify_path(path, key);
    if report.problems.is_empty() {
        out!(
            "{}: {} items verified, no problem",
            shown(path),
            report.checked
        )
        .map_err(Error::Stdout)?;
        if let Some(line) = &report.signature {
            out!("{}", escaped(line)).map_err(Error::Stdout)?;
        }
        return Ok(());
    }
    // One problem is the error line itself; several are listed, then counted.
    let count = report.problems.total();
    let mut lines = report.problems.into_lines();
    if count == 1 {
        return Err(Error::Verify(lines.remove(0)));
    }
    for p in &lines {
        note!("error: {}", escaped(p));
    }
    Err(Error::VerifyProblems {
        path: shown(path),
        count,
    })
}
