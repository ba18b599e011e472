//! Validation of the Mermaid diagrams that `exit_plan` may attach to a plan.
//!
//! Diagrams are checked *without rendering* (Mermaid needs a DOM): size, allowed
//! diagram type, a rough node estimate, and a fail-closed scan for anything that
//! could run script, inject style or fetch external content (SECURITY.md X3).
//! A failing diagram is dropped with a short reason the model can act on; the
//! plan itself is still published.
//!
//! Design decisions (where the spec left room):
//! * Every `%%{ ... }%%` directive is rejected (also `%% {`), whatever it sets;
//!   the reason names the security key when one is present.
//! * Front matter (`---` as the first non-blank line) may only set top-level
//!   `title:`; `config:`, security keys, other keys or an unclosed block are rejected.
//! * Entities: HTML (`&#106;`, `&#x6a;`, `&colon;`) and Mermaid (`#106;`, `#colon;`)
//!   entities are decoded (3 passes, for double encoding) before the tag, URL and
//!   `url(` checks. A numeric entity that encodes an ASCII letter/digit, `:`,
//!   whitespace, a control or an invalid code point is rejected outright
//!   (Mermaid-style `#NNN;` is exempt on lines mentioning `style`/`classDef`,
//!   where `#111;` is a CSS colour, mirroring Mermaid's own handling).
//! * HTML tag = `<` followed by an ASCII letter, `/`, `!` or `?` (raw or decoded).
//!   `<<name>>` stereotypes are allowed only in classDiagram and stateDiagram*.
//! * `javascript:`/`vbscript:` are matched after removing all whitespace, controls and
//!   zero-width characters; `data:` only when it starts a word and is followed by
//!   `,`, `;` or a MIME top-level type and `/` (so "User data: stored" passes).
//!   `url(` is matched when not part of a longer identifier ("curl(" passes).
//! * `click`, `link`, `links`, `callback`, `call` are rejected as the first word of
//!   a statement (lines split on `;`), case-insensitively; `href` anywhere.
//! * `style`/`classDef`/`linkStyle`: checked from the keyword to the end of the line;
//!   no `url(`, `expression(`, `@`, braces, backslash, font-family, quotes/other
//!   punctuation; the only CSS functions allowed are rgb/rgba/hsl/hsla.
//! * `img` inside a `@{ ... }` shape block is rejected (image shapes fetch URLs).
//! * Ids: kebab-case, at most 64 chars, checked by `validate`; `validate_all` keeps the
//!   first `max` entries *by position* and drops later entries reusing an id.
//! * Title and explanation are required (non-blank, ≤ 200 / 4000 chars); section is
//!   optional (≤ 200 chars, blank = none). `type` is parsed case-insensitively.
//! * Type inference: flowchart/graph → flow, sequenceDiagram → sequence,
//!   stateDiagram* → state, erDiagram → data, classDiagram → components,
//!   gantt/timeline/journey/mindmap → overview, anything else → other.
//! * `Dropped.id` is the given id, truncated to 80 characters.

use std::collections::{HashMap, HashSet};

pub const MAX_DIAGRAM_BYTES: usize = 8 * 1024;
pub const MAX_NODES: usize = 40;
pub const DEFAULT_MAX_DIAGRAMS: usize = 5;
const MAX_ID_CHARS: usize = 64;
const MAX_TITLE_CHARS: usize = 200;
const MAX_EXPLANATION_CHARS: usize = 4000;

