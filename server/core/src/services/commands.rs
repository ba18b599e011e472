//! The user's own slash commands: Markdown prompt templates in the workspace's
//! `.tradewind/commands/<name>.md` (`/name args`; `$ARGUMENTS` in the text takes the args).

use std::path::Path;

use super::{Core, ServiceResult};
use crate::protocol::{PromptCommand, PromptCommands};

/// Templates read per workspace, each at most this many bytes.
const MAX_TEMPLATE_BYTES: u64 = 64 * 1024;
const MAX_COMMANDS: usize = 100;

/// A command name: 1 to 40 of `a-z 0-9 - _`, starting with a letter or digit.
fn valid_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 40
        && n.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
        && n.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

/// `description:` from a front matter block, and the template without it.
fn split_front_matter(text: &str) -> (Option<String>, &str) {
    let Some(rest) = text.strip_prefix("---\n") else {
        return (None, text);
    };
    let Some(end) = rest.find("\n---") else {
        return (None, text);
    };
    let description = rest[..end].lines().find_map(|l| {
        l.strip_prefix("description:")
            .map(|d| d.trim().trim_matches('"').to_string())
    });
    let body = rest[end + 4..].trim_start_matches(['\r', '\n']);
    (description, body)
}

/// `/init`: the agent studies the repository and proposes an AGENTS.md, written through the
/// gate like any write.
const INIT: &str = "Study this repository and write an AGENTS.md at the workspace root for the agents that will work here after you. First look, without changing anything: the build files, the README, the CI configuration, the source layout, the tests, and any AGENTS.md, AGENTS.override.md or CLAUDE.md already here (context_explain lists the ones that apply). Then write AGENTS.md with write_file (if one exists, improve it rather than starting over) covering: what the project is, in two sentences; the exact commands to build, lint, run one test and run the whole suite; which directory holds what; the conventions the code follows that a newcomer would miss; anything surprising (generated files not to edit, services or variables a run needs). Keep it under 200 lines, concrete and true to what you found, with no generic advice. Where a package of a monorepo builds or tests differently, say so there: propose an AGENTS.md in that package too.";

/// The built-in commands, before the workspace's own.
fn builtins() -> Vec<PromptCommand> {
    vec![PromptCommand {
        name: "init".into(),
        description:
            "Study the repository and propose an AGENTS.md for it (written through the gate)".into(),
        template: INIT.into(),
        takes_arguments: false,
        builtin: true,
        skill: false,
    }]
}

/// The commands of a workspace, by name: the built-in ones first (a workspace file of the same
/// name is left out), then regular files (no links) directly in its `.tradewind/commands/`.
pub fn read_commands(workspace: &Path) -> PromptCommands {
    let mut all = builtins();
    let mut own = workspace_commands(workspace);
    own.data.retain(|c| {
        let taken = all.iter().any(|b| b.name == c.name);
        if taken {
            own.skipped
                .push(format!("{}.md: the built-in /{} wins", c.name, c.name));
        }
        !taken
    });
    own.skipped.sort();
    all.append(&mut own.data);
    PromptCommands {
        data: all,
        skipped: own.skipped,
    }
}

/// Each skill as a command `/name args`, unless a command of that name exists.
fn add_skills(c: &mut PromptCommands, skills: &crate::skills::Catalogue) {
    for s in &skills.skills {
        if c.data.iter().any(|d| d.name == s.name) || c.data.len() >= MAX_COMMANDS * 2 {
            continue;
        }
        c.data.push(PromptCommand {
            name: s.name.clone(),
            description: s.description.clone(),
            template: format!(
                "Use the skill `{}`: load it with skill_load first, then follow it.\n\n$ARGUMENTS",
                s.name
            ),
            takes_arguments: true,
            builtin: false,
            skill: true,
        });
    }
}

fn workspace_commands(workspace: &Path) -> PromptCommands {
    commands_in(&workspace.join(".tradewind").join("commands"))
}

/// Each enabled plugin's commands (`commands/*.md`), after the workspace's: a name taken
/// before is left out.
fn add_plugin_commands(c: &mut PromptCommands, plugins: &[crate::plugins::Plugin]) {
    for p in plugins {
        let Some(dir) = &p.commands else { continue };
        for cmd in commands_in(dir).data {
            if c.data.iter().any(|d| d.name == cmd.name) {
                c.skipped.push(format!(
                    "{}: /{} of plugin {} is taken",
                    cmd.name, cmd.name, p.name
                ));
            } else if c.data.len() < MAX_COMMANDS * 2 {
                c.data.push(cmd);
            }
        }
    }
}

