//! The signed, citable release (issue 23): a build signed with a throwaway minisign key made by
//! Debian's `minisign` binary, checked by that binary and by `verify`; a changed SHA256SUMS, a
//! signature by another key and a missing signature each refused in one line; two signed builds
//! giving the same signature; CITATION.cff and the RO-Crate description checked by the tools
//! their formats name (cffconvert, ro-crate-py, rocrate-validator, from the venv of
//! tests/release/requirements.txt that scripts/test makes), and every file of the bundle found in
//! the description with its true size and SHA-256, recomputed here with the `zip` and `sha2`
//! crates rather than the program's own reader.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

use crate::support::{self, stderr};

fn minisign() -> Command {
    let probe = Command::new("minisign").arg("-v").output();
    assert!(
        probe.is_ok_and(|o| o.status.success()),
        "the minisign binary is needed (apt-get install minisign; scripts/test installs it)"
    );
    Command::new("minisign")
}

/// A throwaway key pair `name.pub` / `name.key` in `dir`, unencrypted (`-W`); its public key.
fn make_key(dir: &Path, name: &str) -> String {
    let (public, secret) = (
        dir.join(format!("{name}.pub")),
        dir.join(format!("{name}.key")),
    );
    let o = minisign()
        .args(["-G", "-W", "-f", "-p"])
        .arg(&public)
        .arg("-s")
        .arg(&secret)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::read_to_string(&public)
        .unwrap()
        .lines()
        .nth(1)
        .unwrap()
        .to_string()
}

/// A project copy whose settings declare `public_key` (and, when given, a DOI).
fn project_declaring(tmp: &Path, public_key: &str, doi: Option<&str>) -> PathBuf {
    let root = support::project_copy(tmp);
    let path = root.join("content/article.json");
    let mut config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    config["signing"] = serde_json::json!({
        "public_key": public_key,
        "also_published_at": ["https://github.com/aryanputta.keys"],
    });
    if let Some(doi) = doi {
        config["doi"] = serde_json::json!(doi);
    }
    std::fs::write(&path, serde_json::to_string_pretty(&config).unwrap()).unwrap();
    root
}

/// Builds `root` into `tmp/out`, signing with the key file `key` when given.
fn build(tmp: &Path, root: &Path, out: &str, key: Option<&Path>) -> Output {
    let crates = support::root().join(scenario_ratios::vendoring::DEFAULT_CRATE_CACHE);
    let mut c = support::binary();
    c.current_dir(tmp)
        .env_remove("SCENARIO_RATIOS_MINISIGN_KEY")
        .env_remove("SCENARIO_RATIOS_MINISIGN_PASSWORD")
        .args(["build", "--root"])
        .arg(root)
        .arg("--mirror")
        .arg(support::mirror())
        .arg("--cache")
        .arg(tmp.join("cache"))
        .arg("--crate-cache")
        .arg(crates)
        .args(["--out", out, "--offline"]);
    if let Some(k) = key {
        c.env("SCENARIO_RATIOS_MINISIGN_KEY", k);
    }
    c.output().unwrap()
}

fn verify(dir: &Path, extra: &[&str]) -> Output {
    let mut c = support::binary();
    c.arg("verify").arg(dir).args(extra);
    c.output().unwrap()
}

