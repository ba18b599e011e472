//! Commit, push, "Apply to main checkout" and "Open pull request": the user's own actions on
//! the repository a session works in, like a `!command` — never asking the user to approve
//! their own click, refused under `--read-only`. Each runs in the jail as the server's own git
//! does (`git_command`: no hooks, no user config, filtered repository config), given exactly
//! what it writes; a push gets the network for that call only, the user's SSH agent, and the
//! remote's address read here (never a remote's configured programs); commits carry the
//! user's own git identity (`-c user.name=… -c user.email=…`).

use std::path::{Path, PathBuf};

use super::{Core, ServiceError, ServiceResult};
use crate::protocol::{
    ApplyHow, ApplyParams, CommitParams, GitDone, GitFile, GitIdentity, GitState,
    PullRequestParams, PushParams, SessionId, SessionWorktree,
};
use crate::sandbox::Job;
use crate::store::SessionRow;
use crate::tools::git::{Repo, git_command};

fn refused(code: &'static str, message: impl Into<String>) -> ServiceError {
    ServiceError::Refused {
        code,
        message: message.into(),
    }
}

/// A name git takes as a branch or remote, never an option.
fn plain_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 250
        && !s.starts_with('-')
        && !s.contains("..")
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._/-".contains(c))
}

/// A remote's address a push may go to: `https://`, `ssh://`, `user@host:path`, `file://` or
/// an absolute path. Anything else (`ext::`, `fd::`, a helper) is refused.
fn push_url(url: &str) -> Option<&str> {
    let scp_like = !url.contains("://")
        && url.split_once(':').is_some_and(|(host, _)| {
            !host.is_empty() && !host.contains('/') && host.chars().all(|c| !c.is_whitespace())
        });
    let ok = url.starts_with("https://")
        || url.starts_with("ssh://")
        || url.starts_with("file://")
        || url.starts_with('/')
        || scp_like;
    let plain = !url.starts_with('-') && !url.contains("::") && !url.chars().any(char::is_control);
    (ok && plain).then_some(url)
}

/// What git (or a forge tool) printed, stdout then stderr, secrets redacted; or its error text.
async fn run_both(cmd: tokio::process::Command, input: Option<&[u8]>) -> Result<String, String> {
    let redact = |t: &str| crate::policy::secrets::redact(t.trim()).0;
    super::worktrees::finish(cmd, input, std::time::Duration::from_secs(300))
        .await
        .map(|p| redact(&format!("{}{}", p.stdout, p.stderr)))
        .map_err(|e| redact(&e))
}

/// `git status --porcelain=v1` lines as staged, unstaged and untracked files.
fn status_files(porcelain: &str) -> (Vec<GitFile>, Vec<GitFile>, Vec<GitFile>) {
    let (mut staged, mut unstaged, mut untracked) = (Vec::new(), Vec::new(), Vec::new());
    for l in porcelain.lines() {
        let (Some(x), Some(y), Some(path)) = (l.get(0..1), l.get(1..2), l.get(3..)) else {
            continue;
        };
        let path = path.rsplit(" -> ").next().unwrap_or(path).to_string();
        if x == "?" {
            untracked.push(GitFile {
                path,
                status: "?".into(),
            });
            continue;
        }
        if x != " " {
            staged.push(GitFile {
                path: path.clone(),
                status: x.into(),
            });
        }
        if y != " " {
            unstaged.push(GitFile {
                path,
                status: y.into(),
            });
        }
    }
    (staged, unstaged, untracked)
}

/// The forge tool's sign-in folder and its arguments for a pull (merge) request.
fn forge_call(
    forge: &str,
    home: &Path,
    title: &str,
    p: &PullRequestParams,
    branch: &str,
) -> (PathBuf, Vec<String>) {
    // `--flag=value`: a title or body starting with `-` is never read as an option.
    let gh = forge == "gh";
    let mut args: Vec<String> = if gh {
        vec![
            "pr".into(),
            "create".into(),
            format!("--title={title}"),
            format!("--body={}", p.body),
            format!("--head={branch}"),
        ]
    } else {
        vec![
            "mr".into(),
            "create".into(),
            "--yes".into(),
            format!("--title={title}"),
            format!("--description={}", p.body),
            format!("--source-branch={branch}"),
        ]
    };
    if let Some(b) = &p.base {
        args.push(if gh {
            format!("--base={b}")
        } else {
            format!("--target-branch={b}")
        });
    }
    let config = home.join(if gh { ".config/gh" } else { ".config/glab-cli" });
    (config, args)
}

