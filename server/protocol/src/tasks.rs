//! Plans and their artifacts; background tasks.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{ArtifactId, ArtifactKind, SessionId, TaskId};

// ---- Plans and artifacts ----

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PlanDiagram {
    pub id: String,
    pub title: String,
    pub explanation: String,
    pub section: Option<String>,
    #[serde(rename = "type")]
    pub kind: String,
    pub mermaid: String,
    /// `new`, `updated` or `unchanged` against the previous revision.
    pub mark: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DroppedDiagram {
    pub id: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ArtifactFile {
    pub path: String,
    pub size: u64,
}

/// What a revision holds (stored as the artifact's meta and sent in `plan_proposed`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PlanRevision {
    pub title: Option<String>,
    pub revision: i64,
    pub hash: String,
    pub plan: String,
    pub diagrams: Vec<PlanDiagram>,
    pub removed: Vec<String>,
    pub dropped: Vec<DroppedDiagram>,
    pub files: Vec<ArtifactFile>,
    /// This revision's answers to the comments on earlier ones ("Request changes").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answers: Vec<CommentAnswer>,
}

/// A plan revision's answer to one comment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CommentAnswer {
    pub comment: crate::ReviewCommentId,
    pub text: String,
}

// ---- Background tasks ----

/// A background task's state. Every change is a compare-and-set in the database.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    ToSchema,
    schemars::JsonSchema,
    strum::AsRefStr,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum TaskStatus {
    Queued,
    Running,
    /// Asked to stop (SIGTERM sent; SIGKILL after 3 s).
    Stopping,
    Succeeded,
    Failed,
    Cancelled,
    /// Its server died while it ran (its process may still run).
    Lost,
}

impl TaskStatus {
    /// Not ended yet.
    pub fn is_live(self) -> bool {
        matches!(self, Self::Queued | Self::Running | Self::Stopping)
    }
}

/// Who stopped a task.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    ToSchema,
    strum::AsRefStr,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum TaskStopper {
    User,
    Model,
    /// The watchdog (its timeout).
    Timeout,
    Shutdown,
}

/// A task as the API and events show it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TaskInfo {
    pub id: TaskId,
    pub session_id: SessionId,
    pub label: String,
    pub command: String,
    pub cwd: String,
    pub status: TaskStatus,
    pub exit_code: Option<i64>,
    pub error: Option<String>,
    /// Who stopped it; null when it ended by itself.
    pub stopped_by: Option<TaskStopper>,
    pub pid: Option<i64>,
    pub output_bytes: i64,
    pub timeout_ms: i64,
    pub created_at: i64,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
}

/// An artifact (a plan revision) and the files it lists.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Artifact {
    pub id: ArtifactId,
    /// What made it: `plan` (a plan revision). An open set.
    #[schema(value_type = ArtifactKind)]
    pub kind: String,
    pub name: String,
    pub revision: i64,
    pub title: Option<String>,
    pub files: Vec<ArtifactFile>,
    pub created_at: i64,
}

/// A session's artifacts.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ArtifactList {
    pub data: Vec<Artifact>,
}
