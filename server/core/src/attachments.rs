//! Images sent with prompts: stored once each under the state directory by the SHA-256 of
//! their bytes (`attachments/<hex>`, 0600), referenced by that id from the events and the
//! history, and read back as base64 when a model call carries them.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use sha2::{Digest, Sha256};

use crate::protocol::{ImageInput, ImageRef, ImageType};

/// Most images one prompt may carry.
pub const MAX_IMAGES: usize = 8;
/// Largest image accepted (Anthropic's limit per image).
pub const MAX_IMAGE_BYTES: usize = 5 * 1024 * 1024;
/// Tokens an image is counted as before a call (Anthropic's largest image is ~1,600).
pub const IMAGE_TOKENS: usize = 1_600;

#[derive(Debug)]
pub struct Attachments {
    dir: PathBuf,
}

/// A 64-character lower-case hex id (nothing else ever names a file here).
pub fn valid_id(id: &str) -> bool {
    id.len() == 64
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Whether `bytes` start like an image of `t` (the magic numbers).
fn looks_like(t: ImageType, bytes: &[u8]) -> bool {
    match t {
        ImageType::Png => bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
        ImageType::Jpeg => bytes.starts_with(&[0xFF, 0xD8, 0xFF]),
        ImageType::Gif => bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a"),
        ImageType::Webp => bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP",
    }
}

/// The image type of stored bytes.
pub fn sniff(bytes: &[u8]) -> Option<ImageType> {
    [
        ImageType::Png,
        ImageType::Jpeg,
        ImageType::Gif,
        ImageType::Webp,
    ]
    .into_iter()
    .find(|t| looks_like(*t, bytes))
}

impl Attachments {
    pub fn new(state_dir: &Path) -> Attachments {
        Attachments {
            dir: state_dir.join("attachments"),
        }
    }

    pub fn path(&self, id: &str) -> Option<PathBuf> {
        valid_id(id).then(|| self.dir.join(id))
    }

    /// Check one image completely (base64, size, that its bytes are what it says); the error
    /// says what is wrong with it.
    pub fn decode(img: &ImageInput) -> Result<Vec<u8>, String> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(img.data.as_bytes())
            .map_err(|e| format!("is not valid base64 ({e})"))?;
        if bytes.len() > MAX_IMAGE_BYTES {
            return Err(format!(
                "is {} bytes; at most {MAX_IMAGE_BYTES} are accepted",
                bytes.len()
            ));
        }
        if !looks_like(img.media_type, &bytes) {
            return Err(format!("is not a {} file", img.media_type.as_str()));
        }
        Ok(bytes)
    }

    /// Store checked bytes (once per content) and return their reference.
    pub fn save(
        &self,
        media_type: ImageType,
        bytes: &[u8],
        name: Option<&str>,
    ) -> std::io::Result<ImageRef> {
        let id = hex::encode(Sha256::digest(bytes));
        let path = self.dir.join(&id);
        if !path.exists() {
            std::fs::create_dir_all(&self.dir)?;
            let tmp = self.dir.join(format!(".{id}.{}", crate::util::new_id()));
            {
                use std::io::Write as _;
                use std::os::unix::fs::OpenOptionsExt as _;
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .open(&tmp)?;
                f.write_all(bytes)?;
                f.sync_all()?;
            }
            std::fs::rename(&tmp, &path)?;
        }
        Ok(ImageRef {
            id,
            media_type,
            bytes: bytes.len() as u64,
            name: name
                .map(|n| crate::util::truncate_str(n.trim(), 200).to_string())
                .filter(|n| !n.is_empty() && !n.chars().any(char::is_control)),
        })
    }

    /// The image's bytes as base64, or `None` when it is gone (an imported session).
    pub fn read_base64(&self, id: &str) -> Option<String> {
        let bytes = std::fs::read(self.path(id)?).ok()?;
        Some(base64::engine::general_purpose::STANDARD.encode(bytes))
    }
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

    fn input(t: ImageType, bytes: &[u8]) -> ImageInput {
        ImageInput {
            media_type: t,
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
            name: Some("shot.png".into()),
        }
    }

    #[test]
    fn checks_then_stores_once_by_content() {
        let dir = std::env::temp_dir().join(format!("tw-att-{}", crate::util::new_id()));
        let a = Attachments::new(&dir);
        let bytes = Attachments::decode(&input(ImageType::Png, PNG)).unwrap();
        let r1 = a.save(ImageType::Png, &bytes, Some("shot.png")).unwrap();
        let r2 = a.save(ImageType::Png, &bytes, None).unwrap();
        assert_eq!(r1.id, r2.id);
        assert!(valid_id(&r1.id));
        assert_eq!(
            a.read_base64(&r1.id).unwrap(),
            base64::engine::general_purpose::STANDARD.encode(PNG)
        );
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(a.path(&r1.id).unwrap())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(
            Attachments::decode(&input(ImageType::Jpeg, PNG))
                .unwrap_err()
                .contains("image/jpeg")
        );
        let mut bad = input(ImageType::Png, PNG);
        bad.data = "%%%".into();
        assert!(Attachments::decode(&bad).unwrap_err().contains("base64"));
        assert!(a.path("../etc/passwd").is_none());
        assert!(a.read_base64(&"0".repeat(64)).is_none());
        let _ = std::fs::remove_dir_all(dir);
    }
}
