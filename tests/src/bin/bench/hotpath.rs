//! `bench hotpath`: every figure of the hot path in one run, against the release server in a
//! process of its own, on fixtures made here. One table: figure, target, measured, n.
//!
//! - warm 1-token turn, undo on: POST …/messages → `run_finished` on the WebSocket, 200 turns
//!   after 20 warm-up ones, in a git repository of 2,000 files (20 MiB), replay model;
//! - the write turn: a turn whose model call writes one file of that repository (undo on):
//!   the first of a session prompted the moment it exists, and turns 4–15 with prompts 300 ms
//!   apart and back to back (each the moment the previous `run_finished` arrives);
//! - start to healthy: spawn → first 200 from `/api/health`, on a fresh state dir and on the
//!   existing one the turns left;
//! - idle RSS: VmRSS 2 s after a fresh start;
//! - CPU per streamed delta: the server process's utime+stime (`/proc/<pid>/stat`) over 10
//!   replies of 5,000 deltas each, sent by the model server as fast as it can, to one WebSocket
//!   subscriber, ÷ 50,000 (and, for information, the same with one chunk a millisecond, as a
//!   model streams, where each chunk wakes the server on its own);
//! - 1,000 sessions of 10 events: VmRSS after listing, p50 of 100 `GET /api/sessions`, and start
//!   to healthy on that state dir;
//! - the release binary's size.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::{Value, json};
use tradewind_tests::openai_mock::{Mock, Reply, ev_done, ev_finish, ev_text};
use tradewind_tests::*;

use super::{pct, release_binary, rss_kib};

struct Row {
    figure: &'static str,
    target: &'static str,
    measured: String,
    n: String,
    met: bool,
}

/// `TW_HOTPATH=turn,write,start,stream,many,size` measures only those parts (all by default).
fn part(name: &str) -> bool {
    std::env::var("TW_HOTPATH").map_or(true, |v| v.split(',').any(|p| p == name))
}

