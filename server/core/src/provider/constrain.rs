//! Output constrained to an answer or calls, for a model that writes its calls as text: one
//! JSON object, `{"answer": …}` or `{"calls": [{"name": …, "arguments": {…}}]}`, the arguments
//! following each tool's schema (required keys, types and enums kept). Sent as llama.cpp's
//! `grammar` (GBNF generated from that schema, which llama-cpp-python's server takes too), or as
//! the schema itself where the server takes one: vLLM's `structured_outputs` / `guided_json`,
//! Ollama's `format`, LM Studio's `response_format`. The constraint never forces a call: the
//! model still chooses between answering and calling, and an answer is shown as its text.

use serde_json::{Map, Value, json};

use super::ToolSpec;
use super::textcalls::TextCall;

/// How a request's output is constrained (always to the answer-or-calls object).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Constraint {
    /// llama.cpp's `grammar`: GBNF generated from the schema.
    Grammar,
    /// vLLM ≥ 0.10: `structured_outputs: {"json": schema}`.
    StructuredOutputs,
    /// Older vLLM: `guided_json`.
    GuidedJson,
    /// Ollama's chat endpoint: `format`.
    OllamaFormat,
    /// OpenAI's `response_format: {"type": "json_schema", …}` (LM Studio).
    ResponseFormat,
}

impl Constraint {
    /// How it is shown (`GET /api/providers`).
    pub fn as_str(self) -> &'static str {
        match self {
            Constraint::Grammar => "gbnf",
            _ => "json_schema",
        }
    }

    /// Put the constraint for `tools` into an OpenAI-compatible request body.
    pub fn apply(self, body: &mut Value, tools: &[ToolSpec]) {
        let schema = answer_or_calls(tools);
        match self {
            Constraint::Grammar => body["grammar"] = Value::String(gbnf(&schema)),
            Constraint::StructuredOutputs => {
                body["structured_outputs"] = json!({"json": schema});
            }
            Constraint::GuidedJson => body["guided_json"] = schema,
            Constraint::OllamaFormat => body["format"] = schema,
            Constraint::ResponseFormat => {
                body["response_format"] = json!({"type": "json_schema", "json_schema": {"name": "answer_or_calls", "schema": schema}});
            }
        }
    }
}

/// The constraint a model gets: only when its calls are written as text; `auto` on for
/// llama.cpp (GBNF), vLLM and Ollama (JSON schema), off elsewhere; `on` also for a server not
/// recognised (GBNF, which llama.cpp and llama-cpp-python's server take) and LM Studio
/// (`response_format`).
pub fn decide(
    setting: crate::models::Constrained,
    calls: crate::models::ToolCallsMode,
    facts: &super::server::ServerFacts,
) -> Option<Constraint> {
    use super::server::ServerKind;
    use crate::models::Constrained;
    if calls != crate::models::ToolCallsMode::Text || setting == Constrained::Off {
        return None;
    }
    let recognised = match facts.kind {
        ServerKind::LlamaCpp => Some(Constraint::Grammar),
        ServerKind::Vllm => Some(if vllm_at_least(facts, (0, 10)) {
            Constraint::StructuredOutputs
        } else {
            Constraint::GuidedJson
        }),
        ServerKind::Ollama => Some(Constraint::OllamaFormat),
        ServerKind::LmStudio | ServerKind::Other => None,
    };
    match (setting, facts.kind) {
        (Constrained::Auto, _) => recognised,
        (_, ServerKind::LmStudio) => Some(Constraint::ResponseFormat),
        _ => recognised.or(Some(Constraint::Grammar)),
    }
}

/// Whether the server's version is at least `(major, minor)` (unknown: no).
fn vllm_at_least(facts: &super::server::ServerFacts, (major, minor): (u64, u64)) -> bool {
    let Some(v) = facts.version.as_deref() else {
        return false;
    };
    let mut parts = v.split(['.', '+', '-']).map(|p| p.parse::<u64>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(a), Some(b)) => (a, b) >= (major, minor),
        _ => false,
    }
}

/// The schema of a reply under a JSON constraint: an answer, or one or more calls of the
/// offered tools with arguments that follow each tool's schema.
pub fn answer_or_calls(tools: &[ToolSpec]) -> Value {
    let answer = json!({"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"], "additionalProperties": false});
    if tools.is_empty() {
        return answer;
    }
    let calls: Vec<Value> = tools
        .iter()
        .map(|t| json!({"type": "object", "properties": {"name": {"type": "string", "enum": [t.name]}, "arguments": t.parameters}, "required": ["name", "arguments"], "additionalProperties": false}))
        .collect();
    json!({"anyOf": [answer, {"type": "object", "properties": {"calls": {"type": "array", "minItems": 1, "items": {"anyOf": calls}}}, "required": ["calls"], "additionalProperties": false}]})
}

