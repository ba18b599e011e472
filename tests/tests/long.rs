//! Long sessions over the real OpenAI-compatible client: usage and cost per model call, the
//! usage report, spend caps that stop a run and resume once raised, and context compaction
//! (automatic, by hand, and after the provider refuses a prompt as too long) that survives a
//! restart.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use serde_json::{Value, json};
use tradewind::config::{Config, NetworkSettings};
use tradewind::models::{ModelOverride, Price};
use tradewind_tests::openai_mock::*;
use tradewind_tests::*;

fn net() -> NetworkSettings {
    scripted_net()
}

/// test-model: $2 / $8 per million tokens, $0.50 cached; a 100,000-token window.
fn priced(cfg: &mut Config) {
    let mut m = BTreeMap::new();
    m.insert(
        "openai/test-model".to_string(),
        ModelOverride {
            context_window: Some(100_000),
            price: Some(Price {
                input: 2.0,
                output: 8.0,
                cached_input: Some(0.5),
            }),
            vision: None,
            tool_calls: None,
            ..Default::default()
        },
    );
    cfg.models = tradewind::models::Catalog::new(m);
}

/// test-model with an 8,000-token window.
fn small_window(cfg: &mut Config) {
    let mut m = BTreeMap::new();
    m.insert(
        "openai/test-model".to_string(),
        ModelOverride {
            context_window: Some(8_000),
            price: None,
            vision: None,
            tool_calls: None,
            ..Default::default()
        },
    );
    cfg.models = tradewind::models::Catalog::new(m);
}

fn opts(url: &str, tweak: fn(&mut Config)) -> Opts {
    Opts {
        openai: Some(url.to_string()),
        network: Some(net()),
        tweak: Some(tweak),
        ..Opts::default()
    }
}

/// 1,000 prompt tokens (400 cached), 200 out (50 reasoning): $0.003 at test-model's price.
fn billed_reply(text: &str) -> Reply {
    let usage = format!(
        "data: {}\n\n",
        json!({"choices": [], "usage": {"prompt_tokens": 1000, "completion_tokens": 200,
            "prompt_tokens_details": {"cached_tokens": 400},
            "completion_tokens_details": {"reasoning_tokens": 50}}})
    );
    Reply::Sse {
        chunks: vec![ev_text(text), ev_finish("stop"), usage, ev_done()],
        delay: std::time::Duration::ZERO,
    }
}

fn close(a: &Value, b: f64) -> bool {
    a.as_f64().is_some_and(|a| (a - b).abs() < 1e-9)
}

/// Each model call's tokens (cached and reasoning included) are priced, reported live and in
/// the run's end, summed per session, model and UTC day, and kept after the session is deleted.
#[tokio::test]
async fn usage_and_cost_are_recorded_and_reported() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(opts(&url, priced)).await;
    mock.push(billed_reply("Hello."));
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "say hello").await;
    let end = s.wait_run_finished(&sid, &run).await;
    assert_eq!(end["status"], "completed");
    let u = &end["usage"];
    assert_eq!(
        (
            &u["input_tokens"],
            &u["output_tokens"],
            &u["cached_input_tokens"],
            &u["reasoning_tokens"]
        ),
        (&json!(1000), &json!(200), &json!(400), &json!(50))
    );
    assert!(close(&u["cost_usd"], 0.003), "{u}");
    // The client asked for the usage chunk.
    let req = mock.requests.lock().unwrap()[0].clone();
    assert_eq!(req["stream_options"]["include_usage"], true);
    let events = s.events(&sid).await;
    let mu = of_type(&events, "model_usage");
    assert_eq!(mu.len(), 1);
    assert_eq!(mu[0]["model"], "openai/test-model");
    assert_eq!(mu[0]["purpose"], "turn");
    assert_eq!(mu[0]["context_tokens"], 1200);
    assert_eq!(mu[0]["context_window"], 100_000);

    let (st, su) = s.get(&format!("/api/sessions/{sid}/usage")).await;
    assert_eq!(st, 200, "{su}");
    assert_eq!(su["calls"], 1);
    assert!(close(&su["usage"]["cost_usd"], 0.003), "{su}");
    assert_eq!(su["context"]["model"], "openai/test-model");
    assert_eq!(su["context"]["context_tokens"], 1200);
    assert_eq!(su["spend_cap_usd"], Value::Null);

    let (_, by_model) = s.get("/api/usage?group=model").await;
    assert_eq!(by_model["rows"][0]["key"], "openai/test-model");
    assert_eq!(by_model["rows"][0]["usage"]["cached_input_tokens"], 400);
    let (_, by_session) = s.get("/api/usage?group=session").await;
    assert_eq!(by_session["rows"][0]["key"], sid.as_str());
    assert_eq!(by_session["rows"][0]["title"], "say hello");
    let now = tradewind::util::now_ms();
    let today = tradewind::services::usage::day_label(now.div_euclid(86_400_000));
    let (_, by_day) = s.get("/api/usage?group=day").await;
    assert_eq!(by_day["rows"][0]["key"], today.as_str());
    assert!(close(&by_day["total"]["usage"]["cost_usd"], 0.003));
    // A period before the call holds nothing; a reversed one is refused.
    let (_, empty) = s
        .get(&format!("/api/usage?from=0&to={}", now - 3_600_000))
        .await;
    assert_eq!(empty["rows"], json!([]));
    assert_eq!(empty["total"]["calls"], 0);
    let (st, v) = s.get("/api/usage?from=5&to=3").await;
    assert_eq!(
        (st, &v["rows"]),
        (200, &json!([])),
        "a reversed period is empty"
    );
    // Deleting the session keeps what it cost in the day's total.
    let (st, _) = s
        .send(
            reqwest::Method::DELETE,
            &format!("/api/sessions/{sid}"),
            json!(null),
        )
        .await;
    assert_eq!(st, 204);
    let (_, by_day) = s.get("/api/usage?group=day").await;
    assert!(close(&by_day["total"]["usage"]["cost_usd"], 0.003));
    s.stop().await;
}

