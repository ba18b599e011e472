//! Wrappers: programs that run another command (`nice -n 5 CMD`, `timeout 60 CMD`, `setarch
//! x86_64 -R CMD`, `sudo -u root CMD`). The wrapped command is classified like a command of its
//! own, so each wrapper's option syntax must be read as the wrapper reads it: a word taken for
//! the program that is really an option or its value hides what runs (`setarch x86_64 -R rm -rf
//! build` ran without asking while `-R` was read as the program).

use super::*;

#[rustfmt::skip]
pub(super) const WRAPPERS: &[(&str, &[&str])] = &[ // program, its options that take a value
    ("nice", &["-n", "--adjustment"]), ("nohup", &[]), ("time", &["-f", "--format", "-o", "--output"]),
    ("command", &[]), ("stdbuf", &["-i", "-o", "-e", "--input", "--output", "--error"]),
    ("ionice", &["-c", "-n", "--class", "--classdata"]), ("busybox", &[]), ("toybox", &[]), ("exec", &["-a"]),
    ("timeout", &["-s", "--signal", "-k", "--kill-after"]), ("doas", &["-u", "-C"]), ("pkexec", &["--user"]),
    ("sudo", SUDO_VALS), ("sudo-rs", SUDO_VALS),
    ("please", &["-a", "--allowenv", "-c", "--check", "-d", "--dir", "-r", "--reason", "-t", "--target", "-u"]),
    ("run0", &["-u", "--user", "-g", "--group", "-D", "--chdir", "--unit", "--property", "--description", "--slice", "--nice", "--setenv", "--machine"]),
    ("systemd-run", &["-u", "--unit", "-p", "--property", "--description", "--slice", "-E", "--setenv", "--uid", "--gid", "--nice", "--working-directory",
        "-M", "--machine", "-H", "--host", "--on-active", "--on-boot", "--on-startup", "--on-unit-active", "--on-unit-inactive", "--on-calendar",
        "--timer-property", "--path-property", "--socket-property", "--service-type", "--shell-prompt-prefix", "--background", "--json"]),
    ("flatpak-spawn", &["--env", "--unset-env", "--directory", "--forward-fd", "--sandbox-expose", "--sandbox-expose-ro", "--sandbox-expose-path",
        "--sandbox-expose-path-ro", "--sandbox-flag", "--app-path", "--usr-path"]),
    ("host-spawn", &[]), ("distrobox-host-exec", &[]),
    ("env", &["-u", "--unset", "-C", "--chdir", "-S", "--split-string"]),
    ("xargs", &["-I", "-n", "-L", "-P", "-d", "-E", "-s", "-a", "--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-lines", "--replace", "--eof", "--max-chars", "--process-slot-var"]),
    ("prlimit", &["-p", "--pid", "-o", "--output"]), ("setarch", &[]),
    ("ssh-agent", &["-a", "-E", "-t", "-P", "-O"]), ("chrt", &["-T", "--sched-runtime", "-P", "--sched-period", "-D", "--sched-deadline"]),
    ("taskset", &[]), ("setsid", &[]), ("eatmydata", &[]),
    ("unshare", &["-S", "--setuid", "-G", "--setgid", "-R", "--root", "-w", "--wd", "--propagation", "--map-user", "--map-group"]),
    ("catchsegv", &[]), ("dbus-run-session", &["--config-file", "--dbus-daemon"]), ("systemd-inhibit", &["--what", "--who", "--why", "--mode"]),
    ("caffeinate", &["-t", "-w"]), ("chronic", &[]), ("cpulimit", &["-l", "--limit", "-p", "--pid", "-e", "--exe"]), ("nocache", &[]),
    ("fakeroot", &["-l", "--lib", "--faked", "-s", "-i", "-b"]), ("trickle", &["-u", "-d", "-w", "-t", "-l", "-n"]), ("unbuffer", &[]),
    ("builtin", &[]), ("noglob", &[]), ("nocorrect", &[]), ("runcon", &["-u", "-r", "-t", "-l", "--user", "--role", "--type", "--range"]),
    ("ifne", &[]), ("numactl", &["-C", "--cpunodebind", "-N", "-m", "--membind", "-i", "--interleave", "-p", "--preferred", "--physcpubind"]),
    ("cgexec", &["-g"]), ("systemd-cat", &["-t", "--identifier", "-p", "--priority", "--stderr-priority", "--level-prefix"]),
    ("setpriv", &["--reuid", "--regid", "--ruid", "--euid", "--rgid", "--egid", "--groups", "--inh-caps", "--ambient-caps", "--bounding-set",
        "--securebits", "--pdeathsig", "--selinux-label", "--apparmor-profile", "--landlock-access", "--landlock-rule"]),
];

