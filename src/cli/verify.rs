//! `scenario-ratios verify`: the reader's check of a published folder or a reproducibility.zip.
//! No problem is one line on standard output; one problem is the error line itself; several are
//! each printed, then counted.

use std::path::{Path, PathBuf};

use scenario_ratios::base::minisign::PublicKey;
use scenario_ratios::base::text::{escaped, path as shown};
use scenario_ratios::{project, Error};

/// Verifies `path`, else the project's `dist/` when run inside the project; a folder's
/// signature against `public_key` when given.
pub fn run(path: Option<PathBuf>, public_key: Option<String>) -> scenario_ratios::Result<()> {
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
        println!(
            "{}: {} items verified, no problem",
            shown(path),
            report.checked
        );
        if let Some(line) = &report.signature {
            println!("{}", escaped(line));
        }
        return Ok(());
    }
    // One problem is the error line itself; several are listed, then counted.
    if let [one] = report.problems.as_slice() {
        return Err(Error::Verify(one.clone()));
    }
    for p in &report.problems {
        eprintln!("error: {}", escaped(p));
    }
    Err(Error::VerifyProblems {
        path: path.display().to_string(),
        count: report.problems.len(),
    })
}