/// A session cap and a daily cap each stop the run before the next model call with a clear
/// error; raising the cap and resuming continues.
#[tokio::test]
async fn spend_caps_stop_a_run_and_a_raise_lets_it_resume() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(opts(&url, priced)).await;
    let sid = s.create_session("ask").await;
    let (st, v) = s
        .send(
            reqwest::Method::PATCH,
            &format!("/api/sessions/{sid}"),
            json!({"spend_cap_usd": 0.002}),
        )
        .await;
    assert_eq!(st, 200, "{v}");
    assert!(close(&v["spend_cap_usd"], 0.002));
    for bad in [json!(-1), json!(2_000_000), json!("x")] {
        let (st, _) = s
            .send(
                reqwest::Method::PATCH,
                &format!("/api/sessions/{sid}"),
                json!({ "spend_cap_usd": bad }),
            )
            .await;
        assert!(st == 422 || st == 400, "{bad} gave {st}");
    }
    mock.push(billed_reply("One."));
    let run = s.prompt(&sid, "first").await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    // $0.003 spent of $0.002: the next run stops before calling the model.
    let run = s.prompt(&sid, "second").await;
    let end = s.wait_run_finished(&sid, &run).await;
    assert_eq!(end["status"], "failed");
    assert_eq!(end["error"]["code"], "spend_cap");
    let msg = end["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("$0.00 of its $0.00") || msg.contains("spend cap"),
        "{msg}"
    );
    assert_eq!(mock.request_count(), 1, "no model call past the cap");
    let (_, su) = s.get(&format!("/api/sessions/{sid}/usage")).await;
    assert_eq!(su["spend_cap_source"], "session");
    // Raise and continue.
    let (st, _) = s
        .send(
            reqwest::Method::PATCH,
            &format!("/api/sessions/{sid}"),
            json!({"spend_cap_usd": 1.0}),
        )
        .await;
    assert_eq!(st, 200);
    mock.push(billed_reply("Two."));
    let (st, v) = s.post(&format!("/api/runs/{run}/resume"), json!({})).await;
    assert_eq!(st, 202, "{v}");
    let resumed = v["run_id"].as_str().unwrap().to_string();
    assert_eq!(
        s.wait_run_finished(&sid, &resumed).await["status"],
        "completed"
    );
    // The daily cap counts every session: $0.006 spent today of $0.005.
    let (st, caps) = s
        .send(
            reqwest::Method::PUT,
            "/api/usage/caps",
            json!({"session_usd": null, "day_usd": 0.005}),
        )
        .await;
    assert_eq!(st, 200, "{caps}");
    let (_, caps) = s.get("/api/usage/caps").await;
    assert!(close(&caps["day_usd"], 0.005));
    let (st, _) = s
        .send(
            reqwest::Method::PUT,
            "/api/usage/caps",
            json!({"day_usd": -3}),
        )
        .await;
    assert_eq!(st, 422);
    let other = s.create_session("ask").await;
    let run = s.prompt(&other, "third").await;
    let end = s.wait_run_finished(&other, &run).await;
    assert_eq!(end["error"]["code"], "spend_cap");
    assert!(
        end["error"]["message"]
            .as_str()
            .unwrap()
            .contains("daily spend cap")
    );
    assert_eq!(mock.request_count(), 2);
    s.stop().await;
}

fn summary_request(r: &Value) -> bool {
    r["messages"][0]["content"]
        .as_str()
        .is_some_and(|c| c.starts_with("You compact"))
}

fn sent_text(r: &Value) -> String {
    r["messages"].to_string()
}

/// Past 80 % of an 8,000-token window the older turns are summarised by the model: the next
/// call sees the summary and the latest turn only, the transcript gets `context_compacted`
/// with the summary's cost, and after a restart the history read back from the store is the
/// compacted one.
#[tokio::test]
async fn a_full_window_is_compacted_and_stays_compacted_after_a_restart() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(opts(&url, small_window)).await;
    let sid = s.create_session("ask").await;
    let prompts = [
        format!("GOAL-MARKER first {}", "a".repeat(5_000)),
        format!("second {}", "b".repeat(5_000)),
        format!("third {}", "c".repeat(5_000)),
    ];
    mock.push(text_reply_counted("ok one"));
    mock.push(text_reply_counted("ok two"));
    mock.push(text_reply_counted(
        "## Goal\nKeep GOAL-MARKER in mind.\n## Progress and next step\nTwo prompts answered.",
    ));
    mock.push(text_reply_counted("ok three"));
    for p in &prompts {
        let run = s.prompt(&sid, p).await;
        let end = s.wait_run_finished(&sid, &run).await;
        assert_eq!(end["status"], "completed", "{end}");
    }
    let reqs = mock.requests.lock().unwrap().clone();
    assert_eq!(reqs.len(), 4);
    assert!(!summary_request(&reqs[1]));
    assert!(summary_request(&reqs[2]), "the third call summarises");
    let asked = sent_text(&reqs[2]);
    assert!(asked.contains("GOAL-MARKER") && asked.contains("second bbb"));
    assert!(
        !asked.contains(&"c".repeat(100)),
        "the kept turn is not summarised"
    );
    let third = sent_text(&reqs[3]);
    assert!(third.contains("Summary of the earlier conversation"));
    assert!(third.contains("Keep GOAL-MARKER in mind"));
    assert!(
        third.contains(&"c".repeat(5_000)) && third.contains("ok two"),
        "the latest turns are kept whole"
    );
    assert!(
        !third.contains(&"a".repeat(100)) && !third.contains(&"b".repeat(100)),
        "older turns are gone from what the model sees"
    );
    let events = s.events(&sid).await;
    let cc = of_type(&events, "context_compacted");
    assert_eq!(cc.len(), 1);
    assert_eq!(cc[0]["trigger"], "auto");
    assert_eq!(cc[0]["messages_summarized"], 3);
    assert_eq!(cc[0]["messages_kept"], 2);
    assert_eq!(cc[0]["context_window"], 8_000);
    assert!(cc[0]["tokens_after"].as_u64() < cc[0]["tokens_before"].as_u64());
    assert!(cc[0]["usage"]["input_tokens"].as_u64().unwrap() > 0);
    let purposes: Vec<&Value> = of_type(&events, "model_usage")
        .iter()
        .map(|e| &e["purpose"])
        .collect();
    assert_eq!(
        purposes,
        [
            &json!("turn"),
            &json!("turn"),
            &json!("compaction"),
            &json!("turn")
        ]
    );
    // The log still holds every prompt whole.
    assert_eq!(of_type(&events, "user_message").len(), 3);
    // After a restart the model still sees the compacted history.
    let s = s.restart(opts(&url, small_window)).await;
    mock.push(text_reply_counted("ok four"));
    let run = s.prompt(&sid, "fourth").await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let fourth = sent_text(&mock.requests.lock().unwrap()[4]);
    assert!(fourth.contains("Keep GOAL-MARKER in mind"));
    assert!(fourth.contains(&"c".repeat(5_000)) && fourth.contains("fourth"));
    assert!(!fourth.contains(&"a".repeat(100)));
    let (_, msgs) = s.get(&format!("/api/sessions/{sid}/messages")).await;
    let roles: Vec<&str> = msgs["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert!(roles.contains(&"summary"), "{roles:?}");
    s.stop().await;
}

