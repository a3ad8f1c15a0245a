//! The browser checks' tools: node, chromium and the installed checker scripts, or a clear
//! failure naming what to install (unless the checks are skipped on purpose).

use std::path::PathBuf;
use std::process::Command;

use super::root;

/// Where the browser checks run: node, the chromium binary, and the folder of the scripts with
/// their installed packages (`npm ci` in tests/browser, as scripts/test does). Missing pieces fail the
/// test with what to install, unless SCENARIO_RATIOS_SKIP_BROWSER=1 asks to skip it (which the
/// test then says).
pub(crate) struct Browser {
    pub node: PathBuf,
    pub chromium: PathBuf,
    pub scripts: PathBuf,
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    })
}

pub(crate) fn browser() -> Option<Browser> {
    let scripts = root().join("tests/browser");
    let chromium = std::env::var_os("CHROMIUM").map(PathBuf::from).or_else(|| {
        ["chromium", "chromium-browser", "google-chrome"]
            .iter()
            .find_map(|n| on_path(n))
    });
    let node = on_path("node");
    let installed = scripts.join("node_modules/puppeteer-core").is_dir();
    match (chromium, node, installed) {
        (Some(chromium), Some(node), true) => Some(Browser {
            node,
            chromium,
            scripts,
        }),
        missing => {
            let what = format!(
                "chromium {}, node {}, tests/browser/node_modules {}",
                if missing.0.is_some() {
                    "found"
                } else {
                    "missing (apt-get install chromium)"
                },
                if missing.1.is_some() {
                    "found"
                } else {
                    "missing"
                },
                if missing.2 {
                    "found"
                } else {
                    "missing (cd tests/browser && npm ci)"
                },
            );
            if std::env::var_os("SCENARIO_RATIOS_SKIP_BROWSER").is_some_and(|v| v == "1") {
                eprintln!("SKIPPED (SCENARIO_RATIOS_SKIP_BROWSER=1): {what}");
                None
            } else {
                panic!("the browser checks need {what}; scripts/test installs them");
            }
        }
    }
}

impl Browser {
    /// Runs `script` with node; returns its stdout, after checking that it succeeded.
    pub(crate) fn run(&self, script: &str, args: &[&str]) -> String {
        self.run_with(script, args, &[])
    }

    /// Runs article-check.mjs with `CHECKS` set to `checks` (`all`; `pages`: all but Lighthouse;
    /// `lighthouse`: Lighthouse alone); returns its report.
    pub(crate) fn check(&self, checks: &str, args: &[&str]) -> String {
        self.run_with("article-check.mjs", args, &[("CHECKS", checks)])
    }

    fn run_with(&self, script: &str, args: &[&str], env: &[(&str, &str)]) -> String {
        let o = Command::new(&self.node)
            .arg(self.scripts.join(script))
            .args(args)
            .envs(env.iter().copied())
            .env("CHROMIUM", &self.chromium)
            .current_dir(&self.scripts)
            .output()
            .expect("node runs");
        assert!(
            o.status.success(),
            "{script} failed: {}\n{}",
            String::from_utf8_lossy(&o.stderr),
            String::from_utf8_lossy(&o.stdout)
        );
        String::from_utf8(o.stdout).unwrap()
    }
}