/// The error lines of a failed run.
fn error_lines(o: &Output) -> Vec<String> {
    stderr(o)
        .lines()
        .filter(|l| l.starts_with("error:"))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_signed_build_is_checked_by_minisign_and_verify_and_every_forgery_is_refused_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let public = make_key(t, "author");
    let other = make_key(t, "other");
    let root = project_declaring(t, &public, None);

    let o = build(t, &root, "signed", Some(&t.join("author.key")));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("SHA256SUMS signed by key"),
        "{}",
        stderr(&o)
    );
    let dist = t.join("signed");

    // Debian's minisign accepts it, with the trusted comment naming the article and its URL.
    let o = minisign()
        .current_dir(&dist)
        .args(["-Vm", "SHA256SUMS", "-P", &public])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let shown = String::from_utf8_lossy(&o.stdout);
    assert!(
        shown.contains("Trusted comment: SHA256SUMS of \"The Server/Offline ratio is workload-specific\" https://"),
        "{shown}"
    );

    // verify: signed, by the declared key, and with the key given as a reader found it.
    let key_id = {
        std::fs::read_to_string(t.join("author.pub"))
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .rsplit(' ')
            .next()
            .unwrap()
            .to_string()
    };
    for (extra, trust) in [
        (&[][..], "the key the bundle itself declares"),
        (&["--public-key", public.as_str()][..], "the key you gave"),
    ] {
        let o = verify(&dist, extra);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.contains(&format!("SHA256SUMS: signed by key {key_id}, {trust}")),
            "{out}"
        );
    }
    // A bundle alone carries no signature: a key given for it is refused, not ignored.
    let o = verify(
        &dist.join("reproducibility.zip"),
        &["--public-key", &public],
    );
    assert!(!o.status.success());
    assert_eq!(error_lines(&o).len(), 1, "{}", stderr(&o));

    // Signing is deterministic: a second signed build gives the same bytes.
    let o = build(t, &root, "again", Some(&t.join("author.key")));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(dist.join("SHA256SUMS.minisig")).unwrap(),
        std::fs::read(t.join("again/SHA256SUMS.minisig")).unwrap()
    );

    // Without the key: the same files but the signature, one note, and verify refuses.
    let o = build(t, &root, "unsigned", None);
    assert!(o.status.success(), "{}", stderr(&o));
    let notes: Vec<_> = stderr(&o)
        .lines()
        .filter(|l| l.contains("not signed"))
        .map(str::to_string)
        .collect();
    assert_eq!(notes.len(), 1, "{}", stderr(&o));
    for f in scenario_ratios::base::layout::OutputFile::ALL {
        assert_eq!(
            std::fs::read(dist.join(f.path())).unwrap(),
            std::fs::read(t.join("unsigned").join(f.path())).unwrap(),
            "{}",
            f.path()
        );
    }
    let o = verify(&t.join("unsigned"), &[]);
    assert!(!o.status.success());
    assert_eq!(error_lines(&o).len(), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("SHA256SUMS.minisig: missing"),
        "{}",
        stderr(&o)
    );

    // A changed SHA256SUMS that still lists every file rightly (two lines swapped).
    let changed = t.join("changed");
    support::copy_tree(&dist, &changed);
    let sums = std::fs::read_to_string(changed.join("SHA256SUMS")).unwrap();
    let mut lines: Vec<&str> = sums.lines().collect();
    lines.swap(0, 1);
    std::fs::write(
        changed.join("SHA256SUMS"),
        format!("{}\n", lines.join("\n")),
    )
    .unwrap();
    let o = verify(&changed, &[]);
    assert!(!o.status.success());
    assert_eq!(error_lines(&o).len(), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("does not match"), "{}", stderr(&o));
    let o = minisign()
        .current_dir(&changed)
        .args(["-Vm", "SHA256SUMS", "-P", &public])
        .output()
        .unwrap();
    assert!(!o.status.success());

    // A signature by another key, over the true SHA256SUMS.
    let forged = t.join("forged");
    support::copy_tree(&dist, &forged);
    std::fs::remove_file(forged.join("SHA256SUMS.minisig")).unwrap();
    let o = minisign()
        .current_dir(&forged)
        .args(["-S", "-s"])
        .arg(t.join("other.key"))
        .args(["-m", "SHA256SUMS"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let o = verify(&forged, &[]);
    assert!(!o.status.success());
    assert_eq!(error_lines(&o).len(), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("not by the article's key"),
        "{}",
        stderr(&o)
    );
    // The key a reader gives must be the declared one.
    let o = verify(&dist, &["--public-key", &other]);
    assert!(!o.status.success());
    assert_eq!(error_lines(&o).len(), 1, "{}", stderr(&o));

    // A legacy signature (of the file, not its hash), which minisign -V still accepts, is
    // refused by name.
    let legacy = t.join("legacy");
    support::copy_tree(&dist, &legacy);
    std::fs::remove_file(legacy.join("SHA256SUMS.minisig")).unwrap();
    let o = minisign()
        .current_dir(&legacy)
        .args(["-S", "-l", "-s"])
        .arg(t.join("author.key"))
        .args(["-m", "SHA256SUMS"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let o = verify(&legacy, &[]);
    assert_eq!(error_lines(&o).len(), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("legacy"), "{}", stderr(&o));

    // A secret key kept inside the project would travel in the bundle: refused.
    std::fs::copy(t.join("author.key"), root.join("content/signing.key")).unwrap();
    let o = build(
        t,
        &root,
        "key-inside",
        Some(&root.join("content/signing.key")),
    );
    assert!(!o.status.success());
    assert_eq!(error_lines(&o).len(), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("inside the project folder"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_file(root.join("content/signing.key")).unwrap();

    // The build refuses to sign with a key the settings do not declare.
    let o = build(t, &root, "wrong-key", Some(&t.join("other.key")));
    assert!(!o.status.success());
    assert_eq!(error_lines(&o).len(), 1, "{}", stderr(&o));
    assert!(!t.join("wrong-key").exists());
}

/// The bundle's entries, read with the `zip` crate: path inside the bundle's folder, size and
/// SHA-256.
fn entries_of(bundle: &Path) -> Vec<(String, u64, String)> {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(bundle).unwrap()).unwrap();
    let root = scenario_ratios::base::layout::bundle_root();
    (0..zip.len())
        .map(|i| {
            let mut e = zip.by_index(i).unwrap();
            let name = e
                .name()
                .unwrap()
                .strip_prefix(root.as_str())
                .unwrap()
                .to_string();
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut e, &mut bytes).unwrap();
            let sha: String = Sha256::digest(&bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            (name, bytes.len() as u64, sha)
        })
        .collect()
}

/// Every entry of the bundle but the description itself is a File of the description with its
/// true size and SHA-256 (the inventory, which lists the description's digest, with its size).
#[test]
fn the_ro_crate_describes_every_file_of_the_bundle_with_its_true_size_and_sha256() {
    let out = support::built();
    let entries = entries_of(&out.join("reproducibility.zip"));
    let description = entries
        .iter()
        .find(|(n, _, _)| n == "ro-crate-metadata.json")
        .expect("the bundle holds ro-crate-metadata.json");
    let mut zip =
        zip::ZipArchive::new(std::fs::File::open(out.join("reproducibility.zip")).unwrap())
            .unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut zip
            .by_name(&format!(
                "{}ro-crate-metadata.json",
                scenario_ratios::base::layout::bundle_root()
            ))
            .unwrap(),
        &mut text,
    )
    .unwrap();
    assert_eq!(text.len() as u64, description.1);
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let graph = doc["@graph"].as_array().unwrap();
    let files: std::collections::BTreeMap<&str, &serde_json::Value> = graph
        .iter()
        .filter(|e| e["@type"] == "File")
        .map(|e| (e["@id"].as_str().unwrap(), e))
        .collect();
    assert_eq!(
        files.len(),
        entries.len() - 1,
        "one File per entry but itself"
    );
    for (name, size, sha) in &entries {
        if name == "ro-crate-metadata.json" {
            continue;
        }
        let f = files
            .get(name.as_str())
            .unwrap_or_else(|| panic!("{name} is not described"));
        assert_eq!(f["contentSize"], size.to_string(), "{name}");
        if name == "INVENTORY.sha256" {
            assert!(f.get("sha256").is_none());
        } else {
            assert_eq!(f["sha256"], sha.as_str(), "{name}");
        }
        assert!(f["encodingFormat"].is_string(), "{name}");
    }
    // The root lists every file, directly or through its crate's folder.
    let root = graph.iter().find(|e| e["@id"] == "./").unwrap();
    assert_eq!(
        root["license"]["@id"],
        "https://www.apache.org/licenses/LICENSE-2.0"
    );
    // The inputs carry their repository, commit and path.
    let csv = graph
        .iter()
        .find(|e| e["@type"] == "File" && e["@id"].as_str().unwrap().ends_with("summary.csv"))
        .unwrap();
    let based_on = csv["isBasedOn"]["@id"].as_str().unwrap();
    assert!(
        based_on.starts_with("https://github.com/mlcommons/"),
        "{based_on}"
    );
}

/// The venv of tests/release/requirements.txt (scripts/test makes it), probed once.
fn release_python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        support::python_with(
            "SCENARIO_RATIOS_RELEASE_PYTHON",
            &["cffconvert", "rocrate", "rocrate_validator"],
            "install tests/release/requirements.txt and run tests/release/seed_context.py \
             (scripts/test does, into a venv under ~/.cache/scenario-ratios)",
        )
    })
}

