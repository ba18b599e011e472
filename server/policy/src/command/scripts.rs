//! What an interpreter runs: a script or a module its arguments name, code written in its
//! arguments, or code it reads from standard input. Two checks read this: the class "runs code
//! given on standard input" (`echo … | node`, `ruby <<EOF`, `lua -`, `php < x.php`: code the
//! gate never sees, so it asks), and the "allow commands like this" rule, which must name the
//! script (`python3 manage.py`), never the interpreter alone (`python3` would allow any code).

use super::*;

/// Script names that are standard input.
const STDIN_NAMES: &[&str] = &["-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"];

/// What an interpreter's arguments make it run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Script {
    /// Not an interpreter, or one whose sub-command words say what runs (`deno test`).
    Plain,
    /// The script, module or program at this index of the arguments.
    At(usize),
    /// Code written in its arguments (`-c`, `-e`).
    Inline,
    /// Code from standard input: named (`-`, `/dev/stdin`), or read for want of a script.
    Stdin { explicit: bool },
    /// Nothing but what its arguments say (`--version`, `--check`, `--test`).
    Whole,
}

/// One interpreter's argument syntax.
struct Interp {
    names: &'static [&'static str],
    /// Options that take a value (the next word, unless attached).
    vals: &'static [&'static str],
    /// Options that run code written in the arguments; the short ones also inside clusters
    /// when `clusters` (`perl -pie`).
    inline: &'static [&'static str],
    clusters: bool,
    /// Options that make it run no code of its own without a script.
    info: &'static [&'static str],
}

const HELP: &[&str] = &["-v", "--version", "-V", "-h", "--help"];

#[rustfmt::skip]
const INTERPS: &[Interp] = &[
    Interp { names: &["node", "nodejs", "ts-node", "tsx", "electron"], clusters: true,
        vals: &["-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions", "--input-type", "--title", "--env-file",
            "--inspect-port", "--debug-port", "--watch-path", "--test-reporter", "--test-reporter-destination", "--test-name-pattern", "--test-skip-pattern"],
        inline: &["-e", "--eval", "-p", "--print"],
        info: &["-v", "--version", "-h", "--help", "-c", "--check", "--test", "--run", "--v8-options"] },
    Interp { names: &["ruby", "irb", "jruby", "truffleruby"], clusters: true, vals: &["-I", "-r", "-C", "-E", "--encoding"], inline: &["-e"],
        info: &["-v", "--version", "-h", "--help", "-c", "-y"] },
    Interp { names: &["perl"], clusters: true, vals: &["-I"], inline: &["-e", "-E"], info: HELP },
    Interp { names: &["php", "php-cli"], clusters: false, vals: &["-c", "-d", "-t", "-z", "-S"], inline: &["-r", "-R", "-B", "-E"],
        info: &["-v", "--version", "-h", "--help", "-i", "--info", "-m", "--modules", "-l", "--syntax-check", "-s", "--syntax-highlight", "-w",
            "--strip", "--ini", "-S", "--server", "--rf", "--rc", "--re", "--rz", "--ri"] },
    Interp { names: &["lua", "luajit"], clusters: true, vals: &[], inline: &["-e"], info: &["-v"] },
    Interp { names: &["julia"], clusters: false, vals: &["-p", "-t", "--threads", "-J", "--sysimage", "-C", "--cpu-target", "-L", "--load", "-O", "-H", "--home"],
        inline: &["-e", "-E", "--eval", "--print"], info: HELP },
    Interp { names: &["rscript"], clusters: false, vals: &[], inline: &["-e"], info: &["--version", "--help"] },
    Interp { names: &["r"], clusters: false, vals: &["-d", "--debugger"], inline: &["-e"], info: &["--version", "-h", "--help"] },
    Interp { names: &["tclsh", "wish"], clusters: false, vals: &["-encoding"], inline: &[], info: &[] },
    Interp { names: &["pwsh", "powershell", "pwsh-preview"], clusters: false,
        vals: &["-configurationname", "-executionpolicy", "-ex", "-ep", "-workingdirectory", "-wd", "-custompipename", "-settingsfile",
            "-outputformat", "-of", "-inputformat", "-if", "-windowstyle", "-w"],
        inline: &["-c", "-command", "-commandwithargs", "-cwa", "-e", "-ec", "-encodedcommand"], info: &["-v", "-version", "-h", "-help", "-?"] },
    Interp { names: &["osascript"], clusters: false, vals: &["-l", "-s"], inline: &["-e"], info: &[] },
    Interp { names: &["java"], clusters: false,
        vals: &["-cp", "-classpath", "--class-path", "-p", "--module-path", "--add-modules", "--add-opens", "--add-exports", "--limit-modules",
            "--upgrade-module-path", "--enable-native-access"],
        inline: &[], info: &["-version", "--version", "-h", "-help", "--help", "-showversion", "--show-version"] },
];

