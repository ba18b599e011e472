//! The `tradewind` subcommands.

use std::io::{BufRead, IsTerminal, Write};

use anyhow::{Context, bail};

use crate::config::{Config, PasswdArgs, ServeArgs};
use crate::server::{launch, open_store, wait_for_signal};
use crate::state_dir::StateDir;

pub async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let cfg = Config::for_serve(&args)?;
    let server = launch(cfg).await?;
    // Scripts and tests read this line; keep its shape.
    println!("Tradewind is ready: {}", server.launch_url()?);
    println!(
        "Open that link once in your browser; it signs you in and is then used up (valid 15 minutes; `tradewind link` prints a new one)."
    );
    let face = server.state.face.clone();
    if !server.state.cfg.bind.is_loopback() || server.state.cfg.public_url.is_some() {
        print_device_link(&server.device_url()?);
    }
    if let Some(ca) = &face.ca {
        println!(
            "HTTPS with a local certificate authority, SHA-256 fingerprint:\n  {}",
            ca.fingerprint
        );
        println!(
            "Trust it once on each device (compare the fingerprint): {}/tls",
            face.url.replacen("https://", "http://", 1)
        );
    }
    std::io::stdout().flush().ok();
    server.wait(wait_for_signal()).await
}

fn print_device_link(url: &str) {
    println!("From another device (phone, laptop), open or scan: {url}");
    match crate::qr::text(url) {
        Ok(qr) => println!("{qr}"),
        Err(e) => tracing::debug!(error = %e, "no QR code"),
    }
}

/// `tradewind link`: a new one-time link for the server running on this state directory. The
/// code goes through the 0700 state directory (only its owner can mint one), never through an
/// HTTP route that trusts loopback.
pub fn link(args: PasswdArgs) -> anyhow::Result<()> {
    let dir = crate::config::default_state_dir(args.state_dir.as_deref())?;
    let info_path = dir.join(crate::server::RUNNING_FILE);
    let running = dir.exists() && StateDir::open_locked(&dir).is_err();
    if !running {
        bail!(
            "no Tradewind server is running with the state directory {}; start one with `tradewind serve` (it prints a link)",
            dir.display()
        );
    }
    let info: crate::server::RunningInfo =
        serde_json::from_slice(&std::fs::read(&info_path).with_context(|| {
            format!(
                "cannot read {} (is the server still starting?)",
                info_path.display()
            )
        })?)
        .with_context(|| format!("{} is not valid", info_path.display()))?;
    let links = crate::auth::links::LinkCodes::new(&dir);
    let code = links.mint(crate::auth::links::LINK_TTL_MS)?;
    println!(
        "Sign-in link (one use, valid 15 minutes): {}/?token={code}",
        info.local_url
    );
    if info.url != info.local_url {
        let code = links.mint(crate::auth::links::LINK_TTL_MS)?;
        print_device_link(&format!("{}/?token={code}", info.url));
    }
    if let Some(fp) = &info.ca_fingerprint {
        println!("Certificate authority SHA-256: {fp}");
    }
    Ok(())
}

pub fn openapi(reference: bool) {
    if reference {
        println!("{}", crate::http::openapi_reference());
    } else {
        print!("{}", crate::http::openapi_json());
    }
}