#[rustfmt::skip]
const SUDO_VALS: &[&str] = &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "-R", "--user", "--group", "--chdir", "--host", "--prompt",
    "--role", "--type", "--other-user", "--close-from", "--command-timeout", "--chroot"];

/// The architectures (personalities) `setarch` knows.
#[rustfmt::skip]
const ARCHES: &[&str] = &["linux32", "linux64", "uname26", "i386", "i486", "i586", "i686", "x86_64", "amd64", "x32", "aarch64", "arm64", "arm",
    "armv7l", "armv8l", "armh", "ppc", "ppc32", "ppc64", "ppcle", "ppc64le", "ppc64pseries", "ppc64iseries", "s390", "s390x", "sparc",
    "sparc32", "sparc32bash", "sparc64", "mips", "mips32", "mips64", "parisc", "parisc32", "parisc64", "ia64", "alpha", "loongarch",
    "loongarch64", "riscv32", "riscv64"];

/// The aliases of `setarch` util-linux installs as programs (`linux64 CMD` is `setarch linux64
/// CMD`).
#[rustfmt::skip]
const ARCH_ALIASES: &[&str] = &["linux32", "linux64", "uname26", "i386", "x86_64", "ppc", "ppc32", "ppc64", "sparc", "sparc32", "sparc32bash",
    "sparc64", "s390", "s390x", "ia64", "parisc", "parisc32", "parisc64", "mips", "mips32", "mips64"];

/// What a wrapper takes between its options and the command it runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Positional {
    /// Nothing: the command follows the options.
    None,
    /// `timeout DURATION CMD`.
    Duration,
    /// `setarch ARCH [options] CMD` (the architecture may be left out; options may follow it).
    Arch,
    /// `chrt PRIORITY CMD`.
    Priority,
    /// `taskset MASK CMD` (or a CPU list with `-c`).
    Mask,
    /// `runcon CONTEXT CMD` when no option names the context's parts.
    Context,
}

fn positional(n: &str, opts: &[String]) -> Positional {
    match n {
        "timeout" => Positional::Duration,
        "setarch" => Positional::Arch,
        "chrt" => Positional::Priority,
        "taskset" => Positional::Mask,
        "runcon" if opts.is_empty() => Positional::Context,
        _ => Positional::None,
    }
}

/// Does `w` look like what `kind` expects? A word that does not is still skipped (the wrapper
/// would read it so), but the command asks: the gate cannot tell what runs.
fn looks_like(kind: Positional, w: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match kind {
        Positional::None => true,
        Positional::Duration => {
            let num = w.trim_end_matches(['s', 'm', 'h', 'd']);
            w == "infinity"
                || (!num.is_empty()
                    && num.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                    && num.bytes().any(|b| b.is_ascii_digit()))
        }
        Positional::Arch => ARCHES.contains(&w),
        Positional::Priority => digits(w),
        Positional::Mask => {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_hexdigit() || b"xX,-:".contains(&b))
        }
        Positional::Context => w.contains(':'),
    }
}

/// Could `w` be a program name (`rm`, `./x`, `/usr/bin/rm`) rather than a word known only at run
/// time (`$(uname -m)`)?
fn plain_name(w: &str) -> bool {
    !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._+-/".contains(c))
}

