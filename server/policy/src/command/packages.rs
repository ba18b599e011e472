//! Package managers beyond installing (the `PKG` table): removing packages from the system or a
//! global location, and the commands that download code and run it in one step (`go run
//! PKG@latest`, `deno run npm:…`, `uv run --with X`, `npm link PKG`, `corepack`). Both ask as
//! `PackageInstall`: the first changes what every later command finds installed, the second runs
//! code nobody has read.

use super::*;

/// Package managers and the verbs that remove installed packages (program or family: `pip3` is
/// `pip`).
#[rustfmt::skip]
const PKG_REMOVE: &[(&str, &[&str])] = &[
    ("apt", &["remove", "purge", "autoremove", "autopurge"]), ("apt-get", &["remove", "purge", "autoremove", "autopurge"]),
    ("aptitude", &["remove", "purge"]), ("yum", YUM_REMOVE), ("dnf", YUM_REMOVE), ("microdnf", YUM_REMOVE), ("tdnf", YUM_REMOVE),
    ("zypper", &["remove", "rm"]), ("apk", &["del"]), ("opkg", &["remove"]), ("brew", &["uninstall", "remove", "rm", "autoremove", "untap"]),
    ("port", &["uninstall"]), ("snap", &["remove"]), ("flatpak", &["uninstall", "remove"]), ("pkg", &["delete", "remove", "autoremove"]),
    ("choco", &["uninstall"]), ("winget", &["uninstall", "remove"]), ("scoop", &["uninstall"]), ("pip", &["uninstall"]),
    ("pipx", &["uninstall", "uninstall-all"]), ("cargo", &["uninstall"]), ("gem", &["uninstall", "cleanup"]),
    ("conda", &["remove", "uninstall"]), ("mamba", &["remove", "uninstall"]), ("micromamba", &["remove", "uninstall"]),
    ("luarocks", &["remove"]), ("opam", &["remove", "uninstall"]), ("nvm", &["uninstall"]), ("asdf", &["uninstall"]),
    ("mise", &["uninstall"]), ("volta", &["uninstall"]), ("fnm", &["uninstall"]),
];
const YUM_REMOVE: &[&str] = &["remove", "erase", "autoremove", "groupremove"];

/// Verbs that remove globally installed packages with `-g`/`--global`; without it they edit the
/// project's own manifest, like an ordinary source change.
#[rustfmt::skip]
const GLOBAL_REMOVE: &[(&str, &[&str])] = &[
    ("npm", &["uninstall", "un", "unlink", "remove", "rm", "r"]), ("pnpm", &["remove", "rm", "uninstall", "un"]),
    ("bun", &["remove", "rm"]), ("deno", &["uninstall", "remove"]),
];

/// `go` build flags that take a value (before the package of `go run`).
#[rustfmt::skip]
const GO_VALS: &[&str] = &["-C", "-o", "-p", "-tags", "-ldflags", "-gcflags", "-asmflags", "-gccgoflags", "-mod", "-modfile", "-overlay",
    "-pkgdir", "-buildmode", "-compiler", "-installsuffix", "-pgo", "-covermode", "-coverpkg", "-exec", "-toolexec", "-buildvcs", "-race_NONE"];

fn global(args: &[String]) -> bool {
    args.iter()
        .any(|x| matches!(x.as_str(), "-g" | "--global" | "--location=global" | "-G"))
        || args
            .windows(2)
            .any(|w| w[0] == "--location" && w[1] == "global")
}