pub async fn hotpath() {
    let bin = release_binary();
    assert!(
        bin.exists(),
        "{} is missing: cargo build --release --bin tradewind",
        bin.display()
    );
    let mut rows = Vec::new();

    let repo = TempDir::new("bench-hot-repo");
    let state = TempDir::new("bench-hot-state");
    make_repository(repo.path(), 2000, 20 << 20);
    if part("turn") {
        let (p50, p90, n) = warm_turns(&bin, repo.path(), state.path()).await;
        rows.push(Row {
            figure: "warm 1-token turn, undo on",
            target: "≤ 4 ms p50",
            measured: format!("p50 {p50:.2} ms (p90 {p90:.2})"),
            n: n.to_string(),
            met: p50 <= 4.0,
        });
    }

    if part("write") {
        let w = write_turns(&bin, repo.path()).await;
        rows.push(Row {
            figure: "first write turn",
            target: "≤ 200 ms",
            measured: format!("p50 {:.1} ms (each {:?})", w.first_p50, w.firsts),
            n: w.firsts.len().to_string(),
            met: w.first_p50 <= 200.0,
        });
        rows.push(Row {
            figure: "write turns 4–15, 300 ms apart",
            target: "≤ 10 ms p50",
            measured: format!("p50 {:.2} ms (p90 {:.2})", w.paced.0, w.paced.1),
            n: w.paced.2.to_string(),
            met: w.paced.0 <= 10.0,
        });
        rows.push(Row {
            figure: "write turns 4–15, back to back",
            target: "≤ 10 ms p50",
            measured: format!("p50 {:.2} ms (p90 {:.2})", w.back.0, w.back.1),
            n: w.back.2.to_string(),
            met: w.back.0 <= 10.0,
        });
    }

    let empty = TempDir::new("bench-hot-empty");
    if part("start") {
        let mut fresh = Vec::new();
        let mut idle_rss = 0.0;
        for i in 0..10 {
            let home = TempDir::new("bench-hot-fresh");
            let (ms, mut child, _) = start_to_healthy(&bin, empty.path(), home.path()).await;
            fresh.push(ms);
            if i == 9 {
                tokio::time::sleep(Duration::from_secs(2)).await;
                idle_rss = rss_kib(child.id().unwrap_or(0)) as f64 / 1024.0;
            }
            let _ = child.kill().await;
        }
        let mut existing = Vec::new();
        for _ in 0..10 {
            let (ms, mut child, _) = start_to_healthy(&bin, repo.path(), state.path()).await;
            existing.push(ms);
            let _ = child.kill().await;
        }
        let (f, e) = (pct(&mut fresh, 0.5), pct(&mut existing, 0.5));
        rows.push(Row {
            figure: "start to healthy, fresh",
            target: "≤ 25 ms",
            measured: format!("p50 {f:.1} ms"),
            n: "10".into(),
            met: f <= 25.0,
        });
        rows.push(Row {
            figure: "start to healthy, existing",
            target: "≤ 20 ms",
            measured: format!("p50 {e:.1} ms"),
            n: "10".into(),
            met: e <= 20.0,
        });
        rows.push(Row {
            figure: "idle RSS",
            target: "≤ 18 MiB",
            measured: format!("{idle_rss:.1} MiB"),
            n: "1".into(),
            met: idle_rss <= 18.0,
        });
    }

    if part("stream") {
        let (us, schedstat_us) = cpu_per_delta(&bin, empty.path(), Duration::ZERO, 10).await;
        rows.push(Row {
            figure: "CPU per streamed delta",
            target: "≤ 5 µs",
            measured: format!("{us:.2} µs (threads' schedstat: {schedstat_us:.2} µs)"),
            n: "50000".into(),
            met: us <= 5.0,
        });
        let (us, schedstat_us) =
            cpu_per_delta(&bin, empty.path(), Duration::from_millis(1), 2).await;
        rows.push(Row {
            figure: "(same, one chunk a ms)",
            target: "—",
            measured: format!("{us:.2} µs (threads' schedstat: {schedstat_us:.2} µs)"),
            n: "10000".into(),
            met: true,
        });
    }

    if part("many") {
        let many = thousand_sessions(&bin, empty.path()).await;
        rows.push(Row {
            figure: "1,000 sessions: RSS",
            target: "≤ 50 MiB",
            measured: format!("{:.1} MiB", many.rss_mib),
            n: "1".into(),
            met: many.rss_mib <= 50.0,
        });
        rows.push(Row {
            figure: "1,000 sessions: list p50",
            target: "≤ 2 ms",
            measured: format!("{:.2} ms", many.list_p50),
            n: "100".into(),
            met: many.list_p50 <= 2.0,
        });
        rows.push(Row {
            figure: "1,000 sessions: restart",
            target: "≤ 60 ms",
            measured: format!("p50 {:.1} ms", many.restart_p50),
            n: "5".into(),
            met: many.restart_p50 <= 60.0,
        });
    }

    // This round's budget (the brief: 48 MiB at its end).
    let size = std::fs::metadata(&bin).map(|m| m.len()).unwrap_or(0) as f64 / 1048576.0;
    rows.push(Row {
        figure: "release binary",
        target: "≤ 48 MiB",
        measured: format!("{size:.2} MiB"),
        n: "1".into(),
        met: size <= 48.0,
    });

    println!(
        "| {:<30} | {:<10} | {:<44} | {:>6} | met |",
        "figure", "target", "measured", "n"
    );
    println!("|{}|", ["-"; 5].map(|_| "------").join("|"));
    for r in rows {
        println!(
            "| {:<30} | {:<10} | {:<44} | {:>6} | {} |",
            r.figure,
            r.target,
            r.measured,
            r.n,
            if r.met { "yes" } else { "NO" }
        );
    }
}

/// A git repository of `files` files, `bytes` in all, committed (its `.git` as a user's has it).
fn make_repository(dir: &Path, files: usize, bytes: usize) {
    let each = bytes / files;
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut line = String::new();
    for i in 0..files {
        let sub = dir.join(format!("src/m{:02}", i % 40));
        std::fs::create_dir_all(&sub).unwrap();
        let mut f = std::io::BufWriter::new(
            std::fs::File::create(sub.join(format!("file{i:04}.rs"))).unwrap(),
        );
        let mut written = 0;
        while written < each {
            line.clear();
            for _ in 0..8 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                line.push_str(&format!("w{:x} ", seed % 100_000));
            }
            line.push('\n');
            f.write_all(line.as_bytes()).unwrap();
            written += line.len();
        }
    }
    std::fs::write(dir.join(".gitignore"), "target/\n").unwrap();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "bench")
            .env("GIT_AUTHOR_EMAIL", "bench@example.invalid")
            .env("GIT_COMMITTER_NAME", "bench")
            .env("GIT_COMMITTER_EMAIL", "bench@example.invalid")
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "fixture"]);
}

