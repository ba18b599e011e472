//! The lists the whole gate shares: startup/autostart locations (a write to them always asks,
//! whether it comes from a file tool or a shell redirect) and the hard-deny directories (never
//! readable or writable, never askable). One list each, read by the path check, the command
//! check and, later, the process sandbox; a test pins that they agree.

/// File or directory names that run code at login or boot, matched against every component of a
/// path, lowercased.
#[rustfmt::skip]
pub const STARTUP_NAMES: &[&str] = &[
    ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv",
    ".zprofile", ".zlogin", ".zlogout", ".login", ".logout", ".cshrc", ".tcshrc", ".kshrc",
    ".mkshrc", ".xprofile", ".xinitrc", ".xsession", ".xsessionrc", ".pam_environment",
    ".inputrc", "config.fish", "autostart", "launchagents", "launchdaemons", "crontab", "rc.local",
];

/// Absolute path prefixes (lowercased) of system startup locations.
#[rustfmt::skip]
pub const STARTUP_PREFIXES: &[&str] = &[
    "/etc/rc", "/etc/init", "/etc/systemd", "/lib/systemd", "/usr/lib/systemd", "/etc/profile",
    "/etc/bash", "/etc/zsh", "/etc/csh", "/etc/environment", "/etc/cron", "/etc/anacrontab",
    "/var/spool/cron", "/etc/xdg/autostart", "/etc/ld.so.preload", "/etc/update-motd.d",
    "/etc/udev", "/library/startupitems",
];

/// Path fragments (lowercased) of per-user service and environment directories.
pub const STARTUP_FRAGMENTS: &[&str] = &[
    ".config/systemd",
    ".config/environment.d",
    ".local/share/systemd",
];

/// Directories that are never read or written, whatever is approved: a hard deny no answer
/// can lift.
pub const HARD_DENY_DIRS: &[&str] = &[".ssh", ".aws", ".gnupg", ".azure"];

/// Credential files by name, never read or written: login and token stores of git, curl, ftp,
/// PostgreSQL.
pub const HARD_DENY_FILES: &[&str] = &[".netrc", "_netrc", ".git-credentials", ".pgpass"];

/// Credential locations by path fragment (lowercased, `/`-separated): the GitHub CLI's token,
/// Docker's registry logins, kubeconfig, gcloud's credentials, Maven's repository passwords.
pub const HARD_DENY_FRAGMENTS: &[&str] = &[
    ".config/gh/",
    ".config/gh",
    ".docker/config.json",
    ".kube/config",
    ".config/gcloud",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
];

/// Is this (lowercased, `/`-separated) path one of the credential files or locations?
pub fn credential_location(lower: &str) -> bool {
    let last = lower.rsplit('/').next().unwrap_or(lower);
    if HARD_DENY_FILES.contains(&last) {
        return true;
    }
    // A fragment counts where a component starts, up to the end of one.
    let bytes = lower.as_bytes();
    let starts = std::iter::once(0).chain(
        bytes
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'/')
            .map(|(i, _)| i + 1),
    );
    for i in starts {
        let rest = lower.get(i..).unwrap_or_default();
        for f in HARD_DENY_FRAGMENTS {
            if rest.starts_with(f) {
                let end = i + f.len();
                if end == lower.len() || f.ends_with('/') || bytes.get(end) == Some(&b'/') {
                    return true;
                }
            }
        }
    }
    false
}

/// Private key file names, never read or written.
pub const HARD_DENY_NAMES: &[&str] = &[
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "id_ecdsa_sk",
    "id_ed25519_sk",
    "identity",
];

/// Private key and certificate extensions, never read or written.
pub const HARD_DENY_EXTS: &[&str] = &[
    "pem", "key", "p12", "pfx", "jks", "keystore", "crt", "cer", "der", "p8", "ppk",
];