/// CITATION.cff (with a DOI) passes `cffconvert --validate`, and the unpacked bundle's
/// RO-Crate loads in ro-crate-py and passes rocrate-validator at RO-Crate 1.1's required level,
/// offline.
#[test]
fn citation_cff_and_the_ro_crate_pass_their_formats_own_validators() {
    let python = release_python();
    let bin = python.parent().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let root = project_declaring(
        t,
        "RWR7AgGwpbTrDHyrs1s8M9kb4LAf7kE2OCLlGMllBhdA8clYPeuO+ZzH",
        Some("10.5281/zenodo.1234567"),
    );
    let o = build(t, &root, "dist", None);
    assert!(o.status.success(), "{}", stderr(&o));
    let dist = t.join("dist");
    let cff = std::fs::read_to_string(dist.join("CITATION.cff")).unwrap();
    assert!(cff.contains("doi: \"10.5281/zenodo.1234567\""), "{cff}");
    let o = Command::new(bin.join("cffconvert"))
        .args(["--validate", "-i"])
        .arg(dist.join("CITATION.cff"))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        stderr(&o)
    );

    // The DOI is everywhere the page cites the article.
    let html = std::fs::read_to_string(dist.join("article.html")).unwrap();
    assert!(html.contains("<meta name=\"citation_doi\" content=\"10.5281/zenodo.1234567\">"));
    assert!(html.contains("doi = {10.5281/zenodo.1234567}"));
    assert!(html.contains("href=\"https://doi.org/10.5281/zenodo.1234567\""));
    assert!(html.contains("\"propertyID\":\"DOI\""));

    let unpacked = t.join("unpacked");
    let mut zip =
        zip::ZipArchive::new(std::fs::File::open(dist.join("reproducibility.zip")).unwrap())
            .unwrap();
    zip.extract(&unpacked).unwrap();
    let folder = unpacked.join(scenario_ratios::base::layout::bundle_folder());
    let description = std::fs::read_to_string(folder.join("ro-crate-metadata.json")).unwrap();
    assert!(description.contains("\"identifier\": \"https://doi.org/10.5281/zenodo.1234567\""));
    let o = Command::new(python)
        .arg("-c")
        .arg(
            "import sys\nfrom rocrate.rocrate import ROCrate\nc = ROCrate(sys.argv[1])\n\
             print(c.name, len(list(c.data_entities)))",
        )
        .arg(&folder)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout)
            .starts_with("The Server/Offline ratio is workload-specific "),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let o = Command::new(bin.join("rocrate-validator"))
        .env("COLUMNS", "200")
        .args([
            "validate",
            "--offline",
            "-p",
            "ro-crate-1.1",
            "-l",
            "required",
            "--no-paging",
            "-f",
            "json",
        ])
        .arg(&folder)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{report}{}", stderr(&o));
    let parsed: serde_json::Value = serde_json::from_str(report.trim()).unwrap_or_default();
    assert_eq!(parsed["passed"], true, "{report}");
}
