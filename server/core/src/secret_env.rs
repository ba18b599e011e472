//! Secrets the server was started with in its environment (the access token, `DATABASE_URL`,
//! provider and service keys) kept out of `/proc/<server>/environ`: the kernel shows a process's
//! environment from the block laid out at `exec`, so removing a variable later (which only
//! drops a pointer to it) hides nothing. The server reads them once and blanks them in that
//! block ([`scrub_in_place`]); where that cannot be done and checked, it re-executes itself
//! without them and hands them over through an inherited memory file it reads and closes at
//! once ([`hand_over_and_reexec`], [`take_over`]). From then on they are read here ([`var`]),
//! never from the environment. The process is also made
//! non-dumpable, so other processes of the same user cannot read its memory through `/proc`.

use std::collections::HashMap;
use std::sync::OnceLock;

/// The variable that names the inherited file holding the secrets.
const FD_VAR: &str = "TW_SECRETS_FD";
/// At most this much is handed over.
const MAX_BYTES: usize = 1 << 20;

static SECRETS: OnceLock<HashMap<String, String>> = OnceLock::new();

/// Is this variable one the server keeps out of its environment?
pub fn is_secret_name(name: &str) -> bool {
    const SUFFIXES: [&str; 8] = [
        "_API_KEY",
        "_TOKEN",
        "_SECRET",
        "_KEY",
        "PASSWORD",
        "_PASS",
        "_CREDENTIALS",
        "_DSN",
    ];
    let upper = name.to_ascii_uppercase();
    matches!(upper.as_str(), "DATABASE_URL" | "TRADEWIND_TOKEN")
        || SUFFIXES.iter().any(|s| upper.ends_with(s))
}

/// A variable of the server's start: the handed-over secrets first, then the environment.
pub fn var(name: &str) -> Option<String> {
    if let Some(v) = SECRETS.get().and_then(|m| m.get(name)) {
        return Some(v.clone());
    }
    std::env::var(name).ok()
}

/// Before any thread or runtime exists: either take over the secrets a parent handed over, or —
/// when the environment holds any — keep them here and blank them in the environment, or, when
/// that fails its check, hand them over to a fresh copy of this program (same arguments, the
/// environment without them) and never return. Nothing to do returns at once.
pub fn hand_over_and_reexec() {
    if std::env::var_os(FD_VAR).is_some() {
        take_over();
        return;
    }
    let secrets: HashMap<String, String> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, v)| is_secret_name(k) && !v.is_empty())
        .collect();
    if secrets.is_empty() {
        let _ = SECRETS.set(HashMap::new());
        not_dumpable();
        return;
    }
    // First in place: the environment's bytes are overwritten where the kernel shows them from.
    if scrub_in_place(&secrets) {
        let _ = SECRETS.set(secrets);
        not_dumpable();
        return;
    }
    match reexec(&secrets) {
        // exec only returns on failure: go on with the secrets in the environment, said so.
        Err(e) => {
            eprintln!(
                "tradewind: cannot restart without secrets in the environment ({e}); /proc/<pid>/environ still holds them"
            );
            let _ = SECRETS.set(secrets);
            not_dumpable();
        }
        Ok(never) => match never {},
    }
}

/// Blank each secret's `NAME=value` string in the memory `/proc/self/environ` reads (the block
/// the kernel laid out at `exec`, between `env_start` and `env_end` of `/proc/self/stat`),
/// through `/proc/self/mem`. A blanked entry is an empty string, which the C library's `getenv`
/// and Rust's `std::env` skip: the variable is gone, as if the program had been started without
/// it, and no second `exec` is paid for (about 3 ms of every start). True only when checked:
/// the kernel's view holds none of the values and `std::env` none of the names. Under a tool
/// that gives the program an environment of its own (valgrind), the check fails and the caller
/// re-executes instead.
fn scrub_in_place(secrets: &HashMap<String, String>) -> bool {
    use std::os::unix::fs::FileExt;
    let Some((start, end)) = env_block() else {
        return false;
    };
    let Ok(len) = usize::try_from(end.saturating_sub(start)) else {
        return false;
    };
    if len == 0 || len > 16 << 20 {
        return false;
    }
    let Ok(mem) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/proc/self/mem")
    else {
        return false;
    };
    let mut block = vec![0u8; len];
    if mem.read_exact_at(&mut block, start).is_err() {
        return false;
    }
    let mut at = 0;
    for entry in block.split(|b| *b == 0) {
        if secrets.keys().any(|k| entry_named(entry, k)) {
            let blank = vec![0u8; entry.len()];
            if mem.write_all_at(&blank, start + at as u64).is_err() {
                return false;
            }
        }
        at += entry.len() + 1;
    }
    drop(mem);
    let shown = std::fs::read("/proc/self/environ").unwrap_or_default();
    secrets.iter().all(|(k, v)| {
        std::env::var_os(k).is_none()
            && !shown
                .split(|b| *b == 0)
                .any(|e| entry_named(e, k) || e.windows(v.len()).any(|w| w == v.as_bytes()))
    })
}

