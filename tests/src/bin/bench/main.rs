//! Benchmarks (not tests): `cargo run --release -p tradewind-tests --bin bench [NAME…]`.
//! Prints one line per figure. Names: startup, sessions, gate, turn, stream, events, search, tls,
//! sse, files, webfetch, mcp, context, fts, undo, rss, extend (skills and hooks), review (a
//! terminal's echo, a 300-file review), hotpath (the
//! hot path's targets in one table);
//! `soak` (only when named; `TW_SOAK_MINUTES`, default 2).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod hotpath;
mod review;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tradewind::config::Ceiling;
use tradewind_tests::openai_mock::{Mock, Reply, ev_done, ev_finish, ev_text};
use tradewind_tests::*;

fn pct(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i]
}

/// The jail (bubblewrap) for a workspace, with the command job of its one root and the helper
/// it runs — the release binary, as a user's server runs it (the debug one is 5× larger).
fn jailed_in(
    ws: &TempDir,
    state: &TempDir,
) -> Result<
    (
        tradewind::sandbox::Sandbox,
        tradewind::sandbox::Job,
        std::path::PathBuf,
    ),
    String,
> {
    let mut cfg =
        tradewind::config::Config::for_paths(ws.path().to_path_buf(), state.path().to_path_buf());
    let helper = if release_binary().exists() {
        release_binary()
    } else {
        binary()
    };
    cfg.sandbox_helper = Some(helper.clone());
    cfg.sandbox.jail = tradewind::sandbox::JailChoice::Bwrap;
    // The hot path measures turns, not the title call after a session's first one.
    cfg.titles.enabled = false;
    let (sb, info) = tradewind::sandbox::for_config(&cfg);
    let sb = sb
        .filter(|s| s.jailed())
        .ok_or_else(|| format!("{:?}", info.notes))?;
    let job = tradewind::sandbox::Job {
        roots: vec![ws.path().to_path_buf()],
        ..Default::default()
    };
    Ok((sb, job, helper))
}

