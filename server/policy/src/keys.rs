//! Grant keys: what an approval "for this session" records, and what the gate looks up. Each
//! kind is one variant of [`GrantKey`]; the text form (`dir:write:/src`, `prefix:["cargo"]`, …) is
//! what the database stores, and reads back into the same variant.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::McpUse;
use crate::protocol::Effect;

/// Whether a directory grant covers writes (and so reads) or reads only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    Read,
    Write,
}

/// One grant, typed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum GrantKey {
    /// Every call of this effect.
    Effect(Effect),
    /// Files below this directory (outside the roots).
    Dir { access: Access, path: PathBuf },
    /// One file (a hard-linked file, an environment file).
    File(PathBuf),
    /// One exact command line, by its SHA-256.
    Command(String),
    /// Commands starting with this argv ("allow commands like this").
    Prefix(Vec<String>),
    /// A private-network origin.
    Net(String),
    /// A path the jail hid from a command, bound read-only into the session's later commands
    /// ("allow for this session" on the command's card).
    Jail(PathBuf),
    /// One tool of an MCP server, in one version.
    Mcp {
        server: String,
        tool: String,
        version: String,
    },
    /// One exact command line (by its SHA-256) run outside the process sandbox: allowed for
    /// the call answered only, never stored.
    OutsideSandbox(String),
    /// One exact command line (by its SHA-256) given the user's SSH agent: allowed for the call
    /// answered only, never stored.
    SshAgent(String),
    /// One plugin install (the spec's SHA-256): allowed for the call answered only, never
    /// stored — each install asks.
    PluginInstall(String),
    /// One exact force push (by its SHA-256): allowed for the call answered only, never
    /// stored — a session grant never covers rewriting a remote branch.
    ForcePush(String),
}

impl std::fmt::Display for GrantKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GrantKey::Effect(e) => write!(f, "effect:{}", e.as_str()),
            GrantKey::Dir { access, path } => {
                let a = match access {
                    Access::Read => "read",
                    Access::Write => "write",
                };
                write!(f, "dir:{a}:{}", path.to_string_lossy())
            }
            GrantKey::File(p) => write!(f, "file:{}", p.to_string_lossy()),
            GrantKey::Command(h) => write!(f, "cmd:{h}"),
            GrantKey::Prefix(argv) => write!(
                f,
                "prefix:{}",
                serde_json::to_string(argv).unwrap_or_else(|_| "[]".into())
            ),
            GrantKey::Net(origin) => write!(f, "net:{origin}"),
            GrantKey::Jail(p) => write!(f, "jail:{}", p.to_string_lossy()),
            GrantKey::Mcp {
                server,
                tool,
                version,
            } => write!(f, "mcp:{server}/{tool}#{version}"),
            GrantKey::OutsideSandbox(h) => write!(f, "outside:{h}"),
            GrantKey::SshAgent(h) => write!(f, "ssh-agent:{h}"),
            GrantKey::PluginInstall(h) => write!(f, "plugin-install:{h}"),
            GrantKey::ForcePush(h) => write!(f, "force-push:{h}"),
        }
    }
}

impl GrantKey {
    /// Allows the one call answered: no answer stores it (running outside the sandbox, lending
    /// the SSH agent).
    pub fn once_only(&self) -> bool {
        matches!(
            self,
            GrantKey::OutsideSandbox(_)
                | GrantKey::SshAgent(_)
                | GrantKey::PluginInstall(_)
                | GrantKey::ForcePush(_)
        )
    }

    /// What the grant allows, in the words an approval's "for this session" button shows.
    pub fn describe(&self) -> String {
        let shown = |p: &Path| p.to_string_lossy().into_owned();
        match self {
            GrantKey::Effect(e) => match e {
                Effect::Read => "every read (read)".into(),
                Effect::Write => "every file edit (write)".into(),
                Effect::Process => "every command (process)".into(),
                Effect::External => "every network and outside tool (external)".into(),
                Effect::Internal => "every change to Tradewind's own state (internal)".into(),
            },
            GrantKey::Dir {
                access: Access::Write,
                path,
            } => format!("reading and writing under {}", shown(path)),
            GrantKey::Dir {
                access: Access::Read,
                path,
            } => format!("reading under {}", shown(path)),
            GrantKey::File(p) => format!("the file {}", shown(p)),
            GrantKey::Command(_) => "this exact command".into(),
            GrantKey::Prefix(argv) => format!("commands starting with `{}`", argv.join(" ")),
            GrantKey::Net(origin) => format!("connections to {origin}"),
            GrantKey::Jail(p) => format!("{} in the sandbox, read-only", shown(p)),
            GrantKey::Mcp { server, tool, .. } => format!("the MCP tool {server}/{tool}"),
            GrantKey::OutsideSandbox(_)
            | GrantKey::SshAgent(_)
            | GrantKey::PluginInstall(_)
            | GrantKey::ForcePush(_) => "this call only".into(),
        }
    }

