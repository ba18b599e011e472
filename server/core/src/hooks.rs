//! Hooks: commands the user configured to run at points of a run, in Claude Code's shape —
//! `{"hooks": {"PreToolUse": [{"matcher": "shell|edit_file", "hooks": [{"type": "command",
//! "command": "…", "timeout": 10}]}]}}` in the state directory's `hooks.json`. A hook gets the
//! event as JSON on stdin (`CLAUDE_PROJECT_DIR` is the workspace) and answers as Claude Code's
//! do: exit 0 = no objection (stdout JSON may say `{"decision": "deny"|"ask"|"block", "reason",
//! "additionalContext"}` or Claude Code's `hookSpecificOutput`), exit 2 = deny with stderr as
//! the reason, any other code = the hook failed. It can deny or ask, never allow what the gate
//! would not. It runs in the session's jail with the hooks folder read-only, bounded in time.
//!
//! This module reads the file, matches tools and runs one hook; the run decides what an answer
//! means (`agent`), and asks the gate before a file's hooks first run in a session.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use grep_matcher::Matcher as _;
use serde_json::Value;
use sha2::Digest;

/// Seconds a hook may take unless it says (`timeout`), and at most.
pub const DEFAULT_TIMEOUT: u64 = 10;
pub const MAX_TIMEOUT: u64 = 60;
/// Most bytes of a hook's stdout or stderr kept.
const MAX_OUTPUT: usize = 16 * 1024;

/// The points of a run a hook may run at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    PreToolUse,
    PostToolUse,
    UserPromptSubmit,
    /// The run answered: a hook may ask for one more turn (exit 2 or `"block"`).
    Stop,
    /// A session's first prompt: what a hook prints is context for the model.
    SessionStart,
    /// Before older turns are summarised (nothing it says stops it).
    PreCompact,
}

impl Event {
    pub fn as_str(self) -> &'static str {
        match self {
            Event::PreToolUse => "PreToolUse",
            Event::PostToolUse => "PostToolUse",
            Event::UserPromptSubmit => "UserPromptSubmit",
            Event::Stop => "Stop",
            Event::SessionStart => "SessionStart",
            Event::PreCompact => "PreCompact",
        }
    }

    fn parse(s: &str) -> Option<Event> {
        [
            Event::PreToolUse,
            Event::PostToolUse,
            Event::UserPromptSubmit,
            Event::Stop,
            Event::SessionStart,
            Event::PreCompact,
        ]
        .into_iter()
        .find(|e| e.as_str() == s)
    }
}

/// One hook command.
#[derive(Debug, Clone)]
pub struct Hook {
    pub command: String,
    pub timeout: Duration,
    /// The matcher as written (`None`: every tool).
    pub matcher: Option<String>,
    matcher_re: Option<grep_regex::RegexMatcher>,
    /// `Bash(git push:*)` / `shell(git push)`: `shell` calls one of whose commands starts with
    /// these words.
    argv_prefix: Option<Vec<String>>,
}

/// A hooks file as read: its hooks by event, its hash (what a grant covers), what was left out.
#[derive(Debug, Clone, Default)]
pub struct HookFile {
    pub path: PathBuf,
    pub hash: String,
    pub hooks: BTreeMap<Event, Vec<Hook>>,
    pub skipped: Vec<String>,
    /// An enabled plugin's file: the plugin's root, which its hooks' jail shows read-only
    /// (`${CLAUDE_PLUGIN_ROOT}` in a command is replaced by it).
    pub plugin_root: Option<PathBuf>,
}

/// The Claude Code names of a tool, so matchers written for Claude Code work.
fn claude_names(tool: &str) -> &'static [&'static str] {
    match tool {
        "read_file" => &["Read"],
        "write_file" => &["Write"],
        "edit_file" => &["Edit", "MultiEdit"],
        "shell" | "run_process" => &["Bash"],
        "search_text" => &["Grep"],
        "list_files" => &["Glob", "LS"],
        "webfetch" => &["WebFetch"],
        "websearch" => &["WebSearch"],
        "task" => &["Task"],
        "todo_write" => &["TodoWrite"],
        _ => &[],
    }
}

