//! Tool calls a model wrote as text instead of sending them natively — what many small local
//! models do: Hermes/Qwen `<tool_call>{…}</tool_call>`, Qwen3-Coder's
//! `<tool_call><function=NAME><parameter=KEY>…`, Mistral's `[TOOL_CALLS][…]` (and
//! `[TOOL_CALLS]NAME[ARGS]{…}`), Llama 3's `<|python_tag|>{…}`, DeepSeek's
//! `<｜tool▁call▁begin｜>…` tokens, gpt-oss harmony's `to=functions.NAME … <|message|>{…}`, and —
//! only when the model is asked to write its calls as text — a JSON object naming a known tool
//! that is the whole reply or its last fenced block (JSON quoted in prose never runs).
//! `<think>…</think>` is reasoning, never the answer.
//!
//! Each call found becomes an ordinary call (the same preparation, gate and events as a native
//! one); a block that cannot be read becomes a call whose arguments are its raw text, which the
//! gate's preparation refuses with the reason (never run, never lost). The text around the calls
//! stays text. [`Filter`] keeps the call syntax out of the streamed deltas.

use serde_json::{Map, Value};

pub use crate::models::ToolCallsMode;

/// A call read from the text: the tool's name and its arguments as JSON text (raw text when
/// the block could not be read: the preparation refuses it with the reason).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextCall {
    pub name: String,
    pub arguments: String,
}

/// A reply's text with its calls taken out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extracted {
    pub text: String,
    pub reasoning: String,
    pub calls: Vec<TextCall>,
}

/// The call format a model family is trained on, from the model's name: the tools are
/// described, and earlier calls and results written back, the way it expects (every format is
/// read back by [`extract`]). Anything not recognised gets Hermes/Qwen's `<tool_call>` form,
/// which most small open models are trained on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `<tool_call>{"name": …, "arguments": {…}}</tool_call>` (Hermes, Qwen 2.5/3, most others).
    Hermes,
    /// Qwen3-Coder: `<tool_call><function=NAME><parameter=KEY>value</parameter>…`.
    QwenCoder,
    /// Mistral's `[TOOL_CALLS][{"name": …, "arguments": {…}}]`.
    Mistral,
    /// Llama 3.x: `<|python_tag|>{"name": …, "parameters": {…}}`.
    Llama3,
}

impl Family {
    pub fn of(model: &str) -> Family {
        let m = model.to_ascii_lowercase();
        let has = |ps: &[&str]| ps.iter().any(|p| m.contains(p));
        if has(&["qwen3-coder", "qwen3_coder", "qwen3coder"]) {
            Family::QwenCoder
        } else if has(&[
            "mistral",
            "mixtral",
            "devstral",
            "codestral",
            "magistral",
            "ministral",
        ]) {
            Family::Mistral
        } else if has(&["llama-3", "llama3", "llama-4", "llama4"]) {
            Family::Llama3
        } else {
            Family::Hermes
        }
    }
}

/// The system prompt's part that describes the tools to a model that writes its calls as
/// text, in its family's form.
pub fn tools_prompt(tools: &[super::ToolSpec], family: Family) -> String {
    let specs: Vec<Value> = tools
        .iter()
        .map(|t| serde_json::json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}))
        .collect();
    let lines = || {
        specs
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    };
    match family {
        Family::Hermes => format!(
            "\n\n# Tools\n\nYou may call one or more of these functions. Their signatures, one JSON object per line, within <tools></tools>:\n<tools>\n{}\n</tools>\n\nTo call one, write a JSON object with its name and arguments within <tool_call></tool_call> tags, and nothing after the last call:\n<tool_call>\n{{\"name\": <function-name>, \"arguments\": <args-json-object>}}\n</tool_call>\nThe results come back within <tool_response></tool_response>. To answer, write plain text.",
            lines()
        ),
        Family::QwenCoder => format!(
            "\n\n# Tools\n\nYou have access to the following functions:\n\n<tools>\n{}\n</tools>\n\nIf you choose to call a function ONLY reply in the following format with NO suffix:\n\n<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n</function>\n</tool_call>\n\nRequired parameters MUST be specified; a value that is not a string is written as JSON. You may make several calls, each in its own <tool_call></tool_call>. The results come back within <tool_response></tool_response>. To answer, write plain text.",
            lines()
        ),
        Family::Mistral => format!(
            "\n\n[AVAILABLE_TOOLS]{}[/AVAILABLE_TOOLS]\n\nTo call tools, reply with [TOOL_CALLS] followed by a JSON list of calls and nothing after it: [TOOL_CALLS][{{\"name\": <function-name>, \"arguments\": <args-json-object>}}]. The results come back within [TOOL_RESULTS][/TOOL_RESULTS]. To answer, write plain text.",
            Value::Array(specs.clone())
        ),
        Family::Llama3 => format!(
            "\n\n# Tools\n\nGiven the following functions, respond with a JSON for a function call with its proper arguments when a call is what the request needs.\n\n{}\n\nTo call one, write <|python_tag|> followed by {{\"name\": function name, \"parameters\": dictionary of argument name and its value}} and nothing after it; several calls are separated by ;. Do not use variables. The results come back as the next message. To answer, write plain text.",
            lines()
        ),
    }
}

