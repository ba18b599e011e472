//! The web search provider: read and change it at run time (the key is write-only).

use super::{Core, ServiceError, ServiceResult};
use crate::protocol::{SettingsSource, WebSearchSettingsParams, WebSearchSettingsView};
use crate::tools::websearch::{self, SETTING_WEBSEARCH, SETTING_WEBSEARCH_KEY, Stored};

/// Longest API key accepted.
const MAX_KEY_BYTES: usize = 4096;

impl Core {
    /// The provider `websearch` uses now, and where the choice came from.
    pub async fn websearch_settings(&self) -> ServiceResult<WebSearchSettingsView> {
        let s = self.env.tools.websearch.read().clone();
        let source = if self.store.get_setting(SETTING_WEBSEARCH).await?.is_some() {
            SettingsSource::Settings
        } else if self.cfg.websearch.provider.is_some() || self.cfg.websearch.searxng_url.is_some()
        {
            SettingsSource::Config
        } else {
            SettingsSource::Default
        };
        let key = websearch::stored_key(&self.store).await.is_some();
        Ok(websearch::view(&s, source, key))
    }

    /// Choose the provider (validated first: a refused change stores nothing); the next search
    /// uses it.
    pub async fn set_websearch(
        &self,
        p: &WebSearchSettingsParams,
    ) -> ServiceResult<WebSearchSettingsView> {
        let searxng_url = p
            .searxng_url
            .as_deref()
            .map(str::trim)
            .filter(|u| !u.is_empty())
            .map(String::from);
        if let Some(u) = &searxng_url {
            websearch::check_endpoint(u, "searxng_url").map_err(ServiceError::Invalid)?;
        }
        if p.api_key.as_ref().is_some_and(|k| k.len() > MAX_KEY_BYTES) {
            return Err(ServiceError::Invalid(format!(
                "api_key is longer than {MAX_KEY_BYTES} bytes"
            )));
        }
        let stored = Stored {
            provider: p.provider,
            searxng_url: searxng_url.clone(),
        };
        if let Some(k) = &p.api_key {
            let k = k.trim();
            if k.is_empty() {
                self.store.put_setting(SETTING_WEBSEARCH_KEY, "").await?;
            } else {
                self.store.put_secret(SETTING_WEBSEARCH_KEY, k).await?;
            }
        }
        websearch::store_choice(&self.store, &self.env.tools.websearch, &stored).await?;
        self.websearch_settings().await
    }
}