const ALLOWED_TYPES: [&str; 11] = [
    "flowchart", "graph", "sequenceDiagram", "stateDiagram", "stateDiagram-v2", "erDiagram",
    "classDiagram", "gantt", "mindmap", "timeline", "journey",
];
const SECURITY_KEYS: [(&str, &str); 9] = [
    ("securitylevel", "securityLevel"), ("htmllabels", "htmlLabels"), ("secure", "secure"),
    ("themecss", "themeCSS"), ("fontfamily", "fontFamily"), ("themevariables", "themeVariables"),
    ("maxtextsize", "maxTextSize"), ("startonload", "startOnLoad"), ("dompurifyconfig", "dompurifyConfig"),
];
const DIRECTIVE_WORDS: [&str; 5] = ["click", "link", "links", "callback", "call"];
const STYLE_WORDS: [&str; 3] = ["style", "classdef", "linkstyle"];
const CSS_FUNCTIONS: [&str; 4] = ["rgb", "rgba", "hsl", "hsla"];
const MIME_TOPS: [&str; 9] =
    ["text", "image", "application", "audio", "video", "font", "model", "multipart", "message"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiagramInput {
    pub id: String,
    pub title: String,
    pub explanation: String,
    pub section: Option<String>,
    /// The tool's `type` field.
    pub kind: Option<String>,
    pub mermaid: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiagramKind { Overview, Flow, Components, Architecture, Sequence, Data, State, Other }

const KINDS: [DiagramKind; 8] = [
    DiagramKind::Overview, DiagramKind::Flow, DiagramKind::Components, DiagramKind::Architecture,
    DiagramKind::Sequence, DiagramKind::Data, DiagramKind::State, DiagramKind::Other,
];

impl DiagramKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Overview => "overview",
            Self::Flow => "flow",
            Self::Components => "components",
            Self::Architecture => "architecture",
            Self::Sequence => "sequence",
            Self::Data => "data",
            Self::State => "state",
            Self::Other => "other",
        }
    }
    /// Case-insensitive, surrounding whitespace ignored.
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        KINDS.into_iter().find(|k| k.as_str().eq_ignore_ascii_case(s))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidDiagram {
    pub id: String,
    pub title: String,
    pub explanation: String,
    pub section: Option<String>,
    pub kind: DiagramKind,
    /// e.g. "flowchart", "sequenceDiagram".
    pub mermaid_type: &'static str,
    pub mermaid: String,
    pub estimated_nodes: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped { pub id: String, pub reason: String }

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark { New, Updated, Unchanged }

/// Validate one diagram. Reasons are short, specific English sentences.
pub fn validate(d: &DiagramInput) -> Result<ValidDiagram, Dropped> {
    check(d).map_err(|reason| Dropped { id: snippet(&d.id, 80), reason })
}

/// Validate a list: only the first `max` entries are considered, later entries reusing an
/// earlier id are dropped, every other entry goes through [`validate`].
pub fn validate_all(list: &[DiagramInput], max: usize) -> (Vec<ValidDiagram>, Vec<Dropped>) {
    let (mut accepted, mut dropped) = (Vec::new(), Vec::new());
    let mut seen = HashSet::new();
    for (i, d) in list.iter().enumerate() {
        let reason = if i >= max {
            format!("only {max} diagrams are allowed per plan; this is diagram {}", i + 1)
        } else if !seen.insert(d.id.as_str()) {
            format!("duplicate id `{}`; each diagram needs a unique id", snippet(&d.id, 64))
        } else {
            match validate(d) {
                Ok(v) => { accepted.push(v); continue; }
                Err(e) => { dropped.push(e); continue; }
            }
        };
        dropped.push(Dropped { id: snippet(&d.id, 80), reason });
    }
    (accepted, dropped)
}

/// The Mermaid keyword of the first meaningful line (after front matter, skipping blank
/// lines and `%%` comments); `None` if it is not an allowed type.
pub fn mermaid_type(src: &str) -> Option<&'static str> {
    let (_, rest) = split_front_matter(src).ok()?;
    let line = rest.lines().map(clean_line).find(|t| !t.is_empty() && !t.starts_with("%%"))?;
    let kw = line.split(|c: char| c.is_whitespace() || c == ';').next().unwrap_or("");
    ALLOWED_TYPES.into_iter().find(|a| *a == kw)
}

/// Plan `type` inferred from the Mermaid keyword (see the module docs).
pub fn infer_kind(mermaid_type: &str) -> DiagramKind {
    match mermaid_type {
        "flowchart" | "graph" => DiagramKind::Flow,
        "sequenceDiagram" => DiagramKind::Sequence,
        "stateDiagram" | "stateDiagram-v2" => DiagramKind::State,
        "erDiagram" => DiagramKind::Data,
        "classDiagram" => DiagramKind::Components,
        "gantt" | "timeline" | "journey" | "mindmap" => DiagramKind::Overview,
        _ => DiagramKind::Other,
    }
}

