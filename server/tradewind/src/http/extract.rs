//! Extractors whose rejections use our JSON error shape.

use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;

use crate::error::ApiError;

/// `Json<T>` whose rejections are `ApiError`s (415 / 413 / 400 / 422). Every request body of
/// this API is a JSON object: an array is refused (serde would otherwise read a struct from
/// one, field by field).
pub struct ApiJson<T>(pub T);

/// `application/json` or `application/…+json`, parameters aside.
fn json_content_type(headers: &axum::http::HeaderMap) -> bool {
    let Some(ct) = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let essence = ct
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

impl<S, T> FromRequest<S> for ApiJson<T>
where
    T: serde::de::DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        if !json_content_type(req.headers()) {
            return Err(ApiError::UnsupportedMediaType(
                "expected Content-Type: application/json".into(),
            ));
        }
        let bytes = match axum::body::Bytes::from_request(req, state).await {
            Ok(b) => b,
            Err(rej) if rej.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                return Err(ApiError::PayloadTooLarge);
            }
            Err(rej) => return Err(ApiError::BadRequest(rej.body_text())),
        };
        let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
        if first.is_some_and(|b| *b != b'{') {
            return Err(ApiError::Validation(
                "the request body must be a JSON object".into(),
            ));
        }
        match axum::Json::<T>::from_bytes(&bytes) {
            Ok(axum::Json(v)) => Ok(ApiJson(v)),
            Err(rej) => Err(match rej {
                JsonRejection::JsonDataError(_) => ApiError::Validation(rej.body_text()),
                _ => ApiError::BadRequest(rej.body_text()),
            }),
        }
    }
}

/// `Query<T>` whose rejection (a query value of the wrong type) is a JSON 400 `bad_request`.
pub struct ApiQuery<T>(pub T);

impl<S, T> axum::extract::FromRequestParts<S> for ApiQuery<T>
where
    T: serde::de::DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, Self::Rejection> {
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(v)) => Ok(ApiQuery(v)),
            Err(rej) => Err(ApiError::BadRequest(rej.body_text())),
        }
    }
}

/// A seq (or byte offset) given in a query: `min..=2^53 − 1`, else 422 naming the parameter.
pub(crate) fn seq_param(
    name: &str,
    v: Option<i64>,
    min: i64,
) -> crate::error::ApiResult<Option<i64>> {
    match v {
        Some(n) if !(min..=crate::protocol::MAX_SAFE_INTEGER).contains(&n) => Err(
            ApiError::Validation(format!("{name} must be between {min} and 2^53 - 1")),
        ),
        v => Ok(v),
    }
}

pub(crate) fn limit_of(l: Option<i64>, default: i64, max: i64) -> crate::error::ApiResult<i64> {
    match l {
        None => Ok(default),
        Some(n) if (1..=max).contains(&n) => Ok(n),
        Some(_) => Err(ApiError::Validation(format!(
            "limit must be between 1 and {max}"
        ))),
    }
}

/// What a caller may do, as the gate found it (for handlers whose need depends on the body).
#[derive(Debug, Clone, Copy)]
pub struct Granted(pub crate::auth::Scopes);

impl Granted {
    /// `Forbidden` unless the caller has `scope`.
    pub fn require(
        self,
        scope: crate::protocol::TokenScope,
        what: &str,
    ) -> Result<(), crate::error::ApiError> {
        if self.0.has(scope) {
            Ok(())
        } else {
            Err(crate::error::ApiError::Forbidden(format!(
                "{what} needs a token with the `{}` scope (or the browser)",
                scope.as_str()
            )))
        }
    }
}

/// A cookie WebSocket that must send its page token in its first frame.
#[derive(Debug, Clone, Copy)]
pub struct PageInFirstFrame;
