//! Line comments sent back to the agent: the one structured prompt "Send comments" makes, and
//! the answers read back — from the answer of the run that got them (each comment replied to on
//! a line starting with its tag), or from a plan revision's `answers`.

use std::collections::HashMap;
use std::sync::Arc;

use futures::future::BoxFuture;

use crate::events::EventBus;
use crate::protocol::{
    CommentStatus, CommentTarget, EventPayload, ReviewComment, ReviewCommentId, RunId,
};
use crate::scheduler::{AfterRun, EndedRun};
use crate::store::Store;

/// Longest answer kept per comment (characters).
pub const MAX_ANSWER_CHARS: usize = 4000;

/// The runs that got comments, and which: their answers are read when each ends. (Kept in
/// memory: a run the server stopped in leaves its comments `sent`, to send again.)
#[derive(Debug, Default)]
pub struct Awaiting(parking_lot::Mutex<HashMap<RunId, Vec<ReviewCommentId>>>);

impl Awaiting {
    pub fn wait(&self, run: RunId, ids: Vec<ReviewCommentId>) {
        self.0.lock().insert(run, ids);
    }

    fn take(&self, run: &RunId) -> Option<Vec<ReviewCommentId>> {
        let mut map = self.0.lock();
        if map.is_empty() {
            return None;
        }
        map.remove(run)
    }
}

/// The tag a comment is answered by: `[c:<id>]`.
pub fn tag(id: &ReviewCommentId) -> String {
    format!("[c:{id}]")
}

/// The prompt "Send comments" sends: each comment with its file, lines and the code it quotes,
/// and how to answer.
pub fn prompt(comments: &[ReviewComment], intro: Option<&str>) -> String {
    let mut out = String::new();
    if let Some(i) = intro.map(str::trim).filter(|i| !i.is_empty()) {
        out.push_str(i);
        out.push_str("\n\n");
    }
    let plan = comments.iter().all(|c| c.target == CommentTarget::Plan);
    out.push_str(&format!(
        "Review comments ({}) on {}:\n",
        comments.len(),
        if plan { "the plan" } else { "your changes" }
    ));
    for c in comments {
        let lines = if c.start_line == c.end_line {
            format!("line {}", c.start_line)
        } else {
            format!("lines {}-{}", c.start_line, c.end_line)
        };
        let place = match c.target {
            CommentTarget::Plan => format!(
                "plan revision {}, {lines}",
                c.revision.map_or("?".into(), |r| r.to_string())
            ),
            CommentTarget::Diff => format!(
                "{}, {lines}{}",
                c.path,
                if c.side == crate::protocol::CommentSide::Old {
                    " (removed lines)"
                } else {
                    ""
                }
            ),
        };
        out.push_str(&format!("\n{} {place}\n", tag(&c.id)));
        if !c.quote.is_empty() {
            out.push_str("```\n");
            out.push_str(&c.quote);
            if !c.quote.ends_with('\n') {
                out.push('\n');
            }
            out.push_str("```\n");
        }
        out.push_str(&format!("Comment: {}\n", c.body.trim()));
    }
    if plan {
        out.push_str(
            "\nRevise the plan for these comments and propose it again with exit_plan, giving \
             `answers`: one entry per comment, {\"comment\": \"<its id>\", \"text\": \"what you \
             changed or why not\"}.\n",
        );
    } else {
        out.push_str(
            "\nAddress each comment (edit the code where it asks for a change). In your final \
             answer, reply to each comment on a line starting with its tag, e.g. `[c:ID] Done: \
             …` or `[c:ID] Not changed, because …`.\n",
        );
    }
    out
}

/// The replies in `text` to the comments `ids`: each from its tag up to the next tag (or the
/// end), trimmed and at most [`MAX_ANSWER_CHARS`].
pub fn answers(text: &str, ids: &[ReviewCommentId]) -> HashMap<ReviewCommentId, String> {
    let mut found: Vec<(usize, usize, &ReviewCommentId)> = ids
        .iter()
        .filter_map(|id| {
            let t = tag(id);
            text.find(&t).map(|at| (at, at + t.len(), id))
        })
        .collect();
    found.sort_by_key(|(at, _, _)| *at);
    let mut out = HashMap::new();
    for (i, (_, end, id)) in found.iter().enumerate() {
        // Up to the next tag (of another comment, or one the model made up).
        let next = found.get(i + 1).map_or(text.len(), |(at, _, _)| *at);
        let stop = text[*end..next].find("[c:").map_or(next, |j| end + j);
        let reply: String = text[*end..stop]
            .trim()
            .trim_start_matches([':', '-', '—'])
            .trim()
            .chars()
            .take(MAX_ANSWER_CHARS)
            .collect();
        if !reply.is_empty() {
            out.insert((*id).clone(), reply);
        }
    }
    out
}

/// Record `answer` on comment `id` of `session` (answered), and tell the clients.
pub async fn answer(
    store: &Store,
    events: &EventBus,
    session: &crate::protocol::SessionId,
    id: &ReviewCommentId,
    answer: &str,
) -> bool {
    let Ok(mut c) = store.comment(id).await else {
        return false;
    };
    if &c.session != session || c.status == CommentStatus::Resolved {
        return false;
    }
    c.answer = Some(answer.chars().take(MAX_ANSWER_CHARS).collect());
    c.status = CommentStatus::Answered;
    let Ok(c) = store.update_comment(&c).await else {
        return false;
    };
    let _ = events
        .append(
            session,
            None,
            &EventPayload::ReviewCommentUpdated { comment: c },
        )
        .await;
    true
}

/// After a run that got comments: its answer's replies go to each.
pub struct ReviewAnswers {
    pub store: Store,
    pub events: Arc<EventBus>,
    pub awaiting: Arc<Awaiting>,
}

impl AfterRun for ReviewAnswers {
    fn after_run<'a>(&'a self, run: &'a EndedRun<'a>) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let Some(ids) = self.awaiting.take(run.run_id) else {
                return;
            };
            let Some(text) = crate::subagents::final_answer(&self.store, run.session_id).await
            else {
                return;
            };
            for (id, reply) in answers(&text, &ids) {
                answer(&self.store, &self.events, run.session_id, &id, &reply).await;
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reply_is_read_from_its_tag_to_the_next() {
        let a: ReviewCommentId = "01AAA".into();
        let b: ReviewCommentId = "01BBB".into();
        let c: ReviewCommentId = "01CCC".into();
        let text =
            "Done.\n[c:01BBB] Renamed it.\n[c:01AAA]: Fixed the off-by-one\nand added a test.\n";
        let got = answers(text, &[a.clone(), b.clone(), c.clone()]);
        assert_eq!(got[&b], "Renamed it.");
        assert_eq!(got[&a], "Fixed the off-by-one\nand added a test.");
        assert!(!got.contains_key(&c));
    }
}
