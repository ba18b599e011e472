//! Where a network tool connects: URL parsing (WHATWG, so `http://2130706433/`, `http://0x7f.1/`
//! and `http://017700000001/` are the loopback address they are), DNS resolution, and the range
//! of every address. The gate decides on the result ([`crate::policy::NetUse`]); the connection
//! then goes to exactly the addresses that were checked (pinned), so a DNS answer that changes
//! between the check and the connect cannot redirect it.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use url::{Host, Url};

use crate::policy::NetUse;

/// How long a DNS lookup may take.
const DNS_TIMEOUT: Duration = Duration::from_secs(10);

/// The client an address counts as, for limits (the login limiter, the pending-connection cap):
/// every loopback address (127.0.0.0/8, ::1, their IPv4-mapped forms) is one client, since a
/// local process can use any of them; an IPv4-mapped address is its IPv4 one; IPv6 counts by
/// its /64, the block one host is usually given.
pub fn client_key(ip: IpAddr) -> IpAddr {
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    match ip {
        IpAddr::V4(v4) if v4.is_loopback() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) if v6.is_loopback() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(v6) => {
            let s = v6.segments();
            IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
        }
    }
}

/// The range an address belongs to when it is not a public unicast address.
pub fn non_public(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => non_public_v4(v4),
        IpAddr::V6(v6) => non_public_v6(v6),
    }
}

fn non_public_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        (127, ..) => "loopback",
        (0, ..) => "this network (0.0.0.0/8)",
        (10, ..) => "private (10.0.0.0/8)",
        (172, 16..=31, _) => "private (172.16.0.0/12)",
        (192, 168, _) => "private (192.168.0.0/16)",
        (169, 254, 169) if ip.octets()[3] == 254 => "cloud metadata (169.254.169.254)",
        (169, 254, _) => "link-local (169.254.0.0/16)",
        (100, 64..=127, _) => "carrier-grade NAT (100.64.0.0/10)",
        (192, 0, 0) => "IETF protocol assignments (192.0.0.0/24)",
        (198, 18..=19, _) => "benchmarking (198.18.0.0/15)",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "documentation range",
        (224..=239, ..) => "multicast",
        (240..=255, ..) => "reserved or broadcast (240.0.0.0/4)",
        _ => return None,
    })
}

fn non_public_v6(ip: Ipv6Addr) -> Option<&'static str> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return non_public_v4(v4).map(|_| "an IPv4-mapped address of a non-public IPv4 address");
    }
    let s = ip.segments();
    // NAT64 (64:ff9b::/96) carries an IPv4 address in its low 32 bits.
    if s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0, 0, 0, 0] {
        let v4 = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
        return non_public_v4(v4).map(|_| "a NAT64 address of a non-public IPv4 address");
    }
    // 6to4 (2002::/16) embeds an IPv4 address in bits 16..48.
    if s[0] == 0x2002 {
        let v4 = Ipv4Addr::new((s[1] >> 8) as u8, s[1] as u8, (s[2] >> 8) as u8, s[2] as u8);
        if non_public_v4(v4).is_some() {
            return Some("a 6to4 address of a non-public IPv4 address");
        }
    }
    Some(if ip.is_loopback() {
        "loopback"
    } else if ip.is_unspecified() {
        "unspecified (::)"
    } else if s[0] & 0xfe00 == 0xfc00 {
        "unique local (fc00::/7)"
    } else if s[0] & 0xffc0 == 0xfe80 {
        "link-local (fe80::/10)"
    } else if s[0] & 0xff00 == 0xff00 {
        "multicast"
    } else if s[0] == 0 && s[1..6] == [0, 0, 0, 0, 0] {
        // ::a.b.c.d (deprecated IPv4-compatible) and the rest of ::/96.
        "IPv4-compatible (::/96)"
    } else if s[0] == 0x2001 && s[1] == 0x0db8 {
        "documentation range (2001:db8::/32)"
    } else {
        return None;
    })
}

/// A destination ready to connect to: the URL, its host and the addresses checked.
#[derive(Debug, Clone)]
pub struct Target {
    pub url: Url,
    /// The host name to pin (`None` for an IP literal: nothing to resolve).
    pub domain: Option<String>,
    /// Every address the connection may use; each was checked.
    pub addrs: Vec<SocketAddr>,
    /// What the gate sees.
    pub usage: NetUse,
}

/// Parse a URL a tool was given: http or https, with a host, no credentials.
pub fn parse_http_url(raw: &str) -> Result<Url, String> {
    let url = Url::parse(raw.trim()).map_err(|e| format!("`{raw}` is not a URL: {e}"))?;
    check_http_url(&url)?;
    Ok(url)
}

