//! Web Push, so a prompt reaches a user whose app is closed: the server's VAPID key (RFC 8292,
//! kept in the state directory), each browser's subscription, and delivery of a notice
//! encrypted for that browser alone (RFC 8291 `aes128gcm`) to its push service (RFC 8030).
//! The push service sees only ciphertext; the service worker decrypts nothing itself (the
//! browser does) and shows the notice unless the app is on screen.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use aws_lc_rs::{aead, agreement, hkdf, rand as aws_rand, signature};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use serde::Serialize;

use crate::store::{PushSubscriptionRow, Store};

/// The VAPID private key (PKCS#8), created on first start.
pub const KEY_FILE: &str = "vapid.pk8";
/// One record: the whole notice must fit (RFC 8291 uses a single record).
const RECORD_SIZE: u32 = 4096;
/// The most plaintext bytes a notice may have (record size less the tag and the delimiter;
/// push services accept at least 4096 bytes of body, header included).
pub const MAX_NOTICE_BYTES: usize = 3_800;
/// How long a push service keeps an undelivered notice: a prompt waits about this long.
const TTL_SECS: u64 = 3_600;
/// The VAPID token's lifetime (at most 24 h by RFC 8292).
const JWT_SECS: i64 = 12 * 3_600;
/// Who runs this server, for the push service (RFC 8292 `sub`).
const SUBJECT: &str = "mailto:tradewind@localhost";
const SEND_TIMEOUT: Duration = Duration::from_secs(10);

/// What a notification says, and where a click takes the user.
#[derive(Debug, Clone, Serialize)]
pub struct Notice {
    pub title: String,
    pub body: String,
    /// A path in the app (`/s/<session>`).
    pub url: String,
    /// Notices with the same tag replace each other (one per prompt).
    pub tag: String,
    pub session: String,
}

impl Notice {
    /// The notice for a prompt of `kind` (approval, question, plan) in `session`.
    pub fn prompt(
        kind: crate::protocol::PromptKindName,
        session: &crate::protocol::SessionId,
        id: &str,
        summary: &str,
    ) -> Notice {
        use crate::protocol::PromptKindName as K;
        let what = match kind {
            K::Approval => "Approval needed",
            K::Question => "The agent has a question",
            K::Plan => "A plan is ready for review",
        };
        let body = if summary.trim().is_empty() {
            what.to_string()
        } else {
            format!("{what}: {}", crate::util::truncate_str(summary.trim(), 300))
        };
        Notice {
            title: "Tradewind needs you".into(),
            body,
            url: format!("/s/{session}"),
            tag: id.to_string(),
            session: session.to_string(),
        }
    }
}

/// How one delivery went.
#[derive(Debug, Clone)]
pub struct Delivery {
    pub subscription: String,
    /// `None`: the push service took it.
    pub error: Option<String>,
}

pub struct Push {
    store: Store,
    /// The key file in the state directory.
    path: std::path::PathBuf,
    /// The VAPID key and its public half, read (or made) when first needed: never on the start
    /// path.
    key: std::sync::OnceLock<Result<Vapid, String>>,
    client: crate::http_client::Lazy,
}

struct Vapid {
    key: signature::EcdsaKeyPair,
    /// The public key browsers subscribe with (`applicationServerKey`), base64url.
    public: String,
}

impl Push {
    /// The server's Web Push; its key is `vapid.pk8` in the state directory (mode 0600), made
    /// the first time it is needed.
    pub fn open(state_dir: &Path, store: Store) -> anyhow::Result<Push> {
        let client = crate::http_client::Lazy(crate::http_client::Policy {
            timeout: Some(SEND_TIMEOUT),
            ..crate::http_client::Policy::direct(SEND_TIMEOUT)
        });
        Ok(Push {
            store,
            path: state_dir.join(KEY_FILE),
            key: std::sync::OnceLock::new(),
            client,
        })
    }

