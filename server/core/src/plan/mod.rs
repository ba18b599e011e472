//! Plan review: `exit_plan` publishes each call as a new artifact revision — `plan.md` alone, or
//! with accepted diagrams a folder `plan.md` + `plan.json` + `diagrams/<id>.mmd` — marks each
//! diagram new / updated / unchanged against the previous revision, and hashes the plan together
//! with its diagrams.

pub mod diagram;
pub mod implement;

use std::path::Path;

use serde::Deserialize;

use crate::store::{ArtifactRow, Store};
use crate::util::{new_id, now_ms, sha256_hex};
use diagram::{DiagramInput, Dropped, Mark, ValidDiagram};

/// Longest plan accepted (characters), per the seed.
pub const MAX_PLAN_CHARS: usize = 60_000;

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiagramArg {
    /// kebab-case, unique in the plan.
    pub id: String,
    #[serde(default)]
    pub title: String,
    /// What the diagram shows and why.
    #[serde(default)]
    pub explanation: String,
    /// The plan heading it illustrates.
    pub section: Option<String>,
    /// overview, flow, components, architecture, sequence, data, state or other.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// The Mermaid source.
    pub mermaid: String,
}

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExitPlanArgs {
    /// The plan, in Markdown.
    pub plan: String,
    pub title: Option<String>,
    #[serde(default)]
    #[schemars(length(max = 5))]
    pub diagrams: Vec<DiagramArg>,
    /// After "Request changes": one answer per comment the user made on the plan (its id from
    /// the `[c:ID]` tag, and what you changed or why not).
    #[serde(default)]
    #[schemars(length(max = 50))]
    pub answers: Vec<AnswerArg>,
}

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerArg {
    /// The comment's id (what follows `c:` in its tag).
    pub comment: String,
    pub text: String,
}

pub use crate::protocol::{ArtifactFile, DroppedDiagram, PlanDiagram, PlanRevision};

fn mark_str(m: Mark) -> &'static str {
    match m {
        Mark::New => "new",
        Mark::Updated => "updated",
        Mark::Unchanged => "unchanged",
    }
}

/// sha-256 over the plan and every accepted diagram (id and source), in id order.
pub fn plan_hash(plan: &str, diagrams: &[ValidDiagram]) -> String {
    let mut sorted: Vec<&ValidDiagram> = diagrams.iter().collect();
    sorted.sort_by(|a, b| a.id.cmp(&b.id));
    let mut buf = String::with_capacity(plan.len() + 256);
    buf.push_str(plan);
    for d in sorted {
        buf.push('\u{0}');
        buf.push_str(&d.id);
        buf.push('\u{0}');
        buf.push_str(&d.mermaid);
    }
    sha256_hex(buf.as_bytes())
}

/// A revision's answers to comments: each naming a comment id and saying something (at most 50).
fn answers_of(args: &ExitPlanArgs) -> Vec<crate::protocol::CommentAnswer> {
    args.answers
        .iter()
        .take(50)
        .filter(|a| {
            !a.text.trim().is_empty()
                && (1..=64).contains(&a.comment.len())
                && a.comment.bytes().all(|b| b.is_ascii_alphanumeric())
        })
        .map(|a| crate::protocol::CommentAnswer {
            comment: a.comment.as_str().into(),
            text: a
                .text
                .trim()
                .chars()
                .take(crate::comments::MAX_ANSWER_CHARS)
                .collect(),
        })
        .collect()
}

