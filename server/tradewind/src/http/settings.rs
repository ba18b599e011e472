//! The model provider: read and change it at run time (the key is write-only), list models.

use axum::extract::State;

use super::AppState;
use super::extract::ApiJson;
use crate::error::{ApiResult, ErrorBody};
use crate::protocol::{ModelInfo, ModelList, ProviderSettingsParams, ProviderSettingsView};

/// The model provider that runs now, and where its configuration came from.
#[utoipa::path(get, path = "/api/settings/provider", tag = "server",
    responses((status = 200, body = ProviderSettingsView), (status = 401, body = ErrorBody)))]
pub async fn get_provider(
    State(state): State<AppState>,
) -> ApiResult<axum::Json<ProviderSettingsView>> {
    Ok(axum::Json(state.provider_settings().await?))
}

/// Change the model provider (takes effect for the next model call). Nothing is stored when
/// the change is refused.
#[utoipa::path(put, path = "/api/settings/provider", tag = "server", request_body = ProviderSettingsParams,
    responses((status = 200, body = ProviderSettingsView), (status = 401, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn put_provider(
    State(state): State<AppState>,
    ApiJson(p): ApiJson<ProviderSettingsParams>,
) -> ApiResult<axum::Json<ProviderSettingsView>> {
    Ok(axum::Json(state.set_provider(&p).await?))
}

/// Models the provider reports (also a connection test).
#[utoipa::path(get, path = "/api/models", tag = "server",
    responses((status = 200, body = ModelList), (status = 401, body = ErrorBody), (status = 502, body = ErrorBody)))]
pub async fn list_models(State(state): State<AppState>) -> ApiResult<axum::Json<ModelList>> {
    let ids = state.list_models().await?;
    Ok(axum::Json(ModelList {
        data: ids.into_iter().map(|id| ModelInfo { id }).collect(),
    }))
}
