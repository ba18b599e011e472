//! Agent Skills: folders in the open `SKILL.md` format (YAML front matter `name`,
//! `description`, optional `allowed-tools`; beside it `scripts/`, `references/`, `assets/`).
//! Found in the workspace's `.tradewind/skills/`, `.agents/skills/` and `.claude/skills/`
//! (read only once the user trusted the workspace's skills: the catalogue's hash is pinned, any
//! change asks again) and in the state directory's `skills/` (the user's own). The first of a
//! name wins, in that order; the rest, invalid front matter and oversize files are listed as
//! skipped with the reason.
//!
//! The system prompt carries each skill's name and description only (within a share of the
//! context window; the rest is found with `skill_search`); `skill_load` returns a body,
//! `skill_resource` reads a file of its folder. `allowed-tools` is shown, never a grant.

use std::path::{Path, PathBuf};

use sha2::Digest;

/// The workspace folders skills are read from, in the order a name is looked up.
pub const WORKSPACE_DIRS: &[&str] = &[".tradewind/skills", ".agents/skills", ".claude/skills"];
/// A `SKILL.md` larger than this is skipped.
pub const MAX_SKILL_BYTES: u64 = 64 * 1024;
/// Skills read per folder at most.
const MAX_PER_DIR: usize = 1000;
/// The setting that holds a workspace's trusted catalogue hash.
pub fn trust_key(workspace: &Path) -> String {
    format!("workspace_skills:{}", workspace.display())
}
/// The setting that holds the names of the skills the user turned off in a workspace (a JSON
/// array).
pub fn disabled_key(workspace: &Path) -> String {
    format!("skills_disabled:{}", workspace.display())
}

/// Where a skill comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Workspace,
    User,
    /// An enabled plugin's.
    Plugin,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Skill {
    pub name: String,
    pub description: String,
    /// `allowed-tools` as written (shown; never widens the gate).
    pub allowed_tools: Vec<String>,
    /// The skill's folder.
    pub dir: PathBuf,
    pub source: Source,
    #[serde(skip)]
    pub body: String,
}

/// What was found.
#[derive(Debug, Clone, Default)]
pub struct Catalogue {
    pub skills: Vec<Skill>,
    /// The ones the user turned off in this workspace (listed, never offered).
    pub disabled: Vec<Skill>,
    /// `<folder>: <why>` for each one left out.
    pub skipped: Vec<String>,
    /// The workspace's skill folders' hash (`None`: it has none).
    pub workspace_hash: Option<String>,
    /// Its skills are held back until the user trusts this hash.
    pub untrusted: bool,
}

impl Catalogue {
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.name == name)
    }

    /// Skills ranked for a query: a name match first, then by how many of the query's words
    /// the name and description hold.
    pub fn search(&self, query: &str) -> Vec<&Skill> {
        let words: Vec<String> = query
            .split_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        let mut scored: Vec<(usize, &Skill)> = self
            .skills
            .iter()
            .filter_map(|s| {
                let hay = format!("{} {}", s.name, s.description).to_ascii_lowercase();
                let hits = words.iter().filter(|w| hay.contains(w.as_str())).count();
                let named = words.iter().any(|w| s.name.contains(w.as_str()));
                (hits > 0).then_some((hits + usize::from(named) * 10, s))
            })
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.name.cmp(&b.1.name)));
        scored.into_iter().map(|(_, s)| s).collect()
    }

    /// The system prompt's list: names and descriptions within `budget` characters.
    pub fn prompt_section(&self, budget: usize) -> String {
        if self.skills.is_empty() {
            return String::new();
        }
        let mut out = String::from(
            "\n# Skills\nA skill is a folder of instructions for one kind of task. When a task matches a skill's description, call skill_load with its name first and follow it; skill_resource reads a file of its folder; its scripts run through shell like any command.\n",
        );
        let mut shown = 0;
        for s in &self.skills {
            let line = format!("- {}: {}\n", s.name, s.description);
            if out.len() + line.len() > budget {
                break;
            }
            out.push_str(&line);
            shown += 1;
        }
        if shown < self.skills.len() {
            out.push_str(&format!(
                "({} more: find them with skill_search)\n",
                self.skills.len() - shown
            ));
        }
        out
    }
}

