//! The model providers: several side by side, one of them the default, each session free to
//! pick its own `{provider, model}`. One source of truth for what runs: start flags (or the
//! config file's `provider`) give the `default` entry at start, config.json's `providers` list
//! gives more, and Settings adds, replaces and removes entries at run time (stored, so they
//! survive a restart). `GET /api/settings/provider` reports the default entry exactly as it
//! runs, and from where.

use std::sync::Arc;

use super::{Core, ServiceError, ServiceResult};
use crate::config::Config;
use crate::protocol::{
    ProviderList, ProviderSettingsParams, ProviderSettingsView, ProviderSource, ProviderView,
};
use crate::provider::registry::{Entry, Registry, valid_id};
use crate::provider::{self, NetPolicy, ProviderConfig};
use crate::store::{Store, StoreResult};

/// The `default` entry's configuration, as last set through Settings.
pub const SETTING_PROVIDER: &str = "provider";
/// The `default` entry's key.
pub const SETTING_API_KEY: &str = "provider.api_key";
/// The other entries added through Settings (`[{id, config, key_env}]`).
const SETTING_PROVIDERS: &str = "providers";
/// The default entry's id, when one was chosen.
const SETTING_DEFAULT: &str = "provider.default";
/// The id flags, config.json's `provider` and `PUT /api/settings/provider` give their entry.
pub const DEFAULT_ID: &str = "default";

/// Longest API key accepted.
const MAX_KEY_BYTES: usize = 4096;

/// `POST /api/providers/test` owns this path segment: no provider is saved under this id.
pub const TEST_ID: &str = "test";
/// A provider test waits this long at most, in all…
const TEST_WAIT: std::time::Duration = std::time::Duration::from_secs(5);
/// …and reads at most this much of the model list.
const TEST_LIST_BYTES: usize = 1024 * 1024;

/// A base URL as a saved provider and a form compare it: blank is the default, a trailing `/`
/// does not count.
fn same_url(a: Option<&str>, b: Option<&str>) -> bool {
    let norm = |u: Option<&str>| {
        u.map(|u| u.trim().trim_end_matches('/').to_string())
            .filter(|u| !u.is_empty())
    };
    norm(a) == norm(b)
}

fn key_setting(id: &str) -> String {
    if id == DEFAULT_ID {
        SETTING_API_KEY.to_string()
    } else {
        format!("provider.{id}.api_key")
    }
}

async fn stored_key(store: &Store, id: &str) -> StoreResult<Option<String>> {
    Ok(store
        .get_secret(&key_setting(id))
        .await?
        .filter(|k| !k.is_empty()))
}

/// An entry added through Settings, as stored.
#[derive(serde::Serialize, serde::Deserialize)]
struct StoredEntry {
    id: String,
    config: ProviderConfig,
    #[serde(default)]
    key_env: Option<String>,
}

/// Where an entry's key comes from, first found wins: stored through Settings, the variable
/// `key_env` names, the config file's `key`, then the kind's usual variable (in `build`).
struct KeySources<'a> {
    stored: Option<String>,
    env: Option<&'a str>,
    literal: Option<&'a str>,
}

impl KeySources<'_> {
    fn key(&self) -> Option<String> {
        self.stored
            .clone()
            .or_else(|| {
                self.env
                    .and_then(crate::secret_env::var)
                    .filter(|k| !k.is_empty())
            })
            .or_else(|| self.literal.map(str::to_string).filter(|k| !k.is_empty()))
    }
}

/// The kind's usual environment variable's key, if set.
fn usual_key(kind: &str) -> Option<String> {
    let var = match kind {
        "openai" => "OPENAI_API_KEY",
        "anthropic" => "ANTHROPIC_API_KEY",
        _ => return None,
    };
    crate::secret_env::var(var).filter(|k| !k.is_empty())
}

fn usual_key_set(kind: &str) -> bool {
    usual_key(kind).is_some()
}

fn build_entry(
    id: &str,
    config: ProviderConfig,
    keys: &KeySources<'_>,
    source: ProviderSource,
    net: NetPolicy,
) -> Result<Entry, String> {
    let key = keys.key();
    let key_set = key.is_some() || usual_key_set(&config.kind);
    let provider = provider::build(&config, key, net)?;
    Ok(Entry {
        id: id.to_string(),
        config,
        key_env: keys.env.map(str::to_string),
        key_set,
        source,
        provider,
    })
}