/// The programs on PATH among `names`.
fn installed(names: &[&str]) -> Vec<String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    names
        .iter()
        .filter(|n| std::env::split_paths(&path).any(|d| d.join(n).is_file()))
        .map(|n| (*n).to_string())
        .collect()
}

impl Core {
    /// The session, its repository, and its worktree if it has one.
    async fn git_of(
        &self,
        id: &SessionId,
    ) -> ServiceResult<(SessionRow, Repo, Option<SessionWorktree>)> {
        let row = self.load_session(id).await?;
        let repo = self.repo_of(Path::new(&row.workspace))?;
        let wt = row
            .worktree
            .as_deref()
            .and_then(|w| serde_json::from_str(w).ok());
        Ok((row, repo, wt))
    }

    /// What a commit on the session's repository may write: a worktree's own state and the
    /// shared objects and refs, or a plain repository's git directory (its hooks, config and
    /// info still read-only).
    pub(crate) fn git_write_job(&self, repo: &Repo, wt: Option<&SessionWorktree>) -> Job {
        match wt {
            Some(wt) => Job {
                lent_git: Some(crate::sandbox::lent_git_of(wt)),
                ..self.git_read(repo)
            },
            None => Job {
                git_admin: Some(repo.common_dir.clone()),
                ..self.git_read(repo)
            },
        }
    }

    /// The user's own git identity, as `-c` options (their global config's name and email).
    fn identity(&self) -> Option<GitIdentity> {
        let home = self.cfg.home.as_deref()?;
        match crate::sandbox::jail::user_identity(home) {
            (Some(name), Some(email)) if !name.trim().is_empty() && !email.trim().is_empty() => {
                Some(GitIdentity { name, email })
            }
            _ => None,
        }
    }

    fn user_action_allowed(&self, id: &SessionId) -> ServiceResult<()> {
        if self.cfg.read_only {
            return Err(refused(
                "read_only",
                "the server was started with --read-only: nothing may be committed or pushed",
            ));
        }
        if self.runs.is_busy(id) {
            return Err(refused(
                "session_busy",
                "the session is working; commit when its run ends",
            ));
        }
        Ok(())
    }

    pub async fn git_state(&self, id: &SessionId) -> ServiceResult<GitState> {
        let (_, repo, wt) = self.git_of(id).await?;
        let job = self.git_read(&repo);
        let status = self
            .git(
                &repo,
                &job,
                &[
                    "status",
                    "--porcelain=v1",
                    "--untracked-files=normal",
                    "--ignore-submodules=all",
                ],
            )
            .await
            .map_err(ServiceError::Invalid)?;
        let (staged, unstaged, untracked) = status_files(&status);
        let one = |s: Result<String, String>| {
            s.ok()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
        };
        let branch = one(self
            .git(&repo, &job, &["symbolic-ref", "--quiet", "--short", "HEAD"])
            .await);
        let head = one(self
            .git(&repo, &job, &["rev-parse", "--verify", "--quiet", "HEAD"])
            .await);
        let head_subject = match &head {
            Some(_) => one(self.git(&repo, &job, &["log", "-1", "--format=%s"]).await),
            None => None,
        };
        let mut upstream = one(self
            .git(
                &repo,
                &job,
                &["rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}"],
            )
            .await);
        let remotes = self.remotes(&repo);
        // No upstream configured (the panel's push sets none: the config stays read-only):
        // the remote-tracking branch of the same name a push left.
        if upstream.is_none()
            && let Some(b) = &branch
        {
            for (r, _) in &remotes {
                let tracking = format!("refs/remotes/{r}/{b}");
                let found = self
                    .git(
                        &repo,
                        &job,
                        &["rev-parse", "--verify", "--quiet", &tracking],
                    )
                    .await;
                if found.is_ok() {
                    upstream = Some(format!("{r}/{b}"));
                    break;
                }
            }
        }
        let (mut ahead, mut behind) = (0, 0);
        let range = upstream.as_ref().map(|u| format!("HEAD...{u}"));
        if let Some(range) = &range
            && let Some(counts) = one(self
                .git(&repo, &job, &["rev-list", "--left-right", "--count", range])
                .await)
        {
            let mut it = counts
                .split_whitespace()
                .map(|n| n.parse::<u32>().unwrap_or(0));
            ahead = it.next().unwrap_or(0);
            behind = it.next().unwrap_or(0);
        }
        Ok(GitState {
            branch,
            head,
            head_subject,
            upstream,
            ahead,
            behind,
            staged,
            unstaged,
            untracked,
            remotes: remotes.into_iter().map(|(n, _)| n).collect(),
            identity: self.identity(),
            worktree: wt.is_some(),
            forges: installed(&["gh", "glab"]),
        })
    }