/// A valid skill name: 1 to 64 of `a-z 0-9 -`, not starting or ending with `-`.
pub fn valid_name(n: &str) -> bool {
    (1..=64).contains(&n.len())
        && !n.starts_with('-')
        && !n.ends_with('-')
        && n.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// Front matter keys, each with its values.
type Fields = Vec<(String, Vec<String>)>;

/// The front matter's fields (a YAML subset: `key: value`, quoted or not, and `- item` lists)
/// and the body after it.
pub(crate) fn front_matter(text: &str) -> Result<(Fields, &str), String> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("no front matter (the file must open with ---)")?;
    let end = rest
        .find("\n---")
        .ok_or("the front matter is not closed with ---")?;
    let mut fields: Fields = Vec::new();
    for line in rest[..end].lines() {
        let t = line.trim_end();
        if t.trim().is_empty() || t.trim_start().starts_with('#') {
            continue;
        }
        if let Some(item) = t.trim_start().strip_prefix("- ") {
            match fields.last_mut() {
                Some((_, v)) if line.starts_with([' ', '-', '\t']) => v.push(unquote(item)),
                _ => return Err(format!("a list item outside a key: `{t}`")),
            }
            continue;
        }
        if line.starts_with([' ', '\t']) {
            // A folded continuation of the previous value.
            if let Some((_, v)) = fields.last_mut() {
                match v.last_mut() {
                    Some(last) => {
                        last.push(' ');
                        last.push_str(t.trim());
                    }
                    None => v.push(t.trim().to_string()),
                }
            }
            continue;
        }
        let (k, v) = t
            .split_once(':')
            .ok_or_else(|| format!("not `key: value`: `{t}`"))?;
        let v = v.trim();
        let values = if v.is_empty() || v == ">" || v == "|" {
            Vec::new()
        } else if let Some(list) = v.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            list.split(',')
                .map(unquote)
                .filter(|s| !s.is_empty())
                .collect()
        } else {
            vec![unquote(v)]
        };
        fields.push((k.trim().to_string(), values));
    }
    let body = rest[end + 4..].trim_start_matches(['\r', '\n']);
    Ok((fields, body))
}

fn unquote(s: &str) -> String {
    s.trim().trim_matches('"').trim_matches('\'').to_string()
}

/// One skill folder read.
fn read_skill(dir: &Path, source: Source) -> Result<Skill, String> {
    parse_skill(dir, source, &skill_bytes(dir)?)
}

/// A folder's `SKILL.md`, as bytes: a regular file (no link followed) of at most
/// [`MAX_SKILL_BYTES`].
fn skill_bytes(dir: &Path) -> Result<Vec<u8>, String> {
    let file = dir.join("SKILL.md");
    let meta = std::fs::symlink_metadata(&file).map_err(|_| "no SKILL.md".to_string())?;
    if !meta.is_file() {
        return Err("SKILL.md is not a regular file".into());
    }
    if meta.len() > MAX_SKILL_BYTES {
        return Err(format!("SKILL.md is larger than {MAX_SKILL_BYTES} bytes"));
    }
    std::fs::read(&file).map_err(|e| format!("SKILL.md cannot be read: {e}"))
}

