//! Minisign signatures of `SHA256SUMS`: the author's public key as the settings give it, the key
//! id minisign prints, checking a signature (`minisign-verify`, which the reader's rebuild
//! compiles), and, with the `sign` feature only, making one. A signature is made the way
//! `minisign -S` makes it (Ed25519 over the file's BLAKE2b-512, then over the signature and the
//! trusted comment) but without minisign's random noise, so one key, one file and one comment
//! always give the same bytes (Ed25519 is deterministic; minisign hedges it, which a verifier
//! cannot tell apart).

use ct_codecs::{Base64, Decoder};
use std::fmt;

/// Bytes of a decoded public key: algorithm `Ed`, key id, Ed25519 key.
const PUBLIC_KEY_BYTES: usize = 2 + 8 + 32;
/// Bytes of a decoded signature line: algorithm, key id, Ed25519 signature.
const SIGNATURE_BYTES: usize = 2 + 8 + 64;

/// A key id, as minisign prints it: the 8 id bytes read as a little-endian number, in
/// upper-case hexadecimal without leading zeros.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyId(u64);

impl KeyId {
    fn from_bytes(bytes: &[u8]) -> Option<KeyId> {
        Some(KeyId(u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?)))
    }
}

impl fmt::Display for KeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:X}", self.0)
    }
}

fn decode(text: &str, max: usize) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; max];
    let n = Base64::decode(&mut buf, text.trim(), None).ok()?.len();
    buf.truncate(n);
    Some(buf)
}

/// A minisign public key, as `minisign -G` writes it on the second line of `minisign.pub`
/// (56 characters of base64 starting `RW`).
#[derive(Clone)]
pub struct PublicKey {
    text: String,
    id: KeyId,
    key: minisign_verify::PublicKey,
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey({})", self.text)
    }
}

impl PublicKey {
    /// Reads a key written in base64; the error says what is wrong with it.
    pub fn parse(text: &str) -> Result<PublicKey, String> {
        let bytes = decode(text, PUBLIC_KEY_BYTES)
            .filter(|b| b.len() == PUBLIC_KEY_BYTES)
            .ok_or("is not a minisign public key (the 56 base64 characters on the second line of minisign.pub, starting RW)")?;
        if &bytes[..2] != b"Ed" {
            return Err("is not an Ed25519 minisign public key".into());
        }
        let key = minisign_verify::PublicKey::from_base64(text.trim())
            .map_err(|e| format!("is not a minisign public key: {e}"))?;
        Ok(PublicKey {
            text: text.trim().to_string(),
            id: KeyId::from_bytes(&bytes[2..]).ok_or("has no key id")?,
            key,
        })
    }

    /// The key's id, from its bytes, as minisign prints it and a signature names its signer.
    pub fn id(&self) -> KeyId {
        self.id
    }

    /// The key as written (base64).
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl PartialEq for PublicKey {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

/// Why a signature does not authenticate a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Not in minisign's signature format.
    Malformed(String),
    /// Made by another key than the expected one.
    OtherKey {
        /// The id of the key the signature names as its signer.
        signed_by: KeyId,
        /// The id of the key it was checked against (the article's).
        expected: KeyId,
    },
    /// A legacy signature of the file itself rather than of its BLAKE2b-512 (`minisign -l`).
    Legacy,
    /// By the expected key, but not of these bytes (or its trusted comment was changed).
    NoMatch,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Malformed(why) => write!(f, "not a minisign signature ({why})"),
            Refusal::OtherKey {
                signed_by,
                expected,
            } => write!(
                f,
                "signed by key {signed_by}, not by the article's key {expected}"
            ),
            Refusal::Legacy => write!(
                f,
                "a legacy minisign signature (made with -l, of the file rather than its hash); the article's signatures are prehashed, as minisign 0.8 and later make them"
            ),
            Refusal::NoMatch => write!(
                f,
                "the signature does not match: the signed file or its trusted comment was changed"
            ),
        }
    }
}