/// Is this `NAME=value` entry the variable `name`?
fn entry_named(entry: &[u8], name: &str) -> bool {
    entry
        .strip_prefix(name.as_bytes())
        .is_some_and(|r| r.first() == Some(&b'='))
}

/// `env_start` and `env_end` of `/proc/self/stat` (its 50th and 51st fields).
fn env_block() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let field = |n| crate::util::stat_field(&stat, n)?.parse().ok();
    Some((field(50)?, field(51)?))
}

fn reexec(secrets: &HashMap<String, String>) -> std::io::Result<std::convert::Infallible> {
    use std::io::{Seek, Write};
    use std::os::unix::process::CommandExt;
    let json = serde_json::to_vec(secrets).map_err(std::io::Error::other)?;
    if json.len() > MAX_BYTES {
        return Err(std::io::Error::other("the secrets are too large"));
    }
    // An anonymous memory file, inherited across exec (no close-on-exec), read and closed by
    // the new process before anything else runs.
    let fd = rustix::fs::memfd_create("tradewind-secrets", rustix::fs::MemfdFlags::empty())?;
    let mut file = std::fs::File::from(fd);
    file.write_all(&json)?;
    file.seek(std::io::SeekFrom::Start(0))?;
    let raw = std::os::fd::AsRawFd::as_raw_fd(&file);
    let mut args = std::env::args_os();
    let arg0 = args.next().unwrap_or_default();
    // This program again: the path it was started by when that names a file (under a tool like
    // valgrind `/proc/self/exe` is the tool), else the kernel's link to the running binary.
    let me = std::path::PathBuf::from(&arg0);
    let program = if me.components().count() > 1 && me.is_file() {
        me
    } else {
        std::path::PathBuf::from("/proc/self/exe")
    };
    let mut cmd = std::process::Command::new(program);
    cmd.arg0(arg0).args(args);
    for k in secrets.keys() {
        cmd.env_remove(k);
    }
    cmd.env(FD_VAR, raw.to_string());
    let err = cmd.exec();
    drop(file);
    Err(err)
}

/// The new process: read the handed-over secrets and empty the file. (It is reached through
/// `/proc/self/fd`, a description of its own: the inherited descriptor stays open, pointing at an
/// empty file, since closing a descriptor by number needs `unsafe`, which this crate forbids.)
fn take_over() {
    use std::io::Read;
    let fd = std::env::var(FD_VAR)
        .ok()
        .and_then(|v| v.parse::<i32>().ok())
        .filter(|fd| *fd > 2);
    let mut map = HashMap::new();
    if let Some(fd) = fd
        && let Ok(mut file) = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(format!("/proc/self/fd/{fd}"))
    {
        let mut buf = Vec::new();
        if file
            .by_ref()
            .take(MAX_BYTES as u64)
            .read_to_end(&mut buf)
            .is_ok()
            && let Ok(m) = serde_json::from_slice::<HashMap<String, String>>(&buf)
        {
            map = m;
        }
        buf.iter_mut().for_each(|b| *b = 0);
        let _ = file.set_len(0);
    }
    let _ = SECRETS.set(map);
    not_dumpable();
}

/// No core dumps, no `/proc/<pid>/mem` or `environ` for other processes of the same user.
fn not_dumpable() {
    if let Err(e) =
        rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
    {
        eprintln!("tradewind: cannot make the process non-dumpable: {e}");
    }
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    #[test]
    fn entries_by_name() {
        assert!(entry_named(b"TRADEWIND_TOKEN=abc", "TRADEWIND_TOKEN"));
        assert!(entry_named(b"TRADEWIND_TOKEN=", "TRADEWIND_TOKEN"));
        assert!(!entry_named(b"TRADEWIND_TOKEN_FILE=x", "TRADEWIND_TOKEN"));
        assert!(!entry_named(b"TRADEWIND_TOKEN", "TRADEWIND_TOKEN"));
        assert!(!entry_named(b"", "TRADEWIND_TOKEN"));
    }

    /// The block `/proc/self/environ` is read from is where `/proc/self/stat` says.
    #[test]
    fn the_environment_block_is_found() {
        use std::os::unix::fs::FileExt;
        let (start, end) = env_block().unwrap();
        assert!(start < end);
        let mut block = vec![0u8; (end - start) as usize];
        std::fs::File::open("/proc/self/mem")
            .unwrap()
            .read_exact_at(&mut block, start)
            .unwrap();
        let shown = std::fs::read("/proc/self/environ").unwrap();
        assert_eq!(block, shown);
    }

    #[test]
    fn secret_names() {
        for n in [
            "TRADEWIND_TOKEN",
            "DATABASE_URL",
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "BRAVE_API_KEY",
            "PGPASSWORD",
            "SENTRY_DSN",
        ] {
            assert!(is_secret_name(n), "{n}");
        }
        for n in [
            "PATH",
            "HOME",
            "TRADEWIND_LOG",
            "RUST_LOG",
            "LANG",
            "KEYBOARD",
        ] {
            assert!(!is_secret_name(n), "{n}");
        }
    }
}