fn parse_skill(dir: &Path, source: Source, bytes: &[u8]) -> Result<Skill, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "SKILL.md is not UTF-8 text")?;
    let (fields, body) = front_matter(text)?;
    let one = |k: &str| {
        fields
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.join(" "))
    };
    let name = one("name").ok_or("the front matter has no name")?;
    if !valid_name(&name) {
        return Err(format!(
            "name `{name}` is not 1-64 of a-z 0-9 - (not starting or ending with -)"
        ));
    }
    let description = one("description")
        .filter(|d| !d.trim().is_empty())
        .ok_or("the front matter has no description")?;
    if description.len() > 1024 {
        return Err("the description is longer than 1024 characters".into());
    }
    let allowed_tools = fields
        .iter()
        .find(|(n, _)| n == "allowed-tools")
        .map(|(_, v)| {
            v.iter()
                .flat_map(|t| t.split(','))
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    Ok(Skill {
        name,
        description,
        allowed_tools,
        dir: dir.to_path_buf(),
        source,
        body: body.to_string(),
    })
}

/// The skill folders directly in `root` (regular directories, no links), by name.
fn folders(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    dirs.sort();
    dirs.truncate(MAX_PER_DIR);
    dirs
}

/// A workspace's skill folders as read once: each folder with its `SKILL.md` (or why not).
type Read = Vec<(PathBuf, Result<Vec<u8>, String>)>;

fn read_workspace(workspace: &Path) -> Read {
    WORKSPACE_DIRS
        .iter()
        .flat_map(|d| folders(&workspace.join(d)))
        .map(|dir| {
            let bytes = skill_bytes(&dir);
            (dir, bytes)
        })
        .collect()
}

/// The hash of what was read: every `SKILL.md`'s path and bytes (what the user trusts; any
/// change asks again). `None` when there is none.
fn hash_of(read: &Read) -> Option<String> {
    files_hash(
        read.iter()
            .filter_map(|(dir, b)| Some((dir.join("SKILL.md"), b.as_deref().ok()?))),
    )
}

/// The hash of files as read, each by its path and content: what a user trusts of a
/// workspace's files. `None` when there is none.
pub(crate) fn files_hash<'a>(files: impl Iterator<Item = (PathBuf, &'a [u8])>) -> Option<String> {
    let mut h = sha2::Sha256::new();
    let mut any = false;
    for (path, bytes) in files {
        any = true;
        h.update(path.to_string_lossy().as_bytes());
        h.update([0]);
        h.update(sha2::Sha256::digest(bytes));
    }
    any.then(|| hex::encode(h.finalize()))
}

/// The hash of a workspace's skill folders (see [`hash_of`]).
pub fn workspace_hash(workspace: &Path) -> Option<String> {
    hash_of(&read_workspace(workspace))
}

/// What a catalogue is read with: the trusted hash of the workspace's skills and the names the
/// user turned off there.
#[derive(Debug, Clone, Default)]
pub struct Choices {
    pub trusted: Option<String>,
    pub disabled: std::collections::HashSet<String>,
    /// The enabled plugins' `skills/` folders, read after the user's.
    pub plugin_dirs: Vec<PathBuf>,
}

impl Choices {
    /// Read from the two settings' values ([`trust_key`], [`disabled_key`]).
    pub fn from_settings(trusted: Option<String>, disabled: Option<&str>) -> Choices {
        Choices {
            trusted,
            disabled: disabled
                .and_then(|d| serde_json::from_str::<Vec<String>>(d).ok())
                .unwrap_or_default()
                .into_iter()
                .collect(),
            plugin_dirs: Vec::new(),
        }
    }
}

