//! Tools. Each tool is one type implementing [`Tool`]: its wire name, effect and description, an
//! argument struct whose `Deserialize` is the parser and whose `JsonSchema` is the schema the
//! model sees (one definition, so the two cannot drift), `prepare` (validate, resolve paths,
//! classify commands: the gate sees exactly what will happen) and `run`. [`TOOLS`] lists them
//! all; the prompt, the policy and the UI read that one list. Unknown tools are `external`
//! (fail closed).
//!
//! Adding a tool: a file with the type and its `impl Tool`, and one line in [`TOOLS`].

pub mod beneath;
pub mod execute;
pub mod fs;
pub mod git;
pub mod process;
pub mod prompts;
pub mod search;
pub mod tasks;
pub mod todo;
pub mod web;
pub mod websearch;

use std::future::Future;
use std::pin::Pin;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::agent::Turn;
use crate::policy::PathUse;
use crate::policy::command::CommandAnalysis;
use crate::policy::paths::{PathError, PathPolicy};
use crate::protocol::{Agent, Effect, Part};
use crate::provider::ToolSpec;

/// Files readable or editable by the file tools.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Text returned to the model per tool call.
pub const MAX_MODEL_TEXT: usize = 32 * 1024;

/// Every tool, in the order the model sees them.
pub static TOOLS: &[&dyn DynTool] = &[
    &fs::ReadFile,
    &fs::ListFiles,
    &search::SearchText,
    &git::GitStatus,
    &git::GitDiff,
    &fs::WriteFile,
    &fs::EditFile,
    &process::RunProcess,
    &process::Shell,
    &tasks::BgRun,
    &tasks::BgList,
    &tasks::BgOutput,
    &tasks::BgStop,
    &prompts::AskUserQuestion,
    &prompts::ExitPlan,
    &todo::TodoWrite,
    &web::WebFetch,
    &websearch::WebSearch,
    &execute::Execute,
    &crate::memory::MemoryWrite,
    &crate::memory::MemorySearch,
    &crate::memory::MemoryDelete,
    &crate::subagents::Task,
    &crate::subagents::TaskStatus,
    &crate::subagents::TaskWait,
    &crate::subagents::SendMessage,
];

/// Tools offered only to some runs (the goal tools, while the session's goal is active): found
/// by name like the others, never in the default list.
pub static OPT_IN: &[&dyn DynTool] = &[&crate::goals::GetGoal, &crate::goals::UpdateGoal];

/// One tool, defined once.
pub trait Tool: Send + Sync + 'static {
    /// The name the model calls.
    const NAME: &'static str;
    /// What a call does to the world; the gate decides on it.
    const EFFECT: Effect;
    /// What the model reads about the tool.
    const DESCRIPTION: &'static str;
    /// Offered only when a person can answer (a server, not a headless run).
    const INTERACTIVE_ONLY: bool = false;
    /// Offered only to this agent.
    const ONLY_AGENT: Option<Agent> = None;
    /// Uses the run itself (waits for the user, starts tasks): never run alongside other calls.
    const HOST: bool = false;

    /// The arguments: their serde form is the parser, their JSON schema what the model sees.
    type Args: DeserializeOwned + JsonSchema;
    /// A prepared call, ready to run once the gate allows it.
    type Call: Send + 'static;

    /// Validate the arguments and resolve what the call touches, without touching it.
    fn prepare(args: Self::Args, paths: &PathPolicy) -> Result<Gated<Self::Call>, PrepareError>;

    /// Run an allowed call.
    fn run(call: Self::Call, ctx: &ToolCtx<'_>) -> impl Future<Output = ToolOutput> + Send;
}

/// A prepared call and what the gate must see of it.
pub struct Gated<C> {
    pub paths: Vec<PathUse>,
    pub command: Option<(String, CommandAnalysis)>,
    /// The URL the call connects to first: resolved and classified before the gate decides.
    pub url: Option<url::Url>,
    pub call: C,
}

impl<C> Gated<C> {
    /// A call that touches no path and runs no command.
    pub fn plain(call: C) -> Self {
        Gated {
            paths: Vec::new(),
            command: None,
            url: None,
            call,
        }
    }
}

/// Where a call runs: the run that made it.
pub struct ToolCtx<'a> {
    pub paths: &'a PathPolicy,
    pub cancel: &'a CancellationToken,
    /// The model's id of this call.
    pub call_id: &'a str,
    /// Where the call connects first ([`Gated::url`]), resolved and allowed by the gate: connect
    /// to these addresses only.
    pub net: Option<&'a crate::net::Target>,
    pub(crate) turn: &'a Turn<'a>,
    /// The call as the model made it (for a further approval, e.g. a redirect).
    pub(crate) call: &'a crate::provider::ToolCallReq,
    pub(crate) input: &'a Value,
    pub(crate) effect: Effect,
}

