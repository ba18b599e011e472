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

// --- validation ----------------------------------------------------------------------------------

fn check(d: &DiagramInput) -> Result<ValidDiagram, String> {
    check_id(&d.id)?;
    let title = required("title", &d.title, 200)?;
    let explanation = required("explanation", &d.explanation, 4000)?;
    let present = |o: &Option<String>| {
        o.as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
    };
    let section = present(&d.section)
        .map(|s| required("section", &s, 200))
        .transpose()?;
    let kind = present(&d.kind)
        .map(|k| {
            DiagramKind::parse(&k).ok_or_else(|| {
                format!(
                    "type `{}` is unknown; use one of {}",
                    snippet(&k, 32),
                    KINDS.map(|(_, n)| n).join(", ")
                )
            })
        })
        .transpose()?;
    let src = d.mermaid.as_str();
    if src.len() > MAX_DIAGRAM_BYTES {
        return Err(format!(
            "diagram is {} bytes; the limit is {MAX_DIAGRAM_BYTES}",
            src.len()
        ));
    }
    if src.trim().is_empty() {
        return Err("diagram is empty".into());
    }
    let (front, rest) = split_front_matter(src).map_err(|()| {
        "front matter (`---`) is not closed; remove it or add the closing `---`".to_string()
    })?;
    check_front_matter(front.unwrap_or(""))?;
    check_directives(src)?;
    let Some(mtype) = mermaid_type(src) else {
        return Err(first_line(rest).map_or(
            "diagram is empty (only comments or front matter)".into(),
            |l| {
                let kw = snippet(l.split_whitespace().next().unwrap_or(""), 32);
                format!(
                    "diagram type `{kw}` is not allowed; use one of {}",
                    ALLOWED_TYPES.join(", ")
                )
            },
        ));
    };
    check_content(src, mtype)?;
    let estimated_nodes = estimate_nodes(mtype, src);
    if estimated_nodes > MAX_NODES {
        return Err(format!(
            "diagram has about {estimated_nodes} nodes; the limit is {MAX_NODES}; split or simplify it"
        ));
    }
    let (id, kind, mermaid) = (
        d.id.clone(),
        kind.unwrap_or_else(|| infer_kind(mtype)),
        d.mermaid.clone(),
    );
    Ok(ValidDiagram {
        id,
        title,
        explanation,
        section,
        kind,
        mermaid_type: mtype,
        mermaid,
        estimated_nodes,
    })
}

fn check_id(id: &str) -> Result<(), String> {
    let n = id.chars().count();
    let kebab = id.split('-').all(|p| {
        !p.is_empty()
            && p.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    });
    match n {
        0 => Err("id is empty; use a kebab-case name such as `auth-flow`".into()),
        n if n > MAX_ID_CHARS => Err(format!("id is {n} characters; the limit is {MAX_ID_CHARS}")),
        _ if !kebab => Err(format!(
            "id `{}` is not kebab-case; use lowercase letters, digits and single hyphens, e.g. `auth-flow`",
            snippet(id, 64)
        )),
        _ => Ok(()),
    }
}

fn required(field: &str, value: &str, max: usize) -> Result<String, String> {
    match value.trim().chars().count() {
        0 => Err(format!("{field} is empty")),
        n if n > max => Err(format!("{field} is {n} characters; the limit is {max}")),
        _ => Ok(value.trim().to_string()),
    }
}

fn security_key(lower: &str) -> Option<&'static str> {
    SECURITY_KEYS
        .into_iter()
        .find(|k| lower.contains(&k.to_ascii_lowercase()))
}

fn check_front_matter(fm: &str) -> Result<(), String> {
    if let Some(key) = security_key(&fm.to_lowercase()) {
        return Err(format!(
            "front matter sets `{key}`; Mermaid configuration is not allowed"
        ));
    }
    match fm
        .lines()
        .map(|l| (l, l.trim()))
        .find(|(l, t)| !t.is_empty() && !t.starts_with('#') && !l.starts_with("title:"))
    {
        None => Ok(()),
        Some((_, t)) if t.to_ascii_lowercase().starts_with("config") => {
            Err("front matter `config:` is not allowed; only `title:` may be set".into())
        }
        Some((_, t)) => Err(format!(
            "front matter line `{}` is not allowed; only `title:` may be set",
            snippet(t, 32)
        )),
    }
}

fn check_directives(src: &str) -> Result<(), String> {
    let lower = src.to_lowercase();
    for (i, _) in lower.match_indices("%%") {
        let after = lower.get(i + 2..).unwrap_or("");
        if after.trim_start_matches([' ', '\t']).starts_with('{') {
            let block = after
                .get(..after.find("}%%").unwrap_or(after.len()))
                .unwrap_or(after);
            return Err(match security_key(block) {
                Some(key) => format!("`%%{{init}}%%` directive sets `{key}`; configuration directives are not allowed"),
                None => "`%%{...}%%` directives are not allowed (they change Mermaid configuration); remove it".into(),
            });
        }
    }
    Ok(())
}