fn replay_file(dir: &Path) -> PathBuf {
    let p = dir.join("replay.json");
    std::fs::write(
        &p,
        json!({"scripts": [{"turns": [{"text": "ok"}]}]}).to_string(),
    )
    .unwrap();
    p
}

/// 20 warm-up turns, then 200 timed ones: (p50, p90, n).
async fn warm_turns(bin: &Path, repo: &Path, home: &Path) -> (f64, f64, usize) {
    let replay = replay_file(home);
    let args = replay_serve_args(repo, &replay);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (mut child, base) = spawn_binary_at(bin, &args, &home.join("state"), TOKEN).await;
    let api = Remote::new(&base);
    let sid = api.create_session(json!({"mode": "ask"})).await;
    let mut ws = ws_connect_url(&format!("{}/api/ws", base.replace("http://", "ws://"))).await;
    ws_send(
        &mut ws,
        json!({"type": "subscribe", "session": sid, "after": 0}),
    )
    .await;
    let mut times = Vec::new();
    for i in 0..220 {
        let ms = timed_turn(&api, &mut ws, &sid, "hi").await;
        if i >= 20 {
            times.push(ms);
        }
    }
    let n = times.len();
    let _ = child.kill().await;
    (pct(&mut times.clone(), 0.5), pct(&mut times, 0.9), n)
}

/// The write turn's figures: the first write turn of a session prompted the moment it exists,
/// on a server just started (p50 of five), and turns 4–15 of a session with prompts 300 ms
/// apart and back to back ((p50, p90, n) over five sessions each).
struct WriteTurns {
    firsts: Vec<f64>,
    first_p50: f64,
    paced: (f64, f64, usize),
    back: (f64, f64, usize),
}

/// Prompt, then wait for the run's `run_finished` (completed): the turn's milliseconds.
async fn timed_turn(api: &Remote, ws: &mut Ws, sid: &str, text: &str) -> f64 {
    let t0 = Instant::now();
    let run = api.prompt(sid, text).await;
    loop {
        let v = ws_next(ws, Duration::from_secs(60))
            .await
            .expect("a frame in time");
        // A turn that asks would wait for nobody: the bench is wrong, not slow.
        assert_ne!(v["type"], "approval_requested", "{v}");
        if v["type"] == "run_finished" && v["run_id"] == run.as_str() {
            assert_eq!(v["status"], "completed", "{v}");
            return t0.elapsed().as_secs_f64() * 1000.0;
        }
    }
}

/// The turn wrote its file (a refused or failed call would leave it as it was).
fn written(repo: &Path, tag: &str) {
    let text = std::fs::read_to_string(repo.join("src/m00/bench_written.rs")).unwrap_or_default();
    assert!(
        text.starts_with(&format!("// {tag}\n")),
        "the turn wrote nothing: {text:?}"
    );
}

