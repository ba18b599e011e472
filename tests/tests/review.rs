//! Review like a pull request (the review issue): sessions in worktrees of their own, each
//! command in the real jail; a session's review with a worktree and without; hunks staged and
//! reverted; line comments sent back to the agent and answered.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use tradewind_tests::*;

/// `git` in `dir` as the user would run it (outside the server), checked.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A repository in the server's workspace: `a.txt` (twenty lines) and `b.txt` committed on
/// `main`, a `feature` branch with `f.txt`, and an untracked `.env`.
fn repo(ws: &Path) {
    git(ws, &["init", "-q", "-b", "main"]);
    let twenty: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    std::fs::write(ws.join("a.txt"), twenty).unwrap();
    std::fs::write(ws.join("b.txt"), "bee\n").unwrap();
    std::fs::write(ws.join(".gitignore"), ".env\nsetup-ran\n").unwrap();
    git(ws, &["add", "-A"]);
    git(ws, &["commit", "-qm", "start"]);
    git(ws, &["checkout", "-qb", "feature"]);
    std::fs::write(ws.join("f.txt"), "feature file\n").unwrap();
    git(ws, &["add", "f.txt"]);
    git(ws, &["commit", "-qm", "feature"]);
    git(ws, &["checkout", "-q", "main"]);
    std::fs::write(ws.join(".env"), "TOKEN=local\n").unwrap();
}

/// Worktrees beside the state directory (never inside it or the repository), copying `.env`,
/// with a setup command.
fn worktrees(cfg: &mut tradewind::config::Config) {
    cfg.worktrees.dir = Some(PathBuf::from(format!("{}-wt", cfg.state_dir.display())));
    cfg.worktrees.copy = vec![".env".into()];
}

fn with_setup(cfg: &mut tradewind::config::Config) {
    worktrees(cfg);
    cfg.worktrees.setup = Some("touch setup-ran".into());
}

struct Repo {
    s: TestServer,
    _wt: TempDir,
}

async fn start(tweak: fn(&mut tradewind::config::Config)) -> Repo {
    let ws = TempDir::new("review-ws");
    repo(ws.path());
    let state = TempDir::new("review-state");
    let wt = TempDir::adopt(PathBuf::from(format!("{}-wt", state.path().display())));
    let s = TestServer::start_in(
        Opts {
            tweak: Some(tweak),
            ..Opts::default()
        },
        ws,
        state,
    )
    .await;
    Repo { s, _wt: wt }
}

async fn worktree_session(s: &TestServer, body: Value) -> Value {
    let (st, v) = s.post("/api/sessions", body).await;
    assert_eq!(st, 201, "{v}");
    v
}

/// Run `!command` in a session (from the full token: the user's own) and return its result.
async fn bang(s: &TestServer, sid: &str, cmd: &str) -> Value {
    let run = s.prompt(sid, &format!("!{cmd}")).await;
    s.wait_run_finished(sid, &run).await;
    s.events(sid)
        .await
        .into_iter()
        .rev()
        .find(|e| e["type"] == "tool_result" && e["run"] == run.as_str())
        .unwrap()
}

const COMMIT: &str = "git -c user.name=T -c user.email=t@example.com commit -qm";

/// Two sessions in worktrees of one repository edit the same file without seeing each other's
/// edit, and each commit lands on its own branch; the main checkout is untouched.
#[tokio::test]
async fn two_worktree_sessions_edit_one_file_apart_and_commit_to_their_own_branches() {
    let rp = start(worktrees).await;
    let s = &rp.s;
    let repo_dir = s.workspace.path().to_path_buf();
    let one = worktree_session(s, json!({"mode": "ask", "worktree": true})).await;
    let two = worktree_session(s, json!({"mode": "ask", "worktree": true})).await;
    let (id1, id2) = (one["id"].as_str().unwrap(), two["id"].as_str().unwrap());
    let wt1 = &one["worktree"];
    assert_eq!(wt1["base"], "main");
    assert_eq!(wt1["base_commit"], git(&repo_dir, &["rev-parse", "main"]));
    let slug = id1.to_ascii_lowercase();
    assert_eq!(wt1["branch"], format!("tw/{slug}"));
    assert_eq!(one["workspace"], wt1["dir"]);
    assert!(
        !wt1["dir"]
            .as_str()
            .unwrap()
            .starts_with(repo_dir.to_str().unwrap())
    );
    // The listed untracked file was copied in.
    let dir1 = PathBuf::from(wt1["dir"].as_str().unwrap());
    assert_eq!(
        std::fs::read_to_string(dir1.join(".env")).unwrap(),
        "TOKEN=local\n"
    );

    let r1 = bang(
        s,
        id1,
        &format!("echo one > a.txt && cat a.txt && git add a.txt && {COMMIT} from-one"),
    )
    .await;
    assert_eq!(r1["ok"], true, "{r1}");
    let r2 = bang(
        s,
        id2,
        &format!("cat a.txt && echo two > a.txt && git add a.txt && {COMMIT} from-two"),
    )
    .await;
    assert_eq!(r2["ok"], true, "{r2}");
    assert!(
        r2["text"].as_str().unwrap().contains("line 1"),
        "the second session saw the first one's edit: {r2}"
    );
    let b1 = wt1["branch"].as_str().unwrap();
    let b2 = two["worktree"]["branch"].as_str().unwrap();
    assert_eq!(
        git(&repo_dir, &["log", "-1", "--format=%s", b1]),
        "from-one"
    );
    assert_eq!(
        git(&repo_dir, &["log", "-1", "--format=%s", b2]),
        "from-two"
    );
    assert_eq!(git(&repo_dir, &["show", &format!("{b1}:a.txt")]), "one");
    assert_eq!(git(&repo_dir, &["show", &format!("{b2}:a.txt")]), "two");
    assert!(
        std::fs::read_to_string(repo_dir.join("a.txt"))
            .unwrap()
            .starts_with("line 1\n")
    );
    assert_eq!(git(&repo_dir, &["symbolic-ref", "--short", "HEAD"]), "main");
    assert_eq!(
        git(
            &repo_dir,
            &["status", "--porcelain", "--untracked-files=no"]
        ),
        ""
    );

    // What git rewrites by renaming a lock file over it works from a worktree: a branch made
    // and deleted, the refs packed, an automatic gc.
    let r = bang(
        s,
        id1,
        "git branch tmp-x && git branch -D tmp-x && git pack-refs --all && git gc --auto && git branch --list 'tw/*' | wc -l",
    )
    .await;
    assert_eq!(r["ok"], true, "{r}");
    assert!(
        std::fs::read_to_string(repo_dir.join(".git/packed-refs"))
            .unwrap()
            .contains(b1)
    );
    assert_eq!(
        git(&repo_dir, &["log", "-1", "--format=%s", b2]),
        "from-two"
    );
    rp.s.stop().await;
}

