//! `skill_load`, `skill_resource`, `skill_search`: the session's Agent Skills (see
//! `crate::skills`). All three read: a skill's body, a file beneath its folder (opened beneath
//! it, no link followed, no `..`, the hard-deny names refused, bounded and redacted as
//! `read_file` is), and the catalogue ranked for a query. Nothing here widens the gate: a
//! skill's script runs as an ordinary `shell` call.

use std::path::{Component, Path, PathBuf};

use super::{Gated, PrepareError, ToolCtx, ToolOutput};
use crate::policy::paths::PathPolicy;
use crate::protocol::Effect;
use crate::skills::{Catalogue, Source};

/// The catalogue this session sees now (its workspace's skills once trusted, and the user's).
pub async fn catalogue_of(ctx: &ToolCtx<'_>) -> Catalogue {
    ctx.services()
        .store
        .skill_catalogue(&ctx.paths.workspace, &ctx.paths.state_dir)
        .await
}

fn unknown(c: &Catalogue, name: &str) -> ToolOutput {
    let mut names: Vec<&str> = c.skills.iter().map(|s| s.name.as_str()).collect();
    names.truncate(50);
    ToolOutput::err(
        "unknown_skill",
        if names.is_empty() {
            format!("no skill named `{name}`: this session has no skills")
        } else {
            format!("no skill named `{name}`; skills: {}", names.join(", "))
        },
    )
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillLoadArgs {
    /// The skill's name, as listed.
    #[schemars(length(min = 1, max = 64))]
    pub name: String,
}

pub struct SkillLoad;

impl super::Tool for SkillLoad {
    const NAME: &'static str = "skill_load";
    const EFFECT: Effect = Effect::Read;
    const DESCRIPTION: &'static str = "Load a skill by name: its instructions, and the files of its folder (read one with skill_resource). Load the skill whose description matches the task before starting it.";
    type Args = SkillLoadArgs;
    type Call = String;

    fn prepare(a: SkillLoadArgs, _: &PathPolicy) -> Result<Gated<String>, PrepareError> {
        if !crate::skills::valid_name(&a.name) {
            return Err(PrepareError::Input(format!(
                "`{}` is not a skill name (a-z 0-9 -)",
                a.name
            )));
        }
        Ok(Gated::plain(a.name))
    }

    async fn run(name: String, ctx: &ToolCtx<'_>) -> ToolOutput {
        let c = catalogue_of(ctx).await;
        let Some(s) = c.get(&name) else {
            return unknown(&c, &name);
        };
        let mut text = format!("# Skill {} ({})\n\n{}\n", s.name, s.description, s.body);
        let files = listing(&s.dir);
        if !files.is_empty() {
            text.push_str("\nFiles of the skill (read one with skill_resource):\n");
            for f in &files {
                text.push_str(&format!("- {f}\n"));
            }
        }
        text.push_str(&where_to_run(ctx, s).await);
        if !s.allowed_tools.is_empty() {
            text.push_str(&format!(
                "\nallowed-tools: {} (for reference: every call still goes through the usual permissions)\n",
                s.allowed_tools.join(", ")
            ));
        }
        ToolOutput::ok(text)
    }
}

/// Where the skill's scripts run from: in the jail, its folder shown read-only at a neutral path
/// for this session's commands from now on (remembered for the session while the server
/// runs); without the jail, a workspace skill's own folder, or nowhere for one the gate holds
/// back (the state directory's, the workspace's `.tradewind/`).
async fn where_to_run(ctx: &ToolCtx<'_>, s: &crate::skills::Skill) -> String {
    let jailed = ctx
        .services()
        .sandbox
        .get()
        .await
        .is_some_and(|sb| sb.jailed());
    if jailed {
        let at = Path::new(crate::sandbox::SKILLS_IN_JAIL).join(&s.name);
        ctx.services()
            .live
            .skills
            .write()
            .entry(ctx.host.session().id.clone())
            .or_default()
            .insert(s.name.clone(), s.dir.clone());
        return format!(
            "\nIts folder, read-only, is {} in the commands you run: run its scripts from there with shell (e.g. `python3 {}/scripts/NAME.py`), never from its own place.\n",
            at.display(),
            at.display()
        );
    }
    let held_back = s.source != Source::Workspace
        || s.dir
            .components()
            .any(|c| c.as_os_str() == std::ffi::OsStr::new(".tradewind"));
    if held_back {
        "\nIts scripts cannot run here (commands run without the jail that would show its folder): read its files with skill_resource and do their work with your own tools.\n".to_string()
    } else {
        format!(
            "\nIts folder: {} (run its scripts from there with shell).\n",
            s.dir.display()
        )
    }
}

/// The files beneath a skill's folder (no links followed), relative, at most 200.
fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let Ok(t) = e.file_type() else { continue };
            let p = e.path();
            if t.is_dir() {
                stack.push(p);
            } else if t.is_file()
                && let Ok(rel) = p.strip_prefix(dir)
                && rel != Path::new("SKILL.md")
            {
                out.push(rel.display().to_string());
            }
            if out.len() >= 200 {
                return out;
            }
        }
    }
    out.sort();
    out
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillResourceArgs {
    /// The skill's name.
    #[schemars(length(min = 1, max = 64))]
    pub name: String,
    /// A file of its folder, relative to it (e.g. `references/forms.md`).
    #[schemars(length(min = 1, max = 1024))]
    pub path: String,
}

