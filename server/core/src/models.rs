//! What the server knows of a model: its context window and its price. Config
//! (`models."<provider>/<model>"`) first, then a built-in table of common models; a model on a
//! loopback endpoint (Ollama, llama.cpp…) costs nothing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::protocol::Usage;

/// USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Price {
    pub input: f64,
    pub output: f64,
    /// Input tokens read from the prompt cache; the input price when not given.
    #[serde(default)]
    pub cached_input: Option<f64>,
}

/// How a model's tool calls are read (`models."<provider>/<model>".toolCalls`; see
/// `provider::textcalls`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolCallsMode {
    /// Native calls only: nothing in the text runs.
    Native,
    /// The model writes its calls as text: every format, a bare JSON object included.
    Text,
    /// Native calls; when a reply has none, the tagged formats (never a bare JSON object).
    #[default]
    Auto,
}

impl ToolCallsMode {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolCallsMode::Native => "native",
            ToolCallsMode::Text => "text",
            ToolCallsMode::Auto => "auto",
        }
    }
}

/// Whether a model that writes its calls as text gets its output constrained to an answer or
/// calls (`models."<provider>/<model>".constrained`; see `provider::constrain`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Constrained {
    /// On when the server is recognised as llama.cpp, vLLM or Ollama; off for any other host.
    #[default]
    Auto,
    /// On: a server not recognised gets llama.cpp's GBNF `grammar`.
    On,
    Off,
}

/// How much of the tools' descriptions the prompt carries (`promptStyle`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PromptStyle {
    /// Every description whole.
    #[default]
    Full,
    /// One line per tool and per parameter, no examples: for small models.
    Compact,
}

/// One entry of `models` in config.json.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ModelOverride {
    pub context_window: Option<u64>,
    pub price: Option<Price>,
    /// Whether it takes images (the built-in list of vision models decides when not given).
    pub vision: Option<bool>,
    /// How its tool calls are read: `native`, `text` (it writes them as text) or `auto`.
    pub tool_calls: Option<ToolCallsMode>,
    /// Output constrained to an answer or calls (calls written as text only).
    pub constrained: Option<Constrained>,
    /// `full` or `compact` tool descriptions.
    pub prompt_style: Option<PromptStyle>,
    /// The most tokens one reply may take (`max_tokens`; Ollama's `num_predict`): a small
    /// local model can otherwise ramble until its window is full.
    pub max_output_tokens: Option<u64>,
}

/// Where a model's context window came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum WindowSource {
    /// `models.<provider>/<model>.contextWindow` in config.json.
    Config,
    /// The provider's model list (`context_length`, `max_model_len` … where it says).
    Provider,
    /// The built-in table of common models.
    Builtin,
    /// Unknown model: a conservative default (set `contextWindow` to correct it).
    Default,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelInfo {
    pub context_window: u64,
    pub window_source: WindowSource,
    /// `None`: no price known (its cost is reported as unknown).
    pub price: Option<Price>,
    /// It takes images in prompts.
    pub vision: bool,
    /// How its tool calls are read.
    pub tool_calls: ToolCallsMode,
    pub constrained: Constrained,
    pub prompt_style: PromptStyle,
    pub max_output_tokens: Option<u64>,
}

/// The window assumed for a model nobody describes.
pub const DEFAULT_WINDOW: u64 = 32_768;