/// Removing packages, and fetching code to run it.
#[rustfmt::skip]
pub(super) fn packages(n: &str, f: &str, args: &[String], a: &mut Acc, depth: u8) {
    use Danger::PackageInstall;
    let verbs = pm_verbs(args);
    let verb = verbs.first().copied().unwrap_or_default();
    let is = |t: &[(&str, &[&str])], v: &str| t.iter().any(|(p, vs)| (*p == n || *p == f) && vs.contains(&v));
    // 1. Removal.
    for v in &verbs {
        if is(PKG_REMOVE, v) || (is(GLOBAL_REMOVE, v) && global(args)) {
            let g = if global(args) { " -g" } else { "" };
            a.flag(PackageInstall, format!("{} removes installed packages", q(&format!("{n} {v}{g}"))));
        }
    }
    let any = |p: &dyn Fn(&str) -> bool| args.iter().any(|x| p(x));
    let removes = match n {
        "dpkg" => any(&|x| short_has(x, "rP") || long_is(x, "--remove") || long_is(x, "--purge")),
        "rpm" => any(&|x| short_has(x, "e") || long_is(x, "--erase")),
        "pacman" | "yay" | "paru" => any(&|x| (x.starts_with("-R") && !x.starts_with("--")) || long_is(x, "--remove")),
        "nix-env" => any(&|x| (x.starts_with("-e") && !x.starts_with("--")) || long_is(x, "--uninstall")),
        "xbps-remove" | "pkg_delete" | "pip-autoremove" => true,
        _ => false,
    };
    if removes { a.flag(PackageInstall, format!("{} removes installed packages", q(n))); }
    let words: Vec<&str> = args.iter().filter(|x| !x.starts_with('-')).take(2).map(String::as_str).collect();
    if n == "uv" && matches!(words.as_slice(), ["pip" | "tool" | "python", "uninstall"]) {
        a.flag(PackageInstall, format!("{} removes installed packages", q(&format!("uv {}", words.join(" ")))));
    }
    // 2. Fetch and run.
    if f == "go" && let Some(k) = next_operand(args, &[]) {
        let rest = args.get(k + 1..).unwrap_or_default();
        if args.get(k).is_some_and(|s| s == "run")
            && let Some(pkg) = first_pos(rest, GO_VALS).filter(|p| p.contains('@') && !p.starts_with(['.', '/']))
        {
            a.flag(PackageInstall, format!("{} downloads that module version and runs it", q(&format!("go run {pkg}"))));
        }
        if rest.iter().any(|x| opt_in(x, &["-exec", "-toolexec"])) {
            a.flag(Danger::Opaque, format!("{} runs the build or its result through another program", q(&format!("go {}", args.get(k).map_or("", String::as_str)))));
        }
    }
    if f == "deno" {
        for x in args.iter().filter(|x| x.starts_with("npm:") || x.starts_with("jsr:")) {
            a.flag(PackageInstall, format!("{} makes `deno {verb}` download a package from the registry and run it", q(x)));
        }
        let runs = matches!(verb, "run" | "serve" | "bench" | "test" | "compile");
        let url = |x: &str| { let l = x.to_ascii_lowercase(); l.starts_with("https://") || l.starts_with("http://") };
        if runs && any(&url) {
            a.flag(PackageInstall, format!("{} downloads code from a URL and runs it", q(&format!("deno {verb}"))));
        }
    }
    if n == "uv" && verb == "run" && any(&|x| opt_in(x, &["--with", "--with-requirements", "--with-editable"])) {
        a.flag(PackageInstall, "`uv run --with` installs packages into a temporary environment and runs the command");
    }
    if matches!(f, "npm" | "pnpm" | "yarn" | "bun") && (verb == "link" || (f == "npm" && verb == "ln")) {
        let named = args.iter().skip_while(|x| x.as_str() != verb).skip(1).any(|x| !x.starts_with('-'));
        let what = if named {
            "links a globally installed package here, installing it from the registry if it is missing"
        } else {
            "links this package into the global install, where its programs run for every project"
        };
        a.flag(PackageInstall, format!("{} {what}", q(&format!("{n} {verb}"))));
    }
    // `yarn workspace NAME COMMAND…` runs a yarn command in that workspace: classified as one.
    if f == "yarn" && verb == "workspace" && depth < MAX_DEPTH {
        let k = args.iter().position(|x| x == verb).unwrap_or_default();
        if let Some(rest) = args.get(k + 2..).filter(|r| !r.is_empty()) {
            let inner: Vec<String> = std::iter::once(n.to_string()).chain(rest.iter().cloned()).collect();
            classify(&inner, a, depth + 1);
        }
    }
    if n == "corepack" && !verb.is_empty() {
        a.flag(PackageInstall, format!("{} downloads package managers or installs their shims", q(&format!("corepack {verb}"))));
        if !matches!(verb, "enable" | "disable" | "prepare" | "install" | "use" | "up" | "pack" | "hydrate") && depth < MAX_DEPTH {
            let k = args.iter().position(|x| x == verb).unwrap_or_default();
            classify(args.get(k..).unwrap_or_default(), a, depth + 1);
        }
    }
}
