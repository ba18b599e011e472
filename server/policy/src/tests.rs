//! The permission truth tables as a scenario matrix: every effect × mode × ceiling × agent ×
//! interactive/headless × read-only combination.

use std::collections::HashSet;
use std::path::PathBuf;

use super::*;
use crate::protocol::PolicyDecision as D;

const EFFECTS: [Effect; 5] = [
    Effect::Read,
    Effect::Write,
    Effect::Process,
    Effect::External,
    Effect::Internal,
];
const MODES: [Mode; 3] = [Mode::Ask, Mode::Auto, Mode::Full];

fn ceilings() -> Vec<Ceiling> {
    let mut v = Vec::new();
    for w in [false, true] {
        for p in [false, true] {
            for e in [false, true] {
                v.push(Ceiling {
                    write: w,
                    process: p,
                    external: e,
                });
            }
        }
    }
    v
}

/// Seed 000, "Modos de permisos": ask / auto / full.
fn mode_table(mode: Mode, effect: Effect) -> bool {
    match (mode, effect) {
        (_, Effect::Read) | (_, Effect::Internal) => true,
        (Mode::Ask, _) => false,
        (Mode::Auto, Effect::Write) => true,
        (Mode::Auto, _) => false,
        (Mode::Full, _) => true,
    }
}

fn flag(c: Ceiling, e: Effect) -> bool {
    match e {
        Effect::Write => c.write,
        Effect::Process => c.process,
        Effect::External => c.external,
        Effect::Read | Effect::Internal => true,
    }
}

fn expected(
    agent: Agent,
    mode: Mode,
    c: Ceiling,
    interactive: bool,
    read_only: bool,
    e: Effect,
) -> D {
    let gated = matches!(e, Effect::Write | Effect::Process | Effect::External);
    if !gated {
        return D::Allow;
    }
    // "--read-only: nunca se ofrece, denegada de forma dura"; plan agent: runner-enforced.
    if read_only || agent == Agent::Plan {
        return D::Deny;
    }
    if interactive {
        // "los flags de arranque son el techo: un efecto que no permiten sigue preguntando".
        if mode_table(mode, e) && flag(c, e) {
            D::Allow
        } else {
            D::Ask
        }
    } else {
        // Headless: flag set → allowed, never asks; unset → simply unavailable.
        if flag(c, e) { D::Allow } else { D::Deny }
    }
}

