//! The programs the classifier knows: what each one's arguments say it does.

use super::*;

#[rustfmt::skip]
pub(super) const NET: &[&str] = &["curl", "wget", "ssh", "scp", "sftp", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "lftp", "tftp", "aria2c", "axel", "http", "https", "xh", "mosh", "sshpass", "torsocks", "proxychains", "nmap", "ping", "dig", "nslookup", "host", "whois", "traceroute", "tracepath", "mtr", "gh", "glab", "hub", "aws", "gcloud", "gsutil", "az", "ngrok", "cloudflared", "tailscale", "websocat", "wscat", "ssh-copy-id", "ssh-keyscan", "mail", "sendmail", "mutt", "svn", "ollama", "kubectl", "helm", "terraform", "ansible", "ansible-playbook", "twine", "yt-dlp", "youtube-dl", "httpd",
    "nc.openbsd", "nc.traditional", "netcat.openbsd", "netcat.traditional", "pwncat", "cryptcat", "drill", "kdig", "delv", "doggo", "nsupdate", "rclone", "s3cmd", "azcopy",
    "grpcurl", "autossh", "sshfs", "rsh", "rlogin", "rcp", "nping", "hping3", "arping", "dirmngr-client",
    // Clients whose server comes from their own syntax, a file or standard input, never a URL word.
    "curlie", "hurl", "lynx", "w3m", "links", "elinks", "croc", "wormhole", "smbclient", "ldapsearch", "ldapmodify", "ldapadd", "ldapdelete",
    "ldapwhoami", "kcat", "kafkacat", "mosquitto_pub", "mosquitto_sub", "iperf", "ab", "wrk", "hey", "oha", "siege", "k6"];