async fn stored_entries(store: &Store) -> anyhow::Result<Vec<StoredEntry>> {
    match store.get_setting(SETTING_PROVIDERS).await? {
        Some(s) if !s.is_empty() => serde_json::from_str(&s)
            .map_err(|e| anyhow::anyhow!("the stored providers setting is unreadable: {e}")),
        _ => Ok(Vec::new()),
    }
}

/// The providers a server or a headless run starts with.
pub async fn initial_providers(
    cfg: &Config,
    store: &Store,
    net: NetPolicy,
) -> anyhow::Result<Registry> {
    let mut entries: Vec<Entry> = Vec::new();
    let default_cfg = match &cfg.provider {
        Some(p) => Some((
            ProviderConfig {
                kind: p.kind.clone(),
                base_url: p.base_url.clone(),
                model: p.model.clone(),
                replay: p.replay.as_ref().map(|r| r.to_string_lossy().into_owned()),
                api_mode: p.api_mode,
            },
            ProviderSource::Flags,
        )),
        None => match store.get_setting(SETTING_PROVIDER).await? {
            Some(s) if !s.is_empty() => Some((
                serde_json::from_str::<ProviderConfig>(&s).map_err(|e| {
                    anyhow::anyhow!("the stored provider setting is unreadable: {e}")
                })?,
                ProviderSource::Settings,
            )),
            _ => None,
        },
    };
    if let Some((config, source)) = default_cfg.filter(|(c, _)| !c.kind.is_empty()) {
        let keys = KeySources {
            stored: stored_key(store, DEFAULT_ID).await?,
            env: None,
            literal: None,
        };
        entries.push(
            build_entry(DEFAULT_ID, config, &keys, source, net).map_err(|e| anyhow::anyhow!(e))?,
        );
    }
    for p in &cfg.providers {
        if entries.iter().any(|e| e.id == p.id) {
            continue;
        }
        let config = ProviderConfig {
            kind: p.kind.clone(),
            base_url: p.base_url.clone(),
            model: p.model.clone(),
            replay: None,
            api_mode: p.api_mode,
        };
        let keys = KeySources {
            stored: stored_key(store, &p.id).await?,
            env: p.api_key_env.as_deref(),
            literal: p.key.as_deref(),
        };
        entries.push(
            build_entry(&p.id, config, &keys, ProviderSource::Config, net)
                .map_err(|e| anyhow::anyhow!("config.json: provider {:?}: {e}", p.id))?,
        );
    }
    for s in stored_entries(store).await? {
        if entries.iter().any(|e| e.id == s.id) {
            continue;
        }
        let keys = KeySources {
            stored: stored_key(store, &s.id).await?,
            env: s.key_env.as_deref(),
            literal: None,
        };
        match build_entry(&s.id, s.config, &keys, ProviderSource::Settings, net) {
            Ok(e) => entries.push(e),
            Err(e) => tracing::warn!(id = %s.id, "a stored provider cannot be built: {e}"),
        }
    }
    let default = store.get_setting(SETTING_DEFAULT).await?;
    Ok(Registry::new(entries, default))
}

