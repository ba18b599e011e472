//! The HTTP face: REST handlers, the WebSocket endpoint, the gates, the SPA and the API docs.
//! Handlers stay thin: they validate, call a service, and map errors through `ApiError`.

mod auth_routes;
pub mod devices;
pub mod extract;
pub mod gate;
mod goals;
mod mcp;
mod memories;
mod misc;
mod outbound;
mod plans;
mod push;
mod review;
pub mod runs;
pub mod sessions;
mod settings;
mod spa;
mod spec;
mod stream;
mod tasks;
mod terminal;
pub mod trace;
mod undo;
mod usage;
pub mod ws;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{delete, get, post};
use tower_http::limit::RequestBodyLimitLayer;
use utoipa::OpenApi;

use crate::auth::AuthService;
use crate::services::Core;

pub use gate::HostPolicy;

/// Largest request body accepted (413 beyond)…
pub const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;
/// …but for a prompt with images and a session import.
pub const MAX_LARGE_BODY_BYTES: usize = 48 * 1024 * 1024;

/// What handlers may use: the core services, the auth service and the Host policy.
#[derive(Clone)]
pub struct AppState {
    pub core: Core,
    pub auth: Arc<AuthService>,
    pub hosts: Arc<HostPolicy>,
    /// This server's live WebSocket connections.
    pub connections: Arc<ws::Connections>,
    /// How the server is reached: TLS or not, and the address other devices use.
    pub face: Arc<Face>,
}

/// How this server is reached from outside.
#[derive(Clone)]
pub struct Face {
    /// Served over TLS: `__Host-` Secure cookies, only https origins.
    pub secure: bool,
    /// `off`, `auto` or `files`.
    pub tls_mode: &'static str,
    /// `auto`: the local CA devices trust.
    pub ca: Option<crate::tls::LocalCa>,
    /// The base URL for links other devices open (publicUrl, host name, LAN address).
    pub url: String,
}

impl Face {
    pub fn plain(url: String) -> Face {
        Face {
            secure: false,
            tls_mode: "off",
            ca: None,
            url,
        }
    }
}

/// Handlers reach the services (and their store, events, runs and config) through the state.
impl std::ops::Deref for AppState {
    type Target = Core;
    fn deref(&self) -> &Core {
        &self.core
    }
}

