//! Custom agents: Markdown files with YAML front matter (`description`, `tools`, `mode`,
//! `model`, `reasoning`, `base`) whose body is the agent's own instructions — Claude Code's
//! subagent format, read from the workspace's `.tradewind/agents/` and `.claude/agents/`
//! (only once the user trusted them: their hash is pinned, any change asks again) and from the
//! state directory's `agents/` (the user's own). The first of a name wins in that order.
//!
//! A custom agent is the `build` agent (or `plan`, with `base: plan`) narrowed: `tools` is an
//! allow-list (Claude Code's names map to ours; `Bash(git:*)` offers `shell` for commands
//! starting with `git` only), `mode` a ceiling under the session's. Nothing here widens the
//! gate, which still decides every call.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::protocol::{Agent, AgentName, Mode, ReasoningEffort};

/// The workspace folders agents are read from, in the order a name is looked up.
pub const WORKSPACE_DIRS: &[&str] = &[".tradewind/agents", ".claude/agents"];
/// An agent file larger than this is skipped.
pub const MAX_AGENT_BYTES: u64 = 64 * 1024;
/// Files read per folder at most.
const MAX_PER_DIR: usize = 500;

/// The setting that holds a workspace's trusted agents hash.
pub fn trust_key(workspace: &Path) -> String {
    format!("workspace_agents:{}", workspace.display())
}

/// Claude Code's tool names and ours.
const CLAUDE_NAMES: &[(&str, &str)] = &[
    ("Read", "read_file"),
    ("Write", "write_file"),
    ("Edit", "edit_file"),
    ("MultiEdit", "edit_file"),
    ("Bash", "shell"),
    ("Grep", "search_text"),
    ("Glob", "list_files"),
    ("LS", "list_files"),
    ("WebFetch", "webfetch"),
    ("WebSearch", "websearch"),
    ("Task", "task"),
    ("TodoWrite", "todo_write"),
];

/// Where an agent comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Workspace,
    User,
    /// An enabled plugin's.
    Plugin,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Workspace => "workspace",
            Source::User => "user",
            Source::Plugin => "plugin",
        }
    }
}

/// One `shell` narrowing: the command's words must start with these (`exact`: be these).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellRule {
    pub words: Vec<String>,
    pub exact: bool,
}

impl ShellRule {
    fn allows(&self, argv: &[String]) -> bool {
        argv.len() >= self.words.len()
            && (!self.exact || argv.len() == self.words.len())
            && self.words.iter().zip(argv).all(|(w, a)| w == a)
    }

    /// As written back for people: `git *` or `git status`.
    pub fn shown(&self) -> String {
        let mut s = self.words.join(" ");
        if !self.exact {
            s.push_str(" *");
        }
        s
    }
}

/// An agent's tool allow-list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tools {
    /// Our tool names.
    pub names: BTreeSet<String>,
    /// When `shell` came only as `Bash(...)` rules: the commands it may run (empty: any).
    pub shell: Vec<ShellRule>,
}

impl Tools {
    pub fn allows(&self, tool: &str) -> bool {
        self.names.contains(tool)
    }

    /// Whether a command (its simple commands' argvs) stays within the `shell` rules.
    pub fn allows_command(&self, commands: &[Vec<String>]) -> bool {
        self.shell.is_empty()
            || (!commands.is_empty()
                && commands
                    .iter()
                    .all(|argv| self.shell.iter().any(|r| r.allows(argv))))
    }
}

/// A custom agent as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    pub name: AgentName,
    pub description: String,
    /// The built-in it narrows: `build`, or `plan` with `base: plan`.
    pub base: Agent,
    /// `None`: every tool of its base.
    pub tools: Option<Tools>,
    /// A ceiling: never above the session's.
    pub mode: Option<Mode>,
    /// As written (`inherit`, an alias, or `<provider>/<model>`); `None`: inherit.
    pub model: Option<String>,
    pub reasoning: Option<ReasoningEffort>,
    /// Its instructions (the body).
    pub prompt: String,
    pub file: PathBuf,
    pub source: Source,
    /// What of its front matter was left out, and why (an unknown tool name).
    pub skipped: Vec<String>,
}

