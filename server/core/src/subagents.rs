//! Subagents: `task` starts a child session — its own transcript and seq, linked to its parent —
//! whose runs the scheduler queues like any other; `task_status`, `task_wait` and `send_message`
//! follow and steer it. A child works with its root session's grants, a mode no wider than its
//! parent's and the same gate (so never more than the parent may); what it asks the user is
//! shown to the root session too (`child_pending`, see `pending`); a parent's cancel reaches the
//! whole tree; the parent reads only each child's final answer, never its transcript.

use serde::Serialize;

use crate::protocol::{Mode, RunStatus, SessionId, SessionStatus};
use crate::store::{SessionRow, Store};

/// Subagents nest at most this deep below the session the user started.
pub const MAX_DEPTH: usize = 2;
/// Children of one session running or queued at once.
pub const MAX_LIVE_CHILDREN: usize = 4;
/// `task_wait`'s default and longest wait.
pub const WAIT_DEFAULT_SECS: u64 = 300;
pub const WAIT_MAX_SECS: u64 = 3600;

/// The sessions above `session`: its parent first, the root last (empty for a session the user
/// started).
pub async fn lineage(store: &Store, session: &SessionRow) -> Vec<SessionId> {
    let mut out: Vec<SessionId> = Vec::new();
    let mut next = session.parent_id.clone();
    while let Some(id) = next {
        // Depth is bounded by `task`; the bound here only guards against a corrupt loop.
        if out.len() > MAX_DEPTH + 2 || out.contains(&id) || id == session.id {
            break;
        }
        next = store.parent_of(&id).await.ok().flatten();
        out.push(id);
    }
    out
}

/// What `task` remembered of each child it started: the sessions above it (parent first).
pub type Lineages = parking_lot::Mutex<std::collections::HashMap<SessionId, Vec<SessionId>>>;

/// What the server knows of its sessions while it runs (never stored): the lineages of the
/// subagents started, the modes changed, the grants' epoch.
#[derive(Debug, Default)]
pub struct Live {
    /// The sessions above each subagent `task` started (parent first): its runs start without
    /// reading them back.
    pub lineages: Lineages,
    /// Modes changed while the server runs: a run in flight, and every subagent below the
    /// session, follows a lowered mode at its next tool call.
    pub modes: parking_lot::RwLock<std::collections::HashMap<SessionId, crate::protocol::Mode>>,
    /// Bumped by every revoke, so runs in flight re-read their grants.
    pub grants_epoch: std::sync::atomic::AtomicU64,
    /// The skills each session loaded (`skill_load`), by name with their folders: the jail of
    /// the session's commands shows each one read-only under [`crate::sandbox::SKILLS_IN_JAIL`].
    pub skills: parking_lot::RwLock<
        std::collections::HashMap<
            SessionId,
            std::collections::BTreeMap<String, std::path::PathBuf>,
        >,
    >,
}

/// `lineage`, from what `task` remembered when it started the session (else the store).
pub async fn lineage_of(known: &Lineages, store: &Store, session: &SessionRow) -> Vec<SessionId> {
    if session.parent_id.is_none() {
        return Vec::new();
    }
    let remembered = known.lock().get(&session.id).cloned();
    match remembered {
        Some(l) => l,
        None => lineage(store, session).await,
    }
}

/// The session whose grants `session` uses: its root for a subagent, else itself.
pub async fn grant_owner(store: &Store, session: &SessionRow) -> SessionId {
    lineage(store, session)
        .await
        .pop()
        .unwrap_or_else(|| session.id.clone())
}

/// Modes in order of what they allow.
pub fn rank(m: Mode) -> u8 {
    match m {
        Mode::Ask => 0,
        Mode::Auto => 1,
        Mode::Full => 2,
    }
}

/// What a parent sees of one child.
#[derive(Debug, Serialize)]
pub struct ChildView {
    pub id: String,
    pub description: String,
    pub agent: crate::protocol::AgentName,
    pub mode: Mode,
    /// `queued`, `running`, `waiting_for_user` (an approval or question is shown to the user),
    /// or how its latest run ended: `completed`, `failed`, `cancelled`, `interrupted`.
    pub status: &'static str,
    /// The child's final answer (its latest assistant text), once it is idle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Where the user reads its transcript.
    pub link: String,
}

/// The latest assistant text of a session (a subagent's answer).
pub(crate) async fn final_answer(
    store: &Store,
    session: &crate::protocol::SessionId,
) -> Option<String> {
    let parts = store.latest_assistant_parts(session, 20).await.ok()?;
    parts.iter().find_map(|p| {
        serde_json::from_str::<crate::store::StoredParts>(p)
            .ok()
            .map(|sp| sp.text)
            .filter(|t| !t.trim().is_empty())
    })
}

/// What a parent sees of `row`, its answer cut at `answer_bytes`.
pub async fn view(
    store: &Store,
    rm: &crate::scheduler::RunQueue,
    row: &SessionRow,
    answer_bytes: usize,
) -> ChildView {
    let runs = store
        .list_session_runs(&row.id, 1)
        .await
        .unwrap_or_default();
    let latest = runs.first();
    let busy = rm.is_busy(&row.id);
    let status = if busy {
        match (row.status, latest.map(|r| r.status)) {
            (SessionStatus::Waiting, _) => "waiting_for_user",
            (_, Some(RunStatus::Running)) => "running",
            _ => "queued",
        }
    } else {
        match latest.map(|r| r.status) {
            Some(RunStatus::Failed) => "failed",
            Some(RunStatus::Cancelled) => "cancelled",
            Some(RunStatus::Interrupted) => "interrupted",
            _ => "completed",
        }
    };
    let answer = if busy {
        None
    } else {
        final_answer(store, &row.id)
            .await
            .map(|a| clip(&a, answer_bytes))
    };
    let error = latest
        .filter(|_| !busy)
        .and_then(|r| r.error.as_deref())
        .map(|e| {
            serde_json::from_str::<crate::protocol::WireError>(e)
                .map_or_else(|_| e.to_string(), |w| w.message)
        });
    ChildView {
        id: row.id.to_string(),
        description: row.title.clone(),
        agent: row.agent.clone(),
        mode: row.mode,
        status,
        answer,
        error,
        link: format!("/s/{}", row.id),
    }
}

fn clip(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    format!(
        "{}\n[… {} more bytes: read the whole answer in the child's session]",
        crate::util::truncate_str(s, max),
        s.len() - max
    )
}
