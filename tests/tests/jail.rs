//! The jail (the jail issue): real bubblewrap, real child processes, a planted HOME outside the
//! system temp folder. Each test reproduces a finding of the outside review and checks it holds:
//! planted credentials unreadable, the server's process and Unix sockets out of reach, files that
//! run code later read-only, the state directory masked, git's config unable to run a command,
//! and a small cargo and npm project still building with the default allow-list.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use serde_json::json;
use tradewind::config::Config;
use tradewind::sandbox::{JailChoice, Job, Sandbox};
use tradewind_tests::*;

/// A folder outside the system temp folder (the planted HOME must not be hidden by the jail's
/// private `/tmp` by accident), removed on drop.
fn outside_tmp(prefix: &str) -> TempDir {
    // `TW_TEST_TMP`: where the same tests run again as an ordinary user (see
    // `the_attacks_fail_with_the_server_as_an_ordinary_user`).
    let base = std::env::var_os("TW_TEST_TMP")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")));
    TempDir::adopt(base.join(format!("{prefix}-{}", ulid::Ulid::generate())))
}

/// The credential files of the reviews, each holding its own marker (Maven's `settings.xml`
/// beside its downloaded repository: the jail binds the cache, never the passwords).
const PLANTED: &[&str] = &[
    ".ssh/id_rsa",
    ".aws/credentials",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials.toml",
    ".vault-token",
    ".terraform.d/credentials.tfrc.json",
    ".config/gh/hosts.yml",
    ".git-credentials",
    ".netrc",
    ".pgpass",
    ".docker/config.json",
    ".kube/config",
    ".codex/auth.json",
    ".claude/.credentials.json",
    ".local/share/opencode/auth.json",
    ".config/chromium/Default/Cookies",
    ".mozilla/firefox/x.default/cookies.sqlite",
    ".bash_history",
    ".zsh_history",
    ".python_history",
    ".local/share/keyrings/login.keyring",
    "other-project/.env",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
];

fn marker(i: usize) -> String {
    format!("PLANTED-SECRET-{i:02}-7f3a")
}

struct Planted {
    home: TempDir,
    ws: PathBuf,
    state: PathBuf,
}

/// A HOME with every credential planted, toolchains linked in as a real HOME has them, a
/// workspace under it and a state directory beside it.
fn plant() -> Planted {
    let home = outside_tmp("jail-home");
    for (i, rel) in PLANTED.iter().enumerate() {
        let p = home.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, marker(i)).unwrap();
    }
    let real_home = PathBuf::from(std::env::var_os("HOME").unwrap());
    std::fs::create_dir_all(home.path().join(".m2/repository/org")).unwrap();
    for rel in [".rustup", ".cargo/bin"] {
        let src = real_home.join(rel);
        if src.exists() {
            let at = home.path().join(rel);
            std::fs::create_dir_all(at.parent().unwrap()).unwrap();
            std::os::unix::fs::symlink(&src, &at).unwrap();
        }
    }
    let ws = home.path().join("src/project");
    std::fs::create_dir_all(&ws).unwrap();
    let state = home.path().join(".tradewind");
    std::fs::create_dir_all(&state).unwrap();
    Planted { home, ws, state }
}

/// A server on the planted HOME and workspace, every flag on (sessions may run in `full`), the
/// model a replay `script`.
async fn full_server(p: &Planted, script: serde_json::Value) -> TestServer {
    TestServer::start_in(
        Opts {
            replay: Some(script),
            ceiling: tradewind::config::Ceiling {
                write: true,
                process: true,
                external: true,
            },
            home: Some(p.home.path().to_path_buf()),
            ..Opts::default()
        },
        TempDir::adopt(p.ws.clone()),
        TempDir::adopt(p.state.clone()),
    )
    .await
}

fn sandbox_for(home: &Path, ws: &Path, state: &Path, jail: JailChoice) -> (Sandbox, String) {
    let mut cfg = Config::for_paths(ws.to_path_buf(), state.to_path_buf());
    cfg.sandbox_helper = Some(binary());
    cfg.home = Some(home.to_path_buf());
    cfg.sandbox.jail = jail;
    let (sb, info) = tradewind::sandbox::for_config(&cfg);
    let sb = sb.unwrap_or_else(|| panic!("no sandbox: {:?}", info.notes));
    (sb, info.jail)
}

/// Run `program args` confined as `job`, in `cwd`, with the environment a tool gives it.
async fn run_in(
    sb: &Sandbox,
    job: &Job,
    cwd: &Path,
    program: &str,
    args: &[&str],
) -> std::process::Output {
    let argv: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
    let mut cmd = sb.command(job, Path::new(program), &argv).unwrap();
    cmd.current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap())
        .env("HOME", "/nonexistent")
        .stdin(std::process::Stdio::null());
    sb.env(job, &mut cmd);
    cmd.output().await.unwrap()
}

fn text(o: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn job(roots: &[&Path]) -> Job {
    Job {
        roots: roots.iter().map(|r| r.to_path_buf()).collect(),
        ..Job::default()
    }
}

/// The review's headline: 22 of 35 planted secrets were readable with plain `cat`. In the jail,
/// `cat`, `/usr/bin/python3` and `node` read none of them.
#[tokio::test]
async fn planted_credentials_are_unreadable_by_cat_python_and_node() {
    let p = plant();
    let (sb, kind) = sandbox_for(p.home.path(), &p.ws, &p.state, JailChoice::Bwrap);
    assert_eq!(kind, "bwrap");
    let files: Vec<String> = PLANTED
        .iter()
        .map(|r| p.home.path().join(r).display().to_string())
        .collect();
    let j = job(&[&p.ws]);
    let mut outputs = Vec::new();
    let mut cat_args = vec!["-c", "for f in \"$@\"; do cat \"$f\"; done; true", "sh"];
    cat_args.extend(files.iter().map(String::as_str));
    outputs.push(("cat", run_in(&sb, &j, &p.ws, "/bin/sh", &cat_args).await));
    let mut py = vec![
        "-c",
        "import sys\nfor f in sys.argv[1:]:\n  try: print(open(f).read())\n  except Exception as e: print('no', f, type(e).__name__)",
    ];
    py.extend(files.iter().map(String::as_str));
    outputs.push((
        "python3",
        run_in(&sb, &j, &p.ws, "/usr/bin/python3", &py).await,
    ));
    let mut node = vec![
        "-e",
        "for (const f of process.argv.slice(1)) { try { console.log(require('fs').readFileSync(f, 'utf8')) } catch (e) { console.log('no', f, e.code) } }",
    ];
    node.extend(files.iter().map(String::as_str));
    outputs.push(("node", run_in(&sb, &j, &p.ws, "node", &node).await));
    for (who, o) in &outputs {
        let t = text(o);
        // Each program ran and tried every file (one "no" line or error per file).
        assert!(o.status.success(), "{who} failed: {t}");
        for (i, path) in PLANTED.iter().enumerate() {
            assert!(!t.contains(&marker(i)), "{who} read {path}: {t}");
        }
    }
    // The same files are readable unconfined: the test would see a leak.
    let o = std::process::Command::new("cat")
        .args(&files)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).contains(&marker(0)));
}

