//! The WebSocket's control frames (`GET /api/ws`). Event frames are `EventFrame` (they carry a
//! `seq`); every other frame either way is one of these, tagged by `type`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::{ApprovalDecision, ApprovalId, Mode, RunId, Session, SessionId, WireError};

/// A frame a client sends. Commands carry an optional request `id`, echoed in the `ack` or
/// `error` that answers them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum WsClientFrame {
    /// A browser's first frame: the page token its sign-in gave it (`X-Tradewind-Page` of REST
    /// calls). A socket opened with the login cookie whose first frame is not this is closed
    /// with 1008; with a bearer token it is not needed.
    Auth { page: String },
    /// The session's stored events after `after`, then its live ones.
    Subscribe {
        session: SessionId,
        #[serde(default)]
        after: i64,
    },
    /// Stop following a session.
    Unsubscribe { session: SessionId },
    /// Every session's listed state, live: `session_updated` whenever one changes status, title
    /// or archive state, `session_deleted` when one goes, `sessions_resync` if changes were
    /// missed (read `GET /api/sessions` again).
    SubscribeSessions,
    /// Stop following the session list.
    UnsubscribeSessions,
    /// `POST /api/sessions/{id}/messages`; the ack's result is `{run_id}`.
    Prompt {
        #[serde(default)]
        id: Option<String>,
        session: SessionId,
        text: String,
        /// `queue` (the default): after the active run; `steer`: into the active run at its
        /// next tool boundary.
        #[serde(default)]
        delivery: crate::Delivery,
    },
    /// `POST /api/runs/{id}/cancel`.
    Cancel {
        #[serde(default)]
        id: Option<String>,
        run: RunId,
    },
    /// `POST /api/approvals/{id}`.
    Approval {
        #[serde(default)]
        id: Option<String>,
        approval: ApprovalId,
        decision: ApprovalDecision,
        /// With `deny`: what the agent is told with the denial.
        #[serde(default)]
        reason: Option<String>,
    },
    /// `PATCH /api/sessions/{id}` with a mode.
    SetMode {
        #[serde(default)]
        id: Option<String>,
        session: SessionId,
        mode: Mode,
    },
    /// `PATCH /api/sessions/{id}` with an agent (`build`, `plan` or a custom one the session's
    /// workspace has; an unknown one is refused naming those there are). Any but `plan` needs
    /// the `admin` scope. The ack's result is `{agent}`.
    SetAgent {
        #[serde(default)]
        id: Option<String>,
        session: SessionId,
        agent: crate::AgentName,
    },
    /// Answered by an ack with an empty result.
    Ping {
        #[serde(default)]
        id: Option<String>,
    },
    /// Open a terminal in the session (a shell in its jail), or — with `terminal` — attach to
    /// one this user opened (within 10 s of its socket closing, or from another tab), its
    /// scrollback replayed first. Only the session's owner with the `admin` scope, on a server
    /// started with `--allow-terminal`. The ack's result is `{terminal, channel}`: from then on
    /// binary frames whose first byte is `channel` carry the terminal's output (server to
    /// client) and its input (client to server).
    TerminalOpen {
        #[serde(default)]
        id: Option<String>,
        session: SessionId,
        #[serde(default)]
        terminal: Option<String>,
        #[serde(default = "default_cols")]
        cols: u16,
        #[serde(default = "default_rows")]
        rows: u16,
    },
    /// The terminal's size changed.
    TerminalResize {
        #[serde(default)]
        id: Option<String>,
        terminal: String,
        cols: u16,
        rows: u16,
    },
    /// End the terminal (its shell is stopped).
    TerminalClose {
        #[serde(default)]
        id: Option<String>,
        terminal: String,
    },
}

fn default_cols() -> u16 {
    80
}

fn default_rows() -> u16 {
    24
}

/// A control frame the server sends (event frames are `EventFrame`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum WsServerFrame {
    /// A command succeeded; `result` is what the REST call of the same name returns.
    Ack {
        id: Option<String>,
        /// Any JSON value (an object for every command today).
        result: serde_json::Value,
    },
    /// A command failed, or a frame could not be read (`id` null then).
    Error {
        id: Option<String>,
        error: WireError,
    },
    /// A session of the live list changed (after `subscribe_sessions`).
    SessionUpdated {
        session: SessionId,
        data: Box<Session>,
    },
    /// A session of the live list was deleted.
    SessionDeleted { session: SessionId },
    /// Changes to the list were missed: read `GET /api/sessions` again.
    SessionsResync,
    /// A terminal's shell ended (`code`: its exit status, when it has one).
    TerminalExited {
        terminal: String,
        #[serde(default)]
        code: Option<i32>,
    },
    /// A terminal was closed: `closed` (asked), `idle` (30 minutes without input), `detached`
    /// (no socket for 10 s), `session_deleted` or `signed_out`.
    TerminalClosed { terminal: String, reason: String },
}

impl WsServerFrame {
    /// The frame as JSON text.
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_read_and_write_as_documented() {
        let f: Result<WsClientFrame, _> =
            serde_json::from_str(r#"{"type":"subscribe","session":"s1"}"#);
        assert_eq!(
            f.ok(),
            Some(WsClientFrame::Subscribe {
                session: "s1".into(),
                after: 0
            })
        );
        let f: Result<WsClientFrame, _> = serde_json::from_str(r#"{"type":"subscribe_sessions"}"#);
        assert_eq!(f.ok(), Some(WsClientFrame::SubscribeSessions));
        assert_eq!(
            WsServerFrame::SessionsResync.to_text(),
            r#"{"type":"sessions_resync"}"#
        );
        let ack = WsServerFrame::Ack {
            id: Some("r1".into()),
            result: serde_json::json!({"run_id": "x"}),
        };
        assert_eq!(
            ack.to_text(),
            r#"{"type":"ack","id":"r1","result":{"run_id":"x"}}"#
        );
    }
}
