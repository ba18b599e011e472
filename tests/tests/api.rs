//! REST automation over plain HTTP: the SSE event stream, the long-poll page, cursors that
//! never go back, and errors in the JSON shape the spec declares.

use serde_json::{Value, json};
use tradewind_protocol::EventFrame;
use tradewind_tests::*;

fn chatty() -> Opts {
    Opts {
        replay: Some(json!({"scripts": [
            {"turns": [{"text": "One two three four five six seven eight nine ten.", "chunk_chars": 3}]}
        ]})),
        ..Opts::default()
    }
}

#[tokio::test]
async fn sse_sends_backlog_then_live_in_order_and_resumes_after_last_event_id() {
    let s = TestServer::start(chatty()).await;
    let sid = s.create_session("ask").await;
    let first = s.prompt(&sid, "hello").await;
    s.wait_run_finished(&sid, &first).await;

    // Backlog (the first run) then live (a second run started after subscribing).
    let resp = s
        .sse(&format!("/api/sessions/{sid}/events/stream"), None)
        .await;
    assert_eq!(resp.status(), 200);
    let ct = resp.headers()["content-type"].to_str().unwrap().to_string();
    assert!(ct.starts_with("text/event-stream"), "{ct}");
    let mut rd = SseReader::new(resp);
    let mut seqs = vec![];
    let mut second: Option<String> = None;
    loop {
        let ev = rd.next_event().await.expect("the stream stays open");
        let data = ev.data.unwrap();
        let frame: EventFrame = serde_json::from_value(data.clone())
            .unwrap_or_else(|e| panic!("an SSE frame does not match the protocol ({e}): {data}"));
        assert_eq!(ev.id.as_deref(), Some(frame.seq.to_string().as_str()));
        assert_eq!(ev.event.as_deref(), Some(frame.payload.kind()));
        seqs.push(frame.seq);
        if data["type"] == "run_finished" {
            if data["run_id"] == first.as_str() && second.is_none() {
                second = Some(s.prompt(&sid, "again").await);
            } else if second.as_deref() == data["run_id"].as_str() {
                break;
            }
        }
    }
    let expected: Vec<i64> = (1..=seqs.len() as i64).collect();
    assert_eq!(seqs, expected, "gap-free, in order, no duplicates");

    // Resume after a seq with Last-Event-ID (what EventSource sends): nothing before it.
    let k = seqs.len() as i64 - 3;
    let resp = s
        .sse(
            &format!("/api/sessions/{sid}/events/stream?after=0"),
            Some(&k.to_string()),
        )
        .await;
    let mut rd = SseReader::new(resp);
    for want in k + 1..=seqs.len() as i64 {
        let ev = rd.next_event().await.unwrap();
        assert_eq!(ev.id, Some(want.to_string()));
    }
    s.stop().await;
}

#[tokio::test]
async fn sse_heartbeats_on_a_quiet_session_and_ends_when_the_server_stops() {
    let s = TestServer::start(chatty()).await;
    let sid = s.create_session("ask").await;
    let resp = s
        .sse(
            &format!("/api/sessions/{sid}/events/stream?heartbeat=1"),
            None,
        )
        .await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["x-accel-buffering"], "no");
    let mut rd = SseReader::new(resp);
    let beat = rd.next().await.expect("a heartbeat");
    assert_eq!(beat.comment.as_deref(), Some("keep-alive"), "{beat:?}");
    let stop = tokio::spawn(s.stop());
    // The open stream does not hold the server up: it ends.
    while let Some(ev) = rd.next().await {
        assert!(ev.data.is_none(), "no event on an idle session: {ev:?}");
    }
    stop.await.unwrap();
}

#[tokio::test]
async fn sse_refuses_bad_resume_points_with_json_errors() {
    let s = TestServer::start(chatty()).await;
    let sid = s.create_session("ask").await;
    for (last, query, status, code) in [
        (Some("abc"), "", 400, "bad_request"),
        (Some("-1"), "", 400, "bad_request"),
        (None, "?after=-1", 422, "validation_failed"),
        (None, "?heartbeat=0", 422, "validation_failed"),
        (None, "?after=x", 400, "bad_request"),
    ] {
        let resp = s
            .sse(&format!("/api/sessions/{sid}/events/stream{query}"), last)
            .await;
        assert_eq!(resp.status(), status, "{last:?} {query}");
        let v: Value = resp.json().await.unwrap();
        assert_eq!(v["error"]["code"], code, "{v}");
    }
    let resp = s
        .sse(
            "/api/sessions/01ARZ3NDEKTSV4RRFFQ69G5FAV/events/stream",
            None,
        )
        .await;
    assert_eq!(resp.status(), 404);
    s.stop().await;
}

