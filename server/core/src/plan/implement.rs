//! After a plan run: when it ends with an approved plan, the session switches to `build` and
//! the implementation turn starts with that plan (the tool itself never does). An after-run
//! hook of the scheduler's.

use std::sync::Arc;

use futures::future::BoxFuture;

use crate::events::EventBus;
use crate::protocol::RunTrigger;
use crate::scheduler::{AfterRun, EndedRun, RunQueue};
use crate::store::{PlanStatus, SessionPatch, Store};

pub struct Implementation {
    pub store: Store,
    pub events: Arc<EventBus>,
    pub queue: RunQueue,
}

impl AfterRun for Implementation {
    fn after_run<'a>(&'a self, run: &'a EndedRun<'a>) -> BoxFuture<'a, ()> {
        Box::pin(self.implement(run.session_id, run.run_id))
    }
}

impl Implementation {
    async fn implement(
        &self,
        session_id: &crate::protocol::SessionId,
        run_id: &crate::protocol::RunId,
    ) {
        let store = &self.store;
        let Ok(plans) = store.approved_plans_of_run(run_id).await else {
            return;
        };
        let Some(plan) = plans.into_iter().next() else {
            return;
        };
        if !store
            .transition_plan(
                &plan.id,
                PlanStatus::Approved,
                PlanStatus::Implementing,
                None,
            )
            .await
            .unwrap_or(false)
        {
            return;
        }
        let text = match store.get_artifact(&plan.artifact_id).await {
            Ok(a) => serde_json::from_str::<super::PlanRevision>(&a.meta)
                .map(|r| r.plan)
                .unwrap_or_default(),
            Err(_) => String::new(),
        };
        let patch = SessionPatch {
            agent: Some(crate::protocol::AgentName::build()),
            ..Default::default()
        };
        let row = match store.update_session(session_id, &patch).await {
            Ok(row) => row,
            Err(e) => {
                tracing::error!(error = %e, "cannot switch the session to build");
                return;
            }
        };
        self.events
            .session_updated(&crate::protocol::Session::from(row.clone()))
            .await;
        let prompt = format!("Implement this approved plan exactly.\n\n{text}");
        if let Err(e) = self.queue.enqueue(&row, RunTrigger::Plan, &prompt).await {
            tracing::error!(error = %e, "cannot start the implementation run");
        }
    }
}