#[test]
fn truth_table_matrix() {
    let grants = HashSet::new();
    let mut n = 0;
    for agent in [Agent::Build, Agent::Plan] {
        for mode in MODES {
            for c in ceilings() {
                for interactive in [true, false] {
                    for read_only in [false, true] {
                        for e in EFFECTS {
                            let ctx = Context {
                                agent,
                                mode,
                                interactive,
                                ceiling: c,
                                read_only,
                                yolo: false,
                                grants: &grants,
                            };
                            let p = Proposal {
                                origin: crate::Origin::Model,
                                tool: "t",
                                effect: e,
                                paths: &[],
                                command: None,
                                command_text: None,
                                net: None,
                                mcp: None,
                            };
                            let got = decide(&ctx, &p).label();
                            let want = expected(agent, mode, c, interactive, read_only, e);
                            assert_eq!(
                                got, want,
                                "{agent:?} {mode:?} {c:?} interactive={interactive} ro={read_only} {e:?}"
                            );
                            // What is offered matches: a denied gated effect is not offered.
                            let off = offered(e, agent, interactive, c, read_only, false);
                            assert_eq!(
                                off,
                                want != D::Deny,
                                "offered: {agent:?} {mode:?} {c:?} {interactive} {read_only} {e:?}"
                            );
                            n += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(n, 2 * 3 * 8 * 2 * 2 * 5);
}

#[test]
fn session_grant_covers_effect_but_not_plan_or_read_only() {
    let grants: HashSet<String> = [effect_key(Effect::Process)].into_iter().collect();
    let mk = |agent, read_only| Context {
        agent,
        mode: Mode::Ask,
        interactive: true,
        ceiling: Ceiling::default(),
        read_only,
        yolo: false,
        grants: &grants,
    };
    let p = Proposal {
        origin: crate::Origin::Model,
        tool: "shell",
        effect: Effect::Process,
        paths: &[],
        command: None,
        command_text: None,
        net: None,
        mcp: None,
    };
    assert_eq!(decide(&mk(Agent::Build, false), &p).label(), D::Allow);
    assert_eq!(decide(&mk(Agent::Plan, false), &p).label(), D::Deny);
    assert_eq!(decide(&mk(Agent::Build, true), &p).label(), D::Deny);
}

#[test]
fn outside_path_asks_for_directory_first_then_effect() {
    let mut grants = HashSet::new();
    let outside = [PathUse {
        links: 1,
        path: PathBuf::from("/srv/data/x.txt"),
        inside: false,
        directory: PathBuf::from("/srv/data"),
    }];
    let full = Ceiling {
        write: true,
        process: true,
        external: true,
    };
    let p = Proposal {
        origin: crate::Origin::Model,
        tool: "write_file",
        effect: Effect::Write,
        paths: &outside,
        command: None,
        command_text: None,
        net: None,
        mcp: None,
    };
    {
        let ctx = Context {
            agent: Agent::Build,
            mode: Mode::Ask,
            interactive: true,
            ceiling: full,
            read_only: false,
            yolo: false,
            grants: &grants,
        };
        match decide(&ctx, &p) {
            Decision::Ask(a) => {
                assert_eq!(a.scope, ApprovalScope::Directory);
                assert_eq!(
                    a.directory.as_deref(),
                    Some(std::path::Path::new("/srv/data"))
                );
            }
            other => panic!("{other:?}"),
        }
    }
    // A read grant on the directory does not cover a write.
    grants.insert(dir_key(Effect::Read, std::path::Path::new("/srv")));
    {
        let ctx = Context {
            agent: Agent::Build,
            mode: Mode::Ask,
            interactive: true,
            ceiling: full,
            read_only: false,
            yolo: false,
            grants: &grants,
        };
        match decide(&ctx, &p) {
            Decision::Ask(a) => assert_eq!(a.scope, ApprovalScope::Directory),
            other => panic!("{other:?}"),
        }
    }
    grants.insert(dir_key(Effect::Write, std::path::Path::new("/srv")));
    let ctx = Context {
        agent: Agent::Build,
        mode: Mode::Ask,
        interactive: true,
        ceiling: full,
        read_only: false,
        yolo: false,
        grants: &grants,
    };
    // The subtree is covered; now the write effect still asks in `ask` mode.
    match decide(&ctx, &p) {
        Decision::Ask(a) => assert_eq!(a.scope, ApprovalScope::Effect),
        other => panic!("{other:?}"),
    }
    // Headless: outside paths are denied with the remedy.
    let empty = HashSet::new();
    let ctx = Context {
        agent: Agent::Build,
        mode: Mode::Full,
        interactive: false,
        ceiling: full,
        read_only: false,
        yolo: false,
        grants: &empty,
    };
    match decide(&ctx, &p) {
        Decision::Deny { reason, .. } => {
            assert!(reason.contains("--add-dir /srv/data"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

fn analysis(cmd: &str) -> command::CommandAnalysis {
    command::analyze_shell(cmd)
}

#[test]
fn never_loosening_commands_ask_in_full_mode_unless_yolo() {
    let full = Ceiling {
        write: true,
        process: true,
        external: true,
    };
    let empty = HashSet::new();
    for cmd in [
        "rm -rf build",
        "curl http://x",
        "sudo ls",
        "pip install x",
        "crontab -e",
        "git status; curl x",
        "bash -c 'ls'",
    ] {
        let a = analysis(cmd);
        let p = Proposal {
            origin: crate::Origin::Model,
            tool: "shell",
            effect: Effect::Process,
            paths: &[],
            command: Some(&a),
            command_text: Some(cmd),
            net: None,
            mcp: None,
        };
        let ctx = Context {
            agent: Agent::Build,
            mode: Mode::Full,
            interactive: true,
            ceiling: full,
            read_only: false,
            yolo: false,
            grants: &empty,
        };
        assert_eq!(decide(&ctx, &p).label(), D::Ask, "{cmd}");
        let headless = Context {
            interactive: false,
            ..ctx
        };
        assert_eq!(decide(&headless, &p).label(), D::Deny, "{cmd}");
        let yolo = Context { yolo: true, ..ctx };
        assert_eq!(decide(&yolo, &p).label(), D::Allow, "{cmd}");
        // An effect-wide session grant does not cover it; the exact command's grant does.
        let g: HashSet<String> = [effect_key(Effect::Process)].into_iter().collect();
        let ctx_g = Context { grants: &g, ..ctx };
        assert_eq!(decide(&ctx_g, &p).label(), D::Ask, "{cmd}");
        let g2: HashSet<String> = [command_key(cmd)].into_iter().collect();
        let ctx_g2 = Context { grants: &g2, ..ctx };
        assert_eq!(decide(&ctx_g2, &p).label(), D::Allow, "{cmd}");
    }
    let a = analysis("cargo test");
    let p = Proposal {
        origin: crate::Origin::Model,
        tool: "shell",
        effect: Effect::Process,
        paths: &[],
        command: Some(&a),
        command_text: Some("cargo test"),
        net: None,
        mcp: None,
    };
    let ctx = Context {
        agent: Agent::Build,
        mode: Mode::Full,
        interactive: true,
        ceiling: full,
        read_only: false,
        yolo: false,
        grants: &empty,
    };
    assert_eq!(decide(&ctx, &p).label(), D::Allow);
}

#[test]
fn yolo_never_lifts_read_only_or_plan() {
    let empty = HashSet::new();
    let p = Proposal {
        origin: crate::Origin::Model,
        tool: "shell",
        effect: Effect::Process,
        paths: &[],
        command: None,
        command_text: None,
        net: None,
        mcp: None,
    };
    let ctx = Context {
        agent: Agent::Plan,
        mode: Mode::Full,
        interactive: true,
        ceiling: Ceiling::default(),
        read_only: false,
        yolo: true,
        grants: &empty,
    };
    assert_eq!(decide(&ctx, &p).label(), D::Deny);
}

#[test]
fn writes_to_startup_autostart_and_git_files_always_ask() {
    let full = Ceiling {
        write: true,
        process: true,
        external: true,
    };
    let empty = HashSet::new();
    for path in [
        "/home/u/.bashrc",
        "/home/u/proj/.git/hooks/pre-commit",
        "/home/u/proj/.git/config",
        "/home/u/.config/autostart/x.desktop",
        "/home/u/.PROFILE",
        "/home/u/proj/.tradewind/config.json",
    ] {
        let uses = [PathUse {
            links: 1,
            path: PathBuf::from(path),
            inside: true,
            directory: PathBuf::from("/home/u"),
        }];
        let p = Proposal {
            origin: crate::Origin::Model,
            tool: "write_file",
            effect: Effect::Write,
            paths: &uses,
            command: None,
            command_text: None,
            net: None,
            mcp: None,
        };
        let ctx = Context {
            agent: Agent::Build,
            mode: Mode::Full,
            interactive: true,
            ceiling: full,
            read_only: false,
            yolo: false,
            grants: &empty,
        };
        assert_eq!(decide(&ctx, &p).label(), D::Ask, "{path}");
        assert_eq!(
            decide(
                &Context {
                    interactive: false,
                    ..ctx
                },
                &p
            )
            .label(),
            D::Deny,
            "{path}"
        );
        assert_eq!(
            decide(&Context { yolo: true, ..ctx }, &p).label(),
            D::Allow,
            "{path}"
        );
        // Reading them is fine.
        let r = Proposal {
            origin: crate::Origin::Model,
            tool: "read_file",
            effect: Effect::Read,
            ..p
        };
        assert_eq!(decide(&ctx, &r).label(), D::Allow, "{path}");
    }
    let uses = [PathUse {
        links: 1,
        path: PathBuf::from("/home/u/proj/src/main.rs"),
        inside: true,
        directory: PathBuf::from("/home/u/proj/src"),
    }];
    let p = Proposal {
        origin: crate::Origin::Model,
        tool: "write_file",
        effect: Effect::Write,
        paths: &uses,
        command: None,
        command_text: None,
        net: None,
        mcp: None,
    };
    let ctx = Context {
        agent: Agent::Build,
        mode: Mode::Full,
        interactive: true,
        ceiling: full,
        read_only: false,
        yolo: false,
        grants: &empty,
    };
    assert_eq!(decide(&ctx, &p).label(), D::Allow);
}

/// Seed 003: a command naming a hard-denied path is denied in every mode (not asked), and only
/// `--yolo` lifts it; a word that merely looks alike (`credentials`, `keys.rs`) is not.
#[test]
fn commands_naming_hard_denied_paths_are_denied_not_asked() {
    let full = Ceiling {
        write: true,
        process: true,
        external: true,
    };
    let empty = HashSet::new();
    let ctx = |mode, yolo| Context {
        agent: Agent::Build,
        mode,
        interactive: true,
        ceiling: full,
        read_only: false,
        yolo,
        grants: &empty,
    };
    let decide_cmd = |cmd: &str, mode, yolo| {
        let a = analysis(cmd);
        let p = Proposal {
            origin: crate::Origin::Model,
            tool: "shell",
            effect: Effect::Process,
            paths: &[],
            command: Some(&a),
            command_text: Some(cmd),
            net: None,
            mcp: None,
        };
        decide(&ctx(mode, yolo), &p).label()
    };
    for cmd in [
        "cat ~/.ssh/id_rsa",
        "base64 $HOME/.aws/credentials",
        "cp ~/.gnupg/secring.gpg .",
        "cat /proc/self/environ",
        "openssl x509 -in server.pem -text",
        "sqlite3 ~/.tradewind/tradewind.db .dump",
        "tar czf out.tgz ~/.ssh",
    ] {
        for mode in [Mode::Ask, Mode::Auto, Mode::Full] {
            assert_eq!(decide_cmd(cmd, mode, false), D::Deny, "{cmd} in {mode:?}");
        }
        assert_eq!(
            decide_cmd(cmd, Mode::Full, true),
            D::Allow,
            "{cmd} with --yolo"
        );
    }
    for cmd in [
        "cargo test credentials",
        "cat src/keys.rs",
        "ls -la",
        "grep -r key src",
    ] {
        assert_eq!(decide_cmd(cmd, Mode::Full, false), D::Allow, "{cmd}");
    }
}

/// Prefix rules match the parsed argv word for word, cover a pipeline's plain filters, never a
/// compound with another part, never a category that never loosens; the suggestion follows.
#[test]
fn prefix_rules_match_parsed_argv() {
    let grants: HashSet<String> = [prefix_key(&["cargo".into(), "test".into()])]
        .into_iter()
        .collect();
    let ctx = Context {
        agent: Agent::Build,
        mode: Mode::Ask,
        interactive: true,
        ceiling: Ceiling {
            write: true,
            process: true,
            external: true,
        },
        read_only: false,
        yolo: false,
        grants: &grants,
    };
    let label = |cmd: &str| {
        let a = analysis(cmd);
        decide(
            &ctx,
            &Proposal {
                origin: crate::Origin::Model,
                tool: "shell",
                effect: Effect::Process,
                paths: &[],
                command: Some(&a),
                command_text: Some(cmd),
                net: None,
                mcp: None,
            },
        )
        .label()
    };
    for cmd in [
        "cargo test",
        "cargo test -p x -- --nocapture",
        "cargo test 2>&1 | tail -5",
        "cargo test && cargo test --doc",
    ] {
        assert_eq!(label(cmd), D::Allow, "{cmd}");
    }
    for cmd in [
        "cargo testx",
        "cargo build",
        "cargo test; touch x",
        "cargo test && curl x",
        "timeout 5 cargo test",
        "cargo",
    ] {
        assert_eq!(label(cmd), D::Ask, "{cmd}");
    }
    let s = |cmd: &str| suggested_prefix(&analysis(cmd));
    assert_eq!(
        s("cargo test -p x"),
        Some(vec!["cargo".into(), "test".into()])
    );
    assert_eq!(
        s("npm run build 2>&1 | tail -3"),
        Some(vec!["npm".into(), "run".into(), "build".into()])
    );
    assert_eq!(
        s("python3 script.py"),
        Some(vec!["python3".into(), "script.py".into()])
    );
    assert_eq!(s("ls; touch x"), None, "two different programs");
    assert_eq!(
        s("rm -rf build"),
        None,
        "never for a category that never loosens"
    );
    assert_eq!(
        parse_prefix_key(&prefix_key(&["a b".into()])),
        Some(vec!["a b".to_string()])
    );
    assert_eq!(parse_prefix_key("prefix:[]"), None);
}

/// A private destination asks even in `full` mode with `--allow-external`; headless it is
/// denied; `--yolo`, a session grant of that origin, or an exempt (public) target allow it; the
/// plan agent and `--read-only` never reach the question. The query string is a warning.
#[test]
fn private_network_never_loosens_with_the_effect() {
    let private = NetUse {
        origin: "http://127.0.0.1:8080".into(),
        private: Some("127.0.0.1 (loopback)".into()),
        query: Some("token=abc".into()),
    };
    let public = NetUse {
        private: None,
        ..private.clone()
    };
    let external = Ceiling {
        external: true,
        ..Ceiling::default()
    };
    let decide_with = |net: &NetUse,
                       interactive: bool,
                       yolo: bool,
                       grants: &HashSet<String>,
                       agent: Agent,
                       read_only: bool| {
        let ctx = Context {
            agent,
            mode: Mode::Full,
            interactive,
            ceiling: external,
            read_only,
            yolo,
            grants,
        };
        decide(
            &ctx,
            &Proposal {
                origin: crate::Origin::Model,
                tool: "webfetch",
                effect: Effect::External,
                paths: &[],
                command: None,
                command_text: None,
                net: Some(net),
                mcp: None,
            },
        )
    };
    let none = HashSet::new();
    match decide_with(&private, true, false, &none, Agent::Build, false) {
        Decision::Ask(a) => {
            assert_eq!(a.key, net_key("http://127.0.0.1:8080"));
            assert!(a.reason.contains("127.0.0.1 (loopback)"), "{}", a.reason);
            assert!(a.warnings.iter().any(|w| w.contains("?token=abc")));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        decide_with(&private, false, false, &none, Agent::Build, false).label(),
        D::Deny
    );
    assert_eq!(
        decide_with(&private, true, true, &none, Agent::Build, false).label(),
        D::Allow
    );
    let granted: HashSet<String> = [net_key("http://127.0.0.1:8080")].into_iter().collect();
    assert_eq!(
        decide_with(&private, true, false, &granted, Agent::Build, false).label(),
        D::Allow
    );
    let other: HashSet<String> = [net_key("http://127.0.0.1:8081")].into_iter().collect();
    assert_eq!(
        decide_with(&private, true, false, &other, Agent::Build, false).label(),
        D::Ask
    );
    assert_eq!(
        decide_with(&public, true, false, &none, Agent::Build, false).label(),
        D::Allow
    );
    assert_eq!(
        decide_with(&public, false, false, &none, Agent::Build, false).label(),
        D::Allow
    );
    assert_eq!(
        decide_with(&private, true, false, &none, Agent::Plan, false).label(),
        D::Deny
    );
    assert_eq!(
        decide_with(&private, true, true, &none, Agent::Build, true).label(),
        D::Deny
    );
}

/// MCP never loosens: interactive, every call asks in `full` mode with every ceiling, until this
/// tool in this version is granted (a changed description or schema asks again); headless needs
/// `--allow-mcp` and `--allow-external`; `--yolo` allows; the server's hints are warnings only.
#[test]
fn mcp_tools_always_ask_and_grants_cover_one_version() {
    let tool = McpUse {
        server: "gh".into(),
        tool: "create_issue".into(),
        version: "0a1b2c3d".into(),
        headless_allowed: false,
        hints: vec!["read-only".into()],
    };
    let changed = McpUse {
        version: "ffffffff".into(),
        ..tool.clone()
    };
    let allowed_headless = McpUse {
        headless_allowed: true,
        ..tool.clone()
    };
    let all = Ceiling {
        write: true,
        process: true,
        external: true,
    };
    let decide_with =
        |m: &McpUse, interactive: bool, yolo: bool, ceiling: Ceiling, grants: &HashSet<String>| {
            let ctx = Context {
                agent: Agent::Build,
                mode: Mode::Full,
                interactive,
                ceiling,
                read_only: false,
                yolo,
                grants,
            };
            decide(
                &ctx,
                &Proposal {
                    origin: crate::Origin::Model,
                    tool: "mcp_gh_create_issue",
                    effect: Effect::External,
                    paths: &[],
                    command: None,
                    command_text: None,
                    net: None,
                    mcp: Some(m),
                },
            )
        };
    let none = HashSet::new();
    match decide_with(&tool, true, false, all, &none) {
        Decision::Ask(a) => {
            assert_eq!(a.key, mcp_key(&tool));
            assert!(a.reason.contains("MCP tools always ask"), "{}", a.reason);
            assert!(a.warnings.iter().any(|w| w.contains("read-only")));
        }
        other => panic!("{other:?}"),
    }
    let granted: HashSet<String> = [mcp_key(&tool)].into_iter().collect();
    assert_eq!(
        decide_with(&tool, true, false, all, &granted).label(),
        D::Allow
    );
    assert_eq!(
        decide_with(&changed, true, false, all, &granted).label(),
        D::Ask
    );
    assert_eq!(
        decide_with(&tool, true, true, Ceiling::default(), &none).label(),
        D::Allow
    );
    // Headless: --allow-mcp and --allow-external, both.
    assert_eq!(
        decide_with(&tool, false, false, all, &none).label(),
        D::Deny
    );
    assert_eq!(
        decide_with(&allowed_headless, false, false, all, &none).label(),
        D::Allow
    );
    assert_eq!(
        decide_with(&allowed_headless, false, false, Ceiling::default(), &none).label(),
        D::Deny
    );
}

/// A command given the user's SSH agent asks every time, even in `full` with a grant of its
/// prefix, and its key is once-only (never kept for the session); which commands speak SSH.
#[test]
fn the_ssh_agent_is_lent_per_command() {
    for (cmd, ssh) in [
        ("git push origin main", true),
        ("git fetch", true),
        ("ssh host uptime", true),
        ("rsync -a build/ host:/srv/", true),
        ("scp a host:b", true),
        ("ssh-add -l", true),
        ("git status", false),
        ("rsync -a a/ b/", false),
        ("cargo test", false),
    ] {
        assert_eq!(analysis(cmd).uses_ssh(), ssh, "{cmd}");
    }
    let full = Ceiling {
        write: true,
        process: true,
        external: true,
    };
    let cmd = "git push origin main";
    let mut a = analysis(cmd);
    a.ssh_agent = true;
    let granted: HashSet<String> = [
        "prefix:git push".to_string(),
        "effect:process".to_string(),
        "effect:external".to_string(),
    ]
    .into_iter()
    .collect();
    let p = Proposal {
        origin: crate::Origin::Model,
        tool: "shell",
        effect: Effect::Process,
        paths: &[],
        command: Some(&a),
        command_text: Some(cmd),
        net: None,
        mcp: None,
    };
    let ctx = Context {
        agent: Agent::Build,
        mode: Mode::Full,
        interactive: true,
        ceiling: full,
        read_only: false,
        yolo: false,
        grants: &granted,
    };
    match decide(&ctx, &p) {
        Decision::Ask(ask) => {
            assert!(ask.reason.contains("SSH keys"), "{}", ask.reason);
            let keys: Vec<&String> = ask
                .keys
                .iter()
                .filter(|k| k.starts_with("ssh-agent:"))
                .collect();
            assert!(
                !keys.is_empty()
                    && keys
                        .iter()
                        .all(|k| GrantKey::parse(k).is_some_and(|g| g.once_only())),
                "{:?}",
                ask.keys
            );
        }
        other => panic!("{other:?}"),
    }
    let headless = Context {
        interactive: false,
        ..ctx
    };
    assert_eq!(
        decide(&headless, &p).label(),
        D::Deny,
        "nobody can lend it headless"
    );
}

/// A `!command` the user typed (with `admin`) skips what asks only because a model might have
/// proposed it — the mode, the start flags, the categories that never loosen — and nothing else:
/// hard-denied paths, `--read-only` and the plan agent still refuse it.
#[test]
fn the_users_own_command_skips_only_what_asks_for_a_model() {
    let none = Ceiling {
        write: false,
        process: false,
        external: false,
    };
    let empty = HashSet::new();
    let ctx = |interactive, read_only, agent| Context {
        agent,
        mode: Mode::Ask,
        interactive,
        ceiling: none,
        read_only,
        yolo: false,
        grants: &empty,
    };
    let decide_as = |origin, cmd: &str, c: &Context<'_>| {
        let a = analysis(cmd);
        let p = Proposal {
            origin,
            tool: "shell",
            effect: Effect::Process,
            paths: &[],
            command: Some(&a),
            command_text: Some(cmd),
            net: None,
            mcp: None,
        };
        decide(c, &p)
    };
    for cmd in [
        "ls -la",
        "rm -rf build",
        "git status; curl http://x",
        "sudo ls",
    ] {
        for interactive in [true, false] {
            let c = ctx(interactive, false, Agent::Build);
            let d = decide_as(Origin::User, cmd, &c);
            assert_eq!(
                d.label(),
                D::Allow,
                "{cmd}, interactive {interactive}: {d:?}"
            );
            assert_ne!(
                decide_as(Origin::Model, cmd, &c).label(),
                D::Allow,
                "{cmd}: the model's call is not allowed"
            );
        }
    }
    match decide_as(Origin::User, "ls", &ctx(true, false, Agent::Build)) {
        Decision::Allow { reason, .. } => assert!(reason.contains("your own command"), "{reason}"),
        other => panic!("{other:?}"),
    }
    for cmd in [
        "cat ~/.ssh/id_rsa",
        "sqlite3 ~/.tradewind/tradewind.db .dump",
    ] {
        let d = decide_as(Origin::User, cmd, &ctx(true, false, Agent::Build));
        assert_eq!(d.label(), D::Deny, "{cmd}: hard-denied whoever typed it");
    }
    let d = decide_as(Origin::User, "ls", &ctx(true, true, Agent::Build));
    assert_eq!(d.label(), D::Deny, "--read-only");
    let d = decide_as(Origin::User, "ls", &ctx(true, false, Agent::Plan));
    assert_eq!(d.label(), D::Deny, "the plan agent");
}

/// A force push the model proposes asks every time, in `full` with the exact command and its
/// prefix granted, with a once-only key; the user's own runs; which pushes force.
#[test]
fn a_force_push_asks_whatever_was_granted() {
    for (cmd, force) in [
        ("git push --force origin main", true),
        ("git push -f", true),
        ("git push -uf origin x", true),
        ("git push --force-with-lease=main:abc origin main", true),
        ("git push origin +main", true),
        ("git push --delete origin old", true),
        ("git -C repo push --mirror", true),
        ("git push origin main", false),
        ("git push -u origin feature", false),
        ("git -C force push origin main", false),
        ("git fetch --force", false),
    ] {
        assert_eq!(analysis(cmd).force_push(), force, "{cmd}");
    }
    let full = Ceiling {
        write: true,
        process: true,
        external: true,
    };
    let cmd = "git push --force origin main";
    let a = analysis(cmd);
    let granted: HashSet<String> = [
        "prefix:git push".to_string(),
        GrantKey::Command(command_hash(cmd)).to_string(),
        "effect:process".to_string(),
        "effect:external".to_string(),
    ]
    .into_iter()
    .collect();
    let mut p = Proposal {
        origin: crate::Origin::Model,
        tool: "shell",
        effect: Effect::Process,
        paths: &[],
        command: Some(&a),
        command_text: Some(cmd),
        net: None,
        mcp: None,
    };
    let ctx = Context {
        agent: Agent::Build,
        mode: Mode::Full,
        interactive: true,
        ceiling: full,
        read_only: false,
        yolo: false,
        grants: &granted,
    };
    match decide(&ctx, &p) {
        Decision::Ask(ask) => {
            assert!(ask.reason.contains("force-push"), "{}", ask.reason);
            assert!(
                ask.keys
                    .iter()
                    .filter(|k| k.starts_with("force-push:"))
                    .all(|k| GrantKey::parse(k).is_some_and(|g| g.once_only())),
                "{:?}",
                ask.keys
            );
        }
        other => panic!("{other:?}"),
    }
    p.origin = crate::Origin::User;
    // The user's own force push is theirs (what else it writes still asks as it does).
    let d = decide(&ctx, &p);
    assert!(
        !format!("{d:?}").contains("force-push"),
        "the user's own: {d:?}"
    );
}