/// (name prefix, context window, price per 1M tokens: input, output, cached input). Prices are
/// the providers' list prices when this table was written; config overrides them.
/// A built-in entry: name prefix, window, and (input, output, cached input) per 1M tokens.
type Builtin = (&'static str, u64, Option<(f64, f64, f64)>);

const BUILTIN: &[Builtin] = &[
    ("gpt-5-nano", 400_000, Some((0.05, 0.40, 0.005))),
    ("gpt-5-mini", 400_000, Some((0.25, 2.00, 0.025))),
    ("gpt-5", 400_000, Some((1.25, 10.00, 0.125))),
    ("gpt-4.1-nano", 1_047_576, Some((0.10, 0.40, 0.025))),
    ("gpt-4.1-mini", 1_047_576, Some((0.40, 1.60, 0.10))),
    ("gpt-4.1", 1_047_576, Some((2.00, 8.00, 0.50))),
    ("gpt-4o-mini", 128_000, Some((0.15, 0.60, 0.075))),
    ("gpt-4o", 128_000, Some((2.50, 10.00, 1.25))),
    ("gpt-4-turbo", 128_000, Some((10.00, 30.00, 10.00))),
    ("gpt-3.5-turbo", 16_385, Some((0.50, 1.50, 0.50))),
    ("o4-mini", 200_000, Some((1.10, 4.40, 0.275))),
    ("o3-mini", 200_000, Some((1.10, 4.40, 0.55))),
    ("o3", 200_000, Some((2.00, 8.00, 0.50))),
    ("o1", 200_000, Some((15.00, 60.00, 7.50))),
    ("claude-opus-4-5", 200_000, Some((5.00, 25.00, 0.50))),
    ("claude-opus-4", 200_000, Some((15.00, 75.00, 1.50))),
    ("claude-sonnet-4", 200_000, Some((3.00, 15.00, 0.30))),
    ("claude-3-7-sonnet", 200_000, Some((3.00, 15.00, 0.30))),
    ("claude-3-5-sonnet", 200_000, Some((3.00, 15.00, 0.30))),
    ("claude-haiku-4-5", 200_000, Some((1.00, 5.00, 0.10))),
    ("claude-3-5-haiku", 200_000, Some((0.80, 4.00, 0.08))),
    ("claude-3-haiku", 200_000, Some((0.25, 1.25, 0.03))),
    ("gemini-2.5-pro", 1_048_576, Some((1.25, 10.00, 0.31))),
    ("gemini-2.5-flash", 1_048_576, Some((0.30, 2.50, 0.075))),
    ("deepseek-chat", 128_000, None),
    ("deepseek-reasoner", 128_000, None),
    ("llama3.1", 131_072, None),
    ("llama3.2", 131_072, None),
    ("llama3.3", 131_072, None),
    ("qwen2.5-coder", 32_768, None),
    ("qwen3-coder", 262_144, None),
    ("qwen3", 40_960, None),
    ("gemma3", 131_072, None),
    ("mistral-small", 131_072, None),
    ("codestral", 262_144, None),
    ("gpt-oss", 131_072, None),
];

/// The catalog: config overrides plus the built-in table.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    overrides: BTreeMap<String, ModelOverride>,
}

impl Catalog {
    pub fn new(overrides: BTreeMap<String, ModelOverride>) -> Catalog {
        Catalog { overrides }
    }

    /// Whether config.json's `models` has an entry under exactly this name.
    pub fn has_override(&self, name: &str) -> bool {
        self.overrides.contains_key(name)
    }

    /// What is known of `model` served by `provider` (a kind: `openai`, `anthropic`…) at
    /// `base_url`. Config keys are `<provider>/<model>` or the bare model name.
    pub fn info(&self, provider: &str, model: &str, base_url: Option<&str>) -> ModelInfo {
        let over = self
            .overrides
            .get(&format!("{provider}/{model}"))
            .or_else(|| self.overrides.get(model));
        let builtin = builtin(model);
        let (context_window, window_source) = match (over.and_then(|o| o.context_window), builtin) {
            (Some(w), _) if w > 0 => (w, WindowSource::Config),
            (_, Some((_, w, _))) => (w, WindowSource::Builtin),
            _ => (DEFAULT_WINDOW, WindowSource::Default),
        };
        let price = over
            .and_then(|o| o.price)
            .or_else(|| {
                builtin.and_then(|(_, _, p)| {
                    p.map(|(input, output, cached)| Price {
                        input,
                        output,
                        cached_input: Some(cached),
                    })
                })
            })
            .or_else(|| {
                base_url.filter(|u| is_local(u)).map(|_| Price {
                    input: 0.0,
                    output: 0.0,
                    cached_input: None,
                })
            });
        let vision = over
            .and_then(|o| o.vision)
            .unwrap_or_else(|| provider == "replay" || takes_images(model));
        ModelInfo {
            context_window,
            window_source,
            price,
            vision,
            tool_calls: over.and_then(|o| o.tool_calls).unwrap_or_default(),
            constrained: over.and_then(|o| o.constrained).unwrap_or_default(),
            prompt_style: over.and_then(|o| o.prompt_style).unwrap_or_default(),
            max_output_tokens: over.and_then(|o| o.max_output_tokens).filter(|n| *n > 0),
        }
    }
}