/// A prompt the provider refuses as too long is compacted and retried once, not a failed run;
/// `/compact` summarises by hand.
#[tokio::test]
async fn a_refused_prompt_is_compacted_and_retried_and_compact_works_by_hand() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(opts(&url, priced)).await;
    let sid = s.create_session("ask").await;
    mock.push(text_reply_counted("ok one"));
    let run = s
        .prompt(&sid, &format!("first {}", "a".repeat(4_000)))
        .await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    mock.push(Reply::Status {
        status: 400,
        headers: vec![],
        body: json!({"error": {"message": "This model's maximum context length is 4096 tokens", "code": "context_length_exceeded"}}).to_string(),
    });
    mock.push(text_reply_counted("## Goal\nsummary one"));
    mock.push(text_reply_counted("ok two"));
    let run = s.prompt(&sid, "second").await;
    let end = s.wait_run_finished(&sid, &run).await;
    if end["status"] != "completed" {
        for e in s.events(&sid).await {
            if e["type"] != "message_delta" {
                eprintln!("{}", tradewind::util::truncate_str(&e.to_string(), 300));
            }
        }
    }
    assert_eq!(end["status"], "completed", "{end}");
    let events = s.events(&sid).await;
    let cc = of_type(&events, "context_compacted");
    assert_eq!(cc.len(), 1);
    assert_eq!(cc[0]["trigger"], "overflow");
    let reqs = mock.requests.lock().unwrap().clone();
    assert_eq!(reqs.len(), 4);
    assert!(summary_request(&reqs[2]));
    assert!(sent_text(&reqs[3]).contains("summary one"));
    assert!(!sent_text(&reqs[3]).contains(&"a".repeat(100)));
    assert!(
        of_type(&events, "error")
            .iter()
            .all(|e| e["code"] != "context_length")
    );
    // By hand: a run of its own that only summarises.
    mock.push(text_reply_counted("## Goal\nsummary two"));
    let (st, v) = s
        .post(&format!("/api/sessions/{sid}/compact"), json!({}))
        .await;
    assert_eq!(st, 202, "{v}");
    let run = v["run_id"].as_str().unwrap().to_string();
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let events = s.events(&sid).await;
    let cc = of_type(&events, "context_compacted");
    assert_eq!(cc.len(), 2);
    assert_eq!(cc[1]["trigger"], "manual");
    let (st, _) = s
        .post(
            "/api/sessions/01JD8Q2N4M5K6J7H8G9F0E1D2C/compact",
            json!({}),
        )
        .await;
    assert_eq!(st, 404);
    s.stop().await;
}

/// Forty turns (a file read and an answer each) on a model with an 8,000-token window that it
/// enforces: no run fails, the window is never exceeded, old tool outputs are pruned first
/// (free) and summaries are made when that is not enough, each reporting its cost. (The bench
/// runs 500: `bench context`.)
#[tokio::test]
async fn a_long_session_on_a_small_window_never_fails() {
    let r = tradewind_tests::long_session::run(40).await;
    assert_eq!(r.failed_runs, 0, "{r:?}");
    assert!(r.compactions >= 2 && r.prunes >= 2, "{r:?}");
    assert!(
        r.largest_prompt_tokens <= tradewind_tests::long_session::WINDOW,
        "{r:?}"
    );
    assert!(
        r.compaction_costs.iter().all(|c| *c > 0.0),
        "every compaction reports its cost: {r:?}"
    );
}

/// Search finds a prompt and an answer across sessions, with the matched words' positions, and
/// refuses what it cannot take.
#[tokio::test]
async fn search_finds_prompts_and_answers_in_every_session() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(opts(&url, priced)).await;
    let a = s.create_session("ask").await;
    let b = s.create_session("ask").await;
    mock.push(text_reply("The quokka lives on Rottnest Island."));
    mock.push(text_reply("Nothing about marsupials here."));
    let run = s.prompt(&a, "Tell me where the quokka lives").await;
    s.wait_run_finished(&a, &run).await;
    let run = s.prompt(&b, "Something else entirely").await;
    s.wait_run_finished(&b, &run).await;
    let (st, v) = s.get("/api/search?q=quokka").await;
    assert_eq!(st, 200, "{v}");
    let hits = v["data"].as_array().unwrap();
    assert_eq!(hits.len(), 2, "{v}");
    assert!(hits.iter().all(|h| h["session_id"] == a.as_str()));
    let kinds: Vec<&str> = hits.iter().map(|h| h["kind"].as_str().unwrap()).collect();
    assert!(kinds.contains(&"user_message") && kinds.contains(&"message_complete"));
    for h in hits {
        let snippet: Vec<u16> = h["snippet"].as_str().unwrap().encode_utf16().collect();
        let [start, end] =
            [&h["highlights"][0][0], &h["highlights"][0][1]].map(|n| n.as_u64().unwrap() as usize);
        assert_eq!(
            String::from_utf16(&snippet[start..end])
                .unwrap()
                .to_lowercase(),
            "quokka"
        );
        let (_, ev) = s
            .get(&format!(
                "/api/sessions/{a}/events?after={}&limit=1",
                h["seq"].as_i64().unwrap() - 1
            ))
            .await;
        assert_eq!(
            ev["data"][0]["type"], h["kind"],
            "the hit's seq is its event"
        );
    }
    // The last word is a prefix; a session filter; nothing for an unknown word.
    let (_, v) = s.get("/api/search?q=rottn").await;
    assert_eq!(v["data"].as_array().unwrap().len(), 1);
    let (_, v) = s.get(&format!("/api/search?q=quokka&session={b}")).await;
    assert_eq!(v["data"], json!([]));
    let (_, v) = s.get("/api/search?q=%22%20OR%20*").await;
    assert_eq!(v["data"], json!([]));
    let (st, _) = s.get(&format!("/api/search?q={}", "x".repeat(201))).await;
    assert_eq!(st, 422);
    let (st, _) = s.get("/api/search").await;
    assert_eq!(st, 400);
    let (st, _) = s.get("/api/search?q=a&limit=0").await;
    assert_eq!(st, 422);
    s.stop().await;
}

/// A session's reasoning effort is sent as `reasoning_effort` from the next model call; null
/// stops sending it; anything but low/medium/high is refused.
#[tokio::test]
async fn a_sessions_reasoning_effort_reaches_the_model() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(opts(&url, priced)).await;
    let sid = s.create_session("ask").await;
    let patch = |v: Value| {
        let s = &s;
        let sid = sid.clone();
        async move {
            s.send(reqwest::Method::PATCH, &format!("/api/sessions/{sid}"), v)
                .await
        }
    };
    let (st, v) = patch(json!({"reasoning_effort": "high"})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["reasoning_effort"], "high");
    let (st, _) = patch(json!({"reasoning_effort": "extreme"})).await;
    assert!(st == 400 || st == 422, "{st}");
    mock.push(text_reply("one"));
    let run = s.prompt(&sid, "think hard").await;
    s.wait_run_finished(&sid, &run).await;
    let (st, v) = patch(json!({"reasoning_effort": null})).await;
    assert_eq!((st, &v["reasoning_effort"]), (200, &Value::Null));
    mock.push(text_reply("two"));
    let run = s.prompt(&sid, "not so hard").await;
    s.wait_run_finished(&sid, &run).await;
    let reqs = mock.requests.lock().unwrap().clone();
    assert_eq!(reqs[0]["reasoning_effort"], "high");
    assert!(reqs[1].get("reasoning_effort").is_none(), "{}", reqs[1]);
    s.stop().await;
}

/// A scripted model on a server that allows writes, a workspace with `a.txt` ("one"), and a
/// `full` session in it.
async fn writing_session() -> (Mock, TestServer, std::path::PathBuf, String) {
    let (mock, s) = with_scripted_model(tradewind::config::Ceiling {
        write: true,
        process: false,
        external: false,
    })
    .await;
    let ws = s.workspace.path().to_path_buf();
    std::fs::write(ws.join("a.txt"), "one\n").unwrap();
    let sid = s.create_session("full").await;
    (mock, s, ws, sid)
}

