//! Between validation and writing: the author's minisign signature of `SHA256SUMS`
//! (`SHA256SUMS.minisig`), made when the build is given the secret key
//! ([`KEY_VAR`](ratios_base::minisign::KEY_VAR)). The signature lists nothing and is listed
//! nowhere (SHA256SUMS, the bundle and the page are all made before it), so a build without the
//! key, such as a reader's rebuild, gives every other file byte for byte.

use std::path::{Path, PathBuf};

use ratios_base::dist::Dist;
use ratios_base::error::{Error, Result};
use ratios_base::minisign::KeyId;
use ratios_model::project::config::ArticleConfig;

/// The secret key a build signs with: its file, and its password when it is encrypted.
#[derive(Clone)]
pub struct SigningKey {
    /// The minisign secret key file, as `SCENARIO_RATIOS_MINISIGN_KEY` names it.
    pub path: PathBuf,
    /// Its password, from `SCENARIO_RATIOS_MINISIGN_PASSWORD`; `None` for a key stored
    /// unencrypted.
    pub password: Option<String>,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the password.
        write!(f, "SigningKey({})", self.path.display())
    }
}

/// What the build did about the signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// `SHA256SUMS.minisig` was added, made with the key of this id (the one the settings
    /// declare).
    Signed(KeyId),
    /// No key given; `declared` is the key the settings name, if any.
    Unsigned {
        /// The id of the public key `content/article.json` declares; `None` when it declares
        /// none.
        declared: Option<KeyId>,
    },
}

/// The trusted comment of the article's signature: what is signed, and where it is published.
pub fn trusted_comment(config: &ArticleConfig) -> String {
    format!(
        "SHA256SUMS of \"{}\" {}",
        config.title, config.canonical_url
    )
}

/// Signs `dist`'s SHA256SUMS with `key`, when given, adding `SHA256SUMS.minisig`. The key must
/// be the one the settings declare.
pub fn sign(
    dist: &mut Dist,
    config: &ArticleConfig,
    key: Option<&SigningKey>,
    root: &Path,
    out: &Path,
) -> Result<Outcome> {
    let declared = config.public_key();
    let Some(key) = key else {
        return Ok(Outcome::Unsigned {
            declared: declared.map(|k| k.id()),
        });
    };
    // The project's files travel in the bundle and the output folder is published: a secret
    // key in either would be published with the article.
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let at = canonical(&key.path);
    for (folder, what) in [
        (root, "the project folder, whose files the bundle carries"),
        (out, "the output folder, which is published"),
    ] {
        if at.starts_with(canonical(folder)) {
            return Err(Error::Signing {
                file: key.path.display().to_string(),
                message: format!(
                    "the secret key lies inside {what}: keep it outside (e.g. ~/.minisign/), so that it is never published"
                ),
            });
        }
    }
    sign_with(dist, config, key, declared)
}

#[cfg(not(feature = "sign"))]
fn sign_with(
    _: &mut Dist,
    _: &ArticleConfig,
    key: &SigningKey,
    _: Option<ratios_base::minisign::PublicKey>,
) -> Result<Outcome> {
    Err(Error::Signing {
        file: key.path.display().to_string(),
        message: format!(
            "{} names a key, but this program was built without signing: run it with `cargo run --release --features sign`",
            ratios_base::minisign::KEY_VAR
        ),
    })
}

#[cfg(feature = "sign")]
fn sign_with(
    dist: &mut Dist,
    config: &ArticleConfig,
    key: &SigningKey,
    declared: Option<ratios_base::minisign::PublicKey>,
) -> Result<Outcome> {
    use ratios_base::layout::OutputFile;
    use ratios_base::minisign::signing::{SecretKey, MAX_KEY_FILE};
    use ratios_model::project::config::CONFIG_PATH;
    let file = key.path.display().to_string();
    let fail = |message: String| Error::Signing {
        file: file.clone(),
        message,
    };
    let bytes = ratios_base::fetch::read_file(&key.path, MAX_KEY_FILE as u64)
        .map_err(|e| fail(e.to_string()))?
        .ok_or_else(|| {
            fail(format!(
                "larger than {MAX_KEY_FILE} bytes: not a minisign secret key file"
            ))
        })?;
    let text = String::from_utf8(bytes)
        .map_err(|_| fail("is not a minisign secret key file (not UTF-8)".into()))?;
    let secret = SecretKey::parse(&text, key.password.as_deref()).map_err(fail)?;
    match declared {
        None => {
            return Err(fail(format!(
                "{CONFIG_PATH} declares no public key: add \"signing\": {{ \"public_key\": \"{}\", \"also_published_at\": [\"https://…\"] }} so that the page prints it and `verify` checks against it",
                secret.public_key().as_str()
            )))
        }
        Some(d) if d != *secret.public_key() => {
            return Err(fail(format!(
                "is key {}, but {CONFIG_PATH} declares key {}: sign with that key, or declare this one",
                secret.id(),
                d.id()
            )))
        }
        Some(_) => {}
    }
    let sums = dist
        .get(OutputFile::Sums.path())
        .ok_or_else(|| fail("there is no SHA256SUMS to sign".into()))?;
    let signature = secret.sign(sums, &trusted_comment(config)).map_err(fail)?;
    dist.add(OutputFile::Signature.path(), signature.into_bytes())?;
    Ok(Outcome::Signed(secret.id()))
}
