//! Terminals in the browser (the review issue): a real pseudo-terminal whose shell runs in the
//! session's jail, over the app's WebSocket — binary frames on its channel, resize, a reconnect
//! within 10 s finding it with its scrollback — and who may not open one.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tradewind_tests::*;

fn with_terminal(cfg: &mut tradewind::config::Config) {
    cfg.terminal_enabled = true;
}

/// Send a JSON frame and return the reply to its request id.
async fn call(ws: &mut Ws, mut v: Value) -> Value {
    v["id"] = json!("r1");
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
    loop {
        let m = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("a reply")
            .unwrap()
            .unwrap();
        if let Message::Text(t) = m {
            let v: Value = serde_json::from_str(&t).unwrap();
            if v["id"] == "r1" {
                return v;
            }
        }
    }
}

/// Read the channel's output until it holds `want` (what was read so far is returned).
async fn read_until(ws: &mut Ws, ch: u8, want: &str) -> String {
    let mut seen = String::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while !seen.contains(want) {
        let m = tokio::time::timeout_at(deadline, ws.next())
            .await
            .unwrap_or_else(|_| panic!("{want:?} not seen; output: {seen}"))
            .unwrap()
            .unwrap();
        if let Message::Binary(b) = m {
            assert_eq!(b[0], ch);
            seen.push_str(&String::from_utf8_lossy(&b[1..]));
        }
    }
    seen
}

async fn type_in(ws: &mut Ws, ch: u8, text: &str) {
    let mut v = vec![ch];
    v.extend_from_slice(text.as_bytes());
    ws.send(Message::Binary(v.into())).await.unwrap();
}

/// A HOME with a planted key outside the system temp folder's view of the jail.
fn planted_home() -> TempDir {
    let home = TempDir::new("term-home");
    std::fs::create_dir_all(home.path().join(".ssh")).unwrap();
    std::fs::write(home.path().join(".ssh/id_rsa"), "PLANTED-TERMINAL-KEY-5e1f").unwrap();
    home
}