/// An earlier call, written back the way the model is told to write one.
pub fn written_call(name: &str, arguments: &str, family: Family) -> String {
    let args = serde_json::from_str::<Value>(arguments)
        .unwrap_or_else(|_| Value::String(arguments.to_string()));
    match family {
        Family::Hermes => format!(
            "<tool_call>\n{}\n</tool_call>",
            serde_json::json!({"name": name, "arguments": args})
        ),
        Family::QwenCoder => {
            let mut s = format!("<tool_call>\n<function={name}>\n");
            if let Value::Object(o) = &args {
                for (k, v) in o {
                    let v = match v {
                        Value::String(t) => t.clone(),
                        other => other.to_string(),
                    };
                    s.push_str(&format!("<parameter={k}>\n{v}\n</parameter>\n"));
                }
            }
            s.push_str("</function>\n</tool_call>");
            s
        }
        Family::Mistral => format!(
            "[TOOL_CALLS]{}",
            serde_json::json!([{"name": name, "arguments": args}])
        ),
        Family::Llama3 => format!(
            "<|python_tag|>{}",
            serde_json::json!({"name": name, "parameters": args})
        ),
    }
}

/// A call's result, written as the model's family reads one.
pub fn written_result(text: &str, family: Family) -> String {
    match family {
        Family::Hermes | Family::QwenCoder => format!("<tool_response>\n{text}\n</tool_response>"),
        Family::Mistral => format!(
            "[TOOL_RESULTS]{}[/TOOL_RESULTS]",
            serde_json::json!({"content": text})
        ),
        Family::Llama3 => text.to_string(),
    }
}

/// The name a block gets when not even its tool's name can be read.
pub const UNREADABLE: &str = "unreadable_tool_call";

const THINK: (&str, &str) = ("<think>", "</think>");
/// Where a written call begins, in any of the formats.
const OPENERS: &[&str] = &[
    "<tool_call>",
    "[TOOL_CALLS]",
    "<|python_tag|>",
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁call▁begin｜>",
    "<function=",
    "to=functions.",
];

/// Split `<think>…</think>` (a reply may open with it, or open inside it when the server put
/// `<think>` in the prompt) from the text.
fn split_think(text: &str) -> (String, String) {
    let (open, close) = THINK;
    let mut reasoning = String::new();
    let mut rest = text;
    // A reply that closes a think it never opened (the template opened it).
    if let Some(end) = rest.find(close)
        && !rest[..end].contains(open)
    {
        reasoning.push_str(rest[..end].trim());
        rest = &rest[end + close.len()..];
    }
    let mut out = String::new();
    while let Some(start) = rest.find(open) {
        out.push_str(&rest[..start]);
        let after = &rest[start + open.len()..];
        match after.find(close) {
            Some(end) => {
                if !reasoning.is_empty() {
                    reasoning.push('\n');
                }
                reasoning.push_str(after[..end].trim());
                rest = &after[end + close.len()..];
            }
            None => {
                // Never closed: all of it was thinking.
                if !reasoning.is_empty() {
                    reasoning.push('\n');
                }
                reasoning.push_str(after.trim());
                rest = "";
            }
        }
    }
    out.push_str(rest);
    (out, reasoning)
}

/// Read the calls a reply wrote as text. `known`: whether a tool of that name is offered (a
/// bare JSON object counts only when it names one).
pub fn extract(text: &str, mode: ToolCallsMode, known: &dyn Fn(&str) -> bool) -> Extracted {
    let (text, reasoning) = split_think(text);
    let mut out = Extracted {
        reasoning,
        ..Extracted::default()
    };
    if mode == ToolCallsMode::Native {
        out.text = text;
        return out;
    }
    let mut rest = text.as_str();
    let mut kept = String::new();
    while let Some((at, opener)) = first_opener(rest) {
        kept.push_str(&rest[..at]);
        let block = &rest[at..];
        let used = match opener {
            "<tool_call>" | "<function=" => tool_call_tags(block, &mut out.calls),
            "[TOOL_CALLS]" => mistral(block, &mut out.calls),
            "<|python_tag|>" => python_tag(block, &mut out.calls),
            "to=functions." => harmony(block, &mut out.calls),
            _ => deepseek(block, &mut out.calls),
        };
        rest = &block[used.max(1).min(block.len())..];
    }
    kept.push_str(rest);
    if out.calls.is_empty()
        && mode == ToolCallsMode::Text
        && let Some((before, call)) = bare_json(&kept, known)
    {
        out.calls.push(call);
        kept = before;
    }
    out.text = kept.trim().to_string();
    out
}

fn first_opener(s: &str) -> Option<(usize, &'static str)> {
    OPENERS
        .iter()
        .filter_map(|o| s.find(o).map(|i| (i, *o)))
        .min_by_key(|(i, _)| *i)
}

/// A call object: `{"name": …, "arguments"|"parameters": {…}}` (arguments may be a JSON string).
fn call_of(v: &Value) -> Option<TextCall> {
    let o = v.as_object()?;
    let name = o.get("name")?.as_str()?.trim();
    if name.is_empty() {
        return None;
    }
    let args = o
        .get("arguments")
        .or_else(|| o.get("parameters"))
        .cloned()
        .unwrap_or(Value::Object(Map::new()));
    let arguments = match args {
        Value::String(s) => s,
        v => v.to_string(),
    };
    Some(TextCall {
        name: name.to_string(),
        arguments,
    })
}

/// Whether a call read from text could not be read (its tool's name, or its arguments as a
/// JSON object): returned to the model as a failed call.
pub fn is_unreadable(name: &str, arguments: &str) -> bool {
    name == UNREADABLE
        || !serde_json::from_str::<Value>(if arguments.trim().is_empty() {
            "{}"
        } else {
            arguments
        })
        .is_ok_and(|v| v.is_object())
}

