//! Test harness: a real Tradewind server on an ephemeral loopback port (in-process, or the real
//! binary as a child process for crash tests), an HTTP/WebSocket client, and a scripted
//! OpenAI-compatible server so the real streaming client is exercised over real sockets.
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod long_session;
pub mod openai_mock;

use std::path::{Path, PathBuf};
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tradewind::config::{Ceiling, Config, ProviderSettings};
use tradewind::protocol::EventFrame;
use tradewind::server::{Server, launch};

pub const TOKEN: &str = "test-token-0123456789abcdef";

/// Provider timeouts for a scripted model on loopback: a few seconds each, no retries.
pub fn scripted_net() -> tradewind::config::NetworkSettings {
    tradewind::config::NetworkSettings {
        connect_timeout_ms: 2000,
        first_byte_timeout_ms: 5000,
        idle_timeout_ms: 5000,
        max_retries: 0,
    }
}

/// A server whose model is a scripted OpenAI-compatible one, within `ceiling`.
pub async fn with_scripted_model(
    ceiling: tradewind::config::Ceiling,
) -> (openai_mock::Mock, TestServer) {
    let mock = openai_mock::Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        openai: Some(url),
        ceiling,
        network: Some(scripted_net()),
        ..Opts::default()
    })
    .await;
    (mock, s)
}

/// The frames of one type, in order.
pub fn of_type<'a>(events: &'a [Value], t: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == t).collect()
}