/// Read the new password from stdin (twice on a terminal), hash with argon2id, store.
pub async fn passwd(args: PasswdArgs) -> anyhow::Result<()> {
    let state_dir = crate::config::default_state_dir(args.state_dir.as_deref())?;
    let _lock = StateDir::open_locked(&state_dir).context(
        "stop the running server before changing the password (it holds the state directory)",
    )?;
    let stdin = std::io::stdin();
    let interactive = stdin.is_terminal();
    let read = |prompt: &str| -> anyhow::Result<String> {
        if interactive {
            eprint!("{prompt}");
            std::io::stderr().flush().ok();
        }
        let mut line = String::new();
        stdin.lock().read_line(&mut line)?;
        Ok(line.trim_end_matches(['\r', '\n']).to_string())
    };
    let pw = read("New password: ")?;
    if interactive {
        let again = read("Again: ")?;
        if again != pw {
            bail!("the passwords differ; nothing changed");
        }
    }
    if pw.chars().count() < 8 {
        bail!("the password must have at least 8 characters; nothing changed");
    }
    if pw.len() > 1024 {
        bail!("the password is too long (1024 bytes at most); nothing changed");
    }
    let mut cfg = Config::for_paths(std::env::current_dir()?, state_dir);
    cfg.database_url = tradewind_core::secret_env::var("DATABASE_URL").filter(|u| !u.is_empty());
    let store = open_store(&cfg).await?;
    let phc = crate::auth::hash_password(&pw)?;
    store.set_password_hash(&phc).await?;
    store.close().await;
    eprintln!("Password set. Existing browser sign-ins were signed out.");
    Ok(())
}

/// The pages a `message_complete` frame cites, each once, in order.
pub fn cited_urls(frame: &serde_json::Value) -> Vec<&str> {
    let mut urls: Vec<&str> = Vec::new();
    let cited = frame["citations"].as_array().into_iter().flatten();
    for u in cited.filter_map(|c| c["url"].as_str()) {
        if !urls.contains(&u) {
            urls.push(u);
        }
    }
    urls
}

/// One event frame for a person: the answer as it streams, tool calls and results on stderr.
pub fn print_human_value(v: &serde_json::Value) {
    let s = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or("").to_string();
    match v["type"].as_str().unwrap_or("") {
        "message_delta" => print!("{}", s("text")),
        "tool_call" => eprintln!(
            "\n→ {} {}",
            s("tool"),
            v.get("input").map(|i| i.to_string()).unwrap_or_default()
        ),
        "policy_decision" if s("decision") == "deny" => eprintln!("  denied: {}", s("reason")),
        "tool_result" => {
            let first = s("text").lines().next().unwrap_or("").to_string();
            eprintln!(
                "  {} {}",
                if v.get("ok").and_then(|b| b.as_bool()).unwrap_or(false) {
                    "ok"
                } else {
                    "failed"
                },
                first
            );
        }
        "error" => eprintln!("  error: {}", s("message")),
        "web_search" => eprintln!(
            "\n→ searched the web ({}): {} — {} pages",
            s("provider"),
            s("query"),
            v["results"].as_array().map_or(0, Vec::len)
        ),
        "message_complete" => {
            let urls = cited_urls(v);
            if !urls.is_empty() {
                eprintln!("\n  sources: {}", urls.join(" "));
            }
        }
        "provider_retry" => {
            let n = |k: &str| v.get(k).and_then(serde_json::Value::as_u64).unwrap_or(0);
            eprintln!(
                "  provider unavailable ({}): attempt {} of {} in {} ms",
                s("reason"),
                n("attempt"),
                n("max_attempts"),
                n("delay_ms")
            );
        }
        _ => {}
    }
}

/// `tradewind policy check`: the gate's dry run from the command line. Exit status 0 allow,
/// 1 ask, 2 deny, 3 usage error; nothing is executed and no server is needed.
/// The MCP servers of config.json, with a hub that starts them as the server would.
fn mcp_hub(a: &crate::config::McpArgs) -> anyhow::Result<tradewind_core::mcp::McpHub> {
    let common = crate::config::CommonArgs {
        state_dir: a.state_dir.clone(),
        workspace: a.workspace.clone(),
        ..Default::default()
    };
    let cfg = crate::config::Config::resolve(&common, None, None)?;
    let sandbox = tradewind_core::sandbox::SandboxHandle::new(std::sync::Arc::new(cfg.clone()));
    Ok(tradewind_core::mcp::McpHub::new(
        &cfg.mcp,
        false,
        &cfg.workspace,
        &cfg.state_dir,
        cfg.home.as_deref(),
        sandbox,
    )
    .reserve_names(tradewind_core::agent::toolset::names()))
}

