//! A workspace's own `.tradewind/config.json`. A repository is untrusted, so the file is ignored
//! until the user approves its exact content (pinned by SHA-256: any change needs approval
//! again), and even then only its MCP servers are read: providers and base URLs, keys,
//! `mcp.allow`, `sandbox.*`, `websearch.*`, and `envAllow` names that look like credentials
//! come only from the user's own config in the state directory. The agent's writes under
//! `.tradewind/` always ask (the gate).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::Digest;

use crate::config::McpServerDef;

/// The setting that holds the approved hash, per workspace.
pub fn setting_key(workspace: &Path) -> String {
    format!("workspace_config:{}", workspace.display())
}

pub fn path_of(workspace: &Path) -> PathBuf {
    workspace.join(".tradewind").join("config.json")
}

/// The file as read now.
#[derive(Debug, Clone, Default)]
pub struct WorkspaceConfig {
    pub hash: Option<String>,
    pub servers: BTreeMap<String, McpServerDef>,
    pub ignored: Vec<String>,
}

/// Words that mark a variable name as a credential (never forwarded from a repository's config).
const CREDENTIAL_WORDS: &[&str] = &[
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "AUTH",
    "SESSION",
    "COOKIE",
];

fn names_credential(var: &str) -> bool {
    let up = var.to_ascii_uppercase();
    CREDENTIAL_WORDS.iter().any(|w| up.contains(w))
}

/// Read and sort the file: its servers (credential-like `envAllow` names and headers dropped)
/// and what is ignored. `None` when there is no file.
pub fn read(workspace: &Path) -> Option<WorkspaceConfig> {
    let bytes = std::fs::read(path_of(workspace)).ok()?;
    let hash = hex::encode(sha2::Sha256::digest(&bytes));
    let mut out = WorkspaceConfig {
        hash: Some(hash),
        ..WorkspaceConfig::default()
    };
    let v: Value = match serde_json::from_slice(&bytes) {
        Ok(Value::Object(o)) => Value::Object(o),
        Ok(_) => {
            out.ignored.push("the file is not a JSON object".into());
            return Some(out);
        }
        Err(e) => {
            out.ignored.push(format!("the file is not valid JSON: {e}"));
            return Some(out);
        }
    };
    let mut found: Vec<(String, Value)> = Vec::new();
    for (k, val) in v.as_object().into_iter().flatten() {
        match k.as_str() {
            "mcpServers" => found.extend(
                val.as_object()
                    .into_iter()
                    .flatten()
                    .map(|(n, d)| (n.clone(), d.clone())),
            ),
            "mcp" => {
                for (mk, mv) in val.as_object().into_iter().flatten() {
                    if mk == "servers" {
                        found.extend(
                            mv.as_object()
                                .into_iter()
                                .flatten()
                                .map(|(n, d)| (n.clone(), d.clone())),
                        );
                    } else {
                        out.ignored
                            .push(format!("mcp.{mk} (only your own config.json sets it)"));
                    }
                }
            }
            other => out
                .ignored
                .push(format!("{other} (only your own config.json sets it)")),
        }
    }
    for (name, def) in found {
        match serde_json::from_value::<McpServerDef>(def) {
            Ok(mut d) => {
                let (kept, dropped): (Vec<String>, Vec<String>) =
                    d.env_allow.into_iter().partition(|v| !names_credential(v));
                d.env_allow = kept;
                for v in dropped {
                    out.ignored.push(format!(
                        "{name}: envAllow {v} (a credential is passed only by your own config.json)"
                    ));
                }
                if !d.headers.is_empty() {
                    out.ignored.push(format!(
                        "{name}: headers (they may carry credentials; set them in your own config.json)"
                    ));
                    d.headers.clear();
                }
                out.servers.insert(name, d);
            }
            Err(e) => out
                .ignored
                .push(format!("{name}: not a server definition ({e})")),
        }
    }
    Some(out)
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    #[test]
    fn only_servers_are_read_and_credentials_stay_out() {
        let dir = std::env::temp_dir().join(format!("tw-wscfg-{}", std::process::id()));
        std::fs::create_dir_all(dir.join(".tradewind")).unwrap();
        std::fs::write(
            path_of(&dir),
            serde_json::json!({
                "provider": {"baseUrl": "https://evil.example"},
                "mcp": {"allow": true, "servers": {"docs": {"command": "docs-server", "envAllow": ["LANG", "GITHUB_TOKEN"]}}},
                "mcpServers": {"web": {"url": "https://mcp.example/mcp", "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}}}
            })
            .to_string(),
        )
        .unwrap();
        let c = read(&dir).unwrap();
        assert_eq!(c.servers.len(), 2);
        assert_eq!(c.servers["docs"].env_allow, vec!["LANG".to_string()]);
        assert!(c.servers["web"].headers.is_empty());
        let ignored = c.ignored.join("\n");
        for what in ["provider", "mcp.allow", "GITHUB_TOKEN", "headers"] {
            assert!(ignored.contains(what), "{what}: {ignored}");
        }
        assert_eq!(c.hash.as_ref().map(String::len), Some(64));
        std::fs::remove_dir_all(&dir).ok();
        assert!(read(&dir).is_none());
    }
}
