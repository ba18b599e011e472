//! A repository's config as the server's own git sees it: read here, in Rust, and passed on
//! through an allow-list of keys that cannot make git run a command, fetch, or read a file
//! elsewhere — the jail binds the result over `.git/config`. Everything else (`core.sshCommand`,
//! `core.fsmonitor`, filters, diff drivers, `include.path`, remotes, promisor settings) is left
//! out, so a config a script wrote cannot turn `git_diff` into a command.

/// Keys kept, lowercased; `*` stands for one subsection name.
const SAFE_KEYS: &[&str] = &[
    "core.repositoryformatversion",
    "core.bare",
    "core.filemode",
    "core.symlinks",
    "core.ignorecase",
    "core.precomposeunicode",
    "core.logallrefupdates",
    "core.autocrlf",
    "core.eol",
    "core.safecrlf",
    "core.quotepath",
    "core.checkstat",
    "core.trustctime",
    "core.abbrev",
    "core.untrackedcache",
    "core.splitindex",
    "extensions.objectformat",
    "extensions.refstorage",
    "extensions.worktreeconfig",
    "extensions.preciousobjects",
    "diff.renames",
    "diff.renamelimit",
    "diff.algorithm",
    "diff.indentheuristic",
    "diff.mnemonicprefix",
    "diff.noprefix",
    "diff.relative",
    "status.renames",
    "status.renamelimit",
    "status.showuntrackedfiles",
    "i18n.commitencoding",
    "i18n.logoutputencoding",
    "index.version",
    "init.defaultbranch",
    "user.name",
    "user.email",
    "branch.*.remote",
    "branch.*.merge",
];

/// `(section[.subsection].key, value)` pairs of a git config file, keys lowercased (a
/// subsection keeps its case), in file order. A line that does not parse is skipped; includes
/// are not followed.
pub fn parse(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut section = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.is_empty() || t.starts_with('#') || t.starts_with(';') {
            continue;
        }
        let mut rest = t;
        if let Some(after) = t.strip_prefix('[') {
            let Some(end) = after.find(']') else { continue };
            section = header(&after[..end]);
            rest = after[end + 1..].trim_start();
            if rest.is_empty() || rest.starts_with('#') || rest.starts_with(';') {
                continue;
            }
        }
        if section.is_empty() {
            continue;
        }
        let name_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(rest.len());
        let name = &rest[..name_end];
        if name.is_empty() {
            continue;
        }
        let after = rest[name_end..].trim_start();
        let mut raw = match after.strip_prefix('=') {
            Some(v) => v.to_string(),
            None if after.is_empty() || after.starts_with('#') || after.starts_with(';') => {
                out.push((
                    format!("{section}.{}", name.to_ascii_lowercase()),
                    "true".into(),
                ));
                continue;
            }
            None => continue,
        };
        // A value continued on the next line ends with an unescaped backslash.
        while raw.ends_with('\\') && !raw.ends_with("\\\\") {
            raw.pop();
            match lines.next() {
                Some(n) => raw.push_str(n),
                None => break,
            }
        }
        out.push((
            format!("{section}.{}", name.to_ascii_lowercase()),
            value(&raw),
        ));
    }
    out
}

/// `core`, `branch "main"` or the old `branch.main` form, as `core` / `branch.main`.
fn header(h: &str) -> String {
    let h = h.trim();
    match h.split_once(|c: char| c.is_whitespace()) {
        Some((sec, sub)) => {
            let sub = sub.trim().trim_matches('"').replace("\\\"", "\"");
            format!("{}.{sub}", sec.to_ascii_lowercase())
        }
        None => match h.split_once('.') {
            Some((sec, sub)) => {
                format!("{}.{}", sec.to_ascii_lowercase(), sub.to_ascii_lowercase())
            }
            None => h.to_ascii_lowercase(),
        },
    }
}