#[derive(OpenApi)]
#[openapi(
    info(title = "Tradewind API", description = "Self-hosted coding-agent server. Every UI action is one of these calls. Authenticate with `Authorization: Bearer <token>` (the access token printed at start, TRADEWIND_TOKEN, or an API token, which carries scopes: read, prompt, admin) or the browser session cookie together with its page token in `X-Tradewind-Page` (the cookie alone loads only the app's static files)."),
    paths(
        misc::health, misc::server_config, misc::policy_check, misc::list_dirs,
        auth_routes::login, auth_routes::logout, auth_routes::whoami, auth_routes::create_ticket,
        auth_routes::list_tokens, auth_routes::create_token, auth_routes::revoke_token,
        devices::list_devices, devices::revoke_device, devices::name_device, devices::device_link,
        push::push_info, push::subscribe, push::unsubscribe, push::test_push,
        sessions::create_session, sessions::list_sessions, sessions::get_session,
        sessions::patch_session, sessions::delete_session, sessions::fork_session, sessions::list_messages, sessions::files, sessions::commands, undo::revert, undo::redo, undo::import_session,
        sessions::list_events, stream::stream_events, ws::ws_handler, sessions::pending, sessions::children, sessions::permissions, sessions::revoke_permission, sessions::allow_in_jail, sessions::tools,
        runs::post_message, runs::get_run, runs::list_runs, runs::cancel_run, runs::answer_approval,
        runs::list_queue, runs::patch_queue_item, runs::delete_queue_item, runs::resume_run,
        runs::attachment,
        goals::set_goal, goals::get_goal, goals::patch_goal, goals::delete_goal,
        memories::list_memories, memories::patch_memory, memories::delete_memory,
        settings::get_provider, settings::put_provider, settings::list_models,
        settings::list_providers, settings::put_provider_by_id, settings::delete_provider, settings::test_provider,
        settings::make_default_provider,
        settings::get_websearch, settings::put_websearch,
        mcp::list_servers, mcp::connect_server, mcp::disconnect_server,
        mcp::workspace_config, mcp::approve_workspace_config, mcp::list_skills, mcp::trust_skills, mcp::switch_skill, mcp::list_hooks, mcp::trust_hooks, mcp::list_agents, mcp::trust_agents, mcp::list_plugins, mcp::switch_plugin, mcp::list_trust, mcp::revoke_trust,
        plans::answer_question, plans::decide_plan, plans::plan_render_errors, plans::list_artifacts, plans::artifact_file, plans::download_artifact,
        tasks::list_tasks, tasks::task_output, tasks::stop_task, tasks::probe,
        usage::search, usage::usage_report, usage::session_usage, usage::get_caps, usage::put_caps, usage::compact_session,
        review::get_review, review::hunk_action, review::list_comments, review::add_comment, review::patch_comment, review::delete_comment, review::send_comments, review::list_branches, review::git_state, review::git_commit, review::git_push, review::git_apply, review::git_pull_request,
    ),
    components(schemas(crate::protocol::EventFrame, crate::protocol::EventPayload, crate::protocol::Part, crate::protocol::WsClientFrame, crate::protocol::WsServerFrame)),
    modifiers(&SecurityAddon),
    security(("bearer" = []), ("cookie" = [])),
    tags(
        (name = "sessions", description = "Sessions: create, list, read, change, fork and delete them, and read the conversation the model sees."),
        (name = "runs", description = "Runs: send a prompt (it becomes a queued run), read, cancel and resume runs, and edit or remove the inputs queued behind the active run."),
        (name = "events", description = "The session's event log: paged reads, long-poll, and the live SSE stream (the WebSocket at /api/ws carries the same frames)."),
        (name = "prompts", description = "What waits for the user (approvals, questions, plan decisions) and how to answer it, and the session's permission grants."),
        (name = "artifacts", description = "Files a run produced (plan revisions): list them, read one file, or download the whole folder as an archive."),
        (name = "tasks", description = "Background tasks (shell commands the model started with `bg_run`): list them, read their output, stop them."),
        (name = "auth", description = "Password sign-in and sign-out, who is calling, and API tokens for automation."),
        (name = "devices", description = "Signed-in browsers: list and revoke them, and mint one-time sign-in links for another device."),
        (name = "push", description = "Web Push: subscribe a browser so approvals, questions and plans reach it while the app is closed; list, remove and test subscriptions."),
        (name = "memories", description = "What the agent keeps between sessions (memory_write): read, correct and delete it."),
        (name = "goals", description = "A session's goal: the agent works towards it turn after turn until it is complete, blocked, paused or out of budget."),
        (name = "settings", description = "The model provider and the web search provider: read and change them while the server runs, list the models, and find local model servers."),
        (name = "mcp", description = "MCP servers from config.json: their state and tools; connect and disconnect them; review and approve a workspace's own .tradewind/config.json."),
        (name = "usage", description = "Tokens and cost per model call, summed by session, model or day; a session's context fill; spend caps; and compacting a conversation."),
        (name = "review", description = "A session's review: everything it changed as one diff (a worktree's, or its own runs' snapshots), staging and reverting a hunk, line comments on the diff and on plans sent back to the agent, the branches a worktree starts from, and commit, push, apply to the main checkout and pull requests as the user's own actions."),
        (name = "server", description = "Server health, startup configuration, each tool's status for a session, and the permission gate's dry run."),
    )
)]
pub struct ApiDoc;

struct SecurityAddon;
impl utoipa::Modify for SecurityAddon {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{
            ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme,
        };
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
        components.add_security_scheme(
            "cookie",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::new(crate::auth::COOKIE_NAME))),
        );
    }
}