/// What a worktree session's commands may not change of the shared git directory: its config,
/// its hooks, the main checkout's HEAD and index, another worktree's state, its own `gitdir`.
#[tokio::test]
async fn a_worktree_session_cannot_change_the_repositorys_control_files() {
    let rp = start(worktrees).await;
    let s = &rp.s;
    let repo_dir = s.workspace.path().to_path_buf();
    let one = worktree_session(s, json!({"mode": "ask", "worktree": true})).await;
    let two = worktree_session(s, json!({"mode": "ask", "worktree": true})).await;
    let id1 = one["id"].as_str().unwrap();
    let dir1 = PathBuf::from(one["worktree"]["dir"].as_str().unwrap());
    let git_dir = repo_dir.join(".git");
    let slug2 = two["id"].as_str().unwrap().to_ascii_lowercase();
    let slug1 = id1.to_ascii_lowercase();
    let config = std::fs::read(git_dir.join("config")).unwrap();
    let head = std::fs::read(git_dir.join("HEAD")).unwrap();
    let index = std::fs::read(git_dir.join("index")).unwrap();
    let other_head = std::fs::read(git_dir.join(format!("worktrees/{slug2}/HEAD"))).unwrap();
    let gitdir = std::fs::read(git_dir.join(format!("worktrees/{slug1}/gitdir"))).unwrap();
    let g = git_dir.display();
    // Each attack runs from a script, so the command names no path of the git directory (an
    // approval that names one lends it to that command, as the jail issue says).
    for (what, body) in [
        ("config", format!("echo '[core]' >> {g}/config")),
        (
            "config by git",
            "git config core.fsmonitor 'touch /tmp/pwned'".to_string(),
        ),
        (
            "a hook",
            format!("echo 'touch /tmp/pwned' > {g}/hooks/post-commit"),
        ),
        (
            "main's HEAD",
            format!("echo 'ref: refs/heads/feature' > {g}/HEAD"),
        ),
        ("main's index", format!("echo x > {g}/index")),
        (
            "another worktree",
            format!("echo x > {g}/worktrees/{slug2}/HEAD"),
        ),
        (
            "its gitdir",
            format!("echo /elsewhere > {g}/worktrees/{slug1}/gitdir"),
        ),
        (
            "info",
            format!("mkdir -p {g}/info && echo '* filter=x' > {g}/info/attributes"),
        ),
    ] {
        std::fs::write(dir1.join("attack.sh"), format!("set -e\n{body}\n")).unwrap();
        let r = bang(s, id1, "sh attack.sh").await;
        assert_eq!(r["ok"], false, "{what} was writable: {r}");
    }
    assert_eq!(std::fs::read(git_dir.join("config")).unwrap(), config);
    assert_eq!(std::fs::read(git_dir.join("HEAD")).unwrap(), head);
    assert_eq!(std::fs::read(git_dir.join("index")).unwrap(), index);
    assert_eq!(
        std::fs::read(git_dir.join(format!("worktrees/{slug2}/HEAD"))).unwrap(),
        other_head
    );
    assert_eq!(
        std::fs::read(git_dir.join(format!("worktrees/{slug1}/gitdir"))).unwrap(),
        gitdir
    );
    assert!(!git_dir.join("hooks/post-commit").exists());
    assert!(!git_dir.join("info/attributes").exists());
    // The main checkout's files are not in its jail at all.
    let r = bang(s, id1, &format!("cat {}/b.txt", repo_dir.display())).await;
    assert_eq!(r["ok"], false, "{r}");
    rp.s.stop().await;
}

