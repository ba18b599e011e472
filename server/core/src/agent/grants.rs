//! The session's grants as the gate sees them: read from the store once per run (only this run
//! adds to them meanwhile) and again after a revoke anywhere (the epoch); plus what answers
//! allowed for the call at hand only. The gate decides with them, asks, then records the answer
//! here: decide → ask → record.

use std::collections::HashSet;

use crate::policy::{self, GrantKey};
use crate::protocol::{ApprovalDecision, SessionId};

use super::LoopEnv;

/// One run's view of its session's grants.
#[derive(Default)]
pub(crate) struct Grants {
    /// The stored grants, with the epoch they were read at.
    cache: parking_lot::Mutex<Option<(u64, HashSet<String>)>>,
}

impl Grants {
    /// The stored grants, read again when a revoke bumped the epoch (or an answer stored one).
    pub(crate) async fn stored(&self, env: &LoopEnv, session: &SessionId) -> HashSet<String> {
        let epoch = env
            .live
            .grants_epoch
            .load(std::sync::atomic::Ordering::Acquire);
        let cached = self.cache.lock().clone().filter(|(e, _)| *e == epoch);
        if let Some((_, g)) = cached {
            return g;
        }
        let g: HashSet<String> = env
            .store
            .list_grants(session)
            .await
            .unwrap_or_default()
            .into_iter()
            .collect();
        *self.cache.lock() = Some((epoch, g.clone()));
        g
    }

    /// Whether the grants, as last read, hold `key`.
    pub(crate) fn contains(&self, key: &str) -> bool {
        self.cache
            .lock()
            .as_ref()
            .is_some_and(|(_, g)| g.contains(key))
    }

    /// The paths the grants, as last read, let into the session's jail.
    pub(crate) fn jail_paths(&self) -> Vec<std::path::PathBuf> {
        self.cache
            .lock()
            .as_ref()
            .map(|(_, g)| policy::jail_paths(g))
            .unwrap_or_default()
    }

    /// Record the user's answer `d` to `ask`: what it keeps is stored for the session (or, a
    /// prefix rule for the workspace, its workspace); everything else it allowed goes into
    /// `once`, for this call only. A key that cannot be stored still allows this call.
    pub(crate) async fn record(
        &self,
        env: &LoopEnv,
        (session, workspace): (&SessionId, &str),
        d: ApprovalDecision,
        ask: &policy::Ask,
        once: &mut HashSet<String>,
    ) {
        let stored: Vec<String> = match d {
            ApprovalDecision::Deny => return,
            ApprovalDecision::Once => Vec::new(),
            ApprovalDecision::Session | ApprovalDecision::Directory => ask
                .keys
                .iter()
                .filter(|k| kept_as_grant(d, k))
                .cloned()
                .collect(),
            ApprovalDecision::Prefix | ApprovalDecision::PrefixWorkspace => {
                ask.prefix.iter().map(|r| policy::prefix_key(r)).collect()
            }
        };
        // Whatever is kept or not, the call answered is allowed.
        once.extend(ask.keys.iter().cloned());
        if stored.is_empty() {
            return;
        }
        *self.cache.lock() = None;
        for key in stored {
            let done = if d == ApprovalDecision::PrefixWorkspace {
                env.store.add_workspace_grant(workspace, &key).await
            } else {
                env.store.add_grant(session, &key).await
            };
            if let Err(e) = done {
                tracing::error!(error = %e, "cannot store grant");
            }
        }
    }
}

/// Whether an answer `d` keeps `key` as a grant of the session (the rest hold for this call
/// only): "for this session" keeps every key but the once-only ones, "this directory" only the
/// directory grants.
/// What answering `ask` "for this session" keeps, in words (empty: it allows the call only). A
/// tool's own key (a memory every workspace sees, a hooks file) is named by the ask's reason.
pub(crate) fn session_keeps(ask: &policy::Ask) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for key in ask
        .keys
        .iter()
        .filter(|k| kept_as_grant(ApprovalDecision::Session, k))
    {
        let words = GrantKey::parse(key)
            .map_or_else(|| format!("this request: {}", ask.reason), |g| g.describe());
        if !out.contains(&words) {
            out.push(words);
        }
    }
    out
}

fn kept_as_grant(d: ApprovalDecision, key: &str) -> bool {
    match GrantKey::parse(key) {
        Some(g) if g.once_only() => false,
        Some(GrantKey::Dir { .. }) => true,
        _ => d == ApprovalDecision::Session,
    }
}
