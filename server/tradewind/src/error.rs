//! One error type for the HTTP edge, mapped to a status in exactly one place.
//!
//! Handlers return `Result<_, ApiError>` and use `?`; `IntoResponse` below is the only code that
//! chooses a status and a wire body. Internal errors are logged with their detail and reach the
//! client only as a generic message, never as the underlying text.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

/// The JSON body of every error response: `{"error":{"code":"…","message":"…"}}`.
#[derive(Debug, Serialize, ToSchema)]
#[schema(examples(json!({"error": {"code": "not_found", "message": "session not found"}})))]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorDetail {
    /// Stable machine-readable code, e.g. `not_found`, `unauthorized`, `validation_failed`.
    pub code: String,
    /// Human-readable explanation.
    pub message: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    BadRequest(String),
    #[error("authentication required")]
    Unauthorized,
    /// A login cookie without its page token (or with another sign-in's): 401.
    #[error(
        "this request carries the login cookie but not its page token (X-Tradewind-Page); sign in again in the app"
    )]
    PageToken,
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Conflict(String),
    /// 409 with its own code.
    #[error("{1}")]
    Refused(&'static str, String),
    #[error("request body is too large")]
    PayloadTooLarge,
    #[error("{0}")]
    UnsupportedMediaType(String),
    #[error("{0}")]
    Validation(String),
    #[error("too many attempts; retry in {retry_after_secs} s")]
    RateLimited { retry_after_secs: u64 },
    #[error("the database is busy; retry shortly")]
    DatabaseBusy,
    #[error(
        "the server's disk is full: nothing new can be saved until space is freed (everything saved so far is intact)"
    )]
    DiskFull,
    #[error("{0}")]
    Unavailable(String),
    /// An upstream (the model provider) failed.
    #[error("{0}")]
    BadGateway(String),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl ApiError {
    pub fn not_found(what: &str) -> Self {
        Self::NotFound(format!("{what} not found"))
    }

    pub fn status(&self) -> StatusCode {
        match self {
            Self::BadRequest(_) => StatusCode::BAD_REQUEST,
            Self::Unauthorized | Self::PageToken => StatusCode::UNAUTHORIZED,
            Self::Forbidden(_) => StatusCode::FORBIDDEN,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::Conflict(_) | Self::Refused(..) => StatusCode::CONFLICT,
            Self::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::Validation(_) => StatusCode::UNPROCESSABLE_ENTITY,
            Self::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::DatabaseBusy | Self::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            Self::DiskFull => StatusCode::INSUFFICIENT_STORAGE,
            Self::BadGateway(_) => StatusCode::BAD_GATEWAY,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            Self::BadRequest(_) => "bad_request",
            Self::Unauthorized => "unauthorized",
            Self::PageToken => "page_token_required",
            Self::Forbidden(_) => "forbidden",
            Self::NotFound(_) => "not_found",
            Self::Conflict(_) => "conflict",
            Self::Refused(code, _) => code,
            Self::PayloadTooLarge => "payload_too_large",
            Self::UnsupportedMediaType(_) => "unsupported_media_type",
            Self::Validation(_) => "validation_failed",
            Self::RateLimited { .. } => "rate_limited",
            Self::DatabaseBusy => "database_busy",
            Self::DiskFull => "disk_full",
            Self::Unavailable(_) => "unavailable",
            Self::BadGateway(_) => "provider_error",
            Self::Internal(_) => "internal",
        }
    }

    /// The message sent to the client: never the text of an internal error.
    pub fn client_message(&self) -> String {
        match self {
            Self::Internal(_) => "internal server error".to_string(),
            other => other.to_string(),
        }
    }

    pub fn body(&self) -> ErrorBody {
        ErrorBody {
            error: ErrorDetail {
                code: self.code().to_string(),
                message: self.client_message(),
            },
        }
    }
}

impl From<crate::store::StoreError> for ApiError {
    fn from(e: crate::store::StoreError) -> Self {
        use crate::store::StoreError;
        match e {
            StoreError::NotFound => ApiError::NotFound("not found".into()),
            StoreError::Conflict(m) => ApiError::Conflict(m),
            StoreError::Busy => ApiError::DatabaseBusy,
            StoreError::DiskFull => ApiError::DiskFull,
            StoreError::Other(e) => ApiError::Internal(e),
        }
    }
}

impl From<crate::services::ServiceError> for ApiError {
    fn from(e: crate::services::ServiceError) -> Self {
        use crate::services::ServiceError;
        match e {
            ServiceError::NotFound(what) => ApiError::not_found(what),
            ServiceError::Conflict(m) => ApiError::Conflict(m),
            ServiceError::Refused { code, message } => ApiError::Refused(code, message),
            ServiceError::Invalid(m) => ApiError::Validation(m),
            ServiceError::Upstream(m) => ApiError::BadGateway(m),
            ServiceError::Store(e) => e.into(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        if let Self::Internal(e) = &self {
            tracing::error!(error = ?e, "internal error");
        } else if status.is_server_error() {
            tracing::warn!(error = %self, "server error");
        }
        let mut resp = (status, axum::Json(self.body())).into_response();
        if let Self::RateLimited { retry_after_secs } = &self
            && let Ok(v) = HeaderValue::from_str(&retry_after_secs.to_string())
        {
            resp.headers_mut().insert(header::RETRY_AFTER, v);
        }
        resp
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
