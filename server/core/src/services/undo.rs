//! Revert and redo (`/undo`, `/redo`): the workspace's files and the conversation the model
//! sees go back to before a user message, or forward again.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use super::{Core, ServiceError, ServiceResult};
use crate::protocol::{
    ChangedBy, EventPayload, KeptFile, RevertFile, RevertResult, RevertScope, SessionId,
};
use crate::store::{RevertRow, SnapshotRow};
use crate::undo::owners::{self, Mark, Put, Reverts, Sorted, Start, Taken};
use crate::util::{new_id, now_ms};

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

/// The workspace's snapshots as the timeline reads them.
fn marks(rows: &[SnapshotRow]) -> Vec<Mark> {
    rows.iter()
        .map(|r| Mark {
            session: r.session_id.clone(),
            run: r.run_id.clone(),
            taken: Taken::parse(&r.kind),
            tree: r.tree.clone(),
            at: r.created_at,
            run_ended: r.run_finished_at,
        })
        .collect()
}

/// A workspace's snapshots (oldest first), their ids, and what each revert changed.
struct Recorded {
    marks: Vec<Mark>,
    ids: Vec<String>,
    reverts: Reverts,
}

/// What a revert or redo puts back, and what it leaves: this session's own changes, plus the
/// files of `kept` the user named in `include` (each as the sort says it goes back).
struct Outcome {
    puts: Vec<Put>,
    files: Vec<RevertFile>,
    hand_edited: Vec<String>,
    kept: Vec<KeptFile>,
}

fn outcome(sorted: Sorted, include: &[String]) -> Outcome {
    let include: HashSet<&str> = include.iter().map(String::as_str).collect();
    let mut puts = sorted.mine;
    let mut kept = Vec::new();
    for k in sorted.kept {
        if include.contains(k.put.path.as_str()) {
            puts.push(k.put);
            continue;
        }
        kept.push(KeptFile {
            path: k.put.path.clone(),
            action: k.put.action().to_string(),
            changed_by: if k.by.is_empty() {
                ChangedBy::Hand
            } else {
                ChangedBy::Session
            },
            sessions: k.by,
        });
    }
    puts.sort_by(|a, b| a.path.cmp(&b.path));
    let files = puts
        .iter()
        .map(|p| RevertFile {
            path: p.path.clone(),
            action: p.action().to_string(),
        })
        .collect();
    Outcome {
        puts,
        files,
        hand_edited: sorted.hand_edited,
        kept,
    }
}

/// One file a session changed, as the review shows it: how it was before the session first
/// changed it (`None`: it did not exist), and — when something else changed it after the
/// session's last change — how the session left it.
pub(crate) struct SessionChange {
    pub path: String,
    pub before: Option<crate::undo::objects::Entry>,
    pub mine_last: Option<Option<crate::undo::objects::Entry>>,
}

