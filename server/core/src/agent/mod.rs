//! The turn loop. A run: record the input, then repeat — assemble context, stream the model,
//! store its message, pass each tool call through the gate, run what is allowed — until a
//! text-only answer, the iteration limit, an error, or cancellation. Every step is a durable
//! event. The `!command` typed by a user builds the same proposal and passes the same gate.

pub(crate) mod calls;
pub mod coalesce;
pub mod context;
mod grants;
pub mod history;
mod hooks;
pub mod mentions;
mod native;
mod offer;
pub mod profiles;
mod run;
mod stream;
pub mod titles;
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
use crate::policy::paths::PathPolicy;
use crate::policy::{self};
use crate::protocol::{Agent, Effect, EventPayload, Mode, RunStatus, RunTrigger, Usage, WireError};
use crate::provider::{self, ChatRequest, ProviderError, ProviderEvent, ToolCallReq};
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

/// What a turn uses, built once by the composition root (`app.rs`) and shared by every run:
/// the server's and headless runs' alike.
pub struct LoopEnv {
    pub cfg: Arc<Config>,
    pub store: Store,
    pub events: Arc<EventBus>,
    /// The providers configured side by side (Settings changes them at run time).
    pub provider: Arc<crate::provider::registry::Registry>,
    /// Where the run's approvals, questions and plans wait for the user.
    pub prompts: Arc<crate::pending::Prompts>,
    pub paths: PathPolicy,
    /// Parsed session histories kept between runs.
    pub history: Arc<history::HistoryCache>,
    /// The MCP servers and their connections.
    pub mcp: Arc<crate::mcp::McpHub>,
    /// Workspace snapshots around runs (undo).
    pub snapshots: Arc<crate::undo::Snapshots>,
    /// Images sent with prompts.
    pub attachments: Arc<crate::attachments::Attachments>,
    /// Lineages, changed modes, the grants' epoch.
    pub live: Arc<crate::subagents::Live>,
    /// What tools may use of the services (handed to every call through the run's `ToolHost`).
    pub tools: Arc<crate::tools::ToolServices>,
    /// The runs that got review comments, whose answers reply to them.
    pub awaiting: Arc<crate::comments::Awaiting>,
    /// Terminals in the browser.
    pub terminals: Arc<crate::terminals::Terminals>,
    /// The tool lists offered so far, per agent and flag set (built once each).
    offered: parking_lot::Mutex<Vec<(OfferKey, Arc<[provider::ToolSpec]>)>>,
}

impl LoopEnv {
    #[expect(clippy::too_many_arguments, reason = "the composition root's one call")]
    pub fn new(
        cfg: Arc<Config>,
        store: Store,
        events: Arc<EventBus>,
        provider: Arc<crate::provider::registry::Registry>,
        prompts: Arc<crate::pending::Prompts>,
        mcp: Arc<crate::mcp::McpHub>,
        live: Arc<crate::subagents::Live>,
        tools: Arc<crate::tools::ToolServices>,
    ) -> LoopEnv {
        LoopEnv {
            paths: PathPolicy::new(&cfg.workspace, &cfg.extra_roots, &cfg.state_dir),
            snapshots: Arc::new(crate::undo::Snapshots::new(&cfg.state_dir, store.clone())),
            attachments: Arc::new(crate::attachments::Attachments::new(&cfg.state_dir)),
            history: Arc::default(),
            awaiting: Arc::default(),
            terminals: Arc::default(),
            offered: parking_lot::Mutex::default(),
            cfg,
            store,
            events,
            provider,
            prompts,
            mcp,
            live,
            tools,
        }
    }
}

/// What the offered tool list depends on: agent, interactive, ceiling, read-only, yolo, the
/// provider's own web search chosen, the session has skills.
pub type OfferKey = (Agent, bool, crate::config::Ceiling, bool, bool, bool, bool);

pub struct RunSpec {
    pub run_id: crate::protocol::RunId,
    pub session: SessionRow,
    pub trigger: RunTrigger,
    pub text: String,
    /// Images sent with the prompt.
    pub images: Vec<crate::protocol::ImageRef>,
    /// The run's own limits on top of the server's start flags.
    pub limits: Option<crate::protocol::RunLimits>,
    /// Sent by a caller with the `admin` scope: a `!command` is the user's own.
    pub by_admin: bool,
    /// Goes on after a restart from where the run waited on a person (`Queued::resume`).
    pub resumed: bool,
    pub cancel: CancellationToken,
    /// Cancelled when the server stops (the parent of `cancel`): a run it stops ends
    /// `interrupted` with reason `shutdown`, not `cancelled`.
    pub server_stop: CancellationToken,
    /// The run's place in the global cap (given back while it only waits).
    pub slot: Arc<crate::slot::Slot>,
    /// The session's queue: messages steered into this run (`delivery: steer`) are taken
    /// from it at each tool boundary.
    pub queue: crate::scheduler::RunQueue,
}

/// How a run ended, and whether the session's goal was active when it started (only then is
/// the run one of the goal's turns).
pub struct Finished {
    pub end: crate::scheduler::RunEnd,
    pub goal_active: bool,
    /// A `Stop` hook asked for one more turn, for this reason.
    pub continue_with: Option<String>,
    /// The run's last answer, when the run was the session's first exchange (what the session
    /// is titled from); None otherwise.
    pub first_answer: Option<String>,
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
