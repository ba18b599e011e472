//! Plugins: folders in the state directory's `plugins/` that bundle skills, agents, prompt
//! commands, hooks and MCP servers, described by `tradewind-plugin.json` (or Claude Code's
//! `.claude-plugin/plugin.json` layout). One is installed by the user (`tradewind plugin install`,
//! or the `plugin_install` tool the user approves each time) and takes effect only once enabled;
//! the agent never writes here.
//!
//! An installed plugin is `plugins/<name>/`: either the plugin itself (a folder copied in) or
//! an npm install of it (`plugins/<name>/node_modules/<package>/` is then its root).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The setting holding the names of the enabled plugins (a JSON array).
pub const ENABLED_KEY: &str = "plugins_enabled";
/// The manifest names, in the order they are looked for.
pub const MANIFESTS: [&str; 2] = ["tradewind-plugin.json", ".claude-plugin/plugin.json"];
/// A manifest larger than this is refused.
const MAX_MANIFEST: u64 = 256 * 1024;
/// Plugins read at most.
const MAX_PLUGINS: usize = 200;

/// One installed plugin as read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plugin {
    pub name: String,
    pub version: Option<String>,
    pub description: String,
    /// Its folder in `plugins/` (what `remove` deletes).
    pub folder: PathBuf,
    /// Where its manifest and components are.
    pub root: PathBuf,
    pub skills: Option<PathBuf>,
    pub agents: Option<PathBuf>,
    pub commands: Option<PathBuf>,
    pub hooks: Option<PathBuf>,
    /// Its MCP servers as written (`${CLAUDE_PLUGIN_ROOT}` and `${TRADEWIND_PLUGIN_ROOT}`
    /// replaced by its root), each an `mcpServers` entry.
    pub mcp_servers: BTreeMap<String, serde_json::Value>,
    /// `websearch: {server, tool}`: an MCP tool of its own that serves `websearch`.
    pub websearch: Option<(String, String)>,
    /// What of it could not be used, and why.
    pub problems: Vec<String>,
}

/// A valid plugin name: 1 to 64 of `a-z 0-9 - _ .`, starting with a letter or digit.
pub fn valid_name(n: &str) -> bool {
    (1..=64).contains(&n.len())
        && n.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && n.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'_' | b'.')
        })
        && !n.contains("..")
}

/// The folder plugins are installed in.
pub fn dir(state_dir: &Path) -> PathBuf {
    state_dir.join("plugins")
}

/// Where a plugin folder's root is: the folder itself when it holds a manifest, else the one
/// npm package installed in its `node_modules` that does.
fn root_of(folder: &Path) -> Option<PathBuf> {
    let has = |d: &Path| MANIFESTS.iter().any(|m| is_file(&d.join(m)));
    if has(folder) {
        return Some(folder.to_path_buf());
    }
    let pkg: serde_json::Value =
        serde_json::from_slice(&std::fs::read(folder.join("package.json")).ok()?).ok()?;
    pkg.get("dependencies")?
        .as_object()?
        .keys()
        .map(|k| folder.join("node_modules").join(k))
        .find(|d| has(d))
}

fn is_file(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file())
}

fn is_dir(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir())
}

/// A component path the manifest names, inside the root (no `..`, no absolute path).
fn inside(root: &Path, rel: &str) -> Option<PathBuf> {
    let rel = rel.trim_start_matches("./");
    let p = Path::new(rel);
    (!rel.is_empty()
        && p.components()
            .all(|c| matches!(c, std::path::Component::Normal(_))))
    .then(|| root.join(p))
}