    fn vapid(&self) -> Result<&Vapid, String> {
        self.key
            .get_or_init(|| load_or_create(&self.path).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The server's public key (base64url, uncompressed P-256 point).
    pub fn public_key(&self) -> Result<&str, String> {
        self.vapid().map(|v| v.public.as_str())
    }

    /// Send a notice to every live subscription in the background.
    pub fn notify(self: &Arc<Self>, n: Notice) {
        let me = self.clone();
        tokio::spawn(async move {
            me.send_all(&n).await;
        });
    }

    /// Send a notice to every live subscription, all at once; a subscription its push service
    /// says is gone (404, 410) is deleted.
    pub async fn send_all(&self, n: &Notice) -> Vec<Delivery> {
        let subs = match self.store.live_push_subscriptions().await {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the push subscriptions");
                return Vec::new();
            }
        };
        if subs.is_empty() {
            return Vec::new();
        }
        let payload = match serde_json::to_vec(n) {
            Ok(p) if p.len() <= MAX_NOTICE_BYTES => p,
            _ => return Vec::new(),
        };
        let sends = subs.iter().map(|s| self.send_one(s, &payload));
        futures::future::join_all(sends).await
    }

    async fn send_one(&self, sub: &PushSubscriptionRow, payload: &[u8]) -> Delivery {
        let error = match self.post(sub, payload).await {
            Ok(()) => None,
            Err(SendError::Gone(status)) => {
                if let Err(e) = self.store.delete_push_endpoint(&sub.endpoint).await {
                    tracing::warn!(error = %e, "cannot forget a push subscription");
                }
                Some(format!(
                    "the push service says the subscription is gone ({status})"
                ))
            }
            Err(SendError::Other(e)) => Some(e),
        };
        if let Err(e) = self.store.mark_push_result(&sub.id, error.as_deref()).await {
            tracing::debug!(error = %e, "cannot record a push delivery");
        }
        Delivery {
            subscription: sub.id.clone(),
            error,
        }
    }

    async fn post(&self, sub: &PushSubscriptionRow, payload: &[u8]) -> Result<(), SendError> {
        let url = url::Url::parse(&sub.endpoint).map_err(|e| SendError::Other(e.to_string()))?;
        let ua_public = B64
            .decode(&sub.p256dh)
            .map_err(|_| SendError::Other("the subscription's key is not base64url".into()))?;
        let auth = B64
            .decode(&sub.auth)
            .map_err(|_| SendError::Other("the subscription's secret is not base64url".into()))?;
        let body = encrypt(&ua_public, &auth, payload).map_err(SendError::Other)?;
        let jwt = self
            .vapid_token(&url.origin().ascii_serialization())
            .map_err(SendError::Other)?;
        let resp = self
            .client
            .get()
            .map_err(SendError::Other)?
            .post(url)
            .header("TTL", TTL_SECS.to_string())
            .header("Urgency", "high")
            .header("Content-Encoding", "aes128gcm")
            .header("Content-Type", "application/octet-stream")
            .header(
                "Authorization",
                format!(
                    "vapid t={jwt}, k={}",
                    self.public_key().map_err(SendError::Other)?
                ),
            )
            .body(body)
            .send()
            .await
            .map_err(|e| SendError::Other(format!("cannot reach the push service: {e}")))?;
        let status = resp.status().as_u16();
        match status {
            200..=299 => Ok(()),
            404 | 410 => Err(SendError::Gone(status)),
            _ => Err(SendError::Other(format!(
                "the push service refused the notice ({status})"
            ))),
        }
    }

    /// A VAPID token (ES256 JWT) for a push service's origin.
    fn vapid_token(&self, audience: &str) -> Result<String, String> {
        let header = B64.encode(br#"{"typ":"JWT","alg":"ES256"}"#);
        let claims = serde_json::json!({
            "aud": audience,
            "exp": crate::util::now_ms() / 1000 + JWT_SECS,
            "sub": SUBJECT,
        });
        let claims = B64.encode(claims.to_string());
        let signing_input = format!("{header}.{claims}");
        let sig = self
            .vapid()?
            .key
            .sign(&aws_rand::SystemRandom::new(), signing_input.as_bytes())
            .map_err(|_| "cannot sign the VAPID token".to_string())?;
        Ok(format!("{signing_input}.{}", B64.encode(sig.as_ref())))
    }
}

enum SendError {
    /// The subscription no longer exists.
    Gone(u16),
    Other(String),
}

/// The key file's key, or a new one written there.
fn load_or_create(path: &Path) -> anyhow::Result<Vapid> {
    let pkcs8 = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let doc = signature::EcdsaKeyPair::generate_pkcs8(
                &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
                &aws_rand::SystemRandom::new(),
            )
            .map_err(|_| anyhow::anyhow!("cannot create the Web Push key"))?;
            write_private(path, doc.as_ref())?;
            doc.as_ref().to_vec()
        }
        Err(e) => return Err(anyhow::anyhow!("cannot read {}: {e}", path.display())),
    };
    let key =
        signature::EcdsaKeyPair::from_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, &pkcs8)
            .map_err(|e| anyhow::anyhow!("{} is not a P-256 key: {e}", path.display()))?;
    let public = B64.encode(signature::KeyPair::public_key(&key).as_ref());
    Ok(Vapid { key, public })
}

