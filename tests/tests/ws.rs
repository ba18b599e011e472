//! Live runs over the WebSocket: identical sequences for every subscriber, lossless resume from
//! any point, the subscribe-during-write race, slow consumers, frame caps, commands.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tradewind::protocol::EventPayload;
use tradewind_tests::*;

fn long_reply(n: usize) -> Value {
    let text: String = (0..n).map(|i| format!("w{i} ")).collect();
    json!({"scripts": [{"turns": [{"text": text, "chunk_chars": 3, "delay_ms": 1}]}]})
}

/// Read frames until `run_finished`; returns them (event frames only).
async fn collect_until_finished(ws: &mut Ws) -> Vec<Value> {
    let mut out = Vec::new();
    while let Some(v) = ws_next(ws, Duration::from_secs(20)).await {
        if v.get("seq").is_none() {
            continue;
        }
        let done = v["type"] == "run_finished";
        out.push(v);
        if done {
            break;
        }
    }
    out
}

fn seqs(v: &[Value]) -> Vec<i64> {
    v.iter().map(|e| e["seq"].as_i64().unwrap()).collect()
}

#[tokio::test]
async fn subscribers_see_identical_sequences_and_resume_losslessly() {
    let s = TestServer::start(Opts {
        replay: Some(long_reply(600)),
        ..Opts::default()
    })
    .await;
    let sid = s.create_session("ask").await;
    let mut a = ws_connect(&s).await;
    let mut b = ws_connect(&s).await;
    ws_send(
        &mut a,
        json!({"type": "subscribe", "session": sid, "after": 0}),
    )
    .await;
    ws_send(
        &mut b,
        json!({"type": "subscribe", "session": sid, "after": 0}),
    )
    .await;
    // Start the run over the socket: a command with an ack.
    ws_send(
        &mut a,
        json!({"type": "prompt", "id": "r1", "session": sid, "text": "talk"}),
    )
    .await;
    let mut fa = Vec::new();
    let mut acked = false;
    while let Some(v) = ws_next(&mut a, Duration::from_secs(20)).await {
        if v["type"] == "ack" {
            assert_eq!(v["id"], "r1");
            assert!(v["result"]["run_id"].is_string());
            acked = true;
            continue;
        }
        let done = v["type"] == "run_finished";
        fa.push(v);
        if done {
            break;
        }
    }
    assert!(acked);
    let fb = collect_until_finished(&mut b).await;
    assert_eq!(fa, fb, "two subscribers, identical frames");
    assert_eq!(
        seqs(&fa),
        (1..=fa.len() as i64).collect::<Vec<_>>(),
        "no gap, no duplicate"
    );
    let deltas = fa.iter().filter(|e| e["type"] == "message_delta").count();
    assert!(
        (2..600).contains(&deltas),
        "deltas are coalesced ({deltas})"
    );
    // Reconnect at several points during a second run: the union equals a full subscriber's view.
    let mut full = ws_connect(&s).await;
    let last_seq = fa.last().unwrap()["seq"].as_i64().unwrap();
    ws_send(
        &mut full,
        json!({"type": "subscribe", "session": sid, "after": last_seq}),
    )
    .await;
    let run = s.prompt(&sid, "again").await;
    let mut got: Vec<Value> = Vec::new();
    let mut after = last_seq;
    let mut finished = false;
    for round in 0..50 {
        let mut c = ws_connect(&s).await;
        ws_send(
            &mut c,
            json!({"type": "subscribe", "session": sid, "after": after}),
        )
        .await;
        let take = 3 + (round * 7) % 11;
        for _ in 0..take {
            match ws_next(&mut c, Duration::from_secs(20)).await {
                Some(v) if v.get("seq").is_some() => {
                    after = v["seq"].as_i64().unwrap();
                    finished |= v["type"] == "run_finished" && v["run"] == run.as_str();
                    got.push(v);
                }
                _ => break,
            }
            if finished {
                break;
            }
        }
        drop(c);
        if finished {
            break;
        }
    }
    assert!(finished, "resumed until the end");
    let reference = collect_until_finished(&mut full).await;
    assert_eq!(seqs(&got), seqs(&reference));
    assert_eq!(got, reference);
    s.stop().await;
}