    /// The repository's remotes and their push addresses, read from its config here (the
    /// server's git never sees a remote's settings).
    fn remotes(&self, repo: &Repo) -> Vec<(String, String)> {
        let Ok(text) = std::fs::read_to_string(repo.common_dir.join("config")) else {
            return Vec::new();
        };
        let pairs = crate::sandbox::gitconfig_pairs(&text);
        let mut out: Vec<(String, String)> = Vec::new();
        for (k, v) in &pairs {
            let Some(rest) = k.strip_prefix("remote.") else {
                continue;
            };
            let (name, key) = match rest.rsplit_once('.') {
                Some(x) => x,
                None => continue,
            };
            let pushurl = pairs
                .iter()
                .find(|(k2, _)| *k2 == format!("remote.{name}.pushurl"))
                .map(|(_, v)| v.clone());
            if key == "url" && !out.iter().any(|(n, _)| n == name) {
                out.push((name.to_string(), pushurl.unwrap_or_else(|| v.clone())));
            }
        }
        out
    }

    /// Commit what is staged (or, with `all`, every tracked change) with the user's identity.
    pub async fn git_commit(&self, id: &SessionId, p: &CommitParams) -> ServiceResult<GitDone> {
        self.user_action_allowed(id)?;
        let message = p.message.trim();
        if message.is_empty() || message.chars().count() > 20_000 {
            return Err(ServiceError::Invalid(
                "a commit message is 1 to 20,000 characters".into(),
            ));
        }
        let who = self.identity().ok_or_else(|| {
            refused(
                "no_identity",
                "your git config has no user.name and user.email (git config --global user.name …)",
            )
        })?;
        let (_, repo, wt) = self.git_of(id).await?;
        let job = self.git_write_job(&repo, wt.as_ref());
        let name = format!("user.name={}", who.name);
        let email = format!("user.email={}", who.email);
        let mut args = vec![
            "-c",
            &name,
            "-c",
            &email,
            "-c",
            "commit.gpgsign=false",
            "-c",
            "core.editor=true",
            "commit",
            "--quiet",
            "--no-verify",
            "-F",
            "-",
        ];
        if p.all {
            args.push("--all");
        }
        if p.amend {
            args.push("--amend");
        }
        let sandbox = self.env.tools.sandbox.get().await;
        let cmd = git_command(sandbox.as_deref(), &job, &repo, &args)
            .map_err(|e| refused("sandbox_refused", e))?;
        let mut text = message.to_string();
        text.push('\n');
        let output = run_both(cmd, Some(text.as_bytes()))
            .await
            .map_err(|e| refused("git_failed", format!("git commit failed: {e}")))?;
        let commit = self
            .git(&repo, &self.git_read(&repo), &["rev-parse", "HEAD"])
            .await
            .ok()
            .map(|s| s.trim().to_string());
        Ok(GitDone {
            commit,
            output,
            url: None,
        })
    }

