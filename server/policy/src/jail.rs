//! What the jail keeps read-only inside every root, and what it binds into a jailed `HOME`: one
//! list each, read by the process jail (which mounts them) and by the tests (a corpus entry
//! each). Paths are relative to a root or to `HOME`; `*` matches one path component.

/// Files and folders inside a root that run code later, outside the jail — git's hooks and the
/// config that names commands, direnv's `.envrc`. They are mounted read-only into every jailed
/// process; only a command whose approval names them gets them writable. The folder
/// `core.hooksPath` names, when it lies in a root, is added to these per repository.
pub const READ_ONLY_IN_ROOTS: &[&str] = &[
    ".git/hooks",
    ".git/config",
    ".git/info",
    ".git/modules/*/hooks",
    ".git/modules/*/config",
    ".git/worktrees/*/config.worktree",
    ".envrc",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".vscode/tasks.json",
];

/// Files other local programs run without asking — relative to a folder, and what runs them:
/// read-only in the jail, held when a jailed command creates one, and a write to one through
/// the file tools asks in every mode but `--yolo`.
pub const PROGRAM_FILES: &[(&str, &str)] = &[
    (".envrc", "direnv runs it when you enter the folder"),
    (
        ".claude/settings.json",
        "Claude Code runs the hooks it names",
    ),
    (
        ".claude/settings.local.json",
        "Claude Code runs the hooks it names",
    ),
    (
        ".vscode/tasks.json",
        "VS Code runs its tasks when the folder opens",
    ),
];

/// What runs `path` when it is one of [`PROGRAM_FILES`] (matched on its last components,
/// case-insensitively).
pub fn program_file(path: &std::path::Path) -> Option<&'static str> {
    let comps: Vec<String> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_ascii_lowercase())
        .collect();
    PROGRAM_FILES.iter().find_map(|(rel, what)| {
        let want: Vec<&str> = rel.split('/').collect();
        (comps.len() >= want.len()
            && comps[comps.len() - want.len()..]
                .iter()
                .zip(&want)
                .all(|(a, b)| a == b))
        .then_some(*what)
    })
}

/// Entries of [`READ_ONLY_IN_ROOTS`] that are folders: where one is missing beside an existing
/// `.git`, the jail mounts an empty read-only folder there, so a command cannot create it and
/// leave a hook behind.
pub const READ_ONLY_FOLDERS: &[&str] = &[".git/hooks", ".git/info", ".git/modules/*/hooks"];

/// Toolchains under `HOME` bound read-only into the jail's otherwise empty `HOME` (where they
/// exist): enough for `cargo`, `node`, `python` and their version managers to run.
pub const HOME_TOOLCHAINS: &[&str] = &[
    ".rustup",
    ".cargo/bin",
    ".nvm",
    ".pyenv",
    ".local/bin",
    ".local/share/mise",
    ".asdf",
];

/// Build caches under `HOME`, bound read-only: tools are pointed at a writable cache of the
/// workspace's own instead (see [`CACHE_ENV`]), so nothing a command writes is read by the
/// user's own builds.
pub const HOME_CACHES: &[&str] = &[
    ".cargo/registry",
    ".cargo/git",
    ".npm",
    ".cache/pip",
    ".cache/uv",
    ".cache/go-build",
    "go/pkg/mod",
    // Maven's downloaded artifacts only: `~/.m2/settings.xml` holds repository passwords.
    ".m2/repository",
    ".cache/ms-playwright",
    ".cache/node/corepack",
];

/// Variables that point each tool at the workspace's writable cache: the variable and the
/// folder under that cache. `CARGO_HOME` moves only what cargo writes (registry and git
/// checkouts; the jail's `HOME` has no cargo config or credentials to lose).
pub const CACHE_ENV: &[(&str, &str)] = &[
    ("CARGO_HOME", "cargo"),
    ("npm_config_cache", "npm"),
    ("PIP_CACHE_DIR", "pip"),
    ("UV_CACHE_DIR", "uv"),
    ("GOMODCACHE", "go/mod"),
    ("GOCACHE", "go/build"),
    ("COREPACK_HOME", "corepack"),
    ("PLAYWRIGHT_BROWSERS_PATH", "ms-playwright"),
];

/// Maven has no variable for its local repository: `MAVEN_OPTS` carries the option, with this
/// folder under the workspace's cache.
pub const MAVEN_REPO: &str = "m2";

/// Does `rel` (a path relative to a root, `/`-separated) match `pattern` of
/// [`READ_ONLY_IN_ROOTS`]?
pub fn matches(pattern: &str, rel: &str) -> bool {
    let p: Vec<&str> = pattern.split('/').collect();
    let r: Vec<&str> = rel.split('/').filter(|c| !c.is_empty()).collect();
    p.len() == r.len() && p.iter().zip(&r).all(|(a, b)| *a == "*" || a == b)
}

/// Is `rel` (relative to a root) at or below an entry of [`READ_ONLY_IN_ROOTS`]?
pub fn read_only_in_root(rel: &str) -> bool {
    let comps: Vec<&str> = rel.split('/').filter(|c| !c.is_empty()).collect();
    READ_ONLY_IN_ROOTS.iter().any(|pat| {
        let n = pat.split('/').count();
        comps.len() >= n && matches(pat, &comps[..n].join("/"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_one_component_per_star() {
        assert!(matches(".git/modules/*/hooks", ".git/modules/sub/hooks"));
        assert!(!matches(".git/modules/*/hooks", ".git/modules/a/b/hooks"));
        assert!(read_only_in_root(".git/hooks/pre-commit"));
        assert!(read_only_in_root(".git/worktrees/x/config.worktree"));
        assert!(read_only_in_root(".envrc"));
        assert!(!read_only_in_root(".git/objects/ab/cd"));
        assert!(!read_only_in_root("src/.envrc.example"));
        for f in READ_ONLY_FOLDERS {
            assert!(READ_ONLY_IN_ROOTS.contains(f), "{f}");
        }
    }

    /// Every program file is read-only in roots, and found by its last components.
    #[test]
    fn program_files_are_read_only_and_recognised() {
        for (rel, _) in PROGRAM_FILES {
            assert!(READ_ONLY_IN_ROOTS.contains(rel), "{rel}");
            let p = std::path::Path::new("/w/sub").join(rel);
            assert!(program_file(&p).is_some());
            // A write to one through the file tools always asks, naming the program.
            assert_eq!(crate::always_ask_path(&p), program_file(&p));
        }
        assert!(program_file(std::path::Path::new("/w/.ENVRC")).is_some());
        assert!(program_file(std::path::Path::new("/w/settings.json")).is_none());
        assert!(program_file(std::path::Path::new("/w/.envrc.example")).is_none());
    }

    /// No cache bound into the jail holds a credential file: Maven's is bound as its
    /// `repository`, never `~/.m2` (whose `settings.xml` holds passwords).
    #[test]
    fn caches_hold_no_credentials() {
        assert!(HOME_CACHES.contains(&".m2/repository"));
        for c in HOME_CACHES.iter().chain(HOME_TOOLCHAINS) {
            assert_ne!(*c, ".m2", "{c}");
            assert!(
                !crate::lists::names_hard_denied_path(&format!("/h/{c}")),
                "{c}"
            );
        }
    }
}