/// The OpenAPI document as committed in `openapi/openapi.json`.
pub fn openapi_json() -> String {
    static DOC: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        let mut doc = ApiDoc::openapi();
        doc.info.version = env!("CARGO_PKG_VERSION").to_string();
        let mut v = serde_json::to_value(&doc).unwrap_or_default();
        spec::finish(&mut v);
        let mut s = serde_json::to_string_pretty(&v).unwrap_or_else(|_| "{}".into());
        s.push('\n');
        s
    });
    DOC.clone()
}

/// The Markdown reference of operations and event types embedded in `docs/PROTOCOL.md`.
pub fn openapi_reference() -> String {
    let doc: serde_json::Value = serde_json::from_str(&openapi_json()).unwrap_or_default();
    spec::reference(&doc)
}

/// Long sessions: a goal, usage and caps, search, compaction, undo, import, prompts' images.
fn long_session_routes() -> Router<AppState> {
    Router::new()
        .route(
            "/api/sessions/import",
            post(undo::import_session).layer(DefaultBodyLimit::max(MAX_LARGE_BODY_BYTES)),
        )
        .route("/api/sessions/{id}/revert", post(undo::revert))
        .route("/api/sessions/{id}/review", get(review::get_review))
        .route("/api/sessions/{id}/review/hunk", post(review::hunk_action))
        .route(
            "/api/sessions/{id}/review/comments",
            get(review::list_comments).post(review::add_comment),
        )
        .route(
            "/api/sessions/{id}/review/send",
            post(review::send_comments),
        )
        .route(
            "/api/review-comments/{id}",
            axum::routing::patch(review::patch_comment).delete(review::delete_comment),
        )
        .route("/api/fs/branches", get(review::list_branches))
        .route("/api/sessions/{id}/git", get(review::git_state))
        .route("/api/sessions/{id}/git/commit", post(review::git_commit))
        .route("/api/sessions/{id}/git/push", post(review::git_push))
        .route("/api/sessions/{id}/git/apply", post(review::git_apply))
        .route("/api/sessions/{id}/git/pr", post(review::git_pull_request))
        .route("/api/sessions/{id}/redo", post(undo::redo))
        .route("/api/usage", get(usage::usage_report))
        .route("/api/search", get(usage::search))
        .route("/api/usage/caps", get(usage::get_caps).put(usage::put_caps))
        .route("/api/sessions/{id}/usage", get(usage::session_usage))
        .route("/api/sessions/{id}/compact", post(usage::compact_session))
        .route(
            "/api/sessions/{id}/goal",
            get(goals::get_goal)
                .post(goals::set_goal)
                .patch(goals::patch_goal)
                .delete(goals::delete_goal),
        )
        .route("/api/attachments/{id}", get(runs::attachment))
        .route("/api/memories", get(memories::list_memories))
        .route(
            "/api/memories/{id}",
            axum::routing::patch(memories::patch_memory).delete(memories::delete_memory),
        )
}

/// Settings that change while the server runs: providers and MCP servers.
fn settings_routes() -> Router<AppState> {
    Router::new()
        .route(
            "/api/settings/provider",
            get(settings::get_provider).put(settings::put_provider),
        )
        .route(
            "/api/settings/websearch",
            get(settings::get_websearch).put(settings::put_websearch),
        )
        .route("/api/models", get(settings::list_models))
        .route("/api/providers", get(settings::list_providers))
        .route("/api/providers/test", post(settings::test_provider))
        .route(
            "/api/providers/{id}",
            axum::routing::put(settings::put_provider_by_id).delete(settings::delete_provider),
        )
        .route(
            "/api/providers/{id}/default",
            axum::routing::post(settings::make_default_provider),
        )
        .route("/api/mcp/servers", get(mcp::list_servers))
        .route("/api/mcp/servers/{name}/connect", post(mcp::connect_server))
        .route(
            "/api/mcp/servers/{name}/disconnect",
            post(mcp::disconnect_server),
        )
        .route("/api/workspace/config", get(mcp::workspace_config))
        .route(
            "/api/workspace/config/approve",
            post(mcp::approve_workspace_config),
        )
        .route("/api/skills", get(mcp::list_skills))
        .route("/api/skills/trust", post(mcp::trust_skills))
        .route("/api/skills/{name}", axum::routing::put(mcp::switch_skill))
        .route("/api/plugins", get(mcp::list_plugins))
        .route(
            "/api/plugins/{name}",
            axum::routing::put(mcp::switch_plugin),
        )
        .route("/api/agents", get(mcp::list_agents))
        .route("/api/agents/trust", post(mcp::trust_agents))
        .route("/api/hooks", get(mcp::list_hooks))
        .route("/api/hooks/trust", post(mcp::trust_hooks))
        .route("/api/trust", get(mcp::list_trust).delete(mcp::revoke_trust))
}