#[tokio::test]
async fn long_poll_answers_when_the_next_event_is_stored_and_cursors_never_go_back() {
    let s = TestServer::start(chatty()).await;
    let sid = tradewind::protocol::SessionId::from(s.create_session("ask").await);
    let run = s.prompt(&sid, "hello").await;
    s.wait_run_finished(&sid, &run).await;
    let (st, page) = s
        .get(&format!("/api/sessions/{sid}/events?after=0&limit=2"))
        .await;
    assert_eq!(st, 200);
    assert_eq!(page["next_cursor"], 2);
    assert_eq!(page["has_more"], true);
    let (_, all) = s.get(&format!("/api/sessions/{sid}/events")).await;
    let last = all["next_cursor"].as_i64().unwrap();
    assert_eq!(all["has_more"], false);
    assert_eq!(all["data"].as_array().unwrap().len() as i64, last);

    // An empty page keeps the cursor where it was (never null, never back to 0).
    let (_, empty) = s
        .get(&format!("/api/sessions/{sid}/events?after={last}"))
        .await;
    assert_eq!(empty["data"], json!([]));
    assert_eq!(empty["next_cursor"], last);
    assert_eq!(empty["has_more"], false);

    // Held open until the next event is stored, then answered with it.
    let url = s.url(&format!("/api/sessions/{sid}/events?after={last}&wait=60"));
    let http = s.http.clone();
    let poll = tokio::spawn(async move {
        let r = http.get(url).bearer_auth(TOKEN).send().await.unwrap();
        (r.status().as_u16(), r.json::<Value>().await.unwrap())
    });
    // The poll is registered once the session has a live receiver.
    let bus = s.server.as_ref().unwrap().state.events.clone();
    while bus.receiver_count(&sid) == 0 {
        tokio::task::yield_now().await;
    }
    let second = s.prompt(&sid, "again").await;
    let (st, got) = poll.await.unwrap();
    assert_eq!(st, 200);
    let data = got["data"].as_array().unwrap();
    assert!(!data.is_empty(), "{got}");
    assert_eq!(data[0]["seq"], last + 1);
    assert_eq!(
        got["next_cursor"],
        data.last().unwrap()["seq"],
        "the cursor is the last seq delivered"
    );
    s.wait_run_finished(&sid, &second).await;

    // Paging back from the end (how a client opens a long session at its last screen).
    let total = s.get(&format!("/api/sessions/{sid}/events")).await.1["next_cursor"]
        .as_i64()
        .unwrap();
    let mut before = total + 1;
    let mut seen = vec![];
    loop {
        let (st, page) = s
            .get(&format!(
                "/api/sessions/{sid}/events?before={before}&limit=3"
            ))
            .await;
        assert_eq!(st, 200, "{page}");
        let seqs: Vec<i64> = page["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["seq"].as_i64().unwrap())
            .collect();
        assert!(
            seqs.windows(2).all(|w| w[1] == w[0] + 1),
            "oldest first: {seqs:?}"
        );
        assert!(seqs.iter().all(|q| *q < before));
        seen.splice(0..0, seqs.iter().copied());
        before = page["next_cursor"].as_i64().unwrap();
        if page["has_more"] == false {
            break;
        }
        assert_eq!(seqs.len(), 3);
    }
    assert_eq!(seen, (1..=total).collect::<Vec<_>>());
    let (_, window) = s
        .get(&format!("/api/sessions/{sid}/events?after=2&before=5"))
        .await;
    let seqs: Vec<i64> = window["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["seq"].as_i64().unwrap())
        .collect();
    assert_eq!(seqs, [3, 4]);

    for (q, status, code) in [
        ("before=0", 422, "validation_failed"),
        ("wait=61", 422, "validation_failed"),
        ("wait=-1", 400, "bad_request"),
        ("limit=0", 422, "validation_failed"),
        ("limit=abc", 400, "bad_request"),
        ("after=-5", 422, "validation_failed"),
    ] {
        let (st, v) = s.get(&format!("/api/sessions/{sid}/events?{q}")).await;
        assert_eq!(
            (st, v["error"]["code"].as_str()),
            (status, Some(code)),
            "{q}: {v}"
        );
    }
    s.stop().await;
}

#[tokio::test]
async fn bad_cursors_and_bodies_get_the_declared_json_errors() {
    let s = TestServer::start(chatty()).await;
    let sid = s.create_session("ask").await;
    for path in [
        format!("/api/sessions/{sid}/messages?cursor=garbage"),
        "/api/sessions?cursor=garbage".to_string(),
        "/api/sessions?cursor=12_garbage".to_string(),
        "/api/sessions?limit=x".to_string(),
        "/api/tasks/01ARZ3NDEKTSV4RRFFQ69G5FAV/output?offset=x".to_string(),
    ] {
        let (st, v) = s.get(&path).await;
        assert_eq!(
            (st, v["error"]["code"].as_str()),
            (400, Some("bad_request")),
            "{path}: {v}"
        );
    }
    // Cancel's body is optional: absent, null and {} all mean the defaults; bad JSON is a 400.
    let run = s.prompt(&sid, "hello").await;
    s.wait_run_finished(&sid, &run).await;
    for body in ["", "null", "{}"] {
        let r = s
            .http
            .post(s.url(&format!("/api/runs/{run}/cancel")))
            .bearer_auth(TOKEN)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{body:?}");
    }
    let r = s
        .http
        .post(s.url(&format!("/api/runs/{run}/cancel")))
        .bearer_auth(TOKEN)
        .header("content-type", "application/json")
        .body("{")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);

    // A fork refused for its text leaves no session behind.
    let (_, before) = s.get("/api/sessions").await;
    let (st, v) = s
        .post(&format!("/api/sessions/{sid}/fork"), json!({"text": "   "}))
        .await;
    assert_eq!(st, 422, "{v}");
    let (_, after) = s.get("/api/sessions").await;
    assert_eq!(
        before["data"].as_array().unwrap().len(),
        after["data"].as_array().unwrap().len()
    );
    // `seq` 1.0 is the integer 1 (JSON Schema's view); 1.5 is not.
    let (st, v) = s
        .post(&format!("/api/sessions/{sid}/fork"), json!({"seq": 1.5}))
        .await;
    assert_eq!(st, 422, "{v}");
    let (_, events) = s.get(&format!("/api/sessions/{sid}/events")).await;
    let user_seq = events["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "user_message")
        .unwrap()["seq"]
        .as_i64()
        .unwrap();
    let (st, v) = s
        .post(
            &format!("/api/sessions/{sid}/fork"),
            json!({"seq": user_seq as f64}),
        )
        .await;
    assert_eq!(st, 201, "{v}");
    // A plan decision of `unavailable` is not an answer a client can give.
    let (st, v) = s
        .post(
            "/api/plans/01ARZ3NDEKTSV4RRFFQ69G5FAV/decision",
            json!({"decision": "unavailable"}),
        )
        .await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (422, Some("validation_failed")),
        "{v}"
    );
    s.stop().await;
}

#[tokio::test]
async fn files_are_found_by_fuzzy_query_without_ignored_or_denied_ones() {
    let s = TestServer::start(chatty()).await;
    let ws = s.workspace.path();
    for f in [
        "server/core/src/services/sessions.rs",
        "server/core/src/store/sessions.rs",
        "web/src/state/sessions.ts",
        "README.md",
        "build/out/sessions.rs",
        ".env",
        "id_rsa",
    ] {
        let p = ws.join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, "x").unwrap();
    }
    std::fs::write(ws.join(".gitignore"), "build/\n").unwrap();
    // The walk honours .gitignore in a git work tree (as git itself does).
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    let sid = s.create_session("ask").await;
    let (st, v) = s
        .get(&format!("/api/sessions/{sid}/files?q=sess.rs&limit=5"))
        .await;
    assert_eq!(st, 200, "{v}");
    let paths: Vec<&str> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["path"].as_str().unwrap())
        .collect();
    assert!(
        paths[..2]
            .iter()
            .all(|p| p.starts_with("server/") && p.ends_with("sessions.rs")),
        "{paths:?}"
    );
    assert!(
        !paths.contains(&"build/out/sessions.rs"),
        "ignored by .gitignore: {paths:?}"
    );
    let first = &v["data"][0];
    assert!(!first["indices"].as_array().unwrap().is_empty());
    let (_, all) = s.get(&format!("/api/sessions/{sid}/files?limit=100")).await;
    let listed: Vec<&str> = all["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["path"].as_str().unwrap())
        .collect();
    // Keys the gate hard-denies are not offered (`.env` is, as the file tools read it redacted).
    for hidden in ["id_rsa", ".git/", "build/out/sessions.rs"] {
        assert!(!listed.contains(&hidden), "{hidden} listed: {listed:?}");
    }
    assert!(listed.contains(&"web/src/state/") && listed.contains(&"README.md"));
    assert_eq!(all["total"].as_u64().unwrap() as usize, listed.len());
    let (st, v) = s
        .get(&format!("/api/sessions/{sid}/files?q={}", "x".repeat(201)))
        .await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (422, Some("validation_failed"))
    );
    s.stop().await;
}