/// What skills and hooks cost: a catalogue of 500 skills read and offered (the system
/// prompt's list for a 128k window), as a run does once before its first model call; and a
/// `PreToolUse` hook whose command is `/bin/true`, run in the jail, against `/bin/true` run in
/// the jail directly, in the same run (the hook's own cost is the difference).
async fn extend() {
    let ws = TempDir::new("bench-extend-ws");
    let state = TempDir::new("bench-extend-state");
    for i in 0..500 {
        let dir = ws.path().join(format!(".agents/skills/skill-{i:03}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: skill-{i:03}\ndescription: Does task number {i} of the team's playbook, with its scripts.\n---\n# Skill {i}\nSteps.\n"),
        )
        .unwrap();
    }
    let hash = tradewind::skills::workspace_hash(ws.path());
    let mut v = Vec::new();
    let mut listed = 0;
    for _ in 0..30 {
        let t0 = Instant::now();
        let choices = tradewind::skills::Choices::from_settings(hash.clone(), None);
        let c = tradewind::skills::catalogue(ws.path(), state.path(), &choices);
        let section = c.prompt_section(128_000 * 4 / 50);
        v.push(t0.elapsed().as_secs_f64() * 1e3);
        listed = section.lines().filter(|l| l.starts_with("- ")).count();
        assert_eq!(c.skills.len(), 500);
    }
    println!(
        "skills_500_offer_ms p50 {:.2} (read, trusted by hash, listed: {listed} of 500 fit 2 % of a 128k window; target <= 5; n=30)",
        pct(&mut v, 0.5)
    );
    let (sb, job, _) = match jailed_in(&ws, &state) {
        Ok(j) => j,
        Err(notes) => {
            println!("hook_true_p50_ms unavailable here ({notes})");
            return;
        }
    };
    std::fs::write(
        state.path().join("hooks.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "shell", "hooks": [{"type": "command", "command": "/bin/true"}]}]}}"#,
    )
    .unwrap();
    let file = tradewind::hooks::user_file(state.path()).unwrap();
    let hook = &file.hooks[&tradewind::hooks::Event::PreToolUse][0];
    let input = json!({"hook_event_name": "PreToolUse", "tool_name": "shell", "tool_input": {"command": "ls"}});
    let mut jailed = Vec::new();
    let mut hooked = Vec::new();
    for _ in 0..50 {
        let t0 = Instant::now();
        let mut cmd = sb
            .command(&job, std::path::Path::new("/bin/true"), &[])
            .unwrap();
        cmd.current_dir(ws.path());
        assert!(cmd.status().await.unwrap().success());
        jailed.push(t0.elapsed().as_secs_f64() * 1e3);
        let t0 = Instant::now();
        let ran = tradewind::hooks::run(
            hook,
            tradewind::hooks::Event::PreToolUse,
            &input,
            ws.path(),
            Some((&sb, &job)),
        )
        .await;
        hooked.push(t0.elapsed().as_secs_f64() * 1e3);
        assert_eq!(
            ran.verdict,
            tradewind::hooks::Verdict::Pass { context: None }
        );
    }
    let jailed = pct(&mut jailed, 0.5);
    let hooked = pct(&mut hooked, 0.5);
    println!(
        "hook_true_p50_ms jailed /bin/true {jailed:.2}, a PreToolUse hook running it {hooked:.2} (+{:.2} over the jail alone; target +5) (50 runs each, interleaved)",
        hooked - jailed
    );
}

/// What the jail costs a command: `/bin/true` started unconfined and in the jail (bubblewrap,
/// Landlock and seccomp inside), each 100 times one after the other; p50 of each.
async fn jail() {
    let ws = TempDir::new("bench-jail-ws");
    let state = TempDir::new("bench-jail-state");
    let (sb, job, helper) = match jailed_in(&ws, &state) {
        Ok(j) => j,
        Err(notes) => {
            println!("jail_true_p50_ms unavailable here ({notes})");
            return;
        }
    };
    let time = |jailed: bool| {
        let (sb, job, ws) = (&sb, &job, ws.path().to_path_buf());
        async move {
            let mut v = Vec::new();
            for _ in 0..100 {
                let mut cmd = if jailed {
                    sb.command(job, std::path::Path::new("/bin/true"), &[])
                        .unwrap()
                } else {
                    tokio::process::Command::new("/bin/true")
                };
                cmd.current_dir(&ws);
                let t0 = Instant::now();
                let st = cmd.status().await.unwrap();
                v.push(t0.elapsed().as_secs_f64() * 1e3);
                assert!(st.success());
            }
            pct(&mut v, 0.5)
        }
    };
    let plain = time(false).await;
    let jailed = time(true).await;
    println!(
        "jail_true_p50_ms unjailed {plain:.2} jailed {jailed:.2} (+{:.2}; target +10) (100 runs each, the jail's helper is {})",
        jailed - plain,
        tradewind::sandbox::jail_helper(&helper).display()
    );
    // The same in a git repository of 2,000 files in 200 folders, the command built inside the
    // timing (the jail's look through the roots, the descriptors it opens) and the look the
    // shell tool takes before and after a command (what it creates for outside programs).
    for d in 0..200 {
        let dir = ws.path().join(format!("src/m{d:03}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..10 {
            std::fs::write(dir.join(format!("f{f}.rs")), "fn x() {}\n").unwrap();
        }
    }
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(ws.path())
        .status();
    if !git.is_ok_and(|s| s.success()) {
        println!("jail_repo_p50_ms unavailable (no git)");
        return;
    }
    let mut built = Vec::new();
    let mut guard = Vec::new();
    for _ in 0..100 {
        let t0 = Instant::now();
        let mut cmd = sb
            .command(&job, std::path::Path::new("/bin/true"), &[])
            .unwrap();
        cmd.current_dir(ws.path());
        assert!(cmd.status().await.unwrap().success());
        built.push(t0.elapsed().as_secs_f64() * 1e3);
        let t0 = Instant::now();
        let a = tradewind::sandbox::guard::Snapshot::take(&job.roots);
        let b = tradewind::sandbox::guard::Snapshot::take(&job.roots);
        assert!(b.new_since(&a).is_empty());
        guard.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    let built = pct(&mut built, 0.5);
    let guard = pct(&mut guard, 0.5);
    println!(
        "jail_repo_p50_ms in a 2,000-file git repository: built and run {built:.2} (+{:.2} over unjailed), the shell tool's two looks {guard:.2}; total +{:.2} (target +10)",
        built - plain,
        built + guard - plain
    );
}

/// What the credentials issue adds to every request: the page token's check (an HMAC and a
/// constant-time compare) and the scope a route needs. Timed alone (p50 over batches), then a
/// whole request with the cookie and its page token next to one with the access token.
async fn credentials() {
    let dir = std::env::temp_dir().join(format!("tw-bench-keys-{}", std::process::id()));
    let keys = tradewind::keystore::KeyStore::open(&dir).unwrap();
    let mac = keys.mac_key("page").unwrap();
    let id = "01JBENCHLOGINSESSION000000";
    let presented = mac.sign_hex(&["page", id]);
    let paths = [
        (axum::http::Method::GET, "/api/sessions/01JBENCH/events"),
        (axum::http::Method::POST, "/api/approvals/01JBENCH"),
        (axum::http::Method::POST, "/api/sessions/01JBENCH/messages"),
    ];
    let mut per_op = Vec::new();
    let mut ok = 0usize;
    for _ in 0..200 {
        let t0 = Instant::now();
        for i in 0..1000 {
            let expected = mac.sign_hex(&["page", id]);
            ok += usize::from(tradewind::util::ct_eq(
                expected.as_bytes(),
                presented.as_bytes(),
            ));
            let (m, p) = &paths[i % paths.len()];
            let need = tradewind::http::gate::needed_scope(m, p);
            ok += usize::from(tradewind::auth::Scopes::ALL.has(need));
        }
        per_op.push(t0.elapsed().as_secs_f64() * 1e6 / 1000.0);
    }
    assert_eq!(ok, 400_000);
    std::fs::remove_dir_all(&dir).ok();
    println!(
        "page_token_and_scope_check_p50_us {:.2} (HMAC-SHA256 + compare + route scope, per request; target <= 50)",
        pct(&mut per_op, 0.5)
    );
    let s = TestServer::start(Opts::default()).await;
    let b = sign_in_cookie(&no_redirect_client(), &s.url(&s.launch_path()), "bench").await;
    let c = reqwest::Client::new();
    let url = s.url("/api/whoami");
    let time = |cookie: bool| {
        let (c, url, b) = (c.clone(), url.clone(), b.clone());
        async move {
            let mut v = Vec::new();
            for _ in 0..2000 {
                let req = if cookie {
                    b.on(c.get(&url))
                } else {
                    c.get(&url).bearer_auth(TOKEN)
                };
                let t0 = Instant::now();
                let r = req.send().await.unwrap();
                assert_eq!(r.status(), 200);
                let _ = r.bytes().await.unwrap();
                v.push(t0.elapsed().as_secs_f64() * 1e3);
            }
            pct(&mut v, 0.5)
        }
    };
    let bearer = time(false).await;
    let cookie = time(true).await;
    println!(
        "whoami_p50_ms bearer {bearer:.3} cookie+page {cookie:.3} (2,000 sequential requests each, in-process server; the cookie also looks its session up)"
    );
    s.stop().await;
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// CPU time this process's live threads have used (ns), from /proc/self/task/*/schedstat.
fn process_cpu_ns() -> u64 {
    std::fs::read_dir("/proc/self/task")
        .map(|d| {
            d.flatten()
                .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
                .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
                .sum()
        })
        .unwrap_or(0)
}

/// The release server (`TW_BENCH_BIN` names another build, e.g. an earlier commit's).
fn release_binary() -> std::path::PathBuf {
    std::env::var_os("TW_BENCH_BIN").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/release/tradewind"),
        std::path::PathBuf::from,
    )
}

async fn startup() {
    let bin = release_binary();
    let size = std::fs::metadata(&bin).map(|m| m.len()).unwrap_or(0);
    println!(
        "binary_size_mib {:.1} ({})",
        size as f64 / 1048576.0,
        bin.display()
    );
    let mut times = Vec::new();
    let mut rss = 0;
    for i in 0..10 {
        let home = TempDir::new("bench-start");
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let t0 = Instant::now();
        let mut child = std::process::Command::new(&bin)
            .args([
                "serve",
                "--port",
                &port.to_string(),
                "--workspace",
                home.path().to_str().unwrap(),
            ])
            .env("TRADEWIND_HOME", home.path().join("state"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let client = reqwest::Client::new();
        loop {
            if let Ok(r) = client
                .get(format!("http://127.0.0.1:{port}/api/health"))
                .send()
                .await
                && r.status() == 200
            {
                break;
            }
            tokio::time::sleep(Duration::from_micros(500)).await;
        }
        times.push(t0.elapsed().as_secs_f64() * 1000.0);
        if i == 9 {
            tokio::time::sleep(Duration::from_secs(2)).await;
            rss = rss_kib(child.id());
        }
        child.kill().unwrap();
        child.wait().unwrap();
    }
    println!(
        "start_to_first_200_ms median {:.1} (min {:.1}, max {:.1}, n=10)",
        pct(&mut times.clone(), 0.5),
        pct(&mut times.clone(), 0.0),
        pct(&mut times, 1.0)
    );
    println!("idle_rss_mib {:.1}", rss as f64 / 1024.0);
}

async fn sessions() {
    let s = TestServer::start(Opts::default()).await;
    for i in 0..100 {
        s.post("/api/sessions", json!({"title": format!("s{i}")}))
            .await;
    }
    let url = s.url("/api/sessions?limit=100");
    let dur = Duration::from_secs(5);
    let t0 = Instant::now();
    let mut handles = Vec::new();
    for _ in 0..16 {
        let url = url.clone();
        handles.push(tokio::spawn(async move {
            let c = reqwest::Client::new();
            let mut n = 0u64;
            while t0.elapsed() < dur {
                let r = c.get(&url).bearer_auth(TOKEN).send().await.unwrap();
                assert_eq!(r.status(), 200);
                let _ = r.bytes().await.unwrap();
                n += 1;
            }
            n
        }));
    }
    let mut total = 0;
    for h in handles {
        total += h.await.unwrap();
    }
    println!(
        "get_sessions_100_rps {:.0} (16 connections, 5 s, in-process server + client on 2 cores)",
        total as f64 / t0.elapsed().as_secs_f64()
    );
    s.stop().await;
}

fn gate() {
    use tradewind::policy::{Context, Proposal, decide};
    use tradewind::protocol::{Agent, Effect, Mode};
    let grants: HashSet<String> = ["effect:write".to_string()].into_iter().collect();
    let analysis = tradewind::policy::command::analyze_shell("cargo test --workspace");
    let ctx = Context {
        agent: Agent::Build,
        mode: Mode::Auto,
        interactive: true,
        ceiling: Ceiling {
            write: true,
            process: false,
            external: false,
        },
        read_only: false,
        yolo: false,
        grants: &grants,
    };
    let uses = [tradewind::policy::PathUse {
        links: 1,
        path: "/w/src/main.rs".into(),
        inside: true,
        directory: "/w/src".into(),
    }];
    let n = 1_000_000;
    let t0 = Instant::now();
    let mut allow = 0;
    for i in 0..n {
        let p = if i % 2 == 0 {
            Proposal {
                origin: tradewind::policy::Origin::Model,
                tool: "write_file",
                effect: Effect::Write,
                paths: &uses,
                command: None,
                command_text: None,
                net: None,
                mcp: None,
            }
        } else {
            Proposal {
                origin: tradewind::policy::Origin::Model,
                tool: "shell",
                effect: Effect::Process,
                paths: &[],
                command: Some(&analysis),
                command_text: Some("cargo test --workspace"),
                net: None,
                mcp: None,
            }
        };
        if matches!(
            std::hint::black_box(decide(&ctx, &p)),
            tradewind::policy::Decision::Allow { .. }
        ) {
            allow += 1;
        }
    }
    let per = t0.elapsed().as_secs_f64() * 1e9 / n as f64;
    println!("gate_decision_ns {per:.0} (mean of {n}, write+process alternating; {allow} allowed)");
    // Parse + classification of a 200-character pipeline: p50 and p99 of 20,000 runs.
    let line = "cd web && RUST_LOG=debug cargo test -p tradewind-core --features probe 2>&1 | grep -E '^(test result|FAILED)' | tail -n 20; git status --porcelain | awk '{print $2}' | sort | uniq -c > status.txt";
    let line = &line[..200.min(line.len())];
    let mut samples: Vec<f64> = (0..20_000)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(tradewind::policy::command::analyze_shell(line));
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    println!(
        "command_classify_us p50 {:.1} p99 {:.1} ({}-character pipeline, 20000 runs)",
        samples[samples.len() / 2],
        samples[samples.len() * 99 / 100],
        line.len()
    );
    let analysis = tradewind::policy::command::analyze_shell(line);
    let t0 = Instant::now();
    for _ in 0..n {
        std::hint::black_box(decide(
            &ctx,
            &Proposal {
                origin: tradewind::policy::Origin::Model,
                tool: "shell",
                effect: Effect::Process,
                paths: &[],
                command: Some(&analysis),
                command_text: Some(line),
                net: None,
                mcp: None,
            },
        ));
    }
    println!(
        "gate_decision_on_analysed_pipeline_ns {:.0} (mean of {n})",
        t0.elapsed().as_secs_f64() * 1e9 / n as f64
    );
    let dir = std::env::temp_dir().join(format!("tw-bench-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok();
    let r = tradewind::policy::corpus::judge(&dir);
    std::fs::remove_dir_all(&dir).ok();
    println!(
        "corpus_full_mode benign asking {}/{} ({:.1} %), dangerous allowed {}/{} ({:.1} %)",
        r.benign_asking.len(),
        r.benign,
        r.benign_ask_percent(),
        r.dangerous_allowed.len(),
        r.dangerous,
        100.0 * r.dangerous_allowed.len() as f64 / r.dangerous.max(1) as f64
    );
    for (c, d) in &r.benign_asking {
        println!("  benign that asks: {c:?} ({:?})", d.label());
    }
}

/// Time from POST …/messages to the run's final event, as seen by a WebSocket subscriber. The
/// client only looks for the final frame (a substring test) and parses nothing else, so the
/// figure is the server's time, not the bench client's JSON parsing.
async fn timed_run(s: &TestServer, ws: &mut Ws, sid: &str, text: &str) -> (f64, Value) {
    let t0 = Instant::now();
    let run = s.prompt(sid, text).await;
    loop {
        let m = tokio::time::timeout(Duration::from_secs(30), ws.next())
            .await
            .expect("frame in time")
            .expect("open socket")
            .expect("frame");
        if let tokio_tungstenite::tungstenite::Message::Text(t) = m
            && t.contains("\"type\":\"run_finished\"")
            && t.contains(run.as_str())
        {
            let ms = t0.elapsed().as_secs_f64() * 1000.0;
            return (ms, serde_json::from_str(&t).unwrap());
        }
    }
}

/// Forty turns whose calls a model writes as text, eight families' formats in turn (the
/// replay provider streams each in 16-character deltas through the text filter): how many run
/// through the gate, how many are shown as raw text, and what reading them costs a run against
/// the same forty calls sent natively.
async fn textcalls() {
    let formats = [
        |p: &str| {
            format!(
                "<tool_call>\n{{\"name\": \"read_file\", \"arguments\": {{\"path\": \"{p}\"}}}}\n</tool_call>"
            )
        },
        |p: &str| {
            format!(
                "<tool_call>\n<function=read_file>\n<parameter=path>\n{p}\n</parameter>\n</function>\n</tool_call>"
            )
        },
        |p: &str| {
            format!(
                "[TOOL_CALLS][{{\"name\": \"read_file\", \"arguments\": {{\"path\": \"{p}\"}}}}]"
            )
        },
        |p: &str| {
            format!(
                "<|python_tag|>{{\"name\": \"read_file\", \"parameters\": {{\"path\": \"{p}\"}}}}<|eom_id|>"
            )
        },
        |p: &str| {
            format!(
                "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{{\"path\": \"{p}\"}}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
            )
        },
        |p: &str| {
            format!(
                "<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{{\"path\": \"{p}\"}}<|call|>"
            )
        },
        |p: &str| {
            format!(
                "Reading it.\n```json\n{{\"name\": \"read_file\", \"arguments\": {{\"path\": \"{p}\"}}}}\n```"
            )
        },
        |p: &str| {
            format!(
                "<think>which file next</think>{{\"name\": \"read_file\", \"arguments\": {{\"path\": \"{p}\"}}}}"
            )
        },
    ];
    let written: Vec<Value> = (0..40)
        .map(|i| json!({"text": formats[i % formats.len()](&format!("f{}.txt", i % 5))}))
        .chain(std::iter::once(json!({"text": "All read."})))
        .collect();
    let native: Vec<Value> = (0..40)
        .map(|i| json!({"tool_calls": [{"name": "read_file", "arguments": {"path": format!("f{}.txt", i % 5)}}]}))
        .chain(std::iter::once(json!({"text": "All read."})))
        .collect();
    let script = json!({"scripts": [
        {"match": "written", "turns": written},
        {"match": "native", "turns": native},
    ]});
    let s = TestServer::start(Opts {
        replay: Some(script),
        tweak: Some(|c| {
            let mut m = std::collections::BTreeMap::new();
            m.insert(
                "replay/replay".to_string(),
                tradewind::models::ModelOverride {
                    tool_calls: Some(tradewind::provider::textcalls::ToolCallsMode::Text),
                    ..Default::default()
                },
            );
            c.models = tradewind::models::Catalog::new(m);
            c.agent.max_iterations = 100;
        }),
        ..Opts::default()
    })
    .await;
    for i in 0..5 {
        std::fs::write(
            s.workspace.path().join(format!("f{i}.txt")),
            "hello\n".repeat(50),
        )
        .unwrap();
    }
    let mut times = [Vec::new(), Vec::new()];
    let mut counts = (0, 0, 0);
    for round in 0..6 {
        for (k, prompt) in ["written calls", "native calls"].iter().enumerate() {
            let sid = s.create_session("ask").await;
            let mut ws = ws_connect(&s).await;
            ws_send(
                &mut ws,
                json!({"type": "subscribe", "session": sid, "after": 0}),
            )
            .await;
            let (ms, fin) = timed_run(&s, &mut ws, &sid, prompt).await;
            assert_eq!(fin["status"], "completed", "{fin}");
            if round > 0 {
                times[k].push(ms);
            }
            if k == 0 && round == 0 {
                let events = s.events(&sid).await;
                let ran = of_type(&events, "tool_result")
                    .iter()
                    .filter(|r| r["ok"] == true && r["tool"] == "read_file")
                    .count();
                let gated = of_type(&events, "policy_decision").len();
                let syntax = [
                    "<tool_call>",
                    "<function=",
                    "TOOL_CALLS",
                    "python_tag",
                    "tool▁call",
                    "to=functions",
                    "<think>",
                    "\"arguments\"",
                    "\"path\"",
                ];
                let shown = of_type(&events, "message_complete")
                    .iter()
                    .chain(of_type(&events, "message_delta").iter())
                    .filter(|m| {
                        syntax
                            .iter()
                            .any(|x| m["text"].as_str().unwrap_or("").contains(x))
                    })
                    .inspect(|m| eprintln!("shown: {}", m["text"]))
                    .count();
                counts = (ran, gated, shown);
            }
        }
    }
    let (ran, gated, shown) = counts;
    println!(
        "textcalls_40_turns: {ran}/40 written calls ran through the gate ({gated} gate decisions), {shown} messages or deltas showed call syntax as text"
    );
    println!(
        "textcalls_40_turn_run_ms written p50 {:.1} vs native p50 {:.1} (41 model calls + 40 read_file each, replay provider, n=5 each)",
        pct(&mut times[0].clone(), 0.5),
        pct(&mut times[1].clone(), 0.5)
    );
    s.stop().await;
}

async fn turn() {
    let calls: Vec<Value> = (0..20)
        .map(|i| json!({"name": "read_file", "arguments": {"path": format!("f{}.txt", i % 5)}}))
        .collect();
    let script = json!({"scripts": [
        {"match": "twenty", "turns": [{"tool_calls": calls}, {"text": "done"}]},
        {"turns": [{"text": "ok"}]}
    ]});
    let s = TestServer::start(Opts {
        replay: Some(script),
        ..Opts::default()
    })
    .await;
    for i in 0..5 {
        std::fs::write(
            s.workspace.path().join(format!("f{i}.txt")),
            "hello\n".repeat(50),
        )
        .unwrap();
    }
    let sid = s.create_session("ask").await;
    let mut ws = ws_connect(&s).await;
    ws_send(
        &mut ws,
        json!({"type": "subscribe", "session": sid, "after": 0}),
    )
    .await;
    let _ = timed_run(&s, &mut ws, &sid, "warm up").await;
    let mut one = Vec::new();
    for _ in 0..30 {
        one.push(timed_run(&s, &mut ws, &sid, "hi").await.0);
    }
    println!(
        "warm_1_token_turn_ms p50 {:.2} p90 {:.2} (POST /messages → run_finished on the WebSocket, replay provider, n=30)",
        pct(&mut one.clone(), 0.5),
        pct(&mut one, 0.9)
    );
    let mut twenty = Vec::new();
    let mut overhead = Vec::new();
    let mut provider = Vec::new();
    tradewind::probe::enable(true);
    let cpu0 = process_cpu_ns();
    for _ in 0..30 {
        let _ = tradewind::probe::take();
        let (ms, fin) = timed_run(&s, &mut ws, &sid, "twenty reads").await;
        assert_eq!(fin["status"], "completed");
        let model_ms: f64 = tradewind::probe::take()
            .iter()
            .filter(|m| m.kind == tradewind::probe::MarkKind::ModelCall)
            .map(|m| m.took.as_secs_f64() * 1000.0)
            .sum();
        twenty.push(ms);
        provider.push(model_ms);
        overhead.push(ms - model_ms);
    }
    let cpu_ms = (process_cpu_ns() - cpu0) as f64 / 1e6 / 30.0;
    tradewind::probe::enable(false);
    println!(
        "turn_with_20_tool_calls_ms p50 {:.2} p90 {:.2} (POST /messages → run_finished on the WebSocket: 2 model calls + 20 read_file through the gate, every event and message stored; the replay provider's own time is included; n=30)",
        pct(&mut twenty.clone(), 0.5),
        pct(&mut twenty, 0.9)
    );
    println!(
        "turn_with_20_tool_calls_server_overhead_ms p50 {:.2} p90 {:.2} (the same turns minus the provider's own time, which the server's probe measured at p50 {:.2} ms for the 2 model calls; n=30)",
        pct(&mut overhead.clone(), 0.5),
        pct(&mut overhead, 0.9),
        pct(&mut provider, 0.5)
    );
    println!(
        "turn_with_20_tool_calls_cpu_ms {cpu_ms:.2} per turn (CPU time of every thread of the bench process, server and its WebSocket and HTTP client together, over the same 30 turns)"
    );
    s.stop().await;
}

/// Subagent spawn: from a `task` call beginning to the child's first model request, inside the
/// server (the probe marks both), over the replay provider.
async fn subagents() {
    let script = json!({"scripts": [
        {"match": "child-hello", "turns": [{"text": "hi"}]},
        {"match": "spawn", "turns": [
            {"tool_calls": [{"name": "task", "arguments": {"description": "Say hi", "prompt": "child-hello"}}]},
            {"text": "ok"}
        ]},
        {"turns": [{"text": "ok"}]}
    ]});
    let s = TestServer::start(Opts {
        replay: Some(script),
        ..Opts::default()
    })
    .await;
    let mut ws = ws_connect(&s).await;
    let mut spawn = Vec::new();
    let mut steps: Vec<(&str, Vec<f64>)> = Vec::new();
    tradewind::probe::enable(true);
    for i in 0..41 {
        // A session each: its children never reach the live-children limit.
        let sid = s.create_session("ask").await;
        ws_send(
            &mut ws,
            json!({"type": "subscribe", "session": sid, "after": 0}),
        )
        .await;
        let _ = tradewind::probe::take();
        let (_, fin) = timed_run(&s, &mut ws, &sid, "spawn").await;
        assert_eq!(fin["status"], "completed");
        let (_, kids) = s.get(&format!("/api/sessions/{sid}/children")).await;
        let kid = kids[0]["id"].as_str().expect("a child").to_string();
        s.wait_event(&kid, |e| e["type"] == "run_finished").await;
        let marks = tradewind::probe::take();
        let at = |k| marks.iter().find(|m| m.kind == k).map(|m| m.at);
        let (Some(a), Some(b)) = (
            at(tradewind::probe::MarkKind::Spawn),
            at(tradewind::probe::MarkKind::ChildRequest),
        ) else {
            panic!("no spawn or child request marked")
        };
        if i > 0 {
            spawn.push((b - a).as_secs_f64() * 1000.0);
            // Where the time went: each step since the one before (spawn first).
            let mut last = a;
            for m in marks.iter().filter(|m| m.at >= a && m.at <= b) {
                let name = match m.kind {
                    tradewind::probe::MarkKind::Step(n) => n,
                    tradewind::probe::MarkKind::ChildRequest => "model request",
                    _ => continue,
                };
                let ms = (m.at - last).as_secs_f64() * 1000.0;
                match steps.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, v)) => v.push(ms),
                    None => steps.push((name, vec![ms])),
                }
                last = m.at;
            }
        }
    }
    tradewind::probe::enable(false);
    for (name, v) in &mut steps {
        println!(
            "  subagent spawn step → {name}: p50 {:.2} ms p90 {:.2} ms",
            pct(&mut v.clone(), 0.5),
            pct(v, 0.9)
        );
    }
    println!(
        "subagent_spawn_to_first_model_request_ms p50 {:.2} p90 {:.2} (a `task` call beginning → the child's first model request, inside the server: child session row, its run queued, started and its prompt built; n=40 after one warm-up)",
        pct(&mut spawn.clone(), 0.5),
        pct(&mut spawn, 0.9)
    );
    s.stop().await;
}

/// One streamed reply of `n` deltas to `subs` subscribers. Returns the figures of one case.
struct StreamCase {
    /// Inside the server (the probe): per chunk and subscriber, from the chunk reaching the
    /// agent to the frame holding it written to that subscriber's socket (ms).
    server_chunk_to_frame: Vec<f64>,
    /// End to end: per chunk, from the moment the mock provider handed it to its socket to the moment the
    /// first subscriber held a frame containing it (ms).
    chunk_to_frame: Vec<f64>,
    /// From the provider's first chunk to the moment the last subscriber has the whole reply.
    whole_reply_ms: f64,
    complete: bool,
    stored_events: usize,
    delta_events: usize,
    rss_peak_mib: f64,
}

/// The server under test: in this process (so the probe can see inside), or the release binary
/// as a child process (so its RSS is the server's alone).
enum Under {
    InProcess(TestServer),
    Child(tokio::process::Child, Vec<TempDir>),
}

async fn stream_case(n: usize, subs: usize, delay: Duration, own_process: bool) -> StreamCase {
    stream_case_over(n, subs, delay, own_process, false).await
}

/// `stream_case`, optionally with the in-process server on HTTPS (auto CA) and the subscribers
/// on `wss://`.
async fn stream_case_over(
    n: usize,
    subs: usize,
    delay: Duration,
    own_process: bool,
    tls: bool,
) -> StreamCase {
    let mock = Mock::default();
    let url = mock.serve().await;
    let mut chunks: Vec<String> = (0..n).map(|i| ev_text(&format!("t{i} "))).collect();
    chunks.push(ev_finish("stop"));
    chunks.push(ev_done());
    let (under, base) = if own_process {
        let home = TempDir::new("bench-stream-home");
        let ws = TempDir::new("bench-stream-ws");
        let (child, base) = spawn_binary_at(
            &release_binary(),
            &[
                "serve",
                "--port",
                "0",
                "--workspace",
                ws.path().to_str().unwrap(),
                "--provider",
                "openai",
                "--base-url",
                &url,
                "--model",
                "test-model",
            ],
            &home.path().join("state"),
            TOKEN,
        )
        .await;
        (Under::Child(child, vec![home, ws]), base)
    } else {
        let s = TestServer::start(Opts {
            openai: Some(url),
            tls: tls.then_some(tradewind::config::TlsSetting::Auto),
            ..Opts::default()
        })
        .await;
        let base = s.base.clone();
        (Under::InProcess(s), base)
    };
    let ca = match &under {
        Under::InProcess(s) => s
            .server
            .as_ref()
            .and_then(|x| x.state.face.ca.as_ref())
            .map(|c| c.pem.clone()),
        Under::Child(..) => None,
    };
    let api = match &ca {
        Some(pem) => Remote::with_ca(&base, pem),
        None => Remote::new(&base),
    };
    let ws_url = format!(
        "{}/api/ws",
        base.replacen("https://", "wss://", 1)
            .replacen("http://", "ws://", 1)
    );
    let sid = api.create_session(json!({"mode": "ask"})).await;
    let mut clients = Vec::new();
    for _ in 0..subs {
        let mut ws = match &ca {
            Some(pem) => wss_connect_url(&ws_url, pem).await,
            None => ws_connect_url(&ws_url).await,
        };
        ws_send(
            &mut ws,
            json!({"type": "subscribe", "session": sid, "after": 0}),
        )
        .await;
        clients.push(ws);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    mock.push(Reply::Sse { chunks, delay });
    tradewind::probe::enable(true);
    let _ = tradewind::probe::take();
    let pid = match &under {
        Under::Child(c, _) => c.id().unwrap(),
        Under::InProcess(_) => std::process::id(),
    };
    let run = api.prompt(&sid, "stream").await;
    let rss_peak = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let rp = rss_peak.clone();
    let sampler = tokio::spawn(async move {
        loop {
            rp.fetch_max(rss_kib(pid), std::sync::atomic::Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });
    let mut tasks = Vec::new();
    for mut ws in clients {
        let run = run.clone();
        tasks.push(tokio::spawn(async move {
            // (arrival, text received so far) per delta frame.
            let mut arrivals: Vec<(Instant, usize)> = Vec::new();
            let mut total = 0usize;
            while let Some(Ok(m)) = ws.next().await {
                if let tokio_tungstenite::tungstenite::Message::Text(t) = m {
                    let now = Instant::now();
                    let v: Value = serde_json::from_str(&t).unwrap();
                    if v["type"] == "message_delta" {
                        total += v["text"].as_str().unwrap().len();
                        arrivals.push((now, total));
                    }
                    if v["type"] == "message_complete"
                        || (v["type"] == "run_finished" && v["run"] == run.as_str())
                    {
                        break;
                    }
                }
            }
            (Instant::now(), total, arrivals)
        }));
    }
    let mut ends = Vec::new();
    let mut lens = HashSet::new();
    let mut first_arrivals = None;
    for t in tasks {
        let (e, len, arrivals) = t.await.unwrap();
        lens.insert(len);
        ends.push(e);
        first_arrivals.get_or_insert(arrivals);
    }
    sampler.abort();
    tradewind::probe::enable(false);
    let server_chunk_to_frame = probe_latencies(&tradewind::probe::take());
    let sent = mock.sent.lock().unwrap().clone();
    let arrivals = first_arrivals.unwrap_or_default();
    let mut end = 0usize;
    let chunks: Vec<(Instant, usize)> = sent
        .iter()
        .take(n)
        .enumerate()
        .map(|(i, at)| {
            end += format!("t{i} ").len();
            (*at, end)
        })
        .collect();
    let chunk_to_frame = chunk_latencies(&chunks, &arrivals);
    let expected: usize = (0..n).map(|i| format!("t{i} ").len()).sum();
    let last_end = ends.iter().max().copied().unwrap();
    let events = api.events(&sid).await;
    let delta_events = events
        .iter()
        .filter(|e| e["type"] == "message_delta")
        .count();
    match under {
        Under::InProcess(s) => s.stop().await,
        Under::Child(mut c, _dirs) => {
            let _ = c.kill().await;
        }
    }
    StreamCase {
        server_chunk_to_frame,
        chunk_to_frame,
        whole_reply_ms: last_end.duration_since(sent[0]).as_secs_f64() * 1000.0,
        complete: lens.len() == 1 && lens.contains(&expected),
        stored_events: events.len(),
        delta_events,
        rss_peak_mib: rss_peak.load(std::sync::atomic::Ordering::Relaxed) as f64 / 1024.0,
    }
}

/// Chunk→frame latencies from the server's probe marks: for each subscriber connection, each
/// chunk is matched with the first frame whose cumulative text covers it.
fn probe_latencies(marks: &[tradewind::probe::Mark]) -> Vec<f64> {
    use tradewind::probe::MarkKind;
    let mut ends = Vec::new();
    let mut total = 0usize;
    for m in marks.iter().filter(|m| m.kind == MarkKind::Chunk) {
        total += m.bytes;
        ends.push((m.at, total));
    }
    let mut conns: std::collections::BTreeMap<u64, Vec<(Instant, usize)>> = Default::default();
    for m in marks.iter().filter(|m| m.kind == MarkKind::Frame) {
        let v = conns.entry(m.conn).or_default();
        let before = v.last().map_or(0, |x| x.1);
        v.push((m.at, before + m.bytes));
    }
    conns
        .values()
        .flat_map(|frames| chunk_latencies(&ends, frames))
        .collect()
}

/// Per chunk (when it was sent, text so far), the time until the first frame (when it arrived,
/// text so far) that covers it, in ms.
fn chunk_latencies(chunks: &[(Instant, usize)], frames: &[(Instant, usize)]) -> Vec<f64> {
    let mut k = 0;
    let mut out = Vec::with_capacity(chunks.len());
    for (at, end) in chunks {
        while k < frames.len() && frames[k].1 < *end {
            k += 1;
        }
        if let Some((got, _)) = frames.get(k) {
            out.push(got.duration_since(*at).as_secs_f64() * 1000.0);
        }
    }
    out
}

fn latency_summary(v: &[f64]) -> String {
    if v.is_empty() {
        return "n/a (the probe sees only an in-process server)".into();
    }
    let mut v = v.to_vec();
    format!(
        "p50 {:.2} ms p99 {:.2} ms max {:.2} ms (n={} chunk×subscriber pairs)",
        pct(&mut v, 0.5),
        pct(&mut v, 0.99),
        pct(&mut v, 1.0),
        v.len()
    )
}

async fn stream() {
    let n = 5000usize;
    for (label, subs, delay, own) in [
        ("burst, 500 subscribers", 500, Duration::ZERO, false),
        ("burst, 1 subscriber", 1, Duration::ZERO, false),
        (
            "paced (one chunk per tokio tick, about 1 ms), 1 subscriber",
            1,
            Duration::from_micros(200),
            false,
        ),
        (
            "burst, 500 subscribers, release server in its own process (RSS is the server's alone)",
            500,
            Duration::ZERO,
            true,
        ),
    ] {
        // One burst lasts ~20 ms, so its p99 hangs on one or two scheduling hiccups of this
        // 2-core VM: the 1-subscriber burst is run 5 times, its figures pooled, and each run's p99
        // printed as well.
        let runs = if subs == 1 && delay.is_zero() { 5 } else { 1 };
        let mut c = stream_case(n, subs, delay, own).await;
        let mut p99s = vec![pct(&mut c.server_chunk_to_frame.clone(), 0.99)];
        for _ in 1..runs {
            let more = stream_case(n, subs, delay, own).await;
            p99s.push(pct(&mut more.server_chunk_to_frame.clone(), 0.99));
            c.server_chunk_to_frame.extend(more.server_chunk_to_frame);
            c.chunk_to_frame.extend(more.chunk_to_frame);
            c.complete &= more.complete;
        }
        if runs > 1 {
            println!(
                "stream_5000_deltas [{label}]: in the server, chunk→frame p99 of each of {runs} runs: {}",
                p99s.iter()
                    .map(|v| format!("{v:.2} ms"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        println!(
            "stream_5000_deltas [{label}]: complete at every client: {}; in the server, chunk→frame written {}; end to end, provider's write → client's read p50 {:.2} ms p99 {:.2} ms max {:.2} ms (n={} per run, {runs} run(s)); provider's first byte → last client has the whole reply {:.1} ms; stored events {} ({} merged deltas); peak RSS {:.1} MiB (of the server process when it runs alone, else of server + clients + mock)",
            c.complete,
            latency_summary(&c.server_chunk_to_frame),
            pct(&mut c.chunk_to_frame.clone(), 0.5),
            pct(&mut c.chunk_to_frame.clone(), 0.99),
            pct(&mut c.chunk_to_frame, 1.0),
            n,
            c.whole_reply_ms,
            c.stored_events,
            c.delta_events,
            c.rss_peak_mib
        );
    }
}

/// A soak: `TW_SOAK_MINUTES` (default 2) of 20 drivers taking turns (a `read_file` call, then a
/// 200-delta reply; 200 turns per session, then a new session) against the release server in its own process, while 50 WebSocket watchers
/// subscribe to random sessions, read for a while, drop and resubscribe from their last seq.
/// Reports RSS after warm-up and at the end, lost/duplicated events, and turn time in the first
/// and last windows.
async fn soak() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    use tradewind_tests::openai_mock::{ev_usage, tool_reply};
    let minutes: f64 = std::env::var("TW_SOAK_MINUTES")
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(2.0);
    let total = Duration::from_secs_f64(minutes * 60.0);
    // TW_SOAK_FRESH_EVERY=N: each driver moves to a new session every N turns (many short
    // sessions: what finished sessions leave behind shows in RSS).
    let fresh_every: usize = std::env::var("TW_SOAK_FRESH_EVERY")
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    // Warm-up: the first quarter (5 minutes of a 30-minute soak, 30 s of a 2-minute one).
    let warm = total / 4;
    let mock = Mock::default();
    fn reply(req: &Value) -> Reply {
        let last_is_tool = req["messages"]
            .as_array()
            .and_then(|m| m.last())
            .is_some_and(|m| m["role"] == "tool");
        if last_is_tool {
            let mut chunks: Vec<String> = (0..200).map(|i| ev_text(&format!("w{i} "))).collect();
            chunks.extend([ev_finish("stop"), ev_usage(1000, 200), ev_done()]);
            Reply::Sse {
                chunks,
                delay: Duration::ZERO,
            }
        } else {
            tool_reply("call_1", "read_file", &json!({"path": "a.txt"}))
        }
    }
    *mock.responder.lock().unwrap() = Some(reply);
    let url = mock.serve().await;
    let home = TempDir::new("bench-soak-home");
    let ws_dir = TempDir::new("bench-soak-ws");
    std::fs::write(ws_dir.path().join("a.txt"), "soak\n".repeat(50)).unwrap();
    let (mut child, base) = spawn_binary_at(
        &release_binary(),
        &[
            "serve",
            "--port",
            "0",
            "--workspace",
            ws_dir.path().to_str().unwrap(),
            "--provider",
            "openai",
            "--base-url",
            &url,
            "--model",
            "test-model",
        ],
        &home.path().join("state"),
        TOKEN,
    )
    .await;
    let pid = child.id().unwrap();
    let api = Arc::new(Remote::new(&base));
    let ws_url = format!("{}/api/ws", base.replace("http://", "ws://"));
    let mut sids = Vec::new();
    for _ in 0..20 {
        sids.push(api.create_session(json!({"mode": "ask"})).await);
    }
    let t0 = Instant::now();
    let gaps = Arc::new(AtomicU64::new(0));
    let refused = Arc::new(AtomicU64::new(0));
    let frames_seen = Arc::new(AtomicU64::new(0));
    let turns_done = Arc::new(AtomicU64::new(0));
    // Drivers: one per session, turn after turn, each timed from POST to its run_finished frame.
    let mut drivers = Vec::new();
    for sid in sids.clone() {
        let (api, ws_url, turns_done) = (api.clone(), ws_url.clone(), turns_done.clone());
        drivers.push(tokio::spawn(async move {
            let mut sid = sid;
            let mut ws = ws_connect_url(&ws_url).await;
            ws_send(
                &mut ws,
                json!({"type": "subscribe", "session": sid, "after": 0}),
            )
            .await;
            let mut times: Vec<(f64, f64)> = Vec::new();
            // A session takes 200 turns (or TW_SOAK_FRESH_EVERY); then the driver goes on in a
            // new one until the time is up.
            let every = if fresh_every > 0 { fresh_every } else { 200 };
            for turn in 0.. {
                if t0.elapsed() >= total {
                    break;
                }
                if turn > 0 && turn % every == 0 {
                    ws_send(&mut ws, json!({"type": "unsubscribe", "session": sid})).await;
                    sid = api.create_session(json!({"mode": "ask"})).await;
                    ws_send(
                        &mut ws,
                        json!({"type": "subscribe", "session": sid, "after": 0}),
                    )
                    .await;
                }
                let start = Instant::now();
                let run = api.prompt(&sid, &format!("turn {turn}")).await;
                loop {
                    let f = ws_next(&mut ws, Duration::from_secs(60))
                        .await
                        .expect("frames");
                    if f["type"] == "run_finished" && f["run"] == run.as_str() {
                        assert_eq!(f["status"], "completed", "{f}");
                        break;
                    }
                }
                times.push((
                    start.duration_since(t0).as_secs_f64(),
                    start.elapsed().as_secs_f64() * 1000.0,
                ));
                turns_done.fetch_add(1, Ordering::Relaxed);
            }
            times
        }));
    }
    // Watchers: subscribe to a random session from the last seq seen there, read 1–4 s, drop.
    let mut watchers = Vec::new();
    for w in 0..50u64 {
        let (ws_url, sids, gaps, frames_seen, refused) = (
            ws_url.clone(),
            sids.clone(),
            gaps.clone(),
            frames_seen.clone(),
            refused.clone(),
        );
        watchers.push(tokio::spawn(async move {
            let mut last: std::collections::HashMap<String, i64> = Default::default();
            let mut x = w
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mut rand = move || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            };
            while t0.elapsed() < total {
                let sid = sids[(rand() % sids.len() as u64) as usize].clone();
                let after = *last.get(&sid).unwrap_or(&0);
                // The accept loop caps connections per address still waiting for their first
                // request (64): a burst of watchers from this one address can be refused. Count
                // it and try again.
                let mut req = ws_url.as_str().into_client_request().unwrap();
                req.headers_mut()
                    .insert("authorization", format!("Bearer {TOKEN}").parse().unwrap());
                let mut ws = match tokio_tungstenite::connect_async(req).await {
                    Ok((ws, _)) => ws,
                    Err(_) => {
                        refused.fetch_add(1, Ordering::Relaxed);
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                ws_send(
                    &mut ws,
                    json!({"type": "subscribe", "session": sid, "after": after}),
                )
                .await;
                let until = Instant::now() + Duration::from_millis(1000 + rand() % 3000);
                let mut seq = after;
                while Instant::now() < until {
                    let Some(f) =
                        ws_next(&mut ws, until.saturating_duration_since(Instant::now())).await
                    else {
                        break;
                    };
                    let Some(s) = f["seq"].as_i64() else { continue };
                    if s != seq + 1 {
                        gaps.fetch_add(1, Ordering::Relaxed);
                    }
                    seq = s;
                    frames_seen.fetch_add(1, Ordering::Relaxed);
                }
                last.insert(sid, seq);
            }
        }));
    }
    // RSS every 5 s.
    let mut rss: Vec<(f64, f64)> = Vec::new();
    while t0.elapsed() < total {
        tokio::time::sleep(Duration::from_secs(5)).await;
        rss.push((t0.elapsed().as_secs_f64(), rss_kib(pid) as f64 / 1024.0));
    }
    let mut times = Vec::new();
    for d in drivers {
        times.extend(d.await.unwrap());
    }
    for w in watchers {
        w.await.unwrap();
    }
    let after_warm = rss
        .iter()
        .find(|(t, _)| *t >= warm.as_secs_f64())
        .map_or(0.0, |r| r.1);
    let end = rss.last().map_or(0.0, |r| r.1);
    let window = warm.as_secs_f64();
    let first: Vec<f64> = times
        .iter()
        .filter(|(at, _)| *at >= window && *at < 2.0 * window)
        .map(|t| t.1)
        .collect();
    let last_start = total.as_secs_f64() - window;
    let last: Vec<f64> = times
        .iter()
        .filter(|(at, _)| *at >= last_start)
        .map(|t| t.1)
        .collect();
    // Every stored event of every session, in order, exactly once.
    let mut stored_gaps = 0;
    for sid in &sids {
        let mut after = 0;
        loop {
            let page = api
                .get(&format!(
                    "/api/sessions/{sid}/events?after={after}&limit=1000"
                ))
                .await;
            let data = page["data"].as_array().cloned().unwrap_or_default();
            if data.is_empty() {
                break;
            }
            for e in &data {
                let s = e["seq"].as_i64().unwrap();
                if s != after + 1 {
                    stored_gaps += 1;
                }
                after = s;
            }
        }
    }
    let _ = child.kill().await;
    println!(
        "soak {minutes} min: {} turns (20 drivers, 200 turns per session, read_file + 200 deltas each), 50 watchers reconnecting: {} frames read, {} seq gaps or duplicates live, {} in storage; {} watcher connections refused by the per-address cap and retried",
        turns_done.load(Ordering::Relaxed),
        frames_seen.load(Ordering::Relaxed),
        gaps.load(Ordering::Relaxed),
        stored_gaps,
        refused.load(Ordering::Relaxed)
    );
    println!(
        "soak rss_mib: after warm-up ({:.0} s) {after_warm:.1}, end {end:.1} ({:+.1} %); samples {}",
        window,
        (end - after_warm) / after_warm * 100.0,
        rss.iter()
            .map(|r| format!("{:.0}", r.1))
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!(
        "soak turn_ms (POST → run_finished): first window after warm-up p50 {:.1} p99 {:.1} (n={}), last window p50 {:.1} p99 {:.1} (n={})",
        pct(&mut first.clone(), 0.5),
        pct(&mut first.clone(), 0.99),
        first.len(),
        pct(&mut last.clone(), 0.5),
        pct(&mut last.clone(), 0.99),
        last.len()
    );
}

/// What HTTPS costs: handshake + first response on loopback, idle RSS of the release server
/// with and without `--tls auto`, and a 5,000-delta stream to a `wss://` client against `ws://`.
async fn tls() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    // 1. New connection + handshake + GET /api/health + whole response, 300 times each.
    for secure in [false, true] {
        let s = TestServer::start(Opts {
            tls: secure.then_some(tradewind::config::TlsSetting::Auto),
            ..Opts::default()
        })
        .await;
        let addr: std::net::SocketAddr = s.base.rsplit("//").next().unwrap().parse().unwrap();
        let ca = s
            .server
            .as_ref()
            .and_then(|x| x.state.face.ca.as_ref())
            .map(|c| c.pem.clone());
        let connector = ca
            .as_ref()
            .map(|pem| tokio_rustls::TlsConnector::from(tls_client_config(pem)));
        let req = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
        let mut times = Vec::new();
        for i in 0..320 {
            let t0 = Instant::now();
            let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
            tcp.set_nodelay(true).unwrap();
            let mut body = Vec::new();
            match &connector {
                Some(c) => {
                    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
                    let mut t = c.connect(name, tcp).await.unwrap();
                    t.write_all(req).await.unwrap();
                    let _ = t.read_to_end(&mut body).await;
                }
                None => {
                    let mut t = tcp;
                    t.write_all(req).await.unwrap();
                    let _ = t.read_to_end(&mut body).await;
                }
            }
            assert!(
                body.starts_with(b"HTTP/1.1 200"),
                "{}",
                String::from_utf8_lossy(&body)
            );
            if i >= 20 {
                times.push(t0.elapsed().as_secs_f64() * 1000.0);
            }
        }
        println!(
            "tls [{}]: new connection{} + GET /api/health + whole response p50 {:.2} ms p99 {:.2} ms (n=300, loopback, in-process server)",
            if secure {
                "https, TLS 1.3, ECDSA P-256"
            } else {
                "plain http"
            },
            if secure { " + handshake" } else { "" },
            pct(&mut times.clone(), 0.5),
            pct(&mut times, 0.99)
        );
        s.stop().await;
    }
    // 2. Idle RSS of the release server, plain and `--tls auto`, after one request each.
    let mut rss = Vec::new();
    for secure in [false, true] {
        let home = TempDir::new("bench-tls-home");
        let ws = TempDir::new("bench-tls-ws");
        let mut args = vec![
            "serve",
            "--port",
            "0",
            "--workspace",
            ws.path().to_str().unwrap(),
        ];
        if secure {
            args.extend(["--tls", "auto"]);
        }
        let state = home.path().join("state");
        let (mut child, base) = spawn_binary_at(&release_binary(), &args, &state, TOKEN).await;
        let api = if secure {
            Remote::with_ca(
                &base,
                &std::fs::read_to_string(state.join("tls/ca.pem")).unwrap(),
            )
        } else {
            Remote::new(&base)
        };
        for _ in 0..3 {
            let _ = api.get("/api/health").await;
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
        rss.push(rss_kib(child.id().unwrap()) as f64 / 1024.0);
        let _ = child.kill().await;
    }
    println!(
        "tls idle_rss_mib: plain {:.1}, --tls auto {:.1} (+{:.1} MiB; release binary, after 3 requests, 2 s idle)",
        rss[0],
        rss[1],
        rss[1] - rss[0]
    );
    // 3. 5,000 deltas to one subscriber: ws:// against wss://, alternated, 15 runs each.
    let (mut plain, mut secure) = (Vec::new(), Vec::new());
    for _ in 0..15 {
        let c = stream_case_over(5000, 1, Duration::ZERO, false, false).await;
        assert!(c.complete);
        plain.push(c.whole_reply_ms);
        let c = stream_case_over(5000, 1, Duration::ZERO, false, true).await;
        assert!(c.complete);
        secure.push(c.whole_reply_ms);
    }
    let (p, t) = (pct(&mut plain, 0.5), pct(&mut secure, 0.5));
    println!(
        "tls stream_5000_deltas, provider's first byte → subscriber has the whole reply, median of 15: ws:// {p:.1} ms, wss:// {t:.1} ms ({:+.1} %)",
        (t - p) / p * 100.0
    );
}

/// Raw event-writer throughput: distinct events (nothing to merge), posted without waiting,
/// group-committed; then the same count appended one by one, each awaited.
async fn events() {
    let dir = TempDir::new("bench-events");
    let store = tradewind::store::Store::open_sqlite(&dir.path().join("bench.db"))
        .await
        .unwrap();
    let ws = dir.path().display().to_string();
    let sid = store
        .create_session(
            &"S1".into(),
            "bench",
            &ws,
            tradewind::protocol::AgentName::build(),
            tradewind::protocol::Mode::Ask,
            None,
        )
        .await
        .unwrap()
        .id;
    let bus = tradewind::events::EventBus::new(store.clone());
    let payload = |i: usize| tradewind::protocol::EventPayload::Error {
        code: "bench".into(),
        message: format!("event {i}"),
        fatal: false,
    };
    let n = 20_000;
    let t0 = Instant::now();
    for i in 0..n {
        bus.post(&sid, None, &payload(i));
    }
    bus.flush(&sid).await.unwrap();
    let grouped = n as f64 / t0.elapsed().as_secs_f64();
    let m = 2_000;
    let t0 = Instant::now();
    for i in 0..m {
        bus.append(&sid, None, &payload(i)).await.unwrap();
    }
    let one_by_one = m as f64 / t0.elapsed().as_secs_f64();
    // A realistic batch: what a 20-read turn leaves at its end (60 events, 20 messages).
    let text = format!(
        "path: f0.txt\nsha256: {}\nlines: 50, bytes: 300\n---\n{}",
        "ab".repeat(32),
        "hello\n".repeat(50)
    );
    let mut times = Vec::new();
    for _ in 0..50 {
        let mut evs = Vec::new();
        let mut msgs = Vec::new();
        for i in 0..20 {
            let call = format!("call_{i}");
            for p in [
                tradewind::protocol::EventPayload::ToolCall {
                    call_id: call.clone().into(),
                    tool: "read_file".into(),
                    effect: tradewind::protocol::Effect::Read,
                    input: json!({"path": "f0.txt"}),
                    input_raw: None,
                    input_error: None,
                },
                tradewind::protocol::EventPayload::PolicyDecision {
                    call_id: call.clone().into(),
                    tool: "read_file".into(),
                    effect: tradewind::protocol::Effect::Read,
                    decision: tradewind::protocol::PolicyDecision::Allow,
                    reason: "read inside the workspace".into(),
                    key: "effect:read".into(),
                },
                tradewind::protocol::EventPayload::ToolResult {
                    call_id: call.clone().into(),
                    tool: "read_file".into(),
                    ok: true,
                    text: text.clone(),
                    parts: vec![],
                },
            ] {
                evs.push(tradewind::store::NewEvent {
                    run_id: Some("R".into()),
                    kind: p.kind().to_string(),
                    data: serde_json::to_string(&p).unwrap(),
                    ends_run: None,
                });
            }
            msgs.push(tradewind::store::NewMessage {
                id: tradewind::util::new_id().into(),
                run_id: Some("R".into()),
                role: tradewind::protocol::MessageRole::Tool,
                parts: json!({"call_id": call, "name": "read_file", "text": text}).to_string(),
            });
        }
        let t0 = Instant::now();
        store.append_batch(&sid, &evs, &msgs).await.unwrap();
        times.push(t0.elapsed().as_secs_f64() * 1000.0);
    }
    println!(
        "append_batch_60_events_20_messages_ms p50 {:.3} p90 {:.3} (one transaction, realistic tool events, n=50)",
        pct(&mut times.clone(), 0.5),
        pct(&mut times, 0.9)
    );
    println!(
        "events_persisted_per_s group-committed {grouped:.0} (n={n}, posted without waiting); one by one, each awaited {one_by_one:.0} (n={m}); SQLite WAL, synchronous=NORMAL"
    );
}

fn search() {
    let root = std::env::var("BENCH_SEARCH_ROOT").unwrap_or_else(|_| {
        format!(
            "{}/.cargo/registry/src",
            std::env::var("HOME").unwrap_or_default()
        )
    });
    let paths = tradewind::policy::paths::PathPolicy::new(
        std::path::Path::new(&root),
        &[],
        std::path::Path::new("/nonexistent-state"),
    );
    let args = tradewind::tools::search::SearchArgs {
        pattern: "fn\\s+poll_next".into(),
        root: root.clone().into(),
        glob: None,
        case_insensitive: false,
        limit: 2000,
    };
    let mut ours = Vec::new();
    let mut count = 0;
    for _ in 0..3 {
        let t0 = Instant::now();
        let (lines, _) = tradewind::tools::search::search_blocking(&args, &paths, 2).unwrap();
        ours.push(t0.elapsed().as_secs_f64() * 1000.0);
        count = lines.len();
    }
    let mut rg = Vec::new();
    for _ in 0..3 {
        let t0 = Instant::now();
        let o = std::process::Command::new("rg")
            .args(["-n", "--hidden", "-g", "!.git", "fn\\s+poll_next", &root])
            .output();
        if o.is_err() {
            println!("search: rg not installed (apt-get install ripgrep) — only our figure");
            break;
        }
        rg.push(t0.elapsed().as_secs_f64() * 1000.0);
    }
    let files = ignore::WalkBuilder::new(&root)
        .hidden(false)
        .build()
        .count();
    println!(
        "search_text_ms median {:.0} ({count} matches, {files} entries under {root})",
        pct(&mut ours, 0.5)
    );
    if !rg.is_empty() {
        println!(
            "rg_ms median {:.0} (same pattern and tree)",
            pct(&mut rg, 0.5)
        );
    }
}

/// `@` file search: a 50,000-file workspace, the first query (which walks the tree) and then
/// 300 queries as someone types them, end to end over HTTP.
async fn files() {
    let ws = TempDir::new("bench-files-ws");
    let words = [
        "session", "store", "event", "policy", "runner", "parser", "config", "client", "server",
        "render", "queue", "task", "plan", "agent", "tool", "shell", "index", "cache", "auth",
        "stream",
    ];
    let mut n = 0usize;
    'outer: for a in 0..50 {
        for b in 0..20 {
            let dir = ws.path().join(format!(
                "{}-{a}/{}/{}",
                words[a % words.len()],
                words[(a + b) % words.len()],
                words[b % words.len()]
            ));
            std::fs::create_dir_all(&dir).unwrap();
            for c in 0..50 {
                let name = format!(
                    "{}_{}_{c}.rs",
                    words[(a * 7 + c) % words.len()],
                    words[(b * 3 + c) % words.len()]
                );
                std::fs::write(dir.join(name), b"").unwrap();
                n += 1;
                if n >= 50_000 {
                    break 'outer;
                }
            }
        }
    }
    let s = TestServer::start_in(Opts::default(), ws, TempDir::new("bench-files-state")).await;
    let sid = s.create_session("ask").await;
    let t = Instant::now();
    let (st, v) = s.get(&format!("/api/sessions/{sid}/files?q=sess")).await;
    assert_eq!(st, 200, "{v}");
    let first_ms = t.elapsed().as_secs_f64() * 1000.0;
    let total = v["total"].as_u64().unwrap();
    let typed = [
        "s",
        "se",
        "ses",
        "sess",
        "sessst",
        "sesssto",
        "pol",
        "polpar",
        "policy/parser",
        "agent tool",
        "runner_queue",
        "srvcfg",
        "cache_auth_3",
        "stream-4",
        "ind",
    ];
    let mut ms = vec![];
    for i in 0..300 {
        let q = typed[i % typed.len()];
        let t = Instant::now();
        let (st, _) = s.get(&format!("/api/sessions/{sid}/files?q={q}")).await;
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(st, 200);
    }
    println!(
        "files_search [{total} entries]: first query (walks the tree) {first_ms:.1} ms; then p50 {:.2} ms p99 {:.2} ms (n=300 queries as typed, end to end over HTTP)",
        pct(&mut ms.clone(), 0.5),
        pct(&mut ms, 0.99)
    );
    s.stop().await;
}

/// How a bench client reads a session's events.
#[derive(Clone, Copy, PartialEq)]
enum Transport {
    Ws,
    Sse,
}

/// One 5,000-delta reply to `subs` clients over `transport`: (provider's first byte → last
/// client has the whole reply, ms; every client got the whole text exactly once, in order).
async fn transport_case(n: usize, subs: usize, transport: Transport) -> (f64, bool) {
    let mock = Mock::default();
    let url = mock.serve().await;
    let mut chunks: Vec<String> = (0..n).map(|i| ev_text(&format!("t{i} "))).collect();
    chunks.push(ev_finish("stop"));
    chunks.push(ev_done());
    let s = TestServer::start(Opts {
        openai: Some(url),
        ..Opts::default()
    })
    .await;
    let sid = tradewind::protocol::SessionId::from(s.create_session("ask").await);
    let bus = s.server.as_ref().unwrap().state.events.clone();
    let expected: String = (0..n).map(|i| format!("t{i} ")).collect();
    let http = reqwest::Client::new();
    let mut tasks = Vec::new();
    let (run_tx, _) = tokio::sync::broadcast::channel::<String>(1);
    // Connect in batches of 50 (the server admits 64 connections per address before their
    // first request), each batch subscribed before the next.
    for batch in 0..subs.div_ceil(50) {
        let before = bus.receiver_count(&sid);
        let this = 50.min(subs - batch * 50);
        for _ in 0..this {
            let mut run_rx = run_tx.subscribe();
            let expected = expected.clone();
            match transport {
                Transport::Ws => {
                    let mut ws = ws_connect(&s).await;
                    ws_send(
                        &mut ws,
                        json!({"type": "subscribe", "session": sid, "after": 0}),
                    )
                    .await;
                    tasks.push(tokio::spawn(async move {
                        let run = run_rx.recv().await.unwrap();
                        let mut text = String::new();
                        while let Some(Ok(m)) = ws.next().await {
                            if let tokio_tungstenite::tungstenite::Message::Text(t) = m {
                                let v: Value = serde_json::from_str(&t).unwrap();
                                if v["type"] == "message_delta" {
                                    text.push_str(v["text"].as_str().unwrap());
                                }
                                if v["type"] == "run_finished" && v["run"] == run.as_str() {
                                    break;
                                }
                            }
                        }
                        (Instant::now(), text == expected)
                    }));
                }
                Transport::Sse => {
                    let resp = sse_open(
                        &http,
                        &s.url(&format!("/api/sessions/{sid}/events/stream")),
                        None,
                    )
                    .await;
                    assert_eq!(resp.status(), 200);
                    let mut rd = SseReader::new(resp);
                    tasks.push(tokio::spawn(async move {
                        let run = run_rx.recv().await.unwrap();
                        let mut text = String::new();
                        let mut last = 0i64;
                        let mut in_order = true;
                        while let Some(ev) = rd.next_event().await {
                            let v = ev.data.unwrap();
                            let seq = v["seq"].as_i64().unwrap();
                            in_order &= seq == last + 1;
                            last = seq;
                            if v["type"] == "message_delta" {
                                text.push_str(v["text"].as_str().unwrap());
                            }
                            if v["type"] == "run_finished" && v["run"] == run.as_str() {
                                break;
                            }
                        }
                        (Instant::now(), in_order && text == expected)
                    }));
                }
            }
        }
        while bus.receiver_count(&sid) < before + this {
            tokio::task::yield_now().await;
        }
    }
    mock.push(Reply::Sse {
        chunks,
        delay: Duration::ZERO,
    });
    let run = s.prompt(&sid, "stream").await;
    run_tx.send(run).unwrap();
    let mut last = None::<Instant>;
    let mut complete = true;
    for t in tasks {
        let (at, ok) = t.await.unwrap();
        complete &= ok;
        last = Some(last.map_or(at, |l| l.max(at)));
    }
    let first = mock.sent.lock().unwrap()[0];
    let ms = last.unwrap().duration_since(first).as_secs_f64() * 1000.0;
    s.stop().await;
    (ms, complete)
}

/// SSE against the WebSocket: first event after an append, a 5,000-delta reply to one client,
/// and to 500.
async fn sse() {
    // First event after append: an idle session, one client each, 200 appends one at a time.
    let s = TestServer::start(Opts::default()).await;
    let sid = tradewind::protocol::SessionId::from(s.create_session("ask").await);
    let bus = s.server.as_ref().unwrap().state.events.clone();
    let resp = s
        .sse(&format!("/api/sessions/{sid}/events/stream"), None)
        .await;
    let mut rd = SseReader::new(resp);
    let mut ws = ws_connect(&s).await;
    ws_send(
        &mut ws,
        json!({"type": "subscribe", "session": sid, "after": 0}),
    )
    .await;
    while bus.receiver_count(&sid) < 2 {
        tokio::task::yield_now().await;
    }
    let (mut sse_ms, mut ws_ms) = (vec![], vec![]);
    for i in 0..200 {
        let payload = tradewind::protocol::EventPayload::Error {
            code: "bench".into(),
            message: format!("append {i}"),
            fatal: false,
        };
        let t0 = Instant::now();
        bus.post(&sid, None, &payload);
        let ev = rd.next_event().await.unwrap();
        sse_ms.push(t0.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(ev.data.unwrap()["message"], format!("append {i}"));
        loop {
            let v = ws_next(&mut ws, Duration::from_secs(5)).await.unwrap();
            if v["message"] == format!("append {i}").as_str() {
                ws_ms.push(t0.elapsed().as_secs_f64() * 1000.0);
                break;
            }
        }
    }
    println!(
        "sse_first_event_after_append: SSE p50 {:.2} ms p99 {:.2} ms max {:.2} ms; WebSocket (same appends, read after SSE) p50 {:.2} ms p99 {:.2} ms (n=200, loopback, store write included)",
        pct(&mut sse_ms.clone(), 0.5),
        pct(&mut sse_ms.clone(), 0.99),
        pct(&mut sse_ms, 1.0),
        pct(&mut ws_ms.clone(), 0.5),
        pct(&mut ws_ms, 0.99),
    );
    drop(rd);
    s.stop().await;

    let n = 5000;
    for subs in [1usize, 500] {
        let runs = if subs == 1 { 5 } else { 1 };
        let (mut w, mut e) = (vec![], vec![]);
        let mut complete = true;
        for _ in 0..runs {
            let (ms, ok) = transport_case(n, subs, Transport::Ws).await;
            w.push(ms);
            complete &= ok;
            let (ms, ok) = transport_case(n, subs, Transport::Sse).await;
            e.push(ms);
            complete &= ok;
        }
        let (wm, em) = (pct(&mut w, 0.5), pct(&mut e, 0.5));
        println!(
            "sse_vs_ws_5000_deltas [{subs} subscriber(s)]: provider's first byte → last client has the whole reply: WebSocket {wm:.1} ms, SSE {em:.1} ms ({:+.1} %; median of {runs}); every client complete, in order, no loss: {complete}",
            (em / wm - 1.0) * 100.0
        );
    }
}

/// `webfetch` of a local 2 MiB HTML page (sections with paragraphs, links, a table and a code
/// block each) to Markdown: request, body, conversion, the 20,000-character cut and the cache
/// write — all of the tool but the gate.
async fn webfetch() {
    let mut html = String::from(
        "<!doctype html><html><head><title>Big docs</title><style>p{}</style></head><body>",
    );
    let mut i = 0;
    while html.len() < 2 << 20 {
        html.push_str(&format!(
            "<h2 id=\"s{i}\">Section {i}</h2><p>Some <b>text</b> with <a href=\"/x/{i}\">a link</a> and <code>inline code</code>, repeated to fill a paragraph of documentation like a real page has.</p>\
             <table><tr><th>Option</th><th>Default</th></tr><tr><td>--flag-{i}</td><td>{i}</td></tr></table>\
             <pre><code class=\"language-rust\">fn f{i}() -> u32 {{\n    {i}\n}}</code></pre><ul><li>one</li><li>two</li></ul>"
        ));
        i += 1;
    }
    html.push_str("</body></html>");
    let bytes = html.len();
    let page: &'static str = Box::leak(html.into_boxed_str());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let app = axum::Router::new().route(
        "/big",
        axum::routing::get(move || async move {
            (
                [(axum::http::header::CONTENT_TYPE, "text/html; charset=utf-8")],
                page,
            )
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await.ok() });
    let ws = TempDir::new("bench-webfetch");
    let url = format!("http://127.0.0.1:{port}/big");
    let mut ms = Vec::new();
    for _ in 0..15 {
        let t = Instant::now();
        let out = tradewind::tools::web::bench_fetch(
            &url,
            tradewind::tools::web::Format::Markdown,
            ws.path(),
        )
        .await;
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
        assert!(
            out.ok && out.text.contains("fullTextPath: "),
            "{}",
            &out.text[..200.min(out.text.len())]
        );
    }
    println!(
        "webfetch_2mib_html_to_markdown [{bytes} bytes, {i} sections]: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms (15 fetches; request, conversion, cut, cache write)",
        pct(&mut ms, 0.5),
        pct(&mut ms, 0.95),
        ms.iter().cloned().fold(0.0, f64::max)
    );
}

/// An MCP stdio call of server-everything's `echo`: made directly with an `rmcp` client, and
/// made by the agent through Tradewind (gate, events, stored messages, result mapping).
async fn mcp() {
    use rmcp::ServiceExt;
    const N: usize = 200;
    let def = everything_server();
    let mut cmd = tokio::process::Command::new("node");
    cmd.args(&def.args);
    let (proc, _) = rmcp::transport::TokioChildProcess::builder(cmd)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let client = ().serve(proc).await.unwrap();
    let mut direct = Vec::new();
    for i in 0..N + 20 {
        let mut p = rmcp::model::CallToolRequestParams::new("echo");
        p.arguments = json!({"message": "bench"}).as_object().cloned();
        let t = Instant::now();
        let r = client.call_tool(p).await.unwrap();
        if i >= 20 {
            direct.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        assert_eq!(r.content.len(), 1);
    }
    drop(client);

    // Through the server: 20 echo calls per turn, the tool granted for the session.
    const CALLS: usize = 20;
    let calls: Vec<Value> = (0..CALLS)
        .map(|_| json!({"name": "mcp_everything_echo", "arguments": {"message": "bench"}}))
        .collect();
    let script = json!({"scripts": [
        {"match": "echoes", "turns": [{"tool_calls": calls}, {"text": "done"}]},
        {"turns": [{"tool_calls": [{"name": "mcp_everything_echo", "arguments": {"message": "grant"}}]}, {"text": "ok"}]}
    ]});
    let s = TestServer::start(Opts {
        replay: Some(script),
        ceiling: Ceiling {
            external: true,
            ..Ceiling::default()
        },
        mcp: Some(tradewind::config::McpSettings {
            allow: false,
            servers: std::collections::BTreeMap::from([("everything".to_string(), def)]),
        }),
        ..Opts::default()
    })
    .await;
    let (st, _) = s
        .post("/api/mcp/servers/everything/connect", json!({}))
        .await;
    assert_eq!(st, 200);
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "grant it").await;
    let fin = s.answer_all_until_finished(&sid, &run, "session").await;
    assert_eq!(fin["status"], "completed");
    let mut ws = ws_connect(&s).await;
    ws_send(
        &mut ws,
        json!({"type": "subscribe", "session": sid, "after": 0}),
    )
    .await;
    let mut per_call = Vec::new();
    tradewind::probe::enable(true);
    for i in 0..25 {
        let _ = tradewind::probe::take();
        let (ms, fin) = timed_run(&s, &mut ws, &sid, "echoes").await;
        assert_eq!(fin["status"], "completed", "{fin}");
        let model_ms: f64 = tradewind::probe::take()
            .iter()
            .filter(|m| m.kind == tradewind::probe::MarkKind::ModelCall)
            .map(|m| m.took.as_secs_f64() * 1000.0)
            .sum();
        if i >= 5 {
            per_call.push((ms - model_ms) / CALLS as f64);
        }
    }
    tradewind::probe::enable(false);
    let events = s.events(&sid).await;
    assert!(
        of_type(&events, "tool_result")
            .iter()
            .rev()
            .take(CALLS)
            .all(|r| r["text"] == "Echo: bench")
    );
    let d50 = pct(&mut direct.clone(), 0.5);
    let t50 = pct(&mut per_call.clone(), 0.5);
    println!(
        "mcp_echo_direct_rmcp_ms p50 {d50:.3} p90 {:.3} (server-everything over stdio, n={N})",
        pct(&mut direct, 0.9)
    );
    println!(
        "mcp_echo_through_tradewind_ms p50 {t50:.3} p90 {:.3}; added p50 {:.3} ms (per call, from turns of {CALLS} calls: POST /messages → run_finished on the WebSocket minus the replay provider's time, / {CALLS}; gate, events, stored messages, sandboxed server; 20 turns)",
        pct(&mut per_call, 0.9),
        t50 - d50
    );
    s.stop().await;
}

/// 500 turns (a file read and an answer each) on a model with an 8,000-token window it
/// enforces: failed runs (must be 0), compactions and what each cost, the largest prompt.
async fn context() {
    let r = tradewind_tests::long_session::run(500).await;
    let mut costs = r.compaction_costs.clone();
    println!(
        "long_session turns {} failed_runs {} summaries {} prunes {} (after a refusal: {}) largest_prompt_tokens {} of {}; summary cost USD p50 {:.5} max {:.5} total {:.4}; wall {:.1} s",
        r.turns,
        r.failed_runs,
        r.compactions,
        r.prunes,
        r.refusals,
        r.largest_prompt_tokens,
        tradewind_tests::long_session::WINDOW,
        pct(&mut costs, 0.5),
        pct(&mut costs, 1.0),
        r.compaction_costs.iter().sum::<f64>(),
        r.wall.as_secs_f64()
    );
}

/// The release server's RSS with 1,000 sessions in its database (one answered prompt each)
/// and 20 of them with a live WebSocket subscriber.
async fn rss() {
    let home = TempDir::new("bench-rss");
    let ws_dir = TempDir::new("bench-rss-ws");
    let replay = home.path().join("r.json");
    std::fs::write(
        &replay,
        json!({"scripts": [{"turns": [{"text": "Done: the answer to this prompt, a sentence or two long like a real one."}]}]}).to_string(),
    )
    .unwrap();
    let args = replay_serve_args(ws_dir.path(), &replay);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (mut child, base) =
        spawn_binary_at(&release_binary(), &args, &home.path().join("state"), TOKEN).await;
    let pid = child.id().unwrap();
    let api = Remote::new(&base);
    let mut sids = Vec::new();
    for i in 0..1000 {
        let sid = api.create_session(json!({"mode": "ask"})).await;
        let run = api
            .prompt(&sid, &format!("Prompt {i}: what does this change?"))
            .await;
        api.wait_run_finished(&sid, &run).await;
        sids.push(sid);
    }
    let ws_url = format!("{}/api/ws", base.replace("http://", "ws://"));
    let mut subs = Vec::new();
    for sid in sids.iter().take(20) {
        let mut ws = ws_connect_url(&ws_url).await;
        ws_send(
            &mut ws,
            json!({"type": "subscribe", "session": sid, "after": 0}),
        )
        .await;
        subs.push(ws);
    }
    // Each subscriber has its backlog, and one more run streams to it.
    for (sid, ws) in sids.iter().take(20).zip(subs.iter_mut()) {
        let run = api.prompt(sid, "One more.").await;
        loop {
            let f = ws_next(ws, Duration::from_secs(10)).await.expect("a frame");
            if f["type"] == "run_finished" && f["run"] == run.as_str() {
                break;
            }
        }
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss = rss_kib(pid);
    println!(
        "rss_mib {:.1} with 1,000 sessions in the database (1,020 runs) and 20 live WebSocket subscribers (release server, replay model)",
        rss as f64 / 1024.0
    );
    drop(subs);
    let _ = child.kill().await;
}

/// Full-text search over 1,000 sessions × 200 messages (SQLite FTS5): p50/p95 of a query.
async fn fts() {
    use tradewind::protocol::{Agent, Mode};
    use tradewind::store::{NewEvent, Store, query_terms};
    const WORDS: &[&str] = &[
        "parser", "socket", "timeout", "cargo", "test", "flaky", "render", "cache", "index",
        "schema", "token", "stream", "window", "summary", "budget", "revert", "snapshot",
        "diagram", "approval", "sandbox", "kernel", "landlock", "session", "search", "prompt",
        "model", "provider", "retry", "backoff", "mermaid", "plan", "review", "branch", "commit",
        "merge", "rebase", "lint", "format", "compile", "link", "binary", "release", "deploy",
    ];
    let dir = TempDir::new("bench-fts");
    let store = Store::open_sqlite(&dir.path().join("t.db")).await.unwrap();
    let t0 = Instant::now();
    let mut seed = 7u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for s in 0..1000 {
        let sid: tradewind::protocol::SessionId = tradewind::util::new_id().into();
        store
            .create_session(
                &sid,
                &format!("s{s}"),
                "/w",
                Agent::Build.into(),
                Mode::Ask,
                None,
            )
            .await
            .unwrap();
        let events: Vec<NewEvent> = (0..200)
            .map(|i| {
                let text: Vec<&str> = (0..30)
                    .map(|_| WORDS[(next() % WORDS.len() as u64) as usize])
                    .collect();
                let (kind, data) = if i % 2 == 0 {
                    ("user_message", json!({"type": "user_message", "message_id": format!("m{i}"), "text": format!("{} s{s}m{i}", text.join(" "))}))
                } else {
                    ("message_complete", json!({"type": "message_complete", "message_id": format!("m{i}"), "text": text.join(" "), "reasoning": ""}))
                };
                NewEvent {
                    run_id: None,
                    kind: kind.into(),
                    data: data.to_string(),
                    ends_run: None,
                }
            })
            .collect();
        store.append_batch(&sid, &events, &[]).await.unwrap();
    }
    let fill = t0.elapsed();
    let queries = [
        "flaky socket",
        "s512m100",
        "landlock kern",
        "mermaid diagram review",
        "revert snap",
        "cargo",
        "budget summary window",
    ];
    let mut times = Vec::new();
    for _ in 0..10 {
        for q in queries {
            let t = Instant::now();
            let hits = store.search(&query_terms(q), None, 20).await.unwrap();
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            assert!(!hits.is_empty(), "{q}");
        }
    }
    println!(
        "fts_search_ms p50 {:.2} p95 {:.2} over 200,000 messages in 1,000 sessions (SQLite FTS5, 20 hits, {} queries of 1-3 words; index filled in {:.1} s)",
        pct(&mut times.clone(), 0.5),
        pct(&mut times, 0.95),
        queries.len() * 10,
        fill.as_secs_f64()
    );
    store.close().await;
}

/// Revert of a 200-file change in a 2,000-file workspace: snapshot, change, revert.
async fn undo() {
    let base = TempDir::new("bench-undo");
    let ws = base.path().join("ws");
    for i in 0..2000 {
        let d = ws.join(format!("src/m{}", i / 100));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join(format!("f{i}.rs")),
            format!("fn f{i}() {{}}\n").repeat(40),
        )
        .unwrap();
    }
    let state = base.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    let store = tradewind::store::Store::open_sqlite(&state.join("t.db"))
        .await
        .unwrap();
    let snaps = tradewind::undo::Snapshots::new(&state, store);
    let t = Instant::now();
    let before = snaps.snapshot(&ws).await.unwrap();
    let first = t.elapsed();
    let t = Instant::now();
    let again = snaps.snapshot(&ws).await.unwrap();
    let unchanged = t.elapsed();
    assert_eq!(before, again);
    for i in (0..2000).step_by(10) {
        let p = ws.join(format!("src/m{}/f{i}.rs", i / 100));
        std::fs::write(p, "changed\n").unwrap();
    }
    let after = snaps.snapshot(&ws).await.unwrap();
    let t = Instant::now();
    let now = snaps.snapshot(&ws).await.unwrap();
    let plan = snaps.plan(&ws, &now, &before).await.unwrap();
    let left = snaps.apply(&ws, &before, &plan).await.unwrap();
    let revert = t.elapsed();
    assert_eq!(plan.len(), 200);
    assert_eq!(left, before);
    assert_ne!(after, before);
    println!(
        "undo_revert_ms {:.0} for a 200-file change in a 2,000-file workspace (snapshot now, plan, restore, snapshot); first snapshot {:.0} ms, unchanged snapshot {:.0} ms",
        revert.as_secs_f64() * 1000.0,
        first.as_secs_f64() * 1000.0,
        unchanged.as_secs_f64() * 1000.0
    );
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let all = args.is_empty();
    let want = |n: &str| all || args.iter().any(|a| a == n);
    if want("gate") {
        gate();
    }
    if want("credentials") {
        credentials().await;
    }
    if want("jail") {
        jail().await;
    }
    if want("extend") {
        extend().await;
    }
    if want("search") {
        search();
    }
    if want("startup") {
        startup().await;
    }
    if want("sessions") {
        sessions().await;
    }
    if want("turn") {
        turn().await;
    }
    if want("textcalls") {
        textcalls().await;
    }
    if want("stream") {
        stream().await;
    }
    if want("events") {
        events().await;
    }
    if want("tls") {
        tls().await;
    }
    if want("sse") {
        sse().await;
    }
    if want("files") {
        files().await;
    }
    if want("webfetch") {
        webfetch().await;
    }
    if want("mcp") {
        mcp().await;
    }
    if want("subagents") {
        subagents().await;
    }
    if want("context") {
        context().await;
    }
    if want("fts") {
        fts().await;
    }
    if want("undo") {
        undo().await;
    }
    if want("rss") {
        rss().await;
    }
    if want("review") {
        review::review().await;
    }
    if want("hotpath") {
        hotpath::hotpath().await;
    }
    // Not part of a plain `bench` run: it takes minutes.
    if args.iter().any(|a| a == "soak") {
        soak().await;
    }
}