fn check_content(src: &str, mtype: &str) -> Result<(), String> {
    let decoded = decode_all(src)?;
    let stereo = matches!(mtype, "classDiagram" | "stateDiagram" | "stateDiagram-v2");
    if let Some(tag) = find_tag(src, stereo).or_else(|| find_tag(&decoded, stereo)) {
        return Err(format!(
            "HTML tags are not allowed (found `{tag}`); write `#lt;` for a literal `<`"
        ));
    }
    let squashed: String = decoded
        .chars()
        .filter(|c| {
            !(c.is_whitespace()
                || c.is_control()
                || matches!(c, '\u{200b}'..='\u{200d}' | '\u{feff}' | '\u{ad}'))
        })
        .flat_map(char::to_lowercase)
        .collect();
    if let Some(scheme) = ["javascript:", "vbscript:"]
        .into_iter()
        .find(|s| squashed.contains(s))
    {
        return Err(format!("`{scheme}` URLs are not allowed"));
    }
    let lower = decoded.to_lowercase();
    if has_data_url(&lower) {
        return Err("`data:` URLs are not allowed".into());
    }
    if lower
        .match_indices("url(")
        .any(|(i, _)| !prev_char(&lower, i).is_some_and(|c| is_css_ident(c) || c == '\\'))
    {
        return Err("`url(` is not allowed (no external resources)".into());
    }
    if lower.contains("href") {
        return Err("`href` is not allowed".into());
    }
    for (i, _) in lower.match_indices("@{") {
        let tail = lower.get(i..).unwrap_or("");
        let block = tail
            .get(..tail.find('}').unwrap_or(tail.len()))
            .unwrap_or(tail);
        let is_word = |j: usize| {
            !prev_char(block, j).is_some_and(char::is_alphanumeric)
                && !block
                    .get(j + 3..)
                    .and_then(|r| r.chars().next())
                    .is_some_and(char::is_alphanumeric)
        };
        if block.match_indices("img").any(|(j, _)| is_word(j)) {
            return Err(
                "image shapes (`img:` in `@{ }`) are not allowed; they fetch external content"
                    .into(),
            );
        }
    }
    for line in src.lines() {
        let mut offset = 0;
        for seg in line.split(';') {
            let stmt = seg.trim_start();
            let start = offset + seg.len() - stmt.len();
            offset += seg.len() + 1;
            let word = keyword(stmt);
            let next = stmt.get(word.len()..).and_then(|r| r.chars().next());
            if next.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-') {
                continue;
            }
            if ["click", "link", "links", "callback", "call"].contains(&word.as_str()) {
                return Err(format!(
                    "`{word}` directives are not allowed (a statement starts with `{word}`)"
                ));
            }
            if ["style", "classdef", "linkstyle"].contains(&word.as_str()) {
                check_style(line.get(start..).unwrap_or(line))?;
            }
        }
    }
    Ok(())
}

fn check_style(stmt: &str) -> Result<(), String> {
    let s = stmt.to_lowercase();
    let found = [
        ("url(", "`url(`"),
        ("expression(", "`expression(`"),
        ("@", "`@import` (or any `@`)"),
        ("{", "`{` or `}`"),
        ("}", "`{` or `}`"),
        ("fontfamily", "`fontFamily`"),
        ("font-family", "`fontFamily`"),
        ("\\", "a backslash escape"),
    ]
    .into_iter()
    .find(|(needle, _)| s.contains(needle))
    .map(|(_, what)| what.to_string())
    .or_else(|| {
        s.chars()
            .find(|c| !(c.is_alphanumeric() || " \t#%.,:;_()!/+-".contains(*c)))
            .map(|c| format!("the character `{}`", snippet(&c.to_string(), 1)))
    })
    .or_else(|| {
        s.match_indices('(').find_map(|(i, _)| {
            let before = s.get(..i).unwrap_or("");
            let name = before
                .get(before.trim_end_matches(is_css_ident).len()..)
                .unwrap_or("");
            (!["rgb", "rgba", "hsl", "hsla"].contains(&name)).then(|| {
                format!(
                    "CSS function `{}(` (only rgb/rgba/hsl/hsla)",
                    snippet(name, 24)
                )
            })
        })
    });
    found.map_or(Ok(()), |what| {
        Err(format!("{what} is not allowed in style lines"))
    })
}

fn has_data_url(lower: &str) -> bool {
    lower.match_indices("data").any(|(i, _)| {
        let rest = lower.get(i + 4..).unwrap_or("").trim_start();
        let Some(rest) = rest.strip_prefix(':').map(str::trim_start) else {
            return false;
        };
        !prev_char(lower, i).is_some_and(|c| c.is_alphanumeric() || "+-.".contains(c))
            && (rest.starts_with([',', ';'])
                || MIME_TOPS
                    .iter()
                    .any(|m| rest.strip_prefix(m).is_some_and(|r| r.starts_with('/'))))
    })
}

fn find_tag(s: &str, stereotypes: bool) -> Option<String> {
    let (b, mut i) = (s.as_bytes(), 0);
    while i < b.len() {
        let n = b
            .iter()
            .skip(i + 2)
            .take(40)
            .take_while(|c| c.is_ascii_alphanumeric() || b"_ -".contains(c))
            .count();
        if stereotypes
            && b.get(i..i + 2) == Some(b"<<")
            && n > 0
            && b.get(i + 2 + n..i + 4 + n) == Some(b">>")
        {
            i += n + 4;
            continue;
        }
        if b[i] == b'<'
            && b.get(i + 1)
                .is_some_and(|n| n.is_ascii_alphabetic() || b"/!?".contains(n))
        {
            return Some(snippet(s.get(i..).unwrap_or(""), 16));
        }
        i += 1;
    }
    None
}

/// Decodes entities line by line (up to 3 passes); `Err` if a numeric entity hides a letter,
/// digit, `:`, whitespace, control or invalid code point.
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
            let (b, mut i, mut last) = (line.as_bytes(), 0, 0);
            while i < b.len() {
                let Some((ch, len, numeric)) = parse_entity(&b[i..]) else {
                    i += 1;
                    continue;
                };
                let hidden = ch.is_none_or(|c| {
                    c.is_ascii_alphanumeric() || c == ':' || c.is_whitespace() || c.is_control()
                });
                if numeric && hidden && (b[i] == b'&' || strict_hash) {
                    return Err(format!(
                        "character entity `{}` is not allowed (it encodes a letter, digit, `:` or \
                        whitespace); write the character directly",
                        snippet(line.get(i..i + len).unwrap_or(""), 16)
                    ));
                }
                next.push_str(line.get(last..i).unwrap_or(""));
                next.extend(ch);
                (i, last) = (i + len, i + len);
            }
            next.push_str(line.get(last..).unwrap_or(""));
        }
        if std::mem::replace(&mut cur, next) == cur {
            break;
        }
    }
    Ok(cur)
}

