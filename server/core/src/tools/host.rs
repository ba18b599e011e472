//! What a tool may ask of the run that calls it. The turn loop implements [`ToolHost`]; a tool
//! names nothing above `tools`. It reads the run (session, agent, mode, lineage), asks the
//! user (a prompt through the waiter, a confirmation), passes a further destination of its own
//! call through the gate, makes a nested call, and uses the services in [`ToolServices`] —
//! nothing else of the loop.

use std::collections::HashSet;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;

use super::ToolCtx;
use super::output::ToolOutput;
use crate::config::{Config, WebSearchSettings};
use crate::events::EventBus;
use crate::pending::Waiter;
use crate::protocol::{Agent, Mode};
use crate::provider::ToolCallReq;
use crate::scheduler::RunQueue;
use crate::slot::Slot;
use crate::store::{SessionRow, Store};

/// The services tools use, handed over by the composition root.
pub struct ToolServices {
    pub cfg: Arc<Config>,
    pub store: Store,
    pub events: Arc<EventBus>,
    /// Background tasks (`bg_run` …).
    pub tasks: Arc<crate::tasks::TaskManager>,
    /// The process sandbox commands run in, once probed.
    pub sandbox: crate::sandbox::SandboxHandle,
    /// Where questions and plans wait for the user, and whether anyone can answer.
    pub prompts: Arc<crate::pending::Prompts>,
    /// The web search provider (changed at run time through Settings).
    pub websearch: Arc<parking_lot::RwLock<WebSearchSettings>>,
    /// Origins the user configured: network tools may reach them on a private address.
    pub net_exempt: Arc<[String]>,
    /// One change of a goal at a time (a report, a finished turn, the user's edit).
    pub goal_lock: Arc<tokio::sync::Mutex<()>>,
    /// The sessions above each subagent `task` started (parent first), modes changed.
    pub live: Arc<crate::subagents::Live>,
    /// The run scheduler (subagents queue their runs on it).
    pub queue: RunQueue,
}

/// The run a tool call belongs to.
pub trait ToolHost: Send + Sync {
    fn services(&self) -> &ToolServices;
    /// The session, as it was when the run started.
    fn session(&self) -> &SessionRow;
    fn run_id(&self) -> &crate::protocol::RunId;
    fn agent(&self) -> Agent;
    fn mode(&self) -> Mode;
    /// Whether someone can answer this run's questions and plans now.
    fn interactive(&self) -> bool;
    /// For a subagent: the sessions above it, its parent first and the root last.
    fn lineage(&self) -> &[crate::protocol::SessionId];
    /// The run's place in the global cap (given back while it only waits).
    fn slot(&self) -> &Slot;
    /// Where this run's prompts to the user wait.
    fn waiter(&self) -> Waiter<'_>;
    /// Whether the session's grants, as last read by the gate, hold `key`.
    fn grants_contain(&self, key: &str) -> bool;
    /// The paths the session's grants let into its jail ("allow for this session" on a card).
    fn jail_paths(&self) -> Vec<std::path::PathBuf>;
    /// Pass a further destination of `ctx`'s call (a redirect) through the gate, asking if it
    /// needs asking; `once` holds keys already granted for this call.
    fn gate_net<'a>(
        &'a self,
        ctx: &'a ToolCtx<'a>,
        input: Value,
        net: &'a crate::policy::NetUse,
        once: HashSet<String>,
    ) -> BoxFuture<'a, Result<(), ToolOutput>>;
    /// Ask the user to agree to something the gate allows by effect (once, for the session, or
    /// not); a session grant of `key` answers it.
    fn confirm<'a>(
        &'a self,
        ctx: &'a ToolCtx<'a>,
        reason: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<(), ToolOutput>>;
    /// A call the model did not make itself (one `execute`'s snippet makes): prepared and
    /// gated like a direct one, never asking (an approval it would need is a denial ending
    /// with `advice`).
    fn nested<'a>(
        &'a self,
        call: &'a ToolCallReq,
        advice: &'static str,
    ) -> BoxFuture<'a, ToolOutput>;
    /// The agent of this name as this session's workspace sees it: `None` for a built-in, a
    /// custom agent's profile, or why not (naming the agents there are).
    fn agent_profile<'a>(
        &'a self,
        name: &'a crate::protocol::AgentName,
    ) -> BoxFuture<'a, Result<Option<Arc<crate::agents::Profile>>, String>>;
    /// An enabled plugin's search (its MCP tool that serves `websearch`), called with the
    /// query: `None` when no plugin provides one; `Err` names the plugin and why it failed.
    fn plugin_search<'a>(
        &'a self,
        query: &'a str,
        cancel: &'a tokio_util::sync::CancellationToken,
    ) -> BoxFuture<'a, Option<Result<(String, ToolOutput), String>>>;
}
