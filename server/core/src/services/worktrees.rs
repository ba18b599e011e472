//! A session in a git worktree of its own: made when the session is created
//! (`git worktree add -b tw/<slug> -- <dir> <base>`), removed when it is deleted (its branch
//! kept). The server's git here starts from the git tools' (`git_job`/`git_command`: roots
//! read-only, no network, filtered config, no hooks); each command gets writable exactly what
//! it writes.

use std::path::{Path, PathBuf};

use super::{Core, ServiceError, ServiceResult};
use crate::protocol::{BranchList as Branches, SessionId, SessionWorktree};
use crate::sandbox::Job;
use crate::tools::git::{Repo, git_command, git_job};

/// A base as given: a branch or commit name git takes, never an option.
fn check_base(base: &str) -> ServiceResult<()> {
    let ok = !base.is_empty()
        && base.len() <= 250
        && !base.starts_with('-')
        && !base.contains("..")
        && base
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._/@^~-".contains(c));
    if ok {
        Ok(())
    } else {
        Err(ServiceError::Invalid(format!(
            "base {base:?} is not a branch or commit name"
        )))
    }
}

/// `[a-z0-9-]{1,40}` from the session id (never the title).
pub fn slug_of(id: &SessionId) -> String {
    id.as_str()
        .to_ascii_lowercase()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .take(40)
        .collect()
}

/// A folder name from the repository's (letters, digits, `.`, `_`, `-`; at most 40).
fn repo_name(top: &Path) -> String {
    let name: String = top
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '-'
            }
        })
        .take(40)
        .collect();
    match name.trim_start_matches('.') {
        "" => "repo".into(),
        n => n.to_string(),
    }
}

/// A finished program's output: stdout and stderr.
pub(crate) struct Printed {
    pub stdout: String,
    pub stderr: String,
}

/// Run `cmd` (`input` written to its standard input) for at most `limit`: what it printed, or —
/// when it failed — its error text.
pub(crate) async fn finish(
    mut cmd: tokio::process::Command,
    input: Option<&[u8]>,
    limit: std::time::Duration,
) -> Result<Printed, String> {
    use tokio::io::AsyncWriteExt;
    if input.is_some() {
        cmd.stdin(std::process::Stdio::piped());
    }
    let mut child = cmd.spawn().map_err(|e| format!("cannot run it: {e}"))?;
    if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
        stdin
            .write_all(bytes)
            .await
            .map_err(|e| format!("cannot write to it: {e}"))?;
    }
    let out = tokio::time::timeout(limit, child.wait_with_output())
        .await
        .map_err(|_| format!("it took longer than {} s", limit.as_secs()))?
        .map_err(|e| format!("cannot run it: {e}"))?;
    let printed = Printed {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
    };
    if out.status.success() {
        Ok(printed)
    } else {
        Err(printed.stderr)
    }
}

/// What git printed, or its error; `input` is written to its standard input.
pub(crate) async fn output(
    cmd: tokio::process::Command,
    input: Option<&[u8]>,
) -> Result<String, String> {
    finish(cmd, input, std::time::Duration::from_secs(120))
        .await
        .map(|p| p.stdout)
}

async fn run(
    sandbox: Option<&crate::sandbox::Sandbox>,
    job: &Job,
    repo: &Repo,
    args: &[&str],
) -> Result<String, String> {
    output(git_command(sandbox, job, repo, args)?, None).await
}

impl Core {
    /// The repository `workspace` is in (its main checkout's view: a worktree's shared git
    /// directory), or why there is none.
    pub(crate) fn repo_of(&self, workspace: &Path) -> ServiceResult<Repo> {
        let paths = self.env.paths.with_workspace(workspace);
        crate::tools::git::find_repo(&paths)
            .map(|(r, _)| r)
            .map_err(|_| ServiceError::Refused {
                code: "not_a_repository",
                message: format!("{} is not in a git repository", workspace.display()),
            })
    }

    /// Run the server's own git on `repo` (roots read-only, no network).
    pub(crate) async fn git(
        &self,
        repo: &Repo,
        job: &Job,
        args: &[&str],
    ) -> Result<String, String> {
        let sandbox = self.env.tools.sandbox.get().await;
        run(sandbox.as_deref(), job, repo, args).await
    }

    /// A reading git (`diff`, `ls-files`) on `repo`: no pager, no external diff or filter.
    pub(crate) async fn git_reading(
        &self,
        repo: &Repo,
        job: &Job,
        args: &[&str],
        input: Option<&[u8]>,
    ) -> Result<String, String> {
        let sandbox = self.env.tools.sandbox.get().await;
        let cmd = crate::tools::git::reading_git(sandbox.as_deref(), job, repo, args).await?;
        output(cmd, input).await
    }

    /// A read-only git job on `repo`.
    pub(crate) fn git_read(&self, repo: &Repo) -> Job {
        git_job(repo, &self.cfg.state_dir)
    }

