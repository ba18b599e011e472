//! The checks that reject a diagram: directives, front matter, content (script, links, HTML,
//! URLs), styles and entities.

use super::*;

// --- validation ----------------------------------------------------------------------------------

pub(super) fn check(d: &DiagramInput) -> Result<ValidDiagram, String> {
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
    if matches!(mtype, "flowchart" | "graph") {
        check_flowchart_labels(src)?;
    }
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

pub(super) fn check_id(id: &str) -> Result<(), String> {
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

pub(super) fn required(field: &str, value: &str, max: usize) -> Result<String, String> {
    match value.trim().chars().count() {
        0 => Err(format!("{field} is empty")),
        n if n > max => Err(format!("{field} is {n} characters; the limit is {max}")),
        _ => Ok(value.trim().to_string()),
    }
}

pub(super) fn security_key(lower: &str) -> Option<&'static str> {
    SECURITY_KEYS
        .into_iter()
        .find(|k| lower.contains(&k.to_ascii_lowercase()))
}

pub(super) fn check_front_matter(fm: &str) -> Result<(), String> {
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

pub(super) fn check_directives(src: &str) -> Result<(), String> {
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

pub(super) fn check_content(src: &str, mtype: &str) -> Result<(), String> {
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

/// The mistake models make most in flowcharts, which Mermaid refuses to parse: a node label with
/// brackets of its own left unquoted, e.g. `C[greet(name)]` (write `C["greet(name)"]`).
pub(super) fn check_flowchart_labels(src: &str) -> Result<(), String> {
    for line in src.lines() {
        let line = line.trim();
        if line.starts_with("%%") {
            continue;
        }
        let b = line.as_bytes();
        let mut i = 0;
        while i < b.len() {
            // Edge text (`-->|text|`) is not a node label.
            if b[i] == b'|' {
                i = line[i + 1..].find('|').map_or(b.len(), |e| i + e + 2);
                continue;
            }
            // A node id directly followed by a shape's opening bracket.
            let id_start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            if i == id_start {
                i += 1;
                continue;
            }
            let Some(open) = shape_open(&line[i..]) else {
                continue;
            };
            let body_start = i + open.len();
            let rest = &line[body_start..];
            if rest.trim_start().starts_with('"') {
                // A quoted label: skip to its closing quote.
                let q = body_start + rest.find('"').unwrap_or(0) + 1;
                i = line[q..].find('"').map_or(line.len(), |e| q + e + 1);
                continue;
            }
            let close = shape_close(open);
            let end = match open {
                "[/" | "[\\" => rest.find("/]").into_iter().chain(rest.find("\\]")).min(),
                _ => rest.find(close.as_str()),
            };
            let Some(end) = end else {
                i = body_start;
                continue;
            };
            let label = &rest[..end];
            if let Some(c) = label.chars().find(|c| "()[]{}".contains(*c)) {
                let id = &line[id_start..i];
                return Err(format!(
                    "node `{id}`: its label `{}` contains `{c}`, which Mermaid reads as a shape; quote the label: {id}{open}\"{}\"{close}",
                    snippet(label, 60),
                    snippet(label, 60),
                ));
            }
            i = body_start + end + close.len();
        }
    }
    Ok(())
}

/// The opening bracket run of a flowchart node shape at the start of `s`, if any.
fn shape_open(s: &str) -> Option<&'static str> {
    const OPENS: [&str; 11] = [
        "(((", "([", "((", "[[", "[(", "[/", "[\\", "{{", "(", "[", "{",
    ];
    OPENS.into_iter().find(|o| s.starts_with(o))
}

/// The closing run that matches an opening one: `([` → `])`, `{{` → `}}`.
fn shape_close(open: &str) -> String {
    open.chars()
        .rev()
        .map(|c| match c {
            '(' => ')',
            '[' => ']',
            '{' => '}',
            other => other,
        })
        .collect()
}

pub(super) fn check_style(stmt: &str) -> Result<(), String> {
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

pub(super) fn has_data_url(lower: &str) -> bool {
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

pub(super) fn find_tag(s: &str, stereotypes: bool) -> Option<String> {
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
pub(super) fn decode_all(src: &str) -> Result<String, String> {
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
pub(super) fn parse_entity(b: &[u8]) -> Option<(Option<char>, usize, bool)> {
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
