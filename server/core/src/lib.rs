//! Tradewind's core: everything that does things, as services that the REST API and the
//! WebSocket both call. This crate never names HTTP: the `tradewind` crate depends on it, never
//! the other way round (the compiler enforces the direction protocol ← policy ← core ← tradewind).
//!
//! Inside it, modules stand in layers, lowest first. A module uses its own layer and those
//! listed before it, never one after (`tests/tests/modules.rs` reads every path of every
//! module, macro bodies included, against this list, and fails on an upward one with its
//! file and line):
//!
//! 1. util, slot, state_dir, keystore, http_client, net, probe, files, models, beneath, instructions, skills, agents, plugins, review
//! 2. store, attachments, artifacts, secret_env
//! 3. provider, auth, memory, push, scheduler, undo
//! 4. config, events, subagents
//! 5. sandbox, pending, goals, plan, usage, workspace_config, comments
//! 6. children, tasks, hooks, terminals
//! 7. tools
//! 8. mcp
//! 9. agent
//! 10. runs, policy_check
//! 11. services
//! 12. app
//!
//! Data flows one way: services → runs → agent → (provider, policy → tools) → events → clients.
#![forbid(unsafe_code)]

pub use tradewind_policy as policy;
pub use tradewind_protocol as protocol;

pub mod agent;
pub mod agents;
pub mod app;
pub mod artifacts;
pub mod attachments;
pub mod auth;
pub mod beneath;
pub mod children;
pub mod comments;
pub mod config;
pub mod events;
pub mod files;
pub mod goals;
pub mod hooks;
pub mod http_client;
pub mod instructions;
pub mod keystore;
pub mod mcp;
pub mod memory;
pub mod models;
pub mod net;
pub mod pending;
pub mod plan;
pub mod plugins;
pub mod policy_check;
pub mod probe;
pub mod provider;
pub mod push;
pub mod review;
pub mod runs;
pub mod sandbox;
pub mod scheduler;
pub mod secret_env;
pub mod services;
pub mod skills;
pub mod slot;
pub mod state_dir;
pub mod store;
pub mod subagents;
pub mod tasks;
pub mod terminals;
pub mod tools;
pub mod undo;
pub mod usage;
pub mod util;
pub mod workspace_config;