/// `tradewind mcp list`
pub fn mcp_list(a: crate::config::McpArgs) -> anyhow::Result<()> {
    let list = mcp_hub(&a)?.list();
    if list.data.is_empty() {
        println!("no MCP servers in config.json (add them under \"mcp\": {{\"servers\": {{…}}}})");
    }
    for s in &list.data {
        let state = serde_json::to_value(s.state).unwrap_or_default();
        println!(
            "{}\t{}\t{}\t{}",
            s.name,
            s.transport,
            state.as_str().unwrap_or(""),
            s.target
        );
    }
    Ok(())
}

/// `tradewind mcp doctor NAME`: true when it connected.
pub async fn mcp_doctor(a: crate::config::McpDoctorArgs) -> anyhow::Result<bool> {
    let hub = mcp_hub(&a.common)?;
    match hub.connect(&a.name).await {
        Ok(info) => {
            println!(
                "{}: connected ({}) over {}; {} tool(s)",
                info.name,
                info.server_info.as_deref().unwrap_or("unnamed server"),
                info.transport,
                info.tools.len()
            );
            for t in &info.tools {
                let hints = if t.hints.is_empty() {
                    String::new()
                } else {
                    format!(" [{}]", t.hints.join(", "))
                };
                println!(
                    "  {}{hints}  {}",
                    t.name,
                    t.description.lines().next().unwrap_or("")
                );
            }
            hub.disconnect(&a.name).ok();
            Ok(true)
        }
        Err(e) => {
            eprintln!("{}: {e}", a.name);
            Ok(false)
        }
    }
}