/// `&#N;`, `&#xH;` (`;` optional), `&name;`, `#N;`, `#+N;`, `#name;` → (char, byte length, numeric).
fn parse_entity(b: &[u8]) -> Option<(Option<char>, usize, bool)> {
    let html = match b.first()? {
        b'&' => true,
        b'#' => false,
        _ => return None,
    };
    let numeric = if html {
        b.get(1) == Some(&b'#')
    } else {
        b.get(1).is_some_and(|c| c.is_ascii_digit() || *c == b'+')
    };
    let mut j = 1;
    if numeric {
        j += usize::from(html || b.get(1) == Some(&b'+'));
        let hex = html && b.get(j).is_some_and(|c| *c == b'x' || *c == b'X');
        j += usize::from(hex);
        let (radix, start, mut v) = (if hex { 16 } else { 10 }, j, 0u32);
        while let Some(d) = b.get(j).and_then(|c| char::from(*c).to_digit(radix)) {
            (v, j) = (
                v.saturating_mul(radix).saturating_add(d).min(0x11_0000),
                j + 1,
            );
        }
        let semi = b.get(j) == Some(&b';');
        return (j > start && (semi || html)).then(|| {
            (
                char::from_u32(v).filter(|c| *c != '\0'),
                j + usize::from(semi),
                true,
            )
        });
    }
    while j < b.len() && j < 12 && b[j].is_ascii_alphanumeric() {
        j += 1;
    }
    if j == 1 || b.get(j) != Some(&b';') {
        return None;
    }
    const NAMED: [(&str, char); 23] = [
        ("lt", '<'),
        ("gt", '>'),
        ("amp", '&'),
        ("quot", '"'),
        ("apos", '\''),
        ("colon", ':'),
        ("tab", '\t'),
        ("newline", '\n'),
        ("lpar", '('),
        ("rpar", ')'),
        ("sol", '/'),
        ("bsol", '\\'),
        ("num", '#'),
        ("semi", ';'),
        ("excl", '!'),
        ("period", '.'),
        ("equals", '='),
        ("nbsp", ' '),
        ("lbrace", '{'),
        ("lcub", '{'),
        ("rbrace", '}'),
        ("rcub", '}'),
        ("commat", '@'),
    ];
    let name = std::str::from_utf8(b.get(1..j)?).ok()?;
    NAMED
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, c)| (Some(*c), j + 1, false))
}

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
fn strip_flow_labels(line: &str) -> String {
    let (mut out, mut stack, mut quote, mut pipe, mut text, mut prev) =
        (String::new(), Vec::new(), false, false, false, ' ');
    let opens_text = |out: &str| {
        ["--", "==", "-."].iter().any(|a| {
            out.strip_suffix(a)
                .is_some_and(|p| !p.ends_with(['-', '=', '.', '<', '>']))
        })
    };
    for (i, c) in line.char_indices() {
        text = text
            && !["--", "==", ".-"]
                .iter()
                .any(|a| line.get(i..).is_some_and(|r| r.starts_with(a)));
        let close = match c {
            '[' => Some(']'),
            '(' => Some(')'),
            '{' => Some('}'),
            '>' if is_ident(prev) && stack.is_empty() => Some(']'),
            _ => None,
        };
        match close.filter(|_| !pipe && !quote && !text) {
            _ if quote => quote = c != '"',
            _ if text => {}
            _ if c == '"' => {
                quote = true;
                out.push(' ');
            }
            Some(close) => {
                out.push(' ');
                stack.push(close);
            }
            None if !stack.is_empty() => {
                if stack.last() == Some(&c) {
                    stack.pop();
                }
            }
            None if pipe || c == '|' => pipe = pipe != (c == '|'),
            None if c.is_whitespace() && opens_text(&out) => {
                text = true;
                out.push(' ');
            }
            None => out.push(c),
        }
        prev = c;
    }
    out
}

fn flow_nodes(lines: &[&str], set: &mut HashSet<String>) {
    let skip = [
        "subgraph",
        "end",
        "direction",
        "style",
        "classdef",
        "class",
        "linkstyle",
        "click",
        "acctitle",
        "accdescr",
    ];
    for line in lines {
        for st in strip_flow_labels(line).split(';').map(str::trim) {
            if ["TB", "TD", "BT", "RL", "LR", "<", ">", "^", "v"].contains(&st)
                || skip.contains(&keyword(st).as_str())
            {
                continue;
            }
            let mut i = 0;
            while let Some(c) = st.get(i..).and_then(|r| r.chars().next()) {
                if !is_ident(c) {
                    i += c.len_utf8();
                    continue;
                }
                let word = ident_at(st.get(i..).unwrap_or(""));
                let end = i + word.len().max(c.len_utf8());
                // `--o B` / `--x B` arrowheads, `A:::class`, `A e1@--> B` edge ids.
                let word = if matches!(prev_char(st, i), Some('-' | '=' | '.')) {
                    word.strip_prefix(['o', 'x']).unwrap_or(word)
                } else {
                    word
                };
                let class_name = st.get(..i).is_some_and(|p| p.ends_with(":::"));
                let edge_id = st
                    .get(end..)
                    .and_then(|r| r.strip_prefix('@'))
                    .is_some_and(|r| r.starts_with(['-', '=', '.', '~', '<']));
                if !class_name && !edge_id {
                    insert(set, word);
                }
                i = end;
            }
        }
    }
}

