//! Revert and redo (`/undo`, `/redo`): the workspace's files and the conversation the model
//! sees go back to before a user message, or forward again.

use std::path::PathBuf;

use super::{Core, ServiceError, ServiceResult};
use crate::protocol::{EventPayload, RevertFile, RevertResult};
use crate::store::RevertRow;
use crate::undo::Change;
use crate::util::{new_id, now_ms};

fn files(plan: &[Change]) -> Vec<RevertFile> {
    plan.iter()
        .map(|c| RevertFile {
            path: c.path.clone(),
            action: c.action.to_string(),
        })
        .collect()
}

fn git_err(e: String) -> ServiceError {
    refused(
        "snapshots_unavailable",
        format!("the workspace's snapshots cannot be used: {e}"),
    )
}

fn refused(code: &'static str, message: impl Into<String>) -> ServiceError {
    ServiceError::Refused {
        code,
        message: message.into(),
    }
}

/// Files of `plan` that `hand` (changed by hand) also holds.
fn clobbered(plan: &[Change], hand: &[String]) -> Vec<String> {
    plan.iter()
        .filter(|c| hand.contains(&c.path))
        .map(|c| c.path.clone())
        .collect()
}

fn refuse_clobber(hand: &[String], what: &str) -> ServiceError {
    let shown: Vec<&str> = hand.iter().take(20).map(String::as_str).collect();
    refused(
        "hand_edits",
        format!(
            "{} file(s) changed by hand since the agent's last step would be overwritten by the {what}: {}{}. Look at them first, or send force: true to {what} anyway.",
            hand.len(),
            shown.join(", "),
            if hand.len() > shown.len() {
                ", …"
            } else {
                ""
            }
        ),
    )
}

impl Core {
    /// Whether the gate let any of `runs` make a call that can change the workspace's files.
    async fn allowed_changes(
        &self,
        session: &crate::protocol::SessionId,
        runs: &[crate::protocol::RunId],
    ) -> ServiceResult<bool> {
        let decisions = self.store.policy_decisions(session).await?;
        Ok(decisions
            .iter()
            .filter(|(run, _)| run.as_ref().is_some_and(|r| runs.contains(r)))
            .filter_map(|(_, data)| serde_json::from_str::<serde_json::Value>(data).ok())
            .any(|v| {
                let effect = serde_json::from_value::<crate::protocol::Effect>(v["effect"].clone());
                v["decision"] == "allow"
                    && effect.is_ok_and(|e| {
                        crate::agent::changes_files(e, v["tool"].as_str().unwrap_or(""))
                    })
            }))
    }

    async fn idle(&self, session: &crate::protocol::SessionId) -> ServiceResult<()> {
        if !self
            .runs
            .settled(session, std::time::Duration::from_secs(5))
            .await
        {
            return Err(refused(
                "session_busy",
                "the session is busy; revert or redo when its run ends",
            ));
        }
        Ok(())
    }

    /// What changed by hand since the session's newest snapshot, and the workspace now.
    async fn now_and_hand_edits(
        &self,
        session: &crate::protocol::SessionId,
        ws: &std::path::Path,
    ) -> ServiceResult<(String, Vec<String>)> {
        let snaps = &self.deps().snapshots;
        // What the last run left is recorded first.
        snaps.settled(ws).await;
        let now = snaps.snapshot(ws).await.map_err(git_err)?;
        let hand = match self.store.latest_snapshot(session).await? {
            Some(last) => snaps.changed(ws, &last, &now).await.map_err(git_err)?,
            None => Vec::new(),
        };
        Ok((now, hand))
    }

    /// Put the workspace back to how it was before the user message `message_id`, and take
    /// that turn and the later ones back from the model.
    pub async fn revert(
        &self,
        session: &crate::protocol::SessionId,
        p: &crate::protocol::RevertParams,
    ) -> ServiceResult<RevertResult> {
        let row = self.load_session(session).await?;
        self.idle(session).await?;
        if p.message_id.is_empty()
            || p.message_id.len() > 64
            || !p.message_id.bytes().all(|b| b.is_ascii_alphanumeric())
        {
            return Err(ServiceError::NotFound("message"));
        }
        let run = self
            .store
            .run_of_user_message(session, &p.message_id)
            .await?
            .ok_or(ServiceError::NotFound("message"))?;
        let ws = PathBuf::from(&row.workspace);
        let (now, hand) = self.now_and_hand_edits(session, &ws).await?;
        let runs = self.store.runs_from(session, &run).await?;
        // A run is snapshotted before its first call that can change files: the first such
        // snapshot from that message on is how the files were then. None, and no run since
        // was allowed such a call: the agent changed nothing, the files stay. None although
        // a run was (the server stopped while it took the snapshot, before the call ran): the
        // last complete snapshot from before that message.
        let first = self.store.first_before_snapshot(session, &runs).await?;
        let before = match first {
            Some(tree) => Some(tree),
            None if !self.allowed_changes(session, &runs).await? => Some(now.clone()),
            None => self.store.last_snapshot_before_run(session, &run).await?,
        };
        let Some(before) = before else {
            return Err(refused(
                "no_snapshot",
                "there is no snapshot from before that message (it predates undo, snapshots are off, or it was not a build run)",
            ));
        };
        let snaps = &self.deps().snapshots;
        let plan = snaps.plan(&ws, &now, &before).await.map_err(git_err)?;
        let hand_edited = clobbered(&plan, &hand);
        let mut result = RevertResult {
            applied: false,
            revert_id: None,
            files: files(&plan),
            hand_edited,
            runs,
        };
        if p.dry_run {
            return Ok(result);
        }
        if !result.hand_edited.is_empty() && !p.force {
            return Err(refuse_clobber(&result.hand_edited, "revert"));
        }
        let left = snaps.apply(&ws, &before, &plan).await.map_err(git_err)?;
        let revert = RevertRow {
            id: new_id().into(),
            session_id: session.into(),
            run_id: run,
            from_tree: now,
            to_tree: before,
            files: serde_json::to_string(&result.files).unwrap_or_else(|_| "[]".into()),
            created_at: now_ms(),
            undone_at: None,
        };
        self.store.record_revert(&revert, &left).await?;
        // The model's history is read again without the runs taken back.
        drop(self.deps().history.take(session));
        result.applied = true;
        result.revert_id = Some(revert.id.clone());
        self.events
            .append(
                session,
                None,
                &EventPayload::SessionReverted {
                    revert_id: revert.id,
                    message_id: p.message_id.clone(),
                    files: result.files.clone(),
                    runs: result.runs.clone(),
                },
            )
            .await?;
        Ok(result)
    }