/// Replace the plugin-root variables in every string of `v`.
fn with_root(v: &mut serde_json::Value, root: &str) {
    match v {
        serde_json::Value::String(s) => {
            *s = s
                .replace("${CLAUDE_PLUGIN_ROOT}", root)
                .replace("${TRADEWIND_PLUGIN_ROOT}", root);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(|x| with_root(x, root)),
        serde_json::Value::Object(o) => o.values_mut().for_each(|x| with_root(x, root)),
        _ => {}
    }
}

/// Read one plugin folder (`None`: not a plugin — no manifest).
pub fn read(folder: &Path) -> Option<Plugin> {
    let root = root_of(folder)?;
    let (manifest, claude) = MANIFESTS
        .iter()
        .map(|m| root.join(m))
        .zip([false, true])
        .find(|(m, _)| is_file(m))?;
    let folder_name = folder
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string();
    let mut p = Plugin {
        name: folder_name.clone(),
        folder: folder.to_path_buf(),
        root: root.clone(),
        ..Plugin::default()
    };
    let m: serde_json::Value = match std::fs::metadata(&manifest) {
        Ok(meta) if meta.len() > MAX_MANIFEST => {
            p.problems.push("its manifest is too large".into());
            return Some(p);
        }
        _ => match std::fs::read(&manifest)
            .map_err(|e| e.to_string())
            .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))
        {
            Ok(v) => v,
            Err(e) => {
                p.problems.push(format!("its manifest cannot be read: {e}"));
                return Some(p);
            }
        },
    };
    let text = |k: &str| m.get(k).and_then(|v| v.as_str()).map(str::to_string);
    if let Some(n) = text("name").filter(|n| *n != folder_name) {
        p.problems.push(format!(
            "its manifest names it `{n}`; it is installed as `{folder_name}`"
        ));
    }
    p.version = text("version");
    p.description = text("description").unwrap_or_default();
    let component = |key: &str, default: &str| -> Option<PathBuf> {
        let rel = text(key).unwrap_or_else(|| default.to_string());
        inside(&root, &rel)
    };
    p.skills = component("skills", "skills").filter(|d| is_dir(d));
    p.agents = component("agents", "agents").filter(|d| is_dir(d));
    p.commands = component("commands", "commands").filter(|d| is_dir(d));
    p.hooks = component("hooks", "hooks/hooks.json").filter(|f| is_file(f));
    let root_text = root.to_string_lossy().into_owned();
    let servers = match m.get("mcpServers") {
        Some(serde_json::Value::Object(o)) => Some(serde_json::Value::Object(o.clone())),
        Some(serde_json::Value::String(rel)) => inside(&root, rel)
            .and_then(|f| std::fs::read(f).ok())
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .map(|v| v.get("mcpServers").cloned().unwrap_or(v)),
        _ if claude || is_file(&root.join(".mcp.json")) => std::fs::read(root.join(".mcp.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .map(|v| v.get("mcpServers").cloned().unwrap_or(v)),
        _ => None,
    };
    if let Some(serde_json::Value::Object(o)) = servers {
        for (name, mut def) in o {
            with_root(&mut def, &root_text);
            p.mcp_servers.insert(name, def);
        }
    }
    if let Some(w) = m.get("websearch") {
        match (
            w.get("server").and_then(|s| s.as_str()),
            w.get("tool").and_then(|s| s.as_str()),
        ) {
            (Some(s), Some(t)) if p.mcp_servers.contains_key(s) => {
                p.websearch = Some((s.to_string(), t.to_string()));
            }
            _ => p.problems.push(
                "websearch must name one of its MCP servers and a tool: {\"server\", \"tool\"}"
                    .into(),
            ),
        }
    }
    Some(p)
}

/// Whether any plugin is installed (one look at the folder: the common case, none, costs no
/// trip to the store).
pub fn any_installed(state_dir: &Path) -> bool {
    std::fs::read_dir(dir(state_dir)).is_ok_and(|mut d| d.next().is_some())
}

/// Every plugin installed in the state directory, by name.
pub fn installed(state_dir: &Path) -> Vec<Plugin> {
    let Ok(entries) = std::fs::read_dir(dir(state_dir)) else {
        return Vec::new();
    };
    let mut folders: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(valid_name)
        })
        .collect();
    folders.sort();
    folders.truncate(MAX_PLUGINS);
    folders.iter().filter_map(|f| read(f)).collect()
}

