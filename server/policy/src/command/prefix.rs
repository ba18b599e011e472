//! "Allow commands like this": how much of a command a prefix rule must hold. A rule is the
//! program and its leading sub-command words (`cargo test`, `npm run build`). For a program that
//! runs a script, a module or a package (`python3 manage.py`, `node scripts/x.js`, `go run
//! ./cmd/x`, `uv run pytest`, `npx tsc`) the rule must also name what runs: `python3` alone would
//! allow any code. A wrapper (`timeout 60`, `nice -n 5`) stays word for word in front of what it
//! wraps. Code written inline or given on standard input takes no rule at all.

use super::*;

/// Programs that run another command named after their own words: the program, the sub-command
/// words that do it (none: the program itself), and the options that take a value before it.
#[rustfmt::skip]
const RUNNERS: &[(&str, &[&str], &[&str])] = &[
    ("npx", &[], &["-p", "--package"]), ("bunx", &[], &["-p", "--package"]), ("pnpx", &[], &[]),
    ("uv", &["run"], &["--with", "--with-editable", "--with-requirements", "-p", "--python", "--package", "--env-file", "--directory", "--project",
        "--group", "--extra", "--index", "--index-url", "--extra-index-url", "--default-index", "-f", "--find-links", "--config-file", "--cache-dir"]),
    ("poetry", &["run"], &["-C", "--directory", "-P", "--project"]), ("pipenv", &["run"], &[]), ("pdm", &["run"], &["-p", "--project"]),
    ("hatch", &["run"], &["-e", "--env"]), ("rye", &["run"], &[]), ("conda", &["run"], &["-n", "--name", "-p", "--prefix", "--cwd"]),
    ("mamba", &["run"], &["-n", "--name", "-p", "--prefix", "--cwd"]), ("micromamba", &["run"], &["-n", "--name", "-p", "--prefix", "--cwd"]),
    ("bundle", &["exec"], &[]), ("pnpm", &["exec"], &["-C", "--dir", "--filter", "-F"]), ("yarn", &["exec"], &[]), ("npm", &["exec"], &[]),
    ("mise", &["exec", "x"], &["-C", "--cd"]), ("asdf", &["exec"], &[]), ("opam", &["exec"], &["--switch"]), ("xcrun", &[], &["--sdk", "--toolchain"]),
];

/// Where a runner's command starts in `args` (`None`: not a runner). A runner told to run inline
/// code (`npx -c CODE`) has no command: the answer is past the end.
fn runner(n: &str, args: &[String]) -> Option<usize> {
    let (_, subs, vals) = RUNNERS.iter().find(|(p, _, _)| *p == n)?;
    if n == "npx" && args.iter().any(|x| opt_in(x, &["-c", "--call"])) {
        return Some(args.len());
    }
    let from = if subs.is_empty() {
        0
    } else {
        let k = next_operand(args, vals)?;
        if !subs.contains(&args.get(k)?.as_str()) {
            return None;
        }
        k + 1
    };
    Some(wrappers::getopt_operand(args, from, vals).unwrap_or(args.len()))
}

/// A sub-command word a rule may hold after the program or script: plain lower-case words
/// (`test`, `run-all`, `db:migrate`), not options or paths.
fn sub_word(w: &str) -> bool {
    !w.is_empty()
        && w.len() <= 40
        && !w.starts_with('-')
        && w.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | ':'))
}

/// How many words of `argv` a rule must hold at least, and how many "allow commands like this"
/// suggests (those and up to two sub-command words after them). `None`: no rule may cover the
/// command (its code is inline or comes from standard input).
pub(crate) fn rule_span(argv: &[String]) -> Option<(usize, usize)> {
    let mut i = 0;
    // Wrappers and runners nest (`timeout 60 uv run python x.py`), boundedly.
    for _ in 0..16 {
        let n = prog_name(argv.get(i)?);
        let args = argv.get(i + 1..).unwrap_or_default();
        if let Some(j) = wrappers::inner_start(&n, args).or_else(|| runner(&n, args)) {
            i += 1 + j;
            continue;
        }
        let min = match script_at(&n, args) {
            Script::Plain => i + 1,
            Script::At(k) => i + k + 2,
            Script::Whole => argv.len(),
            Script::Inline | Script::Stdin { .. } => return None,
        };
        let rest = argv.get(min..).unwrap_or_default();
        let extra = rest
            .iter()
            .take_while(|w| sub_word(w.as_str()))
            .take(2)
            .count();
        return Some((min, min + extra));
    }
    None
}

