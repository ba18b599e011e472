//! Typed ids: a session's id and a run's id are both ULID strings, but one is never the other.
//! On the wire and in the database each is its string (`serde(transparent)`, `sqlx(transparent)`);
//! in Rust, a function that takes a `&SessionId` cannot be handed a run's id. Each derefs to `str`
//! so that code reading an id as text (formatting, logging, a map keyed by text) needs no
//! conversion.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

macro_rules! ids {
    ($($(#[$doc:meta])* $name:ident),+ $(,)?) => {$(
        $(#[$doc])*
        #[derive(
            Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
            ToSchema,
        )]
        #[cfg_attr(feature = "sqlx", derive(sqlx::Type), sqlx(transparent))]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            pub fn new(id: impl Into<String>) -> Self {
                Self(id.into())
            }
            pub fn as_str(&self) -> &str {
                &self.0
            }
            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl std::ops::Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl std::borrow::Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<String> for $name {
            fn from(id: String) -> Self {
                Self(id)
            }
        }

        impl From<&str> for $name {
            fn from(id: &str) -> Self {
                Self(id.to_owned())
            }
        }

        impl From<&$name> for $name {
            fn from(id: &$name) -> Self {
                id.clone()
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                &self.0 == other
            }
        }

        impl PartialEq<$name> for str {
            fn eq(&self, other: &$name) -> bool {
                self == other.0
            }
        }

        impl PartialEq<$name> for &str {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }

        impl PartialEq<$name> for String {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }
    )+};
}

ids!(
    /// A session's id (a ULID).
    SessionId,
    /// A run's id (a ULID): one turn of the agent loop and what it started.
    RunId,
    /// A message's id (a ULID).
    MessageId,
    /// A tool call's id, as the model named it (unique within its run).
    CallId,
    /// An approval request's id (a ULID).
    ApprovalId,
    /// A question's id (a ULID): the `question` tool's form waiting for the user.
    QuestionId,
    /// A plan revision's id (a ULID).
    PlanId,
    /// An artifact's id (a ULID): a file folder a run published (a plan, a report).
    ArtifactId,
    /// A background task's id (a ULID).
    TaskId,
    /// A revert's id (a ULID).
    RevertId,
    /// A goal's id (a ULID).
    GoalId,
    /// A memory's id (a ULID).
    MemoryId,
    /// A review comment's id (a ULID): a line comment on a session's review or a plan.
    ReviewCommentId,
);
