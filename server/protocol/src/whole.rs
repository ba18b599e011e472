//! Integers in request bodies: JSON Schema counts `3.0` as an integer, so it is accepted as 3.

use serde::{Deserialize, Deserializer};

/// A JSON value that must be an object (serde's derive would also read a struct from an
/// array of its fields).
fn object<'de, D: Deserializer<'de>>(d: D) -> Result<Option<serde_json::Value>, D::Error> {
    match Option::<serde_json::Value>::deserialize(d)? {
        None => Ok(None),
        Some(v @ serde_json::Value::Object(_)) => Ok(Some(v)),
        Some(_) => Err(serde::de::Error::custom("expected an object")),
    }
}

/// An optional struct, given as a JSON object (or null).
pub fn opt_object<'de, D: Deserializer<'de>, T: serde::de::DeserializeOwned>(
    d: D,
) -> Result<Option<T>, D::Error> {
    object(d)?
        .map(serde_json::from_value)
        .transpose()
        .map_err(serde::de::Error::custom)
}

/// A list of structs, each given as a JSON object.
pub fn objects<'de, D: Deserializer<'de>, T: serde::de::DeserializeOwned>(
    d: D,
) -> Result<Vec<T>, D::Error> {
    let items = Vec::<serde_json::Value>::deserialize(d)?;
    items
        .into_iter()
        .map(|v| match v {
            serde_json::Value::Object(_) => {
                serde_json::from_value(v).map_err(serde::de::Error::custom)
            }
            _ => Err(serde::de::Error::custom("expected an object")),
        })
        .collect()
}

/// A present field: `Some(value)`, with `null` as `Some(None)` (absent is `None`, by
/// `#[serde(default)]`). Finite and within 0..=1,000,000.
/// A present field: `Some(value)`, `null` as `Some(None)`.
#[expect(
    clippy::option_option,
    reason = "absent, null and a value mean three things in a PATCH body"
)]
pub fn some_effort<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Option<super::ReasoningEffort>>, D::Error> {
    Ok(Some(Option::<super::ReasoningEffort>::deserialize(d)?))
}

#[expect(
    clippy::option_option,
    reason = "absent, null and a value mean three things in a PATCH body"
)]
pub fn some_string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Ok(Some(Option::<String>::deserialize(d)?))
}

#[expect(
    clippy::option_option,
    reason = "absent, null and a value mean three things in a PATCH body"
)]
pub fn some_f64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<f64>>, D::Error> {
    let v = Option::<f64>::deserialize(d)?;
    if let Some(f) = v
        && !(f.is_finite() && (0.0..=1_000_000.0).contains(&f))
    {
        return Err(serde::de::Error::custom(format!(
            "{f} is not an amount between 0 and 1000000"
        )));
    }
    Ok(Some(v))
}

pub fn opt_i64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    let Some(n) = Option::<serde_json::Number>::deserialize(d)? else {
        return Ok(None);
    };
    if let Some(i) = n.as_i64() {
        if i.abs() > super::MAX_SAFE_INTEGER {
            return Err(serde::de::Error::custom(format!("{n} is beyond 2^53 - 1")));
        }
        return Ok(Some(i));
    }
    match n.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() <= super::MAX_SAFE_INTEGER as f64 => {
            Ok(Some(f as i64))
        }
        _ => Err(serde::de::Error::custom(format!("{n} is not an integer"))),
    }
}

/// A line number as JSON may write it (`12` or `12.0`): a whole number from 1 to 10,000,000.
pub fn line<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    opt_line(d)?.ok_or_else(|| serde::de::Error::custom("a line number is required"))
}

/// [`line`], optional.
pub fn opt_line<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    match opt_i64(d)? {
        None => Ok(None),
        Some(i) if (1..=10_000_000).contains(&i) => Ok(u32::try_from(i).ok()),
        Some(i) => Err(serde::de::Error::custom(format!(
            "{i} is not a line number (1 to 10,000,000)"
        ))),
    }
}
