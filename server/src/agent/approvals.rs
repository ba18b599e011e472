//! Pending approvals: one oneshot per approval id (never a shared channel), answered once.

use std::collections::HashMap;
use std::sync::Mutex;

use tokio::sync::oneshot;

use crate::protocol::ApprovalDecision;

#[derive(Default)]
pub struct ApprovalBroker {
    waiting: Mutex<HashMap<String, oneshot::Sender<ApprovalDecision>>>,
}

impl ApprovalBroker {
    pub fn register(&self, id: &str) -> oneshot::Receiver<ApprovalDecision> {
        let (tx, rx) = oneshot::channel();
        if let Ok(mut m) = self.waiting.lock() {
            m.insert(id.to_string(), tx);
        }
        rx
    }

    /// Deliver an answer; false when nobody waits for this id (answered, expired, or unknown).
    pub fn answer(&self, id: &str, d: ApprovalDecision) -> bool {
        let tx = self.waiting.lock().ok().and_then(|mut m| m.remove(id));
        match tx {
            Some(tx) => tx.send(d).is_ok(),
            None => false,
        }
    }

    pub fn forget(&self, id: &str) {
        if let Ok(mut m) = self.waiting.lock() {
            m.remove(id);
        }
    }
}
