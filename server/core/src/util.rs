//! Small shared helpers: clocks, random tokens, hashing.

use sha2::{Digest, Sha256};

/// Unix time in milliseconds.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// A new ULID as a string, monotonic within this process (ids made in the same millisecond
/// still sort in creation order).
pub fn new_id() -> String {
    static GEN: parking_lot::Mutex<ulid::Generator> =
        parking_lot::Mutex::new(ulid::Generator::new());
    let mut g = GEN.lock();
    match g.generate() {
        Ok(u) => u.to_string(),
        Err(_) => ulid::Ulid::generate().to_string(),
    }
}

/// `n` random bytes from the OS, hex-encoded (2n characters).
pub fn random_hex(n: usize) -> anyhow::Result<String> {
    let mut buf = vec![0u8; n];
    getrandom::fill(&mut buf).map_err(|e| anyhow::anyhow!("OS random source failed: {e}"))?;
    Ok(hex(&buf))
}

pub fn hex(bytes: &[u8]) -> String {
    hex::encode(bytes)
}

/// Field `n` of a `/proc/<pid>/stat` line, numbered as proc(5) numbers them (3 the state, 4 the
/// parent, 22 the start time, 50 `env_start`), counted after the command name, which may hold
/// spaces and parentheses.
pub fn stat_field(stat: &str, n: usize) -> Option<&str> {
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(n.checked_sub(3)?)
}

pub fn sha256_hex(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

/// Constant-time comparison for secrets (a length difference is not hidden; tokens have a fixed
/// length).
pub fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    subtle::ConstantTimeEq::ct_eq(a, b).into()
}

/// Cut `s` to at most `max` bytes on a char boundary.
pub fn truncate_str(s: &str, max: usize) -> &str {
    &s[..s.floor_char_boundary(max)]
}

/// The last `max` bytes of `s`, starting on a char boundary.
pub fn tail_str(s: &str, max: usize) -> &str {
    &s[s.ceil_char_boundary(s.len().saturating_sub(max))..]
}

/// Replace `path` with `bytes` at once: written beside it, then renamed over it (a reader sees
/// the old file or the new one, never half of it).
pub fn write_replace(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp-{}", new_id()));
    let tmp = std::path::PathBuf::from(tmp);
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// The title a session gets when it is created without one.
pub const DEFAULT_TITLE: &str = "New session";

/// A session title from its first prompt: the first line with text, Markdown marks and extra
/// spaces taken out, at most 60 characters (cut at a word).
pub fn title_from_prompt(text: &str) -> Option<String> {
    let line = text
        .lines()
        .map(|l| l.trim_start_matches(['#', '>', '-', '*', ' ']).trim())
        .find(|l| !l.is_empty() && !l.starts_with("```"))?;
    let clean: String = line
        .chars()
        .filter(|c| !matches!(c, '`' | '*' | '_'))
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if clean.is_empty() {
        return None;
    }
    const MAX: usize = 60;
    if clean.chars().count() <= MAX {
        return Some(clean);
    }
    let cut: String = clean.chars().take(MAX).collect();
    let at_word = cut
        .rfind(' ')
        .filter(|&i| i >= MAX / 2)
        .map_or(cut.as_str(), |i| &cut[..i]);
    Some(format!(
        "{}…",
        at_word.trim_end_matches([',', '.', ';', ':'])
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn stat_fields_count_after_the_command_name() {
        let stat = "4242 (a) b (c) S 1 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 777";
        assert_eq!(super::stat_field(stat, 3), Some("S"));
        assert_eq!(super::stat_field(stat, 4), Some("1"));
        assert_eq!(super::stat_field(stat, 22), Some("777"));
        assert_eq!(super::stat_field(stat, 23), None);
        assert_eq!(super::stat_field(stat, 2), None);
        assert_eq!(super::stat_field("no name", 3), None);
    }
}