/// `GET /api/fs/dirs`: folder names under the home folder only (no files, hidden ones when
/// asked, links that stay under the home folder), a parent up to the home folder, the home
/// folder's warning, and the recent workspaces with theirs.
#[tokio::test]
async fn the_folder_picker_lists_folders_under_home_only() {
    let home = TempDir::new("tw-home");
    let h = home.path().canonicalize().unwrap();
    for d in ["projects/alpha", "projects/Beta", "projects/.cache", ".ssh"] {
        std::fs::create_dir_all(h.join(d)).unwrap();
    }
    std::fs::write(h.join("projects/notes.txt"), "x").unwrap();
    std::os::unix::fs::symlink(h.join("projects/alpha"), h.join("projects/link")).unwrap();
    std::os::unix::fs::symlink("/usr", h.join("projects/system")).unwrap();
    let s = TestServer::start(Opts {
        home: Some(h.clone()),
        ..Opts::default()
    })
    .await;
    let (st, v) = s.get("/api/fs/dirs").await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["path"], json!(h.to_string_lossy()));
    assert!(v["parent"].is_null(), "nothing above the home folder");
    assert!(v["warning"].as_str().unwrap().contains("home folder"));
    let names = |v: &Value| -> Vec<String> {
        v["dirs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&v), ["projects"], "no hidden folder by default");
    let (_, v) = s.get("/api/fs/dirs?hidden=true").await;
    assert_eq!(names(&v), ["projects"], ".ssh is never listed");
    let projects = h.join("projects");
    let q = |p: &std::path::Path, extra: &str| {
        format!(
            "/api/fs/dirs?path={}{extra}",
            url::form_urlencoded::byte_serialize(p.to_string_lossy().as_bytes())
                .collect::<String>()
        )
    };
    let (st, v) = s.get(&q(&projects, "")).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(
        names(&v),
        ["alpha", "Beta", "link"],
        "no file, no link out of home"
    );
    assert_eq!(v["parent"], json!(h.to_string_lossy()));
    assert!(v["warning"].is_null());
    let (_, v) = s.get(&q(&projects, "&hidden=true")).await;
    assert_eq!(names(&v), [".cache", "alpha", "Beta", "link"]);
    for (path, status) in [
        (std::path::PathBuf::from("/etc"), 422),
        (h.join(".ssh"), 422),
        (h.join("nowhere"), 404),
        (h.join("projects/notes.txt"), 422),
    ] {
        let (st, v) = s.get(&q(&path, "")).await;
        assert_eq!(st, status, "{}: {v}", path.display());
    }
    let (st, _) = s.get("/api/fs/dirs?path=relative/dir").await;
    assert_eq!(st, 422);
    // The recent workspaces: the test's own, with no warning.
    let _ = s.create_session("ask").await;
    let (_, v) = s.get("/api/fs/dirs").await;
    assert_eq!(
        v["recent"],
        json!([{"path": s.workspace.path().to_string_lossy(), "warning": null}])
    );
    s.stop().await;
}