/// A session, its events and files, and what it may do.
fn session_routes() -> Router<AppState> {
    Router::new()
        .route(
            "/api/sessions",
            get(sessions::list_sessions).post(sessions::create_session),
        )
        .route(
            "/api/sessions/{id}",
            get(sessions::get_session)
                .patch(sessions::patch_session)
                .delete(sessions::delete_session),
        )
        .route("/api/sessions/{id}/events", get(sessions::list_events))
        .route(
            "/api/sessions/{id}/events/stream",
            get(stream::stream_events),
        )
        .route("/api/sessions/{id}/fork", post(sessions::fork_session))
        .route("/api/sessions/{id}/files", get(sessions::files))
        .route("/api/sessions/{id}/commands", get(sessions::commands))
        .route("/api/sessions/{id}/pending", get(sessions::pending))
        .route("/api/sessions/{id}/children", get(sessions::children))
        .route(
            "/api/sessions/{id}/permissions",
            get(sessions::permissions).delete(sessions::revoke_permission),
        )
        .route(
            "/api/sessions/{id}/jail-allows",
            post(sessions::allow_in_jail),
        )
        .route("/api/tools", get(sessions::tools))
}

pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/api/health", get(misc::health))
        .route("/api/config", get(misc::server_config))
        .route("/api/fs/dirs", get(misc::list_dirs))
        .route("/api/policy/check", post(misc::policy_check))
        .route("/api/openapi.json", get(misc::openapi_doc))
        .route("/api/login", post(auth_routes::login))
        .route("/api/logout", post(auth_routes::logout))
        .route("/api/whoami", get(auth_routes::whoami))
        .route("/api/tickets", post(auth_routes::create_ticket))
        .route(
            "/api/tokens",
            get(auth_routes::list_tokens).post(auth_routes::create_token),
        )
        .route("/api/tokens/{id}", delete(auth_routes::revoke_token))
        .route("/api/devices", get(devices::list_devices))
        .route("/api/devices/link", post(devices::device_link))
        .route(
            "/api/devices/{id}",
            delete(devices::revoke_device).patch(devices::name_device),
        )
        .route("/api/push", get(push::push_info))
        .route("/api/push/subscriptions", post(push::subscribe))
        .route("/api/push/subscriptions/{id}", delete(push::unsubscribe))
        .route("/api/push/test", post(push::test_push))
        .merge(session_routes())
        .route(
            "/api/sessions/{id}/messages",
            get(sessions::list_messages)
                .post(runs::post_message)
                .layer(DefaultBodyLimit::max(MAX_LARGE_BODY_BYTES)),
        )
        .route("/api/sessions/{id}/runs", get(runs::list_runs))
        .route("/api/sessions/{id}/queue", get(runs::list_queue))
        .route(
            "/api/sessions/{id}/queue/{item}",
            axum::routing::patch(runs::patch_queue_item).delete(runs::delete_queue_item),
        )
        .route("/api/runs/{id}", get(runs::get_run))
        .route("/api/runs/{id}/cancel", post(runs::cancel_run))
        .route("/api/runs/{id}/resume", post(runs::resume_run))
        .route("/api/approvals/{id}", post(runs::answer_approval))
        .merge(settings_routes())
        .merge(long_session_routes())
        .route("/api/ws", get(ws::ws_handler))
        .route("/api/questions/{id}", post(plans::answer_question))
        .route("/api/plans/{id}/decision", post(plans::decide_plan))
        .route(
            "/api/plans/{id}/render-errors",
            post(plans::plan_render_errors),
        )
        .route("/api/sessions/{id}/artifacts", get(plans::list_artifacts))
        .route(
            "/api/artifacts/{id}/files/{*path}",
            get(plans::artifact_file),
        )
        .route(
            "/api/artifacts/{id}/download",
            get(plans::download_artifact),
        )
        .route("/api/sessions/{id}/tasks", get(tasks::list_tasks))
        .route("/api/tasks/{id}/output", get(tasks::task_output))
        .route("/api/tasks/{id}/stop", post(tasks::stop_task))
        .route("/api/setup/probe", get(tasks::probe));
    let docs = utoipa_swagger_ui::SwaggerUi::new("/api/docs");
    Router::new()
        .merge(api)
        .merge(docs)
        .route("/login", get(spa::login_page))
        .route("/login.js", get(spa::login_js))
        .route("/auth.css", get(spa::auth_css))
        .route("/tls", get(devices::tls_page))
        .route("/tls/ca.crt", get(devices::tls_page))
        .route("/tls/ca.pem", get(devices::tls_page))
        .fallback(spa::static_or_index)
        // Inner to outer: the body limit sits inside the gate so its 413 gets the JSON error
        // body and the security headers.
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(RequestBodyLimitLayer::new(MAX_LARGE_BODY_BYTES))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            gate::gate,
        ))
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            axum::http::StatusCode::REQUEST_TIMEOUT,
            Duration::from_secs(120),
        ))
        // Outermost: every request (a refused one too) has an id, a span and a log line.
        .layer(
            tower_http::trace::TraceLayer::new_for_http()
                .make_span_with(trace::make_span)
                .on_request(())
                .on_response(trace::on_response)
                .on_failure(trace::on_failure),
        )
        .layer(tower_http::request_id::PropagateRequestIdLayer::new(
            trace::REQUEST_ID,
        ))
        .layer(tower_http::request_id::SetRequestIdLayer::new(
            trace::REQUEST_ID,
            trace::MakeUlid,
        ))
        .with_state(state)
}