/// Rough node count: flowchart = distinct ids outside labels; sequence = participants;
/// state = states (not `[*]`); er/class = entities/classes; mindmap = lines;
/// gantt/journey = tasks; timeline = events; unknown type = statement lines.
pub fn estimate_nodes(mermaid_type: &str, src: &str) -> usize {
    let lines = body_lines(src);
    match mermaid_type {
        "flowchart" | "graph" => flow_nodes(&lines),
        "sequenceDiagram" => sequence_nodes(&lines),
        "stateDiagram" | "stateDiagram-v2" => state_nodes(&lines),
        "erDiagram" => er_nodes(&lines),
        "classDiagram" => class_nodes(&lines),
        "mindmap" => lines.iter().filter(|l| !l.starts_with("::icon(") && !l.starts_with(":::")).count(),
        "gantt" | "journey" => {
            let skip: &[&str] = &["title", "dateformat", "axisformat", "tickinterval", "excludes",
                "includes", "todaymarker", "section", "weekday", "weekend", "acctitle", "accdescr",
                "displaymode", "inclusiveenddates", "topaxis", "click"];
            lines.iter().filter(|l| l.contains(':') && !skip.contains(&keyword(l).as_str())).count()
        }
        "timeline" => lines.iter()
            .filter(|l| !["title", "section", "acctitle", "accdescr"].contains(&keyword(l).as_str()))
            .map(|l| l.split(':').skip(1).filter(|p| !p.trim().is_empty()).count())
            .sum(),
        _ => lines.len(),
    }
}

/// Marks each current diagram against the previous revision (id → source) and lists the
/// previous ids no longer present (sorted). Sources are compared after trimming trailing
/// whitespace per line and surrounding blank lines.
pub fn mark_revision(previous: &[(String, String)], current: &[ValidDiagram]) -> (Vec<(String, Mark)>, Vec<String>) {
    let mut prev: HashMap<&str, String> = HashMap::new();
    for (id, src) in previous {
        prev.entry(id.as_str()).or_insert_with(|| normalize(src));
    }
    let marks = current.iter().map(|d| {
        let mark = match prev.get(d.id.as_str()) {
            None => Mark::New,
            Some(p) if *p == normalize(&d.mermaid) => Mark::Unchanged,
            Some(_) => Mark::Updated,
        };
        (d.id.clone(), mark)
    }).collect();
    let cur: HashSet<&str> = current.iter().map(|d| d.id.as_str()).collect();
    let mut removed: Vec<String> = prev.keys().filter(|k| !cur.contains(*k)).map(|k| k.to_string()).collect();
    removed.sort();
    (marks, removed)
}

// ---------------------------------------------------------------------------------------

fn check(d: &DiagramInput) -> Result<ValidDiagram, String> {
    check_id(&d.id)?;
    let title = required_text("title", &d.title, MAX_TITLE_CHARS)?;
    let explanation = required_text("explanation", &d.explanation, MAX_EXPLANATION_CHARS)?;
    let section = match d.section.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(s) => Some(required_text("section", s, MAX_TITLE_CHARS)?),
    };
    let given_kind = match d.kind.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(k) => Some(DiagramKind::parse(k).ok_or_else(|| format!(
            "type `{}` is unknown; use one of {}",
            snippet(k, 32), KINDS.map(DiagramKind::as_str).join(", ")))?),
    };
    let src = d.mermaid.as_str();
    if src.len() > MAX_DIAGRAM_BYTES {
        return Err(format!("diagram is {} bytes; the limit is {MAX_DIAGRAM_BYTES}", src.len()));
    }
    if src.trim().is_empty() {
        return Err("diagram is empty".into());
    }
    let (front, rest) = split_front_matter(src)
        .map_err(|()| "front matter (`---`) is not closed; remove it or add the closing `---`".to_string())?;
    if let Some(fm) = front {
        check_front_matter(fm)?;
    }
    check_directives(src)?;
    let Some(mtype) = mermaid_type(src) else {
        return Err(match rest.lines().map(clean_line).find(|t| !t.is_empty() && !t.starts_with("%%")) {
            None => "diagram is empty (only comments or front matter)".into(),
            Some(line) => format!("diagram type `{}` is not allowed; use one of {}",
                snippet(line.split_whitespace().next().unwrap_or(""), 32), ALLOWED_TYPES.join(", ")),
        });
    };
    check_content(src, mtype)?;
    let nodes = estimate_nodes(mtype, src);
    if nodes > MAX_NODES {
        return Err(format!("diagram has about {nodes} nodes; the limit is {MAX_NODES}; split or simplify it"));
    }
    Ok(ValidDiagram {
        id: d.id.clone(),
        title,
        explanation,
        section,
        kind: given_kind.unwrap_or_else(|| infer_kind(mtype)),
        mermaid_type: mtype,
        mermaid: d.mermaid.clone(),
        estimated_nodes: nodes,
    })
}

