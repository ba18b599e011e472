//! A row whose JSON column does not read (a bad write, a hand edit, a bug of an older version)
//! costs only itself: a list leaves it out and loads the rest (never a 500), and the row named
//! on its own says which row and column is unreadable.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use tradewind_tests::*;

#[tokio::test]
async fn an_unreadable_row_is_left_out_of_its_list() {
    let s = TestServer::start(Opts {
        replay: Some(json!({"scripts": [{"turns": [{"text": "fine"}]}]})),
        ..Opts::default()
    })
    .await;
    let sid = s.create_session("ask").await;
    let first = s.prompt(&sid, "one").await;
    s.wait_run_finished(&sid, &first).await;
    let second = s.prompt(&sid, "two").await;
    s.wait_run_finished(&sid, &second).await;
    let store = s.server.as_ref().unwrap().state.core.store.clone();
    let (_, page) = s.get(&format!("/api/sessions/{sid}/messages")).await;
    let before = page["data"].as_array().unwrap().len();
    assert!(before >= 4, "{page}");
    let bad = page["data"][0]["id"].as_str().unwrap().to_string();
    sqlx::query("UPDATE messages SET parts = 'not json' WHERE id = $1")
        .bind(&bad)
        .execute(store.pool())
        .await
        .unwrap();
    sqlx::query("UPDATE runs SET usage = '{\"input_tokens\": \"many\"}' WHERE id = $1")
        .bind(&first)
        .execute(store.pool())
        .await
        .unwrap();
    let (st, page) = s.get(&format!("/api/sessions/{sid}/messages")).await;
    assert_eq!(st, 200, "{page}");
    let ids: Vec<&str> = page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), before - 1);
    assert!(!ids.contains(&bad.as_str()));
    let (st, runs) = s.get(&format!("/api/sessions/{sid}/runs")).await;
    assert_eq!(st, 200, "{runs}");
    let listed: Vec<&str> = runs["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [second.as_str()]);
    // Named on its own, the run is an error that says what is wrong (the log names the row).
    let (st, v) = s.get(&format!("/api/runs/{first}")).await;
    assert_eq!(st, 500, "{v}");
    assert_eq!(v["error"]["code"], "internal");
    let (st, _) = s.get(&format!("/api/runs/{second}")).await;
    assert_eq!(st, 200);
    s.stop().await;
}
