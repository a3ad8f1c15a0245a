//! `scenario-ratios verify`: the reader's check of a published folder or a reproducibility.zip.
//! No problem is one line on standard output; one problem is the error line itself; several are
//! each printed, then counted.

use std::path::{Path, PathBuf};

use scenario_ratios::base::text::{escaped, path as shown};
use scenario_ratios::{project, Error};

/// Verifies `path`, else the project's `dist/` when run inside the project.
pub fn run(path: Option<PathBuf>) -> scenario_ratios::Result<()> {
    match path {
        Some(p) => verify(&p),
        None => match project::find_root(Path::new(".")) {
            Ok(root) => verify(&root.join("dist")),
            Err(_) => Err(Error::Usage {
                context: "verify".into(),
                message: "not inside the project, so there is no default dist/; name a published folder or a reproducibility.zip".into(),
            }),
        },
    }
}

fn verify(path: &Path) -> scenario_ratios::Result<()> {
    let report = scenario_ratios::verify::verify_path(path);
    if report.problems.is_empty() {
        println!(
            "{}: {} items verified, no problem",
            shown(path),
            report.checked
        );
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
