//! Terminals in the browser: a real pseudo-terminal per terminal, its shell started in the
//! session's jail exactly as the agent's commands are (`Job::for_session`: the roots, the paths
//! its grants let in, never the SSH agent), owning the terminal (`--tty` to the helper). Output
//! goes to every attached socket and into a 256 KiB scrollback replayed on attach. A terminal
//! stays 10 s without a socket (a reconnect finds it), ends after 30 minutes without input,
//! with its session, or when its owner signs out. Nothing here starts before the first
//! terminal opens.

use std::collections::{HashMap, VecDeque};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::{broadcast, watch};

use crate::protocol::SessionId;

/// Output kept for a socket that attaches later.
pub const SCROLLBACK: usize = 256 * 1024;
/// How long a terminal waits for a socket after its last one closed.
pub const DETACHED_GRACE: Duration = Duration::from_secs(10);
/// How long a terminal lives without input.
pub const IDLE: Duration = Duration::from_secs(30 * 60);
/// Terminals per session, and in all.
pub const MAX_PER_SESSION: usize = 8;
pub const MAX_TOTAL: usize = 32;

fn now_ms() -> i64 {
    crate::util::now_ms()
}

/// One terminal.
pub struct Terminal {
    pub id: String,
    pub session: SessionId,
    /// Who opened it (`login:<id>` or `token:<id>`): only they attach to it.
    pub owner: String,
    pub created_at: i64,
    master: Arc<std::fs::File>,
    output: broadcast::Sender<Bytes>,
    scrollback: parking_lot::Mutex<VecDeque<u8>>,
    last_input: AtomicI64,
    attached: AtomicUsize,
    detached_at: AtomicI64,
    exit: watch::Sender<Option<Option<i32>>>,
    closed: tokio_util::sync::CancellationToken,
}

/// What an attached socket reads: the scrollback so far, then the live output, and the exit.
pub struct Attached {
    pub scrollback: Vec<u8>,
    pub output: broadcast::Receiver<Bytes>,
    pub exit: watch::Receiver<Option<Option<i32>>>,
    pub closed: tokio_util::sync::CancellationToken,
}

impl Terminal {
    /// Attach a socket.
    pub fn attach(&self) -> Attached {
        // Under the scrollback's lock: nothing written between the copy and the subscription
        // is lost or sent twice.
        let sb = self.scrollback.lock();
        let output = self.output.subscribe();
        self.attached.fetch_add(1, Ordering::SeqCst);
        Attached {
            scrollback: sb.iter().copied().collect(),
            output,
            exit: self.exit.subscribe(),
            closed: self.closed.clone(),
        }
    }

    /// A socket went away.
    pub fn detach(&self) {
        if self.attached.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.detached_at.store(now_ms(), Ordering::SeqCst);
        }
    }

    /// Keys typed (or pasted).
    pub async fn input(&self, bytes: Vec<u8>) -> std::io::Result<()> {
        self.last_input.store(now_ms(), Ordering::SeqCst);
        let master = self.master.clone();
        tokio::task::spawn_blocking(move || (&*master).write_all(&bytes))
            .await
            .map_err(std::io::Error::other)?
    }

    pub fn resize(&self, cols: u16, rows: u16) -> std::io::Result<()> {
        let ws = rustix::termios::Winsize {
            ws_row: rows.clamp(2, 500),
            ws_col: cols.clamp(2, 1000),
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        rustix::termios::tcsetwinsize(&*self.master, ws).map_err(std::io::Error::from)
    }

    pub fn exited(&self) -> bool {
        self.exit.borrow().is_some()
    }
}

/// The server's terminals.
#[derive(Default)]
pub struct Terminals {
    map: parking_lot::Mutex<HashMap<String, Arc<Terminal>>>,
    /// Why each closed terminal closed, told to a socket that attaches too late.
    reasons: parking_lot::Mutex<HashMap<String, &'static str>>,
    reaper: AtomicBool,
}

