//! A tool result as the model and the web app see it: text, images, and structured content
//! shaped as a table, key–value pairs or a tree.

use super::*;

/// Images shown in the web app: at most this many bytes decoded.
pub(super) const MAX_IMAGE_BYTES: usize = 1 << 20;
/// Table rows shown.
pub(super) const MAX_ROWS: usize = 500;

/// What the model sees of a result, and what the web app shows: text parts as text; images as
/// image parts (the model reads a line naming them); structured content — `structuredContent`,
/// or a text part that is JSON — shaped as a table, key–value pairs or a tree becomes that
/// display part, with its text projection for the model when no text came with it.
pub fn result_output(r: &rmcp::model::CallToolResult) -> ToolOutput {
    let mut pieces: Vec<String> = Vec::new();
    let mut parts: Vec<Part> = Vec::new();
    for c in &r.content {
        pieces.push(match c {
            ContentBlock::Text(t) => {
                if let Ok(v) = serde_json::from_str::<Value>(&t.text)
                    && let Some((p, _)) = shaped(&v)
                {
                    parts.push(p);
                }
                t.text.clone()
            }
            ContentBlock::Image(i) => {
                let bytes = i.data.len() / 4 * 3;
                if bytes <= MAX_IMAGE_BYTES
                    && matches!(
                        i.mime_type.as_str(),
                        "image/png" | "image/jpeg" | "image/gif" | "image/webp"
                    )
                {
                    parts.push(Part::Image {
                        mime_type: i.mime_type.clone(),
                        data: i.data.clone(),
                    });
                }
                format!("[image {}, {bytes} bytes]", i.mime_type)
            }
            ContentBlock::Audio(a) => {
                format!("[audio {}, {} bytes]", a.mime_type, a.data.len() / 4 * 3)
            }
            ContentBlock::Resource(e) => resource_text(&e.resource),
            ContentBlock::ResourceLink(l) => format!("[resource link {} ({})]", l.uri, l.name),
            _ => "[content of a kind this client does not know]".into(),
        });
    }
    let has_text = r.content.iter().any(|c| matches!(c, ContentBlock::Text(_)));
    if let Some(s) = &r.structured_content {
        let shape = shaped(s);
        if !has_text {
            pieces.push(match &shape {
                Some((_, text)) => text.clone(),
                None => serde_json::to_string_pretty(s).unwrap_or_default(),
            });
        }
        if let Some((p, _)) = shape
            && !parts.contains(&p)
        {
            parts.push(p);
        }
    }
    let text = bound_text(&pieces.join("\n"), MAX_MODEL_TEXT);
    let mut out = if r.is_error == Some(true) {
        ToolOutput::err("mcp_tool_error", text)
    } else {
        ToolOutput::ok(text)
    };
    out.parts = parts;
    out
}

/// A resource's contents for the model: text as text, a blob named.
pub(super) fn resource_text(c: &ResourceContents) -> String {
    match c {
        ResourceContents::TextResourceContents { uri, text, .. } => {
            format!("[resource {uri}]\n{text}")
        }
        ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => format!(
            "[resource {uri}, {}, {} bytes]",
            mime_type.as_deref().unwrap_or("binary"),
            blob.len() / 4 * 3
        ),
        _ => "[resource of a kind this client does not know]".into(),
    }
}

/// A JSON value as a scalar's text (`None` for arrays and objects).
pub(super) fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Null => Some("null".into()),
        Value::Bool(_) | Value::Number(_) => Some(v.to_string()),
        _ => None,
    }
}

pub(super) fn cell(v: &Value) -> String {
    scalar(v).unwrap_or_else(|| v.to_string())
}

/// A table, key–value pairs or a tree, and its text projection; `None` for other shapes.
pub fn shaped(v: &Value) -> Option<(Part, String)> {
    let o = v.as_object()?;
    let columns: Option<Vec<String>> = o
        .get("columns")
        .or_else(|| o.get("headers"))
        .and_then(Value::as_array)
        .map(|c| c.iter().map(cell).collect());
    if let (Some(columns), Some(rows)) = (columns, o.get("rows").and_then(Value::as_array)) {
        let rows: Vec<Vec<String>> = rows
            .iter()
            .map(|r| match r {
                Value::Array(a) => a.iter().map(cell).collect(),
                Value::Object(m) => columns
                    .iter()
                    .map(|c| m.get(c).map(cell).unwrap_or_default())
                    .collect(),
                other => vec![cell(other)],
            })
            .collect();
        let mut text = columns.join(" | ");
        for r in &rows {
            text.push('\n');
            text.push_str(&r.join(" | "));
        }
        let truncated = rows.len() > MAX_ROWS;
        let rows = rows.into_iter().take(MAX_ROWS).collect();
        return Some((
            Part::Table {
                columns,
                rows,
                truncated,
            },
            text,
        ));
    }
    if let Some(nodes) = o.get("nodes").and_then(Value::as_array)
        && o.len() == 1
    {
        let nodes: Option<Vec<TreeNode>> = nodes.iter().map(|n| tree_node(n, 0)).collect();
        let nodes = nodes?;
        let mut text = String::new();
        tree_text(&nodes, 0, &mut text);
        return Some((Part::Tree { nodes }, text.trim_end().to_string()));
    }
    if !o.is_empty() && o.len() <= 200 {
        let entries: Option<Vec<KeyValueEntry>> = o
            .iter()
            .map(|(k, v)| {
                scalar(v).map(|value| KeyValueEntry {
                    key: k.clone(),
                    value,
                })
            })
            .collect();
        let entries = entries?;
        let text = entries
            .iter()
            .map(|e| format!("{}: {}", e.key, e.value))
            .collect::<Vec<_>>()
            .join("\n");
        return Some((Part::KeyValue { entries }, text));
    }
    None
}

pub(super) fn tree_node(v: &Value, depth: usize) -> Option<TreeNode> {
    if depth > 32 {
        return None;
    }
    let o = v.as_object()?;
    let label = scalar(o.get("label")?)?;
    let meta = o.get("meta").map(cell);
    let children = match o.get("children") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(c)) => c
            .iter()
            .map(|n| tree_node(n, depth + 1))
            .collect::<Option<Vec<_>>>()?,
        Some(_) => return None,
    };
    Some(TreeNode {
        label,
        meta,
        children,
    })
}

pub(super) fn tree_text(nodes: &[TreeNode], depth: usize, out: &mut String) {
    for n in nodes {
        out.push_str(&"  ".repeat(depth));
        out.push_str("- ");
        out.push_str(&n.label);
        if let Some(m) = &n.meta {
            out.push_str(&format!(" ({m})"));
        }
        out.push('\n');
        tree_text(&n.children, depth + 1, out);
    }
}