fn sequence_nodes(lines: &[&str], set: &mut HashSet<String>) {
    const ARROWS: [&str; 10] = [
        "<<-->>", "<<->>", "-->>", "->>", "-->", "->", "--x", "-x", "--)", "-)",
    ];
    const SKIP: [&str; 24] = [
        "destroy",
        "note",
        "loop",
        "alt",
        "else",
        "opt",
        "par",
        "and",
        "rect",
        "end",
        "critical",
        "option",
        "break",
        "activate",
        "deactivate",
        "autonumber",
        "title",
        "box",
        "links",
        "link",
        "acctitle",
        "accdescr",
        "properties",
        "details",
    ];
    for line in lines {
        let (mut l, mut kw) = (*line, keyword(line));
        if kw == "create" {
            l = l.get(6..).unwrap_or("").trim_start();
            kw = keyword(l);
        }
        if kw == "participant" || kw == "actor" {
            let rest = l.get(kw.len()..).unwrap_or("");
            insert(
                set,
                rest.split(" as ")
                    .next()
                    .unwrap_or("")
                    .split('@')
                    .next()
                    .unwrap_or("")
                    .trim(),
            );
        } else if !SKIP.contains(&kw.as_str()) {
            let head = l.split(':').next().unwrap_or("");
            let found = head
                .char_indices()
                .filter(|(_, c)| *c == '-' || *c == '<')
                .find_map(|(p, _)| {
                    ARROWS
                        .iter()
                        .find(|a| head.get(p..).is_some_and(|h| h.starts_with(**a)))
                        .map(|a| (p, a.len()))
                });
            if let Some((p, len)) = found {
                insert(set, head.get(..p).unwrap_or("").trim());
                insert(
                    set,
                    head.get(p + len..)
                        .unwrap_or("")
                        .trim_start_matches(['+', '-'])
                        .trim(),
                );
            }
        }
    }
}

fn state_nodes(lines: &[&str], set: &mut HashSet<String>) {
    let mut in_note = false;
    for line in lines {
        let kw = keyword(line);
        if in_note {
            in_note = !line.to_ascii_lowercase().starts_with("end note");
        } else if kw == "note" {
            in_note = !line.contains(':');
        } else if kw == "state" {
            let rest = line.get(5..).unwrap_or("").trim();
            insert(
                set,
                match rest.strip_prefix('"') {
                    Some(q) => q
                        .find('"')
                        .and_then(|e| q.get(e + 1..))
                        .and_then(|a| a.trim_start().strip_prefix("as"))
                        .map_or("", |a| ident_at(a.trim_start())),
                    None => ident_at(rest),
                },
            );
        } else if ![
            "direction",
            "classdef",
            "class",
            "style",
            "acctitle",
            "accdescr",
            "hide",
            "scale",
        ]
        .contains(&kw.as_str())
            && !line.starts_with('}')
            && !line.starts_with("--")
        {
            for part in line
                .split("-->")
                .map(|p| p.split(':').next().unwrap_or("").trim())
            {
                if !part.starts_with("[*]") {
                    insert(set, ident_at(part));
                }
            }
        }
    }
}

/// ER entities and classes: relation ends, block/class declarations, `Name : member` lines.
fn entity_nodes(lines: &[&str], class: bool, set: &mut HashSet<String>) {
    const SKIP: [&str; 10] = [
        "title",
        "acctitle",
        "accdescr",
        "direction",
        "style",
        "classdef",
        "class",
        "namespace",
        "note",
        "cssclass",
    ];
    let mut in_block = false;
    for line in lines {
        let kw = keyword(line);
        if in_block {
            in_block = !line.contains('}');
            continue;
        }
        if class && kw == "class" {
            insert(set, ident_at(line.get(5..).unwrap_or("").trim_start()));
            in_block = line.contains('{') && !line.contains('}');
            continue;
        }
        if SKIP.contains(&kw.as_str()) {
            continue;
        }
        let l = if line.starts_with("<<") {
            line.find(">>")
                .and_then(|e| line.get(e + 2..))
                .unwrap_or("")
        } else {
            line
        };
        let unquoted = if class {
            l.split('"').step_by(2).collect::<Vec<_>>().join(" ")
        } else {
            l.replace('"', "")
        };
        let head = if class {
            unquoted.split(':').next().unwrap_or("").trim()
        } else {
            unquoted.trim()
        };
        insert(set, ident_at(head));
        let Some(p) = [head.find("--"), head.find("..")]
            .into_iter()
            .flatten()
            .min()
        else {
            in_block = !class && head.contains('{') && !head.contains('}');
            continue;
        };
        let mut rest = head.get(p..).unwrap_or("").trim_start_matches(['-', '.']);
        if class {
            rest = rest.trim_start_matches(['>', '|', '*']);
            let arrowhead_o = rest.starts_with('o')
                && !rest
                    .get(1..)
                    .and_then(|r| r.chars().next())
                    .is_some_and(is_ident);
            rest = if arrowhead_o {
                rest.get(1..).unwrap_or("")
            } else {
                rest
            };
        } else {
            for _ in 0..2 {
                rest = rest.strip_prefix(['|', '}', '{', 'o']).unwrap_or(rest);
            }
        }
        insert(set, ident_at(rest.trim_start()));
    }
}

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
mod tests {
    use super::*;
    use DiagramKind as K;