/// Validate, store the files under `artifacts_root/<artifact id>/`, and record the artifact.
pub async fn publish(
    store: &Store,
    artifacts_root: &Path,
    session_id: &crate::protocol::SessionId,
    args: &ExitPlanArgs,
    max_diagrams: usize,
) -> anyhow::Result<(ArtifactRow, PlanRevision)> {
    let inputs: Vec<DiagramInput> = args
        .diagrams
        .iter()
        .map(|d| DiagramInput {
            id: d.id.clone(),
            title: d.title.clone(),
            explanation: d.explanation.clone(),
            section: d.section.clone(),
            kind: d.kind.clone(),
            mermaid: d.mermaid.clone(),
        })
        .collect();
    let (accepted, dropped): (Vec<ValidDiagram>, Vec<Dropped>) =
        diagram::validate_all(&inputs, max_diagrams);
    let previous = store.latest_artifact(session_id, "plan").await?;
    let prev_rev: Option<PlanRevision> = previous
        .as_ref()
        .and_then(|a| serde_json::from_str(&a.meta).ok());
    let prev_pairs: Vec<(String, String)> = prev_rev
        .as_ref()
        .map(|r| {
            r.diagrams
                .iter()
                .map(|d| (d.id.clone(), d.mermaid.clone()))
                .collect()
        })
        .unwrap_or_default();
    let (marks, removed) = diagram::mark_revision(&prev_pairs, &accepted);
    let revision = previous.map(|a| a.revision + 1).unwrap_or(1);
    let hash = plan_hash(&args.plan, &accepted);
    let id = new_id();
    let dir = artifacts_root.join(&id);
    let mut files = Vec::new();
    let write = |rel: &str, bytes: &[u8]| -> anyhow::Result<ArtifactFile> {
        std::fs::create_dir_all(&dir)?;
        crate::beneath::atomic_write(&dir, &dir.join(rel), bytes)?;
        Ok(ArtifactFile {
            path: rel.to_string(),
            size: bytes.len() as u64,
        })
    };
    files.push(write("plan.md", args.plan.as_bytes())?);
    let diagrams: Vec<PlanDiagram> = accepted
        .iter()
        .map(|d| PlanDiagram {
            id: d.id.clone(),
            title: d.title.clone(),
            explanation: d.explanation.clone(),
            section: d.section.clone(),
            kind: d.kind.as_str().to_string(),
            mermaid: d.mermaid.clone(),
            mark: marks
                .iter()
                .find(|(id, _)| id == &d.id)
                .map(|(_, m)| mark_str(*m))
                .unwrap_or("new")
                .to_string(),
        })
        .collect();
    let mut rev = PlanRevision {
        title: args.title.clone().filter(|t| !t.trim().is_empty()),
        revision,
        hash,
        plan: args.plan.clone(),
        diagrams,
        removed,
        dropped: dropped
            .into_iter()
            .map(|d| DroppedDiagram {
                id: d.id,
                reason: d.reason,
            })
            .collect(),
        files: Vec::new(),
        answers: answers_of(args),
    };
    if !rev.diagrams.is_empty() {
        for d in &rev.diagrams {
            files.push(write(
                &format!("diagrams/{}.mmd", d.id),
                d.mermaid.as_bytes(),
            )?);
        }
        let manifest = serde_json::json!({
            "title": rev.title, "revision": rev.revision, "hash": rev.hash,
            "diagrams": rev.diagrams.iter().map(|d| serde_json::json!({
                "id": d.id, "title": d.title, "explanation": d.explanation, "section": d.section,
                "type": d.kind, "file": format!("diagrams/{}.mmd", d.id), "mark": d.mark,
            })).collect::<Vec<_>>(),
            "removed": rev.removed, "dropped": rev.dropped,
        });
        let bytes = serde_json::to_vec_pretty(&manifest)?;
        files.push(write("plan.json", &bytes)?);
    }
    rev.files = files;
    let row = ArtifactRow {
        id: id.clone().into(),
        session_id: session_id.into(),
        kind: "plan".into(),
        name: if rev.diagrams.is_empty() {
            "plan.md".into()
        } else {
            "plan".into()
        },
        revision,
        path: id,
        meta: serde_json::to_string(&rev)?,
        created_at: now_ms(),
    };
    store.create_artifact(&row).await?;
    Ok((row, rev))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(id: &str, src: &str) -> ValidDiagram {
        ValidDiagram {
            id: id.into(),
            title: "t".into(),
            explanation: "e".into(),
            section: None,
            kind: diagram::DiagramKind::Flow,
            mermaid_type: "flowchart",
            mermaid: src.into(),
            estimated_nodes: 2,
        }
    }

    #[test]
    fn hash_covers_diagrams_and_ignores_their_order() {
        let a = d("a", "flowchart TD\n A-->B");
        let b = d("b", "flowchart TD\n C-->D");
        let h1 = plan_hash("# Plan", &[a.clone(), b.clone()]);
        assert_eq!(h1, plan_hash("# Plan", &[b, a.clone()]));
        assert_ne!(h1, plan_hash("# Plan", std::slice::from_ref(&a)));
        let b2 = d("b", "flowchart TD\n C-->E");
        assert_ne!(h1, plan_hash("# Plan", &[a, b2]));
        assert_ne!(h1, plan_hash("# Plan!", &[]));
    }
}
