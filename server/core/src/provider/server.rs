//! What an OpenAI-compatible base URL is served by, and what it says of a model: llama.cpp's
//! `/props`, vLLM's `/version`, Ollama's `/api/version` and `/api/show`, LM Studio's
//! `/api/v0/models`. Asked once per provider and model, when a run first needs it (never at
//! start), concurrently and with a short timeout each; a host that answers none of them (or a
//! well-known cloud API, which is never asked) is `Other`.
//!
//! What it decides: `toolCalls: auto` (text when the server says the model takes no tools),
//! `constrained: auto` (on for llama.cpp, vLLM and Ollama), Ollama's own chat endpoint (which
//! takes `options.num_ctx`, as its OpenAI-compatible one does not), the window a local server
//! gives a model, and the model list's capabilities (`GET /api/models`).

use std::time::Duration;

use serde_json::{Value, json};

/// The software behind a base URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ServerKind {
    LlamaCpp,
    Vllm,
    Ollama,
    LmStudio,
    /// Not recognised (any other host, or one that is not asked).
    #[default]
    Other,
}

impl ServerKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ServerKind::LlamaCpp => "llama_cpp",
            ServerKind::Vllm => "vllm",
            ServerKind::Ollama => "ollama",
            ServerKind::LmStudio => "lm_studio",
            ServerKind::Other => "other",
        }
    }
}

/// What a server says of one model (`None`: it does not say).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerFacts {
    pub kind: ServerKind,
    /// The server's version, where it gives one (vLLM and Ollama).
    pub version: Option<String>,
    /// Whether the server takes `tools` for this model (llama.cpp's chat template caps,
    /// Ollama's and LM Studio's capabilities).
    pub tools: Option<bool>,
    /// The model's context window as the server gives it.
    pub context: Option<u64>,
    /// Whether it takes images.
    pub vision: Option<bool>,
    /// Its size on disk, in bytes (Ollama, LM Studio).
    pub size: Option<u64>,
    /// The server could not be reached at all (down, or not started yet): worth asking again.
    pub unreached: bool,
}

/// Each probe's limit: a local server answers in milliseconds, and a run waits for this once.
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// Hosts of cloud APIs, never probed (they are none of the local servers).
const CLOUDS: &[&str] = &[
    "api.openai.com",
    "api.anthropic.com",
    "openrouter.ai",
    "api.deepseek.com",
    "api.groq.com",
    "api.mistral.ai",
    "api.together.xyz",
    "api.fireworks.ai",
    "api.x.ai",
    "generativelanguage.googleapis.com",
    "api.cerebras.ai",
    "api.perplexity.ai",
];

/// The server's root: the base URL without its `/v1` (llama.cpp's `/props`, Ollama's `/api`
/// live beside it).
pub fn root_of(base: &str) -> &str {
    let b = base.trim_end_matches('/');
    b.strip_suffix("/v1").unwrap_or(b)
}

/// Whether a base URL is worth asking (not a well-known cloud API).
pub fn probed(base: &str) -> bool {
    let Ok(u) = reqwest::Url::parse(base) else {
        return false;
    };
    let host = u.host_str().unwrap_or_default().to_ascii_lowercase();
    !CLOUDS
        .iter()
        .any(|c| host == *c || host.ends_with(&format!(".{c}")))
}

/// GET or POST a JSON document within the probe's time; `None` for anything but a 200 JSON.
async fn fetch(rb: reqwest::RequestBuilder) -> Option<Value> {
    answer(rb).await.ok().flatten()
}

/// A JSON document, `Ok(None)` for an answer that is not one, `Err` when nothing answered.
async fn answer(rb: reqwest::RequestBuilder) -> Result<Option<Value>, ()> {
    let r = match tokio::time::timeout(PROBE_TIMEOUT, rb.timeout(PROBE_TIMEOUT).send()).await {
        Ok(Ok(r)) => r,
        _ => return Err(()),
    };
    if !r.status().is_success() {
        return Ok(None);
    }
    Ok(tokio::time::timeout(PROBE_TIMEOUT, r.json::<Value>())
        .await
        .ok()
        .and_then(Result::ok))
}