fn write_private(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", path.display()))?;
    f.write_all(bytes)?;
    f.sync_all()?;
    Ok(())
}

/// Check a subscription as a browser's `PushSubscription.toJSON()` gives it: an `https`
/// endpoint (plain `http` on loopback only), a 65-byte P-256 point and a 16-byte secret.
pub fn check_subscription(endpoint: &str, p256dh: &str, auth: &str) -> Result<(), String> {
    if endpoint.len() > 2_048 {
        return Err("endpoint is longer than 2048 characters".into());
    }
    let url = url::Url::parse(endpoint).map_err(|e| format!("endpoint is not a URL: {e}"))?;
    let loopback = match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        None => false,
    };
    match url.scheme() {
        "https" => {}
        "http" if loopback => {}
        _ => return Err("endpoint must be an https URL (plain http only on loopback)".into()),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("endpoint must not carry credentials".into());
    }
    let key = B64
        .decode(p256dh.trim_end_matches('='))
        .map_err(|_| "keys.p256dh is not base64url".to_string())?;
    if key.len() != 65 || key[0] != 4 {
        return Err("keys.p256dh must be an uncompressed P-256 point (65 bytes)".into());
    }
    let secret = B64
        .decode(auth.trim_end_matches('='))
        .map_err(|_| "keys.auth is not base64url".to_string())?;
    if secret.len() != 16 {
        return Err("keys.auth must be 16 bytes".into());
    }
    Ok(())
}

/// The push service an endpoint belongs to (scheme, host, port): what a list may show.
pub fn origin_of(endpoint: &str) -> String {
    url::Url::parse(endpoint)
        .map(|u| u.origin().ascii_serialization())
        .unwrap_or_default()
}

/// HKDF output of a given length.
struct Len(usize);

impl hkdf::KeyType for Len {
    fn len(&self) -> usize {
        self.0
    }
}

fn hkdf_expand(prk: &hkdf::Prk, info: &[&[u8]], out: &mut [u8]) -> Result<(), String> {
    prk.expand(info, Len(out.len()))
        .and_then(|okm| okm.fill(out))
        .map_err(|_| "key derivation failed".to_string())
}

/// Encrypt a notice for one browser (RFC 8291, one `aes128gcm` record): a fresh ECDH key and
/// salt per message, the browser's public key and authentication secret.
pub fn encrypt(ua_public: &[u8], auth: &[u8], plaintext: &[u8]) -> Result<Vec<u8>, String> {
    let rng = aws_rand::SystemRandom::new();
    let key = agreement::PrivateKey::generate(&agreement::ECDH_P256)
        .map_err(|_| "cannot make a key".to_string())?;
    let mut salt = [0u8; 16];
    aws_rand::SecureRandom::fill(&rng, &mut salt).map_err(|_| "no randomness".to_string())?;
    seal(&key, &salt, ua_public, auth, plaintext)
}