/// Does the rule `prefix` cover the command `argv`: does the command start with the whole rule,
/// and does the rule name everything a rule for it must (the script of an interpreter, what a
/// wrapper wraps)? A rule stored before scripts were required (`["python3"]`) covers no script.
pub(crate) fn rule_covers(prefix: &[String], argv: &[String]) -> bool {
    !prefix.is_empty()
        && argv.starts_with(prefix)
        && rule_span(argv).is_some_and(|(min, _)| prefix.len() >= min)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(s: &str) -> Option<Vec<String>> {
        let argv: Vec<String> = s.split(' ').map(str::to_string).collect();
        rule_span(&argv).map(|(_, n)| argv.iter().take(n).cloned().collect())
    }

    #[test]
    fn rules_name_what_runs() {
        let cases: &[(&str, Option<&str>)] = &[
            ("python3 manage.py test", Some("python3 manage.py test")),
            (
                "python3 -u manage.py runserver",
                Some("python3 -u manage.py runserver"),
            ),
            ("python3 -m pytest -q", Some("python3 -m pytest")),
            ("python3 -c print(1)", None),
            ("python3 -", None),
            ("python3", None),
            ("python3 --version", Some("python3 --version")),
            (
                "node scripts/build.js --prod",
                Some("node scripts/build.js"),
            ),
            ("node -e x", None),
            ("node --test tests/", Some("node --test tests/")),
            ("bash scripts/test.sh", Some("bash scripts/test.sh")),
            ("sh -c ls", None),
            ("ruby -Itest test/x.rb", Some("ruby -Itest test/x.rb")),
            ("deno run -A main.ts", Some("deno run -A main.ts")),
            ("deno test", Some("deno test")),
            ("deno task build", Some("deno task build")),
            ("bun run build", Some("bun run build")),
            ("bun x.ts", Some("bun x.ts")),
            ("go run ./cmd/x -v", Some("go run ./cmd/x")),
            ("go run .", Some("go run .")),
            ("go test ./...", Some("go test")),
            ("uv run pytest -q", Some("uv run pytest")),
            ("uv run python x.py", Some("uv run python x.py")),
            ("npx tsc --noEmit", Some("npx tsc")),
            ("npx -c x", None),
            ("timeout 60 cargo test", Some("timeout 60 cargo test")),
            ("nice -n 5 python3 x.py", Some("nice -n 5 python3 x.py")),
            ("cargo test -p x", Some("cargo test")),
            ("npm run build", Some("npm run build")),
            ("php artisan test", Some("php artisan test")),
            ("java -jar app.jar", Some("java -jar app.jar")),
            ("perl script.pl", Some("perl script.pl")),
            ("lua -", None),
        ];
        for (cmd, want) in cases {
            assert_eq!(
                span(cmd),
                want.map(|w| w.split(' ').map(str::to_string).collect()),
                "{cmd}"
            );
        }
    }

    #[test]
    fn a_rule_covers_only_commands_with_its_whole_script() {
        let v = |s: &str| -> Vec<String> { s.split(' ').map(str::to_string).collect() };
        assert!(rule_covers(
            &v("python3 manage.py"),
            &v("python3 manage.py test")
        ));
        assert!(rule_covers(
            &v("python3 manage.py test"),
            &v("python3 manage.py test --keepdb")
        ));
        assert!(!rule_covers(
            &v("python3 manage.py test"),
            &v("python3 manage.py shell")
        ));
        assert!(
            !rule_covers(&v("python3"), &v("python3 evil.py")),
            "an interpreter alone covers no script"
        );
        assert!(!rule_covers(&v("python3"), &v("python3 -c x")));
        assert!(!rule_covers(&v("node"), &v("node x.js")));
        assert!(!rule_covers(&v("uv run"), &v("uv run python x.py")));
        assert!(!rule_covers(&v("timeout 5"), &v("timeout 5 node x.js")));
        assert!(rule_covers(&v("cargo"), &v("cargo build")));
        assert!(!rule_covers(&v("cargo test"), &v("cargo testx")));
        assert!(!rule_covers(&[], &v("ls")));
    }
}
