//! HTTPS for LAN access. `auto` keeps a small local certificate authority in the state dir (made
//! once with rcgen, like mkcert's or Caddy's) and a leaf certificate for this machine's names and
//! addresses, re-issued when they change or the leaf nears its end. A phone trusts the CA once
//! (the `/tls` page); browsers refuse service workers behind a clicked-through certificate, so
//! "accept the warning" is not enough. `--tls-cert/--tls-key` serve the user's own PEM files,
//! reloaded when they change.

use std::net::IpAddr;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, bail};
use parking_lot::Mutex;
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, SanType,
};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;

use crate::config::{Config, TlsSetting};

/// A TLS handshake must finish within this time.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// The local CA lives ten years; leaves 397 days (what Apple platforms accept) and are re-issued
/// when fewer than 30 days remain.
const CA_DAYS: i64 = 3650;
const LEAF_DAYS: i64 = 397;
const RENEW_BEFORE_DAYS: i64 = 30;
/// How often the certificate source is re-checked (files changed, names or addresses changed).
const FILES_CHECK_EVERY: Duration = Duration::from_secs(2);
const AUTO_CHECK_EVERY: Duration = Duration::from_secs(60);

/// The TLS side of a running server.
pub struct Tls {
    pub acceptor: tokio_rustls::TlsAcceptor,
    /// `auto` only: the CA certificate a device trusts, and its SHA-256 fingerprint
    /// (`AB:CD:…`, as browsers and phones show it).
    pub ca: Option<LocalCa>,
    pub mode: &'static str,
}

#[derive(Clone)]
pub struct LocalCa {
    pub pem: String,
    pub der: Vec<u8>,
    pub fingerprint: String,
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// Build the TLS side for `cfg`, or `None` for plain HTTP.
pub fn setup(cfg: &Config) -> anyhow::Result<Option<Tls>> {
    let (source, ca, mode): (Box<dyn Source>, Option<LocalCa>, &'static str) =
        match cfg.effective_tls() {
            TlsSetting::Off => return Ok(None),
            TlsSetting::Auto => {
                let auto = AutoCerts::open(&cfg.state_dir.join("tls"), machine_names(cfg))?;
                let ca = auto.ca.clone();
                (Box::new(auto), Some(ca), "auto")
            }
            TlsSetting::Files { cert, key } => (
                Box::new(FileCerts {
                    cert,
                    key,
                    seen: Mutex::default(),
                }),
                None,
                "files",
            ),
        };
    let first = source
        .load()
        .context("cannot load the TLS certificate")?
        .context("no TLS certificate")?;
    let resolver = Arc::new(Resolver {
        current: Mutex::new((Arc::new(first), Instant::now())),
        source,
    });
    let mut config = rustls::ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .context("TLS protocol versions")?
        .with_no_client_auth()
        .with_cert_resolver(resolver);
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Some(Tls {
        acceptor: tokio_rustls::TlsAcceptor::from(Arc::new(config)),
        ca,
        mode,
    }))
}

/// Where certificates come from; `load` returns `None` when nothing changed since last time.
trait Source: Send + Sync {
    fn load(&self) -> anyhow::Result<Option<CertifiedKey>>;
    fn check_every(&self) -> Duration;
}

/// Hands out the current certificate, and now and then asks its source for a newer one (no
/// watcher thread: a handshake that finds the check due does it, a stat or two).
struct Resolver {
    current: Mutex<(Arc<CertifiedKey>, Instant)>,
    source: Box<dyn Source>,
}

impl std::fmt::Debug for Resolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Resolver")
    }
}

impl ResolvesServerCert for Resolver {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        let mut cur = self.current.lock();
        if cur.1.elapsed() >= self.source.check_every() {
            cur.1 = Instant::now();
            match self.source.load() {
                Ok(Some(new)) => {
                    tracing::info!("TLS certificate reloaded");
                    cur.0 = Arc::new(new);
                }
                Ok(None) => {}
                // Keep serving the last good certificate.
                Err(e) => tracing::warn!(error = %e, "cannot reload the TLS certificate"),
            }
        }
        Some(cur.0.clone())
    }
}

/// `--tls-cert/--tls-key`: reloaded when either file's modification time or size changes.
struct FileCerts {
    cert: PathBuf,
    key: PathBuf,
    /// The stamps of the files last loaded.
    seen: Mutex<Option<(Stamp, Stamp)>>,
}

type Stamp = Option<(SystemTime, u64)>;

fn stamp(p: &Path) -> Stamp {
    let m = std::fs::metadata(p).ok()?;
    Some((m.modified().ok()?, m.len()))
}