/// Turns that each write one file of the 2,000-file repository (`write`, undo on, full mode:
/// no question), alternating two contents so every turn changes it.
async fn write_turns(bin: &Path, repo: &Path) -> WriteTurns {
    let home = TempDir::new("bench-hot-write");
    let replay = home.path().join("replay.json");
    let script = |tag: &str| {
        json!({"match": format!("write {tag}"), "turns": [
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "src/m00/bench_written.rs", "content": format!("// {tag}\nfn written() {{}}\n")}}]},
            {"text": "done"}
        ]})
    };
    std::fs::write(
        &replay,
        json!({"scripts": [script("a"), script("b")]}).to_string(),
    )
    .unwrap();
    let mut args = replay_serve_args(repo, &replay);
    args.push("--allow-write".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let start = |state: PathBuf| {
        let args = args.clone();
        async move {
            let (child, base) = spawn_binary_at(bin, &args, &state, TOKEN).await;
            let ws = ws_connect_url(&format!("{}/api/ws", base.replace("http://", "ws://"))).await;
            (child, Remote::new(&base), ws)
        }
    };
    // The first write turn: a server just started (its state new, the workspace never
    // snapshotted), a session, and at once its prompt.
    let mut firsts = Vec::new();
    for i in 0..5 {
        let (mut child, api, mut ws) = start(home.path().join(format!("first{i}"))).await;
        let sid = api.create_session(json!({"mode": "full"})).await;
        ws_send(
            &mut ws,
            json!({"type": "subscribe", "session": sid, "after": 0}),
        )
        .await;
        firsts.push(timed_turn(&api, &mut ws, &sid, "write a").await);
        written(repo, "a");
        let _ = child.kill().await;
    }
    let (mut child, api, mut ws) = start(home.path().join("state")).await;
    let (mut paced, mut back) = (Vec::new(), Vec::new());
    for round in 0..10 {
        let sid = api.create_session(json!({"mode": "full"})).await;
        ws_send(
            &mut ws,
            json!({"type": "subscribe", "session": sid, "after": 0}),
        )
        .await;
        let pace = round % 2 == 0;
        for turn in 1..=15 {
            if pace && turn > 1 {
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
            let tag = if turn % 2 == 0 { "a" } else { "b" };
            let ms = timed_turn(&api, &mut ws, &sid, &format!("write {tag}")).await;
            written(repo, tag);
            match turn {
                4.. if pace => paced.push(ms),
                4.. => back.push(ms),
                _ => {}
            }
        }
    }
    let _ = child.kill().await;
    let stats = |mut v: Vec<f64>| (pct(&mut v.clone(), 0.5), pct(&mut v, 0.9), v.len());
    let mut sorted = firsts.clone();
    WriteTurns {
        first_p50: pct(&mut sorted, 0.5),
        firsts: firsts.iter().map(|f| (f * 10.0).round() / 10.0).collect(),
        paced: stats(paced),
        back: stats(back),
    }
}

/// Spawn the server on `home` and poll `/api/health` until its first 200: (ms, the child, its
/// port).
async fn start_to_healthy(bin: &Path, ws: &Path, home: &Path) -> (f64, tokio::process::Child, u16) {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let client = reqwest::Client::new();
    let url = format!("http://127.0.0.1:{port}/api/health");
    let t0 = Instant::now();
    let child = tokio::process::Command::new(bin)
        .args(["serve", "--port", &port.to_string(), "--workspace"])
        .arg(ws)
        .env("TRADEWIND_HOME", home.join("state"))
        .env("TRADEWIND_TOKEN", TOKEN)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    loop {
        if let Ok(r) = client.get(&url).send().await
            && r.status() == 200
        {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(20), "no health in 20 s");
        tokio::time::sleep(Duration::from_micros(200)).await;
    }
    (t0.elapsed().as_secs_f64() * 1000.0, child, port)
}

/// utime+stime of a process, in clock ticks, and its live threads' run time in ns.
fn cpu_of(pid: u32) -> (u64, u64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which may hold spaces) start after the last ')'.
    let rest = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = f.get(11).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0)
        + f.get(12).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    let ns = std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|d| {
            d.flatten()
                .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
                .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
                .sum()
        })
        .unwrap_or(0);
    (ticks, ns)
}

