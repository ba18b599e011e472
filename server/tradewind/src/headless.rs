//! The command line on the real state directory: `tradewind run [--session ID]` and
//! `tradewind sessions list|show|export|import`. When a server already holds the state
//! directory, they go through its API over the state directory's socket (`server.sock`, 0600 in
//! the 0700 state directory: the server serves its own user there, no token on disk); otherwise they start one in this process on a loopback port for
//! as long as they need it — headless (an effect that would ask is unavailable) — so a run is
//! stored like any other and its session can be continued, exported, or opened in the web app.

use std::io::Write;
use std::time::Duration;

use anyhow::{Context, bail};
use serde_json::{Value, json};

use crate::config::Config;
use crate::server::{RUNNING_FILE, RunningInfo, Server};

use crate::protocol::SESSION_EXPORT_FORMAT as EXPORT_FORMAT;

/// A way to the API: a running server's, or one started here.
pub struct Api {
    base: String,
    /// The server's address as the user knows it (its local URL).
    shown: String,
    /// The bearer token of a server started here (`None` through the local socket).
    token: Option<String>,
    http: reqwest::Client,
    /// Started here (stopped by `close`).
    own: Option<Server>,
}

impl Api {
    /// Connect to the server holding `cfg.state_dir`, or start one here.
    pub async fn connect(cfg: &Config) -> anyhow::Result<Api> {
        let held = cfg.state_dir.join(RUNNING_FILE).exists()
            && crate::state_dir::StateDir::open_locked(&cfg.state_dir).is_err();
        if held {
            let path = cfg.state_dir.join(RUNNING_FILE);
            let info: RunningInfo = serde_json::from_slice(
                &std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?,
            )
            .with_context(|| format!("{} is not what a server writes", path.display()))?;
            let socket = cfg.state_dir.join(crate::server::LOCAL_SOCKET);
            if !socket.exists() {
                bail!(
                    "the server running on {} (pid {}) has no local socket ({}): it is from an older version, or its state directory's path is too long for a socket; restart it",
                    cfg.state_dir.display(),
                    info.pid,
                    socket.display()
                );
            }
            // The socket is the credential: the server serves its own user only.
            let http = reqwest::Client::builder().unix_socket(socket).build()?;
            return Ok(Api {
                base: "http://localhost".into(),
                shown: info.local_url,
                token: None,
                http,
                own: None,
            });
        }
        let mut own = cfg.clone();
        own.bind = std::net::IpAddr::from([127, 0, 0, 1]);
        own.port = 0;
        own.tls = None;
        own.mdns = false;
        own.public_url = None;
        own.headless = true;
        let token = crate::util::random_hex(32)?;
        own.access_token = Some(token.clone());
        let server = crate::server::launch(own).await?;
        Ok(Api {
            base: server.base_url(),
            shown: server.base_url(),
            token: Some(token),
            http: reqwest::Client::new(),
            own: Some(server),
        })
    }

    /// Whether this goes through a server that was already running.
    pub fn remote(&self) -> bool {
        self.own.is_none()
    }

    /// The server's address as the user knows it (not the socket's `localhost`).
    pub fn shown(&self) -> &str {
        &self.shown
    }

    pub async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
    ) -> anyhow::Result<(u16, Value)> {
        let mut rb = self
            .http
            .request(method, format!("{}{path}", self.base))
            .timeout(Duration::from_secs(90));
        if let Some(t) = &self.token {
            rb = rb.bearer_auth(t);
        }
        if let Some(b) = body {
            rb = rb.json(b);
        }
        let resp = rb
            .send()
            .await
            .with_context(|| format!("cannot reach the server at {}", self.shown))?;
        let status = resp.status().as_u16();
        let v = resp.json::<Value>().await.unwrap_or(Value::Null);
        Ok((status, v))
    }

    /// A call that must succeed (2xx); otherwise the server's error message.
    pub async fn ok(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
    ) -> anyhow::Result<Value> {
        let (st, v) = self.call(method, path, body).await?;
        if !(200..300).contains(&st) {
            bail!(
                "{}",
                v["error"]["message"]
                    .as_str()
                    .map_or_else(|| format!("the server answered {st}"), str::to_string)
            );
        }
        Ok(v)
    }

    pub async fn close(self) {
        if let Some(s) = self.own
            && let Err(e) = s.shutdown().await
        {
            eprintln!("tradewind: {e:#}");
        }
    }

    /// Every event of a session after `after`, a page at a time.
    pub async fn events(
        &self,
        session: &crate::protocol::SessionId,
        mut after: i64,
    ) -> anyhow::Result<Vec<Value>> {
        let mut all = Vec::new();
        loop {
            let page = self
                .ok(
                    reqwest::Method::GET,
                    &format!("/api/sessions/{session}/events?after={after}&limit=5000"),
                    None,
                )
                .await?;
            let data = page["data"].as_array().cloned().unwrap_or_default();
            after = page["next_cursor"].as_i64().unwrap_or(after);
            all.extend(data);
            if page["has_more"] != true {
                return Ok(all);
            }
        }
    }
}