fn check_id(id: &str) -> Result<(), String> {
    if id.is_empty() {
        return Err("id is empty; use a kebab-case name such as `auth-flow`".into());
    }
    let n = id.chars().count();
    if n > MAX_ID_CHARS {
        return Err(format!("id is {n} characters; the limit is {MAX_ID_CHARS}"));
    }
    let ok = id.split('-').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()));
    if !ok {
        return Err(format!("id `{}` is not kebab-case; use lowercase letters, digits and single hyphens, e.g. `auth-flow`", snippet(id, 64)));
    }
    Ok(())
}

fn required_text(field: &str, value: &str, max: usize) -> Result<String, String> {
    let v = value.trim();
    if v.is_empty() {
        return Err(format!("{field} is empty"));
    }
    let n = v.chars().count();
    if n > max {
        return Err(format!("{field} is {n} characters; the limit is {max}"));
    }
    Ok(v.to_string())
}

fn check_front_matter(fm: &str) -> Result<(), String> {
    let lower = fm.to_lowercase();
    if let Some((_, name)) = SECURITY_KEYS.iter().find(|(k, _)| lower.contains(k)) {
        return Err(format!("front matter sets `{name}`; Mermaid configuration is not allowed"));
    }
    for line in fm.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if t.to_ascii_lowercase().starts_with("config") {
            return Err("front matter `config:` is not allowed; only `title:` may be set".into());
        }
        if !line.starts_with("title:") {
            return Err(format!("front matter line `{}` is not allowed; only `title:` may be set", snippet(t, 32)));
        }
    }
    Ok(())
}

fn check_directives(src: &str) -> Result<(), String> {
    let lower = src.to_lowercase();
    for (i, _) in lower.match_indices("%%") {
        let after = lower.get(i + 2..).unwrap_or("");
        if !after.trim_start_matches([' ', '\t']).starts_with('{') {
            continue;
        }
        let block = after.find("}%%").map_or(after, |e| after.get(..e).unwrap_or(after));
        if let Some((_, name)) = SECURITY_KEYS.iter().find(|(k, _)| block.contains(k)) {
            return Err(format!("`%%{{init}}%%` directive sets `{name}`; configuration directives are not allowed"));
        }
        return Err("`%%{...}%%` directives are not allowed (they change Mermaid configuration); remove it".into());
    }
    Ok(())
}

fn check_content(src: &str, mtype: &str) -> Result<(), String> {
    let decoded = decode_all(src)?;
    let stereotypes = matches!(mtype, "classDiagram" | "stateDiagram" | "stateDiagram-v2");
    for text in [src, decoded.as_str()] {
        if let Some(tag) = find_tag(text, stereotypes) {
            return Err(format!("HTML tags are not allowed (found `{tag}`); write `#lt;` for a literal `<`"));
        }
    }
    let squashed: String = decoded.chars()
        .filter(|c| !(c.is_whitespace() || c.is_control() || matches!(c, '\u{200b}'..='\u{200d}' | '\u{feff}' | '\u{ad}')))
        .flat_map(char::to_lowercase)
        .collect();
    for scheme in ["javascript:", "vbscript:"] {
        if squashed.contains(scheme) {
            return Err(format!("`{scheme}` URLs are not allowed"));
        }
    }
    let lower = decoded.to_lowercase();
    if has_data_url(&lower) {
        return Err("`data:` URLs are not allowed".into());
    }
    if lower.match_indices("url(").any(|(i, _)| !prev_char(&lower, i).is_some_and(|c| is_css_ident(c) || c == '\\')) {
        return Err("`url(` is not allowed (no external resources)".into());
    }
    if lower.contains("href") {
        return Err("`href` is not allowed".into());
    }
    for (i, _) in lower.match_indices("@{") {
        let tail = lower.get(i..).unwrap_or("");
        let block = tail.get(..tail.find('}').unwrap_or(tail.len())).unwrap_or(tail);
        if block.match_indices("img").any(|(j, _)| {
            !prev_char(block, j).is_some_and(char::is_alphanumeric)
                && !block.get(j + 3..).and_then(|r| r.chars().next()).is_some_and(char::is_alphanumeric)
        }) {
            return Err("image shapes (`img:` in `@{ }`) are not allowed; they fetch external content".into());
        }
    }
    for line in src.lines() {
        let mut offset = 0;
        for seg in line.split(';') {
            let start = offset + (seg.len() - seg.trim_start().len());
            offset += seg.len() + 1;
            let word = keyword(seg.trim_start());
            let next = seg.trim_start().get(word.len()..).and_then(|r| r.chars().next());
            if next.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-') {
                continue;
            }
            if DIRECTIVE_WORDS.contains(&word.as_str()) {
                return Err(format!("`{word}` directives are not allowed (a statement starts with `{word}`)"));
            }
            if STYLE_WORDS.contains(&word.as_str()) {
                check_style(line.get(start..).unwrap_or(line))?;
            }
        }
    }
    Ok(())
}