    fn input(id: &str, src: &str) -> DiagramInput {
        DiagramInput {
            id: id.into(),
            title: "T".into(),
            explanation: "E".into(),
            section: None,
            kind: None,
            mermaid: src.into(),
        }
    }
    fn ok(d: &DiagramInput) -> ValidDiagram {
        validate(d).unwrap_or_else(|e| panic!("dropped {:?}: {}", d.mermaid, e.reason))
    }
    fn err(d: &DiagramInput) -> String {
        validate(d).map_or_else(|e| e.reason, |v| panic!("accepted {v:?}"))
    }
    fn accept(src: &str) -> ValidDiagram {
        ok(&input("d", src))
    }
    fn reason(src: &str) -> String {
        err(&input("d", src))
    }
    fn rejects(cases: &[(&str, &str)]) {
        cases.iter().for_each(|(src, want)| {
            let r = reason(src);
            assert!(r.contains(want), "{src:?}: {r:?} lacks {want:?}")
        });
    }
    fn flow(body: &str) -> String {
        format!("flowchart TD\n{body}")
    }

    #[test]
    fn allowed_types_are_accepted_and_kind_inferred() {
        let cases = [
            (
                "flowchart TD\n  A[Start] --> B{Ok?}\n  B -->|yes| C((Done))",
                "flowchart",
                K::Flow,
            ),
            ("graph LR; A-->B; B-->C", "graph", K::Flow),
            (
                "sequenceDiagram\n  participant A as Alice\n  A->>+B: hi\n  B-->>-A: ok",
                "sequenceDiagram",
                K::Sequence,
            ),
            ("stateDiagram\n  [*] --> Idle", "stateDiagram", K::State),
            (
                "stateDiagram-v2\n  state fork <<fork>>\n  [*] --> fork\n  fork --> A",
                "stateDiagram-v2",
                K::State,
            ),
            (
                "erDiagram\n  USER ||--o{ ORDER : places",
                "erDiagram",
                K::Data,
            ),
            (
                "classDiagram\n  class Shape {\n    <<interface>>\n    +draw()\n  }\n  Shape <|-- Circle",
                "classDiagram",
                K::Components,
            ),
            (
                "gantt\n  title Plan\n  dateFormat YYYY-MM-DD\n  section A\n  Build : a1, 2024-01-01, 3d",
                "gantt",
                K::Overview,
            ),
            (
                "mindmap\n  root((Plan))\n    A\n    B",
                "mindmap",
                K::Overview,
            ),
            (
                "timeline\n  title T\n  2024 : Alpha : Beta",
                "timeline",
                K::Overview,
            ),
            (
                "journey\n  title Day\n  section Work\n    Code: 5: Me",
                "journey",
                K::Overview,
            ),
        ];
        for (src, ty, kind) in cases {
            let v = accept(src);
            assert_eq!((v.mermaid_type, v.kind, infer_kind(ty)), (ty, kind, kind));
        }
        assert_eq!(infer_kind("pie"), K::Other);
        assert_eq!(
            mermaid_type("\n%% note\n  flowchart TD\nA-->B"),
            Some("flowchart")
        );
        assert_eq!(
            mermaid_type("---\ntitle: x\n---\nsequenceDiagram"),
            Some("sequenceDiagram")
        );
        assert_eq!(mermaid_type("\u{feff}gantt"), Some("gantt"));
        for bad in [
            "pie title x",
            "flowchart-elk TD",
            "architecture-beta",
            "Flowchart TD",
            "classDiagram-v2",
            "A-->B",
        ] {
            assert!(
                mermaid_type(bad).is_none()
                    && reason(bad)
                        .contains("is not allowed; use one of flowchart, graph, sequenceDiagram")
            );
        }
        rejects(&[
            ("", "diagram is empty"),
            (" \n\t\n", "diagram is empty"),
            ("%% a comment\n", "only comments"),
            ("---\ntitle: x\n---\n", "only comments"),
        ]);
    }

    #[test]
    fn kind_fields_and_ids() {
        let mut d = input("d", "flowchart TD\nA-->B");
        d.kind = Some(" Architecture ".into());
        assert_eq!(validate(&d).map(|v| v.kind), Ok(K::Architecture));
        d.kind = Some(String::new());
        assert_eq!(validate(&d).map(|v| v.kind), Ok(K::Flow));
        d.kind = Some("bogus".into());
        assert!(validate(&d).is_err_and(|e| {
            e.reason
                .contains("type `bogus` is unknown; use one of overview, flow")
        }));
        for (k, n) in KINDS {
            assert_eq!(
                (k.as_str(), DiagramKind::parse(&n.to_uppercase())),
                (n, Some(k))
            );
        }
        for id in ["a", "auth-flow", "v2-api-3", &"a".repeat(64)] {
            assert!(validate(&input(id, "graph TD\nA-->B")).is_ok(), "{id}");
        }
        for (id, want) in [
            ("", "id is empty"),
            ("Auth", "kebab"),
            ("a--b", "kebab"),
            ("-a", "kebab"),
            ("a-", "kebab"),
            ("a_b", "kebab"),
            ("../x", "kebab"),
            ("a b", "kebab"),
            ("é", "kebab"),
            (&"a".repeat(65), "id is 65 characters; the limit is 64"),
        ] {
            assert!(err(&input(id, "graph TD\nA-->B")).contains(want), "{id}");
        }
        let mut d = DiagramInput {
            section: Some("  Steps ".into()),
            title: " Title ".into(),
            ..input("d", "graph TD\nA-->B")
        };
        let v = ok(&d);
        assert_eq!(
            (
                v.title.as_str(),
                v.section.as_deref(),
                v.explanation.as_str()
            ),
            ("Title", Some("Steps"), "E")
        );
        d.section = Some(" ".into());
        assert_eq!(ok(&d).section, None);
        d.title = "  ".into();
        assert_eq!(err(&d), "title is empty");
        d.title = "t".into();
        d.explanation = "x".repeat(4001);
        assert_eq!(err(&d), "explanation is 4001 characters; the limit is 4000");
    }

