//! The finishing pass over the OpenAPI document utoipa derives: what the annotations cannot say
//! once per operation. Every response gets a description; every operation declares the errors
//! the edge can return for it (and `default`); events become one named schema per type behind
//! a discriminated union with a fallback for types a newer server adds; binary responses get
//! their content types; `servers` is set. The handlers' annotations stay the source of what is
//! specific to each call.

use serde_json::{Map, Value, json};

/// Error codes the server returns, with their meaning (the `code` of `ErrorBody`). An open set:
/// a client must tolerate codes not listed here.
pub const ERROR_CODES: &[(&str, &str)] = &[
    (
        "bad_request",
        "400: malformed request (bad JSON, a query value of the wrong type, a bad cursor)",
    ),
    (
        "unauthorized",
        "401: no valid token or session cookie (or a wrong password)",
    ),
    (
        "forbidden",
        "403: refused Host or Origin, or a cross-site request",
    ),
    ("not_found", "404: no such object (or route)"),
    (
        "conflict",
        "409: the object is not in a state that allows this (already answered, session busy…)",
    ),
    (
        "payload_too_large",
        "413: the request body exceeds 2 MiB (48 MiB for a prompt with images or an import)",
    ),
    (
        "unsupported_media_type",
        "415: the body is not `Content-Type: application/json`",
    ),
    (
        "validation_failed",
        "422: well-formed but invalid (a value out of range, an unknown field, an empty text)",
    ),
    (
        "rate_limited",
        "429: too many attempts; the `Retry-After` header says when to retry",
    ),
    (
        "internal",
        "500: a server fault (details are in the server log)",
    ),
    (
        "provider_error",
        "502: the model provider failed or could not be reached",
    ),
    ("database_busy", "503: the database is busy; retry shortly"),
    (
        "unavailable",
        "503: the server is shutting down or the feature is not available",
    ),
    (
        "disk_full",
        "507: the server's disk is full; nothing new is saved until space is freed",
    ),
];

/// The statuses every authenticated operation can return besides its own, with descriptions.
fn common_errors(
    method: &str,
    has_body: bool,
    has_query: bool,
    public: bool,
) -> Vec<(&'static str, &'static str)> {
    let mut out = vec![];
    if has_body || has_query {
        out.push((
            "400",
            "Malformed request: bad JSON or a query value of the wrong type (`bad_request`)",
        ));
    }
    if !public {
        out.push((
            "401",
            "No valid bearer token or session cookie (`unauthorized`)",
        ));
    }
    out.push((
        "403",
        "Refused Host or Origin header, or a cross-site browser request (`forbidden`)",
    ));
    if has_body {
        out.push((
            "413",
            "The request body exceeds 2 MiB (`payload_too_large`)",
        ));
        out.push((
            "415",
            "The body is not `application/json` (`unsupported_media_type`)",
        ));
    }
    if has_body || has_query {
        out.push((
            "422",
            "Well-formed but invalid: a value out of range, an unknown field (`validation_failed`)",
        ));
    }
    out.push((
        "503",
        "The database is busy or the server is stopping; retry shortly (`database_busy`, `unavailable`)",
    ));
    if method != "get" {
        out.push((
            "507",
            "The server's disk is full; nothing was saved (`disk_full`)",
        ));
    }
    out
}

fn status_description(status: &str) -> &'static str {
    match status {
        "200" => "OK",
        "201" => "Created",
        "202" => "Accepted: the work continues in the background",
        "204" => "Done; no body",
        "400" => "Malformed request (`bad_request`)",
        "401" => "No valid bearer token or session cookie (`unauthorized`)",
        "403" => "Refused (`forbidden`)",
        "404" => "No such object (`not_found`)",
        "409" => "Not possible in the object's current state (`conflict`)",
        "413" => "The request body exceeds 2 MiB (`payload_too_large`)",
        "415" => "The body is not `application/json` (`unsupported_media_type`)",
        "422" => "Invalid values (`validation_failed`)",
        "429" => "Too many attempts; see `Retry-After` (`rate_limited`)",
        "502" => "The model provider failed or could not be reached (`provider_error`)",
        "503" => "Busy or stopping; retry shortly (`database_busy`, `unavailable`)",
        "507" => "The server's disk is full (`disk_full`)",
        _ => "An error; see `ErrorBody`",
    }
}

