//! One key store: the server's own secret key, from which every key it uses is derived — the
//! page tokens' and view tokens' MAC key, the key that seals secrets at rest (provider and web
//! search keys). It lives in a file of the state directory (`keys/master.key`, 0600 in a 0700
//! folder) that `tradewind backup` never copies: a backup holds sealed secrets only, and restored
//! elsewhere it asks for them again (a value that does not open reads as missing).
//!
//! (An OS keyring is not used: the server runs headless here, where none is reachable; the
//! teams issue adds per-user keys and the nodes issue a key shared between nodes, both derived
//! from or sealed by this one.)

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::Context;
use aws_lc_rs::{aead, hmac};
use base64::Engine;

/// What a sealed value starts with (version 1: AES-256-GCM, a 96-bit random nonce).
const SEALED_PREFIX: &str = "tw1:";
const KEY_BYTES: usize = 32;

pub struct KeyStore {
    /// Read or made on first use (never on the start path): `Err` says why it cannot be.
    master: std::sync::OnceLock<Result<[u8; KEY_BYTES], String>>,
    dir: PathBuf,
    path: PathBuf,
}

impl std::fmt::Debug for KeyStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyStore")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// Why a sealed value cannot be opened.
#[derive(Debug, PartialEq, Eq)]
pub enum OpenError {
    /// Not a sealed value (a secret stored in clear by an older version).
    NotSealed,
    /// Sealed with another key (a backup restored on another machine) or damaged.
    WrongKey,
    /// The key store cannot be read or made (logged when it happens).
    NoKey,
}

impl KeyStore {
    /// The state directory's key store; its key is read, or made, on first use.
    pub fn open(state_dir: &Path) -> anyhow::Result<KeyStore> {
        let dir = state_dir.join("keys");
        Ok(KeyStore {
            master: std::sync::OnceLock::new(),
            path: dir.join("master.key"),
            dir,
        })
    }

    fn master(&self) -> anyhow::Result<&[u8; KEY_BYTES]> {
        self.master
            .get_or_init(|| {
                self.load_or_make().map_err(|e| {
                    tracing::error!(error = %e, "the key store cannot be used");
                    format!("{e:#}")
                })
            })
            .as_ref()
            .map_err(|e| anyhow::anyhow!("{e}"))
    }