fn user_message_ids(events: &[Value]) -> Vec<String> {
    of_type(events, "user_message")
        .iter()
        .map(|e| e["message_id"].as_str().unwrap().to_string())
        .collect()
}

/// Revert puts the workspace back to before a message and hides that turn and the later ones
/// from the model; redo brings them back; hand edits are never overwritten silently.
#[tokio::test]
async fn revert_and_redo_the_workspace_and_the_conversation() {
    let (mock, s, ws, sid) = writing_session().await;
    mock.push(tool_reply(
        "c1",
        "write_file",
        &json!({"path": "a.txt", "content": "two\n"}),
    ));
    mock.push(text_reply("Changed a."));
    let run1 = s.prompt(&sid, "FIRST change a").await;
    assert_eq!(
        s.wait_run_finished(&sid, &run1).await["status"],
        "completed"
    );
    mock.push(tool_reply(
        "c2",
        "write_file",
        &json!({"path": "dir/b.txt", "content": "new\n"}),
    ));
    mock.push(text_reply("Added b."));
    let run2 = s.prompt(&sid, "SECOND add b").await;
    assert_eq!(
        s.wait_run_finished(&sid, &run2).await["status"],
        "completed"
    );
    let ids = user_message_ids(&s.events(&sid).await);
    let revert = |body: Value| {
        let s = &s;
        let sid = sid.clone();
        async move { s.post(&format!("/api/sessions/{sid}/revert"), body).await }
    };
    let redo = |body: Value| {
        let s = &s;
        let sid = sid.clone();
        async move { s.post(&format!("/api/sessions/{sid}/redo"), body).await }
    };
    // A dry run changes nothing.
    let (st, v) = revert(json!({"message_id": ids[1], "dry_run": true})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["applied"], false);
    assert_eq!(
        v["files"],
        json!([{"path": "dir/b.txt", "action": "deleted"}])
    );
    assert_eq!(v["runs"], json!([run2]), "what it would take back");
    assert!(ws.join("dir/b.txt").exists());
    // Back to before the first message: both runs taken back.
    let (st, v) = revert(json!({"message_id": ids[0]})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["applied"], true);
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "one\n");
    assert!(
        !ws.join("dir").exists(),
        "a file created since is deleted, its folder too"
    );
    let mut runs: Vec<String> = v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().to_string())
        .collect();
    runs.sort();
    let mut both = vec![run1.clone(), run2.clone()];
    both.sort();
    assert_eq!(runs, both);
    let ev = s.events(&sid).await;
    assert_eq!(of_type(&ev, "session_reverted").len(), 1);
    // Redo: the files and the runs are back.
    let (st, v) = redo(json!({})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "two\n");
    assert_eq!(
        std::fs::read_to_string(ws.join("dir/b.txt")).unwrap(),
        "new\n"
    );
    assert_eq!(of_type(&s.events(&sid).await, "revert_undone").len(), 1);
    let (st, v) = redo(json!({})).await;
    assert_eq!((st, &v["error"]["code"]), (409, &json!("nothing_to_redo")));
    // A hand edit the revert would overwrite: listed, refused, then forced.
    std::fs::write(ws.join("a.txt"), "by hand\n").unwrap();
    let (_, v) = revert(json!({"message_id": ids[0], "dry_run": true})).await;
    assert_eq!(v["hand_edited"], json!(["a.txt"]));
    let (st, v) = revert(json!({"message_id": ids[0]})).await;
    assert_eq!(st, 409, "{v}");
    assert_eq!(v["error"]["code"], "hand_edits");
    assert!(v["error"]["message"].as_str().unwrap().contains("a.txt"));
    assert_eq!(
        std::fs::read_to_string(ws.join("a.txt")).unwrap(),
        "by hand\n"
    );
    let (st, _) = revert(json!({"message_id": ids[0], "force": true})).await;
    assert_eq!(st, 200);
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "one\n");
    // The model no longer sees the turns taken back.
    mock.push(text_reply("Fresh start."));
    let run3 = s.prompt(&sid, "THIRD").await;
    assert_eq!(
        s.wait_run_finished(&sid, &run3).await["status"],
        "completed"
    );
    let reqs = mock.requests.lock().unwrap().clone();
    let last = reqs.last().unwrap()["messages"].to_string();
    assert!(last.contains("THIRD"));
    assert!(
        !last.contains("FIRST") && !last.contains("SECOND"),
        "{last}"
    );
    // The conversation went on: no redo now; unknown messages are 404.
    let (st, v) = redo(json!({})).await;
    assert_eq!(
        (st, &v["error"]["code"]),
        (409, &json!("conversation_went_on"))
    );
    let (st, _) = revert(json!({"message_id": "01JD8Q3W5V6X7Y8Z9A0B1C2D3E"})).await;
    assert_eq!(st, 404);
    let (st, _) = revert(json!({"message_id": "../x"})).await;
    assert_eq!(st, 404);
    s.stop().await;
}

