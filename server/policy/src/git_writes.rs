//! The paths inside git's own files a command writes, absolute: the server makes exactly these
//! writable for the one run the user approved (`.git` stays read-only otherwise, since hooks and
//! config run commands later). The classifier records each write as the command line says it
//! ([`GitWrite`]); here they are resolved against the command's working directory, and a file of
//! "the repository's git directory" (`git config` → `config`, `pre-commit install` →
//! `hooks/pre-commit`) against the repository found at or above it — a worktree's or
//! submodule's `.git` file is followed to its git directory, and the files git shares between
//! worktrees (config, hooks) to the common one. This reads the repository's layout (a `.git`
//! file, `commondir`), nothing else.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::command::{self, CommandAnalysis, GitWrite};
use crate::paths::{PathPolicy, normalize};

/// The `.git` paths (files or directories) a shell command line writes, absolute, as far as its
/// parse tells; run from `cwd`. A path under a directory known only at run time is missing (the
/// command asks for it anyway, naming it).
pub fn git_writes(cmd: &str, cwd: &Path, paths: &PathPolicy) -> Vec<PathBuf> {
    git_writes_of(&command::analyze_shell(cmd), cwd, paths)
}

/// [`git_writes`] of a command already classified (an argv from `command::analyze_argv`).
pub fn git_writes_of(a: &CommandAnalysis, cwd: &Path, paths: &PathPolicy) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for w in &a.git_writes {
        let found = match w {
            GitWrite::Path(raw) => absolute(raw, cwd, paths).into_iter().collect(),
            // The repository's state: its git directory, and a worktree's shared one.
            GitWrite::InGitDir { repo, file } if file.is_empty() => absolute(repo, cwd, paths)
                .map(|dir| state_dirs(&dir))
                .unwrap_or_default(),
            GitWrite::InGitDir { repo, file } => absolute(repo, cwd, paths)
                .map(|dir| in_git_dir(&dir, file))
                .into_iter()
                .collect::<Vec<_>>(),
        };
        for p in found {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

fn absolute(raw: &str, cwd: &Path, paths: &PathPolicy) -> Option<PathBuf> {
    let joined = if raw.starts_with('/') || raw.starts_with('~') {
        raw.to_string()
    } else {
        cwd.join(raw).to_string_lossy().into_owned()
    };
    paths.lexical(&joined).ok()
}

/// A small file's text (a `.git` file, `commondir`): at most a few KiB, `None` if unreadable.
fn small_text(p: &Path) -> Option<String> {
    let mut text = String::new();
    std::fs::File::open(p)
        .ok()?
        .take(4096)
        .read_to_string(&mut text)
        .ok()?;
    Some(text)
}

/// `file` of the git directory of the repository that contains `dir`; `dir/.git/file` when no
/// repository is found (the command would make one there, or fail).
fn in_git_dir(dir: &Path, file: &str) -> PathBuf {
    for d in dir.ancestors() {
        let dot = d.join(".git");
        let Ok(meta) = std::fs::metadata(&dot) else {
            continue;
        };
        if meta.is_dir() {
            return dot.join(file);
        }
        // A worktree or submodule: `.git` is a file saying `gitdir: PATH`.
        let target = small_text(&dot).and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("gitdir:"))
                .map(|g| g.trim().to_string())
        });
        let Some(target) = target else {
            return dot.join(file);
        };
        let git_dir = normalize(&d.join(target));
        if file == "config.worktree" {
            return git_dir.join(file);
        }
        let common = small_text(&git_dir.join("commondir"))
            .map(|c| normalize(&git_dir.join(c.trim())))
            .unwrap_or_else(|| git_dir.clone());
        return common.join(file);
    }
    dir.join(".git").join(file)
}

