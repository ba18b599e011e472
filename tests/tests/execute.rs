//! `execute` (code mode) over the real OpenAI-compatible client: a snippet that reads 20 files
//! through `read_file` in one model round trip, nested calls that pass the same gate and never
//! ask, and clear errors for the time limit, the call limit, `eval` and refused tools.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use tradewind::config::Ceiling;
use tradewind_tests::openai_mock::*;
use tradewind_tests::*;

fn all() -> Ceiling {
    Ceiling {
        write: true,
        process: true,
        external: false,
    }
}

/// Run one `execute` call in a fresh run of `sid`; its result event.
async fn execute(s: &TestServer, mock: &Mock, sid: &str, code: &str) -> Value {
    mock.push(tool_reply("x1", "execute", &json!({ "code": code })));
    mock.push(text_reply("Done."));
    let run = s.prompt(sid, "go").await;
    let end = s.answer_all_until_finished(sid, &run, "once").await;
    assert_eq!(end["status"], "completed", "{end}");
    let events = s.events(sid).await;
    of_type(&events, "tool_result")
        .into_iter()
        .rev()
        .find(|r| r["tool"] == "execute")
        .cloned()
        .unwrap()
}

/// Twenty files read and their lines counted by one snippet: one model round trip for the
/// work (two requests in all: the call and the answer), each nested read shown in the
/// transcript, none of them in the model's history.
#[tokio::test]
async fn execute_sums_the_lines_of_twenty_files_in_one_round_trip() {
    let (mock, s) = with_scripted_model(all()).await;
    for i in 0..20 {
        let body: String = (0..=i).map(|n| format!("line {n}\n")).collect();
        std::fs::write(s.workspace.path().join(format!("f{i}.txt")), body).unwrap();
    }
    let sid = s.create_session("full").await;
    let code = r#"
let total = 0;
for (let i = 0; i < 20; i++) {
  const r = await callTool("read_file", { path: `f${i}.txt` });
  if (!r.ok) throw new Error(r.text);
  total += (r.text.match(/line \d+/g) || []).length;
}
({ total })
"#;
    let result = execute(&s, &mock, &sid, code).await;
    assert_eq!(result["ok"], true, "{result}");
    assert_eq!(result["text"], r#"{"total":210}"#);
    let reqs = mock.requests.lock().unwrap().clone();
    assert_eq!(reqs.len(), 2, "one round trip for the whole job");
    let seen: Vec<&Value> = reqs[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .collect();
    assert_eq!(seen.len(), 1, "the model sees the snippet's result only");
    let events = s.events(&sid).await;
    let reads = of_type(&events, "tool_result")
        .into_iter()
        .filter(|r| r["tool"] == "read_file")
        .count();
    assert_eq!(reads, 20, "each nested call is in the transcript");
    s.stop().await;
}

/// A nested call that would need an approval is denied, never asked; `eval`, `Function` and
/// refused tools fail clearly; the 21st call fails with the limit.
#[tokio::test]
async fn nested_calls_never_ask_and_limits_are_clear() {
    let (mock, s) = with_scripted_model(all()).await;
    std::fs::write(s.workspace.path().join("a.txt"), "a\n").unwrap();
    let sid = s.create_session("ask").await;
    let r = execute(
        &s,
        &mock,
        &sid,
        r#"(await callTool("write_file", { path: "b.txt", content: "b" })).text"#,
    )
    .await;
    assert_eq!(r["ok"], true, "{r}");
    assert!(r["text"].as_str().unwrap().contains("never asks"), "{r}");
    assert!(!s.workspace.path().join("b.txt").exists());
    let events = s.events(&sid).await;
    let asked = of_type(&events, "approval_requested");
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["tool"], "execute", "only execute itself asked");

    let r = execute(&s, &mock, &sid, r#"eval("1 + 1")"#).await;
    assert_eq!(r["ok"], false);
    assert!(r["text"].as_str().unwrap().contains("script_error"), "{r}");
    let r = execute(
        &s,
        &mock,
        &sid,
        r#"(function () {}).constructor("return 1")()"#,
    )
    .await;
    assert!(
        r["text"]
            .as_str()
            .unwrap()
            .contains("not available in execute"),
        "{r}"
    );
    let r = execute(
        &s,
        &mock,
        &sid,
        r#"(await callTool("execute", { code: "1" })).text"#,
    )
    .await;
    assert!(
        r["text"]
            .as_str()
            .unwrap()
            .contains("cannot be called from execute"),
        "{r}"
    );
    let r = execute(
        &s,
        &mock,
        &sid,
        r#"for (let i = 0; i < 25; i++) { await callTool("read_file", { path: "a.txt" }); } 1"#,
    )
    .await;
    assert_eq!(r["ok"], false);
    assert!(
        r["text"]
            .as_str()
            .unwrap()
            .contains("at most 20 tool calls"),
        "{r}"
    );
    s.stop().await;
}

/// A snippet that never ends is stopped at the time limit with a clear error.
#[tokio::test]
async fn a_snippet_that_never_ends_stops_at_ten_seconds() {
    let (mock, s) = with_scripted_model(all()).await;
    let sid = s.create_session("full").await;
    let r = execute(&s, &mock, &sid, "while (true) {}").await;
    assert_eq!(r["ok"], false);
    assert!(
        r["text"].as_str().unwrap().contains("stopped after 10 s"),
        "{r}"
    );
    s.stop().await;
}