#[rustfmt::skip]
pub(super) const ADMIN: &[&str] = &["su", "runuser", "chroot", "sudoedit", "visudo", "passwd", "chpasswd", "useradd", "usermod", "userdel", "groupadd", "groupmod", "groupdel", "adduser", "deluser", "gpasswd", "setcap", "mount", "umount", "modprobe", "insmod", "rmmod", "sysctl", "iptables", "ip6tables", "nft", "ufw", "firewall-cmd", "reboot", "shutdown", "poweroff", "halt", "init", "telinit", "fdisk", "sfdisk", "parted", "swapon", "swapoff", "losetup", "cryptsetup", "dmsetup", "service", "newgrp", "sg", "pleaseedit", "systemd-nspawn", "schroot"];
#[rustfmt::skip]
pub(super) const OPAQUE_PROGS: &[&str] = &["eval", "alias", "unalias", "trap", "set", "shopt", "export", "declare", "typeset", "readonly", "local", "builtin", "enable", "hash", "fc", "coproc", "function", "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "in", "select", "!", "{", "}", "[[", "]]", "parallel", "watch", "hyperfine", "watchexec", "concurrently", "nodemon", "flock", "script", "expect", "strace", "ltrace", "gdb", "lldb", "valgrind", "perf", "nsenter", "firejail", "bwrap", "daemonize", "entr", "nix-shell", "direnv", "tmux", "screen", "dbus-launch", "xvfb-run", "faketime", "chpst", "at", "batch", "docker", "podman", "nerdctl"];
#[rustfmt::skip]
pub(super) const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "tcsh", "csh", "ash", "yash", "rbash", "posh"];
/// Programs that only read or print: no URL, startup-file or directory-flag findings for them.
#[rustfmt::skip]
pub(super) const TEXT_ONLY: &[&str] = &["cat", "less", "more", "head", "tail", "grep", "egrep", "fgrep", "rg", "ag", "ack", "ls", "stat", "file", "wc", "diff", "cmp", "echo", "printf", "md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum", "realpath", "readlink", "basename", "dirname", "test", "[", "true", "false", "jq", "bat", "du", "df", "which", "type", "whereis", "column", "nl", "od", "xxd", "hexdump", "strings", "man", "pwd", "whoami", "id", "date", "uname"];
#[rustfmt::skip]
pub(super) const WRITERS: &[&str] = &["touch", "cp", "mv", "mkdir", "tee", "ln", "link", "rm", "rmdir", "unlink", "dd", "install", "chmod", "chown", "chgrp", "truncate", "shred", "tar", "unzip", "cpio", "patch", "split", "csplit", "mkfifo", "mknod", "setfacl", "chattr", "rsync", "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "7z", "ar", "zip", "uniq", "sudoedit"];
/// Options whose value is a directory or output the program works in (checked for all but TEXT_ONLY).
#[rustfmt::skip]
pub(super) const DIR_OPTS: &[&str] = &["-C", "--directory", "--cwd", "--prefix", "--dir", "--work-tree", "--git-dir", "-o", "--output", "--out-dir", "--output-dir", "--outdir", "--target-dir", "--root", "--install-dir", "--destination", "--dest"];
#[rustfmt::skip]
pub(super) const URLS: &[&str] = &["http://", "https://", "ftp://", "ftps://", "ssh://", "sftp://", "scp://", "git://", "rsync://", "ws://", "wss://", "telnet://", "s3://", "gs://", "tftp://", "dict://", "gopher://", "smb://", "ldap://"];
/// Options of package managers that take a value before the verb.
#[rustfmt::skip]
pub(super) const PM_VALS: &[&str] = &["-C", "--prefix", "--cwd", "--dir", "--color", "--config", "-Z", "--filter", "-F", "-w", "--workspace", "--registry", "--directory", "--project", "--loglevel",
    "--cache-dir", "--log", "--log-file", "--proxy", "--retries", "--timeout", "--exists-action", "--trusted-host", "--cert", "--client-cert", "--python", "--use-feature", "--use-deprecated",
    "--src", "--target", "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--manifest-path", "--lockfile", "--userconfig", "--globalconfig", "--cache", "--modules-folder", "--mutex", "--network-timeout"];
#[rustfmt::skip]
pub(super) const YUM: &[&str] = &["install", "reinstall", "upgrade", "update", "groupinstall", "localinstall", "downgrade", "distro-sync", "swap"];
#[rustfmt::skip]
pub(super) const CONDA: &[&str] = &["install", "create", "update", "env"];
#[rustfmt::skip]
pub(super) const PKG: &[(&str, &[&str])] = &[ // program (or family: pip3 → pip), verbs that install or fetch-and-run
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
    ("gem", &["install", "update", "exec"]), ("bundle", &["install", "add", "update"]), ("go", &["install", "get"]),
    ("composer", &["require", "install", "update", "global", "create-project"]), ("deno", &["install", "add"]),
    ("rustup", &["install", "update", "toolchain", "component", "target"]), ("poetry", &["add", "install", "update", "self"]),
    ("pdm", &["add", "install", "update", "sync"]), ("asdf", &["install", "plugin"]), ("mise", &["install", "use", "plugins", "exec", "x"]), ("volta", &["install", "run", "fetch", "pin", "setup"]), ("fnm", &["install"]),
    ("nvm", &["install"]), ("dotnet", &["add", "tool", "restore"]), ("luarocks", &["install"]), ("opam", &["install"]),
    ("cabal", &["install"]), ("stack", &["install"]),
    ("pipenv", &["install", "sync", "update", "upgrade"]), ("pixi", &["add", "install", "global", "update", "upgrade", "exec"]),
    ("rye", &["add", "sync", "install", "fetch", "tools", "toolchain"]),
];
#[rustfmt::skip]
pub(super) const NET_VERBS: &[(&str, &[&str])] = &[
    ("pip", &["download", "wheel", "index", "search"]), ("cargo", &["fetch", "publish", "search", "login", "owner", "yank"]),
    ("npm", &["publish", "login", "adduser", "view", "info", "show", "search", "ping", "audit", "outdated", "unpublish", "deprecate", "dist-tag", "owner", "access", "token", "whoami"]),
    ("pnpm", &["publish", "audit", "outdated"]), ("yarn", &["publish", "info", "npm", "audit", "outdated"]),
    ("gem", &["push", "fetch", "search", "owner", "yank", "signin"]), ("go", &["mod"]),
    ("hg", &["clone", "pull", "push", "incoming", "outgoing", "fetch"]), ("openssl", &["s_client", "s_server", "s_time", "ocsp"]),
    ("apt", &["update", "download"]), ("apt-get", &["update", "download"]),
];
/// Options that make a program run inline code or another program (`opt` or `opt=…`).
#[rustfmt::skip]
pub(super) const INLINE: &[(&[&str], &[&str])] = &[
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
pub(super) const INLINE_SHORT: &[(&str, &str)] = &[("perl", "eEMmx"), ("ruby", "erx"), ("lua", "el"), ("luajit", "el"), ("rscript", "e"), ("osascript", "e"), ("php", "rRBE"), ("rsync", "e"), ("tar", "IF"), ("node", "epr"), ("nodejs", "epr"), ("bun", "ep")];
#[rustfmt::skip]
pub(super) const SAFE_DEV: &[&str] = &["/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/stdout", "/dev/stderr"];

// ------------------------------------------------------------------------------- helpers

pub(super) fn has(args: &[String], list: &[&str]) -> bool {
    args.iter().any(|x| list.contains(&x.as_str()))
}

/// A single-dash option cluster (`-rf`) containing one of `letters`.
pub(super) fn short_has(x: &str, letters: &str) -> bool {
    let r = x.strip_prefix('-');
    r.is_some_and(|r| !r.starts_with('-') && r.chars().any(|c| letters.contains(c)))
}

/// Is `x` one of the options in `vals` given without its value attached (long ones possibly
/// abbreviated: `--sig` is `--signal`)?
pub(super) fn takes_value(x: &str, vals: &[&str]) -> bool {
    if x.starts_with("--") {
        !x.contains('=') && vals.iter().any(|v| v.starts_with("--") && long_is(x, v))
    } else {
        vals.contains(&x)
    }
}

/// Does `x` give one of the options in `list`: a long one (possibly abbreviated, possibly
/// `=value`), or a short one alone, with `=value`, or with its value attached (`-Igzip`)?
pub(super) fn opt_in(x: &str, list: &[&str]) -> bool {
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
pub(super) fn next_operand(args: &[String], vals: &[&str]) -> Option<usize> {
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

pub(super) fn first_pos<'s>(args: &'s [String], vals: &[&str]) -> Option<&'s str> {
    let j = next_operand(args, vals)?;
    args.get(j).map(String::as_str)
}

/// Basename, lowercased (case-insensitive filesystems run `CURL` too), without `.exe`.
pub(super) fn prog_name(p: &str) -> String {
    let l = p.rsplit('/').next().unwrap_or(p).to_lowercase();
    l.strip_suffix(".exe").map(str::to_string).unwrap_or(l)
}

/// `python3.11` → `python`, `pip3` → `pip`.
pub(super) fn fam(n: &str) -> &str {
    n.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
}

/// Is this path outside the working directory (absolute, home-relative, or escaping with `..`)?
pub(super) fn outside(p: &str) -> bool {
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
pub(super) fn boot(p: &str) -> bool {
    crate::lists::is_startup_location(p)
}

pub(super) fn write_checks(a: &mut Acc, who: &str, t: &str) {
    a.outside_path(who, "writes to", t);
    let full = a.at(t).unwrap_or_else(|| t.to_string());
    if boot(&full) {
        a.flag(
            Danger::BootAutostart,
            format!("{who} touches the startup file {}", q(t)),
        );
    }
    let l = full.to_lowercase();
    // `.git` itself is checked where the destinations are known (`git_file_writes`).
    if l.contains(".husky/") {
        a.flag(
            Danger::Opaque,
            format!("{who} writes {}, which git runs or reads later", q(t)),
        );
    }
}

/// A simple command from the parser: the program name must be known, then it is classified.
pub(super) fn simple(a: &mut Acc, words: &[Word], stdin: &Stdin, depth: u8) {
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
    a.stdin = Stdin::Inherit;
}

/// `cd DIR` moves the working directory of the commands after it.
pub(super) fn cd(args: &[String], a: &mut Acc) {
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
pub(super) fn normalize(p: &str) -> String {
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
pub(super) fn long_is(x: &str, full: &str) -> bool {
    let name = x.split_once('=').map_or(x, |(n, _)| n);
    name == full || (name.len() >= 4 && name.starts_with("--") && full.starts_with(name))
}

// ------------------------------------------------------------------------------- programs

/// Checks that apply to every program: URLs, startup files, directory flags, writes outside.
pub(super) fn generic(n: &str, args: &[String], a: &mut Acc) {
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
    git_file_writes(n, args, a, sed_i);
}

#[rustfmt::skip]
pub(super) fn terminal(n: &str, args: &[String], a: &mut Acc, depth: u8) {
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
    hit!(Opaque, matches!(n, "source" | ".") && first_pos(args, &[]).is_none_or(|t| { let o = a.at(t); t.starts_with("/dev/") || t.starts_with("/proc/") || o.is_none_or(|o| outside(&o)) }), "runs a script from outside the working directory in this shell");
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
    hit!(PackageInstall, matches!(n, "uvx" | "emerge" | "cargo-binstall" | "pip-run" | "pkgx" | "dnx"), "fetches and runs or installs packages");
    hit!(PackageInstall, n == "easy_install" || n.starts_with("easy_install-"), "installs packages");
    if matches!(n, "npx" | "bunx" | "pnpx") { npx(n, args, a, depth); }
    // The classes of their own modules.
    packages(n, f, args, a, depth);
    network(n, f, args, a);
    host(n, args, a, depth);
    stdin_code(n, args, a);
    hook_installers(n, args, a);
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
pub(super) fn inline_shell(a: &mut Acc, code: &str, depth: u8) {
    if depth >= MAX_DEPTH {
        a.flag(Danger::Opaque, "it nests shell code too deeply to analyse");
        return;
    }
    let (cwd, cur, stdin) = (a.cwd.clone(), a.cur, a.stdin.clone());
    a.controls(&code.replace('\n', " "));
    a.mentions(code);
    super::nested_shell(code, a, depth + 1);
    (a.cwd, a.cur, a.stdin) = (cwd, cur, stdin);
}

/// `npx NAME` runs the project's own `node_modules/.bin/NAME` when it is installed and fetches a
/// package from the registry otherwise: the finding holds unless the tool finds the local binary.
pub(super) fn npx(n: &str, args: &[String], a: &mut Acc, depth: u8) {
    npx_finding(n, args, a);
    // What it runs is classified too (`npx husky install`, `npx vite --host 0.0.0.0`).
    let call = args
        .iter()
        .enumerate()
        .find_map(|(k, x)| match x.split_once('=') {
            Some((o, v)) if long_is(o, "--call") => Some(v),
            _ if x == "-c" || long_is(x, "--call") => args.get(k + 1).map(String::as_str),
            _ => None,
        });
    if let Some(code) = call {
        a.flag(
            Danger::Opaque,
            format!("{} runs inline shell code", q(&format!("{n} -c"))),
        );
        inline_shell(a, code, depth);
    } else if let Some(k) = getopt_operand(args, 0, &["-p", "--package"])
        && depth < MAX_DEPTH
    {
        classify(args.get(k..).unwrap_or_default(), a, depth + 1);
    }
}

fn npx_finding(n: &str, args: &[String], a: &mut Acc) {
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

pub(super) fn rm(args: &[String], a: &mut Acc) {
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

pub(super) fn find_cmd(args: &[String], a: &mut Acc, depth: u8) {
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
pub(super) fn systemctl(args: &[String], a: &mut Acc) {
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

pub(super) fn shell(n: &str, args: &[String], a: &mut Acc, depth: u8) {
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
    let from_stdin =
        script.is_some_and(|s| ["-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"].contains(&s));
    if script.is_some() && !from_stdin && !args.iter().any(|x| short_has(x, "s")) {
        return;
    }
    match a.stdin.clone() {
        Stdin::Text(Some(code)) => inline_shell(a, &code, depth),
        Stdin::Text(None) => a.flag(
            Danger::Opaque,
            format!(
                "{} runs a here-document with parts known only at run time",
                q(n)
            ),
        ),
        Stdin::Pipe => a.flag(
            Danger::Opaque,
            format!("{} runs commands it reads from a pipe", q(n)),
        ),
        _ => a.flag(
            Danger::Opaque,
            format!("{} reads commands from stdin or runs interactively", q(n)),
        ),
    }
}
