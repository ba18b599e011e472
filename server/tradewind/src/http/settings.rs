//! The model provider: read and change it at run time (the key is write-only), list models.

use axum::extract::State;

use super::AppState;
use super::extract::ApiJson;
use crate::error::{ApiResult, ErrorBody};
use crate::protocol::{ModelInfo, ModelList, ProviderSettingsParams, ProviderSettingsView};

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