/// Two sessions in one workspace: a revert puts back only the files its own session's runs
/// changed. The other session's files, and files changed by hand, are listed apart (`kept`) and
/// left as they are, unless the revert names them in `include`; a redo brings back what the
/// revert changed.
#[tokio::test]
async fn a_revert_puts_back_only_its_own_session_s_files() {
    let (mock, s) = with_scripted_model(tradewind::config::Ceiling {
        write: true,
        process: false,
        external: false,
    })
    .await;
    let ws = s.workspace.path().to_path_buf();
    let a = s.create_session("full").await;
    let b = s.create_session("full").await;
    for (sid, id, file) in [(&a, "ca", "a.txt"), (&b, "cb", "b.txt")] {
        mock.push(tool_reply(
            id,
            "write_file",
            &json!({"path": file, "content": format!("{file} by its session\n")}),
        ));
        mock.push(text_reply("Written."));
        let run = s.prompt(sid, &format!("write {file}")).await;
        assert_eq!(s.wait_run_finished(sid, &run).await["status"], "completed");
    }
    let ids = user_message_ids(&s.events(&a).await);
    let revert = |body: Value| {
        let s = &s;
        let a = a.clone();
        async move { s.post(&format!("/api/sessions/{a}/revert"), body).await }
    };
    let redo = |body: Value| {
        let s = &s;
        let a = a.clone();
        async move { s.post(&format!("/api/sessions/{a}/redo"), body).await }
    };
    let b_kept =
        json!({"path": "b.txt", "action": "deleted", "changed_by": "session", "sessions": [b]});
    // B's file is another session's change, not A's and not a hand edit.
    let (st, v) = revert(json!({"message_id": ids[0], "dry_run": true})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["files"], json!([{"path": "a.txt", "action": "deleted"}]));
    assert_eq!(v["hand_edited"], json!([]));
    assert_eq!(v["kept"], json!([b_kept]));
    // A file changed by hand since is listed apart too.
    std::fs::write(ws.join("hand.txt"), "mine\n").unwrap();
    let hand_kept =
        json!({"path": "hand.txt", "action": "deleted", "changed_by": "hand", "sessions": []});
    let (_, v) = revert(json!({"message_id": ids[0], "dry_run": true})).await;
    assert_eq!(v["kept"], json!([b_kept, hand_kept]), "{v}");
    // The revert: A's file goes, B's and the hand-made one stay, without `force`.
    let (st, v) = revert(json!({"message_id": ids[0]})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["applied"], true);
    assert_eq!(v["files"], json!([{"path": "a.txt", "action": "deleted"}]));
    assert!(!ws.join("a.txt").exists());
    assert_eq!(
        std::fs::read_to_string(ws.join("b.txt")).unwrap(),
        "b.txt by its session\n"
    );
    assert!(ws.join("hand.txt").exists());
    let reverted = of_type(&s.events(&a).await, "session_reverted")[0].clone();
    assert_eq!(reverted["files"], v["files"]);
    // Redo: A's file is back; nothing else moved.
    let (st, v) = redo(json!({})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["files"], json!([{"path": "a.txt", "action": "restored"}]));
    assert_eq!(v["kept"], json!([]), "nothing changed since the revert");
    assert_eq!(
        std::fs::read_to_string(ws.join("a.txt")).unwrap(),
        "a.txt by its session\n"
    );
    // Ticked: B's file goes too; the hand-made one, not ticked, stays.
    let (st, v) = revert(json!({"message_id": ids[0], "include": ["b.txt"]})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(
        v["files"],
        json!([{"path": "a.txt", "action": "deleted"}, {"path": "b.txt", "action": "deleted"}])
    );
    assert_eq!(v["kept"], json!([hand_kept]));
    assert!(!ws.join("a.txt").exists() && !ws.join("b.txt").exists());
    assert!(ws.join("hand.txt").exists());
    // A redo puts back what that revert changed, B's file included.
    let (st, v) = redo(json!({})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(
        std::fs::read_to_string(ws.join("b.txt")).unwrap(),
        "b.txt by its session\n"
    );
    assert!(ws.join("a.txt").exists());
    // B's own revert takes back only B's file, and lists A's as another session's.
    let b_ids = user_message_ids(&s.events(&b).await);
    let (st, v) = s
        .post(
            &format!("/api/sessions/{b}/revert"),
            json!({"message_id": b_ids[0], "dry_run": true}),
        )
        .await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["files"], json!([{"path": "b.txt", "action": "deleted"}]));
    assert_eq!(v["kept"][0]["path"], "hand.txt", "{v}");
    s.stop().await;
}

/// The command line works on the real state directory: `run` stores its session, `run
/// --session` continues it, `sessions list/show/export/import` read and copy it; with a server
/// running on the directory they go through its API.
#[tokio::test]
async fn headless_runs_continue_sessions_and_sessions_export_and_import() {
    let home = TempDir::new("cli-home");
    let ws = TempDir::new("cli-ws");
    let state = home.path().join("state");
    let replay = home.path().join("r.json");
    std::fs::write(
        &replay,
        json!({"scripts": [
            {"match": "second", "turns": [{"text": "Second answer."}]},
            {"match": "third", "turns": [{"text": "Third answer, through the server."}]},
            {"turns": [{"text": "First answer."}]}
        ]})
        .to_string(),
    )
    .unwrap();
    // The subcommand, then the flags, then the rest (a prompt takes every word after it).
    let cli = |args: &[&str]| {
        let split = if args[0] == "sessions" { 2 } else { 1 };
        let out = std::process::Command::new(binary())
            .args(&args[..split])
            .args(["--workspace", ws.path().to_str().unwrap()])
            .args(["--provider", "replay", "--replay", replay.to_str().unwrap()])
            .args(&args[split..])
            .env("TRADEWIND_HOME", &state)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let frames = |out: &str| -> Vec<Value> {
        out.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let first = frames(&cli(&["run", "--json", "first question"]));
    let sid = first
        .iter()
        .find(|f| f["type"] == "run_started")
        .and_then(|f| f["session"].as_str())
        .unwrap()
        .to_string();
    assert_eq!(first.last().unwrap()["type"], "run_finished");
    let second = frames(&cli(&[
        "run",
        "--json",
        "--session",
        &sid,
        "second question",
    ]));
    assert!(second.iter().all(|f| f["session"] == sid.as_str()));
    assert!(
        second
            .iter()
            .all(|f| f["type"] != "user_message" || f["text"] == "second question"),
        "only the new run's frames are printed"
    );
    let list = cli(&["sessions", "list", "--json"]);
    let sessions: Vec<Value> = frames(&list);
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0]["id"], sid.as_str());
    let md = cli(&["sessions", "show", &sid]);
    for part in [
        "first question",
        "First answer.",
        "second question",
        "Second answer.",
    ] {
        assert!(md.contains(part), "{md}");
    }
    let file = home.path().join("export.json");
    cli(&[
        "sessions",
        "export",
        &sid,
        "--format",
        "json",
        "-o",
        file.to_str().unwrap(),
    ]);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(doc["format"], "tradewind-session/1");
    let imported = cli(&["sessions", "import", file.to_str().unwrap()]);
    let new_id = imported.split('\t').next().unwrap().trim().to_string();
    assert_ne!(new_id, sid);
    assert!(cli(&["sessions", "show", &new_id]).contains("Second answer."));
    // With a server running on the state directory, the command line goes through it.
    let workspace = TempDir::new("cli-server-ws");
    let s = TestServer::start_in(
        Opts {
            replay: Some(serde_json::from_str(&std::fs::read_to_string(&replay).unwrap()).unwrap()),
            ..Opts::default()
        },
        workspace,
        TempDir::adopt(state.clone()),
    )
    .await;
    // (Run off this thread: the server answering it runs on this test's runtime.)
    let third = {
        let (ws, replay, state, sid) = (
            ws.path().to_path_buf(),
            replay.clone(),
            state.clone(),
            sid.clone(),
        );
        let out = tokio::process::Command::new(binary())
            .args(["run", "--json", "--workspace", ws.to_str().unwrap()])
            .args(["--provider", "replay", "--replay", replay.to_str().unwrap()])
            .args(["--session", &sid, "third question"])
            .env("TRADEWIND_HOME", &state)
            .output()
            .await
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        frames(&String::from_utf8_lossy(&out.stdout))
    };
    let end = third.last().unwrap();
    assert_eq!(end["status"], "completed");
    // The server's own log has the run the command line made.
    let events = s.events(&sid).await;
    assert!(
        of_type(&events, "message_complete")
            .iter()
            .any(|m| m["text"] == "Third answer, through the server.")
    );
    // An import needs the export's format.
    let (st, _) = s
        .post(
            "/api/sessions/import",
            json!({"format": "other", "session": {"title": "x", "agent": "build", "mode": "ask"}, "events": [], "messages": []}),
        )
        .await;
    assert_eq!(st, 422);
    s.stop().await;
}

/// Providers side by side: one from the flags (`default`), one from config.json with its own
/// key, one added through the API. Each session talks to its own `{provider, model}` (the
/// request carries the model, the key goes to its own server), a bad choice is refused, the
/// default can move, removals that would break the configuration are refused, what the API
/// added survives a restart, and a session naming a removed provider fails its run clearly.
#[tokio::test]
async fn sessions_pick_their_own_provider_and_model() {
    let local = Mock::default();
    let local_url = local.serve().await;
    let cloud = Mock::default();
    let cloud_url = cloud.serve().await;
    let opts = Opts {
        openai: Some(local_url.clone()),
        network: Some(net()),
        providers: vec![tradewind::config::ProviderEntrySettings {
            id: "cloud".into(),
            kind: "openai".into(),
            base_url: Some(cloud_url.clone()),
            model: Some("big-1".into()),
            api_key_env: None,
            key: Some("sk-cloud-test".into()),
            api_mode: Default::default(),
        }],
        ..Opts::default()
    };
    let s = TestServer::start(opts.clone()).await;
    let (_, list) = s.get("/api/providers").await;
    let ids: Vec<(&str, &str, bool)> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap(),
                p["source"].as_str().unwrap(),
                p["api_key_set"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(ids[0].0, "default");
    assert_eq!(ids[0].1, "flags");
    assert_eq!(ids[1], ("cloud", "config", true));
    assert_eq!(list["default"], "default");
    let (st, models) = s.get("/api/models?provider=cloud").await;
    assert_eq!(st, 200, "{models}");
    assert_eq!(models["data"][0]["id"], "test-model");
    assert_eq!(s.get("/api/models?provider=nope").await.0, 404);

    // A session on the cloud provider with a model of its choosing; another on the default.
    let on_cloud = s.create_session("ask").await;
    let patch = |sid: &str, body: Value| {
        let path = format!("/api/sessions/{sid}");
        let s = &s;
        async move { s.send(reqwest::Method::PATCH, &path, body).await }
    };
    let (st, v) = patch(&on_cloud, json!({"provider": "cloud", "model": "big-2"})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(
        (v["provider"].as_str(), v["model"].as_str()),
        (Some("cloud"), Some("big-2"))
    );
    cloud.push(text_reply("from the cloud"));
    let run = s.prompt(&on_cloud, "hello cloud").await;
    assert_eq!(
        s.wait_run_finished(&on_cloud, &run).await["status"],
        "completed"
    );
    let on_default = s.create_session("ask").await;
    local.push(text_reply("from the local one"));
    let run = s.prompt(&on_default, "hello local").await;
    assert_eq!(
        s.wait_run_finished(&on_default, &run).await["status"],
        "completed"
    );
    {
        let reqs = cloud.requests.lock().unwrap();
        assert_eq!(reqs.len(), 1);
        assert_eq!(reqs[0]["model"], "big-2");
        let heads = cloud.headers.lock().unwrap();
        assert_eq!(heads[0]["authorization"], "Bearer sk-cloud-test");
        let reqs = local.requests.lock().unwrap();
        assert_eq!(reqs.len(), 1);
        assert_eq!(reqs[0]["model"], "test-model");
    }
    let usage = s
        .wait_event(&on_cloud, |e| e["type"] == "model_usage")
        .await;
    assert_eq!(usage["model"], "openai/big-2", "{usage}");

    // A window the provider's model list gives wins over the default.
    let windowed = s.create_session("ask").await;
    patch(&windowed, json!({"model": "windowed"})).await;
    local.push(text_reply("windowed"));
    let run = s.prompt(&windowed, "how big?").await;
    assert_eq!(
        s.wait_run_finished(&windowed, &run).await["status"],
        "completed"
    );
    let usage = s
        .wait_event(&windowed, |e| e["type"] == "model_usage")
        .await;
    assert_eq!(usage["context_window"], 12_345, "{usage}");
    let usage = s
        .wait_event(&on_default, |e| e["type"] == "model_usage")
        .await;
    assert_eq!(
        usage["context_window"], 32_768,
        "unknown: the default window"
    );

    // Refused: an unknown provider, a blank model. A provider alone resets the model.
    assert_eq!(patch(&on_cloud, json!({"provider": "nope"})).await.0, 422);
    assert_eq!(patch(&on_cloud, json!({"model": "  "})).await.0, 422);
    let (_, v) = patch(&on_cloud, json!({"provider": "default"})).await;
    assert_eq!(
        (v["provider"].as_str(), v["model"].as_str()),
        (Some("default"), None)
    );
    let (_, v) = patch(&on_cloud, json!({"provider": null, "model": "other"})).await;
    assert_eq!(
        (v["provider"].as_str(), v["model"].as_str()),
        (None, Some("other"))
    );

    // One added through the API, made the default, then removed once it no longer is.
    let put = json!({"kind": "openai", "base_url": local_url, "model": "added-model"});
    let (st, v) = s
        .send(reqwest::Method::PUT, "/api/providers/added", put)
        .await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(
        (v["source"].as_str(), v["default"].as_bool()),
        (Some("settings"), Some(false))
    );
    let bad = json!({"kind": "openai", "base_url": "ftp://x", "model": "m"});
    assert_eq!(
        s.send(reqwest::Method::PUT, "/api/providers/bad", bad.clone())
            .await
            .0,
        422
    );
    let good = json!({"kind": "openai", "model": "m"});
    assert_eq!(
        s.send(reqwest::Method::PUT, "/api/providers/Bad%20Id", good)
            .await
            .0,
        422
    );
    let (st, v) = s
        .send(
            reqwest::Method::POST,
            "/api/providers/added/default",
            json!({}),
        )
        .await;
    assert_eq!((st, v["default"].as_str()), (200, Some("added")), "{v}");
    let (_, v) = s.get("/api/settings/provider").await;
    assert_eq!(v["model"], "added-model");
    let (st, v) = s
        .send(reqwest::Method::DELETE, "/api/providers/added", json!({}))
        .await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (409, Some("provider_is_default"))
    );
    let (st, v) = s
        .send(reqwest::Method::DELETE, "/api/providers/cloud", json!({}))
        .await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (409, Some("provider_from_config"))
    );

    // Restarted, the API's provider and default are still there.
    let s = s.restart(opts.clone()).await;
    let (_, list) = s.get("/api/providers").await;
    assert_eq!(list["default"], "added");
    assert_eq!(list["data"].as_array().unwrap().len(), 3, "{list}");
    s.send(
        reqwest::Method::POST,
        "/api/providers/default/default",
        json!({}),
    )
    .await;
    let (_, v) = s
        .send(
            reqwest::Method::PATCH,
            &format!("/api/sessions/{on_default}"),
            json!({"provider": "added"}),
        )
        .await;
    assert_eq!(v["provider"], "added");
    let (st, _) = s
        .send(reqwest::Method::DELETE, "/api/providers/added", json!({}))
        .await;
    assert_eq!(st, 204);
    let run = s.prompt(&on_default, "still there?").await;
    let end = s.wait_run_finished(&on_default, &run).await;
    assert_eq!(end["status"], "failed", "{end}");
    assert_eq!(end["error"]["code"], "unknown_provider", "{end}");
    s.stop().await;
}

/// A PNG small enough for a test: the signature and an IHDR chunk's start.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0";

fn b64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Images pasted into the composer: refused for a model that does not take them (and with a
/// `!command`, and when they are not what they claim), sent as content parts to OpenAI and
/// Anthropic models that do — again with every later turn of the session — listed in the
/// transcript and served back byte for byte.
#[tokio::test]
async fn images_reach_models_that_take_them() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        openai: Some(url.clone()),
        network: Some(net()),
        ..Opts::default()
    })
    .await;
    let sid = s.create_session("ask").await;
    let path = format!("/api/sessions/{sid}/messages");
    let image = json!({"media_type": "image/png", "data": b64(PNG), "name": "shot.png"});
    let post = |body: Value| {
        let s = &s;
        let path = path.clone();
        async move { s.send(reqwest::Method::POST, &path, body).await }
    };
    let (st, v) = post(json!({"text": "what is this?", "images": [image.clone()]})).await;
    assert_eq!(st, 422, "{v}");
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("openai/test-model does not take images"),
        "{msg}"
    );

    let (st, _) = s
        .send(
            reqwest::Method::PATCH,
            &format!("/api/sessions/{sid}"),
            json!({"model": "gpt-4o"}),
        )
        .await;
    assert_eq!(st, 200);
    let lying = json!({"media_type": "image/jpeg", "data": b64(PNG)});
    let (st, v) = post(json!({"text": "x", "images": [lying]})).await;
    assert_eq!(st, 422);
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("is not a image/jpeg file"),
        "{v}"
    );
    let (st, _) = post(json!({"text": "!ls", "images": [image.clone()]})).await;
    assert_eq!(st, 422);
    let nine: Vec<Value> = (0..9).map(|_| image.clone()).collect();
    assert_eq!(post(json!({"text": "x", "images": nine})).await.0, 422);
    assert_eq!(mock.request_count(), 0, "nothing refused reached the model");

    mock.push(text_reply("A one-pixel PNG."));
    let (st, v) = post(json!({"text": "what is this?", "images": [image]})).await;
    assert_eq!(st, 202, "{v}");
    let run = v["run_id"].as_str().unwrap().to_string();
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    mock.push(text_reply("Still a PNG."));
    let run = s.prompt(&sid, "and now?").await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let data_url = format!("data:image/png;base64,{}", b64(PNG));
    {
        let reqs = mock.requests.lock().unwrap();
        for (n, r) in reqs.iter().enumerate() {
            assert_eq!(r["model"], "gpt-4o");
            let user = &r["messages"][1];
            assert_eq!(
                user["content"][0],
                json!({"type": "text", "text": "what is this?"}),
                "call {n}"
            );
            assert_eq!(
                user["content"][1]["image_url"]["url"],
                data_url.as_str(),
                "call {n}"
            );
        }
        assert_eq!(
            reqs[1]["messages"][3]["content"], "and now?",
            "a prompt without images stays a string"
        );
    }
    let events = s.events(&sid).await;
    let said = events.iter().find(|e| e["type"] == "user_message").unwrap();
    let img = &said["images"][0];
    assert_eq!(
        (
            img["media_type"].as_str(),
            img["bytes"].as_u64(),
            img["name"].as_str()
        ),
        (Some("image/png"), Some(PNG.len() as u64), Some("shot.png"))
    );
    let id = img["id"].as_str().unwrap();
    let resp = s
        .http
        .get(s.url(&format!("/api/attachments/{id}")))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "image/png");
    assert_eq!(resp.bytes().await.unwrap().as_ref(), PNG);
    assert_eq!(
        s.get(&format!("/api/attachments/{}", "0".repeat(64)))
            .await
            .0,
        404
    );
    assert_eq!(s.get("/api/attachments/..%2Fconfig.json").await.0, 404);

    // Anthropic: an image block (base64 source) before the words.
    let put = json!({"kind": "anthropic", "base_url": url.trim_end_matches("/v1"), "model": "claude-sonnet-4-5", "api_key": "sk-ant"});
    let (st, v) = s
        .send(reqwest::Method::PUT, "/api/providers/claude", put)
        .await;
    assert_eq!(st, 200, "{v}");
    let other = s.create_session("ask").await;
    s.send(
        reqwest::Method::PATCH,
        &format!("/api/sessions/{other}"),
        json!({"provider": "claude"}),
    )
    .await;
    mock.push(Reply::Sse {
        chunks: an_text_reply("A PNG, says Claude."),
        delay: std::time::Duration::ZERO,
    });
    let gif = b"GIF89a\x01\0\x01\0\0\0\0;";
    let (st, v) = s
        .send(
            reqwest::Method::POST,
            &format!("/api/sessions/{other}/messages"),
            json!({"text": "and this?", "images": [{"media_type": "image/gif", "data": b64(gif)}]}),
        )
        .await;
    assert_eq!(st, 202, "{v}");
    let run = v["run_id"].as_str().unwrap().to_string();
    assert_eq!(
        s.wait_run_finished(&other, &run).await["status"],
        "completed"
    );
    let last = mock.requests.lock().unwrap().last().cloned().unwrap();
    assert_eq!(
        last["messages"][0]["content"][0],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": b64(gif)}})
    );
    assert_eq!(last["messages"][0]["content"][1]["text"], "and this?");
    s.stop().await;
}

