//! The event writer of one session: queued events, deltas and messages become batches, each
//! stored in one transaction (group commit), then sent to the session's subscribers.

use super::*;

/// What one writer cycle stores, with who waits for what.
#[derive(Default)]
pub(super) struct Batch {
    pub(super) events: Vec<NewEvent>,
    /// Per event: its waiter, if any.
    pub(super) waiters: Vec<Option<oneshot::Sender<StoreResult<Frame>>>>,
    pub(super) messages: Vec<NewMessage>,
    pub(super) barriers: Vec<oneshot::Sender<StoreResult<()>>>,
}

/// Turn queued items into one batch: events in order, consecutive deltas of one message merged.
pub(super) fn build_batch(items: Vec<Item>) -> Batch {
    let mut b = Batch::default();
    // The delta being merged: (run, kind, message id, text).
    let mut open: Option<(Option<crate::protocol::RunId>, DeltaKind, String, String)> = None;
    fn close(
        b: &mut Batch,
        open: &mut Option<(Option<crate::protocol::RunId>, DeltaKind, String, String)>,
    ) {
        if let Some((run, kind, message_id, text)) = open.take() {
            let payload = match kind {
                DeltaKind::Text => EventPayload::MessageDelta {
                    message_id: message_id.into(),
                    text,
                },
                DeltaKind::Reasoning => EventPayload::ReasoningDelta {
                    message_id: message_id.into(),
                    text,
                },
                DeltaKind::Output(stream) => EventPayload::ToolOutput {
                    call_id: message_id.into(),
                    stream,
                    text,
                },
                DeltaKind::Task => EventPayload::TaskOutput {
                    task_id: message_id.into(),
                    text,
                },
            };
            if let Ok(data) = serde_json::to_string(&payload) {
                b.events.push(NewEvent {
                    run_id: run,
                    kind: payload.kind().to_string(),
                    data,
                    ends_run: None,
                });
                b.waiters.push(None);
            }
        }
    }
    for item in items {
        match item {
            Item::Delta {
                run,
                kind,
                message_id,
                text,
            } => {
                if let Some((r, k, m, t)) = &mut open
                    && *r == run
                    && *k == kind
                    && *m == message_id
                    && t.len() + text.len() <= MAX_DELTA_BYTES
                {
                    t.push_str(&text);
                    continue;
                }
                close(&mut b, &mut open);
                open = Some((run, kind, message_id, text));
            }
            Item::Event {
                run,
                kind,
                data,
                ends,
                done,
            } => {
                close(&mut b, &mut open);
                b.events.push(NewEvent {
                    run_id: run,
                    kind,
                    data,
                    ends_run: ends,
                });
                b.waiters.push(done);
            }
            // Messages and barriers keep their place relative to events: a barrier resolves after
            // the whole batch, which holds everything queued before it.
            Item::Message(m) => b.messages.push(m),
            Item::Barrier(done) => b.barriers.push(done),
        }
    }
    close(&mut b, &mut open);
    b
}

/// Take up to `MAX_BATCH - have` items; `None` (and the writer marked stopped) when empty.
pub(super) fn drain(shared: &Shared, have: usize, stop_when_empty: bool) -> Option<Vec<Item>> {
    let mut q = lock(&shared.queue);
    if q.items.is_empty() && stop_when_empty {
        q.writing = false;
        return None;
    }
    let n = q.items.len().min(MAX_BATCH.saturating_sub(have));
    Some(q.items.drain(..n).collect())
}

pub(super) async fn write_loop(
    store: Store,
    session: crate::protocol::SessionId,
    tx: broadcast::Sender<Frame>,
    shared: Arc<Shared>,
    channels: Channels,
    touched: broadcast::Sender<crate::protocol::SessionId>,
    full: Arc<std::sync::atomic::AtomicBool>,
) {
    loop {
        let Some(mut items) = drain(&shared, 0, true) else {
            release_if_idle(&channels, &session);
            return;
        };
        if !items.iter().any(Item::urgent) {
            tokio::select! {
                _ = tokio::time::sleep(LINGER) => {}
                _ = shared.urgent.notified() => {}
            }
            if let Some(more) = drain(&shared, items.len(), false) {
                items.extend(more);
            }
        }
        let b = build_batch(items);
        match store.append_batch(&session, &b.events, &b.messages).await {
            Ok(rows) => {
                full.store(false, std::sync::atomic::Ordering::Relaxed);
                if rows
                    .iter()
                    .any(|r| SUMMARY_KINDS.contains(&r.kind.as_str()))
                {
                    let _ = touched.send(session.clone());
                }
                for (row, waiter) in rows.iter().zip(b.waiters) {
                    let frame = Frame::from_row(row);
                    // No receivers is fine: the event is durable and will be replayed.
                    let _ = tx.send(frame.clone());
                    if let Some(w) = waiter {
                        let _ = w.send(Ok(frame));
                    }
                }
                for w in b.barriers {
                    let _ = w.send(Ok(()));
                }
            }
            Err(e) => {
                if matches!(e, StoreError::DiskFull) {
                    full.store(true, std::sync::atomic::Ordering::Relaxed);
                }
                if !matches!(e, StoreError::NotFound) {
                    tracing::error!(error = %e, session = %session, events = b.events.len(), "cannot store events");
                }
                for w in b.waiters.into_iter().flatten() {
                    let _ = w.send(Err(copy_err(&e)));
                }
                for w in b.barriers {
                    let _ = w.send(Err(copy_err(&e)));
                }
            }
        }
    }
}
