//! Request tracing: every request gets an id (`x-request-id`, kept when a trusted proxy set a
//! well-formed one, else a new ULID), echoed in the response, and a span named after the matched
//! route (low cardinality), in which handlers, services and error logs run. Each response is
//! logged at DEBUG (`TRADEWIND_LOG=tradewind=debug`; a terminal running `serve` stays quiet while
//! the web app polls); server errors at ERROR with their id.

use std::time::Duration;

use axum::extract::MatchedPath;
use axum::http::{HeaderName, Request, Response};
use tower_http::classify::ServerErrorsFailureClass;
use tower_http::request_id::{MakeRequestId, RequestId};
use tracing::Span;

pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// New request ids are ULIDs.
#[derive(Clone, Copy, Default)]
pub struct MakeUlid;

impl MakeRequestId for MakeUlid {
    fn make_request_id<B>(&mut self, _req: &Request<B>) -> Option<RequestId> {
        ulid::Ulid::generate()
            .to_string()
            .parse()
            .ok()
            .map(RequestId::new)
    }
}

/// The span of one request.
pub fn make_span<B>(req: &Request<B>) -> Span {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("(unmatched)", MatchedPath::as_str);
    let id = req
        .headers()
        .get(REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|v| v.len() <= 64 && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
        .unwrap_or("-");
    if route == "/api/health" {
        tracing::debug_span!("request", method = %req.method(), route, request_id = %id)
    } else {
        tracing::info_span!("request", method = %req.method(), route, request_id = %id)
    }
}

pub fn on_response<B>(res: &Response<B>, latency: Duration, span: &Span) {
    let status = res.status().as_u16();
    let ms = latency.as_secs_f64() * 1000.0;
    if span
        .metadata()
        .is_some_and(|m| *m.level() == tracing::Level::DEBUG)
    {
        tracing::debug!(status, ms, "served");
    } else {
        tracing::info!(status, ms, "served");
    }
}

pub fn on_failure(class: ServerErrorsFailureClass, latency: Duration, _span: &Span) {
    tracing::error!(%class, ms = latency.as_secs_f64() * 1000.0, "request failed");
}