/// `tradewind run`: one prompt, in a new session or `--session ID`; frames printed as they come.
pub async fn run(args: crate::config::RunArgs) -> anyhow::Result<std::process::ExitCode> {
    let cfg = Config::resolve(&args.common, None, None)?;
    let prompt = args.prompt.join(" ");
    if prompt.trim().is_empty() {
        bail!("the prompt is empty");
    }
    let api = Api::connect(&cfg).await?;
    let result = run_on(&api, &cfg, &args, &prompt).await;
    if let (Ok((_, sid)), false) = (&result, api.remote()) {
        // Nothing waits for background tasks once this process ends: they stop, and it is said.
        let live = api
            .ok(
                reqwest::Method::GET,
                &format!("/api/sessions/{sid}/tasks"),
                None,
            )
            .await
            .ok()
            .and_then(|v| v["data"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter(|t| t["status"] == "running")
            .count();
        if live > 0 {
            eprintln!(
                "tradewind: stopped {live} background task(s) still running at the end of the run"
            );
        }
    }
    api.close().await;
    result.map(|(code, _)| code)
}

async fn run_on(
    api: &Api,
    cfg: &Config,
    args: &crate::config::RunArgs,
    prompt: &str,
) -> anyhow::Result<(std::process::ExitCode, String)> {
    use reqwest::Method;
    let session = match &args.session {
        Some(id) => {
            let (st, v) = api
                .call(Method::GET, &format!("/api/sessions/{id}"), None)
                .await?;
            if st == 404 {
                bail!("no session {id} (tradewind sessions list shows them)");
            }
            if let Some(agent) = &args.agent
                && v["agent"] != agent.as_str()
            {
                api.ok(
                    Method::PATCH,
                    &format!("/api/sessions/{id}"),
                    Some(&json!({"agent": agent})),
                )
                .await?
            } else {
                v
            }
        }
        None => {
            api.ok(
                Method::POST,
                "/api/sessions",
                Some(&json!({
                    "agent": args.agent.clone().unwrap_or_else(crate::protocol::AgentName::build),
                    "workspace": cfg.workspace.to_string_lossy(),
                })),
            )
            .await?
        }
    };
    let sid = session["id"].as_str().unwrap_or_default().to_string();
    let mut seen = session["last_seq"].as_i64().unwrap_or(0);
    // Through a running server this command's own flags are a further ceiling on the run, and
    // nothing waits on the web app unless `--interactive` (a server started here has them).
    let mut body = json!({ "text": prompt });
    if api.remote() {
        body["limits"] = json!({
            "write": cfg.ceiling.write,
            "process": cfg.ceiling.process,
            "external": cfg.ceiling.external,
            "read_only": cfg.read_only,
            "yolo": cfg.yolo,
            "interactive": args.interactive,
        });
    }
    let posted = api
        .ok(
            Method::POST,
            &format!("/api/sessions/{sid}/messages"),
            Some(&body),
        )
        .await?;
    let run_id = posted["run_id"].as_str().unwrap_or_default().to_string();
    if !args.json {
        eprintln!("tradewind: session {sid}, run {run_id}");
        if api.remote() && args.interactive {
            eprintln!(
                "tradewind: through the server at {} — approvals it asks for appear in its web app",
                api.shown()
            );
        } else if api.remote() {
            eprintln!(
                "tradewind: through the server at {}, with this command's flags — what would ask is unavailable (--interactive waits for its web app)",
                api.shown()
            );
        }
    }
    let mut stop = std::pin::pin!(crate::server::wait_for_signal());
    let mut cancelled = false;
    loop {
        let path = format!("/api/sessions/{sid}/events?after={seen}&limit=1000&wait=20");
        let page = tokio::select! {
            p = api.ok(Method::GET, &path, None) => p?,
            () = &mut stop, if !cancelled => {
                cancelled = true;
                let _ = api.call(Method::POST, &format!("/api/runs/{run_id}/cancel"), Some(&json!({}))).await;
                continue;
            }
        };
        for f in page["data"].as_array().cloned().unwrap_or_default() {
            seen = f["seq"].as_i64().unwrap_or(seen);
            print_frame(&f, args.json);
            if f["type"] == "run_finished" && f["run_id"] == run_id.as_str() {
                return Ok((finish(&f, args.json), sid));
            }
        }
        seen = page["next_cursor"].as_i64().unwrap_or(seen);
    }
}

fn print_frame(f: &Value, json: bool) {
    let mut out = std::io::stdout();
    if json {
        let _ = writeln!(out, "{f}");
    } else {
        crate::cli::print_human_value(f);
    }
    let _ = out.flush();
}

fn finish(f: &Value, json: bool) -> std::process::ExitCode {
    if !json {
        println!();
    }
    if let Some(e) = f["error"].as_object() {
        eprintln!(
            "tradewind: run {}: {} ({})",
            f["status"].as_str().unwrap_or(""),
            e.get("message").and_then(Value::as_str).unwrap_or(""),
            e.get("code").and_then(Value::as_str).unwrap_or("")
        );
    }
    match f["status"].as_str() {
        Some("completed") => std::process::ExitCode::SUCCESS,
        Some("cancelled") => std::process::ExitCode::from(130),
        _ => std::process::ExitCode::FAILURE,
    }
}

/// `tradewind sessions …`
pub async fn sessions(cmd: crate::config::SessionsCommand) -> anyhow::Result<()> {
    use crate::config::SessionsCommand as C;
    let common = match &cmd {
        C::List(a) => &a.common,
        C::Show(a) => &a.common,
        C::Export(a) => &a.common,
        C::Import(a) => &a.common,
    };
    let cfg = Config::resolve(common, None, None)?;
    let api = Api::connect(&cfg).await?;
    let result = sessions_on(&api, cmd).await;
    api.close().await;
    result
}

async fn sessions_on(api: &Api, cmd: crate::config::SessionsCommand) -> anyhow::Result<()> {
    use crate::config::SessionsCommand as C;
    use reqwest::Method;
    let mut out = std::io::stdout();
    match cmd {
        C::List(a) => {
            let mut cursor: Option<String> = None;
            loop {
                let mut path = format!("/api/sessions?limit=200&archived={}", a.archived);
                if let Some(c) = &cursor {
                    path.push_str(&format!("&cursor={c}"));
                }
                let page = api.ok(Method::GET, &path, None).await?;
                for s in page["data"].as_array().cloned().unwrap_or_default() {
                    if a.json {
                        writeln!(out, "{s}")?;
                    } else {
                        writeln!(
                            out,
                            "{}\t{}\t{}\t{}",
                            s["id"].as_str().unwrap_or(""),
                            s["status"].as_str().unwrap_or(""),
                            s["agent"].as_str().unwrap_or(""),
                            s["title"].as_str().unwrap_or("")
                        )?;
                    }
                }
                cursor = page["next_cursor"].as_str().map(str::to_string);
                if cursor.is_none() {
                    break;
                }
            }
        }
        C::Show(a) => {
            let doc = export(api, &a.id.as_str().into()).await?;
            out.write_all(markdown(&doc).as_bytes())?;
        }
        C::Export(a) => {
            let doc = export(api, &a.id.as_str().into()).await?;
            let text = match a.format.as_str() {
                "md" | "markdown" => markdown(&doc),
                "json" => serde_json::to_string_pretty(&doc)? + "\n",
                other => bail!("unknown format {other:?} (md or json)"),
            };
            match &a.output {
                Some(p) => std::fs::write(p, text)
                    .with_context(|| format!("cannot write {}", p.display()))?,
                None => out.write_all(text.as_bytes())?,
            }
        }
        C::Import(a) => {
            let text = std::fs::read_to_string(&a.file)
                .with_context(|| format!("cannot read {}", a.file.display()))?;
            let doc: Value = serde_json::from_str(&text)
                .with_context(|| format!("{} is not JSON", a.file.display()))?;
            // `--workspace` given to this command is the user's confirmation of where the
            // imported session works; without it, the server's own workspace.
            let path = match a.common.workspace.as_ref() {
                Some(w) => {
                    let w = std::fs::canonicalize(w)
                        .with_context(|| format!("cannot use {}", w.display()))?;
                    let q = serde_urlencoded::to_string([("workspace", w.to_string_lossy())])?;
                    format!("/api/sessions/import?{q}")
                }
                None => "/api/sessions/import".to_string(),
            };
            let s = api.ok(Method::POST, &path, Some(&doc)).await?;
            writeln!(
                out,
                "{}\t{}",
                s["session"]["id"].as_str().unwrap_or(""),
                s["session"]["title"].as_str().unwrap_or("")
            )?;
            let skipped = s["skipped_events"].as_u64().unwrap_or(0)
                + s["skipped_messages"].as_u64().unwrap_or(0);
            if skipped > 0 {
                eprintln!("tradewind: {skipped} unreadable item(s) of the export were skipped");
            }
        }
    }
    Ok(())
}

/// A whole session: its row, every event, every message the model saw.
pub async fn export(api: &Api, id: &crate::protocol::SessionId) -> anyhow::Result<Value> {
    use reqwest::Method;
    let (st, session) = api
        .call(Method::GET, &format!("/api/sessions/{id}"), None)
        .await?;
    if st == 404 {
        bail!("no session {id} (tradewind sessions list shows them)");
    }
    let events = api.events(id, 0).await?;
    let mut messages = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut path = format!("/api/sessions/{id}/messages?limit=500");
        if let Some(c) = &cursor {
            path.push_str(&format!("&cursor={c}"));
        }
        let page = api.ok(Method::GET, &path, None).await?;
        messages.extend(page["data"].as_array().cloned().unwrap_or_default());
        cursor = page["next_cursor"].as_str().map(str::to_string);
        if cursor.is_none() {
            break;
        }
    }
    Ok(json!({
        "format": EXPORT_FORMAT,
        "session": session,
        "events": events,
        "messages": messages,
    }))
}

/// A readable transcript: prompts, answers, tool calls with the first lines of their results.
pub fn markdown(doc: &Value) -> String {
    let mut md = format!(
        "# {}\n\nSession `{}` · workspace `{}`\n",
        doc["session"]["title"].as_str().unwrap_or("Session"),
        doc["session"]["id"].as_str().unwrap_or(""),
        doc["session"]["workspace"].as_str().unwrap_or("")
    );
    let text = |e: &Value, k: &str| e[k].as_str().unwrap_or("").trim().to_string();
    for e in doc["events"].as_array().into_iter().flatten() {
        match e["type"].as_str().unwrap_or("") {
            "user_message" => md.push_str(&format!("\n## User\n\n{}\n", text(e, "text"))),
            "message_complete" if !text(e, "text").is_empty() => {
                md.push_str(&format!("\n## Assistant\n\n{}\n", text(e, "text")));
                let urls = crate::cli::cited_urls(e);
                if !urls.is_empty() {
                    md.push_str("\nSources:\n");
                    for u in urls {
                        md.push_str(&format!("- <{u}>\n"));
                    }
                }
            }
            "web_search" => md.push_str(&format!(
                "\n> Searched the web ({}): “{}” — {} pages\n",
                text(e, "provider"),
                text(e, "query"),
                e["results"].as_array().map_or(0, Vec::len)
            )),
            "tool_call" => md.push_str(&format!(
                "\n**{}** `{}`\n",
                text(e, "tool"),
                crate::util::truncate_str(&e["input"].to_string(), 500)
            )),
            "tool_result" => {
                let t = text(e, "text");
                let head: Vec<&str> = t.lines().take(12).collect();
                let more = t.lines().count().saturating_sub(head.len());
                md.push_str(&format!(
                    "\n```\n{}{}\n```\n",
                    head.join("\n").replace("```", "'''"),
                    if more > 0 {
                        format!("\n… {more} more lines")
                    } else {
                        String::new()
                    }
                ));
            }
            "context_compacted" => md.push_str(&format!(
                "\n> Conversation compacted ({} older messages summarised).\n",
                e["messages_summarized"]
            )),
            "session_reverted" => md.push_str("\n> The workspace was reverted.\n"),
            "run_finished" if e["error"].is_object() => md.push_str(&format!(
                "\n> Run {}: {}\n",
                text(e, "status"),
                e["error"]["message"].as_str().unwrap_or("")
            )),
            _ => {}
        }
    }
    md
}