impl ToolCtx<'_> {
    /// Did the user allow this file for the session (its secrets are then shown unredacted)?
    pub fn file_allowed(&self, path: &std::path::Path) -> bool {
        let key = crate::policy::file_key(path);
        self.turn.grants_contain(&key)
    }

    /// Resolve a further destination of this call (a redirect) and pass it through the gate,
    /// asking if it is not public; the call's own effect is already allowed.
    pub async fn reach(&self, url: &url::Url) -> Result<crate::net::Target, ToolOutput> {
        let target = crate::net::resolve(url, &self.turn.deps.net_exempt)
            .await
            .map_err(|e| ToolOutput::err("unreachable", e))?;
        let mut input = serde_json::json!({ "url": url.as_str() });
        if let Some(first) = self.input.get("url") {
            input["redirectedFrom"] = first.clone();
        }
        let once = std::iter::once(crate::policy::effect_key(self.effect)).collect();
        crate::agent::calls::gate(
            self.turn,
            self.call,
            &input,
            self.effect,
            crate::agent::calls::Gate {
                paths: &[],
                command: None,
                net: Some(&target.usage),
                mcp: None,
            },
            once,
        )
        .await?;
        Ok(target)
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
    /// Pretty JSON for the model.
    pub fn json<T: serde::Serialize>(v: &T) -> ToolOutput {
        ToolOutput::ok(serde_json::to_string_pretty(v).unwrap_or_default())
    }
}

/// Why a call could not be prepared (told to the model, nothing ran).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PrepareError {
    #[error("unknown tool `{0}`")]
    Unknown(String),
    #[error(
        "unknown tool `{0}`: no MCP tool of that name is offered now (its server is not connected, or it changed its tools and needs a reconnect)"
    )]
    McpNotOffered(String),
    #[error("invalid input: {0}")]
    Input(String),
    #[error("{0}")]
    Path(#[from] PathError),
}

impl PrepareError {
    pub fn code(&self) -> &'static str {
        match self {
            PrepareError::Unknown(_) | PrepareError::McpNotOffered(_) => "unknown_tool",
            PrepareError::Input(_) => "invalid_input",
            PrepareError::Path(p) => p.code(),
        }
    }
}

/// A validated call of any tool, ready for the gate.
pub struct Prepared {
    pub tool: &'static str,
    pub effect: Effect,
    pub paths: Vec<PathUse>,
    pub command: Option<(String, CommandAnalysis)>,
    pub url: Option<url::Url>,
    /// A tool of an MCP server: what the gate must know of it.
    pub mcp: Option<crate::policy::McpUse>,
    call: Box<dyn Runnable>,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("tool", &self.tool)
            .field("effect", &self.effect)
            .field("paths", &self.paths)
            .field("command", &self.command)
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl Prepared {
    /// A call of an MCP server's tool (as offered in this model turn).
    pub fn mcp(
        tool: std::sync::Arc<crate::mcp::McpTool>,
        input: Value,
        headless_allowed: bool,
    ) -> Prepared {
        let usage = tool.usage(headless_allowed);
        Prepared::external_mcp(usage, Box::new(McpCall { tool, input }))
    }

    /// A call of `mcp_connect`, `mcp_resource` or `mcp_prompt`.
    pub fn mcp_hub(
        hub: std::sync::Arc<crate::mcp::McpHub>,
        call: crate::mcp::HubCall,
        headless_allowed: bool,
    ) -> Prepared {
        let usage = call.usage(headless_allowed);
        Prepared::external_mcp(usage, Box::new(McpHubCall { hub, call }))
    }

    fn external_mcp(usage: crate::policy::McpUse, call: Box<dyn Runnable>) -> Prepared {
        Prepared {
            tool: "mcp",
            effect: Effect::External,
            paths: Vec::new(),
            command: None,
            url: None,
            mcp: Some(usage),
            call,
        }
    }

    /// Run it (the gate has allowed it).
    pub async fn run(self, ctx: &ToolCtx<'_>) -> ToolOutput {
        self.call.run(ctx).await
    }
}

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A prepared call with its tool's `run`, type-erased.
trait Runnable: Send {
    fn run<'a>(self: Box<Self>, ctx: &'a ToolCtx<'a>) -> BoxFuture<'a, ToolOutput>;
}

struct CallOf<T: Tool>(T::Call);

impl<T: Tool> Runnable for CallOf<T> {
    fn run<'a>(self: Box<Self>, ctx: &'a ToolCtx<'a>) -> BoxFuture<'a, ToolOutput> {
        Box::pin(T::run(self.0, ctx))
    }
}

struct McpHubCall {
    hub: std::sync::Arc<crate::mcp::McpHub>,
    call: crate::mcp::HubCall,
}

impl Runnable for McpHubCall {
    fn run<'a>(self: Box<Self>, ctx: &'a ToolCtx<'a>) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move { self.hub.run(self.call, ctx.cancel).await })
    }
}