/// A block that could not be read: returned to the model as a failed call (its raw text).
pub fn unreadable(raw: &str, name: Option<&str>) -> TextCall {
    TextCall {
        name: name.unwrap_or(UNREADABLE).to_string(),
        arguments: raw.trim().to_string(),
    }
}

/// The first JSON value at the start of `s` (after spaces), and the bytes it took.
fn json_prefix(s: &str) -> Option<(Value, usize)> {
    let lead = s.len() - s.trim_start().len();
    let mut it = serde_json::Deserializer::from_str(&s[lead..]).into_iter::<Value>();
    let v = it.next()?.ok()?;
    Some((v, lead + it.byte_offset()))
}

/// `<tool_call>{json}</tool_call>` or `<tool_call><function=NAME><parameter=K>V</parameter>…`
/// (and a bare `<function=…>` block).
fn tool_call_tags(block: &str, calls: &mut Vec<TextCall>) -> usize {
    let (inner, used) = match block.strip_prefix("<tool_call>") {
        Some(after) => match after.find("</tool_call>") {
            Some(end) => (
                &after[..end],
                "<tool_call>".len() + end + "</tool_call>".len(),
            ),
            None => (after, block.len()),
        },
        None => match block.find("</function>") {
            Some(end) => (
                &block[..end + "</function>".len()],
                end + "</function>".len(),
            ),
            None => (block, block.len()),
        },
    };
    let body = inner.trim();
    if body.starts_with("<function=") {
        calls.push(xml_function(body));
    } else {
        match serde_json::from_str::<Value>(body) {
            Ok(v) => calls.push(call_of(&v).unwrap_or_else(|| unreadable(body, None))),
            Err(_) => calls.push(unreadable(body, name_in(body))),
        }
    }
    used
}

/// Qwen3-Coder: `<function=NAME><parameter=KEY>VALUE</parameter>…</function>`; each value is
/// JSON when it reads as JSON (a number, an object), else text.
fn xml_function(body: &str) -> TextCall {
    let Some(after) = body.strip_prefix("<function=") else {
        return unreadable(body, None);
    };
    let Some(gt) = after.find('>') else {
        return unreadable(body, None);
    };
    let name = after[..gt].trim();
    let mut args = Map::new();
    let mut rest = &after[gt + 1..];
    while let Some(p) = rest.find("<parameter=") {
        let a = &rest[p + "<parameter=".len()..];
        let Some(gt) = a.find('>') else {
            return unreadable(body, Some(name));
        };
        let key = a[..gt].trim().to_string();
        let v = &a[gt + 1..];
        let Some(end) = v.find("</parameter>") else {
            return unreadable(body, Some(name));
        };
        let raw = v[..end].trim_matches('\n');
        let value = serde_json::from_str::<Value>(raw)
            .ok()
            .filter(|v| !v.is_string())
            .unwrap_or_else(|| Value::String(raw.to_string()));
        args.insert(key, value);
        rest = &v[end + "</parameter>".len()..];
    }
    TextCall {
        name: name.to_string(),
        arguments: Value::Object(args).to_string(),
    }
}

/// Mistral: `[TOOL_CALLS][{"name":…,"arguments":{…}}, …]`, or `[TOOL_CALLS]NAME[ARGS]{…}`.
fn mistral(block: &str, calls: &mut Vec<TextCall>) -> usize {
    let after = &block["[TOOL_CALLS]".len()..];
    let head = "[TOOL_CALLS]".len();
    if after.trim_start().starts_with('[') {
        return match json_prefix(after) {
            Some((Value::Array(items), n)) => {
                for v in &items {
                    calls.push(call_of(v).unwrap_or_else(|| unreadable(&v.to_string(), None)));
                }
                head + n
            }
            _ => {
                calls.push(unreadable(after, None));
                block.len()
            }
        };
    }
    match after.find("[ARGS]") {
        Some(i) => {
            let name = after[..i].trim();
            let args = &after[i + "[ARGS]".len()..];
            match json_prefix(args) {
                Some((v, n)) => {
                    calls.push(TextCall {
                        name: name.to_string(),
                        arguments: v.to_string(),
                    });
                    head + i + "[ARGS]".len() + n
                }
                None => {
                    calls.push(unreadable(args, Some(name)));
                    block.len()
                }
            }
        }
        None => {
            calls.push(unreadable(after, None));
            block.len()
        }
    }
}

/// Llama 3: `<|python_tag|>{"name":…,"parameters":{…}}` (several joined by `;`), up to
/// `<|eom_id|>`/`<|eot_id|>` or the end.
fn python_tag(block: &str, calls: &mut Vec<TextCall>) -> usize {
    let after = &block["<|python_tag|>".len()..];
    let end = ["<|eom_id|>", "<|eot_id|>"]
        .iter()
        .filter_map(|m| after.find(m).map(|i| (i, m.len())))
        .min();
    let (body, used) = match end {
        Some((i, n)) => (&after[..i], "<|python_tag|>".len() + i + n),
        None => (after, block.len()),
    };
    let mut rest = body.trim();
    while !rest.is_empty() {
        match json_prefix(rest) {
            Some((v, n)) => {
                calls.push(call_of(&v).unwrap_or_else(|| unreadable(&v.to_string(), None)));
                rest = rest[n..].trim_start().trim_start_matches(';').trim_start();
            }
            None => {
                calls.push(unreadable(rest, name_in(rest)));
                break;
            }
        }
    }
    used
}