fn check_style(stmt: &str) -> Result<(), String> {
    let s = stmt.to_lowercase();
    let bad = |what: &str| Err(format!("{what} is not allowed in style lines"));
    if s.contains("url(") { return bad("`url(`"); }
    if s.contains("expression(") { return bad("`expression(`"); }
    if s.contains("@import") || s.contains('@') { return bad("`@import` (or any `@`)"); }
    if s.contains('{') || s.contains('}') { return bad("`{` or `}`"); }
    if s.contains("fontfamily") || s.contains("font-family") { return bad("`fontFamily`"); }
    if s.contains('\\') { return bad("a backslash escape"); }
    if let Some(c) = s.chars().find(|c| !(c.is_alphanumeric() || " \t#%.,:;_()!/+-".contains(*c))) {
        return bad(&format!("the character `{}`", snippet(&c.to_string(), 1)));
    }
    for (i, _) in s.match_indices('(') {
        let before = s.get(..i).unwrap_or("");
        let name = &before[before.trim_end_matches(is_css_ident).len()..];
        if !CSS_FUNCTIONS.contains(&name) {
            return bad(&format!("CSS function `{}(` (only rgb/rgba/hsl/hsla)", snippet(name, 24)));
        }
    }
    Ok(())
}

fn has_data_url(lower: &str) -> bool {
    lower.match_indices("data").any(|(i, _)| {
        if prev_char(lower, i).is_some_and(|c| c.is_alphanumeric() || "+-.".contains(c)) {
            return false;
        }
        let rest = lower.get(i + 4..).unwrap_or("").trim_start();
        let Some(rest) = rest.strip_prefix(':') else { return false };
        let rest = rest.trim_start();
        rest.starts_with([',', ';'])
            || MIME_TOPS.iter().any(|m| rest.strip_prefix(m).is_some_and(|r| r.starts_with('/')))
    })
}

fn find_tag(s: &str, stereotypes: bool) -> Option<String> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'<' {
            if stereotypes && b.get(i + 1) == Some(&b'<') {
                let mut j = i + 2;
                while j < b.len() && j < i + 42 && (b[j].is_ascii_alphanumeric() || b"_ -".contains(&b[j])) {
                    j += 1;
                }
                if j > i + 2 && b.get(j..j + 2) == Some(b">>".as_slice()) {
                    i = j + 2;
                    continue;
                }
            }
            if b.get(i + 1).is_some_and(|n| n.is_ascii_alphabetic() || b"/!?".contains(n)) {
                return Some(snippet(s.get(i..).unwrap_or(""), 16));
            }
        }
        i += 1;
    }
    None
}

/// Decodes entities (up to 3 passes); `Err` if a numeric entity hides a letter, digit,
/// `:`, whitespace, control or invalid code point.
fn decode_all(src: &str) -> Result<String, String> {
    let mut cur = src.to_string();
    for _ in 0..3 {
        let mut next = String::with_capacity(cur.len());
        for (k, line) in cur.split('\n').enumerate() {
            if k > 0 {
                next.push('\n');
            }
            let lower = line.to_ascii_lowercase();
            let strict_hash = !(lower.contains("style") || lower.contains("classdef"));
            decode_line(line, strict_hash, &mut next)?;
        }
        if next == cur {
            break;
        }
        cur = next;
    }
    Ok(cur)
}

fn decode_line(s: &str, strict_hash: bool, out: &mut String) -> Result<(), String> {
    let b = s.as_bytes();
    let (mut i, mut last) = (0, 0);
    while i < b.len() {
        if b[i] == b'&' || b[i] == b'#' {
            if let Some((ch, len, numeric)) = parse_entity(&b[i..]) {
                let suspicious = ch.is_none_or(|c| c.is_ascii_alphanumeric() || c == ':' || c.is_whitespace() || c.is_control());
                if numeric && suspicious && (b[i] == b'&' || strict_hash) {
                    return Err(format!(
                        "character entity `{}` is not allowed (it encodes a letter, digit, `:` or whitespace); write the character directly",
                        snippet(s.get(i..i + len).unwrap_or(""), 16)));
                }
                out.push_str(s.get(last..i).unwrap_or(""));
                if let Some(c) = ch {
                    out.push(c);
                }
                i += len;
                last = i;
                continue;
            }
        }
        i += 1;
    }
    out.push_str(s.get(last..).unwrap_or(""));
    Ok(())
}