/// Anthropic's extended thinking follows the session's reasoning effort: the budget is asked
/// for, the signed thinking block comes back unchanged before the tool call it led to, and an
/// encrypted block too; with no effort set, no thinking is asked for or sent back.
#[tokio::test]
async fn anthropic_thinking_follows_the_reasoning_effort_and_goes_back_signed() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        network: Some(net()),
        ..Opts::default()
    })
    .await;
    let put = json!({"kind": "anthropic", "base_url": url.trim_end_matches("/v1"), "model": "claude-sonnet-4-5", "api_key": "sk-ant"});
    let (st, v) = s
        .send(reqwest::Method::PUT, "/api/settings/provider", put)
        .await;
    assert_eq!(st, 200, "{v}");
    std::fs::write(s.workspace.path().join("a.txt"), "alpha\n").unwrap();
    let sid = s.create_session("ask").await;
    let (st, _) = s
        .send(
            reqwest::Method::PATCH,
            &format!("/api/sessions/{sid}"),
            json!({"reasoning_effort": "medium"}),
        )
        .await;
    assert_eq!(st, 200);
    let thinking_then_call = vec![
        an(
            "message_start",
            json!({"type": "message_start", "message": {"id": "m1", "role": "assistant", "content": [], "usage": {"input_tokens": 10, "output_tokens": 1}}}),
        ),
        an(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
        ),
        an(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Read a.txt first."}}),
        ),
        an(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "sig-123"}}),
        ),
        an(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        an(
            "content_block_start",
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "redacted_thinking", "data": "enc-456"}}),
        ),
        an(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 1}),
        ),
        an(
            "content_block_start",
            json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {}}}),
        ),
        an(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "{\"path\": \"a.txt\"}"}}),
        ),
        an(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 2}),
        ),
        an(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 20}}),
        ),
        an("message_stop", json!({"type": "message_stop"})),
    ];
    mock.push(Reply::Sse {
        chunks: thinking_then_call,
        delay: std::time::Duration::ZERO,
    });
    mock.push(Reply::Sse {
        chunks: an_text_reply("It says alpha."),
        delay: std::time::Duration::ZERO,
    });
    let run = s.prompt(&sid, "what does a.txt say?").await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let reqs = mock.requests.lock().unwrap().clone();
    assert_eq!(reqs.len(), 2);
    assert_eq!(
        reqs[0]["thinking"],
        json!({"type": "enabled", "budget_tokens": 8192})
    );
    assert_eq!(reqs[0]["max_tokens"], 8192 + 8192);
    let assistant = &reqs[1]["messages"][1];
    assert_eq!(assistant["role"], "assistant");
    assert_eq!(
        assistant["content"][0],
        json!({"type": "thinking", "thinking": "Read a.txt first.", "signature": "sig-123"})
    );
    assert_eq!(
        assistant["content"][1],
        json!({"type": "redacted_thinking", "data": "enc-456"})
    );
    assert_eq!(assistant["content"][2]["type"], "tool_use");

    // Effort off: no thinking asked for, none sent back.
    s.send(
        reqwest::Method::PATCH,
        &format!("/api/sessions/{sid}"),
        json!({"reasoning_effort": null}),
    )
    .await;
    mock.push(Reply::Sse {
        chunks: an_text_reply("Done."),
        delay: std::time::Duration::ZERO,
    });
    let run = s.prompt(&sid, "thanks").await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let last = mock.requests.lock().unwrap().last().cloned().unwrap();
    assert!(last.get("thinking").is_none(), "{last}");
    assert_eq!(last["max_tokens"], 8192);
    assert!(!last.to_string().contains("sig-123"));
    s.stop().await;
}