/// DeepSeek: `<｜tool▁call▁begin｜>[function<｜tool▁sep｜>]NAME[\n```json\n]{…}[```]<｜tool▁call▁end｜>`,
/// inside `<｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>`.
fn deepseek(block: &str, calls: &mut Vec<TextCall>) -> usize {
    const BEGIN: &str = "<｜tool▁call▁begin｜>";
    const END: &str = "<｜tool▁call▁end｜>";
    const SEP: &str = "<｜tool▁sep｜>";
    const ALL_END: &str = "<｜tool▁calls▁end｜>";
    let used = match block.find(ALL_END) {
        Some(i) => i + ALL_END.len(),
        None => block.len(),
    };
    let mut rest = &block[..used];
    while let Some(b) = rest.find(BEGIN) {
        let a = &rest[b + BEGIN.len()..];
        let (one, next) = match a.find(END) {
            Some(e) => (&a[..e], &a[e + END.len()..]),
            None => (a, ""),
        };
        rest = next;
        let Some(s) = one.find(SEP) else {
            calls.push(unreadable(one, None));
            continue;
        };
        let (left, right) = (one[..s].trim(), one[s + SEP.len()..].trim());
        // V3: `function<sep>NAME\n```json\n{…}\n````; V3.1: `NAME<sep>{…}`.
        let (name, args) = if left == "function" {
            match right.split_once('\n') {
                Some((n, a)) => (n.trim(), a),
                None => (right, ""),
            }
        } else {
            (left, right)
        };
        let args = args
            .trim()
            .trim_start_matches("```json")
            .trim_start_matches("```")
            .trim_end_matches("```")
            .trim();
        match serde_json::from_str::<Value>(if args.is_empty() { "{}" } else { args }) {
            Ok(v) => calls.push(TextCall {
                name: name.to_string(),
                arguments: v.to_string(),
            }),
            Err(_) => calls.push(unreadable(args, Some(name))),
        }
    }
    used
}

/// gpt-oss harmony: `to=functions.NAME [<|channel|>commentary] [<|constrain|>json]<|message|>{…}`
/// up to `<|call|>` (or the end).
fn harmony(block: &str, calls: &mut Vec<TextCall>) -> usize {
    let after = &block["to=functions.".len()..];
    let name_end = after
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
        .unwrap_or(after.len());
    let name = &after[..name_end];
    let Some(m) = after.find("<|message|>") else {
        calls.push(unreadable(after, Some(name)));
        return block.len();
    };
    let body = &after[m + "<|message|>".len()..];
    let (args, used) = match body.find("<|call|>") {
        Some(c) => (
            &body[..c],
            "to=functions.".len() + m + "<|message|>".len() + c + 8,
        ),
        None => (body, block.len()),
    };
    match serde_json::from_str::<Value>(args.trim()) {
        Ok(v) => calls.push(TextCall {
            name: name.to_string(),
            arguments: v.to_string(),
        }),
        Err(_) => calls.push(unreadable(args, Some(name))),
    }
    used
}

/// The `"name": "…"` a broken block still shows, so its error names the tool.
fn name_in(s: &str) -> Option<&str> {
    let i = s.find("\"name\"")?;
    let rest = s[i + 6..].trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    rest.find('"').map(|e| &rest[..e])
}

/// `toolCalls: text`: the whole reply, or its last fenced block, is one JSON call object (or an
/// array of them) naming a known tool. Returns the text without it.
fn bare_json(text: &str, known: &dyn Fn(&str) -> bool) -> Option<(String, TextCall)> {
    let trimmed = text.trim();
    let call = |v: &Value| call_of(v).filter(|c| known(&c.name));
    if let Ok(v) = serde_json::from_str::<Value>(trimmed)
        && let Some(c) = call(&v)
    {
        return Some((String::new(), c));
    }
    // The last fenced block, and only when nothing but space follows it.
    let close = trimmed.rfind("```")?;
    if close + 3 != trimmed.len() {
        return None;
    }
    let open = trimmed[..close].rfind("```")?;
    let fenced = &trimmed[open + 3..close];
    let body = fenced
        .strip_prefix("json")
        .unwrap_or(fenced)
        .trim_start_matches(|c: char| c.is_ascii_alphabetic())
        .trim();
    let v: Value = serde_json::from_str(body).ok()?;
    let c = call(&v)?;
    Some((trimmed[..open].trim_end().to_string(), c))
}

/// Keeps call syntax and `<think>` out of the streamed text: text goes out until something
/// that may open a call or a think block; what follows a call's opener is held (it arrives with
/// the complete message, which the app shows in place of the deltas); thinking goes out as
/// reasoning.
#[derive(Debug, Default)]
pub struct Filter {
    pending: String,
    held: bool,
    thinking: bool,
    /// `toolCalls: native`: no call is read from the text, so none is held back (a `<think>`
    /// block still goes out as reasoning).
    native: bool,
    /// `toolCalls: text`: a fenced block may be a call (when it is the reply's last).
    text_mode: bool,
    /// A fenced block being read (from its opening fence).
    fenced: Option<String>,
    /// A closed fenced block that reads as a call, and the space after it: held until more
    /// text shows it is not the reply's last block (then it goes out as text).
    candidate: Option<String>,
    /// `toolCalls: text`: text other than space has gone out (a reply that opens with `{` may
    /// be a bare JSON call, held until it ends).
    emitted: bool,
    /// A reply that opened with `{`, held whole.
    bare: Option<String>,
    /// A reply constrained to `{"answer": …}` or `{"calls": […]}`: only the answer's text
    /// streams, decoded.
    answer: Option<AnswerStream>,
}