    #[test]
    fn size_limit_in_bytes_with_multibyte_boundary() {
        let base = format!(
            "flowchart TD\nA[{}]",
            "é".repeat((MAX_DIAGRAM_BYTES - 16) / 2 - 1)
        );
        assert_eq!(base.len(), MAX_DIAGRAM_BYTES - 2);
        let exact = format!("{base}é");
        assert_eq!(accept(&exact).mermaid.len(), MAX_DIAGRAM_BYTES);
        assert_eq!(
            reason(&format!("{exact}\n")),
            "diagram is 8193 bytes; the limit is 8192"
        );
        assert_eq!(
            reason(&format!("{base}\u{1F600}")),
            "diagram is 8194 bytes; the limit is 8192"
        );
    }

    #[test]
    fn node_limit_and_estimates() {
        let chain = |n: usize| {
            flow(
                &(1..n)
                    .map(|i| format!("n{i} --> n{}", i + 1))
                    .collect::<Vec<_>>()
                    .join("\n"),
            )
        };
        assert_eq!(accept(&chain(40)).estimated_nodes, 40);
        assert_eq!(
            reason(&chain(41)),
            "diagram has about 41 nodes; the limit is 40; split or simplify it"
        );
        let cases = [
            (
                "flowchart",
                "flowchart TD\nA[Start here] --> B{Is it?}\nB -->|Yes| C(Ok)\nB -- No way --> D\nD == big text ==> C\nD -. dotted .-> A\nC & D --> E:::hot\nsubgraph S [Group]\nF\nend\nclassDef hot fill:#f00\nstyle A fill:#0f0\nA --o G\nA e1@--> H",
                8,
            ),
            ("graph", "graph TD;A-->B;B-->C;my-node-->A", 4),
            (
                "sequenceDiagram",
                "sequenceDiagram\nparticipant A as Alice\nactor Bob\nA->>+Bob: hi\nBob-->>-A: ok\nA-x Web-Server: x\nnote right of A: n\nloop L\nA->>A: self\nend",
                3,
            ),
            (
                "stateDiagram-v2",
                "stateDiagram-v2\n[*] --> Idle\nIdle --> Busy : start\nstate \"Long name\" as Long\nstate Comp {\n  Inner --> Idle\n}\nnote right of Idle\n  Ghost --> Phantom\nend note\nBusy --> [*]",
                5,
            ),
            (
                "erDiagram",
                "erDiagram\nUSER ||--o{ ORDER : places\nORDER ||--|{ LINE-ITEM : contains\nPRODUCT {\n  string name PK\n  int price\n}\nUSER }|..|{ ADDRESS : has",
                5,
            ),
            (
                "classDiagram",
                "classDiagram\nclass Animal {\n  +int age\n  +eat()\n}\nAnimal <|-- Duck\nAnimal \"1\" --> \"*\" Leg : has\nDuck : +swim()\n<<interface>> Swimmer\nSwimmer ..|> Duck\nnamespace Farm {\nclass Cow\n}\nFish --o Pond",
                7,
            ),
            (
                "mindmap",
                "mindmap\n  root((R))\n    A\n      B\n    ::icon(fa fa-book)\n    C",
                4,
            ),
            (
                "gantt",
                "gantt\n title G\n dateFormat YYYY-MM-DD\n axisFormat %H:%M\n section S\n A : a1, 2024-01-01, 1d\n B : after a1, 2d",
                2,
            ),
            (
                "timeline",
                "timeline\n title T\n section S\n 2002 : LinkedIn\n 2004 : Facebook : Google\n      : Flickr\n 2005",
                4,
            ),
            (
                "journey",
                "journey\n title J\n section S\n  Make tea: 5: Me\n  Drink: 3: Me, Cat",
                2,
            ),
            ("pie", "pie\n \"a\" : 1\n \"b\" : 2", 2),
        ];
        for (ty, src, want) in cases {
            assert_eq!(estimate_nodes(ty, src), want, "{ty}");
        }
    }

    #[test]
    fn directive_statements() {
        for w in ["click", "link", "links", "callback", "call", "CLICK"] {
            let r = reason(&flow(&format!("A-->B\n  {w} A \"x\"")));
            assert!(
                r.contains(&format!(
                    "`{}` directives are not allowed",
                    w.to_lowercase()
                )),
                "{r}"
            );
        }
        rejects(&[
            ("graph TD;A-->B;click A cb", "`click`"),
            (
                "sequenceDiagram\nA->>B: hi\nlink A: Docs @ https://x.test",
                "`link`",
            ),
            (
                "classDiagram\nclass Shape\ncallback Shape \"fn\"",
                "`callback`",
            ),
            (
                "gantt\nT : t1, 2024-01-01, 1d\nclick t1 call cb()",
                "`click`",
            ),
        ]);
        accept(&flow(
            "clicked --> linker\nA[click here] --> B(call me)\nlink-to --> B",
        ));
        accept("sequenceDiagram\nA->>B: click the link to call back");
    }