/// What `plugin install` takes, checked before any network use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spec {
    /// `npm:<package>[@version]` or a bare package name: from the registry npm is set up for.
    Npm {
        package: String,
        version: Option<String>,
    },
    /// `file:<path to a .tgz>` (`npm pack`'s output): offline.
    File(PathBuf),
}

impl Spec {
    /// What npm is given.
    pub fn npm_arg(&self) -> String {
        match self {
            Spec::Npm {
                package,
                version: Some(v),
            } => format!("{package}@{v}"),
            Spec::Npm { package, .. } => package.clone(),
            Spec::File(p) => format!("file:{}", p.display()),
        }
    }
}

/// An npm package name: `[@scope/]name`, lowercase, at most 214 characters.
fn npm_name(n: &str) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && !p.starts_with(['.', '_', '-'])
            && p.bytes().all(|b| {
                b.is_ascii_lowercase()
                    || b.is_ascii_digit()
                    || matches!(b, b'-' | b'.' | b'_' | b'~')
            })
    };
    n.len() <= 214
        && match n.strip_prefix('@').map(|r| r.split_once('/')) {
            Some(Some((scope, name))) => part(scope) && part(name),
            Some(None) => false,
            None => part(n),
        }
}

/// Read a spec: `npm:<pkg>[@version]`, a bare package name, or `file:<path>.tgz`.
pub fn parse_spec(spec: &str, cwd: &Path) -> Result<Spec, String> {
    let spec = spec.trim();
    if let Some(f) = spec.strip_prefix("file:") {
        let p = cwd.join(f);
        if !f.ends_with(".tgz") && !f.ends_with(".tar.gz") {
            return Err(format!(
                "`{spec}`: a file: spec names a .tgz (npm pack's output)"
            ));
        }
        if !p.is_file() {
            return Err(format!("`{spec}`: {} is not a file", p.display()));
        }
        return Ok(Spec::File(p));
    }
    let rest = spec.strip_prefix("npm:").unwrap_or(spec);
    // The version is after the last `@` that is not the scope's.
    let (package, version) = match rest.rfind('@') {
        Some(i) if i > 0 => (&rest[..i], Some(&rest[i + 1..])),
        _ => (rest, None),
    };
    if !npm_name(package) {
        return Err(format!(
            "`{spec}` is not npm:<package>[@version], a package name or file:<path>.tgz"
        ));
    }
    if let Some(v) = version
        && (v.is_empty()
            || v.len() > 64
            || !v.bytes().all(|b| {
                b.is_ascii_alphanumeric()
                    || matches!(b, b'.' | b'-' | b'+' | b'^' | b'~' | b'*' | b'x')
            }))
    {
        return Err(format!(
            "`{spec}`: `{v}` is not a version or range npm takes here"
        ));
    }
    Ok(Spec::Npm {
        package: package.to_string(),
        version: version.map(String::from),
    })
}

/// The name an npm-installed plugin takes: its manifest's, else its package's (without the
/// scope).
pub fn install_name(p: &Plugin, package: &str) -> Option<String> {
    let from_manifest = MANIFESTS
        .iter()
        .find_map(|m| std::fs::read(p.root.join(m)).ok())
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| v.get("name").and_then(|n| n.as_str()).map(String::from))
        .filter(|n| valid_name(n));
    from_manifest.or_else(|| {
        let base = package.rsplit('/').next().unwrap_or(package);
        valid_name(base).then(|| base.to_string())
    })
}

/// The names a setting value holds (a JSON array of names).
pub fn names(setting: Option<&str>) -> Vec<String> {
    setting
        .and_then(|s| serde_json::from_str::<Vec<String>>(s).ok())
        .unwrap_or_default()
}