/// What a chunk comes to.
#[derive(Debug, PartialEq, Eq)]
pub enum Filtered {
    /// All of it is text, as it came (nothing held before it, nothing in it that may open a call
    /// or a think block): the common case, which copies nothing.
    Pass,
    /// Text and reasoning to stream (either may be empty).
    Split { text: String, reasoning: String },
}

impl Filter {
    /// A filter for a model whose calls are read as `mode` says.
    pub fn new(mode: ToolCallsMode) -> Filter {
        Filter {
            native: mode == ToolCallsMode::Native,
            text_mode: mode == ToolCallsMode::Text,
            ..Filter::default()
        }
    }

    /// A filter for a reply constrained to a JSON object: the text of `{"answer": "…"}` streams
    /// as it comes (its escapes decoded), calls never do; the complete message is read whole.
    pub fn json_answer() -> Filter {
        Filter {
            answer: Some(AnswerStream::default()),
            ..Filter::default()
        }
    }

    /// Take a chunk.
    pub fn push(&mut self, chunk: &str) -> Filtered {
        if let Some(a) = self.answer.as_mut() {
            return Filtered::Split {
                text: a.push(chunk),
                reasoning: String::new(),
            };
        }
        if self.held {
            return Filtered::Split {
                text: String::new(),
                reasoning: String::new(),
            };
        }
        // Every opener begins with `<`, `[`, a full-width bar (its first byte 0xEF) or `to=`.
        if !self.thinking
            && (!self.text_mode || self.emitted)
            && self.pending.is_empty()
            && self.fenced.is_none()
            && self.candidate.is_none()
            && !chunk
                .bytes()
                .any(|b| matches!(b, b'<' | b'[' | 0xEF) || (b == b'`' && self.text_mode))
            && !chunk.contains("to=")
            && !chunk.ends_with('t')
            && !chunk.ends_with("to")
        {
            return Filtered::Pass;
        }
        let (text, reasoning) = self.split(chunk);
        let text = self.bare_gate(text);
        Filtered::Split { text, reasoning }
    }

    /// `toolCalls: text`: a reply whose text opens with `{` may be one bare JSON call; it is
    /// held whole (the complete message shows whatever the extraction does not take).
    fn bare_gate(&mut self, text: String) -> String {
        if !self.text_mode || self.emitted {
            return text;
        }
        if let Some(b) = self.bare.as_mut() {
            b.push_str(&text);
            return String::new();
        }
        let lead = text.trim_start();
        if lead.is_empty() {
            return text;
        }
        if lead.starts_with('{') {
            self.bare = Some(text);
            return String::new();
        }
        self.emitted = true;
        text
    }

    /// The stream ended: what was held back in case it opened something (text, reasoning).
    pub fn finish(&mut self) -> (String, String) {
        if self.answer.is_some() {
            return (String::new(), String::new());
        }
        let mut rest = std::mem::take(&mut self.pending);
        // An unclosed fence was text; a closed one that reads as a call is left to the reply's
        // extraction (the complete message shows whatever it does not take).
        if let Some(f) = self.fenced.take() {
            rest.insert_str(0, &f);
        }
        self.candidate = None;
        if let Some(mut b) = self.bare.take() {
            if !self.thinking && !self.held {
                b.push_str(&rest);
            }
            let whole_call = serde_json::from_str::<Value>(b.trim())
                .ok()
                .as_ref()
                .and_then(call_of)
                .is_some();
            return (if whole_call { String::new() } else { b }, String::new());
        }
        if self.held {
            (String::new(), String::new())
        } else if self.thinking {
            (String::new(), rest)
        } else {
            (rest, String::new())
        }
    }

    fn split(&mut self, chunk: &str) -> (String, String) {
        self.pending.push_str(chunk);
        let (mut text, mut reasoning) = (String::new(), String::new());
        loop {
            match self.fence_step(&mut text) {
                Some(true) => continue,
                Some(false) => break,
                None => {}
            }
            if self.thinking {
                match self.pending.find(THINK.1) {
                    Some(i) => {
                        reasoning.push_str(&self.pending[..i]);
                        self.pending.drain(..i + THINK.1.len());
                        self.thinking = false;
                    }
                    None => {
                        let keep = partial_suffix(&self.pending, &[THINK.1]);
                        let cut = self.pending.len() - keep;
                        reasoning.push_str(&self.pending[..cut]);
                        self.pending.drain(..cut);
                        break;
                    }
                }
                continue;
            }
            let think = self.pending.find(THINK.0);
            let call = if self.native {
                None
            } else {
                first_opener(&self.pending).map(|(i, _)| i)
            };
            if let Some(f) = self.pending.find(FENCE).filter(|_| self.text_mode)
                && think.is_none_or(|t| f < t)
                && call.is_none_or(|c| f < c)
            {
                text.push_str(&self.pending[..f]);
                self.pending.drain(..f + FENCE.len());
                self.fenced = Some(FENCE.to_string());
                continue;
            }
            match (think, call) {
                (Some(t), c) if c.is_none_or(|c| t < c) => {
                    text.push_str(&self.pending[..t]);
                    self.pending.drain(..t + THINK.0.len());
                    self.thinking = true;
                }
                (_, Some(c)) => {
                    text.push_str(&self.pending[..c]);
                    self.pending.clear();
                    self.held = true;
                    break;
                }
                _ => {
                    let mut all = if self.native {
                        Vec::new()
                    } else {
                        OPENERS.to_vec()
                    };
                    all.push(THINK.0);
                    if self.text_mode {
                        all.push(FENCE);
                    }
                    let keep = partial_suffix(&self.pending, &all);
                    let cut = self.pending.len() - keep;
                    text.push_str(&self.pending[..cut]);
                    self.pending.drain(..cut);
                    break;
                }
            }
        }
        (text, reasoning)
    }
}

