//! Tools. Each tool is one type implementing [`Tool`]: its wire name, effect and description, an
//! argument struct whose `Deserialize` is the parser and whose `JsonSchema` is the schema the
//! model sees (one definition, so the two cannot drift), `prepare` (validate, resolve paths,
//! classify commands: the gate sees exactly what will happen) and `run`. [`TOOLS`] lists them
//! all; the prompt, the policy and the UI read that one list. Unknown tools are `external`
//! (fail closed).
//!
//! Adding a tool: a file with the type and its `impl Tool`, and one line in [`TOOLS`].

pub mod context;
pub mod execute;
pub mod fs;
pub mod git;
pub mod goals;
pub mod held;
pub mod host;
pub mod memory;
pub mod output;
pub mod plugins;
pub mod process;
pub mod prompts;
pub mod schema;
pub mod search;
pub mod skills;
pub mod subagents;
pub mod tasks;
pub mod todo;
pub mod web;
pub mod websearch;

use std::future::Future;
use std::pin::Pin;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::policy::PathUse;
use crate::policy::command::CommandAnalysis;
use crate::policy::paths::{PathError, PathPolicy};
use crate::protocol::{Agent, Effect};
use crate::provider::ToolSpec;
pub use host::{ToolHost, ToolServices};
pub use output::{MAX_MODEL_TEXT, ToolOutput, bound_text};
pub use schema::args_schema;

/// Files readable or editable by the file tools.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// One tool, defined once.
pub trait Tool: Send + Sync + 'static {
    /// The name the model calls.
    const NAME: &'static str;
    /// What a call does to the world; the gate decides on it.
    const EFFECT: Effect;
    /// What the model reads about the tool.
    const DESCRIPTION: &'static str;
    /// Offered only when a person can answer (a server, not a headless run).
    const INTERACTIVE_ONLY: bool = false;
    /// Offered only to this agent.
    const ONLY_AGENT: Option<Agent> = None;
    /// Offered to the read-only plan agent (false: it keeps state beyond a plan, as memories).
    const PLAN_AGENT: bool = true;
    /// Uses the run itself (waits for the user, starts tasks): never run alongside other calls.
    const HOST: bool = false;
    /// A snippet of `execute` may call it.
    const NESTED: bool = true;
    /// Offered to a subagent (false: it answers its parent in text instead).
    const IN_SUBAGENTS: bool = true;
    /// Starts or follows subagents: not offered at the deepest level.
    const SUBAGENTS: bool = false;
    /// Sets a subagent working (it may change the workspace's files meanwhile).
    const STARTS_SUBAGENT: bool = false;

    /// The arguments: their serde form is the parser, their JSON schema what the model sees.
    type Args: DeserializeOwned + JsonSchema;
    /// A prepared call, ready to run once the gate allows it.
    type Call: Send + 'static;

    /// Validate the arguments and resolve what the call touches, without touching it.
    fn prepare(args: Self::Args, paths: &PathPolicy) -> Result<Gated<Self::Call>, PrepareError>;

    /// Run an allowed call.
    fn run(call: Self::Call, ctx: &ToolCtx<'_>) -> impl Future<Output = ToolOutput> + Send;
}

/// A prepared call and what the gate must see of it.
pub struct Gated<C> {
    pub paths: Vec<PathUse>,
    pub command: Option<(String, CommandAnalysis)>,
    /// The URL the call connects to first: resolved and classified before the gate decides.
    pub url: Option<url::Url>,
    pub call: C,
}

impl<C> Gated<C> {
    /// A call that touches no path and runs no command.
    pub fn plain(call: C) -> Self {
        Gated {
            paths: Vec::new(),
            command: None,
            url: None,
            call,
        }
    }
}

/// Where a call runs: the run that made it.
pub struct ToolCtx<'a> {
    pub paths: &'a PathPolicy,
    pub cancel: &'a CancellationToken,
    /// The model's id of this call.
    pub call_id: &'a crate::protocol::CallId,
    /// Where the call connects first ([`Gated::url`]), resolved and allowed by the gate: connect
    /// to these addresses only.
    pub net: Option<&'a crate::net::Target>,
    /// The run that made the call.
    pub host: &'a dyn ToolHost,
    /// The call as the model made it (for a further approval, e.g. a redirect).
    pub call: &'a crate::provider::ToolCallReq,
    pub input: &'a Value,
    pub effect: Effect,
}

