//! The registry: every tool the model may be offered, in the order it sees them, found by
//! name. It sits above the tools it lists (they know nothing of it); the prompt, the gate, the
//! policy dry run and the UI read this one list. Unknown tools are `external` (fail closed).
//!
//! Adding a tool: a file under `tools/` with the type and its `impl Tool`, and one line here.

use serde_json::Value;

use crate::policy::paths::PathPolicy;
use crate::protocol::Effect;
use crate::tools::{self, DynTool, PrepareError, Prepared};

/// Every tool, in the order the model sees them.
pub static TOOLS: &[&dyn DynTool] = &[
    &tools::fs::ReadFile,
    &tools::fs::ListFiles,
    &tools::search::SearchText,
    &tools::git::GitStatus,
    &tools::git::GitDiff,
    &tools::context::ContextExplain,
    &tools::fs::WriteFile,
    &tools::fs::EditFile,
    &tools::process::RunProcess,
    &tools::process::Shell,
    &tools::tasks::BgRun,
    &tools::tasks::BgList,
    &tools::tasks::BgOutput,
    &tools::tasks::BgStop,
    &tools::prompts::AskUserQuestion,
    &tools::prompts::ExitPlan,
    &tools::todo::TodoWrite,
    &tools::web::WebFetch,
    &tools::websearch::WebSearch,
    &tools::skills::SkillLoad,
    &tools::skills::SkillResource,
    &tools::skills::SkillSearch,
    &tools::plugins::PluginInstall,
    &tools::execute::Execute,
    &tools::memory::MemoryWrite,
    &tools::memory::MemorySearch,
    &tools::memory::MemoryDelete,
    &tools::subagents::Task,
    &tools::subagents::TaskStatus,
    &tools::subagents::TaskWait,
    &tools::subagents::SendMessage,
];

/// Tools offered only to some runs (the goal tools, while the session's goal is active): found
/// by name like the others, never in the default list.
pub static OPT_IN: &[&dyn DynTool] = &[&tools::goals::GetGoal, &tools::goals::UpdateGoal];

/// The built-in plugins (`--disable-plugin NAME` turns one off) and their tools.
pub const BUILTIN_PLUGINS: &[(&str, &[&str])] = &[
    (
        "memory",
        &["memory_write", "memory_search", "memory_delete"],
    ),
    (
        "subagents",
        &["task", "task_status", "task_wait", "send_message"],
    ),
    ("todo", &["todo_write"]),
];

/// Whether `--disable-plugin` turned off the built-in plugin this tool belongs to.
pub fn turned_off(cfg: &crate::config::Config, tool: &str) -> bool {
    !cfg.disabled_plugins.is_empty()
        && BUILTIN_PLUGINS
            .iter()
            .any(|(p, tools)| tools.contains(&tool) && cfg.disabled_plugins.iter().any(|d| d == p))
}

/// Every tool's name (the opt-in ones included).
pub fn names() -> Vec<String> {
    TOOLS
        .iter()
        .chain(OPT_IN)
        .map(|t| t.name().to_string())
        .collect()
}

/// A tool by name (the opt-in ones included).
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::PrepareError;
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
