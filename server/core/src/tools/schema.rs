//! The JSON schema a model is given for a tool's arguments, derived from the argument type
//! (schemars) and shaped the way providers take it.

use schemars::JsonSchema;
use serde_json::Value;

/// The JSON schema of a tool's arguments as providers take it: subschemas inlined, no
/// `$schema`/`title`, and an optional field typed as its value (it may simply be left out).
pub fn args_schema<A: JsonSchema>() -> Value {
    let settings = schemars::generate::SchemaSettings::draft07().with(|s| {
        s.inline_subschemas = true;
    });
    let mut v = settings
        .into_generator()
        .into_root_schema_for::<A>()
        .to_value();
    if let Some(o) = v.as_object_mut() {
        o.remove("$schema");
        o.remove("title");
    }
    strip_null(&mut v);
    v
}

/// `{"type": ["string", "null"]}` → `{"type": "string"}`, `anyOf: [X, {"type": "null"}]` → X,
/// everywhere: a field the model may omit needs no `null`.
fn strip_null(v: &mut Value) {
    match v {
        Value::Object(o) => {
            if let Some(Value::Array(types)) = o.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let t = types.remove(0);
                    o.insert("type".into(), t);
                }
            }
            if let Some(Value::Array(any)) = o.get("anyOf").cloned() {
                let rest: Vec<Value> = any
                    .into_iter()
                    .filter(|s| s.get("type").and_then(Value::as_str) != Some("null"))
                    .collect();
                if rest.len() == 1
                    && let Some(Value::Object(inner)) = rest.into_iter().next()
                {
                    o.remove("anyOf");
                    for (k, val) in inner {
                        o.entry(k).or_insert(val);
                    }
                }
            }
            if let Some(Value::Array(e)) = o.get_mut("enum") {
                e.retain(|x| !x.is_null());
            }
            // A documented Rust enum comes out as `oneOf` string constants: one `enum` instead.
            if let Some(values) = o.get("oneOf").and_then(string_choices) {
                o.remove("oneOf");
                o.insert("type".into(), "string".into());
                o.insert("enum".into(), Value::Array(values));
            }
            if o.get("default").is_some_and(Value::is_null) {
                o.remove("default");
            }
            // Rust's integer widths (`uint64`, `int32` …) are not JSON Schema formats.
            if o.get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| f.starts_with("int") || f.starts_with("uint"))
            {
                o.remove("format");
            }
            for (_, child) in o.iter_mut() {
                strip_null(child);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(strip_null),
        _ => {}
    }
}

/// The values of a `oneOf` whose every branch is a string `const` or string `enum`.
fn string_choices(one_of: &Value) -> Option<Vec<Value>> {
    let mut out = Vec::new();
    for branch in one_of.as_array()? {
        if branch.get("type").and_then(Value::as_str) != Some("string") {
            return None;
        }
        match (branch.get("const"), branch.get("enum")) {
            (Some(c), None) => out.push(c.clone()),
            (None, Some(Value::Array(e))) => out.extend(e.iter().cloned()),
            _ => return None,
        }
    }
    Some(out)
}