impl Profile {
    /// The mode a run of this agent takes in a session of `session` mode.
    pub fn mode_in(&self, session: Mode) -> Mode {
        self.mode.map_or(session, |m| m.min(session))
    }
}

/// What was found.
#[derive(Debug, Clone, Default)]
pub struct Catalogue {
    pub agents: Vec<Profile>,
    /// `<file>: <why>` for each one left out.
    pub skipped: Vec<String>,
    /// The workspace's agent files' hash (`None`: it has none).
    pub workspace_hash: Option<String>,
    /// Its agents are held back until the user trusts this hash.
    pub untrusted: bool,
}

impl Catalogue {
    pub fn get(&self, name: &str) -> Option<&Profile> {
        self.agents.iter().find(|a| a.name.as_str() == name)
    }

    /// Every name a session can choose: the built-ins, then these.
    pub fn names(&self) -> Vec<String> {
        [Agent::Build.as_str(), Agent::Plan.as_str()]
            .into_iter()
            .map(String::from)
            .chain(self.agents.iter().map(|a| a.name.to_string()))
            .collect()
    }
}

/// The tools of a `tools:` value: Claude Code's names mapped, ours kept, `Bash(...)` as shell
/// rules; unknown names come back apart.
fn tools_of(values: &[String], known: &dyn Fn(&str) -> bool) -> (Tools, Vec<String>) {
    let mut tools = Tools::default();
    let mut unknown = Vec::new();
    let mut whole_shell = false;
    let words = values
        .iter()
        .flat_map(|v| split_tools(v))
        .filter(|t| !t.is_empty());
    for w in words {
        if let Some(inner) = w.strip_prefix("Bash(").and_then(|r| r.strip_suffix(')')) {
            let (cmd, exact) = match inner
                .strip_suffix(":*")
                .or_else(|| inner.strip_suffix(" *"))
            {
                Some(c) => (c, false),
                None => (inner, true),
            };
            let words: Vec<String> = cmd.split_whitespace().map(String::from).collect();
            if words.is_empty() {
                unknown.push(w);
                continue;
            }
            tools.names.insert("shell".into());
            tools.shell.push(ShellRule { words, exact });
            continue;
        }
        let ours = CLAUDE_NAMES
            .iter()
            .find(|(c, _)| *c == w)
            .map_or(w.as_str(), |(_, o)| o);
        if known(ours) {
            whole_shell |= ours == "shell";
            tools.names.insert(ours.to_string());
        } else {
            unknown.push(w);
        }
    }
    if whole_shell {
        tools.shell.clear();
    }
    (tools, unknown)
}

/// `Read, Grep, Bash(git log:*)`: split on commas outside parentheses.
fn split_tools(v: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut cur = String::new();
    for c in v.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur.trim().to_string());
    out
}

/// One agent file's text parsed (its name is the file's stem unless `name:` says otherwise).
pub fn parse(
    file: &Path,
    source: Source,
    bytes: &[u8],
    known: &dyn Fn(&str) -> bool,
) -> Result<Profile, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8 text")?;
    let (fields, body) = crate::skills::front_matter(text)?;
    let one = |k: &str| {
        fields
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.join(" "))
            .filter(|v| !v.trim().is_empty())
    };
    let stem = file
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string();
    let raw = one("name").unwrap_or(stem);
    let name = AgentName::new(raw.clone())
        .map_err(|_| format!("name `{raw}` is not a-z then a-z 0-9 - (at most 64)"))?;
    if name.builtin().is_some() {
        return Err(format!("`{name}` is a built-in agent's name"));
    }
    let description = one("description").ok_or("the front matter has no description")?;
    let mut skipped = Vec::new();
    let tools = fields.iter().find(|(n, _)| n == "tools").map(|(_, v)| {
        let (t, unknown) = tools_of(v, known);
        skipped.extend(unknown.into_iter().map(|u| format!("unknown tool `{u}`")));
        t
    });
    let mode = one("mode")
        .map(|m| {
            m.parse::<Mode>()
                .map_err(|_| format!("mode `{m}` is not ask, auto or full"))
        })
        .transpose()?;
    let reasoning = one("reasoning")
        .or_else(|| one("reasoning_effort"))
        .map(|r| {
            r.parse::<ReasoningEffort>()
                .map_err(|_| format!("reasoning `{r}` is not low, medium or high"))
        })
        .transpose()?;
    let base = match one("base").as_deref() {
        None | Some("build") => Agent::Build,
        Some("plan") => Agent::Plan,
        Some(b) => return Err(format!("base `{b}` is not build or plan")),
    };
    Ok(Profile {
        name,
        description,
        base,
        tools,
        mode,
        model: one("model").filter(|m| m != "inherit"),
        reasoning,
        prompt: body.trim().to_string(),
        file: file.to_path_buf(),
        source,
        skipped,
    })
}