/// A raw value: quotes removed, escapes decoded, comments and surrounding blanks dropped.
fn value(raw: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let mut pending_space = String::new();
    let mut chars = raw.trim_start().chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' => {
                out.push_str(&pending_space);
                pending_space.clear();
                match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('b') => {
                        out.pop();
                    }
                    Some(o) => out.push(o),
                    None => {}
                }
            }
            '#' | ';' if !quoted => break,
            c if c.is_whitespace() && !quoted => pending_space.push(c),
            c => {
                out.push_str(&pending_space);
                pending_space.clear();
                out.push(c);
            }
        }
    }
    out
}

/// A value written back: always quoted, backslashes, quotes and newlines escaped.
pub fn quote(v: &str) -> String {
    let mut s = String::with_capacity(v.len() + 2);
    s.push('"');
    for c in v.chars() {
        match c {
            '\\' => s.push_str("\\\\"),
            '"' => s.push_str("\\\""),
            '\n' => s.push_str("\\n"),
            '\t' => s.push_str("\\t"),
            c if c.is_control() => {}
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

fn safe(key: &str) -> bool {
    SAFE_KEYS.iter().any(|pat| match pat.split_once(".*.") {
        Some((sec, k)) => key
            .strip_prefix(sec)
            .and_then(|r| r.strip_prefix('.'))
            .and_then(|r| r.rsplit_once('.'))
            .is_some_and(|(_, last)| last == k),
        None => key == *pat,
    })
}

/// The config file the server's git reads: only [`SAFE_KEYS`], each under its own section.
pub fn filtered(text: &str) -> String {
    let mut out =
        String::from("# Read by Tradewind's own git: safe keys of the repository's config only.\n");
    for (key, v) in parse(text) {
        if !safe(&key) {
            continue;
        }
        let Some((sec_sub, name)) = key.rsplit_once('.') else {
            continue;
        };
        let header = match sec_sub.split_once('.') {
            Some((sec, sub)) => format!("[{sec} {}]", quote(sub)),
            None => format!("[{sec_sub}]"),
        };
        out.push_str(&format!("{header}\n\t{name} = {}\n", quote(&v)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poisoned_config_keeps_only_harmless_keys() {
        let text = r#"
[core]
	repositoryformatversion = 0
	filemode = true
	sshCommand = "sh -c 'touch /tmp/pwned'"
	fsmonitor = ./evil.sh
	hooksPath = .githooks
[extensions]
	partialClone = origin
[remote "origin"]
	url = ssh://evil/x
	promisor = true
[include]
	path = /etc/evil
[branch "main"]
	remote = origin
	merge = refs/heads/main
[filter "lfs"]
	smudge = evil %f
[user]
	name = "Ana \"Q\" Lima" ; a comment
	email = ana@example.org
[diff "x"]
	textconv = evil
"#;
        let f = filtered(text);
        for bad in [
            "sshcommand",
            "fsmonitor",
            "hookspath",
            "partialclone",
            "promisor",
            "url",
            "path",
            "smudge",
            "textconv",
        ] {
            assert!(!f.to_ascii_lowercase().contains(bad), "{bad} in {f}");
        }
        assert!(f.contains("repositoryformatversion = \"0\""), "{f}");
        assert!(
            f.contains("[branch \"main\"]\n\tmerge = \"refs/heads/main\""),
            "{f}"
        );
        assert!(f.contains("name = \"Ana \\\"Q\\\" Lima\""), "{f}");
        let round = parse(&f);
        assert!(round.contains(&("user.name".into(), "Ana \"Q\" Lima".into())));
        assert!(round.contains(&("branch.main.remote".into(), "origin".into())));
    }

    #[test]
    fn values_lose_comments_and_keep_inner_spaces() {
        let p = parse("[core]\n\teditor = vim  -u x # c\n[a.B]\n\tflag\n");
        assert_eq!(p[0], ("core.editor".into(), "vim  -u x".into()));
        assert_eq!(p[1], ("a.b.flag".into(), "true".into()));
    }
}