/// Ask the server behind `base` what it is and what it says of `model`.
pub async fn probe(
    client: &reqwest::Client,
    base: &str,
    key: Option<&str>,
    model: &str,
) -> ServerFacts {
    if !probed(base) {
        return ServerFacts::default();
    }
    let root = root_of(base);
    let get = |path: String| {
        let rb = client.get(path);
        match key {
            Some(k) => rb.bearer_auth(k),
            None => rb,
        }
    };
    let (ollama, props, version, lmstudio) = tokio::join!(
        answer(get(format!("{root}/api/version"))),
        answer(get(format!("{root}/props"))),
        answer(get(format!("{root}/version"))),
        answer(get(format!("{root}/api/v0/models"))),
    );
    if [&ollama, &props, &version, &lmstudio]
        .iter()
        .all(|a| a.is_err())
    {
        return ServerFacts {
            unreached: true,
            ..ServerFacts::default()
        };
    }
    let (ollama, props, version, lmstudio) = (
        ollama.ok().flatten(),
        props.ok().flatten(),
        version.ok().flatten(),
        lmstudio.ok().flatten(),
    );
    if let Some(v) = ollama.filter(|v| v.get("version").is_some_and(Value::is_string)) {
        let mut rb = client
            .post(format!("{root}/api/show"))
            .json(&json!({"model": model}));
        if let Some(k) = key {
            rb = rb.bearer_auth(k);
        }
        let show = fetch(rb).await;
        let mut f = show.as_ref().map(ollama_show).unwrap_or_default();
        f.kind = ServerKind::Ollama;
        f.version = v["version"].as_str().map(str::to_string);
        return f;
    }
    if let Some(p) = props.filter(|p| {
        p.get("default_generation_settings").is_some() || p.get("chat_template").is_some()
    }) {
        return llama_props(&p);
    }
    if let Some(l) = lmstudio.filter(|l| l.get("data").is_some_and(Value::is_array)) {
        return lmstudio_model(&l, model);
    }
    if let Some(v) = version.filter(|v| v.get("version").is_some_and(Value::is_string)) {
        return ServerFacts {
            kind: ServerKind::Vllm,
            version: v["version"].as_str().map(str::to_string),
            ..ServerFacts::default()
        };
    }
    ServerFacts::default()
}

/// A model a server lists, with what it says of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedModel {
    pub id: String,
    pub facts: ServerFacts,
}

impl ListedModel {
    /// As the API shows it (`GET /api/models`, `GET /api/setup/probe`).
    pub fn into_info(self) -> crate::protocol::ModelInfo {
        crate::protocol::ModelInfo {
            id: self.id,
            context_window: self.facts.context,
            tools: self.facts.tools,
            vision: self.facts.vision,
            size_bytes: self.facts.size,
        }
    }
}

/// The most models whose details are asked one by one (Ollama's `/api/show`).
const MAX_DETAILED: usize = 50;

