//! Agent Skills end to end: the workspace's skills held back until trusted as shown (a change
//! holds them back again), the user's own always; a scripted model loads a skill and reads its
//! reference; a link to a key in its folder and a `..` path are refused; the system prompt
//! lists names and descriptions only.

use serde_json::{Value, json};
use tradewind_tests::openai_mock::{Mock, text_reply, tool_reply};
use tradewind_tests::*;

fn put(dir: &std::path::Path, text: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
}

fn results(events: &[Value]) -> Vec<Value> {
    of_type(events, "tool_result")
        .into_iter()
        .cloned()
        .collect()
}

#[tokio::test]
async fn a_trusted_skill_is_loaded_and_its_files_read_beneath_it() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        openai: Some(url),
        ..Opts::default()
    })
    .await;
    let ws = s.workspace.path();
    let pdf = ws.join(".claude/skills/pdf");
    put(
        &pdf,
        "---\nname: pdf\ndescription: Fill in PDF forms with the bundled script.\nallowed-tools: Read, Bash(python:*)\n---\n# PDF forms\nRun scripts/fill.py FORM DATA.\nSECRET-BODY-MARK\n",
    );
    std::fs::create_dir_all(pdf.join("references")).unwrap();
    std::fs::write(
        pdf.join("references/guide.md"),
        "Guide: fields are named f1..f9.\n",
    )
    .unwrap();
    // A key outside the workspace, linked from the skill's folder.
    let outside = TempDir::new("tw-skill-outside");
    std::fs::write(
        outside.path().join("id_rsa"),
        "-----BEGIN OPENSSH PRIVATE KEY-----\nkey\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path().join("id_rsa"), pdf.join("references/key.md"))
        .unwrap();
    put(
        &s.state.path().join("skills/notes"),
        "---\nname: notes\ndescription: Keep a notes file.\n---\nWrite notes to NOTES.md.\n",
    );

    // Untrusted: the workspace's skill is held back, the user's is listed.
    let (st, list) = s.get("/api/skills").await;
    assert_eq!(st, 200);
    assert_eq!(list["untrusted"], true, "{list}");
    let names: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["notes"]);
    let (st, _) = s.post("/api/skills/trust", json!({"hash": "0000"})).await;
    assert_eq!(st, 409);
    let hash = list["workspace_hash"].as_str().unwrap().to_string();
    let (st, list) = s.post("/api/skills/trust", json!({"hash": hash})).await;
    assert_eq!(st, 200, "{list}");
    assert_eq!(list["untrusted"], false);
    let pdf_info = &list["data"][0];
    assert_eq!(pdf_info["name"], "pdf");
    assert_eq!(pdf_info["source"], "workspace");
    assert_eq!(pdf_info["allowed_tools"], json!(["Read", "Bash(python:*)"]));

    mock.push(tool_reply("l1", "skill_load", &json!({"name": "pdf"})));
    mock.push(tool_reply(
        "r1",
        "skill_resource",
        &json!({"name": "pdf", "path": "references/guide.md"}),
    ));
    mock.push(tool_reply(
        "r2",
        "skill_resource",
        &json!({"name": "pdf", "path": "references/key.md"}),
    ));
    mock.push(tool_reply(
        "r3",
        "skill_resource",
        &json!({"name": "pdf", "path": "../../../AGENTS.md"}),
    ));
    mock.push(tool_reply(
        "r4",
        "skill_resource",
        &json!({"name": "notes", "path": "SKILL.md"}),
    ));
    mock.push(tool_reply("s1", "skill_search", &json!({"query": "notes"})));
    mock.push(text_reply("Done."));
    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "fill the form").await;
    let fin = s.wait_run_finished(&sid, &run).await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let reqs = mock.requests.lock().unwrap().clone();
    let system = reqs[0]["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        system.contains("- pdf: Fill in PDF forms with the bundled script."),
        "{system}"
    );
    assert!(system.contains("- notes: Keep a notes file."), "{system}");
    assert!(
        !system.contains("SECRET-BODY-MARK"),
        "only names and descriptions"
    );
    let r = results(&s.events(&sid).await);
    let text = |i: usize| r[i]["text"].as_str().unwrap().to_string();
    assert_eq!(r[0]["ok"], true);
    assert!(
        text(0).contains("SECRET-BODY-MARK") && text(0).contains("references/guide.md"),
        "{}",
        text(0)
    );
    assert!(
        text(0).contains("allowed-tools: Read, Bash(python:*)"),
        "{}",
        text(0)
    );
    assert!(text(1).contains("Guide: fields are named"), "{}", text(1));
    assert_eq!(r[2]["ok"], false, "a link is never followed: {}", r[2]);
    assert!(!text(2).contains("PRIVATE KEY"));
    assert_eq!(r[3]["ok"], false, "{}", r[3]);
    assert!(text(3).contains("without `..`"), "{}", text(3));
    // The user's own skill, in the state directory the file tools never read.
    assert!(text(4).contains("Write notes to NOTES.md."), "{}", text(4));
    assert!(
        text(5).starts_with("- notes: Keep a notes file."),
        "{}",
        text(5)
    );

    // Each skill is a command too (`/pdf args`), after the built-in and workspace ones.
    let (_, cmds) = s.get(&format!("/api/sessions/{sid}/commands")).await;
    let pdf_cmd = cmds["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "pdf")
        .cloned()
        .unwrap();
    assert_eq!(pdf_cmd["skill"], true);
    assert!(pdf_cmd["template"].as_str().unwrap().contains("skill_load"));
    // A changed skill is held back until trusted again.
    std::fs::write(
        pdf.join("SKILL.md"),
        "---\nname: pdf\ndescription: changed\n---\nx\n",
    )
    .unwrap();
    let (_, list) = s.get("/api/skills").await;
    assert_eq!(list["untrusted"], true);
    assert!(
        list["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["name"] != "pdf")
    );
    // The trust list shows what was trusted and that it no longer holds; revoked, it is gone.
    let (_, trust) = s.get("/api/trust").await;
    let entry = trust["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["kind"] == "skills")
        .cloned()
        .unwrap();
    assert_eq!(entry["workspace"], ws.display().to_string());
    assert_eq!(entry["hash"], hash);
    assert_eq!(entry["current"], false);
    // The command line lists the same.
    let out = std::process::Command::new(binary())
        .args(["trust", "list", "--state-dir"])
        .arg(s.state.path())
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{listed}");
    assert!(
        listed.contains(&format!("skills\tchanged\t{hash}\t{}", ws.display())),
        "{listed}"
    );
    let q = format!("/api/trust?kind=skills&workspace={}", ws.display());
    let (st, v) = s.send(reqwest::Method::DELETE, &q, json!(null)).await;
    assert_eq!(st, 204, "{v}");
    let (st, _) = s.send(reqwest::Method::DELETE, &q, json!(null)).await;
    assert_eq!(st, 404);
    let (st, _) = s
        .send(
            reqwest::Method::DELETE,
            "/api/trust?kind=plugins&workspace=/x",
            json!(null),
        )
        .await;
    assert_eq!(st, 400, "an unknown kind is not a query this route takes");
    let (_, trust) = s.get("/api/trust").await;
    assert!(
        trust["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["kind"] != "skills")
    );
    s.stop().await;
}

/// A user skill's script runs in the jail from the neutral path `skill_load` names, its folder
/// read-only there, while the rest of the state directory stays hidden; a skill turned off is
/// neither listed to the model nor loadable.
#[tokio::test]
async fn a_user_skill_s_script_runs_in_the_jail_and_the_state_dir_stays_hidden() {
    let mock = Mock::default();
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        openai: Some(url),
        ceiling: tradewind::policy::Ceiling {
            write: true,
            process: true,
            external: false,
        },
        ..Opts::default()
    })
    .await;
    let (_, cfg) = s.get("/api/config").await;
    assert_eq!(cfg["sandbox"]["jail"], "bwrap", "{}", cfg["sandbox"]);
    let skill = s.state.path().join("skills/greet");
    put(
        &skill,
        "---\nname: greet\ndescription: Greet with the bundled script.\n---\nRun scripts/hello.sh.\n",
    );
    std::fs::create_dir_all(skill.join("scripts")).unwrap();
    std::fs::write(skill.join("scripts/hello.sh"), "echo HELLO-FROM-SKILL\n").unwrap();
    put(
        &s.state.path().join("skills/off"),
        "---\nname: off\ndescription: Turned off.\n---\nOFF-BODY\n",
    );
    let state = s.state.path().display().to_string();
    let (st, list) = s
        .send(
            reqwest::Method::PUT,
            "/api/skills/off",
            json!({"enabled": false}),
        )
        .await;
    assert_eq!(st, 200, "{list}");
    let off = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "off")
        .cloned()
        .unwrap();
    assert_eq!(off["enabled"], false);
    let (st, _) = s
        .send(
            reqwest::Method::PUT,
            "/api/skills/nosuch",
            json!({"enabled": false}),
        )
        .await;
    assert_eq!(st, 404);

    mock.push(tool_reply("l0", "skill_load", &json!({"name": "off"})));
    mock.push(tool_reply("l1", "skill_load", &json!({"name": "greet"})));
    mock.push(tool_reply(
        "c1",
        "shell",
        &json!({"command": format!(
            "sh /run/tradewind/skills/greet/scripts/hello.sh; touch /run/tradewind/skills/greet/x 2>/dev/null && echo WROTE; ls {state} 2>&1; cat {state}/tradewind.db 2>&1 | head -c 20"
        )}),
    ));
    mock.push(text_reply("Done."));
    let (st, v) = s.post("/api/sessions", json!({"mode": "full"})).await;
    assert_eq!(st, 201, "{v}");
    let sid = v["id"].as_str().unwrap().to_string();
    let run = s.prompt(&sid, "greet").await;
    let fin = s.answer_all_until_finished(&sid, &run, "once").await;
    assert_eq!(fin["status"], "completed", "{fin}");
    let reqs = mock.requests.lock().unwrap().clone();
    let system = reqs[0]["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("- greet:"), "{system}");
    assert!(
        !system.contains("- off:"),
        "a skill turned off is not listed"
    );
    let r = results(&s.events(&sid).await);
    let text = |i: usize| r[i]["text"].as_str().unwrap().to_string();
    assert_eq!(r[0]["ok"], false, "{}", r[0]);
    assert!(!text(0).contains("OFF-BODY"));
    assert!(
        text(1).contains("/run/tradewind/skills/greet"),
        "{}",
        text(1)
    );
    let out = text(2);
    assert!(out.contains("HELLO-FROM-SKILL"), "{out}");
    assert!(
        !out.contains("WROTE"),
        "the skill's folder is read-only: {out}"
    );
    assert!(!out.contains("skills"), "the state dir is hidden: {out}");
    assert!(!out.contains("SQLite"), "{out}");
    assert!(!skill.join("x").exists());
}