/// The terminal runs `echo`, resizes, cannot read the planted key, survives a reconnect within
/// 10 s with its scrollback, and closes when asked.
#[tokio::test]
async fn a_terminal_runs_in_the_jail_and_survives_a_reconnect() {
    let home = planted_home();
    let s = TestServer::start(Opts {
        tweak: Some(with_terminal),
        home: Some(home.path().to_path_buf()),
        ..Opts::default()
    })
    .await;
    let (_, cfg) = s.get("/api/config").await;
    assert_eq!(cfg["terminal"]["enabled"], true, "{cfg}");
    let sid = s.create_session("ask").await;
    let mut ws = ws_connect(&s).await;
    let r = call(
        &mut ws,
        json!({"type": "terminal_open", "session": sid, "cols": 80, "rows": 24}),
    )
    .await;
    assert_eq!(r["type"], "ack", "{r}");
    let term = r["result"]["terminal"].as_str().unwrap().to_string();
    let ch = u8::try_from(r["result"]["channel"].as_u64().unwrap()).unwrap();
    type_in(&mut ws, ch, "echo hi-$((6*7))\n").await;
    read_until(&mut ws, ch, "hi-42").await;
    let r = call(
        &mut ws,
        json!({"type": "terminal_resize", "terminal": term, "cols": 101, "rows": 33}),
    )
    .await;
    assert_eq!(r["type"], "ack", "{r}");
    type_in(&mut ws, ch, "stty size; echo size-done\n").await;
    read_until(&mut ws, ch, "33 101").await;
    type_in(&mut ws, ch, "cat ~/.ssh/id_rsa; echo cat-done-$?\n").await;
    let out = read_until(&mut ws, ch, "cat-done-1").await;
    assert!(!out.contains("PLANTED-TERMINAL-KEY"), "{out}");
    let real = home.path().join(".ssh/id_rsa");
    type_in(
        &mut ws,
        ch,
        &format!("cat {}; echo abs-done-$?\n", real.display()),
    )
    .await;
    let out = read_until(&mut ws, ch, "abs-done-1").await;
    assert!(!out.contains("PLANTED-TERMINAL-KEY"), "{out}");
    // It is in the session's workspace.
    type_in(
        &mut ws,
        ch,
        "touch made-in-terminal; echo touched-$((1+1))\n",
    )
    .await;
    read_until(&mut ws, ch, "touched-2").await;
    assert!(s.workspace.path().join("made-in-terminal").exists());

    // The socket goes; a new one finds the terminal, its scrollback first.
    ws.close(None).await.unwrap();
    drop(ws);
    let mut ws = ws_connect(&s).await;
    let r = call(
        &mut ws,
        json!({"type": "terminal_open", "session": sid, "terminal": term, "cols": 80, "rows": 24}),
    )
    .await;
    assert_eq!(r["type"], "ack", "{r}");
    let ch = u8::try_from(r["result"]["channel"].as_u64().unwrap()).unwrap();
    read_until(&mut ws, ch, "hi-42").await;
    type_in(&mut ws, ch, "echo again-$((2+3))\n").await;
    read_until(&mut ws, ch, "again-5").await;
    // A binary frame on no channel ends the socket (1003).
    ws.send(Message::Binary(vec![200, b'x'].into()))
        .await
        .unwrap();
    let closed = loop {
        match tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .unwrap()
        {
            Some(Ok(Message::Close(c))) => break c,
            Some(Ok(_)) => continue,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(u16::from(closed.unwrap().code), 1003);
    // Closing ends its shell.
    let mut ws = ws_connect(&s).await;
    let r = call(
        &mut ws,
        json!({"type": "terminal_open", "session": sid, "terminal": term}),
    )
    .await;
    assert_eq!(r["type"], "ack", "{r}");
    let r = call(&mut ws, json!({"type": "terminal_close", "terminal": term})).await;
    assert_eq!(r["type"], "ack", "{r}");
    let r = call(
        &mut ws,
        json!({"type": "terminal_open", "session": sid, "terminal": term}),
    )
    .await;
    assert_eq!(r["type"], "error", "{r}");
    s.stop().await;
}

/// Who may not open one: a token without `admin`, a server without --allow-terminal, another
/// owner attaching to it, and a plain-HTTP network bind.
#[tokio::test]
async fn a_terminal_is_refused_to_whoever_may_not_have_one() {
    let s = TestServer::start(Opts {
        tweak: Some(with_terminal),
        ..Opts::default()
    })
    .await;
    let sid = s.create_session("ask").await;
    let (_, t) = s
        .post(
            "/api/tokens",
            json!({"name": "ci", "scopes": ["read", "prompt"]}),
        )
        .await;
    let tok = t["token"].as_str().unwrap();
    let mut req =
        tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(s.ws_url())
            .unwrap();
    req.headers_mut()
        .insert("authorization", format!("Bearer {tok}").parse().unwrap());
    let (mut weak, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    let r = call(&mut weak, json!({"type": "terminal_open", "session": sid})).await;
    assert_eq!(r["type"], "error", "{r}");
    assert_eq!(r["error"]["code"], "forbidden", "{r}");
    // The full token's terminal is not the other token's to attach to.
    let mut ws = ws_connect(&s).await;
    let r = call(&mut ws, json!({"type": "terminal_open", "session": sid})).await;
    let term = r["result"]["terminal"].as_str().unwrap().to_string();
    let (_, t) = s
        .post("/api/tokens", json!({"name": "other", "scopes": ["admin"]}))
        .await;
    let other = t["token"].as_str().unwrap();
    let mut req =
        tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(s.ws_url())
            .unwrap();
    req.headers_mut()
        .insert("authorization", format!("Bearer {other}").parse().unwrap());
    let (mut ow, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    let r = call(
        &mut ow,
        json!({"type": "terminal_open", "session": sid, "terminal": term}),
    )
    .await;
    assert_eq!(r["type"], "error", "{r}");
    assert_eq!(r["error"]["code"], "not_found", "{r}");
    // Deleting the session ends its terminals.
    let (st, _) = s
        .send(
            reqwest::Method::DELETE,
            &format!("/api/sessions/{sid}"),
            json!(null),
        )
        .await;
    assert_eq!(st, 204);
    let closed = loop {
        match tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .unwrap()
        {
            Some(Ok(Message::Text(t))) if t.contains("terminal_closed") => break t,
            Some(Ok(_)) => continue,
            other => panic!("{other:?}"),
        }
    };
    assert!(closed.contains("session_deleted"), "{closed}");
    s.stop().await;

    // Off without --allow-terminal.
    let s = TestServer::start(Opts::default()).await;
    let sid = s.create_session("ask").await;
    let (_, cfg) = s.get("/api/config").await;
    assert_eq!(cfg["terminal"]["enabled"], false);
    let mut ws = ws_connect(&s).await;
    let r = call(&mut ws, json!({"type": "terminal_open", "session": sid})).await;
    assert_eq!(r["error"]["code"], "terminal_off", "{r}");
    s.stop().await;

    // Never on a plain-HTTP network bind.
    let s = TestServer::start(Opts {
        tweak: Some(with_terminal),
        bind: Some(std::net::IpAddr::from([0, 0, 0, 0])),
        password: Some("correct horse battery".into()),
        tls: Some(tradewind::config::TlsSetting::Off),
        ..Opts::default()
    })
    .await;
    let (_, cfg) = s.get("/api/config").await;
    assert_eq!(cfg["terminal"]["enabled"], false, "{cfg}");
    assert!(
        cfg["terminal"]["reason"]
            .as_str()
            .unwrap()
            .contains("HTTPS")
    );
    let sid = s.create_session("ask").await;
    let mut ws = ws_connect(&s).await;
    let r = call(&mut ws, json!({"type": "terminal_open", "session": sid})).await;
    assert_eq!(r["error"]["code"], "terminal_off", "{r}");
    s.stop().await;
}