/// The models a server lists (`listed`: the ids of `/v1/models` and the windows it gives),
/// with their sizes and capabilities where the server says: Ollama's `/api/tags` and
/// `/api/show`, llama.cpp's `/props`, LM Studio's `/api/v0/models`; vLLM's and others' windows
/// from the list itself.
pub async fn describe(
    client: &reqwest::Client,
    base: &str,
    key: Option<&str>,
    listed: Vec<(String, Option<u64>)>,
) -> Vec<ListedModel> {
    let first = listed.first().map(|(id, _)| id.clone()).unwrap_or_default();
    let facts = probe(client, base, key, &first).await;
    let root = root_of(base);
    let with_key = |rb: reqwest::RequestBuilder| match key {
        Some(k) => rb.bearer_auth(k),
        None => rb,
    };
    match facts.kind {
        ServerKind::Ollama => {
            let tags = fetch(with_key(client.get(format!("{root}/api/tags")))).await;
            let names: Vec<(String, Option<u64>)> = tags
                .as_ref()
                .and_then(|t| t["models"].as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|m| Some((m["name"].as_str()?.to_string(), m["size"].as_u64())))
                        .collect()
                })
                .unwrap_or_else(|| listed.iter().map(|(id, _)| (id.clone(), None)).collect());
            let shown = names.into_iter().take(MAX_DETAILED).map(|(name, size)| {
                let rb = with_key(
                    client
                        .post(format!("{root}/api/show"))
                        .json(&json!({"model": name})),
                );
                async move {
                    let mut f = fetch(rb)
                        .await
                        .as_ref()
                        .map(ollama_show)
                        .unwrap_or_default();
                    f.kind = ServerKind::Ollama;
                    f.size = f.size.or(size);
                    ListedModel { id: name, facts: f }
                }
            });
            futures::future::join_all(shown).await
        }
        ServerKind::LlamaCpp => listed
            .into_iter()
            .map(|(id, _)| ListedModel {
                id,
                facts: facts.clone(),
            })
            .collect(),
        ServerKind::LmStudio => {
            let list = fetch(with_key(client.get(format!("{root}/api/v0/models")))).await;
            listed
                .into_iter()
                .map(|(id, context)| {
                    let mut f = list
                        .as_ref()
                        .map(|l| lmstudio_model(l, &id))
                        .unwrap_or_default();
                    f.context = f.context.or(context);
                    ListedModel { id, facts: f }
                })
                .collect()
        }
        kind @ (ServerKind::Vllm | ServerKind::Other) => listed
            .into_iter()
            .map(|(id, context)| ListedModel {
                id,
                facts: ServerFacts {
                    kind,
                    context,
                    ..ServerFacts::default()
                },
            })
            .collect(),
    }
}

/// Tokens of `text` by the server's own tokenizer: llama.cpp's `/tokenize`, vLLM's
/// `/tokenize`, llama-cpp-python's `/extras/tokenize/count` (a server not recognised is asked
/// there, then at `/tokenize`). `None`: it has none (or did not answer in time).
pub async fn tokens(
    client: &reqwest::Client,
    root: &str,
    key: Option<&str>,
    kind: ServerKind,
    model: &str,
    text: String,
) -> Option<u64> {
    let asks: Vec<(String, Value)> = match kind {
        ServerKind::LlamaCpp => vec![(format!("{root}/tokenize"), json!({"content": text}))],
        ServerKind::Vllm => vec![(
            format!("{root}/tokenize"),
            json!({"model": model, "prompt": text}),
        )],
        ServerKind::Other => vec![
            (
                format!("{root}/extras/tokenize/count"),
                json!({"input": text}),
            ),
            (format!("{root}/tokenize"), json!({"content": text})),
        ],
        ServerKind::Ollama | ServerKind::LmStudio => return None,
    };
    for (url, body) in asks {
        let mut rb = client.post(url).json(&body);
        if let Some(k) = key {
            rb = rb.bearer_auth(k);
        }
        if let Some(v) = fetch(rb).await {
            let n = v.get("count").and_then(Value::as_u64).or_else(|| {
                v.get("tokens")
                    .and_then(Value::as_array)
                    .map(|t| t.len() as u64)
            });
            if n.is_some() {
                return n;
            }
        }
    }
    None
}

/// llama.cpp's `/props`: the loaded model's window, its template's tool support (a server
/// started without `--jinja`, or a template that cannot take tools, says false or nothing —
/// either way, no tools), and whether it takes images.
pub fn llama_props(p: &Value) -> ServerFacts {
    let caps = p.get("chat_template_caps");
    let flag = |k: &str| caps.and_then(|c| c.get(k)).and_then(Value::as_bool);
    let tools = match (flag("supports_tools"), flag("supports_tool_calls")) {
        (Some(a), Some(b)) => a && b,
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => false,
    };
    ServerFacts {
        kind: ServerKind::LlamaCpp,
        version: p
            .get("build_info")
            .and_then(Value::as_str)
            .map(str::to_string),
        tools: Some(tools),
        context: p
            .pointer("/default_generation_settings/n_ctx")
            .or_else(|| p.get("n_ctx"))
            .and_then(Value::as_u64)
            .filter(|n| *n > 0),
        vision: p.pointer("/modalities/vision").and_then(Value::as_bool),
        size: None,
        unreached: false,
    }
}

