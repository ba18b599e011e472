//! `tradewind sandbox-exec`: the server's own confinement helper (safe Rust: no `unsafe`, no
//! `pre_exec`). In the Landlock fallback it is the whole confinement: it starts a new session,
//! confines itself (`tradewind_confine`: a Landlock ruleset with signal and abstract-socket
//! scoping where the kernel has them, and a seccomp filter), becomes the child subreaper, runs
//! the command as its child and, when the command ends or the helper is told to stop (SIGTERM,
//! SIGINT, SIGHUP), kills every descendant left — `setsid` and double-forked ones included —
//! before it exits with the command's status. In the jail, the small `tradewind-confine` binary
//! does the confining instead when it is installed beside the server; this one (`--exec`)
//! confines and becomes the command when it is not.

use std::process::ExitCode;

use tradewind_confine::{cannot_start, confine, exec_in_place, parse};

/// The helper's entry point, before any async runtime: one thread, so the Landlock domain and
/// the seccomp filter (both per thread) cover the thread that starts the command.
pub fn run(args: Vec<std::ffi::OsString>) -> ExitCode {
    // In the jail, the PID namespace already ends every process with the command and signals
    // reach it directly: the helper confines itself and becomes the command (no runtime, no
    // child to watch).
    if args
        .iter()
        .take_while(|a| a.as_os_str() != "--")
        .any(|a| a.as_os_str() == "--exec")
    {
        return exec_in_place(args);
    }
    match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt.block_on(exec(args)),
        Err(e) => {
            eprintln!("tradewind sandbox-exec: {e}");
            ExitCode::from(125)
        }
    }
}

/// `tradewind sandbox-exec [--rw DIR]… [--ro DIR]… [--network-deny] -- PROGRAM ARGS…`
pub async fn exec(args: Vec<std::ffi::OsString>) -> ExitCode {
    if args.len() == 1 && args[0] == "--probe" {
        return tradewind_confine::probe();
    }
    let (rules, prog, rest) = match parse(args) {
        Ok(x) => x,
        Err(code) => return code,
    };
    // A new session (and process group) the server can signal as one; fails only when already
    // a group leader, which the server avoids.
    let _ = rustix::process::setsid();
    if rules.tty {
        tradewind_confine::take_terminal();
    }
    let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    if let Err(code) = confine(&rules) {
        return code;
    }
    let mut child = match tokio::process::Command::new(&prog).args(rest).spawn() {
        Ok(c) => c,
        Err(e) => return cannot_start(&prog, &e),
    };
    let signals = [
        tokio::signal::unix::SignalKind::terminate(),
        tokio::signal::unix::SignalKind::interrupt(),
        tokio::signal::unix::SignalKind::hangup(),
    ]
    .map(tokio::signal::unix::signal);
    let [Ok(mut term), Ok(mut int), Ok(mut hup)] = signals else {
        kill_descendants();
        return ExitCode::from(125);
    };
    // A stop request (the server signals the whole group) is passed on to every descendant —
    // those that left the group with `setsid` too — and the command gets its grace period; the
    // server's hard kill (`kill_tree`) ends whatever is left.
    let code = loop {
        let sig = tokio::select! {
            s = child.wait() => break match s {
                Ok(s) => status_code(s),
                Err(_) => 125,
            },
            _ = term.recv() => rustix::process::Signal::TERM,
            _ = int.recv() => rustix::process::Signal::INT,
            _ = hup.recv() => rustix::process::Signal::HUP,
        };
        signal_descendants(std::process::id(), sig);
    };
    kill_descendants();
    let _ = child.try_wait();
    ExitCode::from(code)
}

fn status_code(s: std::process::ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (s.code(), s.signal()) {
        (Some(c), _) => u8::try_from(c).unwrap_or(1),
        (None, Some(sig)) => u8::try_from(128 + sig).unwrap_or(255),
        _ => 1,
    }
}

/// Kill every process below `root` (not `root` itself), several rounds so a fork racing the
/// scan is caught: the server's hard stop, before it kills the group.
pub fn kill_tree(root: u32) {
    for _ in 0..5 {
        if signal_descendants(root, rustix::process::Signal::KILL) == 0 {
            break;
        }
    }
}

/// The hard stop of a command: its whole tree (`kill_tree`), then the group it leads.
pub fn kill_tree_and_group(leader: u32) {
    kill_tree(leader);
    if let Some(p) = i32::try_from(leader)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(p, rustix::process::Signal::KILL);
    }
}

/// Kill every jail whose command line carries `TW_JOB=<label>` (bubblewrap's own processes:
/// the PID namespace's init dies with everything in it), and wait (at most 2 s) until they are
/// gone. How many were hit.
pub fn kill_labelled(label: &str) -> usize {
    let needle = format!("\0TW_JOB\0{label}\0");
    let carries = |pid: i32| {
        std::fs::read(format!("/proc/{pid}/cmdline"))
            .is_ok_and(|cmd| cmd.windows(needle.len()).any(|w| w == needle.as_bytes()))
    };
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let hit: Vec<i32> = rd
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| carries(*pid))
        .collect();
    for pid in &hit {
        if let Some(p) = rustix::process::Pid::from_raw(*pid) {
            let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
        }
    }
    // A killed process's command line is gone once it has exited (a zombie has none).
    for _ in 0..200 {
        if !hit.iter().any(|pid| carries(*pid)) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    hit.len()
}

/// Kill what is left of the process group `pgid` whose leader has died.
pub fn kill_group(pgid: u32) {
    if let Some(p) = i32::try_from(pgid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(p, rustix::process::Signal::KILL);
    }
}

/// Send `sig` to every descendant of `root`; how many there were.
pub(crate) fn signal_descendants(root: u32, sig: rustix::process::Signal) -> usize {
    let kids = descendants(root);
    for pid in &kids {
        if let Some(p) = i32::try_from(*pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process(p, sig);
        }
    }
    kids.len()
}

/// Kill every process below this one (the command's group, and whatever was reparented here as
/// the subreaper: `setsid`, double forks), then reap them. Bounded rounds: a fork bomb racing
/// the kill is stopped by the server's group kill.
fn kill_descendants() {
    let me = std::process::id();
    let reap = || {
        while let Ok(Some(_)) = rustix::process::waitpid(None, rustix::process::WaitOptions::NOHANG)
        {
        }
    };
    for _ in 0..20 {
        if signal_descendants(me, rustix::process::Signal::KILL) == 0 {
            break;
        }
        reap();
        std::thread::sleep(std::time::Duration::from_millis(5));
        reap();
    }
}

/// All descendants of `root`, from `/proc/*/stat` parent links (zombies excluded).
pub(crate) fn descendants(root: u32) -> Vec<u32> {
    let mut parent: Vec<(u32, u32)> = Vec::new();
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    for e in rd.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        let state = crate::util::stat_field(&stat, 3).unwrap_or("");
        let ppid = crate::util::stat_field(&stat, 4)
            .and_then(|x| x.parse::<u32>().ok())
            .unwrap_or(0);
        if state != "Z" {
            parent.push((pid, ppid));
        }
    }
    let mut out = Vec::new();
    let mut frontier = vec![root];
    while let Some(p) = frontier.pop() {
        for (c, pp) in &parent {
            if *pp == p && !out.contains(c) {
                out.push(*c);
                frontier.push(*c);
            }
        }
    }
    out
}