impl Source for FileCerts {
    fn load(&self) -> anyhow::Result<Option<CertifiedKey>> {
        let stamps = (stamp(&self.cert), stamp(&self.key));
        if *self.seen.lock() == Some(stamps) {
            return Ok(None);
        }
        let chain = std::fs::read(&self.cert)
            .with_context(|| format!("cannot read {}", self.cert.display()))?;
        let key = std::fs::read(&self.key)
            .with_context(|| format!("cannot read {}", self.key.display()))?;
        let ck = certified_key(&chain, &key)
            .with_context(|| format!("{} / {}", self.cert.display(), self.key.display()))?;
        *self.seen.lock() = Some(stamps);
        Ok(Some(ck))
    }
    fn check_every(&self) -> Duration {
        FILES_CHECK_EVERY
    }
}

/// A rustls certificate from PEM: the chain (leaf first) and its private key.
pub fn certified_key(chain_pem: &[u8], key_pem: &[u8]) -> anyhow::Result<CertifiedKey> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(chain_pem)
        .collect::<Result<_, _>>()
        .context("the certificate file is not PEM")?;
    if chain.is_empty() {
        bail!("the certificate file holds no certificate");
    }
    let key =
        PrivateKeyDer::from_pem_slice(key_pem).context("the key file holds no private key")?;
    CertifiedKey::from_der(chain, key, &provider())
        .map_err(|e| anyhow::anyhow!("the key does not fit the certificate: {e}"))
}

/// The names and addresses the leaf certificate covers.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Names {
    pub dns: Vec<String>,
    pub ips: Vec<IpAddr>,
}

/// This machine's host name, as `uname` gives it.
pub fn host_name() -> Option<String> {
    let u = rustix::system::uname();
    let n = u.nodename().to_string_lossy().trim().to_ascii_lowercase();
    (!n.is_empty() && n != "localhost" && n != "(none)").then_some(n)
}

/// Addresses of this machine's interfaces that are up, without link-local ones (which need a
/// zone to be used at all).
pub fn local_ips() -> Vec<IpAddr> {
    let mut ips: Vec<IpAddr> = if_addrs::get_if_addrs()
        .unwrap_or_default()
        .into_iter()
        .filter(|i| !i.is_link_local() && !i.ip().is_unspecified())
        .map(|i| i.ip())
        .collect();
    ips.sort();
    ips.dedup();
    ips
}

/// `localhost`, the host name (and `NAME.local` for mDNS), `publicUrl`'s host, the configured
/// allowed hosts; loopback, the bound address and every local address.
pub fn machine_names(cfg: &Config) -> Names {
    let mut dns = vec!["localhost".to_string()];
    let mut ips: Vec<IpAddr> = vec![[127, 0, 0, 1].into(), std::net::Ipv6Addr::LOCALHOST.into()];
    if let Some(h) = host_name() {
        if !h.contains('.') {
            dns.push(format!("{h}.local"));
        }
        dns.push(h);
    }
    for h in cfg
        .public_host()
        .into_iter()
        .chain(cfg.allowed_hosts.clone())
    {
        let bare = h.trim_start_matches('[').trim_end_matches(']').to_string();
        match bare.parse::<IpAddr>() {
            Ok(ip) => ips.push(ip),
            Err(_) => dns.push(bare.to_ascii_lowercase()),
        }
    }
    if !cfg.bind.is_unspecified() {
        ips.push(cfg.bind);
    }
    ips.extend(local_ips());
    dns.sort();
    dns.dedup();
    dns.retain(|d| !d.is_empty() && d.len() <= 253);
    ips.sort();
    ips.dedup();
    Names { dns, ips }
}