/// The git directories holding the state of the repository that contains `dir`: its `.git`
/// folder, or a worktree's git directory and the common one it shares.
fn state_dirs(dir: &Path) -> Vec<PathBuf> {
    // `config.worktree` is the one file `in_git_dir` leaves in a worktree's own directory.
    let own = normalize(&in_git_dir(dir, "config.worktree"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| dir.join(".git"));
    let mut v = vec![own];
    // `in_git_dir` sends shared files to the common directory: ask it for one.
    let common = normalize(&in_git_dir(dir, "objects"))
        .parent()
        .map(Path::to_path_buf);
    if let Some(c) = common.filter(|c| !v.contains(c)) {
        v.push(c);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_into_git_are_resolved() {
        let dir = std::env::temp_dir().join(format!("tw-gitw-{}", ulid::Ulid::generate()));
        let ws = dir.join("ws");
        std::fs::create_dir_all(ws.join(".git/hooks")).ok();
        std::fs::create_dir_all(ws.join("web")).ok();
        let paths = PathPolicy::new(&ws, &[], &dir.join("state"));
        let ws = paths.workspace.clone();
        let g = |cmd: &str, cwd: &Path| git_writes(cmd, cwd, &paths);
        let git = ws.join(".git");
        assert_eq!(g("pre-commit install", &ws), [git.join("hooks/pre-commit")]);
        assert_eq!(
            g("pre-commit install -t pre-push --hook-type commit-msg", &ws),
            [git.join("hooks/pre-push"), git.join("hooks/commit-msg")]
        );
        // From a subdirectory the repository above is found.
        assert_eq!(
            g("git config core.hooksPath x", &ws.join("web")),
            [git.join("config")]
        );
        assert_eq!(
            g("git -C web config --local a.b c", &ws),
            [git.join("config")]
        );
        assert_eq!(
            g("git config --worktree a.b c", &ws),
            [git.join("config.worktree")]
        );
        assert!(g("git config --global a.b c", &ws).is_empty());
        assert!(g("git config --get user.name", &ws).is_empty());
        assert!(g("git config user.name", &ws).is_empty());
        assert_eq!(
            g("cp x .git/hooks/pre-commit", &ws),
            [git.join("hooks/pre-commit")]
        );
        assert_eq!(g("cp -t .git/hooks a b", &ws), [git.join("hooks")]);
        assert_eq!(
            g("cp --target-directory=.git/hooks a", &ws),
            [git.join("hooks")]
        );
        assert!(
            g("cp .git/config backup.txt", &ws).is_empty(),
            "a source is read, not written"
        );
        assert_eq!(
            g("mv .git/hooks/pre-commit x", &ws),
            [git.join("hooks/pre-commit")],
            "a moved source is written too"
        );
        assert_eq!(g("sort -o .git/config data", &ws), [git.join("config")]);
        assert_eq!(g("dd if=x of=.git/config", &ws), [git.join("config")]);
        assert_eq!(
            g("echo x | tee -a .git/info/attributes", &ws),
            [git.join("info/attributes")]
        );
        assert_eq!(
            g("echo x > .git/hooks/post-checkout", &ws),
            [git.join("hooks/post-checkout")]
        );
        assert_eq!(
            g("ln -s ../../x .git/hooks/pre-commit", &ws),
            [git.join("hooks/pre-commit")]
        );
        assert_eq!(
            g("install -m 755 x .git/hooks/pre-push", &ws),
            [git.join("hooks/pre-push")]
        );
        assert_eq!(g("rsync -a hooks/ .git/hooks/", &ws), [git.join("hooks")]);
        assert_eq!(
            g("cd web && cp x ../.git/hooks/pre-commit", &ws),
            [git.join("hooks/pre-commit")]
        );
        assert_eq!(g("husky install", &ws), [git.join("config")]);
        assert!(g("cargo test", &ws).is_empty());
        assert!(g("cat .git/config", &ws).is_empty());
        // A worktree: config and hooks live in the common git directory.
        let main_git = dir.join("main/.git");
        std::fs::create_dir_all(main_git.join("worktrees/wt")).ok();
        std::fs::write(main_git.join("worktrees/wt/commondir"), "../..\n").ok();
        let wt = dir.join("wt");
        std::fs::create_dir_all(&wt).ok();
        std::fs::write(
            wt.join(".git"),
            format!("gitdir: {}\n", main_git.join("worktrees/wt").display()),
        )
        .ok();
        assert_eq!(g("git config a.b c", &wt), [main_git.join("config")]);
        assert_eq!(
            g("pre-commit install", &wt),
            [main_git.join("hooks/pre-commit")]
        );
        assert_eq!(
            g("git config --worktree a.b c", &wt),
            [main_git.join("worktrees/wt/config.worktree")]
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Commands that write the repository's state name its git directory; reads name nothing.
    #[test]
    fn state_writes_name_the_git_directory() {
        let dir = std::env::temp_dir().join(format!("tw-gitst-{}", ulid::Ulid::generate()));
        let ws = dir.join("ws");
        std::fs::create_dir_all(ws.join(".git")).ok();
        std::fs::create_dir_all(ws.join("web")).ok();
        let paths = PathPolicy::new(&ws, &[], &dir.join("state"));
        let ws = paths.workspace.clone();
        let g = |cmd: &str, cwd: &Path| git_writes(cmd, cwd, &paths);
        let git = ws.join(".git");
        for cmd in [
            "git commit -m x",
            "git add .",
            "git checkout -b topic",
            "git branch topic",
            "git branch -d old",
            "git stash",
            "git stash pop",
            "git fetch origin",
            "git worktree add ../wt",
            "git tag v1",
            "git restore --staged a.txt",
            "git -C web commit -m x",
        ] {
            assert_eq!(g(cmd, &ws), std::slice::from_ref(&git), "{cmd}");
        }
        for cmd in [
            "git status",
            "git log --oneline",
            "git diff",
            "git branch",
            "git branch -a",
            "git tag -l",
            "git stash list",
            "git worktree list",
            "git restore a.txt",
            "git show HEAD",
        ] {
            assert!(g(cmd, &ws).is_empty(), "{cmd}");
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
