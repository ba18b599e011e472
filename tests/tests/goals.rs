//! Goals and memory over the real OpenAI-compatible client: turns that start by themselves, `blocked`
//! repeated with new evidence before a goal stops, budgets that run out and are raised,
//! `complete` that needs evidence, and tools offered only while a goal is active.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use tradewind_tests::openai_mock::*;
use tradewind_tests::*;

async fn server() -> (Mock, TestServer) {
    with_scripted_model(tradewind::config::Ceiling::default()).await
}

/// The `goal_updated` event that says `pred` of the goal.
async fn goal_where(s: &TestServer, sid: &str, pred: impl Fn(&Value) -> bool) -> Value {
    s.wait_event(sid, |e| e["type"] == "goal_updated" && pred(&e["goal"]))
        .await["goal"]
        .clone()
}

fn blocked(evidence: &str) -> Value {
    json!({"status": "blocked", "summary": "The build needs a token I do not have.", "evidence": [{"kind": "log", "detail": evidence}]})
}

/// Five turns: three of work, then `blocked` twice with new evidence; the goal stops blocked
/// after the fifth and no sixth turn starts. The tools are offered only while it is active.
#[tokio::test]
async fn a_goal_runs_turns_by_itself_and_stops_after_blocked_twice() {
    let (mock, s) = server().await;
    let sid = s.create_session("ask").await;
    mock.push(text_reply("Hello."));
    let run = s.prompt(&sid, "hi").await;
    s.wait_run_finished(&sid, &run).await;
    for n in 1..=3 {
        mock.push(text_reply(&format!("Worked on it ({n}).")));
    }
    mock.push(tool_reply(
        "b1",
        "update_goal",
        &blocked("error: missing NPM_TOKEN"),
    ));
    mock.push(text_reply("I am blocked."));
    // The same evidence again is refused; new evidence is taken.
    mock.push(tool_reply(
        "b2",
        "update_goal",
        &blocked("error: missing NPM_TOKEN"),
    ));
    mock.push(tool_reply(
        "b3",
        "update_goal",
        &blocked("npm publish --dry-run: 401 Unauthorized"),
    ));
    mock.push(text_reply("Still blocked: I need NPM_TOKEN."));
    let (st, g) = s
        .post(
            &format!("/api/sessions/{sid}/goal"),
            json!({"objective": "Publish the package", "budget": {"turns": 10}}),
        )
        .await;
    assert_eq!(st, 201, "{g}");
    assert_eq!(g["status"], "active");
    assert_eq!(g["budget"]["turns"], 10);
    assert_eq!(g["budget"]["minutes"], 120);
    let (st, v) = s
        .post(
            &format!("/api/sessions/{sid}/goal"),
            json!({"objective": "Another"}),
        )
        .await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (409, Some("goal_exists"))
    );

    let g = goal_where(&s, &sid, |g| g["budget"]["used_turns"] == 5).await;
    assert_eq!(g["status"], "blocked", "{g}");
    assert_eq!(g["blocked_streak"], 2);
    let reports = g["reports"].as_array().unwrap();
    assert_eq!(reports.len(), 2);
    assert_eq!(
        (reports[0]["turn"].as_i64(), reports[1]["turn"].as_i64()),
        (Some(4), Some(5))
    );
    assert_eq!(
        reports[1]["evidence"][0]["detail"],
        "npm publish --dry-run: 401 Unauthorized"
    );
    let (_, runs) = s.get(&format!("/api/sessions/{sid}/runs")).await;
    let goal_runs = runs["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["trigger"] == "goal")
        .count();
    assert_eq!(goal_runs, 5, "{runs}");

    let reqs = mock.requests.lock().unwrap().clone();
    assert!(
        !tool_names(&reqs[0]).contains(&"update_goal".to_string()),
        "no goal: no goal tools"
    );
    let offered = tool_names(&reqs[1]);
    assert!(
        offered.contains(&"get_goal".to_string()) && offered.contains(&"update_goal".to_string())
    );
    let first_goal_prompt = reqs[1]["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        first_goal_prompt.contains("Publish the package"),
        "{first_goal_prompt}"
    );
    assert!(
        first_goal_prompt.contains("10 turns"),
        "{first_goal_prompt}"
    );
    let events = s.events(&sid).await;
    let results: Vec<&Value> = of_type(&events, "tool_result")
        .into_iter()
        .filter(|r| r["tool"] == "update_goal")
        .collect();
    assert_eq!(results.len(), 3);
    assert!(
        results[0]["text"].as_str().unwrap().contains("(1 of 2)"),
        "{}",
        results[0]
    );
    assert!(
        results[1]["text"]
            .as_str()
            .unwrap()
            .contains("same_evidence"),
        "{}",
        results[1]
    );
    assert!(
        results[2]["text"]
            .as_str()
            .unwrap()
            .contains("stops as blocked"),
        "{}",
        results[2]
    );
    s.stop().await;
}

