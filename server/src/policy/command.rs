//! Static classification of a command an agent wants to run, for the permission gate.
//!
//! Why: the path deny list cannot see inside a shell command (SECURITY.md rule 5), and the attacks
//! in SECURITY.md E2/E3 all smuggle a second effect past a prefix that looks harmless
//! (`git status; curl x`, `$'\x3b'`, `env X=1 curl`, `git -c core.pager=…`, `cd /tmp && touch x`).
//! Five categories never loosen, not even in "full" mode (only `--yolo` skips them): deleting
//! recursively, reaching the network, becoming administrator, installing packages and touching
//! what runs at boot or login. Two more make the command ask as well: `Opaque` (we cannot
//! statically know what it does) and `OutsideCwd` (it writes outside the working directory).
//!
//! The classifier fails closed: any shell construct it does not fully model (chaining, expansion,
//! substitution, redirection to a file, here-documents, inline code for an interpreter, control
//! or invisible characters, …) is `Opaque`, and it only ever *adds* findings, so a clean result
//! means "a single simple command of a kind we understand", never "safe". It is evidence for the
//! approval prompt, not a sandbox: scripts, Makefiles and npm scripts still run whatever the
//! project says, symlinks are not resolved, and it must not be used to *lower* a decision.
//! Only `std`, no panics on any input (it reads model-written strings), bounded recursion.
use std::collections::BTreeSet;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Danger {
    /// rm -r/-R/--recursive, rm of `/`, `~` or a glob at the root, find -delete, shred, git clean -f,
    /// git rm -r, rsync --delete, mkfs/wipefs. Plain `rm file` and `rmdir -p` (empty dirs) are not.
    RecursiveDelete,
    /// curl, wget, ssh, scp, nc, …, git clone/fetch/pull/push/…, URLs given to a program, http servers.
    Network,
    /// sudo, su, doas, pkexec, run0, chown root, setuid/setgid chmod, mount, systemctl start, …
    Admin,
    /// System and language package managers installing or fetching-and-running packages.
    PackageInstall,
    /// Shell startup files, autostart dirs, /etc/rc*, systemd units, cron, launchd, at.
    BootAutostart,
    /// Cannot be statically understood (chaining, expansion, substitution, inline code, …).
    Opaque,
    /// Writes or works outside the working directory by its own flags or paths.
    OutsideCwd,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandAnalysis {
    /// Sorted, deduplicated.
    pub dangers: Vec<Danger>,
    /// Human-readable reasons, one per finding, for the approval prompt (already made visible).
    pub reasons: Vec<String>,
    /// Words mentioning sensitive locations (~/.ssh, ~/.aws, keys, credentials, .tradewind, …).
    pub sensitive_mentions: Vec<String>,
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

/// Render a command for display with control and invisible characters made visible.
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

fn is_invisible(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(c as u32, 0xAD | 0x34F | 0x61C | 0x115F | 0x1160 | 0x17B4 | 0x17B5
            | 0x180B..=0x180E | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0x3164
            | 0xFE00..=0xFE0F | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFFB | 0xE0000..=0xE0FFF
            | 0xA0 | 0x1680 | 0x2000..=0x200A | 0x2028 | 0x2029 | 0x205F | 0x3000)
}

/// Quote a fragment for a reason: visible, backticked, truncated.
fn q(s: &str) -> String {
    let t: String = s.chars().take(60).collect();
    let more = if s.chars().nth(60).is_some() { "…" } else { "" };
    format!("`{}{more}`", visible(&t))
}

#[derive(Default)]
struct Acc {
    dangers: BTreeSet<Danger>,
    reasons: Vec<String>,
    mentions: Vec<String>,
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
            self.flag(Danger::Opaque, "it contains control or invisible characters (shown as ⏎, ␛ or <U+…>)");
        }
    }
    fn mentions(&mut self, s: &str) {
        for piece in s.split(|c: char| c.is_whitespace() || "'\"=;|&<>()`,:".contains(c)) {
            if self.mentions.len() >= MAX_MENTIONS {
                return;
            }
            let l = piece.to_lowercase();
            if l.split(['/', '\\']).any(sensitive) {
                let shown: String = visible(&piece.chars().take(120).collect::<String>());
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
            has_control_chars: self.control,
        }
    }
}

fn sensitive(c: &str) -> bool {
    matches!(c, ".ssh" | ".aws" | ".gnupg" | ".tradewind" | ".netrc" | "_netrc" | ".pgpass" | ".git-credentials")
        || ["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"].iter().any(|k| c.starts_with(k))
        || c.contains("credentials")
        || [".pem", ".key", ".p12", ".pfx"].iter().any(|e| c.ends_with(e))
}

// ---------------------------------------------------------------- shell lexer

#[derive(Default)]
struct Word {
    text: String,
    quoted: bool,
    glob: bool,
    unknown: bool,
    assign: bool,
}

#[derive(Clone, Copy)]
enum Redir {
    Out,
    Dup,
    In,
}

struct Lexer<'a> {
    a: &'a mut Acc,
    depth: u8,
    segs: Vec<Vec<Word>>,
    cur: Vec<Word>,
    w: Word,
    in_word: bool,
    pending: Option<Redir>,
}

fn shell_into(src: &str, a: &mut Acc, depth: u8) {
    let cs: Vec<char> = src.chars().collect();
    let mut lx = Lexer { a, depth, segs: Vec::new(), cur: Vec::new(), w: Word::default(), in_word: false, pending: None };
    lx.run(&cs);
    let Lexer { a, segs, .. } = lx;
    for seg in &segs {
        let mut k = 0;
        while let Some(w) = seg.get(k).filter(|w| w.assign) {
            let name = w.text.split('=').next().unwrap_or_default();
            a.flag(Danger::Opaque, format!("it sets {} for the command, which can change what runs", q(name)));
            k += 1;
        }
        let Some(first) = seg.get(k) else { continue };
        if first.unknown || first.glob || (first.text.starts_with('~') && !first.quoted) {
            a.flag(Danger::Opaque, format!("the program name {} comes from an expansion", q(&first.text)));
        }
        let argv: Vec<String> = seg.iter().skip(k).map(|w| w.text.clone()).collect();
        classify(&argv, a, depth);
    }
}

fn find(cs: &[char], from: usize, ch: char) -> Option<usize> {
    cs.get(from..)?.iter().position(|&x| x == ch).map(|p| p + from)
}