/// Check a Settings change completely before anything is stored.
fn validate(p: &ProviderSettingsParams) -> ServiceResult<ProviderConfig> {
    if !matches!(p.kind.as_str(), "openai" | "anthropic") {
        return Err(ServiceError::Invalid(
            "kind must be `openai` or `anthropic` (replay is set with --replay at start)".into(),
        ));
    }
    let base_url = p.base_url.clone().filter(|u| !u.trim().is_empty());
    if let Some(u) = &base_url {
        if !u.starts_with("http://") && !u.starts_with("https://") {
            return Err(ServiceError::Invalid(
                "base_url must start with http:// or https://".into(),
            ));
        }
        let parsed = reqwest::Url::parse(u)
            .map_err(|e| ServiceError::Invalid(format!("base_url is not a URL: {e}")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(ServiceError::Invalid(
                "base_url must be http or https".into(),
            ));
        }
    }
    let model = p.model.clone().filter(|m| !m.trim().is_empty());
    if model.is_none() {
        return Err(ServiceError::Invalid("model is required".into()));
    }
    if p.api_key.as_ref().is_some_and(|k| k.len() > MAX_KEY_BYTES) {
        return Err(ServiceError::Invalid("api_key is too long".into()));
    }
    if let Some(v) = &p.api_key_env
        && !valid_env_name(v)
    {
        return Err(ServiceError::Invalid(
            "api_key_env must be an environment variable name (letters, digits and _, not starting with a digit, at most 128)".into(),
        ));
    }
    let api_mode = p.api_mode.unwrap_or_default();
    if api_mode == crate::protocol::ApiMode::Responses && p.kind != "openai" {
        return Err(ServiceError::Invalid(
            "api_mode `responses` is for openai providers".into(),
        ));
    }
    Ok(ProviderConfig {
        kind: p.kind.clone(),
        base_url,
        model,
        replay: None,
        api_mode,
    })
}

fn valid_env_name(v: &str) -> bool {
    !v.is_empty()
        && v.len() <= 128
        && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !v.as_bytes()[0].is_ascii_digit()
}

fn list_view(entries: &[Arc<Entry>], default: Option<String>) -> ProviderList {
    ProviderList {
        data: entries
            .iter()
            .map(|e| view(e, default.as_deref()))
            .collect(),
        default,
    }
}

fn view(e: &Entry, default: Option<&str>) -> ProviderView {
    ProviderView {
        id: e.id.clone(),
        kind: e.config.kind.clone(),
        base_url: e.config.base_url.clone(),
        model: e.config.model.clone().or_else(|| {
            // A replay script has no configured model name; report what it answers as.
            Some(e.provider.model()).filter(|m| !m.is_empty())
        }),
        api_key_set: e.key_set,
        api_key_env: e.key_env.clone(),
        source: e.source,
        default: default == Some(e.id.as_str()),
        model_server: None,
        api_mode: e.config.api_mode,
    }
}

use crate::provider::server::ListedModel;

/// How long `GET /api/providers` waits for a model server to say what it is.
const LISTING_WAIT: std::time::Duration = std::time::Duration::from_millis(1500);

impl Core {
    pub fn providers(&self) -> &Arc<Registry> {
        &self.env.provider
    }

    /// What runs now for a session without its own choice, and where it came from.
    pub async fn provider_settings(&self) -> ServiceResult<ProviderSettingsView> {
        Ok(match self.providers().default_entry() {
            Some(e) => ProviderSettingsView {
                kind: e.config.kind.clone(),
                base_url: e.config.base_url.clone(),
                model: e.config.model.clone(),
                api_key_set: e.key_set,
                source: e.source,
                api_mode: e.config.api_mode,
            },
            None => ProviderSettingsView {
                kind: String::new(),
                base_url: None,
                model: None,
                api_key_set: false,
                source: ProviderSource::None,
                api_mode: Default::default(),
            },
        })
    }

    /// Change the default provider (the `default` entry, made the default): validated and
    /// built first (a bad change stores nothing), then stored and used from the next run.
    pub async fn set_provider(
        &self,
        p: &ProviderSettingsParams,
    ) -> ServiceResult<ProviderSettingsView> {
        self.put_provider(DEFAULT_ID, p).await?;
        self.set_default_provider(DEFAULT_ID).await?;
        self.provider_settings().await
    }

    /// Every provider, and which is the default.
    pub fn provider_list(&self) -> ProviderList {
        let (entries, default) = self.providers().list();
        list_view(&entries, default)
    }

    /// Every provider, and which is the default, each OpenAI-compatible one with what its
    /// server is and does for its default model (asked of the servers at once, each once; one
    /// that does not answer within 1.5 s is listed without it; see `provider::server`).
    pub async fn provider_list_probed(&self) -> ProviderList {
        // One snapshot of the providers: the views and the servers asked are the same ones.
        let (entries, default) = self.providers().list();
        let mut list = list_view(&entries, default);
        let asked = entries.iter().zip(list.data.iter()).map(|(e, v)| {
            let models = &self.cfg.models;
            async move {
                let model = v.model.clone()?;
                if e.config.kind != "openai" {
                    return None;
                }
                let r = crate::provider::registry::Resolved {
                    entry: e.clone(),
                    model,
                };
                let mut m = crate::agent::context::ModelMeta::resolved(r, models);
                // A server that does not answer soon (a machine that is down) is left out of
                // this listing rather than holding it up.
                tokio::time::timeout(LISTING_WAIT, m.learn()).await.ok()?;
                Some(m.server_view())
            }
        });
        let views = futures::future::join_all(asked).await;
        for (v, s) in list.data.iter_mut().zip(views) {
            v.model_server = s;
        }
        list
    }

    /// Test what a provider form says before saving it: build a provider from it (nothing is
    /// stored) and ask it for its models, within 5 s and 1 MiB, following no redirect. A key
    /// typed in the form goes to the form's URL; a saved provider's key (`id`) only to the URL
    /// and kind it was saved with; otherwise no key at all (never the server's environment's).
    pub async fn test_provider(
        &self,
        t: &crate::protocol::ProviderTestParams,
    ) -> ServiceResult<crate::protocol::ProviderTestResult> {
        use crate::protocol::TestKey;
        let form = ProviderSettingsParams {
            kind: t.kind.clone(),
            base_url: t.base_url.clone(),
            // A model is not needed to list models: any name builds the provider.
            model: Some(
                t.model
                    .clone()
                    .filter(|m| !m.trim().is_empty())
                    .unwrap_or_else(|| "-".into()),
            ),
            api_key: t.api_key.clone(),
            api_key_env: None,
            api_mode: t.api_mode,
        };
        let config = validate(&form)?;
        let saved = match t.id.as_deref() {
            Some(id) => Some(
                self.providers()
                    .get(id)
                    .ok_or(ServiceError::NotFound("provider"))?,
            ),
            None => None,
        };
        let typed = t.api_key.clone().filter(|k| !k.is_empty());
        let (key, used) = match (typed, saved) {
            (Some(k), _) => (k, TestKey::Typed),
            (None, Some(e))
                if e.config.kind == config.kind
                    && same_url(e.config.base_url.as_deref(), config.base_url.as_deref()) =>
            {
                let stored = stored_key(&self.store, &e.id).await?;
                let keys = KeySources {
                    stored,
                    env: e.key_env.as_deref(),
                    literal: None,
                };
                match keys.key().or_else(|| usual_key(&config.kind)) {
                    Some(k) => (k, TestKey::Saved),
                    None => (String::new(), TestKey::None),
                }
            }
            // An empty key: none is sent, and the environment's is not looked up either.
            _ => (String::new(), TestKey::None),
        };
        let net = NetPolicy {
            connect: TEST_WAIT,
            first_byte: TEST_WAIT,
            max_retries: 0,
            list_bytes: TEST_LIST_BYTES,
            ..self.env.cfg.network.policy()
        };
        let provider = provider::build(&config, Some(key), net).map_err(ServiceError::Invalid)?;
        let listed = tokio::time::timeout(TEST_WAIT, provider.describe_models())
            .await
            .map_err(|_| ServiceError::Upstream("no answer within 5 s".into()))?
            .map_err(|e| ServiceError::Upstream(e.to_string()))?;
        let data: Vec<crate::protocol::ModelInfo> =
            listed.into_iter().map(ListedModel::into_info).collect();
        let model_listed = t
            .model
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(|m| data.iter().any(|x| x.id == m));
        Ok(crate::protocol::ProviderTestResult {
            data,
            key: used,
            model_listed,
        })
    }

    /// Add or replace the provider `id` (validated and built before anything is stored).
    pub async fn put_provider(
        &self,
        id: &str,
        p: &ProviderSettingsParams,
    ) -> ServiceResult<ProviderView> {
        if id == TEST_ID {
            return Err(ServiceError::Invalid(
                "`test` is not a provider id: POST /api/providers/test tests a provider".into(),
            ));
        }
        if !valid_id(id) {
            return Err(ServiceError::Invalid(
                "a provider id is 1 to 32 of a-z 0-9 _ - (starting with a letter or digit)".into(),
            ));
        }
        let config = validate(p)?;
        let stored = match &p.api_key {
            Some(k) => Some(k.clone()).filter(|k| !k.is_empty()),
            None => stored_key(&self.store, id).await?,
        };
        let keys = KeySources {
            stored,
            env: p.api_key_env.as_deref(),
            literal: None,
        };
        let entry = build_entry(
            id,
            config.clone(),
            &keys,
            ProviderSource::Settings,
            self.env.cfg.network.policy(),
        )
        .map_err(ServiceError::Invalid)?;
        if let Some(k) = &p.api_key {
            if k.is_empty() {
                self.store.put_setting(&key_setting(id), "").await?;
            } else {
                self.store.put_secret(&key_setting(id), k).await?;
            }
        }
        if id == DEFAULT_ID {
            let json = serde_json::to_string(&config)
                .map_err(|e| crate::store::StoreError::Other(e.into()))?;
            self.store.put_setting(SETTING_PROVIDER, &json).await?;
        } else {
            let mut list = stored_entries(&self.store)
                .await
                .map_err(crate::store::StoreError::Other)?;
            list.retain(|s| s.id != id);
            list.push(StoredEntry {
                id: id.to_string(),
                config,
                key_env: p.api_key_env.clone(),
            });
            self.store_entries(&list).await?;
        }
        self.providers().put(entry);
        let default = self.providers().list().1;
        let e = self
            .providers()
            .get(id)
            .ok_or(ServiceError::NotFound("provider"))?;
        Ok(view(&e, default.as_deref()))
    }

    async fn store_entries(&self, list: &[StoredEntry]) -> ServiceResult<()> {
        let json =
            serde_json::to_string(list).map_err(|e| crate::store::StoreError::Other(e.into()))?;
        self.store.put_setting(SETTING_PROVIDERS, &json).await?;
        Ok(())
    }

    /// Remove a provider added through Settings. The default one, and one config.json or the
    /// start flags define, are refused (they would come back at the next start).
    pub async fn delete_provider(&self, id: &str) -> ServiceResult<()> {
        let e = self
            .providers()
            .get(id)
            .ok_or(ServiceError::NotFound("provider"))?;
        if self.providers().list().1.as_deref() == Some(id) {
            return Err(ServiceError::Refused {
                code: "provider_is_default",
                message: format!("`{id}` is the default provider: make another the default first"),
            });
        }
        if matches!(e.source, ProviderSource::Config | ProviderSource::Flags) {
            return Err(ServiceError::Refused {
                code: "provider_from_config",
                message: format!(
                    "`{id}` comes from the start flags or config.json: remove it there"
                ),
            });
        }
        if id == DEFAULT_ID {
            self.store.put_setting(SETTING_PROVIDER, "").await?;
        }
        let mut list = stored_entries(&self.store)
            .await
            .map_err(crate::store::StoreError::Other)?;
        list.retain(|s| s.id != id);
        self.store_entries(&list).await?;
        self.store.put_setting(&key_setting(id), "").await?;
        self.providers().remove(id);
        Ok(())
    }

    /// Make `id` the provider sessions without their own choice use.
    pub async fn set_default_provider(&self, id: &str) -> ServiceResult<ProviderList> {
        if self.providers().get(id).is_none() {
            return Err(ServiceError::NotFound("provider"));
        }
        self.store.put_setting(SETTING_DEFAULT, id).await?;
        self.providers().set_default(id);
        Ok(self.provider_list())
    }

    /// The models a provider reports (the default one without `id`), with what a local server
    /// says of each (window, tools, images, size); also a connection test.
    pub async fn list_models(
        &self,
        id: Option<&str>,
    ) -> ServiceResult<Vec<crate::protocol::ModelInfo>> {
        let entry = match id {
            Some(id) => self
                .providers()
                .get(id)
                .ok_or(ServiceError::NotFound("provider"))?,
            None => self.providers().resolve(None, None).entry,
        };
        let listed = entry
            .provider
            .describe_models()
            .await
            .map_err(|e| ServiceError::Upstream(e.to_string()))?;
        Ok(listed.into_iter().map(ListedModel::into_info).collect())
    }
}
