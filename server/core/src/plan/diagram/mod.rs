//! Validation of the Mermaid diagrams `exit_plan` may attach to a plan, without rendering them
//! (Mermaid needs a DOM): size, allowed type, a rough node estimate, and a fail-closed scan for
//! anything that could run script, inject style or fetch external content (SECURITY.md X3). A
//! failing diagram is dropped with a short reason the model can act on; the plan is still published.
//!
//! Decisions where the spec left room:
//! * Every `%%{...}%%` directive (also `%% {`) is rejected. Front matter (`---` as the first
//!   non-blank line) may only hold top-level `title:` lines and `#` comments.
//! * HTML (`&#106;`, `&#x6a;`, `&colon;`) and Mermaid (`#106;`, `#colon;`) entities are decoded
//!   (3 passes) before the tag/URL checks; a numeric entity encoding an ASCII letter/digit, `:`,
//!   whitespace, a control or an invalid code point is rejected (Mermaid's `#NNN;` is exempt on
//!   lines mentioning `style`/`classDef`, where `#111;` is a CSS colour).
//! * HTML tag = `<` + ASCII letter, `/`, `!` or `?`; `<<name>>` only in class/state diagrams.
//! * `javascript:`/`vbscript:` match after removing whitespace, controls and zero-width chars;
//!   `data:` only at a word start followed by `,`, `;` or `<mime-type>/`; `url(` only when not the
//!   tail of a longer identifier ("User data: stored" and "curl(x)" pass); `href` anywhere.
//! * `click`/`link`/`links`/`callback`/`call` are rejected as the first word of a statement (lines
//!   split on `;`); `img` inside a `@{ }` shape. `style`/`classDef`/`linkStyle` lines allow only
//!   simple CSS (no `url(`, `expression(`, `@`, braces, `\`, quotes, font-family; rgb/hsl only).
//! * `validate_all` keeps the first `max` entries by position and drops later reused ids. Title
//!   and explanation are required (≤ 200 / 4000 chars); `Dropped.id` is cut to 80 chars.

use std::collections::{HashMap, HashSet};

pub const MAX_DIAGRAM_BYTES: usize = 8 * 1024;
pub const MAX_NODES: usize = 40;
pub const DEFAULT_MAX_DIAGRAMS: usize = 5;
const MAX_ID_CHARS: usize = 64;
const ALLOWED_TYPES: [&str; 11] = [
    "flowchart",
    "graph",
    "sequenceDiagram",
    "stateDiagram",
    "stateDiagram-v2",
    "erDiagram",
    "classDiagram",
    "gantt",
    "mindmap",
    "timeline",
    "journey",
];
const SECURITY_KEYS: [&str; 9] = [
    "securityLevel",
    "htmlLabels",
    "secure",
    "themeCSS",
    "fontFamily",
    "themeVariables",
    "maxTextSize",
    "startOnLoad",
    "dompurifyConfig",
];
const MIME_TOPS: [&str; 9] = [
    "text",
    "image",
    "application",
    "audio",
    "video",
    "font",
    "model",
    "multipart",
    "message",
];

/// One entry of the tool's `diagrams` array; `kind` is the tool's `type` field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiagramInput {
    pub id: String,
    pub title: String,
    pub explanation: String,
    pub section: Option<String>,
    pub kind: Option<String>,
    pub mermaid: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiagramKind {
    Overview,
    Flow,
    Components,
    Architecture,
    Sequence,
    Data,
    State,
    Other,
}

const KINDS: [(DiagramKind, &str); 8] = [
    (DiagramKind::Overview, "overview"),
    (DiagramKind::Flow, "flow"),
    (DiagramKind::Components, "components"),
    (DiagramKind::Architecture, "architecture"),
    (DiagramKind::Sequence, "sequence"),
    (DiagramKind::Data, "data"),
    (DiagramKind::State, "state"),
    (DiagramKind::Other, "other"),
];

impl DiagramKind {
    pub fn as_str(self) -> &'static str {
        KINDS
            .iter()
            .find(|(k, _)| *k == self)
            .map_or("other", |(_, s)| s)
    }
    /// Case-insensitive; surrounding whitespace is ignored.
    pub fn parse(s: &str) -> Option<Self> {
        KINDS
            .iter()
            .find(|(_, n)| n.eq_ignore_ascii_case(s.trim()))
            .map(|(k, _)| *k)
    }
}

/// An accepted diagram; `mermaid_type` is the keyword, e.g. "flowchart", "sequenceDiagram".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidDiagram {
    pub id: String,
    pub title: String,
    pub explanation: String,
    pub section: Option<String>,
    pub kind: DiagramKind,
    pub mermaid_type: &'static str,
    pub mermaid: String,
    pub estimated_nodes: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    pub id: String,
    pub reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    New,
    Updated,
    Unchanged,
}