/// The server's process is invisible (its own PID namespace and procfs): no `environ` to read,
/// no process to stop. A Unix socket in the host's `/tmp` (a tmux server's) and an abstract
/// socket are out of reach.
#[tokio::test]
async fn the_server_and_its_sockets_are_out_of_reach() {
    let p = plant();
    let (sb, _) = sandbox_for(p.home.path(), &p.ws, &p.state, JailChoice::Bwrap);
    let me = std::process::id().to_string();
    let sock_dir = TempDir::new("tmux-sock");
    let sock = sock_dir.path().join("default");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let abstract_name = format!("tw-jail-test-{}", ulid::Ulid::generate());
    let _abstract = {
        use std::os::linux::net::SocketAddrExt;
        let a =
            std::os::unix::net::SocketAddr::from_abstract_name(abstract_name.as_bytes()).unwrap();
        std::os::unix::net::UnixListener::bind_addr(&a).unwrap()
    };
    let script = format!(
        "import os, socket, signal, sys\n\
         pid = {me}\n\
         try: open(f'/proc/{{pid}}/environ').read(); print('ENVIRON-READ')\n\
         except Exception as e: print('environ', type(e).__name__)\n\
         try: os.kill(pid, signal.SIGSTOP); print('SIGNALLED')\n\
         except Exception as e: print('kill', type(e).__name__)\n\
         s = socket.socket(socket.AF_UNIX)\n\
         try: s.connect({sock:?}); print('SOCKET-REACHED')\n\
         except Exception as e: print('socket', type(e).__name__)\n\
         s = socket.socket(socket.AF_UNIX)\n\
         try: s.connect('\\0{abstract_name}'); print('ABSTRACT-REACHED')\n\
         except Exception as e: print('abstract', type(e).__name__)\n\
         print('pids', sorted(int(d) for d in os.listdir('/proc') if d.isdigit()))\n",
        sock = sock.display().to_string(),
    );
    let o = run_in(
        &sb,
        &job(&[&p.ws]),
        &p.ws,
        "/usr/bin/python3",
        &["-c", &script],
    )
    .await;
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    for bad in [
        "ENVIRON-READ",
        "SIGNALLED",
        "SOCKET-REACHED",
        "ABSTRACT-REACHED",
    ] {
        assert!(!t.contains(bad), "{bad}: {t}");
    }
    // Only the jail's own few processes are there.
    let pids = t.lines().find(|l| l.starts_with("pids")).unwrap();
    assert!(pids.split(',').count() <= 4, "{pids}");
    // The test process is still running (it was not stopped).
    assert!(
        !std::fs::read_to_string(format!("/proc/{me}/stat"))
            .unwrap()
            .contains(") T ")
    );
}

/// One entry of the policy's read-only list each: a jailed command cannot change it, create it
/// where it is missing beside `.git`, or plant a hook in `core.hooksPath`; an approval naming a
/// path makes that one path writable for that one command.
#[tokio::test]
async fn files_that_run_code_later_are_read_only_in_roots() {
    let p = plant();
    let (sb, _) = sandbox_for(p.home.path(), &p.ws, &p.state, JailChoice::Bwrap);
    let ws = &p.ws;
    for d in [
        ".git/hooks",
        ".git/info",
        ".git/modules/sub/hooks",
        ".git/worktrees/wt",
        "githooks",
    ] {
        std::fs::create_dir_all(ws.join(d)).unwrap();
    }
    std::fs::write(ws.join(".git/config"), "[core]\n\thooksPath = githooks\n").unwrap();
    std::fs::create_dir_all(ws.join(".claude")).unwrap();
    std::fs::create_dir_all(ws.join(".vscode")).unwrap();
    for f in [
        ".git/modules/sub/config",
        ".git/worktrees/wt/config.worktree",
        ".envrc",
        ".claude/settings.json",
        ".claude/settings.local.json",
        ".vscode/tasks.json",
    ] {
        std::fs::write(ws.join(f), "original\n").unwrap();
    }
    let j = job(&[ws]);
    for entry in tradewind::policy::jail::READ_ONLY_IN_ROOTS {
        let path = entry
            .replace("modules/*", "modules/sub")
            .replace("worktrees/*", "worktrees/wt");
        let full = ws.join(&path);
        let attempt = if full.is_dir() {
            format!("touch '{}/pre-commit'", full.display())
        } else {
            format!("echo 'touch /tmp/pwned' >> '{}'", full.display())
        };
        let o = run_in(&sb, &j, ws, "/bin/sh", &["-c", &attempt]).await;
        assert!(!o.status.success(), "{entry} was writable: {}", text(&o));
        assert!(!full.join("pre-commit").exists(), "{entry}");
        if full.is_file() {
            let now = std::fs::read_to_string(&full).unwrap();
            assert!(!now.contains("pwned"), "{entry}: {now}");
        }
    }
    // core.hooksPath's folder in the root.
    let o = run_in(
        &sb,
        &j,
        ws,
        "/bin/sh",
        &["-c", "echo 'touch /tmp/x' > githooks/pre-commit"],
    )
    .await;
    assert!(!o.status.success());
    assert!(!ws.join("githooks/pre-commit").exists());
    // A missing hooks folder beside an existing .git cannot be created.
    std::fs::remove_dir_all(ws.join(".git/hooks")).unwrap();
    let o = run_in(
        &sb,
        &j,
        ws,
        "/bin/sh",
        &[
            "-c",
            "mkdir -p .git/hooks && echo x > .git/hooks/post-checkout",
        ],
    )
    .await;
    assert!(!o.status.success(), "{}", text(&o));
    assert!(!ws.join(".git/hooks/post-checkout").exists());
    // The rest of the root is writable; the repository's git directory is read-only as a
    // whole (objects, refs, a new `commondir`), and a `.git` cannot be swapped for another.
    let o = run_in(&sb, &j, ws, "/bin/sh", &["-c", "echo ok > a.txt"]).await;
    assert!(o.status.success(), "{}", text(&o));
    for attempt in [
        "mkdir -p .git/objects/ab && echo x > .git/objects/ab/cd",
        "echo ../elsewhere > .git/commondir",
        "mv .git .git-old",
        "rm -rf .git",
    ] {
        let o = run_in(&sb, &j, ws, "/bin/sh", &["-c", attempt]).await;
        assert!(!o.status.success(), "{attempt}: {}", text(&o));
    }
    assert!(!ws.join(".git/commondir").exists() && ws.join(".git/config").is_file());
    // An approved git command (its approval names the git directory) writes objects and refs;
    // hooks and config stay read-only even then.
    let git_job = Job {
        writable: vec![ws.join(".git")],
        ..j.clone()
    };
    let o = run_in(
        &sb,
        &git_job,
        ws,
        "/bin/sh",
        &[
            "-c",
            "mkdir -p .git/objects/ab && echo x > .git/objects/ab/cd",
        ],
    )
    .await;
    assert!(o.status.success(), "{}", text(&o));
    for attempt in ["touch .git/hooks/pre-commit", "echo x >> .git/config"] {
        let o = run_in(&sb, &git_job, ws, "/bin/sh", &["-c", attempt]).await;
        assert!(!o.status.success(), "{attempt}: {}", text(&o));
    }
    // An approval naming .envrc makes it writable for this one command only.
    let approved = Job {
        writable: vec![ws.join(".envrc")],
        ..j.clone()
    };
    let o = run_in(
        &sb,
        &approved,
        ws,
        "/bin/sh",
        &["-c", "echo approved >> .envrc"],
    )
    .await;
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        std::fs::read_to_string(ws.join(".envrc"))
            .unwrap()
            .contains("approved")
    );
    let o = run_in(&sb, &j, ws, "/bin/sh", &["-c", "echo again >> .envrc"]).await;
    assert!(!o.status.success());
}

