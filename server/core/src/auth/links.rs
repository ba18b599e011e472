//! One-time sign-in links. A link carries a random code (128 bits), distinct from the access
//! token, that signs one browser in and is then gone. Codes live as files in `links/` inside the
//! 0700 state directory — named by the code's SHA-256, holding the expiry — so `tradewind link`,
//! run on the server's machine by the user who owns the state directory, can mint one for a
//! running server without any HTTP route that trusts loopback (which every local user could call).
//! Redeeming renames the file away first, so two browsers racing with one link get one sign-in.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::util::{now_ms, random_hex, sha256_hex};

/// The start banner's and `tradewind link`'s links last 15 minutes.
pub const LINK_TTL_MS: i64 = 15 * 60 * 1000;
/// A link minted by a signed-in device ("Add a device") lasts 5 minutes.
pub const DEVICE_LINK_TTL_MS: i64 = 5 * 60 * 1000;

/// What happened to a presented code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redeemed {
    Valid,
    /// Known but past its expiry.
    Expired,
    /// Never minted, already used, or malformed.
    Unknown,
}

#[derive(Debug, Clone)]
pub struct LinkCodes {
    dir: PathBuf,
}

impl LinkCodes {
    pub fn new(state_dir: &Path) -> LinkCodes {
        LinkCodes {
            dir: state_dir.join("links"),
        }
    }

    /// A new code valid for `ttl_ms`.
    pub fn mint(&self, ttl_ms: i64) -> anyhow::Result<String> {
        crate::state_dir::ensure_dir(&self.dir)?;
        self.sweep();
        let code = random_hex(16)?;
        let path = self.dir.join(sha256_hex(code.as_bytes()));
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        // Not synced: a link lives minutes, and one lost in a crash is minted again.
        write!(f, "{}", now_ms() + ttl_ms)?;
        Ok(code)
    }

    /// Use a code up. Only 32 lowercase hex digits can name a file here.
    pub fn redeem(&self, code: &str) -> Redeemed {
        if code.len() != 32 || !code.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Redeemed::Unknown;
        }
        let path = self.dir.join(sha256_hex(code.as_bytes()));
        let Ok(suffix) = random_hex(8) else {
            return Redeemed::Unknown;
        };
        let taken = self.dir.join(format!(".used-{suffix}"));
        // The rename is the single-use point: of two racing requests only one succeeds.
        if std::fs::rename(&path, &taken).is_err() {
            return Redeemed::Unknown;
        }
        let expires = std::fs::read_to_string(&taken)
            .ok()
            .and_then(|s| s.trim().parse::<i64>().ok());
        let _ = std::fs::remove_file(&taken);
        match expires {
            Some(t) if t > now_ms() => Redeemed::Valid,
            Some(_) => Redeemed::Expired,
            None => Redeemed::Unknown,
        }
    }

    /// Remove expired and half-redeemed files.
    pub fn sweep(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let now = now_ms();
        for e in entries.flatten() {
            let p = e.path();
            let stale = e.file_name().to_string_lossy().starts_with(".used-")
                || std::fs::read_to_string(&p)
                    .ok()
                    .and_then(|s| s.trim().parse::<i64>().ok())
                    .is_none_or(|t| t <= now);
            if stale {
                let _ = std::fs::remove_file(&p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!("tw-links-{}", crate::util::new_id()));
        std::fs::create_dir_all(&d).unwrap_or_default();
        d
    }

    #[test]
    fn a_code_works_once_and_expires() {
        let d = dir();
        let links = LinkCodes::new(&d);
        let code = links.mint(60_000).unwrap_or_default();
        assert_eq!(code.len(), 32);
        assert_eq!(links.redeem(&code), Redeemed::Valid);
        assert_eq!(links.redeem(&code), Redeemed::Unknown, "single use");
        let old = links.mint(-1).unwrap_or_default();
        assert_eq!(links.redeem(&old), Redeemed::Expired);
        assert_eq!(links.redeem("../../etc/passwd"), Redeemed::Unknown);
        assert_eq!(links.redeem(&"A".repeat(32)), Redeemed::Unknown);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn files_are_private_and_named_by_hash() {
        use std::os::unix::fs::PermissionsExt;
        let d = dir();
        let links = LinkCodes::new(&d);
        let code = links.mint(60_000).unwrap_or_default();
        let f = d.join("links").join(sha256_hex(code.as_bytes()));
        let mode = std::fs::metadata(&f)
            .map(|m| m.permissions().mode())
            .unwrap_or(0);
        assert_eq!(mode & 0o777, 0o600);
        let dmode = std::fs::metadata(d.join("links"))
            .map(|m| m.permissions().mode())
            .unwrap_or(0);
        assert_eq!(dmode & 0o077, 0);
        let _ = std::fs::remove_dir_all(&d);
    }
}
