//! The wire protocol: every type that crosses HTTP or the WebSocket, with its OpenAPI schema.
//!
//! Rules: snake_case everywhere, ULID string ids, `*_at` timestamps in Unix milliseconds, cursor
//! pagination (`data` + `next_cursor`), tagged enums (`type`). Events are stored as
//! `(type, data)` rows apart from these enums (see `store::events`), so clients must ignore event
//! types they do not know.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

mod events;
mod goals;
mod ids;
mod prompts;
mod reports;
mod review;
mod server;
mod sessions;
mod settings;
mod tasks;
mod whole;
mod ws;
pub use events::*;
pub use goals::*;
pub use ids::*;
pub use prompts::*;
pub use reports::*;
pub use review::*;
pub use server::*;
pub use sessions::*;
pub use settings::*;
pub use tasks::*;
pub use ws::*;

/// A text that is not one of its enum's values (e.g. an unknown status read from the database).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownValue {
    pub what: &'static str,
    pub value: String,
}

impl std::fmt::Display for UnknownValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown {} `{}`", self.what, self.value)
    }
}

impl std::error::Error for UnknownValue {}

/// The enums that are also stored as text: `as_str` is the serde name (one source: strum's
/// `snake_case`, the same as serde's), `TryFrom<String>` reads it back or names the bad value.
macro_rules! text_enums {
    ($($name:ident: $what:literal),+ $(,)?) => {$(
        impl $name {
            pub fn as_str(self) -> &'static str {
                self.into()
            }
        }
        impl TryFrom<String> for $name {
            type Error = UnknownValue;
            fn try_from(s: String) -> Result<Self, UnknownValue> {
                s.parse().map_err(|_| UnknownValue { what: $what, value: s })
            }
        }
    )+};
}

text_enums!(
    Agent: "agent",
    Mode: "mode",
    Effect: "effect",
    SessionStatus: "session status",
    RunStatus: "run status",
    RunTrigger: "run trigger",
    ApprovalScope: "approval scope",
    ApprovalDecision: "approval decision",
    PlanDecision: "plan decision",
    PolicyDecision: "policy decision",
    TaskStatus: "task status",
    TaskStopper: "task stopper",
    ReasoningEffort: "reasoning effort",
    GoalStatus: "goal status",
    MessageRole: "message role",
);

/// How long a reasoning model thinks before it answers (sent as OpenAI's `reasoning_effort`;
/// for models that take it — o-series, gpt-5, and OpenAI-compatible servers that accept it).
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
pub enum ReasoningEffort {
    Low,
    Medium,
    High,
}

/// Which agent drives a session.
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
pub enum Agent {
    /// Reads, writes and runs (within the policy).
    Build,
    /// Read-only planner that ends with `exit_plan`.
    Plan,
}

/// The name of the agent that drives a session, a run or a subagent: `build` and `plan` are
/// the built-ins; any other is a custom agent (`.tradewind/agents/<name>.md`,
/// `.claude/agents/`, the state directory's `agents/`). `^[a-z][a-z0-9-]{0,63}$`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(transparent)]
pub struct AgentName(String);

impl AgentName {
    pub const PATTERN: &'static str = "^[a-z][a-z0-9-]{0,63}$";

    /// A valid name, or why not.
    pub fn new(name: impl Into<String>) -> Result<AgentName, UnknownValue> {
        let name = name.into();
        let ok = (1..=64).contains(&name.len())
            && name.starts_with(|c: char| c.is_ascii_lowercase())
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if ok {
            Ok(AgentName(name))
        } else {
            Err(UnknownValue {
                what: "agent name (a-z, then a-z 0-9 -, at most 64)",
                value: name,
            })
        }
    }

    pub fn build() -> AgentName {
        AgentName(Agent::Build.as_str().into())
    }

    pub fn plan() -> AgentName {
        AgentName(Agent::Plan.as_str().into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The built-in agent of this name (`None`: a custom one).
    pub fn builtin(&self) -> Option<Agent> {
        self.0.parse().ok()
    }

    pub fn is_plan(&self) -> bool {
        self.builtin() == Some(Agent::Plan)
    }
}

impl From<Agent> for AgentName {
    fn from(a: Agent) -> AgentName {
        AgentName(a.as_str().into())
    }
}

impl TryFrom<String> for AgentName {
    type Error = UnknownValue;
    fn try_from(s: String) -> Result<AgentName, UnknownValue> {
        AgentName::new(s)
    }
}

impl std::fmt::Display for AgentName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for AgentName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<AgentName, D::Error> {
        AgentName::new(String::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

impl utoipa::PartialSchema for AgentName {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .pattern(Some(AgentName::PATTERN))
            .max_length(Some(64))
            .description(Some(
                "The agent: `build` (reads, writes and runs within the policy) and `plan` (a read-only planner that ends with `exit_plan`) are built in; any other name is a custom agent the session can see (`GET /api/agents`).",
            ))
            .examples(["build", "plan"])
            .into()
    }
}

impl utoipa::ToSchema for AgentName {}

/// Permission mode of a session: `ask` (only reads run without asking), `auto` (writes too),
/// `full` (processes and the network too; the categories that never loosen still ask). Ordered
/// from the narrowest: `ask < auto < full`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
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
pub enum Mode {
    /// write, process and external ask.
    Ask,
    /// write allowed; process and external ask.
    Auto,
    /// everything allowed (within the startup ceiling).
    Full,
}

/// What a tool call does to the world.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
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
pub enum Effect {
    /// No side effects.
    Read,
    /// Changes workspace files.
    Write,
    /// Runs arbitrary processes.
    Process,
    /// Network tools, MCP, unknown or plugin tools.
    External,
    /// Tradewind's own state only.
    Internal,
}

/// What a session is doing, derived from its runs and pending prompts.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
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
pub enum SessionStatus {
    Idle,
    Running,
    /// A run waits for the user (approval, question or plan decision).
    Waiting,
}

#[cfg(test)]
mod tests {
    use super::*;
    use strum::VariantArray;

    fn same_as_serde<T>(all: &[T])
    where
        T: Serialize
            + Copy
            + PartialEq
            + std::fmt::Debug
            + AsRef<str>
            + TryFrom<String, Error = UnknownValue>,
    {
        for v in all {
            let wire = serde_json::to_value(v).ok();
            assert_eq!(wire.as_ref().and_then(|w| w.as_str()), Some(v.as_ref()));
            assert_eq!(T::try_from(v.as_ref().to_string()), Ok(*v));
        }
        assert!(T::try_from("no-such-value".to_string()).is_err());
    }

    /// The stored text of each enum is exactly its serde (wire) name.
    #[test]
    fn stored_names_are_the_wire_names() {
        same_as_serde(Agent::VARIANTS);
        same_as_serde(Mode::VARIANTS);
        same_as_serde(Effect::VARIANTS);
        same_as_serde(SessionStatus::VARIANTS);
        same_as_serde(RunStatus::VARIANTS);
        same_as_serde(RunTrigger::VARIANTS);
        same_as_serde(ApprovalScope::VARIANTS);
        same_as_serde(ApprovalDecision::VARIANTS);
        same_as_serde(PlanDecision::VARIANTS);
        same_as_serde(PolicyDecision::VARIANTS);
        same_as_serde(TaskStatus::VARIANTS);
        same_as_serde(TaskStopper::VARIANTS);
        same_as_serde(GoalStatus::VARIANTS);
    }
}
