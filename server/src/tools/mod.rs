//! Tools. One descriptor per tool (wire name, effect, description, JSON schema) in a single
//! table that the prompt, the policy and the UI all read. A call is first *prepared* (input
//! validated, paths resolved, commands classified) so the gate sees exactly what will happen, then
//! executed. Unknown tools are `external` (fail closed).

pub mod fs;
pub mod git;
pub mod process;
pub mod search;

use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::policy::PathUse;
use crate::policy::command::{self, CommandAnalysis};
use crate::policy::paths::{PathError, PathPolicy};
use crate::protocol::{Effect, Part};
use crate::provider::ToolSpec;

/// Files readable or editable by the file tools.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Text returned to the model per tool call.
pub const MAX_MODEL_TEXT: usize = 32 * 1024;

#[derive(Debug, Clone, Copy)]
pub struct ToolDescriptor {
    pub name: &'static str,
    pub effect: Effect,
    pub description: &'static str,
    pub schema: fn() -> Value,
    /// Needs an interactive UI (ask_user_question).
    pub interactive_only: bool,
    /// Offered only to this agent (exit_plan: plan).
    pub only_agent: Option<crate::protocol::Agent>,
}

fn obj(props: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

pub const TOOLS: &[ToolDescriptor] = &[
    ToolDescriptor {
        name: "read_file",
        effect: Effect::Read,
        description: "Read a text file (up to 1 MiB). Returns its SHA-256, which edit_file requires. Optional 1-based `offset` line and `limit` lines.",
        schema: || {
            obj(
                json!({"path": {"type": "string"}, "offset": {"type": "integer", "minimum": 1}, "limit": {"type": "integer", "minimum": 1}}),
                &["path"],
            )
        },
        interactive_only: false,
        only_agent: None,
    },
    ToolDescriptor {
        name: "list_files",
        effect: Effect::Read,
        description: "List files under a directory (default: the workspace), honouring .gitignore. Optional glob filter, e.g. `src/**/*.rs`.",
        schema: || {
            obj(
                json!({"path": {"type": "string"}, "glob": {"type": "string"}, "limit": {"type": "integer", "minimum": 1, "maximum": 5000}}),
                &[],
            )
        },
        interactive_only: false,
        only_agent: None,
    },
    ToolDescriptor {
        name: "search_text",
        effect: Effect::Read,
        description: "Search file contents with a regular expression (ripgrep engine), honouring .gitignore. Returns path:line:text.",
        schema: || {
            obj(
                json!({"pattern": {"type": "string"}, "path": {"type": "string"}, "glob": {"type": "string"}, "case_insensitive": {"type": "boolean"}, "limit": {"type": "integer", "minimum": 1, "maximum": 2000}}),
                &["pattern"],
            )
        },
        interactive_only: false,
        only_agent: None,
    },
    ToolDescriptor {
        name: "git_status",
        effect: Effect::Read,
        description: "git status --porcelain=v1 of the workspace.",
        schema: || obj(json!({}), &[]),
        interactive_only: false,
        only_agent: None,
    },
    ToolDescriptor {
        name: "git_diff",
        effect: Effect::Read,
        description: "git diff --no-ext-diff --no-textconv of the workspace (optionally `staged`, optionally one `path`).",
        schema: || {
            obj(
                json!({"staged": {"type": "boolean"}, "path": {"type": "string"}}),
                &[],
            )
        },
        interactive_only: false,
        only_agent: None,
    },
    ToolDescriptor {
        name: "write_file",
        effect: Effect::Write,
        description: "Write a whole file (created with its parent directories if needed). Atomic: the old or the new content, never a mix.",
        schema: || {
            obj(
                json!({"path": {"type": "string"}, "content": {"type": "string"}}),
                &["path", "content"],
            )
        },
        interactive_only: false,
        only_agent: None,
    },
    ToolDescriptor {
        name: "edit_file",
        effect: Effect::Write,
        description: "Replace one exact, unique occurrence of `old` with `new` in a file. `sha256` must be the file's current SHA-256 from read_file.",
        schema: || {
            obj(
                json!({"path": {"type": "string"}, "old": {"type": "string"}, "new": {"type": "string"}, "sha256": {"type": "string"}}),
                &["path", "old", "new", "sha256"],
            )
        },
        interactive_only: false,
        only_agent: None,
    },
    ToolDescriptor {
        name: "run_process",
        effect: Effect::Process,
        description: "Run a program with an argument array (no shell). Optional `cwd` (relative to the workspace) and `timeout_ms` (default 120000, max 600000).",
        schema: || {
            obj(
                json!({"argv": {"type": "array", "items": {"type": "string"}, "minItems": 1}, "cwd": {"type": "string"}, "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 600000}}),
                &["argv"],
            )
        },
        interactive_only: false,
        only_agent: None,
    },
    ToolDescriptor {
        name: "shell",
        effect: Effect::Process,
        description: "Run a shell command with /bin/sh -c. Optional `cwd` (relative to the workspace) and `timeout_ms` (default 120000, max 600000).",
        schema: || {
            obj(
                json!({"command": {"type": "string"}, "cwd": {"type": "string"}, "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 600000}}),
                &["command"],
            )
        },
        interactive_only: false,
        only_agent: None,
    },
    ToolDescriptor {
        name: "bg_run",
        effect: Effect::Process,
        description: "Start a shell command in the background (a dev server, a watcher, a long test run) and keep working. Returns a task id at once. `command` up to 8000 characters, optional `cwd` (relative to the workspace), `label`, `timeoutMs` (1000 to 86400000, capped by tasks.maxRunMs). You are woken when it ends by itself.",
        schema: || {
            obj(
                json!({"command": {"type": "string"}, "cwd": {"type": "string"}, "label": {"type": "string"}, "timeoutMs": {"type": "integer", "minimum": 1000, "maximum": 86_400_000}}),
                &["command"],
            )
        },
        interactive_only: false,
        only_agent: None,
    },
    ToolDescriptor {
        name: "bg_list",
        effect: Effect::Process,
        description: "List this session's background tasks, newest first (`status` filter, `limit` up to 50).",
        schema: || {
            obj(
                json!({"status": {"type": "string", "enum": ["queued", "running", "stopping", "succeeded", "failed", "cancelled", "lost"]}, "limit": {"type": "integer", "minimum": 1, "maximum": 50}}),
                &[],
            )
        },
        interactive_only: false,
        only_agent: None,
    },
    ToolDescriptor {
        name: "bg_output",
        effect: Effect::Process,
        description: "Read a background task's output by byte offset: pass 0 first, then the previous `next_offset`; `limit` up to 65536 bytes (default 16384). `eof` is true only when the task ended and all was read.",
        schema: || {
            obj(
                json!({"id": {"type": "string"}, "offset": {"type": "integer", "minimum": 0}, "limit": {"type": "integer", "minimum": 1, "maximum": 65536}}),
                &["id"],
            )
        },
        interactive_only: false,
        only_agent: None,
    },
    ToolDescriptor {
        name: "bg_stop",
        effect: Effect::Process,
        description: "Stop a background task (SIGTERM to its process group, SIGKILL after 3 s). It ends cancelled.",
        schema: || obj(json!({"id": {"type": "string"}}), &["id"]),
        interactive_only: false,
        only_agent: None,
    },
    ToolDescriptor {
        name: "ask_user_question",
        effect: Effect::Read,
        description: "Ask the user 1 to 4 multiple-choice questions (2 to 4 options each, at most one marked recommended) when there is a real fork in the approach. Waits for the answers.",
        schema: || {
            obj(
                json!({"questions": {"type": "array", "minItems": 1, "maxItems": 4, "items": {"type": "object", "properties": {
            "question": {"type": "string"}, "header": {"type": "string"}, "multi_select": {"type": "boolean"},
            "options": {"type": "array", "minItems": 2, "maxItems": 4, "items": {"type": "object", "properties": {"label": {"type": "string"}, "description": {"type": "string"}, "recommended": {"type": "boolean"}}, "required": ["label"], "additionalProperties": false}}},
            "required": ["question", "options"], "additionalProperties": false}}}),
                &["questions"],
            )
        },
        interactive_only: true,
        only_agent: None,
    },
    ToolDescriptor {
        name: "exit_plan",
        effect: Effect::Read,
        description: "Deliver your plan for review: Markdown (up to 60000 characters), an optional title, and up to 5 optional Mermaid diagrams {id (kebab-case), title, explanation, section (the plan heading it illustrates), type (overview|flow|components|architecture|sequence|data|state|other), mermaid}. Diagrams: flowchart/graph, sequenceDiagram, stateDiagram(-v2), erDiagram, classDiagram, gantt, mindmap, timeline or journey; at most 8 KB and about 40 nodes; no click/link/callback, href, URLs, HTML tags or %%{init}. Returns the user's decision.",
        schema: || {
            obj(
                json!({"plan": {"type": "string"}, "title": {"type": "string"}, "diagrams": {"type": "array", "maxItems": 5, "items": {"type": "object", "properties": {
            "id": {"type": "string"}, "title": {"type": "string"}, "explanation": {"type": "string"}, "section": {"type": "string"},
            "type": {"type": "string", "enum": ["overview", "flow", "components", "architecture", "sequence", "data", "state", "other"]}, "mermaid": {"type": "string"}},
            "required": ["id", "title", "explanation", "mermaid"], "additionalProperties": false}}}),
                &["plan"],
            )
        },
        interactive_only: false,
        only_agent: Some(crate::protocol::Agent::Plan),
    },
];

pub fn descriptor(name: &str) -> Option<&'static ToolDescriptor> {
    TOOLS.iter().find(|t| t.name == name)
}

/// The effect of a tool by name; unknown tools are `external`.
pub fn effect_of(name: &str) -> Effect {
    descriptor(name)
        .map(|d| d.effect)
        .unwrap_or(Effect::External)
}

pub fn spec(d: &ToolDescriptor) -> ToolSpec {
    ToolSpec {
        name: d.name.to_string(),
        description: d.description.to_string(),
        parameters: (d.schema)(),
    }
}

/// What a tool returns: the text the model sees, and display parts for the UI.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub ok: bool,
    pub text: String,
    pub parts: Vec<Part>,
}

impl ToolOutput {
    pub fn ok(text: impl Into<String>) -> ToolOutput {
        ToolOutput {
            ok: true,
            text: text.into(),
            parts: Vec::new(),
        }
    }
    pub fn err(code: &str, message: impl std::fmt::Display) -> ToolOutput {
        ToolOutput {
            ok: false,
            text: format!("error [{code}]: {message}"),
            parts: Vec::new(),
        }
    }
}

/// Where a tool runs.
#[derive(Debug, Clone)]
pub struct ToolCtx {
    pub paths: PathPolicy,
    pub cancel: CancellationToken,
}

/// A validated call, ready for the gate.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub tool: String,
    pub effect: Effect,
    pub paths: Vec<PathUse>,
    pub command: Option<(String, CommandAnalysis)>,
    pub call: Call,
}

/// Parsed inputs per tool.
#[derive(Debug, Clone)]
pub enum Call {
    ReadFile {
        path: PathBuf,
        display: String,
        offset: Option<usize>,
        limit: Option<usize>,
    },
    ListFiles {
        dir: PathBuf,
        glob: Option<String>,
        limit: usize,
    },
    SearchText(search::SearchArgs),
    GitStatus,
    GitDiff {
        staged: bool,
        path: Option<PathBuf>,
    },
    WriteFile {
        path: PathBuf,
        display: String,
        content: String,
    },
    EditFile {
        path: PathBuf,
        display: String,
        old: String,
        new: String,
        sha256: String,
    },
    Process(process::ProcessArgs),
}

/// Why a call could not be prepared (told to the model, nothing ran).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PrepareError {
    #[error("unknown tool `{0}`")]
    Unknown(String),
    #[error("invalid input: {0}")]
    Input(String),
    #[error("{0}")]
    Path(#[from] PathError),
}

impl PrepareError {
    pub fn code(&self) -> &'static str {
        match self {
            PrepareError::Unknown(_) => "unknown_tool",
            PrepareError::Input(_) => "invalid_input",
            PrepareError::Path(p) => p.code(),
        }
    }
}

fn parse<T: DeserializeOwned>(input: &Value) -> Result<T, PrepareError> {
    serde_json::from_value(input.clone()).map_err(|e| PrepareError::Input(e.to_string()))
}

fn use_of(r: &crate::policy::paths::Resolved) -> PathUse {
    PathUse {
        path: r.path.clone(),
        inside: r.inside,
        directory: r.directory.clone(),
    }
}

/// Validate a call and resolve everything the gate needs to see.
pub fn prepare(name: &str, input: &Value, paths: &PathPolicy) -> Result<Prepared, PrepareError> {
    let d = descriptor(name).ok_or_else(|| PrepareError::Unknown(name.to_string()))?;
    let mut uses = Vec::new();
    let mut command = None;
    let call = match name {
        "read_file" => {
            #[derive(serde::Deserialize)]
            #[serde(deny_unknown_fields)]
            struct A {
                path: String,
                offset: Option<usize>,
                limit: Option<usize>,
            }
            let a: A = parse(input)?;
            let r = paths.resolve(&a.path)?;
            uses.push(use_of(&r));
            Call::ReadFile {
                path: r.path,
                display: a.path,
                offset: a.offset,
                limit: a.limit,
            }
        }
        "list_files" => {
            #[derive(serde::Deserialize)]
            #[serde(deny_unknown_fields)]
            struct A {
                path: Option<String>,
                glob: Option<String>,
                limit: Option<usize>,
            }
            let a: A = parse(input)?;
            let r = paths.resolve(a.path.as_deref().unwrap_or("."))?;
            uses.push(PathUse {
                path: r.path.clone(),
                inside: r.inside,
                directory: r.path.clone(),
            });
            Call::ListFiles {
                dir: r.path,
                glob: a.glob,
                limit: a.limit.unwrap_or(1000).clamp(1, 5000),
            }
        }
        "search_text" => {
            let (args, r) = search::SearchArgs::parse(input, paths)?;
            uses.push(PathUse {
                path: r.path.clone(),
                inside: r.inside,
                directory: r.path,
            });
            Call::SearchText(args)
        }
        "git_status" => {
            let _: serde_json::Map<String, Value> = parse(input)?;
            Call::GitStatus
        }
        "git_diff" => {
            #[derive(serde::Deserialize)]
            #[serde(deny_unknown_fields)]
            struct A {
                #[serde(default)]
                staged: bool,
                path: Option<String>,
            }
            let a: A = parse(input)?;
            let path = match a.path {
                Some(p) => {
                    let r = paths.resolve(&p)?;
                    if !r.inside {
                        return Err(PrepareError::Input(
                            "git_diff works inside the workspace only".into(),
                        ));
                    }
                    Some(r.path)
                }
                None => None,
            };
            Call::GitDiff {
                staged: a.staged,
                path,
            }
        }
        "write_file" => {
            #[derive(serde::Deserialize)]
            #[serde(deny_unknown_fields)]
            struct A {
                path: String,
                content: String,
            }
            let a: A = parse(input)?;
            if a.content.len() as u64 > MAX_FILE_BYTES {
                return Err(PrepareError::Input(format!(
                    "content is larger than {MAX_FILE_BYTES} bytes"
                )));
            }
            let r = paths.resolve(&a.path)?;
            uses.push(use_of(&r));
            Call::WriteFile {
                path: r.path,
                display: a.path,
                content: a.content,
            }
        }
        "edit_file" => {
            #[derive(serde::Deserialize)]
            #[serde(deny_unknown_fields)]
            struct A {
                path: String,
                old: String,
                new: String,
                sha256: String,
            }
            let a: A = parse(input)?;
            if a.old.is_empty() {
                return Err(PrepareError::Input("`old` must not be empty".into()));
            }
            let r = paths.resolve(&a.path)?;
            uses.push(use_of(&r));
            Call::EditFile {
                path: r.path,
                display: a.path,
                old: a.old,
                new: a.new,
                sha256: a.sha256.trim().to_ascii_lowercase(),
            }
        }
        "shell" | "run_process" => {
            let args = process::ProcessArgs::parse(name, input, paths)?;
            let analysis = match &args.program {
                process::Program::Shell(c) => command::analyze_shell(c),
                process::Program::Argv(v) => command::analyze_argv(v),
            };
            command = Some((args.display.clone(), analysis));
            Call::Process(args)
        }
        other => return Err(PrepareError::Unknown(other.to_string())),
    };
    Ok(Prepared {
        tool: name.to_string(),
        effect: d.effect,
        paths: uses,
        command,
        call,
    })
}

/// Run a prepared call (the gate has allowed it).
pub async fn execute(ctx: &ToolCtx, call: Call) -> ToolOutput {
    match call {
        Call::ReadFile {
            path,
            display,
            offset,
            limit,
        } => fs::read_file(ctx, &path, &display, offset, limit).await,
        Call::ListFiles { dir, glob, limit } => fs::list_files(ctx, dir, glob, limit).await,
        Call::SearchText(a) => search::search_text(ctx, a).await,
        Call::GitStatus => git::status(ctx).await,
        Call::GitDiff { staged, path } => git::diff(ctx, staged, path).await,
        Call::WriteFile {
            path,
            display,
            content,
        } => fs::write_file(&path, &display, content).await,
        Call::EditFile {
            path,
            display,
            old,
            new,
            sha256,
        } => fs::edit_file(&path, &display, &old, &new, &sha256).await,
        Call::Process(a) => process::run(ctx, a).await,
    }
}

/// Head and tail of a long text with an explicit marker in between.
pub fn bound_text(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let head = crate::util::truncate_str(s, max / 2);
    let tail = crate::util::tail_str(s, max / 2);
    let cut = s.len() - head.len() - tail.len();
    format!("{head}\n[… {cut} bytes truncated …]\n{tail}")
}
