//! Flags mean what they say (the jail issue, item 4): new sessions start in the smallest mode
//! under which every effect the start flags allow runs unasked (or config.json's `defaultMode`,
//! capped the same way); an imported session starts in `ask` and works only where the user
//! confirmed (never `/`); the Landlock fallback refuses a workspace holding the state dir.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use tradewind::config::Ceiling;
use tradewind_tests::*;

async fn new_session_mode(opts: Opts) -> (String, String) {
    let s = TestServer::start(opts).await;
    let (st, v) = s.post("/api/sessions", json!({})).await;
    assert_eq!(st, 201, "{v}");
    let (_, cfg) = s.get("/api/config").await;
    s.stop().await;
    (
        v["mode"].as_str().unwrap().to_string(),
        cfg["default_mode"].as_str().unwrap().to_string(),
    )
}

#[tokio::test]
async fn new_sessions_start_in_the_mode_the_flags_allow() {
    let with = |write, process, external| Opts {
        ceiling: Ceiling {
            write,
            process,
            external,
        },
        ..Opts::default()
    };
    for (opts, want) in [
        (with(false, false, false), "ask"),
        (with(true, false, false), "auto"),
        (with(false, true, false), "full"),
        (with(true, false, true), "full"),
        (
            Opts {
                yolo: true,
                ..Opts::default()
            },
            "full",
        ),
        (
            Opts {
                tweak: Some(|c| c.default_mode_setting = Some(tradewind::protocol::Mode::Ask)),
                ..with(true, true, false)
            },
            "ask",
        ),
        (
            Opts {
                tweak: Some(|c| c.default_mode_setting = Some(tradewind::protocol::Mode::Full)),
                ..with(true, false, false)
            },
            "auto",
        ),
    ] {
        let (mode, shown) = new_session_mode(opts).await;
        assert_eq!(mode, want);
        assert_eq!(shown, want, "GET /api/config says it");
    }
}

/// An export names `/` and mode `full`: the import starts in `ask`, in the server's workspace;
/// `?workspace=` (the user's confirmation) moves it, and `/` is refused.
#[tokio::test]
async fn an_imported_session_starts_in_ask_where_the_user_confirmed() {
    let s = TestServer::start(Opts {
        ceiling: Ceiling {
            write: true,
            process: true,
            external: false,
        },
        ..Opts::default()
    })
    .await;
    let doc = json!({
        "format": "tradewind-session/1",
        "session": {"title": "imported", "agent": "build", "mode": "full", "workspace": "/"},
        "events": [], "messages": []
    });
    let (st, v) = s.post("/api/sessions/import", doc.clone()).await;
    assert_eq!(st, 201, "{v}");
    assert_eq!(v["session"]["mode"], "ask");
    assert_eq!(v["export_workspace"], "/");
    let ws = std::fs::canonicalize(s.workspace.path()).unwrap();
    assert_eq!(v["session"]["workspace"], ws.to_str().unwrap());
    let (st, v) = s
        .post("/api/sessions/import?workspace=/", doc.clone())
        .await;
    assert_eq!(st, 422, "{v}");
    let other = TempDir::new("import-ws");
    let other_path = std::fs::canonicalize(other.path()).unwrap();
    let (st, v) = s
        .post(
            &format!(
                "/api/sessions/import?workspace={}",
                other_path.to_str().unwrap()
            ),
            doc,
        )
        .await;
    assert_eq!(st, 201, "{v}");
    assert_eq!(v["session"]["workspace"], other_path.to_str().unwrap());
    assert_eq!(v["session"]["mode"], "ask");
    s.stop().await;
}

