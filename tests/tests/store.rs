//! The same store suite against SQLite and against PostgreSQL (`TW_TEST_POSTGRES_URL`, which
//! `.ci/run` sets after starting a throwaway cluster; without it the Postgres half is skipped
//! with a notice — CI sets TW_REQUIRE_POSTGRES=1 so a missing server fails instead).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use serde_json::json;

use tradewind::protocol::{
    Agent, ApprovalScope, Effect, MessageRole, Mode, RunStatus, RunTrigger, SessionStatus,
};
use tradewind::store::{
    ApprovalStatus, NewApproval, NewEvent, NewMessage, SessionPatch, Store, StoreError,
};
use tradewind_tests::{Opts, TempDir, TestServer, binary};

/// Web Push subscriptions: upsert by endpoint, live only while their owner is, delivery
/// results, deletion. Leaves one subscription owned by login session L1.
async fn push_subscriptions(store: &Store) {
    use tradewind::store::{PushOwner, PushSubscriptionRow};
    let row =
        |id: &str, endpoint: &str, login: Option<&str>, token: Option<&str>| PushSubscriptionRow {
            id: id.into(),
            endpoint: endpoint.into(),
            p256dh: "k".into(),
            auth: "a".into(),
            login_session_id: login.map(Into::into),
            token_id: token.map(Into::into),
            user_agent: None,
            created_at: 1,
            last_sent_at: None,
            last_error: None,
        };
    store
        .create_api_token("PT", "push", "pth", "read,prompt")
        .await
        .unwrap();
    let a = store
        .upsert_push_subscription(&row("P1", "https://p/1", Some("L1"), None))
        .await
        .unwrap();
    let again = store
        .upsert_push_subscription(&PushSubscriptionRow {
            p256dh: "k2".into(),
            ..row("P9", "https://p/1", Some("L1"), None)
        })
        .await
        .unwrap();
    assert_eq!(
        (again.id.as_str(), again.p256dh.as_str()),
        (a.id.as_str(), "k2")
    );
    store
        .upsert_push_subscription(&row("P2", "https://p/2", Some("gone-login"), None))
        .await
        .unwrap();
    store
        .upsert_push_subscription(&row("P3", "https://p/3", None, Some("PT")))
        .await
        .unwrap();
    let live: Vec<String> = store
        .live_push_subscriptions()
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(
        live,
        ["P1", "P3"],
        "an unknown login session owns nothing live"
    );
    store
        .mark_push_result("P1", Some("refused (500)"))
        .await
        .unwrap();
    store.mark_push_result("P3", None).await.unwrap();
    let live = store.live_push_subscriptions().await.unwrap();
    assert_eq!(live[0].last_error.as_deref(), Some("refused (500)"));
    assert!(live[1].last_sent_at.is_some() && live[1].last_error.is_none());
    store
        .delete_push_subscriptions_of(PushOwner::Token("PT"))
        .await
        .unwrap();
    store.delete_push_endpoint("https://p/2").await.unwrap();
    assert!(store.delete_push_subscription("P1").await.unwrap());
    assert!(!store.delete_push_subscription("P1").await.unwrap());
    store
        .upsert_push_subscription(&row("P4", "https://p/4", Some("L1"), None))
        .await
        .unwrap();
    assert_eq!(store.live_push_subscriptions().await.unwrap().len(), 1);
}