/// Snapshot GC: what undo still needs survives a collection (a revert after it works), and a
/// retention of zero days forgets every snapshot, so the revert is refused clearly.
#[tokio::test]
async fn snapshot_gc_keeps_what_undo_needs_and_forgets_past_retention() {
    let (mock, s, ws, sid) = writing_session().await;
    for (n, content) in ["two\n", "three\n"].iter().enumerate() {
        mock.push(tool_reply(
            &format!("c{n}"),
            "write_file",
            &json!({"path": "a.txt", "content": content}),
        ));
        mock.push(text_reply("Changed a."));
        let run = s.prompt(&sid, &format!("change {n}")).await;
        assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    }
    // The runs' snapshots are resolved in the background after their ends; a revert (a dry
    // run here) waits for them, so the collection below sees them recorded.
    let ids = user_message_ids(&s.events(&sid).await);
    let (st, v) = s
        .post(
            &format!("/api/sessions/{sid}/revert"),
            json!({"message_id": ids[1], "dry_run": true}),
        )
        .await;
    assert_eq!(st, 200, "{v}");
    let core = s.server.as_ref().unwrap().state.core.clone();
    let r = core
        .gc_snapshots(30, std::time::Duration::ZERO)
        .await
        .unwrap();
    assert_eq!((r.expired, r.stores, r.removed), (0, 1, 0), "{r:?}");
    assert!(r.bytes > 0);
    let (st, v) = s
        .post(
            &format!("/api/sessions/{sid}/revert"),
            json!({"message_id": ids[1]}),
        )
        .await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "two\n");
    let r = core
        .gc_snapshots(0, std::time::Duration::ZERO)
        .await
        .unwrap();
    assert!(r.expired >= 4, "{r:?}");
    let (st, v) = s
        .post(
            &format!("/api/sessions/{sid}/revert"),
            json!({"message_id": ids[0]}),
        )
        .await;
    assert_eq!(st, 409, "{v}");
    assert_eq!(v["error"]["code"], "no_snapshot", "{v}");
    s.stop().await;
}

