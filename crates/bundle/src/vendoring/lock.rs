//! Cargo.lock as the vendoring reads it: the registry crates it pins, each with the SHA-256 of
//! its `.crate` archive.

use serde::Deserialize;

use ratios_base::digest::HexDigest;
use ratios_base::error::{Error, Result};

/// A registry crate as Cargo.lock pins it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct LockedCrate {
    /// The crate's name on crates.io, as Cargo.lock's `name` gives it.
    pub name: String,
    /// The exact version Cargo.lock pins.
    pub version: String,
    /// SHA-256 of the `.crate` archive.
    pub checksum: HexDigest,
}

impl LockedCrate {
    /// `<name>-<version>`: the archive's stem and the vendored folder's name.
    pub fn dir(&self) -> String {
        format!("{}-{}", self.name, self.version)
    }

    /// `<name> <version>`, as the plan lists stubs.
    pub fn id(&self) -> String {
        format!("{} {}", self.name, self.version)
    }
}

/// The registry crates of a Cargo.lock, sorted.
pub fn locked_crates(lock_text: &str) -> Result<Vec<LockedCrate>> {
    #[derive(Deserialize)]
    struct Lock {
        #[serde(default)]
        package: Vec<Package>,
    }
    #[derive(Deserialize)]
    struct Package {
        name: String,
        version: String,
        source: Option<String>,
        checksum: Option<String>,
    }
    let err = |m: String| Error::Config {
        file: "Cargo.lock".into(),
        message: m,
    };
    let lock: Lock = basic_toml::from_str(lock_text).map_err(|e| err(e.to_string()))?;
    let mut crates = Vec::new();
    for p in lock.package {
        let Some(source) = p.source else { continue };
        if !source.starts_with("registry+") {
            return Err(err(format!(
                "{} {} comes from {source}; only registry crates can be vendored",
                p.name, p.version
            )));
        }
        let checksum = p
            .checksum
            .as_deref()
            .and_then(HexDigest::parse_sha256)
            .ok_or_else(|| err(format!("{} {} has no SHA-256 checksum", p.name, p.version)))?;
        let safe = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.+".contains(c))
        };
        if !safe(&p.name) || !safe(&p.version) {
            return Err(err(format!(
                "unexpected crate name or version {:?}",
                p.name
            )));
        }
        crates.push(LockedCrate {
            name: p.name,
            version: p.version,
            checksum,
        });
    }
    crates.sort();
    Ok(crates)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_is_read_and_checked() {
        let lock = "version = 4\n\n[[package]]\nname = \"a\"\nversion = \"1.0.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"\n\n[[package]]\nname = \"local\"\nversion = \"0.1.0\"\n";
        let c = locked_crates(lock).unwrap();
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].dir(), "a-1.0.0");
        let git = lock.replace("registry+https", "git+https");
        assert!(locked_crates(&git)
            .unwrap_err()
            .to_string()
            .contains("only registry crates"));
        let no_sum = lock.replace(
            "checksum = \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"\n",
            "",
        );
        assert!(locked_crates(&no_sum).is_err());
    }
}