/// Validate one diagram. Reasons are short, specific English sentences the model can act on.
pub fn validate(d: &DiagramInput) -> Result<ValidDiagram, Dropped> {
    check(d).map_err(|reason| Dropped {
        id: snippet(&d.id, 80),
        reason,
    })
}

/// Validate a list: only the first `max` entries count; later entries reusing an id are dropped.
pub fn validate_all(list: &[DiagramInput], max: usize) -> (Vec<ValidDiagram>, Vec<Dropped>) {
    let (mut accepted, mut dropped, mut seen) = (Vec::new(), Vec::new(), HashSet::new());
    for (i, d) in list.iter().enumerate() {
        let reason = if i >= max {
            format!(
                "only {max} diagrams are allowed per plan; this is diagram {}",
                i + 1
            )
        } else if !seen.insert(d.id.as_str()) {
            format!(
                "duplicate id `{}`; each diagram needs a unique id",
                snippet(&d.id, 64)
            )
        } else {
            match validate(d) {
                Ok(v) => accepted.push(v),
                Err(e) => dropped.push(e),
            }
            continue;
        };
        dropped.push(Dropped {
            id: snippet(&d.id, 80),
            reason,
        });
    }
    (accepted, dropped)
}

/// The Mermaid keyword of the first meaningful line (after front matter, skipping blank lines and
/// `%%` comments); `None` if it is not an allowed type.
pub fn mermaid_type(src: &str) -> Option<&'static str> {
    let kw = first_line(split_front_matter(src).ok()?.1)?
        .split(|c: char| c.is_whitespace() || c == ';')
        .next()?;
    ALLOWED_TYPES.into_iter().find(|a| *a == kw)
}

/// Plan `type` for a Mermaid keyword: flowchart/graph → flow, sequenceDiagram → sequence,
/// stateDiagram* → state, erDiagram → data, classDiagram → components,
/// gantt/timeline/journey/mindmap → overview, anything else → other.
pub fn infer_kind(mermaid_type: &str) -> DiagramKind {
    use DiagramKind::*;
    match mermaid_type {
        "flowchart" | "graph" => Flow,
        "sequenceDiagram" => Sequence,
        "stateDiagram" | "stateDiagram-v2" => State,
        "erDiagram" => Data,
        "classDiagram" => Components,
        "gantt" | "timeline" | "journey" | "mindmap" => Overview,
        _ => Other,
    }
}

/// Rough node count: flowchart = distinct ids outside labels; sequence = participants; state =
/// states (not `[*]`); er/class = entities/classes; mindmap = lines; gantt/journey = tasks;
/// timeline = events; any other type = statement lines.
pub fn estimate_nodes(mermaid_type: &str, src: &str) -> usize {
    let lines = body_lines(src);
    let not_kw = |skip: &[&str]| {
        lines
            .iter()
            .filter(|l| !skip.contains(&keyword(l).as_str()))
            .copied()
            .collect::<Vec<_>>()
    };
    let mut set = HashSet::new();
    match mermaid_type {
        "flowchart" | "graph" => flow_nodes(&lines, &mut set),
        "sequenceDiagram" => sequence_nodes(&lines, &mut set),
        "stateDiagram" | "stateDiagram-v2" => state_nodes(&lines, &mut set),
        "erDiagram" | "classDiagram" => {
            entity_nodes(&lines, mermaid_type == "classDiagram", &mut set)
        }
        "mindmap" => {
            return lines
                .iter()
                .filter(|l| !l.starts_with("::icon(") && !l.starts_with(":::"))
                .count();
        }
        "gantt" | "journey" => {
            return not_kw(&[
                "title",
                "dateformat",
                "axisformat",
                "tickinterval",
                "excludes",
                "includes",
                "todaymarker",
                "section",
                "weekday",
                "weekend",
                "acctitle",
                "accdescr",
                "displaymode",
                "inclusiveenddates",
                "topaxis",
                "click",
            ])
            .iter()
            .filter(|l| l.contains(':'))
            .count();
        }
        "timeline" => {
            return not_kw(&["title", "section", "acctitle", "accdescr"])
                .iter()
                .map(|l| {
                    l.split(':')
                        .skip(1)
                        .filter(|p| !p.trim().is_empty())
                        .count()
                })
                .sum();
        }
        _ => return lines.len(),
    }
    set.len()
}