    /// The branches of the repository `workspace` is in (a folder under the home folder or
    /// the server's workspace).
    pub async fn branches(&self, workspace: &Path) -> ServiceResult<Branches> {
        let canon = std::fs::canonicalize(workspace).map_err(|_| {
            ServiceError::Invalid(format!("{} does not exist", workspace.display()))
        })?;
        let reachable = self
            .cfg
            .home
            .as_deref()
            .is_some_and(|h| canon.starts_with(h))
            || canon.starts_with(&self.cfg.workspace)
            || self.cfg.extra_roots.iter().any(|r| canon.starts_with(r));
        if !reachable || canon.starts_with(&self.cfg.state_dir) {
            return Err(ServiceError::Invalid(format!(
                "{} is not under the home folder or the server's workspace",
                workspace.display()
            )));
        }
        let repo = self.repo_of(&canon)?;
        let job = self.git_read(&repo);
        let current = self
            .git(&repo, &job, &["symbolic-ref", "--quiet", "--short", "HEAD"])
            .await
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty());
        let list = self
            .git(
                &repo,
                &job,
                &[
                    "for-each-ref",
                    "--sort=-committerdate",
                    "--count=200",
                    "--format=%(refname:short)",
                    "refs/heads/",
                ],
            )
            .await
            .map_err(ServiceError::Invalid)?;
        Ok(Branches {
            current,
            branches: list.lines().map(str::to_string).collect(),
        })
    }

    /// Make session `id`'s worktree from the repository of `workspace`; returns the folder the
    /// session works in (the same place in the worktree as `workspace` is in the repository).
    pub(crate) async fn make_worktree(
        &self,
        id: &SessionId,
        workspace: &Path,
        base: Option<&str>,
    ) -> ServiceResult<(PathBuf, SessionWorktree)> {
        let repo = self.repo_of(workspace)?;
        let main = Repo {
            top: repo.top.clone(),
            git_dir: repo.common_dir.clone(),
            common_dir: repo.common_dir.clone(),
        };
        let read = self.git_read(&repo);
        if let Some(b) = base {
            check_base(b)?;
        }
        let base_name = match base {
            Some(b) => b.to_string(),
            None => self
                .git(
                    &repo,
                    &read,
                    &["symbolic-ref", "--quiet", "--short", "HEAD"],
                )
                .await
                .ok()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "HEAD".into()),
        };
        let spec = format!("{base_name}^{{commit}}");
        let commit = self
            .git(&repo, &read, &["rev-parse", "--verify", "--quiet", "--end-of-options", &spec])
            .await
            .map(|s| s.trim().to_string())
            .ok()
            .filter(|s| s.len() >= 40)
            .ok_or_else(|| {
                ServiceError::Invalid(format!(
                    "{base_name} is not a commit of {} (a repository needs one commit for a worktree)",
                    repo.top.display()
                ))
            })?;
        let root = self
            .cfg
            .worktrees
            .root(self.cfg.home.as_deref())
            .ok_or_else(|| {
                ServiceError::Invalid("set worktrees.dir in config.json (HOME is not set)".into())
            })?;
        let hash = crate::util::sha256_hex(repo.common_dir.to_string_lossy().as_bytes());
        let parent = root.join(format!("{}-{}", repo_name(&repo.top), &hash[..8]));
        let slug = slug_of(id);
        let dir = parent.join(&slug);
        let canon_root = std::fs::canonicalize(&root).unwrap_or_else(|_| root.clone());
        if dir.starts_with(&repo.top)
            || canon_root.starts_with(&repo.top)
            || dir.starts_with(&self.cfg.state_dir)
            || canon_root.starts_with(&self.cfg.state_dir)
        {
            return Err(ServiceError::Invalid(format!(
                "worktrees.dir {} is inside the repository or Tradewind's state directory; choose another folder",
                root.display()
            )));
        }
        std::fs::create_dir_all(&parent)
            .map_err(|e| ServiceError::Invalid(format!("cannot make {}: {e}", parent.display())))?;
        let branch = format!("tw/{slug}");
        let job = Job {
            writable: vec![parent.clone()],
            git_admin: Some(repo.common_dir.clone()),
            ..self.git_read(&main)
        };
        let dir_s = dir.to_string_lossy().into_owned();
        self.git(
            &main,
            &job,
            &[
                "worktree", "add", "--quiet", "-b", &branch, "--", &dir_s, &commit,
            ],
        )
        .await
        .map_err(|e| ServiceError::Invalid(format!("git worktree add failed: {e}")))?;
        self.copy_into_worktree(&repo.top, &dir);
        let rel = workspace.strip_prefix(&repo.top).unwrap_or(Path::new(""));
        let inside = dir.join(rel);
        let ws = if !rel.as_os_str().is_empty() && inside.is_dir() {
            inside
        } else {
            dir.clone()
        };
        let wt = SessionWorktree {
            dir: dir_s,
            branch,
            base: base_name,
            base_commit: commit,
            repository: repo.top.to_string_lossy().into_owned(),
            git_dir: repo.common_dir.to_string_lossy().into_owned(),
        };
        Ok((ws, wt))
    }

    /// `worktrees.copy`: each listed untracked file of the main checkout (a regular file, not a
    /// link, at most 10 MiB, inside it) copied to the same place in the new worktree, unless
    /// the checkout already has one there.
    fn copy_into_worktree(&self, top: &Path, dir: &Path) {
        for rel in &self.cfg.worktrees.copy {
            let r = Path::new(rel);
            let plain = !r.is_absolute()
                && r.components()
                    .all(|c| matches!(c, std::path::Component::Normal(_)));
            if !plain {
                tracing::warn!("worktrees.copy: {rel:?} is not a plain relative path; skipped");
                continue;
            }
            let src = top.join(r);
            let dest = dir.join(r);
            let ok = std::fs::symlink_metadata(&src)
                .is_ok_and(|m| m.is_file() && m.len() <= 10 << 20)
                && std::fs::symlink_metadata(&dest).is_err()
                && !src
                    .parent()
                    .is_some_and(|p| std::fs::canonicalize(p).is_ok_and(|c| !c.starts_with(top)));
            if !ok {
                continue;
            }
            if let Some(p) = dest.parent() {
                let _ = std::fs::create_dir_all(p);
            }
            if let Err(e) = std::fs::copy(&src, &dest) {
                tracing::warn!("worktrees.copy: {rel}: {e}");
            }
        }
    }

    /// What `git status` says of a worktree: its changed and untracked files (empty: clean).
    pub(crate) async fn worktree_changes(
        &self,
        wt: &SessionWorktree,
    ) -> ServiceResult<Vec<String>> {
        let repo = self.repo_of(Path::new(&wt.dir))?;
        let job = self.git_read(&repo);
        let out = self
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
        Ok(out
            .lines()
            .filter_map(|l| l.get(3..))
            .map(str::to_string)
            .collect())
    }

    /// Remove a deleted session's worktree (its branch stays). Refused while it has uncommitted
    /// changes unless `force`.
    pub(crate) async fn remove_worktree(
        &self,
        wt: &SessionWorktree,
        force: bool,
    ) -> ServiceResult<()> {
        let dir = Path::new(&wt.dir);
        if !dir.exists() {
            return Ok(());
        }
        if !force {
            let changed = self.worktree_changes(wt).await?;
            if !changed.is_empty() {
                let shown: Vec<&str> = changed.iter().take(10).map(String::as_str).collect();
                return Err(ServiceError::Refused {
                    code: "uncommitted_changes",
                    message: format!(
                        "the session's worktree has {} uncommitted change(s) ({}{}); commit them, or delete with force to discard them (the branch {} is kept)",
                        changed.len(),
                        shown.join(", "),
                        if changed.len() > shown.len() {
                            ", …"
                        } else {
                            ""
                        },
                        wt.branch
                    ),
                });
            }
        }
        let git_dir = PathBuf::from(&wt.git_dir);
        let main = Repo {
            top: PathBuf::from(&wt.repository),
            git_dir: git_dir.clone(),
            common_dir: git_dir.clone(),
        };
        let parent = dir.parent().map(Path::to_path_buf).unwrap_or_default();
        let job = Job {
            writable: vec![parent],
            git_admin: Some(git_dir),
            ..self.git_read(&main)
        };
        self.git(
            &main,
            &job,
            &["worktree", "remove", "--force", "--", &wt.dir],
        )
        .await
        .map_err(|e| ServiceError::Invalid(format!("git worktree remove failed: {e}")))?;
        Ok(())
    }
}

