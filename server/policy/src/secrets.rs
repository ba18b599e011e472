//! Secret-looking values in text the model would see: cloud keys, API tokens, `.netrc`
//! passwords. They are replaced with `[REDACTED kind]` unless the user approved that file. Pure,
//! no regex engine: each kind is a prefix and a character class with a minimum length.

/// A token kind: its prefix, the characters of its body and the body's minimum length.
struct Kind {
    name: &'static str,
    prefix: &'static str,
    body: fn(u8) -> bool,
    min: usize,
}

fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}
fn upper_alnum(b: u8) -> bool {
    b.is_ascii_uppercase() || b.is_ascii_digit()
}
fn token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

const KINDS: &[Kind] = &[
    Kind {
        name: "AWS access key",
        prefix: "AKIA",
        body: upper_alnum,
        min: 16,
    },
    Kind {
        name: "AWS access key",
        prefix: "ASIA",
        body: upper_alnum,
        min: 16,
    },
    Kind {
        name: "GitHub token",
        prefix: "ghp_",
        body: alnum,
        min: 30,
    },
    Kind {
        name: "GitHub token",
        prefix: "gho_",
        body: alnum,
        min: 30,
    },
    Kind {
        name: "GitHub token",
        prefix: "ghu_",
        body: alnum,
        min: 30,
    },
    Kind {
        name: "GitHub token",
        prefix: "ghs_",
        body: alnum,
        min: 30,
    },
    Kind {
        name: "GitHub token",
        prefix: "ghr_",
        body: alnum,
        min: 30,
    },
    Kind {
        name: "GitHub token",
        prefix: "github_pat_",
        body: token,
        min: 40,
    },
    Kind {
        name: "Slack token",
        prefix: "xoxb-",
        body: token,
        min: 10,
    },
    Kind {
        name: "Slack token",
        prefix: "xoxp-",
        body: token,
        min: 10,
    },
    Kind {
        name: "Slack token",
        prefix: "xoxa-",
        body: token,
        min: 10,
    },
    Kind {
        name: "Slack token",
        prefix: "xoxr-",
        body: token,
        min: 10,
    },
    Kind {
        name: "Slack token",
        prefix: "xoxs-",
        body: token,
        min: 10,
    },
    Kind {
        name: "API key",
        prefix: "sk-",
        body: token,
        min: 24,
    },
    Kind {
        name: "Google API key",
        prefix: "AIza",
        body: token,
        min: 30,
    },
    Kind {
        name: "GitLab token",
        prefix: "glpat-",
        body: token,
        min: 20,
    },
    Kind {
        name: "npm token",
        prefix: "npm_",
        body: alnum,
        min: 30,
    },
];

/// Keys whose value (after `=` or `:`) is a secret wherever they appear.
const SECRET_KEYS: &[&str] = &["aws_secret_access_key", "aws_session_token"];

/// Replace secret-looking values in `text`. Returns the text and the kinds found (one entry per
/// value).
pub fn redact(text: &str) -> (String, Vec<&'static str>) {
    let mut found = Vec::new();
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        out.push_str(&redact_line(line, &mut found));
    }
    (out, found)
}

fn redact_line(line: &str, found: &mut Vec<&'static str>) -> String {
    let lower = line.to_ascii_lowercase();
    // `.netrc`: `machine h login u password p`, possibly over several lines.
    let netrc = word_index(&lower, "machine").is_some()
        || word_index(&lower, "login").is_some()
        || lower.trim_start().starts_with("password ");
    if let Some(i) = word_index(&lower, "password").filter(|_| netrc) {
        let after = i + "password".len();
        if let Some(v) = value_after(line, after, &[' ', '\t']) {
            found.push(".netrc password");
            return format!("{}[REDACTED .netrc password]{}", &line[..v.0], &line[v.1..]);
        }
    }
    for k in SECRET_KEYS {
        if let Some(i) = lower.find(k)
            && let Some(v) = value_after(line, i + k.len(), &[' ', '\t', '=', ':', '"', '\''])
        {
            found.push("AWS secret");
            return format!("{}[REDACTED AWS secret]{}", &line[..v.0], &line[v.1..]);
        }
    }
    let b = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    'outer: while i < b.len() {
        let boundary = i == 0 || !token(b[i - 1]);
        if boundary {
            for k in KINDS {
                if line.get(i..).is_some_and(|r| r.starts_with(k.prefix)) {
                    let start = i + k.prefix.len();
                    let n = b[start..].iter().take_while(|&&c| (k.body)(c)).count();
                    if n >= k.min {
                        found.push(k.name);
                        out.push_str("[REDACTED ");
                        out.push_str(k.name);
                        out.push(']');
                        i = start + n;
                        continue 'outer;
                    }
                }
            }
        }
        let ch_len = line[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&line[i..i + ch_len]);
        i += ch_len;
    }
    out
}

/// Index of `word` in `lower` as a whole word (the `.netrc` keyword).
fn word_index(lower: &str, word: &str) -> Option<usize> {
    lower.match_indices(word).map(|(i, _)| i).find(|&i| {
        let before = lower[..i].chars().next_back();
        let after = lower[i + word.len()..].chars().next();
        before.is_none_or(char::is_whitespace) && after.is_some_and(char::is_whitespace)
    })
}

/// The byte range of the value after `from`, skipping `seps`; `None` when there is none.
fn value_after(line: &str, from: usize, seps: &[char]) -> Option<(usize, usize)> {
    let rest = line.get(from..)?;
    let skip = rest.len() - rest.trim_start_matches(seps).len();
    let start = from + skip;
    let value = line.get(start..)?;
    let len = value
        .find(|c: char| c.is_whitespace() || c == '"' || c == '\'' || c == ',')
        .unwrap_or(value.len());
    (len > 0).then_some((start, start + len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted_and_code_is_not() {
        let text = "key = AKIAIOSFODNN7EXAMPLE\n\
                    aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n\
                    token: ghp_abcdefghijklmnopqrstuvwxyz0123456789\n\
                    SLACK=xoxb-1234567890-abcdef\n\
                    OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz012345\n\
                    machine example.com login me password hunter2\n\
                    fn main() { let sk = \"sk-short\"; let task = 1; }\n";
        let (out, found) = redact(text);
        for secret in [
            "AKIAIOSFODNN7EXAMPLE",
            "wJalrXUtnFEMI",
            "ghp_abc",
            "xoxb-123",
            "sk-proj",
            "hunter2",
        ] {
            assert!(!out.contains(secret), "{secret} leaked:\n{out}");
        }
        assert_eq!(found.len(), 6, "{found:?}");
        assert!(out.contains("fn main() { let sk = \"sk-short\"; let task = 1; }"));
        assert!(
            out.contains("[REDACTED GitHub token]")
                && out.contains("login me password [REDACTED .netrc password]")
        );
        let (same, none) = redact("password_hash = x\nthe password field\nASKIA\n");
        assert!(none.is_empty(), "{none:?}");
        assert_eq!(same, "password_hash = x\nthe password field\nASKIA\n");
    }
}
