//! shell and run_process: real child processes in their own process group, a short environment
//! allow-list, the working directory checked by the path policy, bounded output (head + tail with
//! a marker for the model; the last 256 KB for the terminal part), and the whole group killed on
//! timeout, on cancel, or when the output passes its cap.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;

use super::{Gated, PrepareError, ToolCtx, ToolOutput, bound_text};
use crate::policy::command;
use crate::policy::paths::PathPolicy;
use crate::protocol::{Effect, OutputStream, Part};

pub use crate::children::{ENV_ALLOW, GroupGuard, SHELL};

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
pub const MAX_TIMEOUT: Duration = Duration::from_secs(600);
/// Terminal part keeps the last 256 KB of each stream.
pub const TERMINAL_TAIL: usize = 256 * 1024;
/// A command producing more than this is killed.
pub const MAX_OUTPUT: u64 = 16 * 1024 * 1024;
const MAX_COMMAND_BYTES: usize = 32 * 1024;

#[derive(Debug, Clone)]
pub enum Program {
    Shell(String),
    Argv(Vec<String>),
}

#[derive(Debug, Clone)]
pub struct ProcessArgs {
    pub program: Program,
    pub cwd: PathBuf,
    pub timeout: Duration,
    /// The command line as shown to the user.
    pub display: String,
    /// Run outside the process sandbox, for this reason (the gate always asks).
    pub outside_sandbox: Option<String>,
    /// Paths the jail keeps read-only (`.git/hooks`, `.git/config`, …) that this one command
    /// may write: the ones its approval named.
    pub writable: Vec<PathBuf>,
    /// The user's SSH agent is bound in (the command speaks SSH and its approval said so).
    pub ssh_agent: bool,
}

