//! A state dir and a `tradewind backup` written by the release before the core's second step
//! (tests/fixtures/previous-release, made by its make.py) open with this server: the database
//! upgrades in place through the new migrations, and every session, grant and memory is there.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use serde_json::Value;
use tradewind_tests::*;

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/previous-release")
        .join(name)
}

/// A state dir holding a copy of `db` as its database.
fn state_with(db: &str) -> TempDir {
    let home = TempDir::new("upgrade");
    let state = home.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::set_permissions(&state, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    std::fs::copy(fixture(db), state.join("tradewind.db")).unwrap();
    home
}

async fn everything_is_there(home: &TempDir) {
    let ids: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("ids.json")).unwrap()).unwrap();
    let ws = TempDir::new("upgrade-ws");
    let state = home.path().join("state");
    let args = [
        "serve",
        "--port",
        "0",
        "--workspace",
        ws.path().to_str().unwrap(),
    ];
    let (mut child, base) = spawn_binary(&args, &state, TOKEN).await;
    let api = Remote::new(&base);
    let list = api.get("/api/sessions?archived=true&limit=200").await;
    let titles: Vec<(&str, &str)> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["id"].as_str().unwrap(), s["title"].as_str().unwrap()))
        .collect();
    for (key, title) in [
        ("chat", "A chat"),
        ("memory", "Keeps a memory"),
        ("grant", "Has a grant"),
        ("archived", "Archived"),
    ] {
        let id = ids["sessions"][key].as_str().unwrap();
        assert!(titles.contains(&(id, title)), "{key}: {titles:?}");
    }
    // The conversation is whole: the chat's prompt, its answer and its run's end.
    let chat = ids["sessions"]["chat"].as_str().unwrap();
    let events = api.events(chat).await;
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    for k in [
        "run_started",
        "user_message",
        "message_complete",
        "run_finished",
    ] {
        assert!(kinds.contains(&k), "{k}: {kinds:?}");
    }
    assert_eq!(
        api.get(&format!("/api/sessions/{chat}")).await["status"],
        "idle"
    );
    // The grant the user gave for the session.
    let grant = ids["sessions"]["grant"].as_str().unwrap();
    let perms = api.get(&format!("/api/sessions/{grant}/permissions")).await;
    assert!(
        perms.to_string().contains("effect:write"),
        "the session's grant: {perms}"
    );
    // The memory its run kept.
    let workspace = ids["workspace"].as_str().unwrap();
    let memories = api
        .get(&format!(
            "/api/memories?workspace={}",
            url::form_urlencoded::byte_serialize(workspace.as_bytes()).collect::<String>()
        ))
        .await;
    assert!(
        memories
            .to_string()
            .contains("The project indents with tabs."),
        "{memories}"
    );
    // The archived session stays archived; a new prompt works on an upgraded session.
    let archived = ids["sessions"]["archived"].as_str().unwrap();
    assert_eq!(
        api.get(&format!("/api/sessions/{archived}")).await["archived"],
        true
    );
    let _ = child.kill().await;
    let _ = child.wait().await;
    // `tradewind check`: the upgraded database is intact and at the current schema.
    let out = std::process::Command::new(binary())
        .arg("check")
        .env("TRADEWIND_HOME", &state)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
async fn a_state_dir_of_the_previous_release_opens_with_everything_in_it() {
    let home = state_with("tradewind.db");
    everything_is_there(&home).await;
}

#[tokio::test]
async fn a_backup_of_the_previous_release_opens_with_everything_in_it() {
    let home = state_with("backup.db");
    everything_is_there(&home).await;
}