/// What a valid signature says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signed {
    /// The id of the key that made the signature: the expected one.
    pub key: KeyId,
    /// The signature's trusted comment, authenticated with it: what was signed, and where it is
    /// published.
    pub trusted_comment: String,
}

/// Checks the minisign signature `signature` (the text of a `.minisig` file) of `data` against
/// `key`: the key id first, then the signature and its trusted comment.
pub fn verify(key: &PublicKey, signature: &str, data: &[u8]) -> Result<Signed, Refusal> {
    let sig = minisign_verify::Signature::decode(signature)
        .map_err(|e| Refusal::Malformed(e.to_string()))?;
    let line = signature.lines().nth(1).unwrap_or_default();
    let raw = decode(line, SIGNATURE_BYTES)
        .filter(|b| b.len() == SIGNATURE_BYTES)
        .ok_or_else(|| Refusal::Malformed("its second line is not a signature".into()))?;
    let signed_by = KeyId::from_bytes(&raw[2..])
        .ok_or_else(|| Refusal::Malformed("its second line is not a signature".into()))?;
    if signed_by != key.id {
        return Err(Refusal::OtherKey {
            signed_by,
            expected: key.id,
        });
    }
    if &raw[..2] == b"Ed" {
        return Err(Refusal::Legacy);
    }
    key.key
        .verify(data, &sig, false)
        .map_err(|_| Refusal::NoMatch)?;
    Ok(Signed {
        key: signed_by,
        trusted_comment: sig.trusted_comment().to_string(),
    })
}

/// Signing, for the author's build only (`--features sign`).
#[cfg(feature = "sign")]
pub mod signing {
    use super::{KeyId, PublicKey};
    use blake2::{Blake2b512, Digest};
    use ct_codecs::{Base64, Decoder, Encoder};

    /// Largest secret key file read (one is about 350 bytes).
    pub const MAX_KEY_FILE: usize = 4096;

    /// A secret key, decrypted, with its public half.
    pub struct SecretKey {
        key: ed25519_compact::SecretKey,
        public: PublicKey,
    }

    impl SecretKey {
        /// Reads the text of a minisign secret key file (`minisign -G` writes one), decrypting
        /// it with `password` when it is encrypted. Errors say what to do, never the key.
        pub fn parse(text: &str, password: Option<&str>) -> Result<SecretKey, String> {
            let line = text.lines().nth(1).unwrap_or_default().trim();
            let mut buf = vec![0u8; 256];
            let raw = Base64::decode(&mut buf, line, None)
                .map_err(|_| "is not a minisign secret key file (its second line is not base64)")?
                .to_vec();
            // sig_alg, kdf_alg, chk_alg (2 bytes each), salt (32), ops and mem limits (8 each),
            // then the key id (8), the Ed25519 secret key (64) and a checksum (32).
            if raw.len() != 158 || &raw[..2] != b"Ed" {
                return Err("is not a minisign Ed25519 secret key file".into());
            }
            let bytes = match (&raw[2..4], password) {
                // `minisign -G -W`: stored as is (minisign 0.11 leaves its checksum zero).
                (b"\0\0", _) => raw,
                (b"Sc", None) => {
                    return Err(format!(
                        "is encrypted: put its password in {}",
                        crate::minisign::PASSWORD_VAR
                    ))
                }
                (b"Sc", Some(p)) => minisign::SecretKeyBox::from_string(text)
                    .and_then(|b| b.into_secret_key(Some(p.to_string())))
                    .map_err(|e| {
                        let why = e.to_string();
                        let mut chars = why.chars();
                        let why = match chars.next() {
                            Some(c) => c.to_lowercase().chain(chars).collect(),
                            None => why,
                        };
                        format!(
                            "cannot be decrypted with the password in {}: {why}",
                            crate::minisign::PASSWORD_VAR
                        )
                    })?
                    .to_bytes(),
                _ => return Err("uses a key derivation minisign does not make".into()),
            };
            let (id, sk) = (&bytes[54..62], &bytes[62..126]);
            let key = ed25519_compact::SecretKey::from_slice(sk)
                .map_err(|_| "holds no valid Ed25519 key")?;
            // The key's second half is its public key: it must be the one its seed makes.
            let seed = ed25519_compact::Seed::from_slice(&sk[..32])
                .map_err(|_| "holds no valid Ed25519 key")?;
            if ed25519_compact::KeyPair::from_seed(seed).pk.as_ref() != &sk[32..] {
                return Err("is damaged: its public half does not match its secret half".into());
            }
            let mut public = Vec::with_capacity(42);
            public.extend_from_slice(b"Ed");
            public.extend_from_slice(id);
            public.extend_from_slice(key.public_key().as_ref());
            let text = Base64::encode_to_string(&public).map_err(|e| e.to_string())?;
            Ok(SecretKey {
                key,
                public: PublicKey::parse(&text)?,
            })
        }