/// The built-in entry whose name is the longest prefix of the model's (an `org/` prefix, as
/// OpenRouter writes them, is ignored).
fn builtin(model: &str) -> Option<Builtin> {
    let name = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    BUILTIN
        .iter()
        .filter(|(p, _, _)| name.starts_with(p))
        .max_by_key(|(p, _, _)| p.len())
        .copied()
}

/// Name prefixes of models that take images (an `org/` prefix is ignored).
const VISION: &[&str] = &[
    "gpt-5",
    "gpt-4.1",
    "gpt-4o",
    "gpt-4-turbo",
    "o1",
    "o3",
    "o4",
    "claude-3",
    "claude-sonnet-4",
    "claude-opus-4",
    "claude-haiku-4",
    "gemini",
    "gemma3",
    "llava",
    "bakllava",
    "llama3.2-vision",
    "llama4",
    "minicpm-v",
    "moondream",
    "pixtral",
    "qwen2.5vl",
    "qwen2.5-vl",
    "qwen3-vl",
    "mistral-small3.1",
    "mistral-small3.2",
    "mistral-medium",
];
/// …except these, which take text only.
const NOT_VISION: &[&str] = &["o1-mini", "o1-preview", "o3-mini", "gpt-5-chat-latest-text"];

/// Whether a model takes images, by its name: the list above, or `vision` / `-vl` in it.
fn takes_images(model: &str) -> bool {
    let name = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    if NOT_VISION.iter().any(|p| name.starts_with(p)) {
        return false;
    }
    VISION.iter().any(|p| name.starts_with(p)) || name.contains("vision") || name.contains("-vl")
}

/// A model served from this machine: its tokens cost nothing.
fn is_local(base_url: &str) -> bool {
    let Ok(u) = reqwest::Url::parse(base_url) else {
        return false;
    };
    match u.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(a)) => a.is_loopback(),
        Some(url::Host::Ipv6(a)) => a.is_loopback(),
        None => false,
    }
}

/// The cost of a usage at a price (`None` without a price).
pub fn cost(u: &Usage, price: Option<Price>) -> Option<f64> {
    let p = price?;
    let cached = u.cached_input_tokens.min(u.input_tokens);
    let fresh = u.input_tokens - cached;
    let per = 1_000_000.0;
    Some(
        fresh as f64 * p.input / per
            + cached as f64 * p.cached_input.unwrap_or(p.input) / per
            + u.output_tokens as f64 * p.output / per,
    )
}

#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    #[test]
    fn config_wins_then_the_longest_builtin_prefix_then_the_default() {
        let mut o = BTreeMap::new();
        o.insert(
            "openai/llama3.1:8b".to_string(),
            ModelOverride {
                context_window: Some(8_192),
                price: None,
                vision: None,
                tool_calls: Some(ToolCallsMode::Text),
                constrained: None,
                prompt_style: None,
                max_output_tokens: None,
            },
        );
        let c = Catalog::new(o);
        let i = c.info("openai", "llama3.1:8b", Some("http://127.0.0.1:11434/v1"));
        assert_eq!(i.tool_calls, ToolCallsMode::Text);
        assert_eq!(i.context_window, 8_192);
        assert_eq!(i.window_source, WindowSource::Config);
        assert_eq!(i.price.unwrap().input, 0.0, "a local model is free");
        let mini = c.info("openai", "gpt-4o-mini-2024-07-18", None);
        assert_eq!(mini.window_source, WindowSource::Builtin);
        assert_eq!(mini.price.unwrap().input, 0.15);
        let routed = c.info("openai", "anthropic/claude-sonnet-4.5", None);
        assert_eq!(routed.context_window, 200_000);
        let unknown = c.info("openai", "my-finetune", Some("https://api.example.com/v1"));
        assert_eq!(
            (unknown.context_window, unknown.window_source),
            (DEFAULT_WINDOW, WindowSource::Default)
        );
        assert!(unknown.price.is_none());
    }

    #[test]
    fn cached_tokens_are_billed_at_the_cached_price() {
        let p = Price {
            input: 3.0,
            output: 15.0,
            cached_input: Some(0.3),
        };
        let u = Usage {
            input_tokens: 1_000_000,
            output_tokens: 100_000,
            cached_input_tokens: 500_000,
            ..Usage::default()
        };
        let c = cost(&u, Some(p)).unwrap();
        assert!((c - (1.5 + 0.15 + 1.5)).abs() < 1e-9, "{c}");
        assert_eq!(cost(&u, None), None);
    }
}