/// A turn budget runs out; resuming needs a raised budget; a raised one runs one more turn.
#[tokio::test]
async fn a_goal_stops_when_its_turn_budget_runs_out_and_resumes_when_raised() {
    let (mock, s) = server().await;
    let sid = s.create_session("ask").await;
    for n in 1..=3 {
        mock.push(text_reply(&format!("Turn {n}.")));
    }
    let (st, _) = s
        .post(
            &format!("/api/sessions/{sid}/goal"),
            json!({"objective": "Refactor the parser", "budget": {"turns": 3}}),
        )
        .await;
    assert_eq!(st, 201);
    let g = goal_where(&s, &sid, |g| g["status"] == "budget_exhausted").await;
    assert_eq!(g["budget"]["used_turns"], 3);
    assert!(g["reason"].as_str().unwrap().contains("turns"), "{g}");
    assert!(g["budget"]["used_tokens"].as_i64().unwrap() > 0);
    let path = format!("/api/sessions/{sid}/goal");
    let (st, v) = s
        .send(reqwest::Method::PATCH, &path, json!({"status": "active"}))
        .await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (409, Some("budget_exhausted"))
    );
    mock.push(text_reply("Turn 4."));
    let (st, v) = s
        .send(
            reqwest::Method::PATCH,
            &path,
            json!({"status": "active", "budget": {"turns": 4}}),
        )
        .await;
    assert_eq!(st, 200, "{v}");
    let g = goal_where(&s, &sid, |g| g["budget"]["used_turns"] == 4).await;
    assert_eq!(g["status"], "budget_exhausted");
    assert_eq!(mock.request_count(), 4);
    // Bad budgets and a blank objective are refused.
    for bad in [
        json!({"budget": {"turns": 0}}),
        json!({"budget": {"minutes": 5000}}),
        json!({"objective": "   "}),
    ] {
        assert_eq!(s.send(reqwest::Method::PATCH, &path, bad).await.0, 422);
    }
    let (st, _) = s.send(reqwest::Method::DELETE, &path, json!({})).await;
    assert_eq!(st, 204);
    assert_eq!(s.get(&path).await.0, 404);
    s.stop().await;
}

/// A goal set while a run is in progress: that run is not one of its turns (it began before
/// the goal), and the goal's first turn starts as soon as it ends.
#[tokio::test]
async fn a_goal_set_during_a_run_starts_its_first_turn_after_it() {
    let (mock, s) = server().await;
    let sid = s.create_session("ask").await;
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(2));
    mock.push(Reply::AfterBarrier {
        barrier: barrier.clone(),
        then: Box::new(text_reply("Hello.")),
    });
    mock.push(text_reply("Worked on it."));
    let run = s.prompt(&sid, "hi").await;
    s.wait_event(&sid, |e| e["type"] == "run_started" && e["run_id"] == run)
        .await;
    let (st, _) = s
        .post(
            &format!("/api/sessions/{sid}/goal"),
            json!({"objective": "Tidy the README", "budget": {"turns": 1}}),
        )
        .await;
    assert_eq!(st, 201);
    barrier.wait().await;
    let g = goal_where(&s, &sid, |g| g["status"] == "budget_exhausted").await;
    assert_eq!(g["budget"]["used_turns"], 1, "{g}");
    let (_, runs) = s.get(&format!("/api/sessions/{sid}/runs")).await;
    let triggers: Vec<&str> = runs["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["trigger"].as_str())
        .collect();
    assert_eq!(
        triggers.iter().filter(|t| **t == "goal").count(),
        1,
        "{runs}"
    );
    let reqs = mock.requests.lock().unwrap().clone();
    assert_eq!(reqs.len(), 2);
    assert!(!tool_names(&reqs[0]).contains(&"update_goal".to_string()));
    assert!(tool_names(&reqs[1]).contains(&"update_goal".to_string()));
    s.stop().await;
}