/// A worktree from a chosen base gets the base's files, the listed untracked ones and its setup
/// command (through the gate: it asks in `ask` mode); deleting it with uncommitted work is
/// refused without `force`, and a deletion keeps the branch.
#[tokio::test]
async fn a_worktree_from_a_base_is_set_up_and_deleting_it_keeps_the_branch() {
    let rp = start(with_setup).await;
    let s = &rp.s;
    let repo_dir = s.workspace.path().to_path_buf();
    let (st, b) = s.get("/api/fs/branches").await;
    assert_eq!(st, 200, "{b}");
    assert_eq!(b["current"], "main");
    assert!(
        b["branches"]
            .as_array()
            .unwrap()
            .contains(&json!("feature"))
    );
    let v = worktree_session(
        s,
        json!({"mode": "ask", "worktree": true, "base": "feature"}),
    )
    .await;
    let sid = v["id"].as_str().unwrap();
    let dir = PathBuf::from(v["worktree"]["dir"].as_str().unwrap());
    assert_eq!(v["worktree"]["base"], "feature");
    assert_eq!(
        std::fs::read_to_string(dir.join("f.txt")).unwrap(),
        "feature file\n"
    );
    assert!(dir.join(".env").is_file());
    // The setup command asked, as a command does in `ask`.
    let runs = s.get(&format!("/api/sessions/{sid}/runs")).await.1;
    let run = runs["data"][0]["id"].as_str().unwrap().to_string();
    let (_, asked) = s.answer_until_finished(sid, &run, |_| "once".into()).await;
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(dir.join("setup-ran").is_file());

    // Refused values.
    for body in [
        json!({"worktree": true, "base": "--upload-pack=x"}),
        json!({"worktree": true, "base": "no-such-branch"}),
        json!({"base": "main"}),
    ] {
        let (st, e) = s.post("/api/sessions", body.clone()).await;
        assert_eq!(st, 422, "{body}: {e}");
    }
    let plain = TempDir::new("not-a-repo");
    let (st, e) = s
        .post(
            "/api/sessions",
            json!({"worktree": true, "workspace": plain.path()}),
        )
        .await;
    assert_eq!(
        (st, &e["error"]["code"]),
        (409, &json!("not_a_repository")),
        "{e}"
    );
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not in a git repository")
    );

    std::fs::write(dir.join("f.txt"), "changed\n").unwrap();
    let (st, e) = s
        .send(
            reqwest::Method::DELETE,
            &format!("/api/sessions/{sid}"),
            json!(null),
        )
        .await;
    assert_eq!(st, 409, "{e}");
    assert_eq!(e["error"]["code"], "uncommitted_changes");
    assert!(e["error"]["message"].as_str().unwrap().contains("f.txt"));
    assert!(dir.is_dir());
    let (st, _) = s
        .send(
            reqwest::Method::DELETE,
            &format!("/api/sessions/{sid}?force=true"),
            json!(null),
        )
        .await;
    assert_eq!(st, 204);
    assert!(!dir.exists());
    let branch = v["worktree"]["branch"].as_str().unwrap();
    assert_eq!(
        git(&repo_dir, &["rev-parse", "--verify", "--quiet", branch]).len(),
        40
    );
    assert_eq!(
        git(&repo_dir, &["worktree", "list", "--porcelain"])
            .matches("worktree ")
            .count(),
        1
    );
    rp.s.stop().await;
}

fn hunk_of<'a>(review: &'a Value, path: &str, i: usize) -> &'a Value {
    let f = review["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == path)
        .unwrap_or_else(|| panic!("{path} not in the review: {review}"));
    &f["hunks"][i]
}

