//! JSON columns, decoded once, where a row is read into what the API shows: a value that does not
//! decode is an error naming its row and column (never a silent default); in a list, that row
//! is logged with its id and left out, and the rest of the page loads.

use serde::de::DeserializeOwned;

use super::{StoreError, StoreResult};

/// A JSON column's value. `what` and `id` name the row (`message 01J…`).
pub fn decode<T: DeserializeOwned>(
    what: &'static str,
    id: &str,
    column: &'static str,
    text: &str,
) -> StoreResult<T> {
    serde_json::from_str(text).map_err(|e| {
        StoreError::Other(anyhow::anyhow!(
            "{what} {id}: its {column} does not read as what this server stores ({e})"
        ))
    })
}

/// A JSON column that may be null.
pub fn decode_opt<T: DeserializeOwned>(
    what: &'static str,
    id: &str,
    column: &'static str,
    text: Option<&str>,
) -> StoreResult<Option<T>> {
    text.map(|t| decode(what, id, column, t)).transpose()
}

/// The rows of a list that read; each one that does not is logged (with its id, in the error)
/// and left out.
pub fn readable<T>(rows: impl IntoIterator<Item = StoreResult<T>>) -> Vec<T> {
    rows.into_iter()
        .filter_map(|r| match r {
            Ok(v) => Some(v),
            Err(e) => {
                tracing::error!(error = %e, "a row that does not read is left out of a list");
                None
            }
        })
        .collect()
}