struct McpCall {
    tool: std::sync::Arc<crate::mcp::McpTool>,
    input: Value,
}

impl Runnable for McpCall {
    fn run<'a>(self: Box<Self>, ctx: &'a ToolCtx<'a>) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move { self.tool.call(&self.input, ctx.cancel).await })
    }
}

/// What the registry needs of a tool, object-safe; every [`Tool`] is one.
pub trait DynTool: Send + Sync {
    fn name(&self) -> &'static str;
    fn effect(&self) -> Effect;
    fn interactive_only(&self) -> bool;
    fn only_agent(&self) -> Option<Agent>;
    fn host(&self) -> bool;
    /// The name, description and argument schema the model sees.
    fn spec(&self) -> ToolSpec;
    /// Parse the input with the same definition the schema came from, then prepare.
    fn prepare(&self, input: &Value, paths: &PathPolicy) -> Result<Prepared, PrepareError>;
}

impl<T: Tool> DynTool for T {
    fn name(&self) -> &'static str {
        T::NAME
    }
    fn effect(&self) -> Effect {
        T::EFFECT
    }
    fn interactive_only(&self) -> bool {
        T::INTERACTIVE_ONLY
    }
    fn only_agent(&self) -> Option<Agent> {
        T::ONLY_AGENT
    }
    fn host(&self) -> bool {
        T::HOST
    }
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: T::NAME.to_string(),
            description: T::DESCRIPTION.to_string(),
            parameters: args_schema::<T::Args>(),
        }
    }
    fn prepare(&self, input: &Value, paths: &PathPolicy) -> Result<Prepared, PrepareError> {
        let args: T::Args = <T::Args as serde::Deserialize>::deserialize(input)
            .map_err(|e| PrepareError::Input(e.to_string()))?;
        let g = T::prepare(args, paths)?;
        Ok(Prepared {
            tool: T::NAME,
            effect: T::EFFECT,
            paths: g.paths,
            command: g.command,
            url: g.url,
            mcp: None,
            call: Box::new(CallOf::<T>(g.call)),
        })
    }
}

/// The JSON schema of a tool's arguments as providers take it: subschemas inlined, no
/// `$schema`/`title`, and an optional field typed as its value (it may simply be left out).
pub fn args_schema<A: JsonSchema>() -> Value {
    let settings = schemars::generate::SchemaSettings::draft07().with(|s| {
        s.inline_subschemas = true;
    });
    let mut v = settings
        .into_generator()
        .into_root_schema_for::<A>()
        .to_value();
    if let Some(o) = v.as_object_mut() {
        o.remove("$schema");
        o.remove("title");
    }
    strip_null(&mut v);
    v
}

/// `{"type": ["string", "null"]}` → `{"type": "string"}`, `anyOf: [X, {"type": "null"}]` → X,
/// everywhere: a field the model may omit needs no `null`.
fn strip_null(v: &mut Value) {
    match v {
        Value::Object(o) => {
            if let Some(Value::Array(types)) = o.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let t = types.remove(0);
                    o.insert("type".into(), t);
                }
            }
            if let Some(Value::Array(any)) = o.get("anyOf").cloned() {
                let rest: Vec<Value> = any
                    .into_iter()
                    .filter(|s| s.get("type").and_then(Value::as_str) != Some("null"))
                    .collect();
                if rest.len() == 1
                    && let Some(Value::Object(inner)) = rest.into_iter().next()
                {
                    o.remove("anyOf");
                    for (k, val) in inner {
                        o.entry(k).or_insert(val);
                    }
                }
            }
            if let Some(Value::Array(e)) = o.get_mut("enum") {
                e.retain(|x| !x.is_null());
            }
            // A documented Rust enum comes out as `oneOf` string constants: one `enum` instead.
            if let Some(values) = o.get("oneOf").and_then(string_choices) {
                o.remove("oneOf");
                o.insert("type".into(), "string".into());
                o.insert("enum".into(), Value::Array(values));
            }
            if o.get("default").is_some_and(Value::is_null) {
                o.remove("default");
            }
            // Rust's integer widths (`uint64`, `int32` …) are not JSON Schema formats.
            if o.get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| f.starts_with("int") || f.starts_with("uint"))
            {
                o.remove("format");
            }
            for (_, child) in o.iter_mut() {
                strip_null(child);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(strip_null),
        _ => {}
    }
}

/// The values of a `oneOf` whose every branch is a string `const` or string `enum`.
fn string_choices(one_of: &Value) -> Option<Vec<Value>> {
    let mut out = Vec::new();
    for branch in one_of.as_array()? {
        if branch.get("type").and_then(Value::as_str) != Some("string") {
            return None;
        }
        match (branch.get("const"), branch.get("enum")) {
            (Some(c), None) => out.push(c.clone()),
            (None, Some(Value::Array(e))) => out.extend(e.iter().cloned()),
            _ => return None,
        }
    }
    Some(out)
}