#[tokio::test]
async fn subscribe_while_events_are_appended_loses_nothing() {
    let s = TestServer::start(Opts::default()).await;
    let sid = s.create_session("ask").await;
    let bus = s.server.as_ref().unwrap().state.events.clone();
    let writer = {
        let bus = bus.clone();
        let sid = tradewind::protocol::SessionId::from(sid.clone());
        tokio::spawn(async move {
            for i in 0..1500 {
                bus.append(
                    &sid,
                    None,
                    &EventPayload::Error {
                        code: "tick".into(),
                        message: i.to_string(),
                        fatal: false,
                    },
                )
                .await
                .unwrap();
            }
        })
    };
    let mut clients = Vec::new();
    for k in 0..6 {
        tokio::time::sleep(Duration::from_millis(15 * k)).await;
        let mut c = ws_connect(&s).await;
        ws_send(
            &mut c,
            json!({"type": "subscribe", "session": sid, "after": 0}),
        )
        .await;
        clients.push(c);
    }
    writer.await.unwrap();
    for mut c in clients {
        let mut last = 0;
        while last < 1500 {
            let v = ws_next(&mut c, Duration::from_secs(10))
                .await
                .expect("frame");
            let seq = v["seq"].as_i64().unwrap();
            assert_eq!(seq, last + 1, "gap or duplicate");
            last = seq;
        }
    }
    s.stop().await;
}

#[tokio::test]
async fn slow_consumer_is_dropped_and_can_resume() {
    let s = TestServer::start(Opts::default()).await;
    let sid = tradewind::protocol::SessionId::from(s.create_session("ask").await);
    let bus = s.server.as_ref().unwrap().state.events.clone();
    let mut slow = ws_connect(&s).await;
    ws_send(
        &mut slow,
        json!({"type": "subscribe", "session": sid, "after": 0}),
    )
    .await;
    let mut healthy = ws_connect(&s).await;
    ws_send(
        &mut healthy,
        json!({"type": "subscribe", "session": sid, "after": 0}),
    )
    .await;
    let pad = "x".repeat(2000);
    let total = 20_000;
    let reader = tokio::spawn(async move {
        let mut n = 0;
        while n < total {
            match ws_next(&mut healthy, Duration::from_secs(30)).await {
                Some(v) if v.get("seq").is_some() => n += 1,
                Some(_) => {}
                None => break,
            }
        }
        n
    });
    for i in 0..total {
        bus.append(
            &sid,
            None,
            &EventPayload::Error {
                code: "bulk".into(),
                message: format!("{i}{pad}"),
                fatal: false,
            },
        )
        .await
        .unwrap();
    }
    assert_eq!(
        reader.await.unwrap(),
        total,
        "a reading client got everything"
    );
    // The slow client was closed with 1013; the frames it did get are a gap-free prefix.
    let mut last = 0;
    let mut close = None;
    loop {
        match tokio::time::timeout(Duration::from_secs(10), slow.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => {
                let v: Value = serde_json::from_str(&t).unwrap();
                if let Some(seq) = v["seq"].as_i64() {
                    assert_eq!(seq, last + 1);
                    last = seq;
                }
            }
            Ok(Some(Ok(Message::Close(f)))) => {
                close = f.map(|f| u16::from(f.code));
                break;
            }
            Ok(Some(Ok(_))) => {}
            Ok(Some(Err(_))) | Ok(None) => break,
            Err(_) => panic!("slow consumer was never dropped"),
        }
    }
    assert!(last < total, "the slow client was dropped before the end");
    if let Some(code) = close {
        assert_eq!(code, 1013);
    }
    // It resumes from its last seq and gets the rest.
    let mut again = ws_connect(&s).await;
    ws_send(
        &mut again,
        json!({"type": "subscribe", "session": sid, "after": last}),
    )
    .await;
    let mut next = last;
    while next < total {
        let v = ws_next(&mut again, Duration::from_secs(20))
            .await
            .expect("frame");
        assert_eq!(v["seq"].as_i64().unwrap(), next + 1);
        next += 1;
    }
    s.stop().await;
}

