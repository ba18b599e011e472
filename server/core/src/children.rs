//! The processes the server starts for the agent: the shell it uses, the environment they
//! inherit, and their process group, stopped as a whole.

/// The fixed shell.
pub const SHELL: &str = "/bin/sh";
/// Environment variables a child inherits; nothing else (no provider keys, no tokens).
/// `SSH_AUTH_SOCK` passes through: keys stay usable through an agent (`git push` over SSH)
/// without being readable, since the sandbox hides `~/.ssh`.
pub const ENV_ALLOW: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TMPDIR",
    "TZ",
    "SHELL",
    "SSH_AUTH_SOCK",
];
/// Kills the whole process group when dropped (cancellation drops the future).
pub struct GroupGuard {
    pgid: Option<i32>,
}

impl GroupGuard {
    pub fn new(pid: u32) -> GroupGuard {
        GroupGuard {
            pgid: i32::try_from(pid).ok(),
        }
    }
    /// Signal the group; SIGKILL first kills every descendant of the leader (the sandbox
    /// helper adopts those that left the group with `setsid` or a double fork).
    pub fn signal(&self, sig: rustix::process::Signal) {
        match (self.pgid, sig) {
            (Some(pgid), rustix::process::Signal::KILL) => {
                crate::sandbox::kill_tree_and_group(pgid.unsigned_abs());
            }
            (Some(pgid), sig) => {
                crate::sandbox::stop(pgid.unsigned_abs(), sig);
            }
            (None, _) => {}
        }
    }
    pub fn disarm(&mut self) {
        self.pgid = None;
    }
}

impl Drop for GroupGuard {
    /// SIGTERM first — the sandbox helper passes it to every descendant, `setsid` and double
    /// forks included — and the hard stop of the whole tree a moment later.
    fn drop(&mut self) {
        let Some(pgid) = self.pgid.take() else { return };
        let leader = pgid.unsigned_abs();
        if !crate::sandbox::stop(leader, rustix::process::Signal::TERM) {
            return; // the group is gone already
        }
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            crate::sandbox::kill_tree_and_group(leader);
        });
    }
}