/// The script, the inline code or the standard input an interpreter runs (`Plain` for other
/// programs). `n` is the program's name as `prog_name` gives it.
/// Does a cluster of short options (`-we`) hold one of the inline-code letters before a letter
/// whose value takes the rest of the word (`-Itest` is `-I test`, no `-e`)?
fn cluster_inline(x: &str, letters: &str, vals: &[&str]) -> bool {
    for c in x.chars().skip(1) {
        if letters.contains(c) {
            return true;
        }
        if vals.iter().any(|v| v.len() == 2 && v.ends_with(c)) {
            return false;
        }
    }
    false
}

pub(super) fn script_at(n: &str, args: &[String]) -> Script {
    let f = fam(n);
    if SHELLS.contains(&f) {
        return shell_script(args);
    }
    match f {
        "python" | "pypy" => return python_script(args),
        "deno" | "bun" => return runtime_script(f, args),
        "go" => return go_script(args),
        "awk" | "gawk" | "mawk" | "nawk" => return awk_script(args),
        _ => {}
    }
    let Some(it) = INTERPS
        .iter()
        .find(|i| i.names.contains(&n) || i.names.contains(&f))
    else {
        return Script::Plain;
    };
    let lower = |x: &String| {
        if matches!(f, "pwsh" | "powershell") {
            x.to_ascii_lowercase()
        } else {
            x.clone()
        }
    };
    let mut k = 0;
    while let Some(x) = args.get(k).map(lower) {
        if x == "--" {
            return match args.get(k + 1) {
                Some(s) if STDIN_NAMES.contains(&s.as_str()) => Script::Stdin { explicit: true },
                Some(_) => Script::At(k + 1),
                None => Script::Stdin { explicit: false },
            };
        }
        if STDIN_NAMES.contains(&x.as_str()) {
            return Script::Stdin { explicit: true };
        }
        if !x.starts_with('-') || x.len() < 2 {
            return Script::At(k);
        }
        let name = x.split_once('=').map_or(x.as_str(), |(o, _)| o);
        let letters: String = it
            .inline
            .iter()
            .filter(|o| o.len() == 2)
            .filter_map(|o| o.chars().nth(1))
            .collect();
        if it.inline.contains(&name)
            || (it.clusters && !x.starts_with("--") && cluster_inline(&x, &letters, it.vals))
        {
            // `pwsh -Command -` and `pwsh -c -` read the code from standard input.
            let next = args.get(k + 1).map(String::as_str);
            return if matches!(f, "pwsh" | "powershell") && next == Some("-") {
                Script::Stdin { explicit: true }
            } else {
                Script::Inline
            };
        }
        if matches!(f, "pwsh" | "powershell") && (x == "-file" || x == "-f") {
            return match args.get(k + 1) {
                Some(s) if s == "-" => Script::Stdin { explicit: true },
                Some(_) => Script::At(k + 1),
                None => Script::Whole,
            };
        }
        if f == "php" && x == "-f" {
            return args.get(k + 1).map_or(Script::Whole, |_| Script::At(k + 1));
        }
        if f == "java" && matches!(x.as_str(), "-jar" | "-m" | "--module") {
            return args.get(k + 1).map_or(Script::Whole, |_| Script::At(k + 1));
        }
        if f == "r" && (x == "-f" || x == "--file") {
            return args.get(k + 1).map_or(Script::Whole, |_| Script::At(k + 1));
        }
        k += if takes_value(&x, it.vals) { 2 } else { 1 };
    }
    if args
        .iter()
        .map(lower)
        .any(|x| it.info.contains(&x.as_str()) || x.starts_with("--file="))
        || f == "java"
    {
        Script::Whole
    } else {
        Script::Stdin { explicit: false }
    }
}

fn shell_script(args: &[String]) -> Script {
    let vals = ["-o", "+o", "-O", "+O", "--rcfile", "--init-file"];
    if args
        .iter()
        .any(|x| short_has(x, "c") || x.starts_with("--command"))
    {
        return Script::Inline;
    }
    if args.iter().any(|x| short_has(x, "si")) {
        return Script::Stdin { explicit: true };
    }
    match first_pos(args, &vals) {
        Some(s) if STDIN_NAMES.contains(&s) => Script::Stdin { explicit: true },
        Some(_) => next_operand(args, &vals).map_or(Script::Whole, Script::At),
        None if args.iter().any(|x| x == "--version" || x == "--help") => Script::Whole,
        None => Script::Stdin { explicit: false },
    }
}

fn python_script(args: &[String]) -> Script {
    let mut k = 0;
    while let Some(x) = args.get(k) {
        if STDIN_NAMES.contains(&x.as_str()) {
            return Script::Stdin { explicit: true };
        }
        if !x.starts_with('-') {
            return Script::At(k);
        }
        if x == "--" {
            return args
                .get(k + 1)
                .map_or(Script::Stdin { explicit: false }, |_| Script::At(k + 1));
        }
        if short_has(x, "c") {
            return Script::Inline;
        }
        if short_has(x, "m") {
            // `-m MOD` or `-mMOD`: the module is what runs.
            let attached = x.split_once('m').is_some_and(|(_, r)| !r.is_empty());
            return if attached {
                Script::At(k)
            } else {
                args.get(k + 1).map_or(Script::Whole, |_| Script::At(k + 1))
            };
        }
        k += if x == "-W" || x == "-X" { 2 } else { 1 };
    }
    if args
        .iter()
        .any(|x| HELP.contains(&x.as_str()) || x == "-VV")
    {
        Script::Whole
    } else {
        Script::Stdin { explicit: false }
    }
}