/// The catalogue of a session: the workspace's skills (when `trusted` is the hash of what is
/// there now), then the user's; the ones turned off apart. Each `SKILL.md` is read once.
pub fn catalogue(workspace: &Path, state_dir: &Path, choices: &Choices) -> Catalogue {
    let trusted = choices.trusted.as_deref();
    let ws = read_workspace(workspace);
    let mut c = Catalogue {
        workspace_hash: hash_of(&ws),
        ..Catalogue::default()
    };
    c.untrusted = c.workspace_hash.is_some() && c.workspace_hash.as_deref() != trusted;
    let mut names = std::collections::HashSet::new();
    let mut take = |c: &mut Catalogue, dir: &Path, found: Result<Skill, String>| match found {
        Ok(s) if !names.insert(s.name.clone()) => c.skipped.push(format!(
            "{}: a skill named {} was found first",
            dir.display(),
            s.name
        )),
        Ok(s) if choices.disabled.contains(&s.name) => c.disabled.push(s),
        Ok(s) => c.skills.push(s),
        Err(why) => c.skipped.push(format!("{}: {why}", dir.display())),
    };
    if !c.untrusted {
        for (dir, bytes) in &ws {
            let found = bytes
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|b| parse_skill(dir, Source::Workspace, b));
            take(&mut c, dir, found);
        }
    }
    for dir in folders(&state_dir.join("skills")) {
        let found = read_skill(&dir, Source::User);
        take(&mut c, &dir, found);
    }
    for root in &choices.plugin_dirs {
        for dir in folders(root) {
            let found = read_skill(&dir, Source::Plugin);
            take(&mut c, &dir, found);
        }
    }
    c
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    #[test]
    fn front_matter_is_read_and_bad_skills_are_named() {
        let root = std::env::temp_dir().join(format!("tw-skills-{}", crate::util::new_id()));
        let ws = root.join("ws");
        let state = root.join("state");
        let put = |dir: PathBuf, text: &str| {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("SKILL.md"), text).unwrap();
        };
        put(
            ws.join(".agents/skills/pdf"),
            "---\nname: pdf\ndescription: >\n  Fill PDF forms\n  and merge files.\nallowed-tools:\n  - Read\n  - Bash(python:*)\n---\n# PDF\nUse scripts/fill.py.\n",
        );
        put(
            ws.join(".claude/skills/pdf-dup"),
            "---\nname: pdf\ndescription: again\n---\nx",
        );
        put(ws.join(".tradewind/skills/bad"), "no front matter");
        put(
            ws.join(".tradewind/skills/Upper"),
            "---\nname: Upper\ndescription: d\n---\n",
        );
        put(
            state.join("skills/notes"),
            "---\nname: notes\ndescription: \"Keep notes\"\nallowed-tools: Read, Grep\n---\nbody",
        );
        // Untrusted: the user's skills only.
        let c = catalogue(&ws, &state, &Choices::default());
        assert!(c.untrusted);
        assert_eq!(
            c.skills.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
            ["notes"]
        );
        // Trusted: the workspace's first, in folder order (.tradewind, .agents, .claude).
        let hash = c.workspace_hash.unwrap();
        let c = catalogue(
            &ws,
            &state,
            &Choices::from_settings(Some(hash.clone()), None),
        );
        assert!(!c.untrusted);
        let names: Vec<&str> = c.skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["pdf", "notes"], "{:?}", c.skipped);
        let pdf = c.get("pdf").unwrap();
        assert_eq!(pdf.description, "Fill PDF forms and merge files.");
        assert_eq!(pdf.allowed_tools, ["Read", "Bash(python:*)"]);
        assert!(pdf.body.starts_with("# PDF"));
        assert_eq!(c.get("notes").unwrap().allowed_tools, ["Read", "Grep"]);
        assert_eq!(c.skipped.len(), 3, "{:?}", c.skipped);
        assert!(c.skipped.iter().any(|s| s.contains("no front matter")));
        assert!(c.skipped.iter().any(|s| s.contains("`Upper`")));
        assert!(c.skipped.iter().any(|s| s.contains("found first")));
        // A change asks again.
        std::fs::write(
            ws.join(".agents/skills/pdf/SKILL.md"),
            "---\nname: pdf\ndescription: changed\n---\n",
        )
        .unwrap();
        assert!(catalogue(&ws, &state, &Choices::from_settings(Some(hash), None)).untrusted);
        // Search ranks a name match first; the prompt stays within its budget.
        let c = catalogue(
            &ws,
            &state,
            &Choices::from_settings(workspace_hash(&ws), None),
        );
        assert_eq!(c.search("notes pdf")[0].name, "notes");
        let short = c.prompt_section(0);
        assert!(
            short.contains("(2 more: find them with skill_search)"),
            "{short}"
        );
        let all = c.prompt_section(10_000);
        assert!(
            all.contains("- pdf: changed\n- notes: Keep notes\n"),
            "{all}"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }
}