/// Does a word of a command name a hard-denied path? A component in `HARD_DENY_DIRS`, Tradewind's
/// own `.tradewind` state directory, a private key's name or extension, or a process's
/// `/proc/…/environ` (the environment holds secrets). Lowercased, `/`-separated.
pub fn names_hard_denied_path(word: &str) -> bool {
    // Every word of every command comes through here: allocate only when the word needs it.
    let w = lowercase(word);
    let w = w.as_ref();
    let mut comps = w.split(['/', '\\']).filter(|c| !c.is_empty());
    let last = comps.clone().next_back().unwrap_or("");
    if w.starts_with("/proc/") && last == "environ" {
        return true;
    }
    let ext_denied = last
        .rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && HARD_DENY_EXTS.contains(&ext));
    let normal = !(w.starts_with('/') || w.ends_with('/') || w.contains("//") || w.contains('\\'));
    let joined: std::borrow::Cow<'_, str> = if normal {
        std::borrow::Cow::Borrowed(w)
    } else {
        std::borrow::Cow::Owned(comps.clone().collect::<Vec<_>>().join("/"))
    };
    credential_location(&joined)
        || comps.any(|c| HARD_DENY_DIRS.contains(&c) || c == ".tradewind")
        || HARD_DENY_NAMES.iter().any(|n| {
            last.strip_prefix(n)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        })
        || ext_denied
}

/// `s` lowercased, borrowed when it has no capital letter.
pub(crate) fn lowercase(s: &str) -> std::borrow::Cow<'_, str> {
    if s.bytes().any(|b| b.is_ascii_uppercase() || !b.is_ascii()) {
        std::borrow::Cow::Owned(s.to_lowercase())
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// Does this path name a startup or autostart location? `path` may be relative; `..` and `.`
/// are folded; a dotfile glob (`.bash*`) counts as one.
pub fn is_startup_location(path: &str) -> bool {
    let l = path.to_lowercase();
    let mut comps: Vec<&str> = Vec::new();
    for c in l.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                comps.pop();
            }
            c => comps.push(c),
        }
    }
    let joined = format!(
        "{}{}",
        if l.starts_with('/') { "/" } else { "" },
        comps.join("/")
    );
    let dot_glob = |c: &&str| c.starts_with('.') && c.contains(['*', '?', '[']);
    comps
        .iter()
        .any(|c| STARTUP_NAMES.contains(c) || dot_glob(c))
        || STARTUP_PREFIXES.iter().any(|b| joined.starts_with(b))
        || STARTUP_FRAGMENTS.iter().any(|b| joined.contains(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hard_denied_words() {
        for w in [
            "~/.ssh/id_rsa",
            "$HOME/.aws/credentials",
            "/home/u/.gnupg",
            "server.pem",
            "id_ed25519.pub",
            "/proc/self/environ",
            "/proc/1/environ",
            "~/.tradewind/tradewind.db",
            "C:\\Users\\u\\.ssh\\x",
            "~/.netrc",
            "/home/u/.git-credentials",
            "~/.config/gh/hosts.yml",
            "~/.docker/config.json",
            "~/.kube/config",
            "~/.config/gcloud/credentials.db",
            "~/.azure/accessTokens.json",
            ".pgpass",
        ] {
            assert!(names_hard_denied_path(w), "{w}");
        }
        for w in [
            "credentials",
            "src/credentials.rs",
            "README.md",
            "keys.rs",
            ".key",
            "cargo",
            "/proc/cpuinfo",
            "monkey",
            "src/config.json",
            "kube/configs",
            "docs/gh.md",
        ] {
            assert!(!names_hard_denied_path(w), "{w}");
        }
    }
    use crate::command::{Danger, analyze_shell};
    use std::path::Path;

    /// The file tools and a shell redirect agree on every startup location: both ask.
    #[test]
    fn file_tools_and_shell_redirects_share_one_startup_list() {
        let mut paths: Vec<String> = STARTUP_NAMES
            .iter()
            .map(|n| format!("/home/u/{n}"))
            .collect();
        paths.extend(STARTUP_PREFIXES.iter().map(|p| format!("{p}x")));
        paths.extend(STARTUP_FRAGMENTS.iter().map(|f| format!("/home/u/{f}/x")));
        for p in &paths {
            assert!(
                crate::always_ask_path(Path::new(p)).is_some(),
                "write_file to {p} must ask"
            );
            let a = analyze_shell(&format!("echo x > {p}"));
            assert!(
                a.dangers.contains(&Danger::BootAutostart),
                "a redirect to {p} must be a startup write"
            );
        }
        for p in ["/home/u/project/src/main.rs", "/home/u/notes.txt"] {
            assert!(crate::always_ask_path(Path::new(p)).is_none(), "{p}");
            assert!(!is_startup_location(p), "{p}");
        }
    }
}