pub async fn policy_check(a: crate::config::PolicyCheckArgs) -> std::process::ExitCode {
    use crate::protocol::PolicyDecision;
    let usage = |m: &str| {
        eprintln!("tradewind policy check: {m}");
        std::process::ExitCode::from(3)
    };
    let (tool, input) = match (&a.tool, &a.input) {
        (Some(t), Some(i)) => match serde_json::from_str::<serde_json::Value>(i) {
            Ok(v) => (t.clone(), v),
            Err(e) => return usage(&format!("--input is not JSON: {e}")),
        },
        _ if !a.command.is_empty() => (
            "shell".to_string(),
            serde_json::json!({ "command": a.command.join(" ") }),
        ),
        _ => return usage("give a command after `--`, or --tool NAME --input JSON"),
    };
    let workspace = match a.workspace.clone().map_or_else(std::env::current_dir, Ok) {
        Ok(w) if w.is_dir() => w,
        Ok(w) => return usage(&format!("workspace {} is not a directory", w.display())),
        Err(e) => return usage(&format!("no current directory: {e}")),
    };
    let state_dir = match crate::config::default_state_dir(a.state_dir.as_deref()) {
        Ok(d) => d,
        Err(e) => return usage(&format!("{e:#}")),
    };
    // The server's own reading of the flags and config.json: `--read-only` (or `readOnly`)
    // drops every extra root and the whole ceiling, `--yolo` with it; `--add-dir` and
    // `additionalDirectories` are the canonical directories the server would add.
    let file = crate::config::load_file_config(&state_dir).unwrap_or_default();
    let read_only = a.read_only || file.read_only;
    let mut extra_roots = Vec::new();
    if !read_only {
        let cwd = std::env::current_dir().unwrap_or_default();
        for d in &a.add_dir {
            match std::fs::canonicalize(cwd.join(d)) {
                Ok(p) => extra_roots.push(p),
                Err(_) => return usage(&format!("--add-dir {} does not exist", d.display())),
            }
        }
        for d in &file.additional_directories {
            if let Ok(p) = std::fs::canonicalize(state_dir.join(d)) {
                extra_roots.push(p);
            }
        }
    }
    let workspace = std::fs::canonicalize(&workspace).unwrap_or(workspace);
    let paths = crate::policy::paths::PathPolicy::new(&workspace, &extra_roots, &state_dir);
    let grants = std::collections::HashSet::new();
    let ceiling = if read_only {
        crate::policy::Ceiling::default()
    } else {
        crate::policy::Ceiling {
            write: a.allow_write || file.allow_write,
            process: a.allow_process || file.allow_process,
            external: a.allow_external || file.allow_external,
        }
    };
    // A custom agent is judged as the built-in it narrows, in its mode ceiling (its files are
    // read whether trusted or not: nothing runs here).
    let (agent, mode) = match a.agent.builtin() {
        Some(b) => (b, a.mode),
        None => {
            let c = tradewind_core::agents::catalogue(
                &workspace,
                &state_dir,
                tradewind_core::agents::workspace_hash(&workspace).as_deref(),
                &[],
                &tradewind_core::agent::profiles::known_tool,
            );
            match c.get(a.agent.as_str()) {
                Some(p) => (p.base, p.mode_in(a.mode)),
                None => {
                    return usage(&format!(
                        "no agent named `{}`; agents: {}",
                        a.agent,
                        c.names().join(", ")
                    ));
                }
            }
        }
    };
    let ctx = crate::policy::Context {
        agent,
        mode,
        interactive: !a.headless,
        ceiling,
        read_only,
        yolo: a.yolo && !read_only,
        grants: &grants,
    };
    // The configured origins (`webfetch.allowHosts`, provider, search) are exempt from the
    // private-address question, as in a run.
    let exempt = crate::config::exempt_origins(
        &file.webfetch,
        &file.websearch,
        file.provider.base_url.as_deref(),
    );
    let report =
        match tradewind_core::policy_check::check(&ctx, &tool, &input, &paths, &exempt).await {
            Ok(r) => r,
            Err(e) => return usage(&e.to_string()),
        };
    if a.json {
        println!(
            "{}",
            serde_json::to_string(&report).unwrap_or_else(|_| "{}".into())
        );
    } else {
        print!("{}", render_policy_report(&report));
    }
    let code = match report.decision {
        PolicyDecision::Allow => 0,
        PolicyDecision::Ask => 1,
        PolicyDecision::Deny => 2,
    };
    std::process::ExitCode::from(code)
}

fn render_policy_report(r: &crate::protocol::PolicyCheckReport) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} ({} effect, tool `{}`)",
        r.decision.as_ref(),
        r.effect.as_str(),
        r.tool
    );
    for x in &r.reasons {
        let _ = writeln!(
            out,
            "  {:<5} [{}] {}",
            x.decision.as_ref(),
            x.code,
            x.message
        );
    }
    if !r.categories.is_empty() {
        let _ = writeln!(out, "categories: {}", r.categories.join(", "));
    }
    if !r.commands.is_empty() {
        let _ = writeln!(out, "commands:");
        for c in &r.commands {
            let cats = if c.categories.is_empty() {
                String::new()
            } else {
                format!("  ({})", c.categories.join(", "))
            };
            let _ = writeln!(
                out,
                "  {:<5} {}{cats}",
                c.decision.as_ref(),
                c.argv.join(" ")
            );
        }
    }
    for w in &r.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}

/// The store a maintenance command works on: `DATABASE_URL`, else the state directory's SQLite
/// file — which must exist (a backup or check never creates an empty database).
async fn maintenance_store(
    state_dir: Option<&std::path::Path>,
) -> anyhow::Result<tradewind_core::store::Store> {
    let state_dir = crate::config::default_state_dir(state_dir)?;
    let mut cfg = Config::for_paths(std::env::current_dir()?, state_dir.clone());
    cfg.database_url = tradewind_core::secret_env::var("DATABASE_URL").filter(|u| !u.is_empty());
    if cfg.database_url.is_none() && !state_dir.join("tradewind.db").is_file() {
        bail!("there is no database in {}", state_dir.display());
    }
    open_store(&cfg).await
}