        /// The public half, which `content/article.json` must declare for the build to sign.
        pub fn public_key(&self) -> &PublicKey {
            &self.public
        }

        /// The key id the secret key file records, which its signatures name.
        pub fn id(&self) -> KeyId {
            self.public.id()
        }

        /// A minisign signature of `data` (prehashed, as minisign signs by default) with
        /// `trusted_comment` (one line), in the text of a `.minisig` file. The same inputs give
        /// the same bytes.
        pub fn sign(&self, data: &[u8], trusted_comment: &str) -> Result<String, String> {
            if trusted_comment.contains(['\n', '\r']) {
                return Err("a trusted comment is one line".into());
            }
            let prehash = Blake2b512::digest(data);
            let sig = self.key.sign(prehash, None);
            let mut line = Vec::with_capacity(74);
            line.extend_from_slice(b"ED");
            line.extend_from_slice(&self.id().0.to_le_bytes());
            line.extend_from_slice(sig.as_ref());
            let mut global = sig.as_ref().to_vec();
            global.extend_from_slice(trusted_comment.as_bytes());
            let global_sig = self.key.sign(&global, None);
            let b64 = |b: &[u8]| Base64::encode_to_string(b).map_err(|e| e.to_string());
            Ok(format!(
                "untrusted comment: signature from minisign secret key {}\n{}\ntrusted comment: {trusted_comment}\n{}\n",
                self.id(),
                b64(&line)?,
                b64(global_sig.as_ref())?
            ))
        }
    }
}

/// The environment variable naming the secret key file the build signs with.
pub const KEY_VAR: &str = "SCENARIO_RATIOS_MINISIGN_KEY";
/// The environment variable holding the secret key's password, when it has one.
pub const PASSWORD_VAR: &str = "SCENARIO_RATIOS_MINISIGN_PASSWORD";

#[cfg(test)]
mod tests {
    use super::*;

    // Two throwaway key pairs made for these tests with Debian's minisign 0.11
    // (`minisign -G -W`), and a signature of b"hello\n" that minisign made with key A
    // (`minisign -S -t "a comment"`). They sign nothing else.
    const KEY_A: &str = "RWR7AgGwpbTrDHyrs1s8M9kb4LAf7kE2OCLlGMllBhdA8clYPeuO+ZzH";
    const KEY_B: &str = "RWQHj86psz2whr3xFHjmyMhAs7R5s4gIoVhrkC/aJMJZkIaCrcxmIeWT";
    const HELLO_SIG: &str = "untrusted comment: signature from minisign secret key
RUR7AgGwpbTrDDdkbliJxyn0cvs/Pqvy69NKCN610zLTpBW+ukYTCsnyNTKD4uY1lkWGk9IwczqCh+DLTz29DBsUkYeHAegc0ws=
trusted comment: a comment
WjpxbHbaQph+j+px81qbf1psbqjuTvjY0DoQSh96kXJxTnOSL9KWhl0ZPjDKtZXvDaRIfik4isn8RuKZ16kNBQ==
";