async fn suite(store: Store) {
    let sid: tradewind::protocol::SessionId = tradewind::util::new_id().into();
    let s = store
        .create_session(&sid, "t", "/w", Agent::Build.into(), Mode::Ask, None)
        .await
        .unwrap();
    assert_eq!(
        (s.last_seq, s.status.as_str(), s.archived),
        (0, "idle", false)
    );
    // Gap-free seq under concurrent appends.
    let mut tasks = Vec::new();
    for t in 0..8 {
        let st = store.clone();
        let sid = sid.clone();
        tasks.push(tokio::spawn(async move {
            for i in 0..40 {
                let mut tries = 0;
                loop {
                    let e = NewEvent {
                        run_id: None,
                        kind: "x".into(),
                        data: format!("{{\"type\":\"x\",\"t\":{t},\"i\":{i}}}"),
                        ends_run: None,
                    };
                    match st.append_batch(&sid, &[e], &[]).await {
                        Ok(_) => break,
                        Err(StoreError::Busy) if tries < 50 => tries += 1,
                        Err(e) => panic!("{e}"),
                    }
                }
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let ev = store.list_events(&sid, 0, 10_000).await.unwrap();
    let seqs: Vec<i64> = ev.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=320).collect::<Vec<_>>());
    assert_eq!(store.list_events(&sid, 300, 5).await.unwrap().len(), 5);
    // Paging back from the end: the newest before a seq, oldest first, within `after`.
    let back: Vec<i64> = store
        .list_events_before(&sid, 0, 321, 4)
        .await
        .unwrap()
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(back, [317, 318, 319, 320]);
    let window: Vec<i64> = store
        .list_events_before(&sid, 10, 13, 100)
        .await
        .unwrap()
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(window, [11, 12]);
    assert_eq!(store.get_session(&sid).await.unwrap().last_seq, 320);
    assert!(matches!(
        store
            .append_batch(
                &"nope".into(),
                &[NewEvent {
                    run_id: None,
                    kind: "x".into(),
                    data: "{}".into(),
                    ends_run: None,
                }],
                &[]
            )
            .await,
        Err(StoreError::NotFound)
    ));
    // Group commit: one seq range per batch, exact bytes back, messages in the same transaction.
    let odd = "{\"type\":\"x\",\"s\":\"quote \\\" backslash \\\\ nul \\u0000 é 😀\"}";
    let events: Vec<NewEvent> = (0..300)
        .map(|i| NewEvent {
            run_id: (i % 2 == 0).then(|| format!("R{i}").into()),
            kind: if i == 7 { "odd".into() } else { "x".into() },
            data: if i == 7 {
                odd.to_string()
            } else {
                format!("{{\"i\":{i}}}")
            },
            ends_run: None,
        })
        .collect();
    let messages = vec![
        NewMessage {
            id: tradewind::util::new_id().into(),
            run_id: None,
            role: MessageRole::User,
            parts: "{\"text\":\"héllo\"}".into(),
        },
        NewMessage {
            id: tradewind::util::new_id().into(),
            run_id: Some("R0".into()),
            role: MessageRole::Assistant,
            parts: odd.into(),
        },
    ];
    let rows = store.append_batch(&sid, &events, &messages).await.unwrap();
    assert_eq!(rows.first().unwrap().seq, 321);
    assert_eq!(rows.last().unwrap().seq, 620);
    let stored = store.list_events(&sid, 320, 1000).await.unwrap();
    assert_eq!(stored.len(), 300);
    for (a, b) in stored.iter().zip(&events) {
        assert_eq!((&a.run_id, &a.kind, &a.data), (&b.run_id, &b.kind, &b.data));
    }
    assert_eq!(stored[7].data, odd, "bytes survive exactly");
    let msgs = store.list_messages(&sid, None, 10).await.unwrap();
    assert_eq!(msgs.len(), 2);
    assert_eq!(
        (
            msgs[0].role.as_str(),
            msgs[0].parts.as_str(),
            msgs[0].run_id.as_deref()
        ),
        ("user", "{\"text\":\"héllo\"}", None)
    );
    assert_eq!(
        (msgs[1].parts.as_str(), msgs[1].run_id.as_deref()),
        (odd, Some("R0"))
    );
    assert_eq!(store.get_session(&sid).await.unwrap().last_seq, 620);
    assert!(store.append_batch(&sid, &[], &[]).await.unwrap().is_empty());
    assert!(matches!(
        store.append_batch(&"nope".into(), &events[..1], &[]).await,
        Err(StoreError::NotFound)
    ));
    let stray = NewMessage {
        id: tradewind::util::new_id().into(),
        run_id: None,
        role: MessageRole::User,
        parts: "{}".into(),
    };
    assert!(
        store
            .append_batch(&"nope".into(), &[], &[stray])
            .await
            .is_err(),
        "no message without its session"
    );
    // A batch that fails part-way (a message id stored already) stores none of it, and the
    // writer goes on: the next batch continues the range.
    assert!(
        store
            .append_batch(&sid, &events[..3], &messages[..1])
            .await
            .is_err()
    );
    assert_eq!(store.list_events(&sid, 620, 10).await.unwrap().len(), 0);
    assert_eq!(store.get_session(&sid).await.unwrap().last_seq, 620);
    let rows = store.append_batch(&sid, &events[..1], &[]).await.unwrap();
    assert_eq!(rows[0].seq, 621, "the next batch continues the range");
    // Sessions.
    let s = store
        .update_session(
            &sid,
            &SessionPatch {
                title: Some("t2".into()),
                archived: Some(true),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!((s.title.as_str(), s.archived), ("t2", true));
    assert_eq!(store.list_sessions(None, 10, false).await.unwrap().len(), 0);
    assert_eq!(store.list_sessions(None, 10, true).await.unwrap().len(), 1);
    // Runs: compare-and-set transitions.
    let rid: tradewind::protocol::RunId = tradewind::util::new_id().into();
    store
        .create_run(&rid, &sid, RunTrigger::Prompt, "hi", Agent::Build.into())
        .await
        .unwrap();
    assert_eq!(
        store.get_session(&sid).await.unwrap().status,
        SessionStatus::Running
    );
    assert!(store.start_run(&rid).await.unwrap());
    assert!(!store.start_run(&rid).await.unwrap());
    let end = |status| tradewind::store::RunEndRow {
        run_id: rid.clone(),
        status,
        error: None,
        usage: "{}".into(),
    };
    assert!(store.finish_run(&end(RunStatus::Completed)).await.unwrap());
    assert!(
        !store.finish_run(&end(RunStatus::Failed)).await.unwrap(),
        "a terminal state is never left"
    );
    assert_eq!(
        store.get_run(&rid).await.unwrap().status,
        RunStatus::Completed
    );
    // Approvals: answered once.
    let aid = tradewind::protocol::ApprovalId::from(tradewind::util::new_id());
    store
        .create_approval(&NewApproval {
            id: aid.clone(),
            session_id: sid.clone(),
            run_id: rid.clone(),
            call_id: "c".into(),
            tool: "shell".into(),
            effect: Effect::Process,
            scope: ApprovalScope::Effect,
            grant_key: "effect:process".into(),
            input: "{}".into(),
            reason: "r".into(),
            prefix: Some(vec!["cargo".into(), "test".into()]),
            detail: tradewind::store::ApprovalDetail {
                reasons: vec!["r".into()],
                warnings: vec!["mentions ~/.ssh".into()],
                directory: None,
                session_keeps: vec!["every command (process)".into()],
            },
        })
        .await
        .unwrap();
    let detail: tradewind::store::ApprovalDetail = serde_json::from_str(
        store
            .get_approval(&aid)
            .await
            .unwrap()
            .detail
            .as_deref()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(detail.warnings, ["mentions ~/.ssh"]);
    assert_eq!(detail.session_keeps, ["every command (process)"]);
    assert_eq!(
        store.get_session(&sid).await.unwrap().status,
        SessionStatus::Waiting
    );
    assert_eq!(store.pending_approvals(&sid).await.unwrap().len(), 1);
    assert!(
        store
            .decide_approval(&aid, ApprovalStatus::Once)
            .await
            .unwrap()
    );
    assert!(
        !store
            .decide_approval(&aid, ApprovalStatus::Deny)
            .await
            .unwrap()
    );
    store.add_grant(&sid, "effect:write").await.unwrap();
    store.add_grant(&sid, "effect:write").await.unwrap();
    assert_eq!(
        store.list_grants(&sid).await.unwrap(),
        vec!["effect:write".to_string()]
    );
    assert_eq!(
        store.get_approval(&aid).await.unwrap().prefix.as_deref(),
        Some(r#"["cargo","test"]"#)
    );
    // Workspace rules reach every session of that workspace; revoking removes one.
    let ws = store.get_session(&sid).await.unwrap().workspace;
    store
        .add_workspace_grant(&ws, "prefix:[\"make\"]")
        .await
        .unwrap();
    let rows = store.grant_rows(&sid).await.unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1].workspace.as_deref(), Some(ws.as_str()));
    assert!(
        store
            .revoke_grant(&sid, Some(&ws), "prefix:[\"make\"]")
            .await
            .unwrap()
    );
    assert!(!store.revoke_grant(&sid, None, "nope").await.unwrap());
    assert!(
        store
            .revoke_grant(&sid, None, "effect:write")
            .await
            .unwrap()
    );
    assert!(store.list_grants(&sid).await.unwrap().is_empty());
    store.add_grant(&sid, "effect:write").await.unwrap();
    // Messages keep creation order.
    for i in 0..5 {
        store
            .append_batch(
                &sid,
                &[],
                &[NewMessage {
                    id: tradewind::util::new_id().into(),
                    run_id: Some(rid.clone()),
                    role: MessageRole::User,
                    parts: format!("{{\"text\":\"{i}\"}}"),
                }],
            )
            .await
            .unwrap();
    }
    let m = store.list_messages(&sid, None, 100).await.unwrap();
    assert_eq!(m.len(), 7, "2 from the batch above, then 5");
    assert_eq!(m.last().unwrap().parts, "{\"text\":\"4\"}");
    // Auth records.
    store
        .create_login_session(&tradewind::store::NewLoginSession {
            id: "L1",
            token_hash: "h1",
            ttl_ms: 60_000,
            user_agent: Some("curl/8"),
            ip: Some("127.0.0.1"),
        })
        .await
        .unwrap();
    assert_eq!(
        store
            .find_login_session("h1", 60_000)
            .await
            .unwrap()
            .as_deref(),
        Some("L1")
    );
    assert_eq!(
        store.find_login_session("h1", -1_000).await.unwrap(),
        None,
        "a device idle for longer than the idle limit is signed out"
    );
    store.touch_login_session("L1", "::1").await.unwrap();
    push_subscriptions(&store).await;
    let devices = store.list_login_sessions(60_000).await.unwrap();
    assert_eq!(devices.len(), 1);
    assert_eq!(devices[0].user_agent.as_deref(), Some("curl/8"));
    assert_eq!(devices[0].last_ip.as_deref(), Some("::1"));
    assert!(devices[0].expires_at > devices[0].created_at);
    assert!(matches!(
        store.revoke_login_session("nope").await,
        Err(StoreError::NotFound)
    ));
    store.set_password_hash("$argon2id$fake").await.unwrap();
    assert!(
        store.live_push_subscriptions().await.unwrap().is_empty(),
        "a new password drops the devices' push subscriptions"
    );
    assert_eq!(
        store.find_login_session("h1", 60_000).await.unwrap(),
        None,
        "a new password signs everyone out"
    );
    assert!(store.list_login_sessions(60_000).await.unwrap().is_empty());
    store
        .create_api_token("T1", "ci", "th", "read,prompt")
        .await
        .unwrap();
    assert!(matches!(
        store.create_api_token("T2", "ci", "th", "read").await,
        Err(StoreError::Conflict(_))
    ));
    store.revoke_api_token("T1").await.unwrap();
    assert_eq!(store.find_api_token("th").await.unwrap(), None);
    store.put_setting("k", "v1").await.unwrap();
    store.put_setting("k", "v2").await.unwrap();
    assert_eq!(store.get_setting("k").await.unwrap().as_deref(), Some("v2"));
    // A value the code does not know is an error naming the row and the column, never a
    // silent fallback (string ↔ enum happens in the store only).
    sqlx::query("UPDATE sessions SET mode = 'turbo' WHERE id = $1")
        .bind(&sid)
        .execute(store.pool())
        .await
        .unwrap();
    match store.get_session(&sid).await {
        Err(StoreError::Other(e)) => {
            let msg = format!("{e:#}");
            assert!(
                msg.contains(sid.as_str()) && msg.contains("column mode"),
                "{msg}"
            );
        }
        other => panic!("an unknown mode read as {other:?}"),
    }
    sqlx::query("UPDATE sessions SET mode = 'ask' WHERE id = $1")
        .bind(&sid)
        .execute(store.pool())
        .await
        .unwrap();
    assert_eq!(store.get_session(&sid).await.unwrap().mode, Mode::Ask);
    // Search: prompts, answers, tool calls and results are indexed as they are appended.
    let said = [
        (
            "user_message",
            json!({"type": "user_message", "message_id": "m1", "text": "Fix the flaky WebSocket test"}),
        ),
        (
            "tool_call",
            json!({"type": "tool_call", "call_id": "c1", "tool": "shell", "effect": "process", "input": {"command": "cargo test flaky_ws"}}),
        ),
        (
            "tool_result",
            json!({"type": "tool_result", "call_id": "c1", "tool": "shell", "ok": false, "text": "thread 'flaky_ws' panicked at tests/ws.rs", "parts": []}),
        ),
        (
            "message_complete",
            json!({"type": "message_complete", "message_id": "m2", "text": "Fixed: the test waited on a timer.", "reasoning": ""}),
        ),
        (
            "run_started",
            json!({"type": "run_started", "text": "flaky"}),
        ),
    ];
    let rows: Vec<NewEvent> = said
        .iter()
        .map(|(k, d)| NewEvent {
            run_id: None,
            kind: (*k).into(),
            data: d.to_string(),
            ends_run: None,
        })
        .collect();
    store.append_batch(&sid, &rows, &[]).await.unwrap();
    let q = tradewind::store::query_terms;
    let hits = store.search(&q("flaky"), None, 10).await.unwrap();
    let mut kinds: Vec<&str> = hits.iter().map(|h| h.kind.as_str()).collect();
    kinds.sort_unstable();
    assert_eq!(
        kinds,
        ["tool_call", "tool_result", "user_message"],
        "{hits:?}"
    );
    assert!(hits.iter().all(|h| h.session_id == sid && h.seq > 320));
    assert!(hits.iter().any(|h| h.snippet.contains('\u{1}')), "{hits:?}");
    // Every word must match; the last one is a prefix.
    let hits = store
        .search(&q("flaky webs"), Some(&sid), 10)
        .await
        .unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0].kind, "user_message");
    assert!(
        store
            .search(
                &q("timer"),
                Some(&tradewind::protocol::SessionId::from("other")),
                10
            )
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(store.search(&q("timer"), None, 10).await.unwrap().len(), 1);
    assert!(
        store
            .search(&q("\" OR * NEAR("), None, 10)
            .await
            .unwrap()
            .is_empty()
    );
    // Memories: a workspace's own and the user's, found by any word, a key replacing.
    let m1 = store
        .write_memory(
            "workspace",
            "/ws/a",
            Some("tests"),
            "Run the tests with make check",
        )
        .await
        .unwrap();
    store
        .write_memory(
            "workspace",
            "/ws/b",
            None,
            "Another project runs tests with tox",
        )
        .await
        .unwrap();
    store
        .write_memory("user", "", None, "Prefers short answers")
        .await
        .unwrap();
    let found = store
        .search_memories("/ws/a", "how do I run the tests", 5)
        .await
        .unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].id, m1.id);
    let again = store
        .write_memory(
            "workspace",
            "/ws/a",
            Some("tests"),
            "Run the tests with just",
        )
        .await
        .unwrap();
    assert_eq!(again.id, m1.id, "the same key replaces");
    let all = store.search_memories("/ws/a", "", 10).await.unwrap();
    assert_eq!(all.len(), 2, "its own and the user's: {all:?}");
    assert!(
        store
            .search_memories("/ws/a", "\" OR * NEAR(", 5)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(store.delete_memory(&m1.id).await.unwrap());
    // Usage per model call, summed by session, model and day.
    let u = tradewind::protocol::Usage {
        input_tokens: 1000,
        output_tokens: 200,
        cached_input_tokens: 400,
        reasoning_tokens: 0,
        cost_usd: Some(0.003),
        estimated: false,
    };
    for (i, cost) in [Some(0.003), None].into_iter().enumerate() {
        let id = format!("call{i}");
        store
            .record_model_call(&tradewind::store::NewModelCall {
                id: &id,
                session_id: &sid,
                run_id: None,
                provider: "openai",
                model: if i == 0 { "gpt-4o" } else { "local" },
                purpose: "turn",
                usage: &tradewind::protocol::Usage {
                    cost_usd: cost,
                    ..u
                },
                context_window: 128_000,
                at: 86_400_000 * 20_000 + i as i64,
            })
            .await
            .unwrap();
    }
    let by_model = store
        .usage_report(0, i64::MAX, tradewind::store::UsageGroup::Model, None)
        .await
        .unwrap();
    assert_eq!(by_model.len(), 2);
    assert_eq!(by_model[0].key, "openai/gpt-4o");
    assert!((by_model[0].cost_usd - 0.003).abs() < 1e-12);
    assert_eq!(by_model[1].unpriced_calls, 1);
    let by_day = store
        .usage_report(0, i64::MAX, tradewind::store::UsageGroup::Day, Some(&sid))
        .await
        .unwrap();
    assert_eq!(by_day.len(), 1);
    assert_eq!(by_day[0].key, "20000");
    assert_eq!((by_day[0].calls, by_day[0].input_tokens), (2, 2000));
    let (session_spent, day_spent) = store.spent(&sid, 86_400_000 * 20_000).await.unwrap();
    assert!((session_spent - 0.003).abs() < 1e-12 && (day_spent - 0.003).abs() < 1e-12);
    let last = store.last_model_call(&sid).await.unwrap().unwrap();
    assert_eq!(
        (last.model.as_str(), last.context_window),
        ("local", 128_000)
    );
    statuses_are_bound(&store, &sid).await;
    // Deleting a session removes what it owns.
    store.delete_session(&sid).await.unwrap();
    assert!(
        store
            .search(&q("flaky"), None, 10)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(store.list_events(&sid, 0, 10).await.unwrap().is_empty());
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
}

#[tokio::test]
async fn sqlite_store_suite() {
    let d = TempDir::new("db");
    let store = Store::open_sqlite(&d.path().join("t.db")).await.unwrap();
    suite(store.clone()).await;
    store.close().await;
    // Reopening runs no migration twice and keeps data.
    let again = Store::open_sqlite(&d.path().join("t.db")).await.unwrap();
    assert_eq!(again.integrity_check().await.unwrap(), "ok");
}

/// The event log's connection never checkpoints inside a commit; a task of its own does, once
/// the log has been written and `CHECKPOINT_EVERY` has passed. Seen from outside: what the log
/// wrote reaches the main database file (out of the WAL) without any other write.
#[tokio::test]
async fn sqlite_event_log_is_checkpointed_off_the_commit_path() {
    let d = TempDir::new("db-ckpt");
    let db = d.path().join("t.db");
    let store = Store::open_sqlite(&db).await.unwrap();
    let sid: tradewind::protocol::SessionId = tradewind::util::new_id().into();
    store
        .create_session(&sid, "t", "/w", Agent::Build.into(), Mode::Ask, None)
        .await
        .unwrap();
    let size = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let blob = "x".repeat(4000);
    let events: Vec<NewEvent> = (0..100)
        .map(|i| NewEvent {
            run_id: None,
            kind: "x".into(),
            data: format!("{{\"type\":\"x\",\"i\":{i},\"pad\":\"{blob}\"}}"),
            ends_run: None,
        })
        .collect();
    // 2 MB of events, then a pause longer than CHECKPOINT_EVERY and one more small batch, which
    // lets the checkpoint task start.
    for _ in 0..5 {
        store.append_batch(&sid, &events, &[]).await.unwrap();
    }
    tokio::time::sleep(tradewind::store::CHECKPOINT_EVERY + std::time::Duration::from_millis(100))
        .await;
    store.append_batch(&sid, &events[..1], &[]).await.unwrap();
    let mut moved = false;
    for _ in 0..100 {
        if size(&db) >= 2_000_000 {
            moved = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(
        moved,
        "the log's pages were checkpointed into the database file (db {} bytes, wal {} bytes)",
        size(&db),
        size(&d.path().join("t.db-wal"))
    );
    assert_eq!(store.list_events(&sid, 0, 1000).await.unwrap().len(), 501);
    store.close().await;
}

#[tokio::test]
async fn postgres_store_suite() {
    let Ok(url) = std::env::var("TW_TEST_POSTGRES_URL") else {
        assert!(
            std::env::var("TW_REQUIRE_POSTGRES").is_err(),
            "TW_REQUIRE_POSTGRES is set but TW_TEST_POSTGRES_URL is not"
        );
        eprintln!(
            "postgres_store_suite: TW_TEST_POSTGRES_URL not set; skipped (the test script sets it)"
        );
        return;
    };
    // A fresh database per run so the suite starts clean.
    let admin = Store::connect(&url).await.unwrap();
    let db = format!("tw_{}", tradewind::util::new_id().to_lowercase());
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {db}")))
        .execute(admin.pool())
        .await
        .unwrap();
    let base = url.rsplit_once('/').map(|(b, _)| b.to_string()).unwrap();
    let store = Store::connect(&format!("{base}/{db}")).await.unwrap();
    suite(store.clone()).await;
    store.close().await;
    let _ = Arc::new(());
}

/// `tradewind backup` while a run streams: a 0600 file, created only if absent, that
/// `tradewind check` accepts and that holds every event stored up to the snapshot, identical.
#[tokio::test]
async fn backup_taken_mid_run_restores_every_event() {
    use std::os::unix::fs::PermissionsExt;
    let slow: String = (0..400).map(|i| format!("w{i} ")).collect();
    let script = serde_json::json!({"scripts": [{"turns": [{"text": slow, "chunk_chars": 8, "delay_ms": 5}]}]});
    let s = TestServer::start(Opts {
        replay: Some(script),
        ..Opts::default()
    })
    .await;
    let sid = tradewind::protocol::SessionId::from(s.create_session("ask").await);
    let run = s.prompt(&sid, "talk").await;
    s.wait_event(&sid, |e| e["type"] == "message_delta").await;
    let out = TempDir::new("backup");
    let file = out.path().join("tradewind.db");
    let backup = std::process::Command::new(binary())
        .args(["backup", file.to_str().unwrap()])
        .env("TRADEWIND_HOME", s.state.path())
        .env_remove("DATABASE_URL")
        .output()
        .unwrap();
    assert!(
        backup.status.success(),
        "{}",
        String::from_utf8_lossy(&backup.stderr)
    );
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let again = std::process::Command::new(binary())
        .args(["backup", file.to_str().unwrap()])
        .env("TRADEWIND_HOME", s.state.path())
        .env_remove("DATABASE_URL")
        .output()
        .unwrap();
    assert!(
        !again.status.success(),
        "an existing file is never overwritten"
    );
    s.wait_run_finished(&sid, &run).await;
    let check = std::process::Command::new(binary())
        .args(["check"])
        .env("TRADEWIND_HOME", out.path())
        .env_remove("DATABASE_URL")
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&check.stdout);
    assert!(
        check.status.success() && report.contains("integrity: ok"),
        "{report}"
    );
    let restored = tradewind::store::Store::open_sqlite(&file).await.unwrap();
    let copied = restored.list_events(&sid, 0, 100_000).await.unwrap();
    let live = s
        .server
        .as_ref()
        .unwrap()
        .state
        .store
        .list_events(&sid, 0, 100_000)
        .await
        .unwrap();
    assert!(
        !copied.is_empty() && copied.len() < live.len(),
        "a mid-run snapshot: {} of {}",
        copied.len(),
        live.len()
    );
    for (a, b) in copied.iter().zip(live.iter()) {
        assert_eq!((a.seq, &a.kind, &a.data), (b.seq, &b.kind, &b.data));
    }
    restored.close().await;
    s.stop().await;
}

/// `migrations/sqlite-schema.sql`, which a new SQLite file is made from, is what migrating an
/// empty file one version at a time makes, stamped with those migrations (a snapshot with
/// another stamp is not used). `TRADEWIND_BLESS=1` rewrites it after a migration is added.
#[tokio::test]
async fn the_sqlite_schema_snapshot_is_what_the_migrations_make() {
    use sqlx::Connection;
    use tradewind::store::{SQLITE_MIGRATOR, SQLITE_SCHEMA, sqlite_schema_snapshot};
    sqlx::any::install_default_drivers();
    let d = TempDir::new("db-snapshot");
    let url = format!(
        "sqlite://{}?mode=rwc",
        d.path().join("stepwise.db").display()
    );
    let mut conn = sqlx::AnyConnection::connect(&url).await.unwrap();
    SQLITE_MIGRATOR.run(&mut conn).await.unwrap();
    let made = sqlite_schema_snapshot(&mut conn, &SQLITE_MIGRATOR)
        .await
        .unwrap();
    conn.close().await.unwrap();
    assert!(made.contains("CREATE TABLE sessions") || made.contains("CREATE TABLE \"sessions\""));
    if made != SQLITE_SCHEMA {
        if std::env::var_os("TRADEWIND_BLESS").is_some() {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../migrations/sqlite-schema.sql");
            std::fs::write(&path, &made).unwrap();
            panic!(
                "{} rewritten: rebuild and run the tests again",
                path.display()
            );
        }
        panic!(
            "migrations/sqlite-schema.sql is not what the migrations make: run \
             `TRADEWIND_BLESS=1 cargo test -p tradewind-tests --test store the_sqlite_schema_snapshot` \
             and commit the file"
        );
    }
}

/// A new SQLite file gets every migration in one transaction; what it holds is what migrating one
/// version at a time (sqlx's migrator alone) makes: the same tables, indexes and triggers, and the
/// same `_sqlx_migrations` rows, so a later version's migrations apply to it as to any other.
#[tokio::test]
async fn a_new_sqlite_file_holds_what_one_migration_at_a_time_makes() {
    use sqlx::Row;
    let d = TempDir::new("db-new");
    let store = Store::open_sqlite(&d.path().join("new.db")).await.unwrap();
    store.close().await;
    let open = |name: &str| {
        let url = format!("sqlite://{}?mode=rwc", d.path().join(name).display());
        async move { sqlx::SqlitePool::connect(&url).await.unwrap() }
    };
    let stepwise = open("stepwise.db").await;
    sqlx::migrate!("../migrations/sqlite")
        .run(&stepwise)
        .await
        .unwrap();
    let new = open("new.db").await;
    async fn schema(pool: &sqlx::SqlitePool) -> Vec<(String, String, Option<String>)> {
        sqlx::query_as(
            "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
        )
        .fetch_all(pool)
        .await
        .unwrap()
    }
    async fn applied(pool: &sqlx::SqlitePool) -> Vec<(i64, String, bool, Vec<u8>)> {
        sqlx::query(
            "SELECT version, description, success, checksum FROM _sqlx_migrations ORDER BY version",
        )
        .fetch_all(pool)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .collect()
    }
    let expected = schema(&stepwise).await;
    assert!(
        expected
            .iter()
            .any(|(_, n, _)| n == "sessions_roots_by_activity")
    );
    assert_eq!(schema(&new).await, expected);
    let versions = applied(&stepwise).await;
    assert!(versions.len() >= 20, "{}", versions.len());
    assert_eq!(applied(&new).await, versions);
    new.close().await;
    // Reopened, nothing is applied twice and the file is sound.
    let again = Store::open_sqlite(&d.path().join("new.db")).await.unwrap();
    assert_eq!(again.integrity_check().await.unwrap(), "ok");
}

/// The statuses the store writes and filters on are bound from their enums (no literal in the
/// SQL): each query finds what it should, on SQLite and on PostgreSQL.
async fn statuses_are_bound(store: &Store, sid: &tradewind::protocol::SessionId) {
    use tradewind::protocol::{QuestionId, RunId, TaskStatus};
    use tradewind::store::{NewRun, TaskRow};
    // A queued run: the session runs, and its input can still change.
    let run: RunId = tradewind::util::new_id().into();
    store
        .queue_run(&NewRun {
            id: &run,
            session_id: sid,
            trigger: RunTrigger::Prompt,
            input: "before",
            agent: Agent::Build.into(),
            images: None,
            limits: None,
        })
        .await
        .unwrap();
    assert_eq!(
        store.get_session(sid).await.unwrap().status,
        SessionStatus::Running
    );
    store
        .update_run_input(run.as_str(), "after", RunTrigger::Prompt)
        .await
        .unwrap();
    assert_eq!(store.get_run(&run).await.unwrap().input, "after");
    // A pending question makes it wait, and is listed until answered.
    let qid: QuestionId = tradewind::util::new_id().into();
    store
        .create_question(&qid, sid, &run, &"c1".into(), "[]")
        .await
        .unwrap();
    assert_eq!(
        store.get_session(sid).await.unwrap().status,
        SessionStatus::Waiting
    );
    let listed = store.list_sessions(None, 1000, true).await.unwrap();
    assert!(
        listed
            .iter()
            .any(|r| r.id == *sid && r.status == SessionStatus::Waiting)
    );
    assert_eq!(store.pending_questions(sid).await.unwrap().len(), 1);
    assert!(
        store
            .answer_question(&qid, tradewind::store::QuestionStatus::Answered, Some("{}"))
            .await
            .unwrap()
    );
    assert!(store.pending_questions(sid).await.unwrap().is_empty());
    // A task: live until it ends, then it owes a wake-up.
    let task = TaskRow {
        id: tradewind::util::new_id().into(),
        session_id: sid.clone(),
        command: "true".into(),
        cwd: "/w".into(),
        label: "t".into(),
        status: TaskStatus::Queued,
        exit_code: None,
        error: None,
        stopped_by: tradewind::store::Stopper(None),
        pid: None,
        owner_pid: 1,
        owner_start: 1,
        log_path: "/dev/null".into(),
        output_bytes: 0,
        timeout_ms: 1000,
        created_at: 1,
        started_at: None,
        finished_at: None,
        read_at: None,
        claimed_at: None,
        delivered_at: None,
    };
    store.create_task(&task).await.unwrap();
    assert_eq!(
        store.get_task(&task.id).await.unwrap().status,
        TaskStatus::Queued
    );
    assert_eq!(store.count_live_tasks(sid).await.unwrap(), 1);
    assert!(
        store
            .unfinished_tasks()
            .await
            .unwrap()
            .iter()
            .any(|t| t.id == task.id)
    );
    assert!(store.mark_task_lost(&task.id).await.unwrap());
    assert_eq!(store.count_live_tasks(sid).await.unwrap(), 0);
    let end = tradewind::store::RunEndRow {
        run_id: run.clone(),
        status: RunStatus::Completed,
        error: None,
        usage: "{}".into(),
    };
    assert!(store.finish_run(&end).await.unwrap());
    assert_eq!(
        store.get_session(sid).await.unwrap().status,
        SessionStatus::Idle
    );
}