fn is_name(s: &str) -> bool {
    let mut it = s.chars();
    it.next().is_some_and(|c| c == '_' || c.is_ascii_alphabetic()) && it.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

impl Lexer<'_> {
    fn push(&mut self, c: char) {
        self.in_word = true;
        self.w.text.push(c);
    }
    fn quote(&mut self) {
        self.in_word = true;
        self.w.quoted = true;
    }
    fn opaque(&mut self, why: &str) {
        self.a.flag(Danger::Opaque, why);
    }
    fn word(&mut self) {
        if !std::mem::take(&mut self.in_word) {
            return;
        }
        let w = std::mem::take(&mut self.w);
        self.a.mentions(&w.text);
        let t = w.text.as_str();
        let ok = match self.pending.take() {
            None => {
                self.cur.push(w);
                return;
            }
            Some(Redir::In) => true,
            Some(Redir::Out) => matches!(t, "/dev/null" | "/dev/stdout" | "/dev/stderr"),
            Some(Redir::Dup) => t == "-" || (!t.is_empty() && t.chars().all(|c| c.is_ascii_digit())),
        };
        if !ok {
            self.a.flag(Danger::Opaque, format!("it redirects output to the file {}", q(t)));
            write_checks(self.a, "the redirection", t);
        }
    }
    fn segment(&mut self) {
        self.word();
        if self.pending.take().is_some() {
            self.opaque("a redirection has no target");
        }
        if !self.cur.is_empty() {
            self.segs.push(std::mem::take(&mut self.cur));
        }
    }
    fn run(&mut self, cs: &[char]) {
        let mut i = 0;
        let mut dq = false;
        while let Some(&c) = cs.get(i) {
            i += 1;
            if dq {
                match c {
                    '"' => dq = false,
                    '\\' => match cs.get(i) {
                        Some(&n) if matches!(n, '$' | '`' | '"' | '\\') => {
                            self.push(n);
                            i += 1;
                        }
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
                '\n' | ';' | '&' | '|' => {
                    self.opaque("it chains several commands (`;` `&&` `||` `|` `&` or a newline)");
                    self.segment();
                }
                '(' | ')' => {
                    self.opaque("it uses a subshell `( )`");
                    self.segment();
                }
                '\'' => {
                    self.quote();
                    match find(cs, i, '\'') {
                        Some(j) => {
                            self.w.text.extend(cs.get(i..j).unwrap_or_default());
                            i = j + 1;
                        }
                        None => {
                            self.opaque(UNBALANCED);
                            i = cs.len();
                        }
                    }
                }
                '"' => {
                    self.quote();
                    dq = true;
                }
                '\\' => match cs.get(i) {
                    None => self.opaque("it ends with a dangling backslash"),
                    Some(&'\n') => i += 1,
                    Some(&n) => {
                        self.quote();
                        self.push(n);
                        i += 1;
                    }
                },
                '#' if !self.in_word => {
                    while cs.get(i).is_some_and(|&x| x != '\n') {
                        i += 1;
                    }
                }
                '`' => i = self.backtick(cs, i),
                '$' => i = self.dollar(cs, i, false),
                '<' | '>' => i = self.redirect(cs, i, c),
                '{' | '}' => {
                    self.opaque("it uses braces `{ }` (grouping or brace expansion)");
                    self.push(c);
                }
                '*' | '?' | '[' => {
                    self.w.glob = true;
                    self.push(c);
                }
                '=' => {
                    if !self.w.quoted && !self.w.unknown && is_name(&self.w.text) {
                        self.w.assign = true;
                    }
                    self.push(c);
                }
                _ => self.push(c),
            }
        }
        if dq {
            self.opaque(UNBALANCED);
        }
        self.segment();
    }
    /// `i` points just after `$`.
    fn dollar(&mut self, cs: &[char], i: usize, dq: bool) -> usize {
        match cs.get(i) {
            Some(&'(') => self.subst(cs, i + 1, "it uses command substitution `$( )`"),
            Some(&'{') => match find(cs, i + 1, '}') {
                Some(j) => {
                    let inner: String = cs.get(i + 1..j).unwrap_or_default().iter().collect();
                    self.var(&inner);
                    j + 1
                }
                None => {
                    self.opaque(UNBALANCED);
                    cs.len()
                }
            },
            Some(&'\'') if !dq => {
                self.opaque("it uses ANSI-C quoting `$'…'`, which can hide any character");
                self.quote();
                self.w.unknown = true;
                let mut j = i + 1;
                while let Some(&c) = cs.get(j) {
                    match c {
                        '\\' => j += 2,
                        '\'' => return j + 1,
                        _ => j += 1,
                    }
                }
                self.opaque(UNBALANCED);
                cs.len()
            }
            Some(&'"') if !dq => {
                self.opaque("it uses locale quoting `$\"…\"`");
                i
            }
            Some(&c) if c == '_' || c.is_ascii_alphabetic() => {
                let mut j = i;
                while cs.get(j).is_some_and(|&c| c == '_' || c.is_ascii_alphanumeric()) {
                    j += 1;
                }
                let name: String = cs.get(i..j).unwrap_or_default().iter().collect();
                self.var(&name);
                j
            }
            Some(&c) if c.is_ascii_digit() || "@*#?$!-".contains(c) => {
                self.var(&c.to_string());
                i + 1
            }
            _ => {
                self.push('$');
                i
            }
        }
    }
    fn var(&mut self, name: &str) {
        if name == "HOME" {
            self.push('~');
        } else {
            self.a.flag(Danger::Opaque, format!("it expands the variable {}", q(&format!("${name}"))));
            self.w.unknown = true;
            self.w.text.push('$');
            self.w.text.push_str(name);
            self.in_word = true;
        }
    }
    /// `from` points just after the opening `(`.
    fn subst(&mut self, cs: &[char], from: usize, why: &str) -> usize {
        self.opaque(why);
        self.w.unknown = true;
        self.w.text.push_str("$(…)");
        self.in_word = true;
        let mut d = 1usize;
        let mut j = from;
        while let Some(&c) = cs.get(j) {
            match c {
                '\\' => j += 1,
                '\'' => j = find(cs, j + 1, '\'').unwrap_or(cs.len()),
                '(' => d += 1,
                ')' => {
                    d -= 1;
                    if d == 0 {
                        self.inner(cs, from, j);
                        return j + 1;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        self.opaque(UNBALANCED);
        cs.len()
    }
    fn backtick(&mut self, cs: &[char], i: usize) -> usize {
        self.opaque("it uses backtick command substitution");
        self.w.unknown = true;
        self.w.text.push_str("`…`");
        self.in_word = true;
        let mut j = i;
        while let Some(&c) = cs.get(j) {
            match c {
                '\\' => j += 2,
                '`' => {
                    self.inner(cs, i, j);
                    return j + 1;
                }
                _ => j += 1,
            }
        }
        self.opaque(UNBALANCED);
        cs.len()
    }
    /// Best-effort look inside a substitution, so the prompt can say what it would do.
    fn inner(&mut self, cs: &[char], from: usize, to: usize) {
        if self.depth < MAX_DEPTH {
            let inner: String = cs.get(from..to).unwrap_or_default().iter().collect();
            shell_into(&inner, self.a, self.depth + 1);
        }
    }
    /// `i` points just after `<` or `>`.
    fn redirect(&mut self, cs: &[char], mut i: usize, c: char) -> usize {
        let fd = !self.w.quoted && !self.w.text.is_empty() && self.w.text.chars().all(|d| d.is_ascii_digit());
        if self.in_word && fd {
            self.w = Word::default();
            self.in_word = false;
        } else {
            self.word();
        }
        if self.pending.take().is_some() {
            self.opaque("a redirection has no target");
        }
        let kind = match (c, cs.get(i).copied()) {
            (_, Some('(')) => return self.subst(cs, i + 1, "it uses process substitution `<( )`"),
            ('<', Some('<')) => {
                self.opaque("it uses a here-document or here-string");
                i += 1;
                Redir::In
            }
            ('<', Some('>')) => {
                i += 1;
                Redir::Out
            }
            (_, Some('&')) => {
                i += 1;
                Redir::Dup
            }
            ('>', Some('>' | '|')) => {
                i += 1;
                Redir::Out
            }
            ('>', _) => Redir::Out,
            _ => Redir::In,
        };
        self.pending = Some(kind);
        i
    }
}

// ---------------------------------------------------------------- program classification

const WRAPPERS: &[(&str, &[&str])] = &[
    ("nice", &["-n", "--adjustment"]),
    ("nohup", &[]),
    ("time", &["-f", "--format", "-o", "--output"]),
    ("command", &[]),
    ("stdbuf", &["-i", "-o", "-e", "--input", "--output", "--error"]),
    ("ionice", &["-c", "-n", "--class", "--classdata"]),
    ("busybox", &[]),
    ("exec", &["-a"]),
    ("timeout", &["-s", "--signal", "-k", "--kill-after"]),
    ("sudo", &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "--user", "--group", "--chdir", "--host", "--prompt", "--role", "--type", "--other-user", "--close-from", "--command-timeout"]),
    ("doas", &["-u", "-C"]),
    ("pkexec", &["--user"]),
    ("run0", &["-u", "--user", "-g", "--group", "-D", "--chdir", "--unit", "--property", "--description", "--slice", "--nice", "--setenv", "--machine"]),
    ("env", &["-u", "--unset", "-C", "--chdir", "-S", "--split-string"]),
    ("xargs", &["-I", "-n", "-L", "-P", "-d", "-E", "-s", "-a", "--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-lines", "--replace", "--eof", "--max-chars", "--process-slot-var"]),
];
const NET: &[&str] = &["curl", "wget", "ssh", "scp", "sftp", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "lftp", "tftp", "aria2c", "axel", "http", "https", "xh", "mosh", "sshpass", "torsocks", "proxychains", "proxychains4", "nmap", "ping", "ping6", "dig", "nslookup", "host", "whois", "traceroute", "tracepath", "mtr", "gh", "glab", "hub", "aws", "gcloud", "gsutil", "az", "ngrok", "cloudflared", "tailscale", "websocat", "wscat", "ssh-copy-id", "ssh-keyscan", "mail", "sendmail", "mutt", "svn", "ollama", "kubectl", "helm", "terraform", "ansible", "ansible-playbook", "twine", "yt-dlp", "youtube-dl"];
const ADMIN: &[&str] = &["su", "runuser", "chroot", "sudoedit", "visudo", "passwd", "chpasswd", "useradd", "usermod", "userdel", "groupadd", "groupmod", "groupdel", "adduser", "deluser", "gpasswd", "setcap", "mount", "umount", "modprobe", "insmod", "rmmod", "sysctl", "iptables", "ip6tables", "nft", "ufw", "firewall-cmd", "reboot", "shutdown", "poweroff", "halt", "init", "telinit", "fdisk", "sfdisk", "parted", "swapon", "swapoff", "losetup", "cryptsetup", "dmsetup", "service", "newgrp", "sg"];
const OPAQUE_PROGS: &[&str] = &["eval", "source", ".", "alias", "unalias", "trap", "set", "shopt", "export", "declare", "typeset", "readonly", "local", "builtin", "enable", "hash", "fc", "coproc", "function", "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "in", "select", "!", "{", "}", "[[", "]]", "parallel", "watch", "flock", "script", "expect", "strace", "ltrace", "gdb", "lldb", "valgrind", "perf", "setsid", "unshare", "nsenter", "firejail", "bwrap", "systemd-run", "entr", "nix-shell", "direnv", "unbuffer", "taskset", "chrt", "tmux", "screen", "dbus-launch", "xvfb-run", "faketime", "chpst", "at", "batch", "docker", "podman", "nerdctl"];
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "tcsh", "csh", "ash", "yash", "rbash", "posh"];
/// Programs that only read or print: no URL, boot-file or directory-flag findings for them.
const TEXT_ONLY: &[&str] = &["cat", "less", "more", "head", "tail", "grep", "egrep", "fgrep", "rg", "ag", "ack", "ls", "stat", "file", "wc", "diff", "cmp", "echo", "printf", "md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum", "realpath", "readlink", "basename", "dirname", "test", "[", "true", "false", "jq", "bat", "du", "df", "which", "type", "whereis", "column", "nl", "od", "xxd", "hexdump", "strings", "man", "pwd", "whoami", "id", "date", "uname"];
const WRITERS: &[&str] = &["touch", "cp", "mv", "mkdir", "tee", "ln", "link", "rm", "rmdir", "unlink", "dd", "install", "chmod", "chown", "chgrp", "truncate", "shred", "tar", "unzip", "cpio", "patch", "split", "csplit", "mkfifo", "mknod", "setfacl", "chattr", "rsync", "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "7z", "ar", "zip", "uniq", "sudoedit"];
/// Options whose value is a directory or output the program works in.
const DIR_OPTS: &[&str] = &["-C", "--directory", "--cwd", "--prefix", "--dir", "--work-tree", "--git-dir", "-o", "--output", "--out-dir", "--output-dir", "--outdir", "--target-dir", "--root", "--install-dir", "--destination", "--dest"];
const URLS: &[&str] = &["http://", "https://", "ftp://", "ftps://", "ssh://", "sftp://", "scp://", "git://", "rsync://", "ws://", "wss://", "telnet://", "s3://", "gs://", "tftp://", "dict://", "gopher://", "smb://", "ldap://"];
const PM_VALS: &[&str] = &["-C", "--prefix", "--cwd", "--dir", "--color", "--config", "-Z", "--filter", "-F", "-w", "--workspace", "--registry", "--directory", "--project", "--loglevel"];
const YUM: &[&str] = &["install", "reinstall", "upgrade", "update", "groupinstall", "localinstall", "downgrade", "distro-sync", "swap"];
const CONDA: &[&str] = &["install", "create", "update", "env"];
const NPM: &[&str] = &["install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall", "add", "ci", "install-test", "it", "install-ci-test", "cit", "update", "up", "upgrade", "udpate", "exec", "x", "create"];
const PKG: &[(&str, &[&str])] = &[
    ("apt", &["install", "reinstall", "upgrade", "full-upgrade", "dist-upgrade", "build-dep", "satisfy", "source"]),
    ("apt-get", &["install", "reinstall", "upgrade", "dist-upgrade", "build-dep", "source"]),
    ("aptitude", &["install", "reinstall", "upgrade", "safe-upgrade", "full-upgrade"]),
    ("yum", YUM), ("dnf", YUM), ("microdnf", YUM), ("tdnf", YUM),
    ("zypper", &["install", "in", "update", "up", "dist-upgrade", "dup", "source-install", "si"]),
    ("apk", &["add", "upgrade", "fix"]),
    ("brew", &["install", "reinstall", "upgrade", "tap", "bundle"]),
    ("port", &["install", "upgrade"]), ("snap", &["install", "refresh"]), ("flatpak", &["install", "update"]),
    ("pkg", &["install", "add", "upgrade"]), ("choco", &["install", "upgrade"]), ("winget", &["install", "upgrade"]), ("scoop", &["install", "update"]),
    ("nix", &["profile", "run", "shell", "develop"]),
    ("pip", &["install"]), ("pipx", &["install", "run", "inject", "upgrade", "reinstall", "upgrade-all", "reinstall-all"]),
    ("npm", NPM), ("pnpm", &["install", "i", "add", "update", "up", "upgrade", "dlx", "create"]),
    ("yarn", &["add", "install", "up", "upgrade", "dlx", "create", "global", "upgrade-interactive"]),
    ("bun", &["install", "i", "add", "a", "x", "update", "create", "upgrade"]),
    ("cargo", &["install", "add", "binstall"]), ("gem", &["install", "update"]), ("bundle", &["install", "add", "update"]),
    ("go", &["install", "get"]), ("composer", &["require", "install", "update", "global", "create-project"]),
    ("deno", &["install", "add"]), ("rustup", &["install", "update", "toolchain", "component", "target"]),
    ("poetry", &["add", "install", "update", "self"]), ("pdm", &["add", "install", "update", "sync"]),
    ("conda", CONDA), ("mamba", CONDA), ("micromamba", CONDA),
    ("asdf", &["install", "plugin"]), ("mise", &["install", "use", "plugins"]), ("nvm", &["install"]), ("dotnet", &["add", "tool", "restore"]),
    ("luarocks", &["install"]), ("opam", &["install"]), ("cabal", &["install"]), ("stack", &["install"]),
];
const NET_VERBS: &[(&str, &[&str])] = &[
    ("pip", &["download", "wheel", "index", "search"]),
    ("cargo", &["fetch", "publish", "search", "login", "owner", "yank"]),
    ("npm", &["publish", "login", "adduser", "view", "info", "show", "search", "ping", "audit", "outdated", "unpublish", "deprecate", "dist-tag", "owner", "access", "token", "whoami"]),
    ("pnpm", &["publish", "audit", "outdated"]), ("yarn", &["publish", "info", "npm", "audit", "outdated"]),
    ("gem", &["push", "fetch", "search", "owner", "yank", "signin"]), ("go", &["mod"]),
    ("hg", &["clone", "pull", "push", "incoming", "outgoing", "fetch"]),
    ("openssl", &["s_client", "s_server", "s_time", "ocsp"]), ("apt", &["update", "download"]), ("apt-get", &["update", "download"]),
];
const BOOT_FILES: &[&str] = &[".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".login", ".logout", ".cshrc", ".tcshrc", ".kshrc", ".mkshrc", ".xprofile", ".xinitrc", ".xsession", ".xsessionrc", ".pam_environment", "config.fish", "autostart", "launchagents", "launchdaemons", "crontab", "rc.local"];
const BOOT_PREFIX: &[&str] = &["/etc/rc", "/etc/init", "/etc/systemd", "/lib/systemd", "/usr/lib/systemd", "/etc/profile", "/etc/bash", "/etc/zsh", "/etc/csh", "/etc/environment", "/etc/cron", "/etc/anacrontab", "/var/spool/cron", "/etc/xdg/autostart", "/etc/ld.so.preload", "/etc/update-motd.d", "/etc/udev", "/library/startupitems"];
const BOOT_CONTAINS: &[&str] = &[".config/systemd", ".config/environment.d", ".local/share/systemd", ".config/fish/"];
const SAFE_DEV: &[&str] = &["/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/stdout", "/dev/stderr"];

fn has(args: &[String], list: &[&str]) -> bool {
    args.iter().any(|x| list.contains(&x.as_str()))
}

/// A single-dash option cluster (`-rf`) containing one of `letters`.
fn short_has(x: &str, letters: &str) -> bool {
    x.strip_prefix('-').is_some_and(|r| !r.starts_with('-') && r.chars().any(|c| letters.contains(c)))
}

/// Index of the first operand, skipping options (and the values of those in `vals`) and `--`.
fn next_prog(args: &[String], vals: &[&str]) -> Option<usize> {
    let mut k = 0;
    while let Some(x) = args.get(k) {
        if x == "--" {
            return (k + 1 < args.len()).then_some(k + 1);
        }
        if x.len() > 1 && x.starts_with('-') {
            k += if vals.contains(&x.as_str()) { 2 } else { 1 };
        } else {
            return Some(k);
        }
    }
    None
}

fn first_pos<'s>(args: &'s [String], vals: &[&str]) -> Option<&'s str> {
    next_prog(args, vals).and_then(|j| args.get(j)).map(String::as_str)
}

fn prog_name(p: &str) -> String {
    let l = p.rsplit('/').next().unwrap_or(p).to_lowercase();
    l.strip_suffix(".exe").map(str::to_string).unwrap_or(l)
}

/// `python3.11` → `python`, `pip3` → `pip`.
fn fam(n: &str) -> &str {
    n.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
}

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

/// Wrappers return where the wrapped command starts; anything else is classified here.
fn step(n: &str, args: &[String], a: &mut Acc, depth: u8) -> Option<usize> {
    use Danger::*;
    let Some((_, vals)) = WRAPPERS.iter().find(|(w, _)| *w == n) else {
        terminal(n, args, a, depth);
        return None;
    };
    // Only the leading options: scanning every argument at each wrapper level would be quadratic.
    let lead = args.get(..args.iter().take(8).take_while(|x| x.starts_with('-')).count()).unwrap_or_default();
    match n {
        "sudo" | "doas" | "pkexec" | "run0" => a.flag(Admin, format!("{} runs the command as administrator", q(n))),
        "env" => a.flag(Opaque, "`env` can change the environment and `PATH`, and so what runs"),
        "xargs" => a.flag(Opaque, "`xargs` builds commands from its input"),
        "exec" => a.flag(Opaque, "`exec` replaces the shell"),
        "command" if lead.iter().any(|x| short_has(x, "vV")) => return None,
        "ionice" if has(lead, &["-p", "--pid", "-P", "--pgid", "-u", "--uid"]) => return None,
        _ => {}
    }
    let mut j = next_prog(args, vals)?;
    if n == "timeout" {
        j += 1;
    }
    while n == "env" && args.get(j).is_some_and(|x| x.contains('=')) {
        j += 1;
    }
    Some(j)
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
            c if c.starts_with('.') && c.contains(['*', '?', '[']) => return true,
            _ => d += 1,
        }
    }
    false
}

enum Tok {
    Star,
    Any,
    Ch(char),
}

/// Tokenise a glob once (`[…]` counts as any one character); linear in the pattern length.
fn glob_tokens(pat: &str) -> Vec<Tok> {
    let pc: Vec<char> = pat.chars().collect();
    let last_close = pc.iter().rposition(|&c| c == ']');
    let mut toks = Vec::new();
    let mut k = 0;
    while let Some(&c) = pc.get(k) {
        toks.push(match c {
            '*' => Tok::Star,
            '?' => Tok::Any,
            '[' if last_close.is_some_and(|l| l >= k + 2) => match find(&pc, k + 2, ']') {
                Some(e) => {
                    k = e;
                    Tok::Any
                }
                None => Tok::Ch('['),
            },
            c => Tok::Ch(c),
        });
        k += 1;
    }
    toks
}

/// Does the (possibly globbing) path component `pat` match any of `names`?
fn glob_any(pat: &str, names: &[&str]) -> bool {
    if !pat.contains(['*', '?', '[']) {
        return names.contains(&pat);
    }
    let toks = glob_tokens(pat);
    let fixed = toks.iter().filter(|t| !matches!(t, Tok::Star)).count();
    names.iter().any(|name| {
        let n: Vec<char> = name.chars().collect();
        fixed <= n.len() && glob_match(&toks, &n)
    })
}

fn glob_match(toks: &[Tok], n: &[char]) -> bool {
    let (mut i, mut j, mut star, mut mark) = (0usize, 0usize, None::<usize>, 0usize);
    while let Some(&nc) = n.get(j) {
        match toks.get(i) {
            Some(Tok::Star) => {
                star = Some(i);
                mark = j;
                i += 1;
                continue;
            }
            Some(Tok::Any) => {}
            Some(Tok::Ch(c)) if *c == nc => {}
            _ => match star {
                Some(s) => {
                    i = s + 1;
                    mark += 1;
                    j = mark;
                    continue;
                }
                None => return false,
            },
        }
        i += 1;
        j += 1;
    }
    toks.get(i..).is_some_and(|r| r.iter().all(|t| matches!(t, Tok::Star)))
}

fn boot(p: &str) -> bool {
    let l = p.to_lowercase();
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
    let joined = format!("{}{}", if l.starts_with('/') { "/" } else { "" }, comps.join("/"));
    comps.iter().any(|c| glob_any(c, BOOT_FILES))
        || BOOT_PREFIX.iter().any(|b| joined.starts_with(b))
        || BOOT_CONTAINS.iter().any(|b| joined.contains(b))
}

fn git_hook(p: &str) -> bool {
    let l = p.to_lowercase();
    l.contains(".git/hooks") || l.ends_with(".git/config") || l.contains(".husky/") || l.split('/').any(|c| c == ".gitconfig")
}

fn write_checks(a: &mut Acc, who: &str, t: &str) {
    if outside(t) {
        a.flag(Danger::OutsideCwd, format!("{who} writes to {}, outside the working directory", q(t)));
    }
    if boot(t) {
        a.flag(Danger::BootAutostart, format!("{who} touches the startup file {}", q(t)));
    }
    if git_hook(t) {
        a.flag(Danger::Opaque, format!("{who} writes {}, which git runs or reads later", q(t)));
    }
}

/// Checks that apply to every program: URLs, boot files, directory flags, writes outside.
fn generic(n: &str, args: &[String], a: &mut Acc) {
    let text = TEXT_ONLY.contains(&n);
    let writer = WRITERS.contains(&n) || (n == "sed" && args.iter().any(|x| x.starts_with("--in-place") || short_has(x, "i")));
    let who = q(n);
    for (k, x) in args.iter().enumerate() {
        if !text && n != "git" && x.contains("://") && URLS.iter().any(|u| x.to_ascii_lowercase().contains(u)) {
            a.flag(Danger::Network, format!("{who} is given the URL {}", q(x)));
        }
        if text {
            continue;
        }
        let mut cands = vec![x.as_str()];
        if let Some((_, v)) = x.split_once('=') {
            cands.push(v);
        }
        if let Some((p, _)) = x.char_indices().nth(2).filter(|_| x.starts_with('-') && !x.starts_with("--")) {
            cands.push(x.get(p..).unwrap_or_default());
        }
        for c in cands {
            if writer {
                write_checks(a, &who, c);
            } else if boot(c) {
                a.flag(Danger::BootAutostart, format!("{who} touches the startup file {}", q(c)));
            }
        }
        let val = if DIR_OPTS.contains(&x.as_str()) {
            args.get(k + 1).map(String::as_str)
        } else {
            x.split_once('=').filter(|(o, _)| DIR_OPTS.contains(o)).map(|(_, v)| v).or(x.strip_prefix("-C"))
        };
        if let Some(v) = val.filter(|v| outside(v)) {
            a.flag(Danger::OutsideCwd, format!("{who} works in {}, outside the working directory", q(v)));
        }
    }
}

fn terminal(n: &str, args: &[String], a: &mut Acc, depth: u8) {
    use Danger::*;
    generic(n, args, a);
    let f = fam(n);
    let who = q(n);
    if let Some(v) = first_pos(args, PM_VALS) {
        let verb = format!("{who} {}", q(v));
        if PKG.iter().any(|(p, vs)| (*p == n || *p == f) && vs.contains(&v)) {
            a.flag(PackageInstall, format!("{verb} installs or fetches packages"));
        }
        if NET_VERBS.iter().any(|(p, vs)| (*p == n || *p == f) && vs.contains(&v)) {
            a.flag(Network, format!("{verb} reaches the network"));
        }
    }
    let inline = |a: &mut Acc| a.flag(Opaque, format!("{who} runs inline code from its arguments"));
    if NET.contains(&n) || NET.contains(&f) {
        a.flag(Network, format!("{who} reaches the network"));
    }
    if ADMIN.contains(&n) {
        a.flag(Admin, format!("{who} needs or grants administrator rights"));
    }
    if OPAQUE_PROGS.contains(&n) {
        a.flag(Opaque, format!("{who} runs other commands or changes how the shell runs them"));
    }
    match n {
        "ssh" | "scp" | "sftp" if args.iter().any(|x| x.to_ascii_lowercase().contains("command")) || has(args, &["-S"]) => inline(a),
        "eval" if depth < MAX_DEPTH => shell_into(&args.join(" "), a, depth + 1),
        "su" if args.iter().any(|x| x == "-c" || x.starts_with("--command")) => {
            inline(a);
            let k = args.iter().position(|x| x == "-c").map_or(0, |k| k + 1);
            if let Some(code) = args.get(k).filter(|_| depth < MAX_DEPTH) {
                shell_into(code, a, depth + 1);
            }
        }
        "rsync" => {
            let remote = |x: &String| {
                !x.starts_with('-') && (x.contains("::") || x.to_ascii_lowercase().starts_with("rsync://") || x.split_once(':').is_some_and(|(h, _)| !h.is_empty() && !h.contains('/')))
            };
            if args.iter().any(remote) {
                a.flag(Network, "`rsync` to a remote host reaches the network");
            }
            if args.iter().any(|x| x.starts_with("--delete") || x == "--remove-source-files") {
                a.flag(RecursiveDelete, "`rsync --delete` deletes files recursively");
            }
            if args.iter().any(|x| short_has(x, "e") || x.starts_with("--rsh") || x.starts_with("--rsync-path")) {
                inline(a);
            }
        }
        "rm" => {
            let end = args.iter().position(|x| x == "--").unwrap_or(args.len());
            let opts = args.get(..end).unwrap_or_default();
            if opts.iter().any(|x| x == "--recursive" || short_has(x, "rR")) {
                a.flag(RecursiveDelete, "`rm -r` deletes directories recursively");
            }
            for x in args.iter().enumerate().filter(|(k, x)| *k > end || !x.starts_with('-')).map(|(_, x)| x) {
                let tilde = x.starts_with('~');
                let comps = x.split('/').filter(|c| !c.is_empty() && *c != ".").count() - usize::from(tilde);
                let glob = x.contains(['*', '?', '[']);
                if (tilde || x.starts_with('/')) && (comps == 0 || (comps == 1 && glob)) {
                    a.flag(RecursiveDelete, format!("`rm` of {} deletes everything under the root or home", q(x)));
                }
            }
        }
        "shred" => a.flag(RecursiveDelete, "`shred` destroys file contents irrecoverably"),
        "wipefs" => a.flag(RecursiveDelete, "`wipefs` destroys a filesystem"),
        _ if n.starts_with("mkfs") => {
            a.flag(RecursiveDelete, format!("{who} destroys a filesystem"));
            a.flag(Admin, format!("{who} needs administrator rights"));
        }
        "find" => {
            let mut k = 0;
            while let Some(x) = args.get(k) {
                match x.as_str() {
                    "-delete" => a.flag(RecursiveDelete, "`find -delete` deletes files recursively"),
                    "-fprint" | "-fprint0" | "-fprintf" | "-fls" => a.flag(Opaque, format!("`find {x}` writes to a file")),
                    "-exec" | "-execdir" | "-ok" | "-okdir" => {
                        a.flag(Opaque, format!("`find {x}` runs a command for every file"));
                        let end = args.iter().skip(k + 1).position(|x| x == ";" || x == "+").map_or(args.len(), |p| k + 1 + p);
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
        "git" => git(args, a),
        "chmod" if args.iter().any(|x| setuid(x)) => a.flag(Admin, "`chmod` sets the setuid/setgid bit"),
        "chown" | "chgrp" if first_pos(args, &[]).is_some_and(|o| o.split([':', '.']).any(|p| p == "root" || p == "0")) => {
            a.flag(Admin, format!("{who} gives files to root"));
        }
        "cd" | "pushd" | "chdir" | "popd" if n == "popd" || first_pos(args, &[]).is_none_or(|t| t == "-" || outside(t)) => {
            a.flag(OutsideCwd, format!("{who} leaves the working directory"));
        }
        "crontab" if !has(args, &["-l"]) => a.flag(BootAutostart, "`crontab` schedules commands"),
        "at" | "batch" | "update-rc.d" | "chkconfig" | "rc-update" => a.flag(BootAutostart, format!("{who} schedules or registers commands to run later")),
        "launchctl" if !matches!(args.first().map(String::as_str), Some("list" | "print" | "version" | "help" | "blame")) => {
            a.flag(BootAutostart, "`launchctl` changes what launchd starts");
        }
        "systemctl" => {
            let vals = ["-H", "--host", "-M", "--machine", "-t", "--type", "-p", "--property", "-n", "--lines", "-o", "--output", "--state", "--root", "-s", "--signal"];
            match first_pos(args, &vals) {
                None | Some("status" | "show" | "cat" | "list-units" | "list-unit-files" | "list-timers" | "list-sockets" | "list-dependencies" | "list-jobs" | "is-active" | "is-enabled" | "is-failed" | "is-system-running" | "help" | "get-default" | "show-environment") => {}
                Some(v @ ("enable" | "reenable" | "disable" | "link" | "preset" | "preset-all" | "set-default" | "add-wants" | "add-requires" | "edit" | "revert" | "mask" | "unmask")) => {
                    a.flag(BootAutostart, format!("`systemctl {v}` changes what starts at boot or login"));
                }
                Some(_) if has(args, &["--user"]) => a.flag(Opaque, "`systemctl --user` controls user services"),
                Some(_) => a.flag(Admin, "`systemctl` controls system services"),
            }
        }
        "dpkg" if args.iter().any(|x| short_has(x, "i") || x == "--install" || x == "--unpack") => a.flag(PackageInstall, "`dpkg -i` installs packages"),
        "rpm" if args.iter().any(|x| ["-i", "-U", "-F", "--install", "--upgrade", "--freshen", "--reinstall"].iter().any(|o| x.starts_with(o))) => {
            a.flag(PackageInstall, "`rpm` installs packages");
        }
        "pacman" | "yay" | "paru" if (n != "pacman" && args.is_empty()) || args.iter().any(|x| x.starts_with("-S") || x.starts_with("-U") || x == "--sync" || x == "--upgrade") => {
            a.flag(PackageInstall, format!("{who} installs packages"));
        }
        "nix-env" if args.iter().any(|x| x.starts_with("-i") || x.starts_with("-u") || x == "--install" || x == "--upgrade") => a.flag(PackageInstall, "`nix-env` installs packages"),
        "npx" | "bunx" | "pnpx" | "uvx" | "emerge" | "cargo-binstall" => a.flag(PackageInstall, format!("{who} fetches and runs or installs packages")),
        "yarn" if first_pos(args, PM_VALS).is_none() && !has(args, &["-v", "--version", "-h", "--help"]) => a.flag(PackageInstall, "bare `yarn` installs packages"),
        "uv" => {
            let v: Vec<&str> = args.iter().filter(|x| !x.starts_with('-')).map(String::as_str).take(2).collect();
            if matches!(v.as_slice(), ["pip", "install" | "sync"] | ["tool", "install" | "run" | "upgrade"] | ["python", "install"] | ["add" | "sync", ..]) {
                a.flag(PackageInstall, "`uv` installs packages");
            }
        }
        "php" if args.iter().any(|x| short_has(x, "S")) => a.flag(Network, "`php -S` serves on the network"),
        "tar" if args.iter().any(|x| x == "-P" || x == "--absolute-names") => a.flag(OutsideCwd, "`tar -P` keeps absolute paths"),
        "sed" if sed_runs(args) => a.flag(Opaque, "the `sed` script can run commands (`e`) or write files (`w`)"),
        _ => {}
    }
    let opts_exec = |x: &String, list: &[&str]| list.iter().any(|o| x == o || x.starts_with(&format!("{o}=")));
    let runs = match f {
        _ if SHELLS.contains(&f) => return shell(n, args, a, depth),
        "python" | "pypy" => return python(args, a, depth),
        "node" | "nodejs" | "deno" | "bun" => args.iter().any(|x| opts_exec(x, &["-e", "--eval", "-p", "--print", "eval"])),
        "perl" => args.iter().any(|x| short_has(x, "eE")),
        "php" => args.iter().any(|x| short_has(x, "rR")),
        "ruby" | "lua" | "luajit" | "rscript" | "osascript" => args.iter().any(|x| short_has(x, "e")),
        "awk" | "gawk" | "mawk" | "nawk" => has(args, &["-i", "--include", "-l", "--load"]) || args.iter().any(|x| ["system", "|", ">", "getline"].iter().any(|p| x.contains(p))),
        "vi" | "vim" | "nvim" | "view" | "ex" | "vimdiff" | "rvim" => args.iter().any(|x| x.starts_with('+') || opts_exec(x, &["-c", "--cmd", "-S", "-s"])),
        "emacs" => args.iter().any(|x| opts_exec(x, &["--eval", "-l", "--load", "-f", "--funcall", "--script", "-batch", "--batch", "-x"])),
        "make" | "gmake" => args.iter().any(|x| opts_exec(x, &["--eval"])),
        "rg" => args.iter().any(|x| opts_exec(x, &["--pre"])),
        "fd" | "fdfind" => args.iter().any(|x| opts_exec(x, &["-x", "--exec", "-X", "--exec-batch"])),
        "tar" => args.iter().any(|x| opts_exec(x, &["--to-command", "--use-compress-program", "-I", "--checkpoint-action", "--info-script", "-F", "--new-volume-script", "--rsh-command", "--rmt-command"])),
        "zip" => args.iter().any(|x| opts_exec(x, &["-TT", "--unzip-command"])),
        "sort" => args.iter().any(|x| opts_exec(x, &["--compress-program"])),
        "man" => args.iter().any(|x| opts_exec(x, &["-P", "--pager", "-H", "--html"])),
        "cargo" => args.iter().any(|x| opts_exec(x, &["--config"])),
        _ => false,
    };
    if runs {
        inline(a);
    }
}

fn shell(n: &str, args: &[String], a: &mut Acc, depth: u8) {
    if let Some(k) = args.iter().position(|x| short_has(x, "c") || x.starts_with("--command")) {
        a.flag(Danger::Opaque, format!("{} runs inline shell code", q(&format!("{n} -c"))));
        let code = args.get(k).and_then(|x| x.strip_prefix("--command=")).or(args.get(k + 1).map(String::as_str));
        if let Some(code) = code.filter(|_| depth < MAX_DEPTH) {
            shell_into(code, a, depth + 1);
        }
    } else if first_pos(args, &["-o", "+o", "-O", "+O", "--rcfile", "--init-file"]).is_none() || args.iter().any(|x| short_has(x, "si")) {
        a.flag(Danger::Opaque, format!("{} reads commands from stdin or runs interactively", q(n)));
    }
}

fn python(args: &[String], a: &mut Acc, depth: u8) {
    let mut k = 0;
    while let Some(x) = args.get(k) {
        if x == "-m" {
            let rest = args.get(k + 2..).unwrap_or_default();
            match args.get(k + 1).map(String::as_str) {
                Some("http.server" | "SimpleHTTPServer" | "smtpd" | "aiosmtpd") => a.flag(Danger::Network, "`python -m http.server` serves on the network"),
                Some(m @ ("pip" | "pipx" | "uv")) => terminal(m, rest, a, depth),
                _ => {}
            }
            return;
        }
        if x == "-" || short_has(x, "c") {
            a.flag(Danger::Opaque, "`python` runs inline code or code from stdin");
            return;
        }
        if !x.starts_with('-') {
            return;
        }
        k += if x == "-W" || x == "-X" { 2 } else { 1 };
    }
    a.flag(Danger::Opaque, "`python` without a script reads code from stdin");
}

fn git(args: &[String], a: &mut Acc) {
    use Danger::*;
    let mut k = 0;
    while let Some(x) = args.get(k).filter(|x| x.starts_with('-')) {
        match x.as_str() {
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix" | "--attr-source" => k += 1,
            "-p" | "-P" | "--paginate" | "--no-pager" | "--bare" | "--no-replace-objects" | "--literal-pathspecs" | "--glob-pathspecs" | "--noglob-pathspecs" | "--icase-pathspecs" | "--no-optional-locks" | "--no-lazy-fetch" | "--no-advice" | "--version" | "--help" | "-v" | "-h" => {}
            x if ["--git-dir=", "--work-tree=", "--namespace=", "-C"].iter().any(|p| x.starts_with(p)) => {}
            x => a.flag(Opaque, format!("{} can change git's configuration, pager or programs", q(&format!("git {x}")))),
        }
        k += 1;
    }
    let Some(sub) = args.get(k) else { return };
    let rest = args.get(k + 1..).unwrap_or_default();
    let gs = q(&format!("git {sub}"));
    let flag_if = |a: &mut Acc, cond: bool, d: Danger, why: &str| {
        if cond {
            a.flag(d, format!("{gs} {why}"));
        }
    };
    let any = |p: &dyn Fn(&str) -> bool| rest.iter().any(|x| p(x));
    match sub.as_str() {
        "clone" | "fetch" | "pull" | "push" | "ls-remote" | "send-email" | "svn" | "request-pull" | "daemon" | "instaweb" | "lfs" | "p4" | "submodule" => {
            flag_if(a, true, Network, "reaches the network");
            let exec = ["-c", "--config", "-u", "--upload-pack", "--receive-pack", "--exec", "--template", "foreach"];
            flag_if(a, any(&|x| x.starts_with("ext::") || exec.iter().any(|o| x == *o || x.starts_with(&format!("{o}=")))), Opaque, "can run another program");
            for x in rest.iter().filter(|x| sub == "clone" && outside(x)) {
                a.flag(OutsideCwd, format!("{gs} writes to {}, outside the working directory", q(x)));
            }
        }
        "remote" => flag_if(a, has(rest, &["update", "prune", "show", "set-head", "-f", "--fetch"]), Network, "reaches the network"),
        "archive" => flag_if(a, any(&|x| x.starts_with("--remote") || x.starts_with("--exec")), Network, "reaches the network"),
        "config" => flag_if(a, !has(rest, &["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "get", "list"]), Opaque, "can set aliases, hooks or a pager that run commands"),
        "clean" => flag_if(a, any(&|x| x == "--force" || short_has(x, "f")) && !any(&|x| x == "--dry-run" || short_has(x, "n")), RecursiveDelete, "deletes untracked files recursively"),
        "rm" => flag_if(a, any(&|x| short_has(x, "r")), RecursiveDelete, "deletes recursively"),
        "bisect" => flag_if(a, rest.first().is_some_and(|x| x == "run"), Opaque, "runs a command"),
        "rebase" => flag_if(a, any(&|x| x == "-x" || x.starts_with("--exec")), Opaque, "runs a command"),
        "filter-branch" | "filter-repo" | "difftool" | "mergetool" | "credential" | "hook" => flag_if(a, true, Opaque, "runs other programs"),
        "init" | "worktree" => {
            for x in rest.iter().filter(|x| outside(x)) {
                a.flag(OutsideCwd, format!("{gs} writes to {}, outside the working directory", q(x)));
            }
        }
        _ => {}
    }
}

fn setuid(m: &str) -> bool {
    if !m.is_empty() && m.chars().all(|c| c.is_ascii_digit()) {
        let d: Vec<u32> = m.chars().filter_map(|c| c.to_digit(8)).collect();
        return d.len() >= 4 && d.get(d.len() - 4).is_some_and(|x| x & 6 != 0);
    }
    m.contains(['+', '='])
        && m.chars().all(|c| "ugoarwxXst+-=,".contains(c))
        && m.split(',').any(|cl| cl.split(['+', '=']).skip(1).any(|p| p.contains('s')))
}

fn sed_runs(args: &[String]) -> bool {
    let mut scripts: Vec<&str> = Vec::new();
    let mut k = 0;
    while let Some(x) = args.get(k) {
        if x == "-e" || x == "--expression" {
            scripts.extend(args.get(k + 1).map(String::as_str));
            k += 1;
        } else if let Some(s) = x.strip_prefix("--expression=") {
            scripts.push(s);
        }
        k += 1;
    }
    if scripts.is_empty() {
        scripts.extend(first_pos(args, &["-f", "--file", "-l", "--line-length"]));
    }
    scripts.iter().any(|s| s.split([';', '\n']).any(sed_cmd_runs))
}

fn sed_cmd_runs(cmd: &str) -> bool {
    let cs: Vec<char> = cmd.chars().collect();
    let skip = |mut i: usize, d: char| {
        while let Some(&c) = cs.get(i) {
            if c == d {
                return Some(i);
            }
            i += if c == '\\' { 2 } else { 1 };
        }
        None
    };
    let mut i = 0;
    loop {
        while cs.get(i).is_some_and(|c| c.is_ascii_digit() || " \t,$!~+{".contains(*c)) {
            i += 1;
        }
        match cs.get(i) {
            Some(&'/') => match skip(i + 1, '/') {
                Some(e) => i = e + 1,
                None => return false,
            },
            _ => break,
        }
    }
    match cs.get(i) {
        Some(&('e' | 'w' | 'W')) => true,
        Some(&'s') => {
            let Some(&d) = cs.get(i + 1) else { return false };
            let end = skip(i + 2, d).and_then(|m| skip(m + 1, d));
            end.and_then(|e| cs.get(e + 1..)).is_some_and(|f| f.iter().any(|c| matches!(c, 'e' | 'w')))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::Danger::*;
    use super::*;

    fn argv(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn dangerous_commands_are_flagged() {
        let cases: &[(&str, &[Danger])] = &[
            ("git status; curl x", &[Opaque, Network]),
            ("git log\ncurl x", &[Opaque, Network]),
            ("echo $(curl x)", &[Opaque, Network]),
            ("`id`", &[Opaque]),
            ("ls && rm -rf ~", &[Opaque, RecursiveDelete, OutsideCwd]),
            ("ls > ~/.bashrc", &[Opaque, BootAutostart, OutsideCwd]),
            ("env X=1 curl x", &[Opaque, Network]),
            ("$'\\x3b'", &[Opaque]),
            ("bash -c 'ls'", &[Opaque]),
            ("bash -lc 'curl x'", &[Opaque, Network]),
            ("find . -exec rm {} \\;", &[Opaque]),
            ("find . -exec rm -rf {} +", &[Opaque, RecursiveDelete]),
            ("xargs rm", &[Opaque]),
            ("git -c core.pager=sh log", &[Opaque]),
            ("cd /tmp && touch x", &[Opaque, OutsideCwd]),
            ("git -C /other commit", &[OutsideCwd]),
            ("tar -C / -xf a.tar", &[OutsideCwd]),
            ("sudo ls", &[Admin]),
            ("sudo -u root rm -rf /", &[Admin, RecursiveDelete, OutsideCwd]),
            ("pip install requests", &[PackageInstall]),
            ("npm i -g x", &[PackageInstall]),
            ("cargo install ripgrep", &[PackageInstall]),
            ("rm -rf build", &[RecursiveDelete]),
            ("rm -r -f x", &[RecursiveDelete]),
            ("rm /*", &[RecursiveDelete, OutsideCwd]),
            ("wget http://x", &[Network]),
            ("ssh host", &[Network]),
            ("crontab -e", &[BootAutostart]),
            ("systemctl enable foo", &[BootAutostart]),
            ("echo x >> ~/.profile", &[Opaque, BootAutostart, OutsideCwd]),
            ("cp a /etc/rc.local", &[OutsideCwd, BootAutostart]),
            ("touch ../outside", &[OutsideCwd]),
            ("touch a/../../x", &[OutsideCwd]),
            ("curl\u{202e}x", &[Opaque]),
            ("echo 'x", &[Opaque]),
            ("echo \"x", &[Opaque]),
            ("/usr/bin/curl x", &[Network]),
            ("'cu''rl' x", &[Network]),
            ("CURL.exe x", &[Network]),
            ("timeout 5 curl x", &[Network]),
            ("nice -n 5 nohup time wget x", &[Network]),
            ("X=1 ls", &[Opaque]),
            ("$CMD x", &[Opaque]),
            ("/usr/bin/cur? x", &[Opaque]),
            ("echo ${PATH}", &[Opaque]),
            ("ls &>/dev/null", &[Opaque]),
            ("cat <<EOF", &[Opaque]),
            ("diff <(ls) x", &[Opaque]),
            ("echo x > out.txt", &[Opaque]),
            ("ls 2>&1 | tee /tmp/x", &[Opaque, OutsideCwd]),
            ("git clean -fdx", &[RecursiveDelete]),
            ("git push origin main", &[Network]),
            ("git clone https://x/y", &[Network]),
            ("git config alias.x '!sh'", &[Opaque]),
            ("git ls-remote --upload-pack='touch x' .", &[Network, Opaque]),
            ("python3 -m http.server", &[Network]),
            ("python3 -c 'print(1)'", &[Opaque]),
            ("python3 -m pip install x", &[PackageInstall]),
            ("python3 fetch.py https://evil.example", &[Network]),
            ("node -e 'x'", &[Opaque]),
            ("perl -pie 's/a/b/' f", &[Opaque]),
            ("sed 's/x/y/e' f", &[Opaque]),
            ("sed -n '1w out' f", &[Opaque]),
            ("sed -i s/a/b/ /etc/hosts", &[OutsideCwd]),
            ("awk '{system(\"id\")}' f", &[Opaque]),
            ("rg --pre ./x foo", &[Opaque]),
            ("npx cowsay", &[PackageInstall]),
            ("yarn", &[PackageInstall]),
            ("apt-get install -y x", &[PackageInstall]),
            ("uv pip install x", &[PackageInstall]),
            ("chmod u+s x", &[Admin]),
            ("chmod 4755 x", &[Admin]),
            ("chown root:root x", &[Admin]),
            ("dd if=/dev/zero of=/dev/sda", &[OutsideCwd]),
            ("touch $HOME/x", &[OutsideCwd]),
            ("cp x .config/autostart/", &[BootAutostart]),
            ("mkdir -p ~/.config/systemd/user", &[BootAutostart, OutsideCwd]),
            ("cp x .bash*", &[BootAutostart]),
            ("cp hook .git/hooks/pre-commit", &[Opaque]),
            ("rsync -a x host:y", &[Network]),
            ("rsync -a --delete a/ b/", &[RecursiveDelete]),
            ("docker run x", &[Opaque]),
            ("make -C /x", &[OutsideCwd]),
            ("make -C/x", &[OutsideCwd]),
            ("cp -t/etc x", &[OutsideCwd]),
            ("cp --target-directory=~ x", &[OutsideCwd]),
            ("dd of=~/.bashrc", &[OutsideCwd, BootAutostart]),
            ("bash -o pipefail -c 'curl x'", &[Opaque, Network]),
            ("python3 -W ignore -c 'x'", &[Opaque]),
            ("a=$(curl x)", &[Opaque, Network]),
            ("\\curl x", &[Network]),
            ("c\\url x", &[Network]),
            ("command curl x", &[Network]),
            ("exec wget x", &[Opaque, Network]),
            ("busybox wget x", &[Network]),
            ("tar xf a.tar --to-command=sh", &[Opaque]),
            ("GIT_PAGER=sh git log", &[Opaque]),
            ("git --exec-path=/x status", &[Opaque]),
            ("ln -s /etc/passwd l", &[OutsideCwd]),
            ("truncate -s 0 ~/.zshrc", &[BootAutostart]),
            ("cd", &[OutsideCwd]),
            ("eval 'curl x'", &[Opaque, Network]),
            ("su -c 'id'", &[Admin, Opaque]),
            ("ssh -o ProxyCommand=x h", &[Network, Opaque]),
            ("vim -c '!id' f", &[Opaque]),
            ("sh", &[Opaque]),
            ("at now", &[BootAutostart, Opaque]),
            ("mkfs.ext4 /dev/sdb", &[RecursiveDelete, Admin]),
            ("env", &[Opaque]),
        ];
        for (cmd, want) in cases {
            let r = analyze_shell(cmd);
            for d in *want {
                assert!(r.dangers.contains(d), "{cmd:?}: expected {d:?}, got {r:?}");
            }
            assert!(r.never_loosens() && !r.reasons.is_empty(), "{cmd:?}");
        }
    }

    #[test]
    fn safe_commands_are_clean() {
        let clean = [
            "ls -la", "git status", "cargo test", "cat src/main.rs", "grep -rn foo .", "echo hello",
            "python3 script.py", "npm test", "git log --oneline", "", "   ", "cargo build --release 2>&1",
            "ls >/dev/null 2>&1", "git diff HEAD~1", "rm file.txt", "cat ~/.bashrc", "command -v curl",
            "echo curl", "mkdir -p src/new", "cp a b", "git commit -m 'see https://x.org'",
            "ls # a comment; curl x", "rg -n 'fn main' src", "cargo clippy -- -D warnings",
            "echo '$(not expanded)'", "touch a/../b", "sed -n 1,5p web.txt", "git log --format='%H %s'",
            "ls -d /etc", "cat /etc/hosts", "bash script.sh", "systemctl status foo", "crontab -l",
            "npm run build", "echo a=b", "grep -C 3 x f", "pytest -q tests/", "ls ./*.rs",
        ];
        for cmd in clean {
            let r = analyze_shell(cmd);
            assert!(!r.never_loosens(), "{cmd:?} should be clean: {r:?}");
            assert!(r.reasons.is_empty() && !r.has_control_chars, "{cmd:?}");
        }
    }

    #[test]
    fn argv_cases() {
        let cases: &[(&[&str], &[Danger])] = &[
            (&["bash", "-c", "ls"], &[Opaque]),
            (&["/bin/sh", "-c", "curl x"], &[Opaque, Network]),
            (&["curl", "x"], &[Network]),
            (&["env", "X=1", "ls"], &[Opaque]),
            (&["git", "-C", "/x", "status"], &[OutsideCwd]),
            (&["git", "-c", "core.pager=sh", "log"], &[Opaque]),
            (&["sudo", "curl", "x"], &[Admin, Network]),
            (&["ls", "\u{1b}[2J"], &[Opaque]),
            (&["touch", "../x"], &[OutsideCwd]),
            (&["rm", "-rf", "x"], &[RecursiveDelete]),
        ];
        for (v, want) in cases {
            let r = analyze_argv(&argv(v));
            for d in *want {
                assert!(r.dangers.contains(d), "{v:?}: expected {d:?}, got {r:?}");
            }
        }
        for v in [&["ls", "; curl x"][..], &["echo", "$(curl x)"], &["git", "status"], &["cargo", "test"], &[]] {
            let r = analyze_argv(&argv(v));
            assert!(!r.never_loosens(), "{v:?}: {r:?}");
        }
        assert!(analyze_argv(&argv(&["ls", "\u{1b}[2J"])).has_control_chars);
    }

    #[test]
    fn sensitive_mentions() {
        for cmd in ["cat ~/.ssh/id_rsa", "cat server.pem", "ls $HOME/.aws/credentials", "cat ~/.SSH/ID_RSA", "cp x ~/.tradewind/db", "cat a.key", "cat ~/.netrc", "python -c \"open('/home/u/.ssh/id_rsa')\""] {
            assert!(!analyze_shell(cmd).sensitive_mentions.is_empty(), "{cmd:?}");
        }
        assert!(analyze_shell("cat ~/.ssh/id_rsa").dangers.is_empty());
        assert!(!analyze_argv(&argv(&["cat", "/home/u/.gnupg/x"])).sensitive_mentions.is_empty());
        assert!(analyze_shell("cat src/main.rs").sensitive_mentions.is_empty());
    }

    #[test]
    fn visible_rendering() {
        assert_eq!(visible("a\x1bb"), "a␛b");
        assert_eq!(visible("a\nb"), "a⏎b");
        assert_eq!(visible("x\u{202e}y"), "x<U+202E>y");
        assert_eq!(visible("\u{0}\u{7f}\r"), "␀␡␍");
        assert_eq!(visible("z\u{200b}\u{85}"), "z<U+200B><U+0085>");
        assert_eq!(visible("plain ascii\ttab é"), "plain ascii\ttab é");
        let r = analyze_shell("echo \u{1b}[31mred");
        assert!(r.has_control_chars && r.dangers.contains(&Opaque));
        assert!(r.reasons.iter().all(|x| !x.contains('\u{1b}')));
    }

    #[test]
    fn garbage_never_panics() {
        let all: String = (0u32..=255).filter_map(char::from_u32).collect();
        let mut inputs = vec![all.clone(), "a".repeat(100_000), "$(".repeat(50_000), "(".repeat(100_000), "'".repeat(100_001)];
        inputs.extend(["`".repeat(100_001), "\\".repeat(100_001), "rm -rf /* ".repeat(10_000), "a;".repeat(50_000), "*".repeat(100_000)]);
        inputs.extend(["$(".repeat(20_000) + &")".repeat(20_000), "cp x ".to_string() + &".*?[".repeat(25_000), "${".repeat(50_000)]);
        inputs.extend(["bash -c ".repeat(20_000), "> ".repeat(50_000), "sed ".to_string() + &"s".repeat(100_000), "x=".repeat(50_000)]);
        for c in all.chars() {
            inputs.push(c.to_string());
            inputs.push(format!("rm -{c} x{c}y"));
        }
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let alphabet: Vec<char> = "ab -/~.*?[]{}()$'\"`\\;&|<>=#\n\t\u{202e}\u{0}01cerm".chars().collect();
        for _ in 0..3000 {
            let len = (seed % 40) as usize;
            let s: String = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    alphabet[(seed % alphabet.len() as u64) as usize]
                })
                .collect();
            inputs.push(s);
        }
        for s in &inputs {
            let r = analyze_shell(s);
            assert!(r.dangers.windows(2).all(|w| w[0] < w[1]));
            assert!(!r.has_control_chars || r.dangers.contains(&Opaque));
            assert!(r.dangers.is_empty() || !r.reasons.is_empty());
            let _ = analyze_argv(&s.split(' ').map(str::to_string).collect::<Vec<_>>());
            let _ = visible(s);
        }
    }
}