/// `complete` without evidence is refused; with evidence it ends the goal, and no turn follows.
#[tokio::test]
async fn a_goal_completes_only_with_evidence() {
    let (mock, s) = server().await;
    let sid = s.create_session("ask").await;
    mock.push(tool_reply(
        "c1",
        "update_goal",
        &json!({"status": "complete", "summary": "Done.", "evidence": []}),
    ));
    mock.push(tool_reply(
        "c2",
        "update_goal",
        &json!({"status": "complete", "summary": "The tests pass.", "evidence": [{"kind": "test", "detail": "cargo test: 42 passed"}, {"kind": "file", "detail": "src/parser.rs"}]}),
    ));
    mock.push(text_reply("All done."));
    // `has_goal` on the session says whether `GET …/goal` has one to read.
    let has_goal = |v: &Value| v["has_goal"].as_bool();
    assert_eq!(
        has_goal(&s.get(&format!("/api/sessions/{sid}")).await.1),
        Some(false)
    );
    let (st, _) = s
        .post(
            &format!("/api/sessions/{sid}/goal"),
            json!({"objective": "Make the tests pass"}),
        )
        .await;
    assert_eq!(st, 201);
    assert_eq!(
        has_goal(&s.get(&format!("/api/sessions/{sid}")).await.1),
        Some(true)
    );
    let g = goal_where(&s, &sid, |g| {
        g["status"] == "complete" && g["budget"]["used_turns"] == 1
    })
    .await;
    assert_eq!(g["reports"][0]["evidence"].as_array().unwrap().len(), 2);
    // Neither was confirmed: no command ran, and no such file exists.
    assert_eq!(g["reason"], "reported complete — evidence unverified");
    let unverified = g["reports"][0]["unverified"].as_array().unwrap();
    assert_eq!(unverified.len(), 2, "{g}");
    assert_eq!(unverified[0]["index"], 0);
    assert!(
        unverified[0]["reason"]
            .as_str()
            .unwrap()
            .contains("no command")
    );
    assert_eq!(unverified[1]["index"], 1);
    assert!(
        unverified[1]["reason"]
            .as_str()
            .unwrap()
            .contains("`src/parser.rs` does not exist")
    );
    let events = s.events(&sid).await;
    let told = of_type(&events, "tool_result")[1]["text"].as_str().unwrap();
    assert!(told.contains("evidence unverified"), "{told}");
    let first = of_type(&events, "tool_result")[0];
    assert!(
        first["text"]
            .as_str()
            .unwrap()
            .contains("complete needs evidence"),
        "{first}"
    );
    assert_eq!(mock.request_count(), 3);
    // Listed with it, in any status; gone with the goal.
    let (_, list) = s.get("/api/sessions").await;
    let listed = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == sid.as_str())
        .cloned();
    assert_eq!(listed.as_ref().and_then(has_goal), Some(true), "{list}");
    let (st, _) = s
        .send(
            reqwest::Method::DELETE,
            &format!("/api/sessions/{sid}/goal"),
            json!({}),
        )
        .await;
    assert!(st < 300, "{st}");
    assert_eq!(
        has_goal(&s.get(&format!("/api/sessions/{sid}")).await.1),
        Some(false)
    );
    // A plan session cannot have a goal.
    let plan = s.create_session("ask").await;
    s.send(
        reqwest::Method::PATCH,
        &format!("/api/sessions/{plan}"),
        json!({"agent": "plan"}),
    )
    .await;
    let (st, v) = s
        .post(
            &format!("/api/sessions/{plan}/goal"),
            json!({"objective": "x"}),
        )
        .await;
    assert_eq!((st, v["error"]["code"].as_str()), (409, Some("plan_agent")));
    s.stop().await;
}