/// A temporary directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(prefix: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("tw-{prefix}-{}", ulid::Ulid::generate()));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(std::fs::canonicalize(&p).unwrap())
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
    /// Own an existing directory (removed when dropped).
    pub fn adopt(p: PathBuf) -> TempDir {
        std::fs::create_dir_all(&p).unwrap();
        TempDir(std::fs::canonicalize(&p).unwrap())
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// How to start a test server.
#[derive(Clone, Default)]
pub struct Opts {
    pub ceiling: Ceiling,
    pub read_only: bool,
    pub yolo: bool,
    /// A replay script (JSON value) for the replay provider.
    pub replay: Option<Value>,
    /// Base URL of an OpenAI-compatible server.
    pub openai: Option<String>,
    pub approval_timeout_secs: Option<u64>,
    /// Provider timeouts/retries (short ones for fault tests).
    pub network: Option<tradewind::config::NetworkSettings>,
    /// Extra directories (`--add-dir`).
    pub extra_roots: Vec<PathBuf>,
    /// HTTPS (`None`: decided by the bind address, i.e. plain on loopback).
    pub tls: Option<tradewind::config::TlsSetting>,
    /// Bind address (default 127.0.0.1).
    pub bind: Option<std::net::IpAddr>,
    /// Set a password before starting (needed for a non-loopback bind).
    pub password: Option<String>,
    /// Background task limits.
    pub tasks: Option<tradewind::config::TaskSettings>,
    /// `webfetch.allowHosts`.
    pub webfetch_allow: Vec<String>,
    /// `websearch` from config.json.
    pub websearch: Option<tradewind::config::WebSearchSettings>,
    /// `mcp` from config.json.
    pub mcp: Option<tradewind::config::McpSettings>,
    /// Anything else of the configuration, changed last (models, spend caps …).
    pub tweak: Option<fn(&mut tradewind::config::Config)>,
    /// config.json's `providers` list.
    pub providers: Vec<tradewind::config::ProviderEntrySettings>,
    /// The HOME the jail is made from (default: the test's own).
    pub home: Option<PathBuf>,
}

pub struct TestServer {
    pub server: Option<Server>,
    pub base: String,
    pub workspace: TempDir,
    pub state: TempDir,
    pub http: reqwest::Client,
}

impl TestServer {
    pub async fn start(opts: Opts) -> TestServer {
        let workspace = TempDir::new("ws");
        let state = TempDir::new("state");
        Self::start_in(opts, workspace, state).await
    }

    pub async fn start_in(opts: Opts, workspace: TempDir, state: TempDir) -> TestServer {
        let mut cfg = Config::for_paths(workspace.path().to_path_buf(), state.path().to_path_buf());
        cfg.access_token = Some(TOKEN.to_string());
        cfg.ceiling = opts.ceiling;
        cfg.read_only = opts.read_only;
        cfg.yolo = opts.yolo;
        if let Some(n) = &opts.network {
            cfg.network = n.clone();
        }
        cfg.extra_roots = opts.extra_roots.clone();
        // Every command the agent starts runs in the real sandbox, as in production.
        cfg.sandbox_helper = Some(binary());
        if let Some(h) = &opts.home {
            cfg.home = Some(h.clone());
        }
        if let Some(t) = &opts.tasks {
            cfg.tasks = t.clone();
        }
        cfg.webfetch.allow_hosts = opts.webfetch_allow.clone();
        if let Some(w) = &opts.websearch {
            cfg.websearch = w.clone();
        }
        if let Some(m) = &opts.mcp {
            cfg.mcp = m.clone();
        }
        if let Some(t) = opts.approval_timeout_secs {
            cfg.agent.approval_timeout_secs = t;
        }
        if let Some(script) = &opts.replay {
            let f = state.path().join("replay.json");
            std::fs::write(&f, serde_json::to_vec(script).unwrap()).unwrap();
            cfg.provider = Some(ProviderSettings {
                kind: "replay".into(),
                base_url: None,
                model: None,
                replay: Some(f),
                api_mode: Default::default(),
            });
        }
        if let Some(url) = &opts.openai {
            cfg.provider = Some(ProviderSettings {
                kind: "openai".into(),
                base_url: Some(url.clone()),
                model: Some("test-model".into()),
                replay: None,
                api_mode: Default::default(),
            });
        }
        cfg.tls = opts.tls.clone();
        cfg.providers = opts.providers.clone();
        // No model-written titles (an extra model call) but in the tests of titles (`tweak`).
        cfg.titles.enabled = false;
        if let Some(f) = opts.tweak {
            f(&mut cfg);
        }
        if let Some(b) = opts.bind {
            cfg.bind = b;
        }
        if let Some(pw) = &opts.password {
            let store = tradewind::server::open_store(&cfg).await.expect("store");
            let phc = tradewind::auth::hash_password(pw).expect("hash");
            store.set_password_hash(&phc).await.expect("password");
            store.close().await;
        }
        let server = launch(cfg).await.expect("server starts");
        let base = server.base_url();
        // Over TLS the client trusts the server's own CA and nothing else.
        let http = match &server.state.face.ca {
            Some(ca) => reqwest::Client::builder()
                .tls_certs_only([reqwest::Certificate::from_pem(ca.pem.as_bytes()).unwrap()])
                .build()
                .unwrap(),
            None => reqwest::Client::new(),
        };
        TestServer {
            server: Some(server),
            base,
            workspace,
            state,
            http,
        }
    }

    /// Stop this server and start another on the same workspace and state directory.
    pub async fn restart(self, opts: Opts) -> TestServer {
        let TestServer {
            server,
            workspace,
            state,
            ..
        } = self;
        if let Some(s) = server {
            s.shutdown().await.unwrap();
        }
        TestServer::start_in(opts, workspace, state).await
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A fresh one-time sign-in link path, `/?token=CODE`.
    pub fn launch_path(&self) -> String {
        let link = self
            .server
            .as_ref()
            .expect("server running")
            .launch_url()
            .expect("a link");
        let (_, query) = link.split_once("/?").expect("a query");
        format!("/?{query}")
    }

    pub fn ws_url(&self) -> String {
        let base = self
            .base
            .replacen("https://", "wss://", 1)
            .replacen("http://", "ws://", 1);
        format!("{base}/api/ws")
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        let r = self
            .http
            .get(self.url(path))
            .bearer_auth(TOKEN)
            .send()
            .await
            .unwrap();
        let s = r.status().as_u16();
        (s, r.json().await.unwrap_or(Value::Null))
    }

    pub async fn send(&self, method: reqwest::Method, path: &str, body: Value) -> (u16, Value) {
        let r = self
            .http
            .request(method, self.url(path))
            .bearer_auth(TOKEN)
            .json(&body)
            .send()
            .await
            .unwrap();
        let s = r.status().as_u16();
        (s, r.json().await.unwrap_or(Value::Null))
    }

    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.send(reqwest::Method::POST, path, body).await
    }

    /// Open an SSE stream (`path` with its query), optionally resuming after `last_event_id`.
    pub async fn sse(&self, path: &str, last_event_id: Option<&str>) -> reqwest::Response {
        sse_open(&self.http, &self.url(path), last_event_id).await
    }

    pub async fn create_session(&self, mode: &str) -> String {
        let (s, v) = self.post("/api/sessions", json!({"mode": mode})).await;
        assert_eq!(s, 201, "{v}");
        v["id"].as_str().unwrap().to_string()
    }

    pub async fn prompt(&self, session: &str, text: &str) -> String {
        let (s, v) = self
            .post(
                &format!("/api/sessions/{session}/messages"),
                json!({"text": text}),
            )
            .await;
        assert_eq!(s, 202, "{v}");
        v["run_id"].as_str().unwrap().to_string()
    }

    /// The session's whole log, each frame checked against the protocol's `EventFrame`.
    pub async fn events(&self, session: &str) -> Vec<Value> {
        let (s, v) = self
            .get(&format!("/api/sessions/{session}/events?limit=5000"))
            .await;
        assert_eq!(s, 200);
        let data = v["data"].as_array().cloned().unwrap_or_default();
        for f in &data {
            if let Err(e) = serde_json::from_value::<EventFrame>(f.clone()) {
                panic!("a stored frame does not match the protocol ({e}): {f}");
            }
        }
        data
    }

    /// Wait for a frame by subscribing (WebSocket): the session's backlog from seq 1, then live
    /// frames as they are sent — no polling. Every frame seen must parse as the protocol's
    /// `EventFrame` (the tests read the wire through the contract's own types).
    pub async fn wait_event(&self, session: &str, pred: impl Fn(&Value) -> bool) -> Value {
        self.wait_frame(session, |_, v| pred(v)).await.1
    }

    /// `wait_event` with the typed frame as well.
    pub async fn wait_frame(
        &self,
        session: &str,
        pred: impl Fn(&EventFrame, &Value) -> bool,
    ) -> (EventFrame, Value) {
        let mut ws = ws_connect(self).await;
        ws_send(
            &mut ws,
            json!({"type": "subscribe", "session": session, "after": 0}),
        )
        .await;
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        let mut seen = Vec::new();
        while let Some(left) = deadline.checked_duration_since(tokio::time::Instant::now()) {
            let Some(v) = ws_next(&mut ws, left).await else {
                break;
            };
            if v.get("seq").is_none() {
                assert_ne!(v["type"], "error", "subscribe refused: {v}");
                continue;
            }
            let f: EventFrame = serde_json::from_value(v.clone())
                .unwrap_or_else(|e| panic!("a frame does not match the protocol ({e}): {v}"));
            if pred(&f, &v) {
                return (f, v);
            }
            seen.push(v);
        }
        panic!("event not seen in 30 s; frames: {seen:#?}");
    }

    pub async fn wait_run_finished(&self, session: &str, run: &str) -> Value {
        let run = run.to_string();
        self.wait_event(session, move |e| {
            e["type"] == "run_finished" && e["run"] == run.as_str()
        })
        .await
    }

    /// Answer every approval of the session with `decision` until the run finishes.
    pub async fn answer_all_until_finished(
        &self,
        session: &str,
        run: &str,
        decision: &str,
    ) -> Value {
        self.answer_until_finished(session, run, |_| decision.to_string())
            .await
            .0
    }

    /// Answer every approval the run asks with `decide(approval)` until it finishes: its
    /// `run_finished` event and the approvals it asked, in order.
    pub async fn answer_until_finished(
        &self,
        session: &str,
        run: &str,
        decide: impl Fn(&Value) -> String,
    ) -> (Value, Vec<Value>) {
        let mut asked = Vec::new();
        for _ in 0..1500 {
            let (_, p) = self.get(&format!("/api/sessions/{session}/pending")).await;
            for a in p["approvals"].as_array().cloned().unwrap_or_default() {
                self.post(
                    &format!("/api/approvals/{}", a["approval_id"].as_str().unwrap()),
                    json!({"decision": decide(&a)}),
                )
                .await;
                asked.push(a);
            }
            if let Some(f) = self
                .events(session)
                .await
                .into_iter()
                .find(|e| e["type"] == "run_finished" && e["run"] == run)
            {
                return (f, asked);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("run {run} did not finish");
    }

    pub async fn stop(mut self) {
        if let Some(s) = self.server.take() {
            s.shutdown().await.unwrap();
        }
    }
}

pub type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A WebSocket client authenticated with the bearer token.
pub async fn ws_connect(server: &TestServer) -> Ws {
    ws_connect_url(&server.ws_url()).await
}

/// A WebSocket client for `ws://…/api/ws`, authenticated with the bearer token.
pub async fn ws_connect_url(url: &str) -> Ws {
    let mut req = url.into_client_request().unwrap();
    req.headers_mut()
        .insert("authorization", format!("Bearer {TOKEN}").parse().unwrap());
    let (ws, _) = tokio_tungstenite::connect_async(req)
        .await
        .expect("ws connects");
    ws
}

/// Open a one-time sign-in link with `client` (which must not follow redirects); asserts the
/// 303 and returns the `name=value` cookie and the whole `Set-Cookie` header.
pub async fn sign_in_cookie(client: &reqwest::Client, url: &str, user_agent: &str) -> SignedIn {
    let r = client
        .get(url)
        .header("user-agent", user_agent)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::SEE_OTHER, "{url}");
    let full = r.headers()["set-cookie"].to_str().unwrap().to_string();
    let location = r.headers()["location"].to_str().unwrap().to_string();
    SignedIn {
        cookie: full.split(';').next().unwrap().to_string(),
        page: page_token_of(&location),
        full,
    }
}

/// A browser sign-in as a test holds it: the cookie (`name=value`), the whole `Set-Cookie`,
/// and the page token the redirect's fragment carried.
#[derive(Debug, Clone)]
pub struct SignedIn {
    pub cookie: String,
    pub full: String,
    pub page: String,
}

impl SignedIn {
    /// `req` with the cookie and the page token, as the app sends it.
    pub fn on(&self, req: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        req.header("cookie", &self.cookie)
            .header("x-tradewind-page", &self.page)
    }

    /// The WebSocket's first frame for this sign-in.
    pub fn auth_frame(&self) -> String {
        serde_json::json!({"type": "auth", "page": self.page}).to_string()
    }
}

/// Send a cookie socket's first frame (the page token), then a ping, and wait for its ack: the
/// server is then past the check and serving this socket.
pub async fn ws_authenticate<S>(ws: &mut S, b: &SignedIn)
where
    S: futures::Sink<Message>
        + futures::Stream<Item = Result<Message, tokio_tungstenite::tungstenite::Error>>
        + Unpin,
    <S as futures::Sink<Message>>::Error: std::fmt::Debug,
{
    ws.send(Message::Text(b.auth_frame().into())).await.unwrap();
    ws.send(Message::Text(r#"{"type":"ping","id":"ready"}"#.into()))
        .await
        .unwrap();
    while let Some(Ok(m)) = ws.next().await {
        if let Message::Text(t) = m
            && t.contains("\"ready\"")
        {
            return;
        }
    }
    panic!("the socket closed before answering the ping");
}

/// The page token in a sign-in redirect's `Location` (`/#tw-page=…`).
pub fn page_token_of(location: &str) -> String {
    location
        .split_once("#tw-page=")
        .map(|(_, t)| t.to_string())
        .unwrap_or_else(|| panic!("no page token in the redirect to {location}"))
}

/// A client that does not follow redirects.
pub fn no_redirect_client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// How many of `socks` the server has closed (a read ends within 200 ms).
pub async fn closed_count(socks: &mut [tokio::net::TcpStream]) -> usize {
    use tokio::io::AsyncReadExt;
    let mut closed = 0;
    let mut buf = [0u8; 256];
    for c in socks.iter_mut() {
        if let Ok(Ok(0) | Err(_)) =
            tokio::time::timeout(Duration::from_millis(200), c.read(&mut buf)).await
        {
            closed += 1;
        }
    }
    closed
}

/// Read until the server closes `sock` (20 s at most); returns how long that took.
pub async fn time_until_closed(sock: &mut tokio::net::TcpStream) -> Option<Duration> {
    use tokio::io::AsyncReadExt;
    let t0 = std::time::Instant::now();
    let mut buf = [0u8; 256];
    tokio::time::timeout(Duration::from_secs(20), async {
        while let Ok(n) = sock.read(&mut buf).await {
            if n == 0 {
                break;
            }
        }
    })
    .await
    .ok()
    .map(|()| t0.elapsed())
}

/// `serve` arguments for a child server on a free port with the replay provider.
pub fn replay_serve_args(workspace: &Path, replay: &Path) -> Vec<String> {
    [
        "serve",
        "--port",
        "0",
        "--workspace",
        workspace.to_str().unwrap(),
        "--provider",
        "replay",
        "--replay",
        replay.to_str().unwrap(),
    ]
    .map(str::to_string)
    .to_vec()
}

/// A rustls client configuration that trusts only the certificates in `pem`.
pub fn tls_client_config(pem: &str) -> std::sync::Arc<rustls::ClientConfig> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_slice_iter(pem.as_bytes()) {
        roots.add(c.unwrap()).unwrap();
    }
    std::sync::Arc::new(
        rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
            rustls::crypto::aws_lc_rs::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth(),
    )
}

/// A bearer-authenticated WebSocket client for `wss://…/api/ws`, trusting only `ca_pem`.
pub async fn wss_connect_url(url: &str, ca_pem: &str) -> Ws {
    let mut req = url.into_client_request().unwrap();
    req.headers_mut()
        .insert("authorization", format!("Bearer {TOKEN}").parse().unwrap());
    let (ws, _) = tokio_tungstenite::connect_async_tls_with_config(
        req,
        None,
        false,
        Some(tokio_tungstenite::Connector::Rustls(tls_client_config(
            ca_pem,
        ))),
    )
    .await
    .expect("wss connects");
    ws
}

pub async fn ws_send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

/// Next JSON text frame (skipping pings), with a timeout.
/// The next JSON text frame within `timeout` (pings and pongs do not extend it: a server that
/// pings every few seconds must not keep a waiting test alive forever).
pub async fn ws_next(ws: &mut Ws, timeout: Duration) -> Option<Value> {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let m = tokio::time::timeout_at(deadline, ws.next())
            .await
            .ok()??
            .ok()?;
        match m {
            Message::Text(t) => return serde_json::from_str(&t).ok(),
            Message::Close(_) => return None,
            _ => continue,
        }
    }
}

/// A bearer-authenticated client for a server running as a child process.
pub struct Remote {
    pub base: String,
    pub http: reqwest::Client,
}

impl Remote {
    pub fn new(base: &str) -> Remote {
        Remote {
            base: base.to_string(),
            http: reqwest::Client::new(),
        }
    }

    /// A client for an HTTPS server that trusts only the CA in `ca_pem`.
    pub fn with_ca(base: &str, ca_pem: &str) -> Remote {
        Remote {
            base: base.to_string(),
            http: reqwest::Client::builder()
                .tls_certs_only([reqwest::Certificate::from_pem(ca_pem.as_bytes()).unwrap()])
                .build()
                .unwrap(),
        }
    }

    pub async fn get(&self, path: &str) -> Value {
        self.http
            .get(format!("{}{path}", self.base))
            .bearer_auth(TOKEN)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    pub async fn post(&self, path: &str, body: Value) -> Value {
        self.http
            .post(format!("{}{path}", self.base))
            .bearer_auth(TOKEN)
            .json(&body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    pub async fn create_session(&self, body: Value) -> String {
        let made = self.post("/api/sessions", body).await;
        match made["id"].as_str() {
            Some(id) => id.to_string(),
            // Say why, with what the server says of its sandbox (a refused mode names it).
            None => panic!(
                "no session: {made}; sandbox: {}",
                self.get("/api/config").await["sandbox"]
            ),
        }
    }

    pub async fn prompt(&self, sid: &str, text: &str) -> String {
        self.post(
            &format!("/api/sessions/{sid}/messages"),
            json!({ "text": text }),
        )
        .await["run_id"]
            .as_str()
            .unwrap()
            .to_string()
    }

    pub async fn events(&self, sid: &str) -> Vec<Value> {
        self.get(&format!("/api/sessions/{sid}/events?limit=5000"))
            .await["data"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Poll until a run's `run_finished` event; returns it.
    pub async fn wait_run_finished(&self, sid: &str, run: &str) -> Value {
        for _ in 0..400 {
            if let Some(f) = self
                .events(sid)
                .await
                .into_iter()
                .find(|e| e["type"] == "run_finished" && e["run"] == run)
            {
                return f;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("run {run} did not finish");
    }
}

/// Path of the `tradewind` binary built in this workspace's target dir.
pub fn binary() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let p = target.join("debug/tradewind");
    assert!(
        p.exists(),
        "{} is missing: run `cargo build --bin tradewind` first (the test script does)",
        p.display()
    );
    p
}

/// The real binary as a child process; returns the child and its base URL.
pub async fn spawn_binary(
    args: &[&str],
    home: &Path,
    token: &str,
) -> (tokio::process::Child, String) {
    spawn_binary_at(&binary(), args, home, token).await
}

/// `spawn_binary` with a given executable (benches use the release build).
pub async fn spawn_binary_at(
    bin: &Path,
    args: &[&str],
    home: &Path,
    token: &str,
) -> (tokio::process::Child, String) {
    spawn_binary_with(bin, args, home, token, &[]).await
}

/// `spawn_binary_at` with more environment variables.
pub async fn spawn_binary_with(
    bin: &Path,
    args: &[&str],
    home: &Path,
    token: &str,
    env: &[(&str, &std::ffi::OsStr)],
) -> (tokio::process::Child, String) {
    use tokio::io::AsyncBufReadExt;
    let mut child = tokio::process::Command::new(bin)
        .args(args)
        .envs(env.iter().copied())
        .env("TRADEWIND_HOME", home)
        .env("TRADEWIND_TOKEN", token)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // Drain stderr (logs) so a chatty child never blocks on a full pipe.
    if let Some(mut err) = child.stderr.take() {
        tokio::spawn(async move {
            let _ = tokio::io::copy(&mut err, &mut tokio::io::sink()).await;
        });
    }
    let stdout = child.stdout.take().unwrap();
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
        .await
        .expect("server prints its URL")
        .unwrap()
        .unwrap_or_default();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://") || w.starts_with("https://"))
        .expect("URL in the ready line")
        .to_string();
    let base = url.split("/?").next().unwrap().to_string();
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, base)
}

/// One parsed server-sent event: `id`, `event` and the `data` JSON; `None` fields for comments.
#[derive(Debug, Default)]
pub struct Sse {
    pub id: Option<String>,
    pub event: Option<String>,
    pub data: Option<Value>,
    pub comment: Option<String>,
}

/// Reads server-sent events off a streaming response body.
pub struct SseReader {
    body: futures::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buf: String,
}

impl SseReader {
    pub fn new(resp: reqwest::Response) -> SseReader {
        SseReader {
            body: resp.bytes_stream().boxed(),
            buf: String::new(),
        }
    }

    /// The next event or comment block (10 s at most; `None` when the stream ends).
    pub async fn next(&mut self) -> Option<Sse> {
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let block: String = self.buf.drain(..end + 2).collect();
                let mut ev = Sse::default();
                let mut data = vec![];
                for line in block.lines() {
                    if let Some(c) = line.strip_prefix(':') {
                        ev.comment = Some(c.trim().to_string());
                    } else if let Some((k, v)) = line.split_once(':') {
                        let v = v.strip_prefix(' ').unwrap_or(v);
                        match k {
                            "id" => ev.id = Some(v.to_string()),
                            "event" => ev.event = Some(v.to_string()),
                            "data" => data.push(v.to_string()),
                            _ => {}
                        }
                    }
                }
                if !data.is_empty() {
                    ev.data = Some(serde_json::from_str(&data.join("\n")).expect("data is JSON"));
                }
                return Some(ev);
            }
            let chunk = tokio::time::timeout(Duration::from_secs(10), self.body.next())
                .await
                .expect("the stream sends within 10 s")?;
            self.buf
                .push_str(std::str::from_utf8(&chunk.expect("body chunk")).expect("UTF-8"));
        }
    }

    /// The next event (comments skipped), within 30 s (heartbeat comments do not extend it).
    pub async fn next_event(&mut self) -> Option<Sse> {
        let find = async {
            loop {
                let ev = self.next().await?;
                if ev.data.is_some() {
                    return Some(ev);
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(30), find)
            .await
            .expect("an event within 30 s")
    }
}

/// `GET url` as an SSE client (bearer `TOKEN`, `Accept: text/event-stream`).
pub async fn sse_open(
    http: &reqwest::Client,
    url: &str,
    last_event_id: Option<&str>,
) -> reqwest::Response {
    let mut req = http
        .get(url)
        .bearer_auth(TOKEN)
        .header("accept", "text/event-stream");
    if let Some(id) = last_event_id {
        req = req.header("last-event-id", id);
    }
    req.send().await.expect("stream request")
}

/// A file of `tests/mcp` (the MCP test servers; `scripts/test` runs `npm ci` there).
pub fn mcp_test_file(rel: &str) -> PathBuf {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("mcp")
        .join(rel);
    assert!(
        p.is_file(),
        "{} is missing: run `npm ci` in tests/mcp (scripts/test does)",
        p.display()
    );
    p
}

/// `@modelcontextprotocol/server-everything`'s entry point.
pub fn everything_entry() -> PathBuf {
    mcp_test_file("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

/// `@modelcontextprotocol/server-everything` over stdio.
pub fn everything_server() -> tradewind::config::McpServerDef {
    tradewind::config::McpServerDef {
        command: Some("node".into()),
        args: vec![
            everything_entry().to_string_lossy().into_owned(),
            "stdio".into(),
        ],
        ..Default::default()
    }
}