/// In the Landlock fallback (forced), a session whose workspace holds the state directory is
/// refused, naming `--state-dir`; the jail masks it instead, so there it is accepted.
#[tokio::test]
async fn the_fallback_refuses_a_workspace_holding_the_state_dir() {
    use tradewind::sandbox::JailChoice;
    let landlock: fn(&mut tradewind::config::Config) = |c| c.sandbox.jail = JailChoice::Landlock;
    let bwrap: fn(&mut tradewind::config::Config) = |c| c.sandbox.jail = JailChoice::Bwrap;
    for (tweak, refused) in [(landlock, true), (bwrap, false)] {
        // Outside the system temp dir: the fallback refuses to start with a state dir there.
        let ws = TempDir::adopt(
            std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
                .join(format!("flags-fallback-{}", ulid::Ulid::generate())),
        );
        let state = TempDir::adopt(ws.path().join("state"));
        if refused && tradewind::sandbox::under_temp(state.path()) {
            // A checkout under the system temp dir (a clone in /tmp): the fallback already
            // refuses to start with this state dir, naming --state-dir — its other refusal.
            let mut cfg = tradewind::config::Config::for_paths(
                ws.path().to_path_buf(),
                state.path().to_path_buf(),
            );
            cfg.sandbox_helper = Some(binary());
            tweak(&mut cfg);
            let e = tradewind::sandbox::check_state_dir(&cfg).unwrap_err();
            assert!(e.to_string().contains("--state-dir"), "{e}");
            continue;
        }
        let opts = Opts {
            tweak: Some(tweak),
            ..Opts::default()
        };
        let s = TestServer::start_in(opts, ws, state).await;
        let (st, v) = s.post("/api/sessions", json!({})).await;
        if refused {
            assert_eq!(st, 422, "{v}");
            assert!(
                v["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("--state-dir"),
                "{v}"
            );
        } else {
            assert_eq!(st, 201, "{v}");
        }
        s.stop().await;
    }
}

/// `tradewind run --read-only` through a running `--yolo` server: its own flags are a further
/// ceiling on the run, and what would ask fails at once instead of waiting in the web app.
#[tokio::test]
async fn run_through_a_server_keeps_its_own_flags() {
    let home = TempDir::new("run-flags-home");
    let ws = TempDir::new("run-flags-ws");
    let state = home.path().join("state");
    let replay = home.path().join("replay.json");
    let write = json!({"tool_calls": [{"name": "write_file", "arguments": {"path": "x.txt", "content": "x"}}]});
    std::fs::write(
        &replay,
        json!({"scripts": [
            {"turns": [write, {"text": "tried read-only"}]},
            {"turns": [write, {"text": "tried without flags"}]},
            {"turns": [write, {"text": "wrote it"}]},
        ]})
        .to_string(),
    )
    .unwrap();
    let ws_s = ws.path().to_str().unwrap().to_string();
    let args = [
        "serve",
        "--port",
        "0",
        "--yolo",
        "--allow-write",
        "--allow-process",
        "--workspace",
        &ws_s,
        "--provider",
        "replay",
        "--replay",
        replay.to_str().unwrap(),
    ];
    let (mut server, _) = spawn_binary(&args, &state, TOKEN).await;
    for flags in [&["--read-only"][..], &[][..]] {
        let out = tokio::process::Command::new(binary())
            .arg("run")
            .args(flags)
            .args(["--json", "--workspace", &ws_s, "write x.txt"])
            .env("TRADEWIND_HOME", &state)
            .output()
            .await
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("\"run_finished\""),
            "{flags:?}: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !stdout.contains("approval_requested"),
            "{flags:?}: nothing waits on the web app: {stdout}"
        );
        assert!(
            stdout.contains("\"decision\":\"deny\""),
            "{flags:?}: the write was refused: {stdout}"
        );
        assert!(!ws.path().join("x.txt").exists(), "{flags:?}");
    }
    // With the flag the server has too, the same write runs: the refusals were the flags'.
    let out = tokio::process::Command::new(binary())
        .args([
            "run",
            "--allow-write",
            "--json",
            "--workspace",
            &ws_s,
            "write x.txt",
        ])
        .env("TRADEWIND_HOME", &state)
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(ws.path().join("x.txt").exists());
    server.start_kill().unwrap();
    server.wait().await.unwrap();
}