pub fn descriptor(name: &str) -> Option<&'static dyn DynTool> {
    TOOLS
        .iter()
        .chain(OPT_IN)
        .copied()
        .find(|t| t.name() == name)
}

/// The effect of a tool by name; unknown tools are `external`.
pub fn effect_of(name: &str) -> Effect {
    descriptor(name).map_or(Effect::External, |d| d.effect())
}

/// Validate a call and resolve everything the gate needs to see.
pub fn prepare(name: &str, input: &Value, paths: &PathPolicy) -> Result<Prepared, PrepareError> {
    descriptor(name)
        .ok_or_else(|| PrepareError::Unknown(name.to_string()))?
        .prepare(input, paths)
}

/// A path the call reads or writes, for the gate.
pub fn use_of(r: &crate::policy::paths::Resolved) -> PathUse {
    PathUse {
        links: r.links,
        path: r.path.clone(),
        inside: r.inside,
        directory: r.directory.clone(),
    }
}

/// A directory the call walks, for the gate.
pub fn dir_use(r: &crate::policy::paths::Resolved) -> PathUse {
    PathUse {
        links: 1,
        path: r.path.clone(),
        inside: r.inside,
        directory: r.path.clone(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, json};

    /// A value of the schema's type (the first enum value, a minimum, one item of an array).
    fn sample(schema: &Value) -> Value {
        if let Some(e) = schema
            .get("enum")
            .and_then(Value::as_array)
            .and_then(|e| e.first())
        {
            return e.clone();
        }
        match schema.get("type").and_then(Value::as_str) {
            Some("string") => json!("x"),
            Some("integer") => json!(schema.get("minimum").and_then(Value::as_u64).unwrap_or(1)),
            Some("number") => json!(1.0),
            Some("boolean") => json!(true),
            Some("array") => {
                let n = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
                let item = schema.get("items").map(sample).unwrap_or(json!("x"));
                Value::Array((0..n).map(|_| item.clone()).collect())
            }
            Some("object") => {
                let mut m = Map::new();
                for r in required(schema) {
                    m.insert(r.clone(), sample(&schema["properties"][&r]));
                }
                Value::Object(m)
            }
            other => panic!("no sample for type {other:?} in {schema}"),
        }
    }

    fn required(schema: &Value) -> Vec<String> {
        schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// What the model is told and what the parser takes are one definition: every advertised
    /// property is accepted, every required one is required, an unknown one is refused, and no
    /// schema is left with a `$ref` or a `null` type a provider might choke on.
    #[test]
    fn every_tool_schema_agrees_with_its_parser() {
        let paths = PathPolicy::new(
            &std::env::temp_dir(),
            &[],
            &std::env::temp_dir().join("tw-no-state"),
        );
        for d in TOOLS {
            let spec = d.spec();
            let s = &spec.parameters;
            let text = s.to_string();
            assert!(
                !text.contains("$ref") && !text.contains("\"null\""),
                "{}: {text}",
                d.name()
            );
            assert_eq!(s["type"], "object", "{}", d.name());
            assert_eq!(
                s["additionalProperties"],
                false,
                "{}: unknown fields must be refused",
                d.name()
            );
            let props = s["properties"].as_object().cloned().unwrap_or_default();
            let base = sample(s);
            let parses = |v: &Value| !matches!(d.prepare(v, &paths), Err(PrepareError::Input(m)) if m.contains("unknown field") || m.contains("missing field") || m.contains("invalid type") || m.contains("unknown variant"));
            assert!(
                parses(&base),
                "{}: its required fields {base} do not parse",
                d.name()
            );
            for (name, p) in &props {
                let mut v = base.clone();
                v[name] = sample(p);
                assert!(
                    parses(&v),
                    "{}: advertised `{name}` is refused ({v})",
                    d.name()
                );
            }
            for r in required(s) {
                let mut v = base.clone();
                v.as_object_mut().map(|o| o.remove(&r));
                assert!(
                    !parses(&v),
                    "{}: `{r}` is required by the schema, not the parser",
                    d.name()
                );
            }
            let mut v = base.clone();
            v["no_such_field"] = json!(1);
            assert!(
                !parses(&v),
                "{}: the parser takes a field the schema does not name",
                d.name()
            );
        }
    }

    #[test]
    fn names_are_unique_and_unknown_tools_are_external() {
        let mut names: Vec<&str> = TOOLS.iter().map(|t| t.name()).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(n, names.len());
        assert_eq!(effect_of("no_such_tool"), Effect::External);
        assert_eq!(effect_of("bg_run"), Effect::Process);
    }
}
