//! Tradewind: a self-hosted, web-first coding-agent server. This crate is the HTTP face (axum
//! routers that extract → call a core service → map errors), the WebSocket endpoint, the auth
//! gates, the embedded SPA and the command line. Everything that does things lives in
//! `tradewind-core`; the wire types in `tradewind-protocol`; the gate in `tradewind-policy`.
#![forbid(unsafe_code)]

pub use tradewind_core::{
    agent, artifacts, attachments, auth, config, events, hooks, http_client, keystore, models,
    plan, policy, probe, protocol, provider, push, runs, sandbox, services, skills, state_dir,
    store, tasks, tools, undo, util,
};

pub mod accept;
pub mod cli;
pub mod error;
pub mod headless;
pub mod http;
pub mod qr;
pub mod server;
pub mod tls;
