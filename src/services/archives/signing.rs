//! Archive signatures (issue 37, item 6): the digest says whether an archive is whole, not who
//! made it (anyone who edits the content can compute it again). Every archive this instance
//! writes is signed with its Ed25519 key; an import verifies the signature and imports only what
//! a trusted key signed: this instance's own, one of `ARCHIVE_TRUSTED_KEYS`, or the key the
//! admin names with the import after checking it with the exporting instance
//! (`GET /api/v1/archive-key` there). Readings: `docs/decisions/archives.md`.

use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use crate::error::ApiError;

/// The only signature algorithm.
pub const ALGORITHM: &str = "ed25519";

/// Domain separation of the key derived from the JWT secret.
const DERIVATION_LABEL: &[u8] = b"tourney archive signing key v1\0";

/// An archive's signature by the instance that wrote it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ArchiveSignature {
    /// Always `ed25519`.
    #[schema(example = "ed25519")]
    pub algorithm: String,
    /// The signing instance's public key: 64 hex digits, as its `GET /api/v1/archive-key`
    /// shows it.
    #[schema(example = "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c")]
    pub key: String,
    /// The Ed25519 signature (128 hex digits) of the text `<format> <version> <digest>`
    /// (e.g. `tourney.tournament-archive 2 sha256:9f86...`): the digest covers the content.
    pub value: String,
}

/// This instance's public archive key.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ArchiveKeyOut {
    /// Always `ed25519`.
    #[schema(example = "ed25519")]
    pub algorithm: String,
    /// 64 hex digits: what another instance puts in `ARCHIVE_TRUSTED_KEYS`, or an admin there
    /// names as `trust_key` when importing this instance's archives.
    #[schema(example = "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c")]
    pub key: String,
}

/// How an import trusts signers beyond the instance's own list (the import's own fields).
#[derive(Debug, Clone, Default)]
pub struct Trust {
    /// A key the admin checked with the exporting instance (`trust_key`).
    pub key: Option<String>,
    /// Import an archive that carries no signature (one written before archives were signed).
    pub unsigned: bool,
}

/// The instance's archive key and the keys it trusts.
#[derive(Clone)]
pub struct ArchiveKeys {
    signing: SigningKey,
    trusted: Vec<VerifyingKey>,
}

impl std::fmt::Debug for ArchiveKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArchiveKeys")
            .field("key", &self.public_hex())
            .field("trusted", &self.trusted.len())
            .finish()
    }
}

/// A public key from 64 hex digits.
pub fn parse_key(text: &str) -> Option<VerifyingKey> {
    let bytes: [u8; 32] = hex::decode(text.trim()).ok()?.try_into().ok()?;
    VerifyingKey::from_bytes(&bytes).ok()
}

/// The text a signature covers.
fn signed_text(format: &str, version: u32, digest: &str) -> String {
    format!("{format} {version} {digest}")
}

impl ArchiveKeys {
    /// The key of the 32-byte seed `seed`, trusting `trusted` besides itself.
    pub fn new(seed: [u8; 32], trusted: Vec<VerifyingKey>) -> Self {
        Self {
            signing: SigningKey::from_bytes(&seed),
            trusted,
        }
    }

    /// The key derived from the instance's JWT secret (SHA-256 of a label and the secret):
    /// every instance sharing the secret signs with the same key, and the public key reveals
    /// nothing of the secret.
    pub fn derived(secret: &[u8], trusted: Vec<VerifyingKey>) -> Self {
        let mut h = Sha256::new();
        h.update(DERIVATION_LABEL);
        h.update(secret);
        Self::new(h.finalize().into(), trusted)
    }

    /// The public key, 64 hex digits.
    pub fn public_hex(&self) -> String {
        hex::encode(self.signing.verifying_key().as_bytes())
    }

    /// The public key as `GET /archive-key` shows it.
    pub fn public(&self) -> ArchiveKeyOut {
        ArchiveKeyOut {
            algorithm: ALGORITHM.into(),
            key: self.public_hex(),
        }
    }

    /// The signature of an archive of `format` and `version` with `digest`.
    pub fn sign(&self, format: &str, version: u32, digest: &str) -> ArchiveSignature {
        let sig = self
            .signing
            .sign(signed_text(format, version, digest).as_bytes());
        ArchiveSignature {
            algorithm: ALGORITHM.into(),
            key: self.public_hex(),
            value: hex::encode(sig.to_bytes()),
        }
    }

    fn trusts(&self, key: &VerifyingKey, trust: &Trust) -> bool {
        *key == self.signing.verifying_key()
            || self.trusted.contains(key)
            || trust.key.as_deref().and_then(parse_key).as_ref() == Some(key)
    }