impl Hook {
    /// Whether it runs for this tool: its matcher (a regular expression over the whole name)
    /// matches our name or one of its Claude Code names; no matcher, `""` or `*` match all.
    /// With an argv prefix, only `shell` calls one of whose commands (`commands`, the call's
    /// simple commands' words) starts with it.
    pub fn matches(&self, tool: &str, commands: &dyn Fn() -> Vec<Vec<String>>) -> bool {
        if let Some(prefix) = &self.argv_prefix {
            return tool == "shell"
                && commands().iter().any(|argv| {
                    argv.len() >= prefix.len() && prefix.iter().zip(argv).all(|(p, a)| p == a)
                });
        }
        let Some(re) = &self.matcher_re else {
            return true;
        };
        std::iter::once(tool)
            .chain(claude_names(tool).iter().copied())
            .any(|n| re.is_match(n.as_bytes()).unwrap_or(false))
    }

    /// Whether it runs only for some commands (its call's commands are worth parsing).
    pub fn has_argv_prefix(&self) -> bool {
        self.argv_prefix.is_some()
    }
}

/// The user's hooks file (`hooks.json` in the state directory), if there is one.
pub fn user_file(state_dir: &Path) -> Option<HookFile> {
    read_file(&state_dir.join("hooks.json"))
}

/// The workspace's hooks files, as the repository holds them: `.tradewind/hooks.json` and the
/// `hooks` of `.claude/settings.json`. Regular files only.
pub const WORKSPACE_FILES: [&str; 2] = [".tradewind/hooks.json", ".claude/settings.json"];

/// The setting that holds a workspace's trusted hooks hash.
pub fn trust_key(workspace: &Path) -> String {
    format!("workspace_hooks:{}", workspace.display())
}

/// The workspace's hooks files (untrusted: the caller decides).
pub fn workspace_files(workspace: &Path) -> Vec<HookFile> {
    WORKSPACE_FILES
        .iter()
        .map(|f| workspace.join(f))
        .filter(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file()))
        .filter_map(|p| read_file(&p))
        // `.claude/settings.json` without hooks is not a hooks file.
        .filter(|f| !f.hooks.is_empty() || !f.skipped.is_empty() && f.path.ends_with("hooks.json"))
        .collect()
}

/// What the user trusts of a workspace's hooks: every file's path and hash (`None`: it has no
/// hooks).
pub fn workspace_hash(files: &[HookFile]) -> Option<String> {
    if files.is_empty() {
        return None;
    }
    let mut h = sha2::Sha256::new();
    for f in files {
        h.update(f.path.to_string_lossy().as_bytes());
        h.update([0]);
        h.update(f.hash.as_bytes());
    }
    Some(hex::encode(h.finalize()))
}

/// Whether a workspace holds a hooks file at all (two looks: nothing else is read without).
pub fn workspace_has_files(workspace: &Path) -> bool {
    WORKSPACE_FILES
        .iter()
        .any(|f| std::fs::symlink_metadata(workspace.join(f)).is_ok_and(|m| m.is_file()))
}

/// The hooks files a session runs: the user's, then the workspace's when `trusted` is the hash
/// of what they hold now.
pub fn files(workspace: &Path, state_dir: &Path, trusted: Option<&str>) -> Vec<HookFile> {
    let mut out: Vec<HookFile> = user_file(state_dir).into_iter().collect();
    let ws = workspace_files(workspace);
    if trusted.is_some() && workspace_hash(&ws).as_deref() == trusted {
        out.extend(ws);
    }
    out
}

/// An enabled plugin's hooks file, its commands' `${CLAUDE_PLUGIN_ROOT}` replaced by its root.
pub fn plugin_file(path: &Path, root: &Path) -> Option<HookFile> {
    let mut f = read_file(path)?;
    let r = root.to_string_lossy();
    for hooks in f.hooks.values_mut() {
        for h in hooks {
            h.command = h
                .command
                .replace("${CLAUDE_PLUGIN_ROOT}", &r)
                .replace("${TRADEWIND_PLUGIN_ROOT}", &r);
        }
    }
    f.plugin_root = Some(root.to_path_buf());
    Some(f)
}