impl Filter {
    /// Inside a fenced block, or just after one that reads as a call: `Some(true)` when the
    /// split goes on, `Some(false)` when everything pending is held, `None` when neither.
    fn fence_step(&mut self, text: &mut String) -> Option<bool> {
        if let Some(buf) = self.fenced.as_mut() {
            let Some(i) = self.pending.find(FENCE) else {
                let keep = partial_suffix(&self.pending, &[FENCE]);
                let cut = self.pending.len() - keep;
                buf.push_str(&self.pending[..cut]);
                self.pending.drain(..cut);
                return Some(false);
            };
            buf.push_str(&self.pending[..i + FENCE.len()]);
            self.pending.drain(..i + FENCE.len());
            let block = self.fenced.take().unwrap_or_default();
            if fenced_call(&block) {
                self.candidate = Some(block);
            } else {
                text.push_str(&block);
            }
            return Some(true);
        }
        let c = self.candidate.as_mut()?;
        let space = self.pending.len() - self.pending.trim_start().len();
        c.push_str(&self.pending[..space]);
        self.pending.drain(..space);
        if self.pending.is_empty() {
            return Some(false);
        }
        // More text: it was not the reply's last block.
        text.push_str(&self.candidate.take().unwrap_or_default());
        Some(true)
    }
}

const FENCE: &str = "```";

/// The text of a streamed `{"answer": "…"}`, decoded as it arrives.
#[derive(Debug, Default)]
pub struct AnswerStream {
    /// The reply's opening, until it shows whether it is an answer.
    head: String,
    state: AnswerState,
    /// An escape being read (after its backslash).
    escape: String,
    /// A high surrogate waiting for its low half.
    high: Option<u32>,
}

#[derive(Debug, Default, PartialEq, Eq)]
enum AnswerState {
    #[default]
    Opening,
    Text,
    /// The string ended, or the reply is calls: nothing more streams.
    Done,
}

/// `{"answer": "` token by token (space allowed between them).
const ANSWER_OPENING: [&str; 4] = ["{", "\"answer\"", ":", "\""];

impl AnswerStream {
    pub fn push(&mut self, chunk: &str) -> String {
        match self.state {
            AnswerState::Done => String::new(),
            AnswerState::Text => self.decode(chunk),
            AnswerState::Opening => {
                self.head.push_str(chunk);
                let mut rest = self.head.as_str();
                for token in ANSWER_OPENING {
                    rest = rest.trim_start();
                    if rest.len() < token.len() {
                        if !token.starts_with(rest) {
                            self.state = AnswerState::Done;
                        }
                        return String::new();
                    }
                    let Some(after) = rest.strip_prefix(token) else {
                        self.state = AnswerState::Done;
                        return String::new();
                    };
                    rest = after;
                }
                let rest = rest.to_string();
                self.head.clear();
                self.state = AnswerState::Text;
                self.decode(&rest)
            }
        }
    }

    /// A JSON string's characters up to its closing quote.
    fn decode(&mut self, s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        for c in s.chars() {
            if self.state == AnswerState::Done {
                break;
            }
            if self.escape.is_empty() {
                match c {
                    '\\' => self.escape.push(c),
                    '"' => self.state = AnswerState::Done,
                    c => out.push(c),
                }
                continue;
            }
            self.escape.push(c);
            let e = self.escape.as_str();
            let decoded = match e {
                "\\n" => Some('\n'),
                "\\t" => Some('\t'),
                "\\r" => Some('\r'),
                "\\b" => Some('\u{8}'),
                "\\f" => Some('\u{c}'),
                "\\/" => Some('/'),
                "\\\\" => Some('\\'),
                "\\\"" => Some('"'),
                e if e.starts_with("\\u") && e.len() == 6 => {
                    let code = u32::from_str_radix(&e[2..], 16).unwrap_or(0xFFFD);
                    let ch = match (self.high.take(), code) {
                        (None, 0xD800..=0xDBFF) => {
                            self.high = Some(code);
                            None
                        }
                        (Some(h), 0xDC00..=0xDFFF) => {
                            char::from_u32(0x10000 + ((h - 0xD800) << 10) + (code - 0xDC00))
                        }
                        (_, code) => Some(char::from_u32(code).unwrap_or('\u{FFFD}')),
                    };
                    self.escape.clear();
                    if let Some(ch) = ch {
                        out.push(ch);
                    }
                    continue;
                }
                e if e.starts_with("\\u") => continue,
                _ => Some('\u{FFFD}'),
            };
            self.escape.clear();
            if let Some(ch) = decoded {
                out.push(ch);
            }
        }
        out
    }
}

/// Whether a whole fenced block (fences included) holds one call object.
fn fenced_call(block: &str) -> bool {
    let inner = block
        .strip_prefix(FENCE)
        .and_then(|b| b.strip_suffix(FENCE))
        .unwrap_or_default();
    let body = inner.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    serde_json::from_str::<Value>(body.trim())
        .ok()
        .as_ref()
        .and_then(call_of)
        .is_some()
}

