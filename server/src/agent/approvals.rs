//! Things a run waits for from the user — approvals, answers to questions, plan decisions — each
//! keyed by its own id with a oneshot (never a shared channel), answered once.

use std::collections::HashMap;
use std::sync::Mutex;

use tokio::sync::oneshot;

use crate::protocol::ApprovalDecision;

pub struct Broker<T> {
    waiting: Mutex<HashMap<String, oneshot::Sender<T>>>,
}

impl<T> Default for Broker<T> {
    fn default() -> Self {
        Broker {
            waiting: Mutex::new(HashMap::new()),
        }
    }
}

impl<T> Broker<T> {
    pub fn register(&self, id: &str) -> oneshot::Receiver<T> {
        let (tx, rx) = oneshot::channel();
        if let Ok(mut m) = self.waiting.lock() {
            m.insert(id.to_string(), tx);
        }
        rx
    }

    /// Deliver an answer; false when nobody waits for this id (answered, expired, or unknown).
    pub fn answer(&self, id: &str, v: T) -> bool {
        let tx = self.waiting.lock().ok().and_then(|mut m| m.remove(id));
        match tx {
            Some(tx) => tx.send(v).is_ok(),
            None => false,
        }
    }

    pub fn forget(&self, id: &str) {
        if let Ok(mut m) = self.waiting.lock() {
            m.remove(id);
        }
    }
}

pub type ApprovalBroker = Broker<ApprovalDecision>;
/// Answers: one entry per question; `None` = skipped.
pub type QuestionBroker = Broker<Vec<Option<Vec<String>>>>;
pub type PlanBroker = Broker<(crate::protocol::PlanDecision, Option<String>)>;