/// The length of a cluster of short options (`-iu root`): 2 when the first letter in `vals` ends
/// the cluster and so takes the next word, 1 otherwise (no value, or the value is attached).
fn short_cluster(x: &str, vals: &[&str]) -> usize {
    for (i, c) in x.char_indices().skip(1) {
        let takes = vals.iter().any(|v| {
            v.strip_prefix('-')
                .is_some_and(|r| r.len() == c.len_utf8() && r.starts_with(c))
        });
        if takes {
            return if i + c.len_utf8() == x.len() { 2 } else { 1 };
        }
    }
    1
}

/// Where the first operand at or after `from` is, reading options as getopt does: `--` ends them,
/// a long option in `vals` takes the next word unless it has `=value` (GNU abbreviations count),
/// and in a cluster of short options the first letter in `vals` takes the rest of the cluster or
/// the next word.
pub(super) fn getopt_operand(args: &[String], from: usize, vals: &[&str]) -> Option<usize> {
    let mut k = from;
    while let Some(x) = args.get(k) {
        if x == "--" {
            return (k + 1 < args.len()).then_some(k + 1);
        }
        if x.len() < 2 || !x.starts_with('-') {
            return Some(k);
        }
        k += if x.starts_with("--") {
            if takes_value(x, vals) { 2 } else { 1 }
        } else {
            short_cluster(x, vals)
        };
    }
    None
}

fn wrapper_vals(n: &str) -> Option<&'static [&'static str]> {
    WRAPPERS.iter().find(|(w, _)| *w == n).map(|(_, v)| *v)
}

/// Is `n` a wrapper (a program that runs the command after its own options)?
pub(super) fn is_wrapper(n: &str) -> bool {
    wrapper_vals(n).is_some() || ARCH_ALIASES.contains(&n)
}

/// Where a wrapper's command starts in `args`, and whether a positional before it (`setarch
/// ARCH`, `timeout DURATION`) did not look like one. `None`: it runs no command.
fn inner(n: &str, args: &[String]) -> Option<(usize, bool)> {
    if n == "env" {
        return env_inner(args).map(|j| (j, false));
    }
    let vals = wrapper_vals(n).unwrap_or_default();
    let j = getopt_operand(args, 0, vals)?;
    let opts = args.get(..j).unwrap_or_default();
    // Forms that name a process or a program instead of running one.
    let names_only = match n {
        "command" => opts.iter().any(|x| short_has(x, "vV")),
        "taskset" | "chrt" => opts
            .iter()
            .any(|x| short_has(x, "p") || long_is(x, "--pid")),
        "ionice" => has(opts, &["-p", "--pid", "-P", "--pgid", "-u", "--uid"]),
        _ => false,
    };
    if names_only {
        return None;
    }
    let kind = positional(n, opts);
    if kind == Positional::None {
        return Some((j, false));
    }
    let w = args.get(j).map_or("", String::as_str);
    if kind == Positional::Arch && !looks_like(kind, w) && plain_name(w) {
        return Some((j, false)); // `setarch -R CMD`: the architecture is optional
    }
    let after = if kind == Positional::Arch {
        getopt_operand(args, j + 1, vals)? // setarch reads its options after the architecture too
    } else {
        j + 1
    };
    (after < args.len()).then_some((after, !looks_like(kind, w)))
}

/// Where a wrapper's command starts in `args` (`None`: not a wrapper, or it runs no command):
/// what a rule for the wrapped command keeps word for word in front of it.
pub(super) fn inner_start(n: &str, args: &[String]) -> Option<usize> {
    if !is_wrapper(n) {
        return None;
    }
    let (j, doubtful) = inner(n, args)?;
    (!doubtful).then_some(j)
}