/// A pseudo-terminal pair: the master kept here, the other side the shell's.
fn open_pty(cols: u16, rows: u16) -> std::io::Result<(std::fs::File, std::os::fd::OwnedFd)> {
    use rustix::pty::OpenptFlags;
    let master =
        rustix::pty::openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC)?;
    rustix::pty::grantpt(&master)?;
    rustix::pty::unlockpt(&master)?;
    let name = rustix::pty::ptsname(&master, Vec::new())?;
    let slave = rustix::fs::open(
        name.as_c_str(),
        rustix::fs::OFlags::RDWR | rustix::fs::OFlags::NOCTTY | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    )?;
    let ws = rustix::termios::Winsize {
        ws_row: rows.clamp(2, 500),
        ws_col: cols.clamp(2, 1000),
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    rustix::termios::tcsetwinsize(&master, ws)?;
    Ok((std::fs::File::from(master), slave))
}

/// The user's shell: `$SHELL` where it is an absolute path that exists, else bash, else sh.
fn shell() -> std::path::PathBuf {
    std::env::var_os("SHELL")
        .map(std::path::PathBuf::from)
        .filter(|p| p.is_absolute() && p.is_file())
        .or_else(|| {
            ["/bin/bash", "/usr/bin/bash"]
                .iter()
                .map(std::path::PathBuf::from)
                .find(|p| p.is_file())
        })
        .unwrap_or_else(|| "/bin/sh".into())
}

impl Terminals {
    pub fn get(&self, id: &str) -> Option<Arc<Terminal>> {
        self.map.lock().get(id).cloned()
    }