/// The content key and nonce both sides derive (RFC 8291 section 3.4, RFC 8188 section 2.2).
fn content_keys(
    ecdh: &[u8],
    auth: &[u8],
    salt: &[u8],
    ua_public: &[u8],
    as_public: &[u8],
) -> Result<(aead::LessSafeKey, aead::Nonce), String> {
    let prk_key = hkdf::Salt::new(hkdf::HKDF_SHA256, auth).extract(ecdh);
    let mut ikm = [0u8; 32];
    hkdf_expand(
        &prk_key,
        &[b"WebPush: info\0", ua_public, as_public],
        &mut ikm,
    )?;
    let prk = hkdf::Salt::new(hkdf::HKDF_SHA256, salt).extract(&ikm);
    let mut cek = [0u8; 16];
    hkdf_expand(&prk, &[b"Content-Encoding: aes128gcm\0"], &mut cek)?;
    let mut nonce = [0u8; 12];
    hkdf_expand(&prk, &[b"Content-Encoding: nonce\0"], &mut nonce)?;
    let key = aead::UnboundKey::new(&aead::AES_128_GCM, &cek)
        .map(aead::LessSafeKey::new)
        .map_err(|_| "cannot make the content key".to_string())?;
    Ok((key, aead::Nonce::assume_unique_for_key(nonce)))
}

fn ecdh_with(key: &agreement::PrivateKey, peer: &[u8]) -> Result<Vec<u8>, String> {
    agreement::agree(
        key,
        agreement::UnparsedPublicKey::new(&agreement::ECDH_P256, peer),
        "the other side's key is not a P-256 point".to_string(),
        |s| Ok(s.to_vec()),
    )
}

/// `encrypt` with the sender's key and salt given.
fn seal(
    key: &agreement::PrivateKey,
    salt: &[u8; 16],
    ua_public: &[u8],
    auth: &[u8],
    plaintext: &[u8],
) -> Result<Vec<u8>, String> {
    if plaintext.len() > MAX_NOTICE_BYTES {
        return Err("the notice is too long".into());
    }
    let as_public = key
        .compute_public_key()
        .map_err(|_| "cannot make a key".to_string())?;
    let as_public = as_public.as_ref();
    let ecdh = ecdh_with(key, ua_public)?;
    let (cek, nonce) = content_keys(&ecdh, auth, salt, ua_public, as_public)?;
    let mut record = plaintext.to_vec();
    record.push(2); // the last (and only) record's delimiter, no padding
    cek.seal_in_place_append_tag(nonce, aead::Aad::empty(), &mut record)
        .map_err(|_| "cannot encrypt the notice".to_string())?;
    let mut body = Vec::with_capacity(21 + as_public.len() + record.len());
    body.extend_from_slice(salt);
    body.extend_from_slice(&RECORD_SIZE.to_be_bytes());
    body.push(as_public.len() as u8);
    body.extend_from_slice(as_public);
    body.extend_from_slice(&record);
    Ok(body)
}

