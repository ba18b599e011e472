//! The turn loop. A run: record the input, then repeat — assemble context, stream the model,
//! store its message, pass each tool call through the gate, run what is allowed — until a
//! text-only answer, the iteration limit, an error, or cancellation. Every step is a durable
//! event. The `!command` typed by a user builds the same proposal and passes the same gate.

pub(crate) mod calls;
pub mod coalesce;
pub mod context;
pub mod history;
pub mod mentions;
mod offer;
mod run;
mod stream;
pub mod toolset;
mod turn;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::events::DeltaKind;
use crate::events::EventBus;
use crate::pending::{Approvals, Pending, Plans, Questions};
use crate::policy::paths::PathPolicy;
use crate::policy::{self};
use crate::protocol::{Agent, Effect, EventPayload, Mode, RunStatus, RunTrigger, Usage, WireError};
use crate::provider::{self, ChatRequest, NetPolicy, ProviderError, ProviderEvent, ToolCallReq};
use crate::store::{NewMessage, SessionRow, Store};
use crate::tools::{self};
use crate::util::new_id;
pub(crate) use calls::changes_files;
use calls::{handle_call, run_calls};
use coalesce::Coalescer;
use history::StoredParts;
use offer::*;
use run::*;
pub use run::{END_RETRY_EVERY, run};
use stream::*;
pub(crate) use turn::Turn;
use turn::*;

/// Independent reads run in batches of up to this many.
pub const READ_BATCH: usize = 4;

/// What the loop needs; shared by the server and headless runs.
pub struct AgentDeps {
    pub cfg: Arc<Config>,
    pub store: Store,
    pub events: Arc<EventBus>,
    /// The providers configured side by side (Settings changes them at run time).
    pub provider: Arc<crate::provider::registry::Registry>,
    pub approvals: Arc<Pending<Approvals>>,
    pub questions: Arc<Pending<Questions>>,
    pub plans: Arc<Pending<Plans>>,
    pub paths: PathPolicy,
    pub tasks: Arc<crate::tasks::TaskManager>,
    /// Parsed session histories kept between runs.
    pub history: Arc<history::HistoryCache>,
    pub net: NetPolicy,
    /// A UI can answer approvals (server) — headless runs never ask.
    pub interactive: bool,
    /// The tool lists offered so far, per agent and flag set (built once each).
    pub offered: parking_lot::Mutex<Vec<(OfferKey, Arc<[provider::ToolSpec]>)>>,
    /// The process sandbox every command runs in, once probed.
    pub sandbox: crate::sandbox::SandboxHandle,
    /// The MCP servers and their connections.
    pub mcp: Arc<crate::mcp::McpHub>,
    /// Bumped by every revoke, so runs in flight re-read their grants.
    pub grants_epoch: std::sync::atomic::AtomicU64,
    /// Each workspace's file list, for `@` mentions.
    pub files: Arc<crate::files::FileLists>,
    /// Origins the user configured (provider, search endpoint, `webfetch.allowHosts`): network
    /// tools may reach them even on a private address.
    pub net_exempt: Vec<String>,
    /// The web search provider (changed at run time through Settings).
    pub websearch: Arc<parking_lot::RwLock<crate::config::WebSearchSettings>>,
    /// Workspace snapshots around runs (undo).
    pub snapshots: Arc<crate::undo::Snapshots>,
    /// Images sent with prompts.
    pub attachments: Arc<crate::attachments::Attachments>,
    /// One change of a goal at a time (a report, a finished turn, the user's edit).
    pub goal_lock: Arc<tokio::sync::Mutex<()>>,
    /// The run queue these runs belong to (subagents queue their runs on it).
    pub queue: crate::scheduler::RunQueue,
    /// The sessions above each subagent `task` started (parent first): its runs start without
    /// reading them back.
    pub lineages: Arc<crate::subagents::Lineages>,
    /// Modes changed while the server runs (session id → mode): a run in flight, and every
    /// subagent below the session, follows a lowered mode at its next tool call.
    pub modes: Arc<parking_lot::RwLock<std::collections::HashMap<String, Mode>>>,
    /// What tools may use of the services.
    pub tools: Arc<crate::tools::ToolServices>,
    /// Web Push to closed apps (`None`: headless, or the key could not be read).
    pub push: Option<Arc<crate::push::Push>>,
}

/// What the offered tool list depends on: agent, interactive, ceiling, read-only, yolo.
pub type OfferKey = (Agent, bool, crate::config::Ceiling, bool, bool);

pub struct RunSpec {
    pub run_id: crate::protocol::RunId,
    pub session: SessionRow,
    pub trigger: RunTrigger,
    pub text: String,
    /// Images sent with the prompt.
    pub images: Vec<crate::protocol::ImageRef>,
    /// The run's own limits on top of the server's start flags.
    pub limits: Option<crate::protocol::RunLimits>,
    pub cancel: CancellationToken,
    /// Cancelled when the server stops (the parent of `cancel`): a run it stops ends
    /// `interrupted` with reason `shutdown`, not `cancelled`.
    pub server_stop: CancellationToken,
    /// The run's place in the global cap (given back while it only waits).
    pub slot: Arc<crate::slot::Slot>,
}

/// How a run ended, and whether the session's goal was active when it started (only then is
/// the run one of the goal's turns).
pub struct Finished {
    pub end: crate::scheduler::RunEnd,
    pub goal_active: bool,
}

#[derive(Debug, Clone)]
pub struct RunOutcome {
    pub status: RunStatus,
    pub error: Option<WireError>,
    pub usage: Usage,
}

fn werr(code: &str, message: impl Into<String>) -> WireError {
    WireError {
        code: code.into(),
        message: message.into(),
    }
}