/// Evidence the session backs is confirmed without running anything: a file that exists in the
/// workspace, the command the session ran (a `!command` here); a path outside the workspace is
/// not.
#[tokio::test]
async fn complete_evidence_is_checked_against_the_workspace_and_the_sessions_commands() {
    let (mock, s) = server().await;
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "!echo built > out.txt").await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    mock.push(tool_reply(
        "c1",
        "update_goal",
        &json!({"status": "complete", "summary": "Built.", "evidence": [
            {"kind": "file", "detail": "out.txt:1 — the build's output"},
            {"kind": "command", "detail": "`echo built > out.txt` exited 0"},
            {"kind": "log", "detail": "anything goes here"},
        ]}),
    ));
    mock.push(text_reply("Done."));
    s.post(
        &format!("/api/sessions/{sid}/goal"),
        json!({"objective": "Build it"}),
    )
    .await;
    let g = goal_where(&s, &sid, |g| g["status"] == "complete").await;
    assert_eq!(g["reason"], "reported complete", "{g}");
    assert!(g["reports"][0].get("unverified").is_none(), "{g}");

    // A second goal: a path outside the workspace is not evidence.
    s.send(
        reqwest::Method::DELETE,
        &format!("/api/sessions/{sid}/goal"),
        json!({}),
    )
    .await;
    mock.push(tool_reply(
        "c2",
        "update_goal",
        &json!({"status": "complete", "summary": "Built.", "evidence": [
            {"kind": "file", "detail": "/etc/hostname"},
        ]}),
    ));
    mock.push(text_reply("Done."));
    s.post(
        &format!("/api/sessions/{sid}/goal"),
        json!({"objective": "Build it again"}),
    )
    .await;
    let g = goal_where(&s, &sid, |g| {
        g["status"] == "complete" && g["objective"] == "Build it again"
    })
    .await;
    assert!(
        g["reports"][0]["unverified"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("outside the session's folders"),
        "{g}"
    );
    s.stop().await;
}