/// A hooks file read (`None`: no file). A `.claude/settings.json` is read for its `hooks` only.
pub fn read_file(path: &Path) -> Option<HookFile> {
    let bytes = std::fs::read(path).ok()?;
    let mut f = HookFile {
        path: path.to_path_buf(),
        hash: hex::encode(sha2::Sha256::digest(&bytes)),
        ..HookFile::default()
    };
    let settings = path.ends_with(".claude/settings.json");
    let v: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            f.skipped.push(format!("not JSON: {e}"));
            return Some(f);
        }
    };
    let Some(events) = v.get("hooks").and_then(Value::as_object) else {
        if !settings {
            f.skipped.push("no \"hooks\" object".into());
        }
        return Some(f);
    };
    for (name, groups) in events {
        let Some(event) = Event::parse(name) else {
            f.skipped
                .push(format!("{name}: not an event this server runs hooks at"));
            continue;
        };
        for g in groups.as_array().into_iter().flatten() {
            read_group(&mut f, event, g);
        }
    }
    Some(f)
}

/// `Bash(git push:*)`, `Bash(git push)` or `shell(git push)`: the words a `shell` command must
/// start with.
fn argv_prefix(matcher: &str) -> Option<Vec<String>> {
    let inner = ["Bash(", "shell("]
        .iter()
        .find_map(|p| matcher.strip_prefix(p))?
        .strip_suffix(')')?;
    let inner = inner.strip_suffix(":*").unwrap_or(inner);
    let words: Vec<String> = inner.split_whitespace().map(String::from).collect();
    (!words.is_empty()).then_some(words)
}

fn read_group(f: &mut HookFile, event: Event, g: &Value) {
    let matcher = g
        .get("matcher")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|m| !m.is_empty() && *m != "*")
        .map(String::from);
    let argv_prefix = matcher.as_deref().and_then(argv_prefix);
    let matcher_re = match &matcher {
        None => None,
        Some(_) if argv_prefix.is_some() => None,
        Some(m) => match grep_regex::RegexMatcher::new(&format!("^(?:{m})$")) {
            Ok(re) => Some(re),
            Err(e) => {
                f.skipped
                    .push(format!("{}: matcher `{m}`: {e}", event.as_str()));
                return;
            }
        },
    };
    for h in g
        .get("hooks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let command = h.get("command").and_then(Value::as_str).map(str::trim);
        match (h.get("type").and_then(Value::as_str), command) {
            (Some("command"), Some(c)) if !c.is_empty() => {
                let secs = h
                    .get("timeout")
                    .and_then(Value::as_u64)
                    .unwrap_or(DEFAULT_TIMEOUT)
                    .clamp(1, MAX_TIMEOUT);
                f.hooks.entry(event).or_default().push(Hook {
                    command: c.to_string(),
                    timeout: Duration::from_secs(secs),
                    matcher: matcher.clone(),
                    matcher_re: matcher_re.clone(),
                    argv_prefix: argv_prefix.clone(),
                });
            }
            _ => f.skipped.push(format!(
                "{}: a hook needs \"type\": \"command\" and a command",
                event.as_str()
            )),
        }
    }
}

/// What a hook said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// No objection; maybe context for the model.
    Pass { context: Option<String> },
    /// Deny (or block) with a reason.
    Deny(String),
    /// Ask the user, with a reason.
    Ask(String),
    /// It failed: exited with another code, timed out, or could not start.
    Failed(String),
}

/// One hook's run.
#[derive(Debug, Clone)]
pub struct Ran {
    pub verdict: Verdict,
    pub exit_code: Option<i32>,
    pub duration: Duration,
}

/// Read a hook's answer from its exit code and output.
pub fn verdict(code: Option<i32>, stdout: &str, stderr: &str, event: Event) -> Verdict {
    match code {
        Some(0) => {}
        Some(2) => {
            let why = stderr.trim();
            return Verdict::Deny(if why.is_empty() {
                "a hook refused it (exit 2)".into()
            } else {
                why.to_string()
            });
        }
        Some(c) => {
            return Verdict::Failed(format!(
                "the hook exited with {c}: {}",
                crate::util::truncate_str(stderr.trim(), 500)
            ));
        }
        None => return Verdict::Failed("the hook was killed by a signal".into()),
    }
    let out = stdout.trim();
    let Ok(v) = serde_json::from_str::<Value>(out) else {
        // Plain output is context only where Claude Code makes it so: a prompt's and a
        // session's start.
        let speaks = matches!(event, Event::UserPromptSubmit | Event::SessionStart);
        return Verdict::Pass {
            context: (speaks && !out.is_empty()).then(|| out.to_string()),
        };
    };
    let specific = &v["hookSpecificOutput"];
    let decision = specific["permissionDecision"]
        .as_str()
        .or(v["decision"].as_str())
        .unwrap_or("");
    let reason = specific["permissionDecisionReason"]
        .as_str()
        .or(v["reason"].as_str())
        .unwrap_or("a hook said so")
        .to_string();
    let context = specific["additionalContext"]
        .as_str()
        .or(v["additionalContext"].as_str())
        .map(String::from);
    match decision {
        "deny" | "block" => Verdict::Deny(reason),
        "ask" => Verdict::Ask(reason),
        // "allow" and anything else: no objection (a hook never allows past the gate).
        _ => Verdict::Pass { context },
    }
}