/// How many bytes at the end of `s` could begin one of `markers` (held back until the next
/// chunk tells).
fn partial_suffix(s: &str, markers: &[&str]) -> usize {
    let mut best = 0;
    for m in markers {
        for n in (1..m.len().min(s.len() + 1)).rev() {
            if n > best
                && s.is_char_boundary(s.len() - n)
                && m.is_char_boundary(n)
                && m.starts_with(&s[s.len() - n..])
            {
                best = n;
                break;
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn any(_: &str) -> bool {
        true
    }

    fn calls(text: &str, mode: ToolCallsMode) -> Vec<(String, Value)> {
        extract(text, mode, &|n| n == "read_file" || n == "shell")
            .calls
            .into_iter()
            .map(|c| {
                let v = serde_json::from_str(&c.arguments).unwrap_or(Value::String(c.arguments));
                (c.name, v)
            })
            .collect()
    }

    fn one(name: &str, args: Value) -> Vec<(String, Value)> {
        vec![(name.to_string(), args)]
    }

    #[test]
    fn each_family_reads_back_the_calls_it_is_shown() {
        let args = r#"{"path":"src/a b.rs","offset":3,"all":true}"#;
        for (model, family) in [
            ("qwen2.5-coder:7b", Family::Hermes),
            ("Qwen3-Coder-30B-A3B-Instruct", Family::QwenCoder),
            ("devstral-small-2505", Family::Mistral),
            ("Meta-Llama-3.1-8B-Instruct", Family::Llama3),
        ] {
            assert_eq!(Family::of(model), family, "{model}");
            let written = written_call("read_file", args, family);
            let prompt = tools_prompt(&[], family);
            assert!(!prompt.is_empty());
            let got = extract(
                &format!("Reading it.\n{written}"),
                ToolCallsMode::Text,
                &|n: &str| n == "read_file",
            );
            assert_eq!(got.calls.len(), 1, "{family:?}: {written}");
            assert_eq!(got.calls[0].name, "read_file");
            let back: Option<Value> = serde_json::from_str(&got.calls[0].arguments).ok();
            let want: Option<Value> = serde_json::from_str(args).ok();
            assert!(want.is_some());
            assert_eq!(back, want, "{family:?}: {written}");
            assert_eq!(got.text.trim(), "Reading it.", "{family:?}");
        }
    }

    #[test]
    fn every_family_s_format_is_read() {
        let auto = ToolCallsMode::Auto;
        let want = one("read_file", serde_json::json!({"path": "a.rs"}));
        for text in [
            "Let me look.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.rs\"}}\n</tool_call>",
            "<tool_call>\n<function=read_file>\n<parameter=path>\na.rs\n</parameter>\n</function>\n</tool_call>",
            "[TOOL_CALLS][{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.rs\"}}]",
            "[TOOL_CALLS]read_file[ARGS]{\"path\": \"a.rs\"}",
            "<|python_tag|>{\"name\": \"read_file\", \"parameters\": {\"path\": \"a.rs\"}}<|eom_id|>",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"a.rs\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": \"a.rs\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            "<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"path\": \"a.rs\"}<|call|>",
        ] {
            assert_eq!(calls(text, auto), want, "{text}");
        }
        // Two calls in one reply, the text around them kept.
        let e = extract(
            "First <tool_call>{\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}</tool_call> then <tool_call>{\"name\":\"shell\",\"arguments\":\"{\\\"command\\\":\\\"ls\\\"}\"}</tool_call> done",
            auto,
            &any,
        );
        assert_eq!(e.calls.len(), 2);
        assert_eq!(e.calls[1].arguments, "{\"command\":\"ls\"}");
        assert_eq!(e.text, "First  then  done");
    }

    #[test]
    fn think_is_reasoning_and_a_broken_block_is_returned_not_run() {
        let e = extract(
            "<think>the file first</think>\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": }</tool_call>",
            ToolCallsMode::Auto,
            &any,
        );
        assert_eq!(e.reasoning, "the file first");
        assert_eq!(e.calls.len(), 1);
        assert_eq!(e.calls[0].name, "read_file");
        assert!(serde_json::from_str::<Value>(&e.calls[0].arguments).is_err());
        // A think the server's template opened.
        let e = extract("weighing it</think>The answer.", ToolCallsMode::Auto, &any);
        assert_eq!(
            (e.reasoning.as_str(), e.text.as_str()),
            ("weighing it", "The answer.")
        );
    }

    #[test]
    fn bare_json_runs_only_when_asked_for_and_only_as_the_whole_reply_or_last_block() {
        let whole = "{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.rs\"}}";
        let fenced = "I will read it.\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.rs\"}}\n```";
        let quoted = "The config holds {\"name\": \"read_file\", \"arguments\": {}} as an example.";
        let mid = "```json\n{\"name\": \"read_file\", \"arguments\": {}}\n```\nand then more prose";
        let unknown = "{\"name\": \"rm_everything\", \"arguments\": {}}";
        assert_eq!(calls(whole, ToolCallsMode::Text).len(), 1);
        let e = extract(fenced, ToolCallsMode::Text, &|n| n == "read_file");
        assert_eq!((e.calls.len(), e.text.as_str()), (1, "I will read it."));
        for (text, mode) in [
            (whole, ToolCallsMode::Auto),
            (whole, ToolCallsMode::Native),
            (fenced, ToolCallsMode::Auto),
            (quoted, ToolCallsMode::Text),
            (mid, ToolCallsMode::Text),
            (unknown, ToolCallsMode::Text),
        ] {
            assert!(calls(text, mode).is_empty(), "{mode:?}: {text}");
        }
        // Native: nothing written runs, the tags included.
        let tagged = "<tool_call>{\"name\": \"shell\", \"arguments\": {}}</tool_call>";
        assert!(calls(tagged, ToolCallsMode::Native).is_empty());
    }

    #[test]
    fn the_filter_streams_text_and_thinking_and_holds_the_calls() {
        fn take(f: &mut Filter, chunk: &str, text: &mut String, reasoning: &mut String) {
            match f.push(chunk) {
                Filtered::Pass => text.push_str(chunk),
                Filtered::Split {
                    text: t,
                    reasoning: r,
                } => {
                    text.push_str(&t);
                    reasoning.push_str(&r);
                }
            }
        }
        let run = |chunks: &[&str]| {
            let mut f = Filter::default();
            let (mut text, mut reasoning) = (String::new(), String::new());
            for c in chunks {
                take(&mut f, c, &mut text, &mut reasoning);
            }
            let (t, r) = f.finish();
            (text + &t, reasoning + &r)
        };
        let (text, reasoning) = run(&[
            "<thi",
            "nk>plan",
            "ning</th",
            "ink>Hello ",
            "wor",
            "ld <tool",
            "_call>{\"na",
            "me\"}",
        ]);
        assert_eq!(text, "Hello world ");
        assert_eq!(reasoning, "planning");
        // A `<` that opens nothing goes out; plain text passes untouched.
        let (text, _) = run(&["a < b and c <t", "ag> done", " plain words", " a cat"]);
        assert_eq!(text, "a < b and c <tag> done plain words a cat");
        assert_eq!(Filter::default().push("plain words"), Filtered::Pass);
        // Native calls only: a written call's syntax streams as text.
        let mut f = Filter::new(ToolCallsMode::Native);
        let mut native = String::new();
        let mut r = String::new();
        take(&mut f, "see <tool_call>{}</tool_call>", &mut native, &mut r);
        assert_eq!(native, "see <tool_call>{}</tool_call>");
        // Harmony's opener split across chunks is still held.
        let (text, _) = run(&["ok t", "o=func", "tions.shell <|message|>{}"]);
        assert_eq!(text, "ok ");
    }

    #[test]
    fn a_fenced_call_is_held_only_while_it_may_be_the_last_block() {
        fn streamed(chunks: &[&str]) -> String {
            let mut f = Filter::new(ToolCallsMode::Text);
            let mut out = String::new();
            for c in chunks {
                match f.push(c) {
                    Filtered::Pass => out.push_str(c),
                    Filtered::Split { text, .. } => out.push_str(&text),
                }
            }
            out.push_str(&f.finish().0);
            out
        }
        let call = [
            "Let me see.\n``",
            "`json\n{\"name\": \"list_files\", ",
            "\"arguments\": {}}\n``",
            "`\n",
        ];
        assert_eq!(streamed(&call), "Let me see.\n");
        let code = ["Like this:\n```rust\nfn main() {}\n", "```\nDone."];
        assert_eq!(streamed(&code), code.concat());
        let quoted = [
            "Example: ```{\"name\": \"x\", \"arguments\": {}}```",
            " and more.",
        ];
        assert_eq!(streamed(&quoted), quoted.concat());
        let unclosed = ["```json\n{\"name\""];
        assert_eq!(streamed(&unclosed), unclosed.concat());
        // Only a model asked to write its calls as text holds a fence.
        let mut f = Filter::new(ToolCallsMode::Auto);
        assert_eq!(f.push("```json\n{}"), Filtered::Pass);
    }

    #[test]
    fn a_reply_that_opens_with_json_is_held_whole_when_calls_are_text() {
        let mut f = Filter::new(ToolCallsMode::Text);
        let mut out = String::new();
        for c in [
            "<think>hm</think>",
            "  {\"name\": \"read_file\", ",
            "\"arguments\": {}}",
        ] {
            if let Filtered::Split { text, .. } = f.push(c) {
                out.push_str(&text);
            }
        }
        assert_eq!(out.trim(), "");
        assert_eq!(f.finish().0, "", "a call: left to the extraction");
        let mut f = Filter::new(ToolCallsMode::Text);
        assert!(
            matches!(f.push("{ not json"), Filtered::Split { ref text, .. } if text.is_empty())
        );
        assert_eq!(f.finish().0, "{ not json", "not a call: it was text");
        let mut f = Filter::new(ToolCallsMode::Text);
        assert!(matches!(f.push("Sure"), Filtered::Split { ref text, .. } if text == "Sure"));
        assert_eq!(f.push(", {x}"), Filtered::Pass, "after text, the fast path");
    }

    #[test]
    fn a_json_answer_streams_its_text_and_calls_stream_nothing() {
        fn streamed(chunks: &[&str]) -> String {
            let mut f = Filter::json_answer();
            let mut out = String::new();
            for c in chunks {
                if let Filtered::Split { text, .. } = f.push(c) {
                    out.push_str(&text);
                }
            }
            out
        }
        assert_eq!(
            streamed(&[
                " {\"ans",
                "wer\": \"Line one\\nsaid \\\"hi\\",
                "\" \\u00e9\\ud83d",
                "\\ude00\"}"
            ]),
            "Line one\nsaid \"hi\" é😀"
        );
        assert_eq!(
            streamed(&["{\"calls\": [{\"name\": \"x\", \"arguments\": {}}]}"]),
            ""
        );
        assert_eq!(streamed(&["{", " \"answer\" : \"ok\"} trailing"]), "ok");
    }
}