    /// Why a terminal that is gone closed, if it closed here.
    pub fn closed_reason(&self, id: &str) -> Option<&'static str> {
        self.reasons.lock().get(id).copied()
    }

    /// Open a terminal: a shell in `cwd`, confined as `job` says (with the terminal its own).
    pub async fn open(
        self: &Arc<Self>,
        sandbox: Option<&crate::sandbox::Sandbox>,
        mut job: crate::sandbox::Job,
        session: &SessionId,
        owner: &str,
        cwd: &Path,
        size: (u16, u16),
    ) -> Result<Arc<Terminal>, String> {
        {
            let map = self.map.lock();
            if map.len() >= MAX_TOTAL {
                return Err(format!(
                    "{MAX_TOTAL} terminals are open on this server; close one"
                ));
            }
            if map.values().filter(|t| t.session == *session).count() >= MAX_PER_SESSION {
                return Err(format!(
                    "{MAX_PER_SESSION} terminals are open in this session; close one"
                ));
            }
        }
        let (master, slave) =
            open_pty(size.0, size.1).map_err(|e| format!("cannot open a terminal: {e}"))?;
        job.tty = true;
        job.ssh_agent = false;
        job.env.extend([
            ("TERM".to_string(), "xterm-256color".to_string()),
            ("COLORTERM".to_string(), "truecolor".to_string()),
        ]);
        let id = crate::util::new_id();
        job.label = Some(format!("terminal-{id}"));
        let prog = shell();
        let mut cmd = match sandbox {
            Some(sb) => sb.command(&job, &prog, &[])?,
            None => tokio::process::Command::new(&prog),
        };
        let stdio = |fd: &std::os::fd::OwnedFd| -> Result<std::process::Stdio, String> {
            fd.try_clone()
                .map(std::process::Stdio::from)
                .map_err(|e| format!("cannot open a terminal: {e}"))
        };
        cmd.current_dir(cwd)
            .stdin(stdio(&slave)?)
            .stdout(stdio(&slave)?)
            .stderr(stdio(&slave)?)
            .kill_on_drop(true);
        if let Some(sb) = sandbox {
            sb.env(&job, &mut cmd);
        } else {
            cmd.env("TERM", "xterm-256color");
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", prog.display()))?;
        // Only the shell holds its side now: its end is the reader's end of file.
        drop(slave);
        let (output, _) = broadcast::channel(256);
        let (exit, _) = watch::channel(None);
        let t = Arc::new(Terminal {
            id: id.clone(),
            session: session.clone(),
            owner: owner.to_string(),
            created_at: now_ms(),
            master: Arc::new(master),
            output,
            scrollback: parking_lot::Mutex::new(VecDeque::new()),
            last_input: AtomicI64::new(now_ms()),
            attached: AtomicUsize::new(0),
            detached_at: AtomicI64::new(now_ms()),
            exit,
            closed: tokio_util::sync::CancellationToken::new(),
        });
        let reader = t.clone();
        std::thread::Builder::new()
            .name("tw-terminal".into())
            .spawn(move || read_loop(&reader))
            .map_err(|e| format!("cannot read the terminal: {e}"))?;
        let waiter = t.clone();
        tokio::spawn(async move {
            let code = tokio::select! {
                s = child.wait() => s.ok().and_then(|s| s.code()),
                () = waiter.closed.cancelled() => {
                    let _ = child.kill().await;
                    None
                }
            };
            waiter.exit.send_replace(Some(code));
        });
        self.map.lock().insert(id.clone(), t.clone());
        tracing::info!(target: "tradewind::audit", terminal = %id, session = %session, owner = %owner, "terminal opened");
        self.start_reaper();
        Ok(t)
    }

    /// End a terminal (its shell killed), for `reason`.
    pub fn close(&self, id: &str, reason: &'static str) -> bool {
        let Some(t) = self.map.lock().remove(id) else {
            return false;
        };
        {
            let mut reasons = self.reasons.lock();
            if reasons.len() > 1000 {
                reasons.clear();
            }
            reasons.insert(id.to_string(), reason);
        }
        t.closed.cancel();
        tracing::info!(target: "tradewind::audit", terminal = %id, session = %t.session, owner = %t.owner, reason, "terminal closed");
        true
    }

    /// Every terminal of a session (it was deleted).
    pub fn close_session(&self, session: &SessionId) {
        let ids: Vec<String> = self
            .map
            .lock()
            .values()
            .filter(|t| t.session == *session)
            .map(|t| t.id.clone())
            .collect();
        for id in ids {
            self.close(&id, "session_deleted");
        }
    }

    /// Every terminal its owner opened (they signed out).
    pub fn close_owner(&self, owner: &str) {
        let ids: Vec<String> = self
            .map
            .lock()
            .values()
            .filter(|t| t.owner == owner)
            .map(|t| t.id.clone())
            .collect();
        for id in ids {
            self.close(&id, "signed_out");
        }
    }

    /// The session's terminals this owner may attach to.
    pub fn of(&self, session: &SessionId, owner: &str) -> Vec<Arc<Terminal>> {
        let mut v: Vec<Arc<Terminal>> = self
            .map
            .lock()
            .values()
            .filter(|t| t.session == *session && t.owner == owner)
            .cloned()
            .collect();
        v.sort_by_key(|t| t.created_at);
        v
    }

    /// Close what waited 10 s for a socket, sat 30 minutes without input, or ended with no
    /// socket to say so: one task, started with the first terminal, ending with the last.
    fn start_reaper(self: &Arc<Self>) {
        if self.reaper.swap(true, Ordering::SeqCst) {
            return;
        }
        let me = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(1)).await;
                let Some(me) = me.upgrade() else { return };
                let now = now_ms();
                let grace = i64::try_from(DETACHED_GRACE.as_millis()).unwrap_or(i64::MAX);
                let idle = i64::try_from(IDLE.as_millis()).unwrap_or(i64::MAX);
                let due: Vec<(String, &'static str)> = me
                    .map
                    .lock()
                    .values()
                    .filter_map(|t| {
                        let alone = t.attached.load(Ordering::SeqCst) == 0;
                        if alone && now - t.detached_at.load(Ordering::SeqCst) >= grace {
                            Some((t.id.clone(), if t.exited() { "closed" } else { "detached" }))
                        } else if now - t.last_input.load(Ordering::SeqCst) >= idle {
                            Some((t.id.clone(), "idle"))
                        } else {
                            None
                        }
                    })
                    .collect();
                for (id, why) in due {
                    me.close(&id, why);
                }
                if me.map.lock().is_empty() {
                    me.reaper.store(false, Ordering::SeqCst);
                    return;
                }
            }
        });
    }
}

/// Read the terminal's output until its shell and every process holding it end.
fn read_loop(t: &Terminal) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match (&*t.master).read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = Bytes::copy_from_slice(&buf[..n]);
        let mut sb = t.scrollback.lock();
        sb.extend(chunk.iter().copied());
        let over = sb.len().saturating_sub(SCROLLBACK);
        sb.drain(..over);
        let _ = t.output.send(chunk);
    }
}