impl Core {
    /// Open a terminal in session `id` for `owner` — or, with `attach`, find one they opened
    /// there — its shell in the session's jail as the agent's commands are.
    pub async fn open_terminal(
        &self,
        id: &SessionId,
        owner: &str,
        attach: Option<&str>,
        size: (u16, u16),
    ) -> ServiceResult<std::sync::Arc<crate::terminals::Terminal>> {
        if !self.cfg.terminal_enabled {
            return Err(ServiceError::Refused {
                code: "terminal_off",
                message: if self.cfg.read_only {
                    "the server was started with --read-only: no terminal".into()
                } else {
                    "terminals are off: start the server with --allow-terminal (or terminal.enabled in config.json)".into()
                },
            });
        }
        let row = self.load_session(id).await?;
        let terms = &self.env.terminals;
        if let Some(t) = attach {
            return match terms.get(t) {
                Some(t) if t.session == *id && t.owner == owner => Ok(t),
                _ => Err(ServiceError::NotFound("terminal")),
            };
        }
        let paths = crate::sandbox::session_paths(&self.env.paths, &row);
        let grants = self.grant_set(id).await?;
        let job = Job::for_session(&paths, crate::policy::jail_paths(&grants));
        let sandbox = self.env.tools.sandbox.get().await;
        terms
            .open(
                sandbox.as_deref(),
                job,
                id,
                owner,
                Path::new(&row.workspace),
                size,
            )
            .await
            .map_err(|e| ServiceError::Refused {
                code: "terminal_failed",
                message: e,
            })
    }

    /// The server's terminals.
    pub fn terminals(&self) -> &std::sync::Arc<crate::terminals::Terminals> {
        &self.env.terminals
    }
}