/// `tradewind backup FILE`: online, while a server may be running.
pub async fn backup(args: crate::config::BackupArgs) -> anyhow::Result<()> {
    let store = maintenance_store(args.state_dir.as_deref()).await?;
    let result = store.backup_into(&args.file).await;
    store.close().await;
    result?;
    eprintln!("backed up to {} (mode 0600)", args.file.display());
    Ok(())
}

/// `tradewind check`: integrity and schema; false when something is wrong.
pub async fn check(args: PasswdArgs) -> anyhow::Result<bool> {
    let store = maintenance_store(args.state_dir.as_deref()).await?;
    let r = store.check().await;
    store.close().await;
    let r = r?;
    println!("integrity: {}", r.integrity.join("; "));
    println!(
        "schema: version {} ({} migrations known to this binary)",
        r.schema_version, r.known_migrations
    );
    println!("sessions: {}, events: {}", r.sessions, r.events);
    Ok(r.ok())
}

/// `tradewind trust list`
pub async fn trust_list(args: crate::config::PasswdArgs) -> anyhow::Result<()> {
    let store = maintenance_store(args.state_dir.as_deref()).await?;
    let list = tradewind_core::services::skills::trust_list(&store).await;
    store.close().await;
    let list = list.map_err(|e| anyhow::anyhow!("{e}"))?;
    if list.data.is_empty() {
        println!("nothing is trusted");
    }
    for t in list.data {
        println!(
            "{}\t{}\t{}\t{}",
            t.kind.as_str(),
            if t.current { "current" } else { "changed" },
            t.hash,
            t.workspace
        );
    }
    Ok(())
}

/// `tradewind trust revoke PATH [--kind K]`
pub async fn trust_revoke(args: crate::config::TrustRevokeArgs) -> anyhow::Result<()> {
    let store = maintenance_store(args.common.state_dir.as_deref()).await?;
    let ws = args.path.to_string_lossy().into_owned();
    use tradewind_core::protocol::TrustKind;
    let all = [
        TrustKind::Config,
        TrustKind::Skills,
        TrustKind::Hooks,
        TrustKind::Agents,
    ];
    let kinds: Vec<TrustKind> = match args.kind.as_deref() {
        None => all.to_vec(),
        Some(k) => match all.iter().find(|a| a.as_str() == k) {
            Some(kind) => vec![*kind],
            None => {
                store.close().await;
                anyhow::bail!("--kind `{k}` is not one of: config, skills, hooks, agents");
            }
        },
    };
    let mut revoked = Vec::new();
    let mut failed = None;
    for k in &kinds {
        match tradewind_core::services::skills::revoke_trust(&store, *k, &ws).await {
            Ok(()) => revoked.push(k.as_str()),
            Err(tradewind_core::services::ServiceError::NotFound(_)) => {}
            Err(e) => failed = Some(e.to_string()),
        }
    }
    store.close().await;
    if let Some(e) = failed {
        anyhow::bail!("{e}");
    }
    if revoked.is_empty() {
        let looked: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
        anyhow::bail!(
            "nothing of {ws} is trusted (looked at: {})",
            looked.join(", ")
        );
    }
    println!("no longer trusted: {} of {ws}", revoked.join(", "));
    Ok(())
}

/// `tradewind plugin …`
pub async fn plugin(cmd: crate::config::PluginCommand) -> anyhow::Result<()> {
    use crate::config::PluginCommand as P;
    match cmd {
        P::List(a) => plugin_list(a).await,
        P::Install(a) => plugin_install(a).await,
        P::Enable(a) => plugin_switch(a, true).await,
        P::Disable(a) => plugin_switch(a, false).await,
        P::Remove(a) => plugin_remove(a).await,
    }
}