/// The `auto` source: CA and leaf in `<state>/tls` (keys 0600).
struct AutoCerts {
    dir: PathBuf,
    ca: LocalCa,
    ca_key_pem: String,
    names: Names,
    /// Leaf files as last served.
    served: Mutex<Option<LeafMeta>>,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct LeafMeta {
    names: Names,
    /// Unix seconds.
    not_after: i64,
    ca_fingerprint: String,
}

/// Write a file only its owner can read (0600), whole or not at all (a temporary file renamed).
pub fn write_private(path: &Path, data: &[u8]) -> anyhow::Result<()> {
    write_private_file(path, data, true)
}

/// `write_private` without waiting for the disk (what a crash may lose is worthless).
pub fn write_private_unsynced(path: &Path, data: &[u8]) -> anyhow::Result<()> {
    write_private_file(path, data, false)
}

fn write_private_file(path: &Path, data: &[u8], sync: bool) -> anyhow::Result<()> {
    use std::io::Write;
    let tmp = path.with_extension("tmp");
    let _ = std::fs::remove_file(&tmp);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .with_context(|| format!("cannot create {}", tmp.display()))?;
    f.write_all(data)?;
    if sync {
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

pub fn fingerprint(der: &[u8]) -> String {
    use sha2::Digest;
    let d = sha2::Sha256::digest(der);
    d.iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(":")
}

fn now_unix() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

impl AutoCerts {
    fn open(dir: &Path, names: Names) -> anyhow::Result<AutoCerts> {
        crate::state_dir::ensure_dir(dir)?;
        let (ca, ca_key_pem) = load_or_create_ca(dir)?;
        Ok(AutoCerts {
            dir: dir.to_path_buf(),
            ca,
            ca_key_pem,
            names,
            served: Mutex::new(None),
        })
    }

    fn leaf_meta(&self) -> Option<LeafMeta> {
        let bytes = std::fs::read(self.dir.join("leaf.json")).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// The leaf on disk if it covers `names`, comes from this CA and has time left; else a new
    /// one.
    fn ensure_leaf(&self, names: &Names) -> anyhow::Result<LeafMeta> {
        if let Some(meta) = self.leaf_meta()
            && &meta.names == names
            && meta.ca_fingerprint == self.ca.fingerprint
            && meta.not_after - now_unix() > RENEW_BEFORE_DAYS * 86_400
            && self.dir.join("leaf.pem").exists()
            && self.dir.join("leaf-key.pem").exists()
        {
            return Ok(meta);
        }
        let ca_key =
            KeyPair::from_pem(&self.ca_key_pem).context("the local CA key is unreadable")?;
        let issuer = Issuer::from_ca_cert_pem(&self.ca.pem, ca_key)
            .context("the local CA certificate is unreadable")?;
        let mut params = CertificateParams::new(names.dns.clone())?;
        params
            .subject_alt_names
            .extend(names.ips.iter().map(|ip| SanType::IpAddress(*ip)));
        let mut dn = DistinguishedName::new();
        dn.push(
            DnType::CommonName,
            names
                .dns
                .iter()
                .find(|d| *d != "localhost")
                .cloned()
                .unwrap_or_else(|| "localhost".into()),
        );
        dn.push(DnType::OrganizationName, "Tradewind");
        params.distinguished_name = dn;
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.use_authority_key_identifier_extension = true;
        let now = time::OffsetDateTime::now_utc();
        params.not_before = now - time::Duration::days(1);
        params.not_after = now + time::Duration::days(LEAF_DAYS);
        let key = KeyPair::generate()?;
        let cert = params.signed_by(&key, &issuer)?;
        write_private(
            &self.dir.join("leaf-key.pem"),
            key.serialize_pem().as_bytes(),
        )?;
        write_private(&self.dir.join("leaf.pem"), cert.pem().as_bytes())?;
        let meta = LeafMeta {
            names: names.clone(),
            not_after: params.not_after.unix_timestamp(),
            ca_fingerprint: self.ca.fingerprint.clone(),
        };
        write_private(
            &self.dir.join("leaf.json"),
            &serde_json::to_vec_pretty(&meta)?,
        )?;
        tracing::info!(names = ?names.dns, ips = ?names.ips, "issued a TLS certificate for this machine");
        Ok(meta)
    }
}

impl Source for AutoCerts {
    fn load(&self) -> anyhow::Result<Option<CertifiedKey>> {
        // The first load uses the names given at start; later checks re-read the addresses
        // (a new DHCP lease, a VPN coming up).
        let names = if self.served.lock().is_none() {
            self.names.clone()
        } else {
            let mut n = self.names.clone();
            n.ips.extend(local_ips());
            n.ips.sort();
            n.ips.dedup();
            n
        };
        let meta = self.ensure_leaf(&names)?;
        if self.served.lock().as_ref() == Some(&meta) {
            return Ok(None);
        }
        let chain = std::fs::read(self.dir.join("leaf.pem"))?;
        let key = std::fs::read(self.dir.join("leaf-key.pem"))?;
        let ck = certified_key(&chain, &key)?;
        *self.served.lock() = Some(meta);
        Ok(Some(ck))
    }
    fn check_every(&self) -> Duration {
        AUTO_CHECK_EVERY
    }
}

fn load_or_create_ca(dir: &Path) -> anyhow::Result<(LocalCa, String)> {
    let cert_path = dir.join("ca.pem");
    let key_path = dir.join("ca-key.pem");
    if cert_path.exists() && key_path.exists() {
        let pem = std::fs::read_to_string(&cert_path)
            .with_context(|| format!("cannot read {}", cert_path.display()))?;
        let key = std::fs::read_to_string(&key_path)
            .with_context(|| format!("cannot read {}", key_path.display()))?;
        let der = CertificateDer::from_pem_slice(pem.as_bytes())
            .with_context(|| format!("{} is not a PEM certificate", cert_path.display()))?
            .to_vec();
        return Ok((
            LocalCa {
                fingerprint: fingerprint(&der),
                pem,
                der,
            },
            key,
        ));
    }
    let mut params = CertificateParams::default();
    let mut dn = DistinguishedName::new();
    let who = host_name().unwrap_or_else(|| "this machine".into());
    dn.push(DnType::CommonName, format!("Tradewind local CA ({who})"));
    dn.push(DnType::OrganizationName, "Tradewind");
    params.distinguished_name = dn;
    params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let now = time::OffsetDateTime::now_utc();
    params.not_before = now - time::Duration::days(1);
    params.not_after = now + time::Duration::days(CA_DAYS);
    let key = KeyPair::generate()?;
    let cert = params.self_signed(&key)?;
    let key_pem = key.serialize_pem();
    write_private(&key_path, key_pem.as_bytes())?;
    write_private(&cert_path, cert.pem().as_bytes())?;
    let der = cert.der().to_vec();
    tracing::info!(path = %cert_path.display(), "created a local certificate authority");
    Ok((
        LocalCa {
            fingerprint: fingerprint(&der),
            pem: cert.pem(),
            der,
        },
        key_pem,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg_in(dir: &Path) -> Config {
        let mut c = Config::for_paths(dir.to_path_buf(), dir.join("state"));
        c.tls = Some(TlsSetting::Auto);
        c.public_url = Some("https://tradewind.test:7420".into());
        c
    }

    fn temp() -> PathBuf {
        let d = std::env::temp_dir().join(format!("tw-tls-{}", crate::util::new_id()));
        std::fs::create_dir_all(&d).unwrap_or_default();
        d
    }

    #[test]
    fn auto_makes_a_ca_once_and_reuses_the_leaf() {
        let d = temp();
        let cfg = cfg_in(&d);
        let names = machine_names(&cfg);
        assert!(names.dns.contains(&"tradewind.test".to_string()));
        assert!(names.dns.contains(&"localhost".to_string()));
        assert!(names.ips.contains(&IpAddr::from([127, 0, 0, 1])));
        let a = AutoCerts::open(&d.join("tls"), names.clone()).unwrap_or_else(|e| panic!("{e:#}"));
        assert!(a.load().unwrap_or_default().is_some());
        let leaf1 = std::fs::read(d.join("tls/leaf.pem")).unwrap_or_default();
        use std::os::unix::fs::PermissionsExt;
        for f in ["ca-key.pem", "leaf-key.pem"] {
            let mode = std::fs::metadata(d.join("tls").join(f))
                .map(|m| m.permissions().mode())
                .unwrap_or(0);
            assert_eq!(mode & 0o777, 0o600, "{f} is private");
        }
        // A second start: same CA, same leaf.
        let b = AutoCerts::open(&d.join("tls"), names.clone()).unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(a.ca.fingerprint, b.ca.fingerprint);
        assert!(b.load().unwrap_or_default().is_some());
        assert_eq!(
            std::fs::read(d.join("tls/leaf.pem")).unwrap_or_default(),
            leaf1
        );
        // New names: a new leaf from the same CA.
        let mut more = names;
        more.dns.push("devbox.lan".into());
        let c = AutoCerts::open(&d.join("tls"), more).unwrap_or_else(|e| panic!("{e:#}"));
        assert!(c.load().unwrap_or_default().is_some());
        assert_ne!(
            std::fs::read(d.join("tls/leaf.pem")).unwrap_or_default(),
            leaf1
        );
        assert_eq!(c.ca.fingerprint, a.ca.fingerprint);
        assert_eq!(a.ca.fingerprint.len(), 32 * 3 - 1);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn own_files_reload_when_they_change_and_bad_ones_are_refused() {
        let d = temp();
        let one = rcgen::generate_simple_self_signed(vec!["one.test".to_string()])
            .unwrap_or_else(|e| panic!("{e}"));
        let cert = d.join("c.pem");
        let key = d.join("k.pem");
        std::fs::write(&cert, one.cert.pem()).unwrap_or_default();
        std::fs::write(&key, one.signing_key.serialize_pem()).unwrap_or_default();
        let src = FileCerts {
            cert: cert.clone(),
            key: key.clone(),
            seen: Mutex::default(),
        };
        assert!(src.load().unwrap_or_default().is_some());
        assert!(src.load().unwrap_or_default().is_none(), "unchanged");
        let two = rcgen::generate_simple_self_signed(vec!["two.test".to_string(), "x.test".into()])
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(&cert, two.cert.pem()).unwrap_or_default();
        std::fs::write(&key, two.signing_key.serialize_pem()).unwrap_or_default();
        let ck = src.load().unwrap_or_default();
        assert!(ck.is_some(), "changed files are reloaded");
        // A key that does not match its certificate is refused.
        std::fs::write(&key, one.signing_key.serialize_pem()).unwrap_or_default();
        std::fs::write(&cert, format!("{}\n", two.cert.pem())).unwrap_or_default();
        assert!(src.load().is_err());
        let _ = std::fs::remove_dir_all(&d);
    }
}