impl<'a> ToolCtx<'a> {
    /// What this call's command writes while it runs, posted as `tool_output` of the call.
    pub fn live_output(&self) -> crate::events::LiveOutput<'a> {
        let host = self.host;
        crate::events::LiveOutput::new(
            &host.services().events,
            &host.session().id,
            Some(host.run_id()),
            crate::events::LiveOf::Call(self.call_id),
        )
    }

    /// Did the user allow this file for the session (its secrets are then shown unredacted)?
    pub fn file_allowed(&self, path: &std::path::Path) -> bool {
        let key = crate::policy::file_key(path);
        self.host.grants_contain(&key)
    }

    /// What a command of this call may touch in the jail: the session's roots, and the paths
    /// its grants let in.
    pub fn job(&self) -> crate::sandbox::Job {
        let job = crate::sandbox::Job::for_session(self.paths, self.host.jail_paths());
        let skills = self.services().live.skills.read();
        match skills.get(&self.host.session().id) {
            Some(loaded) => job.with_skills(loaded),
            None => job,
        }
    }

    /// The services tools use.
    pub fn services(&self) -> &ToolServices {
        self.host.services()
    }

    /// Resolve a further destination of this call (a redirect) and pass it through the gate,
    /// asking if it is not public; the call's own effect is already allowed.
    pub async fn reach(&self, url: &url::Url) -> Result<crate::net::Target, ToolOutput> {
        let target = crate::net::resolve(url, &self.services().net_exempt)
            .await
            .map_err(|e| ToolOutput::err("unreachable", e))?;
        let mut input = serde_json::json!({ "url": url.as_str() });
        if let Some(first) = self.input.get("url") {
            input["redirectedFrom"] = first.clone();
        }
        let once = std::iter::once(crate::policy::effect_key(self.effect)).collect();
        self.host.gate_net(self, input, &target.usage, once).await?;
        Ok(target)
    }
}

/// Why a call could not be prepared (told to the model, nothing ran).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PrepareError {
    #[error("unknown tool `{0}`")]
    Unknown(String),
    #[error(
        "unknown tool `{0}`: no MCP tool of that name is offered now (its server is not connected, or it changed its tools and needs a reconnect)"
    )]
    McpNotOffered(String),
    #[error("invalid input: {0}")]
    Input(String),
    /// The input is well formed but the workspace cannot serve it (a git tool outside a
    /// repository): the model should not retry the same call, nor is its input at fault.
    #[error("the workspace is not inside a git repository")]
    NoRepository,
    #[error("{0}")]
    Path(#[from] PathError),
    /// The session's custom agent does not have this tool, or not for this command.
    #[error("{0}")]
    NotForAgent(String),
}

impl PrepareError {
    pub fn code(&self) -> &'static str {
        match self {
            PrepareError::Unknown(_) | PrepareError::McpNotOffered(_) => "unknown_tool",
            PrepareError::Input(_) => "invalid_input",
            PrepareError::NoRepository => "not_a_repository",
            PrepareError::NotForAgent(_) => "not_for_agent",
            PrepareError::Path(p) => p.code(),
        }
    }
}