    /// A stored key read back; `None` for text no version of the server writes.
    pub fn parse(key: &str) -> Option<GrantKey> {
        let (kind, rest) = key.split_once(':')?;
        Some(match kind {
            "effect" => GrantKey::Effect(Effect::try_from(rest.to_string()).ok()?),
            "dir" => {
                let (access, path) = rest.split_once(':')?;
                let access = match access {
                    "read" => Access::Read,
                    "write" => Access::Write,
                    _ => return None,
                };
                GrantKey::Dir {
                    access,
                    path: PathBuf::from(path),
                }
            }
            "file" => GrantKey::File(PathBuf::from(rest)),
            "cmd" => GrantKey::Command(rest.to_string()),
            "prefix" => {
                let v: Vec<String> = serde_json::from_str(rest).ok()?;
                if v.is_empty() {
                    return None;
                }
                GrantKey::Prefix(v)
            }
            "net" => GrantKey::Net(rest.to_string()),
            "outside" => GrantKey::OutsideSandbox(rest.to_string()),
            "ssh-agent" => GrantKey::SshAgent(rest.to_string()),
            "plugin-install" => GrantKey::PluginInstall(rest.to_string()),
            "force-push" => GrantKey::ForcePush(rest.to_string()),
            "jail" if rest.starts_with('/') => GrantKey::Jail(PathBuf::from(rest)),
            "mcp" => {
                let (server, rest) = rest.split_once('/')?;
                let (tool, version) = rest.rsplit_once('#')?;
                GrantKey::Mcp {
                    server: server.to_string(),
                    tool: tool.to_string(),
                    version: version.to_string(),
                }
            }
            _ => return None,
        })
    }
}

/// The grant key of one MCP tool in one version.
pub fn mcp_key(m: &McpUse) -> String {
    GrantKey::Mcp {
        server: m.server.clone(),
        tool: m.tool.clone(),
        version: m.version.clone(),
    }
    .to_string()
}

/// The grant key of a private-network destination.
pub fn net_key(origin: &str) -> String {
    GrantKey::Net(origin.to_string()).to_string()
}

pub fn effect_key(effect: Effect) -> String {
    GrantKey::Effect(effect).to_string()
}

/// Directory grants are scoped by access: a `write` grant covers reads too, never the reverse.
pub fn dir_key(effect: Effect, dir: &Path) -> String {
    let access = if effect == Effect::Write {
        Access::Write
    } else {
        Access::Read
    };
    GrantKey::Dir {
        access,
        path: dir.to_path_buf(),
    }
    .to_string()
}

pub(crate) fn dir_granted(grants: &HashSet<String>, effect: Effect, path: &Path) -> bool {
    grants.iter().any(|g| match GrantKey::parse(g) {
        Some(GrantKey::Dir { access, path: d }) => {
            (access == Access::Write || effect != Effect::Write) && path.starts_with(d)
        }
        _ => false,
    })
}

pub fn command_key(command: &str) -> String {
    GrantKey::Command(command_hash(command)).to_string()
}

/// An exact command line's SHA-256, as keys name it.
pub fn command_hash(command: &str) -> String {
    hex::encode(<sha2::Sha256 as sha2::Digest>::digest(command.as_bytes()))
}

/// The grant key of a prefix rule: the argv prefix as JSON.
pub fn prefix_key(argv: &[String]) -> String {
    GrantKey::Prefix(argv.to_vec()).to_string()
}

/// The argv prefix a `prefix:` grant key stores.
pub fn parse_prefix_key(key: &str) -> Option<Vec<String>> {
    match GrantKey::parse(key)? {
        GrantKey::Prefix(v) => Some(v),
        _ => None,
    }
}

/// The grant key of a path the jail binds read-only into a session's commands.
pub fn jail_key(p: &Path) -> String {
    GrantKey::Jail(p.to_path_buf()).to_string()
}

/// The paths a session's grants let into its jail (read-only).
pub fn jail_paths<'a>(grants: impl IntoIterator<Item = &'a String>) -> Vec<PathBuf> {
    grants
        .into_iter()
        .filter_map(|g| match GrantKey::parse(g) {
            Some(GrantKey::Jail(p)) => Some(p),
            _ => None,
        })
        .collect()
}

/// The grant key of one file the user allowed (a hard-linked file, an environment file).
pub fn file_key(p: &Path) -> String {
    GrantKey::File(p.to_path_buf()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_reads_back_as_written() {
        let keys = [
            effect_key(Effect::Process),
            dir_key(Effect::Write, Path::new("/a b/c")),
            dir_key(Effect::Read, Path::new("/x")),
            file_key(Path::new("/w/.env")),
            command_key("ls"),
            prefix_key(&["cargo".into(), "test".into()]),
            net_key("http://127.0.0.1:8080"),
            jail_key(Path::new("/home/u/.config/tool")),
            mcp_key(&McpUse {
                server: "fs".into(),
                tool: "read".into(),
                version: "1#2".into(),
                headless_allowed: false,
                hints: Vec::new(),
            }),
        ];
        for k in keys {
            let parsed = GrantKey::parse(&k);
            assert_eq!(parsed.map(|g| g.to_string()), Some(k.clone()), "{k}");
        }
        assert_eq!(GrantKey::parse("dir:other:/x"), None);
        assert_eq!(parse_prefix_key("prefix:[]"), None);
        assert_eq!(GrantKey::parse("jail:relative"), None);
        let j = [jail_key(Path::new("/a")), effect_key(Effect::Read)];
        assert_eq!(jail_paths(&j), vec![PathBuf::from("/a")]);
        let g: HashSet<String> = [dir_key(Effect::Read, Path::new("/d"))].into();
        assert!(dir_granted(&g, Effect::Read, Path::new("/d/f")));
        assert!(!dir_granted(&g, Effect::Write, Path::new("/d/f")));
    }
}