/// A root that holds the state directory gets it masked (empty, read-only); the jail's `/tmp`
/// is its own, so a state directory there is out of reach too.
#[tokio::test]
async fn the_state_directory_is_never_reachable() {
    let p = plant();
    std::fs::write(p.state.join("tradewind.db"), "DB-MARKER").unwrap();
    // The workspace is HOME's parent-free project; here a root holds the state dir.
    let root = p.home.path().to_path_buf();
    let (sb, _) = sandbox_for(p.home.path(), &root, &p.state, JailChoice::Bwrap);
    let o = run_in(
        &sb,
        &job(&[&root]),
        &root,
        "/bin/sh",
        &[
            "-c",
            &format!(
                "ls -A '{0}'; cat '{0}/tradewind.db'; echo forged > '{0}/link'",
                p.state.display()
            ),
        ],
    )
    .await;
    // Errors name the path; what the folder lists and holds never shows.
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        !out.contains("tradewind.db") && !out.contains("DB-MARKER"),
        "{}",
        text(&o)
    );
    assert!(!p.state.join("link").exists());

    let tmp_state = TempDir::new("state-in-tmp");
    std::fs::write(tmp_state.path().join("tradewind.db"), "DB-MARKER").unwrap();
    let (sb, _) = sandbox_for(p.home.path(), &p.ws, tmp_state.path(), JailChoice::Bwrap);
    let o = run_in(
        &sb,
        &job(&[&p.ws]),
        &p.ws,
        "/bin/sh",
        &[
            "-c",
            &format!("cat '{}/tradewind.db'", tmp_state.path().display()),
        ],
    )
    .await;
    assert!(!text(&o).contains("DB-MARKER"));
}