/// The installed plugins whose names are enabled.
pub fn enabled(state_dir: &Path, setting: Option<&str>) -> Vec<Plugin> {
    let on = names(setting);
    if on.is_empty() {
        return Vec::new();
    }
    installed(state_dir)
        .into_iter()
        .filter(|p| on.contains(&p.name))
        .collect()
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    #[test]
    fn both_layouts_are_read_with_their_components() {
        let state = std::env::temp_dir().join(format!("tw-plugins-{}", crate::util::new_id()));
        let a = dir(&state).join("alpha");
        std::fs::create_dir_all(a.join("skills/s1")).unwrap();
        std::fs::create_dir_all(a.join("agents")).unwrap();
        std::fs::write(
            a.join("tradewind-plugin.json"),
            r#"{"name": "alpha", "version": "1.0.0", "description": "A.",
                "mcpServers": {"srv": {"command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/s.js"]}},
                "websearch": {"server": "srv", "tool": "search"}}"#,
        )
        .unwrap();
        // Claude Code's layout, installed by npm.
        let b = dir(&state).join("beta");
        let root = b.join("node_modules/@acme/beta");
        std::fs::create_dir_all(root.join(".claude-plugin")).unwrap();
        std::fs::create_dir_all(root.join("commands")).unwrap();
        std::fs::create_dir_all(root.join("hooks")).unwrap();
        std::fs::write(root.join("hooks/hooks.json"), "{}").unwrap();
        std::fs::write(
            root.join(".claude-plugin/plugin.json"),
            r#"{"name": "other"}"#,
        )
        .unwrap();
        std::fs::write(
            root.join(".mcp.json"),
            r#"{"mcpServers": {"x": {"command": "x"}}}"#,
        )
        .unwrap();
        std::fs::write(
            b.join("package.json"),
            r#"{"dependencies": {"@acme/beta": "file:beta.tgz"}}"#,
        )
        .unwrap();
        // Not a plugin.
        std::fs::create_dir_all(dir(&state).join("gamma")).unwrap();
        let all = installed(&state);
        assert_eq!(all.len(), 2, "{all:?}");
        let alpha = &all[0];
        assert_eq!(alpha.skills, Some(a.join("skills")));
        assert_eq!(alpha.agents, Some(a.join("agents")));
        assert_eq!(alpha.commands, None);
        assert_eq!(
            alpha.mcp_servers["srv"]["args"][0],
            format!("{}/s.js", a.display())
        );
        assert_eq!(alpha.websearch, Some(("srv".into(), "search".into())));
        assert!(alpha.problems.is_empty(), "{:?}", alpha.problems);
        let beta = &all[1];
        assert_eq!(beta.root, root);
        assert_eq!(beta.hooks, Some(root.join("hooks/hooks.json")));
        assert!(beta.mcp_servers.contains_key("x"));
        assert_eq!(beta.problems.len(), 1, "the manifest's other name");
        assert_eq!(enabled(&state, Some(r#"["beta"]"#)).len(), 1);
        assert!(enabled(&state, None).is_empty());
        std::fs::remove_dir_all(&state).unwrap();
    }

    #[test]
    fn specs_are_checked_before_any_network_use() {
        let cwd = Path::new("/");
        assert_eq!(
            parse_spec("npm:@acme/tw-plugin@1.2.0", cwd),
            Ok(Spec::Npm {
                package: "@acme/tw-plugin".into(),
                version: Some("1.2.0".into())
            })
        );
        assert_eq!(parse_spec("left-pad", cwd).unwrap().npm_arg(), "left-pad");
        for bad in [
            "npm:../x",
            "npm:@acme",
            "Left-Pad",
            "x@$(rm -rf ~)",
            "x; rm -rf /",
            "git+ssh://host/x",
            "https://evil.example/x.tgz",
            "file:/etc/passwd",
            "file:missing.tgz",
            "-g",
            "",
        ] {
            assert!(parse_spec(bad, cwd).is_err(), "{bad}");
        }
    }

    #[test]
    fn names_are_checked() {
        assert!(valid_name("my-plugin.v2"));
        assert!(!valid_name("../x") && !valid_name("") && !valid_name(".x"));
        assert!(!valid_name("A"));
    }
}
