//! Wake-ups: a task that ends by itself wakes its session with a normal run. Tasks ending within
//! 2 s share one message; at most one wake-up per session per 10 s and 6 per 10 min (the rest
//! waits, nothing is dropped); while the session is busy the message waits and is retried every
//! 2 s and as soon as the session is free; each task's delivery is claimed in the database before
//! waking, so it never repeats. No wake-up for tasks stopped by the user or the model, tasks that
//! died with the server, tasks of child sessions, archived sessions, or tasks whose output the
//! model already read after they ended.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use parking_lot::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use super::RunManager;
use crate::protocol::{EventPayload, RunTrigger};

#[derive(Debug, Clone, Copy)]
pub struct WakeRules {
    pub coalesce: Duration,
    pub min_gap: Duration,
    pub window: Duration,
    pub per_window: usize,
    pub busy_retry: Duration,
}

impl Default for WakeRules {
    fn default() -> Self {
        WakeRules {
            coalesce: Duration::from_secs(2),
            min_gap: Duration::from_secs(10),
            window: Duration::from_secs(600),
            per_window: 6,
            busy_retry: Duration::from_secs(2),
        }
    }
}

/// How long to wait before the next wake-up may be sent, given the previous ones.
pub fn wait_before_wake(history: &VecDeque<Instant>, now: Instant, r: &WakeRules) -> Duration {
    let mut wait = Duration::ZERO;
    if let Some(last) = history.back() {
        wait = wait.max((*last + r.min_gap).saturating_duration_since(now));
    }
    let recent: Vec<&Instant> = history
        .iter()
        .filter(|t| now.saturating_duration_since(**t) < r.window)
        .collect();
    if recent.len() >= r.per_window {
        let oldest = recent[recent.len() - r.per_window];
        wait = wait.max((*oldest + r.window).saturating_duration_since(now));
    }
    wait
}

pub struct Waker {
    runs: Arc<RunManager>,
    store: crate::store::Store,
    events: Arc<crate::events::EventBus>,
    rules: WakeRules,
    history: Mutex<HashMap<String, VecDeque<Instant>>>,
    active: Mutex<HashSet<crate::protocol::SessionId>>,
}

impl Waker {
    pub fn new(
        runs: Arc<RunManager>,
        (store, events): (crate::store::Store, Arc<crate::events::EventBus>),
        rules: WakeRules,
    ) -> Arc<Waker> {
        Arc::new(Waker {
            runs,
            store,
            events,
            rules,
            history: Mutex::new(HashMap::new()),
            active: Mutex::new(HashSet::new()),
        })
    }

    /// Listen for tasks that ended by themselves.
    pub fn spawn(
        self: &Arc<Self>,
        mut ended: tokio::sync::mpsc::UnboundedReceiver<crate::protocol::SessionId>,
    ) {
        let me = self.clone();
        tokio::spawn(async move {
            while let Some(session) = ended.recv().await {
                me.poke(&session);
            }
        });
    }

    /// Make sure a delivery loop runs for the session.
    pub fn poke(self: &Arc<Self>, session: &crate::protocol::SessionId) {
        let fresh = self.active.lock().insert(session.clone());
        if fresh {
            let me = self.clone();
            let s = session.clone();
            tokio::spawn(async move {
                me.deliver_loop(&s).await;
                {
                    let mut a = me.active.lock();
                    a.remove(&s);
                }
            });
        }
    }

    async fn deliver_loop(&self, session: &crate::protocol::SessionId) {
        let store = &self.store;
        tokio::time::sleep(self.rules.coalesce).await;
        loop {
            let Ok(s) = store.get_session(session).await else {
                return;
            };
            if s.archived || s.parent_id.is_some() {
                return;
            }
            let pending = store.undelivered_tasks(session).await.unwrap_or_default();
            if pending.is_empty() {
                return;
            }
            let wait = {
                let h = self
                    .history
                    .lock()
                    .get(session.as_str())
                    .cloned()
                    .unwrap_or_default();
                wait_before_wake(&h, Instant::now(), &self.rules)
            };
            if !wait.is_zero() {
                tokio::time::sleep(wait).await;
                continue;
            }
            if self.runs.is_busy(session) {
                tokio::select! {
                    _ = tokio::time::sleep(self.rules.busy_retry) => {},
                    _ = self.runs.run_queue().idle().notified() => {},
                }
                continue;
            }
            let mut claimed = Vec::new();
            for t in pending {
                if store.claim_delivery(&t.id).await.unwrap_or(false) {
                    claimed.push(t);
                }
            }
            if claimed.is_empty() {
                continue;
            }
            let mut text = String::from("Background tasks finished:\n");
            for t in &claimed {
                let code = t
                    .exit_code
                    .map(|c| format!(", exit code {c}"))
                    .unwrap_or_default();
                let why = if t.stopped_by.0 == Some(crate::protocol::TaskStopper::Timeout) {
                    " (stopped by the watchdog: it ran too long)"
                } else {
                    ""
                };
                text.push_str(&format!(
                    "- {} `{}`: {}{code}{why}\n",
                    t.id,
                    t.label,
                    t.status.as_str()
                ));
            }
            text.push_str("Read their output with bg_output {\"id\": …, \"offset\": 0}.");
            let ids: Vec<crate::protocol::TaskId> = claimed.iter().map(|t| t.id.clone()).collect();
            let _ = self
                .events
                .append(
                    session,
                    None,
                    &EventPayload::Wakeup {
                        task_ids: ids,
                        text: text.clone(),
                    },
                )
                .await;
            if let Err(e) = self.runs.enqueue(session, RunTrigger::Wakeup, &text).await {
                tracing::warn!(error = %e, "cannot start the wake-up run");
            }
            {
                let mut h = self.history.lock();
                let q = h.entry(session.to_string()).or_default();
                q.push_back(Instant::now());
                while q.len() > 64 {
                    q.pop_front();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn rate_limits() {
        let r = WakeRules::default();
        let t0 = Instant::now();
        let mut h = VecDeque::new();
        assert_eq!(wait_before_wake(&h, t0, &r), Duration::ZERO);
        h.push_back(t0);
        assert_eq!(
            wait_before_wake(&h, t0 + Duration::from_secs(3), &r),
            Duration::from_secs(7),
            "one per 10 s"
        );
        assert_eq!(
            wait_before_wake(&h, t0 + Duration::from_secs(10), &r),
            Duration::ZERO
        );
        // Six in the window: the seventh waits until the oldest leaves the 10 minutes.
        for i in 1..6 {
            h.push_back(t0 + Duration::from_secs(10 * i));
        }
        let now = t0 + Duration::from_secs(60);
        assert_eq!(wait_before_wake(&h, now, &r), Duration::from_secs(540));
        assert_eq!(
            wait_before_wake(&h, t0 + Duration::from_secs(600), &r),
            Duration::ZERO
        );
    }
}