#[tokio::test]
async fn oversized_frames_close_1009_and_bad_commands_get_typed_errors() {
    let s = TestServer::start(Opts::default()).await;
    let mut ws = ws_connect(&s).await;
    ws_send(&mut ws, json!({"type": "launch_missiles"})).await;
    let v = ws_next(&mut ws, Duration::from_secs(5)).await.unwrap();
    assert_eq!(
        (v["type"].as_str(), v["error"]["code"].as_str()),
        (Some("error"), Some("bad_request"))
    );
    ws_send(
        &mut ws,
        json!({"type": "subscribe", "session": "01ARZ3NDEKTSV4RRFFQ69G5FAV", "after": 0}),
    )
    .await;
    let v = ws_next(&mut ws, Duration::from_secs(5)).await.unwrap();
    assert_eq!(v["error"]["code"], "not_found");
    ws_send(&mut ws, json!({"type": "approval", "id": "q", "approval": "01ARZ3NDEKTSV4RRFFQ69G5FAV", "decision": "once"})).await;
    let v = ws_next(&mut ws, Duration::from_secs(5)).await.unwrap();
    assert_eq!(
        (v["id"].as_str(), v["error"]["code"].as_str()),
        (Some("q"), Some("not_found"))
    );
    let big = "x".repeat(200 * 1024);
    let _ = ws.send(Message::Text(big.into())).await;
    let mut code = None;
    while let Ok(Some(m)) = tokio::time::timeout(Duration::from_secs(5), ws.next()).await {
        match m {
            Ok(Message::Close(f)) => {
                code = f.map(|f| u16::from(f.code));
                break;
            }
            Ok(_) => continue,
            Err(_) => break,
        }
    }
    assert_eq!(code, Some(1009));
    s.stop().await;
}