    /// Undo the session's latest revert: its files and runs come back. Only while nothing was
    /// said since the revert.
    pub async fn redo(
        &self,
        session: &crate::protocol::SessionId,
        p: &crate::protocol::RedoParams,
    ) -> ServiceResult<RevertResult> {
        let row = self.load_session(session).await?;
        self.idle(session).await?;
        let revert = self
            .store
            .active_revert(session)
            .await?
            .ok_or_else(|| refused("nothing_to_redo", "there is no revert to redo"))?;
        let later = self.store.list_session_runs(session, 1).await?;
        if later
            .first()
            .is_some_and(|r| r.created_at >= revert.created_at)
        {
            return Err(refused(
                "conversation_went_on",
                "the conversation went on after the revert; it can no longer be redone",
            ));
        }
        let runs = self.store.runs_hidden_by(&revert).await?;
        let ws = PathBuf::from(&row.workspace);
        let (now, hand) = self.now_and_hand_edits(session, &ws).await?;
        let snaps = &self.deps().snapshots;
        let plan = snaps
            .plan(&ws, &now, &revert.from_tree)
            .await
            .map_err(git_err)?;
        let mut result = RevertResult {
            applied: false,
            revert_id: Some(revert.id.clone()),
            files: files(&plan),
            hand_edited: clobbered(&plan, &hand),
            runs,
        };
        if p.dry_run {
            return Ok(result);
        }
        if !result.hand_edited.is_empty() && !p.force {
            return Err(refuse_clobber(&result.hand_edited, "redo"));
        }
        let left = snaps
            .apply(&ws, &revert.from_tree, &plan)
            .await
            .map_err(git_err)?;
        self.store.undo_revert(&revert, &left).await?;
        drop(self.deps().history.take(session));
        result.applied = true;
        self.events
            .append(
                session,
                None,
                &EventPayload::RevertUndone {
                    revert_id: revert.id,
                    files: result.files.clone(),
                    runs: result.runs.clone(),
                },
            )
            .await?;
        Ok(result)
    }
}

/// What a snapshot GC did.
#[derive(Debug, Clone, Default)]
pub struct SnapshotGc {
    /// Snapshot and revert rows older than the retention that went.
    pub expired: u64,
    /// Stores kept (one per workspace), and their bytes afterwards.
    pub stores: usize,
    pub bytes: u64,
    /// Stores of workspaces no session uses any more, removed.
    pub removed: usize,
}

impl Core {
    /// Forget snapshots older than `keep_days` and drop from each workspace's store whatever
    /// no remaining snapshot or revert names; what was written within `keep_newer` stays, so a
    /// snapshot taken but not yet recorded survives.
    pub async fn gc_snapshots(
        &self,
        keep_days: u64,
        keep_newer: std::time::Duration,
    ) -> ServiceResult<SnapshotGc> {
        let cutoff = now_ms() - (keep_days as i64).saturating_mul(86_400_000);
        let mut report = SnapshotGc {
            expired: self.store.expire_snapshots(cutoff).await?,
            ..SnapshotGc::default()
        };
        let mut live: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for (ws, tree) in self.store.live_trees().await? {
            live.entry(ws).or_default().push(tree);
        }
        for ws in self.store.session_workspaces().await? {
            live.entry(ws).or_default();
        }
        let snaps = &self.deps().snapshots;
        let mut done = std::collections::HashSet::new();
        for dir in snaps.stores() {
            let owner = live
                .iter()
                .find(|(ws, _)| snaps.is_store_of(&dir, std::path::Path::new(ws)));
            match owner {
                // A workspace with two stores (this release's and an earlier one's) is
                // collected once.
                Some((ws, _)) if !done.insert(ws.clone()) => {}
                Some((ws, trees)) => {
                    match snaps.gc(std::path::Path::new(ws), trees, keep_newer).await {
                        Ok(b) => {
                            report.stores += 1;
                            report.bytes += b;
                        }
                        Err(e) => tracing::warn!(workspace = %ws, "snapshot gc failed: {e}"),
                    }
                }
                None => {
                    if std::fs::remove_dir_all(&dir).is_ok() {
                        report.removed += 1;
                    }
                }
            }
        }
        Ok(report)
    }
}