    /// Push the session's branch to a remote (its address read from the repository's config).
    pub async fn git_push(&self, id: &SessionId, p: &PushParams) -> ServiceResult<GitDone> {
        self.user_action_allowed(id)?;
        if self.cfg.sandbox.network == "deny" {
            return Err(refused(
                "network_denied",
                "a push needs the network, which sandbox.network: \"deny\" in config.json turns off",
            ));
        }
        let (_, repo, wt) = self.git_of(id).await?;
        let read = self.git_read(&repo);
        let (branch, remote, url) = self.push_target(&repo, p).await?;
        let mut job = Job {
            network_deny: false,
            ssh_agent: true,
            ..self.git_write_job(&repo, wt.as_ref())
        };
        // A remote on this machine is written by the push itself.
        let local = url.strip_prefix("file://").unwrap_or(&url);
        if local.starts_with('/') {
            job.writable.push(PathBuf::from(local));
        }
        if let Some(h) = &self.cfg.home {
            let known = h.join(".ssh/known_hosts");
            if known.is_file() {
                job.read.push(known);
            }
        }
        let refspec = format!("HEAD:refs/heads/{branch}");
        let tracking = format!("refs/remotes/{remote}/{branch}");
        // A force push overwrites only what the last push (or fetch) saw there.
        let lease = match self
            .git(
                &repo,
                &read,
                &["rev-parse", "--verify", "--quiet", &tracking],
            )
            .await
        {
            Ok(sha) if p.force => format!("--force-with-lease=refs/heads/{branch}:{}", sha.trim()),
            _ if p.force => "--force".to_string(),
            _ => String::new(),
        };
        let mut args = vec![
            "-c",
            "protocol.https.allow=always",
            "-c",
            "protocol.ssh.allow=always",
            "-c",
            "protocol.file.allow=always",
            "push",
            "--porcelain",
        ];
        if !lease.is_empty() {
            args.push(&lease);
        }
        args.extend(["--", url.as_str(), refspec.as_str()]);
        let sandbox = self.env.tools.sandbox.get().await;
        let cmd = git_command(sandbox.as_deref(), &job, &repo, &args)
            .map_err(|e| refused("sandbox_refused", e))?;
        let output = run_both(cmd, None)
            .await
            .map_err(|e| refused("git_failed", format!("git push failed: {e}")))?;
        // The remote-tracking branch follows what was pushed.
        let _ = self
            .git(
                &repo,
                &self.git_write_job(&repo, wt.as_ref()),
                &["update-ref", &tracking, "HEAD"],
            )
            .await;
        let commit = self
            .git(&repo, &read, &["rev-parse", "HEAD"])
            .await
            .ok()
            .map(|s| s.trim().to_string());
        Ok(GitDone {
            commit,
            output,
            url: None,
        })
    }