    #[test]
    fn urls_schemes_entities_and_href() {
        let cases = [
            ("A[\"javascript:alert(1)\"]", "`javascript:` URLs"),
            ("A[\"JaVa\tScRiPt :alert(1)\"]", "`javascript:` URLs"),
            ("A[\"javascript&colon;alert(1)\"]", "`javascript:` URLs"),
            ("A[\"java&Tab;script:x\"]", "`javascript:` URLs"),
            ("A[\"javascript#colon;x\"]", "`javascript:` URLs"),
            ("A[\"java&amp;#115;cript:x\"]", "character entity"),
            ("A[\"java&#115;cript:x\"]", "character entity `&#115;`"),
            ("A[\"java&#x73;cript:x\"]", "character entity `&#x73;`"),
            ("A[\"java#115;cript:x\"]", "character entity `#115;`"),
            ("A[\"x&#58;y\"]", "character entity"),
            ("A[\"x&#0;y\"]", "character entity"),
            ("A[\"x&#99999999999;y\"]", "character entity"),
            ("A[\"vbscript:x\"]", "`vbscript:` URLs"),
            ("A[\"data:text/html,x\"]", "`data:` URLs"),
            ("A[\"(DATA : image/svg+xml;base64,x)\"]", "`data:` URLs"),
            ("A[\"data:,x\"]", "`data:` URLs"),
            ("A[\"x url(http://e.test)\"]", "`url(`"),
            ("A[\"x URL&lpar;a)\"]", "`url(`"),
            ("A[\"see href\"]", "`href` is not allowed"),
            (
                "A@{ img: \"https://e.test/a.png\", label: \"x\" }",
                "image shapes",
            ),
        ];
        for (body, want) in cases {
            rejects(&[(&flow(body), want)]);
        }
        accept(&flow(
            "A[\"User data: stored\"] --> B[\"metadata:text/x\"]\nB --> C[\"Frontend (JavaScript) #9829; #quot;hi#quot; &#9829; &amp;\"]",
        ));
        accept(&flow(
            "A[\"Fetch URL (signed)\"] --> B[\"curl(x)\"]\nB --> C@{ shape: rect, label: \"imgs\" }\nC --> D[\"Issue #42;\"]",
        ));
    }

    #[test]
    fn html_tags() {
        for t in [
            "<img src=x onerror=alert(1)>",
            "<script>",
            "</b>",
            "<br>",
            "<br/>",
            "<!-- c -->",
            "<svg onload=x>",
            "<?x",
            "#lt;script#gt;",
            "&lt;b&gt;",
            "&#60;b&#62;",
        ] {
            assert!(
                reason(&flow(&format!("A[\"{t}\"] --> B"))).contains("HTML tags are not allowed"),
                "{t}"
            );
        }
        rejects(&[
            ("sequenceDiagram\nA->>B: <img src=x>", "HTML tags"),
            ("flowchart TD\nA[\"<<iface>>\"]", "HTML tags"),
            ("classDiagram\nclass A\n<<script", "HTML tags"),
            ("---\ntitle: <b>x</b>\n---\ngraph TD\nA-->B", "HTML tags"),
        ]);
        accept(&flow(
            "A --> B\nB <--> C\nC -.-> D\nD ==> E\nE --- F[\"a < b, 3 <= 4, #lt; 5, x<3\"]",
        ));
        accept(
            "classDiagram\nclass Shape {\n  <<interface>>\n}\nShape <|-- Circle\n<<abstract>> Circle",
        );
        accept("sequenceDiagram\nA<<->>B: both\nA-)B: async");
        accept("erDiagram\nA }|..|{ B : x\nB ||--o{ C : y");
    }

    #[test]
    fn init_directives_and_front_matter() {
        rejects(&[
            (
                "%%{init: {\"securityLevel\":\"loose\"}}%%\nflowchart TD\nA-->B",
                "`%%{init}%%` directive sets `securityLevel`",
            ),
            (
                "%%{init:{'theme':'base','themeCSS':'.x{}'}}%%\ngraph TD\nA-->B",
                "sets `themeCSS`",
            ),
            (
                "graph TD\nA-->B\n%%{ init: { 'flowchart': { 'htmlLabels': true } } }%%",
                "sets `htmlLabels`",
            ),
            (
                "%%{init: {\"themeVariables\": {\"fontFamily\": \"x\"}}}%%\ngraph TD\nA-->B",
                "sets `fontFamily`",
            ),
            (
                "%%{wrap}%%\nsequenceDiagram\nA->>B: x",
                "`%%{...}%%` directives are not allowed",
            ),
            (
                "%% {init: {}}%%\ngraph TD\nA-->B",
                "`%%{...}%%` directives are not allowed",
            ),
            (
                "---\nconfig:\n  theme: forest\n---\ngraph TD\nA-->B",
                "front matter `config:` is not allowed",
            ),
            (
                "---\nconfig:\n  securityLevel: loose\n---\ngraph TD\nA-->B",
                "front matter sets `securityLevel`",
            ),
            (
                "---\ntitle: x\nmaxTextSize: 9\n---\ngraph TD\nA-->B",
                "front matter sets `maxTextSize`",
            ),
            (
                "---\ntitle: x\ndisplayMode: compact\n---\ngantt",
                "front matter line `displayMode: compact` is not allowed",
            ),
            (
                "---\ntitle: x\ngraph TD\nA-->B",
                "front matter (`---`) is not closed",
            ),
            (
                "%% c\n---\ntitle: x\n---\ngraph TD",
                "type `---` is not allowed",
            ),
        ]);
        accept(
            "---\ntitle: Login flow\n---\n%% a comment about securityLevel\nflowchart TD\nA-->B",
        );
        accept("\n---\ntitle: x\n# yaml comment\n---\ngraph TD\nA-->B\n%% trailing comment");
    }