/// What the model is told under a JSON constraint (instead of the `<tool_call>` form).
pub fn json_prompt(tools: &[ToolSpec]) -> String {
    let mut s = String::from(
        "\n\n# Tools\n\nYou may call these functions. Their signatures, one JSON object per line, within <tools></tools>:\n<tools>\n",
    );
    for t in tools {
        s.push_str(
            &json!({"name": t.name, "description": t.description, "parameters": t.parameters})
                .to_string(),
        );
        s.push('\n');
    }
    // Measured with SmolLM2-135M: placeholders in angle brackets are copied as the answer;
    // bare TOOL and TEXT are not.
    s.push_str("</tools>\n\nTo use tools, reply {\"calls\": [{\"name\": TOOL, \"arguments\": {...}}]}; their results come back within <tool_response></tool_response>. When no tool is needed, reply {\"answer\": TEXT}.");
    s
}

/// An earlier reply as the JSON object a constrained model writes: its calls (arguments as
/// written, as a string when they were not JSON), else its answer.
pub fn written_reply(text: &str, calls: &[super::ToolCallReq]) -> String {
    if calls.is_empty() {
        return json!({"answer": text}).to_string();
    }
    let calls: Vec<Value> = calls
        .iter()
        .map(|c| {
            let args = serde_json::from_str::<Value>(&c.arguments)
                .unwrap_or_else(|_| Value::String(c.arguments.clone()));
            json!({"name": c.name, "arguments": args})
        })
        .collect();
    json!({"calls": calls}).to_string()
}

