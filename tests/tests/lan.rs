//! Remote access on a LAN: TLS with the generated local CA, plain HTTP redirected on the TLS
//! port, `__Host-` Secure cookies, devices (list, revoke at once), one-time links from
//! `tradewind link`, the mDNS record, and the refusal/warning rules for network binds.
//! All traffic stays on loopback; the one network bind (0.0.0.0) is only ever reached through
//! 127.0.0.1.

use std::time::Duration;

use futures::StreamExt;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tradewind::config::TlsSetting;
use tradewind_tests::*;

fn tls_opts() -> Opts {
    Opts {
        tls: Some(TlsSetting::Auto),
        replay: Some(
            json!({"scripts": [{"turns": [{"text": "hello over tls", "chunk_chars": 4}]}]}),
        ),
        ..Opts::default()
    }
}

fn ca_pem(s: &TestServer) -> String {
    s.server
        .as_ref()
        .and_then(|x| x.state.face.ca.as_ref())
        .map(|c| c.pem.clone())
        .expect("auto TLS has a CA")
}

fn no_redirect(ca: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .tls_certs_only([reqwest::Certificate::from_pem(ca.as_bytes()).unwrap()])
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_session_runs_and_streams_over_tls_with_the_generated_ca() {
    let s = TestServer::start(tls_opts()).await;
    assert!(s.base.starts_with("https://127.0.0.1:"), "{}", s.base);
    let ca = ca_pem(&s);
    // REST over TLS, trusting only the generated CA.
    let sid = s.create_session("ask").await;
    // A run streamed over wss://.
    assert!(s.ws_url().starts_with("wss://"));
    let mut ws = wss_connect_url(&s.ws_url(), &ca).await;
    ws_send(
        &mut ws,
        json!({"type": "subscribe", "session": sid, "after": 0}),
    )
    .await;
    let run = s.prompt(&sid, "hi").await;
    let mut text = String::new();
    loop {
        let f = ws_next(&mut ws, Duration::from_secs(20))
            .await
            .expect("frames until the run ends");
        if f["type"] == "message_delta" {
            text.push_str(f["text"].as_str().unwrap_or_default());
        }
        if f["type"] == "run_finished" && f["run"] == run.as_str() {
            break;
        }
    }
    assert!(text.contains("hello over tls"), "{text}");
    // A client that trusts nothing of ours is refused at the handshake.
    let err = reqwest::Client::new()
        .get(s.url("/api/health"))
        .send()
        .await
        .expect_err("an untrusted certificate is refused");
    assert!(err.is_connect(), "{err:?}");
    // The login cookie is `__Host-`, Secure, HttpOnly, SameSite=Strict, Path=/, no Domain.
    let client = no_redirect(&ca);
    let b = sign_in_cookie(&client, &s.url(&s.launch_path()), "test").await;
    let (cookie, full) = (b.cookie.clone(), b.full.clone());
    assert!(cookie.starts_with("__Host-tw_session="), "{full}");
    for part in ["Secure", "HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(full.contains(part), "{part} missing: {full}");
    }
    assert!(!full.to_ascii_lowercase().contains("domain="), "{full}");
    // Only the https origin is ours on TLS.
    let http_origin = s.base.replacen("https://", "http://", 1);
    let r = b
        .on(client.post(s.url("/api/sessions")))
        .header("origin", http_origin)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let r = b
        .on(client.post(s.url("/api/sessions")))
        .header("origin", &s.base)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    // The unprefixed cookie name is not accepted on TLS (a plain-HTTP page could plant it).
    let planted = cookie.replacen("__Host-tw_session=", "tw_session=", 1);
    let r = client
        .get(s.url("/api/whoami"))
        .header("cookie", planted)
        .header("x-tradewind-page", &b.page)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    // /api/config shows the CA fingerprint.
    let (_, cfg) = s.get("/api/config").await;
    assert_eq!(cfg["tls"]["mode"], "auto");
    let fp = cfg["tls"]["ca_fingerprint"].as_str().unwrap().to_string();
    assert_eq!(fp.len(), 95, "{fp}");
    s.stop().await;
}

#[tokio::test]
async fn plain_http_on_the_tls_port_is_redirected_and_the_ca_page_is_served() {
    let s = TestServer::start(tls_opts()).await;
    let port = s.base.rsplit(':').next().unwrap().to_string();
    let plain = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let r = plain
        .get(format!("http://127.0.0.1:{port}/settings?x=1"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::PERMANENT_REDIRECT);
    assert_eq!(
        r.headers()["location"],
        format!("https://127.0.0.1:{port}/settings?x=1").as_str()
    );
    // A Host the server does not answer to gets no redirect to it.
    let r = plain
        .get(format!("http://127.0.0.1:{port}/"))
        .header("host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    // The install page and the certificate, over plain HTTP (a phone that does not trust the
    // CA yet needs them); the fingerprint matches.
    let (_, cfg) = s.get("/api/config").await;
    let fp = cfg["tls"]["ca_fingerprint"].as_str().unwrap().to_string();
    let page = plain
        .get(format!("http://127.0.0.1:{port}/tls"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains(&fp), "{page}");
    let der = plain
        .get(format!("http://127.0.0.1:{port}/tls/ca.crt"))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(tradewind::tls::fingerprint(&der), fp);
    // The API itself is never served on plain HTTP.
    let r = plain
        .get(format!("http://127.0.0.1:{port}/api/health"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::PERMANENT_REDIRECT);
    s.stop().await;
}

/// The header timeout and the per-address cap hold on the TLS listener too, and a handshake
/// that never finishes is cut.
#[tokio::test]
async fn slow_clients_cannot_starve_the_tls_listener() {
    let s = TestServer::start(tls_opts()).await;
    let addr: std::net::SocketAddr = s.base.trim_start_matches("https://").parse().unwrap();
    let attacker: std::net::IpAddr = [127, 0, 0, 3].into();
    let mut socks = Vec::new();
    for i in 0..(tradewind::accept::MAX_PENDING_PER_ADDRESS + 16) {
        let sock = tokio::net::TcpSocket::new_v4().unwrap();
        sock.bind((attacker, 0).into()).unwrap();
        let mut c = sock.connect(addr).await.unwrap();
        // Half of them start a TLS handshake and stall; the rest send nothing at all.
        if i % 2 == 0 {
            let _ = c.write_all(&[0x16, 0x03, 0x01, 0x00, 0x50]).await;
        }
        socks.push(c);
    }
    // A client with a token is served at once (every loopback address is the same client, so
    // this one is over the cap too).
    let (st, v) = s.get("/api/health").await;
    assert_eq!(st, 200, "{v}");
    // The ones over the cap are closed after their short timeout.
    let last = socks.len() - 1;
    let took = time_until_closed(&mut socks[last]).await;
    assert!(
        took.is_some_and(
            |t| t <= tradewind::accept::OVER_CAP_HEADER_TIMEOUT + Duration::from_secs(3)
        ),
        "a connection over the cap was closed after {took:?}"
    );
    let first_over = tradewind::accept::MAX_PENDING_PER_ADDRESS;
    let closed = closed_count(&mut socks[first_over..last]).await;
    assert!(
        closed >= 15,
        "only {closed} connections over the cap were closed"
    );
    // A stalled handshake is closed once the handshake timeout passes.
    let took = time_until_closed(&mut socks[0]).await;
    assert!(
        took.is_some_and(|t| t <= tradewind::tls::HANDSHAKE_TIMEOUT + Duration::from_secs(3)),
        "a stalled handshake was closed after {took:?}"
    );
    s.stop().await;
}

#[tokio::test]
async fn a_revoked_device_is_signed_out_at_once() {
    let s = TestServer::start(Opts::default()).await;
    let client = no_redirect_client();
    let phone_ua = "Mozilla/5.0 (Android 14; Mobile; rv:128.0) Gecko/128.0 Firefox/128.0";
    let phone_b = sign_in_cookie(&client, &s.url(&s.launch_path()), phone_ua).await;
    let phone = phone_b.cookie.clone();
    let laptop_ua = "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0 Safari/537.36";
    let laptop_b = sign_in_cookie(&client, &s.url(&s.launch_path()), laptop_ua).await;
    // The phone has a live WebSocket.
    let mut req = s.ws_url().into_client_request().unwrap();
    req.headers_mut().insert("cookie", phone.parse().unwrap());
    req.headers_mut().insert("origin", s.base.parse().unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    ws_authenticate(&mut ws, &phone_b).await;
    // The laptop lists devices and revokes the phone.
    let list: Value = client
        .get(s.url("/api/devices"))
        .header("cookie", &laptop_b.cookie)
        .header("x-tradewind-page", &laptop_b.page)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let devices = list["data"].as_array().unwrap();
    assert_eq!(devices.len(), 2, "{list}");
    let phone_row = devices
        .iter()
        .find(|d| d["name"] == "Firefox on Android")
        .unwrap_or_else(|| panic!("{list}"));
    assert_eq!(phone_row["current"], false);
    assert!(
        devices
            .iter()
            .any(|d| d["name"] == "Chrome on Linux" && d["current"] == true)
    );
    let id = phone_row["id"].as_str().unwrap();
    let t0 = std::time::Instant::now();
    let r = client
        .delete(s.url(&format!("/api/devices/{id}")))
        .header("cookie", &laptop_b.cookie)
        .header("x-tradewind-page", &laptop_b.page)
        .header("origin", &s.base)
        .header("content-type", "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    let mut code = None;
    while let Ok(Some(m)) = tokio::time::timeout(Duration::from_secs(1), ws.next()).await {
        if let Ok(Message::Close(f)) = m {
            code = f.map(|f| u16::from(f.code));
            break;
        }
    }
    assert_eq!(code, Some(1008), "the phone's socket closed");
    assert!(t0.elapsed() < Duration::from_secs(1), "{:?}", t0.elapsed());
    let r = client
        .get(s.url("/api/whoami"))
        .header("cookie", &phone)
        .header("x-tradewind-page", &phone_b.page)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    // Revoking it again: 404; the laptop is unaffected.
    let r = client
        .delete(s.url(&format!("/api/devices/{id}")))
        .header("cookie", &laptop_b.cookie)
        .header("x-tradewind-page", &laptop_b.page)
        .header("origin", &s.base)
        .header("content-type", "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    // "Add a device": a one-time link with a QR code, 5 minutes, single use.
    let r = client
        .post(s.url("/api/devices/link"))
        .header("cookie", &laptop_b.cookie)
        .header("x-tradewind-page", &laptop_b.page)
        .header("origin", &s.base)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let link: Value = r.json().await.unwrap();
    assert!(link["qr_svg"].as_str().unwrap().contains("<svg"));
    assert_eq!(link["reachable_from_other_devices"], false);
    let url = link["url"].as_str().unwrap();
    let left = link["expires_at"].as_i64().unwrap() - tradewind::util::now_ms();
    assert!((290_000..=300_000).contains(&left), "{left}");
    let path = &url[url.find("/?token=").unwrap()..];
    let r = client.get(s.url(path)).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let r = client.get(s.url(path)).send().await.unwrap();
    assert_eq!(r.status(), 401, "single use");
    s.stop().await;
}

/// Binding a network address: refused without a password; with one and no TLS flag it serves
/// TLS (`auto`); the sign-in link for other devices names a LAN host.
#[tokio::test]
async fn a_network_bind_needs_a_password_and_gets_tls() {
    let ws = TempDir::new("ws");
    let st = TempDir::new("state");
    let mut cfg =
        tradewind::config::Config::for_paths(ws.path().to_path_buf(), st.path().to_path_buf());
    cfg.bind = std::net::IpAddr::from([0, 0, 0, 0]);
    let refused = tradewind::server::launch(cfg).await;
    assert!(
        refused
            .err()
            .is_some_and(|e| e.to_string().contains("without a password")),
    );
    let s = TestServer::start(Opts {
        bind: Some(std::net::IpAddr::from([0, 0, 0, 0])),
        password: Some("correct horse battery".into()),
        ..Opts::default()
    })
    .await;
    assert!(s.base.starts_with("https://127.0.0.1:"), "{}", s.base);
    let (st, v) = s.get("/api/config").await;
    assert_eq!(st, 200);
    assert_eq!(v["tls"]["mode"], "auto");
    let url = v["tls"]["url"].as_str().unwrap();
    assert!(
        url.starts_with("https://") && !url.contains("127.0.0.1"),
        "{url}"
    );
    s.stop().await;
}

/// `tradewind link` hands a new one-time link to the running server through the state dir;
/// `--no-tls` on a network address warns.
#[tokio::test]
async fn tradewind_link_mints_a_link_for_the_running_server() {
    let home = TempDir::new("home");
    let ws = TempDir::new("ws");
    // No server yet: a clear error.
    let out = tokio::process::Command::new(binary())
        .arg("link")
        .env("TRADEWIND_HOME", home.path())
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no Tradewind server is running"));
    let (mut child, base) = spawn_binary(
        &[
            "serve",
            "--port",
            "0",
            "--workspace",
            ws.path().to_str().unwrap(),
        ],
        home.path(),
        TOKEN,
    )
    .await;
    let out = tokio::process::Command::new(binary())
        .arg("link")
        .env("TRADEWIND_HOME", home.path())
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let url = stdout
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(url.starts_with(&base) && !url.contains(TOKEN), "{url}");
    let client = no_redirect_client();
    sign_in_cookie(&client, url, "test").await;
    let r = client.get(url).send().await.unwrap();
    assert_eq!(r.status(), 401);
    child.kill().await.ok();
}

#[tokio::test]
async fn no_tls_on_a_network_address_warns() {
    let home = TempDir::new("home");
    let ws = TempDir::new("ws");
    let mut passwd = tokio::process::Command::new(binary())
        .arg("passwd")
        .env("TRADEWIND_HOME", home.path())
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    passwd
        .stdin
        .take()
        .unwrap()
        .write_all(b"correct horse battery\n")
        .await
        .unwrap();
    assert!(passwd.wait().await.unwrap().success());
    let mut child = tokio::process::Command::new(binary())
        .args([
            "serve",
            "--bind",
            "0.0.0.0",
            "--port",
            "0",
            "--no-tls",
            "--workspace",
        ])
        .arg(ws.path())
        .env("TRADEWIND_HOME", home.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut err = child.stderr.take().unwrap();
    let mut seen = String::new();
    let found = tokio::time::timeout(Duration::from_secs(20), async {
        let mut buf = [0u8; 4096];
        loop {
            let n = err.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                return false;
            }
            seen.push_str(&String::from_utf8_lossy(&buf[..n]));
            if seen.contains("WARNING: --no-tls") {
                return true;
            }
        }
    })
    .await;
    assert_eq!(found, Ok(true), "{seen}");
    child.kill().await.ok();
}

#[test]
fn the_mdns_record_carries_the_ca_fingerprint() {
    let face = tradewind::http::Face {
        secure: true,
        tls_mode: "auto",
        ca: Some(tradewind::tls::LocalCa {
            pem: String::new(),
            der: vec![1, 2, 3],
            fingerprint: tradewind::tls::fingerprint(&[1, 2, 3]),
        }),
        url: "https://devbox:7420".into(),
    };
    let rec = tradewind::server::mdns_record(&face, 7420).unwrap();
    assert_eq!(rec.get_type(), "_tradewind._tcp.local.");
    assert_eq!(rec.get_port(), 7420);
    assert_eq!(
        rec.get_property_val_str("fp"),
        Some(tradewind::tls::fingerprint(&[1, 2, 3]).as_str())
    );
    assert_eq!(rec.get_property_val_str("url"), Some("https://devbox:7420"));
    assert!(rec.get_fullname().starts_with("Tradewind on "));
}

/// `--tls-cert/--tls-key`: the server serves the user's own chain (e.g. from mkcert).
#[tokio::test]
async fn own_certificate_files_are_served() {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, SanType};
    let dir = TempDir::new("own-cert");
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::default();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let mut leaf = CertificateParams::new(vec!["localhost".to_string()]).unwrap();
    leaf.subject_alt_names
        .push(SanType::IpAddress([127, 0, 0, 1].into()));
    let leaf_key = KeyPair::generate().unwrap();
    let leaf_cert = leaf.signed_by(&leaf_key, &issuer).unwrap();
    let cert = dir.path().join("cert.pem");
    let key = dir.path().join("key.pem");
    std::fs::write(&cert, leaf_cert.pem()).unwrap();
    std::fs::write(&key, leaf_key.serialize_pem()).unwrap();
    let s = TestServer::start(Opts {
        tls: Some(TlsSetting::Files { cert, key }),
        ..Opts::default()
    })
    .await;
    assert!(s.base.starts_with("https://"), "{}", s.base);
    let client = reqwest::Client::builder()
        .tls_certs_only([reqwest::Certificate::from_pem(ca_cert.pem().as_bytes()).unwrap()])
        .build()
        .unwrap();
    let cfg: Value = client
        .get(s.url("/api/config"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(cfg["tls"]["mode"], "files");
    assert!(cfg["tls"]["ca_fingerprint"].is_null());
    s.stop().await;
}

/// Two browsers that read the same ("Chrome on Linux") are told apart: each says where it signed
/// in from, and one gets a name of its own (blank goes back to the browser's); a bad name is 422,
/// an unknown device 404.
#[tokio::test]
async fn devices_can_be_named_and_say_where_they_signed_in() {
    let s = TestServer::start(Opts::default()).await;
    let client = no_redirect_client();
    let ua = "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0 Safari/537.36";
    let a = sign_in_cookie(&client, &s.url(&s.launch_path()), ua).await;
    let _b = sign_in_cookie(&client, &s.url(&s.launch_path()), ua).await;
    let send = |method: reqwest::Method, path: String, body: Option<Value>| {
        let mut r = client
            .request(method, s.url(&path))
            .header("cookie", &a.cookie)
            .header("x-tradewind-page", &a.page)
            .header("origin", &s.base);
        if let Some(b) = body {
            r = r.json(&b);
        }
        r.send()
    };
    let list = |r: reqwest::Response| async move { r.json::<Value>().await.unwrap() };
    let devices = list(
        send(reqwest::Method::GET, "/api/devices".into(), None)
            .await
            .unwrap(),
    )
    .await;
    let rows = devices["data"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{devices}");
    assert!(
        rows.iter().all(|d| d["name"] == "Chrome on Linux"),
        "{devices}"
    );
    assert!(
        rows.iter().all(|d| d["signin_ip"] == "127.0.0.1"),
        "{devices}"
    );
    let other = rows.iter().find(|d| d["current"] == false).unwrap();
    let id = other["id"].as_str().unwrap().to_string();
    let r = send(
        reqwest::Method::PATCH,
        format!("/api/devices/{id}"),
        Some(json!({"label": "  Desk PC  "})),
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 204);
    let devices = list(
        send(reqwest::Method::GET, "/api/devices".into(), None)
            .await
            .unwrap(),
    )
    .await;
    let named = devices["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["id"] == json!(id))
        .cloned()
        .unwrap();
    assert_eq!(
        (named["name"].as_str(), named["label"].as_str()),
        (Some("Desk PC"), Some("Desk PC"))
    );
    for bad in [
        json!({"label": "x".repeat(61)}),
        json!({"label": "a\u{7}b"}),
        json!({"name": "x"}),
    ] {
        let r = send(
            reqwest::Method::PATCH,
            format!("/api/devices/{id}"),
            Some(bad.clone()),
        )
        .await
        .unwrap();
        assert_eq!(r.status(), 422, "{bad}");
    }
    let r = send(
        reqwest::Method::PATCH,
        "/api/devices/01ARZ3NDEKTSV4RRFFQ69G5FAV".into(),
        Some(json!({"label": "x"})),
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 404);
    // Blank: the browser's name again.
    send(
        reqwest::Method::PATCH,
        format!("/api/devices/{id}"),
        Some(json!({"label": " "})),
    )
    .await
    .unwrap();
    let devices = list(
        send(reqwest::Method::GET, "/api/devices".into(), None)
            .await
            .unwrap(),
    )
    .await;
    let back = devices["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["id"] == json!(id))
        .cloned()
        .unwrap();
    assert_eq!(back["name"], "Chrome on Linux");
    assert!(back["label"].is_null());
    s.stop().await;
}