/// `&#N;`, `&#xH;` (`;` optional), `&name;`, `#N;`, `#+N;`, `#name;` → (char, byte length, numeric).
fn parse_entity(b: &[u8]) -> Option<(Option<char>, usize, bool)> {
    let html = b.first() == Some(&b'&');
    let mut j = 1;
    let numeric = if html { b.get(1) == Some(&b'#') } else { b.get(1).is_some_and(|c| c.is_ascii_digit() || *c == b'+') };
    if numeric {
        j += usize::from(html || b.get(1) == Some(&b'+'));
        let hex = html && b.get(j).is_some_and(|c| *c == b'x' || *c == b'X');
        j += usize::from(hex);
        let radix = if hex { 16 } else { 10 };
        let start = j;
        let mut v: u32 = 0;
        while let Some(d) = b.get(j).and_then(|c| (*c as char).to_digit(radix)) {
            v = v.saturating_mul(radix).saturating_add(d).min(0x11_0000);
            j += 1;
        }
        if j == start {
            return None;
        }
        if b.get(j) == Some(&b';') {
            j += 1;
        } else if !html {
            return None;
        }
        return Some((char::from_u32(v).filter(|c| *c != '\0'), j, true));
    }
    while j < b.len() && j < 12 && b[j].is_ascii_alphanumeric() {
        j += 1;
    }
    if j == 1 || b.get(j) != Some(&b';') {
        return None;
    }
    let name = std::str::from_utf8(b.get(1..j)?).ok()?.to_ascii_lowercase();
    let c = match name.as_str() {
        "lt" => '<', "gt" => '>', "amp" => '&', "quot" => '"', "apos" => '\'', "colon" => ':',
        "tab" => '\t', "newline" => '\n', "lpar" => '(', "rpar" => ')', "sol" => '/', "bsol" => '\\',
        "num" => '#', "semi" => ';', "excl" => '!', "period" => '.', "equals" => '=', "nbsp" => ' ',
        "lbrace" | "lcub" => '{', "rbrace" | "rcub" => '}', "commat" => '@',
        _ => return None,
    };
    Some((Some(c), j + 1, false))
}

/// Splits off front matter: (`Some(body)` if the first non-blank line is `---`, rest).
fn split_front_matter(src: &str) -> Result<(Option<&str>, &str), ()> {
    let mut offset = 0;
    let mut fm_start = None;
    for line in src.split_inclusive('\n') {
        let t = clean_line(line);
        let end = offset + line.len();
        match fm_start {
            None if t.is_empty() => {}
            None if t == "---" => fm_start = Some(end),
            None => return Ok((None, src)),
            Some(s) if t == "---" => return Ok((src.get(s..offset), src.get(end..).unwrap_or(""))),
            Some(_) => {}
        }
        offset = end;
    }
    match fm_start {
        Some(_) => Err(()),
        None => Ok((None, src)),
    }
}

fn clean_line(l: &str) -> &str {
    l.trim().trim_start_matches('\u{feff}').trim()
}

/// Meaningful lines after front matter, comments removed; the header keyword is dropped
/// (anything after it on the same line, e.g. `TD; A-->B`, is kept).
fn body_lines(src: &str) -> Vec<&str> {
    let rest = split_front_matter(src).map_or(src, |(_, r)| r);
    let mut out = Vec::new();
    let mut header = true;
    for t in rest.lines().map(clean_line) {
        if t.is_empty() || t.starts_with("%%") {
            continue;
        }
        if header {
            header = false;
            let end = t.find(|c: char| c.is_whitespace() || c == ';').unwrap_or(t.len());
            let r = t.get(end..).unwrap_or("").trim().trim_start_matches(';').trim();
            if !r.is_empty() {
                out.push(r);
            }
            continue;
        }
        out.push(t);
    }
    out
}

/// Leading ASCII-letter run, lowercased.
fn keyword(s: &str) -> String {
    s.chars().take_while(char::is_ascii_alphabetic).map(|c| c.to_ascii_lowercase()).collect()
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

/// Leading identifier: letters, digits, `_`, and single hyphens between them.
fn ident_at(s: &str) -> &str {
    let mut end = 0;
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let next_ident = it.peek().is_some_and(|(_, n)| is_ident(*n));
        if is_ident(c) || (c == '-' && i > 0 && next_ident) {
            end = i + c.len_utf8();
        } else {
            break;
        }
    }
    s.get(..end).unwrap_or("")
}