/// The receiving side, as a browser does it: decrypt a one-record `aes128gcm` body with the
/// browser's private key and secret. The server never needs it; its tests and a fake push
/// service do.
pub fn decrypt(ua: &agreement::PrivateKey, auth: &[u8], body: &[u8]) -> Result<Vec<u8>, String> {
    let short = || "the body is shorter than its header".to_string();
    let salt = body.get(..16).ok_or_else(short)?;
    let idlen = usize::from(*body.get(20).ok_or_else(short)?);
    let as_public = body.get(21..21 + idlen).ok_or_else(short)?;
    let ua_public = ua
        .compute_public_key()
        .map_err(|_| "cannot read the key".to_string())?;
    let ecdh = ecdh_with(ua, as_public)?;
    let (cek, nonce) = content_keys(&ecdh, auth, salt, ua_public.as_ref(), as_public)?;
    let mut buf = body[21 + idlen..].to_vec();
    let plain = cek
        .open_in_place(nonce, aead::Aad::empty(), &mut buf)
        .map_err(|_| "the body does not decrypt with this key".to_string())?;
    match plain.iter().rposition(|b| *b != 0) {
        Some(end) if plain[end] == 2 => Ok(plain[..end].to_vec()),
        _ => Err("the record has no last-record delimiter".into()),
    }
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    use super::*;

    fn b64(s: &str) -> Vec<u8> {
        B64.decode(s).unwrap()
    }

    /// RFC 8291 section 5 and appendix A, byte for byte.
    #[test]
    fn the_rfc_8291_example_seals_and_opens_byte_for_byte() {
        let ua = agreement::PrivateKey::from_private_key(
            &agreement::ECDH_P256,
            &b64("q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"),
        )
        .unwrap();
        let sender = agreement::PrivateKey::from_private_key(
            &agreement::ECDH_P256,
            &b64("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"),
        )
        .unwrap();
        let auth = b64("BTBZMqHH6r4Tts7J_aSIgg");
        let ua_public = b64(
            "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
        );
        let salt: [u8; 16] = b64("DGv6ra1nlYgDCS1FRnbzlw").try_into().unwrap();
        let body = b64(
            "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN",
        );
        let plain = b"When I grow up, I want to be a watermelon";
        assert_eq!(
            seal(&sender, &salt, &ua_public, &auth, plain).unwrap(),
            body
        );
        assert_eq!(decrypt(&ua, &auth, &body).unwrap(), plain);
    }

    #[test]
    fn a_notice_decrypts_with_the_browsers_key_only() {
        let ua = agreement::PrivateKey::generate(&agreement::ECDH_P256).unwrap();
        let ua_public = ua.compute_public_key().unwrap().as_ref().to_vec();
        let auth = [7u8; 16];
        let body = encrypt(&ua_public, &auth, b"{\"title\":\"hi\"}").unwrap();
        assert_eq!(decrypt(&ua, &auth, &body).unwrap(), b"{\"title\":\"hi\"}");
        // A fresh key and salt each time: the same notice never looks the same.
        let again = encrypt(&ua_public, &auth, b"{\"title\":\"hi\"}").unwrap();
        assert_ne!(body, again);
        let other = agreement::PrivateKey::generate(&agreement::ECDH_P256).unwrap();
        assert!(decrypt(&other, &auth, &body).is_err());
        assert!(decrypt(&ua, &[8u8; 16], &body).is_err());
        assert!(decrypt(&ua, &auth, &body[..30]).is_err());
        assert!(encrypt(&[4u8; 10], &auth, b"x").is_err());
        assert!(encrypt(&ua_public, &auth, &vec![b'x'; MAX_NOTICE_BYTES + 1]).is_err());
    }

    #[test]
    fn subscriptions_are_checked() {
        let ua = agreement::PrivateKey::generate(&agreement::ECDH_P256).unwrap();
        let key = B64.encode(ua.compute_public_key().unwrap().as_ref());
        let auth = B64.encode([1u8; 16]);
        assert!(check_subscription("https://push.example/abc", &key, &auth).is_ok());
        assert!(check_subscription("http://127.0.0.1:9/abc", &key, &auth).is_ok());
        assert!(check_subscription("http://push.example/abc", &key, &auth).is_err());
        assert!(check_subscription("file:///etc/passwd", &key, &auth).is_err());
        assert!(check_subscription("https://u:p@push.example/", &key, &auth).is_err());
        assert!(check_subscription("https://push.example/", "AAAA", &auth).is_err());
        assert!(check_subscription("https://push.example/", &key, "AAAA").is_err());
    }
}