    /// The archive's signature holds and its key is trusted (422 on `<at>.signature` naming
    /// what is wrong).
    pub fn check(
        &self,
        at: &str,
        (format, version, digest): (&str, u32, &str),
        signature: Option<&ArchiveSignature>,
        trust: &Trust,
    ) -> Result<(), ApiError> {
        let field = format!("{at}.signature");
        let Some(s) = signature else {
            if trust.unsigned {
                return Ok(());
            }
            return Err(ApiError::field(
                field,
                "the archive is not signed, so nothing says which instance wrote it; import it \
                 only if you know where it comes from, with `accept_unsigned: true`",
            ));
        };
        if s.algorithm != ALGORITHM {
            return Err(ApiError::field(
                format!("{field}.algorithm"),
                format!("unknown signature algorithm (this service reads `{ALGORITHM}`)"),
            ));
        }
        let key = parse_key(&s.key).ok_or_else(|| {
            ApiError::field(
                format!("{field}.key"),
                "not an Ed25519 public key (64 hex digits)",
            )
        })?;
        let sig = hex::decode(&s.value)
            .ok()
            .and_then(|b| <[u8; 64]>::try_from(b).ok())
            .map(|b| Signature::from_bytes(&b));
        let valid = sig.is_some_and(|sig| {
            key.verify(signed_text(format, version, digest).as_bytes(), &sig)
                .is_ok()
        });
        if !valid {
            return Err(ApiError::field(
                format!("{field}.value"),
                "the signature does not match the archive: it was changed after it was signed",
            ));
        }
        if !self.trusts(&key, trust) {
            return Err(ApiError::field(
                format!("{field}.key"),
                format!(
                    "signed by key {}, which this instance does not trust: compare it with the \
                     exporting instance's GET /api/v1/archive-key, then add it to \
                     ARCHIVE_TRUSTED_KEYS or name it in `trust_key`",
                    s.key
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(n: u8) -> ArchiveKeys {
        ArchiveKeys::new([n; 32], Vec::new())
    }

    const ARCHIVE: (&str, u32, &str) = ("tourney.tournament-archive", 2, "sha256:00");

    #[test]
    fn an_own_signature_holds_and_a_changed_digest_does_not() {
        let k = keys(1);
        let s = k.sign(ARCHIVE.0, ARCHIVE.1, ARCHIVE.2);
        assert!(k
            .check("archive", ARCHIVE, Some(&s), &Trust::default())
            .is_ok());
        let changed = (ARCHIVE.0, ARCHIVE.1, "sha256:01");
        assert!(k
            .check("archive", changed, Some(&s), &Trust::default())
            .is_err());
        let other_version = (ARCHIVE.0, 1, ARCHIVE.2);
        assert!(k
            .check("archive", other_version, Some(&s), &Trust::default())
            .is_err());
    }

    #[test]
    fn a_foreign_key_is_trusted_only_when_listed_or_named() {
        let (mine, theirs) = (keys(1), keys(2));
        let s = theirs.sign(ARCHIVE.0, ARCHIVE.1, ARCHIVE.2);
        assert!(mine
            .check("archive", ARCHIVE, Some(&s), &Trust::default())
            .is_err());
        let named = Trust {
            key: Some(theirs.public_hex()),
            unsigned: false,
        };
        assert!(mine.check("archive", ARCHIVE, Some(&s), &named).is_ok());
        let listed = ArchiveKeys::new([1; 32], vec![parse_key(&theirs.public_hex()).unwrap()]);
        assert!(listed
            .check("archive", ARCHIVE, Some(&s), &Trust::default())
            .is_ok());
        // A signature naming a trusted key but made with another one does not hold.
        let mut forged = keys(3).sign(ARCHIVE.0, ARCHIVE.1, ARCHIVE.2);
        forged.key = mine.public_hex();
        assert!(mine
            .check("archive", ARCHIVE, Some(&forged), &Trust::default())
            .is_err());
    }

    #[test]
    fn an_unsigned_archive_imports_only_when_accepted() {
        let k = keys(1);
        assert!(k
            .check("archive", ARCHIVE, None, &Trust::default())
            .is_err());
        let accept = Trust {
            key: None,
            unsigned: true,
        };
        assert!(k.check("archive", ARCHIVE, None, &accept).is_ok());
    }

    #[test]
    fn the_derived_key_depends_on_the_secret() {
        let a = ArchiveKeys::derived(b"secret one", Vec::new());
        let b = ArchiveKeys::derived(b"secret one", Vec::new());
        let c = ArchiveKeys::derived(b"secret two", Vec::new());
        assert_eq!(a.public_hex(), b.public_hex());
        assert_ne!(a.public_hex(), c.public_hex());
    }
}
