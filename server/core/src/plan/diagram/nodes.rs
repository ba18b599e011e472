//! Node counting per diagram type (a rough estimate, for the ~40-node limit).

use std::collections::HashSet;

use super::*;

pub(super) fn strip_flow_labels(line: &str) -> String {
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

pub(super) fn flow_nodes(lines: &[&str], set: &mut HashSet<String>) {
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

pub(super) fn sequence_nodes(lines: &[&str], set: &mut HashSet<String>) {
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

pub(super) fn state_nodes(lines: &[&str], set: &mut HashSet<String>) {
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
pub(super) fn entity_nodes(lines: &[&str], class: bool, set: &mut HashSet<String>) {
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