    #[test]
    fn style_lines() {
        accept(&flow(
            "A-->B\nstyle A fill:#f9f,stroke:#333,stroke-width:4px,stroke-dasharray: 5 5\nclassDef hot fill:rgb(255,0,0),color:#fff;\nlinkStyle 0 stroke:#060;\nclass A hot",
        ));
        accept(
            "stateDiagram-v2\n[*] --> A\nclassDef bad fill:hsla(0,100%,50%,0.5),font-weight:bold\nclass A bad",
        );
        let cases = [
            ("style A fill:url(#p)", "`url(`"),
            (
                "style A background:expression(alert(1))",
                "`expression(` is not allowed in style lines",
            ),
            ("classDef x fill:red;@import x", "`@import`"),
            (
                "classDef x fill:red}body{color:red",
                "`{` or `}` is not allowed in style lines",
            ),
            ("style A font-family:Comic", "`fontFamily`"),
            ("classDef x fontFamily:Comic", "`fontFamily`"),
            ("style A fill:u\\72l(x)", "backslash"),
            ("style A fill:image-set(x)", "CSS function `image-set(`"),
            ("linkStyle 0 stroke:\"x\"", "the character `\"`"),
            ("A;style A fill:red}", "`{` or `}`"),
        ];
        for (line, want) in cases {
            rejects(&[(&flow(&format!("A-->B\n{line}")), want)]);
        }
        rejects(&[(
            "stateDiagram-v2\n[*] --> A\nclassDef x fill:red}body{color:red",
            "`{` or `}`",
        )]);
    }

    #[test]
    fn validate_all_limits_and_duplicates() {
        let list: Vec<_> = (0..7)
            .map(|i| input(&format!("d{}", i.min(5)), "graph TD\nA-->B"))
            .collect();
        let (ok, dropped) = validate_all(&list, DEFAULT_MAX_DIAGRAMS);
        assert_eq!(
            ok.iter().map(|v| v.id.as_str()).collect::<Vec<_>>(),
            ["d0", "d1", "d2", "d3", "d4"]
        );
        assert_eq!(
            dropped.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(),
            ["d5", "d5"]
        );
        assert_eq!(
            dropped[0].reason,
            "only 5 diagrams are allowed per plan; this is diagram 6"
        );
        let list = [
            input("a", "graph TD\nA-->B"),
            input("Bad", "graph TD"),
            input("a", "graph TD\nX-->Y"),
            input("c", "pie"),
        ];
        let (ok, dropped) = validate_all(&list, 5);
        assert_eq!((ok.len(), ok[0].mermaid.as_str()), (1, "graph TD\nA-->B"));
        assert!(
            dropped[0].reason.contains("kebab")
                && dropped[2].reason.contains("`pie` is not allowed")
        );
        assert_eq!(
            (dropped[1].id.as_str(), dropped[1].reason.as_str()),
            ("a", "duplicate id `a`; each diagram needs a unique id")
        );
        assert_eq!(validate_all(&list, 0).1.len(), 4);
        assert_eq!(validate_all(&[], 5), (vec![], vec![]));
    }

    #[test]
    fn revision_marks() {
        let v = |id: &str, src: &str| ok(&input(id, src));
        let prev = [
            ("same", "graph TD\nA-->B"),
            ("chg", "graph TD\nA-->B"),
            ("zz-gone", "graph TD"),
            ("a-gone", "graph TD"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()));
        let cur = [
            v("same", "\n\ngraph TD  \r\nA-->B\t\n\n"),
            v("chg", "graph TD\nA-->C"),
            v("fresh", "graph TD\nA-->B"),
        ];
        let (marks, removed) = mark_revision(&prev, &cur);
        assert_eq!(
            marks,
            [
                ("same", Mark::Unchanged),
                ("chg", Mark::Updated),
                ("fresh", Mark::New)
            ]
            .map(|(a, m)| (a.to_string(), m))
        );
        assert_eq!(removed, ["a-gone", "zz-gone"]);
        assert_eq!(mark_revision(&[], &[]), (vec![], vec![]));
        assert_eq!(normalize("  \n x  \n\n y\n \n"), " x\n\n y");
    }

    #[test]
    fn garbage_never_panics() {
        let all: String = (0..=0x10FFFFu32)
            .step_by(97)
            .filter_map(char::from_u32)
            .collect();
        let (mut seed, alphabet) = (
            0x2545_F491_4F6C_DD1Du64,
            "<>&#;:-=.|[](){}\"'%@*oxé😀\u{feff} \n\tabcABC012-->"
                .chars()
                .collect::<Vec<_>>(),
        );
        let noise: String = (0..100_000)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                alphabet[(seed % alphabet.len() as u64) as usize]
            })
            .collect();
        for body in [
            all.as_str(),
            noise.as_str(),
            &"a".repeat(100_000),
            &"[(\"".repeat(40_000),
        ] {
            for ty in ALLOWED_TYPES.iter().chain(&["pie", ""]) {
                let src = format!("{ty}\n{body}");
                let _ = (
                    estimate_nodes(ty, &src),
                    mermaid_type(&src),
                    validate(&input("x", &src)),
                );
                let b = body.to_string();
                let _ = validate(&DiagramInput {
                    id: b.clone(),
                    title: b.clone(),
                    explanation: b.clone(),
                    section: Some(b.clone()),
                    kind: Some(b.clone()),
                    mermaid: b,
                });
            }
        }
        let (all, noise): (Vec<char>, Vec<char>) = (all.chars().collect(), noise.chars().collect());
        for chunk in all.chunks(1500).chain(noise.chunks(3000)) {
            for ty in ALLOWED_TYPES {
                let mut src = format!("{ty}\n{}", chunk.iter().collect::<String>());
                while src.len() > MAX_DIAGRAM_BYTES {
                    src.pop();
                }
                let _ = (
                    validate(&input("x", &src)),
                    estimate_nodes(ty, &src),
                    mark_revision(&[("x".into(), src.clone())], &[]),
                );
            }
        }
    }
}