pub struct SkillResource;

impl super::Tool for SkillResource {
    const NAME: &'static str = "skill_resource";
    const EFFECT: Effect = Effect::Read;
    const DESCRIPTION: &'static str = "Read a file of a skill's folder (e.g. references/guide.md, a script's source), by the skill's name and the file's path relative to the folder.";
    type Args = SkillResourceArgs;
    type Call = (String, PathBuf);

    fn prepare(
        a: SkillResourceArgs,
        paths: &PathPolicy,
    ) -> Result<Gated<Self::Call>, PrepareError> {
        if !crate::skills::valid_name(&a.name) {
            return Err(PrepareError::Input(format!(
                "`{}` is not a skill name (a-z 0-9 -)",
                a.name
            )));
        }
        let rel = PathBuf::from(a.path.trim());
        if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
            return Err(PrepareError::Input(
                "the path must be relative to the skill's folder, without `..`".into(),
            ));
        }
        // The deny list by name (keys, credentials) holds inside a skill too.
        if let Some(why) = paths.denied_reason(&Path::new("/skill").join(&rel)) {
            return Err(PrepareError::Input(format!(
                "{} is refused: {why}",
                rel.display()
            )));
        }
        Ok(Gated::plain((a.name, rel)))
    }

    async fn run((name, rel): Self::Call, ctx: &ToolCtx<'_>) -> ToolOutput {
        let c = catalogue_of(ctx).await;
        let Some(s) = c.get(&name) else {
            return unknown(&c, &name);
        };
        let root = s.dir.clone();
        let path = root.join(&rel);
        let display = format!("{name}/{}", rel.display());
        // Opened beneath the folder: a link anywhere on the way fails the open.
        tokio::task::spawn_blocking(move || {
            super::fs::read_text(&root, &path, &display, None, None, false)
        })
        .await
        .unwrap_or_else(|e| ToolOutput::err("internal", e))
    }
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillSearchArgs {
    /// Words to look for in the skills' names and descriptions.
    #[schemars(length(min = 1, max = 200))]
    pub query: String,
}

pub struct SkillSearch;

impl super::Tool for SkillSearch {
    const NAME: &'static str = "skill_search";
    const EFFECT: Effect = Effect::Read;
    const DESCRIPTION: &'static str = "Find skills by words of their names and descriptions (the system prompt lists only as many as fit): the best matches first, at most 20.";
    type Args = SkillSearchArgs;
    type Call = String;

    fn prepare(a: SkillSearchArgs, _: &PathPolicy) -> Result<Gated<String>, PrepareError> {
        Ok(Gated::plain(a.query))
    }

    async fn run(query: String, ctx: &ToolCtx<'_>) -> ToolOutput {
        let c = catalogue_of(ctx).await;
        let found = c.search(&query);
        if found.is_empty() {
            return ToolOutput::ok(format!("No skill matches `{query}`."));
        }
        let mut text = String::new();
        for s in found.into_iter().take(20) {
            text.push_str(&format!("- {}: {}\n", s.name, s.description));
        }
        ToolOutput::ok(text)
    }
}