/// Quote an argv for display.
pub fn display_argv(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            if !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
            {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Resolve a working directory: inside the workspace or an extra root, never chosen freely.
pub fn resolve_cwd(cwd: Option<&str>, paths: &PathPolicy) -> Result<PathBuf, PrepareError> {
    let r = paths.resolve(cwd.unwrap_or("."))?;
    if !r.inside {
        return Err(PrepareError::Input(format!(
            "cwd {} is outside the workspace; commands run inside the workspace or an added directory",
            r.path.display()
        )));
    }
    Ok(r.path)
}

impl ProcessArgs {
    fn new(
        program: Program,
        cwd: Option<&str>,
        timeout_ms: Option<u64>,
        paths: &PathPolicy,
    ) -> Result<ProcessArgs, PrepareError> {
        let cwd = resolve_cwd(cwd, paths)?;
        let timeout = timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_TIMEOUT)
            .clamp(Duration::from_millis(1), MAX_TIMEOUT);
        let display = match &program {
            Program::Shell(c) => c.clone(),
            Program::Argv(v) => display_argv(v),
        };
        Ok(ProcessArgs {
            program,
            cwd,
            timeout,
            display,
            outside_sandbox: None,
            writable: Vec::new(),
            ssh_agent: false,
        })
    }

    /// What the gate sees: the command line and its classification.
    fn gated(self, paths: &PathPolicy) -> Gated<ProcessArgs> {
        let mut analysis = match &self.program {
            Program::Shell(c) => command::analyze_shell(c),
            Program::Argv(v) => command::analyze_argv(v),
        };
        analysis.outside_sandbox = self.outside_sandbox.clone();
        // A command that speaks SSH gets the user's agent only through an approval of its own.
        analysis.ssh_agent = analysis.uses_ssh() && ssh_agent_available();
        let uses = paths.command_paths(&mut analysis, &self.cwd);
        let mut call = self;
        call.ssh_agent = analysis.ssh_agent;
        // What the gate asks about is what the jail opens, for this one command once allowed:
        // the places outside the roots its words write to, and its writes into `.git`.
        call.writable
            .extend(jail_openings(&uses, paths, paths.home.as_deref()));
        call.writable
            .extend(crate::policy::git_writes_of(&analysis, &call.cwd, paths));
        Gated {
            paths: uses,
            command: Some((call.display.clone(), analysis)),
            url: None,
            call,
        }
    }
}

/// Does the server have an SSH agent to lend (`SSH_AUTH_SOCK`)?
pub fn ssh_agent_available() -> bool {
    std::env::var_os("SSH_AUTH_SOCK").is_some_and(|s| !s.is_empty())
}

/// The places outside the roots a command names that the jail binds writable once the gate
/// allowed it: a path that exists, else its folder — but never HOME, a folder above it or one
/// holding the state directory whole (a file to be made there stays hidden; the command fails
/// naming it).
fn jail_openings(
    uses: &[crate::policy::PathUse],
    paths: &PathPolicy,
    home: Option<&std::path::Path>,
) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for u in uses.iter().filter(|u| !u.inside) {
        let wide = |d: &std::path::Path| {
            d == std::path::Path::new("/")
                || home.is_some_and(|h| h.starts_with(d))
                || paths.state_dir.starts_with(d)
        };
        let p = if u.path.exists() {
            Some(u.path.clone())
        } else {
            Some(u.directory.clone()).filter(|d| !wide(d))
        };
        if let Some(p) = p.filter(|p| !wide(p) && !out.contains(p)) {
            out.push(p);
        }
    }
    out
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShellArgs {
    /// The command line, run with /bin/sh -c.
    pub command: String,
    /// Working directory, relative to the workspace.
    pub cwd: Option<String>,
    /// Default 120000, at most 600000.
    #[schemars(range(min = 1, max = 600_000))]
    pub timeout_ms: Option<u64>,
    /// Only when the command failed because the sandbox hid what it needs (e.g. `gh` and its
    /// token file): why it must run outside it. The user is always asked.
    #[schemars(length(min = 1, max = 500))]
    pub outside_sandbox: Option<String>,
}

pub struct Shell;

impl super::Tool for Shell {
    const NAME: &'static str = "shell";
    const EFFECT: Effect = Effect::Process;
    const DESCRIPTION: &'static str = "Run a shell command with /bin/sh -c. Optional `cwd` (relative to the workspace) and `timeout_ms` (default 120000, max 600000).";
    type Args = ShellArgs;
    type Call = ProcessArgs;

    fn prepare(a: ShellArgs, paths: &PathPolicy) -> Result<Gated<ProcessArgs>, PrepareError> {
        let c = a.command;
        if c.trim().is_empty() || c.len() > MAX_COMMAND_BYTES || c.contains('\0') {
            return Err(PrepareError::Input(format!(
                "command must be 1 to {MAX_COMMAND_BYTES} bytes without NUL"
            )));
        }
        let mut p = ProcessArgs::new(Program::Shell(c), a.cwd.as_deref(), a.timeout_ms, paths)?;
        p.outside_sandbox = match a.outside_sandbox.map(|w| w.trim().to_string()) {
            Some(w) if w.is_empty() || w.len() > 500 => {
                return Err(PrepareError::Input(
                    "outside_sandbox must give a reason of 1 to 500 characters".into(),
                ));
            }
            w => w,
        };
        Ok(p.gated(paths))
    }

    async fn run(args: ProcessArgs, ctx: &ToolCtx<'_>) -> ToolOutput {
        run(ctx, args).await
    }
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunProcessArgs {
    /// The program and its arguments (no shell).
    #[schemars(length(min = 1))]
    pub argv: Vec<String>,
    /// Working directory, relative to the workspace.
    pub cwd: Option<String>,
    /// Default 120000, at most 600000.
    #[schemars(range(min = 1, max = 600_000))]
    pub timeout_ms: Option<u64>,
}

pub struct RunProcess;

impl super::Tool for RunProcess {
    const NAME: &'static str = "run_process";
    const EFFECT: Effect = Effect::Process;
    const DESCRIPTION: &'static str = "Run a program with an argument array (no shell). Optional `cwd` (relative to the workspace) and `timeout_ms` (default 120000, max 600000).";
    type Args = RunProcessArgs;
    type Call = ProcessArgs;

    fn prepare(a: RunProcessArgs, paths: &PathPolicy) -> Result<Gated<ProcessArgs>, PrepareError> {
        let v = a.argv;
        if v.is_empty()
            || v[0].is_empty()
            || v.iter().any(|s| s.contains('\0'))
            || v.iter().map(String::len).sum::<usize>() > MAX_COMMAND_BYTES
        {
            return Err(PrepareError::Input(
                "argv must be a non-empty array of strings without NUL".into(),
            ));
        }
        Ok(ProcessArgs::new(Program::Argv(v), a.cwd.as_deref(), a.timeout_ms, paths)?.gated(paths))
    }

    async fn run(args: ProcessArgs, ctx: &ToolCtx<'_>) -> ToolOutput {
        run(ctx, args).await
    }
}

/// SIGTERM to the group (the sandbox helper then kills every descendant it adopted), SIGKILL
/// after a second for whatever ignored it.
async fn stop_group(
    guard: &GroupGuard,
    child: &mut tokio::process::Child,
) -> Option<std::process::ExitStatus> {
    guard.signal(rustix::process::Signal::TERM);
    match tokio::time::timeout(Duration::from_secs(1), child.wait()).await {
        Ok(s) => s.ok(),
        Err(_) => {
            guard.signal(rustix::process::Signal::KILL);
            child.wait().await.ok()
        }
    }
}

/// Head and tail of a stream, with the total byte count.
#[derive(Default)]
struct Capture {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: u64,
}

const HEAD: usize = 16 * 1024;

impl Capture {
    fn push(&mut self, b: &[u8]) {
        self.total += b.len() as u64;
        let room = HEAD.saturating_sub(self.head.len());
        self.head.extend_from_slice(&b[..room.min(b.len())]);
        self.tail.extend(b.iter().copied());
        let excess = self.tail.len().saturating_sub(TERMINAL_TAIL);
        self.tail.drain(..excess);
    }
    fn tail_string(&self) -> (String, bool) {
        let v: Vec<u8> = self.tail.iter().copied().collect();
        (
            String::from_utf8_lossy(&v).into_owned(),
            self.total > self.tail.len() as u64,
        )
    }
    /// For the model: head + marker + tail when long.
    fn model_text(&self, max: usize) -> String {
        let (tail, _) = self.tail_string();
        if self.total as usize <= max && self.total as usize == self.tail.len() {
            return tail;
        }
        let head = String::from_utf8_lossy(&self.head[..self.head.len().min(max / 2)]).into_owned();
        let t = crate::util::tail_str(&tail, max / 2);
        format!(
            "{head}\n[… {} bytes truncated …]\n{t}",
            self.total as usize - head.len() - t.len()
        )
    }
}

/// The child process: the program (through the fixed shell, or an argv), in its own process
/// group, with the allow-listed environment and both output streams piped.
fn command_for(
    args: &ProcessArgs,
    sandbox: Option<&crate::sandbox::Sandbox>,
    job: &crate::sandbox::Job,
) -> Result<tokio::process::Command, String> {
    let (program, argv): (std::path::PathBuf, Vec<std::ffi::OsString>) = match &args.program {
        Program::Shell(c) => (SHELL.into(), vec!["-c".into(), c.into()]),
        Program::Argv(v) => (v[0].clone().into(), v[1..].iter().map(Into::into).collect()),
    };
    let mut cmd = match sandbox {
        // The jail and the helper make their own group; it must not be a group leader already.
        Some(sb) => sb.command(job, &program, &argv)?,
        None => {
            let mut cmd = tokio::process::Command::new(&program);
            cmd.args(&argv).process_group(0);
            cmd
        }
    };
    cmd.current_dir(&args.cwd)
        .env_clear()
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for k in ENV_ALLOW {
        if let Some(v) = std::env::var_os(k) {
            cmd.env(k, v);
        }
    }
    cmd.env("TERM", "dumb")
        .env("NO_COLOR", "1")
        .env("PAGER", "cat")
        .env("GIT_PAGER", "cat");
    if let Some(sb) = sandbox {
        sb.env(job, &mut cmd);
    }
    Ok(cmd)
}

/// The paths a failed command's output names that the jail hid from it: its card names them and
/// offers to let them in for the session, and the model is told the user can.
fn hidden_paths(
    sandbox: &crate::sandbox::Sandbox,
    job: &crate::sandbox::Job,
    stdout: &str,
    stderr: &str,
    text: &mut String,
) -> Vec<String> {
    let hidden: Vec<String> = sandbox
        .hidden_in(job, &format!("{stderr}\n{stdout}"))
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if !hidden.is_empty() {
        text.push_str(&format!(
            "note: {} may be hidden from this command by the sandbox, or missing; if the command needs it, the user can allow it for this session from the command's card, then run it again\n",
            hidden.join(", ")
        ));
    }
    for name in missing_programs(stderr) {
        text.push_str(&format!(
            "note: the program `{name}` was not found: it is not installed where commands run, or not on their PATH (this is no hidden path)\n"
        ));
    }
    hidden
}

/// Programs the shell could not find, by bare name (`sh: 1: name: not found`, bash's `bash: line
/// 1: name: command not found`); a path is judged as a path (see [`hidden_paths`]). At most 4.
fn missing_programs(stderr: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for line in stderr.lines() {
        let parts: Vec<&str> = line.split(": ").collect();
        let [.., name, last] = parts.as_slice() else {
            continue;
        };
        let plain = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_alphanumeric() || "-_.+@".contains(c));
        if (*last == "not found" || *last == "command not found")
            && parts.len() >= 3
            && plain
            && !out.contains(name)
        {
            out.push(name);
            if out.len() == 4 {
                break;
            }
        }
    }
    out
}

/// The command's share of the jail; with a sandbox (and without `--yolo`), what programs outside
/// the jail run, as the roots hold it now: the jail protects it, and what the command creates
/// is held when it ends.
async fn job_for(ctx: &ToolCtx<'_>, args: &ProcessArgs, sandboxed: bool) -> crate::sandbox::Job {
    let mut job = crate::sandbox::Job {
        writable: args.writable.clone(),
        ssh_agent: args.ssh_agent,
        ..ctx.job()
    };
    if sandboxed && !ctx.services().cfg.yolo {
        job.seen = Some(std::sync::Arc::new(
            crate::sandbox::guard::look(&job.roots).await,
        ));
    }
    job
}

pub async fn run(ctx: &ToolCtx<'_>, args: ProcessArgs) -> ToolOutput {
    if !args.cwd.is_dir() {
        return ToolOutput::err(
            "invalid_cwd",
            format!("{} is not a directory", args.cwd.display()),
        );
    }
    let sandbox = if args.outside_sandbox.is_some() {
        None
    } else {
        ctx.services().sandbox.get().await
    };
    let job = job_for(ctx, &args, sandbox.is_some()).await;
    let mut cmd = match command_for(&args, sandbox.as_deref(), &job) {
        Ok(c) => c,
        Err(e) => return ToolOutput::err("sandbox_refused", e),
    };
    let started = Instant::now();
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return ToolOutput::err(
                "spawn_failed",
                format!("cannot start `{}`: {e}", args.display),
            );
        }
    };
    let mut guard = GroupGuard::new(child.id().unwrap_or(0));
    let (Some(mut so), Some(mut se)) = (child.stdout.take(), child.stderr.take()) else {
        return ToolOutput::err("spawn_failed", "no output pipes");
    };
    let mut out = Capture::default();
    let mut err = Capture::default();
    let mut live = ctx.live_output();
    let mut bo = vec![0u8; 64 * 1024];
    let mut be = vec![0u8; 64 * 1024];
    let (mut o_open, mut e_open) = (true, true);
    let deadline = tokio::time::sleep(args.timeout);
    tokio::pin!(deadline);
    let mut stop: Option<&'static str> = None;
    while o_open || e_open {
        let due = live.due();
        tokio::select! {
            r = so.read(&mut bo), if o_open => match r { Ok(0) | Err(_) => o_open = false, Ok(n) => { out.push(&bo[..n]); live.push(OutputStream::Stdout, &bo[..n]); } },
            r = se.read(&mut be), if e_open => match r { Ok(0) | Err(_) => e_open = false, Ok(n) => { err.push(&be[..n]); live.push(OutputStream::Stderr, &be[..n]); } },
            _ = tokio::time::sleep_until(due.unwrap_or_else(tokio::time::Instant::now)), if due.is_some() => live.flush(),
            _ = &mut deadline => { stop = Some("timeout"); break; }
            _ = ctx.cancel.cancelled() => { stop = Some("cancelled"); break; }
        }
        if out.total + err.total > MAX_OUTPUT {
            stop = Some("output_limit");
            break;
        }
    }
    live.flush();
    let status = if stop.is_some() {
        stop_group(&guard, &mut child).await
    } else {
        tokio::select! {
            s = child.wait() => s.ok(),
            _ = &mut deadline => { stop = Some("timeout"); stop_group(&guard, &mut child).await }
            _ = ctx.cancel.cancelled() => { stop = Some("cancelled"); stop_group(&guard, &mut child).await }
        }
    };
    // The leader is gone; kill stragglers of the group anyway, then stop guarding.
    guard.signal(rustix::process::Signal::KILL);
    guard.disarm();
    let duration_ms = started.elapsed().as_millis() as u64;
    let exit_code = status.and_then(|s| s.code());
    let (stdout, t1) = out.tail_string();
    let (stderr, t2) = err.tail_string();
    let mut text = format!(
        "exit code: {}, duration: {duration_ms} ms\n",
        exit_code
            .map(|c| c.to_string())
            .unwrap_or_else(|| "none (killed by a signal)".into())
    );
    match stop {
        Some("timeout") => text.push_str(&format!(
            "stopped: the command ran longer than {} ms and its process group was killed\n",
            args.timeout.as_millis()
        )),
        Some("cancelled") => text.push_str("stopped: the run was cancelled\n"),
        Some("output_limit") => text.push_str(&format!(
            "stopped: output passed {MAX_OUTPUT} bytes and the process group was killed\n"
        )),
        _ => {}
    }
    if out.total > 0 {
        text.push_str(&format!("--- stdout ---\n{}\n", out.model_text(16 * 1024)));
    }
    if err.total > 0 {
        text.push_str(&format!("--- stderr ---\n{}\n", err.model_text(8 * 1024)));
    }
    let mut ok = stop.is_none() && exit_code == Some(0);
    if let Some(before) = &job.seen
        && !super::held::hold_created(ctx, "this command", &job.roots, before, &mut text)
            .await
            .all_kept
    {
        ok = false;
    }
    let hidden = match &sandbox {
        Some(sb) if !ok && stop.is_none() => hidden_paths(sb, &job, &stdout, &stderr, &mut text),
        _ => Vec::new(),
    };
    ToolOutput {
        ok,
        text: bound_text(&text, super::MAX_MODEL_TEXT),
        parts: vec![Part::Terminal {
            command: args.display,
            stdout,
            stderr,
            exit_code,
            duration_ms,
            truncated: t1 || t2,
            hidden,
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::missing_programs;

    #[test]
    fn programs_the_shell_could_not_find_are_named() {
        assert_eq!(missing_programs("/bin/sh: 1: rg: not found\n"), vec!["rg"]);
        assert_eq!(
            missing_programs(
                "bash: line 1: fd-find: command not found\nbash: line 2: rg: command not found"
            ),
            vec!["fd-find", "rg"]
        );
        // A path is a path (the card and the hidden-path note judge it), and other errors are not this.
        assert!(missing_programs("/bin/sh: 1: /home/u/tools/x: not found").is_empty());
        assert!(missing_programs("cat: foo.txt: No such file or directory").is_empty());
        assert!(missing_programs("not found").is_empty());
    }
}