/// `deno` and `bun`: a sub-command runs a script (`run`, `serve`), evaluates code (`eval`,
/// `-e`), starts a REPL, or is one of the many that say what runs by name (`test`, `fmt`); a
/// first operand that is a path is a script (`deno main.ts`, `bun x.ts`).
fn runtime_script(f: &str, args: &[String]) -> Script {
    let vals = [
        "-c",
        "--config",
        "-L",
        "--log-level",
        "--import-map",
        "--lock",
        "--cert",
        "--location",
        "--seed",
        "--ext",
        "--env-file",
        "--cwd",
    ];
    if args
        .iter()
        .any(|x| matches!(x.as_str(), "-e" | "--eval" | "-p" | "--print"))
    {
        return Script::Inline;
    }
    let Some(k) = next_operand(args, &vals) else {
        return if args.is_empty() && f == "deno" {
            Script::Stdin { explicit: false }
        } else {
            Script::Whole
        };
    };
    let sub = args.get(k).map_or("", String::as_str);
    let script = |from: usize| match next_operand(args.get(from..).unwrap_or_default(), &vals) {
        Some(j)
            if args
                .get(from + j)
                .is_some_and(|s| STDIN_NAMES.contains(&s.as_str())) =>
        {
            Script::Stdin { explicit: true }
        }
        Some(j) => Script::At(from + j),
        None => Script::Whole,
    };
    match sub {
        "run" | "serve" | "bench" => script(k + 1),
        "eval" => Script::Inline,
        "repl" => Script::Stdin { explicit: false },
        s if STDIN_NAMES.contains(&s) => Script::Stdin { explicit: true },
        s if s.contains(['.', '/', ':']) => Script::At(k),
        _ => Script::Plain,
    }
}

/// `go run PACKAGE`: the package (or files) runs; other sub-commands say what they do by name.
fn go_script(args: &[String]) -> Script {
    let Some(k) = next_operand(args, &[]) else {
        return Script::Plain;
    };
    if args.get(k).is_none_or(|s| s != "run") {
        return Script::Plain;
    }
    let vals = [
        "-C",
        "-o",
        "-p",
        "-tags",
        "-ldflags",
        "-gcflags",
        "-asmflags",
        "-gccgoflags",
        "-mod",
        "-modfile",
        "-overlay",
        "-pkgdir",
        "-buildmode",
        "-compiler",
        "-installsuffix",
        "-pgo",
        "-covermode",
        "-coverpkg",
        "-exec",
        "-toolexec",
    ];
    match next_operand(args.get(k + 1..).unwrap_or_default(), &vals) {
        Some(j) => Script::At(k + 1 + j),
        None => Script::Whole,
    }
}

/// `awk -f FILE` runs the file; `-f -` its standard input; otherwise the program is the first
/// operand, whose dangerous parts other checks find.
fn awk_script(args: &[String]) -> Script {
    for (k, x) in args.iter().enumerate() {
        let file = if x == "-f" || x == "--file" {
            args.get(k + 1).map(String::as_str)
        } else {
            x.strip_prefix("--file=")
                .or_else(|| x.strip_prefix("-f").filter(|r| !r.is_empty()))
        };
        if let Some(file) = file {
            return if STDIN_NAMES.contains(&file) {
                Script::Stdin { explicit: true }
            } else {
                Script::At(k)
            };
        }
    }
    Script::Plain
}

/// Why a command asks when its code comes from standard input.
pub(super) const STDIN_CODE: &str = "runs code given on standard input";

/// Where standard input comes from, for the reason.
pub(super) fn stdin_source(s: &Stdin) -> &'static str {
    match s {
        Stdin::Pipe => "the output of the command before it",
        Stdin::Text(_) => "a here-document or here-string",
        Stdin::File => "a redirected file",
        Stdin::Inherit => "whatever the tool's input is",
    }
}

/// The class "runs code given on standard input": an interpreter told to read its code from
/// standard input (`-`), or given none while its input is a pipe, a here-document or a file. The
/// gate never sees that code. (Python and the shells have checks of their own.)
pub(super) fn stdin_code(n: &str, args: &[String], a: &mut Acc) {
    let f = fam(n);
    if matches!(f, "python" | "pypy") || SHELLS.contains(&f) {
        return;
    }
    let fed = !matches!(a.stdin, Stdin::Inherit);
    if let Script::Stdin { explicit } = script_at(n, args)
        && (explicit || fed)
    {
        let why = format!(
            "{} {STDIN_CODE} ({}): the gate cannot see what it does",
            q(n),
            stdin_source(&a.stdin)
        );
        a.flag(Danger::Opaque, why);
    }
}
