//! The model provider: read and change it at run time (the key is write-only), list models.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::AppState;
use super::extract::ApiJson;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::provider::{self, ProviderConfig};

pub const SETTING_PROVIDER: &str = "provider";
pub const SETTING_API_KEY: &str = "provider.api_key";

#[derive(Debug, Serialize, ToSchema)]
pub struct ProviderSettingsView {
    /// `openai`, `anthropic`, `replay`, or empty when none is configured.
    pub kind: String,
    pub base_url: Option<String>,
    pub model: Option<String>,
    /// Whether an API key is stored (it is never returned).
    pub api_key_set: bool,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProviderSettingsParams {
    pub kind: String,
    pub base_url: Option<String>,
    pub model: Option<String>,
    /// Set a new key; an empty string removes it; absent keeps the stored one.
    pub api_key: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ModelList {
    pub data: Vec<ModelInfo>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ModelInfo {
    pub id: String,
}

async fn current(state: &AppState) -> ApiResult<ProviderConfig> {
    Ok(match state.store.get_setting(SETTING_PROVIDER).await? {
        Some(s) => serde_json::from_str(&s).unwrap_or_default(),
        None => state.initial_provider.clone(),
    })
}

/// The configured model provider.
#[utoipa::path(get, path = "/api/settings/provider", tag = "server",
    responses((status = 200, body = ProviderSettingsView), (status = 401, body = ErrorBody)))]
pub async fn get_provider(
    State(state): State<AppState>,
) -> ApiResult<axum::Json<ProviderSettingsView>> {
    let c = current(&state).await?;
    let key_set = state
        .store
        .get_setting(SETTING_API_KEY)
        .await?
        .is_some_and(|k| !k.is_empty())
        || (c.kind == "openai" && std::env::var("OPENAI_API_KEY").is_ok())
        || (c.kind == "anthropic" && std::env::var("ANTHROPIC_API_KEY").is_ok());
    Ok(axum::Json(ProviderSettingsView {
        kind: c.kind,
        base_url: c.base_url,
        model: c.model,
        api_key_set: key_set,
    }))
}

/// Change the model provider (takes effect for the next model call).
#[utoipa::path(put, path = "/api/settings/provider", tag = "server", request_body = ProviderSettingsParams,
    responses((status = 200, body = ProviderSettingsView), (status = 401, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn put_provider(
    State(state): State<AppState>,
    ApiJson(p): ApiJson<ProviderSettingsParams>,
) -> ApiResult<axum::Json<ProviderSettingsView>> {
    if !matches!(p.kind.as_str(), "openai" | "anthropic") {
        return Err(ApiError::Validation(
            "kind must be `openai` or `anthropic` (replay is set with --replay at start)".into(),
        ));
    }
    let base_url = p.base_url.filter(|u| !u.trim().is_empty());
    if let Some(u) = &base_url {
        let parsed = reqwest::Url::parse(u)
            .map_err(|e| ApiError::Validation(format!("base_url is not a URL: {e}")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(ApiError::Validation(
                "base_url must be http or https".into(),
            ));
        }
    }
    let model = p.model.filter(|m| !m.trim().is_empty());
    if model.is_none() {
        return Err(ApiError::Validation("model is required".into()));
    }
    let cfg = ProviderConfig {
        kind: p.kind,
        base_url,
        model,
        replay: None,
    };
    if let Some(k) = &p.api_key {
        if k.len() > 4096 {
            return Err(ApiError::Validation("api_key is too long".into()));
        }
        state.store.put_setting(SETTING_API_KEY, k).await?;
    }
    let key = state
        .store
        .get_setting(SETTING_API_KEY)
        .await?
        .filter(|k| !k.is_empty());
    let built = provider::build(&cfg, key, state.runs.deps().net).map_err(ApiError::Validation)?;
    state
        .store
        .put_setting(
            SETTING_PROVIDER,
            &serde_json::to_string(&cfg).unwrap_or_default(),
        )
        .await?;
    state.runs.deps().provider.set(built);
    get_provider(State(state)).await
}

/// Models the provider reports (also a connection test).
#[utoipa::path(get, path = "/api/models", tag = "server",
    responses((status = 200, body = ModelList), (status = 401, body = ErrorBody), (status = 502, body = ErrorBody)))]
pub async fn list_models(State(state): State<AppState>) -> ApiResult<axum::Json<ModelList>> {
    let p = state.runs.deps().provider.get();
    match p.list_models().await {
        Ok(ids) => Ok(axum::Json(ModelList {
            data: ids.into_iter().map(|id| ModelInfo { id }).collect(),
        })),
        Err(e) => Err(ApiError::BadGateway(e.to_string())),
    }
}