async fn plugin_list(a: PasswdArgs) -> anyhow::Result<()> {
    let state_dir = crate::config::default_state_dir(a.state_dir.as_deref())?;
    let on = match maintenance_store(Some(&state_dir)).await {
        Ok(store) => {
            let s = store.plugins_setting().await;
            store.close().await;
            tradewind_core::plugins::names(s.as_deref())
        }
        Err(_) => Vec::new(),
    };
    let all = tradewind_core::plugins::installed(&state_dir);
    if all.is_empty() {
        println!("no plugin is installed (tradewind plugin install SPEC --yes)");
    }
    for p in all {
        let mut parts = Vec::new();
        for (has, what) in [
            (p.skills.is_some(), "skills"),
            (p.agents.is_some(), "agents"),
            (p.commands.is_some(), "commands"),
            (p.hooks.is_some(), "hooks"),
            (!p.mcp_servers.is_empty(), "mcp"),
        ] {
            if has {
                parts.push(what);
            }
        }
        println!(
            "{}\t{}\t{}\t{}",
            p.name,
            if on.contains(&p.name) { "on" } else { "off" },
            p.version.as_deref().unwrap_or("-"),
            parts.join(",")
        );
    }
    Ok(())
}

/// Install with npm (`--ignore-scripts`: no code of the package runs; `--offline` for a file)
/// into a staging folder, moved in under its name, disabled. The user typed it: no jail.
async fn plugin_install(a: crate::config::PluginInstallArgs) -> anyhow::Result<()> {
    use tradewind_core::plugins;
    let spec =
        plugins::parse_spec(&a.spec, &std::env::current_dir()?).map_err(|e| anyhow::anyhow!(e))?;
    if !a.yes {
        bail!(
            "installing runs npm for {}: say --yes to go ahead (the plugin is added disabled)",
            spec.npm_arg()
        );
    }
    let state_dir = crate::config::default_state_dir(a.common.state_dir.as_deref())?;
    let name = tradewind_core::tools::plugins::install(&state_dir, &spec, None)
        .await
        .map_err(|e| anyhow::anyhow!(e))?;
    println!(
        "installed {name} (disabled): turn it on with `tradewind plugin enable {name}` or in Settings → Plugins"
    );
    Ok(())
}

async fn plugin_switch(a: crate::config::PluginNameArgs, enabled: bool) -> anyhow::Result<()> {
    let state_dir = crate::config::default_state_dir(a.common.state_dir.as_deref())?;
    let store = maintenance_store(Some(&state_dir)).await?;
    let done =
        tradewind_core::services::plugins::switch(&store, &state_dir, &a.name, enabled).await;
    store.close().await;
    done.map_err(|e| anyhow::anyhow!("{e}"))?;
    println!(
        "{} {}{}",
        a.name,
        if enabled { "enabled" } else { "disabled" },
        if enabled {
            " (a running server counts its MCP servers from its next start, or enable it in Settings → Plugins)"
        } else {
            ""
        }
    );
    Ok(())
}

async fn plugin_remove(a: crate::config::PluginNameArgs) -> anyhow::Result<()> {
    let state_dir = crate::config::default_state_dir(a.common.state_dir.as_deref())?;
    if !tradewind_core::plugins::valid_name(&a.name) {
        bail!("`{}` is not a plugin name", a.name);
    }
    let folder = tradewind_core::plugins::dir(&state_dir).join(&a.name);
    if !folder.is_dir() {
        bail!("no plugin named {} is installed", a.name);
    }
    if let Ok(store) = maintenance_store(Some(&state_dir)).await {
        let _ = tradewind_core::services::plugins::switch(&store, &state_dir, &a.name, false).await;
        store.close().await;
    }
    std::fs::remove_dir_all(&folder)?;
    println!("removed {}", a.name);
    Ok(())
}