/// Run one hook: `command` through `/bin/sh -c`, the event on stdin, in `sandbox` as `job`
/// says (unconfined without one), killed at its timeout.
pub async fn run(
    hook: &Hook,
    event: Event,
    input: &Value,
    cwd: &Path,
    confine: Option<(&crate::sandbox::Sandbox, &crate::sandbox::Job)>,
) -> Ran {
    let started = Instant::now();
    let argv = [std::ffi::OsString::from("-c"), hook.command.clone().into()];
    let mut cmd = match confine {
        Some((sb, job)) => match sb.command(job, Path::new("/bin/sh"), &argv) {
            Ok(c) => c,
            Err(e) => {
                return Ran {
                    verdict: Verdict::Failed(format!("the sandbox refused the hook: {e}")),
                    exit_code: None,
                    duration: started.elapsed(),
                };
            }
        },
        None => {
            let mut c = tokio::process::Command::new("/bin/sh");
            c.args(&argv).process_group(0);
            c
        }
    };
    cmd.current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", std::env::var_os("HOME").unwrap_or_default())
        .env("LANG", "C.UTF-8")
        .env("CLAUDE_PROJECT_DIR", cwd)
        .env("TRADEWIND_PROJECT_DIR", cwd)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    if let Some((sb, job)) = confine {
        sb.env(job, &mut cmd);
    }
    let fail = |why: String, started: Instant| Ran {
        verdict: Verdict::Failed(why),
        exit_code: None,
        duration: started.elapsed(),
    };
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return fail(format!("the hook could not start: {e}"), started),
    };
    let leader = child.id();
    let payload = input.to_string();
    let mut stdin = child.stdin.take();
    let wait = async {
        if let Some(s) = stdin.as_mut() {
            use tokio::io::AsyncWriteExt as _;
            // A hook that does not read its input is not a failure.
            let _ = s.write_all(payload.as_bytes()).await;
        }
        drop(stdin);
        child.wait_with_output().await
    };
    match tokio::time::timeout(hook.timeout, wait).await {
        Err(_) => {
            if let Some(pid) = leader {
                crate::sandbox::stop(pid, rustix::process::Signal::KILL);
            }
            fail(
                format!(
                    "the hook did not finish within {} s",
                    hook.timeout.as_secs()
                ),
                started,
            )
        }
        Ok(Err(e)) => fail(format!("the hook could not be waited for: {e}"), started),
        Ok(Ok(out)) => {
            let text = |b: &[u8]| {
                let s = String::from_utf8_lossy(b);
                crate::util::truncate_str(&s, MAX_OUTPUT).to_string()
            };
            let code = out.status.code();
            Ran {
                verdict: verdict(code, &text(&out.stdout), &text(&out.stderr), event),
                exit_code: code,
                duration: started.elapsed(),
            }
        }
    }
}

/// What follows a run a `Stop` hook asked to go on: one more turn with its reason, at most
/// `max` in a row (a run of any other trigger starts the count again).
pub struct StopTurns {
    pub store: crate::store::Store,
    pub events: std::sync::Arc<crate::events::EventBus>,
    pub queue: crate::scheduler::RunQueue,
    pub max: u32,
    /// Hook turns in a row, by session.
    pub streak: parking_lot::Mutex<std::collections::HashMap<crate::protocol::SessionId, u32>>,
}