/// A run that starts at once uses the session as the prompt read it; one that waited in the
/// queue reads the session again when it starts, so a mode change made meanwhile applies.
#[tokio::test]
async fn a_queued_run_starts_with_the_session_as_it_is_when_it_starts() {
    let s = TestServer::start(Opts {
        replay: Some(long_reply(300)),
        ..Opts::default()
    })
    .await;
    let sid = s.create_session("ask").await;
    let first = s.prompt(&sid, "one").await;
    let second = s.prompt(&sid, "two").await;
    let (st, v) = s
        .send(
            reqwest::Method::PATCH,
            &format!("/api/sessions/{sid}"),
            json!({"mode": "full"}),
        )
        .await;
    assert_eq!(st, 200, "{v}");
    s.wait_run_finished(&sid, &second).await;
    let modes: Vec<(String, String)> = s
        .events(&sid)
        .await
        .iter()
        .filter(|e| e["type"] == "run_started")
        .map(|e| {
            (
                e["run"].as_str().unwrap().to_string(),
                e["mode"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        modes,
        [(first, "ask".to_string()), (second, "full".to_string())],
        "the first run kept the mode it started with; the queued one took the new mode"
    );
    s.stop().await;
}

/// `subscribe_sessions`: the session list follows every session over the socket (created,
/// running, back to idle, renamed, deleted) with no polling.
#[tokio::test]
async fn the_session_list_is_driven_by_the_socket() {
    // A reply slow enough (800 chunks, 1 ms apart) that the running state is seen between
    // coalesced updates.
    let s = TestServer::start(Opts {
        replay: Some(long_reply(600)),
        ..Opts::default()
    })
    .await;
    let mut ws = ws_connect(&s).await;
    ws_send(&mut ws, json!({"type": "subscribe_sessions"})).await;
    // A ping round trip proves the subscription is in place before anything changes.
    ws_send(&mut ws, json!({"type": "ping", "id": "p1"})).await;
    while let Some(v) = ws_next(&mut ws, Duration::from_secs(5)).await {
        if v["id"] == "p1" {
            break;
        }
    }
    let sid = s.create_session("ask").await;
    let next_update = async |ws: &mut Ws, want: &dyn Fn(&Value) -> bool| -> Value {
        loop {
            let v = ws_next(ws, Duration::from_secs(10))
                .await
                .expect("a session frame");
            if v["session"] == sid.as_str() && want(&v) {
                return v;
            }
        }
    };
    let v = next_update(&mut ws, &|v| v["type"] == "session_updated").await;
    assert_eq!(v["data"]["status"], "idle");
    let run = s.prompt(&sid, "hi").await;
    let v = next_update(&mut ws, &|v| v["data"]["status"] == "running").await;
    assert_eq!(v["type"], "session_updated");
    s.wait_run_finished(&sid, &run).await;
    // The first prompt named the session.
    next_update(&mut ws, &|v| {
        v["data"]["status"] == "idle" && v["data"]["title"] == "hi"
    })
    .await;
    let (st, _) = s
        .send(
            reqwest::Method::PATCH,
            &format!("/api/sessions/{sid}"),
            json!({"title": "Renamed"}),
        )
        .await;
    assert_eq!(st, 200);
    next_update(&mut ws, &|v| v["data"]["title"] == "Renamed").await;
    let (st, _) = s
        .send(
            reqwest::Method::DELETE,
            &format!("/api/sessions/{sid}"),
            json!({}),
        )
        .await;
    assert_eq!(st, 204);
    next_update(&mut ws, &|v| v["type"] == "session_deleted").await;
    s.stop().await;
}

/// The queue behind an active run: listed in order, edited before it starts, removed, and
/// dropped with the run by `cancel {drop_queue: true}`.
#[tokio::test]
async fn queued_inputs_are_listed_edited_removed_and_dropped() {
    let slow: String = (0..3000).map(|i| format!("w{i} ")).collect();
    let s = TestServer::start(Opts {
        replay: Some(json!({"scripts": [
            {"match": "first", "turns": [{"text": slow, "chunk_chars": 3, "delay_ms": 1}]},
            {"match": "EDITED", "turns": [{"text": "edited answer"}]},
            {"turns": [{"text": "plain answer"}]},
        ]})),
        ..Opts::default()
    })
    .await;
    let sid = s.create_session("ask").await;
    let first = s.prompt(&sid, "first").await;
    // The first run is active (its session is running) before the others queue up.
    s.wait_event(&sid, |e| e["type"] == "message_delta").await;
    let second = s.prompt(&sid, "second").await;
    let third = s.prompt(&sid, "third").await;
    let fourth = s.prompt(&sid, "fourth").await;
    let (st, q) = s.get(&format!("/api/sessions/{sid}/queue")).await;
    assert_eq!(st, 200);
    let ids: Vec<&str> = q["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [second.as_str(), third.as_str(), fourth.as_str()]);
    assert_eq!(q["data"][0]["position"], 1);
    assert_eq!(q["data"][0]["text"], "second");
    // Edit the second, remove the third.
    let (st, _) = s
        .send(
            reqwest::Method::PATCH,
            &format!("/api/sessions/{sid}/queue/{second}"),
            json!({"text": "second, EDITED"}),
        )
        .await;
    assert_eq!(st, 204);
    let (st, _) = s
        .send(
            reqwest::Method::PATCH,
            &format!("/api/sessions/{sid}/queue/{second}"),
            json!({"text": "  "}),
        )
        .await;
    assert_eq!(st, 422, "empty text is refused");
    let (st, _) = s
        .send(
            reqwest::Method::DELETE,
            &format!("/api/sessions/{sid}/queue/{third}"),
            json!({}),
        )
        .await;
    assert_eq!(st, 204);
    let (st, _) = s
        .send(
            reqwest::Method::DELETE,
            &format!("/api/sessions/{sid}/queue/{first}"),
            json!({}),
        )
        .await;
    assert_eq!(st, 409, "the active run is not in the queue");
    let (_, q) = s.get(&format!("/api/sessions/{sid}/queue")).await;
    assert_eq!(q["data"].as_array().unwrap().len(), 2);
    assert_eq!(q["data"][0]["text"], "second, EDITED");
    // Cancel the first and let the queue run: the edited text is what the second run used.
    let (st, _) = s
        .post(&format!("/api/runs/{first}/cancel"), json!({}))
        .await;
    assert_eq!(st, 200);
    let fin = s.wait_run_finished(&sid, &second).await;
    assert_eq!(fin["status"], "completed");
    let events = s.events(&sid).await;
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "user_message" && e["text"] == "second, EDITED")
    );
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "message_complete" && e["text"] == "edited answer")
    );
    assert_eq!(
        s.wait_run_finished(&sid, &third).await["status"],
        "cancelled"
    );
    s.wait_run_finished(&sid, &fourth).await;
    // Cancel with drop_queue: the inputs behind the run go too.
    let a = s.prompt(&sid, "first again").await;
    s.wait_event(&sid, |e| {
        e["type"] == "run_started" && e["run_id"] == a.as_str()
    })
    .await;
    let b = s.prompt(&sid, "b").await;
    let c = s.prompt(&sid, "c").await;
    let (st, v) = s
        .post(
            &format!("/api/runs/{a}/cancel"),
            json!({"drop_queue": true}),
        )
        .await;
    assert_eq!((st, v["cancelled"].as_bool()), (200, Some(true)));
    for r in [&a, &b, &c] {
        assert_eq!(s.wait_run_finished(&sid, r).await["status"], "cancelled");
    }
    let (_, q) = s.get(&format!("/api/sessions/{sid}/queue")).await;
    assert!(q["data"].as_array().unwrap().is_empty());
    s.stop().await;
}