/// Memory: a workspace note is kept without asking, a note for every workspace asks first;
/// the relevant notes reach a later session's system prompt with their ids; a key replaces;
/// a delete removes.
#[tokio::test]
async fn memories_are_kept_found_and_reach_later_prompts() {
    let (mock, s) = server().await;
    let sid = s.create_session("ask").await;
    mock.push(tool_reply(
        "m1",
        "memory_write",
        &json!({"key": "test command", "text": "Run the tests with make check", "scope": "workspace"}),
    ));
    mock.push(tool_reply(
        "m2",
        "memory_write",
        &json!({"text": "The user prefers short answers", "scope": "user"}),
    ));
    mock.push(text_reply("Noted."));
    let run = s.prompt(&sid, "remember how to run the tests").await;
    let end = s.answer_all_until_finished(&sid, &run, "once").await;
    assert_eq!(end["status"], "completed", "{end}");
    let events = s.events(&sid).await;
    let asked = of_type(&events, "approval_requested");
    assert_eq!(asked.len(), 1, "only the user-wide note asks");
    assert_eq!(asked[0]["tool"], "memory_write");
    let kept: Vec<&Value> = of_type(&events, "tool_result")
        .into_iter()
        .filter(|r| r["tool"] == "memory_write")
        .collect();
    assert!(kept.iter().all(|r| r["ok"] == true), "{kept:?}");

    // A later session: the relevant notes are in its system prompt.
    let later = s.create_session("ask").await;
    mock.push(text_reply("Use make check."));
    let run = s.prompt(&later, "how do I run the tests?").await;
    s.wait_run_finished(&later, &run).await;
    let system = mock.requests.lock().unwrap().last().unwrap()["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(system.contains("## Memories"), "{system}");
    assert!(
        system.contains("test command: Run the tests with make check"),
        "{system}"
    );
    let id = system
        .lines()
        .find(|l| l.contains("make check"))
        .and_then(|l| l.split(['[', ']']).nth(1))
        .unwrap()
        .to_string();

    // The same key replaces; a delete removes.
    mock.push(tool_reply(
        "m3",
        "memory_write",
        &json!({"key": "test command", "text": "Run the tests with just test", "scope": "workspace"}),
    ));
    mock.push(tool_reply(
        "m4",
        "memory_search",
        &json!({"query": "tests"}),
    ));
    mock.push(tool_reply("m5", "memory_delete", &json!({"id": id})));
    mock.push(tool_reply(
        "m6",
        "memory_search",
        &json!({"query": "tests"}),
    ));
    mock.push(text_reply("Updated."));
    let run = s.prompt(&later, "we use just now").await;
    s.wait_run_finished(&later, &run).await;
    let events = s.events(&later).await;
    let searches: Vec<String> = of_type(&events, "tool_result")
        .into_iter()
        .filter(|r| r["tool"] == "memory_search")
        .map(|r| r["text"].as_str().unwrap().to_string())
        .collect();
    assert!(
        searches[0].contains("just test") && !searches[0].contains("make check"),
        "{searches:?}"
    );
    assert_eq!(
        searches[0].matches(&id).count(),
        1,
        "replaced in place: {searches:?}"
    );
    assert_eq!(searches[1], "No memory matches.", "{searches:?}");

    // The panel's calls: list, search, edit, delete.
    let (st, list) = s.get("/api/memories").await;
    assert_eq!(st, 200);
    let data = list["data"].as_array().unwrap();
    assert_eq!(data.len(), 1, "{list}");
    assert_eq!(data[0]["scope"], "user");
    let uid = data[0]["id"].as_str().unwrap().to_string();
    let path = format!("/api/memories/{uid}");
    let (st, m) = s
        .send(
            reqwest::Method::PATCH,
            &path,
            json!({"text": "The user prefers terse answers"}),
        )
        .await;
    assert_eq!(
        (st, m["text"].as_str()),
        (200, Some("The user prefers terse answers"))
    );
    assert_eq!(
        s.send(reqwest::Method::PATCH, &path, json!({"text": "  "}))
            .await
            .0,
        422
    );
    let (_, found) = s.get("/api/memories?q=terse").await;
    assert_eq!(found["data"][0]["id"], uid.as_str());
    let (_, none) = s.get("/api/memories?q=nothing+like+it").await;
    assert_eq!(none["data"], json!([]));
    assert_eq!(
        s.send(reqwest::Method::DELETE, &path, json!({})).await.0,
        204
    );
    assert_eq!(
        s.send(reqwest::Method::DELETE, &path, json!({})).await.0,
        404
    );
    s.stop().await;
}

/// The read-only plan agent is offered no tool that keeps state (memory_write, memory_delete)
/// and its call of one is refused; deleting a user memory asks like writing one.
#[tokio::test]
async fn the_plan_agent_keeps_no_memories_and_a_user_memory_delete_asks() {
    let (mock, s) = server().await;
    let sid = s.create_session("ask").await;
    mock.push(tool_reply(
        "m1",
        "memory_write",
        &json!({"text": "Answer in French", "scope": "user"}),
    ));
    mock.push(text_reply("Noted."));
    let run = s.prompt(&sid, "remember").await;
    s.answer_all_until_finished(&sid, &run, "once").await;
    let (_, list) = s.get("/api/memories").await;
    let uid = list["data"][0]["id"].as_str().unwrap().to_string();
    // Deleting it asks; denied, it stays.
    mock.push(tool_reply("d1", "memory_delete", &json!({"id": uid})));
    mock.push(text_reply("Tried."));
    let run = s.prompt(&sid, "forget it").await;
    let end = s.answer_all_until_finished(&sid, &run, "deny").await;
    assert_eq!(end["status"], "completed", "{end}");
    let events = s.events(&sid).await;
    let asked: Vec<&Value> = of_type(&events, "approval_requested")
        .into_iter()
        .filter(|a| a["tool"] == "memory_delete")
        .collect();
    assert_eq!(asked.len(), 1, "the delete asked");
    let (_, list) = s.get("/api/memories").await;
    assert_eq!(list["data"].as_array().unwrap().len(), 1, "denied: kept");
    // The plan agent: not offered, and refused when called anyway.
    let plan = s.create_session("ask").await;
    s.send(
        reqwest::Method::PATCH,
        &format!("/api/sessions/{plan}"),
        json!({"agent": "plan"}),
    )
    .await;
    let (_, tools) = s.get(&format!("/api/tools?session={plan}")).await;
    for name in ["memory_write", "memory_delete"] {
        let t = tools["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{tools}"));
        assert_eq!(t["status"], "disabled", "{t}");
    }
    mock.push(tool_reply(
        "p1",
        "memory_write",
        &json!({"text": "sneaky", "scope": "workspace"}),
    ));
    mock.push(text_reply("Planned."));
    let run = s.prompt(&plan, "plan").await;
    s.wait_run_finished(&plan, &run).await;
    let offered = mock.requests.lock().unwrap().last().unwrap()["tools"].to_string();
    assert!(!offered.contains("memory_write"), "{offered}");
    let events = s.events(&plan).await;
    let r = of_type(&events, "tool_result")
        .into_iter()
        .find(|r| r["tool"] == "memory_write")
        .cloned()
        .unwrap();
    assert_eq!(r["ok"], false, "{r}");
    let (_, list) = s.get("/api/memories").await;
    assert_eq!(list["data"].as_array().unwrap().len(), 1, "nothing written");
    s.stop().await;
}
