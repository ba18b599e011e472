//! A run's place in the global cap on runs executing at once. A run that only waits — on a
//! person, on its subagents — gives its place back for the wait, so parents waiting on
//! children can never hold every place while the children queue for one.

use std::future::Future;
use std::sync::Arc;

use parking_lot::Mutex;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

pub struct Slot {
    cap: Arc<Semaphore>,
    /// How many waits are under way, and the place while none is.
    state: Mutex<(usize, Option<OwnedSemaphorePermit>)>,
}

impl Slot {
    pub(crate) fn new(cap: Arc<Semaphore>, permit: OwnedSemaphorePermit) -> Slot {
        Slot {
            cap,
            state: Mutex::new((0, Some(permit))),
        }
    }

    /// Whether the run holds its place now (false while it waits).
    pub fn holds(&self) -> bool {
        self.state.lock().1.is_some()
    }

    /// Run `wait` without holding a place; take one again before going on (or until `cancel`:
    /// a stopped run only records how it ended). Waits may overlap: the place goes back with
    /// the first and is taken again after the last.
    pub async fn idle<F: Future>(&self, cancel: &CancellationToken, wait: F) -> F::Output {
        {
            let mut s = self.state.lock();
            s.0 += 1;
            s.1 = None;
        }
        let leave = Leave(self);
        let out = wait.await;
        drop(leave);
        self.retake(cancel).await;
        out
    }

    async fn retake(&self, cancel: &CancellationToken) {
        if self.state.lock().0 > 0 || self.holds() {
            return;
        }
        let permit = tokio::select! {
            p = self.cap.clone().acquire_owned() => p.ok(),
            () = cancel.cancelled() => None,
        };
        let mut s = self.state.lock();
        if s.0 == 0 && s.1.is_none() {
            s.1 = permit;
        }
    }
}

/// Ends one wait even when its future is dropped half-way (a cancelled run).
struct Leave<'a>(&'a Slot);

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        let mut s = self.0.state.lock();
        s.0 = s.0.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_waiting_run_gives_its_place_back_and_takes_one_again() {
        let cap = Arc::new(Semaphore::new(1));
        let Ok(permit) = cap.clone().try_acquire_owned() else {
            panic!("a free place")
        };
        let slot = Slot::new(cap.clone(), permit);
        let cancel = CancellationToken::new();
        let other = cap.clone();
        let got = slot
            .idle(&cancel, async move {
                // Another run takes the place while this one waits, then ends.
                other.try_acquire_owned().is_ok()
            })
            .await;
        assert!(got, "the place was free during the wait");
        assert!(slot.holds());
        assert_eq!(cap.available_permits(), 0);
    }

    #[tokio::test]
    async fn overlapping_waits_give_the_place_back_once() {
        let cap = Arc::new(Semaphore::new(1));
        let Ok(permit) = cap.clone().try_acquire_owned() else {
            panic!("a free place")
        };
        let slot = Slot::new(cap.clone(), permit);
        let cancel = CancellationToken::new();
        let (a, b) = tokio::join!(
            slot.idle(&cancel, async { tokio::task::yield_now().await }),
            slot.idle(&cancel, async { tokio::task::yield_now().await })
        );
        let ((), ()) = (a, b);
        assert!(slot.holds());
        assert_eq!(cap.available_permits(), 0);
    }
}
