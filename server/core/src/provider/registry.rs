//! The providers configured side by side (a local Ollama and Anthropic, each with its own key),
//! which one is the default, and which one a session's run talks to. Each entry holds one built
//! client; a session's own model travels in the request (`ChatRequest::model`), so picking a
//! model never rebuilds a client (and a replay script keeps its place).

use std::sync::Arc;

use super::{ChatRequest, EventStream, Provider, ProviderConfig, ProviderError, Unconfigured};
use crate::protocol::ProviderSource;

/// One configured provider.
pub struct Entry {
    pub id: String,
    pub config: ProviderConfig,
    /// The environment variable its key is read from (`apiKeyEnv`), if it names one.
    pub key_env: Option<String>,
    /// Whether it has a key (stored, from config, or from the environment); never reported.
    pub key_set: bool,
    pub source: ProviderSource,
    pub provider: Arc<dyn Provider>,
}

/// What a run talks to: the entry and the model name it sends.
#[derive(Clone)]
pub struct Resolved {
    pub entry: Arc<Entry>,
    pub model: String,
}

#[derive(Default)]
struct State {
    entries: Vec<Arc<Entry>>,
    default: Option<String>,
}

/// The providers, swappable at run time (Settings); the last one set wins from the next run.
#[derive(Default)]
pub struct Registry {
    state: parking_lot::RwLock<State>,
}

/// A provider id: 1 to 32 of `a-z 0-9 _ -`, starting with a letter or digit.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 32
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
        && id.as_bytes()[0].is_ascii_alphanumeric()
}

impl Registry {
    pub fn new(entries: Vec<Entry>, default: Option<String>) -> Registry {
        let r = Registry::default();
        {
            let mut s = r.state.write();
            s.entries = entries.into_iter().map(Arc::new).collect();
            s.default = default;
        }
        r
    }

    /// Every entry, in order, and the default's id.
    pub fn list(&self) -> (Vec<Arc<Entry>>, Option<String>) {
        let s = self.state.read();
        (s.entries.clone(), default_id(&s))
    }

    pub fn get(&self, id: &str) -> Option<Arc<Entry>> {
        self.state
            .read()
            .entries
            .iter()
            .find(|e| e.id == id)
            .cloned()
    }

    /// The provider a session without its own uses: the one set as default, else `default`,
    /// else the first configured.
    pub fn default_entry(&self) -> Option<Arc<Entry>> {
        let s = self.state.read();
        let id = default_id(&s)?;
        s.entries.iter().find(|e| e.id == id).cloned()
    }

    /// Add or replace an entry (in place, so the list keeps its order).
    pub fn put(&self, entry: Entry) {
        let mut s = self.state.write();
        let entry = Arc::new(entry);
        match s.entries.iter_mut().find(|e| e.id == entry.id) {
            Some(slot) => *slot = entry,
            None => s.entries.push(entry),
        }
    }

    pub fn remove(&self, id: &str) -> bool {
        let mut s = self.state.write();
        let before = s.entries.len();
        s.entries.retain(|e| e.id != id);
        before != s.entries.len()
    }

    pub fn set_default(&self, id: &str) {
        self.state.write().default = Some(id.to_string());
    }

    /// What a session's run talks to. A session naming a provider that is gone gets one that
    /// fails its first call with a clear message (the run fails; nothing else is talked to).
    pub fn resolve(&self, provider: Option<&str>, model: Option<&str>) -> Resolved {
        let entry = match provider {
            Some(id) => self.get(id).unwrap_or_else(|| Arc::new(missing(id))),
            None => self
                .default_entry()
                .unwrap_or_else(|| Arc::new(unconfigured())),
        };
        let model = model
            .map(str::to_string)
            .unwrap_or_else(|| entry.provider.model());
        Resolved { entry, model }
    }
}

fn default_id(s: &State) -> Option<String> {
    let has = |id: &str| s.entries.iter().any(|e| e.id == id);
    s.default
        .clone()
        .filter(|d| has(d))
        .or_else(|| has("default").then(|| "default".to_string()))
        .or_else(|| s.entries.first().map(|e| e.id.clone()))
}

fn unconfigured() -> Entry {
    Entry {
        id: String::new(),
        config: ProviderConfig::default(),
        key_env: None,
        key_set: false,
        source: ProviderSource::None,
        provider: Arc::new(Unconfigured),
    }
}

fn missing(id: &str) -> Entry {
    Entry {
        id: id.to_string(),
        config: ProviderConfig::default(),
        key_env: None,
        key_set: false,
        source: ProviderSource::None,
        provider: Arc::new(Missing(id.to_string())),
    }
}

/// A provider a session names that is not configured any more.
struct Missing(String);

impl Provider for Missing {
    fn stream(
        &self,
        _req: ChatRequest,
    ) -> futures::future::BoxFuture<'static, Result<EventStream, ProviderError>> {
        let id = self.0.clone();
        Box::pin(async move { Err(ProviderError::UnknownProvider(id)) })
    }
    fn list_models(
        &self,
    ) -> futures::future::BoxFuture<'static, Result<Vec<String>, ProviderError>> {
        let id = self.0.clone();
        Box::pin(async move { Err(ProviderError::UnknownProvider(id)) })
    }
    fn model(&self) -> String {
        String::new()
    }
}

#[cfg(test)]
#[expect(clippy::expect_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    fn entry(id: &str, model: &str) -> Entry {
        Entry {
            id: id.into(),
            config: ProviderConfig {
                kind: "openai".into(),
                base_url: Some("http://127.0.0.1:9/v1".into()),
                model: Some(model.into()),
                replay: None,
                api_mode: Default::default(),
            },
            key_env: None,
            key_set: false,
            source: ProviderSource::Settings,
            provider: Arc::new(
                super::super::openai::OpenAi::new(
                    "http://127.0.0.1:9/v1",
                    None,
                    model.into(),
                    super::super::NetPolicy::default(),
                )
                .expect("client"),
            ),
        }
    }

    #[test]
    fn default_resolution_and_session_choices() {
        let r = Registry::new(
            vec![entry("local", "llama3"), entry("cloud", "gpt-5")],
            None,
        );
        assert_eq!(
            r.list().1.as_deref(),
            Some("local"),
            "the first is the default"
        );
        let x = r.resolve(None, None);
        assert_eq!((x.entry.id.as_str(), x.model.as_str()), ("local", "llama3"));
        let x = r.resolve(Some("cloud"), Some("gpt-5-mini"));
        assert_eq!(
            (x.entry.id.as_str(), x.model.as_str()),
            ("cloud", "gpt-5-mini")
        );
        r.set_default("cloud");
        assert_eq!(r.resolve(None, None).entry.id, "cloud");
        r.put(entry("default", "m"));
        assert_eq!(
            r.resolve(None, None).entry.id,
            "cloud",
            "an explicit default wins"
        );
        assert!(r.remove("cloud"));
        assert_eq!(r.resolve(None, None).entry.id, "default");
        let gone = r.resolve(Some("cloud"), None);
        assert_eq!(gone.entry.id, "cloud");
        assert_eq!(gone.entry.source, ProviderSource::None);
    }

    #[test]
    fn ids() {
        for ok in ["a", "ollama", "anthropic-2", "x_y", "0"] {
            assert!(valid_id(ok), "{ok}");
        }
        for bad in ["", "-a", "A", "a b", "a/b", &"x".repeat(33)] {
            assert!(!valid_id(bad), "{bad}");
        }
    }
}