/// The prompt templates of one folder (`<name>.md`, front matter `description`).
fn commands_in(dir: &Path) -> PromptCommands {
    let mut data = Vec::new();
    let mut skipped = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return PromptCommands { data, skipped };
    };
    for e in entries.flatten() {
        let file = e.file_name().to_string_lossy().to_string();
        let Some(name) = file.strip_suffix(".md") else {
            continue;
        };
        let Ok(meta) = std::fs::symlink_metadata(e.path()) else {
            continue;
        };
        if !meta.is_file() || !valid_name(name) || meta.len() > MAX_TEMPLATE_BYTES {
            skipped.push(format!(
                "{file}: {}",
                if !meta.is_file() {
                    "not a regular file"
                } else if meta.len() > MAX_TEMPLATE_BYTES {
                    "larger than 64 KiB"
                } else {
                    "names are 1-40 of a-z 0-9 - _"
                }
            ));
            continue;
        }
        let Ok(text) = std::fs::read_to_string(e.path()) else {
            skipped.push(format!("{file}: not UTF-8 text"));
            continue;
        };
        let (description, body) = split_front_matter(&text);
        let description = description.unwrap_or_else(|| {
            body.lines()
                .map(|l| l.trim_start_matches('#').trim())
                .find(|l| !l.is_empty())
                .map(|l| crate::util::truncate_str(l, 100).to_string())
                .unwrap_or_default()
        });
        data.push(PromptCommand {
            name: name.to_string(),
            description,
            template: body.to_string(),
            takes_arguments: body.contains("$ARGUMENTS"),
            builtin: false,
            skill: false,
        });
    }
    data.sort_by(|a, b| a.name.cmp(&b.name));
    data.truncate(MAX_COMMANDS);
    skipped.sort();
    PromptCommands { data, skipped }
}

impl Core {
    /// The prompt templates of a session's workspace.
    pub async fn prompt_commands(
        &self,
        session: &crate::protocol::SessionId,
    ) -> ServiceResult<PromptCommands> {
        let row = self.load_session(session).await?;
        let ws = std::path::PathBuf::from(row.workspace);
        let skills = self.store.skill_catalogue(&ws, &self.cfg.state_dir).await;
        let plugins = self.store.enabled_plugins(&self.cfg.state_dir).await;
        Ok(tokio::task::spawn_blocking(move || {
            let mut c = read_commands(&ws);
            add_plugin_commands(&mut c, &plugins);
            add_skills(&mut c, &skills);
            c
        })
        .await
        .unwrap_or_else(|_| PromptCommands {
            data: Vec::new(),
            skipped: Vec::new(),
        }))
    }
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    #[test]
    fn templates_are_read_with_their_description_and_bad_ones_are_named() {
        let ws = std::env::temp_dir().join(format!("tw-cmds-{}", std::process::id()));
        let dir = ws.join(".tradewind/commands");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("review.md"),
            "---\ndescription: Review the diff\n---\nReview $ARGUMENTS carefully.\n",
        )
        .unwrap();
        std::fs::write(dir.join("tests.md"), "# Run the tests\nRun them all.").unwrap();
        std::fs::write(dir.join("Bad Name.md"), "x").unwrap();
        std::fs::write(dir.join("notes.txt"), "ignored").unwrap();
        std::fs::write(dir.join("init.md"), "my own init").unwrap();
        std::os::unix::fs::symlink("/etc/hostname", dir.join("link.md")).unwrap();
        let c = read_commands(&ws);
        let names: Vec<&str> = c.data.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["init", "review", "tests"]);
        assert!(c.data[0].builtin);
        assert!(c.data[0].template.contains("AGENTS.md"));
        assert_eq!(c.data[1].description, "Review the diff");
        assert_eq!(c.data[1].template, "Review $ARGUMENTS carefully.\n");
        assert!(c.data[1].takes_arguments);
        assert!(!c.data[1].builtin);
        assert_eq!(c.data[2].description, "Run the tests");
        assert_eq!(c.skipped.len(), 3, "{:?}", c.skipped);
        assert!(c.skipped.iter().any(|s| s.contains("built-in /init wins")));
        std::fs::remove_dir_all(&ws).unwrap();
    }
}