/// http(s), a host, no user name or password (they would be sent to the site).
pub fn check_http_url(url: &Url) -> Result<(), String> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "only http and https URLs can be fetched, not `{}:`",
            url.scheme()
        ));
    }
    if url.host().is_none() {
        return Err(format!("`{url}` has no host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("URLs with a user name or password are refused".into());
    }
    Ok(())
}

/// `scheme://host:port` of a URL (the port always written).
pub fn origin_of(url: &Url) -> String {
    let host = match url.host() {
        Some(Host::Ipv6(a)) => format!("[{a}]"),
        Some(h) => h.to_string(),
        None => String::new(),
    };
    format!(
        "{}://{}:{}",
        url.scheme(),
        host,
        url.port_or_known_default().unwrap_or(0)
    )
}

/// The origin of a configured URL (`http://localhost:8080/docs` → `http://localhost:8080`), or
/// `None` when it is not an http(s) URL.
pub fn config_origin(raw: &str) -> Option<String> {
    let url = Url::parse(raw.trim()).ok()?;
    matches!(url.scheme(), "http" | "https").then(|| origin_of(&url))
}

/// Resolve a URL's host and classify every address. `exempt`: origins the user configured
/// (provider, search endpoint, `webfetch.allowHosts`), never reported as private.
pub async fn resolve(url: &Url, exempt: &[String]) -> Result<Target, String> {
    check_http_url(url)?;
    let port = url
        .port_or_known_default()
        .ok_or_else(|| format!("`{url}` has no port"))?;
    let (domain, addrs) = match url.host() {
        Some(Host::Ipv4(a)) => (None, vec![SocketAddr::new(IpAddr::V4(a), port)]),
        Some(Host::Ipv6(a)) => (None, vec![SocketAddr::new(IpAddr::V6(a), port)]),
        Some(Host::Domain(d)) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            let found =
                tokio::time::timeout(DNS_TIMEOUT, tokio::net::lookup_host((d.as_str(), port)))
                    .await
                    .map_err(|_| {
                        format!("resolving {d} took longer than {}s", DNS_TIMEOUT.as_secs())
                    })?
                    .map_err(|e| format!("cannot resolve {d}: {e}"))?;
            let mut addrs: Vec<SocketAddr> = found.collect();
            addrs.dedup();
            if addrs.is_empty() {
                return Err(format!("{d} has no address"));
            }
            (Some(d), addrs)
        }
        None => return Err(format!("`{url}` has no host")),
    };
    let origin = origin_of(url);
    let private = if exempt.iter().any(|e| e == &origin) {
        None
    } else {
        addrs
            .iter()
            .find_map(|a| non_public(a.ip()).map(|why| format!("{} ({why})", a.ip())))
    };
    Ok(Target {
        usage: NetUse {
            origin,
            private,
            query: url.query().filter(|q| !q.is_empty()).map(String::from),
        },
        url: url.clone(),
        domain,
        addrs,
    })
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn ranges() {
        for (a, private) in [
            ("127.0.0.1", true),
            ("127.255.0.9", true),
            ("10.1.2.3", true),
            ("172.16.0.1", true),
            ("172.31.255.255", true),
            ("172.32.0.1", false),
            ("192.168.1.1", true),
            ("169.254.169.254", true),
            ("169.254.1.1", true),
            ("100.64.0.1", true),
            ("100.128.0.1", false),
            ("224.0.0.1", true),
            ("255.255.255.255", true),
            ("0.0.0.0", true),
            ("8.8.8.8", false),
            ("93.184.216.34", false),
            ("::1", true),
            ("::", true),
            ("fd00:ec2::254", true),
            ("fe80::1", true),
            ("ff02::1", true),
            ("::ffff:127.0.0.1", true),
            ("::ffff:10.0.0.1", true),
            ("::ffff:8.8.8.8", false),
            ("64:ff9b::7f00:1", true),
            ("64:ff9b::808:808", false),
            ("2002:7f00:1::", true),
            ("2606:4700::1111", false),
        ] {
            assert_eq!(non_public(ip(a)).is_some(), private, "{a}");
        }
        assert_eq!(
            non_public(ip("169.254.169.254")),
            Some("cloud metadata (169.254.169.254)")
        );
    }

    /// Every spelling of loopback the URL parser accepts comes out as loopback, without DNS.
    #[tokio::test]
    async fn disguised_loopback_is_found_without_dns() {
        for raw in [
            "http://2130706433/",
            "http://0x7f000001/",
            "http://0x7f.1/",
            "http://017700000001/",
            "http://127.1/",
            "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:7f00:1]:8080/x",
            "http://[::1]/",
            "http://0/",
        ] {
            let url = parse_http_url(raw).unwrap();
            let t = resolve(&url, &[]).await.unwrap();
            assert!(t.domain.is_none(), "{raw}: an IP literal needs no lookup");
            assert!(t.usage.private.is_some(), "{raw} was taken for public");
        }
        // The exempt list matches the exact origin only.
        let url = parse_http_url("http://127.0.0.1:8080/docs?q=1").unwrap();
        let t = resolve(&url, &["http://127.0.0.1:8080".into()])
            .await
            .unwrap();
        assert_eq!(t.usage.private, None);
        assert_eq!(t.usage.query.as_deref(), Some("q=1"));
        let t = resolve(&url, &["http://127.0.0.1:8081".into()])
            .await
            .unwrap();
        assert!(t.usage.private.is_some());
        // A name mapped to loopback is resolved and caught.
        let url = parse_http_url("http://localhost:9/").unwrap();
        let t = resolve(&url, &[]).await.unwrap();
        assert!(t.usage.private.is_some());
        assert_eq!(t.domain.as_deref(), Some("localhost"));
    }

    #[test]
    fn refused_urls() {
        for raw in [
            "file:///etc/passwd",
            "ftp://example.com/",
            "gopher://x/",
            "http://user:pw@example.com/",
            "not a url",
            "data:text/html,hi",
        ] {
            assert!(parse_http_url(raw).is_err(), "{raw}");
        }
        assert_eq!(
            config_origin("http://localhost:8080/docs/").as_deref(),
            Some("http://localhost:8080")
        );
        assert_eq!(
            config_origin("https://Example.COM").as_deref(),
            Some("https://example.com:443")
        );
    }
}