    /// The branch a push sends, the remote and its address: checked (a force push needs the
    /// branch typed; the address must be https, ssh or a folder).
    async fn push_target(
        &self,
        repo: &Repo,
        p: &PushParams,
    ) -> ServiceResult<(String, String, String)> {
        let read = self.git_read(repo);
        let branch = self
            .git(repo, &read, &["symbolic-ref", "--quiet", "--short", "HEAD"])
            .await
            .map(|s| s.trim().to_string())
            .ok()
            .filter(|b| plain_name(b))
            .ok_or_else(|| refused("detached_head", "no branch is checked out to push"))?;
        if p.force && p.confirm.as_deref() != Some(branch.as_str()) {
            return Err(refused(
                "confirm_branch",
                format!(
                    "a force push rewrites {branch} on the remote: type the branch's name ({branch}) in `confirm`"
                ),
            ));
        }
        let upstream_remote = self
            .git(
                repo,
                &read,
                &["config", "--get", &format!("branch.{branch}.remote")],
            )
            .await
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty());
        let remote = p
            .remote
            .clone()
            .or(upstream_remote)
            .unwrap_or_else(|| "origin".into());
        if !plain_name(&remote) {
            return Err(ServiceError::NotFound("remote"));
        }
        let remotes = self.remotes(repo);
        let url = remotes
            .iter()
            .find(|(n, _)| *n == remote)
            .map(|(_, u)| u.clone())
            .ok_or(ServiceError::NotFound("remote"))?;
        let url = push_url(&url)
            .ok_or_else(|| {
                refused(
                    "remote_refused",
                    format!("the remote {remote}'s address {url:?} is not https, ssh or a folder"),
                )
            })?
            .to_string();
        Ok((branch, remote, url))
    }

    /// Refused while the main checkout has uncommitted changes (naming some).
    async fn main_checkout_clean(&self, main: &Repo) -> ServiceResult<()> {
        let dirty = self
            .git(
                main,
                &self.git_read(main),
                &["status", "--porcelain=v1", "--untracked-files=no"],
            )
            .await
            .map_err(ServiceError::Invalid)?;
        if dirty.trim().is_empty() {
            return Ok(());
        }
        let files = status_files(&dirty);
        let names: Vec<String> = files
            .0
            .iter()
            .chain(&files.1)
            .map(|f| f.path.clone())
            .take(10)
            .collect();
        Err(refused(
            "main_checkout_dirty",
            format!(
                "the main checkout has uncommitted changes ({}); commit or stash them first",
                names.join(", ")
            ),
        ))
    }

    /// Bring a worktree session's branch into the main checkout: a merge (or its commits
    /// cherry-picked), refused on a conflict (the main checkout is left as it was).
    pub async fn git_apply(&self, id: &SessionId, p: &ApplyParams) -> ServiceResult<GitDone> {
        self.user_action_allowed(id)?;
        let (_, _, wt) = self.git_of(id).await?;
        let wt = wt.ok_or_else(|| {
            refused(
                "no_worktree",
                "the session works in the main checkout already",
            )
        })?;
        if !self.worktree_changes(&wt).await?.is_empty() {
            return Err(refused(
                "uncommitted_changes",
                "the session's worktree has uncommitted changes: commit them first",
            ));
        }
        let who = self.identity().ok_or_else(|| {
            refused(
                "no_identity",
                "your git config has no user.name and user.email",
            )
        })?;
        let git_dir = PathBuf::from(&wt.git_dir);
        let main = Repo {
            top: PathBuf::from(&wt.repository),
            git_dir: git_dir.clone(),
            common_dir: git_dir.clone(),
        };
        let read = self.git_read(&main);
        self.main_checkout_clean(&main).await?;
        // The main checkout's files and git directory writable for this call (hooks, config and
        // info read-only on top).
        let job = Job {
            read_only_roots: false,
            writable: vec![git_dir.clone()],
            ..read
        };
        let name = format!("user.name={}", who.name);
        let email = format!("user.email={}", who.email);
        let range = format!("{}..{}", wt.base_commit, wt.branch);
        let ident = [
            "-c",
            name.as_str(),
            "-c",
            email.as_str(),
            "-c",
            "commit.gpgsign=false",
            "-c",
            "core.editor=true",
        ];
        let (args, abort): (Vec<&str>, [&str; 2]) = match p.how {
            ApplyHow::Merge => (
                ident
                    .iter()
                    .copied()
                    .chain(["merge", "--no-edit", "--no-verify", wt.branch.as_str()])
                    .collect(),
                ["merge", "--abort"],
            ),
            ApplyHow::CherryPick => (
                ident
                    .iter()
                    .copied()
                    .chain(["cherry-pick", range.as_str()])
                    .collect(),
                ["cherry-pick", "--abort"],
            ),
        };
        let sandbox = self.env.tools.sandbox.get().await;
        let cmd = git_command(sandbox.as_deref(), &job, &main, &args)
            .map_err(|e| refused("sandbox_refused", e))?;
        match run_both(cmd, None).await {
            Ok(output) => {
                let commit = self
                    .git(&main, &self.git_read(&main), &["rev-parse", "HEAD"])
                    .await
                    .ok()
                    .map(|s| s.trim().to_string());
                Ok(GitDone {
                    commit,
                    output,
                    url: None,
                })
            }
            Err(e) => {
                let conflicted = self
                    .git(
                        &main,
                        &self.git_read(&main),
                        &["diff", "--name-only", "--diff-filter=U"],
                    )
                    .await
                    .unwrap_or_default();
                let abort_cmd = git_command(sandbox.as_deref(), &job, &main, &abort);
                if let Ok(c) = abort_cmd {
                    let _ = run_both(c, None).await;
                }
                let files: Vec<&str> = conflicted.lines().take(20).collect();
                Err(if files.is_empty() {
                    refused("git_failed", format!("applying the branch failed: {e}"))
                } else {
                    refused(
                        "conflicts",
                        format!(
                            "the branch {} conflicts with the main checkout in {}; nothing was changed",
                            wt.branch,
                            files.join(", ")
                        ),
                    )
                })
            }
        }
    }

    /// Open a pull (merge) request for the session's branch with `gh` or `glab`, their sign-in
    /// lent to that call.
    pub async fn git_pull_request(
        &self,
        id: &SessionId,
        p: &PullRequestParams,
    ) -> ServiceResult<GitDone> {
        self.user_action_allowed(id)?;
        if self.cfg.sandbox.network == "deny" {
            return Err(refused(
                "network_denied",
                "a pull request needs the network, which sandbox.network: \"deny\" in config.json turns off",
            ));
        }
        let title = p.title.trim();
        if title.is_empty() || title.chars().count() > 250 || title.chars().any(char::is_control) {
            return Err(ServiceError::Invalid(
                "a title is 1 to 250 characters on one line".into(),
            ));
        }
        if let Some(b) = &p.base
            && !plain_name(b)
        {
            return Err(refused("bad_base", format!("{b:?} is not a branch name")));
        }
        let (row, repo, _) = self.git_of(id).await?;
        let branch = self
            .git(
                &repo,
                &self.git_read(&repo),
                &["symbolic-ref", "--quiet", "--short", "HEAD"],
            )
            .await
            .map(|s| s.trim().to_string())
            .ok()
            .filter(|b| plain_name(b))
            .ok_or_else(|| refused("detached_head", "no branch is checked out"))?;
        let forge = installed(&["gh", "glab"]).into_iter().next().ok_or_else(|| {
            refused(
                "no_forge_tool",
                "opening a pull request needs GitHub's `gh` or GitLab's `glab` installed and signed in",
            )
        })?;
        let home = self.cfg.home.clone().unwrap_or_default();
        let (config, args) = forge_call(&forge, &home, title, p, &branch);
        let job = Job {
            roots: vec![PathBuf::from(&row.workspace)],
            read_only_roots: true,
            read: vec![config],
            network_deny: false,
            env: vec![
                ("GH_PROMPT_DISABLED".into(), "1".into()),
                ("GIT_TERMINAL_PROMPT".into(), "0".into()),
                ("NO_COLOR".into(), "1".into()),
            ],
            ..Job::default()
        };
        let sandbox = self.env.tools.sandbox.get().await;
        let argv: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
        let mut cmd = match sandbox.as_deref() {
            Some(sb) => sb
                .command(&job, Path::new(&forge), &argv)
                .map_err(|e| refused("sandbox_refused", e))?,
            None => {
                let mut c = tokio::process::Command::new(&forge);
                c.args(&argv);
                c
            }
        };
        cmd.current_dir(&row.workspace)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        if let Some(sb) = sandbox.as_deref() {
            sb.env(&job, &mut cmd);
        }
        let output = run_both(cmd, None)
            .await
            .map_err(|e| refused("forge_failed", format!("{forge} failed: {e}")))?;
        let url = output
            .split_whitespace()
            .find(|w| w.starts_with("https://"))
            .map(str::to_string);
        Ok(GitDone {
            commit: None,
            output,
            url,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_addresses_are_plain_transports() {
        for ok in [
            "https://example.com/a.git",
            "ssh://git@example.com/a.git",
            "git@example.com:me/a.git",
            "/srv/git/a.git",
            "file:///srv/git/a.git",
        ] {
            assert!(push_url(ok).is_some(), "{ok}");
        }
        for bad in [
            "ext::sh -c touch% /tmp/x",
            "fd::3",
            "-uhelp",
            "./relative",
            "http://plain.example/a",
            "relative/path",
        ] {
            assert!(push_url(bad).is_none(), "{bad}");
        }
        assert!(plain_name("feature/x-1") && !plain_name("--force") && !plain_name("a..b"));
    }
}
