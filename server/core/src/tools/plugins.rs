//! `plugin_install`: install a plugin (see `crate::plugins`) the user approves each time. npm
//! runs with `--ignore-scripts` (nothing of the package runs) in the jail, the network allowed
//! for this one call, its one writable path a staging folder; the server then moves what it
//! installed into the state directory's `plugins/`, disabled. The same install serves
//! `tradewind plugin install SPEC --yes`.

use std::path::{Path, PathBuf};

use super::{Gated, PrepareError, ToolCtx, ToolOutput};
use crate::plugins::{self, Spec};
use crate::policy::paths::PathPolicy;
use crate::protocol::Effect;

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginInstallArgs {
    /// `npm:<package>[@version]`, a package name, or `file:<path to a .tgz>` (relative to the
    /// workspace).
    #[schemars(length(min = 1, max = 300))]
    pub spec: String,
}

pub struct PluginInstall;

/// The npm command line an install runs (shown on its approval card).
fn npm_line(spec: &Spec) -> String {
    format!(
        "npm install --ignore-scripts --no-audit --no-fund{} {}",
        if matches!(spec, Spec::File(_)) {
            " --offline"
        } else {
            ""
        },
        spec.npm_arg()
    )
}

impl super::Tool for PluginInstall {
    const NAME: &'static str = crate::policy::PLUGIN_INSTALL_TOOL;
    const EFFECT: Effect = Effect::Process;
    const DESCRIPTION: &'static str = "Install a plugin (skills, agents, commands, hooks, MCP servers) from npm or a local .tgz: the user approves each install, and the plugin stays off until they enable it.";
    const INTERACTIVE_ONLY: bool = true;
    type Args = PluginInstallArgs;
    type Call = Spec;

    fn prepare(a: PluginInstallArgs, paths: &PathPolicy) -> Result<Gated<Spec>, PrepareError> {
        // A tarball is read as a file tool reads: inside the roots, off the deny list.
        if let Some(f) = a.spec.trim().strip_prefix("file:") {
            paths.resolve(f)?;
        }
        let spec = plugins::parse_spec(&a.spec, &paths.workspace).map_err(PrepareError::Input)?;
        let line = npm_line(&spec);
        let analysis = crate::policy::command::analyze_shell(&line);
        Ok(Gated {
            paths: Vec::new(),
            command: Some((line, analysis)),
            url: None,
            call: spec,
        })
    }

    async fn run(spec: Spec, ctx: &ToolCtx<'_>) -> ToolOutput {
        let state = ctx.services().cfg.state_dir.clone();
        let sandbox = ctx.services().sandbox.get().await;
        match install(&state, &spec, sandbox.as_deref()).await {
            Ok(name) => ToolOutput::ok(format!(
                "Installed the plugin {name}, disabled: nothing of it counts until the user enables it (Settings → Plugins, or `tradewind plugin enable {name}`)."
            )),
            Err(e) => ToolOutput::err("install_failed", e),
        }
    }
}

/// Install `spec` into `state_dir/plugins/<name>`, disabled: npm in a staging folder (in the
/// jail when there is one: the network for this call only, the staging folder its one
/// writable path), then moved in by the server. The plugin's name.
pub async fn install(
    state_dir: &Path,
    spec: &Spec,
    sandbox: Option<&crate::sandbox::Sandbox>,
) -> Result<String, String> {
    let dir = plugins::dir(state_dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let staging = dir.join(format!(".staging-{}", crate::util::new_id()));
    std::fs::create_dir(&staging).map_err(|e| e.to_string())?;
    let done = npm_install(&staging, spec, sandbox)
        .await
        .and_then(|package| place(&dir, &staging, &package));
    if staging.exists() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    done
}

/// Move a staged install in under its plugin's name.
fn place(dir: &Path, staging: &Path, package: &str) -> Result<String, String> {
    let p = plugins::read(staging).ok_or_else(|| {
        format!(
            "{package} has no tradewind-plugin.json nor .claude-plugin/plugin.json: not a plugin"
        )
    })?;
    let name = plugins::install_name(&p, package)
        .ok_or_else(|| format!("{package}: no usable plugin name"))?;
    let to = dir.join(&name);
    if to.exists() {
        return Err(format!(
            "a plugin named {name} is installed: remove it first (tradewind plugin remove {name})"
        ));
    }
    std::fs::rename(staging, &to).map_err(|e| e.to_string())?;
    Ok(name)
}

/// `npm install` of one spec into `staging` (a `file:` tarball copied in first, so the jail
/// needs nothing else); the package's name.
async fn npm_install(
    staging: &Path,
    spec: &Spec,
    sandbox: Option<&crate::sandbox::Sandbox>,
) -> Result<String, String> {
    std::fs::write(
        staging.join("package.json"),
        r#"{"name": "tradewind-plugin-staging", "private": true}"#,
    )
    .map_err(|e| e.to_string())?;
    let arg = match spec {
        Spec::File(f) => {
            let copy = staging.join("plugin.tgz");
            std::fs::copy(f, &copy).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
            format!("file:{}", copy.display())
        }
        Spec::Npm { .. } => spec.npm_arg(),
    };
    let mut argv: Vec<std::ffi::OsString> = [
        "install",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
        "--no-package-lock",
        "--save",
    ]
    .map(Into::into)
    .to_vec();
    if matches!(spec, Spec::File(_)) {
        argv.push("--offline".into());
    }
    argv.push(arg.into());
    let npm = find_npm().ok_or("npm is not installed (it comes with Node.js)")?;
    let mut cmd = match sandbox {
        Some(sb) => {
            let job = crate::sandbox::Job {
                roots: vec![staging.to_path_buf()],
                install: true,
                ..crate::sandbox::Job::default()
            };
            let mut c = sb.command(&job, &npm, &argv)?;
            sb.env(&job, &mut c);
            c
        }
        None => {
            let mut c = tokio::process::Command::new(&npm);
            c.args(&argv).process_group(0);
            c
        }
    };
    cmd.current_dir(staging)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let out = tokio::time::timeout(std::time::Duration::from_secs(300), cmd.output())
        .await
        .map_err(|_| "npm did not finish within 300 s".to_string())?
        .map_err(|e| format!("cannot run npm: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "npm install failed: {}",
            crate::util::truncate_str(String::from_utf8_lossy(&out.stderr).trim(), 2000)
        ));
    }
    let pkg: serde_json::Value = std::fs::read(staging.join("package.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    pkg.get("dependencies")
        .and_then(|d| d.as_object())
        .and_then(|d| d.keys().next().cloned())
        .ok_or_else(|| "npm installed nothing".to_string())
}

/// `npm` in `PATH`.
fn find_npm() -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join("npm"))
        .find(|p| p.is_file())
}