pub(super) fn classify(argv: &[String], a: &mut Acc, depth: u8) {
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
pub(super) fn step(n: &str, args: &[String], a: &mut Acc, depth: u8) -> Option<usize> {
    if !is_wrapper(n) {
        terminal(n, args, a, depth);
        return None;
    }
    // The wrapper's own options: up to its first operand (getopt stops there).
    let opts_end =
        getopt_operand(args, 0, wrapper_vals(n).unwrap_or_default()).unwrap_or(args.len());
    let lead = args.get(..opts_end).unwrap_or_default();
    match n {
        "sudo" | "sudo-rs" | "doas" | "pkexec" | "run0" | "please" => {
            a.flag(
                Danger::Admin,
                format!("{} runs the command as administrator", q(n)),
            );
        }
        "systemd-run" | "flatpak-spawn" | "host-spawn" | "distrobox-host-exec" => {
            host_wrapper(n, lead, a);
        }
        "xargs" => {
            let inner = next_operand(args, wrapper_vals(n).unwrap_or_default())
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
        env_flags(args, a);
    }
    let (j, doubtful) = inner(n, args)?;
    if doubtful {
        let w = args.get(j.saturating_sub(1)).map_or("", String::as_str);
        a.flag(
            Danger::Opaque,
            format!(
                "{} is given {} where it expects {}, so what it runs is unclear",
                q(n),
                q(w),
                match positional(n, lead) {
                    Positional::Duration => "a duration",
                    Positional::Arch => "an architecture",
                    Positional::Priority => "a priority",
                    Positional::Mask => "a CPU mask",
                    Positional::Context | Positional::None => "a security context",
                }
            ),
        );
    }
    Some(j)
}

/// `env [NAME=VALUE]… CMD`: only safe names and no options keep it transparent; bare `env`
/// prints the environment, which holds secrets.
fn env_flags(args: &[String], a: &mut Acc) {
    let j = args
        .iter()
        .position(|x| !x.contains('=') || x.starts_with('-'));
    let Some(j) = j else {
        a.flag(
            Danger::Opaque,
            "`env` prints the environment, which can hold secrets",
        );
        return;
    };
    let assigns = args.get(..j).unwrap_or_default();
    let unsafe_names = assigns
        .iter()
        .filter_map(|x| x.split_once('=').map(|(k, _)| k))
        .any(|k| !super::shell::safe_env(k));
    if args.get(j).is_some_and(|x| x.starts_with('-')) || unsafe_names {
        a.flag(
            Danger::Opaque,
            "`env` can change the environment and `PATH`, so what runs",
        );
    }
}

/// Where `env`'s command starts: after its options and `NAME=VALUE` words.
fn env_inner(args: &[String]) -> Option<usize> {
    let j = args
        .iter()
        .position(|x| !x.contains('=') || x.starts_with('-'))?;
    if args.get(j).is_some_and(|x| x.starts_with('-')) {
        let k = next_operand(args, wrapper_vals("env").unwrap_or_default())?;
        let k = k + args.iter().skip(k).take_while(|x| x.contains('=')).count();
        return (k < args.len()).then_some(k);
    }
    Some(j)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn wrappers_find_their_command() {
        for (line, program) in [
            ("x86_64 -R rm", "rm"),
            ("x86_64 rm", "rm"),
            ("-R x86_64 rm", "rm"),
            ("x86_64 --addr-no-randomize -3 -L rm", "rm"),
            ("-R rm -rf build", "rm"),
            ("5 rm", "rm"),
            ("-s KILL 5 rm", "rm"),
        ] {
            let args = argv(line);
            let n = if line.starts_with('5') || line.starts_with("-s") {
                "timeout"
            } else {
                "setarch"
            };
            let got = inner_start(n, &args).and_then(|j| args.get(j));
            assert_eq!(got.map(String::as_str), Some(program), "{n} {line}");
        }
        let sudo = argv("-iu root rm -rf x");
        assert_eq!(inner_start("sudo", &sudo), Some(2));
        let runcon = argv("system_u:system_r:unconfined_t:s0 rm");
        assert_eq!(inner_start("runcon", &runcon), Some(1));
        assert_eq!(inner_start("runcon", &argv("-t unconfined_t rm")), Some(2));
        assert_eq!(inner_start("linux64", &argv("-R rm")), Some(1));
        assert_eq!(inner_start("env", &argv("A=1 B=2 ls")), Some(2));
        assert_eq!(inner_start("env", &argv("-i A=1 ls")), Some(2));
        assert_eq!(inner_start("timeout", &argv("$T rm")), None, "doubtful");
        assert_eq!(inner_start("ls", &argv("-l")), None);
    }
}