/// A reply under a JSON constraint: its answer's text and its calls, or why it cannot be read.
pub fn read_json(text: &str) -> Result<(String, Vec<TextCall>), String> {
    let v: Value = serde_json::from_str(text.trim())
        .map_err(|e| format!("the reply is not the JSON object asked for: {e}"))?;
    if let Some(a) = v.get("answer") {
        return Ok((a.as_str().unwrap_or_default().to_string(), Vec::new()));
    }
    let Some(calls) = v.get("calls").and_then(Value::as_array) else {
        return Err("the reply has neither `answer` nor `calls`".into());
    };
    let mut out = Vec::new();
    for c in calls {
        let name = c
            .get("name")
            .and_then(Value::as_str)
            .ok_or("a call has no `name`")?;
        let arguments = match c.get("arguments") {
            Some(Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
            None => "{}".to_string(),
        };
        out.push(TextCall {
            name: name.to_string(),
            arguments,
        });
    }
    Ok((String::new(), out))
}

/// The GBNF grammar of a JSON schema (the subset tool schemas use: objects with required and
/// optional keys, arrays, strings, numbers, booleans, null, enums, consts, `anyOf`/`oneOf`;
/// anything else is any JSON value).
pub fn gbnf(schema: &Value) -> String {
    let mut g = Grammar::default();
    let root = g.schema(schema, 0);
    let mut out = format!("root ::= {root}\n");
    for (name, body) in &g.rules {
        out.push_str(&format!("{name} ::= {body}\n"));
    }
    if g.generic {
        out.push_str(GENERIC);
    }
    out.push_str(PRIMITIVES);
    out
}

/// JSON's primitives in GBNF (one space at most where JSON allows space). Whole numbers have
/// at most nine digits, so every one the grammar admits fits the tools' 32-bit fields.
const PRIMITIVES: &str = r#"string ::= "\"" char* "\""
char ::= [^"\\\x00-\x1F\x7F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F])
integer ::= "-"? natural
natural ::= "0" | [1-9] [0-9]{0,8}
number ::= integer ("." [0-9]+)? ([eE] [-+]? [0-9]+)?
boolean ::= "true" | "false"
null ::= "null"
ws ::= " "?
"#;

/// Any JSON value (a schema that says nothing, or what this converter does not read).
const GENERIC: &str = r#"value ::= object | array | string | number | boolean | null
object ::= "{" ws (string ":" ws value ("," ws string ":" ws value)*)? ws "}"
array ::= "[" ws (value ("," ws value)*)? ws "]"
"#;

/// The longest `maxLength` a grammar bounds.
const MAX_BOUNDED: u64 = 256;

/// Nesting deeper than this is any JSON value (a recursive or pathological schema).
const MAX_DEPTH: usize = 12;

#[derive(Default)]
struct Grammar {
    rules: Vec<(String, String)>,
    /// The generic `value` rules are needed.
    generic: bool,
}

impl Grammar {
    fn rule(&mut self, body: String) -> String {
        if let Some((name, _)) = self.rules.iter().find(|(_, b)| *b == body) {
            return name.clone();
        }
        let name = format!("r{}", self.rules.len() + 1);
        self.rules.push((name.clone(), body));
        name
    }

    fn any(&mut self) -> String {
        self.generic = true;
        "value".into()
    }

    /// The rule for a value of `schema`.
    fn schema(&mut self, schema: &Value, depth: usize) -> String {
        let Some(o) = schema.as_object() else {
            return self.any();
        };
        if depth > MAX_DEPTH {
            return self.any();
        }
        if let Some(c) = o.get("const") {
            return lit(&c.to_string());
        }
        if let Some(Value::Array(e)) = o.get("enum") {
            let alts: Vec<String> = e.iter().map(|v| lit(&v.to_string())).collect();
            return self.rule(alts.join(" | "));
        }
        for k in ["anyOf", "oneOf"] {
            if let Some(Value::Array(s)) = o.get(k) {
                let alts: Vec<String> = s.iter().map(|x| self.schema(x, depth + 1)).collect();
                return self.rule(alts.join(" | "));
            }
        }
        match o.get("type") {
            Some(Value::Array(types)) => {
                let alts: Vec<String> = types
                    .iter()
                    .map(|t| {
                        let mut one = o.clone();
                        one.insert("type".into(), t.clone());
                        self.schema(&Value::Object(one), depth + 1)
                    })
                    .collect();
                self.rule(alts.join(" | "))
            }
            Some(Value::String(t)) => match t.as_str() {
                "string" => self.string(o),
                "integer"
                    if o.get("minimum")
                        .and_then(Value::as_f64)
                        .is_some_and(|m| m >= 0.0) =>
                {
                    "natural".into()
                }
                "integer" => "integer".into(),
                "number" => "number".into(),
                "boolean" => "boolean".into(),
                "null" => "null".into(),
                "array" => {
                    let item = match o.get("items") {
                        Some(i) => self.schema(i, depth + 1),
                        None => self.any(),
                    };
                    let min = o.get("minItems").and_then(Value::as_u64).unwrap_or(0);
                    self.rule(if min > 0 {
                        format!("\"[\" ws {item} (\",\" ws {item})* \"]\"")
                    } else {
                        format!("\"[\" (ws {item} (\",\" ws {item})*)? \"]\"")
                    })
                }
                "object" => self.object(o, depth),
                _ => self.any(),
            },
            _ if o.contains_key("properties") => self.object(o, depth),
            _ => self.any(),
        }
    }

    /// A string, its length bounded as the schema says (a bound above `MAX_BOUNDED` is left
    /// open: a grammar spells each repetition out).
    fn string(&mut self, o: &Map<String, Value>) -> String {
        let min = o.get("minLength").and_then(Value::as_u64).unwrap_or(0);
        let max = o
            .get("maxLength")
            .and_then(Value::as_u64)
            .filter(|m| *m <= MAX_BOUNDED && *m >= min);
        match (min, max) {
            (0, None) => "string".into(),
            (min, None) => self.rule(format!("\"\\\"\" char{{{min},}} \"\\\"\"")),
            (min, Some(max)) => self.rule(format!("\"\\\"\" char{{{min},{max}}} \"\\\"\"")),
        }
    }

    /// An object: its required keys in order, then each optional key, in order, or not.
    fn object(&mut self, o: &Map<String, Value>, depth: usize) -> String {
        let Some(props) = o.get("properties").and_then(Value::as_object) else {
            // No keys named: none at all when no others are allowed, else any object.
            if o.get("additionalProperties") == Some(&Value::Bool(false)) {
                return "\"{}\"".into();
            }
            self.generic = true;
            return "object".into();
        };
        let required: Vec<&str> = o
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut req = Vec::new();
        let mut opt = Vec::new();
        for (k, s) in props {
            let value = self.schema(s, depth + 1);
            let pair = format!("{} {value}", lit(&format!("{}: ", json_string(k))));
            if required.contains(&k.as_str()) {
                req.push(pair);
            } else {
                opt.push(pair);
            }
        }
        let body = if req.is_empty() {
            // Whichever optional key comes first goes without a comma.
            let mut alts = Vec::new();
            for i in 0..opt.len() {
                let rest: String = opt[i + 1..]
                    .iter()
                    .map(|p| format!(" (\", \" {p})?"))
                    .collect();
                alts.push(format!("{}{rest}", opt[i]));
            }
            if alts.is_empty() {
                "\"{}\"".to_string()
            } else {
                format!("\"{{\" ({})? \"}}\"", alts.join(" | "))
            }
        } else {
            let rest: String = opt.iter().map(|p| format!(" (\", \" {p})?")).collect();
            format!("\"{{\" {}{rest} \"}}\"", req.join(" \", \" "))
        };
        self.rule(body)
    }
}

/// A JSON string literal of `s`.
fn json_string(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// `s` as a GBNF string literal.
fn lit(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\x{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    fn tools() -> Vec<ToolSpec> {
        vec![
            ToolSpec {
                name: "read_file".into(),
                description: "Read a file".into(),
                parameters: json!({"type": "object", "properties": {"path": {"type": "string"}, "offset": {"type": "integer", "minimum": 0}, "limit": {"type": "integer"}}, "required": ["path"]}),
            },
            ToolSpec {
                name: "todo".into(),
                description: "Todos".into(),
                parameters: json!({"type": "object", "properties": {"items": {"type": "array", "items": {"type": "object", "properties": {"text": {"type": "string"}, "state": {"enum": ["open", "done"]}}, "required": ["text", "state"]}}, "note": {"type": ["string", "null"]}, "extra": {}}}),
            },
        ]
    }

    #[test]
    fn the_grammar_admits_an_answer_or_calls_with_schema_valid_arguments() {
        let g = gbnf(&answer_or_calls(&tools()));
        assert!(g.starts_with("root ::= r"), "{g}");
        assert!(
            g.contains(r#""{" "\"answer\": " string "}""#),
            "an answer object: {g}"
        );
        assert!(g.contains(r#""\"read_file\"""#), "{g}");
        // Required first, optional ones in order (the keys' order); enums as literals; a key
        // with no schema is any value; at least one call.
        assert!(
            g.contains(r#""{" "\"path\": " string (", " "\"limit\": " integer)? (", " "\"offset\": " natural)? "}""#),
            "{g}"
        );
        assert!(g.contains(r#""\"open\"" | "\"done\"""#), "{g}");
        assert!(g.contains("value ::= object | array"), "{g}");
        assert!(g.contains(r#"= "[" ws r"#), "minItems 1: {g}");
        let titled = gbnf(&json!({"type": "string", "minLength": 1, "maxLength": 120}));
        assert!(
            titled.contains(r#"r1 ::= "\"" char{1,120} "\"""#),
            "{titled}"
        );
        let none = gbnf(&json!({"type": "object", "additionalProperties": false}));
        assert_eq!(none.lines().next(), Some(r#"root ::= "{}""#));
        // Every rule used is defined.
        let defined: Vec<&str> = g.lines().filter_map(|l| l.split(" ::= ").next()).collect();
        for l in g.lines() {
            let body = l.split(" ::= ").nth(1).unwrap();
            let (mut in_lit, mut in_class, mut escaped) = (false, false, false);
            let mut word = String::new();
            for c in body.chars().chain(std::iter::once(' ')) {
                if in_lit || in_class {
                    if escaped {
                        escaped = false;
                    } else if c == '\\' {
                        escaped = true;
                    } else if (in_lit && c == '"') || (in_class && c == ']') {
                        in_lit = false;
                        in_class = false;
                    }
                    continue;
                }
                match c {
                    '"' => in_lit = true,
                    '[' => in_class = true,
                    c if c.is_ascii_alphanumeric() || c == '-' => word.push(c),
                    _ => {
                        if !word.is_empty() && !word.chars().all(|c| c.is_ascii_digit()) {
                            assert!(defined.contains(&word.as_str()), "{word} in {l}");
                            word.clear();
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_json_reply_is_an_answer_or_calls() {
        let s = answer_or_calls(&tools());
        assert_eq!(
            s["anyOf"][1]["properties"]["calls"]["items"]["anyOf"][0]["properties"]["name"]["enum"]
                [0],
            "read_file"
        );
        assert_eq!(
            read_json(r#"{"answer": "Hi."}"#).unwrap(),
            ("Hi.".into(), vec![])
        );
        let (text, calls) =
            read_json(r#" {"calls": [{"name": "read_file", "arguments": {"path": "a"}}]}"#)
                .unwrap();
        assert!(text.is_empty());
        assert_eq!(calls[0].arguments, r#"{"path":"a"}"#);
        assert!(read_json(r#"{"calls": [{"name": "read_file", "argu"#).is_err());
        assert!(read_json(r#"{"other": 1}"#).is_err());
        let mut body = json!({});
        Constraint::OllamaFormat.apply(&mut body, &tools());
        assert!(body["format"]["anyOf"].is_array());
        Constraint::Grammar.apply(&mut body, &tools());
        assert!(body["grammar"].as_str().unwrap().contains("answer"));
    }
}