/// Ollama's `/api/show`: `capabilities` (`tools`, `vision`) and the architecture's
/// `<arch>.context_length` in `model_info`.
pub fn ollama_show(s: &Value) -> ServerFacts {
    let caps: Vec<&str> = s
        .get("capabilities")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let context = s
        .get("model_info")
        .and_then(Value::as_object)
        .and_then(|m| {
            m.iter()
                .find(|(k, _)| k.ends_with(".context_length"))
                .and_then(|(_, v)| v.as_u64())
        });
    let said = s.get("capabilities").is_some();
    ServerFacts {
        kind: ServerKind::Ollama,
        version: None,
        tools: said.then(|| caps.contains(&"tools")),
        context,
        vision: said.then(|| caps.contains(&"vision")),
        size: s.get("size").and_then(Value::as_u64),
        unreached: false,
    }
}

/// LM Studio's `/api/v0/models` entry for `model`: `max_context_length`, `type` (`vlm` takes
/// images), `capabilities` (`tool_use`).
pub fn lmstudio_model(list: &Value, model: &str) -> ServerFacts {
    let entry = list["data"]
        .as_array()
        .and_then(|a| a.iter().find(|m| m["id"] == model));
    let mut f = ServerFacts {
        kind: ServerKind::LmStudio,
        ..ServerFacts::default()
    };
    if let Some(m) = entry {
        f.context = m.get("max_context_length").and_then(Value::as_u64);
        f.vision = m.get("type").and_then(Value::as_str).map(|t| t == "vlm");
        f.tools = m
            .get("capabilities")
            .and_then(Value::as_array)
            .map(|c| c.iter().any(|x| x == "tool_use"));
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_server_s_documented_answer_is_read() {
        let p = json!({"default_generation_settings": {"n_ctx": 8192}, "chat_template": "…",
            "chat_template_caps": {"supports_tools": false, "supports_tool_calls": false},
            "modalities": {"vision": false}, "build_info": "b6000-abc"});
        let f = llama_props(&p);
        assert_eq!(
            (f.kind, f.tools, f.context, f.vision),
            (ServerKind::LlamaCpp, Some(false), Some(8192), Some(false))
        );
        let with_tools = json!({"chat_template": "…", "chat_template_caps": {"supports_tools": true, "supports_tool_calls": true}});
        assert_eq!(llama_props(&with_tools).tools, Some(true));
        let show = json!({"capabilities": ["completion", "tools"], "size": 4_920_753_328_u64,
            "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768}});
        let f = ollama_show(&show);
        assert_eq!(
            (f.tools, f.context, f.vision, f.size),
            (Some(true), Some(32768), Some(false), Some(4_920_753_328))
        );
        let old = json!({"model_info": {"llama.context_length": 131072}});
        assert_eq!(ollama_show(&old).tools, None, "an old Ollama says nothing");
        let lm = json!({"data": [{"id": "qwen2-vl", "type": "vlm", "max_context_length": 32768, "capabilities": ["tool_use"]}]});
        let f = lmstudio_model(&lm, "qwen2-vl");
        assert_eq!(
            (f.tools, f.context, f.vision),
            (Some(true), Some(32768), Some(true))
        );
    }

    #[test]
    fn roots_and_clouds() {
        assert_eq!(
            root_of("http://127.0.0.1:11434/v1"),
            "http://127.0.0.1:11434"
        );
        assert_eq!(root_of("http://127.0.0.1:8080/"), "http://127.0.0.1:8080");
        assert!(!probed("https://api.openai.com/v1"));
        assert!(!probed("https://eu.api.openai.com/v1"));
        assert!(probed("http://127.0.0.1:8080/v1"));
        assert!(probed("http://gpu-box.lan:8000/v1"));
    }
}
