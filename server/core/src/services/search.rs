//! Search every session (`GET /api/search`).

use super::{Core, ServiceError, ServiceResult};
use crate::protocol::{SearchHit, SearchResults, SessionId};
use crate::store::{SearchHitRow, query_terms};

/// Longest query accepted.
pub const MAX_QUERY_CHARS: usize = 200;

/// A snippet's text without the markers, and the marked ranges in UTF-16 units.
fn highlights(marked: &str) -> (String, Vec<[u32; 2]>) {
    let mut text = String::with_capacity(marked.len());
    let mut ranges = Vec::new();
    let (mut units, mut start) = (0u32, None);
    for c in marked.chars() {
        match c {
            '\u{1}' => start = Some(units),
            '\u{2}' => {
                if let Some(s) = start.take()
                    && units > s
                {
                    ranges.push([s, units]);
                }
            }
            c => {
                text.push(c);
                units += c.len_utf16() as u32;
            }
        }
    }
    (text, ranges)
}

fn hit(r: SearchHitRow) -> SearchHit {
    let (snippet, highlights) = highlights(&r.snippet);
    SearchHit {
        session_id: r.session_id,
        title: r.title,
        seq: r.seq,
        kind: r.kind,
        snippet,
        highlights,
        created_at: r.created_at,
    }
}

impl Core {
    /// Full-text search over prompts, answers, tool calls and tool results of every session
    /// (or one): every word must match, the last one as a prefix; newest first.
    pub async fn search(
        &self,
        q: &str,
        session: Option<&SessionId>,
        limit: i64,
    ) -> ServiceResult<SearchResults> {
        if q.chars().count() > MAX_QUERY_CHARS {
            return Err(ServiceError::Invalid(format!(
                "q is longer than {MAX_QUERY_CHARS} characters"
            )));
        }
        let terms = query_terms(q);
        let rows = self.store.search(&terms, session, limit).await?;
        Ok(SearchResults {
            data: rows.into_iter().map(hit).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn markers_become_utf16_ranges() {
        let (t, r) = super::highlights("é \u{1}flaky\u{2} 😀 \u{1}test\u{2}…");
        assert_eq!(t, "é flaky 😀 test…");
        assert_eq!(r, vec![[2, 7], [11, 15]]);
    }
}