    #[test]
    fn a_public_key_gives_the_id_minisign_prints() {
        // minisign wrote "minisign public key CEBB4A5B001027B" and "... 86B03DB3A9CE8F07".
        assert_eq!(
            PublicKey::parse(KEY_A).unwrap().id().to_string(),
            "CEBB4A5B001027B"
        );
        assert_eq!(
            PublicKey::parse(KEY_B).unwrap().id().to_string(),
            "86B03DB3A9CE8F07"
        );
        assert_eq!(PublicKey::parse(KEY_A).unwrap().as_str(), KEY_A);
        let longer = format!("{KEY_A}AAAA");
        for bad in ["", "RW", "not base64!", &KEY_A[..40], longer.as_str()] {
            assert!(PublicKey::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn minisigns_own_signature_is_accepted_and_every_change_refused() {
        let a = PublicKey::parse(KEY_A).unwrap();
        let b = PublicKey::parse(KEY_B).unwrap();
        assert_eq!(
            verify(&a, HELLO_SIG, b"hello\n"),
            Ok(Signed {
                key: a.id(),
                trusted_comment: "a comment".into()
            })
        );
        assert_eq!(verify(&a, HELLO_SIG, b"hello!\n"), Err(Refusal::NoMatch));
        assert_eq!(
            verify(&b, HELLO_SIG, b"hello\n"),
            Err(Refusal::OtherKey {
                signed_by: a.id(),
                expected: b.id()
            })
        );
        let comment = HELLO_SIG.replace("a comment", "another comment");
        assert_eq!(verify(&a, &comment, b"hello\n"), Err(Refusal::NoMatch));
        for bad in ["", "untrusted comment: x\n", "a\nb\nc\nd\n"] {
            assert!(
                matches!(verify(&a, bad, b"hello\n"), Err(Refusal::Malformed(_))),
                "{bad:?}"
            );
        }
    }

    #[cfg(feature = "sign")]
    mod signing {
        use super::super::signing::SecretKey;
        use super::*;

        // The secret half of KEY_A (unencrypted), and of a key made with a password (`pw`).
        const SECRET_A: &str = "untrusted comment: minisign encrypted secret key
RWQAAEIyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAewIBsKW06wyTZj1SMIUlc3u1ARcQlBd5aRsa/KdVDE2smjw5VcZrlHyrs1s8M9kb4LAf7kE2OCLlGMllBhdA8clYPeuO+ZzHAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=
";
        const SECRET_ENCRYPTED: &str = "untrusted comment: minisign encrypted secret key
RWRTY0IyE0SpEXOtAZPGaEJouXJo/uFSaJ0XKuBTf3GkQ6UOSusAAAACAAAAAAAAAEAAAAAAU6ioDjpDp5agJWVB7ke1rZunzzLqFw8IH0G3aGboJz6rrvvwmPKSG2iot3Ml5Vpr0oIJO4r84fvPuv6iv6YNagu92YABdZPrJXulcK7MdNDVRCb5aCKYCgpHuLDDFqFl8/AIlf0Tozc=
";

        #[test]
        fn a_signature_is_deterministic_and_verifies_with_the_public_key() {
            let sk = SecretKey::parse(SECRET_A, None).unwrap();
            assert_eq!(sk.public_key().as_str(), KEY_A);
            let one = sk.sign(b"hello\n", "a comment").unwrap();
            assert_eq!(one, sk.sign(b"hello\n", "a comment").unwrap());
            let a = PublicKey::parse(KEY_A).unwrap();
            assert_eq!(
                verify(&a, &one, b"hello\n").unwrap().trusted_comment,
                "a comment"
            );
            assert_eq!(verify(&a, &one, b"hello!\n"), Err(Refusal::NoMatch));
            assert!(sk.sign(b"x", "two\nlines").is_err());
        }

        #[test]
        fn an_encrypted_key_without_its_password_is_refused_naming_the_variable() {
            let err = SecretKey::parse(SECRET_ENCRYPTED, None).err().unwrap();
            assert!(err.contains(PASSWORD_VAR), "{err}");
            assert!(SecretKey::parse("untrusted comment: x\nnot a key\n", None).is_err());
            assert!(SecretKey::parse("", None).is_err());
        }
    }
}