fn strip_flow_labels(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut stack: Vec<char> = Vec::new();
    let (mut quote, mut pipe, mut prev) = (false, false, ' ');
    for c in line.chars() {
        if quote {
            quote = c != '"';
        } else if c == '"' {
            quote = true;
            out.push(' ');
        } else if !stack.is_empty() {
            match c {
                '[' => stack.push(']'),
                '(' => stack.push(')'),
                '{' => stack.push('}'),
                _ if stack.last() == Some(&c) => { stack.pop(); }
                _ => {}
            }
        } else if pipe || c == '|' {
            pipe = pipe != (c == '|');
        } else {
            match c {
                '[' => stack.push(']'),
                '(' => stack.push(')'),
                '{' => stack.push('}'),
                '>' if is_ident(prev) => stack.push(']'),
                _ => { out.push(c); prev = c; continue; }
            }
            out.push(' ');
        }
        prev = c;
    }
    out
}

fn flow_nodes(lines: &[&str]) -> usize {
    let skip = ["subgraph", "end", "direction", "style", "classdef", "class", "linkstyle", "click", "acctitle", "accdescr"];
    let dirs = ["TB", "TD", "BT", "RL", "LR", "<", ">", "^", "v"];
    let mut set = HashSet::new();
    for line in lines {
        let stripped = strip_flow_labels(line);
        for st in stripped.split(';').map(str::trim) {
            if st.is_empty() || dirs.contains(&st) || skip.contains(&keyword(st).as_str()) {
                continue;
            }
            let mut i = 0;
            while let Some(c) = st.get(i..).and_then(|r| r.chars().next()) {
                if !is_ident(c) {
                    i += c.len_utf8();
                    continue;
                }
                let mut word = ident_at(st.get(i..).unwrap_or(""));
                let end = i + word.len().max(1);
                let before = prev_char(st, i);
                if matches!(before, Some('-' | '=' | '.')) {
                    word = word.strip_prefix(['o', 'x']).unwrap_or(word);
                }
                let class_name = st.get(..i).is_some_and(|p| p.ends_with(":::"));
                let rest = st.get(end..).unwrap_or("");
                let edge_id = rest.strip_prefix('@').is_some_and(|r| r.starts_with(['-', '=', '.', '~', '<']));
                if !word.is_empty() && !class_name && !edge_id {
                    set.insert(word.to_string());
                }
                i = end;
            }
        }
    }
    set.len()
}

fn sequence_nodes(lines: &[&str]) -> usize {
    const ARROWS: [&str; 10] = ["<<-->>", "<<->>", "-->>", "->>", "-->", "->", "--x", "-x", "--)", "-)"];
    let mut set = HashSet::new();
    for line in lines {
        let mut l = *line;
        let mut kw = keyword(l);
        if kw == "create" {
            l = l.get(6..).unwrap_or("").trim_start();
            kw = keyword(l);
        }
        if kw == "participant" || kw == "actor" {
            let rest = l.get(kw.len()..).unwrap_or("").trim();
            let rest = rest.split(" as ").next().unwrap_or(rest);
            let name = rest.split('@').next().unwrap_or(rest).trim();
            if !name.is_empty() {
                set.insert(name.to_string());
            }
            continue;
        }
        if ["destroy", "note", "loop", "alt", "else", "opt", "par", "and", "rect", "end", "critical",
            "option", "break", "activate", "deactivate", "autonumber", "title", "box", "links", "link",
            "acctitle", "accdescr", "properties", "details"].contains(&kw.as_str()) {
            continue;
        }
        let head = l.split(':').next().unwrap_or("");
        let found = head.char_indices()
            .filter(|(_, c)| *c == '-' || *c == '<')
            .find_map(|(p, _)| ARROWS.iter().find(|a| head[p..].starts_with(**a)).map(|a| (p, a.len())));
        if let Some((p, len)) = found {
            for name in [&head[..p], head[p + len..].trim_start_matches(['+', '-'])] {
                let name = name.trim();
                if !name.is_empty() {
                    set.insert(name.to_string());
                }
            }
        }
    }
    set.len()
}