    fn load_or_make(&self) -> anyhow::Result<[u8; KEY_BYTES]> {
        let dir = &self.dir;
        if !dir.is_dir() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).ok();
        let path = &self.path;
        match std::fs::read(path) {
            Ok(bytes) => <[u8; KEY_BYTES]>::try_from(bytes.as_slice()).map_err(|_| {
                anyhow::anyhow!(
                    "{} is not a Tradewind key ({} bytes, expected {KEY_BYTES}); move it away to make a new one (saved provider keys must then be entered again)",
                    path.display(),
                    bytes.len()
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let mut key = [0u8; KEY_BYTES];
                getrandom::fill(&mut key)
                    .map_err(|e| anyhow::anyhow!("OS random source failed: {e}"))?;
                let tmp = dir.join(format!("master.key.{}", std::process::id()));
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .open(&tmp)
                    .with_context(|| format!("cannot create {}", tmp.display()))?;
                f.write_all(&key)?;
                f.sync_all()?;
                // Two servers never share a state dir (its lock), so no one else races here.
                std::fs::rename(&tmp, path)?;
                Ok(key)
            }
            Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
    }

    /// A key for one purpose: HMAC-SHA256(master, label).
    fn derive(&self, label: &str) -> anyhow::Result<[u8; KEY_BYTES]> {
        let k = hmac::Key::new(hmac::HMAC_SHA256, self.master()?);
        let tag = hmac::sign(&k, label.as_bytes());
        let mut out = [0u8; KEY_BYTES];
        out.copy_from_slice(&tag.as_ref()[..KEY_BYTES]);
        Ok(out)
    }

    /// A MAC key for `purpose`, ready to sign with.
    pub fn mac_key(&self, purpose: &str) -> anyhow::Result<MacKey> {
        Ok(MacKey(hmac::Key::new(
            hmac::HMAC_SHA256,
            &self.derive(&format!("mac:{purpose}"))?,
        )))
    }

    fn aead_key(&self, purpose: &str) -> anyhow::Result<aead::LessSafeKey> {
        let k = self.derive(&format!("seal:{purpose}"))?;
        let unbound = aead::UnboundKey::new(&aead::AES_256_GCM, &k)
            .map_err(|_| anyhow::anyhow!("AES-256-GCM refused a 32-byte key"))?;
        Ok(aead::LessSafeKey::new(unbound))
    }

    /// `plain` sealed for `purpose` (bound to it: a value sealed for one purpose does not open
    /// as another).
    pub fn seal(&self, purpose: &str, plain: &[u8]) -> anyhow::Result<String> {
        let mut nonce = [0u8; aead::NONCE_LEN];
        getrandom::fill(&mut nonce).map_err(|e| anyhow::anyhow!("OS random source failed: {e}"))?;
        let mut buf = plain.to_vec();
        self.aead_key(purpose)?
            .seal_in_place_append_tag(
                aead::Nonce::assume_unique_for_key(nonce),
                aead::Aad::from(purpose.as_bytes()),
                &mut buf,
            )
            .map_err(|_| anyhow::anyhow!("sealing failed"))?;
        let mut out = nonce.to_vec();
        out.extend_from_slice(&buf);
        Ok(format!(
            "{SEALED_PREFIX}{}",
            base64::engine::general_purpose::STANDARD_NO_PAD.encode(out)
        ))
    }

    /// What [`seal`](Self::seal) made, opened.
    pub fn open_sealed(&self, purpose: &str, sealed: &str) -> Result<Vec<u8>, OpenError> {
        let body = sealed
            .strip_prefix(SEALED_PREFIX)
            .ok_or(OpenError::NotSealed)?;
        let raw = base64::engine::general_purpose::STANDARD_NO_PAD
            .decode(body)
            .map_err(|_| OpenError::WrongKey)?;
        if raw.len() < aead::NONCE_LEN + aead::AES_256_GCM.tag_len() {
            return Err(OpenError::WrongKey);
        }
        let (nonce, ct) = raw.split_at(aead::NONCE_LEN);
        let nonce = <[u8; aead::NONCE_LEN]>::try_from(nonce).map_err(|_| OpenError::WrongKey)?;
        let mut buf = ct.to_vec();
        let key = self.aead_key(purpose).map_err(|_| OpenError::NoKey)?;
        let plain = key
            .open_in_place(
                aead::Nonce::assume_unique_for_key(nonce),
                aead::Aad::from(purpose.as_bytes()),
                &mut buf,
            )
            .map_err(|_| OpenError::WrongKey)?;
        Ok(plain.to_vec())
    }

    pub fn is_sealed(value: &str) -> bool {
        value.starts_with(SEALED_PREFIX)
    }

    /// Where the key lives (backups leave it out).
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// A derived MAC key.
pub struct MacKey(hmac::Key);

impl MacKey {
    /// HMAC-SHA256 of `parts` (each length-prefixed, so `("ab","c")` ≠ `("a","bc")`), hex.
    pub fn sign_hex(&self, parts: &[&str]) -> String {
        let mut ctx = hmac::Context::with_key(&self.0);
        for p in parts {
            ctx.update(&(p.len() as u64).to_be_bytes());
            ctx.update(p.as_bytes());
        }
        hex::encode(ctx.sign().as_ref())
    }
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    #[test]
    fn sealed_values_open_only_with_their_key_and_purpose() {
        let dir = std::env::temp_dir().join(format!("tw-keys-{}", crate::util::new_id()));
        let ks = KeyStore::open(&dir).unwrap();
        assert!(!ks.path().exists(), "made on first use, not at open");
        let s = ks.seal("provider", b"sk-secret").unwrap();
        let mode = std::fs::metadata(ks.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(KeyStore::is_sealed(&s) && !s.contains("sk-secret"));
        assert_eq!(ks.open_sealed("provider", &s).unwrap(), b"sk-secret");
        assert_eq!(ks.open_sealed("other", &s), Err(OpenError::WrongKey));
        assert_eq!(
            ks.open_sealed("provider", "sk-clear"),
            Err(OpenError::NotSealed)
        );
        // The same file gives the same key; another state dir another.
        let again = KeyStore::open(&dir).unwrap();
        assert_eq!(again.open_sealed("provider", &s).unwrap(), b"sk-secret");
        let other_dir = dir.join("elsewhere");
        let other = KeyStore::open(&other_dir).unwrap();
        assert_eq!(other.open_sealed("provider", &s), Err(OpenError::WrongKey));
        let (a, b) = (ks.mac_key("page").unwrap(), other.mac_key("page").unwrap());
        assert_ne!(a.sign_hex(&["x"]), b.sign_hex(&["x"]));
        assert_ne!(a.sign_hex(&["ab", "c"]), a.sign_hex(&["a", "bc"]));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
