//! The model provider and the web search provider: read and change them at run time (keys are
//! write-only), list models.

use axum::extract::State;

use super::AppState;
use super::extract::ApiJson;
use crate::error::{ApiResult, ErrorBody};
use crate::protocol::{
    ModelInfo, ModelList, ProviderSettingsParams, ProviderSettingsView, WebSearchSettingsParams,
    WebSearchSettingsView,
};

/// The model provider that runs now, and where its configuration came from.
///
/// Returns the running provider's `kind`, `base_url` and `model`; `api_key_set`, whether a key
/// is available (stored through Settings, or `OPENAI_API_KEY` / `ANTHROPIC_API_KEY` in the
/// server's environment for that kind); and `source`: `flags` (start flags or the config
/// file), `settings`, or `none` when nothing is configured. The key itself is never returned.
#[utoipa::path(get, path = "/api/settings/provider", tag = "settings",
    responses((status = 200, description = "The running provider's settings", body = ProviderSettingsView),
              (status = 401, description = "Not authenticated", body = ErrorBody)))]
pub async fn get_provider(
    State(state): State<AppState>,
) -> ApiResult<axum::Json<ProviderSettingsView>> {
    Ok(axum::Json(state.provider_settings().await?))
}

/// Change the model provider; it takes effect for the next model call.
///
/// `kind` must be `openai` or `anthropic` (replay is set only with `--replay` at start), `model`
/// is required, `base_url` must be an http or https URL, and `api_key` is at most 4096 bytes:
/// a new key replaces the stored one, an empty string removes it, absent keeps it. The provider
/// is built first, so a refused change (422) stores nothing. Returns the provider now running
/// (`source` `settings`); start flags or the config file still win at the next start.
#[utoipa::path(put, path = "/api/settings/provider", tag = "settings", request_body = ProviderSettingsParams,
    responses((status = 200, description = "The provider now running", body = ProviderSettingsView),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 422, description = "Invalid settings, or no provider can be built from them; nothing was stored", body = ErrorBody)))]
pub async fn put_provider(
    State(state): State<AppState>,
    ApiJson(p): ApiJson<ProviderSettingsParams>,
) -> ApiResult<axum::Json<ProviderSettingsView>> {
    Ok(axum::Json(state.set_provider(&p).await?))
}

/// Models the running provider reports (also a connection test).
///
/// Asks the provider for its model list on every call and returns the model ids as it reports
/// them. When the provider cannot be reached, refuses the key, or answers with an error, the
/// call fails with 502 and the provider's error message.
#[utoipa::path(get, path = "/api/models", tag = "settings",
    responses((status = 200, description = "The provider's model ids", body = ModelList),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 502, description = "The provider failed or could not be reached", body = ErrorBody)))]
pub async fn list_models(State(state): State<AppState>) -> ApiResult<axum::Json<ModelList>> {
    let ids = state.list_models().await?;
    Ok(axum::Json(ModelList {
        data: ids.into_iter().map(|id| ModelInfo { id }).collect(),
    }))
}

/// The web search provider `websearch` uses now.
///
/// Returns the provider, the SearXNG URL (the default public instance when none is set), the
/// `websearch.endpoint` override from config.json, the environment variable a key is read from
/// (`key_env`, keyed providers only), `api_key_set` (stored, or present in the server's
/// environment; the key itself is never returned), `source` (`default`, `config` — the state
/// directory's config.json — or `settings`), and every provider with its note, for a chooser.
#[utoipa::path(get, path = "/api/settings/websearch", tag = "settings",
    responses((status = 200, description = "The web search provider in use", body = WebSearchSettingsView),
              (status = 401, description = "Not authenticated", body = ErrorBody)))]
pub async fn get_websearch(
    State(state): State<AppState>,
) -> ApiResult<axum::Json<WebSearchSettingsView>> {
    Ok(axum::Json(state.websearch_settings().await?))
}

/// Choose the web search provider; the next search uses it.
///
/// `searxng_url` must be `https://`, or `http://` on a loopback host (a configurable address
/// could point anywhere); blank or absent means the default public instance. `api_key` (at most
/// 4096 bytes) is stored for the keyed providers: a new key replaces the stored one, an empty
/// string removes it, absent keeps it. A refused change (422) stores nothing. The stored choice
/// wins over config.json's `websearch`, now and after a restart.
#[utoipa::path(put, path = "/api/settings/websearch", tag = "settings", request_body = WebSearchSettingsParams,
    responses((status = 200, description = "The web search provider now in use", body = WebSearchSettingsView),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 422, description = "Invalid settings; nothing was stored", body = ErrorBody)))]
pub async fn put_websearch(
    State(state): State<AppState>,
    ApiJson(p): ApiJson<WebSearchSettingsParams>,
) -> ApiResult<axum::Json<WebSearchSettingsView>> {
    Ok(axum::Json(state.set_websearch(&p).await?))
}