fn state_nodes(lines: &[&str]) -> usize {
    let mut set = HashSet::new();
    let mut in_note = false;
    for line in lines {
        let kw = keyword(line);
        if in_note {
            in_note = !line.to_ascii_lowercase().starts_with("end note");
            continue;
        }
        match kw.as_str() {
            "note" => { in_note = !line.contains(':'); continue; }
            "direction" | "classdef" | "class" | "style" | "acctitle" | "accdescr" | "hide" | "scale" => continue,
            "state" => {
                let rest = line.get(5..).unwrap_or("").trim();
                let id = match rest.strip_prefix('"') {
                    Some(q) => q.find('"').map_or("", |e| {
                        let after = q.get(e + 1..).unwrap_or("").trim_start();
                        after.strip_prefix("as").map_or("", |a| ident_at(a.trim_start()))
                    }),
                    None => ident_at(rest),
                };
                if !id.is_empty() {
                    set.insert(id.to_string());
                }
                continue;
            }
            _ => {}
        }
        if line.starts_with('}') || line.starts_with("--") {
            continue;
        }
        for part in line.split("-->") {
            let p = part.split(':').next().unwrap_or("").trim();
            let id = ident_at(p);
            if !p.starts_with("[*]") && !id.is_empty() {
                set.insert(id.to_string());
            }
        }
    }
    set.len()
}

fn arrow_pos(s: &str) -> Option<usize> {
    match (s.find("--"), s.find("..")) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn er_nodes(lines: &[&str]) -> usize {
    let mut set = HashSet::new();
    let mut in_block = false;
    for line in lines {
        if in_block {
            in_block = !line.contains('}');
            continue;
        }
        if ["title", "acctitle", "accdescr", "direction", "style", "classdef", "class"].contains(&keyword(line).as_str()) {
            continue;
        }
        let left = ident_at(line.trim_start_matches('"'));
        if !left.is_empty() {
            set.insert(left.to_string());
        }
        if let Some(p) = arrow_pos(line) {
            let mut rest = line.get(p + 2..).unwrap_or("");
            for _ in 0..2 {
                rest = rest.strip_prefix(['|', '}', '{', 'o']).unwrap_or(rest);
            }
            let right = ident_at(rest.trim_start().trim_start_matches('"'));
            if !right.is_empty() {
                set.insert(right.to_string());
            }
        } else if line.contains('{') && !line.contains('}') {
            in_block = true;
        }
    }
    set.len()
}

fn class_nodes(lines: &[&str]) -> usize {
    let mut set = HashSet::new();
    let mut in_body = false;
    for line in lines {
        if in_body {
            in_body = !line.contains('}');
            continue;
        }
        let kw = keyword(line);
        if kw == "class" {
            let name = ident_at(line.get(5..).unwrap_or("").trim_start());
            if !name.is_empty() {
                set.insert(name.to_string());
            }
            in_body = line.contains('{') && !line.contains('}');
            continue;
        }
        if ["namespace", "note", "direction", "classdef", "cssclass", "style", "acctitle", "accdescr", "title"].contains(&kw.as_str()) {
            continue;
        }
        let mut l = *line;
        if l.starts_with("<<") {
            l = l.find(">>").and_then(|e| l.get(e + 2..)).unwrap_or("");
        }
        let unquoted: String = l.split('"').step_by(2).collect::<Vec<_>>().join(" ");
        let head = unquoted.split(':').next().unwrap_or("").trim();
        let left = ident_at(head);
        if !left.is_empty() {
            set.insert(left.to_string());
        }
        if let Some(p) = arrow_pos(head) {
            let mut rest = head.get(p..).unwrap_or("").trim_start_matches(['-', '.']).trim_start_matches(['>', '|', '*']);
            if rest.starts_with('o') && !rest.get(1..).and_then(|r| r.chars().next()).is_some_and(is_ident) {
                rest = rest.get(1..).unwrap_or("");
            }
            let right = ident_at(rest.trim_start());
            if !right.is_empty() {
                set.insert(right.to_string());
            }
        }
    }
    set.len()
}

fn normalize(src: &str) -> String {
    let lines: Vec<&str> = src.lines().map(str::trim_end).collect();
    let start = lines.iter().position(|l| !l.is_empty()).unwrap_or(lines.len());
    let end = lines.iter().rposition(|l| !l.is_empty()).map_or(start, |e| e + 1);
    lines.get(start..end).unwrap_or(&[]).join("\n")
}

/// At most `max` chars, backticks replaced, `…` appended when cut.
fn snippet(s: &str, max: usize) -> String {
    let mut out: String = s.chars().take(max).map(|c| if c == '`' || c.is_control() { '\'' } else { c }).collect();
    if s.chars().nth(max).is_some() {
        out.push('…');
    }
    out
}