impl crate::scheduler::AfterRun for StopTurns {
    fn after_run<'a>(
        &'a self,
        run: &'a crate::scheduler::EndedRun<'a>,
    ) -> futures::future::BoxFuture<'a, ()> {
        Box::pin(async move {
            use crate::protocol::RunTrigger;
            let streak = {
                let mut all = self.streak.lock();
                if run.trigger != RunTrigger::Hook {
                    all.remove(run.session_id);
                }
                let Some(reason) = run.continue_with else {
                    return;
                };
                let n = all.entry(run.session_id.clone()).or_insert(0);
                if *n >= self.max.clamp(1, 20) {
                    all.remove(run.session_id);
                    None
                } else {
                    *n += 1;
                    Some(reason.to_string())
                }
            };
            let Some(reason) = streak else {
                self.events.post(
                    run.session_id,
                    Some(run.run_id),
                    &crate::protocol::EventPayload::Error {
                        code: "stop_hook_limit".into(),
                        message: format!(
                            "Stop hooks asked for more turns {} times in a row (hooks.maxStopTurns): the session stops here",
                            self.max.clamp(1, 20)
                        ),
                        fatal: false,
                    },
                );
                return;
            };
            // Another feature's turn (a plan's, a goal's) or the user's input comes first.
            if self.queue.queued(run.session_id) || self.queue.stopping() {
                return;
            }
            let text = format!("A Stop hook asks you to go on before you finish: {reason}");
            let queued = match self.store.get_session(run.session_id).await {
                Ok(session) => self
                    .queue
                    .enqueue(&session, RunTrigger::Hook, &text)
                    .await
                    .map(drop),
                Err(e) => Err(e),
            };
            if let Err(e) = queued {
                tracing::warn!(error = %e, "cannot start the turn a Stop hook asked for");
            }
        })
    }
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    #[test]
    fn the_file_and_the_answers_are_read_as_claude_code_writes_them() {
        let dir = std::env::temp_dir().join(format!("tw-hooks-{}", crate::util::new_id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("hooks.json");
        std::fs::write(
            &p,
            r#"{"hooks": {
                "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard", "timeout": 600}]},
                               {"matcher": "edit_file|Write", "hooks": [{"type": "command", "command": "fmt"}]},
                               {"matcher": "(", "hooks": [{"type": "command", "command": "x"}]},
                               {"matcher": "Bash(git push:*)", "hooks": [{"type": "command", "command": "p"}]}],
                "PostToolUse": [{"hooks": [{"type": "command", "command": "log"}]}],
                "Notification": [{"hooks": [{"type": "command", "command": "n"}]}]
            }}"#,
        )
        .unwrap();
        let f = read_file(&p).unwrap();
        let pre = &f.hooks[&Event::PreToolUse];
        assert_eq!(pre.len(), 3);
        let none = || Vec::new();
        assert!(pre[0].matches("shell", &none) && pre[0].matches("run_process", &none));
        assert!(!pre[0].matches("read_file", &none));
        assert_eq!(pre[0].timeout, Duration::from_secs(MAX_TIMEOUT));
        assert!(pre[1].matches("edit_file", &none) && pre[1].matches("write_file", &none));
        assert!(!pre[1].matches("edit_file_x", &none), "the whole name");
        assert!(f.hooks[&Event::PostToolUse][0].matches("anything", &none));
        // An argv prefix: `shell` calls one of whose commands starts with `git push`.
        let argv = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        let push = || vec![argv("git status"), argv("git push origin main")];
        let status = || vec![argv("git status")];
        assert!(pre[2].matches("shell", &push));
        assert!(!pre[2].matches("shell", &status));
        assert!(!pre[2].matches("run_process", &push));
        assert_eq!(f.skipped.len(), 2, "{:?}", f.skipped);
        std::fs::remove_dir_all(&dir).unwrap();

        let e = Event::PreToolUse;
        assert_eq!(verdict(Some(0), "", "", e), Verdict::Pass { context: None });
        assert_eq!(
            verdict(Some(2), "", "no rm here\n", e),
            Verdict::Deny("no rm here".into())
        );
        assert!(matches!(
            verdict(Some(1), "", "boom", e),
            Verdict::Failed(_)
        ));
        assert_eq!(
            verdict(
                Some(0),
                r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "prod file"}}"#,
                "",
                e
            ),
            Verdict::Ask("prod file".into())
        );
        assert_eq!(
            verdict(Some(0), r#"{"decision": "allow"}"#, "", e),
            Verdict::Pass { context: None },
            "allow is no more than no objection"
        );
        assert_eq!(
            verdict(
                Some(0),
                r#"{"decision": "block", "reason": "tests fail"}"#,
                "",
                Event::PostToolUse
            ),
            Verdict::Deny("tests fail".into())
        );
        assert_eq!(
            verdict(
                Some(0),
                "Today is a release day.",
                "",
                Event::UserPromptSubmit
            ),
            Verdict::Pass {
                context: Some("Today is a release day.".into())
            }
        );
    }
}