fn error_ref() -> Value {
    json!({"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}})
}

/// Finish the document (see the module comment).
pub fn finish(doc: &mut Value) {
    doc["servers"] = json!([{
        "url": "http://127.0.0.1:7420",
        "description": "A local server started with `tradewind serve` (default address); over a LAN, the `https://` URL it prints"
    }]);
    finish_operations(doc);
    add_links(doc);
    name_tool_inputs(doc);
    if let Some(ps) = doc
        .pointer_mut("/paths/~1api~1sessions~1{id}~1events~1stream/get/parameters")
        .and_then(Value::as_array_mut)
    {
        for p in ps.iter_mut().filter(|p| p["name"] == "Last-Event-ID") {
            p["schema"] = json!({"type": "string", "pattern": "^[0-9]{1,15}$"});
        }
    }
    type_events(doc);
    type_error_codes(doc);
}

fn finish_operations(doc: &mut Value) {
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for ops in paths.values_mut() {
        let Some(ops) = ops.as_object_mut() else {
            continue;
        };
        for (method, op) in ops.iter_mut() {
            let has_body = op.get("requestBody").is_some();
            let has_query = op
                .get("parameters")
                .and_then(Value::as_array)
                .is_some_and(|ps| ps.iter().any(|p| p["in"] == "query"));
            let public = op
                .get("security")
                .and_then(Value::as_array)
                .is_some_and(|s| s.iter().all(|r| r.as_object().is_some_and(Map::is_empty)));
            let op_id = op["operationId"].as_str().unwrap_or_default().to_string();
            let responses = op
                .as_object_mut()
                .map(|o| o.entry("responses").or_insert_with(|| json!({})));
            let Some(Value::Object(responses)) = responses else {
                continue;
            };
            for (status, desc) in common_errors(method, has_body, has_query, public) {
                responses
                    .entry(status)
                    .or_insert_with(|| json!({"description": desc, "content": error_ref()}));
            }
            responses.entry("default").or_insert_with(|| {
                json!({"description": "Any other error, in the same shape", "content": error_ref()})
            });
            for (status, r) in responses.iter_mut() {
                let Some(r) = r.as_object_mut() else { continue };
                let empty = r
                    .get("description")
                    .and_then(Value::as_str)
                    .is_none_or(str::is_empty);
                if empty {
                    r.insert("description".into(), status_description(status).into());
                }
            }
            if let (Some(content), Some(ok)) = (
                binary_content(&op_id),
                responses.get_mut("200").and_then(Value::as_object_mut),
            ) {
                ok.insert("content".into(), content);
            }
        }
    }
}

/// OpenAPI links: where the id a call returns is used next (a session's calls after
/// `create_session`, a run's after `post_message`). Documentation for readers and generators,
/// and the paths a stateful fuzzer follows.
fn add_links(doc: &mut Value) {
    const SESSION_OPS: &[&str] = &[
        "get_session",
        "patch_session",
        "delete_session",
        "fork_session",
        "list_messages",
        "post_message",
        "list_events",
        "stream_events",
        "pending",
        "permissions",
        "list_queue",
        "list_runs",
        "list_tasks",
        "list_artifacts",
        "files",
    ];
    const RUN_OPS: &[&str] = &["get_run", "cancel_run", "resume_run"];
    let table: [(&str, &str, &str, &[&str]); 3] = [
        ("create_session", "201", "$response.body#/id", SESSION_OPS),
        ("post_message", "202", "$response.body#/run_id", RUN_OPS),
        (
            "create_token",
            "201",
            "$response.body#/id",
            &["revoke_token"],
        ),
    ];
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for ops in paths.values_mut().filter_map(Value::as_object_mut) {
        for op in ops.values_mut() {
            let id = op["operationId"].as_str().unwrap_or_default().to_string();
            for (from, status, source, targets) in &table {
                if id != *from {
                    continue;
                }
                let links: Map<String, Value> = targets
                    .iter()
                    .map(|t| {
                        (
                            pascal(t),
                            json!({"operationId": t, "parameters": {"id": source}}),
                        )
                    })
                    .collect();
                if let Some(r) = op.pointer_mut(&format!("/responses/{status}")) {
                    r["links"] = Value::Object(links);
                }
            }
        }
    }
}

/// Every `input` that is a tool's arguments (a bare object in the derived schemas) becomes a
/// reference to the named `ToolInput`.
fn name_tool_inputs(doc: &mut Value) {
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    fn visit(v: &mut Value) {
        match v {
            Value::Object(o) => {
                if let Some(Value::Object(input)) =
                    o.get_mut("properties").and_then(|p| p.get_mut("input"))
                    && input.get("type") == Some(&json!("object"))
                    && !input.contains_key("properties")
                {
                    let description = input.remove("description");
                    input.clear();
                    input.insert("$ref".into(), json!("#/components/schemas/ToolInput"));
                    if let Some(d) = description {
                        input.insert("description".into(), d);
                    }
                }
                o.values_mut().for_each(visit);
            }
            Value::Array(a) => a.iter_mut().for_each(visit),
            _ => {}
        }
    }
    schemas.values_mut().for_each(visit);
    schemas.insert(
        "ToolInput".into(),
        json!({
            "type": "object",
            "additionalProperties": true,
            "description": "A tool's arguments as the model sent them (or as a dry run gives them): a JSON object whose fields depend on the tool, e.g. `{\"command\": \"cargo test\"}` for `shell` or `{\"path\": \"src/main.rs\"}` for `read_file`."
        }),
    );
}

/// Responses that are files, not JSON.
fn binary_content(op_id: &str) -> Option<Value> {
    let bytes = json!({"schema": {"type": "string", "format": "binary"}});
    let text = json!({"schema": {"type": "string"}});
    match op_id {
        "artifact_file" => Some(json!({
            "text/plain": text,
            "application/octet-stream": bytes,
        })),
        "download_artifact" => Some(json!({
            "application/zip": bytes,
            "application/x-tar": {"schema": {"type": "string", "format": "binary"}},
        })),
        "stream_events" => Some(json!({
            "text/event-stream": {"schema": {
                "type": "object",
                "description": "One server-sent event: `id:` the seq, `event:` the type, `data:` the `EventFrame` JSON. Comment lines (`: keep-alive`) are heartbeats.",
                "required": ["id", "event", "data"],
                "properties": {
                    "id": {"type": "string", "pattern": "^[0-9]+$", "description": "The event's seq (what `Last-Event-ID` resumes after)."},
                    "event": {"type": "string", "description": "The event's `type`."},
                    "data": {
                        "type": "string",
                        "description": "The `EventFrame`, as JSON.",
                        "contentMediaType": "application/json",
                        "contentSchema": {"$ref": "#/components/schemas/EventFrame"}
                    }
                }
            }}
        })),
        _ => None,
    }
}

fn pascal(snake: &str) -> String {
    snake
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The `type` a variant of the derived `EventPayload` stands for, looking inside an `allOf`
/// (a flattened variant).
fn variant_type(v: &Value) -> Option<String> {
    if let Some(t) = v.pointer("/properties/type/enum/0").and_then(Value::as_str) {
        return Some(t.to_string());
    }
    v.get("allOf")?.as_array()?.iter().find_map(variant_type)
}

/// One named schema per event type (`allOf` the shared `EventEnvelope` and its own fields),
/// `KnownEvent` their discriminated union, and `EventFrame` = `KnownEvent` or `UnknownEvent`
/// (a type added by a newer server) so clients generated today keep parsing tomorrow's log.
fn type_events(doc: &mut Value) {
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let Some(Value::Object(payload)) = schemas.remove("EventPayload") else {
        return;
    };
    let variants = payload
        .get("oneOf")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    // The envelope: the frame's own fields (the derived EventFrame is allOf [payload, envelope]).
    let envelope = schemas
        .get("EventFrame")
        .and_then(|f| f.get("allOf"))
        .and_then(Value::as_array)
        .and_then(|a| a.iter().find(|s| s.get("properties").is_some()))
        .cloned()
        .unwrap_or_else(|| json!({"type": "object"}));
    let mut envelope = envelope;
    envelope["description"] = json!(
        "What every event carries: its gap-free `seq` in the session, the session id, the run it belongs to (null for session-level events) and when it was stored (ms since the epoch)."
    );
    envelope["properties"]["seq"]["description"] =
        json!("Position in the session's log: 1, 2, 3… with no gaps.");
    envelope["properties"]["session"]["description"] = json!("The session id.");
    envelope["properties"]["run"]["description"] =
        json!("The run that produced the event; null for session-level events.");
    envelope["properties"]["at"]["description"] =
        json!("When the event was stored, in milliseconds since the Unix epoch.");
    schemas.insert("EventEnvelope".into(), envelope);

    let mut refs = vec![];
    let mut mapping = Map::new();
    for v in variants {
        let Some(t) = variant_type(&v) else { continue };
        let name = format!("{}Event", pascal(&t));
        let description = v
            .get("description")
            .cloned()
            .unwrap_or_else(|| json!(format!("A `{t}` event.")));
        let mut own = v;
        if let Some(o) = own.as_object_mut() {
            o.remove("description");
        }
        let mut parts = vec![json!({"$ref": "#/components/schemas/EventEnvelope"})];
        match own.get("allOf").and_then(Value::as_array) {
            Some(inner) => parts.extend(inner.iter().cloned()),
            None => parts.push(own),
        }
        let reference = format!("#/components/schemas/{name}");
        schemas.insert(
            name.clone(),
            json!({"description": description, "allOf": parts}),
        );
        mapping.insert(t.clone(), json!(reference));
        refs.push(json!({"$ref": reference}));
    }
    schemas.insert(
        "EventType".into(),
        json!({
            "type": "string",
            "description": "The event types this server version emits. An open set: newer servers may add types (parse those as `UnknownEvent`).",
            "enum": mapping.keys().collect::<Vec<_>>(),
        }),
    );
    schemas.insert(
        "KnownEvent".into(),
        json!({
            "description": "An event of a type this version of the API documents, discriminated by `type`.",
            "oneOf": refs,
            "discriminator": {"propertyName": "type", "mapping": mapping},
        }),
    );
    schemas.insert(
        "UnknownEvent".into(),
        json!({
            "description": "An event of a type not documented in this version (added by a newer server): the envelope, its `type`, and whatever fields it has. Ignore it or show it generically.",
            "allOf": [
                {"$ref": "#/components/schemas/EventEnvelope"},
                {
                    "type": "object",
                    "required": ["type"],
                    "properties": {"type": {"type": "string"}},
                    "additionalProperties": true
                }
            ]
        }),
    );
    schemas.insert(
        "EventFrame".into(),
        json!({
            "description": "One stored, sequenced event as sent to clients (REST pages, SSE `data:`, WebSocket `event` frames): `{\"seq\":N,\"session\":ID,\"run\":ID|null,\"at\":MS,\"type\":\"…\",…fields}`. A documented type parses as `KnownEvent`; any other as `UnknownEvent`.",
            "anyOf": [
                {"$ref": "#/components/schemas/KnownEvent"},
                {"$ref": "#/components/schemas/UnknownEvent"}
            ]
        }),
    );
}

/// `ErrorDetail.code` lists the known codes (an open set).
fn type_error_codes(doc: &mut Value) {
    let Some(code) = doc.pointer_mut("/components/schemas/ErrorDetail/properties/code") else {
        return;
    };
    let list: Vec<String> = ERROR_CODES
        .iter()
        .map(|(c, d)| format!("- `{c}` — {d}"))
        .collect();
    code["description"] = json!(format!(
        "Stable machine-readable code. Known values (an open set: tolerate others):\n{}",
        list.join("\n")
    ));
    code["examples"] = json!(["not_found"]);
}

/// Where the generated reference sits in `docs/PROTOCOL.md`.
pub const REFERENCE_BEGIN: &str = "<!-- reference:begin (generated by `tradewind openapi --reference`; a test fails when it drifts) -->";
pub const REFERENCE_END: &str = "<!-- reference:end -->";

/// The Markdown reference `docs/PROTOCOL.md` embeds, rendered from the finished document: every
/// operation by tag with its summary and success status, and every event type with its fields.
pub fn reference(doc: &Value) -> String {
    let mut out = String::new();
    out.push_str(REFERENCE_BEGIN);
    out.push_str("\n\n### Operations\n");
    let tags = doc["tags"].as_array().cloned().unwrap_or_default();
    for tag in &tags {
        let name = tag["name"].as_str().unwrap_or_default();
        out.push_str(&format!(
            "\n#### {name}\n{}\n\n| Call | What it does | Success |\n|---|---|---|\n",
            tag["description"].as_str().unwrap_or_default()
        ));
        let Some(paths) = doc["paths"].as_object() else {
            continue;
        };
        for (path, ops) in paths {
            let Some(ops) = ops.as_object() else { continue };
            for (method, op) in ops {
                if op["tags"].get(0).and_then(Value::as_str) != Some(name) {
                    continue;
                }
                let ok: Vec<&str> = op["responses"]
                    .as_object()
                    .map(|r| {
                        r.keys()
                            .map(String::as_str)
                            .filter(|k| k.starts_with('2'))
                            .collect()
                    })
                    .unwrap_or_default();
                out.push_str(&format!(
                    "| `{} {path}` | {} | {} |\n",
                    method.to_uppercase(),
                    op["summary"]
                        .as_str()
                        .unwrap_or_default()
                        .replace('|', "\\|"),
                    ok.join(", ")
                ));
            }
        }
    }
    out.push_str("\n### Event types\n\nEvery frame is `EventEnvelope` (`seq`, `session`, `run`, `at`) plus `type` and the fields below (`?`: may be absent or null).\n\n");
    let schemas = &doc["components"]["schemas"];
    let mapping = schemas["KnownEvent"]["discriminator"]["mapping"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    for (t, r) in &mapping {
        let name = r
            .as_str()
            .unwrap_or_default()
            .rsplit('/')
            .next()
            .unwrap_or_default();
        let schema = &schemas[name];
        let mut fields = vec![];
        for part in schema["allOf"].as_array().into_iter().flatten() {
            let part = match part["$ref"].as_str() {
                Some(r) if r.ends_with("/EventEnvelope") => continue,
                Some(r) => &schemas[r.rsplit('/').next().unwrap_or_default()],
                None => part,
            };
            let required: Vec<&str> = part["required"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for (field, fs) in part["properties"].as_object().into_iter().flatten() {
                if field == "type" {
                    continue;
                }
                let optional =
                    !required.contains(&field.as_str()) || type_of(fs).ends_with("| null");
                fields.push(format!(
                    "`{field}{}` {}",
                    if optional { "?" } else { "" },
                    type_of(fs).trim_end_matches(" | null")
                ));
            }
        }
        let desc = schema["description"]
            .as_str()
            .unwrap_or_default()
            .replace('\n', " ");
        out.push_str(&format!(
            "- `{t}` — {desc} Fields: {}.\n",
            fields.join(", ")
        ));
    }
    out.push('\n');
    out.push_str(REFERENCE_END);
    out
}

/// A schema's type in a few words: `string`, `Session`, `array of Part`, `Usage | null`.
fn type_of(s: &Value) -> String {
    if let Some(r) = s["$ref"].as_str() {
        return r.rsplit('/').next().unwrap_or_default().to_string();
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(alts) = s[key].as_array() {
            return alts.iter().map(type_of).collect::<Vec<_>>().join(" | ");
        }
    }
    let one = |t: &str| match t {
        "array" => format!("array of {}", type_of(&s["items"])),
        t => t.to_string(),
    };
    match &s["type"] {
        Value::String(t) => one(t),
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(one)
            .collect::<Vec<_>>()
            .join(" | "),
        _ => "any".into(),
    }
}

#[cfg(test)]
#[expect(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    fn doc() -> Value {
        serde_json::from_str(&crate::http::openapi_json()).expect("the document is JSON")
    }

    #[test]
    fn every_response_is_described_and_every_operation_has_default() {
        let d = doc();
        for (path, ops) in d["paths"].as_object().unwrap() {
            for (method, op) in ops.as_object().unwrap() {
                let rs = op["responses"].as_object().unwrap();
                assert!(rs.contains_key("default"), "{method} {path}: no default");
                for (status, r) in rs {
                    let desc = r["description"].as_str().unwrap_or_default();
                    assert!(!desc.is_empty(), "{method} {path} {status}: no description");
                }
            }
        }
    }

    #[test]
    fn every_operation_and_parameter_is_described_and_the_main_bodies_have_examples() {
        let d = doc();
        for (path, ops) in d["paths"].as_object().unwrap() {
            for (method, op) in ops.as_object().unwrap() {
                for key in ["summary", "description"] {
                    let text = op[key].as_str().unwrap_or_default();
                    assert!(!text.is_empty(), "{method} {path}: no {key}");
                }
                for p in op["parameters"].as_array().into_iter().flatten() {
                    let text = p["description"].as_str().unwrap_or_default();
                    assert!(
                        !text.is_empty(),
                        "{method} {path}: parameter {} undescribed",
                        p["name"]
                    );
                }
            }
        }
        for tag in d["tags"].as_array().unwrap() {
            assert!(
                tag["description"].as_str().is_some_and(|t| !t.is_empty()),
                "{tag}"
            );
        }
        let schemas = &d["components"]["schemas"];
        for name in [
            "CreateSessionParams",
            "PostMessageParams",
            "Session",
            "RunInfo",
            "ErrorBody",
            "ApprovalParams",
            "PlanDecisionParams",
        ] {
            assert!(
                schemas[name]["examples"].is_array(),
                "{name} has no example"
            );
        }
    }

    #[test]
    fn every_event_type_has_a_named_schema_in_the_union() {
        let d = doc();
        let s = &d["components"]["schemas"];
        let mapping = s["KnownEvent"]["discriminator"]["mapping"]
            .as_object()
            .unwrap();
        for t in crate::protocol::EventType::all() {
            let r = mapping.get(t).unwrap_or_else(|| panic!("{t} not mapped"));
            let name = r.as_str().unwrap().rsplit('/').next().unwrap();
            assert!(s.get(name).is_some(), "{name} missing");
        }
        assert_eq!(mapping.len(), crate::protocol::EventType::all().count());
        assert!(s.get("EventPayload").is_none());
    }

    #[test]
    fn error_codes_cover_the_api_errors() {
        use crate::error::ApiError;
        let errors = [
            ApiError::BadRequest(String::new()),
            ApiError::Unauthorized,
            ApiError::Forbidden(String::new()),
            ApiError::NotFound(String::new()),
            ApiError::Conflict(String::new()),
            ApiError::PayloadTooLarge,
            ApiError::UnsupportedMediaType(String::new()),
            ApiError::Validation(String::new()),
            ApiError::RateLimited {
                retry_after_secs: 1,
            },
            ApiError::DatabaseBusy,
            ApiError::DiskFull,
            ApiError::Unavailable(String::new()),
            ApiError::BadGateway(String::new()),
            ApiError::Internal(anyhow::anyhow!("x")),
        ];
        for e in errors {
            assert!(
                ERROR_CODES.iter().any(|(c, _)| *c == e.code()),
                "{} undocumented",
                e.code()
            );
        }
    }

    /// `docs/PROTOCOL.md` embeds the reference rendered from this document, so the two cannot
    /// disagree.
    #[test]
    fn protocol_md_embeds_the_current_reference() {
        let md = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/PROTOCOL.md"
        ))
        .expect("docs/PROTOCOL.md");
        let want = reference(&doc());
        assert!(
            md.contains(&want),
            "docs/PROTOCOL.md's generated reference is stale: replace the block between the markers with `tradewind openapi --reference`"
        );
    }
}