/// What a plain-HTTP request on the TLS port gets: a redirect to the same URL over `https://`
/// (for an allowed Host only), except the CA install page and certificate, which a device that
/// does not trust the CA yet must be able to fetch.
pub fn plain_side_router(state: AppState) -> Router {
    use axum::http::{HeaderValue, StatusCode, Uri, header};
    use axum::response::{IntoResponse, Response};

    async fn redirect(
        axum::extract::State(state): axum::extract::State<AppState>,
        headers: axum::http::HeaderMap,
        uri: Uri,
    ) -> Response {
        let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
        let Some(host) = host.filter(|h| state.hosts.allows(h)) else {
            return (
                StatusCode::BAD_REQUEST,
                "This server speaks HTTPS; use an allowed host name.\n",
            )
                .into_response();
        };
        let path = uri.path_and_query().map_or("/", |p| p.as_str());
        match HeaderValue::from_str(&format!("https://{host}{path}")) {
            Ok(loc) => (
                StatusCode::PERMANENT_REDIRECT,
                [(header::LOCATION, loc)],
                "This server speaks HTTPS.\n",
            )
                .into_response(),
            Err(_) => StatusCode::BAD_REQUEST.into_response(),
        }
    }

    async fn headers(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
        let mut resp = next.run(req).await;
        let h = resp.headers_mut();
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(gate::CSP_APP),
        );
        gate::security_headers(h);
        resp
    }

    Router::new()
        .route("/tls", get(devices::tls_page))
        .route("/tls/ca.crt", get(devices::tls_page))
        .route("/tls/ca.pem", get(devices::tls_page))
        .route("/favicon.svg", get(spa::static_or_index))
        .route("/auth.css", get(spa::auth_css))
        .fallback(redirect)
        .layer(axum::middleware::from_fn(headers))
        .with_state(state)
}