/// The agent files directly in `root` (regular `.md` files, no links), by name.
fn files(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    out.sort();
    out.truncate(MAX_PER_DIR);
    out
}

fn read_file(file: &Path) -> Result<Vec<u8>, String> {
    let meta = std::fs::symlink_metadata(file).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() > MAX_AGENT_BYTES {
        return Err(format!("larger than {MAX_AGENT_BYTES} bytes"));
    }
    std::fs::read(file).map_err(|e| format!("cannot be read: {e}"))
}

type Read = Vec<(PathBuf, Result<Vec<u8>, String>)>;

fn read_workspace(workspace: &Path) -> Read {
    WORKSPACE_DIRS
        .iter()
        .flat_map(|d| files(&workspace.join(d)))
        .map(|f| {
            let bytes = read_file(&f);
            (f, bytes)
        })
        .collect()
}

fn hash_of(read: &Read) -> Option<String> {
    crate::skills::files_hash(
        read.iter()
            .filter_map(|(f, b)| Some((f.clone(), b.as_deref().ok()?))),
    )
}

/// The hash of a workspace's agent files: what the user trusts.
pub fn workspace_hash(workspace: &Path) -> Option<String> {
    hash_of(&read_workspace(workspace))
}

/// The agents a session of `workspace` can choose: the workspace's (when `trusted` is the hash
/// of what is there now), then the user's. `known` says which of our tool names exist.
pub fn catalogue(
    workspace: &Path,
    state_dir: &Path,
    trusted: Option<&str>,
    plugin_dirs: &[PathBuf],
    known: &dyn Fn(&str) -> bool,
) -> Catalogue {
    let ws = read_workspace(workspace);
    let mut c = Catalogue {
        workspace_hash: hash_of(&ws),
        ..Catalogue::default()
    };
    c.untrusted = c.workspace_hash.is_some() && c.workspace_hash.as_deref() != trusted;
    let read_all = |dir: &Path| -> Read {
        files(dir)
            .into_iter()
            .map(|f| {
                let bytes = read_file(&f);
                (f, bytes)
            })
            .collect()
    };
    let user = read_all(&state_dir.join("agents"));
    let plugins: Read = plugin_dirs.iter().flat_map(|d| read_all(d)).collect();
    let mut names = std::collections::HashSet::new();
    let ws = ws
        .iter()
        .filter(|_| !c.untrusted)
        .map(|r| (r, Source::Workspace));
    let all: Vec<_> = ws
        .chain(user.iter().map(|r| (r, Source::User)))
        .chain(plugins.iter().map(|r| (r, Source::Plugin)))
        .collect();
    for ((file, bytes), source) in all {
        match bytes
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|b| parse(file, source, b, known))
        {
            Ok(a) if !names.insert(a.name.clone()) => c.skipped.push(format!(
                "{}: an agent named {} was found first",
                file.display(),
                a.name
            )),
            Ok(a) => c.agents.push(a),
            Err(why) => c.skipped.push(format!("{}: {why}", file.display())),
        }
    }
    c
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    fn known(n: &str) -> bool {
        [
            "read_file",
            "write_file",
            "edit_file",
            "shell",
            "search_text",
            "list_files",
            "task",
        ]
        .contains(&n)
    }

    fn parsed(text: &str) -> Result<Profile, String> {
        parse(
            Path::new("/w/.claude/agents/code-reviewer.md"),
            Source::Workspace,
            text.as_bytes(),
            &known,
        )
    }

    #[test]
    fn claude_names_map_to_ours_and_unknown_ones_are_named() {
        let a = parsed(
            "---\ndescription: Reviews code\ntools: Read, Grep, Glob, Frobnicate\nmodel: sonnet\nmode: auto\n---\nYou review.\n",
        )
        .unwrap();
        assert_eq!(a.name.as_str(), "code-reviewer");
        let t = a.tools.clone().unwrap();
        assert_eq!(
            t.names.iter().map(String::as_str).collect::<Vec<_>>(),
            ["list_files", "read_file", "search_text"]
        );
        assert_eq!(a.skipped, ["unknown tool `Frobnicate`"]);
        assert_eq!(a.model.as_deref(), Some("sonnet"));
        assert_eq!(a.mode_in(Mode::Full), Mode::Auto);
        assert_eq!(a.mode_in(Mode::Ask), Mode::Ask);
        assert_eq!(a.prompt, "You review.");
    }

    #[test]
    fn bash_rules_narrow_shell_and_a_list_is_read() {
        let a = parsed(
            "---\ndescription: git only\ntools:\n  - Read\n  - Bash(git:*)\n  - Bash(make test)\n---\nx",
        )
        .unwrap();
        let t = a.tools.unwrap();
        assert!(t.allows("shell"));
        let argv = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        assert!(t.allows_command(&[argv("git status")]));
        assert!(t.allows_command(&[argv("git log"), argv("make test")]));
        assert!(!t.allows_command(&[argv("git log"), argv("rm -rf x")]));
        assert!(!t.allows_command(&[argv("make test now")]));
        assert!(!t.allows_command(&[]));
        // `Bash` alone lifts the narrowing.
        let b = parsed("---\ndescription: d\ntools: [Bash(git:*), Bash]\n---\n").unwrap();
        assert!(b.tools.unwrap().allows_command(&[argv("rm x")]));
    }

    #[test]
    fn reserved_and_bad_names_and_fields_are_refused() {
        assert!(parsed("---\nname: plan\ndescription: d\n---\n").is_err());
        assert!(parsed("---\nname: Bad_Name\ndescription: d\n---\n").is_err());
        assert!(parsed("---\ndescription: d\nmode: yolo\n---\n").is_err());
        assert!(parsed("---\nname: x\n---\n").is_err());
        let p = parsed("---\ndescription: d\nbase: plan\nmodel: inherit\n---\n").unwrap();
        assert_eq!(p.base, Agent::Plan);
        assert_eq!(p.model, None);
        assert_eq!(p.tools, None);
    }

    #[test]
    fn workspace_agents_wait_for_trust_and_the_first_name_wins() {
        let root = std::env::temp_dir().join(format!("tw-agents-{}", crate::util::new_id()));
        let (ws, state) = (root.join("ws"), root.join("state"));
        for d in [ws.join(".claude/agents"), state.join("agents")] {
            std::fs::create_dir_all(&d).unwrap();
        }
        std::fs::write(
            ws.join(".claude/agents/rev.md"),
            "---\ndescription: ws\n---\n",
        )
        .unwrap();
        std::fs::write(state.join("agents/rev.md"), "---\ndescription: user\n---\n").unwrap();
        let c = catalogue(&ws, &state, None, &[], &known);
        assert!(c.untrusted);
        assert_eq!(c.get("rev").unwrap().description, "user");
        let hash = workspace_hash(&ws).unwrap();
        let c = catalogue(&ws, &state, Some(&hash), &[], &known);
        assert_eq!(c.get("rev").unwrap().description, "ws");
        assert_eq!(c.skipped.len(), 1, "{:?}", c.skipped);
        assert_eq!(c.names(), ["build", "plan", "rev"]);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
