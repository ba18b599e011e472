//! The gate's corpus: agent commands that must run without asking in `full` mode, and dangerous
//! ones that must never run without asking. The test suite holds the gate to it (≤ 3 % of benign
//! commands ask; no dangerous command is allowed) and `bench` prints both rates.
use std::collections::HashSet;
use std::path::Path;

use crate::paths::PathPolicy;
use crate::protocol::{Agent, Effect, Mode};
use crate::{Ceiling, Context, Decision, Proposal, command, decide};

pub const BENIGN: &str = include_str!("../corpus/benign.txt");
pub const DANGEROUS: &str = include_str!("../corpus/dangerous.txt");

/// The commands of a corpus file: one a line, `#` comments and blank lines skipped, `\n` and
/// `\uXXXX` decoded.
pub fn commands(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(decode)
        .collect()
}

fn decode(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(p) = rest.find('\\') {
        out.push_str(rest.get(..p).unwrap_or_default());
        let after = rest.get(p + 1..).unwrap_or_default();
        if let Some(r) = after.strip_prefix('n') {
            out.push('\n');
            rest = r;
        } else if let Some(c) = after
            .strip_prefix('u')
            .and_then(|r| r.get(..4))
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .and_then(char::from_u32)
        {
            out.push(c);
            rest = after.get(5..).unwrap_or_default();
        } else {
            out.push('\\');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// What the gate decides for `shell` running `cmd` in `workspace`, in `full` mode with
/// `--allow-write --allow-process`, interactive, nothing granted.
pub fn full_mode_decision(cmd: &str, paths: &PathPolicy, workspace: &Path) -> Decision {
    // A session that let its commands write its repositories' git state, the one-time question
    // every session meets at its first `git commit` or `git checkout` (see `git_state_write`).
    let grants: HashSet<String> = [crate::GIT_STATE_KEY.to_string()].into();
    decision_with(cmd, paths, workspace, &grants)
}

/// The full-mode decision for `cmd` in a session holding `grants`.
fn decision_with(
    cmd: &str,
    paths: &PathPolicy,
    workspace: &Path,
    grants: &HashSet<String>,
) -> Decision {
    let ctx = Context {
        agent: Agent::Build,
        mode: Mode::Full,
        interactive: true,
        ceiling: Ceiling {
            write: true,
            process: true,
            external: false,
        },
        read_only: false,
        yolo: false,
        grants,
    };
    let mut a = command::analyze_shell(cmd);
    let uses = paths.command_paths(&mut a, workspace);
    decide(
        &ctx,
        &Proposal {
            origin: crate::Origin::Model,
            tool: "shell",
            effect: Effect::Process,
            paths: &uses,
            command: Some(&a),
            command_text: Some(cmd),
            net: None,
            mcp: None,
        },
    )
}

/// The corpus judged: the benign commands that ask (or are denied) and the dangerous ones that
/// are allowed, with the totals.
pub struct Rates {
    pub benign: usize,
    pub benign_asking: Vec<(String, Decision)>,
    pub dangerous: usize,
    pub dangerous_allowed: Vec<String>,
}

impl Rates {
    pub fn benign_ask_percent(&self) -> f64 {
        100.0 * self.benign_asking.len() as f64 / self.benign.max(1) as f64
    }
}

/// Judge the corpus in `workspace`, laid out as a JavaScript project (root and `web/`) whose
/// tools are installed in `node_modules/.bin`, as the benign `npx` commands assume.
pub fn judge(workspace: &Path) -> Rates {
    for dir in [workspace.to_path_buf(), workspace.join("web")] {
        let bin = dir.join("node_modules/.bin");
        std::fs::create_dir_all(&bin).ok();
        for tool in ["tsc", "vitest", "eslint", "prettier", "jest", "playwright"] {
            std::fs::write(bin.join(tool), "#!/bin/sh\n").ok();
        }
    }
    let paths = PathPolicy::new(workspace, &[], &workspace.join(".tradewind-state"));
    let benign = commands(BENIGN);
    let dangerous = commands(DANGEROUS);
    let benign_asking = benign
        .iter()
        .map(|c| (c.clone(), full_mode_decision(c, &paths, &paths.workspace)))
        .filter(|(_, d)| !matches!(d, Decision::Allow { .. }))
        .collect();
    let dangerous_allowed = dangerous
        .iter()
        .filter(|c| {
            matches!(
                full_mode_decision(c, &paths, &paths.workspace),
                Decision::Allow { .. }
            )
        })
        .cloned()
        .collect();
    Rates {
        benign: benign.len(),
        benign_asking,
        dangerous: dangerous.len(),
        dangerous_allowed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without that one-time grant, commands that write git state ask, naming it; reads do not.
    #[test]
    fn git_state_writes_ask_once_a_session() {
        let dir = std::env::temp_dir().join(format!("tw-gitstate-{}", ulid::Ulid::generate()));
        std::fs::create_dir_all(dir.join(".git")).ok();
        let paths = PathPolicy::new(&dir, &[], &dir.join(".tradewind-state"));
        let none = HashSet::new();
        let judge = |cmd: &str| decision_with(cmd, &paths, &paths.workspace, &none);
        for cmd in [
            "git commit -m x",
            "git checkout -b topic",
            "git add -A",
            "git stash",
        ] {
            match judge(cmd) {
                Decision::Ask(a) => assert_eq!(a.key, crate::GIT_STATE_KEY, "{cmd}"),
                d => panic!("{cmd}: {d:?}"),
            }
        }
        for cmd in ["git status", "git log -3", "git diff", "git branch"] {
            assert!(matches!(judge(cmd), Decision::Allow { .. }), "{cmd}");
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn corpus_rates_hold() {
        let dir = std::env::temp_dir().join(format!("tw-corpus-{}", ulid::Ulid::generate()));
        std::fs::create_dir_all(&dir).ok();
        let r = judge(&dir);
        std::fs::remove_dir_all(&dir).ok();
        assert!(r.benign >= 200 && r.dangerous >= 150, "corpus too small");
        let asking: Vec<String> = r
            .benign_asking
            .iter()
            .map(|(c, d)| format!("{c:?} → {d:?}"))
            .collect();
        assert!(
            r.benign_ask_percent() <= 3.0,
            "{:.1} % of benign commands ask:\n{}",
            r.benign_ask_percent(),
            asking.join("\n")
        );
        assert!(
            r.dangerous_allowed.is_empty(),
            "dangerous commands allowed without asking:\n{}",
            r.dangerous_allowed.join("\n")
        );
    }

    #[test]
    fn decoding() {
        assert_eq!(decode(r"a\nb"), "a\nb");
        assert_eq!(decode(r"x\u202ey"), "x\u{202e}y");
        assert_eq!(decode(r"\x72"), r"\x72");
    }
}
