//! The model provider: one source of truth for what runs. Start flags (or the config file) apply
//! at start; without them, what was last set through Settings; a Settings change replaces the
//! running provider at once. `GET /api/settings/provider` reports exactly what runs, and from where.

use super::{Core, ServiceError, ServiceResult};
use crate::agent::ActiveProvider;
use crate::config::Config;
use crate::protocol::{ProviderSettingsParams, ProviderSettingsView, ProviderSource};
use crate::provider::{self, NetPolicy, ProviderConfig};
use crate::store::{Store, StoreResult};

pub const SETTING_PROVIDER: &str = "provider";
pub const SETTING_API_KEY: &str = "provider.api_key";

/// Longest API key accepted.
const MAX_KEY_BYTES: usize = 4096;

async fn stored_key(store: &Store) -> StoreResult<Option<String>> {
    Ok(store
        .get_setting(SETTING_API_KEY)
        .await?
        .filter(|k| !k.is_empty()))
}

/// The provider a server or a headless run starts with.
pub async fn initial_provider(
    cfg: &Config,
    store: &Store,
    net: NetPolicy,
) -> anyhow::Result<ActiveProvider> {
    let (config, source) = match &cfg.provider {
        Some(p) => (
            ProviderConfig {
                kind: p.kind.clone(),
                base_url: p.base_url.clone(),
                model: p.model.clone(),
                replay: p.replay.as_ref().map(|r| r.to_string_lossy().into_owned()),
            },
            ProviderSource::Flags,
        ),
        None => match store.get_setting(SETTING_PROVIDER).await? {
            Some(s) => {
                let c: ProviderConfig = serde_json::from_str(&s).map_err(|e| {
                    anyhow::anyhow!("the stored provider setting is unreadable: {e}")
                })?;
                (c, ProviderSource::Settings)
            }
            None => (ProviderConfig::default(), ProviderSource::None),
        },
    };
    let key = stored_key(store).await?;
    let provider = provider::build(&config, key, net).map_err(|e| anyhow::anyhow!(e))?;
    Ok(ActiveProvider {
        provider,
        config,
        source,
    })
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
    Ok(ProviderConfig {
        kind: p.kind.clone(),
        base_url,
        model,
        replay: None,
    })
}

impl Core {
    /// What runs now, and where it came from.
    pub async fn provider_settings(&self) -> ServiceResult<ProviderSettingsView> {
        let active = self.provider().active();
        let c = active.config;
        let key_set = stored_key(&self.store).await?.is_some()
            || (c.kind == "openai" && std::env::var("OPENAI_API_KEY").is_ok())
            || (c.kind == "anthropic" && std::env::var("ANTHROPIC_API_KEY").is_ok());
        Ok(ProviderSettingsView {
            kind: c.kind,
            base_url: c.base_url,
            model: c.model,
            api_key_set: key_set,
            source: active.source,
        })
    }

    /// Change the provider: validated and built first (a bad change stores nothing), then
    /// stored and swapped in for the next model call.
    pub async fn set_provider(
        &self,
        p: &ProviderSettingsParams,
    ) -> ServiceResult<ProviderSettingsView> {
        let config = validate(p)?;
        let key = match &p.api_key {
            Some(k) => Some(k.clone()).filter(|k| !k.is_empty()),
            None => stored_key(&self.store).await?,
        };
        let provider =
            provider::build(&config, key, self.deps().net).map_err(ServiceError::Invalid)?;
        let json = serde_json::to_string(&config)
            .map_err(|e| crate::store::StoreError::Other(e.into()))?;
        if let Some(k) = &p.api_key {
            self.store.put_setting(SETTING_API_KEY, k).await?;
        }
        self.store.put_setting(SETTING_PROVIDER, &json).await?;
        self.provider().set(ActiveProvider {
            provider,
            config,
            source: ProviderSource::Settings,
        });
        self.provider_settings().await
    }

    /// The models the running provider reports (also a connection test).
    pub async fn list_models(&self) -> ServiceResult<Vec<String>> {
        self.provider()
            .get()
            .list_models()
            .await
            .map_err(|e| ServiceError::Upstream(e.to_string()))
    }
}
