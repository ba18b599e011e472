//! The model provider and the web search provider: read and change them at run time (keys are
//! write-only), list models.

use axum::extract::{Path, State};
use axum::http::StatusCode;

use super::AppState;
use super::extract::ApiJson;
use super::extract::ApiQuery;
use crate::error::{ApiResult, ErrorBody};
use crate::protocol::{
    ModelList, ModelsQuery, ProviderList, ProviderSettingsParams, ProviderSettingsView,
    ProviderView, WebSearchSettingsParams, WebSearchSettingsView,
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

/// Models a provider reports (also a connection test).
///
/// Asks the provider (`provider`, an id from `GET /api/providers`; absent: the default one)
/// for its model list on every call and returns the model ids as it reports them, each with what
/// a local server says of it: `context_window`, `tools` (false: it takes none, so its calls are
/// read from its text), `vision`, `size_bytes` (Ollama's `/api/tags` and `/api/show`, llama.cpp's
/// `/props`, LM Studio's `/api/v0/models`, vLLM's `max_model_len`). 404 when no
/// provider has that id. When the provider cannot be reached, refuses the key, or answers with
/// an error, the call fails with 502 and the provider's error message.
#[utoipa::path(get, path = "/api/models", tag = "settings", params(ModelsQuery),
    responses((status = 200, description = "The provider's model ids", body = ModelList),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No provider has this id", body = ErrorBody),
              (status = 502, description = "The provider failed or could not be reached", body = ErrorBody)))]
pub async fn list_models(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<ModelsQuery>,
) -> ApiResult<axum::Json<ModelList>> {
    let data = state.list_models(q.provider.as_deref()).await?;
    Ok(axum::Json(ModelList { data }))
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

/// Every configured provider, and which one is the default.
///
/// Providers work side by side, each with its own key: the one the start flags or
/// `PUT /api/settings/provider` set (id `default`), those in config.json's `providers` list, and
/// those added with `PUT /api/providers/{id}`. Each reports its kind, base URL, default model,
/// whether a key is available (never the key), the environment variable it reads the key from,
/// its `source`, and whether it is the `default` sessions without their own use. An
/// OpenAI-compatible provider also reports `model_server`: the server behind it (llama.cpp,
/// vLLM, Ollama, LM Studio, or not recognised, asked once through `/props`, `/version`,
/// `/api/version`, `/api/v0/models`), whether it takes tools for the default model, how that
/// model's calls are read (`toolCalls`), the output constraint its requests carry
/// (`constrained`) and the window assumed; a server that does not answer within 1.5 s is listed
/// without it.
#[utoipa::path(get, path = "/api/providers", tag = "settings",
    responses((status = 200, description = "The providers", body = ProviderList),
              (status = 401, description = "Not authenticated", body = ErrorBody)))]
pub async fn list_providers(State(state): State<AppState>) -> axum::Json<ProviderList> {
    axum::Json(state.provider_list_probed().await)
}

/// Add a provider, or replace one, by id.
///
/// `id` is 1 to 32 of `a-z 0-9 _ -`. The body is the one `PUT /api/settings/provider` takes,
/// plus `api_key_env`, the environment variable to read the key from. The provider is built
/// first, so a refused change (422) stores nothing; it is stored (surviving a restart, where
/// config.json still wins for an id it defines) and sessions that name it use it from their
/// next model call. Returns the provider as listed.
#[utoipa::path(put, path = "/api/providers/{id}", tag = "settings", request_body = ProviderSettingsParams,
    params(("id" = String, Path, description = "Provider id")),
    responses((status = 200, description = "The provider as stored", body = ProviderView),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 422, description = "An invalid id or settings; nothing was stored", body = ErrorBody)))]
pub async fn put_provider_by_id(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiJson(p): ApiJson<ProviderSettingsParams>,
) -> ApiResult<axum::Json<ProviderView>> {
    Ok(axum::Json(state.put_provider(&id, &p).await?))
}

/// Test a provider before saving it: the models its server lists.
///
/// Builds a provider from what the Add/Edit provider form says (`kind`, `base_url`,
/// `api_key`, `model`, `api_mode`; nothing is stored) and asks its server for the model list,
/// as `GET /api/models` does for a saved one — within 5 s in all, reading at most 1 MiB,
/// following no redirect. Which key is sent (`key` in the answer): the one typed (`api_key`,
/// for this test only); else, with `id`, the saved provider's key, but only to the base URL
/// and kind it was saved with (a changed URL needs the key typed again); else none — never
/// the server's environment's. With `model`, `model_listed` says whether the server lists it.
/// Needs `admin`. 404 for an unknown `id`; 422 for invalid settings; 502 when the server
/// cannot be reached, refuses, answers with an error or more than 1 MiB, or takes over 5 s.
#[utoipa::path(post, path = "/api/providers/test", tag = "settings", request_body = crate::protocol::ProviderTestParams,
    responses((status = 200, description = "The server answered: its models", body = crate::protocol::ProviderTestResult),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No provider has this `id`", body = ErrorBody),
              (status = 422, description = "Invalid settings", body = ErrorBody),
              (status = 502, description = "The server failed, could not be reached in 5 s, or answered more than 1 MiB", body = ErrorBody)))]
pub async fn test_provider(
    State(state): State<AppState>,
    ApiJson(p): ApiJson<crate::protocol::ProviderTestParams>,
) -> ApiResult<axum::Json<crate::protocol::ProviderTestResult>> {
    Ok(axum::Json(state.test_provider(&p).await?))
}

/// Remove a provider added through Settings.
///
/// Its stored key is removed with it. Sessions that named it fail their next run with
/// `unknown_provider` until another model is picked for them. Refused with 409
/// `provider_is_default` for the default provider, and `provider_from_config` for one the
/// start flags or config.json define (it would come back at the next start).
#[utoipa::path(delete, path = "/api/providers/{id}", tag = "settings",
    params(("id" = String, Path, description = "Provider id")),
    responses((status = 204, description = "Removed"),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No provider has this id", body = ErrorBody),
              (status = 409, description = "The default provider, or one from the flags or config.json", body = ErrorBody)))]
pub async fn delete_provider(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<StatusCode> {
    state.delete_provider(&id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Make a provider the default.
///
/// Sessions without their own provider use it from their next model call, and
/// `GET /api/settings/provider` reports it. The choice is stored and survives a restart.
/// Returns the providers with the new default.
#[utoipa::path(post, path = "/api/providers/{id}/default", tag = "settings",
    params(("id" = String, Path, description = "Provider id")),
    responses((status = 200, description = "The providers", body = ProviderList),
              (status = 401, description = "Not authenticated", body = ErrorBody),
              (status = 404, description = "No provider has this id", body = ErrorBody)))]
pub async fn make_default_provider(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<ProviderList>> {
    Ok(axum::Json(state.set_default_provider(&id).await?))
}
