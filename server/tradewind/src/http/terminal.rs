//! The terminal channel of the app's WebSocket: `terminal_open` attaches the socket to a
//! terminal under a one-byte channel number; binary frames whose first byte is that number
//! carry its output and its input (binary frames are legal only on such a channel); text
//! frames resize and close it and say when it ended.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::AppState;
use super::outbound::Out;
use crate::error::ApiError;
use crate::protocol::{TokenScope, WsServerFrame};
use tradewind_core::terminals::Terminal;

/// The terminals one socket is attached to, by channel.
#[derive(Default)]
pub struct Channels {
    open: HashMap<u8, (Arc<Terminal>, JoinHandle<()>)>,
}

/// Who a socket's terminals belong to: its sign-in, or its token.
pub fn owner_of(p: &crate::auth::Principal) -> String {
    match p {
        crate::auth::Principal::Cookie { login_session_id } => format!("login:{login_session_id}"),
        crate::auth::Principal::Bearer { token_id: Some(t) } => format!("token:{t}"),
        crate::auth::Principal::Bearer { token_id: None } => "token:access".into(),
    }
}

/// Why this server gives no terminal, if it gives none.
pub fn refusal(state: &AppState) -> Option<String> {
    if !state.cfg.terminal_enabled {
        return Some(if state.cfg.read_only {
            "the server was started with --read-only".into()
        } else {
            "start the server with --allow-terminal (or terminal.enabled in config.json)".into()
        });
    }
    if !state.face.secure && !state.cfg.bind.is_loopback() {
        return Some(
            "terminals need HTTPS on a network bind: the server listens on plain HTTP".into(),
        );
    }
    None
}

impl Channels {
    /// Open (or attach to) a terminal for this socket.
    pub async fn open(
        &mut self,
        state: &AppState,
        granted: super::extract::Granted,
        owner: &str,
        frame: (&tradewind_core::protocol::SessionId, Option<&str>, u16, u16),
        tx: &mpsc::Sender<Out>,
    ) -> Result<serde_json::Value, ApiError> {
        let (session, attach, cols, rows) = frame;
        granted.require(TokenScope::Admin, "a terminal")?;
        if let Some(why) = refusal(state) {
            return Err(ApiError::from(
                tradewind_core::services::ServiceError::Refused {
                    code: "terminal_off",
                    message: why,
                },
            ));
        }
        let t = state
            .open_terminal(session, owner, attach, (cols, rows))
            .await?;
        if attach.is_some() {
            let _ = t.resize(cols, rows);
        }
        if let Some((ch, _)) = self.open.iter().find(|(_, (x, _))| x.id == t.id) {
            return Ok(serde_json::json!({ "terminal": t.id, "channel": ch }));
        }
        let Some(ch) = (1..=u8::MAX).find(|c| !self.open.contains_key(c)) else {
            return Err(ApiError::from(
                tradewind_core::services::ServiceError::Conflict(
                    "this socket has 255 terminals open".into(),
                ),
            ));
        };
        // Attached here, detached by whoever removes the channel: the count stays true even
        // when the forwarder is stopped before it ran.
        let a = t.attach();
        let h = tokio::spawn(forward(state.clone(), t.id.clone(), a, ch, tx.clone()));
        self.open.insert(ch, (t.clone(), h));
        Ok(serde_json::json!({ "terminal": t.id, "channel": ch }))
    }

    /// The channel's terminal, by its id.
    fn by_id(&self, id: &str) -> Option<(u8, &Arc<Terminal>)> {
        self.open
            .iter()
            .find(|(_, (t, _))| t.id == id)
            .map(|(ch, (t, _))| (*ch, t))
    }

    pub fn resize(&self, id: &str, cols: u16, rows: u16) -> Result<serde_json::Value, ApiError> {
        let (_, t) = self
            .by_id(id)
            .ok_or_else(|| ApiError::NotFound("terminal on this socket".into()))?;
        t.resize(cols, rows)
            .map_err(|e| ApiError::BadRequest(format!("cannot resize: {e}")))?;
        Ok(serde_json::json!({ "terminal": id }))
    }

    pub fn close(&mut self, state: &AppState, id: &str) -> Result<serde_json::Value, ApiError> {
        let (ch, _) = self
            .by_id(id)
            .ok_or_else(|| ApiError::NotFound("terminal on this socket".into()))?;
        if let Some((t, h)) = self.open.remove(&ch) {
            h.abort();
            t.detach();
        }
        state.terminals().close(id, "closed");
        Ok(serde_json::json!({ "terminal": id }))
    }

    /// A binary frame: input for the terminal of its first byte's channel. `false`: there is
    /// none (the socket is closed, 1003).
    pub async fn input(&self, frame: &[u8]) -> bool {
        let Some((&ch, rest)) = frame.split_first() else {
            return false;
        };
        let Some((t, _)) = self.open.get(&ch) else {
            return false;
        };
        if !rest.is_empty() && t.input(rest.to_vec()).await.is_err() {
            // The shell is gone; its exit frame says so.
        }
        true
    }

    /// The socket closed: its terminals wait 10 s for another.
    pub fn detach_all(&mut self) {
        for (_, (t, h)) in self.open.drain() {
            h.abort();
            t.detach();
        }
    }
}

/// A terminal's output to one socket: its scrollback, then what comes, then its end.
async fn forward(
    state: AppState,
    id: String,
    mut a: tradewind_core::terminals::Attached,
    ch: u8,
    tx: mpsc::Sender<Out>,
) {
    let frame = |bytes: &[u8]| {
        let mut v = Vec::with_capacity(bytes.len() + 1);
        v.push(ch);
        v.extend_from_slice(bytes);
        Out::Binary(v.into())
    };
    for chunk in a.scrollback.chunks(32 * 1024) {
        if tx.send(frame(chunk)).await.is_err() {
            return;
        }
    }
    let mut told_exit = false;
    loop {
        tokio::select! {
            m = a.output.recv() => match m {
                Ok(b) => {
                    if tx.send(frame(&b)).await.is_err() {
                        return;
                    }
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            },
            r = a.exit.changed(), if !told_exit => {
                let code = *a.exit.borrow();
                if r.is_err() || code.is_some() {
                    told_exit = true;
                    let f = WsServerFrame::TerminalExited { terminal: id.clone(), code: code.flatten() };
                    let _ = tx.send(Out::Text(f.to_text())).await;
                }
            }
            () = a.closed.cancelled() => {
                let reason = state.terminals().closed_reason(&id).unwrap_or("closed");
                let f = WsServerFrame::TerminalClosed { terminal: id.clone(), reason: reason.into() };
                let _ = tx.send(Out::Text(f.to_text())).await;
                return;
            }
        }
    }
}