/// Marks each current diagram against the previous revision (id → source) and lists previous ids
/// no longer present (sorted). Sources are compared after trimming trailing whitespace per line
/// and surrounding blank lines.
pub fn mark_revision(
    previous: &[(String, String)],
    current: &[ValidDiagram],
) -> (Vec<(String, Mark)>, Vec<String>) {
    let mut prev: HashMap<&str, String> = HashMap::new();
    previous.iter().for_each(|(id, src)| {
        prev.entry(id.as_str()).or_insert_with(|| normalize(src));
    });
    let marks = current
        .iter()
        .map(|d| {
            (
                d.id.clone(),
                match prev.get(d.id.as_str()) {
                    None => Mark::New,
                    Some(p) if *p == normalize(&d.mermaid) => Mark::Unchanged,
                    Some(_) => Mark::Updated,
                },
            )
        })
        .collect();
    let cur: HashSet<&str> = current.iter().map(|d| d.id.as_str()).collect();
    let mut removed: Vec<String> = prev
        .into_keys()
        .filter(|k| !cur.contains(k))
        .map(String::from)
        .collect();
    removed.sort();
    (marks, removed)
}

mod checks;
mod nodes;
use checks::*;
use nodes::*;

// --- parsing helpers -----------------------------------------------------------------------------

/// Splits off front matter: (`Some(body)` if the first non-blank line is `---`, rest).
fn split_front_matter(src: &str) -> Result<(Option<&str>, &str), ()> {
    let (mut offset, mut fm_start) = (0, None);
    for line in src.split_inclusive('\n') {
        let (t, end) = (clean_line(line), offset + line.len());
        match fm_start {
            None if t.is_empty() => {}
            None if t == "---" => fm_start = Some(end),
            None => return Ok((None, src)),
            Some(s) if t == "---" => return Ok((src.get(s..offset), src.get(end..).unwrap_or(""))),
            Some(_) => {}
        }
        offset = end;
    }
    fm_start.map_or(Ok((None, src)), |_| Err(()))
}

fn clean_line(l: &str) -> &str {
    l.trim().trim_start_matches('\u{feff}').trim()
}

fn first_line(s: &str) -> Option<&str> {
    s.lines()
        .map(clean_line)
        .find(|t| !t.is_empty() && !t.starts_with("%%"))
}

/// Meaningful lines after front matter without comments; the header keyword is dropped but the
/// rest of its line (e.g. `TD; A-->B`) is kept.
fn body_lines(src: &str) -> Vec<&str> {
    let rest = split_front_matter(src).map_or(src, |(_, r)| r);
    let mut lines = rest
        .lines()
        .map(clean_line)
        .filter(|t| !t.is_empty() && !t.starts_with("%%"));
    let header = lines.next().unwrap_or("");
    let after = header
        .get(
            header
                .find(|c: char| c.is_whitespace() || c == ';')
                .unwrap_or(header.len())..,
        )
        .unwrap_or("");
    let after = after.trim().trim_start_matches(';').trim();
    (!after.is_empty())
        .then_some(after)
        .into_iter()
        .chain(lines)
        .collect()
}

/// Leading ASCII-letter run, lowercased.
fn keyword(s: &str) -> String {
    s.chars()
        .take_while(char::is_ascii_alphabetic)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}
fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}
fn is_css_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}
fn prev_char(s: &str, i: usize) -> Option<char> {
    s.get(..i).and_then(|p| p.chars().next_back())
}
fn insert(set: &mut HashSet<String>, name: &str) {
    if !name.is_empty() {
        set.insert(name.to_string());
    }
}

/// Leading identifier: letters, digits, `_`, and single hyphens between them.
fn ident_at(s: &str) -> &str {
    let (mut it, mut end) = (s.char_indices().peekable(), 0);
    while let Some((i, c)) = it.next() {
        if !(is_ident(c) || (c == '-' && i > 0 && it.peek().is_some_and(|(_, n)| is_ident(*n)))) {
            break;
        }
        end = i + c.len_utf8();
    }
    s.get(..end).unwrap_or("")
}

/// Replaces quoted, bracketed (`[]`, `()`, `{}`, `>...]`), `|edge|` and `-- edge -->` label text with a space.
fn normalize(src: &str) -> String {
    let lines: Vec<&str> = src.lines().map(str::trim_end).collect();
    let start = lines
        .iter()
        .position(|l| !l.is_empty())
        .unwrap_or(lines.len());
    let end = lines
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(start, |e| e + 1);
    lines.get(start..end).unwrap_or(&[]).join("\n")
}

/// At most `max` chars, backticks and controls replaced, `…` appended when cut.
fn snippet(s: &str, max: usize) -> String {
    let mut out: String = s
        .chars()
        .take(max)
        .map(|c| if c == '`' || c.is_control() { '\'' } else { c })
        .collect();
    if s.chars().nth(max).is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests;