/// The Landlock fallback, forced: it refuses to start with a state directory under a temp
/// folder and refuses commands in a root that holds the state directory, each naming
/// `--state-dir`; with neither, commands run confined.
#[tokio::test]
async fn the_landlock_fallback_refuses_what_it_cannot_hide() {
    let tmp_state = TempDir::new("fallback-state");
    let ws = TempDir::new("fallback-ws");
    let mut cfg = Config::for_paths(ws.path().to_path_buf(), tmp_state.path().to_path_buf());
    cfg.sandbox_helper = Some(binary());
    cfg.sandbox.jail = JailChoice::Landlock;
    let err = match tradewind::server::launch(cfg).await {
        Ok(_) => panic!("started with a state directory under /tmp"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("--state-dir"), "{err}");

    let p = plant();
    let (sb, kind) = sandbox_for(p.home.path(), &p.ws, &p.state, JailChoice::Landlock);
    assert_eq!(kind, "landlock");
    if tradewind::sandbox::under_temp(&p.state) {
        // A checkout under the system temp dir (a clone in /tmp): the planted state dir is
        // there too, so the fallback refuses every command, naming --state-dir.
        let err = sb
            .command(&job(&[&p.ws]), Path::new("/bin/true"), &[])
            .unwrap_err();
        assert!(err.contains("--state-dir"), "{err}");
        return;
    }
    // A root that holds the state directory.
    let err = sb
        .command(&job(&[p.home.path()]), Path::new("/bin/true"), &[])
        .unwrap_err();
    assert!(err.contains("--state-dir"), "{err}");
    // Otherwise confined: the planted key is unreadable, the workspace writable.
    let key = p.home.path().join(".ssh/id_rsa");
    let o = run_in(
        &sb,
        &job(&[&p.ws]),
        &p.ws,
        "/bin/sh",
        &["-c", &format!("cat '{}'; echo ok > out.txt", key.display())],
    )
    .await;
    assert!(!text(&o).contains(&marker(0)), "{}", text(&o));
    assert!(p.ws.join("out.txt").exists());
}

/// `cargo test` and `npm test` of small projects work in the jail with the default allow-list
/// (toolchains read-only, caches pointed at the workspace's own).
#[tokio::test]
async fn cargo_and_npm_projects_build_in_the_jail() {
    let p = plant();
    let (sb, _) = sandbox_for(p.home.path(), &p.ws, &p.state, JailChoice::Bwrap);
    let ws = &p.ws;
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(
        ws.join("Cargo.toml"),
        "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    std::fs::write(
        ws.join("src/lib.rs"),
        "pub fn two() -> u8 { 2 }\n#[test]\nfn it_adds() { assert_eq!(two(), 2); }\n",
    )
    .unwrap();
    let j = job(&[ws]);
    let cargo = p.home.path().join(".cargo/bin/cargo");
    let cargo = if cargo.exists() {
        cargo.display().to_string()
    } else {
        "cargo".into()
    };
    let o = run_in(&sb, &j, ws, &cargo, &["test", "--offline", "-q"]).await;
    assert!(o.status.success(), "cargo test: {}", text(&o));
    assert!(text(&o).contains("1 passed"), "{}", text(&o));

    std::fs::write(
        ws.join("package.json"),
        r#"{"name":"tiny","version":"1.0.0","scripts":{"test":"node test.js"}}"#,
    )
    .unwrap();
    std::fs::write(
        ws.join("test.js"),
        "require('assert').strictEqual(1 + 1, 2); console.log('npm-test-ok');\n",
    )
    .unwrap();
    let o = run_in(&sb, &j, ws, "npm", &["test", "--offline"]).await;
    assert!(o.status.success(), "npm test: {}", text(&o));
    assert!(text(&o).contains("npm-test-ok"));
    // The caches written were the workspace's own, not the user's.
    assert!(!p.home.path().join(".npm").exists());
}

fn git_in(dir: &Path, args: &[&str]) {
    let o = std::process::Command::new("git")
        .args(["-c", "user.email=a@b", "-c", "user.name=a"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A server whose model calls `git_diff` once, and a marker path beside its workspace (outside
/// every root) that a command the repository names would create.
async fn git_diff_server() -> (TestServer, PathBuf) {
    let script = json!({"scripts": [{"turns": [
        {"tool_calls": [{"name": "git_diff", "arguments": {}}]},
        {"text": "ok"}]}]});
    let s = TestServer::start(Opts {
        replay: Some(script),
        ..Opts::default()
    })
    .await;
    let marker = s
        .workspace
        .path()
        .parent()
        .unwrap()
        .join(format!("pwned-{}", ulid::Ulid::generate()));
    (s, marker)
}

/// The critical finding: `git_diff` (read effect, plan agent, no approval) ran git unconfined,
/// and a repository config made it run a command — `core.sshCommand` through a partial clone's
/// lazy fetch of a missing object. Reproduced with real git first, then through the tool.
#[tokio::test]
async fn git_diff_cannot_be_made_to_run_a_command() {
    let (s, marker) = git_diff_server().await;
    let ws = s.workspace.path();
    git_in(ws, &["init", "-q"]);
    std::fs::write(ws.join("f.txt"), "one\n").unwrap();
    git_in(ws, &["add", "f.txt"]);
    git_in(ws, &["commit", "-q", "-m", "f"]);
    // The blob of f.txt goes missing; the repository is a partial clone whose promisor remote
    // is reached over "ssh" — the command of the config's choosing.
    let blob = String::from_utf8(
        std::process::Command::new("git")
            .args(["rev-parse", "HEAD:f.txt"])
            .current_dir(ws)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let blob = blob.trim();
    std::fs::remove_file(ws.join(".git/objects").join(&blob[..2]).join(&blob[2..])).unwrap();
    git_in(ws, &["config", "extensions.partialClone", "origin"]);
    git_in(
        ws,
        &["config", "remote.origin.url", "ssh://example.invalid/x.git"],
    );
    git_in(ws, &["config", "remote.origin.promisor", "true"]);
    git_in(
        ws,
        &[
            "config",
            "core.sshCommand",
            &format!("sh -c 'touch {}; exit 1' --", marker.display()),
        ],
    );
    std::fs::write(ws.join("f.txt"), "two\n").unwrap();
    // Unconfined, plain git runs the command (the finding is real on this machine).
    let _ = std::process::Command::new("git")
        .args(["diff"])
        .current_dir(ws)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(
        marker.exists(),
        "the lazy fetch did not run: the test proves nothing"
    );
    std::fs::remove_file(&marker).unwrap();

    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "diff").await;
    s.wait_run_finished(&sid, &run).await;
    let events = s.events(&sid).await;
    let r = events.iter().find(|e| e["type"] == "tool_result").unwrap();
    assert!(
        !marker.exists(),
        "git_diff ran the repository's command: {r}"
    );
    s.stop().await;
}

/// A command that fails on a path the jail hid names it on its card; "allow for this session"
/// lets that path in, read-only, for the session's later commands — and nothing else: `/`, HOME,
/// the state directory, a relative path and a path the jail shows anyway are refused with the
/// reason, and another hidden file the same command names stays out of reach.
#[tokio::test]
async fn a_path_the_jail_hid_is_named_and_can_be_allowed_for_the_session() {
    let p = plant();
    let conf = p.home.path().join(".config/tool/settings.toml");
    std::fs::create_dir_all(conf.parent().unwrap()).unwrap();
    std::fs::write(&conf, "SETTING-9c1e").unwrap();
    let other = p.home.path().join("notes/other.txt");
    std::fs::create_dir_all(other.parent().unwrap()).unwrap();
    std::fs::write(&other, "OTHER-5b2d").unwrap();
    // A path that does not exist is named exactly like a hidden one: the model learns nothing
    // of what exists out of its sight.
    let missing = p.home.path().join("nowhere/missing.txt");
    let cmd = format!(
        "cat {} {} {}",
        conf.display(),
        other.display(),
        missing.display()
    );
    let script = |tag: &str| {
        json!({"match": tag, "turns": [
            {"tool_calls": [{"name": "shell", "arguments": {"command": cmd}}]},
            {"text": "done"}]})
    };
    let s = full_server(&p, json!({"scripts": [script("first"), script("second")]})).await;
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "first").await;
    s.wait_run_finished(&sid, &run).await;
    let events = s.events(&sid).await;
    let r = of_type(&events, "tool_result")[0];
    assert_eq!(r["ok"], false, "{r}");
    let conf_s = conf.to_string_lossy().to_string();
    let other_s = other.to_string_lossy().to_string();
    let hidden = r["parts"][0]["hidden"]
        .as_array()
        .unwrap_or_else(|| panic!("{r}"));
    assert!(hidden.iter().any(|h| h == &json!(conf_s)), "{r}");
    let missing_s = missing.to_string_lossy().to_string();
    assert!(hidden.iter().any(|h| h == &json!(missing_s)), "{r}");
    assert!(
        r["text"]
            .as_str()
            .unwrap()
            .contains("may be hidden from this command by the sandbox, or missing"),
        "{r}"
    );

    let allow = |path: String| {
        let s = &s;
        let sid = &sid;
        async move {
            s.post(
                &format!("/api/sessions/{sid}/jail-allows"),
                json!({ "path": path }),
            )
            .await
        }
    };
    let home = p.home.path().to_string_lossy().to_string();
    let state = p.state.to_string_lossy().to_string();
    let ws_file = p.ws.join("f.txt");
    std::fs::write(&ws_file, "x").unwrap();
    // A socket (a tmux server's), the folder holding it, and a link to the hard-denied `.ssh`.
    let sock_dir = p.home.path().join(".tmux-tw");
    std::fs::create_dir_all(&sock_dir).unwrap();
    let _listener = std::os::unix::net::UnixListener::bind(sock_dir.join("default")).unwrap();
    std::os::unix::fs::symlink(p.home.path().join(".ssh"), p.home.path().join("notes/keys"))
        .unwrap();
    for refused in [
        "/".to_string(),
        home.clone(),
        state.clone(),
        format!("{state}/tradewind.db"),
        "relative/path".to_string(),
        ws_file.to_string_lossy().to_string(),
        format!("{home}/.ssh"),
        format!("{home}/.ssh/id_rsa"),
        format!("{home}/.config/gh"),
        format!("{home}/.config"),
        format!("{home}/.m2/settings.xml"),
        format!("{home}/notes/keys"),
        format!("{home}/.tmux-tw"),
        format!("{home}/.tmux-tw/default"),
        "/etc/shadow".to_string(),
        "/root".to_string(),
        missing_s.clone(),
    ] {
        let (st, body) = allow(refused.clone()).await;
        assert_eq!(st, 422, "{refused}: {body}");
        assert!(!body["error"]["message"].as_str().unwrap().is_empty());
    }
    // The link is refused for what it leads to, and says so.
    let (_, body) = allow(format!("{home}/notes/keys")).await;
    let why = body["error"]["message"].as_str().unwrap();
    assert!(why.contains(&format!("{home}/.ssh")), "{why}");
    let (st, g) = allow(conf_s.clone()).await;
    assert_eq!(st, 201, "{g}");
    assert_eq!(g["kind"], "jail");
    let (_, perms) = s.get(&format!("/api/sessions/{sid}/permissions")).await;
    assert!(
        perms["grants"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["key"] == json!(format!("jail:{conf_s}"))),
        "{perms}"
    );

    let run = s.prompt(&sid, "second").await;
    s.wait_run_finished(&sid, &run).await;
    let events = s.events(&sid).await;
    let t = &of_type(&events, "tool_result")[1]["parts"][0];
    let stdout = t["stdout"].as_str().unwrap();
    assert!(stdout.contains("SETTING-9c1e"), "{t}");
    // Only that file came in: the other one the same command names stays hidden.
    assert!(!stdout.contains("OTHER-5b2d"), "{t}");
    assert_eq!(t["hidden"], json!([other_s, missing_s]), "{t}");
    s.stop().await;
}

/// A program reached through a link the jail hides (`~/tools/tool` → `~/opt/tool.sh`):
/// allowing the path the command named lets in what it leads to and the link's own path, so the
/// same command works the next time (the target alone left it failing, offering the same
/// button again).
#[tokio::test]
async fn a_link_the_jail_hid_is_let_in_where_the_command_named_it() {
    let p = plant();
    let target = p.home.path().join("opt/tool.sh");
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    std::fs::write(&target, "#!/bin/sh\necho TOOL-OK-4e1a\n").unwrap();
    std::fs::set_permissions(&target, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let link = p.home.path().join("tools/tool");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let cmd = link.to_string_lossy().to_string();
    let script = |tag: &str| {
        json!({"match": tag, "turns": [
            {"tool_calls": [{"name": "shell", "arguments": {"command": cmd}}]},
            {"text": "done"}]})
    };
    let s = full_server(&p, json!({"scripts": [script("first"), script("second")]})).await;
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "first").await;
    s.wait_run_finished(&sid, &run).await;
    let events = s.events(&sid).await;
    let r = of_type(&events, "tool_result")[0];
    assert_eq!(r["ok"], false, "{r}");
    assert!(
        r["parts"][0]["hidden"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h == &json!(cmd)),
        "the card names the link: {r}"
    );
    // `/bin/sh: 1: …: not found` names the shell too, which the jail shows (through the
    // `/bin` → `usr/bin` link of a merged /usr): it is no hidden path.
    assert!(
        !r["parts"][0]["hidden"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h == "/bin/sh"),
        "{r}"
    );
    let (st, g) = s
        .post(
            &format!("/api/sessions/{sid}/jail-allows"),
            json!({ "path": cmd }),
        )
        .await;
    assert_eq!(st, 201, "{g}");
    let target_s = target.to_string_lossy().to_string();
    assert_eq!(g["key"], json!(format!("jail:{target_s}")), "{g}");
    let (_, perms) = s.get(&format!("/api/sessions/{sid}/permissions")).await;
    let keys: Vec<&str> = perms["grants"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|g| g["key"].as_str())
        .collect();
    assert!(
        keys.contains(&format!("jail:{target_s}").as_str()),
        "{perms}"
    );
    assert!(keys.contains(&format!("jail:{cmd}").as_str()), "{perms}");

    let run = s.prompt(&sid, "second").await;
    s.wait_run_finished(&sid, &run).await;
    let events = s.events(&sid).await;
    let t = &of_type(&events, "tool_result")[1];
    assert_eq!(t["ok"], true, "the same command works now: {t}");
    assert!(
        t["parts"][0]["stdout"]
            .as_str()
            .unwrap()
            .contains("TOOL-OK-4e1a"),
        "{t}"
    );
    s.stop().await;
}

/// Under `sandbox.network = "deny"` a jailed command has no network (its own namespace: the
/// host's loopback listener is out of reach); an install the user approved (`Job::install`: a
/// plugin's, the analysis extras') gets the network for that one call, and a job that denies
/// the network itself keeps it denied.
#[tokio::test]
async fn an_approved_install_gets_the_network_for_its_one_call() {
    let p = plant();
    let mut cfg = Config::for_paths(p.ws.clone(), p.state.clone());
    cfg.sandbox_helper = Some(binary());
    cfg.home = Some(p.home.path().to_path_buf());
    cfg.sandbox.jail = JailChoice::Bwrap;
    cfg.sandbox.network = "deny".into();
    let (sb, info) = tradewind::sandbox::for_config(&cfg);
    let sb = sb.unwrap_or_else(|| panic!("no sandbox: {:?}", info.notes));
    assert_eq!(info.network, "deny");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = format!(
        "import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2); print('connected')"
    );
    let connect = |job: Job| {
        let (sb, ws, script) = (&sb, p.ws.clone(), script.clone());
        async move { run_in(sb, &job, &ws, "/usr/bin/python3", &["-c", &script]).await }
    };
    let plain = connect(job(&[&p.ws])).await;
    assert!(!plain.status.success(), "{}", text(&plain));
    let install = connect(Job {
        install: true,
        ..job(&[&p.ws])
    })
    .await;
    assert_eq!(
        String::from_utf8_lossy(&install.stdout),
        "connected\n",
        "{}",
        text(&install)
    );
    let denied = connect(Job {
        install: true,
        network_deny: true,
        ..job(&[&p.ws])
    })
    .await;
    assert!(!denied.status.success(), "{}", text(&denied));
}

/// The fifth pass's critical finding: a link where the jail mounts. A jailed command (nothing
/// asked) plants a link at a path the jail binds read-only when it exists (`.envrc -> ../..`,
/// `.git/modules/x/hooks`, a nested repository's `.git/info`), or a cloned repository commits
/// one (`.envrc`, the folder `core.hooksPath` names): the next command must not get the host
/// folder the link names mounted into its jail. Each case on its own: every planted credential
/// stays unreadable by absolute path, through `$HOME` and through the link, and the command
/// still runs.
#[tokio::test]
async fn a_link_where_the_jail_binds_opens_nothing() {
    let p = plant();
    let (sb, _) = sandbox_for(p.home.path(), &p.ws, &p.state, JailChoice::Bwrap);
    let ws = &p.ws;
    std::fs::create_dir_all(ws.join(".git/hooks")).unwrap();
    std::fs::write(ws.join(".git/config"), "[core]\n").unwrap();
    let j = job(&[ws]);
    // (how it is planted, the link, what to clean up after): by a jailed command where the
    // jail lets one write there, else out here (an earlier approved git command, say).
    let cases: &[(&str, &str, &str)] = &[
        ("jail", "ln -s ../.. .envrc", ".envrc"),
        (
            "host",
            "mkdir -p .git/modules/x && ln -s ../../../../.. .git/modules/x/hooks",
            ".git/modules",
        ),
        (
            "jail",
            "mkdir -p sub/.git && ln -s ../../../.. sub/.git/info",
            "sub",
        ),
        ("clone", ".envrc", "cloned"),
        ("clone", "hooks", "cloned"),
    ];
    let home = p.home.path().display().to_string();
    for (how, what, cleanup) in cases {
        let via = match *how {
            "jail" => {
                let o = run_in(&sb, &j, ws, "/bin/sh", &["-c", what]).await;
                assert!(o.status.success(), "{what}: {}", text(&o));
                what.rsplit(' ').next().unwrap().to_string()
            }
            "host" => {
                let o = std::process::Command::new("/bin/sh")
                    .args(["-c", what])
                    .current_dir(ws)
                    .output()
                    .unwrap();
                assert!(o.status.success(), "{what}: {}", text(&o));
                what.rsplit(' ').next().unwrap().to_string()
            }
            _ => {
                // A repository that commits the link has it before any command runs.
                std::fs::create_dir_all(ws.join("cloned/.git")).unwrap();
                std::fs::write(
                    ws.join("cloned/.git/config"),
                    "[core]\n\thooksPath = hooks\n",
                )
                .unwrap();
                std::os::unix::fs::symlink("../../..", ws.join("cloned").join(what)).unwrap();
                format!("cloned/{what}")
            }
        };
        let mut paths: Vec<String> = Vec::new();
        for rel in PLANTED {
            paths.push(format!("{home}/{rel}"));
            paths.push(format!("$HOME/{rel}"));
            paths.push(format!("{via}/{rel}"));
        }
        let script = format!(
            "for f in {}; do cat \"$f\" 2>/dev/null; done; echo ran",
            paths.join(" ")
        );
        let o = run_in(&sb, &j, ws, "/bin/sh", &["-c", &script]).await;
        let t = text(&o);
        assert!(o.status.success() && t.contains("ran"), "{what}: {t}");
        for (i, rel) in PLANTED.iter().enumerate() {
            assert!(
                !t.contains(&marker(i)),
                "{what}: read {rel} through the link: {t}"
            );
        }
        // The link is left as it was, and the real read-only folder still is one.
        assert!(
            ws.join(&via)
                .symlink_metadata()
                .unwrap()
                .file_type()
                .is_symlink()
        );
        let o = run_in(
            &sb,
            &j,
            ws,
            "/bin/sh",
            &["-c", "touch .git/hooks/pre-commit"],
        )
        .await;
        assert!(!o.status.success(), "{}", text(&o));
        let gone = ws.join(cleanup);
        if gone.is_dir() {
            std::fs::remove_dir_all(&gone).unwrap();
        } else {
            std::fs::remove_file(&gone).unwrap();
        }
    }
}

/// Nothing written in the jail carries privilege out: `chmod 4755` / `2755` of a copied shell,
/// `install -m 4755`, `mkdir -m 2775`, and Python's `os.open(…, 0o4755)` and `os.chmod` leave no
/// file or folder with set-user-ID or set-group-ID on the host — in the bubblewrap jail and in
/// the Landlock fallback. (The server runs as root here in CI, as in a container: the jail's
/// files are root's on the host.)
#[tokio::test]
async fn nothing_written_in_the_jail_is_set_uid_or_set_gid() {
    let p = plant();
    for choice in [JailChoice::Bwrap, JailChoice::Landlock] {
        let (sb, kind) = sandbox_for(p.home.path(), &p.ws, &p.state, choice);
        if kind == "landlock" && tradewind::sandbox::under_temp(&p.state) {
            continue;
        }
        let dir = p.ws.join(format!("suid-{kind}"));
        std::fs::create_dir_all(&dir).unwrap();
        let script = "cp /bin/sh sh1; chmod 4755 sh1; echo chmod=$?; \
             cp /bin/sh sh2; chmod u+s,g+s sh2; echo chmod2=$?; \
             install -m 4755 /bin/sh sh3; echo install=$?; \
             mkdir -m 2775 d1; echo mkdir=$?; mkdir d2; chmod g+s d2; echo chmodg=$?; \
             /usr/bin/python3 -c \"import os\nfd = os.open('py1', os.O_CREAT | os.O_WRONLY, 0o6755); os.close(fd)\ntry: os.chmod('py1', 0o4755); print('PYCHMOD-OK')\nexcept OSError as e: print('pychmod', e.errno)\"; \
             true";
        let o = run_in(&sb, &job(&[&p.ws]), &dir, "/bin/sh", &["-c", script]).await;
        let t = text(&o);
        assert!(o.status.success(), "{kind}: {t}");
        assert!(!t.contains("PYCHMOD-OK"), "{kind}: {t}");
        assert!(t.contains("chmod=1"), "{kind}: chmod 4755 succeeded: {t}");
        use std::os::unix::fs::PermissionsExt;
        let mut seen = 0;
        for e in std::fs::read_dir(&dir).unwrap() {
            let e = e.unwrap();
            let mode = e.metadata().unwrap().permissions().mode();
            seen += 1;
            assert_eq!(
                mode & 0o6000,
                0,
                "{kind}: {} is {mode:o} on the host: {t}",
                e.path().display()
            );
        }
        // The copies and folders that could be made without the bits are there: the test saw
        // real files.
        assert!(seen >= 3, "{kind}: {t}");
        // Ordinary modes still work (a script made executable).
        let o = run_in(
            &sb,
            &job(&[&p.ws]),
            &dir,
            "/bin/sh",
            &[
                "-c",
                "echo 'echo hi' > run.sh && chmod 755 run.sh && ./run.sh",
            ],
        )
        .await;
        assert!(text(&o).contains("hi"), "{kind}: {}", text(&o));
    }
}

/// The Landlock fallback offers only what it can enforce (the fifth pass found 22 of 35
/// credentials readable, host sockets reachable and every capability kept as root): HOME is the
/// jail's allow-list, no Unix socket can be made (a host tmux server's stays out of reach), no
/// capability is left, builds write the workspace's own cache, git reads the generated global
/// config. A server on it refuses `full` with the fix and says which guarantees hold.
#[tokio::test]
async fn the_landlock_fallback_gives_only_what_it_enforces() {
    let p = plant();
    let (sb, kind) = sandbox_for(p.home.path(), &p.ws, &p.state, JailChoice::Landlock);
    assert_eq!(kind, "landlock");
    if tradewind::sandbox::under_temp(&p.state) {
        // A checkout under the system temp dir: the fallback refuses every command (see
        // the_landlock_fallback_refuses_what_it_cannot_hide).
        return;
    }
    let files: Vec<String> = PLANTED
        .iter()
        .map(|r| p.home.path().join(r).display().to_string())
        .collect();
    // Under the system temp folder: a socket's path must stay short (no Unix socket can be made
    // in the fallback wherever its listener lives).
    let sock_dir = TempDir::new("fb-sock");
    let sock = sock_dir.path().join("default");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let script = format!(
        "import os, socket, sys\n\
         for f in sys.argv[1:]:\n  try: print(open(f).read())\n  except Exception as e: print('no', f, type(e).__name__)\n\
         s = None\n\
         try: s = socket.socket(socket.AF_UNIX); s.connect({sock:?}); print('SOCKET-REACHED')\n\
         except Exception as e: print('socket', type(e).__name__)\n\
         st = open('/proc/self/status').read()\n\
         print([l for l in st.splitlines() if l.startswith(('CapEff', 'CapPrm', 'CapBnd', 'CapAmb'))])\n\
         print('CARGO_HOME=' + os.environ.get('CARGO_HOME', ''))\n\
         print('GIT_CONFIG_GLOBAL=' + os.environ.get('GIT_CONFIG_GLOBAL', ''))\n\
         try: os.listdir(os.environ['HOME']); print('HOME-LISTED')\n\
         except Exception as e: print('home', type(e).__name__)\n",
        sock = sock.display().to_string(),
    );
    let mut args = vec!["-c", script.as_str()];
    args.extend(files.iter().map(String::as_str));
    let j = job(&[&p.ws]);
    let argv: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
    let mut cmd = sb
        .command(&j, Path::new("/usr/bin/python3"), &argv)
        .unwrap();
    cmd.current_dir(&p.ws)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap())
        .env("HOME", p.home.path())
        .stdin(std::process::Stdio::null());
    sb.env(&j, &mut cmd);
    let o = cmd.output().await.unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    for (i, rel) in PLANTED.iter().enumerate() {
        assert!(
            !t.contains(&marker(i)),
            "the fallback let {rel} be read: {t}"
        );
    }
    assert!(!t.contains("SOCKET-REACHED"), "{t}");
    assert!(t.contains("socket PermissionError"), "{t}");
    assert!(t.contains("home PermissionError"), "{t}");
    for cap in ["CapEff", "CapPrm", "CapAmb"] {
        assert!(
            t.contains(&format!("'{cap}:\\t0000000000000000'")),
            "{cap}: {t}"
        );
    }
    if rustix::process::geteuid().is_root() {
        assert!(t.contains("'CapBnd:\\t0000000000000000'"), "{t}");
    }
    let cache = p.home.path().join(".cache/tradewind/jail");
    assert!(
        t.contains(&format!("CARGO_HOME={}", cache.display())),
        "{t}"
    );
    assert!(
        t.contains(&format!(
            "GIT_CONFIG_GLOBAL={}",
            cache.join("gitconfig").display()
        )),
        "{t}"
    );

    // The server on the fallback: `full` is refused with the fix, the default `full` starts
    // sessions in `auto`, and GET /api/config says which guarantees hold.
    let s = TestServer::start_in(
        Opts {
            ceiling: tradewind::config::Ceiling {
                write: true,
                process: true,
                external: true,
            },
            home: Some(p.home.path().to_path_buf()),
            tweak: Some(|c| c.sandbox.jail = JailChoice::Landlock),
            replay: Some(json!({"scripts": []})),
            ..Opts::default()
        },
        TempDir::adopt(p.ws.clone()),
        TempDir::adopt(p.state.clone()),
    )
    .await;
    let (st, body) = s.post("/api/sessions", json!({"mode": "full"})).await;
    assert_eq!(st, 409, "{body}");
    assert_eq!(body["error"]["code"], "mode_unsafe_here", "{body}");
    let msg = body["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("bubblewrap") && msg.contains("apparmor_restrict_unprivileged_userns"),
        "{msg}"
    );
    let (st, created) = s.post("/api/sessions", json!({})).await;
    assert_eq!(st, 201, "{created}");
    assert_eq!(created["mode"], "auto", "{created}");
    let sid = created["id"].as_str().unwrap().to_string();
    let (st, body) = s
        .send(
            reqwest::Method::PATCH,
            &format!("/api/sessions/{sid}"),
            json!({"mode": "full"}),
        )
        .await;
    assert_eq!(st, 409, "{body}");
    let (_, cfg) = s.get("/api/config").await;
    let g = |id: &str| {
        cfg["sandbox"]["guarantees"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["id"] == id)
            .unwrap_or_else(|| panic!("{id}: {cfg}"))
            .clone()
    };
    assert_eq!(cfg["sandbox"]["jail"], "landlock", "{cfg}");
    for (id, holds) in [
        ("home_allow_list", true),
        ("no_capabilities", true),
        ("no_set_uid", true),
        ("git_control_files_read_only", false),
        ("network_deny_all", false),
        ("full_mode", false),
    ] {
        assert_eq!(g(id)["holds"], holds, "{id}: {cfg}");
    }
    s.stop().await;
}

/// A repository's control files are protected as a whole, and what a jailed command creates
/// for programs outside to run is held: a nested `git init` whose config names a
/// `core.fsmonitor` program, a new `.envrc`, and the swaps the fifth pass used (`commondir`, a
/// `.git` renamed and rebuilt: see `files_that_run_code_later_are_read_only_in_roots`). Through
/// the shell tool of a `full` session: the new repository is moved aside and, the user not
/// keeping it, stays aside; the `.envrc` the user keeps is put back. The user's own `git
/// status` out here afterwards runs nothing of the agent's.
#[tokio::test]
async fn what_a_command_creates_for_programs_outside_is_held() {
    let p = plant();
    let ws = p.ws.clone();
    git_in(&ws, &["init", "-q"]);
    std::fs::write(ws.join("a.txt"), "a\n").unwrap();
    let marker = ws.join("PWNED");
    let evil = ws.join("evil.sh");
    std::fs::write(&evil, format!("#!/bin/sh\ntouch '{}'\n", marker.display())).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&evil, std::fs::Permissions::from_mode(0o755)).unwrap();
    let nested = format!(
        "git init -q sub && /usr/bin/python3 -c \"open('sub/.git/config', 'a').write('[core]\\n\\tfsmonitor = {}\\n')\"",
        evil.display()
    );
    let shell = |c: &str| json!({"tool_calls": [{"name": "shell", "arguments": {"command": c}}]});
    let script = json!({"scripts": [{"turns": [
        shell(&nested),
        shell("echo 'echo hello' > .envrc"),
        {"text": "done"}
    ]}]});
    let s = full_server(&p, script).await;
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "go").await;
    // Answer each question: the new repository is not kept, everything else is.
    let (finished, asked) = s
        .answer_until_finished(&sid, &run, |a| {
            let keep_repo = a["reason"]
                .as_str()
                .unwrap_or_default()
                .contains("sub/.git");
            if keep_repo { "deny" } else { "once" }.to_string()
        })
        .await;
    let asked: Vec<&str> = asked.iter().filter_map(|a| a["reason"].as_str()).collect();
    assert_eq!(finished["status"], "completed", "{finished}");
    assert!(
        asked
            .iter()
            .any(|r| r.contains("sub/.git") && r.contains("keep")),
        "{asked:?}"
    );
    assert!(asked.iter().any(|r| r.contains(".envrc")), "{asked:?}");
    // The nested repository stays aside; the kept .envrc is back.
    assert!(!ws.join("sub/.git").exists());
    assert!(ws.join("sub/.git.tradewind-held/config").is_file());
    assert_eq!(
        std::fs::read_to_string(ws.join(".envrc")).unwrap(),
        "echo hello\n"
    );
    let events = s.events(&sid).await;
    let results: Vec<String> = of_type(&events, "tool_result")
        .iter()
        .map(|r| r["text"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        results[0].contains("stays aside") && results[0].contains("sub/.git"),
        "{results:?}"
    );
    // The user's own git, unjailed, in the folder and at the root: nothing of the agent's runs.
    for dir in [ws.join("sub"), ws.clone()] {
        let o = std::process::Command::new("git")
            .args(["status", "--short"])
            .current_dir(&dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    assert!(
        !marker.exists(),
        "the agent's fsmonitor ran outside the jail"
    );
    // Without the hold, the same repository would have run it: the test would see it.
    std::fs::rename(ws.join("sub/.git.tradewind-held"), ws.join("sub/.git")).unwrap();
    let o = std::process::Command::new("git")
        .args(["status", "--short"])
        .current_dir(ws.join("sub"))
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(
        marker.exists(),
        "the planted fsmonitor did not run even unheld: {} {:?} {results:?}",
        text(&o),
        std::fs::read_to_string(ws.join("sub/.git/config"))
    );
    s.stop().await;
}

/// Commands that write a repository's state ask once a session, naming it, and then get exactly
/// its git directory writable — with its hooks and config still read-only and git's
/// program-running settings pinned: `git add` and `git commit` of a `full` session ask at the
/// first one ("for this session"), the second commits without asking, and a planted hook does
/// not run.
#[tokio::test]
async fn git_state_writes_ask_once_and_open_only_the_git_directory() {
    let p = plant();
    let ws = p.ws.clone();
    git_in(&ws, &["init", "-q"]);
    git_in(&ws, &["config", "user.email", "a@b"]);
    git_in(&ws, &["config", "user.name", "a"]);
    let marker = ws.join("HOOK-RAN");
    std::fs::write(
        ws.join(".git/hooks/pre-commit"),
        format!("#!/bin/sh\ntouch '{}'\n", marker.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        ws.join(".git/hooks/pre-commit"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let shell = |c: &str| json!({"tool_calls": [{"name": "shell", "arguments": {"command": c}}]});
    let script = json!({"scripts": [{"turns": [
        shell("echo a > a.txt && git add a.txt && git commit -qm one && git config --get core.hooksPath"),
        shell("echo b > b.txt && git add b.txt && git commit -qm two"),
        shell("touch .git/hooks/post-commit"),
        {"text": "done"}
    ]}]});
    let s = full_server(&p, script).await;
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "commit").await;
    let ask = s
        .wait_event(&sid, |e| e["type"] == "approval_requested")
        .await;
    assert!(
        ask["reason"]
            .as_str()
            .unwrap()
            .contains("repository's own files"),
        "{ask}"
    );
    s.post(
        &format!("/api/approvals/{}", ask["approval_id"].as_str().unwrap()),
        json!({"decision": "session"}),
    )
    .await;
    // The planted-hook write asks on its own (and is denied here).
    let finished = s.answer_all_until_finished(&sid, &run, "deny").await;
    assert_eq!(finished["status"], "completed", "{finished}");
    let events = s.events(&sid).await;
    let git_asks = of_type(&events, "approval_requested")
        .iter()
        .filter(|a| {
            a["reason"]
                .as_str()
                .unwrap()
                .contains("repository's own files")
        })
        .count();
    assert_eq!(git_asks, 1, "asked again");
    let results = of_type(&events, "tool_result");
    let text0 = results[0]["text"].as_str().unwrap();
    assert_eq!(results[0]["ok"], true, "{text0}");
    assert!(
        text0.contains("/dev/null"),
        "hooks path not pinned: {text0}"
    );
    assert_eq!(results[1]["ok"], true, "{}", results[1]);
    // The hooks folder stayed read-only even for the approved commands and after.
    assert_eq!(results[2]["ok"], false, "{}", results[2]);
    assert!(!ws.join(".git/hooks/post-commit").exists());
    assert!(
        !marker.exists(),
        "the repository's hook ran for the agent's commit"
    );
    let log = std::process::Command::new("git")
        .args(["log", "--format=%s"])
        .current_dir(&ws)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&log.stdout), "two\none\n");
    // A `!command` the user typed names what it does: another session, no question asked.
    let other = s.create_session("full").await;
    let run = s
        .prompt(&other, "!git commit --allow-empty -qm three")
        .await;
    let finished = s.wait_run_finished(&other, &run).await;
    assert_eq!(finished["status"], "completed", "{finished}");
    let events = s.events(&other).await;
    assert!(
        of_type(&events, "approval_requested").is_empty(),
        "{events:?}"
    );
    let log = std::process::Command::new("git")
        .args(["log", "-1", "--format=%s"])
        .current_dir(&ws)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&log.stdout), "three\n");
    s.stop().await;
}

/// The fifth pass: `.git/commondir` made the plan agent's read-only `git_diff` read another
/// directory's config and run a repository filter. The server's own git pins `GIT_DIR` and
/// `GIT_COMMON_DIR` (a `commondir` in a plain repository redirects nothing), filters the config
/// it reads, and blanks every filter and diff driver the attributes name.
#[tokio::test]
async fn git_diff_runs_no_filter_through_a_redirected_common_dir() {
    let (s, marker) = git_diff_server().await;
    let ws = s.workspace.path();
    git_in(ws, &["init", "-q"]);
    std::fs::write(ws.join("f.txt"), "one\n").unwrap();
    std::fs::write(ws.join(".gitattributes"), "*.txt filter=evil diff=evil\n").unwrap();
    git_in(ws, &["add", "f.txt", ".gitattributes"]);
    git_in(ws, &["commit", "-q", "-m", "f"]);
    // A copy of the git directory with a filter and a text conversion, and the repository's
    // `commondir` pointing at it.
    let other = ws.join("other");
    let o = std::process::Command::new("cp")
        .args(["-r", ".git", "other"])
        .current_dir(ws)
        .output()
        .unwrap();
    assert!(o.status.success());
    // The driver leaves a mark where it can: a file (out here) and its output (in the jail,
    // where no file outside /tmp is writable).
    let cmd = format!(
        "sh -c 'touch {} 2>/dev/null; echo RAN-A-DRIVER; cat'",
        marker.display()
    );
    for (k, v) in [("filter.evil.clean", &cmd), ("diff.evil.textconv", &cmd)] {
        let o = std::process::Command::new("git")
            .args(["config", "--file"])
            .arg(other.join("config"))
            .args([k, v])
            .output()
            .unwrap();
        assert!(o.status.success());
    }
    std::fs::write(ws.join(".git/commondir"), "../other\n").unwrap();
    std::fs::write(ws.join("f.txt"), "two\n").unwrap();
    // Unconfined, plain git runs it (the finding is real on this machine).
    let o = std::process::Command::new("git")
        .args(["diff"])
        .current_dir(ws)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(
        marker.exists(),
        "the filter did not run: the test proves nothing"
    );
    // (Its text conversion makes both sides read alike: the change disappears from the diff.)
    assert!(!String::from_utf8_lossy(&o.stdout).contains("+two"));
    std::fs::remove_file(&marker).unwrap();

    let sid = s.create_session("ask").await;
    let run = s.prompt(&sid, "diff").await;
    s.wait_run_finished(&sid, &run).await;
    let events = s.events(&sid).await;
    let r = events.iter().find(|e| e["type"] == "tool_result").unwrap();
    assert!(
        !marker.exists(),
        "git_diff ran the repository's filter: {r}"
    );
    assert!(
        !r["text"].as_str().unwrap().contains("RAN-A-DRIVER"),
        "git_diff ran a driver in the jail: {r}"
    );
    assert!(r["text"].as_str().unwrap().contains("+two"), "{r}");
    s.stop().await;
}

/// An approved `git push` runs git's program settings pinned: a `core.sshCommand` in the
/// repository's config (planted where a command could once write it) is not what carries the
/// push — plain `ssh` is, here to a closed loopback port.
#[tokio::test]
async fn an_approved_git_push_runs_no_planted_ssh_command() {
    let p = plant();
    let ws = p.ws.clone();
    git_in(&ws, &["init", "-q"]);
    std::fs::write(ws.join("a.txt"), "a\n").unwrap();
    git_in(&ws, &["add", "a.txt"]);
    git_in(&ws, &["commit", "-q", "-m", "a"]);
    git_in(&ws, &["remote", "add", "origin", "ssh://127.0.0.1:1/x.git"]);
    git_in(&ws, &["config", "ssh.variant", "ssh"]);
    git_in(
        &ws,
        &[
            "config",
            "core.sshCommand",
            "sh -c 'echo RAN-PLANTED-SSH >&2; exit 1' --",
        ],
    );
    // Unconfined, git runs the planted command (the finding is real on this machine).
    let o = std::process::Command::new("git")
        .args(["push", "origin", "HEAD"])
        .current_dir(&ws)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(text(&o).contains("RAN-PLANTED-SSH"), "{}", text(&o));
    let script = json!({"scripts": [{"turns": [
        {"tool_calls": [{"name": "shell", "arguments": {"command": "git push origin HEAD"}}]},
        {"text": "done"}
    ]}]});
    let s = full_server(&p, script).await;
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "push").await;
    let finished = s.answer_all_until_finished(&sid, &run, "once").await;
    assert_eq!(finished["status"], "completed", "{finished}");
    let events = s.events(&sid).await;
    let r = &of_type(&events, "tool_result")[0];
    let out = r["text"].as_str().unwrap();
    assert!(!out.contains("RAN-PLANTED-SSH"), "{out}");
    // Plain ssh tried the loopback port and was refused.
    assert!(
        out.contains("127.0.0.1") || out.contains("Connection refused") || out.contains("ssh"),
        "{out}"
    );
    s.stop().await;
}

/// The server as an ordinary user: the attacks above again, run by this test binary as `nobody`
/// (unprivileged user namespaces, no capabilities to drop, files the user's own) — the planted
/// links, set-uid bits, the files that run code later, the planted credentials and the
/// fallback. When the suite itself runs as an ordinary user the tests above are already that.
#[tokio::test]
async fn the_attacks_fail_with_the_server_as_an_ordinary_user() {
    if std::env::var_os("TW_TEST_TMP").is_some() || !rustix::process::geteuid().is_root() {
        return;
    }
    let tmp = outside_tmp("as-user");
    std::fs::create_dir_all(tmp.path()).unwrap();
    let nobody = std::process::Command::new("id")
        .args(["-u", "nobody"])
        .output()
        .unwrap();
    let uid: u32 = String::from_utf8_lossy(&nobody.stdout)
        .trim()
        .parse()
        .unwrap();
    std::os::unix::fs::chown(tmp.path(), Some(uid), Some(uid)).unwrap();
    let exe = std::env::current_exe().unwrap();
    for name in [
        "a_link_where_the_jail_binds_opens_nothing",
        "nothing_written_in_the_jail_is_set_uid_or_set_gid",
        "files_that_run_code_later_are_read_only_in_roots",
        "planted_credentials_are_unreadable_by_cat_python_and_node",
        "the_landlock_fallback_gives_only_what_it_enforces",
    ] {
        let o = tokio::process::Command::new("runuser")
            .args(["-u", "nobody", "--"])
            .arg(&exe)
            .args(["--exact", name, "--test-threads=1"])
            .env("TW_TEST_TMP", tmp.path())
            .env("HOME", tmp.path())
            .output()
            .await
            .unwrap();
        let t = text(&o);
        assert!(
            o.status.success() && t.contains("1 passed"),
            "{name} as nobody: {t}"
        );
    }
}

/// A background task's creations are held too: `git init` in a `bg_run` task leaves no live
/// repository for outside programs — it is moved aside when the task ends (nobody is there to
/// ask) and the task's output says where, and how to keep it.
#[tokio::test]
async fn what_a_background_task_creates_for_programs_outside_is_held() {
    let p = plant();
    let ws = p.ws.clone();
    let script = json!({"scripts": [{"turns": [
        {"tool_calls": [{"name": "bg_run", "arguments": {"command": "git init -q sub", "label": "init"}}]},
        {"text": "started"}
    ]}]});
    let s = full_server(&p, script).await;
    let sid = s.create_session("full").await;
    let run = s.prompt(&sid, "init").await;
    s.answer_all_until_finished(&sid, &run, "once").await;
    let ended = s
        .wait_event(&sid, |e| {
            e["type"] == "task_updated" && e["task"]["status"] == "succeeded"
        })
        .await;
    assert!(!ws.join("sub/.git").exists(), "{ended}");
    assert!(ws.join("sub/.git.tradewind-held/HEAD").is_file(), "{ended}");
    let id = ended["task"]["id"].as_str().unwrap();
    let (_, out) = s.get(&format!("/api/tasks/{id}/output")).await;
    assert!(out.to_string().contains("moved aside"), "{out}");
    s.stop().await;
}