impl Core {
    /// The files a session's own runs changed, from its snapshots (its first run's `before`
    /// to now); `Err` says why there is no base (snapshots off, or gone).
    pub(crate) async fn session_changes(
        &self,
        row: &crate::store::SessionRow,
    ) -> ServiceResult<Result<Vec<SessionChange>, String>> {
        let ws = PathBuf::from(&row.workspace);
        // The walk records what the last runs' marks stand for first.
        let now = self.snapshot_now(&ws).await?;
        let all = self.workspace_timeline(&row.workspace).await?;
        let first = all
            .marks
            .iter()
            .position(|m| m.session == row.id && m.taken == Some(Taken::Before));
        let Some(i) = first else {
            if !self.cfg.undo {
                return Ok(Err(
                    "snapshots are off (undo: false in config.json), so nothing records what this session changed".into(),
                ));
            }
            let decisions = self.store.policy_decisions(&row.id).await?;
            let changed = decisions.iter().any(|(_, d)| {
                serde_json::from_str::<serde_json::Value>(d).is_ok_and(|v| {
                    let effect =
                        serde_json::from_value::<crate::protocol::Effect>(v["effect"].clone());
                    v["decision"] == "allow"
                        && effect.is_ok_and(|e| {
                            let tool = v["tool"].as_str().unwrap_or("");
                            crate::agent::changes_files(e, crate::agent::toolset::descriptor(tool))
                        })
                })
            });
            return Ok(if changed {
                Err(format!(
                    "this session's snapshots are gone (kept {} days: undoKeepDays), so its changes cannot be told apart",
                    self.cfg.undo_keep_days
                ))
            } else {
                Ok(Vec::new())
            });
        };
        let tl = owners::timeline(&all.marks, Start::At(i), &now, &all.reverts);
        let mut sorted = self
            .env
            .snapshots
            .sort(&ws, &tl, &row.id)
            .await
            .map_err(git_err)?;
        let mut out: Vec<SessionChange> = Vec::new();
        for p in sorted.mine {
            let mine_last = sorted.mine_last.remove(&p.path);
            out.push(SessionChange {
                path: p.path,
                before: p.entry,
                mine_last,
            });
        }
        for k in sorted.kept {
            if let Some(last) = sorted.mine_last.remove(&k.put.path) {
                out.push(SessionChange {
                    path: k.put.path,
                    before: k.put.entry,
                    mine_last: Some(last),
                });
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(Ok(out))
    }

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
                        let tool = v["tool"].as_str().unwrap_or("");
                        crate::agent::changes_files(e, crate::agent::toolset::descriptor(tool))
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

    /// The workspace now, once what the last runs left is recorded.
    async fn snapshot_now(&self, ws: &Path) -> ServiceResult<String> {
        // The walk resolves what the last runs left first.
        self.env.snapshots.snapshot(ws).await.map_err(git_err)
    }

    /// The snapshots of every session working in `workspace`, and what each revert changed.
    async fn workspace_timeline(&self, workspace: &str) -> ServiceResult<Recorded> {
        let rows = self.store.workspace_snapshots(workspace).await?;
        let mut reverts = Reverts::new();
        for (id, session, files) in self.store.workspace_reverts(workspace).await? {
            let files: Vec<RevertFile> = serde_json::from_str(&files).unwrap_or_default();
            let paths: BTreeSet<String> = files.into_iter().map(|f| f.path).collect();
            reverts.insert(id.into_string(), (session, paths));
        }
        Ok(Recorded {
            marks: marks(&rows),
            ids: rows.into_iter().map(|r| r.id).collect(),
            reverts,
        })
    }

    /// Sort what changed along the timeline from `start` to `now` for `session`.
    async fn sort_changes(
        &self,
        session: &SessionId,
        ws: &Path,
        tl: &owners::Timeline,
        include: &[String],
    ) -> ServiceResult<Outcome> {
        let snaps = &self.env.snapshots;
        let sorted = snaps.sort(ws, tl, session).await.map_err(git_err)?;
        Ok(outcome(sorted, include))
    }

    /// Put the workspace back to how it was before the user message `message_id`, and take
    /// that turn and the later ones back from the model. Only the files this session's own runs
    /// changed go back (each as it was before this session first changed it since); files
    /// changed by hand or by another session's run are listed in `kept` and left, unless
    /// `include` names them.
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
        let now = self.snapshot_now(&ws).await?;
        let scope = p.scope;
        let from = self.store.runs_from(session, &run).await?;
        // What the conversation loses: nothing when only the files go back.
        let runs = match scope {
            RevertScope::Files => Vec::new(),
            _ => from.clone(),
        };
        let all = self.workspace_timeline(&row.workspace).await?;
        // A run is snapshotted before its first call that can change files: the first such
        // snapshot from that message on is how the files were then. None, and no run since
        // was allowed such a call: the agent changed nothing, the files stay. None although
        // a run was (the server stopped while it took the snapshot, before the call ran): the
        // last complete snapshot from before that message.
        let first = from.iter().find_map(|r| {
            all.marks.iter().position(|m| {
                m.session == *session && m.taken == Some(Taken::Before) && m.run == r.as_str()
            })
        });
        let start = match first {
            // The conversation only: the files stay as they are.
            _ if scope == RevertScope::Conversation => None,
            Some(i) => Some(i),
            None if !self.allowed_changes(session, &from).await? => None,
            None => {
                let last = self.store.last_snapshot_before_run(session, &run).await?;
                let at = last.and_then(|id| all.ids.iter().position(|i| *i == id));
                if at.is_none() {
                    return Err(refused(
                        "no_snapshot",
                        "there is no snapshot from before that message (it predates undo, snapshots are off, or it was not a build run)",
                    ));
                }
                at
            }
        };
        let (before, out) = match start {
            Some(i) => {
                let tl = owners::timeline(&all.marks, Start::At(i), &now, &all.reverts);
                let out = self.sort_changes(session, &ws, &tl, &p.include).await?;
                (tl.trees[0].clone(), out)
            }
            None => (
                now.clone(),
                Outcome {
                    puts: Vec::new(),
                    files: Vec::new(),
                    hand_edited: Vec::new(),
                    kept: Vec::new(),
                },
            ),
        };
        let mut result = RevertResult {
            applied: false,
            revert_id: None,
            files: out.files,
            hand_edited: out.hand_edited,
            kept: out.kept,
            runs,
        };
        if p.dry_run {
            return Ok(result);
        }
        if !result.hand_edited.is_empty() && !p.force {
            return Err(refuse_clobber(&result.hand_edited, "revert"));
        }
        let snaps = &self.env.snapshots;
        let left = snaps.put_back(&ws, &out.puts).await.map_err(git_err)?;
        let revert = RevertRow {
            id: new_id().into(),
            session_id: session.into(),
            run_id: run,
            from_tree: now,
            to_tree: before,
            files: serde_json::to_string(&result.files).unwrap_or_else(|_| "[]".into()),
            created_at: now_ms(),
            undone_at: None,
            scope: scope.as_ref().to_string(),
        };
        self.store.record_revert(&revert, &left).await?;
        // The model's history is read again without the runs taken back.
        if scope != RevertScope::Files {
            drop(self.env.history.take(session));
        }
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
    /// said since the revert. The files the revert changed go back as they were just before
    /// it; what changed since by hand or another session's run is kept unless `include` names
    /// it.
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
        let now = self.snapshot_now(&ws).await?;
        let all = self.workspace_timeline(&row.workspace).await?;
        // The revert's own snapshot (what it left) follows the files as they were just before
        // it: what changed from one to the other is the revert's.
        let at = all
            .marks
            .iter()
            .position(|m| m.taken == Some(Taken::Revert) && m.run == revert.id.as_str())
            .ok_or_else(|| {
                refused(
                    "no_snapshot",
                    "the snapshot the revert left is gone; it can no longer be redone",
                )
            })?;
        let start = Start::Before(&revert.from_tree, at);
        let tl = owners::timeline(&all.marks, start, &now, &all.reverts);
        let out = self.sort_changes(session, &ws, &tl, &p.include).await?;
        let mut result = RevertResult {
            applied: false,
            revert_id: Some(revert.id.clone()),
            files: out.files,
            hand_edited: out.hand_edited,
            kept: out.kept,
            runs,
        };
        if p.dry_run {
            return Ok(result);
        }
        if !result.hand_edited.is_empty() && !p.force {
            return Err(refuse_clobber(&result.hand_edited, "redo"));
        }
        let snaps = &self.env.snapshots;
        let left = snaps.put_back(&ws, &out.puts).await.map_err(git_err)?;
        self.store.undo_revert(&revert, &left).await?;
        drop(self.env.history.take(session));
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
        let snaps = &self.env.snapshots;
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
