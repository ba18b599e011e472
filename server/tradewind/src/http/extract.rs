//! Extractors whose rejections use our JSON error shape.

use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;

use crate::error::ApiError;

/// `Json<T>` whose rejections are `ApiError`s (415 / 413 / 400 / 422).
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    axum::Json<T>: FromRequest<S, Rejection = JsonRejection>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match axum::Json::<T>::from_request(req, state).await {
            Ok(axum::Json(v)) => Ok(ApiJson(v)),
            Err(rej) => Err(match rej.status() {
                StatusCode::UNSUPPORTED_MEDIA_TYPE => {
                    ApiError::UnsupportedMediaType("expected Content-Type: application/json".into())
                }
                StatusCode::PAYLOAD_TOO_LARGE => ApiError::PayloadTooLarge,
                StatusCode::UNPROCESSABLE_ENTITY => ApiError::Validation(rej.body_text()),
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