/// A worktree's review: committed and uncommitted changes and untracked files against the fork
/// point; a hunk staged (and unstaged), one reverted.
#[tokio::test]
async fn a_worktree_review_shows_its_changes_and_stages_and_reverts_hunks() {
    let rp = start(worktrees).await;
    let s = &rp.s;
    let v = worktree_session(s, json!({"mode": "ask", "worktree": true})).await;
    let sid = v["id"].as_str().unwrap();
    let dir = PathBuf::from(v["worktree"]["dir"].as_str().unwrap());
    let out = bang(
        s,
        sid,
        &format!("sed -i 's/^line 2$/LINE TWO/' a.txt && git add a.txt && {COMMIT} two && sed -i 's/line 15/LINE FIFTEEN/' a.txt && echo new > new.txt && rm b.txt"),
    )
    .await;
    assert_eq!(out["ok"], true, "{out}");
    let (st, review) = s.get(&format!("/api/sessions/{sid}/review")).await;
    assert_eq!(st, 200, "{review}");
    assert_eq!(review["base"], "worktree");
    let paths: Vec<&str> = review["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["a.txt", "b.txt", "new.txt"], "{review}");
    let a = review["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "a.txt")
        .unwrap();
    assert_eq!(
        (a["added"].as_u64(), a["removed"].as_u64()),
        (Some(2), Some(2)),
        "{a}"
    );
    assert_eq!(a["hunks"].as_array().unwrap().len(), 2, "{a}");
    assert_eq!(
        a["hunks"][0]["staged"], false,
        "a committed hunk is not staged"
    );
    let b = review["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "b.txt")
        .unwrap();
    assert_eq!(b["status"], "deleted");
    let n = review["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "new.txt")
        .unwrap();
    assert_eq!(n["status"], "added");

    // Stage the uncommitted hunk, then take it out again.
    let fifteen = hunk_of(&review, "a.txt", 1)["header"]
        .as_str()
        .unwrap()
        .to_string();
    let (st, after) = s
        .post(
            &format!("/api/sessions/{sid}/review/hunk"),
            json!({"path": "a.txt", "header": fifteen, "action": "stage"}),
        )
        .await;
    assert_eq!(st, 200, "{after}");
    assert_eq!(hunk_of(&after, "a.txt", 1)["staged"], true, "{after}");
    let staged = Command::new("git")
        .current_dir(&dir)
        .args(["diff", "--cached", "--name-only"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&staged.stdout).trim(), "a.txt");
    let (st, after) = s
        .post(
            &format!("/api/sessions/{sid}/review/hunk"),
            json!({"path": "a.txt", "header": fifteen, "action": "unstage"}),
        )
        .await;
    assert_eq!(st, 200, "{after}");
    assert_eq!(hunk_of(&after, "a.txt", 1)["staged"], false, "{after}");

    // Revert the committed hunk: the file on disk goes back there, the other change stays.
    let two = hunk_of(&after, "a.txt", 0)["header"]
        .as_str()
        .unwrap()
        .to_string();
    let (st, after) = s
        .post(
            &format!("/api/sessions/{sid}/review/hunk"),
            json!({"path": "a.txt", "header": two, "action": "revert"}),
        )
        .await;
    assert_eq!(st, 200, "{after}");
    let text = std::fs::read_to_string(dir.join("a.txt")).unwrap();
    assert!(
        text.contains("line 2\n") && text.contains("LINE FIFTEEN\n"),
        "{text}"
    );
    // A hunk that is no longer there, and a path outside.
    let (st, _) = s
        .post(
            &format!("/api/sessions/{sid}/review/hunk"),
            json!({"path": "a.txt", "header": two, "action": "revert"}),
        )
        .await;
    assert_eq!(st, 404);
    let (st, _) = s
        .post(
            &format!("/api/sessions/{sid}/review/hunk"),
            json!({"path": "../x", "header": two, "action": "revert"}),
        )
        .await;
    assert_eq!(st, 404);
    rp.s.stop().await;
}

/// Without a worktree: the session's own changes from its snapshots, with a hand edit to the
/// same file shown apart, and a file changed only by hand not listed.
#[tokio::test]
async fn a_review_without_a_worktree_shows_the_sessions_changes_and_a_hand_edit_apart() {
    let ten: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    let script = json!({"scripts": [{"turns": [
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": ten.replace("line 2\n", "LINE TWO\n")}}]},
        {"text": "Changed line 2."},
    ]}]});
    let s = TestServer::start(Opts {
        replay: Some(script),
        ceiling: tradewind::config::Ceiling {
            write: true,
            process: false,
            external: false,
        },
        ..Opts::default()
    })
    .await;
    std::fs::write(s.workspace.path().join("a.txt"), &ten).unwrap();
    std::fs::write(s.workspace.path().join("other.txt"), "x\n").unwrap();
    let sid = s.create_session("auto").await;
    let run = s.prompt(&sid, "change line 2").await;
    let done = s.wait_run_finished(&sid, &run).await;
    assert_eq!(done["status"], "completed", "{done}");
    // The review reads what the run left (its walk records the run's end).
    let (_, first) = s.get(&format!("/api/sessions/{sid}/review")).await;
    assert_eq!(first["files"].as_array().unwrap().len(), 1, "{first}");
    assert!(first["files"][0].get("outside").is_none(), "{first}");
    // By hand, after the run: line 9 of the same file, and another file.
    let text = std::fs::read_to_string(s.workspace.path().join("a.txt")).unwrap();
    std::fs::write(
        s.workspace.path().join("a.txt"),
        text.replace("line 9\n", "hand nine\n"),
    )
    .unwrap();
    std::fs::write(s.workspace.path().join("other.txt"), "y\n").unwrap();
    let (st, review) = s.get(&format!("/api/sessions/{sid}/review")).await;
    assert_eq!(st, 200, "{review}");
    assert_eq!(review["base"], "snapshots", "{review}");
    let files = review["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "only the session's file: {review}");
    let a = &files[0];
    assert_eq!(a["path"], "a.txt");
    let lines = |h: &Value| -> Vec<String> {
        h["lines"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| l["kind"] != "context")
            .map(|l| l["text"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(lines(&a["hunks"][0]), ["line 2", "LINE TWO"], "{a}");
    assert_eq!(a["hunks"].as_array().unwrap().len(), 1, "{a}");
    let outside = a["outside"].as_array().expect("the hand edit apart");
    assert_eq!(lines(&outside[0]), ["line 9", "hand nine"], "{a}");

    // A session that changed nothing has an empty review.
    let other = s.create_session("ask").await;
    let (_, empty) = s.get(&format!("/api/sessions/{other}/review")).await;
    assert_eq!(empty["base"], "snapshots");
    assert_eq!(empty["files"], json!([]));
    s.stop().await;
}

/// The model of the comment tests: answers every `[c:ID]` tag of the newest user message (a
/// plan's feedback, in a tool result, is answered with a new revision giving `answers`).
fn commenter(req: &Value) -> tradewind_tests::openai_mock::Reply {
    use tradewind_tests::openai_mock::{text_reply, tool_reply};
    let msgs = req["messages"].as_array().cloned().unwrap_or_default();
    let last = msgs.last().cloned().unwrap_or_default();
    let text = last["content"].as_str().unwrap_or_default().to_string();
    let tags: Vec<String> = text
        .match_indices("[c:")
        .filter_map(|(i, _)| text[i + 3..].split(']').next().map(str::to_string))
        .collect();
    let planning = req["tools"]
        .as_array()
        .is_some_and(|t| t.iter().any(|t| t["function"]["name"] == "exit_plan"));
    if planning {
        if last["role"] == "user" {
            return tool_reply(
                "plan_1",
                "exit_plan",
                &json!({"plan": "# Plan\n\n1. Add the cache\n2. Test it\n3. Ship it\n"}),
            );
        }
        if last["role"] == "tool" && !tags.is_empty() {
            let answers: Vec<Value> = tags
                .iter()
                .map(|t| json!({"comment": t, "text": format!("Split step for {t}")}))
                .collect();
            return tool_reply(
                "plan_2",
                "exit_plan",
                &json!({"plan": "# Plan\n\n1. Add the cache\n2. Test it twice\n3. Ship it\n", "answers": answers}),
            );
        }
        return text_reply("Waiting for the plan's review.");
    }
    let replies: Vec<String> = tags
        .iter()
        .enumerate()
        .map(|(n, t)| format!("[c:{t}] Done {n}"))
        .collect();
    text_reply(&format!("All addressed.\n{}", replies.join("\n")))
}

async fn with_commenter() -> (tradewind_tests::openai_mock::Mock, TestServer) {
    let mock = tradewind_tests::openai_mock::Mock::default();
    *mock.responder.lock().unwrap() = Some(commenter);
    let url = mock.serve().await;
    let s = TestServer::start(Opts {
        openai: Some(url),
        network: Some(scripted_net()),
        ..Opts::default()
    })
    .await;
    (mock, s)
}

/// Three line comments sent as one prompt (file, lines, quoted code, comment), each answered by
/// the agent's reply; a sent comment whose lines change resolves; edit, resolve, delete.
#[tokio::test]
async fn three_line_comments_are_sent_and_each_answered() {
    let (_mock, s) = with_commenter().await;
    std::fs::write(
        s.workspace.path().join("lib.rs"),
        "fn a() {}\nfn b() {}\nfn c() {}\nfn d() {}\n",
    )
    .unwrap();
    let sid = s.create_session("ask").await;
    let mut ids = Vec::new();
    for (line, body) in [
        (1, "Name this better"),
        (2, "Needs a test"),
        (4, "Dead code?"),
    ] {
        let (st, c) = s
            .post(
                &format!("/api/sessions/{sid}/review/comments"),
                json!({"path": "lib.rs", "start_line": line, "body": body}),
            )
            .await;
        assert_eq!(st, 201, "{c}");
        assert_eq!(c["status"], "draft");
        ids.push(c["id"].as_str().unwrap().to_string());
    }
    let (_, c) = s.get(&format!("/api/sessions/{sid}/review/comments")).await;
    assert_eq!(c["data"][1]["quote"], "fn b() {}");
    // Refused: lines the file does not have, an empty body, a path outside.
    for (body, status) in [
        (json!({"path": "lib.rs", "start_line": 9, "body": "x"}), 404),
        (
            json!({"path": "lib.rs", "start_line": 1, "body": "  "}),
            422,
        ),
        (
            json!({"path": "../etc/passwd", "start_line": 1, "body": "x"}),
            404,
        ),
        (
            json!({"path": "lib.rs", "start_line": 3, "end_line": 2, "body": "x"}),
            409,
        ),
    ] {
        let (st, e) = s
            .post(
                &format!("/api/sessions/{sid}/review/comments"),
                body.clone(),
            )
            .await;
        assert_eq!(st, status, "{body}: {e}");
    }
    let (st, sent) = s
        .post(&format!("/api/sessions/{sid}/review/send"), json!({}))
        .await;
    assert_eq!(st, 200, "{sent}");
    assert_eq!(sent["sent"].as_array().unwrap().len(), 3);
    let run = sent["run_id"].as_str().unwrap();
    s.wait_run_finished(&sid, run).await;
    // The prompt held each comment's place, quote and text.
    let events = s.events(&sid).await;
    let prompt = of_type(&events, "user_message")[0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    for (i, id) in ids.iter().enumerate() {
        assert!(
            prompt.contains(&format!("[c:{id}] lib.rs, line")),
            "{prompt}"
        );
        let _ = i;
    }
    assert!(
        prompt.contains("fn d() {}") && prompt.contains("Comment: Dead code?"),
        "{prompt}"
    );
    // Each answered, by the reply under its own tag.
    for (n, id) in ids.iter().enumerate() {
        let want = format!("Done {n}");
        let id = id.clone();
        s.wait_event(&sid, move |e| {
            e["type"] == "review_comment_updated"
                && e["comment"]["id"] == id.as_str()
                && e["comment"]["status"] == "answered"
                && e["comment"]["answer"] == want.as_str()
        })
        .await;
    }
    // Its lines changed: the comment on line 2 resolves when the review is read.
    std::fs::write(
        s.workspace.path().join("lib.rs"),
        "fn a() {}\nfn b_tested() {}\nfn c() {}\nfn d() {}\n",
    )
    .unwrap();
    let (st, _) = s.get(&format!("/api/sessions/{sid}/review")).await;
    assert_eq!(st, 200);
    let (_, c) = s.get(&format!("/api/sessions/{sid}/review/comments")).await;
    assert_eq!(c["data"][1]["status"], "resolved", "{c}");
    assert_eq!(c["data"][1]["resolved_by"], "lines_changed");
    assert_eq!(c["data"][0]["status"], "answered");
    // Edit, resolve by hand, delete.
    let first = &ids[0];
    let (st, c) = s
        .send(
            reqwest::Method::PATCH,
            &format!("/api/review-comments/{first}"),
            json!({"body": "Name this fetch_all"}),
        )
        .await;
    assert_eq!((st, &c["status"]), (200, &json!("draft")), "{c}");
    let (_, c) = s
        .send(
            reqwest::Method::PATCH,
            &format!("/api/review-comments/{first}"),
            json!({"resolved": true}),
        )
        .await;
    assert_eq!(c["status"], "resolved");
    assert_eq!(c["resolved_by"], "user");
    let (st, _) = s
        .send(
            reqwest::Method::DELETE,
            &format!("/api/review-comments/{first}"),
            json!(null),
        )
        .await;
    assert_eq!(st, 204);
    let (st, _) = s
        .send(
            reqwest::Method::DELETE,
            &format!("/api/review-comments/{first}"),
            json!(null),
        )
        .await;
    assert_eq!(st, 404);
    let (st, e) = s
        .post(&format!("/api/sessions/{sid}/review/send"), json!({}))
        .await;
    assert_eq!(
        (st, &e["error"]["code"]),
        (409, &json!("nothing_to_send")),
        "{e}"
    );
    s.stop().await;
}

/// A comment on a plan's line: "Request changes" sends it with the revision, and the next
/// revision answers it (its `answers`, and the comment itself).
#[tokio::test]
async fn a_plan_comment_is_answered_by_the_next_revision() {
    let (_mock, s) = with_commenter().await;
    let (st, v) = s
        .post("/api/sessions", json!({"agent": "plan", "mode": "ask"}))
        .await;
    assert_eq!(st, 201, "{v}");
    let sid = v["id"].as_str().unwrap().to_string();
    let run = s.prompt(&sid, "plan the cache").await;
    let first = s.wait_event(&sid, |e| e["type"] == "plan_proposed").await;
    let plan_id = first["plan_id"].as_str().unwrap().to_string();
    let (st, c) = s
        .post(
            &format!("/api/sessions/{sid}/review/comments"),
            json!({"target": "plan", "plan_id": plan_id, "start_line": 4, "body": "Split testing into unit and e2e"}),
        )
        .await;
    assert_eq!(st, 201, "{c}");
    assert_eq!(c["quote"], "2. Test it");
    assert_eq!(c["revision"], 1);
    let cid = c["id"].as_str().unwrap().to_string();
    let (st, sent) = s
        .post(
            &format!("/api/sessions/{sid}/review/send"),
            json!({"target": "plan"}),
        )
        .await;
    assert_eq!(st, 200, "{sent}");
    let second = s
        .wait_event(&sid, |e| e["type"] == "plan_proposed" && e["revision"] == 2)
        .await;
    assert_eq!(second["answers"][0]["comment"], cid.as_str(), "{second}");
    assert_eq!(
        second["answers"][0]["text"],
        format!("Split step for {cid}").as_str()
    );
    let (_, list) = s.get(&format!("/api/sessions/{sid}/review/comments")).await;
    assert_eq!(list["data"][0]["status"], "answered", "{list}");
    // The first revision's decision carried the comment.
    let events = s.events(&sid).await;
    let decided = of_type(&events, "plan_decided")[0];
    assert_eq!(decided["decision"], "feedback");
    assert!(
        decided["feedback"]
            .as_str()
            .unwrap()
            .contains(&format!("[c:{cid}] plan revision 1, line 4")),
        "{decided}"
    );
    let second_id = second["plan_id"].as_str().unwrap();
    s.post(
        &format!("/api/plans/{second_id}/decision"),
        json!({"decision": "skipped"}),
    )
    .await;
    s.wait_run_finished(&sid, &run).await;
    s.stop().await;
}

/// A HOME whose git config names the user (commits from the browser carry it).
fn home_with_identity() -> TempDir {
    let home = TempDir::new("review-home");
    std::fs::write(
        home.path().join(".gitconfig"),
        "[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n",
    )
    .unwrap();
    home
}

/// A server on a new repository (as `repo` makes it), its HOME the user's git identity, as `opts` says
/// otherwise.
async fn start_with(home: &TempDir, opts: Opts) -> Repo {
    let ws = TempDir::new("review-ws");
    repo(ws.path());
    let state = TempDir::new("review-state");
    let wt = TempDir::adopt(PathBuf::from(format!("{}-wt", state.path().display())));
    let s = TestServer::start_in(
        Opts {
            tweak: Some(worktrees),
            home: Some(home.path().to_path_buf()),
            ..opts
        },
        ws,
        state,
    )
    .await;
    Repo { s, _wt: wt }
}

/// A commit clicked by the owner runs in `ask` mode without an approval, on a server started
/// without --allow-process, with the user's identity; a token without `admin` gets 403, a
/// read-only server refuses it; push to a bare repository on disk; a force push needs the
/// branch's name typed.
#[tokio::test]
async fn commit_and_push_from_the_browser_are_the_users_own_actions() {
    let home = home_with_identity();
    let rp = start_with(&home, Opts::default()).await;
    let s = &rp.s;
    let repo_dir = s.workspace.path().to_path_buf();
    let bare = TempDir::new("review-bare");
    git(bare.path(), &["init", "-q", "--bare"]);
    git(
        &repo_dir,
        &["remote", "add", "origin", bare.path().to_str().unwrap()],
    );
    let v = worktree_session(s, json!({"mode": "ask", "worktree": true})).await;
    let sid = v["id"].as_str().unwrap();
    let dir = PathBuf::from(v["worktree"]["dir"].as_str().unwrap());
    let branch = v["worktree"]["branch"].as_str().unwrap().to_string();
    std::fs::write(dir.join("b.txt"), "bee two\n").unwrap();
    let (st, g) = s.get(&format!("/api/sessions/{sid}/git")).await;
    assert_eq!(st, 200, "{g}");
    assert_eq!(g["branch"], branch.as_str());
    assert_eq!(g["unstaged"][0]["path"], "b.txt", "{g}");
    assert_eq!(g["identity"]["email"], "ada@example.com");
    assert_eq!(g["remotes"], json!(["origin"]));
    assert_eq!(g["worktree"], true);

    // A token without `admin`: 403, nothing committed.
    let (_, t) = s
        .post(
            "/api/tokens",
            json!({"name": "ci", "scopes": ["read", "prompt"]}),
        )
        .await;
    let tok = t["token"].as_str().unwrap();
    let r = reqwest::Client::new()
        .post(s.url(&format!("/api/sessions/{sid}/git/commit")))
        .bearer_auth(tok)
        .json(&json!({"message": "sneaky", "all": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);

    let (st, done) = s
        .post(
            &format!("/api/sessions/{sid}/git/commit"),
            json!({"message": "Second bee\n\nFrom the panel.", "all": true}),
        )
        .await;
    assert_eq!(st, 200, "{done}");
    let sha = done["commit"].as_str().unwrap();
    assert_eq!(git(&repo_dir, &["rev-parse", &branch]), sha);
    assert_eq!(
        git(&repo_dir, &["log", "-1", "--format=%an <%ae>|%B", &branch]),
        "Ada Lovelace <ada@example.com>|Second bee\n\nFrom the panel."
    );
    assert!(
        !s.events(sid)
            .await
            .iter()
            .any(|e| e["type"] == "approval_requested"),
        "the user's own click asks nothing"
    );
    let (st, e) = s
        .post(
            &format!("/api/sessions/{sid}/git/commit"),
            json!({"message": "again"}),
        )
        .await;
    assert_eq!(
        (st, &e["error"]["code"]),
        (409, &json!("git_failed")),
        "nothing to commit: {e}"
    );

    // Push to the bare repository on disk.
    let (st, done) = s
        .post(&format!("/api/sessions/{sid}/git/push"), json!({}))
        .await;
    assert_eq!(st, 200, "{done}");
    assert_eq!(git(bare.path(), &["rev-parse", &branch]), sha);
    let (_, g) = s.get(&format!("/api/sessions/{sid}/git")).await;
    assert_eq!(g["upstream"], format!("origin/{branch}").as_str(), "{g}");
    assert_eq!(
        (g["ahead"].as_u64(), g["behind"].as_u64()),
        (Some(0), Some(0))
    );
    // An amended commit needs a force push, which needs the branch typed.
    let (st, _) = s
        .post(
            &format!("/api/sessions/{sid}/git/commit"),
            json!({"message": "Second bee, amended", "amend": true}),
        )
        .await;
    assert_eq!(st, 200);
    let (st, e) = s
        .post(&format!("/api/sessions/{sid}/git/push"), json!({}))
        .await;
    assert_eq!(st, 409, "not a fast-forward: {e}");
    let (st, e) = s
        .post(
            &format!("/api/sessions/{sid}/git/push"),
            json!({"force": true}),
        )
        .await;
    assert_eq!(
        (st, &e["error"]["code"]),
        (409, &json!("confirm_branch")),
        "{e}"
    );
    assert!(e["error"]["message"].as_str().unwrap().contains(&branch));
    let (st, e) = s
        .post(
            &format!("/api/sessions/{sid}/git/push"),
            json!({"force": true, "confirm": "main"}),
        )
        .await;
    assert_eq!(st, 409, "{e}");
    let (st, done) = s
        .post(
            &format!("/api/sessions/{sid}/git/push"),
            json!({"force": true, "confirm": branch}),
        )
        .await;
    assert_eq!(st, 200, "{done}");
    assert_eq!(
        git(bare.path(), &["log", "-1", "--format=%s", &branch]),
        "Second bee, amended"
    );
    // A remote that names a program is refused before anything runs.
    git(
        &repo_dir,
        &["remote", "add", "evil", "ext::sh -c touch% /tmp/tw-pwned"],
    );
    let (st, e) = s
        .post(
            &format!("/api/sessions/{sid}/git/push"),
            json!({"remote": "evil"}),
        )
        .await;
    assert_eq!(
        (st, &e["error"]["code"]),
        (409, &json!("remote_refused")),
        "{e}"
    );
    // No forge tool here: a pull request says what it needs.
    let (st, e) = s
        .post(
            &format!("/api/sessions/{sid}/git/pr"),
            json!({"title": "Add bees"}),
        )
        .await;
    if !Command::new("sh")
        .args(["-c", "command -v gh || command -v glab"])
        .status()
        .unwrap()
        .success()
    {
        assert_eq!(
            (st, &e["error"]["code"]),
            (409, &json!("no_forge_tool")),
            "{e}"
        );
    }
    rp.s.stop().await;

    // A read-only server refuses a commit.
    let rp = start_with(
        &home,
        Opts {
            read_only: true,
            ..Opts::default()
        },
    )
    .await;
    let s = &rp.s;
    let v = worktree_session(s, json!({"mode": "ask"})).await;
    let sid = v["id"].as_str().unwrap();
    let (st, e) = s
        .post(
            &format!("/api/sessions/{sid}/git/commit"),
            json!({"message": "x", "all": true}),
        )
        .await;
    assert_eq!((st, &e["error"]["code"]), (409, &json!("read_only")), "{e}");
    rp.s.stop().await;
}

/// A replay model that runs one shell command, then answers.
fn one_command(command: &str) -> Value {
    json!({"scripts": [{"turns": [
        {"tool_calls": [{"name": "shell", "arguments": {"command": command}}]},
        {"text": "Done."},
    ]}]})
}

/// A commit the agent proposes is an ordinary gated call: it asks in `ask` mode.
#[tokio::test]
async fn a_commit_the_agent_proposes_asks() {
    let home = home_with_identity();
    let script = one_command("git commit -qam 'from the agent'");
    let rp = start_with(
        &home,
        Opts {
            replay: Some(script),
            ..Opts::default()
        },
    )
    .await;
    let s = &rp.s;
    let v = worktree_session(s, json!({"mode": "ask", "worktree": true})).await;
    let sid = v["id"].as_str().unwrap();
    let run = s.prompt(sid, "commit it").await;
    let (_, asked) = s.answer_until_finished(sid, &run, |_| "deny".into()).await;
    assert_eq!(asked.len(), 1, "{asked:?}");
    rp.s.stop().await;
}

/// "Apply to main checkout" merges a worktree's branch, and refuses on a conflict leaving the
/// main checkout as it was.
#[tokio::test]
async fn apply_to_the_main_checkout_merges_and_refuses_on_a_conflict() {
    let home = home_with_identity();
    let rp = start_with(&home, Opts::default()).await;
    let s = &rp.s;
    let repo_dir = s.workspace.path().to_path_buf();
    let clean = worktree_session(s, json!({"mode": "ask", "worktree": true})).await;
    let clash = worktree_session(s, json!({"mode": "ask", "worktree": true})).await;
    for (v, file, text) in [
        (&clean, "new.txt", "fresh\n"),
        (&clash, "b.txt", "theirs\n"),
    ] {
        let dir = PathBuf::from(v["worktree"]["dir"].as_str().unwrap());
        std::fs::write(dir.join(file), text).unwrap();
        let sid = v["id"].as_str().unwrap();
        // Staged through the review (an untracked file is added whole).
        let (_, review) = s.get(&format!("/api/sessions/{sid}/review")).await;
        let header = hunk_of(&review, file, 0)["header"]
            .as_str()
            .unwrap()
            .to_string();
        let (st, r) = s
            .post(
                &format!("/api/sessions/{sid}/review/hunk"),
                json!({"path": file, "header": header, "action": "stage"}),
            )
            .await;
        assert_eq!(st, 200, "{r}");
        let (st, d) = s
            .post(
                &format!("/api/sessions/{sid}/git/commit"),
                json!({"message": format!("add {file}")}),
            )
            .await;
        assert_eq!(st, 200, "{d}");
    }
    // The main checkout moves on: b.txt conflicts with the second session's.
    std::fs::write(repo_dir.join("b.txt"), "ours\n").unwrap();
    git(&repo_dir, &["commit", "-qam", "ours"]);
    let head = git(&repo_dir, &["rev-parse", "HEAD"]);
    let sid = clash["id"].as_str().unwrap();
    let (st, e) = s
        .post(&format!("/api/sessions/{sid}/git/apply"), json!({}))
        .await;
    assert_eq!((st, &e["error"]["code"]), (409, &json!("conflicts")), "{e}");
    assert!(e["error"]["message"].as_str().unwrap().contains("b.txt"));
    assert_eq!(git(&repo_dir, &["rev-parse", "HEAD"]), head);
    assert_eq!(
        git(
            &repo_dir,
            &["status", "--porcelain", "--untracked-files=no"]
        ),
        ""
    );
    assert_eq!(
        std::fs::read_to_string(repo_dir.join("b.txt")).unwrap(),
        "ours\n"
    );
    // The clean one merges.
    let sid = clean["id"].as_str().unwrap();
    let (st, d) = s
        .post(
            &format!("/api/sessions/{sid}/git/apply"),
            json!({"how": "merge"}),
        )
        .await;
    assert_eq!(st, 200, "{d}");
    assert_eq!(
        std::fs::read_to_string(repo_dir.join("new.txt")).unwrap(),
        "fresh\n"
    );
    assert_eq!(git(&repo_dir, &["symbolic-ref", "--short", "HEAD"]), "main");
    // Hooks stayed out of it: the main checkout's hooks folder was read-only.
    assert!(!repo_dir.join(".git/hooks/post-merge").exists());
    // A session without a worktree has nothing to apply.
    let plain = s.create_session("ask").await;
    let (st, e) = s
        .post(&format!("/api/sessions/{plain}/git/apply"), json!({}))
        .await;
    assert_eq!(
        (st, &e["error"]["code"]),
        (409, &json!("no_worktree")),
        "{e}"
    );
    rp.s.stop().await;
}

/// What a worktree session's command could plant in the shared git directory to run code in the
/// main checkout later: a `commondir` (held when the command ends, and the user asked), a
/// submodule's config (read-only).
#[tokio::test]
async fn a_worktree_command_cannot_redirect_the_main_repository() {
    let home = home_with_identity();
    let script = one_command("sh plant.sh");
    let rp = start_with(
        &home,
        Opts {
            replay: Some(script),
            ceiling: tradewind::config::Ceiling {
                write: true,
                process: true,
                external: true,
            },
            ..Opts::default()
        },
    )
    .await;
    let s = &rp.s;
    let git_dir = s.workspace.path().join(".git");
    let v = worktree_session(s, json!({"mode": "full", "worktree": true})).await;
    let sid = v["id"].as_str().unwrap();
    let dir = PathBuf::from(v["worktree"]["dir"].as_str().unwrap());
    let g = git_dir.display();
    std::fs::write(
        dir.join("plant.sh"),
        format!("echo /tmp/evil-common > {g}/commondir\nmkdir -p {g}/modules/x && echo '[core]' > {g}/modules/x/config\ntrue\n"),
    )
    .unwrap();
    let run = s.prompt(sid, "plant").await;
    let (_, asked) = s.answer_until_finished(sid, &run, |_| "deny".into()).await;
    assert!(
        asked.iter().any(|a| a.to_string().contains("commondir")),
        "the user was asked about the commondir: {asked:?}"
    );
    assert!(
        !git_dir.join("commondir").exists(),
        "the redirection stays aside"
    );
    assert!(!git_dir.join("modules/x/config").exists());
    // The main checkout's git still works as it did.
    assert_eq!(
        git(s.workspace.path(), &["symbolic-ref", "--short", "HEAD"]),
        "main"
    );
    rp.s.stop().await;
}

/// Without a worktree, in a git repository: the session's hunks are staged into (and out of)
/// the repository's own index; outside git, staging says there is no index.
#[tokio::test]
async fn a_session_without_a_worktree_stages_into_its_repositorys_index() {
    let twenty: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    let script = json!({"scripts": [{"turns": [
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": twenty.replace("line 2\n", "LINE TWO\n")}}]},
        {"text": "Changed."},
    ]}]});
    let home = home_with_identity();
    let rp = start_with(
        &home,
        Opts {
            replay: Some(script),
            ceiling: tradewind::config::Ceiling {
                write: true,
                process: false,
                external: false,
            },
            ..Opts::default()
        },
    )
    .await;
    let s = &rp.s;
    let ws = s.workspace.path().to_path_buf();
    let sid = s.create_session("auto").await;
    let run = s.prompt(&sid, "change line 2").await;
    assert_eq!(s.wait_run_finished(&sid, &run).await["status"], "completed");
    let (_, review) = s.get(&format!("/api/sessions/{sid}/review")).await;
    assert_eq!(review["base"], "snapshots", "{review}");
    assert_eq!(review["stageable"], true);
    let h = hunk_of(&review, "a.txt", 0);
    assert_eq!(h["staged"], false);
    let header = h["header"].as_str().unwrap().to_string();
    let (st, after) = s
        .post(
            &format!("/api/sessions/{sid}/review/hunk"),
            json!({"path": "a.txt", "header": header, "action": "stage"}),
        )
        .await;
    assert_eq!(st, 200, "{after}");
    assert_eq!(hunk_of(&after, "a.txt", 0)["staged"], true, "{after}");
    assert_eq!(git(&ws, &["diff", "--cached", "--name-only"]), "a.txt");
    let (st, after) = s
        .post(
            &format!("/api/sessions/{sid}/review/hunk"),
            json!({"path": "a.txt", "header": header, "action": "unstage"}),
        )
        .await;
    assert_eq!(st, 200, "{after}");
    assert_eq!(git(&ws, &["diff", "--cached", "--name-only"]), "");
    // The repository's hooks and config stayed out of reach of that git.
    assert!(!ws.join(".git/hooks/post-index-change").exists());
    rp.s.stop().await;
}