/// `/compact` whose summary is no shorter than what it would replace changes nothing and says
/// so, rather than reporting a success that grew the context.
#[tokio::test]
async fn a_summary_longer_than_the_turns_it_replaces_is_thrown_away() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(opts(&url, priced)).await;
    let sid = s.create_session("ask").await;
    mock.push(text_reply_counted("ok one"));
    let run = s.prompt(&sid, "hi").await;
    s.wait_run_finished(&sid, &run).await;
    mock.push(text_reply_counted("ok two"));
    let run = s.prompt(&sid, "and again").await;
    s.wait_run_finished(&sid, &run).await;
    mock.push(text_reply_counted(&format!(
        "## Goal\n{}",
        "a long summary ".repeat(50)
    )));
    let (st, v) = s
        .post(&format!("/api/sessions/{sid}/compact"), json!({}))
        .await;
    assert_eq!(st, 202, "{v}");
    let run = v["run_id"].as_str().unwrap().to_string();
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let events = s.events(&sid).await;
    assert!(of_type(&events, "context_compacted").is_empty());
    let errors = of_type(&events, "error");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["code"], "compaction_grew");
    assert!(
        errors[0]["message"]
            .as_str()
            .unwrap()
            .contains("the conversation is unchanged")
    );
    // The next turn still sends the whole conversation, not the summary.
    mock.push(text_reply_counted("ok three"));
    let run = s.prompt(&sid, "third").await;
    s.wait_run_finished(&sid, &run).await;
    let last = mock.requests.lock().unwrap().last().cloned().unwrap();
    let sent = sent_text(&last);
    assert!(
        sent.contains("and again") && !sent.contains("a long summary"),
        "{sent}"
    );
    s.stop().await;
}

/// A revert's `scope`: `conversation` takes the turn back and leaves the files; `files` puts
/// the files back and leaves the conversation (the model still reads it); `/redo` brings back
/// what each took.
#[tokio::test]
async fn a_revert_can_take_back_the_conversation_or_the_files_alone() {
    let (mock, s, ws, sid) = writing_session().await;
    mock.push(tool_reply(
        "c1",
        "write_file",
        &json!({"path": "a.txt", "content": "two\n"}),
    ));
    mock.push(text_reply("Changed a."));
    let run1 = s.prompt(&sid, "FIRST change a").await;
    s.wait_run_finished(&sid, &run1).await;
    let ids = user_message_ids(&s.events(&sid).await);
    let post = |path: &'static str, body: Value| {
        let s = &s;
        let sid = sid.clone();
        async move { s.post(&format!("/api/sessions/{sid}/{path}"), body).await }
    };

    // The conversation only: the file stays changed, the turn is taken back.
    let (st, v) = post(
        "revert",
        json!({"message_id": ids[0], "scope": "conversation"}),
    )
    .await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["files"], json!([]));
    assert_eq!(v["runs"], json!([run1]));
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "two\n");
    let (st, _) = post("redo", json!({})).await;
    assert_eq!(st, 200);

    // The files only: the file goes back, the conversation stays for the model.
    let (st, v) = post("revert", json!({"message_id": ids[0], "scope": "files"})).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["files"], json!([{"path": "a.txt", "action": "restored"}]));
    assert_eq!(v["runs"], json!([]));
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "one\n");
    mock.push(text_reply("I changed a.txt."));
    let run2 = s.prompt(&sid, "NEXT what did you change").await;
    s.wait_run_finished(&sid, &run2).await;
    let last = mock.requests.lock().unwrap().last().cloned().unwrap();
    assert!(
        sent_text(&last).contains("FIRST change a"),
        "the conversation was kept"
    );
    let (st, v) = post("revert", json!({"message_id": ids[0], "scope": "sideways"})).await;
    assert_eq!(st, 422, "{v}");
    s.stop().await;
}
