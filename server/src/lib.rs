//! Tradewind: a self-hosted, web-first coding-agent server.
//!
//! Data flows one way: http → runs → agent → (provider, policy → tools) → events → http (WS).
#![forbid(unsafe_code)]

pub mod agent;
pub mod artifacts;
pub mod auth;
pub mod cli;
pub mod config;
pub mod error;
pub mod events;
pub mod http;
pub mod plan;
pub mod policy;
pub mod probe;
pub mod protocol;
pub mod provider;
pub mod runs;
pub mod server;
pub mod state_dir;
pub mod store;
pub mod tasks;
pub mod tools;
pub mod util;