/// A validated call of any tool, ready for the gate.
pub struct Prepared {
    pub tool: &'static str,
    /// The built-in tool it is a call of, as looked up once by name (`None`: an MCP call).
    pub descriptor: Option<&'static dyn DynTool>,
    pub effect: Effect,
    pub paths: Vec<PathUse>,
    pub command: Option<(String, CommandAnalysis)>,
    pub url: Option<url::Url>,
    /// A tool of an MCP server: what the gate must know of it.
    pub mcp: Option<crate::policy::McpUse>,
    call: Box<dyn Runnable>,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("tool", &self.tool)
            .field("effect", &self.effect)
            .field("paths", &self.paths)
            .field("command", &self.command)
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl Prepared {
    /// A call of an MCP server (its tool, or `mcp_connect`, `mcp_resource`, `mcp_prompt`):
    /// what it uses, for the gate, and how it runs, from the adapter in `mcp/`.
    pub fn external_mcp(usage: crate::policy::McpUse, call: Box<dyn Runnable>) -> Prepared {
        Prepared {
            tool: "mcp",
            descriptor: None,
            effect: Effect::External,
            paths: Vec::new(),
            command: None,
            url: None,
            mcp: Some(usage),
            call,
        }
    }

    /// Run it (the gate has allowed it).
    pub async fn run(self, ctx: &ToolCtx<'_>) -> ToolOutput {
        self.call.run(ctx).await
    }
}

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A prepared call with its tool's `run`, type-erased: the one seam a tool from outside this
/// module (an MCP server's, through `mcp/adapter.rs`) is run through.
pub trait Runnable: Send {
    fn run<'a>(self: Box<Self>, ctx: &'a ToolCtx<'a>) -> BoxFuture<'a, ToolOutput>;
}

struct CallOf<T: Tool>(T::Call);

impl<T: Tool> Runnable for CallOf<T> {
    fn run<'a>(self: Box<Self>, ctx: &'a ToolCtx<'a>) -> BoxFuture<'a, ToolOutput> {
        Box::pin(T::run(self.0, ctx))
    }
}

/// What the registry needs of a tool, object-safe; every [`Tool`] is one.
pub trait DynTool: Send + Sync {
    fn name(&self) -> &'static str;
    fn effect(&self) -> Effect;
    fn interactive_only(&self) -> bool;
    fn only_agent(&self) -> Option<Agent>;
    fn plan_agent(&self) -> bool;
    fn host(&self) -> bool;
    fn nested(&self) -> bool;
    fn in_subagents(&self) -> bool;
    fn subagents(&self) -> bool;
    fn starts_subagent(&self) -> bool;
    /// The name, description and argument schema the model sees.
    fn spec(&self) -> ToolSpec;
    /// Parse the input with the same definition the schema came from, then prepare.
    fn prepare(&'static self, input: &Value, paths: &PathPolicy) -> Result<Prepared, PrepareError>;
}

impl<T: Tool> DynTool for T {
    fn name(&self) -> &'static str {
        T::NAME
    }
    fn effect(&self) -> Effect {
        T::EFFECT
    }
    fn interactive_only(&self) -> bool {
        T::INTERACTIVE_ONLY
    }
    fn only_agent(&self) -> Option<Agent> {
        T::ONLY_AGENT
    }
    fn plan_agent(&self) -> bool {
        T::PLAN_AGENT
    }
    fn host(&self) -> bool {
        T::HOST
    }
    fn nested(&self) -> bool {
        T::NESTED
    }
    fn in_subagents(&self) -> bool {
        T::IN_SUBAGENTS
    }
    fn subagents(&self) -> bool {
        T::SUBAGENTS
    }
    fn starts_subagent(&self) -> bool {
        T::STARTS_SUBAGENT
    }
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: T::NAME.to_string(),
            description: T::DESCRIPTION.to_string(),
            parameters: args_schema::<T::Args>(),
        }
    }
    fn prepare(&'static self, input: &Value, paths: &PathPolicy) -> Result<Prepared, PrepareError> {
        let args: T::Args = <T::Args as serde::Deserialize>::deserialize(input)
            .map_err(|e| PrepareError::Input(e.to_string()))?;
        let g = T::prepare(args, paths)?;
        Ok(Prepared {
            tool: T::NAME,
            descriptor: Some(self),
            effect: T::EFFECT,
            paths: g.paths,
            command: g.command,
            url: g.url,
            mcp: None,
            call: Box::new(CallOf::<T>(g.call)),
        })
    }
}

/// A path the call reads or writes, for the gate.
pub fn use_of(r: &crate::policy::paths::Resolved) -> PathUse {
    PathUse {
        links: r.links,
        path: r.path.clone(),
        inside: r.inside,
        directory: r.directory.clone(),
    }
}

/// A directory the call walks, for the gate.
pub fn dir_use(r: &crate::policy::paths::Resolved) -> PathUse {
    PathUse {
        links: 1,
        path: r.path.clone(),
        inside: r.inside,
        directory: r.path.clone(),
    }
}