/// Server CPU per delta over `replies` replies of 5,000 deltas, `delay` between the model's
/// chunks: (by utime+stime, by the threads' schedstat).
async fn cpu_per_delta(bin: &Path, ws_dir: &Path, delay: Duration, replies: usize) -> (f64, f64) {
    const DELTAS: usize = 5000;
    let mock = Mock::default();
    let url = mock.serve().await;
    let home = TempDir::new("bench-hot-stream");
    // No model-written titles: each session's first run would call the model once more (and
    // take a scripted reply meant for the next run).
    let state = home.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(
        state.join("config.json"),
        r#"{"titles": {"enabled": false}}"#,
    )
    .unwrap();
    let (mut child, base) = spawn_binary_at(
        bin,
        &[
            "serve",
            "--port",
            "0",
            "--workspace",
            ws_dir.to_str().unwrap(),
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
    let api = Remote::new(&base);
    let mut ws = ws_connect_url(&format!("{}/api/ws", base.replace("http://", "ws://"))).await;
    let reply = || {
        let mut chunks: Vec<String> = (0..DELTAS).map(|i| ev_text(&format!("t{i} "))).collect();
        chunks.push(ev_finish("stop"));
        chunks.push(ev_done());
        Reply::Sse { chunks, delay }
    };
    // One reply first, not counted: the first model call opens the connection.
    let mut ticks = 0;
    let mut ns = 0;
    for i in 0..=replies {
        // A session each: ten long replies in one would fill its context (and compact it).
        let sid = api.create_session(json!({"mode": "ask"})).await;
        ws_send(
            &mut ws,
            json!({"type": "subscribe", "session": sid, "after": 0}),
        )
        .await;
        mock.push(reply());
        let (t0, n0) = cpu_of(pid);
        let run = api.prompt(&sid, "stream").await;
        let mut text = 0usize;
        loop {
            let m = tokio::time::timeout(Duration::from_secs(60), ws.next())
                .await
                .expect("a frame in time")
                .expect("an open socket")
                .expect("a frame");
            if let tokio_tungstenite::tungstenite::Message::Text(t) = m {
                let v: Value = serde_json::from_str(&t).unwrap();
                if v["type"] == "message_delta" {
                    text += v["text"].as_str().map_or(0, str::len);
                }
                if v["type"] == "run_finished" && v["run"] == run.as_str() {
                    if v["status"] != "completed" {
                        let kinds: Vec<String> = api
                            .events(&sid)
                            .await
                            .iter()
                            .filter(|e| e["run"] == run.as_str() && e["type"] != "message_delta")
                            .map(|e| e.to_string().chars().take(300).collect())
                            .collect();
                        panic!("{v}\n{}", kinds.join("\n"));
                    }
                    break;
                }
            }
        }
        let expected: usize = (0..DELTAS).map(|i| format!("t{i} ").len()).sum();
        assert_eq!(text, expected, "the whole reply reached the subscriber");
        let (t1, n1) = cpu_of(pid);
        if i > 0 {
            ticks += t1 - t0;
            ns += n1.saturating_sub(n0);
        }
    }
    let _ = child.kill().await;
    let tick_us = 1e6 / 100.0; // USER_HZ
    let total = (DELTAS * replies) as f64;
    (ticks as f64 * tick_us / total, ns as f64 / 1000.0 / total)
}

struct Many {
    rss_mib: f64,
    list_p50: f64,
    restart_p50: f64,
}

/// 1,000 sessions of one run each (10 events: the prompt, its reply, the run's start and end),
/// made through the API; then the list, the RSS and restarts on that state dir.
async fn thousand_sessions(bin: &Path, ws_dir: &Path) -> Many {
    let home = TempDir::new("bench-hot-many");
    let replay = replay_file(home.path());
    let args = replay_serve_args(ws_dir, &replay);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (mut child, base) = spawn_binary_at(bin, &args, &home.path().join("state"), TOKEN).await;
    let api = Remote::new(&base);
    let mut events = 0;
    for i in 0..1000 {
        let sid = api.create_session(json!({"mode": "ask"})).await;
        let run = api.prompt(&sid, &format!("Prompt {i}")).await;
        api.wait_run_finished(&sid, &run).await;
        if i == 999 {
            events = api.events(&sid).await.len();
        }
    }
    let _ = child.kill().await;
    let (_, mut child, port) = start_to_healthy(bin, ws_dir, home.path()).await;
    let http = reqwest::Client::new();
    let url = format!("http://127.0.0.1:{port}/api/sessions");
    let mut list = Vec::new();
    for _ in 0..100 {
        let t0 = Instant::now();
        let r = http.get(&url).bearer_auth(TOKEN).send().await.unwrap();
        assert_eq!(r.status(), 200);
        let _ = r.bytes().await.unwrap();
        list.push(t0.elapsed().as_secs_f64() * 1000.0);
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rss_mib = rss_kib(child.id().unwrap_or(0)) as f64 / 1024.0;
    let _ = child.kill().await;
    let mut restarts = Vec::new();
    for _ in 0..5 {
        let (ms, mut c, _) = start_to_healthy(bin, ws_dir, home.path()).await;
        restarts.push(ms);
        let _ = c.kill().await;
    }
    println!("(1,000 sessions: {events} events in the last one)");
    Many {
        rss_mib,
        list_p50: pct(&mut list, 0.5),
        restart_p50: pct(&mut restarts, 0.5),
    }
}
